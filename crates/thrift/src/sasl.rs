//! SASL GSSAPI (Kerberos) for the socket transport, as HBase's Thrift server speaks it
//! (Apache Thrift's `TSaslServerTransport`, with `hbase.thrift.security.qop`).
//!
//! The exchange itself (context, challenges, the RFC 4752 security layer) is
//! `basalt-security`'s [`negotiate`](basalt_security::negotiate); this module carries
//! its tokens in Thrift's SASL messages: a status byte (START 1, OK 2, BAD 3, ERROR 4,
//! COMPLETE 5), a 4-byte big-endian length and a payload. The client sends START with
//! the mechanism name and OK with its first token; challenges and answers travel as
//! OK; the server's security-layer offer as OK, the client's choice as COMPLETE, and
//! the server ends with COMPLETE.
//!
//! After that, every message is a frame: a 4-byte big-endian length and the bytes,
//! wrapped by GSSAPI (signed for auth-int, also encrypted for auth-conf) unless the
//! layer is auth ([`SaslStream`]: one frame per flush, that is one per call).
//!
//! The GSSAPI side is the system's library (MIT krb5 or Heimdal), loaded at run time
//! with the cargo feature `kerberos`: credentials come from the ticket cache
//! (`KRB5CCNAME`) or, with MIT, a client keytab (`KRB5_CLIENT_KTNAME`); the
//! configuration from `KRB5_CONFIG`. Without the feature, the exchange fails before
//! anything is sent with [`SecureError::KerberosNotBuilt`](crate::SecureError).

use std::io;

use basalt_security::{KerberosOptions, SaslExchange, SaslStream};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::stream::ConnectionStream;
use crate::SecureError;

const START: u8 = 1;
const OK: u8 = 2;
const BAD: u8 = 3;
const ERROR: u8 = 4;
const COMPLETE: u8 = 5;

/// Largest negotiation message accepted (Kerberos tokens are a few KiB).
const MAX_NEGOTIATION: usize = 1 << 20;

/// Thrift's framing of the SASL exchange over `stream`.
struct ThriftSasl<'a, S>(&'a mut S);

impl<S: AsyncRead + AsyncWrite + Unpin + Send> ThriftSasl<'_, S> {
    /// Sends one negotiation message.
    async fn send(&mut self, status: u8, payload: &[u8]) -> Result<(), SecureError> {
        let mut message = Vec::with_capacity(5 + payload.len());
        message.push(status);
        message.extend_from_slice(&(payload.len() as u32).to_be_bytes());
        message.extend_from_slice(payload);
        let io = |e: io::Error| SecureError::Sasl { detail: format!("I/O during negotiation: {e}") };
        self.0.write_all(&message).await.map_err(io)?;
        self.0.flush().await.map_err(io)
    }

    /// Receives one negotiation message with status `expected`; `what` names it in the
    /// error when another comes.
    async fn expect(&mut self, expected: u8, what: &str) -> Result<Vec<u8>, SecureError> {
        let (status, payload) = receive(self.0).await?;
        if status == expected {
            Ok(payload)
        } else if status == COMPLETE {
            Err(SecureError::Sasl { detail: "the server completed before the security layer was chosen".into() })
        } else {
            Err(SecureError::Sasl { detail: format!("expected {what} from the server, got status {status}") })
        }
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin + Send> SaslExchange for ThriftSasl<'_, S> {
    async fn send_first(&mut self, token: &[u8]) -> Result<(), SecureError> {
        self.send(START, b"GSSAPI").await?;
        self.send(OK, token).await
    }

    async fn receive_challenge(&mut self) -> Result<Vec<u8>, SecureError> {
        self.expect(OK, "OK").await
    }

    async fn send_response(&mut self, token: &[u8]) -> Result<(), SecureError> {
        self.send(OK, token).await
    }

    async fn receive_offer(&mut self) -> Result<Vec<u8>, SecureError> {
        self.expect(OK, "the security-layer offer").await
    }

    async fn send_choice(&mut self, wrapped: &[u8]) -> Result<(), SecureError> {
        self.send(COMPLETE, wrapped).await
    }

    async fn finish(&mut self) -> Result<(), SecureError> {
        let (status, _) = receive(self.0).await?;
        match status {
            COMPLETE => Ok(()),
            other => {
                Err(SecureError::Sasl { detail: format!("expected COMPLETE from the server, got status {other}") })
            }
        }
    }
}

/// Runs the SASL GSSAPI negotiation over `stream` and returns it framed (and wrapped)
/// for the negotiated layer. `max_frame` bounds each frame read afterwards.
pub(crate) async fn negotiate<S>(
    mut stream: S,
    host: &str,
    options: &KerberosOptions,
    max_frame: usize,
) -> Result<SaslStream<S>, SecureError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send,
{
    let negotiated = basalt_security::negotiate(&mut ThriftSasl(&mut stream), host, options).await?;
    Ok(SaslStream::new(stream, negotiated, max_frame))
}

/// Reads one negotiation message; a refusal (BAD, ERROR) is an error with the server's
/// words.
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

impl<S: ConnectionStream> ConnectionStream for SaslStream<S> {
    fn closed_or_unsolicited(&self) -> bool {
        self.has_unread() || self.get_ref().closed_or_unsolicited()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[tokio::test]
    async fn messages_carry_their_status_and_the_end_is_checked() {
        let (mut server, mut client) = tokio::io::duplex(256);
        let mut exchange = ThriftSasl(&mut client);
        exchange.send_first(b"tok").await.unwrap();
        exchange.send_choice(b"c").await.unwrap();
        let mut got = [0u8; 11 + 8 + 6];
        server.read_exact(&mut got).await.unwrap();
        assert_eq!(&got[..], b"\x01\x00\x00\x00\x06GSSAPI\x02\x00\x00\x00\x03tok\x05\x00\x00\x00\x01c");
        server.write_all(&[COMPLETE, 0, 0, 0, 0]).await.unwrap();
        let err = exchange.receive_challenge().await.unwrap_err();
        assert!(err.to_string().contains("completed before"), "{err}");
        server.write_all(&[OK, 0, 0, 0, 0]).await.unwrap();
        let err = exchange.finish().await.unwrap_err();
        assert!(err.to_string().contains("expected COMPLETE"), "{err}");
    }
}
