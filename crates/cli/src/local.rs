//! `basalt local start | stop | status`: the test bed's standalone HBase + Thrift2 in the
//! background, in a fixed run directory, managed by pid through the launcher script.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use basalt_testkit::{HBase, LaunchOptions};
use clap::{Args, Subcommand};

use crate::error::{CliError, CliResult, EXIT_UNREACHABLE};

/// `basalt local ...`.
#[derive(Debug, Args)]
pub struct LocalArgs {
    #[command(subcommand)]
    cmd: LocalCmd,
    /// Run directory (conf, data, logs, pids); default $BASALT_HOME or ~/.local/state/basalt/local.
    #[arg(long, global = true, value_name = "DIR")]
    dir: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum LocalCmd {
    /// Start HBase + Thrift2 in the background; prints the Thrift address as the last line.
    #[command(after_help = "Examples:\n  export BASALT_THRIFT_ADDR=$(basalt local start | tail -n1)\n  \
                            export HBASE_CONF_DIR=$(basalt local start --no-gateway | tail -n1)   # native RPC only")]
    Start {
        /// Thrift2 port (default: a free one).
        #[arg(long)]
        port: Option<u16>,
        /// Heap of each JVM.
        #[arg(long, default_value = "1g")]
        heap: String,
        /// Also start a secured gateway: tls, http, https, kerberos[=auth|auth-int|auth-conf],
        /// comma-separated (e.g. https,kerberos=auth); prints its address and settings.
        #[arg(long, value_name = "MODES", value_parser = crate::local_secure::parse_secure)]
        secure: Option<crate::local_secure::SecureSpec>,
        /// Start HBase alone, without its Thrift2 gateway, for native RPC clients; prints
        /// its configuration directory (hbase-site.xml) as the last line, for HBASE_CONF_DIR.
        #[arg(long, conflicts_with_all = ["port", "secure"])]
        no_gateway: bool,
    },
    /// Stop the HBase started by `local start` (by pid).
    #[command(after_help = "Example:\n  basalt local stop")]
    Stop,
    /// Print `up HOST:PORT`, `up native CONF_DIR` (started with --no-gateway; exit 0) or `down` (exit 3).
    #[command(after_help = "Example:\n  basalt local status && echo running")]
    Status,
}

/// The default run directory of `basalt local`.
pub fn default_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("BASALT_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let state = match (std::env::var_os("XDG_STATE_HOME"), std::env::var_os("HOME")) {
        (Some(x), _) if !x.is_empty() => PathBuf::from(x),
        (_, Some(h)) => PathBuf::from(h).join(".local").join("state"),
        _ => std::env::temp_dir(),
    };
    state.join("basalt").join("local")
}

fn script() -> CliResult<PathBuf> {
    Ok(basalt_testkit::launcher_dir()?.join("hbase-local.sh"))
}

/// How the HBase running from a run directory is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Running {
    /// Through its Thrift2 gateway at this address (and natively).
    Gateway(String),
    /// Natively only (started with --no-gateway): its configuration directory.
    Native(PathBuf),
}

/// The address of the HBase running from `dir` with its gateway, if it is up.
pub fn status(dir: &Path) -> CliResult<Option<String>> {
    Ok(match running(dir)? {
        Some(Running::Gateway(addr)) => Some(addr),
        Some(Running::Native(_)) | None => None,
    })
}

/// How the HBase running from `dir` is reached, if it is up.
pub fn running(dir: &Path) -> CliResult<Option<Running>> {
    if !dir.join("thrift.addr").exists() && !dir.join("native.conf").exists() {
        return Ok(None);
    }
    let out = Command::new("bash")
        .arg(script()?)
        .arg("status")
        .arg("--dir")
        .arg(dir)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(up) = text.lines().find_map(|l| l.strip_prefix("up ")) else { return Ok(None) };
    Ok(Some(match up.strip_prefix("native ") {
        Some(conf) => Running::Native(PathBuf::from(conf.trim())),
        None => Running::Gateway(up.trim().to_owned()),
    }))
}

/// A spinner on stderr while something slow runs (none when stderr is not a terminal).
pub fn spinner(message: &str) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        eprintln!("{message}");
        return None;
    }
    let pb = indicatif::ProgressBar::new_spinner();
    pb.set_message(message.to_owned());
    pb.enable_steady_tick(Duration::from_millis(120));
    Some(pb)
}

/// Starts HBase in `dir` so that it outlives this process; returns its address.
pub fn start_detached(dir: &Path, options: LaunchOptions) -> CliResult<String> {
    std::fs::create_dir_all(dir).map_err(|e| CliError::failed(format!("cannot create {}: {e}", dir.display())))?;
    let what = if options.gateway { "HBase + Thrift2" } else { "HBase (no gateway)" };
    let pb = spinner(&format!("starting {what} (the first run downloads HBase's jars with Maven)..."));
    let started = HBase::start(&LaunchOptions { dir: Some(dir.to_owned()), stop_with_process: false, ..options });
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    let hbase = started.map_err(|e| CliError::failed(e.to_string()))?;
    if let Some(t) = hbase.ready_in() {
        eprintln!("HBase is up in {:.1} s (run dir {})", t.as_secs_f64(), dir.display());
    }
    // This HBase is meant to outlive the command.
    Ok(hbase.detach())
}

/// Stops the HBase running from `dir`.
pub fn stop(dir: &Path) -> CliResult<bool> {
    if status(dir)?.is_none() && !dir.join("master.pid").exists() {
        return Ok(false);
    }
    let out = Command::new("bash").arg(script()?).arg("stop").arg("--dir").arg(dir).stdin(Stdio::null()).output()?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(CliError::failed(format!("stopping HBase failed: {}", err.trim())));
    }
    Ok(true)
}

/// Runs `basalt local ...`.
pub fn run(args: LocalArgs, framed: bool, compact: bool) -> CliResult {
    let dir = args.dir.unwrap_or_else(default_dir);
    match args.cmd {
        LocalCmd::Start { heap, no_gateway: true, .. } => start_native(&dir, heap),
        LocalCmd::Start { port, heap, secure: Some(spec), no_gateway: false } => {
            if status(&dir)?.is_none() {
                let options = LaunchOptions { thrift_port: port, heap, ..LaunchOptions::default() };
                start_detached(&dir, options)?;
            }
            let (addr, hint) = crate::local_secure::start(&dir, &script()?, &spec, framed, compact)?;
            eprintln!("use it with: {hint}; stop it with: basalt local stop");
            outln!("{addr}");
            Ok(())
        }
        LocalCmd::Start { port, heap, secure: None, no_gateway: false } => {
            match running(&dir)? {
                Some(Running::Gateway(addr)) => {
                    eprintln!("HBase is already running from {}", dir.display());
                    outln!("{addr}");
                    return Ok(());
                }
                Some(Running::Native(conf)) => {
                    return Err(CliError::usage(format!(
                        "HBase is already running from {} without its gateway (conf {}); stop it first: basalt \
                         local stop",
                        dir.display(),
                        conf.display()
                    )));
                }
                None => {}
            }
            let options = LaunchOptions { thrift_port: port, framed, compact, heap, ..LaunchOptions::default() };
            let addr = start_detached(&dir, options)?;
            let mut hint = format!("export BASALT_THRIFT_ADDR={addr}");
            if framed {
                hint.push_str(" BASALT_THRIFT_FRAMED=1");
            }
            if compact {
                hint.push_str(" BASALT_THRIFT_COMPACT=1");
            }
            eprintln!("use it with: {hint}; stop it with: basalt local stop");
            eprintln!("for native RPC to the region servers, add: export BASALT_NATIVE=gateway");
            outln!("{addr}");
            Ok(())
        }
        LocalCmd::Stop => {
            if stop(&dir)? {
                outln!("stopped (run dir {})", dir.display());
            } else {
                outln!("not running (run dir {})", dir.display());
            }
            Ok(())
        }
        LocalCmd::Status => match running(&dir)? {
            Some(Running::Gateway(addr)) => {
                outln!("up {addr}");
                Ok(())
            }
            Some(Running::Native(conf)) => {
                outln!("up native {}", conf.display());
                Ok(())
            }
            None => {
                outln!("down");
                Err(CliError { code: EXIT_UNREACHABLE, message: String::new() })
            }
        },
    }
}

/// `basalt local start --no-gateway`: HBase alone; prints what a native client needs
/// (its configuration directory last).
fn start_native(dir: &Path, heap: String) -> CliResult {
    let conf = match running(dir)? {
        Some(Running::Native(conf)) => {
            eprintln!("HBase is already running from {} (no gateway)", dir.display());
            conf
        }
        Some(Running::Gateway(addr)) => {
            return Err(CliError::usage(format!(
                "HBase is already running from {} with its gateway at {addr}; stop it first (basalt local stop), or \
                 use it natively: export BASALT_NATIVE=gateway BASALT_THRIFT_ADDR={addr}",
                dir.display()
            )));
        }
        None => {
            start_detached(dir, LaunchOptions { heap, gateway: false, ..LaunchOptions::default() })?;
            dir.join("conf")
        }
    };
    let route = basalt::HBaseSite::in_dir(&conf).and_then(|site| site.native_route());
    if let Ok(basalt::SiteRoute::ZooKeeper(quorum)) = &route {
        eprintln!("ZooKeeper quorum: {quorum} (or: --native-zookeeper {quorum})");
    }
    eprintln!(
        "native RPC only, no gateway: export HBASE_CONF_DIR={} BASALT_THRIFT_ADDR= ; stop it with: basalt local stop",
        conf.display()
    );
    outln!("{}", conf.display());
    Ok(())
}
