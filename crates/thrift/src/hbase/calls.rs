//! One async method on [`Connection`] per THBaseService call, built from the generated
//! argument and result structs (private to the generated module, visible here).

use super::*;
use crate::row_reply::RowCall;
use crate::{CallError, Connection, RowBatch, RowData};

macro_rules! calls {
    ($(
        $(#[$doc:meta])*
        $name:ident = $wire:literal ($($arg:ident: $ty:ty),*) -> $ret:ty, $args:ident, $result:ident;
    )*) => {
        impl Connection {
            $(
                $(#[$doc])*
                pub async fn $name(&mut self, $($arg: $ty),*) -> Result<$ret, CallError> {
                    let args = $args { $($arg),* };
                    self.call(
                        $wire,
                        |out| args.write_to_out_protocol(out),
                        |input| $result::read_from_in_protocol(input)?.ok_or(),
                    )
                    .await
                }
            )*
        }
    };
}

calls! {
    /// `exists`: whether the row (or the columns named in the get) exists.
    exists = "exists"(table: Vec<u8>, tget: TGet) -> bool, THBaseServiceExistsArgs, THBaseServiceExistsResult;
    /// `existsAll`: `exists` for many gets, answers in the same order.
    exists_all = "existsAll"(table: Vec<u8>, tgets: Vec<TGet>) -> Vec<bool>, THBaseServiceExistsAllArgs, THBaseServiceExistsAllResult;
    /// `get`: one row; an empty `TResult` when the row does not exist.
    get = "get"(table: Vec<u8>, tget: TGet) -> TResult, THBaseServiceGetArgs, THBaseServiceGetResult;
    /// `getMultiple`: many rows in one call, answers in the same order.
    get_multiple = "getMultiple"(table: Vec<u8>, tgets: Vec<TGet>) -> Vec<TResult>, THBaseServiceGetMultipleArgs, THBaseServiceGetMultipleResult;
    /// `put`: writes one row's cells.
    put = "put"(table: Vec<u8>, tput: TPut) -> (), THBaseServicePutArgs, THBaseServicePutResult;
    /// `checkAndPut`: writes `tput` if the cell equals `value` (empty `value`: if the
    /// cell is absent or empty); true when written.
    check_and_put = "checkAndPut"(table: Vec<u8>, row: Vec<u8>, family: Vec<u8>, qualifier: Vec<u8>, value: Vec<u8>, tput: TPut) -> bool, THBaseServiceCheckAndPutArgs, THBaseServiceCheckAndPutResult;
    /// `putMultiple`: writes many rows in one call.
    put_multiple = "putMultiple"(table: Vec<u8>, tputs: Vec<TPut>) -> (), THBaseServicePutMultipleArgs, THBaseServicePutMultipleResult;
    /// `deleteSingle`: one delete (mind `TDelete::delete_type`: the server's default
    /// removes every version of each named column).
    delete_single = "deleteSingle"(table: Vec<u8>, tdelete: TDelete) -> (), THBaseServiceDeleteSingleArgs, THBaseServiceDeleteSingleResult;
    /// `deleteMultiple`: many deletes; returns those that failed (always empty in HBase 2).
    delete_multiple = "deleteMultiple"(table: Vec<u8>, tdeletes: Vec<TDelete>) -> Vec<TDelete>, THBaseServiceDeleteMultipleArgs, THBaseServiceDeleteMultipleResult;
    /// `checkAndDelete`: deletes if the cell equals `value`; true when deleted.
    check_and_delete = "checkAndDelete"(table: Vec<u8>, row: Vec<u8>, family: Vec<u8>, qualifier: Vec<u8>, value: Vec<u8>, tdelete: TDelete) -> bool, THBaseServiceCheckAndDeleteArgs, THBaseServiceCheckAndDeleteResult;
    /// `increment`: adds to counters atomically, returning the new values when asked.
    increment = "increment"(table: Vec<u8>, tincrement: TIncrement) -> TResult, THBaseServiceIncrementArgs, THBaseServiceIncrementResult;
    /// `append`: appends bytes to cells atomically.
    append = "append"(table: Vec<u8>, tappend: TAppend) -> TResult, THBaseServiceAppendArgs, THBaseServiceAppendResult;
    /// `mutateRow`: puts and deletes on one row, atomically.
    mutate_row = "mutateRow"(table: Vec<u8>, trow_mutations: TRowMutations) -> (), THBaseServiceMutateRowArgs, THBaseServiceMutateRowResult;
    /// `checkAndMutate`: applies `row_mutations` if the cell compares to `value` with
    /// `compare_op`; true when applied.
    check_and_mutate = "checkAndMutate"(table: Vec<u8>, row: Vec<u8>, family: Vec<u8>, qualifier: Vec<u8>, compare_op: TCompareOp, value: Vec<u8>, row_mutations: TRowMutations) -> bool, THBaseServiceCheckAndMutateArgs, THBaseServiceCheckAndMutateResult;
    /// `openScanner`: opens a server-side scanner and returns its id.
    open_scanner = "openScanner"(table: Vec<u8>, tscan: TScan) -> i32, THBaseServiceOpenScannerArgs, THBaseServiceOpenScannerResult;
    /// `getScannerRows`: the next `num_rows` rows of a scanner (fewer at the end;
    /// empty when exhausted). Fails with `TIllegalArgument` for an expired scanner.
    get_scanner_rows = "getScannerRows"(scanner_id: i32, num_rows: i32) -> Vec<TResult>, THBaseServiceGetScannerRowsArgs, THBaseServiceGetScannerRowsResult;
    /// `closeScanner`: releases a scanner on the server.
    close_scanner = "closeScanner"(scanner_id: i32) -> (), THBaseServiceCloseScannerArgs, THBaseServiceCloseScannerResult;
    /// `getScannerResults`: open, read up to `num_rows` rows and close, in one call.
    get_scanner_results = "getScannerResults"(table: Vec<u8>, tscan: TScan, num_rows: i32) -> Vec<TResult>, THBaseServiceGetScannerResultsArgs, THBaseServiceGetScannerResultsResult;
    /// `getRegionLocation`: the region holding `row`.
    get_region_location = "getRegionLocation"(table: Vec<u8>, row: Vec<u8>, reload: bool) -> THRegionLocation, THBaseServiceGetRegionLocationArgs, THBaseServiceGetRegionLocationResult;
    /// `getAllRegionLocations`: every region of a table, in key order.
    get_all_region_locations = "getAllRegionLocations"(table: Vec<u8>) -> Vec<THRegionLocation>, THBaseServiceGetAllRegionLocationsArgs, THBaseServiceGetAllRegionLocationsResult;
    /// `getTableDescriptor`: a table's settings and column families.
    get_table_descriptor = "getTableDescriptor"(table: TTableName) -> TTableDescriptor, THBaseServiceGetTableDescriptorArgs, THBaseServiceGetTableDescriptorResult;
    /// `getTableDescriptors`: several tables' descriptors.
    get_table_descriptors = "getTableDescriptors"(tables: Vec<TTableName>) -> Vec<TTableDescriptor>, THBaseServiceGetTableDescriptorsArgs, THBaseServiceGetTableDescriptorsResult;
    /// `tableExists`.
    table_exists = "tableExists"(table_name: TTableName) -> bool, THBaseServiceTableExistsArgs, THBaseServiceTableExistsResult;
    /// `getTableDescriptorsByPattern`: descriptors of the tables whose name matches `regex`.
    get_table_descriptors_by_pattern = "getTableDescriptorsByPattern"(regex: String, include_sys_tables: bool) -> Vec<TTableDescriptor>, THBaseServiceGetTableDescriptorsByPatternArgs, THBaseServiceGetTableDescriptorsByPatternResult;
    /// `getTableDescriptorsByNamespace`.
    get_table_descriptors_by_namespace = "getTableDescriptorsByNamespace"(name: String) -> Vec<TTableDescriptor>, THBaseServiceGetTableDescriptorsByNamespaceArgs, THBaseServiceGetTableDescriptorsByNamespaceResult;
    /// `getTableNamesByPattern`: names of the tables matching `regex`.
    get_table_names_by_pattern = "getTableNamesByPattern"(regex: String, include_sys_tables: bool) -> Vec<TTableName>, THBaseServiceGetTableNamesByPatternArgs, THBaseServiceGetTableNamesByPatternResult;
    /// `getTableNamesByNamespace`.
    get_table_names_by_namespace = "getTableNamesByNamespace"(name: String) -> Vec<TTableName>, THBaseServiceGetTableNamesByNamespaceArgs, THBaseServiceGetTableNamesByNamespaceResult;
    /// `createTable`, pre-split at `split_keys` (empty: one region).
    create_table = "createTable"(desc: TTableDescriptor, split_keys: Vec<Vec<u8>>) -> (), THBaseServiceCreateTableArgs, THBaseServiceCreateTableResult;
    /// `deleteTable` (the table must be disabled).
    delete_table = "deleteTable"(table_name: TTableName) -> (), THBaseServiceDeleteTableArgs, THBaseServiceDeleteTableResult;
    /// `truncateTable` (the table must be disabled).
    truncate_table = "truncateTable"(table_name: TTableName, preserve_splits: bool) -> (), THBaseServiceTruncateTableArgs, THBaseServiceTruncateTableResult;
    /// `enableTable`.
    enable_table = "enableTable"(table_name: TTableName) -> (), THBaseServiceEnableTableArgs, THBaseServiceEnableTableResult;
    /// `disableTable`.
    disable_table = "disableTable"(table_name: TTableName) -> (), THBaseServiceDisableTableArgs, THBaseServiceDisableTableResult;
    /// `isTableEnabled`.
    is_table_enabled = "isTableEnabled"(table_name: TTableName) -> bool, THBaseServiceIsTableEnabledArgs, THBaseServiceIsTableEnabledResult;
    /// `isTableDisabled`.
    is_table_disabled = "isTableDisabled"(table_name: TTableName) -> bool, THBaseServiceIsTableDisabledArgs, THBaseServiceIsTableDisabledResult;
    /// `isTableAvailable`: every region is online.
    is_table_available = "isTableAvailable"(table_name: TTableName) -> bool, THBaseServiceIsTableAvailableArgs, THBaseServiceIsTableAvailableResult;
    /// `isTableAvailableWithSplit`.
    is_table_available_with_split = "isTableAvailableWithSplit"(table_name: TTableName, split_keys: Vec<Vec<u8>>) -> bool, THBaseServiceIsTableAvailableWithSplitArgs, THBaseServiceIsTableAvailableWithSplitResult;
    /// `addColumnFamily`.
    add_column_family = "addColumnFamily"(table_name: TTableName, column: TColumnFamilyDescriptor) -> (), THBaseServiceAddColumnFamilyArgs, THBaseServiceAddColumnFamilyResult;
    /// `deleteColumnFamily`.
    delete_column_family = "deleteColumnFamily"(table_name: TTableName, column: Vec<u8>) -> (), THBaseServiceDeleteColumnFamilyArgs, THBaseServiceDeleteColumnFamilyResult;
    /// `modifyColumnFamily`.
    modify_column_family = "modifyColumnFamily"(table_name: TTableName, column: TColumnFamilyDescriptor) -> (), THBaseServiceModifyColumnFamilyArgs, THBaseServiceModifyColumnFamilyResult;
    /// `modifyTable`.
    modify_table = "modifyTable"(desc: TTableDescriptor) -> (), THBaseServiceModifyTableArgs, THBaseServiceModifyTableResult;
    /// `createNamespace`.
    create_namespace = "createNamespace"(namespace_desc: TNamespaceDescriptor) -> (), THBaseServiceCreateNamespaceArgs, THBaseServiceCreateNamespaceResult;
    /// `modifyNamespace`.
    modify_namespace = "modifyNamespace"(namespace_desc: TNamespaceDescriptor) -> (), THBaseServiceModifyNamespaceArgs, THBaseServiceModifyNamespaceResult;
    /// `deleteNamespace` (it must hold no tables).
    delete_namespace = "deleteNamespace"(name: String) -> (), THBaseServiceDeleteNamespaceArgs, THBaseServiceDeleteNamespaceResult;
    /// `getNamespaceDescriptor`.
    get_namespace_descriptor = "getNamespaceDescriptor"(name: String) -> TNamespaceDescriptor, THBaseServiceGetNamespaceDescriptorArgs, THBaseServiceGetNamespaceDescriptorResult;
    /// `listNamespaceDescriptors`.
    list_namespace_descriptors = "listNamespaceDescriptors"() -> Vec<TNamespaceDescriptor>, THBaseServiceListNamespaceDescriptorsArgs, THBaseServiceListNamespaceDescriptorsResult;
    /// `listNamespaces`: every namespace's name.
    list_namespaces = "listNamespaces"() -> Vec<String>, THBaseServiceListNamespacesArgs, THBaseServiceListNamespacesResult;
    /// `getThriftServerType`: `TWO` for a Thrift2 gateway.
    get_thrift_server_type = "getThriftServerType"() -> TThriftServerType, THBaseServiceGetThriftServerTypeArgs, THBaseServiceGetThriftServerTypeResult;
    /// `getClusterId`.
    get_cluster_id = "getClusterId"() -> String, THBaseServiceGetClusterIdArgs, THBaseServiceGetClusterIdResult;
}

/// The zero-copy row calls: the same requests as `get`, `getMultiple`,
/// `getScannerRows` and `getScannerResults`, whose replies are decoded into a
/// [`RowBatch`] (keys, families, qualifiers and values are slices of the received
/// reply; no allocation per cell) instead of generated `TResult`s.
impl Connection {
    /// `get`: one row, owned; empty (no key, no cells) when the row does not exist.
    pub async fn get_row(&mut self, table: Vec<u8>, tget: TGet) -> Result<RowData, CallError> {
        let args = THBaseServiceGetArgs { table, tget };
        let batch = self.call_rows("get", RowCall::Get, |out| args.write_to_out_protocol(out)).await?;
        Ok(batch.row(0).map(|row| row.to_row_data()).unwrap_or_default())
    }

    /// `get` returning the [`RowBatch`] of its one row (for callers that keep the
    /// compact form).
    pub async fn get_row_batch(&mut self, table: Vec<u8>, tget: TGet) -> Result<RowBatch, CallError> {
        let args = THBaseServiceGetArgs { table, tget };
        self.call_rows("get", RowCall::Get, |out| args.write_to_out_protocol(out)).await
    }

    /// `getMultiple`: one row per get, in the same order (empty rows for missing ones).
    pub async fn get_rows(&mut self, table: Vec<u8>, tgets: Vec<TGet>) -> Result<RowBatch, CallError> {
        let args = THBaseServiceGetMultipleArgs { table, tgets };
        self.call_rows("getMultiple", RowCall::List, |out| args.write_to_out_protocol(out)).await
    }

    /// `getScannerRows`: the next `num_rows` rows of a scanner (fewer at the end; none
    /// when exhausted). Fails with [`CallError::IllegalArgument`] for an expired scanner.
    pub async fn scanner_rows(&mut self, scanner_id: i32, num_rows: i32) -> Result<RowBatch, CallError> {
        let args = THBaseServiceGetScannerRowsArgs { scanner_id, num_rows };
        self.call_rows("getScannerRows", RowCall::ScannerRows, |out| args.write_to_out_protocol(out)).await
    }

    /// `getScannerResults`: open a scanner, read up to `num_rows` rows and close it, in
    /// one call (stateless paging).
    pub async fn scanner_results(
        &mut self,
        table: Vec<u8>,
        tscan: TScan,
        num_rows: i32,
    ) -> Result<RowBatch, CallError> {
        let args = THBaseServiceGetScannerResultsArgs { table, tscan, num_rows };
        self.call_rows("getScannerResults", RowCall::List, |out| args.write_to_out_protocol(out)).await
    }
}
