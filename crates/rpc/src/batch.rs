//! Batches: gets and writes grouped by region server, one `Multi` call per server per
//! round, in parallel; actions that fail because their region moved are relocated and
//! sent again until the operation's deadline.
//!
//! Writes travel as HBase's Java client sends them in a `Multi`: a `MutationProto`
//! without data per write, and every write's cells in the request's cell block, in
//! the order of the actions (see [`WriteCells`]).

use std::time::Instant;

use bytes::{Bytes, BytesMut};

use crate::builder::RpcClient;
use crate::cells::{row_result, CellCursor, RowResult};
use crate::read::Get;
use basalt_rpc_protocol::exception::{RemoteException, RetryHint};

use crate::error::{RemoteError, RpcError};
use crate::mutation::{write_action, Mutation, WriteCells, WriteKind};
use crate::pb;
use crate::region::RegionLocation;
use crate::send_buffers::SendBuffers;
use crate::validate::validate_row;
use basalt_rpc_protocol::multi::MultiWriter;
use basalt_rpc_protocol::multi_reply::{ActionAnswer, MultiReply};
use basalt_rpc_protocol::FrameError;

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

/// What the batch needs of one action: its row, whether it may run twice, and its
/// message (a write's cells go to the request's cell block).
trait Action: Sync {
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
}

impl Action for BatchAction {
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
}

/// A caller's write, as an action.
struct Write<'a, W>(&'a W);

impl<W: WriteCells> Action for Write<'_, W> {
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
    run_batch(client, table, &actions).await?.into_iter().collect()
}

/// Runs a batch of actions on `table` for [`RpcClient::batch`].
pub(crate) async fn run_actions(
    client: &RpcClient,
    table: &str,
    actions: &[BatchAction],
) -> Result<BatchResults, RpcError> {
    run_batch(client, table, actions).await
}

/// Applies the caller's writes to `table` for [`RpcClient::write_batch`].
pub(crate) async fn write_batch<W: WriteCells>(
    client: &RpcClient,
    table: &str,
    writes: &[W],
) -> Result<Vec<Result<(), RpcError>>, RpcError> {
    let actions: Vec<Write<'_, W>> = writes.iter().map(Write).collect();
    let outcomes = run_batch(client, table, &actions).await?;
    Ok(outcomes.into_iter().map(|outcome| outcome.map(|_| ())).collect())
}

/// Runs `actions` on `table`: one `Multi` call per region server per round, until each
/// action has an outcome or the retry rule gives up.
async fn run_batch<A: Action>(client: &RpcClient, table: &str, actions: &[A]) -> Result<BatchResults, RpcError> {
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
    let mut outcomes: Vec<Option<Result<RowResult, RpcError>>> = (0..actions.len()).map(|_| None).collect();
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
                        outcomes[index] = Some(Err(error));
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
        for answers in futures::future::join_all(calls).await {
            for (index, outcome) in answers {
                let error = match outcome {
                    Ok(row) => {
                        outcomes[index] = Some(Ok(row));
                        continue;
                    }
                    Err(error) => error,
                };
                attempts[index] += 1;
                if error.is_retryable() && (!error.may_have_run() || resendable[index]) {
                    retry.push((index, error));
                } else {
                    outcomes[index] = Some(Err(RpcError::after_attempts(attempts[index], error, ran[index], false)));
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
                    outcomes[index] = Some(Err(error));
                    waiting.push(index);
                }
                None => outcomes[index] = Some(Err(RpcError::after_attempts(attempts[index], error, ran[index], true))),
            }
        }
        if let (Some(pause), false) = (pause, waiting.is_empty()) {
            tokio::time::sleep(pause).await;
        }
    }
    Ok(outcomes
        .into_iter()
        .map(|outcome| outcome.unwrap_or_else(|| Err(RpcError::InvalidArgument("an action was never sent".into()))))
        .collect())
}

/// One `Multi` call to `server` with an action list per region; the outcome of each
/// action index. The writes' cells go in one cell block, in the actions' order.
async fn multi_on_server<A: Action>(
    client: &RpcClient,
    server: String,
    regions: Vec<RegionActions>,
    actions: &[A],
    nonces: &[Option<u64>],
) -> Vec<(usize, Result<RowResult, RpcError>)> {
    let mut outcomes = Vec::new();
    let buffers = &client.inner.send_buffers;
    let (request, cells, sent) = encode_multi(regions, actions, nonces, buffers, &mut outcomes);
    if sent.is_empty() {
        buffers.give_back(cells);
        return outcomes;
    }
    let request = request.finish(Some(client.nonce_group()));
    let all = |outcomes: &mut Vec<(usize, Result<RowResult, RpcError>)>, error: RpcError| {
        outcomes.extend(sent.iter().flat_map(|(_, indexes)| indexes.iter().map(|&i| (i, Err(error.clone())))));
    };
    let reply = client.call_with_block(&server, "Multi", &request, cells.clone()).await;
    // Sent (or failed): the blocks' buffers serve the next call once the connection has
    // let go of them.
    buffers.give_back(cells);
    let reply = match reply {
        Ok(reply) => reply,
        Err(error) => {
            for (region, _) in &sent {
                client.on_error(region, &error);
            }
            all(&mut outcomes, error);
            return outcomes;
        }
    };
    drop(request);
    let protocol = |reason: String| RpcError::Protocol { addr: server.clone(), reason };
    // Read in place: a write's empty result is never decoded (see `multi_reply`).
    let answers = match MultiReply::read(reply.param.clone()) {
        Ok(answers) => answers,
        Err(error) => {
            all(&mut outcomes, protocol(format!("undecodable response: {error}")));
            return outcomes;
        }
    };
    if answers.regions.len() != sent.len() {
        let reason = format!("{} region results for {} regions", answers.regions.len(), sent.len());
        all(&mut outcomes, protocol(reason));
        return outcomes;
    }
    let mut reader = CellCursor::new(reply.cell_block.clone());
    outcomes.reserve(sent.iter().map(|(_, indexes)| indexes.len()).sum());
    for ((region, indexes), answer) in sent.iter().zip(&answers.regions) {
        let region_error = match answers.region_exception(answer) {
            Ok(None) => None,
            Ok(Some(exception)) => {
                let error = remote_error(&server, &exception);
                client.on_error(region, &error);
                Some(error)
            }
            Err(error) => Some(protocol(format!("undecodable region exception: {error}"))),
        };
        if let Some(error) = region_error {
            outcomes.extend(indexes.iter().map(|&i| (i, Err(error.clone()))));
            continue;
        }
        let mut answered = vec![false; indexes.len()];
        for item in &answer.actions {
            // The region's indexes are ascending (`run_batch` sorts them).
            let Some(position) = item.index.and_then(|i| indexes.binary_search(&(i as usize)).ok()) else {
                continue;
            };
            if std::mem::replace(&mut answered[position], true) {
                continue;
            }
            let outcome = action_outcome(client, &server, region, &answers, item, &mut reader);
            outcomes.push((indexes[position], outcome));
        }
        for (position, done) in answered.into_iter().enumerate() {
            if !done {
                let reason = "the server did not answer this action".to_owned();
                outcomes.push((indexes[position], Err(RpcError::Protocol { addr: server.clone(), reason })));
            }
        }
    }
    outcomes
}

/// One action's outcome from its answer: its exception, or its result (a write's empty
/// result is not decoded), its cells taken from the reply's cell block.
fn action_outcome(
    client: &RpcClient,
    server: &str,
    region: &RegionLocation,
    reply: &MultiReply,
    answer: &ActionAnswer,
    reader: &mut CellCursor,
) -> Result<RowResult, RpcError> {
    let protocol = |what: &str, error: FrameError| RpcError::Protocol {
        addr: server.to_owned(),
        reason: format!("undecodable action {what}: {error}"),
    };
    if answer.has_exception() {
        if let Some(exception) = reply.action_exception(answer).map_err(|e| protocol("exception", e))? {
            let error = remote_error(server, &exception);
            client.on_error(region, &error);
            return Err(error);
        }
    }
    if !answer.has_result_fields() {
        // No result, or a write's empty one: no cells.
        return Ok(RowResult::default());
    }
    match reply.result(answer).map_err(|e| protocol("result", e))? {
        Some(result) => row_result(server, &result, reader),
        None => Ok(RowResult::default()),
    }
}

/// The `Multi` request of one server's regions, its cell block (one piece per region),
/// and the actions it holds per region (an action refused by its encoder gets its
/// outcome in `outcomes` instead; a region left without actions is left out).
///
/// The actions are encoded in the caller's order, each region's into a part of its own
/// (the caller's rows are read in the order they lie in memory, which the hardware
/// prefetches; rows spread over many regions would otherwise be read in strides). The
/// request then lists the regions' actions region by region, and the cell block is the
/// regions' pieces in the same order, sent one after the other without being joined.
fn encode_multi<A: Action>(
    regions: Vec<RegionActions>,
    actions: &[A],
    nonces: &[Option<u64>],
    buffers: &SendBuffers,
    outcomes: &mut Vec<(usize, Result<RowResult, RpcError>)>,
) -> (MultiWriter, Vec<Bytes>, Vec<RegionActions>) {
    let mut parts: Vec<(MultiWriter, BytesMut, Vec<usize>)> = regions
        .iter()
        .map(|(region, indexes)| {
            // A write's action takes its row and some twenty bytes more.
            let actions_len = indexes.iter().map(|&i| actions[i].row().len() + 20).sum();
            let mut request = MultiWriter::with_capacity(actions_len);
            request.region(&region.region_name);
            let hint = indexes.iter().map(|&i| actions[i].cells_len_hint()).sum();
            (request, buffers.take(hint), Vec::with_capacity(indexes.len()))
        })
        .collect();
    for (index, part) in callers_order(&regions) {
        let (request, cells, kept) = &mut parts[part];
        // `run_batch` checked that every index fits in a u32.
        match actions[index].encode(index as u32, nonces[index], request, cells) {
            Ok(()) => kept.push(index),
            // Refused before anything was sent.
            Err(error) => outcomes.push((index, Err(error))),
        }
    }
    let mut request = MultiWriter::new();
    request.reserve(parts.iter().map(|(part, _, _)| part.len() + 64).sum());
    let mut cells = Vec::with_capacity(parts.len());
    let mut sent: Vec<RegionActions> = Vec::with_capacity(regions.len());
    for ((region, _), (part, block, kept)) in regions.into_iter().zip(parts) {
        // A region whose every action was refused is left out of the request.
        if kept.is_empty() {
            buffers.keep(block);
            continue;
        }
        request.append(part);
        match block.is_empty() {
            true => buffers.keep(block),
            false => cells.push(block.freeze()),
        }
        sent.push((region, kept));
    }
    (request, cells, sent)
}

/// Every `(action index, region)` of `regions` (each region's indexes ascending), in
/// the order of the indexes. Indexes that fill much of their span are placed in a
/// table (no sort); sparse ones are sorted.
fn callers_order(regions: &[RegionActions]) -> Vec<(usize, usize)> {
    let all = || regions.iter().enumerate().flat_map(|(part, (_, indexes))| indexes.iter().map(move |&i| (i, part)));
    let count: usize = regions.iter().map(|(_, indexes)| indexes.len()).sum();
    let (low, high) = all().fold((usize::MAX, 0), |(low, high), (i, _)| (low.min(i), high.max(i)));
    if count == 0 {
        return Vec::new();
    }
    let span = high - low + 1;
    if span <= count.saturating_mul(4) {
        // Region of each index in the span, plus one (0: none of these regions').
        let mut table = vec![0usize; span];
        for (i, part) in all() {
            table[i - low] = part + 1;
        }
        let placed = table.iter().enumerate().filter(|(_, part)| **part > 0);
        placed.map(|(offset, part)| (low + offset, part - 1)).collect()
    } else {
        let mut order: Vec<(usize, usize)> = all().collect();
        order.sort_unstable();
        order
    }
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
    fn actions_encoded_in_the_callers_order_are_sent_region_by_region() {
        use prost::Message;
        let put = |row: &str, value: &str| {
            BatchAction::Mutate(Mutation::put(row.to_owned()).column("f", "q", value.to_owned()))
        };
        // Rows alternate between two regions; action 2 is refused (no family).
        let actions = vec![
            put("a1", "v0"),
            put("m1", "v1"),
            BatchAction::Mutate(Mutation::put("a2").column("", "q", "x")),
            put("m2", "v3"),
            put("a3", "v4"),
        ];
        let regions = vec![(region("", "m", "s1:1"), vec![0, 2, 4]), (region("m", "", "s1:1"), vec![1, 3])];
        let mut outcomes = Vec::new();
        let buffers = SendBuffers::default();
        let (request, cells, sent) = encode_multi(regions, &actions, &[None; 5], &buffers, &mut outcomes);
        assert_eq!(outcomes.len(), 1);
        assert_eq!(outcomes[0].0, 2);
        let kept: Vec<Vec<usize>> = sent.iter().map(|(_, indexes)| indexes.clone()).collect();
        assert_eq!(kept, vec![vec![0, 4], vec![1, 3]]);
        let request = pb::MultiRequest::decode(request.finish(None).0).unwrap();
        let indexes: Vec<Vec<u32>> =
            request.region_action.iter().map(|r| r.action.iter().map(|a| a.index.unwrap()).collect()).collect();
        assert_eq!(indexes, vec![vec![0, 4], vec![1, 3]]);
        assert_eq!(cells.len(), 2, "one piece per region");
        let values: Vec<Vec<u8>> =
            CellCursor::new(cells.concat().into()).take(4).unwrap().iter().map(|cell| cell.value().to_vec()).collect();
        assert_eq!(values, vec![b"v0".to_vec(), b"v4".to_vec(), b"v1".to_vec(), b"v3".to_vec()]);
    }

    #[test]
    fn actions_are_taken_in_the_callers_order_dense_or_sparse() {
        let regions = |lists: &[&[usize]]| -> Vec<RegionActions> {
            lists.iter().map(|indexes| (region("", "", "s1:1"), indexes.to_vec())).collect()
        };
        // Dense: a table, no sort.
        let dense = regions(&[&[0, 3, 4], &[1, 2, 5]]);
        assert_eq!(callers_order(&dense), vec![(0, 0), (1, 1), (2, 1), (3, 0), (4, 0), (5, 1)]);
        // Sparse: sorted.
        let sparse = regions(&[&[7, 100_000], &[3]]);
        assert_eq!(callers_order(&sparse), vec![(3, 1), (7, 0), (100_000, 0)]);
        assert!(callers_order(&regions(&[&[], &[]])).is_empty());
    }

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
