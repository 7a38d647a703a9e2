//! Namespaces, tables and families through the `basalt` admin API.

use std::collections::BTreeMap;

use basalt::{BlockEncoding, BloomFilter, Bytes, ColumnFamily, Compression, Error, Get, Put, Scan, TableDescriptor};

use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![namespaces, tables_with_family_settings_and_splits, a_missing_table_is_table_not_found]
}

async fn namespaces(env: Env) -> TestResult {
    let admin = env.client().admin();
    let ns = env.unique("adm");
    let mut config = BTreeMap::new();
    config.insert("owner".to_owned(), "billing".to_owned());
    admin.create_namespace(&ns, config).await?;
    assert!(admin.list_namespaces().await?.contains(&ns));
    assert_eq!(admin.describe_namespace(&ns).await?.get("owner").map(String::as_str), Some("billing"));
    match admin.create_namespace(&ns, BTreeMap::new()).await {
        Err(Error::AlreadyExists { .. }) => {}
        other => panic!("expected AlreadyExists, got {other:?}"),
    }
    admin.delete_namespace(&ns).await?;
    assert!(!admin.list_namespaces().await?.contains(&ns));
    assert!(matches!(admin.create_namespace("bad-name", BTreeMap::new()).await, Err(Error::InvalidInput(_))));
    Ok(())
}

async fn tables_with_family_settings_and_splits(env: Env) -> TestResult {
    let client = env.client();
    let admin = client.admin();
    let ns = env.unique("adm");
    admin.create_namespace(&ns, BTreeMap::new()).await?;
    let name = format!("{ns}:orders");
    let desc = TableDescriptor::new(name.clone())
        .family(
            ColumnFamily::new("d")
                .max_versions(3)
                .bloom_filter(BloomFilter::RowCol)
                .ttl_seconds(86_400)
                .compression(Compression::Gz)
                .block_encoding(BlockEncoding::FastDiff)
                .block_size(16 * 1024)
                .in_memory(true)
                .replication_scope(1),
        )
        .family(ColumnFamily::new("m"));
    let splits: Vec<Bytes> = ["1|", "2|", "3|"].into_iter().map(Bytes::from).collect();
    admin.create_table(&desc, &splits).await?;
    assert!(admin.table_exists(&name).await?);
    assert!(admin.list_tables(&ns).await?.contains(&name), "{:?}", admin.list_tables(&ns).await?);

    let described = admin.describe_table(&name).await?;
    let d = described.families().iter().find(|f| &f.name()[..] == b"d").ok_or("family d")?;
    assert_eq!(d.get_max_versions(), Some(3));
    assert_eq!(d.get_bloom_filter(), Some(BloomFilter::RowCol));
    assert_eq!(d.get_ttl_seconds(), Some(86_400));
    assert_eq!(d.get_compression(), Some(Compression::Gz));
    assert_eq!(d.get_block_encoding(), Some(BlockEncoding::FastDiff));
    assert_eq!(d.get_block_size(), Some(16 * 1024));
    assert_eq!(d.get_in_memory(), Some(true));
    assert_eq!(d.get_replication_scope(), Some(1));
    let table = client.table(&name)?;
    assert_eq!(table.region_locations().await?.len(), 4);

    // Families: add, modify, delete.
    admin.add_family(&name, &ColumnFamily::new("x").max_versions(2)).await?;
    admin.modify_family(&name, &ColumnFamily::new("x").max_versions(7)).await?;
    let x = admin.describe_table(&name).await?.families().iter().find(|f| &f.name()[..] == b"x").cloned();
    assert_eq!(x.and_then(|f| f.get_max_versions()), Some(7));
    admin.delete_family(&name, b"x").await?;
    assert_eq!(admin.describe_table(&name).await?.families().len(), 2);

    // Truncate keeps the splits; disable/enable.
    table.put(Put::new("1|a").cell("d", "v", "1")).await?;
    admin.truncate_table(&name, true).await?;
    assert!(admin.is_table_enabled(&name).await?, "truncate leaves the table enabled");
    assert!(table.get(Get::new("1|a")).await?.is_empty());
    assert_eq!(table.region_locations().await?.len(), 4);
    admin.disable_table(&name).await?;
    assert!(!admin.is_table_enabled(&name).await?);
    admin.enable_table(&name).await?;
    assert!(table.scan_all(Scan::new()).await?.is_empty());

    // Bad split keys are refused before sending.
    let unsorted: Vec<Bytes> = ["b", "a"].into_iter().map(Bytes::from).collect();
    let other = TableDescriptor::new(format!("{ns}:other")).family(ColumnFamily::new("d"));
    assert!(matches!(admin.create_table(&other, &unsorted).await, Err(Error::InvalidInput(_))));
    let no_family = TableDescriptor::new(format!("{ns}:other"));
    assert!(matches!(admin.create_table(&no_family, &[]).await, Err(Error::InvalidInput(_))));

    admin.delete_table(&name).await?;
    assert!(!admin.table_exists(&name).await?);
    admin.delete_namespace(&ns).await?;
    Ok(())
}

/// Every administrative call that names a missing table says so with
/// `Error::TableNotFound`, whatever the gateway's message looks like.
async fn a_missing_table_is_table_not_found(env: Env) -> TestResult {
    let admin = env.client().admin();
    let name = env.unique("adm_missing");
    let family = ColumnFamily::new("d");
    let outcomes = [
        ("describe_table", admin.describe_table(&name).await.map(|_| ())),
        ("disable_table", admin.disable_table(&name).await),
        ("enable_table", admin.enable_table(&name).await),
        ("is_table_enabled", admin.is_table_enabled(&name).await.map(|_| ())),
        ("delete_table", admin.delete_table(&name).await),
        ("truncate_table", admin.truncate_table(&name, true).await),
        ("add_family", admin.add_family(&name, &family).await),
        ("modify_family", admin.modify_family(&name, &family).await),
        ("delete_family", admin.delete_family(&name, b"d").await),
    ];
    for (call, outcome) in outcomes {
        match outcome {
            Err(Error::TableNotFound { table }) => assert!(table.ends_with(&name), "{call}: {table}"),
            other => panic!("{call} on a missing table: expected TableNotFound, got {other:?}"),
        }
    }
    assert!(!admin.table_exists(&name).await?);
    Ok(())
}
