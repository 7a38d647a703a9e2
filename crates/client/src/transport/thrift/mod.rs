//! The Thrift2 gateway transport: the pool of gateway connections, one attempt per
//! call (checkout, request timeout, error mapping), scanners pinned to the connection
//! that opened them (the requests' Thrift2 structs are built in `encode.rs`).

mod admin;
pub(crate) mod encode;
pub(crate) mod errors;
pub(crate) mod pool;
mod rows;
#[cfg(test)]
mod tests;

// The gateway connection's settings (framing, protocol, TLS, HTTP, Kerberos) and the
// errors a connection reports, as the client's API names them.
pub(crate) use basalt_thrift::ConnectionOptions;
pub use basalt_thrift::{
    CallError, Framing, HttpOptions, KerberosOptions, Protocol, Qop, ReplyError, SecureError, Security, TlsOptions,
    KERBEROS_SUPPORTED,
};

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use basalt_thrift::{Connection, RowBatch};
use futures::{StreamExt, TryStreamExt};
use tracing::Instrument;

use self::errors::{from_call_in, is_connection_dropped};
use self::pool::{Detached, Pool, PooledConnection};
use super::PoolStats;
use super::WriteFailure;
use super::{
    AttemptError, AttemptFuture, CheckedWrite, Condition, MoreRows, Operation, OperationNonce, Page, ScanRequest,
    Scanner, Transport,
};
use crate::conditional::{CheckAndMutate, CheckAndMutateResult};
use crate::error::Error;
use crate::ops::{Append, Delete, Get, Increment, Put, RowMutations};
use crate::region::RegionLocation;
use crate::row::Row;
use crate::transport::TransportFailure;

/// The state every call and every scanner of one Thrift transport shares.
struct Shared {
    pool: Pool,
    request_timeout: Duration,
    max_value_bytes: usize,
    /// Set once a call succeeded: the transport settings are known to match, so a new
    /// connection dropped before any reply is an outage, not a mismatch.
    answered: AtomicBool,
}

/// HBase through one or more Thrift2 gateways.
#[derive(Clone)]
pub struct ThriftTransport {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for ThriftTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThriftTransport").field("gateways", &self.shared.pool.addrs()).finish_non_exhaustive()
    }
}

/// Runs `$call` (an expression using the connection `$conn`) once on a pooled
/// connection: checkout, request timeout, span, error mapping, delivery.
macro_rules! on_connection {
    ($shared:expr, $op:expr, $table:expr, |$conn:ident| $call:expr) => {{
        let shared: &Shared = $shared;
        let (op, table): (Operation, Option<&str>) = ($op, $table);
        let mut pooled = shared.checkout().await?;
        let addr = pooled.addr().to_owned();
        let outcome = {
            let $conn: &mut Connection = pooled.conn();
            shared.timed(op, table, &addr, $call).await
        };
        shared.settle(op, table, &addr, Some(pooled.conn()), outcome)
    }};
}

impl ThriftTransport {
    /// A transport over `pool`.
    pub(crate) fn new(pool: Pool, request_timeout: Duration, max_value_bytes: usize) -> ThriftTransport {
        ThriftTransport {
            shared: Arc::new(Shared { pool, request_timeout, max_value_bytes, answered: AtomicBool::new(false) }),
        }
    }

    /// How the gateways delimit messages.
    pub(crate) fn framing(&self) -> basalt_thrift::Framing {
        self.shared.pool.framing()
    }

    /// One attempt of any gateway call given as a closure on the connection (the admin
    /// calls of `admin.rs`). `table` is the table the
    /// call names, if any: a missing table is answered with its bare name, which maps
    /// to [`Error::TableNotFound`](crate::Error::TableNotFound) only when it is known.
    pub(crate) fn raw<'a, T, F>(&'a self, op: Operation, table: Option<&'a str>, call: F) -> AttemptFuture<'a, T>
    where
        T: Send + 'a,
        F: for<'c> FnOnce(&'c mut Connection) -> Pin<Box<dyn Future<Output = Result<T, CallError>> + Send + 'c>>
            + Send
            + 'a,
    {
        Box::pin(async move { on_connection!(&self.shared, op, table, |conn| call(conn)) })
    }

    #[cfg(test)]
    pub(crate) fn mark_answered(&self, answered: bool) {
        self.shared.answered.store(answered, Ordering::Relaxed);
    }

    /// One attempt on a connection the caller holds (tests of the error mapping).
    #[cfg(test)]
    pub(crate) async fn attempt_on<T>(
        &self,
        op: Operation,
        addr: &str,
        conn: &mut Connection,
        call: impl Future<Output = Result<T, CallError>>,
    ) -> Result<T, AttemptError> {
        let outcome = self.shared.timed(op, None, addr, call).await;
        self.shared.settle(op, None, addr, Some(conn), outcome)
    }
}

type Timed<T> = Result<Result<T, CallError>, tokio::time::error::Elapsed>;

impl Shared {
    /// A connection from the pool (any gateway, the ones up first), within the
    /// request timeout. Nothing is sent yet.
    async fn checkout(&self) -> Result<PooledConnection, AttemptError> {
        let timeout = self.request_timeout;
        match tokio::time::timeout(timeout, self.pool.checkout()).await {
            Ok(Ok(pooled)) => Ok(pooled),
            Ok(Err(e)) => Err(AttemptError::not_sent(Operation::Connect, e)),
            Err(_) => {
                let error = Error::Timeout { operation: Operation::Connect, after: timeout };
                Err(AttemptError::not_sent(Operation::Connect, error))
            }
        }
    }

    /// The call under the request timeout and the `hbase.attempt` span.
    async fn timed<T>(
        &self,
        op: Operation,
        table: Option<&str>,
        addr: &str,
        call: impl Future<Output = Result<T, CallError>>,
    ) -> Timed<T> {
        let span = tracing::debug_span!("hbase.attempt", operation = op.as_str(), table, gateway = addr);
        tokio::time::timeout(self.request_timeout, call).instrument(span).await
    }

    /// Maps a call's outcome. A connection closed or reset before it delivered a
    /// single byte, once this transport has had answers, is [`Error::DroppedBeforeReply`]
    /// (an outage: a load balancer whose gateway is down); before any answer it stays a
    /// plain transport error, as a transport mismatch looks the same and must fail
    /// fast. The delivery is read from the connection: sent once the whole request was
    /// written.
    fn settle<T>(
        &self,
        op: Operation,
        table: Option<&str>,
        addr: &str,
        conn: Option<&mut Connection>,
        outcome: Timed<T>,
    ) -> Result<T, AttemptError> {
        let (received, written) = conn.map_or((false, true), |c| (c.has_received(), c.request_written()));
        let error = match outcome {
            Ok(Ok(value)) => {
                if !self.answered.load(Ordering::Relaxed) {
                    self.answered.store(true, Ordering::Relaxed);
                }
                return Ok(value);
            }
            Ok(Err(e)) if !received && is_connection_dropped(&e) && self.answered.load(Ordering::Relaxed) => {
                Error::DroppedBeforeReply { addr: addr.to_owned(), source: TransportFailure::Gateway(e) }
            }
            Ok(Err(e)) => from_call_in(op, addr, table, e),
            // The abandoned call poisoned the connection; it is closed, not reused.
            Err(_) => Error::Timeout { operation: op, after: self.request_timeout },
        };
        Err(if written { AttemptError::sent(op, error) } else { AttemptError::not_sent(op, error) })
    }

    /// A page from a row reply.
    fn page(batch: RowBatch, source: String, more: MoreRows) -> Page {
        let reply_bytes = batch.reply_bytes().len();
        Page { rows: rows::rows(batch).collect(), reply_bytes, more, source }
    }
}

fn invalid(op: Operation, e: Error) -> AttemptError {
    AttemptError::not_sent(op, e)
}

/// A server-side scanner and the connection it is pinned to: a scanner id means
/// another scanner in any other gateway process, so it is used only here.
struct ThriftScanner {
    shared: Arc<Shared>,
    conn: Option<Detached>,
    id: i32,
    table: String,
}

impl Scanner for ThriftScanner {
    fn next_page(&mut self, rows: u32) -> AttemptFuture<'_, Page> {
        Box::pin(async move {
            let op = Operation::NextPage;
            // The pool's slot bounds the calls in flight; the connection is ours.
            let timeout = self.shared.request_timeout;
            let _slot = match tokio::time::timeout(timeout, self.shared.pool.permit()).await {
                Ok(Ok(slot)) => slot,
                Ok(Err(e)) => return Err(AttemptError::not_sent(Operation::Connect, e)),
                Err(_) => {
                    let error = Error::Timeout { operation: Operation::Connect, after: timeout };
                    return Err(AttemptError::not_sent(Operation::Connect, error));
                }
            };
            let expired = || Error::ScannerExpired { message: "no connection".into() };
            let detached = self.conn.as_mut().ok_or_else(|| AttemptError::not_sent(op, expired()))?;
            let addr = detached.addr().to_owned();
            let want = i32::try_from(rows).unwrap_or(i32::MAX);
            let id = self.id;
            let table = Some(self.table.as_str());
            let conn = detached.conn().ok_or_else(|| AttemptError::not_sent(op, expired()))?;
            let outcome = self.shared.timed(op, table, &addr, conn.get_scanner_rows(id, want)).await;
            let batch = self.shared.settle(op, table, &addr, detached.conn(), outcome)?;
            let more = if batch.is_empty() { MoreRows::No } else { MoreRows::Unknown };
            Ok(Shared::page(batch, addr, more))
        })
    }

    fn close(mut self: Box<Self>) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(async move {
            let Some(mut detached) = self.conn.take() else { return };
            let addr = detached.addr().to_owned();
            if let Some(conn) = detached.conn() {
                if conn.is_reusable() {
                    let op = Operation::CloseScanner;
                    let outcome = self.shared.timed(op, Some(&self.table), &addr, conn.close_scanner(self.id)).await;
                    let _ = self.shared.settle(op, Some(&self.table), &addr, detached.conn(), outcome);
                }
            }
            self.shared.pool.give_back(detached);
        })
    }

    fn is_usable(&self) -> bool {
        self.conn.as_ref().is_some_and(|d| d.is_reusable())
    }
}

/// Gets of a multi-get sent one per call that are in flight at once.
const ONE_BY_ONE_IN_FLIGHT: usize = 16;

/// Whether some of `gets` name a secondary replica. The gateway answers a
/// `getMultiple` or `existsAll` with one batch of its Java client, which plans timeline
/// reads but ignores a target replica id (HBase 2.6's `AsyncRequestFutureImpl`): such
/// gets go one per call, where the id is honoured.
fn targets_secondaries(gets: &[Get]) -> bool {
    gets.iter().any(|get| get.read.replica_id.is_some_and(|id| id > 0))
}

impl Transport for ThriftTransport {
    fn get<'a>(&'a self, table: &'a str, get: &'a Get) -> AttemptFuture<'a, Row> {
        Box::pin(async move {
            let op = Operation::Get;
            let tget = encode::get(get).map_err(|e| invalid(op, e))?;
            let name = table.as_bytes().to_vec();
            let batch = on_connection!(&self.shared, op, Some(table), |c| c.get_row_batch(name, tget))?;
            Ok(rows::rows(batch).next().unwrap_or_default())
        })
    }

    fn get_many<'a>(&'a self, table: &'a str, gets: &'a [Get]) -> AttemptFuture<'a, Vec<Row>> {
        Box::pin(async move {
            if targets_secondaries(gets) {
                // By index: a closure over `&Get` would not be `Send` for every lifetime.
                let calls = futures::stream::iter(0..gets.len()).map(|i| self.get(table, &gets[i]));
                return calls.buffered(ONE_BY_ONE_IN_FLIGHT).try_collect().await;
            }
            let op = Operation::MultiGet;
            let tgets = gets.iter().map(encode::get).collect::<Result<Vec<_>, _>>().map_err(|e| invalid(op, e))?;
            let name = table.as_bytes().to_vec();
            let batch = on_connection!(&self.shared, op, Some(table), |c| c.get_multiple(name, tgets))?;
            Ok(rows::rows(batch).collect())
        })
    }

    fn exists<'a>(&'a self, table: &'a str, gets: &'a [Get]) -> AttemptFuture<'a, Vec<bool>> {
        Box::pin(async move {
            if gets.len() > 1 && targets_secondaries(gets) {
                let calls = futures::stream::iter(0..gets.len()).map(|i| self.exists(table, &gets[i..=i]));
                let found: Vec<Vec<bool>> = calls.buffered(ONE_BY_ONE_IN_FLIGHT).try_collect().await?;
                return Ok(found.into_iter().flatten().collect());
            }
            let op = Operation::Exists;
            let mut tgets = gets.iter().map(encode::get).collect::<Result<Vec<_>, _>>().map_err(|e| invalid(op, e))?;
            let name = table.as_bytes().to_vec();
            if tgets.len() == 1 {
                let tget = tgets.remove(0);
                let found = on_connection!(&self.shared, op, Some(table), |c| c.exists(name, tget))?;
                return Ok(vec![found]);
            }
            let op = Operation::ExistsMany;
            on_connection!(&self.shared, op, Some(table), |c| c.exists_all(name, tgets))
        })
    }

    fn put<'a>(&'a self, table: &'a str, puts: &'a [Put]) -> AttemptFuture<'a, Vec<WriteFailure>> {
        Box::pin(async move {
            if let [put] = puts {
                let op = Operation::Put;
                let tput = encode::put(put, self.shared.max_value_bytes).map_err(|e| invalid(op, e))?;
                let name = table.as_bytes().to_vec();
                on_connection!(&self.shared, op, Some(table), |c| c.put(name, tput))?;
                return Ok(Vec::new());
            }
            // Each attempt encodes the chunk from the caller's puts: nothing is copied.
            // The gateway answers for the whole call: it names no write that failed.
            let name = table.as_bytes();
            on_connection!(&self.shared, Operation::PutMany, Some(table), |c| c.put_rows(name, puts))?;
            Ok(Vec::new())
        })
    }

    fn delete<'a>(&'a self, table: &'a str, deletes: &'a [Delete]) -> AttemptFuture<'a, Vec<WriteFailure>> {
        Box::pin(async move {
            let single = deletes.len() == 1;
            let op = if single { Operation::Delete } else { Operation::DeleteMany };
            let mut tdeletes = Vec::with_capacity(deletes.len());
            for delete in deletes {
                tdeletes.extend(encode::delete(delete).map_err(|e| invalid(op, e))?);
            }
            if single && tdeletes.len() == 1 {
                let tdelete = tdeletes.remove(0);
                let name = table.as_bytes().to_vec();
                on_connection!(&self.shared, op, Some(table), |c| c.delete_single(name, tdelete))?;
                return Ok(Vec::new());
            }
            let name = table.as_bytes();
            let failed = on_connection!(&self.shared, op, Some(table), |c| c.delete_rows(name, &tdeletes))?;
            // HBase names the deletes it could not apply (never, in HBase 2), by row:
            // each is placed at the first delete of that row not placed yet.
            let mut placed = vec![false; deletes.len()];
            let mut failures = Vec::with_capacity(failed.len());
            for refused in failed {
                let at = deletes.iter().enumerate().position(|(i, d)| !placed[i] && d.row == refused.row.as_slice());
                let index = at.unwrap_or(0);
                if let Some(slot) = placed.get_mut(index) {
                    *slot = true;
                }
                let error = Error::Server {
                    message: "deleteMultiple reported this delete as not applied".into(),
                    can_retry: true,
                    exception: None,
                };
                failures.push(WriteFailure { index, error, may_have_run: false });
            }
            Ok(failures)
        })
    }

    fn mutate_row<'a>(&'a self, table: &'a str, mutations: &'a RowMutations) -> AttemptFuture<'a, ()> {
        Box::pin(async move {
            let op = Operation::MutateRow;
            let tmut = encode::row_mutations(mutations, self.shared.max_value_bytes).map_err(|e| invalid(op, e))?;
            let name = table.as_bytes().to_vec();
            on_connection!(&self.shared, op, Some(table), |c| c.mutate_row(name, tmut))
        })
    }

    fn check_and_mutate<'a>(
        &'a self,
        table: &'a str,
        condition: &'a Condition,
        write: CheckedWrite<'a>,
    ) -> AttemptFuture<'a, bool> {
        Box::pin(async move {
            let name = table.as_bytes().to_vec();
            let Condition { row, family, qualifier, op: compare, value } = condition;
            let (row, family, qualifier) = (row.to_vec(), family.to_vec(), qualifier.to_vec());
            let value = value.as_ref().map(|v| v.to_vec()).unwrap_or_default();
            let max = self.shared.max_value_bytes;
            match write {
                CheckedWrite::Put(put) => {
                    let op = Operation::CheckAndPut;
                    let tput = encode::put(put, max).map_err(|e| invalid(op, e))?;
                    on_connection!(&self.shared, op, Some(table), |c| c
                        .check_and_put(name, row, family, qualifier, value, tput))
                }
                CheckedWrite::Delete(delete) => {
                    let op = Operation::CheckAndDelete;
                    let mut tdeletes = encode::delete(delete).map_err(|e| invalid(op, e))?;
                    if tdeletes.len() != 1 {
                        // One TDelete per kind: applied together under the check, as
                        // the gateway's check-and-mutate does.
                        let tmut = encode::delete_as_row_mutations(delete, tdeletes);
                        let compare = encode::compare_op(*compare);
                        return on_connection!(&self.shared, op, Some(table), |c| c
                            .check_and_mutate(name, row, family, qualifier, compare, value, tmut));
                    }
                    let tdelete = tdeletes.remove(0);
                    on_connection!(&self.shared, op, Some(table), |c| c
                        .check_and_delete(name, row, family, qualifier, value, tdelete))
                }
                CheckedWrite::Mutations(mutations) => {
                    let op = Operation::CheckAndMutate;
                    let tmut = encode::row_mutations(mutations, max).map_err(|e| invalid(op, e))?;
                    let compare = encode::compare_op(*compare);
                    on_connection!(&self.shared, op, Some(table), |c| c
                        .check_and_mutate(name, row, family, qualifier, compare, value, tmut))
                }
            }
        })
    }

    fn mutate_row_with_results<'a>(
        &'a self,
        table: &'a str,
        mutations: &'a RowMutations,
        _nonce: OperationNonce,
    ) -> AttemptFuture<'a, Row> {
        // Puts and deletes only (increments and appends are refused by the encoder):
        // nothing to return.
        Box::pin(async move { self.mutate_row(table, mutations).await.map(|()| Row::default()) })
    }

    fn check_and_mutate_with<'a>(
        &'a self,
        _table: &'a str,
        request: &'a CheckAndMutate,
        _nonce: OperationNonce,
    ) -> AttemptFuture<'a, CheckAndMutateResult> {
        // The core sends what Thrift2 can carry through `check_and_mutate`.
        let refusal = encode::check_and_mutate_refusal(request);
        Box::pin(async move { Err(invalid(Operation::CheckAndMutate, refusal.into())) })
    }

    fn increment<'a>(
        &'a self,
        table: &'a str,
        increment: &'a Increment,
        _nonce: OperationNonce,
    ) -> AttemptFuture<'a, Row> {
        // Thrift2 carries no nonce: the gateway's own client draws one per call.
        Box::pin(async move {
            let op = Operation::Increment;
            let tinc = encode::increment(increment).map_err(|e| invalid(op, e))?;
            let name = table.as_bytes().to_vec();
            let result = on_connection!(&self.shared, op, Some(table), |c| c.increment(name, tinc))?;
            Ok(rows::row_from_thrift(result))
        })
    }

    fn append<'a>(&'a self, table: &'a str, append: &'a Append, _nonce: OperationNonce) -> AttemptFuture<'a, Row> {
        Box::pin(async move {
            let op = Operation::Append;
            let tappend = encode::append(append).map_err(|e| invalid(op, e))?;
            let name = table.as_bytes().to_vec();
            let result = on_connection!(&self.shared, op, Some(table), |c| c.append(name, tappend))?;
            Ok(rows::row_from_thrift(result))
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
            let tscan = encode::scan(scan).map_err(|e| invalid(op, e))?;
            let shared = &self.shared;
            let mut pooled = shared.checkout().await?;
            let addr = pooled.addr().to_owned();
            let name = table.as_bytes().to_vec();
            let outcome = shared.timed(op, Some(table), &addr, pooled.conn().open_scanner(name, tscan)).await;
            let id = shared.settle(op, Some(table), &addr, Some(pooled.conn()), outcome)?;
            // The first page on the same connection, within the checkout's slot.
            let op = Operation::NextPage;
            let want = i32::try_from(rows).unwrap_or(i32::MAX);
            let outcome = shared.timed(op, Some(table), &addr, pooled.conn().get_scanner_rows(id, want)).await;
            let first = shared.settle(op, Some(table), &addr, Some(pooled.conn()), outcome);
            let scanner =
                ThriftScanner { shared: Arc::clone(shared), conn: Some(pooled.detach()), id, table: table.to_owned() };
            match first {
                Ok(batch) => {
                    let more = if batch.is_empty() { MoreRows::No } else { MoreRows::Unknown };
                    Ok((Box::new(scanner) as Box<dyn Scanner>, Shared::page(batch, addr, more)))
                }
                Err(e) => {
                    Box::new(scanner).close().await;
                    Err(e)
                }
            }
        })
    }

    fn stateless_page<'a>(&'a self, table: &'a str, scan: &'a ScanRequest, rows: u32) -> AttemptFuture<'a, Page> {
        Box::pin(async move {
            let op = Operation::StatelessPage;
            let mut tscan = encode::scan(scan).map_err(|e| invalid(op, e))?;
            let want = i32::try_from(rows).unwrap_or(i32::MAX);
            // The call reads `want` rows and closes: the region server need not send more.
            tscan.caching = Some(tscan.caching.unwrap_or(want));
            let name = table.as_bytes().to_vec();
            let shared = &self.shared;
            let mut pooled = shared.checkout().await?;
            let addr = pooled.addr().to_owned();
            let outcome =
                shared.timed(op, Some(table), &addr, pooled.conn().get_scanner_results(name, tscan, want)).await;
            let batch = shared.settle(op, Some(table), &addr, Some(pooled.conn()), outcome)?;
            // `getScannerResults` reads until it has `want` rows or the scan ends.
            let last = batch.len() < usize::try_from(want).unwrap_or(usize::MAX);
            Ok(Shared::page(batch, addr, if last { MoreRows::No } else { MoreRows::Unknown }))
        })
    }

    fn capabilities(&self) -> super::Capabilities {
        super::Capabilities {
            // One reply per call: a failing call's writes are in doubt together.
            answers_per_write: false,
            // Thrift2 cannot carry a nonce.
            dedups_by_nonce: false,
            // The gateway's scanner expires while the reader pauses (the scan reopens).
            renews_scanner_leases: false,
            // The gateway parses filter strings.
            parses_filter_strings: false,
        }
    }

    fn region_locations<'a>(&'a self, table: &'a str) -> AttemptFuture<'a, Vec<RegionLocation>> {
        Box::pin(async move {
            let name = table.as_bytes().to_vec();
            let locations = on_connection!(&self.shared, Operation::RegionLocations, Some(table), |c| c
                .get_all_region_locations(name))?;
            Ok(locations.into_iter().map(region_location).collect())
        })
    }

    fn max_reply_bytes(&self) -> usize {
        self.shared.pool.max_response_bytes()
    }

    fn max_in_flight(&self) -> usize {
        self.shared.pool.size()
    }

    fn endpoints(&self) -> Vec<String> {
        self.shared.pool.addrs()
    }

    fn pool_stats(&self) -> PoolStats {
        self.shared.pool.stats()
    }

    fn warm_up(&self, connections: usize) -> Pin<Box<dyn Future<Output = Result<usize, Error>> + Send + '_>> {
        Box::pin(async move {
            let pool = &self.shared.pool;
            let n = connections.min(pool.size());
            let opened = futures::future::join_all((0..n).map(|_| pool.checkout_fresh())).await;
            let mut count = 0;
            let mut last_error = None;
            // Dropping the checked-out connections returns them to the idle lists.
            for result in opened {
                match result {
                    Ok(_) => count += 1,
                    Err(e) => last_error = Some(e),
                }
            }
            match (count, last_error) {
                (0, Some(e)) => Err(e),
                _ => Ok(count),
            }
        })
    }

    fn shutdown(&self) {
        self.shared.pool.shutdown();
    }

    fn admin(&self) -> Option<&dyn super::admin::AdminTransport> {
        Some(self)
    }
}

/// A region location as the gateway describes it.
fn region_location(loc: basalt_thrift::hbase::THRegionLocation) -> RegionLocation {
    RegionLocation {
        start_key: bytes::Bytes::from(loc.region_info.start_key.unwrap_or_default()),
        end_key: bytes::Bytes::from(loc.region_info.end_key.unwrap_or_default()),
        region_id: loc.region_info.region_id,
        host: loc.server_name.host_name,
        port: loc.server_name.port,
    }
}

/// The rows of a decoded reply page, as a scan delivers them (the crate's benchmarks).
#[cfg(feature = "bench-internals")]
pub fn rows_from_batch(page: RowBatch) -> impl ExactSizeIterator<Item = Row> {
    rows::rows(page)
}
