//! The gateway's replies as the core's rows: a decoded Thrift page ([`RowBatch`]) is a
//! [`RowSource`] (rows view it in place), and the generated [`TResult`] of increments
//! and appends becomes an owned row.

use std::sync::Arc;

use basalt_thrift::hbase::{TColumnValue, TResult};
use basalt_thrift::RowBatch;
use bytes::Bytes;

use crate::row::{Cell, CellType, PageCell, Row, RowSource};

impl RowSource for RowBatch {
    fn row_count(&self) -> usize {
        self.len()
    }

    fn key(&self, row: usize) -> (&Bytes, &[u8]) {
        (self.reply_bytes(), self.row(row).map_or(&[][..], |r| r.key()))
    }

    fn partial(&self, row: usize) -> bool {
        self.row(row).is_some_and(|r| r.partial())
    }

    fn stale(&self, row: usize) -> bool {
        self.row(row).is_some_and(|r| r.stale())
    }

    fn cell_count(&self, row: usize) -> usize {
        self.row(row).map_or(0, |r| r.cell_count())
    }

    fn cell(&self, row: usize, cell: usize) -> Option<PageCell<'_>> {
        let c = self.row(row)?.cell(cell)?;
        Some(PageCell {
            buf: self.reply_bytes(),
            family: c.family(),
            qualifier: c.qualifier(),
            value: c.value(),
            timestamp: c.timestamp().unwrap_or(0),
            cell_type: c.cell_type().map_or(CellType::Put, |t| CellType::from_code(t as u8)),
        })
    }
}

/// The rows of a zero-copy reply page, in the server's order: each shares the page (no
/// copy, no allocation per row or cell).
pub(crate) fn rows(page: RowBatch) -> impl ExactSizeIterator<Item = Row> {
    Row::of_page(Arc::new(page))
}

/// A generated result (increment, append) as a row of owned cells.
pub(crate) fn row_from_thrift(r: TResult) -> Row {
    Row::from_parts(
        Bytes::from(r.row.unwrap_or_default()),
        r.column_values.into_iter().map(cell_from_thrift).collect(),
        r.partial.unwrap_or(false),
        r.stale.unwrap_or(false),
    )
}

fn cell_from_thrift(c: TColumnValue) -> Cell {
    Cell::new(c.family, c.qualifier, c.value, c.timestamp.unwrap_or(0))
        .with_type(c.type_.map_or(CellType::Put, |t| CellType::from_code(t as u8)))
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
    fn gateway_rows_read_the_reply_in_place() {
        let batch = page(&[("r1", &[("a", "new", 2), ("a", "old", 1)]), ("r2", &[("b", "x", 7)]), ("r3", &[])]);
        let reply = batch.reply_bytes().clone();
        let rows: Vec<Row> = rows(batch).collect();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].key(), b"r1");
        assert!(rows[0].is_partial() && !rows[1].is_partial());
        assert!(!rows[0].is_stale() && rows[1].is_stale());
        assert_eq!(rows[0].value(b"d", b"a"), Some(&b"new"[..]));
        assert_eq!(rows[1].cells().map(|c| c.timestamp()).collect::<Vec<_>>(), [7]);
        assert!(rows[2].is_empty());
        // Keys, values and their `Bytes` forms point into the reply: nothing was copied.
        let inside = |s: &[u8]| reply.as_ptr_range().contains(&s.as_ptr());
        let first = rows[1].cells().next().unwrap();
        assert!(inside(rows[1].key()) && inside(first.value()) && inside(&first.value_bytes()));
        assert!(inside(&rows[1].key_bytes()) && inside(&first.family_bytes()));
        assert_eq!(rows[1].key_bytes(), Bytes::from_static(b"r2"));
        // A reply page without type bytes holds values.
        assert_eq!(first.cell_type(), CellType::Put);
        let by_hand = Row::new("r1", [cell("a", "new", 2), cell("a", "old", 1)]).with_partial(true);
        assert_eq!(rows[0], by_hand);
        assert!(!inside(rows[0].detach().key()));
    }

    #[test]
    fn increment_and_append_answers_carry_the_type_byte() {
        let thrift = TResult::new(
            b"r".to_vec(),
            vec![TColumnValue::new(b"d".to_vec(), b"q".to_vec(), Vec::new(), 3, None, 8i8)],
            None,
            None,
        );
        let row = row_from_thrift(thrift);
        assert_eq!(row.key(), b"r");
        assert_eq!(row.cells().next().map(|c| c.cell_type()), Some(CellType::Delete));
    }
}
