//! The client's security settings on the native transport: the same [`Security`] the
//! gateways take, translated to `basalt-rpc`'s, and its failures translated back to the
//! gateways' [`SecureError`], so that callers handle both transports the same way.
//!
//! - `tls`: TLS to every server (HBase 2.6's `hbase.server.netty.tls.enabled`), with
//!   the same CA, server name and client certificate.
//! - `kerberos`: SASL GSSAPI to every server; the quality of protection is the weakest
//!   accepted, the strongest offered at or above it is used, as on the gateway.
//! - `http` says how a gateway is reached; the native transport has no HTTP, so it is
//!   refused when the client has no gateway for it to apply to.

// Every security failure is listed: a new one fails to build until it is placed.
#![deny(clippy::wildcard_enum_match_arm)]

use basalt_rpc::{QopChoice, SecurityError};
use basalt_thrift::{Qop, SecureError, Security};

use crate::error::InvalidInput;

/// `basalt-rpc`'s settings for the client's `security`; `has_gateway` says whether
/// gateways were given (for `http`).
pub(crate) fn rpc_security(security: &Security, has_gateway: bool) -> Result<basalt_rpc::Security, InvalidInput> {
    if security.http.is_some() && !has_gateway {
        return Err(InvalidInput::Option(
            "HTTP is how a Thrift2 gateway is reached; HBase's native RPC has no HTTP, and no gateway address was \
             given for it to apply to"
                .into(),
        ));
    }
    let tls = security.tls.as_ref().map(|tls| {
        let mut native = match tls.get_ca_file() {
            Some(ca) => basalt_rpc::TlsOptions::with_ca_file(ca),
            None => basalt_rpc::TlsOptions::default(),
        };
        if let Some(name) = tls.get_server_name() {
            native = native.server_name(name);
        }
        if let Some((cert, key)) = tls.get_client_cert() {
            native = native.client_cert(cert, key);
        }
        native
    });
    let kerberos = security.kerberos.as_ref().map(|krb| basalt_rpc::KerberosOptions {
        qop: QopChoice::AtLeast(match krb.qop {
            Qop::Auth => basalt_rpc::Qop::Auth,
            Qop::AuthInt => basalt_rpc::Qop::AuthInt,
            Qop::AuthConf => basalt_rpc::Qop::AuthConf,
        }),
        service: krb.service.clone(),
        server_host: krb.server_host.clone(),
        principal: krb.principal.clone(),
    });
    Ok(basalt_rpc::Security { tls, kerberos })
}

/// The gateways' error for a native security failure.
pub(crate) fn secure_error(error: &SecurityError) -> SecureError {
    match error.clone() {
        SecurityError::UntrustedCertificate { detail } => SecureError::UntrustedCertificate { detail },
        SecurityError::CertificateExpired { detail } => SecureError::CertificateExpired { detail },
        SecurityError::HostNameMismatch { name, detail } => SecureError::HostNameMismatch { name, detail },
        SecurityError::Tls { detail } => SecureError::Tls { detail },
        SecurityError::TlsConfig(detail) => SecureError::TlsConfig(detail),
        SecurityError::NoTicket { principal, detail } => SecureError::NoTicket { principal, detail },
        SecurityError::TicketExpired { principal, detail } => SecureError::TicketExpired { principal, detail },
        SecurityError::Gssapi(detail) => SecureError::Gssapi(detail),
        SecurityError::SaslRefused { .. } | SecurityError::ServerNotSecure { .. } | SecurityError::Sasl { .. } => {
            SecureError::Sasl { detail: error.to_string() }
        }
        SecurityError::QopMismatch { offered, wanted } => {
            SecureError::QopMismatch { offered, wanted: wanted.weakest().as_str() }
        }
        SecurityError::HandshakeTimeout { phase, addr, after } => SecureError::HandshakeTimeout { phase, addr, after },
        SecurityError::KerberosNotBuilt => SecureError::KerberosNotBuilt,
        SecurityError::GssapiLibraryMissing { detail } => SecureError::GssapiLibraryMissing { detail },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_translate_and_http_needs_a_gateway() {
        let security = Security {
            tls: Some(basalt_thrift::TlsOptions::with_ca_file("/ca.pem").server_name("rs").client_cert("/c", "/k")),
            kerberos: Some(basalt_thrift::KerberosOptions { qop: Qop::AuthInt, ..Default::default() }),
            http: None,
        };
        let native = rpc_security(&security, false).unwrap();
        let tls = native.tls.unwrap();
        assert_eq!(tls, basalt_rpc::TlsOptions::with_ca_file("/ca.pem").server_name("rs").client_cert("/c", "/k"));
        let krb = native.kerberos.unwrap();
        assert_eq!(krb.qop, QopChoice::AtLeast(basalt_rpc::Qop::AuthInt));
        assert_eq!(krb.service, "hbase");
        let http = Security { http: Some(basalt_thrift::HttpOptions::default()), ..Security::default() };
        assert!(rpc_security(&http, false).is_err());
        assert!(rpc_security(&http, true).unwrap().is_plain());
    }

    #[test]
    fn failures_keep_their_kind() {
        let e = secure_error(&SecurityError::QopMismatch {
            offered: "auth".into(),
            wanted: QopChoice::AtLeast(basalt_rpc::Qop::AuthConf),
        });
        assert_eq!(e, SecureError::QopMismatch { offered: "auth".into(), wanted: "auth-conf" });
        let e = secure_error(&SecurityError::ServerNotSecure { addr: "h:1".into() });
        assert!(matches!(&e, SecureError::Sasl { detail } if detail.contains("does not use Kerberos")), "{e}");
        assert_eq!(secure_error(&SecurityError::KerberosNotBuilt), SecureError::KerberosNotBuilt);
    }
}
