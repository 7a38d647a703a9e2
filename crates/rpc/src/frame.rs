//! The bytes of HBase's RPC on one connection: the preamble and connection header a
//! client sends first, request frames, and the split of a reply frame into header,
//! message and cell block.
//!
//! A private helper until the protocol crate's framing is merged; it does no I/O.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use prost::Message;

use crate::pb;

/// The first four bytes a client sends.
const MAGIC: &[u8; 4] = b"HBas";
/// The RPC version byte HBase 2.x expects.
const RPC_VERSION: u8 = 0;
/// The auth-method byte for simple authentication (no SASL).
const AUTH_SIMPLE: u8 = 80;

/// The cell-block codec the client asks for: KeyValues without tags.
pub(crate) const KEY_VALUE_CODEC: &str = "org.apache.hadoop.hbase.codec.KeyValueCodec";

/// The preamble and the length-prefixed `ConnectionHeader` for simple auth.
pub(crate) fn connection_preamble(user: &str, service: &str) -> Bytes {
    let header = pb::ConnectionHeader {
        user_info: Some(pb::UserInformation { effective_user: user.to_owned(), real_user: None }),
        service_name: Some(service.to_owned()),
        cell_block_codec_class: Some(KEY_VALUE_CODEC.to_owned()),
        cell_block_compressor_class: None,
        version_info: Some(pb::VersionInfo {
            version: "2.6.1".to_owned(),
            url: String::new(),
            revision: String::new(),
            user: String::new(),
            date: String::new(),
            src_checksum: String::new(),
            version_major: Some(2),
            version_minor: Some(6),
        }),
        rpc_crypto_cipher_transformation: None,
        attribute: Vec::new(),
    };
    let len = header.encoded_len();
    let mut buf = BytesMut::with_capacity(6 + 4 + len);
    buf.put_slice(MAGIC);
    buf.put_u8(RPC_VERSION);
    buf.put_u8(AUTH_SIMPLE);
    buf.put_u32(len as u32);
    header.encode(&mut buf).expect("BytesMut grows");
    buf.freeze()
}

/// One request frame: total length, delimited `RequestHeader`, delimited param, cell
/// block (if any).
pub(crate) fn request_frame(
    call_id: u32,
    method: &str,
    param: &impl Message,
    cell_block: Option<&Bytes>,
    timeout_ms: u32,
) -> Bytes {
    let header = pb::RequestHeader {
        call_id: Some(call_id),
        trace_info: None,
        method_name: Some(method.to_owned()),
        request_param: Some(true),
        cell_block_meta: cell_block.map(|block| pb::CellBlockMeta { length: Some(block.len() as u32) }),
        priority: None,
        timeout: Some(timeout_ms),
        attribute: Vec::new(),
    };
    let header_len = header.encoded_len();
    let param_len = param.encoded_len();
    let block_len = cell_block.map_or(0, Bytes::len);
    let total = prost::length_delimiter_len(header_len)
        + header_len
        + prost::length_delimiter_len(param_len)
        + param_len
        + block_len;
    let mut buf = BytesMut::with_capacity(4 + total);
    buf.put_u32(total as u32);
    header.encode_length_delimited(&mut buf).expect("BytesMut grows");
    param.encode_length_delimited(&mut buf).expect("BytesMut grows");
    if let Some(block) = cell_block {
        buf.put_slice(block);
    }
    buf.freeze()
}

/// A reply frame split into its parts; `param` and `cell_block` are slices of the frame.
#[derive(Debug, Clone)]
pub(crate) struct ReplyFrame {
    /// The reply's header (call id, exception, cell-block meta).
    pub header: pb::ResponseHeader,
    /// The encoded response message (empty when the header carries an exception).
    pub param: Bytes,
    /// The cell block (empty when there is none).
    pub cell_block: Bytes,
}

/// Splits one reply frame (the bytes after its 4-byte length); every length is checked
/// against what remains.
pub(crate) fn split_reply(mut frame: Bytes) -> Result<ReplyFrame, String> {
    let header = pb::ResponseHeader::decode_length_delimited(&mut frame)
        .map_err(|e| format!("undecodable response header: {e}"))?;
    if header.exception.is_some() {
        return Ok(ReplyFrame { header, param: Bytes::new(), cell_block: Bytes::new() });
    }
    let param = if frame.has_remaining() { take_delimited(&mut frame)? } else { Bytes::new() };
    let block_len = header.cell_block_meta.as_ref().and_then(|meta| meta.length).unwrap_or(0) as usize;
    if block_len > frame.len() {
        return Err(format!("the cell block announces {block_len} bytes but {} remain", frame.len()));
    }
    let cell_block = frame.split_to(block_len);
    Ok(ReplyFrame { header, param, cell_block })
}

/// The bytes of one varint-delimited message, bounded by what remains.
fn take_delimited(buf: &mut Bytes) -> Result<Bytes, String> {
    let len = prost::decode_length_delimiter(&mut *buf).map_err(|e| format!("bad message length: {e}"))?;
    if len > buf.len() {
        return Err(format!("a message announces {len} bytes but {} remain", buf.len()));
    }
    Ok(buf.split_to(len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_frame_lengths_add_up() {
        let param = pb::GetClusterIdRequest {};
        let block = Bytes::from_static(b"cells");
        let frame = request_frame(7, "GetClusterId", &param, Some(&block), 1000);
        let mut body = frame.clone();
        let total = body.get_u32() as usize;
        assert_eq!(total, body.len());
        let header = pb::RequestHeader::decode_length_delimited(&mut body).unwrap();
        assert_eq!(header.call_id, Some(7));
        assert_eq!(header.method_name.as_deref(), Some("GetClusterId"));
        assert_eq!(header.cell_block_meta.and_then(|m| m.length), Some(5));
        let param_bytes = take_delimited(&mut body).unwrap();
        assert!(param_bytes.is_empty());
        assert_eq!(&body[..], b"cells");
    }

    #[test]
    fn reply_split_and_bounds() {
        let header = pb::ResponseHeader {
            call_id: Some(3),
            exception: None,
            cell_block_meta: Some(pb::CellBlockMeta { length: Some(4) }),
        };
        let response = pb::GetClusterIdResponse { cluster_id: Some("abc".into()) };
        let mut buf = BytesMut::new();
        header.encode_length_delimited(&mut buf).unwrap();
        response.encode_length_delimited(&mut buf).unwrap();
        buf.put_slice(b"blok");
        let reply = split_reply(buf.clone().freeze()).unwrap();
        assert_eq!(reply.header.call_id, Some(3));
        assert_eq!(pb::GetClusterIdResponse::decode(reply.param).unwrap().cluster_id.as_deref(), Some("abc"));
        assert_eq!(&reply.cell_block[..], b"blok");
        // A cell block longer than the frame is refused, not read past the end.
        let short = buf.split_to(buf.len() - 2).freeze();
        assert!(split_reply(short).is_err());
        // Garbage is an error, not a panic.
        assert!(split_reply(Bytes::from_static(&[0xff, 0xff, 0xff, 0xff, 0x0f])).is_err());
    }

    #[test]
    fn preamble_starts_with_magic_and_simple_auth() {
        let bytes = connection_preamble("alice", "ClientService");
        assert_eq!(&bytes[..6], b"HBas\x00\x50");
        let mut rest = bytes.slice(6..);
        let len = rest.get_u32() as usize;
        assert_eq!(len, rest.len());
        let header = pb::ConnectionHeader::decode(rest).unwrap();
        assert_eq!(header.user_info.unwrap().effective_user, "alice");
        assert_eq!(header.service_name.as_deref(), Some("ClientService"));
    }
}
