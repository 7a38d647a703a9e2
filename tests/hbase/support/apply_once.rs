//! The apply-once scenario shared by `deletes_once` (deletes of a column's newest
//! version) and `puts_once` (puts on the server's clock): writes that are not
//! idempotent, each on its own row of `d:q`, as single calls and as batches, streamed
//! through proxies (in front of each region server for native RPC, or of the Thrift2
//! gateway) that flap meanwhile: up for a while, then refusing connections and cutting
//! every open one for longer than a request timeout, over and over. Afterwards each
//! row's versions, read without the proxies, say how often its write was applied; that
//! is compared with what its caller heard: 0 applied twice, every acknowledged write
//! applied, none reported failed (not in doubt) applied.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use basalt::{Bytes, Error, Get, Table};
use basalt_chaos::Proxy;
use futures::StreamExt;

use crate::support::faults::{flap, Reported, FLAP_DOWN, FLAP_UP};
use crate::support::TestResult;

/// How long a stream runs: four of the proxies' cycles.
pub(crate) const RUN: Duration = Duration::from_secs(24);
/// Single writes in flight at once (and a quarter as many batches).
pub(crate) const IN_FLIGHT: usize = 32;

/// Row `i` of an apply-once table (split at `c3` and `c6`: three regions).
pub(crate) fn row(i: usize) -> Bytes {
    Bytes::from(format!("c{}_{i:05}", i % 9))
}

/// What each row of a batch call heard: `Ok`, or per row from [`Error::BatchFailed`]
/// (the first `in_doubt` rows not confirmed are unknown, the rest failed); any other
/// error fails every row.
pub(crate) fn batch_reports(rows: &[usize], result: &basalt::Result<usize>) -> Vec<(usize, Reported)> {
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

/// What the caller of a single write heard.
pub(crate) fn single_report(result: &basalt::Result<()>) -> Reported {
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

/// What the callers of a stream heard, per row, and how the proxies flapped.
pub(crate) struct Heard {
    single: Vec<(usize, Reported)>,
    batched: Vec<Vec<(usize, Reported)>>,
    cycles: u32,
    killed: u64,
    took: Duration,
}

/// Streams writes through `proxies`, flapped meanwhile, for [`RUN`]: rows `0..rows / 2`
/// one `single(i)` call each, rows `rows / 2..rows` in `many(rows)` calls of `batch`
/// rows (each answering per row, [`batch_reports`]).
pub(crate) async fn stream<S, SF, M, MF>(
    proxies: &[(String, Proxy)],
    rows: usize,
    batch: usize,
    single: S,
    many: M,
) -> Heard
where
    S: Fn(usize) -> SF,
    SF: Future<Output = Reported>,
    M: Fn(Vec<usize>) -> MF,
    MF: Future<Output = Vec<(usize, Reported)>>,
{
    let flapping = AtomicBool::new(true);
    let flap = flap(proxies, FLAP_UP, FLAP_DOWN, &flapping);
    let started = Instant::now();
    let running = || std::future::ready(started.elapsed() < RUN);
    let singles = futures::stream::iter(0..rows / 2)
        .take_while(|_| running())
        .map(|i| {
            let call = single(i);
            async move { (i, call.await) }
        })
        .buffer_unordered(IN_FLIGHT)
        .collect::<Vec<_>>();
    let batches: Vec<Vec<usize>> = (rows / 2..rows).collect::<Vec<_>>().chunks(batch).map(<[usize]>::to_vec).collect();
    let batches =
        futures::stream::iter(batches).take_while(|_| running()).map(&many).buffer_unordered(IN_FLIGHT / 4).collect();
    let stream = async {
        let both = futures::future::join(singles, batches).await;
        flapping.store(false, Ordering::Relaxed);
        (both, started.elapsed())
    };
    let (cycles, ((single, batched), took)) = tokio::join!(flap, stream);
    let killed: u64 = proxies.iter().map(|(_, p)| p.stats().killed).sum();
    Heard { single, batched, cycles, killed, took }
}

/// The number of versions of `d:q` in each of `rows` rows of `table` (up to `most`).
pub(crate) async fn versions(
    table: &Table,
    rows: usize,
    most: u32,
) -> Result<Vec<usize>, Box<dyn std::error::Error + Send + Sync>> {
    let mut found = vec![0; rows];
    let all: Vec<usize> = (0..rows).collect();
    for chunk in all.chunks(500) {
        let got = table.get_many(chunk.iter().map(|&i| Get::new(row(i)).max_versions(most))).await?;
        for (&i, one) in chunk.iter().zip(&got) {
            found[i] = one.versions(b"d", b"q").len();
        }
    }
    Ok(found)
}

/// What a stream's writes were: the figures' name (`"delete"`), and the words for its
/// single calls and its batches.
pub(crate) struct Writes<'a> {
    pub(crate) kind: &'a str,
    pub(crate) single: &'a str,
    pub(crate) batch: &'a str,
}

/// Counts what `heard` says against how often each row's write was applied
/// (`applied(i)`, for `rows` rows), prints the figures, and fails unless every write
/// was applied at most once, every acknowledged one exactly once, none reported failed
/// applied, no row changed by no call, and the proxies cut connections under the
/// stream.
pub(crate) fn verdict(
    heard: Heard,
    rows: usize,
    applied: impl Fn(usize) -> usize,
    writes: &Writes<'_>,
    transport: &str,
) -> TestResult {
    let (mut singles, mut batches) = (Counts::default(), Counts::default());
    for (i, reported) in heard.single {
        singles.add(reported, applied(i));
    }
    for (i, reported) in heard.batched.into_iter().flatten() {
        batches.add(reported, applied(i));
    }
    let touched_by_nobody: usize =
        (0..rows).filter(|&i| applied(i) > 0).count().saturating_sub(singles.applied + batches.applied);
    let single_line = singles.line(writes.single);
    let batch_line = batches.line(writes.batch);
    eprintln!(
        "{} figures ({transport}): in {:.1} s behind proxies flapping {} times ({} connections cut): {single_line}; \
         {batch_line}; rows changed by no call {touched_by_nobody}",
        writes.kind,
        heard.took.as_secs_f64(),
        heard.cycles,
        heard.killed
    );
    if heard.killed == 0 || heard.cycles == 0 {
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
