//! Read replicas: a table with region replication 2 on the test bed's two region
//! servers (set through the launcher's `RegionTool.java`). The secondary replica sees
//! the primary's data once it is flushed and the secondary has refreshed its store
//! files (the test bed's `hbase.regionserver.storefile.refresh.period` is 1 s).
//!
//! Strong reads come from the primary and are never stale; a read of replica 1 is
//! stale and has the flushed cells; a timeline get or scan answers with the right
//! cells, and still answers when the primary replica is closed; replica ids HBase
//! cannot take are refused before anything is sent.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use basalt::{Consistency, Error, Get, InvalidInput, Put, Row, Scan, Table};

use crate::data::regions::{tool_call, RegionTool};
use crate::support::{Env, Test, TestResult, Transport};
use crate::tests;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

pub fn trials() -> Vec<Test> {
    tests![
        strong_secondary_and_timeline_reads,
        timeline_get_answers_while_the_primary_is_closed,
        invalid_replica_ids_are_refused_before_sending,
    ]
}

const ROWS: usize = 20;

fn key(i: usize) -> String {
    format!("r{i:03}")
}

fn value(i: usize) -> String {
    format!("v{i}")
}

/// A fresh one-region table with region replication 2, `ROWS` rows written and
/// flushed, and replica 1 serving them; with the region tool, for more commands.
async fn replicated_table(env: &Env) -> Result<(Table, Arc<Mutex<RegionTool>>), BoxError> {
    let table = env.fresh_table(&["d"], &[]).await?;
    let tool = Arc::new(Mutex::new(
        tokio::task::spawn_blocking({
            let env = env.clone();
            move || RegionTool::start(&env)
        })
        .await??,
    ));
    let replicas = tool_call(&tool, format!("replicas {} 2", table.name())).await?;
    // "0:SERVER 1:SERVER": the primary and replica 1, each on its own region server.
    let mut placed: Vec<(&str, &str)> = replicas.split_whitespace().filter_map(|s| s.split_once(':')).collect();
    placed.sort();
    match placed[..] {
        [("0", primary), ("1", secondary)] if primary != secondary => {}
        _ => return Err(format!("expected replicas 0 and 1 on two region servers, the tool says: {replicas}").into()),
    }
    table.put_many((0..ROWS).map(|i| Put::new(key(i)).cell("d", "q", value(i)))).await?;
    tool_call(&tool, format!("flush {}", table.name())).await?;
    // Replica 1 serves the rows once it has refreshed its store files.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let last = ROWS - 1;
        let row = table.get(Get::new(key(last)).consistency(Consistency::Timeline).replica_id(1)).await?;
        if row.value(b"d", b"q") == Some(value(last).as_bytes()) {
            return Ok((table, tool));
        }
        if Instant::now() > deadline {
            return Err(format!("replica 1 did not serve the flushed rows within 60 s: {row:?}").into());
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// Checks that `row` is row `i` with its one cell.
fn check_row(row: &Row, i: usize, what: &str) -> TestResult {
    if row.key() != key(i).as_bytes() || row.len() != 1 || row.value(b"d", b"q") != Some(value(i).as_bytes()) {
        return Err(format!("{what}: row {i} should be {}={}, got {row:?}", key(i), value(i)).into());
    }
    Ok(())
}

async fn strong_secondary_and_timeline_reads(env: Env) -> TestResult {
    let (table, _tool) = replicated_table(&env).await?;
    for i in [0, 7, ROWS - 1] {
        let strong = table.get(Get::new(key(i))).await?;
        check_row(&strong, i, "strong get")?;
        assert!(!strong.is_stale(), "a strong get is served by the primary: {strong:?}");

        let secondary = table.get(Get::new(key(i)).consistency(Consistency::Timeline).replica_id(1)).await?;
        check_row(&secondary, i, "get of replica 1")?;
        assert!(secondary.is_stale(), "replica 1 is a secondary: its answer is stale");

        let primary = table.get(Get::new(key(i)).consistency(Consistency::Timeline).replica_id(0)).await?;
        check_row(&primary, i, "get of replica 0")?;
        assert!(!primary.is_stale(), "replica 0 is the primary");

        // A timeline get: whichever replica answers first, the cells are the row's.
        let timeline = table.get(Get::new(key(i)).consistency(Consistency::Timeline)).await?;
        check_row(&timeline, i, "timeline get")?;
    }
    // A missing row on a secondary: an empty row.
    let missing = table.get(Get::new("zzz").consistency(Consistency::Timeline).replica_id(1)).await?;
    assert!(missing.is_empty(), "{missing:?}");

    // Several timeline gets at once (one multi-get on the gateway, one get each natively).
    let gets = (0..ROWS).map(|i| Get::new(key(i)).consistency(Consistency::Timeline));
    let rows = table.get_many(gets).await?;
    for (i, row) in rows.iter().enumerate() {
        check_row(row, i, "timeline get_many")?;
    }
    let secondary_gets = (0..ROWS).map(|i| Get::new(key(i)).consistency(Consistency::Timeline).replica_id(1));
    let rows = table.get_many(secondary_gets).await?;
    for (i, row) in rows.iter().enumerate() {
        check_row(row, i, "get_many of replica 1")?;
        assert!(row.is_stale(), "row {i} of replica 1 should be stale");
    }

    // Scans: strong from the primary, replica 1's rows all stale, timeline scans complete.
    let strong = table.scan_all(Scan::new().caching(7)).await?;
    let secondary = table.scan_all(Scan::new().caching(7).consistency(Consistency::Timeline).replica_id(1)).await?;
    let timeline = table.scan_all(Scan::new().caching(7).consistency(Consistency::Timeline)).await?;
    for (rows, what) in [(&strong, "strong scan"), (&secondary, "scan of replica 1"), (&timeline, "timeline scan")] {
        if rows.len() != ROWS {
            return Err(format!("{what}: {} rows, expected {ROWS}", rows.len()).into());
        }
        for (i, row) in rows.iter().enumerate() {
            check_row(row, i, what)?;
        }
    }
    assert!(strong.iter().all(|r| !r.is_stale()), "a strong scan reads the primary");
    assert!(secondary.iter().all(Row::is_stale), "a scan of replica 1 reads a secondary");
    Ok(())
}

async fn timeline_get_answers_while_the_primary_is_closed(env: Env) -> TestResult {
    let (table, tool) = replicated_table(&env).await?;
    let name = table.name().to_owned();
    let row_hex: String = key(3).bytes().map(|b| format!("{b:02x}")).collect();
    // Both paths know where the replicas are (the gateway's Java client and the native
    // client cache them): read once, then close the primary.
    check_row(&table.get(Get::new(key(3)).consistency(Consistency::Timeline)).await?, 3, "warm-up timeline get")?;
    tool_call(&tool, format!("close {name} {row_hex}")).await?;
    let outcome = async {
        // The primary is really gone: a strong read cannot be answered.
        let impatient = env
            .client_builder()
            .request_timeout(Duration::from_secs(2))
            .retry_budget(Duration::from_secs(3))
            .build()?
            .table(&name)?;
        match impatient.get(Get::new(key(3))).await {
            Ok(row) => return Err(format!("a strong get answered with the primary closed: {row:?}").into()),
            Err(error) if error.is_retryable() => {}
            Err(error) => return Err(format!("a strong get failed for an unexpected reason: {error}").into()),
        }
        // A timeline get is answered by the secondary, stale, with the row's cells.
        for i in [3, 4] {
            let begun = Instant::now();
            let row = table.get(Get::new(key(i)).consistency(Consistency::Timeline)).await?;
            check_row(&row, i, "timeline get with the primary closed")?;
            assert!(row.is_stale(), "only the secondary can answer: {row:?}");
            eprintln!("timeline get of {} with the primary closed: {:?}", key(i), begun.elapsed());
        }
        // So is a timeline scan: every row, from the secondary.
        let rows = table.scan_all(Scan::new().caching(7).consistency(Consistency::Timeline)).await?;
        if rows.len() != ROWS {
            return Err(format!("timeline scan with the primary closed: {} rows, expected {ROWS}", rows.len()).into());
        }
        for (i, row) in rows.iter().enumerate() {
            check_row(row, i, "timeline scan with the primary closed")?;
            assert!(row.is_stale(), "only the secondary can answer: {row:?}");
        }
        Ok::<(), BoxError>(())
    }
    .await;
    // Open the primary again whatever happened, then report.
    let reopened = tool_call(&tool, format!("open {name} {row_hex}")).await;
    outcome?;
    reopened?;
    Ok(())
}

async fn invalid_replica_ids_are_refused_before_sending(env: Env) -> TestResult {
    // A client whose every server is unreachable: a request that was sent would fail
    // with a connection error, not with `InvalidInput`.
    let nowhere = match env.transport() {
        Transport::Thrift => basalt::Client::builder().address("127.0.0.1:1"),
        Transport::Native => basalt::Client::builder().address("127.0.0.1:1").native(["127.0.0.1:1"]),
    };
    let table = nowhere.retry_budget(Duration::from_millis(200)).build()?.table("t")?;
    let timeline = || Get::new("r").consistency(Consistency::Timeline);
    for (get, what) in [
        (Get::new("r").replica_id(-1), "a negative id"),
        (timeline().replica_id(-5), "a negative id with timeline consistency"),
        (timeline().replica_id(65_536), "an id above 0xFFFF"),
        (Get::new("r").replica_id(1), "a secondary with strong consistency"),
    ] {
        match table.get(get).await {
            Err(Error::InvalidInput(InvalidInput::Option(message))) => {
                assert!(message.contains("replica"), "{message}")
            }
            other => return Err(format!("{what}: expected InvalidInput, got {other:?}").into()),
        }
    }
    match table.scan_all(Scan::new().consistency(Consistency::Timeline).replica_id(i32::MIN)).await {
        Err(Error::InvalidInput(InvalidInput::Option(_))) => {}
        other => return Err(format!("a scan of replica i32::MIN: expected InvalidInput, got {other:?}").into()),
    }
    // The same client does send a valid request (and fails to connect): the refusals
    // above were decided before sending.
    match table.get(timeline().replica_id(1)).await {
        Err(Error::InvalidInput(e)) => Err(format!("a valid replica id was refused: {e}").into()),
        Err(_) => Ok(()),
        Ok(row) => Err(format!("nothing listens on 127.0.0.1:1, yet a row came back: {row:?}").into()),
    }
}
