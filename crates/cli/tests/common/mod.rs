//! What the CLI's test binaries share: one HBase for the whole binary (from
//! `BASALT_THRIFT_ADDR`, else launched by basalt-testkit), a run directory, the
//! `basalt` command pointed at both, and checks of what a run printed. [`run`] starts
//! the HBase, runs the cases with libtest-mimic and stops it at the end, whatever the
//! cases did.
#![allow(dead_code)] // each binary uses its own part

use std::path::PathBuf;
use std::process::{Command as Process, ExitCode};
use std::sync::Arc;
use std::time::Duration;

use assert_cmd::Command;
use basalt_testkit::{HBase, LaunchOptions};
use libtest_mimic::{Arguments, Failed, Trial};

/// What every case gets.
pub struct Env {
    /// The gateway's `host:port`.
    pub addr: String,
    /// Whether the gateway uses the framed transport.
    pub framed: bool,
    /// Whether the gateway uses the compact protocol.
    pub compact: bool,
    /// A directory of the run's own, removed at the end.
    pub dir: PathBuf,
    /// The launched HBase's ZooKeeper quorum (`host:port`); `None` for an external one.
    pub zookeeper: Option<String>,
}

/// One case.
pub type Case = fn(&Env) -> Result<(), String>;

/// The result of one command run.
pub struct Out {
    /// The exit code (-1 if killed or not started).
    pub code: i32,
    /// What it printed on stdout.
    pub stdout: String,
    /// What it printed on stderr.
    pub stderr: String,
}

impl Out {
    /// Runs `cmd` (at most 10 minutes) and keeps what it printed.
    pub fn of(cmd: &mut Command) -> Out {
        match cmd.timeout(Duration::from_secs(600)).output() {
            Ok(o) => Out {
                code: o.status.code().unwrap_or(-1),
                stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
            },
            Err(e) => Out { code: -1, stdout: String::new(), stderr: format!("could not run basalt: {e}") },
        }
    }

    /// Exit 0.
    pub fn ok(self) -> Result<Out, String> {
        self.code_is(0)
    }

    /// Exit `code`.
    pub fn code_is(self, code: i32) -> Result<Out, String> {
        if self.code == code {
            Ok(self)
        } else {
            Err(format!("exit {} (wanted {code})\nstdout: {}\nstderr: {}", self.code, self.stdout, self.stderr))
        }
    }

    /// stdout contains `text`.
    pub fn has(self, text: &str) -> Result<Out, String> {
        if self.stdout.contains(text) {
            Ok(self)
        } else {
            Err(format!("stdout lacks {text:?}:\n{}\nstderr: {}", self.stdout, self.stderr))
        }
    }

    /// stdout does not contain `text`.
    pub fn lacks(self, text: &str) -> Result<Out, String> {
        if self.stdout.contains(text) {
            Err(format!("stdout has {text:?}:\n{}", self.stdout))
        } else {
            Ok(self)
        }
    }

    /// A failure: one line on stderr, saying `text`, no backtrace.
    pub fn says(self, text: &str) -> Result<Out, String> {
        let lines: Vec<&str> = self.stderr.lines().collect();
        if lines.len() != 1 || !lines[0].starts_with("basalt: error: ") || !self.stderr.contains(text) {
            return Err(format!("stderr should be one error line with {text:?}, got:\n{}", self.stderr));
        }
        Ok(self)
    }
}

/// The `basalt` command pointed at the run's HBase and directory (for runs the case
/// controls itself: killed mid-way, output elsewhere).
pub fn command(env: &Env) -> Process {
    let mut cmd = Process::new(env!("CARGO_BIN_EXE_basalt"));
    cmd.env("BASALT_THRIFT_ADDR", &env.addr)
        .env("BASALT_THRIFT_FRAMED", if env.framed { "1" } else { "0" })
        .env("BASALT_THRIFT_COMPACT", if env.compact { "1" } else { "0" })
        .env("BASALT_HOME", env.dir.join("home"))
        .env_remove("RUST_BACKTRACE");
    cmd
}

/// Runs `basalt ARGS` to its end (at most 10 minutes).
pub fn basalt(env: &Env, args: &[&str]) -> Out {
    basalt_with(env, &[], args)
}

/// Runs `basalt ARGS` with these environment variables set too (an empty value
/// overrides the run's own, e.g. `BASALT_THRIFT_ADDR` = "" for no gateway).
pub fn basalt_with(env: &Env, vars: &[(&str, &str)], args: &[&str]) -> Out {
    let mut cmd = Command::from_std(command(env));
    for (name, value) in vars {
        cmd.env(name, value);
    }
    Out::of(cmd.args(args))
}

/// The call records: a six-bucket call-record salt over phone and call time.
pub const CALLS_TOML: &str = r#"
[salt]
strategy = "call_record"
buckets = 6
inputs = ["phone", "calltime"]

[[fields]]
name = "phone"
type = "string"
width = 11

[[fields]]
type = "literal"
value = "_"

[[fields]]
name = "calltime"
type = "decimal"
digits = 14
"#;

/// Runs `cases` against one HBase (two at a time unless `--test-threads` says
/// otherwise); `suite` names the binary in errors and its run directory. A case for
/// which `ignored` is true is listed as ignored. If no HBase can be had, the binary
/// fails and says why.
pub fn run(suite: &str, cases: &[(&'static str, Case)], ignored: impl Fn(&str) -> bool) -> ExitCode {
    let mut args = Arguments::from_args();
    args.test_threads = args.test_threads.or(Some(2));
    let listing = |env: Option<Arc<Env>>| -> Vec<Trial> {
        cases
            .iter()
            .map(|&(name, case)| {
                let env = env.clone();
                Trial::test(name, move || match &env {
                    Some(env) => case(env).map_err(Failed::from),
                    None => Err(Failed::from("no HBase")),
                })
                .with_ignored_flag(ignored(name))
            })
            .collect()
    };
    if args.list {
        return libtest_mimic::run(&args, listing(None)).exit_code();
    }
    let mut hbase = match HBase::from_env_or_start(&LaunchOptions { quick_jit: true, ..LaunchOptions::default() }) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("error: no HBase for the {suite} tests: {e}");
            return ExitCode::FAILURE;
        }
    };
    let dir = std::env::temp_dir().join(format!("basalt-{suite}-tests-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("error: cannot create {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    let env = Arc::new(Env {
        addr: hbase.addr().to_owned(),
        framed: hbase.framed(),
        compact: hbase.compact(),
        dir,
        zookeeper: hbase.zookeeper_quorum().ok(),
    });
    let conclusion = libtest_mimic::run(&args, listing(Some(Arc::clone(&env))));
    let _ = std::fs::remove_dir_all(&env.dir);
    if let Err(e) = hbase.stop() {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    conclusion.exit_code()
}
