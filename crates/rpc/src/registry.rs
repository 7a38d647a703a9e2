//! Bootstrap through HBase's connection registry (`ClientMetaService`), served in HBase
//! 2.6 by the master and by every region server: the cluster id, the active master and
//! the location of `hbase:meta`, without ZooKeeper.

use std::time::Duration;

use basalt_rpc_protocol::call::Service;

use crate::conn::Reply;
use crate::error::RpcError;
use crate::pb;
use crate::pool::Pool;
use crate::region::{table_name_string, RegionLocation};

/// What the registry told about the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterInfo {
    /// The cluster's id.
    pub cluster_id: String,
    /// `host:port` of the active master, if one is known.
    pub active_master: Option<String>,
    /// Where `hbase:meta` is served (the default replica first).
    pub meta: Vec<RegionLocation>,
    /// The bootstrap server that answered.
    pub answered_by: String,
}

/// `host:port` of a server name.
pub(crate) fn server_addr(server: &pb::ServerName) -> String {
    match server.port {
        Some(port) => format!("{}:{port}", server.host_name),
        None => server.host_name.clone(),
    }
}

/// Asks each bootstrap server in turn until one answers all three questions.
pub(crate) async fn bootstrap(pool: &Pool, servers: &[String], timeout: Duration) -> Result<ClusterInfo, RpcError> {
    let mut failures = Vec::new();
    let mut refused = Vec::new();
    let mut security = None;
    for server in servers {
        match ask(pool, server, timeout).await {
            Ok(info) => return Ok(info),
            Err(e @ RpcError::Security { .. }) => security = security.or(Some(e)),
            Err(RpcError::Connect { reason, .. }) => {
                failures.push(format!("{server}: cannot connect: {reason}"));
                refused.push((server.as_str(), reason));
            }
            Err(e) => failures.push(format!("{server}: {e}")),
        }
    }
    // A server that could not be secured says why in its own, typed words.
    if let Some(e) = security {
        return Err(e);
    }
    if failures.is_empty() {
        return Err(RpcError::InvalidArgument("no bootstrap server given".into()));
    }
    // No server could even be connected to: the cluster is unreachable from here, which
    // callers tell apart from servers that answered badly.
    if refused.len() == failures.len() {
        return Err(match <[_; 1]>::try_from(refused) {
            Ok([(addr, reason)]) => RpcError::Connect { addr: addr.to_owned(), reason },
            Err(refused) => RpcError::Connect {
                addr: servers.join(", "),
                reason: refused.iter().map(|(addr, reason)| format!("{addr}: {reason}")).collect::<Vec<_>>().join("; "),
            },
        });
    }
    Err(RpcError::Bootstrap(failures.join("; ")))
}

/// The meta locations, asked of the bootstrap servers (after meta moved).
pub(crate) async fn meta_locations(
    pool: &Pool,
    servers: &[String],
    timeout: Duration,
) -> Result<Vec<RegionLocation>, RpcError> {
    let mut failures = Vec::new();
    for server in servers {
        match ask_meta(pool, server, timeout).await {
            Ok(meta) if !meta.is_empty() => return Ok(meta),
            Ok(_) => failures.push(format!("{server}: no meta location known")),
            Err(e) => failures.push(format!("{server}: {e}")),
        }
    }
    Err(RpcError::Bootstrap(failures.join("; ")))
}

/// One registry call to `server`; a connection whose call went unanswered is left out
/// of the pool (it may be stalled).
async fn call<M: prost::Message>(
    pool: &Pool,
    server: &str,
    method: &'static str,
    param: &M,
    timeout: Duration,
) -> Result<Reply, RpcError> {
    let (number, conn) = pool.get(server, Service::ClientMeta).await?;
    let result = conn.call(method, param, None, timeout).await;
    if let Err(RpcError::Timeout { .. }) = &result {
        pool.discard(server, Service::ClientMeta, number).await;
    }
    result
}

async fn ask(pool: &Pool, server: &str, timeout: Duration) -> Result<ClusterInfo, RpcError> {
    let reply = call(pool, server, "GetClusterId", &pb::GetClusterIdRequest {}, timeout).await?;
    let cluster_id = reply
        .decode::<pb::GetClusterIdResponse>(server)?
        .cluster_id
        .ok_or_else(|| RpcError::Bootstrap(format!("{server} knows no cluster id yet")))?;
    let reply = call(pool, server, "GetActiveMaster", &pb::GetActiveMasterRequest {}, timeout).await?;
    let active_master = reply.decode::<pb::GetActiveMasterResponse>(server)?.server_name.as_ref().map(server_addr);
    let meta = ask_meta(pool, server, timeout).await?;
    if meta.is_empty() {
        return Err(RpcError::Bootstrap(format!("{server} knows no meta location yet")));
    }
    Ok(ClusterInfo { cluster_id, active_master, meta, answered_by: server.to_owned() })
}

async fn ask_meta(pool: &Pool, server: &str, timeout: Duration) -> Result<Vec<RegionLocation>, RpcError> {
    let reply = call(pool, server, "GetMetaRegionLocations", &pb::GetMetaRegionLocationsRequest {}, timeout).await?;
    let response = reply.decode::<pb::GetMetaRegionLocationsResponse>(server)?;
    let mut meta: Vec<(i32, RegionLocation)> = response
        .meta_locations
        .into_iter()
        .filter_map(|location| {
            let region = location.region_info;
            let server = location.server_name.as_ref().map(server_addr)?;
            let replica = region.replica_id.unwrap_or(0);
            Some((
                replica,
                RegionLocation {
                    region_name: meta_region_name(&region),
                    table: table_name_string(&region.table_name),
                    start_key: region.start_key.unwrap_or_default(),
                    end_key: region.end_key.unwrap_or_default(),
                    server,
                    replica_id: u16::try_from(replica).unwrap_or(0),
                    replicas: Vec::new(),
                },
            ))
        })
        .collect();
    meta.sort_by_key(|(replica, _)| *replica);
    Ok(meta.into_iter().map(|(_, location)| location).collect())
}

/// The region name of a meta replica: `hbase:meta,,1` for the default replica (its
/// name is the old format, without an encoded suffix), `hbase:meta,,1_000N` for others.
fn meta_region_name(region: &pb::RegionInfo) -> bytes::Bytes {
    let table = table_name_string(&region.table_name);
    let start = String::from_utf8_lossy(region.start_key.as_deref().unwrap_or_default()).into_owned();
    match region.replica_id.unwrap_or(0) {
        0 => bytes::Bytes::from(format!("{table},{start},{}", region.region_id)),
        replica => bytes::Bytes::from(format!("{table},{start},{}_{replica:04X}", region.region_id)),
    }
}
