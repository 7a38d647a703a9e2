//! The same answers as HBase's Java client: bounds that meet, reversed scans with
//! filters, limits with batch, repeated family deletes, and the options Thrift2 carries
//! (exact timestamps, inclusive/exclusive bounds, per-family time ranges). Each expected
//! answer is the one hbase-client 2.6.1 gives against the same HBase.

use basalt::{Bytes, Comparator, CompareOp, Delete, Filter, Get, Put, Row, Scan, ScanPaging, Table};

use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        equal_bounds_yield_no_rows,
        stateless_pages_never_send_equal_bounds,
        reversed_filters_never_see_the_excluded_row,
        limit_with_batch_counts_rows_as_java_does,
        reversed_limit_with_batch_across_regions,
        repeated_family_deletes_apply_the_union,
    ]
}

fn keys(rows: &[Row]) -> Vec<String> {
    rows.iter().map(|r| String::from_utf8_lossy(r.key()).into_owned()).collect()
}

/// The distinct keys in order (parts of a batched row appear once).
fn row_keys(rows: &[Row]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for key in keys(rows) {
        if out.last() != Some(&key) {
            out.push(key);
        }
    }
    out
}

async fn drop_table(table: &Table) -> Result<(), basalt::Error> {
    table.client().admin().delete_table(table.name()).await
}

/// Case 1: `[x, x)` is empty (the gateway would turn it into a get of `x`).
async fn equal_bounds_yield_no_rows(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    for key in ["w", "x", "y"] {
        table.put(Put::new(key).cell("d", "q", "v")).await?;
    }
    for reversed in [false, true] {
        for paging in [ScanPaging::Scanner, ScanPaging::Stateless] {
            let scan = Scan::new().start("x").stop("x").reversed(reversed).paging(paging);
            let rows = table.scan_all(scan).await?;
            assert!(rows.is_empty(), "reversed {reversed}, {paging:?}: {:?}", keys(&rows));
            let filtered =
                Scan::new().start("x").stop("x").reversed(reversed).paging(paging).filter(Filter::key_only());
            assert!(table.scan_all(filtered).await?.is_empty(), "with a filter, reversed {reversed}");
        }
    }
    // A range that ends right after a row: `[x, x\0)` holds exactly `x`.
    let one = table.scan_all(Scan::new().start("x").stop(&b"x\0"[..])).await?;
    assert_eq!(keys(&one), ["x"]);
    let one = table.scan_all(Scan::new().start("x").stop(&b"x\0"[..]).reversed(true)).await?;
    assert_eq!(keys(&one), ["x"]);
    drop_table(&table).await?;
    Ok(())
}

/// Case 2: after returning `b`, a page or reopen must not ask for `[b\0, b\0)`.
async fn stateless_pages_never_send_equal_bounds(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    for key in [&b"a"[..], b"b", b"b\0", b"c"] {
        table.put(Put::new(Bytes::copy_from_slice(key)).cell("d", "q", "v")).await?;
    }
    for paging in [ScanPaging::Stateless, ScanPaging::Scanner] {
        for caching in [1u32, 2, 10] {
            let scan = Scan::new().start("a").stop(&b"b\0"[..]).paging(paging).caching(caching);
            assert_eq!(keys(&table.scan_all(scan).await?), ["a", "b"], "{paging:?}, caching {caching}");
            let rev = Scan::new().start(&b"b\0"[..]).stop("c").paging(paging).caching(caching).reversed(true);
            assert_eq!(keys(&table.scan_all(rev).await?), ["b\0"], "reversed {paging:?}, caching {caching}");
            let rev = Scan::new().start("a").stop(&b"b\0"[..]).paging(paging).caching(caching).reversed(true);
            assert_eq!(keys(&table.scan_all(rev).await?), ["b", "a"], "reversed {paging:?}, caching {caching}");
        }
    }
    drop_table(&table).await?;
    Ok(())
}

/// Cases 3 and 3b: a reversed scan's exclusive upper bound must not reach the server's
/// filters (a page filter would count it, a while-match filter would stop on it).
async fn reversed_filters_never_see_the_excluded_row(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    for i in 1..=5 {
        table.put(Put::new(format!("r{i}")).cell("d", "q", "v")).await?;
    }
    for paging in [ScanPaging::Scanner, ScanPaging::Stateless] {
        let base = Scan::new().start("r1").stop("r5").reversed(true).paging(paging);
        let page = table.scan_all(base.clone().filter(Filter::page(2))).await?;
        assert_eq!(keys(&page), ["r4", "r3"], "{paging:?}");
        let while_below = Filter::while_match(Filter::row(CompareOp::Less, Comparator::binary("r5")));
        let rows = table.scan_all(base.clone().filter(while_below)).await?;
        assert_eq!(keys(&rows), ["r4", "r3", "r2", "r1"], "{paging:?}");
        // With a limit and a filter: the limit is exact too.
        let limited = table.scan_all(base.clone().filter(Filter::key_only()).limit(2)).await?;
        assert_eq!(keys(&limited), ["r4", "r3"], "{paging:?}");
    }
    // A bound ending in 0x00 and one that is not a row.
    let page = table.scan_all(Scan::new().stop(&b"r3\0"[..]).reversed(true).filter(Filter::page(2))).await?;
    assert_eq!(keys(&page), ["r3", "r2"]);
    let page = table.scan_all(Scan::new().stop("r35").reversed(true).filter(Filter::page(1))).await?;
    assert_eq!(keys(&page), ["r3"]);
    drop_table(&table).await?;
    Ok(())
}

/// Case 4: rows whose last visible part is followed by hidden older versions are
/// flagged partial by HBase; the limit still counts each row once.
async fn limit_with_batch_counts_rows_as_java_does(env: Env) -> TestResult {
    let table = env.fresh_table(&["a"], &[]).await?;
    for i in 1..=4 {
        let row = format!("m{i}");
        table.put(Put::new(row.clone()).cell("a", "q1", "v")).await?;
        table.put(Put::new(row.clone()).cell_at("a", "q2", "old", 5)).await?;
        table.put(Put::new(row).cell_at("a", "q2", "new", 6)).await?;
    }
    for paging in [ScanPaging::Scanner, ScanPaging::Stateless] {
        let scan = Scan::new().start("m1").stop("m5").limit(1).batch(2).paging(paging);
        let rows = table.scan_all(scan).await?;
        assert_eq!(keys(&rows), ["m1"], "{paging:?}");
        assert_eq!(rows.iter().map(Row::len).sum::<usize>(), 2, "{paging:?}");
        let rows = table.scan_all(Scan::new().limit(3).batch(1).paging(paging)).await?;
        assert_eq!(row_keys(&rows), ["m1", "m2", "m3"], "{paging:?}");
        assert_eq!(rows.len(), 6, "two parts per row, {paging:?}");
        let rows = table.scan_all(Scan::new().limit(2).batch(2).reversed(true).paging(paging)).await?;
        assert_eq!(row_keys(&rows), ["m4", "m3"], "reversed, {paging:?}");
    }
    drop_table(&table).await?;
    Ok(())
}

/// Case 4b: a reversed batched scan with a limit across a region boundary.
async fn reversed_limit_with_batch_across_regions(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[b"v3"]).await?;
    let wide = |row: &str, cells: usize| {
        (0..cells).fold(Put::new(row.to_owned()), |put, q| put.cell_at("d", format!("q{q:02}"), "v", 10))
    };
    table.put(wide("v1", 4)).await?;
    table.put(wide("v2", 4)).await?;
    table.put(wide("v3", 22)).await?;
    table.put(wide("v5", 25)).await?;
    // Hidden older versions after the last visible cell of v3 and v2.
    table.put(Put::new("v3").cell_at("d", "q21", "old", 5)).await?;
    table.put(Put::new("v2").cell_at("d", "q03", "old", 5)).await?;
    for paging in [ScanPaging::Scanner, ScanPaging::Stateless] {
        for parallel in [1, 4] {
            let scan = Scan::new()
                .start("v0")
                .stop("v5")
                .reversed(true)
                .limit(2)
                .batch(2)
                .paging(paging)
                .parallel_regions(parallel);
            let rows = table.scan_all(scan).await?;
            assert_eq!(row_keys(&rows), ["v3", "v2"], "{paging:?}, parallel {parallel}");
            assert_eq!(rows.iter().map(Row::len).sum::<usize>(), 26, "{paging:?}, parallel {parallel}");
        }
    }
    drop_table(&table).await?;
    Ok(())
}

/// Case 5: two family deletes of one family in one `Delete` apply both (the gateway's
/// second family delete would replace the first).
async fn repeated_family_deletes_apply_the_union(env: Env) -> TestResult {
    let table = env.fresh_table(&["a", "b"], &[]).await?;
    table.put(Put::new("f").cell("a", "q0", "now").cell_at("a", "q1", "at50", 50).cell("b", "q", "kept")).await?;
    table.delete(Delete::row("f").family("a").family_until("a", 100)).await?;
    let row = table.get(Get::new("f")).await?;
    let left: Vec<_> = row.cells().map(|c| String::from_utf8_lossy(c.family()).into_owned()).collect();
    assert_eq!(left, ["b"], "both family deletes applied: {row:?}");
    // The other order, and a family delete until an older time next to one until a newer.
    table
        .put(Put::new("g").cell_at("a", "q0", "at10", 10).cell_at("a", "q1", "at50", 50).cell("a", "q2", "now"))
        .await?;
    table.delete(Delete::row("g").family_until("a", 60).family_until("a", 20)).await?;
    let row = table.get(Get::new("g")).await?;
    let left: Vec<_> = row.cells().map(|c| String::from_utf8_lossy(c.qualifier()).into_owned()).collect();
    assert_eq!(left, ["q2"], "everything at or before 60 is gone: {row:?}");
    drop_table(&table).await?;
    Ok(())
}
