//! Errors: what went wrong, typed so callers can match on it.

// Every decision below lists the kinds it decides on: a new kind fails to build until
// someone decides where it belongs.
#![deny(clippy::wildcard_enum_match_arm)]

use std::time::Duration;

use crate::operation::Operation;
use crate::transport::TransportFailure;
use bytes::Bytes;

/// Input rejected before anything was sent to HBase.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidInput {
    /// A row key must not be empty.
    #[error("row key is empty")]
    EmptyRowKey,
    /// The row key is longer than HBase accepts through the gateway: 32767 bytes less
    /// the table name's length and 16 (HBase locates a row's region with the meta key
    /// `table,row,99999999999999`, which is itself a row key; a longer key makes the
    /// gateway retry until the call times out).
    #[error("row key is {len} bytes; the longest HBase accepts for this table is {max}")]
    RowKeyTooLong {
        /// The key's length.
        len: usize,
        /// The longest key accepted (for the table, when known).
        max: usize,
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
    Cursor(CursorError),
    /// A filter could not be rendered.
    #[error("invalid filter: {0}")]
    Filter(#[from] crate::filter::FilterError),
    /// A site file (`hbase-site.xml`) given to the builder could not be used.
    #[error("hbase-site: {0}")]
    Site(#[from] crate::site::SiteError),
    /// An option the transport cannot carry to HBase: sending the request without it
    /// would return another answer than the one asked for.
    #[error("{what} cannot be sent through the Thrift2 gateway: {why}")]
    Untranslatable {
        /// The option refused.
        what: &'static str,
        /// Why the transport cannot carry it.
        why: &'static str,
    },
}

/// What a busy HBase said it was short of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusyKind {
    /// A region refuses writes until its memstore is flushed (`RegionTooBusyException`).
    RegionTooBusy,
    /// A region server's call queue is full (`CallQueueTooBigException`).
    CallQueueTooBig,
}

impl std::fmt::Display for BusyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BusyKind::RegionTooBusy => "region too busy",
            BusyKind::CallQueueTooBig => "call queue too big",
        })
    }
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
    /// HBase raised an exception (through the gateway: a `TIOError`).
    #[error("HBase I/O error: {message}")]
    Server {
        /// HBase's message.
        message: String,
        /// HBase's verdict: may the same call succeed if tried again?
        can_retry: bool,
        /// The Java class of HBase's exception
        /// (`org.apache.hadoop.hbase.DoNotRetryIOException`), when known: native RPC
        /// always names it; through the gateway, when its message starts with it.
        exception: Option<String>,
    },
    /// HBase is too busy to take the call now (a region over its memstore limit, a
    /// full call queue): retried with a longer back-off than other failures.
    #[error("HBase is busy ({kind}): {message}")]
    Busy {
        /// What is busy.
        kind: BusyKind,
        /// HBase's message.
        message: String,
    },
    /// A server (the gateway, a region server, the master) could not be reached, or the
    /// connection failed; `source` says how, in its transport's terms.
    #[error("transport error talking to {addr}: {source}")]
    Transport {
        /// The server's address.
        addr: String,
        /// The underlying failure.
        #[source]
        source: TransportFailure,
    },
    /// A reply broke its protocol or did not answer its request (through the gateway,
    /// often a transport/protocol mismatch).
    #[error("protocol error with {addr}: {source}")]
    Protocol {
        /// The server's address.
        addr: String,
        /// The underlying failure.
        #[source]
        source: TransportFailure,
    },
    /// The gateway's address accepted a new connection, then closed or reset it before
    /// sending a single byte, on a client whose gateways have answered before: what a
    /// TCP load balancer does while the gateway behind it is down or restarting. An
    /// outage ([`Error::is_outage`]), retried for the whole retry budget. The request
    /// may have been written (and, through a balancer, forwarded): a write that is not
    /// idempotent reports [`Error::WriteOutcomeUnknown`] unless it was provably unsent.
    #[error("{addr} accepted the connection and dropped it before any reply (a load balancer whose gateway is down?): {source}")]
    DroppedBeforeReply {
        /// The gateway's (or balancer's) address.
        addr: String,
        /// How the connection ended: closed or reset.
        #[source]
        source: TransportFailure,
    },
    /// The call did not finish within the request timeout.
    #[error("{operation} timed out after {after:?}")]
    Timeout {
        /// The operation, e.g. `get`.
        operation: Operation,
        /// The timeout that passed.
        after: Duration,
    },
    /// None of the client's gateway addresses could be connected to.
    #[error("no Thrift2 gateway reachable (tried {tried}): {last}")]
    Unreachable {
        /// The addresses tried.
        tried: String,
        /// The last connection error.
        #[source]
        last: Box<Error>,
    },
    /// The client was shut down ([`Client::shutdown`](crate::Client::shutdown)): its
    /// pool hands out no more connections.
    #[error("the client was shut down")]
    ClientClosed,
    /// The gateway failed while processing the call (a `TApplicationException` such as
    /// "Internal error processing openScanner"): the request reached it and was
    /// understood as a call, so this is not a transport mismatch.
    #[error("the gateway at {addr} failed processing {operation} ({kind}): {message}{}", hint.map(|h| format!(" ({h})")).unwrap_or_default())]
    ServerInternal {
        /// The gateway's address.
        addr: String,
        /// The operation, e.g. `open_scanner`.
        operation: Operation,
        /// The exception's kind, e.g. `InternalError`.
        kind: String,
        /// The gateway's message.
        message: String,
        /// What probably caused it, when the client can tell (e.g. a malformed filter).
        hint: Option<&'static str>,
    },
    /// A write failed after its request may have reached HBase: a call that is never
    /// retried automatically (increment, append, check-and-mutate) failed once sent, or
    /// a retried put or delete had an attempt sent and never answered. The write may or
    /// may not have been applied. Read the row before trying again.
    #[error("{operation} may or may not have been applied: {source}")]
    WriteOutcomeUnknown {
        /// The operation, e.g. `increment`.
        operation: Operation,
        /// What failed.
        #[source]
        source: Box<Error>,
    },
    /// A scan page failed the client's checks (a row outside the scan's range or out of
    /// order) more than once in a row; no row of such a page was delivered.
    #[error("scan of {table} got rows that are not its own from {addr}: {message}")]
    ScanIntegrity {
        /// The gateway's address.
        addr: String,
        /// The table scanned.
        table: String,
        /// What was wrong.
        message: String,
    },
    /// A batched write failed part-way: `confirmed` rows were written; the rows in
    /// `not_confirmed` were not confirmed. Its first `in_doubt` entries may have been
    /// written: a failing call that named no row (through the gateway, whose answer is
    /// for the whole call: HBase applies it row by row, so a chunk that fails on one
    /// row's unknown family still writes the others), or writes whose reply was lost.
    /// The rest were not written: never sent, or refused by HBase each with its own
    /// answer (native RPC). Chunks run
    /// concurrently, so confirmed rows need not be a prefix of the batch: every row
    /// not in `not_confirmed` was written.
    #[error(
        "batch failed: {confirmed} rows confirmed written, {in_doubt} rows may or may not have been written, {} rows not written: {source}",
        not_confirmed.len().saturating_sub(*in_doubt)
    )]
    BatchFailed {
        /// Rows known to be written (the chunks that succeeded).
        confirmed: usize,
        /// Row keys not known to be written: those in doubt first, then those not
        /// written.
        not_confirmed: Vec<Bytes>,
        /// How many of `not_confirmed` (its first entries) were sent and may have been
        /// written.
        in_doubt: usize,
        /// Why the chunk failed.
        #[source]
        source: Box<Error>,
    },
}

impl Error {
    /// The Java class of the exception HBase raised, when the error is one and the
    /// transport named it (see [`Error::Server`]).
    pub fn exception_class(&self) -> Option<&str> {
        match self {
            Error::Server { exception, .. } => exception.as_deref(),
            Error::WriteOutcomeUnknown { source, .. } | Error::BatchFailed { source, .. } => source.exception_class(),
            Error::InvalidInput(_)
            | Error::TableNotFound { .. }
            | Error::NamespaceNotFound { .. }
            | Error::AlreadyExists { .. }
            | Error::NoSuchColumnFamily { .. }
            | Error::ScannerExpired { .. }
            | Error::IllegalArgument { .. }
            | Error::Busy { .. }
            | Error::Transport { .. }
            | Error::Protocol { .. }
            | Error::DroppedBeforeReply { .. }
            | Error::Timeout { .. }
            | Error::Unreachable { .. }
            | Error::ClientClosed
            | Error::ServerInternal { .. }
            | Error::ScanIntegrity { .. } => None,
        }
    }

    /// The transport's own failure behind this error, if a connection or a reply
    /// failed (also inside [`Error::Unreachable`], [`Error::BatchFailed`] and
    /// [`Error::WriteOutcomeUnknown`]); its
    /// [`security_error`](TransportFailure::security_error) names a TLS or Kerberos
    /// failure on either transport.
    pub fn transport_failure(&self) -> Option<&TransportFailure> {
        match self {
            Error::Transport { source, .. }
            | Error::Protocol { source, .. }
            | Error::DroppedBeforeReply { source, .. } => Some(source),
            Error::Unreachable { last: source, .. }
            | Error::BatchFailed { source, .. }
            | Error::WriteOutcomeUnknown { source, .. } => source.transport_failure(),
            Error::InvalidInput(_)
            | Error::TableNotFound { .. }
            | Error::NamespaceNotFound { .. }
            | Error::AlreadyExists { .. }
            | Error::NoSuchColumnFamily { .. }
            | Error::ScannerExpired { .. }
            | Error::IllegalArgument { .. }
            | Error::Server { .. }
            | Error::Busy { .. }
            | Error::Timeout { .. }
            | Error::ClientClosed
            | Error::ServerInternal { .. }
            | Error::ScanIntegrity { .. } => None,
        }
    }

    /// Whether the same call may succeed if tried again: transport failures,
    /// timeouts, expired scanners and server errors HBase marks retryable.
    pub fn is_retryable(&self) -> bool {
        match self {
            // A reply over the size limit would be just as large the next time, and a
            // security or configuration failure fails the same way until someone acts.
            Error::Transport { source, .. } => source.is_retryable(),
            Error::Unreachable { last, .. } => !last.is_final(),
            Error::Timeout { .. }
            | Error::DroppedBeforeReply { .. }
            | Error::ScannerExpired { .. }
            | Error::ScanIntegrity { .. } => true,
            Error::Server { can_retry, .. } => *can_retry,
            Error::Busy { .. } => true,
            Error::BatchFailed { source, .. } => source.is_retryable(),
            Error::InvalidInput(_)
            | Error::TableNotFound { .. }
            | Error::NamespaceNotFound { .. }
            | Error::AlreadyExists { .. }
            | Error::NoSuchColumnFamily { .. }
            | Error::IllegalArgument { .. }
            | Error::Protocol { .. }
            | Error::ClientClosed
            | Error::ServerInternal { .. }
            | Error::WriteOutcomeUnknown { .. } => false,
        }
    }

    /// Whether the failure looks like an outage: no connection to the gateway could
    /// be made (refused or timed out, as while it restarts), no gateway could be
    /// reached, or a new connection was accepted and dropped before any reply by an
    /// address that answered this client before ([`Error::DroppedBeforeReply`], a load
    /// balancer whose gateway restarts). Such failures are retried for the whole retry
    /// budget. (Any other connection dropped during a call is retryable but not an
    /// outage: a reset mid-reply, or a transport mismatch, which drops every new
    /// connection of a client that never got an answer, must fail fast.)
    pub fn is_outage(&self) -> bool {
        match self {
            Error::Transport { source, .. } => source.is_outage(),
            Error::Timeout { operation: Operation::Connect, .. } => true,
            Error::Unreachable { last, .. } => !last.is_final(),
            Error::DroppedBeforeReply { .. } => true,
            Error::BatchFailed { source, .. } => source.is_outage(),
            Error::Timeout { .. }
            | Error::InvalidInput(_)
            | Error::TableNotFound { .. }
            | Error::NamespaceNotFound { .. }
            | Error::AlreadyExists { .. }
            | Error::NoSuchColumnFamily { .. }
            | Error::ScannerExpired { .. }
            | Error::IllegalArgument { .. }
            | Error::Server { .. }
            | Error::Busy { .. }
            | Error::Protocol { .. }
            | Error::ClientClosed
            | Error::ServerInternal { .. }
            | Error::WriteOutcomeUnknown { .. }
            | Error::ScanIntegrity { .. } => false,
        }
    }

    /// Whether the failure is the configuration's or the credentials' (a certificate
    /// that is not trusted, a bad TLS setting, no Kerberos ticket, Kerberos not built
    /// in, HTTP 401/403): trying again fails the same way until someone acts, so it is
    /// never retried.
    pub fn is_final(&self) -> bool {
        match self {
            Error::Transport { source, .. } => source.is_final(),
            Error::Unreachable { last, .. } => last.is_final(),
            Error::BatchFailed { source, .. } => source.is_final(),
            Error::InvalidInput(_)
            | Error::TableNotFound { .. }
            | Error::NamespaceNotFound { .. }
            | Error::AlreadyExists { .. }
            | Error::NoSuchColumnFamily { .. }
            | Error::IllegalArgument { .. }
            | Error::Protocol { .. }
            | Error::ClientClosed
            | Error::ServerInternal { .. }
            | Error::WriteOutcomeUnknown { .. }
            | Error::Timeout { .. }
            | Error::DroppedBeforeReply { .. }
            | Error::ScannerExpired { .. }
            | Error::ScanIntegrity { .. }
            | Error::Busy { .. }
            | Error::Server { .. } => false,
        }
    }

    /// Whether the failed call may have changed data on the server: true for
    /// [`Error::WriteOutcomeUnknown`] and for a [`Error::BatchFailed`] with rows in doubt.
    pub fn may_have_written(&self) -> bool {
        match self {
            Error::WriteOutcomeUnknown { .. } => true,
            Error::BatchFailed { in_doubt, .. } => *in_doubt > 0,
            Error::InvalidInput(_)
            | Error::TableNotFound { .. }
            | Error::NamespaceNotFound { .. }
            | Error::AlreadyExists { .. }
            | Error::NoSuchColumnFamily { .. }
            | Error::ScannerExpired { .. }
            | Error::IllegalArgument { .. }
            | Error::Server { .. }
            | Error::Busy { .. }
            | Error::Transport { .. }
            | Error::Protocol { .. }
            | Error::DroppedBeforeReply { .. }
            | Error::Timeout { .. }
            | Error::Unreachable { .. }
            | Error::ClientClosed
            | Error::ServerInternal { .. }
            | Error::ScanIntegrity { .. } => false,
        }
    }

    /// Adds the hint for a gateway failure on a call that carried a filter string: HBase
    /// parses filter strings inside the handler, so a malformed one surfaces as an
    /// internal error.
    pub(crate) fn with_filter_hint(mut self, has_filter: bool) -> Error {
        if let Error::ServerInternal { hint: hint @ None, .. } = &mut self {
            if has_filter {
                *hint = Some(
                    "the call carried a filter string: it is probably malformed; check its syntax (the gateway's log has the parser's message)",
                );
            }
        }
        self
    }
}

impl From<basalt_rowkey::KeyError> for Error {
    fn from(e: basalt_rowkey::KeyError) -> Error {
        Error::InvalidInput(InvalidInput::Key(e))
    }
}

/// Why a cursor was refused (inside [`InvalidInput::Cursor`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CursorError {
    /// The text is not a cursor token (bad syntax, bad hex, a length out of bounds).
    #[error("malformed cursor token: {0}")]
    Malformed(&'static str),
    /// A token of another version (v1 tokens carried no signature; start the query over).
    #[error("unsupported cursor version {found:?} (this library reads v2; start the query over)")]
    Version {
        /// The version field found (at most 16 bytes of it, lossily decoded).
        found: String,
    },
    /// The cursor was made by another query or table (its fingerprint or its number of
    /// ranges differs).
    #[error("the cursor belongs to another query or table")]
    OtherQuery,
    /// The tag does not verify: the token was altered, or it was issued under another
    /// [`CursorKey`](crate::CursorKey) (e.g. by another process when no key is configured).
    #[error("the cursor's signature does not verify: it was altered or issued under another cursor key")]
    Signature,
    /// A position lies outside its planned range (or is empty).
    #[error("the cursor's position for range {range} lies outside that range")]
    OutOfRange {
        /// Index of the range in the plan.
        range: usize,
    },
    /// A cursor key file ([`CursorKey::load_or_create`](crate::CursorKey::load_or_create)) could not be read, created or
    /// understood.
    #[error("cursor key file {path}: {reason}")]
    KeyFile {
        /// The file.
        path: String,
        /// What went wrong.
        reason: String,
    },
}

impl From<CursorError> for Error {
    fn from(e: CursorError) -> Error {
        Error::InvalidInput(InvalidInput::Cursor(e))
    }
}

impl From<crate::site::SiteError> for Error {
    fn from(e: crate::site::SiteError) -> Error {
        Error::InvalidInput(InvalidInput::Site(e))
    }
}

impl From<crate::filter::FilterError> for Error {
    fn from(e: crate::filter::FilterError) -> Error {
        Error::InvalidInput(InvalidInput::Filter(e))
    }
}

/// Results of Basalt calls.
pub type Result<T, E = Error> = std::result::Result<T, E>;
