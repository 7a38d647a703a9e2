//! Running `hbase-local.sh`, whose files (in `crates/testkit/launcher/`) are embedded in
//! this crate so that the launcher works from any install of the CLI, not only from a
//! checkout.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::{LaunchOptions, TestkitError};

/// The launcher's files, as in `crates/testkit/launcher/`.
const FILES: &[(&str, &str)] = &[
    ("hbase-local.sh", include_str!("../launcher/hbase-local.sh")),
    ("pom.xml", include_str!("../launcher/pom.xml")),
    ("hbase-site.xml.in", include_str!("../launcher/hbase-site.xml.in")),
    ("log4j2.properties", include_str!("../launcher/log4j2.properties")),
    ("Probe.java", include_str!("../launcher/Probe.java")),
    ("RegionTool.java", include_str!("../launcher/RegionTool.java")),
    ("DiffTool.java", include_str!("../launcher/DiffTool.java")),
    ("AdminProbe.java", include_str!("../launcher/AdminProbe.java")),
    ("secure.sh", include_str!("../launcher/secure.sh")),
    ("SecureProbe.java", include_str!("../launcher/SecureProbe.java")),
];

/// What a successful start reports.
pub(crate) struct Started {
    pub addr: String,
    pub ready_in: Duration,
}

/// The directory holding the launcher's files, written on first use under
/// `$BASALT_CACHE_DIR` (default `~/.cache/basalt`) and keyed by their content.
pub fn launcher_dir() -> Result<PathBuf, TestkitError> {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (name, text) in FILES {
        for byte in name.bytes().chain(text.bytes()) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    let dir = cache_dir().join(format!("launcher-{hash:016x}"));
    if !dir.join("hbase-local.sh").exists() {
        let staging = cache_dir().join(format!("launcher-{hash:016x}.{}", std::process::id()));
        std::fs::create_dir_all(&staging)?;
        for (name, text) in FILES {
            std::fs::write(staging.join(name), text)?;
        }
        set_executable(&staging.join("hbase-local.sh"))?;
        // Another process may have won the race; either copy is the same.
        if std::fs::rename(&staging, &dir).is_err() {
            let _ = std::fs::remove_dir_all(&staging);
        }
    }
    Ok(dir)
}

fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("BASALT_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("basalt");
    }
    match std::env::var_os("HOME") {
        Some(home) => PathBuf::from(home).join(".cache").join("basalt"),
        None => std::env::temp_dir().join("basalt-cache"),
    }
}

#[cfg(unix)]
fn set_executable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn set_executable(_path: &Path) -> std::io::Result<()> {
    Ok(())
}

/// A new empty run directory under the system's temp dir.
pub(crate) fn fresh_run_dir() -> Result<PathBuf, TestkitError> {
    let base = std::env::temp_dir();
    for attempt in 0..100u32 {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        let dir = base.join(format!("basalt-hbase-{}-{nanos:x}-{attempt}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(TestkitError::Config("could not create a run directory".into()))
}

fn check_tools() -> Result<(), TestkitError> {
    let works =
        |cmd: &str, arg: &str| Command::new(cmd).arg(arg).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok();
    if !works("java", "-version") {
        return Err(TestkitError::MissingTool(
            "java was not found: the local HBase needs a JDK 17 (Debian/Ubuntu: apt-get install openjdk-17-jdk-headless), \
             or set BASALT_THRIFT_ADDR to an existing HBase Thrift2 gateway"
                .into(),
        ));
    }
    if !works("mvn", "-v") {
        return Err(TestkitError::MissingTool(
            "mvn was not found: the local HBase fetches its jars with Maven (Debian/Ubuntu: apt-get install maven), \
             or set BASALT_THRIFT_ADDR to an existing HBase Thrift2 gateway"
                .into(),
        ));
    }
    Ok(())
}

pub(crate) fn start(dir: &Path, options: &LaunchOptions) -> Result<Started, TestkitError> {
    check_tools()?;
    let script = launcher_dir()?.join("hbase-local.sh");
    let mut cmd = Command::new("bash");
    cmd.arg(&script)
        .arg("start")
        .arg("--dir")
        .arg(dir)
        .arg("--scanner-timeout-ms")
        .arg(options.scanner_timeout.as_millis().to_string())
        .arg("--idle-timeout-ms")
        .arg(options.idle_timeout.as_millis().to_string())
        .arg("--heap")
        .arg(&options.heap)
        .arg("--timeout")
        .arg(options.ready_timeout.as_secs().max(1).to_string());
    if let Some(port) = options.thrift_port {
        cmd.arg("--thrift-port").arg(port.to_string());
    }
    if options.quick_jit {
        cmd.arg("--quick-jit");
    }
    if options.framed {
        cmd.arg("--framed");
    }
    if options.compact {
        cmd.arg("--compact");
    }
    if options.stop_with_process {
        cmd.arg("--owner-pid").arg(std::process::id().to_string());
    }
    if options.region_servers != 1 {
        cmd.arg("--regionservers").arg(options.region_servers.to_string());
    }
    if options.secure_rpc {
        cmd.arg("--secure-rpc");
    }
    if !options.gateway {
        cmd.arg("--no-gateway");
    }
    cmd.args(crate::site_args(options)?);
    let started = std::time::Instant::now();
    let addr = run_for_addr(cmd)?;
    Ok(Started { addr, ready_in: started.elapsed() })
}

/// Runs a launcher command that prints an address as its last line.
fn run_for_addr(mut cmd: Command) -> Result<String, TestkitError> {
    let output = cmd.stdin(Stdio::null()).output()?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        let why = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no output");
        return Err(TestkitError::StartFailed(why.trim_start_matches("hbase-local: ").to_owned()));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.trim().to_owned())
        .ok_or_else(|| TestkitError::StartFailed(format!("the launcher printed no address: {stderr}")))
}

/// How to start an extra Thrift2 gateway against a running HBase.
pub(crate) struct GatewaySpec<'a> {
    pub dir: &'a Path,
    pub name: &'a str,
    pub framed: bool,
    pub compact: bool,
    pub heap: &'a str,
    pub owner_pid: Option<u32>,
    pub timeout: Duration,
    /// More `gateway start` options (`--tls`, `--http`, `--kerberos QOP`).
    pub extra: &'a [String],
}

pub(crate) fn start_gateway(spec: &GatewaySpec<'_>) -> Result<Started, TestkitError> {
    check_tools()?;
    let script = launcher_dir()?.join("hbase-local.sh");
    let mut cmd = Command::new("bash");
    cmd.arg(&script)
        .args(["gateway", "start", "--name", spec.name, "--heap", spec.heap, "--dir"])
        .arg(spec.dir)
        .arg("--timeout")
        .arg(spec.timeout.as_secs().max(1).to_string());
    if spec.framed {
        cmd.arg("--framed");
    }
    if spec.compact {
        cmd.arg("--compact");
    }
    if let Some(pid) = spec.owner_pid {
        cmd.arg("--owner-pid").arg(pid.to_string());
    }
    cmd.args(spec.extra);
    let started = std::time::Instant::now();
    let addr = run_for_addr(cmd)?;
    Ok(Started { addr, ready_in: started.elapsed() })
}

pub(crate) fn stop_gateway(dir: &Path, name: &str) -> Result<(), TestkitError> {
    let script = launcher_dir()?.join("hbase-local.sh");
    let output = Command::new("bash")
        .arg(&script)
        .args(["gateway", "stop", "--name", name, "--dir"])
        .arg(dir)
        .stdin(Stdio::null())
        .output()?;
    if !output.status.success() {
        return Err(TestkitError::StopFailed(String::from_utf8_lossy(&output.stderr).trim().to_owned()));
    }
    Ok(())
}

/// `hbase-local.sh regions --dir DIR`: the region tool, commands on stdin.
pub(crate) fn region_tool(dir: &Path) -> Result<Command, TestkitError> {
    let mut cmd = Command::new("bash");
    cmd.arg(launcher_dir()?.join("hbase-local.sh")).args(["regions", "--dir"]).arg(dir);
    Ok(cmd)
}

pub(crate) fn stop(dir: &Path) -> Result<(), TestkitError> {
    let script = launcher_dir()?.join("hbase-local.sh");
    let output = Command::new("bash").arg(&script).arg("stop").arg("--dir").arg(dir).stdin(Stdio::null()).output()?;
    if !output.status.success() {
        return Err(TestkitError::StopFailed(String::from_utf8_lossy(&output.stderr).trim().to_owned()));
    }
    Ok(())
}

/// The Thrift2 IDL shipped in the `hbase-thrift` jar the launcher resolves (for the
/// test that checks `thrift-idl/hbase.thrift` against it).
pub fn upstream_idl() -> Result<String, TestkitError> {
    check_tools()?;
    let script = launcher_dir()?.join("hbase-local.sh");
    let output = Command::new("bash").arg(&script).arg("idl").stdin(Stdio::null()).output()?;
    if !output.status.success() {
        return Err(TestkitError::StartFailed(String::from_utf8_lossy(&output.stderr).trim().to_owned()));
    }
    String::from_utf8(output.stdout).map_err(|e| TestkitError::Config(format!("the jar's IDL is not UTF-8: {e}")))
}
