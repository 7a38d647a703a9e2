//! The Java side: `docker/DiffTool.java` (HBase's own client, one JVM for the whole run)
//! fed one line per operation in the grammar of its header, answering one line each.

use std::io::{BufRead, BufReader, Write as _};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use basalt::filter::BitwiseOp;
use basalt::{Bytes, CompareOp};

use super::answer::{Answer, Item};
use super::model::{Cmp, DelD, DelSpec, Filt, GetD, Mutation, Opts, PutD, Read, ScanD, Write};
use crate::support::Env;

/// How long one answer may take (a scan the server refuses fails within its retries).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(120);

/// The running tool; stopped (stdin closed, then killed by pid) on drop.
pub struct JavaTool {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl JavaTool {
    /// Starts the tool against the test HBase and waits for its `ready` line.
    pub fn start(env: &Env) -> Result<JavaTool, String> {
        let mut cmd = env.region_tool().map_err(|e| format!("the differential test needs a launched HBase: {e}"))?;
        cmd.args(["--tool", "DiffTool"]);
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start DiffTool: {e}"))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().ok_or("DiffTool has no stdout")?;
        let (tx, lines) = mpsc::channel();
        // Answers are the lines starting with "DT "; HBase's log lines are dropped.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(answer) = line.strip_prefix("DT ") {
                    if tx.send(answer.to_owned()).is_err() {
                        break;
                    }
                }
            }
        });
        let mut tool = JavaTool { child, stdin, lines };
        let ready = tool.answer_line(Duration::from_secs(180))?;
        if ready != "ok ready" {
            return Err(format!("DiffTool did not start: {ready:?}"));
        }
        Ok(tool)
    }

    /// Sends lines without waiting (the answers queue up in order).
    pub fn send(&mut self, line: &str) -> Result<(), String> {
        let stdin = self.stdin.as_mut().ok_or("DiffTool's stdin is closed")?;
        stdin.write_all(line.as_bytes()).and_then(|()| stdin.write_all(b"\n")).map_err(|e| format!("DiffTool: {e}"))?;
        stdin.flush().map_err(|e| format!("DiffTool: {e}"))
    }

    /// The next answer, parsed.
    pub fn answer(&mut self) -> Result<Answer, String> {
        let line = self.answer_line(ANSWER_TIMEOUT)?;
        parse_answer(&line)
    }

    /// Sends one command and returns its answer.
    pub fn call(&mut self, line: &str) -> Result<Answer, String> {
        self.send(line)?;
        self.answer()
    }

    fn answer_line(&mut self, timeout: Duration) -> Result<String, String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => Ok(line),
            Err(mpsc::RecvTimeoutError::Timeout) => Err(format!("DiffTool gave no answer within {timeout:?}")),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err("DiffTool exited".into()),
        }
    }
}

impl Drop for JavaTool {
    fn drop(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(b"quit\n");
        }
        for _ in 0..50 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn parse_answer(line: &str) -> Result<Answer, String> {
    if let Some(message) = line.strip_prefix("err ") {
        return Ok(Answer::Err(message.to_owned()));
    }
    if let Some(message) = line.strip_prefix("bad ") {
        return Err(format!("DiffTool could not read a line of the test: {message}"));
    }
    let body = line.strip_prefix("ok ").ok_or_else(|| format!("not an answer: {line:?}"))?;
    if body.starts_with("each ") {
        let mut tokens = body.split(' ');
        return parse_part(&mut tokens, line);
    }
    let mut t = body.split(' ');
    let mut next = || t.next().ok_or_else(|| format!("answer ends early: {line:?}"));
    let answer = match next()? {
        "done" => Answer::Done,
        "bool" => Answer::Bool(next()? == "true"),
        "bools" => {
            let n: usize = next()?.parse().map_err(|e| format!("{e}: {line:?}"))?;
            let mut v = Vec::with_capacity(n.min(10_000));
            for _ in 0..n {
                v.push(next()? == "true");
            }
            Answer::Bools(v)
        }
        "rows" => {
            let num = |s: &str| s.parse::<i64>().map_err(|e| format!("{e}: {line:?}"));
            let n = num(next()?)?;
            let mut items = Vec::new();
            for _ in 0..n {
                let row = unhex(next()?)?;
                let c = num(next()?)?;
                let (mut cells, mut types) = (Vec::new(), Vec::new());
                for _ in 0..c {
                    let (f, q) = (unhex(next()?)?, unhex(next()?)?);
                    let ts = num(next()?)?;
                    cells.push((f, q, ts, unhex(next()?)?));
                    // The cell's type byte (Java's `getTypeByte`, a signed byte).
                    types.push(num(next()?)? as u8);
                }
                items.push(Item { row, cells, types });
            }
            Answer::Rows(items)
        }
        other => return Err(format!("unknown answer {other:?} in {line:?}")),
    };
    Ok(answer)
}

fn unhex(s: &str) -> Result<Vec<u8>, String> {
    if s == "." {
        return Ok(Vec::new());
    }
    if s.len() % 2 != 0 {
        return Err(format!("odd hex {s:?}"));
    }
    // By nibbles, not `from_str_radix` per pair: answers carry cells of up to ~1 MB.
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        b'A'..=b'F' => Ok(c - b'A' + 10),
        _ => Err(format!("not hex: {:?}", &s[..s.len().min(80)])),
    };
    s.as_bytes().chunks_exact(2).map(|pair| Ok(nibble(pair[0])? << 4 | nibble(pair[1])?)).collect()
}

// ---- rendering ----

/// Lower-case hex, `.` for empty.
pub(super) fn hex(out: &mut String, b: &[u8]) {
    out.push(' ');
    if b.is_empty() {
        out.push('.');
    }
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.reserve(2 * b.len());
    for x in b {
        out.push(char::from(DIGITS[usize::from(x >> 4)]));
        out.push(char::from(DIGITS[usize::from(x & 0x0f)]));
    }
}

pub(super) fn word(out: &mut String, w: impl std::fmt::Display) {
    out.push(' ');
    out.push_str(&w.to_string());
}

pub(super) fn opt_num(out: &mut String, n: Option<impl std::fmt::Display>) {
    match n {
        Some(n) => word(out, n),
        None => word(out, "-"),
    }
}

fn flag(out: &mut String, b: bool) {
    word(out, if b { "1" } else { "0" });
}

pub(super) fn op(out: &mut String, op: CompareOp) {
    let w = match op {
        CompareOp::Less => "lt",
        CompareOp::LessOrEqual => "le",
        CompareOp::Equal => "eq",
        CompareOp::NotEqual => "ne",
        CompareOp::GreaterOrEqual => "ge",
        CompareOp::Greater => "gt",
    };
    word(out, w);
}

pub(super) fn put(out: &mut String, p: &PutD) {
    hex(out, &p.row);
    opt_num(out, p.ts);
    word(out, p.cells.len());
    for (f, q, v, ts) in &p.cells {
        hex(out, f);
        hex(out, q);
        hex(out, v);
        opt_num(out, *ts);
    }
}

fn spec(out: &mut String, kind: &str, f: &[u8], q: &[u8], ts: Option<i64>) {
    word(out, kind);
    hex(out, f);
    hex(out, q);
    opt_num(out, ts);
}

pub(super) fn delete(out: &mut String, d: &DelD) {
    hex(out, &d.row);
    opt_num(out, d.until);
    word(out, d.specs.len());
    for s in &d.specs {
        match s {
            DelSpec::Latest(f, q) => spec(out, "cv", f, q, None),
            DelSpec::VersionAt(f, q, ts) => spec(out, "cv", f, q, Some(*ts)),
            DelSpec::AllVersions(f, q) => spec(out, "ca", f, q, None),
            DelSpec::VersionsUntil(f, q, ts) => spec(out, "ca", f, q, Some(*ts)),
            DelSpec::Family(f) => spec(out, "f", f, b"", None),
            DelSpec::FamilyUntil(f, ts) => spec(out, "f", f, b"", Some(*ts)),
            DelSpec::FamilyVersion(f, ts) => spec(out, "fv", f, b"", Some(*ts)),
        }
    }
}

pub(super) fn mutations(out: &mut String, muts: &[Mutation]) {
    word(out, muts.len());
    for m in muts {
        match m {
            Mutation::Put(p) => {
                word(out, "p");
                put(out, p);
            }
            Mutation::Delete(d) => {
                word(out, "d");
                delete(out, d);
            }
            Mutation::Increment(..) | Mutation::Append(..) => super::mutation_api::counter_mutation(out, m),
        }
    }
}

/// The tool's line for a write.
pub fn write_line(w: &Write) -> String {
    let mut out = String::from("w");
    match w {
        Write::MutateRowResults(..) | Write::CheckWith(_) | Write::Batch(_) | Write::GatewayRefuses(_) => {
            super::mutation_api::java_write(&mut out, w)
        }
        Write::Put(p) => {
            word(&mut out, "put");
            put(&mut out, p);
        }
        Write::PutMany(ps) => {
            word(&mut out, "putmany");
            word(&mut out, ps.len());
            ps.iter().for_each(|p| put(&mut out, p));
        }
        Write::Delete(d) => {
            word(&mut out, "del");
            delete(&mut out, d);
        }
        Write::DeleteMany(ds) => {
            word(&mut out, "delmany");
            word(&mut out, ds.len());
            ds.iter().for_each(|d| delete(&mut out, d));
        }
        Write::DeleteAsUnion(d) => {
            word(&mut out, "delmany");
            word(&mut out, d.specs.len());
            for s in &d.specs {
                delete(&mut out, &DelD { row: d.row.clone(), until: d.until, specs: vec![s.clone()] });
            }
        }
        Write::Increment(row, cols) => {
            word(&mut out, "inc");
            hex(&mut out, row);
            word(&mut out, cols.len());
            for (f, q, n) in cols {
                hex(&mut out, f);
                hex(&mut out, q);
                word(&mut out, n);
            }
        }
        Write::Append(row, cols) => {
            word(&mut out, "app");
            hex(&mut out, row);
            word(&mut out, cols.len());
            for (f, q, v) in cols {
                hex(&mut out, f);
                hex(&mut out, q);
                hex(&mut out, v);
            }
        }
        Write::MutateRow(row, muts) => {
            word(&mut out, "mut");
            hex(&mut out, row);
            mutations(&mut out, muts);
        }
        Write::Check { row, family, qualifier, op: o, value, via: _, muts } => {
            word(&mut out, "cam");
            hex(&mut out, row);
            hex(&mut out, family);
            hex(&mut out, qualifier);
            op(&mut out, *o);
            match value {
                Some(v) => hex(&mut out, v),
                None => word(&mut out, "-"),
            }
            // check_and_put / check_and_delete carry one mutation; Java builds the same.
            match muts.as_slice() {
                [Mutation::Put(p)] => {
                    word(&mut out, "p");
                    put(&mut out, p);
                }
                [Mutation::Delete(d)] => {
                    word(&mut out, "d");
                    delete(&mut out, d);
                }
                _ => {
                    word(&mut out, "m");
                    mutations(&mut out, muts);
                }
            }
        }
    }
    out
}

fn cmp(out: &mut String, c: &Cmp) {
    match c {
        Cmp::Binary(b) => {
            word(out, "bin");
            hex(out, b);
        }
        Cmp::BinaryPrefix(b) => {
            word(out, "binp");
            hex(out, b);
        }
        Cmp::Regex(s) => {
            word(out, "regex");
            hex(out, s.as_bytes());
        }
        Cmp::RegexNoCase(s) => {
            word(out, "regexi");
            hex(out, s.as_bytes());
        }
        Cmp::Substring(s) => {
            word(out, "sub");
            hex(out, s.as_bytes());
        }
        Cmp::Long(n) => {
            word(out, "long");
            word(out, n);
        }
        Cmp::Bit(b, op) => {
            word(out, "bit");
            word(
                out,
                match op {
                    BitwiseOp::And => "and",
                    BitwiseOp::Or => "or",
                    BitwiseOp::Xor => "xor",
                },
            );
            hex(out, b);
        }
        Cmp::Null => word(out, "null"),
        Cmp::BinaryComponent(b, offset) => {
            word(out, "bincomp");
            word(out, offset);
            hex(out, b);
        }
    }
}

pub(super) fn filter(out: &mut String, f: &Filt) {
    match f {
        Filt::All(m) | Filt::Any(m) => {
            word(out, if matches!(f, Filt::All(_)) { "and" } else { "or" });
            word(out, m.len());
            m.iter().for_each(|x| filter(out, x));
        }
        // HBase's parser refuses the text: Java is given the filter it means.
        Filt::TextHBaseRefuses(_, typed) => filter(out, typed),
        Filt::Text(text, _) => {
            word(out, "text");
            hex(out, text.as_bytes());
        }
        Filt::Skip(x) => {
            word(out, "skip");
            filter(out, x);
        }
        Filt::While(x) => {
            word(out, "while");
            filter(out, x);
        }
        Filt::Prefix(p) => {
            word(out, "prefix");
            hex(out, p);
        }
        Filt::ColumnPrefix(p) => {
            word(out, "colprefix");
            hex(out, p);
        }
        Filt::MultipleColumnPrefix(ps) => {
            // A set of prefixes: Java's constructor refuses a repeated one.
            let mut distinct: Vec<&Bytes> = Vec::new();
            for p in ps {
                if !distinct.contains(&p) {
                    distinct.push(p);
                }
            }
            word(out, "mcp");
            word(out, distinct.len());
            distinct.iter().for_each(|p| hex(out, p));
        }
        Filt::InclusiveStop(r) => {
            word(out, "incstop");
            hex(out, r);
        }
        Filt::Page(n) => {
            word(out, "page");
            word(out, n);
        }
        Filt::Row(o, c) | Filt::Value(o, c) | Filt::Qualifier(o, c) | Filt::Family(o, c) => {
            let name = match f {
                Filt::Row(..) => "rowf",
                Filt::Value(..) => "valf",
                Filt::Qualifier(..) => "qualf",
                _ => "famf",
            };
            word(out, name);
            op(out, *o);
            cmp(out, c);
        }
        Filt::KeyOnly => word(out, "keyonly"),
        Filt::FirstKeyOnly => word(out, "firstkey"),
        Filt::Timestamps(ts) => {
            word(out, "ts");
            word(out, ts.len());
            ts.iter().for_each(|t| word(out, t));
        }
        Filt::ColumnRange(min, max) => {
            word(out, "colrange");
            // An open bound: null, with the inclusive flag Basalt's rendering uses.
            for (bound, open_inclusive) in [(min, true), (max, false)] {
                match bound {
                    Some((b, incl)) => {
                        hex(out, b);
                        flag(out, *incl);
                    }
                    None => {
                        word(out, "-");
                        flag(out, open_inclusive);
                    }
                }
            }
        }
        Filt::ColumnCountGet(n) => {
            word(out, "colcount");
            word(out, n);
        }
        Filt::SingleColumnValue { family, qualifier, op: o, cmp: c, if_missing, latest_only, exclude } => {
            word(out, if *exclude { "scve" } else { "scv" });
            hex(out, family);
            hex(out, qualifier);
            op(out, *o);
            cmp(out, c);
            flag(out, *if_missing);
            flag(out, *latest_only);
        }
        Filt::ColumnPagination(limit, offset) => {
            word(out, "colpage");
            word(out, limit);
            word(out, offset);
        }
        Filt::ColumnPaginationFrom(limit, column) => {
            word(out, "colpagek");
            word(out, limit);
            hex(out, column);
        }
        Filt::DependentColumn { family, qualifier, drop, value } => {
            word(out, "dep");
            hex(out, family);
            hex(out, qualifier);
            flag(out, *drop);
            match value {
                Some((o, c)) => {
                    op(out, *o);
                    cmp(out, c);
                }
                None => {
                    word(out, "-");
                    word(out, "-");
                }
            }
        }
        Filt::ColumnValue(f, q, o, c) => {
            word(out, "colval");
            hex(out, f);
            hex(out, q);
            op(out, *o);
            cmp(out, c);
        }
        Filt::KeyOnlyWithLengths => word(out, "keyonlylen"),
        Filt::FuzzyRow(keys) => {
            word(out, "fuzzy");
            word(out, keys.len());
            for (k, m) in keys {
                hex(out, k);
                hex(out, m);
            }
        }
        Filt::MultiRowRange(ranges) => {
            word(out, "mrr");
            word(out, ranges.len());
            for (a, ai, b, bi) in ranges {
                hex(out, a);
                flag(out, *ai);
                hex(out, b);
                flag(out, *bi);
            }
        }
    }
}

fn opts(out: &mut String, o: &Opts, family_ranges: &[(Bytes, i64, i64)], on_demand: Option<bool>) {
    word(out, o.columns.len());
    for (f, q) in &o.columns {
        hex(out, f);
        match q {
            Some(q) => hex(out, q),
            None => word(out, "*"),
        }
    }
    opt_num(out, o.max_versions);
    opt_num(out, o.time_range.map(|r| r.0));
    opt_num(out, o.time_range.map(|r| r.1));
    word(out, family_ranges.len());
    for (f, min, max) in family_ranges {
        hex(out, f);
        word(out, min);
        word(out, max);
    }
    // On-demand family loading ("-": the server's default).
    opt_num(out, on_demand.map(u64::from));
    // The per-family window: limit, offset ("-": unset).
    opt_num(out, o.per_family_limit);
    opt_num(out, o.per_family_offset);
    match &o.filter {
        Some(f) => filter(out, f),
        None => word(out, "-"),
    }
}

pub(super) fn get(out: &mut String, g: &GetD) {
    hex(out, &g.row);
    opt_num(out, g.ts);
    opts(out, &g.opts, &[], None);
}

/// The smallest key after every key starting with `prefix` (empty: none).
fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last != 0xff {
            end.push(last + 1);
            return end;
        }
    }
    Vec::new()
}

fn scan(out: &mut String, s: &ScanD) {
    // Java's bounds follow the direction: a reversed scan starts at the larger key.
    let (start, stop, prefix) = match &s.prefix {
        Some(p) if !s.reversed => (Bytes::new(), Bytes::new(), Some(p.clone())),
        Some(p) => (p.clone(), Bytes::from(prefix_end(p)), None),
        None => (s.start.clone(), s.stop.clone(), None),
    };
    let (start_incl, stop_incl) = (!s.start_exclusive, s.stop_inclusive);
    if s.reversed {
        hex(out, &stop);
        flag(out, stop_incl || stop.is_empty());
        hex(out, &start);
        flag(out, start_incl);
    } else {
        hex(out, &start);
        flag(out, start_incl);
        hex(out, &stop);
        flag(out, stop_incl);
    }
    flag(out, s.reversed);
    opt_num(out, s.limit);
    opt_num(out, s.caching);
    opt_num(out, s.batch);
    match prefix {
        Some(p) => hex(out, &p),
        None => word(out, "-"),
    }
    opt_num(out, s.ts);
    opts(out, &s.opts, &s.family_ranges, s.on_demand);
}

/// The tool's line for a read.
pub fn read_line(r: &Read) -> String {
    let mut out = String::from("r");
    match r {
        Read::Get(g) => {
            word(&mut out, "get");
            get(&mut out, g);
        }
        Read::GetMany(gs) => {
            word(&mut out, "gets");
            word(&mut out, gs.len());
            gs.iter().for_each(|g| get(&mut out, g));
        }
        Read::Exists(g) => {
            word(&mut out, "exists");
            get(&mut out, g);
        }
        Read::ExistsMany(gs) => {
            word(&mut out, "existsmany");
            word(&mut out, gs.len());
            gs.iter().for_each(|g| get(&mut out, g));
        }
        Read::Scan(s) if s.has_extras() => {
            // The scan-extras group first: raw, partial results, result size.
            word(&mut out, "xscan");
            flag(&mut out, s.raw);
            flag(&mut out, s.allow_partial);
            opt_num(&mut out, s.max_result_size);
            scan(&mut out, s);
        }
        Read::Scan(s) => {
            word(&mut out, "scan");
            scan(&mut out, s);
        }
    }
    out
}

// ---- issue 25's mutation API ----

/// One part of an `each` answer: `each N PART*N | done | bool B | rows ... | error HEX`.
fn parse_part<'a>(t: &mut impl Iterator<Item = &'a str>, line: &str) -> Result<Answer, String> {
    let mut next = || t.next().ok_or_else(|| format!("answer ends early: {line:?}"));
    let num = |s: &str| s.parse::<i64>().map_err(|e| format!("{e}: {line:?}"));
    Ok(match next()? {
        "each" => {
            let n = num(next()?)?;
            let mut parts = Vec::new();
            for _ in 0..n {
                parts.push(parse_part(t, line)?);
            }
            Answer::Each(parts)
        }
        "done" => Answer::Done,
        "bool" => Answer::Bool(next()? == "true"),
        "error" => Answer::Err(String::from_utf8_lossy(&unhex(next()?)?).into_owned()),
        "rows" => {
            let n = num(next()?)?;
            let mut items = Vec::new();
            for _ in 0..n {
                let row = unhex(next()?)?;
                let c = num(next()?)?;
                let (mut cells, mut types) = (Vec::new(), Vec::new());
                for _ in 0..c {
                    let (f, q) = (unhex(next()?)?, unhex(next()?)?);
                    let ts = num(next()?)?;
                    cells.push((f, q, ts, unhex(next()?)?));
                    // The cell's type byte, as in a whole answer's rows.
                    types.push(num(next()?)? as u8);
                }
                items.push(Item { row, cells, types });
            }
            Answer::Rows(items)
        }
        other => return Err(format!("unknown answer part {other:?} in {line:?}")),
    })
}
