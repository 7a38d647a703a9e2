//! The CLI's error: a one-line message and an exit code.

use std::fmt;
use std::process::ExitCode;

use basalt_thrift::CallError;

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

/// Whether a client error means the gateway could not be reached at all.
pub fn is_unreachable(e: &basalt::Error) -> bool {
    match e {
        basalt::Error::NoGateway { .. } => true,
        basalt::Error::Timeout { operation, .. } => *operation == "connect",
        basalt::Error::Transport { source, .. } => {
            matches!(source, CallError::Connect { .. } | CallError::ConnectTimeout { .. })
        }
        basalt::Error::BatchFailed { source, .. } => is_unreachable(source),
        _ => false,
    }
}

impl From<basalt::Error> for CliError {
    fn from(e: basalt::Error) -> CliError {
        use basalt::Error as E;
        if is_unreachable(&e) {
            return CliError::unreachable(format!(
                "HBase is unreachable: {e} (start one with `basalt local start`, or check --addr / BASALT_THRIFT_ADDR)"
            ));
        }
        match &e {
            E::InvalidInput(_) | E::TableNotFound { .. } | E::NamespaceNotFound { .. } => {
                CliError::usage(e.to_string())
            }
            E::NoSuchColumnFamily { .. } | E::AlreadyExists { .. } | E::IllegalArgument { .. } => {
                CliError::usage(e.to_string())
            }
            E::Protocol { .. } => CliError::failed(format!(
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
