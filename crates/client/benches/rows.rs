//! A scanner page of 1,000 rows, from reply bytes to every cell read by the caller:
//! decode it (zero-copy `RowBatch`), turn it into client `Row`s, read every cell's
//! family, qualifier, value and timestamp, and drop the rows. `view` is today's `Row`
//! (a view sharing the page); `owned_cells` is the previous `Row` (a `Vec` of cells of
//! three `Bytes` handles each, rebuilt here as it was). Read the result as the ratio
//! owned_cells / view of the same run.
//!
//! `cargo bench -p basalt-hbase --bench rows --features bench-internals`

use basalt::{Bytes, Row};
use basalt_chaos::{BinaryWriter, MessageType, TType};
use basalt_thrift::{decode_row_reply, Protocol, RowBatch};
use criterion::{criterion_main, BatchSize, Criterion, Throughput};

const ROWS: usize = 1_000;

/// A `getScannerRows` reply of `ROWS` rows of `cells` cells each (10-byte values).
fn reply(cells: usize) -> Bytes {
    let mut w = BinaryWriter::new()
        .message("getScannerRows", MessageType::Reply, 1)
        .field(TType::List, 0)
        .list(TType::Struct, ROWS as i32);
    for i in 0..ROWS {
        w = w.field(TType::String, 1).string(format!("r{i:08}").as_bytes());
        w = w.field(TType::List, 2).list(TType::Struct, cells as i32);
        for q in 0..cells {
            w = w.field(TType::String, 1).string(b"d").field(TType::String, 2).string(format!("q{q}").as_bytes());
            w = w.field(TType::String, 3).string(b"0123456789").field(TType::I64, 4).i64(1_700_000_000_000).stop();
        }
        w = w.stop();
    }
    Bytes::from(w.stop().into_bytes())
}

fn decode(reply: Bytes) -> RowBatch {
    decode_row_reply(Protocol::Binary, "getScannerRows", 1, reply).expect("a valid reply")
}

/// The previous client cell: three `Bytes` handles and a timestamp.
struct OwnedCell {
    family: Bytes,
    qualifier: Bytes,
    value: Bytes,
    timestamp: i64,
}

/// The previous client row, built as `Row::from_ref` built it.
struct OwnedRow {
    key: Bytes,
    cells: Vec<OwnedCell>,
    partial: bool,
}

fn owned_rows(batch: &RowBatch) -> Vec<OwnedRow> {
    batch
        .iter()
        .map(|r| OwnedRow {
            key: r.key_bytes(),
            cells: r
                .cells()
                .map(|c| OwnedCell {
                    family: c.family_bytes(),
                    qualifier: c.qualifier_bytes(),
                    value: c.value_bytes(),
                    timestamp: c.timestamp().unwrap_or(0),
                })
                .collect(),
            partial: r.partial(),
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    for cells in [1usize, 10] {
        let bytes = reply(cells);
        let mut group = c.benchmark_group(format!("page_1000_rows_x{cells}_cells"));
        group.throughput(Throughput::Elements((ROWS * cells) as u64));
        group.bench_function("owned_cells", |b| {
            b.iter_batched(
                || bytes.clone(),
                |reply| {
                    let rows = owned_rows(&decode(reply));
                    let mut sum = 0usize;
                    for row in &rows {
                        sum += row.key.len() + usize::from(row.partial);
                        for c in &row.cells {
                            sum += c.family.len() + c.qualifier.len() + c.value.len() + c.timestamp as usize;
                        }
                    }
                    sum
                },
                BatchSize::SmallInput,
            )
        });
        group.bench_function("view", |b| {
            b.iter_batched(
                || bytes.clone(),
                |reply| {
                    let rows: Vec<Row> = basalt::bench_internals::rows_from_batch(decode(reply)).collect();
                    let mut sum = 0usize;
                    for row in &rows {
                        sum += row.key().len() + usize::from(row.is_partial());
                        for c in row.cells() {
                            sum += c.family().len() + c.qualifier().len() + c.value().len() + c.timestamp() as usize;
                        }
                    }
                    sum
                },
                BatchSize::SmallInput,
            )
        });
        group.finish();
    }
}

mod group {
    criterion::criterion_group!(benches, super::bench);
}
criterion_main!(group::benches);
