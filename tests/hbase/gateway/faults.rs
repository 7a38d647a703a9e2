//! The proxy's other faults against the real HBase (issue 14): connections that stall
//! (nothing more forwarded either way, sockets left open), connections whose replies
//! are dropped (requests still reach HBase and are applied, answers are thrown away),
//! and every chunk delayed. Through each: merged salted scans forward and reversed,
//! plain scans forward and reversed, `put_many` and `get_many`, each compared with the
//! ground truth. A stalled or dropped reply must end in the request timeout and a
//! retry or a reopen from the last key: never a hang, a lost, repeated or foreign row.

use std::time::Duration;

use basalt_chaos::Faults;

use crate::support::faults::{through_faults, ProxyTarget, WITHIN_BYTES};
use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![stalled_connections_time_out_and_reopen, dropped_replies_time_out_and_retry, delayed_chunks_change_nothing]
}

async fn stalled_connections_time_out_and_reopen(env: Env) -> TestResult {
    let faults = Faults { stall: 1.0, within_bytes: WITHIN_BYTES, ..Faults::none() };
    through_faults(&env, ProxyTarget::Gateway, faults, 71, "stalled connections", |s| s.stalls).await
}

async fn dropped_replies_time_out_and_retry(env: Env) -> TestResult {
    let faults = Faults { drop_replies: 1.0, within_bytes: WITHIN_BYTES, ..Faults::none() };
    through_faults(&env, ProxyTarget::Gateway, faults, 72, "dropped replies", |s| s.dropped).await
}

async fn delayed_chunks_change_nothing(env: Env) -> TestResult {
    let faults = Faults { delay: Duration::from_millis(3), ..Faults::none() };
    // Every chunk of every workload is delayed: count the bytes each moved.
    through_faults(&env, ProxyTarget::Gateway, faults, 73, "every chunk delayed 3 ms", |s| s.bytes_down).await
}
