//! The native transport in a hostile world: `basalt_chaos::Proxy` between the client and
//! each region server, reached through the client's native address map (the servers'
//! advertised addresses, from the registry and `hbase:meta`, routed to the proxies).
//!
//! - Connections cut mid-scan and mid-batch-write, stalled (nothing more forwarded,
//!   sockets open), replies dropped, one reply frame garbled or shortened: merged
//!   salted scans and plain scans forward and reversed, `put_many` and `get_many`.
//! - Stalled calls hit their deadline and dropped calls leave no pending entry; garbled
//!   and shortened replies are typed errors that fail the connection, and the next
//!   connection works (`basalt-rpc`'s own connections through the proxy).
//! - Both proxies refusing and cutting every connection for a while, then restored,
//!   under a paced merged scan and batched writes.
//!
//! Every run is compared with the ground truth: 0 lost, 0 duplicated, no foreign row,
//! order kept, every acknowledged write readable (read back without the proxies).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt::{Bytes, Get};
use basalt_chaos::Faults;
use basalt_rowkey::Query;
use basalt_rpc::{pb, Connection, ConnectionOptions, RpcError, Service};

use crate::gateway::chaos::{acknowledged, salted_fixture, stamped_put, unreadable, user_schema};
use crate::support::faults::{native_client_through, region_server_proxies, through_faults, ProxyTarget, WITHIN_BYTES};
use crate::support::tally::{read_salted, Pace, Tally};
use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        cuts_mid_scan_and_mid_batch_write,
        stalled_connections_hit_the_deadline,
        dropped_replies_hit_the_deadline,
        garbled_reply_frames_fail_the_connection_and_retry,
        shortened_reply_frames_fail_the_connection_and_retry,
        blackholed_and_broken_replies_at_the_connection,
        proxies_cut_and_restored_mid_scan_and_mid_write,
    ]
}

async fn cuts_mid_scan_and_mid_batch_write(env: Env) -> TestResult {
    through_faults(&env, ProxyTarget::RegionServers, Faults::cut(1.0, WITHIN_BYTES), 171, "connections cut", |s| s.cuts)
        .await
}

async fn stalled_connections_hit_the_deadline(env: Env) -> TestResult {
    let faults = Faults { stall: 1.0, within_bytes: WITHIN_BYTES * 3, ..Faults::none() };
    through_faults(&env, ProxyTarget::RegionServers, faults, 172, "stalled connections", |s| s.stalls).await
}

async fn dropped_replies_hit_the_deadline(env: Env) -> TestResult {
    let faults = Faults { drop_replies: 1.0, within_bytes: WITHIN_BYTES * 3, ..Faults::none() };
    through_faults(&env, ProxyTarget::RegionServers, faults, 173, "dropped replies", |s| s.dropped).await
}

async fn garbled_reply_frames_fail_the_connection_and_retry(env: Env) -> TestResult {
    let faults = Faults { garble: 1.0, within_bytes: WITHIN_BYTES, ..Faults::none() };
    through_faults(&env, ProxyTarget::RegionServers, faults, 174, "garbled reply frames", |s| s.garbled).await
}

async fn shortened_reply_frames_fail_the_connection_and_retry(env: Env) -> TestResult {
    let faults = Faults { shorten: 1.0, within_bytes: WITHIN_BYTES, ..Faults::none() };
    through_faults(&env, ProxyTarget::RegionServers, faults, 175, "shortened reply frames", |s| s.shortened).await
}

/// `basalt-rpc`'s own connection through a proxy in front of a region server: a
/// blackholed connection's call ends at its deadline and a dropped call leaves no
/// pending entry; a garbled or shortened reply is a typed error that fails the
/// connection (never a panic, never another call's answer); a new connection works.
async fn blackholed_and_broken_replies_at_the_connection(env: Env) -> TestResult {
    let proxies = region_server_proxies(&env, 176).await?;
    let (server, proxy) = proxies.first().ok_or("no region server")?;
    let options = ConnectionOptions::default();
    let ask = pb::GetClusterIdRequest {};
    // The answer straight from the server, to compare with the answers through the proxy.
    let direct = Connection::connect(server, Service::ClientMeta, &options).await?;
    let truth = direct.call("GetClusterId", &ask, None, Duration::from_secs(10)).await?.param;
    if truth.is_empty() {
        return Err("the server's GetClusterId answer is empty".into());
    }

    // A blackhole from the first byte: connecting works (the proxy accepts), nothing
    // is forwarded either way.
    proxy.set_faults(Faults { stall: 1.0, within_bytes: 1, ..Faults::none() });
    let conn = Connection::connect(&proxy.addr(), Service::ClientMeta, &options).await?;
    let started = Instant::now();
    let late = conn.call("GetClusterId", &ask, None, Duration::from_millis(700)).await;
    let waited = started.elapsed();
    if !matches!(late, Err(RpcError::Timeout { .. })) {
        return Err(format!("a blackholed call ended with {late:?}, not its deadline").into());
    }
    if waited < Duration::from_millis(700) || waited > Duration::from_secs(5) {
        return Err(format!("the 700 ms deadline fired after {waited:?}").into());
    }
    let dropped = tokio::time::timeout(
        Duration::from_millis(200),
        conn.call("GetClusterId", &ask, None, Duration::from_secs(60)),
    )
    .await;
    if dropped.is_ok() || conn.pending_calls() != 0 {
        return Err(format!("a dropped call left {} pending entries ({dropped:?})", conn.pending_calls()).into());
    }
    drop(conn);

    // A garbled, then a shortened reply frame: the call fails with a typed error and
    // the connection is marked failed.
    let mut typed = Vec::new();
    for faults in [
        Faults { garble: 1.0, within_bytes: 1, ..Faults::none() },
        Faults { shorten: 1.0, within_bytes: 1, ..Faults::none() },
    ] {
        proxy.set_faults(faults);
        let conn = Connection::connect(&proxy.addr(), Service::ClientMeta, &options).await?;
        let broken = conn.call("GetClusterId", &ask, None, Duration::from_secs(10)).await;
        match &broken {
            Err(RpcError::ConnectionFailed { reason, .. }) if conn.is_broken() => typed.push(reason.clone()),
            Err(RpcError::Protocol { reason, .. }) => typed.push(reason.clone()),
            other => return Err(format!("a mangled reply gave {other:?}, not a typed failure").into()),
        }
        if conn.pending_calls() != 0 {
            return Err("a failed connection kept pending calls".into());
        }
    }
    let stats = proxy.stats();
    if (stats.garbled, stats.shortened) != (1, 1) {
        return Err(format!(
            "the proxy garbled {} and shortened {} frames, not 1 and 1",
            stats.garbled, stats.shortened
        )
        .into());
    }

    // Faults off: a new connection answers.
    proxy.set_faults(Faults::none());
    let conn = Connection::connect(&proxy.addr(), Service::ClientMeta, &options).await?;
    let again = conn.call("GetClusterId", &ask, None, Duration::from_secs(10)).await?.param;
    if again != truth {
        return Err("after the faults, the proxy's answer differs from the server's".into());
    }
    eprintln!(
        "chaos figures: native connection through a blackhole: deadline 700 ms fired after {} ms, dropped call left 0 \
         entries; mangled replies: {typed:?}; then the same answer as the server's",
        waited.as_millis()
    );
    Ok(())
}

/// Both proxies refuse new connections and cut every open one for a while, mid-scan
/// and mid-write, then come back: the paced merged scan and the writer ride it out
/// within the retry budget.
async fn proxies_cut_and_restored_mid_scan_and_mid_write(env: Env) -> TestResult {
    let (name, expected) = salted_fixture(&env, 8000, 177).await?;
    let writes = env.fresh_table(&["d"], &[b"w3", b"w6"]).await?;
    let proxies = region_server_proxies(&env, 177).await?;
    let client = native_client_through(&env, &proxies)?;
    client.table(&name)?.get(Get::new(Bytes::from_static(b"\x00warm-up"))).await?;

    let salted = client.table(&name)?.salted(user_schema());
    let scan = tokio::spawn(async move { read_salted(&salted, Query::new(), 100, Pace::STEADY).await });
    let stop = Arc::new(AtomicBool::new(false));
    let writer_table = client.table(writes.name())?.with_batch_rows(100);
    let stop_writer = stop.clone();
    let writer = tokio::spawn(async move {
        let (mut acked, mut failures) = (Vec::new(), Vec::new());
        for batch_no in 0..200u32 {
            if stop_writer.load(Ordering::Relaxed) {
                break;
            }
            let batch: Vec<Bytes> = (0..200).map(|i| Bytes::from(format!("w{}_{batch_no:03}_{i:03}", i % 9))).collect();
            let result = writer_table.put_many(batch.iter().map(stamped_put)).await;
            acked.extend(acknowledged(&batch, &result, &mut failures));
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        (acked, failures)
    });

    // Down for 6 s (refused and cut), up for 3 s, down again for 6 s, restored.
    let mut outages = 0;
    for _ in 0..2 {
        tokio::time::sleep(Duration::from_secs(3)).await;
        for (_, proxy) in &proxies {
            proxy.refuse_connections(true);
            proxy.kill_all();
        }
        outages += 1;
        tokio::time::sleep(Duration::from_secs(6)).await;
        for (_, proxy) in &proxies {
            proxy.refuse_connections(false);
        }
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    stop.store(true, Ordering::Relaxed);
    let scan = tokio::time::timeout(Duration::from_secs(300), scan).await.map_err(|_| "the merged scan hung")??;
    let (acked, failures) =
        tokio::time::timeout(Duration::from_secs(120), writer).await.map_err(|_| "the writer hung")??;
    let mut tally = Tally::default();
    tally.add(&expected, &scan);
    let missing = unreadable(&env.client().table(writes.name())?, &acked).await?;
    let killed: u64 = proxies.iter().map(|(_, p)| p.stats().killed).sum();
    eprintln!(
        "chaos figures: native proxies cut and restored {outages} times ({killed} connections cut): {}; writes \
         acknowledged {}, unreadable {missing}, failed batches {}",
        tally.report("paced merged scan"),
        acked.len(),
        failures.len()
    );
    drop(proxies);
    let admin = env.client().admin();
    admin.delete_table(&name).await?;
    admin.delete_table(writes.name()).await?;
    tally.check("native merged scan while the proxies are cut and restored")?;
    if killed == 0 {
        return Err("no connection was open when the proxies were cut: the test proved little".into());
    }
    if missing > 0 || !failures.is_empty() || acked.is_empty() {
        return Err(format!(
            "{missing} acknowledged writes unreadable, {} of {} batches failed: {:?}",
            failures.len(),
            acked.len() / 200 + failures.len(),
            failures.first()
        )
        .into());
    }
    Ok(())
}
