//! `basalt demo`: the call-record and bucketed-log key designs end to end on a real HBase, every
//! step checked.

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use basalt::{Client, ColumnFamily, Comparator, CompareOp, Filter, Put, Row, Scan, Table, TableDescriptor};
use basalt_rowkey::{hotspot, split, Query, Schema, Value};
use basalt_testkit::{HBase, LaunchOptions};
use bytes::Bytes;
use clap::Args;

use crate::analyze::{region_table, svg};
use crate::conn::{ConnOpts, Route};
use crate::demo_data as data;
use crate::error::{CliError, CliResult};
use crate::keyfmt::{escape, thousands};
use crate::local::{self, Running};
use crate::merge::MergedScan;

/// `basalt demo`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  basalt demo                       # starts and stops its own local HBase\n  \
                        basalt demo --rows 5000 --addr 127.0.0.1:9090\n  \
                        basalt demo --keep                # leave HBase and the tables up (stop: basalt local stop)\n  \
                        basalt demo --no-gateway          # its own HBase without a gateway: native RPC only\n  \
                        HBASE_CONF_DIR=/etc/hbase/conf basalt demo   # an existing cluster, over native RPC")]
pub struct DemoArgs {
    /// Rows to write in all (40% salted calls, 40% the same calls unsalted, 20% logs).
    #[arg(long, default_value_t = 200_000)]
    rows: usize,
    /// Keep the tables, and the local HBase if the demo started it (stop it with `basalt local stop`).
    #[arg(long)]
    keep: bool,
    /// Concurrent writer tasks.
    #[arg(long, default_value_t = 4)]
    tasks: usize,
    /// Rows per put_many batch.
    #[arg(long, default_value_t = 1000)]
    batch: usize,
    /// Namespace of the demo tables.
    #[arg(long, default_value = "basalt_demo")]
    namespace: String,
    /// Salt buckets (= pre-split regions) of the call-record table.
    #[arg(long, default_value_t = 6)]
    regions: u32,
    /// The phone whose calls are queried.
    #[arg(long, default_value = "13812345678")]
    phone: String,
    /// Write the rows-per-region chart (salted vs unsalted) as SVG to this file.
    #[arg(long, value_name = "PATH")]
    svg: Option<PathBuf>,
    /// Random seed of the data.
    #[arg(long, default_value_t = 2021)]
    seed: u64,
    /// Start the demo's own HBase without its Thrift2 gateway and run every step over
    /// native RPC (found from that HBase's hbase-site.xml).
    #[arg(long)]
    no_gateway: bool,
}

/// Records each check; the demo fails if any does.
#[derive(Default)]
struct Checks {
    passed: usize,
    failed: Vec<String>,
}

impl Checks {
    fn check(&mut self, ok: bool, what: &str, detail: impl std::fmt::Display) {
        if ok {
            self.passed += 1;
            outln!("  ok    {what} ({detail})");
        } else {
            self.failed.push(what.to_owned());
            outln!("  FAIL  {what}: {detail}");
        }
    }
}

fn step(n: u32, title: &str) -> Instant {
    outln!("\n[{n}/8] {title}");
    Instant::now()
}

fn ms(t: Instant) -> String {
    format!("{:.0} ms", t.elapsed().as_secs_f64() * 1000.0)
}

/// Where the demo's HBase comes from; a launched one is stopped on drop.
enum Source {
    Given,
    Running,
    Launched(HBase),
    Kept,
}

/// Runs `basalt demo`.
pub fn run(args: DemoArgs, conn: &ConnOpts) -> CliResult {
    if !(100..=10_000_000).contains(&args.rows) {
        return Err(CliError::usage("--rows: use 100..=10000000"));
    }
    // --tasks sizes the connection pool and spawns that many writers: bounded.
    if !(2..=100).contains(&args.regions) || !(1..=256).contains(&args.tasks) || args.batch == 0 {
        return Err(CliError::usage("--regions must be 2..=100, --tasks 1..=256, --batch at least 1"));
    }
    if args.phone.len() != 11 || !args.phone.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CliError::usage(format!("--phone {:?}: use 11 digits", args.phone)));
    }
    // Bad native flags are refused before an HBase is started.
    let route = conn.route()?;
    let given = conn.addr.as_deref().filter(|a| !a.is_empty()).map(str::to_owned);
    // A site file counts when named (--conf, HBASE_CONF_DIR): the demo writes its tables
    // to no cluster found only through /etc/hbase/conf, it starts its own HBase instead.
    let native_given = match &route {
        Route::Native(_) | Route::NativeZooKeeper(_) => true,
        Route::Site(_) => conn.conf.is_some(),
        Route::Gateway | Route::NativeViaGateway => false,
    };
    if args.no_gateway && (given.is_some() || native_given) {
        return Err(CliError::usage(
            "--no-gateway starts the demo's own HBase; with --addr, --native or --conf (HBASE_CONF_DIR) the demo \
             uses that cluster instead",
        ));
    }
    // `at`: the connection flags of the HBase used; `label`: it, in words.
    let (at, label, source) = match given {
        Some(a) => (ConnOpts { addr: Some(a.clone()), ..conn.clone() }, a, Source::Given),
        None if native_given => (conn.clone(), route.describe(), Source::Given),
        None => local_hbase(&args, conn)?,
    };
    let pool = args.tasks + 2 * args.regions as usize + 4;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::failed(format!("cannot start the async runtime: {e}")));
    let started = Instant::now();
    // The demo's own HBase is stopped below whatever happened here.
    let result = rt.and_then(|rt| {
        rt.block_on(async {
            let route = at.route()?;
            let client = at.client(pool).await?;
            if route != Route::Gateway {
                outln!("every call goes over native RPC to the master and the region servers: {}", route.describe());
            }
            demo(&args, &client, &label).await
        })
    });
    match source {
        Source::Launched(mut hbase) => {
            hbase.stop()?;
            outln!("stopped the demo's HBase");
        }
        Source::Kept => outln!("HBase keeps running at {label}; stop it with: basalt local stop"),
        Source::Given | Source::Running => {}
    }
    let checks = result?;
    outln!(
        "\n{} checks passed, {} failed, in {:.1} s",
        checks.passed,
        checks.failed.len(),
        started.elapsed().as_secs_f64()
    );
    if checks.failed.is_empty() {
        Ok(())
    } else {
        Err(CliError::failed(format!("demo checks failed: {}", checks.failed.join("; "))))
    }
}

/// The local HBase of `basalt local` if one is running, else one started for the demo
/// (without its gateway with --no-gateway): its connection flags, its name in words,
/// and whether the demo stops it.
fn local_hbase(args: &DemoArgs, conn: &ConnOpts) -> CliResult<(ConnOpts, String, Source)> {
    let dir = local::default_dir();
    let native = |conf: PathBuf| ConnOpts { addr: None, conf: Some(conf), ..conn.clone() };
    let options = LaunchOptions { framed: conn.framed, compact: conn.compact, ..LaunchOptions::default() };
    let options = if args.no_gateway { LaunchOptions { gateway: false, ..options } } else { options };
    match local::running(&dir)? {
        Some(Running::Gateway(a)) => {
            outln!("using the local HBase at {a} (run dir {})", dir.display());
            Ok((ConnOpts { addr: Some(a.clone()), ..conn.clone() }, a, Source::Running))
        }
        Some(Running::Native(conf)) => {
            outln!("using the local HBase without a gateway (conf {})", conf.display());
            Ok((native(conf.clone()), format!("the local HBase ({})", conf.display()), Source::Running))
        }
        None if args.keep => {
            let addr = local::start_detached(&dir, options)?;
            if args.no_gateway {
                let conf = dir.join("conf");
                Ok((native(conf.clone()), format!("the local HBase ({})", conf.display()), Source::Kept))
            } else {
                Ok((ConnOpts { addr: Some(addr.clone()), ..conn.clone() }, addr, Source::Kept))
            }
        }
        None => {
            let what = if args.no_gateway { "a local HBase (no gateway)" } else { "a local HBase + Thrift2" };
            let pb = local::spinner(&format!("starting {what} for the demo..."));
            let started = HBase::start(&options);
            if let Some(pb) = pb {
                pb.finish_and_clear();
            }
            let hbase = started?;
            let secs = hbase.ready_in().unwrap_or_default().as_secs_f64();
            match hbase.conf_dir().filter(|_| args.no_gateway) {
                Some(conf) => {
                    outln!("started HBase (no gateway, conf {}) in {secs:.1} s", conf.display());
                    let label = format!("the demo's HBase ({})", conf.display());
                    Ok((native(conf), label, Source::Launched(hbase)))
                }
                None => {
                    outln!("started HBase at {} in {secs:.1} s", hbase.addr());
                    let addr = hbase.addr().to_owned();
                    Ok((ConnOpts { addr: Some(addr.clone()), ..conn.clone() }, addr, Source::Launched(hbase)))
                }
            }
        }
    }
}

async fn recreate(client: &Client, name: &str, splits: &[Bytes]) -> CliResult<Table> {
    let admin = client.admin();
    if admin.table_exists(name).await? {
        if admin.is_table_enabled(name).await? {
            admin.disable_table(name).await?;
        }
        admin.delete_table(name).await?;
    }
    let family = ColumnFamily::new("d").max_versions(1).bloom_filter(basalt::BloomFilter::Row);
    admin.create_table(&TableDescriptor::new(name).family(family), splits).await?;
    Ok(client.table(name)?)
}

/// Writes `puts` with `tasks` concurrent `put_many` calls of `batch` rows; returns rows/s.
async fn write_all(
    table: &Table,
    puts: Vec<Put>,
    batch: usize,
    tasks: usize,
    bar: &indicatif::ProgressBar,
) -> CliResult<f64> {
    let total = puts.len();
    let mut queue = VecDeque::new();
    let mut puts = puts.into_iter().peekable();
    while puts.peek().is_some() {
        queue.push_back(puts.by_ref().take(batch).collect::<Vec<_>>());
    }
    let queue = Arc::new(Mutex::new(queue));
    let start = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..tasks {
        let (queue, table, bar) = (Arc::clone(&queue), table.clone(), bar.clone());
        workers.push(tokio::spawn(async move {
            loop {
                let next = queue.lock().ok().and_then(|mut q| q.pop_front());
                let Some(chunk) = next else { return Ok::<(), basalt::Error>(()) };
                let n = chunk.len();
                table.put_many(chunk).await?;
                bar.inc(n as u64);
            }
        }));
    }
    for w in workers {
        w.await.map_err(|e| CliError::failed(format!("writer task failed: {e}")))??;
    }
    Ok(total as f64 / start.elapsed().as_secs_f64().max(1e-9))
}

/// Writes `calls` as CSV to a temporary file and imports it into `table` with
/// `basalt import`'s pipeline (strict: the demo's rows must all fit); gives the rows.
async fn import_calls(
    args: &DemoArgs,
    client: &Client,
    table: &str,
    schema: &Schema,
    calls: &[data::Call],
) -> CliResult<u64> {
    use crate::bulk::import::{import, Job};
    use crate::bulk::mapping::{parse_cell_spec, MappingSpec};
    let dir = std::env::temp_dir().join(format!("basalt-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let csv = dir.join("calls.csv");
    let mut text = String::from("phone,calltime,kind,dur,peer\n");
    for c in calls {
        text.push_str(&format!("{},{},{},{:05},13900000000\n", c.phone, c.time, c.kind, c.dur));
    }
    std::fs::write(&csv, text)?;
    let spec = MappingSpec {
        schema: Some(schema.clone()),
        cells: ["d:type=kind", "d:dur=dur", "d:peer=peer"]
            .iter()
            .map(|c| parse_cell_spec(c))
            .collect::<CliResult<_>>()?,
        strict_columns: true,
        ..MappingSpec::default()
    };
    let job = Job {
        table: table.to_owned(),
        input: csv.display().to_string(),
        format: crate::bulk::TextFormat::Csv,
        spec,
        columns: Vec::new(),
        header: false,
        gzip: false,
        batch: args.batch,
        concurrency: args.tasks,
        reject: dir.join("calls.rejects"),
        checkpoint: None,
        resume: false,
        restart: false,
        strict: true,
        quiet: true,
    };
    let result = import(&job, client).await;
    let _ = std::fs::remove_dir_all(&dir);
    let summary = result?;
    if summary.rows != calls.len() as u64 {
        return Err(CliError::failed(format!("import wrote {} of {} calls", summary.rows, calls.len())));
    }
    Ok(summary.rows)
}

/// Rows per region, counted by `basalt count`'s key-only scans, all regions at once.
async fn count_regions(table: &Table) -> CliResult<(Vec<Bytes>, Vec<u64>)> {
    crate::bulk::count::count_per_region(table, 16).await
}

fn logical_keys(schema: &Schema, rows: &[Row]) -> CliResult<Vec<Bytes>> {
    rows.iter().map(|r| schema.logical_key(r.key()).map(Bytes::copy_from_slice).map_err(CliError::from)).collect()
}

fn strictly_sorted(keys: &[Bytes], descending: bool) -> bool {
    keys.windows(2).all(|w| if descending { w[0] > w[1] } else { w[0] < w[1] })
}

fn calltime_of(schema: &Schema, key: &[u8]) -> String {
    match schema.decode(key).ok().and_then(|d| d.values.get(1).cloned()) {
        Some(v) => v.to_string(),
        None => escape(key),
    }
}

async fn demo(args: &DemoArgs, client: &Client, addr: &str) -> CliResult<Checks> {
    let mut checks = Checks::default();
    let ns = &args.namespace;
    outln!("basalt demo: {} rows on HBase at {addr}", thousands(args.rows as u64));

    // 1. Schemas.
    step(1, "key designs (basalt-rowkey)");
    let calls_schema = data::calls_schema(args.regions)?;
    let plain_schema = data::plain_schema()?;
    let logs_schema = data::logs_schema()?;
    let sample = data::Call { phone: args.phone.clone(), time: 20210915123045, kind: "out", dur: 61 };
    let key = calls_schema.encode(&data::call_values(&sample))?;
    outln!(
        "  calls         XX_phone_yyyyMMddHHmmss, XX = salt of (phone, month) over {} buckets: {}",
        args.regions,
        escape(&key)
    );
    outln!("  unsalted      phone_yyyyMMddHHmmss (the same key without its salt)");
    outln!("  logs          [ts % {}][ts ms][host][event] (time is the only dimension)", data::LOG_BUCKETS);
    let decoded = calls_schema.decode(&key)?;
    checks.check(decoded.values.get(1) == Some(&Value::UInt(20210915123045)), "encode/decode round trip", escape(&key));

    // 2. Namespace and pre-split tables.
    let t2 = step(2, "namespace and pre-split tables");
    let admin = client.admin();
    match admin.create_namespace(ns, Default::default()).await {
        Ok(()) | Err(basalt::Error::AlreadyExists { .. }) => {}
        Err(e) => return Err(e.into()),
    }
    let (calls_t, plain_t, logs_t) = (format!("{ns}:calls"), format!("{ns}:calls_plain"), format!("{ns}:logs"));
    let calls_splits = split::call_record_split_keys(args.regions);
    let log_splits = split::bucket_split_keys(&logs_schema);
    let calls_table = recreate(client, &calls_t, &calls_splits).await?.with_batch_rows(args.batch);
    let plain_table = recreate(client, &plain_t, &calls_splits).await?.with_batch_rows(args.batch);
    let logs_table = recreate(client, &logs_t, &log_splits).await?.with_batch_rows(args.batch);
    let shown: Vec<String> = calls_splits.iter().map(|k| escape(k)).collect();
    outln!("  split keys (zero-padded bucket numbers): {}", shown.join(" "));
    let regions = calls_table.region_locations().await?.len();
    checks.check(
        regions == args.regions as usize,
        &format!("{calls_t} has {} regions", args.regions),
        format!("{regions} regions"),
    );
    let log_regions = logs_table.region_locations().await?.len();
    checks.check(
        log_regions == data::LOG_BUCKETS as usize,
        &format!("{logs_t} has one region per bucket"),
        format!("{log_regions} regions, {}", ms(t2)),
    );

    // 3. Writes.
    step(3, "writing (put_many batches, concurrent tasks)");
    let n_calls = args.rows * 2 / 5;
    let n_logs = args.rows - 2 * n_calls;
    let calls = data::calls(n_calls, &args.phone, args.seed);
    let logs = data::logs(n_logs, args.seed);
    let bar = if std::io::stdout().is_terminal() {
        let pb =
            indicatif::ProgressBar::with_draw_target(Some(args.rows as u64), indicatif::ProgressDrawTarget::stdout());
        let style = indicatif::ProgressStyle::with_template("  {bar:40} {pos}/{len} rows, {elapsed} {msg}")
            .map_err(|e| CliError::failed(format!("progress bar: {e}")))?;
        pb.set_style(style);
        pb
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut rates = Vec::new();
    let all = Instant::now();
    // The salted table comes in as a CSV file through `basalt import`'s pipeline.
    bar.set_message(calls_t.clone());
    let t = Instant::now();
    let imported = import_calls(args, client, &calls_t, &calls_schema, &calls).await?;
    bar.inc(imported);
    rates.push(format!(
        "  {calls_t:<28} {:>9} rows in {:>6.2} s = {:>7} rows/s (basalt import of a CSV file)",
        thousands(imported),
        t.elapsed().as_secs_f64(),
        thousands((imported as f64 / t.elapsed().as_secs_f64().max(1e-9)) as u64)
    ));
    for (name, table, puts) in [
        (
            &plain_t,
            &plain_table,
            calls.iter().map(|c| data::call_put(&plain_schema, c)).collect::<CliResult<Vec<_>>>()?,
        ),
        (&logs_t, &logs_table, logs.iter().map(|l| data::log_put(&logs_schema, l)).collect::<CliResult<Vec<_>>>()?),
    ] {
        bar.set_message(name.clone());
        let n = puts.len();
        let t = Instant::now();
        let rate = write_all(table, puts, args.batch, args.tasks, &bar).await?;
        rates.push(format!(
            "  {name:<28} {:>9} rows in {:>6.2} s = {:>7} rows/s",
            thousands(n as u64),
            t.elapsed().as_secs_f64(),
            thousands(rate as u64)
        ));
    }
    bar.finish_and_clear();
    for r in &rates {
        outln!("{r}");
    }
    let secs = all.elapsed().as_secs_f64();
    outln!(
        "  total {} rows in {secs:.2} s = {} rows/s ({} tasks x {} rows per batch)",
        thousands(args.rows as u64),
        thousands((args.rows as f64 / secs) as u64),
        args.tasks,
        args.batch
    );

    // 4. Merged salted range scan over every bucket of the logs.
    let t = step(4, "merged salted range scan (one scanner per bucket, merged in logical-key order)");
    let span = logs.last().map(|l| l.ts).unwrap_or(data::LOGS_FROM_MS) - data::LOGS_FROM_MS;
    let (lo, hi) = (data::LOGS_FROM_MS + span / 4, data::LOGS_FROM_MS + span / 2);
    let plan = logs_schema.plan(&Query::new().between(Value::Timestamp(lo), Value::Timestamp(hi)))?;
    let q = Query::new().between(Value::Timestamp(lo), Value::Timestamp(hi));
    let rows =
        MergedScan::open(&logs_table, &logs_schema, q, &Scan::new().caching(1000), None, None).await?.collect().await?;
    let keys = logical_keys(&logs_schema, &rows)?;
    let expected = logs.iter().filter(|l| l.ts >= lo && l.ts < hi).count();
    outln!(
        "  ts in [{lo}, {hi}): {} ranges (buckets {:?}), {} rows in {}",
        plan.ranges.len(),
        plan.buckets(),
        thousands(rows.len() as u64),
        ms(t)
    );
    checks.check(
        plan.ranges.len() == data::LOG_BUCKETS as usize,
        "one range per bucket",
        format!("{} ranges", plan.ranges.len()),
    );
    checks.check(
        rows.len() == expected,
        "merged scan returns every row in the window",
        format!("{} of {expected}", rows.len()),
    );
    checks.check(strictly_sorted(&keys, false), "merged rows are in time order", "logical keys strictly ascending");

    // 5. Multi-month query: one salt per month.
    let t = step(5, "calls of one phone over three months (one salt per month)");
    let (from, to) = (20210901000000u64, 20211200000000u64);
    let q = Query::new().fixed(args.phone.as_str()).between(Value::UInt(from), Value::UInt(to));
    let plan = calls_schema.plan(&q)?;
    for r in &plan.ranges {
        outln!("  bucket {:?}: [{}, {})", r.bucket.unwrap_or(0), escape(&r.start), escape(&r.stop));
    }
    let rows = MergedScan::open(&calls_table, &calls_schema, q, &Scan::new(), None, None).await?.collect().await?;
    let keys = logical_keys(&calls_schema, &rows)?;
    let expected =
        data::expected_calls(&calls_schema, &calls, |c| c.phone == args.phone && c.time >= from && c.time < to)?;
    checks.check(
        plan.ranges.len() == 3,
        "three months = three scans",
        format!("{} ranges, buckets {:?}", plan.ranges.len(), plan.buckets()),
    );
    checks.check(
        keys == expected,
        "exactly the phone's calls of Sep-Nov, in time order",
        format!("{} rows, {}", rows.len(), ms(t)),
    );

    // 6. Latest N, reversed.
    let t = step(6, "latest 10 calls of one phone (reversed scans, merged newest first)");
    let q = Query::new()
        .fixed(args.phone.as_str())
        .between(Value::UInt(20210700000000), Value::UInt(20211300000000))
        .reverse(true);
    let plan = calls_schema.plan(&q)?;
    let rows = MergedScan::open(&calls_table, &calls_schema, q, &Scan::new(), Some(10), None).await?.collect().await?;
    let keys = logical_keys(&calls_schema, &rows)?;
    let mut expected = data::expected_calls(&calls_schema, &calls, |c| c.phone == args.phone)?;
    expected.reverse();
    expected.truncate(10);
    let times: Vec<String> = rows.iter().take(3).map(|r| calltime_of(&calls_schema, r.key())).collect();
    outln!("  {} ranges (one per month), newest: {} ...", plan.ranges.len(), times.join(", "));
    checks.check(plan.ranges.len() == 6, "July-December = six scans", format!("{} ranges", plan.ranges.len()));
    checks.check(keys == expected, "the 10 newest calls, newest first", format!("{} rows, {}", rows.len(), ms(t)));

    // 7. Filtered, paged: SingleColumnValueFilter + PageFilter, continuing after the last key.
    let t = step(7, "filtered, paged query (SingleColumnValueFilter d:type = out, PageFilter)");
    let page = if n_calls >= 20_000 { 10 } else { 5 };
    let scv =
        Filter::single_column_value("d", "type", CompareOp::Equal, Comparator::binary("out")).filter_if_missing(true);
    let template = Scan::new().filter(scv.build().and(Filter::page(page as i64)));
    let mut got = Vec::new();
    let mut pages = 0;
    let mut cursor = None;
    let q = Query::new().fixed(args.phone.as_str()).between(Value::UInt(from), Value::UInt(to));
    loop {
        // Each page is a new merged scan resumed after every bucket's last returned key.
        let mut scan = MergedScan::open(&calls_table, &calls_schema, q.clone(), &template, Some(page), cursor).await?;
        let rows = scan.collect().await?;
        if rows.is_empty() {
            break;
        }
        pages += 1;
        let ok_type = rows.iter().all(|r| r.value(b"d", b"type") == Some(b"out"));
        if !ok_type || pages > 10_000 {
            checks.check(false, "every row on a page passes the filter", "a row without d:type = out");
            break;
        }
        got.extend(logical_keys(&calls_schema, &rows)?);
        let next = scan.cursor();
        if pages == 1 {
            let token = next.to_token();
            let shown: String = token.chars().take(48).collect();
            outln!("  page 1: {} rows; page 2 resumes from cursor {shown}... ({} chars)", rows.len(), token.len());
        }
        if rows.len() < page as usize {
            break;
        }
        cursor = Some(next);
    }
    let expected = data::expected_calls(&calls_schema, &calls, |c| {
        c.phone == args.phone && c.kind == "out" && c.time >= from && c.time < to
    })?;
    outln!("  {} pages of up to {page} rows, {} rows", pages, got.len());
    checks.check(
        got == expected,
        "pages add up to exactly the filtered rows, in order",
        format!("{} rows, {}", got.len(), ms(t)),
    );

    // 8. Hotspots: rows per region, salted vs unsalted.
    let t = step(8, "rows per region: salted vs the same keys unsalted (same split keys)");
    let (splits, salted_counts) = count_regions(&calls_table).await?;
    let (plain_splits, plain_counts) = count_regions(&plain_table).await?;
    let predicted = hotspot::analyze(data::stored_keys(&calls_schema, &calls)?, &splits);
    let predicted_plain = hotspot::analyze(data::stored_keys(&plain_schema, &calls)?, &plain_splits);
    out!("{}", region_table(&splits, &[("salted", &predicted), ("unsalted", &predicted_plain)]));
    checks.check(
        salted_counts == predicted.counts,
        "salted: counted rows per region = predicted by hotspot::analyze",
        format!("{salted_counts:?}"),
    );
    checks.check(
        plain_counts == predicted_plain.counts,
        "unsalted: counted rows per region = predicted",
        format!("{plain_counts:?}"),
    );
    checks.check(
        predicted.skew < 1.5 && predicted_plain.skew > 2.0,
        "the salt spreads rows; without it one region takes them",
        format!("skew {:.2} vs {:.2}, {}", predicted.skew, predicted_plain.skew, ms(t)),
    );
    if let Some(p) = &args.svg {
        std::fs::write(
            p,
            svg(
                "rows per region: salted vs unsalted",
                &splits,
                &[("salted", &predicted), ("unsalted", &predicted_plain)],
            ),
        )
        .map_err(|e| CliError::failed(format!("cannot write {}: {e}", p.display())))?;
        outln!("  chart written to {}", p.display());
    }

    if !args.keep {
        for name in [&calls_t, &plain_t, &logs_t] {
            admin.disable_table(name).await?;
            admin.delete_table(name).await?;
        }
        if admin.list_tables(ns).await?.is_empty() {
            admin.delete_namespace(ns).await?;
        }
        outln!("\ndropped the demo tables (use --keep to keep them)");
    }
    Ok(checks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        demo: DemoArgs,
        #[command(flatten)]
        conn: ConnOpts,
    }

    #[test]
    fn an_absurd_task_count_is_a_usage_error_before_anything_starts() {
        for tasks in ["0", "257", "18446744073709551615"] {
            let cli = Cli::try_parse_from(["demo", "--tasks", tasks, "--addr", "127.0.0.1:1"]).unwrap();
            let err = run(cli.demo, &cli.conn).unwrap_err();
            assert_eq!(err.code, crate::error::EXIT_USAGE, "--tasks {tasks}: {}", err.message);
        }
    }
}
