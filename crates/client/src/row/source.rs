//! The page behind a [`Row`](super::Row): what a transport's decoded reply offers the
//! row model, whatever the wire format.
//!
//! Each transport decodes a reply without copying keys or values and hands the core a
//! [`RowSource`] over it: the gateway's zero-copy Thrift page, the native transport's
//! results whose cells view the reply's cell block. Rows hold the source (one
//! reference count per row) and read their cells through it as [`PageCell`]s, slices
//! of the reply's bytes. The core names no transport type.

use bytes::Bytes;

use super::cell_type::CellType;

/// A decoded reply page: rows of cells, read in place.
///
/// Out-of-range indexes answer empty (`None`, an empty key, no cells): a row never
/// panics on what the server sent.
pub(crate) trait RowSource: Send + Sync {
    /// Number of rows.
    fn row_count(&self) -> usize;
    /// Row `row`'s key (empty if the server sent none) and the buffer it is a slice of.
    fn key(&self, row: usize) -> (&Bytes, &[u8]);
    /// Whether row `row` is a partial result (more cells of it follow).
    fn partial(&self, row: usize) -> bool;
    /// Whether row `row` came from a secondary replica.
    fn stale(&self, row: usize) -> bool;
    /// Number of cells of row `row`.
    fn cell_count(&self, row: usize) -> usize;
    /// Cell `cell` of row `row`.
    fn cell(&self, row: usize, cell: usize) -> Option<PageCell<'_>>;
}

/// One cell of a page, as its source hands it out: family, qualifier and value are
/// slices of `buf` (the reply's bytes, or the cell's part of them).
#[derive(Clone, Copy)]
pub(crate) struct PageCell<'a> {
    /// The bytes the slices below point into (for their [`Bytes`] forms).
    pub buf: &'a Bytes,
    pub family: &'a [u8],
    pub qualifier: &'a [u8],
    pub value: &'a [u8],
    pub timestamp: i64,
    pub cell_type: CellType,
}

/// `part` (a slice of `buf`) as a [`Bytes`] sharing `buf`'s memory. A slice that is not
/// inside `buf` (a source breaking its promise) is copied rather than trusted.
pub(crate) fn share(buf: &Bytes, part: &[u8]) -> Bytes {
    if part.is_empty() {
        return Bytes::new();
    }
    // The offset of `part` in `buf` is the distance between their start addresses;
    // the `get` below checks that it really is inside.
    let start = (part.as_ptr() as usize).wrapping_sub(buf.as_ptr() as usize);
    match start.checked_add(part.len()) {
        Some(end) if buf.get(start..end).is_some_and(|s| s.as_ptr() == part.as_ptr()) => buf.slice(start..end),
        _ => Bytes::copy_from_slice(part),
    }
}
