//! The scan spec, free of I/O: the [`Scan`] builder, its paging, its validation, and
//! the [`ScanMode`] a scan runs in.

use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::Semaphore;

use crate::error::{InvalidInput, Result};
use crate::filter::{check_scan_filter, Filter};
use crate::options::{ColumnSpec, Consistency, ReadOptions};
use crate::request::{ColumnSelection, ScanExtras};

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
    /// Raw scans, per-family windows, partial rows ([`Scan::raw`],
    /// [`Scan::max_results_per_family`], [`Scan::allow_partial_results`]).
    pub(crate) extras: ScanExtras,
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
            extras: ScanExtras::default(),
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

    /// Java's `Scan.setLoadColumnFamiliesOnDemand`: whether the families a filter does
    /// not need (`SingleColumnValueFilter` with `filter_if_missing` needs only its own)
    /// are read only for the rows it keeps. Unset, the region server's default
    /// (`hbase.hregion.scan.loadColumnFamiliesOnDemand`, on) applies; HBase refuses a
    /// reversed scan that would load a family on demand, so `false` lets such a scan be
    /// answered. Native RPC carries it; through the Thrift2 gateway it is refused with
    /// [`InvalidInput::Untranslatable`] (its `TScan` has no such field and no attribute
    /// sets it).
    pub fn load_column_families_on_demand(mut self, on_demand: bool) -> Scan {
        self.on_demand = Some(on_demand);
        self
    }

    /// A raw scan (Java's `Scan.setRaw`): delete markers and the cells they hide, not
    /// yet collected by a major compaction, are returned with the values; each cell
    /// says what it is ([`CellRef::cell_type`](crate::CellRef::cell_type)). Both
    /// transports carry it (HBase's scan attribute `_raw_`). HBase refuses a raw scan
    /// that names columns (whole families are fine): refused before sending
    /// ([`InvalidInput::Option`]).
    pub fn raw(mut self, raw: bool) -> Scan {
        self.extras.raw = raw;
        self
    }

    /// At most `n` cells of each family of each row (Java's
    /// `Scan.setMaxResultsPerColumnFamily`), counted after the columns, versions and
    /// time range, before the filter. Native RPC carries it; the gateway's `TScan` has
    /// no such field, so through the gateway it is refused
    /// ([`InvalidInput::Untranslatable`]); a get carries it on both.
    pub fn max_results_per_family(mut self, n: u32) -> Scan {
        self.extras.window.limit = Some(n);
        self
    }

    /// Skips the first `n` cells of each family of each row (Java's
    /// `Scan.setRowOffsetPerColumnFamily`), counted as
    /// [`Scan::max_results_per_family`] counts; native RPC only, as it.
    pub fn row_offset_per_family(mut self, n: u32) -> Scan {
        self.extras.window.offset = Some(n);
        self
    }

    /// Java's `Scan.setAllowPartialResults`: rows are handed out in the pieces the
    /// region server sends (a row larger than [`Scan::max_result_size`] comes in several
    /// items, each but the last [`Row::is_partial`](crate::Row::is_partial)), never
    /// joined; with [`Scan::batch`], the server's pieces are not regrouped either, and a
    /// limit counts rows as the Java client counts pieces. Native RPC carries it; the
    /// gateway's scanner always joins rows, so there it is refused
    /// ([`InvalidInput::Untranslatable`]). Stateless paging refuses it too (a page
    /// restarting inside a row would cut it elsewhere).
    pub fn allow_partial_results(mut self, allow: bool) -> Scan {
        self.extras.allow_partial = allow;
        self
    }

    /// Bytes a region server returns per call at most (Java's `Scan.setMaxResultSize`;
    /// default: the Java client's 2 MiB). Without partial results or `batch` it changes
    /// only how rows travel (and with a limit of 0, what the first reply holds). Native
    /// RPC carries it; the gateway's `TScan` cannot, so there it is refused
    /// ([`InvalidInput::Untranslatable`]). 0 is refused ([`InvalidInput::Option`]).
    pub fn max_result_size(mut self, bytes: u64) -> Scan {
        self.extras.max_result_size = Some(bytes);
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
    /// toward about [`PAGE_TARGET_BYTES`](crate::tuning::PAGE_TARGET_BYTES) per reply
    /// ([`NATIVE_PAGE_TARGET_BYTES`](crate::tuning::NATIVE_PAGE_TARGET_BYTES) over the
    /// native RPC).
    pub fn caching(mut self, rows: u32) -> Scan {
        self.read = self.read.caching(rows);
        self
    }

    /// At most `cells` cells per returned item: wide rows come back in parts, each
    /// a [`Row`](crate::Row) whose [`Row::is_partial`](crate::Row::is_partial) is true, except the last.
    pub fn batch(mut self, cells: u32) -> Scan {
        self.read = self.read.batch(cells);
        self
    }

    /// At most `rows` rows in all. 0 means what Java's `Scan.setLimit(0)` means: the
    /// scan ends after the first reply of the first region's server (its rows up to the
    /// scan's `caching`, else up to 2 MB, as the Java client asks), whatever that holds.
    /// With
    /// [`Scan::batch`], the limit is applied as HBase's Java client applies it, so
    /// that the answer is Java's: after each reply from a region server, the rows the
    /// Java client counts complete come off the limit, and the scan ends when it is
    /// exactly used up or when the server stops at it. Java's count can pass the
    /// limit (a row whose last part was held back for regrouping counts twice), and
    /// the limit then means no limit: such a scan can return more than `rows` rows,
    /// as the Java client does.
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
    /// scan reopens after its last row. With a filter or `batch`, the inclusive `start`
    /// is kept the same way, by the greatest key below it as HBase's exclusive stop row;
    /// otherwise by an `InclusiveStopFilter` (which, with `batch`, would change the parts
    /// HBase flags partial, and so the Java client's count of a limit).
    pub fn reversed(mut self, reversed: bool) -> Scan {
        self.reversed = reversed;
        self
    }

    /// Whether the blocks read are cached on the region server.
    pub fn cache_blocks(mut self, cache: bool) -> Scan {
        self.read = self.read.cache_blocks(cache);
        self
    }

    /// Which replicas may answer (default [`Consistency::Strong`]), as Java's
    /// `Scan.setConsistency`; rows from a secondary say so
    /// ([`Row::is_stale`](crate::Row::is_stale)).
    pub fn consistency(mut self, consistency: Consistency) -> Scan {
        self.read = self.read.consistency(consistency);
        self
    }

    /// Reads only replica `id` of each region, as Java's `Scan.setReplicaId` (see
    /// [`ReadOptions::replica_id`]).
    pub fn replica_id(mut self, id: i32) -> Scan {
        self.read = self.read.replica_id(id);
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

    /// Whether rows come in parts (with `batch` or partial results allowed), counted by
    /// a limit as the Java client counts parts.
    pub(crate) fn in_parts(&self) -> bool {
        self.extras.in_parts(self.read.batch)
    }

    pub(crate) fn validate(&self) -> Result<()> {
        self.read.validate()?;
        if self.extras.max_result_size == Some(0) {
            return Err(InvalidInput::Option("max_result_size must be at least 1".into()).into());
        }
        // HBase refuses it in every region (`StoreScanner`), even for an empty range,
        // which Basalt answers without asking: refused here on every path.
        if self.extras.raw && ColumnSelection::of(&self.read.columns).names_qualifiers() {
            return Err(InvalidInput::Option(
                "a raw scan cannot name columns (HBase: \"Cannot specify any column for a raw scan\"); \
                 name whole families"
                    .into(),
            )
            .into());
        }
        self.check_filter()?;
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

    /// What HBase refuses about the filter on this scan ([`check_scan_filter`]),
    /// checked against the families the scan names.
    fn check_filter(&self) -> Result<()> {
        let Some(filter) = self.read.filter.as_ref() else {
            return Ok(());
        };
        let families: Vec<&[u8]> = self
            .read
            .columns
            .iter()
            .map(|c| match c {
                ColumnSpec::Family(f) | ColumnSpec::Column(f, _) => &f[..],
            })
            .collect();
        // Families load on demand only when the scan lets them (HBase's default does).
        let on_demand_reversed = self.reversed && self.on_demand != Some(false);
        check_scan_filter(filter, self.read.batch, on_demand_reversed, &families)
            .map_err(|e| InvalidInput::Filter(e).into())
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
        if self.extras.allow_partial {
            return Err(InvalidInput::Option(
                "stateless paging cannot carry allow_partial_results: a page restarting inside a row \
                 would cut its pieces elsewhere than one scanner does; use ScanPaging::Scanner"
                    .into(),
            )
            .into());
        }
        if self.limit == Some(0) {
            return Err(InvalidInput::Option(
                "stateless paging cannot carry limit 0: Java's scanner ends after its first reply, \
                 which a stateless page (sized by the client) does not reproduce; use ScanPaging::Scanner"
                    .into(),
            )
            .into());
        }
        if self.limit.is_some() && self.in_parts() {
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

/// How a scan runs, chosen once when it starts and matched in one place
/// ([`RowStream::start`](super::RowStream)): never inferred from an optional setting.
#[derive(Debug, Clone)]
pub(crate) enum ScanMode {
    /// One scanner over the whole range, region after region.
    Plain,
    /// The range cut at region boundaries, up to `regions` pieces read at once, their
    /// rows yielded in key order ([`Scan::parallel_regions`]).
    ParallelRegions {
        /// Pieces read at once (at least 2).
        regions: usize,
    },
    /// One range (or region piece) of a salted scan: pages sized for a merge of many
    /// buckets, and every page fetch waits on the salted scan's shared `gate`.
    SaltedBucket {
        /// Bounds how many buckets fetch a page at once.
        gate: Arc<Semaphore>,
    },
}

impl ScanMode {
    /// The mode of a table scan ([`Table::scan`](crate::Table::scan)): parallel when the
    /// scan asks for it and its answer allows it.
    pub(crate) fn of(scan: &Scan) -> ScanMode {
        // A limit with batch is counted by HBase itself across regions, as the Java
        // client's one scanner sees them: read such scans with one scanner.
        // So are scans whose filter can end the whole scan (`scan_spanning_filter`): as
        // such a filter ends in one region, HBase decides whether the scan goes on to
        // the next region; regions read at once would return their rows regardless.
        let spanning = scan.read.filter.as_ref().and_then(|f| f.scan_spanning_filter()).is_some();
        let one_scanner = (scan.limit.is_some() && scan.in_parts()) || scan.limit == Some(0) || spanning;
        // An empty range has nothing to read at once; one scanner lets HBase refuse
        // what it refuses about it (see `Tracker::scan_request`).
        let empty = !scan.stop.is_empty() && scan.start >= scan.stop;
        if scan.parallel > 1 && !one_scanner && !empty {
            ScanMode::ParallelRegions { regions: scan.parallel }
        } else {
            ScanMode::Plain
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused_option(scan: &Scan) -> bool {
        matches!(scan.validate(), Err(crate::Error::InvalidInput(InvalidInput::Option(_))))
    }

    #[test]
    fn what_hbase_or_one_scanner_alone_can_answer_is_refused_before_sending() {
        // HBase refuses a raw scan naming a column; whole families are fine.
        assert!(refused_option(&Scan::new().raw(true).column("a", "q")));
        assert!(Scan::new().raw(true).family("a").validate().is_ok());
        assert!(Scan::new().raw(true).column("a", "q").family("a").validate().is_ok());
        assert!(Scan::new().column("a", "q").validate().is_ok());
        assert!(refused_option(&Scan::new().max_result_size(0)));
        let partial = Scan::new().allow_partial_results(true);
        assert!(partial.clone().validate().is_ok());
        assert!(refused_option(&partial.clone().paging(ScanPaging::Stateless)));
        // Partial results count a limit as batched parts do: one scanner.
        assert!(refused_option(&partial.clone().limit(3).paging(ScanPaging::Stateless)));
        assert!(matches!(ScanMode::of(&partial.limit(3).parallel_regions(4)), ScanMode::Plain));
        assert!(matches!(
            ScanMode::of(&Scan::new().raw(true).parallel_regions(4)),
            ScanMode::ParallelRegions { regions: 4 }
        ));
    }
}
