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
//! - Zero-copy rows: [`Connection::get_row`], [`Connection::get_rows`],
//!   [`Connection::scanner_rows`] and [`Connection::scanner_results`] decode the replies
//!   that carry rows into a [`RowBatch`] whose keys, families, qualifiers and values are
//!   slices of the received bytes (no allocation per cell; a buffered reply is delimited
//!   and indexed in one pass). [`decode_row_reply`] does the same for a reply in memory.
//! - Hostile replies: every length and count is checked against the bytes that remain
//!   before anything is allocated; replies still read by the generated code are walked
//!   first, and refused if decoding them would reserve more than a small multiple of
//!   their size. A framed reply's buffer grows as bytes arrive, never from the length
//!   the server declared.
//! - Other transports: [`Connection::from_stream`] runs over any
//!   [`ConnectionStream`]. Production gateways ([`Security`] in
//!   [`ConnectionOptions::security`]): TLS (rustls), Thrift over HTTP(S) (hyper), and
//!   Kerberos, SASL GSSAPI with auth / auth-int / auth-conf or SPNEGO over HTTP
//!   (the system's GSSAPI library, loaded at run time by `basalt-gssapi`).
//!
//! # Cargo features
//! - `kerberos` (off by default): the Kerberos transports. They load the system's
//!   GSSAPI library when a Kerberos connection is first made (Debian:
//!   `libgssapi-krb5-2`; without it, [`SecureError::GssapiLibraryMissing`] names the
//!   package); building them needs nothing beyond Rust. Without it, [`KerberosOptions`]
//!   and [`Security::kerberos`] still exist (code compiles the same either way) and a
//!   connection that asks for Kerberos fails at once with
//!   [`SecureError::KerberosNotBuilt`]; [`KERBEROS_SUPPORTED`] tells the two builds
//!   apart.
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

mod bounded_input;
mod connection;
mod error;
mod guard;
pub mod hbase;
mod http;
pub mod idl;
mod kerberos;
mod message_scan;
mod row_reply;
mod rows;
#[cfg(feature = "kerberos")]
mod sasl;
#[cfg(not(feature = "kerberos"))]
#[path = "sasl_unbuilt.rs"]
mod sasl;
mod secure;
mod stream;
// The unit tests share the integration tests' reply writer, written against the
// public API: `basalt_thrift` names this crate inside it.
#[cfg(test)]
extern crate self as basalt_thrift;
#[cfg(test)]
#[path = "../tests/support/replies.rs"]
mod test_replies;
mod tls;
mod wire;

pub use connection::{Connection, ConnectionOptions, Framing, Protocol};
pub use error::CallError;
pub use http::{HttpOptions, HttpStream};
pub use kerberos::{KerberosOptions, Qop, KERBEROS_SUPPORTED};
pub use message_scan::{MessageScanner, ScanError};
pub use row_reply::{decode_row_reply, RowReplyReader};
pub use rows::{CellData, CellRef, Cells, RowBatch, RowData, RowRef, Rows};
#[cfg(feature = "kerberos")]
pub use sasl::SaslStream;
pub use secure::{SecureError, Security};
pub use stream::ConnectionStream;
pub use tls::TlsOptions;
