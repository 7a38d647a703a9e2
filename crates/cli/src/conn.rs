//! Where the Thrift2 gateway is, and the client built from that.

use std::path::PathBuf;
use std::time::Duration;

use basalt::{Client, DefaultRetryPolicy, Framing, Protocol, RetryDecision, RetryPolicy};
use basalt::{HttpOptions, KerberosOptions, Qop, Security, TlsOptions};
use clap::builder::BoolishValueParser;
use clap::Args;

use crate::error::{is_unreachable, CliError, CliResult};
use crate::keyfmt::parse_duration;

/// Options every command takes to reach HBase.
#[derive(Debug, Clone, Args)]
pub struct ConnOpts {
    /// Thrift2 gateway address, host:port.
    #[arg(long, env = "BASALT_THRIFT_ADDR", global = true, value_name = "HOST:PORT")]
    pub addr: Option<String>,
    /// The gateway uses the framed transport (server's -f).
    #[arg(long, env = "BASALT_THRIFT_FRAMED", global = true, value_parser = BoolishValueParser::new())]
    pub framed: bool,
    /// The gateway uses the compact protocol (server's -c).
    #[arg(long, env = "BASALT_THRIFT_COMPACT", global = true, value_parser = BoolishValueParser::new())]
    pub compact: bool,
    /// How long connecting may take (500ms, 5s, ...).
    #[arg(long, global = true, default_value = "5s", value_parser = parse_duration, value_name = "DURATION")]
    pub connect_timeout: Duration,
    /// How long one call may take.
    #[arg(long, global = true, default_value = "60s", value_parser = parse_duration, value_name = "DURATION")]
    pub request_timeout: Duration,
    /// TLS to the gateway (a TLS terminator in front of it, or HTTPS with --http).
    #[arg(long, env = "BASALT_TLS", global = true, value_parser = BoolishValueParser::new())]
    pub tls: bool,
    /// PEM file of the CA(s) to trust for TLS (default: the system's roots); implies --tls.
    #[arg(long, env = "BASALT_CA", global = true, value_name = "PEM")]
    pub ca: Option<PathBuf>,
    /// Name the server's certificate must carry (and SNI); default: the address's host.
    #[arg(long, env = "BASALT_TLS_SERVER_NAME", global = true, value_name = "NAME")]
    pub tls_server_name: Option<String>,
    /// Client certificate (PEM) for TLS; needs --client-key.
    #[arg(long, global = true, value_name = "PEM", requires = "client_key")]
    pub client_cert: Option<PathBuf>,
    /// Client private key (PEM) for TLS.
    #[arg(long, global = true, value_name = "PEM", requires = "client_cert")]
    pub client_key: Option<PathBuf>,
    /// Thrift over HTTP (the gateway runs with hbase.regionserver.thrift.http).
    #[arg(long, env = "BASALT_HTTP", global = true, value_parser = BoolishValueParser::new())]
    pub http: bool,
    /// Kerberos with this quality of protection: auth, auth-int or auth-conf (SASL
    /// GSSAPI; SPNEGO with --http). The ticket comes from KRB5CCNAME (run kinit).
    /// Needs a basalt built with the cargo feature `kerberos`.
    #[arg(long, env = "BASALT_KERBEROS", global = true, value_name = "QOP", value_parser = parse_qop)]
    pub kerberos: Option<Qop>,
    /// Host part of the gateway's Kerberos principal (service/HOST@REALM); default: the address's host.
    #[arg(long, env = "BASALT_KRB_HOST", global = true, value_name = "HOST")]
    pub krb_host: Option<String>,
    /// Service part of the gateway's Kerberos principal (default: hbase; HTTP with --http).
    #[arg(long, env = "BASALT_KRB_SERVICE", global = true, value_name = "NAME")]
    pub krb_service: Option<String>,
    /// Client principal whose ticket to use (default: the ticket cache's).
    #[arg(long, env = "BASALT_PRINCIPAL", global = true, value_name = "PRINCIPAL")]
    pub principal: Option<String>,
}

fn parse_qop(text: &str) -> Result<Qop, String> {
    text.parse()
}

/// Retries like the default policy, except that a gateway that cannot be connected to
/// fails at once: a CLI should say "unreachable" within the connect timeout.
#[derive(Debug, Default)]
struct CliRetry(DefaultRetryPolicy);

impl RetryPolicy for CliRetry {
    fn decide(&self, attempt: u32, error: &basalt::Error) -> RetryDecision {
        if is_unreachable(error) {
            return RetryDecision::Fail;
        }
        self.0.decide(attempt, error)
    }
}

impl ConnOpts {
    /// The address, or a usage error saying how to give one.
    pub fn require_addr(&self) -> CliResult<&str> {
        self.addr.as_deref().filter(|a| !a.trim().is_empty()).ok_or_else(|| {
            CliError::usage(
                "no HBase address: pass --addr HOST:PORT or set BASALT_THRIFT_ADDR (or run `basalt local start`)",
            )
        })
    }

    /// A client for [`ConnOpts::require_addr`] with `pool` connections.
    pub fn client(&self, pool: usize) -> CliResult<Client> {
        let addr = self.require_addr()?;
        let security = self.security()?;
        let client = builder_for(addr, self.framed, self.compact, self.connect_timeout, self.request_timeout, pool);
        client.security(security).build().map_err(CliError::from)
    }

    /// The TLS / HTTP / Kerberos settings of the flags; `--kerberos` in a build without
    /// Kerberos is a usage error that says how to get it.
    pub fn security(&self) -> CliResult<Security> {
        if self.kerberos.is_some() && !basalt::KERBEROS_SUPPORTED {
            return Err(CliError::usage(KERBEROS_NOT_BUILT));
        }
        let mut security = Security::default();
        if self.tls || self.ca.is_some() || self.tls_server_name.is_some() || self.client_cert.is_some() {
            let mut tls = match &self.ca {
                Some(ca) => TlsOptions::with_ca_file(ca.clone()),
                None => TlsOptions::default(),
            };
            if let Some(name) = &self.tls_server_name {
                tls = tls.server_name(name.clone());
            }
            if let (Some(cert), Some(key)) = (&self.client_cert, &self.client_key) {
                tls = tls.client_cert(cert.clone(), key.clone());
            }
            security.tls = Some(tls);
        }
        if self.http {
            security.http = Some(HttpOptions::default());
        }
        if let Some(qop) = self.kerberos {
            let mut krb = KerberosOptions { qop, ..KerberosOptions::default() };
            krb.server_host = self.krb_host.clone();
            krb.principal = self.principal.clone();
            if let Some(service) = &self.krb_service {
                krb.service = service.clone();
            }
            security.kerberos = Some(krb);
        }
        Ok(security)
    }
}

/// Why `--kerberos` is refused by a build without the `kerberos` feature.
const KERBEROS_NOT_BUILT: &str = "--kerberos: this basalt was built without Kerberos support; \
     rebuild it with the cargo feature `kerberos` (cargo install basalt-cli --features kerberos, or \
     cargo run -p basalt-cli --features kerberos); at run time it loads the system's GSSAPI \
     library (Debian: libgssapi-krb5-2)";

/// A client for one gateway.
pub fn client_for(
    addr: &str,
    framed: bool,
    compact: bool,
    connect_timeout: Duration,
    request_timeout: Duration,
    pool: usize,
) -> CliResult<Client> {
    builder_for(addr, framed, compact, connect_timeout, request_timeout, pool).build().map_err(CliError::from)
}

fn builder_for(
    addr: &str,
    framed: bool,
    compact: bool,
    connect_timeout: Duration,
    request_timeout: Duration,
    pool: usize,
) -> basalt::ClientBuilder {
    Client::builder()
        .address(addr)
        .framing(if framed { Framing::Framed } else { Framing::Buffered })
        .protocol(if compact { Protocol::Compact } else { Protocol::Binary })
        .connect_timeout(connect_timeout)
        .request_timeout(request_timeout)
        .pool_size(pool.max(1))
        .retry_policy(CliRetry::default())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Flags {
        #[command(flatten)]
        conn: ConnOpts,
    }

    fn flags(args: &[&str]) -> ConnOpts {
        Flags::parse_from(std::iter::once("basalt").chain(args.iter().copied())).conn
    }

    /// `--kerberos` is a flag of every build: with Kerberos built in it sets the
    /// options, without it the command is refused with the feature's name (never
    /// silently run without authentication).
    #[test]
    fn kerberos_flag_is_taken_or_refused_by_name() {
        let conn = flags(&["--addr", "h:9090", "--kerberos", "auth-conf", "--krb-host", "gw", "--principal", "me@R"]);
        assert_eq!(conn.kerberos, Some(Qop::AuthConf));
        let result = conn.security();
        assert_eq!(result.is_ok(), basalt::KERBEROS_SUPPORTED, "{result:?}");
        match result {
            Ok(security) => {
                let krb = security.kerberos.expect("Kerberos options");
                assert_eq!(
                    (krb.qop, krb.server_host.as_deref(), krb.principal.as_deref()),
                    (Qop::AuthConf, Some("gw"), Some("me@R"))
                );
            }
            Err(e) => {
                let text = e.to_string();
                assert!(text.contains("cargo feature `kerberos`") && text.contains("--features kerberos"), "{text}");
                assert!(conn.client(1).is_err(), "no client is built without Kerberos");
            }
        }
        // Without --kerberos, every build gives plain TCP.
        assert!(flags(&["--addr", "h:9090"]).security().unwrap().is_plain());
    }
}
