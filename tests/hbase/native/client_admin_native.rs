//! `basalt::Admin` over HBase's native RPC with a client built without any gateway
//! address (`ClientBuilder::native` alone): every administrative call goes to the
//! master and the region servers. Each effect is checked through a second path: the
//! Thrift2 gateway's client (`env.on(Transport::Thrift)`), its data reads, or the
//! region servers' own answers (store files).

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use basalt::{BlockEncoding, BloomFilter, Bytes, ColumnFamily, Compression, Error, Get, Put, TableDescriptor};

use basalt_rpc::RpcClient;

use crate::rpc::native_admin::store_files;
use crate::support::{Env, Test, TestResult, Transport};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        admin_without_a_gateway_manages_namespaces_tables_and_families,
        admin_without_a_gateway_manages_regions_snapshots_and_the_cluster
    ]
}

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// The region servers (listed once for every native test, before the test started).
fn servers(env: &Env) -> Result<Vec<String>, Failure> {
    Ok(env.native_servers()?.to_vec())
}

/// A client on native RPC alone: no gateway address.
fn native_only(env: &Env) -> Result<basalt::Client, Failure> {
    Ok(basalt::Client::builder().native(servers(env)?).build()?)
}

/// `basalt-rpc`'s own client, for the region servers' answers.
async fn rpc_client(env: &Env) -> Result<RpcClient, Failure> {
    let mut builder = RpcClient::builder().operation_timeout(Duration::from_secs(60));
    for server in servers(env)? {
        builder = builder.bootstrap_server(server);
    }
    Ok(builder.connect().await?)
}

/// The distinct start keys of the table's regions, as the gateway lists them.
async fn starts(gateway: &basalt::Client, table: &str) -> Result<BTreeSet<Bytes>, Error> {
    Ok(gateway.admin().list_regions(table).await?.into_iter().map(|r| r.start_key).collect())
}

fn keys(keys: &[&str]) -> BTreeSet<Bytes> {
    keys.iter().map(|k| Bytes::from(k.as_bytes().to_vec())).collect()
}

fn family_names(desc: &TableDescriptor) -> BTreeSet<Bytes> {
    desc.families().iter().map(|f| f.name().clone()).collect()
}

async fn admin_without_a_gateway_manages_namespaces_tables_and_families(env: Env) -> TestResult {
    let admin = native_only(&env)?.admin();
    let gateway_client = env.on(Transport::Thrift).client();
    let gateway = gateway_client.admin();

    // Namespaces.
    let ns = env.unique("nadm");
    let config = BTreeMap::from([("owner".to_owned(), "billing".to_owned())]);
    admin.create_namespace(&ns, config.clone()).await?;
    assert_eq!(gateway.describe_namespace(&ns).await?, config);
    assert!(admin.list_namespaces().await?.contains(&ns));
    assert_eq!(admin.describe_namespace(&ns).await?, config);
    match admin.create_namespace(&ns, BTreeMap::new()).await {
        Err(Error::AlreadyExists { .. }) => {}
        other => return Err(format!("a second create_namespace: expected AlreadyExists, got {other:?}").into()),
    }
    match admin.describe_namespace(&env.unique("nons")).await {
        Err(Error::NamespaceNotFound { .. }) => {}
        other => return Err(format!("a missing namespace: expected NamespaceNotFound, got {other:?}").into()),
    }

    // A table with family settings, table settings, region replication and splits.
    let name = format!("{ns}:orders");
    let desc = TableDescriptor::new(name.clone())
        .family(crate::gateway::client_admin::settings_family())
        .family(ColumnFamily::new("m"))
        .region_replication(2)
        .max_file_size(1 << 30)
        .setting("MEMSTORE_FLUSHSIZE", "67108864");
    admin.create_table(&desc, &[Bytes::from("g"), Bytes::from("p")]).await?;
    assert!(gateway.table_exists(&name).await?);
    assert_eq!(gateway.list_tables(&ns).await?, vec![name.clone()]);
    assert_eq!(admin.list_tables(&ns).await?, vec![name.clone()]);
    assert!(admin.list_tables_matching(&format!("{ns}:.*"), false).await?.contains(&name));
    let seen = gateway.describe_table(&name).await?;
    assert_eq!(seen.get_region_replication(), Some(2), "{seen:?}");
    assert_eq!(seen.get_setting("MAX_FILESIZE"), Some("1073741824"), "{seen:?}");
    assert_eq!(seen.get_setting("MEMSTORE_FLUSHSIZE"), Some("67108864"), "{seen:?}");
    let d = seen.get_family(b"d").ok_or("the gateway sees no family d")?;
    assert_eq!(d.get_max_versions(), Some(3));
    assert_eq!(d.get_bloom_filter(), Some(BloomFilter::RowCol));
    assert_eq!(d.get_ttl_seconds(), Some(86_400));
    assert_eq!(d.get_compression(), Some(Compression::Gz));
    assert_eq!(d.get_block_encoding(), Some(BlockEncoding::FastDiff));
    assert_eq!(d.get_block_size(), Some(16 * 1024));
    assert_eq!(d.get_in_memory(), Some(true));
    assert_eq!(d.get_replication_scope(), Some(1));
    assert_eq!(starts(&gateway_client, &name).await?, keys(&["", "g", "p"]));
    let mine = admin.describe_table(&name).await?;
    assert_eq!(mine.name(), name);
    assert_eq!(mine.get_region_replication(), Some(2));
    assert_eq!(mine.get_family(b"d").and_then(|f| f.get_ttl_seconds()), Some(86_400));
    // Both transports describe the families alike (typed settings typed, the rest named).
    assert_eq!(mine.families(), seen.families());
    assert!(!mine.get_family(b"d").is_some_and(|f| f.settings().contains_key("VERSIONS")), "{mine:?}");

    // Alter: a family added, one removed, a setting changed, from the described table.
    let altered = mine.family(ColumnFamily::new("x").max_versions(2)).without_family(b"m").max_file_size(2 << 30);
    admin.modify_table(&altered).await?;
    let seen = gateway.describe_table(&name).await?;
    assert_eq!(family_names(&seen), keys(&["d", "x"]));
    assert_eq!(seen.get_setting("MAX_FILESIZE"), Some("2147483648"), "{seen:?}");
    assert_eq!(seen.get_region_replication(), Some(2), "kept by the alter: {seen:?}");

    // Families one by one.
    admin.modify_family(&name, &ColumnFamily::new("x").max_versions(7)).await?;
    let x = gateway.describe_table(&name).await?.get_family(b"x").and_then(|f| f.get_max_versions());
    assert_eq!(x, Some(7));
    admin.add_family(&name, &ColumnFamily::new("y")).await?;
    assert_eq!(family_names(&gateway.describe_table(&name).await?), keys(&["d", "x", "y"]));
    admin.delete_family(&name, b"y").await?;
    assert_eq!(family_names(&gateway.describe_table(&name).await?), keys(&["d", "x"]));

    // Truncate (it disables the table first), disable, enable.
    let table = gateway_client.table(&name)?;
    table.put(Put::new("h1").cell("d", "v", "1")).await?;
    admin.truncate_table(&name, true).await?;
    assert!(gateway.is_table_enabled(&name).await?, "truncate leaves the table enabled");
    assert!(table.get(Get::new("h1")).await?.is_empty());
    assert_eq!(starts(&gateway_client, &name).await?, keys(&["", "g", "p"]));
    admin.disable_table(&name).await?;
    assert!(!gateway.is_table_enabled(&name).await?);
    admin.enable_table(&name).await?;
    assert!(gateway.is_table_enabled(&name).await?);

    // A missing table is TableNotFound; bad input is refused before sending.
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
    assert!(matches!(admin.create_namespace("bad-name", BTreeMap::new()).await, Err(Error::InvalidInput(_))));

    // Delete (it disables the table first), then the namespace.
    admin.delete_table(&name).await?;
    assert!(!gateway.table_exists(&name).await?);
    assert!(!admin.table_exists(&name).await?);
    admin.delete_namespace(&ns).await?;
    assert!(!gateway.list_namespaces().await?.contains(&ns));
    Ok(())
}

async fn admin_without_a_gateway_manages_regions_snapshots_and_the_cluster(env: Env) -> TestResult {
    let admin = native_only(&env)?.admin();
    let gateway_client = env.on(Transport::Thrift).client();
    let rpc = rpc_client(&env).await?;
    let name = env.unique("nreg");
    let desc = TableDescriptor::new(name.clone()).family(ColumnFamily::new("d"));
    admin.create_table(&desc, &[Bytes::from("g"), Bytes::from("p")]).await?;
    let table = gateway_client.table(&name)?;

    // Flush one region, then the table: the region servers count the files.
    table.put(Put::new("a1").cell("d", "q", "1")).await?;
    table.put(Put::new("h1").cell("d", "q", "1")).await?;
    admin.flush_region(&name, b"a1").await?;
    let (first, second) = (rpc.locate(&name, b"a1").await?, rpc.locate(&name, b"h1").await?);
    assert_eq!(store_files(&first, "d").await?, 1);
    assert_eq!(store_files(&second, "d").await?, 0, "only the region of a1 was flushed");
    admin.flush(&name).await?;
    assert_eq!(store_files(&second, "d").await?, 1);

    // A major compaction of one region leaves one file.
    table.put(Put::new("a2").cell("d", "q", "2")).await?;
    admin.flush_region(&name, b"a2").await?;
    assert_eq!(store_files(&first, "d").await?, 2);
    admin.compact_region(&name, b"a1", true).await?;
    let until = Instant::now() + Duration::from_secs(20);
    while store_files(&first, "d").await? != 1 {
        if Instant::now() > until {
            return Err("the major compaction did not finish in 20 s".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    admin.compact(&name, false).await?;

    // Split the last region, merge the first two: the gateway lists the new boundaries.
    admin.split(&name, b"t").await?;
    assert_eq!(starts(&gateway_client, &name).await?, keys(&["", "g", "p", "t"]));
    admin.merge_regions(&name, &[Bytes::from("a1"), Bytes::from("h1")]).await?;
    assert_eq!(starts(&gateway_client, &name).await?, keys(&["", "p", "t"]));
    assert_eq!(table.get(Get::new("h1")).await?.value(b"d", b"q"), Some(&b"1"[..]));

    // Move the last region to another server (its own, with one server).
    let servers = servers(&env)?;
    let last = rpc.locate(&name, b"z").await?;
    let to = servers.iter().find(|s| **s != last.server).unwrap_or(&last.server).clone();
    admin.move_region(&name, b"z", Some(&to)).await?;
    let placed = gateway_client.admin().list_regions(&name).await?;
    let moved = placed.iter().find(|r| r.contains(b"z")).ok_or("no region holds z")?;
    assert_eq!(format!("{}:{}", moved.host, moved.port.unwrap_or(0)), to);

    // Unassign: a short read through the gateway fails; assign: it serves again.
    admin.unassign_region(&name, b"z").await?;
    let impatient = env
        .on(Transport::Thrift)
        .client_builder()
        .request_timeout(Duration::from_secs(1))
        .retry_budget(Duration::ZERO)
        .build()?;
    assert!(impatient.table(&name)?.get(Get::new("z1")).await.is_err(), "a get from an unassigned region");
    admin.assign_region(&name, b"z").await?;
    table.put(Put::new("z1").cell("d", "q", "back")).await?;
    assert_eq!(table.get(Get::new("z1")).await?.value(b"d", b"q"), Some(&b"back"[..]));

    // The balancer: off (the cluster's status says so, a run does not run), back on.
    let was_on = admin.set_balancer(false).await?;
    assert!(!admin.is_balancer_enabled().await?);
    assert!(!admin.cluster_status().await?.balancer_on);
    assert!(!admin.run_balancer().await?.ran);
    assert!(!admin.set_balancer(was_on).await?);
    assert_eq!(admin.is_balancer_enabled().await?, was_on);

    // The cluster's status against the region tool's list of servers.
    let status = admin.cluster_status().await?;
    assert!(status.version.starts_with("2."), "{status:?}");
    let mut live: Vec<String> = status.live_servers.iter().map(|s| s.addr.clone()).collect();
    let mut listed = servers.clone();
    live.sort();
    listed.sort();
    assert_eq!(live, listed);

    // Snapshots: take, list, clone (read through the gateway), restore, delete.
    let snapshot = format!("{name}_s");
    admin.snapshot(&snapshot, &name).await?;
    table.put(Put::new("later").cell("d", "q", "x")).await?;
    let listed = admin.list_snapshots().await?;
    assert_eq!(listed.iter().find(|s| s.name == snapshot).map(|s| s.table.clone()), Some(name.clone()));
    let clone = format!("{name}_c");
    admin.clone_snapshot(&snapshot, &clone).await?;
    let cloned = gateway_client.table(&clone)?;
    assert_eq!(cloned.get(Get::new("a1")).await?.value(b"d", b"q"), Some(&b"1"[..]));
    assert!(cloned.get(Get::new("later")).await?.is_empty());
    match admin.clone_snapshot(&snapshot, &clone).await {
        Err(Error::AlreadyExists { .. }) => {}
        other => return Err(format!("a clone onto an existing table: expected AlreadyExists, got {other:?}").into()),
    }
    admin.restore_snapshot(&snapshot).await?;
    assert!(gateway_client.admin().is_table_enabled(&name).await?, "enabled again after the restore");
    assert!(table.get(Get::new("later")).await?.is_empty(), "the restore dropped the later row");
    assert_eq!(table.get(Get::new("a1")).await?.value(b"d", b"q"), Some(&b"1"[..]));
    admin.delete_snapshot(&snapshot).await?;
    assert!(!admin.list_snapshots().await?.iter().any(|s| s.name == snapshot));

    for table in [&name, &clone] {
        admin.delete_table(table).await?;
        assert!(!gateway_client.admin().table_exists(table).await?);
    }
    Ok(())
}
