//! Hostile replies (issue 14): a fake Thrift server (`basalt_chaos::HostileServer`)
//! answers with bytes no real server sends, and the library and the CLI must answer
//! with a typed error: no abort, no panic, no runaway allocation, no hang.
//!
//! A reply that makes the reader reserve memory from a count the server sent aborts the
//! whole process ("memory allocation of N bytes failed"), so every library case runs
//! in a child process (this test binary again, `BASALT_HOSTILE_CHILD=<case>`, see
//! [`child_main`]) under an address-space limit; the CLI cases run the `basalt` binary
//! under the same limit. The parent checks the child's exit status: a signal (abort) or
//! a panic fails the test.
//!
//! The fake server is right here because these are tests of our parser; the framed
//! client on a buffered gateway talks to the real HBase.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use basalt::{Client, Framing, Get, Protocol, Scan};
use basalt_chaos::{Answer, BinaryWriter, HostileServer, MessageType, Request, TType, Transport};

use crate::support::{Env, Test, TestResult};
use crate::tests;

/// Why most of these tests run on one route only: they use no test bed.
const NO_HBASE: &str = "a hostile server in the test process; no HBase is used";

pub fn trials() -> Vec<Test> {
    tests![
        #[same_on_every_route(NO_HBASE)]
        lib_framed_billion_element_list_get,
        #[same_on_every_route(NO_HBASE)]
        lib_framed_billion_element_list_scan,
        #[same_on_every_route(NO_HBASE)]
        lib_compact_billion_element_list_get,
        #[same_on_every_route(NO_HBASE)]
        lib_compact_billion_element_list_scan,
        #[same_on_every_route(NO_HBASE)]
        lib_buffered_reply_of_millions_of_empty_structs,
        #[same_on_every_route(NO_HBASE)]
        lib_application_exception,
        #[same_on_every_route(NO_HBASE)]
        lib_server_that_never_answers,
        #[same_on_every_route(NO_HBASE)]
        lib_valid_reply_of_many_small_rows,
        lib_framed_client_on_buffered_gateway,
        #[same_on_every_route(NO_HBASE)]
        cli_framed_billion_element_list,
        #[same_on_every_route(NO_HBASE)]
        cli_compact_billion_element_list,
        #[same_on_every_route(NO_HBASE)]
        cli_buffered_reply_of_millions_of_empty_structs,
        #[same_on_every_route(NO_HBASE)]
        cli_application_exception,
        #[same_on_every_route(NO_HBASE)]
        cli_server_that_never_answers,
        cli_framed_client_on_buffered_gateway,
        cli_malformed_filter_string,
        #[same_on_every_route(NO_HBASE)]
        cli_valid_reply_of_many_small_rows,
        #[same_on_every_route(NO_HBASE)]
        cli_one_row_of_millions_of_cells_in_every_format,
    ]
}

/// The environment variable naming the case a child process runs.
const CHILD_ENV: &str = "BASALT_HOSTILE_CHILD";
/// The address-space limit of every child (KiB): far above what reading a reply of a
/// few MiB should need, far below what trusting a declared count reserves.
const CHILD_VMEM_KIB: u64 = 1 << 20;
/// Empty structs in the buffered hostile reply: 24 MB on the wire. Trusting the count
/// reserves 24M x size_of(TResult) (1.34 GB with today's generated code), over the
/// child's 1 GiB limit.
const EMPTY_STRUCTS: usize = 24_000_000;
/// The library child's reply limit for that case: the reply is under it.
const CHILD_MAX_RESPONSE: usize = 32 << 20;
/// Bound on any child: a hang is a failure, not a wait.
const CHILD_DEADLINE: Duration = Duration::from_secs(120);

/// A reply claiming a list of a billion `TResult`s, in a 40-byte frame body: the shape
/// depends on the call (`get` returns a struct holding the list).
fn billion_list(req: &Request) -> Answer {
    let w = BinaryWriter::new().message(&req.name, MessageType::Reply, req.seqid);
    let w = match req.name.as_str() {
        "openScanner" => return Answer::Reply(w.field(TType::I32, 0).i32(1).stop().into_bytes()),
        "closeScanner" => return Answer::Reply(w.stop().into_bytes()),
        "get" | "increment" | "append" => w.field(TType::Struct, 0).field(TType::List, 2),
        _ => w.field(TType::List, 0),
    };
    let mut bytes = w.list(TType::Struct, 1_000_000_000).into_bytes();
    bytes.resize(bytes.len().max(40), 0);
    Answer::Reply(bytes)
}

/// LEB128, as the compact protocol writes lengths and counts.
fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// [`billion_list`] in the compact protocol (written by hand: field 0 needs the long
/// field header; a list header of `0xF0 | type` is followed by a varint count).
fn compact_billion_list(req: &Request) -> Answer {
    let mut b = vec![0x82, 0x41]; // protocol id; version 1 | REPLY << 5
    varint(u64::from(req.seqid as u32), &mut b);
    varint(req.name.len() as u64, &mut b);
    b.extend_from_slice(req.name.as_bytes());
    match req.name.as_str() {
        "openScanner" => {
            b.extend_from_slice(&[0x05, 0x00, 0x02, 0x00]); // i32 field 0 = zigzag(1); stop
            return Answer::Reply(b);
        }
        "closeScanner" => {
            b.push(0x00);
            return Answer::Reply(b);
        }
        // struct field 0 (TResult), then its field 2 (delta 2, list)
        "get" | "increment" | "append" => b.extend_from_slice(&[0x0c, 0x00, 0x29]),
        _ => b.extend_from_slice(&[0x09, 0x00]),
    }
    b.push(0xfc); // list of structs, count in a varint
    varint(1_000_000_000, &mut b);
    b.resize(b.len().max(40), 0);
    Answer::Reply(b)
}

/// `openScanner` answers id 1; `getScannerRows` answers a complete, well-formed list
/// header of `n` empty structs followed by `n` STOP bytes.
fn empty_structs(n: usize) -> impl Fn(&Request) -> Answer + Send + Sync + 'static {
    let body: Arc<Vec<u8>> = Arc::new(
        BinaryWriter::new().list(TType::Struct, i32::try_from(n).unwrap_or(i32::MAX)).repeat(0, n).into_bytes(),
    );
    move |req| {
        let w = BinaryWriter::new().message(&req.name, MessageType::Reply, req.seqid);
        match req.name.as_str() {
            "openScanner" => Answer::Reply(w.field(TType::I32, 0).i32(1).stop().into_bytes()),
            "getScannerRows" | "getMultiple" | "getScannerResults" => {
                Answer::Reply(w.field(TType::List, 0).raw(&body).stop().into_bytes())
            }
            _ => Answer::Reply(w.stop().into_bytes()),
        }
    }
}

/// Rows of the valid big scan: 300,000 one-cell rows, about 21 MB on the wire (one
/// page when the client asks for them all).
const BIG_ROWS: usize = 300_000;

/// Peak RSS allowed for a whole process reading one big reply, as a multiple of its
/// bytes on the wire: used for the 82 MiB wide row, where the process's own footprint
/// hardly counts (measured: 1.75x in every output format).
const BIG_RSS_PER_REPLY_BYTE: f64 = 3.0;

/// The rows of the valid big scan, encoded one after the other, and where each starts
/// (plus the end).
fn big_rows() -> (Vec<u8>, Vec<usize>) {
    let mut rows = Vec::new();
    let mut offsets = vec![0usize];
    for i in 0..BIG_ROWS {
        let row = BinaryWriter::new()
            .field(TType::String, 1)
            .string(format!("r{i:08}").as_bytes())
            .field(TType::List, 2)
            .list(TType::Struct, 1)
            .field(TType::String, 1)
            .string(b"d")
            .field(TType::String, 2)
            .string(b"q")
            .field(TType::String, 3)
            .string(b"0123456789")
            .field(TType::I64, 4)
            .i64(1_700_000_000_000)
            .stop()
            .stop();
        rows.extend_from_slice(&row.into_bytes());
        offsets.push(rows.len());
    }
    (rows, offsets)
}

/// Peak RSS the library or the CLI may add while reading the valid big page (one 20
/// MiB reply of 300,000 small rows), beyond the same process's footprint reading an
/// empty scan (runtime, binary, buffers; measured in the same run, so the bound does
/// not move with the binary's size), as a multiple of the reply's bytes: the reply, its
/// index, its rows, and for the CLI their printing. Measured in debug builds: 2.2x for
/// both (footprints of about 14 MiB for the library, 16 MiB for the CLI). Rows of four
/// `Bytes` per cell (before `Row` became a view of its page) took about 10x of the
/// whole process.
const BIG_PAGE_RSS_PER_REPLY_BYTE: f64 = 2.6;

/// Fails when `peak_kib` less `baseline_kib` is over `bound` times the big page's size.
fn check_big_rss(who: &str, peak_kib: Option<u64>, baseline_kib: u64, bound: f64) -> TestResult {
    let reply = big_rows().0.len() as f64;
    let peak = peak_kib.ok_or_else(|| format!("{who}: no peak RSS measured"))? as f64 * 1024.0;
    let baseline = baseline_kib as f64 * 1024.0;
    let ratio = (peak - baseline) / reply;
    eprintln!(
        "{who}: peak RSS {:.1} MiB ({:.1} MiB beyond a footprint of {:.1} MiB) for a {:.1} MiB reply: {ratio:.2}x",
        peak / 1048576.0,
        (peak - baseline) / 1048576.0,
        baseline / 1048576.0,
        reply / 1048576.0
    );
    if ratio > bound {
        return Err(format!("{who}: peak RSS {ratio:.2}x the reply, over {bound}x").into());
    }
    Ok(())
}

/// A scan with no rows: what the CLI's footprint is without a big reply.
fn empty_scan() -> impl Fn(&Request) -> Answer + Send + Sync + 'static {
    |req: &Request| {
        let w = BinaryWriter::new().message(&req.name, MessageType::Reply, req.seqid);
        match req.name.as_str() {
            "openScanner" => Answer::Reply(w.field(TType::I32, 0).i32(1).stop().into_bytes()),
            "getScannerRows" => Answer::Reply(w.field(TType::List, 0).list(TType::Struct, 0).stop().into_bytes()),
            _ => Answer::Reply(w.stop().into_bytes()),
        }
    }
}

/// A valid scan of `BIG_ROWS` one-cell rows: `openScanner` answers id 1 and each
/// `getScannerRows` the next `numRows` rows (its last argument), then an empty page.
fn big_valid_scan() -> impl Fn(&Request) -> Answer + Send + Sync + 'static {
    let (rows, offsets) = big_rows();
    let position = std::sync::Mutex::new(0usize);
    move |req| {
        let w = BinaryWriter::new().message(&req.name, MessageType::Reply, req.seqid);
        match req.name.as_str() {
            "openScanner" => Answer::Reply(w.field(TType::I32, 0).i32(1).stop().into_bytes()),
            "getScannerRows" => {
                // Arguments: ..., field 2 (i32 numRows), STOP: the i32 before the last byte.
                let n = req.bytes.len();
                let want = req
                    .bytes
                    .get(n.saturating_sub(5)..n.saturating_sub(1))
                    .and_then(|b| <[u8; 4]>::try_from(b).ok())
                    .map(|b| usize::try_from(i32::from_be_bytes(b)).unwrap_or(0))
                    .unwrap_or(0);
                let mut at = position.lock().unwrap_or_else(|p| p.into_inner());
                let from = (*at).min(BIG_ROWS);
                let to = from.saturating_add(want).min(BIG_ROWS);
                *at = to;
                let body = rows.get(offsets[from]..offsets[to]).unwrap_or_default();
                let count = i32::try_from(to - from).unwrap_or(0);
                Answer::Reply(w.field(TType::List, 0).list(TType::Struct, count).raw(body).stop().into_bytes())
            }
            _ => Answer::Reply(w.stop().into_bytes()),
        }
    }
}

/// Cells of the valid wide row: 2,000,000 small cells in one row, about 86 MB on the
/// wire in one reply.
const WIDE_CELLS: usize = 2_000_000;

/// A valid scan of one row of [`WIDE_CELLS`] cells (`d:qNNNNNNN` = `v`): `openScanner`
/// answers id 1, the first `getScannerRows` after it the row, every later one an empty
/// page.
/// Returns the scan and the size of the row's reply.
fn wide_row_scan() -> (impl Fn(&Request) -> Answer + Send + Sync + 'static, usize) {
    let mut cells = BinaryWriter::new()
        .field(TType::String, 1)
        .string(b"wide")
        .field(TType::List, 2)
        .list(TType::Struct, WIDE_CELLS as i32);
    for i in 0..WIDE_CELLS {
        cells = cells
            .field(TType::String, 1)
            .string(b"d")
            .field(TType::String, 2)
            .string(format!("q{i:07}").as_bytes())
            .field(TType::String, 3)
            .string(b"v")
            .field(TType::I64, 4)
            .i64(1_700_000_000_000)
            .stop();
    }
    let row: Arc<Vec<u8>> = Arc::new(cells.stop().into_bytes());
    let size = row.len();
    let sent = std::sync::atomic::AtomicBool::new(false);
    let scan = move |req: &Request| {
        let w = BinaryWriter::new().message(&req.name, MessageType::Reply, req.seqid);
        match req.name.as_str() {
            "openScanner" => {
                sent.store(false, Ordering::SeqCst); // each scan (one per run of the CLI) gets the row
                Answer::Reply(w.field(TType::I32, 0).i32(1).stop().into_bytes())
            }
            "getScannerRows" if !sent.swap(true, Ordering::SeqCst) => {
                Answer::Reply(w.field(TType::List, 0).list(TType::Struct, 1).raw(&row).stop().into_bytes())
            }
            "getScannerRows" => Answer::Reply(w.field(TType::List, 0).list(TType::Struct, 0).stop().into_bytes()),
            _ => Answer::Reply(w.stop().into_bytes()),
        }
    };
    (scan, size)
}

/// The environment variable giving the big-page child the address of the fake server
/// (run by the parent, so that the child's memory is the client's alone).
const SERVER_ENV: &str = "BASALT_HOSTILE_SERVER";

/// The library reads the valid big page (from the server at `$BASALT_HOSTILE_SERVER`)
/// under the child's memory limit.
async fn big_valid_reply(expected: usize) -> Result<usize, String> {
    let addr = std::env::var(SERVER_ENV).map_err(|_| format!("{SERVER_ENV} is not set"))?;
    let client = Client::builder()
        .address(addr)
        .max_response_bytes(64 << 20)
        .request_timeout(Duration::from_secs(60))
        .build()
        .map_err(|e| e.to_string())?;
    let rows = client
        .table("hostile")
        .map_err(|e| e.to_string())?
        .scan_all(Scan::new().caching(BIG_ROWS as u32))
        .await
        .map_err(|e| e.to_string())?;
    if rows.len() != expected {
        return Err(format!("{} rows, wanted {expected}", rows.len()));
    }
    Ok(rows.len())
}

fn application_exception(req: &Request) -> Answer {
    Answer::Reply(
        BinaryWriter::new()
            .application_exception(
                &req.name,
                req.seqid,
                &format!("Internal error processing {}: java.lang.NullPointerException", req.name),
                6,
            )
            .into_bytes(),
    )
}

// ---- the child side --------------------------------------------------------------

/// When this process is a hostile-case child, runs the case and returns its exit code:
/// 0 after a typed error, 10 when the hostile call "succeeded", 11 on a panic (also
/// reported by the hook). `None` in a normal test run.
pub fn child_main() -> Option<ExitCode> {
    let case = std::env::var(CHILD_ENV).ok()?;
    static PANICS: AtomicU32 = AtomicU32::new(0);
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICS.fetch_add(1, Ordering::Relaxed);
        println!("panic: {info}");
        default_hook(info);
    }));
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            println!("no runtime: {e}");
            return Some(ExitCode::from(12));
        }
    };
    let outcome = std::panic::catch_unwind(|| {
        runtime.block_on(async {
            // The big page, or (for the footprint) the same scan of no rows.
            let expected = match case.as_str() {
                "big_valid" => Some(BIG_ROWS),
                "empty_valid" => Some(0),
                _ => None,
            };
            if let Some(expected) = expected {
                return big_valid_reply(expected).await.map(|rows| {
                    println!("rows: {rows}");
                    None
                });
            }
            run_child_case(&case).await.map(Some)
        })
    });
    runtime.shutdown_timeout(Duration::from_secs(2));
    println!("peak rss: {} KiB", peak_rss_kib().unwrap_or(0));
    println!("panics: {}", PANICS.load(Ordering::Relaxed));
    let code = match outcome {
        Ok(Ok(None)) => 0,
        Ok(Ok(Some(error))) => {
            println!("typed error: {error}");
            println!("debug: {error:?}");
            if PANICS.load(Ordering::Relaxed) > 0 {
                11
            } else {
                0
            }
        }
        Ok(Err(why)) => {
            println!("no error: {why}");
            10
        }
        Err(_) => 11,
    };
    Some(ExitCode::from(code))
}

/// Runs one library case against a fake server in this process; `Ok(error)` is the
/// typed error the hostile reply produced.
async fn run_child_case(case: &str) -> Result<basalt::Error, String> {
    let (transport, framing): (Transport, Framing) = match case {
        "framed_get" | "framed_scan" | "compact_get" | "compact_scan" => (Transport::Framed, Framing::Framed),
        _ => (Transport::Buffered, Framing::Buffered),
    };
    let protocol = if case.starts_with("compact") { Protocol::Compact } else { Protocol::Binary };
    let server = match case {
        "framed_get" | "framed_scan" => HostileServer::start(transport, billion_list).await,
        "compact_get" | "compact_scan" => HostileServer::start(transport, compact_billion_list).await,
        "empty_structs" => HostileServer::start(transport, empty_structs(EMPTY_STRUCTS)).await,
        "application_exception" => HostileServer::start(transport, application_exception).await,
        "silent" => HostileServer::start(transport, |_: &Request| Answer::Silent).await,
        other => return Err(format!("unknown case {other}")),
    }
    .map_err(|e| e.to_string())?;
    let client = Client::builder()
        .address(server.addr())
        .framing(framing)
        .protocol(protocol)
        .max_response_bytes(CHILD_MAX_RESPONSE)
        .connect_timeout(Duration::from_secs(2))
        .request_timeout(Duration::from_secs(2))
        .build()
        .map_err(|e| e.to_string())?;
    let table = client.table("hostile").map_err(|e| e.to_string())?;
    let result = match case {
        "framed_get" | "compact_get" | "application_exception" | "silent" => {
            table.get(Get::new("k")).await.map(|r| r.len())
        }
        _ => table.scan_all(Scan::new()).await.map(|rows| rows.len()),
    };
    match result {
        Ok(n) => Err(format!("the hostile reply was accepted as {n} rows/cells")),
        Err(e) => {
            if case == "application_exception" {
                // The connection answered a well-formed exception: a second call on the
                // same pool must give the same typed error, not a desynchronised reply.
                let again = table.get(Get::new("k")).await;
                if !matches!(again, Err(basalt::Error::Protocol { .. } | basalt::Error::ServerInternal { .. })) {
                    return Err(format!("second call after a TApplicationException: {again:?}"));
                }
            }
            Ok(e)
        }
    }
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().ok()
}

// ---- the parent side -------------------------------------------------------------

/// What a child process did.
struct Outcome {
    /// `None` when killed by a signal (an abort).
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// The child's peak RSS (`VmHWM`), sampled every few milliseconds while it ran.
    peak_rss_kib: Option<u64>,
}

impl Outcome {
    fn describe(&self) -> String {
        format!("exit {:?}\nstdout:\n{}\nstderr:\n{}", self.code, self.stdout, tail(&self.stderr, 2000))
    }
}

/// `VmHWM` of a running process, from its `/proc/<pid>/status` file.
fn vm_hwm_kib(status_file: &str) -> Option<u64> {
    let status = std::fs::read_to_string(status_file).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().ok()
}

fn tail(s: &str, n: usize) -> &str {
    let start = s.len().saturating_sub(n);
    let start = (start..s.len()).find(|i| s.is_char_boundary(*i)).unwrap_or(s.len());
    s.get(start..).unwrap_or("")
}

/// Runs `program args` under the address-space limit, killed at the deadline; its peak
/// RSS is sampled from `/proc` while it runs (a high-water mark: the last sample before
/// exit holds every earlier peak, and the child prints its rows long after reading them).
async fn run_limited(program: String, args: Vec<String>, envs: Vec<(String, String)>) -> Result<Outcome, String> {
    use std::io::Read;
    use std::process::Stdio;
    tokio::task::spawn_blocking(move || {
        let mut cmd = std::process::Command::new("bash");
        cmd.arg("-c").arg(format!("ulimit -v {CHILD_VMEM_KIB} && exec \"$0\" \"$@\"")).arg(&program).args(&args);
        for (k, v) in envs {
            cmd.env(k, v);
        }
        // The CLI must not pick a gateway or transport up from the test run's environment.
        for name in ["BASALT_THRIFT_ADDR", "BASALT_THRIFT_FRAMED", "BASALT_THRIFT_COMPACT"] {
            cmd.env_remove(name);
        }
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| format!("cannot run {program}: {e}"))?;
        let drain = |pipe: Option<Box<dyn Read + Send>>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                if let Some(mut pipe) = pipe {
                    let _ = pipe.read_to_end(&mut bytes);
                }
                String::from_utf8_lossy(&bytes).into_owned()
            })
        };
        let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
        let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
        let status_file = format!("/proc/{}/status", child.id());
        let started = std::time::Instant::now();
        let mut peak_rss_kib = None;
        let status = loop {
            // `bash` execs the program in place: same pid, a fresh high-water mark.
            if let Some(kib) = vm_hwm_kib(&status_file) {
                peak_rss_kib = Some(kib);
            }
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if started.elapsed() > CHILD_DEADLINE => {
                    let _ = child.kill();
                    break child.wait().map_err(|e| e.to_string())?;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => return Err(format!("waiting for {program}: {e}")),
            }
        };
        Ok(Outcome {
            code: status.code(),
            stdout: stdout.join().unwrap_or_default(),
            stderr: stderr.join().unwrap_or_default(),
            peak_rss_kib,
        })
    })
    .await
    .map_err(|e| e.to_string())?
}

async fn lib_case(case: &str) -> TestResult {
    lib_child(case, Vec::new()).await.map(|_| ())
}

/// Runs a library case in a child process; fails unless it ended cleanly.
async fn lib_child(
    case: &str,
    mut envs: Vec<(String, String)>,
) -> Result<Outcome, Box<dyn std::error::Error + Send + Sync>> {
    let exe = std::env::current_exe()?.display().to_string();
    envs.push((CHILD_ENV.to_owned(), case.to_owned()));
    let out = run_limited(exe, Vec::new(), envs).await?;
    let rss = out.stdout.lines().find(|l| l.starts_with("peak rss:")).unwrap_or("peak rss: ?");
    eprintln!("hostile library {case}: exit {:?}, {rss}", out.code);
    match out.code {
        None => return Err(format!("the child was killed by a signal (abort?)\n{}", out.describe()).into()),
        Some(0) => {}
        Some(_) => return Err(format!("the hostile reply was not a clean typed error\n{}", out.describe()).into()),
    }
    if !out.stdout.contains("panics: 0") {
        return Err(format!("a panic was recorded\n{}", out.describe()).into());
    }
    Ok(out)
}

async fn lib_framed_billion_element_list_get(_env: Env) -> TestResult {
    lib_case("framed_get").await
}

async fn lib_framed_billion_element_list_scan(_env: Env) -> TestResult {
    lib_case("framed_scan").await
}

async fn lib_compact_billion_element_list_get(_env: Env) -> TestResult {
    lib_case("compact_get").await
}

async fn lib_compact_billion_element_list_scan(_env: Env) -> TestResult {
    lib_case("compact_scan").await
}

async fn lib_buffered_reply_of_millions_of_empty_structs(_env: Env) -> TestResult {
    lib_case("empty_structs").await
}

async fn lib_application_exception(_env: Env) -> TestResult {
    lib_case("application_exception").await
}

async fn lib_server_that_never_answers(_env: Env) -> TestResult {
    lib_case("silent").await?;
    // In this process too: the typed error must be a timeout, well within the bound.
    let server = HostileServer::start(Transport::Buffered, |_: &Request| Answer::Silent).await?;
    let client = Client::builder().address(server.addr()).request_timeout(Duration::from_secs(1)).build()?;
    let got = tokio::time::timeout(Duration::from_secs(60), client.table("t")?.get(Get::new("k"))).await;
    match got {
        Err(_) => Err("a get against a silent server hung for 60 s".into()),
        Ok(Ok(_)) => Err("a silent server gave a row".into()),
        Ok(Err(e)) if is_timeout(&e) => Ok(()),
        Ok(Err(e)) => Err(format!("a silent server should give a timeout, got {e:?}").into()),
    }
}

fn is_timeout(e: &basalt::Error) -> bool {
    match e {
        basalt::Error::Timeout { .. } => true,
        other => {
            let text = format!("{other:?}").to_lowercase();
            text.contains("timeout") || text.contains("timed out")
        }
    }
}

async fn lib_framed_client_on_buffered_gateway(env: Env) -> TestResult {
    if env.options().framing != Framing::Buffered {
        return Err("this case needs the suite's gateway to be buffered".into());
    }
    let table = env.fresh_table(&["d"], &[]).await?;
    table.put(basalt::Put::new("k").cell("d", "v", "x")).await?;
    let framed = Client::builder()
        .address(env.addr())
        .framing(Framing::Framed)
        .request_timeout(Duration::from_secs(2))
        .build()?;
    let got = tokio::time::timeout(Duration::from_secs(60), framed.table(table.name())?.get(Get::new("k"))).await;
    let result = match got {
        Err(_) => Err("a framed client on a buffered gateway hung for 60 s".into()),
        Ok(Ok(row)) => Err(format!("a framed client on a buffered gateway read a row: {row:?}").into()),
        Ok(Err(e)) => {
            eprintln!("hostile framed-on-buffered: {e}");
            Ok(())
        }
    };
    table.client().admin().delete_table(table.name()).await?;
    result
}

// ---- through the CLI ---------------------------------------------------------------

/// The `basalt` binary beside this test binary, built first (`cargo build -p
/// basalt-hbase-cli`) so that it is current; `BASALT_CLI_BIN` overrides.
fn cli_bin() -> Result<String, String> {
    if let Ok(bin) = std::env::var("BASALT_CLI_BIN") {
        return Ok(bin);
    }
    static BUILT: std::sync::OnceLock<Result<String, String>> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().map_err(|e| e.to_string())?;
            // target/<profile>/deps/hbase-HASH -> target/<profile>/basalt
            let profile_dir = exe.parent().and_then(|d| d.parent()).ok_or("unexpected test binary location")?;
            let bin = profile_dir.join("basalt");
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
            let target = profile_dir.parent().ok_or("unexpected test binary location")?;
            let mut build = std::process::Command::new(cargo);
            build.args(["build", "-q", "-p", "basalt-hbase-cli", "--bin", "basalt"]).env("CARGO_TARGET_DIR", target);
            if profile_dir.file_name().is_some_and(|n| n == "release") {
                build.arg("--release");
            }
            let out = build.output().map_err(|e| format!("cannot run cargo to build the CLI: {e}"))?;
            if !out.status.success() || !bin.exists() {
                return Err(format!(
                    "building the basalt CLI failed (set BASALT_CLI_BIN to a built binary): {}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            Ok(bin.display().to_string())
        })
        .clone()
}

async fn cli(args: &[&str]) -> Result<Outcome, Box<dyn std::error::Error + Send + Sync>> {
    let bin = tokio::task::spawn_blocking(cli_bin).await??;
    let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    let out = run_limited(bin, args, Vec::new()).await?;
    Ok(out)
}

/// The CLI failed cleanly: exited (no signal) with `code`, one `basalt: error:` line,
/// and the panic hook's "internal error" never printed.
fn clean_failure(what: &str, out: &Outcome, codes: &[i32]) -> TestResult {
    eprintln!("hostile CLI {what}: exit {:?}: {}", out.code, out.stderr.trim());
    let Some(code) = out.code else {
        return Err(format!("{what}: the CLI was killed by a signal (abort?)\n{}", out.describe()).into());
    };
    if out.stderr.contains("internal error") || out.stderr.contains("panicked") {
        return Err(format!("{what}: the CLI's panic hook fired\n{}", out.describe()).into());
    }
    if !codes.contains(&code) {
        return Err(format!("{what}: exit {code}, wanted one of {codes:?}\n{}", out.describe()).into());
    }
    let lines: Vec<&str> = out.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() != 1 || !lines.first().is_some_and(|l| l.starts_with("basalt: error: ")) {
        return Err(format!("{what}: stderr should be one error line\n{}", out.describe()).into());
    }
    Ok(())
}

async fn cli_framed_billion_element_list(_env: Env) -> TestResult {
    let server = HostileServer::start(Transport::Framed, billion_list).await?;
    let addr = server.addr().to_owned();
    for cmd in [&["get", "t", "k"][..], &["scan", "t"][..]] {
        let mut args = vec!["--addr", addr.as_str(), "--framed", "--request-timeout", "5s"];
        args.extend_from_slice(cmd);
        clean_failure(&format!("framed billion-element list, {}", cmd[0]), &cli(&args).await?, &[1])?;
    }
    Ok(())
}

async fn cli_compact_billion_element_list(_env: Env) -> TestResult {
    let server = HostileServer::start(Transport::Framed, compact_billion_list).await?;
    let addr = server.addr().to_owned();
    for cmd in [&["get", "t", "k"][..], &["scan", "t"][..]] {
        let mut args = vec!["--addr", addr.as_str(), "--framed", "--compact", "--request-timeout", "5s"];
        args.extend_from_slice(cmd);
        clean_failure(&format!("compact billion-element list, {}", cmd[0]), &cli(&args).await?, &[1])?;
    }
    Ok(())
}

async fn cli_buffered_reply_of_millions_of_empty_structs(_env: Env) -> TestResult {
    let server = HostileServer::start(Transport::Buffered, empty_structs(EMPTY_STRUCTS)).await?;
    let out = cli(&["--addr", server.addr(), "--request-timeout", "20s", "scan", "t"]).await?;
    clean_failure("buffered reply of empty structs", &out, &[1])
}

async fn cli_application_exception(_env: Env) -> TestResult {
    let server = HostileServer::start(Transport::Buffered, application_exception).await?;
    for cmd in [&["get", "t", "k"][..], &["scan", "t"][..], &["put", "t", "k", "d:q=v"][..]] {
        let mut args = vec!["--addr", server.addr()];
        args.extend_from_slice(cmd);
        let out = cli(&args).await?;
        clean_failure(&format!("TApplicationException, {}", cmd[0]), &out, &[1])?;
        if !out.stderr.contains("NullPointerException") {
            return Err(format!("the server's message is not shown\n{}", out.describe()).into());
        }
        if out.stderr.contains("--framed") {
            return Err(format!("an application error is not a transport mismatch\n{}", out.describe()).into());
        }
    }
    Ok(())
}

async fn cli_server_that_never_answers(_env: Env) -> TestResult {
    let server = HostileServer::start(Transport::Buffered, |_: &Request| Answer::Silent).await?;
    let out = cli(&["--addr", server.addr(), "--request-timeout", "2s", "get", "t", "k"]).await?;
    clean_failure("a server that never answers", &out, &[3])
}

async fn cli_framed_client_on_buffered_gateway(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    table.put(basalt::Put::new("k").cell("d", "v", "x")).await?;
    let out = cli(&["--addr", env.addr(), "--framed", "--request-timeout", "2s", "get", table.name(), "k"]).await?;
    table.client().admin().delete_table(table.name()).await?;
    clean_failure("framed client on a buffered gateway", &out, &[3])
}

async fn cli_malformed_filter_string(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    table.put(basalt::Put::new("k").cell("d", "v", "x")).await?;
    let mut args = vec!["--addr", env.addr(), "scan", table.name(), "--filter", "SingleColumnValueFilter('d',"];
    if env.options().framing == Framing::Framed {
        args.insert(2, "--framed");
    }
    let out = cli(&args).await?;
    table.client().admin().delete_table(table.name()).await?;
    // The filter is parsed on the client: bad input (exit 2) with the position of the
    // problem, and no transport hint (the transport is right; the filter is not).
    clean_failure("malformed filter string", &out, &[2])?;
    if !out.stderr.contains("at position 28") {
        return Err(format!("the error does not give the position\n{}", out.describe()).into());
    }
    if out.stderr.contains("--framed") {
        return Err(format!("a bad filter is not a transport mismatch\n{}", out.describe()).into());
    }
    Ok(())
}

async fn lib_valid_reply_of_many_small_rows(_env: Env) -> TestResult {
    let server = HostileServer::start(Transport::Buffered, big_valid_scan()).await?;
    let empty = HostileServer::start(Transport::Buffered, empty_scan()).await?;
    // The child's own high-water marks (exact, unlike the parent's samples).
    let peak = |out: &Outcome| -> Option<u64> {
        out.stdout.lines().find_map(|l| l.strip_prefix("peak rss: ")?.strip_suffix(" KiB")?.parse().ok())
    };
    let idle = lib_child("empty_valid", vec![(SERVER_ENV.to_owned(), empty.addr().to_owned())]).await?;
    let footprint = peak(&idle).ok_or_else(|| format!("no peak RSS for the empty scan: {}", idle.stdout))?;
    let out = lib_child("big_valid", vec![(SERVER_ENV.to_owned(), server.addr().to_owned())]).await?;
    check_big_rss("hostile library valid big page", peak(&out), footprint, BIG_PAGE_RSS_PER_REPLY_BYTE)
}

async fn cli_valid_reply_of_many_small_rows(_env: Env) -> TestResult {
    let server = HostileServer::start(Transport::Buffered, big_valid_scan()).await?;
    let caching = BIG_ROWS.to_string(); // one page: the whole reply at once
    let empty = HostileServer::start(Transport::Buffered, empty_scan()).await?;
    let idle = cli(&["--addr", empty.addr(), "scan", "t", "--output", "csv", "--caching", &caching]).await?;
    let footprint = idle.peak_rss_kib.ok_or_else(|| format!("no peak RSS for the empty scan\n{}", idle.describe()))?;
    let out = cli(&["--addr", server.addr(), "scan", "t", "--output", "csv", "--caching", &caching]).await?;
    eprintln!("hostile CLI valid 21 MB scan: exit {:?}, {} bytes of output", out.code, out.stdout.len());
    match out.code {
        None => Err(format!("the CLI was killed by a signal (over the 1 GiB limit?)\n{}", out.describe()).into()),
        Some(0) if out.stdout.lines().filter(|l| l.starts_with("r0")).count() == BIG_ROWS => {
            check_big_rss("hostile CLI valid big page", out.peak_rss_kib, footprint, BIG_PAGE_RSS_PER_REPLY_BYTE)
        }
        _ => Err(format!("the CLI did not print the {BIG_ROWS} rows\n{}", out.describe()).into()),
    }
}

/// `basalt scan` of one row of millions of small cells writes them as it goes, in
/// every output format: its peak RSS stays under [`BIG_RSS_PER_REPLY_BYTE`] times the
/// reply (building the row's JSON object in memory first took 7.9 GB for a 200 MiB
/// reply; the table format held every cell's text until the end); `export --format
/// json` too.
async fn cli_one_row_of_millions_of_cells_in_every_format(_env: Env) -> TestResult {
    let (scan, reply) = wide_row_scan();
    let server = HostileServer::start(Transport::Buffered, scan).await?;
    for format in ["json", "table", "csv", "export-json"] {
        let args: &[&str] = match format {
            "export-json" => &["export", "t", "--format", "json", "-q"],
            _ => &["scan", "t", "--output", format],
        };
        let out = cli(&[&["--addr", server.addr(), "--request-timeout", "60s"], args].concat()).await?;
        let (cells, complete) = match format {
            // Export's row shape: the key, then each column and its `@ts` twin.
            "json" => (
                out.stdout.matches("@ts\":").count(),
                out.stdout.starts_with("{\"key\":\"wide\",")
                    && out.stdout.ends_with("}\n")
                    && out.stdout.lines().count() == 1,
            ),
            "table" => (out.stdout.lines().filter(|l| l.starts_with("wide ")).count(), out.stdout.starts_with("KEY ")),
            "export-json" => (
                out.stdout.matches("\":\"v\"").count(),
                out.stdout.contains("\"key\":\"wide\"") && out.stdout.lines().count() == 1,
            ),
            _ => (out.stdout.lines().filter(|l| l.starts_with("wide,d:q")).count(), out.stdout.starts_with("key,")),
        };
        eprintln!(
            "hostile CLI {format} of a {WIDE_CELLS}-cell row: exit {:?}, {} bytes of output, {cells} cells",
            out.code,
            out.stdout.len()
        );
        match out.code {
            None => {
                return Err(format!(
                    "{format}: the CLI was killed by a signal (over the 1 GiB limit?)\n{}",
                    out.describe()
                )
                .into())
            }
            Some(0) if complete && cells == WIDE_CELLS => {
                let peak = out.peak_rss_kib.ok_or("no peak RSS measured")? as f64 * 1024.0;
                let ratio = peak / reply as f64;
                eprintln!(
                    "{format}: peak RSS {:.1} MiB for a {:.1} MiB reply: {ratio:.2}x",
                    peak / 1048576.0,
                    reply as f64 / 1048576.0
                );
                if ratio > BIG_RSS_PER_REPLY_BYTE {
                    return Err(
                        format!("{format}: peak RSS {ratio:.2}x the reply, over {BIG_RSS_PER_REPLY_BYTE}x").into()
                    );
                }
            }
            _ => {
                let what = tail(&out.describe(), 3000).to_owned();
                return Err(format!("{format}: the CLI did not print the row's {WIDE_CELLS} cells\n{what}").into());
            }
        }
    }
    Ok(())
}
