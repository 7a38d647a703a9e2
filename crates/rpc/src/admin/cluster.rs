//! The cluster's status (`GetClusterStatus`): version, id, masters, live and dead
//! region servers, regions in transition, whether the balancer is on.

use super::{Repeat, RpcAdmin};
use crate::error::RpcError;
use crate::pb;
use crate::pb::Option as StatusOption;

/// A live region server as the master sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerStatus {
    /// `host:port`.
    pub addr: String,
    /// Its host name.
    pub host: String,
    /// Its RPC port.
    pub port: u16,
    /// Its start code (start time in ms): tells a restarted server from the old one.
    pub start_code: u64,
    /// Regions it serves.
    pub regions: usize,
    /// Requests per second at its last report.
    pub requests_per_second: u64,
    /// Requests since it started.
    pub total_requests: u64,
    /// The load of each region it serves, at its last report to the master.
    pub region_loads: Vec<RegionLoad>,
}

/// A region's load as its server last reported it to the master (every few seconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionLoad {
    /// The region's full name (`table,start key,region id.encoded name.`).
    pub name: bytes::Bytes,
    /// Its stores (one per column family).
    pub stores: u32,
    /// Its store files.
    pub store_files: u32,
    /// The size of its store files, in MB.
    pub store_file_size_mb: u32,
    /// The size of its memstore, in MB.
    pub memstore_size_mb: u32,
    /// Read requests it served since it opened.
    pub read_requests: u64,
    /// Write requests it served since it opened.
    pub write_requests: u64,
}

impl RegionLoad {
    /// Whether this is the load of `table`'s region starting at `start_key` with id
    /// `region_id` (its name is `table,start_key,region_id.` and the encoded name;
    /// `table` as HBase names it: `ns:t`, or `t` in the default namespace).
    pub fn is_region(&self, table: &str, start_key: &[u8], region_id: i64) -> bool {
        let table = table.strip_prefix("default:").unwrap_or(table);
        let mut prefix = Vec::with_capacity(table.len() + start_key.len() + 24);
        prefix.extend_from_slice(table.as_bytes());
        prefix.push(b',');
        prefix.extend_from_slice(start_key);
        prefix.extend_from_slice(format!(",{region_id}.").as_bytes());
        self.name.starts_with(&prefix)
    }
}

/// A region in transition (opening, closing, splitting, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionInTransition {
    /// The table.
    pub table: String,
    /// The region's encoded name or full name, as the master named it.
    pub region: String,
    /// The state (`OPENING`, `CLOSING`, `SPLITTING`, ...).
    pub state: String,
}

/// What the master says of the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterStatus {
    /// HBase's version (`2.6.1`).
    pub version: String,
    /// The cluster id.
    pub cluster_id: String,
    /// `host:port` of the active master.
    pub master: Option<String>,
    /// `host:port` of each backup master.
    pub backup_masters: Vec<String>,
    /// The live region servers.
    pub live_servers: Vec<ServerStatus>,
    /// `host:port` of the region servers known dead.
    pub dead_servers: Vec<String>,
    /// Regions in transition.
    pub regions_in_transition: Vec<RegionInTransition>,
    /// Whether the balancer is on.
    pub balancer_on: bool,
}

fn addr(server: &pb::ServerName) -> String {
    crate::registry::server_addr(server)
}

impl RpcAdmin {
    /// The cluster's status, asked of the active master.
    pub async fn cluster_status(&self) -> Result<ClusterStatus, RpcError> {
        let options = [
            StatusOption::HbaseVersion,
            StatusOption::ClusterId,
            StatusOption::LiveServers,
            StatusOption::DeadServers,
            StatusOption::Master,
            StatusOption::BackupMasters,
            StatusOption::RegionsInTransition,
            StatusOption::BalancerOn,
        ];
        let request = pb::GetClusterStatusRequest { options: options.iter().map(|o| *o as i32).collect() };
        let response: pb::GetClusterStatusResponse =
            self.master_call("GetClusterStatus", &request, Repeat::Safe).await?;
        let status = response.cluster_status;
        Ok(ClusterStatus {
            version: status.hbase_version.map(|v| v.version).unwrap_or_default(),
            cluster_id: status.cluster_id.map(|id| id.cluster_id).unwrap_or_default(),
            master: status.master.as_ref().map(addr),
            backup_masters: status.backup_masters.iter().map(addr).collect(),
            live_servers: status
                .live_servers
                .iter()
                .map(|live| ServerStatus {
                    addr: addr(&live.server),
                    host: live.server.host_name.clone(),
                    port: live.server.port.and_then(|p| u16::try_from(p).ok()).unwrap_or(0),
                    start_code: live.server.start_code.unwrap_or(0),
                    regions: live.server_load.region_loads.len(),
                    requests_per_second: live.server_load.number_of_requests.unwrap_or(0),
                    total_requests: live.server_load.total_number_of_requests.unwrap_or(0),
                    region_loads: live
                        .server_load
                        .region_loads
                        .iter()
                        .map(|load| RegionLoad {
                            name: load.region_specifier.value.clone(),
                            stores: load.stores.unwrap_or(0),
                            store_files: load.storefiles.unwrap_or(0),
                            store_file_size_mb: load.storefile_size_mb.unwrap_or(0),
                            memstore_size_mb: load.mem_store_size_mb.unwrap_or(0),
                            read_requests: load.read_requests_count.unwrap_or(0),
                            write_requests: load.write_requests_count.unwrap_or(0),
                        })
                        .collect(),
                })
                .collect(),
            dead_servers: status.dead_servers.iter().map(addr).collect(),
            regions_in_transition: status
                .regions_in_transition
                .iter()
                .map(|rit| {
                    let info = &rit.region_state.region_info;
                    RegionInTransition {
                        table: super::names::table_string(&info.table_name),
                        region: String::from_utf8_lossy(&rit.spec.value).into_owned(),
                        state: rit.region_state.state().as_str_name().to_owned(),
                    }
                })
                .collect(),
            balancer_on: status.balancer_on.unwrap_or(false),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::RegionLoad;

    #[test]
    fn a_region_load_is_matched_by_table_start_key_and_id() {
        let load = |name: &str| RegionLoad {
            name: bytes::Bytes::copy_from_slice(name.as_bytes()),
            stores: 1,
            store_files: 0,
            store_file_size_mb: 0,
            memstore_size_mb: 0,
            read_requests: 0,
            write_requests: 0,
        };
        let region = load("ns:t,k,1700000000000.0123abcd.");
        assert!(region.is_region("ns:t", b"k", 1_700_000_000_000));
        assert!(!region.is_region("ns:t", b"k", 1_700_000_000_001));
        assert!(!region.is_region("ns:t", b"", 1_700_000_000_000));
        assert!(!region.is_region("ns:t2", b"k", 1_700_000_000_000));
        // A start key holding commas, and the default namespace left out of names.
        let first = load("t,a,b,5.ff.");
        assert!(first.is_region("default:t", b"a,b", 5) && first.is_region("t", b"a,b", 5));
        assert!(!first.is_region("t", b"a", 5));
    }
}
