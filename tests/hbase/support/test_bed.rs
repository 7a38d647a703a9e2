//! A test bed of a test's own: a second HBase for the tests that kill, stop or pause
//! region servers (which the suite's shared HBase must survive).

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use basalt_testkit::{HBase, LaunchOptions};

use crate::support::{TestResult, IDLE_TIMEOUT, SCANNER_TIMEOUT};

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// Runs blocking work (a launcher call) off the runtime's threads.
pub async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, String> + Send + 'static) -> Result<T, Failure> {
    tokio::task::spawn_blocking(f).await?.map_err(Failure::from)
}

/// Runs `test` on a test bed of its own: the suite's settings and one local-cluster
/// region server, in `dir_name` under the temporary directory, as `adjust` changes them
/// (`|_| {}` for none; e.g. `gateway: false` for HBase with no Thrift gateway process).
/// `test` gets the test bed and the instant its start began. The test bed is stopped
/// afterwards whatever the test did; its directory is removed when both went well, and
/// kept otherwise (its logs say what HBase did), with the error saying where.
///
/// A test bed without a gateway is launched natively on every route (the Docker route
/// and an external gateway included: neither has one without its gateway), as the
/// secured test bed is.
pub async fn on_own_test_bed<A, F, Fut>(dir_name: &str, adjust: A, test: F) -> TestResult
where
    A: FnOnce(&mut LaunchOptions),
    F: FnOnce(Arc<Mutex<HBase>>, Instant) -> Fut,
    Fut: Future<Output = TestResult>,
{
    let dir = std::env::temp_dir().join(dir_name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let mut options = LaunchOptions {
        dir: Some(dir.clone()),
        scanner_timeout: SCANNER_TIMEOUT,
        idle_timeout: IDLE_TIMEOUT,
        region_servers: 1,
        heap: "768m".to_owned(),
        quick_jit: true,
        ..LaunchOptions::default()
    };
    adjust(&mut options);
    // The options' directory is the one kept or removed below.
    options.dir = Some(dir.clone());
    let started = Instant::now();
    let launch = move || {
        let hbase = if options.gateway { HBase::from_env_or_start(&options) } else { HBase::start(&options) };
        hbase.map_err(|e| e.to_string())
    };
    let own = Arc::new(Mutex::new(blocking(launch).await?));
    let outcome = test(own.clone(), started).await;
    let stopped = blocking(move || match own.lock() {
        Ok(mut hbase) => hbase.stop().map_err(|e| e.to_string()),
        Err(_) => Err("the test bed's lock was poisoned".into()),
    })
    .await;
    match (outcome, stopped) {
        (Ok(()), Ok(())) => {
            let _ = std::fs::remove_dir_all(&dir);
            Ok(())
        }
        (Err(e), _) | (Ok(()), Err(e)) => {
            Err(format!("{e} (the test bed's logs are kept in {})", dir.display()).into())
        }
    }
}
