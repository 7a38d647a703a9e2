//! What the client writes: the connection preamble, the `ConnectionHeader`, and calls.
//!
//! On a new connection the client sends six bytes (`HBas`, the RPC version 0, the auth
//! method's code), then (after SASL, when the auth method needs it) a `ConnectionHeader`
//! prefixed by its length as a 4-byte big-endian int and written *without* a varint
//! prefix. The server answers nothing when it accepts the header. After that every call
//! is a frame: a 4-byte big-endian length of the rest, the varint-delimited
//! `RequestHeader`, the varint-delimited request message, then the cell block if the
//! header announced one.

use bytes::{BufMut, BytesMut};
use prost::Message;

use crate::cellblock::CellCodec;
use crate::error::FrameError;
use crate::pb;
use crate::varint::{delimited_len, put_delimited};

/// The four magic bytes that open every connection.
pub const PREAMBLE_MAGIC: [u8; 4] = *b"HBas";

/// The RPC version byte of HBase 0.96 and later (2.x included).
pub const RPC_VERSION: u8 = 0;

/// The largest frame a Java peer can express: its length is a signed 32-bit `int`.
pub const MAX_JAVA_FRAME_LEN: usize = i32::MAX as usize;

/// How the client authenticates, as the last byte of the preamble says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuthMethod {
    /// No SASL: the server trusts the user name in the `ConnectionHeader`.
    Simple,
    /// SASL GSSAPI (Kerberos).
    Kerberos,
    /// SASL DIGEST-MD5 with a delegation token.
    Digest,
}

impl AuthMethod {
    /// The byte HBase's `AuthMethod` enum gives this method.
    pub fn code(self) -> u8 {
        match self {
            AuthMethod::Simple => 80,
            AuthMethod::Kerberos => 81,
            AuthMethod::Digest => 82,
        }
    }
}

/// The six bytes that open a connection: `HBas`, [`RPC_VERSION`], the auth method's code.
pub fn preamble(auth: AuthMethod) -> [u8; 6] {
    let [h, b, a, s] = PREAMBLE_MAGIC;
    [h, b, a, s, RPC_VERSION, auth.code()]
}

/// The protobuf services a connection can be opened for (`ConnectionHeader.service_name`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Service {
    /// Gets, mutations, scans, multi: the region servers' data path.
    Client,
    /// Region server administration (region info, flush, ...).
    Admin,
    /// The master's DDL and cluster administration.
    Master,
    /// The connection registry (cluster id, active master, meta locations) that masters
    /// and region servers of HBase 2.5+ serve, so a client can start without ZooKeeper.
    ClientMeta,
}

impl Service {
    /// The service's name as the server looks it up.
    pub fn name(self) -> &'static str {
        match self {
            Service::Client => "ClientService",
            Service::Admin => "AdminService",
            Service::Master => "MasterService",
            Service::ClientMeta => "ClientMetaService",
        }
    }
}

/// The version this client reports in `ConnectionHeader.version_info`.
///
/// Region servers switch some behaviour on the client's version (for example, they only
/// send `RetryImmediatelyException` to clients of 1.2 or later), so the client reports
/// the protocol level it implements: HBase 2.6.
pub fn client_version_info() -> pb::VersionInfo {
    pb::VersionInfo {
        version: "2.6.1".to_owned(),
        url: "basalt".to_owned(),
        revision: concat!("basalt-rpc-protocol ", env!("CARGO_PKG_VERSION")).to_owned(),
        user: "basalt".to_owned(),
        date: String::new(),
        src_checksum: String::new(),
        version_major: Some(2),
        version_minor: Some(6),
    }
}

/// Builds the `ConnectionHeader` for `service` as `effective_user`, asking the server for
/// cell blocks in `codec` (or none: every cell then travels inside the protobuf
/// messages, which is much slower).
pub fn connection_header(service: Service, effective_user: &str, codec: Option<CellCodec>) -> pb::ConnectionHeader {
    pb::ConnectionHeader {
        user_info: Some(pb::UserInformation { effective_user: effective_user.to_owned(), real_user: None }),
        service_name: Some(service.name().to_owned()),
        cell_block_codec_class: codec.map(|codec| codec.java_class().to_owned()),
        cell_block_compressor_class: None,
        version_info: Some(client_version_info()),
        rpc_crypto_cipher_transformation: None,
        attribute: Vec::new(),
    }
}

/// Appends `header` as the server expects it after the preamble (and after SASL): a
/// 4-byte big-endian length, then the message without a varint prefix.
pub fn encode_connection_header(header: &pb::ConnectionHeader, out: &mut BytesMut) -> Result<(), FrameError> {
    let length = header.encoded_len();
    let length_i32 = java_len(length as u64)?;
    out.reserve(4 + length);
    out.put_i32(length_i32);
    header.encode(out).map_err(|error| FrameError::Protobuf { part: "connection header", reason: error.to_string() })
}

/// Appends the whole opening of a connection that needs no SASL exchange: the preamble
/// for [`AuthMethod::Simple`] and then `header`.
pub fn encode_connection_start(header: &pb::ConnectionHeader, out: &mut BytesMut) -> Result<(), FrameError> {
    out.put_slice(&preamble(AuthMethod::Simple));
    encode_connection_header(header, out)
}

/// The parts of a call's `RequestHeader` that the caller chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallHead<'a> {
    /// The id the reply will carry; unique among the calls in flight on the connection.
    pub call_id: u32,
    /// The method of the connection's service, such as `Get`, `Scan`, `Multi`, `Mutate`.
    pub method_name: &'a str,
    /// The call's priority (0 or absent is normal; HBase uses 200 for meta and admin).
    pub priority: Option<u32>,
    /// How long the server may work on the call, in milliseconds (absent: no limit).
    pub timeout_ms: Option<u32>,
}

impl CallHead<'_> {
    /// The `RequestHeader` announcing a request message and `cell_block_len` bytes of cells.
    pub fn request_header(&self, cell_block_len: u32) -> pb::RequestHeader {
        pb::RequestHeader {
            call_id: Some(self.call_id),
            trace_info: None,
            method_name: Some(self.method_name.to_owned()),
            request_param: Some(true),
            cell_block_meta: (cell_block_len > 0).then_some(pb::CellBlockMeta { length: Some(cell_block_len) }),
            priority: self.priority,
            timeout: self.timeout_ms,
            attribute: Vec::new(),
        }
    }
}

/// Appends a whole call: the frame length, the request header, `request`, `cell_block`.
pub fn encode_call<M: Message>(
    head: &CallHead<'_>,
    request: &M,
    cell_block: &[u8],
    out: &mut BytesMut,
) -> Result<(), FrameError> {
    encode_call_head(head, request, cell_block.len(), out)?;
    out.put_slice(cell_block);
    Ok(())
}

/// Appends a call without its cell block, which the caller then writes itself (for
/// example as a separate buffer in a vectored write): the frame length counts
/// `cell_block_len` more bytes, and the header announces them.
pub fn encode_call_head<M: Message>(
    head: &CallHead<'_>,
    request: &M,
    cell_block_len: usize,
    out: &mut BytesMut,
) -> Result<(), FrameError> {
    let cell_block_len_u32 = u32::try_from(cell_block_len).map_err(|_| too_large(cell_block_len as u64))?;
    let header = head.request_header(cell_block_len_u32);
    let total = delimited_len(&header) as u64 + delimited_len(request) as u64 + cell_block_len as u64;
    let total_i32 = java_len(total)?;
    out.reserve(4 + delimited_len(&header) + delimited_len(request));
    out.put_i32(total_i32);
    put_delimited(&header, "request header", out)?;
    put_delimited(request, "request", out)
}

/// Appends a call's length, header and the request's length prefix, for a request of
/// `request_len` bytes already encoded: the caller sends them next, then the
/// `cell_block_len` bytes of its cell block (for example as separate buffers of one
/// vectored write).
pub fn encode_call_prefix(
    head: &CallHead<'_>,
    request_len: usize,
    cell_block_len: usize,
    out: &mut BytesMut,
) -> Result<(), FrameError> {
    let cell_block_len_u32 = u32::try_from(cell_block_len).map_err(|_| too_large(cell_block_len as u64))?;
    let header = head.request_header(cell_block_len_u32);
    let request_prefix = prost::length_delimiter_len(request_len);
    let total = delimited_len(&header) as u64 + (request_prefix + request_len) as u64 + cell_block_len as u64;
    let total_i32 = java_len(total)?;
    out.reserve(4 + delimited_len(&header) + request_prefix);
    out.put_i32(total_i32);
    put_delimited(&header, "request header", out)?;
    prost::encoding::encode_varint(request_len as u64, out);
    Ok(())
}

fn java_len(length: u64) -> Result<i32, FrameError> {
    i32::try_from(length).map_err(|_| too_large(length))
}

fn too_large(length: u64) -> FrameError {
    FrameError::FrameTooLarge { length, max: MAX_JAVA_FRAME_LEN as u64 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::varint::{decode_message, take_delimited};
    use bytes::Buf;
    use proptest::prelude::*;

    #[test]
    fn preamble_is_hbas_version_auth() {
        assert_eq!(preamble(AuthMethod::Simple), *b"HBas\x00\x50");
        assert_eq!(preamble(AuthMethod::Kerberos)[5], 81);
        assert_eq!(preamble(AuthMethod::Digest)[5], 82);
    }

    #[test]
    fn connection_header_is_length_prefixed_not_delimited() {
        let header = connection_header(Service::Client, "alice", Some(CellCodec::KeyValue));
        let mut out = BytesMut::new();
        encode_connection_start(&header, &mut out).unwrap();
        assert_eq!(&out[..6], b"HBas\x00\x50");
        let length = u32::from_be_bytes([out[6], out[7], out[8], out[9]]) as usize;
        assert_eq!(length, out.len() - 10);
        let back = pb::ConnectionHeader::decode(&out[10..]).unwrap();
        assert_eq!(back.service_name.as_deref(), Some("ClientService"));
        assert_eq!(back.cell_block_codec_class.as_deref(), Some("org.apache.hadoop.hbase.codec.KeyValueCodec"));
        assert_eq!(back.user_info.unwrap().effective_user, "alice");
        assert_eq!(back.version_info.unwrap().version_major, Some(2));
    }

    #[test]
    fn call_frame_has_length_header_request_and_cells() {
        let head = CallHead { call_id: 7, method_name: "Get", priority: Some(200), timeout_ms: Some(5000) };
        let request = pb::CellBlockMeta { length: Some(99) };
        let mut out = BytesMut::new();
        encode_call(&head, &request, b"cells", &mut out).unwrap();
        let total = out.get_u32() as usize;
        assert_eq!(total, out.len());
        let mut rest = out.freeze();
        let header: pb::RequestHeader = decode_message(take_delimited(&mut rest, "h").unwrap(), "h").unwrap();
        assert_eq!(header.call_id, Some(7));
        assert_eq!(header.method_name.as_deref(), Some("Get"));
        assert_eq!(header.request_param, Some(true));
        assert_eq!(header.cell_block_meta.unwrap().length, Some(5));
        assert_eq!(header.priority, Some(200));
        assert_eq!(header.timeout, Some(5000));
        let back: pb::CellBlockMeta = decode_message(take_delimited(&mut rest, "r").unwrap(), "r").unwrap();
        assert_eq!(back, request);
        assert_eq!(&rest[..], b"cells");
    }

    #[test]
    fn call_without_cells_announces_no_cell_block() {
        let head = CallHead { call_id: 1, method_name: "Scan", priority: None, timeout_ms: None };
        assert_eq!(head.request_header(0).cell_block_meta, None);
    }

    #[test]
    fn oversized_cell_block_is_refused() {
        let head = CallHead { call_id: 1, method_name: "Multi", priority: None, timeout_ms: None };
        let mut out = BytesMut::new();
        let result = encode_call_head(&head, &pb::CellBlockMeta::default(), MAX_JAVA_FRAME_LEN, &mut out);
        assert!(matches!(result, Err(FrameError::FrameTooLarge { .. })));
        assert!(out.is_empty());
    }

    proptest! {
        #[test]
        fn a_prefix_and_the_encoded_request_are_the_call_head(
            call_id in any::<u32>(),
            value in proptest::collection::vec(any::<u8>(), 0..400),
            cell_block_len in 0usize..100_000,
        ) {
            let head = CallHead { call_id, method_name: "Multi", priority: None, timeout_ms: Some(1) };
            let request = pb::NameBytesPair { name: "n".into(), value: Some(value.into()) };
            let mut whole = BytesMut::new();
            encode_call_head(&head, &request, cell_block_len, &mut whole).unwrap();
            let mut prefix = BytesMut::new();
            encode_call_prefix(&head, request.encoded_len(), cell_block_len, &mut prefix).unwrap();
            prefix.extend_from_slice(&request.encode_to_vec());
            prop_assert_eq!(prefix, whole);
        }

        #[test]
        fn call_frames_round_trip(
            call_id in any::<u32>(),
            method in "[A-Za-z]{1,20}",
            priority in proptest::option::of(any::<u32>()),
            cells in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            let head = CallHead { call_id, method_name: &method, priority, timeout_ms: None };
            let request = pb::NameBytesPair { name: "n".into(), value: Some(cells.clone().into()) };
            let mut out = BytesMut::new();
            encode_call(&head, &request, &cells, &mut out).unwrap();
            let total = out.get_u32() as usize;
            prop_assert_eq!(total, out.len());
            let mut rest = out.freeze();
            let header: pb::RequestHeader = decode_message(take_delimited(&mut rest, "h").unwrap(), "h").unwrap();
            prop_assert_eq!(header.call_id, Some(call_id));
            prop_assert_eq!(header.priority, priority);
            let cell_len = header.cell_block_meta.and_then(|meta| meta.length).unwrap_or(0) as usize;
            prop_assert_eq!(cell_len, cells.len());
            let back: pb::NameBytesPair = decode_message(take_delimited(&mut rest, "r").unwrap(), "r").unwrap();
            prop_assert_eq!(back, request);
            prop_assert_eq!(&rest[..], &cells[..]);
        }
    }
}
