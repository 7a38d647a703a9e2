//! Operation nonces: one per increment or append, drawn once by the core before its
//! first attempt and carried by every retry, at every layer, so a server that
//! deduplicates by nonce applies the operation once however often it is sent.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// One operation's nonce (never 0, HBase's "no nonce").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OperationNonce(u64);

impl OperationNonce {
    /// A nonce no other operation of this process has: a random base drawn once per
    /// process plus a counter (no random draw per operation).
    pub(crate) fn next() -> OperationNonce {
        static BASE: OnceLock<u64> = OnceLock::new();
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let base = *BASE.get_or_init(|| {
            // Without a random source, the clock and the pid still tell processes apart.
            getrandom::u64().unwrap_or_else(|_| {
                let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
                now.map_or(0, |d| d.as_nanos() as u64) ^ u64::from(std::process::id()).rotate_left(48)
            })
        });
        loop {
            let nonce = base.wrapping_add(COUNTER.fetch_add(1, Ordering::Relaxed));
            if nonce != 0 {
                return OperationNonce(nonce);
            }
        }
    }

    /// The nonce's value.
    pub fn get(self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonces_differ_and_are_never_zero() {
        let nonces: std::collections::HashSet<u64> = (0..10_000).map(|_| OperationNonce::next().get()).collect();
        assert_eq!(nonces.len(), 10_000);
        assert!(!nonces.contains(&0));
    }
}
