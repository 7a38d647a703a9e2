//! The load that `regions` (regions moved and split) and `region_crash` (a region
//! server killed or stopped) run while HBase moves regions: a paced merged salted scan
//! of the table and batched writes of rows of the writer's own users into it; then the
//! scan compared with the table's rows from before the writes, and every acknowledged
//! write read back.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use basalt::{Bytes, SaltedTable};
use basalt_rowkey::{Query, Value};
use tokio::task::JoinHandle;

use crate::support::tally::{read_salted, Pace, ScanRun};

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// The writer's users are "zz000" to "zz049", none of the fixture's ("u...").
const WRITER_USERS: &[u8] = b"zz";

/// Batches the writer writes at the most (200 rows each, one every 50 ms or so).
const WRITER_BATCHES: u64 = 400;

/// A paced merged scan and a writer running on a salted table until [`SaltedLoad::stop`].
pub(crate) struct SaltedLoad {
    scan: JoinHandle<ScanRun>,
    writer: JoinHandle<(Vec<Vec<Value>>, Vec<String>)>,
    stop: Arc<AtomicBool>,
}

/// What the load saw: the scan (its rows and errors) and the writes acknowledged and
/// failed.
pub(crate) struct LoadEnd {
    /// The merged scan as read, the writer's rows included.
    pub(crate) scan: ScanRun,
    /// The logical values of every row of an acknowledged batch.
    pub(crate) acked: Vec<Vec<Value>>,
    /// The errors of the batches that failed (or of puts that could not be built).
    pub(crate) failures: Vec<String>,
}

impl SaltedLoad {
    /// Starts a merged scan of `salted` read at a steady pace (pages of 100) until
    /// [`SaltedLoad::stop`], then at full speed, and batched writes of 200 rows (batch numbers from `first_batch`, 50 ms apart).
    pub(crate) fn start(salted: &SaltedTable, first_batch: u64) -> SaltedLoad {
        let scan_table = salted.clone();
        let stop = Arc::new(AtomicBool::new(false));
        // Paced until the writes stop: by then the events the scan has to span are over.
        let pace = Pace::steady_until(stop.clone());
        let scan = tokio::spawn(async move { read_salted(&scan_table, Query::new(), 100, pace).await });
        let writer_table = salted.clone();
        let stop_writer = stop.clone();
        let writer = tokio::spawn(async move {
            let (mut acked, mut failures) = (Vec::new(), Vec::new());
            for batch_no in first_batch..first_batch + WRITER_BATCHES {
                if stop_writer.load(Ordering::Relaxed) {
                    break;
                }
                let mut keys = Vec::new();
                let mut puts = Vec::new();
                for i in 0..200u64 {
                    let values = vec![Value::str(format!("zz{:03}", i % 50)), Value::UInt(batch_no * 1000 + i)];
                    match writer_table.new_put(&values) {
                        // At a fixed timestamp: every acknowledged batch is required, and a
                        // put on the server's clock cut mid-call is reported in doubt
                        // (`puts_once` tests that).
                        Ok(put) => puts.push(put.cell_at("d", "v", "w", 1)),
                        Err(e) => failures.push(e.to_string()),
                    }
                    keys.push(values);
                }
                match writer_table.table().put_many(puts).await {
                    Ok(_) => acked.extend(keys),
                    Err(e) => failures.push(e.to_string()),
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            (acked, failures)
        });
        SaltedLoad { scan, writer, stop }
    }

    /// Stops the writes and the scan's pauses, and waits for the scan (up to 300 s) and the writer (up to
    /// `writer_timeout`); an error if either hangs.
    pub(crate) async fn stop(self, writer_timeout: Duration) -> Result<LoadEnd, Failure> {
        self.stop.store(true, Ordering::Relaxed);
        let scan =
            tokio::time::timeout(Duration::from_secs(300), self.scan).await.map_err(|_| "the merged scan hung")??;
        let (acked, failures) =
            tokio::time::timeout(writer_timeout, self.writer).await.map_err(|_| "the writer hung")??;
        Ok(LoadEnd { scan, acked, failures })
    }
}

/// The scan's own rows: `scan` without the writer's rows, which may or may not appear
/// (they were written during the scan), so that it compares with `expected`, the
/// table's rows before the writes.
pub(crate) fn without_the_writes(expected: &[Bytes], scan: ScanRun) -> ScanRun {
    let truth: BTreeSet<&Bytes> = expected.iter().collect();
    ScanRun {
        keys: scan.keys.iter().filter(|k| truth.contains(k) || !k.starts_with(WRITER_USERS)).cloned().collect(),
        ..scan
    }
}

/// The scan's rows without any of the writer's rows (after the writes ended, all of
/// them are in the table, and none is the scan's truth).
pub(crate) fn without_any_write(scan: ScanRun) -> ScanRun {
    ScanRun { keys: scan.keys.iter().filter(|k| !k.starts_with(WRITER_USERS)).cloned().collect(), ..scan }
}

/// How many of the writer's acknowledged rows do not read back as written.
pub(crate) async fn unreadable_salted(salted: &SaltedTable, acked: &[Vec<Value>]) -> Result<u64, basalt::Error> {
    let mut unreadable = 0u64;
    for chunk in acked.chunks(500) {
        let rows = salted.get_many(chunk).await?;
        unreadable += rows.iter().filter(|r| r.value(b"d", b"v") != Some(b"w")).count() as u64;
    }
    Ok(unreadable)
}
