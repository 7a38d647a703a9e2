//! Security of native RPC connections: TLS (HBase 2.6's `hbase.server.netty.tls.enabled`)
//! and Kerberos (SASL GSSAPI, `hbase.security.authentication=kerberos`), alone or
//! together, as [`ConnectionOptions::security`](crate::ConnectionOptions).
//!
//! | server (HBase 2.6)                                        | [`Security`]          |
//! |-----------------------------------------------------------|-----------------------|
//! | `hbase.server.netty.tls.enabled`                          | `tls`                 |
//! | `hbase.security.authentication=kerberos`, `hbase.rpc.protection` | `kerberos`     |
//! | both                                                      | `tls` + `kerberos`    |
//!
//! Every handshake is bounded by the connect timeout: a server that speaks something
//! else fails the connect with [`SecurityError::HandshakeTimeout`] instead of hanging.
//! Kerberos needs the cargo feature `kerberos` ([`KERBEROS_SUPPORTED`]); the options
//! exist in every build, so code that sets them compiles the same either way. The
//! settings, the TLS handshake and the SASL security layer are `basalt-security`'s,
//! shared with the Thrift transport; this module puts them in HBase RPC's order.

use std::time::Duration;

use basalt_security::{
    bounded, host_of, KerberosOptions, Qop, SaslStream, SecurityError, TlsOptions, KERBEROS_SUPPORTED,
};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// Which security a connection uses. `Default` is plain TCP with simple authentication.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Security {
    /// TLS around the whole connection.
    pub tls: Option<TlsOptions>,
    /// Kerberos: SASL GSSAPI after the preamble (inside TLS when both are set).
    pub kerberos: Option<KerberosOptions>,
}

impl Security {
    /// Whether this is plain TCP with simple authentication.
    pub fn is_plain(&self) -> bool {
        self.tls.is_none() && self.kerberos.is_none()
    }
}

/// A connected byte stream of any kind (TLS, SASL-wrapped, ...).
pub(crate) trait RpcStream: AsyncRead + AsyncWrite + Send + Unpin {}

impl<T: AsyncRead + AsyncWrite + Send + Unpin> RpcStream for T {}

/// A secured stream, and whether the preamble was already sent on it (the SASL
/// exchange sends it; with TLS alone the caller sends the simple one).
pub(crate) struct Secured {
    pub stream: Box<dyn RpcStream>,
    pub preamble_sent: bool,
}

/// Secures a connected socket to `addr` as `security` says: the TLS handshake, then
/// the SASL exchange (inside TLS when both are set), each bounded by `timeout`. Wrapped
/// frames read afterwards are bounded by `max_frame`.
pub(crate) async fn secure(
    tcp: TcpStream,
    addr: &str,
    security: &Security,
    timeout: Duration,
    max_frame: usize,
) -> Result<Secured, SecurityError> {
    if security.kerberos.is_some() && !KERBEROS_SUPPORTED {
        // Before any handshake: nothing else about this connection matters.
        return Err(SecurityError::KerberosNotBuilt);
    }
    let host = host_of(addr);
    let stream: Box<dyn RpcStream> = match &security.tls {
        Some(options) => Box::new(bounded("TLS", addr, timeout, basalt_security::handshake(tcp, host, options)).await?),
        None => Box::new(tcp),
    };
    match &security.kerberos {
        None => Ok(Secured { stream, preamble_sent: false }),
        Some(kerberos) => sasl_layer(stream, addr, host, kerberos, timeout, max_frame).await,
    }
}

/// The SASL exchange over `stream`, and the stream wrapped for the layer chosen (HBase
/// frames nothing for auth).
async fn sasl_layer(
    mut stream: Box<dyn RpcStream>,
    addr: &str,
    host: &str,
    kerberos: &KerberosOptions,
    timeout: Duration,
    max_frame: usize,
) -> Result<Secured, SecurityError> {
    let negotiated = bounded("SASL", addr, timeout, crate::sasl::negotiate(&mut stream, addr, host, kerberos)).await?;
    let stream: Box<dyn RpcStream> = match negotiated.qop() {
        Qop::Auth => stream,
        Qop::AuthInt | Qop::AuthConf => Box::new(SaslStream::new(stream, negotiated, max_frame)),
    };
    Ok(Secured { stream, preamble_sent: true })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without the `kerberos` feature, Kerberos fails before any byte is sent, naming
    /// the feature; with it, a server that never answers bounds the SASL exchange.
    #[tokio::test]
    async fn kerberos_is_refused_without_the_feature_and_bounded_with_it() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let tcp = TcpStream::connect(&addr).await.unwrap();
        let security = Security { tls: None, kerberos: Some(KerberosOptions::default()) };
        let result = secure(tcp, &addr, &security, Duration::from_millis(300), 1 << 20).await;
        let Err(err) = result else { panic!("secured against a silent peer") };
        if KERBEROS_SUPPORTED {
            assert_ne!(err, SecurityError::KerberosNotBuilt);
        } else {
            assert_eq!(err, SecurityError::KerberosNotBuilt);
            assert!(err.to_string().contains("cargo feature `kerberos`"), "{err}");
        }
        // TLS against a peer that never answers: a handshake timeout, not a hang.
        let tcp = TcpStream::connect(&addr).await.unwrap();
        let tls = Security { tls: Some(TlsOptions::default()), kerberos: None };
        match secure(tcp, &addr, &tls, Duration::from_millis(300), 1 << 20).await {
            Err(SecurityError::HandshakeTimeout { phase: "TLS", .. } | SecurityError::TlsConfig(_)) => {}
            Err(other) => panic!("expected a TLS handshake timeout, got {other}"),
            Ok(_) => panic!("a TLS handshake with a silent peer succeeded"),
        }
        drop(listener);
    }
}
