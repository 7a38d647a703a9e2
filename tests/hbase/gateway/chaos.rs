//! Chaos against the real HBase (issue 14): scans, batched writes and gets through
//! `basalt_chaos::Proxy` (connections cut at random bytes), two gateways behind a
//! round-robin proxy, a gateway killed and restarted mid-scan and mid-write, and
//! whether dropping a scan really closes its scanners on the server.
//!
//! Every run is compared with the ground truth: rows lost, duplicated, foreign (not the
//! scan's own), out of order; every acknowledged write must be readable. The figures
//! are printed (`cargo test -p basalt-integration -- chaos --nocapture`).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt::{Bytes, Client, Get, Put, Scan, Table};
use basalt_chaos::{Faults, Proxy};
use basalt_rowkey::{FieldType, HashAlgo, Query, Salt, Schema, Value, Width};
use basalt_testkit::Gateway;
use basalt_thrift::hbase::TScan;
use basalt_thrift::Connection;
use futures::StreamExt;

use crate::support::scanners::{LeftOpen, ScannerProbe};
use crate::support::tally::{peak_rss_kib, read_plain, read_salted, Pace, Tally};
use crate::support::{patient_retries, Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        salted_scans_through_random_cuts,
        plain_scans_through_random_cuts,
        writes_and_gets_through_random_cuts,
        two_gateways_behind_round_robin,
        gateway_restarted_mid_scan_and_mid_write,
        dropping_a_scan_closes_its_server_side_scanners,
    ]
}

// Every connection through the cutting proxies is cut at a random byte (the
// `within_bytes` of each test), so a long scan meets many cuts and each reconnect
// meets another.

/// How long nothing answers during a gateway restart (the issue measured 10-12 s).
const ROUTINE_RESTART: Duration = Duration::from_secs(12);

/// Buckets of the salted test table.
const BUCKETS: u32 = 16;

/// xorshift64*: deterministic test data.
pub(crate) struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

pub(crate) fn user_schema() -> Schema {
    Schema::builder()
        .field("user", FieldType::Str(Width::Variable))
        .field("seq", FieldType::U32)
        .salt(Salt::hash(HashAlgo::Murmur3 { seed: 0 }, &["user"], BUCKETS))
        .build()
        .expect("valid schema")
}

/// A new salted table (one region per bucket) with `rows` random rows; returns its
/// name and the sorted logical keys.
pub(crate) async fn salted_fixture(env: &Env, rows: usize, seed: u64) -> Result<(String, Vec<Bytes>), basalt::Error> {
    let name = env.unique("chaos");
    let expected = create_salted_table(&env.client(), &name, rows, seed).await?;
    Ok((name, expected))
}

/// Creates the salted table `name` through `client` (one region per bucket) with
/// `rows` random rows (from `seed`); returns the sorted logical keys.
pub(crate) async fn create_salted_table(
    client: &Client,
    name: &str,
    rows: usize,
    seed: u64,
) -> Result<Vec<Bytes>, basalt::Error> {
    let desc = basalt::TableDescriptor::new(name.to_owned()).family(basalt::ColumnFamily::new("d"));
    let splits: Vec<Bytes> = (1..BUCKETS as u8).map(|b| Bytes::from(vec![b])).collect();
    client.admin().create_table(&desc, &splits).await?;
    let salted = client.table(name)?.salted(user_schema());
    let mut rng = Rng(seed);
    let mut expected = BTreeSet::new();
    let mut puts = Vec::with_capacity(rows);
    for _ in 0..rows {
        let values = [Value::str(format!("u{:05}", rng.next() % 3000)), Value::UInt(rng.next() % 1_000_000)];
        expected.insert(salted.schema().encode_logical(&values)?);
        puts.push(salted.new_put(&values)?.cell("d", "v", "x"));
    }
    salted.table().put_many(puts).await?;
    Ok(expected.into_iter().collect())
}

/// A client through `addr` (a proxy) with a retry policy patient enough for random cuts.
pub(crate) fn client_via(env: &Env, addr: &str, attempts: Option<u32>) -> Client {
    let mut builder = Client::builder()
        .address(addr)
        .framing(env.options().framing)
        .protocol(env.options().protocol)
        .request_timeout(Duration::from_secs(20))
        .down_backoff(Duration::from_millis(200));
    if let Some(attempts) = attempts {
        builder =
            builder.retry_policy(patient_retries(attempts, Duration::from_millis(20), Duration::from_millis(500)));
    }
    builder.build().expect("valid client settings")
}

async fn salted_scans_through_random_cuts(env: Env) -> TestResult {
    let (name, expected) = salted_fixture(&env, 20_000, 11).await?;
    let proxy = Proxy::start(vec![env.addr().to_owned()], Faults::cut(1.0, 400_000), 14).await?;
    let client = client_via(&env, &proxy.addr(), Some(30));
    let salted = client.table(&name)?.salted(user_schema());
    let mut tally = Tally::default();
    for run in 0..6u32 {
        let reverse = run % 2 == 1;
        let scan = read_salted(&salted, Query::new().reverse(reverse), 300, Pace::FULL_SPEED).await;
        tally.add_in_direction(&expected, reverse, &scan);
    }
    eprintln!("chaos proxy (salted scans): {:?}", proxy.stats());
    env.client().admin().delete_table(&name).await?;
    tally.check("salted merged scans through random cuts")?;
    if proxy.stats().cuts < 6 {
        return Err(format!("the proxy cut only {} connections: the test proved little", proxy.stats().cuts).into());
    }
    Ok(())
}

async fn plain_scans_through_random_cuts(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[b"k03000", b"k06000"]).await?;
    let expected: Vec<Bytes> = (0..9000).map(|i| Bytes::from(format!("k{i:05}"))).collect();
    table.put_many(expected.iter().map(|k| Put::new(k.clone()).cell("d", "v", "x"))).await?;
    let proxy = Proxy::start(vec![env.addr().to_owned()], Faults::cut(1.0, 300_000), 15).await?;
    let client = client_via(&env, &proxy.addr(), Some(30));
    let through = client.table(table.name())?;
    let mut tally = Tally::default();
    for run in 0..6u32 {
        let reverse = run % 2 == 1;
        let scan = read_plain(&through, Scan::new().caching(250).reversed(reverse), Pace::FULL_SPEED).await;
        tally.add_in_direction(&expected, reverse, &scan);
    }
    eprintln!("chaos proxy (plain scans): {:?}", proxy.stats());
    table.client().admin().delete_table(table.name()).await?;
    tally.check("plain scans through random cuts")?;
    if proxy.stats().cuts < 6 {
        return Err(format!("the proxy cut only {} connections: the test proved little", proxy.stats().cuts).into());
    }
    Ok(())
}

/// The put of a workload that checks every batch is acknowledged through faults: `d:v`
/// = the key, at a fixed timestamp, so a resend after an attempt that may have run
/// writes the same cell again (a put on the server's clock is not resent then, and is
/// reported in doubt: `puts_once` tests that).
pub(crate) fn stamped_put(key: &Bytes) -> Put {
    Put::new(key.clone()).cell_at("d", "v", key.clone(), 1)
}

/// Keys whose batch was acknowledged, from a `put_many` result.
pub(crate) fn acknowledged(batch: &[Bytes], result: &basalt::Result<usize>, failures: &mut Vec<String>) -> Vec<Bytes> {
    match result {
        Ok(_) => batch.to_vec(),
        Err(basalt::Error::BatchFailed { not_confirmed, .. }) => {
            failures.push(result.as_ref().err().map(|e| e.to_string()).unwrap_or_default());
            let unconfirmed: BTreeSet<&Bytes> = not_confirmed.iter().collect();
            batch.iter().filter(|k| !unconfirmed.contains(k)).cloned().collect()
        }
        Err(e) => {
            failures.push(e.to_string());
            Vec::new()
        }
    }
}

/// Reads every key back (directly, no proxy); returns how many are missing or wrong.
pub(crate) async fn unreadable(table: &Table, keys: &[Bytes]) -> Result<u64, basalt::Error> {
    let mut missing = 0;
    for chunk in keys.chunks(500) {
        let rows = table.get_many(chunk.iter().map(|k| Get::new(k.clone()))).await?;
        for (key, row) in chunk.iter().zip(&rows) {
            if row.value(b"d", b"v") != Some(&key[..]) {
                missing += 1;
            }
        }
    }
    Ok(missing)
}

async fn writes_and_gets_through_random_cuts(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[b"w2", b"w5"]).await?;
    let proxy = Proxy::start(vec![env.addr().to_owned()], Faults::cut(1.0, 150_000), 16).await?;
    let client = client_via(&env, &proxy.addr(), Some(30));
    let through = client.table(table.name())?.with_batch_rows(250);
    let mut acked = Vec::new();
    let mut failures = Vec::new();
    let mut written = 0u64;
    for batch_no in 0..40u32 {
        let batch: Vec<Bytes> = (0..1000).map(|i| Bytes::from(format!("w{}_{batch_no:03}_{i:04}", i % 8))).collect();
        written += batch.len() as u64;
        let result = through.put_many(batch.iter().map(stamped_put)).await;
        acked.extend(acknowledged(&batch, &result, &mut failures));
    }
    // Gets through the cuts too: each acknowledged row, read back through the proxy.
    let mut get_errors = 0u64;
    let mut wrong_through_proxy = 0u64;
    for chunk in acked.chunks(400).take(25) {
        match through.get_many(chunk.iter().map(|k| Get::new(k.clone()))).await {
            Ok(rows) => {
                wrong_through_proxy +=
                    chunk.iter().zip(&rows).filter(|(k, row)| row.value(b"d", b"v") != Some(&k[..])).count() as u64;
            }
            Err(_) => get_errors += 1,
        }
    }
    let missing = unreadable(&table, &acked).await?;
    let stats = proxy.stats();
    eprintln!(
        "chaos figures: put_many/get_many through random cuts: rows written {written}, acknowledged {}, \
         acknowledged but unreadable {missing}, failed batches {}, wrong gets {wrong_through_proxy}, failed gets \
         {get_errors}, cuts {}, connections {}; process peak RSS {} MiB",
        acked.len(),
        failures.len(),
        stats.cuts,
        stats.connections,
        peak_rss_kib() >> 10
    );
    table.client().admin().delete_table(table.name()).await?;
    if missing > 0 || wrong_through_proxy > 0 {
        return Err(
            format!("{missing} acknowledged rows unreadable, {wrong_through_proxy} wrong through the proxy").into()
        );
    }
    if stats.cuts < 6 {
        return Err(format!("the proxy cut only {} connections: the test proved little", stats.cuts).into());
    }
    if !failures.is_empty() || get_errors > 0 {
        return Err(format!("{} batches, {get_errors} gets failed: {:?}", failures.len(), failures.first()).into());
    }
    Ok(())
}

/// Starts an extra buffered/binary gateway against the suite's HBase.
pub(crate) async fn start_gateway(env: &Env) -> Result<Gateway, Box<dyn std::error::Error + Send + Sync>> {
    let launcher = env.gateways()?;
    let gateway = tokio::task::spawn_blocking(move || launcher.start(false, false)).await??;
    Ok(gateway)
}

/// An error unless the suite's gateway is buffered/binary, like the gateways the tests
/// start themselves (`start_gateway`), so that one client setting reaches both.
pub(crate) fn check_own_gateway_options(env: &Env) -> TestResult {
    if env.options() != basalt_thrift::ConnectionOptions::default() {
        return Err("this test starts a buffered/binary gateway; the suite's gateway must match".into());
    }
    Ok(())
}

/// Stops a gateway started by `start_gateway`.
pub(crate) async fn stop_gateway(mut gateway: Gateway) -> TestResult {
    tokio::task::spawn_blocking(move || gateway.stop()).await??;
    Ok(())
}

async fn two_gateways_behind_round_robin(env: Env) -> TestResult {
    check_own_gateway_options(&env)?;
    let (name, expected) = salted_fixture(&env, 20_000, 21).await?;
    // Two fresh gateway processes: each hands out scanner ids from 0, as two gateways
    // of a real deployment started together do, so ids collide between them.
    let (first, second) = tokio::join!(start_gateway(&env), start_gateway(&env));
    let (first, second) = (first?, second?);
    let proxy = Proxy::start(vec![first.addr().to_owned(), second.addr().to_owned()], Faults::none(), 22).await?;
    let client = client_via(&env, &proxy.addr(), None);
    let salted = client.table(&name)?.salted(user_schema());
    let mut tally = Tally::default();
    for run in 0..4u32 {
        let reverse = run % 2 == 1;
        let scan = read_salted(&salted, Query::new().reverse(reverse), 200, Pace::FULL_SPEED).await;
        tally.add_in_direction(&expected, reverse, &scan);
    }
    // A plain scan too.
    let plain = read_plain(&client.table(&name)?, Scan::new().caching(300), Pace::FULL_SPEED).await;
    let mut stored = Vec::new();
    for key in &expected {
        stored.push(salted_key(&env, &name, key).await?);
    }
    stored.sort();
    tally.add(&stored, &plain);
    eprintln!("chaos proxy (two gateways): {:?}", proxy.stats());
    drop(proxy);
    stop_gateway(first).await?;
    stop_gateway(second).await?;
    env.client().admin().delete_table(&name).await?;
    tally.check("two gateways behind a round-robin proxy, merged salted and plain scans")
}

/// The stored (salted) key of a logical key.
async fn salted_key(env: &Env, table: &str, logical: &Bytes) -> Result<Bytes, basalt::Error> {
    let salted = env.client().table(table)?.salted(user_schema());
    let values = salted.schema().decode_logical(logical)?;
    salted.key(&values)
}

/// Opens `n` scanners on `table` directly on `addr` and keeps them open (the "other
/// client" that takes the restarted gateway's first scanner ids).
async fn squat_scanners(
    addr: &str,
    env: &Env,
    table: &str,
    n: usize,
) -> Result<(Connection, Vec<i32>), basalt_thrift::CallError> {
    let mut conn = Connection::connect(addr, env.options()).await?;
    let mut ids = Vec::new();
    for _ in 0..n {
        ids.push(conn.open_scanner(table.as_bytes().to_vec(), tscan(100)).await?);
    }
    Ok((conn, ids))
}

/// A scan of `caching` rows a page, for raw Thrift scanners.
pub(crate) fn tscan(caching: i32) -> TScan {
    TScan::new(
        None, None, None, caching, None, None, None, None, None, None, None, None, None, None, None, None, None, None,
    )
}

async fn gateway_restarted_mid_scan_and_mid_write(env: Env) -> TestResult {
    check_own_gateway_options(&env)?;
    let (name, expected) = salted_fixture(&env, 20_000, 31).await?;
    // Another salted table of the same schema (its keys decode like the scan's own):
    // rows of it delivered to the scan would pass unnoticed by the decoder.
    let (other_name, _) = salted_fixture(&env, 4000, 33).await?;
    let other = env.client().table(&other_name)?;
    let writes = env.fresh_table(&["d"], &[]).await?;
    // The gateway process and its replacement (started now, unused: it hands out
    // scanner ids from 0 like any restarted gateway), so that the outage is a routine
    // restart's length whatever a JVM start costs on this machine.
    let (first, second) = tokio::join!(start_gateway(&env), start_gateway(&env));
    let (first, second) = (first?, second?);
    let proxy = Arc::new(Proxy::start(vec![first.addr().to_owned()], Faults::none(), 32).await?);

    // 1. A merged scan paused before the restart (its workers sit one page ahead).
    let paused_client = client_via(&env, &proxy.addr(), None);
    let paused_table = paused_client.table(&name)?.salted(user_schema());
    let mut paused = paused_table.scan(Query::new()).template(Scan::new().caching(100)).stream().await?;
    let mut paused_keys = Vec::new();
    while paused_keys.len() < 2000 {
        match paused.next().await {
            Some(Ok(row)) => paused_keys.push(row.logical_key_bytes()),
            Some(Err(e)) => return Err(format!("paused scan failed before the restart: {e}").into()),
            None => break,
        }
    }

    // 2. A merged scan read steadily through the outage, with the default settings.
    let active_client = Client::builder().address(proxy.addr()).build()?;
    let active_table = active_client.table(&name)?.salted(user_schema());
    let active = tokio::spawn(async move { read_salted(&active_table, Query::new(), 100, Pace::STEADY).await });

    // 3. Batched writes through the outage, with the default settings.
    let stop_writing = Arc::new(AtomicBool::new(false));
    let writer_client = Client::builder().address(proxy.addr()).build()?;
    let writer_table = writer_client.table(writes.name())?;
    let stop = stop_writing.clone();
    let writer = tokio::spawn(async move {
        let mut acked = Vec::new();
        let mut failures = Vec::new();
        for batch_no in 0..600u32 {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let batch: Vec<Bytes> = (0..200).map(|i| Bytes::from(format!("w{batch_no:04}_{i:03}"))).collect();
            let result = writer_table.put_many(batch.iter().map(stamped_put)).await;
            acked.extend(acknowledged(&batch, &result, &mut failures));
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        (acked, failures)
    });

    // 4. The gateway dies; for ROUTINE_RESTART its address refuses connections (the
    //    proxy's port is closed, as a restarting gateway's is); then the new process
    //    answers at the same address.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let outage = Instant::now();
    proxy.refuse_connections(true);
    stop_gateway(first).await?;
    proxy.kill_all();
    proxy.set_upstreams(vec![second.addr().to_owned()]);
    tokio::time::sleep(ROUTINE_RESTART).await;
    proxy.refuse_connections(false);
    let outage = outage.elapsed();
    tokio::time::sleep(Duration::from_secs(5)).await;
    stop_writing.store(true, Ordering::Relaxed);
    // 5. Another client opens scanners on the new process, which hands out ids from 0
    //    again, right before the paused scan resumes (they expire after 4 s idle).
    let (mut squatter, squatted) = squat_scanners(second.addr(), &env, other.name(), 64).await?;

    // 6. The paused scan resumes.
    let mut paused_error = None;
    let resume_deadline = Instant::now() + Duration::from_secs(180);
    while let Some(row) = paused.next().await {
        match row {
            Ok(row) => paused_keys.push(row.logical_key_bytes()),
            Err(e) => {
                paused_error = Some(e.to_string());
                break;
            }
        }
        if Instant::now() > resume_deadline || paused_keys.len() > 3 * expected.len() {
            paused_error = Some("the resumed scan did not end".into());
            break;
        }
    }
    let paused_reopens: u64 = paused.bucket_stats().iter().map(|s| s.reopens()).sum();
    drop(paused);
    let active = tokio::time::timeout(Duration::from_secs(300), active).await.map_err(|_| "the active scan hung")??;
    let (acked, write_failures) =
        tokio::time::timeout(Duration::from_secs(300), writer).await.map_err(|_| "the writer hung")??;

    for id in squatted {
        let _ = squatter.close_scanner(id).await;
    }
    let mut paused_tally =
        Tally { reopens: paused_reopens, errors: paused_error.into_iter().collect(), ..Tally::default() };
    paused_tally.compare(&expected, &paused_keys);
    let mut active_tally = Tally::default();
    active_tally.add(&expected, &active);
    let missing = unreadable(&writes, &acked).await?;
    eprintln!("chaos: gateway outage of {:.1} s (stop, then connections refused)", outage.as_secs_f64());
    let paused_line = paused_tally.report("scan paused across the gateway restart, scanners reused by another client");
    let active_line = active_tally.report("scan read through the gateway restart (default settings)");
    eprintln!("chaos figures: {paused_line}");
    eprintln!("chaos figures: {active_line}");
    eprintln!(
        "chaos figures: writes through the gateway restart (default settings): acknowledged {}, acknowledged but \
         unreadable {missing}, failed batches {}{}",
        acked.len(),
        write_failures.len(),
        write_failures.first().map(|e| format!(" (first: {e})")).unwrap_or_default()
    );
    drop(proxy);
    stop_gateway(second).await?;
    let admin = env.client().admin();
    for table in [name.as_str(), other.name(), writes.name()] {
        admin.delete_table(table).await?;
    }
    let mut wrong = Vec::new();
    if !paused_tally.exact() {
        wrong.push(paused_line);
    }
    if !active_tally.exact() {
        wrong.push(active_line);
    }
    if missing > 0 {
        wrong.push(format!("{missing} acknowledged writes unreadable"));
    }
    if !write_failures.is_empty() {
        wrong.push(format!("{} write batches failed during a routine restart", write_failures.len()));
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("\n").into())
    }
}

async fn dropping_a_scan_closes_its_server_side_scanners(env: Env) -> TestResult {
    check_own_gateway_options(&env)?;
    let (name, _) = salted_fixture(&env, 3000, 41).await?;
    let probe = ScannerProbe::start(&env, &name).await?;

    // Open plain and merged scans, read a row of each, then drop them all at once.
    let client = client_via(&env, probe.addr(), None);
    let mut scans = Vec::new();
    let mut merged_scans = Vec::new();
    for _ in 0..5 {
        let mut plain = client.table(&name)?.scan(Scan::new().caching(2))?;
        plain.next().await.ok_or("no row")??;
        scans.push(plain);
        let salted = client.table(&name)?.salted(user_schema());
        let mut merged = salted.scan(Query::new()).template(Scan::new().caching(2)).stream().await?;
        merged.next().await.ok_or("no row")??;
        merged_scans.push(merged);
    }
    drop(scans);
    drop(merged_scans);
    let LeftOpen { opened, still_open } = probe.left_open(&env, &name, 5, "the library's").await?;
    eprintln!(
        "chaos figures: dropped scans: {opened} scanner ids opened by the library, {} still open on the server",
        still_open.len()
    );
    probe.stop().await?;
    env.client().admin().delete_table(&name).await?;
    if still_open.is_empty() {
        Ok(())
    } else {
        Err(format!("scanner ids still open on the server after their scans were dropped: {still_open:?}").into())
    }
}
