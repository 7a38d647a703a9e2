//! HBase's native RPC for Basalt: straight to the region servers, without the Thrift2
//! gateway.
//!
//! - [`Connection`]: one TCP connection per server and service, calls multiplexed by
//!   call id, a deadline per call, cancellation by drop.
//! - [`RpcClient`]: bootstrap through the connection registry (no ZooKeeper), or
//!   through ZooKeeper with the cargo feature `zookeeper` (for clusters that don't serve
//!   the registry to clients), region
//!   locations from `hbase:meta` cached per table, gets, mutations, batches grouped by
//!   region server, and scans that cross regions and survive moves and splits.
//! - Reads take HBase's options natively: columns, versions, time ranges (whole and per
//!   family), block caching, protobuf filters (typed or as bytes), exact start/stop
//!   bounds, `batch`, limits; scans renew their leases in the background and are
//!   `Stream`s ([`Scanner::into_stream`]).
//! - Increments and appends carry nonces, so a retry after an unknown outcome is
//!   applied once; row mutations are atomic, with or without a condition.
//! - An [`AddressMap`] routes the addresses servers advertise to reachable ones (HBase
//!   in Docker or behind NAT).
//! - Replies are views over the reply's bytes: a [`Cell`]'s row, family, qualifier and
//!   value are slices of the cell block, not copies.
//!
//! - Administration ([`RpcAdmin`], from [`RpcClient::admin`]) through the active
//!   master's `MasterService` and the region servers' `AdminService`: namespaces,
//!   tables, families, procedures waited on with a deadline, regions, the balancer,
//!   snapshots and the cluster's status (see [`admin`]).
//! - Security ([`Security`]): TLS to servers with HBase 2.6's Netty TLS, and Kerberos
//!   (SASL GSSAPI with auth, auth-int or auth-conf) with the cargo feature `kerberos`;
//!   without either, simple authentication (the user name in the connection header).

pub mod admin;
mod atomic;
mod batch;
mod builder;
mod cells;
mod client;
mod conn;
mod error;
mod lease;
mod mutation;
mod pool;
mod read;
mod recv;
mod region;
mod registry;
mod replica;
mod retry;
mod sasl;
pub mod sasl_frame;
mod scan;
mod security;
mod send_buffers;
mod validate;
#[cfg(feature = "zookeeper")]
mod zookeeper;

pub use basalt_rpc_protocol::{call::Service, pb};

pub use admin::RpcAdmin;
pub use atomic::Condition;
pub use basalt_rpc_protocol::block_rows::{BlockRows, CellView};
pub use basalt_rpc_protocol::cellblock::{Cell, CellType};
pub use basalt_rpc_protocol::exception::{MovedTo, RemoteException, RemoteExceptionKind};
pub use basalt_security::{KerberosOptions, Qop, QopChoice, SecurityError, TlsOptions, KERBEROS_SUPPORTED};
#[cfg(feature = "bench-internals")]
#[doc(hidden)]
pub use batch::bench_internals;
pub use batch::{BatchAction, BatchResults};
pub use builder::{RpcClient, RpcClientBuilder};
pub use cells::{RowCells, RowResult, ScanPage};
pub use conn::{Connection, ConnectionOptions, Reply};
pub use error::{RemoteError, RpcError};
pub use mutation::{CellWriter, Check, Durability, Mutation, WriteCells, WriteKind};
pub use pool::AddressMap;
pub use read::Get;
pub use region::RegionLocation;
pub use registry::ClusterInfo;
pub use retry::{retry_hint, Backoff, RetryRule};
pub use scan::{ScanSpec, Scanner};
pub use security::Security;
