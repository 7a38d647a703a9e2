//! Rows and cells as they come back from HBase.

use basalt_thrift::hbase::{TColumnValue, TResult};
use basalt_thrift::{CellData, CellRef, RowData, RowRef};
use bytes::Bytes;

/// One cell: a value at (row, family, qualifier, timestamp).
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
}

impl Cell {
    /// A cell of a zero-copy reply: its fields share the reply's buffer.
    pub(crate) fn from_ref(c: &CellRef<'_>) -> Cell {
        Cell {
            family: c.family_bytes(),
            qualifier: c.qualifier_bytes(),
            value: c.value_bytes(),
            timestamp: c.timestamp().unwrap_or(0),
        }
    }

    pub(crate) fn from_data(c: CellData) -> Cell {
        Cell { family: c.family, qualifier: c.qualifier, value: c.value, timestamp: c.timestamp.unwrap_or(0) }
    }

    pub(crate) fn from_thrift(c: TColumnValue) -> Cell {
        Cell {
            family: Bytes::from(c.family),
            qualifier: Bytes::from(c.qualifier),
            value: Bytes::from(c.value),
            timestamp: c.timestamp.unwrap_or(0),
        }
    }
}

/// A row: its key and the cells returned for it, in HBase's order (family, qualifier,
/// newest version first).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Row {
    /// The row key.
    pub key: Bytes,
    /// The cells.
    pub cells: Vec<Cell>,
    /// Set when a scan with a batch size returned only part of the row's cells; the
    /// rest follows in the next item(s) with the same key.
    pub partial: bool,
}

impl Row {
    /// A row of a zero-copy reply: key and cells share the reply's buffer (no copy,
    /// one allocation for the cell list).
    pub(crate) fn from_ref(r: &RowRef<'_>) -> Row {
        Row { key: r.key_bytes(), cells: r.cells().map(|c| Cell::from_ref(&c)).collect(), partial: r.partial() }
    }

    pub(crate) fn from_data(r: RowData) -> Row {
        Row { key: r.row, cells: r.cells.into_iter().map(Cell::from_data).collect(), partial: r.partial }
    }

    pub(crate) fn from_thrift(r: TResult) -> Row {
        Row {
            key: Bytes::from(r.row.unwrap_or_default()),
            cells: r.column_values.into_iter().map(Cell::from_thrift).collect(),
            partial: r.partial.unwrap_or(false),
        }
    }

    /// Whether the row has no cells (a get of a missing row gives an empty row).
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The newest value of `family:qualifier`, if present.
    pub fn value(&self, family: &[u8], qualifier: &[u8]) -> Option<&Bytes> {
        self.cell(family, qualifier).map(|c| &c.value)
    }

    /// The newest cell of `family:qualifier`, if present.
    pub fn cell(&self, family: &[u8], qualifier: &[u8]) -> Option<&Cell> {
        self.cells.iter().filter(|c| c.family == family && c.qualifier == qualifier).max_by_key(|c| c.timestamp)
    }

    /// Every version of `family:qualifier`, newest first.
    pub fn versions(&self, family: &[u8], qualifier: &[u8]) -> Vec<&Cell> {
        let mut cells: Vec<&Cell> =
            self.cells.iter().filter(|c| c.family == family && c.qualifier == qualifier).collect();
        cells.sort_by_key(|c| std::cmp::Reverse(c.timestamp));
        cells
    }

    /// The cells of one family.
    pub fn family<'a>(&'a self, family: &'a [u8]) -> impl Iterator<Item = &'a Cell> + 'a {
        self.cells.iter().filter(move |c| c.family == family)
    }

    /// The newest value of `family:qualifier` as a big-endian `i64` (HBase counters).
    pub fn counter(&self, family: &[u8], qualifier: &[u8]) -> Option<i64> {
        let value = self.value(family, qualifier)?;
        let bytes: [u8; 8] = value.as_ref().try_into().ok()?;
        Some(i64::from_be_bytes(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(q: &str, v: &str, ts: i64) -> Cell {
        Cell {
            family: Bytes::from_static(b"d"),
            qualifier: Bytes::from(q.to_owned()),
            value: Bytes::from(v.to_owned()),
            timestamp: ts,
        }
    }

    #[test]
    fn accessors_pick_the_newest_version() {
        let row = Row {
            key: Bytes::from_static(b"r"),
            cells: vec![cell("a", "new", 2), cell("a", "old", 1), cell("b", "x", 1)],
            partial: false,
        };
        assert_eq!(row.value(b"d", b"a").map(|v| &v[..]), Some(&b"new"[..]));
        assert_eq!(row.versions(b"d", b"a").len(), 2);
        assert_eq!(row.family(b"d").count(), 3);
        assert!(row.value(b"x", b"a").is_none());
    }
}
