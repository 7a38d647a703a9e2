//! How a call is run over a [`Transport`]: attempts, the retry policy within the retry
//! budget, and what a failed write that is not idempotent reports.

// Policy decisions: every error kind is listed, so a new one is decided, not defaulted.
#![deny(clippy::wildcard_enum_match_arm)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use tracing::Instrument;

use crate::error::{Error, Result};
use crate::metrics;
use crate::ops::{Delete, Put, RowMutation, RowMutations};
use crate::resend::{deletes_newest_version, puts_on_server_clock, CallRetries, CALL};
use crate::retry::{RetryDecision, RetryPolicy};
use crate::transport::{AttemptError, AttemptFuture, Delivery, Operation, Transport};

/// Whether a call may be repeated safely after a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Idempotence {
    /// Gets, scans, puts, deletes (but see [`Idempotence::of_put`] and
    /// [`Idempotence::of_delete`]), admin reads: retried on retryable failures.
    Idempotent,
    /// Check-and-mutate, deletes of a column's newest version, puts on the server's
    /// clock (unless the client resends them): never resent once sent without an answer (an unknown outcome is reported as
    /// [`Error::WriteOutcomeUnknown`]).
    NotIdempotent,
    /// Increments and appends, which carry one nonce over all their attempts: retried
    /// like idempotent calls when the transport's servers deduplicate by nonce
    /// ([`Transport::dedups_by_nonce`]), never once sent otherwise.
    DedupedByNonce,
}

impl Idempotence {
    /// Of a delete: idempotent unless it removes a column's newest version (no
    /// timestamp), which removes one more version each time it is applied. Deletes of
    /// given versions, of every version, of families or rows up to now are idempotent
    /// for this client (as in HBase's Java client, a resend stamped later also covers
    /// what another writer put in between).
    pub(crate) fn of_delete(delete: &Delete) -> Idempotence {
        if delete.cells().iter().any(deletes_newest_version) {
            Idempotence::NotIdempotent
        } else {
            Idempotence::Idempotent
        }
    }

    /// Of several deletes applied together: idempotent only if each is.
    pub(crate) fn of_deletes(deletes: &[Delete]) -> Idempotence {
        Idempotence::all(deletes.iter().map(Idempotence::of_delete))
    }

    /// Of a put: idempotent when every cell has a timestamp (its own or the put's): a
    /// resend writes the same cell again. A put with a cell on the server's clock,
    /// resent after an attempt that may have run, writes its value once more as a newer
    /// version, so one acknowledged put would leave two versions: it is not idempotent
    /// (an unknown outcome is reported as [`Error::WriteOutcomeUnknown`]) unless
    /// `resend_unstamped` (the client's
    /// [`resend_unstamped_puts`](crate::ClientBuilder::resend_unstamped_puts)) accepts
    /// the duplicate version, as HBase's Java client does. Basalt does not stamp puts
    /// with the client's clock (a client clock behind the servers' would hide its puts
    /// behind its own earlier deletes).
    pub(crate) fn of_put(put: &Put, resend_unstamped: bool) -> Idempotence {
        if !resend_unstamped && puts_on_server_clock(put) {
            Idempotence::NotIdempotent
        } else {
            Idempotence::Idempotent
        }
    }

    /// Of an atomic row mutation: idempotent only if every put and delete is (puts as
    /// [`Idempotence::of_put`] with `resend_unstamped`); with an increment or append,
    /// deduplicated by its nonce at best.
    pub(crate) fn of_row_mutations(mutations: &RowMutations, resend_unstamped: bool) -> Idempotence {
        Idempotence::all(mutations.mutations.iter().map(|m| match m {
            RowMutation::Put(put) => Idempotence::of_put(put, resend_unstamped),
            RowMutation::Delete(delete) => Idempotence::of_delete(delete),
            RowMutation::Increment(_) | RowMutation::Append(_) => Idempotence::DedupedByNonce,
        }))
    }

    /// Several writes applied together: the weakest of them.
    pub(crate) fn all(each: impl IntoIterator<Item = Idempotence>) -> Idempotence {
        let mut all = Idempotence::Idempotent;
        for one in each {
            all = match (all, one) {
                (Idempotence::NotIdempotent, _) | (_, Idempotence::NotIdempotent) => Idempotence::NotIdempotent,
                (Idempotence::DedupedByNonce, _) | (_, Idempotence::DedupedByNonce) => Idempotence::DedupedByNonce,
                (Idempotence::Idempotent, Idempotence::Idempotent) => Idempotence::Idempotent,
            };
        }
        all
    }
}

/// The transport with the retry policy and budget: what every call of a client runs
/// through (plain calls, coalesced gets, batch chunks, scan pages).
#[derive(Clone)]
pub(crate) struct Attempts {
    pub(crate) transport: Arc<dyn Transport>,
    retry: Arc<dyn RetryPolicy>,
    budget: Duration,
    /// Whether puts on the server's clock are resent after an unknown outcome
    /// ([`ClientBuilder::resend_unstamped_puts`](crate::ClientBuilder::resend_unstamped_puts)).
    resend_unstamped_puts: bool,
}

impl Attempts {
    pub(crate) fn new(
        transport: Arc<dyn Transport>,
        retry: Arc<dyn RetryPolicy>,
        budget: Duration,
        resend_unstamped_puts: bool,
    ) -> Attempts {
        Attempts { transport, retry, budget, resend_unstamped_puts }
    }

    /// Whether this client resends puts on the server's clock after an unknown outcome.
    pub(crate) fn resend_unstamped_puts(&self) -> bool {
        self.resend_unstamped_puts
    }

    /// How a put may be resent by this client ([`Idempotence::of_put`]).
    pub(crate) fn of_put(&self, put: &Put) -> Idempotence {
        Idempotence::of_put(put, self.resend_unstamped_puts)
    }

    /// How row mutations may be resent by this client
    /// ([`Idempotence::of_row_mutations`]).
    pub(crate) fn of_row_mutations(&self, mutations: &RowMutations) -> Idempotence {
        Idempotence::of_row_mutations(mutations, self.resend_unstamped_puts)
    }

    /// Runs one call: retries idempotent calls on retryable failures per the retry
    /// policy, within the retry budget. A call that is not idempotent is retried only
    /// when it was never sent (no connection could be had, or its request could not be
    /// completely written); once sent, a failure that leaves its outcome open is
    /// reported as [`Error::WriteOutcomeUnknown`].
    pub(crate) async fn run<'a, T, F>(
        &'a self,
        operation: Operation,
        table: Option<&str>,
        idempotence: Idempotence,
        mut call: F,
    ) -> Result<T>
    where
        F: FnMut(&'a dyn Transport) -> AttemptFuture<'a, T>,
    {
        let span =
            tracing::debug_span!("hbase.call", operation = operation.as_str(), table, attempt = tracing::field::Empty);
        async move {
            let started = Instant::now();
            let result = self.attempts(operation, idempotence, started, &mut call).await;
            metrics::call(operation, result.as_ref().map(|_| ()), started.elapsed());
            result
        }
        .instrument(span)
        .await
    }

    /// The attempts of one call (see [`Attempts::run`]).
    async fn attempts<'a, T, F>(
        &'a self,
        operation: Operation,
        idempotence: Idempotence,
        started: Instant,
        call: &mut F,
    ) -> Result<T>
    where
        F: FnMut(&'a dyn Transport) -> AttemptFuture<'a, T>,
    {
        let mut attempt = 0u32;
        // The failures of this call at every layer: a transport's own retries count
        // against the same policy.
        let retries = CallRetries::new(started);
        // Whether an earlier attempt of this write was sent and got no answer: it may
        // have been applied, whatever the last attempt says.
        let mut may_have_applied = false;
        // Whether a sent attempt that got no answer may be sent again.
        let resend_after_sent = match idempotence {
            Idempotence::Idempotent => true,
            Idempotence::NotIdempotent => false,
            Idempotence::DedupedByNonce => self.transport.dedups_by_nonce(),
        };
        loop {
            attempt += 1;
            tracing::Span::current().record("attempt", attempt);
            metrics::attempt(operation);
            let error = match CALL.scope(retries.clone(), call(&*self.transport)).await {
                Ok(value) => return Ok(value),
                Err(AttemptError { sent, error, .. }) => match (resend_after_sent, sent) {
                    // The whole request reached the stream: it may have been applied.
                    // (When it did not, the server cannot have read it, and the call
                    // is retried like one never sent.)
                    (false, Delivery::Sent) => return Err(outcome_unknown(operation, *error)),
                    (true, Delivery::Sent) => {
                        may_have_applied |= operation.writes() && leaves_outcome_open(&error);
                        *error
                    }
                    (false | true, Delivery::NotSent) => *error,
                },
            };
            // A transport below that retried under the same policy and budget and was
            // refused a resend (a throttling wait past the budget, say) ended the call:
            // asking the policy again would only resend into the same refusal.
            let retry = match retries.ended() {
                true => None,
                false => self.retry_after(retries.next_failure(), started, &error),
            };
            match retry {
                Some(after) => {
                    metrics::retry(operation, &error);
                    tracing::debug!(%error, ?after, "retrying");
                    tokio::time::sleep(after).await;
                }
                // A retried write that was once sent without an answer may have been
                // applied even if its last attempt was refused or never sent.
                None if may_have_applied && !matches!(error, Error::WriteOutcomeUnknown { .. }) => {
                    return Err(Error::WriteOutcomeUnknown { operation, source: Box::new(error) })
                }
                None => return Err(error),
            }
        }
    }

    /// One attempt, without retries (coalesced gets, which fall back to one call each,
    /// and scan pages, whose recovery is the scan's own), counted in the metrics as a
    /// call of one attempt of `operation`.
    pub(crate) async fn once_as<T>(&self, operation: Operation, attempt: AttemptFuture<'_, T>) -> Result<T> {
        let started = Instant::now();
        metrics::attempt(operation);
        let result = attempt.await.map_err(|e| *e.error);
        metrics::call(operation, result.as_ref().map(|_| ()), started.elapsed());
        result
    }

    /// The pause before retrying after `attempt` failed with `error`, if the policy
    /// allows it and the retry would start within the budget counted from `since`.
    pub(crate) fn retry_after(&self, attempt: u32, since: Instant, error: &Error) -> Option<Duration> {
        match self.retry.decide(attempt, error) {
            RetryDecision::Retry { after } if since.elapsed() + after <= self.budget => Some(after),
            RetryDecision::Retry { .. } | RetryDecision::Fail => None,
        }
    }
}

/// A sent call that is not idempotent failed: say whether it may have been applied.
pub(crate) fn outcome_unknown(operation: Operation, error: Error) -> Error {
    if leaves_outcome_open(&error) {
        Error::WriteOutcomeUnknown { operation, source: Box::new(error) }
    } else {
        error
    }
}

/// Whether a sent call that failed this way may have been applied: the request may
/// have reached HBase before the failure (not when HBase answered and refused it, or,
/// for the kinds that are not a call's failure, when there was no call to apply).
fn leaves_outcome_open(error: &Error) -> bool {
    match error {
        Error::Transport { .. } | Error::DroppedBeforeReply { .. } | Error::Timeout { .. } | Error::Protocol { .. } => {
            true
        }
        Error::InvalidInput(_)
        | Error::TableNotFound { .. }
        | Error::NamespaceNotFound { .. }
        | Error::AlreadyExists { .. }
        | Error::NoSuchColumnFamily { .. }
        | Error::ScannerExpired { .. }
        | Error::IllegalArgument { .. }
        | Error::Server { .. }
        | Error::Busy { .. }
        | Error::Unreachable { .. }
        | Error::ClientClosed
        | Error::ServerInternal { .. }
        | Error::WriteOutcomeUnknown { .. }
        | Error::ScanIntegrity { .. }
        | Error::BatchFailed { .. } => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_deletes_of_a_newest_version_are_not_idempotent() {
        let latest = Delete::row("r").latest_version("f", "q");
        assert_eq!(Idempotence::of_delete(&latest), Idempotence::NotIdempotent);
        assert_eq!(
            Idempotence::of_delete(&Delete::row("r").version_at("f", "q", i64::MAX)),
            Idempotence::NotIdempotent
        );
        for idempotent in [
            Delete::row("r"),
            Delete::row("r").version_at("f", "q", 7),
            Delete::row("r").all_versions("f", "q").family("g"),
            // A family delete after it clears the column's newest-version delete.
            Delete::row("r").latest_version("f", "q").family("f"),
        ] {
            assert_eq!(Idempotence::of_delete(&idempotent), Idempotence::Idempotent, "{idempotent:?}");
        }
        let both = [Delete::row("r").all_versions("f", "q"), latest.clone()];
        assert_eq!(Idempotence::of_deletes(&both), Idempotence::NotIdempotent);
        let row = RowMutations::new("r").put(Put::new("r").cell_at("f", "q", "v", 5));
        assert_eq!(Idempotence::of_row_mutations(&row, false), Idempotence::Idempotent);
        assert_eq!(
            Idempotence::of_row_mutations(&row.clone().delete(latest.clone()), true),
            Idempotence::NotIdempotent
        );
        let unstamped = RowMutations::new("r").put(Put::new("r").cell("f", "q", "v"));
        assert_eq!(Idempotence::of_row_mutations(&unstamped, false), Idempotence::NotIdempotent);
        assert_eq!(Idempotence::of_row_mutations(&unstamped, true), Idempotence::Idempotent);
    }

    #[test]
    fn only_puts_whose_cells_all_have_a_timestamp_are_idempotent() {
        for stamped in [
            Put::new("r").cell_at("f", "q", "v", 7),
            Put::new("r").timestamp(7).cell("f", "q", "v").cell_at("f", "a", "w", 3),
            // No cell: nothing written.
            Put::new("r"),
        ] {
            assert_eq!(Idempotence::of_put(&stamped, false), Idempotence::Idempotent, "{stamped:?}");
            assert_eq!(Idempotence::of_put(&stamped, true), Idempotence::Idempotent, "{stamped:?}");
        }
        for unstamped in [
            Put::new("r").cell("f", "q", "v"),
            Put::new("r").cell_at("f", "a", "w", 3).cell("f", "q", "v"),
            // HBase's LATEST_TIMESTAMP is the server's clock.
            Put::new("r").cell_at("f", "q", "v", i64::MAX),
            Put::new("r").timestamp(i64::MAX).cell("f", "q", "v"),
        ] {
            assert_eq!(Idempotence::of_put(&unstamped, false), Idempotence::NotIdempotent, "{unstamped:?}");
            // Java's behaviour: resent, at the price of a possible second version.
            assert_eq!(Idempotence::of_put(&unstamped, true), Idempotence::Idempotent, "{unstamped:?}");
        }
    }
}
