//! The native transport's replies as the core's rows: a reply's results are a
//! [`RowSource`] whose cells are the rpc crate's views of the reply's cell block, so a
//! row points into the reply's buffer as a gateway row does (no copy, no allocation
//! per cell or per row: one reference-counted page per reply).

use std::sync::Arc;

use basalt_rpc::{BlockRows, RowResult};
use bytes::Bytes;

use crate::row::{CellType, PageCell, Row, RowSource};

/// A reply's results, in the server's order (or as regrouped for a batched scan). Each
/// cell views its KeyValue in the reply's cell block.
pub(super) struct NativePage(Vec<RowResult>);

impl RowSource for NativePage {
    fn row_count(&self) -> usize {
        self.0.len()
    }

    fn key(&self, row: usize) -> (&Bytes, &[u8]) {
        static EMPTY: Bytes = Bytes::from_static(b"");
        match self.0.get(row).and_then(|r| r.cells.first()) {
            Some(cell) => (cell.key_value(), cell.row()),
            None => (&EMPTY, &[]),
        }
    }

    fn partial(&self, row: usize) -> bool {
        self.0.get(row).is_some_and(|r| r.partial)
    }

    fn stale(&self, row: usize) -> bool {
        self.0.get(row).is_some_and(|r| r.stale)
    }

    fn cell_count(&self, row: usize) -> usize {
        self.0.get(row).map_or(0, |r| r.cells.len())
    }

    fn cell(&self, row: usize, cell: usize) -> Option<PageCell<'_>> {
        let c = self.0.get(row)?.cells.get(cell)?;
        Some(PageCell {
            buf: c.key_value(),
            family: c.family(),
            qualifier: c.qualifier(),
            value: c.value(),
            timestamp: c.timestamp(),
            cell_type: CellType::from_code(c.cell_type().code()),
        })
    }
}

/// A scan reply's whole rows laid flat over its cell block: keys and cells are read
/// from the block through a small record per cell (nothing per row but its span).
struct NativeBlockPage(BlockRows);

impl RowSource for NativeBlockPage {
    fn row_count(&self) -> usize {
        self.0.len()
    }

    fn key(&self, row: usize) -> (&Bytes, &[u8]) {
        (self.0.block(), self.0.row_key(row))
    }

    fn partial(&self, _row: usize) -> bool {
        // A block page holds whole rows only.
        false
    }

    fn stale(&self, row: usize) -> bool {
        row < self.0.len() && self.0.stale()
    }

    fn cell_count(&self, row: usize) -> usize {
        self.0.cell_count(row)
    }

    fn cell(&self, row: usize, cell: usize) -> Option<PageCell<'_>> {
        let c = self.0.cell(row, cell)?;
        Some(PageCell {
            buf: self.0.block(),
            family: c.family(),
            qualifier: c.qualifier(),
            value: c.value(),
            timestamp: c.timestamp(),
            cell_type: CellType::from_code(c.cell_type().code()),
        })
    }
}

/// A scan reply's whole rows as rows sharing its block (one page for all of them).
pub(crate) fn block_rows(rows: BlockRows) -> impl ExactSizeIterator<Item = Row> {
    Row::of_page(Arc::new(NativeBlockPage(rows)))
}

/// A reply's results as rows sharing the reply (one page for all of them).
pub(crate) fn rows(results: Vec<RowResult>) -> impl ExactSizeIterator<Item = Row> {
    Row::of_page(Arc::new(NativePage(results)))
}

/// One result (a get's, a mutation's) as a row sharing the reply.
pub(super) fn to_row(result: RowResult) -> Row {
    rows(vec![result]).next().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::Cell;
    use basalt_rpc_protocol::cellblock::{encode_cell, CellBlockReader, CellCodec, CellParts};
    use bytes::BytesMut;

    /// A KeyValue cell block of (row, qualifier, value, timestamp, type) cells in
    /// family `d`.
    fn block(cells: &[(&str, &str, &str, i64, basalt_rpc::CellType)]) -> Bytes {
        let mut out = BytesMut::new();
        for (row, q, v, ts, cell_type) in cells {
            let parts = CellParts {
                row: row.as_bytes(),
                family: b"d",
                qualifier: q.as_bytes(),
                timestamp: *ts,
                cell_type: *cell_type,
                value: v.as_bytes(),
                tags: b"",
            };
            encode_cell(CellCodec::KeyValue, &parts, &mut out).unwrap();
        }
        out.freeze()
    }

    #[test]
    fn native_rows_view_the_cell_block() {
        use basalt_rpc::CellType as Wire;
        let block = block(&[
            ("r1", "a", "new", 2, Wire::Put),
            ("r1", "a", "old", 1, Wire::Put),
            ("r2", "b", "", 7, Wire::DeleteColumn),
        ]);
        let mut cells = CellBlockReader::new(block.clone(), CellCodec::KeyValue).map(Result::unwrap);
        let results = vec![
            RowResult { cells: cells.by_ref().take(2).collect(), partial: true, stale: false },
            RowResult { cells: cells.collect(), partial: false, stale: true },
            RowResult::default(),
        ];
        let rows: Vec<Row> = rows(results).collect();
        assert_eq!(rows.len(), 3);
        assert_eq!((rows[0].key(), rows[1].key(), rows[2].key()), (&b"r1"[..], &b"r2"[..], &b""[..]));
        assert!(rows[0].is_partial() && !rows[0].is_stale() && rows[1].is_stale() && !rows[1].is_partial());
        assert_eq!(rows[0].value(b"d", b"a"), Some(&b"new"[..]));
        assert_eq!(rows[0].versions(b"d", b"a").len(), 2);
        let marker = rows[1].cells().next().unwrap();
        assert_eq!((marker.cell_type(), marker.timestamp()), (CellType::DeleteColumn, 7));
        assert!(rows[2].is_empty());
        // Keys, parts and their `Bytes` forms point into the block: nothing was copied.
        let inside = |s: &[u8]| block.as_ptr_range().contains(&s.as_ptr());
        let first = rows[0].cells().next().unwrap();
        assert!(inside(rows[0].key()) && inside(&rows[0].key_bytes()));
        assert!(inside(first.family()) && inside(first.qualifier()) && inside(first.value()));
        assert!(inside(&first.family_bytes()) && inside(&first.qualifier_bytes()) && inside(&first.value_bytes()));
        // The same rows built by hand are equal.
        let by_hand = Row::new("r1", [Cell::new("d", "a", "new", 2), Cell::new("d", "a", "old", 1)]);
        assert_eq!(rows[0], by_hand.with_partial(true));
        assert_eq!(rows[1], Row::new("r2", [Cell::new("d", "b", "", 7).with_type(CellType::DeleteColumn)]));
        assert_eq!(to_row(RowResult::default()), Row::default());
    }

    #[test]
    fn block_pages_give_the_same_rows_as_cell_lists() {
        use basalt_rpc::CellType as Wire;
        let block = block(&[
            ("r1", "a", "new", 2, Wire::Put),
            ("r1", "a", "old", 1, Wire::Put),
            ("r2", "b", "", 7, Wire::DeleteColumn),
        ]);
        for stale in [false, true] {
            let flat = BlockRows::parse(block.clone(), CellCodec::KeyValue, &[2, 0, 1], stale).unwrap();
            let sizes: Vec<usize> = (0..flat.len()).map(|row| flat.wire_len(row)).collect();
            let flat: Vec<Row> = block_rows(flat).collect();
            let mut cells = CellBlockReader::new(block.clone(), CellCodec::KeyValue).map(Result::unwrap);
            let listed: Vec<Row> = rows(vec![
                RowResult { cells: cells.by_ref().take(2).collect(), partial: false, stale },
                RowResult { cells: cells.collect(), partial: false, stale },
            ])
            .collect();
            assert_eq!(flat, listed);
            assert_eq!(flat.iter().map(Row::is_stale).collect::<Vec<_>>(), [stale, stale]);
            assert!(flat.iter().all(|row| !row.is_partial()));
            // The sizes on the wire add up to the block's.
            assert_eq!(sizes.iter().sum::<usize>(), block.len());
            // Keys and parts point into the block.
            let inside = |s: &[u8]| block.as_ptr_range().contains(&s.as_ptr());
            let first = flat[0].cells().next().unwrap();
            assert!(inside(flat[1].key()) && inside(&flat[1].key_bytes()) && inside(&first.value_bytes()));
            assert_eq!(flat[0].versions(b"d", b"a").len(), 2);
        }
    }
}
