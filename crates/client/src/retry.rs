//! Retry policies: a small trait returning a decision, with a sensible default.
//!
//! Only idempotent calls (gets, scans, puts, deletes, admin reads) are ever retried;
//! increments, appends and check-and-mutate never are once sent, whatever the policy
//! says, nor are puts on the server's clock or deletes of a column's newest version
//! once an attempt of them may have run.

// Policy decisions: every error kind is listed, so a new one is decided, not defaulted.
#![deny(clippy::wildcard_enum_match_arm)]

use std::time::Duration;

use crate::error::Error;

/// What to do after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RetryDecision {
    /// Try again after waiting this long.
    Retry {
        /// The pause before the next attempt.
        after: Duration,
    },
    /// Give up and return the error.
    Fail,
}

/// Decides whether a failed idempotent call is tried again.
pub trait RetryPolicy: Send + Sync {
    /// `attempt` is the number of the attempt that just failed (1 for the first).
    fn decide(&self, attempt: u32, error: &Error) -> RetryDecision;
}

/// Retries retryable errors ([`Error::is_retryable`]) with exponential back-off from
/// `base_delay`, capped at `max_delay`: outages ([`Error::is_outage`]: the gateway
/// refuses connections, as during a restart, or a load balancer in front of it accepts
/// them and drops them before any reply) up to
/// `max_outage_attempts`, so that the client's retry budget
/// ([`ClientBuilder::retry_budget`](crate::ClientBuilder::retry_budget), 45 s) decides
/// when to give up; other retryable errors (timeouts, busy servers) up to
/// `max_attempts`, so that a server that accepts but never answers fails after a few
/// request timeouts, not dozens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultRetryPolicy {
    /// Attempts in all, the first included, for retryable errors that are not outages.
    /// Default: 4.
    pub max_attempts: u32,
    /// Attempts in all for outages. Default: unbounded (`u32::MAX`): the retry budget
    /// ends them.
    pub max_outage_attempts: u32,
    /// Pause after the first failure. Default: 50 ms.
    pub base_delay: Duration,
    /// Longest pause. Default: 2 s.
    pub max_delay: Duration,
    /// Pause after the first failure on a busy server ([`Error::Busy`]), doubling up to
    /// `max_delay`: a busy region needs a flush, a full queue time to drain. Default:
    /// 250 ms.
    pub busy_base_delay: Duration,
    /// Attempts in all on a busy server. Default: 8 (with the default delays, about
    /// 12 s of waiting; the retry budget may end them earlier).
    pub max_busy_attempts: u32,
}

impl Default for DefaultRetryPolicy {
    fn default() -> Self {
        DefaultRetryPolicy {
            max_attempts: 4,
            max_outage_attempts: u32::MAX,
            base_delay: Duration::from_millis(50),
            max_delay: Duration::from_secs(2),
            busy_base_delay: Duration::from_millis(250),
            max_busy_attempts: 8,
        }
    }
}

impl RetryPolicy for DefaultRetryPolicy {
    fn decide(&self, attempt: u32, error: &Error) -> RetryDecision {
        let busy = matches!(error, Error::Busy { .. });
        let (most, base) = match (busy, error.is_outage()) {
            (true, _) => (self.max_busy_attempts, self.busy_base_delay),
            (false, true) => (self.max_outage_attempts, self.base_delay),
            (false, false) => (self.max_attempts, self.base_delay),
        };
        if attempt >= most || !error.is_retryable() {
            return RetryDecision::Fail;
        }
        let factor = 1u32.checked_shl(attempt.saturating_sub(1)).unwrap_or(u32::MAX);
        RetryDecision::Retry { after: base.saturating_mul(factor).min(self.max_delay) }
    }
}

/// Never retries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoRetry;

impl RetryPolicy for NoRetry {
    fn decide(&self, _attempt: u32, _error: &Error) -> RetryDecision {
        RetryDecision::Fail
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operation::Operation;

    #[test]
    fn backs_off_exponentially_and_stops() {
        let policy = DefaultRetryPolicy::default();
        let retryable = Error::Timeout { operation: Operation::Get, after: Duration::from_secs(1) };
        assert_eq!(policy.decide(1, &retryable), RetryDecision::Retry { after: Duration::from_millis(50) });
        assert_eq!(policy.decide(3, &retryable), RetryDecision::Retry { after: Duration::from_millis(200) });
        assert_eq!(policy.decide(4, &retryable), RetryDecision::Fail);
        let fatal = Error::TableNotFound { table: "t".into() };
        assert_eq!(policy.decide(1, &fatal), RetryDecision::Fail);
        let long = DefaultRetryPolicy { max_attempts: 100, ..policy.clone() };
        assert_eq!(long.decide(40, &retryable), RetryDecision::Retry { after: Duration::from_secs(2) });
        // An outage (a gateway restarting) is retried past `max_attempts`: the client's
        // retry budget ends it.
        let refused = Error::Transport {
            addr: "h:1".into(),
            source: basalt_thrift::CallError::Connect {
                addr: "h:1".into(),
                source: std::io::Error::from(std::io::ErrorKind::ConnectionRefused),
            }
            .into(),
        };
        assert!(refused.is_outage());
        assert_eq!(policy.decide(30, &refused), RetryDecision::Retry { after: Duration::from_secs(2) });
        assert!(!retryable.is_outage());
        // So is a load balancer dropping new connections while its gateway restarts.
        let dropped =
            Error::DroppedBeforeReply { addr: "lb:1".into(), source: basalt_thrift::CallError::Closed.into() };
        assert!(dropped.is_outage());
        assert_eq!(policy.decide(30, &dropped), RetryDecision::Retry { after: Duration::from_secs(2) });
        // A connection dropped mid-reply is retried only `max_attempts` times.
        let cut = Error::Transport { addr: "h:1".into(), source: basalt_thrift::CallError::Closed.into() };
        assert!(!cut.is_outage());
        assert_eq!(policy.decide(4, &cut), RetryDecision::Fail);
    }
}
