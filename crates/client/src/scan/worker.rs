//! The task behind a [`RowStream`](crate::RowStream): pages, positions and recovery.
//!
//! - **One call path**: every call (open, page, close) is one attempt of the client's
//!   [`Transport`](crate::transport::Transport), and retries use
//!   [`Attempts::retry_after`] (policy and budget), like every other call.
//! - **Scanners**: a server-side scanner is the transport's [`Scanner`]; when it can
//!   no longer be paged (its connection was lost), the scan reopens from its position.
//! - **Checked pages**: every row of a page must lie in the part of the range not yet
//!   returned, in the scan's direction ([`Tracker`]); a page that breaks this is
//!   dropped whole and the scan reopens, and a second bad page in a row ends the scan
//!   with [`Error::ScanIntegrity`].
//! - **Recovery**: an expired scanner or a lost idle connection is reopened at once,
//!   whatever the retry policy (only a repeated failure without progress ends the
//!   scan); other failures follow the retry policy within the retry budget.

// Policy decisions: every error kind is listed, so a new one is decided, not defaulted.
#![deny(clippy::wildcard_enum_match_arm)]

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::{mpsc, Semaphore};
use tracing::Instrument;

use super::plan::{PagePlan, PageSizer};
use super::position::{Rejected, Tracker};
use super::spec::{Scan, ScanPaging};
use super::stats::ScanStats;
use crate::attempt::Attempts;
use crate::error::{Error, Result};
use crate::metrics;
use crate::row::Row;
use crate::transport::{MoreRows, Operation, Scanner};

/// Reopens after expiry or a lost connection allowed without a page in between.
const MAX_QUIET_REOPENS: u32 = 3;

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
            e @ Error::ServerInternal { operation: Operation::NextPage, .. } => Interrupt::Reopen(e),
            // Everything else follows the retry policy (which says what is retryable).
            e @ (Error::ServerInternal { .. }
            | Error::InvalidInput(_)
            | Error::TableNotFound { .. }
            | Error::NamespaceNotFound { .. }
            | Error::AlreadyExists { .. }
            | Error::NoSuchColumnFamily { .. }
            | Error::IllegalArgument { .. }
            | Error::Server { .. }
            | Error::Busy { .. }
            | Error::Unreachable { .. }
            | Error::ClientClosed
            | Error::Transport { .. }
            | Error::DroppedBeforeReply { .. }
            | Error::Timeout { .. }
            | Error::Protocol { .. }
            | Error::WriteOutcomeUnknown { .. }
            | Error::ScanIntegrity { .. }
            | Error::BatchFailed { .. }) => Interrupt::Failed(e),
        }
    }
}

enum Page {
    Rows(Vec<Row>),
    /// The last rows (possibly none): the scan is over after them.
    Last(Vec<Row>),
}

/// One scan of one key range, run as a task that sends its pages to a channel.
pub(crate) struct Worker {
    attempts: Attempts,
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
    /// not looked at) and returns the channel of its pages, which holds up to
    /// `plan.pages_ahead` of them; with `caching` unset, pages are sized by `plan`.
    /// Every page fetch waits on `gate`, if given.
    pub(crate) fn spawn(
        attempts: Attempts,
        table: String,
        scan: Scan,
        gate: Option<Arc<Semaphore>>,
        stats: Arc<ScanStats>,
        plan: PagePlan,
    ) -> mpsc::Receiver<Result<Vec<Row>>> {
        let (tx, rx) = mpsc::channel(plan.pages_ahead);
        let tracker = Tracker::for_scan(&scan, &table);
        let has_filter = scan.read.has_filter();
        let sizer = PageSizer::new(scan.read.caching, plan, attempts.transport.max_reply_bytes());
        let span = tracing::debug_span!("hbase.scan", table = %table, reversed = scan.reversed);
        let worker = Worker {
            attempts,
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
        rx
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
                    metrics::reopen();
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
                    metrics::reopen();
                    continue;
                }
                Interrupt::Failed(error) => error,
            };
            failures += 1;
            let since = *failing_since.get_or_insert_with(Instant::now);
            match self.attempts.retry_after(failures, since, &error) {
                Some(after) => {
                    self.stats.reopens.fetch_add(1, Ordering::Relaxed);
                    metrics::reopen();
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
            Some(_) | None => u64::from(page),
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
        let attempts = &self.attempts;
        let page = match pinned.as_mut() {
            Some(scanner) => attempts.once_as(Operation::NextPage, scanner.next_page(want)).await?,
            None => {
                let Some(mut request) = self.tracker.scan_request(&self.scan)? else {
                    return Ok(Page::Last(Vec::new()));
                };
                // A gate bounds the calls in flight: no call goes out without it.
                request.fetch_ahead = self.gate.is_none();
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
        let attempts = &self.attempts;
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
    use super::*;

    #[test]
    fn a_failed_page_reopens_but_a_failed_open_does_not() {
        let internal = |operation| Error::ServerInternal {
            addr: "gw:9090".into(),
            operation,
            kind: "InternalError".into(),
            message: "Internal error processing getScannerRows".into(),
            hint: None,
        };
        assert!(matches!(Interrupt::from(internal(Operation::NextPage)), Interrupt::Reopen(_)));
        assert!(matches!(Interrupt::from(internal(Operation::OpenScanner)), Interrupt::Failed(_)));
        assert!(matches!(Interrupt::from(internal(Operation::StatelessPage)), Interrupt::Failed(_)));
    }
}
