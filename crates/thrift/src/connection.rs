//! One Thrift2 connection on tokio: encode a call, send it, read exactly one reply.
//!
//! Thrift's binary and compact protocols carry no request ids, so a connection has one
//! call in flight at a time; concurrency comes from a pool of connections (the `basalt`
//! crate's). Encoding and decoding reuse the `thrift` crate's generated types on
//! in-memory buffers; all network I/O is tokio's, so no thread ever blocks on a socket.

use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use thrift::protocol::{
    TBinaryOutputProtocol, TCompactOutputProtocol, TInputProtocol, TMessageIdentifier, TMessageType, TOutputProtocol,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::bounded_input::BoundedInput;
use crate::error::CallError;
use crate::guard::{check_reply, ResultCost};
use crate::message_scan::{MessageScanner, ScanError};
use crate::row_reply::{RowCall, RowReplyDecoder};
use crate::rows::RowBatch;
use crate::stream::ConnectionStream;

/// How messages are delimited on the socket (the server's `-f` flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Framing {
    /// Plain stream, no length prefix: HBase's default (`TBufferedTransport`).
    #[default]
    Buffered,
    /// Each message prefixed by its 4-byte length (`-f`, and the nonblocking servers).
    Framed,
}

/// How values are encoded (the server's `-c` flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Protocol {
    /// `TBinaryProtocol`, strict: HBase's default.
    #[default]
    Binary,
    /// `TCompactProtocol` (`-c`).
    Compact,
}

/// Settings of one connection. `Default` matches HBase's default Thrift2 server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionOptions {
    /// Message delimiting; must match the server. Default: buffered.
    pub framing: Framing,
    /// Value encoding; must match the server. Default: binary.
    pub protocol: Protocol,
    /// Largest reply accepted, in bytes; a larger one fails the call with
    /// [`CallError::ResponseTooLarge`] before it is buffered. Default: 256 MiB.
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

/// One open connection to a Thrift2 gateway. The per-method calls (`get`, `put`,
/// `open_scanner`, ...) are defined in [`crate::hbase`]'s call table; the zero-copy
/// row calls (`get_row`, `get_rows`, `scanner_rows`, `scanner_results`) beside them.
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
            return crate::secure::open(stream, addr, options).await;
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

    /// Sends one call and reads its reply with the generated code. `write_args` writes
    /// the argument struct; `read_result` reads the result struct and turns it into the
    /// call's value. The reply is walked first ([`check_reply`]): lengths and counts
    /// within its bytes, container memory within a multiple of its size.
    pub(crate) async fn call<R: ResultCost>(
        &mut self,
        method: &'static str,
        write_args: impl FnOnce(&mut dyn TOutputProtocol) -> thrift::Result<()>,
        read_result: impl FnOnce(&mut dyn TInputProtocol) -> thrift::Result<R>,
    ) -> Result<R, CallError> {
        let seq = self.start(method, write_args)?;
        let reply = self.exchange().await;
        let reply = self.settle(reply)?;
        let checked = check_reply(self.options.protocol, &reply, R::TOP_ELEMENT);
        let protocol = self.options.protocol;
        let result = checked.and_then(|()| decode(protocol, &reply, method, seq, R::TOP_ELEMENT, read_result));
        if matches!(result, Err(CallError::Protocol(_))) {
            self.broken = true;
        }
        result
    }

    /// Sends one call whose reply carries rows and decodes it without copying.
    pub(crate) async fn call_rows(
        &mut self,
        method: &'static str,
        call: RowCall,
        write_args: impl FnOnce(&mut dyn TOutputProtocol) -> thrift::Result<()>,
    ) -> Result<RowBatch, CallError> {
        let seq = self.start(method, write_args)?;
        let mut decoder = RowReplyDecoder::new(self.options.protocol, call, method, seq);
        let reply = self.exchange_rows(&mut decoder).await;
        let reply = self.settle(reply)?;
        let result = decoder.finish(reply);
        if matches!(result, Err(CallError::Protocol(_))) {
            self.broken = true;
        }
        result
    }

    /// Checks the connection can take a call, numbers it and encodes it.
    fn start(
        &mut self,
        method: &'static str,
        write_args: impl FnOnce(&mut dyn TOutputProtocol) -> thrift::Result<()>,
    ) -> Result<i32, CallError> {
        self.request_written = false;
        if self.in_flight || self.broken {
            return Err(CallError::ConnectionUnusable);
        }
        self.seq = self.seq.wrapping_add(1);
        let seq = self.seq;
        self.encode(method, seq, write_args)?;
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

    fn encode(
        &mut self,
        method: &'static str,
        seq: i32,
        write_args: impl FnOnce(&mut dyn TOutputProtocol) -> thrift::Result<()>,
    ) -> Result<(), CallError> {
        self.write_buf.clear();
        let framed = self.options.framing == Framing::Framed;
        if framed {
            self.write_buf.extend_from_slice(&[0; 4]);
        }
        let ident = TMessageIdentifier::new(method, TMessageType::Call, seq);
        let buf = &mut self.write_buf;
        let written = match self.options.protocol {
            Protocol::Binary => write_message(&mut TBinaryOutputProtocol::new(buf, true), &ident, write_args),
            Protocol::Compact => write_message(&mut TCompactOutputProtocol::new(buf), &ident, write_args),
        };
        written.map_err(|e| CallError::Encode(e.to_string()))?;
        if framed {
            let len = u32::try_from(self.write_buf.len() - 4)
                .map_err(|_| CallError::Encode("request larger than 4 GiB".into()))?;
            self.write_buf[..4].copy_from_slice(&len.to_be_bytes());
        }
        Ok(())
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
                        ScanError::TooLarge { limit } => CallError::ResponseTooLarge { limit, declared: None },
                        ScanError::Malformed(what) => CallError::Protocol(what.to_string()),
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

    /// Writes the encoded request and reads one reply through `decoder`, which for a
    /// buffered reply finds its end and indexes its rows in the same pass.
    async fn exchange_rows(&mut self, decoder: &mut RowReplyDecoder) -> Result<Bytes, CallError> {
        self.send().await?;
        match self.options.framing {
            Framing::Framed => {
                let frame = self.read_frame().await?;
                match decoder.advance(&frame, frame.len(), true)? {
                    Some(end) if end == frame.len() => Ok(frame.freeze()),
                    Some(end) => {
                        Err(CallError::Protocol(format!("{} unexpected bytes after the reply", frame.len() - end)))
                    }
                    None => Err(CallError::Protocol("reply ends early".into())),
                }
            }
            Framing::Buffered => loop {
                if let Some(len) = decoder.advance(&self.read_buf, self.options.max_response_bytes, false)? {
                    self.check_no_trailing(len)?;
                    return Ok(self.read_buf.split_to(len).freeze());
                }
                self.read_more(usize::MAX).await?;
            },
        }
    }

    /// Reads one frame: its 4-byte length, then that many bytes. The buffer grows as
    /// bytes arrive; nothing is reserved from the length the server declared.
    async fn read_frame(&mut self) -> Result<BytesMut, CallError> {
        let limit = self.options.max_response_bytes;
        while self.read_buf.len() < 4 {
            self.read_more(4 - self.read_buf.len()).await?;
        }
        let len = self.read_buf.get_u32() as usize;
        if len > limit {
            return Err(CallError::ResponseTooLarge { limit, declared: Some(len) });
        }
        while self.read_buf.len() < len {
            self.read_more(len - self.read_buf.len()).await?;
        }
        self.check_no_trailing(len)?;
        Ok(self.read_buf.split_to(len))
    }

    fn check_no_trailing(&self, len: usize) -> Result<(), CallError> {
        if self.read_buf.len() > len {
            return Err(CallError::Protocol(format!("{} unexpected bytes after the reply", self.read_buf.len() - len)));
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

fn write_message(
    out: &mut dyn TOutputProtocol,
    ident: &TMessageIdentifier,
    write_args: impl FnOnce(&mut dyn TOutputProtocol) -> thrift::Result<()>,
) -> thrift::Result<()> {
    out.write_message_begin(ident)?;
    write_args(out)?;
    out.write_message_end()?;
    out.flush()
}

fn decode<R>(
    protocol: Protocol,
    reply: &[u8],
    method: &'static str,
    seq: i32,
    top_element: usize,
    read_result: impl FnOnce(&mut dyn TInputProtocol) -> thrift::Result<R>,
) -> Result<R, CallError> {
    let mut input = BoundedInput::new(protocol, reply, top_element);
    let ident = input.read_message_begin().map_err(CallError::from_decode)?;
    if ident.name != method || ident.sequence_number != seq {
        return Err(CallError::Protocol(format!(
            "reply {}#{} does not answer call {method}#{seq}",
            ident.name, ident.sequence_number
        )));
    }
    match ident.message_type {
        TMessageType::Reply => {
            let value = read_result(&mut input);
            match value {
                Ok(value) => {
                    input.read_message_end().map_err(CallError::from_decode)?;
                    Ok(value)
                }
                Err(e) => Err(CallError::from_thrift(e)),
            }
        }
        TMessageType::Exception => {
            let app =
                thrift::Error::read_application_error_from_in_protocol(&mut input).map_err(CallError::from_decode)?;
            Err(CallError::Application { kind: format!("{:?}", app.kind), message: app.message })
        }
        other => Err(CallError::Protocol(format!("unexpected message type {other:?}"))),
    }
}
