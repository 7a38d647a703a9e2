//! Deletes of a column's newest version applied at most once, however often the
//! connection flaps: a proxy in front of each region server (native RPC) or in front of
//! the Thrift2 gateway is up for a while, then refuses connections and cuts every open one for longer than a
//! request timeout, over and over, while a stream of `delete(latest_version)` calls and
//! `delete_many` batches of them runs through it, each on its own row of three versions.
//!
//! Such a delete is not idempotent: applied twice, it removes two versions. A call cut
//! after its request reached the server may have been applied; it must not be sent
//! again, and its caller must hear that its outcome is unknown. Counted per row from the
//! versions left: 0 applied twice, every acknowledged one applied, none reported failed
//! (not in doubt) applied.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use basalt::{Bytes, Delete, Error, Get, Put, Table};
use futures::StreamExt;

use basalt::Client;
use basalt_chaos::{Faults, Proxy};

use crate::support::faults::{
    flap, gateway_client_through, native_client_through, region_server_proxies, Reported, FLAP_DOWN, FLAP_UP,
};
use crate::support::{Env, Test, TestResult};
use crate::tests;

/// One run per transport, each behind that transport's own flapping proxy.
pub fn trials() -> Vec<Test> {
    tests![
        #[native_only("flapping proxies in front of the region servers")]
        deletes_of_the_newest_version_apply_once_behind_flapping_region_servers,
        #[gateway_only("a flapping proxy in front of the gateway")]
        deletes_of_the_newest_version_apply_once_behind_a_flapping_gateway,
    ]
}

/// Rows, each with [`VERSIONS`] versions of `d:q`; the first half take single deletes,
/// the second half `delete_many` batches of [`BATCH`].
const ROWS: usize = 40_000;
/// Versions written per row (timestamps 1 to 3).
const VERSIONS: usize = 3;
/// Deletes per `delete_many` call (one chunk: one `Multi` per region server).
const BATCH: usize = 20;
/// How long the stream runs: four of the proxies' cycles.
const RUN: Duration = Duration::from_secs(24);
/// Single deletes in flight at once (and a quarter as many batches).
const IN_FLIGHT: usize = 32;

fn row(i: usize) -> Bytes {
    Bytes::from(format!("c{}_{i:05}", i % 9))
}

fn delete_latest(i: usize) -> Delete {
    Delete::row(row(i)).latest_version("d", "q")
}

/// What each row of a `delete_many` call heard: `Ok`, or per row from
/// [`Error::BatchFailed`] (the first `in_doubt` rows not confirmed are unknown, the
/// rest failed); any other error fails every row.
fn batch_reports(rows: &[usize], result: &basalt::Result<usize>) -> Vec<(usize, Reported)> {
    match result {
        Ok(_) => rows.iter().map(|&i| (i, Reported::Ok)).collect(),
        Err(Error::BatchFailed { not_confirmed, in_doubt, .. }) => rows
            .iter()
            .map(|&i| {
                let key = row(i);
                let reported = match not_confirmed.iter().position(|k| *k == key) {
                    None => Reported::Ok,
                    Some(at) if at < *in_doubt => Reported::Unknown,
                    Some(_) => Reported::Failed,
                };
                (i, reported)
            })
            .collect(),
        Err(_) => rows.iter().map(|&i| (i, Reported::Failed)).collect(),
    }
}

fn single_report(result: &basalt::Result<()>) -> Reported {
    match result {
        Ok(()) => Reported::Ok,
        Err(Error::WriteOutcomeUnknown { .. }) => Reported::Unknown,
        Err(_) => Reported::Failed,
    }
}

/// The counts of one kind of call.
#[derive(Debug, Default)]
struct Counts {
    calls: usize,
    acknowledged: usize,
    unknown: usize,
    unknown_applied: usize,
    failed: usize,
    failed_applied: usize,
    applied: usize,
    twice: usize,
    lost: usize,
}

impl Counts {
    fn add(&mut self, reported: Reported, applied: usize) {
        self.calls += 1;
        self.applied += usize::from(applied >= 1);
        self.twice += usize::from(applied >= 2);
        match reported {
            Reported::Ok => {
                self.acknowledged += 1;
                self.lost += usize::from(applied == 0);
            }
            Reported::Unknown => {
                self.unknown += 1;
                self.unknown_applied += usize::from(applied == 1);
            }
            Reported::Failed => {
                self.failed += 1;
                self.failed_applied += usize::from(applied >= 1);
            }
        }
    }

    fn line(&self, what: &str) -> String {
        format!(
            "{what}: {} rows, acknowledged {}, applied {}, applied twice {}, acknowledged but lost {}, reported \
             unknown {} ({} of them applied), reported failed {} ({} of them applied)",
            self.calls,
            self.acknowledged,
            self.applied,
            self.twice,
            self.lost,
            self.unknown,
            self.unknown_applied,
            self.failed,
            self.failed_applied
        )
    }

    fn wrong(&self) -> bool {
        self.twice > 0 || self.lost > 0 || self.failed_applied > 0
    }
}

/// Writes [`VERSIONS`] versions of `d:q` in every row, directly.
async fn write_versions(table: &Table) -> TestResult {
    let rows: Vec<usize> = (0..ROWS).collect();
    for chunk in rows.chunks(1000) {
        table
            .put_many(chunk.iter().map(|&i| {
                (1..=VERSIONS as i64).fold(Put::new(row(i)), |put, ts| put.cell_at("d", "q", format!("v{ts}"), ts))
            }))
            .await?;
    }
    Ok(())
}

async fn deletes_of_the_newest_version_apply_once_behind_flapping_region_servers(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[b"c3", b"c6"]).await?;
    write_versions(&table).await?;
    let proxies = region_server_proxies(&env, 281).await?;
    let client = native_client_through(&env, &proxies)?;
    deletes_through(&env, table.name(), proxies, client, "native").await
}

async fn deletes_of_the_newest_version_apply_once_behind_a_flapping_gateway(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[b"c3", b"c6"]).await?;
    write_versions(&table).await?;
    let proxy = Proxy::start(vec![env.addr().to_owned()], Faults::none(), 283).await?;
    let client = gateway_client_through(&env, &proxy)?;
    deletes_through(&env, table.name(), vec![(env.addr().to_owned(), proxy)], client, "gateway").await
}

/// Runs the stream of deletes on table `name` through `client`, which reaches HBase
/// through `proxies` (flapped meanwhile), and counts what each row's versions say.
async fn deletes_through(
    env: &Env,
    name: &str,
    proxies: Vec<(String, Proxy)>,
    client: Client,
    transport: &str,
) -> TestResult {
    let name = name.to_owned();
    let through = client.table(&name)?.with_batch_rows(BATCH);
    through.get(Get::new(Bytes::from_static(b"\x00warm-up"))).await?;

    let flapping = AtomicBool::new(true);
    let flap = flap(&proxies, FLAP_UP, FLAP_DOWN, &flapping);
    let started = Instant::now();
    let through = &through;
    let running = || std::future::ready(started.elapsed() < RUN);
    let singles = futures::stream::iter(0..ROWS / 2)
        .take_while(move |_| running())
        .map(|i| async move { (i, single_report(&through.delete(delete_latest(i)).await)) })
        .buffer_unordered(IN_FLIGHT)
        .collect::<Vec<_>>();
    let batches: Vec<Vec<usize>> = (ROWS / 2..ROWS).collect::<Vec<_>>().chunks(BATCH).map(<[usize]>::to_vec).collect();
    let batches = futures::stream::iter(batches)
        .take_while(move |_| running())
        .map(|rows| async move {
            let result = through.delete_many(rows.iter().map(|&i| delete_latest(i))).await;
            batch_reports(&rows, &result)
        })
        .buffer_unordered(IN_FLIGHT / 4)
        .collect::<Vec<_>>();
    let stream = async {
        let both = futures::future::join(singles, batches).await;
        flapping.store(false, Ordering::Relaxed);
        (both, started.elapsed())
    };
    let (cycles, ((single, batched), took)) = tokio::join!(flap, stream);
    let killed: u64 = proxies.iter().map(|(_, p)| p.stats().killed).sum();

    // Count each row's versions left, without the proxies.
    let direct = env.client().table(&name)?;
    let mut left = vec![VERSIONS; ROWS];
    let all: Vec<usize> = (0..ROWS).collect();
    for chunk in all.chunks(500) {
        let rows = direct.get_many(chunk.iter().map(|&i| Get::new(row(i)).max_versions(VERSIONS as u32 + 2))).await?;
        for (&i, found) in chunk.iter().zip(&rows) {
            left[i] = found.versions(b"d", b"q").len();
        }
    }
    let applied = |i: usize| VERSIONS.saturating_sub(left[i]);
    let (mut singles, mut batches) = (Counts::default(), Counts::default());
    for (i, reported) in single {
        singles.add(reported, applied(i));
    }
    for (i, reported) in batched.into_iter().flatten() {
        batches.add(reported, applied(i));
    }
    // A row no call reached keeps every version.
    let touched_by_nobody: usize =
        (0..ROWS).filter(|&i| left[i] != VERSIONS).count() - (singles.applied + batches.applied);
    let single_line = singles.line("single delete(latest_version)");
    let batch_line = batches.line(&format!("delete_many of {BATCH} latest-version deletes"));
    eprintln!(
        "delete figures ({transport}): in {:.1} s behind proxies flapping {cycles} times ({killed} connections cut): \
         {single_line}; {batch_line}; rows changed by no call {touched_by_nobody}",
        took.as_secs_f64()
    );
    drop(proxies);
    env.client().admin().delete_table(&name).await?;
    if killed == 0 || cycles == 0 {
        return Err("the connection never flapped under the stream: the test proved little".into());
    }
    let mut wrong = Vec::new();
    for (counts, line) in [(&singles, &single_line), (&batches, &batch_line)] {
        if counts.wrong() {
            wrong.push(line.clone());
        }
        if counts.acknowledged == 0 {
            wrong.push(format!("no call acknowledged: {line}"));
        }
    }
    if touched_by_nobody > 0 {
        wrong.push(format!("{touched_by_nobody} rows changed by no call"));
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("\n").into())
    }
}
