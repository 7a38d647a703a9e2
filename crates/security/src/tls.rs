//! TLS with rustls and its `ring` crypto provider, through tokio-rustls: no hand-written
//! crypto.
//!
//! The server is verified against the system's roots (rustls-native-certs) or the CA
//! certificates of a PEM file; a client certificate is presented when given; the name
//! checked against the certificate (and sent as SNI) defaults to the host of the
//! address connected to. A failed handshake is sorted into the [`SecurityError`] a user
//! can act on (untrusted, expired, wrong name, other).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{CertificateError, ClientConfig, RootCertStore};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_rustls::TlsConnector;

pub use tokio_rustls::client::TlsStream;

use crate::error::SecurityError;

/// TLS settings of a connection. `Default` trusts the system's roots and checks each
/// server's certificate against the host of its address (a DNS name or an IP address).
///
/// ```
/// use basalt_security::TlsOptions;
/// let tls = TlsOptions::with_ca_file("/etc/hbase/ca.pem").server_name("thrift.example.com");
/// assert_eq!(tls.get_server_name(), Some("thrift.example.com"));
/// assert!(tls.get_client_cert().is_none());
/// ```
#[derive(Clone, Default)]
pub struct TlsOptions {
    ca_file: Option<PathBuf>,
    client_cert: Option<(PathBuf, PathBuf)>,
    server_name: Option<String>,
    /// The rustls configuration, built once from the fields above and shared by clones.
    config: Arc<OnceLock<Result<Arc<ClientConfig>, String>>>,
}

impl TlsOptions {
    /// Trusts the CA certificate(s) of this PEM file instead of the system's roots.
    pub fn with_ca_file(ca_file: impl Into<PathBuf>) -> TlsOptions {
        TlsOptions { ca_file: Some(ca_file.into()), ..TlsOptions::default() }
    }

    /// Checks every server's certificate against this name (and sends it as SNI)
    /// instead of the host of its address: for servers reached by IP address under one
    /// certificate name.
    pub fn server_name(mut self, name: impl Into<String>) -> TlsOptions {
        self.server_name = Some(name.into());
        self.config = Arc::default();
        self
    }

    /// Presents this client certificate chain and key (PEM files) when asked.
    pub fn client_cert(mut self, cert_file: impl Into<PathBuf>, key_file: impl Into<PathBuf>) -> TlsOptions {
        self.client_cert = Some((cert_file.into(), key_file.into()));
        self.config = Arc::default();
        self
    }

    /// The CA file trusted instead of the system's roots, if any.
    pub fn get_ca_file(&self) -> Option<&Path> {
        self.ca_file.as_deref()
    }

    /// The name checked against certificates, if set.
    pub fn get_server_name(&self) -> Option<&str> {
        self.server_name.as_deref()
    }

    /// The client certificate chain and key files presented when asked, if set.
    pub fn get_client_cert(&self) -> Option<(&Path, &Path)> {
        self.client_cert.as_ref().map(|(cert, key)| (cert.as_path(), key.as_path()))
    }

    /// The rustls client configuration, built on first use and shared by clones.
    pub fn client_config(&self) -> Result<Arc<ClientConfig>, SecurityError> {
        self.config.get_or_init(|| self.build().map(Arc::new)).clone().map_err(SecurityError::TlsConfig)
    }

    fn build(&self) -> Result<ClientConfig, String> {
        let mut roots = RootCertStore::empty();
        match &self.ca_file {
            Some(path) => {
                let certs = read_certs(path, "CA file")?;
                if certs.is_empty() {
                    return Err(format!("CA file {} holds no certificate", path.display()));
                }
                for cert in certs {
                    roots.add(cert).map_err(|e| format!("bad CA certificate in {}: {e}", path.display()))?;
                }
            }
            None => {
                let found = rustls_native_certs::load_native_certs();
                let (added, _) = roots.add_parsable_certificates(found.certs);
                if added == 0 {
                    return Err(format!("no usable system root certificate ({:?}); pass a CA file", found.errors));
                }
            }
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS versions: {e}"))?
            .with_root_certificates(roots);
        match &self.client_cert {
            None => Ok(builder.with_no_client_auth()),
            Some((cert_file, key_file)) => {
                let chain = read_certs(cert_file, "client certificate")?;
                let key = PrivateKeyDer::from_pem_file(key_file)
                    .map_err(|e| format!("cannot read client key {}: {e}", key_file.display()))?;
                builder.with_client_auth_cert(chain, key).map_err(|e| format!("client certificate: {e}"))
            }
        }
    }
}

fn read_certs(path: &Path, what: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    CertificateDer::pem_file_iter(path)
        .map_err(|e| format!("cannot read {what} {}: {e}", path.display()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("bad PEM in {what} {}: {e}", path.display()))
}

impl fmt::Debug for TlsOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsOptions")
            .field("ca_file", &self.ca_file)
            .field("client_cert", &self.client_cert)
            .field("server_name", &self.server_name)
            .finish()
    }
}

impl PartialEq for TlsOptions {
    fn eq(&self, other: &Self) -> bool {
        self.ca_file == other.ca_file && self.client_cert == other.client_cert && self.server_name == other.server_name
    }
}

impl Eq for TlsOptions {}

/// Runs the TLS handshake over a connected stream; `host` is the host of the address,
/// checked when no server name is set. Not bounded in time: see
/// [`bounded`](crate::bounded).
pub async fn handshake<IO>(io: IO, host: &str, options: &TlsOptions) -> Result<TlsStream<IO>, SecurityError>
where
    IO: AsyncRead + AsyncWrite + Unpin,
{
    let config = options.client_config()?;
    let name = options.server_name.as_deref().unwrap_or(host).to_owned();
    let server_name = ServerName::try_from(name.clone())
        .map_err(|_| SecurityError::TlsConfig(format!("'{name}' is not a valid TLS server name")))?;
    TlsConnector::from(config).connect(server_name, io).await.map_err(|e| classify(e, &name))
}

/// Turns a failed handshake into the error a user can act on.
fn classify(error: std::io::Error, name: &str) -> SecurityError {
    let Some(tls) = error.get_ref().and_then(|inner| inner.downcast_ref::<rustls::Error>()) else {
        return SecurityError::Tls { detail: error.to_string() };
    };
    let detail = tls.to_string();
    match tls {
        rustls::Error::InvalidCertificate(cert) => match cert {
            CertificateError::Expired
            | CertificateError::ExpiredContext { .. }
            | CertificateError::NotValidYet
            | CertificateError::NotValidYetContext { .. } => SecurityError::CertificateExpired { detail },
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                SecurityError::HostNameMismatch { name: name.to_owned(), detail }
            }
            // Unknown issuer, bad signature, revoked, ...: not to be trusted.
            _ => SecurityError::UntrustedCertificate { detail },
        },
        _ => SecurityError::Tls { detail },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_ca_file_is_a_configuration_error() {
        let options = TlsOptions::with_ca_file("/nonexistent/ca.pem");
        let err = options.client_config().unwrap_err();
        assert!(matches!(&err, SecurityError::TlsConfig(m) if m.contains("/nonexistent/ca.pem")), "{err}");
    }

    #[test]
    fn options_compare_by_their_settings_and_reset_the_built_config() {
        let a = TlsOptions::with_ca_file("/ca.pem").server_name("rs").client_cert("/c", "/k");
        assert_eq!(a, TlsOptions::with_ca_file("/ca.pem").server_name("rs").client_cert("/c", "/k"));
        assert_ne!(a, TlsOptions::with_ca_file("/ca.pem"));
        assert_eq!(a.get_client_cert(), Some((Path::new("/c"), Path::new("/k"))));
        assert!(format!("{a:?}").contains("server_name: Some(\"rs\")"));
    }

    #[tokio::test]
    async fn a_plain_server_fails_the_handshake_with_a_tls_error() {
        use tokio::io::AsyncWriteExt;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            // What a plain server answers to bytes it cannot read: an error frame, then close.
            socket.write_all(b"\x00\x00\x00\x10not a tls record").await.unwrap();
        });
        let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        let err = handshake(tcp, "127.0.0.1", &TlsOptions::default()).await.unwrap_err();
        assert!(matches!(err, SecurityError::Tls { .. } | SecurityError::TlsConfig(_)), "{err:?}");
        server.await.unwrap();
    }
}
