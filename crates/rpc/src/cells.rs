//! Rows of cells from a reply: each [`Cell`] is the protocol crate's view over the
//! reply's cell block (row, family, qualifier and value are slices of it, not copies).

use basalt_rpc_protocol::block_rows::BlockRows;
use basalt_rpc_protocol::cellblock::{Cell, CellBlockReader, CellCodec};
use basalt_rpc_protocol::CellBlockError;
use bytes::Bytes;

use crate::error::RpcError;
use crate::pb;

/// A row's cells. A row of one cell holds it inline: a scan of single-cell rows then
/// allocates nothing per row (15 rounds of 500,000 rows: 0.89x the client CPU of a
/// list per row for a merged scan, 0.96x for a full scan, medians).
pub type RowCells = smallvec::SmallVec<[Cell; 1]>;

/// One row's cells from a reply (a get's result or one row of a scan page).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowResult {
    /// The cells, in HBase's order (family, qualifier, newest first).
    pub cells: RowCells,
    /// The server marked this result as partial: more cells of the row follow. Rows a
    /// [`Scanner`](crate::Scanner) delivers are whole unless the scan asked for a
    /// `batch` of cells per result.
    pub partial: bool,
    /// The result came from a secondary replica and may be stale.
    pub stale: bool,
}

impl RowResult {
    /// The row key (empty for an empty result).
    pub fn row(&self) -> &[u8] {
        self.cells.first().map_or(&[][..], Cell::row)
    }

    /// The row key as `Bytes` sharing the reply's buffer (empty for an empty result).
    pub fn row_bytes(&self) -> Bytes {
        self.cells.first().map(Cell::row_bytes).unwrap_or_default()
    }

    /// Whether the result holds no cell (a get of a missing row).
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The newest value of `family:qualifier`, if present.
    pub fn value(&self, family: &[u8], qualifier: &[u8]) -> Option<&[u8]> {
        self.cells.iter().find(|c| c.family() == family && c.qualifier() == qualifier).map(Cell::value)
    }
}

/// A page of a scan: its rows laid flat over the reply's cell block (the usual case:
/// every row of the reply complete), or rows of cells (a row joined from pieces of
/// several replies, a scan in pieces, a replica's answer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanPage {
    /// Complete rows viewing one reply's cell block.
    Block(BlockRows),
    /// Rows (or pieces of rows) as lists of cells.
    Results(Vec<RowResult>),
}

impl ScanPage {
    /// Number of rows (or pieces).
    pub fn len(&self) -> usize {
        match self {
            ScanPage::Block(rows) => rows.len(),
            ScanPage::Results(results) => results.len(),
        }
    }

    /// Whether the page holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The page as rows of cells (each cell shares the reply's block).
    pub fn into_results(self) -> Vec<RowResult> {
        match self {
            ScanPage::Block(rows) => (0..rows.len())
                .map(|row| RowResult { cells: rows.cells(row).collect(), partial: false, stale: rows.stale() })
                .collect(),
            ScanPage::Results(results) => results,
        }
    }

    /// Whether the page's last row came from a secondary replica.
    pub(crate) fn last_is_stale(&self) -> bool {
        match self {
            ScanPage::Block(rows) => !rows.is_empty() && rows.stale(),
            ScanPage::Results(results) => results.last().is_some_and(|r| r.stale),
        }
    }

    /// Adds a row at the end (a block page becomes rows of cells first).
    pub(crate) fn push(&mut self, result: RowResult) {
        let mut results = std::mem::replace(self, ScanPage::Results(Vec::new())).into_results();
        results.push(result);
        *self = ScanPage::Results(results);
    }
}

/// Reads the cells of a reply's block in order, `count` at a time.
#[derive(Debug)]
pub(crate) struct CellCursor {
    reader: CellBlockReader,
}

impl CellCursor {
    /// A cursor over a KeyValue-codec block (what this client asks servers for).
    pub fn new(block: Bytes) -> CellCursor {
        CellCursor { reader: CellBlockReader::new(block, CellCodec::KeyValue) }
    }

    /// The next `count` cells; fewer than announced is an error.
    pub fn take(&mut self, count: usize) -> Result<RowCells, String> {
        let mut cells = RowCells::with_capacity(count.min(4096));
        for _ in 0..count {
            match self.reader.next() {
                Some(cell) => cells.push(cell.map_err(|e: CellBlockError| e.to_string())?),
                None => return Err(format!("the cell block holds fewer cells than the {count} announced")),
            }
        }
        Ok(cells)
    }

    /// Whether every cell was read (an unread rest means the reply's counts were wrong).
    pub fn is_done(&mut self) -> bool {
        self.reader.next().is_none()
    }
}

/// One `Result` message's cells: taken from the cell block (`associated_cell_count`)
/// or, when the server sent them inline, refused as unexpected.
pub(crate) fn row_result(server: &str, result: &pb::Result, reader: &mut CellCursor) -> Result<RowResult, RpcError> {
    let protocol = |reason: String| RpcError::Protocol { addr: server.to_owned(), reason };
    if !result.cell.is_empty() {
        return Err(protocol("cells inline in the message; this client asks for cell blocks".into()));
    }
    let count = usize::try_from(result.associated_cell_count.unwrap_or(0))
        .map_err(|_| protocol("a negative cell count".into()))?;
    let cells = reader.take(count).map_err(protocol)?;
    Ok(RowResult { cells, partial: result.partial.unwrap_or(false), stale: result.stale.unwrap_or(false) })
}

/// The results of a scan reply: `cells_per_result` cells each from the cell block, with
/// their partial flags.
pub(crate) fn scan_results(
    server: &str,
    response: &pb::ScanResponse,
    block: &Bytes,
) -> Result<Vec<RowResult>, RpcError> {
    let protocol = |reason: String| RpcError::Protocol { addr: server.to_owned(), reason };
    if response.results.iter().any(|r| !r.cell.is_empty()) {
        return Err(protocol("scan results inline in the message; this client asks for cell blocks".into()));
    }
    let mut reader = CellCursor::new(block.clone());
    let mut rows = Vec::with_capacity(response.cells_per_result.len());
    for (index, count) in response.cells_per_result.iter().enumerate() {
        let cells = reader.take(*count as usize).map_err(protocol)?;
        let partial = response.partial_flag_per_result.get(index).copied().unwrap_or(false);
        rows.push(RowResult { cells, partial, stale: response.stale.unwrap_or(false) });
    }
    if !reader.is_done() {
        return Err(protocol("cells left in the block after the last result".into()));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_rpc_protocol::cellblock::{encode_cell, CellParts, CellType};
    use bytes::BytesMut;

    fn block(rows: &[&str]) -> Bytes {
        let mut out = BytesMut::new();
        for row in rows {
            let parts = CellParts {
                row: row.as_bytes(),
                family: b"f",
                qualifier: b"q",
                timestamp: 7,
                cell_type: CellType::Put,
                value: b"v",
                tags: b"",
            };
            encode_cell(CellCodec::KeyValue, &parts, &mut out).unwrap();
        }
        out.freeze()
    }

    #[test]
    fn cursor_takes_cells_per_result_and_checks_counts() {
        let block = block(&["a", "a", "b"]);
        let mut cursor = CellCursor::new(block.clone());
        let first = RowResult { cells: cursor.take(2).unwrap(), ..Default::default() };
        assert_eq!(first.row(), b"a");
        assert_eq!(first.value(b"f", b"q"), Some(&b"v"[..]));
        // The row shares the block's memory.
        let inside = block.as_ptr() as usize..block.as_ptr() as usize + block.len();
        assert!(inside.contains(&(first.row_bytes().as_ptr() as usize)));
        assert_eq!(cursor.take(1).unwrap()[0].row(), b"b");
        assert!(cursor.is_done());
        let mut short = CellCursor::new(block.slice(..block.len() - 1));
        assert!(short.take(3).is_err());
        let mut fewer = CellCursor::new(block);
        assert!(fewer.take(4).is_err());
    }
}
