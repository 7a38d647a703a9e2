//! Transport security shared by Basalt's two ways to HBase: the Thrift2 gateway
//! (`basalt-thrift`) and HBase's native RPC (`basalt-rpc`). Both secure their
//! connections with the same settings, the same handshakes and the same errors; what
//! differs, the bytes that carry the SASL tokens, stays in each transport.
//!
//! - TLS ([`TlsOptions`], [`handshake`]): rustls with the `ring` provider, the
//!   system's roots or a CA file, an optional client certificate, the name checked
//!   defaulting to the host connected to. A failed handshake says what to fix:
//!   [`SecurityError::UntrustedCertificate`], [`SecurityError::CertificateExpired`],
//!   [`SecurityError::HostNameMismatch`].
//! - Kerberos settings ([`KerberosOptions`], [`Qop`], [`QopChoice`]): the service
//!   principal, the client principal, and which qualities of protection (HBase's
//!   `authentication`, `integrity`, `privacy`) are accepted.
//! - The SASL GSSAPI security layer (RFC 4752): [`negotiate`] runs the exchange over
//!   any transport's framing ([`SaslExchange`]), and [`SaslStream`] signs or encrypts
//!   what follows, frame by frame, every frame bounded before it is buffered.
//!   [`spnego_header`] makes the token of Kerberos over HTTP.
//! - One error type, [`SecurityError`], for every failure of the above, and the helpers
//!   every secured connect uses: [`host_of`], and [`bounded`], which turns a handshake
//!   with a server that speaks something else into
//!   [`SecurityError::HandshakeTimeout`] instead of a hang.
//!
//! # Cargo features
//! - `kerberos` (off by default): GSSAPI through `basalt-gssapi`, which loads the
//!   system's library (MIT krb5 or Heimdal; Debian: `libgssapi-krb5-2`) when a
//!   Kerberos connection is first made; building it needs nothing beyond Rust.
//!   Without it, no GSSAPI code is built; the settings still exist, so code that sets
//!   them compiles the same either way, and [`negotiate`] and [`spnego_header`] fail at
//!   once with [`SecurityError::KerberosNotBuilt`], whose message names the feature.
//!   [`KERBEROS_SUPPORTED`] tells the two builds apart.
//!
//! Applications use these types through the `basalt` client (or `basalt-thrift`,
//! `basalt-rpc`), which re-export them; this crate is the layer under both transports.
//!
//! ```
//! use basalt_security::{KerberosOptions, Qop, SecurityError, TlsOptions, KERBEROS_SUPPORTED};
//! let tls = TlsOptions::with_ca_file("/etc/hbase/ca.pem").server_name("hbase.example.com");
//! let kerberos = KerberosOptions { qop: Qop::AuthConf, ..KerberosOptions::default() };
//! assert_eq!(kerberos.target("rs1.example.com"), "hbase@rs1.example.com");
//! # let _ = tls;
//! if !KERBEROS_SUPPORTED {
//!     assert!(SecurityError::KerberosNotBuilt.to_string().contains("cargo feature `kerberos`"));
//! }
//! ```

mod connect;
mod error;
mod gss;
mod kerberos;
mod sasl;
mod sasl_stream;
mod tls;

pub use connect::{bounded, host_of};
pub use error::{ContainsSecurityError, SecurityError};
pub use gss::spnego_header;
pub use kerberos::{KerberosOptions, Qop, QopChoice, KERBEROS_SUPPORTED};
pub use sasl::{negotiate, Negotiated, SaslExchange};
pub use sasl_stream::{take_frame, FrameError, SaslStream};
pub use tls::{handshake, TlsOptions, TlsStream};
