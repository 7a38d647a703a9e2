//! Concurrent single-row gets: coalesced into `getMultiple` calls when the client's
//! gate is full, each get keeping its own answer and its own error.

use basalt::{Error, Get, Put};

use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        client_gets_coalesced_each_get_its_own_row,
        client_gets_coalesced_errors_stay_per_get,
        client_gets_cancelled_while_coalesced_leave_the_gate_working,
    ]
}

/// A client whose gate lets one get out at a time, so concurrent gets wait and are
/// coalesced.
fn gated_client(env: &Env) -> basalt::Client {
    env.client_builder().pool_size(4).gets_in_flight(1).build().expect("valid client settings")
}

async fn client_gets_coalesced_each_get_its_own_row(env: Env) -> TestResult {
    let table = env.fresh_table(&["d", "e"], &[b"k100"]).await?;
    table
        .put_many((0..200).map(|i| {
            let key = format!("k{i:03}");
            Put::new(key.clone()).cell("d", "v", format!("d-{key}")).cell("e", "v", format!("e-{key}"))
        }))
        .await?;
    let client = gated_client(&env);
    let gated = client.table(table.name())?;
    let mut tasks = Vec::new();
    for t in 0..32usize {
        let gated = gated.clone();
        tasks.push(tokio::spawn(async move {
            for round in 0..20usize {
                let i = (t * 37 + round * 11) % 260;
                let key = format!("k{i:03}");
                // Gets of the same table with different options share calls.
                let (get, family) = match (t + round) % 3 {
                    0 => (Get::new(key.clone()), None),
                    1 => (Get::new(key.clone()).family("d"), Some("d")),
                    _ => (Get::new(key.clone()).column("e", "v"), Some("e")),
                };
                let row = gated.get(get).await?;
                if i >= 200 {
                    assert!(row.is_empty(), "{key} was never written: {row:?}");
                    continue;
                }
                let want = |f: &str| Some(format!("{f}-{key}").into_bytes());
                let got = |f: &str| row.value(f.as_bytes(), b"v").map(|v| v.to_vec());
                match family {
                    None => assert_eq!((got("d"), got("e")), (want("d"), want("e")), "{key}"),
                    Some("d") => assert_eq!((got("d"), got("e")), (want("d"), None), "{key}"),
                    Some(_) => assert_eq!((got("d"), got("e")), (None, want("e")), "{key}"),
                }
            }
            Ok::<(), Error>(())
        }));
    }
    for task in tasks {
        task.await??;
    }
    let stats = client.pool_stats();
    assert!(stats.coalesced_calls > 0 && stats.coalesced_gets >= 2 * stats.coalesced_calls, "{stats:?}");
    assert!(stats.opened <= 4, "{stats:?}");
    client.admin().delete_table(table.name()).await?;
    Ok(())
}

async fn client_gets_coalesced_errors_stay_per_get(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    table.put_many((0..50).map(|i| Put::new(format!("r{i:02}")).cell("d", "v", format!("v{i}")))).await?;
    let client = gated_client(&env);
    let gated = client.table(table.name())?;
    let missing = client.table(&env.unique("never_created"))?;
    let mut tasks = Vec::new();
    for t in 0..24usize {
        let (gated, missing) = (gated.clone(), missing.clone());
        tasks.push(tokio::spawn(async move {
            for round in 0..10usize {
                let i = (t * 7 + round) % 50;
                let key = format!("r{i:02}");
                match (t + round) % 4 {
                    // A family the table does not have fails the whole getMultiple on
                    // the server: only this get may fail.
                    0 => match gated.get(Get::new(key.clone()).family("zz")).await {
                        Err(Error::NoSuchColumnFamily { .. }) => {}
                        other => panic!("{key} with family zz: expected NoSuchColumnFamily, got {other:?}"),
                    },
                    1 => match missing.get(Get::new(key.clone())).await {
                        Err(Error::TableNotFound { .. }) => {}
                        other => panic!("{key} of a missing table: expected TableNotFound, got {other:?}"),
                    },
                    _ => {
                        let row = gated.get(Get::new(key.clone())).await?;
                        assert_eq!(row.value(b"d", b"v").map(|v| v.to_vec()), Some(format!("v{i}").into_bytes()));
                    }
                }
            }
            Ok::<(), Error>(())
        }));
    }
    for task in tasks {
        task.await??;
    }
    // A shared call with a failing get in it is answered get by get, so whether the
    // mixed burst above shared any call depends on timing. A burst of good gets only
    // must share calls.
    let mut tasks = Vec::new();
    for t in 0..24usize {
        let gated = gated.clone();
        tasks.push(tokio::spawn(async move {
            for round in 0..5usize {
                let i = (t * 7 + round) % 50;
                let row = gated.get(Get::new(format!("r{i:02}"))).await?;
                assert_eq!(row.value(b"d", b"v").map(|v| v.to_vec()), Some(format!("v{i}").into_bytes()));
            }
            Ok::<(), Error>(())
        }));
    }
    for task in tasks {
        task.await??;
    }
    let stats = client.pool_stats();
    assert!(stats.coalesced_calls > 0, "good gets were coalesced: {stats:?}");
    client.admin().delete_table(table.name()).await?;
    Ok(())
}

async fn client_gets_cancelled_while_coalesced_leave_the_gate_working(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    table.put_many((0..100).map(|i| Put::new(format!("r{i:02}")).cell("d", "v", format!("v{i}")))).await?;
    let client = env
        .client_builder()
        .pool_size(2)
        .gets_in_flight(1)
        // A gate slot lost by a cancelled get would make every later get wait this long.
        .request_timeout(std::time::Duration::from_secs(5))
        .build()?;
    let gated = client.table(table.name())?;
    let burst = |seed: usize, cancel: bool| {
        let gated = gated.clone();
        async move {
            let mut tasks = Vec::new();
            for t in 0..32usize {
                let gated = gated.clone();
                tasks.push(tokio::spawn(async move {
                    let (mut answered, mut cancelled) = (0, 0);
                    for round in 0..10usize {
                        let i = (seed + t * 13 + round * 7) % 100;
                        let get = gated.get(Get::new(format!("r{i:02}")));
                        // Some gets are dropped while waiting, leading or in flight.
                        let limit = std::time::Duration::from_micros(((t * 31 + round * 17) % 7 * 500) as u64);
                        let row = if cancel && (t + round) % 2 == 0 {
                            match tokio::time::timeout(limit, get).await {
                                Ok(row) => row?,
                                Err(_) => {
                                    cancelled += 1;
                                    continue;
                                }
                            }
                        } else {
                            get.await?
                        };
                        assert_eq!(row.value(b"d", b"v").map(|v| v.to_vec()), Some(format!("v{i}").into_bytes()));
                        answered += 1;
                    }
                    Ok::<(usize, usize), Error>((answered, cancelled))
                }));
            }
            let (mut answered, mut cancelled) = (0, 0);
            for task in tasks {
                let (a, c) = task.await.expect("task")?;
                answered += a;
                cancelled += c;
            }
            Ok::<(usize, usize), Error>((answered, cancelled))
        }
    };
    let (answered, cancelled) = burst(0, true).await?;
    eprintln!("cancelled gets: {cancelled} cancelled, {answered} answered");
    let before = client.pool_stats();
    // Every slot came back: a second burst is coalesced again, every get answered.
    let (answered, _) = burst(3, false).await?;
    assert_eq!(answered, 320);
    let after = client.pool_stats();
    assert!(after.coalesced_calls > before.coalesced_calls, "{before:?} -> {after:?}");
    client.admin().delete_table(table.name()).await?;
    Ok(())
}
