//! `basalt local start --secure MODE`: a secured Thrift2 gateway beside the local HBase
//! (TLS, HTTP(S), Kerberos against a KDC made for the run), started by the launcher
//! (`hbase-local.sh gateway start --tls --http --kerberos QOP`, see `crates/testkit/launcher/secure.sh`).

use std::path::Path;
use std::process::{Command, Stdio};

use crate::error::{CliError, CliResult};

/// Which security the local secured gateway gets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecureSpec {
    /// TLS (HTTPS with `http`).
    pub tls: bool,
    /// Thrift over HTTP.
    pub http: bool,
    /// Kerberos quality of protection: auth, auth-int or auth-conf.
    pub qop: Option<String>,
}

impl SecureSpec {
    /// The gateway's name in the run directory.
    fn name(&self) -> String {
        let mut name = String::from("secure");
        if self.http {
            name.push_str("-http");
        }
        if self.tls {
            name.push_str("-tls");
        }
        if let Some(q) = &self.qop {
            name.push_str("-krb-");
            name.push_str(q);
        }
        name
    }
}

/// Parses `tls`, `http`, `https`, `kerberos[=QOP]` joined by commas, e.g.
/// `https,kerberos=auth-conf`.
pub fn parse_secure(text: &str) -> Result<SecureSpec, String> {
    let mut spec = SecureSpec::default();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part {
            "tls" => spec.tls = true,
            "http" => spec.http = true,
            "https" => {
                spec.http = true;
                spec.tls = true;
            }
            "kerberos" => spec.qop = Some("auth".to_owned()),
            other => match other.strip_prefix("kerberos=") {
                Some(q @ ("auth" | "auth-int" | "auth-conf")) => spec.qop = Some(q.to_owned()),
                _ => {
                    return Err(format!(
                        "unknown security '{other}': use tls, http, https, kerberos or kerberos=auth|auth-int|auth-conf"
                    ))
                }
            },
        }
    }
    if spec == SecureSpec::default() {
        return Err("--secure needs at least one of tls, http, https, kerberos".to_owned());
    }
    Ok(spec)
}

/// Starts (or finds) the secured gateway for `spec` against the HBase running from
/// `dir`; returns its address and the shell line that points the CLI at it.
pub fn start(dir: &Path, script: &Path, spec: &SecureSpec, framed: bool, compact: bool) -> CliResult<(String, String)> {
    let name = spec.name();
    let addr_file = dir.join(format!("gateway-{name}.addr"));
    if !addr_file.exists() {
        let mut cmd = Command::new("bash");
        cmd.arg(script).args(["gateway", "start", "--name", &name, "--dir"]).arg(dir);
        if spec.tls {
            cmd.arg("--tls");
        }
        if spec.http {
            cmd.arg("--http");
        }
        if let Some(q) = &spec.qop {
            cmd.args(["--kerberos", q]);
        }
        if framed {
            cmd.arg("--framed");
        }
        if compact {
            cmd.arg("--compact");
        }
        eprintln!("starting the secured gateway {name} (a KDC too, for Kerberos)...");
        let out = cmd.stdin(Stdio::null()).output()?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let why = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no output");
            return Err(CliError::failed(format!("the secured gateway did not start: {}", why.trim())));
        }
    }
    let addr = std::fs::read_to_string(&addr_file)
        .map_err(|e| CliError::failed(format!("reading {}: {e}", addr_file.display())))?
        .trim()
        .to_owned();
    let env_file = dir.join(format!("gateway-{name}.env"));
    let env = std::fs::read_to_string(&env_file)
        .map_err(|e| CliError::failed(format!("reading {}: {e}", env_file.display())))?;
    let value = |key: &str| {
        env.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix('=')).map(str::trim).filter(|v| !v.is_empty())
    };
    let mut hint = format!("export BASALT_THRIFT_ADDR={addr}");
    if spec.tls {
        hint.push_str(" BASALT_TLS=1");
        if let Some(ca) = value("CA") {
            hint.push_str(&format!(" BASALT_CA={ca}"));
        }
        if let Some(host) = value("TLS_HOST") {
            hint.push_str(&format!(" BASALT_TLS_SERVER_NAME={host}"));
        }
    }
    if spec.http {
        hint.push_str(" BASALT_HTTP=1");
    }
    if let Some(q) = &spec.qop {
        hint.push_str(&format!(" BASALT_KERBEROS={q}"));
        for (key, var) in
            [("KRB5_CONFIG", "KRB5_CONFIG"), ("KRB5CCNAME", "KRB5CCNAME"), ("SERVER_HOST", "BASALT_KRB_HOST")]
        {
            if let Some(v) = value(key) {
                hint.push_str(&format!(" {var}={v}"));
            }
        }
    }
    Ok((addr, hint))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_secure_modes() {
        assert_eq!(parse_secure("tls").unwrap(), SecureSpec { tls: true, http: false, qop: None });
        let spec = parse_secure("https,kerberos=auth-conf").unwrap();
        assert_eq!(spec, SecureSpec { tls: true, http: true, qop: Some("auth-conf".into()) });
        assert_eq!(spec.name(), "secure-http-tls-krb-auth-conf");
        assert_eq!(parse_secure("kerberos").unwrap().qop.as_deref(), Some("auth"));
        assert!(parse_secure("kerberos=none").is_err());
        assert!(parse_secure("ssl").is_err());
        assert!(parse_secure("").is_err());
    }
}
