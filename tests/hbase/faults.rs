//! The proxy's other faults against the real HBase (issue 14): connections that stall
//! (nothing more forwarded either way, sockets left open), connections whose replies
//! are dropped (requests still reach HBase and are applied, answers are thrown away),
//! and every chunk delayed. Through each: merged salted scans forward and reversed,
//! plain scans forward and reversed, `put_many` and `get_many`, each compared with the
//! ground truth. A stalled or dropped reply must end in the request timeout and a
//! retry or a reopen from the last key: never a hang, a lost, repeated or foreign row.

use std::time::Duration;

use basalt::{Bytes, Client, DefaultRetryPolicy, Get, Put, Scan};
use basalt_chaos::{Faults, Proxy, ProxyStats};
use basalt_rowkey::Query;

use crate::chaos::{acknowledged, salted_fixture, unreadable, user_schema};
use crate::support::{Env, Test, TestResult};
use crate::tally::{read_plain, read_salted, Pace, Tally};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![stalled_connections_time_out_and_reopen, dropped_replies_time_out_and_retry, delayed_chunks_change_nothing]
}

/// The request timeout of the clients under test: each stalled or dropped reply costs
/// this much.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);

/// Every connection meets its fault at a random byte in `1..=WITHIN_BYTES` (both
/// directions counted): each workload below moves several times that much, so each
/// meets the fault more than once.
const WITHIN_BYTES: u64 = 100_000;

async fn stalled_connections_time_out_and_reopen(env: Env) -> TestResult {
    let faults = Faults { stall: 1.0, within_bytes: WITHIN_BYTES, ..Faults::none() };
    through_faults(&env, faults, 71, "stalled connections", |s| s.stalls).await
}

async fn dropped_replies_time_out_and_retry(env: Env) -> TestResult {
    let faults = Faults { drop_replies: 1.0, within_bytes: WITHIN_BYTES, ..Faults::none() };
    through_faults(&env, faults, 72, "dropped replies", |s| s.dropped).await
}

async fn delayed_chunks_change_nothing(env: Env) -> TestResult {
    let faults = Faults { delay: Duration::from_millis(3), ..Faults::none() };
    // Every chunk of every workload is delayed: count the bytes each moved.
    through_faults(&env, faults, 73, "every chunk delayed 3 ms", |s| s.bytes_down).await
}

/// Runs every workload through a proxy with `faults`, compares each with the ground
/// truth, prints the figures; an error unless everything was exact and each workload
/// met the fault (`struck` counts it in the proxy's figures).
async fn through_faults(
    env: &Env,
    faults: Faults,
    seed: u64,
    what: &str,
    struck: fn(&ProxyStats) -> u64,
) -> TestResult {
    let (name, expected) = salted_fixture(env, 6000, seed).await?;
    let writes = env.fresh_table(&["d"], &[b"w3", b"w6"]).await?;
    let proxy = Proxy::start(vec![env.addr().to_owned()], faults, seed).await?;
    let client = Client::builder()
        .address(proxy.addr())
        .framing(env.options().framing)
        .protocol(env.options().protocol)
        .request_timeout(REQUEST_TIMEOUT)
        .down_backoff(Duration::from_millis(200))
        .retry_policy(DefaultRetryPolicy {
            max_attempts: 30,
            base_delay: Duration::from_millis(20),
            max_delay: Duration::from_millis(500),
            ..DefaultRetryPolicy::default()
        })
        .build()?;

    // Merged salted scans, forward and reversed.
    let mut phases = Vec::new();
    let mut phase = |name: &'static str, proxy: &Proxy, since: &mut u64| {
        let now = struck(&proxy.stats());
        phases.push((name, now - *since));
        *since = now;
    };
    let mut since = 0u64;
    let salted = client.table(&name)?.salted(user_schema());
    let mut merged = Tally::default();
    for reverse in [false, true] {
        let run = read_salted(&salted, Query::new().reverse(reverse), 200, Pace::FULL_SPEED).await;
        merged.add_in_direction(&expected, reverse, &run);
    }
    phase("merged scans", &proxy, &mut since);
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

    phase("plain scans", &proxy, &mut since);
    // Batched writes, then every acknowledged row read back through the proxy.
    let through = client.table(writes.name())?.with_batch_rows(100);
    let (mut acked, mut failures) = (Vec::new(), Vec::new());
    for batch_no in 0..10u32 {
        let batch: Vec<Bytes> = (0..500).map(|i| Bytes::from(format!("w{}_{batch_no:02}_{i:03}", i % 9))).collect();
        let result = through.put_many(batch.iter().map(|k| Put::new(k.clone()).cell("d", "v", k.clone()))).await;
        acked.extend(acknowledged(&batch, &result, &mut failures));
    }
    phase("put_many", &proxy, &mut since);
    let (mut wrong_gets, mut failed_gets) = (0u64, Vec::new());
    for chunk in acked.chunks(250) {
        match through.get_many(chunk.iter().map(|k| Get::new(k.clone()))).await {
            Ok(rows) => {
                wrong_gets +=
                    chunk.iter().zip(&rows).filter(|(k, row)| row.value(b"d", b"v") != Some(&k[..])).count() as u64;
            }
            Err(e) => failed_gets.push(e.to_string()),
        }
    }
    phase("get_many", &proxy, &mut since);
    // The truth of the writes is read directly, not through the proxy.
    let missing = unreadable(&writes, &acked).await?;
    let stats = proxy.stats();
    let pool = client.pool_stats();
    let merged_line = merged.report(&format!("merged salted scans through {what}"));
    let plain_line = plain.report(&format!("plain scans through {what}"));
    eprintln!("chaos figures: {merged_line}");
    eprintln!("chaos figures: {plain_line}");
    eprintln!(
        "chaos figures: put_many/get_many through {what}: rows acknowledged {} of 5000, acknowledged but unreadable \
         {missing}, failed batches {}, wrong gets {wrong_gets}, failed get batches {}",
        acked.len(),
        failures.len(),
        failed_gets.len()
    );
    eprintln!(
        "chaos figures: proxy through {what}: {} connections, {} stalled, {} replies dropped; client pool: {} \
         opened, {} discarded after a timeout or failure",
        stats.connections, stats.stalls, stats.dropped, pool.opened, pool.discarded_poisoned
    );
    eprintln!("chaos figures: faults met per workload through {what}: {phases:?}");
    drop(proxy);
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
        wrong.push(format!("{missing} acknowledged rows unreadable, {wrong_gets} wrong through the proxy"));
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
