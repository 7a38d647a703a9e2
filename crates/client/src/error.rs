//! Errors: what went wrong, typed so callers can match on it.

use std::time::Duration;

use basalt_thrift::CallError;
use bytes::Bytes;

/// Input rejected before anything was sent to HBase.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidInput {
    /// A row key must not be empty.
    #[error("row key is empty")]
    EmptyRowKey,
    /// HBase's hard limit on a row key is 32767 bytes.
    #[error("row key is {len} bytes; HBase's limit is 32767")]
    RowKeyTooLong {
        /// The key's length.
        len: usize,
    },
    /// A column family name must not be empty.
    #[error("column family name is empty")]
    EmptyFamily,
    /// A table or namespace name breaks HBase's naming rules.
    #[error("invalid table name {name:?}: {why}")]
    TableName {
        /// The name given.
        name: String,
        /// Which rule it breaks.
        why: &'static str,
    },
    /// A cell value over the configured maximum (HBase's `hbase.client.keyvalue.maxsize`).
    #[error("value of {len} bytes exceeds the maximum of {max}")]
    ValueTooLarge {
        /// The value's length.
        len: usize,
        /// The configured maximum.
        max: usize,
    },
    /// A builder option is out of range or contradicts another.
    #[error("invalid option: {0}")]
    Option(String),
    /// A key could not be encoded, decoded or planned by its schema.
    #[error("key error: {0}")]
    Key(#[from] basalt_rowkey::KeyError),
    /// A salted-scan cursor was refused: malformed, from another query, altered or
    /// signed with another key, or pointing outside its range.
    #[error("invalid cursor: {0}")]
    Cursor(crate::salted::CursorError),
    /// A filter could not be rendered.
    #[error("invalid filter: {0}")]
    Filter(String),
}

/// Everything that can go wrong in a Basalt call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Input rejected before sending.
    #[error(transparent)]
    InvalidInput(#[from] InvalidInput),
    /// The table does not exist.
    #[error("table not found: {table}")]
    TableNotFound {
        /// The table named in the call.
        table: String,
    },
    /// The namespace does not exist.
    #[error("namespace not found: {namespace}")]
    NamespaceNotFound {
        /// The namespace named in the call.
        namespace: String,
    },
    /// The table or namespace already exists.
    #[error("already exists: {name}")]
    AlreadyExists {
        /// The table or namespace.
        name: String,
    },
    /// A column family named in the call does not exist in the table.
    #[error("no such column family: {message}")]
    NoSuchColumnFamily {
        /// HBase's message, naming the family.
        message: String,
    },
    /// A server-side scanner expired (the consumer paused longer than the server's
    /// scanner timeout) and could not be resumed.
    #[error("scanner expired: {message}")]
    ScannerExpired {
        /// HBase's message.
        message: String,
    },
    /// HBase rejected an argument (`TIllegalArgument`).
    #[error("illegal argument: {message}")]
    IllegalArgument {
        /// HBase's message.
        message: String,
    },
    /// HBase raised an I/O error (`TIOError`).
    #[error("HBase I/O error: {message}")]
    Server {
        /// HBase's message.
        message: String,
        /// HBase's verdict: may the same call succeed if tried again?
        can_retry: bool,
    },
    /// The gateway could not be reached or the connection failed.
    #[error("transport error talking to {addr}: {source}")]
    Transport {
        /// The gateway's address.
        addr: String,
        /// The underlying failure.
        #[source]
        source: CallError,
    },
    /// The gateway's answer broke the protocol, or it raised an application error
    /// (unknown method, internal error). Often a transport/protocol mismatch.
    #[error("protocol error with {addr}: {source}")]
    Protocol {
        /// The gateway's address.
        addr: String,
        /// The underlying failure.
        #[source]
        source: CallError,
    },
    /// The call did not finish within the request timeout.
    #[error("{operation} timed out after {after:?}")]
    Timeout {
        /// The operation, e.g. `get`.
        operation: &'static str,
        /// The timeout that passed.
        after: Duration,
    },
    /// No gateway address could be connected to.
    #[error("no Thrift2 gateway reachable (tried {tried}): {last}")]
    NoGateway {
        /// The addresses tried.
        tried: String,
        /// The last connection error.
        #[source]
        last: Box<Error>,
    },
    /// A batched write failed part-way: `confirmed` rows were written; the rows in
    /// `not_confirmed` may or may not have been (the failing chunk and all after it).
    #[error("batch failed after {confirmed} rows were written; {} rows not confirmed: {source}", not_confirmed.len())]
    BatchFailed {
        /// Rows known to be written (the chunks before the failing one).
        confirmed: usize,
        /// Row keys of the failing chunk and of the chunks never sent.
        not_confirmed: Vec<Bytes>,
        /// Why the chunk failed.
        #[source]
        source: Box<Error>,
    },
}

impl Error {
    /// Whether the same call may succeed if tried again: transport failures,
    /// timeouts, expired scanners and server errors HBase marks retryable.
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Transport { .. }
            | Error::Timeout { .. }
            | Error::NoGateway { .. }
            | Error::ScannerExpired { .. } => true,
            Error::Server { can_retry, .. } => *can_retry,
            Error::BatchFailed { source, .. } => source.is_retryable(),
            _ => false,
        }
    }

    /// Maps one call's failure, recognising HBase's typed failures by their messages.
    pub(crate) fn from_call(addr: &str, table: Option<&str>, e: CallError) -> Error {
        match e {
            CallError::Server { message, can_retry } => classify_server(message, can_retry.unwrap_or(true), table),
            CallError::IllegalArgument { message } => {
                if message.contains("Invalid scanner Id") || message.contains("UnknownScannerException") {
                    Error::ScannerExpired { message }
                } else {
                    Error::IllegalArgument { message }
                }
            }
            e @ (CallError::Application { .. } | CallError::Protocol(_) | CallError::Encode(_)) => {
                Error::Protocol { addr: addr.to_owned(), source: e }
            }
            e => Error::Transport { addr: addr.to_owned(), source: e },
        }
    }
}

fn classify_server(message: String, can_retry: bool, table: Option<&str>) -> Error {
    // HBase's messages carry the Java stack trace; its first line says what happened.
    let message = message.lines().next().unwrap_or_default().trim().to_owned();
    let first_line = message.as_str();
    // Data calls on a missing table answer with the bare table name, not retryable.
    if let Some(table) = table {
        let bare = table.strip_prefix("default:").unwrap_or(table);
        if !can_retry && (first_line == table || first_line == bare) {
            return Error::TableNotFound { table: table.to_owned() };
        }
    }
    if first_line.contains("TableNotFoundException") {
        let table = table.map(str::to_owned).unwrap_or_else(|| extract_after(first_line, "TableNotFoundException: "));
        return Error::TableNotFound { table };
    }
    if first_line.contains("NamespaceNotFoundException") {
        return Error::NamespaceNotFound { namespace: extract_after(first_line, "NamespaceNotFoundException: ") };
    }
    if first_line.contains("TableExistsException") || first_line.contains("NamespaceExistException") {
        return Error::AlreadyExists { name: extract_after(first_line, "Exception: ") };
    }
    if first_line.contains("NoSuchColumnFamilyException") {
        return Error::NoSuchColumnFamily { message };
    }
    if first_line.contains("UnknownScannerException") {
        return Error::ScannerExpired { message };
    }
    Error::Server { message, can_retry }
}

fn extract_after(line: &str, marker: &str) -> String {
    match line.find(marker) {
        Some(at) => line[at + marker.len()..].trim().to_owned(),
        None => line.trim().to_owned(),
    }
}

impl From<basalt_rowkey::KeyError> for Error {
    fn from(e: basalt_rowkey::KeyError) -> Error {
        Error::InvalidInput(InvalidInput::Key(e))
    }
}

/// Results of Basalt calls.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_hbase_messages() {
        let e = Error::from_call(
            "h:1",
            Some("ns:t"),
            CallError::Server {
                message: "org.apache.hadoop.hbase.TableNotFoundException: ns:t\n\tat ...".into(),
                can_retry: Some(false),
            },
        );
        assert!(matches!(e, Error::TableNotFound { ref table } if table == "ns:t"), "{e:?}");
        assert!(!e.is_retryable());
        let e = Error::from_call("h:1", None, CallError::IllegalArgument { message: "Invalid scanner Id".into() });
        assert!(matches!(e, Error::ScannerExpired { .. }));
        assert!(e.is_retryable());
        let bare = CallError::Server { message: "t1".into(), can_retry: Some(false) };
        assert!(matches!(Error::from_call("h:1", Some("t1"), bare), Error::TableNotFound { .. }));
        let e = Error::from_call("h:1", None, CallError::Closed);
        assert!(matches!(e, Error::Transport { .. }));
        assert!(e.is_retryable());
        let e = Error::from_call("h:1", None, CallError::Server { message: "busy".into(), can_retry: Some(true) });
        assert!(e.is_retryable());
    }
}
