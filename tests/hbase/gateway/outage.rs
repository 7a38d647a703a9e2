//! A load balancer's only gateway restarts (issue 14): the balancer keeps accepting
//! connections and closes or resets each one before any reply, for a routine
//! restart's length. Clients with the default settings must ride it out: a merged
//! salted scan forward and one reversed, read through it, return exactly the table's
//! rows in order; batched writes all succeed and are readable; increments are never
//! applied twice, and say when their outcome is unknown. A client that never got an
//! answer from such an address still fails after the policy's few attempts (a
//! transport mismatch looks the same).
//!
//! The balancer is `basalt_chaos::Proxy` in front of a real gateway of the suite's
//! HBase: its upstream is stopped (connections to it refused), then the proxy points
//! at a second gateway process, as a restarted gateway at the same address.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt::{Bytes, Client, Error};
use basalt_chaos::{Faults, Proxy};
use basalt_rowkey::Query;

use crate::gateway::chaos::{
    acknowledged, salted_fixture, stamped_put, start_gateway, stop_gateway, unreadable, user_schema,
};
use crate::support::tally::{read_salted, Pace, Tally};
use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![load_balancer_restart_is_ridden_out, never_answered_address_fails_after_few_attempts]
}

/// How long the balancer accepts and drops while its gateway restarts (the issue
/// measured 10-12 s for a routine restart).
const RESTART: Duration = Duration::from_secs(12);

/// What the increments through the outage saw.
#[derive(Debug, Default)]
struct Increments {
    applied: i64,
    unknown: i64,
    failed: Vec<String>,
}

async fn load_balancer_restart_is_ridden_out(env: Env) -> TestResult {
    if env.options() != basalt_thrift::ConnectionOptions::default() {
        return Err("this test starts a buffered/binary gateway; the suite's gateway must match".into());
    }
    let (name, expected) = salted_fixture(&env, 20_000, 61).await?;
    let writes = env.fresh_table(&["d"], &[]).await?;
    // The gateway and its replacement (started now, so that the outage is a routine
    // restart's length whatever a JVM start costs on this machine).
    let (first, second) = tokio::join!(start_gateway(&env), start_gateway(&env));
    let (first, second) = (first?, second?);
    let proxy = Proxy::start(vec![first.addr().to_owned()], Faults::none(), 62).await?;

    // Default settings: the 45 s retry budget, the default retry policy. The writes
    // have a client (and pool) of their own, as in the other restart test.
    let client = Client::builder().address(proxy.addr()).build()?;
    let writer_client = Client::builder().address(proxy.addr()).build()?;
    let salted = client.table(&name)?.salted(user_schema());
    let mut scans = Vec::new();
    for reverse in [false, true] {
        let salted = salted.clone();
        scans.push((
            reverse,
            tokio::spawn(async move { read_salted(&salted, Query::new().reverse(reverse), 100, Pace::STEADY).await }),
        ));
    }
    let stop = Arc::new(AtomicBool::new(false));
    // Writes and increments answered so far: the outage starts once both have had an
    // answer (a client that never got one cannot tell an outage from a mismatch).
    let answered = Arc::new(AtomicU64::new(0));
    let writer = {
        let table = writer_client.table(writes.name())?;
        let (stop, answered) = (stop.clone(), answered.clone());
        tokio::spawn(async move {
            let (mut acked, mut failures, mut written) = (Vec::new(), Vec::new(), 0u64);
            let mut batch_no = 0u32;
            while !stop.load(Ordering::Relaxed) {
                let batch: Vec<Bytes> = (0..200).map(|i| Bytes::from(format!("w{batch_no:04}_{i:03}"))).collect();
                written += batch.len() as u64;
                let result = table.put_many(batch.iter().map(stamped_put)).await;
                if result.is_ok() && batch_no == 0 {
                    answered.fetch_add(1, Ordering::Relaxed);
                }
                acked.extend(acknowledged(&batch, &result, &mut failures));
                batch_no += 1;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            (acked, failures, written)
        })
    };
    let counter = {
        let table = writer_client.table(writes.name())?;
        let (stop, answered) = (stop.clone(), answered.clone());
        tokio::spawn(async move {
            let mut seen = Increments::default();
            while !stop.load(Ordering::Relaxed) {
                match table.increment_counter("counter", "d", "n", 1).await {
                    Ok(_) => {
                        if seen.applied == 0 {
                            answered.fetch_add(1, Ordering::Relaxed);
                        }
                        seen.applied += 1;
                    }
                    Err(Error::WriteOutcomeUnknown { .. }) => seen.unknown += 1,
                    Err(e) => seen.failed.push(e.to_string()),
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            seen
        })
    };

    // The gateway goes down behind the balancer, which keeps accepting: resets for the
    // first half of the restart, closes for the second.
    let waiting = Instant::now();
    while answered.load(Ordering::Relaxed) < 2 {
        if waiting.elapsed() > Duration::from_secs(120) {
            stop.store(true, Ordering::Relaxed);
            return Err("no write was answered in 120 s before the outage".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let before = proxy.stats();
    let outage = Instant::now();
    proxy.reset_when_upstream_down(true);
    stop_gateway(first).await?;
    tokio::time::sleep(RESTART / 2).await;
    proxy.reset_when_upstream_down(false);
    tokio::time::sleep(RESTART / 2).await;
    // Every connection accepted while the gateway was down was dropped: by the balancer
    // (it counts those as upstream failures), or by what stands behind it (on the Docker
    // route, Docker's port proxy accepts and then closes while the container's gateway is
    // down, so the balancer sees a connection that ends before any byte).
    let during = proxy.stats();
    proxy.set_upstreams(vec![second.addr().to_owned()]);
    let outage = outage.elapsed();
    let dropped = (during.upstream_failures - before.upstream_failures).max(during.connections - before.connections);
    tokio::time::sleep(Duration::from_secs(5)).await;
    stop.store(true, Ordering::Relaxed);

    let mut tally = Tally::default();
    for (reverse, scan) in scans {
        let run = tokio::time::timeout(Duration::from_secs(300), scan).await.map_err(|_| "a scan hung")??;
        tally.add_in_direction(&expected, reverse, &run);
    }
    let (acked, write_failures, written) =
        tokio::time::timeout(Duration::from_secs(120), writer).await.map_err(|_| "the writer hung")??;
    let increments = tokio::time::timeout(Duration::from_secs(120), counter).await.map_err(|_| "increments hung")??;
    let missing = unreadable(&writes, &acked).await?;
    let total = env.client().table(writes.name())?.increment_counter("counter", "d", "n", 0).await?;
    let (pool, writer_pool) = (client.pool_stats(), writer_client.pool_stats());
    eprintln!(
        "chaos figures: load balancer outage of {:.1} s: {dropped} connections accepted and dropped by the balancer; \
         connections opened by the scans' client {} (discarded after failures {}), by the writers' {} ({})",
        outage.as_secs_f64(),
        pool.opened,
        pool.discarded_poisoned,
        writer_pool.opened,
        writer_pool.discarded_poisoned
    );
    let scan_line = tally.report("merged salted scans (forward, reversed) through the load balancer outage");
    eprintln!("chaos figures: {scan_line}");
    eprintln!(
        "chaos figures: writes through the load balancer outage: rows written {written}, acknowledged {}, \
         acknowledged but unreadable {missing}, failed batches {}{}; increments: applied {}, outcome unknown {}, \
         failed {}, counter {total}",
        acked.len(),
        write_failures.len(),
        write_failures.first().map(|e| format!(" (first: {e})")).unwrap_or_default(),
        increments.applied,
        increments.unknown,
        increments.failed.len(),
    );
    drop(proxy);
    stop_gateway(second).await?;
    let admin = env.client().admin();
    admin.delete_table(&name).await?;
    admin.delete_table(writes.name()).await?;

    let mut wrong = Vec::new();
    if dropped == 0 {
        wrong.push("the balancer dropped no connection: the test proved nothing".to_owned());
    }
    if !tally.exact() {
        wrong.push(scan_line);
    }
    if missing > 0 {
        wrong.push(format!("{missing} acknowledged writes unreadable"));
    }
    if !write_failures.is_empty() {
        wrong.push(format!("{} write batches failed during the balancer's outage", write_failures.len()));
    }
    if !increments.failed.is_empty() {
        wrong.push(format!("increments failed without saying their outcome: {:?}", increments.failed.first()));
    }
    // Every applied increment counted once; those in doubt at most once each.
    if total < increments.applied || total > increments.applied + increments.unknown {
        wrong.push(format!(
            "counter {total}, but {} increments were applied and {} in doubt",
            increments.applied, increments.unknown
        ));
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("\n").into())
    }
}

/// A client that never got an answer from an address that accepts and drops every
/// connection cannot tell an outage from a transport mismatch: it must fail after the
/// default policy's 4 attempts, not wait for the 45 s budget.
async fn never_answered_address_fails_after_few_attempts(env: Env) -> TestResult {
    let gone = tokio::net::TcpListener::bind("127.0.0.1:0").await?.local_addr()?.to_string();
    let proxy = Proxy::start(vec![gone], Faults::none(), 63).await?;
    let options = env.options();
    let client = Client::builder().address(proxy.addr()).framing(options.framing).protocol(options.protocol).build()?;
    let outcome = tokio::time::timeout(Duration::from_secs(40), client.admin().list_namespaces()).await;
    let attempts = proxy.stats().connections;
    eprintln!("chaos figures: never-answered dropping address: {attempts} attempts, outcome {outcome:?}");
    match outcome {
        Err(_) => Err("a call to an address that never answered waited for the retry budget".into()),
        Ok(Ok(_)) => Err("the dropping proxy answered".into()),
        Ok(Err(Error::DroppedBeforeReply { .. })) => Err("a never-answered address was taken for an outage".into()),
        Ok(Err(e)) if !e.is_outage() && attempts == 4 => Ok(()),
        Ok(Err(e)) => Err(format!("after {attempts} attempts (expected 4): {e}").into()),
    }
}
