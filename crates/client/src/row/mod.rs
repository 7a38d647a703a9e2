//! Rows and cells as they come back from HBase.
//!
//! A [`Row`] delivered by a get or a scan is a view of the reply page it arrived in:
//! it holds the page (an `Arc` of the zero-copy [`RowBatch`]: the reply's bytes plus a
//! compact index) and the row's position in it, so delivering a row costs one
//! reference count and no allocation or copy per cell. Cells are read lazily through
//! [`Row::cells`] as [`CellRef`] views whose fields are `&[u8]` slices of the reply (or
//! [`Bytes`] slices of it, through the `*_bytes` methods).
//!
//! Rows built by hand ([`Row::new`]) and rows of the calls that return generated
//! Thrift types (increment, append) hold their cells as owned [`Cell`]s; both kinds
//! behave the same.
//!
//! Holding any row of a page keeps the whole page in memory; [`Row::detach`] copies a
//! row out of its page for keeping long-term.

use std::fmt;
use std::sync::Arc;

use basalt_thrift::hbase::{TColumnValue, TResult};
use basalt_thrift::RowBatch;
use bytes::{Bytes, BytesMut};

/// One cell, owned: a value at (row, family, qualifier, timestamp). Used to build rows
/// by hand ([`Row::new`]) and by [`CellRef::to_cell`].
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

/// What a cell is: a value, or one of HBase's delete markers. Reads return only values;
/// a raw scan ([`Scan::raw`](crate::Scan::raw)) also returns the markers, as HBase's
/// Java client shows them (`Cell.getType()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum CellType {
    /// A value (type byte 4).
    #[default]
    Put,
    /// Deletes one version of a column (Java's `Delete.addColumn`; type byte 8).
    Delete,
    /// Deletes a column's versions up to its timestamp (`addColumns`; type byte 12).
    DeleteColumn,
    /// Deletes a family's columns up to its timestamp (`addFamily`; type byte 14).
    DeleteFamily,
    /// Deletes one version of every column of a family (`addFamilyVersion`; type byte 10).
    DeleteFamilyVersion,
    /// A type byte HBase does not store in cells, as the server sent it.
    Unknown(u8),
}

impl CellType {
    /// The type of HBase's type byte.
    pub fn from_code(code: u8) -> CellType {
        match code {
            4 => CellType::Put,
            8 => CellType::Delete,
            10 => CellType::DeleteFamilyVersion,
            12 => CellType::DeleteColumn,
            14 => CellType::DeleteFamily,
            other => CellType::Unknown(other),
        }
    }

    /// HBase's type byte.
    pub fn code(self) -> u8 {
        match self {
            CellType::Put => 4,
            CellType::Delete => 8,
            CellType::DeleteFamilyVersion => 10,
            CellType::DeleteColumn => 12,
            CellType::DeleteFamily => 14,
            CellType::Unknown(code) => code,
        }
    }

    /// Whether the cell is a delete marker.
    pub fn is_delete(self) -> bool {
        match self {
            CellType::Delete | CellType::DeleteColumn | CellType::DeleteFamily | CellType::DeleteFamilyVersion => true,
            CellType::Put | CellType::Unknown(_) => false,
        }
    }
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

    fn from_thrift(c: TColumnValue) -> Cell {
        Cell {
            family: Bytes::from(c.family),
            qualifier: Bytes::from(c.qualifier),
            value: Bytes::from(c.value),
            timestamp: c.timestamp.unwrap_or(0),
            cell_type: c.type_.map_or(CellType::Put, |t| CellType::from_code(t as u8)),
        }
    }
}

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
    /// Row `index` of a reply page; its key is `page.reply_bytes()[key_start..][..key_len]`.
    Page { page: Arc<RowBatch>, index: u32, key_start: u32, key_len: u32, partial: bool, stale: bool },
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
    /// [`Row::is_stale`]); a row of a page whose flag changes becomes an owned row
    /// (its fields still share the page).
    pub fn with_stale(self, stale: bool) -> Row {
        if self.is_stale() == stale {
            return self;
        }
        let mut owned = self.to_owned_row();
        owned.stale = stale;
        Row::owned(owned)
    }

    /// This row, marked as partial or not (see [`Row::is_partial`]); a row of a page
    /// whose flag changes becomes an owned row (its fields still share the page).
    pub fn with_partial(self, partial: bool) -> Row {
        if self.is_partial() == partial {
            return self;
        }
        let mut owned = self.to_owned_row();
        owned.partial = partial;
        Row::owned(owned)
    }

    fn owned(row: OwnedRow) -> Row {
        Row { repr: Repr::Owned(Arc::new(row)) }
    }

    /// Row `index` of a reply page (no copy; one reference count on the page).
    pub(crate) fn from_page(page: &Arc<RowBatch>, index: usize) -> Row {
        let Some(row) = page.row(index) else { return Row::default() };
        let (key_start, key_len) = key_position(page.reply_bytes(), row.key());
        Row {
            repr: Repr::Page {
                page: Arc::clone(page),
                index: u32::try_from(index).unwrap_or(u32::MAX),
                key_start,
                key_len,
                partial: row.partial(),
                stale: row.stale(),
            },
        }
    }

    /// The rows of a zero-copy reply page (see [`basalt_thrift::RowBatch`]), in the
    /// server's order: each shares the page (no copy, no allocation per cell).
    pub(crate) fn from_batch(page: RowBatch) -> impl ExactSizeIterator<Item = Row> {
        let page = Arc::new(page);
        (0..page.len()).map(move |i| Row::from_page(&page, i))
    }

    pub(crate) fn from_thrift(r: TResult) -> Row {
        Row::owned(OwnedRow {
            key: Bytes::from(r.row.unwrap_or_default()),
            cells: r.column_values.into_iter().map(Cell::from_thrift).collect(),
            partial: r.partial.unwrap_or(false),
            stale: r.stale.unwrap_or(false),
        })
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
            Repr::Page { page, key_start, key_len, .. } => {
                let start = *key_start as usize;
                page.reply_bytes().get(start..start + *key_len as usize).unwrap_or_default()
            }
            Repr::Owned(row) => &row.key,
        }
    }

    /// The row key as [`Bytes`] (a slice of the reply: no copy).
    pub fn key_bytes(&self) -> Bytes {
        match &self.repr {
            Repr::Page { page, key_start, key_len, .. } => {
                let start = *key_start as usize;
                let buf = page.reply_bytes();
                match buf.get(start..start + *key_len as usize) {
                    Some(_) => buf.slice(start..start + *key_len as usize),
                    None => Bytes::new(),
                }
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
            Repr::Page { page, index, .. } => match page.row(*index as usize) {
                Some(row) => Cells(CellsInner::Page(row.cells())),
                None => Cells(CellsInner::Owned([].iter())),
            },
            Repr::Owned(row) => Cells(CellsInner::Owned(row.cells.iter())),
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

/// Where `key` (a slice of `buf`, or empty) lies in `buf`.
fn key_position(buf: &Bytes, key: &[u8]) -> (u32, u32) {
    if key.is_empty() {
        return (0, 0);
    }
    // `key` is a subslice of `buf` (the decoder hands out slices of the reply); its
    // offset is the distance between the two start addresses.
    let start = (key.as_ptr() as usize).wrapping_sub(buf.as_ptr() as usize);
    match (u32::try_from(start), u32::try_from(key.len())) {
        (Ok(s), Ok(n)) if buf.get(start..start + key.len()).is_some_and(|k| k.as_ptr() == key.as_ptr()) => (s, n),
        _ => (0, 0),
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

/// One cell of a [`Row`], borrowed from it: family, qualifier and value are slices of
/// the reply (or of the row's owned cells). Copy it out with [`CellRef::to_cell`].
///
/// This is the client's one cell view, whatever the row's origin (a reply page, a row
/// built by hand, an increment's answer). It wraps the wire-level
/// `basalt_thrift::CellRef` of a decoded page, which is not part of this crate's API.
#[derive(Clone, Copy)]
pub struct CellRef<'a>(CellInner<'a>);

#[derive(Clone, Copy)]
enum CellInner<'a> {
    Page(basalt_thrift::CellRef<'a>),
    Owned(&'a Cell),
}

impl<'a> CellRef<'a> {
    /// The column family.
    pub fn family(&self) -> &'a [u8] {
        match self.0 {
            CellInner::Page(c) => c.family(),
            CellInner::Owned(c) => &c.family,
        }
    }

    /// The column qualifier (may be empty).
    pub fn qualifier(&self) -> &'a [u8] {
        match self.0 {
            CellInner::Page(c) => c.qualifier(),
            CellInner::Owned(c) => &c.qualifier,
        }
    }

    /// The value.
    pub fn value(&self) -> &'a [u8] {
        match self.0 {
            CellInner::Page(c) => c.value(),
            CellInner::Owned(c) => &c.value,
        }
    }

    /// The version's timestamp (ms since the epoch, unless the writer chose otherwise;
    /// 0 if the server sent none).
    pub fn timestamp(&self) -> i64 {
        match self.0 {
            CellInner::Page(c) => c.timestamp().unwrap_or(0),
            CellInner::Owned(c) => c.timestamp,
        }
    }

    /// A value or a delete marker (markers only in raw scans; a reply that names no
    /// type holds values).
    pub fn cell_type(&self) -> CellType {
        match self.0 {
            CellInner::Page(c) => c.cell_type().map_or(CellType::Put, |t| CellType::from_code(t as u8)),
            CellInner::Owned(c) => c.cell_type,
        }
    }

    /// The family as [`Bytes`] (a slice of the reply: no copy).
    pub fn family_bytes(&self) -> Bytes {
        match self.0 {
            CellInner::Page(c) => c.family_bytes(),
            CellInner::Owned(c) => c.family.clone(),
        }
    }

    /// The qualifier as [`Bytes`] (a slice of the reply: no copy).
    pub fn qualifier_bytes(&self) -> Bytes {
        match self.0 {
            CellInner::Page(c) => c.qualifier_bytes(),
            CellInner::Owned(c) => c.qualifier.clone(),
        }
    }

    /// The value as [`Bytes`] (a slice of the reply: no copy).
    pub fn value_bytes(&self) -> Bytes {
        match self.0 {
            CellInner::Page(c) => c.value_bytes(),
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

/// The cells of a [`Row`] (see [`Row::cells`]).
#[derive(Clone)]
pub struct Cells<'a>(CellsInner<'a>);

#[derive(Clone)]
enum CellsInner<'a> {
    Page(basalt_thrift::Cells<'a>),
    Owned(std::slice::Iter<'a, Cell>),
}

impl<'a> Iterator for Cells<'a> {
    type Item = CellRef<'a>;

    #[inline]
    fn next(&mut self) -> Option<CellRef<'a>> {
        match &mut self.0 {
            CellsInner::Page(cells) => cells.next().map(|c| CellRef(CellInner::Page(c))),
            CellsInner::Owned(cells) => cells.next().map(|c| CellRef(CellInner::Owned(c))),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            CellsInner::Page(cells) => cells.size_hint(),
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
struct ShowBytes<'a>(&'a [u8]);

impl fmt::Debug for ShowBytes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"")?;
        for &b in self.0 {
            write!(f, "{}", std::ascii::escape_default(b))?;
        }
        f.write_str("\"")
    }
}

struct ShowCells<'a>(&'a Row);

impl fmt::Debug for ShowCells<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.cells()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_chaos::{BinaryWriter, MessageType, TType};
    use basalt_thrift::{decode_row_reply, Protocol};

    fn cell(q: &str, v: &str, ts: i64) -> Cell {
        Cell::new(Bytes::from_static(b"d"), q.to_owned(), v.to_owned(), ts)
    }

    /// (qualifier, value, timestamp) of a cell in family `d`.
    type TestCell<'a> = (&'a str, &'a str, i64);

    /// A binary-protocol `getScannerRows` reply: rows of (key, cells), the first row
    /// partial, the second stale.
    fn page(rows: &[(&str, &[TestCell<'_>])]) -> RowBatch {
        let mut w = BinaryWriter::new()
            .message("getScannerRows", MessageType::Reply, 1)
            .field(TType::List, 0)
            .list(TType::Struct, rows.len() as i32);
        for (i, (key, cells)) in rows.iter().enumerate() {
            w = w
                .field(TType::String, 1)
                .string(key.as_bytes())
                .field(TType::List, 2)
                .list(TType::Struct, cells.len() as i32);
            for (q, v, ts) in cells.iter() {
                w = w.field(TType::String, 1).string(b"d").field(TType::String, 2).string(q.as_bytes());
                w = w.field(TType::String, 3).string(v.as_bytes()).field(TType::I64, 4).i64(*ts).stop();
            }
            if i == 0 {
                w = w.field(TType::Bool, 4).byte(1);
            }
            if i == 1 {
                w = w.field(TType::Bool, 3).byte(1);
            }
            w = w.stop();
        }
        let reply = Bytes::from(w.stop().into_bytes());
        decode_row_reply(Protocol::Binary, "getScannerRows", 1, reply).unwrap()
    }

    #[test]
    fn accessors_pick_the_newest_version() {
        let row = Row::new("r", [cell("a", "new", 2), cell("a", "old", 1), cell("b", "x", 1)]);
        assert_eq!(row.value(b"d", b"a"), Some(&b"new"[..]));
        assert_eq!(row.versions(b"d", b"a").len(), 2);
        assert_eq!(row.family(b"d").count(), 3);
        assert!(row.value(b"x", b"a").is_none());
        assert_eq!(row.len(), 3);
    }

    #[test]
    fn the_stale_flag_comes_from_the_reply_and_survives_copies() {
        let rows: Vec<Row> = Row::from_batch(page(&[("r1", &[("a", "v", 1)]), ("r2", &[("b", "x", 7)])])).collect();
        assert!(!rows[0].is_stale() && rows[1].is_stale());
        assert!(rows[1].detach().is_stale() && rows[1].clone().with_partial(true).is_stale());
        assert!(!rows[1].clone().with_stale(false).is_stale());
        assert_eq!(rows[1].clone().with_stale(false), rows[1], "staleness is not part of equality");
        assert!(format!("{:?}", rows[1]).ends_with("stale: true }"));
        assert!(!Row::new("r", [cell("a", "v", 1)]).is_stale());
        assert!(Row::new("r", [cell("a", "v", 1)]).with_stale(true).is_stale());
    }

    #[test]
    fn page_rows_read_the_reply_in_place() {
        let batch = page(&[("r1", &[("a", "new", 2), ("a", "old", 1)]), ("r2", &[("b", "x", 7)]), ("r3", &[])]);
        let reply = batch.reply_bytes().clone();
        let rows: Vec<Row> = Row::from_batch(batch).collect();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].key(), b"r1");
        assert!(rows[0].is_partial() && !rows[1].is_partial());
        assert_eq!(rows[0].value(b"d", b"a"), Some(&b"new"[..]));
        assert_eq!(rows[1].cells().map(|c| c.timestamp()).collect::<Vec<_>>(), [7]);
        assert!(rows[2].is_empty());
        // Keys and values point into the reply: nothing was copied.
        let inside = |s: &[u8]| reply.as_ptr_range().contains(&s.as_ptr());
        assert!(inside(rows[1].key()) && inside(rows[1].cells().next().unwrap().value()));
        assert_eq!(rows[1].key_bytes(), Bytes::from_static(b"r2"));
        // The same row built by hand is equal; a detached copy is equal and owns its bytes.
        let by_hand = Row::new("r1", [cell("a", "new", 2), cell("a", "old", 1)]).with_partial(true);
        assert_eq!(rows[0], by_hand);
        let detached = rows[0].detach();
        assert_eq!(detached, rows[0]);
        assert!(!inside(detached.key()));
        assert_ne!(rows[0], rows[1]);
    }

    #[test]
    fn a_missing_row_takes_the_asked_key() {
        let row = Row::default().or_key(&Bytes::from_static(b"k"));
        assert_eq!((row.key(), row.len()), (&b"k"[..], 0));
        let batch = page(&[("r1", &[("a", "v", 1)])]);
        let row = Row::from_batch(batch).next().unwrap();
        assert_eq!(row.clone().or_key(&Bytes::from_static(b"k")), row);
    }

    #[test]
    fn debug_shows_key_and_cells_readably() {
        let row = Row::new("r\x01", [cell("a", "v\"", 5)]);
        assert_eq!(format!("{row:?}"), r#"Row { key: "r\x01", cells: ["d":"a"@5="v\""], partial: false }"#);
    }

    #[test]
    fn cell_types_come_from_the_reply_or_the_cell_and_count_in_equality() {
        for code in [4u8, 8, 10, 12, 14, 0, 255] {
            assert_eq!(CellType::from_code(code).code(), code);
        }
        assert!(CellType::from_code(12).is_delete() && !CellType::Put.is_delete());
        assert!(!CellType::from_code(0).is_delete());
        let marker = Cell::new("d", "q", "", 7).with_type(CellType::DeleteColumn);
        let row = Row::new("r", [marker.clone(), cell("q", "v", 7)]);
        let types: Vec<CellType> = row.cells().map(|c| c.cell_type()).collect();
        assert_eq!(types, [CellType::DeleteColumn, CellType::Put]);
        assert_eq!(row.detach().cells().next().map(|c| c.cell_type()), Some(CellType::DeleteColumn));
        assert_ne!(marker, Cell::new("d", "q", "", 7));
        assert!(format!("{row:?}").contains("(DeleteColumn)"));
        // A reply page without type bytes holds values.
        let page_row = Row::from_batch(page(&[("r1", &[("a", "v", 1)])])).next().unwrap();
        assert_eq!(page_row.cells().next().map(|c| c.cell_type()), Some(CellType::Put));
        // The gateway's increment and append answers carry the type byte.
        let thrift = TResult::new(
            b"r".to_vec(),
            vec![TColumnValue::new(b"d".to_vec(), b"q".to_vec(), Vec::new(), 3, None, 8i8)],
            None,
            None,
        );
        assert_eq!(Row::from_thrift(thrift).cells().next().map(|c| c.cell_type()), Some(CellType::Delete));
    }

    #[test]
    fn rows_are_small_and_shareable() {
        fn shareable<T: Send + Sync + 'static>() {}
        shareable::<Row>();
        assert!(std::mem::size_of::<Row>() <= 24, "{}", std::mem::size_of::<Row>());
    }
}
