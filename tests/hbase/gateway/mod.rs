//! The Thrift2 gateway itself (its framings and protocols, hostile and restarted
//! gateways, proxies cutting its connections, secured gateways, admin through it): run
//! once, on the gateway, as `gateway::MODULE::TEST`.

mod basics;
pub mod chaos;
pub mod client_admin;
mod faults;
pub mod hostile;
mod idl;
mod outage;
pub mod secure;
mod transport;

use crate::support::{Registration, Test};

/// This folder's tests and how they are registered.
pub fn tests() -> (Registration, Vec<Test>) {
    let tests = [
        basics::trials(),
        chaos::trials(),
        client_admin::trials(),
        faults::trials(),
        hostile::trials(),
        idl::trials(),
        outage::trials(),
        secure::trials(),
        transport::trials(),
    ];
    (Registration::GatewayOnly, tests.into_iter().flatten().collect())
}
