//! Rows and cells as they come back from HBase.
//!
//! A [`Row`] delivered by a get or a scan is a view of the reply page it arrived in,
//! whichever transport brought it: it holds the page (an `Arc` of the transport's
//! decoded reply, seen through the crate-private [`RowSource`]: the gateway's zero-copy
//! Thrift page, or the native reply's results whose cells view its cell block) and the
//! row's position in it, so delivering a row costs one reference count and no
//! allocation or copy per cell. Cells are read lazily through [`Row::cells`] as
//! [`CellRef`] views whose fields are `&[u8]` slices of the reply (or [`Bytes`] slices
//! of it, through the `*_bytes` methods).
//!
//! Rows built by hand ([`Row::new`]) and rows of the calls that return generated
//! Thrift types (increment, append) hold their cells as owned [`Cell`]s; both kinds
//! behave the same.
//!
//! Holding any row of a page keeps the whole page in memory; [`Row::detach`] copies a
//! row out of its page for keeping long-term.
//!
//! Files: `row/cell.rs` (the owned cell, the borrowed views), `row/cell_type.rs`,
//! `row/source.rs` (the page abstraction the transports fill), this file (the row).

mod cell;
mod cell_type;
mod prefetch;
mod source;
#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};

use cell::ShowBytes;
pub use cell::{Cell, CellRef, Cells};
pub use cell_type::CellType;
pub(crate) use source::{PageCell, RowSource};

/// A row: its key and the cells returned for it, in HBase's order (family, qualifier,
/// newest version first).
///
/// Cheap to clone (one reference count), `Send + Sync + 'static`. A row of a get or a
/// scan shares the reply page it came in (see [`Row::detach`]).
///
/// ```
/// use basalt::{Cell, Row};
/// let row = Row::new("r1", [Cell::new("d", "name", "ada", 2), Cell::new("d", "name", "eve", 1)]);
/// assert_eq!(row.key(), b"r1");
/// assert_eq!(row.value(b"d", b"name"), Some(&b"ada"[..]));
/// for cell in row.cells() {
///     assert_eq!((cell.family(), cell.qualifier()), (&b"d"[..], &b"name"[..]));
/// }
/// assert_eq!(row.versions(b"d", b"name").len(), 2);
/// ```
#[derive(Clone)]
pub struct Row {
    repr: Repr,
}

#[derive(Clone)]
enum Repr {
    /// Row `index` of a reply page (its flags as the page gave them, or as changed by
    /// [`Row::with_partial`] and [`Row::with_stale`]).
    Page { page: Arc<dyn RowSource>, index: u32, partial: bool, stale: bool },
    /// A row built by hand or from generated Thrift types.
    Owned(Arc<OwnedRow>),
}

#[derive(Clone, Default)]
struct OwnedRow {
    key: Bytes,
    cells: Vec<Cell>,
    partial: bool,
    stale: bool,
}

impl Row {
    /// A row built by hand (tests, rows assembled by the caller).
    pub fn new(key: impl Into<Bytes>, cells: impl IntoIterator<Item = Cell>) -> Row {
        Row::owned(OwnedRow { key: key.into(), cells: cells.into_iter().collect(), partial: false, stale: false })
    }

    /// This row, marked as answered by a secondary replica or not (see
    /// [`Row::is_stale`]).
    pub fn with_stale(mut self, stale: bool) -> Row {
        if self.is_stale() == stale {
            return self;
        }
        match &mut self.repr {
            Repr::Page { stale: flag, .. } => *flag = stale,
            Repr::Owned(row) => Arc::make_mut(row).stale = stale,
        }
        self
    }

    /// This row, marked as partial or not (see [`Row::is_partial`]).
    pub fn with_partial(mut self, partial: bool) -> Row {
        if self.is_partial() == partial {
            return self;
        }
        match &mut self.repr {
            Repr::Page { partial: flag, .. } => *flag = partial,
            Repr::Owned(row) => Arc::make_mut(row).partial = partial,
        }
        self
    }

    fn owned(row: OwnedRow) -> Row {
        Row { repr: Repr::Owned(Arc::new(row)) }
    }

    /// Row `index` of a reply page (no copy; one reference count on the page). An
    /// index beyond the page gives an empty row.
    pub(crate) fn from_page(page: &Arc<dyn RowSource>, index: usize) -> Row {
        let Ok(i) = u32::try_from(index) else { return Row::default() };
        if index >= page.row_count() {
            return Row::default();
        }
        Row {
            repr: Repr::Page {
                page: Arc::clone(page),
                index: i,
                partial: page.partial(index),
                stale: page.stale(index),
            },
        }
    }

    /// The rows of a reply page, in the server's order: each shares the page (no copy,
    /// no allocation per row or cell).
    pub(crate) fn of_page(page: Arc<dyn RowSource>) -> impl ExactSizeIterator<Item = Row> {
        (0..page.row_count()).map(move |i| Row::from_page(&page, i))
    }

    /// A row of owned cells, with its flags (a transport's conversion of a generated
    /// type).
    pub(crate) fn from_parts(key: Bytes, cells: Vec<Cell>, partial: bool, stale: bool) -> Row {
        Row::owned(OwnedRow { key, cells, partial, stale })
    }

    /// This row, with `key` as its key when the server sent none (a get of a missing
    /// row answers an empty result).
    pub(crate) fn or_key(self, key: &Bytes) -> Row {
        if !self.key().is_empty() {
            return self;
        }
        let mut owned = self.to_owned_row();
        owned.key = key.clone();
        Row::owned(owned)
    }

    /// The row key.
    pub fn key(&self) -> &[u8] {
        match &self.repr {
            Repr::Page { page, index, .. } => page.key(*index as usize).1,
            Repr::Owned(row) => &row.key,
        }
    }

    /// Asks the processor to start loading the row's key into its cache (a hint:
    /// nothing else happens): a page's check calls it a few rows ahead, a merged
    /// scan's bucket for the row after the one it hands out.
    #[inline]
    pub(crate) fn prefetch_key(&self) {
        if let Repr::Page { page, index, .. } = &self.repr {
            prefetch::cache_line(page.key(*index as usize).1.as_ptr());
        }
    }

    /// The row key as [`Bytes`] (a slice of the reply: no copy).
    pub fn key_bytes(&self) -> Bytes {
        match &self.repr {
            Repr::Page { page, index, .. } => {
                let (buf, key) = page.key(*index as usize);
                source::share(buf, key)
            }
            Repr::Owned(row) => row.key.clone(),
        }
    }

    /// Set when a scan with a batch size returned only part of the row's cells; the
    /// rest follows in the next item(s) with the same key.
    pub fn is_partial(&self) -> bool {
        match &self.repr {
            Repr::Page { partial, .. } => *partial,
            Repr::Owned(row) => row.partial,
        }
    }

    /// Whether a secondary replica answered: the row may miss the latest writes. Only
    /// a read with [`Consistency::Timeline`](crate::Consistency::Timeline) can be
    /// stale; a strong read never is.
    pub fn is_stale(&self) -> bool {
        match &self.repr {
            Repr::Page { stale, .. } => *stale,
            Repr::Owned(row) => row.stale,
        }
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.cells().len()
    }

    /// Whether the row has no cells (a get of a missing row gives an empty row).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cells, in HBase's order (family, qualifier, newest version first).
    pub fn cells(&self) -> Cells<'_> {
        match &self.repr {
            Repr::Page { page, index, .. } => Cells::of_page(page.as_ref(), *index as usize),
            Repr::Owned(row) => Cells::of_owned(&row.cells),
        }
    }

    /// The newest value of `family:qualifier`, if present.
    pub fn value(&self, family: &[u8], qualifier: &[u8]) -> Option<&[u8]> {
        self.cell(family, qualifier).map(|c| c.value())
    }

    /// [`Row::value`] as [`Bytes`] (a slice of the reply: no copy).
    pub fn value_bytes(&self, family: &[u8], qualifier: &[u8]) -> Option<Bytes> {
        self.cell(family, qualifier).map(|c| c.value_bytes())
    }

    /// The newest cell of `family:qualifier`, if present.
    pub fn cell(&self, family: &[u8], qualifier: &[u8]) -> Option<CellRef<'_>> {
        self.cells().filter(|c| c.family() == family && c.qualifier() == qualifier).max_by_key(CellRef::timestamp)
    }

    /// Every version of `family:qualifier`, newest first.
    pub fn versions(&self, family: &[u8], qualifier: &[u8]) -> Vec<CellRef<'_>> {
        let mut cells: Vec<CellRef<'_>> =
            self.cells().filter(|c| c.family() == family && c.qualifier() == qualifier).collect();
        cells.sort_by_key(|c| std::cmp::Reverse(c.timestamp()));
        cells
    }

    /// The cells of one family.
    pub fn family<'a>(&'a self, family: &'a [u8]) -> impl Iterator<Item = CellRef<'a>> + 'a {
        self.cells().filter(move |c| c.family() == family)
    }

    /// The newest value of `family:qualifier` as a big-endian `i64` (HBase counters).
    pub fn counter(&self, family: &[u8], qualifier: &[u8]) -> Option<i64> {
        let bytes: [u8; 8] = self.value(family, qualifier)?.try_into().ok()?;
        Some(i64::from_be_bytes(bytes))
    }

    /// A copy of this row that no longer holds its reply page: key and cells are
    /// copied into one buffer of their own. Use it for rows kept long after their page.
    pub fn detach(&self) -> Row {
        let size = self.key().len()
            + self.cells().map(|c| c.family().len() + c.qualifier().len() + c.value().len()).sum::<usize>();
        let mut buf = BytesMut::with_capacity(size);
        buf.extend_from_slice(self.key());
        for c in self.cells() {
            buf.extend_from_slice(c.family());
            buf.extend_from_slice(c.qualifier());
            buf.extend_from_slice(c.value());
        }
        let mut buf = buf.freeze();
        let mut take = |n: usize| buf.split_to(n);
        let key = take(self.key().len());
        let cells = self
            .cells()
            .map(|c| Cell {
                family: take(c.family().len()),
                qualifier: take(c.qualifier().len()),
                value: take(c.value().len()),
                timestamp: c.timestamp(),
                cell_type: c.cell_type(),
            })
            .collect();
        Row::owned(OwnedRow { key, cells, partial: self.is_partial(), stale: self.is_stale() })
    }

    /// The row in owned form (fields are slices of the same memory: no copy).
    fn to_owned_row(&self) -> OwnedRow {
        match &self.repr {
            Repr::Owned(row) => OwnedRow::clone(row),
            Repr::Page { .. } => OwnedRow {
                key: self.key_bytes(),
                cells: self.cells().map(|c| c.to_cell()).collect(),
                partial: self.is_partial(),
                stale: self.is_stale(),
            },
        }
    }
}

impl Default for Row {
    /// An empty row: no key, no cells.
    fn default() -> Row {
        Row::owned(OwnedRow::default())
    }
}

impl PartialEq for Row {
    /// Rows are equal when their keys, partial flags and cells are (however they are
    /// held); whether a replica's answer was stale is not compared.
    fn eq(&self, other: &Row) -> bool {
        self.key() == other.key()
            && self.is_partial() == other.is_partial()
            && self.len() == other.len()
            && self.cells().zip(other.cells()).all(|(a, b)| a == b)
    }
}

impl Eq for Row {}

impl fmt::Debug for Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut row = f.debug_struct("Row");
        row.field("key", &ShowBytes(self.key())).field("cells", &ShowCells(self)).field("partial", &self.is_partial());
        if self.is_stale() {
            row.field("stale", &true);
        }
        row.finish()
    }
}

impl<'a> IntoIterator for &'a Row {
    type Item = CellRef<'a>;
    type IntoIter = Cells<'a>;
    fn into_iter(self) -> Cells<'a> {
        self.cells()
    }
}

struct ShowCells<'a>(&'a Row);

impl fmt::Debug for ShowCells<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.cells()).finish()
    }
}
