//! One TCP connection to an HBase server, with calls multiplexed by call id.
//!
//! A writer task owns the socket's write half and sends whole frames (so a caller that
//! is dropped mid-call never leaves half a frame on the wire); a reader task reads reply
//! frames and hands each to the pending call with its id. A call's future owns a guard
//! that removes its pending entry when dropped or timed out, so a late reply finds no
//! entry and is discarded. Replies are read into buffers that are used again once
//! the replies cut from them are dropped (a few are kept, 8 MiB at most beyond the
//! one in use; see `recv.rs`). When the connection fails (I/O error, an unreadable reply, a
//! fatal server exception), every pending call fails with
//! [`RpcError::ConnectionFailed`] and the connection refuses new calls; the pool then
//! opens a new one on next use.
//!
//! A connection may be secured ([`ConnectionOptions::security`]): TLS around it, SASL
//! GSSAPI after the preamble, or both; the handshakes are bounded by the connect
//! timeout, and a failure is an [`RpcError::Security`], which is not retried.

use std::collections::HashMap;
use std::io::IoSlice;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use basalt_rpc_protocol::call::{self, CallHead, Service};
use basalt_rpc_protocol::cellblock::CellCodec;
use basalt_rpc_protocol::reply::{Reply as ReplyFrame, ReplyDecoder};
use bytes::{Bytes, BytesMut};
use prost::Message;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::error::{RemoteError, RpcError};
use crate::recv::ReceiveBuffer;
use crate::security::{self, Security};

/// Settings of one connection.
#[derive(Debug, Clone)]
pub struct ConnectionOptions {
    /// The user name sent in the connection header (simple authentication).
    pub user: String,
    /// How long opening the TCP connection may take.
    pub connect_timeout: Duration,
    /// The largest reply frame accepted; a larger one fails the connection.
    pub max_frame: usize,
    /// TLS and Kerberos (default: neither). Under Kerberos the servers take the user
    /// from the ticket, and `user` is not sent.
    pub security: Security,
}

impl Default for ConnectionOptions {
    fn default() -> Self {
        ConnectionOptions {
            user: std::env::var("USER").unwrap_or_else(|_| "basalt".to_owned()),
            connect_timeout: Duration::from_secs(10),
            max_frame: 256 << 20,
            security: Security::default(),
        }
    }
}

/// A successful reply: the encoded response message and the cell block, both slices of
/// the reply frame.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The encoded response message.
    pub param: Bytes,
    /// The cell block (empty when there is none).
    pub cell_block: Bytes,
}

impl Reply {
    /// Decodes the response message.
    pub(crate) fn decode<M: Message + Default>(&self, addr: &str) -> Result<M, RpcError> {
        M::decode(self.param.clone())
            .map_err(|e| RpcError::Protocol { addr: addr.to_owned(), reason: format!("undecodable response: {e}") })
    }
}

type Waiter = oneshot::Sender<Result<Reply, RpcError>>;

/// One request as the writer sends it: the length, header and message (or only the
/// message's length, when the caller encoded the message in pieces), then the pieces
/// the caller built (the message's, then the cell block's; not copied into the frame: a
/// batch's block is most of its bytes).
struct Frame {
    head: Bytes,
    block: Vec<Bytes>,
}

impl Frame {
    fn len(&self) -> usize {
        self.head.len() + self.block.iter().map(Bytes::len).sum::<usize>()
    }
}

/// The calls waiting for a reply, or why the connection is no longer usable.
enum Pending {
    Open(HashMap<u32, Waiter>),
    Failed(RpcError),
}

struct Shared {
    addr: String,
    pending: Mutex<Pending>,
    /// Bytes of requests handed to the writer and not yet written to the socket.
    queued: AtomicUsize,
}

/// The most request bytes a connection queues for a server that does not read them: past
/// it (a stalled peer, a long pause) a new call fails the connection instead of growing
/// the queue; the calls already queued end with it and later ones open a new one. One
/// request larger than this still goes when nothing else is queued.
const MAX_QUEUED_BYTES: usize = 128 << 20;

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Pending> {
        match self.pending.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Marks the connection failed and fails every pending call with `error`.
    fn fail(&self, reason: String) {
        let error = RpcError::ConnectionFailed { addr: self.addr.clone(), reason };
        let waiters = match std::mem::replace(&mut *self.lock(), Pending::Failed(error.clone())) {
            Pending::Open(waiters) => waiters,
            Pending::Failed(_) => HashMap::new(),
        };
        for (_, waiter) in waiters {
            let _ = waiter.send(Err(error.clone()));
        }
    }

    fn failure(&self) -> Option<RpcError> {
        match &*self.lock() {
            Pending::Open(_) => None,
            Pending::Failed(error) => Some(error.clone()),
        }
    }
}

/// A connection to one server for one service (`ClientService`, `ClientMetaService`);
/// cheap to clone. The background tasks stop when the last clone is dropped.
#[derive(Clone)]
pub struct Connection {
    inner: Arc<Inner>,
}

struct Inner {
    shared: Arc<Shared>,
    next_id: AtomicU32,
    writer: mpsc::UnboundedSender<Frame>,
    /// The writer task: aborted with the connection, since a writer blocked on a peer
    /// that stopped reading would never see its channel close.
    writer_task: tokio::task::AbortHandle,
    reader: JoinHandle<()>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.writer_task.abort();
        self.reader.abort();
    }
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").field("addr", &self.inner.shared.addr).finish()
    }
}

impl Connection {
    /// Opens a connection to `addr` (`host:port`) for `service`: TLS and the SASL
    /// exchange when the options ask for them, then the preamble and connection header.
    /// HBase does not answer the header: a refused header shows up as a fatal exception
    /// on the first call.
    pub async fn connect(addr: &str, service: Service, options: &ConnectionOptions) -> Result<Connection, RpcError> {
        let connect_error = |reason: String| RpcError::Connect { addr: addr.to_owned(), reason };
        let stream = match tokio::time::timeout(options.connect_timeout, TcpStream::connect(addr)).await {
            Ok(Ok(stream)) => stream,
            Ok(Err(e)) => return Err(connect_error(e.to_string())),
            Err(_) => return Err(connect_error(format!("no answer within {:?}", options.connect_timeout))),
        };
        stream.set_nodelay(true).map_err(|e| connect_error(e.to_string()))?;
        let mut header = call::connection_header(service, &options.user, Some(CellCodec::KeyValue));
        let mut start = BytesMut::new();
        if options.security.is_plain() {
            call::encode_connection_start(&header, &mut start).map_err(|e| connect_error(e.to_string()))?;
            let (read_half, mut write_half) = stream.into_split();
            write_half
                .write_all(&start)
                .await
                .map_err(|e| connect_error(format!("sending the connection header: {e}")))?;
            return Ok(Connection::start(addr, read_half, write_half, options.max_frame));
        }
        let secured = security::secure(
            stream,
            addr,
            &options.security,
            options.connect_timeout,
            options.max_frame.saturating_add(64 << 10),
        )
        .await
        .map_err(|error| RpcError::Security { addr: addr.to_owned(), error })?;
        if secured.preamble_sent {
            // Kerberos: the server knows the user from the ticket.
            header.user_info = None;
        } else {
            start.extend_from_slice(&call::preamble(call::AuthMethod::Simple));
        }
        call::encode_connection_header(&header, &mut start).map_err(|e| connect_error(e.to_string()))?;
        let (read_half, mut write_half) = tokio::io::split(secured.stream);
        let sent = async {
            write_half.write_all(&start).await?;
            write_half.flush().await
        };
        sent.await.map_err(|e| connect_error(format!("sending the connection header: {e}")))?;
        Ok(Connection::start(addr, read_half, write_half, options.max_frame))
    }

    /// Starts the reader and writer tasks over the two halves of a connection whose
    /// header was sent.
    fn start<R, W>(addr: &str, read_half: R, write_half: W, max_frame: usize) -> Connection
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let shared = Arc::new(Shared {
            addr: addr.to_owned(),
            pending: Mutex::new(Pending::Open(HashMap::new())),
            queued: AtomicUsize::new(0),
        });
        let (tx, rx) = mpsc::unbounded_channel();
        let writer = tokio::spawn(write_loop(write_half, rx, shared.clone()));
        let writer_task = writer.abort_handle();
        let reader = tokio::spawn(read_loop(read_half, shared.clone(), max_frame, writer));
        Connection { inner: Arc::new(Inner { shared, next_id: AtomicU32::new(1), writer: tx, writer_task, reader }) }
    }

    /// The server's `host:port`.
    pub fn addr(&self) -> &str {
        &self.inner.shared.addr
    }

    /// Whether the connection has failed (a new call would fail at once).
    pub fn is_broken(&self) -> bool {
        self.inner.shared.failure().is_some() || self.inner.writer.is_closed()
    }

    /// How many calls wait for a reply (0 on a failed connection).
    pub fn pending_calls(&self) -> usize {
        match &*self.inner.shared.lock() {
            Pending::Open(waiters) => waiters.len(),
            Pending::Failed(_) => 0,
        }
    }

    /// Calls `method` with `param` and an optional cell block; waits at most `timeout`.
    /// Dropping the returned future removes the call's entry; its reply, if it comes,
    /// is discarded.
    pub async fn call(
        &self,
        method: &'static str,
        param: &impl Message,
        cell_block: Option<&Bytes>,
        timeout: Duration,
    ) -> Result<Reply, RpcError> {
        self.call_with_block(method, param, one_piece(cell_block), timeout).await
    }

    /// [`call`](Connection::call) with a cell block made of `pieces`, sent one after
    /// the other as one block (a batch's regions, each written apart, are not joined).
    pub async fn call_with_block(
        &self,
        method: &'static str,
        param: &impl Message,
        pieces: Vec<Bytes>,
        timeout: Duration,
    ) -> Result<Reply, RpcError> {
        let block_len = pieces.iter().map(Bytes::len).sum();
        let head = |head: &CallHead<'_>, out: &mut BytesMut| call::encode_call_head(head, param, block_len, out);
        self.send_and_wait(method, head, pieces, timeout).await
    }

    /// [`call_with_block`](Connection::call_with_block) with the request already
    /// encoded, in `request` pieces sent one after the other (a batch's regions'
    /// actions, each written apart, are not joined), then the cell block's `pieces`.
    pub async fn call_in_pieces(
        &self,
        method: &'static str,
        request: Vec<Bytes>,
        pieces: Vec<Bytes>,
        timeout: Duration,
    ) -> Result<Reply, RpcError> {
        let request_len = request.iter().map(Bytes::len).sum();
        let block_len = pieces.iter().map(Bytes::len).sum();
        let head =
            |head: &CallHead<'_>, out: &mut BytesMut| call::encode_call_prefix(head, request_len, block_len, out);
        let mut all = request;
        all.extend(pieces);
        self.send_and_wait(method, head, all, timeout).await
    }

    /// Sends a frame whose head `encode_head` writes, followed by `pieces`, and waits
    /// for its reply.
    async fn send_and_wait(
        &self,
        method: &'static str,
        encode_head: impl FnOnce(&CallHead<'_>, &mut BytesMut) -> Result<(), basalt_rpc_protocol::FrameError>,
        pieces: Vec<Bytes>,
        timeout: Duration,
    ) -> Result<Reply, RpcError> {
        let shared = &self.inner.shared;
        // Call ids are u32 on the wire but the server reads them as int; stay positive.
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed) & 0x7fff_ffff;
        let (tx, rx) = oneshot::channel();
        match &mut *shared.lock() {
            Pending::Open(waiters) => {
                waiters.insert(id, tx);
            }
            Pending::Failed(error) => return Err(error.clone()),
        }
        let _guard = PendingGuard { shared, id };
        let timeout_ms = u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX);
        let head = CallHead { call_id: id, method_name: method, priority: None, timeout_ms: Some(timeout_ms) };
        let mut bytes = BytesMut::new();
        encode_head(&head, &mut bytes)
            .map_err(|e| RpcError::InvalidArgument(format!("a request that cannot be framed: {e}")))?;
        let frame = Frame { head: bytes.freeze(), block: pieces };
        let queued = shared.queued.fetch_add(frame.len(), Ordering::AcqRel);
        if queued > 0 && queued + frame.len() > MAX_QUEUED_BYTES {
            shared.queued.fetch_sub(frame.len(), Ordering::AcqRel);
            let reason = format!("the server is not reading: {queued} bytes of requests wait to be written");
            shared.fail(reason);
            // The queued requests and both tasks go now, not when the last clone of
            // the failed connection does (the pool keeps it until the server's next
            // call): the writer is blocked on a socket nobody reads, the reader on one
            // that may never close.
            self.inner.writer_task.abort();
            self.inner.reader.abort();
            return Err(shared.failure().unwrap_or_else(|| RpcError::ConnectionFailed {
                addr: shared.addr.clone(),
                reason: "the server is not reading".into(),
            }));
        }
        if self.inner.writer.send(frame).is_err() {
            return Err(shared.failure().unwrap_or_else(|| RpcError::ConnectionFailed {
                addr: shared.addr.clone(),
                reason: "the writer stopped".into(),
            }));
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(shared.failure().unwrap_or_else(|| RpcError::ConnectionFailed {
                addr: shared.addr.clone(),
                reason: "the reader stopped".into(),
            })),
            Err(_) => Err(RpcError::Timeout { addr: shared.addr.clone(), method, timeout }),
        }
    }
}

/// Removes a call's pending entry when its future completes or is dropped.
struct PendingGuard<'a> {
    shared: &'a Shared,
    id: u32,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        if let Pending::Open(waiters) = &mut *self.shared.lock() {
            waiters.remove(&self.id);
        }
    }
}

/// A cell block given whole, as the pieces [`Connection::call_with_block`] takes (none
/// when it is absent or empty).
pub(crate) fn one_piece(cell_block: Option<&Bytes>) -> Vec<Bytes> {
    cell_block.filter(|b| !b.is_empty()).map(|b| vec![b.clone()]).unwrap_or_default()
}

/// Frames the writer sends in one vectored write at most (each is a head and its cell
/// block's pieces; the system takes at most 1,024 buffers per write).
const MAX_FRAMES_PER_WRITE: usize = 64;

/// Sends `frames` whole, in order, each piece straight from its buffer (no copy into a
/// staging buffer: a batch's cell block is most of its bytes).
async fn write_frames<W: AsyncWrite + Unpin>(out: &mut W, frames: &[Frame]) -> std::io::Result<()> {
    let pieces = frames.iter().flat_map(|frame| std::iter::once(&frame.head).chain(&frame.block));
    let mut slices: Vec<IoSlice<'_>> = Vec::with_capacity(frames.iter().map(|frame| 1 + frame.block.len()).sum());
    slices.extend(pieces.filter(|piece| !piece.is_empty()).map(|piece| IoSlice::new(piece)));
    let mut rest = &mut slices[..];
    while !rest.is_empty() {
        let written = out.write_vectored(rest).await?;
        if written == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        IoSlice::advance_slices(&mut rest, written);
    }
    Ok(())
}

async fn write_loop<W: AsyncWrite + Unpin>(mut out: W, mut rx: mpsc::UnboundedReceiver<Frame>, shared: Arc<Shared>) {
    let mut frames = Vec::new();
    while let Some(frame) = rx.recv().await {
        frames.push(frame);
        // Gather whatever else is queued into the same write.
        while frames.len() < MAX_FRAMES_PER_WRITE {
            match rx.try_recv() {
                Ok(frame) => frames.push(frame),
                Err(_) => break,
            }
        }
        let result = write_frames(&mut out, &frames).await;
        let written: usize = frames.drain(..).map(|frame| frame.len()).sum();
        shared.queued.fetch_sub(written, Ordering::AcqRel);
        if let Err(e) = result.and(out.flush().await) {
            shared.fail(format!("write failed: {e}"));
            return;
        }
    }
    let _ = out.shutdown().await;
}

async fn read_loop<R: AsyncRead + Unpin>(
    mut read_half: R,
    shared: Arc<Shared>,
    max_frame: usize,
    writer: JoinHandle<()>,
) {
    let decoder = ReplyDecoder::with_max_frame_len(max_frame);
    let mut buffer = ReceiveBuffer::new();
    let reason = 'read: loop {
        loop {
            match decoder.decode(buffer.bytes()) {
                Ok(Some(reply)) => {
                    if let Some(reason) = deliver(&shared, reply) {
                        break 'read reason;
                    }
                }
                Ok(None) => break,
                // A frame that cannot be read: its call cannot be told apart, so the
                // connection (and every call on it) fails.
                Err(e) => break 'read format!("unreadable reply: {e}"),
            }
        }
        buffer.make_room(&decoder);
        match read_half.read_buf(buffer.bytes()).await {
            Ok(0) => break "the server closed the connection".into(),
            Ok(_) => {}
            Err(e) => break format!("read failed: {e}"),
        }
    };
    shared.fail(reason);
    writer.abort();
}

/// The call id (-1 as the server's `int`) of an exception about the connection itself.
const CONNECTION_REFUSAL_ID: u32 = u32::MAX;

/// Hands a reply to its call; returns why the connection must close, if it must.
fn deliver(shared: &Shared, reply: ReplyFrame) -> Option<String> {
    let result = match reply.exception() {
        Some(exception) => {
            let remote = RemoteError { server: shared.addr.clone(), exception };
            // Call id -1 answers no call: the server refuses the connection itself (a
            // secured server refusing simple authentication, a bad preamble).
            if remote.exception.closes_connection() || reply.call_id == CONNECTION_REFUSAL_ID {
                return Some(remote.to_string());
            }
            Err(RpcError::Remote(Box::new(remote)))
        }
        None => Ok(Reply { param: reply.response.unwrap_or_default(), cell_block: reply.cell_block }),
    };
    let waiter = match &mut *shared.lock() {
        Pending::Open(waiters) => waiters.remove(&reply.call_id),
        Pending::Failed(_) => None,
    };
    // No waiter: the call timed out or was dropped; its reply is discarded.
    if let Some(waiter) = waiter {
        let _ = waiter.send(result);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pb;
    use bytes::BufMut;
    use tokio::net::TcpListener;

    /// A scripted peer: reads the preamble and header, then the test drives it.
    async fn accept_after_header(listener: &TcpListener) -> TcpStream {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut preamble = [0u8; 6];
        socket.read_exact(&mut preamble).await.unwrap();
        assert_eq!(&preamble, b"HBas\x00\x50");
        let len = socket.read_u32().await.unwrap();
        let mut header = vec![0u8; len as usize];
        socket.read_exact(&mut header).await.unwrap();
        socket
    }

    async fn read_request(socket: &mut TcpStream) -> pb::RequestHeader {
        let len = socket.read_u32().await.unwrap();
        let mut body = vec![0u8; len as usize];
        socket.read_exact(&mut body).await.unwrap();
        pb::RequestHeader::decode_length_delimited(&body[..]).unwrap()
    }

    async fn reply(socket: &mut TcpStream, call_id: u32, cluster_id: &str) {
        let header = pb::ResponseHeader { call_id: Some(call_id), exception: None, cell_block_meta: None };
        let response = pb::GetClusterIdResponse { cluster_id: Some(cluster_id.into()) };
        let mut body = BytesMut::new();
        header.encode_length_delimited(&mut body).unwrap();
        response.encode_length_delimited(&mut body).unwrap();
        let mut frame = BytesMut::new();
        frame.put_u32(body.len() as u32);
        frame.put_slice(&body);
        socket.write_all(&frame).await.unwrap();
    }

    // These tests check the connection's bookkeeping against a scripted socket; what
    // HBase itself answers is tested against the real server in tests/hbase/rpc/native.rs.
    #[tokio::test]
    async fn replies_out_of_order_reach_their_calls_and_dropped_calls_leave_nothing() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let server = tokio::spawn(async move {
            let mut socket = accept_after_header(&listener).await;
            let first = read_request(&mut socket).await.call_id.unwrap();
            let second = read_request(&mut socket).await.call_id.unwrap();
            let third = read_request(&mut socket).await.call_id.unwrap();
            // Answer in reverse order; the first call was dropped by then.
            reply(&mut socket, third, "three").await;
            reply(&mut socket, second, "two").await;
            reply(&mut socket, first, "one").await;
            let fourth = read_request(&mut socket).await.call_id.unwrap();
            reply(&mut socket, fourth, "four").await;
            socket
        });
        let conn = Connection::connect(&addr, Service::ClientMeta, &ConnectionOptions::default()).await.unwrap();
        let param = pb::GetClusterIdRequest {};
        let long = Duration::from_secs(5);
        // The first call is abandoned (its future dropped) once its request is sent.
        let dropped = tokio::time::timeout(Duration::from_millis(100), conn.call("GetClusterId", &param, None, long));
        assert!(dropped.await.is_err());
        assert_eq!(conn.pending_calls(), 0);
        let (two, three) = tokio::join!(conn.call("GetClusterId", &param, None, long), async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            conn.call("GetClusterId", &param, None, long).await
        });
        let id = |r: Result<Reply, RpcError>| r.unwrap().decode::<pb::GetClusterIdResponse>("x").unwrap().cluster_id;
        assert_eq!(id(two).as_deref(), Some("two"));
        assert_eq!(id(three).as_deref(), Some("three"));
        // The late reply to the dropped call was discarded; the connection still works.
        assert_eq!(id(conn.call("GetClusterId", &param, None, long).await).as_deref(), Some("four"));
        assert_eq!(conn.pending_calls(), 0);
        drop(server.await.unwrap());
    }

    #[tokio::test]
    async fn a_closed_connection_fails_every_pending_call_and_refuses_new_ones() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let server = tokio::spawn(async move {
            let mut socket = accept_after_header(&listener).await;
            read_request(&mut socket).await;
            read_request(&mut socket).await;
            drop(socket);
        });
        let conn = Connection::connect(&addr, Service::Client, &ConnectionOptions::default()).await.unwrap();
        let param = pb::GetClusterIdRequest {};
        let long = Duration::from_secs(5);
        let (a, b) =
            tokio::join!(conn.call("GetClusterId", &param, None, long), conn.call("GetClusterId", &param, None, long));
        server.await.unwrap();
        assert!(matches!(a, Err(RpcError::ConnectionFailed { .. })), "{a:?}");
        assert!(matches!(b, Err(RpcError::ConnectionFailed { .. })), "{b:?}");
        assert!(conn.is_broken());
        let again = conn.call("GetClusterId", &param, None, long).await;
        assert!(matches!(again, Err(RpcError::ConnectionFailed { .. })), "{again:?}");
    }

    /// A secured server refusing simple authentication answers call id -1 and closes:
    /// every call fails with its words.
    #[tokio::test]
    async fn a_refusal_of_the_connection_itself_fails_it_with_the_servers_words() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let server = tokio::spawn(async move {
            let mut socket = accept_after_header(&listener).await;
            read_request(&mut socket).await;
            let header = pb::ResponseHeader {
                call_id: Some(u32::MAX),
                exception: Some(pb::ExceptionResponse {
                    exception_class_name: Some("org.apache.hadoop.hbase.security.AccessDeniedException".into()),
                    stack_trace: Some("Authentication is required".into()),
                    do_not_retry: Some(true),
                    ..Default::default()
                }),
                cell_block_meta: None,
            };
            let mut body = BytesMut::new();
            header.encode_length_delimited(&mut body).unwrap();
            let mut frame = BytesMut::new();
            frame.put_u32(body.len() as u32);
            frame.put_slice(&body);
            socket.write_all(&frame).await.unwrap();
            socket
        });
        let conn = Connection::connect(&addr, Service::ClientMeta, &ConnectionOptions::default()).await.unwrap();
        let result = conn.call("GetClusterId", &pb::GetClusterIdRequest {}, None, Duration::from_secs(5)).await;
        let Err(RpcError::ConnectionFailed { reason, .. }) = result else { panic!("not refused: {result:?}") };
        assert!(reason.contains("AccessDeniedException"), "{reason}");
        assert!(conn.is_broken());
        drop(server.await.unwrap());
    }

    #[tokio::test]
    async fn a_deadline_fails_the_call_and_removes_its_entry() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let server = tokio::spawn(async move {
            let mut socket = accept_after_header(&listener).await;
            let id = read_request(&mut socket).await.call_id.unwrap();
            tokio::time::sleep(Duration::from_millis(200)).await;
            reply(&mut socket, id, "late").await;
            let id = read_request(&mut socket).await.call_id.unwrap();
            reply(&mut socket, id, "on time").await;
            socket
        });
        let conn = Connection::connect(&addr, Service::Client, &ConnectionOptions::default()).await.unwrap();
        let param = pb::GetClusterIdRequest {};
        let late = conn.call("GetClusterId", &param, None, Duration::from_millis(50)).await;
        assert!(matches!(late, Err(RpcError::Timeout { .. })), "{late:?}");
        assert_eq!(conn.pending_calls(), 0);
        tokio::time::sleep(Duration::from_millis(250)).await;
        let ok = conn.call("GetClusterId", &param, None, Duration::from_secs(5)).await.unwrap();
        assert_eq!(ok.decode::<pb::GetClusterIdResponse>("x").unwrap().cluster_id.as_deref(), Some("on time"));
        drop(server.await.unwrap());
    }
    #[tokio::test]
    async fn a_peer_that_stops_reading_bounds_the_queue_and_dropping_frees_the_writer() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let (release, released) = oneshot::channel::<()>();
        let server = tokio::spawn(async move {
            let mut socket = accept_after_header(&listener).await;
            // Reads nothing until told; then drains until the client's side closes.
            released.await.unwrap();
            let mut sink = vec![0u8; 1 << 20];
            let mut total = 0usize;
            loop {
                match socket.read(&mut sink).await {
                    Ok(0) | Err(_) => return total,
                    Ok(n) => total += n,
                }
            }
        });
        let conn = Connection::connect(&addr, Service::ClientMeta, &ConnectionOptions::default()).await.unwrap();
        let param = pb::GetClusterIdRequest {};
        let block = Bytes::from(vec![7u8; 8 << 20]);
        // Calls of 8 MiB each, none answered: the queue fills up to its bound, then a
        // call fails the connection instead of queueing more.
        let mut calls = Vec::new();
        let mut refused = None;
        for _ in 0..40 {
            let conn = conn.clone();
            let block = block.clone();
            let call = tokio::spawn(async move {
                conn.call("GetClusterId", &pb::GetClusterIdRequest {}, Some(&block), Duration::from_secs(30)).await
            });
            tokio::time::sleep(Duration::from_millis(20)).await;
            if call.is_finished() {
                refused = Some(call.await.unwrap());
                break;
            }
            calls.push(call);
        }
        match refused {
            Some(Err(RpcError::ConnectionFailed { reason, .. })) => assert!(reason.contains("not reading"), "{reason}"),
            other => panic!("40 unread calls of 8 MiB were all queued: {other:?}"),
        }
        assert!(conn.is_broken());
        assert!(conn.call("GetClusterId", &param, None, Duration::from_secs(1)).await.is_err());
        for call in calls {
            assert!(call.await.unwrap().is_err());
        }
        // Dropping the connection ends its writer, blocked on the full socket: the
        // socket closes and the peer reads to its end.
        drop(conn);
        release.send(()).unwrap();
        let read =
            tokio::time::timeout(Duration::from_secs(20), server).await.expect("the socket never closed").unwrap();
        // Only what the kernel had buffered arrives: the queued requests were dropped,
        // not drained into a socket nobody waits on.
        assert!(read < MAX_QUEUED_BYTES / 2, "{read} bytes");
    }
}
