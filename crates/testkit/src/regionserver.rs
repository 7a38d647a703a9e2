//! Extra region servers against a launched HBase, each a JVM of its own, that a test
//! can kill (a crash: the master reassigns its regions once its ZooKeeper session
//! expires) and replace with a new one.
//!
//! The local cluster's own region servers are threads of the master's JVM: none of
//! them can crash alone, and none can come back once stopped. An extra one
//! (`hbase-local.sh regionserver start`) can do both, and when it is gone the test bed
//! still has the region servers it started with.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use crate::TestkitError;

/// Starts extra region servers against one launched HBase (natively or in its
/// container); get one from [`HBase::region_servers`](crate::HBase::region_servers).
#[derive(Debug, Clone)]
pub struct RegionServerLauncher {
    pub(crate) dir: PathBuf,
    pub(crate) heap: String,
    pub(crate) stop_with_process: bool,
    pub(crate) ready_timeout: Duration,
    /// Set when the HBase runs in a container: region servers start inside it.
    #[cfg(feature = "docker")]
    pub(crate) container: Option<crate::docker::GatewaySlots>,
}

/// An extra region server JVM. Dropping it stops it (TERM, then KILL), unless it was
/// killed already.
#[derive(Debug)]
pub struct RegionServer {
    name: String,
    server_name: String,
    ready_in: Duration,
    launcher: RegionServerLauncher,
    gone: bool,
}

impl RegionServerLauncher {
    /// The launcher's command: `bash hbase-local.sh` here, or through the container.
    fn command(&self) -> Result<Command, TestkitError> {
        #[cfg(feature = "docker")]
        if let Some(container) = &self.container {
            return Ok(container.launcher_exec());
        }
        let mut cmd = Command::new("bash");
        cmd.arg(crate::launcher::launcher_dir()?.join("hbase-local.sh"));
        Ok(cmd)
    }

    /// Whether the region servers run in a container (whose processes do not see ours).
    fn in_container(&self) -> bool {
        #[cfg(feature = "docker")]
        if self.container.is_some() {
            return true;
        }
        false
    }

    /// Starts a region server and waits until it serves. It joins the cluster at once:
    /// the master may assign new regions to it (the balancer of the test bed does not
    /// move existing ones).
    pub fn start(&self) -> Result<RegionServer, TestkitError> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let name = format!("x{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let started = Instant::now();
        let mut cmd = self.command()?;
        cmd.args(["regionserver", "start", "--name", &name, "--heap", &self.heap, "--dir"])
            .arg(&self.dir)
            .args(["--timeout", &self.ready_timeout.as_secs().max(1).to_string()]);
        if self.stop_with_process && !self.in_container() {
            cmd.args(["--owner-pid", &std::process::id().to_string()]);
        }
        let output = cmd.stdin(Stdio::null()).output()?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() {
            let why = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no output");
            return Err(TestkitError::StartFailed(why.trim_start_matches("hbase-local: ").to_owned()));
        }
        let server_name = String::from_utf8_lossy(&output.stdout)
            .lines()
            .rev()
            .find(|l| l.split(',').count() == 3)
            .map(|l| l.trim().to_owned())
            .ok_or_else(|| TestkitError::StartFailed(format!("the launcher printed no server name: {stderr}")))?;
        Ok(RegionServer { name, server_name, ready_in: started.elapsed(), launcher: self.clone(), gone: false })
    }
}

impl RegionServer {
    /// HBase's name of the server: `host,port,startcode`.
    pub fn server_name(&self) -> &str {
        &self.server_name
    }

    /// `host:port` of its RPC server.
    pub fn addr(&self) -> String {
        let mut parts = self.server_name.split(',');
        format!("{}:{}", parts.next().unwrap_or_default(), parts.next().unwrap_or_default())
    }

    /// How long it took from launching the JVM to serving.
    pub fn ready_in(&self) -> Duration {
        self.ready_in
    }

    /// Kills the JVM with SIGKILL: a crash, without closing a region or a socket
    /// politely. The master reassigns its regions after its ZooKeeper session expires
    /// (6 s) and its write-ahead logs are split.
    pub fn kill(&mut self) -> Result<(), TestkitError> {
        self.run("kill")
    }

    /// Pauses the JVM with SIGSTOP: it keeps its sockets open and answers nothing (a long
    /// GC pause). Its ZooKeeper session then expires and the master moves its regions.
    /// [`resume`](RegionServer::resume) it before stopping it.
    pub fn pause(&self) -> Result<(), TestkitError> {
        self.signal("pause")
    }

    /// Resumes a paused JVM (SIGCONT).
    pub fn resume(&self) -> Result<(), TestkitError> {
        self.signal("resume")
    }

    fn signal(&self, action: &str) -> Result<(), TestkitError> {
        let mut cmd = self.launcher.command()?;
        cmd.args(["regionserver", action, "--name", &self.name, "--dir"]).arg(&self.launcher.dir);
        let output = cmd.stdin(Stdio::null()).output()?;
        if !output.status.success() {
            return Err(TestkitError::StopFailed(String::from_utf8_lossy(&output.stderr).trim().to_owned()));
        }
        Ok(())
    }

    /// Stops the JVM by pid (TERM, then KILL): HBase closes its regions first.
    pub fn stop(&mut self) -> Result<(), TestkitError> {
        self.run("stop")
    }

    fn run(&mut self, action: &str) -> Result<(), TestkitError> {
        if self.gone {
            return Ok(());
        }
        let mut cmd = self.launcher.command()?;
        cmd.args(["regionserver", action, "--name", &self.name, "--dir"]).arg(&self.launcher.dir);
        let output = cmd.stdin(Stdio::null()).output()?;
        self.gone = true;
        if !output.status.success() {
            return Err(TestkitError::StopFailed(String::from_utf8_lossy(&output.stderr).trim().to_owned()));
        }
        Ok(())
    }
}

impl Drop for RegionServer {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            eprintln!("basalt-testkit: {e}");
        }
    }
}
