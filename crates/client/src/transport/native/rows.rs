//! The native transport's replies as the core's rows: a reply's results are a
//! [`RowSource`] whose cells are the rpc crate's views of the reply's cell block, so a
//! row points into the reply's buffer as a gateway row does (no copy, no allocation
//! per cell or per row: one reference-counted page per reply).

use std::sync::Arc;

use basalt_rpc::RowResult;
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

/// A reply's results as rows sharing the reply (one page for all of them).
pub(crate) fn rows(results: Vec<RowResult>) -> impl ExactSizeIterator<Item = Row> {
    Row::of_page(Arc::new(NativePage(results)))
}

/// One result (a get's, a mutation's) as a row sharing the reply.
pub(super) fn to_row(result: RowResult) -> Row {
    rows(vec![result]).next().unwrap_or_default()
}
