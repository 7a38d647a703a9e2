//! Reads from region replicas (tables with region replication above 1).
//!
//! A read is planned from its consistency and target replica ([`ReplicaPlan`]), as
//! HBase's Java client plans it (`ConnectionUtils.timelineConsistentRead`):
//! - strong: the primary only;
//! - a target replica: that replica only;
//! - timeline without a target: the primary at once, the secondaries after the
//!   builder's primary call timeout (default 10 ms, Java's
//!   `hbase.client.primaryCallTimeout.get`), or at once when the primary has already
//!   failed; the first successful answer wins, and the other calls are dropped (a
//!   dropped call leaves nothing behind: its reply, if any, is discarded). When every
//!   replica fails, the primary's error is returned.
//!
//! Each replica's call relocates and retries on its own, as a primary's does; the
//! secondaries' first attempt uses the locations read with the primary's, so a primary
//! that is closing or gone does not keep them from answering.
//!
//! A timeline scan opens its scanner in each region the same way (one attempt per
//! replica; the scan's own retries follow), then pages from the replica that answered
//! first. Each open runs in a task of its own: a scanner opened by a replica that lost
//! the race (or whose scan was dropped meanwhile) is closed by that task.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::Either;
use futures::stream::{FuturesUnordered, StreamExt};
use futures::FutureExt;

use crate::builder::RpcClient;
use crate::cells::{row_result, scan_results, CellCursor, RowResult};
use crate::error::RpcError;
use crate::pb;
use crate::read::{Get, ReadFields};
use crate::region::RegionLocation;

/// Which replicas a read asks, decided once per read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReplicaPlan {
    /// The primary only (strong consistency).
    Primary,
    /// One replica only (a target replica id).
    Only(u16),
    /// The primary, then after `delay` the secondaries; the first answer wins.
    Hedged {
        /// How long the primary has alone.
        delay: Duration,
    },
}

impl ReplicaPlan {
    /// The plan of a read with these options; `delay` is the primary call timeout.
    pub(crate) fn of(read: &ReadFields, delay: Duration) -> ReplicaPlan {
        match (read.is_timeline(), read.replica_id) {
            (true, Some(id)) => ReplicaPlan::Only(id),
            // Strong with a target: only the primary passes `check_replica`.
            (false, Some(_)) | (false, None) => ReplicaPlan::Primary,
            (true, None) => ReplicaPlan::Hedged { delay },
        }
    }
}

/// Runs `primary`; when it has not succeeded after `delay` (or failed before), starts
/// the futures `secondaries` makes. Returns the first success; when all fail, the
/// primary's error. Every future still running is dropped on return.
pub(crate) async fn first_success<T, E, P, S, F>(primary: P, delay: Duration, secondaries: S) -> Result<T, E>
where
    P: Future<Output = Result<T, E>>,
    S: FnOnce() -> Vec<F>,
    F: Future<Output = Result<T, E>>,
{
    let mut running = FuturesUnordered::new();
    running.push(Either::Left(primary.map(|outcome| (true, outcome))));
    let mut launch = Some(secondaries);
    let start = |launch: &mut Option<S>, running: &mut FuturesUnordered<_>| {
        if let Some(make) = launch.take() {
            for secondary in make() {
                running.push(Either::Right(secondary.map(|outcome| (false, outcome))));
            }
        }
    };
    let timer = tokio::time::sleep(delay);
    tokio::pin!(timer);
    // The error returned if nothing succeeds: the primary's, else the first one.
    let mut kept: Option<E> = None;
    loop {
        // `running` is never empty here: the primary is pushed first, and when the
        // last running future fails, the secondaries start or the error is returned.
        tokio::select! {
            Some((from_primary, outcome)) = running.next() => match outcome {
                Ok(value) => return Ok(value),
                Err(error) => {
                    let error = match (from_primary, kept.take()) {
                        (true, _) | (false, None) => error,
                        (false, Some(earlier)) => earlier,
                    };
                    if running.is_empty() {
                        start(&mut launch, &mut running);
                    }
                    if running.is_empty() {
                        return Err(error);
                    }
                    kept = Some(error);
                }
            },
            () = &mut timer, if launch.is_some() => start(&mut launch, &mut running),
        }
    }
}

/// A get planned by its consistency and target replica (see the module's doc).
pub(crate) async fn replicated_get(client: &RpcClient, table: &str, get: &Get) -> Result<RowResult, RpcError> {
    let proto = get.to_proto();
    let row = get.row().as_ref();
    match ReplicaPlan::of(get.read_fields(), client.primary_call_timeout()) {
        ReplicaPlan::Primary => with_replica(client, table, row, 0, None, |r| get_once(client, r, &proto)).await,
        ReplicaPlan::Only(id) => with_replica(client, table, row, id, None, |r| get_once(client, r, &proto)).await,
        ReplicaPlan::Hedged { delay } => {
            let region = client.locate(table, row).await?;
            let primary = with_replica(client, table, row, 0, Some(region.clone()), |r| get_once(client, r, &proto));
            let secondaries = || {
                region
                    .replicas
                    .iter()
                    .map(|(id, _)| {
                        let first = region.replica(*id);
                        with_replica(client, table, row, *id, first, |r| get_once(client, r, &proto))
                    })
                    .collect::<Vec<_>>()
            };
            first_success(primary, delay, secondaries).await
        }
    }
}

/// Opens a scanner with `request` in the primary `region`, hedged to its
/// secondaries after `delay`: the replica that answered first, its reply and its
/// rows.
pub(crate) async fn hedged_open(
    client: &RpcClient,
    region: &RegionLocation,
    request: &pb::ScanRequest,
    delay: Duration,
) -> Result<(RegionLocation, pb::ScanResponse, Vec<RowResult>), RpcError> {
    let decided = Arc::new(AtomicBool::new(false));
    let open_on = |location: RegionLocation| {
        let (sender, answer) = tokio::sync::oneshot::channel();
        let (client, decided) = (client.clone(), decided.clone());
        let mut request = request.clone();
        request.region = Some(location.specifier());
        tokio::spawn(async move {
            let opened = open_once(&client, location, &request).await;
            let won =
                opened.is_ok() && decided.compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire).is_ok();
            match (opened, won) {
                (Ok(opened), true) => {
                    // The scan was dropped meanwhile: nobody will page this scanner.
                    if let Err(Ok(unwanted)) = sender.send(Ok(opened)) {
                        close_opened(&client, &unwanted.0, &unwanted.1).await;
                    }
                }
                (Ok(late), false) => {
                    close_opened(&client, &late.0, &late.1).await;
                    let _ = sender.send(Err(RpcError::RegionUnavailable("another replica answered first".into())));
                }
                (Err(error), _) => {
                    let _ = sender.send(Err(error));
                }
            }
        });
        answer.map(|sent| {
            sent.unwrap_or_else(|_| Err(RpcError::RegionUnavailable("a replica's open call was cancelled".into())))
        })
    };
    let primary = open_on(region.clone());
    let secondaries = || region.replicas.iter().filter_map(|(id, _)| region.replica(*id)).map(open_on).collect();
    first_success(primary, delay, secondaries).await
}

/// One open-scanner call to one region (any replica).
async fn open_once(
    client: &RpcClient,
    region: RegionLocation,
    request: &pb::ScanRequest,
) -> Result<(RegionLocation, pb::ScanResponse, Vec<RowResult>), RpcError> {
    let reply = client.call(&region.server, "Scan", request, None).await?;
    let response: pb::ScanResponse = reply.decode(&region.server)?;
    let rows = scan_results(&region.server, &response, &reply.cell_block)?;
    Ok((region, response, rows))
}

/// Closes a scanner that no one will page (best effort: the lease ends it anyway).
async fn close_opened(client: &RpcClient, region: &RegionLocation, response: &pb::ScanResponse) {
    let still_open = response.more_results_in_region.unwrap_or(true) && response.more_results.unwrap_or(true);
    if let (Some(id), true) = (response.scanner_id, still_open) {
        let _ = client.call(&region.server, "Scan", &crate::read::close_request(id), None).await;
    }
}

/// One `Get` call to one region (any replica).
async fn get_once(client: &RpcClient, region: RegionLocation, get: &pb::Get) -> Result<RowResult, RpcError> {
    let request = pb::GetRequest { region: region.specifier(), get: get.clone() };
    let reply = client.call(&region.server, "Get", &request, None).await?;
    let response: pb::GetResponse = reply.decode(&region.server)?;
    let mut reader = CellCursor::new(reply.cell_block.clone());
    match response.result {
        Some(result) => row_result(&region.server, &result, &mut reader),
        None => Ok(RowResult::default()),
    }
}

/// Runs the idempotent read `call` against replica `id` of the region of `row`
/// (the first attempt at `first` when given), relocating and retrying while the
/// error allows it and the operation's deadline is not reached.
async fn with_replica<T, F, Fut>(
    client: &RpcClient,
    table: &str,
    row: &[u8],
    id: u16,
    mut first: Option<RegionLocation>,
    call: F,
) -> Result<T, RpcError>
where
    F: Fn(RegionLocation) -> Fut,
    Fut: Future<Output = Result<T, RpcError>>,
{
    let started = Instant::now();
    let mut attempt = 0;
    loop {
        let located = match first.take() {
            Some(location) => Ok(location),
            None => client.locate(table, row).await.and_then(|primary| {
                primary.replica(id).ok_or_else(|| {
                    // Meta may list the replica once it is assigned: read it again.
                    client.inner.regions.invalidate(&primary);
                    RpcError::RegionUnavailable(format!(
                        "replica {id} of the region of {table} holding the row has no server in hbase:meta"
                    ))
                })
            }),
        };
        let error = match located {
            Ok(region) => match call(region.clone()).await {
                Ok(value) => return Ok(value),
                Err(error) => {
                    client.on_error(&region, &error);
                    error
                }
            },
            Err(error) => error,
        };
        if !error.is_retryable() {
            return Err(error);
        }
        attempt += 1;
        let Some(pause) = client.retry_after(attempt, started, &error) else {
            return Err(RpcError::after_attempts(attempt, error, false, true));
        };
        tokio::time::sleep(pause).await;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use super::*;

    /// Sets its flag when dropped: tells whether a losing call was cancelled.
    struct DropFlag(Arc<AtomicUsize>);

    impl Drop for DropFlag {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// A fake replica call: answers `outcome` after `after`, counting its drop.
    fn replica(
        after: u64,
        outcome: Result<&'static str, &'static str>,
        dropped: &Arc<AtomicUsize>,
    ) -> impl Future<Output = Result<&'static str, &'static str>> {
        let flag = DropFlag(dropped.clone());
        async move {
            let _flag = flag;
            tokio::time::sleep(Duration::from_millis(after)).await;
            outcome
        }
    }

    const DELAY: Duration = Duration::from_millis(10);

    #[tokio::test(start_paused = true)]
    async fn a_fast_primary_never_starts_the_secondaries() {
        let started = AtomicUsize::new(0);
        let dropped = Arc::new(AtomicUsize::new(0));
        let answer = first_success(replica(2, Ok("primary"), &dropped), DELAY, || {
            started.fetch_add(1, Ordering::SeqCst);
            vec![replica(1, Ok("secondary"), &dropped)]
        })
        .await;
        assert_eq!(answer, Ok("primary"));
        assert_eq!(started.load(Ordering::SeqCst), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_primary_loses_to_a_secondary_after_the_delay_and_is_dropped() {
        let dropped = Arc::new(AtomicUsize::new(0));
        let begun = tokio::time::Instant::now();
        let answer = first_success(replica(5_000, Ok("primary"), &dropped), DELAY, || {
            vec![replica(3, Ok("secondary 1"), &dropped), replica(50, Ok("secondary 2"), &dropped)]
        })
        .await;
        assert_eq!(answer, Ok("secondary 1"));
        // The secondary started after the delay and answered 3 ms later.
        assert_eq!(begun.elapsed(), Duration::from_millis(13));
        // All three calls are gone: the winner finished, the two losers were dropped.
        assert_eq!(dropped.load(Ordering::SeqCst), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn a_failed_primary_starts_the_secondaries_at_once() {
        let dropped = Arc::new(AtomicUsize::new(0));
        let begun = tokio::time::Instant::now();
        let answer = first_success(replica(1, Err("primary down"), &dropped), Duration::from_secs(5), || {
            vec![replica(2, Ok("secondary"), &dropped)]
        })
        .await;
        assert_eq!(answer, Ok("secondary"));
        assert_eq!(begun.elapsed(), Duration::from_millis(3));
    }

    #[tokio::test(start_paused = true)]
    async fn a_failed_secondary_does_not_end_the_read() {
        let dropped = Arc::new(AtomicUsize::new(0));
        let answer = first_success(replica(40, Ok("primary"), &dropped), DELAY, || {
            vec![replica(1, Err("secondary refused"), &dropped)]
        })
        .await;
        assert_eq!(answer, Ok("primary"));
    }

    #[tokio::test(start_paused = true)]
    async fn when_every_replica_fails_the_primarys_error_is_returned() {
        let dropped = Arc::new(AtomicUsize::new(0));
        let answer = first_success(replica(30, Err("primary error"), &dropped), DELAY, || {
            vec![replica(1, Err("secondary 1 error"), &dropped), replica(2, Err("secondary 2 error"), &dropped)]
        })
        .await;
        assert_eq!(answer, Err("primary error"));
        let none = || -> Vec<std::future::Ready<Result<&'static str, &'static str>>> { Vec::new() };
        let alone = first_success(replica(1, Err("primary error"), &dropped), DELAY, none).await;
        assert_eq!(alone, Err("primary error"));
    }

    #[test]
    fn plans_follow_consistency_and_target() {
        let timeline = Some(pb::Consistency::Timeline);
        let plan = |consistency, replica_id| {
            ReplicaPlan::of(&ReadFields { consistency, replica_id, ..ReadFields::default() }, DELAY)
        };
        assert_eq!(plan(None, None), ReplicaPlan::Primary);
        assert_eq!(plan(Some(pb::Consistency::Strong), Some(0)), ReplicaPlan::Primary);
        assert_eq!(plan(timeline, None), ReplicaPlan::Hedged { delay: DELAY });
        assert_eq!(plan(timeline, Some(1)), ReplicaPlan::Only(1));
        assert_eq!(plan(timeline, Some(0)), ReplicaPlan::Only(0));
    }
}
