//! Errors of the native transport: one call's failure ([`RpcError`]) and the server's
//! exceptions as a typed kind ([`RemoteKind`]).

use std::fmt;
use std::time::Duration;

/// Why a call on the native transport failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
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
    /// Retries were exhausted; the last attempt's error.
    #[error("gave up after {attempts} attempts: {last}")]
    RetriesExhausted {
        /// How many attempts were made.
        attempts: u32,
        /// The last attempt's error.
        last: Box<RpcError>,
    },
    /// The caller's input is invalid (an empty row, a bad table name, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
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
            | RpcError::InvalidArgument(_) => false,
        }
    }

    /// Whether the region's cached location must be dropped before a retry.
    pub fn invalidates_location(&self) -> bool {
        match self {
            RpcError::Connect { .. } | RpcError::ConnectionFailed { .. } => true,
            RpcError::Remote(remote) => remote.kind.invalidates_location(),
            RpcError::Timeout { .. }
            | RpcError::RegionUnavailable(_)
            | RpcError::Protocol { .. }
            | RpcError::Bootstrap(_)
            | RpcError::RegionNotFound { .. }
            | RpcError::RetriesExhausted { .. }
            | RpcError::InvalidArgument(_) => false,
        }
    }

    /// The remote exception, if this is one.
    pub fn remote(&self) -> Option<&RemoteError> {
        match self {
            RpcError::Remote(remote) => Some(remote),
            _ => None,
        }
    }
}

/// An exception the server sent in a reply's header.
#[derive(Debug, Clone)]
pub struct RemoteError {
    /// The exception's kind, from its Java class name.
    pub kind: RemoteKind,
    /// The Java class name as sent.
    pub class_name: String,
    /// The first line of the server's stack trace (the exception's message).
    pub message: String,
    /// The server said retrying cannot help.
    pub do_not_retry: bool,
    /// `host:port` of the server that answered.
    pub server: String,
}

impl RemoteError {
    /// Whether a retry may succeed: the kind's own answer, unless the server said no.
    pub fn is_retryable(&self) -> bool {
        !self.do_not_retry && self.kind.is_retryable()
    }
}

impl fmt::Display for RemoteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} from {}: {}", self.class_name, self.server, self.message)
    }
}

/// The server exceptions the client acts on, by Java class.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RemoteKind {
    /// `NotServingRegionException`: the region is not on that server (any more).
    NotServingRegion,
    /// `RegionMovedException`: the region moved; the new server if it could be parsed.
    RegionMoved {
        /// `host:port` of the new server.
        new_server: Option<String>,
    },
    /// `RegionServerStoppedException` / `RegionServerAbortedException`.
    RegionServerStopped,
    /// `RegionOpeningException`: the region is opening there; retry the same server.
    RegionOpening,
    /// `RegionTooBusyException`: back off and retry.
    RegionTooBusy,
    /// `CallQueueTooBigException` / `CallDroppedException`: the server is overloaded.
    ServerOverloaded,
    /// `ServerNotRunningYetException`: the server is starting.
    ServerNotRunningYet,
    /// `UnknownScannerException` / `LeaseException`: the scanner expired or is unknown.
    UnknownScanner,
    /// `ScannerResetException`: the server reset the scanner (e.g. while closing a region).
    ScannerReset,
    /// `OutOfOrderScannerNextException`: a `next` with a stale sequence number.
    OutOfOrderScannerNext,
    /// `NoSuchColumnFamilyException`.
    NoSuchColumnFamily,
    /// `TableNotFoundException`.
    TableNotFound,
    /// `FatalConnectionException` and its subclasses: the connection is unusable.
    FatalConnection,
    /// Any other exception; `do_not_retry` says whether to retry.
    Other,
}

impl RemoteKind {
    /// The kind of a Java exception class name (unshaded or shaded).
    pub fn from_class(class_name: &str, message: &str) -> RemoteKind {
        let simple = class_name.rsplit('.').next().unwrap_or(class_name);
        match simple {
            "NotServingRegionException" => RemoteKind::NotServingRegion,
            "RegionMovedException" => RemoteKind::RegionMoved { new_server: parse_region_moved(message) },
            "RegionServerStoppedException" | "RegionServerAbortedException" => RemoteKind::RegionServerStopped,
            "RegionOpeningException" => RemoteKind::RegionOpening,
            "RegionTooBusyException" => RemoteKind::RegionTooBusy,
            "CallQueueTooBigException" | "CallDroppedException" => RemoteKind::ServerOverloaded,
            "ServerNotRunningYetException" => RemoteKind::ServerNotRunningYet,
            "UnknownScannerException" | "LeaseException" => RemoteKind::UnknownScanner,
            "ScannerResetException" => RemoteKind::ScannerReset,
            "OutOfOrderScannerNextException" => RemoteKind::OutOfOrderScannerNext,
            "NoSuchColumnFamilyException" => RemoteKind::NoSuchColumnFamily,
            "TableNotFoundException" => RemoteKind::TableNotFound,
            "FatalConnectionException"
            | "WrongVersionException"
            | "BadAuthException"
            | "UnsupportedCellCodecException"
            | "UnsupportedCompressionCodecException"
            | "UnsupportedCryptoException" => RemoteKind::FatalConnection,
            _ => RemoteKind::Other,
        }
    }

    /// Whether this kind may succeed on retry (possibly elsewhere).
    pub fn is_retryable(&self) -> bool {
        match self {
            RemoteKind::NotServingRegion
            | RemoteKind::RegionMoved { .. }
            | RemoteKind::RegionServerStopped
            | RemoteKind::RegionOpening
            | RemoteKind::RegionTooBusy
            | RemoteKind::ServerOverloaded
            | RemoteKind::ServerNotRunningYet
            | RemoteKind::ScannerReset
            | RemoteKind::FatalConnection
            | RemoteKind::Other => true,
            RemoteKind::UnknownScanner
            | RemoteKind::OutOfOrderScannerNext
            | RemoteKind::NoSuchColumnFamily
            | RemoteKind::TableNotFound => false,
        }
    }

    /// Whether the region's cached location is stale after this exception.
    pub fn invalidates_location(&self) -> bool {
        match self {
            RemoteKind::NotServingRegion
            | RemoteKind::RegionMoved { .. }
            | RemoteKind::RegionServerStopped
            | RemoteKind::ScannerReset
            | RemoteKind::FatalConnection => true,
            RemoteKind::RegionOpening
            | RemoteKind::RegionTooBusy
            | RemoteKind::ServerOverloaded
            | RemoteKind::ServerNotRunningYet
            | RemoteKind::UnknownScanner
            | RemoteKind::OutOfOrderScannerNext
            | RemoteKind::NoSuchColumnFamily
            | RemoteKind::TableNotFound
            | RemoteKind::Other => false,
        }
    }
}

/// `host:port` from a `RegionMovedException` message: "Region moved to: hostname=H
/// port=P startCode=S. As of locationSeqNum=N."
fn parse_region_moved(message: &str) -> Option<String> {
    let field = |name: &str| -> Option<&str> {
        let start = message.find(name)? + name.len();
        let rest = &message[start..];
        let end = rest.find([' ', '\n']).unwrap_or(rest.len());
        Some(&rest[..end])
    };
    let host = field("hostname=")?;
    let port: u16 = field("port=")?.parse().ok()?;
    if host.is_empty() || host == "null" {
        return None;
    }
    Some(format!("{host}:{port}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_moved_message_gives_the_new_server() {
        let kind = RemoteKind::from_class(
            "org.apache.hadoop.hbase.exceptions.RegionMovedException",
            "Region moved to: hostname=127.0.0.1 port=16020 startCode=1700000000000. As of locationSeqNum=12.",
        );
        assert_eq!(kind, RemoteKind::RegionMoved { new_server: Some("127.0.0.1:16020".into()) });
        let garbled = RemoteKind::from_class("org.apache.hadoop.hbase.exceptions.RegionMovedException", "moved");
        assert_eq!(garbled, RemoteKind::RegionMoved { new_server: None });
    }

    #[test]
    fn kinds_by_class_name() {
        assert_eq!(
            RemoteKind::from_class("org.apache.hadoop.hbase.NotServingRegionException", ""),
            RemoteKind::NotServingRegion
        );
        assert_eq!(
            RemoteKind::from_class("org.apache.hadoop.hbase.ipc.WrongVersionException", ""),
            RemoteKind::FatalConnection
        );
        assert_eq!(RemoteKind::from_class("java.io.IOException", ""), RemoteKind::Other);
        assert!(RemoteKind::ScannerReset.invalidates_location());
        assert!(!RemoteKind::UnknownScanner.is_retryable());
    }
}
