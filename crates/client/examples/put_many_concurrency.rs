//! How fast one `put_many` call writes at several write concurrencies, in interleaved
//! rounds on one HBase: rows per second and the client's CPU seconds per million rows.
//! The rows are the peer bench's (`benches/src/keys.rs`): 16 salts, a 200-byte value,
//! into a table pre-split at the salts, a fresh one per run.
//!
//! ```text
//! cargo run --release -p basalt-hbase --example put_many_concurrency -- \
//!     --addr 127.0.0.1:9090 --rows 100000 --rounds 3 --concurrency 1,2,4,8
//! ```

use std::time::Instant;

use basalt::{Client, ColumnFamily, Put, Scan, TableDescriptor};
use futures::TryStreamExt;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const SALTS: u64 = 16;

/// A pseudo-random, unique number per row, as the peer bench numbers its rows.
fn seq(i: u64) -> u64 {
    basalt_rowkey::hotspot::SampleRng::new(i).next_u64()
}

fn put(i: u64) -> Put {
    let s = seq(i);
    let key = format!("{:02}{:02}{:020}", s % SALTS, i % 100, s);
    let first = (i % 26) * 7 % 26;
    let value: Vec<u8> = (0..200).map(|j| b'a' + ((first + j) % 26) as u8).collect();
    Put::new(key).cell("d", "v", value)
}

/// This process's CPU seconds so far (user + system), from `/proc/self/stat`.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or_default();
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime: the 12th and 13th fields after the command.
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    (ticks(11) + ticks(12)) as f64 / 100.0
}

fn main() -> Result<(), BoxError> {
    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let addr = value("--addr").unwrap_or_else(|| "127.0.0.1:9090".into());
    let rows: u64 = value("--rows").map_or(Ok(100_000), |v| v.parse())?;
    let rounds: u32 = value("--rounds").map_or(Ok(3), |v| v.parse())?;
    let levels: Vec<usize> = value("--concurrency")
        .unwrap_or_else(|| "1,2,4,8".into())
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let client = Client::builder().address(addr).pool_size(16).build()?;
    runtime.block_on(async {
        let splits: Vec<basalt::Bytes> = (1..SALTS).map(|s| format!("{s:02}").into()).collect();
        let mut totals = vec![(0.0f64, 0.0f64); levels.len()];
        for round in 0..rounds {
            // Each level takes each place in the order in turn.
            let order: Vec<usize> = (0..levels.len()).map(|k| (k + round as usize) % levels.len()).collect();
            for k in order {
                let name = format!("put_many_c{}_r{round}_{}", levels[k], std::process::id());
                client
                    .admin()
                    .create_table(&TableDescriptor::new(&name).family(ColumnFamily::new("d")), &splits)
                    .await?;
                let table = client.table(&name)?.with_write_concurrency(levels[k]);
                let (cpu0, started) = (cpu_seconds(), Instant::now());
                let written = table.put_many((0..rows).map(put)).await?;
                let (wall, cpu) = (started.elapsed().as_secs_f64(), cpu_seconds() - cpu0);
                let stored =
                    table.scan(Scan::new().caching(1000))?.try_fold(0u64, |n, _| async move { Ok(n + 1) }).await?;
                if written as u64 != rows || stored != rows {
                    return Err(format!("{name}: wrote {written}, stored {stored}, expected {rows}").into());
                }
                client.admin().delete_table(&name).await?;
                totals[k].0 += wall;
                totals[k].1 += cpu;
                println!(
                    "round {round} concurrency {}: {:.0} rows/s, {:.2} s CPU per million rows",
                    levels[k],
                    rows as f64 / wall,
                    cpu * 1e6 / rows as f64
                );
            }
        }
        let base = f64::from(rounds) * rows as f64 / totals[0].0;
        for (level, (wall, cpu)) in levels.iter().zip(&totals) {
            let rate = f64::from(rounds) * rows as f64 / wall;
            let cpu_per_m = cpu * 1e6 / (f64::from(rounds) * rows as f64);
            println!(
                "concurrency {level}: {rate:.0} rows/s ({:.2}x concurrency {}), {cpu_per_m:.2} s CPU per million rows",
                rate / base,
                levels[0]
            );
        }
        Ok(())
    })
}
