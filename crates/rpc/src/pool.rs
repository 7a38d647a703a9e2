//! One connection per server and service, opened on first use and replaced on the next
//! use after it failed; an optional address map says where to connect for a server's
//! advertised address.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use basalt_rpc_protocol::call::Service;

use crate::conn::{Connection, ConnectionOptions};
use crate::error::RpcError;

/// A pooled connection and its number (which connection of the pool it is).
type Slot = Arc<tokio::sync::Mutex<Option<(u64, Connection)>>>;

/// Where to connect for the addresses servers advertise (in the connection registry
/// and `hbase:meta`): HBase in Docker or behind NAT advertises host names or ports the
/// client cannot reach, and a test puts a proxy in front of a server.
///
/// An entry maps either a whole `host:port` to another `host:port`, or a host alone to
/// another host (the port is kept). A whole-address entry wins over a host entry;
/// addresses matching no entry are connected to as advertised.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddressMap {
    addrs: HashMap<String, String>,
    hosts: HashMap<String, String>,
}

impl AddressMap {
    /// An empty map: every address is connected to as advertised.
    pub fn new() -> AddressMap {
        AddressMap::default()
    }

    /// Adds an entry: connect to `connect_to` for `advertised`. Both are `host:port`,
    /// or both are a bare host (then every port of that host maps to the same port of
    /// the other host). Anything else is an [`RpcError::InvalidArgument`].
    pub fn insert(&mut self, advertised: &str, connect_to: &str) -> Result<(), RpcError> {
        match (split_host_port(advertised), split_host_port(connect_to)) {
            (Some(Ok(_)), Some(Ok(_))) => {
                self.addrs.insert(advertised.to_owned(), connect_to.to_owned());
                Ok(())
            }
            (None, None) if valid_host(advertised) && valid_host(connect_to) => {
                self.hosts.insert(advertised.to_owned(), connect_to.to_owned());
                Ok(())
            }
            (Some(Err(why)), _) | (_, Some(Err(why))) => Err(RpcError::InvalidArgument(why)),
            (Some(Ok(_)), None) | (None, Some(Ok(_))) | (None, None) => Err(RpcError::InvalidArgument(format!(
                "address map entry {advertised:?} -> {connect_to:?}: give host:port for both or a host for both"
            ))),
        }
    }

    /// Whether the map has no entry.
    pub fn is_empty(&self) -> bool {
        self.addrs.is_empty() && self.hosts.is_empty()
    }

    /// Where to connect for `advertised` (itself when no entry matches).
    pub fn route(&self, advertised: &str) -> String {
        if let Some(to) = self.addrs.get(advertised) {
            return to.clone();
        }
        if let Some(Ok((host, port))) = split_host_port(advertised) {
            if let Some(to) = self.hosts.get(host) {
                return format!("{to}:{port}");
            }
        }
        advertised.to_owned()
    }
}

/// `Some(Ok((host, port)))` for `host:port`, `Some(Err)` for a port that is not one,
/// `None` when there is no colon (a bare host). IPv6 literals go in brackets.
fn split_host_port(addr: &str) -> Option<Result<(&str, u16), String>> {
    let (host, port) = addr.rsplit_once(':')?;
    if host.contains(':') && !(host.starts_with('[') && host.ends_with(']')) {
        return Some(Err(format!("{addr:?}: an IPv6 address goes in brackets, as [::1]:16020")));
    }
    if !valid_host(host) {
        return Some(Err(format!("{addr:?} has no host")));
    }
    Some(port.parse::<u16>().map(|port| (host, port)).map_err(|_| format!("{addr:?} has no valid port")))
}

fn valid_host(host: &str) -> bool {
    !host.is_empty() && !host.chars().any(char::is_whitespace)
}

/// The connections of a client, keyed by `host:port` (as advertised) and service.
#[derive(Debug, Default)]
pub(crate) struct Pool {
    slots: Mutex<HashMap<(String, Service), Slot>>,
    options: ConnectionOptions,
    addresses: AddressMap,
    opened: AtomicU64,
    connect_failures: AtomicU64,
}

impl Pool {
    /// A pool opening connections with `options`, to the addresses `addresses` gives.
    pub fn new(options: ConnectionOptions, addresses: AddressMap) -> Pool {
        Pool {
            slots: Mutex::new(HashMap::new()),
            options,
            addresses,
            opened: AtomicU64::new(0),
            connect_failures: AtomicU64::new(0),
        }
    }

    /// The live connection to `addr` (as advertised) for `service`, with its number for
    /// [`Pool::discard`], opening one (to where the address map routes `addr`) if there
    /// is none or the last one failed. Concurrent callers for the same server wait for
    /// one connect.
    pub async fn get(&self, addr: &str, service: Service) -> Result<(u64, Connection), RpcError> {
        let slot = {
            let mut slots = match self.slots.lock() {
                Ok(slots) => slots,
                Err(poisoned) => poisoned.into_inner(),
            };
            slots.entry((addr.to_owned(), service)).or_default().clone()
        };
        let mut slot = slot.lock().await;
        if let Some((number, conn)) = slot.as_ref() {
            if !conn.is_broken() {
                return Ok((*number, conn.clone()));
            }
        }
        let target = self.addresses.route(addr);
        let conn = match Connection::connect(&target, service, &self.options).await {
            Ok(conn) => conn,
            Err(error) => {
                self.connect_failures.fetch_add(1, Ordering::Relaxed);
                return Err(match error {
                    RpcError::Connect { addr: to, reason } if to != addr => {
                        RpcError::Connect { addr: to, reason: format!("{reason} (the address map's route for {addr})") }
                    }
                    other => other,
                });
            }
        };
        let number = self.opened.fetch_add(1, Ordering::Relaxed);
        *slot = Some((number, conn.clone()));
        Ok((number, conn))
    }

    /// Forgets connection `number` to `addr` for `service`, if it is still the pooled
    /// one: the next call opens a new connection. Calls waiting on it keep it (and its
    /// socket) until they end.
    pub async fn discard(&self, addr: &str, service: Service, number: u64) {
        let slot = {
            let slots = match self.slots.lock() {
                Ok(slots) => slots,
                Err(poisoned) => poisoned.into_inner(),
            };
            slots.get(&(addr.to_owned(), service)).cloned()
        };
        let Some(slot) = slot else {
            return;
        };
        let mut slot = slot.lock().await;
        // A newer connection (opened since) stays.
        if slot.as_ref().is_some_and(|(pooled, _)| *pooled == number) {
            *slot = None;
        }
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
            .filter(|slot| slot.try_lock().is_ok_and(|conn| conn.as_ref().is_some_and(|(_, c)| !c.is_broken())))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_whole_addresses_then_hosts_and_refuses_mixed_entries() {
        let mut map = AddressMap::new();
        assert!(map.is_empty());
        map.insert("rs1.internal:16020", "127.0.0.1:26020").unwrap();
        map.insert("rs1.internal", "localhost").unwrap();
        map.insert("[fe80::1]:16020", "[::1]:16021").unwrap();
        assert_eq!(map.route("rs1.internal:16020"), "127.0.0.1:26020");
        assert_eq!(map.route("rs1.internal:16030"), "localhost:16030");
        assert_eq!(map.route("[fe80::1]:16020"), "[::1]:16021");
        assert_eq!(map.route("rs2.internal:16020"), "rs2.internal:16020");
        assert_eq!(map.route("no-port"), "no-port");
        for (from, to) in [
            ("rs1:16020", "localhost"),
            ("rs1", "localhost:1"),
            ("rs1:x", "h:1"),
            ("h:1", ":2"),
            ("fe80::1:16020", "h:1"),
            ("", ""),
        ] {
            let refused = map.insert(from, to);
            assert!(matches!(refused, Err(RpcError::InvalidArgument(_))), "{from} -> {to}: {refused:?}");
        }
    }

    #[tokio::test]
    async fn connects_where_the_map_routes_and_names_the_route_when_it_fails() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let real = listener.local_addr().unwrap().to_string();
        let mut map = AddressMap::new();
        map.insert("advertised.invalid:16020", &real).unwrap();
        let pool = Pool::new(ConnectionOptions::default(), map);
        // Accepts and keeps every connection; says how many it accepted.
        let (accepted_tx, mut accepted) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut sockets = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                sockets.push(socket);
                let _ = accepted_tx.send(sockets.len());
            }
        });
        let (number, conn) = pool.get("advertised.invalid:16020", Service::Client).await.unwrap();
        assert_eq!(conn.addr(), real);
        assert_eq!(accepted.recv().await, Some(1));
        assert_eq!(pool.counters(), (1, 0));
        // The same advertised address reuses the connection.
        assert_eq!(pool.get("advertised.invalid:16020", Service::Client).await.unwrap().1.addr(), real);
        assert_eq!(pool.counters(), (1, 0));
        // Discarded (a call on it went unanswered): the next call opens a new one; a
        // stale number discards nothing.
        pool.discard("advertised.invalid:16020", Service::Client, number).await;
        let (newer, _) = pool.get("advertised.invalid:16020", Service::Client).await.unwrap();
        assert_ne!(newer, number);
        assert_eq!(accepted.recv().await, Some(2));
        pool.discard("advertised.invalid:16020", Service::Client, number).await;
        assert_eq!(pool.get("advertised.invalid:16020", Service::Client).await.unwrap().0, newer);
        assert_eq!(pool.counters(), (2, 0));

        let gone = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap().to_string();
        let mut map = AddressMap::new();
        map.insert("dead.invalid:1", &gone).unwrap();
        let pool = Pool::new(ConnectionOptions::default(), map);
        match pool.get("dead.invalid:1", Service::Client).await {
            Err(RpcError::Connect { addr, reason }) => {
                assert_eq!(addr, gone);
                assert!(reason.contains("route for dead.invalid:1"), "{reason}");
            }
            other => panic!("expected a connect error, got {other:?}"),
        }
        assert_eq!(pool.counters(), (0, 1));
    }
}
