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

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;
use std::time::Instant;

use crate::builder::RpcClient;
use crate::conn::Reply;
use crate::error::RpcError;
use crate::lease::Lease;
use crate::pb;

/// A call in flight.
type Call = Pin<Box<dyn Future<Output = Result<Reply, RpcError>> + Send>>;

/// The call of a scanner's next page, already sent. (In a mutex only to be `Sync`, as
/// the scanner holding it must be: it is never locked while contended.)
pub(super) struct PageAhead {
    call: Mutex<Call>,
}

impl PageAhead {
    /// Sends `request` to `server` now, holding the scanner's lease gate for the call
    /// (a renewal never overlaps it). The call is polled once here, which queues the
    /// request for the connection's writer, and the task yields once so that the writer
    /// (woken on this thread) sends it before the caller goes on reading the current
    /// reply. The call owns what it needs: a dropped scanner's close can await it.
    pub(super) async fn send(
        client: &RpcClient,
        server: &str,
        request: pb::ScanRequest,
        lease: Arc<Lease>,
    ) -> PageAhead {
        let client = client.clone();
        let addr = server.to_owned();
        let mut call: Call = Box::pin(async move {
            let mut last_used = lease.gate().await;
            let reply = client.call(&addr, "Scan", &request, None).await;
            *last_used = Instant::now();
            reply
        });
        if let Poll::Ready(reply) = futures::poll!(call.as_mut()) {
            call = Box::pin(std::future::ready(reply));
        }
        tokio::task::yield_now().await;
        PageAhead { call: Mutex::new(call) }
    }

    /// The call's reply.
    pub(super) async fn reply(self) -> Result<Reply, RpcError> {
        self.call.into_inner().unwrap_or_else(PoisonError::into_inner).await
    }
}
