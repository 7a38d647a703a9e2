//! Batches: gets and writes grouped by region server, one `Multi` call per server per
//! round, in parallel; actions that fail because their region moved are relocated and
//! sent again until the operation's deadline.
//!
//! Writes travel as HBase's Java client sends them in a `Multi`: a `MutationProto`
//! without data per write, and every write's cells in the request's cell block, in
//! the order of the actions (see [`WriteCells`]).

use std::time::Instant;

mod call;

use bytes::{Bytes, BytesMut};

use crate::builder::RpcClient;
use crate::cells::{CellCursor, RowResult};
use crate::read::Get;
use basalt_rpc_protocol::exception::{RemoteException, RetryHint};

use crate::error::{RemoteError, RpcError};
use crate::mutation::{write_action, Mutation, WriteCells, WriteKind};
use crate::pb;
use crate::region::RegionLocation;
use crate::validate::validate_row;
use basalt_rpc_protocol::multi::MultiWriter;
use basalt_rpc_protocol::multi_reply::ActionAnswer;
use call::{multi_on_server, AnswerContext};

/// One action of a batch.
#[derive(Debug, Clone, PartialEq)]
pub enum BatchAction {
    /// Read a row.
    Get(Get),
    /// Change a row.
    Mutate(Mutation),
}

/// The outcome of each action of a batch, in the order given.
pub type BatchResults = Vec<Result<RowResult, RpcError>>;

/// What the batch needs of one action: its row, whether it may run twice, its message
/// (a write's cells go to the request's cell block), and what its answer gives back.
trait Action: Sync {
    /// What a successful action gives back: a row for a read (or an action of a mixed
    /// batch), nothing for a caller's write.
    type Answer: Send;
    fn row(&self) -> &Bytes;
    fn check(&self) -> Result<(), RpcError>;
    /// Whether it may be applied twice without changing the outcome.
    fn is_idempotent(&self) -> bool;
    /// Whether it is sent with a nonce (increments and appends).
    fn needs_nonce(&self) -> bool;
    /// The nonce the caller drew for the action, if any.
    fn given_nonce(&self) -> Option<u64> {
        None
    }
    fn cells_len_hint(&self) -> usize;
    fn encode(
        &self,
        index: u32,
        nonce: Option<u64>,
        request: &mut MultiWriter,
        cells: &mut BytesMut,
    ) -> Result<(), RpcError>;
    /// The action's outcome from its answer in the reply (result cells, if any, are
    /// taken from `cells` in the order of the actions).
    fn answer(
        reply: &AnswerContext<'_>,
        answer: &ActionAnswer,
        cells: &mut CellCursor,
    ) -> Result<Self::Answer, RpcError>;
}

impl Action for BatchAction {
    type Answer = RowResult;

    fn row(&self) -> &Bytes {
        match self {
            BatchAction::Get(get) => get.row(),
            BatchAction::Mutate(mutation) => mutation.row(),
        }
    }

    fn check(&self) -> Result<(), RpcError> {
        validate_row(self.row())?;
        match self {
            BatchAction::Get(get) => get.check_read(),
            BatchAction::Mutate(_) => Ok(()),
        }
    }

    fn is_idempotent(&self) -> bool {
        match self {
            BatchAction::Get(_) => true,
            BatchAction::Mutate(mutation) => mutation.is_idempotent(),
        }
    }

    fn needs_nonce(&self) -> bool {
        match self {
            BatchAction::Get(_) => false,
            BatchAction::Mutate(mutation) => mutation.needs_nonce(),
        }
    }

    fn given_nonce(&self) -> Option<u64> {
        match self {
            BatchAction::Get(_) => None,
            BatchAction::Mutate(mutation) => mutation.given_nonce(),
        }
    }

    fn cells_len_hint(&self) -> usize {
        match self {
            BatchAction::Get(_) => 0,
            BatchAction::Mutate(mutation) => mutation.cells_len_hint(),
        }
    }

    fn encode(
        &self,
        index: u32,
        nonce: Option<u64>,
        request: &mut MultiWriter,
        cells: &mut BytesMut,
    ) -> Result<(), RpcError> {
        match self {
            BatchAction::Get(get) => {
                request.get(index, &get.to_proto());
                Ok(())
            }
            BatchAction::Mutate(mutation) => write_action(mutation, index, nonce, request, cells),
        }
    }

    fn answer(reply: &AnswerContext<'_>, answer: &ActionAnswer, cells: &mut CellCursor) -> Result<RowResult, RpcError> {
        reply.row(answer, cells)
    }
}

/// A caller's write, as an action.
struct Write<'a, W>(&'a W);

impl<W: WriteCells> Action for Write<'_, W> {
    type Answer = ();

    fn row(&self) -> &Bytes {
        self.0.row()
    }

    fn check(&self) -> Result<(), RpcError> {
        validate_row(self.0.row())
    }

    fn is_idempotent(&self) -> bool {
        self.0.is_idempotent()
    }

    fn needs_nonce(&self) -> bool {
        match self.0.kind() {
            WriteKind::Increment | WriteKind::Append => true,
            WriteKind::Put | WriteKind::Delete => false,
        }
    }

    fn cells_len_hint(&self) -> usize {
        self.0.cells_len_hint()
    }

    fn encode(
        &self,
        index: u32,
        nonce: Option<u64>,
        request: &mut MultiWriter,
        cells: &mut BytesMut,
    ) -> Result<(), RpcError> {
        write_action(self.0, index, nonce, request, cells)
    }

    /// Only whether the write failed: a caller's write gives nothing back (an
    /// increment's or append's result, if the server sends one, is not read).
    fn answer(reply: &AnswerContext<'_>, answer: &ActionAnswer, _cells: &mut CellCursor) -> Result<(), RpcError> {
        reply.exception(answer)
    }
}

/// A region and the indexes of the actions sent to it.
type RegionActions = (RegionLocation, Vec<usize>);

/// The regions of one round and the actions each holds.
#[derive(Default)]
struct Grouping {
    regions: Vec<RegionActions>,
    /// Each region's start and end keys (each with its first 8 bytes as a number) and
    /// index into `regions`, ordered by start key: a row is placed by binary search over
    /// these alone, so a round costs one cache lookup per region, not one per row.
    by_start: Vec<RegionBounds>,
}

/// A region's bounds as [`Grouping::find`] reads them.
struct RegionBounds {
    start: (KeyPrefix, Bytes),
    end: (KeyPrefix, Bytes),
    index: usize,
}

/// A key's first 8 bytes as a big-endian number (zeros past its end). Two keys whose
/// prefixes differ are ordered as their prefixes are, so most comparisons of a binary
/// search are one integer comparison; equal prefixes fall back to the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct KeyPrefix(u64);

impl KeyPrefix {
    fn of(key: &[u8]) -> KeyPrefix {
        let mut bytes = [0u8; 8];
        let n = key.len().min(8);
        bytes[..n].copy_from_slice(&key[..n]);
        KeyPrefix(u64::from_be_bytes(bytes))
    }
}

/// Whether `a <= b`, `a` and `b` with their prefixes.
fn at_or_before((a_prefix, a): (KeyPrefix, &[u8]), (b_prefix, b): (KeyPrefix, &[u8])) -> bool {
    match a_prefix.cmp(&b_prefix) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => a <= b,
    }
}

impl Grouping {
    /// The region already found this round that holds `row`: the one with the greatest
    /// start key at or before it, if it ends after it.
    fn find(&self, row: &[u8]) -> Option<usize> {
        let key = (KeyPrefix::of(row), row);
        let after = self.by_start.partition_point(|b| at_or_before((b.start.0, &b.start.1), key));
        let bounds = &self.by_start[after.checked_sub(1)?];
        let (end_prefix, end) = &bounds.end;
        // Before the end: the end is not at or before the row.
        (end.is_empty() || !at_or_before((*end_prefix, end), key)).then_some(bounds.index)
    }

    /// Adds a region found in the cache or meta; its index.
    fn add(&mut self, region: RegionLocation) -> usize {
        let start = (KeyPrefix::of(&region.start_key), region.start_key.as_ref());
        let at = self.by_start.partition_point(|b| at_or_before((b.start.0, &b.start.1), start));
        let index = self.regions.len();
        let bounds = RegionBounds {
            start: (start.0, region.start_key.clone()),
            end: (KeyPrefix::of(&region.end_key), region.end_key.clone()),
            index,
        };
        self.by_start.insert(at, bounds);
        self.regions.push((region, Vec::new()));
        index
    }

    /// The regions grouped by server (ordered by server, then region name: stable
    /// requests).
    fn into_servers(mut self) -> Vec<(String, Vec<RegionActions>)> {
        self.regions.sort_by(|a, b| (&a.0.server, &a.0.region_name).cmp(&(&b.0.server, &b.0.region_name)));
        let mut servers: Vec<(String, Vec<RegionActions>)> = Vec::new();
        for (region, indexes) in self.regions {
            match servers.last_mut() {
                Some((server, regions)) if *server == region.server => regions.push((region, indexes)),
                Some(_) | None => servers.push((region.server.clone(), vec![(region, indexes)])),
            }
        }
        servers
    }
}

/// Reads several rows of `table` for [`RpcClient::multi_get`].
pub(crate) async fn multi_get(client: &RpcClient, table: &str, gets: &[Get]) -> Result<Vec<RowResult>, RpcError> {
    let actions: Vec<BatchAction> = gets.iter().cloned().map(BatchAction::Get).collect();
    run_batch(client, table, &actions).await?.into_results().into_iter().collect()
}

/// Runs a batch of actions on `table` for [`RpcClient::batch`].
pub(crate) async fn run_actions(
    client: &RpcClient,
    table: &str,
    actions: &[BatchAction],
) -> Result<BatchResults, RpcError> {
    Ok(run_batch(client, table, actions).await?.into_results())
}

/// Applies the caller's writes to `table` for [`RpcClient::write_batch`]: the writes
/// that failed, by index.
pub(crate) async fn write_batch<W: WriteCells>(
    client: &RpcClient,
    table: &str,
    writes: &[W],
) -> Result<Vec<(usize, RpcError)>, RpcError> {
    let actions: Vec<Write<'_, W>> = writes.iter().map(Write).collect();
    Ok(run_batch(client, table, &actions).await?.into_failures())
}

/// Each action's outcome once a batch has settled it: an answer per action that
/// succeeded, and the failures apart (rare, and an error is far larger than a write's
/// empty answer).
struct Settled<T> {
    answers: Vec<Option<T>>,
    failures: Vec<(usize, RpcError)>,
}

impl<T> Settled<T> {
    /// An outcome per action, in the actions' order.
    fn into_results(mut self) -> Vec<Result<T, RpcError>> {
        self.failures.sort_by_key(|(index, _)| *index);
        let mut failures = self.failures.into_iter().peekable();
        let mut results = Vec::with_capacity(self.answers.len());
        for (index, answer) in self.answers.into_iter().enumerate() {
            let failure = failures.next_if(|(failed, _)| *failed == index).map(|(_, error)| error);
            results.push(match (answer, failure) {
                (_, Some(error)) => Err(error),
                (Some(answer), None) => Ok(answer),
                (None, None) => Err(never_sent()),
            });
        }
        results
    }

    /// The actions that failed, by index (one that was never settled counts as failed).
    fn into_failures(mut self) -> Vec<(usize, RpcError)> {
        let answered = self.answers.iter().filter(|answer| answer.is_some()).count();
        if answered + self.failures.len() < self.answers.len() {
            let failed: std::collections::HashSet<usize> = self.failures.iter().map(|(index, _)| *index).collect();
            let unsettled = (0..self.answers.len()).filter(|i| self.answers[*i].is_none() && !failed.contains(i));
            let unsettled: Vec<(usize, RpcError)> = unsettled.map(|index| (index, never_sent())).collect();
            self.failures.extend(unsettled);
        }
        self.failures.sort_by_key(|(index, _)| *index);
        self.failures
    }
}

fn never_sent() -> RpcError {
    RpcError::InvalidArgument("an action was never sent".into())
}

/// Runs `actions` on `table`: one `Multi` call per region server per round, until each
/// action has an outcome or the retry rule gives up.
async fn run_batch<A: Action>(client: &RpcClient, table: &str, actions: &[A]) -> Result<Settled<A::Answer>, RpcError> {
    if u32::try_from(actions.len()).is_err() {
        return Err(RpcError::InvalidArgument(format!("{} actions in one batch", actions.len())));
    }
    for action in actions {
        action.check()?;
    }
    // One nonce per increment or append for the whole operation: a retry carries
    // the same one. Puts and deletes carry none.
    let nonces: Vec<Option<u64>> = actions
        .iter()
        .map(|action| action.needs_nonce().then(|| action.given_nonce().unwrap_or_else(|| client.new_nonce())))
        .collect();
    // Per action: whether an attempt that may have run may be sent again. Gets,
    // puts whose every cell has a timestamp and deletes of given versions may run
    // twice; increments and appends carry a nonce, so the server applies a retry
    // once (when it keeps nonces); a put on the server's clock would write one more
    // version and a delete of a column's newest version would delete one more, so
    // neither is resent once it may have run (unless the write says it may be, as
    // `Mutation::resend_unstamped` lets a put).
    let resendable: Vec<bool> = actions
        .iter()
        .zip(&nonces)
        .map(|(action, nonce)| match nonce {
            Some(_) => client.nonces_enabled(),
            None => action.is_idempotent(),
        })
        .collect();
    // Each action's answer once it succeeded; its error once it failed for good (an
    // action waiting for another round has neither).
    let mut settled = Settled { answers: (0..actions.len()).map(|_| None).collect(), failures: Vec::new() };
    // Per action: attempts made, and whether one may have run (its outcome is then
    // unknown whatever a later attempt says).
    let mut attempts = vec![0u32; actions.len()];
    let mut ran = vec![false; actions.len()];
    let mut waiting: Vec<usize> = (0..actions.len()).collect();
    let started = Instant::now();
    let mut round = 0;
    while !waiting.is_empty() {
        // In index order: each region's actions (and so the request) keep the
        // caller's order.
        waiting.sort_unstable();
        let mut grouping = Grouping::default();
        for &index in &waiting {
            let row = actions[index].row();
            let region = match grouping.find(row) {
                Some(region) => region,
                None => match client.locate(table, row).await {
                    Ok(region) => grouping.add(region),
                    Err(error) => {
                        let error = RpcError::after_attempts(attempts[index] + 1, error, ran[index], false);
                        settled.failures.push((index, error));
                        continue;
                    }
                },
            };
            grouping.regions[region].1.push(index);
        }
        let calls = grouping
            .into_servers()
            .into_iter()
            .map(|(server, regions)| multi_on_server(client, server, regions, actions, &nonces));
        // The actions that may be resent, each with its error; the round's pause
        // is the retry rule's answer for the error asking the longest wait.
        let mut retry: Vec<(usize, RpcError)> = Vec::new();
        for outcomes in futures::future::join_all(calls).await {
            for (index, answer) in outcomes.answered {
                settled.answers[index] = Some(answer);
            }
            for (index, error) in outcomes.failed {
                attempts[index] += 1;
                if error.is_retryable() && (!error.may_have_run() || resendable[index]) {
                    retry.push((index, error));
                } else {
                    settled.failures.push((index, RpcError::after_attempts(attempts[index], error, ran[index], false)));
                }
            }
        }
        round += 1;
        let asks_longest = retry.iter().map(|(_, error)| error).max_by_key(|error| Pause::after(error));
        let pause = asks_longest.and_then(|error| client.retry_after(round, started, error));
        waiting = Vec::with_capacity(retry.len());
        for (index, error) in retry {
            match pause {
                Some(_) => {
                    ran[index] |= error.may_have_run();
                    waiting.push(index);
                }
                None => {
                    let error = RpcError::after_attempts(attempts[index], error, ran[index], true);
                    settled.failures.push((index, error));
                }
            }
        }
        if let (Some(pause), false) = (pause, waiting.is_empty()) {
            tokio::time::sleep(pause).await;
        }
    }
    Ok(settled)
}

/// The wait a failed action asks for, ordered by length: the round's pause follows the
/// action asking the longest (the retry rule decides on its error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Pause {
    /// At once (the server said to retry immediately, or the result was too large).
    None,
    /// The client's back-off.
    Backoff,
    /// As long as the server said (a throttling quota's wait interval).
    Hinted(std::time::Duration),
}

impl Pause {
    /// The pause a failed action asks for.
    fn after(error: &RpcError) -> Pause {
        match crate::retry_hint(error) {
            RetryHint::Immediately => Pause::None,
            RetryHint::Backoff => Pause::Backoff,
            RetryHint::After(wait) => Pause::Hinted(wait),
        }
    }
}

/// An exception carried in a `NameBytesPair` (class name, stack trace), read as the
/// header's `ExceptionResponse` would be.
pub(crate) fn remote_error(server: &str, exception: &pb::NameBytesPair) -> RpcError {
    let response = pb::ExceptionResponse {
        exception_class_name: Some(exception.name.clone()),
        stack_trace: exception.value.as_deref().map(|trace| String::from_utf8_lossy(trace).into_owned()),
        ..Default::default()
    };
    RpcError::Remote(Box::new(RemoteError {
        server: server.to_owned(),
        exception: RemoteException::from_pb(&response),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::region::test_region as region;

    #[test]
    fn key_prefixes_order_keys_as_their_bytes_do() {
        let keys: [&[u8]; 12] = [
            b"",
            b"\0",
            b"\0\0",
            b"a",
            b"a\0",
            b"a\0\0\0\0\0\0\0\0",
            b"a\0\x01",
            b"abcdefgh",
            b"abcdefgh\0",
            b"abcdefghi",
            b"b",
            b"\xff",
        ];
        for a in keys {
            for b in keys {
                let got = at_or_before((KeyPrefix::of(a), a), (KeyPrefix::of(b), b));
                assert_eq!(got, a <= b, "{a:?} <= {b:?}");
            }
        }
    }

    #[test]
    fn rows_are_placed_among_the_regions_found_so_far() {
        type StartAndIndexes = (String, Vec<usize>);
        let mut grouping = Grouping::default();
        assert_eq!(grouping.find(b"a"), None);
        let middle = grouping.add(region("g", "p", "s2:1"));
        let first = grouping.add(region("", "g", "s1:1"));
        let last = grouping.add(region("p", "", "s1:1"));
        for (row, want) in [("a", first), ("g", middle), ("o", middle), ("p", last), ("zz", last), ("", first)] {
            assert_eq!(grouping.find(row.as_bytes()), Some(want), "{row}");
        }
        // A region not found yet is not guessed.
        let mut partial = Grouping::default();
        partial.add(region("g", "p", "s2:1"));
        assert_eq!(partial.find(b"a"), None);
        assert_eq!(partial.find(b"p"), None);
        assert_eq!(partial.find(b"h"), Some(0));
        for (index, row) in [(0, first), (1, last), (2, middle), (3, first)] {
            grouping.regions[row].1.push(index);
        }
        let servers = grouping.into_servers();
        let shape: Vec<(String, Vec<StartAndIndexes>)> = servers
            .into_iter()
            .map(|(server, regions)| {
                (
                    server,
                    regions.into_iter().map(|(r, i)| (String::from_utf8_lossy(&r.start_key).into_owned(), i)).collect(),
                )
            })
            .collect();
        assert_eq!(
            shape,
            vec![
                ("s1:1".to_owned(), vec![("".to_owned(), vec![0, 3]), ("p".to_owned(), vec![1])]),
                ("s2:1".to_owned(), vec![("g".to_owned(), vec![2])]),
            ]
        );
    }
}

/// The `Multi` request of a batch of writes to one region, for the `encode` benchmark
/// (`cargo bench -p basalt-rpc --bench encode --features bench-internals`); not part
/// of the API.
#[cfg(feature = "bench-internals")]
pub mod bench_internals {
    use super::*;

    /// Every value inside the message (`MutationProto.column_value`): how a single
    /// `Mutate` sends a write, and how a batch sent them before cell blocks.
    pub fn multi_inline(region_name: &Bytes, mutations: &[Mutation]) -> pb::MultiRequest {
        let action = mutations
            .iter()
            .enumerate()
            .map(|(i, m)| pb::Action { index: Some(i as u32), mutation: Some(m.to_proto(None)), ..Default::default() })
            .collect();
        multi(region_name, action)
    }

    /// Data-free mutations, their cells appended to `cells` (what a batch sends now).
    pub fn multi_cells<W: WriteCells>(
        region_name: &Bytes,
        writes: &[W],
        cells: &mut BytesMut,
    ) -> Result<basalt_rpc_protocol::multi::EncodedMessage, RpcError> {
        let mut request = MultiWriter::new();
        request.region(region_name);
        cells.reserve(writes.iter().map(WriteCells::cells_len_hint).sum());
        for (i, write) in writes.iter().enumerate() {
            write_action(write, i as u32, None, &mut request, cells)?;
        }
        Ok(request.finish(None))
    }

    fn multi(region_name: &Bytes, action: Vec<pb::Action>) -> pb::MultiRequest {
        let region = pb::RegionSpecifier {
            r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
            value: region_name.clone(),
        };
        pb::MultiRequest {
            region_action: vec![pb::RegionAction { region, atomic: None, action, condition: None }],
            ..Default::default()
        }
    }
}
