//! Full-scan speed of the page sizes and of region-parallel scans, in one run.
//!
//! ```text
//! cargo run --release -p basalt-hbase --example bench_parallel_scan -- \
//!     --addr 127.0.0.1:9090 [--rows 500000] [--rounds 3] [--regions 16]
//! ```
//!
//! Creates (once; reused when it already holds the rows) a table pre-split into
//! `--regions` regions by a two-digit salt, `salt|seq` keys and 200-byte values, like
//! `benches/run.sh`'s table, then scans it in full, in interleaved rounds, as: the old
//! default paging (fixed 500-row pages), fixed 1000-row pages (the peer bench's
//! setting), growing pages (caching unset), and `parallel_regions(4/8/16)`. Every
//! variant must return the same keys in the same order (checked with a hash). Prints a
//! markdown table: rows/s (best round), the ratio to the old paging, the process's CPU
//! seconds per million rows (median), time to the first row, and the load average.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

use basalt::{Bytes, Client, ColumnFamily, Put, Scan, TableDescriptor};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const TABLE: &str = "bench_parallel_scan";

struct Args {
    addr: String,
    rows: u64,
    rounds: usize,
    regions: u32,
}

fn args() -> Result<Args, BoxError> {
    let argv: Vec<String> = std::env::args().collect();
    let value = |name: &str| argv.iter().position(|a| a == name).and_then(|i| argv.get(i + 1)).cloned();
    Ok(Args {
        addr: value("--addr").ok_or("usage: bench_parallel_scan --addr HOST:PORT [--rows N] [--rounds N]")?,
        rows: value("--rows").map(|v| v.parse()).transpose()?.unwrap_or(500_000),
        rounds: value("--rounds").map(|v| v.parse()).transpose()?.unwrap_or(3),
        regions: value("--regions").map(|v| v.parse()).transpose()?.unwrap_or(16),
    })
}

fn key(i: u64, regions: u32) -> Vec<u8> {
    format!("{:02}|{i:020}", i % u64::from(regions)).into_bytes()
}

/// User + system CPU seconds of this process, all threads.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // Fields 14 and 15 (utime, stime) are at 11 and 12 after the command name.
    (ticks(11) + ticks(12)) / 100.0
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").unwrap_or_default().split_whitespace().next().unwrap_or("?").to_owned()
}

async fn prepare(client: &Client, args: &Args) -> Result<(), BoxError> {
    let table = client.table(TABLE)?;
    if client.admin().table_exists(TABLE).await? {
        let seen = count(client, Scan::new().caching(5000).filter(basalt::Filter::first_key_only())).await?;
        if seen == args.rows {
            eprintln!("reusing {TABLE} ({seen} rows)");
            return Ok(());
        }
        client.admin().disable_table(TABLE).await?;
        client.admin().delete_table(TABLE).await?;
    }
    let splits: Vec<Bytes> = (1..args.regions).map(|s| Bytes::from(format!("{s:02}"))).collect();
    let desc = TableDescriptor::new(TABLE).family(ColumnFamily::new("d"));
    client.admin().create_table(&desc, &splits).await?;
    let started = Instant::now();
    let value = Bytes::from(vec![b'v'; 200]);
    for chunk in (0..args.rows).collect::<Vec<_>>().chunks(20_000) {
        let puts = chunk.iter().map(|&i| Put::new(key(i, args.regions)).cell("d", "v", value.clone()));
        table.put_many(puts).await?;
    }
    eprintln!("loaded {} rows in {:.1} s", args.rows, started.elapsed().as_secs_f64());
    Ok(())
}

async fn count(client: &Client, scan: Scan) -> Result<u64, BoxError> {
    let mut stream = client.table(TABLE)?.scan(scan)?;
    let mut n = 0;
    while let Some(page) = stream.next_page().await {
        n += page?.len() as u64;
    }
    Ok(n)
}

struct Run {
    rows: u64,
    wall: Duration,
    cpu: f64,
    first_row: Option<Duration>,
    pages: u64,
    hash: u64,
}

async fn scan(client: &Client, scan: Scan) -> Result<Run, BoxError> {
    let cpu = cpu_seconds();
    let started = Instant::now();
    let mut stream = client.table(TABLE)?.scan(scan)?;
    let stats = stream.stats();
    let mut hasher = DefaultHasher::new();
    let mut rows = 0u64;
    while let Some(page) = stream.next_page().await {
        for row in page? {
            row.key().hash(&mut hasher);
            rows += 1;
        }
    }
    let wall = started.elapsed();
    let cpu = cpu_seconds() - cpu;
    Ok(Run { rows, wall, cpu, first_row: stats.time_to_first_row(), pages: stats.pages(), hash: hasher.finish() })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn main() -> Result<(), BoxError> {
    let args = args()?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let client = Client::builder().address(args.addr.clone()).build()?;
        prepare(&client, &args).await?;
        let variants: Vec<(&str, Scan)> = vec![
            ("fixed 500-row pages (the old default)", Scan::new().caching(500)),
            ("fixed 1000-row pages (the peer bench's)", Scan::new().caching(1000)),
            ("growing pages (caching unset)", Scan::new()),
            ("parallel_regions(4)", Scan::new().parallel_regions(4)),
            ("parallel_regions(8)", Scan::new().parallel_regions(8)),
            ("parallel_regions(16)", Scan::new().parallel_regions(16)),
        ];
        // Warm-up: the JVMs' JIT and block cache.
        scan(&client, Scan::new()).await?;
        let mut runs: Vec<Vec<Run>> = variants.iter().map(|_| Vec::new()).collect();
        let mut loads = Vec::new();
        for round in 0..args.rounds {
            for (i, (name, s)) in variants.iter().enumerate() {
                let run = scan(&client, s.clone()).await?;
                eprintln!(
                    "round {round} {name}: {} rows in {:.2} s, {} pages, cpu {:.2} s, load {}",
                    run.rows,
                    run.wall.as_secs_f64(),
                    run.pages,
                    run.cpu,
                    load_average()
                );
                loads.push(load_average());
                runs[i].push(run);
            }
        }
        let reference = runs[0][0].hash;
        let same = runs.iter().flatten().all(|r| r.hash == reference && r.rows == args.rows);
        let rate = |v: &[Run]| v.iter().map(|r| r.rows as f64 / r.wall.as_secs_f64()).fold(0.0, f64::max);
        let base = rate(&runs[0]);
        println!(
            "Full scan of {} rows ({} regions), {} interleaved rounds, best round; load average (1 min) during the runs: {}",
            args.rows,
            args.regions,
            args.rounds,
            loads.join(", ")
        );
        println!();
        println!("| variant | rows/s | vs old paging | client CPU s per 1M rows (median) | first row ms (median) | pages |");
        println!("|---|---:|---:|---:|---:|---:|");
        for ((name, _), v) in variants.iter().zip(&runs) {
            let cpu = median(v.iter().map(|r| r.cpu / r.rows.max(1) as f64 * 1e6).collect());
            let first = median(v.iter().map(|r| r.first_row.map_or(f64::NAN, |d| d.as_secs_f64() * 1e3)).collect());
            println!(
                "| {name} | {:.0} | {:.2}x | {cpu:.2} | {first:.1} | {} |",
                rate(v),
                rate(v) / base,
                v.first().map_or(0, |r| r.pages)
            );
        }
        println!();
        println!("Same keys in the same order in every run: {}", if same { "yes" } else { "NO" });
        if same {
            Ok(())
        } else {
            Err("the variants returned different rows".into())
        }
    })
}
