//! Region-parallel ordered scans (`Scan::parallel_regions`) and growing pages against
//! the real server: the same rows in the same order as the plain scan, forward and
//! reversed, with bounds, limits, filters and the other read options, and no scanner
//! left open on the server when such a scan is dropped half-way.

use std::time::Duration;

use basalt::{Bytes, Comparator, CompareOp, Filter, Put, Row, Scan, Table};
use futures::StreamExt;

use crate::gateway::chaos::{check_own_gateway_options, client_via};
use crate::support::scanners::{LeftOpen, ScannerProbe};
use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        parallel_scans_equal_the_plain_scan_forward_and_reversed,
        parallel_scans_with_limits_filters_and_options,
        pages_grow_unless_caching_is_set,
        #[gateway_only("probes the scanner ids of a gateway")]
        dropping_a_parallel_scan_closes_every_scanner,
    ]
}

/// Regions of the test table: split at the one-byte keys 1..16.
const REGIONS: u8 = 16;

/// A table of 16 regions with `per_region` rows in each (keys `[region, i / 256,
/// i % 256]`), two cells per row, written at two timestamps.
async fn sixteen_region_table(env: &Env, per_region: u16) -> Result<Table, basalt::Error> {
    let splits: Vec<Vec<u8>> = (1..REGIONS).map(|b| vec![b]).collect();
    let split_refs: Vec<&[u8]> = splits.iter().map(|s| &s[..]).collect();
    let table = env.fresh_table(&["d", "m"], &split_refs).await?;
    let puts = (0..REGIONS).flat_map(|r| {
        (0..per_region).map(move |i| {
            let [hi, lo] = i.to_be_bytes();
            Put::new(vec![r, hi, lo]).cell_at("d", "n", format!("{r}-{i}"), 1000 + i64::from(i % 7)).cell_at(
                "m",
                "tag",
                if i % 3 == 0 { "three" } else { "other" },
                2000,
            )
        })
    });
    table.put_many(puts).await?;
    Ok(table)
}

fn key_of(row: &Row) -> &[u8] {
    row.key()
}

/// Reads a scan to its end.
async fn all(table: &Table, scan: Scan) -> Result<Vec<Row>, basalt::Error> {
    table.scan_all(scan).await
}

/// The plain scan's rows and the parallel scan's (for each degree), which must be equal.
async fn same_as_plain(table: &Table, scan: Scan, degrees: &[usize], what: &str) -> TestResult {
    let plain = all(table, scan.clone()).await?;
    for &n in degrees {
        let mut stream = table.scan(scan.clone().parallel_regions(n))?;
        let stats = stream.stats();
        let mut parallel = Vec::new();
        while let Some(row) = stream.next().await {
            parallel.push(row?);
        }
        if parallel != plain {
            let first_diff = plain.iter().zip(&parallel).position(|(a, b)| a != b);
            return Err(format!(
                "{what}, parallel_regions({n}): {} rows vs the plain scan's {}, first difference at {first_diff:?}",
                parallel.len(),
                plain.len()
            )
            .into());
        }
        assert_eq!(stats.rows(), plain.len() as u64, "{what}: rows counted");
        assert!(stats.finished_after().is_some(), "{what}: finished");
    }
    Ok(())
}

async fn parallel_scans_equal_the_plain_scan_forward_and_reversed(env: Env) -> TestResult {
    let table = sixteen_region_table(&env, 300).await?;
    assert_eq!(table.region_locations().await?.len(), usize::from(REGIONS));
    for reversed in [false, true] {
        let dir = if reversed { "reversed" } else { "forward" };
        let full = Scan::new().reversed(reversed);
        let rows = all(&table, full.clone()).await?;
        assert_eq!(rows.len(), 16 * 300, "{dir}");
        let ordered =
            rows.windows(2)
                .all(|w| if reversed { key_of(&w[0]) > key_of(&w[1]) } else { key_of(&w[0]) < key_of(&w[1]) });
        assert!(ordered, "{dir}: the plain scan is in key order");
        same_as_plain(&table, full.clone(), &[2, 4, 8, 16, 64], &format!("full scan, {dir}")).await?;
        // Small fixed pages: many pages per region.
        same_as_plain(&table, full.clone().caching(37), &[8], &format!("caching 37, {dir}")).await?;
        // Bounds inside regions, across several; on a region start; inside one region.
        let inside = Scan::new().start(vec![2u8, 0, 17]).stop(vec![9u8, 1, 3]).reversed(reversed);
        same_as_plain(&table, inside, &[4], &format!("bounds inside regions, {dir}")).await?;
        let on_starts = Scan::new().start(vec![3u8]).stop(vec![7u8]).reversed(reversed);
        same_as_plain(&table, on_starts, &[4], &format!("bounds on region starts, {dir}")).await?;
        let one_region = Scan::new().start(vec![5u8, 0, 10]).stop(vec![5u8, 0, 90]).reversed(reversed);
        same_as_plain(&table, one_region, &[8], &format!("inside one region, {dir}")).await?;
        let prefix = Scan::new().prefix(vec![11u8]).reversed(reversed);
        same_as_plain(&table, prefix, &[8], &format!("prefix, {dir}")).await?;
        let empty = Scan::new().start(vec![4u8, 9]).stop(vec![4u8, 9]).reversed(reversed);
        assert!(all(&table, empty.parallel_regions(8)).await?.is_empty(), "{dir}: empty range");
    }
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn parallel_scans_with_limits_filters_and_options(env: Env) -> TestResult {
    let table = sixteen_region_table(&env, 120).await?;
    for reversed in [false, true] {
        let dir = if reversed { "reversed" } else { "forward" };
        // Limits inside the first region, on a region's end, across many regions.
        for limit in [1u64, 119, 120, 121, 1000, 1919, 1920, 5000] {
            let scan = Scan::new().limit(limit).reversed(reversed);
            let rows = all(&table, scan.clone().parallel_regions(8)).await?;
            assert_eq!(rows.len() as u64, limit.min(1920), "{dir}, limit {limit}");
            same_as_plain(&table, scan.caching(50), &[3, 8], &format!("limit {limit}, caching 50, {dir}")).await?;
        }
        // A server-side filter that leaves some rows in every region, and one that
        // leaves rows in one region only (the other pieces return empty pages). (A
        // SingleColumnValueFilter cannot run reversed: HBase refuses to load column
        // families on demand in a reverse scan, plain or parallel.)
        let three = Filter::value(CompareOp::Equal, Comparator::Binary(Bytes::from("three")));
        let scan = Scan::new().filter(three).reversed(reversed);
        same_as_plain(&table, scan.clone(), &[8], &format!("value filter, {dir}")).await?;
        assert_eq!(all(&table, scan.clone().parallel_regions(8)).await?.len(), 16 * 40, "{dir}");
        same_as_plain(&table, scan.limit(50), &[8], &format!("value filter and limit, {dir}")).await?;
        let lonely = Filter::row(CompareOp::Equal, Comparator::BinaryPrefix(Bytes::from(vec![13u8, 0, 7])));
        let rows = all(&table, Scan::new().filter(lonely).reversed(reversed).parallel_regions(8)).await?;
        assert_eq!(rows.len(), 1, "{dir}: one row in region 13");
        // Columns, time range, versions, batch.
        let options = Scan::new().family("d").time_range(1000, 1003).max_versions(2).reversed(reversed);
        same_as_plain(&table, options.clone(), &[8], &format!("family and time range, {dir}")).await?;
        let column = Scan::new().column("m", "tag").reversed(reversed).caching(25);
        same_as_plain(&table, column, &[5], &format!("one column, caching 25, {dir}")).await?;
        let batched = Scan::new().batch(1).reversed(reversed);
        let parts = all(&table, batched.clone().parallel_regions(8)).await?;
        assert_eq!(parts.len(), 2 * 1920, "{dir}: two parts per row");
        same_as_plain(&table, batched.clone(), &[8], &format!("batch 1, {dir}")).await?;
        // The limit counts whole rows, not parts.
        same_as_plain(&table, batched.limit(130), &[8], &format!("batch 1 and limit, {dir}")).await?;
    }
    // A missing table: one typed error, then the end.
    let missing = env.client().table("no_such_table_for_parallel")?;
    let mut stream = missing.scan(Scan::new().parallel_regions(4))?;
    let first = stream.next().await.ok_or("no item")?;
    assert!(first.is_err(), "{first:?}");
    assert!(stream.next().await.is_none(), "one error, then the end");
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn pages_grow_unless_caching_is_set(env: Env) -> TestResult {
    let table = sixteen_region_table(&env, 600).await?;
    // 9,600 rows: 100, 400, 1,600, then pages by size (about 2 MiB), so 4 or 5 pages
    // with rows and an empty one, where fixed pages of 100 rows take 97.
    let mut stream = table.scan(Scan::new())?;
    let mut sizes = Vec::new();
    while let Some(page) = stream.next_page().await {
        sizes.push(page?.len());
    }
    assert_eq!(sizes.iter().sum::<usize>(), 9600);
    assert_eq!(&sizes[..3], [100, 400, 1600], "{sizes:?}");
    assert!(sizes.len() <= 6, "pages grew: {sizes:?}");
    let mut stream = table.scan(Scan::new().caching(100))?;
    let mut fixed = Vec::new();
    while let Some(page) = stream.next_page().await {
        fixed.push(page?.len());
    }
    assert_eq!(fixed.len(), 96, "explicit caching: every page exactly 100 rows");
    assert!(fixed.iter().all(|&n| n == 100));
    // A reply limit lower than the byte target: pages stay under it.
    let small = env.client_builder().max_response_bytes(256 << 10).build()?;
    let rows = small.table(table.name())?.scan_all(Scan::new()).await?;
    assert_eq!(rows.len(), 9600);
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn dropping_a_parallel_scan_closes_every_scanner(env: Env) -> TestResult {
    check_own_gateway_options(&env)?;
    let table = sixteen_region_table(&env, 200).await?;
    let name = table.name().to_owned();
    let probe = ScannerProbe::start(&env, &name).await?;
    let client = client_via(&env, probe.addr(), None);
    let table = client.table(&name)?;
    // Parallel scans dropped mid-way: with small pages, every running piece has an open
    // scanner with rows left; forward and reversed, some dropped after a region's worth.
    for (reversed, read) in [(false, 3usize), (true, 3), (false, 450), (true, 450)] {
        let mut stream = table.scan(Scan::new().caching(5).reversed(reversed).parallel_regions(8))?;
        for _ in 0..read {
            stream.next().await.ok_or("no row")??;
        }
        // Let every piece open its scanner and fill its read-ahead.
        tokio::time::sleep(Duration::from_millis(300)).await;
        drop(stream);
    }
    // 4 scans of 8 pieces running at once, and more started as the first ones ended.
    let LeftOpen { opened, still_open } = probe.left_open(&env, &name, 8, "the parallel scans'").await?;
    eprintln!(
        "parallel scan figures: dropped parallel scans opened {opened} scanners, {} still open on the server",
        still_open.len()
    );
    drop(table);
    drop(client);
    probe.stop().await?;
    env.client().admin().delete_table(&name).await?;
    if still_open.is_empty() {
        Ok(())
    } else {
        Err(format!("scanner ids still open on the server after the parallel scans were dropped: {still_open:?}")
            .into())
    }
}
