//! The client in a hostile world, against the real server: gateways restarted
//! mid-scan, two gateways behind a round-robin TCP balancer, expired scanners with no
//! retry policy, HBase's true key-length limit, partial batches and malformed filters.
//!
//! The balancer is a few lines of tokio in this file ([`Balancer`]): it forwards each
//! accepted connection to the next gateway of its list, and can be pointed at a new
//! list (a gateway "restarted" behind the same address).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use basalt::{Error, Filter, Get, NoRetry, Put, Row, Scan, ScanPaging, Table};
use basalt_testkit::Gateway;
use basalt_thrift::{Framing, Protocol};
use futures::{StreamExt, TryStreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use crate::support::{check_reopens_after_pause, Env, Test, TestResult, SCANNER_TIMEOUT};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        #[gateway_only("a gateway restarted mid-scan")]
        gateway_restart_mid_scan_never_returns_other_rows,
        #[gateway_only("two gateways behind a balancer")]
        round_robin_balancer_over_two_gateways_keeps_scans_exact,
        expired_scanner_recovers_with_no_retry_policy,
        #[gateway_only("a gateway outage behind a balancer")]
        writes_and_scans_ride_out_a_gateway_outage,
        stateless_paging_matches_scanner_paging,
        row_key_limit_is_the_gateways,
        put_many_with_an_unknown_family_says_which_rows_may_be_written,
        malformed_filter_gets_the_filter_hint,
    ]
}

/// A round-robin TCP forwarder on 127.0.0.1: each accepted connection goes to the
/// next target. Retargeting affects new connections only; an outage cuts every
/// forwarded connection and refuses new ones until `resume` (same port).
struct Balancer {
    addr: String,
    targets: Arc<Mutex<Vec<String>>>,
    next: Arc<AtomicUsize>,
    forwarded: Arc<Mutex<Vec<tokio::task::AbortHandle>>>,
    accept: Mutex<Option<JoinHandle<()>>>,
}

impl Balancer {
    async fn start(targets: Vec<String>) -> std::io::Result<Balancer> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let balancer = Balancer {
            addr: listener.local_addr()?.to_string(),
            targets: Arc::new(Mutex::new(targets)),
            next: Arc::new(AtomicUsize::new(0)),
            forwarded: Arc::new(Mutex::new(Vec::new())),
            accept: Mutex::new(None),
        };
        balancer.serve(listener);
        Ok(balancer)
    }

    fn serve(&self, listener: TcpListener) {
        let (targets, next, forwarded) =
            (Arc::clone(&self.targets), Arc::clone(&self.next), Arc::clone(&self.forwarded));
        let accept = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let target = {
                    let list = targets.lock().unwrap_or_else(|p| p.into_inner());
                    list[next.fetch_add(1, Ordering::Relaxed) % list.len()].clone()
                };
                let task = tokio::spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(&target).await {
                        let _ = server.set_nodelay(true);
                        let _ = client.set_nodelay(true);
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                forwarded.lock().unwrap_or_else(|p| p.into_inner()).push(task.abort_handle());
            }
        });
        *self.accept.lock().unwrap_or_else(|p| p.into_inner()) = Some(accept);
    }

    fn retarget(&self, targets: Vec<String>) {
        *self.targets.lock().unwrap_or_else(|p| p.into_inner()) = targets;
    }

    /// Like a gateway going down: every connection is cut, new ones are refused.
    async fn outage(&self) {
        let accept = self.accept.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(accept) = accept {
            accept.abort();
            let _ = accept.await;
        }
        let forwarded: Vec<_> = self.forwarded.lock().unwrap_or_else(|p| p.into_inner()).drain(..).collect();
        for task in forwarded {
            task.abort();
        }
    }

    /// The gateway is back, on the same address.
    async fn resume(&self) -> std::io::Result<()> {
        let listener = TcpListener::bind(&self.addr).await?;
        self.serve(listener);
        Ok(())
    }
}

impl Drop for Balancer {
    fn drop(&mut self) {
        if let Some(accept) = self.accept.lock().unwrap_or_else(|p| p.into_inner()).take() {
            accept.abort();
        }
        for task in self.forwarded.lock().unwrap_or_else(|p| p.into_inner()).drain(..) {
            task.abort();
        }
    }
}

/// Starts `n` extra gateways like the main one, in parallel.
async fn gateways(env: &Env, n: usize) -> Result<Vec<Gateway>, Box<dyn std::error::Error + Send + Sync>> {
    let launcher = env.gateways()?;
    let options = env.options();
    let (framed, compact) = (options.framing == Framing::Framed, options.protocol == Protocol::Compact);
    let started = tokio::task::spawn_blocking(move || {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..n)
                .map(|_| {
                    let launcher = &launcher;
                    s.spawn(move || launcher.start(framed, compact))
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("gateway start thread panicked")).collect::<Result<Vec<_>, _>>()
        })
    })
    .await??;
    Ok(started)
}

fn client_at(env: &Env, addr: &str) -> basalt::ClientBuilder {
    let options = env.options();
    basalt::Client::builder().address(addr).framing(options.framing).protocol(options.protocol)
}

fn key(i: usize) -> String {
    format!("r{i:06}")
}

async fn load(table: &Table, n: usize, value: &str) -> Result<(), Error> {
    table.put_many((0..n).map(|i| Put::new(key(i)).cell("d", "v", value.to_owned()))).await?;
    Ok(())
}

/// Every row once, in order, with the expected value.
fn check_exact(rows: &[Row], want: &[usize], value: &str, what: &str) -> TestResult {
    let got: Vec<String> = rows.iter().map(|r| String::from_utf8_lossy(r.key()).into_owned()).collect();
    let expected: Vec<String> = want.iter().map(|&i| key(i)).collect();
    if got != expected {
        let missing = expected.iter().filter(|k| !got.contains(k)).count();
        return Err(format!(
            "{what}: {} rows, expected {}; {missing} missing; first got {:?}",
            got.len(),
            expected.len(),
            got.iter().take(3).collect::<Vec<_>>()
        )
        .into());
    }
    let foreign = rows.iter().filter(|r| r.value(b"d", b"v") != Some(value.as_bytes())).count();
    if foreign > 0 {
        return Err(format!("{what}: {foreign} rows of another table").into());
    }
    Ok(())
}

/// The silent wrong result: a scan paused, its gateway restarted behind the
/// same address, another client opened scanners there (ids restart at 0 in each
/// gateway process). The scan must resume from its own position, never read the other
/// client's scanner.
async fn gateway_restart_mid_scan_never_returns_other_rows(env: Env) -> TestResult {
    const ROWS: usize = 20_000;
    let ours = env.fresh_table(&["d"], &[]).await?;
    let theirs = env.fresh_table(&["d"], &[]).await?;
    load(&ours, ROWS, "ours").await?;
    load(&theirs, ROWS, "theirs").await?;
    let mut first = gateways(&env, 1).await?;
    let balancer = Balancer::start(vec![first[0].addr().to_owned()]).await?;

    let client = client_at(&env, &balancer.addr).build()?;
    let mut stream = client.table(ours.name())?.scan(Scan::new().caching(1000))?;
    let stats = stream.stats();
    let mut rows = Vec::new();
    while rows.len() < 1500 {
        rows.push(stream.try_next().await?.ok_or("scan ended early")?);
    }
    // Restart: the gateway process goes away, a new one answers at the same address.
    first[0].stop()?;
    let second = gateways(&env, 1).await?;
    balancer.retarget(vec![second[0].addr().to_owned()]);
    // Another client opens scanners on another table through the same address.
    let intruder = client_at(&env, &balancer.addr).build()?;
    let other = intruder.table(theirs.name())?;
    let mut intruders = Vec::new();
    for _ in 0..8 {
        let mut s = other.scan(Scan::new().caching(10))?;
        s.next().await.ok_or("intruder scan empty")??;
        intruders.push(s);
    }
    while let Some(row) = stream.try_next().await? {
        rows.push(row);
    }
    eprintln!(
        "restart mid-scan: {} rows, {} pages, {} reopens, {} refused pages",
        rows.len(),
        stats.pages(),
        stats.reopens(),
        stats.rejected_pages()
    );
    check_exact(&rows, &(0..ROWS).collect::<Vec<_>>(), "ours", "scan across a gateway restart")?;
    assert!(stats.reopens() >= 1, "the scan must have reopened after the restart");
    drop(intruders);
    drop(second);
    Ok(())
}

/// Two gateways behind a round-robin balancer: connections land on either, so a
/// scanner id is meaningful only on the connection that opened it.
async fn round_robin_balancer_over_two_gateways_keeps_scans_exact(env: Env) -> TestResult {
    const ROWS: usize = 12_000;
    let table = env.fresh_table(&["d"], &[b"r003000", b"r006000", b"r009000"]).await?;
    load(&table, ROWS, "x").await?;
    let pair = gateways(&env, 2).await?;
    let balancer = Balancer::start(pair.iter().map(|g| g.addr().to_owned()).collect()).await?;
    // A small pool shared by many scans: connections are reused across them.
    let client = client_at(&env, &balancer.addr).pool_size(3).build()?;
    let table = client.table(table.name())?;
    let mut runs = Vec::new();
    for round in 0..8usize {
        let (lo, hi) = (round * 1000, round * 1000 + 4000);
        let reversed = round % 2 == 1;
        let paging = if round % 4 == 3 { ScanPaging::Stateless } else { ScanPaging::Scanner };
        let scan = Scan::new().start(key(lo)).stop(key(hi)).caching(97).reversed(reversed).paging(paging);
        let table = table.clone();
        runs.push(async move {
            let mut stream = table.scan(scan)?;
            let stats = stream.stats();
            let mut rows = Vec::new();
            while let Some(row) = stream.try_next().await? {
                rows.push(row);
                if rows.len() % 500 == 0 {
                    tokio::task::yield_now().await;
                }
            }
            let mut want: Vec<usize> = (lo..hi).collect();
            if reversed {
                want.reverse();
            }
            check_exact(&rows, &want, "x", &format!("scan {round} (reversed {reversed}, {paging:?})"))?;
            Ok::<_, Box<dyn std::error::Error + Send + Sync>>((stats.pages(), stats.reopens(), stats.rejected_pages()))
        });
    }
    let figures = futures::future::try_join_all(runs).await?;
    let pages: u64 = figures.iter().map(|f| f.0).sum();
    let reopens: u64 = figures.iter().map(|f| f.1).sum();
    let refused: u64 = figures.iter().map(|f| f.2).sum();
    eprintln!("balancer: 8 scans exact, {pages} pages, {reopens} reopens, {refused} refused pages");
    drop(pair);
    Ok(())
}

/// A routine gateway restart (every connection cut, new ones refused for 12 s): with
/// the default policy and budget, writes during the outage succeed once it is back, an
/// increment (never sent while no connection could be made) is applied exactly once,
/// and a scan in flight resumes exactly where it stopped.
async fn writes_and_scans_ride_out_a_gateway_outage(env: Env) -> TestResult {
    const ROWS: usize = 5_000;
    const OUTAGE: Duration = Duration::from_secs(12);
    let table = env.fresh_table(&["d"], &[]).await?;
    load(&table, ROWS, "x").await?;
    let balancer = Balancer::start(vec![env.addr().to_owned()]).await?;
    let client = client_at(&env, &balancer.addr).build()?;
    let through = client.table(table.name())?;
    let mut stream = through.scan(Scan::new().caching(100))?;
    let stats = stream.stats();
    let mut rows = Vec::new();
    while rows.len() < 1000 {
        rows.push(stream.try_next().await?.ok_or("scan ended early")?);
    }
    balancer.outage().await;
    let started = std::time::Instant::now();
    let writer = {
        let through = through.clone();
        tokio::spawn(async move {
            through.put_many((ROWS..ROWS + 500).map(|i| Put::new(key(i)).cell("d", "v", "late"))).await
        })
    };
    let reader = {
        let through = through.clone();
        tokio::spawn(async move { through.get(Get::new(key(7))).await })
    };
    // Not idempotent: retried only because no connection could be made (never sent).
    let counter = {
        let through = through.clone();
        tokio::spawn(async move { through.increment_counter("counter", "d", "n", 1).await })
    };
    tokio::time::sleep(OUTAGE).await;
    balancer.resume().await?;
    assert_eq!(writer.await??, 500, "writes during the outage");
    assert!(!reader.await??.is_empty(), "a get during the outage");
    assert_eq!(counter.await??, 1, "an increment during the outage is applied once");
    eprintln!("outage of {OUTAGE:?}: writes and gets done {:?} after it began", started.elapsed());
    while let Some(row) = stream.try_next().await? {
        rows.push(row);
    }
    // The scan was opened before the late writes; it may or may not see them, but the
    // rows it had to return are exactly there.
    rows.retain(|r| r.value(b"d", b"v") == Some(b"x"));
    check_exact(&rows, &(0..ROWS).collect::<Vec<_>>(), "x", "scan across an outage")?;
    assert!(stats.reopens() >= 1, "the scan must have reopened");
    let late = table.scan_all(Scan::new().start(key(ROWS))).await?;
    assert_eq!(late.len(), 500, "every acknowledged write is readable");
    Ok(())
}

/// Scanner expiry is recovered by the scan itself, not by the caller's retry policy
/// (on the native transport the lease is renewed instead: see
/// [`check_reopens_after_pause`]).
async fn expired_scanner_recovers_with_no_retry_policy(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    load(&table, 300, "x").await?;
    let client = env.client_builder().retry_policy(NoRetry).build()?;
    let table = client.table(table.name())?;
    for reversed in [false, true] {
        let mut stream = table.scan(Scan::new().caching(50).reversed(reversed))?;
        let stats = stream.stats();
        let mut rows = vec![stream.try_next().await?.ok_or("empty scan")?];
        // Past the server's scanner lease, but within its idle timeout: through the
        // gateway the next page meets "Invalid scanner Id" on a live connection; the
        // native transport renews the lease meanwhile.
        tokio::time::sleep(SCANNER_TIMEOUT * 2).await;
        while let Some(row) = stream.try_next().await? {
            rows.push(row);
        }
        let mut want: Vec<usize> = (0..300).collect();
        if reversed {
            want.reverse();
        }
        check_exact(&rows, &want, "x", &format!("expired scan (reversed {reversed})"))?;
        check_reopens_after_pause(&env, stats.reopens(), &format!("reversed {reversed}"))?;
    }
    Ok(())
}

/// `getScannerResults` paging returns what scanner paging returns, forward, reversed,
/// limited and batched; the figures compare their page costs.
async fn stateless_paging_matches_scanner_paging(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[b"r000500"]).await?;
    load(&table, 1000, "x").await?;
    let wide = (0..9).fold(Put::new(key(10)), |put, c| put.cell("d", format!("c{c}"), "w"));
    table.put(wide).await?;
    let scans = [
        Scan::new(),
        Scan::new().reversed(true),
        Scan::new().start(key(100)).stop(key(700)).limit(333),
        Scan::new().start(key(5)).stop(key(20)).batch(2).caching(3),
        Scan::new().start(key(5)).stop(key(20)).batch(2).caching(3).reversed(true),
        // One row per page: a wide row's parts and a reversed start re-read every page.
        Scan::new().start(key(8)).stop(key(12)).batch(2).caching(1),
        Scan::new().start(key(8)).stop(key(12)).batch(2).caching(1).reversed(true),
    ];
    for scan in scans {
        let started = std::time::Instant::now();
        let by_scanner = table.scan_all(scan.clone()).await?;
        let scanner_time = started.elapsed();
        let started = std::time::Instant::now();
        let stateless = table.scan_all(scan.clone().paging(ScanPaging::Stateless)).await?;
        let stateless_time = started.elapsed();
        assert_eq!(by_scanner, stateless, "{scan:?}");
        eprintln!("{} rows: scanner paging {scanner_time:?}, stateless paging {stateless_time:?}", by_scanner.len());
    }
    Ok(())
}

/// The longest key HBase serves through the gateway is 32767 - 16 - the table name's
/// length (its meta lookup key `table,row,99999999999999` is itself a row key): that
/// key works on a fresh table, one byte more is refused before sending (it used to
/// hang until the request timeout).
async fn row_key_limit_is_the_gateways(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    let max = basalt::max_row_key_len(table.name());
    assert_eq!(max, 32767 - 16 - table.name().len());
    let client = env.client_builder().request_timeout(Duration::from_secs(20)).build()?;
    let table = client.table(table.name())?;
    // First use of the fresh table: the gateway must locate the region with this key.
    table.put(Put::new(vec![b'k'; max]).cell("d", "v", "x")).await?;
    assert!(!table.get(Get::new(vec![b'k'; max])).await?.is_empty());
    match table.put(Put::new(vec![b'k'; max + 1]).cell("d", "v", "x")).await {
        Err(Error::InvalidInput(basalt::InvalidInput::RowKeyTooLong { len, max: m })) => {
            assert_eq!((len, m), (max + 1, max));
        }
        other => return Err(format!("expected RowKeyTooLong, got {other:?}").into()),
    }
    assert!(matches!(table.get(Get::new(vec![b'k'; max + 1])).await, Err(Error::InvalidInput(_))));
    assert!(table.scan(Scan::new().start(vec![b'k'; max + 1])).is_err());
    Ok(())
}

/// HBase applies a batch row by row: a chunk failing on one row's unknown family still
/// writes the others, and the error must say so.
async fn put_many_with_an_unknown_family_says_which_rows_may_be_written(env: Env) -> TestResult {
    // One chunk at a time, so that the last row is never sent.
    let table = env.fresh_table(&["d"], &[]).await?.with_batch_rows(3).with_write_concurrency(1);
    let puts = vec![
        Put::new("a").cell("d", "v", "1"),
        Put::new("b").cell("nofamily", "v", "2"),
        Put::new("c").cell("d", "v", "3"),
        Put::new("d").cell("d", "v", "4"),
    ];
    let error = table.put_many(puts).await.err().ok_or("a put naming an unknown family succeeded")?;
    let text = error.to_string();
    match &error {
        Error::BatchFailed { confirmed, not_confirmed, in_doubt, source } => {
            assert!(matches!(**source, Error::NoSuchColumnFamily { .. }), "{source:?}");
            if env.client().capabilities().answers_per_write {
                // Answers per write (native RPC): a and c written, b refused, d never sent.
                assert_eq!((*confirmed, *in_doubt), (2, 0), "{text}");
                assert_eq!(not_confirmed, &[basalt::Bytes::from_static(b"b"), basalt::Bytes::from_static(b"d")]);
                assert!(!error.may_have_written());
            } else {
                // One answer for the whole call (the gateway): its rows may be written.
                assert_eq!((*confirmed, *in_doubt, not_confirmed.len()), (0, 3, 4), "{text}");
                assert!(error.may_have_written());
                assert!(text.contains("may or may not have been written"), "{text}");
            }
        }
        other => return Err(format!("expected BatchFailed, got {other:?}").into()),
    }
    // The truth: the good rows of the failing chunk were written; the last was not sent.
    assert!(!table.get(Get::new("a")).await?.is_empty());
    assert!(!table.get(Get::new("c")).await?.is_empty());
    assert!(table.get(Get::new("d")).await?.is_empty());
    Ok(())
}

/// The gateway parses filter strings inside its handler: a malformed one comes back as
/// an internal error, which must not be reported as a transport mismatch. The native
/// transport sends filters as HBase's protobuf filters, so it parses the string itself
/// and refuses a malformed one before sending, saying it is the filter.
async fn malformed_filter_gets_the_filter_hint(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[]).await?;
    load(&table, 10, "x").await?;
    let client = env.client_builder().retry_policy(NoRetry).build()?;
    let table = client.table(table.name())?;
    let bad = Filter::raw("PrefixFilter('r00'");
    let scanned = table.scan_all(Scan::new().filter(bad.clone())).await;
    let got = table.get(Get::new(key(1)).filter(bad)).await;
    for (what, outcome) in [("scan", scanned.map(|_| ())), ("get", got.map(|_| ()))] {
        let parses = client.capabilities().parses_filter_strings;
        match (parses, outcome) {
            (false, Err(Error::ServerInternal { hint: Some(hint), .. })) => {
                assert!(hint.contains("filter"), "{what}: {hint}")
            }
            (true, Err(Error::InvalidInput(basalt::InvalidInput::Option(why)))) => {
                assert!(why.contains("filter"), "{what}: {why}")
            }
            (parses, other) => {
                return Err(format!(
                    "{what} (filter strings parsed before sending: {parses}): expected the filter named in the \
                     error, got {other:?}"
                )
                .into())
            }
        }
    }
    // The same client still works.
    assert_eq!(table.scan_all(Scan::new().filter(Filter::prefix("r00000"))).await?.len(), 10);
    Ok(())
}
