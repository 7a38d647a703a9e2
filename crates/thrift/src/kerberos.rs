//! Kerberos settings of a connection, present in every build.
//!
//! The Kerberos transports themselves (SASL GSSAPI on the socket, SPNEGO over HTTP)
//! load the system's GSSAPI library at run time (`basalt-gssapi`; on Debian the package
//! `libgssapi-krb5-2`) and are built only with the cargo feature `kerberos`, which
//! needs nothing beyond Rust to build. Without the feature these
//! options still exist, so code that sets them compiles the same either way; a
//! connection that asks for Kerberos then fails at once with
//! [`SecureError::KerberosNotBuilt`](crate::SecureError::KerberosNotBuilt), which names
//! the feature. [`KERBEROS_SUPPORTED`] says which build this is.

/// Whether this build of `basalt-thrift` can speak Kerberos (the cargo feature
/// `kerberos`). Without it, a connection with [`Security::kerberos`](crate::Security)
/// set fails with [`SecureError::KerberosNotBuilt`](crate::SecureError::KerberosNotBuilt).
pub const KERBEROS_SUPPORTED: bool = cfg!(feature = "kerberos");

/// Quality of protection of a Kerberos connection (`hbase.thrift.security.qop`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum Qop {
    /// Authentication only: messages travel as they are.
    #[default]
    Auth,
    /// Authentication and integrity: every message is signed.
    AuthInt,
    /// Authentication, integrity and confidentiality: every message is encrypted.
    AuthConf,
}

impl Qop {
    /// The SASL name: `auth`, `auth-int`, `auth-conf`.
    pub fn as_str(self) -> &'static str {
        match self {
            Qop::Auth => "auth",
            Qop::AuthInt => "auth-int",
            Qop::AuthConf => "auth-conf",
        }
    }
}

impl std::str::FromStr for Qop {
    type Err = String;
    fn from_str(s: &str) -> Result<Qop, String> {
        match s {
            "auth" | "authentication" => Ok(Qop::Auth),
            "auth-int" | "integrity" => Ok(Qop::AuthInt),
            "auth-conf" | "privacy" => Ok(Qop::AuthConf),
            other => Err(format!("unknown quality of protection '{other}': use auth, auth-int or auth-conf")),
        }
    }
}

/// Kerberos settings of a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KerberosOptions {
    /// The weakest quality of protection accepted; the strongest the server offers at
    /// or above it is used. Default: auth.
    pub qop: Qop,
    /// Service part of the server principal. Default: `hbase` (`HTTP` over HTTP).
    pub service: String,
    /// Host part of the server principal; default: the host of the address.
    pub server_host: Option<String>,
    /// Client principal whose ticket to use; default: the ticket cache's principal.
    pub principal: Option<String>,
}

impl Default for KerberosOptions {
    fn default() -> Self {
        KerberosOptions { qop: Qop::Auth, service: "hbase".to_owned(), server_host: None, principal: None }
    }
}

impl KerberosOptions {
    /// The target service name `service@host` for GSSAPI.
    pub(crate) fn target(&self, host: &str) -> String {
        format!("{}@{}", self.service, self.server_host.as_deref().unwrap_or(host))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qop_names_and_order() {
        assert_eq!("auth-conf".parse::<Qop>(), Ok(Qop::AuthConf));
        assert_eq!("integrity".parse::<Qop>(), Ok(Qop::AuthInt));
        assert!("none".parse::<Qop>().is_err());
        assert!(Qop::AuthConf > Qop::AuthInt && Qop::AuthInt > Qop::Auth);
    }

    #[test]
    fn the_target_is_service_at_host() {
        let options = KerberosOptions::default();
        assert_eq!(options.target("gw.example.com"), "hbase@gw.example.com");
        let options = KerberosOptions { server_host: Some("h".into()), service: "HTTP".into(), ..options };
        assert_eq!(options.target("ignored"), "HTTP@h");
    }
}
