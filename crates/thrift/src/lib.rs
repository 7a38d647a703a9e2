//! HBase Thrift2 bindings and a truly async transport on tokio.
//!
//! - [`hbase`]: the Thrift2 types (`TGet`, `TPut`, `TScan`, `TResult`, ...) generated
//!   from `thrift-idl/hbase.thrift`, and the generated synchronous client (kept as a
//!   baseline for benchmarks).
//! - [`Connection`]: one connection to a Thrift2 gateway with one async method per
//!   THBaseService call. Buffered or framed transport, binary or compact protocol
//!   ([`ConnectionOptions`]); all network I/O is tokio's; a reply is read in time
//!   linear in its size and refused once it exceeds
//!   [`ConnectionOptions::max_response_bytes`], before it is buffered.
//!
//! Most applications want the `basalt` crate's pooled client instead; this crate is
//! the layer it is built on.
//!
//! ```no_run
//! # async fn demo() -> Result<(), basalt_thrift::CallError> {
//! use basalt_thrift::{Connection, ConnectionOptions};
//! let mut conn = Connection::connect("127.0.0.1:9090", ConnectionOptions::default()).await?;
//! let namespaces = conn.list_namespaces().await?;
//! assert!(namespaces.iter().any(|ns| ns == "default"));
//! # Ok(()) }
//! ```

mod connection;
mod error;
pub mod hbase;
pub mod idl;
mod message_scan;

pub use connection::{Connection, ConnectionOptions, Framing, Protocol};
pub use error::CallError;
pub use message_scan::{MessageScanner, ScanError};
