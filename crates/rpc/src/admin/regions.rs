//! Regions and the balancer: flush (the master's `FlushTable`, or a region server's
//! `FlushRegion`), compact (`CompactRegion` on each region's server), split
//! (`SplitRegion`), merge (`MergeTableRegions`), move (`MoveRegion`), unassign and assign
//! (`UnassignRegion`, `AssignRegion`), and the balancer (`SetBalancerRunning`,
//! `IsBalancerEnabled`, `Balance`).

use bytes::Bytes;

use basalt_rpc_protocol::call::Service;
use basalt_rpc_protocol::meta::RegionName;

use super::names::{table_proto, TableName};
use super::schema::validate_family_name;
use super::{Repeat, RpcAdmin};
use crate::error::RpcError;
use crate::pb;
use crate::pb::region_specifier::RegionSpecifierType;
use crate::region::RegionLocation;
use crate::validate::validate_row;

/// What a balancer run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BalanceResult {
    /// Whether the balancer ran (it does not while regions are in transition, or when
    /// it is off).
    pub ran: bool,
    /// Region moves it planned.
    pub moves_calculated: u32,
    /// Region moves it carried out.
    pub moves_executed: u32,
}

/// Whether the server does not know the method: it answers with a
/// `DoNotRetryIOException` wrapping `UnsupportedOperationException: METHOD`.
fn is_unknown_method(error: &RpcError) -> bool {
    error.remote().is_some_and(|remote| {
        remote.exception.class_name.ends_with("DoNotRetryIOException")
            && remote.exception.message.contains("java.lang.UnsupportedOperationException")
    })
}

fn specifier(kind: RegionSpecifierType, value: Bytes) -> pb::RegionSpecifier {
    pb::RegionSpecifier { r#type: kind as i32, value }
}

/// The encoded name of a region (the 32 hex digits at the end of its name), as the
/// master's move and merge take it.
fn encoded_name(region: &RegionLocation) -> Result<Bytes, RpcError> {
    RegionName::parse(&region.region_name)
        .ok()
        .and_then(|name| name.encoded)
        .ok_or_else(|| RpcError::InvalidArgument(format!("region name {:?} has no encoded name", region.region_name)))
}

/// The region's `RegionInfo`, as a split names it.
fn region_info(region: &RegionLocation) -> Result<pb::RegionInfo, RpcError> {
    let table = TableName::parse(&region.table)?;
    let region_id = u64::try_from(region.region_id())
        .ok()
        .filter(|&id| id > 0)
        .ok_or_else(|| RpcError::InvalidArgument(format!("region name {:?} has no region id", region.region_name)))?;
    Ok(pb::RegionInfo {
        region_id,
        table_name: table.to_proto(),
        start_key: Some(region.start_key.clone()),
        end_key: Some(region.end_key.clone()),
        offline: None,
        split: None,
        replica_id: Some(i32::from(region.replica_id)),
    })
}

impl RpcAdmin {
    /// Flushes the table's memstores to files (all families, or those named), through
    /// the master's flush procedure (HBase 2.6).
    pub async fn flush_table(&self, table: &str, families: &[Bytes]) -> Result<(), RpcError> {
        for family in families {
            validate_family_name(family)?;
        }
        let table_name = table_proto(table)?;
        let deadline = self.deadline();
        let (nonce_group, nonce) = self.nonce();
        let request = pb::FlushTableRequest { table_name, column_family: families.to_vec(), nonce_group, nonce };
        let response: pb::FlushTableResponse =
            match self.master_call_until("FlushTable", &request, Repeat::Safe, deadline).await {
                Ok(response) => response,
                Err(error) if is_unknown_method(&error) => return self.flush_each_region(table, families).await,
                Err(error) => return Err(error),
            };
        self.wait_optional(response.proc_id, &format!("flush table {table}"), deadline).await
    }

    /// Flushes every region of the table on its server: for masters before 2.6, which
    /// have no `FlushTable`.
    async fn flush_each_region(&self, table: &str, families: &[Bytes]) -> Result<(), RpcError> {
        for region in self.client.table_regions(table).await? {
            if families.is_empty() {
                self.flush_region(&region, None).await?;
            }
            for family in families {
                self.flush_region(&region, Some(family)).await?;
            }
        }
        Ok(())
    }

    /// Flushes one region on its server (`AdminService.FlushRegion`); `family` limits it
    /// to one family. Returns whether the server flushed (false: nothing to flush).
    pub async fn flush_region(&self, region: &RegionLocation, family: Option<&[u8]>) -> Result<bool, RpcError> {
        if let Some(family) = family {
            validate_family_name(family)?;
        }
        let request = pb::FlushRegionRequest {
            region: region.specifier(),
            if_older_than_ts: None,
            write_flush_wal_marker: None,
            family: family.map(Bytes::copy_from_slice),
        };
        let reply = self.call_on(&region.server, Service::Admin, "FlushRegion", &request).await?;
        let response: pb::FlushRegionResponse = reply.decode(&region.server)?;
        Ok(response.flushed.unwrap_or(false))
    }

    /// Asks each region's server to compact the table's regions (minor, or major when
    /// `major`), all families or one. The servers queue the compactions and answer at
    /// once; [`compaction_running`](Self::compaction_running) says when they are done.
    pub async fn compact_table(&self, table: &str, major: bool, family: Option<&[u8]>) -> Result<(), RpcError> {
        TableName::parse(table)?;
        for region in self.client.table_regions(table).await? {
            self.compact_region(&region, major, family).await?;
        }
        Ok(())
    }

    /// Asks the region's server to compact it (`AdminService.CompactRegion`).
    pub async fn compact_region(
        &self,
        region: &RegionLocation,
        major: bool,
        family: Option<&[u8]>,
    ) -> Result<(), RpcError> {
        if let Some(family) = family {
            validate_family_name(family)?;
        }
        let request = pb::CompactRegionRequest {
            region: region.specifier(),
            major: Some(major),
            family: family.map(Bytes::copy_from_slice),
        };
        let reply = self.call_on(&region.server, Service::Admin, "CompactRegion", &request).await?;
        reply.decode::<pb::CompactRegionResponse>(&region.server)?;
        Ok(())
    }

    /// Whether a compaction of the region is running or queued, as its server says
    /// (`AdminService.GetRegionInfo` with the compaction state).
    pub async fn compaction_running(&self, region: &RegionLocation) -> Result<bool, RpcError> {
        let request =
            pb::GetRegionInfoRequest { region: region.specifier(), compaction_state: Some(true), best_split_row: None };
        let reply = self.call_on(&region.server, Service::Admin, "GetRegionInfo", &request).await?;
        let response: pb::GetRegionInfoResponse = reply.decode(&region.server)?;
        Ok(response
            .compaction_state
            .is_some_and(|state| state != pb::get_region_info_response::CompactionState::None as i32))
    }

    /// Splits the region of `table` holding `split_row` at that row; returns when the
    /// two daughters are open.
    pub async fn split_region(&self, table: &str, split_row: &[u8]) -> Result<(), RpcError> {
        TableName::parse(table)?;
        validate_row(split_row)?;
        let region = self.client.locate(table, split_row).await?;
        if region.start_key.as_ref() == split_row {
            return Err(RpcError::InvalidArgument(format!("{split_row:?} is already a region boundary of {table}")));
        }
        let deadline = self.deadline();
        let (nonce_group, nonce) = self.nonce();
        let request = pb::SplitTableRegionRequest {
            region_info: region_info(&region)?,
            split_row: Some(Bytes::copy_from_slice(split_row)),
            nonce_group,
            nonce,
        };
        let response: pb::SplitTableRegionResponse =
            self.master_call_until("SplitRegion", &request, Repeat::Safe, deadline).await?;
        let result = self.wait_optional(response.proc_id, &format!("split {table} at {split_row:?}"), deadline).await;
        self.forget_regions(table);
        result
    }

    /// Merges adjacent regions of one table into one (`forcible`: also regions that are
    /// not adjacent); returns when the merged region is open.
    pub async fn merge_regions(&self, regions: &[RegionLocation], forcible: bool) -> Result<(), RpcError> {
        if regions.len() < 2 {
            return Err(RpcError::InvalidArgument("a merge needs at least two regions".into()));
        }
        let specifiers = regions
            .iter()
            .map(|region| Ok(specifier(RegionSpecifierType::EncodedRegionName, encoded_name(region)?)))
            .collect::<Result<Vec<_>, RpcError>>()?;
        let deadline = self.deadline();
        let (nonce_group, nonce) = self.nonce();
        let request = pb::MergeTableRegionsRequest { region: specifiers, forcible: Some(forcible), nonce_group, nonce };
        let response: pb::MergeTableRegionsResponse =
            self.master_call_until("MergeTableRegions", &request, Repeat::Safe, deadline).await?;
        let result =
            self.wait_optional(response.proc_id, &format!("merge of {} regions", regions.len()), deadline).await;
        for region in regions {
            self.forget_regions(&region.table);
        }
        result
    }

    /// Moves the region to the live server `to` (`host:port`), or anywhere the master
    /// picks; returns when it is open again.
    pub async fn move_region(&self, region: &RegionLocation, to: Option<&str>) -> Result<(), RpcError> {
        let dest_server_name = match to {
            Some(to) => Some(self.live_server_name(to).await?),
            None => None,
        };
        let request = pb::MoveRegionRequest {
            region: specifier(RegionSpecifierType::EncodedRegionName, encoded_name(region)?),
            dest_server_name,
        };
        let result = self.master_call::<pb::MoveRegionResponse>("MoveRegion", &request, Repeat::Safe).await;
        self.forget_regions(&region.table);
        result.map(drop)
    }

    /// Closes the region (it stays offline until [`assign_region`](Self::assign_region)
    /// or a balancer run); `force` also when it is in transition.
    pub async fn unassign_region(&self, region: &RegionLocation, force: bool) -> Result<(), RpcError> {
        let request = pb::UnassignRegionRequest {
            region: specifier(RegionSpecifierType::RegionName, region.region_name.clone()),
            force: Some(force),
        };
        let result = self.master_call::<pb::UnassignRegionResponse>("UnassignRegion", &request, Repeat::Safe).await;
        self.forget_regions(&region.table);
        result.map(drop)
    }

    /// Opens the region on a server the master picks.
    pub async fn assign_region(&self, region: &RegionLocation) -> Result<(), RpcError> {
        let request = pb::AssignRegionRequest {
            region: specifier(RegionSpecifierType::RegionName, region.region_name.clone()),
            r#override: None,
        };
        let result = self.master_call::<pb::AssignRegionResponse>("AssignRegion", &request, Repeat::Safe).await;
        self.forget_regions(&region.table);
        result.map(drop)
    }

    /// Turns the balancer on or off; returns whether it was on. `synchronous` waits for
    /// a running balance to finish.
    pub async fn set_balancer_running(&self, on: bool, synchronous: bool) -> Result<bool, RpcError> {
        let request = pb::SetBalancerRunningRequest { on, synchronous: Some(synchronous) };
        let response: pb::SetBalancerRunningResponse =
            self.master_call("SetBalancerRunning", &request, Repeat::Safe).await?;
        Ok(response.prev_balance_value.unwrap_or(false))
    }

    /// Whether the balancer is on.
    pub async fn is_balancer_enabled(&self) -> Result<bool, RpcError> {
        let request = pb::IsBalancerEnabledRequest {};
        let response: pb::IsBalancerEnabledResponse =
            self.master_call("IsBalancerEnabled", &request, Repeat::Safe).await?;
        Ok(response.enabled)
    }

    /// Runs the balancer once (`dry_run`: only plans), ignoring regions in transition
    /// or not.
    pub async fn balance(&self, dry_run: bool, ignore_regions_in_transition: bool) -> Result<BalanceResult, RpcError> {
        let request = pb::BalanceRequest { ignore_rit: Some(ignore_regions_in_transition), dry_run: Some(dry_run) };
        let response: pb::BalanceResponse = self.master_call("Balance", &request, Repeat::Unsafe).await?;
        Ok(BalanceResult {
            ran: response.balancer_ran,
            moves_calculated: response.moves_calculated.unwrap_or(0),
            moves_executed: response.moves_executed.unwrap_or(0),
        })
    }

    /// The live server `addr` (`host:port`) with its start code, from the cluster status.
    async fn live_server_name(&self, addr: &str) -> Result<pb::ServerName, RpcError> {
        let status = self.cluster_status().await?;
        status
            .live_servers
            .iter()
            .find(|server| server.addr == addr)
            .map(|server| pb::ServerName {
                host_name: server.host.clone(),
                port: Some(u32::from(server.port)),
                start_code: Some(server.start_code),
            })
            .ok_or_else(|| RpcError::InvalidArgument(format!("{addr} is not a live region server")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::region::test_region;

    #[test]
    fn region_names_give_encoded_names_and_infos() {
        let region = RegionLocation {
            region_name: Bytes::from_static(b"ns:t,m,1700000000000.0123456789abcdef0123456789abcdef."),
            ..test_region("m", "z", "h:1")
        };
        let region = RegionLocation { table: "ns:t".into(), ..region };
        assert_eq!(encoded_name(&region).unwrap(), Bytes::from_static(b"0123456789abcdef0123456789abcdef"));
        let info = region_info(&region).unwrap();
        assert_eq!(info.region_id, 1_700_000_000_000);
        assert_eq!(info.start_key.as_deref(), Some(&b"m"[..]));
        assert_eq!(info.end_key.as_deref(), Some(&b"z"[..]));
        assert_eq!(&info.table_name.namespace[..], b"ns");
        let old = RegionLocation { region_name: Bytes::from_static(b"t,,1"), ..region };
        assert!(encoded_name(&old).is_err());
    }

    #[test]
    fn an_unknown_method_is_told_from_other_refusals() {
        // What HBase 2.6's master said to a method it does not have.
        let unknown = super::super::remote(
            "m:1",
            "org.apache.hadoop.hbase.DoNotRetryIOException",
            "/127.0.0.1:35897 is unable to read call parameter from client 127.0.0.1; \
             java.lang.UnsupportedOperationException: GetProcedureResult"
                .into(),
        );
        assert!(is_unknown_method(&unknown));
        let other = super::super::remote("m:1", "org.apache.hadoop.hbase.DoNotRetryIOException", "no".into());
        assert!(!is_unknown_method(&other));
        assert!(!is_unknown_method(&RpcError::InvalidArgument("x".into())));
    }
}
