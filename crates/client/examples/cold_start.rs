//! Where the time of the first requests goes: random gets from 16 tasks right after
//! start-up, the first 1,000 against the rest, on a fresh HBase (cold JVMs) and again
//! on a warm one, with a cold pool and with `Client::warm_up`, and scan paging modes.
//!
//! ```sh
//! cargo run -p basalt-hbase --release --example cold_start -- [ROWS (20000)]
//! ```
//!
//! Uses `BASALT_THRIFT_ADDR` if set, else launches a standalone HBase (stopped at the
//! end). Prints figures only; nothing is asserted.

use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt::{Client, ColumnFamily, Get, Put, Scan, ScanPaging, TableDescriptor};
use futures::TryStreamExt;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const TASKS: usize = 16;

fn key(i: usize) -> String {
    format!("row{i:08}")
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

/// Gets `rows` from `TASKS` tasks; returns each call's (start order, latency).
async fn gets(client: &Client, table: &str, rows: &[usize]) -> Result<Vec<(Duration, Duration)>, BoxError> {
    let rows: Arc<[usize]> = rows.into();
    let origin = Instant::now();
    let mut handles = Vec::new();
    for k in 0..TASKS {
        let (table, rows) = (client.table(table)?, Arc::clone(&rows));
        handles.push(tokio::spawn(async move {
            let mut out = Vec::new();
            for &i in rows.iter().skip(k).step_by(TASKS) {
                let started = Instant::now();
                let row = table.get(Get::new(key(i))).await?;
                out.push((started - origin, started.elapsed()));
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

fn report(what: &str, calls: &[(Duration, Duration)], wall: Duration) {
    let mut first: Vec<Duration> = calls.iter().take(1000).map(|c| c.1).collect();
    let mut rest: Vec<Duration> = calls.iter().skip(1000).map(|c| c.1).collect();
    first.sort();
    rest.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{what:<44} {:>7.0} gets/s | first 1000: p50 {:>6.2} ms p99 {:>7.2} ms max {:>7.2} ms | rest: p50 {:>6.2} ms p99 {:>7.2} ms",
        calls.len() as f64 / wall.as_secs_f64(),
        ms(percentile(&first, 0.5)),
        ms(percentile(&first, 0.99)),
        ms(first.last().copied().unwrap_or_default()),
        ms(percentile(&rest, 0.5)),
        ms(percentile(&rest, 0.99)),
    );
}

async fn run(addr: &str, rows: usize) -> Result<(), BoxError> {
    let admin_client = Client::connect_to(addr)?;
    let name = format!("cold_start_{}", std::process::id());
    admin_client.admin().create_table(&TableDescriptor::new(name.clone()).family(ColumnFamily::new("d")), &[]).await?;
    let table = admin_client.table(&name)?;
    table.put_many((0..rows).map(|i| Put::new(key(i)).cell("d", "v", vec![b'x'; 200]))).await?;
    let mut state = 42u64;
    let picks: Vec<usize> = (0..rows)
        .map(|_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) % rows as u64) as usize
        })
        .collect();
    for pass in ["cold server", "warm server"] {
        for warm in [false, true] {
            let client = Client::builder().address(addr).pool_size(TASKS).build()?;
            let started = Instant::now();
            if warm {
                client.warm_up(TASKS).await?;
            }
            let setup = started.elapsed();
            let started = Instant::now();
            let calls = gets(&client, &name, &picks).await?;
            let wall = started.elapsed();
            let label = format!(
                "{pass}, {} (setup {:.1} ms)",
                if warm { "warm_up(16)" } else { "cold pool" },
                setup.as_secs_f64() * 1e3
            );
            report(&label, &calls, wall);
        }
    }
    // Same client, a second time: the steady state.
    let client = Client::builder().address(addr).pool_size(TASKS).build()?;
    gets(&client, &name, &picks).await?;
    let started = Instant::now();
    let calls = gets(&client, &name, &picks).await?;
    report("steady state (same client, second run)", &calls, started.elapsed());

    for paging in [ScanPaging::Scanner, ScanPaging::Stateless, ScanPaging::Scanner, ScanPaging::Stateless] {
        let started = Instant::now();
        let mut stream = client.table(&name)?.scan(Scan::new().caching(1000).paging(paging))?;
        let stats = stream.stats();
        let mut n = 0;
        while stream.try_next().await?.is_some() {
            n += 1;
        }
        println!(
            "full scan {paging:?}: {n} rows in {:.1} ms, {} pages, first row after {:.2} ms",
            started.elapsed().as_secs_f64() * 1e3,
            stats.pages(),
            stats.time_to_first_row().unwrap_or_default().as_secs_f64() * 1e3
        );
    }
    admin_client.admin().delete_table(&name).await?;
    Ok(())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), BoxError> {
    let rows = std::env::args().nth(1).map(|s| s.parse()).transpose()?.unwrap_or(20_000);
    let hbase = basalt_testkit::HBase::from_env_or_start(&basalt_testkit::LaunchOptions::default())?;
    let outcome = run(hbase.addr(), rows).await;
    drop(hbase);
    outcome
}
