//! The client's settings ([`RpcClientBuilder`]), bootstrap through the servers or
//! ZooKeeper, and the state every clone of an [`RpcClient`] shares. The client's methods
//! are in `client.rs`; the type is defined here so that the modules those methods
//! delegate to (batches, scans, replicas, ...) can name it without importing
//! `client.rs` back.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::conn::ConnectionOptions;
use crate::error::RpcError;
use crate::pool::{AddressMap, Pool};
use crate::region::{RegionCache, RegionLocation};
use crate::registry::{self, ClusterInfo};
use crate::send_buffers::SendBuffers;

/// Settings of an [`RpcClient`], with documented defaults.
#[derive(Debug, Clone)]
pub struct RpcClientBuilder {
    pub(crate) bootstrap: Vec<String>,
    /// The ZooKeeper quorum to bootstrap through instead.
    pub(crate) zookeeper: Option<String>,
    pub(crate) znode_parent: String,
    connection: ConnectionOptions,
    pub(crate) rpc_timeout: Duration,
    operation_timeout: Duration,
    pub(crate) pause: Duration,
    pub(crate) nonces: bool,
    pub(crate) primary_call_timeout: Duration,
    addresses: AddressMap,
}

impl Default for RpcClientBuilder {
    fn default() -> Self {
        RpcClientBuilder {
            bootstrap: Vec::new(),
            zookeeper: None,
            znode_parent: "/hbase".to_owned(),
            connection: ConnectionOptions::default(),
            rpc_timeout: Duration::from_secs(30),
            operation_timeout: Duration::from_secs(60),
            pause: Duration::from_millis(50),
            nonces: true,
            primary_call_timeout: Duration::from_millis(10),
            addresses: AddressMap::new(),
        }
    }
}

impl RpcClientBuilder {
    /// Adds a bootstrap server (`host:port` of the master or any region server); they
    /// are asked in the order given.
    pub fn bootstrap_server(mut self, addr: impl Into<String>) -> Self {
        self.bootstrap.push(addr.into());
        self
    }

    /// Bootstraps through ZooKeeper instead of bootstrap servers, for clusters that
    /// don't serve the connection registry to clients: `quorum` is
    /// `host:port,host:port`, and the cluster's znodes are under `/hbase` (see
    /// [`znode_parent`](Self::znode_parent)). Needs the cargo feature `zookeeper`;
    /// without it, [`connect`](Self::connect) fails saying so.
    pub fn zookeeper(mut self, quorum: impl Into<String>) -> Self {
        self.zookeeper = Some(quorum.into());
        self
    }

    /// The cluster's znode parent in ZooKeeper (HBase's `zookeeper.znode.parent`;
    /// default `/hbase`); used with [`zookeeper`](Self::zookeeper).
    pub fn znode_parent(mut self, parent: impl Into<String>) -> Self {
        self.znode_parent = parent.into();
        self
    }

    /// The user name sent to the servers (default: `$USER`, else `basalt`); not sent
    /// under Kerberos, where the servers take the user from the ticket.
    pub fn user(mut self, user: impl Into<String>) -> Self {
        self.connection.user = user.into();
        self
    }

    /// TLS and Kerberos for every connection (default: neither; see [`Security`](crate::Security)).
    pub fn security(mut self, security: crate::Security) -> Self {
        self.connection.security = security;
        self
    }

    /// Deadline of one call (default 30 s).
    pub fn rpc_timeout(mut self, timeout: Duration) -> Self {
        self.rpc_timeout = timeout;
        self
    }

    /// Deadline of an operation across its retries (default 60 s).
    pub fn operation_timeout(mut self, timeout: Duration) -> Self {
        self.operation_timeout = timeout;
        self
    }

    /// The first pause between retries, doubled each time up to 1 s (default 50 ms).
    pub fn retry_pause(mut self, pause: Duration) -> Self {
        self.pause = pause;
        self
    }

    /// Whether the region servers deduplicate increments and appends by nonce (HBase's
    /// `hbase.regionserver.nonces.enabled`, default: yes). When they do, an increment
    /// or append whose outcome is unknown (a timeout, a lost connection) is retried;
    /// when told they do not, it fails instead.
    pub fn server_nonces(mut self, enabled: bool) -> Self {
        self.nonces = enabled;
        self
    }

    /// How long a timeline read waits for the primary replica before asking the
    /// secondaries too (default 10 ms, as Java's `hbase.client.primaryCallTimeout.get`).
    pub fn primary_call_timeout(mut self, timeout: Duration) -> Self {
        self.primary_call_timeout = timeout;
        self
    }

    /// Where to connect for the addresses the servers advertise (default: as
    /// advertised). For HBase in Docker or behind NAT, whose advertised host names or
    /// ports are not reachable from the client; bootstrap servers are routed too.
    pub fn address_map(mut self, addresses: AddressMap) -> Self {
        self.addresses = addresses;
        self
    }

    /// Bootstraps from the servers (or ZooKeeper) and returns the client.
    pub async fn connect(self) -> Result<RpcClient, RpcError> {
        let pool = Pool::new(self.connection.clone(), self.addresses.clone());
        let cluster = match (&self.zookeeper, self.bootstrap.is_empty()) {
            (Some(_), false) => {
                return Err(RpcError::InvalidArgument("give bootstrap servers or a ZooKeeper quorum, not both".into()))
            }
            (Some(quorum), true) => zookeeper_bootstrap(quorum, &self.znode_parent, self.rpc_timeout).await?,
            (None, true) => return Err(RpcError::InvalidArgument("no bootstrap server given".into())),
            (None, false) => registry::bootstrap(&pool, &self.bootstrap, self.rpc_timeout).await?,
        };
        Ok(RpcClient {
            rpc_timeout: self.rpc_timeout,
            operation_timeout: self.operation_timeout,
            retry: None,
            inner: Arc::new(ClientInner {
                meta: Mutex::new(cluster.meta.clone()),
                cluster,
                pool,
                regions: RegionCache::default(),
                nonce_group: random_u64(),
                send_buffers: SendBuffers::default(),
                settings: self,
            }),
        })
    }
}

/// What connecting through ZooKeeper without the cargo feature says.
#[cfg(not(feature = "zookeeper"))]
const ZOOKEEPER_NOT_BUILT: &str = "bootstrap through ZooKeeper needs basalt-rpc's cargo feature `zookeeper`";

/// The cluster, read from ZooKeeper.
async fn zookeeper_bootstrap(quorum: &str, parent: &str, timeout: Duration) -> Result<ClusterInfo, RpcError> {
    #[cfg(feature = "zookeeper")]
    return crate::zookeeper::bootstrap(quorum, parent, timeout).await;
    #[cfg(not(feature = "zookeeper"))]
    return Err(RpcError::InvalidArgument(format!("{ZOOKEEPER_NOT_BUILT} ({quorum}{parent}, {timeout:?})")));
}

/// The meta locations, read again from ZooKeeper.
pub(crate) async fn zookeeper_meta(
    quorum: &str,
    parent: &str,
    timeout: Duration,
) -> Result<Vec<RegionLocation>, RpcError> {
    #[cfg(feature = "zookeeper")]
    return crate::zookeeper::meta_locations(quorum, parent, timeout).await;
    #[cfg(not(feature = "zookeeper"))]
    return Err(RpcError::InvalidArgument(format!("{ZOOKEEPER_NOT_BUILT} ({quorum}{parent}, {timeout:?})")));
}

/// A client of one HBase cluster over the native RPC; cheap to clone. Its methods are
/// in `client.rs`.
#[derive(Clone)]
pub struct RpcClient {
    pub(crate) inner: Arc<ClientInner>,
    pub(crate) rpc_timeout: Duration,
    pub(crate) operation_timeout: Duration,
    /// What decides the retries (`None`: the layer's own [`crate::Backoff`]).
    pub(crate) retry: Option<Arc<dyn crate::RetryRule>>,
}

/// What every clone of an [`RpcClient`] shares: the cluster, connections, region cache
/// and settings.
pub(crate) struct ClientInner {
    pub(crate) cluster: ClusterInfo,
    pub(crate) meta: Mutex<Vec<RegionLocation>>,
    pub(crate) pool: Pool,
    pub(crate) regions: RegionCache,
    pub(crate) settings: RpcClientBuilder,
    /// This client's nonce group: with a nonce per operation, it lets a region server
    /// recognize a retried increment or append it already applied.
    pub(crate) nonce_group: u64,
    /// The cell-block buffers batch calls use again.
    pub(crate) send_buffers: SendBuffers,
}

/// A random 64-bit value (from the standard library's randomly keyed hasher; nonces
/// need to be unlikely to repeat, not unpredictable).
fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    hasher.finish()
}
