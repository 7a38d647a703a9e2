//! A scanner page of 1,000 rows, from reply bytes to every cell read by the caller:
//! decode it, turn it into client `Row`s, read every cell's family, qualifier, value
//! and timestamp, and drop the rows. Both transports' replies:
//!
//! - the gateway's (`page_1000_rows_x*`): `view` is today's `Row` (a view sharing the
//!   zero-copy `RowBatch`); `owned_cells` is an older `Row` (a `Vec` of cells of three
//!   `Bytes` handles each, rebuilt here as it was);
//! - the native transport's (`native_1000_rows_x*`): a KeyValue cell block read into
//!   the rpc crate's results, then `view` (rows viewing the cell block through one page
//!   per reply, a list of cell views per row: what a scan reply of pieces of rows still
//!   takes) or `owned_cells` (the conversion the native transport made before: three
//!   `Bytes` and a `Vec` per row, through `Row::new`); and `flat` (what a scan reply of
//!   whole rows takes now: the block read into a record per cell and per row,
//!   `BlockRows`, and rows viewing it).
//!
//! Read the result as the ratio owned_cells / view (and view / flat) of the same run.
//!
//! `cargo bench -p basalt-hbase --bench rows --features bench-internals`
//!
//! Allocations: with `ROWS_PROBE=<case>` (`thrift_view`, `thrift_owned`,
//! `native_view`, `native_owned`, `native_flat`, `native_decode`, `thrift_decode`) the binary runs
//! that case once on the 10-cell page and exits, for a heap profiler to count its
//! allocations (e.g. valgrind's "total heap usage"); subtract the matching `*_decode`
//! run to get the conversion's own.

use basalt::{Bytes, Cell, CellType, Row};
use basalt_chaos::{BinaryWriter, MessageType, TType};
use basalt_rpc::{BlockRows, RowResult};
use basalt_rpc_protocol::cellblock::{encode_cell, CellBlockReader, CellCodec, CellParts};
use basalt_thrift::{decode_row_reply, Protocol, RowBatch};
use bytes::BytesMut;
use criterion::{BatchSize, Criterion, Throughput};

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

/// A KeyValue cell block of `ROWS` rows of `cells` cells each (as `reply`'s).
fn native_block(cells: usize) -> Bytes {
    let mut out = BytesMut::new();
    for i in 0..ROWS {
        let row = format!("r{i:08}");
        for q in 0..cells {
            let qualifier = format!("q{q}");
            let parts = CellParts {
                row: row.as_bytes(),
                family: b"d",
                qualifier: qualifier.as_bytes(),
                timestamp: 1_700_000_000_000,
                cell_type: basalt_rpc::CellType::Put,
                value: b"0123456789",
                tags: b"",
            };
            encode_cell(CellCodec::KeyValue, &parts, &mut out).expect("a cell");
        }
    }
    out.freeze()
}

/// The block's results, `cells` per row, as the rpc crate reads a scan reply (one
/// `Vec` of cell views per result).
fn native_decode(block: Bytes, cells: usize) -> Vec<RowResult> {
    let mut reader = CellBlockReader::new(block, CellCodec::KeyValue);
    (0..ROWS)
        .map(|_| {
            let mut row = Vec::with_capacity(cells);
            row.extend(reader.by_ref().take(cells).map(|c| c.expect("a valid cell")));
            RowResult { cells: row.into(), partial: false, stale: false }
        })
        .collect()
}

/// The native transport's conversion before rows viewed the reply: owned cells of
/// three `Bytes` each.
fn native_owned_row(result: RowResult) -> Row {
    let key = result.row_bytes();
    let cells = result.cells.iter().map(|c| {
        Cell::new(c.family_bytes(), c.qualifier_bytes(), c.value_bytes(), c.timestamp())
            .with_type(CellType::from_code(c.cell_type().code()))
    });
    Row::new(key, cells.collect::<Vec<_>>()).with_partial(result.partial).with_stale(result.stale)
}

/// Reads every cell of `rows`, as a caller would.
fn read_all(rows: &[Row]) -> usize {
    let mut sum = 0usize;
    for row in rows {
        sum += row.key().len() + usize::from(row.is_partial());
        for c in row.cells() {
            sum += c.family().len() + c.qualifier().len() + c.value().len() + c.timestamp() as usize;
        }
    }
    sum
}

/// One run of a case on the 10-cell pages (`ROWS_PROBE`), for a heap profiler.
fn probe(case: &str) -> usize {
    let (thrift, native) = (reply(10), native_block(10));
    match case {
        "thrift_decode" => decode(thrift).len(),
        "thrift_view" => read_all(&basalt::bench_internals::rows_from_batch(decode(thrift)).collect::<Vec<_>>()),
        "thrift_owned" => owned_rows(&decode(thrift)).len(),
        "native_decode" => native_decode(native, 10).len(),
        "native_view" => {
            read_all(&basalt::bench_internals::rows_from_results(native_decode(native, 10)).collect::<Vec<_>>())
        }
        "native_owned" => read_all(&native_decode(native, 10).into_iter().map(native_owned_row).collect::<Vec<_>>()),
        "native_flat" => {
            let flat = BlockRows::parse(native, CellCodec::KeyValue, &[10; ROWS], false).expect("a valid block");
            read_all(&basalt::bench_internals::rows_from_block(flat).collect::<Vec<_>>())
        }
        _ => 0,
    }
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

        let block = native_block(cells);
        let mut group = c.benchmark_group(format!("native_1000_rows_x{cells}_cells"));
        group.throughput(Throughput::Elements((ROWS * cells) as u64));
        group.bench_function("owned_cells", |b| {
            b.iter_batched(
                || block.clone(),
                |block| {
                    let rows: Vec<Row> = native_decode(block, cells).into_iter().map(native_owned_row).collect();
                    read_all(&rows)
                },
                BatchSize::SmallInput,
            )
        });
        group.bench_function("view", |b| {
            b.iter_batched(
                || block.clone(),
                |block| {
                    let rows: Vec<Row> =
                        basalt::bench_internals::rows_from_results(native_decode(block, cells)).collect();
                    read_all(&rows)
                },
                BatchSize::SmallInput,
            )
        });
        let counts = vec![cells as u32; ROWS];
        group.bench_function("flat", |b| {
            b.iter_batched(
                || block.clone(),
                |block| {
                    let flat = BlockRows::parse(block, CellCodec::KeyValue, &counts, false).expect("a valid block");
                    let rows: Vec<Row> = basalt::bench_internals::rows_from_block(flat).collect();
                    read_all(&rows)
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

fn main() {
    if let Ok(case) = std::env::var("ROWS_PROBE") {
        println!("{case}: {}", probe(&case));
        return;
    }
    group::benches();
    Criterion::default().configure_from_args().final_summary();
}
