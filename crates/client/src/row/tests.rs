//! The row model's tests, over a page of the test's own (the transports' pages are
//! tested under `transport/`).

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;

use super::*;

fn cell(q: &str, v: &str, ts: i64) -> Cell {
    Cell::new(Bytes::from_static(b"d"), q.to_owned(), v.to_owned(), ts)
}

/// (qualifier, value, timestamp) of a cell in family `d`.
type TestCell<'a> = (&'a str, &'a str, i64);

/// A cell of a [`TestPage`]: (family, qualifier, value) ranges, timestamp, type.
type TestPart = (Range<usize>, Range<usize>, Range<usize>, i64, CellType);

/// A reply page as a transport would decode it: every part a slice of one buffer;
/// the first row partial, the second stale.
struct TestPage {
    buf: Bytes,
    /// (key, cells, partial, stale); cells as (family, qualifier, value, timestamp,
    /// type), each part a range of `buf`.
    rows: Vec<(Range<usize>, Vec<TestPart>, bool, bool)>,
}

impl RowSource for TestPage {
    fn row_count(&self) -> usize {
        self.rows.len()
    }
    fn key(&self, row: usize) -> (&Bytes, &[u8]) {
        let key = self.rows.get(row).and_then(|r| self.buf.get(r.0.clone())).unwrap_or_default();
        (&self.buf, key)
    }
    fn partial(&self, row: usize) -> bool {
        self.rows.get(row).is_some_and(|r| r.2)
    }
    fn stale(&self, row: usize) -> bool {
        self.rows.get(row).is_some_and(|r| r.3)
    }
    fn cell_count(&self, row: usize) -> usize {
        self.rows.get(row).map_or(0, |r| r.1.len())
    }
    fn cell(&self, row: usize, cell: usize) -> Option<PageCell<'_>> {
        let (f, q, v, timestamp, cell_type) = self.rows.get(row)?.1.get(cell)?.clone();
        Some(PageCell {
            buf: &self.buf,
            family: self.buf.get(f)?,
            qualifier: self.buf.get(q)?,
            value: self.buf.get(v)?,
            timestamp,
            cell_type,
        })
    }
}

fn page(rows: &[(&str, &[TestCell<'_>])]) -> Arc<dyn RowSource> {
    let mut buf = Vec::new();
    let mut put = |s: &[u8]| {
        buf.extend_from_slice(s);
        buf.len() - s.len()..buf.len()
    };
    let mut index = Vec::new();
    for (i, (key, cells)) in rows.iter().enumerate() {
        let key = put(key.as_bytes());
        let cells = cells
            .iter()
            .map(|(q, v, ts)| (put(b"d"), put(q.as_bytes()), put(v.as_bytes()), *ts, CellType::Put))
            .collect();
        index.push((key, cells, i == 0, i == 1));
    }
    Arc::new(TestPage { buf: Bytes::from(buf), rows: index })
}

fn rows_of(page: &Arc<dyn RowSource>) -> Vec<Row> {
    Row::of_page(Arc::clone(page)).collect()
}

/// Where the page's parts are.
fn reply_of(page: &Arc<dyn RowSource>) -> Bytes {
    page.key(0).0.clone()
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
    let rows = rows_of(&page(&[("r1", &[("a", "v", 1)]), ("r2", &[("b", "x", 7)])]));
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
    let reply = reply_of(&batch);
    let rows = rows_of(&batch);
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
    let row = rows_of(&batch).remove(0);
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
    // A page's cells carry their type.
    let page_row = rows_of(&page(&[("r1", &[("a", "v", 1)])])).remove(0);
    assert_eq!(page_row.cells().next().map(|c| c.cell_type()), Some(CellType::Put));
}

#[test]
fn rows_are_small_and_shareable() {
    fn shareable<T: Send + Sync + 'static>() {}
    shareable::<Row>();
    assert!(std::mem::size_of::<Row>() <= 24, "{}", std::mem::size_of::<Row>());
}

#[test]
fn flags_change_in_place_and_out_of_range_reads_are_empty() {
    let page = page(&[("r1", &[("a", "v", 1)]), ("r2", &[("b", "x", 7)])]);
    let reply = reply_of(&page);
    let row = Row::from_page(&page, 1).with_partial(true).with_stale(false);
    assert!(row.is_partial() && !row.is_stale());
    // Still a view of the page: its key points into the reply.
    assert!(reply.as_ptr_range().contains(&row.key().as_ptr()));
    assert!(matches!(row.repr, Repr::Page { .. }));
    // Indexes beyond the page give empty rows and cells, not panics.
    assert_eq!(Row::from_page(&page, 2), Row::default());
    assert_eq!(page.cell(0, 1).map(|c| c.value.len()), None);
    assert_eq!(page.cell(9, 0).map(|c| c.value.len()), None);
}

#[test]
fn shared_parts_are_slices_of_the_buffer_and_strangers_are_copied() {
    let buf = Bytes::from_static(b"family-qualifier");
    let part = source::share(&buf, &buf[7..]);
    assert_eq!((&part[..], part.as_ptr()), (&b"qualifier"[..], buf[7..].as_ptr()));
    let stranger = b"elsewhere".to_vec();
    let copied = source::share(&buf, &stranger);
    assert_eq!(&copied[..], b"elsewhere");
    assert_ne!(copied.as_ptr(), stranger.as_ptr());
    assert!(source::share(&buf, &[]).is_empty());
}
