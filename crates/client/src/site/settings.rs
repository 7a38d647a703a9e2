//! What the native transport takes from a site file: the way to the cluster (its
//! connection registry, or ZooKeeper), the parent znode, and TLS and Kerberos.

use crate::{KerberosOptions, Qop, Security, TlsOptions};

use super::{HBaseSite, SiteError};

/// ZooKeeper's client port when the file gives none (HBase's default).
const DEFAULT_ZOOKEEPER_PORT: u16 = 2181;
/// A region server's RPC port (bootstrap servers without one).
const DEFAULT_REGIONSERVER_PORT: u16 = 16020;
/// A master's RPC port (`hbase.masters` without one).
const DEFAULT_MASTER_PORT: u16 = 16000;
/// Most servers in one list (quorum, bootstrap servers, masters).
const MAX_SERVERS: usize = 256;

/// How the native transport finds the cluster, from the site file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SiteRoute {
    /// Ask these servers (`host:port`) for the connection registry:
    /// `hbase.client.bootstrap.servers`, or `hbase.masters` with a registry that
    /// uses them.
    Bootstrap(Vec<String>),
    /// Through this ZooKeeper quorum (`host:port,...`): `hbase.zookeeper.quorum` and
    /// `hbase.zookeeper.property.clientPort` (needs the cargo feature `zookeeper`).
    ZooKeeper(String),
}

impl HBaseSite {
    /// The way to the cluster. `hbase.client.registry.impl` decides when set
    /// (ZooKeeper, `MasterRegistry` through `hbase.masters`, `RpcConnectionRegistry`
    /// through `hbase.client.bootstrap.servers` or else `hbase.masters`); unset, the
    /// bootstrap servers are used when given (no ZooKeeper needed), else ZooKeeper
    /// (`127.0.0.1:2181` when the file names no quorum, as HBase).
    pub fn native_route(&self) -> Result<SiteRoute, SiteError> {
        const REGISTRY: &str = "hbase.client.registry.impl";
        let registry = self.get(REGISTRY)?;
        let registry_class = registry.as_deref().map(|class| class.rsplit('.').next().unwrap_or(class));
        match registry_class {
            None => match self.servers("hbase.client.bootstrap.servers", DEFAULT_REGIONSERVER_PORT)? {
                Some(servers) => Ok(SiteRoute::Bootstrap(servers)),
                None => self.zookeeper_route(),
            },
            Some("ZKConnectionRegistry") => self.zookeeper_route(),
            Some("MasterRegistry") => self.masters(REGISTRY).map(SiteRoute::Bootstrap),
            Some("RpcConnectionRegistry") => {
                match self.servers("hbase.client.bootstrap.servers", DEFAULT_REGIONSERVER_PORT)? {
                    Some(servers) => Ok(SiteRoute::Bootstrap(servers)),
                    None => self.masters(REGISTRY).map(SiteRoute::Bootstrap),
                }
            }
            Some(other) => Err(self.value_error(
                REGISTRY,
                format!(
                    "unknown connection registry {other:?}: ZKConnectionRegistry, MasterRegistry and \
                     RpcConnectionRegistry are understood"
                ),
            )),
        }
    }

    /// The cluster's parent znode (`zookeeper.znode.parent`, default `/hbase`).
    pub fn znode_parent(&self) -> Result<String, SiteError> {
        const KEY: &str = "zookeeper.znode.parent";
        match self.get(KEY)? {
            None => Ok("/hbase".to_owned()),
            Some(parent) if parent.starts_with('/') && !parent.chars().any(char::is_whitespace) => Ok(parent),
            Some(parent) => Err(self.value_error(KEY, format!("{parent:?} is not an absolute ZooKeeper path"))),
        }
    }

    /// TLS and Kerberos for native RPC: TLS when `hbase.client.netty.tls.enabled` is
    /// true (CA from a PEM `hbase.rpc.tls.truststore.location`, client certificate
    /// from a PEM `hbase.rpc.tls.keystore.location`); Kerberos when
    /// `hbase.security.authentication` is `kerberos`, accepting at least the weakest
    /// layer of `hbase.rpc.protection`, with the servers' principal from
    /// `hbase.regionserver.kerberos.principal` / `hbase.master.kerberos.principal` and
    /// the client's from `hbase.client.keytab.principal`. JKS and PKCS12 stores are
    /// refused (convert them to PEM).
    pub fn security(&self) -> Result<Security, SiteError> {
        Ok(Security { tls: self.tls()?, kerberos: self.kerberos()?, http: None })
    }

    fn tls(&self) -> Result<Option<TlsOptions>, SiteError> {
        const ENABLED: &str = "hbase.client.netty.tls.enabled";
        if !self.flag(ENABLED)? {
            return Ok(None);
        }
        let truststore = self.pem_store("hbase.rpc.tls.truststore.location", "hbase.rpc.tls.truststore.type")?;
        let mut tls = match truststore {
            Some(ca) => TlsOptions::with_ca_file(ca),
            None => TlsOptions::default(),
        };
        const KEYSTORE: &str = "hbase.rpc.tls.keystore.location";
        if let Some(keystore) = self.pem_store(KEYSTORE, "hbase.rpc.tls.keystore.type")? {
            if self.get("hbase.rpc.tls.keystore.password")?.is_some() {
                let why = "an encrypted PEM key (hbase.rpc.tls.keystore.password) is not supported: give an \
                           unencrypted key"
                    .to_owned();
                return Err(self.value_error(KEYSTORE, why));
            }
            // HBase's PEM keystore holds the certificate chain and the key in one file.
            tls = tls.client_cert(keystore.clone(), keystore);
        }
        Ok(Some(tls))
    }

    /// A store's location, checked to be PEM (by its type, or else its extension).
    fn pem_store(&self, location_key: &str, type_key: &str) -> Result<Option<String>, SiteError> {
        let Some(location) = self.get(location_key)? else { return Ok(None) };
        let kind = match self.get(type_key)? {
            Some(kind) => kind.to_ascii_uppercase(),
            None => {
                let lower = location.to_ascii_lowercase();
                let ext = lower.rsplit_once('.').map_or("", |(_, ext)| ext);
                match ext {
                    "jks" => "JKS".to_owned(),
                    "p12" | "pfx" => "PKCS12".to_owned(),
                    "bcfks" => "BCFKS".to_owned(),
                    _ => "PEM".to_owned(), // .pem, .crt, .cer, ...: read as PEM
                }
            }
        };
        if kind == "PEM" {
            return Ok(Some(location));
        }
        let why = format!(
            "a {kind} store is not supported: convert it to PEM (e.g. keytool -exportcert -rfc, openssl pkcs12) \
             and set {type_key} to PEM"
        );
        Err(self.value_error(location_key, why))
    }

    fn kerberos(&self) -> Result<Option<KerberosOptions>, SiteError> {
        const AUTH: &str = "hbase.security.authentication";
        let auth = self.get(AUTH)?.map(|a| a.to_ascii_lowercase());
        match auth.as_deref() {
            None | Some("simple") => return Ok(None),
            Some("kerberos") => {}
            Some(other) => {
                return Err(self.value_error(AUTH, format!("{other:?}: simple or kerberos are understood")));
            }
        }
        let mut kerberos = KerberosOptions { qop: self.weakest_qop()?, ..KerberosOptions::default() };
        const RS: &str = "hbase.regionserver.kerberos.principal";
        const MASTER: &str = "hbase.master.kerberos.principal";
        let rs = self.get(RS)?.map(|p| self.server_principal(RS, &p)).transpose()?;
        let master = self.get(MASTER)?.map(|p| self.server_principal(MASTER, &p)).transpose()?;
        if let (Some(rs), Some(master)) = (&rs, &master) {
            if rs != master {
                let why = format!(
                    "the masters' principal ({}/{}) differs from the region servers' ({}/{}) in more than the \
                     host (_HOST): one service and host are used for both",
                    master.0,
                    master.1.as_deref().unwrap_or("_HOST"),
                    rs.0,
                    rs.1.as_deref().unwrap_or("_HOST")
                );
                return Err(self.value_error(MASTER, why));
            }
        }
        if let Some((service, host)) = rs.or(master) {
            kerberos.service = service;
            kerberos.server_host = host;
        }
        kerberos.principal = self.get("hbase.client.keytab.principal")?;
        Ok(Some(kerberos))
    }

    /// The weakest layer of `hbase.rpc.protection` (a list; default authentication).
    fn weakest_qop(&self) -> Result<Qop, SiteError> {
        const KEY: &str = "hbase.rpc.protection";
        let Some(list) = self.get(KEY)? else { return Ok(Qop::Auth) };
        let mut weakest: Option<Qop> = None;
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let qop: Qop = name.to_ascii_lowercase().parse().map_err(|why: String| self.value_error(KEY, why))?;
            weakest = Some(weakest.map_or(qop, |w| w.min(qop)));
        }
        Ok(weakest.unwrap_or(Qop::Auth))
    }

    /// `service/host@REALM` as the service and the host (`None` for `_HOST`: each
    /// server's own).
    fn server_principal(&self, key: &str, principal: &str) -> Result<(String, Option<String>), SiteError> {
        let without_realm = principal.split_once('@').map_or(principal, |(name, _)| name);
        let (service, host) = without_realm.split_once('/').unwrap_or((without_realm, "_HOST"));
        if service.is_empty() || host.is_empty() || principal.chars().any(char::is_whitespace) {
            return Err(self.value_error(key, format!("{principal:?} is not service/host@REALM")));
        }
        let host = if host == "_HOST" { None } else { Some(host.to_owned()) };
        Ok((service.to_owned(), host))
    }

    /// A boolean property (Hadoop's `getBoolean`: true or false, any case; default false).
    fn flag(&self, key: &str) -> Result<bool, SiteError> {
        match self.get(key)?.map(|v| v.to_ascii_lowercase()).as_deref() {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(other) => Err(self.value_error(key, format!("{other:?} is neither true nor false"))),
        }
    }

    fn zookeeper_route(&self) -> Result<SiteRoute, SiteError> {
        const PORT: &str = "hbase.zookeeper.property.clientPort";
        let port = match self.get(PORT)? {
            None => DEFAULT_ZOOKEEPER_PORT,
            Some(port) => port
                .parse::<u16>()
                .ok()
                .filter(|p| *p > 0)
                .ok_or_else(|| self.value_error(PORT, format!("{port:?} is not a port number")))?,
        };
        let quorum = self.servers("hbase.zookeeper.quorum", port)?;
        Ok(SiteRoute::ZooKeeper(quorum.map_or_else(|| format!("127.0.0.1:{port}"), |q| q.join(","))))
    }

    /// `hbase.masters`, required by the registry `registry_key` names.
    fn masters(&self, registry_key: &str) -> Result<Vec<String>, SiteError> {
        self.servers("hbase.masters", DEFAULT_MASTER_PORT)?.ok_or_else(|| {
            let why = "this registry needs hbase.masters (or hbase.client.bootstrap.servers)".to_owned();
            self.value_error(registry_key, why)
        })
    }

    /// A comma-separated list of `host[:port]` as `host:port` (`port` when absent);
    /// `None` when the key is absent or empty.
    fn servers(&self, key: &str, port: u16) -> Result<Option<Vec<String>>, SiteError> {
        let Some(list) = self.get(key)? else { return Ok(None) };
        let mut servers = Vec::new();
        for server in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if servers.len() == MAX_SERVERS {
                return Err(self.value_error(key, format!("more than {MAX_SERVERS} servers")));
            }
            let server = with_port(server, port)
                .ok_or_else(|| self.value_error(key, format!("{server:?} is not host or host:port")))?;
            servers.push(server);
        }
        Ok(if servers.is_empty() { None } else { Some(servers) })
    }
}

/// `server` as `host:port`: as written when it has a port, else with `port`. `None`
/// for what is neither (a bad port, spaces, an empty host).
fn with_port(server: &str, port: u16) -> Option<String> {
    if server.chars().any(|c| c.is_whitespace() || c == '/' || c == '@') {
        return None;
    }
    // [v6]:port, [v6], bare v6 (several colons), host:port, host.
    let (host, written_port) = if let Some(bracketed) = server.strip_prefix('[') {
        let (v6, after) = bracketed.split_once(']')?;
        let port = match after {
            "" => None,
            after => Some(after.strip_prefix(':')?),
        };
        (format!("[{v6}]"), port)
    } else if server.matches(':').count() > 1 {
        (format!("[{server}]"), None)
    } else {
        match server.split_once(':') {
            Some((host, port)) => (host.to_owned(), Some(port)),
            None => (server.to_owned(), None),
        }
    };
    if host.is_empty() || host == "[]" {
        return None;
    }
    let port = match written_port {
        Some(p) => p.parse::<u16>().ok().filter(|p| *p > 0)?,
        None => port,
    };
    Some(format!("{host}:{port}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(properties: &[(&str, &str)]) -> HBaseSite {
        let body: String = properties
            .iter()
            .map(|(k, v)| format!("<property>\n<name>{k}</name>\n<value>{v}</value>\n</property>\n"))
            .collect();
        HBaseSite::parse(&format!("<configuration>\n{body}</configuration>"), "/etc/hbase/conf/hbase-site.xml").unwrap()
    }

    fn value_error(result: Result<impl std::fmt::Debug, SiteError>, key: &str) -> String {
        match result {
            Err(e @ SiteError::Value { .. }) => {
                let text = e.to_string();
                assert!(text.starts_with("/etc/hbase/conf/hbase-site.xml:"), "{text}");
                assert!(text.contains(key), "{text}");
                text
            }
            other => panic!("expected a value error about {key}, got {other:?}"),
        }
    }

    #[test]
    fn the_route_follows_the_registry() {
        let zk = |q: &str| SiteRoute::ZooKeeper(q.to_owned());
        let boot = |s: &[&str]| SiteRoute::Bootstrap(s.iter().map(|s| (*s).to_owned()).collect());
        assert_eq!(site(&[]).native_route().unwrap(), zk("127.0.0.1:2181"));
        let quorum = [("hbase.zookeeper.quorum", "zk1, zk2:2182,,[::1],::2,[::3]:7"), ("x", "y")];
        assert_eq!(site(&quorum).native_route().unwrap(), zk("zk1:2181,zk2:2182,[::1]:2181,[::2]:2181,[::3]:7"));
        let port = [("hbase.zookeeper.quorum", "zk1,zk2"), ("hbase.zookeeper.property.clientPort", "2222")];
        assert_eq!(site(&port).native_route().unwrap(), zk("zk1:2222,zk2:2222"));
        let both = [("hbase.zookeeper.quorum", "zk1"), ("hbase.client.bootstrap.servers", "rs1,rs2:1")];
        assert_eq!(site(&both).native_route().unwrap(), boot(&["rs1:16020", "rs2:1"]));
        let forced_zk = [
            ("hbase.client.bootstrap.servers", "rs1"),
            ("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.ZKConnectionRegistry"),
        ];
        assert_eq!(site(&forced_zk).native_route().unwrap(), zk("127.0.0.1:2181"));
        let masters = [
            ("hbase.masters", "m1,m2:1600"),
            ("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.MasterRegistry"),
        ];
        assert_eq!(site(&masters).native_route().unwrap(), boot(&["m1:16000", "m2:1600"]));
        let rpc = [("hbase.masters", "m1"), ("hbase.client.registry.impl", "RpcConnectionRegistry")];
        assert_eq!(site(&rpc).native_route().unwrap(), boot(&["m1:16000"]));
        let none = [("hbase.client.registry.impl", "MasterRegistry")];
        value_error(site(&none).native_route(), "hbase.client.registry.impl");
        let unknown = [("hbase.client.registry.impl", "com.example.Mine")];
        value_error(site(&unknown).native_route(), "Mine");
    }

    #[test]
    fn bad_servers_and_ports_are_value_errors_naming_their_line() {
        let bad_port = [("a", "b"), ("hbase.zookeeper.property.clientPort", "21x")];
        let text = value_error(site(&bad_port).native_route(), "clientPort");
        assert!(text.contains(":6:"), "the property's line: {text}");
        for bad in ["zk1:99999", "zk 1", "zk1:", ":2181", "[::1", "[::1]x", "a/b", "[]:1", "zk:0"] {
            let quorum = [("hbase.zookeeper.quorum", bad)];
            value_error(site(&quorum).native_route(), "hbase.zookeeper.quorum");
        }
        let many = vec!["zk"; MAX_SERVERS + 1].join(",");
        value_error(site(&[("hbase.client.bootstrap.servers", &many)]).native_route(), "more than");
        assert_eq!(site(&[]).znode_parent().unwrap(), "/hbase");
        assert_eq!(site(&[("zookeeper.znode.parent", "/hbase-unsecure")]).znode_parent().unwrap(), "/hbase-unsecure");
        value_error(site(&[("zookeeper.znode.parent", "hbase")]).znode_parent(), "zookeeper.znode.parent");
    }

    #[test]
    fn kerberos_settings() {
        assert!(site(&[("hbase.security.authentication", "simple")]).security().unwrap().is_plain());
        let secure = site(&[
            ("hbase.security.authentication", "Kerberos"),
            ("hbase.rpc.protection", "privacy, integrity"),
            ("hbase.regionserver.kerberos.principal", "hbase/_HOST@EXAMPLE.COM"),
            ("hbase.master.kerberos.principal", "hbase/_HOST@EXAMPLE.COM"),
            ("hbase.client.keytab.principal", "app@EXAMPLE.COM"),
        ]);
        let krb = secure.security().unwrap().kerberos.unwrap();
        assert_eq!(krb.qop, Qop::AuthInt);
        assert!(!krb.exact_qop);
        assert_eq!(
            (krb.service.as_str(), krb.server_host, krb.principal.as_deref()),
            ("hbase", None, Some("app@EXAMPLE.COM"))
        );
        let fixed = site(&[
            ("hbase.security.authentication", "kerberos"),
            ("hbase.regionserver.kerberos.principal", "hb/gw.example.com@R"),
        ]);
        let krb = fixed.security().unwrap().kerberos.unwrap();
        assert_eq!(
            (krb.qop, krb.service.as_str(), krb.server_host.as_deref()),
            (Qop::Auth, "hb", Some("gw.example.com"))
        );
        let differ = site(&[
            ("hbase.security.authentication", "kerberos"),
            ("hbase.regionserver.kerberos.principal", "hbase/_HOST@R"),
            ("hbase.master.kerberos.principal", "master/_HOST@R"),
        ]);
        value_error(differ.security(), "hbase.master.kerberos.principal");
        let bad_qop = site(&[("hbase.security.authentication", "kerberos"), ("hbase.rpc.protection", "secret")]);
        value_error(bad_qop.security(), "hbase.rpc.protection");
        let bad_auth = site(&[("hbase.security.authentication", "token")]);
        value_error(bad_auth.security(), "hbase.security.authentication");
        let bad_principal =
            site(&[("hbase.security.authentication", "kerberos"), ("hbase.regionserver.kerberos.principal", "/h@R")]);
        value_error(bad_principal.security(), "principal");
    }

    #[test]
    fn tls_settings() {
        assert!(site(&[("hbase.rpc.tls.truststore.location", "/ca.pem")]).security().unwrap().tls.is_none());
        let tls = site(&[
            ("hbase.client.netty.tls.enabled", "TRUE"),
            ("hbase.rpc.tls.truststore.location", "/etc/hbase/ca.pem"),
            ("hbase.rpc.tls.keystore.location", "/etc/hbase/client.pem"),
            ("hbase.rpc.tls.keystore.type", "pem"),
        ]);
        let options = tls.security().unwrap().tls.unwrap();
        assert_eq!(options.get_ca_file(), Some(std::path::Path::new("/etc/hbase/ca.pem")));
        let client = options.get_client_cert().map(|(c, k)| (c.to_owned(), k.to_owned()));
        let pem = std::path::PathBuf::from("/etc/hbase/client.pem");
        assert_eq!(client, Some((pem.clone(), pem)));
        let system_roots = site(&[("hbase.client.netty.tls.enabled", "true")]).security().unwrap().tls.unwrap();
        assert_eq!(system_roots.get_ca_file(), None);
        let jks = site(&[
            ("hbase.client.netty.tls.enabled", "true"),
            ("hbase.rpc.tls.truststore.location", "/etc/hbase/trust.jks"),
        ]);
        assert!(value_error(jks.security(), "truststore").contains("JKS"));
        let p12 = site(&[
            ("hbase.client.netty.tls.enabled", "true"),
            ("hbase.rpc.tls.keystore.location", "/k.pem"),
            ("hbase.rpc.tls.keystore.type", "PKCS12"),
        ]);
        assert!(value_error(p12.security(), "keystore").contains("PKCS12"));
        let encrypted = site(&[
            ("hbase.client.netty.tls.enabled", "true"),
            ("hbase.rpc.tls.keystore.location", "/k.pem"),
            ("hbase.rpc.tls.keystore.password", "secret"),
        ]);
        value_error(encrypted.security(), "encrypted");
        value_error(site(&[("hbase.client.netty.tls.enabled", "yes")]).security(), "tls.enabled");
    }
}
