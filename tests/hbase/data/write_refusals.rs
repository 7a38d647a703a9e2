//! Writes HBase refuses for good fail at once, not after retrying to the deadline, and
//! a batch holding one such write says exactly which rows were written.
//!
//! The client lets values up to 64 MiB through (`max_value_bytes`), so the region
//! server judges an 11 MiB cell against its own limit (`hbase.server.keyvalue.maxsize`,
//! 10 MiB by default) and refuses it with a `DoNotRetryIOException`.

use std::time::{Duration, Instant};

use basalt::{Bytes, Error, Get, Put};

use crate::support::{Env, Test, TestResult, Transport};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![an_oversized_cell_is_refused_at_once_alone_and_in_a_batch]
}

async fn an_oversized_cell_is_refused_at_once_alone_and_in_a_batch(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    let client = env.client_builder().request_timeout(Duration::from_secs(30)).max_value_bytes(64 << 20).build()?;
    let through = client.table(table.name())?;
    let big = Bytes::from(vec![b'x'; 11 << 20]);

    let started = Instant::now();
    let error = through.put(Put::new("big").cell("d", "v", big.clone())).await.expect_err("an 11 MiB cell was written");
    let single = started.elapsed();
    if error.is_retryable() {
        return Err(format!("the refusal of an oversized cell is called retryable: {error}").into());
    }
    // Native RPC names HBase's exception as a type, not only in the message.
    let refusal = Some("org.apache.hadoop.hbase.DoNotRetryIOException");
    if env.transport() == Transport::Native && error.exception_class() != refusal {
        return Err(format!("the refusal names {:?}: {error}", error.exception_class()).into());
    }

    let rows: Vec<Bytes> = (0..50).map(|i| Bytes::from(format!("r{i:02}"))).collect();
    let puts = rows.iter().enumerate().map(|(i, row)| {
        let value = if i == 17 { big.clone() } else { row.clone() };
        Put::new(row.clone()).cell("d", "v", value)
    });
    let started = Instant::now();
    let error = through.put_many(puts).await.expect_err("a batch with an 11 MiB cell was written whole");
    let batch = started.elapsed();
    eprintln!(
        "refusal figures ({:?}): oversized put refused in {single:?}, batch in {batch:?}: {error}",
        env.transport()
    );
    let Error::BatchFailed { confirmed, not_confirmed, in_doubt, source } = &error else {
        return Err(format!("expected a batch failure, got {error:?}").into());
    };
    if source.is_retryable() || error.is_retryable() {
        return Err(format!("the batch's refusal is called retryable: {error}").into());
    }
    // What the error says of each row must be what HBase holds: a row confirmed is
    // present, a row said not written is absent (in doubt: either). HBase 2.6 checks
    // every cell's size before applying any write of a region's batch and answers each
    // of them with the exception, so here nothing of the batch is written.
    let read = env.client().table(table.name())?.get_many(rows.iter().map(|r| Get::new(r.clone()))).await?;
    let present: Vec<&Bytes> = rows.iter().zip(&read).filter(|(_, r)| !r.is_empty()).map(|(k, _)| k).collect();
    let (doubtful, unwritten) = not_confirmed.split_at(*in_doubt);
    if present.iter().any(|k| unwritten.contains(k)) || present.len() < *confirmed {
        return Err(format!("rows present {present:?}, but the error says {error}").into());
    }
    match env.transport() {
        // Native RPC answers per write, and HBase answered every one: none in doubt.
        Transport::Native => {
            if error.exception_class() != refusal {
                return Err(format!("the batch's refusal names {:?}: {error}", error.exception_class()).into());
            }
            if !doubtful.is_empty() || *confirmed + unwritten.len() != 50 || !unwritten.contains(&rows[17]) {
                return Err(format!("native: {confirmed} confirmed, {} in doubt: {error}", doubtful.len()).into());
            }
        }
        // The gateway answers for the whole call: every row may have been written.
        Transport::Thrift => {
            if *confirmed + not_confirmed.len() != 50 {
                return Err(format!("gateway: {confirmed} confirmed and {} not", not_confirmed.len()).into());
            }
        }
    }
    env.client().admin().delete_table(table.name()).await?;
    Ok(())
}
