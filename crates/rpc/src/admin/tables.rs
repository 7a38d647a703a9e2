//! Tables: create (with split keys), describe, list, exists, state, enable, disable,
//! delete, truncate, modify, and column families (`CreateTable`, `GetTableDescriptors`,
//! `GetTableNames`, `GetTableState`, `EnableTable`, `DisableTable`, `DeleteTable`,
//! `TruncateTable`, `ModifyTable`, `AddColumn`, `ModifyColumn`, `DeleteColumn`).

use bytes::Bytes;

use super::names::{table_proto, table_string, validate_namespace, TableName};
use super::schema::{validate_family_name, FamilyDescriptor, TableSchema};
use super::{is_remote_class, remote, Repeat, RpcAdmin};
use crate::error::RpcError;
use crate::pb;
use crate::validate::validate_row;

/// The most split keys accepted in one create (a table of 100 001 regions).
const MAX_SPLIT_KEYS: usize = 100_000;
/// The longest table-name regex accepted.
const MAX_REGEX_LEN: usize = 4096;

/// A table's state, as the master keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableState {
    /// Serving.
    Enabled,
    /// Not serving.
    Disabled,
    /// Being disabled.
    Disabling,
    /// Being enabled.
    Enabling,
}

/// Which tables a listing returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableFilter {
    /// Only this namespace's tables.
    pub namespace: Option<String>,
    /// Only names matching this Java regex (on the full name, `ns:t` or `t`).
    pub regex: Option<String>,
    /// Include the system tables (`hbase:meta`, ...).
    pub include_system: bool,
}

impl TableFilter {
    /// Every user table.
    pub fn all() -> TableFilter {
        TableFilter::default()
    }

    /// The user tables of `namespace`.
    pub fn namespace(namespace: impl Into<String>) -> TableFilter {
        TableFilter { namespace: Some(namespace.into()), ..TableFilter::default() }
    }

    /// The tables whose names match `regex`.
    pub fn matching(regex: impl Into<String>) -> TableFilter {
        TableFilter { regex: Some(regex.into()), ..TableFilter::default() }
    }

    fn check(&self) -> Result<(), RpcError> {
        if let Some(namespace) = &self.namespace {
            validate_namespace(namespace)?;
        }
        match &self.regex {
            Some(regex) if regex.len() > MAX_REGEX_LEN => {
                Err(RpcError::InvalidArgument(format!("a table regex longer than {MAX_REGEX_LEN} bytes")))
            }
            _ => Ok(()),
        }
    }
}

/// Checks split keys: not empty, sorted, distinct, at most [`MAX_SPLIT_KEYS`].
fn check_split_keys(keys: &[Bytes]) -> Result<(), RpcError> {
    if keys.len() > MAX_SPLIT_KEYS {
        return Err(RpcError::InvalidArgument(format!("more than {MAX_SPLIT_KEYS} split keys")));
    }
    for key in keys {
        validate_row(key).map_err(|_| RpcError::InvalidArgument(format!("split key {key:?}: empty or too long")))?;
    }
    if keys.windows(2).any(|pair| pair[0] >= pair[1]) {
        return Err(RpcError::InvalidArgument("split keys must be sorted and distinct".into()));
    }
    Ok(())
}

fn table_not_found(admin: &RpcAdmin, name: &str) -> RpcError {
    remote(&admin.master().unwrap_or_default(), "org.apache.hadoop.hbase.TableNotFoundException", name.to_owned())
}

impl RpcAdmin {
    /// Creates a table with its families and settings, pre-split at `split_keys` (sorted,
    /// distinct); returns when its regions are assigned. `TableExistsException` if the
    /// table exists, `NamespaceNotFoundException` if its namespace does not.
    pub async fn create_table(&self, schema: &TableSchema, split_keys: &[Bytes]) -> Result<(), RpcError> {
        let table_schema = schema.to_proto()?;
        check_split_keys(split_keys)?;
        let deadline = self.deadline();
        let (nonce_group, nonce) = self.nonce();
        let request = pb::CreateTableRequest { table_schema, split_keys: split_keys.to_vec(), nonce_group, nonce };
        let response: pb::CreateTableResponse =
            self.master_call_until("CreateTable", &request, Repeat::Safe, deadline).await?;
        self.wait_optional(response.proc_id, &format!("create table {}", schema.name()), deadline).await
    }

    /// The table's descriptor; `TableNotFoundException` if it does not exist.
    pub async fn describe_table(&self, name: &str) -> Result<TableSchema, RpcError> {
        let table = table_proto(name)?;
        let request = pb::GetTableDescriptorsRequest { table_names: vec![table.clone()], ..Default::default() };
        let response: pb::GetTableDescriptorsResponse =
            self.master_call("GetTableDescriptors", &request, Repeat::Safe).await?;
        let wanted = table_string(&table);
        response
            .table_schema
            .into_iter()
            .map(TableSchema::from_proto)
            .find(|schema| schema.name() == wanted)
            .ok_or_else(|| table_not_found(self, name))
    }

    /// The names of the tables `filter` selects, sorted.
    pub async fn list_tables(&self, filter: &TableFilter) -> Result<Vec<String>, RpcError> {
        filter.check()?;
        let request = pb::GetTableNamesRequest {
            regex: filter.regex.clone(),
            include_sys_tables: Some(filter.include_system),
            namespace: filter.namespace.clone(),
        };
        let response: pb::GetTableNamesResponse = self.master_call("GetTableNames", &request, Repeat::Safe).await?;
        let mut names: Vec<String> = response.table_names.iter().map(table_string).collect();
        names.sort();
        Ok(names)
    }

    /// The descriptors of the tables `filter` selects.
    pub async fn list_table_descriptors(&self, filter: &TableFilter) -> Result<Vec<TableSchema>, RpcError> {
        filter.check()?;
        let request = pb::GetTableDescriptorsRequest {
            table_names: Vec::new(),
            regex: filter.regex.clone(),
            include_sys_tables: Some(filter.include_system),
            namespace: filter.namespace.clone(),
        };
        let response: pb::GetTableDescriptorsResponse =
            self.master_call("GetTableDescriptors", &request, Repeat::Safe).await?;
        Ok(response.table_schema.into_iter().map(TableSchema::from_proto).collect())
    }

    /// The table's state; `TableNotFoundException` if it does not exist.
    pub async fn table_state(&self, name: &str) -> Result<TableState, RpcError> {
        let request = pb::GetTableStateRequest { table_name: table_proto(name)? };
        let response: pb::GetTableStateResponse = self.master_call("GetTableState", &request, Repeat::Safe).await?;
        Ok(match response.table_state.state() {
            pb::table_state::State::Enabled => TableState::Enabled,
            pb::table_state::State::Disabled => TableState::Disabled,
            pb::table_state::State::Disabling => TableState::Disabling,
            pb::table_state::State::Enabling => TableState::Enabling,
        })
    }

    /// Whether the table exists.
    pub async fn table_exists(&self, name: &str) -> Result<bool, RpcError> {
        match self.table_state(name).await {
            Ok(_) => Ok(true),
            Err(error) if is_remote_class(&error, "TableNotFoundException") => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// Whether the table is enabled.
    pub async fn is_table_enabled(&self, name: &str) -> Result<bool, RpcError> {
        Ok(self.table_state(name).await? == TableState::Enabled)
    }

    /// Whether the table is disabled.
    pub async fn is_table_disabled(&self, name: &str) -> Result<bool, RpcError> {
        Ok(self.table_state(name).await? == TableState::Disabled)
    }

    /// Enables the table; `TableNotDisabledException` if it is not disabled.
    pub async fn enable_table(&self, name: &str) -> Result<(), RpcError> {
        let table_name = table_proto(name)?;
        let deadline = self.deadline();
        let (nonce_group, nonce) = self.nonce();
        let request = pb::EnableTableRequest { table_name, nonce_group, nonce };
        let response: pb::EnableTableResponse =
            self.master_call_until("EnableTable", &request, Repeat::Safe, deadline).await?;
        self.wait_optional(response.proc_id, &format!("enable table {name}"), deadline).await
    }

    /// Disables the table; `TableNotEnabledException` if it is not enabled.
    pub async fn disable_table(&self, name: &str) -> Result<(), RpcError> {
        let table = TableName::parse(name)?;
        if table.is_system() {
            return Err(RpcError::InvalidArgument(format!("system table {name} cannot be disabled")));
        }
        let deadline = self.deadline();
        let (nonce_group, nonce) = self.nonce();
        let request = pb::DisableTableRequest { table_name: table.to_proto(), nonce_group, nonce };
        let response: pb::DisableTableResponse =
            self.master_call_until("DisableTable", &request, Repeat::Safe, deadline).await?;
        self.wait_optional(response.proc_id, &format!("disable table {name}"), deadline).await
    }

    /// Deletes the table, which must be disabled (`TableNotDisabledException`).
    pub async fn delete_table(&self, name: &str) -> Result<(), RpcError> {
        let table_name = table_proto(name)?;
        let deadline = self.deadline();
        let (nonce_group, nonce) = self.nonce();
        let request = pb::DeleteTableRequest { table_name, nonce_group, nonce };
        let response: pb::DeleteTableResponse =
            self.master_call_until("DeleteTable", &request, Repeat::Safe, deadline).await?;
        let result = self.wait_optional(response.proc_id, &format!("delete table {name}"), deadline).await;
        self.forget_regions(name);
        result
    }

    /// Empties the table, which must be disabled, keeping its region boundaries or not;
    /// it is enabled again afterwards.
    pub async fn truncate_table(&self, name: &str, preserve_splits: bool) -> Result<(), RpcError> {
        let table_name = table_proto(name)?;
        let deadline = self.deadline();
        let (nonce_group, nonce) = self.nonce();
        let request =
            pb::TruncateTableRequest { table_name, preserve_splits: Some(preserve_splits), nonce_group, nonce };
        let response: pb::TruncateTableResponse =
            self.master_call_until("truncateTable", &request, Repeat::Safe, deadline).await?;
        let result = self.wait_optional(response.proc_id, &format!("truncate table {name}"), deadline).await;
        self.forget_regions(name);
        result
    }

    /// Replaces the table's descriptor with `schema` (same name): families added,
    /// changed or removed, settings changed; the regions reopen with it.
    pub async fn modify_table(&self, schema: &TableSchema) -> Result<(), RpcError> {
        let table_schema = schema.to_proto()?;
        let table_name = table_schema.table_name.clone().unwrap_or_default();
        let deadline = self.deadline();
        let (nonce_group, nonce) = self.nonce();
        let request =
            pb::ModifyTableRequest { table_name, table_schema, nonce_group, nonce, reopen_regions: Some(true) };
        let response: pb::ModifyTableResponse =
            self.master_call_until("ModifyTable", &request, Repeat::Safe, deadline).await?;
        self.wait_optional(response.proc_id, &format!("modify table {}", schema.name()), deadline).await
    }

    /// Adds a column family; `InvalidFamilyOperationException` if it exists.
    pub async fn add_family(&self, table: &str, family: &FamilyDescriptor) -> Result<(), RpcError> {
        family.validate()?;
        let table_name = table_proto(table)?;
        let deadline = self.deadline();
        let (nonce_group, nonce) = self.nonce();
        let request = pb::AddColumnRequest { table_name, column_families: family.to_proto(), nonce_group, nonce };
        let response: pb::AddColumnResponse =
            self.master_call_until("AddColumn", &request, Repeat::Safe, deadline).await?;
        self.wait_optional(response.proc_id, &format!("add family to {table}"), deadline).await
    }

    /// Replaces a column family's settings; `InvalidFamilyOperationException` if it
    /// does not exist.
    pub async fn modify_family(&self, table: &str, family: &FamilyDescriptor) -> Result<(), RpcError> {
        family.validate()?;
        let table_name = table_proto(table)?;
        let deadline = self.deadline();
        let (nonce_group, nonce) = self.nonce();
        let request = pb::ModifyColumnRequest { table_name, column_families: family.to_proto(), nonce_group, nonce };
        let response: pb::ModifyColumnResponse =
            self.master_call_until("ModifyColumn", &request, Repeat::Safe, deadline).await?;
        self.wait_optional(response.proc_id, &format!("modify family of {table}"), deadline).await
    }

    /// Deletes a column family and its data; `InvalidFamilyOperationException` if it
    /// does not exist or is the table's only one.
    pub async fn delete_family(&self, table: &str, family: &[u8]) -> Result<(), RpcError> {
        validate_family_name(family)?;
        let table_name = table_proto(table)?;
        let deadline = self.deadline();
        let (nonce_group, nonce) = self.nonce();
        let request =
            pb::DeleteColumnRequest { table_name, column_name: Bytes::copy_from_slice(family), nonce_group, nonce };
        let response: pb::DeleteColumnResponse =
            self.master_call_until("DeleteColumn", &request, Repeat::Safe, deadline).await?;
        self.wait_optional(response.proc_id, &format!("delete family of {table}"), deadline).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keys_are_checked() {
        assert!(check_split_keys(&[Bytes::from("a"), Bytes::from("b")]).is_ok());
        assert!(check_split_keys(&[]).is_ok());
        assert!(check_split_keys(&[Bytes::from("b"), Bytes::from("a")]).is_err());
        assert!(check_split_keys(&[Bytes::from("a"), Bytes::from("a")]).is_err());
        assert!(check_split_keys(&[Bytes::new()]).is_err());
    }

    #[test]
    fn filters_are_checked() {
        assert!(TableFilter::namespace("bad-ns").check().is_err());
        assert!(TableFilter::matching("x".repeat(MAX_REGEX_LEN + 1)).check().is_err());
        assert!(TableFilter::matching("t.*").check().is_ok());
    }
}
