//! Cells: the owned [`Cell`] and the borrowed [`CellRef`] views a [`Row`](super::Row)
//! hands out through [`Cells`].

use std::fmt;

use bytes::Bytes;

use super::cell_type::CellType;
use super::source::{share, PageCell, RowSource};

/// One cell, owned: a value at (row, family, qualifier, timestamp). Used to build rows
/// by hand ([`Row::new`](super::Row::new)) and by [`CellRef::to_cell`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Cell {
    /// The column family.
    pub family: Bytes,
    /// The column qualifier (may be empty).
    pub qualifier: Bytes,
    /// The value.
    pub value: Bytes,
    /// The version's timestamp (ms since the epoch, unless the writer chose otherwise).
    pub timestamp: i64,
    /// A value ([`CellType::Put`]) or a delete marker (only raw scans return markers).
    pub cell_type: CellType,
}

impl Cell {
    /// A cell from its parts.
    pub fn new(family: impl Into<Bytes>, qualifier: impl Into<Bytes>, value: impl Into<Bytes>, timestamp: i64) -> Cell {
        Cell {
            family: family.into(),
            qualifier: qualifier.into(),
            value: value.into(),
            timestamp,
            cell_type: CellType::Put,
        }
    }

    /// This cell with another type (a delete marker of a raw scan).
    pub fn with_type(mut self, cell_type: CellType) -> Cell {
        self.cell_type = cell_type;
        self
    }
}

/// One cell of a [`Row`](super::Row), borrowed from it: family, qualifier and value are
/// slices of the reply (or of the row's owned cells). Copy it out with
/// [`CellRef::to_cell`].
///
/// This is the client's one cell view, whatever the row's origin (a gateway's reply
/// page, a native reply's cell block, a row built by hand, an increment's answer).
#[derive(Clone, Copy)]
pub struct CellRef<'a>(CellInner<'a>);

#[derive(Clone, Copy)]
enum CellInner<'a> {
    Page(PageCell<'a>),
    Owned(&'a Cell),
}

impl<'a> CellRef<'a> {
    /// The column family.
    pub fn family(&self) -> &'a [u8] {
        match self.0 {
            CellInner::Page(c) => c.family,
            CellInner::Owned(c) => &c.family,
        }
    }

    /// The column qualifier (may be empty).
    pub fn qualifier(&self) -> &'a [u8] {
        match self.0 {
            CellInner::Page(c) => c.qualifier,
            CellInner::Owned(c) => &c.qualifier,
        }
    }

    /// The value.
    pub fn value(&self) -> &'a [u8] {
        match self.0 {
            CellInner::Page(c) => c.value,
            CellInner::Owned(c) => &c.value,
        }
    }

    /// The version's timestamp (ms since the epoch, unless the writer chose otherwise;
    /// 0 if the server sent none).
    pub fn timestamp(&self) -> i64 {
        match self.0 {
            CellInner::Page(c) => c.timestamp,
            CellInner::Owned(c) => c.timestamp,
        }
    }

    /// A value or a delete marker (markers only in raw scans; a reply that names no
    /// type holds values).
    pub fn cell_type(&self) -> CellType {
        match self.0 {
            CellInner::Page(c) => c.cell_type,
            CellInner::Owned(c) => c.cell_type,
        }
    }

    /// The family as [`Bytes`] (a slice of the reply: no copy).
    pub fn family_bytes(&self) -> Bytes {
        match self.0 {
            CellInner::Page(c) => share(c.buf, c.family),
            CellInner::Owned(c) => c.family.clone(),
        }
    }

    /// The qualifier as [`Bytes`] (a slice of the reply: no copy).
    pub fn qualifier_bytes(&self) -> Bytes {
        match self.0 {
            CellInner::Page(c) => share(c.buf, c.qualifier),
            CellInner::Owned(c) => c.qualifier.clone(),
        }
    }

    /// The value as [`Bytes`] (a slice of the reply: no copy).
    pub fn value_bytes(&self) -> Bytes {
        match self.0 {
            CellInner::Page(c) => share(c.buf, c.value),
            CellInner::Owned(c) => c.value.clone(),
        }
    }

    /// The cell in owned form; its fields are [`Bytes`] slices of the same memory (no
    /// copy), so they keep the reply page alive.
    pub fn to_cell(&self) -> Cell {
        match self.0 {
            CellInner::Page(_) => Cell {
                family: self.family_bytes(),
                qualifier: self.qualifier_bytes(),
                value: self.value_bytes(),
                timestamp: self.timestamp(),
                cell_type: self.cell_type(),
            },
            CellInner::Owned(c) => c.clone(),
        }
    }
}

impl PartialEq for CellRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.timestamp() == other.timestamp()
            && self.family() == other.family()
            && self.qualifier() == other.qualifier()
            && self.value() == other.value()
            && self.cell_type() == other.cell_type()
    }
}

impl Eq for CellRef<'_> {}

impl PartialEq<Cell> for CellRef<'_> {
    fn eq(&self, other: &Cell) -> bool {
        self.timestamp() == other.timestamp
            && self.family() == other.family
            && self.qualifier() == other.qualifier
            && self.value() == other.value
            && self.cell_type() == other.cell_type
    }
}

impl fmt::Debug for CellRef<'_> {
    /// `family:qualifier@timestamp=value`, bytes escaped as in `b"..."` literals.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?}:{:?}@{}={:?}",
            ShowBytes(self.family()),
            ShowBytes(self.qualifier()),
            self.timestamp(),
            ShowBytes(self.value())
        )?;
        match self.cell_type() {
            CellType::Put => Ok(()),
            marker => write!(f, " ({marker:?})"),
        }
    }
}

/// The cells of a [`Row`](super::Row) (see [`Row::cells`](super::Row::cells)).
#[derive(Clone)]
pub struct Cells<'a>(CellsInner<'a>);

#[derive(Clone)]
enum CellsInner<'a> {
    /// Cells `next..end` of row `row` of a page.
    Page {
        page: &'a dyn RowSource,
        row: usize,
        next: usize,
        end: usize,
    },
    Owned(std::slice::Iter<'a, Cell>),
}

impl<'a> Cells<'a> {
    /// The cells of row `row` of `page`.
    pub(super) fn of_page(page: &'a dyn RowSource, row: usize) -> Cells<'a> {
        Cells(CellsInner::Page { page, row, next: 0, end: page.cell_count(row) })
    }

    /// Owned cells.
    pub(super) fn of_owned(cells: &'a [Cell]) -> Cells<'a> {
        Cells(CellsInner::Owned(cells.iter()))
    }
}

impl<'a> Iterator for Cells<'a> {
    type Item = CellRef<'a>;

    #[inline]
    fn next(&mut self) -> Option<CellRef<'a>> {
        match &mut self.0 {
            CellsInner::Page { page, row, next, end } => {
                if *next >= *end {
                    return None;
                }
                let cell = page.cell(*row, *next);
                *next += 1;
                // A cell the source cannot read ends the row (never a panic).
                match cell {
                    Some(c) => Some(CellRef(CellInner::Page(c))),
                    None => {
                        *next = *end;
                        None
                    }
                }
            }
            CellsInner::Owned(cells) => cells.next().map(|c| CellRef(CellInner::Owned(c))),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            CellsInner::Page { next, end, .. } => {
                let n = end.saturating_sub(*next);
                (n, Some(n))
            }
            CellsInner::Owned(cells) => cells.size_hint(),
        }
    }
}

impl ExactSizeIterator for Cells<'_> {}

impl fmt::Debug for Cells<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.clone()).finish()
    }
}

/// Bytes printed as the inside of a `b"..."` literal.
pub(super) struct ShowBytes<'a>(pub(super) &'a [u8]);

impl fmt::Debug for ShowBytes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"")?;
        for &b in self.0 {
            write!(f, "{}", std::ascii::escape_default(b))?;
        }
        f.write_str("\"")
    }
}
