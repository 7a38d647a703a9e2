//! The shared test environment: one HBase, one tokio runtime, how tests are named and
//! registered, and the helpers tests share (fault proxies and tallies, region moves,
//! scanner probes).

pub mod apply_once;
pub mod faults;
pub mod regions;
pub mod scanners;
pub mod tally;
pub mod test_bed;

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

/// How many tests run at once by default (`--test-threads` or `BASALT_TEST_THREADS`
/// choose otherwise): most of a test's time is spent waiting on HBase (region moves,
/// restarts, timeouts, a second test bed starting), not on the client's CPU, so more
/// tests run at once than the machine has cores.
pub const DEFAULT_TEST_THREADS: usize = 4;

/// The number of tests run at once: `BASALT_TEST_THREADS` when set to a positive
/// number, else [`DEFAULT_TEST_THREADS`].
pub fn test_threads() -> usize {
    std::env::var("BASALT_TEST_THREADS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_TEST_THREADS)
}

/// What a test returns: `?` works on any error.
pub type TestResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;
type BoxedTest = Box<dyn Fn(Env) -> Pin<Box<dyn Future<Output = TestResult> + Send>> + Send + Sync>;

/// A named async test.
pub struct Test {
    name: String,
    run: Arc<BoxedTest>,
    /// How this test is registered when it differs from its folder's way, and why.
    only: Option<(Registration, &'static str)>,
    /// Set when the test does not use the route's test bed: on the Docker route it
    /// would run the same thing again, so it is listed there as ignored, with why.
    same_on_every_route: Option<&'static str>,
}

/// The transport a test's [`Env::client`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// The Thrift2 gateway (the default transport).
    Thrift,
    /// HBase's native RPC, straight to the region servers (admin calls included).
    Native,
}

/// How a list of tests is registered (see `main.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Registration {
    /// Data-path tests: each runs twice, as `thrift::NAME` and `native::NAME`.
    BothTransports,
    /// Tests of the Thrift2 gateway itself: once, as `gateway::NAME`, on Thrift.
    GatewayOnly,
    /// Tests of `basalt-rpc` itself: once, as `rpc::NAME`.
    RpcOnly,
    /// Tests of the native transport alone (its address map, region servers behind
    /// fault proxies): once, as `native::NAME`.
    NativeOnly,
}

/// Builds the list of a module's tests: `tests![a, b]` for `async fn a(env: Env) -> TestResult`.
/// A test of one transport alone inside a folder of tests run on both transports is
/// marked where it is listed: `tests![a, #[gateway_only("why")] b, #[native_only("why")] c]`.
#[macro_export]
macro_rules! tests {
    ($($(#[$mark:ident($why:expr)])? $name:ident),* $(,)?) => {
        vec![$({
            let test = $crate::support::Test::new(module_path!(), stringify!($name), |env| Box::pin($name(env)));
            $(let test = test.$mark($why);)?
            test
        }),*]
    };
}

impl Test {
    /// The test `function` of the module at `module_path` (`hbase::FOLDER::MODULE`),
    /// named `MODULE::function`: the folder is said by the name's transport prefix.
    pub fn new<F>(module_path: &str, function: &str, run: F) -> Test
    where
        F: Fn(Env) -> Pin<Box<dyn Future<Output = TestResult> + Send>> + Send + Sync + 'static,
    {
        let mut segments = module_path.split("::").skip(2);
        let module = segments.next().unwrap_or("main");
        let name =
            std::iter::once(module).chain(segments).chain(std::iter::once(function)).collect::<Vec<_>>().join("::");
        Test { name, run: Arc::new(Box::new(run)), only: None, same_on_every_route: None }
    }

    /// Marks a test of the Thrift2 gateway itself, listed among tests run on both
    /// transports: it runs once, as `gateway::NAME`; `why` says what of the gateway it tests.
    pub fn gateway_only(self, why: &'static str) -> Test {
        Test { only: Some((Registration::GatewayOnly, why)), ..self }
    }

    /// Marks a test of the native transport alone (faults in front of the region
    /// servers, say), listed among tests run on both transports: it runs once, as
    /// `native::NAME`; `why` says what of the native transport it needs.
    pub fn native_only(self, why: &'static str) -> Test {
        Test { only: Some((Registration::NativeOnly, why)), ..self }
    }

    /// Marks a test that does not use the route's test bed (`why` says why): its own
    /// test bed launched natively on every route, or no HBase at all (a hostile server
    /// in the test process). The Docker route lists it as ignored instead of running the
    /// same thing a second time, and says so.
    pub fn same_on_every_route(self, why: &'static str) -> Test {
        Test { same_on_every_route: Some(why), ..self }
    }
}

/// The environment every test gets (cheap to clone).
#[derive(Clone)]
pub struct Env {
    inner: Arc<EnvInner>,
    transport: Transport,
}

struct EnvInner {
    hbase: Mutex<HBase>,
    addr: String,
    options: ConnectionOptions,
    runtime: tokio::runtime::Runtime,
    counter: AtomicU32,
    /// The region servers a native client bootstraps from (listed once, on the first
    /// native test), or why they could not be listed.
    native: std::sync::OnceLock<Result<Vec<String>, String>>,
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
            // The suite starts dozens of JVMs (own test beds, gateways, region servers).
            quick_jit: true,
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
            transport: Transport::Thrift,
        };
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

    /// The launched HBase's ZooKeeper quorum (`host:port`); an error for an external
    /// HBase or one in a container.
    pub fn zookeeper_quorum(&self) -> Result<String, TestkitError> {
        match self.inner.hbase.lock() {
            Ok(hbase) => hbase.zookeeper_quorum(),
            Err(poisoned) => poisoned.into_inner().zookeeper_quorum(),
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

    /// The transport of this test's [`Env::client`].
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// This environment with `client()` on `transport`.
    pub fn on(&self, transport: Transport) -> Env {
        Env { inner: self.inner.clone(), transport }
    }

    /// The region servers a native client bootstraps from, listed through the region
    /// tool on first use (a blocking call: run before the test's future starts).
    pub fn native_servers(&self) -> Result<&[String], String> {
        self.inner
            .native
            .get_or_init(|| crate::rpc::native::region_servers_blocking(self))
            .as_deref()
            .map_err(Clone::clone)
    }

    /// A client builder for this test's transport: the gateway's address, framing and
    /// protocol, and on the native transport the region servers to bootstrap from (every
    /// call, admin included, then goes over native RPC: the gateway address is unused).
    pub fn client_builder(&self) -> basalt::ClientBuilder {
        let builder = basalt::Client::builder()
            .address(self.addr())
            .framing(self.inner.options.framing)
            .protocol(self.inner.options.protocol);
        match self.transport {
            Transport::Thrift => builder,
            Transport::Native => {
                builder.native(self.native_servers().expect("the region servers were listed before the test").to_vec())
            }
        }
    }

    /// A pooled `basalt` client on this test's transport.
    pub fn client(&self) -> basalt::Client {
        self.client_builder().build().expect("valid client settings")
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

/// One registered run of a test: its full name and the transport its `Env` has.
struct Registered {
    name: String,
    transport: Transport,
    run: Arc<BoxedTest>,
    /// Listed as ignored (see [`Test::same_on_every_route`]).
    ignored: bool,
}

/// The retry policy of a test client that must ride out faults: up to `max_attempts`
/// attempts, backing off from `base_delay` up to `max_delay` (the rest as by default).
pub fn patient_retries(
    max_attempts: u32,
    base_delay: std::time::Duration,
    max_delay: std::time::Duration,
) -> basalt::DefaultRetryPolicy {
    basalt::DefaultRetryPolicy { max_attempts, base_delay, max_delay, ..basalt::DefaultRetryPolicy::default() }
}

/// Checks the reopens of a scan whose reader paused past the server's scanner lease.
/// A transport that does not renew leases (the gateway) let the scanner expire, and the
/// scan reopened after its last row (at least once). One that renews them (native RPC:
/// a background task renews the lease while the reader pauses) never lets it expire: a
/// reopen there means a renewal was missed (an expired scanner is reopened by the same
/// core code, and counted).
pub fn check_reopens_after_pause(env: &Env, reopens: u64, what: &str) -> TestResult {
    let renews = env.client().capabilities().renews_scanner_leases;
    if !renews && reopens == 0 {
        return Err(format!("{what}: the scanner outlived its lease, which is not renewed").into());
    }
    if renews && reopens > 0 {
        return Err(format!("{what}: {reopens} reopens, although the scanner's lease is renewed").into());
    }
    Ok(())
}

/// Turns lists of tests into libtest-mimic trials, each registered as its list says
/// unless the test is marked otherwise (named `thrift::`, `native::`, `gateway::` or
/// `rpc::` + `module::function`); with no environment (listing only) the trials are
/// never run.
pub fn into_trials(lists: Vec<(Registration, Vec<Test>)>, env: Option<Env>) -> Vec<Trial> {
    let docker_route = std::env::var("BASALT_TESTKIT_DOCKER").is_ok_and(|v| v == "1" || v == "true");
    let mut registered = Vec::new();
    for (folder, tests) in lists {
        for test in tests {
            let registration = test.only.map_or(folder, |(only, _why)| only);
            let transports: &[(Transport, &str)] = match registration {
                Registration::BothTransports => &[(Transport::Thrift, "thrift"), (Transport::Native, "native")],
                Registration::GatewayOnly => &[(Transport::Thrift, "gateway")],
                Registration::RpcOnly => &[(Transport::Thrift, "rpc")],
                Registration::NativeOnly => &[(Transport::Native, "native")],
            };
            let ignored = match test.same_on_every_route {
                Some(why) if docker_route => {
                    eprintln!("not run on the Docker route (ignored): {} ({why})", test.name);
                    true
                }
                Some(_) | None => false,
            };
            for (transport, prefix) in transports {
                registered.push(Registered {
                    name: format!("{prefix}::{}", test.name),
                    transport: *transport,
                    run: test.run.clone(),
                    ignored,
                });
            }
        }
    }
    registered
        .into_iter()
        .map(|Registered { name, transport, run, ignored }| {
            let env = env.clone();
            let name_for_timing = name.clone();
            Trial::test(name, move || {
                let env = env.ok_or_else(|| Failed::from("no HBase environment"))?.on(transport);
                if transport == Transport::Native {
                    env.native_servers()
                        .map_err(|e| Failed::from(format!("no region servers to bootstrap from: {e}")))?;
                }
                let future = run(env.clone());
                let started = std::time::Instant::now();
                let outcome = env.inner.runtime.block_on(future).map_err(|e| Failed::from(e.to_string()));
                record_duration(&name_for_timing, started.elapsed());
                outcome
            })
            .with_ignored_flag(ignored)
        })
        .collect()
}

/// How long each test that ran took (its future only, not the listing of servers).
static DURATIONS: Mutex<Vec<(String, std::time::Duration)>> = Mutex::new(Vec::new());

fn record_duration(name: &str, took: std::time::Duration) {
    let mut durations = DURATIONS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    durations.push((name.to_owned(), took));
}

/// Prints the `count` slowest tests and the sum of all tests' times, so that a run
/// shows where its time goes (the suite runs tests in parallel: the sum exceeds the
/// wall time by about the parallelism).
pub fn print_slowest(count: usize) {
    let mut durations = DURATIONS.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone();
    if durations.is_empty() {
        return;
    }
    durations.sort_by_key(|(_, took)| std::cmp::Reverse(*took));
    let total: std::time::Duration = durations.iter().map(|(_, took)| *took).sum();
    eprintln!("test times: {} tests, {:.1} s summed; the slowest:", durations.len(), total.as_secs_f64());
    for (name, took) in durations.iter().take(count) {
        eprintln!("  {:>7.1} s  {name}", took.as_secs_f64());
    }
}
