//! The gateway's failures as the crate's errors: HBase's typed failures recognised in
//! the gateway's messages (which carry the Java exception's class and stack).

// The mapping lists every kind: a new one fails to build until it is placed.
#![deny(clippy::wildcard_enum_match_arm)]

use basalt_thrift::CallError;

use crate::error::{BusyKind, Error, InvalidInput};
use crate::transport::{Operation, TransportFailure};

/// Maps one call's failure, recognising HBase's typed failures by their messages.
pub(crate) fn from_call(addr: &str, table: Option<&str>, e: CallError) -> Error {
    from_call_in(Operation::Connect, addr, table, e)
}

/// [`from_call`] for a named operation.
pub(crate) fn from_call_in(operation: Operation, addr: &str, table: Option<&str>, e: CallError) -> Error {
    match e {
        CallError::Reply(crate::transport::thrift::ReplyError::Server { message, can_retry }) => {
            classify_server(message, can_retry.unwrap_or(true), table)
        }
        CallError::Reply(crate::transport::thrift::ReplyError::IllegalArgument { message }) => {
            if message.contains("Invalid scanner Id") || message.contains("UnknownScannerException") {
                Error::ScannerExpired { message }
            } else {
                Error::IllegalArgument { message }
            }
        }
        CallError::Reply(crate::transport::thrift::ReplyError::Application { kind, message }) => {
            Error::ServerInternal { addr: addr.to_owned(), operation, kind, message, hint: None }
        }
        CallError::Reply(crate::transport::thrift::ReplyError::Encode(message)) => {
            Error::InvalidInput(InvalidInput::Option(format!("the request could not be encoded: {message}")))
        }
        e @ CallError::Reply(crate::transport::thrift::ReplyError::Malformed(_)) => {
            Error::Protocol { addr: addr.to_owned(), source: TransportFailure::Gateway(e) }
        }
        e @ (CallError::Connect { .. }
        | CallError::ConnectTimeout { .. }
        | CallError::Io(_)
        | CallError::Closed
        | CallError::Reply(crate::transport::thrift::ReplyError::TooLarge { .. })
        | CallError::ConnectionUnusable
        | CallError::Secure(_)) => Error::Transport { addr: addr.to_owned(), source: TransportFailure::Gateway(e) },
    }
}

/// Whether a call failed because the connection was closed or reset (not a timeout,
/// an oversized reply or a protocol error).
pub(crate) fn is_connection_dropped(e: &CallError) -> bool {
    match e {
        CallError::Closed => true,
        CallError::Io(io) => matches!(
            io.kind(),
            std::io::ErrorKind::ConnectionReset
                | std::io::ErrorKind::ConnectionAborted
                | std::io::ErrorKind::BrokenPipe
                | std::io::ErrorKind::UnexpectedEof
        ),
        CallError::Connect { .. }
        | CallError::ConnectTimeout { .. }
        | CallError::Reply(crate::transport::thrift::ReplyError::TooLarge { .. })
        | CallError::Reply(crate::transport::thrift::ReplyError::Malformed(_))
        | CallError::Reply(crate::transport::thrift::ReplyError::Encode(_))
        | CallError::Reply(crate::transport::thrift::ReplyError::Application { .. })
        | CallError::Reply(crate::transport::thrift::ReplyError::Server { .. })
        | CallError::Reply(crate::transport::thrift::ReplyError::IllegalArgument { .. })
        | CallError::ConnectionUnusable
        | CallError::Secure(_) => false,
    }
}

fn classify_server(message: String, can_retry: bool, table: Option<&str>) -> Error {
    // The gateway's client gives up on a busy region or server after its own retries;
    // the exception's class is somewhere in the message (often not on its first line).
    for (class, kind) in
        [("RegionTooBusyException", BusyKind::RegionTooBusy), ("CallQueueTooBigException", BusyKind::CallQueueTooBig)]
    {
        if message.contains(class) {
            let first = message.lines().next().unwrap_or_default().trim().to_owned();
            return Error::Busy { kind, message: first };
        }
    }
    // A NullPointerException anywhere in the reply (the gateway's message may list its
    // own attempts, each failed by the region server) is a bug in HBase's code, such as
    // HBase 2.6's filter lists with some members: it fails the same way every time, and
    // the gateway has already retried it. Not retried here, so it fails fast.
    let can_retry = can_retry && !message.contains("java.lang.NullPointerException");
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
    let exception = java_class_prefix(first_line).map(str::to_owned);
    Error::Server { message, can_retry, exception }
}

/// The Java class a message starts with (`org.apache.hadoop.hbase.X: ...`), if it does:
/// dotted lower-case packages, then a class name ending in `Exception` or `Error`.
fn java_class_prefix(line: &str) -> Option<&str> {
    let name = line.split([':', ' ']).next()?;
    let (package, class) = name.rsplit_once('.')?;
    let package_ok = !package.is_empty()
        && package.split('.').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()));
    let class_ok = class.bytes().next().is_some_and(|b| b.is_ascii_uppercase())
        && class.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'$')
        && (class.ends_with("Exception") || class.ends_with("Error"));
    (package_ok && class_ok).then_some(name)
}

fn extract_after(line: &str, marker: &str) -> String {
    match line.find(marker) {
        Some(at) => line[at + marker.len()..].trim().to_owned(),
        None => line.trim().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn classifies_hbase_messages() {
        let e = from_call(
            "h:1",
            Some("ns:t"),
            CallError::Reply(crate::transport::thrift::ReplyError::Server {
                message: "org.apache.hadoop.hbase.TableNotFoundException: ns:t\n\tat ...".into(),
                can_retry: Some(false),
            }),
        );
        assert!(matches!(e, Error::TableNotFound { ref table } if table == "ns:t"), "{e:?}");
        assert!(!e.is_retryable());
        let e = from_call(
            "h:1",
            None,
            CallError::Reply(crate::transport::thrift::ReplyError::IllegalArgument {
                message: "Invalid scanner Id".into(),
            }),
        );
        assert!(matches!(e, Error::ScannerExpired { .. }));
        assert!(e.is_retryable());
        let bare = CallError::Reply(crate::transport::thrift::ReplyError::Server {
            message: "t1".into(),
            can_retry: Some(false),
        });
        assert!(matches!(from_call("h:1", Some("t1"), bare), Error::TableNotFound { .. }));
        let e = from_call("h:1", None, CallError::Closed);
        assert!(matches!(e, Error::Transport { .. }));
        assert!(e.is_retryable());
        let e = from_call(
            "h:1",
            None,
            CallError::Reply(crate::transport::thrift::ReplyError::Server {
                message: "org.apache.hadoop.hbase.DoNotRetryIOException: Cell too large\n\tat x".into(),
                can_retry: Some(false),
            }),
        );
        assert_eq!(e.exception_class(), Some("org.apache.hadoop.hbase.DoNotRetryIOException"));
        assert!(!e.is_retryable());
        for message in ["busy", "Some.Thing: x", "org.apache.x: y", "a..B Exception", ""] {
            assert_eq!(java_class_prefix(message), None, "{message}");
        }
        assert_eq!(java_class_prefix("java.io.IOException"), Some("java.io.IOException"));
        let e = from_call(
            "h:1",
            None,
            CallError::Reply(crate::transport::thrift::ReplyError::Server {
                message: "busy".into(),
                can_retry: Some(true),
            }),
        );
        assert!(e.is_retryable());
        // An NPE in HBase's code, even below the first line and marked retryable, is not.
        let npe = "org.apache.hadoop.hbase.client.RetriesExhaustedException: Failed after attempts=16\n\
                   java.lang.NullPointerException: Cannot invoke \"Filter$ReturnCode.ordinal()\" because \"localRC\" is null";
        let e = from_call(
            "h:1",
            None,
            CallError::Reply(crate::transport::thrift::ReplyError::Server {
                message: npe.into(),
                can_retry: Some(true),
            }),
        );
        assert!(matches!(e, Error::Server { can_retry: false, .. }), "{e:?}");
        assert!(!e.is_retryable());
    }
}
