//! Who decides the RPC layer's own retries: one [`RetryRule`] per client.
//!
//! The layer resends where only it can: a region that moved is looked up again, a
//! batch resends only the actions that failed. It decides *what* may be resent (a
//! retryable error; for a write whose attempt may have run, only if it may run twice or
//! carries a nonce the servers keep); the rule decides *whether and when*: the pause,
//! server hints included, and the end of the budget. A caller with a retry policy of
//! its own (Basalt's client) gives it here, so the layers share one policy and one
//! budget ([`RpcClient::with_retry_rule`](crate::RpcClient::with_retry_rule)).

use std::fmt;
use std::time::{Duration, Instant};

use basalt_rpc_protocol::exception::RetryHint;

use crate::error::RpcError;

/// Decides whether and when the RPC layer sends a failed attempt again.
pub trait RetryRule: Send + Sync + fmt::Debug {
    /// `attempt` attempts (1 for the first) of the operation started at `started` have
    /// failed, the last with `error`, which the layer may resend (it is retryable and,
    /// for a write, allowed to run again). The pause before the next attempt, or
    /// `None` to give up with `error`.
    fn retry_after(&self, attempt: u32, started: Instant, error: &RpcError) -> Option<Duration>;
}

/// The layer's own rule, when no other is given: pauses doubling from `pause` up to
/// 1 s, the server's hints honoured (a throttling wait, a retry at once), until
/// `operation_timeout` after the operation started; a hinted wait that would end past
/// it fails at once, as HBase's Java client does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// The first pause.
    pub pause: Duration,
    /// The operation's deadline, from its start.
    pub operation_timeout: Duration,
}

impl RetryRule for Backoff {
    fn retry_after(&self, attempt: u32, started: Instant, error: &RpcError) -> Option<Duration> {
        let wait = match retry_hint(error) {
            RetryHint::Immediately => Duration::ZERO,
            RetryHint::Backoff => backoff(self.pause, attempt, Duration::from_secs(1)),
            RetryHint::After(wait) => wait,
        };
        (started.elapsed() + wait < self.operation_timeout).then_some(wait)
    }
}

/// What the server said about retrying `error` (a back-off when it said nothing).
pub fn retry_hint(error: &RpcError) -> RetryHint {
    error.remote().map_or(RetryHint::Backoff, |remote| remote.exception.retry_hint())
}

/// `pause` doubled per attempt after the first, at most `max`.
fn backoff(pause: Duration, attempt: u32, max: Duration) -> Duration {
    pause.saturating_mul(1 << attempt.saturating_sub(1).min(5)).min(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_rule_backs_off_and_ends_at_the_deadline() {
        let rule = Backoff { pause: Duration::from_millis(50), operation_timeout: Duration::from_secs(600) };
        let timeout = RpcError::Timeout { addr: "h:1".into(), method: "Get", timeout: Duration::from_secs(1) };
        let now = Instant::now();
        assert_eq!(rule.retry_after(1, now, &timeout), Some(Duration::from_millis(50)));
        assert_eq!(rule.retry_after(3, now, &timeout), Some(Duration::from_millis(200)));
        assert_eq!(rule.retry_after(30, now, &timeout), Some(Duration::from_secs(1)));
        // Past the deadline (here: none at all), nothing is resent.
        let none = Backoff { operation_timeout: Duration::ZERO, ..rule };
        assert_eq!(none.retry_after(1, now, &timeout), None);
    }
}
