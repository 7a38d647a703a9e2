//! Why a connection could not be secured: one error type for both transports.

use std::time::Duration;

use crate::kerberos::QopChoice;

/// Why a secured connection could not be made or used: TLS, Kerberos (GSSAPI), the
/// SASL exchange, the HTTP transport of a Thrift gateway, or a handshake that did not
/// finish. Never worth retrying as it is, except where the network may be at fault
/// (`Tls`, `Gssapi`, `Sasl`, `HandshakeTimeout`, `Http`).
///
/// Exhaustive on purpose: callers that sort these into retryable and final failures
/// list every case, and a new one fails their build until it is placed.
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
    /// The server refused the SASL exchange with a Java exception (HBase's native RPC).
    #[error("SASL: the server refused the authentication: {class}: {message}")]
    SaslRefused {
        /// The Java exception class the server sent.
        class: String,
        /// Its message.
        message: String,
    },
    /// The SASL exchange failed: the protocol was broken, the server refused (Thrift
    /// gateways say no more than a message), or the connection closed.
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
    #[error("SASL: the server offers {offered}; this client accepts {wanted}")]
    QopMismatch {
        /// The layers offered, by name.
        offered: String,
        /// What the client accepts.
        wanted: QopChoice,
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
    /// A Thrift gateway's HTTP server answered with an error status.
    #[error("HTTP {status}: {detail}")]
    HttpStatus {
        /// The status code.
        status: u16,
        /// What it means here.
        detail: String,
    },
    /// Another failure of a Thrift gateway's HTTP transport.
    #[error("HTTP: {detail}")]
    Http {
        /// hyper's words.
        detail: String,
    },
    /// Kerberos was asked for, but this build has no Kerberos support (see
    /// [`KERBEROS_SUPPORTED`](crate::KERBEROS_SUPPORTED)).
    #[error(
        "Kerberos was asked for, but this build has no Kerberos support: rebuild with the cargo feature \
         `kerberos` (basalt/kerberos, basalt-thrift/kerberos or basalt-rpc/kerberos; for the command line \
         `cargo install basalt-hbase-cli --features kerberos`); it loads the system's GSSAPI library at run time \
         (Debian: libgssapi-krb5-2)"
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

impl SecurityError {
    /// The security error inside `error`, if there is one: a transport's call error
    /// (handshake failures) or an I/O error of a secured stream.
    ///
    /// ```
    /// use basalt_security::SecurityError;
    /// let io = std::io::Error::other(SecurityError::Sasl { detail: "cut".into() });
    /// assert!(matches!(SecurityError::of(&io), Some(SecurityError::Sasl { .. })));
    /// ```
    pub fn of<E: ContainsSecurityError + ?Sized>(error: &E) -> Option<&SecurityError> {
        error.security_error()
    }
}

/// An error that may carry a [`SecurityError`]: the transports' call errors, and the
/// I/O errors a secured stream fails with.
pub trait ContainsSecurityError {
    /// The security error inside, if any.
    fn security_error(&self) -> Option<&SecurityError>;
}

impl ContainsSecurityError for std::io::Error {
    fn security_error(&self) -> Option<&SecurityError> {
        self.get_ref().and_then(|inner| inner.downcast_ref::<SecurityError>())
    }
}

impl ContainsSecurityError for SecurityError {
    fn security_error(&self) -> Option<&SecurityError> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kerberos::Qop;

    #[test]
    fn found_inside_io_errors_and_named_in_words() {
        let inner = SecurityError::Sasl { detail: "x".into() };
        assert_eq!(SecurityError::of(&std::io::Error::other(inner.clone())), Some(&inner));
        assert_eq!(SecurityError::of(&std::io::Error::other("plain")), None);
        let e = SecurityError::QopMismatch { offered: "auth".into(), wanted: QopChoice::AtLeast(Qop::AuthConf) };
        assert_eq!(e.to_string(), "SASL: the server offers auth; this client accepts at least auth-conf");
        assert!(SecurityError::KerberosNotBuilt.to_string().contains("cargo feature `kerberos`"));
    }
}
