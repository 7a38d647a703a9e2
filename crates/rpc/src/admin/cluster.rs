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
