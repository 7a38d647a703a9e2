//! Stands in for the Kerberos transports (`sasl.rs`) in a build without the cargo
//! feature `kerberos`: the same functions, each refusing with
//! [`SecureError::KerberosNotBuilt`], so the callers need no conditional code.

use crate::kerberos::KerberosOptions;
use crate::secure::SecureError;

/// Would run the SASL GSSAPI negotiation; this build has no GSSAPI.
pub(crate) async fn negotiate<S>(
    _stream: S,
    _host: &str,
    _options: &KerberosOptions,
    _max_frame: usize,
) -> Result<S, SecureError> {
    Err(SecureError::KerberosNotBuilt)
}

/// Would make a SPNEGO token; this build has no GSSAPI.
pub(crate) fn spnego_token(_options: &KerberosOptions, _target: &str) -> Result<String, SecureError> {
    Err(SecureError::KerberosNotBuilt)
}
