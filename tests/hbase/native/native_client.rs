//! `basalt::Client` on HBase's native RPC (`ClientBuilder::native`), against the real
//! server: the client's operations answer as on the Thrift2 gateway.

use basalt::{Put, Scan};
use bytes::Bytes;

use crate::rpc::native::{region_servers, text, thrift_cells};
use crate::support::{Env, Test, TestResult, Transport};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![native_transport_serves_the_client_api]
}

/// `basalt::Client` on the native transport (`ClientBuilder::native`): the same
/// operations as on the gateway, the answers equal to the Thrift client's.
async fn native_transport_serves_the_client_api(env: Env) -> TestResult {
    // The gateway's client is the reference: the table and its rows come through it.
    let env = env.on(Transport::Thrift);
    let splits: Vec<String> = (1..4).map(|i| format!("k{:04}", i * 250)).collect();
    let split_refs: Vec<&[u8]> = splits.iter().map(|s| s.as_bytes()).collect();
    let thrift_table = env.fresh_table(&["d"], &split_refs).await?;
    let name = thrift_table.name().to_owned();
    let native = basalt::Client::builder().address(env.addr()).native(region_servers(&env).await?).build()?;
    let table = native.table(&name)?;

    let written = table.put_many((0..1000).map(|i| Put::new(format!("k{i:04}")).cell("d", "n", i.to_string()))).await?;
    assert_eq!(written, 1000);
    let native_rows = table.scan_all(Scan::new()).await?;
    let thrift_rows = thrift_table.scan_all(Scan::new()).await?;
    assert_eq!(thrift_cells(&native_rows), thrift_cells(&thrift_rows), "full scan");
    assert_eq!(native_rows.len(), 1000);
    for scan in [
        Scan::new().start("k0240").stop("k0760"),
        Scan::new().reversed(true).start("k0240").stop("k0760"),
        Scan::new().start("k0100").limit(333),
        Scan::new().filter(basalt::Filter::prefix("k05")),
    ] {
        let got = table.scan_all(scan.clone()).await?;
        let want = thrift_table.scan_all(scan.clone()).await?;
        assert_eq!(thrift_cells(&got), thrift_cells(&want), "{scan:?}");
        assert!(!got.is_empty(), "{scan:?} found rows");
    }

    let row = table.get(basalt::Get::new("k0500")).await?;
    assert_eq!(row.value(b"d", b"n"), Some(&b"500"[..]));
    assert!(table.get(basalt::Get::new("missing")).await?.is_empty());
    let many = table.get_many(["k0001", "nope", "k0999"].map(basalt::Get::new)).await?;
    assert_eq!(
        many.iter().map(|r| r.value(b"d", b"n").map(text)).collect::<Vec<_>>(),
        [Some("1".to_owned()), None, Some("999".to_owned())]
    );
    assert_eq!(table.exists_many(["k0002", "nope"].map(basalt::Get::new)).await?, [true, false]);

    let counter = table.increment(basalt::Increment::new("c").add("d", "n", 7)).await?;
    assert_eq!(counter.counter(b"d", b"n"), Some(7));
    let appended = table.append(basalt::Append::new("s").add("d", "t", "ab")).await?;
    assert_eq!(appended.value(b"d", b"t"), Some(&b"ab"[..]));
    let put = Put::new("k0003").cell("d", "n", "three");
    assert!(!table.check_and_put("d", "n", Some(Bytes::from_static(b"2")), put.clone()).await?);
    assert!(table.check_and_put("d", "n", Some(Bytes::from_static(b"3")), put).await?);
    assert_eq!(thrift_table.get(basalt::Get::new("k0003")).await?.value(b"d", b"n"), Some(&b"three"[..]));
    table.delete(basalt::Delete::row("k0004")).await?;
    assert!(thrift_table.get(basalt::Get::new("k0004")).await?.is_empty(), "a native delete, seen through Thrift");
    let deleted = table.delete_many((10..20).map(|i| basalt::Delete::row(format!("k{i:04}")))).await?;
    assert_eq!(deleted, 10);
    assert_eq!(thrift_table.scan_all(Scan::new().start("k0010").stop("k0020")).await?.len(), 0);
    let regions = table.region_locations().await?;
    assert_eq!(regions.len(), 4);
    native.admin().delete_table(&name).await?;
    Ok(())
}
