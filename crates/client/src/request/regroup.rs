//! A batched scan's results as Java's client hands them out: the pieces the server
//! sends (cut by `batch` and by size) regrouped into items of exactly `batch` cells.

use bytes::Bytes;

/// A part of one row: what the server sends, and what the regrouper hands out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece<C> {
    /// The row key.
    pub(crate) key: Bytes,
    /// The cells, in the row's order.
    pub(crate) cells: Vec<C>,
    /// More cells of the row may follow.
    pub(crate) partial: bool,
    /// A secondary replica answered.
    pub(crate) stale: bool,
}

/// Regroups a batched scan's pieces as Java's `BatchScanResultCache` does: cells of one
/// row are handed out in items of exactly `batch` cells as soon as that many arrived;
/// the row's last item holds what is left (fewer cells) and goes out when the row ends
/// (a piece says no more cells follow, another row begins, or a reply without results
/// that is no heartbeat comes: [`BatchRegrouper::empty_reply`]). Cells still held back
/// when the scan ends otherwise are not handed out: Java's client closes at the limit
/// or after the last region without flushing them (its `ClientScanner.loadCache`). An item
/// is flagged partial when the piece that completed it said more may follow or cells
/// of the row are held back, as Java flags it; the row's last item is not.
///
/// The server cuts a row not only by `batch` but also by size (a call's result size
/// limit), so the pieces of a row with large cells are shorter than `batch`; without
/// regrouping, the count and the boundaries of a row's items would depend on the cell
/// sizes and the call boundaries, which Java's client hides.
#[derive(Debug)]
pub(crate) struct BatchRegrouper<C> {
    batch: usize,
    /// Cells of the row in progress not handed out yet (fewer than `batch`).
    held: Option<Piece<C>>,
}

impl<C> BatchRegrouper<C> {
    /// A regrouper into items of `batch` cells (at least one).
    pub(crate) fn new(batch: u32) -> BatchRegrouper<C> {
        BatchRegrouper { batch: usize::try_from(batch.max(1)).unwrap_or(usize::MAX), held: None }
    }

    /// Takes one piece from the server; appends the items it completes to `items`.
    pub(crate) fn push(&mut self, piece: Piece<C>, items: &mut Vec<Piece<C>>) {
        if piece.cells.is_empty() {
            return;
        }
        if self.held.as_ref().is_some_and(|held| held.key != piece.key) {
            // Another row: the one held ends here.
            items.extend(self.finish());
        }
        let Piece { key, cells, partial: more, stale } = piece;
        let held = self.held.get_or_insert_with(|| Piece { key, cells: Vec::new(), partial: true, stale: false });
        held.cells.extend(cells);
        held.stale |= stale;
        while held.cells.len() >= self.batch {
            let rest = held.cells.split_off(self.batch);
            let cells = std::mem::replace(&mut held.cells, rest);
            items.push(Piece {
                key: held.key.clone(),
                cells,
                partial: more || !held.cells.is_empty(),
                stale: held.stale,
            });
            // What is left came with this piece.
            held.stale = stale;
        }
        if held.cells.is_empty() {
            self.held = None;
        } else if !more {
            items.extend(self.finish());
        }
    }

    /// A reply without results that is no heartbeat: Java's cache hands out the cells
    /// it holds as their row's last item (its `addAndGet` of an empty reply).
    pub(crate) fn empty_reply(&mut self, items: &mut Vec<Piece<C>>) {
        items.extend(self.finish());
    }

    /// The cells held back as their row's last item (another row began).
    fn finish(&mut self) -> Option<Piece<C>> {
        let mut held = self.held.take()?;
        held.partial = false;
        Some(held)
    }

    /// Whether cells are held back.
    #[cfg(test)]
    pub(crate) fn is_holding(&self) -> bool {
        self.held.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(key: &'static str, cells: &[u32], partial: bool) -> Piece<u32> {
        Piece { key: Bytes::from_static(key.as_bytes()), cells: cells.to_vec(), partial, stale: false }
    }

    /// The items (key, cells, partial) of `pieces`, then of the cells held back.
    fn regroup(batch: u32, pieces: Vec<Piece<u32>>) -> Vec<(String, Vec<u32>, bool)> {
        let mut regrouper = BatchRegrouper::new(batch);
        let mut items = Vec::new();
        for p in pieces {
            regrouper.push(p, &mut items);
        }
        items.extend(regrouper.finish());
        assert!(!regrouper.is_holding());
        items.into_iter().map(|p| (String::from_utf8_lossy(&p.key).into_owned(), p.cells, p.partial)).collect()
    }

    fn item(key: &str, cells: &[u32], partial: bool) -> (String, Vec<u32>, bool) {
        (key.to_owned(), cells.to_vec(), partial)
    }

    #[test]
    fn pieces_cut_by_size_come_out_in_items_of_batch_cells() {
        // The issue: batch 5, a row of 12 cells the server sends as 3 + 2 + 3 + 4.
        let pieces = vec![
            piece("r", &[1, 2, 3], true),
            piece("r", &[4, 5], true),
            piece("r", &[6, 7, 8], true),
            piece("r", &[9, 10, 11, 12], false),
        ];
        assert_eq!(
            regroup(5, pieces),
            vec![item("r", &[1, 2, 3, 4, 5], true), item("r", &[6, 7, 8, 9, 10], true), item("r", &[11, 12], false)]
        );
    }

    #[test]
    fn a_row_ending_on_a_full_item_is_complete_unless_the_server_said_more() {
        assert_eq!(regroup(2, vec![piece("r", &[1], true), piece("r", &[2], false)]), vec![item("r", &[1, 2], false)]);
        // The server flags the last piece partial when hidden versions follow: so does Java.
        assert_eq!(
            regroup(2, vec![piece("r", &[1, 2], true), piece("s", &[3], false)]),
            vec![item("r", &[1, 2], true), item("s", &[3], false)]
        );
    }

    #[test]
    fn another_row_hands_out_what_is_held() {
        let pieces = vec![piece("a", &[1, 2, 3], true), piece("b", &[4], true), piece("b", &[5], true)];
        assert_eq!(
            regroup(2, pieces),
            vec![item("a", &[1, 2], true), item("a", &[3], false), item("b", &[4, 5], true)]
        );
        let mut regrouper = BatchRegrouper::new(4);
        let mut items = Vec::new();
        regrouper.push(piece("a", &[1], true), &mut items);
        assert!(items.is_empty() && regrouper.is_holding());
        assert_eq!(regrouper.finish(), Some(piece("a", &[1], false)));
        assert_eq!(regrouper.finish(), None);
    }

    #[test]
    fn pieces_already_of_batch_cells_pass_unchanged_and_empty_pieces_vanish() {
        let pieces =
            vec![piece("a", &[1, 2], true), piece("a", &[], true), piece("a", &[3], false), piece("b", &[4, 5], false)];
        assert_eq!(
            regroup(2, pieces),
            vec![item("a", &[1, 2], true), item("a", &[3], false), item("b", &[4, 5], false)]
        );
        // Longer pieces (not what HBase sends) are cut too; batch 0 means 1.
        assert_eq!(regroup(0, vec![piece("a", &[1, 2], false)]), vec![item("a", &[1], true), item("a", &[2], false)]);
    }

    #[test]
    fn an_item_is_stale_when_a_piece_in_it_is() {
        let mut regrouper = BatchRegrouper::new(2);
        let mut items = Vec::new();
        regrouper.push(Piece { stale: true, ..piece("a", &[1], true) }, &mut items);
        regrouper.push(piece("a", &[2, 3], true), &mut items);
        regrouper.push(piece("a", &[4], false), &mut items);
        assert_eq!(items.iter().map(|p| p.stale).collect::<Vec<_>>(), vec![true, false]);
    }

    #[test]
    fn an_empty_reply_hands_out_what_is_held() {
        let mut regrouper = BatchRegrouper::new(4);
        let mut items = Vec::new();
        regrouper.push(piece("a", &[1], true), &mut items);
        assert!(items.is_empty() && regrouper.is_holding());
        regrouper.empty_reply(&mut items);
        assert_eq!(items, vec![Piece { key: Bytes::from("a"), cells: vec![1], partial: false, stale: false }]);
        assert!(!regrouper.is_holding());
        regrouper.empty_reply(&mut items);
        assert_eq!(items.len(), 1);
    }
}
