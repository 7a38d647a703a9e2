//! The I/O-free half of Basalt's HBase Thrift2 support: everything between a call's
//! arguments and the bytes on the wire, and between the reply's bytes and its value,
//! with no socket and no async runtime (in the manner of `postgres-protocol`).
//! `basalt-thrift` adds the sockets, TLS, HTTP and SASL; another transport (a test
//! pipe, a different runtime) can reuse this crate as it is.
//!
//! - [`hbase`]: the Thrift2 types (`TGet`, `TPut`, `TScan`, `TResult`, ...) generated
//!   from `thrift-idl/hbase.thrift`, the generated synchronous client (a baseline for
//!   benchmarks), and [`hbase::calls`]: one request type per THBaseService call.
//! - Requests: a [`Call`] is written by [`encode_call`] (message header, arguments,
//!   and the frame length for [`Framing::Framed`]).
//! - Replies read by the generated code: [`decode_reply`], one bounded pass (every
//!   length and count checked against the bytes that remain before anything is
//!   allocated; container memory refused beyond a small multiple of the reply's size).
//! - Zero-copy rows: [`decode_row_reply`] and [`RowReplyReader`] decode the replies that
//!   carry rows into a [`RowBatch`] whose keys, families, qualifiers and values are
//!   slices of the reply (no allocation per cell); the reader also finds where a
//!   buffered reply ends while its bytes arrive, in the same pass.
//! - Finding where any buffered reply ends: [`MessageScanner`], incremental, in time
//!   linear in the reply's size; framed replies: [`frame_len`].
//! - [`idl`]: a reader of Thrift IDL files, to compare ours with HBase's.
//!
//! Errors are [`ReplyError`]s: protocol and bound violations, and the failures the
//! server declared.

mod bounded_input;
mod call;
mod error;
mod framing;
pub mod hbase;
pub mod idl;
mod message_scan;
mod row_reply;
mod rows;
// The unit tests share the integration tests' reply writer, written against the
// public API: `basalt_thrift_protocol` names this crate inside it.
#[cfg(test)]
extern crate self as basalt_thrift_protocol;
#[cfg(test)]
#[path = "../tests/support/replies.rs"]
mod test_replies;
mod wire;

pub use call::{decode_reply, encode_call, Call, RowsCall};
pub use error::ReplyError;
pub use framing::{frame_len, Framing, Protocol, FRAME_HEADER_LEN};
pub use message_scan::{MessageScanner, ScanError};
pub use row_reply::{decode_row_reply, RowReplyReader};
pub use rows::{CellData, CellRef, Cells, RowBatch, RowData, RowRef, Rows};
