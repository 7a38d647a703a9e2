//! Bootstrap through ZooKeeper, for clusters that don't serve the connection registry
//! to clients (older HBase 2.x): the cluster id from `<parent>/hbaseid`, the location
//! of `hbase:meta` from `<parent>/meta-region-server` (and `-N` for its replicas), and
//! the active master from `<parent>/master`.
//!
//! HBase writes each of these znodes as an optional metadata prefix (0xFF, a 4-byte
//! big-endian length, the writer's id) followed by `PBUF` and a protobuf message. Every
//! byte is read as untrusted input: lengths are checked against what remains, and a
//! malformed znode is a typed [`ZnodeError`], never a panic.

use std::time::Duration;

use bytes::Bytes;
use prost::Message;

use crate::error::RpcError;
use crate::pb;
use crate::region::RegionLocation;
use crate::registry::ClusterInfo;

/// The first byte of HBase's metadata prefix on a znode's data.
const METADATA_MAGIC: u8 = 0xFF;
/// The magic before a protobuf message in a znode's data.
const PB_MAGIC: &[u8; 4] = b"PBUF";
/// The largest znode data read (ZooKeeper's own default limit, `jute.maxbuffer`).
const MAX_ZNODE_BYTES: usize = 1 << 20;
/// The longest cluster id accepted (HBase's are UUIDs, 36 characters).
const MAX_CLUSTER_ID_BYTES: usize = 1024;
/// The longest host name accepted (DNS's limit).
const MAX_HOST_BYTES: usize = 255;
/// The znode of the default meta replica, under the parent; replica N adds `-N`.
const META_ZNODE: &str = "meta-region-server";
/// `hbase:meta`'s table name, as region locations spell it.
const META_TABLE: &str = "hbase:meta";

/// Why a znode's data could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum ZnodeError {
    /// The znode holds no data.
    #[error("the znode is empty")]
    Empty,
    /// More data than any HBase znode holds.
    #[error("{0} bytes of data, more than the {MAX_ZNODE_BYTES} read")]
    TooLarge(usize),
    /// The metadata prefix ends before its length field does.
    #[error("the metadata prefix is cut short: {0} bytes")]
    TruncatedMetadata(usize),
    /// The metadata's id length is negative or longer than the bytes after it.
    #[error("the metadata id length {declared} does not fit the {remaining} bytes after it")]
    BadMetadataLength {
        /// The length as written (a Java int).
        declared: i32,
        /// Bytes after the length field.
        remaining: usize,
    },
    /// The data does not start with `PBUF`.
    #[error("no PBUF magic before the message")]
    NoProtobufMagic,
    /// The message after `PBUF` does not decode.
    #[error("the message does not decode: {0}")]
    Decode(String),
    /// A required field is missing or empty.
    #[error("the field {0} is missing")]
    Missing(&'static str),
    /// A cluster id that is not UTF-8 or is too long.
    #[error("the cluster id is not a UTF-8 string of at most {MAX_CLUSTER_ID_BYTES} bytes")]
    BadClusterId,
    /// A server name without a usable host or port.
    #[error("bad server name: {0}")]
    BadServer(String),
}

/// `ClusterIdProtos.ClusterId`, the data of `<parent>/hbaseid` after `PBUF`.
#[derive(Clone, PartialEq, Message)]
struct ClusterIdProto {
    /// The cluster's id.
    #[prost(string, optional, tag = "1")]
    cluster_id: Option<String>,
}

/// `ZooKeeperProtos.MetaRegionServer`, the data of a meta znode after `PBUF`.
#[derive(Clone, PartialEq, Message)]
struct MetaRegionServerProto {
    /// Where the meta region is open (or going).
    #[prost(message, optional, tag = "1")]
    server: Option<pb::ServerName>,
    /// The server's RPC major version.
    #[prost(uint32, optional, tag = "2")]
    rpc_version: Option<u32>,
    /// `RegionState.State` of the meta region (OPEN is 3).
    #[prost(int32, optional, tag = "3")]
    state: Option<i32>,
}

/// `ZooKeeperProtos.Master`, the data of `<parent>/master` after `PBUF`.
#[derive(Clone, PartialEq, Message)]
struct MasterProto {
    /// The active master.
    #[prost(message, optional, tag = "1")]
    master: Option<pb::ServerName>,
    /// The master's RPC major version.
    #[prost(uint32, optional, tag = "2")]
    rpc_version: Option<u32>,
    /// The master's web UI port.
    #[prost(uint32, optional, tag = "3")]
    info_port: Option<u32>,
}

/// The data after HBase's metadata prefix, if there is one (data written without it
/// is returned whole, as HBase reads it).
fn strip_metadata(data: &[u8]) -> Result<&[u8], ZnodeError> {
    if data.len() > MAX_ZNODE_BYTES {
        return Err(ZnodeError::TooLarge(data.len()));
    }
    let Some((&first, rest)) = data.split_first() else {
        return Err(ZnodeError::Empty);
    };
    if first != METADATA_MAGIC {
        return Ok(data);
    }
    let Some((length, after)) = rest.split_first_chunk::<4>() else {
        return Err(ZnodeError::TruncatedMetadata(data.len()));
    };
    let declared = i32::from_be_bytes(*length);
    let bad = || ZnodeError::BadMetadataLength { declared, remaining: after.len() };
    let id_length = usize::try_from(declared).map_err(|_| bad())?;
    after.get(id_length..).ok_or_else(bad)
}

/// The protobuf message after the metadata prefix and `PBUF`.
fn protobuf_body(data: &[u8]) -> Result<&[u8], ZnodeError> {
    strip_metadata(data)?.strip_prefix(PB_MAGIC.as_slice()).ok_or(ZnodeError::NoProtobufMagic)
}

/// The cluster id in `<parent>/hbaseid`: a `ClusterId` message after `PBUF`, or (as
/// very old clusters wrote it) the bare id.
fn parse_cluster_id(data: &[u8]) -> Result<String, ZnodeError> {
    let data = strip_metadata(data)?;
    let id = match data.strip_prefix(PB_MAGIC.as_slice()) {
        Some(body) => ClusterIdProto::decode(body)
            .map_err(|e| ZnodeError::Decode(e.to_string()))?
            .cluster_id
            .ok_or(ZnodeError::Missing("cluster_id"))?,
        None => String::from_utf8(data.to_vec()).map_err(|_| ZnodeError::BadClusterId)?,
    };
    if id.is_empty() {
        return Err(ZnodeError::Missing("cluster_id"));
    }
    if id.len() > MAX_CLUSTER_ID_BYTES {
        return Err(ZnodeError::BadClusterId);
    }
    Ok(id)
}

/// `host:port` of a server name, refusing a missing or empty host, a host with a
/// separator or control character in it, and a port outside 1..=65535.
fn server_address(server: Option<&pb::ServerName>) -> Result<String, ZnodeError> {
    let server = server.ok_or(ZnodeError::Missing("server"))?;
    let host = &server.host_name;
    if host.is_empty() || host.len() > MAX_HOST_BYTES {
        return Err(ZnodeError::BadServer(format!("a host name of {} bytes", host.len())));
    }
    if host.chars().any(|c| c.is_control() || c.is_whitespace() || c == ',' || c == '/') {
        return Err(ZnodeError::BadServer(format!("host name {host:?}")));
    }
    let port = server.port.ok_or(ZnodeError::Missing("port"))?;
    match u16::try_from(port) {
        Ok(port) if port != 0 => Ok(format!("{host}:{port}")),
        _ => Err(ZnodeError::BadServer(format!("port {port}"))),
    }
}

/// `host:port` of the server in a meta znode.
fn parse_meta_server(data: &[u8]) -> Result<String, ZnodeError> {
    let message = MetaRegionServerProto::decode(protobuf_body(data)?).map_err(|e| ZnodeError::Decode(e.to_string()))?;
    server_address(message.server.as_ref())
}

/// `host:port` of the master in `<parent>/master`.
fn parse_master(data: &[u8]) -> Result<String, ZnodeError> {
    let message = MasterProto::decode(protobuf_body(data)?).map_err(|e| ZnodeError::Decode(e.to_string()))?;
    server_address(message.master.as_ref())
}

/// The meta replica a child of the parent znode names: 0 for `meta-region-server`, N
/// for `meta-region-server-N`; `None` for any other child.
fn meta_replica_of(child: &str) -> Option<u16> {
    let rest = child.strip_prefix(META_ZNODE)?;
    if rest.is_empty() {
        return Some(0);
    }
    let digits = rest.strip_prefix('-')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|&replica| replica != 0)
}

/// The location of one meta replica: `hbase:meta,,1` for the default replica,
/// `hbase:meta,,1_000N` for replica N.
fn meta_location(replica: u16, server: String) -> RegionLocation {
    let region_name = match replica {
        0 => format!("{META_TABLE},,1"),
        replica => format!("{META_TABLE},,1_{replica:04X}"),
    };
    RegionLocation {
        region_name: Bytes::from(region_name),
        table: META_TABLE.to_owned(),
        start_key: Bytes::new(),
        end_key: Bytes::new(),
        server,
        replica_id: replica,
        replicas: Vec::new(),
    }
}

/// The znode parent as a path prefix: `/hbase` stays, a trailing `/` goes.
fn parent_path(parent: &str) -> Result<String, RpcError> {
    let trimmed = parent.trim_end_matches('/');
    if !parent.starts_with('/') || trimmed.is_empty() || trimmed.split('/').skip(1).any(str::is_empty) {
        return Err(RpcError::InvalidArgument(format!("znode parent {parent:?} is not an absolute ZooKeeper path")));
    }
    Ok(trimmed.to_owned())
}

/// What went wrong with one znode, as a bootstrap failure naming the quorum and path.
fn bootstrap_error(quorum: &str, path: &str, reason: impl std::fmt::Display) -> RpcError {
    RpcError::Bootstrap(format!("ZooKeeper {quorum}: {path}: {reason}"))
}

/// A session with the quorum, failing once every server was tried (not retrying
/// until the session timeout).
async fn connect(quorum: &str) -> Result<zookeeper_client::Client, RpcError> {
    if quorum.trim().is_empty() {
        return Err(RpcError::InvalidArgument("empty ZooKeeper quorum".into()));
    }
    zookeeper_client::Client::connector()
        .with_fail_eagerly()
        .connect(quorum)
        .await
        .map_err(|e| RpcError::Bootstrap(format!("ZooKeeper {quorum}: no session: {e}")))
}

/// A znode's data; `None` if there is no such znode.
async fn read(zk: &zookeeper_client::Client, quorum: &str, path: &str) -> Result<Option<Vec<u8>>, RpcError> {
    match zk.get_data(path).await {
        Ok((data, _)) => Ok(Some(data)),
        Err(zookeeper_client::Error::NoNode) => Ok(None),
        Err(e) => Err(bootstrap_error(quorum, path, e)),
    }
}

/// Every meta replica's location found under `parent`, the default replica first.
async fn read_meta(zk: &zookeeper_client::Client, quorum: &str, parent: &str) -> Result<Vec<RegionLocation>, RpcError> {
    let children = zk.list_children(parent).await.map_err(|e| bootstrap_error(quorum, parent, e))?;
    let mut replicas: Vec<(u16, String)> =
        children.iter().filter_map(|child| meta_replica_of(child).map(|replica| (replica, child.clone()))).collect();
    replicas.sort();
    if replicas.first().map(|(replica, _)| *replica) != Some(0) {
        return Err(bootstrap_error(quorum, &format!("{parent}/{META_ZNODE}"), "no such znode: meta is not assigned"));
    }
    let mut meta = Vec::with_capacity(replicas.len());
    for (replica, child) in replicas {
        let path = format!("{parent}/{child}");
        // A replica's znode may go between the listing and the read: it is left out.
        let Some(data) = read(zk, quorum, &path).await? else { continue };
        match parse_meta_server(&data) {
            Ok(server) => meta.push(meta_location(replica, server)),
            // A secondary's bad znode leaves it out; the primary's fails the bootstrap.
            Err(e) if replica == 0 => return Err(bootstrap_error(quorum, &path, e)),
            Err(e) => tracing::warn!(%path, error = %e, "meta replica znode ignored"),
        }
    }
    if meta.first().map(|location| location.replica_id) != Some(0) {
        return Err(bootstrap_error(quorum, &format!("{parent}/{META_ZNODE}"), "the znode went away"));
    }
    Ok(meta)
}

/// The cluster id, active master and meta locations, read from ZooKeeper within
/// `timeout`.
pub(crate) async fn bootstrap(quorum: &str, parent: &str, timeout: Duration) -> Result<ClusterInfo, RpcError> {
    let parent = parent_path(parent)?;
    let work = async {
        let zk = connect(quorum).await?;
        let id_path = format!("{parent}/hbaseid");
        let id_data = read(&zk, quorum, &id_path).await?.ok_or_else(|| {
            bootstrap_error(quorum, &id_path, "no such znode (is HBase up, under this znode parent?)")
        })?;
        let cluster_id = parse_cluster_id(&id_data).map_err(|e| bootstrap_error(quorum, &id_path, e))?;
        let meta = read_meta(&zk, quorum, &parent).await?;
        let master_path = format!("{parent}/master");
        let active_master = match read(&zk, quorum, &master_path).await? {
            Some(data) => Some(parse_master(&data).map_err(|e| bootstrap_error(quorum, &master_path, e))?),
            None => None,
        };
        Ok(ClusterInfo { cluster_id, active_master, meta, answered_by: format!("zookeeper:{quorum}") })
    };
    tokio::time::timeout(timeout, work)
        .await
        .map_err(|_| RpcError::Bootstrap(format!("ZooKeeper {quorum} did not answer within {timeout:?}")))?
}

/// The meta locations, read again from ZooKeeper (after meta moved).
pub(crate) async fn meta_locations(
    quorum: &str,
    parent: &str,
    timeout: Duration,
) -> Result<Vec<RegionLocation>, RpcError> {
    let parent = parent_path(parent)?;
    let work = async {
        let zk = connect(quorum).await?;
        read_meta(&zk, quorum, &parent).await
    };
    tokio::time::timeout(timeout, work)
        .await
        .map_err(|_| RpcError::Bootstrap(format!("ZooKeeper {quorum} did not answer within {timeout:?}")))?
}

#[cfg(test)]
#[path = "zookeeper_tests.rs"]
mod tests;
