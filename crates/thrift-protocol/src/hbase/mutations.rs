//! Batched writes encoded from borrowed data: `putMultiple` straight from the caller's
//! rows ([`PutSource`]), `deleteMultiple` from a slice of `TDelete`s.
//!
//! The generated calls take their arguments by value, so a call retried after a
//! failure needs a deep copy of every put; and the generated writers allocate a
//! `String` for each struct and field name the wire never carries. These calls borrow
//! what they send and name nothing: an attempt costs one encoding into the connection's
//! buffer and no allocation per row. The bytes are exactly the generated writers'
//! (checked by the tests below, binary and compact).

use super::*;
use crate::bounded_input::ResultCost;
use crate::Call;

/// One row of a `putMultiple` call, as the caller holds it: what a `TPut` carries,
/// borrowed. Cells are numbered `0..cell_count()`.
pub trait PutSource {
    /// The row key.
    fn row(&self) -> &[u8];
    /// How many cells the put writes.
    fn cell_count(&self) -> usize;
    /// Cell `i` (`i < cell_count()`): family, qualifier, value and its own timestamp.
    fn cell(&self, i: usize) -> (&[u8], &[u8], &[u8], Option<i64>);
    /// The timestamp of the cells that have none of their own.
    fn timestamp(&self) -> Option<i64>;
    /// The WAL setting, if not the table's.
    fn durability(&self) -> Option<TDurability>;
}

/// Only for the tests: a `TPut`'s attributes and cell visibility are not written.
#[cfg(test)]
impl PutSource for TPut {
    fn row(&self) -> &[u8] {
        &self.row
    }

    fn cell_count(&self) -> usize {
        self.column_values.len()
    }

    fn cell(&self, i: usize) -> (&[u8], &[u8], &[u8], Option<i64>) {
        let c = &self.column_values[i];
        (&c.family, &c.qualifier, &c.value, c.timestamp)
    }

    fn timestamp(&self) -> Option<i64> {
        self.timestamp
    }

    fn durability(&self) -> Option<TDurability> {
        self.durability
    }
}

/// `putMultiple` of borrowed rows: nothing is copied but into the request buffer, so
/// a retry costs no more than the first attempt. (No attributes or cell visibility:
/// use [`PutMultiple`](super::calls::PutMultiple) for those.)
#[derive(Debug, Clone, Copy)]
pub struct PutRows<'a, P> {
    /// The table, `namespace:name` or `name`.
    pub table: &'a [u8],
    /// The rows to write.
    pub puts: &'a [P],
}

impl<P: PutSource> Call for PutRows<'_, P> {
    type Reply = ();
    const METHOD: &'static str = "putMultiple";
    const TOP_ELEMENT: usize = <() as ResultCost>::TOP_ELEMENT;

    fn write_args(&self, out: &mut dyn TOutputProtocol) -> thrift::Result<()> {
        write_put_multiple(out, self.table, self.puts)
    }

    fn read_result(input: &mut dyn TInputProtocol) -> thrift::Result<()> {
        THBaseServicePutMultipleResult::read_from_in_protocol(input)?.ok_or()
    }
}

/// `deleteMultiple` of borrowed deletes; the reply lists those HBase could not apply
/// (always empty in HBase 2).
#[derive(Debug, Clone, Copy)]
pub struct DeleteRows<'a> {
    /// The table, `namespace:name` or `name`.
    pub table: &'a [u8],
    /// The deletes.
    pub deletes: &'a [TDelete],
}

impl Call for DeleteRows<'_> {
    type Reply = Vec<TDelete>;
    const METHOD: &'static str = "deleteMultiple";
    const TOP_ELEMENT: usize = <Vec<TDelete> as ResultCost>::TOP_ELEMENT;

    fn write_args(&self, out: &mut dyn TOutputProtocol) -> thrift::Result<()> {
        write_delete_multiple(out, self.table, self.deletes)
    }

    fn read_result(input: &mut dyn TInputProtocol) -> thrift::Result<Vec<TDelete>> {
        THBaseServiceDeleteMultipleResult::read_from_in_protocol(input)?.ok_or()
    }
}

/// A field header without a name: the binary and compact protocols never send it, and
/// a name would be a `String` allocated per field.
fn field(field_type: TType, id: i16) -> TFieldIdentifier {
    TFieldIdentifier { name: None, field_type, id: Some(id) }
}

fn unnamed_struct() -> TStructIdentifier {
    TStructIdentifier { name: String::new() }
}

fn list_len(len: usize) -> thrift::Result<i32> {
    i32::try_from(len).map_err(|_| {
        thrift::Error::Protocol(thrift::ProtocolError::new(
            thrift::ProtocolErrorKind::SizeLimit,
            format!("{len} elements do not fit a Thrift list"),
        ))
    })
}

fn write_binary_field(out: &mut dyn TOutputProtocol, id: i16, bytes: &[u8]) -> thrift::Result<()> {
    out.write_field_begin(&field(TType::String, id))?;
    out.write_bytes(bytes)?;
    out.write_field_end()
}

fn write_i64_field(out: &mut dyn TOutputProtocol, id: i16, value: Option<i64>) -> thrift::Result<()> {
    if let Some(value) = value {
        out.write_field_begin(&field(TType::I64, id))?;
        out.write_i64(value)?;
        out.write_field_end()?;
    }
    Ok(())
}

/// `putMultiple_args { 1: table, 2: list<TPut> }`, field for field as the generated
/// writer lays it out.
fn write_put_multiple<P: PutSource>(out: &mut dyn TOutputProtocol, table: &[u8], puts: &[P]) -> thrift::Result<()> {
    out.write_struct_begin(&unnamed_struct())?;
    write_binary_field(out, 1, table)?;
    out.write_field_begin(&field(TType::List, 2))?;
    out.write_list_begin(&TListIdentifier::new(TType::Struct, list_len(puts.len())?))?;
    for put in puts {
        write_put(out, put)?;
    }
    out.write_list_end()?;
    out.write_field_end()?;
    out.write_field_stop()?;
    out.write_struct_end()
}

/// One `TPut { 1: row, 2: list<TColumnValue>, 3: timestamp?, 6: durability? }`.
fn write_put<P: PutSource>(out: &mut dyn TOutputProtocol, put: &P) -> thrift::Result<()> {
    out.write_struct_begin(&unnamed_struct())?;
    write_binary_field(out, 1, put.row())?;
    out.write_field_begin(&field(TType::List, 2))?;
    let cells = put.cell_count();
    out.write_list_begin(&TListIdentifier::new(TType::Struct, list_len(cells)?))?;
    for i in 0..cells {
        // `TColumnValue { 1: family, 2: qualifier, 3: value, 4: timestamp? }`.
        let (family, qualifier, value, timestamp) = put.cell(i);
        out.write_struct_begin(&unnamed_struct())?;
        write_binary_field(out, 1, family)?;
        write_binary_field(out, 2, qualifier)?;
        write_binary_field(out, 3, value)?;
        write_i64_field(out, 4, timestamp)?;
        out.write_field_stop()?;
        out.write_struct_end()?;
    }
    out.write_list_end()?;
    out.write_field_end()?;
    write_i64_field(out, 3, put.timestamp())?;
    if let Some(durability) = put.durability() {
        out.write_field_begin(&field(TType::I32, 6))?;
        out.write_i32(durability.0)?;
        out.write_field_end()?;
    }
    out.write_field_stop()?;
    out.write_struct_end()
}

/// `deleteMultiple_args { 1: table, 2: list<TDelete> }` with the generated writer of
/// each `TDelete` (which borrows).
fn write_delete_multiple(out: &mut dyn TOutputProtocol, table: &[u8], deletes: &[TDelete]) -> thrift::Result<()> {
    out.write_struct_begin(&unnamed_struct())?;
    write_binary_field(out, 1, table)?;
    out.write_field_begin(&field(TType::List, 2))?;
    out.write_list_begin(&TListIdentifier::new(TType::Struct, list_len(deletes.len())?))?;
    for delete in deletes {
        delete.write_to_out_protocol(out)?;
    }
    out.write_list_end()?;
    out.write_field_end()?;
    out.write_field_stop()?;
    out.write_struct_end()
}

#[cfg(test)]
mod tests {
    use thrift::protocol::{TBinaryOutputProtocol, TCompactOutputProtocol};

    use super::*;

    fn puts() -> Vec<TPut> {
        let cell = |f: &[u8], q: &[u8], v: &[u8], ts: Option<i64>| {
            TColumnValue::new(f.to_vec(), q.to_vec(), v.to_vec(), ts, None, None)
        };
        vec![
            TPut::new(b"r1".to_vec(), vec![cell(b"f", b"q", b"v", None)], None, None, None, None),
            TPut::new(
                b"r2".to_vec(),
                vec![cell(b"f", b"a", b"", Some(7)), cell(b"g", b"", &[0xff; 300], None)],
                Some(-1),
                None,
                Some(TDurability::SKIP_WAL),
                None,
            ),
            TPut::new(Vec::new(), Vec::new(), Some(i64::MAX), None, Some(TDurability::FSYNC_WAL), None),
        ]
    }

    fn deletes() -> Vec<TDelete> {
        vec![
            TDelete::new(b"r1".to_vec(), None, None, TDeleteType::DELETE_COLUMNS, None, None),
            TDelete::new(
                b"r2".to_vec(),
                vec![TColumn::new(b"f".to_vec(), b"q".to_vec(), 5)],
                9,
                TDeleteType::DELETE_COLUMN,
                None,
                TDurability::ASYNC_WAL,
            ),
        ]
    }

    /// Encodes with `write` under both protocols.
    fn encoded(write: &dyn Fn(&mut dyn TOutputProtocol) -> thrift::Result<()>) -> (Vec<u8>, Vec<u8>) {
        let mut binary = Vec::new();
        write(&mut TBinaryOutputProtocol::new(&mut binary, true)).unwrap();
        let mut compact = Vec::new();
        write(&mut TCompactOutputProtocol::new(&mut compact)).unwrap();
        (binary, compact)
    }

    #[test]
    fn puts_encode_exactly_as_the_generated_writer() {
        for n in [0, 1, 3] {
            let puts = &puts()[..n];
            let ours = encoded(&|out| write_put_multiple(out, b"ns:t", puts));
            let args = THBaseServicePutMultipleArgs { table: b"ns:t".to_vec(), tputs: puts.to_vec() };
            let generated = encoded(&|out| args.write_to_out_protocol(out));
            assert_eq!(ours, generated, "{n} puts");
        }
    }

    fn arbitrary_put() -> impl proptest::strategy::Strategy<Value = TPut> {
        use proptest::prelude::*;
        let bytes = || proptest::collection::vec(any::<u8>(), 0..40);
        let cell = (bytes(), bytes(), bytes(), proptest::option::of(any::<i64>()))
            .prop_map(|(f, q, v, ts)| TColumnValue::new(f, q, v, ts, None, None));
        (bytes(), proptest::collection::vec(cell, 0..4), proptest::option::of(any::<i64>()), 0..6i32).prop_map(
            |(row, cells, ts, durability)| {
                let durability = (durability < 5).then_some(TDurability(durability));
                TPut::new(row, cells, ts, None, durability, None)
            },
        )
    }

    proptest::proptest! {
        #[test]
        fn any_puts_encode_as_the_generated_writer(
            puts in proptest::collection::vec(arbitrary_put(), 0..6),
            table in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..20),
        ) {
            let ours = encoded(&|out| write_put_multiple(out, &table, &puts));
            let args = THBaseServicePutMultipleArgs { table: table.clone(), tputs: puts.clone() };
            proptest::prop_assert_eq!(ours, encoded(&|out| args.write_to_out_protocol(out)));
        }
    }

    #[test]
    fn deletes_encode_exactly_as_the_generated_writer() {
        let deletes = deletes();
        let ours = encoded(&|out| write_delete_multiple(out, b"t", &deletes));
        let args = THBaseServiceDeleteMultipleArgs { table: b"t".to_vec(), tdeletes: deletes.clone() };
        assert_eq!(ours, encoded(&|out| args.write_to_out_protocol(out)));
    }
}
