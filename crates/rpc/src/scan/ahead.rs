//! A scanner's next page, asked for while the current one is read.
//!
//! A region server serves one scanner's calls one after another, and between two calls
//! it waits for the client: for the reply to travel, for its cells to be read into
//! rows, and for the next request. On a long scan that wait is a large part of each
//! page's time. So as soon as a reply's header says its region has more rows, the
//! [`Scanner`](crate::Scanner) sends the next request (same scanner, the next
//! `next_call_seq`), and only then reads the reply's cells. The
//! server works on the next page while the client reads this one; the calls on the
//! scanner still never overlap, and at most one page waits here beyond those handed
//! out.

use std::sync::Arc;
use std::time::Instant;

use tokio::task::JoinHandle;

use crate::builder::RpcClient;
use crate::conn::Reply;
use crate::error::RpcError;
use crate::lease::Lease;
use crate::pb;

/// The call of a scanner's next page, already sent.
#[derive(Debug)]
pub(super) struct PageAhead {
    call: JoinHandle<Result<Reply, RpcError>>,
    server: String,
}

impl PageAhead {
    /// Sends `request` to `server` from a task of its own, which holds the scanner's
    /// lease gate while the call is out and lets it go when the reply arrives (so a
    /// renewal neither overlaps the call nor waits for a slow reader). The caller then
    /// yields once: the task, and the connection's writer it wakes, run on this thread
    /// before the caller goes on reading the current reply, so the request is on its
    /// way first.
    pub(super) async fn send(
        client: &RpcClient,
        server: &str,
        request: pb::ScanRequest,
        lease: Arc<Lease>,
    ) -> PageAhead {
        let client = client.clone();
        let addr = server.to_owned();
        let call = tokio::spawn(async move {
            let mut last_used = lease.gate().await;
            let reply = client.call(&addr, "Scan", &request, None).await;
            *last_used = Instant::now();
            reply
        });
        tokio::task::yield_now().await;
        PageAhead { call, server: server.to_owned() }
    }

    /// The call's reply. A task lost before it answered (its runtime shut down) is a
    /// failed connection: the page may or may not have been read, and the scan reopens
    /// after its last row delivered.
    pub(super) async fn reply(self) -> Result<Reply, RpcError> {
        match self.call.await {
            Ok(reply) => reply,
            Err(lost) => Err(RpcError::ConnectionFailed {
                addr: self.server,
                reason: format!("the call of the page asked for ahead was lost: {lost}"),
            }),
        }
    }
}
