//! The client's retry policy deciding the native RPC layer's own retries: one policy,
//! one budget for a call, whichever layer resends.

use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_rpc::{RetryRule, RpcError};
use basalt_rpc_protocol::exception::RetryHint;

use super::errors::map_error;
use crate::resend::CallRetries;
use crate::retry::{RetryDecision, RetryPolicy};
use crate::transport::Operation;

/// The client's [`RetryPolicy`] as the RPC layer's [`RetryRule`] for one attempt of
/// `operation`. Inside a call of the client's core ([`CallRetries`]), failures count
/// against the call's attempts and the budget is the call's; a region found elsewhere
/// (the server refused the call: nothing ran) is numbered per RPC operation, as a
/// relocation, not a failed attempt of the call; a resend the server asks for at once
/// (`RetryImmediately`, `MultiActionResultTooLarge`) is not counted.
pub(super) struct PolicyRule {
    pub(super) policy: Arc<dyn RetryPolicy>,
    pub(super) budget: Duration,
    pub(super) operation: Operation,
    pub(super) table: Option<String>,
    pub(super) call: Option<CallRetries>,
}

impl std::fmt::Debug for PolicyRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicyRule").field("budget", &self.budget).field("operation", &self.operation).finish()
    }
}

impl RetryRule for PolicyRule {
    fn retry_after(&self, attempt: u32, started: Instant, error: &RpcError) -> Option<Duration> {
        let since = self.call.as_ref().map_or(started, CallRetries::started);
        let hint = basalt_rpc::retry_hint(error);
        let after = match hint {
            // The server answered part and asks for the rest at once (as HBase's Java
            // client, not counted as a failed attempt: each round makes progress).
            RetryHint::Immediately => Duration::ZERO,
            RetryHint::Backoff | RetryHint::After(_) => {
                let relocation = !error.may_have_run() && error.invalidates_location();
                let number = match (&self.call, relocation) {
                    (Some(call), false) => call.next_failure(),
                    (Some(_), true) | (None, false | true) => attempt,
                };
                let mapped = map_error(error, self.operation, self.table.as_deref());
                match self.policy.decide(number, &mapped) {
                    RetryDecision::Retry { after } => after,
                    RetryDecision::Fail => return None,
                }
            }
        };
        // The server's wait first (a throttling quota); a wait past the budget fails now.
        let wait = match hint {
            RetryHint::After(wait) => wait.max(after),
            RetryHint::Immediately | RetryHint::Backoff => after,
        };
        let resend = (since.elapsed() + wait <= self.budget).then_some(wait);
        if let (None, RetryHint::After(_), Some(call)) = (resend, hint, &self.call) {
            // The server's wait ends past the budget: the call ends now, in the client's
            // core too (which cannot see the wait and would resend into the same
            // refusal).
            call.end();
        }
        resend
    }
}
