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
//! [`SecureError::HandshakeTimeout`] instead of hanging.

use std::future::Future;
use std::time::Duration;

use tokio::net::TcpStream;

use crate::connection::{Connection, ConnectionOptions};
use crate::error::CallError;
use crate::http::{self, HttpOptions};
use crate::kerberos::{KerberosOptions, KERBEROS_SUPPORTED};
use crate::sasl;
use crate::tls::{self, TlsOptions};
use crate::Framing;

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

/// Why a secured connection could not be made or used. Reached through
/// [`CallError::Secure`], or inside [`CallError::Io`] for failures after the handshake.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecureError {
    /// The server's certificate does not chain to a trusted CA.
    #[error("TLS: the server's certificate is not trusted ({detail}); pass the CA that signed it")]
    UntrustedCertificate {
        /// rustls's words.
        detail: String,
    },
    /// The server's certificate has expired (or is not valid yet).
    #[error("TLS: the server's certificate has expired or is not yet valid ({detail})")]
    CertificateExpired {
        /// rustls's words.
        detail: String,
    },
    /// The server's certificate is not for the name connected to.
    #[error("TLS: the server's certificate is not valid for '{name}' ({detail}); connect by a name it lists or set the TLS server name")]
    HostNameMismatch {
        /// The name checked.
        name: String,
        /// rustls's words.
        detail: String,
    },
    /// Another TLS failure (protocol, alert from the server, ...).
    #[error("TLS handshake failed: {detail}")]
    Tls {
        /// rustls's words.
        detail: String,
    },
    /// The TLS options are unusable (unreadable CA file, bad key, ...).
    #[error("TLS configuration: {0}")]
    TlsConfig(String),
    /// No Kerberos ticket to use.
    #[error("Kerberos: no ticket for {principal} ({detail}); run kinit, or point KRB5CCNAME at a ticket cache")]
    NoTicket {
        /// Whose ticket was looked for.
        principal: String,
        /// GSSAPI's words.
        detail: String,
    },
    /// The Kerberos ticket has expired.
    #[error("Kerberos: the ticket of {principal} has expired ({detail}); run kinit again")]
    TicketExpired {
        /// Whose ticket.
        principal: String,
        /// GSSAPI's words.
        detail: String,
    },
    /// Another GSSAPI failure (unknown server principal, KDC unreachable, ...).
    #[error("Kerberos: {0}")]
    Gssapi(String),
    /// The SASL negotiation failed or the server refused it.
    #[error("SASL: {detail}")]
    Sasl {
        /// What happened.
        detail: String,
    },
    /// The server offers no quality of protection the client accepts.
    #[error("SASL: the server offers {offered}, this client requires at least {wanted}")]
    QopMismatch {
        /// The layers offered.
        offered: String,
        /// The weakest layer accepted.
        wanted: &'static str,
    },
    /// A handshake did not finish in time: the server speaks something else.
    #[error("{phase} with {addr} did not complete within {after:?}: the server does not seem to speak {phase} (transport or security mismatch)")]
    HandshakeTimeout {
        /// `TLS`, `SASL` or `HTTP`.
        phase: &'static str,
        /// The server.
        addr: String,
        /// The timeout.
        after: Duration,
    },
    /// The HTTP server answered with an error status.
    #[error("HTTP {status}: {detail}")]
    HttpStatus {
        /// The status code.
        status: u16,
        /// What it means here.
        detail: String,
    },
    /// Another HTTP failure.
    #[error("HTTP: {detail}")]
    Http {
        /// hyper's words.
        detail: String,
    },
    /// Kerberos was asked for, but this build has no Kerberos support (see
    /// [`KERBEROS_SUPPORTED`](crate::KERBEROS_SUPPORTED)).
    #[error(
        "Kerberos was asked for, but this build has no Kerberos support: rebuild with the cargo feature \
         `kerberos` (basalt-thrift/kerberos, basalt/kerberos, or `cargo install basalt-cli --features kerberos`); \
         it loads the system's GSSAPI library at run time (Debian: libgssapi-krb5-2)"
    )]
    KerberosNotBuilt,
    /// Kerberos was asked for, but the system's GSSAPI library could not be loaded;
    /// `detail` names the package to install.
    #[error("{detail}")]
    GssapiLibraryMissing {
        /// What was tried, and the package that provides the library.
        detail: String,
    },
}

impl SecureError {
    /// The security error inside a call error, if there is one (handshake errors, and
    /// failures of a secured stream that surface as I/O errors).
    pub fn of(error: &CallError) -> Option<&SecureError> {
        match error {
            CallError::Secure(e) => Some(e),
            CallError::Io(io) => io.get_ref().and_then(|inner| inner.downcast_ref::<SecureError>()),
            _ => None,
        }
    }
}

/// The host part of `host:port` (brackets of an IPv6 literal removed).
fn host_of(addr: &str) -> &str {
    let host = addr.rsplit_once(':').map_or(addr, |(h, _)| h);
    host.trim_start_matches('[').trim_end_matches(']')
}

async fn bounded<T>(
    phase: &'static str,
    addr: &str,
    after: Duration,
    work: impl Future<Output = Result<T, SecureError>>,
) -> Result<T, CallError> {
    match tokio::time::timeout(after, work).await {
        Ok(result) => result.map_err(CallError::Secure),
        Err(_) => Err(CallError::Secure(SecureError::HandshakeTimeout { phase, addr: addr.to_owned(), after })),
    }
}

/// Opens a secured connection over an already-connected TCP socket.
pub(crate) async fn open(tcp: TcpStream, addr: &str, options: ConnectionOptions) -> Result<Connection, CallError> {
    let host = host_of(addr).to_owned();
    let timeout = options.connect_timeout;
    let security = options.security.clone();
    let max_frame = options.max_response_bytes.saturating_add(64 * 1024);
    if security.kerberos.is_some() && !KERBEROS_SUPPORTED {
        // Before any handshake: nothing else about this connection matters.
        return Err(CallError::Secure(SecureError::KerberosNotBuilt));
    }
    if let Some(http_options) = &security.http {
        let kerberos = security.kerberos.as_ref();
        let stream = match &security.tls {
            Some(tls_options) => {
                let tls = bounded("TLS", addr, timeout, tls::handshake(tcp, &host, tls_options)).await?;
                bounded("HTTP", addr, timeout, http::open(tls, addr, &host, http_options, kerberos, max_frame)).await?
            }
            None => {
                bounded("HTTP", addr, timeout, http::open(tcp, addr, &host, http_options, kerberos, max_frame)).await?
            }
        };
        // One HTTP request per call: the framing is HTTP's, the body is unframed.
        let options = ConnectionOptions { framing: Framing::Buffered, ..options };
        return Ok(Connection::from_stream(stream, addr, options));
    }
    if security.kerberos.is_some() && options.framing == Framing::Framed {
        return Err(CallError::Secure(SecureError::Sasl {
            detail: "HBase's Thrift server does not support SASL with the framed transport: use buffered".into(),
        }));
    }
    match (&security.tls, &security.kerberos) {
        (Some(tls_options), Some(krb)) => {
            let tls = bounded("TLS", addr, timeout, tls::handshake(tcp, &host, tls_options)).await?;
            let sasl = bounded("SASL", addr, timeout, sasl::negotiate(tls, &host, krb, max_frame)).await?;
            Ok(Connection::from_stream(sasl, addr, options))
        }
        (Some(tls_options), None) => {
            let tls = bounded("TLS", addr, timeout, tls::handshake(tcp, &host, tls_options)).await?;
            Ok(Connection::from_stream(tls, addr, options))
        }
        (None, Some(krb)) => {
            let sasl = bounded("SASL", addr, timeout, sasl::negotiate(tcp, &host, krb, max_frame)).await?;
            Ok(Connection::from_stream(sasl, addr, options))
        }
        (None, None) => Ok(Connection::from_stream(tcp, addr, options)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_of_addresses() {
        assert_eq!(host_of("localhost:9090"), "localhost");
        assert_eq!(host_of("[::1]:9090"), "::1");
        assert_eq!(host_of("10.0.0.1:9090"), "10.0.0.1");
    }

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
            let options = ConnectionOptions {
                security,
                connect_timeout: Duration::from_millis(300),
                ..ConnectionOptions::default()
            };
            let tcp = TcpStream::connect(&addr).await.unwrap();
            let result = open(tcp, &addr, options).await;
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
