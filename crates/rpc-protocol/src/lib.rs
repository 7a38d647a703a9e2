//! HBase's native RPC protocol (HBase 2.x), with no I/O: the protobuf messages, the
//! connection preamble and header, call and reply framing, KeyValue cell blocks, remote
//! exceptions and `hbase:meta` rows. A connection (in another crate) drives it with byte
//! buffers:
//!
//! - [`call`]: the bytes a client writes ([`call::preamble`],
//!   [`call::encode_connection_header`], [`call::encode_call`]);
//! - [`reply`]: the bytes it reads ([`reply::ReplyDecoder`] yields whole
//!   [`reply::Reply`]s as bytes arrive, sharing the read buffer);
//! - [`cellblock`]: cells in the KeyValue codec, read as views over the block;
//! - [`block_rows`]: a scan reply's complete rows laid flat over its cell block;
//! - [`exception`]: a failed call's exception mapped to what the client should do;
//! - [`meta`]: `hbase:meta` rows and the keys of region lookups;
//! - [`multi`]: a batch's `MultiRequest` written straight into one buffer;
//! - [`multi_reply`]: its `MultiResponse` read in place, each action's answer still
//!   encoded;
//! - [`pb`]: the generated protobuf messages.
//!
//! Every decoder bounds each length by the bytes that remain and reports bad input with
//! a typed error ([`FrameError`], [`CellBlockError`], [`MetaError`]); none panics.

pub mod block_rows;
pub mod call;
pub mod cellblock;
mod error;
pub mod exception;
pub mod meta;
pub mod multi;
pub mod multi_reply;
pub mod pb;
pub mod reply;
mod varint;

pub use error::{CellBlockError, FrameError, MetaError};
