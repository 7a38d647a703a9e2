//! Basalt's integration tests: one binary, one real HBase.
//!
//! `main` gets an HBase from `basalt-testkit` (an existing gateway named in
//! `BASALT_THRIFT_ADDR`, else a standalone HBase 2.6 + Thrift2 launched here), runs every
//! test against it with libtest-mimic (panics are caught per test), and stops the HBase
//! it launched before exiting, whatever the tests did. If HBase cannot start, the run
//! fails with the launcher's reason: nothing is skipped.
//!
//! The tests are laid out by what they test, each folder registering its own:
//! - `data/`: the data path, run on both transports, as `thrift::MODULE::TEST` (through
//!   the Thrift2 gateway) and `native::MODULE::TEST` (HBase's native RPC);
//! - `gateway/`: the Thrift2 gateway itself, once, as `gateway::MODULE::TEST`;
//! - `rpc/`: `basalt-rpc` alone, as `rpc::MODULE::TEST`;
//! - `native/`: the client's native transport alone, as `native::MODULE::TEST`;
//! - `support/`: the environment and the helpers tests share.
//!
//! A filter such as `native::` picks one transport's run.

mod data;
mod gateway;
mod native;
mod rpc;
mod support;

use std::process::ExitCode;

use libtest_mimic::Arguments;

fn main() -> ExitCode {
    if let Some(code) = gateway::hostile::child_main() {
        return code;
    }
    let mut args = Arguments::from_args();
    if args.test_threads.is_none() {
        args.test_threads = Some(support::test_threads());
    }
    // Each folder registers its own tests (see its `mod.rs`).
    let lists = vec![data::tests(), gateway::tests(), rpc::tests(), native::tests()];
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
    support::print_slowest(25);
    if let Err(e) = env.stop() {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    conclusion.exit_code()
}
