//! The Rust side of the launcher's `AdminProbe.java`: HBase's own Java client (`Admin`)
//! answering administrative questions, one line each, in the grammar of its header.
//! The admin test without a gateway checks every effect of `basalt::Admin` with it.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write as _};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use basalt::Bytes;

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// How long one answer may take.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(90);

/// The running probe; stopped (stdin closed, then killed by pid) on drop.
struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Process {
    fn start(mut cmd: Command) -> Result<Process, String> {
        cmd.args(["--tool", "AdminProbe"]);
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start AdminProbe: {e}"))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().ok_or("AdminProbe has no stdout")?;
        let (tx, lines) = mpsc::channel();
        // Answers are the lines starting with "AP "; HBase's log lines are dropped.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(answer) = line.strip_prefix("AP ") {
                    if tx.send(answer.to_owned()).is_err() {
                        break;
                    }
                }
            }
        });
        let mut process = Process { child, stdin, lines };
        let ready = process.answer(Duration::from_secs(180))?;
        if ready != "ok ready" {
            return Err(format!("AdminProbe did not start: {ready:?}"));
        }
        Ok(process)
    }

    fn answer(&mut self, timeout: Duration) -> Result<String, String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => Ok(line),
            Err(mpsc::RecvTimeoutError::Timeout) => Err(format!("AdminProbe gave no answer within {timeout:?}")),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err("AdminProbe exited".into()),
        }
    }

    /// The body after `ok`, or the probe's error.
    fn ask(&mut self, question: &str) -> Result<String, String> {
        let stdin = self.stdin.as_mut().ok_or("AdminProbe's stdin is closed")?;
        stdin
            .write_all(question.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("AdminProbe: {e}"))?;
        let answer = self.answer(ANSWER_TIMEOUT)?;
        match answer.strip_prefix("ok") {
            Some(body) => Ok(body.trim().to_owned()),
            None => Err(format!("AdminProbe, {question}: {answer}")),
        }
    }
}

impl Drop for Process {
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

/// The probe, shared by the test's tasks; its blocking calls run off the runtime.
#[derive(Clone)]
pub struct AdminProbe(Arc<Mutex<Process>>);

/// A region open on a region server, as the probe lists it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct OpenRegion {
    /// The region's start key.
    pub start: Bytes,
    /// The replica id (0: the primary).
    pub replica: u32,
    /// The region server's `host:port`.
    pub server: String,
}

/// A table descriptor as the probe answers it: the table's values and each family's,
/// by HBase's names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Descriptor {
    /// The table's values.
    pub table: BTreeMap<String, String>,
    /// Each family's values, by family name.
    pub families: BTreeMap<String, BTreeMap<String, String>>,
}

impl Descriptor {
    /// A table value.
    pub fn table(&self, key: &str) -> Option<&str> {
        self.table.get(key).map(String::as_str)
    }

    /// A value of family `family`.
    pub fn family(&self, family: &str, key: &str) -> Option<&str> {
        self.families.get(family)?.get(key).map(String::as_str)
    }
}

/// The cluster's status as the probe answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// HBase's version.
    pub version: String,
    /// The active master's `host:port`, if any.
    pub master: Option<String>,
    /// Live region servers (`host:port`, sorted).
    pub live: Vec<String>,
    /// Dead region servers (`host:port`, sorted).
    pub dead: Vec<String>,
    /// The number of regions in transition.
    pub in_transition: usize,
    /// Whether the balancer is on.
    pub balancer: bool,
}

impl AdminProbe {
    /// Starts the probe with `cmd` (a test bed's `region_tool()` command) and waits until
    /// it is ready.
    pub async fn start(cmd: Command) -> Result<AdminProbe, Failure> {
        let process = tokio::task::spawn_blocking(move || Process::start(cmd)).await??;
        Ok(AdminProbe(Arc::new(Mutex::new(process))))
    }

    /// Asks one question; the answer's body.
    pub async fn ask(&self, question: String) -> Result<String, Failure> {
        let process = self.0.clone();
        let answer = tokio::task::spawn_blocking(move || match process.lock() {
            Ok(mut p) => p.ask(&question),
            Err(_) => Err("the probe's lock was poisoned".into()),
        })
        .await?;
        Ok(answer?)
    }

    /// The words of an answer.
    async fn words(&self, question: String) -> Result<Vec<String>, Failure> {
        Ok(self.ask(question).await?.split_whitespace().map(unescape).collect::<Result<_, _>>()?)
    }

    /// A `true`/`false` answer.
    async fn flag(&self, question: String) -> Result<bool, Failure> {
        let answer = self.ask(question.clone()).await?;
        match answer.as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            other => Err(format!("{question}: not a flag: {other:?}").into()),
        }
    }

    /// The live region servers' RPC addresses, sorted.
    pub async fn servers(&self) -> Result<Vec<String>, Failure> {
        self.words("servers".into()).await
    }

    /// Every namespace, sorted.
    pub async fn namespaces(&self) -> Result<Vec<String>, Failure> {
        self.words("namespaces".into()).await
    }

    /// A namespace's configuration; `None` when it does not exist.
    pub async fn namespace(&self, name: &str) -> Result<Option<BTreeMap<String, String>>, Failure> {
        let words = self.words(format!("namespace {name}")).await?;
        if words == ["missing"] {
            return Ok(None);
        }
        let config = words.iter().map(|w| pair(w)).collect::<Result<_, _>>()?;
        Ok(Some(config))
    }

    /// The tables of a namespace, sorted.
    pub async fn tables(&self, namespace: &str) -> Result<Vec<String>, Failure> {
        self.words(format!("tables {namespace}")).await
    }

    /// Whether the table exists.
    pub async fn exists(&self, table: &str) -> Result<bool, Failure> {
        self.flag(format!("exists {table}")).await
    }

    /// Whether the table is enabled.
    pub async fn enabled(&self, table: &str) -> Result<bool, Failure> {
        self.flag(format!("enabled {table}")).await
    }

    /// Whether the balancer is on.
    pub async fn balancer(&self) -> Result<bool, Failure> {
        self.flag("balancer".into()).await
    }

    /// The table's descriptor.
    pub async fn descriptor(&self, table: &str) -> Result<Descriptor, Failure> {
        let answer = self.ask(format!("table {table}")).await?;
        let mut words = answer.split_whitespace();
        if words.next() != Some("table") {
            return Err(format!("not a descriptor: {answer:?}").into());
        }
        let mut desc = Descriptor { table: BTreeMap::new(), families: BTreeMap::new() };
        let mut family: Option<String> = None;
        while let Some(word) = words.next() {
            if word == "family" {
                let name = unescape(words.next().ok_or("a family without a name")?)?;
                desc.families.insert(name.clone(), BTreeMap::new());
                family = Some(name);
                continue;
            }
            let (key, value) = pair(word)?;
            let values = match &family {
                Some(name) => desc.families.get_mut(name).ok_or("a family's values without it")?,
                None => &mut desc.table,
            };
            values.insert(key, value);
        }
        Ok(desc)
    }

    /// The table's regions open on the live region servers, every replica, sorted.
    pub async fn regions(&self, table: &str) -> Result<Vec<OpenRegion>, Failure> {
        let mut out = Vec::new();
        for word in self.ask(format!("regions {table}")).await?.split_whitespace() {
            let (start, rest) = word.split_once('/').ok_or_else(|| format!("not a region: {word:?}"))?;
            let (replica, server) = rest.split_once('@').ok_or_else(|| format!("not a region: {word:?}"))?;
            out.push(OpenRegion { start: unhex(start)?, replica: replica.parse()?, server: server.to_owned() });
        }
        out.sort();
        Ok(out)
    }

    /// The distinct start keys of the table's open primary regions.
    pub async fn starts(&self, table: &str) -> Result<Vec<Bytes>, Failure> {
        let mut starts: Vec<Bytes> =
            self.regions(table).await?.into_iter().filter(|r| r.replica == 0).map(|r| r.start).collect();
        starts.dedup();
        Ok(starts)
    }

    /// The store files of the primary region of `table` starting at `start`.
    pub async fn store_files(&self, table: &str, start: &[u8]) -> Result<u32, Failure> {
        Ok(self.ask(format!("storefiles {table} {}", hex(start))).await?.parse()?)
    }

    /// Every snapshot as (name, table), sorted.
    pub async fn snapshots(&self) -> Result<Vec<(String, String)>, Failure> {
        let mut out = Vec::new();
        for word in self.ask("snapshots".into()).await?.split_whitespace() {
            let (name, table) = word.split_once('@').ok_or_else(|| format!("not a snapshot: {word:?}"))?;
            out.push((unescape(name)?, unescape(table)?));
        }
        Ok(out)
    }

    /// The cluster's status.
    pub async fn cluster(&self) -> Result<Cluster, Failure> {
        let answer = self.ask("cluster".into()).await?;
        let mut fields = BTreeMap::new();
        for word in answer.split_whitespace() {
            let (key, value) = word.split_once('=').ok_or_else(|| format!("not a field: {word:?}"))?;
            fields.insert(key.to_owned(), value.to_owned());
        }
        let field = |key: &str| fields.get(key).cloned().ok_or_else(|| format!("no {key} in {answer:?}"));
        let list = |key: &str| -> Result<Vec<String>, String> {
            let value = field(key)?;
            Ok(if value == "-" { Vec::new() } else { value.split(',').map(str::to_owned).collect() })
        };
        let master = field("master")?;
        Ok(Cluster {
            version: unescape(&field("version")?)?,
            master: (master != "-").then_some(master),
            live: list("live")?,
            dead: list("dead")?,
            in_transition: field("rit")?.parse()?,
            balancer: field("balancer")? == "true",
        })
    }

    /// A cell's value; `None` when it has none.
    pub async fn get(
        &self,
        table: &str,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
    ) -> Result<Option<Bytes>, Failure> {
        let answer = self.ask(format!("get {table} {} {} {}", hex(row), hex(family), hex(qualifier))).await?;
        if answer == "none" {
            return Ok(None);
        }
        Ok(Some(unhex(&answer)?))
    }

    /// The number of rows of a full scan.
    pub async fn rows(&self, table: &str) -> Result<u64, Failure> {
        Ok(self.ask(format!("rows {table}")).await?.parse()?)
    }
}

/// Asks `what` until `done` holds for its answer, for up to `within`; the last answer.
pub async fn until<T, F, Fut>(within: Duration, what: &str, mut ask: F, done: impl Fn(&T) -> bool) -> Result<T, Failure>
where
    T: std::fmt::Debug,
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, Failure>>,
{
    let deadline = Instant::now() + within;
    loop {
        let answer = ask().await?;
        if done(&answer) {
            return Ok(answer);
        }
        if Instant::now() > deadline {
            return Err(format!("{what}: not so within {within:?}; HBase's Java client says {answer:?}").into());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// `KEY=VALUE`, unescaped.
fn pair(word: &str) -> Result<(String, String), String> {
    let (key, value) = word.split_once('=').ok_or_else(|| format!("not KEY=VALUE: {word:?}"))?;
    Ok((unescape(key)?, unescape(value)?))
}

/// Text with `%XX` escapes undone.
fn unescape(word: &str) -> Result<String, String> {
    let bytes = word.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let code = word.get(i + 1..i + 3).ok_or_else(|| format!("a cut escape in {word:?}"))?;
            out.push(u8::from_str_radix(code, 16).map_err(|e| format!("{e} in {word:?}"))?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|e| format!("{e} in {word:?}"))
}

/// Lower-case hex, `.` for empty.
pub fn hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return ".".to_owned();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Result<Bytes, String> {
    if text == "." {
        return Ok(Bytes::new());
    }
    if text.len() % 2 != 0 || !text.is_ascii() {
        return Err(format!("not hex: {text:?}"));
    }
    let bytes = (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).map_err(|e| format!("{e}: {text:?}")))
        .collect::<Result<Vec<u8>, String>>()?;
    Ok(Bytes::from(bytes))
}
