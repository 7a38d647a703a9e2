//! Filters against the real server: each filter sent as a filter string and as a
//! serialized protobuf filter selects the same cells; strings parsed on the client select
//! what HBase's own parser selects; the filters outside the language work; and the two
//! combinations HBase refuses are refused before sending.

use std::time::{Duration, Instant};

use basalt::filter::{BitwiseOp, FilterError, RowRange};
use basalt::transport::filter_protobuf;
use basalt::{Bytes, Comparator, CompareOp, Filter, Get, Put, Scan, Table};
use basalt_thrift::hbase::{TGet, TResult, TScan};

use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        #[gateway_only("raw Thrift2 calls with filter strings")]
        string_and_protobuf_select_the_same_cells,
        #[gateway_only("raw Thrift2 calls with filter strings")]
        parsed_strings_select_what_hbase_selects,
        filters_outside_the_language,
        batch_with_a_row_level_filter_is_refused_before_sending,
        reversed_on_demand_loading_is_refused_before_sending,
    ]
}

use CompareOp::{Equal, Greater, GreaterOrEqual, Less, LessOrEqual, NotEqual};

/// Twelve rows `r00`..`r11` over families `a` and `b`, plus `r'q`:
/// - `a:q1` = `v{i}` at ts 100 + i; `b:x` = `X` (i < 6) at the same ts; `b:y` = `Y{i}` (i >= 4) at ts 50;
/// - `a:q2` = i * 10 - 30 as an 8-byte long (even i); `a:q3` = one byte `1 << (i % 4)`;
/// - `a:e` = empty (i % 3 == 0).
async fn dataset(env: &Env, families: &[&str]) -> Result<Table, basalt::Error> {
    let table = env.fresh_table(families, &[]).await?;
    let mut puts = Vec::new();
    for i in 0..12i64 {
        let ts = 100 + i;
        let mut put = Put::new(format!("r{i:02}")).cell_at("a", "q1", format!("v{i:02}"), ts).cell_at(
            "a",
            "q3",
            vec![1u8 << (i % 4)],
            ts,
        );
        if i % 2 == 0 {
            put = put.cell_at("a", "q2", (i * 10 - 30).to_be_bytes().to_vec(), ts);
        }
        if i % 3 == 0 {
            put = put.cell_at("a", "e", Vec::new(), ts);
        }
        if families.contains(&"b") {
            if i < 6 {
                put = put.cell_at("b", "x", "X", ts);
            }
            if i >= 4 {
                put = put.cell_at("b", "y", format!("Y{i}"), 50);
            }
        }
        puts.push(put);
    }
    puts.push(Put::new("r'q").cell_at("a", "q1", "it's", 7));
    table.put_many(puts).await?;
    Ok(table)
}

/// A cell as compared: row, family, qualifier, value, timestamp.
type Cell = (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>, i64);

fn cells(results: Vec<TResult>) -> Vec<Cell> {
    let mut out = Vec::new();
    for r in results {
        let row = r.row.unwrap_or_default();
        for c in r.column_values {
            out.push((row.clone(), c.family, c.qualifier, c.value, c.timestamp.unwrap_or_default()));
        }
    }
    out
}

fn row_keys(cells: &[Cell]) -> Vec<String> {
    let mut keys: Vec<String> = cells.iter().map(|c| String::from_utf8_lossy(&c.0).into_owned()).collect();
    keys.dedup();
    keys
}

/// One raw `getScannerResults` with either form of the filter.
async fn raw_scan(
    env: &Env,
    table: &Table,
    string: Option<Vec<u8>>,
    bytes: Option<Vec<u8>>,
) -> Result<Vec<Cell>, String> {
    let mut conn = env.connect().await.map_err(|e| e.to_string())?;
    let scan = TScan::new(
        None, None, None, None, None, None, string, None, None, None, None, None, None, None, None, None, None, bytes,
    );
    let batch =
        conn.get_scanner_results(table.name().as_bytes().to_vec(), scan, 1000).await.map_err(|e| e.to_string())?;
    Ok(batch
        .iter()
        .flat_map(|row| {
            let key = row.key();
            row.cells().map(move |c| {
                (
                    key.to_vec(),
                    c.family().to_vec(),
                    c.qualifier().to_vec(),
                    c.value().to_vec(),
                    c.timestamp().unwrap_or_default(),
                )
            })
        })
        .collect())
}

/// One raw `get` of `row` with either form of the filter.
async fn raw_get(
    env: &Env,
    table: &Table,
    row: &str,
    string: Option<Vec<u8>>,
    bytes: Option<Vec<u8>>,
) -> Result<Vec<Cell>, String> {
    let mut conn = env.connect().await.map_err(|e| e.to_string())?;
    let get = TGet::new(
        row.as_bytes().to_vec(),
        None,
        None,
        None,
        None,
        string,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        bytes,
    );
    conn.get(table.name().as_bytes().to_vec(), get).await.map(|r| cells(vec![r])).map_err(|e| e.to_string())
}

/// Every filter of the language (and combinations), with the rows each must select.
fn language_filters() -> Vec<(Filter, Vec<&'static str>)> {
    let bin = |s: &'static str| Comparator::binary(s);
    let all: Vec<&str> =
        vec!["r'q", "r00", "r01", "r02", "r03", "r04", "r05", "r06", "r07", "r08", "r09", "r10", "r11"];
    let some = |keys: &[&'static str]| keys.to_vec();
    let scv = |op, v| Filter::single_column_value("a", "q1", op, bin(v));
    vec![
        (Filter::key_only(), all.clone()),
        (Filter::key_only_with_lengths(), all.clone()),
        (Filter::first_key_only(), all.clone()),
        (Filter::prefix("r0"), some(&["r00", "r01", "r02", "r03", "r04", "r05", "r06", "r07", "r08", "r09"])),
        (Filter::column_prefix("x"), some(&["r00", "r01", "r02", "r03", "r04", "r05"])),
        (
            Filter::multiple_column_prefix(["e", "y"]),
            some(&["r00", "r03", "r04", "r05", "r06", "r07", "r08", "r09", "r10", "r11"]),
        ),
        (Filter::page(3), some(&["r'q", "r00", "r01"])),
        (Filter::page(0), Vec::new()),
        (Filter::column_pagination(1, 3), some(&["r00", "r02", "r03", "r04", "r05", "r06", "r08", "r09", "r10"])),
        (Filter::inclusive_stop("r02"), some(&["r'q", "r00", "r01", "r02"])),
        (Filter::timestamps([7, 105, 50]), some(&["r'q", "r04", "r05", "r06", "r07", "r08", "r09", "r10", "r11"])),
        (Filter::row(Less, bin("r02")), some(&["r'q", "r00", "r01"])),
        (Filter::row(Equal, Comparator::regex_string("r1[01]")), some(&["r10", "r11"])),
        (Filter::value(Equal, Comparator::substring("Y1")), some(&["r10", "r11"])),
        (Filter::value(Equal, Comparator::regex_string_no_case("V0[89]")), some(&["r08", "r09"])),
        (
            Filter::qualifier(GreaterOrEqual, Comparator::binary_prefix("y")),
            some(&["r04", "r05", "r06", "r07", "r08", "r09", "r10", "r11"]),
        ),
        (
            Filter::family(NotEqual, bin("a")),
            some(&["r00", "r01", "r02", "r03", "r04", "r05", "r06", "r07", "r08", "r09", "r10", "r11"]),
        ),
        (
            Filter::column_range(Some((Bytes::from("x"), false)), None),
            some(&["r04", "r05", "r06", "r07", "r08", "r09", "r10", "r11"]),
        ),
        (scv(Greater, "v09").build(), some(&["r10", "r11"])),
        (scv(LessOrEqual, "v01").filter_if_missing(true).build(), some(&["r'q", "r00", "r01"])),
        (
            Filter::single_column_value_exclude("b", "x", Equal, bin("X")).filter_if_missing(true).build(),
            some(&["r00", "r01", "r02", "r03", "r04", "r05"]),
        ),
        (Filter::dependent_column("b", "y").build(), some(&["r04", "r05", "r06", "r07", "r08", "r09", "r10", "r11"])),
        (
            Filter::dependent_column("a", "q1").drop_dependent_column(true).value(Equal, bin("v03")).build(),
            some(&["r03"]),
        ),
        (Filter::column_value("a", "q1", LessOrEqual, bin("v01")), some(&["r'q", "r00", "r01"])),
        (Filter::skip(Filter::value(NotEqual, bin("X"))), some(&["r'q", "r06", "r07", "r08", "r09", "r10", "r11"])),
        (Filter::while_match(Filter::row(Less, bin("r03"))), some(&["r'q", "r00", "r01", "r02"])),
        (
            Filter::prefix("r0").and(Filter::key_only()).or(Filter::row(Equal, bin("r10"))),
            some(&["r00", "r01", "r02", "r03", "r04", "r05", "r06", "r07", "r08", "r09", "r10"]),
        ),
        (
            Filter::all([Filter::skip(Filter::value(NotEqual, bin("X"))), Filter::prefix("r1")])
                .or(Filter::row(Equal, bin("r'q"))),
            some(&["r'q", "r10", "r11"]),
        ),
    ]
}

async fn string_and_protobuf_select_the_same_cells(env: Env) -> TestResult {
    let table = dataset(&env, &["a", "b"]).await?;
    let everything = raw_scan(&env, &table, None, None).await?;
    for (filter, want) in language_filters() {
        let string = filter.render()?.to_vec();
        let bytes = filter_protobuf::encode(&filter)?.to_vec();
        let by_string =
            raw_scan(&env, &table, Some(string), None).await.map_err(|e| format!("{filter} as string: {e}"))?;
        let by_bytes =
            raw_scan(&env, &table, None, Some(bytes)).await.map_err(|e| format!("{filter} as bytes: {e}"))?;
        assert_eq!(by_string, by_bytes, "{filter}: string and protobuf differ");
        assert_eq!(row_keys(&by_string), want, "{filter}");
        // The client sends it as a string; the rows are the same.
        let via_client = table.scan_all(Scan::new().filter(filter.clone())).await?;
        let client_keys: Vec<String> =
            via_client.iter().map(|r| String::from_utf8_lossy(r.key()).into_owned()).collect();
        assert_eq!(client_keys, want, "{filter} through the client");
        assert!(by_string != everything, "{filter} filtered nothing");
    }
    // A get with each form, too.
    let filter = Filter::column_prefix("q");
    let (s, b) = (Some(filter.render()?.to_vec()), Some(filter_protobuf::encode(&filter)?.to_vec()));
    let (by_string, by_bytes) =
        (raw_get(&env, &table, "r04", s, None).await?, raw_get(&env, &table, "r04", None, b).await?);
    assert_eq!(by_string, by_bytes);
    assert_eq!(by_string.len(), 3, "{by_string:?}");
    let filter = Filter::column_count_get(2);
    let (s, b) = (Some(filter.render()?.to_vec()), Some(filter_protobuf::encode(&filter)?.to_vec()));
    let (by_string, by_bytes) =
        (raw_get(&env, &table, "r04", s, None).await?, raw_get(&env, &table, "r04", None, b).await?);
    assert_eq!(by_string, by_bytes);
    assert_eq!(by_string.len(), 2, "{by_string:?}");
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn parsed_strings_select_what_hbase_selects(env: Env) -> TestResult {
    let table = dataset(&env, &["a", "b"]).await?;
    // Hand-written, not canonical: spacing, defaults spelled out, redundant parentheses.
    let texts = [
        "PrefixFilter ( 'r0' ) AND ((KeyOnlyFilter()))",
        "SingleColumnValueFilter('a','q1',>=,'binary:v10',false,true)",
        "SKIP ValueFilter(!=, 'binary:X') OR RowFilter(=, 'binary:r01')",
        "(QualifierFilter(=, 'binary:y') AND ValueFilter(>=, 'binary:Y9')) OR (RowFilter(<=, 'binary:r00'))",
        "ColumnRangeFilter('', FALSE, 'q2', TRUE) AND TimestampsFilter(100, 101, 0102)",
        "DependentColumnFilter('a', 'q1', true) AND PrefixFilter('r05')",
        "WHILE RowFilter(<, 'binary:r04') AND FirstKeyOnlyFilter()",
        "RowFilter(=, 'binary:r''q')",
        "ColumnPaginationFilter(2, 0) AND InclusiveStopFilter('r01')",
    ];
    for text in texts {
        let parsed = Filter::parse(text)?;
        let server_parsed = raw_scan(&env, &table, Some(text.as_bytes().to_vec()), None).await?;
        let client_parsed = raw_scan(&env, &table, Some(parsed.render()?.to_vec()), None).await?;
        let as_bytes = raw_scan(&env, &table, None, Some(filter_protobuf::encode(&parsed)?.to_vec())).await?;
        assert_eq!(client_parsed, server_parsed, "{text} -> {parsed}");
        assert_eq!(as_bytes, server_parsed, "{text} as protobuf");
        assert!(!server_parsed.is_empty(), "{text} selected nothing");
    }
    // The typed builder gives the same filter as the first string.
    let typed = Filter::prefix("r0").and(Filter::key_only());
    assert_eq!(Filter::parse(texts[0])?, typed);
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn filters_outside_the_language(env: Env) -> TestResult {
    let table = dataset(&env, &["a", "b"]).await?;
    let keys = |rows: Vec<basalt::Row>| -> Vec<String> {
        rows.iter().map(|r| String::from_utf8_lossy(r.key()).into_owned()).collect()
    };
    let scan = |filter: Filter| Scan::new().filter(filter);
    // Long: numeric, signed (i * 10 - 30 >= 0 for even i >= 3).
    let long = scan(Filter::value(GreaterOrEqual, Comparator::long(0))).column("a", "q2");
    assert_eq!(keys(table.scan_all(long).await?), ["r04", "r06", "r08", "r10"]);
    let negative = scan(Filter::value(Less, Comparator::long(-5))).column("a", "q2");
    assert_eq!(keys(table.scan_all(negative).await?), ["r00", "r02"]);
    // Bit: a:q3 = 1 << (i % 4).
    let bit = |op| {
        Filter::single_column_value("a", "q3", Equal, Comparator::bit(vec![0x02u8], op)).filter_if_missing(true).build()
    };
    assert_eq!(keys(table.scan_all(scan(bit(BitwiseOp::And))).await?), ["r01", "r05", "r09"]);
    let xor = keys(table.scan_all(scan(bit(BitwiseOp::Xor))).await?);
    assert_eq!(xor, ["r00", "r02", "r03", "r04", "r06", "r07", "r08", "r10", "r11"]);
    assert_eq!(keys(table.scan_all(scan(bit(BitwiseOp::Or))).await?).len(), 12);
    // Null: a stored value is never null, so `=` keeps exactly the rows lacking a:e.
    let null = Filter::single_column_value("a", "e", Equal, Comparator::null()).build();
    assert_eq!(
        keys(table.scan_all(scan(null)).await?),
        ["r'q", "r01", "r02", "r04", "r05", "r07", "r08", "r10", "r11"]
    );
    // BinaryComponent: the second byte of a:q1 (`v0x` / `v1x`).
    let component =
        Filter::single_column_value("a", "q1", Equal, Comparator::binary_component("1", 1)).filter_if_missing(true);
    assert_eq!(keys(table.scan_all(scan(component.build())).await?), ["r10", "r11"]);
    // FuzzyRow: r?1 (mask 0 = fixed, 1 = any).
    let fuzzy = Filter::fuzzy_row([("r01", vec![0u8, 1, 0])]);
    assert_eq!(keys(table.scan_all(scan(fuzzy)).await?), ["r01", "r11"]);
    let ranges =
        Filter::multi_row_range([RowRange::new("r02", true, "r04", false), RowRange::new("r09", false, "r10", true)]);
    assert_eq!(keys(table.scan_all(scan(ranges)).await?), ["r02", "r03", "r10"]);
    // Column pagination from a column: two columns starting at `q2`.
    let page = table.scan_all(scan(Filter::column_pagination_from(2, "q2")).family("a").prefix("r0")).await?;
    let first = page.first().ok_or("no rows")?;
    assert_eq!(first.cells().map(|c| c.qualifier().to_vec()).collect::<Vec<_>>(), [b"q2".to_vec(), b"q3".to_vec()]);
    assert_eq!(keys(table.scan_all(scan(Filter::random_row(1.0))).await?).len(), 13);
    assert!(table.scan_all(scan(Filter::random_row(0.0))).await?.is_empty());
    // Mixed into a list with a language filter, the whole list goes as protobuf.
    let mixed = Filter::prefix("r1").and(Filter::fuzzy_row([("r10", vec![0u8, 0, 1])]));
    assert_eq!(keys(table.scan_all(scan(mixed)).await?), ["r10", "r11"]);
    // HBase 2.6 fails a MultiRowRangeFilter under SKIP (a NullPointerException on the
    // region server, then the gateway's retries): refused before sending.
    let started = Instant::now();
    let skip =
        Filter::skip(Filter::prefix("r").and(Filter::multi_row_range([RowRange::new("r02", true, "r04", false)])));
    let err = refused(table.scan_all(scan(skip)).await);
    assert_eq!(err, FilterError::UnsupportedUnderSkip("MultiRowRangeFilter"));
    assert!(started.elapsed() < Duration::from_secs(1), "refused after {:?}", started.elapsed());
    // Under WHILE, AND and OR it works.
    let ranges = || Filter::multi_row_range([RowRange::new("r02", true, "r04", false)]);
    // (WHILE ends the scan at the first row before the ranges: the filter hints a seek.)
    assert!(table.scan_all(scan(Filter::while_match(ranges()))).await?.is_empty());
    assert_eq!(
        keys(table.scan_all(scan(Filter::any([ranges(), Filter::prefix("r1")]))).await?),
        ["r02", "r03", "r10", "r11"]
    );
    // A get carries protobuf filters too.
    let got = table.get(Get::new("r06").filter(Filter::value(Greater, Comparator::long(20))).column("a", "q2")).await?;
    assert_eq!(got.len(), 1);
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

fn refused(result: Result<Vec<basalt::Row>, basalt::Error>) -> FilterError {
    match result {
        Err(basalt::Error::InvalidInput(basalt::InvalidInput::Filter(e))) => e,
        other => panic!("expected a filter refusal, got {other:?}"),
    }
}

async fn batch_with_a_row_level_filter_is_refused_before_sending(env: Env) -> TestResult {
    let table = dataset(&env, &["a", "b"]).await?;
    let row_level = [
        Filter::page(2),
        Filter::single_column_value("a", "q1", Equal, Comparator::binary("v01")).build(),
        Filter::single_column_value_exclude("a", "q1", Equal, Comparator::binary("v01")).build(),
        Filter::skip(Filter::key_only()),
        Filter::while_match(Filter::key_only()),
        Filter::dependent_column("a", "q1").build(),
        Filter::prefix("r").and(Filter::page(1)),
        Filter::raw("KeyOnlyFilter() AND PageFilter(1)"),
        Filter::fuzzy_row([("r01", vec![0u8, 1, 0])]).or(Filter::random_row(0.5)),
    ];
    for filter in row_level {
        let started = Instant::now();
        let err = refused(table.scan_all(Scan::new().filter(filter.clone()).batch(2)).await);
        assert!(matches!(err, FilterError::RowFilterWithBatch { batch: 2, .. }), "{filter}: {err}");
        assert!(started.elapsed() < Duration::from_secs(1), "{filter}: refused after {:?}", started.elapsed());
    }
    // HBase itself refuses the combination: sent raw, the gateway fails the call.
    let mut conn = env.connect().await?;
    let raw = TScan::new(
        None,
        None,
        None,
        None,
        None,
        None,
        Some(b"PageFilter(2)".to_vec()),
        Some(2),
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
    assert!(conn.get_scanner_results(table.name().as_bytes().to_vec(), raw, 10).await.is_err());
    // Cell-level filters with batch are fine.
    let parts = table.scan_all(Scan::new().filter(Filter::prefix("r0")).family("a").batch(1)).await?;
    assert!(parts.len() > 10, "{} parts", parts.len());
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn reversed_on_demand_loading_is_refused_before_sending(env: Env) -> TestResult {
    let table = dataset(&env, &["a", "b"]).await?;
    let scv = Filter::single_column_value("a", "q1", Equal, Comparator::binary("v03")).filter_if_missing(true).build();
    let reversed = || Scan::new().reversed(true).filter(scv.clone());
    let err = refused(table.scan_all(reversed().family("a").family("b")).await);
    assert_eq!(err, FilterError::ReversedOnDemand { filter: "SingleColumnValueFilter", family: Bytes::from("b") });
    let value = Filter::column_value("a", "q1", Equal, Comparator::binary("v03"));
    let err = refused(table.scan_all(Scan::new().reversed(true).filter(value).column("b", "x")).await);
    assert!(matches!(err, FilterError::ReversedOnDemand { filter: "ColumnValueFilter", .. }), "{err}");
    // What HBase accepts goes through: only the filter's family, or a forward scan, or
    // a list where another member needs every family, or filter_if_missing off.
    let only_a = table.scan_all(reversed().family("a")).await?;
    assert_eq!(only_a.len(), 1);
    assert_eq!(table.scan_all(Scan::new().filter(scv.clone()).family("a").family("b")).await?.len(), 1);
    let with_prefix = scv.clone().and(Filter::prefix("r0"));
    assert_eq!(table.scan_all(Scan::new().reversed(true).filter(with_prefix).family("a").family("b")).await?.len(), 1);
    let keep_missing = Filter::single_column_value("a", "q1", Equal, Comparator::binary("v03")).build();
    let rows = table.scan_all(Scan::new().reversed(true).filter(keep_missing).family("a").family("b")).await?;
    assert_eq!(rows.len(), 1);
    // A scan naming no family reads all of the table's: the client cannot know them, so
    // HBase decides. It refuses on this two-family table (quickly: no retries) ...
    let started = Instant::now();
    assert!(table.scan_all(reversed()).await.is_err());
    assert!(started.elapsed() < Duration::from_secs(30), "refused after {:?}", started.elapsed());
    // ... and accepts on a table of one family.
    let single = dataset(&env, &["a"]).await?;
    assert_eq!(single.scan_all(reversed()).await?.len(), 1);
    for t in [table, single] {
        t.client().admin().delete_table(t.name()).await?;
    }
    Ok(())
}
