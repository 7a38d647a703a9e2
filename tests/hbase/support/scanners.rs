//! Whether dropped scans close their scanners on the server, seen from a gateway of
//! the test's own (every scanner id on it is the test's): shared by `chaos` (plain and
//! merged scans dropped) and `parallel_scan` (region-parallel scans dropped).
//!
//! The probe must run within the server's scanner lease (4 s on the test bed), or a
//! leaked scanner would have expired by itself and the test could not fail.

use std::time::Duration;

use basalt_testkit::Gateway;
use basalt_thrift::Connection;

use crate::gateway::chaos::{start_gateway, stop_gateway, tscan};
use crate::support::{Env, TestResult};

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// A gateway of the test's own and the last scanner id opened on it before the scans
/// under test.
pub(crate) struct ScannerProbe {
    gateway: Gateway,
    first: i32,
}

/// What the probe found after the scans were dropped.
pub(crate) struct LeftOpen {
    /// How many scanner ids were opened between the probe's first and its control.
    pub(crate) opened: i32,
    /// The ids of those still answering on the server.
    pub(crate) still_open: Vec<i32>,
}

impl ScannerProbe {
    /// Starts a gateway of the test's own, opens and closes one scanner on `table` to
    /// mark where the scans' ids begin, and checks that a closed id answers an error
    /// (else the probe could not tell an open scanner from a closed one).
    pub(crate) async fn start(env: &Env, table: &str) -> Result<ScannerProbe, Failure> {
        let gateway = start_gateway(env).await?;
        let mut raw = Connection::connect(gateway.addr(), env.options()).await?;
        let first = raw.open_scanner(table.as_bytes().to_vec(), tscan(10)).await?;
        raw.close_scanner(first).await?;
        if raw.get_scanner_rows(first, 1).await.is_ok() {
            return Err("a closed scanner id still answers: the probe cannot tell".into());
        }
        Ok(ScannerProbe { gateway, first })
    }

    /// The gateway's address, for the clients whose scans are dropped.
    pub(crate) fn addr(&self) -> &str {
        self.gateway.addr()
    }

    /// From a fresh connection (the first may have passed the gateway's idle timeout),
    /// opens a control scanner on `table`, which must come more than `at_least` ids
    /// after the first (the dropped scans' scanners, `whose`) and answer rows; then
    /// lists the ids in between still open on the server and closes the control.
    pub(crate) async fn left_open(
        &self,
        env: &Env,
        table: &str,
        at_least: i32,
        whose: &str,
    ) -> Result<LeftOpen, Failure> {
        let first = self.first;
        let mut raw = Connection::connect(self.gateway.addr(), env.options()).await?;
        // The control: opened after the drops, left open; it answers rows.
        let control = raw.open_scanner(table.as_bytes().to_vec(), tscan(10)).await?;
        if control <= first + at_least {
            return Err(format!("expected {whose} scanners between ids {first} and {control}").into());
        }
        if raw.get_scanner_rows(control, 1).await?.is_empty() {
            return Err("the open control scanner answered no row".into());
        }
        let still_open = scanners_still_open(&mut raw, first + 1..control).await;
        let _ = raw.close_scanner(control).await;
        Ok(LeftOpen { opened: control - first - 1, still_open })
    }

    /// Stops the gateway.
    pub(crate) async fn stop(self) -> TestResult {
        stop_gateway(self.gateway).await
    }
}

/// The scanner ids of `ids` that still answer on the server, probed for up to 1.6 s
/// (closing is asynchronous: dropped scans' workers close their scanners). A probe
/// renews a leaked scanner's lease, so a leak stays visible.
async fn scanners_still_open(raw: &mut Connection, ids: std::ops::Range<i32>) -> Vec<i32> {
    let mut still_open: Vec<i32> = ids.collect();
    for _ in 0..8 {
        let mut open = Vec::new();
        for id in still_open {
            if raw.get_scanner_rows(id, 1).await.is_ok() {
                open.push(id);
            }
        }
        still_open = open;
        if still_open.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    still_open
}
