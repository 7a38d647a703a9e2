//! The seam between the client's core and the wire: the operations every transport
//! offers, their request and reply types, and the error of one attempt.
//!
//! The core (retries and budget, get coalescing, batched writes, scans with their
//! integrity checks, parallel and salted pieces, the merge, cursors) is written once
//! against [`Transport`]. The Thrift2 gateway is the first implementation
//! ([`thrift::ThriftTransport`]); HBase's native RPC plugs in beside it.
//!
//! What the core expects of an implementation:
//! - **One attempt per call.** A method makes one attempt (its own connection choice
//!   and request timeout included) and never retries: retries, their budget and
//!   back-off belong to the core's retry loop.
//! - **Say whether the request left.** [`AttemptError::sent`] is
//!   [`Delivery::NotSent`] only when the server provably cannot have seen the whole
//!   request (no connection, or the request not completely written); the core retries
//!   a write that is not idempotent only then.
//! - **Requests are the crate's own values** ([`Get`], [`Put`], [`Delete`],
//!   [`RowMutations`], [`Increment`], [`Append`], [`ScanRequest`]): a transport encodes
//!   them in its own file, and a new read option is a field of
//!   [`ReadOptions`] plus a line in each encoder.
//! - **Scanners**: [`Transport::open_scanner`] opens a server-side scanner over the
//!   whole [`ScanRequest`] range and returns it with its first page; the scanner then
//!   pages on its own ([`Scanner::next_page`]). A region boundary inside the range is
//!   the transport's business (native RPC moves to the next region itself); the core
//!   only sees pages in key order. [`Page::more`] says whether rows may follow.
//! - **Administration** is the seam's second part: [`admin::AdminTransport`], handed
//!   out by [`Transport::admin`] (its module says what each transport carries).

pub mod admin;
pub mod cluster;
mod failure;
#[cfg(test)]
pub(crate) mod fake;
pub mod filter_protobuf;
pub mod native;
pub(crate) mod native_security;
#[cfg(test)]
mod tests;
pub mod thrift;

use std::future::Future;
use std::pin::Pin;

use bytes::Bytes;

use crate::batch_action::BatchAction;
use crate::conditional::{CheckAndMutate, CheckAndMutateResult};
use crate::error::{Error, InvalidInput};
use crate::filter::{CompareOp, Filter};
pub use crate::nonce::OperationNonce;
pub use crate::operation::Operation;
use crate::ops::{Append, Delete, Get, Increment, Put, RowMutations};
use crate::options::ReadOptions;
use crate::region::RegionLocation;
use crate::row::Row;
pub use failure::TransportFailure;

/// What one attempt of an operation returns.
pub type AttemptFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, AttemptError>> + Send + 'a>>;

/// Whether the server can have seen an attempt's request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// Provably not: no connection, or the request was not completely written.
    NotSent,
    /// The whole request was written: it may have been applied.
    Sent,
}

/// Why one attempt failed: the operation, whether its request left, and the error.
#[derive(Debug)]
pub struct AttemptError {
    /// What the attempt was doing.
    pub operation: Operation,
    /// Whether the server can have seen the request.
    pub sent: Delivery,
    /// The failure, in the crate's error type (boxed: attempts fail rarely, and a
    /// small `Result` keeps every successful call's future small).
    pub error: Box<Error>,
}

impl AttemptError {
    /// A failure before the request left.
    pub fn not_sent(operation: Operation, error: Error) -> AttemptError {
        AttemptError { operation, sent: Delivery::NotSent, error: Box::new(error) }
    }

    /// A failure after the whole request was written.
    pub fn sent(operation: Operation, error: Error) -> AttemptError {
        AttemptError { operation, sent: Delivery::Sent, error: Box::new(error) }
    }
}

/// One write of a batch that the servers did not apply; the others were applied.
#[derive(Debug)]
pub struct WriteFailure {
    /// The write's position in the batch given to the transport.
    pub index: usize,
    /// Why it failed: the server's exception for this write (final or not), or the
    /// failure of the call that carried it.
    pub error: Error,
    /// Whether it may have been applied all the same (an attempt of it timed out or
    /// lost its connection after sending).
    pub may_have_run: bool,
}

/// Whether rows may follow a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoreRows {
    /// The server said so.
    Yes,
    /// The range is exhausted: no page follows.
    No,
    /// Not known: the next page tells (an empty page ends the scan).
    Unknown,
}

/// One page of a scan.
#[derive(Debug)]
pub struct Page {
    /// The rows (or parts of rows, with `batch`), in the scan's order.
    pub rows: Vec<Row>,
    /// The size of the reply on the wire: page sizes grow toward a byte target.
    pub reply_bytes: usize,
    /// Whether rows may follow.
    pub more: MoreRows,
    /// The server (gateway or region server) that answered, for error messages.
    pub source: String,
}

/// A scan as the wire sees it, for one (re)open: the core has already moved the bounds
/// to the scan's position and folded its stop conditions into the filter.
#[derive(Debug, Clone)]
pub struct ScanRequest {
    /// First row (forward: inclusive lower bound; reversed: inclusive upper bound).
    /// Empty: from the table's edge.
    pub start: Bytes,
    /// Row where the scan stops, exclusive. Empty: to the table's edge.
    pub stop: Bytes,
    /// Backward, from `start` down to `stop`.
    pub reversed: bool,
    /// Columns, versions, time ranges, caching, batch, block caching. Its `filter` is
    /// ignored: [`ScanRequest::filter`] is the one sent.
    pub read: ReadOptions,
    /// The filter to send (the caller's, possibly combined with a stop filter).
    pub filter: Option<Filter>,
    /// Most rows the server should return over the scanner's life.
    pub limit: Option<i32>,
    /// Java's `loadColumnFamiliesOnDemand` (`None`: the region server's default).
    pub on_demand: Option<bool>,
    /// Whether the transport may ask for the scanner's next page before the current one
    /// is read. Native RPC does (one more page held); a gateway's scanner pages only
    /// when asked. Off when the scan's fetches wait on a shared gate (a salted scan's
    /// buckets), which bounds the calls in flight.
    pub fetch_ahead: bool,
    /// Raw scans, per-family windows, partial rows (each transport carries or refuses
    /// them by name).
    pub(crate) extras: crate::request::ScanExtras,
}

/// The condition of a check-and-mutate.
#[derive(Debug, Clone)]
pub struct Condition {
    /// The row checked (and written).
    pub row: Bytes,
    /// The cell's family.
    pub family: Bytes,
    /// The cell's qualifier.
    pub qualifier: Bytes,
    /// How the cell compares to `value`.
    pub op: CompareOp,
    /// The value compared; `None`: the cell must be absent.
    pub value: Option<Bytes>,
}

/// What a check-and-mutate applies when its condition holds.
#[derive(Debug, Clone, Copy)]
pub enum CheckedWrite<'a> {
    /// One put.
    Put(&'a Put),
    /// One delete, of any kinds (the gateway sends several kinds as row mutations).
    Delete(&'a Delete),
    /// Puts and deletes on the row.
    Mutations(&'a RowMutations),
}

/// An open server-side scanner. Dropping it without [`Scanner::close`] may leave the
/// scanner open on the server until its lease expires.
pub trait Scanner: Send {
    /// The next page, of up to `rows` rows.
    fn next_page(&mut self, rows: u32) -> AttemptFuture<'_, Page>;
    /// Closes the scanner (best effort: a failure is not reported).
    fn close(self: Box<Self>) -> Pin<Box<dyn Future<Output = ()> + Send>>;
    /// Whether the scanner can still be paged (its connection is alive).
    fn is_usable(&self) -> bool;
}

/// Counters describing a client's connections over its life so far (the gateway's
/// pool, or the native transport's connections to region servers).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Connections opened.
    pub opened: u64,
    /// Idle connections found dead (closed by the server) and replaced.
    pub replaced_dead: u64,
    /// Connections discarded after an abandoned or failed call.
    pub discarded_poisoned: u64,
    /// Connections discarded for having been idle longer than `max_idle`.
    pub discarded_idle: u64,
    /// Failed connection attempts.
    pub connect_failures: u64,
    /// `getMultiple` calls that answered several coalesced single-row gets (see
    /// [`ClientBuilder::gets_in_flight`](crate::ClientBuilder::gets_in_flight)).
    pub coalesced_calls: u64,
    /// Single-row gets answered by those calls.
    pub coalesced_gets: u64,
}

/// What a transport can promise, beyond the operations every transport answers alike.
/// Code that must know (a caller deciding how to report a failed batch, a test) asks
/// these instead of asking which transport it runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Capabilities {
    /// A failed `put_many` / `delete_many` says for each write whether it was applied,
    /// refused, or may have been (the servers answer per write); without it, the
    /// writes of a failing call are reported as in doubt together.
    pub answers_per_write: bool,
    /// A retried increment or append is recognised by its nonce and applied once, so an
    /// unknown outcome is retried rather than reported.
    pub dedups_by_nonce: bool,
    /// An open scan keeps its server-side scanner alive while the reader pauses (no
    /// reopen after a pause longer than the server's scanner lease).
    pub renews_scanner_leases: bool,
    /// A filter string is parsed before sending, so a malformed one is refused as
    /// invalid input; without it, the server refuses it.
    pub parses_filter_strings: bool,
}

/// The operations the core needs from a way of reaching HBase. Every method is one
/// attempt (see the module's documentation).
pub trait Transport: Send + Sync + 'static {
    /// One row (empty when missing).
    fn get<'a>(&'a self, table: &'a str, get: &'a Get) -> AttemptFuture<'a, Row>;
    /// Several rows, one answer per get, in order (empty rows for missing ones).
    fn get_many<'a>(&'a self, table: &'a str, gets: &'a [Get]) -> AttemptFuture<'a, Vec<Row>>;
    /// Which server would answer a get of `row`, as far as the transport knows without
    /// a call: equal numbers, same server. Concurrent single gets are coalesced per
    /// server with it. `None` (this default): not known, or one path for every row.
    fn get_route(&self, table: &str, row: &[u8]) -> Option<u64> {
        let _ = (table, row);
        None
    }
    /// Whether each get finds something.
    fn exists<'a>(&'a self, table: &'a str, gets: &'a [Get]) -> AttemptFuture<'a, Vec<bool>>;
    /// Writes puts (applied row by row); the ones the servers did not apply, each with
    /// its own error (an error of the attempt itself when the call as a whole failed).
    fn put<'a>(&'a self, table: &'a str, puts: &'a [Put]) -> AttemptFuture<'a, Vec<WriteFailure>>;
    /// Applies deletes, each of a single kind (see `Delete::split_by_kind`); the ones
    /// the servers did not apply, as for [`Transport::put`].
    fn delete<'a>(&'a self, table: &'a str, deletes: &'a [Delete]) -> AttemptFuture<'a, Vec<WriteFailure>>;
    /// Puts and deletes applied to one row atomically.
    fn mutate_row<'a>(&'a self, table: &'a str, mutations: &'a RowMutations) -> AttemptFuture<'a, ()>;
    /// Applies `write` if `condition` holds; true when applied.
    fn check_and_mutate<'a>(
        &'a self,
        table: &'a str,
        condition: &'a Condition,
        write: CheckedWrite<'a>,
    ) -> AttemptFuture<'a, bool>;
    /// Applies row mutations that may hold increments and appends (which carry `nonce`,
    /// the operation's, on every attempt); the increments' and appends' new values, in
    /// the order of the mutations. A transport that cannot carry them refuses them
    /// before sending (this default does).
    fn mutate_row_with_results<'a>(
        &'a self,
        table: &'a str,
        mutations: &'a RowMutations,
        nonce: OperationNonce,
    ) -> AttemptFuture<'a, Row> {
        let _ = (table, mutations, nonce);
        Box::pin(async move { Err(AttemptError::not_sent(Operation::MutateRow, refused_here())) })
    }
    /// Applies a check-and-mutate that [`Transport::check_and_mutate`] cannot express
    /// (a filter or a time range in the condition, an increment or append in the
    /// action); `nonce` as for increments. This default refuses it before sending.
    fn check_and_mutate_with<'a>(
        &'a self,
        table: &'a str,
        request: &'a CheckAndMutate,
        nonce: OperationNonce,
    ) -> AttemptFuture<'a, CheckAndMutateResult> {
        let _ = (table, request, nonce);
        Box::pin(async move { Err(AttemptError::not_sent(Operation::CheckAndMutate, refused_here())) })
    }
    /// A mixed batch in one round of calls (one per region server), one answer per
    /// action in order: a get's row, an increment's or append's new values, an empty
    /// row for a put or delete, or the action's own error
    /// ([`Error::WriteOutcomeUnknown`] when a write may have been applied). `nonces`
    /// holds each increment's and append's nonce. `None`: the transport has no mixed
    /// batch (the core then sends the actions as separate calls; this default).
    fn batch<'a>(
        &'a self,
        table: &'a str,
        actions: &'a [BatchAction],
        nonces: &'a [Option<OperationNonce>],
    ) -> Option<AttemptFuture<'a, Vec<Result<Row, Error>>>> {
        let _ = (table, actions, nonces);
        None
    }
    /// Adds to counters; the row with the new values. `nonce` is the operation's: the
    /// same on every attempt (see [`Transport::dedups_by_nonce`]).
    fn increment<'a>(
        &'a self,
        table: &'a str,
        increment: &'a Increment,
        nonce: OperationNonce,
    ) -> AttemptFuture<'a, Row>;
    /// Appends to cells; the row with the new values. `nonce` as for increments.
    fn append<'a>(&'a self, table: &'a str, append: &'a Append, nonce: OperationNonce) -> AttemptFuture<'a, Row>;
    /// Opens a scanner and reads its first page of up to `rows` rows.
    fn open_scanner<'a>(
        &'a self,
        table: &'a str,
        scan: &'a ScanRequest,
        rows: u32,
    ) -> AttemptFuture<'a, (Box<dyn Scanner>, Page)>;
    /// Up to `rows` rows of `scan` from a scanner opened and closed in the same call.
    /// [`MoreRows::No`] when the page is known to be the last.
    fn stateless_page<'a>(&'a self, table: &'a str, scan: &'a ScanRequest, rows: u32) -> AttemptFuture<'a, Page>;
    /// The table's regions (any order).
    fn region_locations<'a>(&'a self, table: &'a str) -> AttemptFuture<'a, Vec<RegionLocation>>;

    /// What this transport can promise (see [`Capabilities`]).
    fn capabilities(&self) -> Capabilities;

    /// Whether the servers recognise a retried increment or append by the operation's
    /// nonce and apply it once: the core may then retry one whose outcome is unknown
    /// (a timeout, a lost connection), as HBase's Java client does. A transport that
    /// cannot carry the nonce says no: such a write is then never resent once sent.
    fn dedups_by_nonce(&self) -> bool {
        false
    }

    /// The largest reply accepted: pages are sized below it.
    fn max_reply_bytes(&self) -> usize;
    /// Most calls in flight at once (the pool's size).
    fn max_in_flight(&self) -> usize;
    /// Bytes a plain scan's page grows to when its caching is not set (see
    /// [`crate::tuning::PAGE_TARGET_BYTES`]).
    fn plain_page_bytes(&self) -> usize {
        crate::scan::PAGE_TARGET_BYTES
    }
    /// The servers this transport talks to, for error messages.
    fn endpoints(&self) -> Vec<String>;
    /// Counters of the connection pool.
    fn pool_stats(&self) -> PoolStats;
    /// Opens up to `connections` connections now; how many were opened.
    fn warm_up(&self, connections: usize) -> Pin<Box<dyn Future<Output = Result<usize, Error>> + Send + '_>>;
    /// Closes idle connections and fails every later call with `Error::ClientClosed`.
    fn shutdown(&self);
    /// The administrative calls ([`admin::AdminTransport`]); `None` when this
    /// transport has none (every admin call then fails, saying so).
    fn admin(&self) -> Option<&dyn admin::AdminTransport> {
        None
    }
}

/// The refusal of the trait's defaults: the transport cannot carry the request.
fn refused_here() -> Error {
    InvalidInput::Untranslatable {
        what: "this request",
        why: "the transport cannot carry increments, appends, filters or time ranges in atomic row writes \
              (native RPC carries them)",
    }
    .into()
}
