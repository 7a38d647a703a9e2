//! The async transport against the real server, in all four transport/protocol
//! combinations (the extra ones on gateways started for the test).

use std::time::Duration;

use basalt::TransportFailure;
use basalt_thrift::hbase::{TColumnFamilyDescriptor, TColumnValue, TGet, TPut, TScan, TTableDescriptor, TTableName};
use basalt_thrift::{CallError, Connection, ConnectionOptions, Framing, Protocol};
use futures::TryStreamExt;

use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        abandoned_call_poisons_the_connection,
        reply_over_the_limit_is_refused,
        transport_matrix_against_real_gateways
    ]
}

async fn abandoned_call_poisons_the_connection(env: Env) -> TestResult {
    let mut conn = env.connect().await?;
    // Drop a call's future before it can complete: the reply is left on the socket.
    // Polled once: the request is written and the reply has almost never been read yet
    // (a 1 ns timeout did not abandon it: tokio's timer ticks in milliseconds, and a
    // warm gateway answers within one). On a busy machine the gateway may answer
    // between the write and the read of that one poll: the call then completed, nothing
    // was abandoned, and the connection rightly stays usable; so the test tries again.
    for _ in 0..20 {
        if let Some(completed) = futures::FutureExt::now_or_never(conn.list_namespaces()) {
            completed?;
            continue;
        }
        assert!(!conn.is_reusable(), "a connection with an abandoned call must not be reused");
        assert!(matches!(conn.list_namespaces().await, Err(basalt_thrift::CallError::ConnectionUnusable)));
        return Ok(());
    }
    Err("20 calls each completed within their first poll: none was abandoned".into())
}

async fn reply_over_the_limit_is_refused(env: Env) -> TestResult {
    let options = basalt_thrift::ConnectionOptions { max_response_bytes: 16, ..env.options() };
    let mut conn = basalt_thrift::Connection::connect(env.addr(), options).await?;
    match conn.list_namespaces().await {
        Err(basalt_thrift::CallError::Reply(basalt_thrift::ReplyError::TooLarge { limit: 16, .. })) => {}
        other => panic!("expected ResponseTooLarge, got {other:?}"),
    }
    assert!(!conn.is_reusable());
    Ok(())
}

/// Rows written per transport combination.
const MATRIX_ROWS: usize = 500;
/// The row holding a 100 KB value.
const BIG_ROW: usize = 250;
/// Size of the big value.
const BIG_VALUE: usize = 100 * 1024;
/// Rows per scanner page: several pages, and each page's reply is over 64 KB.
const PAGE_ROWS: i32 = 100;

/// The three transports the main gateway does not speak, each started as an extra
/// Thrift2 server JVM against the same HBase, plus the main one: every call path of
/// the raw connection and of the pooled client works on each, and a client whose
/// transport does not match fails fast with a clear error.
async fn transport_matrix_against_real_gateways(env: Env) -> TestResult {
    let launcher = env.gateways()?;
    let started = std::time::Instant::now();
    // Starting a JVM is slow and mostly single-threaded: start the three in parallel.
    let gateways = tokio::task::spawn_blocking(move || {
        std::thread::scope(|s| {
            let handles: Vec<_> = [(true, false), (false, true), (true, true)]
                .into_iter()
                .map(|(framed, compact)| {
                    let launcher = &launcher;
                    s.spawn(move || launcher.start(framed, compact))
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("gateway start thread panicked")).collect::<Result<Vec<_>, _>>()
        })
    })
    .await??;
    for g in &gateways {
        eprintln!(
            "extra gateway {} (framed={}, compact={}) at {} ready in {:.1} s",
            g.name(),
            g.framed(),
            g.compact(),
            g.addr(),
            g.ready_in().as_secs_f64()
        );
    }
    eprintln!("three extra gateways ready in {:.1} s (started in parallel)", started.elapsed().as_secs_f64());

    let mut combos: Vec<(String, ConnectionOptions)> =
        gateways.iter().map(|g| (g.addr().to_owned(), options_for(g.framed(), g.compact()))).collect();
    combos.push((env.addr().to_owned(), env.options()));
    let runs = combos.iter().map(|(addr, options)| {
        let env = env.clone();
        async move {
            let label = format!("{:?}/{:?} at {addr}", options.framing, options.protocol);
            exercise_connection(&env, addr, options).await.map_err(|e| format!("{label}, raw connection: {e}"))?;
            exercise_client(&env, addr, options).await.map_err(|e| format!("{label}, pooled client: {e}"))?;
            Ok::<(), String>(())
        }
    });
    let exercised = futures::future::try_join_all(runs);

    // Mismatched clients. The server notices a wrong protocol or a missing frame at
    // once and closes the connection ("strict": must fail with an error, not a
    // timeout); a framed client against a buffered server leaves the server waiting
    // for more bytes, so only the request timeout ends it.
    let by_kind = |framed: bool, compact: bool| {
        gateways.iter().find(|g| g.framed() == framed && g.compact() == compact).map(|g| g.addr().to_owned())
    };
    let main = Some(env.addr().to_owned());
    let mismatches = [
        ("binary client, compact server", options_for(false, false), by_kind(false, true), true),
        ("buffered client, framed server", options_for(false, false), by_kind(true, false), true),
        ("compact client, binary server", options_for(false, true), main.clone(), true),
        ("framed client, buffered server", options_for(true, false), main, false),
    ];
    let mismatched =
        futures::future::try_join_all(mismatches.into_iter().map(|(what, options, addr, strict)| async move {
            let addr = addr.ok_or_else(|| format!("{what}: no such gateway"))?;
            mismatch_fails_fast(what, &addr, options, strict).await
        }));
    let (exercised, mismatched) = futures::future::join(exercised, mismatched).await;
    exercised?;
    mismatched?;
    drop(gateways);
    Ok(())
}

fn options_for(framed: bool, compact: bool) -> ConnectionOptions {
    ConnectionOptions {
        framing: if framed { Framing::Framed } else { Framing::Buffered },
        protocol: if compact { Protocol::Compact } else { Protocol::Binary },
        ..ConnectionOptions::default()
    }
}

fn matrix_row(i: usize) -> Vec<u8> {
    format!("row{i:05}").into_bytes()
}

/// 1 KB per row (so a page of 100 rows is a reply over 64 KB), 100 KB for [`BIG_ROW`].
fn matrix_value(i: usize) -> Vec<u8> {
    let len = if i == BIG_ROW { BIG_VALUE } else { 1024 };
    (0..len).map(|j| b'a' + ((i + j) % 26) as u8).collect()
}

fn tget(row: Vec<u8>) -> TGet {
    TGet::new(row, None, None, None, None, None, None, None, None, None, None, None, None, None, None)
}

fn tscan(caching: i32) -> TScan {
    TScan::new(
        None, None, None, caching, None, None, None, None, None, None, None, None, None, None, None, None, None, None,
    )
}

async fn exercise_connection(env: &Env, addr: &str, options: &ConnectionOptions) -> TestResult {
    let mut conn = Connection::connect(addr, options.clone()).await?;
    let name = env.unique("matrix_raw");
    let family = TColumnFamilyDescriptor { name: b"d".to_vec(), ..family_descriptor() };
    let desc = TTableDescriptor::new(TTableName::new(None, name.as_bytes().to_vec()), vec![family], None, None);
    conn.create_table(desc, Vec::new()).await?;
    let table = name.into_bytes();

    let puts = (0..MATRIX_ROWS)
        .map(|i| {
            let cell = TColumnValue::new(b"d".to_vec(), b"q".to_vec(), matrix_value(i), None, None, None);
            TPut::new(matrix_row(i), vec![cell], None, None, None, None)
        })
        .collect();
    conn.put_multiple(table.clone(), puts).await?;

    let small = conn.get(table.clone(), tget(matrix_row(7))).await?;
    assert_eq!(small.column_values.first().map(|c| c.value.clone()), Some(matrix_value(7)));
    // A reply over 64 KB (the read buffer's growth step).
    let big = conn.get(table.clone(), tget(matrix_row(BIG_ROW))).await?;
    assert_eq!(big.column_values.first().map(|c| c.value.len()), Some(BIG_VALUE));
    assert_eq!(big.column_values[0].value, matrix_value(BIG_ROW));

    let id = conn.open_scanner(table.clone(), tscan(PAGE_ROWS)).await?;
    let (mut rows, mut pages) = (Vec::new(), 0);
    loop {
        let page = conn.call(&basalt_thrift::hbase::calls::GetScannerRows::new(id, PAGE_ROWS)).await?;
        if page.is_empty() {
            break;
        }
        pages += 1;
        rows.extend(page.into_iter().map(|r| r.row.unwrap_or_default()));
    }
    conn.close_scanner(id).await?;
    assert_eq!(rows, (0..MATRIX_ROWS).map(matrix_row).collect::<Vec<_>>());
    assert!(pages >= 5, "{pages} pages");
    assert!(conn.is_reusable());

    // A reply over max_response_bytes is refused before it is buffered.
    let limited = ConnectionOptions { max_response_bytes: 32 * 1024, ..options.clone() };
    let mut small_conn = Connection::connect(addr, limited).await?;
    assert!(small_conn.get(table.clone(), tget(matrix_row(1))).await.is_ok(), "a small reply fits");
    match small_conn.get(table, tget(matrix_row(BIG_ROW))).await {
        Err(CallError::Reply(basalt_thrift::ReplyError::TooLarge { limit: 32768, declared })) => {
            assert_eq!(declared.is_some(), options.framing == Framing::Framed, "{declared:?}");
        }
        other => return Err(format!("expected ResponseTooLarge, got {other:?}").into()),
    }
    assert!(!small_conn.is_reusable());
    Ok(())
}

fn family_descriptor() -> TColumnFamilyDescriptor {
    TColumnFamilyDescriptor::new(
        b"d".to_vec(),
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
    )
}

fn client_for(addr: &str, options: &ConnectionOptions) -> basalt::ClientBuilder {
    basalt::Client::builder().address(addr).framing(options.framing).protocol(options.protocol).pool_size(4)
}

async fn exercise_client(env: &Env, addr: &str, options: &ConnectionOptions) -> TestResult {
    let client = client_for(addr, options).build()?;
    let name = env.unique("matrix_pool");
    let desc = basalt::TableDescriptor::new(name.clone()).family(basalt::ColumnFamily::new("d"));
    client.admin().create_table(&desc, &[]).await?;
    let table = client.table(&name)?;

    let puts = (0..MATRIX_ROWS).map(|i| basalt::Put::new(matrix_row(i)).cell("d", "q", matrix_value(i)));
    assert_eq!(table.put_many(puts).await?, MATRIX_ROWS);

    let row = table.get(basalt::Get::new(matrix_row(7))).await?;
    assert_eq!(row.value(b"d", b"q").map(|v| v.to_vec()), Some(matrix_value(7)));
    let big = table.get(basalt::Get::new(matrix_row(BIG_ROW))).await?;
    assert_eq!(big.value(b"d", b"q").map(|v| v.to_vec()), Some(matrix_value(BIG_ROW)));
    let many = table.get_many((0..MATRIX_ROWS).step_by(50).map(|i| basalt::Get::new(matrix_row(i)))).await?;
    assert_eq!(many.len(), MATRIX_ROWS / 50);

    let mut stream = table.scan(basalt::Scan::new().caching(PAGE_ROWS as u32))?;
    let stats = stream.stats();
    let mut keys = Vec::new();
    while let Some(row) = stream.try_next().await? {
        keys.push(row.key().to_vec());
    }
    assert_eq!(keys, (0..MATRIX_ROWS).map(matrix_row).collect::<Vec<_>>());
    assert!(stats.pages() >= 5, "{} pages", stats.pages());

    let limited = client_for(addr, options).max_response_bytes(32 * 1024).build()?;
    let table = limited.table(&name)?;
    table.get(basalt::Get::new(matrix_row(1))).await?;
    match table.get(basalt::Get::new(matrix_row(BIG_ROW))).await {
        Err(basalt::Error::Transport {
            source:
                TransportFailure::Gateway(CallError::Reply(basalt_thrift::ReplyError::TooLarge { limit: 32768, .. })),
            ..
        }) => {}
        other => return Err(format!("expected a ResponseTooLarge transport error, got {other:?}").into()),
    }
    Ok(())
}

/// A client whose transport or protocol does not match the server's must fail with a
/// clear error well within a short request timeout, on both layers; `strict`: with a
/// transport error ("the server closed the connection"), not a timeout.
async fn mismatch_fails_fast(what: &str, addr: &str, options: ConnectionOptions, strict: bool) -> TestResult {
    const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);
    let started = std::time::Instant::now();
    let raw = async {
        let mut conn = Connection::connect(addr, options.clone()).await?;
        conn.list_namespaces().await
    };
    match tokio::time::timeout(REQUEST_TIMEOUT, raw).await {
        Ok(Ok(namespaces)) => return Err(format!("{what}: the raw connection got an answer: {namespaces:?}").into()),
        Ok(Err(e)) => {
            eprintln!("{what}: raw connection failed in {:?}: {e}", started.elapsed());
            assert!(matches!(e, CallError::Closed | CallError::Io(_)), "{what}: unexpected error {e:?}");
        }
        Err(_) if strict => {
            return Err(format!("{what}: the raw connection got no answer in {REQUEST_TIMEOUT:?}").into())
        }
        Err(_) => eprintln!("{what}: raw connection got no answer within {REQUEST_TIMEOUT:?}"),
    }

    let client = client_for(addr, &options).request_timeout(REQUEST_TIMEOUT).build()?;
    let started = std::time::Instant::now();
    let outcome = tokio::time::timeout(Duration::from_secs(30), client.admin().list_namespaces()).await;
    let elapsed = started.elapsed();
    match outcome {
        Err(_) => Err(format!("{what}: the pooled client hung for 30 s").into()),
        Ok(Ok(namespaces)) => Err(format!("{what}: the pooled client got an answer: {namespaces:?}").into()),
        Ok(Err(e)) => {
            eprintln!("{what}: pooled client failed in {elapsed:?}: {e}");
            // Default retry policy: at most 4 attempts, each bounded by the timeout.
            assert!(elapsed < REQUEST_TIMEOUT * 4 + Duration::from_secs(4), "{what}: took {elapsed:?}");
            let clear = match e {
                basalt::Error::Transport {
                    source: TransportFailure::Gateway(CallError::Closed | CallError::Io(_)),
                    ..
                } => true,
                basalt::Error::Timeout { .. } => !strict,
                _ => false,
            };
            assert!(clear, "{what}: unexpected error {e:?}");
            Ok(())
        }
    }
}
