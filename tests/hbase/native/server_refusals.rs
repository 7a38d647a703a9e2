//! A region server that refuses calls, on one test bed of its own whose `hbase-site.xml`
//! switches quotas on, shrinks the call queue and the result size of a multi:
//!
//! 1. A request-number throttle quota on a table (`RpcThrottlingException`, whose
//!    message names the wait): calls wait the hinted interval, so each is refused about
//!    once at most; a call whose wait would end past its retry budget fails at once,
//!    with the server's exception.
//! 2. A call queue of 3 behind 3 handlers (`CallQueueTooBigException`), many gets at
//!    once: every get succeeds after the longer pause of a busy server.
//! 3. A multi get whose result exceeds `hbase.server.scanner.max.result.size`: the
//!    server answers part and refuses the rest with `MultiActionResultTooLarge` (to a
//!    client announcing version 1.2 or later in its connection header, as HBase's
//!    `RSRpcServices.multi` and `ServerRpcConnection` decide); the rest is resent at
//!    once, not counted as a failure.
//!
//! Each part counts the refusals its client's retry policy was asked about. The gateway
//! is not tested here: these refusals reach the gateway's own Java client, which retries
//! them itself.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use basalt::{
    BusyKind, Bytes, Client, DefaultRetryPolicy, Error, Get, NoRetry, Put, RetryDecision, RetryPolicy, Table,
};
use basalt_rpc::{RemoteExceptionKind, RetryRule, RpcClient, RpcError};
use basalt_testkit::HBase;

use crate::data::regions::{tool_call, RegionTool};
use crate::support::test_bed::{blocking, on_own_test_bed};
use crate::support::{Env, Test, TestResult, Transport};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![a_throttle_quota_a_full_call_queue_and_an_oversized_multi_on_one_test_bed]
}

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// The test bed's extra properties: one set serving the three parts.
const SITE: &[(&str, &str)] = &[
    ("hbase.quota.enabled", "true"),
    // Quotas set now are in force within a second (default: five minutes).
    ("hbase.quota.refresh.period", "1000"),
    ("hbase.regionserver.handler.count", "3"),
    ("hbase.ipc.server.max.callqueue.length", "3"),
    ("hbase.server.scanner.max.result.size", "131072"),
];

/// The throttled table's quota, requests per second, and the gets made against it.
const RATE: u32 = 10;
const THROTTLED_GETS: u32 = 40;
/// Gets at once against the tiny call queue.
const CONCURRENT_GETS: usize = 300;
/// Rows of the multi get and the size of each row's value: 1.5 MiB in all, over ten
/// times the result-size limit.
const MULTI_ROWS: usize = 192;
const VALUE_BYTES: usize = 8 << 10;

/// The refusals a retry policy was asked about, by kind.
#[derive(Debug, Default)]
struct Refusals {
    throttled: AtomicU64,
    queue_full: AtomicU64,
    other: AtomicU64,
    first_other: Mutex<Option<String>>,
}

impl Refusals {
    fn count(&self, error: &Error) {
        let counter = if is_throttled(error) {
            &self.throttled
        } else if matches!(error, Error::Busy { kind: BusyKind::CallQueueTooBig, .. }) {
            &self.queue_full
        } else {
            if let Ok(mut first) = self.first_other.lock() {
                first.get_or_insert_with(|| error.to_string());
            }
            &self.other
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    fn figures(&self) -> String {
        let first = self.first_other.lock().ok().and_then(|first| first.clone());
        format!(
            "throttled {}, call queue full {}, other {} {}",
            self.throttled.load(Ordering::Relaxed),
            self.queue_full.load(Ordering::Relaxed),
            self.other.load(Ordering::Relaxed),
            first.unwrap_or_default()
        )
    }
}

/// A retry policy that counts every refusal it is asked about, then decides as `inner`.
struct Counting<P> {
    inner: P,
    seen: Arc<Refusals>,
}

impl<P: RetryPolicy> RetryPolicy for Counting<P> {
    fn decide(&self, attempt: u32, error: &Error) -> RetryDecision {
        self.seen.count(error);
        self.inner.decide(attempt, error)
    }
}

/// Whether `error` is a throttling quota's refusal.
fn is_throttled(error: &Error) -> bool {
    matches!(error, Error::Server { exception: Some(class), .. } if class.ends_with(".RpcThrottlingException"))
}

/// A native client of the test bed whose retries `policy` decides.
fn client(bootstrap: &[String], policy: impl RetryPolicy + 'static, budget: Duration) -> Result<Client, Failure> {
    Ok(Client::builder()
        .native(bootstrap.to_vec())
        .retry_policy(policy)
        .retry_budget(budget)
        .gets_in_flight(0)
        .build()?)
}

async fn a_throttle_quota_a_full_call_queue_and_an_oversized_multi_on_one_test_bed(env: Env) -> TestResult {
    if env.transport() != Transport::Native {
        return Err("registered for the native transport only".into());
    }
    let dir = format!("basalt-refusals-{}", std::process::id());
    let site = |options: &mut basalt_testkit::LaunchOptions| {
        options.site_properties = SITE.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
    };
    on_own_test_bed(&dir, site, |own, started| async move {
        eprintln!("refusal figures: the test bed started in {:.1} s", started.elapsed().as_secs_f64());
        on_the_test_bed(&own).await
    })
    .await
}

async fn on_the_test_bed(own: &Arc<Mutex<HBase>>) -> TestResult {
    let setup = Instant::now();
    let tool_cmd = own.lock().map_err(|_| "poisoned")?.region_tool()?;
    let tool = Arc::new(Mutex::new(blocking(move || RegionTool::spawn(tool_cmd)).await?));
    let bootstrap: Vec<String> = tool_call(&tool, "servers".into())
        .await?
        .split_whitespace()
        .filter_map(|name| {
            let mut parts = name.split(',');
            Some(format!("{}:{}", parts.next()?, parts.next()?))
        })
        .collect();
    let admin_client = client(&bootstrap, DefaultRetryPolicy::default(), Duration::from_secs(60))?;
    let mut tables = Vec::new();
    for name in ["rate", "wait", "queue", "multi"] {
        let name = format!("refusals_{name}");
        let desc = basalt::TableDescriptor::new(name.clone()).family(basalt::ColumnFamily::new("d"));
        admin_client.admin().create_table(&desc, &[]).await?;
        tables.push(name);
    }
    eprintln!("refusal figures: the region tool and 4 tables took {:.1} s", setup.elapsed().as_secs_f64());
    // Every part runs, whatever the one before it found.
    let mut wrong = Vec::new();
    let part = Instant::now();
    if let Err(e) = throttled(&tool, &bootstrap, &tables[0], &tables[1]).await {
        wrong.push(format!("throttle quota: {e}"));
    }
    eprintln!("refusal figures: the throttle part took {:.1} s", part.elapsed().as_secs_f64());
    let part = Instant::now();
    if let Err(e) = queue_full(&bootstrap, &tables[2]).await {
        wrong.push(format!("call queue: {e}"));
    }
    eprintln!("refusal figures: the call queue part took {:.1} s", part.elapsed().as_secs_f64());
    let part = Instant::now();
    if let Err(e) = oversized_multi(&bootstrap, &tables[3]).await {
        wrong.push(format!("oversized multi: {e}"));
    }
    eprintln!("refusal figures: the multi part took {:.1} s", part.elapsed().as_secs_f64());
    drop(tool);
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("\n").into())
    }
}

/// Part 1: a throttle quota's wait is honoured, and one past the budget fails at once.
async fn throttled(tool: &Arc<Mutex<RegionTool>>, bootstrap: &[String], rate: &str, wait: &str) -> TestResult {
    let setup = client(bootstrap, DefaultRetryPolicy::default(), Duration::from_secs(30))?;
    for table in [rate, wait] {
        setup.table(table)?.put(Put::new("r").cell("d", "v", table.to_owned())).await?;
    }
    tool_call(tool, format!("throttle {rate} {RATE} sec")).await?;
    tool_call(tool, format!("throttle {wait} 1 min")).await?;
    // In force once each table refuses a call (a table's limiter is made on its first
    // call and filled at the next refresh).
    let probe = client(bootstrap, NoRetry, Duration::from_secs(30))?;
    let since = Instant::now();
    let (mut rate_on, mut wait_on) = (false, false);
    while !(rate_on && wait_on) {
        if since.elapsed() > Duration::from_secs(60) {
            return Err(format!("the quotas were not in force after 60 s (rate {rate_on}, wait {wait_on})").into());
        }
        for (table, on, calls) in [(rate, &mut rate_on, 2 * RATE), (wait, &mut wait_on, 2)] {
            for _ in 0..calls {
                match probe.table(table)?.get(Get::new("r")).await {
                    Ok(_) => {}
                    Err(e) if is_throttled(&e) => {
                        *on = true;
                        break;
                    }
                    Err(e) => return Err(format!("a probe of {table}: {e}").into()),
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let in_force = since.elapsed();
    // The rate's limiter fills again; then gets one after another, each retried after
    // the server's wait (a back-off from 10 ms alone would be refused several times a
    // call before reaching it).
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let seen = Arc::new(Refusals::default());
    let policy = DefaultRetryPolicy {
        max_attempts: 6,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_secs(2),
        ..DefaultRetryPolicy::default()
    };
    let patient = client(bootstrap, Counting { inner: policy, seen: seen.clone() }, Duration::from_secs(30))?;
    let table = patient.table(rate)?;
    let started = Instant::now();
    let mut failed = Vec::new();
    for _ in 0..THROTTLED_GETS {
        match table.get(Get::new("r")).await {
            Ok(row) if row.value(b"d", b"v") == Some(rate.as_bytes()) => {}
            Ok(row) => failed.push(format!("wrong row {row:?}")),
            Err(e) => failed.push(e.to_string()),
        }
    }
    let took = started.elapsed();
    let refused = seen.throttled.load(Ordering::Relaxed);
    // A wait past the budget: the table allows one call a minute, its next call waits
    // most of a minute; the budget is 5 s.
    let short_seen = Arc::new(Refusals::default());
    let short = client(
        bootstrap,
        Counting { inner: DefaultRetryPolicy::default(), seen: short_seen.clone() },
        Duration::from_secs(5),
    )?;
    // (HBase's limiter may let one more call through when the quota cache refreshes:
    // the first refused get is the one that counts, within five.)
    let (mut past_budget, mut at_once, mut short_refused, mut let_through) =
        (Ok(basalt::Row::default()), Duration::ZERO, 0, 0);
    for _ in 0..5 {
        let before = short_seen.throttled.load(Ordering::Relaxed);
        let started = Instant::now();
        past_budget = short.table(wait)?.get(Get::new("r")).await;
        at_once = started.elapsed();
        short_refused = short_seen.throttled.load(Ordering::Relaxed) - before;
        if past_budget.is_err() {
            break;
        }
        let_through += 1;
    }
    eprintln!(
        "refusal figures: throttle quota of {RATE} requests/s in force after {:.1} s; {THROTTLED_GETS} gets one after \
         another: {} acknowledged, {} failed, refused by the server {refused} times (policy saw: {}), took {:.1} s; a \
         get whose wait (1 request/min) is past its 5 s budget ended after {} ms, refused {short_refused} times: {} \
         ({let_through} let through before it)",
        in_force.as_secs_f64(),
        THROTTLED_GETS as usize - failed.len(),
        failed.len(),
        seen.figures(),
        took.as_secs_f64(),
        at_once.as_millis(),
        past_budget.as_ref().map_or_else(ToString::to_string, |_| "acknowledged".to_owned())
    );
    for table in [rate, wait] {
        tool_call(tool, format!("unthrottle {table}")).await?;
    }
    let mut wrong = Vec::new();
    if !failed.is_empty() {
        wrong.push(format!("{} throttled gets failed: {:?}", failed.len(), failed.first()));
    }
    if refused == 0 {
        wrong.push("no get was refused: the quota was not met and the test proved nothing".to_owned());
    }
    if refused > u64::from(THROTTLED_GETS) {
        wrong.push(format!("{refused} refusals for {THROTTLED_GETS} gets: the server's wait was not honoured"));
    }
    // The quota held: past the first second's calls, one a tenth of a second.
    let least = Duration::from_millis(u64::from(THROTTLED_GETS - 2 * RATE) * 1000 / u64::from(RATE));
    if took < least {
        wrong.push(format!("{THROTTLED_GETS} gets took {took:?}, under {least:?}: the quota did not hold"));
    }
    match &past_budget {
        Err(e) if is_throttled(e) => {}
        other => {
            wrong.push(format!("the get past its budget: {:?}, not the server's throttling", other.as_ref().err()))
        }
    }
    if at_once > Duration::from_secs(1) || short_refused > 1 {
        wrong.push(format!(
            "the get whose wait is past its budget took {at_once:?} and {short_refused} refusals, not one at once"
        ));
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("; ").into())
    }
}

/// Part 2: many gets at once against a call queue of 3 all succeed.
async fn queue_full(bootstrap: &[String], name: &str) -> TestResult {
    let seen = Arc::new(Refusals::default());
    let client = client(
        bootstrap,
        Counting { inner: DefaultRetryPolicy::default(), seen: seen.clone() },
        Duration::from_secs(60),
    )?;
    let table = client.table(name)?.with_batch_rows(100);
    let rows: Vec<Bytes> = (0..CONCURRENT_GETS).map(|i| Bytes::from(format!("r{i:04}"))).collect();
    table.put_many(rows.iter().map(|r| Put::new(r.clone()).cell("d", "v", r.clone()))).await?;
    let before = seen.queue_full.load(Ordering::Relaxed);
    let started = Instant::now();
    let gets = rows.iter().map(|row| {
        let table = &table;
        async move {
            match table.get(Get::new(row.clone())).await {
                Ok(found) if found.value(b"d", b"v") == Some(&row[..]) => Ok(()),
                Ok(found) => Err(format!("{row:?}: wrong row {found:?}")),
                Err(e) => Err(format!("{row:?}: {e}")),
            }
        }
    });
    let outcomes = futures::future::join_all(gets).await;
    let took = started.elapsed();
    let failed: Vec<&String> = outcomes.iter().filter_map(|o| o.as_ref().err()).collect();
    let refused = seen.queue_full.load(Ordering::Relaxed) - before;
    eprintln!(
        "refusal figures: {CONCURRENT_GETS} gets at once against a call queue of 3 (3 handlers): {} acknowledged, {} \
         failed, refused by the server (call queue full) {refused} times, retried {refused} times (policy saw: {}), \
         took {:.1} s",
        CONCURRENT_GETS - failed.len(),
        failed.len(),
        seen.figures(),
        took.as_secs_f64()
    );
    if !failed.is_empty() {
        return Err(format!("{} of {CONCURRENT_GETS} gets failed: {:?}", failed.len(), failed.first()).into());
    }
    if refused == 0 {
        return Err("the call queue never refused a get: the test proved nothing".into());
    }
    Ok(())
}

/// The RPC layer's retries as a rule: counts the failures the server asked to resend at
/// once (`MultiActionResultTooLarge`, `RetryImmediatelyException`) and the others, then
/// resends at once or after 100 ms.
#[derive(Debug, Default)]
struct Hints {
    immediately: AtomicU64,
    other: AtomicU64,
}

impl RetryRule for Hints {
    fn retry_after(&self, attempt: u32, _started: Instant, error: &RpcError) -> Option<Duration> {
        if matches!(error.remote().map(|r| r.kind()), Some(RemoteExceptionKind::RetryImmediately)) {
            self.immediately.fetch_add(1, Ordering::Relaxed);
            (attempt < 1000).then_some(Duration::ZERO)
        } else {
            self.other.fetch_add(1, Ordering::Relaxed);
            (attempt < 5).then_some(Duration::from_millis(100))
        }
    }
}

/// Part 3: a multi get larger than the result-size limit comes back whole.
async fn oversized_multi(bootstrap: &[String], name: &str) -> TestResult {
    let writer = client(bootstrap, DefaultRetryPolicy::default(), Duration::from_secs(30))?;
    let rows: Vec<Bytes> = (0..MULTI_ROWS).map(|i| Bytes::from(format!("m{i:04}"))).collect();
    let value = |row: &Bytes| {
        let mut v = row.to_vec();
        v.resize(VALUE_BYTES, b'x');
        Bytes::from(v)
    };
    writer
        .table(name)?
        .with_batch_rows(64)
        .put_many(rows.iter().map(|r| Put::new(r.clone()).cell("d", "v", value(r))))
        .await?;

    // The RPC layer: the server refused part of the multi with MultiActionResultTooLarge.
    let hints = Arc::new(Hints::default());
    let rpc =
        RpcClient::builder().bootstrap_server(bootstrap[0].clone()).connect().await?.with_retry_rule(hints.clone());
    let gets: Vec<basalt_rpc::Get> = rows.iter().map(|r| basalt_rpc::Get::new(r.clone())).collect();
    let answers = rpc.multi_get(name, &gets).await?;
    let rpc_wrong = rows
        .iter()
        .zip(&answers)
        .filter(|(row, answer)| answer.cells.first().map(|c| c.value()) != Some(&value(row)[..]))
        .count();
    let (immediately, other) = (hints.immediately.load(Ordering::Relaxed), hints.other.load(Ordering::Relaxed));

    // The client: one get_many with a policy that never retries; the resends the server
    // asks for are not failures, so it must come back whole.
    let seen = Arc::new(Refusals::default());
    let strict = client(bootstrap, Counting { inner: NoRetry, seen: seen.clone() }, Duration::from_secs(30))?;
    let table: Table = strict.table(name)?.with_batch_rows(MULTI_ROWS);
    let started = Instant::now();
    let found = table.get_many(rows.iter().map(|r| Get::new(r.clone()))).await;
    let took = started.elapsed();
    let client_wrong = match &found {
        Ok(found) => rows.iter().zip(found).filter(|(row, f)| f.value(b"d", b"v") != Some(&value(row)[..])).count(),
        Err(_) => MULTI_ROWS,
    };
    eprintln!(
        "refusal figures: a multi get of {MULTI_ROWS} rows of {} KiB against a 128 KiB result limit: RPC layer: {} \
         rows right, resent at once {immediately} times (other failures {other}); client (never retries): {} rows \
         right, refusals its policy saw: {}, took {} ms{}",
        VALUE_BYTES >> 10,
        MULTI_ROWS - rpc_wrong,
        MULTI_ROWS - client_wrong,
        seen.figures(),
        took.as_millis(),
        found.as_ref().err().map(|e| format!(": {e}")).unwrap_or_default()
    );
    let mut wrong = Vec::new();
    if rpc_wrong > 0 || client_wrong > 0 {
        wrong.push(format!("rows wrong or missing: {rpc_wrong} over RPC, {client_wrong} through the client"));
    }
    if immediately == 0 {
        wrong.push("the server never answered MultiActionResultTooLarge: the test proved nothing".to_owned());
    }
    if other > 0 || seen.other.load(Ordering::Relaxed) > 0 {
        wrong.push(format!("other failures: {other} over RPC; client: {}", seen.figures()));
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("; ").into())
    }
}
