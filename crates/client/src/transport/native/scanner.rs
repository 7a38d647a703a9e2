//! A native scanner behind the core's [`Scanner`].

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;

use basalt_rpc::{RowResult, RpcError, ScanPage};

use super::errors::attempt_error;
use crate::request::{BatchRegrouper, Piece};
use crate::row::Row;
use crate::transport::{AttemptError, AttemptFuture, MoreRows, Operation, Page, ScanRequest, Scanner};

/// The size of a row's cells on the wire (key-values and their length prefixes).
fn wire_len(row: &RowResult) -> usize {
    row.cells.iter().map(|c| c.key_value().len() + 4).sum()
}

/// A reply's rows, each with its size on the wire (for rows laid flat over a block, an
/// even share of the bytes they hold: what page sizing needs, without reading every
/// cell again).
fn sized_rows(page: ScanPage) -> Vec<(Row, usize)> {
    match page {
        ScanPage::Block(rows) => {
            let share = rows.kept_len() / rows.len().max(1);
            super::rows::block_rows(rows).map(|row| (row, share)).collect()
        }
        ScanPage::Results(results) => {
            let sizes: Vec<usize> = results.iter().map(wire_len).collect();
            super::rows::rows(results).zip(sizes).collect()
        }
    }
}

/// A whole reply as a page's rows, and the size on the wire of the rows it holds.
fn whole_reply(page: ScanPage) -> (Vec<Row>, usize) {
    match page {
        ScanPage::Block(rows) => {
            let bytes = rows.kept_len();
            (super::rows::block_rows(rows).collect(), bytes)
        }
        ScanPage::Results(results) => {
            let bytes = results.iter().map(wire_len).sum();
            (super::rows::rows(results).collect(), bytes)
        }
    }
}

/// A reply's piece of a row, for the regrouper.
fn to_piece(result: RowResult) -> Piece<basalt_rpc::Cell> {
    Piece { key: result.row_bytes(), cells: result.cells.into_vec(), partial: result.partial, stale: result.stale }
}

/// A regrouped item as the reply type.
fn from_piece(piece: Piece<basalt_rpc::Cell>) -> RowResult {
    RowResult { cells: piece.cells.into(), partial: piece.partial, stale: piece.stale }
}

/// A native scanner: pages across regions, reopening itself when needed.
pub(super) struct NativeScanner {
    pub(super) scanner: basalt_rpc::Scanner,
    table: String,
    /// Results asked per call: the scan's `caching` when set (as a gateway's Java
    /// client asks), the Java client's default for a limit with `batch` (where the
    /// replies' ends decide the answer), else the page size the core asks for.
    caching: Option<u32>,
    /// Rows read beyond the last page asked for (with their sizes on the wire, see
    /// [`sized_rows`]): the next page starts with them.
    ahead: VecDeque<(Row, usize)>,
    /// An error met after some rows of a page were read: reported after them.
    pending: Option<RpcError>,
    /// Batched scans: the server's pieces (cut by `batch` and by size) regrouped into
    /// items of exactly `batch` cells, as Java's client hands them out.
    regrouper: Option<BatchRegrouper<basalt_rpc::Cell>>,
}

impl NativeScanner {
    pub(super) fn new(scanner: basalt_rpc::Scanner, table: &str, scan: &ScanRequest) -> NativeScanner {
        let caching = match super::encode::java_reply_sizes(scan) {
            true => Some(super::encode::JAVA_CACHING),
            false => scan.read.caching.filter(|c| *c > 0),
        };
        // Partial results allowed: the server's pieces as they come (Java's
        // `AllowPartialScanResultCache`, chosen before its batch cache).
        let batch =
            scan.read.batch.and_then(|b| u32::try_from(b).ok()).filter(|b| *b > 0 && !scan.extras.allow_partial);
        NativeScanner {
            scanner,
            table: table.to_owned(),
            caching,
            ahead: VecDeque::new(),
            pending: None,
            regrouper: batch.map(BatchRegrouper::new),
        }
    }

    /// A reply's results as the items the scan hands out (regrouped when batched), each
    /// with its size on the wire (see [`sized_rows`]). Cells still held back when the scan ends are dropped,
    /// as Java's client drops them: it closes at the limit or after the last region
    /// without handing out its `BatchScanResultCache`'s partial results
    /// (`ClientScanner.loadCache`).
    fn items(&mut self, page: ScanPage, empty_reply_before: bool) -> Vec<(Row, usize)> {
        let Some(regrouper) = &mut self.regrouper else { return sized_rows(page) };
        let results = page.into_results();
        let mut items = Vec::with_capacity(results.len());
        if empty_reply_before {
            regrouper.empty_reply(&mut items);
        }
        for result in results {
            regrouper.push(to_piece(result), &mut items);
        }
        sized_rows(ScanPage::Results(items.into_iter().map(from_piece).collect()))
    }

    /// Up to `rows` rows; a page continues into the next region when the current one
    /// ends before it is full (as a gateway's scanner does), so page sizes are the
    /// core's, not the regions'. Every call asks the server for the scan's `caching`
    /// results (else `rows`), as the Java client behind a gateway does: the calls'
    /// boundaries decide where HBase's row count ends a batched row. Results beyond the
    /// page wait for the next one.
    pub(super) async fn page(&mut self, op: Operation, rows: u32) -> Result<Page, AttemptError> {
        let wanted = rows.max(1) as usize;
        let (mut page, mut reply_bytes) = (Vec::with_capacity(wanted.min(self.ahead.len())), 0);
        for (row, size) in self.ahead.drain(..self.ahead.len().min(wanted)) {
            page.push(row);
            reply_bytes += size;
        }
        if page.is_empty() {
            if let Some(error) = self.pending.take() {
                return Err(attempt_error(op, Some(&self.table), &error));
            }
        }
        while page.len() < wanted && self.pending.is_none() && !self.scanner.is_finished() {
            self.scanner.set_rows_per_page(self.caching.unwrap_or(rows).max(1));
            let empty_replies = self.scanner.empty_replies();
            let next = self.scanner.next_rows().await;
            // An empty reply (no heartbeat) during the call came before its rows.
            let empty_reply_before = self.scanner.empty_replies() > empty_replies;
            let more = match next {
                // The usual case: a reply that fills (at most) a page of its own is the
                // page, without moving its rows one by one.
                Ok(Some(more)) if page.is_empty() && self.regrouper.is_none() && more.len() <= wanted => {
                    (page, reply_bytes) = whole_reply(more);
                    continue;
                }
                Ok(Some(more)) => Some(more),
                Ok(None) => None,
                Err(error) => {
                    if page.is_empty() {
                        return Err(attempt_error(op, Some(&self.table), &error));
                    }
                    // Rows already read are delivered; the error comes with the next
                    // page.
                    self.pending = Some(error);
                    break;
                }
            };
            let ended = more.is_none();
            let items = self.items(more.unwrap_or(ScanPage::Results(Vec::new())), empty_reply_before);
            for (row, size) in items {
                if page.len() < wanted {
                    page.push(row);
                    reply_bytes += size;
                } else {
                    self.ahead.push_back((row, size));
                }
            }
            if ended {
                break;
            }
        }
        let finished = self.ahead.is_empty() && self.scanner.is_finished() && self.pending.is_none();
        let more = if finished { MoreRows::No } else { MoreRows::Yes };
        Ok(Page { rows: page, reply_bytes, more, source: self.table.clone() })
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
