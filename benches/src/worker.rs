//! The Basalt side of the peer bench (`benches/run.sh`): a long-lived worker that reads
//! one command per line on stdin and answers one JSON line on stdout, like the Python
//! and Java workers in `benches/peers/`. The driver (`benches/peers/driver.py`) sends
//! the same commands to every worker on the same data.
//!
//! ```text
//! worker --addr 127.0.0.1:9090 --salts 16 [--native HOST:PORT,HOST:PORT]
//! create TABLE | drop TABLE | write TABLE ROWS | scan TABLE | scan_ahead TABLE
//! merged TABLE | prefix TABLE DAY | gets TABLE TASKS FILE | floor TABLE | quit
//! ```
//!
//! `scan_ahead` is the full scan as a user wanting speed writes it: the same rows in the
//! same order, with [`AHEAD_REGIONS`] regions read at once (`Scan::parallel_regions`).
//!
//! `floor` is a full scan whose filter returns nothing: the region server reads every
//! row and sends none, so its CPU over the command is what HBase itself spends.
//!
//! With `--native`, reads and writes take HBase's native RPC to the region servers,
//! bootstrapping from the servers listed (`Client::builder().native(..)`); admin (create,
//! drop) stays on the Thrift2 gateway at `--addr`.
//!
//! Each answer carries the rows seen, the wall time, the process's own CPU seconds
//! (`/proc/self/stat`, user + system, all threads) over the workload, and an MD5 of the
//! row keys in the order returned (computed after the clock stops).

mod keys;

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt::{Bytes, Client, ColumnFamily, Comparator, CompareOp, Filter, Get, Put, Row, Scan, TableDescriptor};
use basalt_rowkey::{FieldType, Query, Salt, Schema, Value};
use futures::TryStreamExt;
use md5::{Digest, Md5};

use crate::keys::{cpu_seconds, row_key, row_value, seq, DAYS, FAMILY, QUALIFIER};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const PAGE: u32 = 1000;

/// Regions the `scan_ahead` workload reads at once.
const AHEAD_REGIONS: usize = 4;

/// The full scan's settings: the library's default (`Scan::new()`: pages grow from 100
/// rows toward ~2 MiB), or as `BASALT_BENCH_SCAN` says: `fixed` (pages of [`PAGE`]
/// rows), `parallel:N` (`parallel_regions(N)`, growing pages).
fn full_scan() -> Scan {
    let how = std::env::var("BASALT_BENCH_SCAN").unwrap_or_default();
    if how == "fixed" {
        return Scan::new().caching(PAGE);
    }
    match how.strip_prefix("parallel:").and_then(|n| n.parse::<usize>().ok()) {
        Some(n) => Scan::new().parallel_regions(n),
        None => Scan::new(),
    }
}

/// The key design every client writes: `salt(seq % S) day(2) seq(20)`, all decimal.
/// A row's key as the digest keeps it: a copy, as the Java worker keeps one
/// (`Result.getRow` copies the key), so that the keys kept until the run ends do not
/// hold on to every reply they were read from.
fn kept_key(row: &Row) -> Bytes {
    Bytes::copy_from_slice(row.key())
}

fn schema(salts: u32) -> Result<Schema, BoxError> {
    Ok(Schema::builder()
        .field("day", FieldType::Decimal { digits: 2 })
        .field("seq", FieldType::Decimal { digits: 20 })
        .salt(Salt::modulo("seq", salts))
        .build()?)
}

struct Outcome {
    rows: u64,
    wall: Duration,
    cpu: f64,
    keys: Vec<Bytes>,
    latencies: Vec<Duration>,
}

impl Outcome {
    fn json(&self) -> String {
        let mut md5 = Md5::new();
        for key in &self.keys {
            md5.update(key);
            md5.update(b"\n");
        }
        let digest: String = md5.finalize().iter().map(|b| format!("{b:02x}")).collect();
        let mut lat = self.latencies.clone();
        lat.sort_unstable();
        let at = |q: usize| {
            lat.get((lat.len() * q / 100).min(lat.len().saturating_sub(1))).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
        };
        format!(
            "{{\"ok\":true,\"rows\":{},\"wall_s\":{:.6},\"cpu_s\":{:.3},\"digest\":\"{digest}\",\"p50_ms\":{:.4},\"p99_ms\":{:.4}}}",
            self.rows,
            self.wall.as_secs_f64(),
            self.cpu,
            at(50),
            at(99)
        )
    }
}

/// Runs `work` between two readings of the clock and of the process's CPU time.
async fn measured<F>(work: F) -> Result<Outcome, BoxError>
where
    F: std::future::Future<Output = Result<(Vec<Bytes>, Vec<Duration>), BoxError>>,
{
    let (cpu0, started) = (cpu_seconds()?, Instant::now());
    let (keys, latencies) = work.await?;
    let (wall, cpu) = (started.elapsed(), cpu_seconds()? - cpu0);
    Ok(Outcome { rows: keys.len() as u64, wall, cpu, keys, latencies })
}

struct Worker {
    client: Client,
    schema: Schema,
    salts: u32,
    /// Batch calls in flight at once for writes (`None`: the library's default); set
    /// from BASALT_BENCH_NATIVE_WRITE_CONCURRENCY for the native route only.
    write_concurrency: Option<usize>,
}

impl Worker {
    async fn command(&self, line: &str) -> Result<Option<Outcome>, BoxError> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let arg = |i: usize| words.get(i).copied().ok_or_else(|| format!("{line:?}: argument {i} missing"));
        match words.first().copied() {
            Some("create") => {
                let splits: Vec<Bytes> = (1..self.salts).map(|b| self.schema.salt_prefix(b)).collect();
                let desc = TableDescriptor::new(arg(1)?).family(ColumnFamily::new(FAMILY));
                self.client.admin().create_table(&desc, &splits).await?;
                Ok(None)
            }
            Some("drop") => {
                self.client.admin().delete_table(arg(1)?).await?;
                Ok(None)
            }
            Some("write") => {
                let (mut table, rows) = (self.client.table(arg(1)?)?, arg(2)?.parse::<u64>()?);
                // BASALT_BENCH_BATCH_ROWS=N: rows per batch call (the library's default
                // otherwise), to measure that setting.
                if let Some(n) = std::env::var("BASALT_BENCH_BATCH_ROWS").ok().and_then(|v| v.parse().ok()) {
                    table = table.with_batch_rows(n);
                }
                if let Some(n) = self.write_concurrency {
                    table = table.with_write_concurrency(n);
                }
                let schema = &self.schema;
                let outcome = measured(async {
                    let puts = (0..rows)
                        .map(|i| {
                            let key = schema.encode(&[Value::UInt(i % DAYS), Value::UInt(seq(i))])?;
                            Ok(Put::new(key).cell(FAMILY, QUALIFIER, row_value(i)))
                        })
                        .collect::<Result<Vec<Put>, BoxError>>()?;
                    table.put_many(puts).await?;
                    Ok((Vec::new(), Vec::new()))
                })
                .await?;
                // The keys written, in the order written, for the digest (off the clock).
                let keys = (0..rows).map(|i| Bytes::from(row_key(i, self.salts))).collect();
                Ok(Some(Outcome { rows, keys, ..outcome }))
            }
            Some(kind @ ("scan" | "scan_ahead")) => {
                let table = self.client.table(arg(1)?)?;
                let scan = match kind {
                    "scan" => full_scan(),
                    _ => Scan::new().parallel_regions(AHEAD_REGIONS),
                };
                Ok(Some(
                    measured(async {
                        let mut stream = table.scan(scan)?;
                        let mut keys = Vec::new();
                        while let Some(row) = stream.try_next().await? {
                            keys.push(kept_key(&row));
                        }
                        // To the worker's log: how the scan went (pages, recoveries).
                        let stats = stream.stats();
                        eprintln!(
                            "{kind}: {} rows in {} pages, {} reopens, {} refused pages",
                            stats.rows(),
                            stats.pages(),
                            stats.reopens(),
                            stats.rejected_pages()
                        );
                        Ok((keys, Vec::new()))
                    })
                    .await?,
                ))
            }
            Some("floor") => {
                // The region server's own cost: every row read, none returned (no value
                // is the single byte 0), so the client does next to nothing.
                let table = self.client.table(arg(1)?)?;
                let nothing = Filter::value(CompareOp::Equal, Comparator::binary(Bytes::from_static(b"\0")));
                Ok(Some(
                    measured(async {
                        let mut stream = table.scan(Scan::new().filter(nothing))?;
                        let mut keys = Vec::new();
                        while let Some(row) = stream.try_next().await? {
                            keys.push(kept_key(&row));
                        }
                        Ok((keys, Vec::new()))
                    })
                    .await?,
                ))
            }
            Some("merged") | Some("prefix") => {
                let salted = self.client.table(arg(1)?)?.salted(self.schema.clone());
                let query = match words[0] {
                    "prefix" => Query::new().fixed(Value::UInt(arg(2)?.parse()?)),
                    _ => Query::new(),
                };
                Ok(Some(
                    measured(async {
                        let mut stream = salted.scan(query).template(Scan::new().caching(PAGE)).stream().await?;
                        let mut keys = Vec::new();
                        while let Some(row) = stream.try_next().await? {
                            keys.push(kept_key(&row.row));
                        }
                        Ok((keys, Vec::new()))
                    })
                    .await?,
                ))
            }
            Some("gets") => {
                let (name, tasks) = (arg(1)?, arg(2)?.parse::<usize>()?);
                let wanted: Arc<[Bytes]> = std::fs::read_to_string(arg(3)?)?
                    .lines()
                    .map(|l| Ok(Bytes::from(row_key(l.trim().parse()?, self.salts))))
                    .collect::<Result<Vec<_>, BoxError>>()?
                    .into();
                Ok(Some(measured(self.gets(name, tasks, wanted)).await?))
            }
            Some(other) => Err(format!("unknown command {other:?}").into()),
            None => Err("empty command".into()),
        }
    }

    /// `tasks` concurrent tasks, task k getting every k-th key; keys answered in the
    /// order asked, and every call's latency.
    async fn gets(
        &self,
        name: &str,
        tasks: usize,
        wanted: Arc<[Bytes]>,
    ) -> Result<(Vec<Bytes>, Vec<Duration>), BoxError> {
        let mut handles = Vec::new();
        for k in 0..tasks {
            let (table, wanted) = (self.client.table(name)?, wanted.clone());
            handles.push(tokio::spawn(async move {
                let mut got = Vec::with_capacity(wanted.len() / tasks + 1);
                for key in wanted.iter().skip(k).step_by(tasks) {
                    let started = Instant::now();
                    let row = table.get(Get::new(key.clone())).await?;
                    got.push((kept_key(&row), started.elapsed()));
                }
                Ok::<_, BoxError>(got)
            }));
        }
        let mut per_task = Vec::new();
        for handle in handles {
            per_task.push(handle.await??.into_iter());
        }
        let (mut keys, mut latencies) = (Vec::with_capacity(wanted.len()), Vec::with_capacity(wanted.len()));
        for i in 0..wanted.len() {
            let (key, latency) = per_task[i % tasks].next().ok_or("a task answered too few gets")?;
            keys.push(key);
            latencies.push(latency);
        }
        Ok((keys, latencies))
    }
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let (Some(addr), Some(salts)) = (value("--addr"), value("--salts").and_then(|s| s.parse::<u32>().ok())) else {
        eprintln!("usage: worker --addr HOST:PORT --salts S [--native HOST:PORT,..] (then commands on stdin)");
        return std::process::ExitCode::from(2);
    };
    let native: Vec<String> = value("--native")
        .map(|list| list.split(',').filter(|s| !s.is_empty()).map(str::to_owned).collect())
        .unwrap_or_default();
    match serve(addr, salts, native) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("worker: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn serve(addr: String, salts: u32, native: Vec<String>) -> Result<(), BoxError> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let mut builder = Client::builder().address(addr).pool_size(16);
    // BASALT_BENCH_GETS_IN_FLIGHT=N: single gets sent at once before later ones are
    // coalesced (the library's default otherwise), to measure the coalescer's setting.
    if let Some(n) = std::env::var("BASALT_BENCH_GETS_IN_FLIGHT").ok().and_then(|v| v.parse().ok()) {
        builder = builder.gets_in_flight(n);
    }
    let transport = if native.is_empty() { "basalt" } else { "basalt-native" };
    let client = if native.is_empty() { builder } else { builder.native(native) }.build()?;
    // BASALT_BENCH_NATIVE_WRITE_CONCURRENCY=N: native batch calls in flight at once
    // (the library's default otherwise), to measure that setting beside the gateway's.
    let write_concurrency = std::env::var("BASALT_BENCH_NATIVE_WRITE_CONCURRENCY")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|_| transport == "basalt-native");
    let worker = Worker { client, schema: schema(salts)?, salts, write_concurrency };
    // The schema and the formula the peers use must agree on every key.
    for i in [0, 1, 99, 12_345] {
        let key = worker.schema.encode(&[Value::UInt(i % DAYS), Value::UInt(seq(i))])?;
        if key[..] != row_key(i, salts)[..] {
            return Err(format!("schema key {key:?} differs from the peers' key for row {i}").into());
        }
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{{\"ok\":true,\"ready\":\"{transport}\"}}")?;
    out.flush()?;
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.trim() == "quit" {
            break;
        }
        let answer = match runtime.block_on(worker.command(&line)) {
            Ok(Some(outcome)) => outcome.json(),
            Ok(None) => "{\"ok\":true}".to_owned(),
            Err(e) => format!("{{\"ok\":false,\"error\":{:?}}}", e.to_string()),
        };
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    Ok(())
}
