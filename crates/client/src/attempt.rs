//! How a call is run over a [`Transport`]: attempts, the retry policy within the retry
//! budget, and what a failed write that is not idempotent reports.

// Policy decisions: every error kind is listed, so a new one is decided, not defaulted.
#![deny(clippy::wildcard_enum_match_arm)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use tracing::Instrument;

use crate::error::{Error, Result};
use crate::metrics;
use crate::retry::{RetryDecision, RetryPolicy};
use crate::transport::{AttemptError, AttemptFuture, Delivery, Operation, Transport};

/// Whether a call may be repeated safely after a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Idempotence {
    /// Gets, scans, puts, deletes, admin reads: retried on retryable failures.
    Idempotent,
    /// Increments, appends, check-and-mutate: never retried automatically.
    NotIdempotent,
    /// Increments and appends, which carry one nonce over all their attempts: retried
    /// like idempotent calls when the transport's servers deduplicate by nonce
    /// ([`Transport::dedups_by_nonce`]), never once sent otherwise.
    DedupedByNonce,
}

/// The transport with the retry policy and budget: what every call of a client runs
/// through (plain calls, coalesced gets, batch chunks, scan pages).
#[derive(Clone)]
pub(crate) struct Attempts {
    pub(crate) transport: Arc<dyn Transport>,
    retry: Arc<dyn RetryPolicy>,
    budget: Duration,
}

impl Attempts {
    pub(crate) fn new(transport: Arc<dyn Transport>, retry: Arc<dyn RetryPolicy>, budget: Duration) -> Attempts {
        Attempts { transport, retry, budget }
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
            let error = match call(&*self.transport).await {
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
            match self.retry_after(attempt, started, &error) {
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
        Error::Transport { .. } | Error::GatewayDropped { .. } | Error::Timeout { .. } | Error::Protocol { .. } => true,
        Error::InvalidInput(_)
        | Error::TableNotFound { .. }
        | Error::NamespaceNotFound { .. }
        | Error::AlreadyExists { .. }
        | Error::NoSuchColumnFamily { .. }
        | Error::ScannerExpired { .. }
        | Error::IllegalArgument { .. }
        | Error::Server { .. }
        | Error::Busy { .. }
        | Error::NoGateway { .. }
        | Error::ClientClosed
        | Error::ServerInternal { .. }
        | Error::WriteOutcomeUnknown { .. }
        | Error::ScanIntegrity { .. }
        | Error::BatchFailed { .. } => false,
    }
}
