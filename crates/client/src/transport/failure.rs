//! What failed below the client's core ([`TransportFailure`]), typed by the transport
//! that saw it, and how the core judges it: final, retryable, an outage.

// Every decision lists the kinds it decides on: a new kind fails to build until it is
// placed.
#![deny(clippy::wildcard_enum_match_arm)]

use basalt_rpc::RpcError;
use basalt_thrift::{CallError, ReplyError, SecureError};

/// A connection's or a call's failure, in the words of the transport that carried it:
/// the source of [`Error::Transport`](crate::Error::Transport),
/// [`Error::Protocol`](crate::Error::Protocol) and
/// [`Error::DroppedBeforeReply`](crate::Error::DroppedBeforeReply).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportFailure {
    /// A Thrift2 gateway's connection or call failed.
    #[error("{0}")]
    Gateway(#[source] CallError),
    /// A native RPC connection or call failed (a region server's or the master's).
    #[error("{0}")]
    Native(#[source] RpcError),
    /// A well-formed reply that does not answer its request (fewer rows than gets, an
    /// increment without its counter), whichever transport carried it.
    #[error("the reply does not answer the request: {0}")]
    Unanswered(String),
}

impl TransportFailure {
    /// Whether the failure is the configuration's or the credentials' (an untrusted
    /// certificate, no Kerberos ticket, HTTP 401/403): it fails the same way until
    /// someone acts.
    pub fn is_final(&self) -> bool {
        match self {
            TransportFailure::Gateway(CallError::Secure(secure)) => is_final_security(secure),
            TransportFailure::Native(RpcError::Security { error, .. }) => is_final_security(error),
            TransportFailure::Gateway(
                CallError::Connect { .. }
                | CallError::ConnectTimeout { .. }
                | CallError::Io(_)
                | CallError::Closed
                | CallError::Reply(ReplyError::TooLarge { .. })
                | CallError::Reply(ReplyError::Malformed(_))
                | CallError::Reply(ReplyError::Encode(_))
                | CallError::Reply(ReplyError::Application { .. })
                | CallError::Reply(ReplyError::Server { .. })
                | CallError::Reply(ReplyError::IllegalArgument { .. })
                | CallError::ConnectionUnusable,
            )
            | TransportFailure::Native(
                RpcError::Connect { .. }
                | RpcError::ConnectionFailed { .. }
                | RpcError::Timeout { .. }
                | RpcError::Remote(_)
                | RpcError::Protocol { .. }
                | RpcError::Bootstrap(_)
                | RpcError::RegionNotFound { .. }
                | RpcError::RegionUnavailable(_)
                | RpcError::RetriesExhausted { .. }
                | RpcError::InvalidArgument(_),
            )
            | TransportFailure::Unanswered(_) => false,
        }
    }

    /// Whether the same call may succeed on another connection: a reply over the size
    /// limit would be as large the next time, and a final failure fails the same way.
    pub fn is_retryable(&self) -> bool {
        match self {
            TransportFailure::Gateway(CallError::Reply(ReplyError::TooLarge { .. }))
            | TransportFailure::Unanswered(_) => false,
            TransportFailure::Gateway(_) => !self.is_final(),
            TransportFailure::Native(native) => native.is_retryable() && !self.is_final(),
        }
    }

    /// Whether no connection could be made at all (refused, or not within the connect
    /// timeout), as while a server restarts.
    pub fn is_outage(&self) -> bool {
        match self {
            TransportFailure::Gateway(CallError::Connect { .. } | CallError::ConnectTimeout { .. })
            | TransportFailure::Native(RpcError::Connect { .. }) => true,
            TransportFailure::Gateway(
                CallError::Io(_)
                | CallError::Closed
                | CallError::Reply(ReplyError::TooLarge { .. })
                | CallError::Reply(ReplyError::Malformed(_))
                | CallError::Reply(ReplyError::Encode(_))
                | CallError::Reply(ReplyError::Application { .. })
                | CallError::Reply(ReplyError::Server { .. })
                | CallError::Reply(ReplyError::IllegalArgument { .. })
                | CallError::ConnectionUnusable
                | CallError::Secure(_),
            )
            | TransportFailure::Native(
                RpcError::ConnectionFailed { .. }
                | RpcError::Timeout { .. }
                | RpcError::Remote(_)
                | RpcError::Protocol { .. }
                | RpcError::Bootstrap(_)
                | RpcError::RegionNotFound { .. }
                | RpcError::RegionUnavailable(_)
                | RpcError::RetriesExhausted { .. }
                | RpcError::InvalidArgument(_)
                | RpcError::Security { .. },
            )
            | TransportFailure::Unanswered(_) => false,
        }
    }

    /// The TLS, Kerberos or HTTP failure inside, on either transport (a handshake's,
    /// or a secured stream's).
    pub fn security_error(&self) -> Option<&SecureError> {
        match self {
            TransportFailure::Gateway(call) => SecureError::of(call),
            TransportFailure::Native(rpc) => SecureError::of(rpc),
            TransportFailure::Unanswered(_) => None,
        }
    }

    /// The gateway's failure, when the gateway carried the call.
    pub fn gateway(&self) -> Option<&CallError> {
        match self {
            TransportFailure::Gateway(call) => Some(call),
            TransportFailure::Native(_) | TransportFailure::Unanswered(_) => None,
        }
    }

    /// Native RPC's failure, when native RPC carried the call.
    pub fn native(&self) -> Option<&RpcError> {
        match self {
            TransportFailure::Native(rpc) => Some(rpc),
            TransportFailure::Gateway(_) | TransportFailure::Unanswered(_) => None,
        }
    }
}

impl From<CallError> for TransportFailure {
    fn from(call: CallError) -> TransportFailure {
        TransportFailure::Gateway(call)
    }
}

impl From<RpcError> for TransportFailure {
    fn from(rpc: RpcError) -> TransportFailure {
        TransportFailure::Native(rpc)
    }
}

/// Whether a connection could not be secured for its settings or credentials, which no
/// retry repairs.
fn is_final_security(secure: &SecureError) -> bool {
    match secure {
        SecureError::UntrustedCertificate { .. }
        | SecureError::CertificateExpired { .. }
        | SecureError::HostNameMismatch { .. }
        | SecureError::TlsConfig(_)
        | SecureError::NoTicket { .. }
        | SecureError::TicketExpired { .. }
        | SecureError::QopMismatch { .. }
        | SecureError::KerberosNotBuilt
        | SecureError::GssapiLibraryMissing { .. }
        // The server said no to these credentials, or does not use Kerberos at all.
        | SecureError::SaslRefused { .. }
        | SecureError::ServerNotSecure { .. } => true,
        SecureError::HttpStatus { status, .. } => matches!(status, 401 | 403),
        // A handshake cut short, a KDC or SASL exchange that failed, an HTTP failure:
        // possibly the network's, retried like other transport failures.
        SecureError::Tls { .. }
        | SecureError::Gssapi(_)
        | SecureError::Sasl { .. }
        | SecureError::HandshakeTimeout { .. }
        | SecureError::Http { .. } => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_transport_judges_its_own_failures() {
        let refused = TransportFailure::Native(RpcError::Connect { addr: "rs:1".into(), reason: "refused".into() });
        assert!(refused.is_outage() && refused.is_retryable() && !refused.is_final());
        let cut = TransportFailure::Native(RpcError::ConnectionFailed { addr: "rs:1".into(), reason: "reset".into() });
        assert!(!cut.is_outage() && cut.is_retryable());
        let garbled = TransportFailure::Native(RpcError::Protocol { addr: "rs:1".into(), reason: "bad".into() });
        assert!(!garbled.is_retryable());
        let closed = TransportFailure::Gateway(CallError::Closed);
        assert!(closed.is_retryable() && !closed.is_outage());
        let large = TransportFailure::Gateway(CallError::Reply(ReplyError::TooLarge { limit: 1, declared: None }));
        assert!(!large.is_retryable());
        let no_ticket = TransportFailure::Gateway(CallError::Secure(SecureError::KerberosNotBuilt));
        assert!(no_ticket.is_final() && !no_ticket.is_retryable());
        assert!(TransportFailure::Native(RpcError::Security {
            addr: "rs:1".into(),
            error: SecureError::KerberosNotBuilt
        })
        .is_final());
        assert!(!TransportFailure::Unanswered("x".into()).is_retryable());
        assert!(closed.gateway().is_some() && closed.native().is_none() && cut.native().is_some());
        // The transport's own error is the next in the chain (callers walk it to find
        // a TLS or Kerberos failure).
        let source = std::error::Error::source(&no_ticket).and_then(|e| e.downcast_ref::<CallError>());
        assert!(matches!(source, Some(CallError::Secure(SecureError::KerberosNotBuilt))));
        let native_tls = TransportFailure::Native(RpcError::RetriesExhausted {
            attempts: 2,
            last: Box::new(RpcError::Security { addr: "rs:1".into(), error: SecureError::KerberosNotBuilt }),
            may_have_run: false,
        });
        assert!(matches!(native_tls.security_error(), Some(SecureError::KerberosNotBuilt)));
        assert!(matches!(no_ticket.security_error(), Some(SecureError::KerberosNotBuilt)));
        assert!(cut.security_error().is_none());
    }
}
