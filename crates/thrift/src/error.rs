//! The error of one Thrift2 call on one connection.

use std::time::Duration;

use basalt_thrift_protocol::ReplyError;

/// Why one call on one [`Connection`](crate::Connection) failed.
///
/// Errors the server *declared* (`TIOError`, `TIllegalArgument`) leave the connection
/// usable; transport and protocol failures do not (see
/// [`Connection::is_reusable`](crate::Connection::is_reusable)).
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The TCP connection could not be established.
    #[error("cannot connect to {addr}: {source}")]
    Connect {
        /// The address dialled.
        addr: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The TCP connection was not established within the connect timeout.
    #[error("connecting to {addr} timed out after {after:?}")]
    ConnectTimeout {
        /// The address dialled.
        addr: String,
        /// The timeout that passed.
        after: Duration,
    },
    /// Reading or writing the socket failed.
    #[error("connection I/O failed: {0}")]
    Io(#[source] std::io::Error),
    /// The server closed the connection before the reply was complete.
    #[error("the server closed the connection (transport or protocol mismatch, or an idle timeout)")]
    Closed,
    /// The reply is larger than the configured maximum; nothing that large was buffered.
    #[error("reply larger than the maximum of {limit} bytes{}", declared.map(|d| format!(" (declared {d})")).unwrap_or_default())]
    ResponseTooLarge {
        /// The configured maximum.
        limit: usize,
        /// The length the server announced, when it did (framed transport).
        declared: Option<usize>,
    },
    /// The reply does not follow the Thrift protocol (often a transport/protocol
    /// mismatch between client and server).
    #[error("protocol error: {0}")]
    Protocol(String),
    /// The request could not be encoded.
    #[error("cannot encode the request: {0}")]
    Encode(String),
    /// The server answered with a `TApplicationException` (unknown method, internal
    /// error in the handler, unparsable arguments).
    #[error("server application error ({kind}): {message}")]
    Application {
        /// The exception's kind, e.g. `UnknownMethod` or `InternalError`.
        kind: String,
        /// The server's message.
        message: String,
    },
    /// HBase raised an I/O error (`TIOError`); `can_retry` says whether it may succeed
    /// if tried again (false for table-not-found and other `DoNotRetryIOException`s).
    #[error("HBase error: {message}")]
    Server {
        /// The server's message.
        message: String,
        /// The server's verdict on retrying, when given.
        can_retry: Option<bool>,
    },
    /// HBase rejected an argument (`TIllegalArgument`), e.g. an expired scanner id.
    #[error("HBase rejected an argument: {message}")]
    IllegalArgument {
        /// The server's message.
        message: String,
    },
    /// The connection was left mid-call or broken by an earlier failure.
    #[error("connection is unusable after an abandoned or failed call")]
    ConnectionUnusable,
    /// A TLS, SASL/Kerberos or HTTP handshake failed (see [`crate::SecureError`]).
    #[error("{0}")]
    Secure(crate::SecureError),
}

impl CallError {
    /// Whether the connection that produced this error can carry further calls.
    pub fn leaves_connection_usable(&self) -> bool {
        matches!(self, CallError::Server { .. } | CallError::IllegalArgument { .. } | CallError::Application { .. })
    }
}

impl From<ReplyError> for CallError {
    fn from(e: ReplyError) -> CallError {
        match e {
            ReplyError::TooLarge { limit, declared } => CallError::ResponseTooLarge { limit, declared },
            ReplyError::Malformed(what) => CallError::Protocol(what),
            ReplyError::Encode(what) => CallError::Encode(what),
            ReplyError::Application { kind, message } => CallError::Application { kind, message },
            ReplyError::Server { message, can_retry } => CallError::Server { message, can_retry },
            ReplyError::IllegalArgument { message } => CallError::IllegalArgument { message },
        }
    }
}
