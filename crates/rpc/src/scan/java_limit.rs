//! A batched scan's row limit as HBase's Java client (2.6) applies it: its
//! `BatchScanResultCache` counts "complete rows" per reply, and its `ClientScanner`
//! takes each reply's count off the limit after handing out the whole reply.
//!
//! The count is Java's, quirks included, because the answers depend on it: a row whose
//! last cells the cache held back is counted when they are handed out and again when the
//! next row begins, so the count can pass the limit. The limit then goes below zero,
//! which Java reads as "no limit": the scan goes on to the end of its range (the server
//! is no longer sent a limit either). The limit ends the scan only when a reply brings
//! it to exactly zero, or when the server stops at its own count (`limit_of_rows`, sent
//! as the remaining limit).

use bytes::Bytes;

/// Java's limit and complete-row count of one batched scan, or of one scan that allows
/// partial results (its `AllowPartialScanResultCache`, which hands out the server's
/// pieces as they come).
#[derive(Debug, Clone)]
pub(super) struct JavaBatchLimit {
    /// Cells per item when regrouping (`None`: partial results allowed, no regrouping).
    batch: Option<usize>,
    /// Java's `scan.getLimit()`: positive, the rows still allowed; zero, the scan is
    /// over; negative, no limit.
    limit: i64,
    /// The cache's `partialResults`: the row and the number of cells held back.
    held: Option<(Bytes, usize)>,
    /// The cache's `lastCell` row and `lastResultPartial`: the last item handed out.
    last: Option<(Bytes, bool)>,
    /// Rows counted complete in the current reply.
    counted: i64,
    /// Whether the current reply has had a result (partial results: Java looks for a row
    /// change at a reply's first result only).
    in_reply: bool,
}

impl JavaBatchLimit {
    /// The count of a scan with `batch` cells per item and `limit` rows (`None`: none).
    pub(super) fn new(batch: u32, limit: Option<u64>) -> JavaBatchLimit {
        let limit = limit.map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
        let batch = usize::try_from(batch.max(1)).unwrap_or(usize::MAX);
        JavaBatchLimit { batch: Some(batch), limit, held: None, last: None, counted: 0, in_reply: false }
    }

    /// The count of a scan that allows partial results, with `limit` rows (`None`: none).
    pub(super) fn partial(limit: Option<u64>) -> JavaBatchLimit {
        let limit = limit.map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
        JavaBatchLimit { batch: None, limit, held: None, last: None, counted: 0, in_reply: false }
    }

    /// `AllowPartialScanResultCache.addAndGet` for one result: a row change after a
    /// partial piece completes that row (looked for at a reply's first result only, as
    /// Java does), and every piece not flagged partial is a complete row.
    fn partial_result(&mut self, row: &Bytes, partial: bool) {
        if !self.in_reply && matches!(&self.last, Some((last_row, true)) if last_row != row) {
            self.counted += 1;
        }
        self.in_reply = true;
        if !partial {
            self.counted += 1;
        }
        self.last = Some((row.clone(), partial));
    }

    /// One result of a reply (cells already handed out before a reopen removed): the
    /// cache's `addAndGet` for one result.
    pub(super) fn result(&mut self, row: &Bytes, cells: usize, partial: bool) {
        if cells == 0 {
            return;
        }
        let Some(batch) = self.batch else {
            return self.partial_result(row, partial);
        };
        match &self.held {
            Some((held_row, _)) if held_row != row => self.complete_held(),
            Some(_) => {}
            None => {
                if matches!(&self.last, Some((last_row, true)) if last_row != row) {
                    self.counted += 1;
                }
            }
        }
        // `regroupResults`: at most one item of `batch` cells per result.
        let held = self.held.get_or_insert_with(|| (row.clone(), 0));
        held.1 += cells;
        if held.1 >= batch {
            held.1 -= batch;
            let item_partial = partial || held.1 > 0;
            if held.1 == 0 {
                self.held = None;
            }
            if !item_partial {
                self.counted += 1;
            }
            self.last = Some((row.clone(), item_partial));
        }
        if !partial && self.held.is_some() {
            self.complete_held();
        }
    }

    /// A reply without results that is no heartbeat: to Java, the end of a row. (With
    /// partial results allowed, Java counts it and keeps its last piece's flag, so a
    /// row change that follows counts again.)
    pub(super) fn empty_reply(&mut self) {
        if self.held.is_some() {
            self.complete_held();
        } else if matches!(self.last, Some((_, true))) {
            self.counted += 1;
        }
    }

    /// The end of a reply: its count comes off the limit (a positive limit only).
    pub(super) fn end_of_reply(&mut self) {
        if self.limit > 0 {
            self.limit -= self.counted;
        }
        self.counted = 0;
        self.in_reply = false;
    }

    /// The held cells handed out as their row's last item (`createCompletedResult`).
    fn complete_held(&mut self) {
        self.held = None;
        self.counted += 1;
    }

    /// Whether the limit ended the scan (a reply brought it to exactly zero).
    pub(super) fn ended(&self) -> bool {
        self.limit == 0
    }

    /// The server's `limit_of_rows`: the limit while it is positive.
    pub(super) fn limit_of_rows(&self) -> Option<u32> {
        (self.limit > 0).then(|| u32::try_from(self.limit).unwrap_or(u32::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &'static str) -> Bytes {
        Bytes::from_static(k.as_bytes())
    }

    #[test]
    fn a_row_whose_last_cells_were_held_counts_twice_and_the_limit_goes_past_zero() {
        // batch 2, rows of 3 cells (pieces of 2 and 1), limit 4: Java counts the first
        // row at its held cell and again when the next row begins.
        let mut limit = JavaBatchLimit::new(2, Some(4));
        for row in ["r1", "r2", "r3"] {
            limit.result(&key(row), 2, true);
            limit.result(&key(row), 1, false);
        }
        limit.end_of_reply();
        // 3 rows, counted 5: the limit is -1, no limit at all.
        assert!(!limit.ended());
        assert_eq!(limit.limit_of_rows(), None);
        limit.result(&key("r4"), 2, true);
        limit.end_of_reply();
        assert!(!limit.ended());
    }

    #[test]
    fn a_reply_that_brings_the_limit_to_zero_ends_the_scan() {
        let mut limit = JavaBatchLimit::new(2, Some(2));
        limit.result(&key("a"), 2, false);
        limit.end_of_reply();
        assert_eq!(limit.limit_of_rows(), Some(1));
        limit.result(&key("b"), 1, false);
        assert!(!limit.ended(), "checked at the end of a reply only");
        limit.end_of_reply();
        assert!(limit.ended());
        assert_eq!(limit.limit_of_rows(), None);
    }

    #[test]
    fn a_partial_last_item_counts_at_the_next_row_or_an_empty_reply() {
        // Hidden versions follow the row's last item: the server flags it partial.
        let mut limit = JavaBatchLimit::new(2, Some(3));
        limit.result(&key("a"), 2, true);
        limit.end_of_reply();
        assert_eq!(limit.limit_of_rows(), Some(3));
        limit.empty_reply();
        limit.end_of_reply();
        assert_eq!(limit.limit_of_rows(), Some(2));
        let mut limit = JavaBatchLimit::new(2, Some(3));
        limit.result(&key("a"), 2, true);
        limit.result(&key("b"), 2, false);
        limit.end_of_reply();
        assert_eq!(limit.limit_of_rows(), Some(1));
    }

    #[test]
    fn pieces_cut_by_size_are_regrouped_before_they_count() {
        // batch 3; the server cuts a row of 4 cells by size into 1 + 1 + 2.
        let mut limit = JavaBatchLimit::new(3, Some(5));
        limit.result(&key("a"), 1, true);
        limit.result(&key("a"), 1, true);
        limit.end_of_reply();
        assert_eq!(limit.limit_of_rows(), Some(5));
        limit.result(&key("a"), 2, false);
        limit.end_of_reply();
        assert_eq!(limit.limit_of_rows(), Some(4));
        // Without a limit nothing ends.
        let mut none = JavaBatchLimit::new(3, None);
        none.result(&key("a"), 3, false);
        none.end_of_reply();
        assert!(!none.ended());
        assert_eq!(none.limit_of_rows(), None);
    }

    #[test]
    fn partial_results_count_as_javas_allow_partial_cache_counts() {
        let mut limit = JavaBatchLimit::partial(Some(3));
        // Row a in two pieces, then b whole: two complete rows.
        limit.result(&key("a"), 2, true);
        limit.result(&key("a"), 1, false);
        limit.result(&key("b"), 5, false);
        limit.end_of_reply();
        assert_eq!(limit.limit_of_rows(), Some(1));
        // c's last piece flagged partial (hidden versions follow): counted at d.
        limit.result(&key("c"), 1, true);
        limit.end_of_reply();
        assert_eq!(limit.limit_of_rows(), Some(1));
        limit.result(&key("d"), 1, true);
        limit.end_of_reply();
        assert!(limit.ended(), "c counted when d began");
        // An empty reply after a partial piece counts it, and the next row counts again.
        let mut twice = JavaBatchLimit::partial(Some(5));
        twice.result(&key("a"), 1, true);
        twice.empty_reply();
        twice.end_of_reply();
        assert_eq!(twice.limit_of_rows(), Some(4));
        twice.result(&key("b"), 1, false);
        twice.end_of_reply();
        assert_eq!(twice.limit_of_rows(), Some(2), "a counted again at b, and b");
        // Inside one reply, a partial piece followed by another row is not counted.
        let mut inside = JavaBatchLimit::partial(Some(5));
        inside.result(&key("a"), 1, true);
        inside.result(&key("b"), 1, false);
        inside.end_of_reply();
        assert_eq!(inside.limit_of_rows(), Some(4));
    }
}
