//! Snapshots: take (`Snapshot`, then its procedure or `IsSnapshotDone`), list
//! (`GetCompletedSnapshots`), delete (`DeleteSnapshot`), restore and clone
//! (`RestoreSnapshot`: the master clones when the named table does not exist).

use std::time::{Duration, Instant};

use super::names::{table_string, validate_snapshot_name, TableName};
use super::{remote, Repeat, RpcAdmin, PROCEDURE_TIMEOUT};
use crate::error::RpcError;
use crate::pb;
use crate::pb::snapshot_description::Type as SnapshotType;

/// The longest pause between two `IsSnapshotDone` polls.
const MAX_POLL_PAUSE: Duration = Duration::from_millis(500);

/// A completed snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotInfo {
    /// The snapshot's name.
    pub name: String,
    /// The table it was taken of.
    pub table: String,
    /// When it was taken, in ms since the epoch.
    pub creation_time: i64,
    /// Who took it, if recorded.
    pub owner: Option<String>,
    /// Its time to live in seconds (0: forever).
    pub ttl_seconds: i64,
}

fn description(name: &str, table: Option<String>) -> pb::SnapshotDescription {
    pb::SnapshotDescription { name: name.to_owned(), table, ..Default::default() }
}

impl RpcAdmin {
    /// Takes snapshot `name` of `table`, flushing its memstores first; returns when it
    /// is complete. `SnapshotExistsException` if the name is taken.
    pub async fn snapshot(&self, name: &str, table: &str) -> Result<(), RpcError> {
        validate_snapshot_name(name)?;
        let table = TableName::parse(table)?;
        // In HBase's spelling: the master compares it with the descriptor's name.
        let mut snapshot = description(name, Some(table_string(&table.to_proto())));
        snapshot.r#type = Some(SnapshotType::Flush as i32);
        let deadline = self.deadline();
        let (nonce_group, nonce) = self.nonce();
        let request = pb::SnapshotRequest { snapshot: snapshot.clone(), nonce_group, nonce };
        let response: pb::SnapshotResponse =
            self.master_call_until("Snapshot", &request, Repeat::Safe, deadline).await?;
        let what = format!("snapshot {name}");
        match response.proc_id.and_then(|id| u64::try_from(id).ok()) {
            Some(proc_id) => self.wait_procedure_until(proc_id, &what, deadline).await,
            None => self.wait_snapshot(snapshot, &what, deadline).await,
        }
    }

    /// Polls `IsSnapshotDone` (masters that take snapshots without a procedure).
    async fn wait_snapshot(
        &self,
        snapshot: pb::SnapshotDescription,
        what: &str,
        deadline: Instant,
    ) -> Result<(), RpcError> {
        let started = Instant::now();
        let mut pause = Duration::from_millis(20);
        let request = pb::IsSnapshotDoneRequest { snapshot: Some(snapshot) };
        loop {
            let response: pb::IsSnapshotDoneResponse =
                self.master_call_until("IsSnapshotDone", &request, Repeat::Safe, deadline).await?;
            if response.done.unwrap_or(false) {
                return Ok(());
            }
            let now = Instant::now();
            if now >= deadline {
                let message = format!("{what}: not done after {:.1?}", now.duration_since(started));
                return Err(remote(&self.master().unwrap_or_default(), PROCEDURE_TIMEOUT, message));
            }
            tokio::time::sleep(pause.min(deadline.saturating_duration_since(now))).await;
            pause = (pause * 2).min(MAX_POLL_PAUSE);
        }
    }

    /// Every completed snapshot.
    pub async fn list_snapshots(&self) -> Result<Vec<SnapshotInfo>, RpcError> {
        let request = pb::GetCompletedSnapshotsRequest {};
        let response: pb::GetCompletedSnapshotsResponse =
            self.master_call("GetCompletedSnapshots", &request, Repeat::Safe).await?;
        Ok(response
            .snapshots
            .into_iter()
            .map(|s| SnapshotInfo {
                table: s.table.map(|t| t.strip_prefix("default:").map(str::to_owned).unwrap_or(t)).unwrap_or_default(),
                creation_time: s.creation_time.unwrap_or(0),
                owner: s.owner,
                ttl_seconds: s.ttl.unwrap_or(0),
                name: s.name,
            })
            .collect())
    }

    /// Deletes snapshot `name`; `SnapshotDoesNotExistException` if there is none.
    pub async fn delete_snapshot(&self, name: &str) -> Result<(), RpcError> {
        validate_snapshot_name(name)?;
        let request = pb::DeleteSnapshotRequest { snapshot: description(name, None) };
        // No nonce here: a delete whose outcome is unknown is not sent again (a second
        // one would fail for want of the snapshot); the list says whether it went.
        match self.master_call::<pb::DeleteSnapshotResponse>("DeleteSnapshot", &request, Repeat::Unsafe).await {
            Ok(_) => Ok(()),
            Err(error @ (RpcError::Timeout { .. } | RpcError::ConnectionFailed { .. })) => {
                match self.list_snapshots().await {
                    Ok(snapshots) if !snapshots.iter().any(|s| s.name == name) => Ok(()),
                    _ => Err(error),
                }
            }
            Err(error) => Err(error),
        }
    }

    /// Restores the snapshot's table (which must be disabled) to the snapshot.
    pub async fn restore_snapshot(&self, name: &str) -> Result<(), RpcError> {
        validate_snapshot_name(name)?;
        let snapshot = self.list_snapshots().await?.into_iter().find(|s| s.name == name).ok_or_else(|| {
            remote(
                &self.master().unwrap_or_default(),
                "org.apache.hadoop.hbase.snapshot.SnapshotDoesNotExistException",
                format!("snapshot {name} does not exist"),
            )
        })?;
        if !self.is_table_disabled(&snapshot.table).await? {
            return Err(remote(
                &self.master().unwrap_or_default(),
                "org.apache.hadoop.hbase.TableNotDisabledException",
                format!("restoring snapshot {name} needs table {} disabled", snapshot.table),
            ));
        }
        self.restore_or_clone(name, &snapshot.table, "restore").await
    }

    /// Creates table `table` from the snapshot; `TableExistsException` if it exists.
    pub async fn clone_snapshot(&self, name: &str, table: &str) -> Result<(), RpcError> {
        validate_snapshot_name(name)?;
        TableName::parse(table)?;
        // The master restores an existing table instead of cloning: never let it.
        if self.table_exists(table).await? {
            return Err(remote(
                &self.master().unwrap_or_default(),
                "org.apache.hadoop.hbase.TableExistsException",
                table.to_owned(),
            ));
        }
        self.restore_or_clone(name, table, "clone").await
    }

    async fn restore_or_clone(&self, name: &str, table: &str, verb: &str) -> Result<(), RpcError> {
        let deadline = self.deadline();
        let (nonce_group, nonce) = self.nonce();
        let request = pb::RestoreSnapshotRequest {
            snapshot: description(name, Some(table.to_owned())),
            nonce_group,
            nonce,
            restore_acl: Some(false),
            custom_sft: None,
        };
        let response: pb::RestoreSnapshotResponse =
            self.master_call_until("RestoreSnapshot", &request, Repeat::Safe, deadline).await?;
        let result =
            self.wait_procedure_until(response.proc_id, &format!("{verb} snapshot {name} to {table}"), deadline).await;
        self.forget_regions(table);
        result
    }
}
