//! Scans as `futures::Stream`s of rows.
//!
//! A scan runs in a background task ([`crate::scan_worker`]) that pages through
//! `openScanner` / `getScannerRows`, one page ahead of the consumer (memory is bounded by
//! two pages; pages grow from small to about 2 MiB unless `caching` is set, see
//! [`crate::paging`]). A scan with [`Scan::parallel_regions`] runs one such task per
//! region range, several at once, and yields their rows in order
//! ([`crate::region_scan`]). Its server-side scanner is pinned to the connection that opened it: the
//! id is only ever used on that connection, so a restarted gateway or a load balancer
//! can never hand the scan another scanner's rows. Every page is checked against the
//! scan's range and direction before a row is delivered. When the scanner expires, the
//! connection is lost or a page fails the checks, the scan reopens just after the last
//! row it returned: no row twice, no row missed. Dropping the stream stops the task,
//! which closes the server-side scanner.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures::Stream;
use tokio::sync::mpsc;

use crate::client::Client;
use crate::error::{InvalidInput, Result};
use crate::filter::Filter;
use crate::options::ReadOptions;
use crate::paging::PagePlan;
use crate::row::Row;
use crate::scan_worker::Worker;

/// How a scan fetches its pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ScanPaging {
    /// A server-side scanner (`openScanner` + `getScannerRows`), pinned to the
    /// connection that opened it. The fastest: the region server keeps its place.
    ///
    /// The trade-off: while the scanner is open, its TCP connection stays with the scan
    /// (out of the pool's idle list), even while the consumer is busy between pages; a
    /// pool *slot* is taken only during each call, so open scans never starve other
    /// calls of slots, but each open scan is one more socket (and one more gateway
    /// worker thread). Salted scans over hundreds of buckets that page slowly may
    /// prefer [`ScanPaging::Stateless`], which holds nothing between pages.
    #[default]
    Scanner,
    /// Every page is a stateless `getScannerResults` call (open, read, close on the
    /// server) starting after the last row returned, on any connection to any gateway:
    /// nothing lives between pages, so no scanner can expire or be confused, at the
    /// cost of a region seek per page. Each page is a new server-side scan, so a scan
    /// whose answer needs one server-side scanner's state is refused
    /// ([`InvalidInput::Option`], before sending): a filter with state across rows
    /// (`Filter::page`, `Filter::while_match`, `Filter::column_count_get`, anywhere in
    /// the filter), and a limit with `batch`. Read those with [`ScanPaging::Scanner`].
    Stateless,
}

/// A scan over `[start, stop)` of row keys, forward or reversed. Bounds are always
/// given in key order, whatever the direction: a reversed scan of `[b, d)` yields the
/// rows of `[b, d)` from the largest down (HBase's own reversed `TScan` starts at the
/// *larger* key; Basalt translates).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scan {
    pub(crate) start: Bytes,
    pub(crate) stop: Bytes,
    pub(crate) read: ReadOptions,
    pub(crate) limit: Option<u64>,
    pub(crate) reversed: bool,
    pub(crate) paging: ScanPaging,
    /// Regions read at once ([`Scan::parallel_regions`]); 1: one scanner.
    pub(crate) parallel: usize,
    /// An explicit on-demand column family loading setting (refused: see
    /// [`Scan::load_column_families_on_demand`]).
    pub(crate) on_demand: Option<bool>,
}

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
            read: ReadOptions::default(),
            limit: None,
            reversed: false,
            paging: ScanPaging::Scanner,
            parallel: 1,
            on_demand: None,
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

    /// Rows with keys `> start` (exclusive): the same as `start(start + [0x00])`, the
    /// smallest key after it.
    pub fn start_exclusive(self, start: impl AsRef<[u8]>) -> Scan {
        self.start(successor(start.as_ref()))
    }

    /// Rows with keys `<= stop` (inclusive): the same as `stop(stop + [0x00])`, the
    /// smallest key after it. A reversed scan then starts exactly at `stop`.
    pub fn stop_inclusive(self, stop: impl AsRef<[u8]>) -> Scan {
        self.stop(successor(stop.as_ref()))
    }

    /// Rows whose key starts with `prefix`: `[prefix, successor(prefix))`, so
    /// `host1` never matches `host12`'s rows unless they share the prefix bytes.
    pub fn prefix(mut self, prefix: impl Into<Bytes>) -> Scan {
        let prefix = prefix.into();
        self.stop = basalt_rowkey::prefix_successor(&prefix).unwrap_or_default();
        self.start = prefix;
        self
    }

    /// Replaces the read options (columns, filter, versions, time range, caching,
    /// batch, block caching).
    pub fn read_options(mut self, options: ReadOptions) -> Scan {
        self.read = options;
        self
    }

    /// The read options.
    pub fn options(&self) -> &ReadOptions {
        &self.read
    }

    /// Only this column (may be called repeatedly).
    pub fn column(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Scan {
        self.read = self.read.column(family, qualifier);
        self
    }

    /// Every column of this family (may be called repeatedly).
    pub fn family(mut self, family: impl Into<Bytes>) -> Scan {
        self.read = self.read.family(family);
        self
    }

    /// A server-side filter.
    pub fn filter(mut self, filter: Filter) -> Scan {
        self.read = self.read.filter(filter);
        self
    }

    /// Only versions with `min <= timestamp < max`.
    pub fn time_range(mut self, min: i64, max: i64) -> Scan {
        self.read = self.read.time_range(min, max);
        self
    }

    /// Only cells written at exactly `ts` (the time range `[ts, ts + 1)`, as Java's
    /// `Scan.setTimestamp`); not together with [`Scan::time_range`].
    pub fn timestamp(mut self, ts: i64) -> Scan {
        self.read = self.read.timestamp(ts);
        self
    }

    /// In `family`, only versions with `min <= timestamp < max` (Java's
    /// `setColumnFamilyTimeRange`); other families keep the scan's time range.
    pub fn family_time_range(mut self, family: impl Into<Bytes>, min: i64, max: i64) -> Scan {
        self.read = self.read.family_time_range(family, min, max);
        self
    }

    /// Java's `Scan.setLoadColumnFamiliesOnDemand`. Refused when the scan starts, with
    /// [`InvalidInput::Untranslatable`]: the Thrift2 gateway builds its scan without
    /// this setting (its `TScan` has no such field and no attribute sets it), so the
    /// region server's default (`hbase.hregion.scan.loadColumnFamiliesOnDemand`)
    /// always applies.
    pub fn load_column_families_on_demand(mut self, on_demand: bool) -> Scan {
        self.on_demand = Some(on_demand);
        self
    }

    /// Up to `n` versions per column (default 1).
    pub fn max_versions(mut self, n: u32) -> Scan {
        self.read = self.read.max_versions(n);
        self
    }

    /// Rows per round trip, every page exactly (also the gateway's caching toward the
    /// region server). When not set, pages start at
    /// [`FIRST_PAGE_ROWS`](crate::tuning::FIRST_PAGE_ROWS) for a fast first row and grow
    /// toward about [`PAGE_TARGET_BYTES`](crate::tuning::PAGE_TARGET_BYTES) per reply.
    pub fn caching(mut self, rows: u32) -> Scan {
        self.read = self.read.caching(rows);
        self
    }

    /// At most `cells` cells per returned item: wide rows come back in parts, each
    /// a [`Row`] whose [`Row::is_partial`] is true, except the last.
    pub fn batch(mut self, cells: u32) -> Scan {
        self.read = self.read.batch(cells);
        self
    }

    /// At most `rows` rows in all. With [`Scan::batch`], a row counts once, when its
    /// first part arrives, and all its parts are delivered (as the Java client does).
    pub fn limit(mut self, rows: u64) -> Scan {
        self.limit = Some(rows);
        self
    }

    /// From the largest key down.
    ///
    /// HBase's reversed scan starts at an *inclusive* row, while `stop` is exclusive. A
    /// reversed scan without a filter starts at `stop` itself and drops that row here;
    /// with a filter, the server must never see it (a page filter would count it, a
    /// while-match filter stop on it), so the scan starts at the greatest key below
    /// `stop`: `stop` less its last byte if that is 0x00, else `stop` with its last
    /// byte decremented and padded with 0xFF to the table's longest row key
    /// ([`max_row_key_len`](crate::max_row_key_len), about 32 KB). That bound is exact
    /// for every row key HBase can locate; it costs about 32 KB more per scanner open
    /// (no latency difference was measurable: 10-row scans, median of 100, 12.6 ms
    /// padded and 14.3 ms short, debug build, local HBase 2.6). The same holds when a reversed
    /// scan reopens after its last row.
    pub fn reversed(mut self, reversed: bool) -> Scan {
        self.reversed = reversed;
        self
    }

    /// Whether the blocks read are cached on the region server.
    pub fn cache_blocks(mut self, cache: bool) -> Scan {
        self.read = self.read.cache_blocks(cache);
        self
    }

    /// How pages are fetched (default [`ScanPaging::Scanner`]).
    pub fn paging(mut self, paging: ScanPaging) -> Scan {
        self.paging = paging;
        self
    }

    /// Reads up to `regions` of the table's regions at once, still yielding exactly the
    /// rows of the plain scan, in the same order (default 1: one scanner).
    ///
    /// When the scan starts, its range is cut at the table's region boundaries
    /// (fetched once); up to `regions` pieces are scanned concurrently, each by its own
    /// scanner with the plain scan's recovery and checks, and their rows are yielded
    /// piece after piece in key order (reversed scans: from the last region down). The
    /// pieces are key ranges, not region ids: a region that splits or moves during the
    /// scan changes nothing about the rows returned. The limit counts over all pieces;
    /// when it is reached, or on the first error (returned once), or when the stream
    /// is dropped, every piece's scanner is closed.
    ///
    /// Memory: each running piece holds at most
    /// [`PARALLEL_PAGES_AHEAD`](crate::tuning::PARALLEL_PAGES_AHEAD) pages (fetched or being
    /// fetched) ahead of the consumer; with `caching` unset a piece's pages grow to
    /// about [`PARALLEL_PAGE_TARGET_BYTES`](crate::tuning::PARALLEL_PAGE_TARGET_BYTES) (the
    /// first piece starts small for a fast first row, the others at
    /// [`PARALLEL_FIRST_PAGE_ROWS`](crate::tuning::PARALLEL_FIRST_PAGE_ROWS)), so the rows held
    /// are at most about `regions x PARALLEL_PAGES_AHEAD` such pages (32 MiB for 8
    /// regions), plus three pages on their way to the consumer. With `caching(n)`, read
    /// `n` rows for a page. Each running piece also holds one connection (out of the
    /// pool's idle list, like any open scanner).
    ///
    /// The gain: while the consumer reads one region, the next `regions - 1` are read
    /// ahead by other gateway threads and region server handlers, instead of one page at
    /// a time. It is bounded by the read-ahead: a piece that becomes the first has its
    /// first `PARALLEL_PAGES_AHEAD` pages ready and reads the rest of its region alone,
    /// so regions much larger than the read-ahead gain less. For a short range inside
    /// one region it costs one extra call (the region boundaries).
    ///
    /// Each piece is its own server-side scan, as each region is in the Java client.
    /// Two kinds of scan are read with one scanner, region after region, whatever
    /// `regions` says, so that they give the Java client's answer: a scan with both a
    /// limit and `batch` (HBase counts such a limit itself, across regions), and a scan
    /// whose filter can end the whole scan (`Filter::while_match`, `Filter::page`,
    /// `Filter::column_count_get`, anywhere in the filter): HBase decides, as such a
    /// filter ends in one region, whether the scan goes on to the next (a while-match
    /// filter done before its region returned any row ends the whole scan), which
    /// regions read at once cannot know.
    pub fn parallel_regions(mut self, regions: usize) -> Scan {
        self.parallel = regions.max(1);
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

    /// The row limit, if any.
    pub fn limit_rows(&self) -> Option<u64> {
        self.limit
    }

    /// How many regions are read at once (1: one scanner).
    pub fn regions_in_parallel(&self) -> usize {
        self.parallel
    }

    pub(crate) fn validate(&self) -> Result<()> {
        self.read.validate()?;
        crate::filter::check_scan(&self.read, self.reversed)?;
        if self.on_demand.is_some() {
            return Err(InvalidInput::Untranslatable {
                what: "load_column_families_on_demand",
                why: "the gateway's TScan has no such field, so the region server's default always applies",
            }
            .into());
        }
        self.check_stateless_paging()?;
        // `start_exclusive(k).stop(k)` is the empty range (k, k): no rows, as in Java.
        let just_after_stop = self.start.len() == self.stop.len() + 1
            && self.start.starts_with(&self.stop)
            && self.start.last() == Some(&0);
        if !self.start.is_empty() && !self.stop.is_empty() && self.start > self.stop && !just_after_stop {
            return Err(InvalidInput::Option("scan start is after its stop".into()).into());
        }
        Ok(())
    }

    /// What stateless paging cannot read as the Java client does, refused before
    /// sending. Each stateless page is a new server-side scan, so a filter whose state
    /// runs across rows (page, while-match, column-count-get) would start over at every
    /// page, and HBase's own count of a limit with `batch` would restart mid-row; the
    /// answers would differ from one scanner's. [`ScanPaging::Scanner`] reads both.
    fn check_stateless_paging(&self) -> Result<()> {
        if self.paging != ScanPaging::Stateless {
            return Ok(());
        }
        if let Some(class) = self.read.filter.as_ref().and_then(|f| f.scan_spanning_filter()) {
            return Err(InvalidInput::Option(format!(
                "stateless paging cannot carry a {class}: its state would restart at every page \
                 (each page is a new server-side scan); use ScanPaging::Scanner"
            ))
            .into());
        }
        if self.limit.is_some() && self.read.batch.is_some() {
            return Err(InvalidInput::Option(
                "stateless paging cannot carry a limit with batch: HBase counts such a limit itself, \
                 and each page would restart its count mid-row; use ScanPaging::Scanner"
                    .into(),
            )
            .into());
        }
        Ok(())
    }
}

/// The smallest key after `key`: `key` followed by 0x00.
fn successor(key: &[u8]) -> Bytes {
    let mut next = Vec::with_capacity(key.len() + 1);
    next.extend_from_slice(key);
    next.push(0);
    Bytes::from(next)
}

/// A salted bucket's pages when caching is not set: a merged scan holds two pages per
/// bucket, so they grow to 256 KiB only.
const SALTED_PAGES: PagePlan = PagePlan { first_rows: crate::paging::FIRST_PAGE_ROWS, target_bytes: 256 << 10 };

/// The not-yet-returned part of `[start, stop)` once the row `last` has been returned:
/// forward, everything after `last` (`[last 00, stop)`); reversed, everything before it
/// (`[start, last)`). The one place that computes "the position after the last row",
/// for plain scans, salted buckets and cursors alike.
pub(crate) fn after_row(start: &Bytes, stop: &Bytes, last: &Bytes, reversed: bool) -> (Bytes, Bytes) {
    if reversed {
        (start.clone(), last.clone())
    } else {
        let mut next = Vec::with_capacity(last.len() + 1);
        next.extend_from_slice(last);
        next.push(0);
        (Bytes::from(next), stop.clone())
    }
}

/// The greatest row key below `key` among keys of at most `max_len` bytes (HBase's
/// keys are bounded, so it exists): `key` without its last byte if that byte is 0x00,
/// else `key` with its last byte decremented and padded with 0xFF to `max_len` bytes.
/// `None` when no row key lies below `key` (it is empty or `[0x00]`).
pub(crate) fn key_before(key: &[u8], max_len: usize) -> Option<Bytes> {
    let before = if key.len() > max_len {
        // A proper prefix is smaller than the key, and the longest one is the greatest.
        key.get(..max_len)?.to_vec()
    } else {
        let (&last, head) = key.split_last()?;
        let mut before = Vec::with_capacity(if last == 0 { head.len() } else { max_len });
        before.extend_from_slice(head);
        if last != 0 {
            before.push(last - 1);
            before.resize(max_len.max(before.len()), 0xFF);
        }
        before
    };
    if before.is_empty() {
        None
    } else {
        Some(Bytes::from(before))
    }
}

/// A row limit counted as the Java client counts it: a row counts when its first item
/// arrives (its key differs from the previous item's); once the limit is used up, the
/// remaining parts of the last row still pass and the next row's key ends the scan.
/// (HBase flags a batched row's last part as partial when hidden older versions follow
/// it, so "a non-partial part" cannot be what completes a row.)
#[derive(Debug, Clone, Default)]
pub(crate) struct RowLimit {
    remaining: Option<u64>,
    /// The key of the last item passed, and whether it was flagged partial.
    current: Option<(Bytes, bool)>,
    done: bool,
}

impl RowLimit {
    /// A limit of `limit` rows (`None`: no limit).
    pub(crate) fn new(limit: Option<u64>) -> RowLimit {
        RowLimit { remaining: limit, current: None, done: false }
    }

    /// Whether the item `row` passes; `false` once the limit is over (and from then on).
    pub(crate) fn admit(&mut self, row: &Row) -> bool {
        if self.done {
            return false;
        }
        let same_row = matches!(&self.current, Some((key, _)) if key[..] == *row.key());
        if !same_row {
            if self.remaining == Some(0) {
                self.done = true;
                return false;
            }
            if let Some(n) = &mut self.remaining {
                *n -= 1;
            }
        }
        self.current = Some((row.key_bytes(), row.is_partial()));
        true
    }

    /// How many of `rows` (a prefix) pass.
    pub(crate) fn admit_page(&mut self, rows: &[Row]) -> usize {
        rows.iter().take_while(|row| self.admit(row)).count()
    }

    /// Whether nothing more can pass: the limit is used up and the last row is complete.
    pub(crate) fn finished(&self) -> bool {
        self.done || (self.remaining == Some(0) && !matches!(self.current, Some((_, true))))
    }

    /// Rows the limit still allows to start (`None`: no limit).
    pub(crate) fn remaining(&self) -> Option<u64> {
        self.remaining
    }
}

/// Live counters of one scan, shared with the stream's owner.
#[derive(Debug, Default)]
pub struct ScanStats {
    pub(crate) rows: AtomicU64,
    pub(crate) pages: AtomicU64,
    pub(crate) reopens: AtomicU64,
    pub(crate) rejected_pages: AtomicU64,
    pub(crate) first_row_micros: AtomicU64,
    pub(crate) finished_micros: AtomicU64,
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
    /// Pages refused because a row was outside the scan's range or out of order (none
    /// of their rows was delivered; the scan reopened instead).
    pub fn rejected_pages(&self) -> u64 {
        self.rejected_pages.load(Ordering::Relaxed)
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
        RowStream::start_gated(client, table, scan, None)
    }

    /// Starts a scan whose page fetches also wait on `gate` (salted scans bound how many
    /// buckets fetch at once).
    pub(crate) fn start_gated(
        client: Client,
        table: String,
        scan: Scan,
        gate: Option<Arc<tokio::sync::Semaphore>>,
    ) -> Result<RowStream> {
        scan.validate()?;
        let (tx, rx) = mpsc::channel(1);
        let stats = Arc::new(ScanStats::default());
        // A limit with batch is counted by HBase itself across regions, as the Java
        // client's one scanner sees them: read such scans with one scanner.
        // So are scans whose filter can end the whole scan (`scan_spanning_filter`): as
        // such a filter ends in one region, HBase decides whether the scan goes on to
        // the next region; regions read at once would return their rows regardless.
        let spanning = scan.read.filter.as_ref().and_then(|f| f.scan_spanning_filter()).is_some();
        let one_scanner = (scan.limit.is_some() && scan.read.batch.is_some()) || spanning;
        if scan.parallel > 1 && gate.is_none() && !one_scanner {
            crate::region_scan::spawn(client, table, scan, Arc::clone(&stats), tx);
        } else {
            // Salted buckets run many scans at once: smaller pages bound their memory.
            let plan = if gate.is_some() { SALTED_PAGES } else { PagePlan::PLAIN };
            Worker::spawn(client, table, scan, gate, Arc::clone(&stats), tx, plan);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::Cell;

    fn part(key: &str, partial: bool) -> Row {
        Row::new(Bytes::copy_from_slice(key.as_bytes()), [Cell::new("d", "q", "v", 1)]).with_partial(partial)
    }

    #[test]
    fn the_key_before_is_exact_for_bounded_keys() {
        assert_eq!(key_before(b"b", 4).unwrap(), Bytes::from_static(b"a\xff\xff\xff"));
        assert_eq!(key_before(b"b\0", 4).unwrap(), Bytes::from_static(b"b"));
        assert_eq!(key_before(b"ab", 2).unwrap(), Bytes::from_static(b"aa"));
        assert_eq!(key_before(b"abcd", 2).unwrap(), Bytes::from_static(b"ab"), "a longer key: its prefix");
        assert_eq!(key_before(b"\0", 4), None);
        assert_eq!(key_before(b"", 4), None);
        // Over keys of at most 3 bytes from {00, 01, ff}: the answer is below the bound,
        // at most 3 bytes, and no key lies strictly between them.
        let alphabet = [0u8, 1, 0xff];
        let mut keys = vec![Vec::new()];
        for _ in 0..3 {
            let longer: Vec<Vec<u8>> =
                keys.iter().flat_map(|k| alphabet.iter().map(move |b| [k.clone(), vec![*b]].concat())).collect();
            keys.extend(longer);
        }
        keys.retain(|k| !k.is_empty() && k.len() <= 3);
        keys.sort();
        keys.dedup();
        for bound in &keys {
            match key_before(bound, 3) {
                Some(got) => {
                    assert!(got[..] < bound[..] && got.len() <= 3, "bound {bound:02x?}: {got:02x?}");
                    let between = keys.iter().find(|k| k[..] > got[..] && *k < bound);
                    assert_eq!(between, None, "bound {bound:02x?}: {got:02x?}");
                }
                None => assert!(keys.iter().all(|k| k >= bound), "bound {bound:02x?}"),
            }
        }
    }

    #[test]
    fn the_limit_counts_a_row_at_its_first_part() {
        let mut limit = RowLimit::new(Some(1));
        // The last part of m1 is flagged partial (hidden older versions follow it).
        assert_eq!(limit.admit_page(&[part("m1", true), part("m1", true)]), 2);
        assert!(!limit.finished(), "m1 may have more parts");
        assert_eq!(limit.admit_page(&[part("m2", false)]), 0);
        assert!(limit.finished());
        let mut limit = RowLimit::new(Some(2));
        assert_eq!(limit.admit_page(&[part("a", true), part("a", false), part("b", false), part("c", false)]), 3);
        assert!(limit.finished());
        let mut none = RowLimit::new(None);
        assert_eq!(none.admit_page(&[part("a", false), part("b", true)]), 2);
        assert!(!none.finished());
    }
}
