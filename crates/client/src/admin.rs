//! Administration: namespaces, tables (with column-family settings and split keys),
//! column families, regions (flush, compact, split, merge, move), the balancer,
//! snapshots and the cluster's status.
//!
//! [`Admin`] checks its inputs and calls the transport's administrative part of the
//! seam ([`AdminTransport`](crate::transport::admin::AdminTransport)), through the
//! core's retry loop like any call. Both transports carry namespaces, tables and
//! families; HBase's native RPC ([`ClientBuilder::native`](crate::ClientBuilder::native),
//! no gateway needed) carries everything, every table setting included, while the
//! Thrift2 gateway refuses the rest before sending with
//! [`InvalidInput::Untranslatable`] naming native RPC as the way.

use std::collections::BTreeMap;

use bytes::Bytes;

use crate::schema::{BalanceResult, ClusterStatus, ColumnFamily, RegionLoad, SnapshotInfo, TableDescriptor};

use crate::attempt::Idempotence;
use crate::client::Client;
use crate::error::{Error, InvalidInput, Result};
use crate::region::RegionLocation;
use crate::transport::admin::{RegionTarget, TableListing};
use crate::transport::{AttemptError, AttemptFuture, Operation};
use crate::validate;

/// Administrative operations, from [`Client::admin`].
#[derive(Debug, Clone)]
pub struct Admin {
    client: Client,
}

impl Client {
    /// Namespace, table, region, balancer, snapshot and cluster administration.
    pub fn admin(&self) -> Admin {
        Admin { client: self.clone() }
    }
}

/// The failure of an admin call on a transport without administrative calls.
fn no_admin<'a, T: Send + 'a>(op: Operation) -> AttemptFuture<'a, T> {
    Box::pin(async move {
        let why = "this transport has no administrative calls".to_owned();
        Err(AttemptError::not_sent(op, InvalidInput::Option(why).into()))
    })
}

/// Runs `$call` (using the transport's admin `$admin`) as call `$op` through the core's
/// retry loop.
macro_rules! admin_call {
    ($self:ident, $op:literal, $table:expr, $idem:expr, |$admin:ident| $call:expr) => {{
        let op = Operation::Admin($op);
        let table: Option<&str> = $table;
        $self
            .client
            .attempts()
            .run(op, table, $idem, |transport| match transport.admin() {
                Some($admin) => $call,
                None => no_admin(op),
            })
            .await
    }};
}

/// Checks a snapshot's name: HBase's rules for a table qualifier (letters, digits,
/// `_`, `-`, `.`; not starting with `.` or `-`), without a namespace.
fn check_snapshot_name(name: &str) -> Result<()> {
    if name.contains(':') {
        return Err(
            InvalidInput::Option(format!("snapshot name {name:?}: no namespace (':') in a snapshot name")).into()
        );
    }
    validate::table_name(name).map_err(|_| {
        InvalidInput::Option(format!(
            "snapshot name {name:?}: use letters, digits, '_', '-' and '.', not first '.' or '-'"
        ))
    })?;
    Ok(())
}

/// Checks the table and row that name a region.
fn check_region_row(table: &str, row: &[u8]) -> Result<()> {
    validate::table_name(table)?;
    validate::table_row_key(table, row)?;
    Ok(())
}

impl Admin {
    /// Creates a namespace, with optional configuration.
    pub async fn create_namespace(&self, name: &str, config: BTreeMap<String, String>) -> Result<()> {
        validate::namespace_name(name)?;
        let config = &config;
        admin_call!(self, "create_namespace", None, Idempotence::NotIdempotent, |a| a.create_namespace(name, config))
    }

    /// Replaces a namespace's configuration with `config` (keys left out are removed,
    /// as HBase's `modifyNamespace` does; read it with
    /// [`describe_namespace`](Admin::describe_namespace) to change one key).
    pub async fn modify_namespace(&self, name: &str, config: BTreeMap<String, String>) -> Result<()> {
        validate::namespace_name(name)?;
        let config = &config;
        // Setting the same configuration twice gives the same namespace.
        admin_call!(self, "modify_namespace", None, Idempotence::Idempotent, |a| a.modify_namespace(name, config))
    }

    /// A namespace's configuration.
    pub async fn describe_namespace(&self, name: &str) -> Result<BTreeMap<String, String>> {
        validate::namespace_name(name)?;
        admin_call!(self, "describe_namespace", None, Idempotence::Idempotent, |a| a.describe_namespace(name))
    }

    /// Every namespace's name.
    pub async fn list_namespaces(&self) -> Result<Vec<String>> {
        admin_call!(self, "list_namespaces", None, Idempotence::Idempotent, |a| a.list_namespaces())
    }

    /// Deletes an empty namespace.
    pub async fn delete_namespace(&self, name: &str) -> Result<()> {
        validate::namespace_name(name)?;
        admin_call!(self, "delete_namespace", None, Idempotence::NotIdempotent, |a| a.delete_namespace(name))
    }

    /// Creates a table, pre-split at `split_keys` (sorted, distinct, non-empty; an
    /// empty list makes one region).
    pub async fn create_table(&self, desc: &TableDescriptor, split_keys: &[Bytes]) -> Result<()> {
        desc.check()?;
        for pair in split_keys.windows(2) {
            if pair[0] >= pair[1] {
                return Err(InvalidInput::Option("split keys must be sorted and distinct".into()).into());
            }
        }
        for key in split_keys {
            validate::table_row_key(&desc.name, key)?;
        }
        let name = Some(desc.name.as_str());
        admin_call!(self, "create_table", name, Idempotence::NotIdempotent, |a| a.create_table(desc, split_keys))
    }

    /// Replaces a table's families and settings with `desc`'s (HBase's `alter`): families
    /// missing from `desc` are removed with their data. Start from
    /// [`Admin::describe_table`] to change one thing.
    pub async fn modify_table(&self, desc: &TableDescriptor) -> Result<()> {
        desc.check()?;
        let name = Some(desc.name.as_str());
        admin_call!(self, "modify_table", name, Idempotence::NotIdempotent, |a| a.modify_table(desc))
    }

    /// Whether the table exists.
    pub async fn table_exists(&self, name: &str) -> Result<bool> {
        validate::table_name(name)?;
        admin_call!(self, "table_exists", Some(name), Idempotence::Idempotent, |a| a.table_exists(name))
    }

    /// Disables a table (needed before delete and truncate).
    pub async fn disable_table(&self, name: &str) -> Result<()> {
        validate::table_name(name)?;
        admin_call!(self, "disable_table", Some(name), Idempotence::NotIdempotent, |a| a.disable_table(name))
    }

    /// Enables a disabled table.
    pub async fn enable_table(&self, name: &str) -> Result<()> {
        validate::table_name(name)?;
        admin_call!(self, "enable_table", Some(name), Idempotence::NotIdempotent, |a| a.enable_table(name))
    }

    /// Whether the table is enabled.
    pub async fn is_table_enabled(&self, name: &str) -> Result<bool> {
        validate::table_name(name)?;
        admin_call!(self, "is_table_enabled", Some(name), Idempotence::Idempotent, |a| a.is_table_enabled(name))
    }

    /// Deletes a table and its data, disabling it first if needed.
    pub async fn delete_table(&self, name: &str) -> Result<()> {
        if self.is_table_enabled(name).await? {
            self.disable_table(name).await?;
        }
        admin_call!(self, "delete_table", Some(name), Idempotence::NotIdempotent, |a| a.delete_table(name))
    }

    /// Removes every row, keeping the table's settings (and its regions if
    /// `preserve_splits`); disables it first if needed. The table is enabled afterwards.
    pub async fn truncate_table(&self, name: &str, preserve_splits: bool) -> Result<()> {
        if self.is_table_enabled(name).await? {
            self.disable_table(name).await?;
        }
        admin_call!(self, "truncate_table", Some(name), Idempotence::NotIdempotent, |a| a
            .truncate_table(name, preserve_splits))
    }

    /// Table names in a namespace.
    pub async fn list_tables(&self, namespace: &str) -> Result<Vec<String>> {
        validate::namespace_name(namespace)?;
        let listing = TableListing::Namespace(namespace);
        admin_call!(self, "list_tables", None, Idempotence::Idempotent, |a| a.list_tables(listing))
    }

    /// Table names matching a Java regular expression.
    pub async fn list_tables_matching(&self, regex: &str, include_system: bool) -> Result<Vec<String>> {
        let listing = TableListing::Matching { regex, include_system };
        admin_call!(self, "list_tables", None, Idempotence::Idempotent, |a| a.list_tables(listing))
    }

    /// A table's families and settings.
    pub async fn describe_table(&self, name: &str) -> Result<TableDescriptor> {
        validate::table_name(name)?;
        admin_call!(self, "describe_table", Some(name), Idempotence::Idempotent, |a| a.describe_table(name))
    }

    /// Adds a column family to an existing table.
    pub async fn add_family(&self, table: &str, family: &ColumnFamily) -> Result<()> {
        validate::table_name(table)?;
        family.check()?;
        admin_call!(self, "add_family", Some(table), Idempotence::NotIdempotent, |a| a.add_family(table, family))
    }

    /// Changes a column family's settings (those not given return to HBase's defaults).
    pub async fn modify_family(&self, table: &str, family: &ColumnFamily) -> Result<()> {
        validate::table_name(table)?;
        family.check()?;
        admin_call!(self, "modify_family", Some(table), Idempotence::NotIdempotent, |a| a.modify_family(table, family))
    }

    /// Removes a column family and its data.
    pub async fn delete_family(&self, table: &str, family: &[u8]) -> Result<()> {
        validate::table_name(table)?;
        validate::family(family)?;
        admin_call!(self, "delete_family", Some(table), Idempotence::NotIdempotent, |a| a.delete_family(table, family))
    }

    /// The table's regions with the server of each (`host`, `port`), in key order.
    pub async fn list_regions(&self, table: &str) -> Result<Vec<RegionLocation>> {
        let mut regions = self.client.table(table)?.region_locations().await?;
        regions.sort_by(|a, b| a.start_key.cmp(&b.start_key));
        Ok(regions)
    }

    /// The table's regions in key order, each with its server and its load (store
    /// files and their size, memstore size, requests) as its server last reported it
    /// to the master, every few seconds (`None` for a region not reported yet). Native
    /// RPC only: the load comes from the master's cluster status.
    pub async fn list_regions_with_load(&self, table: &str) -> Result<Vec<(RegionLocation, Option<RegionLoad>)>> {
        let regions = self.list_regions(table).await?;
        let status = self.cluster_status().await?;
        let loads: Vec<&RegionLoad> = status.live_servers.iter().flat_map(|s| &s.region_loads).collect();
        Ok(regions
            .into_iter()
            .map(|region| {
                let load = loads.iter().find(|l| l.is_region(table, &region.start_key, region.region_id));
                (region, load.map(|l| (*l).clone()))
            })
            .collect())
    }

    /// Flushes the table's memstores to files (every region; native RPC only).
    pub async fn flush(&self, table: &str) -> Result<()> {
        validate::table_name(table)?;
        let target = RegionTarget { table, row: None };
        admin_call!(self, "flush", Some(table), Idempotence::Idempotent, |a| a.flush(target))
    }

    /// Flushes the region of `table` holding `row` (native RPC only).
    pub async fn flush_region(&self, table: &str, row: &[u8]) -> Result<()> {
        check_region_row(table, row)?;
        let target = RegionTarget { table, row: Some(row) };
        admin_call!(self, "flush", Some(table), Idempotence::Idempotent, |a| a.flush(target))
    }

    /// Asks for a compaction of every region of the table (`major`: rewrite each
    /// family into one file, dropping deleted and expired cells). The region servers
    /// queue it and run it in the background (native RPC only).
    pub async fn compact(&self, table: &str, major: bool) -> Result<()> {
        validate::table_name(table)?;
        let target = RegionTarget { table, row: None };
        admin_call!(self, "compact", Some(table), Idempotence::Idempotent, |a| a.compact(target, major))
    }

    /// Asks for a compaction of the region of `table` holding `row`, as
    /// [`Admin::compact`] (native RPC only).
    pub async fn compact_region(&self, table: &str, row: &[u8], major: bool) -> Result<()> {
        check_region_row(table, row)?;
        let target = RegionTarget { table, row: Some(row) };
        admin_call!(self, "compact", Some(table), Idempotence::Idempotent, |a| a.compact(target, major))
    }

    /// Splits the region of `table` holding `row` at `row` (which must not already be
    /// a region boundary); returns when the two daughters are open (native RPC only).
    pub async fn split(&self, table: &str, row: &[u8]) -> Result<()> {
        check_region_row(table, row)?;
        admin_call!(self, "split", Some(table), Idempotence::NotIdempotent, |a| a.split(table, row))
    }

    /// Merges the adjacent regions of `table` holding `rows` (one row per region, at
    /// least two regions) into one; returns when it is open (native RPC only).
    pub async fn merge_regions(&self, table: &str, rows: &[Bytes]) -> Result<()> {
        if rows.len() < 2 {
            return Err(InvalidInput::Option("a merge names at least two regions (a row of each)".into()).into());
        }
        for row in rows {
            check_region_row(table, row)?;
        }
        admin_call!(self, "merge", Some(table), Idempotence::NotIdempotent, |a| a.merge(table, rows))
    }

    /// Moves the region of `table` holding `row` to the live region server `to`
    /// (`host:port`), or where the master picks (native RPC only).
    pub async fn move_region(&self, table: &str, row: &[u8], to: Option<&str>) -> Result<()> {
        check_region_row(table, row)?;
        admin_call!(self, "move", Some(table), Idempotence::NotIdempotent, |a| a.move_region(table, row, to))
    }

    /// Closes the region of `table` holding `row`: it serves nothing until
    /// [`Admin::assign_region`] (native RPC only).
    pub async fn unassign_region(&self, table: &str, row: &[u8]) -> Result<()> {
        check_region_row(table, row)?;
        admin_call!(self, "unassign", Some(table), Idempotence::NotIdempotent, |a| a.unassign(table, row))
    }

    /// Opens the region of `table` holding `row` where the master picks (native RPC
    /// only).
    pub async fn assign_region(&self, table: &str, row: &[u8]) -> Result<()> {
        check_region_row(table, row)?;
        admin_call!(self, "assign", Some(table), Idempotence::Idempotent, |a| a.assign(table, row))
    }

    /// Turns the balancer on or off (waiting for a running balance to finish); returns
    /// whether it was on (native RPC only).
    pub async fn set_balancer(&self, on: bool) -> Result<bool> {
        admin_call!(self, "balancer_switch", None, Idempotence::Idempotent, |a| a.set_balancer(on))
    }

    /// Whether the balancer is on (native RPC only).
    pub async fn is_balancer_enabled(&self) -> Result<bool> {
        admin_call!(self, "balancer_enabled", None, Idempotence::Idempotent, |a| a.balancer_enabled())
    }

    /// Runs the balancer once; what it did. It does not run while it is off or regions
    /// are in transition (native RPC only).
    pub async fn run_balancer(&self) -> Result<BalanceResult> {
        admin_call!(self, "balance", None, Idempotence::NotIdempotent, |a| a.balance())
    }

    /// Takes snapshot `name` of `table` (flushing it first); returns when it is
    /// complete (native RPC only).
    pub async fn snapshot(&self, name: &str, table: &str) -> Result<()> {
        check_snapshot_name(name)?;
        // The master answers a missing table with a `SnapshotCreationException`: asked
        // first, so that it is `TableNotFound` as for every other table call.
        if !self.table_exists(table).await? {
            return Err(Error::TableNotFound { table: table.to_owned() });
        }
        admin_call!(self, "snapshot", Some(table), Idempotence::NotIdempotent, |a| a.snapshot(name, table))
    }

    /// Every completed snapshot (native RPC only).
    pub async fn list_snapshots(&self) -> Result<Vec<SnapshotInfo>> {
        admin_call!(self, "list_snapshots", None, Idempotence::Idempotent, |a| a.list_snapshots())
    }

    /// Creates table `table` (which must not exist) from snapshot `name` (native RPC
    /// only).
    pub async fn clone_snapshot(&self, name: &str, table: &str) -> Result<()> {
        check_snapshot_name(name)?;
        validate::table_name(table)?;
        admin_call!(self, "clone_snapshot", Some(table), Idempotence::NotIdempotent, |a| a.clone_snapshot(name, table))
    }

    /// Restores the snapshot's table to snapshot `name`: its data and settings as they
    /// were. The table is disabled for it if needed and enabled again (native RPC only).
    pub async fn restore_snapshot(&self, name: &str) -> Result<()> {
        check_snapshot_name(name)?;
        let snapshots = self.list_snapshots().await?;
        let table = snapshots.into_iter().find(|s| s.name == name).map(|s| s.table);
        let mut enable_after = None;
        if let Some(table) = table {
            if self.table_exists(&table).await? && self.is_table_enabled(&table).await? {
                self.disable_table(&table).await?;
                enable_after = Some(table);
            }
        }
        // A missing snapshot is the master's to report.
        let restored =
            admin_call!(self, "restore_snapshot", None, Idempotence::NotIdempotent, |a| a.restore_snapshot(name));
        if let Some(table) = enable_after {
            // Enabled again whether the restore worked or not.
            let enabled = self.enable_table(&table).await;
            restored?;
            return enabled;
        }
        restored
    }

    /// Deletes snapshot `name` (native RPC only).
    pub async fn delete_snapshot(&self, name: &str) -> Result<()> {
        check_snapshot_name(name)?;
        admin_call!(self, "delete_snapshot", None, Idempotence::NotIdempotent, |a| a.delete_snapshot(name))
    }

    /// The cluster's status: HBase's version, the masters, live and dead region
    /// servers, regions in transition, whether the balancer is on (native RPC only).
    pub async fn cluster_status(&self) -> Result<ClusterStatus> {
        admin_call!(self, "cluster_status", None, Idempotence::Idempotent, |a| a.cluster_status())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_names_are_checked() {
        assert!(check_snapshot_name("snap_1.a-b").is_ok());
        for bad in ["", "ns:snap", "-x", ".x", "a b"] {
            assert!(check_snapshot_name(bad).is_err(), "{bad:?}");
        }
    }

    #[tokio::test]
    async fn the_gateway_refuses_what_it_cannot_carry_naming_native_rpc() {
        let admin = Client::connect_to("127.0.0.1:1").unwrap().admin();
        let refusals = [
            admin.flush("t").await.map(drop),
            admin.compact("t", true).await.map(drop),
            admin.split("t", b"m").await.map(drop),
            admin.list_snapshots().await.map(drop),
            admin.cluster_status().await.map(drop),
            admin.set_balancer(true).await.map(drop),
        ];
        for refused in refusals {
            match refused {
                Err(crate::Error::InvalidInput(InvalidInput::Untranslatable { why, .. })) => {
                    assert!(why.contains(".native(..)"), "{why}")
                }
                other => panic!("expected a refusal naming native RPC, got {other:?}"),
            }
        }
    }
}
