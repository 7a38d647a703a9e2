//! The stream a scan's rows come out of: [`RowStream`], started in the scan's
//! [`ScanMode`].

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::Stream;
use tokio::sync::mpsc;

use super::plan::{PagePlan, PageRole};
use super::regions;
use super::spec::{Scan, ScanMode};
use super::stats::ScanStats;
use super::worker::Worker;
use crate::attempt::Attempts;
use crate::error::Result;
use crate::row::Row;

/// The rows of a scan, as a `Stream`. Dropping it cancels the scan and closes the
/// server-side scanner.
pub struct RowStream {
    pages: mpsc::Receiver<Result<Vec<Row>>>,
    current: VecDeque<Row>,
    stats: Arc<ScanStats>,
    done: bool,
    /// Whether handing out a row starts loading the next one's key into the cache (see
    /// [`RowStream::prefetching_keys`]).
    prefetch_keys: bool,
}

impl std::fmt::Debug for RowStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowStream").field("buffered", &self.current.len()).finish_non_exhaustive()
    }
}

impl RowStream {
    /// Starts `scan` of `table` in `mode`: the one place a scan's mode decides how it
    /// runs.
    pub(crate) fn start(attempts: Attempts, table: String, scan: Scan, mode: ScanMode) -> Result<RowStream> {
        scan.validate()?;
        let stats = Arc::new(ScanStats::default());
        let pages = match mode {
            ScanMode::Plain => {
                let plan = PagePlan::of(PageRole::Plain).target(attempts.transport.plain_page_bytes());
                Worker::spawn(attempts, table, scan, None, Arc::clone(&stats), plan)
            }
            ScanMode::ParallelRegions { regions } => regions::spawn(attempts, table, scan, regions, Arc::clone(&stats)),
            ScanMode::SaltedBucket { gate } => {
                let plan = PagePlan::of(PageRole::SaltedBucket);
                Worker::spawn(attempts, table, scan, Some(gate), Arc::clone(&stats), plan)
            }
        };
        Ok(RowStream { pages, current: VecDeque::new(), stats, done: false, prefetch_keys: false })
    }

    /// A stream over pages already fetched (the crate's benchmarks).
    #[cfg(feature = "bench-internals")]
    pub(crate) fn from_pages(pages: mpsc::Receiver<Result<Vec<Row>>>) -> RowStream {
        RowStream {
            pages,
            current: VecDeque::new(),
            stats: Arc::new(ScanStats::default()),
            done: false,
            prefetch_keys: false,
        }
    }

    /// This stream, starting to load the next row's key into the processor's cache
    /// each time it hands out a row: for a consumer that reads many streams in turn (a
    /// merged salted scan), whose next row of this one is read only after rows of the
    /// others have pushed its page out of the cache.
    pub(crate) fn prefetching_keys(mut self) -> RowStream {
        self.prefetch_keys = true;
        self
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
                if self.prefetch_keys {
                    if let Some(next) = self.current.front() {
                        next.prefetch_key();
                    }
                }
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
