//! One `Multi` call of a batch round: the request for one region server (its regions'
//! actions, the writes' cells in one cell block), and each action's answer read from
//! the reply.
//!
//! What a call hands back is kept small: a batch's per-action state is read again after
//! every call, when other calls in flight have pushed it out of the cache, so the
//! actions that succeeded carry only what their kind answers (nothing for a caller's
//! write) and the failures are listed apart.

use bytes::{Bytes, BytesMut};

use super::{Action, RegionActions};
use crate::builder::RpcClient;
use crate::cells::{row_result, CellCursor, RowResult};
use crate::error::RpcError;
use crate::region::RegionLocation;
use crate::send_buffers::SendBuffers;
use basalt_rpc_protocol::multi::{multi_in_pieces, MultiWriter};
use basalt_rpc_protocol::multi_reply::{ActionAnswer, MultiReply};
use basalt_rpc_protocol::FrameError;

/// What one call settled: the actions answered, each with its answer, and the actions
/// that failed, each with its error. Every action sent is in one of the two.
pub(super) struct CallOutcomes<T> {
    pub(super) answered: Vec<(usize, T)>,
    pub(super) failed: Vec<(usize, RpcError)>,
}

impl<T> CallOutcomes<T> {
    fn new() -> CallOutcomes<T> {
        CallOutcomes { answered: Vec::new(), failed: Vec::new() }
    }

    /// Fails every action of `sent` with `error`.
    fn fail_all(&mut self, sent: &[RegionActions], error: &RpcError) {
        let indexes = sent.iter().flat_map(|(_, indexes)| indexes.iter());
        self.failed.extend(indexes.map(|&index| (index, error.clone())));
    }
}

/// One `Multi` call to `server` with an action list per region; the outcome of each
/// action index. The writes' cells go in one cell block, in the actions' order.
pub(super) async fn multi_on_server<A: Action>(
    client: &RpcClient,
    server: String,
    regions: Vec<RegionActions>,
    actions: &[A],
    nonces: &[Option<u64>],
) -> CallOutcomes<A::Answer> {
    let mut outcomes = CallOutcomes::new();
    let buffers = &client.inner.send_buffers;
    let (parts, cells, sent) = encode_multi(regions, actions, nonces, buffers, &mut outcomes.failed);
    if sent.is_empty() {
        buffers.give_back(cells);
        return outcomes;
    }
    let request = multi_in_pieces(parts, Some(client.nonce_group()));
    let reply = client.call_in_pieces(&server, "Multi", request.clone(), cells.clone()).await;
    // Sent (or failed): the buffers of the regions' actions and cells serve the next
    // call once the connection has let go of them.
    buffers.give_back(request);
    buffers.give_back(cells);
    let reply = match reply {
        Ok(reply) => reply,
        Err(error) => {
            for (region, _) in &sent {
                client.on_error(region, &error);
            }
            outcomes.fail_all(&sent, &error);
            return outcomes;
        }
    };
    let protocol = |reason: String| RpcError::Protocol { addr: server.clone(), reason };
    // Read in place: a write's empty result is never decoded (see `multi_reply`).
    let answers = match MultiReply::read(reply.param.clone()) {
        Ok(answers) => answers,
        Err(error) => {
            outcomes.fail_all(&sent, &protocol(format!("undecodable response: {error}")));
            return outcomes;
        }
    };
    if answers.regions.len() != sent.len() {
        let reason = format!("{} region results for {} regions", answers.regions.len(), sent.len());
        outcomes.fail_all(&sent, &protocol(reason));
        return outcomes;
    }
    let mut reader = CellCursor::new(reply.cell_block.clone());
    outcomes.answered.reserve(sent.iter().map(|(_, indexes)| indexes.len()).sum());
    for ((region, indexes), answer) in sent.iter().zip(&answers.regions) {
        let region_error = match answers.region_exception(answer) {
            Ok(None) => None,
            Ok(Some(exception)) => {
                let error = super::remote_error(&server, &exception);
                client.on_error(region, &error);
                Some(error)
            }
            Err(error) => Some(protocol(format!("undecodable region exception: {error}"))),
        };
        if let Some(error) = region_error {
            outcomes.failed.extend(indexes.iter().map(|&i| (i, error.clone())));
            continue;
        }
        let reply = AnswerContext { client, server: &server, region, reply: &answers };
        let mut answered = vec![false; indexes.len()];
        // HBase answers a region's actions in the order they were sent: the next
        // position is tried first, any other found by search (the indexes ascend).
        let mut next = 0;
        for item in &answer.actions {
            let Some(index) = item.index.map(|i| i as usize) else { continue };
            let position = match indexes.get(next) {
                Some(&expected) if expected == index => next,
                Some(_) | None => match indexes.binary_search(&index) {
                    Ok(position) => position,
                    Err(_) => continue,
                },
            };
            next = position + 1;
            if std::mem::replace(&mut answered[position], true) {
                continue;
            }
            match A::answer(&reply, item, &mut reader) {
                Ok(value) => outcomes.answered.push((index, value)),
                Err(error) => outcomes.failed.push((index, error)),
            }
        }
        for (position, done) in answered.into_iter().enumerate() {
            if !done {
                let reason = "the server did not answer this action".to_owned();
                outcomes.failed.push((indexes[position], RpcError::Protocol { addr: server.clone(), reason }));
            }
        }
    }
    outcomes
}

/// Where an action's answer comes from: the call's server and region, and the reply.
pub(super) struct AnswerContext<'a> {
    client: &'a RpcClient,
    server: &'a str,
    region: &'a RegionLocation,
    reply: &'a MultiReply,
}

impl AnswerContext<'_> {
    /// The action's exception, if it has one (the region cache learns from it).
    pub(super) fn exception(&self, answer: &ActionAnswer) -> Result<(), RpcError> {
        if !answer.has_exception() {
            return Ok(());
        }
        let exception = self.reply.action_exception(answer).map_err(|e| self.undecodable("exception", e))?;
        match exception {
            Some(exception) => {
                let error = super::remote_error(self.server, &exception);
                self.client.on_error(self.region, &error);
                Err(error)
            }
            None => Ok(()),
        }
    }

    /// The action's exception, or its result (a write's empty result is not decoded),
    /// its cells taken from the reply's cell block.
    pub(super) fn row(&self, answer: &ActionAnswer, reader: &mut CellCursor) -> Result<RowResult, RpcError> {
        self.exception(answer)?;
        if !answer.has_result_fields() {
            // No result, or a write's empty one: no cells.
            return Ok(RowResult::default());
        }
        match self.reply.result(answer).map_err(|e| self.undecodable("result", e))? {
            Some(result) => row_result(self.server, &result, reader),
            None => Ok(RowResult::default()),
        }
    }

    fn undecodable(&self, what: &str, error: FrameError) -> RpcError {
        RpcError::Protocol { addr: self.server.to_owned(), reason: format!("undecodable action {what}: {error}") }
    }
}

/// The `Multi` request of one server's regions (a writer per region, sent in pieces:
/// [`multi_in_pieces`]), its cell block (one piece per region), and the actions it
/// holds per region (an action refused by its encoder is listed in `refused` instead;
/// a region left without actions is left out).
///
/// The actions are encoded in the caller's order, each region's into a part of its own
/// (the caller's rows are read in the order they lie in memory, which the hardware
/// prefetches; rows spread over many regions would otherwise be read in strides). The
/// request then lists the regions' actions region by region, and the cell block is the
/// regions' pieces in the same order, all sent one after the other without being
/// joined. Both kinds of buffers come from the client's pool.
pub(super) fn encode_multi<A: Action>(
    regions: Vec<RegionActions>,
    actions: &[A],
    nonces: &[Option<u64>],
    buffers: &SendBuffers,
    refused: &mut Vec<(usize, RpcError)>,
) -> (Vec<MultiWriter>, Vec<Bytes>, Vec<RegionActions>) {
    let order = callers_order(&regions);
    // Each region's room, summed in the caller's order too (a write's cells are first
    // read here; in region order they would be read in strides).
    let mut room = vec![(0usize, 0usize); regions.len()];
    for &(index, part) in &order {
        // A write's action takes its row and some twenty bytes more.
        room[part].0 += actions[index].row().len() + 20;
        room[part].1 += actions[index].cells_len_hint();
    }
    let mut parts: Vec<(MultiWriter, BytesMut, Vec<usize>)> = regions
        .iter()
        .zip(room)
        .map(|((region, indexes), (actions_len, cells_len))| {
            let mut request = MultiWriter::with_buffer(buffers.take(actions_len));
            request.region(&region.region_name);
            (request, buffers.take(cells_len), Vec::with_capacity(indexes.len()))
        })
        .collect();
    for (index, part) in order {
        let (request, cells, kept) = &mut parts[part];
        // `run_batch` checked that every index fits in a u32.
        match actions[index].encode(index as u32, nonces[index], request, cells) {
            Ok(()) => kept.push(index),
            // Refused before anything was sent.
            Err(error) => refused.push((index, error)),
        }
    }
    let mut request = Vec::with_capacity(parts.len());
    let mut cells = Vec::with_capacity(parts.len());
    let mut sent: Vec<RegionActions> = Vec::with_capacity(regions.len());
    for ((region, _), (part, block, kept)) in regions.into_iter().zip(parts) {
        // A region whose every action was refused is left out of the request.
        if kept.is_empty() {
            buffers.keep(block);
            continue;
        }
        request.push(part);
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::batch::BatchAction;
    use crate::mutation::Mutation;
    use crate::pb;
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
        let mut refused = Vec::new();
        let buffers = SendBuffers::default();
        let (request, cells, sent) = encode_multi(regions, &actions, &[None; 5], &buffers, &mut refused);
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].0, 2);
        let kept: Vec<Vec<usize>> = sent.iter().map(|(_, indexes)| indexes.clone()).collect();
        assert_eq!(kept, vec![vec![0, 4], vec![1, 3]]);
        let request = pb::MultiRequest::decode(&multi_in_pieces(request, None).concat()[..]).unwrap();
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
}
