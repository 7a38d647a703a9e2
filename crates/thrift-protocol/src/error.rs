//! Why a request could not be encoded or a reply not decoded.

use crate::hbase::{TIOError, TIllegalArgument};

/// Why a reply gave no value: it broke the protocol or a bound, or the server declared
/// a failure. Sockets add their own failures on top of these (`basalt-thrift`'s
/// `CallError`, which converts from this one variant for variant).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplyError {
    /// The reply is, or declares itself, larger than the configured maximum; nothing
    /// that large was buffered.
    #[error("reply larger than the maximum of {limit} bytes{}", declared.map(|d| format!(" (declared {d})")).unwrap_or_default())]
    TooLarge {
        /// The configured maximum.
        limit: usize,
        /// The length the reply announced, when it did (framed transport).
        declared: Option<usize>,
    },
    /// The reply does not follow the Thrift protocol, or declares more than it holds.
    #[error("protocol error: {0}")]
    Malformed(String),
    /// The request could not be encoded.
    #[error("cannot encode the request: {0}")]
    Encode(String),
    /// The server answered with a `TApplicationException`.
    #[error("server application error ({kind}): {message}")]
    Application {
        /// The exception's kind, e.g. `UnknownMethod` or `InternalError`.
        kind: String,
        /// The server's message.
        message: String,
    },
    /// HBase declared an I/O error (`TIOError`).
    #[error("HBase error: {message}")]
    Server {
        /// The server's message.
        message: String,
        /// The server's verdict on retrying, when given.
        can_retry: Option<bool>,
    },
    /// HBase rejected an argument (`TIllegalArgument`).
    #[error("HBase rejected an argument: {message}")]
    IllegalArgument {
        /// The server's message.
        message: String,
    },
}

/// The message of a decoding error (the `thrift` crate's `Display` of a protocol error
/// gives only its kind, "bad data", and drops the message that says what was wrong).
fn message_of(e: thrift::Error) -> String {
    match e {
        thrift::Error::Protocol(p) if !p.message.is_empty() => p.message,
        thrift::Error::Transport(t) if !t.message.is_empty() => t.message,
        other => other.to_string(),
    }
}

impl ReplyError {
    /// Maps an error of the message envelope (header, exception struct).
    pub(crate) fn from_decode(e: thrift::Error) -> ReplyError {
        ReplyError::Malformed(message_of(e))
    }

    /// Maps the error of a generated `read_from_in_protocol` + `ok_or`.
    pub(crate) fn from_thrift(e: thrift::Error) -> ReplyError {
        match e {
            thrift::Error::User(boxed) => match boxed.downcast::<TIOError>() {
                Ok(io) => ReplyError::Server { message: io.message.unwrap_or_default(), can_retry: io.can_retry },
                Err(boxed) => match boxed.downcast::<TIllegalArgument>() {
                    Ok(ia) => ReplyError::IllegalArgument { message: ia.message.unwrap_or_default() },
                    Err(other) => ReplyError::Malformed(format!("unexpected exception: {other}")),
                },
            },
            thrift::Error::Application(app) => {
                ReplyError::Application { kind: format!("{:?}", app.kind), message: app.message }
            }
            other => ReplyError::Malformed(message_of(other)),
        }
    }

    /// Whether the server declared this failure in a well-formed reply (the stream is
    /// still in step), as opposed to a reply that broke the protocol or a bound.
    pub fn is_declared(&self) -> bool {
        match self {
            ReplyError::Application { .. } | ReplyError::Server { .. } | ReplyError::IllegalArgument { .. } => true,
            ReplyError::TooLarge { .. } | ReplyError::Malformed(_) | ReplyError::Encode(_) => false,
        }
    }
}
