//! The `basalt` client's data API against the real server.

use basalt::{Append, Bytes, CompareOp, Delete, Error, Get, Increment, InvalidInput, Put, RowMutations};

use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        put_get_versions_and_time_ranges,
        get_many_and_exists,
        put_many_chunks_and_reports,
        put_many_in_flight_reports_exact_counts,
        put_many_keeps_the_last_write_of_a_row,
        deletes_say_which_versions,
        check_and_mutate_family,
        increments_and_appends,
        binary_keys_empty_qualifier_large_value,
        bad_input_is_rejected_before_sending,
        typed_server_errors,
        #[gateway_only("the gateway's idle timeout and the gateway pool")]
        dead_pooled_connection_is_replaced,
        concurrent_tasks_share_one_client,
    ]
}

async fn put_get_versions_and_time_ranges(env: Env) -> TestResult {
    let table = env.fresh_table(&["d", "m"], &[]).await?;
    for (ts, v) in [(100, "v1"), (200, "v2"), (300, "v3")] {
        table.put(Put::new("r1").cell_at("d", "q", v, ts)).await?;
    }
    table.put(Put::new("r1").cell("m", "x", "other")).await?;
    let newest = table.get(Get::new("r1")).await?;
    assert_eq!(newest.value(b"d", b"q"), Some(&b"v3"[..]));
    assert_eq!(newest.len(), 2, "newest version of each column only");

    let all = table.get(Get::new("r1").column("d", "q").max_versions(10)).await?;
    let values: Vec<&[u8]> = all.versions(b"d", b"q").iter().map(|c| c.value()).collect();
    assert_eq!(values, vec![&b"v3"[..], b"v2", b"v1"]);

    let at = table.get(Get::new("r1").column("d", "q").timestamp(200)).await?;
    assert_eq!(at.value(b"d", b"q"), Some(&b"v2"[..]));
    let range = table.get(Get::new("r1").family("d").time_range(100, 300).max_versions(10)).await?;
    assert_eq!(range.versions(b"d", b"q").len(), 2, "[100, 300) holds v1 and v2");

    let family_only = table.get(Get::new("r1").family("m")).await?;
    assert_eq!(family_only.len(), 1);
    let missing = table.get(Get::new("nope")).await?;
    assert!(missing.is_empty());
    assert_eq!(missing.key(), b"nope");
    env.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn get_many_and_exists(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?.with_batch_rows(7);
    let puts: Vec<Put> = (0..50).map(|i| Put::new(format!("k{i:03}")).cell("d", "n", i.to_string())).collect();
    table.put_many(puts).await?;
    // 60 gets in chunks of 7, some missing, order kept.
    let gets: Vec<Get> = (0..60).rev().map(|i| Get::new(format!("k{i:03}"))).collect();
    let rows = table.get_many(gets).await?;
    assert_eq!(rows.len(), 60);
    for (row, i) in rows.iter().zip((0..60).rev()) {
        assert_eq!(row.key(), format!("k{i:03}").as_bytes());
        assert_eq!(row.is_empty(), i >= 50, "row {i}");
    }
    assert!(table.exists(Get::new("k001")).await?);
    assert!(!table.exists(Get::new("k999")).await?);
    let answers = table.exists_many((45..55).map(|i| Get::new(format!("k{i:03}")))).await?;
    assert_eq!(answers, (45..55).map(|i| i < 50).collect::<Vec<_>>());
    env.client().admin().delete_table(table.name()).await?;
    Ok(())
}

/// Chunks one after another (`with_write_concurrency(1)`): the rows after the failing
/// chunk are never sent.
async fn put_many_chunks_and_reports(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?.with_batch_rows(100).with_write_concurrency(1);
    let written = table.put_many((0..1000).map(|i| Put::new(format!("r{i:05}")).cell("d", "v", "x"))).await?;
    assert_eq!(written, 1000);
    // A chunk naming a family the table lacks fails; the error says what was written.
    let mut puts: Vec<Put> = (0..250).map(|i| Put::new(format!("s{i:05}")).cell("d", "v", "x")).collect();
    puts[150] = Put::new("s00150").cell("nofamily", "v", "x");
    match table.put_many(puts).await {
        Err(Error::BatchFailed { confirmed, not_confirmed, in_doubt, source }) => {
            assert!(matches!(*source, Error::NoSuchColumnFamily { .. } | Error::Server { .. }), "{source:?}");
            if env.client().capabilities().answers_per_write {
                // Answers per write (native RPC): the failing chunk's other 99 rows
                // were written, the bad one refused, the last chunk never sent.
                assert_eq!((confirmed, in_doubt, not_confirmed.len()), (199, 0, 51));
                assert_eq!(&not_confirmed[0][..], b"s00150");
                assert_eq!(&not_confirmed[1][..], b"s00200");
            } else {
                // One answer for the whole call (the gateway): the failing chunk may
                // have been written.
                assert_eq!((confirmed, in_doubt, not_confirmed.len()), (100, 100, 150));
                assert_eq!(&not_confirmed[0][..], b"s00100");
            }
        }
        other => panic!("expected BatchFailed, got {other:?}"),
    }
    assert!(!table.get(Get::new("s00099")).await?.is_empty(), "a confirmed row is readable");
    assert!(table.get(Get::new("s00200")).await?.is_empty(), "a row never sent is not written");
    env.client().admin().delete_table(table.name()).await?;
    Ok(())
}

/// Chunks in flight side by side: a bad family in a middle chunk stops the sending, the
/// chunks in flight finish, and the error's counts are exact: every confirmed row is
/// readable, every row reported never sent is absent.
async fn put_many_in_flight_reports_exact_counts(env: Env) -> TestResult {
    const ROWS: usize = 3000;
    const CHUNK: usize = 100;
    const BAD: usize = 1550; // in chunk 15 of 30
    let client = env.client();
    let table = env.fresh_table(&["d"], &[]).await?;
    let table = client.table(table.name())?.with_batch_rows(CHUNK).with_write_concurrency(4);
    let key = |i: usize| Bytes::from(format!("w{i:05}"));
    let puts = (0..ROWS).map(|i| match i {
        BAD => Put::new(key(i)).cell("nofamily", "v", "x"),
        _ => Put::new(key(i)).cell("d", "v", i.to_string()),
    });
    let error = table.put_many(puts).await.err().ok_or("a put naming an unknown family succeeded")?;
    // A fresh client, up to four chunks sent at once: several connections, not more.
    let opened = client.pool_stats().opened;
    assert!((2..=4).contains(&opened), "{:?}", client.pool_stats());
    let Error::BatchFailed { confirmed, not_confirmed, in_doubt, source } = error else {
        return Err(format!("expected BatchFailed, got {error:?}").into());
    };
    assert!(matches!(*source, Error::NoSuchColumnFamily { .. } | Error::Server { .. }), "{source:?}");
    // Through the gateway, exactly the failing chunk is in doubt, listed first; native
    // RPC answers per write: only the bad row is refused, the rest of its chunk
    // written, nothing in doubt.
    let (failing, doubtful): (Vec<Bytes>, usize) = if env.client().capabilities().answers_per_write {
        (vec![key(BAD)], 0)
    } else {
        ((15 * CHUNK..16 * CHUNK).map(key).collect(), CHUNK)
    };
    assert_eq!(in_doubt, doubtful);
    assert_eq!(not_confirmed[..failing.len()], failing[..]);
    // Every chunk before the failing one was sent and confirmed; so were the chunks
    // after it that were sent while it was failing (retries included).
    assert_eq!(confirmed + not_confirmed.len(), ROWS);
    assert_eq!((confirmed + failing.len()) % CHUNK, 0);
    assert!(confirmed + failing.len() >= 16 * CHUNK, "{confirmed} confirmed");
    let unconfirmed: std::collections::BTreeSet<&Bytes> = not_confirmed.iter().collect();
    let confirmed_rows: Vec<usize> = (0..ROWS).filter(|&i| !unconfirmed.contains(&key(i))).collect();
    assert_eq!(confirmed_rows.len(), confirmed);
    for part in confirmed_rows.chunks(500) {
        let rows = table.get_many(part.iter().map(|&i| Get::new(key(i)))).await?;
        for (&i, row) in part.iter().zip(&rows) {
            let value = row.value(b"d", b"v").map(|v| v.to_vec());
            assert_eq!(value, Some(i.to_string().into_bytes()), "confirmed row {i}");
        }
    }
    let never_sent = &not_confirmed[failing.len()..];
    let rows = table.get_many(never_sent.iter().map(|k| Get::new(k.clone()))).await?;
    assert!(rows.iter().all(|r| r.is_empty()), "a row reported never sent was written");
    // HBase applied the failing chunk row by row: its good rows were written.
    assert!(table.get(Get::new(key(BAD))).await?.is_empty());
    assert!(!table.get(Get::new(key(BAD - 1))).await?.is_empty());
    client.admin().delete_table(table.name()).await?;
    Ok(())
}

/// A row written in several chunks ends with its last value, chunks in flight or not;
/// `delete_many` in flight removes every row it names.
async fn put_many_keeps_the_last_write_of_a_row(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?.with_batch_rows(50).with_write_concurrency(8);
    // Every fourth put rewrites one of 150 rows (never twice in one chunk of 50).
    let key = |i: usize| match i % 4 {
        0 => format!("dup{:03}", (i / 4 * 7) % 150),
        _ => format!("one{i:05}"),
    };
    let n = 4000;
    let written = table.put_many((0..n).map(|i| Put::new(key(i)).cell("d", "v", i.to_string()))).await?;
    assert_eq!(written, n);
    let mut last = std::collections::BTreeMap::new();
    for i in 0..n {
        last.insert(key(i), i);
    }
    assert_eq!(last.len(), 150 + n * 3 / 4);
    let expected: Vec<(String, usize)> = last.into_iter().collect();
    for part in expected.chunks(500) {
        let rows = table.get_many(part.iter().map(|(k, _)| Get::new(k.clone()))).await?;
        for ((k, i), row) in part.iter().zip(&rows) {
            let value = row.value(b"d", b"v").map(|v| v.to_vec());
            assert_eq!(value, Some(i.to_string().into_bytes()), "row {k}: the last write wins");
        }
    }
    let deletes = expected.iter().map(|(k, _)| Delete::row(k.clone()));
    assert_eq!(table.delete_many(deletes).await?, expected.len());
    for part in expected.chunks(500) {
        let rows = table.get_many(part.iter().map(|(k, _)| Get::new(k.clone()))).await?;
        assert!(rows.iter().all(|r| r.is_empty()), "a deleted row is still there");
    }
    env.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn deletes_say_which_versions(env: Env) -> TestResult {
    let table = env.fresh_table(&["d", "m"], &[]).await?;
    let versions = |row: &'static str| {
        let table = table.clone();
        async move {
            let r = table.get(Get::new(row).column("d", "q").max_versions(10)).await?;
            Ok::<Vec<i64>, Error>(r.versions(b"d", b"q").iter().map(|c| c.timestamp()).collect())
        }
    };
    for row in ["a", "b", "c", "d", "e"] {
        for ts in [10, 20, 30] {
            table.put(Put::new(row).cell_at("d", "q", "v", ts).cell_at("m", "x", "w", ts)).await?;
        }
    }
    table.delete(Delete::row("a").latest_version("d", "q")).await?;
    assert_eq!(versions("a").await?, vec![20, 10], "only the newest version goes");
    table.delete(Delete::row("b").all_versions("d", "q")).await?;
    assert_eq!(versions("b").await?, Vec::<i64>::new());
    table.delete(Delete::row("c").versions_until("d", "q", 20)).await?;
    assert_eq!(versions("c").await?, vec![30]);
    table.delete(Delete::row("d").family("d")).await?;
    let d = table.get(Get::new("d")).await?;
    assert!(d.family(b"d").next().is_none() && d.family(b"m").next().is_some());
    // Mixed intents in one delete are applied together.
    table.delete(Delete::row("e").version_at("d", "q", 20).family("m")).await?;
    assert_eq!(versions("e").await?, vec![30, 10]);
    assert!(table.get(Get::new("e").family("m")).await?.is_empty());
    table.delete(Delete::row("a")).await?;
    assert!(table.get(Get::new("a")).await?.is_empty());
    env.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn check_and_mutate_family(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    let put = || Put::new("r").cell("d", "state", "new");
    assert!(table.check_and_put("d", "state", None, put()).await?, "absent: written");
    assert!(!table.check_and_put("d", "state", None, put()).await?, "present now: not written");
    let next = Put::new("r").cell("d", "state", "paid");
    assert!(!table.check_and_put("d", "state", Some(Bytes::from("old")), next.clone()).await?);
    assert!(table.check_and_put("d", "state", Some(Bytes::from("new")), next).await?);

    let mutation = RowMutations::new("r")
        .put(Put::new("r").cell("d", "state", "shipped"))
        .delete(Delete::row("r").all_versions("d", "tmp"));
    assert!(!table.check_and_mutate("d", "state", CompareOp::Equal, Some(Bytes::from("new")), mutation.clone()).await?);
    assert!(table.check_and_mutate("d", "state", CompareOp::Equal, Some(Bytes::from("paid")), mutation).await?);
    let row = table.get(Get::new("r")).await?;
    assert_eq!(row.value(b"d", b"state"), Some(&b"shipped"[..]));

    assert!(!table.check_and_delete("d", "state", Some(Bytes::from("paid")), Delete::row("r")).await?);
    assert!(table.check_and_delete("d", "state", Some(Bytes::from("shipped")), Delete::row("r")).await?);
    assert!(table.get(Get::new("r")).await?.is_empty());

    table.mutate_row(RowMutations::new("m").put(Put::new("m").cell("d", "a", "1").cell("d", "b", "2"))).await?;
    table.mutate_row(RowMutations::new("m").delete(Delete::row("m").all_versions("d", "a"))).await?;
    let m = table.get(Get::new("m")).await?;
    assert!(m.value(b"d", b"a").is_none() && m.value(b"d", b"b").is_some());
    env.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn increments_and_appends(env: Env) -> TestResult {
    let table = env.fresh_table(&["c"], &[]).await?;
    assert_eq!(table.increment_counter("page", "c", "views", 5).await?, 5);
    assert_eq!(table.increment_counter("page", "c", "views", -2).await?, 3);
    let row = table.increment(Increment::new("page").add("c", "views", 10).add("c", "likes", 1)).await?;
    assert_eq!(row.counter(b"c", b"views"), Some(13));
    assert_eq!(row.counter(b"c", b"likes"), Some(1));
    let appended = table.append(Append::new("log").add("c", "trail", "a")).await?;
    assert_eq!(appended.value(b"c", b"trail"), Some(&b"a"[..]));
    let appended = table.append(Append::new("log").add("c", "trail", "bc")).await?;
    assert_eq!(appended.value(b"c", b"trail"), Some(&b"abc"[..]));
    env.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn binary_keys_empty_qualifier_large_value(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[&[0x80]]).await?;
    // Row keys using every byte value, as single bytes and as 2-byte keys with 0x00/0xFF.
    let mut keys: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
    keys.extend((0..=255u8).map(|b| vec![b, 0x00, 0xFF]));
    table.put_many(keys.iter().map(|k| Put::new(k.clone()).cell("d", "", k.clone()))).await?;
    let rows = table.scan_all(basalt::Scan::new()).await?;
    let mut expected = keys.clone();
    expected.sort();
    let got: Vec<Vec<u8>> = rows.iter().map(|r| r.key().to_vec()).collect();
    assert_eq!(got, expected, "every byte value round-trips, in unsigned byte order");
    for row in &rows {
        assert_eq!(row.value(b"d", b"").map(|v| v.to_vec()), Some(row.key().to_vec()), "empty qualifier");
    }
    // A 1 MB value.
    let big: Vec<u8> = (0..1 << 20).map(|i| (i % 251) as u8).collect();
    table.put(Put::new("big").cell("d", "blob", big.clone())).await?;
    let got = table.get(Get::new("big")).await?;
    assert_eq!(got.value(b"d", b"blob").map(|v| v.len()), Some(big.len()));
    assert_eq!(got.value(b"d", b"blob").map(|v| v[..] == big[..]), Some(true));
    env.client().admin().delete_table(table.name()).await?;
    Ok(())
}

async fn bad_input_is_rejected_before_sending(env: Env) -> TestResult {
    let client = env.client();
    assert!(matches!(client.table("bad name"), Err(Error::InvalidInput(InvalidInput::TableName { .. }))));
    // The table does not exist: if anything were sent, the error would say so.
    let table = client.table("never_created_table")?;
    let cases = [
        table.get(Get::new("")).await.err(),
        table.put(Put::new(vec![7u8; 40_000]).cell("d", "q", "v")).await.err(),
        table.put(Put::new("r").cell("", "q", "v")).await.err(),
        table.put(Put::new("r")).await.err(),
        table.put(Put::new("r").cell("d", "q", vec![0u8; 11 << 20])).await.err(),
        table.get(Get::new("r").max_versions(0)).await.err(),
        table.get(Get::new("r").time_range(5, 1)).await.err(),
    ];
    for (i, case) in cases.into_iter().enumerate() {
        assert!(matches!(case, Some(Error::InvalidInput(_))), "case {i}: {case:?}");
    }
    let stats = client.pool_stats();
    assert_eq!(stats.opened, 0, "nothing was sent, so no connection was opened");
    assert!(basalt::Client::builder().build().is_err(), "no address");
    assert!(basalt::Client::builder().address("nocolon").build().is_err());
    Ok(())
}

async fn typed_server_errors(env: Env) -> TestResult {
    let client = env.client();
    let missing = client.table("never_created_table")?;
    match missing.get(Get::new("r")).await {
        Err(e @ Error::TableNotFound { .. }) => assert!(!e.is_retryable()),
        other => panic!("expected TableNotFound, got {other:?}"),
    }
    let table = env.fresh_table(&["d"], &[]).await?;
    match table.put(Put::new("r").cell("zz", "q", "v")).await {
        Err(e @ Error::NoSuchColumnFamily { .. }) => assert!(!e.is_retryable()),
        other => panic!("expected NoSuchColumnFamily, got {other:?}"),
    }
    match client.admin().delete_namespace("no_such_namespace_x").await {
        Err(Error::NamespaceNotFound { .. }) => {}
        other => panic!("expected NamespaceNotFound, got {other:?}"),
    }
    client.admin().delete_table(table.name()).await?;
    Ok(())
}

async fn dead_pooled_connection_is_replaced(env: Env) -> TestResult {
    // A client that keeps idle connections longer than the server does.
    let client = basalt::Client::builder()
        .address(env.addr())
        .framing(env.options().framing)
        .protocol(env.options().protocol)
        .pool_size(1)
        .max_idle(std::time::Duration::from_secs(600))
        .retry_policy(basalt::NoRetry)
        .build()?;
    assert!(!client.admin().list_namespaces().await?.is_empty());
    tokio::time::sleep(crate::support::IDLE_TIMEOUT + std::time::Duration::from_secs(2)).await;
    // The server closed the idle socket; the pool notices and opens a new one, with
    // no retry policy to hide an error.
    assert!(!client.admin().list_namespaces().await?.is_empty());
    let stats = client.pool_stats();
    assert_eq!(stats.opened, 2, "{stats:?}");
    assert_eq!(stats.replaced_dead, 1, "{stats:?}");
    Ok(())
}

async fn concurrent_tasks_share_one_client(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    let mut tasks = Vec::new();
    for t in 0..16 {
        let table = table.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..25 {
                let key = format!("t{t:02}-{i:02}");
                table.put(Put::new(key.clone()).cell("d", "v", key.clone())).await?;
                let row = table.get(Get::new(key.clone())).await?;
                assert_eq!(row.value(b"d", b"v").map(|v| v.to_vec()), Some(key.into_bytes()));
            }
            Ok::<(), Error>(())
        }));
    }
    for task in tasks {
        task.await??;
    }
    assert_eq!(table.scan_all(basalt::Scan::new()).await?.len(), 400);
    assert!(table.client().pool_stats().opened <= 16);
    table.client().admin().delete_table(table.name()).await?;
    Ok(())
}
