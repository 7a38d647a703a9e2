//! Retry policies: a small trait returning a decision, with a sensible default.
//!
//! Only idempotent calls (gets, scans, puts, deletes, admin reads) are ever retried;
//! increments, appends and check-and-mutate never are, whatever the policy says.

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

/// Retries retryable errors ([`Error::is_retryable`]) up to `max_attempts` in all,
/// with exponential back-off from `base_delay`, capped at `max_delay`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultRetryPolicy {
    /// Attempts in all, the first included. Default: 4.
    pub max_attempts: u32,
    /// Pause after the first failure. Default: 50 ms.
    pub base_delay: Duration,
    /// Longest pause. Default: 2 s.
    pub max_delay: Duration,
}

impl Default for DefaultRetryPolicy {
    fn default() -> Self {
        DefaultRetryPolicy { max_attempts: 4, base_delay: Duration::from_millis(50), max_delay: Duration::from_secs(2) }
    }
}

impl RetryPolicy for DefaultRetryPolicy {
    fn decide(&self, attempt: u32, error: &Error) -> RetryDecision {
        if attempt >= self.max_attempts || !error.is_retryable() {
            return RetryDecision::Fail;
        }
        let factor = 1u32.checked_shl(attempt.saturating_sub(1)).unwrap_or(u32::MAX);
        RetryDecision::Retry { after: self.base_delay.saturating_mul(factor).min(self.max_delay) }
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

    #[test]
    fn backs_off_exponentially_and_stops() {
        let policy = DefaultRetryPolicy::default();
        let retryable = Error::Timeout { operation: "get", after: Duration::from_secs(1) };
        assert_eq!(policy.decide(1, &retryable), RetryDecision::Retry { after: Duration::from_millis(50) });
        assert_eq!(policy.decide(3, &retryable), RetryDecision::Retry { after: Duration::from_millis(200) });
        assert_eq!(policy.decide(4, &retryable), RetryDecision::Fail);
        let fatal = Error::TableNotFound { table: "t".into() };
        assert_eq!(policy.decide(1, &fatal), RetryDecision::Fail);
        let long = DefaultRetryPolicy { max_attempts: 100, ..policy };
        assert_eq!(long.decide(40, &retryable), RetryDecision::Retry { after: Duration::from_secs(2) });
    }
}
