//! The connection pool: a bounded set of Thrift2 connections spread over one or more
//! gateways.
//!
//! Thrift carries one call per connection at a time, so the pool is where concurrency
//! comes from. A connection goes back to the pool only if it is clean: a call whose
//! future was dropped half-way, or that failed in transport, poisons its connection,
//! which is then closed. Idle connections are checked before reuse (the server closes
//! sockets idle for 60 s) and replaced silently. A gateway that refuses connections is
//! skipped for a back-off period and retried later.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use basalt_thrift::{CallError, Connection, ConnectionOptions};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::{Error, Result};
use crate::transport::PoolStats;

/// The name of the pools' connection gauge (see `basalt::metrics`).
pub const POOL_CONNECTIONS: &str = "basalt_pool_connections";

/// The state of a pooled connection, the label of [`POOL_CONNECTIONS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ConnectionState {
    /// Checked out for a call.
    InUse,
    /// Kept for reuse.
    Idle,
    /// Held by a scan between its pages.
    Pinned,
}

/// `by` connections entered (`by > 0`) or left (`by < 0`) `state`.
fn gauge(state: ConnectionState, by: i64) {
    let state = match state {
        ConnectionState::InUse => "in_use",
        ConnectionState::Idle => "idle",
        ConnectionState::Pinned => "pinned",
    };
    ::metrics::gauge!(POOL_CONNECTIONS, "state" => state).increment(by as f64);
}

#[derive(Debug, Default)]
struct Counters {
    opened: AtomicU64,
    replaced_dead: AtomicU64,
    discarded_poisoned: AtomicU64,
    discarded_idle: AtomicU64,
    connect_failures: AtomicU64,
}

struct Idle {
    conn: Connection,
    since: Instant,
}

struct Gateway {
    addr: String,
    idle: Mutex<Vec<Idle>>,
    down_until: Mutex<Option<Instant>>,
}

/// Shared pool state (one per `Client` and its clones).
pub(crate) struct Pool {
    gateways: Vec<Arc<Gateway>>,
    size: usize,
    next: AtomicUsize,
    permits: Arc<Semaphore>,
    options: ConnectionOptions,
    max_idle: Duration,
    down_backoff: Duration,
    counters: Arc<Counters>,
}

/// A connection checked out of the pool; it returns itself on drop if it is clean.
pub(crate) struct PooledConnection {
    conn: Option<Connection>,
    gateway: Arc<Gateway>,
    counters: Arc<Counters>,
    _permit: OwnedSemaphorePermit,
}

impl PooledConnection {
    /// The connection.
    pub(crate) fn conn(&mut self) -> &mut Connection {
        // Invariant: `conn` is `Some` until drop.
        self.conn.as_mut().expect("pooled connection used after release")
    }

    /// The gateway's address.
    pub(crate) fn addr(&self) -> &str {
        &self.gateway.addr
    }

    /// Takes the connection out of the pool for good (a scan pins its scanner to it);
    /// the slot is freed. Give it back with [`Pool::give_back`].
    pub(crate) fn detach(mut self) -> Detached {
        gauge(ConnectionState::Pinned, 1);
        Detached { conn: self.conn.take(), gateway: Arc::clone(&self.gateway) }
    }
}

/// A connection taken out of the pool by [`PooledConnection::detach`]: it holds no
/// slot, and is closed on drop unless given back.
pub(crate) struct Detached {
    conn: Option<Connection>,
    gateway: Arc<Gateway>,
}

impl Detached {
    /// The connection.
    pub(crate) fn conn(&mut self) -> Option<&mut Connection> {
        self.conn.as_mut()
    }

    /// The gateway's address.
    pub(crate) fn addr(&self) -> &str {
        &self.gateway.addr
    }

    /// Whether the connection is still there and clean.
    pub(crate) fn is_reusable(&self) -> bool {
        self.conn.as_ref().is_some_and(|c| c.is_reusable())
    }
}

impl Drop for Detached {
    fn drop(&mut self) {
        gauge(ConnectionState::Pinned, -1);
    }
}

impl Drop for PooledConnection {
    fn drop(&mut self) {
        gauge(ConnectionState::InUse, -1);
        if let Some(conn) = self.conn.take() {
            if conn.is_reusable() {
                if let Ok(mut idle) = self.gateway.idle.lock() {
                    idle.push(Idle { conn, since: Instant::now() });
                    gauge(ConnectionState::Idle, 1);
                }
            } else {
                self.counters.discarded_poisoned.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

impl Pool {
    pub(crate) fn new(
        addrs: Vec<String>,
        size: usize,
        options: ConnectionOptions,
        max_idle: Duration,
        down_backoff: Duration,
    ) -> Pool {
        Pool {
            size,
            gateways: addrs
                .into_iter()
                .map(|addr| Arc::new(Gateway { addr, idle: Mutex::new(Vec::new()), down_until: Mutex::new(None) }))
                .collect(),
            next: AtomicUsize::new(0),
            permits: Arc::new(Semaphore::new(size)),
            options,
            max_idle,
            down_backoff,
            counters: Arc::new(Counters::default()),
        }
    }

    pub(crate) fn stats(&self) -> PoolStats {
        let c = &self.counters;
        PoolStats {
            opened: c.opened.load(Ordering::Relaxed),
            replaced_dead: c.replaced_dead.load(Ordering::Relaxed),
            discarded_poisoned: c.discarded_poisoned.load(Ordering::Relaxed),
            discarded_idle: c.discarded_idle.load(Ordering::Relaxed),
            connect_failures: c.connect_failures.load(Ordering::Relaxed),
            coalesced_calls: 0,
            coalesced_gets: 0,
        }
    }

    /// Most connections checked out at once.
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// How the gateway delimits messages.
    pub(crate) fn framing(&self) -> basalt_thrift::Framing {
        self.options.framing
    }

    /// The largest reply a connection accepts (scans size their pages under it).
    pub(crate) fn max_response_bytes(&self) -> usize {
        self.options.max_response_bytes
    }

    /// A slot of the pool, without a connection (a pinned scan calls on its own).
    pub(crate) async fn permit(&self) -> Result<OwnedSemaphorePermit> {
        Arc::clone(&self.permits).acquire_owned().await.map_err(|_| Error::ClientClosed)
    }

    /// Returns a detached connection to its gateway's idle list if it is clean and the
    /// list has room; otherwise closes it.
    pub(crate) fn give_back(&self, mut detached: Detached) {
        let Some(conn) = detached.conn.take() else { return };
        if self.permits.is_closed() || !conn.is_reusable() {
            return;
        }
        if let Ok(mut idle) = detached.gateway.idle.lock() {
            if idle.len() < self.size {
                idle.push(Idle { conn, since: Instant::now() });
                gauge(ConnectionState::Idle, 1);
            }
        }
    }

    /// Closes the pool: waiting and later checkouts fail, idle connections are closed.
    pub(crate) fn shutdown(&self) {
        self.permits.close();
        for gateway in &self.gateways {
            if let Ok(mut idle) = gateway.idle.lock() {
                gauge(ConnectionState::Idle, -(idle.len() as i64));
                idle.clear();
            }
        }
    }

    /// A new connection (never an idle one), to warm the pool up.
    pub(crate) async fn checkout_fresh(&self) -> Result<PooledConnection> {
        let permit = self.permit().await?;
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        let gateway = &self.gateways[start % self.gateways.len()];
        match Connection::connect(&gateway.addr, self.options.clone()).await {
            Ok(conn) => {
                self.counters.opened.fetch_add(1, Ordering::Relaxed);
                Ok(self.wrap(conn, gateway, permit))
            }
            Err(e) => {
                self.counters.connect_failures.fetch_add(1, Ordering::Relaxed);
                Err(connect_error(&gateway.addr, e))
            }
        }
    }

    pub(crate) fn addrs(&self) -> Vec<String> {
        self.gateways.iter().map(|g| g.addr.clone()).collect()
    }

    /// Waits for a free slot, then hands out a clean connection: an idle one that is
    /// still alive, or a new one to the next gateway that is up.
    pub(crate) async fn checkout(&self) -> Result<PooledConnection> {
        let permit = self.permit().await?;
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        let n = self.gateways.len();
        let now = Instant::now();
        // Gateways that are up first (round robin), then those in back-off.
        let mut order: Vec<&Arc<Gateway>> = (0..n).map(|i| &self.gateways[(start + i) % n]).collect();
        order.sort_by_key(|g| g.down_until.lock().ok().and_then(|d| *d).is_some_and(|until| until > now));
        let mut last_error = None;
        for gateway in order {
            if let Some(conn) = self.take_idle(gateway) {
                return Ok(self.wrap(conn, gateway, permit));
            }
            match Connection::connect(&gateway.addr, self.options.clone()).await {
                Ok(conn) => {
                    self.counters.opened.fetch_add(1, Ordering::Relaxed);
                    if let Ok(mut down) = gateway.down_until.lock() {
                        *down = None;
                    }
                    return Ok(self.wrap(conn, gateway, permit));
                }
                Err(e) => {
                    self.counters.connect_failures.fetch_add(1, Ordering::Relaxed);
                    tracing::warn!(addr = %gateway.addr, error = %e, "Thrift2 gateway unreachable; backing off");
                    if let Ok(mut down) = gateway.down_until.lock() {
                        *down = Some(Instant::now() + self.down_backoff);
                    }
                    last_error = Some(connect_error(&gateway.addr, e));
                }
            }
        }
        let Some(last) = last_error else {
            // Unreachable: the builder refuses an empty address list.
            return Err(Error::Unreachable { tried: String::new(), last: Box::new(Error::ClientClosed) });
        };
        if n == 1 {
            return Err(last);
        }
        Err(Error::Unreachable { tried: self.addrs().join(", "), last: Box::new(last) })
    }

    fn take_idle(&self, gateway: &Gateway) -> Option<Connection> {
        let mut idle = gateway.idle.lock().ok()?;
        while let Some(Idle { conn, since }) = idle.pop() {
            gauge(ConnectionState::Idle, -1);
            if since.elapsed() > self.max_idle {
                self.counters.discarded_idle.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            if conn.is_reusable() {
                return Some(conn);
            }
            self.counters.replaced_dead.fetch_add(1, Ordering::Relaxed);
        }
        None
    }

    fn wrap(&self, conn: Connection, gateway: &Arc<Gateway>, permit: OwnedSemaphorePermit) -> PooledConnection {
        gauge(ConnectionState::InUse, 1);
        PooledConnection {
            conn: Some(conn),
            gateway: Arc::clone(gateway),
            counters: Arc::clone(&self.counters),
            _permit: permit,
        }
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        // The last handle on the gateway is gone (the pool's, or a connection's that
        // outlived it): its idle connections close and leave the gauge.
        if let Ok(idle) = self.idle.get_mut() {
            gauge(ConnectionState::Idle, -(idle.len() as i64));
        }
    }
}

fn connect_error(addr: &str, e: CallError) -> Error {
    super::errors::from_call(addr, None, e)
}
