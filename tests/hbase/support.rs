//! The shared test environment: one HBase, one tokio runtime, helpers.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use basalt_testkit::{GatewayLauncher, HBase, LaunchOptions, TestkitError};
use basalt_thrift::{Connection, ConnectionOptions, Framing, Protocol};
use libtest_mimic::{Failed, Trial};

/// Server-side scanner expiry of the test HBase.
pub const SCANNER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(4);
/// The test gateway closes connections idle this long.
pub const IDLE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(12);

/// What a test returns: `?` works on any error.
pub type TestResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;
type BoxedTest = Box<dyn Fn(Env) -> Pin<Box<dyn Future<Output = TestResult> + Send>> + Send + Sync>;

/// A named async test.
pub struct Test {
    name: &'static str,
    run: BoxedTest,
}

/// Builds the list of a module's tests: `tests![a, b]` for `async fn a(env: Env) -> TestResult`.
#[macro_export]
macro_rules! tests {
    ($($name:ident),* $(,)?) => {
        vec![$($crate::support::Test::new(
            concat!(module_path!(), "::", stringify!($name)).trim_start_matches("hbase::"),
            |env| Box::pin($name(env)),
        )),*]
    };
}

impl Test {
    /// A test named `name` running `run`.
    pub fn new<F>(name: &'static str, run: F) -> Test
    where
        F: Fn(Env) -> Pin<Box<dyn Future<Output = TestResult> + Send>> + Send + Sync + 'static,
    {
        Test { name, run: Box::new(run) }
    }
}

/// The environment every test gets (cheap to clone).
#[derive(Clone)]
pub struct Env {
    inner: Arc<EnvInner>,
}

struct EnvInner {
    hbase: Mutex<HBase>,
    addr: String,
    options: ConnectionOptions,
    runtime: tokio::runtime::Runtime,
    counter: AtomicU32,
    /// With `BASALT_TEST_TRANSPORT=native`: the region servers `client()` bootstraps
    /// from (its reads and writes then take HBase's native RPC; admin stays on Thrift2).
    native: std::sync::OnceLock<Vec<String>>,
}

/// The handle `main` keeps to stop HBase at the end.
pub type TestEnv = Env;

impl Env {
    /// Finds or starts the HBase for this run.
    pub fn start() -> Result<Env, TestkitError> {
        let launch = LaunchOptions {
            // Short enough for the scanner-expiry and dead-connection tests to run
            // quickly; the idle timeout is the longer so that an expired scanner is met
            // on a live connection ("Invalid scanner Id").
            scanner_timeout: SCANNER_TIMEOUT,
            idle_timeout: IDLE_TIMEOUT,
            // Two region servers, so that tests can move regions between them.
            region_servers: 2,
            ..LaunchOptions::default()
        };
        let hbase = HBase::from_env_or_start(&launch)?;
        if let Some(ready) = hbase.ready_in() {
            eprintln!("HBase + Thrift2 ready at {} in {:.1} s", hbase.addr(), ready.as_secs_f64());
        }
        let options = ConnectionOptions {
            framing: if hbase.framed() { Framing::Framed } else { Framing::Buffered },
            protocol: if hbase.compact() { Protocol::Compact } else { Protocol::Binary },
            ..ConnectionOptions::default()
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(TestkitError::Io)?;
        let env = Env {
            inner: Arc::new(EnvInner {
                addr: hbase.addr().to_owned(),
                hbase: Mutex::new(hbase),
                options,
                runtime,
                counter: AtomicU32::new(0),
                native: std::sync::OnceLock::new(),
            }),
        };
        match std::env::var("BASALT_TEST_TRANSPORT").as_deref() {
            Ok("native") => {
                let servers = crate::native::region_servers_blocking(&env).map_err(|e| {
                    TestkitError::Io(std::io::Error::other(format!("BASALT_TEST_TRANSPORT=native: {e}")))
                })?;
                eprintln!("client() uses the native transport, bootstrapping from {servers:?}");
                let _ = env.inner.native.set(servers);
            }
            Ok("thrift") | Ok("") | Err(_) => {}
            Ok(other) => {
                let message = format!("BASALT_TEST_TRANSPORT={other:?}: expected \"native\" or \"thrift\"");
                return Err(TestkitError::Io(std::io::Error::other(message)));
            }
        }
        Ok(env)
    }

    /// Stops the HBase if this run launched it, first printing its JVMs' peak memory.
    pub fn stop(&self) -> Result<(), TestkitError> {
        let mut hbase = match self.inner.hbase.lock() {
            Ok(hbase) => hbase,
            Err(poisoned) => poisoned.into_inner(),
        };
        for (jvm, bytes) in hbase.jvm_peak_rss() {
            eprintln!("JVM peak RSS (VmHWM): {jvm} {} MiB", bytes >> 20);
        }
        hbase.stop()
    }

    /// Starts extra Thrift2 gateways against the launched HBase (an error for an
    /// external one); the lock is held only to clone the launcher.
    pub fn gateways(&self) -> Result<GatewayLauncher, TestkitError> {
        match self.inner.hbase.lock() {
            Ok(hbase) => hbase.gateways(),
            Err(poisoned) => poisoned.into_inner().gateways(),
        }
    }

    /// The command running the region tool (move/split regions) against the launched
    /// HBase; an error for an external one.
    pub fn region_tool(&self) -> Result<std::process::Command, TestkitError> {
        match self.inner.hbase.lock() {
            Ok(hbase) => hbase.region_tool(),
            Err(poisoned) => poisoned.into_inner().region_tool(),
        }
    }

    /// The gateway's address.
    pub fn addr(&self) -> &str {
        &self.inner.addr
    }

    /// Connection options matching the gateway.
    pub fn options(&self) -> ConnectionOptions {
        self.inner.options.clone()
    }

    /// A new raw Thrift2 connection.
    pub async fn connect(&self) -> Result<Connection, basalt_thrift::CallError> {
        Connection::connect(self.addr(), self.options()).await
    }

    /// With `BASALT_TEST_TRANSPORT=native`, the region servers a client bootstraps from.
    pub fn native_servers(&self) -> Option<&[String]> {
        self.inner.native.get().map(Vec::as_slice)
    }

    /// A pooled `basalt` client for the gateway.
    pub fn client(&self) -> basalt::Client {
        let builder = basalt::Client::builder()
            .address(self.addr())
            .framing(self.inner.options.framing)
            .protocol(self.inner.options.protocol);
        match self.inner.native.get() {
            Some(servers) => builder.native(servers.clone()),
            None => builder,
        }
        .build()
        .expect("valid client settings")
    }

    /// Creates a fresh table with the given families and split keys; returns its handle.
    pub async fn fresh_table(&self, families: &[&str], splits: &[&[u8]]) -> Result<basalt::Table, basalt::Error> {
        let client = self.client();
        let name = self.unique("t");
        let mut desc = basalt::TableDescriptor::new(name.clone());
        for f in families {
            desc = desc.family(basalt::ColumnFamily::new(f.as_bytes().to_vec()).max_versions(5));
        }
        let splits: Vec<bytes::Bytes> = splits.iter().map(|s| bytes::Bytes::copy_from_slice(s)).collect();
        client.admin().create_table(&desc, &splits).await?;
        client.table(&name)
    }

    /// A name unique within this run (tests run in parallel on one HBase).
    pub fn unique(&self, prefix: &str) -> String {
        let n = self.inner.counter.fetch_add(1, Ordering::Relaxed);
        format!("{prefix}_{}_{n}", std::process::id())
    }
}

/// Turns the tests into libtest-mimic trials; with no environment (listing only) the
/// trials are never run.
pub fn into_trials(tests: Vec<Test>, env: Option<Env>) -> Vec<Trial> {
    tests
        .into_iter()
        .map(|test| {
            let env = env.clone();
            let Test { name, run } = test;
            Trial::test(name, move || {
                let env = env.ok_or_else(|| Failed::from("no HBase environment"))?;
                let future = run(env.clone());
                env.inner.runtime.block_on(future).map_err(|e| Failed::from(e.to_string()))
            })
        })
        .collect()
}
