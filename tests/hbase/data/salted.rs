//! Salted tables and merged salted scans against the real server.

use std::collections::BTreeSet;
use std::time::Duration;

use basalt::{Bytes, Put, SaltedCursor, SaltedRow, SaltedTable, Scan};
use basalt_rowkey::{FieldType, HashAlgo, Pad, Query, Salt, Schema, Value, Width};
use futures::{StreamExt, TryStreamExt};

use crate::support::{check_reopens_after_pause, Env, Test, TestResult, SCANNER_TIMEOUT};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        hundred_thousand_rows_sixteen_buckets,
        telecom_months_plan_one_salt_each,
        empty_one_and_256_buckets,
        socorro_crash_ids,
        slow_consumer_past_scanner_timeout,
    ]
}

/// xorshift64*: deterministic test data without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn user_schema(buckets: u32) -> Schema {
    Schema::builder()
        .field("user", FieldType::Str(Width::Variable))
        .field("seq", FieldType::U32)
        .salt(Salt::hash(HashAlgo::Murmur3 { seed: 0 }, &["user"], buckets))
        .build()
        .expect("valid schema")
}

/// Writes `rows` random (user, seq) rows; returns the sorted set of logical keys.
async fn fill(salted: &SaltedTable, rows: usize, users: u64, seed: u64) -> Result<Vec<Bytes>, basalt::Error> {
    let mut rng = Rng(seed);
    let mut expected = BTreeSet::new();
    let mut puts = Vec::with_capacity(rows);
    for _ in 0..rows {
        let values = [Value::str(format!("u{:05}", rng.next() % users)), Value::UInt(rng.next() % 1_000_000)];
        expected.insert(salted.schema().encode_logical(&values)?);
        puts.push(salted.new_put(&values)?.cell("d", "v", "x"));
    }
    let mut tasks = Vec::new();
    let chunk = puts.len().div_ceil(4).max(1);
    for part in puts.chunks(chunk) {
        let table = salted.table().clone();
        let part = part.to_vec();
        tasks.push(tokio::spawn(async move { table.put_many(part).await }));
    }
    for task in tasks {
        task.await.map_err(|e| basalt::Error::Server {
            message: e.to_string(),
            can_retry: false,
            exception: None,
        })??;
    }
    Ok(expected.into_iter().collect())
}

async fn salted_table(env: &Env, schema: Schema, splits: Vec<Bytes>) -> Result<SaltedTable, basalt::Error> {
    let client = env.client();
    let name = env.unique("salted");
    let desc = basalt::TableDescriptor::new(name.clone()).family(basalt::ColumnFamily::new("d"));
    client.admin().create_table(&desc, &splits).await?;
    Ok(client.table(&name)?.salted(schema))
}

fn logical(rows: &[SaltedRow]) -> Vec<Bytes> {
    rows.iter().map(|r| r.logical_key_bytes()).collect()
}

async fn hundred_thousand_rows_sixteen_buckets(env: Env) -> TestResult {
    let schema = user_schema(16);
    let splits: Vec<Bytes> = (1..16u8).map(|b| Bytes::from(vec![b])).collect();
    let salted = salted_table(&env, schema, splits).await?;
    let expected = fill(&salted, 100_000, 5_000, 7).await?;
    assert!(expected.len() > 99_000);

    // Forward: equal to the sorted expectation.
    let mut stream = salted.scan(Query::new()).template(Scan::new().caching(1000)).stream().await?;
    let mut got = Vec::with_capacity(expected.len());
    while let Some(row) = stream.next().await {
        got.push(row?.logical_key_bytes());
    }
    assert_eq!(got.len(), expected.len());
    assert!(got == expected, "forward merge differs from the sorted expectation");
    assert_eq!(stream.bucket_stats().len(), 16);
    assert!(stream.skew() < 1.3, "murmur3 spreads users evenly: skew {}", stream.skew());

    // Reverse.
    let rows: Vec<SaltedRow> = salted.scan(Query::new().reverse(true)).stream().await?.try_collect().await?;
    let mut reversed = expected.clone();
    reversed.reverse();
    assert!(logical(&rows) == reversed, "reverse merge differs");

    // Limits, both directions.
    let first: Vec<SaltedRow> = salted.scan(Query::new()).limit(1234).stream().await?.try_collect().await?;
    assert_eq!(logical(&first), expected[..1234].to_vec());
    let last: Vec<SaltedRow> = salted.scan(Query::new().reverse(true)).limit(10).stream().await?.try_collect().await?;
    assert_eq!(logical(&last), reversed[..10].to_vec());

    // A query fixing the salted field touches one bucket only.
    let user = Query::new().fixed(Value::str("u00042"));
    let plan = salted.scan(user.clone()).plan()?;
    assert_eq!(plan.ranges.len(), 1);
    let one: Vec<SaltedRow> = salted.scan(user).stream().await?.try_collect().await?;
    let prefix = salted.schema().encode_logical(&[Value::str("u00042"), Value::UInt(0)])?;
    let want: Vec<Bytes> = expected.iter().filter(|k| k.starts_with(&prefix[..prefix.len() - 4])).cloned().collect();
    assert!(!want.is_empty());
    assert_eq!(logical(&one), want);

    // Resumable cursor: page 1, a token, page 2 from the token = the whole result.
    let mut page1 = salted.scan(Query::new()).limit(25_000).stream().await?;
    let mut keys = Vec::new();
    while let Some(row) = page1.next().await {
        keys.push(row?.logical_key_bytes());
    }
    let token = page1.cursor().to_token();
    drop(page1);
    let resumed = salted.scan(Query::new()).resume(SaltedCursor::from_token(&token)?).stream().await?;
    let rest: Vec<SaltedRow> = resumed.try_collect().await?;
    keys.extend(logical(&rest));
    assert!(keys == expected, "page 1 + resumed page 2 must equal the full result");
    let wrong = salted.scan(Query::new().reverse(true)).resume(SaltedCursor::from_token(&token)?).stream().await;
    assert!(wrong.is_err(), "a cursor from another query is refused");

    // Unordered mode: the same rows, any order.
    let mut any: Vec<Bytes> =
        logical(&salted.scan(Query::new()).ordered(false).stream().await?.try_collect::<Vec<_>>().await?);
    any.sort();
    assert!(any == expected);

    // Region-aware splitting gives the same ordered result.
    let split: Vec<SaltedRow> =
        salted.scan(Query::new()).split_by_regions(true).concurrency(4).stream().await?.try_collect().await?;
    assert!(logical(&split) == expected);

    // Dropping a merged scan early releases every bucket's scanner and connection.
    for _ in 0..5 {
        let mut early = salted.scan(Query::new()).stream().await?;
        assert!(early.next().await.is_some());
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let again = tokio::time::timeout(Duration::from_secs(60), salted.scan(Query::new()).limit(5).stream()).await??;
    assert_eq!(again.try_collect::<Vec<_>>().await?.len(), 5);
    salted.table().client().admin().delete_table(salted.table().name()).await?;
    Ok(())
}

async fn telecom_months_plan_one_salt_each(env: Env) -> TestResult {
    let schema = Schema::builder()
        .field("phone", FieldType::Str(Width::Fixed { len: 11, pad: Pad::Right(b' ') }))
        .literal("_")
        .field("calltime", FieldType::Decimal { digits: 14 })
        .salt(Salt::call_record("phone", "calltime", 6))
        .build()?;
    let splits: Vec<Bytes> = basalt_rowkey::split::call_record_split_keys(6).into_iter().collect();
    let salted = salted_table(&env, schema, splits).await?;
    let phones = ["13812345678", "13900001111", "15011112222"];
    let mut puts: Vec<Put> = Vec::new();
    let mut wanted = Vec::new();
    for phone in phones {
        for month in 6..=12u64 {
            for day in [1u64, 15, 28] {
                let t = 20_210_000_000_000 + month * 100_000_000 + day * 1_000_000 + 123_045;
                let values = [Value::str(phone), Value::UInt(t)];
                puts.push(salted.new_put(&values)?.cell("d", "dur", "60"));
                if phone == "13812345678" && (9..=11).contains(&month) {
                    wanted.push(salted.schema().encode_logical(&values)?);
                }
            }
        }
    }
    salted.table().put_many(puts).await?;
    let query =
        Query::new().fixed(Value::str("13812345678")).between(Value::UInt(20210901000000), Value::UInt(20211200000000));
    let plan = salted.scan(query.clone()).plan()?;
    assert_eq!(plan.ranges.len(), 3, "one range per month");
    let buckets: BTreeSet<Option<u32>> = plan.ranges.iter().map(|r| r.bucket).collect();
    assert_eq!(buckets.len(), 3, "three different salts");
    let rows: Vec<SaltedRow> = salted.scan(query.clone()).stream().await?.try_collect().await?;
    assert_eq!(logical(&rows), wanted);
    let latest: Vec<SaltedRow> = salted.scan(query.reverse(true)).limit(2).stream().await?.try_collect().await?;
    assert_eq!(logical(&latest), wanted.iter().rev().take(2).cloned().collect::<Vec<_>>());
    salted.table().client().admin().delete_table(salted.table().name()).await?;
    Ok(())
}

async fn empty_one_and_256_buckets(env: Env) -> TestResult {
    // Modulo salt on `n`: values never ≡ 5 (mod 16) leave bucket 5 empty.
    let modulo = Schema::builder().field("n", FieldType::U64).salt(Salt::modulo("n", 16)).build()?;
    let salted = salted_table(&env, modulo, Vec::new()).await?;
    let ns: Vec<u64> = (0..2000u64).filter(|n| n % 16 != 5).collect();
    salted
        .table()
        .put_many(
            ns.iter()
                .map(|n| salted.new_put(&[Value::UInt(*n)]).map(|p| p.cell("d", "v", "x")))
                .collect::<Result<Vec<_>, _>>()?,
        )
        .await?;
    let mut stream = salted.scan(Query::new()).stream().await?;
    let mut got = Vec::new();
    while let Some(row) = stream.next().await {
        got.push(row?.values(salted.schema())?[0].clone());
    }
    assert_eq!(got, ns.iter().map(|n| Value::UInt(*n)).collect::<Vec<_>>());
    assert_eq!(stream.bucket_stats().iter().find(|s| s.bucket == Some(5)).map(|s| s.emitted), Some(0));
    salted.table().client().admin().delete_table(salted.table().name()).await?;

    for buckets in [1u32, 256] {
        let salted = salted_table(&env, user_schema(buckets), Vec::new()).await?;
        let expected = fill(&salted, 3000, 400, u64::from(buckets)).await?;
        let rows: Vec<SaltedRow> = salted.scan(Query::new()).stream().await?.try_collect().await?;
        assert!(logical(&rows) == expected, "{buckets} buckets forward");
        let rev: Vec<SaltedRow> =
            salted.scan(Query::new().reverse(true)).limit(100).stream().await?.try_collect().await?;
        assert_eq!(logical(&rev), expected.iter().rev().take(100).cloned().collect::<Vec<_>>(), "{buckets} reverse");
        salted.table().client().admin().delete_table(salted.table().name()).await?;
    }
    Ok(())
}

async fn socorro_crash_ids(env: Env) -> TestResult {
    let schema = Schema::builder()
        .field("date", FieldType::Decimal { digits: 6 })
        .field("ooid", FieldType::Str(Width::Fixed { len: 36, pad: Pad::Right(b' ') }))
        .salt(Salt::socorro("ooid"))
        .build()?;
    let salted = salted_table(&env, schema, Vec::new()).await?;
    let mut rng = Rng(99);
    let mut expected = Vec::new();
    let mut puts = Vec::new();
    for _ in 0..3000 {
        let date = 211101 + rng.next() % 3;
        // Made like Socorro's: a uuid whose last six characters are the date (yymmdd).
        let id = format!(
            "{:08x}-{:04x}-{:04x}-{:04x}-{:06x}{date:06}",
            rng.next() as u32,
            rng.next() as u16,
            rng.next() as u16,
            rng.next() as u16,
            rng.next() & 0xff_ffff
        );
        let values = [Value::UInt(date), Value::str(id)];
        if date == 211102 {
            expected.push(salted.schema().encode_logical(&values)?);
        }
        puts.push(salted.new_put(&values)?.cell("d", "json", "{}"));
    }
    salted.table().put_many(puts).await?;
    expected.sort();
    let plan = salted.scan(Query::new().fixed(Value::UInt(211102))).plan()?;
    assert_eq!(plan.ranges.len(), 22, "the id is not fixed: every bucket (16 hex digits, plus A-F kept as written)");
    let rows: Vec<SaltedRow> =
        salted.scan(Query::new().fixed(Value::UInt(211102))).stream().await?.try_collect().await?;
    assert_eq!(logical(&rows), expected);
    salted.table().client().admin().delete_table(salted.table().name()).await?;
    Ok(())
}

async fn slow_consumer_past_scanner_timeout(env: Env) -> TestResult {
    let salted = salted_table(&env, user_schema(16), Vec::new()).await?;
    let expected = fill(&salted, 2000, 300, 5).await?;
    let mut stream = salted.scan(Query::new()).template(Scan::new().caching(20)).stream().await?;
    let mut got = Vec::new();
    while let Some(row) = stream.next().await {
        got.push(row?.logical_key_bytes());
        if got.len() == 50 {
            tokio::time::sleep(SCANNER_TIMEOUT + Duration::from_secs(3)).await;
        }
    }
    assert!(got == expected, "exactly the expected rows after the pause past the scanner lease");
    let reopens: u64 = stream.bucket_stats().iter().map(|s| s.reopens()).sum();
    check_reopens_after_pause(&env, reopens, "merged salted scan")?;
    salted.table().client().admin().delete_table(salted.table().name()).await?;
    Ok(())
}
