//! Scans and filters through the `basalt` client against the real server.

use std::time::Duration;

use basalt::{Bytes, Comparator, CompareOp, Filter, Put, Row, Scan, Table};
use futures::{StreamExt, TryStreamExt};

use crate::support::{check_reopens_after_pause, Env, Test, TestResult, SCANNER_TIMEOUT};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        forward_and_reverse_bounds,
        prefix_scans_never_leak,
        limits_and_paging,
        batched_wide_rows,
        sixteen_regions,
        each_filter_kind,
        scanner_expiry_forward,
        scanner_expiry_reverse,
        dropping_a_scan_closes_it,
    ]
}

fn keys(rows: &[Row]) -> Vec<String> {
    rows.iter().map(|r| String::from_utf8_lossy(r.key()).into_owned()).collect()
}

async fn numbered(env: &Env, n: usize, splits: &[&[u8]]) -> Result<Table, basalt::Error> {
    let table = env.fresh_table(&["d"], splits).await?;
    table.put_many((0..n).map(|i| Put::new(format!("k{i:04}")).cell("d", "n", i.to_string()))).await?;
    Ok(table)
}

async fn forward_and_reverse_bounds(env: Env) -> TestResult {
    let table = numbered(&env, 20, &[b"k0010"]).await?;
    let all = table.scan_all(Scan::new()).await?;
    assert_eq!(all.len(), 20);
    let fwd = table.scan_all(Scan::new().start("k0003").stop("k0007")).await?;
    assert_eq!(keys(&fwd), ["k0003", "k0004", "k0005", "k0006"]);
    // Same bounds, reversed: the same rows, largest first; start stays inclusive and
    // stop exclusive, whatever HBase's reversed TScan calls them.
    let rev = table.scan_all(Scan::new().start("k0003").stop("k0007").reversed(true)).await?;
    assert_eq!(keys(&rev), ["k0006", "k0005", "k0004", "k0003"]);
    // Bounds that are not row keys, across the region boundary.
    let rev = table.scan_all(Scan::new().start("k0008x").stop("k0012x").reversed(true)).await?;
    assert_eq!(keys(&rev), ["k0012", "k0011", "k0010", "k0009"]);
    let rev_all = table.scan_all(Scan::new().reversed(true)).await?;
    assert_eq!(rev_all.len(), 20);
    assert_eq!(keys(&rev_all[..1]), ["k0019"]);
    let tail = table.scan_all(Scan::new().start("k0018").reversed(true)).await?;
    assert_eq!(keys(&tail), ["k0019", "k0018"]);
    let head = table.scan_all(Scan::new().stop("k0002").reversed(true)).await?;
    assert_eq!(keys(&head), ["k0001", "k0000"]);
    // A lower bound ending in 0x00 uses the exact exclusive stop.
    let zero = table.scan_all(Scan::new().start(&b"k0004\x00"[..]).stop("k0006").reversed(true)).await?;
    assert_eq!(keys(&zero), ["k0005"]);
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn prefix_scans_never_leak(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    for key in ["host1", "host1_a", "host12", "host12_b", "host2", "host1\u{7f}"] {
        table.put(Put::new(key).cell("d", "v", "x")).await?;
    }
    table.put(Put::new(vec![b'h', 0xFF]).cell("d", "v", "x")).await?;
    table.put(Put::new(vec![b'h', 0xFF, 0xFF]).cell("d", "v", "x")).await?;
    table.put(Put::new("i").cell("d", "v", "x")).await?;
    let with_sep = table.scan_all(Scan::new().prefix("host1_")).await?;
    assert_eq!(keys(&with_sep), ["host1_a"], "a separator keeps host12 out");
    let bare = table.scan_all(Scan::new().prefix("host1")).await?;
    assert_eq!(bare.len(), 5, "a bare prefix matches host12 too: that is why keys need separators or fixed widths");
    let ff = table.scan_all(Scan::new().prefix(vec![b'h', 0xFF])).await?;
    assert_eq!(ff.len(), 2, "prefix successor handles trailing 0xFF");
    let ff_rev = table.scan_all(Scan::new().prefix(vec![b'h', 0xFF]).reversed(true)).await?;
    assert_eq!(ff_rev.len(), 2);
    let rev = table.scan_all(Scan::new().prefix("host1_").reversed(true)).await?;
    assert_eq!(keys(&rev), ["host1_a"]);
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn limits_and_paging(env: Env) -> TestResult {
    let table = numbered(&env, 120, &[b"k0040", b"k0080"]).await?;
    for caching in [1u32, 7, 50, 1000] {
        let rows = table.scan_all(Scan::new().caching(caching)).await?;
        assert_eq!(rows.len(), 120, "caching {caching}");
        let limited = table.scan_all(Scan::new().caching(caching).limit(45)).await?;
        assert_eq!(keys(&limited[44..]), ["k0044"], "caching {caching}");
        assert_eq!(limited.len(), 45);
        let rev = table.scan_all(Scan::new().caching(caching).limit(3).reversed(true).stop("k0100")).await?;
        assert_eq!(keys(&rev), ["k0099", "k0098", "k0097"], "caching {caching}");
    }
    let mut stream = table.scan(Scan::new().caching(10))?;
    let mut pages = 0;
    while let Some(page) = stream.next_page().await {
        let page = page?;
        assert!(page.len() <= 10);
        pages += 1;
    }
    assert_eq!(pages, 12);
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn batched_wide_rows(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    for r in 0..3 {
        let mut put = Put::new(format!("wide{r}"));
        for q in 0..25 {
            put = put.cell("d", format!("q{q:02}"), "v");
        }
        table.put(put).await?;
    }
    let parts = table.scan_all(Scan::new().batch(10)).await?;
    // 25 cells in parts of 10: 10, 10, 5 per row.
    assert_eq!(parts.len(), 9);
    assert_eq!(parts.iter().map(|r| r.len()).collect::<Vec<_>>(), [10, 10, 5, 10, 10, 5, 10, 10, 5]);
    assert_eq!(parts.iter().filter(|r| r.is_partial()).count(), 6, "all parts but each row's last are partial");
    let limited = table.scan_all(Scan::new().batch(10).limit(2)).await?;
    assert_eq!(limited.iter().map(|r| r.len()).sum::<usize>(), 50, "the limit counts whole rows");
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn sixteen_regions(env: Env) -> TestResult {
    let splits: Vec<Vec<u8>> = (1..16u8).map(|b| vec![b]).collect();
    let split_refs: Vec<&[u8]> = splits.iter().map(|s| &s[..]).collect();
    let table = env.fresh_table(&["d"], &split_refs).await?;
    let regions = table.region_locations().await?;
    assert_eq!(regions.len(), 16);
    assert!(regions[0].start_key.is_empty() && regions[15].end_key.is_empty());
    for (i, region) in regions.iter().enumerate().skip(1) {
        assert_eq!(&region.start_key[..], &[i as u8][..]);
        assert!(region.contains(&[i as u8, 0x42]));
    }
    table.put_many((0..16u8).flat_map(|b| (0..10u8).map(move |i| Put::new(vec![b, i]).cell("d", "v", "x")))).await?;
    let rows = table.scan_all(Scan::new().caching(7)).await?;
    assert_eq!(rows.len(), 160);
    assert!(rows.windows(2).all(|w| w[0].key() < w[1].key()));
    let rev = table.scan_all(Scan::new().reversed(true).caching(7)).await?;
    assert_eq!(rev.len(), 160);
    assert!(rev.windows(2).all(|w| w[0].key() > w[1].key()));
    // The default scan crosses every region in its pages without a page refused or a
    // scanner reopened (either would make the servers read rows twice).
    for reversed in [false, true] {
        let mut stream = table.scan(Scan::new().reversed(reversed))?;
        let mut rows = 0;
        while stream.try_next().await?.is_some() {
            rows += 1;
        }
        let stats = stream.stats();
        let seen = (rows, stats.reopens(), stats.rejected_pages());
        assert_eq!(seen, (160, 0, 0), "reversed {reversed}: rows, reopens, refused pages");
    }
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn each_filter_kind(env: Env) -> TestResult {
    let table = env.fresh_table(&["d", "m"], &[]).await?;
    for i in 0..10u8 {
        let name = if i % 2 == 0 { "report.pdf" } else { "photo.jpg" };
        let mut put = Put::new(format!("u{i:02}"))
            .cell_at("d", "name", name, 1000 + i64::from(i))
            .cell("d", "size", format!("{:03}", i * 10))
            .cell("m", "tag", vec![b'\'', i, 0xFF]);
        if i < 5 {
            put = put.cell("d", "extra", "1");
        }
        table.put(put).await?;
    }
    let count = |filter: Filter| {
        let table = table.clone();
        async move { table.scan_all(Scan::new().filter(filter)).await.map(|rows| rows.len()) }
    };
    let scvf =
        Filter::single_column_value("d", "name", CompareOp::Equal, Comparator::Binary(Bytes::from("report.pdf")))
            .filter_if_missing(true);
    assert_eq!(count(scvf.into()).await?, 5);
    assert_eq!(count(Filter::prefix("u0")).await?, 10);
    assert_eq!(count(Filter::page(3)).await?, 3);
    let cols = table.scan_all(Scan::new().filter(Filter::column_prefix("ex"))).await?;
    assert_eq!(cols.len(), 5);
    assert!(cols.iter().all(|r| r.len() == 1));
    assert_eq!(count(Filter::row(CompareOp::Less, Comparator::Binary(Bytes::from("u03")))).await?, 3);
    assert_eq!(count(Filter::row(CompareOp::Equal, Comparator::RegexString("u0[135]".into()))).await?, 3);
    assert_eq!(count(Filter::value(CompareOp::Equal, Comparator::Substring("photo".into()))).await?, 5);
    assert_eq!(count(Filter::value(CompareOp::Equal, Comparator::BinaryPrefix(Bytes::from("rep")))).await?, 5);
    // Binary values with a quote and 0xFF inside, quoted correctly.
    let binary = Filter::value(CompareOp::Equal, Comparator::Binary(Bytes::from(vec![b'\'', 7, 0xFF])));
    assert_eq!(count(binary).await?, 1);
    let quals = table
        .scan_all(Scan::new().filter(Filter::qualifier(CompareOp::Equal, Comparator::Binary(Bytes::from("size")))))
        .await?;
    assert!(quals.iter().all(|r| r.len() == 1 && r.cells().all(|c| c.qualifier() == b"size")));
    let fam = table
        .scan_all(Scan::new().filter(Filter::family(CompareOp::Equal, Comparator::Binary(Bytes::from("m")))))
        .await?;
    assert!(fam.iter().all(|r| r.cells().all(|c| c.family() == b"m")));
    let key_only = table.scan_all(Scan::new().filter(Filter::key_only())).await?;
    assert!(key_only.iter().all(|r| r.cells().all(|c| c.value().is_empty())));
    let first = table.scan_all(Scan::new().filter(Filter::first_key_only())).await?;
    assert!(first.iter().all(|r| r.len() == 1));
    assert_eq!(count(Filter::timestamps([1003, 1004])).await?, 2);
    let range = table
        .scan_all(
            Scan::new()
                .filter(Filter::column_range(Some((Bytes::from("n"), true)), Some((Bytes::from("size"), false)))),
        )
        .await?;
    assert!(range.iter().all(|r| r.cells().all(|c| c.qualifier() == b"name")));
    // Nesting: (name = report AND size >= 040) OR row = u01.
    let report =
        Filter::single_column_value("d", "name", CompareOp::Equal, Comparator::Binary(Bytes::from("report.pdf")));
    let big =
        Filter::single_column_value("d", "size", CompareOp::GreaterOrEqual, Comparator::Binary(Bytes::from("040")));
    let nested =
        Filter::from(report).and(big).or(Filter::row(CompareOp::Equal, Comparator::Binary(Bytes::from("u01"))));
    let rows = table.scan_all(Scan::new().filter(nested)).await?;
    assert_eq!(keys(&rows), ["u01", "u04", "u06", "u08"]);
    assert_eq!(count(Filter::raw("PrefixFilter ('u09')")).await?, 1);
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

/// A consumer that pauses longer than the server's scanner timeout after the first page.
async fn slow_consumer(table: &Table, scan: Scan) -> Result<(Vec<Row>, u64), basalt::Error> {
    let mut stream = table.scan(scan)?;
    let stats = stream.stats();
    let mut rows = Vec::new();
    while let Some(row) = stream.next().await {
        rows.push(row?);
        if rows.len() == 5 {
            tokio::time::sleep(SCANNER_TIMEOUT + Duration::from_secs(3)).await;
        }
    }
    Ok((rows, stats.reopens()))
}

async fn scanner_expiry_forward(env: Env) -> TestResult {
    let table = numbered(&env, 40, &[b"k0020"]).await?;
    let (rows, reopens) = slow_consumer(&table, Scan::new().caching(5)).await?;
    let expected: Vec<String> = (0..40).map(|i| format!("k{i:04}")).collect();
    assert_eq!(keys(&rows), expected, "no row twice, no row missed");
    check_reopens_after_pause(&env, reopens, "forward scan")?;
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn scanner_expiry_reverse(env: Env) -> TestResult {
    let table = numbered(&env, 40, &[b"k0020"]).await?;
    let (rows, reopens) = slow_consumer(&table, Scan::new().caching(5).reversed(true).start("k0002")).await?;
    let expected: Vec<String> = (2..40).rev().map(|i| format!("k{i:04}")).collect();
    assert_eq!(keys(&rows), expected);
    check_reopens_after_pause(&env, reopens, "reversed scan")?;
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn dropping_a_scan_closes_it(env: Env) -> TestResult {
    let table = numbered(&env, 30, &[]).await?;
    let client = table.client().clone();
    for _ in 0..20 {
        let mut stream = table.scan(Scan::new().caching(2))?;
        let first = stream.next().await.ok_or("no row")??;
        assert_eq!(first.key(), b"k0000");
        drop(stream);
    }
    // Every abandoned scan's worker closed its scanner and gave its connection back:
    // the pool (16 by default) is not exhausted and calls still go through.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rows = tokio::time::timeout(Duration::from_secs(20), table.scan_all(Scan::new())).await??;
    assert_eq!(rows.len(), 30);
    assert!(client.pool_stats().opened <= 16);
    client.admin().delete_table(table.name()).await?;
    Ok(())
}
