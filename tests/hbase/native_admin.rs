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
use basalt_rpc::{Get, Mutation, RemoteExceptionKind, RpcClient, RpcError};
use bytes::Bytes;

use crate::native::region_servers;
use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        native_admin_namespaces,
        native_admin_table_lifecycle,
        native_admin_families_and_modify,
        native_admin_deadlines_and_refusals,
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

    // A create whose wait ends before its procedure does: the error names the procedure
    // still running; the master finishes it all the same.
    let name = env.unique("slow");
    let schema = TableSchema::new(&name).family(FamilyDescriptor::new("d"));
    let splits: Vec<Bytes> = (1..20u8).map(|i| Bytes::from(vec![i])).collect();
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
    admin.disable_table(&name).await?;
    admin.delete_table(&name).await?;
    Ok(())
}
