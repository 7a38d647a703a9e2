//! The stream after a SASL GSSAPI exchange: every message in a frame of its own (a
//! 4-byte big-endian length and the bytes), wrapped by GSSAPI for auth-int (signed)
//! and auth-conf (also encrypted).
//!
//! What is written goes out as one frame per flush; what is read is unframed and
//! unwrapped frame by frame, each frame bounded before its bytes are awaited. HBase's
//! Thrift gateway frames every layer, auth included; HBase's native RPC frames only
//! the wrapping layers (it keeps the plain stream for auth, so it makes no
//! `SaslStream` then).

use std::io;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{ready, Context, Poll};

use bytes::{Buf, BytesMut};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::error::SecurityError;
use crate::gss::GssContext;
use crate::kerberos::Qop;
use crate::sasl::Negotiated;

/// Why bytes are not a valid frame of a [`SaslStream`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// A frame announced longer than the limit.
    #[error("a SASL frame of {len} bytes exceeds the limit of {max} bytes")]
    TooLong {
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
}

/// Takes one whole frame (without its length) from the front of `buf`: `Ok(None)` when
/// more bytes are needed (nothing is consumed). A frame longer than `max` fails before
/// its bytes are awaited.
///
/// ```
/// use bytes::BytesMut;
/// let mut buf = BytesMut::from(&b"\x00\x00\x00\x02hi\x00\x00"[..]);
/// assert_eq!(basalt_security::take_frame(&mut buf, 16).unwrap().as_deref(), Some(&b"hi"[..]));
/// assert_eq!(basalt_security::take_frame(&mut buf, 16), Ok(None));
/// ```
pub fn take_frame(buf: &mut BytesMut, max: usize) -> Result<Option<BytesMut>, FrameError> {
    let Some(header) = buf.get(..4) else { return Ok(None) };
    let len = u32::from_be_bytes([header[0], header[1], header[2], header[3]]) as usize;
    if len > max {
        return Err(FrameError::TooLong { len, max });
    }
    if buf.len() - 4 < len {
        return Ok(None);
    }
    buf.advance(4);
    Ok(Some(buf.split_to(len)))
}

/// A stream after a SASL GSSAPI exchange: frames (and for auth-int and auth-conf,
/// wraps) what is written, one frame per flush; unframes and unwraps what is read.
/// Failures are I/O errors carrying a [`SecurityError::Sasl`].
pub struct SaslStream<S> {
    inner: S,
    /// In a mutex only so that the stream is `Sync` (GSSAPI contexts are not); never
    /// contended: every use holds `&mut self`.
    ctx: Mutex<GssContext>,
    qop: Qop,
    max_frame: usize,
    /// Plain bytes written since the last flush.
    out: Vec<u8>,
    /// The framed bytes of the current flush not yet written.
    pending: BytesMut,
    /// Raw bytes read, not yet a whole frame.
    raw: BytesMut,
    /// Unframed (and unwrapped) bytes not yet handed out.
    plain: BytesMut,
}

impl<S> SaslStream<S> {
    /// Frames `inner` for the negotiated layer; a frame read longer than `max_frame`
    /// fails the read.
    pub fn new(inner: S, negotiated: Negotiated, max_frame: usize) -> SaslStream<S> {
        SaslStream {
            inner,
            ctx: Mutex::new(negotiated.ctx),
            qop: negotiated.qop,
            max_frame,
            out: Vec::new(),
            pending: BytesMut::new(),
            raw: BytesMut::new(),
            plain: BytesMut::new(),
        }
    }

    /// The quality of protection negotiated.
    pub fn qop(&self) -> Qop {
        self.qop
    }

    /// The stream underneath.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// Whether bytes were received and not yet read (a whole or partial frame, or
    /// unwrapped bytes): on an idle connection, bytes nobody asked for.
    pub fn has_unread(&self) -> bool {
        !self.plain.is_empty() || !self.raw.is_empty()
    }

    fn context(&mut self) -> io::Result<&mut GssContext> {
        self.ctx.get_mut().map_err(|_| sasl_io("the GSSAPI context is poisoned"))
    }
}

impl<S> std::fmt::Debug for SaslStream<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SaslStream").field("qop", &self.qop).finish_non_exhaustive()
    }
}

fn sasl_io(detail: impl std::fmt::Display) -> io::Error {
    io::Error::other(SecurityError::Sasl { detail: detail.to_string() })
}

impl<S: AsyncWrite + Unpin> AsyncWrite for SaslStream<S> {
    fn poll_write(self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.get_mut().out.extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.pending.is_empty() && !this.out.is_empty() {
            let body = match this.qop {
                Qop::Auth => std::mem::take(&mut this.out),
                Qop::AuthInt | Qop::AuthConf => {
                    let encrypt = this.qop == Qop::AuthConf;
                    let out = std::mem::take(&mut this.out);
                    this.context()?.wrap(encrypt, &out).map_err(sasl_io)?
                }
            };
            let len = i32::try_from(body.len()).map_err(|_| sasl_io("a message too large for one SASL frame"))?;
            this.pending.extend_from_slice(&len.to_be_bytes());
            this.pending.extend_from_slice(&body);
        }
        while !this.pending.is_empty() {
            let n = ready!(Pin::new(&mut this.inner).poll_write(cx, &this.pending))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            this.pending.advance(n);
        }
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for SaslStream<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        while this.plain.is_empty() {
            if let Some(frame) = take_frame(&mut this.raw, this.max_frame).map_err(sasl_io)? {
                match this.qop {
                    Qop::Auth => this.plain = frame,
                    Qop::AuthInt | Qop::AuthConf => {
                        let encrypted = this.qop == Qop::AuthConf;
                        let unwrapped = this
                            .context()?
                            .unwrap(&frame)
                            .map_err(|e| sasl_io(format!("cannot unwrap a reply: {e}")))?;
                        if encrypted && !unwrapped.encrypted {
                            return Poll::Ready(Err(sasl_io(
                                "a reply was not encrypted although auth-conf was negotiated",
                            )));
                        }
                        this.plain.extend_from_slice(&unwrapped.message);
                    }
                }
                continue;
            }
            if this.raw.capacity() - this.raw.len() < 8192 {
                this.raw.reserve(64 << 10);
            }
            let mut chunk = [0u8; 16 << 10];
            let mut read = ReadBuf::new(&mut chunk);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut read))?;
            if read.filled().is_empty() {
                // End of stream (a partial frame means the peer cut it).
                return Poll::Ready(Ok(()));
            }
            this.raw.extend_from_slice(read.filled());
        }
        let n = this.plain.len().min(buf.remaining());
        buf.put_slice(&this.plain[..n]);
        this.plain.advance(n);
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_bounded_by_the_limit_and_the_bytes_present() {
        let mut buf = BytesMut::from(&b"\x00\x00\x00\x05hello\x00\x00\x00\x02h"[..]);
        assert_eq!(take_frame(&mut buf, 16).unwrap().as_deref(), Some(&b"hello"[..]));
        assert_eq!(take_frame(&mut buf, 16), Ok(None), "half a frame waits");
        assert_eq!(buf.len(), 5, "nothing consumed while waiting");
        buf.extend_from_slice(b"i");
        assert_eq!(take_frame(&mut buf, 16).unwrap().as_deref(), Some(&b"hi"[..]));
        assert!(buf.is_empty());
        assert_eq!(take_frame(&mut BytesMut::from(&[0u8, 0][..]), 16), Ok(None));
        // Announced at 2 GiB - 1 (or, read as a signed length, negative) with one byte behind.
        for len in [i32::MAX as u32, u32::MAX] {
            let mut huge = BytesMut::from(&len.to_be_bytes()[..]);
            huge.extend_from_slice(b"x");
            assert_eq!(take_frame(&mut huge, 1 << 20), Err(FrameError::TooLong { len: len as usize, max: 1 << 20 }));
        }
        let mut empty = BytesMut::from(&[0u8; 4][..]);
        assert_eq!(take_frame(&mut empty, 16).unwrap().as_deref(), Some(&b""[..]));
    }
}
