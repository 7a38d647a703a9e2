//! Increments and appends applied once over native RPC, however often the connection to
//! the region servers flaps: a proxy in front of each region server is up for a while,
//! then refuses connections and cuts every open one for longer than a request timeout,
//! over and over, while a stream of increments and appends (each on its own cell) runs
//! through it.
//!
//! A call cut after its request reached the server may have been applied; its retries
//! then fail to connect until the proxy is back. Every retry, at every layer, must carry
//! the operation's one nonce so the server recognises it: 0 applied twice, every
//! acknowledged one applied, and a call that gave up says its outcome is unknown.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use basalt::{Append, Bytes, Error, Get, Increment};
use futures::StreamExt;

use crate::support::faults::{flap, native_client_through, region_server_proxies, Reported, FLAP_DOWN, FLAP_UP};
use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![increments_and_appends_apply_once_behind_a_flapping_connection]
}

/// Most calls in the stream (half increments, half appends); it ends earlier once it
/// has run for [`RUN`].
const CALLS: usize = 50_000;
/// How long the stream runs: four of the proxies' cycles.
const RUN: Duration = Duration::from_secs(24);
/// Calls in flight at once.
const IN_FLIGHT: usize = 32;

async fn increments_and_appends_apply_once_behind_a_flapping_connection(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[b"c3", b"c6"]).await?;
    let name = table.name().to_owned();
    let proxies = region_server_proxies(&env, 181).await?;
    let client = native_client_through(&env, &proxies)?;
    let through = client.table(&name)?;
    through.get(Get::new(Bytes::from_static(b"\x00warm-up"))).await?;

    let row = |i: usize| Bytes::from(format!("c{}_{i:05}", i % 9));
    let flapping = AtomicBool::new(true);
    let flap = flap(&proxies, FLAP_UP, FLAP_DOWN, &flapping);
    let started = Instant::now();
    let through = &through;
    let stream = async {
        let reported: Vec<(usize, Reported)> = futures::stream::iter(0..CALLS)
            .take_while(|_| std::future::ready(started.elapsed() < RUN))
            .map(|i| async move {
                let outcome = if i % 2 == 0 {
                    through.increment(Increment::new(row(i)).add("d", "n", 1)).await.map(|_| ())
                } else {
                    through.append(Append::new(row(i)).add("d", "s", "x")).await.map(|_| ())
                };
                let reported = match outcome {
                    Ok(()) => Reported::Ok,
                    Err(Error::WriteOutcomeUnknown { .. }) => Reported::Unknown,
                    Err(_) => Reported::Failed,
                };
                (i, reported)
            })
            .buffer_unordered(IN_FLIGHT)
            .collect()
            .await;
        flapping.store(false, Ordering::Relaxed);
        (reported, started.elapsed())
    };
    let (cycles, (reported, took)) = tokio::join!(flap, stream);
    let killed: u64 = proxies.iter().map(|(_, p)| p.stats().killed).sum();

    // Read every cell back without the proxies.
    let direct = env.client().table(&name)?;
    let calls = reported.len();
    let mut rows = Vec::with_capacity(calls);
    for chunk in (0..calls).collect::<Vec<_>>().chunks(500) {
        rows.extend(direct.get_many(chunk.iter().map(|&i| Get::new(row(i)))).await?);
    }
    let (mut acknowledged, mut unknown, mut failed) = (0, 0, 0);
    let (mut applied, mut twice, mut lost, mut unknown_applied) = (0, 0, 0, 0);
    for (i, reported) in reported {
        let times = if i % 2 == 0 {
            rows[i].counter(b"d", b"n").unwrap_or(0)
        } else {
            rows[i].value(b"d", b"s").map_or(0, |v| v.len() as i64)
        };
        applied += usize::from(times >= 1);
        twice += usize::from(times >= 2);
        match reported {
            Reported::Ok => {
                acknowledged += 1;
                lost += usize::from(times == 0);
            }
            Reported::Unknown => {
                unknown += 1;
                unknown_applied += usize::from(times == 1);
            }
            Reported::Failed => failed += 1,
        }
    }
    eprintln!(
        "nonce figures: {calls} increments and appends in {:.1} s behind proxies flapping {cycles} times ({killed} \
         connections cut): acknowledged {acknowledged}, applied {applied}, applied twice {twice}, acknowledged but \
         lost {lost}, reported unknown {unknown} ({unknown_applied} of them applied), failed {failed}",
        took.as_secs_f64()
    );
    drop(proxies);
    env.client().admin().delete_table(&name).await?;
    if killed == 0 || cycles == 0 {
        return Err("the connection never flapped under the stream: the test proved little".into());
    }
    if twice > 0 || lost > 0 {
        return Err(format!("{twice} calls applied twice, {lost} acknowledged calls not applied").into());
    }
    if acknowledged == 0 {
        return Err("no call was acknowledged".into());
    }
    Ok(())
}
