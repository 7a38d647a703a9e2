//! SASL GSSAPI (Kerberos) for the socket transport, as HBase's Thrift server speaks it
//! (Apache Thrift's `TSaslServerTransport`, with `hbase.thrift.security.qop`).
//!
//! Negotiation messages are a status byte (START 1, OK 2, BAD 3, ERROR 4, COMPLETE 5),
//! a 4-byte big-endian length and a payload. The client sends START with the mechanism
//! name and OK with its first Kerberos token, then the GSSAPI context is finished and
//! the RFC 4752 security layer chosen: the server offers a wrapped 4-byte message
//! (bit mask of layers: 1 none, 2 integrity, 4 confidentiality; 3-byte maximum buffer),
//! the client answers with its choice, wrapped, and COMPLETE.
//!
//! After that, every message is a frame: a 4-byte big-endian length and the bytes,
//! wrapped by GSSAPI (signed for auth-int, also encrypted for auth-conf) unless the
//! layer is "none" (auth). [`SaslStream`] does this framing below the Thrift protocol:
//! one frame per flush (one per call), and reads unwrap frames as they arrive.
//!
//! The Kerberos side uses the system's GSSAPI library (MIT krb5 or Heimdal), loaded at
//! run time by `basalt-gssapi`: credentials come from the ticket cache (`KRB5CCNAME`)
//! or, with MIT, a client keytab (`KRB5_CLIENT_KTNAME`); the configuration from
//! `KRB5_CONFIG`. A machine without the library fails here at once with
//! [`SecureError::GssapiLibraryMissing`], which names the package. This module is built
//! with the cargo feature `kerberos` only (`sasl_unbuilt.rs` stands in for it
//! otherwise). SPNEGO's tokens for HTTP are made here too.

use std::io;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{ready, Context, Poll};

use basalt_gssapi::{ClientContext, Credential, Flags, Name, NameType};
use bytes::{Buf, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};

use crate::kerberos::{KerberosOptions, Qop};
use crate::secure::SecureError;
use crate::stream::ConnectionStream;

/// The RFC 4752 security-layer bit of `qop`.
fn layer_bit(qop: Qop) -> u8 {
    match qop {
        Qop::Auth => 1,
        Qop::AuthInt => 2,
        Qop::AuthConf => 4,
    }
}

/// A GSSAPI failure in the words of a [`SecureError`]: a missing library names its
/// package, an expired ticket says to run kinit, the rest say what was being done.
fn gss(what: &str, e: basalt_gssapi::Error) -> SecureError {
    if e.is_library_missing() {
        SecureError::GssapiLibraryMissing { detail: e.to_string() }
    } else if e.is_credentials_expired() {
        SecureError::TicketExpired { principal: "the client".into(), detail: e.to_string() }
    } else {
        SecureError::Gssapi(format!("{what}: {e}"))
    }
}

/// A GSSAPI client context for `target`, with credentials checked first so that a
/// missing or expired ticket gets its own error. Blocking: may read files and ask the KDC.
pub(crate) fn client_context(
    options: &KerberosOptions,
    target: &str,
    flags: Flags,
) -> Result<ClientContext, SecureError> {
    let who = match &options.principal {
        Some(p) => Some(Name::new(p, NameType::KerberosPrincipal).map_err(|e| gss("client principal", e))?),
        None => None,
    };
    let shown = options.principal.clone().unwrap_or_else(|| "the default principal".to_owned());
    let cred = Credential::acquire(who.as_ref()).map_err(|e| {
        if e.is_library_missing() {
            gss("credentials", e)
        } else if e.is_credentials_expired() {
            SecureError::TicketExpired { principal: shown.clone(), detail: e.to_string() }
        } else {
            SecureError::NoTicket { principal: shown.clone(), detail: e.to_string() }
        }
    })?;
    match cred.lifetime() {
        Ok(left) if left.is_zero() => {
            return Err(SecureError::TicketExpired {
                principal: shown,
                detail: "the ticket has no lifetime left".into(),
            })
        }
        Err(e) if e.is_credentials_expired() => {
            return Err(SecureError::TicketExpired { principal: shown, detail: e.to_string() })
        }
        _ => {}
    }
    let name = Name::new(target, NameType::HostBasedService).map_err(|e| gss("server name", e))?;
    Ok(ClientContext::new(cred, name, flags))
}

/// One GSSAPI step; a failure names the server principal (the usual mistake).
pub(crate) fn step(
    ctx: &mut ClientContext,
    token: Option<&[u8]>,
    target: &str,
) -> Result<Option<Vec<u8>>, SecureError> {
    ctx.step(token).map_err(|e| gss(&format!("establishing a Kerberos context with {target}"), e))
}

/// A fresh SPNEGO token (`Negotiate ...`, the value of an `Authorization` header) for
/// one HTTP request to `target`. Blocking, like [`client_context`].
pub(crate) fn spnego_token(options: &KerberosOptions, target: &str) -> Result<String, SecureError> {
    use base64::Engine;
    let mut ctx = client_context(options, target, Flags::MUTUAL)?;
    let token = step(&mut ctx, None, target)?.unwrap_or_default();
    Ok(format!("Negotiate {}", base64::engine::general_purpose::STANDARD.encode(token)))
}

const START: u8 = 1;
const OK: u8 = 2;
const BAD: u8 = 3;
const ERROR: u8 = 4;
const COMPLETE: u8 = 5;

/// Largest negotiation message accepted (Kerberos tokens are a few KiB).
const MAX_NEGOTIATION: usize = 1 << 20;
/// Largest buffer this client says it can receive in one frame (3 bytes).
const CLIENT_MAX_BUFFER: u32 = 0x00FF_FFFF;

/// Runs the SASL GSSAPI negotiation over `stream` and returns it wrapped for the
/// negotiated layer. `max_frame` bounds each frame read afterwards.
pub(crate) async fn negotiate<S>(
    mut stream: S,
    host: &str,
    options: &KerberosOptions,
    max_frame: usize,
) -> Result<SaslStream<S>, SecureError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send,
{
    let target = options.target(host);
    let flags = Flags::MUTUAL | Flags::SEQUENCE | Flags::INTEG | Flags::CONF;
    let (mut ctx, first) = {
        let options = options.clone();
        let target = target.clone();
        tokio::task::spawn_blocking(move || {
            let mut ctx = client_context(&options, &target, flags)?;
            let first = step(&mut ctx, None, &target)?;
            Ok::<_, SecureError>((ctx, first))
        })
        .await
        .map_err(|e| SecureError::Gssapi(format!("GSSAPI task failed: {e}")))??
    };
    let io = |e: io::Error| SecureError::Sasl { detail: format!("I/O during negotiation: {e}") };
    send(&mut stream, START, b"GSSAPI").await.map_err(io)?;
    send(&mut stream, OK, &first.unwrap_or_default()).await.map_err(io)?;

    // Context establishment: the server's tokens until the context is complete.
    while !ctx.is_complete() {
        let (status, payload) = receive(&mut stream).await?;
        if status != OK && status != COMPLETE {
            return Err(SecureError::Sasl { detail: format!("expected OK from the server, got status {status}") });
        }
        let reply = step(&mut ctx, Some(&payload), &target)?;
        if status == COMPLETE {
            return Err(SecureError::Sasl {
                detail: "the server completed before the security layer was chosen".into(),
            });
        }
        send(&mut stream, OK, &reply.unwrap_or_default()).await.map_err(io)?;
    }

    // Security layer: the server's offer, the client's choice.
    let (status, offer) = receive(&mut stream).await?;
    if status != OK {
        return Err(SecureError::Sasl { detail: format!("expected the security-layer offer, got status {status}") });
    }
    let offer = ctx
        .unwrap(&offer)
        .map_err(|e| SecureError::Sasl { detail: format!("cannot unwrap the security-layer offer: {e}") })?
        .message;
    if offer.len() != 4 {
        return Err(SecureError::Sasl { detail: format!("security-layer offer of {} bytes, expected 4", offer.len()) });
    }
    let offered = offer[0];
    let chosen = [Qop::AuthConf, Qop::AuthInt, Qop::Auth]
        .into_iter()
        .find(|q| *q >= options.qop && offered & layer_bit(*q) != 0)
        .ok_or_else(|| SecureError::QopMismatch { offered: describe_layers(offered), wanted: options.qop.as_str() })?;
    let max = CLIENT_MAX_BUFFER.to_be_bytes();
    let answer = [layer_bit(chosen), max[1], max[2], max[3]];
    let answer =
        ctx.wrap(false, &answer).map_err(|e| SecureError::Sasl { detail: format!("cannot wrap the answer: {e}") })?;
    send(&mut stream, COMPLETE, &answer).await.map_err(io)?;
    let (status, _) = receive(&mut stream).await?;
    if status != COMPLETE {
        return Err(SecureError::Sasl { detail: format!("expected COMPLETE from the server, got status {status}") });
    }
    Ok(SaslStream {
        inner: stream,
        ctx: Mutex::new(ctx),
        qop: chosen,
        max_frame,
        out: Vec::new(),
        pending: BytesMut::new(),
        raw: BytesMut::new(),
        plain: BytesMut::new(),
    })
}

fn describe_layers(mask: u8) -> String {
    let names: Vec<&str> = [Qop::Auth, Qop::AuthInt, Qop::AuthConf]
        .into_iter()
        .filter(|q| mask & layer_bit(*q) != 0)
        .map(Qop::as_str)
        .collect();
    if names.is_empty() {
        "nothing".into()
    } else {
        names.join(", ")
    }
}

async fn send<S: AsyncWrite + Unpin>(stream: &mut S, status: u8, payload: &[u8]) -> io::Result<()> {
    let mut message = Vec::with_capacity(5 + payload.len());
    message.push(status);
    message.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    message.extend_from_slice(payload);
    stream.write_all(&message).await?;
    stream.flush().await
}

async fn receive<S: AsyncRead + Unpin>(stream: &mut S) -> Result<(u8, Vec<u8>), SecureError> {
    let io = |e: io::Error| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            SecureError::Sasl {
                detail: "the server closed the connection during negotiation (is it a Kerberos gateway? are the \
                         service principal and host right?)"
                    .into(),
            }
        } else {
            SecureError::Sasl { detail: format!("I/O during negotiation: {e}") }
        }
    };
    let mut header = [0u8; 5];
    stream.read_exact(&mut header).await.map_err(io)?;
    let status = header[0];
    let len = u32::from_be_bytes([header[1], header[2], header[3], header[4]]) as usize;
    if !(START..=COMPLETE).contains(&status) || len > MAX_NEGOTIATION {
        return Err(SecureError::Sasl {
            detail: format!(
                "the server's reply is not a SASL message (status {status}, length {len}): is it a Kerberos gateway?"
            ),
        });
    }
    let mut payload = vec![0u8; len];
    stream.read_exact(&mut payload).await.map_err(io)?;
    if status == BAD || status == ERROR {
        return Err(SecureError::Sasl { detail: format!("the server refused: {}", String::from_utf8_lossy(&payload)) });
    }
    Ok((status, payload))
}

/// A stream after SASL negotiation: frames (and wraps, for auth-int and auth-conf)
/// what is written, one frame per flush; unframes and unwraps what is read.
pub struct SaslStream<S> {
    inner: S,
    ctx: Mutex<ClientContext>,
    qop: Qop,
    max_frame: usize,
    /// Plain bytes written since the last flush.
    out: Vec<u8>,
    /// The framed bytes of the current flush not yet written.
    pending: BytesMut,
    /// Raw bytes read, not yet a whole frame.
    raw: BytesMut,
    /// Unwrapped bytes not yet handed out.
    plain: BytesMut,
}

impl<S> SaslStream<S> {
    /// The quality of protection negotiated.
    pub fn qop(&self) -> Qop {
        self.qop
    }
}

impl<S> std::fmt::Debug for SaslStream<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SaslStream").field("qop", &self.qop).finish_non_exhaustive()
    }
}

fn sasl_io(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(SecureError::Sasl { detail: e.to_string() })
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for SaslStream<S> {
    fn poll_write(self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.get_mut().out.extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.pending.is_empty() && !this.out.is_empty() {
            let body = if this.qop == Qop::Auth {
                std::mem::take(&mut this.out)
            } else {
                let ctx = this.ctx.get_mut().map_err(|_| sasl_io("GSSAPI context poisoned"))?;
                let wrapped = ctx.wrap(this.qop == Qop::AuthConf, &this.out).map_err(sasl_io)?;
                this.out.clear();
                wrapped
            };
            let len = u32::try_from(body.len()).map_err(|_| sasl_io("message too large for a SASL frame"))?;
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

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for SaslStream<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        while this.plain.is_empty() {
            // A whole frame in `raw`? Unwrap it.
            if this.raw.len() >= 4 {
                let len = u32::from_be_bytes([this.raw[0], this.raw[1], this.raw[2], this.raw[3]]) as usize;
                if len > this.max_frame {
                    return Poll::Ready(Err(sasl_io(format!(
                        "SASL frame of {len} bytes exceeds the limit of {} bytes",
                        this.max_frame
                    ))));
                }
                if this.raw.len() >= 4 + len {
                    this.raw.advance(4);
                    let frame = this.raw.split_to(len);
                    if this.qop == Qop::Auth {
                        this.plain = frame;
                    } else {
                        let ctx = this.ctx.get_mut().map_err(|_| sasl_io("GSSAPI context poisoned"))?;
                        let plain = ctx.unwrap(&frame).map_err(|e| sasl_io(format!("cannot unwrap a reply: {e}")))?;
                        if this.qop == Qop::AuthConf && !plain.encrypted {
                            return Poll::Ready(Err(sasl_io(
                                "a reply was not encrypted although auth-conf was negotiated",
                            )));
                        }
                        this.plain.extend_from_slice(&plain.message);
                    }
                    continue;
                }
            }
            // Read more raw bytes.
            if this.raw.capacity() - this.raw.len() < 8192 {
                this.raw.reserve(64 * 1024);
            }
            let mut chunk = [0u8; 16 * 1024];
            let mut read = ReadBuf::new(&mut chunk);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut read))?;
            if read.filled().is_empty() {
                // End of stream: nothing more (a partial frame means the peer cut it).
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

impl<S: ConnectionStream> ConnectionStream for SaslStream<S> {
    fn closed_or_unsolicited(&self) -> bool {
        !self.plain.is_empty() || !self.raw.is_empty() || self.inner.closed_or_unsolicited()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_gssapi_library_is_its_own_error_naming_the_package() {
        let missing = basalt_gssapi::Error::LibraryMissing {
            tried: "libgssapi_krb5.so.2".into(),
            detail: "cannot open shared object file".into(),
        };
        let err = gss("credentials", missing);
        assert!(matches!(err, SecureError::GssapiLibraryMissing { .. }), "{err:?}");
        assert!(err.to_string().contains(basalt_gssapi::DEBIAN_PACKAGE), "{err}");
    }

    #[test]
    fn layers_are_described_by_name() {
        assert_eq!(describe_layers(4), "auth-conf");
        assert_eq!(describe_layers(7), "auth, auth-int, auth-conf");
        assert_eq!(describe_layers(0), "nothing");
    }

    #[tokio::test]
    async fn a_non_sasl_reply_is_a_clear_error() {
        let (mut server, mut client) = tokio::io::duplex(64);
        // A plain Thrift server answering garbage: status 0x80, huge length.
        server.write_all(&[0x80, 0x01, 0x00, 0x01, 0x00, 0x00]).await.unwrap();
        let err = receive(&mut client).await.unwrap_err();
        assert!(err.to_string().contains("not a SASL message"), "{err}");
    }

    #[tokio::test]
    async fn a_refusal_carries_the_servers_words() {
        let (mut server, mut client) = tokio::io::duplex(64);
        server.write_all(&[BAD, 0, 0, 0, 6]).await.unwrap();
        server.write_all(b"denied").await.unwrap();
        let err = receive(&mut client).await.unwrap_err();
        assert!(err.to_string().contains("denied"), "{err}");
    }
}
