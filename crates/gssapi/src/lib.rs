//! Kerberos for Basalt through the system's GSSAPI library, loaded at run time.
//!
//! The library (MIT krb5's `libgssapi_krb5.so.2`, Debian's package `libgssapi-krb5-2`,
//! or Heimdal's `libgssapi.so.3`) is opened with `dlopen` the first time it is needed,
//! not linked when the program is built: building needs no GSSAPI headers, no
//! libclang and no pkg-config, and a program that never asks for Kerberos never loads
//! it. When it cannot be loaded, every call fails at once with
//! [`Error::LibraryMissing`], which names the package to install. The environment
//! variable [`LIBRARY_ENV`] names another library to load instead.
//!
//! The API covers what a Kerberos client of a Thrift gateway needs, nothing more:
//! - [`Name`]: a client principal (`user@REALM`) or a service (`service@host`);
//! - [`Credential`]: the client's Kerberos credentials, from the ticket cache
//!   (`KRB5CCNAME`) or, with MIT, the client keytab (`KRB5_CLIENT_KTNAME`), as the
//!   library finds them; `KRB5_CONFIG` names the configuration;
//! - [`ClientContext`]: `gss_init_sec_context` step by step (SASL GSSAPI, SPNEGO over
//!   HTTP), then [`wrap`](ClientContext::wrap) / [`unwrap`](ClientContext::unwrap)
//!   for the integrity and confidentiality layers;
//!   [`ClientContext::for_service`] starts one with the credentials checked first
//!   ([`StartError`] tells a missing or expired ticket apart);
//! - [`Error`]: the library's own words (`gss_display_status`) with the status codes.
//!
//! ```no_run
//! use basalt_gssapi::{ClientContext, Credential, Flags, Name, NameType};
//! # fn demo() -> Result<(), basalt_gssapi::Error> {
//! let credential = Credential::acquire(None)?; // the ticket cache's principal
//! let service = Name::new("hbase@gateway.example.com", NameType::HostBasedService)?;
//! let mut context = ClientContext::new(credential, service, Flags::MUTUAL | Flags::INTEG);
//! let first_token = context.step(None)?; // send it to the server, step with its answer
//! # let _ = first_token; Ok(()) }
//! ```

#![deny(unsafe_op_in_unsafe_fn)]

#[allow(unsafe_code)]
mod context;
mod library;
mod start;

pub use context::{ClientContext, Credential, Flags, Name, NameType, Unwrapped};
pub use library::{LIBRARY_ENV, LIBRARY_NAMES};
pub use start::StartError;

/// The Debian/Ubuntu package that provides the library (named in
/// [`Error::LibraryMissing`]).
pub const DEBIAN_PACKAGE: &str = "libgssapi-krb5-2";

/// Loads the library now (it is otherwise loaded on first use) and says which file
/// answered: a quick check that Kerberos can work on this machine.
pub fn load() -> Result<&'static str, Error> {
    library::api().map(|api| api.library.as_str())
}

/// `GSS_S_CREDENTIALS_EXPIRED`, a routine error of the major status.
const CREDENTIALS_EXPIRED: u32 = 11 << 16;
/// `GSS_S_NO_CRED`.
const NO_CRED: u32 = 7 << 16;

/// A GSSAPI failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The system's GSSAPI library could not be loaded.
    #[error(
        "Kerberos needs the system's GSSAPI library, which could not be loaded (tried {tried}: {detail}); \
         install it (Debian/Ubuntu: apt-get install libgssapi-krb5-2; Fedora/RHEL: dnf install krb5-libs), \
         or name it in BASALT_GSSAPI_LIBRARY"
    )]
    LibraryMissing {
        /// The libraries tried.
        tried: String,
        /// The loader's words.
        detail: String,
    },
    /// A library was loaded but lacks an entry point (it is not a GSSAPI library).
    #[error("the GSSAPI library {library} is unusable: {detail}")]
    LibraryUnusable {
        /// The library loaded.
        library: String,
        /// What is missing.
        detail: String,
    },
    /// A GSSAPI call failed.
    #[error("{call}: {message}")]
    Gss {
        /// The GSSAPI function, e.g. `gss_acquire_cred`.
        call: &'static str,
        /// Its major status (RFC 2744 routine and calling errors).
        major: u32,
        /// Its minor status (the Kerberos error code).
        minor: u32,
        /// The library's words for both (`gss_display_status`).
        message: String,
    },
    /// A wrapped message was not protected as the caller requires (e.g. not encrypted
    /// although confidentiality was negotiated).
    #[error("{0}")]
    Protection(String),
}

impl Error {
    /// Whether the failure is an expired credential (`GSS_S_CREDENTIALS_EXPIRED`).
    pub fn is_credentials_expired(&self) -> bool {
        matches!(self, Error::Gss { major, .. } if major & 0x00ff_0000 == CREDENTIALS_EXPIRED)
    }

    /// Whether the failure is missing credentials (`GSS_S_NO_CRED`): no ticket cache,
    /// or no ticket for the principal asked for.
    pub fn is_no_credentials(&self) -> bool {
        matches!(self, Error::Gss { major, .. } if major & 0x00ff_0000 == NO_CRED)
    }

    /// Whether the library itself is missing or unusable.
    pub fn is_library_missing(&self) -> bool {
        matches!(self, Error::LibraryMissing { .. } | Error::LibraryUnusable { .. })
    }
}

#[cfg(test)]
mod tests;
