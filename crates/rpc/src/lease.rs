//! Keeping a server-side scanner's lease alive while its reader is slow: a background
//! task renews the lease when no call has touched the scanner for a third of the lease
//! period the server announced (two chances before it expires, on a busy machine). Calls on the scanner and renewals never overlap (the
//! server drops a lease while a call on it is in progress, so a renewal racing a page
//! would fail it).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use crate::builder::RpcClient;
use crate::pb;

/// The shortest interval between renewals (a server announcing a tiny lease).
const MIN_RENEW_INTERVAL: Duration = Duration::from_millis(100);

/// The lease period assumed when the server does not announce one (HBase's default).
const DEFAULT_LEASE: Duration = Duration::from_secs(60);

/// The lease state of one [`crate::Scanner`], shared with its renewal task.
#[derive(Debug)]
pub(crate) struct Lease {
    /// The server-side scanner being kept alive (0: none).
    current: AtomicU64,
    /// Held across every call on the scanner; holds the time of the last one.
    gate: tokio::sync::Mutex<Instant>,
    /// Renewals the task made.
    renewals: AtomicU64,
}

impl Lease {
    pub(crate) fn new() -> Arc<Lease> {
        Arc::new(Lease {
            current: AtomicU64::new(0),
            gate: tokio::sync::Mutex::new(Instant::now()),
            renewals: AtomicU64::new(0),
        })
    }

    /// Taken around a call on the scanner; the call's end counts as a use.
    pub(crate) async fn gate(&self) -> tokio::sync::MutexGuard<'_, Instant> {
        self.gate.lock().await
    }

    /// The scanner the lease now belongs to (`None`: no open scanner).
    pub(crate) fn set_current(&self, id: Option<u64>) {
        self.current.store(id.unwrap_or(0), Ordering::Release);
    }

    pub(crate) fn renewals(&self) -> u64 {
        self.renewals.load(Ordering::Relaxed)
    }
}

/// The renewal interval for a lease of `ttl_ms` milliseconds (as the open reply says).
pub(crate) fn renew_interval(ttl_ms: Option<u32>) -> Duration {
    let lease = ttl_ms.filter(|ttl| *ttl > 0).map_or(DEFAULT_LEASE, |ttl| Duration::from_millis(u64::from(ttl)));
    (lease / 3).max(MIN_RENEW_INTERVAL)
}

/// A request that renews scanner `id`'s lease and fetches nothing.
pub(crate) fn renew_request(id: u64) -> pb::ScanRequest {
    pb::ScanRequest { scanner_id: Some(id), renew: Some(true), number_of_rows: Some(0), ..Default::default() }
}

/// Starts the renewal task of scanner `id` on `server`. It ends when the scanner moves
/// on (another region, closed, dropped) or a renewal fails (the next page then finds
/// the scanner gone and reopens).
pub(crate) fn spawn_renewer(client: RpcClient, server: String, id: u64, every: Duration, lease: Weak<Lease>) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    runtime.spawn(async move {
        let mut wait = every;
        loop {
            tokio::time::sleep(wait).await;
            let Some(lease) = lease.upgrade() else {
                return;
            };
            let mut last_used = lease.gate().await;
            if lease.current.load(Ordering::Acquire) != id {
                return;
            }
            // Due `every` after the scanner's last use, not after this task's last
            // wake-up (which could leave almost two intervals between uses).
            let idle = last_used.elapsed();
            if idle < every {
                wait = every - idle;
                continue;
            }
            wait = every;
            match client.call(&server, "Scan", &renew_request(id), None).await {
                Ok(_) => {
                    *last_used = Instant::now();
                    lease.renewals.fetch_add(1, Ordering::Relaxed);
                }
                Err(error) => {
                    tracing::debug!(%server, id, %error, "scanner lease renewal failed");
                    return;
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renewal_runs_at_a_third_of_the_lease() {
        assert_eq!(renew_interval(Some(3000)), Duration::from_secs(1));
        assert_eq!(renew_interval(None), Duration::from_secs(20));
        assert_eq!(renew_interval(Some(0)), Duration::from_secs(20));
        assert_eq!(renew_interval(Some(10)), MIN_RENEW_INTERVAL);
    }
}
