//! HBase's native RPC protocol (HBase 2.x), with no I/O: the protobuf messages, the
//! connection preamble and header, call and reply framing, KeyValue cell blocks, remote
//! exceptions and `hbase:meta` rows. The tokio connection lives in another crate and
//! drives this one with byte buffers.

pub mod pb;
