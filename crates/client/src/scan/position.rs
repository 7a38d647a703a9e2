//! The pure part of a scan: where it stands, what its limit still allows, the check
//! of every page against the range and direction, and the request that resumes at the
//! position. No I/O: the worker ([`super::worker`]) drives it.

use basalt_rowkey::ScanRange;
use bytes::Bytes;

use super::key_order::compare;
use super::spec::Scan;
use crate::error::Result;
use crate::filter::Filter;
use crate::row::Row;
use crate::transport::ScanRequest;
use crate::validate;

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
    /// The key of the last item passed, and whether it was flagged partial (kept only
    /// with a limit: without one, nothing reads it).
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

    /// How many of `rows` (a prefix) pass. Without a limit every row passes, and no
    /// row's key needs reading.
    pub(crate) fn admit_page(&mut self, rows: &[Row]) -> usize {
        if self.remaining.is_none() {
            return rows.len();
        }
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
    /// The last cell returned of the row in `partial`: a reopened scanner's cells of
    /// that row up to it are dropped (by comparison, as HBase's Java client does: a
    /// cell deleted or added meanwhile before it moves no later cell).
    pub(crate) partial_last: Option<CellKey>,
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

/// A cell's place in its row: family, qualifier, timestamp, type byte.
pub(crate) type CellKey = (Bytes, Bytes, i64, u8);

/// Whether the cell `(family, qualifier, timestamp, type byte)` sorts at or before
/// `last` in HBase's order within a row: family and qualifier ascending, newest first,
/// then the type byte descending (a raw scan returns a delete marker before the value it
/// deletes, at the same timestamp: both must count, as in Java's `CellComparator`).
fn at_or_before(family: &[u8], qualifier: &[u8], timestamp: i64, type_code: u8, last: &CellKey) -> bool {
    (family, qualifier)
        .cmp(&(&last.0[..], &last.1[..]))
        .then(last.2.cmp(&timestamp))
        .then(last.3.cmp(&type_code))
        .is_le()
}

/// The last complete row of a page being checked: a key, or the index of a row kept.
enum PageLast {
    Key(Bytes),
    Row(usize),
}

impl PageLast {
    fn key<'a>(&'a self, rows: &'a [Row]) -> &'a [u8] {
        match self {
            PageLast::Key(key) => key,
            PageLast::Row(index) => rows.get(*index).map_or(&[][..], Row::key),
        }
    }
}

/// How many rows ahead of the one checked a page's check loads keys (a cache miss takes
/// about as long as checking a few rows).
const KEYS_AHEAD: usize = 5;

/// What is left of an item of the row in progress after a reopen.
enum Unseen {
    /// Cells not returned before (all of the item, or its tail).
    Row(Row),
    /// Every cell was returned before, and more may follow.
    Repeated,
    /// Every cell was returned before, and the row ends here.
    RowEnded(Bytes),
}

/// A page that breaks the scan's range or order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rejected(pub(crate) String);

/// The pure part of a scan: position, limit, and the check of each page.
///
/// Without `batch`, the limit counts rows and ends the scan here once used up. With
/// `batch`, the limit is the transport's: the Java client counts it in its own way per
/// reply (the gateway's Java client, the native scanner's copy of its count) and may end
/// the scan past it or before it, so the pages pass whole and only the transport ends
/// the scan. The count of rows begun is still kept: it is the limit a reopened scanner
/// is given.
#[derive(Debug, Clone)]
pub(crate) struct Tracker {
    pub(crate) position: Position,
    pub(crate) reversed: bool,
    /// Rows the limit still allows to start.
    pub(crate) remaining: Option<u64>,
    /// After a reopen inside a batched row: the row's key and its last cell returned;
    /// its cells up to that one are dropped.
    skip: Option<(Bytes, CellKey)>,
    /// The limit is used up and the next row has begun: nothing more is delivered.
    done: bool,
    /// Whether the limit ends the scan here (no `batch`); else the transport applies it.
    cuts_at_limit: bool,
    /// A limit of 0: Java's scanner ends after its first reply (the transport's).
    first_reply_only: bool,
    /// Reversed scans: send the greatest key below the exclusive upper bound as the
    /// (inclusive) start row, so that the server never sees the excluded row (its
    /// filters would count it or stop on it), and the greatest key below the inclusive
    /// lower bound as the (exclusive) stop row, so that no filter is added. Otherwise
    /// the bound itself is sent and the row equal to it dropped here, and the lower
    /// bound is kept by an `InclusiveStopFilter`, which is cheaper (short rows).
    exact_upper: bool,
    /// The longest row key of the table (see [`validate::max_row_key_len`]): the
    /// greatest key below a bound is padded to it.
    max_key_len: usize,
}

impl Tracker {
    pub(crate) fn new(start: Bytes, stop: Bytes, reversed: bool, limit: Option<u64>) -> Tracker {
        Tracker {
            position: Position { lower: start, upper: stop, partial: None, partial_last: None, last: None },
            reversed,
            remaining: limit,
            skip: None,
            done: false,
            cuts_at_limit: true,
            first_reply_only: false,
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
        // Limit 0 (Java's first reply only): the first region must be Java's, which the
        // bound itself would not give when it is a region's start key.
        // Partial results allowed are counted as batched parts are.
        // So are raw scans, per-family windows and replies cut by size: a reversed scan
        // that starts at the excluded row reads the next row's cells otherwise than one
        // starting below it (raw versions, offsets), and its parts count at the limit.
        let extras = &scan.extras;
        let seek_sensitive = extras.raw || !extras.window.is_open() || extras.max_result_size.is_some();
        tracker.exact_upper = scan.read.has_filter() || scan.in_parts() || scan.limit == Some(0) || seek_sensitive;
        // Limit 0 is Java's "end after the first reply": the transport's to apply.
        tracker.cuts_at_limit = !scan.in_parts() && scan.limit != Some(0);
        tracker.first_reply_only = scan.limit == Some(0);
        tracker.max_key_len = validate::max_row_key_len(table);
        tracker
    }

    /// Whether the scan has delivered everything its limit allows.
    pub(crate) fn finished(&self) -> bool {
        self.done || (self.cuts_at_limit && self.remaining == Some(0) && self.position.partial.is_none())
    }

    /// Called when a scanner is (re)opened at the position.
    pub(crate) fn reopened(&mut self) {
        self.skip = match (&self.position.partial, &self.position.partial_last) {
            (Some((key, _)), Some(last)) => Some((key.clone(), last.clone())),
            (Some(_) | None, _) => None,
        };
    }

    /// `row` without the cells a reopened scanner repeats: those of the row in
    /// progress up to the last one returned before the reopen.
    fn unseen(&mut self, row: Row) -> Unseen {
        let Some((key, last)) = &self.skip else { return Unseen::Row(row) };
        if key[..] != *row.key() {
            self.skip = None;
            return Unseen::Row(row);
        }
        let seen = row
            .cells()
            .take_while(|c| at_or_before(c.family(), c.qualifier(), c.timestamp(), c.cell_type().code(), last))
            .count();
        if seen < row.len() {
            self.skip = None;
            if seen == 0 {
                return Unseen::Row(row);
            }
            let rest: Vec<_> = row.cells().skip(seen).map(|c| c.to_cell()).collect();
            let (partial, stale) = (row.is_partial(), row.is_stale());
            return Unseen::Row(Row::new(row.key_bytes(), rest).with_partial(partial).with_stale(stale));
        }
        if row.is_partial() {
            Unseen::Repeated
        } else {
            self.skip = None;
            Unseen::RowEnded(row.key_bytes())
        }
    }

    /// Checks a page and returns the rows to deliver; the position and limit move only
    /// if the whole page is sound.
    pub(crate) fn accept(&mut self, mut results: std::vec::IntoIter<Row>) -> Result<Vec<Row>, Rejected> {
        let mut next = self.clone();
        let mut rows: Vec<Row> = Vec::with_capacity(results.len());
        // The page's last complete row: its key, or which of `rows` it is (its key is
        // taken once, at the end, not for every row).
        let mut last_complete: Option<PageLast> = None;
        while let Some(row) = results.next() {
            // A key checked a few rows from now starts loading: the page was parsed
            // long enough ago for the cache to have let its rows go.
            if let Some(ahead) = results.as_slice().get(KEYS_AHEAD - 1) {
                ahead.prefetch_key();
            }
            if next.done {
                break;
            }
            let row = match next.unseen(row) {
                Unseen::Row(row) => row,
                Unseen::Repeated => continue,
                // The row's cells after the last one returned were deleted meanwhile.
                Unseen::RowEnded(key) => {
                    next.position.partial = None;
                    next.position.partial_last = None;
                    last_complete = Some(PageLast::Key(key));
                    continue;
                }
            };
            let page_last = last_complete.as_ref().map(|last| last.key(&rows));
            if !next.keep(&row, page_last)? {
                continue;
            }
            let continues = matches!(&next.position.partial, Some((key, _)) if key[..] == *row.key());
            if !continues {
                // Another row: the one in progress (if any) is complete.
                if let Some((key, _)) = next.position.partial.take() {
                    last_complete = Some(PageLast::Key(key));
                }
                next.position.partial_last = None;
                if next.remaining == Some(0) && next.cuts_at_limit {
                    next.done = true;
                    break;
                }
                if let Some(n) = &mut next.remaining {
                    *n = n.saturating_sub(1);
                }
            }
            if row.is_partial() {
                match &mut next.position.partial {
                    Some((_, n)) => *n += 1,
                    None => next.position.partial = Some((row.key_bytes(), 1)),
                }
                if let Some(cell) = row.cells().last() {
                    let key = (cell.family_bytes(), cell.qualifier_bytes(), cell.timestamp(), cell.cell_type().code());
                    next.position.partial_last = Some(key);
                }
            } else {
                next.position.partial = None;
                next.position.partial_last = None;
                last_complete = Some(PageLast::Row(rows.len()));
            }
            rows.push(row);
        }
        if let Some(last) = last_complete {
            next.position.last = Some(match last {
                PageLast::Key(key) => key,
                PageLast::Row(index) => rows.get(index).map(Row::key_bytes).unwrap_or_default(),
            });
        }
        next.position.settle(next.reversed);
        *self = next;
        Ok(rows)
    }

    /// Whether `row` is delivered: `Ok(false)` for what a reopened scanner legitimately
    /// repeats (a reversed scan's inclusive start, parts of a batched row already
    /// returned), an error for a row outside the remaining range or out of order.
    fn keep(&mut self, row: &Row, page_last: Option<&[u8]>) -> Result<bool, Rejected> {
        let Position { lower, upper, partial, last, .. } = &self.position;
        let (lower, upper, key): (&[u8], &[u8], &[u8]) = (lower, upper, row.key());
        // The last complete row returned: in this page, or before it (when not settled).
        let last: Option<&[u8]> = page_last.or(last.as_deref());
        let show = |k: &[u8]| format!("{:?}", String::from_utf8_lossy(&k[..k.len().min(64)]));
        if let Some((pk, _)) = partial {
            let pk: &[u8] = pk;
            let backwards = if self.reversed { compare(key, pk).is_gt() } else { compare(key, pk).is_lt() };
            if backwards {
                return Err(Rejected(format!("row {} out of order after {}", show(key), show(pk))));
            }
        }
        if self.reversed {
            // After a returned row, the range ends (exclusively) at that row.
            let upper = last.unwrap_or(upper);
            if !upper.is_empty() && compare(key, upper).is_eq() {
                return Ok(false); // HBase's reversed start is inclusive
            }
            if !upper.is_empty() && compare(key, upper).is_gt() {
                return Err(Rejected(format!("row {} at or after {} in a reversed scan", show(key), show(upper))));
            }
            if !lower.is_empty() && compare(key, lower).is_lt() {
                return Err(Rejected(format!("row {} below the range start {}", show(key), show(lower))));
            }
        } else {
            // After a returned row, the range starts just after it: at `last 00`.
            let before = match last {
                Some(last) => compare(key, last).is_le(),
                None => !lower.is_empty() && compare(key, lower).is_lt(),
            };
            if before {
                let at = last.unwrap_or(lower);
                return Err(Rejected(format!("row {} before the scan's position {}", show(key), show(at))));
            }
            if !upper.is_empty() && compare(key, upper).is_ge() {
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
            // An empty reversed range whose filter may make a family load on demand, on
            // a scan naming no family: whether HBase refuses it depends on the table's
            // families, which only HBase knows. The Java client sends it (HBase answers
            // no row, or refuses): so is it sent, as HBase's reversed `[upper, lower)`.
            let untouched = lower == &scan.start && upper == &scan.stop;
            // No family is named "": a filter not needing it makes some family
            // non-essential.
            let on_demand =
                scan.on_demand != Some(false) && filter.as_ref().is_some_and(|f| !f.is_family_essential(b""));
            if self.reversed && untouched && read.columns.is_empty() && on_demand {
                let (start, stop) = (upper.clone(), lower.clone());
                let on_demand = scan.on_demand;
                return Ok(Some(ScanRequest {
                    start,
                    stop,
                    reversed: true,
                    read: read.clone(),
                    filter,
                    limit: None,
                    on_demand,
                    fetch_ahead: false,
                    extras: scan.extras,
                }));
            }
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
                // The greatest key below `lower` as the exclusive stop includes `lower`
                // exactly (none: no key lies below it, so no stop); a filter is never
                // added where the server must see the scan as Java's (with `batch`, a
                // filter changes which parts HBase flags partial, and so Java's count
                // of a limit).
                Some(missing) if !missing.is_empty() && self.exact_upper => {
                    (start, key_before(&missing, self.max_key_len).unwrap_or_default())
                }
                // Otherwise stop at it inclusively with a filter (a short request).
                Some(missing) if !missing.is_empty() => {
                    let stop_filter = Filter::inclusive_stop(missing);
                    filter = Some(match filter {
                        Some(f) => f.and(stop_filter),
                        None => stop_filter,
                    });
                    (start, Bytes::new())
                }
                Some(_) | None => (start, bounds.stop_row),
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
            Some(0) if self.first_reply_only => Some(0),
            // With `batch`, a reopened scanner is given the rows not yet begun (the Java
            // client's own count is the transport's); none once they all began.
            Some(0) if !self.cuts_at_limit => None,
            Some(n) => {
                // The row in progress is counted again by the reopened scanner, and a
                // spare row covers a reversed start that is dropped.
                let n = n + u64::from(partial.is_some()) + u64::from(spare_row);
                Some(i32::try_from(n.max(1)).unwrap_or(i32::MAX))
            }
            None => None,
        };
        Ok(Some(ScanRequest {
            start,
            stop,
            reversed: self.reversed,
            read: read.clone(),
            filter,
            limit: server_limit,
            on_demand: scan.on_demand,
            fetch_ahead: false,
            extras: scan.extras,
        }))
    }
}

#[cfg(test)]
mod tests {
    use basalt_thrift::hbase::TScan;

    use super::*;
    use crate::filter::Filter;
    use crate::row::Cell;
    use crate::scan::Scan;
    use crate::transport::thrift::encode::scan as encode_scan;

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

    /// A part of row `key` with a cell per qualifier.
    fn cells_of(key: &str, qualifiers: &[&str], partial: bool) -> Row {
        let cells = qualifiers.iter().map(|q| Cell::new("d", q.to_string(), "v", 1));
        Row::new(Bytes::copy_from_slice(key.as_bytes()), cells.collect::<Vec<_>>()).with_partial(partial)
    }

    fn qualifiers(rows: &[Row]) -> Vec<String> {
        rows.iter().flat_map(|r| r.cells().map(|c| String::from_utf8_lossy(c.qualifier()).into_owned())).collect()
    }

    #[test]
    fn a_raw_row_resumes_between_a_marker_and_the_value_at_its_timestamp() {
        use crate::row::CellType;
        // A raw scan returns `q@5` twice: the delete marker first, then the value.
        let marker = Cell::new("d", "q", "", 5).with_type(CellType::Delete);
        let value = Cell::new("d", "q", "v", 5);
        let after = Cell::new("d", "r", "w", 5);
        let key = Bytes::from_static(b"a");
        let mut t = Tracker::new(Bytes::new(), Bytes::new(), false, None);
        let first = Row::new(key.clone(), vec![marker.clone()]).with_partial(true);
        t.accept(vec![first].into_iter()).unwrap();
        t.reopened();
        // The reopened scanner starts the row again: the marker is dropped, the value
        // at the same timestamp is not (it was lost when the skip ignored the type).
        let again = Row::new(key.clone(), vec![marker, value.clone(), after.clone()]);
        let rows = t.accept(vec![again].into_iter()).unwrap();
        let cells: Vec<Cell> = rows.iter().flat_map(|r| r.cells().map(|c| c.to_cell())).collect();
        assert_eq!(cells, vec![value, after]);
        assert_eq!(t.position.partial, None);
    }

    #[test]
    fn batched_rows_resume_after_the_last_cell_returned() {
        let mut t = Tracker::new(Bytes::new(), Bytes::new(), false, None);
        let rows =
            t.accept(vec![cells_of("a", &["q0", "q1"], true), cells_of("a", &["q2", "q3"], true)].into_iter()).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(t.position.partial, Some((Bytes::from("a"), 2)));
        t.reopened();
        // The reopened scanner repeats the row's cells up to q3, without q1 (deleted
        // meanwhile): cut by cell, not by part, nothing after q3 is lost.
        let page = vec![
            cells_of("a", &["q0", "q2"], true),
            cells_of("a", &["q3", "q4"], true),
            cells_of("a", &["q5"], false),
            cells_of("b", &["q0"], false),
        ];
        let rows = t.accept(page.into_iter()).unwrap();
        assert_eq!(keys(&rows), ["a", "a", "b"]);
        assert_eq!(qualifiers(&rows), ["q4", "q5", "q0"]);
        assert_eq!(t.position.partial, None);
        // A cell added before the position is not returned again, nor anything repeated.
        let mut t = Tracker::new(Bytes::new(), Bytes::new(), false, None);
        t.accept(vec![cells_of("a", &["q0", "q2"], true)].into_iter()).unwrap();
        t.reopened();
        let rows = t
            .accept(vec![cells_of("a", &["q0", "q1"], true), cells_of("a", &["q2", "q3"], false)].into_iter())
            .unwrap();
        assert_eq!(qualifiers(&rows), ["q3"]);
        // Every cell after the position deleted: the row ends where it was.
        let mut t = Tracker::new(Bytes::new(), Bytes::new(), false, None);
        t.accept(vec![cells_of("a", &["q0", "q2"], true)].into_iter()).unwrap();
        t.reopened();
        let rows =
            t.accept(vec![cells_of("a", &["q0", "q2"], false), cells_of("b", &["q0"], false)].into_iter()).unwrap();
        assert_eq!(keys(&rows), ["b"]);
        assert_eq!(t.position.lower, Bytes::from_static(b"b\0"));
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
    fn a_batched_limit_is_the_transports_and_exact_bounds_add_no_filter() {
        let scan = Scan::new().reversed(true).batch(2).limit(1).start("b").stop("m");
        let mut t = Tracker::for_scan(&scan, "t");
        let tscan = t.tscan(&scan).unwrap().unwrap();
        assert_eq!(tscan.filter_string, None, "no InclusiveStopFilter: HBase would flag parts otherwise");
        let stop = tscan.stop_row.unwrap();
        assert_eq!(stop[0], b'a');
        assert_eq!(stop.len(), validate::max_row_key_len("t"));
        assert!(stop[1..].iter().all(|b| *b == 0xFF));
        assert_eq!(tscan.limit, Some(1));
        // The Java client may pass the limit (its count): the pages pass whole.
        let rows = t.accept(vec![result("l", false), result("k", false)].into_iter()).unwrap();
        assert_eq!(keys(&rows), ["l", "k"]);
        assert!(!t.finished());
        // A reopen once every row began: no limit (the transport's count is unknown).
        assert_eq!(t.tscan(&scan).unwrap().unwrap().limit, None);
    }

    #[test]
    fn an_empty_reversed_range_goes_to_hbase_when_only_it_can_refuse_it() {
        let scv =
            Filter::single_column_value("a", "q", crate::filter::CompareOp::Equal, crate::Comparator::binary("x"))
                .filter_if_missing(true)
                .build();
        let scan = Scan::new().reversed(true).filter(scv).start("f").stop("f");
        let tscan = Tracker::for_scan(&scan, "t").tscan(&scan).unwrap().unwrap();
        assert_eq!((tscan.start_row.as_deref(), tscan.stop_row.as_deref()), (Some(&b"f"[..]), Some(&b"f"[..])));
        // Naming its families, the client decides (see `check_scan_filter`); without
        // such a filter nothing is sent.
        let named = scan.clone().family("a");
        assert!(Tracker::for_scan(&named, "t").tscan(&named).unwrap().is_none());
        let plain = Scan::new().reversed(true).start("f").stop("f");
        assert!(Tracker::for_scan(&plain, "t").tscan(&plain).unwrap().is_none());
    }

    #[test]
    fn limit_0_is_sent_for_the_transport_to_end_after_one_reply() {
        let scan = Scan::new().limit(0).start("b").stop("m");
        let mut t = Tracker::for_scan(&scan, "t");
        assert!(!t.finished(), "Java's limit 0 is not an empty scan");
        assert_eq!(t.tscan(&scan).unwrap().unwrap().limit, Some(0));
        let rows = t.accept(vec![result("c", false), result("d", false)].into_iter()).unwrap();
        assert_eq!(keys(&rows), ["c", "d"]);
        assert!(!t.finished());
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
