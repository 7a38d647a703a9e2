//! Random gets from many tasks against a running gateway: throughput, p50, p99 and
//! client CPU per get, for the first gets of a fresh client (cold: connection set-up
//! included) and again on the same client (warm).
//!
//! ```sh
//! cargo run -p basalt-hbase --release --example bench_gets -- --addr 127.0.0.1:9090 \
//!     [--table NAME] [--load ROWS] [--gets 20000] [--tasks 16] [--rounds 2] \
//!     [--gets-in-flight N]
//! ```
//!
//! `--load ROWS` creates the table and writes ROWS rows of 200 B first (keys
//! `row00000000`..); without it the table must exist. Run two builds one after the
//! other against the same table and compare them as ratios. Prints figures only.

use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt::{Client, ColumnFamily, Get, Put, TableDescriptor};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn key(i: usize) -> String {
    format!("row{i:08}")
}

/// This process's user + system CPU time (Linux; zero elsewhere).
fn cpu_time() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return Duration::ZERO };
    // Fields after the command name (which ends with the last ')'): utime is the 12th
    // and stime the 13th of them; both in clock ticks (100 per second on Linux).
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else { return Duration::ZERO };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

async fn gets(client: &Client, table: &str, picks: Arc<[usize]>, tasks: usize) -> Result<Vec<Duration>, BoxError> {
    let mut handles = Vec::new();
    for k in 0..tasks {
        let (table, picks) = (client.table(table)?, Arc::clone(&picks));
        handles.push(tokio::spawn(async move {
            let mut out = Vec::with_capacity(picks.len() / tasks + 1);
            for &i in picks.iter().skip(k).step_by(tasks) {
                let started = Instant::now();
                let row = table.get(Get::new(key(i))).await?;
                out.push(started.elapsed());
                if row.is_empty() {
                    return Err::<_, BoxError>(format!("row {i} missing").into());
                }
            }
            Ok(out)
        }));
    }
    let mut all = Vec::new();
    for h in handles {
        all.extend(h.await??);
    }
    all.sort();
    Ok(all)
}

fn report(label: &str, lat: &[Duration], wall: Duration, cpu: Duration) {
    let pick = |q: f64| lat.get(((lat.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or_default();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{label:<12} {:>8.0} gets/s  p50 {:>6.2} ms  p99 {:>6.2} ms  max {:>7.2} ms  cpu {:>5.1} us/get",
        lat.len() as f64 / wall.as_secs_f64(),
        ms(pick(0.5)),
        ms(pick(0.99)),
        ms(lat.last().copied().unwrap_or_default()),
        cpu.as_secs_f64() * 1e6 / lat.len().max(1) as f64,
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), BoxError> {
    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let addr = value("--addr").ok_or("--addr HOST:PORT is required")?;
    let table = value("--table").unwrap_or_else(|| "bench_gets".into());
    let n: usize = value("--gets").map(|s| s.parse()).transpose()?.unwrap_or(20_000);
    let tasks: usize = value("--tasks").map(|s| s.parse()).transpose()?.unwrap_or(16);
    let rounds: usize = value("--rounds").map(|s| s.parse()).transpose()?.unwrap_or(2);
    let label = value("--label").unwrap_or_default();
    if let Some(rows) = value("--load") {
        let rows: usize = rows.parse()?;
        let client = Client::connect_to(&addr)?;
        let descriptor = TableDescriptor::new(table.clone()).family(ColumnFamily::new("d"));
        client.admin().create_table(&descriptor, &[]).await?;
        client.table(&table)?.put_many((0..rows).map(|i| Put::new(key(i)).cell("d", "v", vec![b'x'; 200]))).await?;
        println!("loaded {rows} rows into {table}");
        return Ok(());
    }
    let rows: usize = value("--rows").map(|s| s.parse()).transpose()?.unwrap_or(20_000);
    let mut state = 42u64 ^ u64::from(std::process::id());
    let picks: Arc<[usize]> = (0..n)
        .map(|_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) % rows as u64) as usize
        })
        .collect();
    let mut builder = Client::builder().address(&addr).pool_size(16);
    if let Some(calls) = value("--gets-in-flight") {
        builder = builder.gets_in_flight(calls.parse()?);
    }
    let client = builder.build()?;
    for round in 0..rounds {
        let (started, cpu) = (Instant::now(), cpu_time());
        let lat = gets(&client, &table, Arc::clone(&picks), tasks).await?;
        let what = if round == 0 { "cold" } else { "warm" };
        report(&format!("{label} {what}"), &lat, started.elapsed(), cpu_time().saturating_sub(cpu));
    }
    Ok(())
}
