//! TLS for the socket transports and for HTTPS, with rustls (through tokio-rustls) and
//! the `ring` crypto provider: no hand-written crypto.
//!
//! The server is verified against the system's roots (rustls-native-certs) or against
//! the CA certificates of a PEM file; a client certificate is optional; the name sent
//! as SNI and checked against the certificate defaults to the host of the address.

use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, Waker};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{CertificateError, ClientConfig, RootCertStore};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

use crate::secure::SecureError;
use crate::stream::ConnectionStream;

/// TLS settings of a connection. `Default` trusts the system's roots and checks the
/// certificate against the host of the address (a DNS name or an IP address).
///
/// ```
/// use basalt_thrift::TlsOptions;
/// let tls = TlsOptions::with_ca_file("/etc/hbase/ca.pem").server_name("thrift.example.com");
/// assert_eq!(tls.get_server_name(), Some("thrift.example.com"));
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
    /// Trust the CA certificate(s) in this PEM file instead of the system's roots.
    pub fn with_ca_file(ca_file: impl Into<PathBuf>) -> TlsOptions {
        TlsOptions { ca_file: Some(ca_file.into()), ..TlsOptions::default() }
    }

    /// The CA file trusted instead of the system's roots, if any.
    pub fn get_ca_file(&self) -> Option<&std::path::Path> {
        self.ca_file.as_deref()
    }

    /// The name checked against the certificate, if set.
    pub fn get_server_name(&self) -> Option<&str> {
        self.server_name.as_deref()
    }

    /// Sets the name checked against the server's certificate (and sent as SNI).
    pub fn server_name(mut self, name: impl Into<String>) -> TlsOptions {
        self.server_name = Some(name.into());
        self.config = Arc::default();
        self
    }

    /// The client certificate chain and key files presented when asked, if set.
    pub fn get_client_cert(&self) -> Option<(&std::path::Path, &std::path::Path)> {
        self.client_cert.as_ref().map(|(cert, key)| (cert.as_path(), key.as_path()))
    }

    /// Presents this client certificate chain and key (PEM files) when asked.
    pub fn client_cert(mut self, cert_file: impl Into<PathBuf>, key_file: impl Into<PathBuf>) -> TlsOptions {
        self.client_cert = Some((cert_file.into(), key_file.into()));
        self.config = Arc::default();
        self
    }

    /// The rustls client configuration, built on first use.
    fn client_config(&self) -> Result<Arc<ClientConfig>, SecureError> {
        self.config.get_or_init(|| self.build().map(Arc::new)).clone().map_err(SecureError::TlsConfig)
    }

    fn build(&self) -> Result<ClientConfig, String> {
        let mut roots = RootCertStore::empty();
        match &self.ca_file {
            Some(path) => {
                let certs = CertificateDer::pem_file_iter(path)
                    .map_err(|e| format!("cannot read CA file {}: {e}", path.display()))?
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| format!("bad PEM in CA file {}: {e}", path.display()))?;
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
                    return Err(format!(
                        "no usable system root certificate found ({:?}); pass a CA file",
                        found.errors
                    ));
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
                let chain = CertificateDer::pem_file_iter(cert_file)
                    .map_err(|e| format!("cannot read client certificate {}: {e}", cert_file.display()))?
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| format!("bad PEM in {}: {e}", cert_file.display()))?;
                let key = PrivateKeyDer::from_pem_file(key_file)
                    .map_err(|e| format!("cannot read client key {}: {e}", key_file.display()))?;
                builder.with_client_auth_cert(chain, key).map_err(|e| format!("client certificate: {e}"))
            }
        }
    }
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

/// Runs the TLS handshake over a connected socket. `host` is the address's host, used
/// when no server name is set.
pub(crate) async fn handshake(
    tcp: TcpStream,
    host: &str,
    options: &TlsOptions,
) -> Result<TlsStream<TcpStream>, SecureError> {
    let config = options.client_config()?;
    let name = options.server_name.as_deref().unwrap_or(host).to_owned();
    let server_name = ServerName::try_from(name.clone())
        .map_err(|_| SecureError::TlsConfig(format!("'{name}' is not a valid TLS server name")))?;
    TlsConnector::from(config).connect(server_name, tcp).await.map_err(|e| classify(e, &name))
}

/// Turns a failed handshake into the error a user can act on.
fn classify(error: std::io::Error, name: &str) -> SecureError {
    let Some(tls) = error.get_ref().and_then(|inner| inner.downcast_ref::<rustls::Error>()) else {
        return SecureError::Tls { detail: error.to_string() };
    };
    let detail = tls.to_string();
    match tls {
        rustls::Error::InvalidCertificate(cert) => match cert {
            CertificateError::Expired
            | CertificateError::ExpiredContext { .. }
            | CertificateError::NotValidYet
            | CertificateError::NotValidYetContext { .. } => SecureError::CertificateExpired { detail },
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                SecureError::HostNameMismatch { name: name.to_owned(), detail }
            }
            _ => SecureError::UntrustedCertificate { detail },
        },
        _ => SecureError::Tls { detail },
    }
}

impl ConnectionStream for TlsStream<TcpStream> {
    /// Looks at the socket without reading: closed, or bytes nobody asked for (after a
    /// complete reply, that is an alert or garbage), make the connection unusable.
    fn closed_or_unsolicited(&self) -> bool {
        let mut probe = [0u8; 1];
        let mut buf = tokio::io::ReadBuf::new(&mut probe);
        let mut cx = Context::from_waker(Waker::noop());
        match self.get_ref().0.poll_peek(&mut cx, &mut buf) {
            Poll::Pending => false,
            Poll::Ready(Ok(_)) => true,
            Poll::Ready(Err(_)) => true,
        }
    }
}
