//! The typed errors of this crate: one enum per area (framing, cell blocks, meta rows).
//!
//! Every decoder here reports malformed or hostile input through these types and never
//! panics; a length is checked against the bytes that remain before anything is sliced
//! or allocated.

use thiserror::Error;

/// A frame, header or message of the RPC layer could not be encoded or decoded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum FrameError {
    /// A frame's 4-byte length is larger than the configured maximum (or negative as a
    /// Java `int`). The connection cannot be resynchronised after this.
    #[error("frame of {length} bytes is larger than the limit of {max} bytes")]
    FrameTooLarge {
        /// The length the frame announced (or would need, when encoding).
        length: u64,
        /// The limit in force.
        max: u64,
    },
    /// A part announced more bytes than the frame has left.
    #[error("{part} needs {needed} bytes but only {remaining} remain in the frame")]
    Truncated {
        /// Which part was being read.
        part: &'static str,
        /// The bytes it announced or needs.
        needed: u64,
        /// The bytes that were left.
        remaining: u64,
    },
    /// A varint length prefix is malformed (more than 10 bytes, or overflowing).
    #[error("{part}: malformed varint length")]
    BadVarint {
        /// Which part was being read.
        part: &'static str,
    },
    /// A protobuf message did not decode.
    #[error("{part}: protobuf decoding failed: {reason}")]
    Protobuf {
        /// Which message was being decoded.
        part: &'static str,
        /// prost's description of the problem.
        reason: String,
    },
    /// A frame had bytes left after its last part.
    #[error("{part}: {extra} unexpected bytes after it in the frame")]
    TrailingBytes {
        /// The last part that was read.
        part: &'static str,
        /// How many bytes were left over.
        extra: u64,
    },
    /// A response header carried no call id, so the reply cannot be matched to a call.
    #[error("response header without a call id")]
    MissingCallId,
    /// The reply carried no response message where one was expected.
    #[error("the reply to call {call_id} carries no response message")]
    MissingResponse {
        /// The call it answered.
        call_id: u32,
    },
    /// The reply is a remote exception, not a response message.
    #[error("the reply to call {call_id} is the remote exception {class_name}")]
    IsException {
        /// The call it answered.
        call_id: u32,
        /// The exception's Java class.
        class_name: String,
    },
}

/// A KeyValue cell block could not be encoded or decoded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CellBlockError {
    /// A cell announced more bytes than the block has left.
    #[error("cell {index}: {part} needs {needed} bytes but only {remaining} remain")]
    Truncated {
        /// The cell's position in the block (0-based).
        index: usize,
        /// Which part was being read.
        part: &'static str,
        /// The bytes it announced or needs.
        needed: u64,
        /// The bytes that were left.
        remaining: u64,
    },
    /// A cell's lengths are inconsistent (negative, or not adding up to its size).
    #[error("cell {index}: {reason}")]
    Malformed {
        /// The cell's position in the block (0-based).
        index: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// A cell's type byte is not one of HBase's KeyValue types.
    #[error("cell {index}: unknown KeyValue type byte {type_byte}")]
    UnknownType {
        /// The cell's position in the block (0-based).
        index: usize,
        /// The byte found.
        type_byte: u8,
    },
    /// A cell to encode has a part longer than the KeyValue format allows.
    #[error("cannot encode a cell whose {part} is {length} bytes (at most {max})")]
    TooLong {
        /// Which part is too long.
        part: &'static str,
        /// Its length.
        length: u64,
        /// The format's limit.
        max: u64,
    },
    /// `cells_per_result` and the cells of the block disagree.
    #[error("the results announce {announced} cells but the block holds {present}")]
    CellCountMismatch {
        /// The sum of `cells_per_result`.
        announced: u64,
        /// The cells actually decoded.
        present: u64,
    },
}

/// An `hbase:meta` row or region name could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum MetaError {
    /// The row has no `info:regioninfo` cell.
    #[error("meta row has no info:regioninfo cell")]
    MissingRegionInfo,
    /// `info:regioninfo` does not start with the `PBUF` magic.
    #[error("info:regioninfo does not start with PBUF")]
    NoPbufMagic,
    /// `info:regioninfo` did not decode as a `RegionInfo`.
    #[error("info:regioninfo did not decode: {reason}")]
    BadRegionInfo {
        /// prost's description of the problem.
        reason: String,
    },
    /// An `info:server*` value is not `host:port`.
    #[error("info:{qualifier} is not host:port")]
    BadServer {
        /// The column's qualifier.
        qualifier: String,
    },
    /// An `info:serverstartcode*` or `info:seqnumDuringOpen*` value is not 8 bytes.
    #[error("info:{qualifier} is {length} bytes, not an 8-byte long")]
    BadLong {
        /// The column's qualifier.
        qualifier: String,
        /// Its length.
        length: usize,
    },
    /// A region name is not `table,startkey,id[.encoded.]`.
    #[error("malformed region name: {reason}")]
    BadRegionName {
        /// What is wrong.
        reason: &'static str,
    },
}
