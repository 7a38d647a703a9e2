//! Reply handling cost: finding the end of a buffered reply (`MessageScanner`) and
//! decoding it into generated `TResult`s, against copying the same bytes (the floor).
//!
//! `cargo bench -p basalt-thrift --bench codec`

use basalt_thrift::hbase::{TColumnValue, TResult};
use basalt_thrift::{MessageScanner, Protocol};
use criterion::{criterion_main, BenchmarkId, Criterion, Throughput};
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol, TFieldIdentifier,
    TInputProtocol, TListIdentifier, TMessageIdentifier, TMessageType, TOutputProtocol, TSerializable,
    TStructIdentifier, TType,
};

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
    let mut buf = Vec::new();
    {
        let mut out: Box<dyn TOutputProtocol + '_> = match protocol {
            Protocol::Compact => Box::new(TCompactOutputProtocol::new(&mut buf)),
            _ => Box::new(TBinaryOutputProtocol::new(&mut buf, true)),
        };
        out.write_message_begin(&TMessageIdentifier::new("getScannerRows", TMessageType::Reply, 1)).unwrap();
        out.write_struct_begin(&TStructIdentifier::new("result")).unwrap();
        out.write_field_begin(&TFieldIdentifier::new("success", TType::List, 0)).unwrap();
        out.write_list_begin(&TListIdentifier::new(TType::Struct, results.len() as i32)).unwrap();
        for r in &results {
            r.write_to_out_protocol(out.as_mut()).unwrap();
        }
        out.write_list_end().unwrap();
        out.write_field_end().unwrap();
        out.write_field_stop().unwrap();
        out.write_struct_end().unwrap();
        out.write_message_end().unwrap();
        out.flush().unwrap();
    }
    buf
}

fn decode(protocol: Protocol, bytes: &[u8]) -> usize {
    let mut input: Box<dyn TInputProtocol + '_> = match protocol {
        Protocol::Compact => Box::new(TCompactInputProtocol::new(bytes)),
        _ => Box::new(TBinaryInputProtocol::new(bytes, true)),
    };
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
        }
        group.finish();
    }
}

mod group {
    criterion::criterion_group!(benches, super::bench);
}
criterion_main!(group::benches);
