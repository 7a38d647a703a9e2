//! `basalt::Admin` over HBase's native RPC against an HBase with no gateway process at
//! all: a test bed of its own started with `gateway: false` (no Thrift2 server JVM; the
//! test first proves none runs), and a client built with `ClientBuilder::native` alone.
//! Every administrative call goes to the master and the region servers, and each
//! effect is checked through a second path: HBase's own Java client (`Admin`, the
//! launcher's `AdminProbe.java`), which reaches the cluster through ZooKeeper.
//!
//! One test bed for every admin call (CI time): namespaces, tables and families run
//! beside regions and snapshots (their tables differ); then an extra region server joins
//! and is killed, and the cluster's status (live and dead servers, regions in
//! transition, version, master, balancer) is compared with the Java client's.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use basalt::{Admin, Bytes, Client, ColumnFamily, Error, Put, TableDescriptor};
use basalt_testkit::HBase;

use super::admin_probe::{until, AdminProbe, Descriptor};
use crate::gateway::client_admin::settings_family;
use crate::support::test_bed::{blocking, on_own_test_bed};
use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        #[same_on_every_route("a gateway-less test bed is launched natively on every route")]
        admin_over_native_rpc_with_no_gateway_process
    ]
}

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// How long an effect may take to show through the Java client (a region opening on
/// another server, a compaction, replicas opening).
const SETTLE: Duration = Duration::from_secs(60);

async fn admin_over_native_rpc_with_no_gateway_process(env: Env) -> TestResult {
    let dir = format!("basalt-admin-{}", std::process::id());
    let adjust = |options: &mut basalt_testkit::LaunchOptions| {
        options.gateway = false;
        // Two region servers: regions move between them, replicas open on both.
        options.region_servers = 2;
    };
    on_own_test_bed(&dir, adjust, |own, started| async move { without_a_gateway(&env, &own, started).await }).await
}

async fn without_a_gateway(env: &Env, own: &Arc<Mutex<HBase>>, started: Instant) -> TestResult {
    let tool = {
        let hbase = own.lock().map_err(|_| "the test bed's lock was poisoned")?;
        no_gateway_runs(&hbase)?;
        hbase.region_tool()?
    };
    let ready = started.elapsed();
    let probe = AdminProbe::start(tool).await?;
    let probe_ready = started.elapsed().saturating_sub(ready);
    let servers = probe.servers().await?;
    if servers.len() != 2 {
        return Err(format!("expected two region servers, HBase's Java client lists {servers:?}").into());
    }
    // No gateway address: every call, admin included, goes over native RPC.
    let client = Client::builder().native(servers.clone()).build()?;
    let admin = client.admin();
    let checks = Instant::now();
    let (tables, regions) = tokio::join!(
        namespaces_tables_and_families(env, &admin, &client, &probe),
        regions_and_snapshots(env, &admin, &client, &probe, &servers),
    );
    tables.map_err(|e| format!("namespaces, tables and families: {e}"))?;
    regions.map_err(|e| format!("regions and snapshots: {e}"))?;
    balancer(&admin, &probe).await?;
    let checked = checks.elapsed();
    let dead = a_dead_server(own, &probe, &servers).await?;
    cluster_status(&admin, &probe, &servers, &dead).await?;
    eprintln!(
        "admin without a gateway: test bed up in {:.1} s, the Java client's probe in {:.1} s, admin checks took \
         {:.1} s, a dead server and the cluster's status {:.1} s",
        ready.as_secs_f64(),
        probe_ready.as_secs_f64(),
        checked.as_secs_f64(),
        checks.elapsed().saturating_sub(checked).as_secs_f64()
    );
    Ok(())
}

/// A region server that joined (an extra JVM) and was killed: the Java client lists it
/// among the dead. Its `host:port`.
async fn a_dead_server(own: &Arc<Mutex<HBase>>, probe: &AdminProbe, servers: &[String]) -> Result<String, Failure> {
    let launcher = own.lock().map_err(|_| "the test bed's lock was poisoned")?.region_servers()?;
    let mut extra = blocking(move || launcher.start().map_err(|e| e.to_string())).await?;
    let addr = extra.addr();
    let joined = until(SETTLE, "the extra region server live", || probe.servers(), |live| live.contains(&addr)).await;
    let killed = blocking(move || extra.kill().map_err(|e| e.to_string())).await;
    joined?;
    killed?;
    let gone = |c: &super::admin_probe::Cluster| c.dead.contains(&addr) && c.live == servers;
    until(SETTLE, "the killed region server dead", || probe.cluster(), gone).await?;
    Ok(addr)
}

/// The test bed has no gateway: no address, no Thrift2 server's files, and no process
/// of the test bed (its JVMs log to its directory) runs a Thrift server, while its
/// master does run.
fn no_gateway_runs(hbase: &HBase) -> TestResult {
    if !hbase.addr().is_empty() {
        return Err(format!("the test bed has a gateway address: {}", hbase.addr()).into());
    }
    let dir = hbase.run_dir().ok_or("the test bed was not launched natively")?;
    for file in ["thrift.pid", "thrift.addr"] {
        if dir.join(file).exists() {
            return Err(format!("the test bed has a Thrift2 server's {file}").into());
        }
    }
    let jvms: Vec<String> = hbase.jvm_peak_rss().into_iter().map(|(name, _)| name).collect();
    if jvms != ["master"] {
        return Err(format!("the test bed's running JVMs: {jvms:?}, expected the master's alone").into());
    }
    let (mine, thrift) = processes_logging_to(dir)?;
    if mine == 0 || thrift > 0 {
        return Err(format!("{mine} processes of the test bed, {thrift} of them Thrift servers").into());
    }
    Ok(())
}

/// The processes whose command line logs to `dir`'s logs (the test bed's JVMs), and how
/// many of them run a Thrift server.
fn processes_logging_to(dir: &Path) -> Result<(usize, usize), Failure> {
    let dir = dir.canonicalize()?;
    let marker = format!("-Dhbase.log.dir={}/logs", dir.display());
    let (mut mine, mut thrift) = (0, 0);
    for entry in std::fs::read_dir("/proc")? {
        let path = entry?.path();
        // Processes come and go: one that ended meanwhile has no command line.
        let Ok(cmdline) = std::fs::read(path.join("cmdline")) else { continue };
        let args: Vec<String> = cmdline.split(|b| *b == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
        if args.contains(&marker) {
            mine += 1;
            if args.iter().any(|a| a.contains("ThriftServer")) {
                thrift += 1;
            }
        }
    }
    Ok((mine, thrift))
}

/// Each `(key, value)` of `expected` as the Java client reads it (`family` `None`: the
/// table's values); every mismatch named.
fn expect(desc: &Descriptor, family: Option<&str>, expected: &[(&str, String)]) -> TestResult {
    let mut wrong = Vec::new();
    for (key, value) in expected {
        let seen = match family {
            Some(f) => desc.family(f, key),
            None => desc.table(key),
        };
        if seen != Some(value.as_str()) {
            wrong.push(format!("{key}: set {value}, Java reads {seen:?}"));
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!("{} {}: {}", family.map_or("table", |_| "family"), family.unwrap_or(""), wrong.join("; ")).into())
    }
}

/// What Basalt describes of a family, by HBase's names (typed settings as the Java
/// client's typed getters print them, named ones as they are).
fn basalt_family_view(family: &ColumnFamily) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = family.settings().iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let mut typed = |key: &str, value: Option<String>| {
        if let Some(value) = value {
            out.push((key.to_owned(), value));
        }
    };
    typed("VERSIONS", family.get_max_versions().map(|v| v.to_string()));
    typed("MIN_VERSIONS", family.get_min_versions().map(|v| v.to_string()));
    typed("TTL", family.get_ttl_seconds().map(|v| v.to_string()));
    typed("BLOOMFILTER", family.get_bloom_filter().map(|v| v.hbase_name().to_owned()));
    typed("COMPRESSION", family.get_compression().map(|v| v.hbase_name().to_owned()));
    typed("DATA_BLOCK_ENCODING", family.get_block_encoding().map(|v| v.hbase_name().to_owned()));
    typed("BLOCKSIZE", family.get_block_size().map(|v| v.to_string()));
    typed("IN_MEMORY", family.get_in_memory().map(|v| v.to_string()));
    typed("BLOCKCACHE", family.get_block_cache().map(|v| v.to_string()));
    typed("REPLICATION_SCOPE", family.get_replication_scope().map(|v| v.to_string()));
    typed("DFS_REPLICATION", family.get_dfs_replication().map(|v| v.to_string()));
    out
}

fn keys(keys: &[&str]) -> Vec<Bytes> {
    keys.iter().map(|k| Bytes::from(k.as_bytes().to_vec())).collect()
}

fn names(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

/// Basalt's regions (start key, `host:port`) against the Java client's open primaries.
async fn same_regions(admin: &Admin, probe: &AdminProbe, table: &str) -> TestResult {
    let mine: Vec<(Bytes, String)> = admin
        .list_regions(table)
        .await?
        .into_iter()
        .map(|r| (r.start_key, format!("{}:{}", r.host, r.port.unwrap_or(0))))
        .collect();
    let java: Vec<(Bytes, String)> =
        probe.regions(table).await?.into_iter().filter(|r| r.replica == 0).map(|r| (r.start, r.server)).collect();
    if mine != java {
        return Err(format!("{table}: Basalt lists the regions {mine:?}, HBase's Java client {java:?}").into());
    }
    Ok(())
}

async fn namespaces_tables_and_families(env: &Env, admin: &Admin, client: &Client, probe: &AdminProbe) -> TestResult {
    // Namespaces.
    let ns = env.unique("nadm");
    let config = BTreeMap::from([("owner".to_owned(), "billing".to_owned())]);
    admin.create_namespace(&ns, config.clone()).await?;
    assert_eq!(probe.namespace(&ns).await?, Some(config.clone()));
    assert_eq!(admin.describe_namespace(&ns).await?, config);
    // Modified: the configuration is replaced (a key left out is removed).
    let config = BTreeMap::from([("tier".to_owned(), "gold".to_owned())]);
    admin.modify_namespace(&ns, config.clone()).await?;
    assert_eq!(probe.namespace(&ns).await?, Some(config.clone()));
    assert_eq!(admin.describe_namespace(&ns).await?, config);
    let mut listed = admin.list_namespaces().await?;
    listed.sort();
    assert!(listed.contains(&ns), "{listed:?}");
    assert_eq!(listed, probe.namespaces().await?);
    match admin.create_namespace(&ns, BTreeMap::new()).await {
        Err(Error::AlreadyExists { .. }) => {}
        other => return Err(format!("a second create_namespace: expected AlreadyExists, got {other:?}").into()),
    }
    match admin.describe_namespace(&env.unique("nons")).await {
        Err(Error::NamespaceNotFound { .. }) => {}
        other => return Err(format!("a missing namespace: expected NamespaceNotFound, got {other:?}").into()),
    }

    // A table with every typed family setting, named ones, table settings, region
    // replication and splits.
    let name = format!("{ns}:orders");
    let d = settings_family()
        .min_versions(1)
        .block_cache(false)
        .dfs_replication(1)
        .setting("KEEP_DELETED_CELLS", "TRUE")
        .setting("hbase.hstore.blockingStoreFiles", "20");
    let desc = TableDescriptor::new(name.clone())
        .family(d)
        .family(ColumnFamily::new("m"))
        .region_replication(2)
        .max_file_size(1 << 30)
        .setting("MEMSTORE_FLUSHSIZE", "67108864")
        .setting("DURABILITY", "ASYNC_WAL")
        .setting("COMPACTION_ENABLED", "false")
        .setting("NORMALIZATION_ENABLED", "true")
        .setting("basalt.note", "orders table");
    admin.create_table(&desc, &keys(&["g", "p"])).await?;
    assert!(probe.exists(&name).await?);
    assert!(admin.table_exists(&name).await?);
    assert_eq!(probe.tables(&ns).await?, vec![name.clone()]);
    assert_eq!(admin.list_tables(&ns).await?, vec![name.clone()]);
    assert!(admin.list_tables_matching(&format!("{ns}:.*"), false).await?.contains(&name));
    let java = probe.descriptor(&name).await?;
    let s = |v: &str| v.to_owned();
    expect(
        &java,
        None,
        &[
            ("REGION_REPLICATION", s("2")),
            ("MAX_FILESIZE", s("1073741824")),
            ("MEMSTORE_FLUSHSIZE", s("67108864")),
            ("DURABILITY", s("ASYNC_WAL")),
            ("COMPACTION_ENABLED", s("false")),
            ("NORMALIZATION_ENABLED", s("true")),
            ("basalt.note", s("orders table")),
        ],
    )?;
    let d_settings = [
        ("VERSIONS", s("3")),
        ("MIN_VERSIONS", s("1")),
        ("BLOOMFILTER", s("ROWCOL")),
        ("TTL", s("86400")),
        ("COMPRESSION", s("GZ")),
        ("DATA_BLOCK_ENCODING", s("FAST_DIFF")),
        ("BLOCKSIZE", s("16384")),
        ("IN_MEMORY", s("true")),
        ("BLOCKCACHE", s("false")),
        ("REPLICATION_SCOPE", s("1")),
        ("DFS_REPLICATION", s("1")),
        ("KEEP_DELETED_CELLS", s("TRUE")),
        ("hbase.hstore.blockingStoreFiles", s("20")),
    ];
    expect(&java, Some("d"), &d_settings)?;
    assert_eq!(java.families.keys().cloned().collect::<BTreeSet<_>>(), names(&["d", "m"]));

    // The regions and their replicas open on the region servers.
    let starts = keys(&["", "g", "p"]);
    let both_replicas = |open: &Vec<super::admin_probe::OpenRegion>| {
        starts.iter().all(|k| (0..2).all(|replica| open.iter().any(|r| r.start == *k && r.replica == replica)))
    };
    until(SETTLE, "every region's two replicas open", || probe.regions(&name), both_replicas).await?;
    same_regions(admin, probe, &name).await?;

    // Basalt describes what the Java client reads: every table setting, every family's
    // typed and named settings.
    let mine = admin.describe_table(&name).await?;
    assert_eq!(mine.name(), name);
    assert_eq!(mine.get_region_replication(), Some(2));
    for (key, value) in mine.settings() {
        assert_eq!(java.table(key), Some(value.as_str()), "table setting {key}");
    }
    for family in mine.families() {
        let fname = String::from_utf8_lossy(family.name()).into_owned();
        let view = basalt_family_view(family);
        let pairs: Vec<(&str, String)> = view.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        expect(&java, Some(&fname), &pairs).map_err(|e| format!("Basalt describes otherwise: {e}"))?;
    }

    // Alter: a family added, one removed, a setting changed, from the described table.
    let altered = mine.family(ColumnFamily::new("x").max_versions(2)).without_family(b"m").max_file_size(2 << 30);
    admin.modify_table(&altered).await?;
    let java = probe.descriptor(&name).await?;
    assert_eq!(java.families.keys().cloned().collect::<BTreeSet<_>>(), names(&["d", "x"]));
    expect(&java, None, &[("MAX_FILESIZE", s("2147483648")), ("REGION_REPLICATION", s("2"))])?;
    expect(&java, Some("x"), &[("VERSIONS", s("2"))])?;
    expect(&java, Some("d"), &d_settings)?;

    // Families one by one.
    admin.modify_family(&name, &ColumnFamily::new("x").max_versions(7)).await?;
    expect(&probe.descriptor(&name).await?, Some("x"), &[("VERSIONS", s("7"))])?;
    admin.add_family(&name, &ColumnFamily::new("y").ttl_seconds(600)).await?;
    let java = probe.descriptor(&name).await?;
    assert_eq!(java.families.keys().cloned().collect::<BTreeSet<_>>(), names(&["d", "x", "y"]));
    expect(&java, Some("y"), &[("TTL", s("600"))])?;
    admin.delete_family(&name, b"y").await?;
    let java = probe.descriptor(&name).await?;
    assert_eq!(java.families.keys().cloned().collect::<BTreeSet<_>>(), names(&["d", "x"]));

    // Truncate keeping the splits, then dropping them (each disables the table first
    // and leaves it enabled).
    let table = client.table(&name)?;
    table.put(Put::new("h1").cell("d", "v", "1")).await?;
    assert_eq!(probe.get(&name, b"h1", b"d", b"v").await?, Some(Bytes::from("1")));
    admin.truncate_table(&name, true).await?;
    assert!(probe.enabled(&name).await?, "truncate leaves the table enabled");
    assert_eq!(probe.rows(&name).await?, 0);
    until(SETTLE, "the splits kept", || probe.starts(&name), |s| *s == starts).await?;
    table.put(Put::new("h2").cell("d", "v", "2")).await?;
    admin.truncate_table(&name, false).await?;
    assert!(probe.enabled(&name).await?);
    assert_eq!(probe.rows(&name).await?, 0);
    until(SETTLE, "the splits dropped", || probe.starts(&name), |s| *s == keys(&[""])).await?;

    // Disable, enable.
    admin.disable_table(&name).await?;
    assert!(!probe.enabled(&name).await?);
    assert!(!admin.is_table_enabled(&name).await?);
    admin.enable_table(&name).await?;
    assert!(probe.enabled(&name).await?);
    assert!(admin.is_table_enabled(&name).await?);

    // A missing table is TableNotFound; bad input is refused before sending.
    missing_tables(env, admin, &ns).await?;
    assert!(matches!(admin.create_namespace("bad-name", BTreeMap::new()).await, Err(Error::InvalidInput(_))));

    // Read-only, a table setting of its own: writes are refused.
    admin.modify_table(&admin.describe_table(&name).await?.read_only(true)).await?;
    expect(&probe.descriptor(&name).await?, None, &[("READONLY", s("true"))])?;
    assert!(table.put(Put::new("h3").cell("d", "v", "3")).await.is_err(), "a put into a read-only table");

    // Delete (it disables the table first), then the namespace.
    admin.delete_table(&name).await?;
    assert!(!probe.exists(&name).await?);
    assert!(!admin.table_exists(&name).await?);
    admin.delete_namespace(&ns).await?;
    assert_eq!(probe.namespace(&ns).await?, None);
    let mut listed = admin.list_namespaces().await?;
    listed.sort();
    assert!(!listed.contains(&ns));
    assert_eq!(listed, probe.namespaces().await?);
    Ok(())
}

/// Every table call on a missing table is `TableNotFound`.
async fn missing_tables(env: &Env, admin: &Admin, ns: &str) -> TestResult {
    let missing = format!("{ns}:missing");
    let family = ColumnFamily::new("d");
    let outcomes = [
        ("describe_table", admin.describe_table(&missing).await.map(drop)),
        ("disable_table", admin.disable_table(&missing).await),
        ("enable_table", admin.enable_table(&missing).await),
        ("is_table_enabled", admin.is_table_enabled(&missing).await.map(drop)),
        ("delete_table", admin.delete_table(&missing).await),
        ("truncate_table", admin.truncate_table(&missing, true).await),
        ("add_family", admin.add_family(&missing, &family).await),
        ("modify_family", admin.modify_family(&missing, &family).await),
        ("delete_family", admin.delete_family(&missing, b"d").await),
        ("flush", admin.flush(&missing).await),
        ("snapshot", admin.snapshot(&env.unique("nsnap"), &missing).await),
    ];
    for (call, outcome) in outcomes {
        match outcome {
            Err(Error::TableNotFound { table }) => assert!(table.ends_with("missing"), "{call}: {table}"),
            other => return Err(format!("{call} on a missing table: expected TableNotFound, got {other:?}").into()),
        }
    }
    Ok(())
}

async fn regions_and_snapshots(
    env: &Env,
    admin: &Admin,
    client: &Client,
    probe: &AdminProbe,
    servers: &[String],
) -> TestResult {
    let name = env.unique("nreg");
    let desc = TableDescriptor::new(name.clone()).family(ColumnFamily::new("d"));
    admin.create_table(&desc, &keys(&["g", "p"])).await?;
    until(SETTLE, "the table's regions open", || probe.starts(&name), |s| *s == keys(&["", "g", "p"])).await?;
    let table = client.table(&name)?;
    let files = |start: &'static str| probe.store_files(&name, start.as_bytes());

    // Flush one region, then the table: the region servers count the files.
    table.put(Put::new("a1").cell("d", "q", "1")).await?;
    table.put(Put::new("h1").cell("d", "q", "1")).await?;
    admin.flush_region(&name, b"a1").await?;
    assert_eq!(files("").await?, 1);
    assert_eq!(files("g").await?, 0, "only the region of a1 was flushed");
    admin.flush(&name).await?;
    assert_eq!(files("g").await?, 1);

    // A major compaction of one region leaves one file; a minor one of three files
    // fewer; a major one of the table one file in each region.
    table.put(Put::new("a2").cell("d", "q", "2")).await?;
    admin.flush_region(&name, b"a2").await?;
    assert_eq!(files("").await?, 2);
    admin.compact_region(&name, b"a1", true).await?;
    until(SETTLE, "one file after the major compaction", || files(""), |n| *n == 1).await?;
    for row in ["h2", "h3"] {
        table.put(Put::new(row).cell("d", "q", "2")).await?;
        admin.flush_region(&name, row.as_bytes()).await?;
    }
    // HBase may start a minor compaction itself after the third flush (its minimum
    // for one): the region then ends with fewer files either way.
    let three = files("g").await?;
    assert!((1..=3).contains(&three), "{three} files after three flushes");
    admin.compact_region(&name, b"h1", false).await?;
    until(SETTLE, "fewer files after the minor compaction", || files("g"), |n| *n < 3).await?;
    table.put(Put::new("a3").cell("d", "q", "3")).await?;
    table.put(Put::new("h4").cell("d", "q", "4")).await?;
    admin.flush(&name).await?;
    admin.compact(&name, true).await?;
    until(SETTLE, "one file in the first region after the table's major compaction", || files(""), |n| *n == 1).await?;
    until(SETTLE, "one file in the second region after the table's major compaction", || files("g"), |n| *n == 1)
        .await?;
    // The regions' loads as their servers report them to the master (every few
    // seconds): the store files the Java client counts in each region.
    let mut java_files = Vec::new();
    for start in probe.starts(&name).await? {
        java_files.push((start.clone(), probe.store_files(&name, &start).await?));
    }
    let as_java_counts = |regions: &Vec<(basalt::RegionLocation, Option<basalt::RegionLoad>)>| {
        regions.len() == java_files.len()
            && regions.iter().zip(&java_files).all(|((region, load), (start, files))| {
                region.start_key == start && load.as_ref().is_some_and(|l| l.store_files == *files)
            })
    };
    let loaded = until(
        SETTLE,
        &format!("each region's load reporting the Java client's store files {java_files:?} (Basalt's answer)"),
        || async { Ok(admin.list_regions_with_load(&name).await?) },
        as_java_counts,
    )
    .await?;
    // The regions written to ("" and "g") counted their writes.
    assert!(loaded[..2].iter().all(|(_, l)| l.as_ref().is_some_and(|l| l.write_requests > 0)), "{loaded:?}");

    // Split the last region, merge the first two.
    admin.split(&name, b"t").await?;
    until(SETTLE, "the split", || probe.starts(&name), |s| *s == keys(&["", "g", "p", "t"])).await?;
    admin.merge_regions(&name, &keys(&["a1", "h1"])).await?;
    until(SETTLE, "the merge", || probe.starts(&name), |s| *s == keys(&["", "p", "t"])).await?;
    assert_eq!(probe.get(&name, b"h1", b"d", b"q").await?, Some(Bytes::from("1")));
    same_regions(admin, probe, &name).await?;

    // Move the last region to the other server, then where the master picks.
    let at_t = |open: &Vec<super::admin_probe::OpenRegion>| {
        open.iter().find(|r| r.replica == 0 && &r.start[..] == b"t").map(|r| r.server.clone())
    };
    let from = at_t(&probe.regions(&name).await?).ok_or("no region starts at t")?;
    let to = servers.iter().find(|s| **s != from).ok_or("no other region server")?.clone();
    admin.move_region(&name, b"z", Some(&to)).await?;
    until(SETTLE, "the move", || probe.regions(&name), |open| at_t(open).as_deref() == Some(to.as_str())).await?;
    admin.move_region(&name, b"z", None).await?;
    until(SETTLE, "open after a move anywhere", || probe.regions(&name), |open| at_t(open).is_some()).await?;

    // Unassign: the region is open nowhere; assign: open again, and it serves.
    admin.unassign_region(&name, b"z").await?;
    until(SETTLE, "closed by the unassign", || probe.regions(&name), |open| at_t(open).is_none()).await?;
    admin.assign_region(&name, b"z").await?;
    until(SETTLE, "open after the assign", || probe.regions(&name), |open| at_t(open).is_some()).await?;
    table.put(Put::new("z1").cell("d", "q", "back")).await?;
    assert_eq!(probe.get(&name, b"z1", b"d", b"q").await?, Some(Bytes::from("back")));

    snapshots(admin, client, probe, &name).await
}

/// The balancer: off (the Java client says so, a run does not run), on (a run runs),
/// then as it was (after the other checks: a run may move their regions).
async fn balancer(admin: &Admin, probe: &AdminProbe) -> TestResult {
    let was_on = admin.set_balancer(false).await?;
    assert!(!probe.balancer().await?);
    assert!(!admin.is_balancer_enabled().await?);
    assert!(!admin.cluster_status().await?.balancer_on);
    assert!(!probe.cluster().await?.balancer);
    assert!(!admin.run_balancer().await?.ran);
    assert!(!admin.set_balancer(true).await?, "it was off");
    assert!(probe.balancer().await?);
    assert!(admin.is_balancer_enabled().await?);
    assert!(admin.cluster_status().await?.balancer_on);
    // On, with no region in transition, a run runs.
    until(SETTLE, "no region in transition", || probe.cluster(), |c| c.in_transition == 0).await?;
    let run = admin.run_balancer().await?;
    assert!(run.ran, "{run:?}");
    assert!(admin.set_balancer(was_on).await?, "it was on");
    assert_eq!(probe.balancer().await?, was_on);
    Ok(())
}

/// Snapshots: take, list, clone, restore, delete.
async fn snapshots(admin: &Admin, client: &Client, probe: &AdminProbe, name: &str) -> TestResult {
    let table = client.table(name)?;
    let snapshot = format!("{name}_s");
    admin.snapshot(&snapshot, name).await?;
    assert!(probe.snapshots().await?.contains(&(snapshot.clone(), name.to_owned())));
    let mut listed: Vec<(String, String)> =
        admin.list_snapshots().await?.into_iter().map(|s| (s.name, s.table)).collect();
    listed.sort();
    assert_eq!(listed, probe.snapshots().await?);
    table.put(Put::new("later").cell("d", "q", "x")).await?;
    let clone = format!("{name}_c");
    admin.clone_snapshot(&snapshot, &clone).await?;
    assert!(probe.exists(&clone).await?);
    assert_eq!(probe.get(&clone, b"a1", b"d", b"q").await?, Some(Bytes::from("1")));
    assert_eq!(probe.get(&clone, b"later", b"d", b"q").await?, None);
    match admin.clone_snapshot(&snapshot, &clone).await {
        Err(Error::AlreadyExists { .. }) => {}
        other => return Err(format!("a clone onto an existing table: expected AlreadyExists, got {other:?}").into()),
    }
    admin.restore_snapshot(&snapshot).await?;
    assert!(probe.enabled(name).await?, "enabled again after the restore");
    assert_eq!(probe.get(name, b"later", b"d", b"q").await?, None, "the restore dropped the later row");
    assert_eq!(probe.get(name, b"a1", b"d", b"q").await?, Some(Bytes::from("1")));
    admin.delete_snapshot(&snapshot).await?;
    assert!(!probe.snapshots().await?.iter().any(|(s, _)| *s == snapshot));
    assert!(!admin.list_snapshots().await?.iter().any(|s| s.name == snapshot));

    for table in [name, clone.as_str()] {
        admin.delete_table(table).await?;
        assert!(!probe.exists(table).await?);
    }
    Ok(())
}

/// The cluster's status against the Java client's: version, master, live and dead
/// servers (`dead` among them), regions in transition (none, once the tests' moves and
/// the dead server's recovery are over).
async fn cluster_status(admin: &Admin, probe: &AdminProbe, servers: &[String], dead: &str) -> TestResult {
    until(SETTLE, "no region in transition", || probe.cluster(), |c| c.in_transition == 0).await?;
    let java = probe.cluster().await?;
    let status = admin.cluster_status().await?;
    assert_eq!(status.version, java.version);
    assert!(status.version.starts_with("2."), "{status:?}");
    assert_eq!(status.master, java.master);
    let mut live: Vec<String> = status.live_servers.iter().map(|s| s.addr.clone()).collect();
    live.sort();
    assert_eq!(live, java.live);
    assert_eq!(live, servers);
    let mut listed = status.dead_servers.clone();
    listed.sort();
    assert_eq!(listed, java.dead);
    assert!(listed.iter().any(|s| s == dead), "{dead} is not among the dead: {listed:?}");
    assert_eq!(status.regions_in_transition.len(), java.in_transition);
    assert_eq!(status.balancer_on, java.balancer);
    Ok(())
}
