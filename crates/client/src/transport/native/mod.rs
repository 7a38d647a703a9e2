//! HBase's native RPC as a transport: straight to the region servers through
//! `basalt-rpc`, without the Thrift2 gateway.
//!
//! - The cluster is found through the connection registry of the bootstrap servers
//!   (region servers or masters), on the first call: building the client stays
//!   synchronous and opens nothing.
//! - One attempt per call as the core expects, with one exception the core cannot see:
//!   a region that moved, split or is opening is relocated through `hbase:meta` and
//!   the call sent again within the same request timeout (the core knows no regions).
//! - Scanners cross regions themselves and reopen after the last row delivered when a
//!   region moves or splits or a connection fails; their leases are renewed in the
//!   background, and a lease that expired all the same is reported to the core as
//!   `ScannerExpired` (the core reopens the scan and counts it, as on the gateway).
//! - Filters go out as HBase's protobuf filters
//!   (`transport/filter_protobuf.rs`).
//! - Replies become [`Row`]s whose cells share the reply's bytes (no value is copied).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub(crate) use basalt_rpc::AddressMap;
/// Native RPC's failure of one call (inside [`TransportFailure::Native`](crate::TransportFailure::Native)).
pub use basalt_rpc::RpcError;
use basalt_rpc::{RowResult, RpcClient};

use super::admin::AdminTransport;
use super::{
    AttemptError, AttemptFuture, CheckedWrite, Condition, MoreRows, Operation, OperationNonce, Page, ScanRequest,
    Scanner, Transport, WriteFailure,
};

use super::PoolStats;
use crate::batch_action::BatchAction;
use crate::conditional::{CheckAndMutate, CheckAndMutateResult, CheckedAction};
use crate::error::Error;
use crate::ops::{Append, Delete, Get, Increment, Put, RowMutations};
use crate::options::Consistency;
use crate::region::RegionLocation;
use crate::row::Row;

mod admin;
mod encode;
mod errors;
mod retry;
mod rows;
mod scanner;
mod write;
use encode::{
    native_action, native_append, native_check, native_checked, native_condition, native_delete, native_get,
    native_increment, native_put, native_row_mutations, native_row_mutations_with, scan_spec,
};
use errors::{attempt_error, invalid, map_error};
use rows::to_row;
use scanner::NativeScanner;
use write::{DeleteWrite, PutWrite};

/// The largest reply a page is sized below (the connection refuses larger frames).
const MAX_REPLY_BYTES: usize = 64 << 20;

/// Calls in flight the core may start at once (calls are multiplexed per server).
const MAX_IN_FLIGHT: usize = 64;

/// What a native transport is built from: where the cluster is and how to talk to it.
pub(crate) struct NativeSettings {
    /// `host:port` of region servers or masters to bootstrap from.
    pub(crate) bootstrap: Vec<String>,
    /// The ZooKeeper quorum to bootstrap through instead, if given.
    pub(crate) zookeeper: Option<String>,
    /// The parent znode of the cluster in ZooKeeper (`/hbase`).
    pub(crate) znode_parent: String,
    /// Where to connect for the servers' advertised addresses.
    pub(crate) addresses: basalt_rpc::AddressMap,
    /// How long one attempt may take.
    pub(crate) request_timeout: Duration,
    /// How long a timeline read waits for the primary before asking the secondaries.
    pub(crate) primary_call_timeout: Duration,
    /// The largest value a write may carry.
    pub(crate) max_value_bytes: usize,
    /// TLS and Kerberos to the servers.
    pub(crate) security: basalt_rpc::Security,
    /// The client's retry policy, which decides the RPC layer's own retries too.
    pub(crate) retry: Arc<dyn crate::retry::RetryPolicy>,
    /// The client's retry budget of one call.
    pub(crate) retry_budget: Duration,
    /// Whether the RPC layer resends puts on the server's clock after an attempt that
    /// may have run, as the client's core does
    /// ([`ClientBuilder::resend_unstamped_puts`](crate::ClientBuilder::resend_unstamped_puts)).
    pub(crate) resend_unstamped_puts: bool,
}

/// The shared state of one native transport.
struct Shared {
    settings: NativeSettings,
    client: tokio::sync::OnceCell<RpcClient>,
    closed: AtomicBool,
}

/// HBase through its native RPC, to the region servers directly.
#[derive(Clone)]
pub struct NativeTransport {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for NativeTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeTransport").field("bootstrap", &self.shared.settings.bootstrap).finish_non_exhaustive()
    }
}

impl NativeTransport {
    /// A transport that bootstraps as `settings` say on its first call.
    pub(crate) fn new(settings: NativeSettings) -> NativeTransport {
        NativeTransport {
            shared: Arc::new(Shared { settings, client: tokio::sync::OnceCell::new(), closed: AtomicBool::new(false) }),
        }
    }

    /// The RPC client, bootstrapped on first use.
    async fn client(&self, op: Operation) -> Result<&RpcClient, AttemptError> {
        if self.shared.closed.load(Ordering::Acquire) {
            return Err(AttemptError::not_sent(op, Error::ClientClosed));
        }
        let timeout = self.shared.settings.request_timeout;
        self.shared
            .client
            .get_or_try_init(|| async {
                let mut builder = RpcClient::builder()
                    .rpc_timeout(timeout)
                    .operation_timeout(timeout)
                    .security(self.shared.settings.security.clone())
                    .address_map(self.shared.settings.addresses.clone())
                    .primary_call_timeout(self.shared.settings.primary_call_timeout);
                for server in &self.shared.settings.bootstrap {
                    builder = builder.bootstrap_server(server.clone());
                }
                if let Some(quorum) = &self.shared.settings.zookeeper {
                    builder = builder.zookeeper(quorum.clone()).znode_parent(self.shared.settings.znode_parent.clone());
                }
                builder.connect().await
            })
            .await
            .map_err(|e| AttemptError::not_sent(Operation::Connect, map_error(&e, Operation::Connect, None)))
    }

    /// Runs one attempt of `op`, mapping its error.
    async fn attempt<T, F, Fut>(&self, op: Operation, table: &str, call: F) -> Result<T, AttemptError>
    where
        F: FnOnce(RpcClient) -> Fut,
        Fut: Future<Output = Result<T, RpcError>>,
    {
        // The RPC layer's own retries (relocations, a batch's failed actions) are
        // decided by the client's policy, within the call's budget.
        let settings = &self.shared.settings;
        let rule = retry::PolicyRule {
            policy: Arc::clone(&settings.retry),
            budget: settings.retry_budget,
            operation: op,
            table: Some(table.to_owned()),
            call: crate::resend::CallRetries::current(),
        };
        let client = self.client(op).await?.with_retry_rule(Arc::new(rule));
        call(client).await.map_err(|e| attempt_error(op, Some(table), &e))
    }
}

/// `mutations`, with puts on the server's clock resent by the RPC layer after an
/// attempt that may have run if `resend` (the client's `resend_unstamped_puts`); other
/// mutations are unchanged.
fn resend_unstamped(mutations: Vec<basalt_rpc::Mutation>, resend: bool) -> Vec<basalt_rpc::Mutation> {
    mutations.into_iter().map(|m| m.resend_unstamped(resend)).collect()
}

/// The writes of a batch the servers did not apply (one batch write per caller's write,
/// in order). A single write that failed fails the attempt itself, so the core's retry
/// policy decides on it as on any call.
fn write_failures(
    op: Operation,
    table: &str,
    writes: usize,
    failed: Vec<(usize, RpcError)>,
) -> Result<Vec<WriteFailure>, AttemptError> {
    let single = writes == 1;
    let mut failures: Vec<WriteFailure> = Vec::with_capacity(failed.len());
    for (index, error) in failed {
        if single {
            return Err(attempt_error(op, Some(table), &error));
        }
        let may_have_run = error.may_have_run();
        failures.push(WriteFailure { index, error: map_error(&error, op, Some(table)), may_have_run });
    }
    Ok(failures)
}

/// One action's failure in a mixed batch: a write that may have run is reported as
/// [`Error::WriteOutcomeUnknown`].
fn action_error(error: &RpcError, op: Operation, table: &str) -> Error {
    let mapped = map_error(error, op, Some(table));
    if op.writes() && error.may_have_run() {
        Error::WriteOutcomeUnknown { operation: op, source: Box::new(mapped) }
    } else {
        mapped
    }
}

/// Gets as one multi-get, or one by one when some may read secondary replicas (each
/// such get is planned on its own: primary first, then its region's secondaries).
async fn get_rows(
    client: RpcClient,
    table: &str,
    gets: &[Get],
    native: &[basalt_rpc::Get],
) -> Result<Vec<RowResult>, RpcError> {
    if gets.iter().any(|g| g.read.consistency == Consistency::Timeline) {
        // By index: a closure over `&Get` would not be `Send` for every lifetime.
        let calls = futures::StreamExt::map(futures::stream::iter(0..native.len()), |i| client.get(table, &native[i]));
        futures::TryStreamExt::try_collect(futures::StreamExt::buffered(calls, MAX_IN_FLIGHT)).await
    } else {
        client.multi_get(table, native).await
    }
}

impl Transport for NativeTransport {
    fn get<'a>(&'a self, table: &'a str, get: &'a Get) -> AttemptFuture<'a, Row> {
        Box::pin(async move {
            let op = Operation::Get;
            let native = native_get(get).map_err(|e| invalid(op, e))?;
            let row = self.attempt(op, table, |c| async move { c.get(table, &native).await }).await?;
            Ok(to_row(row))
        })
    }

    fn get_many<'a>(&'a self, table: &'a str, gets: &'a [Get]) -> AttemptFuture<'a, Vec<Row>> {
        Box::pin(async move {
            let op = Operation::MultiGet;
            let native = gets.iter().map(native_get).collect::<Result<Vec<_>, _>>().map_err(|e| invalid(op, e))?;
            let rows = self.attempt(op, table, |c| async move { get_rows(c, table, gets, &native).await }).await?;
            Ok(rows::rows(rows).collect())
        })
    }

    fn get_route(&self, table: &str, row: &[u8]) -> Option<u64> {
        self.shared.client.get()?.cached_server_id(table, row)
    }

    fn exists<'a>(&'a self, table: &'a str, gets: &'a [Get]) -> AttemptFuture<'a, Vec<bool>> {
        Box::pin(async move {
            let op = if gets.len() == 1 { Operation::Exists } else { Operation::ExistsMany };
            let native = gets.iter().map(native_get).collect::<Result<Vec<_>, _>>().map_err(|e| invalid(op, e))?;
            let rows = self.attempt(op, table, |c| async move { get_rows(c, table, gets, &native).await }).await?;
            Ok(rows.iter().map(|r| !r.is_empty()).collect())
        })
    }

    fn put<'a>(&'a self, table: &'a str, puts: &'a [Put]) -> AttemptFuture<'a, Vec<WriteFailure>> {
        Box::pin(async move {
            let op = if puts.len() == 1 { Operation::Put } else { Operation::PutMany };
            let writes = puts
                .iter()
                .map(|p| PutWrite::new(p, self.shared.settings.resend_unstamped_puts))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| invalid(op, e))?;
            let count = writes.len();
            let failed = self.attempt(op, table, |c| async move { c.write_batch(table, &writes).await }).await?;
            write_failures(op, table, count, failed)
        })
    }

    fn delete<'a>(&'a self, table: &'a str, deletes: &'a [Delete]) -> AttemptFuture<'a, Vec<WriteFailure>> {
        Box::pin(async move {
            let op = if deletes.len() == 1 { Operation::Delete } else { Operation::DeleteMany };
            // One batch write per delete (see `DeleteWrite::push`).
            let mut writes = Vec::with_capacity(deletes.len());
            for delete in deletes {
                DeleteWrite::push(delete, &mut writes).map_err(|e| invalid(op, e))?;
            }
            let count = writes.len();
            let failed = self.attempt(op, table, |c| async move { c.write_batch(table, &writes).await }).await?;
            write_failures(op, table, count, failed)
        })
    }

    fn mutate_row<'a>(&'a self, table: &'a str, mutations: &'a RowMutations) -> AttemptFuture<'a, ()> {
        Box::pin(async move {
            let op = Operation::MutateRow;
            let settings = &self.shared.settings;
            let native = native_row_mutations(mutations, settings.max_value_bytes).map_err(|e| invalid(op, e))?;
            let native = resend_unstamped(native, settings.resend_unstamped_puts);
            self.attempt(op, table, |c| async move { c.mutate_row(table, &native).await }).await
        })
    }

    fn check_and_mutate<'a>(
        &'a self,
        table: &'a str,
        condition: &'a Condition,
        write: CheckedWrite<'a>,
    ) -> AttemptFuture<'a, bool> {
        Box::pin(async move {
            let check = native_check(condition);
            let max = self.shared.settings.max_value_bytes;
            let (op, mutations) = match write {
                CheckedWrite::Put(put) => (Operation::CheckAndPut, native_put(put, max).map(|m| vec![m])),
                CheckedWrite::Delete(delete) => (Operation::CheckAndDelete, native_delete(delete)),
                CheckedWrite::Mutations(mutations) => (Operation::CheckAndMutate, native_row_mutations(mutations, max)),
            };
            let mutations = mutations.map_err(|e| invalid(op, e))?;
            let check = &check;
            self.attempt(op, table, |c| async move { c.check_and_mutate_row(table, check, &mutations).await }).await
        })
    }

    fn mutate_row_with_results<'a>(
        &'a self,
        table: &'a str,
        mutations: &'a RowMutations,
        nonce: OperationNonce,
    ) -> AttemptFuture<'a, Row> {
        Box::pin(async move {
            let op = Operation::MutateRow;
            let max = self.shared.settings.max_value_bytes;
            let native = native_row_mutations_with(mutations, max, Some(nonce)).map_err(|e| invalid(op, e))?;
            let native = resend_unstamped(native, self.shared.settings.resend_unstamped_puts);
            let row = self.attempt(op, table, |c| async move { c.mutate_row_results(table, &native).await }).await?;
            Ok(to_row(row))
        })
    }

    fn check_and_mutate_with<'a>(
        &'a self,
        table: &'a str,
        request: &'a CheckAndMutate,
        nonce: OperationNonce,
    ) -> AttemptFuture<'a, CheckAndMutateResult> {
        Box::pin(async move {
            let op = Operation::CheckAndMutate;
            let max = self.shared.settings.max_value_bytes;
            let condition = native_condition(request).map_err(|e| invalid(op, e))?;
            let condition = &condition;
            let (applied, row) = match &request.action {
                CheckedAction::Mutations(mutations) => {
                    let native = native_row_mutations_with(mutations, max, Some(nonce)).map_err(|e| invalid(op, e))?;
                    let call = |c: RpcClient| async move { c.check_and_mutate_rows(table, condition, &native).await };
                    self.attempt(op, table, call).await?
                }
                action @ (CheckedAction::Put(_)
                | CheckedAction::Delete(_)
                | CheckedAction::Increment(_)
                | CheckedAction::Append(_)) => {
                    let native = native_checked(action, max, nonce).map_err(|e| invalid(op, e))?;
                    let call = |c: RpcClient| async move { c.check_and_mutate_one(table, condition, &native).await };
                    self.attempt(op, table, call).await?
                }
            };
            Ok(CheckAndMutateResult::new(applied, to_row(row)))
        })
    }

    fn batch<'a>(
        &'a self,
        table: &'a str,
        actions: &'a [BatchAction],
        nonces: &'a [Option<OperationNonce>],
    ) -> Option<AttemptFuture<'a, Vec<Result<Row, Error>>>> {
        Some(Box::pin(async move {
            let op = Operation::Batch;
            if actions.is_empty() {
                return Ok(Vec::new());
            }
            let max = self.shared.settings.max_value_bytes;
            let native = actions
                .iter()
                .enumerate()
                .map(|(i, action)| native_action(action, nonces.get(i).copied().flatten(), max))
                .map(|action| {
                    action.map(|action| match action {
                        basalt_rpc::BatchAction::Mutate(m) => basalt_rpc::BatchAction::Mutate(
                            m.resend_unstamped(self.shared.settings.resend_unstamped_puts),
                        ),
                        get @ basalt_rpc::BatchAction::Get(_) => get,
                    })
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| invalid(op, e))?;
            let outcomes = self.attempt(op, table, |c| async move { c.batch(table, &native).await }).await?;
            Ok(outcomes
                .into_iter()
                .zip(actions)
                .map(|(outcome, action)| outcome.map(to_row).map_err(|e| action_error(&e, action.operation(), table)))
                .collect())
        }))
    }

    fn increment<'a>(
        &'a self,
        table: &'a str,
        increment: &'a Increment,
        nonce: OperationNonce,
    ) -> AttemptFuture<'a, Row> {
        Box::pin(async move {
            let op = Operation::Increment;
            let native = native_increment(increment, nonce).map_err(|e| invalid(op, e))?;
            let row = self.attempt(op, table, |c| async move { c.mutate(table, &native).await }).await?;
            Ok(to_row(row))
        })
    }

    fn append<'a>(&'a self, table: &'a str, append: &'a Append, nonce: OperationNonce) -> AttemptFuture<'a, Row> {
        Box::pin(async move {
            let op = Operation::Append;
            let native = native_append(append, nonce).map_err(|e| invalid(op, e))?;
            let row = self.attempt(op, table, |c| async move { c.mutate(table, &native).await }).await?;
            Ok(to_row(row))
        })
    }

    fn open_scanner<'a>(
        &'a self,
        table: &'a str,
        scan: &'a ScanRequest,
        rows: u32,
    ) -> AttemptFuture<'a, (Box<dyn Scanner>, Page)> {
        Box::pin(async move {
            let op = Operation::OpenScanner;
            let spec = scan_spec(scan, rows).map_err(|e| invalid(op, e))?;
            let client = self.client(op).await?;
            let mut scanner = NativeScanner::new(client.scan(table, spec), table, scan);
            let page = scanner.page(op, rows).await?;
            Ok((Box::new(scanner) as Box<dyn Scanner>, page))
        })
    }

    fn stateless_page<'a>(&'a self, table: &'a str, scan: &'a ScanRequest, rows: u32) -> AttemptFuture<'a, Page> {
        Box::pin(async move {
            let op = Operation::StatelessPage;
            let wanted = u64::from(rows.max(1));
            let limit =
                scan.limit.and_then(|l| u64::try_from(l).ok()).filter(|l| *l > 0).map_or(wanted, |l| l.min(wanted));
            let spec = scan_spec(scan, rows).map_err(|e| invalid(op, e))?;
            // A page holds `rows` items. With `batch` an item is a part of a row while a
            // server-side limit counts rows (HBase's count, which differs from the
            // parts delivered at some boundaries and made pages end the scan early):
            // the page is cut by items here and the server is given no limit. (The
            // core refuses a stateless scan with both a limit and `batch`.)
            let spec = if scan.read.batch.is_some_and(|b| b > 0) { spec } else { spec.limit(limit) };
            let client = self.client(op).await?;
            let mut scanner = NativeScanner::new(client.scan(table, spec), table, scan);
            let mut page = scanner.page(op, rows).await?;
            while page.more == MoreRows::Yes && (page.rows.len() as u64) < limit {
                let next = scanner.page(op, rows).await?;
                page.rows.extend(next.rows);
                page.reply_bytes += next.reply_bytes;
                page.more = next.more;
            }
            // The page is the last one only when the scan ended before the limit this
            // page imposed.
            if page.more == MoreRows::No && (page.rows.len() as u64) >= limit {
                page.more = MoreRows::Unknown;
            }
            let _ = scanner.scanner.close().await;
            Ok(page)
        })
    }

    fn region_locations<'a>(&'a self, table: &'a str) -> AttemptFuture<'a, Vec<RegionLocation>> {
        Box::pin(async move {
            let op = Operation::RegionLocations;
            let regions = self.attempt(op, table, |c| async move { c.table_regions(table).await }).await?;
            Ok(regions
                .into_iter()
                .map(|r| {
                    let region_id = r.region_id();
                    let (host, port) = match r.server.rsplit_once(':') {
                        Some((host, port)) => (host.to_owned(), port.parse::<i32>().ok()),
                        None => (r.server.clone(), None),
                    };
                    RegionLocation { start_key: r.start_key, end_key: r.end_key, region_id, host, port }
                })
                .collect())
        })
    }

    fn capabilities(&self) -> super::Capabilities {
        super::Capabilities {
            answers_per_write: true,
            dedups_by_nonce: self.dedups_by_nonce(),
            renews_scanner_leases: true,
            // Filters travel as HBase's protobuf messages, built from the parsed string.
            parses_filter_strings: true,
        }
    }

    fn dedups_by_nonce(&self) -> bool {
        // HBase's region servers keep nonces unless `hbase.regionserver.nonces.enabled`
        // is turned off (it is on by default, and HBase's Java client counts on it).
        true
    }

    fn max_reply_bytes(&self) -> usize {
        MAX_REPLY_BYTES
    }

    fn max_in_flight(&self) -> usize {
        MAX_IN_FLIGHT
    }

    fn plain_page_bytes(&self) -> usize {
        crate::scan::NATIVE_PAGE_TARGET_BYTES
    }

    fn endpoints(&self) -> Vec<String> {
        self.shared.settings.bootstrap.clone()
    }

    fn pool_stats(&self) -> PoolStats {
        match self.shared.client.get() {
            Some(client) => {
                let (opened, connect_failures) = client.connection_counters();
                PoolStats { opened, connect_failures, ..PoolStats::default() }
            }
            None => PoolStats::default(),
        }
    }

    fn warm_up(&self, _connections: usize) -> Pin<Box<dyn Future<Output = Result<usize, Error>> + Send + '_>> {
        Box::pin(async move {
            let client = self.client(Operation::Connect).await.map_err(|e| *e.error)?;
            Ok(client.live_connections())
        })
    }

    fn shutdown(&self) {
        self.shared.closed.store(true, Ordering::Release);
    }

    fn admin(&self) -> Option<&dyn AdminTransport> {
        Some(self)
    }
}

/// A native reply's results as the rows a scan delivers (the crate's benchmarks).
#[cfg(feature = "bench-internals")]
pub fn rows_from_results(results: Vec<RowResult>) -> impl ExactSizeIterator<Item = Row> {
    rows::rows(results)
}

/// A native reply's whole rows laid flat over its cell block, as the rows a scan
/// delivers (the crate's benchmarks).
#[cfg(feature = "bench-internals")]
pub fn rows_from_block(rows: basalt_rpc::BlockRows) -> impl ExactSizeIterator<Item = Row> {
    rows::block_rows(rows)
}
