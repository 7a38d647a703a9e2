//! `basalt import | export | count` against the `cli` binary's HBase: bad rows, unknown columns, keys
//! that do not fit, an import killed mid-way and resumed, exports that re-import to an
//! identical table, counts.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::{Duration, Instant};

use basalt::{Client, Framing, Protocol, Scan};
use futures::TryStreamExt;

use crate::common::{basalt, command, Case, Env, CALLS_TOML};

fn path(env: &Env, name: &str) -> String {
    env.dir.join(name).display().to_string()
}

fn write(env: &Env, name: &str, bytes: &[u8]) -> Result<String, String> {
    let p = path(env, name);
    std::fs::write(&p, bytes).map_err(|e| format!("writing {p}: {e}"))?;
    Ok(p)
}

/// The calls schema in a file of the case's own (cases run in parallel).
fn schema(env: &Env, case: &str) -> Result<String, String> {
    write(env, &format!("{case}.toml"), CALLS_TOML.as_bytes())
}

/// `n` distinct call records as CSV lines (no header): phone,calltime,duration,kind.
fn call_lines(n: usize, seed: u64) -> Vec<String> {
    let mut x = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    let mut next = move || {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        x >> 33
    };
    (0..n)
        .map(|i| {
            let phone = format!("13{:09}", next() % 1000);
            let month = 7 + next() % 6;
            let calltime = format!("2021{month:02}{:02}{:06}", 1 + i % 28, i);
            let kind = ["in", "out", "sms"][(next() % 3) as usize];
            format!("{phone},{calltime},{},{kind}", next() % 600)
        })
        .collect()
}

const CELLS: [&str; 4] = ["--cell", "d:dur=duration:i32", "--cell", "d:kind=kind"];

fn fresh_table(env: &Env, name: &str, s: &str) -> Result<(), String> {
    basalt(env, &["table", "drop", name, "--if-exists", "--yes"]).ok()?;
    basalt(env, &["table", "create", name, "--schema", s]).ok()?;
    Ok(())
}

fn count(env: &Env, table: &str) -> Result<u64, String> {
    let out = basalt(env, &["count", table, "-q"]).ok()?;
    out.stdout.trim().parse().map_err(|_| format!("count printed {:?}", out.stdout))
}

fn client(env: &Env) -> Result<Client, String> {
    Client::builder()
        .address(env.addr.clone())
        .framing(if env.framed { Framing::Framed } else { Framing::Buffered })
        .protocol(if env.compact { Protocol::Compact } else { Protocol::Binary })
        .build()
        .map_err(|e| e.to_string())
}

/// Every cell of `table`, up to 5 versions each: key -> [(family, qualifier, ts, value)].
type Cells = BTreeMap<Vec<u8>, Vec<(Vec<u8>, Vec<u8>, i64, Vec<u8>)>>;

fn all_cells(env: &Env, table: &str) -> Result<Cells, String> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    rt.block_on(async {
        let client = client(env)?;
        let t = client.table(table).map_err(|e| e.to_string())?;
        let rows: Vec<basalt::Row> = t
            .scan(Scan::new().max_versions(5))
            .map_err(|e| e.to_string())?
            .try_collect()
            .await
            .map_err(|e| e.to_string())?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let cells = r
                    .cells()
                    .map(|c| (c.family().to_vec(), c.qualifier().to_vec(), c.timestamp(), c.value().to_vec()))
                    .collect();
                (r.key().to_vec(), cells)
            })
            .collect())
    })
}

fn help_with_examples(env: &Env) -> Result<(), String> {
    for cmd in ["import", "export", "count", "copy"] {
        basalt(env, &[cmd, "--help"]).ok()?.has("Example")?;
    }
    Ok(())
}

/// A malformed line, a bad number, a key that does not fit, invalid UTF-8: rejected
/// with line and reason, the rest imported; `--strict` stops at the first.
fn bad_rows_are_rejected(env: &Env) -> Result<(), String> {
    let s = schema(env, "bad")?;
    fresh_table(env, "bulk_bad", &s)?;
    let mut text: Vec<u8> = b"phone,calltime,duration,kind\n".to_vec();
    for (i, line) in call_lines(60, 1).iter().enumerate() {
        let line = match i {
            10 => "13800000000,20210901000000,61".to_owned(), // line 12: 3 fields
            20 => "13800000000,20210901000001,sixty,in".to_owned(), // line 22: not an i32
            30 => "138000000001,20210901000002,61,in".to_owned(), // line 32: 12-char phone
            40 => "13800000000,2021090100000299,61,in".to_owned(), // line 42: 16 digits
            _ => line.clone(),
        };
        text.extend_from_slice(line.as_bytes());
        text.push(b'\n');
        if i == 50 {
            text.extend_from_slice(b"13800000000,20210901000003,61,\xff\xfe\n");
            // line 53: not UTF-8
        }
    }
    let input = write(env, "bad.csv", &text)?;
    let rejects = format!("{input}.rejects");
    let out = basalt(env, &[&["import", "bulk_bad", &input, "--schema", &s][..], &CELLS].concat()).ok()?;
    out.has("imported 56 rows")?.has("5 rejected")?;
    let rej = std::fs::read_to_string(&rejects).map_err(|e| format!("no reject file: {e}"))?;
    let got: Vec<(String, String)> = rej
        .lines()
        .map(|l| {
            let mut p = l.splitn(3, '\t');
            (p.next().unwrap_or("").to_owned(), p.next().unwrap_or("").to_owned())
        })
        .collect();
    let want = [
        ("12", "3 fields, the header has 4"),
        ("22", "not an i32"),
        ("32", "phone"),
        ("42", "calltime"),
        ("53", "invalid UTF-8"),
    ];
    if got.len() != want.len() || got.iter().zip(want).any(|((l, r), (wl, wr))| l != wl || !r.contains(wr)) {
        return Err(format!("reject file:\n{rej}"));
    }
    if count(env, "bulk_bad")? != 56 {
        return Err("56 rows should be in the table".into());
    }
    // --strict: stop at line 12, the 10 rows before it imported.
    fresh_table(env, "bulk_bad", &s)?;
    let strict = [&["import", "bulk_bad", &input, "--schema", &s, "--strict", "--restart"][..], &CELLS].concat();
    basalt(env, &strict).code_is(2)?.says("line 12: 3 fields")?;
    if count(env, "bulk_bad")? != 10 {
        return Err("--strict: the 10 rows before the bad line should be imported".into());
    }
    basalt(env, &["table", "drop", "bulk_bad", "--yes"]).ok()?;
    Ok(())
}

/// A column the mapping does not know, or a mapped column the input lacks: a usage
/// error before anything is written.
fn unknown_columns(env: &Env) -> Result<(), String> {
    let s = schema(env, "cols")?;
    fresh_table(env, "bulk_cols", &s)?;
    let mut text = "phone,calltime,duration,kind,extra\n".to_owned();
    for l in call_lines(5, 2) {
        text.push_str(&format!("{l},x\n"));
    }
    let input = write(env, "cols.csv", text.as_bytes())?;
    let base = [&["import", "bulk_cols", &input, "--schema", &s][..], &CELLS].concat();
    basalt(env, &base).code_is(2)?.says("unknown column `extra`")?;
    basalt(env, &[&base[..], &["--cell", "d:x=nope"]].concat()).code_is(2)?.says("unknown column `nope`")?;
    basalt(env, &[&base[..], &["--key", "phone=tel"]].concat()).code_is(2)?.says("unknown column `tel`")?;
    if count(env, "bulk_cols")? != 0 {
        return Err("nothing may be written after a usage error".into());
    }
    basalt(env, &[&base[..], &["--skip", "extra"]].concat()).ok()?.has("imported 5 rows")?;
    let no_table = [&["import", "bulk_no_table", &input, "--schema", &s, "--skip", "extra", "--restart"][..], &CELLS];
    basalt(env, &no_table.concat()).code_is(2)?.says("does not exist")?;
    basalt(env, &["table", "drop", "bulk_cols", "--yes"]).ok()?;
    Ok(())
}

/// Kill -9 an import mid-way, resume it: every row exactly once, one version per cell;
/// then the same for an export of the table.
fn interrupted_import_resumes(env: &Env) -> Result<(), String> {
    let s = schema(env, "resume")?;
    fresh_table(env, "bulk_resume", &s)?;
    let n = 40_000;
    let mut text = "phone,calltime,duration,kind\n".to_owned();
    for l in call_lines(n, 3) {
        text.push_str(&l);
        text.push('\n');
    }
    let input = write(env, "resume.csv", text.as_bytes())?;
    let ckpt = format!("{input}.checkpoint");
    let args = [&["import", "bulk_resume", &input, "--schema", &s, "--batch", "20", "--concurrency", "3"][..], &CELLS]
        .concat();
    let mut child = command(env)
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    // Wait for a checkpoint with acknowledged rows, then kill without warning.
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut seen_rows = 0;
    while Instant::now() < deadline {
        if let Ok(t) = std::fs::read_to_string(&ckpt) {
            let v: serde_json::Value = serde_json::from_str(&t).unwrap_or_default();
            seen_rows = v["rows"].as_u64().unwrap_or(0);
            if seen_rows >= 2000 {
                break;
            }
        }
        if child.try_wait().ok().flatten().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    let t = std::fs::read_to_string(&ckpt).map_err(|e| format!("no checkpoint: {e}"))?;
    if t.contains("\"complete\":true") {
        return Err(format!(
            "the import finished before it could be killed (checkpoint {t}); the test needs a slower import"
        ));
    }
    let before = count(env, "bulk_resume")?;
    if before >= n as u64 || before < seen_rows {
        return Err(format!("after the kill: {before} rows in the table, checkpoint said {seen_rows}"));
    }
    // Without --resume the checkpoint is refused (a second import would add versions).
    basalt(env, &args).code_is(2)?.says("--resume")?;
    let out = basalt(env, &[&args[..], &["--resume"]].concat()).ok()?;
    out.has(&format!("imported {} rows", thousands(n)))?.has("resumed after")?;
    let cells = all_cells(env, "bulk_resume")?;
    if cells.len() != n {
        return Err(format!("{} rows after the resume, wanted {n}", cells.len()));
    }
    let timestamps: std::collections::BTreeSet<i64> = cells.values().flatten().map(|c| c.2).collect();
    for (key, row) in &cells {
        if row.len() != 2 {
            return Err(format!(
                "row {} has {} cell versions, wanted 2 (d:dur, d:kind once each)",
                String::from_utf8_lossy(key),
                row.len()
            ));
        }
    }
    if timestamps.len() != 1 {
        return Err(format!("every cell should carry the import's one timestamp, found {}", timestamps.len()));
    }
    basalt(env, &[&args[..], &["--resume"]].concat()).ok()?.has("nothing to do")?;
    interrupted_export_resumes(env, "bulk_resume", &s)?;
    basalt(env, &["table", "drop", "bulk_resume", "--yes"]).ok()?;
    Ok(())
}

/// Kill -9 a gzip export mid-way, resume it from its cursor file: the output is the
/// whole export, every row once, in order.
fn interrupted_export_resumes(env: &Env, table: &str, s: &str) -> Result<(), String> {
    let whole = path(env, "whole.csv");
    basalt(env, &["export", table, "--schema", s, "-o", &whole, "-q"]).ok()?;
    let out = path(env, "cut.csv.gz");
    let cursor = path(env, "cut.cursor");
    let args = ["export", table, "--schema", s, "-o", &out, "--cursor-file", &cursor, "--caching", "5", "-q"];
    let mut child =
        command(env).args(args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().map_err(|e| e.to_string())?;
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        let saved = std::fs::read_to_string(&cursor).unwrap_or_default();
        if saved.contains("\"rows\":") || child.try_wait().ok().flatten().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    let saved = std::fs::read_to_string(&cursor).map_err(|e| format!("no cursor file: {e}"))?;
    if saved.contains("\"done\":true") {
        return Err("the export finished before it could be killed".into());
    }
    basalt(env, &[&args[..], &["--resume"]].concat()).ok()?;
    let mut text = String::new();
    let f = std::fs::File::open(&out).map_err(|e| e.to_string())?;
    std::io::Read::read_to_string(&mut flate2::read::MultiGzDecoder::new(f), &mut text).map_err(|e| e.to_string())?;
    let want = std::fs::read_to_string(&whole).map_err(|e| e.to_string())?;
    if text != want {
        return Err(format!(
            "resumed export: {} lines, the whole export {} lines",
            text.lines().count(),
            want.lines().count()
        ));
    }
    Ok(())
}

fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Export (CSV, TSV, gzip JSON lines, ordered or not) and re-import: identical cells,
/// timestamps included; counts agree, per bucket too.
fn export_reimports_identically(env: &Env) -> Result<(), String> {
    let s = schema(env, "src")?;
    fresh_table(env, "bulk_src", &s)?;
    let n = 3000;
    let mut text = "phone,calltime,duration,kind,ts\n".to_owned();
    for (i, l) in call_lines(n, 4).iter().enumerate() {
        text.push_str(&format!("{l},{}\n", 1_630_000_000_000u64 + i as u64));
    }
    let input = write(env, "src.csv", text.as_bytes())?;
    let import = [&["import", "bulk_src", &input, "--schema", &s, "--timestamp", "ts"][..], &CELLS].concat();
    basalt(env, &import).ok()?;
    // A binary value and an awkward text value.
    let key = basalt(env, &["keys", "encode", "-s", &s, "13000000001", "20210101000000"]).ok()?;
    let key =
        key.stdout.lines().next().and_then(|l| l.strip_prefix("key")).map(str::trim).unwrap_or_default().to_owned();
    basalt(env, &["put", "bulk_src", &key, "d:kind=a,\"b\"\\x00\\xff\\x5cend", "d:dur=0x12"]).ok()?;
    let src = all_cells(env, "bulk_src")?;
    if src.len() != n + 1 {
        return Err(format!("source has {} rows", src.len()));
    }
    let variants: [(&str, &[&str]); 4] =
        [("out.csv", &[]), ("out.tsv", &["--unordered"]), ("out.jsonl.gz", &["--unordered"]), ("out.json", &[])];
    for (file, extra) in variants {
        let out_path = path(env, file);
        let cursor = format!("{out_path}.cursor");
        let args = [
            &["export", "bulk_src", "--schema", &s, "--timestamps", "-o", &out_path, "--cursor-file", &cursor][..],
            extra,
        ]
        .concat();
        basalt(env, &args).ok()?;
        fresh_table(env, "bulk_copy", &s)?;
        basalt(env, &["import", "bulk_copy", &out_path, "--schema", &s, "--all-cells", "--restart"]).ok()?;
        let copy = all_cells(env, "bulk_copy")?;
        if copy != src {
            let diff = src.iter().find(|(k, v)| copy.get(*k) != Some(v));
            return Err(format!("{file}: the re-imported table differs, first at {diff:?}"));
        }
        basalt(env, &[&args[..], &["--resume"]].concat()).code_is(2)?.says("complete")?;
    }
    // Ordered CSV output is in logical key order (phone, then calltime).
    let csv = std::fs::read_to_string(path(env, "out.csv")).map_err(|e| e.to_string())?;
    let keys: Vec<String> = csv.lines().skip(1).map(|l| l.split(',').take(2).collect::<Vec<_>>().join(",")).collect();
    if keys.windows(2).any(|w| w[0] >= w[1]) {
        return Err("ordered export is not in logical key order".into());
    }
    // Counts: the whole table, per bucket, and one phone's query.
    if count(env, "bulk_src")? != n as u64 + 1 {
        return Err("count of the source".into());
    }
    let out = basalt(env, &["count", "bulk_src", "--schema", &s, "--per-bucket", "-q"]).ok()?;
    let per: u64 = out
        .stdout
        .lines()
        .filter(|l| l.contains("% "))
        .filter_map(|l| l.split_whitespace().nth(2).map(|c| c.replace(',', "")))
        .filter_map(|c| c.parse::<u64>().ok())
        .sum();
    out.has("skew")?;
    if per != n as u64 + 1 {
        return Err(format!("per-bucket counts add up to {per}:\n"));
    }
    let phone = "13000000007";
    let want = call_lines(n, 4).iter().filter(|l| l.starts_with(phone)).count();
    let out = basalt(env, &["count", "bulk_src", "--schema", &s, "--fixed", phone, "-q"]).ok()?;
    if out.stdout.trim() != want.to_string() {
        return Err(format!("count of {phone}: {} (wanted {want})", out.stdout.trim()));
    }
    copy_rekeys(env, "bulk_src", &s)?;
    for t in ["bulk_src", "bulk_copy"] {
        basalt(env, &["table", "drop", t, "--yes"]).ok()?;
    }
    Ok(())
}

/// `basalt copy` into the same design (identical cells) and re-keyed from 6 to 12 salt
/// buckets (the same rows, decoded, in the same logical order).
fn copy_rekeys(env: &Env, source: &str, s: &str) -> Result<(), String> {
    let twelve = write(env, "rekey.toml", CALLS_TOML.replace("buckets = 6", "buckets = 12").as_bytes())?;
    fresh_table(env, "bulk_copy", s)?;
    basalt(env, &["copy", source, "bulk_copy", "-q"]).ok()?.has("copied 3,001 rows")?;
    if all_cells(env, "bulk_copy")? != all_cells(env, source)? {
        return Err("copy: the tables differ".into());
    }
    fresh_table(env, "bulk_rekey", &twelve)?;
    let out = basalt(env, &["copy", source, "bulk_rekey", "--schema", s, "--to-schema", &twelve, "-q"]).ok()?;
    out.has("re-keyed")?;
    let per = basalt(env, &["count", "bulk_rekey", "--schema", &twelve, "--per-bucket", "-q"]).ok()?;
    let buckets = per.stdout.lines().filter(|l| l.contains("% ")).count();
    if buckets != 12 || per.stdout.lines().last() != Some("3001") {
        return Err(format!("re-keyed table per bucket:\n{}", per.stdout));
    }
    let a = basalt(env, &["export", source, "--schema", s, "--timestamps", "-q"]).ok()?;
    let b = basalt(env, &["export", "bulk_rekey", "--schema", &twelve, "--timestamps", "-q"]).ok()?;
    if a.stdout != b.stdout || a.stdout.lines().count() != 3002 {
        return Err("the re-keyed table does not export to the same rows".into());
    }
    basalt(env, &["copy", source, "bulk_no_such", "-q"]).code_is(2)?.says("does not exist")?;
    basalt(env, &["table", "drop", "bulk_rekey", "--yes"]).ok()?;
    Ok(())
}

/// An export continued with `--after` a cursor gives exactly the rows after it.
fn export_continues_after_a_cursor(env: &Env) -> Result<(), String> {
    let s = schema(env, "cursor")?;
    fresh_table(env, "bulk_cursor", &s)?;
    let mut text = "phone,calltime,duration,kind\n".to_owned();
    for l in call_lines(500, 5) {
        text.push_str(&l);
        text.push('\n');
    }
    let input = write(env, "cursor.csv", text.as_bytes())?;
    basalt(env, &[&["import", "bulk_cursor", &input, "--schema", &s][..], &CELLS].concat()).ok()?;
    let whole = basalt(env, &["export", "bulk_cursor", "--schema", &s, "-f", "json", "-q"]).ok()?;
    let lines: Vec<&str> = whole.stdout.lines().collect();
    let cut = 200;
    let first = lines[cut - 1];
    let v: serde_json::Value = serde_json::from_str(first).map_err(|e| e.to_string())?;
    let (phone, calltime) = (v["phone"].as_str().unwrap_or(""), v["calltime"].as_str().unwrap_or(""));
    let key = basalt(env, &["keys", "encode", "-s", &s, phone, calltime]).ok()?;
    let key =
        key.stdout.lines().next().and_then(|l| l.strip_prefix("key")).map(str::trim).unwrap_or_default().to_owned();
    // A plain (schema-less) export continues after a key cursor.
    let plain = basalt(env, &["export", "bulk_cursor", "-f", "json", "-q"]).ok()?;
    let plain_lines: Vec<&str> = plain.stdout.lines().collect();
    let idx = plain_lines.iter().position(|l| l.contains(&format!("\"key\":\"{key}\""))).ok_or("key not exported")?;
    let hexkey: String = key.bytes().map(|b| format!("{b:02x}")).collect();
    let rest = basalt(env, &["export", "bulk_cursor", "-f", "json", "-q", "--after", &format!("key.{hexkey}")]).ok()?;
    let rest_lines: Vec<&str> = rest.stdout.lines().collect();
    if rest_lines[..] != plain_lines[idx + 1..] {
        return Err(format!("--after gave {} rows, wanted {}", rest_lines.len(), plain_lines.len() - idx - 1));
    }
    basalt(env, &["export", "bulk_cursor", "--after", "v1.zz"]).code_is(2)?;
    basalt(env, &["table", "drop", "bulk_cursor", "--yes"]).ok()?;
    Ok(())
}

/// The bulk commands' cases, run by the `cli` binary on its HBase.
pub fn cases() -> Vec<(&'static str, Case)> {
    vec![
        ("help_with_examples", help_with_examples),
        ("bad_rows_are_rejected", bad_rows_are_rejected),
        ("unknown_columns", unknown_columns),
        ("interrupted_import_resumes", interrupted_import_resumes),
        ("export_reimports_identically", export_reimports_identically),
        ("export_continues_after_a_cursor", export_continues_after_a_cursor),
    ]
}
