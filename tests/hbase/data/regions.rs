//! Regions moving and splitting under load (issue 14): the suite's HBase runs two
//! region servers in its master JVM, and the launcher's `RegionTool.java` (through
//! `Env::region_tool`) moves every region of a salted table to the other server and
//! splits buckets while a merged salted scan and batched writes run through Basalt.
//! The scan must return exactly the table's rows, in order; every acknowledged write
//! must be readable.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::gateway::chaos::{salted_fixture, user_schema};
use crate::support::regions::{unreadable_salted, without_the_writes, LoadEnd, SaltedLoad};
use crate::support::tally::Tally;
use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![regions_move_and_split_under_a_merged_scan_and_writes]
}

/// The region tool process (the launcher's `RegionTool.java`): one command line in, one
/// answer line out. Shared by the tests that move, split or list regions.
pub(crate) struct RegionTool {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl RegionTool {
    /// Starts the tool against the test bed's HBase and waits until it is ready.
    pub(crate) fn start(env: &Env) -> Result<RegionTool, String> {
        RegionTool::spawn(env.region_tool().map_err(|e| e.to_string())?)
    }

    /// Starts the tool with `cmd` (an HBase's `region_tool()` command) and waits until
    /// it is ready.
    pub(crate) fn spawn(mut cmd: std::process::Command) -> Result<RegionTool, String> {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start the region tool: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut tool = RegionTool { child, stdin, stdout };
        let ready = tool.read_line()?;
        if ready != "ok ready" {
            return Err(format!("the region tool did not start: {ready:?}"));
        }
        Ok(tool)
    }

    /// The next answer line ("RT ..."), skipping HBase's log lines.
    fn read_line(&mut self) -> Result<String, String> {
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).map_err(|e| e.to_string())?;
            if n == 0 {
                return Err("the region tool exited".into());
            }
            if let Some(answer) = line.trim().strip_prefix("RT ") {
                return Ok(answer.to_owned());
            }
        }
    }

    /// Sends one command; the text after `ok `, or the tool's error.
    pub(crate) fn call(&mut self, command: &str) -> Result<String, String> {
        writeln!(self.stdin, "{command}").and_then(|_| self.stdin.flush()).map_err(|e| e.to_string())?;
        let answer = self.read_line()?;
        match answer.strip_prefix("ok") {
            Some(rest) => Ok(rest.trim().to_owned()),
            None => Err(format!("{command}: {answer}")),
        }
    }
}

impl Drop for RegionTool {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        for _ in 0..50 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs a region-tool command off the async runtime.
pub(crate) async fn tool_call(tool: &Arc<Mutex<RegionTool>>, command: String) -> Result<String, String> {
    let tool = tool.clone();
    tokio::task::spawn_blocking(move || match tool.lock() {
        Ok(mut t) => t.call(&command),
        Err(_) => Err("the region tool's lock was poisoned".into()),
    })
    .await
    .map_err(|e| e.to_string())?
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

async fn regions_move_and_split_under_a_merged_scan_and_writes(env: Env) -> TestResult {
    let (name, expected) = salted_fixture(&env, 20_000, 51).await?;
    let tool = Arc::new(Mutex::new(
        tokio::task::spawn_blocking({
            let env = env.clone();
            move || RegionTool::start(&env)
        })
        .await??,
    ));
    let servers = tool_call(&tool, "servers".into()).await?;
    if servers.split_whitespace().count() < 2 {
        return Err(format!("the test HBase should run two region servers, it runs: {servers}").into());
    }
    let before = tool_call(&tool, format!("regions {name}")).await?.split_whitespace().count();

    // A merged scan, read at a steady pace so that it spans the moves and splits, and
    // batched writes into the same table (users "zz...", outside the scan's truth).
    let salted = env.client().table(&name)?.salted(user_schema());
    let load = SaltedLoad::start(&salted, 0);

    // Move every region to the other server, split four buckets, move again.
    tokio::time::sleep(Duration::from_secs(2)).await;
    tool_call(&tool, "balancer off".into()).await?;
    let moved_first: u64 = tool_call(&tool, format!("move {name}")).await?.parse().unwrap_or(0);
    let mut splits = 0;
    for bucket in [2u8, 5, 9, 13] {
        let mut at = vec![bucket];
        at.extend_from_slice(b"u01500");
        tool_call(&tool, format!("split {name} {}", hex(&at))).await?;
        splits += 1;
    }
    let moved_second: u64 = tool_call(&tool, format!("move {name}")).await?.parse().unwrap_or(0);
    let after = tool_call(&tool, format!("regions {name}")).await?.split_whitespace().count();
    tool_call(&tool, "balancer on".into()).await?;
    let LoadEnd { scan, acked, failures: write_failures } = load.stop(Duration::from_secs(120)).await?;
    // The scan's truth is the table's first 20,000 rows; the writer's rows may or may
    // not appear (they were written during the scan) and are left out.
    let mut tally = Tally::default();
    tally.add(&expected, &without_the_writes(&expected, scan));
    let unreadable = unreadable_salted(&salted, &acked).await?;
    eprintln!(
        "chaos figures: regions {before} -> {after} ({moved_first} + {moved_second} moves, {splits} splits) during a \
         merged scan and writes: {}; writes acknowledged {}, unreadable {unreadable}, failed batches {}",
        tally.report("merged salted scan"),
        acked.len(),
        write_failures.len()
    );
    drop(tool);
    env.client().admin().delete_table(&name).await?;
    if after <= before {
        return Err(format!("the splits did not happen: {before} regions before, {after} after").into());
    }
    tally.check("merged salted scan while regions move and split")?;
    if unreadable > 0 || !write_failures.is_empty() {
        return Err(format!(
            "{unreadable} acknowledged writes unreadable, {} batches failed: {:?}",
            write_failures.len(),
            write_failures.first()
        )
        .into());
    }
    Ok(())
}
