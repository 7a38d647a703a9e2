//! The administrative part of the seam: [`AdminTransport`], what a transport offers
//! [`Admin`](crate::Admin) (namespaces, tables and families, regions, the balancer,
//! snapshots, the cluster's status).
//!
//! A [`Transport`](super::Transport) hands out its admin with
//! [`Transport::admin`](super::Transport::admin); `admin.rs` calls only this trait.
//! The rules are the data path's (see the parent module):
//! - **One attempt per call**, retried by the core's loop. A transport whose servers
//!   run an operation as a procedure (native RPC: the master) waits for it within the
//!   attempt, and may ask a master that is starting again within it.
//! - **Inputs are checked by `admin.rs`** (names, families, split keys) before the
//!   call: a transport only encodes them.
//! - **Say whether the request left**, as for data calls.
//! - **What a transport cannot carry is refused before sending**, with
//!   [`InvalidInput::Untranslatable`] naming the way that can. The Thrift2 gateway has
//!   no call for flushes, compactions, region operations, the balancer, snapshots or
//!   the cluster's status: the provided methods below refuse them so, and the native
//!   transport (`.native(..)`) implements them all.

use std::collections::BTreeMap;

use bytes::Bytes;

use super::{AttemptError, AttemptFuture, Operation};
use crate::error::InvalidInput;
use crate::schema::{BalanceResult, ClusterStatus, ColumnFamily, SnapshotInfo, TableDescriptor};

/// Which tables [`AdminTransport::list_tables`] lists.
#[derive(Debug, Clone, Copy)]
pub enum TableListing<'a> {
    /// The tables of one namespace.
    Namespace(&'a str),
    /// The tables whose name matches a Java regular expression.
    Matching {
        /// The expression.
        regex: &'a str,
        /// Whether HBase's own tables (`hbase:meta`, ...) are listed too.
        include_system: bool,
    },
}

/// Where a region operation applies: every region of a table, or the one holding a row.
#[derive(Debug, Clone, Copy)]
pub struct RegionTarget<'a> {
    /// The table.
    pub table: &'a str,
    /// A row: the region holding it; `None`: every region of the table.
    pub row: Option<&'a [u8]>,
}

/// Why the Thrift2 gateway cannot carry an administrative call.
const GATEWAY_HAS_NO_SUCH_CALL: &str = "HBase's Thrift2 gateway has no such call; \
     build the client with `.native(..)` (HBase's native RPC, no gateway needed) to use it";

/// The refusal of a call this transport cannot carry (nothing is sent).
pub(crate) fn not_carried<'a, T: Send + 'a>(call: &'static str) -> AttemptFuture<'a, T> {
    Box::pin(async move {
        let error = InvalidInput::Untranslatable { what: call, why: GATEWAY_HAS_NO_SUCH_CALL };
        Err(AttemptError::not_sent(Operation::Admin(call), error.into()))
    })
}

/// The administrative operations a transport offers. Every method is one attempt (see
/// the module's documentation); the provided ones refuse as the gateway must.
pub trait AdminTransport: Send + Sync {
    /// Creates a namespace with its configuration.
    fn create_namespace<'a>(&'a self, name: &'a str, config: &'a BTreeMap<String, String>) -> AttemptFuture<'a, ()>;
    /// Replaces a namespace's configuration.
    fn modify_namespace<'a>(&'a self, name: &'a str, config: &'a BTreeMap<String, String>) -> AttemptFuture<'a, ()>;
    /// A namespace's configuration.
    fn describe_namespace<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, BTreeMap<String, String>>;
    /// Every namespace's name.
    fn list_namespaces(&self) -> AttemptFuture<'_, Vec<String>>;
    /// Deletes an empty namespace.
    fn delete_namespace<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, ()>;

    /// Creates a table (checked by the caller), pre-split at `split_keys`.
    fn create_table<'a>(&'a self, table: &'a TableDescriptor, split_keys: &'a [Bytes]) -> AttemptFuture<'a, ()>;
    /// Replaces a table's families and settings with `table`'s.
    fn modify_table<'a>(&'a self, table: &'a TableDescriptor) -> AttemptFuture<'a, ()>;
    /// A table's families and settings.
    fn describe_table<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, TableDescriptor>;
    /// Whether the table exists.
    fn table_exists<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, bool>;
    /// Whether the table is enabled.
    fn is_table_enabled<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, bool>;
    /// Enables a disabled table.
    fn enable_table<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, ()>;
    /// Disables an enabled table.
    fn disable_table<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, ()>;
    /// Deletes a disabled table.
    fn delete_table<'a>(&'a self, name: &'a str) -> AttemptFuture<'a, ()>;
    /// Empties a disabled table, keeping its region boundaries or not.
    fn truncate_table<'a>(&'a self, name: &'a str, preserve_splits: bool) -> AttemptFuture<'a, ()>;
    /// Table names, without `default:`.
    fn list_tables<'a>(&'a self, listing: TableListing<'a>) -> AttemptFuture<'a, Vec<String>>;
    /// Adds a column family.
    fn add_family<'a>(&'a self, table: &'a str, family: &'a ColumnFamily) -> AttemptFuture<'a, ()>;
    /// Replaces a column family's settings.
    fn modify_family<'a>(&'a self, table: &'a str, family: &'a ColumnFamily) -> AttemptFuture<'a, ()>;
    /// Removes a column family and its data.
    fn delete_family<'a>(&'a self, table: &'a str, family: &'a [u8]) -> AttemptFuture<'a, ()>;

    /// Flushes memstores to files.
    fn flush<'a>(&'a self, _target: RegionTarget<'a>) -> AttemptFuture<'a, ()> {
        not_carried("flush")
    }
    /// Asks for a (major) compaction; the servers run it in the background.
    fn compact<'a>(&'a self, _target: RegionTarget<'a>, _major: bool) -> AttemptFuture<'a, ()> {
        not_carried("compact")
    }
    /// Splits the region holding `row` at `row`.
    fn split<'a>(&'a self, _table: &'a str, _row: &'a [u8]) -> AttemptFuture<'a, ()> {
        not_carried("split")
    }
    /// Merges the regions holding `rows` (adjacent ones).
    fn merge<'a>(&'a self, _table: &'a str, _rows: &'a [Bytes]) -> AttemptFuture<'a, ()> {
        not_carried("merge")
    }
    /// Moves the region holding `row` to server `to` (`host:port`) or where the
    /// master picks.
    fn move_region<'a>(&'a self, _table: &'a str, _row: &'a [u8], _to: Option<&'a str>) -> AttemptFuture<'a, ()> {
        not_carried("move")
    }
    /// Closes the region holding `row` (it stays closed until assigned).
    fn unassign<'a>(&'a self, _table: &'a str, _row: &'a [u8]) -> AttemptFuture<'a, ()> {
        not_carried("unassign")
    }
    /// Opens the region holding `row` (found in `hbase:meta`) where the master picks.
    fn assign<'a>(&'a self, _table: &'a str, _row: &'a [u8]) -> AttemptFuture<'a, ()> {
        not_carried("assign")
    }
    /// Turns the balancer on or off; whether it was on.
    fn set_balancer(&self, _on: bool) -> AttemptFuture<'_, bool> {
        not_carried("balancer_switch")
    }
    /// Whether the balancer is on.
    fn balancer_enabled(&self) -> AttemptFuture<'_, bool> {
        not_carried("balancer_enabled")
    }
    /// Runs the balancer once.
    fn balance(&self) -> AttemptFuture<'_, BalanceResult> {
        not_carried("balance")
    }
    /// Takes snapshot `name` of `table`.
    fn snapshot<'a>(&'a self, _name: &'a str, _table: &'a str) -> AttemptFuture<'a, ()> {
        not_carried("snapshot")
    }
    /// Every completed snapshot.
    fn list_snapshots(&self) -> AttemptFuture<'_, Vec<SnapshotInfo>> {
        not_carried("list_snapshots")
    }
    /// Creates table `table` from snapshot `name`.
    fn clone_snapshot<'a>(&'a self, _name: &'a str, _table: &'a str) -> AttemptFuture<'a, ()> {
        not_carried("clone_snapshot")
    }
    /// Restores the snapshot's (disabled) table to the snapshot.
    fn restore_snapshot<'a>(&'a self, _name: &'a str) -> AttemptFuture<'a, ()> {
        not_carried("restore_snapshot")
    }
    /// Deletes snapshot `name`.
    fn delete_snapshot<'a>(&'a self, _name: &'a str) -> AttemptFuture<'a, ()> {
        not_carried("delete_snapshot")
    }
    /// The cluster's servers, regions in transition and version.
    fn cluster_status(&self) -> AttemptFuture<'_, ClusterStatus> {
        not_carried("cluster_status")
    }
}
