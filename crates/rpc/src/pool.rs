//! One connection per server and service, opened on first use and replaced on the next
//! use after it failed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use basalt_rpc_protocol::call::Service;

use crate::conn::{Connection, ConnectionOptions};
use crate::error::RpcError;

type Slot = Arc<tokio::sync::Mutex<Option<Connection>>>;

/// The connections of a client, keyed by `host:port` and service.
#[derive(Debug, Default)]
pub(crate) struct Pool {
    slots: Mutex<HashMap<(String, Service), Slot>>,
    options: ConnectionOptions,
    opened: AtomicU64,
    connect_failures: AtomicU64,
}

impl Pool {
    /// A pool opening connections with `options`.
    pub fn new(options: ConnectionOptions) -> Pool {
        Pool {
            slots: Mutex::new(HashMap::new()),
            options,
            opened: AtomicU64::new(0),
            connect_failures: AtomicU64::new(0),
        }
    }

    /// The live connection to `addr` for `service`, opening one if there is none or the
    /// last one failed. Concurrent callers for the same server wait for one connect.
    pub async fn get(&self, addr: &str, service: Service) -> Result<Connection, RpcError> {
        let slot = {
            let mut slots = match self.slots.lock() {
                Ok(slots) => slots,
                Err(poisoned) => poisoned.into_inner(),
            };
            slots.entry((addr.to_owned(), service)).or_default().clone()
        };
        let mut slot = slot.lock().await;
        if let Some(conn) = slot.as_ref() {
            if !conn.is_broken() {
                return Ok(conn.clone());
            }
        }
        let conn = match Connection::connect(addr, service, &self.options).await {
            Ok(conn) => conn,
            Err(error) => {
                self.connect_failures.fetch_add(1, Ordering::Relaxed);
                return Err(error);
            }
        };
        self.opened.fetch_add(1, Ordering::Relaxed);
        *slot = Some(conn.clone());
        Ok(conn)
    }

    /// Connections opened so far, and connects that failed.
    pub fn counters(&self) -> (u64, u64) {
        (self.opened.load(Ordering::Relaxed), self.connect_failures.load(Ordering::Relaxed))
    }

    /// How many connections are open and not failed.
    pub fn live_connections(&self) -> usize {
        let slots = match self.slots.lock() {
            Ok(slots) => slots,
            Err(poisoned) => poisoned.into_inner(),
        };
        slots
            .values()
            .filter(|slot| slot.try_lock().is_ok_and(|conn| conn.as_ref().is_some_and(|c| !c.is_broken())))
            .count()
    }
}
