//! Basalt's integration tests: one binary, one real HBase.
//!
//! `main` gets an HBase from `basalt-testkit` (an existing gateway named in
//! `BASALT_THRIFT_ADDR`, else a standalone HBase 2.6 + Thrift2 launched here), runs every
//! test against it with libtest-mimic (panics are caught per test), and stops the HBase
//! it launched before exiting, whatever the tests did. If HBase cannot start, the run
//! fails with the launcher's reason: nothing is skipped.
//!
//! Test names say the transport: a data-path test runs twice, as `thrift::MODULE::TEST`
//! (through the Thrift2 gateway) and `native::MODULE::TEST` (HBase's native RPC to the
//! region servers); tests of the gateway itself run once, as `gateway::MODULE::TEST`;
//! tests of `basalt-rpc` alone as `rpc::native::TEST`; tests of the native transport
//! alone (fault proxies in front of region servers) once, as `native::MODULE::TEST`. A
//! filter such as `native::` picks one transport's run.

mod answers;
mod basics;
mod chaos;
mod client_admin;
mod client_admin_native;
mod client_data;
mod client_gets;
mod client_resilience;
mod client_scan;
mod deletes_once;
mod differential;
mod fault_support;
mod faults;
mod filters;
mod hostile;
mod idl;
mod native;
mod native_admin;
mod native_client;
mod native_faults;
mod native_nonces;
mod native_secure;
mod native_zookeeper;
mod outage;
mod parallel_scan;
mod region_crash;
mod region_pause;
mod region_support;
mod regions;
mod replicas;
mod salted;
mod salted_cursor;
mod scanner_support;
mod secure;
mod support;
mod tally;
mod transport;
mod write_refusals;

use std::process::ExitCode;

use libtest_mimic::Arguments;
use support::{Registration, Test};

/// Tests in the data-path modules below that test the Thrift2 gateway itself, with the
/// reason: registered once, as `gateway::NAME`, like the gateway modules.
const GATEWAY_TESTS_IN_DATA_PATH_MODULES: &[(&str, &str)] = &[
    ("client_data::dead_pooled_connection_is_replaced", "the gateway's idle timeout and the gateway pool"),
    ("client_resilience::gateway_restart_mid_scan_never_returns_other_rows", "a gateway restarted mid-scan"),
    ("client_resilience::round_robin_balancer_over_two_gateways_keeps_scans_exact", "two gateways behind a balancer"),
    ("client_resilience::writes_and_scans_ride_out_a_gateway_outage", "a gateway outage behind a balancer"),
    ("parallel_scan::dropping_a_parallel_scan_closes_every_scanner", "probes the scanner ids of a gateway"),
    ("filters::string_and_protobuf_select_the_same_cells", "raw Thrift2 calls with filter strings"),
    ("filters::parsed_strings_select_what_hbase_selects", "raw Thrift2 calls with filter strings"),
];

/// The data-path modules' tests split into those run on both transports and those that
/// test the gateway; an error names an entry of the gateway list that matches no test.
fn split_data_path(tests: Vec<Test>) -> Result<[(Registration, Vec<Test>); 2], String> {
    let (gateway, both): (Vec<Test>, Vec<Test>) =
        tests.into_iter().partition(|t| GATEWAY_TESTS_IN_DATA_PATH_MODULES.iter().any(|(name, _)| *name == t.name()));
    for (name, _) in GATEWAY_TESTS_IN_DATA_PATH_MODULES {
        if !gateway.iter().any(|t| t.name() == *name) {
            return Err(format!("main.rs lists {name} as a gateway test, but no such test exists"));
        }
    }
    Ok([(Registration::BothTransports, both), (Registration::GatewayOnly, gateway)])
}

fn main() -> ExitCode {
    if let Some(code) = hostile::child_main() {
        return code;
    }
    let args = Arguments::from_args();
    // The data path (gets, writes, scans, parallel and salted scans, cursors, batches,
    // coalescing, HBase's answers, the differential test): every test runs on both
    // transports, as `thrift::NAME` and `native::NAME`.
    let data_path: Vec<Test> = [
        client_data::trials(),
        client_gets::trials(),
        client_scan::trials(),
        parallel_scan::trials(),
        client_resilience::trials(),
        salted::trials(),
        salted_cursor::trials(),
        regions::trials(),
        replicas::trials(),
        region_crash::trials(),
        answers::trials(),
        filters::trials(),
        differential::trials(),
        write_refusals::trials(),
    ]
    .into_iter()
    .flatten()
    .collect();
    let data_path = match split_data_path(data_path) {
        Ok(lists) => lists,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The Thrift2 gateway itself (its framings and protocols, hostile and restarted
    // gateways, proxies cutting its connections, secured gateways, admin through it):
    // Thrift only, as `gateway::NAME`.
    let gateway: Vec<Test> = [
        basics::trials(),
        transport::trials(),
        idl::trials(),
        client_admin::trials(),
        hostile::trials(),
        chaos::trials(),
        outage::trials(),
        faults::trials(),
        deletes_once::gateway_trials(),
        secure::trials(),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut lists: Vec<(Registration, Vec<Test>)> = data_path.into();
    lists.push((Registration::GatewayOnly, gateway));
    // `basalt-rpc` on its own, as `rpc::NAME`.
    lists.push((
        Registration::RpcOnly,
        native::trials()
            .into_iter()
            .chain(native_admin::trials())
            .chain(native_secure::trials())
            .chain(native_zookeeper::trials())
            .collect(),
    ));
    // The native transport alone, as `native::NAME`: region servers behind fault
    // proxies (through the address map).
    lists.push((
        Registration::NativeOnly,
        native_faults::trials()
            .into_iter()
            .chain(native_nonces::trials())
            .chain(deletes_once::native_trials())
            .chain(region_pause::trials())
            .chain(client_admin_native::trials())
            .collect(),
    ));
    if args.list {
        return libtest_mimic::run(&args, support::into_trials(lists, None)).exit_code();
    }
    let env = match support::TestEnv::start() {
        Ok(env) => env,
        Err(e) => {
            eprintln!("error: no HBase for the integration tests: {e}");
            return ExitCode::FAILURE;
        }
    };
    let conclusion = libtest_mimic::run(&args, support::into_trials(lists, Some(env.clone())));
    if let Err(e) = env.stop() {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    conclusion.exit_code()
}
