//! Native RPC failures as the crate's errors: whether an attempt was sent, and its
//! [`Error`].

// The error mapping lists every kind: a new one fails to build until it is placed.
#![deny(clippy::wildcard_enum_match_arm)]

use crate::error::{BusyKind, Error};
use crate::transport::{AttemptError, Operation, TransportFailure};
use basalt_rpc::RpcError;

/// Maps a failed call: whether it was sent (a connection that could not be made, or
/// bad input, provably was not), and the crate's error.
pub(super) fn attempt_error(op: Operation, table: Option<&str>, error: &RpcError) -> AttemptError {
    let mapped = map_error(error, op, table);
    match error {
        RpcError::Connect { .. }
        | RpcError::InvalidArgument(_)
        | RpcError::Bootstrap(_)
        | RpcError::Security { .. } => AttemptError::not_sent(op, mapped),
        // Retries below the seam that ended unable to connect were never sent only if no
        // earlier attempt may have run (a reply lost, then the server unreachable: the
        // write may be applied, and a fresh attempt would apply it again).
        RpcError::RetriesExhausted { last, may_have_run: false, .. } if matches!(**last, RpcError::Connect { .. }) => {
            AttemptError::not_sent(op, mapped)
        }
        RpcError::ConnectionFailed { .. }
        | RpcError::Timeout { .. }
        | RpcError::Remote(_)
        | RpcError::Protocol { .. }
        | RpcError::RegionNotFound { .. }
        | RpcError::RegionUnavailable(_)
        | RpcError::RetriesExhausted { .. } => AttemptError::sent(op, mapped),
    }
}

/// The crate's error for a native RPC failure.
pub(super) fn map_error(error: &RpcError, op: Operation, table: Option<&str>) -> Error {
    use basalt_rpc::RemoteExceptionKind as Kind;
    let table_name = || table.unwrap_or("").to_owned();
    match error {
        RpcError::InvalidArgument(message) => Error::IllegalArgument { message: message.clone() },
        RpcError::Timeout { timeout, .. } => Error::Timeout { operation: op, after: *timeout },
        RpcError::RetriesExhausted { last, .. } => map_error(last, op, table),
        RpcError::RegionNotFound { .. } => Error::TableNotFound { table: table_name() },
        RpcError::Remote(remote) => {
            let message = remote.to_string();
            match remote.kind() {
                Kind::TableNotFound => Error::TableNotFound { table: table_name() },
                Kind::NamespaceNotFound => Error::NamespaceNotFound { namespace: table_name() },
                Kind::TableExists | Kind::NamespaceExists => Error::AlreadyExists { name: table_name() },
                Kind::NoSuchColumnFamily => Error::NoSuchColumnFamily { message },
                Kind::UnknownScanner | Kind::ScannerReset | Kind::OutOfOrderScannerNext => {
                    Error::ScannerExpired { message }
                }
                Kind::RegionTooBusy => Error::Busy { kind: BusyKind::RegionTooBusy, message },
                Kind::CallQueueTooBig => Error::Busy { kind: BusyKind::CallQueueTooBig, message },
                Kind::NotServingRegion
                | Kind::RegionMoved(_)
                | Kind::RegionOpening
                | Kind::RegionServerStopped
                | Kind::ServerNotRunningYet
                | Kind::CallDropped
                | Kind::RetryImmediately
                | Kind::Throttled
                | Kind::FatalConnection
                | Kind::DoNotRetry
                | Kind::Other => Error::Server {
                    message,
                    can_retry: remote.is_retryable(),
                    exception: Some(remote.exception.class_name.clone()),
                },
            }
        }
        // A refused connection is an outage to the core (retried for its whole budget).
        RpcError::Connect { addr, .. } | RpcError::Security { addr, .. } | RpcError::ConnectionFailed { addr, .. } => {
            Error::Transport { addr: addr.clone(), source: TransportFailure::Native(error.clone()) }
        }
        RpcError::Protocol { addr, .. } => {
            Error::Protocol { addr: addr.clone(), source: TransportFailure::Native(error.clone()) }
        }
        RpcError::Bootstrap(_) | RpcError::RegionUnavailable(_) => {
            Error::Server { message: error.to_string(), can_retry: error.is_retryable(), exception: None }
        }
    }
}

pub(super) fn invalid(op: Operation, error: impl Into<Error>) -> AttemptError {
    AttemptError::not_sent(op, error.into())
}
