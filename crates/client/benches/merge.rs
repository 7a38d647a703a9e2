//! The in-memory k-way merge of 16 ordered streams totalling 1M rows, ascending and
//! descending, against plainly concatenating the same streams (the floor for moving the
//! rows). Read the result as the ratio merge / concat of the same run.
//!
//! `cargo bench -p basalt --bench merge`

use basalt::{merge_ordered, Bytes, Result, Row};
use criterion::{criterion_main, BatchSize, Criterion, Throughput};
use futures::executor::block_on;
use futures::{stream, StreamExt};

const BUCKETS: usize = 16;
const ROWS: usize = 1_000_000;

/// 16 buckets of salted keys `[bucket][user id as 12 digits]`, each sorted.
fn buckets() -> Vec<Vec<Row>> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut out: Vec<Vec<Row>> = (0..BUCKETS).map(|_| Vec::with_capacity(ROWS / BUCKETS + 1)).collect();
    for _ in 0..ROWS {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let bucket = (state % BUCKETS as u64) as usize;
        let key = format!("{}{:012}", bucket as u8 as char, state % 1_000_000_000_000);
        out[bucket].push(Row::new(Bytes::from(key), []));
    }
    for rows in &mut out {
        rows.sort_by(|a, b| a.key().cmp(b.key()));
    }
    out
}

fn sources(buckets: &[Vec<Row>]) -> Vec<stream::Iter<std::vec::IntoIter<Result<Row>>>> {
    buckets.iter().map(|rows| stream::iter(rows.iter().cloned().map(Ok).collect::<Vec<_>>())).collect()
}

fn bench(c: &mut Criterion) {
    let data = buckets();
    let descending: Vec<Vec<Row>> = data.iter().map(|rows| rows.iter().rev().cloned().collect()).collect();
    let mut group = c.benchmark_group("merge_16x1M");
    group.sample_size(10);
    group.throughput(Throughput::Elements(ROWS as u64));
    group.bench_function("concat_floor", |b| {
        b.iter_batched(
            || sources(&data),
            |s| block_on(stream::iter(s).flatten().fold(0usize, |n, r| async move { n + r.map(|_| 1).unwrap_or(0) })),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("tree_of_losers_ascending", |b| {
        b.iter_batched(
            || sources(&data),
            |s| {
                let merged = merge_ordered(s, false, |_: &[u8]| Ok(1));
                block_on(merged.fold(0usize, |n, r| async move { n + r.map(|_| 1).unwrap_or(0) }))
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("tree_of_losers_descending", |b| {
        b.iter_batched(
            || sources(&descending),
            |s| {
                let merged = merge_ordered(s, true, |_: &[u8]| Ok(1));
                block_on(merged.fold(0usize, |n, r| async move { n + r.map(|_| 1).unwrap_or(0) }))
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

mod group {
    criterion::criterion_group!(benches, super::bench);
}
criterion_main!(group::benches);
