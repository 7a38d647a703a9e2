//! The Docker route: the launcher in the image built from `docker/Dockerfile`, run
//! through the `testcontainers` crate (feature `docker`).
//!
//! The container gets the test bed's settings (scanner and idle timeouts, framed /
//! compact, heap, region servers, extra site properties) as arguments of the launcher's
//! `start`; its Thrift2 port 9090, twelve ports for extra gateways (9091-9102) and the
//! port of a secured gateway's KDC (9088) are published on random host ports. Extra gateways, plain or
//! secured, run inside the container (`docker exec` of `hbase-local.sh gateway start`),
//! and so does the region tool (`docker exec -i` of `hbase-local.sh regions`); what a
//! client on the host needs of a secured gateway (CA, krb5.conf, ticket cache, keytab)
//! is copied out of the container (see [`secure`]). The container is removed when its
//! value is dropped (also when a test panicked), with those copies, and a watchdog
//! removes it if the owning process dies first.
//!
//! HBase's own RPC is not published: the image's master and region servers advertise
//! the container's address on Docker's network (`--rpc-host auto` of the launcher),
//! which a Linux host routes to, so native RPC clients on the host bootstrap from the
//! addresses the region tool reports (`servers`, `bootstrap`) as they do natively.

mod api_shim;
mod secure;

use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use testcontainers::core::{IntoContainerPort, WaitFor};
use testcontainers::runners::SyncRunner;
use testcontainers::{Container, GenericImage, ImageExt};

use crate::{LaunchOptions, TestkitError};

/// Asks for Docker: set to `1` to prefer a container over the native launcher.
pub const DOCKER_ENV: &str = "BASALT_TESTKIT_DOCKER";
/// The image to run (default `basalt-hbase:latest`, built with `docker/engine.sh images`
/// or `docker build -t basalt-hbase -f docker/Dockerfile crates/testkit/launcher`).
pub const IMAGE_ENV: &str = "BASALT_DOCKER_IMAGE";
/// Seconds to wait for HBase in the container to answer a Thrift2 call (default 600:
/// HBase took 95-150 s, extra gateways up to 250 s, on 2 cores shared with other work).
pub const STARTUP_TIMEOUT_ENV: &str = "BASALT_DOCKER_STARTUP_TIMEOUT";

const DEFAULT_IMAGE: &str = "basalt-hbase:latest";
const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(600);
/// The main gateway's port in the container.
const THRIFT_PORT: u16 = 9090;
/// Ports for extra gateways in the container (the Dockerfile exposes them): enough for
/// the six secured gateways of the secure test beside the tests' plain ones.
const GATEWAY_PORTS: [u16; 12] = [9091, 9092, 9093, 9094, 9095, 9096, 9097, 9098, 9099, 9100, 9101, 9102];
/// The port of the run's KDC in the container (`BASALT_KDC_PORT` of `secure.sh`).
const KDC_PORT: u16 = 9088;
/// The launcher and run directory in the image.
const LAUNCHER: &str = "/opt/basalt/hbase-local.sh";
const RUN_DIR: &str = "/data";

/// Whether the user asked for Docker (`BASALT_TESTKIT_DOCKER=1`).
pub(crate) fn wanted() -> Result<bool, TestkitError> {
    crate::env_flag(DOCKER_ENV)
}

/// A running container of the HBase image: removed (and its watchdog stopped) on drop.
pub(crate) struct DockerHBase {
    container: Option<Container<GenericImage>>,
    watchdog: Option<Child>,
    /// Keeps the API shim (if any) up as long as the container needs the client.
    _shim: Option<Arc<api_shim::ApiShim>>,
    pub(crate) addr: String,
    pub(crate) ready_in: Duration,
    pub(crate) gateways: GatewaySlots,
}

impl std::fmt::Debug for DockerHBase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DockerHBase").field("addr", &self.addr).field("id", &self.gateways.id).finish()
    }
}

impl DockerHBase {
    /// Removes the container now; later calls do nothing.
    pub(crate) fn stop(&mut self) -> Result<(), TestkitError> {
        // Copies of the secured gateways' client files (CA, tickets, keytab).
        let _ = std::fs::remove_dir_all(&self.gateways.files);
        let result = match self.container.take() {
            Some(container) => container
                .rm()
                .map_err(|e| TestkitError::StopFailed(format!("removing container {}: {e}", self.gateways.id))),
            None => Ok(()),
        };
        if let Some(mut watchdog) = self.watchdog.take() {
            let _ = watchdog.kill();
            let _ = watchdog.wait();
        }
        result
    }

    /// The container's `conf/hbase-site.xml`, read through `docker exec`.
    pub(crate) fn site_xml(&self) -> Result<String, TestkitError> {
        let mut cmd = self.gateways.engine.cli();
        cmd.args(["exec", &self.gateways.id, "cat", &format!("{RUN_DIR}/conf/hbase-site.xml")]);
        let output = cmd.output()?;
        if !output.status.success() {
            return Err(TestkitError::Config(format!(
                "reading the container's hbase-site.xml: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            )));
        }
        String::from_utf8(output.stdout)
            .map_err(|e| TestkitError::Config(format!("the container's hbase-site.xml: {e}")))
    }

    /// `docker exec -i` of `hbase-local.sh regions`: the region tool in the container,
    /// commands on stdin, answers on stdout.
    pub(crate) fn region_tool(&self) -> Command {
        let mut cmd = self.gateways.engine.cli();
        cmd.args(["exec", "-i", &self.gateways.id, LAUNCHER, "regions", "--dir", RUN_DIR]);
        cmd
    }
}

impl Drop for DockerHBase {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            eprintln!("basalt-testkit: {e}");
        }
    }
}

/// Starts the image's HBase with the test bed's settings and waits until its launcher
/// reports a Thrift2 call answered.
pub(crate) fn start(options: &LaunchOptions) -> Result<DockerHBase, TestkitError> {
    let image = std::env::var(IMAGE_ENV).unwrap_or_else(|_| DEFAULT_IMAGE.to_owned());
    let timeout = startup_timeout()?;
    let engine = Engine::find()?;
    if !engine.has_image(&image) {
        return Err(TestkitError::MissingTool(format!(
            "the Docker image {image} is missing: build it with `docker/engine.sh images` (no registry needed) or \
             `docker build -t {image} -f docker/Dockerfile crates/testkit/launcher`, or set {IMAGE_ENV} to another image"
        )));
    }
    let shim = engine.shim_for_testcontainers()?;
    let (name, tag) = split_image(&image);
    let mut request = GenericImage::new(name, tag).with_exposed_port(THRIFT_PORT.tcp());
    for port in GATEWAY_PORTS.into_iter().chain([KDC_PORT]) {
        request = request.with_exposed_port(port.tcp());
    }
    let started = Instant::now();
    let container = request
        .with_wait_for(WaitFor::Nothing)
        .with_cmd(launcher_args(options, timeout)?)
        .with_label("dev.basalt.testkit.owner-pid", std::process::id().to_string())
        .with_startup_timeout(timeout)
        .start()
        .map_err(|e| TestkitError::StartFailed(format!("docker image {image}: {e}")))?;
    let id = container.id().to_owned();
    let watchdog = engine.watchdog(&id);
    let mut hbase = DockerHBase {
        container: Some(container),
        watchdog,
        _shim: shim,
        addr: String::new(),
        ready_in: Duration::ZERO,
        gateways: GatewaySlots {
            id: id.clone(),
            engine: engine.clone(),
            slots: Arc::new(Mutex::new(Vec::new())),
            heap: "512m".to_owned(),
            timeout,
            kdc_host_port: 0,
            files: std::env::temp_dir().join(format!("basalt-docker-{}-{}", std::process::id(), short_id(&id))),
        },
    };
    let container = hbase.container.as_ref().ok_or_else(|| TestkitError::StartFailed("no container".into()))?;
    await_launcher(container, &image, timeout)?;
    hbase.ready_in = started.elapsed();
    let host_port = |port: u16| {
        container
            .get_host_port_ipv4(port.tcp())
            .map_err(|e| TestkitError::StartFailed(format!("published port {port} of {image}: {e}")))
    };
    hbase.addr = format!("127.0.0.1:{}", host_port(THRIFT_PORT)?);
    let mut slots = Vec::new();
    for port in GATEWAY_PORTS {
        slots.push(Slot { container_port: port, host_port: host_port(port)?, used: false });
    }
    hbase.gateways.slots = Arc::new(Mutex::new(slots));
    hbase.gateways.kdc_host_port = host_port(KDC_PORT)?;
    Ok(hbase)
}

/// The launcher's `start` options after the image's entrypoint.
fn launcher_args(options: &LaunchOptions, timeout: Duration) -> Result<Vec<String>, TestkitError> {
    let mut args = vec![
        "--scanner-timeout-ms".to_owned(),
        options.scanner_timeout.as_millis().to_string(),
        "--idle-timeout-ms".to_owned(),
        options.idle_timeout.as_millis().to_string(),
        "--heap".to_owned(),
        options.heap.clone(),
        "--timeout".to_owned(),
        timeout.as_secs().to_string(),
    ];
    if options.framed {
        args.push("--framed".to_owned());
    }
    if options.compact {
        args.push("--compact".to_owned());
    }
    if options.region_servers != 1 {
        args.push("--regionservers".to_owned());
        args.push(options.region_servers.to_string());
    }
    if options.quick_jit {
        args.push("--quick-jit".to_owned());
    }
    args.extend(crate::site_args(options)?);
    Ok(args)
}

/// The launcher's last message (from its last `hbase-local: ` line to the end: a
/// probe's error may span several lines), on one line.
fn launcher_error(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let from = lines.iter().rposition(|l| l.starts_with("hbase-local: ")).unwrap_or(lines.len().saturating_sub(1));
    match lines.get(from..) {
        Some(last) if !last.is_empty() => last.join(" | "),
        _ => "no output".to_owned(),
    }
}

/// The first 12 characters of a container id (as `docker ps` shows it).
fn short_id(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

/// Follows the container's stderr until the launcher logs "ready in"; fails with the
/// launcher's last words when the container exits or the timeout passes.
fn await_launcher(container: &Container<GenericImage>, image: &str, timeout: Duration) -> Result<(), TestkitError> {
    let (lines_tx, lines_rx) = mpsc::channel::<String>();
    let reader = container.stderr(true);
    std::thread::spawn(move || {
        for line in reader.lines() {
            let Ok(line) = line else { break };
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + timeout;
    let mut last: Vec<String> = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines_rx.recv_timeout(left) {
            Ok(line) if line.contains("hbase-local: ready in") => return Ok(()),
            Ok(line) => {
                last.push(line);
                if last.len() > 8 {
                    last.remove(0);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                return Err(TestkitError::StartFailed(format!(
                    "HBase in a container of {image} did not answer within {} s (raise {STARTUP_TIMEOUT_ENV}); its \
                     last words: {}",
                    timeout.as_secs(),
                    last.join(" | ")
                )))
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(TestkitError::StartFailed(format!(
                    "the container of {image} stopped before HBase answered: {}",
                    last.join(" | ")
                )))
            }
        }
    }
}

fn startup_timeout() -> Result<Duration, TestkitError> {
    match std::env::var(STARTUP_TIMEOUT_ENV) {
        Err(_) => Ok(DEFAULT_STARTUP_TIMEOUT),
        Ok(text) => match text.trim().parse::<u64>() {
            Ok(secs) if secs > 0 => Ok(Duration::from_secs(secs)),
            _ => Err(TestkitError::Config(format!("{STARTUP_TIMEOUT_ENV}={text:?}: use a number of seconds"))),
        },
    }
}

/// `name:tag` split for testcontainers; a registry's `host:port/name` has no tag.
fn split_image(image: &str) -> (&str, &str) {
    match image.rsplit_once(':') {
        Some((name, tag)) if !tag.contains('/') => (name, tag),
        _ => (image, "latest"),
    }
}

/// The Docker engine, reached through the `docker` CLI (which negotiates its API
/// version) for everything but the container's lifecycle.
#[derive(Debug, Clone)]
pub(crate) struct Engine {
    /// `DOCKER_HOST` as the user set it (`None`: the CLI's default).
    host: Option<String>,
}

/// The shim shared by every container of this process (testcontainers' client is a
/// process-wide value bound to one `DOCKER_HOST`).
static SHIM: Mutex<Option<std::sync::Weak<api_shim::ApiShim>>> = Mutex::new(None);
/// The engine's `DOCKER_HOST` before this process pointed it at the shim.
static ENGINE_HOST: Mutex<Option<Option<String>>> = Mutex::new(None);

impl Engine {
    /// The engine the user's environment names; fails when none answers.
    fn find() -> Result<Engine, TestkitError> {
        let host = {
            let mut saved = ENGINE_HOST.lock().unwrap_or_else(|p| p.into_inner());
            saved.get_or_insert_with(|| std::env::var("DOCKER_HOST").ok()).clone()
        };
        let engine = Engine { host };
        let answers = engine.cli().arg("info").stdout(Stdio::null()).stderr(Stdio::null()).status();
        match answers {
            Ok(status) if status.success() => Ok(engine),
            Ok(_) => Err(TestkitError::MissingTool(format!(
                "{DOCKER_ENV}=1 but no Docker engine answers: start one (`docker/engine.sh up` installs and starts \
                 Debian's docker.io), or unset {DOCKER_ENV} to use the native launcher"
            ))),
            Err(e) => Err(TestkitError::MissingTool(format!(
                "{DOCKER_ENV}=1 but the docker CLI cannot run ({e}): install Docker (`docker/engine.sh up`), or unset \
                 {DOCKER_ENV} to use the native launcher"
            ))),
        }
    }

    /// A `docker` command against the user's engine (never through the shim).
    fn cli(&self) -> Command {
        let mut cmd = Command::new("docker");
        match &self.host {
            Some(host) => cmd.env("DOCKER_HOST", host),
            None => cmd.env_remove("DOCKER_HOST"),
        };
        cmd.stdin(Stdio::null());
        cmd
    }

    fn has_image(&self, image: &str) -> bool {
        self.cli()
            .args(["image", "inspect", image])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// The engine's API version, e.g. `(1, 41)`.
    fn api_version(&self) -> Option<(u32, u32)> {
        let out = self.cli().args(["version", "--format", "{{.Server.APIVersion}}"]).output().ok()?;
        api_shim::parse_version(&String::from_utf8_lossy(&out.stdout))
    }

    /// Points testcontainers at a version shim when the engine is older than the API
    /// testcontainers speaks (see [`api_shim`]); `None` when it is not needed.
    fn shim_for_testcontainers(&self) -> Result<Option<Arc<api_shim::ApiShim>>, TestkitError> {
        const CLIENT_API: (u32, u32) = (1, 47);
        let Some(version) = self.api_version() else { return Ok(None) };
        if version >= CLIENT_API {
            return Ok(None);
        }
        let socket = match self.host.as_deref() {
            None => "/var/run/docker.sock",
            Some(host) => host.strip_prefix("unix://").ok_or_else(|| {
                TestkitError::Config(format!(
                    "the Docker engine at DOCKER_HOST={host} speaks API {}.{}, older than testcontainers' {}.{}; only \
                     a local engine (unix socket) can be bridged",
                    version.0, version.1, CLIENT_API.0, CLIENT_API.1
                ))
            })?,
        };
        let mut shared = SHIM.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(shim) = shared.as_ref().and_then(std::sync::Weak::upgrade) {
            return Ok(Some(shim));
        }
        let shim = Arc::new(api_shim::ApiShim::start(std::path::Path::new(socket), version)?);
        // testcontainers reads DOCKER_HOST when it first connects; the shim's path is
        // the same for the whole process, so a later shim serves the same client.
        std::env::set_var("DOCKER_HOST", shim.docker_host());
        *shared = Some(Arc::downgrade(&shim));
        Ok(Some(shim))
    }

    /// A process that removes the container if this process dies without dropping it.
    fn watchdog(&self, id: &str) -> Option<Child> {
        let script = r#"while kill -0 "$1" 2>/dev/null; do sleep 1; done; docker rm -f "$2" >/dev/null 2>&1"#;
        let mut watchdog = Command::new("setsid");
        watchdog.args(["sh", "-c", script, "basalt-docker-watchdog", &std::process::id().to_string(), id]);
        match &self.host {
            Some(host) => watchdog.env("DOCKER_HOST", host),
            None => watchdog.env_remove("DOCKER_HOST"),
        };
        watchdog.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn().ok()
    }
}

/// The container's ports for extra gateways, and which are in use.
#[derive(Debug, Clone)]
pub(crate) struct GatewaySlots {
    id: String,
    engine: Engine,
    slots: Arc<Mutex<Vec<Slot>>>,
    heap: String,
    timeout: Duration,
    /// The host port published for the container's KDC port.
    kdc_host_port: u16,
    /// Host directory for copies of the secured gateways' client files.
    files: std::path::PathBuf,
}

#[derive(Debug)]
struct Slot {
    container_port: u16,
    host_port: u16,
    used: bool,
}

/// An extra gateway in the container: stopped with `docker exec` on drop.
#[derive(Debug)]
pub(crate) struct ContainerGateway {
    slots: GatewaySlots,
    container_port: u16,
    name: String,
}

impl GatewaySlots {
    /// Starts `hbase-local.sh gateway start` in the container on a free published
    /// port; returns the host address and how long it took. The gateway is stopped with
    /// [`stop_gateway`] by its name (unique in this process).
    pub(crate) fn start(&self, framed: bool, compact: bool, name: &str) -> Result<(String, Duration), TestkitError> {
        self.start_with(framed, compact, name, &[])
    }

    /// `docker exec` of the launcher in the container (its run directory is `/data`),
    /// for the extra region servers.
    pub(crate) fn launcher_exec(&self) -> Command {
        let mut cmd = self.engine.cli();
        cmd.args(["exec", &self.id, LAUNCHER]);
        cmd
    }

    /// [`start`](Self::start) with more `gateway start` options (`--tls`, `--http`,
    /// `--kerberos QOP`); a KDC, if one is needed, listens on the published [`KDC_PORT`].
    fn start_with(
        &self,
        framed: bool,
        compact: bool,
        name: &str,
        extra: &[String],
    ) -> Result<(String, Duration), TestkitError> {
        let (container_port, host_port) = {
            let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            let slot = slots.iter_mut().find(|s| !s.used).ok_or_else(|| {
                TestkitError::Config(format!(
                    "all {} gateway ports of the container are in use; stop a gateway first",
                    GATEWAY_PORTS.len()
                ))
            })?;
            slot.used = true;
            (slot.container_port, slot.host_port)
        };
        let gateway = ContainerGateway { slots: self.clone(), container_port, name: name.to_owned() };
        let started = Instant::now();
        let mut cmd = self.engine.cli();
        let kdc_port = format!("BASALT_KDC_PORT={KDC_PORT}");
        cmd.args(["exec", "-e", &kdc_port, &self.id, LAUNCHER, "gateway", "start", "--dir", RUN_DIR, "--name", name])
            .args(["--bind", "0.0.0.0", "--thrift-port", &container_port.to_string(), "--heap", &self.heap])
            .args(["--timeout", &self.timeout.as_secs().to_string()]);
        if framed {
            cmd.arg("--framed");
        }
        if compact {
            cmd.arg("--compact");
        }
        cmd.args(extra);
        let out = cmd.output()?;
        if !out.status.success() {
            let why = launcher_error(&String::from_utf8_lossy(&out.stderr));
            // `gateway` is dropped here and frees its slot; the launcher already
            // stopped the JVM that did not answer.
            return Err(TestkitError::StartFailed(format!("gateway {name} in container {}: {why}", self.id)));
        }
        RUNNING.lock().unwrap_or_else(|p| p.into_inner()).push(gateway);
        Ok((format!("127.0.0.1:{host_port}"), started.elapsed()))
    }
}

/// Gateways running in containers, by name.
static RUNNING: Mutex<Vec<ContainerGateway>> = Mutex::new(Vec::new());

/// Stops the container gateway named `name`; `None` when no such gateway runs in a
/// container (a native one).
pub(crate) fn stop_gateway(name: &str) -> Option<Result<(), TestkitError>> {
    let mut gateway = {
        let mut running = RUNNING.lock().unwrap_or_else(|p| p.into_inner());
        let at = running.iter().position(|g| g.name == name)?;
        running.swap_remove(at)
    };
    Some(gateway.stop())
}

impl ContainerGateway {
    /// Stops the gateway's JVM in the container and frees its port. A container that
    /// is already gone took the JVM with it.
    pub(crate) fn stop(&mut self) -> Result<(), TestkitError> {
        let out = self
            .slots
            .engine
            .cli()
            .args(["exec", &self.slots.id, LAUNCHER, "gateway", "stop", "--dir", RUN_DIR, "--name", &self.name])
            .output()?;
        self.release();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.success() || stderr.contains("No such container") || stderr.contains("is not running") {
            Ok(())
        } else {
            Err(TestkitError::StopFailed(format!(
                "gateway {} in container {}: {}",
                self.name,
                self.slots.id,
                stderr.trim()
            )))
        }
    }

    fn release(&self) {
        let mut slots = self.slots.slots.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(slot) = slots.iter_mut().find(|s| s.container_port == self.container_port) {
            slot.used = false;
        }
    }
}

impl Drop for ContainerGateway {
    fn drop(&mut self) {
        // Frees the slot even when `stop` was never called (a failed start).
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_names_split_into_name_and_tag() {
        assert_eq!(split_image("basalt-hbase:latest"), ("basalt-hbase", "latest"));
        assert_eq!(split_image("basalt-hbase"), ("basalt-hbase", "latest"));
        assert_eq!(split_image("localhost:5000/basalt-hbase"), ("localhost:5000/basalt-hbase", "latest"));
        assert_eq!(split_image("localhost:5000/basalt-hbase:v2"), ("localhost:5000/basalt-hbase", "v2"));
    }

    #[test]
    fn the_test_beds_settings_reach_the_launcher() {
        let options = LaunchOptions {
            framed: true,
            compact: true,
            scanner_timeout: Duration::from_secs(4),
            idle_timeout: Duration::from_secs(12),
            ..LaunchOptions::default()
        };
        let args = launcher_args(&options, Duration::from_secs(300)).unwrap().join(" ");
        assert_eq!(
            args,
            "--scanner-timeout-ms 4000 --idle-timeout-ms 12000 --heap 1g --timeout 300 --framed --compact"
        );
        let two = LaunchOptions { region_servers: 2, ..LaunchOptions::default() };
        let args = launcher_args(&two, Duration::from_secs(60)).unwrap().join(" ");
        assert!(args.ends_with("--timeout 60 --regionservers 2"), "{args}");
        let quota = LaunchOptions {
            site_properties: vec![("hbase.quota.enabled".into(), "true".into())],
            ..LaunchOptions::default()
        };
        let args = launcher_args(&quota, Duration::from_secs(60)).unwrap().join(" ");
        assert!(args.ends_with("--timeout 60 --site hbase.quota.enabled=true"), "{args}");
        let quick = LaunchOptions { quick_jit: true, ..LaunchOptions::default() };
        let args = launcher_args(&quick, Duration::from_secs(60)).unwrap().join(" ");
        assert!(args.ends_with("--timeout 60 --quick-jit"), "{args}");
    }

    #[test]
    fn the_launchers_last_message_is_kept_whole() {
        let stderr = "hbase-local: waiting\nhbase-local: gateway g did not become ready: last error\nTIOError(x,\n\n \
                      canRetry:true)) (logs kept in /data/logs)\n";
        assert_eq!(
            launcher_error(stderr),
            "hbase-local: gateway g did not become ready: last error | TIOError(x, | canRetry:true)) (logs kept in \
             /data/logs)"
        );
        assert_eq!(launcher_error("boom\n"), "boom");
        assert_eq!(launcher_error(""), "no output");
    }

    #[test]
    fn short_ids_are_docker_ps_ids() {
        assert_eq!(short_id("0123456789abcdef0123"), "0123456789ab");
        assert_eq!(short_id("abc"), "abc");
    }
}
