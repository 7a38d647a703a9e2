//! The client handle, its builder, and how one call is run (pool, timeout, retries).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::transport::thrift::{ConnectionOptions, Framing, Protocol, Security};

use crate::attempt::Attempts;
use crate::coalesce::GetCoalescer;
use crate::error::{InvalidInput, Result};
use crate::retry::{DefaultRetryPolicy, RetryPolicy};
use crate::site::{HBaseSite, SiteRoute};
use crate::transport::native::{NativeSettings, NativeTransport};
use crate::transport::thrift::pool::Pool;
use crate::transport::thrift::ThriftTransport;
use crate::transport::PoolStats;
use crate::transport::Transport;

/// Builds a [`Client`]. Every setting has a documented default.
#[derive(Clone)]
pub struct ClientBuilder {
    addrs: Vec<String>,
    framing: Framing,
    protocol: Protocol,
    connect_timeout: Duration,
    request_timeout: Duration,
    pool_size: usize,
    nodelay: bool,
    max_response_bytes: usize,
    max_idle: Duration,
    down_backoff: Duration,
    max_value_bytes: usize,
    retry: Arc<dyn RetryPolicy>,
    security: Security,
    /// Whether `security` was set by a call (it then wins over a site file's).
    security_set: bool,
    site: Option<SiteSource>,
    retry_budget: Duration,
    /// `None`: the transport's default.
    gets_in_flight: Option<usize>,
    native: Vec<String>,
    native_zookeeper: Option<String>,
    native_znode_parent: Option<String>,
    native_addresses: Vec<(String, String)>,
    primary_call_timeout: Duration,
    resend_unstamped_puts: bool,
}

/// How many single-row get calls a client sends at once by default; gets beyond that
/// wait and are coalesced into one `getMultiple` (see [`ClientBuilder::gets_in_flight`]).
pub const DEFAULT_GETS_IN_FLIGHT: usize = 4;
/// Single-row gets sent at once to each region server over native RPC before later
/// ones for that server are coalesced into one multi-get. Per server, so a coalesced
/// call never waits for another server: with three region servers and 16 tasks, 4 per
/// server gave 18,021 gets/s (p99 5.2 ms) where 16 per server gave 13,042 (9.7 ms) and
/// 4 for all servers together 5,342 (34 ms).
pub const DEFAULT_NATIVE_GETS_IN_FLIGHT: usize = 4;

/// How long retries of one call (or one scan's recovery) may go on by default: longer
/// than a routine gateway restart (10-15 s), short enough to report an outage.
pub const DEFAULT_RETRY_BUDGET: Duration = Duration::from_secs(45);

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("addrs", &self.addrs)
            .field("framing", &self.framing)
            .field("protocol", &self.protocol)
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("pool_size", &self.pool_size)
            .field("retry_budget", &self.retry_budget)
            .field("gets_in_flight", &self.gets_in_flight)
            .field("resend_unstamped_puts", &self.resend_unstamped_puts)
            .field("site", &self.site)
            .finish_non_exhaustive()
    }
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder {
            addrs: Vec::new(),
            framing: Framing::Buffered,
            protocol: Protocol::Binary,
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(60),
            pool_size: 16,
            nodelay: true,
            max_response_bytes: 256 << 20,
            max_idle: Duration::from_secs(50),
            down_backoff: Duration::from_secs(5),
            max_value_bytes: 10 << 20,
            security: Security::default(),
            security_set: false,
            site: None,
            retry: Arc::new(DefaultRetryPolicy::default()),
            retry_budget: DEFAULT_RETRY_BUDGET,
            gets_in_flight: None,
            native: Vec::new(),
            native_zookeeper: None,
            native_znode_parent: None,
            native_addresses: Vec::new(),
            primary_call_timeout: Duration::from_millis(10),
            resend_unstamped_puts: false,
        }
    }
}

/// Where the builder's site file comes from, read by [`ClientBuilder::build`].
#[derive(Debug, Clone)]
enum SiteSource {
    File(PathBuf),
    Dir(PathBuf),
    Found,
    Parsed(Box<HBaseSite>),
}

impl SiteSource {
    /// The site file, read now; `None` when [`HBaseSite::find`] finds none.
    fn load(self) -> Result<Option<HBaseSite>> {
        Ok(match self {
            SiteSource::File(path) => Some(HBaseSite::load(path)?),
            SiteSource::Dir(dir) => Some(HBaseSite::in_dir(dir)?),
            SiteSource::Found => HBaseSite::find()?,
            SiteSource::Parsed(site) => Some(*site),
        })
    }
}

/// Whether `addr` is `host:port`: a host without spaces and a port that fits 16 bits.
fn is_host_port(addr: &str) -> bool {
    addr.rsplit_once(':').is_some_and(|(host, port)| {
        !host.is_empty() && !host.chars().any(char::is_whitespace) && port.parse::<u16>().is_ok()
    })
}

impl ClientBuilder {
    /// Adds a Thrift2 gateway (`host:port`). Several gateways share the load; one that
    /// is down is skipped and retried after a back-off. At least one is required.
    pub fn address(mut self, addr: impl Into<String>) -> Self {
        self.addrs.push(addr.into());
        self
    }

    /// Adds several gateways.
    pub fn addresses<I, S>(mut self, addrs: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.addrs.extend(addrs.into_iter().map(Into::into));
        self
    }

    /// Transport: [`Framing::Buffered`] (default, HBase's default) or
    /// [`Framing::Framed`] (server started with `-f`). Must match the server.
    pub fn framing(mut self, framing: Framing) -> Self {
        self.framing = framing;
        self
    }

    /// Protocol: [`Protocol::Binary`] (default) or [`Protocol::Compact`] (server
    /// started with `-c`). Must match the server.
    pub fn protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// How long connecting may take. Default: 5 s.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How long one call (one attempt) may take. Default: 60 s.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Most connections open at once, over all gateways (= most calls in flight).
    /// Default: 16.
    pub fn pool_size(mut self, size: usize) -> Self {
        self.pool_size = size;
        self
    }

    /// TLS, Thrift over HTTP(S) and/or Kerberos, matching the gateway (see
    /// [`Security`]). Default: plain TCP.
    pub fn security(mut self, security: Security) -> Self {
        self.security = security;
        self.security_set = true;
        self
    }

    /// Finds the cluster from this `hbase-site.xml`, read by [`ClientBuilder::build`]:
    /// with no gateway address and no native bootstrap given, the native transport
    /// goes the file's way ([`HBaseSite::native_route`]); on the native transport, the
    /// file's parent znode and security ([`HBaseSite::security`]) apply unless
    /// [`ClientBuilder::native_znode_parent`] or [`ClientBuilder::security`] is called.
    /// With gateway addresses and no native transport, the file is not used (its
    /// settings are native RPC's). A later site call replaces this one.
    pub fn hbase_site(mut self, path: impl Into<PathBuf>) -> Self {
        self.site = Some(SiteSource::File(path.into()));
        self
    }

    /// As [`ClientBuilder::hbase_site`] with `dir`/`hbase-site.xml` (HBase's
    /// configuration directory, `HBASE_CONF_DIR`).
    pub fn conf_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.site = Some(SiteSource::Dir(dir.into()));
        self
    }

    /// As [`ClientBuilder::hbase_site`] with this machine's site file
    /// ([`HBaseSite::find`]: `$HBASE_CONF_DIR`, else `/etc/hbase/conf`); none found is
    /// not an error (the other settings must then say where HBase is).
    pub fn conf_from_env(mut self) -> Self {
        self.site = Some(SiteSource::Found);
        self
    }

    /// As [`ClientBuilder::hbase_site`] with a site file already read.
    pub fn site(mut self, site: HBaseSite) -> Self {
        self.site = Some(SiteSource::Parsed(Box::new(site)));
        self
    }

    /// TCP_NODELAY on every connection. Default: true.
    pub fn nodelay(mut self, nodelay: bool) -> Self {
        self.nodelay = nodelay;
        self
    }

    /// Largest reply accepted; larger ones fail before they are buffered. Default: 256 MiB.
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    /// Idle connections older than this are closed instead of reused (the server
    /// closes them after 60 s). Default: 50 s.
    pub fn max_idle(mut self, idle: Duration) -> Self {
        self.max_idle = idle;
        self
    }

    /// How long a gateway that refused a connection is skipped. Default: 5 s.
    pub fn down_backoff(mut self, backoff: Duration) -> Self {
        self.down_backoff = backoff;
        self
    }

    /// Largest cell value accepted by puts (HBase's `hbase.client.keyvalue.maxsize`).
    /// Default: 10 MiB.
    pub fn max_value_bytes(mut self, bytes: usize) -> Self {
        self.max_value_bytes = bytes;
        self
    }

    /// The retry policy for idempotent calls. Default: [`DefaultRetryPolicy`].
    pub fn retry_policy(mut self, policy: impl RetryPolicy + 'static) -> Self {
        self.retry = Arc::new(policy);
        self
    }

    /// How long one call may keep retrying (from its first attempt), whatever the
    /// policy says: no retry starts that would begin after the budget is spent. Scans
    /// apply it per interruption (from the first failure since the last page that
    /// arrived). Default: [`DEFAULT_RETRY_BUDGET`] (45 s), which outlasts a routine
    /// gateway restart.
    pub fn retry_budget(mut self, budget: Duration) -> Self {
        self.retry_budget = budget;
        self
    }

    /// Whether a put with a cell on the server's clock (no timestamp of its own, nor the
    /// put's: [`Put::cell`](crate::Put::cell) without [`Put::timestamp`](crate::Put::timestamp))
    /// is resent after an attempt that may have reached HBase got no answer. Such a put
    /// is not idempotent: applied twice, it writes its value as two versions (the newest
    /// value read is the same, but the duplicate takes one of the family's kept versions
    /// and shows in version reads). Default: false, so a write happens once or says it
    /// may have: the put is not resent, and its caller hears
    /// [`Error::WriteOutcomeUnknown`](crate::Error::WriteOutcomeUnknown) (in a batch, the
    /// put is reported in doubt). True does what HBase's Java client does: resent like
    /// any put, so a call that succeeds may have written a duplicate version, and fewer
    /// calls end with an unknown outcome. Puts whose every cell has a timestamp are
    /// resent either way.
    pub fn resend_unstamped_puts(mut self, resend: bool) -> Self {
        self.resend_unstamped_puts = resend;
        self
    }

    /// Most single-row [`Table::get`](crate::Table::get) calls sent at once: through the
    /// gateway in all (at most the pool size), over native RPC to each region server
    /// (as far as the region cache knows which one holds the row; the pool size does not
    /// bound it). A get that arrives while that many are out waits, and when one comes
    /// back, the waiting gets of the same table (and server) go together as one
    /// multi-get: less CPU per get on the client, the gateway and the region server
    /// than one call each, and a shorter wait. No timer: a get waits only when the
    /// calls are already out. Each get keeps its own answer and its own error (a
    /// shared call that fails is redone get by get). 0 sends every get on its own.
    /// Default: [`DEFAULT_GETS_IN_FLIGHT`] (4) through the gateway,
    /// [`DEFAULT_NATIVE_GETS_IN_FLIGHT`] (4 per region server) over native RPC.
    pub fn gets_in_flight(mut self, calls: usize) -> Self {
        self.gets_in_flight = Some(calls);
        self
    }

    /// Reads and writes through HBase's native RPC, straight to the region servers,
    /// instead of the Thrift2 gateway. `bootstrap_servers` (`host:port` of region
    /// servers or masters) are asked for the cluster's registry on the first call (no
    /// ZooKeeper). Every call goes this way, administration included
    /// ([`Client::admin`]: the active master's RPC), so no gateway is needed; gateway
    /// addresses given too are not used.
    pub fn native<I, S>(mut self, bootstrap_servers: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.native.extend(bootstrap_servers.into_iter().map(Into::into));
        self
    }

    /// The native transport (as [`ClientBuilder::native`]), bootstrapped through the
    /// cluster's ZooKeeper `quorum` (`host:port,host:port`, znodes under `/hbase`)
    /// instead of bootstrap servers: for clusters that don't serve the connection
    /// registry to clients. Needs the cargo feature `zookeeper`; without it, the first
    /// call fails saying so.
    pub fn native_zookeeper(mut self, quorum: impl Into<String>) -> Self {
        self.native_zookeeper = Some(quorum.into());
        self
    }

    /// With [`ClientBuilder::native_zookeeper`], the cluster's parent znode
    /// (HBase's `zookeeper.znode.parent`), an absolute path. Default: a site file's,
    /// else `/hbase`.
    pub fn native_znode_parent(mut self, parent: impl Into<String>) -> Self {
        self.native_znode_parent = Some(parent.into());
        self
    }

    /// On the native transport, connects to `connect_to` wherever the cluster names
    /// `advertised` (in its registry and `hbase:meta`, and among the bootstrap
    /// servers). For HBase in Docker or behind NAT, whose region servers advertise host
    /// names or ports the client cannot reach. Both are `host:port`, or both a bare host
    /// (every port of that host goes to the same port of the other). Call once per
    /// entry; a whole-address entry wins over a host entry. Default: none (addresses
    /// are connected to as advertised). Entries are checked by [`ClientBuilder::build`].
    pub fn native_address_map(mut self, advertised: impl Into<String>, connect_to: impl Into<String>) -> Self {
        self.native_addresses.push((advertised.into(), connect_to.into()));
        self
    }

    /// On the native transport, how long a read with
    /// [`Consistency::Timeline`](crate::Consistency::Timeline) waits for the primary
    /// replica before asking the secondaries too; the first answer wins. Default 10 ms,
    /// as the Java client's `hbase.client.primaryCallTimeout.get`; zero asks every
    /// replica at once. Through the gateway, the gateway's own setting applies.
    pub fn primary_call_timeout(mut self, delay: Duration) -> Self {
        self.primary_call_timeout = delay;
        self
    }

    /// Validates the settings and builds the client. No connection is opened yet.
    pub fn build(mut self) -> Result<Client> {
        if let Some(source) = self.site.take() {
            if let Some(site) = source.load()? {
                self.apply_site(&site)?;
            }
        }
        let native = !self.native.is_empty() || self.native_zookeeper.is_some();
        if self.addrs.is_empty() && !native {
            let why = "no Thrift2 gateway address given, and no native RPC: no .native(..), .native_zookeeper(..) or \
                       hbase-site.xml (.conf_dir(..))";
            return Err(InvalidInput::Option(why.into()).into());
        }
        for addr in &self.addrs {
            if !is_host_port(addr) {
                return Err(InvalidInput::Option(format!("gateway address {addr:?} is not host:port")).into());
            }
        }
        for server in &self.native {
            if !is_host_port(server) {
                return Err(InvalidInput::Option(format!("native bootstrap server {server:?} is not host:port")).into());
            }
        }
        let znode_parent = self.native_znode_parent.unwrap_or_else(|| "/hbase".to_owned());
        if !znode_parent.starts_with('/') {
            let why = format!("znode parent {znode_parent:?} is not an absolute ZooKeeper path");
            return Err(InvalidInput::Option(why).into());
        }
        // The same security settings apply to the native transport; only what cannot
        // apply to it is refused.
        let native_security = crate::transport::native_security::rpc_security(&self.security, !self.addrs.is_empty())?;
        if self.pool_size == 0 {
            return Err(InvalidInput::Option("pool size must be at least 1".into()).into());
        }
        if self.request_timeout.is_zero() || self.connect_timeout.is_zero() {
            return Err(InvalidInput::Option("timeouts must be positive".into()).into());
        }
        let mut native_addresses = crate::transport::native::AddressMap::new();
        for (advertised, connect_to) in &self.native_addresses {
            native_addresses
                .insert(advertised, connect_to)
                .map_err(|e| InvalidInput::Option(format!("native address map: {e}")))?;
        }
        let options = ConnectionOptions {
            framing: self.framing,
            protocol: self.protocol,
            max_response_bytes: self.max_response_bytes,
            connect_timeout: self.connect_timeout,
            nodelay: self.nodelay,
            security: self.security.clone(),
        };
        let max_value_bytes = self.max_value_bytes;
        // With the native transport every call (administration included) goes over
        // HBase's native RPC: gateway addresses given too are not used.
        let transport: Arc<dyn Transport> = if native {
            let settings = NativeSettings {
                bootstrap: self.native,
                zookeeper: self.native_zookeeper,
                znode_parent,
                addresses: native_addresses,
                request_timeout: self.request_timeout,
                primary_call_timeout: self.primary_call_timeout,
                max_value_bytes,
                security: native_security,
                retry: Arc::clone(&self.retry),
                retry_budget: self.retry_budget,
                resend_unstamped_puts: self.resend_unstamped_puts,
            };
            Arc::new(NativeTransport::new(settings))
        } else {
            let pool = Pool::new(self.addrs, self.pool_size, options, self.max_idle, self.down_backoff);
            Arc::new(ThriftTransport::new(pool, self.request_timeout, max_value_bytes))
        };
        let gets_in_flight = match native {
            true => self.gets_in_flight.unwrap_or(DEFAULT_NATIVE_GETS_IN_FLIGHT),
            false => self.gets_in_flight.unwrap_or(DEFAULT_GETS_IN_FLIGHT).min(self.pool_size),
        };
        let gets = Arc::new(GetCoalescer::new(gets_in_flight, self.request_timeout));
        Ok(Client {
            inner: Arc::new(ClientInner {
                attempts: Attempts::new(transport, self.retry, self.retry_budget, self.resend_unstamped_puts),
                gets,
                max_value_bytes,
            }),
        })
    }
}

impl ClientBuilder {
    /// Takes what `site` says where the builder's own calls said nothing (see
    /// [`ClientBuilder::hbase_site`]).
    fn apply_site(&mut self, site: &HBaseSite) -> Result<()> {
        let explicit_route = !self.native.is_empty() || self.native_zookeeper.is_some();
        if !explicit_route && !self.addrs.is_empty() {
            return Ok(()); // the gateway's client: the file's settings are native RPC's
        }
        if !explicit_route {
            match site.native_route()? {
                SiteRoute::Bootstrap(servers) => self.native = servers,
                SiteRoute::ZooKeeper(quorum) => self.native_zookeeper = Some(quorum),
            }
        }
        if self.native_znode_parent.is_none() {
            self.native_znode_parent = Some(site.znode_parent()?);
        }
        if !self.security_set {
            self.security = site.security()?;
        }
        Ok(())
    }
}

pub(crate) struct ClientInner {
    /// The transport, with the retry policy and budget.
    pub(crate) attempts: Attempts,
    /// The gate single-row gets pass, where waiting ones are coalesced.
    pub(crate) gets: Arc<GetCoalescer>,
    pub(crate) max_value_bytes: usize,
}

/// A handle to HBase, over native RPC to its region servers or through Thrift2
/// gateways. Cheap to clone (an `Arc`), `Send + Sync`, and meant to be shared by every
/// task of an application. Its tables ([`Client::table`]) and administration
/// ([`Client::admin`]) are handed out beside their own types, in `table.rs` and
/// `admin.rs`, so that no two files import each other.
#[derive(Clone)]
pub struct Client {
    pub(crate) inner: Arc<ClientInner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("gateways", &self.transport().endpoints()).finish_non_exhaustive()
    }
}

impl Client {
    /// A client on any transport, with the builder's other settings (unit tests of the
    /// core's policies run on a scripted transport).
    #[cfg(test)]
    pub(crate) fn on_transport(builder: ClientBuilder, transport: Arc<dyn Transport>) -> Client {
        let in_flight = builder.gets_in_flight.unwrap_or(DEFAULT_GETS_IN_FLIGHT);
        let gets = Arc::new(GetCoalescer::new(in_flight, builder.request_timeout));
        Client {
            inner: Arc::new(ClientInner {
                attempts: Attempts::new(transport, builder.retry, builder.retry_budget, builder.resend_unstamped_puts),
                gets,
                max_value_bytes: builder.max_value_bytes,
            }),
        }
    }

    /// A builder with the defaults documented on each setting.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// A client for one gateway with default settings.
    pub fn connect_to(addr: impl Into<String>) -> Result<Client> {
        Client::builder().address(addr).build()
    }

    /// The gateways' addresses, comma-separated (for error messages).
    pub(crate) fn gateways(&self) -> String {
        self.transport().endpoints().join(",")
    }

    /// The transport calls go through.
    pub(crate) fn transport(&self) -> &dyn Transport {
        &*self.inner.attempts.transport
    }

    /// The transport with the retry policy and budget.
    pub(crate) fn attempts(&self) -> &Attempts {
        &self.inner.attempts
    }

    /// What this client's transport can promise (per-write answers of a failed batch,
    /// increments applied once across retries, ...): see [`crate::Capabilities`].
    pub fn capabilities(&self) -> crate::Capabilities {
        self.transport().capabilities()
    }

    /// Counters of the connection pool.
    pub fn pool_stats(&self) -> PoolStats {
        let (coalesced_calls, coalesced_gets) = self.inner.gets.counts();
        PoolStats { coalesced_calls, coalesced_gets, ..self.transport().pool_stats() }
    }

    /// Opens `connections` connections now (spread over the gateways, in parallel) and
    /// leaves them idle in the pool, so the first requests after start-up do not pay
    /// for connection set-up. At most the pool size; returns how many were opened.
    pub async fn warm_up(&self, connections: usize) -> Result<usize> {
        self.transport().warm_up(connections).await
    }

    /// Shuts the client down: idle connections are closed, calls waiting for a
    /// connection and every later call fail with [`Error::ClientClosed`](crate::Error::ClientClosed). Calls in
    /// flight finish. Affects every clone of this client.
    pub fn shutdown(&self) {
        self.transport().shutdown();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use crate::transport::thrift::CallError;
    use crate::transport::TransportFailure;

    use super::*;
    use crate::attempt::outcome_unknown;
    use crate::error::Error;
    use crate::transport::Operation;

    #[test]
    fn the_native_transport_takes_the_security_settings_and_refuses_only_http_without_a_gateway() {
        let tls = crate::Security { tls: Some(crate::TlsOptions::default()), ..crate::Security::default() };
        assert!(Client::builder().address("h:1").security(tls.clone()).native(["h:2"]).build().is_ok());
        assert!(Client::builder().security(tls).native(["h:2"]).build().is_ok());
        let http = crate::Security { http: Some(crate::HttpOptions::default()), ..crate::Security::default() };
        let refused = Client::builder().security(http.clone()).native(["h:2"]).build();
        assert!(
            matches!(refused, Err(Error::InvalidInput(InvalidInput::Option(ref m))) if m.contains("HTTP")),
            "{refused:?}"
        );
        assert!(Client::builder().address("h:1").security(http).native(["h:2"]).build().is_ok());
    }

    #[tokio::test]
    async fn the_native_transport_through_zookeeper_needs_no_gateway_and_fails_typed() {
        let client = Client::builder()
            .native_zookeeper("127.0.0.1:1")
            .request_timeout(Duration::from_secs(5))
            .build()
            .expect("a ZooKeeper quorum alone is a native client");
        let error = client.table("t").expect("a valid table name").get(crate::Get::new("r")).await.unwrap_err();
        // Without the feature the error names it; with it, the quorum refuses.
        let expected = if cfg!(feature = "zookeeper") { "127.0.0.1:1" } else { "`zookeeper`" };
        assert!(error.to_string().contains(expected), "{error}");
    }

    #[test]
    fn addresses_are_host_and_port_before_anything_is_sent() {
        for bad in ["nonsense", "a b:1", "h:99999", ":16020", "h:"] {
            let gateway = Client::builder().address(bad).build().expect_err(bad).to_string();
            assert!(gateway.contains("gateway address"), "{gateway}");
            let native = Client::builder().native([bad]).build().expect_err(bad).to_string();
            assert!(native.contains("native bootstrap server"), "{native}");
        }
        assert!(Client::builder().native(["rs1:16020", "[::1]:16020"]).build().is_ok());
        let parent = Client::builder().native_zookeeper("zk:2181").native_znode_parent("hbase").build();
        assert!(parent.expect_err("a relative znode parent").to_string().contains("znode parent"));
        assert!(Client::builder().native_zookeeper("zk:2181").native_znode_parent("/hbase-prod").build().is_ok());
    }

    fn site(properties: &str) -> HBaseSite {
        HBaseSite::parse(&format!("<configuration>{properties}</configuration>"), "/conf/hbase-site.xml").unwrap()
    }

    const ZK_SITE: &str = "<property><name>hbase.zookeeper.quorum</name><value>zk1,zk2</value></property>\
        <property><name>zookeeper.znode.parent</name><value>/hbase-x</value></property>\
        <property><name>hbase.client.netty.tls.enabled</name><value>true</value></property>";

    #[test]
    fn a_site_file_fills_in_what_the_builder_calls_left_unsaid() {
        let mut alone = Client::builder();
        alone.apply_site(&site(ZK_SITE)).unwrap();
        assert_eq!(alone.native_zookeeper.as_deref(), Some("zk1:2181,zk2:2181"));
        assert_eq!(alone.native_znode_parent.as_deref(), Some("/hbase-x"));
        assert!(alone.security.tls.is_some() && alone.native.is_empty());
        assert!(alone.clone().build().is_ok());

        // Explicit calls win: the route, the znode parent, the security.
        let mut explicit =
            Client::builder().native(["rs1:16020"]).native_znode_parent("/mine").security(crate::Security::default());
        explicit.apply_site(&site(ZK_SITE)).unwrap();
        assert_eq!(
            (explicit.native.as_slice(), explicit.native_zookeeper.as_deref()),
            (&["rs1:16020".to_owned()][..], None)
        );
        assert_eq!(explicit.native_znode_parent.as_deref(), Some("/mine"));
        assert!(explicit.security.is_plain());
        // An explicit route keeps the file's security and parent.
        let mut route_only = Client::builder().native_zookeeper("zk9:1");
        route_only.apply_site(&site(ZK_SITE)).unwrap();
        assert_eq!(route_only.native_zookeeper.as_deref(), Some("zk9:1"));
        assert_eq!(route_only.native_znode_parent.as_deref(), Some("/hbase-x"));
        assert!(route_only.security.tls.is_some());

        // A gateway client does not take a native RPC file's settings.
        let mut gateway = Client::builder().address("gw:9090");
        gateway.apply_site(&site(ZK_SITE)).unwrap();
        assert!(gateway.native_zookeeper.is_none() && gateway.security.is_plain());

        // Bootstrap servers in the file: no ZooKeeper.
        let boot = "<property><name>hbase.client.bootstrap.servers</name><value>rs1,rs2:1</value></property>";
        let mut bootstrap = Client::builder();
        bootstrap.apply_site(&site(boot)).unwrap();
        assert_eq!(bootstrap.native, ["rs1:16020", "rs2:1"]);
        assert!(bootstrap.native_zookeeper.is_none());
    }

    #[test]
    fn with_no_site_file_found_the_builder_says_what_is_missing() {
        // conf_from_env finds none here unless the machine has one: then it is used.
        let found = HBaseSite::find();
        let built = Client::builder().conf_from_env().build();
        match found {
            Ok(None) => {
                let error = built.expect_err("nothing says where HBase is").to_string();
                assert!(error.contains("no Thrift2 gateway address") && error.contains("hbase-site.xml"), "{error}");
            }
            Err(_) => assert!(built.is_err(), "an unreadable site file fails the build"),
            Ok(Some(_)) => {} // this machine's own site file decides
        }
    }

    #[test]
    fn a_site_file_that_cannot_be_used_fails_the_build_naming_it() {
        let missing = Client::builder().conf_dir("/nonexistent-basalt-conf").build().unwrap_err();
        assert!(
            matches!(&missing, Error::InvalidInput(InvalidInput::Site(crate::SiteError::Read { .. }))),
            "{missing:?}"
        );
        assert!(missing.to_string().contains("/nonexistent-basalt-conf/hbase-site.xml"), "{missing}");
        let bad = site("<property><name>hbase.zookeeper.property.clientPort</name><value>x</value></property>");
        let error = Client::builder().site(bad).build().unwrap_err().to_string();
        assert!(error.contains("/conf/hbase-site.xml:1: hbase.zookeeper.property.clientPort"), "{error}");
    }

    #[test]
    fn gets_in_flight_defaults_to_the_transports_own() {
        let limit = |b: ClientBuilder| b.build().map(|c| c.inner.gets.limit()).unwrap();
        assert_eq!(limit(Client::builder().address("h:1")), DEFAULT_GETS_IN_FLIGHT);
        assert_eq!(limit(Client::builder().address("h:1").pool_size(2)), 2);
        assert_eq!(limit(Client::builder().native(["rs:16020"])), DEFAULT_NATIVE_GETS_IN_FLIGHT);
        assert_eq!(limit(Client::builder().native(["rs:16020"]).gets_in_flight(3)), 3);
        // The pool bounds gateway calls, not native ones (one multiplexed connection).
        assert_eq!(limit(Client::builder().native(["rs:16020"]).pool_size(2).gets_in_flight(9)), 9);
    }

    #[test]
    fn the_native_address_map_is_checked_when_building() {
        let native = || Client::builder().address("h:1").native(["rs.internal:16020"]);
        let mixed = native().native_address_map("rs.internal:16020", "localhost").build();
        assert!(matches!(mixed, Err(Error::InvalidInput(_))), "{mixed:?}");
        let no_port = native().native_address_map("rs.internal:x", "localhost:1").build();
        assert!(matches!(no_port, Err(Error::InvalidInput(_))), "{no_port:?}");
        let good = native()
            .native_address_map("rs.internal:16020", "127.0.0.1:26020")
            .native_address_map("rs.internal", "localhost")
            .build();
        assert!(good.is_ok(), "{good:?}");
    }

    fn refused() -> Error {
        Error::Transport {
            addr: "h:1".into(),
            source: TransportFailure::Gateway(CallError::Connect {
                addr: "h:1".into(),
                source: std::io::Error::from(std::io::ErrorKind::ConnectionRefused),
            }),
        }
    }

    #[test]
    fn retries_stop_at_the_budget_whatever_the_policy() {
        let client = Client::builder().address("127.0.0.1:1").retry_budget(Duration::from_secs(10)).build().unwrap();
        let now = Instant::now();
        // An outage is retried past the policy's 4 attempts while the budget lasts...
        assert_eq!(client.attempts().retry_after(20, now, &refused()), Some(Duration::from_secs(2)));
        // ...and not once the next attempt would start after it.
        let long_ago = now.checked_sub(Duration::from_secs(9)).unwrap();
        assert_eq!(client.attempts().retry_after(20, long_ago, &refused()), None);
        // A timeout is not an outage: the policy's attempt count ends it.
        let timeout = Error::Timeout { operation: Operation::Get, after: Duration::from_secs(1) };
        assert!(client.attempts().retry_after(3, now, &timeout).is_some());
        assert_eq!(client.attempts().retry_after(4, now, &timeout), None);
    }

    #[test]
    fn a_sent_write_that_fails_in_transport_may_have_been_applied() {
        let lost = Error::Transport { addr: "h:1".into(), source: TransportFailure::Gateway(CallError::Closed) };
        let e = outcome_unknown(Operation::Increment, lost);
        assert!(matches!(e, Error::WriteOutcomeUnknown { operation: Operation::Increment, .. }));
        assert!(e.may_have_written());
        assert!(!e.is_retryable());
        let refused_by_hbase = Error::IllegalArgument { message: "bad".into() };
        assert!(!outcome_unknown(Operation::Increment, refused_by_hbase).may_have_written());
    }

    #[tokio::test]
    async fn a_shut_down_client_says_so() {
        let client = Client::connect_to("127.0.0.1:1").unwrap();
        client.shutdown();
        let table = client.table("t").unwrap();
        assert!(matches!(table.get(crate::Get::new("r")).await, Err(Error::ClientClosed)));
    }
}
