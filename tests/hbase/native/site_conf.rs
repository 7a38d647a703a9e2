//! A client given only an `hbase-site.xml` (`ClientBuilder::conf_dir`), as on an HBase
//! edge node: no gateway address, no bootstrap servers in code. The file names the
//! cluster through its ZooKeeper quorum (the client port apart, the parent znode
//! through a `${...}` reference), or through `hbase.client.bootstrap.servers`. The
//! client creates a table, writes, reads and scans it, and drops it; every effect is
//! checked through the gateway's client.

use std::path::PathBuf;
use std::time::Duration;

use basalt::{Bytes, ColumnFamily, Get, Put, Scan, TableDescriptor};

use crate::support::{Env, Test, TestResult, Transport};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![client_from_a_site_file_naming_zookeeper, client_from_a_site_file_naming_bootstrap_servers]
}

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// A configuration directory of this test with `properties` as its hbase-site.xml;
/// removed on drop.
struct ConfDir(PathBuf);

impl ConfDir {
    fn new(env: &Env, properties: &[(&str, String)]) -> Result<ConfDir, Failure> {
        let dir = std::env::temp_dir().join(env.unique("basalt-site-conf"));
        std::fs::create_dir_all(&dir)?;
        let mut xml = String::from("<?xml version=\"1.0\"?>\n<configuration>\n");
        for (name, value) in properties {
            xml.push_str(&format!(
                "  <property>\n    <name>{name}</name>\n    <value>{value}</value>\n  </property>\n"
            ));
        }
        xml.push_str("</configuration>\n");
        std::fs::write(dir.join("hbase-site.xml"), xml)?;
        Ok(ConfDir(dir))
    }
}

impl Drop for ConfDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Creates a table, writes, reads, scans and drops it through `client` (built from a
/// site file alone), checking each effect through the gateway.
async fn round_trip(env: &Env, client: &basalt::Client) -> TestResult {
    let gateway = env.on(Transport::Thrift).client();
    let name = env.unique("site");
    let admin = client.admin();
    let desc = TableDescriptor::new(name.clone()).family(ColumnFamily::new("d").max_versions(2));
    admin.create_table(&desc, &[Bytes::from_static(b"k0050")]).await?;
    assert!(gateway.admin().table_exists(&name).await?, "the gateway sees the table created from the site file");
    assert_eq!(gateway.admin().list_regions(&name).await?.len(), 2, "created with its split");

    let table = client.table(&name)?;
    let written = table.put_many((0..100).map(|i| Put::new(format!("k{i:04}")).cell("d", "n", i.to_string()))).await?;
    assert_eq!(written, 100);
    let row = table.get(Get::new("k0042")).await?;
    assert_eq!(row.value(b"d", b"n"), Some(&b"42"[..]));
    let rows = table.scan_all(Scan::new().start("k0045").stop("k0055")).await?;
    let keys: Vec<String> = rows.iter().map(|r| String::from_utf8_lossy(r.key()).into_owned()).collect();
    let want: Vec<String> = (45..55).map(|i| format!("k{i:04}")).collect();
    assert_eq!(keys, want, "a scan across the split");
    let through_gateway = gateway.table(&name)?.scan_all(Scan::new()).await?;
    assert_eq!(through_gateway.len(), 100, "the gateway reads what the site-file client wrote");
    assert_eq!(through_gateway.first().map(|r| r.value(b"d", b"n").map(<[u8]>::to_vec)), Some(Some(b"0".to_vec())));

    // Admin beyond create: describe, disable, delete, each seen by the gateway.
    assert_eq!(admin.describe_table(&name).await?.families().len(), 1);
    admin.disable_table(&name).await?;
    assert!(!gateway.admin().is_table_enabled(&name).await?, "disabled, as the gateway sees it");
    admin.delete_table(&name).await?;
    assert!(!gateway.admin().table_exists(&name).await?, "dropped, as the gateway sees it");
    Ok(())
}

/// The site file names ZooKeeper: quorum host and client port apart, the parent znode
/// through a reference to another property.
async fn client_from_a_site_file_naming_zookeeper(env: Env) -> TestResult {
    let quorum = env.zookeeper_quorum()?;
    let (host, port) = quorum.rsplit_once(':').ok_or_else(|| format!("quorum {quorum:?} is not host:port"))?;
    let conf = ConfDir::new(
        &env,
        &[
            ("hbase.zookeeper.quorum", host.to_owned()),
            ("hbase.zookeeper.property.clientPort", port.to_owned()),
            ("test.parent", "/hbase".to_owned()),
            ("zookeeper.znode.parent", "${test.parent}".to_owned()),
            ("hbase.security.authentication", "simple".to_owned()),
        ],
    )?;
    let client = basalt::Client::builder().conf_dir(&conf.0).request_timeout(Duration::from_secs(60)).build()?;
    round_trip(&env, &client).await?;

    // The file's parent znode is the one used: under another, no cluster is found, in time.
    let elsewhere = ConfDir::new(
        &env,
        &[("hbase.zookeeper.quorum", quorum.clone()), ("zookeeper.znode.parent", "/not-hbase".to_owned())],
    )?;
    let lost = basalt::Client::builder()
        .conf_dir(&elsewhere.0)
        .request_timeout(Duration::from_secs(10))
        .retry_budget(Duration::from_secs(10))
        .build()?;
    let started = std::time::Instant::now();
    let error = lost.admin().list_namespaces().await.expect_err("no cluster under /not-hbase");
    assert!(error.to_string().contains("/not-hbase"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(90), "failed in {:?}", started.elapsed());
    Ok(())
}

/// The site file names bootstrap servers (and a ZooKeeper quorum that isn't there,
/// which must then not be used).
async fn client_from_a_site_file_naming_bootstrap_servers(env: Env) -> TestResult {
    let servers = env.native_servers()?.to_vec();
    let conf = ConfDir::new(
        &env,
        &[("hbase.zookeeper.quorum", "127.0.0.1:1".to_owned()), ("hbase.client.bootstrap.servers", servers.join(","))],
    )?;
    let client = basalt::Client::builder().conf_dir(&conf.0).build()?;
    round_trip(&env, &client).await
}
