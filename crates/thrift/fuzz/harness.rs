// The fuzz harness, shared by the fuzz target (`fuzz_targets/reply.rs`) and the test
// that replays its findings (`crates/thrift/tests/fuzz_regressions.rs`): one input is
// one server reply read by a real `Connection`. See the target for the input layout.

use std::cell::RefCell;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use basalt_thrift::hbase::{calls, TGet, TScan, TTableName};
use basalt_thrift::{CallError, Connection, ConnectionOptions, ConnectionStream, Framing, Protocol};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A stream that swallows writes and serves `data` in chunks of `chunk` bytes.
#[derive(Debug)]
struct Scripted {
    data: Vec<u8>,
    at: usize,
    chunk: usize,
}

impl AsyncRead for Scripted {
    fn poll_read(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let n = self.chunk.min(buf.remaining()).min(self.data.len() - self.at);
        let at = self.at;
        buf.put_slice(&self.data[at..at + n]);
        self.at += n;
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Scripted {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl ConnectionStream for Scripted {}

const CALLS: [&str; 12] = [
    "get",
    "getMultiple",
    "getScannerRows",
    "getScannerResults",
    "get",
    "getMultiple",
    "getScannerRows",
    "getScannerResults",
    "getAllRegionLocations",
    "getTableDescriptorsByPattern",
    "existsAll",
    "listNamespaceDescriptors",
];

fn header(protocol: Protocol, method: &str) -> Vec<u8> {
    let mut out = Vec::new();
    match protocol {
        Protocol::Compact => {
            out.extend_from_slice(&[0x82, 0x41, 0x01, method.len() as u8]);
        }
        _ => {
            out.extend_from_slice(&0x8001_0002u32.to_be_bytes());
            out.extend_from_slice(&(method.len() as u32).to_be_bytes());
            out.extend_from_slice(method.as_bytes());
            out.extend_from_slice(&1i32.to_be_bytes());
            return out;
        }
    }
    out.extend_from_slice(method.as_bytes());
    out
}

fn tget() -> TGet {
    TGet::new(b"r".to_vec(), None, None, None, None, None, None, None, None, None, None, None, None, None, None)
}

fn tscan() -> TScan {
    TScan::new(
        None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None,
    )
}

async fn run(conn: &mut Connection, call: usize) -> Result<usize, CallError> {
    let t = b"t".to_vec();
    Ok(match call {
        0 => conn.get_row(t, tget()).await?.cells.len(),
        1 => conn.get_multiple(t, vec![tget()]).await?.to_rows().len(),
        2 => conn.get_scanner_rows(1, 10).await?.to_rows().len(),
        3 => conn.get_scanner_results(t, tscan(), 10).await?.to_rows().len(),
        4 => conn.get(t, tget()).await?.column_values.len(),
        5 => conn.call(&calls::GetMultiple::new(t, vec![tget()])).await?.len(),
        6 => conn.call(&calls::GetScannerRows::new(1, 10)).await?.len(),
        7 => conn.call(&calls::GetScannerResults::new(t, tscan(), 10)).await?.len(),
        8 => conn.get_all_region_locations(t).await?.len(),
        9 => conn.get_table_descriptors_by_pattern(".*".into(), false).await?.len(),
        10 => conn.exists_all(t, vec![tget()]).await?.len(),
        _ => {
            let _ = TTableName::new(None, t);
            conn.list_namespace_descriptors().await?.len()
        }
    })
}

thread_local! {
    static RUNTIME: RefCell<tokio::runtime::Runtime> =
        RefCell::new(tokio::runtime::Builder::new_current_thread().build().expect("runtime"));
}

/// Reads `input` as described in the fuzz target's documentation.
pub fn run_input(input: &[u8]) {
    let [mode, chunk, rest @ ..] = input else { return };
    let framing = if mode & 1 == 0 { Framing::Buffered } else { Framing::Framed };
    let protocol = if mode & 2 == 0 { Protocol::Binary } else { Protocol::Compact };
    let call = usize::from(mode >> 3) % CALLS.len();
    let mut data = Vec::new();
    if mode & 4 != 0 {
        let mut message = header(protocol, CALLS[call]);
        message.extend_from_slice(rest);
        if framing == Framing::Framed {
            data.extend_from_slice(&(message.len() as u32).to_be_bytes());
        }
        data.extend_from_slice(&message);
    } else {
        data.extend_from_slice(rest);
    }
    let chunk = match chunk {
        0 => 1 << 16,
        n => usize::from(*n),
    };
    let options = ConnectionOptions { framing, protocol, max_response_bytes: 1 << 20, ..ConnectionOptions::default() };
    let mut conn = Connection::from_stream(Scripted { data, at: 0, chunk }, "fuzz", options);
    RUNTIME.with(|rt| {
        let _ = rt.borrow().block_on(run(&mut conn, call));
    });
}
