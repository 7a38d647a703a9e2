//! The one place that touches GSSAPI: a client context for SASL or SPNEGO, its errors
//! in the words of a [`SecurityError`], and wrap/unwrap.
//!
//! With the cargo feature `kerberos` this is `basalt-gssapi` (the system's library,
//! loaded at run time). Without it, [`GssContext`] is a type with no values: starting
//! one fails with [`SecurityError::KerberosNotBuilt`], so the code above it (the SASL
//! exchange, the wrapped stream) is the same in both builds and no GSSAPI code is
//! linked.

use crate::error::SecurityError;
use crate::kerberos::KerberosOptions;

/// What a context is for: it decides the flags asked of GSSAPI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// A SASL GSSAPI exchange with a security layer (mutual, sequenced, integrity and
    /// confidentiality available).
    Sasl,
    /// One SPNEGO token for an HTTP request (mutual authentication only).
    Spnego,
}

/// A message unwrapped by [`GssContext::unwrap`].
pub(crate) struct Unwrapped {
    /// The message.
    pub message: Vec<u8>,
    /// Whether it was encrypted (not only signed).
    pub encrypted: bool,
}

#[cfg(feature = "kerberos")]
mod built {
    use basalt_gssapi::{ClientContext, Flags, StartError};

    use super::{Purpose, Unwrapped};
    use crate::error::SecurityError;
    use crate::kerberos::KerberosOptions;

    /// A GSSAPI failure in the words of a [`SecurityError`]: a missing library names
    /// its package, an expired ticket says to run kinit, the rest say what was done.
    pub(crate) fn gss_error(what: &str, e: basalt_gssapi::Error) -> SecurityError {
        if e.is_library_missing() {
            SecurityError::GssapiLibraryMissing { detail: e.to_string() }
        } else if e.is_credentials_expired() {
            SecurityError::TicketExpired { principal: "the client".into(), detail: e.to_string() }
        } else {
            SecurityError::Gssapi(format!("{what}: {e}"))
        }
    }

    /// A Kerberos client context (the system's GSSAPI).
    pub(crate) struct GssContext(ClientContext);

    impl GssContext {
        /// A context for `target` with the credentials checked first, so that a missing
        /// or expired ticket gets its own error. Blocking: may read files.
        pub(crate) fn start(
            options: &KerberosOptions,
            target: &str,
            purpose: Purpose,
        ) -> Result<GssContext, SecurityError> {
            let flags = match purpose {
                Purpose::Sasl => Flags::MUTUAL | Flags::SEQUENCE | Flags::INTEG | Flags::CONF,
                Purpose::Spnego => Flags::MUTUAL,
            };
            ClientContext::for_service(options.principal.as_deref(), target, flags).map(GssContext).map_err(|e| match e
            {
                StartError::NoCredentials { principal, source } => {
                    SecurityError::NoTicket { principal, detail: source.to_string() }
                }
                StartError::Expired { principal, source } => {
                    SecurityError::TicketExpired { principal, detail: source.to_string() }
                }
                StartError::Other(source) => gss_error("starting a Kerberos context", source),
            })
        }

        /// One step of establishing the context; a failure names the server principal
        /// (the usual mistake). Blocking: the first step may ask the KDC for a ticket.
        pub(crate) fn step(&mut self, token: Option<&[u8]>, target: &str) -> Result<Option<Vec<u8>>, SecurityError> {
            self.0.step(token).map_err(|e| gss_error(&format!("establishing a Kerberos context with {target}"), e))
        }

        /// Whether the context is established.
        pub(crate) fn is_complete(&self) -> bool {
            self.0.is_complete()
        }

        /// Signs (and with `encrypt`, encrypts) one message.
        pub(crate) fn wrap(&mut self, encrypt: bool, message: &[u8]) -> Result<Vec<u8>, String> {
            self.0.wrap(encrypt, message).map_err(|e| e.to_string())
        }

        /// Verifies (and decrypts) one wrapped message.
        pub(crate) fn unwrap(&mut self, token: &[u8]) -> Result<Unwrapped, String> {
            let plain = self.0.unwrap(token).map_err(|e| e.to_string())?;
            Ok(Unwrapped { message: plain.message, encrypted: plain.encrypted })
        }
    }

    /// Base64, as an `Authorization: Negotiate` header carries a SPNEGO token.
    pub(crate) fn base64(token: &[u8]) -> String {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(token)
    }
}

#[cfg(not(feature = "kerberos"))]
mod built {
    use super::{Purpose, Unwrapped};
    use crate::error::SecurityError;
    use crate::kerberos::KerberosOptions;

    /// Stands in for a Kerberos client context in a build without the cargo feature
    /// `kerberos`: it has no values, so nothing below can run.
    pub(crate) enum GssContext {}

    impl GssContext {
        /// Refuses: this build has no GSSAPI.
        pub(crate) fn start(_: &KerberosOptions, _: &str, _: Purpose) -> Result<GssContext, SecurityError> {
            Err(SecurityError::KerberosNotBuilt)
        }

        /// Never called: no context exists.
        pub(crate) fn step(&mut self, _: Option<&[u8]>, _: &str) -> Result<Option<Vec<u8>>, SecurityError> {
            match *self {}
        }

        /// Never called: no context exists.
        pub(crate) fn is_complete(&self) -> bool {
            match *self {}
        }

        /// Never called: no context exists.
        pub(crate) fn wrap(&mut self, _: bool, _: &[u8]) -> Result<Vec<u8>, String> {
            match *self {}
        }

        /// Never called: no context exists.
        pub(crate) fn unwrap(&mut self, _: &[u8]) -> Result<Unwrapped, String> {
            match *self {}
        }
    }

    /// Never called: no SPNEGO token is made without a context.
    pub(crate) fn base64(_: &[u8]) -> String {
        String::new()
    }
}

pub(crate) use built::GssContext;

/// The value of an `Authorization` header (`Negotiate ...`) carrying a fresh SPNEGO
/// token for one HTTP request to the service `target` (`HTTP@host`). Blocking: it may
/// read files and ask the KDC; run it on a blocking thread.
pub fn spnego_header(options: &KerberosOptions, target: &str) -> Result<String, SecurityError> {
    let mut ctx = GssContext::start(options, target, Purpose::Spnego)?;
    let token = ctx.step(None, target)?.unwrap_or_default();
    Ok(format!("Negotiate {}", built::base64(&token)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "kerberos")]
    #[test]
    fn a_missing_gssapi_library_names_the_package() {
        let missing = basalt_gssapi::Error::LibraryMissing {
            tried: "libgssapi_krb5.so.2".into(),
            detail: "cannot open shared object file".into(),
        };
        let err = built::gss_error("credentials", missing);
        assert!(matches!(err, SecurityError::GssapiLibraryMissing { .. }), "{err:?}");
        assert!(err.to_string().contains(basalt_gssapi::DEBIAN_PACKAGE), "{err}");
    }

    #[cfg(not(feature = "kerberos"))]
    #[test]
    fn without_the_feature_kerberos_is_refused_naming_it() {
        let err = spnego_header(&KerberosOptions::default(), "HTTP@h").unwrap_err();
        assert_eq!(err, SecurityError::KerberosNotBuilt);
        assert!(err.to_string().contains("cargo feature `kerberos`"), "{err}");
    }
}
