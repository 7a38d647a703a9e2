//! The bytes of HBase's SASL exchange and of the wrapped stream after it, without I/O
//! (HBase 2.6: `HBaseSaslRpcClient`, `SaslChallengeDecoder`, `ServerRpcConnection` and
//! `NettyHBaseSaslRpcServerHandler`).
//!
//! - The client opens with the preamble `HBas`, version 0 and auth code 81 (KERBEROS),
//!   then sends each SASL token as a 4-byte big-endian length and the token.
//! - Each server reply is a 4-byte status: 0 (SUCCESS) is followed by a 4-byte length
//!   and a token, or by the length -88 alone, which asks the client to fall back to
//!   simple authentication; 1 (ERROR) by two strings (exception class, message), each a
//!   4-byte length (-1: none) and UTF-8 bytes.
//! - When the quality of protection is auth-int or auth-conf, every byte after the
//!   exchange (connection header, calls, replies) travels in frames: a 4-byte length and
//!   a GSSAPI-wrapped message whose unwrapped bytes continue the plain RPC stream
//!   (`basalt-security`'s `SaslStream` reads and writes them).
//!
//! Every length is checked against what remains and against a limit before anything is
//! allocated.

use bytes::{Buf, BytesMut};

/// Takes one whole wrapped frame (without its length) from the front of a buffer:
/// `Ok(None)` when more bytes are needed; a frame longer than the limit fails before
/// its bytes are awaited. The wrapped stream's framing is shared with the Thrift
/// transport, so it lives in `basalt-security`.
pub use basalt_security::take_frame as take_wrapped_frame;

/// The server's `SaslStatus.SUCCESS`.
const SUCCESS: i32 = 0;
/// The server's `SaslStatus.ERROR`.
const ERROR: i32 = 1;
/// The length HBase's `SaslUtil.SWITCH_TO_SIMPLE_AUTH` puts in place of a token.
pub const SWITCH_TO_SIMPLE_AUTH: i32 = -88;
/// The largest token or exception string accepted in a server reply (HBase's own
/// client allows 1 MiB; Kerberos tokens are a few KiB).
pub const MAX_SASL_MESSAGE: usize = 1 << 20;

/// One reply of the server during the SASL exchange.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaslReply {
    /// A challenge token (may be empty).
    Token(Vec<u8>),
    /// The server does not use SASL and asks the client to continue with simple
    /// authentication.
    SwitchToSimple,
    /// The server refused, with a Java exception.
    Error {
        /// The exception's class (empty when the server sent none).
        class: String,
        /// Its message (empty when the server sent none).
        message: String,
    },
}

/// Why bytes are not a valid SASL reply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SaslFrameError {
    /// The status is neither SUCCESS nor ERROR: the server speaks something else.
    #[error("a reply with status {0} is not a SASL reply (is the server secured with Kerberos?)")]
    UnknownStatus(i32),
    /// A negative length other than the fall-back marker.
    #[error("negative length {0} in {1}")]
    NegativeLength(i32, &'static str),
    /// A length above the limit.
    #[error("{what} of {len} bytes exceeds the limit of {max} bytes")]
    TooLong {
        /// What was announced.
        what: &'static str,
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
}

/// A 4-byte big-endian signed length at `at`, if the bytes are there.
fn int_at(buf: &[u8], at: usize) -> Option<i32> {
    let bytes = buf.get(at..at.checked_add(4)?)?;
    Some(i32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

/// A length-prefixed string at `at` (-1: none): its text and where it ends, `None` if
/// more bytes are needed.
fn string_at(buf: &[u8], at: usize, what: &'static str) -> Result<Option<(String, usize)>, SaslFrameError> {
    let Some(len) = int_at(buf, at) else { return Ok(None) };
    let start = at + 4;
    if len == -1 {
        return Ok(Some((String::new(), start)));
    }
    let len = usize::try_from(len).map_err(|_| SaslFrameError::NegativeLength(len, what))?;
    if len > MAX_SASL_MESSAGE {
        return Err(SaslFrameError::TooLong { what, len, max: MAX_SASL_MESSAGE });
    }
    let Some(bytes) = buf.get(start..start + len) else { return Ok(None) };
    Ok(Some((String::from_utf8_lossy(bytes).into_owned(), start + len)))
}

/// Decodes one server reply from the front of `buf`: `Ok(None)` when more bytes are
/// needed (nothing is consumed), else the reply, removed from `buf`.
pub fn decode_reply(buf: &mut BytesMut) -> Result<Option<SaslReply>, SaslFrameError> {
    let Some(status) = int_at(buf, 0) else { return Ok(None) };
    let (reply, end) = match status {
        SUCCESS => {
            let Some(len) = int_at(buf, 4) else { return Ok(None) };
            if len == SWITCH_TO_SIMPLE_AUTH {
                (SaslReply::SwitchToSimple, 8)
            } else {
                let len = usize::try_from(len).map_err(|_| SaslFrameError::NegativeLength(len, "a SASL token"))?;
                if len > MAX_SASL_MESSAGE {
                    return Err(SaslFrameError::TooLong { what: "a SASL token", len, max: MAX_SASL_MESSAGE });
                }
                let Some(token) = buf.get(8..8 + len) else { return Ok(None) };
                (SaslReply::Token(token.to_vec()), 8 + len)
            }
        }
        ERROR => {
            let Some((class, after_class)) = string_at(buf, 4, "an exception class")? else { return Ok(None) };
            let Some((message, end)) = string_at(buf, after_class, "an exception message")? else {
                return Ok(None);
            };
            (SaslReply::Error { class, message }, end)
        }
        other => return Err(SaslFrameError::UnknownStatus(other)),
    };
    buf.advance(end);
    Ok(Some(reply))
}

/// Appends one client token: a 4-byte big-endian length and the token.
pub fn encode_token(token: &[u8], out: &mut Vec<u8>) -> Result<(), SaslFrameError> {
    let len = i32::try_from(token.len()).map_err(|_| SaslFrameError::TooLong {
        what: "a SASL token",
        len: token.len(),
        max: i32::MAX as usize,
    })?;
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(token);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply_bytes(parts: &[&[u8]]) -> BytesMut {
        let mut buf = BytesMut::new();
        for part in parts {
            buf.extend_from_slice(part);
        }
        buf
    }

    #[test]
    fn a_token_reply_is_read_whole_and_only_when_complete() {
        let full = reply_bytes(&[&0i32.to_be_bytes(), &3i32.to_be_bytes(), b"abc", b"next"]);
        for cut in 0..11 {
            let mut partial = BytesMut::from(&full[..cut]);
            assert_eq!(decode_reply(&mut partial), Ok(None), "cut at {cut}");
            assert_eq!(partial.len(), cut, "nothing consumed at {cut}");
        }
        let mut buf = full.clone();
        assert_eq!(decode_reply(&mut buf), Ok(Some(SaslReply::Token(b"abc".to_vec()))));
        assert_eq!(&buf[..], b"next");
    }

    #[test]
    fn fall_back_and_errors_are_recognised() {
        let mut buf = reply_bytes(&[&0i32.to_be_bytes(), &SWITCH_TO_SIMPLE_AUTH.to_be_bytes()]);
        assert_eq!(decode_reply(&mut buf), Ok(Some(SaslReply::SwitchToSimple)));
        let class = b"javax.security.sasl.SaslException";
        let message = b"GSS initiate failed";
        let mut buf = reply_bytes(&[
            &1i32.to_be_bytes(),
            &(class.len() as i32).to_be_bytes(),
            class,
            &(message.len() as i32).to_be_bytes(),
            message,
        ]);
        let Ok(Some(SaslReply::Error { class: c, message: m })) = decode_reply(&mut buf) else {
            panic!("not an error")
        };
        assert_eq!((c.as_str(), m.as_str()), ("javax.security.sasl.SaslException", "GSS initiate failed"));
        // A null message (-1), as Java writes for an exception without one.
        let mut buf = reply_bytes(&[&1i32.to_be_bytes(), &1i32.to_be_bytes(), b"E", &(-1i32).to_be_bytes()]);
        assert_eq!(decode_reply(&mut buf), Ok(Some(SaslReply::Error { class: "E".into(), message: String::new() })));
        assert!(buf.is_empty());
    }

    #[test]
    fn hostile_lengths_fail_before_allocating() {
        // A token announced at 2 GiB - 1 with four bytes behind it.
        let mut buf = reply_bytes(&[&0i32.to_be_bytes(), &i32::MAX.to_be_bytes(), b"abcd"]);
        assert!(matches!(decode_reply(&mut buf), Err(SaslFrameError::TooLong { .. })));
        let mut buf = reply_bytes(&[&0i32.to_be_bytes(), &(-5i32).to_be_bytes()]);
        assert_eq!(decode_reply(&mut buf), Err(SaslFrameError::NegativeLength(-5, "a SASL token")));
        let mut buf = reply_bytes(&[&1i32.to_be_bytes(), &(MAX_SASL_MESSAGE as i32 + 1).to_be_bytes()]);
        assert!(matches!(decode_reply(&mut buf), Err(SaslFrameError::TooLong { what: "an exception class", .. })));
        let mut buf = reply_bytes(&[&1i32.to_be_bytes(), &(-2i32).to_be_bytes()]);
        assert!(matches!(decode_reply(&mut buf), Err(SaslFrameError::NegativeLength(-2, _))));
        // A plain HBase's error frame starts with its total length, not a status.
        let mut buf = reply_bytes(&[&0x0000_0110i32.to_be_bytes(), b"....."]);
        assert_eq!(decode_reply(&mut buf), Err(SaslFrameError::UnknownStatus(0x110)));
    }

    #[test]
    fn tokens_are_length_prefixed() {
        let mut out = Vec::new();
        encode_token(b"tok", &mut out).unwrap();
        encode_token(b"", &mut out).unwrap();
        assert_eq!(out, b"\x00\x00\x00\x03tok\x00\x00\x00\x00");
    }
}
