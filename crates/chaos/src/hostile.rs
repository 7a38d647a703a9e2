//! A hostile fake Thrift server: reads each call's header, answers what the test says.
//!
//! Only for testing Basalt's reply parser against bytes no real server sends; every
//! behaviour of HBase itself is tested against the real HBase.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// The transport the fake server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// No length prefix: a request ends when the client pauses.
    Buffered,
    /// Each message prefixed by its 4-byte big-endian length.
    Framed,
}

/// One call as the fake server saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The method name, when the header could be read (binary or compact protocol).
    pub name: String,
    /// The sequence id, to echo.
    pub seqid: i32,
    /// Every byte of the request (without the frame length).
    pub bytes: Vec<u8>,
}

/// What the fake server does with one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Send these bytes as the reply (framed transport: in a frame of their length).
    Reply(Vec<u8>),
    /// Send these bytes exactly as they are, whatever the transport (to lie about a
    /// frame's length, for instance).
    Raw(Vec<u8>),
    /// Keep the connection open and never answer.
    Silent,
    /// Close the connection.
    Close,
}

type Responder = dyn Fn(&Request) -> Answer + Send + Sync;

/// A fake Thrift server on `127.0.0.1:0`; stops when dropped.
pub struct HostileServer {
    addr: String,
    calls: Arc<AtomicU64>,
    accept: JoinHandle<()>,
}

impl std::fmt::Debug for HostileServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostileServer").field("addr", &self.addr).field("calls", &self.calls()).finish()
    }
}

/// Largest framed request read (anything larger closes the connection).
const MAX_REQUEST: usize = 64 << 20;
/// A buffered request is complete when the client has been quiet this long.
const QUIET: Duration = Duration::from_millis(40);

impl HostileServer {
    /// Starts answering every call with `respond(request)`.
    pub async fn start<F>(transport: Transport, respond: F) -> io::Result<HostileServer>
    where
        F: Fn(&Request) -> Answer + Send + Sync + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?.to_string();
        let calls = Arc::new(AtomicU64::new(0));
        let respond: Arc<Responder> = Arc::new(respond);
        let counter = calls.clone();
        let accept = tokio::spawn(async move {
            let mut connections = Vec::new();
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                };
                let respond = respond.clone();
                let counter = counter.clone();
                connections.retain(|c: &JoinHandle<()>| !c.is_finished());
                connections.push(tokio::spawn(serve(socket, transport, respond, counter)));
            }
        });
        Ok(HostileServer { addr, calls, accept })
    }

    /// The server's `127.0.0.1:port`.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// Calls received so far.
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }
}

impl Drop for HostileServer {
    fn drop(&mut self) {
        // Aborting the accept task drops its connection tasks' handles, not the tasks;
        // they end when their client goes away (each is bounded by its client).
        self.accept.abort();
    }
}

async fn serve(mut socket: TcpStream, transport: Transport, respond: Arc<Responder>, calls: Arc<AtomicU64>) {
    loop {
        let bytes = match transport {
            Transport::Framed => read_frame(&mut socket).await,
            Transport::Buffered => read_quiet(&mut socket).await,
        };
        let Some(bytes) = bytes else { return };
        calls.fetch_add(1, Ordering::Relaxed);
        let (name, seqid) = header(&bytes).unwrap_or_default();
        let answer = respond(&Request { name, seqid, bytes });
        let out = match answer {
            Answer::Reply(reply) if transport == Transport::Framed => {
                let len = u32::try_from(reply.len()).unwrap_or(u32::MAX);
                let mut framed = len.to_be_bytes().to_vec();
                framed.extend_from_slice(&reply);
                framed
            }
            Answer::Reply(reply) | Answer::Raw(reply) => reply,
            Answer::Silent => {
                // Read and discard until the client leaves.
                let mut sink = [0u8; 4096];
                while matches!(socket.read(&mut sink).await, Ok(n) if n > 0) {}
                return;
            }
            Answer::Close => return,
        };
        if socket.write_all(&out).await.is_err() {
            return;
        }
    }
}

async fn read_frame(socket: &mut TcpStream) -> Option<Vec<u8>> {
    let mut len = [0u8; 4];
    socket.read_exact(&mut len).await.ok()?;
    let len = usize::try_from(u32::from_be_bytes(len)).ok()?;
    if len > MAX_REQUEST {
        return None;
    }
    let mut bytes = vec![0u8; len];
    socket.read_exact(&mut bytes).await.ok()?;
    Some(bytes)
}

async fn read_quiet(socket: &mut TcpStream) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    let n = socket.read(&mut chunk).await.ok()?;
    if n == 0 {
        return None;
    }
    bytes.extend_from_slice(chunk.get(..n)?);
    while let Ok(read) = tokio::time::timeout(QUIET, socket.read(&mut chunk)).await {
        match read {
            Ok(0) | Err(_) => break,
            Ok(n) => bytes.extend_from_slice(chunk.get(..n)?),
        }
        if bytes.len() > MAX_REQUEST {
            return None;
        }
    }
    Some(bytes)
}

/// The method name and sequence id of a binary (strict) or compact message header.
fn header(bytes: &[u8]) -> Option<(String, i32)> {
    match bytes.first()? {
        0x80 => {
            let len = usize::try_from(i32::from_be_bytes(bytes.get(4..8)?.try_into().ok()?)).ok()?;
            let name = bytes.get(8..8 + len)?;
            let seqid = i32::from_be_bytes(bytes.get(8 + len..12 + len)?.try_into().ok()?);
            Some((String::from_utf8_lossy(name).into_owned(), seqid))
        }
        0x82 => {
            let (seqid, used) = varint(bytes.get(2..)?)?;
            let (len, used_len) = varint(bytes.get(2 + used..)?)?;
            let start = 2 + used + used_len;
            let name = bytes.get(start..start + usize::try_from(len).ok()?)?;
            Some((String::from_utf8_lossy(name).into_owned(), seqid as i32))
        }
        _ => None,
    }
}

fn varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, b) in bytes.iter().take(10).enumerate() {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::writer::{BinaryWriter, MessageType};

    #[tokio::test]
    async fn echoes_name_and_seqid_framed_and_buffered() {
        for transport in [Transport::Framed, Transport::Buffered] {
            let server = HostileServer::start(transport, |req| {
                Answer::Reply(BinaryWriter::new().message(&req.name, MessageType::Reply, req.seqid).stop().into_bytes())
            })
            .await
            .unwrap();
            let call = BinaryWriter::new().message("getAll", MessageType::Call, 42).stop().into_bytes();
            let mut s = TcpStream::connect(server.addr()).await.unwrap();
            let mut sent = call.clone();
            if transport == Transport::Framed {
                sent = [(call.len() as u32).to_be_bytes().to_vec(), call].concat();
            }
            s.write_all(&sent).await.unwrap();
            let want = BinaryWriter::new().message("getAll", MessageType::Reply, 42).stop().into_bytes();
            let skip = if transport == Transport::Framed { 4 } else { 0 };
            let mut got = vec![0u8; want.len() + skip];
            s.read_exact(&mut got).await.unwrap();
            assert_eq!(&got[skip..], &want[..]);
            assert_eq!(server.calls(), 1);
        }
    }

    #[test]
    fn reads_compact_headers() {
        // Compact: 0x82, version|type<<5, varint seqid, varint name length, name.
        let bytes = [0x82, 0x21, 0x05, 0x03, b'g', b'e', b't', 0];
        assert_eq!(header(&bytes), Some(("get".to_owned(), 5)));
        assert_eq!(header(&[0x80, 1]), None);
        assert_eq!(header(&[]), None);
    }
}
