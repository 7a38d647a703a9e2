//! The foundation's tests: the raw Thrift2 bindings against the real server.

use basalt_thrift::hbase::{
    TBloomFilterType, TColumnFamilyDescriptor, TColumnValue, TDelete, TDeleteType, TGet, TNamespaceDescriptor, TPut,
    TScan, TTableDescriptor, TTableName, TThriftServerType,
};

use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![server_is_thrift2_with_default_namespaces, namespace_table_row_lifecycle, table_errors_are_typed]
}

async fn server_is_thrift2_with_default_namespaces(env: Env) -> TestResult {
    let mut conn = env.connect().await?;
    assert_eq!(conn.get_thrift_server_type().await?, TThriftServerType::TWO);
    let namespaces = conn.list_namespaces().await?;
    assert!(namespaces.contains(&"default".to_owned()), "{namespaces:?}");
    assert!(namespaces.contains(&"hbase".to_owned()), "{namespaces:?}");
    Ok(())
}

fn family(name: &str) -> TColumnFamilyDescriptor {
    TColumnFamilyDescriptor::new(
        name.as_bytes().to_vec(),
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
    )
}

fn get_row(row: &[u8]) -> TGet {
    TGet::new(row.to_vec(), None, None, None, None, None, None, None, None, None, None, None, None, None, None)
}

fn cell(family: &str, qualifier: &str, value: &str) -> TColumnValue {
    TColumnValue::new(
        family.as_bytes().to_vec(),
        qualifier.as_bytes().to_vec(),
        value.as_bytes().to_vec(),
        None,
        None,
        None,
    )
}

async fn namespace_table_row_lifecycle(env: Env) -> TestResult {
    let mut conn = env.connect().await?;
    let ns = env.unique("ns");
    conn.create_namespace(TNamespaceDescriptor::new(ns.clone(), None)).await?;
    assert!(conn.list_namespaces().await?.contains(&ns));

    let name = TTableName::new(ns.as_bytes().to_vec(), b"calls".to_vec());
    let full = format!("{ns}:calls").into_bytes();
    let desc = TTableDescriptor::new(
        name.clone(),
        vec![
            TColumnFamilyDescriptor { max_versions: Some(3), ..family("d") },
            TColumnFamilyDescriptor { bloomn_filter_type: Some(TBloomFilterType::ROWCOL), ..family("m") },
        ],
        None,
        None,
    );
    let splits: Vec<Vec<u8>> = vec![b"1|".to_vec(), b"2|".to_vec(), b"3|".to_vec()];
    conn.create_table(desc, splits.clone()).await?;
    assert!(conn.table_exists(name.clone()).await?);

    // Four regions, cut exactly at the split keys.
    let regions = conn.get_all_region_locations(full.clone()).await?;
    let mut starts: Vec<Vec<u8>> =
        regions.iter().map(|r| r.region_info.start_key.clone().unwrap_or_default()).collect();
    starts.sort();
    assert_eq!(starts, vec![Vec::new(), splits[0].clone(), splits[1].clone(), splits[2].clone()]);

    // The descriptor kept both families and their settings.
    let described = conn.get_table_descriptor(name.clone()).await?;
    let families = described.columns.unwrap_or_default();
    let d = families.iter().find(|f| f.name == b"d").ok_or("family d missing")?;
    assert_eq!(d.max_versions, Some(3));
    let m = families.iter().find(|f| f.name == b"m").ok_or("family m missing")?;
    assert_eq!(m.bloomn_filter_type, Some(TBloomFilterType::ROWCOL));

    // Put, get, scan, delete one row.
    let row = b"2|13800000000_20210915".to_vec();
    conn.put(
        full.clone(),
        TPut::new(row.clone(), vec![cell("d", "dur", "61"), cell("m", "peer", "139")], None, None, None, None),
    )
    .await?;
    let got = conn.get(full.clone(), get_row(&row)).await?;
    assert_eq!(got.row.as_deref(), Some(&row[..]));
    let mut values: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> =
        got.column_values.iter().map(|c| (c.family.clone(), c.qualifier.clone(), c.value.clone())).collect();
    values.sort();
    assert_eq!(
        values,
        vec![(b"d".to_vec(), b"dur".to_vec(), b"61".to_vec()), (b"m".to_vec(), b"peer".to_vec(), b"139".to_vec())]
    );

    // Not TScan::default(): Thrift's generated Default fills every optional field.
    let scan = TScan::new(
        b"2|".to_vec(),
        b"3|".to_vec(),
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
    );
    let scanner = conn.open_scanner(full.clone(), scan).await?;
    let rows = conn.call(&basalt_thrift::hbase::calls::GetScannerRows::new(scanner, 10)).await?;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].row.as_deref(), Some(&row[..]));
    assert!(conn.get_scanner_rows(scanner, 10).await?.is_empty());
    conn.close_scanner(scanner).await?;

    let delete = TDelete::new(row.clone(), None, None, TDeleteType::DELETE_COLUMNS, None, None);
    conn.delete_single(full.clone(), delete).await?;
    let gone = conn.get(full.clone(), get_row(&row)).await?;
    assert!(gone.column_values.is_empty(), "row still has {:?}", gone.column_values);

    // Drop the table, then the namespace.
    conn.disable_table(name.clone()).await?;
    conn.delete_table(name.clone()).await?;
    assert!(!conn.table_exists(name).await?);
    conn.delete_namespace(ns.clone()).await?;
    assert!(!conn.list_namespaces().await?.contains(&ns));
    Ok(())
}

async fn table_errors_are_typed(env: Env) -> TestResult {
    let mut conn = env.connect().await?;
    let missing = get_row(b"r");
    let err = conn.get(b"no_such_table_anywhere".to_vec(), missing).await.expect_err("a missing table must fail");
    match &err {
        basalt_thrift::CallError::Reply(basalt_thrift::ReplyError::Server { message, can_retry }) => {
            assert!(message.contains("no_such_table_anywhere"), "{message}");
            assert_eq!(*can_retry, Some(false), "table-not-found is not retryable");
        }
        other => panic!("expected a server error, got {other:?}"),
    }
    // The connection survives a declared server error.
    assert!(conn.is_reusable());
    assert!(!conn.list_namespaces().await?.is_empty());
    Ok(())
}
