//! Encode/decode cost of a 3-field salted key, against a plain concatenation baseline.
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

use basalt_rowkey::{FieldType, HashAlgo, Salt, Schema, TimeUnit, TsFormat, Value, Width};
use criterion::{criterion_group, criterion_main, Criterion};

fn schema() -> Schema {
    Schema::builder()
        .field("host", FieldType::Str(Width::Variable))
        .field("event", FieldType::U16)
        .field("ts", FieldType::Timestamp { unit: TimeUnit::Millis, format: TsFormat::ReverseLong })
        .salt(Salt::hash(HashAlgo::Murmur3 { seed: 0 }, &["host"], 16))
        .build()
        .unwrap()
}

fn benches(c: &mut Criterion) {
    let s = schema();
    let values = vec![Value::str("web-042.example.org"), Value::UInt(17), Value::Timestamp(1_700_000_000_123)];
    let key = s.encode(&values).unwrap();

    let mut g = c.benchmark_group("encode");
    g.bench_function("schema_salted_3_fields", |b| b.iter(|| s.encode(black_box(&values)).unwrap()));
    // Baseline: the same raw bytes concatenated into a Vec (no hashing, no escaping).
    g.bench_function("baseline_vec_concat", |b| {
        b.iter(|| {
            let host = black_box("web-042.example.org").as_bytes();
            let mut v = Vec::with_capacity(1 + host.len() + 2 + 2 + 8);
            v.push(black_box(3u8));
            v.extend_from_slice(host);
            v.extend_from_slice(&[0, 1]);
            v.extend_from_slice(&black_box(17u16).to_be_bytes());
            v.extend_from_slice(&(i64::MAX - black_box(1_700_000_000_123i64)).to_be_bytes());
            bytes::Bytes::from(v)
        })
    });
    g.finish();

    let mut g = c.benchmark_group("decode");
    g.bench_function("schema_salted_3_fields", |b| b.iter(|| s.decode(black_box(&key)).unwrap()));
    // Baseline: slice the known layout and build owned values (no salt check).
    g.bench_function("baseline_split", |b| {
        b.iter(|| {
            let k: &[u8] = black_box(&key);
            let end = k.len() - 10;
            let host = String::from_utf8(k[1..end - 2].to_vec()).unwrap();
            let ev = u16::from_be_bytes([k[end], k[end + 1]]);
            let mut t = [0u8; 8];
            t.copy_from_slice(&k[end + 2..]);
            (host, ev, i64::MAX - i64::from_be_bytes(t))
        })
    });
    g.finish();
}

criterion_group!(rowkey, benches);
criterion_main!(rowkey);
