//! A scan reply's rows laid flat over its cell block: the block itself, one small
//! record per cell (where its KeyValue starts and its parts' lengths) and one per row
//! (where its key lies and where its cells end). Reading a page this way allocates
//! nothing per row or per cell, and a page's records take 32 bytes per cell and 12 per
//! row. A row's key is one step from its record: a reader that comes back to a row
//! after the page left the cache (a merge of many scans) waits for two lines, the
//! record and the key.
//!
//! Rows of a [`BlockRows`] are whole: it is for replies whose results are all complete
//! (no partial flag). Pieces of rows take the [`Cell`]-per-cell path, which can join
//! cells from several replies.

use bytes::Bytes;

use crate::cellblock::{part_of, Cell, CellCodec, CellLayout, CellType};
use crate::error::CellBlockError;

/// One cell's record: where its KeyValue starts in the block and its layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CellAt {
    start: u32,
    layout: CellLayout,
}

/// One row's record: where its key lies in the block, and where its cells end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RowAt {
    key_start: u32,
    /// Row `i`'s cells are `cells[rows[i - 1].cells_end..rows[i].cells_end]` (from 0
    /// for the first row).
    cells_end: u32,
    key_len: u16,
}

/// A reply's complete rows as views of its cell block (see the module's docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockRows {
    block: Bytes,
    cells: Vec<CellAt>,
    rows: Vec<RowAt>,
    stale: bool,
}

/// One cell of a [`BlockRows`], borrowed from it.
#[derive(Debug, Clone, Copy)]
pub struct CellView<'a> {
    key_value: &'a [u8],
    layout: CellLayout,
}

impl<'a> CellView<'a> {
    /// The row key.
    pub fn row(&self) -> &'a [u8] {
        part_of(self.key_value, self.layout.row_range())
    }

    /// The column family.
    pub fn family(&self) -> &'a [u8] {
        part_of(self.key_value, self.layout.family_range())
    }

    /// The column qualifier (may be empty).
    pub fn qualifier(&self) -> &'a [u8] {
        part_of(self.key_value, self.layout.qualifier_range())
    }

    /// The value.
    pub fn value(&self) -> &'a [u8] {
        part_of(self.key_value, self.layout.value_range())
    }

    /// The version's timestamp.
    pub fn timestamp(&self) -> i64 {
        self.layout.timestamp()
    }

    /// Put, or one of the delete markers.
    pub fn cell_type(&self) -> CellType {
        self.layout.cell_type()
    }

    /// The KeyValue's bytes (without the block's 4-byte cell length).
    pub fn key_value(&self) -> &'a [u8] {
        self.key_value
    }
}

impl BlockRows {
    /// Reads `block` (in `codec`) as results of `cells_per_result` cells each, in order.
    /// A result of no cell is left out (a scan delivers no empty row). Every cell is
    /// checked; the counts must add up to exactly the cells in the block.
    pub fn parse(
        block: Bytes,
        codec: CellCodec,
        cells_per_result: &[u32],
        stale: bool,
    ) -> Result<BlockRows, CellBlockError> {
        let announced: u64 = cells_per_result.iter().map(|&n| u64::from(n)).sum();
        if block.len() > u32::MAX as usize {
            // Offsets are kept in 32 bits (a reply's frame is far smaller).
            return Err(CellBlockError::Malformed { index: 0, reason: "a cell block of 4 GiB or more" });
        }
        // Each cell takes at least 4 + 8 + 12 bytes: a count beyond what the block can
        // hold is refused before anything is allocated for it.
        let most = block.len() as u64 / (4 + 8 + 12);
        if announced > most {
            let present = crate::cellblock::CellBlockReader::new(block, codec).count() as u64;
            return Err(CellBlockError::CellCountMismatch { announced, present });
        }
        let mut cells = Vec::with_capacity(announced as usize);
        let mut rows = Vec::with_capacity(cells_per_result.len());
        let mut at = 0usize;
        for &count in cells_per_result {
            let first = cells.len();
            for _ in 0..count {
                let index = cells.len();
                let remaining = block.len() - at;
                let Some(prefix) = block.get(at..at + 4) else {
                    return Err(CellBlockError::CellCountMismatch { announced, present: index as u64 });
                };
                let length = u32::from_be_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]) as usize;
                let start = at + 4;
                let Some(key_value) = block.get(start..start.saturating_add(length)) else {
                    return Err(CellBlockError::Truncated {
                        index,
                        part: "cell",
                        needed: length as u64,
                        remaining: (remaining - 4) as u64,
                    });
                };
                let layout = CellLayout::parse(key_value, codec, index)?;
                // `start` fits: the block is at most u32::MAX bytes (checked above).
                cells.push(CellAt { start: start as u32, layout });
                at = start + length;
            }
            if let Some(record) = cells.get(first) {
                let key = record.layout.row_range();
                rows.push(RowAt {
                    key_start: record.start + key.start as u32,
                    cells_end: cells.len() as u32,
                    // A row key's length is a 16-bit field of the KeyValue.
                    key_len: key.len() as u16,
                });
            }
        }
        if at != block.len() {
            let rest = crate::cellblock::CellBlockReader::new(block.slice(at..), codec).count() as u64;
            return Err(CellBlockError::CellCountMismatch { announced, present: announced + rest });
        }
        Ok(BlockRows { block, cells, rows, stale })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The cell block the rows view.
    pub fn block(&self) -> &Bytes {
        &self.block
    }

    /// Whether the rows came from a secondary replica and may be stale.
    pub fn stale(&self) -> bool {
        self.stale
    }

    /// Keeps the first `rows` rows.
    pub fn truncate(&mut self, rows: usize) {
        self.rows.truncate(rows);
    }

    fn cell_records(&self, row: usize) -> &[CellAt] {
        let Some(at) = self.rows.get(row) else { return &[] };
        let start = match row.checked_sub(1) {
            Some(before) => self.rows.get(before).map_or(0, |r| r.cells_end),
            None => 0,
        };
        self.cells.get(start as usize..at.cells_end as usize).unwrap_or_default()
    }

    fn view(&self, record: &CellAt) -> CellView<'_> {
        let start = record.start as usize;
        let key_value = self.block.get(start..start + record.layout.key_value_len()).unwrap_or_default();
        CellView { key_value, layout: record.layout }
    }

    /// Row `row`'s key's range in the block.
    fn key_range(&self, row: usize) -> Option<std::ops::Range<usize>> {
        let at = self.rows.get(row)?;
        let start = at.key_start as usize;
        Some(start..start + usize::from(at.key_len))
    }

    /// Row `row`'s key (empty beyond the last row).
    pub fn row_key(&self, row: usize) -> &[u8] {
        self.key_range(row).and_then(|range| self.block.get(range)).unwrap_or_default()
    }

    /// Row `row`'s key sharing the block's memory (empty beyond the last row).
    pub fn row_key_bytes(&self, row: usize) -> Bytes {
        match self.key_range(row) {
            Some(range) if !range.is_empty() && range.end <= self.block.len() => self.block.slice(range),
            Some(_) | None => Bytes::new(),
        }
    }

    /// The bytes of the block the rows hold: up to the end of the last row's last cell
    /// (less than the block after [`BlockRows::truncate`]).
    pub fn kept_len(&self) -> usize {
        let Some(last) = self.rows.last() else { return 0 };
        let Some(cell) = (last.cells_end as usize).checked_sub(1).and_then(|i| self.cells.get(i)) else {
            return 0;
        };
        (cell.start as usize + cell.layout.key_value_len()).min(self.block.len())
    }

    /// Row `row`'s size in the block: its cells with their 4-byte lengths (0 beyond the
    /// last row).
    pub fn wire_len(&self, row: usize) -> usize {
        self.cell_records(row).iter().map(|record| record.layout.key_value_len() + 4).sum()
    }

    /// Number of cells of row `row` (0 beyond the last row).
    pub fn cell_count(&self, row: usize) -> usize {
        self.cell_records(row).len()
    }

    /// Cell `cell` of row `row`.
    pub fn cell(&self, row: usize, cell: usize) -> Option<CellView<'_>> {
        self.cell_records(row).get(cell).map(|record| self.view(record))
    }

    /// Row `row`'s cells as [`Cell`]s sharing the block.
    pub fn cells(&self, row: usize) -> impl Iterator<Item = Cell> + '_ {
        self.cell_records(row).iter().map(|record| {
            let start = record.start as usize;
            let end = start + record.layout.key_value_len();
            let key_value = if end <= self.block.len() { self.block.slice(start..end) } else { Bytes::new() };
            Cell::from_layout(key_value, record.layout)
        })
    }
}

#[cfg(test)]
#[path = "block_rows_tests.rs"]
mod tests;
