//! One `Multi` request of 1,000 puts to one region (24-byte rows, one cell of 200
//! bytes each, as the peer bench writes), from the caller's rows to the framed call:
//!
//! - `inline`: each put copied into a `Mutation`, then into a `MutationProto` with the
//!   value inside the message, then encoded (how a batch sent writes before);
//! - `cell_block`: a data-free `MutationProto` per put, the cells written once into the
//!   request's cell block through [`WriteCells`] (how a batch sends them now).
//!
//! Both end with the call framed as the connection frames it. The rows are fresh
//! `Bytes` for every iteration (built untimed), as a caller's puts are. Read the
//! result as the ratio inline / cell_block of the same run.
//!
//! `cargo bench -p basalt-rpc --bench encode --features bench-internals`

use basalt_rpc::bench_internals::{multi_cells, multi_inline};
use basalt_rpc::{CellWriter, Durability, Mutation, RpcError, WriteCells, WriteKind};
use basalt_rpc_protocol::call::{encode_call, CallHead};
use bytes::{Bytes, BytesMut};
use criterion::{criterion_main, BatchSize, Criterion, Throughput};

const ROWS: usize = 1_000;

/// A caller's put: row, family, qualifier, value.
struct Row {
    row: Bytes,
    family: Bytes,
    qualifier: Bytes,
    value: Bytes,
}

fn rows() -> Vec<Row> {
    (0..ROWS)
        .map(|i| Row {
            row: Bytes::from(format!("{:02}{:02}{:020}", i % 16, i % 7, i)),
            family: Bytes::from(b"d".to_vec()),
            qualifier: Bytes::from(b"v".to_vec()),
            value: Bytes::from(vec![b'x'; 200]),
        })
        .collect()
}

/// The caller's put as a batch encodes it.
struct View<'a>(&'a Row);

impl WriteCells for View<'_> {
    fn row(&self) -> &Bytes {
        &self.0.row
    }

    fn kind(&self) -> WriteKind {
        WriteKind::Put
    }

    fn timestamp(&self) -> Option<u64> {
        None
    }

    fn durability(&self) -> Option<Durability> {
        Some(Durability::UseDefault)
    }

    fn cells_len_hint(&self) -> usize {
        CellWriter::cell_len(&self.0.row, &self.0.family, &self.0.qualifier, &self.0.value)
    }

    fn write_cells(&self, cells: &mut CellWriter<'_>) -> Result<(), RpcError> {
        cells.put(&self.0.family, &self.0.qualifier, &self.0.value, None)
    }
}

fn head() -> CallHead<'static> {
    CallHead { call_id: 1, method_name: "Multi", priority: None, timeout_ms: Some(30_000) }
}

fn inline(region: &Bytes, rows: &[Row]) -> usize {
    let mutations: Vec<Mutation> = rows
        .iter()
        .map(|r| {
            Mutation::put(r.row.clone()).durability(Durability::UseDefault).column(
                r.family.clone(),
                r.qualifier.clone(),
                r.value.clone(),
            )
        })
        .collect();
    let request = multi_inline(region, &mutations);
    let mut frame = BytesMut::new();
    encode_call(&head(), &request, &[], &mut frame).expect("a frame");
    frame.len()
}

fn cell_block(region: &Bytes, rows: &[Row]) -> usize {
    let writes: Vec<View<'_>> = rows.iter().map(View).collect();
    let mut cells = BytesMut::new();
    let request = multi_cells(region, &writes, &mut cells).expect("valid writes");
    let mut frame = BytesMut::new();
    encode_call(&head(), &request, &cells, &mut frame).expect("a frame");
    frame.len()
}

fn benches() {
    let mut c = Criterion::default().configure_from_args();
    let region = Bytes::from_static(b"peer,05,1700000000000.0123456789abcdef0123456789abcdef.");
    let mut group = c.benchmark_group("multi_1000_puts");
    group.throughput(Throughput::Elements(ROWS as u64));
    group.bench_function("inline", |b| {
        b.iter_batched_ref(rows, |rows| std::hint::black_box(inline(&region, rows)), BatchSize::LargeInput)
    });
    group.bench_function("cell_block", |b| {
        b.iter_batched_ref(rows, |rows| std::hint::black_box(cell_block(&region, rows)), BatchSize::LargeInput)
    });
    group.finish();
    c.final_summary();
}

criterion_main!(benches);
