//! The fault-injecting TCP proxy.
//!
//! Each accepted connection gets a *plan*, drawn from the [`Faults`] in force and the
//! proxy's seeded generator when it is accepted: forward everything, or, after a random
//! number of bytes (counted over both directions), cut the connection, stall it, or
//! drop every later reply byte, or garble or shorten one reply frame (for length-prefixed
//! replies). A delay, when set, is applied to every chunk.

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};
use tokio::task::JoinHandle;

use crate::frames::{FrameMangler, Mangle};
use crate::rng::Rng;

/// The faults applied to connections accepted from now on. [`Faults::none`] forwards
/// everything untouched.
#[derive(Debug, Clone, PartialEq)]
pub struct Faults {
    /// Probability that a connection is cut (both sockets closed) after a random number
    /// of bytes in `1..=within_bytes`.
    pub cut: f64,
    /// Probability that a connection stalls after a random number of bytes: nothing
    /// more is forwarded either way, the sockets stay open.
    pub stall: f64,
    /// Probability that a connection drops replies after a random number of bytes:
    /// requests still reach the upstream, its answers are read and thrown away.
    pub drop_replies: f64,
    /// Probability that one reply frame is garbled: the first frame from the upstream
    /// that starts after a random number of bytes keeps its length and has every body
    /// byte replaced by `0xFF`; the connection stays open. For upstreams whose replies
    /// are frames with a 4-byte big-endian length (HBase's native RPC, Thrift's framed
    /// transport).
    pub garble: f64,
    /// Probability that one reply frame is shortened: as for `garble`, but the frame is
    /// cut to the first half of its body, its length saying so, and the rest of it is
    /// dropped; later frames pass untouched (the stream stays in step).
    pub shorten: f64,
    /// The random byte position of a cut, stall, drop, garble or shortened frame is
    /// drawn in `1..=within_bytes`.
    pub within_bytes: u64,
    /// Pause before forwarding each chunk, both directions.
    pub delay: Duration,
}

impl Faults {
    /// No fault at all.
    pub fn none() -> Faults {
        Faults {
            cut: 0.0,
            stall: 0.0,
            drop_replies: 0.0,
            garble: 0.0,
            shorten: 0.0,
            within_bytes: 1,
            delay: Duration::ZERO,
        }
    }

    /// Cut a fraction `p` of connections at a random byte in `1..=within_bytes`.
    pub fn cut(p: f64, within_bytes: u64) -> Faults {
        Faults { cut: p, within_bytes, ..Faults::none() }
    }
}

impl Default for Faults {
    fn default() -> Faults {
        Faults::none()
    }
}

/// What the proxy did so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProxyStats {
    /// Connections accepted.
    pub connections: u64,
    /// Connections cut at a random byte.
    pub cuts: u64,
    /// Connections stalled.
    pub stalls: u64,
    /// Connections whose replies were dropped.
    pub dropped: u64,
    /// Reply frames garbled.
    pub garbled: u64,
    /// Reply frames shortened.
    pub shortened: u64,
    /// Connections ended by [`Proxy::kill_all`].
    pub killed: u64,
    /// Connections closed at once because no upstream answered.
    pub upstream_failures: u64,
    /// Bytes forwarded client to upstream.
    pub bytes_up: u64,
    /// Bytes forwarded upstream to client.
    pub bytes_down: u64,
}

#[derive(Default)]
struct Counters {
    connections: AtomicU64,
    cuts: AtomicU64,
    stalls: AtomicU64,
    dropped: AtomicU64,
    garbled: AtomicU64,
    shortened: AtomicU64,
    killed: AtomicU64,
    upstream_failures: AtomicU64,
    bytes_up: AtomicU64,
    bytes_down: AtomicU64,
}

struct Inner {
    upstreams: Mutex<Vec<String>>,
    next: AtomicUsize,
    faults: Mutex<Faults>,
    rng: Mutex<Rng>,
    kill: watch::Sender<u64>,
    counters: Counters,
    /// Reset (RST) instead of close a client whose upstream cannot be reached.
    reset_unreachable: AtomicBool,
}

/// A TCP proxy on `127.0.0.1`, forwarding to its upstreams with injected faults.
/// Dropping it stops accepting and closes every connection it carries.
pub struct Proxy {
    inner: Arc<Inner>,
    addr: SocketAddr,
    accept: JoinHandle<()>,
    refuse: watch::Sender<bool>,
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy").field("addr", &self.addr).field("stats", &self.stats()).finish()
    }
}

/// What happens to one connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Forward,
    Cut(u64),
    Stall(u64),
    DropReplies(u64),
    Mangle(Mangle, u64),
}

impl Proxy {
    /// Listens on `127.0.0.1:0` and forwards to `upstreams` (`host:port`), one
    /// connection to each in turn. `seed` fixes every random choice.
    pub async fn start(upstreams: Vec<String>, faults: Faults, seed: u64) -> io::Result<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let (kill, _) = watch::channel(0u64);
        let inner = Arc::new(Inner {
            upstreams: Mutex::new(upstreams),
            next: AtomicUsize::new(0),
            faults: Mutex::new(faults),
            rng: Mutex::new(Rng::new(seed)),
            kill,
            counters: Counters::default(),
            reset_unreachable: AtomicBool::new(false),
        });
        let accept_inner = inner.clone();
        let (refuse, mut refusing) = watch::channel(false);
        let accept = tokio::spawn(async move {
            let mut listener = Some(listener);
            loop {
                let Some(open) = &listener else {
                    // Refusing: no socket listens, so connecting is refused, as to a
                    // gateway that is restarting. Listen again when told.
                    if refusing.wait_for(|refuse| !*refuse).await.is_err() {
                        return;
                    }
                    listener = rebind(addr).await;
                    continue;
                };
                tokio::select! {
                    accepted = open.accept() => {
                        let Ok((client, _)) = accepted else {
                            // Out of descriptors or similar: back off instead of spinning.
                            tokio::time::sleep(Duration::from_millis(10)).await;
                            continue;
                        };
                        let inner = accept_inner.clone();
                        tokio::spawn(async move { inner.serve(client).await });
                    }
                    changed = refusing.changed() => {
                        if changed.is_err() {
                            return;
                        }
                        if *refusing.borrow() {
                            listener = None;
                        }
                    }
                }
            }
        });
        Ok(Proxy { inner, addr, accept, refuse })
    }

    /// While `true`, the proxy's port is closed: new connections are refused (existing
    /// ones are untouched; [`Proxy::kill_all`] cuts them). `false` listens again on the
    /// same port.
    pub fn refuse_connections(&self, refuse: bool) {
        self.refuse.send_replace(refuse);
    }

    /// The proxy's `127.0.0.1:port`, to give to the client under test.
    pub fn addr(&self) -> String {
        self.addr.to_string()
    }

    /// Replaces the faults for connections accepted from now on.
    pub fn set_faults(&self, faults: Faults) {
        *lock(&self.inner.faults) = faults;
    }

    /// Replaces the upstreams for connections accepted from now on (e.g. a gateway
    /// restarted on another port).
    pub fn set_upstreams(&self, upstreams: Vec<String>) {
        *lock(&self.inner.upstreams) = upstreams;
    }

    /// How a connection whose upstream cannot be reached ends (the proxy accepts it
    /// first, as a TCP load balancer does): `false` (the default) closes it at once,
    /// which the client sees as end of stream (or as a reset if its request was already
    /// there, unread); `true` resets it (`SO_LINGER` 0).
    pub fn reset_when_upstream_down(&self, reset: bool) {
        self.inner.reset_unreachable.store(reset, Ordering::Relaxed);
    }

    /// Cuts every connection open right now.
    pub fn kill_all(&self) {
        self.inner.kill.send_modify(|generation| *generation += 1);
    }

    /// The counters so far.
    pub fn stats(&self) -> ProxyStats {
        let c = &self.inner.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        ProxyStats {
            connections: get(&c.connections),
            cuts: get(&c.cuts),
            stalls: get(&c.stalls),
            dropped: get(&c.dropped),
            garbled: get(&c.garbled),
            shortened: get(&c.shortened),
            killed: get(&c.killed),
            upstream_failures: get(&c.upstream_failures),
            bytes_up: get(&c.bytes_up),
            bytes_down: get(&c.bytes_down),
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.accept.abort();
        self.kill_all();
    }
}

/// Listens on `addr` again (the port was ours a moment ago; retried briefly).
async fn rebind(addr: SocketAddr) -> Option<TcpListener> {
    for _ in 0..100 {
        if let Ok(listener) = TcpListener::bind(addr).await {
            return Some(listener);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    None
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Shared by the two directions of one connection.
struct Link {
    /// Bytes forwarded so far, both directions.
    bytes: AtomicU64,
    fate: Fate,
    /// Set once the fate's byte position was reached (counted once).
    struck: AtomicBool,
    /// Woken when either direction ends, so a stalled direction lets go.
    ended: Notify,
    /// Set when either direction ended (for a stall that begins afterwards).
    done: AtomicBool,
    delay: Duration,
}

/// How a direction ended.
enum End {
    /// The source closed; the other direction may go on.
    Eof,
    /// The connection must close now (cut, or a socket error).
    Close,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Up,
    Down,
}

impl Inner {
    fn plan(&self) -> (Fate, Duration) {
        let faults = lock(&self.faults).clone();
        let mut rng = lock(&self.rng);
        let at = rng.between(1, faults.within_bytes.max(1));
        let fate = if rng.chance(faults.cut) {
            Fate::Cut(at)
        } else if rng.chance(faults.stall) {
            Fate::Stall(at)
        } else if rng.chance(faults.drop_replies) {
            Fate::DropReplies(at)
        } else if rng.chance(faults.garble) {
            Fate::Mangle(Mangle::Garble, at)
        } else if rng.chance(faults.shorten) {
            Fate::Mangle(Mangle::Shorten, at)
        } else {
            Fate::Forward
        };
        (fate, faults.delay)
    }

    fn pick_upstream(&self) -> Option<String> {
        let upstreams = lock(&self.upstreams);
        if upstreams.is_empty() {
            return None;
        }
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        upstreams.get(n % upstreams.len()).cloned()
    }

    async fn serve(self: Arc<Self>, client: TcpStream) {
        self.counters.connections.fetch_add(1, Ordering::Relaxed);
        let mut kill = self.kill.subscribe();
        let upstream = match self.pick_upstream() {
            Some(addr) => tokio::time::timeout(Duration::from_secs(5), TcpStream::connect(addr)).await,
            None => Ok(Err(io::Error::new(io::ErrorKind::NotFound, "no upstream"))),
        };
        let Ok(Ok(upstream)) = upstream else {
            // Like a load balancer whose backend is down: close the client at once.
            self.counters.upstream_failures.fetch_add(1, Ordering::Relaxed);
            if self.reset_unreachable.load(Ordering::Relaxed) {
                let _ = client.set_zero_linger();
            }
            return;
        };
        let _ = client.set_nodelay(true);
        let _ = upstream.set_nodelay(true);
        let (fate, delay) = self.plan();
        let link = Link {
            bytes: AtomicU64::new(0),
            fate,
            struck: AtomicBool::new(false),
            ended: Notify::new(),
            done: AtomicBool::new(false),
            delay,
        };
        let (client_read, client_write) = client.into_split();
        let (upstream_read, upstream_write) = upstream.into_split();
        let up = self.pump(client_read, upstream_write, Direction::Up, &link);
        let down = self.pump(upstream_read, client_write, Direction::Down, &link);
        let both = async {
            tokio::pin!(up, down);
            let (mut up_done, mut down_done) = (false, false);
            while !(up_done && down_done) {
                tokio::select! {
                    end = &mut up, if !up_done => {
                        up_done = true;
                        link.done.store(true, Ordering::Relaxed);
                        link.ended.notify_waiters();
                        if matches!(end, End::Close) { return; }
                    }
                    end = &mut down, if !down_done => {
                        down_done = true;
                        link.done.store(true, Ordering::Relaxed);
                        link.ended.notify_waiters();
                        if matches!(end, End::Close) { return; }
                    }
                }
            }
        };
        tokio::select! {
            _ = both => {}
            _ = kill.changed() => {
                self.counters.killed.fetch_add(1, Ordering::Relaxed);
            }
        }
        // Dropping the halves closes both sockets.
    }

    async fn pump(&self, mut from: OwnedReadHalf, mut to: OwnedWriteHalf, dir: Direction, link: &Link) -> End {
        let mut buf = vec![0u8; 16 * 1024];
        let mut mangler = match (link.fate, dir) {
            (Fate::Mangle(mangle, at), Direction::Down) => Some(FrameMangler::new(mangle, at)),
            (Fate::Mangle(..), Direction::Up)
            | (Fate::Forward | Fate::Cut(_) | Fate::Stall(_) | Fate::DropReplies(_), _) => None,
        };
        let mut mangled = Vec::new();
        loop {
            let n = match from.read(&mut buf).await {
                Ok(0) => {
                    let _ = to.shutdown().await;
                    return End::Eof;
                }
                Ok(n) => n,
                Err(_) => return End::Close,
            };
            if !link.delay.is_zero() {
                tokio::time::sleep(link.delay).await;
            }
            let before = link.bytes.fetch_add(n as u64, Ordering::Relaxed);
            let (at, fate) = match link.fate {
                Fate::Forward | Fate::Mangle(..) => (u64::MAX, link.fate),
                Fate::Cut(at) | Fate::Stall(at) | Fate::DropReplies(at) => (at, link.fate),
            };
            let mut chunk = buf.get(..n).unwrap_or_default();
            let applies = !matches!(fate, Fate::DropReplies(_)) || dir == Direction::Down;
            if applies && before + n as u64 >= at {
                // The fate's byte is in this chunk: forward what comes before it.
                let keep = usize::try_from(at.saturating_sub(before).saturating_sub(1)).unwrap_or(n).min(n);
                let head = chunk.get(..keep).unwrap_or_default();
                let first = !link.struck.swap(true, Ordering::Relaxed);
                match fate {
                    Fate::Cut(_) => {
                        let _ = to.write_all(head).await;
                        if first {
                            self.counters.cuts.fetch_add(1, Ordering::Relaxed);
                        }
                        return End::Close;
                    }
                    Fate::Stall(_) => {
                        let _ = to.write_all(head).await;
                        if first {
                            self.counters.stalls.fetch_add(1, Ordering::Relaxed);
                        }
                        // Hold both sockets open, forwarding nothing, until the other
                        // direction ends or the proxy kills the connection.
                        let notified = link.ended.notified();
                        tokio::pin!(notified);
                        notified.as_mut().enable();
                        if !link.done.load(Ordering::Relaxed) {
                            notified.await;
                        }
                        return End::Close;
                    }
                    Fate::DropReplies(_) => {
                        if first {
                            self.counters.dropped.fetch_add(1, Ordering::Relaxed);
                        }
                        chunk = head;
                    }
                    Fate::Forward | Fate::Mangle(..) => {}
                }
            }
            if let Some(mangler) = mangler.as_mut() {
                mangled.clear();
                if mangler.pass(before, chunk, &mut mangled) {
                    let counter = match mangler.kind() {
                        Mangle::Garble => &self.counters.garbled,
                        Mangle::Shorten => &self.counters.shortened,
                    };
                    counter.fetch_add(1, Ordering::Relaxed);
                }
                chunk = &mangled;
            }
            if chunk.is_empty() {
                continue;
            }
            let counter = match dir {
                Direction::Up => &self.counters.bytes_up,
                Direction::Down => &self.counters.bytes_down,
            };
            counter.fetch_add(chunk.len() as u64, Ordering::Relaxed);
            if to.write_all(chunk).await.is_err() {
                return End::Close;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An echo server; returns its address.
    async fn echo() -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        tokio::spawn(async move {
            while let Ok((mut s, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let (mut r, mut w) = s.split();
                    let _ = tokio::io::copy(&mut r, &mut w).await;
                });
            }
        });
        addr
    }

    async fn round_trip(proxy: &Proxy, payload: &[u8]) -> io::Result<Vec<u8>> {
        let mut s = TcpStream::connect(proxy.addr()).await?;
        s.write_all(payload).await?;
        let mut got = vec![0u8; payload.len()];
        tokio::time::timeout(Duration::from_secs(2), s.read_exact(&mut got))
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "no echo"))??;
        Ok(got)
    }

    #[tokio::test]
    async fn forwards_untouched_and_round_robins() {
        let (a, b) = (echo().await, echo().await);
        let proxy = Proxy::start(vec![a, b], Faults::none(), 1).await.unwrap();
        for i in 0..6u8 {
            assert_eq!(round_trip(&proxy, &[i; 100]).await.unwrap(), vec![i; 100]);
        }
        let stats = proxy.stats();
        assert_eq!(stats.connections, 6);
        assert_eq!(stats.cuts, 0);
        assert_eq!(stats.bytes_up, 600);
        assert_eq!(stats.bytes_down, 600);
    }

    #[tokio::test]
    async fn cuts_every_connection_before_its_byte() {
        let proxy = Proxy::start(vec![echo().await], Faults::cut(1.0, 50), 9).await.unwrap();
        for _ in 0..10 {
            let mut s = TcpStream::connect(proxy.addr()).await.unwrap();
            let _ = s.write_all(&[7u8; 100]).await;
            let mut got = Vec::new();
            let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut got)).await.unwrap();
            assert!(got.len() < 100, "cut before the whole echo: got {}", got.len());
        }
        assert_eq!(proxy.stats().cuts, 10);
    }

    #[tokio::test]
    async fn stalls_and_drops_replies_and_kills() {
        let addr = echo().await;
        let stall = Faults { stall: 1.0, within_bytes: 1, ..Faults::none() };
        let proxy = Proxy::start(vec![addr.clone()], stall, 3).await.unwrap();
        assert!(round_trip(&proxy, b"hello").await.is_err(), "a stalled connection answers nothing");
        assert_eq!(proxy.stats().stalls, 1);

        proxy.set_faults(Faults { drop_replies: 1.0, within_bytes: 1, ..Faults::none() });
        assert!(round_trip(&proxy, b"hello").await.is_err(), "replies are dropped");
        assert_eq!(proxy.stats().dropped, 1);
        assert_eq!(proxy.stats().bytes_up, 5, "the second request went through (the stalled one did not)");

        proxy.set_faults(Faults::none());
        let mut s = TcpStream::connect(proxy.addr()).await.unwrap();
        s.write_all(b"x").await.unwrap();
        let mut one = [0u8; 1];
        s.read_exact(&mut one).await.unwrap();
        proxy.kill_all();
        let mut rest = Vec::new();
        let n = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut rest)).await.unwrap();
        assert!(n.is_err() || rest.is_empty(), "the killed connection is closed");
        assert!(proxy.stats().killed >= 1);
    }

    #[tokio::test]
    async fn refuses_then_listens_again_on_the_same_port() {
        let proxy = Proxy::start(vec![echo().await], Faults::none(), 1).await.unwrap();
        assert_eq!(round_trip(&proxy, b"a").await.unwrap(), b"a");
        proxy.refuse_connections(true);
        let mut refused = false;
        for _ in 0..50 {
            if TcpStream::connect(proxy.addr()).await.is_err() {
                refused = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(refused, "connections are refused");
        proxy.refuse_connections(false);
        let mut back = None;
        for _ in 0..50 {
            if let Ok(echoed) = round_trip(&proxy, b"b").await {
                back = Some(echoed);
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(back.as_deref(), Some(&b"b"[..]));
    }

    #[tokio::test]
    async fn an_absent_upstream_closes_the_client() {
        let gone = TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap().to_string();
        let proxy = Proxy::start(vec![gone], Faults::none(), 1).await.unwrap();
        assert!(round_trip(&proxy, b"x").await.is_err());
        assert_eq!(proxy.stats().upstream_failures, 1);
        proxy.reset_when_upstream_down(true);
        let mut s = TcpStream::connect(proxy.addr()).await.unwrap();
        let mut got = [0u8; 1];
        let read = tokio::time::timeout(Duration::from_secs(5), s.read(&mut got)).await.unwrap();
        let reset = read.as_ref().err().map(io::Error::kind);
        assert_eq!(reset, Some(io::ErrorKind::ConnectionReset), "{read:?}");
        assert_eq!(proxy.stats().upstream_failures, 2);
        proxy.set_upstreams(vec![echo().await]);
        assert_eq!(round_trip(&proxy, b"y").await.unwrap(), b"y");
    }

    /// A server answering each 4-byte-length frame it reads with the same frame.
    async fn frame_echo() -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        tokio::spawn(async move {
            while let Ok((mut s, _)) = listener.accept().await {
                tokio::spawn(async move {
                    while let Ok(len) = s.read_u32().await {
                        let mut body = vec![0u8; len as usize];
                        if s.read_exact(&mut body).await.is_err() {
                            return;
                        }
                        let _ = s.write_u32(len).await;
                        let _ = s.write_all(&body).await;
                    }
                });
            }
        });
        addr
    }

    #[tokio::test]
    async fn garbles_and_shortens_one_reply_frame() {
        let proxy = Proxy::start(vec![frame_echo().await], Faults::none(), 5).await.unwrap();
        for (faults, expect) in [
            (Faults { garble: 1.0, within_bytes: 1, ..Faults::none() }, vec![0xFFu8; 8]),
            (Faults { shorten: 1.0, within_bytes: 1, ..Faults::none() }, b"abcd".to_vec()),
        ] {
            proxy.set_faults(faults);
            let mut s = TcpStream::connect(proxy.addr()).await.unwrap();
            for round in 0..2 {
                s.write_u32(8).await.unwrap();
                s.write_all(b"abcdefgh").await.unwrap();
                let len = s.read_u32().await.unwrap();
                let mut body = vec![0u8; len as usize];
                s.read_exact(&mut body).await.unwrap();
                if round == 0 {
                    assert_eq!(body, expect, "the first reply is mangled");
                } else {
                    assert_eq!(body, b"abcdefgh", "later replies pass untouched");
                }
            }
        }
        let stats = proxy.stats();
        assert_eq!((stats.garbled, stats.shortened), (1, 1));
    }
}
