//! `basalt` with no gateway anywhere: `basalt local start --no-gateway` starts HBase
//! alone and prints its configuration directory; with `HBASE_CONF_DIR` set to it (and
//! no gateway address), the admin and data commands and the demo run over native RPC.
//! The HBase is stopped by pid (`basalt local stop`) whatever the case did.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use libtest_mimic::{Arguments, Failed, Trial};

mod common;

use common::Out;

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
    Out::of(cmd.args(args))
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
    native(&["ns", "alter", "cli_ng", "--set", "owner=ops", "--set", "tier=gold"]).ok()?;
    native(&["ns", "alter", "cli_ng", "--unset", "tier"]).ok()?;
    let described = native(&["ns", "describe", "cli_ng"]).ok()?;
    if !described.stdout.contains("owner") || described.stdout.contains("tier") {
        return Err(format!("ns alter: {}", described.stdout));
    }
    native(&["table", "create", "cli_ng:t", "-f", "d", "--split", "m"]).ok()?.has("2 region(s)")?;
    native(&["put", "cli_ng:t", "a1", "d:q=one"]).ok()?;
    native(&["put", "cli_ng:t", "n1", "d:q=two"]).ok()?;
    native(&["get", "cli_ng:t", "n1"]).ok()?.has("two")?;
    native(&["scan", "cli_ng:t"]).ok()?.has("a1")?.has("n1")?;
    native(&["flush", "cli_ng:t"]).ok()?.has("flushed")?;
    native(&["regions", "cli_ng:t"]).ok()?.has("2 region(s)")?;
    every_other_command(&native, root)?;
    json_outputs(&native)?;
    native(&["table", "describe", "cli_ng:t"]).ok()?.has("family d")?;
    native(&["status"]).ok()?.has("1 live server(s)")?;
    // Dropping destroys data: off a terminal it needs --yes, and nothing is dropped.
    let unconfirmed = native(&["table", "drop", "cli_ng:t"]);
    if unconfirmed.code != 2 || !unconfirmed.stderr.contains("--yes") {
        return Err(format!("drop without --yes: exit {} {}", unconfirmed.code, unconfirmed.stderr));
    }
    native(&["get", "cli_ng:t", "n1"]).ok()?.has("two")?;
    native(&["table", "drop", "cli_ng:t", "--yes"]).ok()?;
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

/// The other data and admin commands, each over native RPC with no gateway running,
/// each effect read back with another command.
fn every_other_command(native: &dyn Fn(&[&str]) -> Out, root: &Path) -> Result<(), String> {
    // Counters: applied once each, read back.
    native(&["incr", "cli_ng:t", "c1", "d:hits"]).ok()?.has("1")?;
    native(&["incr", "cli_ng:t", "c1", "d:hits", "41"]).ok()?.has("42")?;
    native(&["counter", "cli_ng:t", "c1", "d:hits"]).ok()?.has("42")?;
    // A plain cell is not a counter.
    let not_counter = native(&["counter", "cli_ng:t", "a1", "d:q"]);
    if not_counter.code == 0 || !not_counter.stderr.contains("not an 8-byte counter") {
        return Err(format!("counter of a 3-byte cell: exit {} {}", not_counter.code, not_counter.stderr));
    }
    native(&["delete", "cli_ng:t", "c1"]).ok()?;
    let gone = native(&["get", "cli_ng:t", "c1"]);
    if gone.code == 0 {
        return Err(format!("a deleted row is still there: {}", gone.stdout));
    }
    // Bulk commands: export, count, copy.
    let exported = root.join("cli_ng.jsonl");
    let exported_arg = exported.display().to_string();
    native(&["export", "cli_ng:t", "--format", "json", "-o", &exported_arg]).ok()?;
    let lines = std::fs::read_to_string(&exported).map_err(|e| format!("{exported_arg}: {e}"))?;
    if lines.lines().count() != 2 || !lines.contains("two") {
        return Err(format!("export wrote {lines:?}"));
    }
    native(&["count", "cli_ng:t"]).ok()?.has("2")?;
    native(&["table", "create", "cli_ng:copy", "-f", "d"]).ok()?;
    native(&["copy", "cli_ng:t", "cli_ng:copy"]).ok()?;
    native(&["get", "cli_ng:copy", "n1"]).ok()?.has("two")?;
    native(&["table", "drop", "cli_ng:copy", "--yes"]).ok()?;
    // Families and the table's state.
    native(&["table", "alter", "cli_ng:t", "--add-family", "x:versions=2"]).ok()?;
    native(&["table", "describe", "cli_ng:t"]).ok()?.has("family x")?;
    native(&["table", "alter", "cli_ng:t", "--delete-family", "x", "--yes"]).ok()?;
    native(&["table", "disable", "cli_ng:t"]).ok()?;
    native(&["table", "enable", "cli_ng:t"]).ok()?;
    native(&["get", "cli_ng:t", "n1"]).ok()?.has("two")?;
    // Regions: compact, split, merge back.
    native(&["compact", "cli_ng:t", "--major"]).ok()?;
    native(&["split", "cli_ng:t", "t"]).ok()?;
    native(&["regions", "cli_ng:t"]).ok()?.has("3 region(s)")?;
    native(&["merge", "cli_ng:t", "n1", "t"]).ok()?;
    native(&["regions", "cli_ng:t"]).ok()?.has("2 region(s)")?;
    // The balancer, off and on again.
    native(&["balancer", "off"]).ok()?;
    native(&["balancer", "status"]).ok()?.has("off")?;
    native(&["balancer", "on"]).ok()?;
    // Snapshots: create, clone, restore, delete.
    native(&["snapshot", "create", "cli_ng_snap", "cli_ng:t"]).ok()?;
    native(&["snapshot", "clone", "cli_ng_snap", "cli_ng:clone"]).ok()?;
    native(&["get", "cli_ng:clone", "n1"]).ok()?.has("two")?;
    native(&["table", "drop", "cli_ng:clone", "--yes"]).ok()?;
    native(&["put", "cli_ng:t", "z1", "d:q=three"]).ok()?;
    native(&["table", "disable", "cli_ng:t"]).ok()?;
    native(&["snapshot", "restore", "cli_ng_snap", "--yes"]).ok()?;
    native(&["table", "enable", "cli_ng:t"]).ok()?;
    let restored = native(&["get", "cli_ng:t", "z1"]);
    if restored.code == 0 {
        return Err(format!("a row written after the snapshot survived its restore: {}", restored.stdout));
    }
    native(&["snapshot", "delete", "cli_ng_snap", "--yes"]).ok()?;
    // Truncate keeps the table and its splits, and empties it.
    native(&["table", "truncate", "cli_ng:t", "--yes"]).ok()?;
    native(&["count", "cli_ng:t"]).ok()?.has("0")?;
    native(&["regions", "cli_ng:t"]).ok()?.has("2 region(s)")?;
    // Import writes the rows back from a CSV file, keyed by a one-field schema (fixed
    // width: the key is the field's bytes, with no terminator).
    let schema = root.join("cli_ng.toml");
    let csv = root.join("cli_ng.csv");
    std::fs::write(&schema, "[[fields]]\nname = \"id\"\ntype = \"string\"\nwidth = 2\n").map_err(|e| e.to_string())?;
    std::fs::write(&csv, "id,v\na1,one\nn1,two\n").map_err(|e| e.to_string())?;
    let (schema, csv) = (schema.display().to_string(), csv.display().to_string());
    native(&["import", "cli_ng:t", &csv, "--schema", &schema, "--cell", "d:q=v"]).ok()?;
    native(&["get", "cli_ng:t", "n1"]).ok()?.has("two")?;
    native(&["get", "cli_ng:t", "a1"]).ok()?.has("one")?;
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
    let launcher = has_tool("java", "-version") && has_tool("mvn", "-v");
    // No skip: without the launcher's JDK and Maven the test fails, saying so.
    let trial = Trial::test("no_gateway_anywhere", move || {
        if !launcher {
            return Err(Failed::from("no JDK 17 or Maven on PATH: the local HBase cannot start (see the README)"));
        }
        let root = std::env::temp_dir().join(format!("basalt-native-local-{}", std::process::id()));
        std::fs::create_dir_all(&root).map_err(|e| Failed::from(e.to_string()))?;
        let result = no_gateway_anywhere(&root);
        let _ = std::fs::remove_dir_all(&root);
        result.map_err(Failed::from)
    });
    libtest_mimic::run(&args, vec![trial]).exit_code()
}
