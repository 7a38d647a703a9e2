//! How a Thrift2 gateway's messages are encoded ([`Protocol`]) and delimited
//! ([`Framing`]), and a request's bytes: message header, argument struct, and for
//! framed transport the 4-byte length in front.

use thrift::protocol::{TBinaryOutputProtocol, TCompactOutputProtocol, TMessageIdentifier, TMessageType};

use crate::error::ReplyError;
use crate::Call;

/// How messages are delimited on the socket (the server's `-f` flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Framing {
    /// Plain stream, no length prefix: HBase's default (`TBufferedTransport`).
    #[default]
    Buffered,
    /// Each message prefixed by its 4-byte length (`-f`, and the nonblocking servers).
    Framed,
}

/// How values are encoded (the server's `-c` flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Protocol {
    /// `TBinaryProtocol`, strict: HBase's default.
    #[default]
    Binary,
    /// `TCompactProtocol` (`-c`).
    Compact,
}

/// Bytes of a frame's length prefix.
pub const FRAME_HEADER_LEN: usize = 4;

/// Encodes call `request` number `seq` into `out` (cleared first): the message, and
/// for [`Framing::Framed`] its length in front.
pub fn encode_call<C: Call + ?Sized>(
    protocol: Protocol,
    framing: Framing,
    request: &C,
    seq: i32,
    out: &mut Vec<u8>,
) -> Result<(), ReplyError> {
    out.clear();
    let framed = framing == Framing::Framed;
    if framed {
        out.extend_from_slice(&[0; FRAME_HEADER_LEN]);
    }
    let ident = TMessageIdentifier::new(C::METHOD, TMessageType::Call, seq);
    let written = match protocol {
        Protocol::Binary => write_message(&mut TBinaryOutputProtocol::new(&mut *out, true), &ident, request),
        Protocol::Compact => write_message(&mut TCompactOutputProtocol::new(&mut *out), &ident, request),
    };
    written.map_err(|e| ReplyError::Encode(e.to_string()))?;
    if framed {
        let len = u32::try_from(out.len() - FRAME_HEADER_LEN)
            .map_err(|_| ReplyError::Encode("request larger than 4 GiB".into()))?;
        out[..FRAME_HEADER_LEN].copy_from_slice(&len.to_be_bytes());
    }
    Ok(())
}

fn write_message<C: Call + ?Sized>(
    out: &mut dyn thrift::protocol::TOutputProtocol,
    ident: &TMessageIdentifier,
    request: &C,
) -> thrift::Result<()> {
    out.write_message_begin(ident)?;
    request.write_args(out)?;
    out.write_message_end()?;
    out.flush()
}

/// The length a frame's prefix declares, refused when over `limit`
/// ([`ReplyError::TooLarge`] with the declared length) before anything is buffered.
pub fn frame_len(prefix: [u8; FRAME_HEADER_LEN], limit: usize) -> Result<usize, ReplyError> {
    let len = u32::from_be_bytes(prefix) as usize;
    if len > limit {
        return Err(ReplyError::TooLarge { limit, declared: Some(len) });
    }
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hbase::calls::GetScannerRows;

    #[test]
    fn framed_requests_carry_their_length() {
        let mut buffered = Vec::new();
        let mut framed = Vec::new();
        for protocol in [Protocol::Binary, Protocol::Compact] {
            let call = GetScannerRows::new(7, 100);
            encode_call(protocol, Framing::Buffered, &call, 3, &mut buffered).unwrap();
            encode_call(protocol, Framing::Framed, &call, 3, &mut framed).unwrap();
            assert_eq!(&framed[FRAME_HEADER_LEN..], &buffered[..], "{protocol:?}");
            let prefix = [framed[0], framed[1], framed[2], framed[3]];
            assert_eq!(frame_len(prefix, 1 << 20).unwrap(), buffered.len());
        }
    }

    #[test]
    fn frames_over_the_limit_are_refused_with_their_declared_length() {
        let err = frame_len(u32::MAX.to_be_bytes(), 1 << 20).unwrap_err();
        assert_eq!(err, ReplyError::TooLarge { limit: 1 << 20, declared: Some(u32::MAX as usize) });
    }
}
