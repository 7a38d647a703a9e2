//! Errors of the native transport: one call's failure ([`RpcError`]); a server's
//! exception keeps the protocol crate's typed [`RemoteException`].

use std::fmt;
use std::time::Duration;

use basalt_rpc_protocol::exception::{RemoteException, RemoteExceptionKind};

use basalt_security::{ContainsSecurityError, SecurityError};

/// Why a call on the native transport failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RpcError {
    /// The TCP connection could not be opened.
    #[error("cannot connect to {addr}: {reason}")]
    Connect {
        /// `host:port` of the server.
        addr: String,
        /// The operating system's words.
        reason: String,
    },
    /// The connection failed or closed while the call was pending; every pending call
    /// on it fails with this, and the next call opens a new connection.
    #[error("connection to {addr} failed: {reason}")]
    ConnectionFailed {
        /// `host:port` of the server.
        addr: String,
        /// What broke it (I/O error, a reply that could not be read, a fatal server error).
        reason: String,
    },
    /// No reply within the call's deadline; the call's entry is removed and a late reply
    /// is discarded.
    #[error("no reply from {addr} within {timeout:?} ({method})")]
    Timeout {
        /// `host:port` of the server.
        addr: String,
        /// The RPC method.
        method: &'static str,
        /// The deadline that passed.
        timeout: Duration,
    },
    /// The server answered with an exception.
    #[error("{0}")]
    Remote(Box<RemoteError>),
    /// A reply that does not follow the protocol (bad length, undecodable message,
    /// a cell block shorter than announced, ...).
    #[error("malformed reply from {addr}: {reason}")]
    Protocol {
        /// `host:port` of the server.
        addr: String,
        /// What was wrong.
        reason: String,
    },
    /// The cluster's bootstrap failed on every bootstrap server; the reasons per server.
    #[error("bootstrap failed on every server: {0}")]
    Bootstrap(String),
    /// The table has no region holding the row, or meta has no row for it.
    #[error("no region of table {table} holds row {row:?}")]
    RegionNotFound {
        /// The table.
        table: String,
        /// The row looked up.
        row: bytes::Bytes,
    },
    /// The region is in transition (offline, a split parent, no server yet).
    #[error("region unavailable: {0}")]
    RegionUnavailable(String),
    /// Retries were exhausted, or a later attempt failed for good after an earlier one
    /// may have run; the last attempt's error.
    #[error("gave up after {attempts} attempts: {last}")]
    RetriesExhausted {
        /// How many attempts were made.
        attempts: u32,
        /// The last attempt's error.
        last: Box<RpcError>,
        /// Whether any attempt may have reached the server and run (a timeout, a
        /// connection lost after sending): a write may then have been applied, whatever
        /// the last attempt says.
        may_have_run: bool,
    },
    /// The caller's input is invalid (an empty row, a bad table name, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The connection could not be secured as asked (TLS or Kerberos): a wrong CA,
    /// no ticket, a server that is not secured, ... Not retried.
    #[error("securing the connection to {addr} failed: {error}")]
    Security {
        /// `host:port` of the server.
        addr: String,
        /// What failed.
        error: SecurityError,
    },
}

impl RpcError {
    /// Whether retrying the same call (after relocating the region, reconnecting or
    /// waiting) may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            RpcError::Connect { .. }
            | RpcError::ConnectionFailed { .. }
            | RpcError::Timeout { .. }
            | RpcError::RegionUnavailable(_) => true,
            RpcError::Remote(remote) => remote.is_retryable(),
            RpcError::Protocol { .. }
            | RpcError::Bootstrap(_)
            | RpcError::RegionNotFound { .. }
            | RpcError::RetriesExhausted { .. }
            | RpcError::InvalidArgument(_)
            | RpcError::Security { .. } => false,
        }
    }

    /// Whether the region's cached location must be dropped before a retry.
    pub fn invalidates_location(&self) -> bool {
        match self {
            RpcError::Connect { .. } | RpcError::ConnectionFailed { .. } => true,
            RpcError::Remote(remote) => remote.exception.invalidates_location(),
            RpcError::Timeout { .. }
            | RpcError::RegionUnavailable(_)
            | RpcError::Protocol { .. }
            | RpcError::Bootstrap(_)
            | RpcError::RegionNotFound { .. }
            | RpcError::RetriesExhausted { .. }
            | RpcError::InvalidArgument(_)
            | RpcError::Security { .. } => false,
        }
    }

    /// Whether the call may have reached the server and run: it was sent and no answer
    /// says it was refused (a timeout, a connection lost or a reply unreadable after
    /// sending). A connection never made, bad input, or an exception from the server
    /// (which refused the call) say no.
    pub fn may_have_run(&self) -> bool {
        match self {
            RpcError::ConnectionFailed { .. } | RpcError::Timeout { .. } | RpcError::Protocol { .. } => true,
            RpcError::RetriesExhausted { may_have_run, .. } => *may_have_run,
            RpcError::Connect { .. }
            | RpcError::Remote(_)
            | RpcError::Bootstrap(_)
            | RpcError::RegionNotFound { .. }
            | RpcError::RegionUnavailable(_)
            | RpcError::InvalidArgument(_)
            | RpcError::Security { .. } => false,
        }
    }

    /// The error an operation ends with after `attempts` attempts, the last failing
    /// with `last`: `last` itself after one attempt, or when it already says as much as
    /// the earlier ones; else [`RpcError::RetriesExhausted`], which keeps whether any
    /// attempt may have run.
    pub(crate) fn after_attempts(attempts: u32, last: RpcError, may_have_run: bool, exhausted: bool) -> RpcError {
        let may_have_run = may_have_run || last.may_have_run();
        if !exhausted && (attempts <= 1 || may_have_run == last.may_have_run()) {
            return last;
        }
        RpcError::RetriesExhausted { attempts, last: Box::new(last), may_have_run }
    }

    /// The remote exception, if this is one.
    pub fn remote(&self) -> Option<&RemoteError> {
        match self {
            RpcError::Remote(remote) => Some(remote),
            _ => None,
        }
    }
}

impl ContainsSecurityError for RpcError {
    /// The security failure of a connection, also as the last error of exhausted retries.
    fn security_error(&self) -> Option<&SecurityError> {
        match self {
            RpcError::Security { error, .. } => Some(error),
            RpcError::RetriesExhausted { last, .. } => last.security_error(),
            _ => None,
        }
    }
}

/// An exception a server sent, with the server it came from.
#[derive(Debug, Clone)]
pub struct RemoteError {
    /// `host:port` of the server that answered.
    pub server: String,
    /// The exception: Java class, message, kind, flags.
    pub exception: RemoteException,
}

impl RemoteError {
    /// The exception's kind.
    pub fn kind(&self) -> &RemoteExceptionKind {
        &self.exception.kind
    }

    /// Whether a retry may succeed.
    pub fn is_retryable(&self) -> bool {
        self.exception.is_retryable()
    }
}

impl fmt::Display for RemoteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} from {}: {}", self.exception.class_name, self.server, self.exception.message)
    }
}
