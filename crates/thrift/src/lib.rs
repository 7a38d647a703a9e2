//! HBase Thrift2 bindings and a truly async transport on tokio.
//!
//! The I/O-free half (generated types, request encoding, bounded reply decoding, the
//! zero-copy row decoder, framing) is the `basalt-thrift-protocol` crate, re-exported
//! here; this crate adds the sockets, TLS, HTTP and SASL.
//!
//! - [`hbase`]: the Thrift2 types (`TGet`, `TPut`, `TScan`, `TResult`, ...) generated
//!   from `thrift-idl/hbase.thrift`, the generated synchronous client (kept as a
//!   baseline for benchmarks), and [`hbase::calls`]: one request type per call.
//! - [`Connection`]: one connection to a Thrift2 gateway with one async method per
//!   THBaseService call. Buffered or framed transport, binary or compact protocol
//!   ([`ConnectionOptions`]); all network I/O is tokio's; a reply is read in time
//!   linear in its size and refused once it exceeds
//!   [`ConnectionOptions::max_response_bytes`], before it is buffered.
//!
//! - Zero-copy rows: [`Connection::get_row`], [`Connection::get_multiple`],
//!   [`Connection::get_scanner_rows`] and [`Connection::get_scanner_results`] decode the replies
//!   that carry rows into a [`RowBatch`] whose keys, families, qualifiers and values are
//!   slices of the received bytes (no allocation per cell; a buffered reply is delimited
//!   and indexed in one pass). [`decode_row_reply`] does the same for a reply in memory.
//! - Hostile replies: every length and count is checked against the bytes that remain
//!   before anything is allocated; replies read by the generated code are refused, in
//!   the same pass, once decoding them would reserve more than a small multiple of
//!   their size. A framed reply's buffer grows as bytes arrive, never from the length
//!   the server declared.
//! - Other transports: [`Connection::from_stream`] runs over any
//!   [`ConnectionStream`]. Production gateways ([`Security`] in
//!   [`ConnectionOptions::security`]): TLS (rustls), Thrift over HTTP(S) (hyper), and
//!   Kerberos, SASL GSSAPI with auth / auth-int / auth-conf or SPNEGO over HTTP
//!   (the system's GSSAPI library, loaded at run time by `basalt-gssapi`). The security
//!   settings, handshakes and errors are `basalt-security`'s, re-exported here and
//!   shared with the native transport (`basalt-rpc`).
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

mod calls;
mod connection;
mod error;
mod http;
mod sasl;
mod secure;
mod stream;
mod tls;

/// Why a secured connection could not be made or used: `basalt-security`'s error,
/// shared with the native transport, under the name this crate has always used.
pub use basalt_security::SecurityError as SecureError;
pub use basalt_security::{
    ContainsSecurityError, KerberosOptions, Qop, QopChoice, SaslStream, TlsOptions, KERBEROS_SUPPORTED,
};
pub use basalt_thrift_protocol::{
    decode_reply, decode_row_reply, encode_call, hbase, idl, Call, CellData, CellRef, Cells, Framing, MessageScanner,
    Protocol, ReplyError, RowBatch, RowData, RowRef, RowReplyReader, Rows, RowsCall, ScanError,
};
pub use connection::{Connection, ConnectionOptions};
pub use error::CallError;
pub use http::{HttpOptions, HttpStream};
pub use secure::Security;
pub use stream::ConnectionStream;
