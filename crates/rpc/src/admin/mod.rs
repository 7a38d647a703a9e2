//! Administration over HBase's native RPC: the active master's `MasterService` (found
//! through the connection registry, or ZooKeeper, at bootstrap) and the region servers'
//! `AdminService`, without the Thrift2 gateway. [`RpcAdmin`] comes from
//! [`RpcClient::admin`].
//!
//! - Namespaces ([`RpcAdmin::create_namespace`], ...), tables (create with split keys and
//!   family settings, describe, list, exists, enable, disable, delete, truncate, modify,
//!   families), regions (flush, compact, split, merge, move, unassign), the balancer,
//!   snapshots (take, list, delete, restore, clone) and the cluster's status.
//! - Calls that the master runs as procedures wait for their procedure
//!   ([`RpcAdmin::wait_procedure`]) until the admin's deadline; when it passes, the error
//!   names what is still running (see [`PROCEDURE_TIMEOUT`]).
//! - Method names are the service's as HBase spells them: most are CamelCase, but
//!   `getProcedureResult` and `truncateTable` are not.
//! - A master that is starting (`PleaseHoldException`, `ServerNotRunningYetException`,
//!   `MasterNotRunningException`), busy, or unreachable is retried until the deadline,
//!   asking the bootstrap servers again for the active master (a client bootstrapped
//!   through ZooKeeper keeps the master it learned there). Every request that
//!   changes something carries a nonce (this client's group and one nonce per
//!   operation), so the master recognises a retried create or delete whose first
//!   attempt's outcome was unknown and answers with the first procedure's id.
//! - The master's exceptions are [`RpcError::Remote`] with their Java class
//!   (`TableExistsException`, `TableNotFoundException`, `NamespaceNotFoundException`,
//!   `TableNotDisabledException`, ...); names and inputs are checked before sending.

mod cluster;
#[cfg(test)]
mod fake_master_tests;
mod names;
mod namespaces;
mod procedures;
mod regions;
mod schema;
mod snapshots;
mod tables;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use basalt_rpc_protocol::call::Service;
use basalt_rpc_protocol::exception::{RemoteException, RemoteExceptionKind};

use crate::builder::RpcClient;
use crate::conn::Reply;
use crate::error::{RemoteError, RpcError};
use crate::registry;

pub use cluster::{ClusterStatus, RegionInTransition, RegionLoad, ServerStatus};
pub use names::{validate_namespace, DEFAULT_NAMESPACE, SYSTEM_NAMESPACE};
pub use namespaces::NamespaceDescriptor;
pub use procedures::{ProcedureState, PROCEDURE_TIMEOUT};
pub use regions::BalanceResult;
pub use schema::{BlockEncoding, BloomFilter, Compression, FamilyDescriptor, TableSchema};
pub use snapshots::SnapshotInfo;
pub use tables::{TableFilter, TableState};

/// Master exceptions that mean "not now": the master is starting, is a backup, or is
/// busy. Retried (after asking again who the active master is) until the deadline.
const MASTER_NOT_READY: &[&str] = &[
    "org.apache.hadoop.hbase.PleaseHoldException",
    "org.apache.hadoop.hbase.MasterNotRunningException",
    "org.apache.hadoop.hbase.ipc.ServerNotRunningYetException",
    "org.apache.hadoop.hbase.CallQueueTooBigException",
    "org.apache.hadoop.hbase.CallDroppedException",
];

/// Whether the master may run a retried request twice: reads are safe to repeat, and
/// so are requests with a nonce (the master answers a repeated nonce with the first
/// attempt's procedure); others fail on an unknown outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Repeat {
    Safe,
    Unsafe,
}

/// Administration of the cluster over the native RPC; cheap to clone.
#[derive(Debug, Clone)]
pub struct RpcAdmin {
    client: RpcClient,
    /// The active master as last learned (bootstrap, then the registry after failures).
    master: Arc<Mutex<Option<String>>>,
    /// How long calls and procedure waits may take in all (default: the client's
    /// operation timeout).
    timeout: Option<Duration>,
}

impl RpcAdmin {
    /// The admin of `client`, for [`RpcClient::admin`]: the master learned at bootstrap.
    pub(crate) fn new(client: &RpcClient) -> RpcAdmin {
        RpcAdmin {
            client: client.clone(),
            master: Arc::new(Mutex::new(client.cluster().active_master.clone())),
            timeout: None,
        }
    }

    /// The same admin whose operations (retries and procedure waits included) end with
    /// an error after `timeout` (default: the client's operation timeout).
    pub fn with_timeout(&self, timeout: Duration) -> RpcAdmin {
        RpcAdmin { timeout: Some(timeout), ..self.clone() }
    }

    /// The client this admin calls through.
    pub fn client(&self) -> &RpcClient {
        &self.client
    }

    /// `host:port` of the master this admin calls, as last learned.
    pub fn master(&self) -> Option<String> {
        self.master.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }

    /// The deadline of an operation starting now.
    pub(crate) fn deadline(&self) -> Instant {
        match self.timeout {
            Some(timeout) => Instant::now() + timeout,
            None => self.client.deadline(),
        }
    }

    /// A fresh (nonce group, nonce) for one operation; its retries reuse it.
    pub(crate) fn nonce(&self) -> (Option<u64>, Option<u64>) {
        (Some(self.client.nonce_group()), Some(self.client.new_nonce()))
    }

    /// Drops the client's cached regions of `table` (named as the caller gave it), whose
    /// regions an admin call replaced or moved.
    pub(crate) fn forget_regions(&self, table: &str) {
        if let Ok(name) = names::TableName::parse(table) {
            self.client.inner.regions.forget_table(&names::table_string(&name.to_proto()));
        }
    }

    fn set_master(&self, master: Option<String>) {
        *self.master.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = master;
    }

    /// Asks the bootstrap servers who the active master is now (after a failure).
    async fn refresh_master(&self) {
        let servers = self.client.bootstrap_servers();
        if servers.is_empty() {
            return;
        }
        let pool = &self.client.inner.pool;
        if let Ok(cluster) = registry::bootstrap(pool, servers, self.client.rpc_timeout()).await {
            if cluster.active_master.is_some() {
                self.set_master(cluster.active_master);
            }
        }
    }

    /// One call of `method` on the active master, retried while the master is not ready
    /// or unreachable and the deadline allows; `repeat` says whether a call whose outcome
    /// is unknown (a timeout, a connection lost after sending) may be sent again.
    pub(crate) async fn master_call<M: prost::Message + Default>(
        &self,
        method: &'static str,
        request: &impl prost::Message,
        repeat: Repeat,
    ) -> Result<M, RpcError> {
        self.master_call_until(method, request, repeat, self.deadline()).await
    }

    /// [`master_call`](Self::master_call) with the operation's own deadline.
    pub(crate) async fn master_call_until<M: prost::Message + Default>(
        &self,
        method: &'static str,
        request: &impl prost::Message,
        repeat: Repeat,
        deadline: Instant,
    ) -> Result<M, RpcError> {
        let mut attempt = 0;
        // Whether an earlier attempt may have run (kept in the final error).
        let mut may_have_run = false;
        loop {
            if self.master().is_none() {
                self.refresh_master().await;
            }
            let error = match self.master() {
                Some(master) => match self.call_on(&master, Service::Master, method, request).await {
                    Ok(reply) => return reply.decode(&master),
                    Err(error) => error,
                },
                // Between masters (a failover): nothing was sent, ask again.
                None => RpcError::Bootstrap("the registry names no active master".into()),
            };
            let retry = match &error {
                RpcError::Connect { .. } | RpcError::Bootstrap(_) => true,
                RpcError::Timeout { .. } | RpcError::ConnectionFailed { .. } => repeat == Repeat::Safe,
                RpcError::Remote(remote) => MASTER_NOT_READY.contains(&remote.exception.class_name.as_str()),
                _ => false,
            };
            if !retry {
                return Err(RpcError::after_attempts(attempt + 1, error, may_have_run, false));
            }
            if Instant::now() >= deadline {
                return Err(RpcError::after_attempts(attempt + 1, error, may_have_run, true));
            }
            may_have_run |= error.may_have_run();
            self.client.pause(attempt).await;
            if !matches!(&error, RpcError::Remote(remote) if remote.exception.class_name.contains("PleaseHold")) {
                // Unreachable, or not the active master (any more): ask who is.
                self.refresh_master().await;
            }
            attempt += 1;
        }
    }

    /// One call on `server`'s connection for `service`; a connection whose call went
    /// unanswered is left out of the pool (it may be stalled).
    pub(crate) async fn call_on(
        &self,
        server: &str,
        service: Service,
        method: &'static str,
        request: &impl prost::Message,
    ) -> Result<Reply, RpcError> {
        let pool = &self.client.inner.pool;
        let (number, conn) = pool.get(server, service).await?;
        let result = conn.call(method, request, None, self.client.rpc_timeout()).await;
        if let Err(RpcError::Timeout { .. }) = &result {
            pool.discard(server, service, number).await;
        }
        result
    }
}

/// An error for a missing required answer in a reply.
pub(crate) fn missing(server: &str, what: &str) -> RpcError {
    RpcError::Protocol { addr: server.to_owned(), reason: format!("the reply has no {what}") }
}

/// A remote error built from what a procedure or the master reported (class, message),
/// as if the server had thrown it; `do_not_retry`, since the operation is over.
pub(crate) fn remote(server: &str, class_name: &str, message: String) -> RpcError {
    RpcError::Remote(Box::new(RemoteError {
        server: server.to_owned(),
        exception: RemoteException {
            class_name: class_name.to_owned(),
            kind: RemoteExceptionKind::from_class(class_name, &message, true),
            stack_trace: format!("{class_name}: {message}"),
            message,
            do_not_retry: true,
            server_overloaded: false,
        },
    }))
}

/// Whether `error` is the master's exception of class `simple_name` (without package).
pub fn is_remote_class(error: &RpcError, simple_name: &str) -> bool {
    let remote = match error {
        RpcError::RetriesExhausted { last, .. } => return is_remote_class(last, simple_name),
        RpcError::Remote(remote) => remote,
        _ => return false,
    };
    remote.exception.class_name.rsplit('.').next() == Some(simple_name)
}
