//! A region server behind a proxy that stops reading (every connection stalls at its
//! first byte and stays open), while the client keeps sending: the client's queue of
//! unwritten requests stops at its bound (the connection fails and its calls end at
//! once, well before their deadline, instead of queueing without end), and a
//! connection's two tasks (its reader and writer, blocked on a socket nobody reads) end
//! when the connection fails at its bound (not when the pool next replaces it), when its
//! calls time out and it is discarded, and when the client is dropped.
//!
//! The client runs on a runtime of its own, so that every task alive on it is the
//! client's; the proxies run on the suite's runtime. On the suite's shared HBase.

use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt::{Bytes, Client, Get, NoRetry, Put};
use basalt_chaos::{Faults, Proxy};

use crate::support::faults::region_server_proxies;
use crate::support::test_bed::blocking;
use crate::support::{Env, Test, TestResult, Transport};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![a_peer_that_stops_reading_bounds_the_queue_and_frees_the_connections_tasks]
}

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// At most this many puts to the stalled server, each with a value of `BIG` bytes: 160
/// MiB in all, more than the 128 MiB a connection queues.
const BIG_PUTS: usize = 40;
const BIG: usize = 4 << 20;
/// The deadline of those puts: the bound must end them long before it.
const BIG_TIMEOUT: Duration = Duration::from_secs(20);
/// Small gets sent at once to the stalled server, and their deadline.
const SMALL_GETS: usize = 8;
const SMALL_TIMEOUT: Duration = Duration::from_secs(1);
/// The most request bytes a connection queues (the RPC layer's bound).
const QUEUE_BOUND: usize = 128 << 20;

/// What the scenario saw.
#[derive(Debug, Default)]
struct Seen {
    /// Tasks alive on the client's runtime: before the clients, once they were idle
    /// (connections cut), at the peak of the big puts, after them, after the small
    /// gets, and after the clients were dropped.
    tasks: [usize; 6],
    /// Puts sent before the first refusal came back.
    big_sent: usize,
    big_acked: usize,
    big_refused: usize,
    big_other: Vec<String>,
    big_took: Duration,
    /// The most request bytes a refusal said were queued.
    most_queued: usize,
    small_timed_out: usize,
    small_other: Vec<String>,
    /// The process's (all tests') peak resident memory so far, MiB: before the big puts
    /// and after them.
    hwm_mib: [u64; 2],
}

async fn a_peer_that_stops_reading_bounds_the_queue_and_frees_the_connections_tasks(env: Env) -> TestResult {
    if env.transport() != Transport::Native {
        return Err("registered for the native transport only".into());
    }
    let started = Instant::now();
    let table = env.fresh_table(&["d"], &[]).await?;
    table.put(Put::new("r").cell("d", "v", "x")).await?;
    let proxies = Arc::new(region_server_proxies(&env, 26).await?);
    let builder = env.client_builder();
    let name = table.name().to_owned();
    let on_own_runtime = proxies.clone();
    let seen = blocking(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        let seen = runtime.block_on(scenario(builder, &on_own_runtime, &name)).map_err(|e| e.to_string());
        drop(runtime);
        seen
    })
    .await;
    drop(proxies);
    table.client().admin().delete_table(table.name()).await?;
    let seen = seen?;
    let [before, idle, peak, after_big, after_small, dropped] = seen.tasks;
    eprintln!(
        "stalled peer figures: {} puts of {} MiB, one every 20 ms, to a server that stops reading: {} \
         acknowledged, {} refused by the queue's bound (at most {} MiB queued), other (count, first) {:?}, all \
         ended after {:.1} s (deadline {:?}); {SMALL_GETS} gets at once: {} timed out, other {:?}; the client's \
         tasks: {before} before, {idle} idle, {peak} at the peak, {after_big} after the puts, {after_small} after the gets, {dropped} after \
         the drop; the process's peak RSS {} MiB before the puts, {} MiB after; took {:.1} s",
        seen.big_sent,
        BIG >> 20,
        seen.big_acked,
        seen.big_refused,
        seen.most_queued >> 20,
        (seen.big_other.len(), seen.big_other.first()),
        seen.big_took.as_secs_f64(),
        BIG_TIMEOUT,
        seen.small_timed_out,
        seen.small_other,
        seen.hwm_mib[0],
        seen.hwm_mib[1],
        started.elapsed().as_secs_f64()
    );
    let mut wrong = Vec::new();
    if seen.big_acked > 0 || !seen.big_other.is_empty() {
        let (other, first) = (seen.big_other.len(), seen.big_other.first());
        wrong.push(format!("{} puts acknowledged, {other} other errors, the first {first:?}", seen.big_acked));
    }
    if seen.big_refused == 0 {
        wrong.push(format!("no put was refused at the queue's bound ({BIG_PUTS} x {} MiB queued)", BIG >> 20));
    }
    if seen.most_queued > QUEUE_BOUND {
        wrong.push(format!("{} MiB were queued, over the bound", seen.most_queued >> 20));
    }
    if seen.big_took >= BIG_TIMEOUT / 2 {
        wrong.push(format!("the puts ended after {:?}: the bound did not end them early", seen.big_took));
    }
    if seen.small_timed_out != SMALL_GETS || !seen.small_other.is_empty() {
        wrong.push(format!("{} of {SMALL_GETS} gets timed out, other {:?}", seen.small_timed_out, seen.small_other));
    }
    if after_big > idle {
        wrong.push(format!("{after_big} tasks after the connection failed at its bound, {idle} when idle"));
    }
    if after_small > idle {
        wrong.push(format!("{after_small} tasks after the timed-out connection was discarded, {idle} when idle"));
    }
    if dropped > before {
        wrong.push(format!("{dropped} tasks after the clients were dropped, {before} before they were built"));
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("; ").into())
    }
}

/// Tasks alive on the current runtime, once the count settles (tasks that were told to
/// end are gone within a few polls).
async fn settled_tasks() -> usize {
    let metrics = tokio::runtime::Handle::current().metrics();
    let mut last = metrics.num_alive_tasks();
    for _ in 0..20 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = metrics.num_alive_tasks();
        if now == last {
            return now;
        }
        last = now;
    }
    last
}

/// This process's peak resident memory so far in MiB (0 where `/proc` is missing).
fn peak_rss_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
    kib.unwrap_or(0) >> 10
}

/// The bytes a refusal at the queue's bound said were queued.
fn queued_bytes(error: &str) -> Option<usize> {
    let (_, after) = error.split_once("the server is not reading: ")?;
    after.split_whitespace().next()?.parse().ok()
}

/// A client reaching every region server through its proxy.
fn through(
    builder: &basalt::ClientBuilder,
    proxies: &[(String, Proxy)],
    timeout: Duration,
) -> Result<Client, basalt::Error> {
    let mut builder = builder.clone().request_timeout(timeout).retry_policy(NoRetry).retry_budget(BIG_TIMEOUT);
    for (server, proxy) in proxies {
        builder = builder.native_address_map(server.clone(), proxy.addr());
    }
    builder.build()
}

async fn scenario(builder: basalt::ClientBuilder, proxies: &[(String, Proxy)], table: &str) -> Result<Seen, Failure> {
    let mut seen = Seen::default();
    let metrics = tokio::runtime::Handle::current().metrics();
    seen.tasks[0] = settled_tasks().await;
    let patient = through(&builder, proxies, BIG_TIMEOUT)?;
    let quick = through(&builder, proxies, SMALL_TIMEOUT)?;
    // Bootstrap, meta and the region's server through untouched proxies.
    for client in [&patient, &quick] {
        client.table(table)?.get(Get::new("r")).await?;
    }
    // From now on the proxies stop reading: every new connection stalls at its first
    // byte; the open ones are cut (their tasks end on the closed socket).
    for (_, proxy) in proxies {
        proxy.set_faults(Faults { stall: 1.0, within_bytes: 1, ..Faults::none() });
        proxy.kill_all();
    }
    seen.tasks[1] = settled_tasks().await;

    // Big puts, one every 20 ms, on one new connection that is never read, until one is
    // refused: the connection then fails and nothing more is sent (a later call would
    // open a new connection and replace it in the pool).
    seen.hwm_mib[0] = peak_rss_mib();
    let big = Bytes::from(vec![b'x'; BIG]);
    let target = patient.table(table)?;
    let started = Instant::now();
    let mut puts = Vec::new();
    for i in 0..BIG_PUTS {
        let (target, big) = (target.clone(), big.clone());
        puts.push(tokio::spawn(async move { target.put(Put::new(format!("big{i:02}")).cell("d", "v", big)).await }));
        tokio::time::sleep(Duration::from_millis(20)).await;
        seen.tasks[2] = seen.tasks[2].max(metrics.num_alive_tasks());
        if puts.iter().any(|put| put.is_finished()) {
            break;
        }
    }
    seen.big_sent = puts.len();
    let mut outcomes = Vec::new();
    for put in puts {
        outcomes.push(put.await?);
    }
    seen.big_took = started.elapsed();
    for outcome in outcomes {
        match outcome {
            Ok(()) => seen.big_acked += 1,
            Err(e) => {
                let text = format!("{e} {e:?}");
                match queued_bytes(&text) {
                    Some(queued) => {
                        seen.big_refused += 1;
                        seen.most_queued = seen.most_queued.max(queued);
                    }
                    None => seen.big_other.push(e.to_string()),
                }
            }
        }
    }
    drop(big);
    seen.tasks[3] = settled_tasks().await;
    seen.hwm_mib[1] = peak_rss_mib();

    // Small gets at once on another new connection, never read: each times out, and the
    // connection is discarded.
    let small = quick.table(table)?;
    let gets = futures::future::join_all((0..SMALL_GETS).map(|_| small.get(Get::new("r")))).await;
    for outcome in gets {
        match outcome {
            Err(basalt::Error::Timeout { .. }) => seen.small_timed_out += 1,
            Err(e) => seen.small_other.push(e.to_string()),
            Ok(_) => seen.small_other.push("acknowledged".into()),
        }
    }
    seen.tasks[4] = settled_tasks().await;
    drop((target, small, patient, quick));
    seen.tasks[5] = settled_tasks().await;
    Ok(seen)
}
