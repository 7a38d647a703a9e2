//! Scans as `futures::Stream`s of rows.
//!
//! A scan runs in a background task that pages through `openScanner` /
//! `getScannerRows`, fetching the next page only once the consumer has taken the
//! previous one (one page ahead, so memory is bounded by two pages). Dropping the
//! stream stops the task, which closes the server-side scanner. When the server
//! forgets the scanner (the consumer paused longer than the scanner timeout: "Invalid
//! scanner Id") or the connection breaks, the scan reopens just after the last row it
//! returned and continues: no row twice, no row missed.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use basalt_thrift::hbase::TScan;
use bytes::Bytes;
use futures::Stream;
use tokio::sync::mpsc;
use tracing::Instrument;

use crate::client::Client;
use crate::error::{Error, InvalidInput, Result};
use crate::filter::Filter;
use crate::ops::{columns_to_thrift, render_filter, time_range, ColumnSpec};
use crate::retry::RetryDecision;
use crate::row::Row;

/// Rows per page when none is set.
pub const DEFAULT_CACHING: u32 = 500;

/// A scan over `[start, stop)` of row keys, forward or reversed. Bounds are always
/// given in key order, whatever the direction: a reversed scan of `[b, d)` yields the
/// rows of `[b, d)` from the largest down (HBase's own reversed `TScan` starts at the
/// *larger* key; Basalt translates).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scan {
    pub(crate) start: Bytes,
    pub(crate) stop: Bytes,
    columns: Vec<ColumnSpec>,
    filter: Option<Filter>,
    time_range: Option<(i64, i64)>,
    max_versions: Option<i32>,
    pub(crate) caching: u32,
    batch: Option<i32>,
    pub(crate) limit: Option<u64>,
    pub(crate) reversed: bool,
    cache_blocks: Option<bool>,
    /// Shared limit on concurrent page fetches (salted scans set it).
    pub(crate) gate: Option<FetchGate>,
}

/// A semaphore bounding how many scans fetch a page at the same moment.
#[derive(Clone)]
pub(crate) struct FetchGate(pub(crate) Arc<tokio::sync::Semaphore>);

impl std::fmt::Debug for FetchGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FetchGate")
    }
}

impl PartialEq for FetchGate {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for FetchGate {}

impl Default for Scan {
    fn default() -> Self {
        Scan::new()
    }
}

impl Scan {
    /// A full-table forward scan.
    pub fn new() -> Scan {
        Scan {
            start: Bytes::new(),
            stop: Bytes::new(),
            columns: Vec::new(),
            filter: None,
            time_range: None,
            max_versions: None,
            caching: DEFAULT_CACHING,
            batch: None,
            limit: None,
            reversed: false,
            cache_blocks: None,
            gate: None,
        }
    }

    /// Rows with keys `>= start` (inclusive; empty: from the first row).
    pub fn start(mut self, start: impl Into<Bytes>) -> Scan {
        self.start = start.into();
        self
    }

    /// Rows with keys `< stop` (exclusive; empty: to the last row).
    pub fn stop(mut self, stop: impl Into<Bytes>) -> Scan {
        self.stop = stop.into();
        self
    }

    /// Rows whose key starts with `prefix`: `[prefix, successor(prefix))`, so
    /// `host1` never matches `host12`'s rows unless they share the prefix bytes.
    pub fn prefix(mut self, prefix: impl Into<Bytes>) -> Scan {
        let prefix = prefix.into();
        self.stop = basalt_rowkey::prefix_successor(&prefix).unwrap_or_default();
        self.start = prefix;
        self
    }

    /// Only this column (may be called repeatedly).
    pub fn column(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Scan {
        self.columns.push(ColumnSpec::Column(family.into(), qualifier.into()));
        self
    }

    /// Every column of this family (may be called repeatedly).
    pub fn family(mut self, family: impl Into<Bytes>) -> Scan {
        self.columns.push(ColumnSpec::Family(family.into()));
        self
    }

    /// A server-side filter.
    pub fn filter(mut self, filter: Filter) -> Scan {
        self.filter = Some(filter);
        self
    }

    /// Only versions with `min <= timestamp < max`.
    pub fn time_range(mut self, min: i64, max: i64) -> Scan {
        self.time_range = Some((min, max));
        self
    }

    /// Up to `n` versions per column (default 1).
    pub fn max_versions(mut self, n: u32) -> Scan {
        self.max_versions = Some(i32::try_from(n).unwrap_or(i32::MAX));
        self
    }

    /// Rows per round trip (default [`DEFAULT_CACHING`]); also the page size.
    pub fn caching(mut self, rows: u32) -> Scan {
        self.caching = rows;
        self
    }

    /// At most `cells` cells per returned item: wide rows come back in parts, each
    /// a [`Row`] with `partial = true` except the last.
    pub fn batch(mut self, cells: u32) -> Scan {
        self.batch = Some(i32::try_from(cells).unwrap_or(i32::MAX));
        self
    }

    /// At most `rows` rows in all.
    pub fn limit(mut self, rows: u64) -> Scan {
        self.limit = Some(rows);
        self
    }

    /// From the largest key down.
    pub fn reversed(mut self, reversed: bool) -> Scan {
        self.reversed = reversed;
        self
    }

    /// Whether the blocks read are cached on the region server.
    pub fn cache_blocks(mut self, cache: bool) -> Scan {
        self.cache_blocks = Some(cache);
        self
    }

    /// The inclusive lower bound (empty: unbounded).
    pub fn start_key(&self) -> &Bytes {
        &self.start
    }

    /// The exclusive upper bound (empty: unbounded).
    pub fn stop_key(&self) -> &Bytes {
        &self.stop
    }

    /// Whether the scan runs from the largest key down.
    pub fn is_reversed(&self) -> bool {
        self.reversed
    }

    pub(crate) fn validate(&self) -> Result<()> {
        if self.caching == 0 {
            return Err(InvalidInput::Option("caching must be at least 1".into()).into());
        }
        if self.batch == Some(0) {
            return Err(InvalidInput::Option("batch must be at least 1".into()).into());
        }
        if self.max_versions == Some(0) {
            return Err(InvalidInput::Option("max_versions must be at least 1".into()).into());
        }
        if !self.start.is_empty() && !self.stop.is_empty() && self.start > self.stop {
            return Err(InvalidInput::Option("scan start is after its stop".into()).into());
        }
        columns_to_thrift(&self.columns)?;
        render_filter(&self.filter)?;
        time_range(self.time_range)?;
        Ok(())
    }
}

/// Where a scan stands: the part of `[lower, upper)` not yet returned, and the parts of
/// a partially returned wide row to skip after a reopen.
#[derive(Debug, Clone)]
struct Cursor {
    lower: Bytes,
    upper: Bytes,
    /// (key, items already returned for it): set while a batched row is incomplete.
    partial: Option<(Bytes, usize)>,
}

impl Cursor {
    fn advance(&mut self, row: &Row, reversed: bool) {
        if row.partial {
            match &mut self.partial {
                Some((key, n)) if *key == row.key => *n += 1,
                _ => self.partial = Some((row.key.clone(), 1)),
            }
            return;
        }
        self.partial = None;
        if reversed {
            self.upper = row.key.clone();
        } else {
            let mut next = Vec::with_capacity(row.key.len() + 1);
            next.extend_from_slice(&row.key);
            next.push(0);
            self.lower = Bytes::from(next);
        }
    }
}

/// Live counters of one scan, shared with the stream's owner.
#[derive(Debug, Default)]
pub struct ScanStats {
    rows: AtomicU64,
    pages: AtomicU64,
    reopens: AtomicU64,
    first_row_micros: AtomicU64,
    finished_micros: AtomicU64,
}

impl ScanStats {
    /// Rows delivered to the stream so far.
    pub fn rows(&self) -> u64 {
        self.rows.load(Ordering::Relaxed)
    }
    /// `getScannerRows` pages fetched.
    pub fn pages(&self) -> u64 {
        self.pages.load(Ordering::Relaxed)
    }
    /// Times the scanner was reopened after expiring or losing its connection.
    pub fn reopens(&self) -> u64 {
        self.reopens.load(Ordering::Relaxed)
    }
    /// Time from the start until the scan finished (ended, failed or was dropped).
    pub fn finished_after(&self) -> Option<Duration> {
        match self.finished_micros.load(Ordering::Relaxed) {
            0 => None,
            us => Some(Duration::from_micros(us)),
        }
    }
    /// Time from the start to the first page with rows, if any arrived.
    pub fn time_to_first_row(&self) -> Option<Duration> {
        match self.first_row_micros.load(Ordering::Relaxed) {
            0 => None,
            us => Some(Duration::from_micros(us)),
        }
    }
}

/// The rows of a scan, as a `Stream`. Dropping it cancels the scan and closes the
/// server-side scanner.
pub struct RowStream {
    pages: mpsc::Receiver<Result<Vec<Row>>>,
    current: VecDeque<Row>,
    stats: Arc<ScanStats>,
    done: bool,
}

impl std::fmt::Debug for RowStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowStream").field("buffered", &self.current.len()).finish_non_exhaustive()
    }
}

impl RowStream {
    pub(crate) fn start(client: Client, table: String, scan: Scan) -> Result<RowStream> {
        scan.validate()?;
        let (tx, rx) = mpsc::channel(1);
        let stats = Arc::new(ScanStats::default());
        let worker = Worker {
            cursor: Cursor { lower: scan.start.clone(), upper: scan.stop.clone(), partial: None },
            remaining: scan.limit,
            client,
            table,
            scan,
            stats: Arc::clone(&stats),
            started: Instant::now(),
            skip: None,
        };
        let span = tracing::debug_span!("hbase.scan", table = %worker.table, reversed = worker.scan.reversed);
        tokio::spawn(worker.run(tx).instrument(span));
        Ok(RowStream { pages: rx, current: VecDeque::new(), stats, done: false })
    }

    /// Live counters of this scan.
    pub fn stats(&self) -> Arc<ScanStats> {
        Arc::clone(&self.stats)
    }

    /// The next page of rows as one batch (empty when the scan is over); an
    /// alternative to polling row by row.
    pub async fn next_page(&mut self) -> Option<Result<Vec<Row>>> {
        if !self.current.is_empty() {
            return Some(Ok(self.current.drain(..).collect()));
        }
        if self.done {
            return None;
        }
        let page = self.pages.recv().await;
        if page.is_none() {
            self.done = true;
        }
        page
    }
}

impl Stream for RowStream {
    type Item = Result<Row>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            if let Some(row) = self.current.pop_front() {
                return Poll::Ready(Some(Ok(row)));
            }
            if self.done {
                return Poll::Ready(None);
            }
            match self.pages.poll_recv(cx) {
                Poll::Ready(Some(Ok(rows))) => self.current = rows.into(),
                Poll::Ready(Some(Err(e))) => {
                    self.done = true;
                    return Poll::Ready(Some(Err(e)));
                }
                Poll::Ready(None) => {
                    self.done = true;
                    return Poll::Ready(None);
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

struct Worker {
    client: Client,
    table: String,
    scan: Scan,
    cursor: Cursor,
    remaining: Option<u64>,
    stats: Arc<ScanStats>,
    started: Instant,
    /// After a reopen inside a batched row: (key, parts already returned) to drop.
    skip: Option<(Bytes, usize)>,
}

/// An open server-side scanner and the gateway it lives on. No connection is held
/// between pages, so any number of scans can be open over a small pool.
struct Open {
    gateway: String,
    id: i32,
}

impl Worker {
    async fn run(mut self, tx: mpsc::Sender<Result<Vec<Row>>>) {
        let mut open: Option<Open> = None;
        let mut failures = 0u32;
        loop {
            if self.remaining == Some(0) {
                break;
            }
            // Wait until the consumer has room: at most one page ahead.
            let Ok(permit) = tx.reserve().await else {
                break; // the stream was dropped
            };
            match self.next_page(&mut open).await {
                Ok(Some(rows)) => {
                    failures = 0;
                    if !rows.is_empty() {
                        permit.send(Ok(rows));
                    }
                }
                Ok(None) => break,
                Err(error) => {
                    open = None; // its connection is suspect; the scanner is gone or will expire
                    failures += 1;
                    match self.client.inner.retry.decide(failures, &error) {
                        RetryDecision::Retry { after } => {
                            self.stats.reopens.fetch_add(1, Ordering::Relaxed);
                            tracing::debug!(%error, "scan interrupted; reopening after the last row returned");
                            tokio::time::sleep(after).await;
                        }
                        RetryDecision::Fail => {
                            permit.send(Err(error));
                            break;
                        }
                    }
                }
            }
        }
        if let Some(open) = open {
            self.close(open).await;
        }
        let micros = u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX).max(1);
        self.stats.finished_micros.store(micros, Ordering::Relaxed);
    }

    async fn close(&self, open: Open) {
        if let Ok(mut conn) = self.client.checkout(Some(&open.gateway)).await {
            let timeout = self.client.inner.request_timeout;
            let _ = tokio::time::timeout(timeout, conn.conn().close_scanner(open.id)).await;
        }
    }

    /// Fetches the next page; `Ok(None)` when the scan is over.
    async fn next_page(&mut self, open: &mut Option<Open>) -> Result<Option<Vec<Row>>> {
        let timeout = self.client.inner.request_timeout;
        let _gate = match &self.scan.gate {
            Some(gate) => gate.0.clone().acquire_owned().await.ok(),
            None => None,
        };
        let mut conn = self.client.checkout(open.as_ref().map(|o| o.gateway.as_str())).await?;
        if open.is_none() {
            let tscan = self.tscan()?;
            let addr = conn.addr().to_owned();
            let id = tokio::time::timeout(timeout, conn.conn().open_scanner(self.table.as_bytes().to_vec(), tscan))
                .await
                .map_err(|_| Error::Timeout { operation: "open_scanner", after: timeout })?
                .map_err(|e| Error::from_call(&addr, Some(&self.table), e))?;
            *open = Some(Open { gateway: addr, id });
            self.skip = self.cursor.partial.clone();
        }
        let Some(state) = open.as_mut() else {
            return Ok(None);
        };
        let want = match self.remaining {
            // One spare row covers the reversed scan's inclusive start, which may be dropped.
            Some(n) => n.saturating_add(1).min(u64::from(self.scan.caching)),
            None => u64::from(self.scan.caching),
        };
        let want = i32::try_from(want).unwrap_or(i32::MAX);
        let results = tokio::time::timeout(timeout, conn.conn().get_scanner_rows(state.id, want))
            .await
            .map_err(|_| Error::Timeout { operation: "get_scanner_rows", after: timeout })?
            .map_err(|e| Error::from_call(&state.gateway, Some(&self.table), e))?;
        self.stats.pages.fetch_add(1, Ordering::Relaxed);
        if results.is_empty() {
            if let Some(state) = open.take() {
                let _ = tokio::time::timeout(timeout, conn.conn().close_scanner(state.id)).await;
            }
            return Ok(None);
        }
        drop(conn);
        let mut rows = Vec::with_capacity(results.len());
        for result in results {
            let row = Row::from_thrift(result);
            if !self.keep(&row) {
                continue;
            }
            self.cursor.advance(&row, self.scan.reversed);
            let complete = !row.partial;
            rows.push(row);
            if complete {
                if let Some(n) = &mut self.remaining {
                    *n -= 1;
                    if *n == 0 {
                        break;
                    }
                }
            }
        }
        if !rows.is_empty() {
            if self.stats.rows.load(Ordering::Relaxed) == 0 {
                let micros = u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX).max(1);
                self.stats.first_row_micros.store(micros, Ordering::Relaxed);
            }
            self.stats.rows.fetch_add(rows.len() as u64, Ordering::Relaxed);
        }
        Ok(Some(rows))
    }

    /// Drops what the server may send that the cursor excludes: the row at a reversed
    /// scan's (inclusive) start, the parts of a batched row already returned.
    fn keep(&mut self, row: &Row) -> bool {
        if let Some((key, n)) = &mut self.skip {
            if *key == row.key && *n > 0 {
                *n -= 1;
                return false;
            }
            self.skip = None;
        }
        if self.scan.reversed {
            if !self.cursor.upper.is_empty() && row.key >= self.cursor.upper {
                return false;
            }
            if !self.cursor.lower.is_empty() && row.key < self.cursor.lower {
                return false;
            }
        }
        true
    }

    fn tscan(&self) -> Result<TScan> {
        let scan = &self.scan;
        let mut filter = scan.filter.clone();
        let (start, stop) = if scan.reversed {
            // HBase's reversed scan: start is the larger (inclusive) key, stop the
            // smaller (exclusive) one.
            let start = match &self.cursor.partial {
                Some((key, _)) => key.clone(),
                None => self.cursor.upper.clone(),
            };
            let lower = &self.cursor.lower;
            let stop = if lower.is_empty() {
                Bytes::new()
            } else if lower.last() == Some(&0) {
                // Everything >= lower is exactly everything > lower minus its last 0x00.
                lower.slice(..lower.len() - 1)
            } else {
                // No finite exclusive bound exists: stop server-side at `lower`
                // inclusively, and filter on our side as well.
                let stop_filter = Filter::inclusive_stop(lower.clone());
                filter = Some(match filter {
                    Some(f) => f.and(stop_filter),
                    None => stop_filter,
                });
                Bytes::new()
            };
            (start, stop)
        } else {
            let start = match &self.cursor.partial {
                Some((key, _)) => key.clone(),
                None => self.cursor.lower.clone(),
            };
            (start, self.cursor.upper.clone())
        };
        let server_limit = self.remaining.map(|n| i32::try_from(n.saturating_add(1)).unwrap_or(i32::MAX));
        Ok(TScan::new(
            non_empty(start),
            non_empty(stop),
            columns_to_thrift(&scan.columns)?,
            i32::try_from(scan.caching).unwrap_or(i32::MAX),
            scan.max_versions,
            time_range(scan.time_range)?,
            render_filter(&filter)?,
            scan.batch,
            None,
            None,
            scan.reversed,
            scan.cache_blocks,
            None,
            None,
            server_limit,
            None,
            None,
            None,
        ))
    }
}

fn non_empty(b: Bytes) -> Option<Vec<u8>> {
    if b.is_empty() {
        None
    } else {
        Some(b.to_vec())
    }
}
