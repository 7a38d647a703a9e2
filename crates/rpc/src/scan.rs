//! Scans: a server-side scanner per region, opened, paged with `next_call_seq`, closed;
//! crossing region boundaries forward and reversed; reopened from the last row
//! delivered after a move, a split, an expired lease or a lost connection.
//!
//! The client declares that it handles partial results and heartbeats: cells of a row
//! that the server sends in several pieces are joined before the row is delivered, and
//! a heartbeat (a reply with no rows while the server keeps scanning) just continues.
//! Only complete rows move the resume point, so a reopen loses and repeats nothing.
//! With a `batch` of cells per result, the pieces are delivered as they come, and a
//! reopen skips the cells of the row in progress that were already delivered.
//!
//! While the reader is slow, a background task renews the scanner's lease (see
//! [`ScanSpec::auto_renew`]); [`Scanner::into_stream`] makes the scan a `Stream`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::{Stream, TryStreamExt};

use basalt_rpc_protocol::block_rows::BlockRows;
use basalt_rpc_protocol::cellblock::{Cell, CellCodec};
use basalt_rpc_protocol::exception::{RemoteExceptionKind, ScannerAdvice};

use crate::builder::RpcClient;
use crate::cells::{scan_results, RowCells, RowResult, ScanPage};
use crate::error::RpcError;
use crate::lease::{self, Lease};
use crate::pb;
use crate::read::close_request;
use crate::region::RegionLocation;
use crate::replica::{self, ReplicaPlan};

mod ahead;
mod java_limit;
mod message;
mod spec;
use ahead::PageAhead;
use java_limit::JavaBatchLimit;
use message::scan_message;
pub use spec::ScanSpec;

/// Where the scan resumes: a row, and whether that row itself is still to come.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Position {
    row: Bytes,
    inclusive: bool,
}

/// How two cells of one row sort in HBase: by family and qualifier, then newest first,
/// then by type, the greater code first (a delete marker before the values it hides).
fn cell_order(a: &Cell, b: &Cell) -> std::cmp::Ordering {
    a.family()
        .cmp(b.family())
        .then_with(|| a.qualifier().cmp(b.qualifier()))
        .then_with(|| b.timestamp().cmp(&a.timestamp()))
        .then_with(|| b.cell_type().code().cmp(&a.cell_type().code()))
}

/// An open scan over a table; pages come from [`Scanner::next_page`]. Dropping a
/// scanner closes its server-side scanner in the background.
pub struct Scanner {
    client: RpcClient,
    table: String,
    spec: ScanSpec,
    position: Position,
    open: Option<OpenScanner>,
    partial: RowCells,
    /// Batch mode: the row whose pieces are being delivered, and the last of its cells
    /// delivered.
    in_row: Option<(Bytes, Cell)>,
    /// Batch mode, after a reopen: the row in progress and its last cell delivered; the
    /// reopened scanner's cells of that row up to it are skipped (by comparison, as
    /// HBase's client does: a cell deleted or added meanwhile neither loses nor repeats
    /// another).
    skip: Option<(Bytes, Cell)>,
    /// Batch mode: the row of the last piece delivered (a piece of another row starts
    /// a row).
    last_piece_row: Option<Bytes>,
    /// Batch mode: the limit as the Java client counts and applies it (see
    /// [`JavaBatchLimit`]).
    java_limit: Option<JavaBatchLimit>,
    lease: Arc<Lease>,
    /// The open scanner's next page, asked for before this one was read.
    ahead: Option<PageAhead>,
    returned: u64,
    done: bool,
    reopened: u32,
    /// Replies without results that were no heartbeat (see [`Scanner::empty_replies`]).
    empty_replies: u64,
}

/// A reply's results: read already (a hedged open), or its cell block still to read.
enum Answer {
    Rows(Vec<RowResult>),
    Block(Bytes),
}

/// A server-side scanner in one region.
struct OpenScanner {
    region: RegionLocation,
    id: u64,
    next_call_seq: u64,
}

impl std::fmt::Debug for Scanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scanner").field("table", &self.table).field("returned", &self.returned).finish()
    }
}

/// A scanner of `table` for [`RpcClient::scan`]; nothing is sent until its first page.
pub(crate) fn new_scanner(client: &RpcClient, table: &str, spec: ScanSpec) -> Scanner {
    let counted_limit = spec.limit.filter(|l| *l > 0);
    let java_limit = match (spec.allow_partial, spec.batch) {
        (true, _) => Some(JavaBatchLimit::partial(counted_limit)),
        (false, Some(batch)) => Some(JavaBatchLimit::new(batch, counted_limit)),
        (false, None) => None,
    };
    Scanner {
        client: client.clone(),
        table: table.to_owned(),
        position: Position { row: spec.start.clone(), inclusive: spec.include_start || spec.start.is_empty() },
        spec,
        open: None,
        partial: RowCells::new(),
        in_row: None,
        skip: None,
        last_piece_row: None,
        java_limit,
        lease: Lease::new(),
        ahead: None,
        returned: 0,
        done: false,
        reopened: 0,
        empty_replies: 0,
    }
}

impl Scanner {
    /// Rows delivered so far.
    pub fn rows_returned(&self) -> u64 {
        self.returned
    }

    /// How many times the scan reopened after an error (a move, split, expired lease,
    /// lost connection).
    pub fn reopened(&self) -> u32 {
        self.reopened
    }

    /// How many replies so far carried no result and were no heartbeat. The Java
    /// client's caches read such a reply as the end of a row (its batch cache hands out
    /// the cells it holds); [`Scanner::next_page`] returns at the first reply with rows,
    /// so a count that grew during a call came before the rows it returned.
    pub fn empty_replies(&self) -> u64 {
        self.empty_replies
    }

    /// Changes the rows asked per call from the next call on (pages may grow as a scan
    /// proceeds).
    pub fn set_rows_per_page(&mut self, rows: u32) {
        self.spec.rows_per_page = rows.max(1);
    }

    /// Whether the scan is over: no page follows.
    pub fn is_finished(&self) -> bool {
        self.done || self.limit_ended()
    }

    /// How many times the background task renewed a lease.
    pub fn lease_renewals(&self) -> u64 {
        self.lease.renewals()
    }

    /// The rest of the scan as a stream of rows (pieces of rows with `batch`); dropping
    /// the stream closes the server-side scanner.
    pub fn into_stream(self) -> impl Stream<Item = Result<RowResult, RpcError>> + Send {
        self.into_pages().map_ok(|page| futures::stream::iter(page.into_iter().map(Ok))).try_flatten()
    }

    /// The rest of the scan as a stream of pages.
    pub fn into_pages(self) -> impl Stream<Item = Result<Vec<RowResult>, RpcError>> + Send {
        futures::stream::try_unfold(self, |mut scanner| async move {
            Ok(scanner.next_page().await?.map(|page| (page, scanner)))
        })
    }

    /// The next page of complete rows; `None` when the scan is over.
    pub async fn next_page(&mut self) -> Result<Option<Vec<RowResult>>, RpcError> {
        Ok(self.next_rows().await?.map(ScanPage::into_results))
    }

    /// The next page of complete rows as the reply brought them: laid flat over its cell
    /// block when the scan delivers whole rows (no `batch`, no partial results), no row
    /// is waiting for more pieces and the reply holds no piece of a row; else as rows
    /// of cells (as a replica's answer to a hedged open always is). `None` when the
    /// scan is over.
    pub async fn next_rows(&mut self) -> Result<Option<ScanPage>, RpcError> {
        if let Err(error) = self.spec.check_read() {
            self.done = true;
            return Err(error);
        }
        let started = Instant::now();
        let mut attempt = 0;
        loop {
            if self.done {
                return Ok(None);
            }
            if self.limit_ended() {
                self.finish();
                return Ok(None);
            }
            let ahead = self.ahead.take();
            let (region, opening, outcome) = match (ahead, &self.open) {
                (Some(ahead), Some(open)) => {
                    let region = open.region.clone();
                    let outcome = match ahead.reply().await {
                        Ok(reply) => {
                            reply.decode(&region.server).map(|response| (response, Answer::Block(reply.cell_block)))
                        }
                        Err(error) => Err(error),
                    };
                    (region, false, outcome)
                }
                (_, open) => {
                    let (region, request, opening) = match open {
                        Some(open) => (open.region.clone(), self.next_request(open), false),
                        None => {
                            let region = self.locate().await?;
                            let request = self.open_request(&region);
                            (region, request, true)
                        }
                    };
                    let outcome = self.call(&region, &request, opening).await;
                    match outcome {
                        Ok((winner, response, answer)) => (winner, opening, Ok((response, answer))),
                        Err(error) => (region, opening, Err(error)),
                    }
                }
            };
            let (response, answer) = match outcome {
                Ok(answer) => answer,
                Err(error) => {
                    self.recover(&region, error, &mut attempt, started).await?;
                    continue;
                }
            };
            if opening {
                let Some(id) = response.scanner_id else {
                    self.done = true;
                    return Err(RpcError::Protocol {
                        addr: region.server,
                        reason: "no scanner id in the open reply".into(),
                    });
                };
                self.open = Some(OpenScanner { region: region.clone(), id, next_call_seq: 0 });
                self.lease.set_current(Some(id));
                if self.spec.auto_renew {
                    let every = lease::renew_interval(response.ttl);
                    let weak = Arc::downgrade(&self.lease);
                    lease::spawn_renewer(self.client.clone(), region.server.clone(), id, every, weak);
                }
            } else if let Some(open) = &mut self.open {
                open.next_call_seq += 1;
            }
            let more_in_region = response.more_results_in_region.unwrap_or(true);
            let more_at_all = response.more_results.unwrap_or(true);
            if more_in_region && more_at_all {
                self.fetch_ahead().await;
            }
            let rows = match answer {
                Answer::Block(block) if self.takes_whole_rows(&response) => {
                    let stale = response.stale.unwrap_or(false);
                    BlockRows::parse(block, CellCodec::KeyValue, &response.cells_per_result, stale)
                        .map(ScanPage::Block)
                        .map_err(|e| RpcError::Protocol { addr: region.server.clone(), reason: e.to_string() })
                }
                Answer::Block(block) => scan_results(&region.server, &response, &block).map(ScanPage::Results),
                Answer::Rows(rows) => Ok(ScanPage::Results(rows)),
            };
            let rows = match rows {
                Ok(rows) => rows,
                Err(error) => {
                    self.recover(&region, error, &mut attempt, started).await?;
                    continue;
                }
            };
            let no_results = match &rows {
                ScanPage::Block(_) => response.cells_per_result.is_empty(),
                ScanPage::Results(results) => results.is_empty(),
            };
            if no_results && !response.heartbeat_message.unwrap_or(false) {
                self.empty_replies += 1;
                if let Some(limit) = &mut self.java_limit {
                    // The Java client reads an empty reply that is no heartbeat as the
                    // end of a row.
                    limit.empty_reply();
                }
            }
            let page = match rows {
                ScanPage::Block(rows) => ScanPage::Block(self.accept_whole_rows(rows)),
                ScanPage::Results(rows) => ScanPage::Results(self.assemble(rows)),
            };
            if let Some(limit) = &mut self.java_limit {
                limit.end_of_reply();
            }
            if self.spec.limit == Some(0) {
                // Java's limit 0: its scanner closes after the first reply.
                self.finish();
                return Ok(Some(page));
            }
            let mut page = page;
            if !more_in_region || !more_at_all {
                // The server closed its scanner: a row still in pieces ended with its
                // region (the server flags a piece partial when its size limit falls
                // after a row's last cell), and is delivered as the Java client's cache
                // delivers it when the next region's rows begin.
                self.complete_pending(&mut page);
                self.open = None;
                self.lease.set_current(None);
                self.in_row = None;
                if !more_at_all || self.past_last_region(&region) {
                    self.done = true;
                } else {
                    self.position = if self.spec.reversed {
                        Position { row: region.start_key.clone(), inclusive: false }
                    } else {
                        Position { row: region.end_key.clone(), inclusive: true }
                    };
                }
            }
            if !page.is_empty() {
                return Ok(Some(page));
            }
        }
    }

    /// One call on the scanner (opening it in `region`, or its next page), holding the
    /// lease gate; a timeline scan opens on the replica that answers first, and stays
    /// there. The region that answered, the reply's header and its rows or cells.
    async fn call(
        &self,
        region: &RegionLocation,
        request: &pb::ScanRequest,
        opening: bool,
    ) -> Result<(RegionLocation, pb::ScanResponse, Answer), RpcError> {
        let mut last_used = self.lease.gate().await;
        let outcome = match self.hedge_delay(region, opening) {
            Some(delay) => replica::hedged_open(&self.client, region, request, delay)
                .await
                .map(|(winner, response, rows)| (winner, response, Answer::Rows(rows))),
            None => self.client.call(&region.server, "Scan", request, None).await.and_then(|reply| {
                let response: pb::ScanResponse = reply.decode(&region.server)?;
                Ok((region.clone(), response, Answer::Block(reply.cell_block)))
            }),
        };
        *last_used = Instant::now();
        outcome
    }

    /// After a failed call on `region`: forgets the scanner and waits before the scan
    /// reopens after its last row, or ends the scan with `error` (not retryable, an
    /// expired scanner the spec does not reopen, or the retries are spent).
    async fn recover(
        &mut self,
        region: &RegionLocation,
        error: RpcError,
        attempt: &mut u32,
        started: Instant,
    ) -> Result<(), RpcError> {
        self.client.on_error(region, &error);
        self.abandon_scanner();
        let reopenable = error.is_retryable()
            || error.remote().is_some_and(|r| r.exception.scanner_advice() == ScannerAdvice::Reopen);
        let expired = error.remote().is_some_and(|r| matches!(r.kind(), RemoteExceptionKind::UnknownScanner));
        *attempt += 1;
        let may_reopen = reopenable && (!expired || self.spec.reopen_expired);
        let pause = may_reopen.then(|| self.client.retry_after(*attempt, started, &error)).flatten();
        let Some(pause) = pause else {
            self.done = true;
            return Err(error);
        };
        self.reopened += 1;
        tokio::time::sleep(pause).await;
        Ok(())
    }

    /// Sends the open scanner's next call now (see [`ahead`]), unless the spec says not
    /// to or a limit is counted: where the limit ends depends on the rows of the reply
    /// not yet read.
    async fn fetch_ahead(&mut self) {
        if !self.spec.fetch_ahead || self.spec.limit.is_some() || self.java_limit.is_some() {
            return;
        }
        if let Some(open) = &self.open {
            let request = self.next_request(open);
            self.ahead = Some(PageAhead::send(&self.client, &open.region.server, request, self.lease.clone()).await);
        }
    }

    /// Every remaining row.
    pub async fn collect_all(&mut self) -> Result<Vec<RowResult>, RpcError> {
        let mut rows = Vec::new();
        while let Some(page) = self.next_page().await? {
            rows.extend(page);
        }
        Ok(rows)
    }

    /// Keeps the server-side scanner alive without fetching rows (between slow pages).
    pub async fn renew_lease(&mut self) -> Result<(), RpcError> {
        let Some(open) = &self.open else {
            return Ok(());
        };
        let mut last_used = self.lease.gate().await;
        self.client.call(&open.region.server, "Scan", &lease::renew_request(open.id), None).await?;
        *last_used = Instant::now();
        Ok(())
    }

    /// Closes the server-side scanner now and ends the scan.
    pub async fn close(mut self) -> Result<(), RpcError> {
        self.done = true;
        self.lease.set_current(None);
        if let Some(ahead) = self.ahead.take() {
            // The scanner's calls never overlap: the close follows the page in flight.
            let _ = ahead.reply().await;
        }
        match self.open.take() {
            Some(open) => {
                let request = close_request(open.id);
                self.client.call(&open.region.server, "Scan", &request, None).await.map(|_| ())
            }
            None => Ok(()),
        }
    }

    /// Whether a reply's rows can be taken as they are, laid flat over its block: rows
    /// are delivered whole (no `batch`, no partial results allowed), no row is waiting
    /// for more pieces, and the reply holds no piece of a row. A reply with cells in
    /// the message itself is left to the rows-of-cells path, which refuses it.
    fn takes_whole_rows(&self, response: &pb::ScanResponse) -> bool {
        !self.spec.in_pieces()
            && self.partial.is_empty()
            && !response.partial_flag_per_result.contains(&true)
            && response.results.iter().all(|r| r.cell.is_empty())
    }

    /// A reply's whole rows: applies the limit and moves the resume point past them.
    fn accept_whole_rows(&mut self, mut rows: BlockRows) -> BlockRows {
        if let Some(limit) = self.spec.limit.filter(|l| *l > 0) {
            rows.truncate(usize::try_from(limit.saturating_sub(self.returned)).unwrap_or(usize::MAX));
        }
        if let Some(last) = rows.len().checked_sub(1) {
            self.position = Position { row: rows.row_key_bytes(last), inclusive: false };
        }
        self.returned += rows.len() as u64;
        rows
    }

    /// Joins partial pieces; returns the complete rows, moving the resume point past
    /// them and applying the limit.
    fn assemble(&mut self, rows: Vec<RowResult>) -> Vec<RowResult> {
        if self.spec.in_pieces() {
            return self.assemble_pieces(rows);
        }
        let mut page = Vec::with_capacity(rows.len());
        for mut row in rows {
            if !self.partial.is_empty() && self.partial[0].row() != row.row() && !row.is_empty() {
                // A piece of another row: the pending row ended without a final piece.
                let cells = std::mem::take(&mut self.partial);
                page.push(RowResult { cells, partial: false, stale: row.stale });
            }
            if row.partial {
                self.partial.append(&mut row.cells);
                continue;
            }
            if !self.partial.is_empty() {
                let mut cells = std::mem::take(&mut self.partial);
                cells.append(&mut row.cells);
                row.cells = cells;
            }
            if !row.is_empty() {
                row.partial = false;
                page.push(row);
            }
        }
        if let Some(limit) = self.spec.limit.filter(|l| *l > 0) {
            let room = usize::try_from(limit.saturating_sub(self.returned)).unwrap_or(usize::MAX);
            page.truncate(room);
        }
        if let Some(last) = page.last() {
            self.position = Position { row: last.row_bytes(), inclusive: false };
        }
        self.returned += page.len() as u64;
        page
    }

    /// Delivers the cells of a row still in pieces as a complete row (its region ended),
    /// within the limit, moving the resume point past it.
    fn complete_pending(&mut self, page: &mut ScanPage) {
        if self.partial.is_empty() {
            return;
        }
        let cells = std::mem::take(&mut self.partial);
        let room = self.spec.limit.filter(|l| *l > 0).map(|limit| limit.saturating_sub(self.returned));
        if room == Some(0) {
            return;
        }
        let row = RowResult { cells, partial: false, stale: page.last_is_stale() };
        self.position = Position { row: row.row_bytes(), inclusive: false };
        self.returned += 1;
        page.push(row);
    }

    /// Batch mode: delivers the pieces as they come, skipping cells delivered before a
    /// reopen; only a row's last piece moves the resume point. Every piece the server
    /// sends is delivered: the server ends the scan at the limit (`limit_of_rows`, sent
    /// as the Java client sends it), and the rows are counted as the Java client counts
    /// them ([`Scanner::count_piece`]).
    fn assemble_pieces(&mut self, rows: Vec<RowResult>) -> Vec<RowResult> {
        let mut page = Vec::with_capacity(rows.len());
        for mut piece in rows {
            if piece.is_empty() {
                continue;
            }
            if let Some((row, last)) = &self.skip {
                if piece.row() == &row[..] {
                    let seen = piece.cells.iter().take_while(|cell| cell_order(cell, last).is_le()).count();
                    piece.cells.drain(..seen);
                    if !piece.cells.is_empty() || !piece.partial {
                        self.skip = None;
                    }
                } else {
                    self.skip = None;
                }
            }
            let (row, last) = match self.in_row.take() {
                Some((row, last)) if piece.is_empty() || row.as_ref() == piece.row() => (row, Some(last)),
                Some(_) | None if piece.is_empty() => continue,
                Some(_) | None => (piece.row_bytes(), None),
            };
            if piece.partial {
                match piece.cells.last().cloned().or(last) {
                    Some(last) => self.in_row = Some((row, last)),
                    None => continue,
                }
            } else {
                self.position = Position { row, inclusive: false };
            }
            // A piece all of whose cells were delivered before a reopen only moves the
            // position.
            if piece.is_empty() {
                continue;
            }
            self.count_piece(&piece);
            page.push(piece);
        }
        page
    }

    /// Counts a delivered piece: a piece of another row starts a row
    /// ([`Scanner::rows_returned`]), and the Java client's count of complete rows, which
    /// spends a batched scan's limit, sees it ([`JavaBatchLimit`]).
    fn count_piece(&mut self, piece: &RowResult) {
        if self.last_piece_row.as_deref() != Some(piece.row()) {
            self.returned += 1;
            self.last_piece_row = Some(piece.row_bytes());
        }
        if let Some(limit) = &mut self.java_limit {
            limit.result(&piece.row_bytes(), piece.cells.len(), piece.partial);
        }
    }

    /// Whether the limit ends the scan now: once it is used up by the rows delivered,
    /// or with `batch` when the Java client's count brought it to zero at the end of a
    /// reply (a count past it means no limit, as in Java).
    fn limit_ended(&self) -> bool {
        match &self.java_limit {
            Some(limit) => limit.ended(),
            None => self.spec.limit.is_some_and(|limit| limit > 0 && self.returned >= limit),
        }
    }

    /// Whether `region` is the last one the scan needs.
    fn past_last_region(&self, region: &RegionLocation) -> bool {
        let stop = &self.spec.stop;
        if self.spec.reversed {
            region.start_key.is_empty() || (!stop.is_empty() && region.start_key <= *stop)
        } else if self.spec.include_stop {
            region.end_key.is_empty() || (!stop.is_empty() && region.end_key > *stop)
        } else {
            region.end_key.is_empty() || (!stop.is_empty() && region.end_key >= *stop)
        }
    }

    async fn locate(&self) -> Result<RegionLocation, RpcError> {
        let Position { row, inclusive } = &self.position;
        let primary = if self.spec.reversed && (row.is_empty() || !inclusive) {
            self.client.locate_before(&self.table, row).await?
        } else {
            self.client.locate(&self.table, row).await?
        };
        // A target replica reads that replica of each region; until meta lists it,
        // the scan fails with a retryable error.
        match self.spec.read.replica_id {
            None | Some(0) => Ok(primary),
            Some(id) => primary.replica(id).ok_or_else(|| {
                self.client.inner.regions.invalidate(&primary);
                RpcError::RegionUnavailable(format!("replica {id} of a region of {} has no server", self.table))
            }),
        }
    }

    /// How long the primary has alone when opening in `region` for a timeline scan
    /// without a target replica; `None` when only one replica is asked.
    fn hedge_delay(&self, region: &RegionLocation, opening: bool) -> Option<Duration> {
        match ReplicaPlan::of(&self.spec.read, self.client.primary_call_timeout()) {
            ReplicaPlan::Hedged { delay } if opening && !region.replicas.is_empty() => Some(delay),
            ReplicaPlan::Hedged { .. } | ReplicaPlan::Primary | ReplicaPlan::Only(_) => None,
        }
    }

    fn open_request(&self, region: &RegionLocation) -> pb::ScanRequest {
        let scan = scan_message(&self.spec, &self.position);
        pb::ScanRequest {
            region: Some(region.specifier()),
            scan: Some(scan),
            number_of_rows: Some(self.rows_wanted()),
            close_scanner: Some(false),
            client_handles_partials: Some(true),
            client_handles_heartbeats: Some(true),
            limit_of_rows: self.remaining_limit(),
            ..Default::default()
        }
    }

    fn next_request(&self, open: &OpenScanner) -> pb::ScanRequest {
        pb::ScanRequest {
            scanner_id: Some(open.id),
            number_of_rows: Some(self.rows_wanted()),
            close_scanner: Some(false),
            next_call_seq: Some(open.next_call_seq),
            client_handles_partials: Some(true),
            client_handles_heartbeats: Some(true),
            limit_of_rows: self.remaining_limit(),
            ..Default::default()
        }
    }

    /// Results asked per call: always the page size, as the Java client asks its
    /// `caching`. The server stops at `limit_of_rows` complete rows itself; asking fewer
    /// results near the limit would move the calls' boundaries, and with `batch` the
    /// server's row count (which ends a row early at some boundaries) would then differ
    /// from the count the Java client obeys.
    fn rows_wanted(&self) -> u32 {
        self.spec.rows_per_page
    }

    /// The rows the server may still return (`limit_of_rows`): the limit less the rows
    /// delivered, or with `batch` the Java client's remaining limit (none once its count
    /// went past it).
    fn remaining_limit(&self) -> Option<u32> {
        match &self.java_limit {
            Some(limit) => limit.limit_of_rows(),
            None => self
                .spec
                .limit
                .filter(|l| *l > 0)
                .map(|limit| u32::try_from(limit.saturating_sub(self.returned)).unwrap_or(u32::MAX)),
        }
    }

    /// Forgets the server-side scanner after an error, closing it in the background in
    /// case it is still open there; the partial row in progress is dropped (the reopen
    /// starts at that row again).
    fn abandon_scanner(&mut self) {
        self.partial.clear();
        self.skip = self.in_row.clone();
        self.lease.set_current(None);
        if let Some(open) = self.open.take() {
            spawn_close(&self.client, open, self.ahead.take());
        }
    }

    fn finish(&mut self) {
        self.done = true;
        self.lease.set_current(None);
        if let Some(open) = self.open.take() {
            spawn_close(&self.client, open, self.ahead.take());
        }
    }
}

impl Drop for Scanner {
    fn drop(&mut self) {
        if let Some(open) = self.open.take() {
            spawn_close(&self.client, open, self.ahead.take());
        }
    }
}

/// Closes a server-side scanner from a background task, after its page in flight if any
/// (best effort: an error means it is already gone, and the lease would expire it
/// anyway).
fn spawn_close(client: &RpcClient, open: OpenScanner, ahead: Option<PageAhead>) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    let client = client.clone();
    runtime.spawn(async move {
        if let Some(ahead) = ahead {
            let _ = ahead.reply().await;
        }
        let _ = client.call(&open.region.server, "Scan", &close_request(open.id), None).await;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_build() {
        let spec = ScanSpec::new().start("a").stop("z").reversed(true).limit(5).rows_per_page(0);
        assert_eq!(spec.rows_per_page, 1);
        assert!(spec.reversed);
        assert_eq!(spec.limit, Some(5));
    }
}
