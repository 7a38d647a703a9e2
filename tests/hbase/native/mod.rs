//! The client's native transport on its own (region servers behind fault proxies
//! through the address map, nonces under a flapping connection, admin with no gateway,
//! the client API against the gateway's answers): run once, as `native::MODULE::TEST`.

mod admin_probe;
mod client_admin_native;
mod native_client;
mod native_faults;
mod native_nonces;
mod region_pause;
mod server_refusals;
mod site_conf;
mod stalled_peer;

use crate::support::{Registration, Test};

/// This folder's tests and how they are registered.
pub fn tests() -> (Registration, Vec<Test>) {
    let tests = [
        region_pause::trials(),
        client_admin_native::trials(),
        native_client::trials(),
        native_faults::trials(),
        native_nonces::trials(),
        site_conf::trials(),
        server_refusals::trials(),
        stalled_peer::trials(),
    ];
    (Registration::NativeOnly, tests.into_iter().flatten().collect())
}
