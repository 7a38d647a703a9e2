//! The `basalt` command against a real HBase: one HBase for the whole binary (from
//! `BASALT_THRIFT_ADDR`, else launched by basalt-testkit), every case run through
//! assert_cmd, the HBase stopped at the end whatever the cases did.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

mod bulk;
#[path = "../common/mod.rs"]
mod common;

use assert_cmd::Command;
use common::{basalt, basalt_with, Case, Env, Out, CALLS_TOML};

/// Writes `text` to a new file of the run directory (unique: cases run in parallel).
fn file(env: &Env, name: &str, text: &str) -> Result<String, String> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let p = env.dir.join(format!("{}-{name}", NEXT.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&p, text).map_err(|e| e.to_string())?;
    Ok(p.display().to_string())
}

fn help_for_every_command(env: &Env) -> Result<(), String> {
    let commands: &[&[&str]] = &[
        &[],
        &["local"],
        &["local", "start"],
        &["local", "stop"],
        &["local", "status"],
        &["demo"],
        &["keys"],
        &["keys", "encode"],
        &["keys", "decode"],
        &["keys", "plan"],
        &["keys", "splits"],
        &["keys", "analyze"],
        &["ns"],
        &["ns", "create"],
        &["ns", "list"],
        &["ns", "describe"],
        &["ns", "delete"],
        &["table"],
        &["table", "create"],
        &["table", "list"],
        &["table", "describe"],
        &["table", "drop"],
        &["table", "disable"],
        &["table", "enable"],
        &["table", "truncate"],
        &["table", "alter"],
        &["flush"],
        &["compact"],
        &["split"],
        &["merge"],
        &["move"],
        &["balancer"],
        &["balancer", "on"],
        &["balancer", "off"],
        &["balancer", "run"],
        &["balancer", "status"],
        &["snapshot"],
        &["snapshot", "create"],
        &["snapshot", "list"],
        &["snapshot", "clone"],
        &["snapshot", "restore"],
        &["snapshot", "delete"],
        &["status"],
        &["regions"],
        &["get"],
        &["put"],
        &["delete"],
        &["scan"],
    ];
    for c in commands {
        let mut args = c.to_vec();
        args.push("--help");
        basalt(env, &args).ok()?.has("Example").map_err(|e| format!("{c:?}: {e}"))?;
    }
    Ok(())
}

fn usage_errors(env: &Env) -> Result<(), String> {
    basalt(env, &["frobnicate"]).code_is(2)?.says("unrecognized subcommand")?;
    basalt(env, &["scan"]).code_is(2)?.says("required")?.says("<TABLE>")?;
    // The missing argument is named.
    basalt(env, &["get", "mytable"]).code_is(2)?.says("not provided: <KEY> (see --help)")?;
    basalt(env, &["put", "t", "k"]).code_is(2)?.says("<FAMILY:QUALIFIER=VALUE>")?;
    basalt(env, &["scan", "t", "--limit", "many"]).code_is(2)?.says("invalid value")?;
    basalt(env, &["--connect-timeout", "soon", "ns", "list"]).code_is(2)?.says("not a duration")?;
    basalt(env, &["get", "t", "bad\\q"]).code_is(2)?.says("bad escape")?;
    basalt(env, &["put", "t", "k", "novalue"]).code_is(2)?.says("family:qualifier=value")?;
    let mut no_addr = Command::new(env!("CARGO_BIN_EXE_basalt"));
    let o = no_addr.args(["ns", "list"]).env_remove("BASALT_THRIFT_ADDR").output().map_err(|e| e.to_string())?;
    let out = Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into(),
        stderr: String::from_utf8_lossy(&o.stderr).into(),
    };
    out.code_is(2)?.says("no HBase address")?;
    Ok(())
}

fn keys_encode_decode(env: &Env) -> Result<(), String> {
    let s = file(env, "calls.toml", CALLS_TOML)?;
    let out = basalt(env, &["keys", "encode", "--schema", &s, "13812345678", "20210915123045"]).ok()?;
    out.has("key     2_13812345678_20210915123045")?.has("bucket  2")?.has("length  28 bytes")?;
    let hex = "0x325f31333831323334353637385f3230323130393135313233303435";
    basalt(env, &["keys", "encode", "-s", &s, "13812345678", "20210915123045"]).ok()?.has(hex)?;
    basalt(env, &["keys", "decode", "-s", &s, "2_13812345678_20210915123045"])
        .ok()?
        .has("bucket  2")?
        .has("calltime 20210915123045")?;
    basalt(env, &["keys", "decode", "-s", &s, hex]).ok()?.has("phone   13812345678")?;
    let bin = file(
        env,
        "bin.toml",
        "[[fields]]\nname = \"id\"\ntype = \"u32\"\n[[fields]]\nname = \"b\"\ntype = \"bytes\"\n",
    )?;
    basalt(env, &["keys", "encode", "-s", &bin, "258", "0x00ff"])
        .ok()?
        .has("key     \\x00\\x00\\x01\\x02\\x00\\xFF\\xFF")?;
    basalt(env, &["keys", "decode", "-s", &bin, "--hex", "00000102610001"]).ok()?.has("id      258")?;
    Ok(())
}

fn keys_plan_splits_analyze(env: &Env) -> Result<(), String> {
    let s = file(env, "calls.toml", CALLS_TOML)?;
    let plan = ["keys", "plan", "-s", &s, "--fixed", "13812345678", "--from", "20210901000000"];
    basalt(env, &[&plan[..], &["--to", "20211200000000"]].concat())
        .ok()?
        .has("3 range(s), buckets [2, 4, 5], targeted")?
        .has("4_13812345678_20211000000000")?;
    let splits = basalt(env, &["keys", "splits", "-s", &s]).ok()?;
    if splits.stdout.lines().collect::<Vec<_>>() != ["1_", "2_", "3_", "4_", "5_"] {
        return Err(format!("bucket splits: {}", splits.stdout));
    }
    let splits = basalt(env, &["keys", "splits", "--algo", "numbered", "--regions", "6"]).ok()?;
    if splits.stdout.lines().collect::<Vec<_>>() != ["0|", "1|", "2|", "3|", "4|"] {
        return Err(format!("numbered splits: {}", splits.stdout));
    }
    basalt(env, &["keys", "splits", "--algo", "hex", "--regions", "4"]).ok()?.has("40000000\n80000000\nc0000000")?;
    basalt(env, &["keys", "splits", "--algo", "hex"]).code_is(2)?.says("--regions")?;
    let svg = env.dir.join("regions.svg");
    let svg_s = svg.display().to_string();
    basalt(env, &["keys", "analyze", "-s", &s, "--samples", "20000", "--svg", &svg_s])
        .ok()?
        .has("this design: 20000 keys, 6 regions")?
        .has("without salt: 20000 keys, 6 regions")?
        .has("skew 1.0")?;
    let text = std::fs::read_to_string(&svg).map_err(|e| e.to_string())?;
    if !text.starts_with("<svg") || !text.contains("skew") {
        return Err("the SVG chart is not one".into());
    }
    let plain = file(env, "plain.toml", "[[fields]]\nname = \"ts\"\ntype = \"timestamp\"\n")?;
    basalt(env, &["keys", "analyze", "-s", &plain, "--samples", "1000", "--regions", "4"]).ok()?.has("tail 100%")?;
    Ok(())
}

fn keys_bad_input(env: &Env) -> Result<(), String> {
    let s = file(env, "calls.toml", CALLS_TOML)?;
    let missing = env.dir.join("missing.toml").display().to_string();
    basalt(env, &["keys", "encode", "-s", &missing, "1", "2"]).code_is(2)?.says("cannot read schema file")?;
    let bad = file(env, "bad.toml", "[[fields]]\nname = \"x\"\ntype = \"u128\"\n")?;
    basalt(env, &["keys", "encode", "-s", &bad, "1"]).code_is(2)?.says("unknown type")?;
    let broken = file(env, "broken.toml", "[[fields]\nname = ")?;
    basalt(env, &["keys", "decode", "-s", &broken, "k"]).code_is(2)?.says("schema file")?;
    basalt(env, &["keys", "encode", "-s", &s, "138123456789", "20210915123045"]).code_is(2)?;
    basalt(env, &["keys", "encode", "-s", &s, "13812345678", "123456789012345"]).code_is(2)?;
    basalt(env, &["keys", "encode", "-s", &s, "13812345678", "soon"]).code_is(2)?.says("calltime")?;
    basalt(env, &["keys", "encode", "-s", &s, "13812345678"]).code_is(2)?.says("needs 2")?;
    basalt(env, &["keys", "decode", "-s", &s, "0x12g4"]).code_is(2)?.says("hex")?;
    basalt(env, &["keys", "decode", "-s", &s, "9_13812345678_20210915123045"]).code_is(2)?.says("key")?;
    basalt(env, &["keys", "plan", "-s", &s, "--fixed", "1", "--fixed", "2", "--fixed", "3"]).code_is(2)?;
    Ok(())
}

fn namespaces(env: &Env) -> Result<(), String> {
    basalt(env, &["ns", "create", "cli_ns", "--config", "owner=tests"]).ok()?.has("created namespace cli_ns")?;
    basalt(env, &["ns", "create", "cli_ns"]).code_is(2)?.says("already exists")?;
    basalt(env, &["ns", "list"]).ok()?.has("cli_ns")?.has("default")?;
    basalt(env, &["ns", "describe", "cli_ns"]).ok()?.has("owner = tests")?;
    basalt(env, &["ns", "delete", "cli_ns"]).ok()?;
    basalt(env, &["ns", "describe", "cli_ns"]).code_is(2)?;
    basalt(env, &["ns", "create", "bad name!"]).code_is(2)?;
    Ok(())
}

fn tables(env: &Env) -> Result<(), String> {
    let s = file(env, "calls.toml", CALLS_TOML)?;
    let fam = "d:versions=3,bloom=rowcol,ttl=86400,encoding=fast_diff";
    basalt(env, &["table", "drop", "cli_tables", "--if-exists", "--yes"]).ok()?;
    basalt(env, &["table", "create", "cli_tables", "-f", fam, "-f", "m", "--schema", &s]).ok()?.has("6 region(s)")?;
    basalt(env, &["table", "create", "cli_tables"]).code_is(2)?.says("already exists")?;
    basalt(env, &["table", "list"]).ok()?.has("cli_tables")?;
    basalt(env, &["table", "describe", "cli_tables"])
        .ok()?
        .has("versions=3")?
        .has("bloom=RowCol")?
        .has("ttl=86400")?
        .has("6 region(s)")?
        .has("[3_, 4_)")?;
    basalt(env, &["table", "drop", "cli_tables", "--yes"]).ok()?;
    basalt(env, &["table", "drop", "cli_tables", "--yes"]).code_is(2)?.says("not found")?;
    basalt(env, &["table", "drop", "cli_tables", "--if-exists", "--yes"]).ok()?;
    basalt(env, &["table", "create", "cli_t2", "--algo", "hex", "--regions", "4", "--split", "0x00"])
        .ok()?
        .has("5 region(s)")?;
    basalt(env, &["table", "drop", "cli_t2", "--yes"]).ok()?;
    basalt(env, &["table", "create", "cli_t3", "-f", "d:bloom=huge"]).code_is(2)?.says("none|row|rowcol")?;
    basalt(env, &["table", "create", "cli_t4", "--region-replication", "2"]).ok()?;
    basalt(env, &["table", "describe", "cli_t4"]).ok()?.has("region replication 2")?;
    basalt(env, &["table", "drop", "cli_t4", "--yes"]).ok()?;
    basalt(env, &["table", "create", "cli_t5", "--region-replication", "0"]).code_is(2)?.says("replication")?;
    Ok(())
}

fn data_commands(env: &Env) -> Result<(), String> {
    basalt(env, &["table", "drop", "cli_data", "--if-exists", "--yes"]).ok()?;
    basalt(env, &["table", "create", "cli_data", "-f", "d:versions=2"]).ok()?;
    basalt(env, &["put", "cli_data", "0x00ff01", "d:a=1", "d:b=0x00ff"]).ok()?;
    for k in ["host1", "host12", "host2", "host3"] {
        basalt(env, &["put", "cli_data", k, &format!("d:v={k} value, \"q\"")]).ok()?;
    }
    basalt(env, &["get", "cli_data", "\\x00\\xFF\\x01"]).ok()?.has("d:b")?.has("\\x00\\xFF")?;
    basalt(env, &["get", "cli_data", "00ff01", "--hex", "--columns", "d:a"]).ok()?.has("0x00ff01")?.has("0x31")?;
    basalt(env, &["get", "cli_data", "host1", "-o", "json"]).ok()?.has(r#""key":"host1""#)?;
    basalt(env, &["get", "cli_data", "nope"]).code_is(1)?.says("not found")?;
    // A raw byte prefix: `host1` matches `host12` too (why keys need fixed widths).
    let out = basalt(env, &["scan", "cli_data", "--prefix", "host1", "-o", "csv"]).ok()?;
    if out.stdout.lines().count() != 3
        || !out.stdout.contains("host1,d:v,")
        || !out.stdout.contains("\"host1 value, \"\"q\"\"\"")
    {
        return Err(format!("prefix scan as CSV:\n{}", out.stdout));
    }
    let out =
        basalt(env, &["scan", "cli_data", "--start", "host12", "--stop", "host3", "--reverse", "-o", "json"]).ok()?;
    let keys: Vec<String> = out
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["key"].as_str().map(str::to_owned))
        .collect();
    if keys != ["host2", "host12"] {
        return Err(format!("reversed range scan: {keys:?}"));
    }
    let out = basalt(env, &["scan", "cli_data", "--limit", "2", "--columns", "d:v"]).ok()?;
    if out.stdout.lines().count() != 3 || !out.stdout.starts_with("KEY") {
        return Err(format!("limited table output:\n{}", out.stdout));
    }
    let f = "SingleColumnValueFilter('d','v',=,'binary:host3 value, \"q\"')";
    basalt(env, &["scan", "cli_data", "--filter", f, "-o", "json"]).ok()?.has("host3")?;
    basalt(env, &["scan", "cli_data", "--filter", "NoSuchFilter(1)"]).code_is(2)?.says("unknown filter")?;
    basalt(env, &["delete", "cli_data", "host2"]).ok()?;
    basalt(env, &["get", "cli_data", "host2"]).code_is(1)?;
    basalt(env, &["delete", "cli_data", "0x00ff01", "--columns", "d:a"]).ok()?;
    basalt(env, &["get", "cli_data", "0x00ff01"]).ok()?.has("d:b")?;
    basalt(env, &["table", "drop", "cli_data", "--yes"]).ok()?;
    Ok(())
}

fn salted_scan(env: &Env) -> Result<(), String> {
    let s = file(env, "calls.toml", CALLS_TOML)?;
    basalt(env, &["table", "drop", "cli_calls", "--if-exists", "--yes"]).ok()?;
    basalt(env, &["table", "create", "cli_calls", "--schema", &s]).ok()?;
    let times =
        ["20210815000000", "20210905120000", "20211001080000", "20211015090000", "20211130235959", "20211201000000"];
    for (i, t) in times.iter().enumerate() {
        let out = basalt(env, &["keys", "encode", "-s", &s, "13812345678", t]).ok()?;
        let key = out.stdout.lines().next().and_then(|l| l.strip_prefix("key")).map(str::trim).unwrap_or_default();
        basalt(env, &["put", "cli_calls", key, &format!("d:n={i}")]).ok()?;
    }
    let q = ["scan", "cli_calls", "--salted", &s, "--fixed", "13812345678", "--from", "20210901000000"];
    let out = basalt(env, &[&q[..], &["--to", "20211200000000", "-o", "csv"]].concat()).ok()?;
    let got: Vec<&str> = out.stdout.lines().skip(1).filter_map(|l| l.split(',').next()).collect();
    let want: Vec<String> = times[1..5].iter().map(|t| format!("{}_13812345678_{t}", salt_of(t))).collect();
    if got != want {
        return Err(format!("merged salted scan: {got:?}, wanted {want:?}"));
    }
    let out =
        basalt(env, &[&q[..], &["--to", "20211200000000", "--reverse", "--limit", "2", "-o", "csv"]].concat()).ok()?;
    let got: Vec<&str> = out.stdout.lines().skip(1).filter_map(|l| l.split(',').next()).collect();
    if got != [want[3].as_str(), want[2].as_str()] {
        return Err(format!("reversed merged scan with limit 2: {got:?}"));
    }
    basalt(env, &["table", "drop", "cli_calls", "--yes"]).ok()?;
    Ok(())
}

/// The salt the call-record design gives phone 13812345678 per month.
fn salt_of(t: &str) -> &'static str {
    match &t[..6] {
        "202109" => "2",
        "202110" => "4",
        "202111" => "5",
        _ => "?",
    }
}

fn unknown_table(env: &Env) -> Result<(), String> {
    basalt(env, &["get", "cli_no_such_table", "k"]).code_is(2)?.says("table not found")?;
    basalt(env, &["scan", "cli_no_such_table"]).code_is(2)?.says("not found")?;
    basalt(env, &["put", "cli_no_such_table", "k", "d:a=1"]).code_is(2)?.says("not found")?;
    basalt(env, &["table", "describe", "cli_no_such_table"]).code_is(2)?.says("not found")?;
    Ok(())
}

fn unreachable_address(env: &Env) -> Result<(), String> {
    let t = Instant::now();
    basalt(env, &["--addr", "127.0.0.1:1", "--connect-timeout", "2s", "ns", "list"]).code_is(3)?.says("unreachable")?;
    basalt(env, &["--addr", "127.0.0.1:1", "get", "t", "k"]).code_is(3)?.says("127.0.0.1:1")?;
    basalt(env, &["--addr", "127.0.0.1:1", "demo", "--rows", "1000"]).code_is(3)?.says("unreachable")?;
    if t.elapsed() > Duration::from_secs(10) {
        return Err(format!("unreachable errors took {:?}", t.elapsed()));
    }
    basalt(env, &["--addr", "nonsense", "ns", "list"]).code_is(2)?.says("host:port")?;
    Ok(())
}

fn demo_small(env: &Env) -> Result<(), String> {
    let svg = env.dir.join("demo.svg").display().to_string();
    let out = basalt(env, &["demo", "--rows", "5000", "--namespace", "cli_demo", "--svg", &svg]).ok()?;
    out.has("0 failed")?.has("three months = three scans")?.has("rows/s")?.has("skew")?;
    basalt(env, &["ns", "describe", "cli_demo"]).code_is(2)?;
    basalt(env, &["demo", "--rows", "5"]).code_is(2)?.says("--rows")?;
    Ok(())
}

fn local_lifecycle(env: &Env) -> Result<(), String> {
    let dir = env.dir.join("local");
    let d = dir.display().to_string();
    basalt(env, &["local", "status", "--dir", &d]).code_is(3)?.has("down")?;
    basalt(env, &["local", "stop", "--dir", &d]).ok()?.has("not running")?;
    let out = basalt(env, &["local", "start", "--dir", &d, "--heap", "512m"]).ok()?;
    let addr = out.stdout.lines().last().unwrap_or_default().to_owned();
    let result = (|| {
        basalt(env, &["local", "status", "--dir", &d]).ok()?.has(&format!("up {addr}"))?;
        basalt(env, &["local", "start", "--dir", &d]).ok()?.has(&addr)?;
        basalt(env, &["--addr", &addr, "ns", "list"]).ok()?.has("hbase")?;
        Ok::<(), String>(())
    })();
    basalt(env, &["local", "stop", "--dir", &d]).ok()?.has("stopped")?;
    result?;
    basalt(env, &["local", "status", "--dir", &d]).code_is(3)?;
    Ok(())
}

/// `--kerberos` against the plain gateway: a build without Kerberos refuses it with
/// one line naming the cargo feature (exit 2), never running unauthenticated; a build
/// with it tries the SASL handshake, which this gateway does not speak, and fails
/// with another error.
fn kerberos_flag(env: &Env) -> Result<(), String> {
    let args = ["--kerberos", "auth", "--connect-timeout", "2s", "--request-timeout", "5s", "ns", "list"];
    let out = basalt(env, &args);
    if basalt_thrift::KERBEROS_SUPPORTED {
        if out.code == 0 || out.stderr.contains("cargo feature") {
            return Err(format!("a SASL handshake with a plain gateway: exit {}, {}", out.code, out.stderr));
        }
        Ok(())
    } else {
        out.code_is(2)?.says("cargo feature `kerberos`")?.says("--features kerberos")?;
        Ok(())
    }
}

/// A malformed `--filter` is bad input found on the client: exit 2, one line naming the
/// problem and its position (the gateway would only have said "Internal error").
fn malformed_filters(env: &Env) -> Result<(), String> {
    basalt(env, &["table", "drop", "cli_filters", "--if-exists", "--yes"]).ok()?;
    basalt(env, &["table", "create", "cli_filters", "-f", "d"]).ok()?;
    let cases = [
        ("garbage", "unknown filter 'garbage' at position 0"),
        ("PrefixFilter('a') AND", "expected a filter at position 21"),
        ("NoSuchFilter('a')", "unknown filter 'NoSuchFilter' at position 0"),
        ("SingleColumnValueFilter('d','q',=~,'binary:x')", "must be a compare operator"),
        ("SingleColumnValueFilter('d','q',=~,'binary:x')", "at position 32"),
        ("ValueFilter(=,'nocomparatortype')", "at position 14"),
        ("PageFilter('ten')", "argument 1 of PageFilter must be an integer at position 11"),
        ("SingleColumnValueFilter('d',", "at position 28"),
    ];
    for (filter, says) in cases {
        basalt(env, &["scan", "cli_filters", "--filter", filter]).code_is(2)?.says(says)?;
    }
    // A well-formed filter still reaches the server and works.
    basalt(env, &["put", "cli_filters", "a1", "d:x=1"]).ok()?;
    basalt(env, &["put", "cli_filters", "b1", "d:x=1"]).ok()?;
    let out =
        basalt(env, &["scan", "cli_filters", "--filter", "PrefixFilter('a') AND KeyOnlyFilter()", "-o", "csv"]).ok()?;
    if out.stdout.lines().count() != 2 || !out.stdout.contains("a1,d:x,") {
        return Err(format!("filtered scan:\n{}", out.stdout));
    }
    basalt(env, &["table", "drop", "cli_filters", "--yes"]).ok()?;
    Ok(())
}

/// Every output format of a row: JSON is one valid object per row with the newest
/// version of each column, the table is aligned, CSV quotes what needs quoting; a row
/// of many columns comes out whole.
fn output_formats(env: &Env) -> Result<(), String> {
    basalt(env, &["table", "drop", "cli_output", "--if-exists", "--yes"]).ok()?;
    basalt(env, &["table", "create", "cli_output", "-f", "d:versions=3"]).ok()?;
    basalt(env, &["put", "cli_output", "k1", "d:a=old"]).ok()?;
    std::thread::sleep(Duration::from_millis(5)); // a later timestamp for the next version
    basalt(env, &["put", "cli_output", "k1", "d:a=new", "d:b=say \"hi\", \\\\ok"]).ok()?;
    let wide: Vec<String> = (0..500).map(|i| format!("d:c{i:03}={i}")).collect();
    let mut put = vec!["put", "cli_output", "k2"];
    put.extend(wide.iter().map(String::as_str));
    basalt(env, &put).ok()?;

    let out = basalt(env, &["scan", "cli_output", "-o", "json"]).ok()?;
    let rows: Vec<serde_json::Value> = out
        .stdout
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{e}: {}", out.stdout))?;
    let [k1, k2] = rows.as_slice() else { return Err(format!("two JSON rows wanted:\n{}", out.stdout)) };
    // The shape `basalt export` writes: the key, then each column and its `@ts` twin.
    if k1["key"] != "k1"
        || k1["d:a"] != "new"
        || k1["d:b"] != "say \"hi\", \\x5Cok"
        || k1["d:a@ts"].as_i64().is_none_or(|ts| ts <= 0)
    {
        return Err(format!("JSON of k1: {k1}"));
    }
    let members = k2.as_object().map_or(0, |c| c.len());
    if members != 1 + 2 * 500 || k2["d:c499"] != "499" {
        return Err(format!("JSON of the 500-column row: {members} members"));
    }

    let out = basalt(env, &["get", "cli_output", "k1", "--versions", "3"]).ok()?;
    let lines: Vec<&str> = out.stdout.lines().collect();
    // KEY, then d:a twice (both versions, newest first), then d:b: aligned columns.
    if lines.len() != 4 || !lines[0].starts_with("KEY ") || !lines[1].contains("new") || !lines[2].contains("old") {
        return Err(format!("table of k1 with versions:\n{}", out.stdout));
    }
    let value_at = lines[0].find("VALUE").unwrap_or(0);
    if lines.iter().skip(1).any(|l| l.len() < value_at || l[..value_at].ends_with(|c: char| !c.is_whitespace())) {
        return Err(format!("table not aligned:\n{}", out.stdout));
    }

    let out = basalt(env, &["get", "cli_output", "k1", "-o", "csv"]).ok()?;
    if !out.stdout.starts_with("key,column,timestamp,value\n") || !out.stdout.contains(",\"say \"\"hi\"\", \\x5Cok\"\n")
    {
        return Err(format!("CSV of k1:\n{}", out.stdout));
    }
    basalt(env, &["table", "drop", "cli_output", "--yes"]).ok()?;
    Ok(())
}

/// The value printed by `--stats` for `key` (a metric's name and labels), from stderr.
fn stat<'a>(out: &'a Out, key: &str) -> Result<Vec<&'a str>, String> {
    out.stderr
        .lines()
        .find(|l| l.split_whitespace().next() == Some(key))
        .map(|l| l.split_whitespace().skip(1).collect())
        .ok_or_else(|| format!("--stats printed no {key}:\n{}", out.stderr))
}

/// `--stats` prints the client's metrics to stderr when the command ends: the calls it
/// made by operation and outcome, their attempts, the scan's pages and their rows, and
/// the pool's connections.
fn stats_flag(env: &Env) -> Result<(), String> {
    basalt(env, &["table", "drop", "cli_stats", "--if-exists", "--yes"]).ok()?;
    basalt(env, &["table", "create", "cli_stats", "-f", "d"]).ok()?;
    for i in 0..7 {
        basalt(env, &["put", "cli_stats", &format!("k{i}"), "d:v=1"]).ok()?;
    }
    let out = basalt(env, &["--stats", "get", "cli_stats", "k3"]).ok()?.has("d:v")?;
    if stat(&out, "basalt_calls_total{operation=get,outcome=ok}")? != ["1"]
        || stat(&out, "basalt_attempts_total{operation=get}")? != ["1"]
        || stat(&out, "basalt_call_seconds{operation=get}")?.first() != Some(&"count=1")
        // One connection, used for the call, then kept idle until the command ended.
        || stat(&out, "basalt_pool_connections{state=in_use}")? != ["0", "max=1"]
        || stat(&out, "basalt_pool_connections{state=idle}")? != ["0", "max=1"]
    {
        return Err(format!("--stats get:\n{}", out.stderr));
    }
    let out = basalt(env, &["--stats", "scan", "cli_stats", "-o", "csv"]).ok()?;
    if out.stdout.lines().count() != 8 {
        return Err(format!("scan of 7 rows:\n{}", out.stdout));
    }
    // The pages' rows add up to the rows scanned.
    let pages = stat(&out, "basalt_scan_page_rows")?;
    let count: usize = pages.first().and_then(|c| c.strip_prefix("count=")).and_then(|c| c.parse().ok()).unwrap_or(0);
    let max: usize = pages.last().and_then(|c| c.strip_prefix("max=")).and_then(|c| c.parse().ok()).unwrap_or(0);
    if count == 0
        || max == 0
        || max > 7
        || stat(&out, "basalt_calls_total{operation=open_scanner,outcome=ok}")? != ["1"]
    {
        return Err(format!("--stats scan:\n{}", out.stderr));
    }
    if !out.stderr.contains("basalt_scan_page_bytes") {
        return Err(format!("--stats scan shows no page bytes:\n{}", out.stderr));
    }
    // A failed call is counted under its error's kind.
    let out = basalt(env, &["--stats", "get", "cli_no_such_table", "k"]).code_is(2)?;
    if stat(&out, "basalt_calls_total{operation=get,outcome=table_not_found}")? != ["1"] {
        return Err(format!("--stats of a failed get:\n{}", out.stderr));
    }
    // Without the flag, nothing is printed.
    let out = basalt(env, &["get", "cli_stats", "k3"]).ok()?;
    if out.stderr.contains("basalt: stats") {
        return Err(format!("stats without --stats:\n{}", out.stderr));
    }
    basalt(env, &["table", "drop", "cli_stats", "--yes"]).ok()?;
    Ok(())
}

/// The data commands over native RPC (`--native gateway`: the region servers found
/// through the gateway), with admin still on the gateway; and the native flags checked.
fn native_route(env: &Env) -> Result<(), String> {
    basalt(env, &["table", "create", "cli_native", "--family", "d"]).ok()?;
    let native = ["--native", "gateway"];
    basalt(env, &[&native[..], &["put", "cli_native", "k1", "d:a=one", "d:b=two"]].concat()).ok()?;
    basalt(env, &[&native[..], &["put", "cli_native", "k2", "d:a=three"]].concat()).ok()?;
    basalt(env, &[&native[..], &["get", "cli_native", "k1"]].concat()).ok()?.has("one")?.has("two")?;
    let scan = basalt(env, &[&native[..], &["scan", "cli_native", "--reverse", "--output", "csv"]].concat()).ok()?;
    let keys: Vec<&str> = scan.stdout.lines().filter_map(|l| l.split(',').next()).collect();
    if keys != ["key", "k2", "k1", "k1"] {
        return Err(format!("reverse scan over native RPC: {}", scan.stdout));
    }
    basalt(env, &[&native[..], &["count", "cli_native"]].concat()).ok()?.has("2")?;
    basalt(env, &[&native[..], &["delete", "cli_native", "k2"]].concat()).ok()?;
    basalt(env, &["get", "cli_native", "k2"]).code_is(1)?.says("not found")?; // through the gateway: gone
                                                                              // The data path really is native: a bootstrap server nobody listens on fails it,
                                                                              // while the same command through the gateway works.
    basalt(env, &["--native", "127.0.0.1:1", "get", "cli_native", "k1"]).code_is(3)?.says("127.0.0.1:1")?;
    let two = ["--native", "127.0.0.1:1,127.0.0.1:2", "get", "cli_native", "k1"];
    basalt(env, &two).code_is(3)?.says("127.0.0.1:2")?;
    basalt(env, &["--native", "not an address", "get", "cli_native", "k1"]).code_is(2)?.says("host:port")?;
    basalt(env, &["--native", ",", "get", "cli_native", "k1"]).code_is(2)?.says("--native")?;
    basalt(env, &["--native-address-map", "a=b", "get", "cli_native", "k1"]).code_is(2)?.says("--native")?;
    basalt(env, &["--native", "gateway", "--native-address-map", "a", "get", "cli_native", "k1"]).code_is(2)?;
    let zookeeper = basalt(env, &["--native-zookeeper", "127.0.0.1:1", "get", "cli_native", "k1"]);
    if cfg!(feature = "zookeeper") {
        zookeeper.code_is(1)?.says("127.0.0.1:1")?;
    } else {
        zookeeper.code_is(2)?.says("`zookeeper`")?;
    }
    basalt(env, &["table", "drop", "cli_native", "--yes"]).ok()?;
    let demo = ["--native", "gateway", "demo", "--rows", "2000", "--namespace", "cli_native_demo"];
    basalt(env, &demo).ok()?.has("over native RPC")?.has("0 failed")?;
    basalt(env, &["--native", ",", "demo", "--rows", "2000"]).code_is(2)?.says("--native")?;
    Ok(())
}

/// Every admin command with `--native` alone (no gateway address): namespaces, tables
/// and their settings, regions, snapshots, the balancer and the status; each effect
/// read back through the gateway. Through the gateway, what it cannot carry names
/// `--native`; what destroys data needs `--yes` without a terminal.
fn native_admin(env: &Env) -> Result<(), String> {
    let server = meta_server(env)?;
    let native = |args: &[&str]| basalt(env, &[&["--addr=", "--native", &server][..], args].concat());
    native(&["ns", "create", "cli_nadm"]).ok()?;
    basalt(env, &["ns", "list"]).ok()?.has("cli_nadm")?;
    let create = ["table", "create", "cli_nadm:t", "-f", "d", "--split", "m", "--split", "p"];
    native(&create).ok()?.has("3 region(s)")?;
    native(&["table", "alter", "cli_nadm:t", "--set", "MAX_FILESIZE=2147483648", "--add-family", "x"]).ok()?;
    basalt(env, &["table", "describe", "cli_nadm:t"]).ok()?.has("MAX_FILESIZE = 2147483648")?.has("family x")?;
    native(&["table", "alter", "cli_nadm:t", "--delete-family", "x"]).code_is(2)?.says("--yes")?;
    native(&["table", "alter", "cli_nadm:t", "--delete-family", "x", "--yes"]).ok()?;
    basalt(env, &["table", "describe", "cli_nadm:t"]).ok()?.lacks("family x")?;
    native(&["put", "cli_nadm:t", "a1", "d:q=one"]).ok()?;
    native(&["put", "cli_nadm:t", "n1", "d:q=two"]).ok()?;
    native(&["flush", "cli_nadm:t"]).ok()?.has("flushed")?;
    native(&["compact", "cli_nadm:t", "--major"]).ok()?;
    native(&["split", "cli_nadm:t", "t"]).ok()?;
    basalt(env, &["regions", "cli_nadm:t"]).ok()?.has("4 region(s)")?.has("[p, t)")?;
    // Regions that are not the split's daughters (those keep references until compacted).
    native(&["merge", "cli_nadm:t", "a1", "n1"]).ok()?;
    basalt(env, &["regions", "cli_nadm:t"]).ok()?.has("3 region(s)")?.has("[(first), p)")?;
    native(&["snapshot", "create", "cli_nadm_s", "cli_nadm:t"]).ok()?;
    native(&["snapshot", "list"]).ok()?.has("cli_nadm_s")?;
    native(&["snapshot", "clone", "cli_nadm_s", "cli_nadm:c"]).ok()?;
    basalt(env, &["get", "cli_nadm:c", "n1"]).ok()?.has("two")?;
    native(&["put", "cli_nadm:t", "later", "d:q=x"]).ok()?;
    native(&["snapshot", "restore", "cli_nadm_s"]).code_is(2)?.says("--yes")?;
    native(&["snapshot", "restore", "cli_nadm_s", "--yes"]).ok()?;
    basalt(env, &["get", "cli_nadm:t", "later"]).code_is(1)?.says("not found")?;
    native(&["snapshot", "delete", "cli_nadm_s", "--yes"]).ok()?;
    native(&["snapshot", "list"]).ok()?.lacks("cli_nadm_s")?;
    native(&["table", "truncate", "cli_nadm:t"]).code_is(2)?.says("--yes")?;
    native(&["table", "truncate", "cli_nadm:t", "--yes"]).ok()?;
    basalt(env, &["get", "cli_nadm:t", "a1"]).code_is(1)?.says("not found")?;
    native(&["table", "disable", "cli_nadm:t"]).ok()?;
    basalt(env, &["table", "describe", "cli_nadm:t"]).ok()?.has("(disabled)")?;
    native(&["table", "enable", "cli_nadm:t"]).ok()?;
    native(&["balancer", "status"]).ok()?.has("balancer")?;
    native(&["status"]).ok()?.has("live server(s)")?.has(&server)?;
    basalt(env, &["flush", "cli_nadm:t"]).code_is(2)?.says("--native")?;
    for table in ["cli_nadm:t", "cli_nadm:c"] {
        native(&["table", "drop", table, "--yes"]).ok()?;
    }
    native(&["ns", "delete", "cli_nadm"]).ok()?;
    basalt(env, &["ns", "list"]).ok()?.lacks("cli_nadm")?;
    Ok(())
}

/// The region server of `hbase:meta`, as the gateway lists it (a bootstrap server).
fn meta_server(env: &Env) -> Result<String, String> {
    let meta = basalt(env, &["regions", "hbase:meta"]).ok()?;
    let server = meta.stdout.split_whitespace().skip_while(|word| *word != "on").nth(1);
    Ok(server.ok_or_else(|| format!("no server for hbase:meta in {:?}", meta.stdout))?.to_owned())
}

/// A configuration directory of the run with this hbase-site.xml content.
fn conf_dir(env: &Env, name: &str, properties: &[(&str, &str)]) -> Result<String, String> {
    let dir = env.dir.join(name);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let body: String = properties
        .iter()
        .map(|(k, v)| format!("<property>\n<name>{k}</name>\n<value>{v}</value>\n</property>\n"))
        .collect();
    let xml = format!("<?xml version=\"1.0\"?>\n<configuration>\n{body}</configuration>\n");
    std::fs::write(dir.join("hbase-site.xml"), xml).map_err(|e| e.to_string())?;
    Ok(dir.display().to_string())
}

/// `HBASE_CONF_DIR` alone (no gateway address, no --native): commands go over native
/// RPC the way its hbase-site.xml says (bootstrap servers, or the ZooKeeper quorum);
/// effects are read back through the gateway; a gateway address wins over the file; a
/// bad file is a usage error naming its line.
fn site_conf_dir(env: &Env) -> Result<(), String> {
    let server = meta_server(env)?;
    let bootstrap = conf_dir(env, "conf-bootstrap", &[("hbase.client.bootstrap.servers", &server)])?;
    let site =
        |conf: &str, args: &[&str]| basalt_with(env, &[("BASALT_THRIFT_ADDR", ""), ("HBASE_CONF_DIR", conf)], args);
    site(&bootstrap, &["table", "create", "cli_site", "-f", "d"]).ok()?;
    site(&bootstrap, &["put", "cli_site", "k1", "d:a=one"]).ok()?;
    basalt(env, &["get", "cli_site", "k1"]).ok()?.has("one")?; // through the gateway
    basalt(env, &["put", "cli_site", "k2", "d:a=two"]).ok()?;
    site(&bootstrap, &["scan", "cli_site"]).ok()?.has("k1")?.has("two")?;
    site(&bootstrap, &["scan", "cli_site", "--output", "csv"]).ok()?.has("k2,d:a,")?;
    site(&bootstrap, &["status"]).ok()?.has("live server(s)")?.has(&server)?;
    // --conf does the same.
    let conf = ["--addr=", "--conf", &bootstrap, "get", "cli_site", "k2"];
    basalt(env, &conf).ok()?.has("two")?;
    if let Some(quorum) = &env.zookeeper {
        let (host, port) = quorum.rsplit_once(':').ok_or_else(|| format!("quorum {quorum:?}"))?;
        let zk = conf_dir(
            env,
            "conf-zookeeper",
            &[("hbase.zookeeper.quorum", host), ("hbase.zookeeper.property.clientPort", port)],
        )?;
        site(&zk, &["scan", "cli_site"]).ok()?.has("k1")?.has("k2")?;
    }
    // The file really is the way: servers nobody listens on fail the command, while a
    // gateway address given too wins over the file.
    let nowhere = conf_dir(env, "conf-nowhere", &[("hbase.client.bootstrap.servers", "127.0.0.1:1")])?;
    site(&nowhere, &["get", "cli_site", "k1"]).code_is(3)?.says("127.0.0.1:1")?;
    basalt_with(env, &[("HBASE_CONF_DIR", &nowhere)], &["get", "cli_site", "k1"]).ok()?.has("one")?;
    // A file that cannot be used: one usage line naming the file and line.
    let bad = conf_dir(env, "conf-bad", &[("hbase.zookeeper.property.clientPort", "21x")])?;
    site(&bad, &["get", "cli_site", "k1"]).code_is(2)?.says("hbase-site.xml:3: hbase.zookeeper.property.clientPort")?;
    let missing = env.dir.join("no-conf").display().to_string();
    site(&missing, &["get", "cli_site", "k1"]).code_is(2)?.says("no-conf/hbase-site.xml")?;
    site(&bootstrap, &["table", "drop", "cli_site", "--yes"]).ok()?;
    basalt(env, &["table", "list"]).ok()?.lacks("cli_site")?;
    Ok(())
}

/// Output to a reader that went away (`basalt ns list | head -1`) ends the command
/// quietly with exit 0, and a full disk is a one-line error: never a panic.
fn closed_or_full_stdout(env: &Env) -> Result<(), String> {
    let lines = ["keys", "splits", "--algo", "hex", "--regions", "5000"];
    for args in [&["ns", "list"][..], &["table", "list"], &lines] {
        let mut cmd = common::command(env);
        cmd.args(args).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| e.to_string())?;
        drop(child.stdout.take()); // the reader goes away before anything is written
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() || !stderr.is_empty() {
            return Err(format!("basalt {} into a closed pipe: {} {stderr}", args.join(" "), out.status));
        }
    }
    let full = std::fs::File::options().write(true).open("/dev/full").map_err(|e| e.to_string())?;
    let out = common::command(env).args(lines).stdout(full).output().map_err(|e| e.to_string())?;
    let out = Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::new(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    out.code_is(1)?.says("writing output")?;
    Ok(())
}

fn has_tool(cmd: &str, arg: &str) -> bool {
    std::process::Command::new(cmd).arg(arg).output().is_ok_and(|o| o.status.success())
}

fn main() -> ExitCode {
    let mut cases: Vec<(&str, Case)> = vec![
        ("help_for_every_command", help_for_every_command),
        ("usage_errors", usage_errors),
        ("keys_encode_decode", keys_encode_decode),
        ("keys_plan_splits_analyze", keys_plan_splits_analyze),
        ("keys_bad_input", keys_bad_input),
        ("namespaces", namespaces),
        ("tables", tables),
        ("data_commands", data_commands),
        ("malformed_filters", malformed_filters),
        ("output_formats", output_formats),
        ("salted_scan", salted_scan),
        ("unknown_table", unknown_table),
        ("unreachable_address", unreachable_address),
        ("demo_small", demo_small),
        ("local_lifecycle", local_lifecycle),
        ("kerberos_flag", kerberos_flag),
        ("stats_flag", stats_flag),
        ("closed_or_full_stdout", closed_or_full_stdout),
        ("native_route", native_route),
        ("native_admin", native_admin),
        ("site_conf_dir", site_conf_dir),
    ];
    // The bulk commands share this binary's HBase (one HBase start less per run).
    cases.extend(bulk::cases());
    let no_launcher = !(has_tool("java", "-version") && has_tool("mvn", "-v"));
    common::run("cli", &cases, |name| name == "local_lifecycle" && no_launcher)
}
