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

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::Duration;

use basalt::{Put, Scan};
use basalt_rpc::{
    pb, BatchAction, Check, Connection, ConnectionOptions, Get, Mutation, RemoteExceptionKind, RowResult, RpcClient,
    RpcError, ScanSpec, Service,
};
use bytes::Bytes;

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
    ]
}

/// The region tool (`docker/RegionTool.java`): one command line in, one answer out.
struct RegionTool {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl RegionTool {
    fn start(env: &Env) -> Result<RegionTool, String> {
        let mut child = env
            .region_tool()
            .map_err(|e| e.to_string())?
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start the region tool: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut tool = RegionTool { child, stdin, stdout };
        match tool.answer()? {
            ready if ready == "ok ready" => Ok(tool),
            other => Err(format!("the region tool did not start: {other:?}")),
        }
    }

    fn answer(&mut self) -> Result<String, String> {
        loop {
            let mut line = String::new();
            if self.stdout.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
                return Err("the region tool exited".into());
            }
            if let Some(answer) = line.trim().strip_prefix("RT ") {
                return Ok(answer.to_owned());
            }
        }
    }

    fn call(&mut self, command: &str) -> Result<String, String> {
        writeln!(self.stdin, "{command}").and_then(|_| self.stdin.flush()).map_err(|e| e.to_string())?;
        let answer = self.answer()?;
        answer.strip_prefix("ok").map(|rest| rest.trim().to_owned()).ok_or_else(|| format!("{command}: {answer}"))
    }
}

impl Drop for RegionTool {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        for _ in 0..50 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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

/// `host:port` of every live region server.
async fn region_servers(env: &Env) -> Result<Vec<String>, String> {
    let answer = tool(env, vec!["servers".into()]).await?.remove(0);
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

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every cell of the rows as (row, family, qualifier, value).
fn native_cells(rows: &[RowResult]) -> Vec<(String, String, String, String)> {
    rows.iter()
        .flat_map(|row| row.cells.iter())
        .map(|c| (text(c.row()), text(c.family()), text(c.qualifier()), text(c.value())))
        .collect()
}

fn thrift_cells(rows: &[basalt::Row]) -> Vec<(String, String, String, String)> {
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
    // A dead bootstrap server is skipped; only dead ones fail with each one's reason.
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.local_addr()?.to_string()
    };
    let skipped =
        RpcClient::builder().bootstrap_server(dead.clone()).bootstrap_server(servers[0].clone()).connect().await?;
    assert_eq!(skipped.cluster().answered_by, servers[0]);
    match RpcClient::builder().bootstrap_server(dead.clone()).connect().await {
        Err(RpcError::Bootstrap(why)) => assert!(why.contains(&dead), "{why}"),
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
    ];
    for (what, spec, thrift_scan) in cases {
        let mut scanner = client.scan(&name, spec);
        let rows = scanner.collect_all().await?;
        let expected = table.scan_all(thrift_scan).await?;
        assert_eq!(rows.len(), expected.len(), "{what}: row count");
        assert_eq!(native_cells(&rows), thrift_cells(&expected), "{what}: cells");
        assert!(rows.iter().all(|r| !r.partial), "{what}: a partial row was delivered");
        if what == "partial pieces" {
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
    let mut renewed = client.scan(&name, ScanSpec::new().rows_per_page(100));
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
    let mut expired = client.scan(&name, ScanSpec::new().rows_per_page(100));
    let mut keys: Vec<String> = expired.next_page().await?.unwrap_or_default().iter().map(|r| text(r.row())).collect();
    tokio::time::sleep(SCANNER_TIMEOUT * 2).await;
    while let Some(page) = expired.next_page().await? {
        keys.extend(page.iter().map(|r| text(r.row())));
    }
    check_exact("expired", &keys, &expected)?;
    assert!(expired.reopened() >= 1, "the expired scanner was reopened");
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}
