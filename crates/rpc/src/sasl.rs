//! SASL GSSAPI (Kerberos) on a native RPC connection, as HBase 2.6 speaks it
//! (`NettyHBaseSaslRpcClientHandler` on the client, `NettyHBaseSaslRpcServerHandler`
//! on the server; the bytes are in [`sasl_frame`](crate::sasl_frame)).
//!
//! 1. The preamble with the KERBEROS auth code, then the first GSSAPI token.
//! 2. The server's tokens until the GSSAPI context is established; as HBase's Java
//!    client does, the client answers the last one with an empty token.
//! 3. The RFC 4752 security layer: the server's wrapped offer (a bit mask of layers and
//!    its largest buffer), the client's wrapped choice. The server sends nothing more.
//! 4. For auth-int and auth-conf, the stream is then wrapped ([`SaslStream`]): every
//!    flush is one frame, signed (auth-int) or encrypted (auth-conf); replies are
//!    unwrapped frame by frame. For auth, the stream continues as it is. The server
//!    wraps each response in a frame of its own (`SaslWrapHandler` encodes message by
//!    message), so a wrapped frame is bounded like a reply frame plus the wrapping's
//!    overhead; like HBase's Netty client, this client does not split what it sends to
//!    the server's advertised buffer size (the server's unwrapping does not enforce it).
//!
//! GSSAPI comes from the system's library through `basalt-gssapi` (the same context
//! code the Thrift transport uses); its blocking calls run on tokio's blocking pool.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use basalt_gssapi::{ClientContext, Flags, StartError};
use basalt_rpc_protocol::call::{preamble, AuthMethod};
use bytes::{Buf, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};

use crate::sasl_frame::{self, SaslReply};
use crate::security::{KerberosOptions, Qop, SecurityError};

/// Largest buffer this client says it can receive in one wrapped frame (3 bytes).
const CLIENT_MAX_BUFFER: u32 = 0x00FF_FFFF;

/// A GSSAPI failure in the words of a [`SecurityError`].
fn gss(what: &str, e: basalt_gssapi::Error) -> SecurityError {
    if e.is_library_missing() {
        SecurityError::GssapiLibraryMissing { detail: e.to_string() }
    } else if e.is_credentials_expired() {
        SecurityError::TicketExpired { principal: "the client".into(), detail: e.to_string() }
    } else {
        SecurityError::Gssapi(format!("{what}: {e}"))
    }
}

/// A client context for `target` with the credentials checked first, so that a missing
/// or expired ticket gets its own error. Blocking.
fn client_context(options: &KerberosOptions, target: &str) -> Result<ClientContext, SecurityError> {
    let flags = Flags::MUTUAL | Flags::SEQUENCE | Flags::INTEG | Flags::CONF;
    ClientContext::for_service(options.principal.as_deref(), target, flags).map_err(|e| match e {
        StartError::NoCredentials { principal, source } => {
            SecurityError::NoTicket { principal, detail: source.to_string() }
        }
        StartError::Expired { principal, source } => {
            SecurityError::TicketExpired { principal, detail: source.to_string() }
        }
        StartError::Other(source) => gss("starting a Kerberos context", source),
    })
}

/// One GSSAPI step on the blocking pool (the first may ask the KDC for a ticket).
async fn step(
    mut ctx: ClientContext,
    token: Option<Vec<u8>>,
    target: String,
) -> Result<(ClientContext, Option<Vec<u8>>), SecurityError> {
    tokio::task::spawn_blocking(move || {
        let out = ctx
            .step(token.as_deref())
            .map_err(|e| gss(&format!("establishing a Kerberos context with {target}"), e))?;
        Ok((ctx, out))
    })
    .await
    .map_err(|e| SecurityError::Gssapi(format!("the GSSAPI task failed: {e}")))?
}

/// The negotiated security context of a connection.
pub(crate) struct Negotiated {
    /// The established GSSAPI context (wraps and unwraps).
    pub ctx: ClientContext,
    /// The layer chosen.
    pub qop: Qop,
}

/// Reads server replies off `stream`, keeping what follows a reply in `buf`.
async fn read_reply<S: AsyncRead + Unpin>(
    stream: &mut S,
    buf: &mut BytesMut,
    addr: &str,
) -> Result<Vec<u8>, SecurityError> {
    loop {
        match sasl_frame::decode_reply(buf) {
            Ok(Some(SaslReply::Token(token))) => return Ok(token),
            Ok(Some(SaslReply::SwitchToSimple)) => {
                return Err(SecurityError::ServerNotSecure { addr: addr.to_owned() })
            }
            Ok(Some(SaslReply::Error { class, message })) => return Err(SecurityError::SaslRefused { class, message }),
            Ok(None) => {}
            Err(e) => return Err(SecurityError::Sasl { detail: e.to_string() }),
        }
        buf.reserve(4096);
        match stream.read_buf(buf).await {
            Ok(0) => {
                return Err(SecurityError::Sasl {
                    detail: format!(
                        "{addr} closed the connection during the SASL exchange (is it secured with Kerberos? is the \
                         server principal right?)"
                    ),
                })
            }
            Ok(_) => {}
            Err(e) => return Err(SecurityError::Sasl { detail: format!("reading from {addr}: {e}") }),
        }
    }
}

async fn send<S: AsyncWrite + Unpin>(stream: &mut S, bytes: &[u8], addr: &str) -> Result<(), SecurityError> {
    let io = |e: io::Error| SecurityError::Sasl { detail: format!("writing to {addr}: {e}") };
    stream.write_all(bytes).await.map_err(io)?;
    stream.flush().await.map_err(io)
}

fn token_frame(token: &[u8]) -> Result<Vec<u8>, SecurityError> {
    let mut out = Vec::with_capacity(4 + token.len());
    sasl_frame::encode_token(token, &mut out).map_err(|e| SecurityError::Sasl { detail: e.to_string() })?;
    Ok(out)
}

/// Runs the whole exchange over `stream` (the preamble included) with the server at
/// `addr`, whose principal host defaults to `host`.
pub(crate) async fn negotiate<S>(
    stream: &mut S,
    addr: &str,
    host: &str,
    options: &KerberosOptions,
) -> Result<Negotiated, SecurityError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let target = options.target(host);
    let (ctx, first) = {
        let (options, target) = (options.clone(), target.clone());
        tokio::task::spawn_blocking(move || {
            let mut ctx = client_context(&options, &target)?;
            let first =
                ctx.step(None).map_err(|e| gss(&format!("establishing a Kerberos context with {target}"), e))?;
            Ok::<_, SecurityError>((ctx, first))
        })
        .await
        .map_err(|e| SecurityError::Gssapi(format!("the GSSAPI task failed: {e}")))??
    };
    let mut opening = preamble(AuthMethod::Kerberos).to_vec();
    opening.extend_from_slice(&token_frame(&first.unwrap_or_default())?);
    send(stream, &opening, addr).await?;

    let mut buf = BytesMut::new();
    let mut ctx = ctx;
    while !ctx.is_complete() {
        let challenge = read_reply(stream, &mut buf, addr).await?;
        let (next, answer) = step(ctx, Some(challenge), target.clone()).await?;
        ctx = next;
        // Sent even when empty: the server's GSSAPI waits for it before its offer.
        send(stream, &token_frame(&answer.unwrap_or_default())?, addr).await?;
    }

    let offer = read_reply(stream, &mut buf, addr).await?;
    let offer = ctx
        .unwrap(&offer)
        .map_err(|e| SecurityError::Sasl { detail: format!("cannot unwrap the security-layer offer: {e}") })?
        .message;
    let [offered, ..] = offer[..] else {
        return Err(SecurityError::Sasl { detail: "an empty security-layer offer".into() });
    };
    if offer.len() != 4 {
        return Err(SecurityError::Sasl { detail: format!("a security-layer offer of {} bytes, not 4", offer.len()) });
    }
    let qop = options
        .qop
        .choose(offered)
        .ok_or_else(|| SecurityError::QopMismatch { offered: Qop::describe_mask(offered), wanted: options.qop })?;
    let max = CLIENT_MAX_BUFFER.to_be_bytes();
    let choice = ctx
        .wrap(false, &[qop.layer_bit(), max[1], max[2], max[3]])
        .map_err(|e| SecurityError::Sasl { detail: format!("cannot wrap the security-layer choice: {e}") })?;
    send(stream, &token_frame(&choice)?, addr).await?;
    if !buf.is_empty() {
        return Err(SecurityError::Sasl { detail: format!("{} unexpected bytes after the exchange", buf.len()) });
    }
    Ok(Negotiated { ctx, qop })
}

/// A stream after a negotiation of auth-int or auth-conf: what is written goes out as
/// one wrapped frame per flush; what is read is unframed and unwrapped.
pub(crate) struct SaslStream<S> {
    inner: S,
    ctx: ClientContext,
    encrypt: bool,
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
    /// Wraps `inner` for the negotiated layer (auth-int or auth-conf); a wrapped frame
    /// longer than `max_frame` fails the read.
    pub(crate) fn new(inner: S, negotiated: Negotiated, max_frame: usize) -> SaslStream<S> {
        SaslStream {
            inner,
            ctx: negotiated.ctx,
            encrypt: negotiated.qop == Qop::AuthConf,
            max_frame,
            out: Vec::new(),
            pending: BytesMut::new(),
            raw: BytesMut::new(),
            plain: BytesMut::new(),
        }
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
            let wrapped = this.ctx.wrap(this.encrypt, &this.out).map_err(sasl_io)?;
            this.out.clear();
            let len = i32::try_from(wrapped.len()).map_err(|_| sasl_io("a message too large for one frame"))?;
            this.pending.extend_from_slice(&len.to_be_bytes());
            this.pending.extend_from_slice(&wrapped);
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
            if let Some(frame) = sasl_frame::take_wrapped_frame(&mut this.raw, this.max_frame).map_err(sasl_io)? {
                let unwrapped = this.ctx.unwrap(&frame).map_err(|e| sasl_io(format!("cannot unwrap a reply: {e}")))?;
                if this.encrypt && !unwrapped.encrypted {
                    return Poll::Ready(Err(sasl_io("a reply was not encrypted although auth-conf was negotiated")));
                }
                this.plain.extend_from_slice(&unwrapped.message);
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
    fn a_missing_gssapi_library_names_the_package() {
        let missing =
            basalt_gssapi::Error::LibraryMissing { tried: "libgssapi_krb5.so.2".into(), detail: "not found".into() };
        let err = gss("credentials", missing);
        assert!(matches!(err, SecurityError::GssapiLibraryMissing { .. }), "{err:?}");
        assert!(err.to_string().contains(basalt_gssapi::DEBIAN_PACKAGE), "{err}");
    }

    #[tokio::test]
    async fn the_servers_refusal_and_fall_back_are_typed() {
        let (mut server, mut client) = tokio::io::duplex(256);
        let class = b"org.apache.hadoop.security.AccessControlException";
        let mut bytes = 1i32.to_be_bytes().to_vec();
        bytes.extend_from_slice(&(class.len() as i32).to_be_bytes());
        bytes.extend_from_slice(class);
        bytes.extend_from_slice(&(-1i32).to_be_bytes());
        server.write_all(&bytes).await.unwrap();
        let err = read_reply(&mut client, &mut BytesMut::new(), "h:1").await.unwrap_err();
        assert!(matches!(&err, SecurityError::SaslRefused { class, .. } if class.ends_with("AccessControlException")));
        let mut bytes = 0i32.to_be_bytes().to_vec();
        bytes.extend_from_slice(&sasl_frame::SWITCH_TO_SIMPLE_AUTH.to_be_bytes());
        server.write_all(&bytes).await.unwrap();
        let err = read_reply(&mut client, &mut BytesMut::new(), "h:1").await.unwrap_err();
        assert_eq!(err, SecurityError::ServerNotSecure { addr: "h:1".into() });
        drop(server);
        let err = read_reply(&mut client, &mut BytesMut::new(), "h:1").await.unwrap_err();
        assert!(matches!(&err, SecurityError::Sasl { detail } if detail.contains("closed")), "{err:?}");
    }
}
