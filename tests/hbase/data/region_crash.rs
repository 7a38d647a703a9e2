//! A region server crashing under each transport: a merged salted scan and batched
//! writes in flight while the region server holding every region of their table is
//! killed (SIGKILL); HBase reassigns its regions once its ZooKeeper session expires and
//! its write-ahead logs are split, and the client must follow. On the native transport
//! that means connections refused, `hbase:meta` naming the dead server until the
//! reassignment, then the new locations; through the gateway, the gateway's own HBase
//! client rides it out and Basalt reopens scanners the gateway lost. Then a new region
//! server is started, the regions move onto it, the table is read again, and that
//! server is stopped under the same load (TERM: it closes its regions before it exits,
//! so clients meet regions closing and moving rather than a dead socket).
//!
//! The test runs on a test bed of its own (one local-cluster region server plus one
//! extra region server JVM, `HBase::region_servers`), so that the crash and the new
//! server never touch the tables of tests running beside it, and the suite's test bed
//! keeps its two region servers. It costs that test bed's start (15-30 s) and about
//! 1.3 GB of memory while it runs.
//!
//! The scan must return exactly the table's rows, in order, and every acknowledged
//! write must be readable.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use basalt::{Bytes, Client};
use basalt_rowkey::{Query, Value};
use basalt_testkit::{HBase, RegionServer};

use crate::data::regions::{tool_call, RegionTool};
use crate::gateway::chaos::{create_salted_table, user_schema};
use crate::support::regions::{unreadable_salted, without_any_write, without_the_writes, LoadEnd, SaltedLoad};
use crate::support::tally::{read_salted, Pace, Tally};
use crate::support::test_bed::{blocking, on_own_test_bed};
use crate::support::{patient_retries, Env, Test, TestResult, Transport};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![region_server_killed_mid_scan_and_mid_write]
}

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// `(encoded name, server name)` of every region of `table`, from the tool's `regions`.
async fn placement(tool: &Arc<Mutex<RegionTool>>, table: &str) -> Result<Vec<(String, String)>, Failure> {
    let answer = tool_call(tool, format!("regions {table}")).await?;
    Ok(answer
        .split_whitespace()
        .filter_map(|entry| {
            let mut parts = entry.splitn(3, ':');
            let encoded = parts.next()?.to_owned();
            let _start = parts.next()?;
            Some((encoded, parts.next()?.to_owned()))
        })
        .collect())
}

/// Waits until no region of `table` is on `server` and every one has a server.
async fn await_reassigned(tool: &Arc<Mutex<RegionTool>>, table: &str, server: &str) -> Result<Duration, Failure> {
    let started = Instant::now();
    loop {
        let regions = placement(tool, table).await?;
        if !regions.is_empty() && regions.iter().all(|(_, on)| on != server && on != "-") {
            return Ok(started.elapsed());
        }
        if started.elapsed() > Duration::from_secs(180) {
            return Err(format!("the regions of {table} were not reassigned within 180 s: {regions:?}").into());
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

async fn region_server_killed_mid_scan_and_mid_write(env: Env) -> TestResult {
    // In a directory kept when the test fails (its logs say what HBase did).
    let dir = format!("basalt-crash-{}-{:?}", std::process::id(), env.transport());
    let transport = env.transport();
    on_own_test_bed(&dir, |_| {}, |own, started| async move { crash_under_load(transport, &own, started).await }).await
}

async fn crash_under_load(transport: Transport, own: &Arc<Mutex<HBase>>, started: Instant) -> TestResult {
    let (addr, framed, compact, launcher) = {
        let hbase = own.lock().map_err(|_| "poisoned")?;
        (hbase.addr().to_owned(), hbase.framed(), hbase.compact(), hbase.region_servers()?)
    };
    let bed_ready = started.elapsed();
    let second = launcher.clone();
    let extra: RegionServer = blocking(move || second.start().map_err(|e| e.to_string())).await?;
    let tool_cmd = own.lock().map_err(|_| "poisoned")?.region_tool()?;
    let tool = Arc::new(Mutex::new(blocking(move || RegionTool::spawn(tool_cmd)).await?));
    let servers: Vec<String> =
        tool_call(&tool, "servers".into()).await?.split_whitespace().map(str::to_owned).collect();
    if servers.len() != 2 || !servers.iter().any(|s| s == extra.server_name()) {
        return Err(format!(
            "expected the local region server and {}, the tool lists {servers:?}",
            extra.server_name()
        )
        .into());
    }
    let bootstrap: Vec<String> = servers
        .iter()
        .filter_map(|name| {
            let mut parts = name.split(',');
            Some(format!("{}:{}", parts.next()?, parts.next()?))
        })
        .collect();
    let builder = Client::builder()
        .address(&addr)
        .framing(if framed { basalt::Framing::Framed } else { basalt::Framing::Buffered })
        .protocol(if compact { basalt::Protocol::Compact } else { basalt::Protocol::Binary });
    let builder = match transport {
        Transport::Native => builder.native(bootstrap.clone()),
        Transport::Thrift => builder,
    };
    let client = builder
        .request_timeout(Duration::from_secs(10))
        .retry_policy(patient_retries(60, Duration::from_millis(50), Duration::from_secs(1)))
        .build()?;
    let name = format!("crash_{}_{transport:?}", std::process::id());
    let expected = create_salted_table(&client, &name, 8_000, 91).await?;
    let moved: u64 = tool_call(&tool, format!("moveto {name} {}", extra.server_name())).await?.parse().unwrap_or(0);
    let on_extra = placement(&tool, &name).await?.iter().filter(|(_, on)| on == extra.server_name()).count();
    if on_extra != 16 {
        return Err(format!("{on_extra} of 16 regions on the extra region server after moving {moved}").into());
    }

    let salted = client.table(&name)?.salted(user_schema());
    // The crash, mid-scan and mid-write.
    let dead = extra.server_name().to_owned();
    let crash = under_load(&salted, &tool, &name, &expected, &dead, 0, move || {
        // Killed: dropping it afterwards does nothing more.
        let mut extra = extra;
        extra.kill().map_err(|e| e.to_string())
    })
    .await?;
    eprintln!(
        "chaos figures: {transport:?}: region server killed mid-scan and mid-write (test bed ready in {:.1} s): {}",
        bed_ready.as_secs_f64(),
        crash.report()
    );

    // A new region server, the regions moved onto it, the table read again; then that
    // server is stopped (TERM: it closes its regions, the master reopens them on the
    // other one) mid-scan and mid-write.
    let third = launcher.clone();
    let replacement: RegionServer = blocking(move || third.start().map_err(|e| e.to_string())).await?;
    let moved_back: u64 =
        tool_call(&tool, format!("moveto {name} {}", replacement.server_name())).await?.parse().unwrap_or(0);
    let again = read_salted(&salted, Query::new(), 500, Pace::FULL_SPEED).await;
    let mut after = Tally::default();
    after.add(&expected, &without_any_write(again));
    let unreadable_after = unreadable_salted(&salted, &crash.acked).await?;
    eprintln!(
        "chaos figures: {transport:?}, then on a new region server ({moved_back} regions moved to it, ready in {:.1} s): {}, \
         unreadable {unreadable_after}",
        replacement.ready_in().as_secs_f64(),
        after.report("merged salted scan"),
    );
    let stopping = replacement.server_name().to_owned();
    let stop = under_load(&salted, &tool, &name, &expected, &stopping, 1000, move || {
        let mut replacement = replacement;
        replacement.stop().map_err(|e| e.to_string())
    })
    .await?;
    eprintln!("chaos figures: {transport:?}: region server stopped mid-scan and mid-write: {}", stop.report());
    drop(tool);
    crash.tally.check(&format!("{transport:?}: merged salted scan across a region server crash"))?;
    after.check(&format!("{transport:?}: merged salted scan after the regions moved to a new region server"))?;
    stop.tally.check(&format!("{transport:?}: merged salted scan across a region server stop"))?;
    if unreadable_after > 0 {
        return Err(format!("{unreadable_after} acknowledged writes unreadable after the regions moved").into());
    }
    crash.check_writes("crash")?;
    stop.check_writes("stop")
}

/// What a paced merged scan and a writer saw while a region server went away.
struct Phase {
    tally: Tally,
    acked: Vec<Vec<Value>>,
    failures: Vec<String>,
    unreadable: u64,
    /// How long killing or stopping the server took.
    event_took: Duration,
    /// From the kill or stop to every region open elsewhere.
    reassigned: Duration,
    scan_took: Duration,
}

impl Phase {
    fn report(&self) -> String {
        format!(
            "the kill or stop took {:.1} s, regions reassigned {:.1} s after it began, scan ended {:.1} s after; {}; \
             writes acknowledged {}, unreadable {}, failed batches {} {:?}",
            self.event_took.as_secs_f64(),
            self.reassigned.as_secs_f64(),
            self.scan_took.as_secs_f64(),
            self.tally.report("merged salted scan"),
            self.acked.len(),
            self.unreadable,
            self.failures.len(),
            self.failures.first(),
        )
    }

    fn check_writes(&self, what: &str) -> TestResult {
        if self.unreadable > 0 || !self.failures.is_empty() || self.acked.is_empty() {
            return Err(format!(
                "{what}: {} acknowledged writes unreadable, {} batches failed (of {} acknowledged rows): {:?}",
                self.unreadable,
                self.failures.len(),
                self.acked.len(),
                self.failures.first()
            )
            .into());
        }
        Ok(())
    }
}

/// Runs a paced merged scan of `salted` (whose rows before the writes are `expected`)
/// and batched writes (batch numbers from `first_batch`); 3 s in, `event` takes region
/// server `server` away; once no region of `name` is on it, and 3 s more, the writes
/// stop. Compares the scan with the truth and reads every acknowledged write back.
async fn under_load(
    salted: &basalt::SaltedTable,
    tool: &Arc<Mutex<RegionTool>>,
    name: &str,
    expected: &[Bytes],
    server: &str,
    first_batch: u64,
    event: impl FnOnce() -> Result<(), String> + Send + 'static,
) -> Result<Phase, Failure> {
    let load = SaltedLoad::start(salted, first_batch);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let at = Instant::now();
    blocking(event).await?;
    let event_took = at.elapsed();
    await_reassigned(tool, name, server).await?;
    let reassigned = at.elapsed();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let LoadEnd { scan, acked, failures } = load.stop(Duration::from_secs(180)).await?;
    let scan_took = at.elapsed();
    // The scan's truth is the table's rows before the writes; the writer's rows
    // ("zz...") may or may not appear and are left out.
    let mut tally = Tally::default();
    tally.add(expected, &without_the_writes(expected, scan));
    let unreadable = unreadable_salted(salted, &acked).await?;
    Ok(Phase { tally, acked, failures, unreadable, event_took, reassigned, scan_took })
}
