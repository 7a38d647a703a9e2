//! Batched writes with several chunks in flight: the plan (which chunk waits for which),
//! the scheduler, and the bookkeeping that turns the chunks' outcomes into an exact
//! [`Error::BatchFailed`].
//!
//! - **Order**: a row written twice in one batch keeps last-write-wins order. A chunk
//!   is sent only once every earlier chunk that writes one of its rows has been
//!   confirmed; chunks with no row in common run side by side.
//! - **Failure**: after the first failure no chunk is sent; the chunks in flight are
//!   awaited (never abandoned, which would leave them in doubt), so every chunk ends
//!   confirmed, failed, or never sent.

// Whether a chunk is in doubt is decided kind by kind: no wildcard arm.
#![deny(clippy::wildcard_enum_match_arm)]

use std::collections::HashMap;
use std::future::Future;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher, RandomState};
use std::ops::Range;

use bytes::Bytes;
use futures::stream::{FuturesUnordered, StreamExt};

use std::time::Instant;

use crate::attempt::{Attempts, Idempotence};
use crate::error::{Error, Result};
use crate::metrics;
use crate::ops::{Delete, Put};
use crate::transport::{AttemptFuture, Operation, Transport, WriteFailure};

/// One call's worth of a batch: a range of its items, and the earlier chunks that
/// write one of the same rows (they must be confirmed before this one is sent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chunk {
    pub(crate) items: Range<usize>,
    pub(crate) after: Vec<usize>,
}

/// Splits `len` items into chunks of at most `size` (at least 1), in order, and
/// records for each chunk the earlier chunks it shares a row with (`row(i)` is item
/// `i`'s row key). Per row only the latest earlier chunk is recorded: that one itself
/// waited for the ones before it. Rows are told apart by a 64-bit hash: a collision
/// only adds a needless wait, never a race.
pub(crate) fn plan<'a>(len: usize, size: usize, row: impl Fn(usize) -> &'a [u8]) -> Vec<Chunk> {
    let size = size.max(1);
    let mut chunks: Vec<Chunk> = Vec::with_capacity(len.div_ceil(size));
    let several = len > size;
    let hasher = RandomState::new();
    let mut last_chunk: HashMap<u64, usize, BuildHasherDefault<AlreadyHashed>> =
        HashMap::with_capacity_and_hasher(if several { len } else { 0 }, BuildHasherDefault::default());
    for (index, start) in (0..len).step_by(size).enumerate() {
        let items = start..(start + size).min(len);
        let mut after = Vec::new();
        if several {
            for i in items.clone() {
                if let Some(earlier) = last_chunk.insert(hasher.hash_one(row(i)), index) {
                    if earlier != index {
                        after.push(earlier);
                    }
                }
            }
            after.sort_unstable();
            after.dedup();
        }
        chunks.push(Chunk { items, after });
    }
    chunks
}

/// The hasher of [`plan`]'s map, whose keys are already keyed hashes of rows: a key is
/// its own hash (hashing it again cost as much as hashing the row).
#[derive(Default)]
struct AlreadyHashed(u64);

impl Hasher for AlreadyHashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not reached for `u64` keys; any other input is still mixed in.
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// An item of a chunk that HBase did not apply.
#[derive(Debug)]
pub(crate) struct Refused {
    /// The item's position in its chunk.
    pub(crate) index: usize,
    /// The item's row.
    pub(crate) row: Bytes,
    /// HBase's error for it.
    pub(crate) error: Error,
    /// Whether an attempt of it may have been applied all the same.
    pub(crate) in_doubt: bool,
}

/// What a sent chunk came back with: `Ok(refused)` names the items HBase did not
/// apply, each with its error (the rest were applied); `Err` is a failed call.
pub(crate) type Sent = Result<Vec<Refused>>;

/// A write a batch sends in chunks: puts, deletes.
pub(crate) trait ChunkWrite: Clone + Sync {
    /// The operation a chunk of them is.
    const OPERATION: Operation;
    /// The write's row.
    fn row(&self) -> &Bytes;
    /// Whether it may be resent after an attempt of it may have run, by a client that
    /// resends puts on the server's clock if `resend_unstamped` ([`Idempotence::of_put`]).
    fn idempotence(&self, resend_unstamped: bool) -> Idempotence;
    /// One attempt to apply `items` to `table`.
    fn send<'a>(
        transport: &'a dyn Transport,
        table: &'a str,
        items: &'a [Self],
    ) -> AttemptFuture<'a, Vec<WriteFailure>>;
}

impl ChunkWrite for Put {
    const OPERATION: Operation = Operation::PutMany;
    fn row(&self) -> &Bytes {
        self.row()
    }
    fn idempotence(&self, resend_unstamped: bool) -> Idempotence {
        Idempotence::of_put(self, resend_unstamped)
    }
    fn send<'a>(
        transport: &'a dyn Transport,
        table: &'a str,
        items: &'a [Put],
    ) -> AttemptFuture<'a, Vec<WriteFailure>> {
        transport.put(table, items)
    }
}

impl ChunkWrite for Delete {
    const OPERATION: Operation = Operation::DeleteMany;
    fn row(&self) -> &Bytes {
        self.row_key()
    }
    fn idempotence(&self, _resend_unstamped: bool) -> Idempotence {
        Idempotence::of_delete(self)
    }
    fn send<'a>(
        transport: &'a dyn Transport,
        table: &'a str,
        items: &'a [Delete],
    ) -> AttemptFuture<'a, Vec<WriteFailure>> {
        transport.delete(table, items)
    }
}

/// Sends one chunk of writes to `table` and resends only the writes that failed with a
/// retryable error, as the retry policy allows: writes already applied are never sent
/// again, and a write that is not idempotent (a delete of a column's newest version, a
/// put on the server's clock unless the client resends those) is never resent once an
/// attempt of it may have run: it is reported in doubt. A
/// chunk holding one is one call that is not idempotent (a transport that cannot tell
/// the writes' outcomes apart fails it whole, in doubt).
pub(crate) async fn write_chunk<W: ChunkWrite>(attempts: &Attempts, table: &str, items: &[W]) -> Sent {
    let operation = W::OPERATION;
    let started = Instant::now();
    let mut refused = Vec::new();
    // The chunk's items still to write (indexes into `items`), and the slice resent.
    let mut pending: Vec<usize> = (0..items.len()).collect();
    let mut resend: Option<Vec<W>> = None;
    let mut in_doubt = vec![false; items.len()];
    let mut attempt = 0;
    loop {
        attempt += 1;
        let slice = resend.as_deref().unwrap_or(items);
        let resend_unstamped = attempts.resend_unstamped_puts();
        let idempotence = Idempotence::all(slice.iter().map(|w| w.idempotence(resend_unstamped)));
        let failures = attempts.run(operation, Some(table), idempotence, |t| W::send(t, table, slice)).await?;
        let mut retry: Vec<(usize, Error)> = Vec::new();
        for failure in failures {
            let Some(&item) = pending.get(failure.index) else { continue };
            in_doubt[item] |= failure.may_have_run;
            if failure.error.is_retryable() && may_resend(items[item].idempotence(resend_unstamped), in_doubt[item]) {
                retry.push((item, failure.error));
            } else {
                refused.push(Refused {
                    index: item,
                    row: items[item].row().clone(),
                    error: failure.error,
                    in_doubt: in_doubt[item],
                });
            }
        }
        let Some((_, first)) = retry.first() else { return Ok(refused) };
        match attempts.retry_after(attempt, started, first) {
            Some(after) => {
                metrics::retry(operation, first);
                tokio::time::sleep(after).await;
                pending = retry.iter().map(|(item, _)| *item).collect();
                resend = Some(pending.iter().map(|&i| items[i].clone()).collect());
            }
            None => {
                refused.extend(retry.into_iter().map(|(item, error)| Refused {
                    index: item,
                    row: items[item].row().clone(),
                    error,
                    in_doubt: in_doubt[item],
                }));
                return Ok(refused);
            }
        }
    }
}

/// Whether a write that failed with a retryable error may be sent again: not if it is
/// not idempotent and an attempt of it may have run.
fn may_resend(idempotence: Idempotence, may_have_run: bool) -> bool {
    match idempotence {
        Idempotence::Idempotent => true,
        // Batches carry puts and deletes only; a write that is not plainly idempotent
        // is kept from a second run.
        Idempotence::DedupedByNonce | Idempotence::NotIdempotent => !may_have_run,
    }
}

/// Sends the chunks, at most `concurrency` at once, in order, each only after the
/// chunks it waits for are confirmed. After a failure (an error, or items refused)
/// nothing more is sent and the calls in flight are awaited. Returns each chunk's
/// outcome; `None` for a chunk never sent.
pub(crate) async fn send_chunks<F, Fut>(chunks: &[Chunk], concurrency: usize, send: F) -> Vec<Option<Sent>>
where
    F: Fn(usize) -> Fut,
    Fut: Future<Output = Sent>,
{
    let concurrency = concurrency.max(1);
    let mut outcomes: Vec<Option<Sent>> = (0..chunks.len()).map(|_| None).collect();
    let mut confirmed = vec![false; chunks.len()];
    let mut in_flight = FuturesUnordered::new();
    let (mut next, mut failed) = (0, false);
    loop {
        while !failed
            && next < chunks.len()
            && in_flight.len() < concurrency
            && chunks[next].after.iter().all(|&earlier| confirmed[earlier])
        {
            let index = next;
            let call = send(index);
            in_flight.push(async move { (index, call.await) });
            next += 1;
        }
        // Nothing in flight: every chunk was sent, or a failure stopped the sending
        // (a chunk's earlier chunks are all sent before it, so none can be waiting).
        let Some((index, outcome)) = in_flight.next().await else { break };
        match &outcome {
            Ok(refused) if refused.is_empty() => confirmed[index] = true,
            Ok(_) | Err(_) => failed = true,
        }
        outcomes[index] = Some(outcome);
    }
    outcomes
}

/// The result of a batch from its chunks' outcomes: the number of items written, or
/// [`Error::BatchFailed`] with `confirmed` = the items of the chunks that succeeded
/// (plus the applied items of a chunk that refused some), `not_confirmed` = the rows
/// in doubt first (chunks whose call failed after it may have reached HBase), then
/// every other row not known to be written, in order, and `source` = the failure of
/// the earliest failed chunk. `row` gives item `i`'s row key.
pub(crate) fn settle(chunks: &[Chunk], outcomes: Vec<Option<Sent>>, row: impl Fn(usize) -> Bytes) -> Result<usize> {
    let mut confirmed = 0;
    let mut in_doubt_rows = Vec::new();
    let mut unwritten = Vec::new();
    let mut source = None;
    for (chunk, outcome) in chunks.iter().zip(outcomes) {
        let items = chunk.items.clone();
        match outcome {
            Some(Ok(refused)) if refused.is_empty() => confirmed += items.len(),
            Some(Ok(refused)) => {
                // HBase named the items it could not apply; the rest were applied.
                confirmed += items.len().saturating_sub(refused.len());
                for item in refused {
                    if item.in_doubt {
                        in_doubt_rows.push(item.row);
                    } else {
                        unwritten.push(item.row);
                    }
                    source.get_or_insert(item.error);
                }
            }
            Some(Err(error)) => {
                let rows = items.map(&row);
                if chunk_in_doubt(&error) {
                    in_doubt_rows.extend(rows);
                } else {
                    unwritten.extend(rows);
                }
                source.get_or_insert(error);
            }
            None => unwritten.extend(items.map(&row)),
        }
    }
    match source {
        None => Ok(confirmed),
        Some(source) => {
            let in_doubt = in_doubt_rows.len();
            in_doubt_rows.extend(unwritten);
            Err(Error::BatchFailed { confirmed, not_confirmed: in_doubt_rows, in_doubt, source: Box::new(source) })
        }
    }
}

/// Whether the rows of a failed chunk may have been written: not when HBase refused
/// the call before applying anything (a missing table, a bad argument), otherwise yes
/// (it is applied row by row, so a chunk failing on one row's unknown family still
/// writes the others).
pub(crate) fn chunk_in_doubt(error: &Error) -> bool {
    match error {
        // Nothing can have been written to a missing table, or by a call never built.
        Error::TableNotFound { .. } | Error::InvalidInput(_) | Error::ClientClosed => false,
        // Any attempt may have reached HBase before the last failure.
        Error::NamespaceNotFound { .. }
        | Error::AlreadyExists { .. }
        | Error::NoSuchColumnFamily { .. }
        | Error::ScannerExpired { .. }
        | Error::IllegalArgument { .. }
        | Error::Server { .. }
        | Error::Busy { .. }
        | Error::Transport { .. }
        | Error::Protocol { .. }
        | Error::DroppedBeforeReply { .. }
        | Error::Timeout { .. }
        | Error::Unreachable { .. }
        | Error::ServerInternal { .. }
        | Error::WriteOutcomeUnknown { .. }
        | Error::ScanIntegrity { .. }
        | Error::BatchFailed { .. } => true,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use crate::operation::Operation;

    use tokio::sync::oneshot;

    use super::*;

    fn plan_rows(rows: &[&'static str], size: usize) -> Vec<Chunk> {
        plan(rows.len(), size, |i| rows[i].as_bytes())
    }

    fn row_of<'a>(rows: &'a [&'static str]) -> impl Fn(usize) -> Bytes + 'a {
        move |i| Bytes::from_static(rows[i].as_bytes())
    }

    fn failure() -> Error {
        Error::NoSuchColumnFamily { message: "nope".into() }
    }

    #[test]
    fn chunks_wait_only_for_the_earlier_chunks_sharing_a_row() {
        let rows = ["a", "b", "c", "d", "a", "e", "f", "b", "c", "g"];
        let chunks = plan_rows(&rows, 2);
        let items: Vec<_> = chunks.iter().map(|c| c.items.clone()).collect();
        assert_eq!(items, vec![0..2, 2..4, 4..6, 6..8, 8..10]);
        let after: Vec<_> = chunks.iter().map(|c| c.after.clone()).collect();
        // "a" again in chunk 2 (after 0); "b" in chunk 3 (after 0); "c" in 4 (after 1).
        assert_eq!(after, vec![vec![], vec![], vec![0], vec![0], vec![1]]);
        // A row thrice: each chunk waits for the previous writer only.
        let chunks = plan_rows(&["x", "y", "x", "z", "x"], 1);
        let after: Vec<_> = chunks.iter().map(|c| c.after.clone()).collect();
        assert_eq!(after, vec![vec![], vec![], vec![0], vec![], vec![2]]);
        // One chunk, a row twice inside it: nothing to wait for; size 0 acts as 1.
        assert_eq!(plan_rows(&["x", "x"], 5), vec![Chunk { items: 0..2, after: vec![] }]);
        assert_eq!(plan_rows(&["x", "y"], 0).len(), 2);
        assert!(plan_rows(&[], 3).is_empty());
    }

    /// Chunks whose calls end when the test says: `finish(i, ok)` ends call `i`.
    struct Scripted {
        started: Arc<Mutex<Vec<usize>>>,
        gates: Vec<Option<oneshot::Sender<bool>>>,
        run: tokio::task::JoinHandle<Vec<Option<Sent>>>,
    }

    impl Scripted {
        async fn start(chunks: Vec<Chunk>, concurrency: usize) -> Scripted {
            let started = Arc::new(Mutex::new(Vec::new()));
            let (mut gates, mut waits) = (Vec::new(), Vec::new());
            for _ in &chunks {
                let (tx, rx) = oneshot::channel::<bool>();
                gates.push(Some(tx));
                waits.push(Mutex::new(Some(rx)));
            }
            let log = Arc::clone(&started);
            let run = tokio::spawn(async move {
                send_chunks(&chunks, concurrency, |i| {
                    log.lock().unwrap().push(i);
                    let wait = waits[i].lock().unwrap().take().expect("chunk sent twice");
                    async move {
                        match wait.await {
                            Ok(true) => Ok(Vec::new()),
                            _ => Err(failure()),
                        }
                    }
                })
                .await
            });
            let scripted = Scripted { started, gates, run };
            scripted.idle().await;
            scripted
        }

        /// Lets the scheduler run until it waits for a call to end.
        async fn idle(&self) {
            for _ in 0..20 {
                tokio::task::yield_now().await;
            }
        }

        async fn finish(&mut self, chunk: usize, ok: bool) {
            let gate = self.gates[chunk].take().expect("chunk finished twice");
            gate.send(ok).expect("chunk was not sent");
            self.idle().await;
        }

        fn started(&self) -> Vec<usize> {
            self.started.lock().unwrap().clone()
        }
    }

    fn all_confirmed(outcomes: &[Option<Sent>]) -> bool {
        outcomes.iter().all(|o| matches!(o, Some(Ok(r)) if r.is_empty()))
    }

    #[tokio::test]
    async fn chunks_run_side_by_side_up_to_the_bound() {
        let chunks = plan_rows(&["a", "b", "c", "d", "e"], 1);
        let mut s = Scripted::start(chunks.clone(), 3).await;
        assert_eq!(s.started(), [0, 1, 2]);
        // The fourth is sent as soon as any of the three ends, not the first.
        s.finish(1, true).await;
        assert_eq!(s.started(), [0, 1, 2, 3]);
        for i in [0, 2, 3] {
            s.finish(i, true).await;
        }
        assert_eq!(s.started(), [0, 1, 2, 3, 4]);
        s.finish(4, true).await;
        assert!(all_confirmed(&s.run.await.unwrap()));
        // With a bound of one, strictly one after the other.
        let mut s = Scripted::start(chunks, 1).await;
        for i in 0..5 {
            assert_eq!(s.started(), (0..=i).collect::<Vec<_>>());
            s.finish(i, true).await;
        }
        assert!(all_confirmed(&s.run.await.unwrap()));
    }

    #[tokio::test]
    async fn a_chunk_sharing_a_row_waits_for_the_earlier_one() {
        // Chunk 2 rewrites row "a" of chunk 0; chunk 3 has a row of its own.
        let chunks = plan_rows(&["a", "b", "a", "c"], 1);
        let mut s = Scripted::start(chunks, 4).await;
        assert_eq!(s.started(), [0, 1]);
        s.finish(1, true).await;
        // Still waiting for chunk 0 (in order: chunk 3 waits behind chunk 2).
        assert_eq!(s.started(), [0, 1]);
        s.finish(0, true).await;
        assert_eq!(s.started(), [0, 1, 2, 3]);
        s.finish(3, true).await;
        s.finish(2, true).await;
        assert!(all_confirmed(&s.run.await.unwrap()));
    }

    #[tokio::test]
    async fn after_a_failure_nothing_is_sent_and_the_calls_in_flight_finish() {
        let rows = ["a", "b", "c", "d", "e", "f", "g", "h"];
        let chunks = plan_rows(&rows, 2);
        let mut s = Scripted::start(chunks.clone(), 3).await;
        assert_eq!(s.started(), [0, 1, 2]);
        s.finish(1, false).await;
        // Chunk 3 is never sent; 0 and 2 are awaited.
        assert_eq!(s.started(), [0, 1, 2]);
        assert!(!s.run.is_finished());
        s.finish(2, true).await;
        assert!(!s.run.is_finished());
        s.finish(0, true).await;
        let outcomes = s.run.await.unwrap();
        assert_eq!(s.started.lock().unwrap().len(), 3);
        assert!(matches!(outcomes[1], Some(Err(_))) && outcomes[3].is_none());
        match settle(&chunks, outcomes, row_of(&rows)) {
            Err(Error::BatchFailed { confirmed, not_confirmed, in_doubt, source }) => {
                // Chunks 0 and 2 finished: confirmed, though 2 comes after the failure.
                assert_eq!(confirmed, 4);
                assert_eq!(in_doubt, 2);
                assert_eq!(not_confirmed, ["c", "d", "g", "h"]);
                assert!(matches!(*source, Error::NoSuchColumnFamily { .. }));
            }
            other => panic!("expected BatchFailed, got {other:?}"),
        }
    }

    #[test]
    fn settle_counts_every_kind_of_outcome() {
        let rows = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
        let chunks = plan_rows(&rows, 2);
        let missing = Error::TableNotFound { table: "t".into() };
        let outcomes = vec![
            Some(Ok(Vec::new())), // a b: written
            Some(Err(missing)),   // c d: refused before writing
            // e f: f refused by HBase, e written
            Some(Ok(vec![Refused { index: 1, row: Bytes::from_static(b"f"), error: failure(), in_doubt: false }])),
            Some(Err(failure())), // g h: may have been written
            None,                 // i j: never sent
        ];
        match settle(&chunks, outcomes, row_of(&rows)) {
            Err(Error::BatchFailed { confirmed, not_confirmed, in_doubt, source }) => {
                assert_eq!(confirmed, 3);
                assert_eq!(in_doubt, 2);
                assert_eq!(not_confirmed, ["g", "h", "c", "d", "f", "i", "j"]);
                // The earliest failed chunk's error is the source.
                assert!(matches!(*source, Error::TableNotFound { .. }));
            }
            other => panic!("expected BatchFailed, got {other:?}"),
        }
        let all_good = (0..5).map(|_| Some(Ok(Vec::new()))).collect();
        assert_eq!(settle(&chunks, all_good, row_of(&rows)).unwrap(), 10);
    }

    #[test]
    fn only_refusals_before_writing_leave_a_chunk_out_of_doubt() {
        assert!(!chunk_in_doubt(&Error::TableNotFound { table: "t".into() }));
        assert!(!chunk_in_doubt(&Error::ClientClosed));
        assert!(chunk_in_doubt(&failure()));
        assert!(chunk_in_doubt(&Error::Timeout { operation: Operation::PutMany, after: Duration::from_secs(1) }));
    }
}
