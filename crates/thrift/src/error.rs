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
    /// The reply was refused or declared a failure: too large, not Thrift, an
    /// application exception, or HBase's own error (`TIOError`, `TIllegalArgument`);
    /// see [`ReplyError`].
    #[error(transparent)]
    Reply(ReplyError),
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
        matches!(
            self,
            CallError::Reply(
                ReplyError::Server { .. } | ReplyError::IllegalArgument { .. } | ReplyError::Application { .. }
            )
        )
    }
}

impl From<ReplyError> for CallError {
    fn from(e: ReplyError) -> CallError {
        CallError::Reply(e)
    }
}
