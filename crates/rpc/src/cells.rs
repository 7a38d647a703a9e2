//! Cells of a KeyValue-codec cell block as zero-copy views, and the rows they form.
//!
//! A block is a run of cells, each a 4-byte length then a KeyValue: key length (4),
//! value length (4), the key (row length (2), row, family length (1), family,
//! qualifier, timestamp (8), type (1)) and the value. Every length is checked against
//! the bytes that remain; a [`Cell`] keeps a `Bytes` of its KeyValue (a slice of the
//! reply, no copy) and the offsets of its parts.

use bytes::Bytes;

/// What a cell records, from its KeyValue type byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CellType {
    /// A value.
    Put,
    /// A delete marker of one version of a column.
    Delete,
    /// A delete marker of one version of a family.
    DeleteFamilyVersion,
    /// A delete marker of every version of a column up to its timestamp.
    DeleteColumn,
    /// A delete marker of a whole family up to its timestamp.
    DeleteFamily,
    /// Any other code (HBase's internal Minimum/Maximum).
    Other(u8),
}

impl CellType {
    fn from_code(code: u8) -> CellType {
        match code {
            4 => CellType::Put,
            8 => CellType::Delete,
            10 => CellType::DeleteFamilyVersion,
            12 => CellType::DeleteColumn,
            14 => CellType::DeleteFamily,
            other => CellType::Other(other),
        }
    }
}

/// One cell, a view over the reply's bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct Cell {
    kv: Bytes,
    row_len: u16,
    family_len: u8,
    qualifier_len: u32,
    value_len: u32,
}

/// Offsets inside a KeyValue: after key length and value length, the row starts at 10.
const ROW_AT: usize = 4 + 4 + 2;

impl Cell {
    /// The row key.
    pub fn row(&self) -> &[u8] {
        &self.kv[ROW_AT..ROW_AT + usize::from(self.row_len)]
    }

    /// The column family.
    pub fn family(&self) -> &[u8] {
        let at = self.family_at();
        &self.kv[at..at + usize::from(self.family_len)]
    }

    /// The column qualifier.
    pub fn qualifier(&self) -> &[u8] {
        let at = self.qualifier_at();
        &self.kv[at..at + self.qualifier_len as usize]
    }

    /// The timestamp in milliseconds.
    pub fn timestamp(&self) -> u64 {
        let at = self.qualifier_at() + self.qualifier_len as usize;
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&self.kv[at..at + 8]);
        u64::from_be_bytes(bytes)
    }

    /// What the cell records.
    pub fn cell_type(&self) -> CellType {
        let at = self.qualifier_at() + self.qualifier_len as usize + 8;
        CellType::from_code(self.kv[at])
    }

    /// The value.
    pub fn value(&self) -> &[u8] {
        let at = self.kv.len() - self.value_len as usize;
        &self.kv[at..]
    }

    /// The row key as `Bytes` sharing the reply's buffer.
    pub fn row_bytes(&self) -> Bytes {
        self.kv.slice(ROW_AT..ROW_AT + usize::from(self.row_len))
    }

    /// The value as `Bytes` sharing the reply's buffer.
    pub fn value_bytes(&self) -> Bytes {
        self.kv.slice(self.kv.len() - self.value_len as usize..)
    }

    fn family_at(&self) -> usize {
        ROW_AT + usize::from(self.row_len) + 1
    }

    fn qualifier_at(&self) -> usize {
        self.family_at() + usize::from(self.family_len)
    }
}

impl std::fmt::Debug for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cell")
            .field("row", &Bytes::copy_from_slice(self.row()))
            .field("family", &Bytes::copy_from_slice(self.family()))
            .field("qualifier", &Bytes::copy_from_slice(self.qualifier()))
            .field("timestamp", &self.timestamp())
            .field("type", &self.cell_type())
            .field("value", &Bytes::copy_from_slice(self.value()))
            .finish()
    }
}

/// Why a cell block could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad cell block at byte {offset}: {reason}")]
pub struct CellBlockError {
    /// Where in the block the bad cell starts.
    pub offset: usize,
    /// What was wrong.
    pub reason: &'static str,
}

/// Reads the cells of a block one by one.
#[derive(Debug, Clone)]
pub struct CellReader {
    block: Bytes,
    offset: usize,
}

impl CellReader {
    /// A reader over a KeyValue-codec block.
    pub fn new(block: Bytes) -> CellReader {
        CellReader { block, offset: 0 }
    }

    /// Whether every cell was read.
    pub fn is_empty(&self) -> bool {
        self.offset >= self.block.len()
    }

    /// The next cell, `None` at the end of the block.
    pub fn next_cell(&mut self) -> Option<Result<Cell, CellBlockError>> {
        if self.is_empty() {
            return None;
        }
        let start = self.offset;
        let result = self.read_cell();
        if result.is_err() {
            // Nothing after a bad cell can be trusted.
            self.offset = self.block.len();
        }
        Some(result.map_err(|reason| CellBlockError { offset: start, reason }))
    }

    fn read_cell(&mut self) -> Result<Cell, &'static str> {
        let rest = &self.block[self.offset..];
        let total = be_u32(rest, 0).ok_or("truncated cell length")? as usize;
        if total > rest.len() - 4 {
            return Err("cell length beyond the block");
        }
        let kv = self.block.slice(self.offset + 4..self.offset + 4 + total);
        let key_len = be_u32(&kv, 0).ok_or("truncated key length")? as usize;
        let value_len = be_u32(&kv, 4).ok_or("truncated value length")? as usize;
        if 8usize.checked_add(key_len).and_then(|n| n.checked_add(value_len)) != Some(kv.len()) {
            return Err("key and value lengths do not add up to the cell length");
        }
        let row_len = kv.get(8..10).map(|b| u16::from_be_bytes([b[0], b[1]])).ok_or("truncated row length")?;
        let family_len_at = ROW_AT + usize::from(row_len);
        // Key: row length (2) + row + family length (1) + family + qualifier + ts (8) + type (1).
        let fixed = 2 + usize::from(row_len) + 1 + 8 + 1;
        if key_len < fixed {
            return Err("key shorter than its row");
        }
        let family_len = *kv.get(family_len_at).ok_or("truncated family length")?;
        if fixed + usize::from(family_len) > key_len {
            return Err("family beyond the key");
        }
        let qualifier_len = key_len - fixed - usize::from(family_len);
        self.offset += 4 + total;
        Ok(Cell { kv, row_len, family_len, qualifier_len: qualifier_len as u32, value_len: value_len as u32 })
    }
}

fn be_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 4)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// One row's cells from a reply (a get's result or one result of a scan page).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowResult {
    /// The cells, in HBase's order (family, qualifier, newest first).
    pub cells: Vec<Cell>,
    /// The server marked this result as partial: more cells of the row follow.
    pub partial: bool,
    /// The result came from a secondary replica and may be stale.
    pub stale: bool,
}

impl RowResult {
    /// The row key (empty for an empty result).
    pub fn row(&self) -> &[u8] {
        self.cells.first().map_or(&[][..], Cell::row)
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

/// Reads `count` cells from the reader into a row.
pub(crate) fn take_cells(reader: &mut CellReader, count: usize) -> Result<Vec<Cell>, CellBlockError> {
    let mut cells = Vec::with_capacity(count.min(4096));
    for _ in 0..count {
        match reader.next_cell() {
            Some(cell) => cells.push(cell?),
            None => return Err(CellBlockError { offset: reader.offset, reason: "fewer cells than announced" }),
        }
    }
    Ok(cells)
}

/// Encodes one KeyValue cell in the codec's framing (for tests and fakes).
#[cfg(test)]
pub(crate) fn encode_cell(out: &mut Vec<u8>, row: &[u8], family: &[u8], qualifier: &[u8], ts: u64, value: &[u8]) {
    let key_len = 2 + row.len() + 1 + family.len() + qualifier.len() + 8 + 1;
    let total = 8 + key_len + value.len();
    out.extend_from_slice(&(total as u32).to_be_bytes());
    out.extend_from_slice(&(key_len as u32).to_be_bytes());
    out.extend_from_slice(&(value.len() as u32).to_be_bytes());
    out.extend_from_slice(&(row.len() as u16).to_be_bytes());
    out.extend_from_slice(row);
    out.push(family.len() as u8);
    out.extend_from_slice(family);
    out.extend_from_slice(qualifier);
    out.extend_from_slice(&ts.to_be_bytes());
    out.push(4);
    out.extend_from_slice(value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cells_as_views() {
        let mut block = Vec::new();
        encode_cell(&mut block, b"row1", b"f", b"q1", 42, b"v1");
        encode_cell(&mut block, b"row1", b"f", b"", 43, b"");
        let block = Bytes::from(block);
        let mut reader = CellReader::new(block.clone());
        let first = reader.next_cell().unwrap().unwrap();
        assert_eq!(
            (first.row(), first.family(), first.qualifier(), first.value()),
            (&b"row1"[..], &b"f"[..], &b"q1"[..], &b"v1"[..])
        );
        assert_eq!(first.timestamp(), 42);
        assert_eq!(first.cell_type(), CellType::Put);
        // The value shares the block's memory.
        let inside = block.as_ptr() as usize..block.as_ptr() as usize + block.len();
        assert!(inside.contains(&(first.value_bytes().as_ptr() as usize)));
        assert!(inside.contains(&(first.row_bytes().as_ptr() as usize)));
        let second = reader.next_cell().unwrap().unwrap();
        assert_eq!(second.qualifier(), b"");
        assert_eq!(second.value(), b"");
        assert!(reader.next_cell().is_none());
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let mut block = Vec::new();
        encode_cell(&mut block, b"row", b"fam", b"qual", 1, b"value");
        for cut in 0..block.len() {
            let mut reader = CellReader::new(Bytes::copy_from_slice(&block[..cut]));
            if cut == 0 {
                assert!(reader.next_cell().is_none());
            } else {
                assert!(reader.next_cell().unwrap().is_err(), "cut at {cut}");
            }
        }
    }

    #[test]
    fn inconsistent_lengths_are_refused() {
        let mut block = Vec::new();
        encode_cell(&mut block, b"row", b"fam", b"q", 1, b"v");
        // A row length larger than the key.
        let mut bad = block.clone();
        bad[12] = 0xff;
        assert!(CellReader::new(Bytes::from(bad)).next_cell().unwrap().is_err());
        // A family length larger than the key.
        let mut bad = block.clone();
        bad[4 + 4 + 4 + 2 + 3] = 0xff;
        assert!(CellReader::new(Bytes::from(bad)).next_cell().unwrap().is_err());
        // Arbitrary bytes never panic.
        for seed in 0u8..=255 {
            let junk: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(seed).wrapping_add(seed)).collect();
            let mut reader = CellReader::new(Bytes::from(junk));
            while let Some(cell) = reader.next_cell() {
                if let Ok(cell) = cell {
                    let _ =
                        (cell.row(), cell.family(), cell.qualifier(), cell.value(), cell.timestamp(), cell.cell_type());
                }
            }
        }
    }
}
