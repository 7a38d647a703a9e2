//! One way for Basalt's tests, examples and CLI to get a real HBase with its Thrift2
//! gateway.
//!
//! [`HBase::from_env_or_start`] looks, in order, for
//! 1. an existing gateway named in `BASALT_THRIFT_ADDR` (`host:port`; set
//!    `BASALT_THRIFT_FRAMED=1` / `BASALT_THRIFT_COMPACT=1` to match its transport);
//! 2. with the `docker` cargo feature, when `BASALT_TESTKIT_DOCKER=1`: a container of the
//!    image built from `docker/Dockerfile` (`docker/engine.sh images`; override with
//!    `BASALT_DOCKER_IMAGE`), run through `testcontainers` with the launch options'
//!    settings and removed when dropped (no engine or no image is an error, not a
//!    fallback; `BASALT_DOCKER_STARTUP_TIMEOUT` seconds, default 600);
//! 3. the native launcher (`launcher/hbase-local.sh` in this crate): standalone HBase 2.6 and the Thrift2
//!    server in two JVMs from Maven Central's jars, on free ports, in a fresh directory.
//!    It needs a JDK 17 and Maven; when one is missing, the error says what to install.
//!
//! A launched HBase is stopped by pid when its [`HBase`] value is dropped, and also, via
//! a watchdog, when the owning process dies without dropping it (a panic that aborts,
//! a SIGKILL): no JVM outlives the run that started it.
//!
//! A launched HBase can also serve extra Thrift2 gateways with other transports
//! ([`HBase::start_gateway`]), e.g. to test a client against framed and compact
//! servers; each is stopped with its [`Gateway`] value or with the HBase.
//!
//! It can also run extra region servers, each a JVM of its own
//! ([`HBase::region_servers`]), that a test kills (a crash the master recovers from) or
//! replaces, while the local cluster's own region servers stay.
//!
//! ```no_run
//! use basalt_testkit::{HBase, LaunchOptions};
//! let hbase = HBase::from_env_or_start(&LaunchOptions::default())?;
//! println!("Thrift2 at {}", hbase.addr());
//! # Ok::<(), basalt_testkit::TestkitError>(())
//! ```

#[cfg(feature = "docker")]
mod docker;
mod gateway;
mod launcher;
mod regionserver;
mod secure;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use gateway::{Gateway, GatewayLauncher};
pub use launcher::{launcher_dir, upstream_idl};
pub use regionserver::{RegionServer, RegionServerLauncher};
pub use secure::{KerberosEnv, Qop, SecureGateway, SecureMode, SecureRpcEnv};

/// Environment variable naming an existing Thrift2 gateway (`host:port`).
pub const ADDR_ENV: &str = "BASALT_THRIFT_ADDR";
/// Set to `1` when the gateway in [`ADDR_ENV`] uses the framed transport.
pub const FRAMED_ENV: &str = "BASALT_THRIFT_FRAMED";
/// Set to `1` when the gateway in [`ADDR_ENV`] uses the compact protocol.
pub const COMPACT_ENV: &str = "BASALT_THRIFT_COMPACT";

/// Why no HBase could be had.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TestkitError {
    /// A tool the native launcher needs is missing; the message says what to install.
    #[error("{0}")]
    MissingTool(String),
    /// The launcher ran but HBase did not come up; the message has the launcher's words
    /// and where the logs are.
    #[error("the local HBase did not start: {0}")]
    StartFailed(String),
    /// Stopping the JVMs failed.
    #[error("the local HBase did not stop: {0}")]
    StopFailed(String),
    /// An environment variable or option is invalid.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// Reading or writing the launcher's files failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// Options for a natively launched HBase. `Default` gives a buffered/binary gateway on
/// a free port, 60 s scanner expiry and idle timeout, 1 GiB heaps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchOptions {
    /// Thrift2 port; `None` picks a free one.
    pub thrift_port: Option<u16>,
    /// Framed transport (the server's `-f`).
    pub framed: bool,
    /// Compact protocol (the server's `-c`).
    pub compact: bool,
    /// Server-side scanner expiry (`hbase.client.scanner.timeout.period`).
    pub scanner_timeout: Duration,
    /// The Thrift2 server closes connections idle this long
    /// (`hbase.thrift.server.socket.read.timeout`).
    pub idle_timeout: Duration,
    /// Heap of each JVM, e.g. `"1g"`.
    pub heap: String,
    /// How long to wait for HBase to answer a Thrift2 call.
    pub ready_timeout: Duration,
    /// Run directory; `None` makes a fresh temporary one, removed on stop.
    pub dir: Option<PathBuf>,
    /// Stop the JVMs when this process exits (watchdog). `true` for tests; the CLI's
    /// `local start` sets it to `false` so HBase outlives the command.
    pub stop_with_process: bool,
    /// Region servers in the master's JVM (HBase's local cluster), 1 to 9; several let
    /// tests move regions between servers ([`HBase::region_tool`]). Default 1.
    pub region_servers: u32,
    /// Secure HBase's own RPC: Kerberos (every quality of protection offered) and TLS
    /// beside plaintext, with a KDC and certificates made for the run; the Thrift2
    /// gateway stays plain. What a native client needs: [`HBase::secure_rpc`]. Native
    /// launcher only. Default `false`.
    pub secure_rpc: bool,
    /// Start the Thrift2 gateway. Default `true`; `false` starts HBase alone (native
    /// launcher only): [`HBase::addr`] is then empty, and a native client finds the
    /// cluster from [`HBase::conf_dir`] (its `hbase-site.xml`, as `HBASE_CONF_DIR`).
    pub gateway: bool,
    /// More `hbase-site.xml` properties, `(name, value)`, written after the launcher's
    /// own (a later one wins: the same name overrides the launcher's value), on both
    /// routes: a quota switched on, a tiny call queue. Names are letters, digits, `.`,
    /// `_` and `-`; values have no `<`, `>`, `&`, quote or control character (see
    /// [`check_site_property`]). Default none.
    pub site_properties: Vec<(String, String)>,
    /// Every JVM of the run (extra gateways and region servers too) compiles with C1
    /// only (`-XX:TieredStopAtLevel=1`): about half the CPU to start and a little slower
    /// once hot, the right trade for a test bed (a test suite starts dozens of JVMs) and
    /// the wrong one for a benchmark. On both routes. Default `false`.
    pub quick_jit: bool,
}

/// Whether `(name, value)` may be written into `hbase-site.xml` as given: a name of
/// letters, digits, `.`, `_`, `-`; a value of at most 4096 printable ASCII characters
/// without `<`, `>`, `&`, quotes or `|` (the launcher writes both as they are, inside
/// one line); an error saying which property is wrong otherwise.
pub fn check_site_property(name: &str, value: &str) -> Result<(), TestkitError> {
    let name_ok = !name.is_empty()
        && name.len() <= 256
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    let value_ok = value.len() <= 4096
        && value
            .bytes()
            .all(|b| (b.is_ascii_graphic() || b == b' ') && !matches!(b, b'<' | b'>' | b'&' | b'"' | b'\'' | b'|'));
    if name_ok && value_ok {
        Ok(())
    } else {
        Err(TestkitError::Config(format!(
            "site property {name:?} = {value:?}: names are letters, digits, '.', '_', '-'; values are printable ASCII \
             without < > & quotes or |"
        )))
    }
}

/// The launcher's `start` arguments for `options`' extra site properties: `--site
/// NAME=VALUE` each, checked first.
pub(crate) fn site_args(options: &LaunchOptions) -> Result<Vec<String>, TestkitError> {
    let mut args = Vec::with_capacity(options.site_properties.len() * 2);
    for (name, value) in &options.site_properties {
        check_site_property(name, value)?;
        args.push("--site".to_owned());
        args.push(format!("{name}={value}"));
    }
    Ok(args)
}

impl Default for LaunchOptions {
    fn default() -> Self {
        LaunchOptions {
            thrift_port: None,
            framed: false,
            compact: false,
            scanner_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(60),
            heap: "1g".to_owned(),
            ready_timeout: Duration::from_secs(240),
            dir: None,
            stop_with_process: true,
            region_servers: 1,
            secure_rpc: false,
            gateway: true,
            site_properties: Vec::new(),
            quick_jit: false,
        }
    }
}

/// Where the HBase came from.
#[derive(Debug)]
enum Source {
    /// An existing gateway: never stopped by us.
    External,
    /// A container, removed on stop or drop.
    #[cfg(feature = "docker")]
    Docker(Box<docker::DockerHBase>),
    /// Launched by us; stopped by pid on drop.
    Native { dir: PathBuf, remove_dir: bool, stopped: bool, gateways: Box<GatewayLauncher> },
}

/// A reachable HBase Thrift2 gateway, stopped on drop if this process launched it.
#[derive(Debug)]
pub struct HBase {
    addr: String,
    framed: bool,
    compact: bool,
    ready_in: Option<Duration>,
    source: Source,
}

impl HBase {
    /// An existing gateway from [`ADDR_ENV`]; else, with the `docker` feature, a
    /// container when `BASALT_TESTKIT_DOCKER=1`; else a natively launched one.
    pub fn from_env_or_start(options: &LaunchOptions) -> Result<HBase, TestkitError> {
        if let Some(hbase) = HBase::from_env()? {
            return Ok(hbase);
        }
        #[cfg(feature = "docker")]
        if docker::wanted()? {
            if !options.gateway {
                return Err(TestkitError::Config("an HBase without its gateway is launched natively only".into()));
            }
            let started = docker::start(options)?;
            return Ok(HBase {
                addr: started.addr.clone(),
                framed: options.framed,
                compact: options.compact,
                ready_in: Some(started.ready_in),
                source: Source::Docker(Box::new(started)),
            });
        }
        #[cfg(not(feature = "docker"))]
        if env_flag("BASALT_TESTKIT_DOCKER")? {
            return Err(TestkitError::Config(
                "BASALT_TESTKIT_DOCKER=1 needs basalt-testkit's `docker` feature (integration tests: \
                 cargo test -p basalt-integration --features docker)"
                    .into(),
            ));
        }
        HBase::start(options)
    }

    /// The gateway named in [`ADDR_ENV`], if set.
    pub fn from_env() -> Result<Option<HBase>, TestkitError> {
        let Ok(addr) = std::env::var(ADDR_ENV) else {
            return Ok(None);
        };
        if !addr.contains(':') {
            return Err(TestkitError::Config(format!("{ADDR_ENV}={addr:?} is not host:port")));
        }
        Ok(Some(HBase {
            addr,
            framed: env_flag(FRAMED_ENV)?,
            compact: env_flag(COMPACT_ENV)?,
            ready_in: None,
            source: Source::External,
        }))
    }

    /// Launches a standalone HBase and its Thrift2 server, waiting until a Thrift2 call
    /// answers.
    pub fn start(options: &LaunchOptions) -> Result<HBase, TestkitError> {
        let (dir, remove_dir) = match &options.dir {
            Some(dir) => (dir.clone(), false),
            None => (launcher::fresh_run_dir()?, true),
        };
        let started = launcher::start(&dir, options)?;
        // Without a gateway the launcher prints the conf directory, not an address.
        let addr = if options.gateway { started.addr } else { String::new() };
        let gateways = Box::new(GatewayLauncher {
            dir: dir.clone(),
            heap: options.heap.clone(),
            stop_with_process: options.stop_with_process,
            ready_timeout: options.ready_timeout,
            #[cfg(feature = "docker")]
            container: None,
        });
        Ok(HBase {
            addr,
            framed: options.framed,
            compact: options.compact,
            ready_in: Some(started.ready_in),
            source: Source::Native { dir, remove_dir, stopped: false, gateways },
        })
    }

    /// The gateway's `host:port`.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// Whether the gateway uses the framed transport.
    pub fn framed(&self) -> bool {
        self.framed
    }

    /// Whether the gateway uses the compact protocol.
    pub fn compact(&self) -> bool {
        self.compact
    }

    /// How long the launch took from start to the first answered call (launched only).
    pub fn ready_in(&self) -> Option<Duration> {
        self.ready_in
    }

    /// The launched HBase's configuration directory (`hbase-site.xml`: what a native
    /// client needs, as `HBASE_CONF_DIR`); `None` for an external or containerised HBase.
    pub fn conf_dir(&self) -> Option<PathBuf> {
        self.run_dir().map(|dir| dir.join("conf"))
    }

    /// The run directory (conf, data, logs) of a launched HBase.
    pub fn run_dir(&self) -> Option<&Path> {
        match &self.source {
            Source::Native { dir, .. } => Some(dir),
            _ => None,
        }
    }

    /// Starts an extra Thrift2 gateway against this HBase with the given transport
    /// (`framed`: the server's `-f`) and protocol (`compact`: `-c`), and waits until a
    /// real call answers through it. Only for a launched HBase: for an external one
    /// (`BASALT_THRIFT_ADDR`) this fails with [`TestkitError::Config`].
    pub fn start_gateway(&self, framed: bool, compact: bool) -> Result<Gateway, TestkitError> {
        self.gateways()?.start(framed, compact)
    }

    /// A handle that starts extra gateways, for starting several in parallel threads
    /// (see [`HBase::start_gateway`]).
    pub fn gateways(&self) -> Result<GatewayLauncher, TestkitError> {
        match &self.source {
            Source::Native { stopped: false, gateways, .. } => Ok(GatewayLauncher::clone(gateways)),
            Source::Native { stopped: true, .. } => {
                Err(TestkitError::Config("this HBase was stopped; no gateway can be started against it".into()))
            }
            #[cfg(feature = "docker")]
            Source::Docker(container) => Ok(GatewayLauncher {
                dir: PathBuf::from("/data"),
                heap: "512m".to_owned(),
                stop_with_process: true,
                ready_timeout: Duration::from_secs(300),
                container: Some(container.gateways.clone()),
            }),
            _ => Err(TestkitError::Config(format!(
                "extra Thrift2 gateways need an HBase launched by basalt-testkit (natively or in Docker); the \
                 one at {} is external (unset {ADDR_ENV} to launch one)",
                self.addr
            ))),
        }
    }

    /// What a native RPC client needs to reach an HBase launched with
    /// [`LaunchOptions::secure_rpc`]: its region servers, CA, KDC files and principals.
    pub fn secure_rpc(&self) -> Result<SecureRpcEnv, TestkitError> {
        match &self.source {
            Source::Native { dir, stopped: false, .. } => secure::secure_rpc_env(dir),
            _ => Err(TestkitError::Config(
                "a secured RPC needs an HBase launched natively by basalt-testkit with secure_rpc".into(),
            )),
        }
    }

    /// A handle that starts extra region servers in this HBase, each a JVM of its own
    /// that a test can kill (a crash) or stop; the local cluster's own region servers
    /// are untouched. Only for a launched HBase (natively or in a container).
    pub fn region_servers(&self) -> Result<RegionServerLauncher, TestkitError> {
        match &self.source {
            Source::Native { dir, stopped: false, gateways, .. } => Ok(RegionServerLauncher {
                dir: dir.clone(),
                heap: "512m".to_owned(),
                stop_with_process: gateways.stop_with_process,
                ready_timeout: gateways.ready_timeout,
                #[cfg(feature = "docker")]
                container: None,
            }),
            #[cfg(feature = "docker")]
            Source::Docker(container) => Ok(RegionServerLauncher {
                dir: PathBuf::from("/data"),
                heap: "512m".to_owned(),
                stop_with_process: true,
                ready_timeout: Duration::from_secs(300),
                container: Some(container.gateways.clone()),
            }),
            _ => Err(TestkitError::Config(format!(
                "extra region servers need an HBase launched by basalt-testkit (natively or in Docker); the one at {} \
                 is external or stopped",
                self.addr
            ))),
        }
    }

    /// The command running the launcher's `RegionTool.java` against this HBase (launched only,
    /// natively or in a container, where it runs through `docker exec -i`): it reads
    /// `servers`, `regions T`, `move T`, `split T KEYHEX`, `balancer on|off` lines on
    /// stdin and answers one `ok ...` / `err ...` line each (see its header).
    pub fn region_tool(&self) -> Result<std::process::Command, TestkitError> {
        match &self.source {
            Source::Native { dir, stopped: false, .. } => launcher::region_tool(dir),
            #[cfg(feature = "docker")]
            Source::Docker(container) => Ok(container.region_tool()),
            _ => Err(TestkitError::Config("the region tool needs an HBase launched by basalt-testkit".into())),
        }
    }

    /// The ZooKeeper quorum (`host:port`) of a launched HBase, from the
    /// `hbase.zookeeper.quorum` and `hbase.zookeeper.property.clientPort` of its
    /// `conf/hbase-site.xml` (in a container: the container's address on Docker's
    /// network, as for the region servers); an error for an external HBase.
    pub fn zookeeper_quorum(&self) -> Result<String, TestkitError> {
        let site = match &self.source {
            Source::Native { dir, stopped: false, .. } => {
                std::fs::read_to_string(dir.join("conf").join("hbase-site.xml"))?
            }
            #[cfg(feature = "docker")]
            Source::Docker(container) => container.site_xml()?,
            _ => {
                return Err(TestkitError::Config(
                    "the ZooKeeper quorum is known only for an HBase launched by basalt-testkit".into(),
                ))
            }
        };
        let property = |name: &str| {
            site_property(&site, name)
                .ok_or_else(|| TestkitError::Config(format!("{name} is not in the HBase's hbase-site.xml")))
        };
        let host = property("hbase.zookeeper.quorum")?;
        let port = property("hbase.zookeeper.property.clientPort")?;
        if host.contains(',') || port.parse::<u16>().is_err() {
            return Err(TestkitError::Config(format!("unexpected ZooKeeper settings: quorum {host:?}, port {port:?}")));
        }
        Ok(format!("{host}:{port}"))
    }

    /// Peak resident memory (`VmHWM`, in bytes) of each running JVM of a launched HBase:
    /// `master` (master, region server and ZooKeeper), `thrift`, and `gateway-NAME` per
    /// extra gateway. Empty for an external HBase, after stop, or off Linux.
    pub fn jvm_peak_rss(&self) -> Vec<(String, u64)> {
        match &self.source {
            Source::Native { dir, stopped: false, .. } => gateway::jvm_peak_rss(dir),
            _ => Vec::new(),
        }
    }

    /// Lets a launched HBase outlive this value (for `basalt local start`): dropping it
    /// no longer stops the JVMs; stop them later with `hbase-local.sh stop --dir`.
    /// Launch with `stop_with_process: false`, or the watchdog still stops them when
    /// this process exits.
    pub fn detach(mut self) -> String {
        if let Source::Native { stopped, .. } = &mut self.source {
            *stopped = true;
        }
        self.addr.clone()
    }

    /// Stops a launched HBase by pid (TERM, then KILL), with its extra gateways; a
    /// no-op for an external one.
    pub fn stop(&mut self) -> Result<(), TestkitError> {
        #[cfg(feature = "docker")]
        if let Source::Docker(container) = &mut self.source {
            return container.stop();
        }
        if let Source::Native { dir, remove_dir, stopped, .. } = &mut self.source {
            if !*stopped {
                *stopped = true;
                launcher::stop(dir)?;
                if *remove_dir {
                    // The data is throw-away; logs go with it after a clean stop.
                    let _ = std::fs::remove_dir_all(&*dir);
                }
            }
        }
        Ok(())
    }
}

impl Drop for HBase {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            eprintln!("basalt-testkit: {e}");
        }
    }
}

pub(crate) fn env_flag(name: &str) -> Result<bool, TestkitError> {
    match std::env::var(name).as_deref() {
        Err(_) | Ok("") | Ok("0") | Ok("false") => Ok(false),
        Ok("1") | Ok("true") => Ok(true),
        Ok(other) => Err(TestkitError::Config(format!("{name}={other:?}: use 1 or 0"))),
    }
}

/// The value of property `name` in an `hbase-site.xml` as the launcher writes it (one
/// `<property><name>..</name><value>..</value></property>` a line).
fn site_property(site: &str, name: &str) -> Option<String> {
    let tag = format!("<name>{name}</name>");
    let after = &site[site.find(&tag)? + tag.len()..];
    let value = after.trim_start().strip_prefix("<value>")?;
    Some(value[..value.find("</value>")?].trim().to_owned())
}

#[cfg(test)]
mod site_tests {
    use super::site_property;

    #[test]
    fn reads_a_property_of_the_launchers_site_file() {
        let site = "<configuration>\n  <property><name>hbase.zookeeper.quorum</name><value>127.0.0.1</value></property>\n  \
                    <property><name>hbase.zookeeper.property.clientPort</name><value>40123</value></property>\n</configuration>";
        assert_eq!(site_property(site, "hbase.zookeeper.quorum").as_deref(), Some("127.0.0.1"));
        assert_eq!(site_property(site, "hbase.zookeeper.property.clientPort").as_deref(), Some("40123"));
        assert_eq!(site_property(site, "hbase.rootdir"), None);
        assert_eq!(site_property("<name>x</name><value>cut", "x"), None);
        assert_eq!(site_property("<name>x</name>", "x"), None);
    }

    #[test]
    fn extra_site_properties_become_launcher_arguments_and_odd_ones_are_refused() {
        let options = super::LaunchOptions {
            site_properties: vec![
                ("hbase.quota.enabled".into(), "true".into()),
                ("hbase.ipc.server.max.callqueue.length".into(), "3".into()),
            ],
            ..super::LaunchOptions::default()
        };
        assert_eq!(
            super::site_args(&options).unwrap(),
            ["--site", "hbase.quota.enabled=true", "--site", "hbase.ipc.server.max.callqueue.length=3"]
        );
        for (name, value) in [("", "1"), ("a b", "1"), ("a", "<x>"), ("a", "x&y"), ("a", "x|y"), ("a", "x\ny")] {
            let odd = super::LaunchOptions {
                site_properties: vec![(name.into(), value.into())],
                ..super::LaunchOptions::default()
            };
            assert!(super::site_args(&odd).is_err(), "{name:?} = {value:?}");
        }
    }
}
