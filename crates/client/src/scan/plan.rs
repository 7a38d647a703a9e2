//! The one table of page plans: how many rows each kind of scan asks for in each
//! page, and how many pages it holds ahead of its consumer ([`PagePlan::of`]).
//!
//! Every page through the Thrift gateway has a fixed cost (a round trip, the gateway's
//! call to the region server, two thread wake-ups: 1-2 ms on a busy host), so large
//! pages read faster; but a large first page delays the first row. When the caller
//! did not set [`Scan::caching`](crate::Scan::caching), a scan therefore starts with
//! [`FIRST_PAGE_ROWS`] rows and multiplies the page by [`PAGE_GROWTH`] after each page,
//! up to the rows that fit in a byte target ([`PAGE_TARGET_BYTES`] for a plain scan,
//! [`PARALLEL_PAGE_TARGET_BYTES`] for a region piece, less for a salted bucket),
//! estimated from the bytes per row of the last reply, and never more than
//! [`MAX_PAGE_ROWS`]. An explicit `caching(n)` asks for exactly `n` rows every page.

/// Rows asked for in the first page of a scan whose caching is not set: the first row
/// arrives sooner; later pages grow.
pub const FIRST_PAGE_ROWS: u32 = 100;

/// Factor by which a page grows over the previous one (caching not set).
pub const PAGE_GROWTH: u32 = 4;

/// Bytes a plain scan's page aims at once it has grown (caching not set), through the
/// gateway: about the 2 MB the Java client's scanner fetches per call (over the native
/// RPC: [`NATIVE_PAGE_TARGET_BYTES`]). Always at most a quarter of the
/// client's [`max_response_bytes`](crate::ClientBuilder::max_response_bytes).
pub const PAGE_TARGET_BYTES: usize = 2 << 20;

/// Bytes a plain scan's page grows to over the native RPC (caching not set). A native
/// page costs no gateway hop and the next one is fetched while this one is read, so
/// pages can be small enough that a reply is still in the processor's cache when its
/// rows are checked and handed out. A full scan of 500,000 rows of 250 bytes, 15
/// rounds: 0.88x the client CPU of 2 MiB pages (median), as fast; 256 KiB pages took
/// 1.12x the CPU of 512 KiB ones.
pub const NATIVE_PAGE_TARGET_BYTES: usize = 512 << 10;

/// The most rows in one page, whatever the rows' size (caching not set).
pub const MAX_PAGE_ROWS: u32 = 20_000;

/// Pages each running piece of a [`Scan::parallel_regions`](crate::Scan::parallel_regions)
/// scan may hold ahead of the consumer, counting the one it is fetching.
pub const PARALLEL_PAGES_AHEAD: usize = 4;

/// Bytes a region piece's page grows to when `caching` is not set (smaller than a
/// plain scan's pages: several pieces read ahead at once).
pub const PARALLEL_PAGE_TARGET_BYTES: usize = 1 << 20;

/// Rows of the first page of every region piece but the first, when `caching` is not
/// set: it is read ahead, so it need not be small.
pub const PARALLEL_FIRST_PAGE_ROWS: u32 = 1600;

/// Bytes a salted bucket's page grows to when `caching` is not set: a merged scan holds
/// two pages per bucket, so they stay small.
pub(crate) const SALTED_PAGE_TARGET_BYTES: usize = 256 << 10;

/// What a worker's pages are for: each role has one row in [`PagePlan::of`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PageRole {
    /// A plain scan: one scanner, one page ahead.
    Plain,
    /// The first region piece of a parallel scan: it gives the first row.
    FirstRegionPiece,
    /// Any later region piece of a parallel scan: read ahead while earlier pieces drain.
    LaterRegionPiece,
    /// One range of a salted scan, merged with many others.
    SaltedBucket,
}

/// How a worker sizes and buffers its pages (the sizes apply when `caching` is not set).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PagePlan {
    /// Rows asked for in the first page.
    pub(crate) first_rows: u32,
    /// What a grown page should weigh.
    pub(crate) target_bytes: usize,
    /// Pages the worker may hold ahead of its consumer, counting the one it fetches.
    pub(crate) pages_ahead: usize,
}

impl PagePlan {
    /// The one table of page plans.
    pub(crate) const fn of(role: PageRole) -> PagePlan {
        match role {
            PageRole::Plain => {
                PagePlan { first_rows: FIRST_PAGE_ROWS, target_bytes: PAGE_TARGET_BYTES, pages_ahead: 1 }
            }
            PageRole::FirstRegionPiece => PagePlan {
                first_rows: FIRST_PAGE_ROWS,
                target_bytes: PARALLEL_PAGE_TARGET_BYTES,
                pages_ahead: PARALLEL_PAGES_AHEAD,
            },
            PageRole::LaterRegionPiece => PagePlan {
                first_rows: PARALLEL_FIRST_PAGE_ROWS,
                target_bytes: PARALLEL_PAGE_TARGET_BYTES,
                pages_ahead: PARALLEL_PAGES_AHEAD,
            },
            PageRole::SaltedBucket => {
                PagePlan { first_rows: FIRST_PAGE_ROWS, target_bytes: SALTED_PAGE_TARGET_BYTES, pages_ahead: 1 }
            }
        }
    }

    /// This plan with pages growing to `bytes` (a transport's own target).
    pub(crate) const fn target(self, bytes: usize) -> PagePlan {
        PagePlan { target_bytes: bytes, ..self }
    }
}

/// The page size of one scan: fixed (`caching` set) or growing toward a byte target.
#[derive(Debug, Clone)]
pub(crate) struct PageSizer {
    fixed: Option<u32>,
    target_bytes: usize,
    next: u32,
}

impl PageSizer {
    /// `caching`: the caller's page size, if set; else pages follow `plan`.
    /// `max_response_bytes`: the client's reply limit (the target stays at a quarter of
    /// it, so a page of rows larger than the last page's still fits).
    pub(crate) fn new(caching: Option<u32>, plan: PagePlan, max_response_bytes: usize) -> PageSizer {
        PageSizer {
            fixed: caching.map(|n| n.max(1)),
            target_bytes: plan.target_bytes.min(max_response_bytes / 4).max(1),
            next: plan.first_rows.clamp(1, MAX_PAGE_ROWS),
        }
    }

    /// Rows to ask for in the next page.
    pub(crate) fn rows(&self) -> u32 {
        self.fixed.unwrap_or(self.next)
    }

    /// Records a page of `rows` rows that took `reply_bytes` on the wire, and sizes
    /// the next one.
    pub(crate) fn record(&mut self, rows: usize, reply_bytes: usize) {
        if self.fixed.is_some() {
            return;
        }
        let grown = self.next.saturating_mul(PAGE_GROWTH).min(MAX_PAGE_ROWS);
        self.next = match (reply_bytes as u64).checked_div(rows as u64) {
            // No row yet (a filter skipped them all): grow, bounded by the row cap.
            None => grown,
            Some(per_row) => {
                let fit = (self.target_bytes as u64 / per_row.max(1)).clamp(1, u64::from(MAX_PAGE_ROWS));
                // Shrinks at once when the rows turn out wide; grows step by step.
                grown.min(u32::try_from(fit).unwrap_or(MAX_PAGE_ROWS))
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNLIMITED: usize = 256 << 20;

    #[test]
    fn each_role_has_its_plan() {
        let plan = |role| {
            let PagePlan { first_rows, target_bytes, pages_ahead } = PagePlan::of(role);
            (first_rows, target_bytes, pages_ahead)
        };
        assert_eq!(plan(PageRole::Plain), (100, 2 << 20, 1));
        let native = PagePlan::of(PageRole::Plain).target(NATIVE_PAGE_TARGET_BYTES);
        assert_eq!((native.first_rows, native.target_bytes, native.pages_ahead), (100, 512 << 10, 1));
        assert_eq!(plan(PageRole::FirstRegionPiece), (100, 1 << 20, 4), "a fast first row");
        assert_eq!(plan(PageRole::LaterRegionPiece), (1600, 1 << 20, 4), "read ahead: larger from the start");
        assert_eq!(plan(PageRole::SaltedBucket), (100, 256 << 10, 1), "many buckets at once: small pages");
    }

    #[test]
    fn an_explicit_caching_is_every_page_exactly() {
        let mut s = PageSizer::new(Some(37), PagePlan::of(PageRole::Plain), UNLIMITED);
        for _ in 0..5 {
            assert_eq!(s.rows(), 37);
            s.record(37, 37 * 5000);
        }
        assert_eq!(PageSizer::new(Some(50_000), PagePlan::of(PageRole::Plain), UNLIMITED).rows(), 50_000);
    }

    #[test]
    fn pages_start_small_and_grow_by_the_factor_up_to_the_byte_target() {
        let mut s = PageSizer::new(None, PagePlan::of(PageRole::Plain), UNLIMITED);
        let mut sizes = Vec::new();
        for _ in 0..6 {
            let rows = s.rows();
            sizes.push(rows);
            // 256 bytes per row on the wire.
            s.record(rows as usize, rows as usize * 256);
        }
        // 2 MiB / 256 B = 8192 rows.
        assert_eq!(sizes, [100, 400, 1600, 6400, 8192, 8192]);
    }

    #[test]
    fn small_rows_are_capped_in_rows_and_wide_rows_shrink_the_page() {
        let mut s = PageSizer::new(None, PagePlan::of(PageRole::Plain), UNLIMITED);
        for _ in 0..10 {
            let rows = s.rows();
            s.record(rows as usize, rows as usize * 8);
        }
        assert_eq!(s.rows(), MAX_PAGE_ROWS);
        // Then a page of rows of 1 MiB: the next page shrinks to the target at once.
        s.record(1000, 1000 << 20);
        assert_eq!(s.rows(), 2);
        let mut wide = PageSizer::new(None, PagePlan::of(PageRole::Plain), UNLIMITED);
        wide.record(100, 100 << 20);
        assert_eq!(wide.rows(), 2, "2 MiB of 1 MiB rows");
        wide.record(2, 8 << 20);
        assert_eq!(wide.rows(), 1, "never below one row");
    }

    #[test]
    fn the_target_stays_well_under_the_clients_reply_limit() {
        let mut s = PageSizer::new(None, PagePlan::of(PageRole::Plain), 400_000);
        for _ in 0..6 {
            let rows = s.rows();
            s.record(rows as usize, rows as usize * 100);
        }
        // A quarter of 400 000 bytes, 100 bytes per row.
        assert_eq!(s.rows(), 1000);
    }

    #[test]
    fn a_plan_may_start_larger_and_aim_lower() {
        let plan = PagePlan { first_rows: 1600, target_bytes: 1 << 20, pages_ahead: 1 };
        let mut s = PageSizer::new(None, plan, UNLIMITED);
        assert_eq!(s.rows(), 1600);
        s.record(1600, 1600 * 256);
        assert_eq!(s.rows(), 4096, "1 MiB of 256-byte rows");
    }

    #[test]
    fn pages_without_rows_still_grow() {
        let mut s = PageSizer::new(None, PagePlan::of(PageRole::Plain), UNLIMITED);
        s.record(0, 40);
        assert_eq!(s.rows(), 400);
        s.record(0, 40);
        assert_eq!(s.rows(), 1600);
    }
}
