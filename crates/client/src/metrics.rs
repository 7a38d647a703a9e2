//! Metrics recorded beside the tracing spans, through the [`metrics`](https://docs.rs/metrics)
//! facade.
//!
//! The library records; it installs no recorder and no exporter. An application that
//! wants these numbers installs one (a Prometheus exporter, a statsd bridge, or an
//! in-process recorder such as the one behind the `basalt` CLI's `--stats`) before it
//! builds its client, and may call [`describe`] after installing it to register the
//! descriptions and units below. Without a recorder every recording is a no-op.
//!
//! | name | kind | labels | what |
//! |---|---|---|---|
//! | `basalt_calls_total` | counter | `operation`, `outcome` | calls finished (all attempts of one call count once); `outcome` is `ok` or the error's kind (see below) |
//! | `basalt_call_seconds` | histogram | `operation` | a call's duration, retries and their pauses included, in seconds |
//! | `basalt_attempts_total` | counter | `operation` | attempts sent to a transport (one per try of a call) |
//! | `basalt_retries_total` | counter | `operation`, `reason` | attempts that failed and were tried again; `reason` is the failure's kind |
//! | `basalt_scan_reopens_total` | counter | none | scanners reopened after the last row returned (scanner lost or expired, page refused, page failed) |
//! | `basalt_scan_page_rows` | histogram | none | rows of one scan page |
//! | `basalt_scan_page_bytes` | histogram | none | bytes of one scan page's reply |
//! | `basalt_salted_bucket_rows` | histogram | none | rows a salted scan read from one bucket, recorded when the bucket's stream ends |
//! | `basalt_pool_connections` | gauge | `state` | connections of the connection pools: `in_use` (checked out for a call), `idle` (kept for reuse), `pinned` (held by a scan between its pages) |
//!
//! A call whose future is dropped before it ends (a timeout of the caller's, a scan
//! dropped mid-page) counts its attempts but not the call.
//!
//! `operation` is the name that spans and errors show: `get`, `get_many`, `exists`,
//! `exists_many`, `put`, `put_many`, `delete`, `delete_many`, `mutate_row`,
//! `check_and_put`, `check_and_delete`, `check_and_mutate`, `increment`, `append`,
//! `open_scanner`, `get_scanner_rows`, `close_scanner`, `get_scanner_results`,
//! `region_locations`, `connect`, and the administrative calls by name.
//!
//! An error's kind (the `outcome` of a failed call, the `reason` of a retry) is one of:
//! `invalid_input`, `table_not_found`, `namespace_not_found`, `already_exists`,
//! `no_such_family`, `scanner_expired`, `illegal_argument`, `server`, `busy`,
//! `transport`, `protocol`, `dropped_before_reply`, `timeout`, `unreachable`,
//! `client_closed`, `server_internal`, `outcome_unknown`, `scan_integrity`,
//! `batch_failed`.

// The error-kind label lists every kind, so a new one gets its own label.
#![deny(clippy::wildcard_enum_match_arm)]

use std::time::Duration;

use crate::error::Error;
use crate::transport::Operation;

/// Counter: calls finished, by `operation` and `outcome`.
pub const CALLS: &str = "basalt_calls_total";
/// Histogram: a call's duration in seconds (retries included), by `operation`.
pub const CALL_SECONDS: &str = "basalt_call_seconds";
/// Counter: attempts sent to a transport, by `operation`.
pub const ATTEMPTS: &str = "basalt_attempts_total";
/// Counter: attempts tried again, by `operation` and `reason`.
pub const RETRIES: &str = "basalt_retries_total";
/// Counter: scanners reopened after the last row returned.
pub const SCAN_REOPENS: &str = "basalt_scan_reopens_total";
/// Histogram: rows of one scan page.
pub const SCAN_PAGE_ROWS: &str = "basalt_scan_page_rows";
/// Histogram: bytes of one scan page's reply.
pub const SCAN_PAGE_BYTES: &str = "basalt_scan_page_bytes";
/// Histogram: rows a salted scan read from one bucket.
pub const SALTED_BUCKET_ROWS: &str = "basalt_salted_bucket_rows";
/// Gauge: pooled connections, by `state` (`in_use`, `idle`, `pinned`). Recorded by the
/// pool itself, which imports nothing of this module (no import loop through the
/// transport).
pub use crate::transport::thrift::pool::POOL_CONNECTIONS;

/// Registers the description and unit of every metric above with the recorder installed
/// now. Optional: recording works without it.
pub fn describe() {
    use ::metrics::{describe_counter, describe_gauge, describe_histogram, Unit};
    describe_counter!(CALLS, Unit::Count, "Calls finished, by operation and outcome");
    describe_histogram!(CALL_SECONDS, Unit::Seconds, "Duration of a call, retries included");
    describe_counter!(ATTEMPTS, Unit::Count, "Attempts sent to a transport");
    describe_counter!(RETRIES, Unit::Count, "Attempts tried again, by reason");
    describe_counter!(SCAN_REOPENS, Unit::Count, "Scanners reopened after the last row returned");
    describe_histogram!(SCAN_PAGE_ROWS, Unit::Count, "Rows of one scan page");
    describe_histogram!(SCAN_PAGE_BYTES, Unit::Bytes, "Bytes of one scan page's reply");
    describe_histogram!(SALTED_BUCKET_ROWS, Unit::Count, "Rows a salted scan read from one bucket");
    describe_gauge!(POOL_CONNECTIONS, Unit::Count, "Pooled connections, by state");
}

/// A call finished: `result` is `Ok(())` or its error. Records `basalt_calls_total` and
/// `basalt_call_seconds`.
pub(crate) fn call(operation: Operation, result: Result<(), &Error>, elapsed: Duration) {
    let outcome = match result {
        Ok(()) => "ok",
        Err(error) => error_kind(error),
    };
    ::metrics::counter!(CALLS, "operation" => operation.as_str(), "outcome" => outcome).increment(1);
    ::metrics::histogram!(CALL_SECONDS, "operation" => operation.as_str()).record(elapsed.as_secs_f64());
}

/// One attempt of `operation` is about to be sent.
pub(crate) fn attempt(operation: Operation) {
    ::metrics::counter!(ATTEMPTS, "operation" => operation.as_str()).increment(1);
}

/// An attempt of `operation` failed with `error` and will be tried again.
pub(crate) fn retry(operation: Operation, error: &Error) {
    ::metrics::counter!(RETRIES, "operation" => operation.as_str(), "reason" => error_kind(error)).increment(1);
}

/// A scan reopened its scanner after the last row it returned.
pub(crate) fn reopen() {
    ::metrics::counter!(SCAN_REOPENS).increment(1);
}

/// A scan page arrived with `rows` rows in a reply of `bytes` bytes.
pub(crate) fn page(rows: usize, bytes: usize) {
    ::metrics::histogram!(SCAN_PAGE_ROWS).record(rows as f64);
    ::metrics::histogram!(SCAN_PAGE_BYTES).record(bytes as f64);
}

/// A salted scan's bucket ended after `rows` rows.
pub(crate) fn bucket_rows(rows: u64) {
    ::metrics::histogram!(SALTED_BUCKET_ROWS).record(rows as f64);
}

/// The label of an error's kind.
pub(crate) fn error_kind(error: &Error) -> &'static str {
    match error {
        Error::InvalidInput(_) => "invalid_input",
        Error::TableNotFound { .. } => "table_not_found",
        Error::NamespaceNotFound { .. } => "namespace_not_found",
        Error::AlreadyExists { .. } => "already_exists",
        Error::NoSuchColumnFamily { .. } => "no_such_family",
        Error::ScannerExpired { .. } => "scanner_expired",
        Error::IllegalArgument { .. } => "illegal_argument",
        Error::Server { .. } => "server",
        Error::Busy { .. } => "busy",
        Error::Transport { .. } => "transport",
        Error::Protocol { .. } => "protocol",
        Error::DroppedBeforeReply { .. } => "dropped_before_reply",
        Error::Timeout { .. } => "timeout",
        Error::Unreachable { .. } => "unreachable",
        Error::ClientClosed => "client_closed",
        Error::ServerInternal { .. } => "server_internal",
        Error::WriteOutcomeUnknown { .. } => "outcome_unknown",
        Error::ScanIntegrity { .. } => "scan_integrity",
        Error::BatchFailed { .. } => "batch_failed",
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use ::metrics::{Counter, Gauge, Histogram, Key, KeyName, Metadata, Recorder, SharedString, Unit};
    use basalt_thrift::CallError;

    use crate::error::Error;
    use crate::retry::{RetryDecision, RetryPolicy};
    use crate::transport::fake::{FakeTransport, SharedFake};
    use crate::transport::{Delivery, Operation};
    use crate::{Client, Get, Increment};

    /// Counts counter increments and histogram samples by `name{label=value,...}`.
    #[derive(Default)]
    struct Tally {
        counters: Mutex<BTreeMap<String, Arc<AtomicU64>>>,
        samples: Mutex<BTreeMap<String, Arc<AtomicU64>>>,
    }

    impl Tally {
        fn name(key: &Key) -> String {
            let labels: Vec<String> = key.labels().map(|l| format!("{}={}", l.key(), l.value())).collect();
            format!("{}{{{}}}", key.name(), labels.join(","))
        }

        fn counter(&self, name: &str) -> u64 {
            self.counters.lock().unwrap().get(name).map_or(0, |c| c.load(Ordering::Relaxed))
        }

        fn samples(&self, name: &str) -> u64 {
            self.samples.lock().unwrap().get(name).map_or(0, |c| c.load(Ordering::Relaxed))
        }
    }

    /// A histogram that counts its samples.
    struct CountSamples(Arc<AtomicU64>);

    impl ::metrics::HistogramFn for CountSamples {
        fn record(&self, _value: f64) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    impl Recorder for Tally {
        fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}

        fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
            Counter::from_arc(Arc::clone(self.counters.lock().unwrap().entry(Tally::name(key)).or_default()))
        }

        fn register_gauge(&self, _: &Key, _: &Metadata<'_>) -> Gauge {
            Gauge::noop()
        }

        fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
            let count = Arc::clone(self.samples.lock().unwrap().entry(Tally::name(key)).or_default());
            Histogram::from_arc(Arc::new(CountSamples(count)))
        }
    }

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

    /// Runs `body` against a client on `fake` with `tally` as the recorder.
    fn recorded(tally: &Tally, fake: &Arc<FakeTransport>, body: impl AsyncFnOnce(Client)) {
        let builder = Client::builder().address("fake:1").retry_policy(Immediate);
        let client = Client::on_transport(builder, Arc::new(SharedFake(Arc::clone(fake))));
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        ::metrics::with_local_recorder(tally, || runtime.block_on(body(client)));
    }

    #[test]
    fn a_retried_call_counts_once_with_every_attempt_and_retry() {
        let fake = Arc::new(FakeTransport::with_keys(&["a"]));
        let timeout = || Error::Timeout { operation: Operation::Get, after: Duration::from_secs(1) };
        fake.fail(Operation::Get, (Delivery::Sent, timeout));
        fake.fail(Operation::Get, (Delivery::Sent, timeout));
        let tally = Tally::default();
        recorded(&tally, &fake, async |client| {
            client.table("t").unwrap().get(Get::new("a")).await.unwrap();
        });
        assert_eq!(tally.counter("basalt_calls_total{operation=get,outcome=ok}"), 1);
        assert_eq!(tally.counter("basalt_attempts_total{operation=get}"), 3);
        assert_eq!(tally.counter("basalt_retries_total{operation=get,reason=timeout}"), 2);
        assert_eq!(tally.samples("basalt_call_seconds{operation=get}"), 1);
    }

    #[test]
    fn a_failed_call_counts_under_its_error_kind() {
        let fake = Arc::new(FakeTransport::with_keys(&["a"]));
        let lost = || Error::Transport { addr: "fake:1".into(), source: CallError::Closed.into() };
        fake.fail(Operation::Increment, (Delivery::Sent, lost));
        let tally = Tally::default();
        recorded(&tally, &fake, async |client| {
            let increment = Increment::new("a").add("d", "q", 1);
            client.table("t").unwrap().increment(increment).await.unwrap_err();
        });
        assert_eq!(tally.counter("basalt_calls_total{operation=increment,outcome=outcome_unknown}"), 1);
        assert_eq!(tally.counter("basalt_attempts_total{operation=increment}"), 1);
        assert_eq!(tally.counter("basalt_retries_total{operation=increment,reason=transport}"), 0);
    }

    #[test]
    fn scan_pages_count_as_calls_with_their_rows() {
        let fake = Arc::new(FakeTransport::with_keys(&["a", "b", "c"]));
        let tally = Tally::default();
        recorded(&tally, &fake, async |client| {
            use futures::TryStreamExt;
            let rows: Vec<_> =
                client.table("t").unwrap().scan(crate::Scan::new()).unwrap().try_collect().await.unwrap();
            assert_eq!(rows.len(), 3);
        });
        assert_eq!(tally.counter("basalt_calls_total{operation=open_scanner,outcome=ok}"), 1);
        assert!(tally.samples("basalt_scan_page_rows{}") >= 1);
        assert_eq!(tally.samples("basalt_scan_page_rows{}"), tally.samples("basalt_scan_page_bytes{}"));
    }
}
