//! HBase's native RPC (`basalt-rpc`) against the real server: bootstrap through the
//! connection registry of the region servers and the master, decoding what the server
//! sends, writes and reads, scans across regions equal to the Thrift path's answer,
//! regions moved and split under a scan, and cancelled calls.
//!
//! The bootstrap servers are the region servers the region tool lists (`servers`): the
//! test bed picks their ports at random and they answer `ClientMetaService` themselves
//! in HBase 2.6, so no ZooKeeper is involved. The tool reports them as the servers
//! advertise themselves, the same way on both routes: 127.0.0.1 with the native launcher,
//! the container's address on Docker's network (reachable from a Linux host) in Docker.

use std::time::Duration;

use basalt::{Put, Scan};
use basalt_rpc::{
    pb, BatchAction, Check, Connection, ConnectionOptions, Get, Mutation, RemoteExceptionKind, RowResult, RpcClient,
    RpcError, ScanSpec, Service,
};
use bytes::Bytes;
use futures::TryStreamExt;

use crate::data::regions::RegionTool;
use crate::support::{Env, Test, TestResult, SCANNER_TIMEOUT};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        native_bootstrap_through_the_registry,
        native_put_get_and_mutations,
        native_scans_cross_regions_like_thrift,
        native_region_moved_and_split_mid_scan,
        native_dropped_calls_leave_the_connection_usable,
        native_scanner_lease_renewal_and_expiry,
        native_read_options_and_exact_bounds,
        native_scanner_renews_its_own_lease,
        native_increment_nonce_applied_once,
        native_row_mutations_and_delete_kinds,
    ]
}

/// Runs region-tool commands off the runtime; the tool stops at the end.
async fn tool(env: &Env, commands: Vec<String>) -> Result<Vec<String>, String> {
    let env = env.clone();
    tokio::task::spawn_blocking(move || {
        let mut tool = RegionTool::start(&env)?;
        commands.iter().map(|command| tool.call(command)).collect()
    })
    .await
    .map_err(|e| e.to_string())?
}

/// `host:port` of every live region server, asked from a blocking context (before a
/// native test's future starts).
pub fn region_servers_blocking(env: &Env) -> Result<Vec<String>, String> {
    let answer = RegionTool::start(env)?.call("servers")?;
    parse_servers(&answer)
}

/// `host:port` of every region server of the suite's test bed, listed once for the run
/// (its two never change: tests that add, stop or kill region servers do it on test beds
/// of their own), without a region tool JVM per call.
pub(crate) async fn region_servers(env: &Env) -> Result<Vec<String>, String> {
    let env = env.clone();
    tokio::task::spawn_blocking(move || env.native_servers().map(<[String]>::to_vec))
        .await
        .map_err(|e| e.to_string())?
}

/// The region tool's `servers` answer (`host,port,startcode` names) as `host:port`.
fn parse_servers(answer: &str) -> Result<Vec<String>, String> {
    let servers: Vec<String> = answer
        .split_whitespace()
        .filter_map(|name| {
            let mut parts = name.split(',');
            Some(format!("{}:{}", parts.next()?, parts.next()?))
        })
        .collect();
    if servers.is_empty() {
        return Err(format!("the region tool listed no region server: {answer:?}"));
    }
    Ok(servers)
}

async fn native_client(env: &Env) -> Result<RpcClient, Box<dyn std::error::Error + Send + Sync>> {
    let mut builder = RpcClient::builder().operation_timeout(Duration::from_secs(90));
    for server in region_servers(env).await? {
        builder = builder.bootstrap_server(server);
    }
    Ok(builder.connect().await?)
}

pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every cell of the rows as (row, family, qualifier, value).
fn native_cells(rows: &[RowResult]) -> Vec<(String, String, String, String)> {
    rows.iter()
        .flat_map(|row| row.cells.iter())
        .map(|c| (text(c.row()), text(c.family()), text(c.qualifier()), text(c.value())))
        .collect()
}

pub(crate) fn thrift_cells(rows: &[basalt::Row]) -> Vec<(String, String, String, String)> {
    rows.iter()
        .flat_map(|row| {
            row.cells().map(move |c| (text(row.key()), text(c.family()), text(c.qualifier()), text(c.value())))
        })
        .collect()
}

async fn native_bootstrap_through_the_registry(env: Env) -> TestResult {
    let servers = region_servers(&env).await?;
    let client = native_client(&env).await?;
    let cluster = client.cluster().clone();
    // The cluster id is a UUID.
    assert_eq!(cluster.cluster_id.len(), 36, "cluster id {:?}", cluster.cluster_id);
    assert_eq!(cluster.cluster_id.matches('-').count(), 4, "cluster id {:?}", cluster.cluster_id);
    let master = cluster.active_master.clone().ok_or("the registry named no active master")?;
    let meta = cluster.meta.first().ok_or("the registry gave no meta location")?;
    assert_eq!(meta.table, "hbase:meta");
    assert!(meta.start_key.is_empty() && meta.end_key.is_empty(), "meta is one region: {meta:?}");
    assert!(servers.contains(&meta.server) || meta.server == master, "meta on {} is not a known server", meta.server);
    // Every region server and the master answer the registry, with the same cluster.
    for server in servers.iter().chain([&master]) {
        let one = RpcClient::builder().bootstrap_server(server.clone()).connect().await?;
        assert_eq!(one.cluster().cluster_id, cluster.cluster_id, "asked {server}");
        assert_eq!(one.cluster().meta.first().map(|m| &m.server), Some(&meta.server), "asked {server}");
    }
    // A dead bootstrap server is skipped; only dead ones fail as unreachable, naming them.
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.local_addr()?.to_string()
    };
    let skipped =
        RpcClient::builder().bootstrap_server(dead.clone()).bootstrap_server(servers[0].clone()).connect().await?;
    assert_eq!(skipped.cluster().answered_by, servers[0]);
    match RpcClient::builder().bootstrap_server(dead.clone()).connect().await {
        Err(RpcError::Connect { addr, reason }) => assert!(addr == dead && !reason.is_empty(), "{addr}: {reason}"),
        other => return Err(format!("bootstrap from a dead server only: {other:?}").into()),
    }
    // A system table's region, read from meta through meta's own location.
    let namespace = client.locate("hbase:namespace", b"").await?;
    assert!(namespace.region_name.starts_with(b"hbase:namespace,,"), "{namespace:?}");
    assert!(servers.contains(&namespace.server), "{namespace:?}");
    eprintln!("native bootstrap: cluster {} master {master} meta on {}", cluster.cluster_id, meta.server);
    Ok(())
}

async fn native_put_get_and_mutations(env: Env) -> TestResult {
    let table = env.fresh_table(&["d", "e"], &[b"m"]).await?;
    let name = table.name().to_owned();
    let client = native_client(&env).await?;

    // A native put, read back natively (a Result with cells in the cell block) and
    // through Thrift.
    client
        .mutate(&name, &Mutation::put("a1").column("d", "x", "1").column("d", "y", "two").column("e", "z", ""))
        .await?;
    let row = client.get(&name, &Get::new("a1")).await?;
    let cells: Vec<_> = row.cells.iter().map(|c| (text(c.family()), text(c.qualifier()), text(c.value()))).collect();
    assert_eq!(
        cells,
        [
            ("d".into(), "x".into(), "1".into()),
            ("d".into(), "y".into(), "two".into()),
            ("e".into(), "z".into(), String::new())
        ]
    );
    assert!(row.cells.iter().all(|c| c.row() == b"a1" && c.timestamp() > 1_600_000_000_000));
    let via_thrift = table.get(basalt::Get::new("a1")).await?;
    assert_eq!(via_thrift.value(b"d", b"y"), Some(&b"two"[..]));
    // A Thrift put, read natively, one column only.
    table.put(Put::new("z9").cell("d", "x", "from thrift").cell("d", "w", "other")).await?;
    let row = client.get(&name, &Get::new("z9").column("d", "x")).await?;
    assert_eq!(row.cells.len(), 1);
    assert_eq!(row.value(b"d", b"x"), Some(&b"from thrift"[..]));
    assert!(client.get(&name, &Get::new("nope")).await?.is_empty());

    // Increments and appends return the new values.
    client.mutate(&name, &Mutation::increment("n").add("d", "c", 5)).await?;
    let counted = client.mutate(&name, &Mutation::increment("n").add("d", "c", 5)).await?;
    assert_eq!(counted.value(b"d", b"c"), Some(&10i64.to_be_bytes()[..]));
    client.mutate(&name, &Mutation::append("s").column("d", "t", "ab")).await?;
    let appended = client.mutate(&name, &Mutation::append("s").column("d", "t", "cd")).await?;
    assert_eq!(appended.value(b"d", b"t"), Some(&b"abcd"[..]));

    // Check-and-mutate: applied only when the check holds.
    let check = |expected: Option<&'static str>| Check {
        row: Bytes::from_static(b"a1"),
        family: Bytes::from_static(b"d"),
        qualifier: Bytes::from_static(b"x"),
        expected: expected.map(|v: &'static str| Bytes::from_static(v.as_bytes())),
        compare: pb::CompareType::Equal,
    };
    let put = Mutation::put("a1").column("d", "x", "3");
    assert!(!client.check_and_mutate(&name, &check(Some("2")), &put).await?);
    assert!(!client.check_and_mutate(&name, &check(None), &put).await?);
    assert!(client.check_and_mutate(&name, &check(Some("1")), &put).await?);
    assert_eq!(client.get(&name, &Get::new("a1")).await?.value(b"d", b"x"), Some(&b"3"[..]));

    // Deletes: one column, then the row.
    client.mutate(&name, &Mutation::delete("a1").column("d", "y", "")).await?;
    let row = client.get(&name, &Get::new("a1")).await?;
    assert_eq!(row.value(b"d", b"y"), None);
    assert_eq!(row.cells.len(), 2);
    client.mutate(&name, &Mutation::delete("a1")).await?;
    assert!(client.get(&name, &Get::new("a1")).await?.is_empty());

    // A batch across both regions, grouped by server, and a multi-get with a missing row.
    let actions: Vec<BatchAction> = (0..200)
        .map(|i| {
            BatchAction::Mutate(Mutation::put(format!("{}{i:03}", if i % 2 == 0 { "b" } else { "q" })).column(
                "d",
                "v",
                i.to_string(),
            ))
        })
        .collect();
    let outcomes = client.batch(&name, &actions).await?;
    assert!(outcomes.iter().all(Result::is_ok), "{:?}", outcomes.iter().find(|o| o.is_err()));
    let gets = [Get::new("b000"), Get::new("q199"), Get::new("missing"), Get::new("z9")];
    let rows = client.multi_get(&name, &gets).await?;
    let values: Vec<Option<String>> =
        rows.iter().map(|r| r.value(b"d", b"v").or(r.value(b"d", b"x")).map(text)).collect();
    assert_eq!(values, [Some("0".into()), Some("199".into()), None, Some("from thrift".into())]);
    let thrift_rows = table.scan_all(Scan::new().start("b").stop("r")).await?;
    let batched = thrift_rows.iter().filter(|r| r.key().len() == 4 && matches!(r.key()[0], b'b' | b'q')).count();
    assert_eq!(batched, 200, "every put of the batch is readable through Thrift");
    assert_eq!(client.cached_regions(&name), 2);

    // Typed errors from the server and for bad input.
    let missing_family = client.mutate(&name, &Mutation::put("a2").column("nofamily", "x", "1")).await;
    match missing_family {
        Err(RpcError::Remote(remote)) => {
            assert_eq!(remote.kind(), &RemoteExceptionKind::NoSuchColumnFamily, "{remote}")
        }
        other => return Err(format!("a put into a missing family: {other:?}").into()),
    }
    match client.get("no_such_table_here", &Get::new("x")).await {
        Err(RpcError::RegionNotFound { .. }) => {}
        other => return Err(format!("a get from a missing table: {other:?}").into()),
    }
    assert!(matches!(client.get(&name, &Get::new("")).await, Err(RpcError::InvalidArgument(_))));
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn native_scans_cross_regions_like_thrift(env: Env) -> TestResult {
    let splits: Vec<String> = (1..8).map(|i| format!("k{:04}", i * 125)).collect();
    let split_refs: Vec<&[u8]> = splits.iter().map(|s| s.as_bytes()).collect();
    let table = env.fresh_table(&["d"], &split_refs).await?;
    let name = table.name().to_owned();
    table
        .put_many((0..1000).map(|i| Put::new(format!("k{i:04}")).cell("d", "n", i.to_string()).cell("d", "m", "x")))
        .await?;
    // Three wide rows of 60 cells of 200 bytes, to come back in partial pieces.
    for r in 0..3 {
        let mut put = Put::new(format!("w{r}"));
        for q in 0..60 {
            put = put.cell("d", format!("q{q:02}"), vec![b'a' + (q % 26) as u8; 200]);
        }
        table.put(put).await?;
    }
    let client = native_client(&env).await?;
    let cases: Vec<(&str, ScanSpec, Scan)> = vec![
        ("all", ScanSpec::new().rows_per_page(37), Scan::new()),
        ("reversed", ScanSpec::new().reversed(true).rows_per_page(41), Scan::new().reversed(true)),
        (
            "bounded",
            ScanSpec::new().start("k0100").stop("k0630").rows_per_page(50),
            Scan::new().start("k0100").stop("k0630"),
        ),
        (
            "bounded reversed",
            ScanSpec::new().start("k0630").stop("k0100").reversed(true).rows_per_page(50),
            Scan::new().start("k0101").stop("k0631").reversed(true),
        ),
        ("limit", ScanSpec::new().start("k0120").limit(20).rows_per_page(7), Scan::new().start("k0120").limit(20)),
        ("one family, small pages", ScanSpec::new().column("d", "n").rows_per_page(1), Scan::new().column("d", "n")),
        ("partial pieces", ScanSpec::new().start("w").max_result_size(1000).rows_per_page(2), Scan::new().start("w")),
        // Scans fetch the next page ahead by default; the same scans without.
        ("all, not ahead", ScanSpec::new().rows_per_page(37).fetch_ahead(false), Scan::new()),
        (
            "partial pieces, not ahead",
            ScanSpec::new().start("w").max_result_size(1000).rows_per_page(2).fetch_ahead(false),
            Scan::new().start("w"),
        ),
    ];
    for (what, spec, thrift_scan) in cases {
        let mut scanner = client.scan(&name, spec);
        let rows = scanner.collect_all().await?;
        let expected = table.scan_all(thrift_scan).await?;
        assert_eq!(rows.len(), expected.len(), "{what}: row count");
        assert_eq!(native_cells(&rows), thrift_cells(&expected), "{what}: cells");
        assert!(rows.iter().all(|r| !r.partial), "{what}: a partial row was delivered");
        if what.starts_with("partial pieces") {
            assert_eq!(rows.len(), 3);
            assert!(rows.iter().all(|r| r.cells.len() == 60), "{what}: pieces joined into whole rows");
        }
    }
    assert_eq!(client.cached_regions(&name), 8);
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn native_region_moved_and_split_mid_scan(env: Env) -> TestResult {
    let servers = region_servers(&env).await?;
    if servers.len() < 2 {
        return Err(format!("moving regions needs two region servers; the test bed runs {servers:?}").into());
    }
    let table = env.fresh_table(&["d"], &[b"k1000", b"k2000"]).await?;
    let name = table.name().to_owned();
    let total = 3000;
    table.put_many((0..total).map(|i| Put::new(format!("k{i:04}")).cell("d", "n", i.to_string()))).await?;
    let expected: Vec<String> = (0..total).map(|i| format!("k{i:04}")).collect();
    let client = native_client(&env).await?;
    let before = client.locate(&name, b"k0000").await?;

    let mut forward = client.scan(&name, ScanSpec::new().rows_per_page(100));
    let mut reversed = client.scan(&name, ScanSpec::new().reversed(true).rows_per_page(100));
    let mut forward_rows: Vec<String> = Vec::new();
    let mut reversed_rows: Vec<String> = Vec::new();
    let mut step = 0;
    loop {
        let f = forward.next_page().await?;
        let r = reversed.next_page().await?;
        if f.is_none() && r.is_none() {
            break;
        }
        forward_rows.extend(f.unwrap_or_default().iter().map(|row| text(row.row())));
        reversed_rows.extend(r.unwrap_or_default().iter().map(|row| text(row.row())));
        step += 1;
        // Both scanners hold open server-side scanners in a region when the tool acts.
        match step {
            3 => {
                tool(&env, vec![format!("move {name}")]).await?;
                // A get meets the moved region and the cache follows it.
                let row = client.get(&name, &Get::new("k0000")).await?;
                assert_eq!(row.value(b"d", b"n"), Some(&b"0"[..]));
                let after = client.locate(&name, b"k0000").await?;
                assert_ne!(before.server, after.server, "the cache follows the move");
            }
            8 => {
                tool(&env, vec![format!("split {name} {}", hex(b"k0500")), format!("split {name} {}", hex(b"k2600"))])
                    .await?;
            }
            14 => {
                tool(&env, vec![format!("move {name}")]).await?;
            }
            _ => {}
        }
    }
    let mut expected_reversed = expected.clone();
    expected_reversed.reverse();
    check_exact("forward", &forward_rows, &expected)?;
    check_exact("reversed", &reversed_rows, &expected_reversed)?;
    assert!(forward.reopened() >= 1, "the forward scan never met a moved region");
    assert!(reversed.reopened() >= 1, "the reversed scan never met a moved region");
    assert_eq!(client.table_regions(&name).await?.len(), 5, "two splits make five regions");
    eprintln!("native move/split mid-scan: reopened forward {} reversed {}", forward.reopened(), reversed.reopened());
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// 0 lost, 0 duplicated, order kept.
fn check_exact(what: &str, got: &[String], expected: &[String]) -> Result<(), String> {
    let distinct: std::collections::BTreeSet<&String> = got.iter().collect();
    let duplicated = got.len() - distinct.len();
    let lost = expected.iter().filter(|k| !distinct.contains(k)).count();
    if duplicated != 0 || lost != 0 || got != expected {
        return Err(format!(
            "{what}: {} rows, {lost} lost, {duplicated} duplicated, order kept: {}",
            got.len(),
            got == expected
        ));
    }
    Ok(())
}

async fn native_dropped_calls_leave_the_connection_usable(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    let name = table.name().to_owned();
    table.put(Put::new("r").cell("d", "v", "1")).await?;
    let client = native_client(&env).await?;
    let region = client.locate(&name, b"r").await?;
    let conn = Connection::connect(&region.server, Service::Client, &ConnectionOptions::default()).await?;
    let request = pb::GetRequest {
        region: pb::RegionSpecifier {
            r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
            value: region.region_name.clone(),
        },
        get: pb::Get { row: Bytes::from_static(b"r"), ..Default::default() },
    };
    // Fifty calls abandoned right after they were sent: their entries go with them.
    for _ in 0..50 {
        let call = conn.call("Get", &request, None, Duration::from_secs(30));
        let _ = tokio::time::timeout(Duration::from_micros(1), call).await;
    }
    assert_eq!(conn.pending_calls(), 0, "a dropped call left its entry");
    // Their late replies are discarded; the connection still answers.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!conn.is_broken());
    let reply = conn.call("Get", &request, None, Duration::from_secs(30)).await?;
    assert!(!reply.cell_block.is_empty(), "the get's cells come in the cell block");
    // A deadline shorter than the server needs fails the call with a typed error.
    let scan = pb::ScanRequest {
        region: Some(request.region.clone()),
        scan: Some(pb::Scan::default()),
        number_of_rows: Some(10),
        close_scanner: Some(true),
        ..Default::default()
    };
    match conn.call("Scan", &scan, None, Duration::from_nanos(1)).await {
        Err(RpcError::Timeout { .. }) | Ok(_) => {}
        Err(other) => return Err(format!("a 1 ns deadline: {other:?}").into()),
    }
    assert_eq!(conn.pending_calls(), 0);
    // Through the client too: dropped gets, then gets that answer.
    for _ in 0..20 {
        let _ = tokio::time::timeout(Duration::from_micros(1), client.get(&name, &Get::new("r"))).await;
    }
    let row = client.get(&name, &Get::new("r")).await?;
    assert_eq!(row.value(b"d", b"v"), Some(&b"1"[..]));
    assert!(client.live_connections() >= 2, "registry and region server connections are kept");
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn native_scanner_lease_renewal_and_expiry(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    let name = table.name().to_owned();
    table.put_many((0..300).map(|i| Put::new(format!("k{i:04}")).cell("d", "n", i.to_string()))).await?;
    let expected: Vec<String> = (0..300).map(|i| format!("k{i:04}")).collect();
    let client = native_client(&env).await?;

    // Paused twice as long as the lease, renewing it every second: the same scanner
    // carries on.
    let mut renewed = client.scan(&name, ScanSpec::new().rows_per_page(100).auto_renew(false));
    let mut keys: Vec<String> = renewed.next_page().await?.unwrap_or_default().iter().map(|r| text(r.row())).collect();
    for _ in 0..SCANNER_TIMEOUT.as_secs() * 2 {
        tokio::time::sleep(Duration::from_secs(1)).await;
        renewed.renew_lease().await?;
    }
    while let Some(page) = renewed.next_page().await? {
        keys.extend(page.iter().map(|r| text(r.row())));
    }
    check_exact("renewed", &keys, &expected)?;
    assert_eq!(renewed.reopened(), 0, "a renewed lease kept the scanner open");

    // Not renewed: the lease expires, the server forgets the scanner, and the scan
    // reopens after the last row it delivered.
    let mut expired = client.scan(&name, ScanSpec::new().rows_per_page(100).auto_renew(false));
    let mut keys: Vec<String> = expired.next_page().await?.unwrap_or_default().iter().map(|r| text(r.row())).collect();
    tokio::time::sleep(SCANNER_TIMEOUT * 2).await;
    while let Some(page) = expired.next_page().await? {
        keys.extend(page.iter().map(|r| text(r.row())));
    }
    check_exact("expired", &keys, &expected)?;
    assert!(expired.reopened() >= 1, "the expired scanner was reopened");

    // Not renewed and not to be reopened (the `basalt::Client` transport's setting: the
    // client's core reopens and counts it): the expiry is the scan's error. Without
    // fetching ahead it comes with the next page; fetching ahead, the page asked for
    // before the lease expired is delivered first.
    for (ahead, pages_before_error) in [(false, 1), (true, 2)] {
        let spec = ScanSpec::new().rows_per_page(100).auto_renew(false).reopen_after_expiry(false).fetch_ahead(ahead);
        let mut told = client.scan(&name, spec);
        assert_eq!(told.next_page().await?.map(|page| page.len()), Some(100));
        tokio::time::sleep(SCANNER_TIMEOUT * 2).await;
        for _ in 1..pages_before_error {
            assert_eq!(told.next_page().await?.map(|page| self::keys(&page)), Some(expected[100..200].to_vec()));
        }
        match told.next_page().await {
            Err(RpcError::Remote(remote)) if matches!(remote.kind(), RemoteExceptionKind::UnknownScanner) => {}
            other => {
                let got = other.map(|p| p.map(|p| p.len()));
                return Err(format!("expected UnknownScannerException (ahead: {ahead}), got {got:?}").into());
            }
        }
        assert!(told.next_page().await?.is_none(), "the scan ended with its error");
    }
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

/// Row keys of a page or a scan.
fn keys(rows: &[RowResult]) -> Vec<String> {
    rows.iter().map(|r| text(r.row())).collect()
}

/// Every cell as (row, family:qualifier, timestamp).
fn stamped(rows: &[RowResult]) -> Vec<(String, String, u64)> {
    rows.iter()
        .flat_map(|row| row.cells.iter())
        .map(|c| (text(c.row()), format!("{}:{}", text(c.family()), text(c.qualifier())), c.timestamp() as u64))
        .collect()
}

async fn native_read_options_and_exact_bounds(env: Env) -> TestResult {
    let table = env.fresh_table(&["d", "e"], &[b"k0050"]).await?;
    let name = table.name().to_owned();
    let client = native_client(&env).await?;
    // 100 rows of three cells: d:a at time 100, e:b and e:c at time 200.
    let actions: Vec<BatchAction> = (0..100)
        .map(|i| {
            BatchAction::Mutate(
                Mutation::put(format!("k{i:04}"))
                    .column_at("d", "a", i.to_string(), 100)
                    .column_at("e", "b", "b", 200)
                    .column_at("e", "c", "c", 200),
            )
        })
        .collect();
    assert!(client.batch(&name, &actions).await?.iter().all(Result::is_ok));
    let all_keys =
        |range: std::ops::RangeInclusive<usize>| -> Vec<String> { range.map(|i| format!("k{i:04}")).collect() };
    let scan = |spec: ScanSpec| {
        let mut scanner = client.scan(&name, spec);
        async move { scanner.collect_all().await }
    };

    // Exact bounds, sent as include_start_row / include_stop_row, across the split.
    let rows = scan(ScanSpec::new().start("k0010").include_start(false).stop("k0060").include_stop(true)).await?;
    check_exact("exclusive start, inclusive stop", &keys(&rows), &all_keys(11..=60))?;
    let rows = scan(ScanSpec::new().stop("k0050").include_stop(true).rows_per_page(7)).await?;
    check_exact("inclusive stop at a region boundary", &keys(&rows), &all_keys(0..=50))?;
    let rows =
        scan(ScanSpec::new().start("k0060").include_start(false).stop("k0010").include_stop(true).reversed(true))
            .await?;
    let mut expected = all_keys(10..=59);
    expected.reverse();
    check_exact("reversed, exclusive start, inclusive stop", &keys(&rows), &expected)?;

    // Time ranges, whole and per family, and one timestamp.
    let rows = scan(ScanSpec::new().start("k0000").stop("k0002").time_range(150, 300)).await?;
    let want = |cells: &[(&str, &str, u64)]| -> Vec<(String, String, u64)> {
        cells.iter().map(|(r, c, t)| (r.to_string(), c.to_string(), *t)).collect()
    };
    assert_eq!(
        stamped(&rows),
        want(&[("k0000", "e:b", 200), ("k0000", "e:c", 200), ("k0001", "e:b", 200), ("k0001", "e:c", 200)])
    );
    let rows = scan(ScanSpec::new().start("k0000").stop("k0001").family_time_range("e", 0, 150)).await?;
    assert_eq!(stamped(&rows), want(&[("k0000", "d:a", 100)]), "family e limited to before 150");
    let row = client.get(&name, &Get::new("k0003").timestamp(200).column("e", "c")).await?;
    assert_eq!(stamped(std::slice::from_ref(&row)), want(&[("k0003", "e:c", 200)]));
    let row = client.get(&name, &Get::new("k0003").family_time_range("d", 0, 50)).await?;
    assert_eq!(row.cells.len(), 2, "d:a hidden by its family's range, e's cells kept");
    let inverted = client.get(&name, &Get::new("k0003").time_range(9, 3)).await;
    assert!(matches!(inverted, Err(RpcError::InvalidArgument(_))), "{inverted:?}");

    // Batch: rows in pieces of at most two cells, nothing lost; the limit counts rows.
    let pieces = scan(ScanSpec::new().batch(2).rows_per_page(5).cache_blocks(false)).await?;
    assert_eq!(pieces.len(), 200, "two pieces per row of three cells");
    assert!(pieces.iter().all(|p| p.cells.len() <= 2));
    assert_eq!(pieces.iter().filter(|p| !p.partial).count(), 100, "one final piece per row");
    let whole = scan(ScanSpec::new()).await?;
    assert_eq!(native_cells(&pieces), native_cells(&whole));
    let limited = scan(ScanSpec::new().batch(2).limit(5)).await?;
    assert_eq!(limited.len(), 10);
    check_exact("batch with limit", &keys(&limited).into_iter().step_by(2).collect::<Vec<_>>(), &all_keys(0..=4))?;

    // Filters as serialized protobuf, from basalt's typed filters.
    let prefix = basalt::transport::filter_protobuf::encode(&basalt::Filter::prefix("k002"))?;
    let rows = scan(ScanSpec::new().filter_bytes(&prefix)?).await?;
    check_exact("prefix filter", &keys(&rows), &all_keys(20..=29))?;
    let qualifier =
        basalt::transport::filter_protobuf::encode(&basalt::Filter::parse("QualifierFilter(=, 'binary:c')")?)?;
    let row = client.get(&name, &Get::new("k0007").filter_bytes(&qualifier)?).await?;
    assert_eq!(stamped(std::slice::from_ref(&row)), want(&[("k0007", "e:c", 200)]));
    assert!(matches!(ScanSpec::new().filter_bytes(b"\xff\xff"), Err(RpcError::InvalidArgument(_))));

    // The scan as a stream of rows.
    let streamed: Vec<RowResult> =
        client.scan(&name, ScanSpec::new().rows_per_page(9)).into_stream().try_collect().await?;
    check_exact("stream", &keys(&streamed), &all_keys(0..=99))?;

    // A per-client deadline of 1 µs (the timer fires at its next millisecond tick, so a
    // call may still beat it: one at a time on a quiet machine, even 50 at once, often
    // all do): of 500 gets sent at once, which the server cannot all answer within a
    // few milliseconds, some time out, and nothing else fails; the shared connections
    // stay usable for the default client.
    // Up to five rounds, so that a round the server answered within one tick does not
    // decide the test.
    let hasty = client.with_timeouts(Duration::from_micros(1), Duration::from_micros(1));
    let mut timed_out = 0;
    let get = Get::new("k0001");
    for _round in 0..5 {
        let answers = futures::future::join_all((0..500).map(|_| hasty.get(&name, &get))).await;
        for answer in answers {
            match answer {
                Ok(_) => {}
                Err(RpcError::Timeout { .. }) => timed_out += 1,
                Err(RpcError::RetriesExhausted { last, .. }) if matches!(*last, RpcError::Timeout { .. }) => {
                    timed_out += 1
                }
                Err(other) => return Err(format!("a 1 µs deadline: {other:?}").into()),
            }
        }
        if timed_out > 0 {
            break;
        }
    }
    assert!(timed_out > 0, "no get of 5 rounds of 500 timed out under a 1 µs deadline");
    assert_eq!(client.get(&name, &Get::new("k0001")).await?.value(b"d", b"a"), Some(&b"1"[..]));
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn native_scanner_renews_its_own_lease(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    let name = table.name().to_owned();
    table
        .put_many(
            (0..300).map(|i| Put::new(format!("k{i:04}")).cell("d", "a", "1").cell("d", "b", "2").cell("d", "c", "3")),
        )
        .await?;
    let expected: Vec<String> = (0..300).map(|i| format!("k{i:04}")).collect();
    let client = native_client(&env).await?;

    // Paused twice as long as the lease without asking for pages: the background task
    // keeps the scanner alive.
    let mut scanner = client.scan(&name, ScanSpec::new().rows_per_page(100));
    let mut got = keys(&scanner.next_page().await?.unwrap_or_default());
    tokio::time::sleep(SCANNER_TIMEOUT * 2).await;
    got.extend(keys(&scanner.next_page().await?.unwrap_or_default()));
    assert_eq!(scanner.reopened(), 0, "the renewed scanner was still open");
    assert!(scanner.lease_renewals() >= 2, "renewals: {}", scanner.lease_renewals());
    let rest: Vec<RowResult> = scanner.into_stream().try_collect().await?;
    got.extend(keys(&rest));
    check_exact("auto-renewed", &got, &expected)?;

    // Batch mode with the lease left to expire in the middle of a row: the reopen
    // skips the cells of that row already delivered, by comparison with the last one
    // delivered (not by count): while the scanner is gone, a delivered cell of that row
    // is deleted. Skipping two cells by count would lose `c`.
    let whole = client.scan(&name, ScanSpec::new()).collect_all().await?;
    let mut pieces_scan = client.scan(&name, ScanSpec::new().batch(2).rows_per_page(3).auto_renew(false));
    let mut pieces = pieces_scan.next_page().await?.unwrap_or_default();
    let in_progress = match pieces.last() {
        Some(last) if last.partial => last.row_bytes(),
        Some(_) | None => return Err("the first page does not end inside a row".into()),
    };
    table.delete(basalt::Delete::row(in_progress).latest_version("d", "a")).await?;
    tokio::time::sleep(SCANNER_TIMEOUT * 2).await;
    while let Some(page) = pieces_scan.next_page().await? {
        pieces.extend(page);
    }
    assert!(pieces_scan.reopened() >= 1, "the expired scanner was reopened");
    assert_eq!(native_cells(&pieces), native_cells(&whole), "no cell lost or repeated across the reopen");
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

/// The same increment sent twice with one nonce (as a retry after a lost reply would
/// be) is applied once: what makes retrying increments and appends safe.
async fn native_increment_nonce_applied_once(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    let name = table.name().to_owned();
    let client = native_client(&env).await?;
    client.mutate(&name, &Mutation::increment("n").add("d", "c", 1)).await?;
    let region = client.locate(&name, b"n").await?;
    let specifier = pb::RegionSpecifier {
        r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
        value: region.region_name.clone(),
    };
    let increment = |nonce: u64| pb::MutateRequest {
        region: specifier.clone(),
        mutation: pb::MutationProto {
            row: Some(Bytes::from_static(b"n")),
            mutate_type: Some(pb::mutation_proto::MutationType::Increment as i32),
            column_value: vec![pb::mutation_proto::ColumnValue {
                family: Bytes::from_static(b"d"),
                qualifier_value: vec![pb::mutation_proto::column_value::QualifierValue {
                    qualifier: Some(Bytes::from_static(b"c")),
                    value: Some(Bytes::copy_from_slice(&10i64.to_be_bytes())),
                    ..Default::default()
                }],
            }],
            nonce: Some(nonce),
            ..Default::default()
        },
        condition: None,
        nonce_group: Some(0x5eed),
    };
    let conn = Connection::connect(&region.server, Service::Client, &ConnectionOptions::default()).await?;
    let nonce = 0x00c0_ffee_u64 ^ std::process::id() as u64;
    for _ in 0..2 {
        conn.call("Mutate", &increment(nonce), None, Duration::from_secs(30)).await?;
    }
    let after = client.get(&name, &Get::new("n")).await?;
    assert_eq!(after.value(b"d", b"c"), Some(&11i64.to_be_bytes()[..]), "applied once");
    conn.call("Mutate", &increment(nonce + 1), None, Duration::from_secs(30)).await?;
    let after = client.get(&name, &Get::new("n")).await?;
    assert_eq!(after.value(b"d", b"c"), Some(&21i64.to_be_bytes()[..]), "another nonce applies again");
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn native_row_mutations_and_delete_kinds(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    let name = table.name().to_owned();
    let client = native_client(&env).await?;
    // Versions at 10, 20, 30 of d:q (the family keeps one version on reads by default,
    // so they are read with max_versions).
    for ts in [10, 20, 30] {
        client.mutate(&name, &Mutation::put("r").column_at("d", "q", format!("v{ts}"), ts)).await?;
    }
    let versions = |row: RowResult| row.cells.iter().map(|c| c.timestamp()).collect::<Vec<_>>();
    let all = || Get::new("r").max_versions(10);
    let family_versions = versions(client.get(&name, &all()).await?);
    if family_versions.len() < 2 {
        // The family keeps one version: only the delete kinds that need one are checked.
        assert_eq!(family_versions, [30]);
    } else {
        client.mutate(&name, &Mutation::delete("r").delete_version("d", "q", 20)).await?;
        assert_eq!(versions(client.get(&name, &all()).await?), [30, 10], "exactly version 20 deleted");
    }
    client.mutate(&name, &Mutation::delete("r").family_at("d", 29)).await?;
    assert_eq!(versions(client.get(&name, &all()).await?), [30], "versions at or before 29 deleted");

    // Atomic row mutations: a put and a delete together, then under conditions.
    client.mutate(&name, &Mutation::put("r").column("d", "a", "1").column("d", "b", "2")).await?;
    let together = [
        Mutation::put("r").column("d", "c", "3").durability(basalt_rpc::Durability::SyncWal),
        Mutation::delete("r").column("d", "a", ""),
    ];
    client.mutate_row(&name, &together).await?;
    let row = client.get(&name, &Get::new("r")).await?;
    assert_eq!((row.value(b"d", b"a"), row.value(b"d", b"c")), (None, Some(&b"3"[..])));
    let check = |expected: &'static str, compare: pb::CompareType| Check {
        row: Bytes::from_static(b"r"),
        family: Bytes::from_static(b"d"),
        qualifier: Bytes::from_static(b"b"),
        expected: Some(Bytes::from_static(expected.as_bytes())),
        compare,
    };
    let write = [Mutation::put("r").column("d", "e", "5"), Mutation::delete("r").column("d", "c", "")];
    // HBase compares the given value against the stored one: "1" < "2" holds for LESS.
    assert!(!client.check_and_mutate_row(&name, &check("2", pb::CompareType::NotEqual), &write).await?);
    assert!(client.get(&name, &Get::new("r")).await?.value(b"d", b"e").is_none(), "nothing applied");
    assert!(client.check_and_mutate_row(&name, &check("1", pb::CompareType::Less), &write).await?);
    let row = client.get(&name, &Get::new("r")).await?;
    assert_eq!((row.value(b"d", b"e"), row.value(b"d", b"c")), (Some(&b"5"[..]), None), "both applied");
    let mixed = [Mutation::put("r").column("d", "x", "1"), Mutation::put("other").column("d", "x", "1")];
    assert!(matches!(client.mutate_row(&name, &mixed).await, Err(RpcError::InvalidArgument(_))));
    let counter = [Mutation::increment("r").add("d", "n", 1)];
    assert!(matches!(client.mutate_row(&name, &counter).await, Err(RpcError::InvalidArgument(_))));
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}
