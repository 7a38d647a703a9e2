//! Every THBaseService call as a request value ([`Call`]): its method name, how its
//! argument struct is written and how its result struct is read, built from the
//! generated argument and result structs (private to the generated module, visible
//! here).
//!
//! The table of calls is [`for_each_call!`](crate::for_each_call): this module makes
//! one request type per call from it, and `basalt-thrift` one async method per call.

use super::*;
use crate::bounded_input::ResultCost;
use crate::{Call, RowsCall};

pub use super::mutations::{DeleteRows, PutRows};

/// The table of THBaseService calls, handed to `$callback!`: one entry per call,
///
/// `KIND method = Type "wireName"(arg: Type, ...) -> Reply, ArgsStruct, ResultStruct;`
///
/// with its doc comment. `KIND` is `rows` for the calls whose replies a client reads
/// as zero-copy rows (`RowBatch`), `generated` for the others.
#[macro_export]
#[doc(hidden)]
macro_rules! for_each_call {
    ($callback:ident) => {
        $callback! {
            /// `exists`: whether the row (or the columns named in the get) exists.
            generated exists = Exists "exists"(table: Vec<u8>, tget: TGet) -> bool, THBaseServiceExistsArgs, THBaseServiceExistsResult;
            /// `existsAll`: `exists` for many gets, answers in the same order.
            generated exists_all = ExistsAll "existsAll"(table: Vec<u8>, tgets: Vec<TGet>) -> Vec<bool>, THBaseServiceExistsAllArgs, THBaseServiceExistsAllResult;
            /// `get`: one row; an empty `TResult` when the row does not exist.
            generated get = Get "get"(table: Vec<u8>, tget: TGet) -> TResult, THBaseServiceGetArgs, THBaseServiceGetResult;
            /// `getMultiple`: many rows in one call, answers in the same order.
            rows get_multiple = GetMultiple "getMultiple"(table: Vec<u8>, tgets: Vec<TGet>) -> Vec<TResult>, THBaseServiceGetMultipleArgs, THBaseServiceGetMultipleResult;
            /// `put`: writes one row's cells.
            generated put = Put "put"(table: Vec<u8>, tput: TPut) -> (), THBaseServicePutArgs, THBaseServicePutResult;
            /// `checkAndPut`: writes `tput` if the cell equals `value` (empty `value`: if the
            /// cell is absent or empty); true when written.
            generated check_and_put = CheckAndPut "checkAndPut"(table: Vec<u8>, row: Vec<u8>, family: Vec<u8>, qualifier: Vec<u8>, value: Vec<u8>, tput: TPut) -> bool, THBaseServiceCheckAndPutArgs, THBaseServiceCheckAndPutResult;
            /// `putMultiple`: writes many rows in one call.
            generated put_multiple = PutMultiple "putMultiple"(table: Vec<u8>, tputs: Vec<TPut>) -> (), THBaseServicePutMultipleArgs, THBaseServicePutMultipleResult;
            /// `deleteSingle`: one delete (mind `TDelete::delete_type`: the server's default
            /// removes every version of each named column).
            generated delete_single = DeleteSingle "deleteSingle"(table: Vec<u8>, tdelete: TDelete) -> (), THBaseServiceDeleteSingleArgs, THBaseServiceDeleteSingleResult;
            /// `deleteMultiple`: many deletes; returns those that failed (always empty in HBase 2).
            generated delete_multiple = DeleteMultiple "deleteMultiple"(table: Vec<u8>, tdeletes: Vec<TDelete>) -> Vec<TDelete>, THBaseServiceDeleteMultipleArgs, THBaseServiceDeleteMultipleResult;
            /// `checkAndDelete`: deletes if the cell equals `value`; true when deleted.
            generated check_and_delete = CheckAndDelete "checkAndDelete"(table: Vec<u8>, row: Vec<u8>, family: Vec<u8>, qualifier: Vec<u8>, value: Vec<u8>, tdelete: TDelete) -> bool, THBaseServiceCheckAndDeleteArgs, THBaseServiceCheckAndDeleteResult;
            /// `increment`: adds to counters atomically, returning the new values when asked.
            generated increment = Increment "increment"(table: Vec<u8>, tincrement: TIncrement) -> TResult, THBaseServiceIncrementArgs, THBaseServiceIncrementResult;
            /// `append`: appends bytes to cells atomically.
            generated append = Append "append"(table: Vec<u8>, tappend: TAppend) -> TResult, THBaseServiceAppendArgs, THBaseServiceAppendResult;
            /// `mutateRow`: puts and deletes on one row, atomically.
            generated mutate_row = MutateRow "mutateRow"(table: Vec<u8>, trow_mutations: TRowMutations) -> (), THBaseServiceMutateRowArgs, THBaseServiceMutateRowResult;
            /// `checkAndMutate`: applies `row_mutations` if the cell compares to `value` with
            /// `compare_op`; true when applied.
            generated check_and_mutate = CheckAndMutate "checkAndMutate"(table: Vec<u8>, row: Vec<u8>, family: Vec<u8>, qualifier: Vec<u8>, compare_op: TCompareOp, value: Vec<u8>, row_mutations: TRowMutations) -> bool, THBaseServiceCheckAndMutateArgs, THBaseServiceCheckAndMutateResult;
            /// `openScanner`: opens a server-side scanner and returns its id.
            generated open_scanner = OpenScanner "openScanner"(table: Vec<u8>, tscan: TScan) -> i32, THBaseServiceOpenScannerArgs, THBaseServiceOpenScannerResult;
            /// `getScannerRows`: the next `num_rows` rows of a scanner (fewer at the end;
            /// empty when exhausted). Fails with `TIllegalArgument` for an expired scanner.
            rows get_scanner_rows = GetScannerRows "getScannerRows"(scanner_id: i32, num_rows: i32) -> Vec<TResult>, THBaseServiceGetScannerRowsArgs, THBaseServiceGetScannerRowsResult;
            /// `closeScanner`: releases a scanner on the server.
            generated close_scanner = CloseScanner "closeScanner"(scanner_id: i32) -> (), THBaseServiceCloseScannerArgs, THBaseServiceCloseScannerResult;
            /// `getScannerResults`: open, read up to `num_rows` rows and close, in one call.
            rows get_scanner_results = GetScannerResults "getScannerResults"(table: Vec<u8>, tscan: TScan, num_rows: i32) -> Vec<TResult>, THBaseServiceGetScannerResultsArgs, THBaseServiceGetScannerResultsResult;
            /// `getRegionLocation`: the region holding `row`.
            generated get_region_location = GetRegionLocation "getRegionLocation"(table: Vec<u8>, row: Vec<u8>, reload: bool) -> THRegionLocation, THBaseServiceGetRegionLocationArgs, THBaseServiceGetRegionLocationResult;
            /// `getAllRegionLocations`: every region of a table, in key order.
            generated get_all_region_locations = GetAllRegionLocations "getAllRegionLocations"(table: Vec<u8>) -> Vec<THRegionLocation>, THBaseServiceGetAllRegionLocationsArgs, THBaseServiceGetAllRegionLocationsResult;
            /// `getTableDescriptor`: a table's settings and column families.
            generated get_table_descriptor = GetTableDescriptor "getTableDescriptor"(table: TTableName) -> TTableDescriptor, THBaseServiceGetTableDescriptorArgs, THBaseServiceGetTableDescriptorResult;
            /// `getTableDescriptors`: several tables' descriptors.
            generated get_table_descriptors = GetTableDescriptors "getTableDescriptors"(tables: Vec<TTableName>) -> Vec<TTableDescriptor>, THBaseServiceGetTableDescriptorsArgs, THBaseServiceGetTableDescriptorsResult;
            /// `tableExists`.
            generated table_exists = TableExists "tableExists"(table_name: TTableName) -> bool, THBaseServiceTableExistsArgs, THBaseServiceTableExistsResult;
            /// `getTableDescriptorsByPattern`: descriptors of the tables whose name matches `regex`.
            generated get_table_descriptors_by_pattern = GetTableDescriptorsByPattern "getTableDescriptorsByPattern"(regex: String, include_sys_tables: bool) -> Vec<TTableDescriptor>, THBaseServiceGetTableDescriptorsByPatternArgs, THBaseServiceGetTableDescriptorsByPatternResult;
            /// `getTableDescriptorsByNamespace`.
            generated get_table_descriptors_by_namespace = GetTableDescriptorsByNamespace "getTableDescriptorsByNamespace"(name: String) -> Vec<TTableDescriptor>, THBaseServiceGetTableDescriptorsByNamespaceArgs, THBaseServiceGetTableDescriptorsByNamespaceResult;
            /// `getTableNamesByPattern`: names of the tables matching `regex`.
            generated get_table_names_by_pattern = GetTableNamesByPattern "getTableNamesByPattern"(regex: String, include_sys_tables: bool) -> Vec<TTableName>, THBaseServiceGetTableNamesByPatternArgs, THBaseServiceGetTableNamesByPatternResult;
            /// `getTableNamesByNamespace`.
            generated get_table_names_by_namespace = GetTableNamesByNamespace "getTableNamesByNamespace"(name: String) -> Vec<TTableName>, THBaseServiceGetTableNamesByNamespaceArgs, THBaseServiceGetTableNamesByNamespaceResult;
            /// `createTable`, pre-split at `split_keys` (empty: one region).
            generated create_table = CreateTable "createTable"(desc: TTableDescriptor, split_keys: Vec<Vec<u8>>) -> (), THBaseServiceCreateTableArgs, THBaseServiceCreateTableResult;
            /// `deleteTable` (the table must be disabled).
            generated delete_table = DeleteTable "deleteTable"(table_name: TTableName) -> (), THBaseServiceDeleteTableArgs, THBaseServiceDeleteTableResult;
            /// `truncateTable` (the table must be disabled).
            generated truncate_table = TruncateTable "truncateTable"(table_name: TTableName, preserve_splits: bool) -> (), THBaseServiceTruncateTableArgs, THBaseServiceTruncateTableResult;
            /// `enableTable`.
            generated enable_table = EnableTable "enableTable"(table_name: TTableName) -> (), THBaseServiceEnableTableArgs, THBaseServiceEnableTableResult;
            /// `disableTable`.
            generated disable_table = DisableTable "disableTable"(table_name: TTableName) -> (), THBaseServiceDisableTableArgs, THBaseServiceDisableTableResult;
            /// `isTableEnabled`.
            generated is_table_enabled = IsTableEnabled "isTableEnabled"(table_name: TTableName) -> bool, THBaseServiceIsTableEnabledArgs, THBaseServiceIsTableEnabledResult;
            /// `isTableDisabled`.
            generated is_table_disabled = IsTableDisabled "isTableDisabled"(table_name: TTableName) -> bool, THBaseServiceIsTableDisabledArgs, THBaseServiceIsTableDisabledResult;
            /// `isTableAvailable`: every region is online.
            generated is_table_available = IsTableAvailable "isTableAvailable"(table_name: TTableName) -> bool, THBaseServiceIsTableAvailableArgs, THBaseServiceIsTableAvailableResult;
            /// `isTableAvailableWithSplit`.
            generated is_table_available_with_split = IsTableAvailableWithSplit "isTableAvailableWithSplit"(table_name: TTableName, split_keys: Vec<Vec<u8>>) -> bool, THBaseServiceIsTableAvailableWithSplitArgs, THBaseServiceIsTableAvailableWithSplitResult;
            /// `addColumnFamily`.
            generated add_column_family = AddColumnFamily "addColumnFamily"(table_name: TTableName, column: TColumnFamilyDescriptor) -> (), THBaseServiceAddColumnFamilyArgs, THBaseServiceAddColumnFamilyResult;
            /// `deleteColumnFamily`.
            generated delete_column_family = DeleteColumnFamily "deleteColumnFamily"(table_name: TTableName, column: Vec<u8>) -> (), THBaseServiceDeleteColumnFamilyArgs, THBaseServiceDeleteColumnFamilyResult;
            /// `modifyColumnFamily`.
            generated modify_column_family = ModifyColumnFamily "modifyColumnFamily"(table_name: TTableName, column: TColumnFamilyDescriptor) -> (), THBaseServiceModifyColumnFamilyArgs, THBaseServiceModifyColumnFamilyResult;
            /// `modifyTable`.
            generated modify_table = ModifyTable "modifyTable"(desc: TTableDescriptor) -> (), THBaseServiceModifyTableArgs, THBaseServiceModifyTableResult;
            /// `createNamespace`.
            generated create_namespace = CreateNamespace "createNamespace"(namespace_desc: TNamespaceDescriptor) -> (), THBaseServiceCreateNamespaceArgs, THBaseServiceCreateNamespaceResult;
            /// `modifyNamespace`.
            generated modify_namespace = ModifyNamespace "modifyNamespace"(namespace_desc: TNamespaceDescriptor) -> (), THBaseServiceModifyNamespaceArgs, THBaseServiceModifyNamespaceResult;
            /// `deleteNamespace` (it must hold no tables).
            generated delete_namespace = DeleteNamespace "deleteNamespace"(name: String) -> (), THBaseServiceDeleteNamespaceArgs, THBaseServiceDeleteNamespaceResult;
            /// `getNamespaceDescriptor`.
            generated get_namespace_descriptor = GetNamespaceDescriptor "getNamespaceDescriptor"(name: String) -> TNamespaceDescriptor, THBaseServiceGetNamespaceDescriptorArgs, THBaseServiceGetNamespaceDescriptorResult;
            /// `listNamespaceDescriptors`.
            generated list_namespace_descriptors = ListNamespaceDescriptors "listNamespaceDescriptors"() -> Vec<TNamespaceDescriptor>, THBaseServiceListNamespaceDescriptorsArgs, THBaseServiceListNamespaceDescriptorsResult;
            /// `listNamespaces`: every namespace's name.
            generated list_namespaces = ListNamespaces "listNamespaces"() -> Vec<String>, THBaseServiceListNamespacesArgs, THBaseServiceListNamespacesResult;
            /// `getThriftServerType`: `TWO` for a Thrift2 gateway.
            generated get_thrift_server_type = GetThriftServerType "getThriftServerType"() -> TThriftServerType, THBaseServiceGetThriftServerTypeArgs, THBaseServiceGetThriftServerTypeResult;
            /// `getClusterId`.
            generated get_cluster_id = GetClusterId "getClusterId"() -> String, THBaseServiceGetClusterIdArgs, THBaseServiceGetClusterIdResult;
        }
    };
}

macro_rules! request_types {
    ($(
        $(#[$doc:meta])*
        $kind:ident $name:ident = $ty:ident $wire:literal ($($arg:ident: $arg_ty:ty),*) -> $ret:ty, $args:ident, $result:ident;
    )*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, PartialEq, Eq)]
            pub struct $ty {
                args: $args,
            }

            impl $ty {
                /// The request, from the call's arguments.
                #[allow(clippy::too_many_arguments)]
                pub fn new($($arg: $arg_ty),*) -> Self {
                    $ty { args: $args { $($arg),* } }
                }
            }

            impl Call for $ty {
                type Reply = $ret;
                const METHOD: &'static str = $wire;
                const TOP_ELEMENT: usize = <$ret as ResultCost>::TOP_ELEMENT;

                fn write_args(&self, out: &mut dyn TOutputProtocol) -> thrift::Result<()> {
                    self.args.write_to_out_protocol(out)
                }

                fn read_result(input: &mut dyn TInputProtocol) -> thrift::Result<$ret> {
                    $result::read_from_in_protocol(input)?.ok_or()
                }
            }
        )*
    };
}

crate::for_each_call!(request_types);

/// `get` replies carry one row.
impl RowsCall for Get {}
/// `getMultiple` replies carry a list of rows.
impl RowsCall for GetMultiple {}
/// `getScannerRows` replies carry a list of rows.
impl RowsCall for GetScannerRows {}
/// `getScannerResults` replies carry a list of rows.
impl RowsCall for GetScannerResults {}
