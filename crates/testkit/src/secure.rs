//! Secured Thrift2 gateways: TLS, Thrift over HTTP(S), and Kerberos (SASL GSSAPI on the
//! socket transport, SPNEGO over HTTP), each against a real server configured that way.
//!
//! [`GatewayLauncher::start_secure`] runs `hbase-local.sh gateway start` with `--tls`,
//! `--http` and `--kerberos QOP` (see `launcher/secure.sh` in this crate): the launcher makes a CA and a
//! server certificate for the run, starts a real MIT KDC with principals and keytabs for
//! the run, and waits until a reference Java client (Apache Thrift's own transports and
//! the JDK's TLS and Kerberos) answers through the gateway. The returned
//! [`SecureGateway`] hands tests what a client needs: the CA file, the TLS host name,
//! the krb5.conf, a ticket cache with a ticket for the client principal, the keytab and
//! the server principal's parts.
//!
//! HBase 2.6's socket Thrift server has no TLS of its own (only its HTTP server does);
//! for `tls` without `http` the launcher puts a TLS terminator (stunnel) in front of the
//! gateway, as production deployments do.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::gateway::{Gateway, GatewayLauncher};
use crate::launcher::{self, GatewaySpec};
use crate::TestkitError;

/// Quality of protection of a Kerberos gateway (`hbase.thrift.security.qop`): the
/// clients' own type, so that a test's mode and its client settings are one value.
pub use basalt_security::Qop;

/// Which security a gateway gets. `Default` is a plain buffered/binary gateway.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SecureMode {
    /// TLS (HTTPS with `http`).
    pub tls: bool,
    /// Thrift over HTTP (binary protocol only).
    pub http: bool,
    /// Kerberos with this quality of protection (SASL GSSAPI, or SPNEGO with `http`).
    pub kerberos: Option<Qop>,
    /// Framed transport (socket only; not with Kerberos).
    pub framed: bool,
    /// Compact protocol (socket only).
    pub compact: bool,
}

impl SecureMode {
    /// A short tag for names and reports, e.g. `tls`, `https`, `krb-auth-conf`.
    pub fn tag(&self) -> String {
        let mut parts = Vec::new();
        match (self.http, self.tls) {
            (true, true) => parts.push("https".to_owned()),
            (true, false) => parts.push("http".to_owned()),
            (false, true) => parts.push("tls".to_owned()),
            (false, false) => {}
        }
        if let Some(qop) = self.kerberos {
            parts.push(format!("krb-{}", qop.as_str()));
        }
        if self.framed {
            parts.push("framed".to_owned());
        }
        if self.compact {
            parts.push("compact".to_owned());
        }
        if parts.is_empty() {
            parts.push("plain".to_owned());
        }
        parts.join("-")
    }

    fn launcher_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if self.tls {
            args.push("--tls".to_owned());
        }
        if self.http {
            args.push("--http".to_owned());
        }
        if let Some(qop) = self.kerberos {
            args.push("--kerberos".to_owned());
            args.push(qop.as_str().to_owned());
        }
        args
    }
}

/// The Kerberos side of a secured gateway: everything a client needs, made for the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KerberosEnv {
    /// The run's `krb5.conf` (point `KRB5_CONFIG` at it).
    pub krb5_config: PathBuf,
    /// A ticket cache holding a ticket for [`client_principal`](Self::client_principal)
    /// (`FILE:...`; point `KRB5CCNAME` at it).
    pub ccache: String,
    /// The realm, e.g. `BASALT.TEST`.
    pub realm: String,
    /// The client principal, e.g. `basalt@BASALT.TEST`.
    pub client_principal: String,
    /// A keytab for the client principal.
    pub client_keytab: PathBuf,
    /// Service part of the server principal (`hbase`; `HTTP` for SPNEGO).
    pub service: String,
    /// Host part of the server principal (the host name the server sees itself as).
    pub server_host: String,
}

/// A secured Thrift2 gateway JVM (plus its TLS terminator, if any), stopped when dropped.
#[derive(Debug)]
pub struct SecureGateway {
    gateway: Gateway,
    mode: SecureMode,
    ca: Option<PathBuf>,
    other_ca: Option<PathBuf>,
    tls_host: Option<String>,
    kerberos: Option<KerberosEnv>,
}

impl SecureGateway {
    /// The gateway's `host:port` (the TLS port when there is a terminator).
    pub fn addr(&self) -> &str {
        self.gateway.addr()
    }

    /// The security it was started with.
    pub fn mode(&self) -> SecureMode {
        self.mode
    }

    /// The run's CA certificate (PEM) that signed the server certificate (TLS modes).
    pub fn ca_file(&self) -> Option<&Path> {
        self.ca.as_deref()
    }

    /// An unrelated CA (PEM), for tests that must see an untrusted certificate.
    pub fn other_ca_file(&self) -> Option<&Path> {
        self.other_ca.as_deref()
    }

    /// The host name the server certificate is for (`localhost`; it also names 127.0.0.1).
    pub fn tls_host(&self) -> Option<&str> {
        self.tls_host.as_deref()
    }

    /// The Kerberos files and names (Kerberos modes).
    pub fn kerberos(&self) -> Option<&KerberosEnv> {
        self.kerberos.as_ref()
    }

    /// The underlying gateway (name, readiness time, stop).
    pub fn gateway(&mut self) -> &mut Gateway {
        &mut self.gateway
    }
}

impl GatewayLauncher {
    /// Starts a secured Thrift2 gateway and waits until a reference Java client answers
    /// through it in that mode. Needs, besides the JDK and Maven: `openssl` (TLS),
    /// `stunnel4` (TLS on the socket transport), MIT Kerberos's `krb5-kdc`,
    /// `krb5-admin-server` and `krb5-user` (Kerberos). The launcher installs the
    /// missing ones with `apt-get` when it runs as root, as it fetches HBase's jars;
    /// otherwise the error names the packages to install.
    pub fn start_secure(&self, mode: &SecureMode) -> Result<SecureGateway, TestkitError> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let name = format!("{}-{}-{n}", mode.tag(), std::process::id());
        let extra = mode.launcher_args();
        #[cfg(feature = "docker")]
        if let Some(slots) = &self.container {
            // In the container; its env names the host's copies of the client's files.
            let (addr, ready_in, env) = slots.start_secure(mode.framed, mode.compact, &name, &extra)?;
            let started = launcher::Started { addr, ready_in };
            let gateway = Gateway::adopt(self.dir.clone(), name.clone(), started, mode.framed, mode.compact);
            return secure_gateway(gateway, mode, &env, &format!("the env of gateway {name} in the container"));
        }
        let started = launcher::start_gateway(&GatewaySpec {
            dir: &self.dir,
            name: &name,
            framed: mode.framed,
            compact: mode.compact,
            heap: &self.heap,
            owner_pid: self.stop_with_process.then(std::process::id),
            timeout: self.ready_timeout,
            extra: &extra,
        })?;
        let gateway = Gateway::adopt(self.dir.clone(), name.clone(), started, mode.framed, mode.compact);
        let env_file = self.dir.join(format!("gateway-{name}.env"));
        let text = std::fs::read_to_string(&env_file)
            .map_err(|e| TestkitError::StartFailed(format!("reading {}: {e}", env_file.display())))?;
        secure_gateway(gateway, mode, &parse_env(&text), &env_file.display().to_string())
    }
}

/// A started secured gateway with what its launcher's env (`source` names it in errors)
/// says a client needs.
fn secure_gateway(
    gateway: Gateway,
    mode: &SecureMode,
    env: &[(String, String)],
    source: &str,
) -> Result<SecureGateway, TestkitError> {
    let get = |key: &str| env.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()).filter(|v| !v.is_empty());
    let need = |key: &str| get(key).ok_or_else(|| TestkitError::StartFailed(format!("{source} has no {key}")));
    let kerberos = match mode.kerberos {
        None => None,
        Some(_) => Some(KerberosEnv {
            krb5_config: need("KRB5_CONFIG")?.into(),
            ccache: need("KRB5CCNAME")?,
            realm: need("REALM")?,
            client_principal: need("CLIENT_PRINCIPAL")?,
            client_keytab: need("CLIENT_KEYTAB")?.into(),
            service: if mode.http { "HTTP".to_owned() } else { need("SERVICE")? },
            server_host: need("SERVER_HOST")?,
        }),
    };
    Ok(SecureGateway {
        gateway,
        mode: *mode,
        ca: get("CA").map(PathBuf::from),
        other_ca: get("OTHER_CA").map(PathBuf::from),
        tls_host: get("TLS_HOST"),
        kerberos,
    })
}

/// What a native RPC client needs to reach an HBase whose own RPC is secured
/// ([`LaunchOptions::secure_rpc`](crate::LaunchOptions::secure_rpc)): Kerberos with
/// every quality of protection offered, and TLS beside plaintext on the same ports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecureRpcEnv {
    /// `host:port` of the region servers (bootstrap servers for a native client).
    pub servers: Vec<String>,
    /// The run's CA certificate (PEM) that signed the servers' certificate.
    pub ca_file: PathBuf,
    /// An unrelated CA (PEM), for tests that must see an untrusted certificate.
    pub other_ca_file: PathBuf,
    /// The name the servers' certificate is for (the RPC host, 127.0.0.1).
    pub tls_host: String,
    /// The KDC's files and the principals.
    pub kerberos: KerberosEnv,
}

/// Reads `DIR/secure-rpc.env`, written by `hbase-local.sh start --secure-rpc`.
pub(crate) fn secure_rpc_env(dir: &Path) -> Result<SecureRpcEnv, TestkitError> {
    let file = dir.join("secure-rpc.env");
    let text = std::fs::read_to_string(&file).map_err(|e| {
        TestkitError::Config(format!("{} is missing ({e}): was this HBase started with secure_rpc?", file.display()))
    })?;
    let env = parse_env(&text);
    let get = |key: &str| env.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()).filter(|v| !v.is_empty());
    let need =
        |key: &str| get(key).ok_or_else(|| TestkitError::StartFailed(format!("{} has no {key}", file.display())));
    let servers: Vec<String> = need("RPC_SERVERS")?.split(',').map(str::to_owned).collect();
    Ok(SecureRpcEnv {
        servers,
        ca_file: need("CA")?.into(),
        other_ca_file: need("OTHER_CA")?.into(),
        tls_host: need("TLS_HOST")?,
        kerberos: KerberosEnv {
            krb5_config: need("KRB5_CONFIG")?.into(),
            ccache: need("KRB5CCNAME")?,
            realm: need("REALM")?,
            client_principal: need("CLIENT_PRINCIPAL")?,
            client_keytab: need("CLIENT_KEYTAB")?.into(),
            service: need("SERVICE")?,
            server_host: need("SERVER_HOST")?,
        },
    })
}

/// `KEY=VALUE` lines; others are ignored.
pub(crate) fn parse_env(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let (key, value) = line.split_once('=')?;
            Some((key.trim().to_owned(), value.trim().to_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_launchers_env_file() {
        let env = parse_env("TLS=true\nQOP=\nCA=/x/pki/ca.crt\nKRB5CCNAME=FILE:/x/krb5/ccache\n\nnoise\n");
        assert_eq!(env.len(), 4);
        assert_eq!(env[2], ("CA".to_owned(), "/x/pki/ca.crt".to_owned()));
        assert_eq!(env[3].1, "FILE:/x/krb5/ccache");
    }

    #[test]
    fn reads_the_secured_rpc_env_and_says_what_is_missing() {
        let dir = std::env::temp_dir().join(format!("basalt-secure-rpc-env-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(secure_rpc_env(&dir).unwrap_err().to_string().contains("secure_rpc"));
        let mut text = String::from("CA=/r/pki/ca.crt\nOTHER_CA=/r/pki/other-ca.crt\nTLS_HOST=127.0.0.1\n");
        text.push_str("KRB5_CONFIG=/r/krb5/krb5.conf\nKRB5CCNAME=FILE:/r/krb5/ccache\nREALM=BASALT.TEST\n");
        text.push_str("CLIENT_PRINCIPAL=basalt@BASALT.TEST\nCLIENT_KEYTAB=/r/krb5/client.keytab\nSERVICE=hbase\n");
        text.push_str("SERVER_HOST=127.0.0.1\n");
        std::fs::write(dir.join("secure-rpc.env"), &text).unwrap();
        assert!(secure_rpc_env(&dir).unwrap_err().to_string().contains("RPC_SERVERS"));
        text.push_str("RPC_SERVERS=127.0.0.1:16020,127.0.0.1:16021\n");
        std::fs::write(dir.join("secure-rpc.env"), &text).unwrap();
        let env = secure_rpc_env(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(env.servers, ["127.0.0.1:16020", "127.0.0.1:16021"]);
        assert_eq!(env.kerberos.server_host, "127.0.0.1");
        assert_eq!(env.ca_file, PathBuf::from("/r/pki/ca.crt"));
    }

    #[test]
    fn mode_tags_and_launcher_args() {
        let mode = SecureMode { tls: true, http: true, kerberos: Some(Qop::AuthConf), ..Default::default() };
        assert_eq!(mode.tag(), "https-krb-auth-conf");
        assert_eq!(mode.launcher_args(), ["--tls", "--http", "--kerberos", "auth-conf"]);
        assert_eq!(SecureMode::default().tag(), "plain");
        assert!(SecureMode::default().launcher_args().is_empty());
    }
}
