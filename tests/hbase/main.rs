//! Basalt's integration tests: one binary, one real HBase.
//!
//! `main` gets an HBase from `basalt-testkit` (an existing gateway named in
//! `BASALT_THRIFT_ADDR`, else a standalone HBase 2.6 + Thrift2 launched here), runs every
//! test against it with libtest-mimic (panics are caught per test), and stops the HBase
//! it launched before exiting, whatever the tests did. If HBase cannot start, the run
//! fails with the launcher's reason: nothing is skipped.

mod answers;
mod basics;
mod chaos;
mod client_admin;
mod client_data;
mod client_gets;
mod client_resilience;
mod client_scan;
mod differential;
mod faults;
mod filters;
mod hostile;
mod idl;
mod native;
mod native_client;
mod outage;
mod parallel_scan;
mod regions;
mod salted;
mod salted_cursor;
mod secure;
mod support;
mod tally;
mod transport;

use std::process::ExitCode;

use libtest_mimic::Arguments;

fn main() -> ExitCode {
    if let Some(code) = hostile::child_main() {
        return code;
    }
    let args = Arguments::from_args();
    let trials: Vec<support::Test> = [
        basics::trials(),
        transport::trials(),
        idl::trials(),
        client_data::trials(),
        client_gets::trials(),
        client_scan::trials(),
        parallel_scan::trials(),
        client_admin::trials(),
        client_resilience::trials(),
        salted::trials(),
        salted_cursor::trials(),
        hostile::trials(),
        chaos::trials(),
        regions::trials(),
        answers::trials(),
        outage::trials(),
        faults::trials(),
        filters::trials(),
        secure::trials(),
        native::trials(),
        differential::trials(),
    ]
    .into_iter()
    .flatten()
    .collect();
    if args.list {
        return libtest_mimic::run(&args, support::into_trials(trials, None)).exit_code();
    }
    let env = match support::TestEnv::start() {
        Ok(env) => env,
        Err(e) => {
            eprintln!("error: no HBase for the integration tests: {e}");
            return ExitCode::FAILURE;
        }
    };
    let conclusion = libtest_mimic::run(&args, support::into_trials(trials, Some(env.clone())));
    if let Err(e) = env.stop() {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    conclusion.exit_code()
}
