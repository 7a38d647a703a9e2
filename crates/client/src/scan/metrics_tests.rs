//! The scan side of the metrics, on a scripted transport: reopens, and rows per salted
//! bucket.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use ::metrics::{Counter, Gauge, Histogram, HistogramFn, Key, KeyName, Metadata, Recorder, SharedString, Unit};
use basalt_rowkey::{FieldType, HashAlgo, Query, Salt, Schema, Value, Width};
use futures::TryStreamExt;

use crate::error::Error;
use crate::transport::fake::{FakeTransport, SharedFake};
use crate::transport::{Delivery, Operation};
use crate::{metrics, Client, Scan};

/// Counters and every histogram value, by metric name (labels left out).
#[derive(Default)]
struct Recorded {
    counters: Mutex<BTreeMap<String, Arc<AtomicU64>>>,
    values: Mutex<BTreeMap<String, Arc<Values>>>,
}

#[derive(Default)]
struct Values(Mutex<Vec<f64>>);

impl HistogramFn for Values {
    fn record(&self, value: f64) {
        self.0.lock().unwrap().push(value);
    }
}

impl Recorded {
    fn counter(&self, name: &str) -> u64 {
        self.counters.lock().unwrap().get(name).map_or(0, |c| c.load(std::sync::atomic::Ordering::Relaxed))
    }

    fn values(&self, name: &str) -> Vec<f64> {
        self.values.lock().unwrap().get(name).map(|v| v.0.lock().unwrap().clone()).unwrap_or_default()
    }
}

impl Recorder for Recorded {
    fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}

    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        Counter::from_arc(Arc::clone(self.counters.lock().unwrap().entry(key.name().to_owned()).or_default()))
    }

    fn register_gauge(&self, _: &Key, _: &Metadata<'_>) -> Gauge {
        Gauge::noop()
    }

    fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
        Histogram::from_arc(Arc::clone(self.values.lock().unwrap().entry(key.name().to_owned()).or_default()))
    }
}

/// Runs `body` against a client on `fake`, recording into `recorded`.
fn recorded(recorded: &Recorded, fake: FakeTransport, body: impl AsyncFnOnce(Client)) {
    let client = Client::on_transport(Client::builder().address("fake:1"), Arc::new(SharedFake(Arc::new(fake))));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    ::metrics::with_local_recorder(recorded, || runtime.block_on(body(client)));
}

#[test]
fn a_reopened_scanner_is_counted() {
    let fake = FakeTransport::with_keys(&["a", "b", "c"]);
    let expired = || Error::ScannerExpired { message: "lease expired".into() };
    fake.fail(Operation::NextPage, (Delivery::Sent, expired));
    let record = Recorded::default();
    recorded(&record, fake, async |client| {
        let scan = client.table("t").unwrap().scan(Scan::new().caching(1)).unwrap();
        let stats = scan.stats();
        let rows: Vec<_> = scan.try_collect().await.unwrap();
        assert_eq!(rows.len(), 3, "no row lost or repeated");
        assert_eq!(stats.reopens(), 1);
    });
    assert_eq!(record.counter(metrics::SCAN_REOPENS), 1);
    assert!(!record.values(metrics::SCAN_PAGE_ROWS).is_empty());
}

#[test]
fn each_salted_bucket_reports_its_rows_when_it_ends() {
    let schema = Schema::builder()
        .field("user", FieldType::Str(Width::Variable))
        .salt(Salt::hash(HashAlgo::Murmur3 { seed: 0 }, &["user"], 4))
        .build()
        .unwrap();
    let users = ["ann", "bob", "cyd", "dan", "eve", "fay", "gus"];
    let mut per_bucket = [0u64; 4];
    let mut keys: Vec<String> = Vec::new();
    for user in users {
        let report = schema.encode_report(&[Value::str(user)]).unwrap();
        per_bucket[report.bucket.unwrap() as usize] += 1;
        keys.push(String::from_utf8(report.key.to_vec()).unwrap());
    }
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let record = Recorded::default();
    recorded(&record, FakeTransport::with_keys(&keys), async |client| {
        let salted = client.table("t").unwrap().salted(schema.clone());
        let rows: Vec<_> = salted.scan(Query::new()).stream().await.unwrap().try_collect().await.unwrap();
        assert_eq!(rows.len(), users.len());
    });
    let mut reported = record.values(metrics::SALTED_BUCKET_ROWS);
    reported.sort_by(f64::total_cmp);
    let mut expected: Vec<f64> = per_bucket.iter().map(|n| *n as f64).collect();
    expected.sort_by(f64::total_cmp);
    assert_eq!(reported, expected, "one value per bucket: the rows it read");
}
