//! Where the Thrift2 gateway is, and the client built from that.

use std::time::Duration;

use basalt::{Client, DefaultRetryPolicy, Framing, Protocol, RetryDecision, RetryPolicy};
use clap::builder::BoolishValueParser;
use clap::Args;

use crate::error::{is_unreachable, CliError, CliResult};
use crate::keyfmt::parse_duration;

/// Options every command takes to reach HBase.
#[derive(Debug, Clone, Args)]
pub struct ConnOpts {
    /// Thrift2 gateway address, host:port.
    #[arg(long, env = "BASALT_THRIFT_ADDR", global = true, value_name = "HOST:PORT")]
    pub addr: Option<String>,
    /// The gateway uses the framed transport (server's -f).
    #[arg(long, env = "BASALT_THRIFT_FRAMED", global = true, value_parser = BoolishValueParser::new())]
    pub framed: bool,
    /// The gateway uses the compact protocol (server's -c).
    #[arg(long, env = "BASALT_THRIFT_COMPACT", global = true, value_parser = BoolishValueParser::new())]
    pub compact: bool,
    /// How long connecting may take (500ms, 5s, ...).
    #[arg(long, global = true, default_value = "5s", value_parser = parse_duration, value_name = "DURATION")]
    pub connect_timeout: Duration,
    /// How long one call may take.
    #[arg(long, global = true, default_value = "60s", value_parser = parse_duration, value_name = "DURATION")]
    pub request_timeout: Duration,
}

/// Retries like the default policy, except that a gateway that cannot be connected to
/// fails at once: a CLI should say "unreachable" within the connect timeout.
#[derive(Debug, Default)]
struct CliRetry(DefaultRetryPolicy);

impl RetryPolicy for CliRetry {
    fn decide(&self, attempt: u32, error: &basalt::Error) -> RetryDecision {
        if is_unreachable(error) {
            return RetryDecision::Fail;
        }
        self.0.decide(attempt, error)
    }
}

impl ConnOpts {
    /// The address, or a usage error saying how to give one.
    pub fn require_addr(&self) -> CliResult<&str> {
        self.addr.as_deref().filter(|a| !a.trim().is_empty()).ok_or_else(|| {
            CliError::usage(
                "no HBase address: pass --addr HOST:PORT or set BASALT_THRIFT_ADDR (or run `basalt local start`)",
            )
        })
    }

    /// A client for [`ConnOpts::require_addr`] with `pool` connections.
    pub fn client(&self, pool: usize) -> CliResult<Client> {
        let addr = self.require_addr()?;
        client_for(addr, self.framed, self.compact, self.connect_timeout, self.request_timeout, pool)
    }
}

/// A client for one gateway.
pub fn client_for(
    addr: &str,
    framed: bool,
    compact: bool,
    connect_timeout: Duration,
    request_timeout: Duration,
    pool: usize,
) -> CliResult<Client> {
    Client::builder()
        .address(addr)
        .framing(if framed { Framing::Framed } else { Framing::Buffered })
        .protocol(if compact { Protocol::Compact } else { Protocol::Binary })
        .connect_timeout(connect_timeout)
        .request_timeout(request_timeout)
        .pool_size(pool.max(1))
        .retry_policy(CliRetry::default())
        .build()
        .map_err(CliError::from)
}
