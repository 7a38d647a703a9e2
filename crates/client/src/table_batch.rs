//! The table calls of HBase 2.4's mutation API beyond plain writes: row mutations that
//! hold increments and appends and return their results, check-and-mutate of any
//! condition and action ([`CheckAndMutate`]), and mixed batches (Java's `Table.batch`).
//!
//! A mixed batch answers per action, in order. Over native RPC it is one `Multi` call
//! per region server (HBase applies each region's actions in order). The Thrift2 gateway
//! has no mixed batch: its actions go as several calls, each run of consecutive actions
//! of one kind together (gets as `getMultiple`, puts as `putMultiple`, deletes as
//! `deleteMultiple`, increments and appends one call each), the runs in order, so a row
//! written and then read in one batch reads the write on both transports.

use crate::attempt::Idempotence;
use crate::batch::{self, Refused};
pub use crate::batch_action::BatchAction;
use crate::conditional::{CheckAndMutate, CheckAndMutateResult, CheckTest, CheckedAction};
use crate::error::{Error, Result};
use crate::ops::{Delete, Get, Put, RowMutations};
use crate::row::Row;
use crate::table::Table;
use crate::transport::{AttemptError, AttemptFuture, CheckedWrite, Condition, Operation, OperationNonce};
use crate::validate;

/// The kinds of action the gateway sends together (a run of one kind is one call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Run {
    Gets,
    Puts,
    Deletes,
    /// One increment or append (each is its own call).
    Counter,
}

/// The run an action belongs to.
fn run_of(action: &BatchAction) -> Run {
    match action {
        BatchAction::Get(_) => Run::Gets,
        BatchAction::Put(_) => Run::Puts,
        BatchAction::Delete(_) => Run::Deletes,
        BatchAction::Increment(_) | BatchAction::Append(_) => Run::Counter,
    }
}

/// How an action may be resent by a client that resends puts on the server's clock
/// if `resend_unstamped` ([`Idempotence::of_put`]).
fn idempotence_of(action: &BatchAction, resend_unstamped: bool) -> Idempotence {
    match action {
        BatchAction::Get(_) => Idempotence::Idempotent,
        BatchAction::Put(put) => Idempotence::of_put(put, resend_unstamped),
        BatchAction::Delete(delete) => Idempotence::of_delete(delete),
        BatchAction::Increment(_) | BatchAction::Append(_) => Idempotence::DedupedByNonce,
    }
}

/// The request as the calls every transport offers (a column condition without a time
/// range, guarding a put, a delete or row mutations of puts and deletes), if it is one
/// of them.
pub(crate) fn plain_of(request: &CheckAndMutate) -> Option<(Condition, CheckedWrite<'_>)> {
    let Some(CheckTest::Column { family, qualifier, op, value }) = &request.test else { return None };
    if request.time_range.is_some() || request.action.counts() {
        return None;
    }
    let condition = Condition {
        row: request.row().clone(),
        family: family.clone(),
        qualifier: qualifier.clone(),
        op: *op,
        value: value.clone(),
    };
    let write = match &request.action {
        CheckedAction::Put(put) => CheckedWrite::Put(put),
        CheckedAction::Delete(delete) => CheckedWrite::Delete(delete),
        CheckedAction::Mutations(mutations) => CheckedWrite::Mutations(mutations),
        CheckedAction::Increment(_) | CheckedAction::Append(_) => return None,
    };
    Some((condition, write))
}

/// What one action of a batch answered: a get's row (empty when missing), an
/// increment's or append's new values, an empty row for a put or delete; or the
/// action's own error, [`Error::WriteOutcomeUnknown`] when a write may have been
/// applied all the same.
pub type ActionResult = Result<Row>;

impl Table {
    fn max_value(&self) -> usize {
        self.client().inner.max_value_bytes
    }

    /// Applies `mutations` to one row atomically, as [`Table::mutate_row`], and returns
    /// the new values of its increments and appends (HBase 2.4's
    /// `Table.mutateRow` result; empty without any). Increments and appends need native
    /// RPC: the gateway's `TRowMutations` carries only puts and deletes, so through it
    /// they are refused as [`InvalidInput::Untranslatable`](crate::InvalidInput::Untranslatable).
    /// The operation carries one nonce over all its attempts, as
    /// [`increment`](Table::increment) does.
    pub async fn mutate_row_with_results(&self, mutations: RowMutations) -> Result<Row> {
        validate::table_row_key(self.name(), mutations.row())?;
        mutations.validate(self.max_value())?;
        let nonce = OperationNonce::next();
        let idempotence = self.client().attempts().of_row_mutations(&mutations);
        let name = self.name();
        let row = self
            .client()
            .attempts()
            .run(Operation::MutateRow, Some(name), idempotence, |t| t.mutate_row_with_results(name, &mutations, nonce))
            .await?;
        Ok(row.or_key(mutations.row()))
    }

    /// Runs a [`CheckAndMutate`] (Java's `Table.checkAndMutate(CheckAndMutate)`):
    /// whether its action was applied, and an increment's or append's new values. Never
    /// retried once sent. Through the gateway only a column condition without a time
    /// range guarding a put, a delete or row mutations of puts and deletes can be sent;
    /// the rest is refused as [`InvalidInput::Untranslatable`](crate::InvalidInput::Untranslatable).
    pub async fn check_and_mutate_with(&self, request: CheckAndMutate) -> Result<CheckAndMutateResult> {
        validate::table_row_key(self.name(), request.row())?;
        request.validate(self.max_value())?;
        let name = self.name();
        let attempts = self.client().attempts();
        if let Some((condition, write)) = plain_of(&request) {
            let operation = match write {
                CheckedWrite::Put(_) => Operation::CheckAndPut,
                CheckedWrite::Delete(_) => Operation::CheckAndDelete,
                CheckedWrite::Mutations(_) => Operation::CheckAndMutate,
            };
            let applied = attempts
                .run(operation, Some(name), Idempotence::NotIdempotent, |t| t.check_and_mutate(name, &condition, write))
                .await?;
            return Ok(CheckAndMutateResult::new(applied, Row::default()));
        }
        let nonce = OperationNonce::next();
        attempts
            .run(Operation::CheckAndMutate, Some(name), Idempotence::NotIdempotent, |t| {
                t.check_and_mutate_with(name, &request, nonce)
            })
            .await
    }

    /// Runs gets, puts, deletes, increments and appends in one batch (Java's
    /// `Table.batch`) and answers each action in order ([`ActionResult`]). Every action
    /// is validated before anything is sent (a refusal fails the whole call). Over
    /// native RPC: one `Multi` call per region server; each write is retried as its own
    /// call would be (increments and appends carry one nonce each over all attempts).
    /// Through the gateway: several calls, see the module's documentation. As in Java,
    /// the batch is not atomic: each action succeeds or fails on its own.
    pub async fn batch(&self, actions: impl IntoIterator<Item = BatchAction>) -> Result<Vec<ActionResult>> {
        let actions: Vec<BatchAction> = actions.into_iter().collect();
        let max = self.max_value();
        for action in &actions {
            validate::table_row_key(self.name(), action.row())?;
            action.validate(max)?;
        }
        if actions.is_empty() {
            return Ok(Vec::new());
        }
        // Asked with nothing to do, a transport says whether it has a mixed batch.
        if self.client().transport().batch(self.name(), &[], &[]).is_some() {
            return self.batch_in_one_round(&actions).await;
        }
        self.batch_in_runs(&actions).await
    }

    /// A batch as the transport's own mixed batch (native RPC).
    async fn batch_in_one_round(&self, actions: &[BatchAction]) -> Result<Vec<ActionResult>> {
        let nonces: Vec<Option<OperationNonce>> =
            actions.iter().map(|a| a.counts().then(OperationNonce::next)).collect();
        let resend_unstamped = self.client().attempts().resend_unstamped_puts();
        let idempotence = Idempotence::all(actions.iter().map(|a| idempotence_of(a, resend_unstamped)));
        let name = self.name();
        let nonces = &nonces;
        let mut answers = self
            .client()
            .attempts()
            .run(Operation::Batch, Some(name), idempotence, |t| t.batch(name, actions, nonces).unwrap_or_else(no_batch))
            .await?
            .into_iter();
        let mut results = Vec::with_capacity(actions.len());
        for action in actions {
            let answer = answers.next().unwrap_or_else(|| {
                Err(Error::Server {
                    message: "the batch gave no answer for this action".into(),
                    can_retry: false,
                    exception: None,
                })
            });
            results.push(answer.map(|row| match action {
                BatchAction::Get(get) => row.or_key(get.row()),
                BatchAction::Put(_) | BatchAction::Delete(_) | BatchAction::Increment(_) | BatchAction::Append(_) => {
                    row
                }
            }));
        }
        Ok(results)
    }

    /// A batch as several calls, one per run of actions of one kind, in order.
    async fn batch_in_runs(&self, actions: &[BatchAction]) -> Result<Vec<ActionResult>> {
        let mut results: Vec<ActionResult> = Vec::with_capacity(actions.len());
        let mut start = 0;
        while start < actions.len() {
            let run = run_of(&actions[start]);
            let mut end = start + 1;
            while run != Run::Counter && end < actions.len() && run_of(&actions[end]) == run {
                end += 1;
            }
            let part = &actions[start..end];
            match run {
                Run::Gets => self.run_of_gets(part, &mut results).await,
                Run::Puts => self.run_of_writes(part, &mut results, |a| as_put(a).cloned()).await,
                Run::Deletes => self.run_of_deletes(part, &mut results).await,
                Run::Counter => results.push(self.counter(&part[0]).await),
            }
            start = end;
        }
        Ok(results)
    }

    async fn run_of_gets(&self, part: &[BatchAction], results: &mut Vec<ActionResult>) {
        let gets: Vec<Get> = part.iter().filter_map(as_get).cloned().collect();
        let name = self.name();
        for chunk in gets.chunks(self.batch_rows()) {
            let rows = self
                .client()
                .attempts()
                .run(Operation::MultiGet, Some(name), Idempotence::Idempotent, |t| t.get_many(name, chunk))
                .await;
            match rows {
                Ok(rows) if rows.len() == chunk.len() => {
                    results.extend(rows.into_iter().zip(chunk).map(|(row, get)| Ok(row.or_key(get.row()))))
                }
                Ok(rows) => {
                    let message = format!("getMultiple answered {} rows for {} gets", rows.len(), chunk.len());
                    let error = Error::Server { message, can_retry: false, exception: None };
                    results.extend(spread(error, chunk.len(), None));
                }
                Err(error) => results.extend(spread(error, chunk.len(), None)),
            }
        }
    }

    /// Puts in chunks as `put_many` sends them, each answered on its own.
    async fn run_of_writes<W: batch::ChunkWrite>(
        &self,
        part: &[BatchAction],
        results: &mut Vec<ActionResult>,
        write: impl Fn(&BatchAction) -> Option<W>,
    ) {
        let writes: Vec<W> = part.iter().filter_map(write).collect();
        for chunk in writes.chunks(self.batch_rows()) {
            let sent = batch::write_chunk(self.client().attempts(), self.name(), chunk).await;
            results.extend(chunk_answers(W::OPERATION, chunk.len(), sent));
        }
    }

    /// Deletes: those of one kind in chunks as `delete_many` sends them; one of several
    /// kinds as [`Table::delete`] applies it (atomically).
    async fn run_of_deletes(&self, part: &[BatchAction], results: &mut Vec<ActionResult>) {
        let mut start = 0;
        while start < part.len() {
            let Some(delete) = as_delete(&part[start]) else { break };
            if delete.split_by_kind().map_or(0, |parts| parts.len()) > 1 {
                let answer = self.delete(delete.clone()).await.map(|()| Row::default());
                results.push(answer);
                start += 1;
                continue;
            }
            let mut end = start + 1;
            while end < part.len()
                && as_delete(&part[end]).is_some_and(|d| d.split_by_kind().is_ok_and(|p| p.len() == 1))
            {
                end += 1;
            }
            self.run_of_writes(&part[start..end], results, |a| as_delete(a).cloned()).await;
            start = end;
        }
    }

    async fn counter(&self, action: &BatchAction) -> ActionResult {
        match action {
            BatchAction::Increment(increment) => self.increment(increment.clone()).await,
            BatchAction::Append(append) => self.append(append.clone()).await,
            BatchAction::Get(_) | BatchAction::Put(_) | BatchAction::Delete(_) => {
                Err(Error::Server { message: "not a counter".into(), can_retry: false, exception: None })
            }
        }
    }
}

fn as_get(action: &BatchAction) -> Option<&Get> {
    match action {
        BatchAction::Get(get) => Some(get.as_ref()),
        BatchAction::Put(_) | BatchAction::Delete(_) | BatchAction::Increment(_) | BatchAction::Append(_) => None,
    }
}

fn as_put(action: &BatchAction) -> Option<&Put> {
    match action {
        BatchAction::Put(put) => Some(put),
        BatchAction::Get(_) | BatchAction::Delete(_) | BatchAction::Increment(_) | BatchAction::Append(_) => None,
    }
}

fn as_delete(action: &BatchAction) -> Option<&Delete> {
    match action {
        BatchAction::Delete(delete) => Some(delete),
        BatchAction::Get(_) | BatchAction::Put(_) | BatchAction::Increment(_) | BatchAction::Append(_) => None,
    }
}

/// The attempt of a transport that has no mixed batch (never made: the core asks first).
fn no_batch<'a, T: Send + 'a>() -> AttemptFuture<'a, T> {
    Box::pin(async {
        let error =
            Error::Server { message: "the transport has no mixed batch".into(), can_retry: false, exception: None };
        Err(AttemptError::not_sent(Operation::Batch, error))
    })
}

/// Each write of a chunk answered: an empty row, or its own error (in doubt:
/// [`Error::WriteOutcomeUnknown`]).
fn chunk_answers(operation: Operation, len: usize, sent: batch::Sent) -> Vec<ActionResult> {
    match sent {
        Ok(refused) => {
            let mut answers: Vec<ActionResult> = (0..len).map(|_| Ok(Row::default())).collect();
            for Refused { index, error, in_doubt, .. } in refused {
                if let Some(slot) = answers.get_mut(index) {
                    *slot = Err(in_doubt_error(operation, error, in_doubt));
                }
            }
            answers
        }
        Err(error) => {
            let in_doubt = batch::chunk_in_doubt(&error);
            spread(error, len, in_doubt.then_some(operation))
        }
    }
}

/// `error` as a write's answer: [`Error::WriteOutcomeUnknown`] when it may have run.
fn in_doubt_error(operation: Operation, error: Error, in_doubt: bool) -> Error {
    match (in_doubt, &error) {
        (true, Error::WriteOutcomeUnknown { .. }) | (false, _) => error,
        (true, _) => Error::WriteOutcomeUnknown { operation, source: Box::new(error) },
    }
}

/// One call's failure as the answer of each of its `len` actions: the error itself for
/// the first, a copy for the others; in doubt (`Some(operation)`), each as
/// [`Error::WriteOutcomeUnknown`].
fn spread(error: Error, len: usize, in_doubt: Option<Operation>) -> Vec<ActionResult> {
    let copies: Vec<Error> = (1..len).map(|_| copy_error(&error)).collect();
    std::iter::once(error)
        .chain(copies)
        .take(len)
        .map(|e| match in_doubt {
            Some(operation) => Err(in_doubt_error(operation, e, true)),
            None => Err(e),
        })
        .collect()
}

/// A copy of `error` for another action of the same failed call: the same kind where
/// the kind is plain data, else an [`Error::Server`] with its message and retry verdict.
fn copy_error(error: &Error) -> Error {
    match error {
        Error::InvalidInput(input) => Error::InvalidInput(input.clone()),
        Error::TableNotFound { table } => Error::TableNotFound { table: table.clone() },
        Error::NoSuchColumnFamily { message } => Error::NoSuchColumnFamily { message: message.clone() },
        Error::IllegalArgument { message } => Error::IllegalArgument { message: message.clone() },
        Error::Server { message, can_retry, exception } => {
            Error::Server { message: message.clone(), can_retry: *can_retry, exception: exception.clone() }
        }
        Error::Timeout { operation, after } => Error::Timeout { operation: *operation, after: *after },
        Error::WriteOutcomeUnknown { operation, source } => {
            Error::WriteOutcomeUnknown { operation: *operation, source: Box::new(copy_error(source)) }
        }
        Error::ClientClosed => Error::ClientClosed,
        // Kinds holding a source that cannot be copied: their words and verdict.
        other => Error::Server {
            message: other.to_string(),
            can_retry: other.is_retryable(),
            exception: other.exception_class().map(str::to_owned),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{Append, Increment};
    use bytes::Bytes;
    use std::time::Duration;

    #[test]
    fn a_failed_call_answers_each_of_its_actions() {
        let timeout = Error::Timeout { operation: Operation::PutMany, after: Duration::from_secs(1) };
        let answers = chunk_answers(Operation::Put, 3, Err(timeout));
        assert_eq!(answers.len(), 3);
        for answer in &answers {
            match answer {
                Err(Error::WriteOutcomeUnknown { operation: Operation::Put, source }) => {
                    assert!(matches!(**source, Error::Timeout { .. }), "{source:?}")
                }
                other => panic!("expected an unknown outcome, got {other:?}"),
            }
        }
        // Refused before writing: not in doubt.
        let missing = Error::TableNotFound { table: "t".into() };
        let answers = chunk_answers(Operation::Delete, 2, Err(missing));
        assert!(answers.iter().all(|a| matches!(a, Err(Error::TableNotFound { .. }))));
        // HBase named one write it did not apply; the rest were applied.
        let refused = vec![Refused {
            index: 1,
            row: Bytes::from_static(b"b"),
            error: Error::NoSuchColumnFamily { message: "x".into() },
            in_doubt: false,
        }];
        let answers = chunk_answers(Operation::Put, 3, Ok(refused));
        assert!(answers[0].is_ok() && answers[2].is_ok());
        assert!(matches!(answers[1], Err(Error::NoSuchColumnFamily { .. })));
    }

    #[test]
    fn runs_group_consecutive_actions_of_one_kind() {
        let actions: Vec<BatchAction> = vec![
            Get::new("a").into(),
            Get::new("b").into(),
            Put::new("a").cell("f", "q", "v").into(),
            Increment::new("a").add("f", "n", 1).into(),
            Append::new("a").add("f", "q", "x").into(),
            Delete::row("a").into(),
        ];
        let runs: Vec<Run> = actions.iter().map(run_of).collect();
        assert_eq!(runs, [Run::Gets, Run::Gets, Run::Puts, Run::Counter, Run::Counter, Run::Deletes]);
        let counted: Vec<bool> = actions.iter().map(BatchAction::counts).collect();
        assert_eq!(counted, [false, false, false, true, true, false]);
        assert!(BatchAction::from(Put::new("r")).validate(10).is_err(), "a put without cells");
    }
}
