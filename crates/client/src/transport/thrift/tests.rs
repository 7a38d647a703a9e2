//! The gateway transport's attempts on in-memory connections: how a connection's end
//! is judged (dropped before any reply, cut mid-reply, never written).

use std::future::Future;
use std::time::Duration;

use basalt_thrift::{CallError, Connection, ConnectionOptions};

use super::pool::Pool;
use super::ThriftTransport;
use crate::attempt::outcome_unknown;
use crate::error::Error;
use crate::transport::{Operation, TransportFailure};

/// One `list_namespaces` attempt through `call_on`, on an in-memory connection whose
/// server side `serve` plays.
async fn attempt_on<S, Fut>(answered: bool, serve: S) -> (Error, Connection)
where
    S: FnOnce(tokio::io::DuplexStream) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let pool = Pool::new(
        vec!["127.0.0.1:1".to_owned()],
        1,
        ConnectionOptions::default(),
        Duration::from_secs(50),
        Duration::from_secs(5),
    );
    let thrift = ThriftTransport::new(pool, Duration::from_secs(60), 10 << 20);
    thrift.mark_answered(answered);
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let server = tokio::spawn(serve(theirs));
    // The server side runs up to its first wait (or to its end) before the call.
    tokio::task::yield_now().await;
    let mut conn = Connection::from_stream(ours, "lb:1", ConnectionOptions::default());
    let op = Operation::Admin("list_namespaces");
    // The call first, then the mapping, which reads the connection's state after it.
    let outcome = conn.list_namespaces().await;
    let error = thrift.attempt_on(op, "lb:1", &mut conn, async { outcome }).await.unwrap_err().error;
    let error = *error;
    server.await.unwrap();
    (error, conn)
}

#[tokio::test]
async fn a_new_connection_dropped_before_any_reply_is_an_outage_once_answers_came() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    // Read the request, then close without a byte: a balancer whose gateway is down.
    let drop_after_request = |mut s: tokio::io::DuplexStream| async move {
        let mut buf = [0u8; 64];
        let _ = s.read(&mut buf).await;
    };
    let (error, conn) = attempt_on(true, drop_after_request).await;
    assert!(matches!(error, Error::DroppedBeforeReply { .. }), "{error:?}");
    assert!(error.is_outage() && error.is_retryable());
    assert!(conn.request_written() && !conn.has_received());
    // Sent: a write that is not idempotent may have been forwarded and applied.
    assert!(outcome_unknown(Operation::Increment, error).may_have_written());

    // The same before any answer: maybe a transport mismatch, so not an outage.
    let (error, _) = attempt_on(false, drop_after_request).await;
    assert!(
        matches!(error, Error::Transport { source: TransportFailure::Gateway(CallError::Closed), .. }),
        "{error:?}"
    );
    assert!(!error.is_outage() && error.is_retryable());

    // A reset in the middle of a reply is not an outage either.
    let half_a_reply = |mut s: tokio::io::DuplexStream| async move {
        let mut buf = [0u8; 64];
        let _ = s.read(&mut buf).await;
        let _ = s.write_all(&[0x80, 0x01, 0x00]).await;
    };
    let (error, conn) = attempt_on(true, half_a_reply).await;
    assert!(matches!(error, Error::Transport { .. }), "{error:?}");
    assert!(!error.is_outage());
    assert!(conn.has_received());
}

#[tokio::test]
async fn a_request_that_could_not_be_written_is_provably_unsent() {
    // The peer is gone before the request is written.
    let (error, conn) = attempt_on(true, |s| async move { drop(s) }).await;
    assert!(!conn.request_written(), "{error:?}");
    assert!(error.is_outage(), "{error:?}");
}
