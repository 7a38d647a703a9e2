//! The one region coordinator: ranges are cut at region boundaries here
//! ([`cut_at_regions`], the one function that does it), for parallel scans, for the
//! region pieces of salted scans, and for callers that spread their own work over
//! regions (the CLI's `count`); and the coordinator of a
//! [`Scan::parallel_regions`](crate::Scan::parallel_regions) scan runs here.
//!
//! A coordinator task fetches the table's region boundaries once, cuts the scan's
//! range at them and runs up to `regions` pieces at a time, each a plain key-range
//! scan by its own [`Worker`] (the plain scan's pinning, recovery and page checks);
//! the first piece runs alone until its first page arrives, for a fast first row.
//! Pieces are consumed strictly in order (reversed scans: from the last region down),
//! so the rows come out exactly as the plain scan's; the pieces behind the first fill
//! their own channels, at most [`PARALLEL_PAGES_AHEAD`](crate::tuning::PARALLEL_PAGES_AHEAD) pages each, and wait. A
//! piece's bounds are keys, not region ids: a region that splits or moves mid-scan
//! changes nothing but which server answers.
//!
//! The coordinator counts the limit over all pieces (each piece is also started with
//! the rows still wanted as its own limit, so none reads far past it), forwards the
//! first error once, and ends every piece when it is done, when it fails, or when the
//! stream is dropped: dropping a piece's channel stops its worker, which closes its
//! scanner.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use tokio::sync::mpsc;
use tracing::Instrument;

use super::plan::{PagePlan, PageRole};
use super::position::RowLimit;
use super::spec::Scan;
use super::stats::ScanStats;
use super::worker::Worker;
use crate::attempt::{Attempts, Idempotence};
use crate::error::Result;
use crate::region::RegionLocation;
use crate::row::Row;
use crate::transport::Operation;

/// Cuts the key range `[start, stop)` (an empty `stop`: to the end of the table) at
/// every region boundary strictly inside it: one piece per region the range touches,
/// in key order. The one function that cuts ranges at regions: parallel and salted
/// scans use it, and so can a caller that spreads its own work over regions (`regions`
/// in any order; duplicates and the first region's empty start key are ignored).
pub fn cut_at_regions(start: &Bytes, stop: &Bytes, regions: &[RegionLocation]) -> Vec<(Bytes, Bytes)> {
    let mut cuts: Vec<Bytes> = regions
        .iter()
        .map(|r| &r.start_key)
        .filter(|k| !k.is_empty() && k[..] > start[..] && (stop.is_empty() || k[..] < stop[..]))
        .cloned()
        .collect();
    cuts.sort();
    cuts.dedup();
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    let mut from = start.clone();
    for cut in cuts {
        pieces.push((from, cut.clone()));
        from = cut;
    }
    pieces.push((from, stop.clone()));
    pieces
}

/// The ranges a scan of `[start, stop)` reads, one per region it touches, in the order
/// the scan yields them (reversed: from the largest keys down). `regions` in any order.
pub(crate) fn ordered_pieces(
    start: &Bytes,
    stop: &Bytes,
    regions: &[RegionLocation],
    reversed: bool,
) -> VecDeque<(Bytes, Bytes)> {
    let mut pieces = cut_at_regions(start, stop, regions);
    if reversed {
        pieces.reverse();
    }
    pieces.into()
}

/// Every region of `table`, in key order (one call, retried as an idempotent read).
pub(crate) async fn region_locations(attempts: &Attempts, table: &str) -> Result<Vec<RegionLocation>> {
    let mut regions = attempts
        .run(Operation::RegionLocations, Some(table), Idempotence::Idempotent, |t| t.region_locations(table))
        .await?;
    regions.sort_by(|a, b| a.start_key.cmp(&b.start_key));
    Ok(regions)
}

/// One running piece: its pages, and its own counters.
struct Piece {
    pages: mpsc::Receiver<Result<Vec<Row>>>,
    stats: Arc<ScanStats>,
}

/// Counters of the pieces already finished.
#[derive(Default)]
struct Retired {
    pages: u64,
    reopens: u64,
    rejected: u64,
}

struct Coordinator {
    attempts: Attempts,
    table: String,
    scan: Scan,
    /// Pieces read at once.
    parallel: usize,
    stats: Arc<ScanStats>,
    started: Instant,
    limit: RowLimit,
    waiting: VecDeque<(Bytes, Bytes)>,
    running: VecDeque<Piece>,
    started_pieces: usize,
    /// Set once the first piece has answered: until then it runs alone, so that the
    /// first row is not slowed by the other pieces' scanners opening.
    first_answered: bool,
    retired: Retired,
}

/// Starts the coordinator of a [`Scan::parallel_regions`] scan reading `parallel`
/// pieces at once; returns the channel of its pages, in order.
pub(crate) fn spawn(
    attempts: Attempts,
    table: String,
    scan: Scan,
    parallel: usize,
    stats: Arc<ScanStats>,
) -> mpsc::Receiver<Result<Vec<Row>>> {
    // One page ahead of the consumer, as a plain scan.
    let (tx, rx) = mpsc::channel(1);
    let span = tracing::debug_span!("hbase.parallel_scan", table = %table, reversed = scan.reversed, parallel);
    let coordinator = Coordinator {
        attempts,
        table,
        limit: RowLimit::new(scan.limit),
        scan,
        parallel,
        stats,
        started: Instant::now(),
        waiting: VecDeque::new(),
        running: VecDeque::new(),
        started_pieces: 0,
        first_answered: false,
        retired: Retired::default(),
    };
    tokio::spawn(coordinator.run(tx).instrument(span));
    rx
}

impl Coordinator {
    async fn run(mut self, tx: mpsc::Sender<Result<Vec<Row>>>) {
        if let Err(error) = self.forward(&tx).await {
            if let Ok(permit) = tx.reserve().await {
                permit.send(Err(error));
            }
        }
        // Dropping the pieces' channels stops their workers, which close their scanners.
        self.stop_pieces();
        self.publish();
        let micros = u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX).max(1);
        self.stats.finished_micros.store(micros, Ordering::Relaxed);
    }

    /// Forwards the pieces' pages in order until the scan is over, the limit is reached
    /// or the consumer is gone; `Err` for the first error of any piece.
    async fn forward(&mut self, tx: &mpsc::Sender<Result<Vec<Row>>>) -> Result<()> {
        let regions = tokio::select! {
            regions = region_locations(&self.attempts, &self.table) => regions?,
            () = tx.closed() => return Ok(()),
        };
        let (start, stop) = (self.scan.start.clone(), self.scan.stop.clone());
        if !stop.is_empty() && start >= stop {
            return Ok(()); // an empty range: no rows, no call
        }
        self.waiting = ordered_pieces(&start, &stop, &regions, self.scan.reversed);
        tracing::debug!(pieces = self.waiting.len(), regions = regions.len(), "parallel scan planned");
        loop {
            if self.limit.finished() {
                return Ok(());
            }
            self.start_pieces();
            let Some(first) = self.running.front_mut() else {
                return Ok(()); // every piece is done
            };
            let page = tokio::select! {
                biased;
                () = tx.closed() => return Ok(()),
                page = first.pages.recv() => page,
            };
            self.first_answered = true;
            match page {
                Some(Ok(mut rows)) => {
                    let keep = self.limit.admit_page(&rows);
                    rows.truncate(keep);
                    self.count(rows.len());
                    let Ok(permit) = tx.reserve().await else {
                        return Ok(()); // the stream was dropped
                    };
                    if !rows.is_empty() {
                        permit.send(Ok(rows));
                    }
                }
                Some(Err(error)) => return Err(error),
                None => {
                    // The first piece is over: its worker has closed its scanner.
                    if let Some(done) = self.running.pop_front() {
                        self.retire(&done.stats);
                    }
                }
            }
            self.publish();
        }
    }

    /// Starts waiting pieces until `parallel` run (one until the first has answered).
    fn start_pieces(&mut self) {
        let parallel = if self.first_answered { self.parallel } else { 1 };
        while self.running.len() < parallel {
            let Some((start, stop)) = self.waiting.pop_front() else { return };
            let mut scan = self.scan.clone();
            scan.start = start;
            scan.stop = stop;
            // Rows still allowed to start (a row in progress lies in an earlier piece).
            scan.limit = self.limit.remaining();
            scan.parallel = 1;
            let stats = Arc::new(ScanStats::default());
            let role = if self.started_pieces == 0 { PageRole::FirstRegionPiece } else { PageRole::LaterRegionPiece };
            self.started_pieces += 1;
            let (attempts, table) = (self.attempts.clone(), self.table.clone());
            let rx = Worker::spawn(attempts, table, scan, None, Arc::clone(&stats), PagePlan::of(role));
            self.running.push_back(Piece { pages: rx, stats });
        }
    }

    fn stop_pieces(&mut self) {
        while let Some(piece) = self.running.pop_front() {
            self.retire(&piece.stats);
        }
    }

    fn retire(&mut self, stats: &ScanStats) {
        self.retired.pages += stats.pages();
        self.retired.reopens += stats.reopens();
        self.retired.rejected += stats.rejected_pages();
    }

    /// Rows handed to the consumer.
    fn count(&self, rows: usize) {
        if rows == 0 {
            return;
        }
        if self.stats.rows.load(Ordering::Relaxed) == 0 {
            let micros = u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX).max(1);
            self.stats.first_row_micros.store(micros, Ordering::Relaxed);
        }
        self.stats.rows.fetch_add(rows as u64, Ordering::Relaxed);
    }

    /// The scan's live counters: the finished pieces' plus the running ones'.
    fn publish(&self) {
        let running = |f: fn(&ScanStats) -> u64| self.running.iter().map(|p| f(&p.stats)).sum::<u64>();
        let pages = self.retired.pages + running(ScanStats::pages);
        let reopens = self.retired.reopens + running(ScanStats::reopens);
        let rejected = self.retired.rejected + running(ScanStats::rejected_pages);
        self.stats.pages.store(pages, Ordering::Relaxed);
        self.stats.reopens.store(reopens, Ordering::Relaxed);
        self.stats.rejected_pages.store(rejected, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &str) -> Bytes {
        Bytes::copy_from_slice(s.as_bytes())
    }

    fn show(pieces: &VecDeque<(Bytes, Bytes)>) -> Vec<(String, String)> {
        pieces
            .iter()
            .map(|(a, z)| (String::from_utf8_lossy(a).into_owned(), String::from_utf8_lossy(z).into_owned()))
            .collect()
    }

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter().map(|(a, z)| ((*a).to_owned(), (*z).to_owned())).collect()
    }

    /// Four regions: [,c) [c,g) [g,m) [m,); listed out of order and with a duplicate.
    fn starts() -> Vec<RegionLocation> {
        ["g", "", "m", "c", "g"].into_iter().map(region).collect()
    }

    fn region(start: &str) -> RegionLocation {
        RegionLocation { start_key: b(start), end_key: Bytes::new(), region_id: 0, host: String::new(), port: None }
    }

    fn pieces(start: &Bytes, stop: &Bytes, regions: &[RegionLocation], reversed: bool) -> VecDeque<(Bytes, Bytes)> {
        ordered_pieces(start, stop, regions, reversed)
    }

    #[test]
    fn a_full_scan_is_cut_at_every_region_start() {
        let got = pieces(&Bytes::new(), &Bytes::new(), &starts(), false);
        assert_eq!(show(&got), pairs(&[("", "c"), ("c", "g"), ("g", "m"), ("m", "")]));
        let got = pieces(&Bytes::new(), &Bytes::new(), &starts(), true);
        assert_eq!(show(&got), pairs(&[("m", ""), ("g", "m"), ("c", "g"), ("", "c")]), "reversed: last region first");
    }

    #[test]
    fn open_ends_and_bounds_between_region_starts() {
        let got = pieces(&b("d"), &Bytes::new(), &starts(), false);
        assert_eq!(show(&got), pairs(&[("d", "g"), ("g", "m"), ("m", "")]));
        let got = pieces(&Bytes::new(), &b("h"), &starts(), false);
        assert_eq!(show(&got), pairs(&[("", "c"), ("c", "g"), ("g", "h")]));
        let got = pieces(&b("b"), &b("n"), &starts(), true);
        assert_eq!(show(&got), pairs(&[("m", "n"), ("g", "m"), ("c", "g"), ("b", "c")]));
    }

    #[test]
    fn ranges_are_cut_at_region_starts_inside_them() {
        let regions: Vec<RegionLocation> = ["", "b", "d", "f"].into_iter().map(region).collect();
        let got = cut_at_regions(&b("a"), &b("e"), &regions);
        assert_eq!(show(&got.into()), pairs(&[("a", "b"), ("b", "d"), ("d", "e")]));
        assert_eq!(cut_at_regions(&b("c"), &Bytes::new(), &regions).len(), 3);
    }

    #[test]
    fn bounds_on_region_starts_make_no_empty_piece() {
        let got = pieces(&b("c"), &b("m"), &starts(), false);
        assert_eq!(show(&got), pairs(&[("c", "g"), ("g", "m")]));
    }

    #[test]
    fn a_range_inside_one_region_is_one_piece() {
        for reversed in [false, true] {
            let got = pieces(&b("h"), &b("k"), &starts(), reversed);
            assert_eq!(show(&got), pairs(&[("h", "k")]));
        }
        // A table of one region (its start key is empty).
        let one = [region("")];
        assert_eq!(show(&pieces(&Bytes::new(), &Bytes::new(), &one, false)), pairs(&[("", "")]));
        // No region known at all: the whole range.
        assert_eq!(show(&pieces(&b("a"), &b("z"), &[], false)), pairs(&[("a", "z")]));
    }
}
