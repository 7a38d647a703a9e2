//! Where HBase is (a Thrift2 gateway, and the region servers for native RPC), and the
//! client built from that.

use std::path::PathBuf;
use std::time::Duration;

use basalt::{Client, DefaultRetryPolicy, Framing, HBaseSite, Protocol, RetryDecision, RetryPolicy, SiteRoute};
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
    /// Reads and writes over HBase's native RPC, straight to the region servers:
    /// HOST:PORT[,HOST:PORT...] of region servers or masters to bootstrap from, or
    /// `gateway` to find them through the gateway of --addr. Every command then goes
    /// over native RPC, administration included (namespaces, tables, flush, compact,
    /// split, snapshots, status, ...): no gateway is needed. TLS and Kerberos flags
    /// apply to it.
    #[arg(long, env = "BASALT_NATIVE", global = true, value_name = "SERVERS")]
    pub native: Option<String>,
    /// Native RPC bootstrapped through the cluster's ZooKeeper (HOST:PORT[,...], znodes
    /// under /hbase), for clusters that don't serve the connection registry. Needs a
    /// basalt built with the cargo feature `zookeeper`.
    #[arg(long, env = "BASALT_NATIVE_ZOOKEEPER", global = true, value_name = "QUORUM", conflicts_with = "native")]
    pub native_zookeeper: Option<String>,
    /// With --native-zookeeper, the cluster's parent znode (HBase's
    /// zookeeper.znode.parent; default /hbase).
    #[arg(long, global = true, value_name = "PATH", requires = "native_zookeeper")]
    pub znode_parent: Option<String>,
    /// On native RPC, connect to CONNECT_TO wherever the cluster names ADVERTISED (HBase
    /// in Docker or behind NAT); both host:port, or both a bare host. Repeatable.
    #[arg(long, global = true, value_name = "ADVERTISED=CONNECT_TO", value_parser = parse_address_entry)]
    pub native_address_map: Vec<(String, String)>,
    /// HBase's configuration directory (or its hbase-site.xml): with no --addr and no --native, its
    /// hbase-site.xml says where the cluster is (ZooKeeper quorum, bootstrap servers)
    /// and how to secure native RPC to it (TLS, Kerberos); flags win over it. Default:
    /// /etc/hbase/conf when it has an hbase-site.xml.
    #[arg(long, env = "HBASE_CONF_DIR", global = true, value_name = "DIR")]
    pub conf: Option<PathBuf>,
}

/// How the data commands reach the region servers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Route {
    /// Everything through the gateway.
    Gateway,
    /// Native RPC, bootstrapped from these servers.
    Native(Vec<String>),
    /// Native RPC, bootstrapped from the server of `hbase:meta` that the gateway names.
    NativeViaGateway,
    /// Native RPC, bootstrapped through this ZooKeeper quorum.
    NativeZooKeeper(String),
    /// Native RPC the way this hbase-site.xml says.
    Site(Box<HBaseSite>),
}

impl Route {
    /// Where the commands go, in words.
    pub(crate) fn describe(&self) -> String {
        match self {
            Route::Gateway => "the Thrift2 gateway".to_owned(),
            Route::Native(servers) => format!("bootstrap servers {}", servers.join(",")),
            Route::NativeViaGateway => "region servers found through the gateway".to_owned(),
            Route::NativeZooKeeper(quorum) => format!("ZooKeeper {quorum}"),
            Route::Site(site) => format!("as {} says", site.path().display()),
        }
    }
}

fn parse_address_entry(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((from, to)) if !from.trim().is_empty() && !to.trim().is_empty() => {
            Ok((from.trim().to_owned(), to.trim().to_owned()))
        }
        Some(_) | None => Err(format!("{text:?}: expected ADVERTISED=CONNECT_TO")),
    }
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
                "no HBase address: pass --addr HOST:PORT or set BASALT_THRIFT_ADDR, or --native SERVERS, or \
                 --conf DIR (HBASE_CONF_DIR) with an hbase-site.xml (or run `basalt local start`)",
            )
        })
    }

    /// A client with `pool` connections: through the gateway of --addr, or over native
    /// RPC (--native, --native-zookeeper) for every call, administration included.
    pub async fn client(&self, pool: usize) -> CliResult<Client> {
        let route = self.route()?;
        let security = self.security()?;
        let gateway = self.addr.as_deref().filter(|a| !a.trim().is_empty());
        if route == Route::Gateway || route == Route::NativeViaGateway {
            self.require_addr()?;
        }
        let mut builder =
            builder_for(gateway, self.framed, self.compact, self.connect_timeout, self.request_timeout, pool);
        // Security flags win over a site file's settings; without any, the file's apply.
        if !security.is_plain() {
            builder = builder.security(security);
        }
        // An explicit --native route still takes the security and parent znode of the
        // site file named by --conf / HBASE_CONF_DIR.
        let explicit_native = matches!(route, Route::Native(_) | Route::NativeZooKeeper(_));
        if explicit_native {
            if let Some(dir) = &self.conf {
                builder = builder.site(load_site(dir)?);
            }
        }
        for (advertised, connect_to) in &self.native_address_map {
            builder = builder.native_address_map(advertised.clone(), connect_to.clone());
        }
        builder = match route {
            Route::Gateway => builder,
            Route::Native(servers) => builder.native(servers),
            Route::NativeZooKeeper(quorum) => match &self.znode_parent {
                Some(parent) => builder.native_zookeeper(quorum).native_znode_parent(parent.clone()),
                None => builder.native_zookeeper(quorum),
            },
            Route::NativeViaGateway => builder.native(self.servers_from_gateway().await?),
            Route::Site(site) => builder.site(*site),
        };
        builder.build().map_err(CliError::from)
    }

    /// The way to the region servers the flags ask for, checked.
    pub(crate) fn route(&self) -> CliResult<Route> {
        if let Some(quorum) = &self.native_zookeeper {
            if !cfg!(feature = "zookeeper") {
                return Err(CliError::usage(ZOOKEEPER_NOT_BUILT));
            }
            return Ok(Route::NativeZooKeeper(quorum.trim().to_owned()));
        }
        let Some(native) = self.native.as_deref().map(str::trim).filter(|n| !n.is_empty()) else {
            let has_gateway = self.addr.as_deref().is_some_and(|a| !a.trim().is_empty());
            let site = if has_gateway { None } else { self.site()? };
            let Some(site) = site else {
                if !self.native_address_map.is_empty() {
                    return Err(CliError::usage(
                        "--native-address-map needs --native, --native-zookeeper or an hbase-site.xml (--conf)",
                    ));
                }
                return Ok(Route::Gateway);
            };
            let route = site.native_route().map_err(|e| CliError::usage(e.to_string()))?;
            if matches!(route, SiteRoute::ZooKeeper(_)) && !cfg!(feature = "zookeeper") {
                return Err(CliError::usage(format!(
                    "{}: the cluster is found through ZooKeeper (no hbase.client.bootstrap.servers): {}",
                    site.path().display(),
                    ZOOKEEPER_NOT_BUILT
                )));
            }
            return Ok(Route::Site(Box::new(site)));
        };
        if native == "gateway" {
            return Ok(Route::NativeViaGateway);
        }
        let servers: Vec<String> =
            native.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect();
        if servers.is_empty() {
            return Err(CliError::usage(format!("--native {native:?}: give HOST:PORT[,HOST:PORT...] or `gateway`")));
        }
        Ok(Route::Native(servers))
    }

    /// The site file of --conf / HBASE_CONF_DIR (which must have one), else of
    /// /etc/hbase/conf if it has one.
    fn site(&self) -> CliResult<Option<HBaseSite>> {
        match &self.conf {
            Some(dir) if !dir.as_os_str().is_empty() => load_site(dir).map(Some),
            Some(_) | None => {
                let default = std::path::Path::new(basalt::site::DEFAULT_CONF_DIR);
                if default.join(basalt::site::SITE_FILE).is_file() {
                    load_site(default).map(Some)
                } else {
                    Ok(None)
                }
            }
        }
    }

    /// `host:port` of the region server holding `hbase:meta`, as the gateway reports it:
    /// it serves the connection registry, so native RPC can bootstrap from it.
    async fn servers_from_gateway(&self) -> CliResult<Vec<String>> {
        let addr = self.require_addr()?;
        let gateway = builder_for(Some(addr), self.framed, self.compact, self.connect_timeout, self.request_timeout, 1)
            .security(self.security()?)
            .build()?;
        let meta = gateway.table("hbase:meta")?.region_locations().await?;
        let mut servers: Vec<String> = Vec::new();
        for location in meta {
            let server = match location.port {
                Some(port) if port > 0 => format!("{}:{port}", location.host),
                Some(_) | None => continue,
            };
            if !servers.contains(&server) {
                servers.push(server);
            }
        }
        if servers.is_empty() {
            return Err(CliError::failed(format!(
                "--native gateway: the gateway at {addr} named no server for hbase:meta"
            )));
        }
        Ok(servers)
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

/// The hbase-site.xml of `dir` (or `dir` itself when it is a file), or a usage error
/// naming the file (and line).
fn load_site(dir: &std::path::Path) -> CliResult<HBaseSite> {
    let site = if dir.is_file() { HBaseSite::load(dir) } else { HBaseSite::in_dir(dir) };
    site.map_err(|e| CliError::usage(format!("--conf / HBASE_CONF_DIR: {e}")))
}

/// Why `--kerberos` is refused by a build without the `kerberos` feature.
const KERBEROS_NOT_BUILT: &str = "--kerberos: this basalt was built without Kerberos support; \
     rebuild it with the cargo feature `kerberos` (cargo install basalt-hbase-cli --features kerberos, or \
     cargo run -p basalt-hbase-cli --features kerberos); at run time it loads the system's GSSAPI \
     library (Debian: libgssapi-krb5-2)";

/// Why `--native-zookeeper` is refused by a build without the `zookeeper` feature.
const ZOOKEEPER_NOT_BUILT: &str = "--native-zookeeper: this basalt was built without ZooKeeper support; \
     rebuild it with the cargo feature `zookeeper` (cargo install basalt-hbase-cli --features zookeeper), or give \
     --native the region servers or masters to bootstrap from";

/// A builder with the CLI's retry policy and timeouts, for the gateway at `addr` if any.
fn builder_for(
    addr: Option<&str>,
    framed: bool,
    compact: bool,
    connect_timeout: Duration,
    request_timeout: Duration,
    pool: usize,
) -> basalt::ClientBuilder {
    let builder = match addr {
        Some(addr) => Client::builder().address(addr),
        None => Client::builder(),
    };
    builder
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
                let built = tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(conn.client(1));
                assert!(built.is_err(), "no client is built without Kerberos");
            }
        }
        // Without --kerberos, every build gives plain TCP.
        assert!(flags(&["--addr", "h:9090"]).security().unwrap().is_plain());
    }
}

#[cfg(test)]
mod site_tests {
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

    /// A configuration directory holding `site` as its hbase-site.xml.
    fn conf_dir(name: &str, site: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("basalt-conn-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("hbase-site.xml"), site).unwrap();
        dir
    }

    #[test]
    fn a_site_file_is_the_way_when_no_gateway_or_native_flag_is_given() {
        let good = conf_dir(
            "good",
            "<configuration><property><name>hbase.client.bootstrap.servers</name><value>rs1,rs2:1</value>\
             </property></configuration>",
        );
        let conf = good.to_str().unwrap();
        // The file itself is taken too.
        let file = good.join("hbase-site.xml");
        assert!(matches!(flags(&["--conf", file.to_str().unwrap()]).route().unwrap(), Route::Site(_)));
        let Route::Site(site) = flags(&["--conf", conf]).route().unwrap() else { panic!("not the site's route") };
        assert_eq!(site.native_route().unwrap(), SiteRoute::Bootstrap(vec!["rs1:16020".into(), "rs2:1".into()]));
        // Flags win: a gateway address, or native servers.
        assert_eq!(flags(&["--conf", conf, "--addr", "gw:9090"]).route().unwrap(), Route::Gateway);
        assert_eq!(flags(&["--conf", conf, "--native", "rs9:1"]).route().unwrap(), Route::Native(vec!["rs9:1".into()]));
        let built =
            tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(flags(&["--conf", conf]).client(1));
        assert!(built.is_ok(), "{built:?}");

        // A file that cannot be used is a usage error naming the file and line.
        let bad = conf_dir("bad", "<configuration>\n<property><name>hbase.zookeeper.quorum</name>\n</configuration>");
        let error = flags(&["--conf", bad.to_str().unwrap()]).route().unwrap_err().to_string();
        assert!(error.contains("hbase-site.xml:3:"), "{error}");
        let missing = flags(&["--conf", "/nonexistent-basalt-conf"]).route().unwrap_err().to_string();
        assert!(missing.contains("/nonexistent-basalt-conf/hbase-site.xml"), "{missing}");
        for dir in [good, bad] {
            std::fs::remove_dir_all(dir).unwrap();
        }
    }
}
