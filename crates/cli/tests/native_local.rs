//! `basalt` with no gateway anywhere: `basalt local start --no-gateway` starts HBase
//! alone and prints its configuration directory; with `HBASE_CONF_DIR` set to it (and
//! no gateway address), the admin and data commands and the demo run over native RPC.
//! The HBase is stopped by pid (`basalt local stop`) whatever the case did.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use libtest_mimic::{Arguments, Failed, Trial};

/// The result of one command run.
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Out {
    fn ok(self) -> Result<Out, String> {
        if self.code == 0 {
            Ok(self)
        } else {
            Err(format!("exit {}\nstdout: {}\nstderr: {}", self.code, self.stdout, self.stderr))
        }
    }

    fn has(self, text: &str) -> Result<Out, String> {
        if self.stdout.contains(text) {
            Ok(self)
        } else {
            Err(format!("stdout lacks {text:?}:\n{}\nstderr: {}", self.stdout, self.stderr))
        }
    }
}

/// Runs `basalt ARGS` with no gateway address, `BASALT_HOME` in `home`, and `conf` as
/// `HBASE_CONF_DIR` when given (at most 10 minutes).
fn basalt(home: &Path, conf: Option<&Path>, args: &[&str]) -> Out {
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_basalt"));
    cmd.env("BASALT_THRIFT_ADDR", "")
        .env_remove("BASALT_NATIVE")
        .env_remove("BASALT_NATIVE_ZOOKEEPER")
        .env_remove("RUST_BACKTRACE")
        .env("BASALT_HOME", home);
    match conf {
        Some(conf) => cmd.env("HBASE_CONF_DIR", conf),
        None => cmd.env_remove("HBASE_CONF_DIR"),
    };
    cmd.args(args).timeout(Duration::from_secs(600));
    match cmd.output() {
        Ok(o) => Out {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        },
        Err(e) => Out { code: -1, stdout: String::new(), stderr: format!("could not run basalt: {e}") },
    }
}

/// Stops the HBase of a run directory on drop (by pid, through `basalt local stop`).
struct Stopper(PathBuf);

impl Drop for Stopper {
    fn drop(&mut self) {
        let dir = self.0.display().to_string();
        let out = basalt(&self.0, None, &["local", "stop", "--dir", &dir]);
        if out.code != 0 {
            eprintln!("basalt local stop --dir {dir} failed: {}", out.stderr);
        }
    }
}

fn no_gateway_anywhere(root: &Path) -> Result<(), String> {
    let dir = root.join("local");
    let d = dir.display().to_string();
    // --no-gateway starts the demo's own HBase: with a cluster named, it is refused.
    let both = basalt(root, None, &["--native", "127.0.0.1:1", "demo", "--no-gateway"]);
    if both.code != 2 || !both.stderr.contains("--no-gateway") {
        return Err(format!("demo --no-gateway --native: exit {} {}", both.code, both.stderr));
    }
    let started = basalt(root, None, &["local", "start", "--no-gateway", "--dir", &d, "--heap", "768m"]);
    let stopper = Stopper(dir.clone());
    let started = started.ok()?;
    let conf = PathBuf::from(started.stdout.lines().last().unwrap_or_default().trim());
    if !conf.join("hbase-site.xml").is_file() || !started.stderr.contains("HBASE_CONF_DIR") {
        return Err(format!("local start --no-gateway printed {:?} / {:?}", started.stdout, started.stderr));
    }
    if dir.join("thrift.pid").exists() || dir.join("thrift.addr").exists() {
        return Err("a gateway was started".into());
    }
    basalt(root, None, &["local", "status", "--dir", &d]).ok()?.has(&format!("up native {}", conf.display()))?;
    // A second start finds it running.
    basalt(root, None, &["local", "start", "--no-gateway", "--dir", &d]).ok()?.has(&conf.display().to_string())?;

    let native = |args: &[&str]| basalt(root, Some(&conf), args);
    native(&["ns", "create", "cli_ng"]).ok()?;
    native(&["ns", "list"]).ok()?.has("cli_ng")?;
    native(&["table", "create", "cli_ng:t", "-f", "d", "--split", "m"]).ok()?.has("2 region(s)")?;
    native(&["put", "cli_ng:t", "a1", "d:q=one"]).ok()?;
    native(&["put", "cli_ng:t", "n1", "d:q=two"]).ok()?;
    native(&["get", "cli_ng:t", "n1"]).ok()?.has("two")?;
    native(&["scan", "cli_ng:t"]).ok()?.has("a1")?.has("n1")?;
    native(&["flush", "cli_ng:t"]).ok()?.has("flushed")?;
    native(&["regions", "cli_ng:t"]).ok()?.has("2 region(s)")?;
    json_outputs(&native)?;
    native(&["table", "describe", "cli_ng:t"]).ok()?.has("family d")?;
    native(&["status"]).ok()?.has("1 live server(s)")?;
    native(&["table", "drop", "cli_ng:t"]).ok()?;
    native(&["table", "list"]).ok()?;
    native(&["ns", "delete", "cli_ng"]).ok()?;
    let demo = native(&["demo", "--rows", "2000", "--namespace", "cli_ng_demo"]).ok()?;
    demo.has("over native RPC")?.has("0 failed")?;
    // Without HBASE_CONF_DIR the demo finds the local HBase of BASALT_HOME (no gateway).
    let local_dir = ["demo", "--rows", "1000", "--namespace", "cli_ng_demo"];
    basalt(&dir, None, &local_dir).ok()?.has("without a gateway")?.has("0 failed")?;

    drop(stopper);
    let down = basalt(root, None, &["local", "status", "--dir", &d]);
    if down.code != 3 || !down.stdout.contains("down") {
        return Err(format!("after stop: exit {} {}", down.code, down.stdout));
    }
    Ok(())
}

/// `-o json` of the admin commands that print, one document each, over native RPC.
fn json_outputs(native: &dyn Fn(&[&str]) -> Out) -> Result<(), String> {
    let json = |args: &[&str]| -> Result<serde_json::Value, String> {
        let out = native(args).ok()?;
        serde_json::from_str(out.stdout.trim()).map_err(|e| format!("{args:?}: {e}: {:?}", out.stdout))
    };
    let check = |ok: bool, what: &str, value: &serde_json::Value| {
        if ok {
            Ok(())
        } else {
            Err(format!("{what}: {value}"))
        }
    };
    let has = |list: &serde_json::Value, name: &str| list.as_array().is_some_and(|l| l.iter().any(|n| n == name));
    let ns = json(&["ns", "list", "-o", "json"])?;
    check(has(&ns["namespaces"], "cli_ng") && has(&ns["namespaces"], "hbase"), "ns list", &ns)?;
    let ns = json(&["ns", "describe", "cli_ng", "-o", "json"])?;
    check(ns["name"] == "cli_ng" && has(&ns["tables"], "cli_ng:t"), "ns describe", &ns)?;
    let tables = json(&["table", "list", "-o", "json"])?;
    check(has(&tables["tables"], "cli_ng:t"), "table list", &tables)?;
    let table = json(&["table", "describe", "cli_ng:t", "-o", "json"])?;
    let regions = table["regions"].as_array().map_or(0, Vec::len);
    check(table["enabled"] == true && table["families"][0]["name"] == "d" && regions == 2, "table describe", &table)?;
    let regions = json(&["regions", "cli_ng:t", "-o", "json"])?;
    let second = &regions["regions"][1];
    check(regions["table"] == "cli_ng:t" && second["start"] == "m" && second["end"] == "", "regions", &regions)?;
    let status = json(&["status", "-o", "json"])?;
    let live = status["live_servers"].as_array().map_or(0, Vec::len);
    check(live == 1 && status["version"].as_str().is_some_and(|v| v.starts_with("2.6")), "status", &status)?;
    native(&["snapshot", "create", "cli_ng_s", "cli_ng:t"]).ok()?;
    let snapshots = json(&["snapshot", "list", "-o", "json"])?;
    let named = snapshots["snapshots"].as_array().and_then(|l| l.iter().find(|s| s["name"] == "cli_ng_s"));
    check(named.is_some_and(|s| s["table"] == "cli_ng:t"), "snapshot list", &snapshots)?;
    native(&["snapshot", "delete", "cli_ng_s", "--yes"]).ok()?;
    Ok(())
}

fn has_tool(cmd: &str, arg: &str) -> bool {
    Command::new(cmd).arg(arg).output().is_ok_and(|o| o.status.success())
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let no_launcher = !(has_tool("java", "-version") && has_tool("mvn", "-v"));
    let trial = Trial::test("no_gateway_anywhere", || {
        let root = std::env::temp_dir().join(format!("basalt-native-local-{}", std::process::id()));
        std::fs::create_dir_all(&root).map_err(|e| Failed::from(e.to_string()))?;
        let result = no_gateway_anywhere(&root);
        let _ = std::fs::remove_dir_all(&root);
        result.map_err(Failed::from)
    })
    .with_ignored_flag(no_launcher);
    libtest_mimic::run(&args, vec![trial]).exit_code()
}
