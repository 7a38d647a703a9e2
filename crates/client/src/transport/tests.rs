//! The core's policies on a scripted transport: retries, write outcomes, scan recovery.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use basalt_thrift::{CallError, SecureError};
use bytes::Bytes;

use super::fake::{FakeTransport, SharedFake};
use super::{Delivery, Operation};
use crate::error::Error;
use crate::retry::{RetryDecision, RetryPolicy};
use crate::{Append, Client, Get, Increment, Put, Scan};

/// Retries every retryable error at once, up to four attempts.
struct Immediate;

impl RetryPolicy for Immediate {
    fn decide(&self, attempt: u32, error: &Error) -> RetryDecision {
        if attempt < 4 && error.is_retryable() {
            RetryDecision::Retry { after: Duration::ZERO }
        } else {
            RetryDecision::Fail
        }
    }
}

fn client_on(fake: &Arc<FakeTransport>) -> Client {
    let builder = Client::builder().address("fake:1").retry_policy(Immediate);
    Client::on_transport(builder, Arc::new(SharedFake(Arc::clone(fake))))
}

fn timeout() -> Error {
    Error::Timeout { operation: Operation::Get, after: Duration::from_secs(1) }
}

fn lost() -> Error {
    Error::Transport { addr: "fake:1".into(), source: CallError::Closed.into() }
}

fn expired() -> Error {
    Error::ScannerExpired { message: "lease expired".into() }
}

#[tokio::test]
async fn an_idempotent_call_is_retried_until_it_succeeds() {
    let fake = Arc::new(FakeTransport::with_keys(&["a", "b"]));
    fake.fail(Operation::Get, (Delivery::Sent, timeout));
    fake.fail(Operation::Get, (Delivery::Sent, timeout));
    let client = client_on(&fake);
    let row = client.table("t").unwrap().get(Get::new("b")).await.unwrap();
    assert_eq!(row.value(b"d", b"q"), Some(&b"b"[..]));
    assert_eq!(fake.attempts_of(Operation::Get), 3);
}

#[tokio::test]
async fn retries_end_with_the_policy_and_report_the_last_error() {
    let fake = Arc::new(FakeTransport::with_keys(&["a"]));
    for _ in 0..5 {
        fake.fail(Operation::Get, (Delivery::Sent, timeout));
    }
    let client = client_on(&fake);
    let error = client.table("t").unwrap().get(Get::new("a")).await.unwrap_err();
    assert!(matches!(error, Error::Timeout { .. }), "{error:?}");
    assert_eq!(fake.attempts_of(Operation::Get), 4);
}

#[tokio::test]
async fn a_sent_increment_is_not_retried_and_may_have_written() {
    let fake = Arc::new(FakeTransport::with_keys(&["a"]));
    fake.fail(Operation::Increment, (Delivery::Sent, lost));
    let client = client_on(&fake);
    let error = client.table("t").unwrap().increment(Increment::new("a").add("d", "q", 1)).await.unwrap_err();
    assert!(matches!(error, Error::WriteOutcomeUnknown { operation: Operation::Increment, .. }), "{error:?}");
    assert!(error.may_have_written());
    assert_eq!(fake.attempts_of(Operation::Increment), 1);
}

#[tokio::test]
async fn a_retried_put_once_sent_without_an_answer_may_have_written() {
    // Every attempt sent and unanswered: the put may have been applied.
    let fake = Arc::new(FakeTransport::with_keys(&["a"]));
    for _ in 0..4 {
        fake.fail(Operation::Put, (Delivery::Sent, lost));
    }
    // Stamped: resent freely (one on the server's clock is not, see below).
    let put = || Put::new("a").cell_at("d", "q", "v", 7);
    let error = client_on(&fake).table("t").unwrap().put(put()).await.unwrap_err();
    assert!(matches!(error, Error::WriteOutcomeUnknown { operation: Operation::Put, .. }), "{error:?}");
    assert!(error.may_have_written());
    assert_eq!(fake.attempts_of(Operation::Put), 4);
    // An early attempt lost, the last refused by HBase: the first may still have written.
    let fake = Arc::new(FakeTransport::with_keys(&["a"]));
    fake.fail(Operation::Put, (Delivery::Sent, lost));
    fake.fail(Operation::Put, (Delivery::Sent, || Error::IllegalArgument { message: "no".into() }));
    let error = client_on(&fake).table("t").unwrap().put(put()).await.unwrap_err();
    assert!(
        matches!(&error, Error::WriteOutcomeUnknown { source, .. } if matches!(**source, Error::IllegalArgument { .. }))
    );
    // Never sent, or refused at once: nothing was written, and the error says so.
    let fake = Arc::new(FakeTransport::with_keys(&["a"]));
    for _ in 0..4 {
        fake.fail(Operation::Put, (Delivery::NotSent, lost));
    }
    let error = client_on(&fake).table("t").unwrap().put(put()).await.unwrap_err();
    assert!(matches!(error, Error::Transport { .. }) && !error.may_have_written(), "{error:?}");
    // A read that timed out is no write: its error stays what it was.
    let fake = Arc::new(FakeTransport::with_keys(&["a"]));
    for _ in 0..4 {
        fake.fail(Operation::Get, (Delivery::Sent, lost));
    }
    let error = client_on(&fake).table("t").unwrap().get(Get::new("a")).await.unwrap_err();
    assert!(matches!(error, Error::Transport { .. }), "{error:?}");
}

#[tokio::test]
async fn an_increment_never_sent_is_retried() {
    let fake = Arc::new(FakeTransport::with_keys(&["a"]));
    fake.fail(Operation::Increment, (Delivery::NotSent, lost));
    let client = client_on(&fake);
    client.table("t").unwrap().increment(Increment::new("a").add("d", "q", 1)).await.unwrap();
    assert_eq!(fake.attempts_of(Operation::Increment), 2);
}

#[tokio::test]
async fn a_refused_increment_is_reported_as_refused() {
    let fake = Arc::new(FakeTransport::with_keys(&["a"]));
    fake.fail(Operation::Increment, (Delivery::Sent, || Error::IllegalArgument { message: "no".into() }));
    let client = client_on(&fake);
    let error = client.table("t").unwrap().increment(Increment::new("a").add("d", "q", 1)).await.unwrap_err();
    assert!(matches!(error, Error::IllegalArgument { .. }), "{error:?}");
    assert!(!error.may_have_written());
}

fn keys(rows: &[crate::Row]) -> Vec<String> {
    rows.iter().map(|r| String::from_utf8_lossy(r.key()).into_owned()).collect()
}

#[tokio::test]
async fn an_expired_scanner_is_reopened_after_the_last_row_returned() {
    let all = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
    for reversed in [false, true] {
        let fake = Arc::new(FakeTransport::with_keys(&all));
        // The second page of the first scanner fails: the scan reopens after `c` (`h`).
        fake.fail(Operation::NextPage, (Delivery::Sent, expired));
        let client = client_on(&fake);
        let scan = Scan::new().caching(3).reversed(reversed);
        let rows = client.table("t").unwrap().scan_all(scan).await.unwrap();
        let mut want: Vec<String> = all.iter().map(|k| (*k).to_owned()).collect();
        if reversed {
            want.reverse();
        }
        assert_eq!(keys(&rows), want, "reversed {reversed}");
        assert_eq!(fake.opened.load(Ordering::Relaxed), 2, "reversed {reversed}");
    }
}

#[tokio::test]
async fn a_scan_that_keeps_expiring_without_progress_ends_with_the_error() {
    let fake = Arc::new(FakeTransport::with_keys(&["a", "b", "c", "d", "e", "f"]));
    for _ in 0..10 {
        fake.fail(Operation::OpenScanner, (Delivery::Sent, expired));
    }
    let client = client_on(&fake);
    let error = client.table("t").unwrap().scan_all(Scan::new().caching(2)).await.unwrap_err();
    assert!(matches!(error, Error::ScannerExpired { .. }), "{error:?}");
    // Reopened at once three times without a page in between, then given up.
    assert_eq!(fake.attempts_of(Operation::OpenScanner), 4);
}

#[tokio::test]
async fn a_limited_scan_stops_at_its_limit_across_a_reopen() {
    let fake = Arc::new(FakeTransport::with_keys(&["a", "b", "c", "d", "e", "f"]));
    fake.fail(Operation::NextPage, (Delivery::Sent, expired));
    let client = client_on(&fake);
    let rows = client.table("t").unwrap().scan_all(Scan::new().caching(2).limit(5)).await.unwrap();
    assert_eq!(keys(&rows), ["a", "b", "c", "d", "e"]);
}

fn kerberos_not_built() -> Error {
    Error::Transport {
        addr: "fake:1".into(),
        source: CallError::Secure(basalt_thrift::SecureError::KerberosNotBuilt).into(),
    }
}

fn no_ticket_anywhere() -> Error {
    let no_ticket = basalt_thrift::SecureError::NoTicket { principal: "u@R".into(), detail: "no cache".into() };
    let last = Error::Transport { addr: "fake:1".into(), source: CallError::Secure(no_ticket).into() };
    Error::Unreachable { tried: "fake:1".into(), last: Box::new(last) }
}

fn bad_tls_config() -> Error {
    let config = basalt_thrift::SecureError::TlsConfig("no such CA file".into());
    Error::Transport { addr: "fake:1".into(), source: CallError::Secure(config).into() }
}

fn no_gssapi_library() -> Error {
    let missing = SecureError::GssapiLibraryMissing { detail: "libgssapi_krb5.so.2 (libgssapi-krb5-2)".into() };
    Error::Transport { addr: "fake:1".into(), source: CallError::Secure(missing).into() }
}

#[tokio::test]
async fn security_and_configuration_failures_are_final() {
    for failure in [kerberos_not_built as fn() -> Error, no_ticket_anywhere, bad_tls_config, no_gssapi_library] {
        let fake = Arc::new(FakeTransport::with_keys(&["a"]));
        for _ in 0..5 {
            fake.fail(Operation::Get, (Delivery::NotSent, failure));
        }
        // The default policy: an outage would be retried for the whole budget.
        let client = Client::on_transport(Client::builder().address("fake:1"), Arc::new(SharedFake(Arc::clone(&fake))));
        let error = client.table("t").unwrap().get(Get::new("a")).await.unwrap_err();
        assert!(error.is_final() && !error.is_retryable() && !error.is_outage(), "{error:?}");
        assert_eq!(fake.attempts_of(Operation::Get), 1, "{error:?}");
    }
    // A refused connection is no configuration failure: still an outage.
    let refused = Error::Transport {
        addr: "fake:1".into(),
        source: CallError::Connect { addr: "fake:1".into(), source: std::io::ErrorKind::ConnectionRefused.into() }
            .into(),
    };
    assert!(!refused.is_final() && refused.is_retryable() && refused.is_outage());
}

#[tokio::test]
async fn a_busy_region_gets_its_own_kind_and_is_retried_with_a_longer_backoff() {
    let busy = crate::transport::thrift::errors::from_call(
        "fake:1",
        Some("t"),
        CallError::Reply(crate::transport::thrift::ReplyError::Server {
            message: "Failed after attempts=16, exceptions:\norg.apache.hadoop.hbase.RegionTooBusyException: Over memstore limit".into(),
            can_retry: Some(true),
        }),
    );
    assert!(matches!(busy, Error::Busy { kind: crate::BusyKind::RegionTooBusy, .. }), "{busy:?}");
    assert!(busy.is_retryable() && !busy.is_outage() && !busy.is_final());
    let policy = crate::DefaultRetryPolicy::default();
    let timeout = timeout();
    let (RetryDecision::Retry { after: busy_pause }, RetryDecision::Retry { after: other_pause }) =
        (policy.decide(1, &busy), policy.decide(1, &timeout))
    else {
        panic!("both are retried");
    };
    assert!(busy_pause > other_pause, "{busy_pause:?} vs {other_pause:?}");
    // More attempts than other failures (4), fewer than an outage's.
    assert!(matches!(policy.decide(5, &busy), RetryDecision::Retry { .. }));
    assert_eq!(policy.decide(8, &busy), RetryDecision::Fail);

    // Through the core: retried until the region takes the call.
    fn queue_full() -> Error {
        Error::Busy { kind: crate::BusyKind::CallQueueTooBig, message: "queue full".into() }
    }
    let fake = Arc::new(FakeTransport::with_keys(&["a"]));
    fake.fail(Operation::Get, (Delivery::Sent, queue_full));
    fake.fail(Operation::Get, (Delivery::Sent, queue_full));
    let client = client_on(&fake);
    client.table("t").unwrap().get(Get::new("a")).await.unwrap();
    assert_eq!(fake.attempts_of(Operation::Get), 3);
}

#[tokio::test]
async fn an_increment_keeps_its_nonce_on_every_retry_where_servers_dedup() {
    // Servers that deduplicate by nonce: a sent attempt whose reply was lost is
    // retried, with the same nonce, so the server applies it once.
    let fake = Arc::new(FakeTransport::with_keys(&["a"]).deduplicating());
    fake.fail(Operation::Increment, (Delivery::Sent, lost));
    fake.fail(Operation::Increment, (Delivery::NotSent, lost));
    let table = client_on(&fake).table("t").unwrap();
    table.increment(Increment::new("a").add("d", "q", 1)).await.unwrap();
    table.append(Append::new("a").add("d", "q", "x")).await.unwrap();
    let nonces = fake.nonces.lock().unwrap().clone();
    assert_eq!(nonces.len(), 4, "three increment attempts and one append");
    assert!(nonces[..3].iter().all(|n| *n == nonces[0]), "one nonce for the increment: {nonces:?}");
    assert_ne!(nonces[3], nonces[0], "the append is another operation");
    // When every retry fails, a write once sent without an answer is in doubt, even if
    // the last attempt never left.
    let fake = Arc::new(FakeTransport::with_keys(&["a"]).deduplicating());
    fake.fail(Operation::Increment, (Delivery::Sent, lost));
    for _ in 0..20 {
        fake.fail(Operation::Increment, (Delivery::NotSent, || Error::IllegalArgument { message: "no".into() }));
    }
    let error = client_on(&fake).table("t").unwrap().increment(Increment::new("a").add("d", "q", 1)).await.unwrap_err();
    assert!(matches!(error, Error::WriteOutcomeUnknown { .. }), "{error:?}");
}

#[tokio::test]
async fn row_mutations_with_counters_keep_one_nonce_on_every_retry() {
    use crate::RowMutations;
    // The put stamped: one on the server's clock is not resent (its own test below).
    let counting = || {
        RowMutations::new("a")
            .put(Put::new("a").cell_at("d", "p", "v", 7))
            .increment(Increment::new("a").add("d", "q", 1))
    };
    let fake = Arc::new(FakeTransport::with_keys(&["a"]).deduplicating());
    fake.fail(Operation::MutateRow, (Delivery::Sent, lost));
    fake.fail(Operation::MutateRow, (Delivery::NotSent, lost));
    let table = client_on(&fake).table("t").unwrap();
    table.mutate_row_with_results(counting()).await.unwrap();
    // The plain call takes the same path when the mutations count.
    table.mutate_row(counting()).await.unwrap();
    let nonces = fake.nonces.lock().unwrap().clone();
    assert_eq!(nonces.len(), 4, "three attempts, then the plain call's one: {nonces:?}");
    assert!(nonces[..3].iter().all(|n| *n == nonces[0]), "one nonce for the operation: {nonces:?}");
    assert_ne!(nonces[3], nonces[0], "another operation, another nonce");
    // Where nonces cannot travel, one sent without an answer is never resent.
    let fake = Arc::new(FakeTransport::with_keys(&["a"]));
    fake.fail(Operation::MutateRow, (Delivery::Sent, lost));
    let error = client_on(&fake).table("t").unwrap().mutate_row_with_results(counting()).await.unwrap_err();
    assert!(matches!(error, Error::WriteOutcomeUnknown { .. }), "{error:?}");
    assert_eq!(fake.attempts_of(Operation::MutateRow), 1);
}

#[tokio::test]
async fn an_increment_once_sent_is_never_resent_where_nonces_cannot_travel() {
    let fake = Arc::new(FakeTransport::with_keys(&["a"]));
    fake.fail(Operation::Increment, (Delivery::Sent, lost));
    let error = client_on(&fake).table("t").unwrap().increment(Increment::new("a").add("d", "q", 1)).await.unwrap_err();
    assert!(matches!(error, Error::WriteOutcomeUnknown { .. }), "{error:?}");
    assert_eq!(fake.attempts_of(Operation::Increment), 1);
}

#[tokio::test]
async fn a_batch_resends_only_its_retryable_failures_and_answers_per_write() {
    let fake = Arc::new(FakeTransport::with_keys(&["a"]));
    // First attempt: "b" timed out (retryable, may have run), "c" refused for good.
    fake.put_refusals.lock().unwrap().push_back(vec![
        (1, || Error::Timeout { operation: Operation::PutMany, after: Duration::from_secs(1) }, true),
        (
            2,
            || Error::Server {
                message: "DoNotRetryIOException: cell too large".into(),
                can_retry: false,
                exception: Some("org.apache.hadoop.hbase.DoNotRetryIOException".into()),
            },
            false,
        ),
    ]);
    let table = client_on(&fake).table("t").unwrap();
    // Stamped: each may run twice.
    let puts = ["a", "b", "c", "d"].map(|r| Put::new(r).cell_at("d", "q", "v", 7));
    let error = table.put_many(puts).await.unwrap_err();
    let sent: Vec<Vec<Bytes>> = fake.put_rows.lock().unwrap().clone();
    assert_eq!(sent, vec![vec!["a", "b", "c", "d"], vec!["b"]], "only the retryable write is resent");
    match error {
        Error::BatchFailed { confirmed, not_confirmed, in_doubt, source } => {
            assert_eq!((confirmed, in_doubt), (3, 0));
            assert_eq!(not_confirmed, ["c"]);
            assert!(matches!(*source, Error::Server { can_retry: false, .. }), "{source:?}");
        }
        other => panic!("expected BatchFailed, got {other:?}"),
    }
}

#[tokio::test]
async fn a_put_on_the_server_clock_once_sent_without_an_answer_is_not_resent() {
    let put = || Put::new("a").cell("d", "q", "v");
    let fake = Arc::new(FakeTransport::with_keys(&["a"]));
    fake.fail(Operation::Put, (Delivery::Sent, lost));
    let error = client_on(&fake).table("t").unwrap().put(put()).await.unwrap_err();
    assert!(matches!(error, Error::WriteOutcomeUnknown { operation: Operation::Put, .. }), "{error:?}");
    assert_eq!(fake.attempts_of(Operation::Put), 1, "a resend could write a second version");
    // Never sent: resent, nothing can have been written.
    let fake = Arc::new(FakeTransport::with_keys(&["a"]));
    fake.fail(Operation::Put, (Delivery::NotSent, lost));
    client_on(&fake).table("t").unwrap().put(put()).await.unwrap();
    assert_eq!(fake.attempts_of(Operation::Put), 2);
    // Java's behaviour, when asked for: resent, at the price of a possible duplicate.
    let fake = Arc::new(FakeTransport::with_keys(&["a"]));
    fake.fail(Operation::Put, (Delivery::Sent, lost));
    let builder = Client::builder().address("fake:1").retry_policy(Immediate).resend_unstamped_puts(true);
    let client = Client::on_transport(builder, Arc::new(SharedFake(Arc::clone(&fake))));
    client.table("t").unwrap().put(put()).await.unwrap();
    assert_eq!(fake.attempts_of(Operation::Put), 2);
}

#[tokio::test]
async fn a_batch_reports_its_puts_on_the_server_clock_that_may_have_run_in_doubt() {
    let fake = Arc::new(FakeTransport::with_keys(&["a"]));
    // First attempt: "b" timed out (may have run), "c" failed before running.
    let timed_out = || Error::Timeout { operation: Operation::PutMany, after: Duration::from_secs(1) };
    fake.put_refusals.lock().unwrap().push_back(vec![(1, timed_out, true), (2, timed_out, false)]);
    let table = client_on(&fake).table("t").unwrap();
    let puts = ["a", "b", "c", "d"].map(|r| Put::new(r).cell("d", "q", "v"));
    let error = table.put_many(puts).await.unwrap_err();
    let sent: Vec<Vec<Bytes>> = fake.put_rows.lock().unwrap().clone();
    assert_eq!(sent, vec![vec!["a", "b", "c", "d"], vec!["c"]], "only the write that cannot have run is resent");
    match error {
        Error::BatchFailed { confirmed, not_confirmed, in_doubt, .. } => {
            assert_eq!((confirmed, in_doubt), (3, 1));
            assert_eq!(not_confirmed, ["b"]);
        }
        other => panic!("expected BatchFailed, got {other:?}"),
    }
}

#[tokio::test]
async fn row_mutations_with_a_put_on_the_server_clock_are_not_resent_once_sent() {
    use crate::RowMutations;
    let unstamped = || RowMutations::new("a").put(Put::new("a").cell("d", "p", "v"));
    // Even with counters and servers that deduplicate them: the put would write twice.
    let fake = Arc::new(FakeTransport::with_keys(&["a"]).deduplicating());
    fake.fail(Operation::MutateRow, (Delivery::Sent, lost));
    let counting = unstamped().increment(Increment::new("a").add("d", "q", 1));
    let error = client_on(&fake).table("t").unwrap().mutate_row_with_results(counting).await.unwrap_err();
    assert!(matches!(error, Error::WriteOutcomeUnknown { .. }), "{error:?}");
    assert_eq!(fake.attempts_of(Operation::MutateRow), 1);
    let fake = Arc::new(FakeTransport::with_keys(&["a"]));
    fake.fail(Operation::MutateRow, (Delivery::Sent, lost));
    let error = client_on(&fake).table("t").unwrap().mutate_row(unstamped()).await.unwrap_err();
    assert!(matches!(error, Error::WriteOutcomeUnknown { .. }), "{error:?}");
    assert_eq!(fake.attempts_of(Operation::MutateRow), 1);
}
