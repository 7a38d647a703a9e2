//! Peak memory while reading one large `getScannerRows` reply of small cells, as a
//! multiple of the reply's size: the zero-copy decoder (borrowed rows, or owned
//! `RowData`) against the generated decoder (plus the `Bytes` conversion a client
//! does). The reply is written to a temporary file first and streamed into a real
//! `Connection` in 64 KiB reads, so only the reader's memory is measured (the peak is
//! reset through `/proc/self/clear_refs` before reading).
//!
//! ```text
//! cargo run --release -p basalt-thrift --example reply_memory -- 200 zero-copy compact buffered
//! cargo run --release -p basalt-thrift --example reply_memory -- 20 generated compact buffered
//! ```
//! Arguments: reply size in MiB (200), `zero-copy` | `owned` | `generated`,
//! `binary` | `compact`, `buffered` | `framed`.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use basalt_thrift::hbase::{calls, TColumnValue, TResult};
use basalt_thrift::{Connection, ConnectionOptions, ConnectionStream, Framing, Protocol};
use bytes::Bytes;
use thrift::protocol::{
    TBinaryOutputProtocol, TCompactOutputProtocol, TFieldIdentifier, TListIdentifier, TMessageIdentifier, TMessageType,
    TOutputProtocol, TSerializable, TStructIdentifier, TType,
};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

const CELLS_PER_ROW: usize = 10;

/// A row as a client keeps it after the generated decoder: key and (family, qualifier, value)s.
type ClientRow = (Bytes, Vec<(Bytes, Bytes, Bytes)>);

/// A file read as the server's side of a connection; writes are discarded.
#[derive(Debug)]
struct FileStream(File);

impl AsyncRead for FileStream {
    fn poll_read(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let want = buf.remaining().min(64 * 1024);
        let mut chunk = vec![0u8; want];
        let n = self.0.read(&mut chunk)?;
        buf.put_slice(&chunk[..n]);
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for FileStream {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl ConnectionStream for FileStream {}

fn row(i: usize) -> TResult {
    let cells = (0..CELLS_PER_ROW)
        .map(|q| {
            let value = ((i * 7 + q) as u32).to_be_bytes().to_vec();
            TColumnValue::new(b"d".to_vec(), format!("q{q}").into_bytes(), value, Some(1_700_000_000_000), None, None)
        })
        .collect();
    TResult::new(format!("row-{i:010}").into_bytes(), cells, None, None)
}

fn output<'a>(protocol: Protocol, w: &'a mut dyn Write) -> Box<dyn TOutputProtocol + 'a> {
    match protocol {
        Protocol::Compact => Box::new(TCompactOutputProtocol::new(w)),
        _ => Box::new(TBinaryOutputProtocol::new(w, true)),
    }
}

/// Writes a reply of about `target` bytes; returns (path, bytes, rows).
fn write_reply(
    protocol: Protocol,
    framing: Framing,
    target: usize,
) -> std::io::Result<(std::path::PathBuf, u64, usize)> {
    let mut one = Vec::new();
    row(0).write_to_out_protocol(output(protocol, &mut one).as_mut()).map_err(std::io::Error::other)?;
    let rows = target / one.len();
    let header_and_rows = |w: &mut dyn Write| -> thrift::Result<()> {
        let mut out = output(protocol, w);
        out.write_message_begin(&TMessageIdentifier::new("getScannerRows", TMessageType::Reply, 1))?;
        out.write_struct_begin(&TStructIdentifier::new("result"))?;
        out.write_field_begin(&TFieldIdentifier::new("success", TType::List, 0))?;
        out.write_list_begin(&TListIdentifier::new(TType::Struct, rows as i32))?;
        for i in 0..rows {
            row(i).write_to_out_protocol(out.as_mut())?;
        }
        out.write_list_end()?;
        out.write_field_end()?;
        out.write_field_stop()?;
        out.write_struct_end()?;
        out.write_message_end()?;
        out.flush()
    };
    let path = std::env::temp_dir().join(format!("basalt-reply-memory-{}.bin", std::process::id()));
    let mut file = BufWriter::new(File::create(&path)?);
    if framing == Framing::Framed {
        // Measure first (a counting writer), then write the frame length and the body.
        let mut counter = Counter(0);
        header_and_rows(&mut counter).map_err(std::io::Error::other)?;
        file.write_all(&(counter.0 as u32).to_be_bytes())?;
    }
    header_and_rows(&mut file).map_err(std::io::Error::other)?;
    file.flush()?;
    drop(file);
    let len = std::fs::metadata(&path)?.len();
    Ok((path, len, rows))
}

struct Counter(usize);
impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mib: usize = args.first().map_or(Ok(200), |a| a.parse())?;
    let mode = args.get(1).map_or("zero-copy", String::as_str).to_owned();
    let protocol = if args.get(2).map(String::as_str) == Some("binary") { Protocol::Binary } else { Protocol::Compact };
    let framing = if args.get(3).map(String::as_str) == Some("framed") { Framing::Framed } else { Framing::Buffered };

    let (path, len, rows) = write_reply(protocol, framing, mib << 20)?;
    let cells = rows * CELLS_PER_ROW;
    // Reset the peak-RSS mark, then read.
    std::fs::write("/proc/self/clear_refs", "5")?;
    let baseline = status_kib("VmRSS:");
    let options = ConnectionOptions { framing, protocol, max_response_bytes: 1 << 31, ..ConnectionOptions::default() };
    let mut conn = Connection::from_stream(FileStream(File::open(&path)?), "file", options);
    let started = Instant::now();
    let (seen, kept) = match mode.as_str() {
        "generated" => {
            let results = conn.call(&calls::GetScannerRows::new(1, rows as i32)).await?;
            // What a client does next: every field into a `Bytes`.
            let converted: Vec<ClientRow> = results
                .into_iter()
                .map(|r| {
                    let cells = r
                        .column_values
                        .into_iter()
                        .map(|c| (Bytes::from(c.family), Bytes::from(c.qualifier), Bytes::from(c.value)))
                        .collect();
                    (Bytes::from(r.row.unwrap_or_default()), cells)
                })
                .collect();
            (converted.iter().map(|(_, c)| c.len()).sum::<usize>(), converted.len())
        }
        "owned" => {
            let rows = conn.get_scanner_rows(1, rows as i32).await?.to_rows();
            (rows.iter().map(|r| r.cells.len()).sum(), rows.len())
        }
        _ => {
            let batch = conn.get_scanner_rows(1, rows as i32).await?;
            let seen = batch.iter().flat_map(|r| r.cells()).filter(|c| !c.value().is_empty()).count();
            (seen, batch.len())
        }
    };
    let elapsed = started.elapsed();
    let peak = status_kib("VmHWM:");
    std::fs::remove_file(&path)?;
    if seen != cells || kept != rows {
        return Err(format!("read {kept} rows / {seen} cells, expected {rows} / {cells}").into());
    }
    let used = peak.saturating_sub(baseline) * 1024;
    println!(
        "{mode} {protocol:?}/{framing:?}: reply {:.1} MiB, {rows} rows, {cells} cells ({:.1} B/cell); \
         peak RSS above baseline {:.1} MiB = {:.2}x the reply; {:.2} s",
        len as f64 / 1048576.0,
        len as f64 / cells as f64,
        used as f64 / 1048576.0,
        used as f64 / len as f64,
        elapsed.as_secs_f64()
    );
    Ok(())
}
