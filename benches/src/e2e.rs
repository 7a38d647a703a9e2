//! End-to-end bench of the `basalt` client against a real HBase, each figure also
//! measured with the plain synchronous Thrift client (one connection, sequential
//! calls) in the same run and reported as a ratio.
//!
//! ```sh
//! cargo run -p basalt-benches --release --bin e2e -- --rows 100000 --json e2e.json
//! ```
//!
//! The HBase comes from `basalt-testkit`: `BASALT_THRIFT_ADDR` (a buffered/binary
//! gateway), else a standalone HBase launched for the run and stopped at the end.
//!
//! - put: N rows of 200-byte values, `putMultiple` in batches of 1000: basalt
//!   `Table::put_many` from one task and from 4 concurrent tasks, vs the sync client.
//! - get: G random existing rows: basalt with 16 concurrent tasks on a pool of 16 (and
//!   from one task), vs the sync client one get after another; p50/p99 latency and
//!   throughput (two rounds in opposite orders, each client's best round kept).
//! - scan: a full scan of the N rows, 1000 rows per page: basalt `Table::scan` vs the
//!   sync client's `openScanner`/`getScannerRows(1000)` loop; also the same loop on a
//!   raw async `basalt_thrift::Connection`, to tell transport costs from client costs.

mod baseline;
mod report;

use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt::{Client, ColumnFamily, Get, Put, Scan, TableDescriptor};
use basalt_testkit::{HBase, LaunchOptions};
use futures::TryStreamExt;

use crate::baseline::SyncClient;
use crate::report::{GetFigures, Report};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const FAMILY: &[u8] = b"d";
const QUALIFIER: &[u8] = b"v";
const VALUE_BYTES: usize = 200;
const BATCH: usize = 1000;
const GET_TASKS: usize = 16;
const PUT_TASKS: usize = 4;
const SCAN_PAGE: u32 = 1000;

fn row_key(i: usize) -> Vec<u8> {
    format!("row{i:09}").into_bytes()
}

fn row_value(i: usize) -> Vec<u8> {
    let mut value = vec![0u8; VALUE_BYTES];
    for (j, byte) in value.iter_mut().enumerate() {
        *byte = b'a' + ((i * 7 + j) % 26) as u8;
    }
    value
}

fn put(i: usize) -> Put {
    Put::new(row_key(i)).cell(FAMILY, QUALIFIER, row_value(i))
}

struct Args {
    rows: usize,
    gets: usize,
    scans: usize,
    json: Option<std::path::PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { rows: 100_000, gets: 20_000, scans: 3, json: None };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--rows" => args.rows = value("--rows")?.parse().map_err(|e| format!("--rows: {e}"))?,
            "--gets" => args.gets = value("--gets")?.parse().map_err(|e| format!("--gets: {e}"))?,
            "--scans" => args.scans = value("--scans")?.parse().map_err(|e| format!("--scans: {e}"))?,
            "--json" => args.json = Some(value("--json")?.into()),
            "-h" | "--help" => {
                println!(
                    "usage: e2e [--rows N (100000)] [--gets G (20000)] [--scans RUNS (3, best kept)] [--json PATH]"
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}; see --help")),
        }
    }
    if args.rows < PUT_TASKS || args.gets == 0 || args.scans == 0 {
        return Err(format!("--rows must be at least {PUT_TASKS}; --gets and --scans at least 1"));
    }
    Ok(args)
}

fn main() -> std::process::ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("e2e: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let mut hbase = match HBase::from_env_or_start(&LaunchOptions::default()) {
        Ok(hbase) => hbase,
        Err(e) => {
            eprintln!("e2e: no HBase: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    if let Some(ready) = hbase.ready_in() {
        eprintln!("HBase + Thrift2 ready at {} in {:.1} s", hbase.addr(), ready.as_secs_f64());
    }
    let outcome = run(&hbase, &args);
    // Stopped here, whatever happened (also on drop, e.g. after a panic).
    if let Err(e) = hbase.stop() {
        eprintln!("e2e: {e}");
    }
    match outcome {
        Ok(report) => {
            print!("{}", report.table());
            if let Some(path) = &args.json {
                if let Err(e) = std::fs::write(path, report.json()) {
                    eprintln!("e2e: cannot write {}: {e}", path.display());
                    return std::process::ExitCode::FAILURE;
                }
                eprintln!("figures written to {}", path.display());
            }
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("e2e: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(hbase: &HBase, args: &Args) -> Result<Report, BoxError> {
    if hbase.framed() || hbase.compact() {
        return Err("the sync baseline speaks buffered/binary: point BASALT_THRIFT_ADDR at such a gateway".into());
    }
    let addr = hbase.addr().to_owned();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let client = Client::builder().address(addr.clone()).pool_size(GET_TASKS).build()?;
    let mut sync = SyncClient::connect(&addr)?;
    let run_id = std::process::id();
    let names: Vec<String> =
        ["warmup", "sync", "basalt", "basalt4"].iter().map(|t| format!("bench_{run_id}_{t}")).collect();
    runtime.block_on(async {
        for name in &names {
            let desc = TableDescriptor::new(name.clone()).family(ColumnFamily::new(FAMILY));
            client.admin().create_table(&desc, &[]).await?;
        }
        Ok::<(), BoxError>(())
    })?;
    let (warm, sync_t, basalt_t, basalt4_t) = (&names[0], &names[1], &names[2], &names[3]);

    // Warm-up: JIT of the gateway and region server, connections, block cache.
    let warm_rows = args.rows.min(10_000);
    eprintln!("warming up with {warm_rows} rows");
    sync.put_rows(warm, 0, warm_rows, BATCH)?;
    runtime.block_on(client.table(warm)?.put_many((0..warm_rows).map(put)))?;
    let warm_gets = random_rows(2_000.min(warm_rows), warm_rows, 7);
    sync.get_rows(warm, &warm_gets)?;
    runtime.block_on(basalt_gets(&client, warm, &warm_gets, GET_TASKS))?;
    sync.scan_all(warm, SCAN_PAGE as i32)?;
    runtime.block_on(basalt_scan(&client, warm))?;

    let n = args.rows;
    let mut report = Report::new(n, VALUE_BYTES, args.gets, addr.clone(), hbase.ready_in());

    eprintln!("put: {n} rows, sync client");
    let started = Instant::now();
    sync.put_rows(sync_t, 0, n, BATCH)?;
    report.put_sync = rate(n, started.elapsed());
    eprintln!("put: {n} rows, basalt, 1 task");
    let started = Instant::now();
    let written = runtime.block_on(client.table(basalt_t)?.put_many((0..n).map(put)))?;
    report.put_basalt = rate(written, started.elapsed());
    eprintln!("put: {n} rows, basalt, {PUT_TASKS} tasks");
    let started = Instant::now();
    let written = runtime.block_on(basalt_put_parallel(&client, basalt4_t, n))?;
    report.put_basalt_4 = rate(written, started.elapsed());

    // Two rounds in opposite orders, each client's best round kept: whoever runs right
    // after the writes meets the server's flushes and GC.
    let rows = random_rows(args.gets, n, 42);
    for round in 0..2 {
        let order: [usize; 3] = if round == 0 { [0, 1, 2] } else { [2, 1, 0] };
        for which in order {
            let (what, tasks) =
                [("sync client, sequential", 0), ("basalt, 16 tasks", GET_TASKS), ("basalt, 1 task", 1)][which];
            eprintln!("get round {}: {} rows, {what}", round + 1, rows.len());
            let started = Instant::now();
            let latencies = match tasks {
                0 => sync.get_rows(basalt_t, &rows)?,
                tasks => runtime.block_on(basalt_gets(&client, basalt_t, &rows, tasks))?,
            };
            let figures = GetFigures::new(latencies, started.elapsed());
            let slot = match which {
                0 => &mut report.get_sync,
                1 => &mut report.get_basalt_16,
                _ => &mut report.get_basalt_1,
            };
            if figures.per_second > slot.per_second {
                *slot = figures;
            }
        }
    }

    for run in 1..=args.scans {
        eprintln!("scan {run}/{}: {n} rows, sync client, basalt, raw async connection", args.scans);
        let started = Instant::now();
        let scanned = sync.scan_all(basalt_t, SCAN_PAGE as i32)?;
        check_count("sync scan", scanned, n)?;
        report.scan_sync = report.scan_sync.max(rate(n, started.elapsed()));
        let started = Instant::now();
        let scanned = runtime.block_on(basalt_scan(&client, basalt_t))?;
        check_count("basalt scan", scanned, n)?;
        report.scan_basalt = report.scan_basalt.max(rate(n, started.elapsed()));
        let started = Instant::now();
        let scanned = runtime.block_on(raw_scan(&addr, basalt_t))?;
        check_count("raw connection scan", scanned, n)?;
        report.scan_raw = report.scan_raw.max(rate(n, started.elapsed()));
    }

    runtime.block_on(async {
        for name in &names {
            client.admin().delete_table(name).await?;
        }
        Ok::<(), BoxError>(())
    })?;
    Ok(report)
}

fn rate(rows: usize, elapsed: Duration) -> f64 {
    rows as f64 / elapsed.as_secs_f64()
}

fn check_count(what: &str, got: u64, want: usize) -> Result<(), BoxError> {
    if got != want as u64 {
        return Err(format!("{what} returned {got} rows, expected {want}").into());
    }
    Ok(())
}

/// `count` row numbers below `n`, pseudo-random (a fixed LCG, so runs are comparable).
fn random_rows(count: usize, n: usize, seed: u64) -> Vec<usize> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..count)
        .map(|_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) % n as u64) as usize
        })
        .collect()
}

async fn basalt_put_parallel(client: &Client, table: &str, n: usize) -> Result<usize, BoxError> {
    let per_task = n.div_ceil(PUT_TASKS);
    let mut tasks = Vec::new();
    for t in 0..PUT_TASKS {
        let table = client.table(table)?;
        let (from, to) = (t * per_task, ((t + 1) * per_task).min(n));
        tasks.push(tokio::spawn(async move { table.put_many((from..to).map(put)).await }));
    }
    let mut written = 0;
    for task in tasks {
        written += task.await??;
    }
    Ok(written)
}

/// Gets `rows` with `tasks` concurrent tasks (task k takes every k-th row); returns
/// every call's latency.
async fn basalt_gets(client: &Client, table: &str, rows: &[usize], tasks: usize) -> Result<Vec<Duration>, BoxError> {
    let rows: Arc<[usize]> = rows.into();
    let mut handles = Vec::new();
    for k in 0..tasks {
        let (table, rows) = (client.table(table)?, rows.clone());
        handles.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(rows.len() / tasks + 1);
            for &i in rows.iter().skip(k).step_by(tasks) {
                let started = Instant::now();
                let row = table.get(Get::new(row_key(i))).await?;
                latencies.push(started.elapsed());
                if row.is_empty() {
                    return Err(format!("row {i} is missing").into());
                }
            }
            Ok::<_, BoxError>(latencies)
        }));
    }
    let mut all = Vec::with_capacity(rows.len());
    for handle in handles {
        all.extend(handle.await??);
    }
    Ok(all)
}

async fn basalt_scan(client: &Client, table: &str) -> Result<u64, BoxError> {
    let mut stream = client.table(table)?.scan(Scan::new().caching(SCAN_PAGE))?;
    let mut rows = 0u64;
    while let Some(row) = stream.try_next().await? {
        rows += u64::from(!row.is_empty());
    }
    Ok(rows)
}

/// The sync client's loop on one async `basalt_thrift::Connection` (no pool, no
/// page-ahead task, no conversion to `basalt::Row`).
async fn raw_scan(addr: &str, table: &str) -> Result<u64, BoxError> {
    let mut conn = basalt_thrift::Connection::connect(addr, basalt_thrift::ConnectionOptions::default()).await?;
    let page = SCAN_PAGE as i32;
    let id = conn.open_scanner(table.as_bytes().to_vec(), baseline::tscan(page)).await?;
    let mut rows = 0u64;
    loop {
        let results = conn.call(&basalt_thrift::hbase::calls::GetScannerRows::new(id, page)).await?;
        if results.is_empty() {
            break;
        }
        rows += results.len() as u64;
    }
    conn.close_scanner(id).await?;
    Ok(rows)
}
