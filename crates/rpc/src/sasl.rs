//! SASL GSSAPI (Kerberos) on a native RPC connection, as HBase 2.6 speaks it
//! (`NettyHBaseSaslRpcClientHandler` on the client, `NettyHBaseSaslRpcServerHandler`
//! on the server; the bytes are in [`sasl_frame`](crate::sasl_frame)).
//!
//! The exchange itself (context, challenges, the RFC 4752 security layer) is
//! `basalt-security`'s [`negotiate`](basalt_security::negotiate); this module carries
//! its tokens the way HBase RPC does:
//!
//! 1. The preamble with the KERBEROS auth code, then the first token, length-prefixed.
//! 2. Each server reply is a status and a token (or a refusal, or a request to fall
//!    back to simple authentication, which is refused); each answer a length-prefixed
//!    token. The security-layer offer and choice travel the same way.
//! 3. The server sends nothing after the client's choice.
//!
//! For auth-int and auth-conf the stream is then wrapped
//! ([`SaslStream`](basalt_security::SaslStream)): every flush is one frame, signed or
//! encrypted. The server wraps each response in a frame of its own (`SaslWrapHandler`
//! encodes message by message), so a wrapped frame is bounded like a reply frame plus
//! the wrapping's overhead; like HBase's Netty client, this client does not split what
//! it sends to the server's advertised buffer size (the server's unwrapping does not
//! enforce it). For auth, the stream continues as it is.

use std::io;

use basalt_rpc_protocol::call::{preamble, AuthMethod};
use basalt_security::{KerberosOptions, Negotiated, SaslExchange, SecurityError};
use bytes::BytesMut;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::sasl_frame::{self, SaslReply};

/// HBase RPC's framing of the SASL exchange over `stream`, with the server at `addr`.
struct RpcSasl<'a, S> {
    stream: &'a mut S,
    /// Bytes read and not yet a whole reply.
    buf: BytesMut,
    addr: &'a str,
}

impl<S: AsyncRead + AsyncWrite + Unpin + Send> RpcSasl<'_, S> {
    /// Reads the server's next reply: its token, or its refusal as an error.
    async fn read_reply(&mut self) -> Result<Vec<u8>, SecurityError> {
        let addr = self.addr;
        loop {
            match sasl_frame::decode_reply(&mut self.buf) {
                Ok(Some(SaslReply::Token(token))) => return Ok(token),
                Ok(Some(SaslReply::SwitchToSimple)) => {
                    return Err(SecurityError::ServerNotSecure { addr: addr.to_owned() })
                }
                Ok(Some(SaslReply::Error { class, message })) => {
                    return Err(SecurityError::SaslRefused { class, message })
                }
                Ok(None) => {}
                Err(e) => return Err(SecurityError::Sasl { detail: e.to_string() }),
            }
            self.buf.reserve(4096);
            match self.stream.read_buf(&mut self.buf).await {
                Ok(0) => {
                    return Err(SecurityError::Sasl {
                        detail: format!(
                            "{addr} closed the connection during the SASL exchange (is it secured with Kerberos? is \
                             the server principal right?)"
                        ),
                    })
                }
                Ok(_) => {}
                Err(e) => return Err(SecurityError::Sasl { detail: format!("reading from {addr}: {e}") }),
            }
        }
    }

    /// Writes `bytes` and flushes.
    async fn send(&mut self, bytes: &[u8]) -> Result<(), SecurityError> {
        let addr = self.addr;
        let io = |e: io::Error| SecurityError::Sasl { detail: format!("writing to {addr}: {e}") };
        self.stream.write_all(bytes).await.map_err(io)?;
        self.stream.flush().await.map_err(io)
    }
}

/// A client token, length-prefixed, appended to `out`.
fn token_frame(token: &[u8], out: &mut Vec<u8>) -> Result<(), SecurityError> {
    sasl_frame::encode_token(token, out).map_err(|e| SecurityError::Sasl { detail: e.to_string() })
}

impl<S: AsyncRead + AsyncWrite + Unpin + Send> SaslExchange for RpcSasl<'_, S> {
    async fn send_first(&mut self, token: &[u8]) -> Result<(), SecurityError> {
        let mut opening = preamble(AuthMethod::Kerberos).to_vec();
        token_frame(token, &mut opening)?;
        self.send(&opening).await
    }

    async fn receive_challenge(&mut self) -> Result<Vec<u8>, SecurityError> {
        self.read_reply().await
    }

    async fn send_response(&mut self, token: &[u8]) -> Result<(), SecurityError> {
        let mut frame = Vec::with_capacity(4 + token.len());
        token_frame(token, &mut frame)?;
        self.send(&frame).await
    }

    async fn receive_offer(&mut self) -> Result<Vec<u8>, SecurityError> {
        self.read_reply().await
    }

    async fn send_choice(&mut self, wrapped: &[u8]) -> Result<(), SecurityError> {
        self.send_response(wrapped).await
    }

    async fn finish(&mut self) -> Result<(), SecurityError> {
        match self.buf.len() {
            0 => Ok(()),
            n => Err(SecurityError::Sasl { detail: format!("{n} unexpected bytes after the exchange") }),
        }
    }
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
    S: AsyncRead + AsyncWrite + Unpin + Send,
{
    let mut exchange = RpcSasl { stream, buf: BytesMut::new(), addr };
    basalt_security::negotiate(&mut exchange, host, options).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_servers_refusal_and_fall_back_are_typed() {
        let (mut server, mut client) = tokio::io::duplex(256);
        let mut exchange = RpcSasl { stream: &mut client, buf: BytesMut::new(), addr: "h:1" };
        let class = b"org.apache.hadoop.security.AccessControlException";
        let mut bytes = 1i32.to_be_bytes().to_vec();
        bytes.extend_from_slice(&(class.len() as i32).to_be_bytes());
        bytes.extend_from_slice(class);
        bytes.extend_from_slice(&(-1i32).to_be_bytes());
        server.write_all(&bytes).await.unwrap();
        let err = exchange.receive_challenge().await.unwrap_err();
        assert!(matches!(&err, SecurityError::SaslRefused { class, .. } if class.ends_with("AccessControlException")));
        let mut bytes = 0i32.to_be_bytes().to_vec();
        bytes.extend_from_slice(&sasl_frame::SWITCH_TO_SIMPLE_AUTH.to_be_bytes());
        server.write_all(&bytes).await.unwrap();
        let err = exchange.receive_offer().await.unwrap_err();
        assert_eq!(err, SecurityError::ServerNotSecure { addr: "h:1".into() });
        drop(server);
        let err = exchange.receive_challenge().await.unwrap_err();
        assert!(matches!(&err, SecurityError::Sasl { detail } if detail.contains("closed")), "{err:?}");
    }

    #[tokio::test]
    async fn tokens_go_out_after_the_preamble_and_leftovers_fail_the_end() {
        let (mut server, mut client) = tokio::io::duplex(256);
        let mut exchange = RpcSasl { stream: &mut client, buf: BytesMut::new(), addr: "h:1" };
        exchange.send_first(b"tok").await.unwrap();
        exchange.send_choice(b"").await.unwrap();
        let mut expected = preamble(AuthMethod::Kerberos).to_vec();
        expected.extend_from_slice(b"\x00\x00\x00\x03tok\x00\x00\x00\x00");
        let mut got = vec![0u8; expected.len()];
        server.read_exact(&mut got).await.unwrap();
        assert_eq!(got, expected);
        assert_eq!(exchange.finish().await, Ok(()));
        exchange.buf.extend_from_slice(b"xy");
        assert!(exchange.finish().await.unwrap_err().to_string().contains("2 unexpected bytes"));
    }
}
