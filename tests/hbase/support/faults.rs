//! The fault-proxy scenario shared by `faults` (one proxy in front of the Thrift2
//! gateway) and `native_faults` (one proxy in front of each region server): merged
//! salted scans forward and reversed, plain scans forward and reversed, `put_many` and
//! `get_many` through the proxies with a fault in force, each compared with the ground
//! truth; the acknowledged writes are read back without the proxies.

use std::time::{Duration, Instant};

use basalt::{Bytes, Client, Get, Scan};
use basalt_chaos::{Faults, Proxy, ProxyStats};
use basalt_rowkey::Query;

use crate::gateway::chaos::{acknowledged, salted_fixture, stamped_put, unreadable, user_schema};
use crate::support::tally::{read_plain, read_salted, Pace, Tally};
use crate::support::{patient_retries, Env, TestResult};

/// The request timeout of the clients under test: each stalled or dropped reply costs
/// this much.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);

/// Every connection meets its fault at a random byte in `1..=WITHIN_BYTES` (both
/// directions counted): each workload below moves several times that much, so each
/// meets the fault more than once.
pub(crate) const WITHIN_BYTES: u64 = 100_000;

/// What the fault proxies stand in front of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProxyTarget {
    /// One proxy in front of the suite's Thrift2 gateway, faulty from the first byte;
    /// the client reaches the gateway through it.
    Gateway,
    /// One proxy in front of each region server, reached through the native client's
    /// address map; bootstrap and location go through untouched proxies, then the
    /// faults are turned on and every open connection is cut.
    RegionServers,
}

impl ProxyTarget {
    /// The words the figures and errors use for this target.
    fn words(self) -> (&'static str, &'static str) {
        match self {
            ProxyTarget::Gateway => ("", "the proxy"),
            ProxyTarget::RegionServers => ("native ", "the proxies"),
        }
    }
}

/// One proxy in front of each region server, all forwarding untouched for now; each
/// with the server's address it stands for.
pub(crate) async fn region_server_proxies(
    env: &Env,
    seed: u64,
) -> Result<Vec<(String, Proxy)>, Box<dyn std::error::Error + Send + Sync>> {
    let servers = env.native_servers()?.to_vec();
    let mut out = Vec::new();
    for (i, server) in servers.into_iter().enumerate() {
        let proxy = Proxy::start(vec![server.clone()], Faults::none(), seed + i as u64).await?;
        out.push((server, proxy));
    }
    Ok(out)
}

/// A native client reaching every region server through its proxy, with a short
/// request timeout and a retry policy patient enough for the faults.
pub(crate) fn native_client_through(env: &Env, proxies: &[(String, Proxy)]) -> Result<Client, basalt::Error> {
    let mut builder = env.client_builder().request_timeout(REQUEST_TIMEOUT).retry_policy(patient_retries(
        40,
        Duration::from_millis(20),
        Duration::from_millis(500),
    ));
    for (server, proxy) in proxies {
        builder = builder.native_address_map(server.clone(), proxy.addr());
    }
    builder.build()
}

/// A Thrift2 client reaching the suite's gateway through `proxy`, with a short request
/// timeout and a retry policy patient enough for the faults.
pub(crate) fn gateway_client_through(env: &Env, proxy: &Proxy) -> Result<Client, basalt::Error> {
    Client::builder()
        .address(proxy.addr())
        .framing(env.options().framing)
        .protocol(env.options().protocol)
        .request_timeout(REQUEST_TIMEOUT)
        .down_backoff(Duration::from_millis(200))
        .retry_policy(patient_retries(30, Duration::from_millis(20), Duration::from_millis(500)))
        .build()
}

/// Starts the proxies of `target` with `faults` in force and a client through them.
async fn faulty_proxies(
    env: &Env,
    target: ProxyTarget,
    faults: Faults,
    seed: u64,
    table: &str,
) -> Result<(Vec<Proxy>, Client), Box<dyn std::error::Error + Send + Sync>> {
    match target {
        ProxyTarget::Gateway => {
            let proxy = Proxy::start(vec![env.addr().to_owned()], faults, seed).await?;
            let client = gateway_client_through(env, &proxy)?;
            Ok((vec![proxy], client))
        }
        ProxyTarget::RegionServers => {
            let proxies = region_server_proxies(env, seed).await?;
            let client = native_client_through(env, &proxies)?;
            // Bootstrap and locate through untouched proxies, then turn the faults on:
            // every connection opened from now on (reconnects included) meets one.
            client.table(table)?.get(Get::new(Bytes::from_static(b"\x00warm-up"))).await?;
            for (_, proxy) in &proxies {
                proxy.set_faults(faults.clone());
                proxy.kill_all();
            }
            Ok((proxies.into_iter().map(|(_, proxy)| proxy).collect(), client))
        }
    }
}

/// Runs every workload through the proxies of `target` with `faults`, compares each
/// with the ground truth, prints the figures; an error unless everything was exact and
/// each workload met the fault (`struck` counts it in the proxies' figures).
pub(crate) async fn through_faults(
    env: &Env,
    target: ProxyTarget,
    faults: Faults,
    seed: u64,
    what: &str,
    struck: fn(&ProxyStats) -> u64,
) -> TestResult {
    let (native, through_the) = target.words();
    let (name, expected) = salted_fixture(env, 6000, seed).await?;
    let writes = env.fresh_table(&["d"], &[b"w3", b"w6"]).await?;
    let (proxies, client) = faulty_proxies(env, target, faults, seed, &name).await?;
    let total = |proxies: &[Proxy]| proxies.iter().map(|p| struck(&p.stats())).sum::<u64>();

    // Merged salted scans, forward and reversed.
    let mut phases = Vec::new();
    let mut since = 0u64;
    let mut phase = |name: &'static str, proxies: &[Proxy], since: &mut u64| {
        let now = total(proxies);
        phases.push((name, now - *since));
        *since = now;
    };
    let started = Instant::now();
    let salted = client.table(&name)?.salted(user_schema());
    let mut merged = Tally::default();
    for reverse in [false, true] {
        let run = read_salted(&salted, Query::new().reverse(reverse), 200, Pace::FULL_SPEED).await;
        merged.add_in_direction(&expected, reverse, &run);
    }
    phase("merged scans", &proxies, &mut since);
    // Plain scans of the same table, forward and reversed: the stored keys in order.
    let mut stored = Vec::with_capacity(expected.len());
    for key in &expected {
        stored.push(salted.key(&salted.schema().decode_logical(key)?)?);
    }
    stored.sort();
    let plain_table = client.table(&name)?;
    let mut plain = Tally::default();
    for reverse in [false, true] {
        let run = read_plain(&plain_table, Scan::new().caching(200).reversed(reverse), Pace::FULL_SPEED).await;
        plain.add_in_direction(&stored, reverse, &run);
    }
    phase("plain scans", &proxies, &mut since);
    // Batched writes, then every acknowledged row read back through the proxies.
    let through = client.table(writes.name())?.with_batch_rows(100);
    let (mut acked, mut failures) = (Vec::new(), Vec::new());
    for batch_no in 0..10u32 {
        let batch: Vec<Bytes> = (0..500).map(|i| Bytes::from(format!("w{}_{batch_no:02}_{i:03}", i % 9))).collect();
        let result = through.put_many(batch.iter().map(stamped_put)).await;
        acked.extend(acknowledged(&batch, &result, &mut failures));
    }
    phase("put_many", &proxies, &mut since);
    // The reads start on new connections, which meet their fault within the bytes the
    // reads move (a connection left from the writes may be past its fault already).
    for proxy in &proxies {
        proxy.kill_all();
    }
    let (mut wrong_gets, mut failed_gets) = (0u64, Vec::new());
    // Two passes: the reads then move more than a connection's fault position can be.
    for chunk in acked.chunks(250).chain(acked.chunks(250)) {
        match through.get_many(chunk.iter().map(|k| Get::new(k.clone()))).await {
            Ok(rows) => {
                wrong_gets +=
                    chunk.iter().zip(&rows).filter(|(k, row)| row.value(b"d", b"v") != Some(&k[..])).count() as u64;
            }
            Err(e) => failed_gets.push(e.to_string()),
        }
    }
    phase("get_many", &proxies, &mut since);
    let elapsed = started.elapsed();
    // The truth of the writes is read directly (the test's own client), not through
    // the proxies.
    let missing = unreadable(&writes, &acked).await?;
    let merged_line = merged.report(&format!("{native}merged salted scans through {what}"));
    let plain_line = plain.report(&format!("{native}plain scans through {what}"));
    eprintln!("chaos figures: {merged_line}");
    eprintln!("chaos figures: {plain_line}");
    eprintln!(
        "chaos figures: {native}put_many/get_many through {what}: rows acknowledged {} of 5000, acknowledged but \
         unreadable {missing}, failed batches {}, wrong gets {wrong_gets}, failed get batches {}",
        acked.len(),
        failures.len(),
        failed_gets.len()
    );
    let connections: u64 = proxies.iter().map(|p| p.stats().connections).sum();
    match target {
        ProxyTarget::Gateway => {
            let stats = proxies.iter().map(|p| p.stats()).fold((0, 0), |(s, d), st| (s + st.stalls, d + st.dropped));
            let pool = client.pool_stats();
            eprintln!(
                "chaos figures: proxy through {what}: {connections} connections, {} stalled, {} replies dropped; \
                 client pool: {} opened, {} discarded after a timeout or failure",
                stats.0, stats.1, pool.opened, pool.discarded_poisoned
            );
            eprintln!("chaos figures: faults met per workload through {what}: {phases:?}");
        }
        ProxyTarget::RegionServers => eprintln!(
            "chaos figures: native proxies through {what}: {connections} connections, faults met per workload \
             {phases:?}, workloads took {:.1} s",
            elapsed.as_secs_f64()
        ),
    }
    drop(proxies);
    let admin = env.client().admin();
    admin.delete_table(&name).await?;
    admin.delete_table(writes.name()).await?;

    let mut wrong = Vec::new();
    if !merged.exact() {
        wrong.push(merged_line);
    }
    if !plain.exact() {
        wrong.push(plain_line);
    }
    if missing > 0 || wrong_gets > 0 {
        wrong.push(format!("{missing} acknowledged rows unreadable, {wrong_gets} wrong through {through_the}"));
    }
    if !failures.is_empty() || !failed_gets.is_empty() {
        wrong.push(format!(
            "{} batches and {} get batches failed: {:?}",
            failures.len(),
            failed_gets.len(),
            failures.first().or(failed_gets.first())
        ));
    }
    if acked.len() != 5000 {
        wrong.push(format!("{} of 5000 rows acknowledged", acked.len()));
    }
    for (workload, met) in &phases {
        if *met == 0 {
            wrong.push(format!("{workload} never met the fault: the test proved little"));
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("\n").into())
    }
}

/// The flapping proxies' cycle in the apply-once tests: up, then down (refusing and
/// cutting) for longer than the request timeout of their clients (2 s).
pub(crate) const FLAP_UP: Duration = Duration::from_millis(2_500);
/// See [`FLAP_UP`].
pub(crate) const FLAP_DOWN: Duration = Duration::from_millis(3_500);

/// What the caller of one write heard in an apply-once test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reported {
    /// Acknowledged.
    Ok,
    /// The outcome is unknown (the write may have been applied).
    Unknown,
    /// Refused or failed for sure.
    Failed,
}

/// Flaps `proxies` while `running` holds: up for `up`, then refusing connections and
/// cutting every open one for `down`, over and over; the number of cycles.
pub(crate) async fn flap(
    proxies: &[(String, Proxy)],
    up: Duration,
    down: Duration,
    running: &std::sync::atomic::AtomicBool,
) -> u32 {
    let mut cycles = 0u32;
    while running.load(std::sync::atomic::Ordering::Relaxed) {
        tokio::time::sleep(up).await;
        for (_, proxy) in proxies {
            proxy.refuse_connections(true);
            proxy.kill_all();
        }
        tokio::time::sleep(down).await;
        for (_, proxy) in proxies {
            proxy.refuse_connections(false);
        }
        cycles += 1;
    }
    cycles
}
