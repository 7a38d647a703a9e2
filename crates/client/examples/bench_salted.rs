//! End-to-end salted-scan bench against a real HBase: a 16-bucket salted scan of N rows
//! against one unsalted scan of the same N rows, on the same server in the same run,
//! and the scanning process's peak memory for several N (it should stay flat).
//!
//! ```text
//! cargo run -p basalt-hbase --release --example bench_salted -- --rows 1000000,4000000
//! ```
//! Each scan runs in a child process of this binary so that its peak RSS (VmHWM) is
//! the scan's own. Uses `BASALT_THRIFT_ADDR` if set, else launches a local HBase.

use std::time::Instant;

use basalt::{Bytes, Client, ColumnFamily, Framing, Protocol, Put, Scan, TableDescriptor};
use basalt_rowkey::{FieldType, HashAlgo, Query, Salt, Schema, Value};
use futures::StreamExt;

const SALTED: &str = "bench_salted16";
const PLAIN: &str = "bench_plain";

fn schema() -> Schema {
    Schema::builder()
        .field("id", FieldType::U64)
        .salt(Salt::hash(HashAlgo::Murmur3 { seed: 0 }, &["id"], 16))
        .build()
        .expect("valid schema")
}

fn client(addr: &str, framed: bool, compact: bool) -> basalt::Result<Client> {
    Client::builder()
        .address(addr)
        .framing(if framed { Framing::Framed } else { Framing::Buffered })
        .protocol(if compact { Protocol::Compact } else { Protocol::Binary })
        .pool_size(16)
        .build()
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.to_owned()))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

/// Child mode: scan one table and print `rows seconds peak_kib`.
async fn scan_child(addr: &str, framed: bool, compact: bool, which: &str) -> Result<(), Box<dyn std::error::Error>> {
    let client = client(addr, framed, compact)?;
    let started = Instant::now();
    let mut rows = 0u64;
    if which == "salted" {
        let salted = client.table(SALTED)?.salted(schema());
        let mut stream = salted.scan(Query::new()).template(Scan::new().caching(1000)).stream().await?;
        let mut previous: Option<Bytes> = None;
        while let Some(row) = stream.next().await {
            let row = row?;
            if previous.as_ref().is_some_and(|p| &p[..] >= row.logical_key()) {
                return Err("salted scan out of order".into());
            }
            previous = Some(row.logical_key_bytes());
            rows += 1;
        }
    } else {
        let mut stream = client.table(PLAIN)?.scan(Scan::new().caching(1000))?;
        while let Some(row) = stream.next().await {
            row?;
            rows += 1;
        }
    }
    println!("{rows} {:.3} {}", started.elapsed().as_secs_f64(), peak_rss_kib());
    Ok(())
}

async fn write(client: &Client, from: u64, to: u64) -> Result<f64, Box<dyn std::error::Error>> {
    let schema = schema();
    let started = Instant::now();
    let value = Bytes::from(vec![b'v'; 100]);
    let mut tasks = Vec::new();
    for part in 0..4u64 {
        let (salted, plain) = (client.table(SALTED)?, client.table(PLAIN)?);
        let (schema, value) = (schema.clone(), value.clone());
        tasks.push(tokio::spawn(async move {
            let mut id = from + part;
            while id < to {
                let mut s = Vec::with_capacity(1000);
                let mut p = Vec::with_capacity(1000);
                while s.len() < 1000 && id < to {
                    let key = schema.encode(&[Value::UInt(id)])?;
                    s.push(Put::new(key).cell("d", "v", value.clone()));
                    p.push(Put::new(Bytes::copy_from_slice(&id.to_be_bytes())).cell("d", "v", value.clone()));
                    id += 4;
                }
                salted.put_many(s).await?;
                plain.put_many(p).await?;
            }
            Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
        }));
    }
    for task in tasks {
        task.await?.map_err(|e| e.to_string())?;
    }
    Ok(started.elapsed().as_secs_f64())
}

fn run_child(
    addr: &str,
    framed: bool,
    compact: bool,
    which: &str,
) -> Result<(u64, f64, u64), Box<dyn std::error::Error>> {
    let exe = std::env::current_exe()?;
    let mut cmd = std::process::Command::new(exe);
    cmd.args(["--child", which, "--addr", addr]);
    if framed {
        cmd.arg("--framed");
    }
    if compact {
        cmd.arg("--compact");
    }
    let out = cmd.output()?;
    if !out.status.success() {
        return Err(format!("{which} scan failed: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    let text = String::from_utf8(out.stdout)?;
    let f: Vec<&str> = text.split_whitespace().collect();
    if f.len() != 3 {
        return Err(format!("unexpected child output {text:?}").into());
    }
    Ok((f[0].parse()?, f[1].parse()?, f[2].parse()?))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let value = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    if let Some(which) = value("--child") {
        let addr = value("--addr").ok_or("--addr missing")?;
        return scan_child(&addr, flag("--framed"), flag("--compact"), &which).await;
    }
    let sizes: Vec<u64> = value("--rows")
        .unwrap_or_else(|| "1000000,4000000".into())
        .split(',')
        .map(|s| s.trim().parse::<u64>())
        .collect::<Result<_, _>>()?;
    let mut hbase = basalt_testkit::HBase::from_env_or_start(&basalt_testkit::LaunchOptions {
        heap: "4g".into(),
        ..Default::default()
    })?;
    let (addr, framed, compact) = (hbase.addr().to_owned(), hbase.framed(), hbase.compact());
    let client = client(&addr, framed, compact)?;
    let admin = client.admin();
    for name in [SALTED, PLAIN] {
        if admin.table_exists(name).await? {
            admin.delete_table(name).await?;
        }
    }
    let splits: Vec<Bytes> = (1..16u8).map(|b| Bytes::from(vec![b])).collect();
    admin.create_table(&TableDescriptor::new(SALTED).family(ColumnFamily::new("d")), &splits).await?;
    admin.create_table(&TableDescriptor::new(PLAIN).family(ColumnFamily::new("d")), &[]).await?;

    println!("| rows | unsalted scan rows/s | salted (16) scan rows/s | salted/unsalted | unsalted peak RSS | salted peak RSS |");
    println!("|---|---|---|---|---|---|");
    let mut written = 0;
    for n in sizes {
        let secs = write(&client, written, n).await?;
        eprintln!("wrote rows {written}..{n} into both tables in {secs:.1} s");
        written = n;
        // Alternate the two scans twice; keep each one's best run.
        let mut best = [(0u64, f64::MAX, 0u64); 2];
        for _ in 0..2 {
            for (i, which) in ["plain", "salted"].into_iter().enumerate() {
                let (rows, secs, rss) = run_child(&addr, framed, compact, which)?;
                if rows != n {
                    return Err(format!("{which} scan returned {rows} rows, expected {n}").into());
                }
                if secs < best[i].1 {
                    best[i] = (rows, secs, rss);
                }
            }
        }
        let (plain, salted) = (best[0], best[1]);
        println!(
            "| {n} | {:.0} | {:.0} | {:.2} | {} MiB | {} MiB |",
            n as f64 / plain.1,
            n as f64 / salted.1,
            plain.1 / salted.1,
            plain.2 / 1024,
            salted.2 / 1024
        );
    }
    for name in [SALTED, PLAIN] {
        admin.delete_table(name).await?;
    }
    hbase.stop()?;
    Ok(())
}
