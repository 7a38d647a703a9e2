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
//! - Filters go out as HBase's protobuf filters ([`Filter::to_protobuf`]).
//! - Replies become [`Row`]s whose cells share the reply's bytes (no value is copied).

// The error mapping lists every kind: a new one fails to build until it is placed.
#![deny(clippy::wildcard_enum_match_arm)]

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use basalt_rpc::{pb, Check, RowResult, RpcClient, RpcError, ScanSpec};
use bytes::Bytes;

use super::thrift::ThriftTransport;
use super::{
    AttemptError, AttemptFuture, CheckedWrite, Condition, MoreRows, Operation, Page, ScanRequest, Scanner, Transport,
};
use basalt_thrift::CallError;

use crate::error::{BusyKind, Error, InvalidInput};
use crate::filter::{CompareOp, Filter};
use crate::ops::{Append, Delete, DeleteSpec, Get, Increment, Put, RowMutations};
use crate::options::{ColumnSpec, Consistency, ReadOptions};
use crate::pool::PoolStats;
use crate::region::RegionLocation;
use crate::row::{Cell, Row};

mod write;
use write::{durability, DeleteWrite, PutWrite};

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
}

/// The shared state of one native transport.
struct Shared {
    settings: NativeSettings,
    /// The gateways, for administrative calls (not on the native transport yet).
    admin: Option<ThriftTransport>,
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
    /// A transport that bootstraps as `settings` say on its first call; `admin` serves
    /// the administrative calls.
    pub(crate) fn new(settings: NativeSettings, admin: Option<ThriftTransport>) -> NativeTransport {
        NativeTransport {
            shared: Arc::new(Shared {
                settings,
                admin,
                client: tokio::sync::OnceCell::new(),
                closed: AtomicBool::new(false),
            }),
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
        let client = self.client(op).await?.clone();
        call(client).await.map_err(|e| attempt_error(op, Some(table), &e))
    }
}

/// Maps a failed call: whether it was sent (a connection that could not be made, or
/// bad input, provably was not), and the crate's error.
fn attempt_error(op: Operation, table: Option<&str>, error: &RpcError) -> AttemptError {
    let mapped = map_error(error, op, table);
    match error {
        RpcError::Connect { .. }
        | RpcError::InvalidArgument(_)
        | RpcError::Bootstrap(_)
        | RpcError::Security { .. } => AttemptError::not_sent(op, mapped),
        RpcError::RetriesExhausted { last, .. } if matches!(**last, RpcError::Connect { .. }) => {
            AttemptError::not_sent(op, mapped)
        }
        RpcError::ConnectionFailed { .. }
        | RpcError::Timeout { .. }
        | RpcError::Remote(_)
        | RpcError::Protocol { .. }
        | RpcError::RegionNotFound { .. }
        | RpcError::RegionUnavailable(_)
        | RpcError::RetriesExhausted { .. } => AttemptError::sent(op, mapped),
    }
}

/// The crate's error for a native RPC failure.
fn map_error(error: &RpcError, op: Operation, table: Option<&str>) -> Error {
    use basalt_rpc::RemoteExceptionKind as Kind;
    let table_name = || table.unwrap_or("").to_owned();
    match error {
        RpcError::InvalidArgument(message) => Error::IllegalArgument { message: message.clone() },
        RpcError::Timeout { timeout, .. } => Error::Timeout { operation: op, after: *timeout },
        RpcError::RetriesExhausted { last, .. } => map_error(last, op, table),
        RpcError::RegionNotFound { .. } => Error::TableNotFound { table: table_name() },
        RpcError::Remote(remote) => {
            let message = remote.to_string();
            match remote.kind() {
                Kind::TableNotFound => Error::TableNotFound { table: table_name() },
                Kind::NamespaceNotFound => Error::NamespaceNotFound { namespace: table_name() },
                Kind::TableExists | Kind::NamespaceExists => Error::AlreadyExists { name: table_name() },
                Kind::NoSuchColumnFamily => Error::NoSuchColumnFamily { message },
                Kind::UnknownScanner | Kind::ScannerReset | Kind::OutOfOrderScannerNext => {
                    Error::ScannerExpired { message }
                }
                Kind::RegionTooBusy => Error::Busy { kind: BusyKind::RegionTooBusy, message },
                Kind::CallQueueTooBig => Error::Busy { kind: BusyKind::CallQueueTooBig, message },
                Kind::NotServingRegion
                | Kind::RegionMoved(_)
                | Kind::RegionOpening
                | Kind::RegionServerStopped
                | Kind::ServerNotRunningYet
                | Kind::CallDropped
                | Kind::RetryImmediately
                | Kind::Throttled
                | Kind::FatalConnection
                | Kind::DoNotRetry
                | Kind::Other => Error::Server { message, can_retry: remote.is_retryable() },
            }
        }
        // A refused connection is an outage to the core (retried for its whole budget).
        RpcError::Connect { addr, reason } => Error::Transport {
            addr: addr.clone(),
            source: CallError::Connect {
                addr: addr.clone(),
                source: std::io::Error::new(std::io::ErrorKind::ConnectionRefused, reason.clone()),
            },
        },
        RpcError::Security { addr, error } => {
            Error::Transport { addr: addr.clone(), source: CallError::Secure(error.clone()) }
        }
        RpcError::ConnectionFailed { addr, reason } => {
            Error::Transport { addr: addr.clone(), source: CallError::Io(std::io::Error::other(reason.clone())) }
        }
        RpcError::Protocol { addr, reason } => {
            Error::Protocol { addr: addr.clone(), source: CallError::Io(std::io::Error::other(reason.clone())) }
        }
        RpcError::Bootstrap(_) | RpcError::RegionUnavailable(_) => {
            Error::Server { message: error.to_string(), can_retry: error.is_retryable() }
        }
    }
}

fn invalid(op: Operation, error: impl Into<Error>) -> AttemptError {
    AttemptError::not_sent(op, error.into())
}

/// A timestamp as HBase's protobuf carries it (non-negative).
fn timestamp(ts: i64) -> Result<u64, InvalidInput> {
    u64::try_from(ts).map_err(|_| InvalidInput::Option(format!("a negative timestamp {ts}")))
}

fn filter_proto(filter: Option<&Filter>) -> Result<Option<pb::Filter>, Error> {
    let Some(filter) = filter else { return Ok(None) };
    let bytes = filter.to_protobuf().map_err(|e| InvalidInput::Option(format!("filter: {e}")))?;
    let proto = <pb::Filter as prost::Message>::decode(bytes.as_ref())
        .map_err(|e| InvalidInput::Option(format!("filter: {e}")))?;
    Ok(Some(proto))
}

/// The read options shared by gets and scans, applied through `$apply` (a builder of
/// either type).
macro_rules! apply_read {
    ($target:expr, $read:expr, $filter:expr) => {{
        let read: &ReadOptions = $read;
        let mut target = $target;
        for column in &read.columns {
            target = match column {
                ColumnSpec::Family(family) => target.family(family.clone()),
                ColumnSpec::Column(family, qualifier) => target.column(family.clone(), qualifier.clone()),
            };
        }
        if let Some(versions) = read.max_versions {
            target = target.max_versions(u32::try_from(versions.max(1)).unwrap_or(1));
        }
        if let Some((min, max)) = read.time_range {
            target = target.time_range(timestamp(min)?, timestamp(max)?);
        }
        if let Some(ts) = read.timestamp {
            target = target.timestamp(timestamp(ts)?);
        }
        for (family, min, max) in &read.family_time_ranges {
            target = target.family_time_range(family.clone(), timestamp(*min)?, timestamp(*max)?);
        }
        if let Some(cache) = read.cache_blocks {
            target = target.cache_blocks(cache);
        }
        if let Some(filter) = filter_proto($filter)? {
            target = target.filter(filter);
        }
        match read.consistency {
            Consistency::Strong => {}
            Consistency::Timeline => target = target.consistency(pb::Consistency::Timeline),
        }
        if let Some(id) = read.target_replica()? {
            target = target.replica_id(id);
        }
        target
    }};
}

fn native_get(get: &Get) -> Result<basalt_rpc::Get, Error> {
    crate::validate::row_key(&get.row)?;
    get.read.validate()?;
    let mut native = apply_read!(basalt_rpc::Get::new(get.row.clone()), &get.read, get.read.filter.as_ref());
    if let Some(ts) = get.timestamp {
        native = native.timestamp(timestamp(ts)?);
    }
    Ok(native)
}

fn native_put(put: &Put, max_value: usize) -> Result<basalt_rpc::Mutation, Error> {
    put.validate(max_value)?;
    let mut mutation = basalt_rpc::Mutation::put(put.row.clone()).durability(durability(&put.durability));
    if let Some(ts) = put.timestamp {
        mutation = mutation.at(timestamp(ts)?);
    }
    for (family, qualifier, value, ts) in &put.cells {
        mutation = match ts {
            Some(ts) => mutation.column_at(family.clone(), qualifier.clone(), value.clone(), timestamp(*ts)?),
            None => mutation.column(family.clone(), qualifier.clone(), value.clone()),
        };
    }
    Ok(mutation)
}

/// A delete as native mutations: one per column or family it names (HBase's server
/// keeps only the last family delete of one mutation's family, so several would not
/// apply their union), or one for the whole row.
fn native_delete(delete: &Delete) -> Result<Vec<basalt_rpc::Mutation>, Error> {
    crate::validate::row_key(&delete.row)?;
    let mut base = basalt_rpc::Mutation::delete(delete.row.clone()).durability(durability(&delete.durability));
    if let Some(ts) = delete.row_timestamp {
        base = base.at(timestamp(ts)?);
    }
    if delete.specs.is_empty() {
        return Ok(vec![base]);
    }
    let mut mutations = Vec::with_capacity(delete.specs.len());
    for spec in &delete.specs {
        let mutation = base.clone();
        mutations.push(match spec {
            DeleteSpec::ColumnVersion(family, qualifier, None) => {
                mutation.delete_latest_version(family.clone(), qualifier.clone())
            }
            DeleteSpec::ColumnVersion(family, qualifier, Some(ts)) => {
                mutation.delete_version(family.clone(), qualifier.clone(), timestamp(*ts)?)
            }
            DeleteSpec::ColumnAllVersions(family, qualifier, None) => {
                mutation.column(family.clone(), qualifier.clone(), Bytes::new())
            }
            DeleteSpec::ColumnAllVersions(family, qualifier, Some(ts)) => {
                mutation.column_at(family.clone(), qualifier.clone(), Bytes::new(), timestamp(*ts)?)
            }
            DeleteSpec::Family(family, None) => mutation.family(family.clone()),
            DeleteSpec::Family(family, Some(ts)) => mutation.family_at(family.clone(), timestamp(*ts)?),
            DeleteSpec::FamilyVersion(family, ts) => mutation.family_version(family.clone(), timestamp(*ts)?),
        });
    }
    Ok(mutations)
}

fn native_row_mutations(mutations: &RowMutations, max_value: usize) -> Result<Vec<basalt_rpc::Mutation>, Error> {
    crate::validate::row_key(&mutations.row)?;
    let mut native = Vec::with_capacity(mutations.puts.len() + mutations.deletes.len());
    for put in &mutations.puts {
        if put.row != mutations.row {
            return Err(InvalidInput::Option("a row mutation's put targets another row".into()).into());
        }
        native.push(native_put(put, max_value)?);
    }
    for delete in &mutations.deletes {
        if delete.row != mutations.row {
            return Err(InvalidInput::Option("a row mutation's delete targets another row".into()).into());
        }
        native.extend(native_delete(delete)?);
    }
    if native.is_empty() {
        return Err(InvalidInput::Option("row mutations need at least one put or delete".into()).into());
    }
    Ok(native)
}

fn native_check(condition: &Condition) -> Check {
    let compare = match condition.op {
        CompareOp::Less => pb::CompareType::Less,
        CompareOp::LessOrEqual => pb::CompareType::LessOrEqual,
        CompareOp::Equal => pb::CompareType::Equal,
        CompareOp::NotEqual => pb::CompareType::NotEqual,
        CompareOp::GreaterOrEqual => pb::CompareType::GreaterOrEqual,
        CompareOp::Greater => pb::CompareType::Greater,
    };
    Check {
        row: condition.row.clone(),
        family: condition.family.clone(),
        qualifier: condition.qualifier.clone(),
        expected: condition.value.clone(),
        compare,
    }
}

/// A reply's row as the crate's [`Row`]: the cells' parts are slices of the reply.
fn to_row(result: RowResult) -> Row {
    let key = result.row_bytes();
    let partial = result.partial;
    let cells =
        result.cells.iter().map(|c| Cell::new(c.family_bytes(), c.qualifier_bytes(), c.value_bytes(), c.timestamp()));
    Row::new(key, cells.collect::<Vec<_>>()).with_partial(partial).with_stale(result.stale)
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

fn reply_bytes(rows: &[RowResult]) -> usize {
    rows.iter().flat_map(|r| r.cells.iter()).map(|c| c.key_value().len() + 4).sum()
}

fn scan_spec(scan: &ScanRequest, rows: u32) -> Result<ScanSpec, Error> {
    scan.read.validate()?;
    // An expired lease (rare: leases are renewed in the background) surfaces as
    // `ScannerExpired`, so the core reopens the scan and counts the reopen as on the
    // gateway; moves, splits and lost connections are reopened below the seam.
    let mut spec = ScanSpec::new()
        .start(scan.start.clone())
        .stop(scan.stop.clone())
        .reversed(scan.reversed)
        .reopen_after_expiry(false);
    spec = apply_read!(spec, &scan.read, scan.filter.as_ref());
    spec = spec.rows_per_page(scan.read.caching.unwrap_or(rows).max(1));
    if let Some(batch) = scan.read.batch.filter(|b| *b > 0) {
        spec = spec.batch(u32::try_from(batch).unwrap_or(u32::MAX));
    }
    if let Some(limit) = scan.limit.filter(|l| *l > 0) {
        spec = spec.limit(u64::try_from(limit).unwrap_or(u64::MAX));
    }
    Ok(spec.rows_per_page(rows.max(1)))
}

/// A native scanner: pages across regions, reopening itself when needed.
struct NativeScanner {
    scanner: basalt_rpc::Scanner,
    table: String,
    /// Results asked per call: the scan's `caching` when set (as a gateway's Java
    /// client asks), else the page size the core asks for.
    caching: Option<u32>,
    /// Rows read beyond the last page asked for: the next page starts with them.
    ahead: VecDeque<RowResult>,
    /// An error met after some rows of a page were read: reported after them.
    pending: Option<RpcError>,
}

impl NativeScanner {
    fn new(scanner: basalt_rpc::Scanner, table: &str, scan: &ScanRequest) -> NativeScanner {
        let caching = scan.read.caching.filter(|c| *c > 0);
        NativeScanner { scanner, table: table.to_owned(), caching, ahead: VecDeque::new(), pending: None }
    }

    /// Up to `rows` rows; a page continues into the next region when the current one
    /// ends before it is full (as a gateway's scanner does), so page sizes are the
    /// core's, not the regions'. Every call asks the server for the scan's `caching`
    /// results (else `rows`), as the Java client behind a gateway does: the calls'
    /// boundaries decide where HBase's row count ends a batched row. Results beyond the
    /// page wait for the next one.
    async fn page(&mut self, op: Operation, rows: u32) -> Result<Page, AttemptError> {
        let wanted = rows.max(1) as usize;
        let mut page: Vec<RowResult> = self.ahead.drain(..self.ahead.len().min(wanted)).collect();
        if page.is_empty() {
            if let Some(error) = self.pending.take() {
                return Err(attempt_error(op, Some(&self.table), &error));
            }
        }
        while page.len() < wanted && self.pending.is_none() && !self.scanner.is_finished() {
            self.scanner.set_rows_per_page(self.caching.unwrap_or(rows).max(1));
            match self.scanner.next_page().await {
                Ok(Some(more)) => {
                    for row in more {
                        if page.len() < wanted {
                            page.push(row);
                        } else {
                            self.ahead.push_back(row);
                        }
                    }
                }
                Ok(None) => break,
                Err(error) => {
                    if page.is_empty() {
                        return Err(attempt_error(op, Some(&self.table), &error));
                    }
                    // Rows already read are delivered; the error comes with the next
                    // page.
                    self.pending = Some(error);
                    break;
                }
            }
        }
        let finished = self.ahead.is_empty() && self.scanner.is_finished() && self.pending.is_none();
        let more = if finished { MoreRows::No } else { MoreRows::Yes };
        let reply_bytes = reply_bytes(&page);
        Ok(Page { rows: page.into_iter().map(to_row).collect(), reply_bytes, more, source: self.table.clone() })
    }
}

impl Scanner for NativeScanner {
    fn next_page(&mut self, rows: u32) -> AttemptFuture<'_, Page> {
        Box::pin(self.page(Operation::NextPage, rows))
    }

    fn close(self: Box<Self>) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(async move {
            let _ = self.scanner.close().await;
        })
    }

    fn is_usable(&self) -> bool {
        // The scanner reopens itself on a new connection when its own fails.
        true
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
            Ok(rows.into_iter().map(to_row).collect())
        })
    }

    fn exists<'a>(&'a self, table: &'a str, gets: &'a [Get]) -> AttemptFuture<'a, Vec<bool>> {
        Box::pin(async move {
            let op = if gets.len() == 1 { Operation::Exists } else { Operation::ExistsMany };
            let native = gets.iter().map(native_get).collect::<Result<Vec<_>, _>>().map_err(|e| invalid(op, e))?;
            let rows = self.attempt(op, table, |c| async move { get_rows(c, table, gets, &native).await }).await?;
            Ok(rows.iter().map(|r| !r.is_empty()).collect())
        })
    }

    fn put<'a>(&'a self, table: &'a str, puts: &'a [Put]) -> AttemptFuture<'a, ()> {
        Box::pin(async move {
            let op = if puts.len() == 1 { Operation::Put } else { Operation::PutMany };
            let max = self.shared.settings.max_value_bytes;
            let writes = puts
                .iter()
                .map(|p| PutWrite::new(p, max))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| invalid(op, e))?;
            let outcomes = self.attempt(op, table, |c| async move { c.write_batch(table, &writes).await }).await?;
            match outcomes.into_iter().find_map(Result::err) {
                Some(error) => Err(attempt_error(op, Some(table), &error)),
                None => Ok(()),
            }
        })
    }

    fn delete<'a>(&'a self, table: &'a str, deletes: &'a [Delete]) -> AttemptFuture<'a, Vec<Bytes>> {
        Box::pin(async move {
            let op = if deletes.len() == 1 { Operation::Delete } else { Operation::DeleteMany };
            let mut writes = Vec::with_capacity(deletes.len());
            for delete in deletes {
                DeleteWrite::push(delete, &mut writes).map_err(|e| invalid(op, e))?;
            }
            let outcomes = self.attempt(op, table, |c| async move { c.write_batch(table, &writes).await }).await?;
            match outcomes.into_iter().find_map(Result::err) {
                Some(error) => Err(attempt_error(op, Some(table), &error)),
                None => Ok(Vec::new()),
            }
        })
    }

    fn mutate_row<'a>(&'a self, table: &'a str, mutations: &'a RowMutations) -> AttemptFuture<'a, ()> {
        Box::pin(async move {
            let op = Operation::MutateRow;
            let native =
                native_row_mutations(mutations, self.shared.settings.max_value_bytes).map_err(|e| invalid(op, e))?;
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

    fn increment<'a>(&'a self, table: &'a str, increment: &'a Increment) -> AttemptFuture<'a, Row> {
        Box::pin(async move {
            let op = Operation::Increment;
            crate::validate::row_key(&increment.row).map_err(|e| invalid(op, e))?;
            let mut native =
                basalt_rpc::Mutation::increment(increment.row.clone()).durability(durability(&increment.durability));
            for (family, qualifier, amount) in &increment.columns {
                native = native.add(family.clone(), qualifier.clone(), *amount);
            }
            let row = self.attempt(op, table, |c| async move { c.mutate(table, &native).await }).await?;
            Ok(to_row(row))
        })
    }

    fn append<'a>(&'a self, table: &'a str, append: &'a Append) -> AttemptFuture<'a, Row> {
        Box::pin(async move {
            let op = Operation::Append;
            crate::validate::row_key(&append.row).map_err(|e| invalid(op, e))?;
            let mut native =
                basalt_rpc::Mutation::append(append.row.clone()).durability(durability(&append.durability));
            for (family, qualifier, value) in &append.columns {
                native = native.column(family.clone(), qualifier.clone(), value.clone());
            }
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

    fn max_reply_bytes(&self) -> usize {
        MAX_REPLY_BYTES
    }

    fn max_in_flight(&self) -> usize {
        MAX_IN_FLIGHT
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
        if let Some(admin) = &self.shared.admin {
            admin.shutdown();
        }
    }

    fn thrift(&self) -> Option<&ThriftTransport> {
        self.shared.admin.as_ref()
    }
}
