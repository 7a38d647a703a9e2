//! The client's security settings on the native transport. Both transports take the
//! same `basalt-security` settings and report the same errors, so only what cannot
//! apply to HBase's native RPC is sorted out here:
//!
//! - `tls` and `kerberos` go to every server as they are (HBase 2.6's
//!   `hbase.server.netty.tls.enabled`; SASL GSSAPI with the same qualities of
//!   protection as on the gateway).
//! - `http` says how a gateway is reached; the native transport has no HTTP, so it is
//!   refused when the client has no gateway for it to apply to.

use basalt_thrift::Security;

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
    Ok(basalt_rpc::Security { tls: security.tls.clone(), kerberos: security.kerberos.clone() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{KerberosOptions, Qop, TlsOptions};

    #[test]
    fn settings_carry_over_and_http_needs_a_gateway() {
        let tls = TlsOptions::with_ca_file("/ca.pem").server_name("rs").client_cert("/c", "/k");
        let kerberos = KerberosOptions { qop: Qop::AuthInt, ..Default::default() };
        let security = Security { tls: Some(tls.clone()), kerberos: Some(kerberos.clone()), http: None };
        let native = rpc_security(&security, false).unwrap();
        assert_eq!((native.tls, native.kerberos), (Some(tls), Some(kerberos)));
        let http = Security { http: Some(basalt_thrift::HttpOptions::default()), ..Security::default() };
        assert!(rpc_security(&http, false).is_err());
        assert!(rpc_security(&http, true).unwrap().is_plain());
    }
}
