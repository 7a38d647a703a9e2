//! One Thrift2 connection on tokio: encode a call, send it, read exactly one reply.
//!
//! Thrift's binary and compact protocols carry no request ids, so a connection has one
//! call in flight at a time; concurrency comes from a pool of connections (the `basalt`
//! crate's). Encoding and decoding are `basalt-thrift-protocol`'s, on in-memory
//! buffers; all network I/O is tokio's, so no thread ever blocks on a socket.

use std::time::Duration;

use basalt_thrift_protocol::{
    decode_reply, encode_call, frame_len, Call, Framing, MessageScanner, Protocol, ReplyError, RowBatch,
    RowReplyReader, RowsCall, ScanError, FRAME_HEADER_LEN,
};
use bytes::{Buf, Bytes, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::error::CallError;
use crate::stream::ConnectionStream;

/// Settings of one connection. `Default` matches HBase's default Thrift2 server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionOptions {
    /// Message delimiting; must match the server. Default: buffered.
    pub framing: Framing,
    /// Value encoding; must match the server. Default: binary.
    pub protocol: Protocol,
    /// Largest reply accepted, in bytes; a larger one fails the call with
    /// `CallError::Reply(ReplyError::TooLarge)` before it is buffered. Default: 256 MiB.
    pub max_response_bytes: usize,
    /// How long establishing the TCP connection may take. Default: 5 s.
    pub connect_timeout: Duration,
    /// Disable Nagle's algorithm (lower latency for small calls). Default: true.
    pub nodelay: bool,
    /// TLS, Thrift over HTTP(S), Kerberos; must match the server. Default: plain TCP.
    pub security: crate::secure::Security,
}

impl Default for ConnectionOptions {
    fn default() -> Self {
        ConnectionOptions {
            framing: Framing::Buffered,
            protocol: Protocol::Binary,
            max_response_bytes: 256 << 20,
            connect_timeout: Duration::from_secs(5),
            nodelay: true,
            security: crate::secure::Security::default(),
        }
    }
}

/// How much the read buffer grows by when a reply needs more room.
const READ_CHUNK: usize = 64 * 1024;

/// One open connection to a Thrift2 gateway, with one method per THBaseService call
/// (`get`, `put`, `open_scanner`, ...; the calls whose replies carry rows, `get_multiple`,
/// `get_scanner_rows` and `get_scanner_results`, return a zero-copy [`RowBatch`]), and
/// [`Connection::call`] / [`Connection::call_rows`] for any request type of
/// [`hbase::calls`](crate::hbase::calls).
#[derive(Debug)]
pub struct Connection {
    stream: Box<dyn ConnectionStream>,
    options: ConnectionOptions,
    peer: String,
    seq: i32,
    write_buf: Vec<u8>,
    read_buf: BytesMut,
    /// Set while a call is between its first write and its complete reply. A call
    /// future dropped half-way leaves it set, and the connection is then unusable:
    /// the next reply on the socket would belong to the abandoned call.
    in_flight: bool,
    /// Set after a transport or protocol failure.
    broken: bool,
    /// Set once any byte has arrived from the server.
    received: bool,
    /// Set once the current (or last) call's request was completely written.
    request_written: bool,
}

impl Connection {
    /// Opens a TCP connection to `addr` (`host:port`).
    pub async fn connect(addr: &str, options: ConnectionOptions) -> Result<Connection, CallError> {
        let stream = match tokio::time::timeout(options.connect_timeout, TcpStream::connect(addr)).await {
            Ok(Ok(stream)) => stream,
            Ok(Err(source)) => return Err(CallError::Connect { addr: addr.to_owned(), source }),
            Err(_) => return Err(CallError::ConnectTimeout { addr: addr.to_owned(), after: options.connect_timeout }),
        };
        stream.set_nodelay(options.nodelay).map_err(CallError::Io)?;
        if !options.security.is_plain() {
            let settings = crate::secure::SecureSettings {
                security: &options.security,
                connect_timeout: options.connect_timeout,
                max_response_bytes: options.max_response_bytes,
                framing: options.framing,
            };
            let secured = crate::secure::open(stream, addr, settings).await?;
            let options = ConnectionOptions { framing: secured.framing, ..options };
            return Ok(Connection::from_stream(secured.stream, addr, options));
        }
        Ok(Connection::from_stream(stream, addr, options))
    }

    /// A connection over an already-connected stream (TLS, SASL, a test pipe, ...);
    /// `peer` names it in errors and logs. `options.connect_timeout` and
    /// `options.nodelay` are the caller's business for such a stream.
    pub fn from_stream(
        stream: impl ConnectionStream,
        peer: impl Into<String>,
        options: ConnectionOptions,
    ) -> Connection {
        Connection {
            stream: Box::new(stream),
            options,
            peer: peer.into(),
            seq: 0,
            write_buf: Vec::with_capacity(4096),
            read_buf: BytesMut::with_capacity(READ_CHUNK),
            in_flight: false,
            broken: false,
            received: false,
            request_written: false,
        }
    }

    /// The address this connection was opened to.
    pub fn peer(&self) -> &str {
        &self.peer
    }

    /// The options this connection was opened with.
    pub fn options(&self) -> &ConnectionOptions {
        &self.options
    }

    /// Whether the connection can carry another call: no call was abandoned half-way,
    /// no transport error happened, and the server has not closed the socket (HBase
    /// closes connections idle for 60 s). Checking never blocks.
    pub fn is_reusable(&self) -> bool {
        !self.in_flight && !self.broken && !self.stream.closed_or_unsolicited()
    }

    /// Whether any byte has ever arrived from the server on this connection. A
    /// connection that failed with nothing received was accepted and then closed or
    /// reset before any reply, as a TCP load balancer does while its backend is down.
    pub fn has_received(&self) -> bool {
        self.received
    }

    /// Whether the last call's request was completely written to the stream (for
    /// plain TCP: handed to the operating system). When a call failed with this false,
    /// the server cannot have read the whole request, so it was not applied.
    pub fn request_written(&self) -> bool {
        self.request_written
    }

    /// Sends `request` and reads its reply with the generated code, in one bounded
    /// pass ([`decode_reply`]): lengths and counts within the reply's bytes, container
    /// memory within a multiple of its size. Every named call method (`get`,
    /// `open_scanner`, ...) is this with its request type.
    pub async fn call<C: Call + Sync + ?Sized>(&mut self, request: &C) -> Result<C::Reply, CallError> {
        let seq = self.start(request)?;
        let reply = self.exchange().await;
        let reply = self.settle(reply)?;
        let result = decode_reply::<C>(self.options.protocol, &reply, seq).map_err(CallError::from);
        if matches!(result, Err(CallError::Reply(ReplyError::Malformed(_)))) {
            self.broken = true;
        }
        result
    }

    /// Sends `request`, whose reply carries rows, and decodes the reply without copying
    /// (for buffered transport, in the same pass that finds its end).
    pub async fn call_rows<C: RowsCall + Sync>(&mut self, request: &C) -> Result<RowBatch, CallError> {
        // The reader is made first (for the number `start` gives the call), so that no
        // failure can come between the call's start and its exchange.
        let reader = RowReplyReader::for_call::<C>(self.options.protocol, self.seq.wrapping_add(1))?;
        self.start(request)?;
        let result = self.exchange_rows(reader).await;
        if matches!(result, Err(CallError::Reply(ReplyError::Malformed(_)))) {
            self.broken = true;
        }
        result
    }

    /// Checks the connection can take a call, numbers it and encodes it.
    fn start<C: Call + ?Sized>(&mut self, request: &C) -> Result<i32, CallError> {
        self.request_written = false;
        if self.in_flight || self.broken {
            return Err(CallError::ConnectionUnusable);
        }
        self.seq = self.seq.wrapping_add(1);
        let seq = self.seq;
        encode_call(self.options.protocol, self.options.framing, request, seq, &mut self.write_buf)?;
        self.in_flight = true;
        Ok(seq)
    }

    /// Records the outcome of an exchange: a failure breaks the connection.
    fn settle<T>(&mut self, reply: Result<T, CallError>) -> Result<T, CallError> {
        match reply {
            Ok(reply) => {
                self.in_flight = false;
                Ok(reply)
            }
            Err(e) => {
                self.broken = true;
                Err(e)
            }
        }
    }

    /// Writes the encoded request and makes room for the reply.
    async fn send(&mut self) -> Result<(), CallError> {
        self.stream.write_all(&self.write_buf).await.map_err(CallError::Io)?;
        self.request_written = true;
        self.stream.flush().await.map_err(CallError::Io)?;
        if self.write_buf.capacity() > 1 << 20 {
            self.write_buf = Vec::with_capacity(4096);
        }
        self.read_buf.clear();
        Ok(())
    }

    /// Writes the encoded request and reads one complete reply; returns its bytes.
    async fn exchange(&mut self) -> Result<BytesMut, CallError> {
        self.send().await?;
        match self.options.framing {
            Framing::Framed => self.read_frame().await,
            Framing::Buffered => {
                let mut scanner = MessageScanner::new(self.options.protocol, self.options.max_response_bytes);
                loop {
                    let scanned = scanner.advance(&self.read_buf).map_err(|e| match e {
                        ScanError::TooLarge { limit } => {
                            CallError::Reply(ReplyError::TooLarge { limit, declared: None })
                        }
                        ScanError::Malformed(what) => CallError::Reply(ReplyError::Malformed(what.to_string())),
                    })?;
                    if let Some(len) = scanned {
                        self.check_no_trailing(len)?;
                        return Ok(self.read_buf.split_to(len));
                    }
                    self.read_more(usize::MAX).await?;
                }
            }
        }
    }

    /// Writes the encoded request and reads one reply through `reader`, which for a
    /// buffered reply finds its end and indexes its rows in the same pass.
    async fn exchange_rows(&mut self, mut reader: RowReplyReader) -> Result<RowBatch, CallError> {
        let reply = self.exchange_rows_bytes(&mut reader).await;
        let reply = self.settle(reply)?;
        match reply {
            RowsReply::Framed(frame) => Ok(reader.decode_complete(frame)?),
            RowsReply::Buffered(reply) => Ok(reader.finish(reply)?),
        }
    }

    async fn exchange_rows_bytes(&mut self, reader: &mut RowReplyReader) -> Result<RowsReply, CallError> {
        self.send().await?;
        match self.options.framing {
            Framing::Framed => Ok(RowsReply::Framed(self.read_frame().await?.freeze())),
            Framing::Buffered => loop {
                if let Some(len) = reader.advance(&self.read_buf, self.options.max_response_bytes)? {
                    self.check_no_trailing(len)?;
                    return Ok(RowsReply::Buffered(self.read_buf.split_to(len).freeze()));
                }
                self.read_more(usize::MAX).await?;
            },
        }
    }

    /// Reads one frame: its 4-byte length, then that many bytes. The buffer grows as
    /// bytes arrive; nothing is reserved from the length the server declared.
    async fn read_frame(&mut self) -> Result<BytesMut, CallError> {
        let limit = self.options.max_response_bytes;
        while self.read_buf.len() < FRAME_HEADER_LEN {
            self.read_more(FRAME_HEADER_LEN - self.read_buf.len()).await?;
        }
        let len = frame_len(self.read_buf.get_u32().to_be_bytes(), limit)?;
        while self.read_buf.len() < len {
            self.read_more(len - self.read_buf.len()).await?;
        }
        self.check_no_trailing(len)?;
        Ok(self.read_buf.split_to(len))
    }

    fn check_no_trailing(&self, len: usize) -> Result<(), CallError> {
        if self.read_buf.len() > len {
            return Err(CallError::Reply(ReplyError::Malformed(format!(
                "{} unexpected bytes after the reply",
                self.read_buf.len() - len
            ))));
        }
        Ok(())
    }

    /// Reads what has arrived, growing the buffer by at most what has been received so
    /// far (at least [`READ_CHUNK`]) and by no more than `wanted` bytes still due.
    async fn read_more(&mut self, wanted: usize) -> Result<(), CallError> {
        let spare = self.read_buf.capacity() - self.read_buf.len();
        if spare < READ_CHUNK / 4 && spare < wanted {
            let grow = self.read_buf.len().max(READ_CHUNK).min(wanted);
            self.read_buf.reserve(grow);
        }
        let n = self.stream.read_buf(&mut self.read_buf).await.map_err(CallError::Io)?;
        if n == 0 {
            return Err(CallError::Closed);
        }
        self.received = true;
        Ok(())
    }
}

/// A row reply's bytes: a whole frame, or a buffered reply already walked by the reader.
enum RowsReply {
    Framed(Bytes),
    Buffered(Bytes),
}
