//! What the master tells of the cluster, as [`Admin`](crate::Admin) hands it out: its
//! status, snapshots and balancer runs. Native RPC reads them from the master; these
//! are its own types, shared as they are (the gateway carries none of these calls).

pub use basalt_rpc::admin::{BalanceResult, ClusterStatus, RegionInTransition, RegionLoad, ServerStatus, SnapshotInfo};
