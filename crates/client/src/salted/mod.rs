//! Salted tables and merged salted scans.
//!
//! A [`SaltedTable`] binds a table to a [`Schema`] whose keys start with a salt.
//! Writes and point reads take the logical key's field values and compute the salt;
//! a [`SaltedScan`] asks the schema which buckets a query can touch (all of them when
//! the salt depends on fields the query leaves open; exactly the needed ones
//! otherwise, e.g. one per month for the salted call records, whose salt mixes the
//! phone with the month), runs one scan per planned range at the same time, and merges
//! them with a tree of losers on the logical key into one ordered stream, ascending or
//! descending.
//!
//! - **Memory** stays flat: each bucket fetches at most one page ahead, and a shared
//!   gate bounds how many buckets fetch at once ([`SaltedScan::concurrency`]).
//! - **Connections**: with the default paging ([`ScanPaging::Scanner`](crate::ScanPaging::Scanner))
//!   each bucket's server-side scanner keeps its connection from open to close, so an
//!   open salted scan holds one socket per bucket that is still open (a pool slot only
//!   during each call). With [`ScanPaging::Stateless`](crate::ScanPaging::Stateless) (set on the
//!   [`SaltedScan::template`]) nothing is held between pages, so hundreds of buckets
//!   share a small pool, at the cost of a region seek per page.
//! - **Limits** stop the merge early; each bucket asks for no more rows than the limit,
//!   and every scanner is closed as soon as it is not needed.
//! - **Cancellation**: dropping the stream stops every bucket and closes its scanner.
//!   An error in one bucket (after retries and scanner-expiry recovery) ends the stream
//!   with that error and closes the others.
//! - **Cursors**: [`SaltedStream::cursor`] is a serialisable position (each bucket's last
//!   returned key); [`SaltedScan::resume`] continues the same query from it with no
//!   duplicate and no gap. Cursors are signed (HMAC-SHA256 with a [`CursorKey`]: random
//!   per process unless configured, see [`SaltedTable::cursor_key`]) and checked
//!   against the query's planned ranges, so an altered cursor is refused, never read.

mod cursor;
mod merge;
mod source;

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use basalt_rowkey::{Query, ScanPlan, Schema, Value};
use bytes::Bytes;
use futures::stream::SelectAll;
use futures::{Stream, StreamExt};

use crate::error::{Error, InvalidInput, Result};
use crate::ops::{Delete, Get, Put};
use crate::options::ReadOptions;
use crate::row::Row;
use crate::scan::{after_row, ordered_pieces, RowLimit, RowStream, Scan, ScanMode, ScanStats};
use crate::table::Table;
use cursor::QueryDigest;
pub use cursor::{CursorError, CursorKey, SaltedCursor};
use merge::{Head, Merge};
use source::{BucketSource, LogicalOffset, SaltPrefixes, SameForEvery};

/// A table whose row keys follow a salted [`Schema`].
#[derive(Debug, Clone)]
pub struct SaltedTable {
    table: Table,
    schema: Arc<Schema>,
    cursor_key: Option<CursorKey>,
}

impl Table {
    /// Binds this table to a key schema (usually salted).
    pub fn salted(&self, schema: Schema) -> SaltedTable {
        SaltedTable { table: self.clone(), schema: Arc::new(schema), cursor_key: None }
    }
}

/// A row of a salted table, with the range it came from and its logical key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaltedRow {
    /// The row as stored (its key includes the salt).
    pub row: Row,
    /// Index of the planned range the row came from.
    pub range: usize,
    /// Where the logical key starts in `row.key()`.
    logical_offset: usize,
}

impl SaltedRow {
    /// The key without its salt: what the merge orders by.
    pub fn logical_key(&self) -> &[u8] {
        self.row.key().get(self.logical_offset..).unwrap_or_default()
    }

    /// The logical key as `Bytes` (shares the row key's memory).
    pub fn logical_key_bytes(&self) -> Bytes {
        let key = self.row.key_bytes();
        key.slice(self.logical_offset.min(key.len())..)
    }

    /// Decodes the logical key's field values.
    pub fn values(&self, schema: &Schema) -> Result<Vec<Value>> {
        Ok(schema.decode_logical(self.logical_key())?)
    }
}

impl SaltedTable {
    /// The plain table underneath.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The key schema.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// Signs and checks this table's scan cursors with `key` (default:
    /// [`CursorKey::process_default`], random per process, so cursors do not survive a
    /// restart). Give every process of a service the same key to page across them
    /// ([`CursorKey::new`] from a configured secret, or [`CursorKey::load_or_create`]
    /// for a key file kept on one machine).
    pub fn cursor_key(mut self, key: CursorKey) -> SaltedTable {
        self.cursor_key = Some(key);
        self
    }

    /// The stored (salted) key for these field values.
    pub fn key(&self, values: &[Value]) -> Result<Bytes> {
        Ok(self.schema.encode(values)?)
    }

    /// A put on the row for these values; add cells and pass it to
    /// [`Table::put`] / [`Table::put_many`] (or use [`SaltedTable::put`]).
    pub fn new_put(&self, values: &[Value]) -> Result<Put> {
        Ok(Put::new(self.key(values)?))
    }

    /// Writes cells to the row for these values.
    pub async fn put(&self, values: &[Value], build: impl FnOnce(Put) -> Put) -> Result<()> {
        self.table.put(build(self.new_put(values)?)).await
    }

    /// Reads the row for these values.
    pub async fn get(&self, values: &[Value]) -> Result<Row> {
        self.table.get(Get::new(self.key(values)?)).await
    }

    /// Reads many rows: grouped by salt bucket (one batched call per bucket, run
    /// concurrently), answers in the order asked.
    pub async fn get_many(&self, keys: &[Vec<Value>]) -> Result<Vec<Row>> {
        let mut groups: HashMap<Option<u32>, Vec<(usize, Bytes)>> = HashMap::new();
        for (i, values) in keys.iter().enumerate() {
            let report = self.schema.encode_report(values)?;
            groups.entry(report.bucket).or_default().push((i, report.key));
        }
        let calls = groups.into_values().map(|group| {
            let table = self.table.clone();
            async move {
                let rows = table.get_many(group.iter().map(|(_, key)| Get::new(key.clone()))).await?;
                Ok::<_, Error>(group.into_iter().map(|(i, _)| i).zip(rows).collect::<Vec<_>>())
            }
        });
        let mut out = vec![Row::default(); keys.len()];
        for group in futures::future::try_join_all(calls).await? {
            for (i, row) in group {
                out[i] = row;
            }
        }
        Ok(out)
    }

    /// Deletes the whole row for these values.
    pub async fn delete(&self, values: &[Value]) -> Result<()> {
        self.table.delete(Delete::row(self.key(values)?)).await
    }

    /// A merged scan of the rows matching `query` (see [`SaltedScan`]).
    pub fn scan(&self, query: Query) -> SaltedScan {
        SaltedScan {
            salted: self.clone(),
            query,
            template: Scan::new(),
            limit: None,
            ordered: true,
            concurrency: 16,
            split_by_regions: false,
            resume: None,
            cursor_key: self.cursor_key.clone(),
        }
    }
}

/// A merged scan over a salted table, built by [`SaltedTable::scan`].
#[derive(Debug, Clone)]
pub struct SaltedScan {
    salted: SaltedTable,
    query: Query,
    template: Scan,
    limit: Option<u64>,
    ordered: bool,
    concurrency: usize,
    split_by_regions: bool,
    resume: Option<SaltedCursor>,
    cursor_key: Option<CursorKey>,
}

impl SaltedScan {
    /// Settings every bucket's scan copies: columns, filter, time range, versions,
    /// caching, batch, cache_blocks, and the paging mode. The query's plan decides the
    /// bounds and direction and [`SaltedScan::limit`] the limit, so a template with
    /// bounds, a limit or `reversed` set is refused when the scan starts
    /// ([`InvalidInput::Option`]).
    pub fn template(mut self, scan: Scan) -> Self {
        self.template = scan;
        self
    }

    /// The read options every bucket's scan uses (columns, filter, versions, time
    /// range, caching, batch, block caching).
    pub fn read_options(mut self, options: ReadOptions) -> Self {
        self.template = self.template.read_options(options);
        self
    }

    /// At most `rows` rows in all; buckets never fetch more than this.
    pub fn limit(mut self, rows: u64) -> Self {
        self.limit = Some(rows);
        self
    }

    /// `false`: rows as they arrive from any bucket (for aggregations); default `true`.
    pub fn ordered(mut self, ordered: bool) -> Self {
        self.ordered = ordered;
        self
    }

    /// Most buckets fetching a page at the same moment (default 16).
    pub fn concurrency(mut self, buckets: usize) -> Self {
        self.concurrency = buckets.max(1);
        self
    }

    /// Cut each bucket's range at region boundaries and scan the pieces in parallel,
    /// concatenated in order: more parallelism on large tables.
    pub fn split_by_regions(mut self, split: bool) -> Self {
        self.split_by_regions = split;
        self
    }

    /// Continue a previous run of the same query from its cursor. When the scan starts,
    /// the cursor must be this query's, verify under this scan's [`CursorKey`], and
    /// point inside each planned range; otherwise [`InvalidInput::Cursor`].
    pub fn resume(mut self, cursor: SaltedCursor) -> Self {
        self.resume = Some(cursor);
        self
    }

    /// Signs and checks cursors with `key` instead of the table's (see
    /// [`SaltedTable::cursor_key`]).
    pub fn cursor_key(mut self, key: CursorKey) -> Self {
        self.cursor_key = Some(key);
        self
    }

    /// The ranges this scan will run.
    pub fn plan(&self) -> Result<ScanPlan> {
        Ok(self.salted.schema.plan(&self.query)?)
    }

    /// Starts every bucket's scan and returns the merged stream.
    pub async fn stream(self) -> Result<SaltedStream> {
        check_template(&self.template)?;
        let plan = self.plan()?;
        let reversed = plan.reverse;
        let query = QueryDigest::of(self.salted.table.name(), &plan);
        let cursor_key = match &self.cursor_key {
            Some(key) => key.clone(),
            None => CursorKey::process_default()?,
        };
        let mut last: Vec<Option<Bytes>> = vec![None; plan.ranges.len()];
        if let Some(cursor) = &self.resume {
            last = cursor.verify(&cursor_key, &query, &plan)?.to_vec();
        }
        let regions = if self.split_by_regions { self.salted.table.region_locations().await? } else { Vec::new() };
        let gate = Arc::new(tokio::sync::Semaphore::new(self.concurrency));
        let mut ranges = Vec::with_capacity(plan.ranges.len());
        for (index, range) in plan.ranges.iter().enumerate() {
            let (mut start, mut stop) = (range.start.clone(), range.stop.clone());
            if let Some(key) = &last[index] {
                (start, stop) = after_row(&start, &stop, key, reversed);
            }
            // Without regions (no split asked for), the whole range is one piece.
            let pieces = ordered_pieces(&start, &stop, &regions, reversed);
            let mut streams = Vec::new();
            for (piece_start, piece_stop) in pieces {
                let mut scan = self.template.clone().start(piece_start).stop(piece_stop).reversed(reversed);
                scan.limit = self.limit;
                streams.push(self.salted.table.scan_in_mode(scan, ScanMode::SaltedBucket { gate: Arc::clone(&gate) })?);
            }
            ranges.push(streams);
        }
        let settings = Merged { ordered: self.ordered, limit: self.limit, query, cursor_key };
        Ok(SaltedStream::assemble(Arc::clone(&self.salted.schema), &plan, ranges, last, settings))
    }
}

/// How a [`SaltedStream`] merges and what its cursors say, besides its sources.
struct Merged {
    ordered: bool,
    limit: Option<u64>,
    query: QueryDigest,
    cursor_key: CursorKey,
}

impl SaltedStream {
    /// The merged stream of `plan`'s ranges: `ranges[i]` are range `i`'s pieces in
    /// scan order, `last[i]` its last key returned before (when resuming).
    fn assemble(
        schema: Arc<Schema>,
        plan: &ScanPlan,
        ranges: Vec<Vec<RowStream>>,
        last: Vec<Option<Bytes>>,
        settings: Merged,
    ) -> SaltedStream {
        let mut sources = Vec::with_capacity(ranges.len());
        let mut stats = Vec::with_capacity(ranges.len());
        for (index, (range, pieces)) in plan.ranges.iter().zip(ranges).enumerate() {
            let pieces_stats = pieces.iter().map(RowStream::stats).collect();
            stats.push(BucketStats { bucket: range.bucket, range: index, pieces: pieces_stats, emitted: 0 });
            sources.push(BucketSource::new(pieces));
        }
        // Each range's salt prefix, once: rows need no parse of their salt.
        let prefixes = SaltPrefixes::new(schema, plan.ranges.iter().map(|range| range.bucket));
        let inner = if settings.ordered {
            Inner::Ordered(Merge::new(sources, plan.reverse, prefixes))
        } else {
            let tagged = sources
                .into_iter()
                .enumerate()
                .map(|(i, s)| -> TaggedStream { Box::pin(s.map(move |r| r.map(|row| (i, row)))) });
            Inner::Unordered(futures::stream::select_all(tagged), prefixes)
        };
        SaltedStream {
            inner,
            // No limit: nothing to count per row.
            limit: settings.limit.map(|rows| RowLimit::new(Some(rows))),
            last: last.into_iter().map(|key| key.map(|key| key.to_vec())).collect(),
            query: settings.query,
            cursor_key: settings.cursor_key,
            stats,
            done: false,
        }
    }
}

/// The crate's benchmarks' way in (feature `bench-internals`).
#[cfg(feature = "bench-internals")]
impl SaltedStream {
    /// The ordered merged stream of `plan` over rows already fetched: `pages[i]` are
    /// range `i`'s pages, as its bucket's scan would deliver them.
    pub(crate) fn from_pages(schema: Schema, plan: &ScanPlan, pages: Vec<Vec<Vec<Row>>>) -> Result<SaltedStream> {
        let mut ranges = Vec::with_capacity(plan.ranges.len());
        for range_pages in pages {
            let (tx, rx) = tokio::sync::mpsc::channel(range_pages.len().max(1));
            for page in range_pages {
                tx.try_send(Ok(page)).map_err(|_| InvalidInput::Option("a page did not fit the channel".into()))?;
            }
            ranges.push(vec![RowStream::from_pages(rx)]);
        }
        let settings = Merged {
            ordered: true,
            limit: None,
            query: QueryDigest::of("bench", plan),
            cursor_key: CursorKey::process_default()?,
        };
        Ok(SaltedStream::assemble(Arc::new(schema), plan, ranges, vec![None; plan.ranges.len()], settings))
    }
}

/// Refuses a template whose bounds, limit or direction would be silently overridden.
fn check_template(template: &Scan) -> Result<()> {
    let what = if !template.start_key().is_empty() || !template.stop_key().is_empty() {
        "start/stop bounds (the query's plan decides each bucket's range)"
    } else if template.limit_rows().is_some() {
        "a limit (use SaltedScan::limit)"
    } else if template.is_reversed() {
        "reversed (use Query::reverse)"
    } else if template.regions_in_parallel() > 1 {
        "parallel_regions (use SaltedScan::split_by_regions and SaltedScan::concurrency)"
    } else {
        return Ok(());
    };
    Err(InvalidInput::Option(format!("a salted scan's template must not set {what}")).into())
}

type TaggedStream = Pin<Box<dyn Stream<Item = Result<(usize, Row)>> + Send>>;

enum Inner {
    Ordered(Merge<BucketSource, SaltPrefixes>),
    Unordered(SelectAll<TaggedStream>, SaltPrefixes),
    /// Ended, every source dropped.
    Finished,
}

/// Figures of one planned range of a salted scan.
#[derive(Debug, Clone)]
pub struct BucketStats {
    /// The salt bucket, if the schema is salted.
    pub bucket: Option<u32>,
    /// Index of the range in the plan.
    pub range: usize,
    pieces: Vec<Arc<ScanStats>>,
    /// Rows this range contributed to the merged stream so far.
    pub emitted: u64,
}

impl BucketStats {
    /// Rows fetched from the server (may exceed `emitted` by up to a page).
    pub fn rows_fetched(&self) -> u64 {
        self.pieces.iter().map(|p| p.rows()).sum()
    }
    /// Pages fetched.
    pub fn pages(&self) -> u64 {
        self.pieces.iter().map(|p| p.pages()).sum()
    }
    /// Scanner reopens (expiry or broken connections).
    pub fn reopens(&self) -> u64 {
        self.pieces.iter().map(|p| p.reopens()).sum()
    }
    /// Time from the start to this range's first row.
    pub fn time_to_first_row(&self) -> Option<Duration> {
        self.pieces.iter().filter_map(|p| p.time_to_first_row()).min()
    }
    /// Time from the start until the range's last piece finished, if it has.
    pub fn finished_after(&self) -> Option<Duration> {
        self.pieces.iter().map(|p| p.finished_after()).collect::<Option<Vec<_>>>()?.into_iter().max()
    }
}

/// The merged rows of a salted scan. Dropping it stops every bucket's scan.
pub struct SaltedStream {
    inner: Inner,
    /// `None` without a limit.
    limit: Option<RowLimit>,
    /// Each range's last key returned (its cursor position), copied into a buffer the
    /// range keeps: no reference count taken and dropped per row.
    last: Vec<Option<Vec<u8>>>,
    query: QueryDigest,
    cursor_key: CursorKey,
    stats: Vec<BucketStats>,
    done: bool,
}

impl std::fmt::Debug for SaltedStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SaltedStream").field("ranges", &self.stats.len()).finish_non_exhaustive()
    }
}

impl SaltedStream {
    /// The position after the last row returned, signed with the scan's
    /// [`CursorKey`]: pass it to [`SaltedScan::resume`] to continue later. With `batch`
    /// set, a cursor taken inside a wide row resumes at the start of that row.
    pub fn cursor(&self) -> SaltedCursor {
        let positions = self.last.iter().map(|key| key.as_deref().map(Bytes::copy_from_slice)).collect();
        SaltedCursor::issue(&self.cursor_key, &self.query, positions)
    }

    /// Per-range figures so far.
    pub fn bucket_stats(&self) -> &[BucketStats] {
        &self.stats
    }

    /// Skew of the rows contributed per range: max / mean (1.0 = perfectly even).
    pub fn skew(&self) -> f64 {
        let counts: Vec<u64> = self.stats.iter().map(|s| s.emitted).collect();
        let total: u64 = counts.iter().sum();
        if counts.is_empty() || total == 0 {
            return 1.0;
        }
        let mean = total as f64 / counts.len() as f64;
        counts.iter().copied().max().unwrap_or(0) as f64 / mean
    }

    fn finish(&mut self) {
        self.done = true;
        // Dropping the sources stops their workers, which close their scanners.
        self.inner = Inner::Finished;
    }
}

impl Stream for SaltedStream {
    type Item = Result<SaltedRow>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done || this.limit.as_ref().is_some_and(RowLimit::finished) {
            if !this.done {
                this.finish();
            }
            return Poll::Ready(None);
        }
        let next = match &mut this.inner {
            Inner::Ordered(merge) => match Pin::new(merge).poll_next(cx) {
                Poll::Ready(Some(Ok(Head { offset, source, row }))) => Some(Ok((offset, source, row))),
                Poll::Ready(Some(Err(e))) => Some(Err(e)),
                Poll::Ready(None) => None,
                Poll::Pending => return Poll::Pending,
            },
            Inner::Unordered(select, logical) => match Pin::new(select).poll_next(cx) {
                Poll::Ready(Some(Ok((source, row)))) => {
                    Some(logical.offset(source, row.key()).map(|l| (l, source, row)))
                }
                Poll::Ready(Some(Err(e))) => Some(Err(e)),
                Poll::Ready(None) => None,
                Poll::Pending => return Poll::Pending,
            },
            Inner::Finished => None,
        };
        match next {
            None => {
                this.finish();
                Poll::Ready(None)
            }
            Some(Err(e)) => {
                this.finish();
                Poll::Ready(Some(Err(e)))
            }
            Some(Ok((logical_offset, range, row))) => {
                if let Some(limit) = &mut this.limit {
                    if !limit.admit(&row) {
                        this.finish();
                        return Poll::Ready(None);
                    }
                }
                if !row.is_partial() {
                    match this.last.get_mut(range) {
                        Some(Some(position)) => {
                            position.clear();
                            position.extend_from_slice(row.key());
                        }
                        Some(position @ None) => *position = Some(row.key().to_vec()),
                        None => {}
                    }
                    if let Some(stats) = this.stats.get_mut(range) {
                        stats.emitted += 1;
                    }
                }
                Poll::Ready(Some(Ok(SaltedRow { row, range, logical_offset })))
            }
        }
    }
}

/// Merges streams that are each sorted by their keys' logical part (ascending, or
/// descending when `descending`) into one sorted stream of `(source index, row)`;
/// `logical(key)` says where a key's logical part starts (its salt's length). Ties go
/// to the lower source index. This is the merge behind [`SaltedStream`], public for
/// callers that bring their own ordered streams.
pub fn merge_ordered<S, F>(
    sources: Vec<S>,
    descending: bool,
    logical: F,
) -> impl Stream<Item = Result<(usize, Row)>> + Unpin
where
    S: Stream<Item = Result<Row>> + Unpin,
    F: Fn(&[u8]) -> Result<usize> + Unpin,
{
    Merge::new(sources, descending, SameForEvery(logical)).map(|head| head.map(|h| (h.source, h.row)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_rowkey::{FieldType, Salt};

    /// A salted table on an address nothing listens on: every refusal below happens
    /// before anything is sent.
    fn offline() -> SaltedTable {
        let client = crate::Client::builder().address("127.0.0.1:9").build().unwrap();
        let schema = Schema::builder().field("n", FieldType::U64).salt(Salt::modulo("n", 4)).build().unwrap();
        client.table("t").unwrap().salted(schema)
    }

    fn refusal(result: Result<SaltedStream>) -> InvalidInput {
        match result {
            Err(Error::InvalidInput(e)) => e,
            Err(e) => panic!("expected InvalidInput, got {e}"),
            Ok(_) => panic!("expected a refusal"),
        }
    }

    #[tokio::test]
    async fn a_template_with_bounds_limit_or_direction_is_refused() {
        for template in [
            Scan::new().start("a"),
            Scan::new().stop("z"),
            Scan::new().prefix("p"),
            Scan::new().limit(5),
            Scan::new().reversed(true),
            Scan::new().parallel_regions(4),
        ] {
            let e = refusal(offline().scan(Query::new()).template(template.clone()).stream().await);
            assert!(matches!(e, InvalidInput::Option(_)), "{template:?}: {e}");
        }
    }

    #[tokio::test]
    async fn cursors_of_other_queries_keys_or_ranges_are_refused_before_scanning() {
        let table = offline();
        let key = CursorKey::new(b"a secret of sixteen bytes or more").unwrap();
        let plan = table.scan(Query::new()).plan().unwrap();
        let query = QueryDigest::of("t", &plan);
        let mut positions: Vec<Option<Bytes>> = plan.ranges.iter().map(|r| Some(r.start.clone())).collect();
        let good = SaltedCursor::issue(&key, &query, positions.clone());
        let with_key = |q: Query, c: &SaltedCursor| table.clone().cursor_key(key.clone()).scan(q).resume(c.clone());
        // Another key (the per-process default), another direction.
        let e = refusal(table.scan(Query::new()).resume(good.clone()).stream().await);
        assert_eq!(e, InvalidInput::Cursor(CursorError::Signature));
        let e = refusal(with_key(Query::new().reverse(true), &good).stream().await);
        assert_eq!(e, InvalidInput::Cursor(CursorError::OtherQuery));
        // Signed, but a position in the previous bucket.
        positions[1] = Some(Bytes::from_static(b"\x00\xff"));
        let outside = SaltedCursor::issue(&key, &query, positions);
        let e = refusal(with_key(Query::new(), &outside).stream().await);
        assert_eq!(e, InvalidInput::Cursor(CursorError::OutOfRange { range: 1 }));
    }
}
