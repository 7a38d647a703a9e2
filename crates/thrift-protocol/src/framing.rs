//! How a Thrift2 gateway's messages are encoded ([`Protocol`]) and delimited
//! ([`Framing`]), and a request's bytes: message header, argument struct, and for
//! framed transport the 4-byte length in front.

use crate::error::ReplyError;

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
    use crate::encode_call;
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
