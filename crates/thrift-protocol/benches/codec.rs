//! Reply handling cost: finding the end of a buffered reply (`MessageScanner`) and
//! decoding it into generated `TResult`s, against copying the same bytes (the floor);
//! and a scanner page decoded by the zero-copy decoder against the generated one
//! (`scanner_page` groups), including the buffered transport's one pass (find the end
//! and index while 64 KiB chunks arrive) against two (find the end, then decode).
//!
//! `cargo bench -p basalt-thrift-protocol --bench codec`

use basalt_thrift_protocol::hbase::calls::GetScannerRows;
use basalt_thrift_protocol::hbase::{TColumnValue, TResult};
use basalt_thrift_protocol::{decode_row_reply, MessageScanner, Protocol, RowReplyReader};
use bytes::Bytes;
use criterion::{criterion_main, BenchmarkId, Criterion, Throughput};
use thrift::protocol::TSerializable;

#[path = "../tests/support/replies.rs"]
mod replies;

/// A `getScannerRows` reply with `rows` rows of 4 cells (100-byte values).
fn reply(protocol: Protocol, rows: usize) -> Vec<u8> {
    let results: Vec<TResult> = (0..rows)
        .map(|i| {
            let cells = (0..4)
                .map(|q| TColumnValue::new(b"d".to_vec(), vec![b'a' + q], vec![b'x'; 100], Some(i as i64), None, None))
                .collect();
            TResult::new(format!("{:02}_13800000000_{i:010}", i % 16).into_bytes(), cells, None, None)
        })
        .collect();
    replies::reply(protocol, "getScannerRows", 1, replies::Success::Many(&results))
}

fn decode(protocol: Protocol, bytes: &[u8]) -> usize {
    let mut input = replies::input(protocol, bytes);
    input.read_message_begin().unwrap();
    input.read_struct_begin().unwrap();
    input.read_field_begin().unwrap();
    let list = input.read_list_begin().unwrap();
    let mut cells = 0;
    for _ in 0..list.size {
        cells += TResult::read_from_in_protocol(input.as_mut()).unwrap().column_values.len();
    }
    cells
}

/// What a call decoded by the generated code costs as the connection runs it: the
/// reply bounded and its container memory accounted, and the generated `TResult`s.
fn bounded_decode(protocol: Protocol, bytes: &[u8]) -> usize {
    basalt_thrift_protocol::decode_reply::<GetScannerRows>(protocol, bytes, 1).unwrap().len()
}

fn bench(c: &mut Criterion) {
    for protocol in [Protocol::Binary, Protocol::Compact] {
        let mut group = c.benchmark_group(format!("reply_{protocol:?}").to_lowercase());
        for rows in [100usize, 1000] {
            let bytes = reply(protocol, rows);
            group.throughput(Throughput::Bytes(bytes.len() as u64));
            group.bench_with_input(BenchmarkId::new("copy_floor", rows), &bytes, |b, bytes| {
                b.iter(|| std::hint::black_box(bytes.to_vec()))
            });
            group.bench_with_input(BenchmarkId::new("find_end", rows), &bytes, |b, bytes| {
                b.iter(|| MessageScanner::new(protocol, usize::MAX).advance(bytes).unwrap())
            });
            group.bench_with_input(BenchmarkId::new("find_end_64k_chunks", rows), &bytes, |b, bytes| {
                b.iter(|| {
                    let mut scanner = MessageScanner::new(protocol, usize::MAX);
                    let mut end = 0;
                    let mut result = None;
                    while result.is_none() {
                        end = (end + 65536).min(bytes.len());
                        result = scanner.advance(&bytes[..end]).unwrap();
                    }
                    result
                })
            });
            group.bench_with_input(BenchmarkId::new("decode", rows), &bytes, |b, bytes| {
                b.iter(|| decode(protocol, bytes))
            });
            group.bench_with_input(BenchmarkId::new("bounded_decode", rows), &bytes, |b, bytes| {
                b.iter(|| bounded_decode(protocol, bytes))
            });
        }
        group.finish();
    }
}

/// What a client does with generated rows: every field into a `Bytes` (one more
/// allocation-free move per field, after the generated code's copies).
fn generated_to_bytes(protocol: Protocol, bytes: &[u8]) -> usize {
    let mut input = replies::input(protocol, bytes);
    input.read_message_begin().unwrap();
    input.read_struct_begin().unwrap();
    input.read_field_begin().unwrap();
    let list = input.read_list_begin().unwrap();
    let mut rows = Vec::with_capacity(list.size as usize);
    for _ in 0..list.size {
        let r = TResult::read_from_in_protocol(input.as_mut()).unwrap();
        let cells: Vec<(Bytes, Bytes, Bytes, Option<i64>)> = r
            .column_values
            .into_iter()
            .map(|c| (Bytes::from(c.family), Bytes::from(c.qualifier), Bytes::from(c.value), c.timestamp))
            .collect();
        rows.push((Bytes::from(r.row.unwrap_or_default()), cells));
    }
    rows.iter().map(|(_, cells)| cells.len()).sum()
}

/// The zero-copy decoder, then every cell's value visited (borrowed).
fn zero_copy(protocol: Protocol, bytes: &Bytes) -> usize {
    let batch = decode_row_reply(protocol, "getScannerRows", 1, bytes.clone()).unwrap();
    batch.iter().flat_map(|r| r.cells()).map(|c| c.value().len()).sum()
}

/// Two passes over 64 KiB chunks as they arrive: find the end, then decode.
fn two_passes(protocol: Protocol, bytes: &Bytes) -> usize {
    let mut scanner = MessageScanner::new(protocol, usize::MAX);
    let mut end = 0;
    let len = loop {
        end = (end + 65536).min(bytes.len());
        if let Some(len) = scanner.advance(&bytes[..end]).unwrap() {
            break len;
        }
    };
    decode_row_reply(protocol, "getScannerRows", 1, bytes.slice(..len)).unwrap().cell_count()
}

/// One pass over 64 KiB chunks as they arrive: the end is found while indexing.
fn one_pass(protocol: Protocol, bytes: &Bytes) -> usize {
    let mut reader = RowReplyReader::new(protocol, "getScannerRows", 1).unwrap();
    let mut end = 0;
    let len = loop {
        end = (end + 65536).min(bytes.len());
        if let Some(len) = reader.advance(&bytes[..end], usize::MAX).unwrap() {
            break len;
        }
    };
    reader.finish(bytes.slice(..len)).unwrap().cell_count()
}

fn bench_scanner_page(c: &mut Criterion) {
    for protocol in [Protocol::Binary, Protocol::Compact] {
        let mut group = c.benchmark_group(format!("scanner_page_{protocol:?}").to_lowercase());
        for rows in [100usize, 5000] {
            let bytes = Bytes::from(reply(protocol, rows));
            group.throughput(Throughput::Elements(rows as u64));
            group.bench_with_input(BenchmarkId::new("generated", rows), &bytes, |b, bytes| {
                b.iter(|| decode(protocol, bytes))
            });
            group.bench_with_input(BenchmarkId::new("generated_to_bytes", rows), &bytes, |b, bytes| {
                b.iter(|| generated_to_bytes(protocol, bytes))
            });
            group.bench_with_input(BenchmarkId::new("zero_copy", rows), &bytes, |b, bytes| {
                b.iter(|| zero_copy(protocol, bytes))
            });
            group.bench_with_input(BenchmarkId::new("zero_copy_owned_rows", rows), &bytes, |b, bytes| {
                b.iter(|| decode_row_reply(protocol, "getScannerRows", 1, bytes.clone()).unwrap().to_rows().len())
            });
            group.bench_with_input(BenchmarkId::new("buffered_two_passes", rows), &bytes, |b, bytes| {
                b.iter(|| two_passes(protocol, bytes))
            });
            group.bench_with_input(BenchmarkId::new("buffered_one_pass", rows), &bytes, |b, bytes| {
                b.iter(|| one_pass(protocol, bytes))
            });
        }
        group.finish();
    }
}

mod group {
    criterion::criterion_group!(benches, super::bench, super::bench_scanner_page);
}
criterion_main!(group::benches);
