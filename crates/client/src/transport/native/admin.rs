//! The administrative calls over HBase's native RPC: `basalt-rpc`'s [`RpcAdmin`] (the
//! active master's `MasterService`, the region servers' `AdminService`), without a
//! gateway. Every call of [`AdminTransport`] is carried, every table and family setting
//! included.
//!
//! - One attempt is one `RpcAdmin` call: it waits for the master's procedure within the
//!   client's request timeout, and asks a master that is starting again within it.
//! - Tables and families go as HBase's named settings ([`TableSchema`],
//!   [`FamilyDescriptor`]) and come back the same way.
//! - A region is named by a row it holds (located through `hbase:meta`).
//! - Errors are mapped as for data calls (`errors.rs`): a missing table is
//!   `TableNotFound`, a missing namespace `NamespaceNotFound`, an existing one
//!   `AlreadyExists`; other master exceptions keep their Java class.

use std::collections::BTreeMap;
use std::future::Future;

use basalt_rpc::admin::{FamilyDescriptor, TableFilter, TableSchema};
use basalt_rpc::{RegionLocation, RpcAdmin, RpcError};
use bytes::Bytes;

use super::errors::attempt_error;
use super::NativeTransport;
use crate::schema::{BalanceResult, ClusterStatus, ColumnFamily, SnapshotInfo, TableDescriptor};
use crate::transport::admin::{AdminTransport, RegionTarget, TableListing};
use crate::transport::{AttemptError, AttemptFuture, Operation};

fn family_schema(family: &ColumnFamily) -> FamilyDescriptor {
    let mut schema = FamilyDescriptor::new(family.name.clone());
    for (key, value) in &family.settings {
        schema = schema.attribute(key, value.clone());
    }
    // The typed settings last: they win over a plain setting of the same name.
    for (key, value) in family.hbase_settings() {
        schema = schema.attribute(key, value);
    }
    schema
}

fn table_schema(table: &TableDescriptor) -> TableSchema {
    let mut schema = TableSchema::new(table.name.clone());
    for family in &table.families {
        schema = schema.family(family_schema(family));
    }
    for (key, value) in table.hbase_settings() {
        schema = schema.attribute(&key, value);
    }
    schema
}

/// Byte-map settings as text (read lossily when not UTF-8).
fn settings_of(attributes: &BTreeMap<Bytes, Bytes>) -> BTreeMap<String, String> {
    attributes
        .iter()
        .map(|(k, v)| (String::from_utf8_lossy(k).into_owned(), String::from_utf8_lossy(v).into_owned()))
        .collect()
}

fn table_from_schema(schema: TableSchema) -> TableDescriptor {
    let families = schema
        .families()
        .iter()
        .map(|f| ColumnFamily::from_hbase_settings(f.name().clone(), settings_of(f.attributes())))
        .collect();
    TableDescriptor::from_hbase(schema.name().to_owned(), families, settings_of(schema.attributes()))
}

/// The region of `table` holding `row`, from `hbase:meta`.
async fn region_of(admin: &RpcAdmin, table: &str, row: &[u8]) -> Result<RegionLocation, RpcError> {
    admin.client().locate(table, row).await
}

impl NativeTransport {
    /// One admin call: the RPC client (bootstrapped on first use), an admin bound to the
    /// request timeout, and the error mapped with `name` as the table or namespace.
    async fn admin_call<T, F, Fut>(&self, call: &'static str, name: Option<&str>, run: F) -> Result<T, AttemptError>
    where
        F: FnOnce(RpcAdmin) -> Fut,
        Fut: Future<Output = Result<T, RpcError>>,
    {
        let op = Operation::Admin(call);
        let admin = self.client(op).await?.admin().with_timeout(self.shared.settings.request_timeout);
        run(admin).await.map_err(|error| attempt_error(op, name, &error))
    }
}

impl AdminTransport for NativeTransport {
    fn create_namespace<'a>(&'a self, name: &'a str, config: &'a BTreeMap<String, String>) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call("create_namespace", Some(name), move |a| async move {
            a.create_namespace(name, config.clone()).await
        }))
    }

    fn modify_namespace<'a>(&'a self, name: &'a str, config: &'a BTreeMap<String, String>) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call("modify_namespace", Some(name), move |a| async move {
            a.modify_namespace(name, config.clone()).await
        }))
    }

    fn describe_namespace<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, BTreeMap<String, String>> {
        Box::pin(self.admin_call("describe_namespace", Some(name), move |a| async move {
            Ok(a.describe_namespace(name).await?.configuration)
        }))
    }

    fn list_namespaces(&self) -> AttemptFuture<'_, Vec<String>> {
        Box::pin(self.admin_call("list_namespaces", None, move |a| async move { a.list_namespaces().await }))
    }

    fn delete_namespace<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call(
            "delete_namespace",
            Some(name),
            move |a| async move { a.delete_namespace(name).await },
        ))
    }

    fn create_table<'a>(&'a self, table: &'a TableDescriptor, split_keys: &'a [Bytes]) -> AttemptFuture<'a, ()> {
        let schema = table_schema(table);
        Box::pin(self.admin_call("create_table", Some(&table.name), move |a| async move {
            a.create_table(&schema, split_keys).await
        }))
    }

    fn modify_table<'a>(&'a self, table: &'a TableDescriptor) -> AttemptFuture<'a, ()> {
        let schema = table_schema(table);
        Box::pin(self.admin_call(
            "modify_table",
            Some(&table.name),
            move |a| async move { a.modify_table(&schema).await },
        ))
    }

    fn describe_table<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, TableDescriptor> {
        Box::pin(self.admin_call("describe_table", Some(name), move |a| async move {
            Ok(table_from_schema(a.describe_table(name).await?))
        }))
    }

    fn table_exists<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, bool> {
        Box::pin(self.admin_call("table_exists", Some(name), move |a| async move { a.table_exists(name).await }))
    }

    fn is_table_enabled<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, bool> {
        Box::pin(self.admin_call(
            "is_table_enabled",
            Some(name),
            move |a| async move { a.is_table_enabled(name).await },
        ))
    }

    fn enable_table<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call("enable_table", Some(name), move |a| async move { a.enable_table(name).await }))
    }

    fn disable_table<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call("disable_table", Some(name), move |a| async move { a.disable_table(name).await }))
    }

    fn delete_table<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call("delete_table", Some(name), move |a| async move { a.delete_table(name).await }))
    }

    fn truncate_table<'a>(&'a self, name: &'a str, preserve_splits: bool) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call("truncate_table", Some(name), move |a| async move {
            a.truncate_table(name, preserve_splits).await
        }))
    }

    fn list_tables<'a>(&'a self, listing: TableListing<'a>) -> AttemptFuture<'a, Vec<String>> {
        let (filter, name) = match listing {
            TableListing::Namespace(ns) => (TableFilter::namespace(ns), Some(ns)),
            TableListing::Matching { regex, include_system } => {
                (TableFilter { include_system, ..TableFilter::matching(regex) }, None)
            }
        };
        Box::pin(self.admin_call("list_tables", name, move |a| async move { a.list_tables(&filter).await }))
    }

    fn add_family<'a>(&'a self, table: &'a str, family: &'a ColumnFamily) -> AttemptFuture<'a, ()> {
        let schema = family_schema(family);
        Box::pin(self.admin_call("add_family", Some(table), move |a| async move { a.add_family(table, &schema).await }))
    }

    fn modify_family<'a>(&'a self, table: &'a str, family: &'a ColumnFamily) -> AttemptFuture<'a, ()> {
        let schema = family_schema(family);
        Box::pin(
            self.admin_call(
                "modify_family",
                Some(table),
                move |a| async move { a.modify_family(table, &schema).await },
            ),
        )
    }

    fn delete_family<'a>(&'a self, table: &'a str, family: &'a [u8]) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call(
            "delete_family",
            Some(table),
            move |a| async move { a.delete_family(table, family).await },
        ))
    }

    fn flush<'a>(&'a self, target: RegionTarget<'a>) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call("flush", Some(target.table), move |a| async move {
            match target.row {
                Some(row) => a.flush_region(&region_of(&a, target.table, row).await?, None).await.map(drop),
                None => a.flush_table(target.table, &[]).await,
            }
        }))
    }

    fn compact<'a>(&'a self, target: RegionTarget<'a>, major: bool) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call("compact", Some(target.table), move |a| async move {
            match target.row {
                Some(row) => a.compact_region(&region_of(&a, target.table, row).await?, major, None).await,
                None => a.compact_table(target.table, major, None).await,
            }
        }))
    }

    fn split<'a>(&'a self, table: &'a str, row: &'a [u8]) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call("split", Some(table), move |a| async move { a.split_region(table, row).await }))
    }

    fn merge<'a>(&'a self, table: &'a str, rows: &'a [Bytes]) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call("merge", Some(table), move |a| async move {
            let mut regions: Vec<RegionLocation> = Vec::with_capacity(rows.len());
            for row in rows {
                let region = region_of(&a, table, row).await?;
                if !regions.iter().any(|r| r.region_name == region.region_name) {
                    regions.push(region);
                }
            }
            if regions.len() < 2 {
                let why = format!("the rows of a merge lie in {} region(s) of {table}: it needs two", regions.len());
                return Err(RpcError::InvalidArgument(why));
            }
            a.merge_regions(&regions, false).await
        }))
    }

    fn move_region<'a>(&'a self, table: &'a str, row: &'a [u8], to: Option<&'a str>) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call("move", Some(table), move |a| async move {
            a.move_region(&region_of(&a, table, row).await?, to).await
        }))
    }

    fn unassign<'a>(&'a self, table: &'a str, row: &'a [u8]) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call("unassign", Some(table), move |a| async move {
            a.unassign_region(&region_of(&a, table, row).await?, false).await
        }))
    }

    fn assign<'a>(&'a self, table: &'a str, row: &'a [u8]) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call("assign", Some(table), move |a| async move {
            a.assign_region(&region_of(&a, table, row).await?).await
        }))
    }

    fn set_balancer(&self, on: bool) -> AttemptFuture<'_, bool> {
        Box::pin(self.admin_call(
            "balancer_switch",
            None,
            move |a| async move { a.set_balancer_running(on, true).await },
        ))
    }

    fn balancer_enabled(&self) -> AttemptFuture<'_, bool> {
        Box::pin(self.admin_call("balancer_enabled", None, move |a| async move { a.is_balancer_enabled().await }))
    }

    fn balance(&self) -> AttemptFuture<'_, BalanceResult> {
        Box::pin(self.admin_call("balance", None, move |a| async move { a.balance(false, false).await }))
    }

    fn snapshot<'a>(&'a self, name: &'a str, table: &'a str) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call("snapshot", Some(table), move |a| async move { a.snapshot(name, table).await }))
    }

    fn list_snapshots(&self) -> AttemptFuture<'_, Vec<SnapshotInfo>> {
        Box::pin(self.admin_call("list_snapshots", None, move |a| async move { a.list_snapshots().await }))
    }

    fn clone_snapshot<'a>(&'a self, name: &'a str, table: &'a str) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call(
            "clone_snapshot",
            Some(table),
            move |a| async move { a.clone_snapshot(name, table).await },
        ))
    }

    fn restore_snapshot<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call("restore_snapshot", None, move |a| async move { a.restore_snapshot(name).await }))
    }

    fn delete_snapshot<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, ()> {
        Box::pin(self.admin_call("delete_snapshot", None, move |a| async move { a.delete_snapshot(name).await }))
    }

    fn cluster_status(&self) -> AttemptFuture<'_, ClusterStatus> {
        Box::pin(self.admin_call("cluster_status", None, move |a| async move { a.cluster_status().await }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{BloomFilter, Compression};

    #[test]
    fn tables_go_as_named_settings_and_come_back() {
        let family = ColumnFamily::new("d")
            .max_versions(3)
            .ttl_seconds(60)
            .bloom_filter(BloomFilter::RowCol)
            .compression(Compression::Gz)
            .setting("IS_MOB", "true")
            .setting("VERSIONS", "9");
        let table = TableDescriptor::new("ns:t").family(family).region_replication(2).read_only(true);
        let schema = table_schema(&table);
        let d = schema.get_family(b"d").expect("family d");
        assert_eq!(d.get("VERSIONS"), Some("3"), "the typed setting wins");
        assert_eq!(d.get("IS_MOB"), Some("true"));
        assert_eq!(schema.get_region_replication(), Some(2));
        assert_eq!(schema.get("READONLY"), Some("true"));
        let back = table_from_schema(schema);
        assert_eq!(back.get_region_replication(), Some(2));
        assert_eq!(back.get_setting("READONLY"), Some("true"));
        let d = back.get_family(b"d").expect("family d");
        assert_eq!((d.get_max_versions(), d.get_ttl_seconds()), (Some(3), Some(60)));
        assert_eq!(d.get_bloom_filter(), Some(BloomFilter::RowCol));
        assert_eq!(d.settings().get("IS_MOB").map(String::as_str), Some("true"));
    }
}
