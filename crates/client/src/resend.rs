//! What may be resent, and who counts the resends: shared by the client's core (the
//! retry loop) and the transports below it (which retry where only they can), so that
//! both layers decide alike.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::ops::{DeleteSpec, Put};

tokio::task_local! {
    /// The call whose attempt is running (set by the client's core around each
    /// attempt): a transport that retries below the seam (native RPC) counts its
    /// retries and spends its time in the same call, under the same policy.
    pub(crate) static CALL: CallRetries;
}

/// One call's retries as every layer sees them: when it started (the retry budget is
/// counted from there) and how many of its attempts have failed so far.
#[derive(Debug, Clone)]
pub(crate) struct CallRetries {
    started: Instant,
    failures: Arc<AtomicU32>,
    /// Set when a layer below the core gave up on the call under the same policy and
    /// budget (a server's wait past the budget, say): the core does not try again.
    ended: Arc<AtomicBool>,
}

impl CallRetries {
    /// A call started at `started`, no attempt failed yet.
    pub(crate) fn new(started: Instant) -> CallRetries {
        CallRetries { started, failures: Arc::new(AtomicU32::new(0)), ended: Arc::new(AtomicBool::new(false)) }
    }

    /// Marks the call ended: the retry policy (or the budget) refused a resend below
    /// the core, and its answer holds for the core too.
    pub(crate) fn end(&self) {
        self.ended.store(true, Ordering::Relaxed);
    }

    /// Whether a layer below the core ended the call ([`CallRetries::end`]).
    pub(crate) fn ended(&self) -> bool {
        self.ended.load(Ordering::Relaxed)
    }

    /// The call the running attempt belongs to, if it runs inside the client's core.
    pub(crate) fn current() -> Option<CallRetries> {
        CALL.try_with(CallRetries::clone).ok()
    }

    /// When the call started.
    pub(crate) fn started(&self) -> Instant {
        self.started
    }

    /// Counts one more failed attempt; its number (1 for the first).
    pub(crate) fn next_failure(&self) -> u32 {
        self.failures.fetch_add(1, Ordering::Relaxed).saturating_add(1)
    }
}

/// Whether a delete cell removes a column's newest version, whichever it is when the
/// server applies it.
pub(crate) fn deletes_newest_version(spec: &DeleteSpec) -> bool {
    match spec {
        // HBase's `LATEST_TIMESTAMP` given as the version means the newest too.
        DeleteSpec::ColumnVersion(_, _, ts) => ts.is_none_or(|ts| ts == i64::MAX),
        DeleteSpec::ColumnAllVersions(..) | DeleteSpec::Family(..) | DeleteSpec::FamilyVersion(..) => false,
    }
}

/// Whether a put writes a cell at the server's clock: a cell without a timestamp of its
/// own when the put has none either, or one stamped HBase's `LATEST_TIMESTAMP`. Applied
/// twice, such a put writes its value as two versions.
pub(crate) fn puts_on_server_clock(put: &Put) -> bool {
    let latest = |ts: i64| ts == i64::MAX;
    let put_unstamped = put.timestamp.is_none_or(latest);
    put.cells.iter().any(|(_, _, _, ts)| match ts {
        Some(ts) => latest(*ts),
        None => put_unstamped,
    })
}
