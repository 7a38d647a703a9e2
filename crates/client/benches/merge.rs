//! The in-memory k-way merge of 16 ordered streams totalling 1M rows, ascending and
//! descending, against plainly concatenating the same streams (the floor for moving the
//! rows). Read the result as the ratio merge / concat of the same run.
//!
//! With `--features bench-internals`, also the whole merged salted stream (what a
//! salted scan's caller polls: salt prefixes, the merge, cursor positions) over 16
//! buckets of pages of 1,000 rows already fetched, keys as in `benches/run.sh`
//! (`salt(2) day(2) seq(20)`, decimal).
//!
//! Times are the bench thread's CPU time (`/proc/thread-self/schedstat`), not wall
//! time: everything runs on that thread, and on a shared, loaded machine wall time
//! mostly measures the other processes.
//!
//! `cargo bench -p basalt-hbase --bench merge [--features bench-internals]`

use basalt::{merge_ordered, Bytes, Result, Row};
use criterion::measurement::{Measurement, ValueFormatter};
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

/// The calling thread's CPU time so far, in nanoseconds (Linux).
fn thread_cpu_ns() -> u64 {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").expect("/proc/thread-self/schedstat (Linux)");
    text.split_whitespace().next().and_then(|n| n.parse().ok()).expect("schedstat starts with the CPU time in ns")
}

/// Criterion's measurement as the bench thread's CPU time.
pub struct ThreadCpu;

impl Measurement for ThreadCpu {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, started: u64) -> u64 {
        thread_cpu_ns().saturating_sub(started)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, value: &u64) -> f64 {
        *value as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuFormatter
    }
}

/// Nanoseconds of CPU shown as ms of CPU; throughput as elements per CPU second.
struct CpuFormatter;

impl ValueFormatter for CpuFormatter {
    fn scale_values(&self, _typical: f64, values: &mut [f64]) -> &'static str {
        values.iter_mut().for_each(|v| *v /= 1e6);
        "ms cpu"
    }
    fn scale_throughputs(&self, _typical: f64, throughput: &Throughput, values: &mut [f64]) -> &'static str {
        let n = match throughput {
            Throughput::Elements(n) | Throughput::Bytes(n) | Throughput::BytesDecimal(n) => *n as f64,
        };
        values.iter_mut().for_each(|v| *v = n / (*v / 1e9) / 1e6);
        "M/cpu s"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns cpu"
    }
}

fn bench(c: &mut Criterion<ThreadCpu>) {
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
    #[cfg(feature = "bench-internals")]
    salted::bench(c);
}

#[cfg(feature = "bench-internals")]
mod salted {
    use basalt::bench_internals::salted_stream_from_pages;
    use basalt::{Bytes, Row};
    use basalt_rowkey::{FieldType, Query, Salt, Schema, Value};
    use criterion::{BatchSize, Criterion, Throughput};
    use futures::StreamExt;

    const BUCKETS: u32 = 16;
    const ROWS: u64 = 500_000;
    const PAGE: usize = 1000;

    fn schema() -> Schema {
        Schema::builder()
            .field("day", FieldType::Decimal { digits: 2 })
            .field("seq", FieldType::Decimal { digits: 20 })
            .salt(Salt::modulo("seq", BUCKETS))
            .build()
            .expect("the bench's schema")
    }

    /// Each bucket's rows, sorted in the scan's direction, cut into pages.
    fn pages(schema: &Schema, descending: bool) -> Vec<Vec<Vec<Row>>> {
        let mut per_bucket: Vec<Vec<Bytes>> = vec![Vec::new(); BUCKETS as usize];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for i in 0..ROWS {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let key = schema.encode(&[Value::UInt(i % 100), Value::UInt(state)]).expect("a key");
            let bucket = usize::from(key[0] - b'0') * 10 + usize::from(key[1] - b'0');
            per_bucket[bucket].push(key);
        }
        per_bucket
            .into_iter()
            .map(|mut keys| {
                keys.sort();
                if descending {
                    keys.reverse();
                }
                keys.chunks(PAGE).map(|page| page.iter().map(|key| Row::new(key.clone(), [])).collect()).collect()
            })
            .collect()
    }

    pub fn bench(c: &mut Criterion<super::ThreadCpu>) {
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
        let schema = schema();
        let mut group = c.benchmark_group("salted_stream_16x500k");
        group.sample_size(10);
        group.throughput(Throughput::Elements(ROWS));
        for descending in [false, true] {
            let plan = schema.plan(&Query::new().reverse(descending)).expect("a plan");
            let data = pages(&schema, descending);
            let name = if descending { "descending" } else { "ascending" };
            group.bench_function(name, |b| {
                b.iter_batched(
                    || salted_stream_from_pages(schema.clone(), &plan, data.clone()).expect("a stream"),
                    |stream| {
                        let n =
                            runtime.block_on(stream.fold(0usize, |n, r| async move { n + r.map(|_| 1).unwrap_or(0) }));
                        assert_eq!(n as u64, ROWS);
                    },
                    BatchSize::LargeInput,
                )
            });
        }
        group.finish();
    }
}

mod group {
    criterion::criterion_group! {
        name = benches;
        config = criterion::Criterion::default().with_measurement(super::ThreadCpu);
        targets = super::bench
    }
}
criterion_main!(group::benches);
