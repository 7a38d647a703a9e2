//! The client: bootstrap, region location through `hbase:meta`, and the calls to one
//! region (get, mutate, check-and-mutate) with relocation and retries.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;

use crate::cells::{CellCursor, RowResult};
use crate::conn::{ConnectionOptions, Reply};
use crate::error::RpcError;
use crate::mutation::{Check, Mutation};
use crate::pb;
use crate::pool::{AddressMap, Pool};
use crate::read::{read_options, ReadFields};
use crate::region::{self, MetaLookup, RegionCache, RegionLocation};
use crate::registry::{self, ClusterInfo};
use basalt_rpc_protocol::call::Service;
use basalt_rpc_protocol::exception::RemoteExceptionKind;

/// Settings of an [`RpcClient`], with documented defaults.
#[derive(Debug, Clone)]
pub struct RpcClientBuilder {
    bootstrap: Vec<String>,
    /// The ZooKeeper quorum to bootstrap through instead.
    zookeeper: Option<String>,
    znode_parent: String,
    connection: ConnectionOptions,
    rpc_timeout: Duration,
    operation_timeout: Duration,
    pub(crate) pause: Duration,
    nonces: bool,
    primary_call_timeout: Duration,
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
async fn zookeeper_meta(quorum: &str, parent: &str, timeout: Duration) -> Result<Vec<RegionLocation>, RpcError> {
    #[cfg(feature = "zookeeper")]
    return crate::zookeeper::meta_locations(quorum, parent, timeout).await;
    #[cfg(not(feature = "zookeeper"))]
    return Err(RpcError::InvalidArgument(format!("{ZOOKEEPER_NOT_BUILT} ({quorum}{parent}, {timeout:?})")));
}

/// A client of one HBase cluster over the native RPC; cheap to clone.
#[derive(Clone)]
pub struct RpcClient {
    pub(crate) inner: Arc<ClientInner>,
    rpc_timeout: Duration,
    pub(crate) operation_timeout: Duration,
    /// What decides the retries (`None`: the layer's own [`crate::Backoff`]).
    pub(crate) retry: Option<Arc<dyn crate::RetryRule>>,
}

pub(crate) struct ClientInner {
    cluster: ClusterInfo,
    meta: Mutex<Vec<RegionLocation>>,
    pub(crate) pool: Pool,
    pub(crate) regions: RegionCache,
    pub(crate) settings: RpcClientBuilder,
    /// This client's nonce group: with a nonce per operation, it lets a region server
    /// recognize a retried increment or append it already applied.
    nonce_group: u64,
}

impl std::fmt::Debug for RpcClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RpcClient").field("cluster_id", &self.inner.cluster.cluster_id).finish()
    }
}

/// A get of one row.
#[derive(Debug, Clone, PartialEq)]
pub struct Get {
    row: Bytes,
    read: ReadFields,
}

impl Get {
    /// Every column of `row`, newest version.
    pub fn new(row: impl Into<Bytes>) -> Get {
        Get { row: row.into(), read: ReadFields::default() }
    }

    /// The row.
    pub fn row(&self) -> &Bytes {
        &self.row
    }

    pub(crate) fn read_fields(&self) -> &ReadFields {
        &self.read
    }

    pub(crate) fn to_proto(&self) -> pb::Get {
        pb::Get {
            row: self.row.clone(),
            column: self.read.column_proto(),
            filter: self.read.filter.clone(),
            time_range: self.read.time_range_proto(),
            max_versions: self.read.max_versions,
            cache_blocks: self.read.cache_blocks,
            cf_time_range: self.read.family_time_ranges_proto(),
            consistency: self.read.consistency_proto(),
            store_limit: self.read.store_limit,
            store_offset: self.read.store_offset,
            ..Default::default()
        }
    }
}

read_options!(Get);

impl RpcClient {
    /// The same client (same connections and region cache) whose retries `rule`
    /// decides, instead of the layer's own [`Backoff`](crate::Backoff) (from the builder's
    /// [`retry_pause`](crate::RpcClientBuilder::retry_pause) and the operation
    /// timeout).
    pub fn with_retry_rule(&self, rule: Arc<dyn crate::RetryRule>) -> RpcClient {
        let mut client = self.clone();
        client.retry = Some(rule);
        client
    }

    /// The pause before resending after `attempt` attempts of an operation started at
    /// `started` failed with `error`, or `None` to give up (see [`RetryRule`]).
    pub(crate) fn retry_after(&self, attempt: u32, started: Instant, error: &RpcError) -> Option<Duration> {
        match &self.retry {
            Some(rule) => rule.retry_after(attempt, started, error),
            None => crate::RetryRule::retry_after(
                &crate::retry::Backoff { pause: self.inner.settings.pause, operation_timeout: self.operation_timeout },
                attempt,
                started,
                error,
            ),
        }
    }

    /// Settings for a new client.
    pub fn builder() -> RpcClientBuilder {
        RpcClientBuilder::default()
    }

    /// The same client (same connections and region cache) whose calls use these
    /// deadlines: `rpc` for one call, `operation` for an operation across its retries.
    /// For a request that must answer sooner (or may take longer) than the defaults.
    pub fn with_timeouts(&self, rpc: Duration, operation: Duration) -> RpcClient {
        RpcClient {
            inner: self.inner.clone(),
            rpc_timeout: rpc,
            operation_timeout: operation,
            retry: self.retry.clone(),
        }
    }

    /// The bootstrap servers given to the builder.
    pub fn bootstrap_servers(&self) -> &[String] {
        &self.inner.settings.bootstrap
    }

    /// The deadline of one call.
    pub fn rpc_timeout(&self) -> Duration {
        self.rpc_timeout
    }

    /// What the connection registry (or ZooKeeper) said at bootstrap.
    pub fn cluster(&self) -> &ClusterInfo {
        &self.inner.cluster
    }

    /// How many connections are open and usable.
    pub fn live_connections(&self) -> usize {
        self.inner.pool.live_connections()
    }

    /// Connections opened since the client was built (replacements included), and
    /// connects that failed.
    pub fn connection_counters(&self) -> (u64, u64) {
        self.inner.pool.counters()
    }

    /// How many regions of `table` are cached.
    pub fn cached_regions(&self, table: &str) -> usize {
        self.inner.regions.len(table)
    }

    /// The region of `table` holding `row`, from the cache or `hbase:meta`.
    pub async fn locate(&self, table: &str, row: &[u8]) -> Result<RegionLocation, RpcError> {
        if let Some(region) = self.inner.regions.find(table, row) {
            return Ok(region);
        }
        self.locate_in_meta(table, row, false).await
    }

    /// The region of `table` holding the greatest row before `row` (for an empty `row`,
    /// the last region): where a reversed scan continues.
    pub async fn locate_before(&self, table: &str, row: &[u8]) -> Result<RegionLocation, RpcError> {
        if let Some(region) = self.inner.regions.find_before(table, row) {
            return Ok(region);
        }
        self.locate_in_meta(table, row, true).await
    }

    /// Every region of `table` in key order, read from `hbase:meta` (and cached).
    pub async fn table_regions(&self, table: &str) -> Result<Vec<RegionLocation>, RpcError> {
        let mut regions = Vec::new();
        let mut row = Bytes::new();
        loop {
            let region = self.locate_in_meta(table, &row, false).await?;
            let end = region.end_key.clone();
            regions.push(region);
            if end.is_empty() {
                return Ok(regions);
            }
            row = end;
        }
    }

    /// A reversed, one-row scan of `hbase:meta`, as the Java client does; retried while
    /// the region is in transition or meta moved.
    async fn locate_in_meta(&self, table: &str, row: &[u8], before: bool) -> Result<RegionLocation, RpcError> {
        validate_table(table)?;
        let start = if before { region::meta_key_before(table, row) } else { region::meta_key_at(table, row) };
        let request = pb::ScanRequest {
            scan: Some(pb::Scan {
                column: vec![pb::Column {
                    family: Bytes::from_static(basalt_rpc_protocol::meta::CATALOG_FAMILY),
                    qualifier: Vec::new(),
                }],
                start_row: Some(start),
                stop_row: Some(region::meta_table_floor(table)),
                include_stop_row: Some(true),
                reversed: Some(true),
                caching: Some(1),
                read_type: Some(pb::scan::ReadType::Pread as i32),
                ..Default::default()
            }),
            number_of_rows: Some(1),
            close_scanner: Some(true),
            ..Default::default()
        };
        let started = Instant::now();
        let mut attempt = 0;
        let not_found = || RpcError::RegionNotFound { table: table.to_owned(), row: Bytes::copy_from_slice(row) };
        loop {
            let outcome = self.meta_scan_once(&request).await.and_then(|rows| {
                let Some(found) = rows.first() else {
                    return Err(not_found());
                };
                match region::parse_meta_row(found)
                    .map_err(|reason| RpcError::Protocol { addr: "hbase:meta".into(), reason })?
                {
                    MetaLookup::Located(location) => Ok(location),
                    MetaLookup::Unusable(why) => Err(RpcError::RegionUnavailable(why)),
                }
            });
            let error = match outcome {
                Ok(location) => {
                    let fits = location.table == table
                        && if before {
                            row.is_empty() || location.start_key.as_ref() < row
                        } else {
                            location.contains(row)
                        };
                    if location.table != table {
                        // Meta holds no region of this table below the row: the table
                        // does not exist (dropped or never created). The Java client
                        // answers TableNotFoundException at once, without retrying.
                        return Err(not_found());
                    } else if !fits {
                        // A region of this table, but not the row's: a hole while a
                        // region is in transition (retried below).
                        not_found()
                    } else {
                        self.inner.regions.insert(location.clone());
                        return Ok(location);
                    }
                }
                // No row at all between the row and the table's floor in meta: the
                // table does not exist.
                Err(error @ RpcError::RegionNotFound { .. }) => return Err(error),
                Err(error) => error,
            };
            let retry = matches!(error, RpcError::RegionUnavailable(_) | RpcError::RegionNotFound { .. })
                || error.is_retryable();
            attempt += 1;
            let Some(pause) = retry.then(|| self.retry_after(attempt, started, &error)).flatten() else {
                return Err(error);
            };
            if error.invalidates_location() {
                self.refresh_meta().await;
            }
            tokio::time::sleep(pause).await;
        }
    }

    async fn meta_scan_once(&self, request: &pb::ScanRequest) -> Result<Vec<RowResult>, RpcError> {
        let meta = self
            .inner
            .meta
            .lock()
            .map(|meta| meta.first().cloned())
            .unwrap_or_else(|poisoned| poisoned.into_inner().first().cloned())
            .ok_or_else(|| RpcError::Bootstrap("no meta location".into()))?;
        let mut request = request.clone();
        request.region = Some(meta.specifier());
        let reply = self.call(&meta.server, "Scan", &request, None).await?;
        let response: pb::ScanResponse = reply.decode(&meta.server)?;
        scan_results(&meta.server, &response, &reply.cell_block)
    }

    async fn refresh_meta(&self) {
        let settings = &self.inner.settings;
        let meta = match &settings.zookeeper {
            Some(quorum) => zookeeper_meta(quorum, &settings.znode_parent, settings.rpc_timeout).await,
            None => registry::meta_locations(&self.inner.pool, &settings.bootstrap, settings.rpc_timeout).await,
        };
        if let Ok(meta) = meta {
            match self.inner.meta.lock() {
                Ok(mut current) => *current = meta,
                Err(poisoned) => *poisoned.into_inner() = meta,
            }
        }
    }

    /// This client's nonce group.
    pub(crate) fn nonce_group(&self) -> u64 {
        self.inner.nonce_group
    }

    /// A fresh nonce for one operation (its retries reuse it).
    pub(crate) fn new_nonce(&self) -> u64 {
        crate::mutation::next_nonce()
    }

    /// Whether retries of increments and appends are safe (the region servers dedupe
    /// them by nonce; HBase's `hbase.regionserver.nonces.enabled`, on by default).
    pub(crate) fn nonces_enabled(&self) -> bool {
        self.inner.settings.nonces
    }

    /// One call on the connection to `server`.
    pub(crate) async fn call(
        &self,
        server: &str,
        method: &'static str,
        param: &impl prost::Message,
        cell_block: Option<&Bytes>,
    ) -> Result<Reply, RpcError> {
        let (number, conn) = self.inner.pool.get(server, Service::Client).await?;
        let result = conn.call(method, param, cell_block, self.rpc_timeout).await;
        if let Err(RpcError::Timeout { .. }) = &result {
            // A connection whose call went unanswered may be stalled (a dead peer, a
            // black hole between): later calls get a new one. Calls still waiting on it
            // keep it until their own deadlines.
            self.inner.pool.discard(server, Service::Client, number).await;
        }
        result
    }

    /// Updates the region cache after a failed call to `region`.
    pub(crate) fn on_error(&self, region: &RegionLocation, error: &RpcError) {
        match error {
            RpcError::Remote(remote) => {
                // A secondary replica's move says nothing of its primary's entry:
                // dropped, meta tells where the replicas went.
                if let (RemoteExceptionKind::RegionMoved(Some(to)), 0) = (remote.kind(), region.replica_id) {
                    self.inner.regions.moved(region, &format!("{}:{}", to.host, to.port))
                } else if remote.exception.invalidates_location() {
                    self.inner.regions.invalidate(region)
                }
            }
            RpcError::Connect { .. } | RpcError::ConnectionFailed { .. } => {
                self.inner.regions.forget_server(&region.server)
            }
            // No answer in time: the server may be stalled (a long pause, a stopped
            // process) while its regions move elsewhere. As HBase's client does, the
            // region is looked up again before the next attempt (its other regions stay
            // cached: one slow call says little of them).
            RpcError::Timeout { .. } => self.inner.regions.invalidate(region),
            // The location stays: the call failed for a reason of its own.
            RpcError::Protocol { .. }
            | RpcError::RegionNotFound { .. }
            | RpcError::RegionUnavailable(_)
            | RpcError::RetriesExhausted { .. }
            | RpcError::Bootstrap(_)
            | RpcError::InvalidArgument(_)
            | RpcError::Security { .. } => {}
        }
    }

    /// Sleeps before retry `attempt`: the pause doubled per attempt, at most 1 s.
    pub(crate) async fn pause(&self, attempt: u32) {
        let pause = self.inner.settings.pause.saturating_mul(1 << attempt.min(5));
        tokio::time::sleep(pause.min(Duration::from_secs(1))).await;
    }

    /// How long a timeline read gives the primary alone.
    pub(crate) fn primary_call_timeout(&self) -> Duration {
        self.inner.settings.primary_call_timeout
    }

    /// The deadline of an operation starting now.
    pub(crate) fn deadline(&self) -> Instant {
        Instant::now() + self.operation_timeout
    }

    /// Runs `call` against the region of `row`, relocating and retrying while the error
    /// allows it and the operation's deadline is not reached. `retry_unknown_outcome`
    /// says whether a call that may have executed (timeout, connection lost after
    /// sending) may run again.
    pub(crate) async fn with_region<T, F, Fut>(
        &self,
        table: &str,
        row: &[u8],
        retry_unknown_outcome: bool,
        call: F,
    ) -> Result<T, RpcError>
    where
        F: Fn(RegionLocation) -> Fut,
        Fut: std::future::Future<Output = Result<T, RpcError>>,
    {
        let started = Instant::now();
        let mut attempt = 0;
        // Whether an earlier attempt may have run: the operation's outcome is then
        // unknown whatever the later attempts say (a connect that fails afterwards
        // must not read as "never sent").
        let mut may_have_run = false;
        loop {
            let region = match self.locate(table, row).await {
                Ok(region) => region,
                Err(error) => return Err(RpcError::after_attempts(attempt + 1, error, may_have_run, false)),
            };
            let error = match call(region.clone()).await {
                Ok(value) => return Ok(value),
                Err(error) => error,
            };
            self.on_error(&region, &error);
            attempt += 1;
            let unknown_outcome = error.may_have_run();
            if !error.is_retryable() || (unknown_outcome && !retry_unknown_outcome) {
                return Err(RpcError::after_attempts(attempt, error, may_have_run, false));
            }
            // The retry rule decides: the pause (a throttling wait, a retry at once, a
            // back-off), or the end (a wait past the budget fails now, as HBase's
            // client does, instead of sleeping into a certain timeout).
            let Some(pause) = self.retry_after(attempt, started, &error) else {
                return Err(RpcError::after_attempts(attempt, error, may_have_run, true));
            };
            may_have_run |= unknown_outcome;
            tokio::time::sleep(pause).await;
        }
    }

    /// Reads one row (an empty result when it does not exist), from the replicas its
    /// consistency and target replica allow (see [`Get::consistency`]).
    pub async fn get(&self, table: &str, get: &Get) -> Result<RowResult, RpcError> {
        validate_row(get.row())?;
        get.check_read()?;
        self.replicated_get(table, get).await
    }

    /// Applies one mutation; increments and appends return the new values.
    pub async fn mutate(&self, table: &str, mutation: &Mutation) -> Result<RowResult, RpcError> {
        validate_row(mutation.row())?;
        let proto = mutation.to_proto(Some(mutation.given_nonce().unwrap_or_else(|| self.new_nonce())));
        // An attempt that may have run is sent again only if the mutation may run twice
        // (puts whose cells all have a timestamp, deletes of given versions) or carries a
        // nonce the servers keep.
        let retry_unknown_outcome =
            if mutation.needs_nonce() { self.nonces_enabled() } else { mutation.is_idempotent() };
        self.with_region(table, mutation.row(), retry_unknown_outcome, |region| {
            let request = pb::MutateRequest {
                region: region.specifier(),
                mutation: proto.clone(),
                condition: None,
                nonce_group: proto.nonce.map(|_| self.nonce_group()),
            };
            async move {
                let reply = self.call(&region.server, "Mutate", &request, None).await?;
                let response: pb::MutateResponse = reply.decode(&region.server)?;
                let mut reader = CellCursor::new(reply.cell_block.clone());
                match response.result {
                    Some(result) => row_result(&region.server, &result, &mut reader),
                    None => Ok(RowResult::default()),
                }
            }
        })
        .await
    }

    /// Applies `mutation` only if `check` holds; returns whether it was applied.
    pub async fn check_and_mutate(&self, table: &str, check: &Check, mutation: &Mutation) -> Result<bool, RpcError> {
        validate_row(mutation.row())?;
        if check.row != mutation.row() {
            return Err(RpcError::InvalidArgument("check-and-mutate checks the mutation's own row".into()));
        }
        let proto = mutation.to_proto(None);
        let condition = check.to_proto();
        self.with_region(table, mutation.row(), false, |region| {
            let request = pb::MutateRequest {
                region: region.specifier(),
                mutation: proto.clone(),
                condition: Some(condition.clone()),
                nonce_group: None,
            };
            async move {
                let reply = self.call(&region.server, "Mutate", &request, None).await?;
                let response: pb::MutateResponse = reply.decode(&region.server)?;
                Ok(response.processed.unwrap_or(false))
            }
        })
        .await
    }
}

/// One `Result` message's cells: taken from the cell block (`associated_cell_count`)
/// or, when the server sent them inline, refused as unexpected.
pub(crate) fn row_result(server: &str, result: &pb::Result, reader: &mut CellCursor) -> Result<RowResult, RpcError> {
    let protocol = |reason: String| RpcError::Protocol { addr: server.to_owned(), reason };
    if !result.cell.is_empty() {
        return Err(protocol("cells inline in the message; this client asks for cell blocks".into()));
    }
    let count = usize::try_from(result.associated_cell_count.unwrap_or(0))
        .map_err(|_| protocol("a negative cell count".into()))?;
    let cells = reader.take(count).map_err(protocol)?;
    Ok(RowResult { cells, partial: result.partial.unwrap_or(false), stale: result.stale.unwrap_or(false) })
}

/// The results of a scan reply: `cells_per_result` cells each from the cell block, with
/// their partial flags.
pub(crate) fn scan_results(
    server: &str,
    response: &pb::ScanResponse,
    block: &Bytes,
) -> Result<Vec<RowResult>, RpcError> {
    let protocol = |reason: String| RpcError::Protocol { addr: server.to_owned(), reason };
    if response.results.iter().any(|r| !r.cell.is_empty()) {
        return Err(protocol("scan results inline in the message; this client asks for cell blocks".into()));
    }
    let mut reader = CellCursor::new(block.clone());
    let mut rows = Vec::with_capacity(response.cells_per_result.len());
    for (index, count) in response.cells_per_result.iter().enumerate() {
        let cells = reader.take(*count as usize).map_err(protocol)?;
        let partial = response.partial_flag_per_result.get(index).copied().unwrap_or(false);
        rows.push(RowResult { cells, partial, stale: response.stale.unwrap_or(false) });
    }
    if !reader.is_done() {
        return Err(protocol("cells left in the block after the last result".into()));
    }
    Ok(rows)
}

/// A random 64-bit value (from the standard library's randomly keyed hasher; nonces
/// need to be unlikely to repeat, not unpredictable).
fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    hasher.finish()
}

pub(crate) fn validate_row(row: &[u8]) -> Result<(), RpcError> {
    if row.is_empty() {
        return Err(RpcError::InvalidArgument("an empty row key".into()));
    }
    if row.len() > i16::MAX as usize {
        return Err(RpcError::InvalidArgument(format!("a row key of {} bytes (HBase's limit is 32767)", row.len())));
    }
    Ok(())
}

pub(crate) fn validate_table(table: &str) -> Result<(), RpcError> {
    let valid =
        !table.is_empty() && table.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'));
    if valid {
        Ok(())
    } else {
        Err(RpcError::InvalidArgument(format!("invalid table name {table:?}")))
    }
}
