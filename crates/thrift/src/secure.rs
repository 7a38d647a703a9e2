//! Production gateways: TLS, Thrift over HTTP(S), and Kerberos, as options of a
//! connection ([`ConnectionOptions::security`](crate::ConnectionOptions)).
//!
//! | server (HBase 2.6)                                   | [`Security`]                          |
//! |------------------------------------------------------|---------------------------------------|
//! | socket gateway behind a TLS terminator               | `tls`                                 |
//! | `hbase.regionserver.thrift.http`                      | `http`                                |
//! | ... with `hbase.thrift.ssl.enabled` (HTTPS)           | `http` + `tls`                        |
//! | `hbase.thrift.security.qop` (SASL GSSAPI, buffered)   | `kerberos`                            |
//! | ... with HTTP (SPNEGO)                                | `http` + `kerberos`                   |
//!
//! Every handshake (TLS, SASL, the first HTTP exchange) is bounded by the connect
//! timeout: a server that speaks something else fails the connect with
//! [`SecureError::HandshakeTimeout`] instead of hanging. The settings, the TLS
//! handshake, the SASL security layer and [`SecureError`] are `basalt-security`'s,
//! shared with the native transport; this module puts them in the gateway's order.

use std::future::Future;
use std::time::Duration;

use basalt_security::{handshake, host_of, ContainsSecurityError, KerberosOptions, TlsOptions, KERBEROS_SUPPORTED};
use tokio::net::TcpStream;

use crate::error::CallError;
use crate::http::{self, HttpOptions};
use crate::sasl;
use crate::stream::ConnectionStream;
use crate::{Framing, SecureError};

/// Which security a connection uses. `Default` is plain TCP.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Security {
    /// TLS (with `http`: HTTPS).
    pub tls: Option<TlsOptions>,
    /// Thrift over HTTP: one POST per call (binary protocol; framing is ignored).
    pub http: Option<HttpOptions>,
    /// Kerberos: SASL GSSAPI on the socket, SPNEGO with `http`. Needs the cargo
    /// feature `kerberos` ([`SecureError::KerberosNotBuilt`] without it).
    pub kerberos: Option<KerberosOptions>,
}

impl Security {
    /// Whether this is plain TCP (no option set).
    pub fn is_plain(&self) -> bool {
        self.tls.is_none() && self.http.is_none() && self.kerberos.is_none()
    }
}

impl ContainsSecurityError for CallError {
    /// The security error inside a call error: a handshake's, or a secured stream's
    /// failure inside [`CallError::Io`] (so `SecureError::of(&call_error)` finds both).
    fn security_error(&self) -> Option<&SecureError> {
        match self {
            CallError::Secure(e) => Some(e),
            CallError::Io(io) => io.security_error(),
            _ => None,
        }
    }
}

/// [`basalt_security::bounded`], failing as a [`CallError`].
async fn bounded<T>(
    phase: &'static str,
    addr: &str,
    after: Duration,
    work: impl Future<Output = Result<T, SecureError>>,
) -> Result<T, CallError> {
    basalt_security::bounded(phase, addr, after, work).await.map_err(CallError::Secure)
}

/// A secured stream and the framing the connection over it uses.
pub(crate) struct SecuredStream {
    /// TLS, SASL, HTTP, or a combination, over the TCP socket.
    pub stream: Box<dyn ConnectionStream>,
    /// The connection's framing: HTTP frames calls itself (its body is unframed).
    pub framing: Framing,
}

/// What securing a connection needs from its options.
pub(crate) struct SecureSettings<'a> {
    /// The security asked for.
    pub security: &'a Security,
    /// Bounds every handshake.
    pub connect_timeout: Duration,
    /// The largest reply the connection accepts (bounds the secured frames).
    pub max_response_bytes: usize,
    /// The framing asked for.
    pub framing: Framing,
}

/// Secures an already-connected TCP socket.
pub(crate) async fn open(tcp: TcpStream, addr: &str, settings: SecureSettings<'_>) -> Result<SecuredStream, CallError> {
    let host = host_of(addr).to_owned();
    let timeout = settings.connect_timeout;
    let security = settings.security;
    let max_frame = settings.max_response_bytes.saturating_add(64 * 1024);
    let framing = settings.framing;
    if security.kerberos.is_some() && !KERBEROS_SUPPORTED {
        // Before any handshake: nothing else about this connection matters.
        return Err(CallError::Secure(SecureError::KerberosNotBuilt));
    }
    if let Some(http_options) = &security.http {
        let kerberos = security.kerberos.as_ref();
        let stream: Box<dyn ConnectionStream> = match &security.tls {
            Some(tls_options) => {
                let tls = bounded("TLS", addr, timeout, handshake(tcp, &host, tls_options)).await?;
                Box::new(
                    bounded("HTTP", addr, timeout, http::open(tls, addr, &host, http_options, kerberos, max_frame))
                        .await?,
                )
            }
            None => Box::new(
                bounded("HTTP", addr, timeout, http::open(tcp, addr, &host, http_options, kerberos, max_frame)).await?,
            ),
        };
        // One HTTP request per call: the framing is HTTP's, the body is unframed.
        return Ok(SecuredStream { stream, framing: Framing::Buffered });
    }
    if security.kerberos.is_some() && framing == Framing::Framed {
        return Err(CallError::Secure(SecureError::Sasl {
            detail: "HBase's Thrift server does not support SASL with the framed transport: use buffered".into(),
        }));
    }
    let stream: Box<dyn ConnectionStream> = match (&security.tls, &security.kerberos) {
        (Some(tls_options), Some(krb)) => {
            let tls = bounded("TLS", addr, timeout, handshake(tcp, &host, tls_options)).await?;
            Box::new(bounded("SASL", addr, timeout, sasl::negotiate(tls, &host, krb, max_frame)).await?)
        }
        (Some(tls_options), None) => Box::new(bounded("TLS", addr, timeout, handshake(tcp, &host, tls_options)).await?),
        (None, Some(krb)) => {
            Box::new(bounded("SASL", addr, timeout, sasl::negotiate(tcp, &host, krb, max_frame)).await?)
        }
        (None, None) => Box::new(tcp),
    };
    Ok(SecuredStream { stream, framing })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secure_errors_are_found_inside_io_errors() {
        let inner = SecureError::Sasl { detail: "x".into() };
        let call = CallError::Io(std::io::Error::other(inner.clone()));
        assert_eq!(SecureError::of(&call), Some(&inner));
        assert_eq!(SecureError::of(&CallError::Secure(inner.clone())), Some(&inner));
        assert!(SecureError::of(&CallError::ConnectionUnusable).is_none());
        assert!(Security::default().is_plain());
    }

    /// Without the `kerberos` feature, asking for Kerberos fails before any handshake
    /// with the error that names the feature; with it, the option is taken as given.
    #[tokio::test]
    async fn kerberos_without_the_feature_names_the_feature() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        for http in [None, Some(HttpOptions::default())] {
            let security = Security { kerberos: Some(KerberosOptions::default()), http, ..Security::default() };
            let settings = SecureSettings {
                security: &security,
                connect_timeout: Duration::from_millis(300),
                max_response_bytes: 1 << 20,
                framing: Framing::Buffered,
            };
            let tcp = TcpStream::connect(&addr).await.unwrap();
            let result = open(tcp, &addr, settings).await;
            if KERBEROS_SUPPORTED {
                // The listener never answers: the SASL or HTTP handshake times out.
                let Err(err) = result else { panic!("no server to negotiate with, yet connected") };
                assert!(!matches!(SecureError::of(&err), Some(SecureError::KerberosNotBuilt)), "{err}");
            } else {
                let Err(err) = result else { panic!("Kerberos is not built in, yet connected") };
                assert_eq!(SecureError::of(&err), Some(&SecureError::KerberosNotBuilt), "{err}");
                assert!(err.to_string().contains("cargo feature `kerberos`"), "{err}");
            }
        }
    }
}
