//! Batches: gets and mutations grouped by region server, one `Multi` call per server
//! per round, in parallel; actions that fail because their region moved are relocated
//! and sent again until the operation's deadline.

use std::collections::BTreeMap;
use std::time::Instant;

use bytes::Bytes;

use crate::cells::{CellCursor, RowResult};
use crate::client::{row_result, validate_row, Get, RpcClient};
use basalt_rpc_protocol::exception::RemoteException;

use crate::error::{RemoteError, RpcError};
use crate::mutation::Mutation;
use crate::pb;
use crate::region::RegionLocation;

/// One action of a batch.
#[derive(Debug, Clone, PartialEq)]
pub enum BatchAction {
    /// Read a row.
    Get(Get),
    /// Change a row.
    Mutate(Mutation),
}

impl BatchAction {
    fn row(&self) -> &Bytes {
        match self {
            BatchAction::Get(get) => get.row(),
            BatchAction::Mutate(mutation) => mutation.row(),
        }
    }

    fn to_proto(&self, index: u32, nonce: u64) -> pb::Action {
        match self {
            BatchAction::Get(get) => pb::Action { index: Some(index), get: Some(get.to_proto()), ..Default::default() },
            BatchAction::Mutate(mutation) => {
                pb::Action { index: Some(index), mutation: Some(mutation.to_proto(Some(nonce))), ..Default::default() }
            }
        }
    }
}

/// The outcome of each action of a batch, in the order given.
pub type BatchResults = Vec<Result<RowResult, RpcError>>;

impl RpcClient {
    /// Reads several rows of `table` (an empty result for a missing row), grouped by
    /// region server.
    pub async fn multi_get(&self, table: &str, gets: &[Get]) -> Result<Vec<RowResult>, RpcError> {
        let actions: Vec<BatchAction> = gets.iter().cloned().map(BatchAction::Get).collect();
        self.batch(table, &actions).await?.into_iter().collect()
    }

    /// Runs a batch of actions on `table`: one `Multi` call per region server per round.
    /// Each action's outcome is reported separately; the call itself fails only on
    /// invalid input.
    pub async fn batch(&self, table: &str, actions: &[BatchAction]) -> Result<BatchResults, RpcError> {
        for action in actions {
            validate_row(action.row())?;
            if let BatchAction::Get(get) = action {
                get.check_read()?;
            }
        }
        // One nonce per action for the whole operation: a retry carries the same one.
        let nonces: Vec<u64> = actions.iter().map(|_| self.new_nonce()).collect();
        let mut outcomes: Vec<Option<Result<RowResult, RpcError>>> = vec![None; actions.len()];
        let mut waiting: Vec<usize> = (0..actions.len()).collect();
        let deadline = self.deadline();
        let mut attempt = 0;
        while !waiting.is_empty() {
            // Group by server, then by region (ordered, for stable requests).
            let mut by_server: BTreeMap<String, BTreeMap<Bytes, (RegionLocation, Vec<usize>)>> = BTreeMap::new();
            for &index in &waiting {
                match self.locate(table, actions[index].row()).await {
                    Ok(region) => {
                        by_server
                            .entry(region.server.clone())
                            .or_default()
                            .entry(region.region_name.clone())
                            .or_insert_with(|| (region, Vec::new()))
                            .1
                            .push(index);
                    }
                    Err(error) => outcomes[index] = Some(Err(error)),
                }
            }
            let calls =
                by_server.into_iter().map(|(server, regions)| self.multi_on_server(server, regions, actions, &nonces));
            let mut retry = Vec::new();
            for round in futures::future::join_all(calls).await {
                for (index, outcome) in round {
                    match outcome {
                        Ok(row) => outcomes[index] = Some(Ok(row)),
                        Err(error) => {
                            let unknown = matches!(error, RpcError::Timeout { .. } | RpcError::ConnectionFailed { .. });
                            // Gets and puts/deletes may run twice; increments and
                            // appends carry a nonce, so the server applies a retry once.
                            let again = error.is_retryable()
                                && (!unknown || self.nonces_enabled() || is_idempotent(&actions[index]))
                                && Instant::now() < deadline;
                            if again {
                                retry.push(index);
                            }
                            outcomes[index] = Some(Err(error));
                        }
                    }
                }
            }
            waiting = retry;
            if !waiting.is_empty() {
                self.pause(attempt).await;
                attempt += 1;
            }
        }
        Ok(outcomes
            .into_iter()
            .map(|outcome| outcome.unwrap_or_else(|| Err(RpcError::InvalidArgument("an action was never sent".into()))))
            .collect())
    }

    /// One `Multi` call to `server` with an action list per region; the outcome of each
    /// action index.
    async fn multi_on_server(
        &self,
        server: String,
        regions: BTreeMap<Bytes, (RegionLocation, Vec<usize>)>,
        actions: &[BatchAction],
        nonces: &[u64],
    ) -> Vec<(usize, Result<RowResult, RpcError>)> {
        let regions: Vec<(RegionLocation, Vec<usize>)> = regions.into_values().collect();
        let request = pb::MultiRequest {
            region_action: regions
                .iter()
                .map(|(region, indexes)| pb::RegionAction {
                    region: region.specifier(),
                    atomic: None,
                    action: indexes.iter().map(|&i| actions[i].to_proto(i as u32, nonces[i])).collect(),
                    condition: None,
                })
                .collect(),
            nonce_group: Some(self.nonce_group()),
            ..Default::default()
        };
        let all = |error: RpcError| -> Vec<(usize, Result<RowResult, RpcError>)> {
            regions.iter().flat_map(|(_, indexes)| indexes.iter().map(|&i| (i, Err(error.clone())))).collect()
        };
        let reply = match self.call(&server, "Multi", &request, None).await {
            Ok(reply) => reply,
            Err(error) => {
                for (region, _) in &regions {
                    self.on_error(region, &error);
                }
                return all(error);
            }
        };
        let response: pb::MultiResponse = match reply.decode(&server) {
            Ok(response) => response,
            Err(error) => return all(error),
        };
        if response.region_action_result.len() != regions.len() {
            return all(RpcError::Protocol {
                addr: server.clone(),
                reason: format!("{} region results for {} regions", response.region_action_result.len(), regions.len()),
            });
        }
        let mut reader = CellCursor::new(reply.cell_block.clone());
        let mut outcomes = Vec::new();
        for ((region, indexes), result) in regions.iter().zip(response.region_action_result) {
            if let Some(exception) = result.exception {
                let error = remote_error(&server, &exception);
                self.on_error(region, &error);
                outcomes.extend(indexes.iter().map(|&i| (i, Err(error.clone()))));
                continue;
            }
            let mut answered = vec![false; indexes.len()];
            for item in result.result_or_exception {
                let Some(position) = item.index.and_then(|i| indexes.iter().position(|&mine| mine as u32 == i)) else {
                    continue;
                };
                answered[position] = true;
                let outcome = match (item.exception, item.result) {
                    (Some(exception), _) => {
                        let error = remote_error(&server, &exception);
                        self.on_error(region, &error);
                        Err(error)
                    }
                    (None, Some(result)) => row_result(&server, &result, &mut reader),
                    (None, None) => Ok(RowResult::default()),
                };
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
}

fn is_idempotent(action: &BatchAction) -> bool {
    match action {
        BatchAction::Get(_) => true,
        BatchAction::Mutate(mutation) => mutation.is_idempotent(),
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
