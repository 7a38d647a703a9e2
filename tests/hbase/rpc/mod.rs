//! `basalt-rpc` on its own (bootstrap, reads and writes, scanners and leases, admin
//! over the master, Kerberos, ZooKeeper): run once, as `rpc::MODULE::TEST`.

pub mod native;
pub mod native_admin;
mod native_secure;
mod native_zookeeper;

use crate::support::{Registration, Test};

/// This folder's tests and how they are registered.
pub fn tests() -> (Registration, Vec<Test>) {
    let tests = [native::trials(), native_admin::trials(), native_secure::trials(), native_zookeeper::trials()];
    (Registration::RpcOnly, tests.into_iter().flatten().collect())
}
