//! What every secured connect does around its handshakes: the host of an address, and
//! a time bound on each handshake.

use std::future::Future;
use std::time::Duration;

use crate::error::SecurityError;

/// The host part of `host:port` (brackets of an IPv6 literal removed): the name TLS
/// checks and Kerberos's default server host.
///
/// ```
/// assert_eq!(basalt_security::host_of("[::1]:16020"), "::1");
/// assert_eq!(basalt_security::host_of("rs1.example.com:16020"), "rs1.example.com");
/// ```
pub fn host_of(addr: &str) -> &str {
    let host = addr.rsplit_once(':').map_or(addr, |(h, _)| h);
    host.trim_start_matches('[').trim_end_matches(']')
}

/// Runs one handshake (`phase`: `TLS`, `SASL`, `HTTP`) with the server at `addr`,
/// failing with [`SecurityError::HandshakeTimeout`] when it does not finish within
/// `after`: a server that speaks something else fails instead of hanging.
pub async fn bounded<T>(
    phase: &'static str,
    addr: &str,
    after: Duration,
    work: impl Future<Output = Result<T, SecurityError>>,
) -> Result<T, SecurityError> {
    match tokio::time::timeout(after, work).await {
        Ok(result) => result,
        Err(_) => Err(SecurityError::HandshakeTimeout { phase, addr: addr.to_owned(), after }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_of_addresses() {
        assert_eq!(host_of("localhost:9090"), "localhost");
        assert_eq!(host_of("[::1]:9090"), "::1");
        assert_eq!(host_of("10.0.0.1:9090"), "10.0.0.1");
        assert_eq!(host_of("no-port"), "no-port");
    }

    #[tokio::test]
    async fn a_handshake_that_never_ends_is_a_timeout() {
        let never = std::future::pending::<Result<(), SecurityError>>();
        let err = bounded("TLS", "h:1", Duration::from_millis(20), never).await.unwrap_err();
        assert!(matches!(err, SecurityError::HandshakeTimeout { phase: "TLS", .. }), "{err}");
        assert_eq!(bounded("SASL", "h:1", Duration::from_secs(1), async { Ok(5) }).await, Ok(5));
    }
}
