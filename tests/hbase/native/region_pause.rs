//! A region server that accepts connections but never answers (a long GC pause, a
//! stopped process): the native client's cached locations point at it, and its calls
//! time out. Its regions are moved away meanwhile (here: the server is stopped with
//! SIGSTOP, its ZooKeeper session expires after 6 s, and the master reassigns them to
//! the other region server). Reads and writes to those regions must then succeed within
//! two request timeouts: a timeout drops the region's cached location, so the next
//! attempt reads `hbase:meta` again and follows the region.
//!
//! On a test bed of its own (one local-cluster region server plus one extra region
//! server JVM), as `region_crash`; the stopped server is always sent SIGCONT before the
//! test ends, and stopped by pid with the test bed.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use basalt::{Bytes, Client, Get, Put};
use basalt_testkit::{HBase, RegionServer};

use crate::data::regions::{tool_call, RegionTool};
use crate::support::test_bed::{blocking, on_own_test_bed};
use crate::support::{patient_retries, Env, Test, TestResult, Transport};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![regions_of_a_stopped_server_are_followed_within_two_request_timeouts]
}

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// The client's request timeout: each call to the stopped server costs this much.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);
/// Regions of the table (all on the server that is stopped), and rows per region.
const SPLITS: &[&[u8]] = &[b"r2", b"r4", b"r6"];
const ROWS: usize = 8;

fn row(i: usize) -> Bytes {
    Bytes::from(format!("r{}_{i:03}", i % 8))
}

/// A region server paused with SIGSTOP, sent SIGCONT when dropped (on every path).
struct Paused<'a> {
    server: &'a RegionServer,
    resumed: bool,
}

impl<'a> Paused<'a> {
    fn pause(server: &'a RegionServer) -> Result<Paused<'a>, String> {
        server.pause().map_err(|e| e.to_string())?;
        Ok(Paused { server, resumed: false })
    }

    fn resume(&mut self) -> Result<(), String> {
        self.resumed = true;
        self.server.resume().map_err(|e| e.to_string())
    }
}

impl Drop for Paused<'_> {
    fn drop(&mut self) {
        if !self.resumed {
            let _ = self.server.resume();
        }
    }
}

/// The servers of the regions of `table`, from the tool's `regions`.
async fn servers_of(tool: &Arc<Mutex<RegionTool>>, table: &str) -> Result<Vec<String>, Failure> {
    let answer = tool_call(tool, format!("regions {table}")).await?;
    Ok(answer.split_whitespace().filter_map(|entry| entry.splitn(3, ':').nth(2).map(str::to_owned)).collect())
}

async fn regions_of_a_stopped_server_are_followed_within_two_request_timeouts(env: Env) -> TestResult {
    if env.transport() != Transport::Native {
        return Err("registered for the native transport only".into());
    }
    let dir = format!("basalt-pause-{}", std::process::id());
    on_own_test_bed(&dir, |_| {}, |own, _started| async move { pause_under_calls(&own).await }).await
}

async fn pause_under_calls(own: &Arc<Mutex<HBase>>) -> TestResult {
    let launcher = own.lock().map_err(|_| "poisoned")?.region_servers()?;
    let extra: RegionServer = blocking(move || launcher.start().map_err(|e| e.to_string())).await?;
    let outcome = with_extra_server(own, &extra).await;
    // Stopped by pid whatever happened (it may have aborted itself after its session
    // expired: stopping a gone server is a no-op).
    let mut extra = extra;
    let stopped = blocking(move || extra.stop().map_err(|e| e.to_string())).await;
    outcome.and(stopped)
}

async fn with_extra_server(own: &Arc<Mutex<HBase>>, extra: &RegionServer) -> TestResult {
    let tool_cmd = own.lock().map_err(|_| "poisoned")?.region_tool()?;
    let tool = Arc::new(Mutex::new(blocking(move || RegionTool::spawn(tool_cmd)).await?));
    let servers: Vec<String> =
        tool_call(&tool, "servers".into()).await?.split_whitespace().map(str::to_owned).collect();
    let bootstrap: Vec<String> = servers
        .iter()
        .filter_map(|name| {
            let mut parts = name.split(',');
            Some(format!("{}:{}", parts.next()?, parts.next()?))
        })
        .collect();
    let client = Client::builder()
        .native(bootstrap)
        .request_timeout(REQUEST_TIMEOUT)
        .retry_policy(patient_retries(60, Duration::from_millis(50), Duration::from_secs(1)))
        .build()?;
    let name = format!("pause_{}", std::process::id());
    let mut desc = basalt::TableDescriptor::new(name.clone());
    desc = desc.family(basalt::ColumnFamily::new("d"));
    let splits: Vec<Bytes> = SPLITS.iter().map(|s| Bytes::copy_from_slice(s)).collect();
    client.admin().create_table(&desc, &splits).await?;
    let table = client.table(&name)?;
    let rows = ROWS * (SPLITS.len() + 1);
    table.put_many((0..rows).map(|i| Put::new(row(i)).cell("d", "v", "before"))).await?;
    tool_call(&tool, format!("moveto {name} {}", extra.server_name())).await?;
    let on_extra = servers_of(&tool, &name).await?.iter().filter(|s| *s == extra.server_name()).count();
    if on_extra != SPLITS.len() + 1 {
        return Err(format!("{on_extra} of {} regions on the extra region server", SPLITS.len() + 1).into());
    }
    // Every region's location cached (on the server about to stop).
    for i in 0..rows {
        table.get(Get::new(row(i))).await?;
    }

    let mut paused = Paused::pause(extra)?;
    let stopped_at = Instant::now();
    // A call in flight while the server is stopped and its regions move: it must ride
    // the move out within the retry budget. Stamped: resent after its attempt timed out
    // on the stopped server (a put on the server's clock would not be, as it may have
    // run there: its outcome would be unknown).
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let stamp = i64::try_from(now.as_millis()).unwrap_or(i64::MAX - 1);
    let during = table.put(Put::new(row(0)).cell_at("d", "v", "during", stamp));
    let wait_moved = async {
        loop {
            let on = servers_of(&tool, &name).await?;
            if !on.is_empty() && on.iter().all(|s| s != extra.server_name() && s != "-") {
                return Ok::<Duration, Failure>(stopped_at.elapsed());
            }
            if stopped_at.elapsed() > Duration::from_secs(180) {
                return Err(format!("the regions did not move within 180 s: {on:?}").into());
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    };
    let (during, moved) = tokio::join!(async { (during.await, stopped_at.elapsed()) }, wait_moved);
    let moved = moved?;
    // Once the regions are elsewhere: a read and a write of one row of each region,
    // each timed (the cached locations still name the stopped server).
    let mut slowest = Duration::ZERO;
    let mut failures = Vec::new();
    for region in 0..=SPLITS.len() {
        let i = region * 2 + ROWS; // a row of region `region` not written during the pause
        let key = Bytes::from(format!("r{}_{i:03}", region * 2));
        let started = Instant::now();
        let read = table.get(Get::new(key.clone())).await;
        let write = table.put(Put::new(key.clone()).cell("d", "v", "after")).await;
        let took = started.elapsed();
        slowest = slowest.max(took);
        match (read, write) {
            (Ok(r), Ok(())) if r.value(b"d", b"v").is_some() => {}
            (read, write) => failures.push(format!("{key:?}: read {:?}, write {:?}", read.map(|_| ()), write)),
        }
    }
    paused.resume()?;
    drop(tool);
    eprintln!(
        "pause figures: region server stopped (SIGSTOP) with {} regions; regions moved {:.1} s after the stop; the \
         put in flight ended {:.1} s after the stop ({:?}); afterwards the slowest read+write of a region took \
         {:.1} s (request timeout {:?}); failed {}",
        SPLITS.len() + 1,
        moved.as_secs_f64(),
        during.1.as_secs_f64(),
        during.0.as_ref().map(|_| "ok"),
        slowest.as_secs_f64(),
        REQUEST_TIMEOUT,
        failures.len()
    );
    client.admin().delete_table(&name).await?;
    if !failures.is_empty() {
        return Err(format!("calls failed after the regions moved: {failures:?}").into());
    }
    if let Err(e) = during.0 {
        return Err(format!("the put in flight during the pause failed: {e}").into());
    }
    if slowest > 2 * REQUEST_TIMEOUT {
        return Err(format!(
            "a read and write of a moved region took {:.1} s, over two request timeouts",
            slowest.as_secs_f64()
        )
        .into());
    }
    Ok(())
}
