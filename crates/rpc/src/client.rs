//! The client's methods, every one of them: bootstrap settings, region location through
//! `hbase:meta`, and the calls to one region (get, mutate, check-and-mutate) with
//! relocation and retries; batches, atomic row mutations, scans, replica reads and
//! administration are delegated to their modules. The type itself, [`RpcClient`], is
//! defined in `builder.rs` with its settings.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;

use crate::admin::RpcAdmin;
use crate::atomic::{self, Condition};
use crate::batch::{self, BatchAction, BatchResults};
use crate::builder::{zookeeper_meta, RpcClient, RpcClientBuilder};
use crate::cells::{row_result, scan_results, CellCursor, RowResult};
use crate::conn::{one_piece, Reply};
use crate::error::RpcError;
use crate::mutation::{Check, Mutation, WriteCells};
use crate::pb;
use crate::read::Get;
use crate::region::{self, MetaLookup, RegionLocation};
use crate::registry::{self, ClusterInfo};
use crate::replica;
use crate::scan::{self, ScanSpec, Scanner};
use crate::validate::{validate_row, validate_table};
use basalt_rpc_protocol::call::Service;
use basalt_rpc_protocol::exception::RemoteExceptionKind;

impl std::fmt::Debug for RpcClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RpcClient").field("cluster_id", &self.inner.cluster.cluster_id).finish()
    }
}

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

    /// A number standing for the region server that holds `row` of `table`, as far as
    /// the region cache knows (no call): equal numbers, same server. `None` when the
    /// row's region is not cached. Callers group work per server with it.
    pub fn cached_server_id(&self, table: &str, row: &[u8]) -> Option<u64> {
        self.inner.regions.server_id(table, row)
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
        self.call_with_block(server, method, param, one_piece(cell_block)).await
    }

    /// [`call`](RpcClient::call) with a cell block made of `pieces`, sent one after the
    /// other (not joined).
    pub(crate) async fn call_with_block(
        &self,
        server: &str,
        method: &'static str,
        param: &impl prost::Message,
        pieces: Vec<Bytes>,
    ) -> Result<Reply, RpcError> {
        let (number, conn) = self.inner.pool.get(server, Service::Client).await?;
        let result = conn.call_with_block(method, param, pieces, self.rpc_timeout).await;
        if let Err(RpcError::Timeout { .. }) = &result {
            // A connection whose call went unanswered may be stalled (a dead peer, a
            // black hole between): later calls get a new one. Calls still waiting on it
            // keep it until their own deadlines.
            self.inner.pool.discard(server, Service::Client, number).await;
        }
        result
    }

    /// [`call_with_block`](RpcClient::call_with_block) with the request already
    /// encoded, in pieces (see [`Connection::call_in_pieces`]).
    pub(crate) async fn call_in_pieces(
        &self,
        server: &str,
        method: &'static str,
        request: Vec<Bytes>,
        pieces: Vec<Bytes>,
    ) -> Result<Reply, RpcError> {
        let (number, conn) = self.inner.pool.get(server, Service::Client).await?;
        let result = conn.call_in_pieces(method, request, pieces, self.rpc_timeout).await;
        if let Err(RpcError::Timeout { .. }) = &result {
            // As in `call_with_block`: later calls get a new connection.
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
        replica::replicated_get(self, table, get).await
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

    /// Reads several rows of `table` (an empty result for a missing row), grouped by
    /// region server.
    pub async fn multi_get(&self, table: &str, gets: &[Get]) -> Result<Vec<RowResult>, RpcError> {
        batch::multi_get(self, table, gets).await
    }

    /// Runs a batch of actions on `table`: one `Multi` call per region server per round.
    /// Each action's outcome is reported separately; the call itself fails only on
    /// invalid input.
    pub async fn batch(&self, table: &str, actions: &[BatchAction]) -> Result<BatchResults, RpcError> {
        batch::run_actions(self, table, actions).await
    }

    /// Applies writes to `table` in batches as [`batch`](RpcClient::batch) does, each
    /// encoded straight from the caller's data ([`WriteCells`]). Returns the writes that
    /// failed, each with its index in `writes` and its error, in the order of the
    /// indexes; every other write was applied. The call itself fails only on invalid
    /// input.
    pub async fn write_batch<W: WriteCells>(
        &self,
        table: &str,
        writes: &[W],
    ) -> Result<Vec<(usize, RpcError)>, RpcError> {
        batch::write_batch(self, table, writes).await
    }

    /// Applies `mutations` (puts and deletes of one row) atomically.
    pub async fn mutate_row(&self, table: &str, mutations: &[Mutation]) -> Result<(), RpcError> {
        atomic::mutate_row(self, table, mutations).await
    }

    /// Applies `mutations` (puts and deletes of the checked row) atomically if `check`
    /// holds; returns whether they were applied.
    pub async fn check_and_mutate_row(
        &self,
        table: &str,
        check: &Check,
        mutations: &[Mutation],
    ) -> Result<bool, RpcError> {
        atomic::check_and_mutate_row(self, table, check, mutations).await
    }

    /// Applies `mutations` of one row atomically, increments and appends among them
    /// (HBase 2.4+): they carry one nonce for the operation, so a retry after an
    /// unknown outcome is applied once. Returns the cells of the increments' and
    /// appends' results, in the order of the mutations (empty without any).
    pub async fn mutate_row_results(&self, table: &str, mutations: &[Mutation]) -> Result<RowResult, RpcError> {
        atomic::mutate_row_results(self, table, mutations).await
    }

    /// Applies `mutations` (of the condition's row, of any kind) atomically if
    /// `condition` holds, as Java's `checkAndMutate` of `RowMutations`: whether they
    /// were applied, and the increments' and appends' results (empty when not applied).
    /// Never resent after an unknown outcome.
    pub async fn check_and_mutate_rows(
        &self,
        table: &str,
        condition: &Condition,
        mutations: &[Mutation],
    ) -> Result<(bool, RowResult), RpcError> {
        atomic::check_and_mutate_rows(self, table, condition, mutations).await
    }

    /// Applies one mutation of any kind if `condition` holds, as Java's
    /// `checkAndMutate` of one put, delete, increment or append: whether it was
    /// applied, and an increment's or append's result. Never resent after an unknown
    /// outcome.
    pub async fn check_and_mutate_one(
        &self,
        table: &str,
        condition: &Condition,
        mutation: &Mutation,
    ) -> Result<(bool, RowResult), RpcError> {
        atomic::check_and_mutate_one(self, table, condition, mutation).await
    }

    /// A scan of `table`; nothing is sent until the first page is asked for.
    pub fn scan(&self, table: &str, spec: ScanSpec) -> Scanner {
        scan::new_scanner(self, table, spec)
    }

    /// Administration through the active master and the region servers.
    pub fn admin(&self) -> RpcAdmin {
        RpcAdmin::new(self)
    }
}
