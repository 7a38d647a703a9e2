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
//! exist in every build, so code that sets them compiles the same either way.

use std::future::Future;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use crate::tls::{self, TlsOptions};

/// Whether this build of `basalt-rpc` can speak Kerberos (the cargo feature
/// `kerberos`). Without it, a connection asking for Kerberos fails with
/// [`SecurityError::KerberosNotBuilt`].
pub const KERBEROS_SUPPORTED: bool = cfg!(feature = "kerberos");

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

/// Quality of protection of a Kerberos connection: the SASL layer HBase's
/// `hbase.rpc.protection` names `authentication`, `integrity` or `privacy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum Qop {
    /// Authentication only: messages travel as they are (`authentication`).
    #[default]
    Auth,
    /// Every message signed (`integrity`).
    AuthInt,
    /// Every message encrypted (`privacy`).
    AuthConf,
}

impl Qop {
    /// The SASL name: `auth`, `auth-int`, `auth-conf`.
    pub fn as_str(self) -> &'static str {
        match self {
            Qop::Auth => "auth",
            Qop::AuthInt => "auth-int",
            Qop::AuthConf => "auth-conf",
        }
    }

    /// The RFC 4752 security-layer bit.
    // Used by the SASL exchange, which only the `kerberos` feature builds.
    #[cfg_attr(not(feature = "kerberos"), allow(dead_code))]
    pub(crate) fn layer_bit(self) -> u8 {
        match self {
            Qop::Auth => 1,
            Qop::AuthInt => 2,
            Qop::AuthConf => 4,
        }
    }

    /// The layers of a RFC 4752 bit mask, by name (`nothing` when none).
    // Used by the SASL exchange, which only the `kerberos` feature builds.
    #[cfg_attr(not(feature = "kerberos"), allow(dead_code))]
    pub(crate) fn describe_mask(mask: u8) -> String {
        let names: Vec<&str> = [Qop::Auth, Qop::AuthInt, Qop::AuthConf]
            .into_iter()
            .filter(|q| mask & q.layer_bit() != 0)
            .map(Qop::as_str)
            .collect();
        if names.is_empty() {
            "nothing".into()
        } else {
            names.join(", ")
        }
    }
}

/// Which qualities of protection the client accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QopChoice {
    /// The strongest layer the server offers at or above this one (the default, with
    /// [`Qop::Auth`]: whatever the server offers, strongest first).
    AtLeast(Qop),
    /// Exactly this layer; a server that does not offer it is refused.
    Exactly(Qop),
}

impl Default for QopChoice {
    fn default() -> Self {
        QopChoice::AtLeast(Qop::Auth)
    }
}

impl QopChoice {
    /// The weakest layer accepted.
    pub fn weakest(self) -> Qop {
        match self {
            QopChoice::AtLeast(q) | QopChoice::Exactly(q) => q,
        }
    }

    /// The layer chosen from the server's offer (a RFC 4752 bit mask), if one fits.
    // Used by the SASL exchange, which only the `kerberos` feature builds.
    #[cfg_attr(not(feature = "kerberos"), allow(dead_code))]
    pub(crate) fn choose(self, offered: u8) -> Option<Qop> {
        let offers = |q: Qop| offered & q.layer_bit() != 0;
        match self {
            QopChoice::Exactly(q) => offers(q).then_some(q),
            QopChoice::AtLeast(min) => {
                [Qop::AuthConf, Qop::AuthInt, Qop::Auth].into_iter().find(|q| *q >= min && offers(*q))
            }
        }
    }

    /// How the choice reads: `at least auth-int`, `exactly auth`.
    pub fn describe(self) -> String {
        match self {
            QopChoice::AtLeast(q) => format!("at least {}", q.as_str()),
            QopChoice::Exactly(q) => format!("exactly {}", q.as_str()),
        }
    }
}

/// Kerberos settings of a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KerberosOptions {
    /// The qualities of protection accepted. Default: the strongest offered.
    pub qop: QopChoice,
    /// Service part of the servers' principal (`hbase/HOST@REALM`). Default: `hbase`.
    pub service: String,
    /// Host part of the servers' principal; default: the host of each server's address
    /// (HBase's `_HOST`). Set it when every server uses one principal.
    pub server_host: Option<String>,
    /// Client principal whose credentials to use; default: the ticket cache's principal
    /// (`KRB5CCNAME`), or with MIT krb5 a client keytab (`KRB5_CLIENT_KTNAME`).
    pub principal: Option<String>,
}

impl Default for KerberosOptions {
    fn default() -> Self {
        KerberosOptions { qop: QopChoice::default(), service: "hbase".to_owned(), server_host: None, principal: None }
    }
}

impl KerberosOptions {
    /// The GSSAPI host-based service name `service@host` for a server at `host`.
    pub fn target(&self, host: &str) -> String {
        format!("{}@{}", self.service, self.server_host.as_deref().unwrap_or(host))
    }
}

/// Why a secured connection could not be made. Reached through
/// [`RpcError::Security`](crate::RpcError::Security); never retried. Exhaustive, like
/// the Thrift transport's `SecureError`, so that translations between the two list
/// every case.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecurityError {
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
    /// Another TLS failure (protocol, an alert from the server, a plain server, ...).
    #[error("TLS handshake failed: {detail}")]
    Tls {
        /// rustls's words.
        detail: String,
    },
    /// The TLS options are unusable (unreadable CA file, bad key, ...).
    #[error("TLS configuration: {0}")]
    TlsConfig(String),
    /// No Kerberos credentials for the client principal.
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
    /// The server refused the SASL exchange, with its exception.
    #[error("SASL: the server refused the authentication: {class}: {message}")]
    SaslRefused {
        /// The Java exception class the server sent.
        class: String,
        /// Its message.
        message: String,
    },
    /// The SASL exchange broke the protocol, or the server closed the connection.
    #[error("SASL: {detail}")]
    Sasl {
        /// What happened.
        detail: String,
    },
    /// The server does not use Kerberos (it asked to fall back to simple
    /// authentication); refused rather than sending data unauthenticated.
    #[error("SASL: {addr} does not use Kerberos (it asked to fall back to simple authentication); refused")]
    ServerNotSecure {
        /// The server.
        addr: String,
    },
    /// The server offers no quality of protection the client accepts.
    #[error("SASL: the server offers {offered}; this client accepts {}", wanted.describe())]
    QopMismatch {
        /// The layers offered.
        offered: String,
        /// What the client accepts.
        wanted: QopChoice,
    },
    /// A handshake did not finish in time: the server speaks something else.
    #[error("{phase} with {addr} did not complete within {after:?}: the server does not seem to speak {phase} (security mismatch)")]
    HandshakeTimeout {
        /// `TLS` or `SASL`.
        phase: &'static str,
        /// The server.
        addr: String,
        /// The timeout.
        after: Duration,
    },
    /// Kerberos was asked for, but this build has no Kerberos support.
    #[error(
        "Kerberos was asked for, but this build has no Kerberos support: rebuild with the cargo feature \
         `kerberos` (basalt-rpc/kerberos or basalt/kerberos); it loads the system's GSSAPI library at run \
         time (Debian: libgssapi-krb5-2)"
    )]
    KerberosNotBuilt,
    /// The system's GSSAPI library could not be loaded; `detail` names the package.
    #[error("{detail}")]
    GssapiLibraryMissing {
        /// What was tried, and the package that provides the library.
        detail: String,
    },
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

async fn bounded<T>(
    phase: &'static str,
    addr: &str,
    after: Duration,
    work: impl Future<Output = Result<T, SecurityError>>,
) -> Result<T, SecurityError> {
    match tokio::time::timeout(after, work).await {
        Ok(result) => result,
        Err(_) => Err(SecurityError::HandshakeTimeout { phase, addr: addr.to_owned(), after }),
    }
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
        Some(options) => Box::new(bounded("TLS", addr, timeout, tls::handshake(tcp, host, options)).await?),
        None => Box::new(tcp),
    };
    match &security.kerberos {
        None => Ok(Secured { stream, preamble_sent: false }),
        Some(kerberos) => sasl_layer(stream, addr, host, kerberos, timeout, max_frame).await,
    }
}

#[cfg(feature = "kerberos")]
async fn sasl_layer(
    mut stream: Box<dyn RpcStream>,
    addr: &str,
    host: &str,
    kerberos: &KerberosOptions,
    timeout: Duration,
    max_frame: usize,
) -> Result<Secured, SecurityError> {
    let negotiated = bounded("SASL", addr, timeout, crate::sasl::negotiate(&mut stream, addr, host, kerberos)).await?;
    let stream: Box<dyn RpcStream> = match negotiated.qop {
        Qop::Auth => stream,
        Qop::AuthInt | Qop::AuthConf => Box::new(crate::sasl::SaslStream::new(stream, negotiated, max_frame)),
    };
    Ok(Secured { stream, preamble_sent: true })
}

#[cfg(not(feature = "kerberos"))]
async fn sasl_layer(
    _stream: Box<dyn RpcStream>,
    _addr: &str,
    _host: &str,
    _kerberos: &KerberosOptions,
    _timeout: Duration,
    _max_frame: usize,
) -> Result<Secured, SecurityError> {
    Err(SecurityError::KerberosNotBuilt)
}

/// The host part of `host:port` (brackets of an IPv6 literal removed).
pub(crate) fn host_of(addr: &str) -> &str {
    let host = addr.rsplit_once(':').map_or(addr, |(h, _)| h);
    host.trim_start_matches('[').trim_end_matches(']')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_choice_takes_the_strongest_fitting_layer() {
        assert_eq!(QopChoice::default().choose(7), Some(Qop::AuthConf));
        assert_eq!(QopChoice::default().choose(1), Some(Qop::Auth));
        assert_eq!(QopChoice::AtLeast(Qop::AuthInt).choose(3), Some(Qop::AuthInt));
        assert_eq!(QopChoice::AtLeast(Qop::AuthInt).choose(1), None);
        assert_eq!(QopChoice::Exactly(Qop::Auth).choose(7), Some(Qop::Auth));
        assert_eq!(QopChoice::Exactly(Qop::AuthConf).choose(3), None);
        assert_eq!(QopChoice::default().choose(0), None);
    }

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

    #[test]
    fn layers_and_targets_are_named() {
        assert_eq!(Qop::describe_mask(7), "auth, auth-int, auth-conf");
        assert_eq!(Qop::describe_mask(0), "nothing");
        assert_eq!(KerberosOptions::default().target("rs1.example.com"), "hbase@rs1.example.com");
        let fixed = KerberosOptions { server_host: Some("hbase-cluster".into()), ..KerberosOptions::default() };
        assert_eq!(fixed.target("ignored"), "hbase@hbase-cluster");
        assert_eq!(host_of("[::1]:16020"), "::1");
        assert_eq!(host_of("127.0.0.1:16020"), "127.0.0.1");
    }
}
