//! Focused differential grids: a few rows written through both clients, then every
//! combination of a small set of scan options read through both (the comparison of
//! `mod.rs`). Each grid is the smallest reproduction of one class of issue 25 and runs
//! in seconds, so a class is checked in full, not only where a seed happens to reach it.
//!
//! - `limits_batches_over_a_split`: limit with batch across a region boundary, forward
//!   and reversed, with and without a column selection and max versions (a scan with
//!   limit 5, batch 3 and columns `[c:q0, c:\xff, a:*]` over a split gave 9 items where
//!   Java gave 13).

use basalt::Bytes;

use super::gen::b;
use super::java::JavaTool;
use super::model::{Opts, PutD, Read, ScanD, Write};
use super::{create_table, phase, Run};
use crate::support::{Env, TestResult};
use crate::tests;

pub fn trials() -> Vec<crate::support::Test> {
    tests![limits_batches_over_a_split]
}

/// Rows on both sides of the split `k\x80` (see [`super::gen::SPLITS`]): versions of
/// `c` (5 kept) and `a` (3 kept) in varying numbers, so batches end at every place in a
/// row, and the last row of the first region ends on hidden versions.
fn split_rows() -> Vec<Write> {
    let rows: [(&[u8], usize); 6] = [(b"k5", 2), (b"kz", 3), (b"kz5", 4), (b"k\x80", 1), (b"k\x805", 4), (b"k\xff", 3)];
    let mut w = Vec::new();
    for (row, n) in rows {
        let mut cells = Vec::new();
        for v in 0..n as i64 {
            for (f, q) in [(&b"c"[..], &b"q0"[..]), (b"c", b"\xff"), (b"a", b"q1")] {
                cells.push((b(f), b(q), Bytes::from(format!("{v}")), Some(10 + v)));
            }
        }
        if n % 2 == 0 {
            cells.push((b(b"a"), b(b""), b(b"e"), Some(7)));
            cells.push((b(b"b"), b(b"q0"), b(b"x"), Some(7)));
        }
        w.push(Write::Put(PutD { row: b(row), ts: None, cells }));
    }
    w
}

/// Every combination of limit, batch, selection, max versions and direction over the
/// split, with the Java client's default caching and with a small one (where replies
/// end decides Java's count of a limit with batch).
fn split_reads() -> Vec<(String, Read)> {
    let selections: [Vec<(Bytes, Option<Bytes>)>; 2] =
        [Vec::new(), vec![(b(b"c"), Some(b(b"q0"))), (b(b"c"), Some(b(b"\xff"))), (b(b"a"), None)]];
    let mut out = Vec::new();
    for reversed in [false, true] {
        for columns in &selections {
            for max_versions in [None, Some(2)] {
                for (batch, caching) in (1..=4).flat_map(|b| [(b, None), (b, Some(1 + b % 3))]) {
                    for limit in 1..=6 {
                        let scan = ScanD {
                            caching,
                            start: b(b"k"),
                            stop: b(b"l"),
                            reversed,
                            limit: Some(limit),
                            batch: Some(batch),
                            opts: Opts { columns: columns.clone(), max_versions, ..Opts::default() },
                            ..ScanD::default()
                        };
                        out.push((format!("split grid {}", out.len()), Read::Scan(scan)));
                    }
                }
            }
        }
    }
    out
}

/// Writes `writes` through both clients to two new tables, runs `reads` through both,
/// and fails on any mismatch (each printed).
async fn grid(env: Env, name: &str, writes: Vec<Write>, reads: Vec<(String, Read)>) -> TestResult {
    let client = env.client_builder().retry_budget(std::time::Duration::from_secs(5)).build()?;
    let (a, b) =
        (create_table(&client, &env.unique("grid_a")).await?, create_table(&client, &env.unique("grid_b")).await?);
    let java_env = env.clone();
    let tool = tokio::task::spawn_blocking(move || JavaTool::start(&java_env)).await??;
    let mut run = Run::default();
    let outcome = phase(tool, &a, &b, &writes, &reads, &mut run).await;
    let admin = client.admin();
    for t in [&a, &b] {
        let _ = admin.disable_table(t.name()).await;
        let _ = admin.delete_table(t.name()).await;
    }
    drop(outcome?);
    eprintln!("grid {name}:");
    run.finish(0)
}

async fn limits_batches_over_a_split(env: Env) -> TestResult {
    grid(env, "limits and batches over a split", split_rows(), split_reads()).await
}
