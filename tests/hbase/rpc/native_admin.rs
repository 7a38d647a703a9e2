//! Administration over HBase's native RPC (`basalt-rpc`'s `RpcAdmin`, through the
//! active master's `MasterService` and the region servers' `AdminService`) against the
//! real server. Every call's effect is checked through a second path: the Thrift2
//! gateway's admin (`env.client().admin()`), meta's region list, or data written and
//! read through the native client and the gateway.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use basalt_rpc::admin::{
    is_remote_class, BloomFilter, Compression, FamilyDescriptor, TableFilter, TableSchema, TableState,
    PROCEDURE_TIMEOUT,
};
use basalt_rpc::{
    pb, Connection, ConnectionOptions, Get, Mutation, RegionLocation, RemoteExceptionKind, RpcClient, RpcError, Service,
};
use bytes::Bytes;
use prost::Message;

use crate::rpc::native::region_servers;
use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        native_admin_namespaces,
        native_admin_table_lifecycle,
        native_admin_families_and_modify,
        native_admin_deadlines_and_refusals,
        native_admin_regions_and_balancer,
        native_admin_snapshots_and_status,
    ]
}

async fn rpc_client(env: &Env) -> Result<RpcClient, Box<dyn std::error::Error + Send + Sync>> {
    let mut builder = RpcClient::builder().operation_timeout(Duration::from_secs(60));
    for server in region_servers(env).await? {
        builder = builder.bootstrap_server(server);
    }
    Ok(builder.connect().await?)
}

/// The remote exception's kind, or a failure naming what came instead.
fn remote_kind(result: Result<impl std::fmt::Debug, RpcError>) -> Result<RemoteExceptionKind, String> {
    match result {
        Err(RpcError::Remote(remote)) => Ok(remote.exception.kind.clone()),
        other => Err(format!("expected a remote exception, got {other:?}")),
    }
}

fn expect_class(result: Result<impl std::fmt::Debug, RpcError>, class: &str) -> TestResult {
    match result {
        Err(error) if is_remote_class(&error, class) => Ok(()),
        other => Err(format!("expected {class}, got {other:?}").into()),
    }
}

async fn native_admin_namespaces(env: Env) -> TestResult {
    let admin = rpc_client(&env).await?.admin();
    let gateway = env.client().admin();
    let ns = env.unique("ns");
    assert!(admin.master().is_some(), "bootstrap named the active master");

    let config = BTreeMap::from([("hbase.namespace.quota.maxtables".to_owned(), "5".to_owned())]);
    admin.create_namespace(&ns, config.clone()).await?;
    assert_eq!(gateway.describe_namespace(&ns).await?, config);
    assert!(gateway.list_namespaces().await?.contains(&ns));
    assert!(admin.list_namespaces().await?.contains(&ns));
    assert_eq!(admin.describe_namespace(&ns).await?.configuration, config);
    let all = admin.list_namespace_descriptors().await?;
    assert!(all.iter().any(|d| d.name == ns && d.configuration == config) && all.iter().any(|d| d.name == "hbase"));

    let changed = BTreeMap::from([("hbase.namespace.quota.maxtables".to_owned(), "7".to_owned())]);
    admin.modify_namespace(&ns, changed.clone()).await?;
    assert_eq!(gateway.describe_namespace(&ns).await?, changed);

    assert_eq!(remote_kind(admin.create_namespace(&ns, BTreeMap::new()).await)?, RemoteExceptionKind::NamespaceExists);
    let missing = env.unique("nons");
    assert_eq!(remote_kind(admin.describe_namespace(&missing).await)?, RemoteExceptionKind::NamespaceNotFound);
    assert_eq!(remote_kind(admin.delete_namespace(&missing).await)?, RemoteExceptionKind::NamespaceNotFound);
    assert!(matches!(admin.create_namespace("bad-name", BTreeMap::new()).await, Err(RpcError::InvalidArgument(_))));

    // A namespace holding a table is not deleted; its tables are listed by namespace.
    let table = format!("{ns}:t");
    admin.create_table(&TableSchema::new(&table).family(FamilyDescriptor::new("d")), &[]).await?;
    assert_eq!(gateway.list_tables(&ns).await?, vec![table.clone()]);
    assert_eq!(admin.list_tables(&TableFilter::namespace(&ns)).await?, vec![table.clone()]);
    expect_class(admin.delete_namespace(&ns).await, "ConstraintException")?;
    admin.disable_table(&table).await?;
    admin.delete_table(&table).await?;
    admin.delete_namespace(&ns).await?;
    assert!(!gateway.list_namespaces().await?.contains(&ns));
    Ok(())
}

/// The regions of `table` in meta, read by the native client (a path apart from the
/// master's answers).
async fn region_count(client: &RpcClient, table: &str) -> Result<usize, RpcError> {
    Ok(client.table_regions(table).await?.len())
}

async fn native_admin_table_lifecycle(env: Env) -> TestResult {
    let client = rpc_client(&env).await?;
    let admin = client.admin();
    let gateway = env.client().admin();
    let name = env.unique("adm");
    let schema = TableSchema::new(&name).family(
        FamilyDescriptor::new("d")
            .max_versions(3)
            .ttl_seconds(86_400)
            .bloom_filter(BloomFilter::RowCol)
            .compression(Compression::Gz)
            .in_memory(true),
    );
    let splits = [Bytes::from("g"), Bytes::from("p")];
    admin.create_table(&schema, &splits).await?;

    // Seen by the gateway with its settings, three regions in meta, data through both.
    assert!(gateway.table_exists(&name).await?);
    let described = gateway.describe_table(&name).await?;
    let d = described.families().iter().find(|f| f.name().as_ref() == b"d").ok_or("no family d")?;
    assert_eq!(d.get_max_versions(), Some(3));
    assert_eq!(d.get_ttl_seconds(), Some(86_400));
    assert_eq!(d.get_bloom_filter(), Some(basalt::BloomFilter::RowCol));
    assert_eq!(d.get_compression(), Some(basalt::Compression::Gz));
    assert_eq!(d.get_in_memory(), Some(true));
    assert_eq!(region_count(&client, &name).await?, 3);
    let mine = admin.describe_table(&name).await?;
    assert_eq!(mine.get_family(b"d").and_then(|f| f.get_max_versions()), Some(3));
    assert_eq!(mine.name(), name);
    assert_eq!(admin.describe_table(&format!("default:{name}")).await?.name(), name);
    let in_default = admin.list_table_descriptors(&TableFilter::namespace("default")).await?;
    assert!(in_default.iter().any(|s| s.name() == name));
    client.mutate(&name, &Mutation::put("k1").column("d", "q", "v1")).await?;
    let table = env.client().table(&name)?;
    assert_eq!(table.get(basalt::Get::new("k1")).await?.value(b"d", b"q"), Some(&b"v1"[..]));

    // Listing, existence and state.
    assert!(admin.list_tables(&TableFilter::all()).await?.contains(&name));
    assert_eq!(admin.list_tables(&TableFilter::matching(format!("{name}.*"))).await?, vec![name.clone()]);
    let descriptors = admin.list_table_descriptors(&TableFilter::matching(name.clone())).await?;
    assert_eq!(descriptors.iter().map(|s| s.name().to_owned()).collect::<Vec<_>>(), vec![name.clone()]);
    let system = TableFilter { namespace: Some("hbase".into()), include_system: true, ..TableFilter::default() };
    assert!(admin.list_tables(&system).await?.contains(&"hbase:meta".to_owned()));
    assert!(admin.table_exists(&name).await?);
    assert!(!admin.table_exists(&env.unique("absent")).await?);
    assert_eq!(admin.table_state(&name).await?, TableState::Enabled);
    assert_eq!(remote_kind(admin.create_table(&schema, &[]).await)?, RemoteExceptionKind::TableExists);
    assert_eq!(remote_kind(admin.describe_table(&env.unique("absent")).await)?, RemoteExceptionKind::TableNotFound);

    // Delete needs a disabled table; disable and enable are seen by the gateway.
    expect_class(admin.delete_table(&name).await, "TableNotDisabledException")?;
    admin.disable_table(&name).await?;
    assert!(!gateway.is_table_enabled(&name).await?);
    assert!(admin.is_table_disabled(&name).await?);
    expect_class(admin.disable_table(&name).await, "TableNotEnabledException")?;
    admin.enable_table(&name).await?;
    assert!(gateway.is_table_enabled(&name).await?);

    // Truncate keeping the splits, then dropping them: the data goes, the regions follow.
    admin.disable_table(&name).await?;
    admin.truncate_table(&name, true).await?;
    assert!(gateway.is_table_enabled(&name).await?);
    assert!(table.get(basalt::Get::new("k1")).await?.is_empty());
    assert_eq!(region_count(&client, &name).await?, 3);
    client.mutate(&name, &Mutation::put("k2").column("d", "q", "v2")).await?;
    admin.disable_table(&name).await?;
    admin.truncate_table(&name, false).await?;
    assert_eq!(region_count(&client, &name).await?, 1);
    assert!(client.get(&name, &Get::new("k2")).await?.cells.is_empty());

    admin.disable_table(&name).await?;
    admin.delete_table(&name).await?;
    assert!(!gateway.table_exists(&name).await?);
    assert!(!admin.table_exists(&name).await?);
    Ok(())
}

async fn native_admin_families_and_modify(env: Env) -> TestResult {
    let client = rpc_client(&env).await?;
    let admin = client.admin();
    let gateway = env.client().admin();
    let name = env.unique("fam");
    admin.create_table(&TableSchema::new(&name).family(FamilyDescriptor::new("d")), &[]).await?;

    admin.add_family(&name, &FamilyDescriptor::new("e").max_versions(2)).await?;
    client.mutate(&name, &Mutation::put("r").column("e", "q", "in e")).await?;
    admin.modify_family(&name, &FamilyDescriptor::new("d").max_versions(7)).await?;
    let described = gateway.describe_table(&name).await?;
    let versions: Vec<_> = described.families().iter().map(|f| (f.name().clone(), f.get_max_versions())).collect();
    assert_eq!(versions, vec![(Bytes::from("d"), Some(7)), (Bytes::from("e"), Some(2))]);
    expect_class(admin.add_family(&name, &FamilyDescriptor::new("e")).await, "InvalidFamilyOperationException")?;

    admin.delete_family(&name, b"e").await?;
    let families: Vec<_> = gateway.describe_table(&name).await?.families().iter().map(|f| f.name().clone()).collect();
    assert_eq!(families, vec![Bytes::from("d")]);
    expect_class(admin.delete_family(&name, b"d").await, "InvalidFamilyOperationException")?;

    // A whole descriptor: a family added, a setting changed, through one ModifyTable.
    let schema = admin.describe_table(&name).await?.family(FamilyDescriptor::new("f")).max_file_size(1 << 30);
    admin.modify_table(&schema).await?;
    let families: Vec<_> = gateway.describe_table(&name).await?.families().iter().map(|f| f.name().clone()).collect();
    assert_eq!(families, vec![Bytes::from("d"), Bytes::from("f")]);
    assert_eq!(admin.describe_table(&name).await?.get("MAX_FILESIZE"), Some("1073741824"));
    client.mutate(&name, &Mutation::put("r").column("f", "q", "in f")).await?;
    assert_eq!(env.client().table(&name)?.get(basalt::Get::new("r")).await?.value(b"f", b"q"), Some(&b"in f"[..]));

    admin.disable_table(&name).await?;
    admin.delete_table(&name).await?;
    Ok(())
}

async fn native_admin_deadlines_and_refusals(env: Env) -> TestResult {
    let admin = rpc_client(&env).await?.admin();
    let gateway = env.client().admin();
    // Refused before sending.
    for bad in ["", "bad name", "ns-x:t", ".t"] {
        let schema = TableSchema::new(bad).family(FamilyDescriptor::new("d"));
        assert!(matches!(admin.create_table(&schema, &[]).await, Err(RpcError::InvalidArgument(_))), "{bad:?}");
    }
    let no_family = TableSchema::new(env.unique("nofam"));
    assert!(matches!(admin.create_table(&no_family, &[]).await, Err(RpcError::InvalidArgument(_))));
    let unsorted = TableSchema::new(env.unique("unsorted")).family(FamilyDescriptor::new("d"));
    let splits = [Bytes::from("b"), Bytes::from("a")];
    assert!(matches!(admin.create_table(&unsorted, &splits).await, Err(RpcError::InvalidArgument(_))));
    assert!(matches!(admin.disable_table("hbase:meta").await, Err(RpcError::InvalidArgument(_))));
    // An unknown procedure.
    assert_eq!(admin.procedure_state(u64::MAX / 2).await?, basalt_rpc::admin::ProcedureState::NotFound);

    // The same create sent twice with one nonce (a retry after an unknown outcome):
    // the master answers the second with the first's procedure, not TableExists.
    let master = admin.master().ok_or("no active master")?;
    let conn = Connection::connect(&master, Service::Master, &ConnectionOptions::default()).await?;
    let twice = env.unique("twice");
    let request = pb::CreateTableRequest {
        table_schema: pb::TableSchema {
            table_name: Some(pb::TableName {
                namespace: Bytes::from("default"),
                qualifier: Bytes::from(twice.clone()),
            }),
            column_families: vec![pb::ColumnFamilySchema { name: Bytes::from("d"), ..Default::default() }],
            ..Default::default()
        },
        split_keys: Vec::new(),
        nonce_group: Some(0x5eed),
        nonce: Some(u64::from(std::process::id()) << 20 | 7),
    };
    let mut ids = Vec::new();
    for _ in 0..2 {
        let reply = conn.call("CreateTable", &request, None, Duration::from_secs(30)).await?;
        ids.push(pb::CreateTableResponse::decode(reply.param.clone())?.proc_id.ok_or("no procedure id")?);
    }
    assert_eq!(ids[0], ids[1], "one nonce, one procedure");
    admin.wait_procedure(ids[0]).await?;
    assert!(gateway.table_exists(&twice).await?);

    // A create whose wait ends before its procedure does: the error names the procedure
    // still running; the master finishes it all the same.
    let name = env.unique("slow");
    let schema = TableSchema::new(&name).family(FamilyDescriptor::new("d"));
    let splits: Vec<Bytes> = (1..5u8).map(|i| Bytes::from(vec![i])).collect();
    let started = Instant::now();
    match admin.with_timeout(Duration::from_millis(1)).create_table(&schema, &splits).await {
        Err(error) if is_remote_class(&error, "TimeoutIOException") => {
            let text = error.to_string();
            assert!(text.contains("still running") && text.contains("procedure"), "{text}");
            assert!(error.remote().is_some_and(|r| r.exception.class_name == PROCEDURE_TIMEOUT));
            eprintln!("native admin: {text}");
        }
        Ok(()) => eprintln!("native admin: the create finished within the first poll"),
        Err(error) => return Err(format!("a create past its deadline: {error}").into()),
    }
    assert!(started.elapsed() < Duration::from_secs(10));
    let until = Instant::now() + Duration::from_secs(30);
    while !(gateway.table_exists(&name).await? && admin.is_table_enabled(&name).await.unwrap_or(false)) {
        if Instant::now() > until {
            return Err("the table created past the deadline never appeared".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for table in [&name, &twice] {
        admin.disable_table(table).await?;
        admin.delete_table(table).await?;
    }
    Ok(())
}

/// The store files of `family` in the region, as its server lists them
/// (`AdminService.GetStoreFile` on a connection of the test's own).
pub(crate) async fn store_files(
    region: &RegionLocation,
    family: &str,
) -> Result<usize, Box<dyn std::error::Error + Send + Sync>> {
    let conn = Connection::connect(&region.server, Service::Admin, &ConnectionOptions::default()).await?;
    let request = pb::GetStoreFileRequest {
        region: pb::RegionSpecifier {
            r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
            value: region.region_name.clone(),
        },
        family: vec![Bytes::copy_from_slice(family.as_bytes())],
    };
    let reply = conn.call("GetStoreFile", &request, None, Duration::from_secs(10)).await?;
    Ok(pb::GetStoreFileResponse::decode(reply.param.clone())?.store_file.len())
}

/// The start keys of the table's regions in meta.
async fn boundaries(client: &RpcClient, table: &str) -> Result<Vec<Bytes>, RpcError> {
    Ok(client.table_regions(table).await?.into_iter().map(|r| r.start_key).collect())
}

async fn native_admin_regions_and_balancer(env: Env) -> TestResult {
    let client = rpc_client(&env).await?;
    let admin = client.admin();
    let name = env.unique("reg");
    let splits = [Bytes::from("f"), Bytes::from("m"), Bytes::from("t")];
    admin.create_table(&TableSchema::new(&name).family(FamilyDescriptor::new("d")), &splits).await?;
    let table = env.client().table(&name)?;

    // Flush: the table's memstores become files, one per flush.
    client.mutate(&name, &Mutation::put("a1").column("d", "q", "1")).await?;
    admin.flush_table(&name, &[]).await?;
    let first = client.locate(&name, b"a1").await?;
    assert_eq!(store_files(&first, "d").await?, 1);
    client.mutate(&name, &Mutation::put("a2").column("d", "q", "2")).await?;
    assert!(admin.flush_region(&first, None).await?);
    assert_eq!(store_files(&first, "d").await?, 2);
    client.mutate(&name, &Mutation::put("a3").column("d", "q", "3")).await?;
    admin.flush_table(&name, &[Bytes::from("d")]).await?;
    assert_eq!(store_files(&first, "d").await?, 3);
    // A major compaction leaves one file.
    admin.compact_table(&name, true, None).await?;
    let until = Instant::now() + Duration::from_secs(20);
    while store_files(&first, "d").await? != 1 || admin.compaction_running(&first).await? {
        if Instant::now() > until {
            return Err("the major compaction did not finish in 20 s".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(table.get(basalt::Get::new("a2")).await?.value(b"d", b"q"), Some(&b"2"[..]));

    // Merge the first two regions, split the third: meta has the new boundaries.
    let regions = client.table_regions(&name).await?;
    admin.merge_regions(&regions[..2], false).await?;
    admin.split_region(&name, b"p").await?;
    let expected: Vec<Bytes> = ["", "m", "p", "t"].iter().map(|k| Bytes::from(k.as_bytes().to_vec())).collect();
    assert_eq!(boundaries(&client, &name).await?, expected);
    assert!(matches!(admin.split_region(&name, b"p").await, Err(RpcError::InvalidArgument(_))));
    assert_eq!(table.get(basalt::Get::new("a1")).await?.value(b"d", b"q"), Some(&b"1"[..]));

    // Move the last region to another server (or its own, with one server): meta says
    // where it went.
    let servers = region_servers(&env).await?;
    let last = client.locate(&name, b"z").await?;
    let to = servers.iter().find(|s| **s != last.server).unwrap_or(&last.server).clone();
    admin.move_region(&last, Some(&to)).await?;
    assert_eq!(client.table_regions(&name).await?.last().map(|r| r.server.clone()), Some(to.clone()));
    assert!(matches!(admin.move_region(&last, Some("nowhere.invalid:1")).await, Err(RpcError::InvalidArgument(_))));

    // Unassign: the region stops serving (a short native get fails); assign: it serves.
    let last = client.locate(&name, b"z").await?;
    admin.unassign_region(&last, false).await?;
    let short = client.with_timeouts(Duration::from_secs(1), Duration::from_secs(1));
    assert!(short.get(&name, &Get::new("z1")).await.is_err(), "a get from an unassigned region");
    admin.assign_region(&last).await?;
    client.mutate(&name, &Mutation::put("z1").column("d", "q", "back")).await?;
    assert_eq!(table.get(basalt::Get::new("z1")).await?.value(b"d", b"q"), Some(&b"back"[..]));

    // The balancer: off, seen in the cluster status, a run that does not run; back on.
    let was_on = admin.set_balancer_running(false, true).await?;
    assert!(!admin.is_balancer_enabled().await?);
    assert!(!admin.cluster_status().await?.balancer_on);
    assert!(!admin.balance(false, false).await?.ran);
    assert!(!admin.set_balancer_running(was_on, true).await?);
    assert_eq!(admin.cluster_status().await?.balancer_on, was_on);
    if was_on {
        let dry = admin.balance(true, true).await?;
        assert_eq!(dry.moves_executed, 0, "{dry:?}");
    }

    admin.disable_table(&name).await?;
    admin.delete_table(&name).await?;
    Ok(())
}

async fn native_admin_snapshots_and_status(env: Env) -> TestResult {
    let client = rpc_client(&env).await?;
    let admin = client.admin();
    let gateway = env.client().admin();

    // The status against the registry (cluster id, master) and the region tool (servers).
    let status = admin.cluster_status().await?;
    assert!(status.version.starts_with("2.6"), "{status:?}");
    assert_eq!(status.cluster_id, client.cluster().cluster_id);
    assert_eq!(status.master, client.cluster().active_master);
    let mut live: Vec<String> = status.live_servers.iter().map(|s| s.addr.clone()).collect();
    let mut listed = region_servers(&env).await?;
    live.sort();
    listed.sort();
    assert_eq!(live, listed);
    assert!(status.live_servers.iter().all(|s| s.start_code > 0 && s.port > 0), "{status:?}");

    // A snapshot, then a row it does not have.
    let name = env.unique("snap");
    let snapshot = format!("{name}_s");
    admin.create_table(&TableSchema::new(&name).family(FamilyDescriptor::new("d")), &[Bytes::from("m")]).await?;
    client.mutate(&name, &Mutation::put("r1").column("d", "q", "before")).await?;
    admin.snapshot(&snapshot, &name).await?;
    client.mutate(&name, &Mutation::put("r2").column("d", "q", "after")).await?;
    let listed = admin.list_snapshots().await?;
    let info = listed.iter().find(|s| s.name == snapshot).ok_or("the snapshot is not listed")?;
    assert_eq!(info.table, name);
    assert!(info.creation_time > 1_600_000_000_000);
    expect_class(admin.snapshot(&snapshot, &name).await, "SnapshotExistsException")?;

    // A clone has the snapshot's rows; cloning onto an existing table is refused.
    let clone = format!("{name}_c");
    admin.clone_snapshot(&snapshot, &clone).await?;
    let cloned = env.client().table(&clone)?;
    assert_eq!(cloned.get(basalt::Get::new("r1")).await?.value(b"d", b"q"), Some(&b"before"[..]));
    assert!(cloned.get(basalt::Get::new("r2")).await?.is_empty());
    assert_eq!(remote_kind(admin.clone_snapshot(&snapshot, &clone).await)?, RemoteExceptionKind::TableExists);

    // Restore needs the table disabled; restored, the later row is gone.
    expect_class(admin.restore_snapshot(&snapshot).await, "TableNotDisabledException")?;
    admin.disable_table(&name).await?;
    admin.restore_snapshot(&snapshot).await?;
    admin.enable_table(&name).await?;
    let table = env.client().table(&name)?;
    assert_eq!(table.get(basalt::Get::new("r1")).await?.value(b"d", b"q"), Some(&b"before"[..]));
    assert!(table.get(basalt::Get::new("r2")).await?.is_empty());

    admin.delete_snapshot(&snapshot).await?;
    assert!(!admin.list_snapshots().await?.iter().any(|s| s.name == snapshot));
    expect_class(admin.delete_snapshot(&snapshot).await, "SnapshotDoesNotExistException")?;
    assert!(matches!(admin.snapshot("bad name", &name).await, Err(RpcError::InvalidArgument(_))));
    for table in [&name, &clone] {
        admin.disable_table(table).await?;
        admin.delete_table(table).await?;
        assert!(!gateway.table_exists(table).await?);
    }
    Ok(())
}
