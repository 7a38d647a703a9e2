//! Rows decoded without copying: views into the received reply.
//!
//! A [`RowBatch`] owns one reply's bytes (a [`Bytes`]) and a compact index of its rows
//! and cells (24 bytes per cell, 12 per row, two allocations per reply whatever its
//! size). [`RowRef`] and [`CellRef`] borrow from it and hand out keys, families,
//! qualifiers and values as `&[u8]`, or as [`Bytes`] slices of the reply (no copy).
//! [`RowData`] and [`CellData`] are the owned form, for callers that keep rows
//! independently of their batch.

use bytes::Bytes;

use crate::wire::{binary_at, i64_at};
use crate::Protocol;

/// Marks an absent optional position in the index.
pub(crate) const NONE: u32 = u32::MAX;

/// One row in the index: positions are those of length prefixes in the reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RowEntry {
    /// Position of the row key's length prefix, or [`NONE`].
    pub key: u32,
    /// Index of the row's first cell in the batch's cell index.
    pub first_cell: u32,
    /// Bit 0: stale; bit 1: partial.
    pub flags: u8,
}

pub(crate) const STALE: u8 = 1;
pub(crate) const PARTIAL: u8 = 2;

/// One cell in the index: positions of the length prefixes of its byte fields and of
/// its timestamp's encoding in the reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CellEntry {
    pub family: u32,
    pub qualifier: u32,
    pub value: u32,
    /// Position of the timestamp's encoding, or [`NONE`].
    pub timestamp: u32,
    /// Position of the tags' length prefix, or [`NONE`].
    pub tags: u32,
    /// The cell type byte (the low 8 bits) when bit 8 is set.
    pub cell_type: u16,
}

pub(crate) const HAS_TYPE: u16 = 0x100;

/// The rows of one reply (`getMultiple`, `getScannerRows`, `getScannerResults`, or the
/// single row of `get`), decoded without copying any key or value.
///
/// Memory: the reply's bytes plus 24 bytes per cell and 12 per row. Every slice
/// handed out keeps the whole reply alive; copy what you keep long-term.
///
/// ```
/// use basalt_thrift_protocol::{decode_row_reply, Protocol};
/// use bytes::Bytes;
/// // A compact-protocol getScannerRows reply holding one row with one cell.
/// let mut reply = vec![0x82, 0x41, 0x01, 14];
/// reply.extend_from_slice(b"getScannerRows");
/// reply.extend_from_slice(&[0x09, 0x00, 0x1c]); // success: a list of 1 struct
/// reply.extend_from_slice(&[0x18, 3, b'r', b'o', b'w']); // row
/// reply.extend_from_slice(&[0x19, 0x1c]); // columnValues: a list of 1 struct
/// reply.extend_from_slice(&[0x18, 1, b'd', 0x18, 1, b'q', 0x18, 2, b'h', b'i', 0x16, 10, 0]);
/// reply.extend_from_slice(&[0, 0]); // end of the row, end of the result
/// let batch = decode_row_reply(Protocol::Compact, "getScannerRows", 1, Bytes::from(reply))?;
/// let row = batch.row(0).unwrap();
/// assert_eq!(row.key(), b"row");
/// let cell = row.cells().next().unwrap();
/// assert_eq!((cell.family(), cell.qualifier(), cell.value()), (&b"d"[..], &b"q"[..], &b"hi"[..]));
/// assert_eq!(cell.timestamp(), Some(5));
/// let owned = batch.to_rows(); // `RowData`s whose `Bytes` share the reply
/// assert_eq!(owned[0].cells[0].value, Bytes::from_static(b"hi"));
/// # Ok::<(), basalt_thrift_protocol::ReplyError>(())
/// ```
#[derive(Debug, Clone)]
pub struct RowBatch {
    pub(crate) buf: Bytes,
    pub(crate) protocol: Protocol,
    pub(crate) rows: Vec<RowEntry>,
    pub(crate) cells: Vec<CellEntry>,
}

impl RowBatch {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the batch holds no row (a scanner that is exhausted).
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Total number of cells over all rows.
    pub fn cell_count(&self) -> usize {
        self.cells.len()
    }

    /// The `index`-th row, in the server's order.
    pub fn row(&self, index: usize) -> Option<RowRef<'_>> {
        (index < self.rows.len()).then_some(RowRef { batch: self, index })
    }

    /// The rows, in the server's order.
    pub fn iter(&self) -> Rows<'_> {
        Rows { batch: self, next: 0, end: self.rows.len() }
    }

    /// The last row, if any (where a scan resumes after this batch).
    pub fn last(&self) -> Option<RowRef<'_>> {
        self.rows.len().checked_sub(1).and_then(|i| self.row(i))
    }

    /// The reply's bytes that every slice handed out points into.
    pub fn reply_bytes(&self) -> &Bytes {
        &self.buf
    }

    /// Every row in owned form (each field a `Bytes` slice of the reply; no copy).
    pub fn to_rows(&self) -> Vec<RowData> {
        self.iter().map(|r| r.to_row_data()).collect()
    }

    fn span(&self, prefix: u32) -> &[u8] {
        if prefix == NONE {
            return &[];
        }
        let (start, len) = binary_at(self.protocol, &self.buf, prefix as usize);
        self.buf.get(start..start + len).unwrap_or_default()
    }

    fn span_bytes(&self, prefix: u32) -> Bytes {
        if prefix == NONE {
            return Bytes::new();
        }
        let (start, len) = binary_at(self.protocol, &self.buf, prefix as usize);
        if start + len > self.buf.len() {
            return Bytes::new();
        }
        self.buf.slice(start..start + len)
    }

    fn cell_range(&self, index: usize) -> std::ops::Range<usize> {
        let start = self.rows.get(index).map_or(0, |r| r.first_cell as usize);
        let end = self.rows.get(index + 1).map_or(self.cells.len(), |r| r.first_cell as usize);
        start.min(end)..end
    }
}

impl<'a> IntoIterator for &'a RowBatch {
    type Item = RowRef<'a>;
    type IntoIter = Rows<'a>;
    fn into_iter(self) -> Rows<'a> {
        self.iter()
    }
}

/// Iterator over the rows of a [`RowBatch`].
#[derive(Debug, Clone)]
pub struct Rows<'a> {
    batch: &'a RowBatch,
    next: usize,
    end: usize,
}

impl<'a> Iterator for Rows<'a> {
    type Item = RowRef<'a>;
    fn next(&mut self) -> Option<RowRef<'a>> {
        if self.next >= self.end {
            return None;
        }
        self.next += 1;
        Some(RowRef { batch: self.batch, index: self.next - 1 })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end - self.next;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Rows<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        self.end -= 1;
        Some(RowRef { batch: self.batch, index: self.end })
    }
}

impl ExactSizeIterator for Rows<'_> {}

/// One row of a [`RowBatch`].
#[derive(Debug, Clone, Copy)]
pub struct RowRef<'a> {
    batch: &'a RowBatch,
    index: usize,
}

impl<'a> RowRef<'a> {
    fn entry(&self) -> RowEntry {
        self.batch.rows.get(self.index).copied().unwrap_or(RowEntry { key: NONE, first_cell: 0, flags: 0 })
    }

    /// The row key (empty when the server sent none, as for a `get` of a missing row).
    pub fn key(&self) -> &'a [u8] {
        self.batch.span(self.entry().key)
    }

    /// The row key as a slice of the reply (no copy).
    pub fn key_bytes(&self) -> Bytes {
        self.batch.span_bytes(self.entry().key)
    }

    /// Whether the server sent a row key at all.
    pub fn has_key(&self) -> bool {
        self.entry().key != NONE
    }

    /// Set when a scan with a batch size returned only part of the row's cells.
    pub fn partial(&self) -> bool {
        self.entry().flags & PARTIAL != 0
    }

    /// Set when the row was read from a region replica that may be behind.
    pub fn stale(&self) -> bool {
        self.entry().flags & STALE != 0
    }

    /// Number of cells.
    pub fn cell_count(&self) -> usize {
        self.batch.cell_range(self.index).len()
    }

    /// Whether the row has no cells (a `get` of a missing row).
    pub fn is_empty(&self) -> bool {
        self.cell_count() == 0
    }

    /// The cells, in the server's order (family, qualifier, newest version first).
    pub fn cells(&self) -> Cells<'a> {
        let range = self.batch.cell_range(self.index);
        Cells { batch: self.batch, next: range.start, end: range.end }
    }

    /// Cell `index` of the row (in the server's order), without walking the ones
    /// before it.
    pub fn cell(&self, index: usize) -> Option<CellRef<'a>> {
        let range = self.batch.cell_range(self.index);
        let at = range.start.checked_add(index).filter(|at| *at < range.end)?;
        let entry = *self.batch.cells.get(at)?;
        Some(CellRef { batch: self.batch, entry })
    }

    /// The row in owned form (fields are `Bytes` slices of the reply; no copy).
    pub fn to_row_data(&self) -> RowData {
        RowData {
            row: self.key_bytes(),
            cells: self.cells().map(|c| c.to_cell_data()).collect(),
            partial: self.partial(),
            stale: self.stale(),
        }
    }
}

/// Iterator over the cells of one row.
#[derive(Debug, Clone)]
pub struct Cells<'a> {
    batch: &'a RowBatch,
    next: usize,
    end: usize,
}

impl<'a> Iterator for Cells<'a> {
    type Item = CellRef<'a>;
    fn next(&mut self) -> Option<CellRef<'a>> {
        if self.next >= self.end {
            return None;
        }
        let entry = *self.batch.cells.get(self.next)?;
        self.next += 1;
        Some(CellRef { batch: self.batch, entry })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end.saturating_sub(self.next);
        (n, Some(n))
    }
}

impl ExactSizeIterator for Cells<'_> {}

/// One cell of a [`RowRef`].
#[derive(Debug, Clone, Copy)]
pub struct CellRef<'a> {
    batch: &'a RowBatch,
    entry: CellEntry,
}

impl<'a> CellRef<'a> {
    /// The column family.
    pub fn family(&self) -> &'a [u8] {
        self.batch.span(self.entry.family)
    }
    /// The column family as a slice of the reply.
    pub fn family_bytes(&self) -> Bytes {
        self.batch.span_bytes(self.entry.family)
    }
    /// The qualifier (may be empty).
    pub fn qualifier(&self) -> &'a [u8] {
        self.batch.span(self.entry.qualifier)
    }
    /// The qualifier as a slice of the reply.
    pub fn qualifier_bytes(&self) -> Bytes {
        self.batch.span_bytes(self.entry.qualifier)
    }
    /// The value.
    pub fn value(&self) -> &'a [u8] {
        self.batch.span(self.entry.value)
    }
    /// The value as a slice of the reply.
    pub fn value_bytes(&self) -> Bytes {
        self.batch.span_bytes(self.entry.value)
    }
    /// The timestamp, when the server sent one (HBase always does).
    pub fn timestamp(&self) -> Option<i64> {
        (self.entry.timestamp != NONE)
            .then(|| i64_at(self.batch.protocol, &self.batch.buf, self.entry.timestamp as usize))
    }
    /// The cell's tags, when the server sent them.
    pub fn tags(&self) -> Option<&'a [u8]> {
        (self.entry.tags != NONE).then(|| self.batch.span(self.entry.tags))
    }
    /// The tags as a slice of the reply.
    pub fn tags_bytes(&self) -> Option<Bytes> {
        (self.entry.tags != NONE).then(|| self.batch.span_bytes(self.entry.tags))
    }
    /// HBase's cell type byte (4 = Put, ...), when the server sent it.
    pub fn cell_type(&self) -> Option<i8> {
        (self.entry.cell_type & HAS_TYPE != 0).then_some(self.entry.cell_type as u8 as i8)
    }
    /// The cell in owned form (fields are `Bytes` slices of the reply; no copy).
    pub fn to_cell_data(&self) -> CellData {
        CellData {
            family: self.family_bytes(),
            qualifier: self.qualifier_bytes(),
            value: self.value_bytes(),
            timestamp: self.timestamp(),
            tags: self.tags_bytes(),
            cell_type: self.cell_type(),
        }
    }
}

/// One row, owned: its key and cells as `Bytes` that share the reply's buffer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowData {
    /// The row key (empty when the server sent none).
    pub row: Bytes,
    /// The cells, in the server's order.
    pub cells: Vec<CellData>,
    /// Only part of the row's cells (scans with a batch size).
    pub partial: bool,
    /// Read from a region replica that may be behind.
    pub stale: bool,
}

/// One cell, owned: fields are `Bytes` that share the reply's buffer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CellData {
    /// The column family.
    pub family: Bytes,
    /// The qualifier (may be empty).
    pub qualifier: Bytes,
    /// The value.
    pub value: Bytes,
    /// The timestamp, when sent.
    pub timestamp: Option<i64>,
    /// The tags, when sent.
    pub tags: Option<Bytes>,
    /// HBase's cell type byte, when sent.
    pub cell_type: Option<i8>,
}
