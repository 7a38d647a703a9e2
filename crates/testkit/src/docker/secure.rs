//! Secured gateways in the container (TLS through stunnel, HTTP(S), Kerberos against the
//! run's KDC), as the native launcher makes them, and what the client on the host needs
//! of them.
//!
//! The launcher in the container writes `/data/gateway-NAME.env` with paths inside the
//! container. The files a client reads (the CA files, the client keytab, the ticket
//! cache, `krb5.conf`) are copied to a host directory of the container, and the
//! `krb5.conf` copy names the KDC by its published host port: the ticket cache's TGT
//! came from that KDC, and the client asks it for service tickets through the
//! published port (TCP only: the run's `krb5.conf` sets `udp_preference_limit = 1`).
//! The server principal's host part stays the container's host name, as the gateway
//! sees itself; the client names it explicitly, so no DNS is involved.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{stop_gateway, GatewaySlots, RUN_DIR};
use crate::TestkitError;

/// A started secured gateway: its host address, how long it took, and its env.
type SecureStarted = (String, Duration, Vec<(String, String)>);

/// Keys of the env file whose values are files the client reads.
const FILE_KEYS: [&str; 3] = ["CA", "OTHER_CA", "CLIENT_KEYTAB"];

impl GatewaySlots {
    /// Starts a secured gateway in the container (`extra`: `--tls`, `--http`,
    /// `--kerberos QOP`) and returns its host address, how long it took, and its env
    /// file's `KEY=VALUE` pairs with the client's files copied to the host. The gateway
    /// is stopped again when that copy fails.
    pub(crate) fn start_secure(
        &self,
        framed: bool,
        compact: bool,
        name: &str,
        extra: &[String],
    ) -> Result<SecureStarted, TestkitError> {
        let (addr, ready_in) = self.start_with(framed, compact, name, extra)?;
        match self.client_env(name) {
            Ok(env) => Ok((addr, ready_in, env)),
            Err(e) => {
                if let Some(Err(stop)) = stop_gateway(name) {
                    eprintln!("basalt-testkit: {stop}");
                }
                Err(e)
            }
        }
    }

    /// The gateway's env file, with container paths replaced by host copies.
    fn client_env(&self, name: &str) -> Result<Vec<(String, String)>, TestkitError> {
        let text = self.read_file(&format!("{RUN_DIR}/gateway-{name}.env"))?;
        let text = String::from_utf8(text)
            .map_err(|e| TestkitError::StartFailed(format!("gateway-{name}.env in the container is not UTF-8: {e}")))?;
        std::fs::create_dir_all(&self.files)?;
        let mut env = crate::secure::parse_env(&text);
        for (key, value) in env.iter_mut() {
            if value.is_empty() {
                continue;
            }
            if FILE_KEYS.contains(&key.as_str()) {
                *value = self.copy_out(value, None)?.display().to_string();
            } else if key == "KRB5_CONFIG" {
                *value = self.copy_out(value, Some(self.kdc_host_port))?.display().to_string();
            } else if key == "KRB5CCNAME" {
                let path = value.strip_prefix("FILE:").ok_or_else(|| {
                    TestkitError::StartFailed(format!("gateway {name}: a ticket cache that is not a file: {value}"))
                })?;
                *value = format!("FILE:{}", self.copy_out(path, None)?.display());
            }
        }
        Ok(env)
    }

    /// Copies a file out of the container into the host directory under its own name
    /// (atomically: gateways start in parallel); a `krb5.conf` gets the KDC's host port.
    fn copy_out(&self, container_path: &str, kdc_host_port: Option<u16>) -> Result<PathBuf, TestkitError> {
        let file_name = Path::new(container_path)
            .file_name()
            .ok_or_else(|| TestkitError::StartFailed(format!("no file name in {container_path}")))?;
        let mut bytes = self.read_file(container_path)?;
        if let Some(port) = kdc_host_port {
            let text = String::from_utf8(bytes)
                .map_err(|e| TestkitError::StartFailed(format!("{container_path} is not UTF-8: {e}")))?;
            bytes = kdc_on_host_port(&text, port).into_bytes();
        }
        let target = self.files.join(file_name);
        let staging = self.files.join(format!(
            ".{}.{}.{:?}",
            file_name.to_string_lossy(),
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::write(&staging, bytes)?;
        std::fs::rename(&staging, &target)?;
        Ok(target)
    }

    /// A file of the container (`docker exec cat`).
    fn read_file(&self, path: &str) -> Result<Vec<u8>, TestkitError> {
        let out = self.engine.cli().args(["exec", &self.id, "cat", path]).output()?;
        if !out.status.success() {
            return Err(TestkitError::StartFailed(format!(
                "reading {path} in container {}: {}",
                self.id,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(out.stdout)
    }
}

/// A `krb5.conf` whose `kdc = HOST:PORT` lines name the KDC at `127.0.0.1:port`.
fn kdc_on_host_port(krb5_conf: &str, port: u16) -> String {
    let mut out = String::with_capacity(krb5_conf.len() + 8);
    for line in krb5_conf.lines() {
        let is_kdc = line.split_once('=').is_some_and(|(key, _)| key.trim() == "kdc");
        if is_kdc {
            let indent = &line[..line.len() - line.trim_start().len()];
            out.push_str(&format!("{indent}kdc = 127.0.0.1:{port}"));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kdc_is_named_by_its_published_port() {
        let conf = "[libdefaults]\n default_realm = BASALT.TEST\n udp_preference_limit = 1\n[realms]\n BASALT.TEST = \
                    {\n  kdc = 127.0.0.1:9088\n }\n[domain_realm]\n localhost = BASALT.TEST\n";
        let host = kdc_on_host_port(conf, 32771);
        assert!(host.contains("\n  kdc = 127.0.0.1:32771\n"), "{host}");
        assert!(!host.contains("9088"));
        assert!(host.contains(" default_realm = BASALT.TEST\n udp_preference_limit = 1\n"));
        assert_eq!(host.lines().count(), conf.lines().count());
    }
}
