//! A salted table end to end: write 20,000 call records under the salted telecom key
//! design (`XX_phone_yyyyMMddHHmmss`, salt from the phone and the month), then read
//! them back as one ordered stream merged from every bucket, and ask the multi-month
//! question that needs one salt per month.
//!
//! ```text
//! cargo run -p basalt-hbase --example salted_scan
//! ```
//! Uses `BASALT_THRIFT_ADDR` if set, else starts (and stops) a local HBase.

use basalt::{Bytes, Client, ColumnFamily, Framing, Protocol, SaltedRow, TableDescriptor};
use basalt_rowkey::{split, FieldType, Pad, Query, Salt, Schema, Value, Width};
use basalt_testkit::{HBase, LaunchOptions};
use futures::{StreamExt, TryStreamExt};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut hbase = HBase::from_env_or_start(&LaunchOptions::default())?;
    let client = Client::builder()
        .address(hbase.addr())
        .framing(if hbase.framed() { Framing::Framed } else { Framing::Buffered })
        .protocol(if hbase.compact() { Protocol::Compact } else { Protocol::Binary })
        .build()?;

    // The key design: 6 buckets rendered `N_`, pre-split at `0|`..`4|` (one region per bucket).
    let schema = Schema::builder()
        .field("phone", FieldType::Str(Width::Fixed { len: 11, pad: Pad::Right(b' ') }))
        .literal("_")
        .field("calltime", FieldType::Decimal { digits: 14 })
        .salt(Salt::call_record("phone", "calltime", 6))
        .build()?;
    let name = "basalt_example_calls";
    let admin = client.admin();
    if admin.table_exists(name).await? {
        admin.delete_table(name).await?;
    }
    let splits: Vec<Bytes> = split::call_record_split_keys(6).into_iter().collect();
    admin.create_table(&TableDescriptor::new(name).family(ColumnFamily::new("d")), &splits).await?;
    let calls = client.table(name)?.salted(schema);

    // 200 phones x 100 calls spread over 2021.
    let mut puts = Vec::new();
    for p in 0..200u64 {
        let phone = format!("138{:08}", p * 7919);
        for c in 0..100u64 {
            let month = 1 + c % 12;
            let when = 20_210_000_000_000 + month * 100_000_000 + (1 + c % 28) * 1_000_000 + c * 7;
            puts.push(calls.new_put(&[Value::str(phone.clone()), Value::UInt(when)])?.cell("d", "dur", c.to_string()));
        }
    }
    let written = calls.table().put_many(puts).await?;
    println!("wrote {written} call records into 6 salted buckets");

    // Every record, merged from the 6 buckets into logical-key order.
    let mut stream = calls.scan(Query::new()).stream().await?;
    let (mut count, mut previous): (u64, Option<Bytes>) = (0, None);
    while let Some(row) = stream.next().await {
        let row = row?;
        if previous.as_ref().is_some_and(|p| &p[..] > row.logical_key()) {
            return Err("merged stream out of order".into());
        }
        previous = Some(row.logical_key_bytes());
        count += 1;
    }
    println!("merged scan: {count} rows in order; rows per bucket:");
    for s in stream.bucket_stats() {
        println!("  bucket {:?}: {} rows, {} pages", s.bucket, s.emitted, s.pages());
    }

    // Calls of one phone from September to November: three ranges, three salts.
    let phone = format!("138{:08}", 42 * 7919);
    let query = Query::new()
        .fixed(Value::str(phone.clone()))
        .between(Value::UInt(20_210_901_000_000), Value::UInt(20_211_200_000_000));
    let plan = calls.scan(query.clone()).plan()?;
    println!("{phone}, 2021-09..2021-11: {} ranges, salts {:?}", plan.ranges.len(), plan.buckets());
    let rows: Vec<SaltedRow> = calls.scan(query).stream().await?.try_collect().await?;
    for row in rows.iter().take(3) {
        println!("  {:?}", row.values(calls.schema())?);
    }
    println!("  ... {} calls", rows.len());

    admin.delete_table(name).await?;
    hbase.stop()?;
    Ok(())
}
