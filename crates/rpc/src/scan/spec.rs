//! [`ScanSpec`]: what a scan reads, with its documented defaults.

use bytes::Bytes;

use crate::error::RpcError;
use crate::pb;
use crate::read::{read_options, ReadFields};

/// What to scan, with documented defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanSpec {
    pub(super) start: Bytes,
    pub(super) stop: Bytes,
    pub(super) include_start: bool,
    pub(super) include_stop: bool,
    pub(super) reversed: bool,
    pub(super) read: ReadFields,
    pub(super) rows_per_page: u32,
    pub(super) max_result_size: Option<u64>,
    pub(super) limit: Option<u64>,
    pub(super) batch: Option<u32>,
    pub(super) auto_renew: bool,
    pub(super) reopen_expired: bool,
    pub(super) on_demand: Option<bool>,
    pub(super) raw: bool,
    pub(super) allow_partial: bool,
    pub(super) fetch_ahead: bool,
}

impl Default for ScanSpec {
    fn default() -> Self {
        ScanSpec {
            start: Bytes::new(),
            stop: Bytes::new(),
            include_start: true,
            include_stop: false,
            reversed: false,
            read: ReadFields::default(),
            rows_per_page: 1000,
            max_result_size: None,
            limit: None,
            batch: None,
            auto_renew: true,
            reopen_expired: true,
            on_demand: None,
            raw: false,
            allow_partial: false,
            fetch_ahead: true,
        }
    }
}

impl ScanSpec {
    /// The whole table, forward, 1000 rows per page.
    pub fn new() -> ScanSpec {
        ScanSpec::default()
    }

    /// First row (inclusive unless [`ScanSpec::include_start`] says otherwise); for a
    /// reversed scan, the highest row.
    pub fn start(mut self, row: impl Into<Bytes>) -> ScanSpec {
        self.start = row.into();
        self
    }

    /// Row where the scan ends (exclusive unless [`ScanSpec::include_stop`] says
    /// otherwise); for a reversed scan, the lowest bound.
    pub fn stop(mut self, row: impl Into<Bytes>) -> ScanSpec {
        self.stop = row.into();
        self
    }

    /// Whether the start row itself is scanned (default: yes). Ignored for an empty
    /// start (the table's edge).
    pub fn include_start(mut self, include: bool) -> ScanSpec {
        self.include_start = include;
        self
    }

    /// Whether the stop row itself is scanned (default: no).
    pub fn include_stop(mut self, include: bool) -> ScanSpec {
        self.include_stop = include;
        self
    }

    /// Scans from high rows to low rows.
    pub fn reversed(mut self, reversed: bool) -> ScanSpec {
        self.reversed = reversed;
        self
    }

    /// Rows asked per call (default 1000; the server's `caching`).
    pub fn rows_per_page(mut self, rows: u32) -> ScanSpec {
        self.rows_per_page = rows.max(1);
        self
    }

    /// Bytes the server returns per call at most (the server's default otherwise); a
    /// row larger than this arrives in partial pieces, joined here.
    pub fn max_result_size(mut self, bytes: u64) -> ScanSpec {
        self.max_result_size = Some(bytes);
        self
    }

    /// At most this many rows in all; 0, as Java's `Scan.setLimit(0)`: the scan ends
    /// after its first reply, whatever that holds (Java's scanner closes when its limit
    /// is 0 after a reply).
    pub fn limit(mut self, rows: u64) -> ScanSpec {
        self.limit = Some(rows);
        self
    }

    /// At most `cells` cells per result: a wider row is delivered in several results
    /// (each marked partial but the last) instead of joined.
    pub fn batch(mut self, cells: u32) -> ScanSpec {
        self.batch = Some(cells.max(1));
        self
    }

    /// Java's `Scan.setLoadColumnFamiliesOnDemand`: whether families the filter does
    /// not need are read only for rows it keeps (unset: the region server's default).
    /// HBase refuses a reversed scan that would load a family on demand.
    pub fn load_column_families_on_demand(mut self, on_demand: bool) -> ScanSpec {
        self.on_demand = Some(on_demand);
        self
    }

    /// A raw scan (Java's `Scan.setRaw`, sent as its scan attribute `_raw_`): delete
    /// markers and the cells they hide are returned, each with its type.
    pub fn raw(mut self, raw: bool) -> ScanSpec {
        self.raw = raw;
        self
    }

    /// Java's `Scan.setAllowPartialResults`: results are delivered in the pieces the
    /// server sends (each marked partial but a row's last), not joined; with
    /// [`ScanSpec::batch`] too. A limit then counts rows as the Java client counts
    /// such pieces.
    pub fn allow_partial_results(mut self, allow: bool) -> ScanSpec {
        self.allow_partial = allow;
        self
    }

    /// Whether results are delivered as the server's pieces ([`ScanSpec::batch`] or
    /// [`ScanSpec::allow_partial_results`]).
    pub(super) fn in_pieces(&self) -> bool {
        self.batch.is_some() || self.allow_partial
    }

    /// Whether a background task renews the server-side scanner's lease while pages
    /// are not asked for (default: yes). Without it, a reader slower than the lease
    /// finds the scanner expired and the scan reopens after its last row.
    pub fn auto_renew(mut self, renew: bool) -> ScanSpec {
        self.auto_renew = renew;
        self
    }

    /// Whether the next page is asked for as soon as a reply says its region has more
    /// rows, while this reply's cells are read (default: yes; never with a limit). A
    /// long scan then keeps its region server busy instead of waiting on the client,
    /// at the cost of one more page held here.
    pub fn fetch_ahead(mut self, ahead: bool) -> ScanSpec {
        self.fetch_ahead = ahead;
        self
    }

    /// Whether a scanner the server no longer knows (its lease expired) is reopened
    /// after the last row delivered (default: yes). Without it, the next page fails
    /// with the server's `UnknownScannerException` and the scan ends, for a caller that
    /// reopens scans itself and counts the reopens.
    pub fn reopen_after_expiry(mut self, reopen: bool) -> ScanSpec {
        self.reopen_expired = reopen;
        self
    }
}

read_options!(ScanSpec);
