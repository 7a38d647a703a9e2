//! Remote exceptions: the `ExceptionResponse` of a failed call, mapped by its Java class
//! to a kind the client can act on.
//!
//! What each kind means for the client (following HBase 2.6's own client):
//!
//! | kind | drop the cached location | retry the call |
//! |---|---|---|
//! | `NotServingRegion` | yes | yes, after locating again |
//! | `RegionMoved` | yes (the new server is known) | yes, on the new server |
//! | `RegionOpening` | yes | yes, after a pause |
//! | `RegionServerStopped` | yes | yes, after locating again |
//! | `ServerNotRunningYet` | yes | yes, after a pause |
//! | `RegionTooBusy` | no | yes, after a pause |
//! | `CallQueueTooBig`, `CallDropped` | no | yes, after a pause |
//! | `RetryImmediately` | no | yes, at once |
//! | `Throttled` | no | yes, after a pause (a quota said no) |
//! | `ScannerReset` | yes | the scanner is gone: reopen it from the last row |
//! | `UnknownScanner` | no | the scanner is gone: reopen it from the last row |
//! | `OutOfOrderScannerNext` | no | the scanner is gone: reopen it from the last row |
//! | `TableNotFound` | yes | no |
//! | `NoSuchColumnFamily` | no | no |
//! | `NamespaceNotFound`, `TableExists`, `NamespaceExists` | no | no |
//! | `FatalConnection` | no (but the connection is closed) | no: a configuration mismatch |
//! | `DoNotRetry` | no | no |
//! | `Other` | yes, as HBase's client does for exceptions it does not know | unless the server said `do_not_retry` |

use crate::pb;

/// A failed call's exception as the server sent it, with its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteException {
    /// The Java class of the exception (`org.apache.hadoop.hbase.NotServingRegionException`).
    pub class_name: String,
    /// The exception's message (the first line of its stack trace, without the class).
    pub message: String,
    /// The whole stack trace as the server formatted it.
    pub stack_trace: String,
    /// The server set `do_not_retry` (the exception is a `DoNotRetryIOException`).
    pub do_not_retry: bool,
    /// The server said it was overloaded when it refused the call.
    pub server_overloaded: bool,
    /// What the client should make of it.
    pub kind: RemoteExceptionKind,
}

/// Where a region went, as a `RegionMovedException` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovedTo {
    /// The new region server's host name.
    pub host: String,
    /// Its RPC port.
    pub port: u16,
    /// Its start code, when the message carried it.
    pub start_code: Option<i64>,
    /// The sequence number of the location, when the message carried it.
    pub location_seq_num: Option<i64>,
}

/// The kinds of remote exception a client acts on. See the module's table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteExceptionKind {
    /// The region is not open on this server.
    NotServingRegion,
    /// The region moved; `None` when the new location could not be read.
    RegionMoved(Option<MovedTo>),
    /// The region is being opened on this server.
    RegionOpening,
    /// The region server is stopping or aborted.
    RegionServerStopped,
    /// The server has not finished starting.
    ServerNotRunningYet,
    /// The region is too busy (memstore full, lock contention).
    RegionTooBusy,
    /// The server's call queue is full.
    CallQueueTooBig,
    /// The server dropped the call without running it.
    CallDropped,
    /// The server asks for an immediate retry (a multi too large for one response).
    RetryImmediately,
    /// A quota refused the call for now (`RpcThrottlingException`).
    Throttled,
    /// The server reset the scanner (the region is closing, or the scan hit an error).
    ScannerReset,
    /// The scanner id is unknown: its lease expired or it was closed.
    UnknownScanner,
    /// A scanner `next` arrived with an unexpected sequence number.
    OutOfOrderScannerNext,
    /// The table does not exist.
    TableNotFound,
    /// A column family named by the call does not exist.
    NoSuchColumnFamily,
    /// The namespace does not exist.
    NamespaceNotFound,
    /// A table of that name already exists.
    TableExists,
    /// A namespace of that name already exists.
    NamespaceExists,
    /// The server refused the connection itself (wrong version, bad auth, unsupported
    /// codec or compressor); every call on it fails.
    FatalConnection,
    /// Another exception the server marked not to retry.
    DoNotRetry,
    /// Any other exception.
    Other,
}

/// What a client should do with the calls of a scanner that got this exception.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScannerAdvice {
    /// The scanner is still usable (or the exception is not about scanners).
    Continue,
    /// The server-side scanner is gone: open a new one after the last row received.
    Reopen,
}

impl RemoteExceptionKind {
    /// Maps a Java class name (and the `do_not_retry` flag for classes this crate does
    /// not know) to a kind.
    pub fn from_class(class_name: &str, message: &str, do_not_retry: bool) -> Self {
        match class_name {
            "org.apache.hadoop.hbase.NotServingRegionException" => Self::NotServingRegion,
            "org.apache.hadoop.hbase.exceptions.RegionMovedException" => Self::RegionMoved(parse_region_moved(message)),
            "org.apache.hadoop.hbase.exceptions.RegionOpeningException" => Self::RegionOpening,
            "org.apache.hadoop.hbase.regionserver.RegionServerStoppedException"
            | "org.apache.hadoop.hbase.regionserver.RegionServerAbortedException" => Self::RegionServerStopped,
            "org.apache.hadoop.hbase.ipc.ServerNotRunningYetException" => Self::ServerNotRunningYet,
            "org.apache.hadoop.hbase.RegionTooBusyException" => Self::RegionTooBusy,
            "org.apache.hadoop.hbase.CallQueueTooBigException" => Self::CallQueueTooBig,
            "org.apache.hadoop.hbase.CallDroppedException" => Self::CallDropped,
            "org.apache.hadoop.hbase.RetryImmediatelyException"
            | "org.apache.hadoop.hbase.MultiActionResultTooLarge" => Self::RetryImmediately,
            "org.apache.hadoop.hbase.quotas.RpcThrottlingException" => Self::Throttled,
            "org.apache.hadoop.hbase.exceptions.ScannerResetException" => Self::ScannerReset,
            "org.apache.hadoop.hbase.UnknownScannerException" => Self::UnknownScanner,
            "org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException" => Self::OutOfOrderScannerNext,
            "org.apache.hadoop.hbase.TableNotFoundException" => Self::TableNotFound,
            "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException" => Self::NoSuchColumnFamily,
            "org.apache.hadoop.hbase.NamespaceNotFoundException" => Self::NamespaceNotFound,
            "org.apache.hadoop.hbase.TableExistsException" => Self::TableExists,
            "org.apache.hadoop.hbase.NamespaceExistException" => Self::NamespaceExists,
            "org.apache.hadoop.hbase.ipc.FatalConnectionException"
            | "org.apache.hadoop.hbase.ipc.WrongVersionException"
            | "org.apache.hadoop.hbase.ipc.BadAuthException"
            | "org.apache.hadoop.hbase.ipc.UnsupportedCellCodecException"
            | "org.apache.hadoop.hbase.ipc.UnsupportedCompressionCodecException"
            | "org.apache.hadoop.hbase.ipc.UnsupportedCryptoException" => Self::FatalConnection,
            _ if do_not_retry || is_final_class(class_name) => Self::DoNotRetry,
            _ => Self::Other,
        }
    }
}

/// How soon a failed call may be retried (see [`RemoteException::retry_hint`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryHint {
    /// At once, without a pause.
    Immediately,
    /// After the client's own back-off.
    Backoff,
    /// After this long (the server's word).
    After(std::time::Duration),
}

/// The wait interval of an `RpcThrottlingException`'s message ("... - wait 1sec, 20ms",
/// as HBase writes it: hours, minutes, seconds and milliseconds, the zero ones left out);
/// `None` when there is none or it does not read.
pub fn throttle_wait(message: &str) -> Option<std::time::Duration> {
    let (_, interval) = message.rsplit_once("wait ")?;
    let mut millis: u64 = 0;
    let mut parts = 0;
    for part in interval.split(',').map(str::trim) {
        let digits = part.bytes().take_while(u8::is_ascii_digit).count();
        // A part is digits then a unit; anything after the last unit ends the list.
        let (Some(number), Some(unit)) = (part.get(..digits), part.get(digits..)) else { break };
        let Ok(number) = number.parse::<u64>() else { break };
        let unit_millis: u64 = match unit.split_whitespace().next().unwrap_or("") {
            "ms" => 1,
            "sec" | "secs" => 1_000,
            "min" | "mins" => 60_000,
            "hr" | "hrs" => 3_600_000,
            _ => break,
        };
        millis = millis.checked_add(number.checked_mul(unit_millis)?)?;
        parts += 1;
    }
    (parts > 0).then(|| std::time::Duration::from_millis(millis))
}

/// HBase's exceptions that are `DoNotRetryIOException`s, for the places where the server
/// names the class without its `do_not_retry` flag: the per-action exceptions of a
/// `Multi` (a `NameBytesPair`), which HBase's Java client rebuilds by class and judges
/// by type. The kinds matched before this one (missing table, family, namespace) are
/// final too.
const FINAL_CLASSES: &[&str] = &[
    "org.apache.hadoop.hbase.DoNotRetryIOException",
    "org.apache.hadoop.hbase.client.DoNotRetryRegionException",
    "org.apache.hadoop.hbase.client.RowTooBigException",
    "org.apache.hadoop.hbase.regionserver.RowTooBigException",
    "org.apache.hadoop.hbase.exceptions.FailedSanityCheckException",
    "org.apache.hadoop.hbase.exceptions.RequestTooBigException",
    "org.apache.hadoop.hbase.exceptions.UnknownProtocolException",
    "org.apache.hadoop.hbase.exceptions.MergeRegionException",
    "org.apache.hadoop.hbase.UnknownRegionException",
    "org.apache.hadoop.hbase.InvalidFamilyOperationException",
    "org.apache.hadoop.hbase.TableNotEnabledException",
    "org.apache.hadoop.hbase.TableNotDisabledException",
    "org.apache.hadoop.hbase.constraint.ConstraintException",
    "org.apache.hadoop.hbase.coprocessor.CoprocessorException",
    "org.apache.hadoop.hbase.security.AccessDeniedException",
    "org.apache.hadoop.hbase.quotas.QuotaExceededException",
    "org.apache.hadoop.hbase.quotas.ThrottlingException",
    "org.apache.hadoop.hbase.quotas.SpaceLimitingException",
    "org.apache.hadoop.hbase.io.hfile.CorruptHFileException",
    "org.apache.hadoop.hbase.regionserver.LeaseException",
    "org.apache.hadoop.hbase.security.visibility.InvalidLabelException",
    "org.apache.hadoop.hbase.security.visibility.LabelAlreadyExistsException",
];

/// Whether `class_name` is an exception no retry can repair: one of [`FINAL_CLASSES`],
/// a snapshot failure, or a `java.lang` exception (`IllegalArgumentException` and its
/// kin: the request itself is wrong; I/O exceptions live in `java.io` and `java.net`).
fn is_final_class(class_name: &str) -> bool {
    FINAL_CLASSES.contains(&class_name)
        || class_name.starts_with("org.apache.hadoop.hbase.snapshot.")
        || class_name.starts_with("java.lang.")
}

impl RemoteException {
    /// Reads an `ExceptionResponse` (missing fields become empty).
    pub fn from_pb(response: &pb::ExceptionResponse) -> Self {
        let class_name = response.exception_class_name.clone().unwrap_or_default();
        let stack_trace = response.stack_trace.clone().unwrap_or_default();
        let message = message_of(&class_name, &stack_trace).to_owned();
        let do_not_retry = response.do_not_retry.unwrap_or(false);
        let mut kind = RemoteExceptionKind::from_class(&class_name, &message, do_not_retry);
        // The server also puts a moved region's host and port in the response itself.
        if let RemoteExceptionKind::RegionMoved(None) = kind {
            let port = response.port.and_then(|port| u16::try_from(port).ok());
            if let (Some(host), Some(port)) = (response.hostname.clone(), port) {
                kind = RemoteExceptionKind::RegionMoved(Some(MovedTo {
                    host,
                    port,
                    start_code: None,
                    location_seq_num: None,
                }));
            }
        }
        Self {
            class_name,
            message,
            stack_trace,
            do_not_retry,
            server_overloaded: response.server_overloaded.unwrap_or(false),
            kind,
        }
    }

    /// Whether the cached location of the region must be dropped.
    pub fn invalidates_location(&self) -> bool {
        match self.kind {
            RemoteExceptionKind::NotServingRegion
            | RemoteExceptionKind::RegionMoved(_)
            | RemoteExceptionKind::RegionOpening
            | RemoteExceptionKind::RegionServerStopped
            | RemoteExceptionKind::ServerNotRunningYet
            | RemoteExceptionKind::ScannerReset
            | RemoteExceptionKind::TableNotFound
            | RemoteExceptionKind::Other => true,
            RemoteExceptionKind::FatalConnection
            | RemoteExceptionKind::RegionTooBusy
            | RemoteExceptionKind::CallQueueTooBig
            | RemoteExceptionKind::CallDropped
            | RemoteExceptionKind::RetryImmediately
            | RemoteExceptionKind::Throttled
            | RemoteExceptionKind::UnknownScanner
            | RemoteExceptionKind::OutOfOrderScannerNext
            | RemoteExceptionKind::NoSuchColumnFamily
            | RemoteExceptionKind::NamespaceNotFound
            | RemoteExceptionKind::TableExists
            | RemoteExceptionKind::NamespaceExists
            | RemoteExceptionKind::DoNotRetry => false,
        }
    }

    /// Whether the same call may be sent again (after locating the region again when
    /// [`invalidates_location`](Self::invalidates_location) says so). Scanner calls that
    /// get a scanner-loss exception are not retried: see [`scanner_advice`](Self::scanner_advice).
    pub fn is_retryable(&self) -> bool {
        match self.kind {
            RemoteExceptionKind::NotServingRegion
            | RemoteExceptionKind::RegionMoved(_)
            | RemoteExceptionKind::RegionOpening
            | RemoteExceptionKind::RegionServerStopped
            | RemoteExceptionKind::ServerNotRunningYet
            | RemoteExceptionKind::RegionTooBusy
            | RemoteExceptionKind::CallQueueTooBig
            | RemoteExceptionKind::CallDropped
            | RemoteExceptionKind::RetryImmediately
            | RemoteExceptionKind::Throttled => true,
            RemoteExceptionKind::ScannerReset
            | RemoteExceptionKind::UnknownScanner
            | RemoteExceptionKind::OutOfOrderScannerNext
            | RemoteExceptionKind::TableNotFound
            | RemoteExceptionKind::NoSuchColumnFamily
            | RemoteExceptionKind::NamespaceNotFound
            | RemoteExceptionKind::TableExists
            | RemoteExceptionKind::NamespaceExists
            | RemoteExceptionKind::FatalConnection
            | RemoteExceptionKind::DoNotRetry => false,
            RemoteExceptionKind::Other => !self.do_not_retry,
        }
    }

    /// Whether the server has given up on the connection (every call on it fails): the
    /// connection must be closed.
    pub fn closes_connection(&self) -> bool {
        matches!(self.kind, RemoteExceptionKind::FatalConnection)
    }

    /// How soon a retry may go: at once for `RetryImmediately` and
    /// `MultiActionResultTooLarge` (the server answered part of the request and asks
    /// for the rest), after the wait interval a throttling quota names, otherwise after
    /// the client's back-off.
    pub fn retry_hint(&self) -> RetryHint {
        match self.kind {
            RemoteExceptionKind::RetryImmediately => RetryHint::Immediately,
            RemoteExceptionKind::Throttled => throttle_wait(&self.message).map_or(RetryHint::Backoff, RetryHint::After),
            RemoteExceptionKind::NotServingRegion
            | RemoteExceptionKind::RegionMoved(_)
            | RemoteExceptionKind::RegionOpening
            | RemoteExceptionKind::RegionServerStopped
            | RemoteExceptionKind::ServerNotRunningYet
            | RemoteExceptionKind::RegionTooBusy
            | RemoteExceptionKind::CallQueueTooBig
            | RemoteExceptionKind::CallDropped
            | RemoteExceptionKind::ScannerReset
            | RemoteExceptionKind::UnknownScanner
            | RemoteExceptionKind::OutOfOrderScannerNext
            | RemoteExceptionKind::TableNotFound
            | RemoteExceptionKind::NoSuchColumnFamily
            | RemoteExceptionKind::NamespaceNotFound
            | RemoteExceptionKind::TableExists
            | RemoteExceptionKind::NamespaceExists
            | RemoteExceptionKind::FatalConnection
            | RemoteExceptionKind::DoNotRetry
            | RemoteExceptionKind::Other => RetryHint::Backoff,
        }
    }

    /// Whether a retry should wait first (the server or region is overloaded or busy
    /// starting up), rather than go at once.
    pub fn wants_backoff(&self) -> bool {
        self.server_overloaded
            || matches!(
                self.kind,
                RemoteExceptionKind::RegionOpening
                    | RemoteExceptionKind::ServerNotRunningYet
                    | RemoteExceptionKind::RegionTooBusy
                    | RemoteExceptionKind::CallQueueTooBig
                    | RemoteExceptionKind::CallDropped
                    | RemoteExceptionKind::Throttled
            )
    }

    /// What a scan should do: reopen its scanner after the last row, or carry on.
    pub fn scanner_advice(&self) -> ScannerAdvice {
        match self.kind {
            RemoteExceptionKind::ScannerReset
            | RemoteExceptionKind::UnknownScanner
            | RemoteExceptionKind::OutOfOrderScannerNext
            | RemoteExceptionKind::NotServingRegion
            | RemoteExceptionKind::RegionMoved(_)
            | RemoteExceptionKind::RegionOpening
            | RemoteExceptionKind::RegionServerStopped
            | RemoteExceptionKind::ServerNotRunningYet => ScannerAdvice::Reopen,
            RemoteExceptionKind::RegionTooBusy
            | RemoteExceptionKind::CallQueueTooBig
            | RemoteExceptionKind::CallDropped
            | RemoteExceptionKind::RetryImmediately
            | RemoteExceptionKind::Throttled
            | RemoteExceptionKind::TableNotFound
            | RemoteExceptionKind::NoSuchColumnFamily
            | RemoteExceptionKind::NamespaceNotFound
            | RemoteExceptionKind::TableExists
            | RemoteExceptionKind::NamespaceExists
            | RemoteExceptionKind::FatalConnection
            | RemoteExceptionKind::DoNotRetry
            | RemoteExceptionKind::Other => ScannerAdvice::Continue,
        }
    }
}

impl std::fmt::Display for RemoteException {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.message.is_empty() {
            write!(f, "{}", self.class_name)
        } else {
            write!(f, "{}: {}", self.class_name, self.message)
        }
    }
}

impl std::error::Error for RemoteException {}

/// The message of a Java stack trace: its first line, without the `class: ` prefix.
fn message_of<'a>(class_name: &str, stack_trace: &'a str) -> &'a str {
    let first_line = stack_trace.lines().next().unwrap_or_default();
    let without_class =
        first_line.strip_prefix(class_name).and_then(|rest| rest.strip_prefix(':')).unwrap_or(first_line);
    without_class.trim()
}

/// Reads `Region moved to: hostname=H port=P startCode=S. As of locationSeqNum=N.`,
/// the message HBase's `RegionMovedException` writes and parses back.
pub fn parse_region_moved(message: &str) -> Option<MovedTo> {
    let host = field(message, "hostname=", ' ')?;
    let port = field(message, "port=", ' ')?.parse().ok()?;
    if host.is_empty() {
        return None;
    }
    Some(MovedTo {
        host: host.to_owned(),
        port,
        start_code: field(message, "startCode=", '.').and_then(|code| code.parse().ok()),
        location_seq_num: field(message, "locationSeqNum=", '.').and_then(|seq| seq.parse().ok()),
    })
}

/// The text after `name` up to `end` (or the end of the message).
fn field<'a>(message: &'a str, name: &str, end: char) -> Option<&'a str> {
    let start = message.find(name)? + name.len();
    let rest = message.get(start..)?;
    Some(rest.split(end).next().unwrap_or(rest))
}

#[cfg(test)]
#[path = "exception_tests.rs"]
mod tests;
