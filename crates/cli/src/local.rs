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
    #[command(after_help = "Example:\n  export BASALT_THRIFT_ADDR=$(basalt local start | tail -n1)")]
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
    },
    /// Stop the HBase started by `local start` (by pid).
    #[command(after_help = "Example:\n  basalt local stop")]
    Stop,
    /// Print `up HOST:PORT` (exit 0) or `down` (exit 3).
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

/// The address of the HBase running from `dir`, if it is up.
pub fn status(dir: &Path) -> CliResult<Option<String>> {
    if !dir.join("thrift.addr").exists() {
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
    Ok(text.lines().find_map(|l| l.strip_prefix("up ")).map(|a| a.trim().to_owned()))
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
    let pb = spinner("starting HBase + Thrift2 (the first run downloads HBase's jars with Maven)...");
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
        LocalCmd::Start { port, heap, secure: Some(spec) } => {
            if status(&dir)?.is_none() {
                let options = LaunchOptions { thrift_port: port, heap, ..LaunchOptions::default() };
                start_detached(&dir, options)?;
            }
            let (addr, hint) = crate::local_secure::start(&dir, &script()?, &spec, framed, compact)?;
            eprintln!("use it with: {hint}; stop it with: basalt local stop");
            outln!("{addr}");
            Ok(())
        }
        LocalCmd::Start { port, heap, secure: None } => {
            if let Some(addr) = status(&dir)? {
                eprintln!("HBase is already running from {}", dir.display());
                outln!("{addr}");
                return Ok(());
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
        LocalCmd::Status => match status(&dir)? {
            Some(addr) => {
                outln!("up {addr}");
                Ok(())
            }
            None => {
                outln!("down");
                Err(CliError { code: EXIT_UNREACHABLE, message: String::new() })
            }
        },
    }
}
