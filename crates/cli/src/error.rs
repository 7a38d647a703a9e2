//! The CLI's error: a one-line message and an exit code.

use std::fmt;
use std::process::ExitCode;

use basalt::{CallError, TransportFailure};

/// Exit code of a runtime failure (HBase refused, a demo check failed).
pub const EXIT_FAILURE: u8 = 1;
/// Exit code of bad usage or bad input (arguments, schema files, unknown tables).
pub const EXIT_USAGE: u8 = 2;
/// Exit code when no HBase Thrift2 gateway can be reached.
pub const EXIT_UNREACHABLE: u8 = 3;

/// A failed command: what to print and how to exit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    /// The exit code ([`EXIT_FAILURE`], [`EXIT_USAGE`] or [`EXIT_UNREACHABLE`]).
    pub code: u8,
    /// The message, printed on one line.
    pub message: String,
}

impl CliError {
    /// Bad usage or input (exit 2).
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError { code: EXIT_USAGE, message: message.into() }
    }

    /// A runtime failure (exit 1).
    pub fn failed(message: impl Into<String>) -> CliError {
        CliError { code: EXIT_FAILURE, message: message.into() }
    }

    /// HBase cannot be reached (exit 3).
    pub fn unreachable(message: impl Into<String>) -> CliError {
        CliError { code: EXIT_UNREACHABLE, message: message.into() }
    }

    /// Prints the error on one line to stderr and gives the exit code.
    pub fn report(&self) -> ExitCode {
        if self.message.is_empty() {
            return ExitCode::from(self.code);
        }
        let line: String = self.message.split_whitespace().collect::<Vec<_>>().join(" ");
        eprintln!("basalt: error: {line}");
        ExitCode::from(self.code)
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Whether a client error means the gateway could not be reached at all, or did not
/// answer in time (a silent server, a transport mismatch that leaves the server
/// waiting for bytes that never come). The CLI does not retry these: the user's
/// `--connect-timeout` / `--request-timeout` is the bound.
pub fn is_unreachable(e: &basalt::Error) -> bool {
    is_not_connected(e) || is_not_answering(e)
}

/// The gateway could not be connected to.
fn is_not_connected(e: &basalt::Error) -> bool {
    match e {
        // A load balancer that accepts and drops every connection: its gateway is down.
        basalt::Error::Unreachable { .. } | basalt::Error::DroppedBeforeReply { .. } => true,
        basalt::Error::Timeout { operation, .. } => *operation == basalt::Operation::Connect,
        basalt::Error::Transport { source, .. } => source.is_outage(),
        basalt::Error::BatchFailed { source, .. } => is_not_connected(source),
        _ => false,
    }
}

/// The gateway took the call but sent no answer in time.
fn is_not_answering(e: &basalt::Error) -> bool {
    match e {
        basalt::Error::Timeout { operation, .. } => *operation != basalt::Operation::Connect,
        basalt::Error::Transport { source: TransportFailure::Gateway(CallError::Io(io)), .. } => {
            io.kind() == std::io::ErrorKind::TimedOut
        }
        basalt::Error::BatchFailed { source, .. } | basalt::Error::WriteOutcomeUnknown { source, .. } => {
            is_not_answering(source)
        }
        _ => false,
    }
}

/// Whether the failure is the gateway's own application error (an exception in its
/// handler, e.g. an unparsable filter string), which says nothing about the transport.
fn is_application_error(e: &basalt::Error) -> bool {
    match e {
        basalt::Error::ServerInternal { .. } => true,
        basalt::Error::Protocol { source, .. } => {
            matches!(source, TransportFailure::Gateway(CallError::Reply(basalt::ReplyError::Application { .. })))
        }
        basalt::Error::BatchFailed { source, .. } | basalt::Error::WriteOutcomeUnknown { source, .. } => {
            is_application_error(source)
        }
        _ => false,
    }
}

impl From<basalt::Error> for CliError {
    fn from(e: basalt::Error) -> CliError {
        use basalt::Error as E;
        if is_not_connected(&e) {
            return CliError::unreachable(format!(
                "HBase is unreachable: {e} (start one with `basalt local start`, or check --addr / BASALT_THRIFT_ADDR, and --native / BASALT_NATIVE)"
            ));
        }
        if is_not_answering(&e) {
            return CliError::unreachable(format!(
                "HBase is not answering: {e} (the gateway took the call but sent no reply in time; check that \
                 --framed / --compact match the Thrift2 server, or raise --request-timeout)"
            ));
        }
        if is_application_error(&e) {
            return CliError::failed(match &e {
                // Its message already says the gateway failed, and why when it can tell.
                E::ServerInternal { .. } => format!("{e} (the gateway's log has the cause)"),
                _ => format!("the gateway failed while handling the call: {e} (its log has the cause)"),
            });
        }
        match &e {
            E::InvalidInput(basalt::InvalidInput::Untranslatable { .. }) => {
                CliError::usage(format!("{e} (with the basalt command: --native SERVERS, or --native gateway)"))
            }
            E::InvalidInput(_) | E::TableNotFound { .. } | E::NamespaceNotFound { .. } => {
                CliError::usage(e.to_string())
            }
            E::NoSuchColumnFamily { .. } | E::AlreadyExists { .. } | E::IllegalArgument { .. } => {
                CliError::usage(e.to_string())
            }
            // Only a gateway's garbled reply hints at a framing mismatch.
            E::Protocol { source: TransportFailure::Gateway(_), .. } => CliError::failed(format!(
                "{e} (does the server use --framed / --compact? set them to match the Thrift2 server)"
            )),
            _ => CliError::failed(e.to_string()),
        }
    }
}

impl From<basalt_rowkey::KeyError> for CliError {
    fn from(e: basalt_rowkey::KeyError) -> CliError {
        CliError::usage(e.to_string())
    }
}

impl From<basalt_testkit::TestkitError> for CliError {
    fn from(e: basalt_testkit::TestkitError) -> CliError {
        CliError::failed(e.to_string())
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> CliError {
        CliError::failed(format!("I/O error: {e}"))
    }
}

/// Results of CLI commands.
pub type CliResult<T = ()> = Result<T, CliError>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timeouts_and_refusals_exit_3_application_errors_have_no_transport_hint() {
        let timeout = basalt::Error::Timeout { operation: basalt::Operation::Get, after: Duration::from_secs(2) };
        let cli = CliError::from(timeout);
        assert_eq!(cli.code, EXIT_UNREACHABLE);
        assert!(cli.message.contains("not answering"), "{}", cli.message);

        let refused = basalt::Error::Transport {
            addr: "h:1".into(),
            source: CallError::Connect { addr: "h:1".into(), source: std::io::ErrorKind::ConnectionRefused.into() }
                .into(),
        };
        assert_eq!(CliError::from(refused).code, EXIT_UNREACHABLE);

        let app = basalt::Error::Protocol {
            addr: "h:1".into(),
            source: CallError::Reply(basalt::ReplyError::Application {
                kind: "InternalError".into(),
                message: "bad filter".into(),
            })
            .into(),
        };
        let cli = CliError::from(app);
        assert_eq!(cli.code, EXIT_FAILURE);
        assert!(cli.message.contains("bad filter") && !cli.message.contains("--framed"), "{}", cli.message);

        let internal = basalt::Error::ServerInternal {
            addr: "h:1".into(),
            operation: basalt::Operation::OpenScanner,
            kind: "InternalError".into(),
            message: "Internal error processing openScanner".into(),
            hint: None,
        };
        let cli = CliError::from(internal);
        assert_eq!(cli.code, EXIT_FAILURE);
        assert!(!cli.message.contains("--framed"), "{}", cli.message);

        let garbled = basalt::Error::Protocol {
            addr: "h:1".into(),
            source: CallError::Reply(basalt::ReplyError::Malformed("bad".into())).into(),
        };
        assert!(CliError::from(garbled).message.contains("--framed"));
        let native = basalt::Error::Protocol {
            addr: "rs:1".into(),
            source: basalt::RpcError::Protocol { addr: "rs:1".into(), reason: "bad".into() }.into(),
        };
        assert!(!CliError::from(native).message.contains("--framed"));
        let refused = basalt::Error::Transport {
            addr: "rs:1".into(),
            source: basalt::RpcError::Connect { addr: "rs:1".into(), reason: "refused".into() }.into(),
        };
        assert_eq!(CliError::from(refused).code, EXIT_UNREACHABLE);
    }
}
