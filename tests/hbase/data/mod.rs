//! The data path (gets, writes, scans, parallel and salted scans, cursors, batches,
//! region moves, HBase's answers, the differential test against the Java client): every
//! test runs on both transports, as `thrift::MODULE::TEST` (through the Thrift2 gateway)
//! and `native::MODULE::TEST` (HBase's native RPC). A test of one transport alone listed
//! here (the gateway itself, or faults in front of one transport's servers) is marked
//! `#[gateway_only(..)]` or `#[native_only(..)]` where it is listed and runs once, as
//! `gateway::MODULE::TEST` or `native::MODULE::TEST`.

mod answers;
mod batch_reopen;
mod client_data;
mod client_gets;
mod client_resilience;
mod client_scan;
mod deletes_once;
mod differential;
mod filters;
mod parallel_scan;
mod puts_once;
mod region_crash;
pub mod regions;
mod replicas;
mod salted;
mod salted_cursor;
mod write_refusals;

use crate::support::{Registration, Test};

/// This folder's tests and how they are registered.
pub fn tests() -> (Registration, Vec<Test>) {
    let tests = [
        deletes_once::trials(),
        answers::trials(),
        batch_reopen::trials(),
        client_data::trials(),
        client_gets::trials(),
        client_resilience::trials(),
        client_scan::trials(),
        differential::trials(),
        filters::trials(),
        parallel_scan::trials(),
        puts_once::trials(),
        region_crash::trials(),
        regions::trials(),
        replicas::trials(),
        salted::trials(),
        salted_cursor::trials(),
        write_refusals::trials(),
    ];
    (Registration::BothTransports, tests.into_iter().flatten().collect())
}
