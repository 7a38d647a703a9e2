//! A first measurement of the native transport: a full scan of one table through
//! `basalt-rpc` (straight to the region server) and through basalt's Thrift2 client
//! (through the gateway), in the same run, alternating, as rows/s and client CPU per row.
//!
//! ```text
//! cargo run --release -p basalt-rpc --example native_vs_thrift -- [ROWS] [ROUNDS]
//! ```
//!
//! It launches a test HBase with `basalt-testkit` (or uses `BASALT_THRIFT_ADDR` for the
//! gateway and `BASALT_RPC_BOOTSTRAP=host:port,...` for the registry), loads ROWS rows
//! (default 200000) of one 100-byte cell, and scans them ROUNDS times (default 3) each
//! way. Client CPU is this process's user + system time from `/proc/self/stat` (every
//! thread), so it counts the decoding work of each client, not the servers'.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::Instant;

use basalt::{ColumnFamily, Put, Scan, TableDescriptor};
use basalt_rpc::{RpcClient, ScanSpec};
use basalt_testkit::{HBase, LaunchOptions};

type Error = Box<dyn std::error::Error + Send + Sync>;

fn main() -> Result<(), Error> {
    let mut args = std::env::args().skip(1);
    let rows: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(200_000);
    let rounds: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(3);
    let hbase = HBase::from_env_or_start(&LaunchOptions::default())?;
    let bootstrap = match std::env::var("BASALT_RPC_BOOTSTRAP") {
        Ok(list) => list.split(',').map(str::to_owned).collect(),
        Err(_) => region_servers(&hbase)?,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(run(&hbase, bootstrap, rows, rounds))
}

/// `host:port` of the region servers, from the test bed's region tool.
fn region_servers(hbase: &HBase) -> Result<Vec<String>, Error> {
    let mut child = hbase.region_tool()?.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn()?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    writeln!(stdin, "servers")?;
    writeln!(stdin, "quit")?;
    stdin.flush()?;
    let mut servers = Vec::new();
    let mut line = String::new();
    while stdout.read_line(&mut line)? > 0 {
        if let Some(list) = line.trim().strip_prefix("RT ok ").filter(|l| *l != "ready") {
            servers = list
                .split_whitespace()
                .filter_map(|s| {
                    let mut parts = s.split(',');
                    Some(format!("{}:{}", parts.next()?, parts.next()?))
                })
                .collect();
        }
        line.clear();
    }
    child.wait()?;
    if servers.is_empty() {
        return Err("the region tool listed no region server".into());
    }
    Ok(servers)
}

/// This process's CPU time (user + system, every thread) in seconds.
fn cpu_seconds() -> Result<f64, Error> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    let rest = stat.rsplit_once(')').map(|(_, rest)| rest).ok_or("/proc/self/stat: no ')'")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the command: state is field 3; utime and stime are fields 14 and 15.
    let ticks = |i: usize| fields.get(i - 3).and_then(|f| f.parse::<u64>().ok()).ok_or("/proc/self/stat: bad line");
    Ok((ticks(14)? + ticks(15)?) as f64 / 100.0)
}

async fn run(hbase: &HBase, bootstrap: Vec<String>, rows: usize, rounds: usize) -> Result<(), Error> {
    let thrift = basalt::Client::builder().address(hbase.addr()).build()?;
    let name = format!("native_bench_{}", std::process::id());
    let desc = TableDescriptor::new(name.clone()).family(ColumnFamily::new(&b"d"[..]));
    thrift.admin().create_table(&desc, &[]).await?;
    let table = thrift.table(&name)?;
    let value = vec![b'v'; 100];
    let started = Instant::now();
    table.put_many((0..rows).map(|i| Put::new(format!("row{i:08}")).cell("d", "v", value.clone()))).await?;
    eprintln!("loaded {rows} rows in {:.1} s", started.elapsed().as_secs_f64());

    let mut builder = RpcClient::builder();
    for server in bootstrap {
        builder = builder.bootstrap_server(server);
    }
    let native = builder.connect().await?;
    let mut native_runs = Vec::new();
    let mut thrift_runs = Vec::new();
    for round in 0..rounds {
        let (cpu0, t0) = (cpu_seconds()?, Instant::now());
        let mut scanner = native.scan(&name, ScanSpec::new().rows_per_page(5000));
        let mut count = 0usize;
        let mut bytes = 0usize;
        while let Some(page) = scanner.next_page().await? {
            count += page.len();
            bytes += page.iter().flat_map(|r| r.cells.iter()).map(|c| c.value().len()).sum::<usize>();
        }
        let native_run = (t0.elapsed().as_secs_f64(), cpu_seconds()? - cpu0, count, bytes);

        let (cpu0, t0) = (cpu_seconds()?, Instant::now());
        let mut stream = table.scan(Scan::new())?;
        let mut count = 0usize;
        let mut bytes = 0usize;
        while let Some(page) = stream.next_page().await {
            let page = page?;
            count += page.len();
            bytes += page.iter().flat_map(|r| r.cells().map(|c| c.value().len()).collect::<Vec<_>>()).sum::<usize>();
        }
        let thrift_run = (t0.elapsed().as_secs_f64(), cpu_seconds()? - cpu0, count, bytes);
        for (what, run) in [("native", native_run), ("thrift", thrift_run)] {
            eprintln!(
                "round {round} {what}: {} rows in {:.3} s = {:.0} rows/s, client CPU {:.3} s = {:.2} us/row",
                run.2,
                run.0,
                run.2 as f64 / run.0,
                run.1,
                run.1 * 1e6 / run.2 as f64
            );
            if run.2 != rows || run.3 != rows * 100 {
                return Err(format!("{what} scan read {} rows / {} value bytes, expected {rows}", run.2, run.3).into());
            }
        }
        native_runs.push(native_run);
        thrift_runs.push(thrift_run);
    }
    let best = |runs: &[(f64, f64, usize, usize)]| {
        let fastest = runs.iter().map(|r| r.0).fold(f64::INFINITY, f64::min);
        let cheapest = runs.iter().map(|r| r.1).fold(f64::INFINITY, f64::min);
        (rows as f64 / fastest, cheapest * 1e6 / rows as f64)
    };
    let (native_rate, native_cpu) = best(&native_runs);
    let (thrift_rate, thrift_cpu) = best(&thrift_runs);
    println!(
        "full scan of {rows} rows, best of {rounds}: native {native_rate:.0} rows/s {native_cpu:.2} us CPU/row; \
         thrift {thrift_rate:.0} rows/s {thrift_cpu:.2} us CPU/row; native/thrift rows/s {:.2}x, CPU/row {:.2}x",
        native_rate / thrift_rate,
        native_cpu / thrift_cpu
    );
    thrift.admin().delete_table(&name).await?;
    Ok(())
}
