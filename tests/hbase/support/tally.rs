//! Ground truth for the hostile-world tests: reading a scan to its end (plain or merged
//! salted, at full speed or at a steady pace) and comparing what it returned with the
//! rows it had to return ([`Tally`]: lost, duplicated, foreign, out of order, reopens).

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt::{Bytes, SaltedTable, Scan, Table};
use basalt_rowkey::Query;
use futures::StreamExt;

use crate::support::TestResult;

/// What a series of runs saw, compared with the ground truth.
#[derive(Debug, Default, Clone)]
pub(crate) struct Tally {
    pub runs: u64,
    pub rows_compared: u64,
    pub lost: u64,
    pub duplicated: u64,
    pub foreign: u64,
    pub out_of_order: u64,
    pub reopens: u64,
    pub errors: Vec<String>,
}

impl Tally {
    /// Compares one run's keys with the expected keys (in scan order).
    pub fn compare(&mut self, expected: &[Bytes], got: &[Bytes]) {
        self.runs += 1;
        self.rows_compared += got.len() as u64;
        let want: BTreeSet<&Bytes> = expected.iter().collect();
        let mut seen: HashMap<&Bytes, u32> = HashMap::new();
        for k in got {
            *seen.entry(k).or_default() += 1;
        }
        self.lost += want.iter().filter(|k| !seen.contains_key(**k)).count() as u64;
        self.duplicated += seen.values().map(|n| u64::from(n - 1)).sum::<u64>();
        self.foreign += seen.keys().filter(|k| !want.contains(**k)).count() as u64;
        // Order: the scan order of `expected`, by position; foreign rows are skipped.
        let position: HashMap<&Bytes, usize> = expected.iter().enumerate().map(|(i, k)| (k, i)).collect();
        let order: Vec<usize> = got.iter().filter_map(|k| position.get(k).copied()).collect();
        self.out_of_order += order.windows(2).filter(|w| w.first() >= w.get(1)).count() as u64;
    }

    /// Adds one scan run: its reopens, the error that ended it early, and its keys
    /// compared with `expected` (in scan order).
    pub fn add(&mut self, expected: &[Bytes], run: &ScanRun) {
        self.reopens += run.reopens;
        self.errors.extend(run.error.clone());
        self.compare(expected, &run.keys);
    }

    /// One run, compared with `expected` (ascending keys), read forward or reversed.
    pub fn add_in_direction(&mut self, expected: &[Bytes], reverse: bool, run: &ScanRun) {
        if reverse {
            self.add(&reversed(expected), run);
        } else {
            self.add(expected, run);
        }
    }

    pub fn exact(&self) -> bool {
        self.lost == 0 && self.duplicated == 0 && self.foreign == 0 && self.out_of_order == 0 && self.errors.is_empty()
    }

    pub fn report(&self, what: &str) -> String {
        format!(
            "{what}: runs {}, rows compared {}, lost {}, duplicated {}, foreign {}, out of order {}, reopens {}, \
             errors {}{}; process peak RSS {} MiB",
            self.runs,
            self.rows_compared,
            self.lost,
            self.duplicated,
            self.foreign,
            self.out_of_order,
            self.reopens,
            self.errors.len(),
            self.errors.first().map(|e| format!(" (first: {e})")).unwrap_or_default(),
            peak_rss_kib() >> 10,
        )
    }

    /// Prints the figures; an error naming them unless every run was exact.
    pub fn check(&self, what: &str) -> TestResult {
        let line = self.report(what);
        eprintln!("chaos figures: {line}");
        if self.exact() {
            Ok(())
        } else {
            Err(line.into())
        }
    }
}

/// The keys in the opposite order.
pub(crate) fn reversed(keys: &[Bytes]) -> Vec<Bytes> {
    keys.iter().rev().cloned().collect()
}

/// This process's peak resident memory (VmHWM), in KiB.
pub(crate) fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// One scan read to its end: keys in order, reopens, and the error that ended it early.
#[derive(Debug, Default)]
pub(crate) struct ScanRun {
    pub keys: Vec<Bytes>,
    pub reopens: u64,
    pub error: Option<String>,
}

/// How a scan is read: at full speed, or paced (a pause every 20 rows, so that a scan
/// spans an outage or region moves), within a deadline.
#[derive(Debug, Clone)]
pub(crate) struct Pace {
    pub pause_every_20_rows: Duration,
    pub deadline: Duration,
    /// Once set, the pauses end: the test's events are over and the rest of the scan
    /// is read at full speed (a scan of a table that is being written to would
    /// otherwise go on reading the new rows at the steady pace for minutes).
    pub released: Option<Arc<AtomicBool>>,
}

impl Pace {
    /// No pause; a deadline long enough for any test scan on a loaded machine.
    pub const FULL_SPEED: Pace =
        Pace { pause_every_20_rows: Duration::ZERO, deadline: Duration::from_secs(600), released: None };
    /// 40 ms every 20 rows, for at most 240 s.
    pub const STEADY: Pace =
        Pace { pause_every_20_rows: Duration::from_millis(40), deadline: Duration::from_secs(240), released: None };

    /// [`Pace::STEADY`] until `released` is set, then full speed.
    pub fn steady_until(released: Arc<AtomicBool>) -> Pace {
        Pace { released: Some(released), ..Pace::STEADY }
    }

    fn pauses(&self) -> bool {
        !self.pause_every_20_rows.is_zero() && !self.released.as_ref().is_some_and(|r| r.load(Ordering::Relaxed))
    }
}

/// Reads a stream of rows to its end (or its first error, or the deadline), keeping
/// each row's key as `key` gives it.
async fn drain<S, R>(stream: &mut S, pace: Pace, key: impl Fn(&R) -> Bytes) -> (Vec<Bytes>, Option<String>)
where
    S: futures::Stream<Item = basalt::Result<R>> + Unpin,
{
    let deadline = Instant::now() + pace.deadline;
    let mut keys = Vec::new();
    while let Some(row) = stream.next().await {
        match row {
            Ok(row) => keys.push(key(&row)),
            Err(e) => return (keys, Some(e.to_string())),
        }
        if keys.len() % 20 == 0 && pace.pauses() {
            tokio::time::sleep(pace.pause_every_20_rows).await;
        }
        if Instant::now() > deadline {
            return (keys, Some(format!("still reading after {:?}", pace.deadline)));
        }
    }
    (keys, None)
}

/// Reads a whole merged salted scan (logical keys) with pages of `caching` rows.
pub(crate) async fn read_salted(salted: &SaltedTable, query: Query, caching: u32, pace: Pace) -> ScanRun {
    let stream = match salted.scan(query).template(Scan::new().caching(caching)).stream().await {
        Ok(s) => s,
        Err(e) => return ScanRun { error: Some(e.to_string()), ..ScanRun::default() },
    };
    let mut stream = stream;
    let (keys, error) = drain(&mut stream, pace, |row: &basalt::SaltedRow| row.logical_key_bytes()).await;
    let reopens = stream.bucket_stats().iter().map(|s| s.reopens()).sum();
    ScanRun { keys, reopens, error }
}

/// Reads a whole plain scan (stored keys).
pub(crate) async fn read_plain(table: &Table, scan: Scan, pace: Pace) -> ScanRun {
    let mut stream = match table.scan(scan) {
        Ok(s) => s,
        Err(e) => return ScanRun { error: Some(e.to_string()), ..ScanRun::default() },
    };
    let stats = stream.stats();
    let (keys, error) = drain(&mut stream, pace, |row: &basalt::Row| row.key_bytes()).await;
    ScanRun { keys, reopens: stats.reopens(), error }
}
