//! A tiny hostile Thrift server on the loopback, to test how a [`Connection`] reads
//! replies it should not trust (a test of our parser, so a fake server is right here):
//! lying counts and lengths, floods of empty structs, cut replies. Every case must end
//! in a typed error, without a panic and with bounded memory; valid replies must read
//! the same through the generated and the zero-copy paths.

#[path = "../../thrift-protocol/tests/support/mod.rs"]
mod support;

use basalt_thrift::hbase::{calls, TColumnValue, TGet, TResult, TScan};
use basalt_thrift::{CallError, Connection, ConnectionOptions, Framing, MessageScanner, Protocol};
use support::{reply, Success};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the fake server sends for one request.
enum Answer {
    /// These bytes (frame prefix included when framed), then wait for the next request.
    Bytes(Vec<u8>),
    /// These bytes, then close the connection.
    BytesThenClose(Vec<u8>),
}

async fn read_request(socket: &mut TcpStream, framing: Framing, protocol: Protocol) -> bool {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let complete = match framing {
            Framing::Framed => {
                buf.len() >= 4 && buf.len() >= 4 + u32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]) as usize
            }
            _ => MessageScanner::new(protocol, 1 << 20).advance(&buf).unwrap().is_some(),
        };
        if complete {
            return true;
        }
        match socket.read(&mut chunk).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// Starts a server answering successive requests with `answers`; returns its address.
async fn serve(framing: Framing, protocol: Protocol, answers: Vec<Answer>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        let Ok((mut socket, _)) = listener.accept().await else { return };
        for answer in answers {
            if !read_request(&mut socket, framing, protocol).await {
                return;
            }
            match answer {
                Answer::Bytes(bytes) => {
                    let _ = socket.write_all(&bytes).await;
                }
                Answer::BytesThenClose(bytes) => {
                    let _ = socket.write_all(&bytes).await;
                    return;
                }
            }
        }
        // Hold the socket until the client is done.
        let mut sink = [0u8; 64];
        while matches!(socket.read(&mut sink).await, Ok(n) if n > 0) {}
    });
    addr
}

fn framed(framing: Framing, message: Vec<u8>) -> Vec<u8> {
    match framing {
        Framing::Framed => {
            let mut out = (message.len() as u32).to_be_bytes().to_vec();
            out.extend_from_slice(&message);
            out
        }
        _ => message,
    }
}

fn options(framing: Framing, protocol: Protocol) -> ConnectionOptions {
    ConnectionOptions { framing, protocol, ..ConnectionOptions::default() }
}

const MODES: [(Framing, Protocol); 4] = [
    (Framing::Buffered, Protocol::Binary),
    (Framing::Buffered, Protocol::Compact),
    (Framing::Framed, Protocol::Binary),
    (Framing::Framed, Protocol::Compact),
];

/// A reply header then the result struct's field 0 as a list of `count` elements of
/// type struct, followed by `body`.
fn list_reply(protocol: Protocol, method: &str, seq: i32, count: u32, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match protocol {
        Protocol::Binary => {
            out.extend_from_slice(&0x8001_0002u32.to_be_bytes());
            out.extend_from_slice(&(method.len() as u32).to_be_bytes());
            out.extend_from_slice(method.as_bytes());
            out.extend_from_slice(&seq.to_be_bytes());
            out.extend_from_slice(&[15, 0, 0, 12]); // field 0: list of structs
            out.extend_from_slice(&count.to_be_bytes());
        }
        _ => {
            out.extend_from_slice(&[0x82, 0x41]); // compact, version 1, type reply
            push_varint(&mut out, seq as u32 as u64);
            push_varint(&mut out, method.len() as u64);
            out.extend_from_slice(method.as_bytes());
            out.extend_from_slice(&[0x09, 0x00, 0x00]); // field 0 (delta 0, id varint 0), list
            out.push(0xfc); // struct elements, count follows
            push_varint(&mut out, u64::from(count));
        }
    }
    out.extend_from_slice(body);
    out
}

fn push_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn peak_rss_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() / 1024
}

fn assert_refused<T: std::fmt::Debug>(case: &str, result: Result<T, CallError>) {
    match result {
        Err(
            CallError::Reply(basalt_thrift::ReplyError::Malformed(_))
            | CallError::Reply(basalt_thrift::ReplyError::TooLarge { .. })
            | CallError::Closed,
        ) => {}
        other => panic!("{case}: expected a typed refusal, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_replies_give_typed_errors_and_bounded_memory() {
    let empty_structs = 16usize << 20; // 16 MiB of empty structs (one byte each)
    for (framing, protocol) in MODES {
        let mode = format!("{framing:?}/{protocol:?}");
        // 1. A 40-byte frame declaring a list of 10^9 elements (the old abort).
        for row_call in [false, true] {
            let msg = list_reply(protocol, "getMultiple", 1, 1_000_000_000, &[0; 8]);
            let addr = serve(framing, protocol, vec![Answer::Bytes(framed(framing, msg))]).await;
            let mut conn = Connection::connect(&addr, options(framing, protocol)).await.unwrap();
            let gets = vec![TGet::new(
                b"r".to_vec(),
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
            )];
            if row_call {
                assert_refused(&format!("{mode} 10^9 rows, zero-copy"), conn.get_multiple(b"t".to_vec(), gets).await);
            } else {
                assert_refused(
                    &format!("{mode} 10^9 rows, generated"),
                    conn.call(&calls::GetMultiple::new(b"t".to_vec(), gets)).await,
                );
            }
            assert!(!conn.is_reusable());
        }
        // 2. A frame header declaring 4 GiB, with the limit raised so it is not refused
        //    up front: the client must not reserve it, only read what comes.
        if framing == Framing::Framed {
            let mut bytes = u32::MAX.to_be_bytes().to_vec();
            bytes.extend_from_slice(&list_reply(protocol, "getScannerRows", 1, 3, &[]));
            let addr = serve(framing, protocol, vec![Answer::BytesThenClose(bytes)]).await;
            let opts = ConnectionOptions { max_response_bytes: usize::MAX, ..options(framing, protocol) };
            let mut conn = Connection::connect(&addr, opts).await.unwrap();
            assert_refused(&format!("{mode} 4 GiB frame"), conn.get_scanner_rows(1, 10).await);
        }
        // 3. Millions of empty structs (1 byte each on the wire, ~56-176 in memory).
        for call in ["getMultiple", "getScannerRows", "getTableDescriptorsByPattern"] {
            let msg = list_reply(protocol, call, 1, empty_structs as u32, &vec![0u8; empty_structs + 2]);
            let addr = serve(framing, protocol, vec![Answer::Bytes(framed(framing, msg))]).await;
            let mut conn = Connection::connect(&addr, options(framing, protocol)).await.unwrap();
            let case = format!("{mode} {call} of {empty_structs} empty structs");
            match call {
                "getMultiple" => {
                    assert_refused(&case, conn.call(&calls::GetMultiple::new(b"t".to_vec(), Vec::new())).await)
                }
                "getScannerRows" => {
                    assert_refused(&format!("{case}, zero-copy"), conn.get_scanner_rows(1, 10).await);
                }
                _ => assert_refused(&case, conn.get_table_descriptors_by_pattern(".*".into(), false).await),
            }
        }
        // 4. A row key declaring 2 GiB.
        let mut body = vec![];
        match protocol {
            Protocol::Binary => {
                body.extend_from_slice(&[11, 0, 1]);
                body.extend_from_slice(&i32::MAX.to_be_bytes());
            }
            _ => body.extend_from_slice(&[0x18, 0xff, 0xff, 0xff, 0xff, 0x07]),
        }
        body.extend_from_slice(b"short");
        for row_call in [false, true] {
            let msg = list_reply(protocol, "getScannerRows", 1, 1, &body);
            let addr = serve(framing, protocol, vec![Answer::BytesThenClose(framed(framing, msg))]).await;
            let mut conn = Connection::connect(&addr, options(framing, protocol)).await.unwrap();
            let case = format!("{mode} 2 GiB row key");
            if row_call {
                assert_refused(&case, conn.get_scanner_rows(1, 10).await);
            } else {
                assert_refused(&case, conn.call(&calls::GetScannerRows::new(1, 10)).await);
            }
        }
        // 5. A valid reply cut anywhere, then the server hangs up.
        let results = sample(20);
        let whole = reply(protocol, "getScannerRows", 1, Success::Many(&results));
        for cut in (0..whole.len()).step_by(97) {
            let mut bytes = framed(framing, whole.clone());
            bytes.truncate(cut + if framing == Framing::Framed { 4 } else { 0 });
            let addr = serve(framing, protocol, vec![Answer::BytesThenClose(bytes)]).await;
            let mut conn = Connection::connect(&addr, options(framing, protocol)).await.unwrap();
            assert_refused(&format!("{mode} cut at {cut}"), conn.get_scanner_rows(1, 10).await);
        }
    }
    let peak = peak_rss_mib();
    // The largest hostile reply is 16 MiB; the old code reserved 56 GB for case 1.
    assert!(peak < 400, "peak RSS {peak} MiB while refusing hostile replies");
    println!("peak RSS after every hostile case: {peak} MiB");
}

fn sample(n: usize) -> Vec<TResult> {
    (0..n)
        .map(|i| {
            let cells = (0..3)
                .map(|q| {
                    TColumnValue::new(
                        b"d".to_vec(),
                        vec![b'a' + q],
                        vec![i as u8; 10 + i],
                        Some(i as i64),
                        None,
                        Some(4),
                    )
                })
                .collect();
            TResult::new(format!("row-{i:04}").into_bytes(), cells, None, Some(i == n - 1))
        })
        .collect()
}

#[tokio::test]
async fn valid_replies_read_the_same_through_both_paths() {
    for (framing, protocol) in MODES {
        let results = sample(200);
        let get = TResult::new(b"row-7".to_vec(), results[7].column_values.clone(), None, None);
        let missing = TResult::new(None, Vec::new(), None, None);
        let answers = vec![
            Answer::Bytes(framed(framing, reply(protocol, "getScannerRows", 1, Success::Many(&results)))),
            Answer::Bytes(framed(framing, reply(protocol, "getScannerRows", 2, Success::Many(&results)))),
            Answer::Bytes(framed(framing, reply(protocol, "getMultiple", 3, Success::Many(&results[..5])))),
            Answer::Bytes(framed(framing, reply(protocol, "get", 4, Success::One(&get)))),
            Answer::Bytes(framed(framing, reply(protocol, "get", 5, Success::One(&missing)))),
            Answer::Bytes(framed(framing, reply(protocol, "getScannerResults", 6, Success::Many(&[])))),
            Answer::Bytes(framed(framing, support::application_exception(protocol, "getScannerRows", 7, "boom"))),
            Answer::Bytes(framed(framing, reply(protocol, "getScannerRows", 8, Success::Many(&results[..1])))),
            Answer::Bytes(framed(framing, support::application_exception(protocol, "getScannerRows", 9, "boom"))),
            Answer::Bytes(framed(framing, reply(protocol, "getScannerRows", 10, Success::Many(&results[..2])))),
        ];
        let addr = serve(framing, protocol, answers).await;
        let mut conn = Connection::connect(&addr, options(framing, protocol)).await.unwrap();
        let generated = conn.call(&calls::GetScannerRows::new(1, 200)).await.unwrap();
        assert_eq!(generated, results);
        let batch = conn.get_scanner_rows(1, 200).await.unwrap();
        assert_eq!(batch.to_rows(), support::expected(&results));
        assert!(batch.last().unwrap().partial());
        let rows = conn.get_multiple(b"t".to_vec(), Vec::new()).await.unwrap();
        assert_eq!(rows.to_rows(), support::expected(&results[..5]));
        let tget = TGet::new(
            b"row-7".to_vec(),
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
        );
        assert_eq!(conn.get_row(b"t".to_vec(), tget.clone()).await.unwrap(), support::expected_row(&get));
        let row = conn.get_row(b"t".to_vec(), tget).await.unwrap();
        assert!(row.row.is_empty() && row.cells.is_empty());
        let scan = TScan::new(
            None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None,
        );
        assert!(conn.get_scanner_results(b"t".to_vec(), scan, 10).await.unwrap().is_empty());
        let err = conn.get_scanner_rows(1, 10).await.unwrap_err();
        assert!(
            matches!(&err, CallError::Reply(basalt_thrift::ReplyError::Application { kind, message }) if kind == "InternalError" && message == "boom"),
            "{err:?}"
        );
        // A declared error leaves the connection usable.
        assert_eq!(conn.get_scanner_rows(1, 10).await.unwrap().len(), 1);
        // The same through the generated path.
        let err = conn.call(&calls::GetScannerRows::new(1, 10)).await.unwrap_err();
        assert!(
            matches!(&err, CallError::Reply(basalt_thrift::ReplyError::Application { kind, message }) if kind == "InternalError" && message == "boom"),
            "{err:?}"
        );
        assert_eq!(conn.call(&calls::GetScannerRows::new(1, 10)).await.unwrap().len(), 2);
    }
}
