//! The task behind a [`RowStream`](crate::RowStream): pages, positions and recovery.
//!
//! - **One call path**: every call (open, page, close) is one attempt of the client's
//!   [`Transport`](crate::transport::Transport), and retries use
//!   [`Attempts::retry_after`](crate::attempt::Attempts::retry_after) (policy and
//!   budget), like every other call.
//! - **Scanners**: a server-side scanner is the transport's
//!   [`Scanner`]; when it can no longer be paged (its connection was lost), the scan
//!   reopens from its position.
//! - **Checked pages**: every row of a page must lie in the part of the range not yet
//!   returned, in the scan's direction; a page that breaks this is dropped whole and
//!   the scan reopens, and a second bad page in a row ends the scan with
//!   [`Error::ScanIntegrity`].
//! - **Recovery**: an expired scanner or a lost idle connection is reopened at once,
//!   whatever the retry policy (only a repeated failure without progress ends the
//!   scan); other failures follow the retry policy within the retry budget.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use basalt_rowkey::ScanRange;
use bytes::Bytes;
use tokio::sync::{mpsc, Semaphore};
use tracing::Instrument;

use crate::client::Client;
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::metrics;
use crate::paging::{PagePlan, PageSizer};
use crate::row::Row;
use crate::scan::{after_row, key_before, Scan, ScanPaging, ScanStats};
use crate::transport::{MoreRows, Operation, ScanRequest, Scanner};
use crate::validate;

/// Reopens after expiry or a lost connection allowed without a page in between.
const MAX_QUIET_REOPENS: u32 = 3;

/// Where a scan stands: the part of `[lower, upper)` not yet returned, and the parts of
/// a partially returned wide row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Position {
    pub(crate) lower: Bytes,
    pub(crate) upper: Bytes,
    /// (key, items already returned for it): set while a batched row may have more
    /// parts. HBase flags a row's last part as partial when hidden older versions
    /// follow it, so a row is known complete only at a non-partial part or when
    /// another row's key (or the end of the scan) arrives.
    pub(crate) partial: Option<(Bytes, usize)>,
    /// The last complete row returned since `lower`/`upper` were brought up to date by
    /// [`Position::settle`]: a page costs one [`after_row`], not one per row.
    last: Option<Bytes>,
}

impl Position {
    /// Moves `lower`/`upper` past the last complete row returned.
    fn settle(&mut self, reversed: bool) {
        if let Some(last) = self.last.take() {
            (self.lower, self.upper) = after_row(&self.lower, &self.upper, &last, reversed);
        }
    }
}

/// A page that breaks the scan's range or order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rejected(pub(crate) String);

/// The pure part of a scan: position, limit, and the check of each page.
///
/// The limit counts rows as the Java client does: a row counts when its first part
/// arrives (its key differs from the previous part's), and once the limit is used up
/// the scan still delivers the remaining parts of the last row, stopping at the next
/// row's key.
#[derive(Debug, Clone)]
pub(crate) struct Tracker {
    pub(crate) position: Position,
    pub(crate) reversed: bool,
    /// Rows the limit still allows to start.
    pub(crate) remaining: Option<u64>,
    /// After a reopen inside a batched row: (key, parts already returned) to drop.
    skip: Option<(Bytes, usize)>,
    /// The limit is used up and the next row has begun: nothing more is delivered.
    done: bool,
    /// Reversed scans: send the greatest key below the exclusive upper bound as the
    /// (inclusive) start row, so that the server never sees the excluded row (its
    /// filters would count it or stop on it). Otherwise the bound itself is sent and
    /// the row equal to it dropped here, which is cheaper (a short start row).
    exact_upper: bool,
    /// The longest row key of the table (see [`validate::max_row_key_len`]): the
    /// greatest key below a bound is padded to it.
    max_key_len: usize,
}

impl Tracker {
    pub(crate) fn new(start: Bytes, stop: Bytes, reversed: bool, limit: Option<u64>) -> Tracker {
        Tracker {
            position: Position { lower: start, upper: stop, partial: None, last: None },
            reversed,
            remaining: limit,
            skip: None,
            done: false,
            exact_upper: false,
            max_key_len: validate::MAX_ROW_KEY_LEN,
        }
    }

    /// The tracker of `scan` on `table`.
    pub(crate) fn for_scan(scan: &Scan, table: &str) -> Tracker {
        let mut tracker = Tracker::new(scan.start.clone(), scan.stop.clone(), scan.reversed, scan.limit);
        // Batched scans: HBase's own row count (which the Java client obeys, and which
        // in reversed batched scans can end a row early) must count exactly the rows
        // Java's would, so the excluded row must not reach the server either.
        tracker.exact_upper = scan.read.has_filter() || scan.read.batch.is_some();
        tracker.max_key_len = validate::max_row_key_len(table);
        tracker
    }

    /// Whether the scan has delivered everything its limit allows.
    pub(crate) fn finished(&self) -> bool {
        self.done || (self.remaining == Some(0) && self.position.partial.is_none())
    }

    /// Called when a scanner is (re)opened at the position.
    fn reopened(&mut self) {
        self.skip = self.position.partial.clone();
    }

    /// Checks a page and returns the rows to deliver; the position and limit move only
    /// if the whole page is sound.
    pub(crate) fn accept(&mut self, results: impl ExactSizeIterator<Item = Row>) -> Result<Vec<Row>, Rejected> {
        let mut next = self.clone();
        let mut rows: Vec<Row> = Vec::with_capacity(results.len());
        // The page's last complete row.
        let mut last_complete: Option<Bytes> = None;
        for row in results {
            if next.done {
                break;
            }
            if !next.keep(&row, last_complete.as_deref())? {
                continue;
            }
            let continues = matches!(&next.position.partial, Some((key, _)) if key[..] == *row.key());
            if !continues {
                // Another row: the one in progress (if any) is complete.
                if let Some((key, _)) = next.position.partial.take() {
                    last_complete = Some(key);
                }
                if next.remaining == Some(0) {
                    next.done = true;
                    break;
                }
                if let Some(n) = &mut next.remaining {
                    *n -= 1;
                }
            }
            if row.is_partial() {
                match &mut next.position.partial {
                    Some((_, n)) => *n += 1,
                    None => next.position.partial = Some((row.key_bytes(), 1)),
                }
            } else {
                next.position.partial = None;
                last_complete = Some(row.key_bytes());
            }
            rows.push(row);
        }
        if last_complete.is_some() {
            next.position.last = last_complete;
        }
        next.position.settle(next.reversed);
        *self = next;
        Ok(rows)
    }

    /// Whether `row` is delivered: `Ok(false)` for what a reopened scanner legitimately
    /// repeats (a reversed scan's inclusive start, parts of a batched row already
    /// returned), an error for a row outside the remaining range or out of order.
    fn keep(&mut self, row: &Row, page_last: Option<&[u8]>) -> Result<bool, Rejected> {
        if let Some((key, n)) = &mut self.skip {
            if key[..] == *row.key() && *n > 0 {
                *n -= 1;
                return Ok(false);
            }
            self.skip = None;
        }
        let Position { lower, upper, partial, last } = &self.position;
        let (lower, upper, key): (&[u8], &[u8], &[u8]) = (lower, upper, row.key());
        // The last complete row returned: in this page, or before it (when not settled).
        let last: Option<&[u8]> = page_last.or(last.as_deref());
        let show = |k: &[u8]| format!("{:?}", String::from_utf8_lossy(&k[..k.len().min(64)]));
        if let Some((pk, _)) = partial {
            let pk: &[u8] = pk;
            let backwards = if self.reversed { key > pk } else { key < pk };
            if backwards {
                return Err(Rejected(format!("row {} out of order after {}", show(key), show(pk))));
            }
        }
        if self.reversed {
            // After a returned row, the range ends (exclusively) at that row.
            let upper = last.unwrap_or(upper);
            if !upper.is_empty() && key == upper {
                return Ok(false); // HBase's reversed start is inclusive
            }
            if !upper.is_empty() && key > upper {
                return Err(Rejected(format!("row {} at or after {} in a reversed scan", show(key), show(upper))));
            }
            if !lower.is_empty() && key < lower {
                return Err(Rejected(format!("row {} below the range start {}", show(key), show(lower))));
            }
        } else {
            // After a returned row, the range starts just after it: at `last 00`.
            let before = match last {
                Some(last) => key <= last,
                None => !lower.is_empty() && key < lower,
            };
            if before {
                let at = last.unwrap_or(lower);
                return Err(Rejected(format!("row {} before the scan's position {}", show(key), show(at))));
            }
            if !upper.is_empty() && key >= upper {
                return Err(Rejected(format!("row {} at or after the range stop {}", show(key), show(upper))));
            }
        }
        Ok(true)
    }

    /// The request that resumes at the position; `None` when nothing is left to read
    /// (an empty range is never sent: the gateway turns equal bounds into a get).
    pub(crate) fn scan_request(&self, scan: &Scan) -> Result<Option<ScanRequest>> {
        let read = &scan.read;
        let mut filter = read.filter.clone();
        let mut position = self.position.clone();
        position.settle(self.reversed);
        let Position { lower, upper, partial, .. } = &position;
        if partial.is_none() && !upper.is_empty() && lower >= upper {
            return Ok(None);
        }
        // Whether the server may return the row equal to the start, which `keep` drops.
        let mut spare_row = false;
        let (start, stop) = if self.reversed {
            // HBase's reversed scan: start is the larger (inclusive) key, stop the
            // smaller (exclusive) one.
            let range = ScanRange {
                bucket: None,
                start: lower.clone(),
                stop: upper.clone(),
                start_may_be_row: true,
                stop_may_be_row: true,
            };
            let bounds = range.reversed();
            let start = match partial {
                Some((key, _)) => key.clone(),
                None if upper.is_empty() => Bytes::new(),
                None if self.exact_upper => match key_before(upper, self.max_key_len) {
                    Some(before) => before,
                    None => return Ok(None), // no key lies below `upper`
                },
                None => {
                    spare_row = true;
                    upper.clone()
                }
            };
            match bounds.missing_row {
                // No finite exclusive bound includes `lower`: stop at it inclusively.
                Some(missing) if !missing.is_empty() => {
                    let stop_filter = Filter::inclusive_stop(missing);
                    filter = Some(match filter {
                        Some(f) => f.and(stop_filter),
                        None => stop_filter,
                    });
                    (start, Bytes::new())
                }
                _ => (start, bounds.stop_row),
            }
        } else {
            let start = partial.as_ref().map(|(key, _)| key.clone()).unwrap_or_else(|| lower.clone());
            (start, upper.clone())
        };
        if !start.is_empty() && !stop.is_empty() {
            let empty = if self.reversed { start <= stop } else { start >= stop };
            if empty {
                return Ok(None);
            }
        }
        let server_limit = match self.remaining {
            Some(n) => {
                // The row in progress is counted again by the reopened scanner, and a
                // spare row covers a reversed start that is dropped.
                let n = n + u64::from(partial.is_some()) + u64::from(spare_row);
                Some(i32::try_from(n.max(1)).unwrap_or(i32::MAX))
            }
            None => None,
        };
        Ok(Some(ScanRequest { start, stop, reversed: self.reversed, read: read.clone(), filter, limit: server_limit }))
    }
}

/// An open server-side scanner.
type Pinned = Box<dyn Scanner>;

/// Why a page did not arrive.
enum Interrupt {
    /// Reopen at once, without the retry policy (expiry, a lost idle connection).
    Reopen(Error),
    /// The page broke the range or order: reopen at once; twice in a row is an error.
    Rejected { addr: String, why: Rejected },
    /// A failure for the retry policy.
    Failed(Error),
}

impl From<Error> for Interrupt {
    fn from(e: Error) -> Interrupt {
        match e {
            e @ Error::ScannerExpired { .. } => Interrupt::Reopen(e),
            // The gateway failed a page of an open scanner with an unexpected exception
            // (seen under load and across region moves: "Internal error processing
            // getScannerRows"). The scanner is in an unknown state; reading is safe to
            // repeat, so reopen after the last row returned. The same error on every
            // reopen ends the scan with it (MAX_QUIET_REOPENS). An open_scanner failure
            // (a malformed filter) is not reopened.
            e @ Error::ServerInternal { operation: "get_scanner_rows", .. } => Interrupt::Reopen(e),
            e => Interrupt::Failed(e),
        }
    }
}

enum Page {
    Rows(Vec<Row>),
    /// The last rows (possibly none): the scan is over after them.
    Last(Vec<Row>),
}

pub(crate) struct Worker {
    client: Client,
    table: String,
    scan: Scan,
    gate: Option<Arc<Semaphore>>,
    tracker: Tracker,
    stats: Arc<ScanStats>,
    started: Instant,
    has_filter: bool,
    /// Multiplies a stateless page's size after pages that delivered nothing.
    stateless_boost: u64,
    /// Rows per page: the caller's caching, or growing toward a byte target.
    sizer: PageSizer,
}

impl Worker {
    /// Starts the task scanning `scan` (its bounds, limit and direction; `parallel` is
    /// not looked at) and sending its pages to `tx`; with `caching` unset, pages follow
    /// `plan`.
    pub(crate) fn spawn(
        client: Client,
        table: String,
        scan: Scan,
        gate: Option<Arc<Semaphore>>,
        stats: Arc<ScanStats>,
        tx: mpsc::Sender<Result<Vec<Row>>>,
        plan: PagePlan,
    ) {
        let tracker = Tracker::for_scan(&scan, &table);
        let has_filter = scan.read.has_filter();
        let sizer = PageSizer::new(scan.read.caching, plan, client.transport().max_reply_bytes());
        let span = tracing::debug_span!("hbase.scan", table = %table, reversed = scan.reversed);
        let worker = Worker {
            client,
            table,
            scan,
            gate,
            tracker,
            stats,
            started: Instant::now(),
            has_filter,
            stateless_boost: 1,
            sizer,
        };
        tokio::spawn(worker.run(tx).instrument(span));
    }

    async fn run(mut self, tx: mpsc::Sender<Result<Vec<Row>>>) {
        let mut pinned: Option<Pinned> = None;
        let mut failures = 0u32;
        let mut failing_since: Option<Instant> = None;
        let mut quiet_reopens = 0u32;
        let mut rejected_in_a_row = 0u32;
        loop {
            if self.tracker.finished() {
                break;
            }
            // Wait until the consumer has room: at most one page ahead.
            let Ok(permit) = tx.reserve().await else {
                break; // the stream was dropped
            };
            let error = match self.next_page(&mut pinned).await {
                Ok(page) => {
                    (failures, failing_since, quiet_reopens, rejected_in_a_row) = (0, None, 0, 0);
                    let (rows, last) = match page {
                        Page::Rows(rows) => (rows, false),
                        Page::Last(rows) => (rows, true),
                    };
                    self.count(&rows);
                    if !rows.is_empty() {
                        permit.send(Ok(rows));
                    }
                    if last {
                        break;
                    }
                    continue;
                }
                Err(interrupt) => interrupt,
            };
            self.unpin(&mut pinned).await;
            let error = match error {
                Interrupt::Reopen(error) => {
                    quiet_reopens += 1;
                    if quiet_reopens > MAX_QUIET_REOPENS {
                        permit.send(Err(error.with_filter_hint(self.has_filter)));
                        break;
                    }
                    tracing::debug!(%error, "scanner lost; reopening after the last row returned");
                    self.stats.reopens.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                Interrupt::Rejected { addr, why } => {
                    self.stats.rejected_pages.fetch_add(1, Ordering::Relaxed);
                    rejected_in_a_row += 1;
                    if rejected_in_a_row > 1 {
                        let table = self.table.clone();
                        permit.send(Err(Error::ScanIntegrity { addr, table, message: why.0 }));
                        break;
                    }
                    tracing::warn!(%addr, reason = %why.0, "scan page refused; reopening after the last row returned");
                    self.stats.reopens.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                Interrupt::Failed(error) => error,
            };
            failures += 1;
            let since = *failing_since.get_or_insert_with(Instant::now);
            match self.client.attempts().retry_after(failures, since, &error) {
                Some(after) => {
                    self.stats.reopens.fetch_add(1, Ordering::Relaxed);
                    tracing::debug!(%error, ?after, "scan interrupted; reopening after the last row returned");
                    tokio::time::sleep(after).await;
                }
                None => {
                    permit.send(Err(error.with_filter_hint(self.has_filter)));
                    break;
                }
            }
        }
        self.unpin(&mut pinned).await;
        let micros = u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX).max(1);
        self.stats.finished_micros.store(micros, Ordering::Relaxed);
    }

    fn count(&self, rows: &[Row]) {
        if rows.is_empty() {
            return;
        }
        if self.stats.rows.load(Ordering::Relaxed) == 0 {
            let micros = u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX).max(1);
            self.stats.first_row_micros.store(micros, Ordering::Relaxed);
        }
        self.stats.rows.fetch_add(rows.len() as u64, Ordering::Relaxed);
    }

    /// Closes the open scanner, if any.
    async fn unpin(&self, pinned: &mut Option<Pinned>) {
        if let Some(scanner) = pinned.take() {
            scanner.close().await;
        }
    }

    /// Rows asked for in the next page.
    fn want(&self) -> u32 {
        let page = self.sizer.rows();
        let mut want = match self.tracker.remaining {
            // One spare row covers the reversed scan's inclusive start, which may be
            // dropped. With `batch`, a page's items are parts of rows: not capped.
            Some(n) if self.scan.read.batch.is_none() => n.saturating_add(1).min(u64::from(page)),
            _ => u64::from(page),
        };
        if self.scan.paging == ScanPaging::Stateless {
            // Every stateless page starts over at the position: it re-reads the parts of
            // a wide row already returned and a reversed scan's inclusive start, which
            // are dropped; ask for them on top, or a page could make no progress.
            let repeated = self.tracker.position.partial.as_ref().map_or(0, |(_, n)| *n as u64);
            want = want.saturating_add(repeated).saturating_add(1);
            // A reversed page can start on a wide row already returned (its parts all
            // dropped): each page that delivered nothing doubles the next one.
            want = want.saturating_mul(self.stateless_boost);
        }
        u32::try_from(want).unwrap_or(u32::MAX)
    }

    async fn next_page(&mut self, pinned: &mut Option<Pinned>) -> Result<Page, Interrupt> {
        let _gate = match &self.gate {
            Some(gate) => Arc::clone(gate).acquire_owned().await.ok(),
            None => None,
        };
        match self.scan.paging {
            ScanPaging::Scanner => self.scanner_page(pinned).await,
            ScanPaging::Stateless => self.stateless_page().await,
        }
    }

    /// A page from the open scanner, opening one (at the position) if needed.
    async fn scanner_page(&mut self, pinned: &mut Option<Pinned>) -> Result<Page, Interrupt> {
        if pinned.as_ref().is_some_and(|scanner| !scanner.is_usable()) {
            // The server closed the idle connection (or it broke): the scanner is
            // unreachable; reopen on another connection, never reuse the id.
            pinned.take();
            return Err(Interrupt::Reopen(Error::ScannerExpired {
                message: "the scanner's connection was closed".into(),
            }));
        }
        let want = self.want();
        let attempts = self.client.attempts();
        let page = match pinned.as_mut() {
            Some(scanner) => attempts.once_as(Operation::NextPage, scanner.next_page(want)).await?,
            None => {
                let Some(request) = self.tracker.scan_request(&self.scan)? else {
                    return Ok(Page::Last(Vec::new()));
                };
                let opened = attempts.transport.open_scanner(&self.table, &request, want);
                let (scanner, first) = attempts.once_as(Operation::OpenScanner, opened).await?;
                self.tracker.reopened();
                *pinned = Some(scanner);
                first
            }
        };
        self.stats.pages.fetch_add(1, Ordering::Relaxed);
        self.sizer.record(page.rows.len(), page.reply_bytes);
        metrics::page(page.rows.len(), page.reply_bytes);
        let last = match page.more {
            MoreRows::No => true,
            MoreRows::Yes | MoreRows::Unknown => false,
        };
        let addr = page.source;
        let rows = self.tracker.accept(page.rows.into_iter()).map_err(|why| Interrupt::Rejected { addr, why })?;
        Ok(if last { Page::Last(rows) } else { Page::Rows(rows) })
    }

    /// A page from a scan opened and closed in one call, at the position.
    async fn stateless_page(&mut self) -> Result<Page, Interrupt> {
        let Some(request) = self.tracker.scan_request(&self.scan)? else {
            return Ok(Page::Last(Vec::new()));
        };
        let want = self.want();
        let attempts = self.client.attempts();
        let page = attempts
            .once_as(Operation::StatelessPage, attempts.transport.stateless_page(&self.table, &request, want))
            .await?;
        self.stats.pages.fetch_add(1, Ordering::Relaxed);
        self.sizer.record(page.rows.len(), page.reply_bytes);
        metrics::page(page.rows.len(), page.reply_bytes);
        let last = match page.more {
            MoreRows::No => true,
            MoreRows::Yes | MoreRows::Unknown => false,
        };
        self.tracker.reopened();
        let addr = page.source;
        let rows = self.tracker.accept(page.rows.into_iter()).map_err(|why| Interrupt::Rejected { addr, why })?;
        self.stateless_boost = if rows.is_empty() && !last { self.stateless_boost.saturating_mul(2) } else { 1 };
        Ok(if last { Page::Last(rows) } else { Page::Rows(rows) })
    }
}

#[cfg(test)]
mod tests {
    use basalt_thrift::hbase::TScan;

    use super::*;
    use crate::row::Cell;
    use crate::transport::thrift::encode_scan;

    impl Tracker {
        /// The request as the Thrift transport encodes it.
        fn tscan(&self, scan: &Scan) -> Result<Option<TScan>> {
            self.scan_request(scan)?.map(|request| encode_scan(&request)).transpose()
        }
    }

    fn result(key: &str, partial: bool) -> Row {
        let cell = Cell::new("d", "q", "v", 1);
        Row::new(Bytes::copy_from_slice(key.as_bytes()), [cell]).with_partial(partial)
    }

    fn keys(rows: &[Row]) -> Vec<String> {
        rows.iter().map(|r| String::from_utf8_lossy(r.key()).into_owned()).collect()
    }

    #[test]
    fn a_failed_page_reopens_but_a_failed_open_does_not() {
        let internal = |operation| Error::ServerInternal {
            addr: "gw:9090".into(),
            operation,
            kind: "InternalError".into(),
            message: "Internal error processing getScannerRows".into(),
            hint: None,
        };
        assert!(matches!(Interrupt::from(internal("get_scanner_rows")), Interrupt::Reopen(_)));
        assert!(matches!(Interrupt::from(internal("open_scanner")), Interrupt::Failed(_)));
        assert!(matches!(Interrupt::from(internal("get_scanner_results")), Interrupt::Failed(_)));
    }

    #[test]
    fn forward_pages_move_the_position_and_refuse_rows_outside_it() {
        let mut t = Tracker::new(Bytes::from("b"), Bytes::from("m"), false, None);
        let rows = t.accept(vec![result("b", false), result("c", false)].into_iter()).unwrap();
        assert_eq!(keys(&rows), ["b", "c"]);
        assert_eq!(t.position.lower, Bytes::from_static(b"c\0"));
        // A row already returned, one before the range, one past its stop, and one out
        // of order: the whole page is refused and the position does not move.
        for bad in [vec![result("c", false)], vec![result("a", false)], vec![result("m", false)]] {
            assert!(t.accept(bad.into_iter()).is_err());
        }
        assert!(t.accept(vec![result("e", false), result("d", false)].into_iter()).is_err());
        assert_eq!(t.position.lower, Bytes::from_static(b"c\0"));
        assert_eq!(keys(&t.accept(vec![result("d", false)].into_iter()).unwrap()), ["d"]);
    }

    #[test]
    fn reversed_pages_drop_the_inclusive_start_and_refuse_rows_above_it() {
        let mut t = Tracker::new(Bytes::from("b"), Bytes::from("m"), true, Some(2));
        assert_eq!(keys(&t.accept(vec![result("m", false), result("k", false)].into_iter()).unwrap()), ["k"]);
        assert_eq!(t.position.upper, Bytes::from("k"));
        assert!(t.accept(vec![result("l", false)].into_iter()).is_err(), "above the position");
        assert!(t.accept(vec![result("a", false)].into_iter()).is_err(), "below the range");
        assert_eq!(
            keys(&t.accept(vec![result("k", false), result("j", false), result("i", false)].into_iter()).unwrap()),
            ["j"]
        );
        assert_eq!(t.remaining, Some(0));
    }

    #[test]
    fn batched_rows_resume_inside_the_row() {
        let mut t = Tracker::new(Bytes::new(), Bytes::new(), false, None);
        let rows = t.accept(vec![result("a", true), result("a", true)].into_iter()).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(t.position.partial, Some((Bytes::from("a"), 2)));
        t.reopened();
        // The reopened scanner repeats the row's first two parts: they are dropped.
        let rows = t
            .accept(vec![result("a", true), result("a", true), result("a", false), result("b", false)].into_iter())
            .unwrap();
        assert_eq!(keys(&rows), ["a", "b"]);
        assert_eq!(t.position.partial, None);
    }

    #[test]
    fn the_position_after_a_row_is_computed_once_for_both_directions() {
        let (s, e, k) = (Bytes::from("a"), Bytes::from("z"), Bytes::from("k"));
        assert_eq!(after_row(&s, &e, &k, false), (Bytes::from_static(b"k\0"), e.clone()));
        assert_eq!(after_row(&s, &e, &k, true), (s.clone(), k.clone()));
    }

    #[test]
    fn empty_ranges_are_never_sent() {
        let scan = Scan::new();
        for reversed in [false, true] {
            let t = Tracker::new(Bytes::from("x"), Bytes::from("x"), reversed, None);
            assert!(t.tscan(&scan).unwrap().is_none(), "[x, x), reversed {reversed}");
        }
        // After returning `b` from [a, b\0): nothing is left, and no `[b\0, b\0)` is sent.
        let mut t = Tracker::new(Bytes::from("a"), Bytes::from_static(b"b\0"), false, None);
        t.accept(vec![result("a", false), result("b", false)].into_iter()).unwrap();
        assert!(t.tscan(&scan).unwrap().is_none());
        // Reversed: after returning `b` from [b, c): nothing is left.
        let mut t = Tracker::new(Bytes::from("b"), Bytes::from("c"), true, None);
        t.accept(vec![result("b", false)].into_iter()).unwrap();
        assert!(t.tscan(&scan).unwrap().is_none());
    }

    #[test]
    fn a_reversed_scan_with_a_filter_starts_below_its_bound() {
        let scan = Scan::new().reversed(true).filter(Filter::key_only()).limit(2);
        let t = Tracker::for_scan(&scan.clone().start("r1").stop("r5"), "t");
        let tscan = t.tscan(&scan).unwrap().unwrap();
        let start = tscan.start_row.unwrap();
        assert_eq!(&start[..2], b"r4");
        assert_eq!(start.len(), validate::max_row_key_len("t"));
        assert!(start[2..].iter().all(|b| *b == 0xFF));
        assert_eq!(tscan.limit, Some(2), "exact: no spare row");
        // Without a filter: the bound itself, and one spare row for it.
        let plain = Scan::new().reversed(true).limit(2);
        let tscan = Tracker::for_scan(&plain.clone().start("r1").stop("r5"), "t").tscan(&plain).unwrap().unwrap();
        assert_eq!(tscan.start_row.as_deref(), Some(&b"r5"[..]));
        assert_eq!(tscan.limit, Some(3));
        // Reversed and batched: the exact start too, and the exact limit (the Java
        // client's answer follows HBase's own count there).
        let batched = plain.clone().batch(2);
        let tscan = Tracker::for_scan(&batched.clone().start("r1").stop("r5"), "t").tscan(&batched).unwrap().unwrap();
        assert_eq!(&tscan.start_row.unwrap()[..2], b"r4");
        assert_eq!(tscan.limit, Some(2));
    }

    #[test]
    fn a_row_whose_last_part_is_flagged_partial_counts_once() {
        let mut t = Tracker::new(Bytes::new(), Bytes::new(), false, Some(1));
        let rows = t.accept(vec![result("m1", true)].into_iter()).unwrap();
        assert_eq!(keys(&rows), ["m1"]);
        assert!(!t.finished(), "m1 may have more parts");
        let rows = t.accept(vec![result("m2", false), result("m3", false)].into_iter()).unwrap();
        assert!(rows.is_empty());
        assert!(t.finished());
    }

    #[test]
    fn reversed_tscan_bounds_use_the_row_key_crate() {
        let scan = Scan::new().reversed(true);
        let t = Tracker::new(Bytes::from_static(b"b\0"), Bytes::from("m"), true, None);
        let tscan = t.tscan(&scan).unwrap().unwrap();
        assert_eq!(tscan.start_row.as_deref(), Some(&b"m"[..]));
        assert_eq!(tscan.stop_row.as_deref(), Some(&b"b"[..]));
        let t = Tracker::new(Bytes::from("b"), Bytes::new(), true, None);
        let tscan = t.tscan(&scan).unwrap().unwrap();
        assert_eq!(tscan.start_row, None);
        assert_eq!(tscan.stop_row, None);
        assert!(tscan.filter_string.unwrap().starts_with(b"InclusiveStopFilter"));
    }
}
