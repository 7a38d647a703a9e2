//! Bootstrap through ZooKeeper (the cargo feature `zookeeper`), against the test bed's
//! own ZooKeeper: the same cluster as the connection registry says, then the client's
//! reads and writes on the native transport found that way, and a quorum that isn't
//! there failing in time with a typed error.
//!
//! The quorum is the one the launcher wrote into the run's `conf/hbase-site.xml`
//! (natively 127.0.0.1, in Docker the container's address, where ZooKeeper listens as
//! the region servers do); an external HBase fails these tests saying so.

use std::time::{Duration, Instant};

use basalt::{Put, Scan};
use basalt_rpc::{RpcClient, RpcError};

use crate::rpc::native::{region_servers, text};
use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        native_bootstrap_through_zookeeper,
        native_client_through_zookeeper,
        native_zookeeper_wrong_quorum_fails_in_time
    ]
}

/// The cluster that ZooKeeper describes is the one the registry describes.
async fn native_bootstrap_through_zookeeper(env: Env) -> TestResult {
    let quorum = env.zookeeper_quorum()?;
    let mut registry = RpcClient::builder();
    for server in region_servers(&env).await? {
        registry = registry.bootstrap_server(server);
    }
    let registry = registry.connect().await?;
    let zk = RpcClient::builder().zookeeper(quorum.clone()).rpc_timeout(Duration::from_secs(20)).connect().await?;
    let (from_registry, from_zk) = (registry.cluster(), zk.cluster());
    assert_eq!(from_zk.cluster_id, from_registry.cluster_id, "cluster id");
    assert_eq!(from_zk.cluster_id.len(), 36, "cluster id {:?}", from_zk.cluster_id);
    assert_eq!(from_zk.active_master, from_registry.active_master, "active master");
    let meta = from_zk.meta.first().ok_or("ZooKeeper gave no meta location")?;
    let registry_meta = from_registry.meta.first().ok_or("the registry gave no meta location")?;
    assert_eq!((&meta.server, &meta.region_name), (&registry_meta.server, &registry_meta.region_name));
    assert_eq!(from_zk.meta.len(), from_registry.meta.len(), "meta replicas");
    assert_eq!(from_zk.answered_by, format!("zookeeper:{quorum}"));
    // A region read from meta through the location ZooKeeper gave.
    let namespace = zk.locate("hbase:namespace", b"").await?;
    assert_eq!(namespace, registry.locate("hbase:namespace", b"").await?);
    // The znode parent is honoured: under another parent there is no cluster.
    match RpcClient::builder().zookeeper(quorum.clone()).znode_parent("/not-hbase").connect().await {
        Err(RpcError::Bootstrap(why)) => assert!(why.contains("/not-hbase/hbaseid"), "{why}"),
        other => return Err(format!("bootstrap under /not-hbase: {other:?}").into()),
    }
    // Bootstrap servers and a quorum together are refused.
    let both = RpcClient::builder().zookeeper(quorum).bootstrap_server(registry_meta.server.clone()).connect().await;
    assert!(matches!(both, Err(RpcError::InvalidArgument(_))), "{both:?}");
    eprintln!("zookeeper bootstrap: cluster {} meta on {}", from_zk.cluster_id, meta.server);
    Ok(())
}

/// `basalt::Client` on the native transport, bootstrapped through ZooKeeper only:
/// writes, a get and a scan, equal to what the gateway reads back.
async fn native_client_through_zookeeper(env: Env) -> TestResult {
    let thrift_table = env.fresh_table(&["d"], &[b"k0050"]).await?;
    let name = thrift_table.name().to_owned();
    let native = basalt::Client::builder().address(env.addr()).native_zookeeper(env.zookeeper_quorum()?).build()?;
    let table = native.table(&name)?;
    let written = table.put_many((0..100).map(|i| Put::new(format!("k{i:04}")).cell("d", "n", i.to_string()))).await?;
    assert_eq!(written, 100);
    table.put(Put::new("k0007").cell("d", "n", "seven")).await?;
    let row = table.get(basalt::Get::new("k0007")).await?;
    assert_eq!(row.value(b"d", b"n"), Some(&b"seven"[..]));
    assert!(table.get(basalt::Get::new("missing")).await?.is_empty());
    let rows = table.scan_all(Scan::new().start("k0040").stop("k0060")).await?;
    let keys: Vec<String> = rows.iter().map(|r| text(r.key())).collect();
    let want: Vec<String> = (40..60).map(|i| format!("k{i:04}")).collect();
    assert_eq!(keys, want, "a scan across the split");
    let all = table.scan_all(Scan::new()).await?;
    assert_eq!(all.len(), 100);
    let through_gateway = thrift_table.scan_all(Scan::new()).await?;
    assert_eq!(
        all.iter().map(|r| r.value(b"d", b"n").map(text)).collect::<Vec<_>>(),
        through_gateway.iter().map(|r| r.value(b"d", b"n").map(text)).collect::<Vec<_>>()
    );
    assert_eq!(table.region_locations().await?.len(), 2);
    // The parent znode is the builder's: under another one there is no cluster, and
    // the client says which path it looked at.
    let elsewhere = basalt::Client::builder()
        .native_zookeeper(env.zookeeper_quorum()?)
        .native_znode_parent("/not-hbase")
        .request_timeout(Duration::from_secs(20))
        .build()?;
    match elsewhere.table(&name)?.get(basalt::Get::new("k0007")).await {
        Err(basalt::Error::Server { message, .. }) if message.contains("/not-hbase/") => {}
        other => return Err(format!("a get under the znode parent /not-hbase: {other:?}").into()),
    }
    let explicit =
        basalt::Client::builder().native_zookeeper(env.zookeeper_quorum()?).native_znode_parent("/hbase/").build()?;
    assert_eq!(explicit.table(&name)?.get(basalt::Get::new("k0007")).await?.value(b"d", b"n"), Some(&b"seven"[..]));
    native.admin().delete_table(&name).await?;
    Ok(())
}

/// A quorum where nothing listens, and one that accepts and never answers: each a
/// `Bootstrap` error within the timeout, not a hang.
async fn native_zookeeper_wrong_quorum_fails_in_time(env: Env) -> TestResult {
    let _ = env;
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.local_addr()?.to_string()
    };
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let silent_addr = silent.local_addr()?.to_string();
    let holder = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            held.push(socket);
        }
    });
    let timeout = Duration::from_secs(3);
    let mut outcome: Result<(), String> = Ok(());
    for quorum in [closed.clone(), silent_addr.clone(), format!("{closed},{silent_addr}")] {
        let started = Instant::now();
        let result = RpcClient::builder().zookeeper(quorum.clone()).rpc_timeout(timeout).connect().await;
        let took = started.elapsed();
        match result {
            Err(RpcError::Bootstrap(why)) if took < timeout + Duration::from_secs(2) => {
                eprintln!("zookeeper {quorum}: failed in {took:?}: {why}")
            }
            other => {
                outcome = Err(format!("quorum {quorum}: {other:?} after {took:?}"));
                break;
            }
        }
    }
    // The client crate's first call says the same, typed.
    let client = basalt::Client::builder().native_zookeeper(closed.clone()).request_timeout(timeout).build()?;
    let started = Instant::now();
    let answer = client.table("t")?.get(basalt::Get::new("r")).await;
    holder.abort();
    outcome?;
    match answer {
        Err(basalt::Error::Server { message, can_retry: false, .. }) if message.contains(&closed) => {}
        other => return Err(format!("a get through a dead quorum: {other:?}").into()),
    }
    assert!(started.elapsed() < Duration::from_secs(30), "took {:?}", started.elapsed());
    Ok(())
}
