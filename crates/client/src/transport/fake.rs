//! A scripted transport for unit tests of the core's policies (retries, write
//! outcomes, coalescing, scan recovery). It claims nothing about HBase: every
//! behaviour that is HBase's is tested against HBase in `tests/hbase`.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;

use super::PoolStats;
use super::WriteFailure;
use super::{
    AttemptError, AttemptFuture, CheckedWrite, Condition, Delivery, MoreRows, Operation, OperationNonce, Page,
    ScanRequest, Scanner, Transport,
};
use crate::error::Error;
use crate::ops::{Append, Delete, Get, Increment, Put, RowMutations};
use crate::region::RegionLocation;
use crate::row::{Cell, Row};

/// A write a put attempt refuses: its position in the attempt, its error, and whether
/// it may have run.
pub(crate) type Refusal = (usize, fn() -> Error, bool);

/// A failure to play: the delivery it reports and the error it carries.
pub(crate) type Failure = (Delivery, fn() -> Error);

/// A transport over an in-memory sorted table, with failures queued per operation.
#[derive(Default)]
pub(crate) struct FakeTransport {
    /// The table's rows, sorted by key.
    rows: Vec<Row>,
    /// Failures to play, in order, before the operation succeeds.
    failures: Mutex<Vec<(Operation, VecDeque<Failure>)>>,
    /// Every attempt made, in order.
    pub(crate) log: Mutex<Vec<Operation>>,
    /// Scanners opened.
    pub(crate) opened: AtomicUsize,
    /// The nonce of every increment and append attempt, in order.
    pub(crate) nonces: Mutex<Vec<OperationNonce>>,
    /// Whether the fake claims its servers deduplicate by nonce.
    pub(crate) dedups: bool,
    /// Per put attempt, in order: the writes (by position in the attempt) the servers
    /// refuse, with the error and whether it may have run.
    pub(crate) put_refusals: Mutex<VecDeque<Vec<Refusal>>>,
    /// The rows of every put attempt.
    pub(crate) put_rows: Mutex<Vec<Vec<Bytes>>>,
}

impl FakeTransport {
    /// A transport whose table holds one cell per key.
    pub(crate) fn with_keys(keys: &[&str]) -> FakeTransport {
        let mut rows: Vec<Row> = keys
            .iter()
            .map(|k| {
                Row::new(
                    Bytes::copy_from_slice(k.as_bytes()),
                    [Cell::new("d", "q", Bytes::copy_from_slice(k.as_bytes()), 1)],
                )
            })
            .collect();
        rows.sort_by(|a, b| a.key().cmp(b.key()));
        FakeTransport { rows, ..FakeTransport::default() }
    }

    /// The same transport, claiming servers that deduplicate by nonce.
    pub(crate) fn deduplicating(self) -> FakeTransport {
        FakeTransport { dedups: true, ..self }
    }

    /// Queues `failure` for the next attempt of `op` that has none queued before it.
    pub(crate) fn fail(&self, op: Operation, failure: Failure) {
        let mut failures = self.failures.lock().unwrap();
        match failures.iter_mut().find(|(o, _)| *o == op) {
            Some((_, queue)) => queue.push_back(failure),
            None => failures.push((op, VecDeque::from([failure]))),
        }
    }

    /// Logs an attempt of `op` and plays its next queued failure, if any.
    fn attempt(&self, op: Operation) -> Result<(), AttemptError> {
        self.log.lock().unwrap().push(op);
        let mut failures = self.failures.lock().unwrap();
        let next = failures.iter_mut().find(|(o, _)| *o == op).and_then(|(_, queue)| queue.pop_front());
        match next {
            Some((sent, error)) => Err(AttemptError { operation: op, sent, error: Box::new(error()) }),
            None => Ok(()),
        }
    }

    /// How many attempts of `op` were made.
    pub(crate) fn attempts_of(&self, op: Operation) -> usize {
        self.log.lock().unwrap().iter().filter(|o| **o == op).count()
    }

    /// The rows of `scan`, in its order.
    fn rows_of(&self, scan: &ScanRequest) -> Vec<Row> {
        let inside = |key: &[u8]| {
            let (start, stop): (&[u8], &[u8]) = (&scan.start, &scan.stop);
            if scan.reversed {
                (start.is_empty() || key <= start) && (stop.is_empty() || key > stop)
            } else {
                (start.is_empty() || key >= start) && (stop.is_empty() || key < stop)
            }
        };
        let mut rows: Vec<Row> = self.rows.iter().filter(|r| inside(r.key())).cloned().collect();
        if scan.reversed {
            rows.reverse();
        }
        rows
    }

    fn row(&self, key: &[u8]) -> Row {
        self.rows.iter().find(|r| r.key() == key).cloned().unwrap_or_default()
    }
}

/// A scanner over rows taken when it was opened.
struct FakeScanner {
    transport: Arc<FakeTransport>,
    rows: VecDeque<Row>,
}

fn page(rows: &mut VecDeque<Row>, n: u32) -> Page {
    let n = rows.len().min(usize::try_from(n).unwrap_or(usize::MAX));
    let rows: Vec<Row> = rows.drain(..n).collect();
    let more = if rows.is_empty() { MoreRows::No } else { MoreRows::Unknown };
    Page { rows, reply_bytes: 100, more, source: "fake:1".into() }
}

impl Scanner for FakeScanner {
    fn next_page(&mut self, rows: u32) -> AttemptFuture<'_, Page> {
        Box::pin(async move {
            self.transport.attempt(Operation::NextPage)?;
            Ok(page(&mut self.rows, rows))
        })
    }

    fn close(self: Box<Self>) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(async {})
    }

    fn is_usable(&self) -> bool {
        true
    }
}

/// The fake behind an `Arc`, as a client holds it (scanners keep a handle on it).
#[derive(Clone)]
pub(crate) struct SharedFake(pub(crate) Arc<FakeTransport>);

impl Transport for SharedFake {
    fn get<'a>(&'a self, _table: &'a str, get: &'a Get) -> AttemptFuture<'a, Row> {
        Box::pin(async move {
            self.0.attempt(Operation::Get)?;
            Ok(self.0.row(get.row()))
        })
    }

    fn get_many<'a>(&'a self, _table: &'a str, gets: &'a [Get]) -> AttemptFuture<'a, Vec<Row>> {
        Box::pin(async move {
            self.0.attempt(Operation::MultiGet)?;
            Ok(gets.iter().map(|g| self.0.row(g.row())).collect())
        })
    }

    fn exists<'a>(&'a self, _table: &'a str, gets: &'a [Get]) -> AttemptFuture<'a, Vec<bool>> {
        Box::pin(async move {
            self.0.attempt(Operation::Exists)?;
            Ok(gets.iter().map(|g| !self.0.row(g.row()).is_empty()).collect())
        })
    }

    fn put<'a>(&'a self, _table: &'a str, puts: &'a [Put]) -> AttemptFuture<'a, Vec<WriteFailure>> {
        Box::pin(async move {
            self.0.attempt(Operation::Put)?;
            self.0.put_rows.lock().unwrap().push(puts.iter().map(|p| p.row().clone()).collect());
            let refusals = self.0.put_refusals.lock().unwrap().pop_front().unwrap_or_default();
            Ok(refusals
                .into_iter()
                .map(|(index, error, may_have_run)| WriteFailure { index, error: error(), may_have_run })
                .collect())
        })
    }

    fn delete<'a>(&'a self, _table: &'a str, _deletes: &'a [Delete]) -> AttemptFuture<'a, Vec<WriteFailure>> {
        Box::pin(async move { self.0.attempt(Operation::Delete).map(|()| Vec::new()) })
    }

    fn mutate_row<'a>(&'a self, _table: &'a str, _mutations: &'a RowMutations) -> AttemptFuture<'a, ()> {
        Box::pin(async move { self.0.attempt(Operation::MutateRow) })
    }

    fn mutate_row_with_results<'a>(
        &'a self,
        _table: &'a str,
        mutations: &'a RowMutations,
        nonce: OperationNonce,
    ) -> AttemptFuture<'a, Row> {
        self.0.nonces.lock().unwrap().push(nonce);
        Box::pin(async move { self.0.attempt(Operation::MutateRow).map(|()| self.0.row(mutations.row())) })
    }

    fn check_and_mutate<'a>(
        &'a self,
        _table: &'a str,
        _condition: &'a Condition,
        _write: CheckedWrite<'a>,
    ) -> AttemptFuture<'a, bool> {
        Box::pin(async move { self.0.attempt(Operation::CheckAndMutate).map(|()| true) })
    }

    fn increment<'a>(
        &'a self,
        _table: &'a str,
        increment: &'a Increment,
        nonce: OperationNonce,
    ) -> AttemptFuture<'a, Row> {
        self.0.nonces.lock().unwrap().push(nonce);
        Box::pin(async move { self.0.attempt(Operation::Increment).map(|()| self.0.row(increment.row())) })
    }

    fn append<'a>(&'a self, _table: &'a str, append: &'a Append, nonce: OperationNonce) -> AttemptFuture<'a, Row> {
        self.0.nonces.lock().unwrap().push(nonce);
        Box::pin(async move { self.0.attempt(Operation::Append).map(|()| self.0.row(append.row())) })
    }

    fn capabilities(&self) -> super::Capabilities {
        super::Capabilities {
            answers_per_write: true,
            dedups_by_nonce: self.0.dedups,
            renews_scanner_leases: false,
            parses_filter_strings: false,
        }
    }

    fn dedups_by_nonce(&self) -> bool {
        self.0.dedups
    }

    fn open_scanner<'a>(
        &'a self,
        _table: &'a str,
        scan: &'a ScanRequest,
        rows: u32,
    ) -> AttemptFuture<'a, (Box<dyn Scanner>, Page)> {
        Box::pin(async move {
            self.0.attempt(Operation::OpenScanner)?;
            self.0.opened.fetch_add(1, Ordering::Relaxed);
            let mut all: VecDeque<Row> = self.0.rows_of(scan).into();
            if let Some(limit) = scan.limit {
                all.truncate(usize::try_from(limit).unwrap_or(0));
            }
            let first = page(&mut all, rows);
            let scanner = FakeScanner { transport: Arc::clone(&self.0), rows: all };
            Ok((Box::new(scanner) as Box<dyn Scanner>, first))
        })
    }

    fn stateless_page<'a>(&'a self, _table: &'a str, scan: &'a ScanRequest, rows: u32) -> AttemptFuture<'a, Page> {
        Box::pin(async move {
            self.0.attempt(Operation::StatelessPage)?;
            let mut all: VecDeque<Row> = self.0.rows_of(scan).into();
            let mut page = page(&mut all, rows);
            page.more = if all.is_empty() { MoreRows::No } else { MoreRows::Unknown };
            Ok(page)
        })
    }

    fn region_locations<'a>(&'a self, _table: &'a str) -> AttemptFuture<'a, Vec<RegionLocation>> {
        Box::pin(async move {
            self.0.attempt(Operation::RegionLocations)?;
            Ok(Vec::new())
        })
    }

    fn max_reply_bytes(&self) -> usize {
        1 << 20
    }

    fn max_in_flight(&self) -> usize {
        4
    }

    fn endpoints(&self) -> Vec<String> {
        vec!["fake:1".into()]
    }

    fn pool_stats(&self) -> PoolStats {
        PoolStats::default()
    }

    fn warm_up(&self, _connections: usize) -> Pin<Box<dyn Future<Output = Result<usize, Error>> + Send + '_>> {
        Box::pin(async { Ok(0) })
    }

    fn shutdown(&self) {}
}
