//! Extra Thrift2 gateways against a launched HBase, and the JVMs' peak memory.
//!
//! HBase's Thrift2 server speaks one transport (buffered or framed) and one protocol
//! (binary or compact), fixed at start. To test a client against every combination,
//! [`HBase::start_gateway`](crate::HBase::start_gateway) starts one more Thrift2 server
//! JVM against the same running HBase (`hbase-local.sh gateway start`), on a free port.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use crate::launcher::{self, GatewaySpec};
use crate::TestkitError;

/// Starts extra gateways against one launched HBase. Cheap to clone and `Send`, so
/// several gateways can be started in parallel threads; get one from
/// [`HBase::gateways`](crate::HBase::gateways).
#[derive(Debug, Clone)]
pub struct GatewayLauncher {
    pub(crate) dir: PathBuf,
    pub(crate) heap: String,
    pub(crate) stop_with_process: bool,
    pub(crate) ready_timeout: Duration,
    /// Set when the HBase runs in a container: gateways start inside it.
    #[cfg(feature = "docker")]
    pub(crate) container: Option<crate::docker::GatewaySlots>,
}

impl GatewayLauncher {
    /// Starts a Thrift2 server with the given transport (`framed`: the server's `-f`)
    /// and protocol (`compact`: `-c`) and waits until a real call answers through it.
    /// The JVM is stopped when the returned [`Gateway`] is dropped, when the HBase is
    /// stopped, or (by a watchdog) when this process dies.
    pub fn start(&self, framed: bool, compact: bool) -> Result<Gateway, TestkitError> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let kind = match (framed, compact) {
            (false, false) => "bb",
            (true, false) => "fb",
            (false, true) => "bc",
            (true, true) => "fc",
        };
        let name = format!("{kind}-{}-{n}", std::process::id());
        #[cfg(feature = "docker")]
        if let Some(slots) = &self.container {
            // Stopped through the container (see `Gateway::stop`), by its unique name.
            let (addr, ready_in) = slots.start(framed, compact, &name)?;
            return Ok(Gateway { addr, framed, compact, ready_in, dir: self.dir.clone(), name, stopped: false });
        }
        let started = launcher::start_gateway(&GatewaySpec {
            dir: &self.dir,
            name: &name,
            framed,
            compact,
            heap: &self.heap,
            owner_pid: self.stop_with_process.then(std::process::id),
            timeout: self.ready_timeout,
            extra: &[],
        })?;
        Ok(Gateway {
            addr: started.addr,
            framed,
            compact,
            ready_in: started.ready_in,
            dir: self.dir.clone(),
            name,
            stopped: false,
        })
    }
}

/// An extra Thrift2 gateway JVM, stopped by pid when dropped.
#[derive(Debug)]
pub struct Gateway {
    addr: String,
    framed: bool,
    compact: bool,
    ready_in: Duration,
    dir: PathBuf,
    name: String,
    stopped: bool,
}

impl Gateway {
    /// A gateway the launcher has just started (used by the secure launcher).
    pub(crate) fn adopt(
        dir: PathBuf,
        name: String,
        started: launcher::Started,
        framed: bool,
        compact: bool,
    ) -> Gateway {
        Gateway { addr: started.addr, framed, compact, ready_in: started.ready_in, dir, name, stopped: false }
    }

    /// The gateway's `host:port`.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// Whether it uses the framed transport.
    pub fn framed(&self) -> bool {
        self.framed
    }

    /// Whether it uses the compact protocol.
    pub fn compact(&self) -> bool {
        self.compact
    }

    /// How long it took from launching the JVM to the first answered call.
    pub fn ready_in(&self) -> Duration {
        self.ready_in
    }

    /// Its name in the run directory (`gateway-NAME.pid`, `logs/gateway-NAME.log`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Stops the JVM (TERM, then KILL); later calls do nothing.
    pub fn stop(&mut self) -> Result<(), TestkitError> {
        if !self.stopped {
            self.stopped = true;
            #[cfg(feature = "docker")]
            if let Some(stopped) = crate::docker::stop_gateway(&self.name) {
                return stopped;
            }
            launcher::stop_gateway(&self.dir, &self.name)?;
        }
        Ok(())
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            eprintln!("basalt-testkit: {e}");
        }
    }
}

/// Peak resident memory (`VmHWM`, bytes) of each JVM of the run directory that is still
/// running: `master`, `thrift` and `gateway-NAME`. Linux only (empty elsewhere).
pub(crate) fn jvm_peak_rss(dir: &Path) -> Vec<(String, u64)> {
    let mut names = vec!["master".to_owned(), "thrift".to_owned()];
    let mut gateways: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter_map(|f| Some(f.strip_suffix(".pid")?.to_owned()))
                .filter(|f| f.starts_with("gateway-"))
                .collect()
        })
        .unwrap_or_default();
    gateways.sort();
    names.extend(gateways);
    names
        .into_iter()
        .filter_map(|name| {
            let pid = std::fs::read_to_string(dir.join(format!("{name}.pid"))).ok()?;
            let status = std::fs::read_to_string(format!("/proc/{}/status", pid.trim())).ok()?;
            Some((name, vm_hwm_bytes(&status)?))
        })
        .collect()
}

/// `VmHWM` of a `/proc/<pid>/status` text, in bytes.
fn vm_hwm_bytes(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_vm_hwm() {
        let status = "Name:\tjava\nVmPeak:\t 9000 kB\nVmHWM:\t  123456 kB\nVmRSS:\t 1000 kB\n";
        assert_eq!(vm_hwm_bytes(status), Some(123_456 * 1024));
        assert_eq!(vm_hwm_bytes("Name:\tjava\n"), None);
    }

    #[test]
    fn peak_rss_of_this_process_is_read() {
        let dir = std::env::temp_dir().join(format!("basalt-testkit-rss-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("master.pid"), std::process::id().to_string()).unwrap();
        std::fs::write(dir.join("gateway-x.pid"), std::process::id().to_string()).unwrap();
        let rss = jvm_peak_rss(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        if cfg!(target_os = "linux") {
            let names: Vec<&str> = rss.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(names, ["master", "gateway-x"]);
            assert!(rss.iter().all(|(_, bytes)| *bytes > 0));
        }
    }
}
