//! The cost of each production-gateway mode against plain TCP, in one run on one HBase:
//! gets/s (one connection, one get at a time: the per-call cost) and scan rows/s (one
//! connection, 1000-row pages: the per-byte cost), as ratios to plain TCP.
//!
//! It starts a local HBase and one secured gateway per mode (TLS through a terminator,
//! HTTP, HTTPS, Kerberos SASL auth / auth-int / auth-conf, SPNEGO over HTTP), all
//! against a real server configured that way (see `crates/testkit/launcher/secure.sh`).
//!
//! ```text
//! cargo run --release -p basalt-hbase --features kerberos --example secure_cost
//! ```

use std::time::{Duration, Instant};

use basalt::{
    Bytes, Client, ColumnFamily, Get, HttpOptions, KerberosOptions, Put, Qop, Scan, Security, TableDescriptor,
    TlsOptions,
};
use basalt_testkit::{HBase, LaunchOptions, Qop as GatewayQop, SecureGateway, SecureMode};

const ROWS: usize = 20_000;
const GETS: usize = 1_000;
const ROUNDS: usize = 2;

fn security_for(gateway: &SecureGateway) -> Security {
    let mode = gateway.mode();
    let mut security = Security::default();
    if mode.tls {
        let tls =
            TlsOptions::with_ca_file(gateway.ca_file().expect("CA")).server_name(gateway.tls_host().expect("host"));
        security.tls = Some(tls);
    }
    if mode.http {
        security.http = Some(HttpOptions::default());
    }
    if let (Some(qop), Some(krb)) = (mode.kerberos, gateway.kerberos()) {
        let qop = match qop {
            GatewayQop::Auth => Qop::Auth,
            GatewayQop::AuthInt => Qop::AuthInt,
            GatewayQop::AuthConf => Qop::AuthConf,
        };
        security.kerberos =
            Some(KerberosOptions { qop, server_host: Some(krb.server_host.clone()), ..KerberosOptions::default() });
    }
    security
}

/// Best gets/s and scan rows/s of one client over `ROUNDS` rounds.
async fn measure(client: &Client, table: &str) -> Result<(f64, f64), basalt::Error> {
    let table = client.table(table)?;
    for i in 0..100 {
        table.get(Get::new(format!("r{:06}", i * 7))).await?;
    }
    let started = Instant::now();
    for i in 0..GETS {
        let row = table.get(Get::new(format!("r{:06}", (i * 7919) % ROWS))).await?;
        assert!(!row.is_empty(), "every row exists");
    }
    let gets = GETS as f64 / started.elapsed().as_secs_f64();
    let started = Instant::now();
    let rows = table.scan_all(Scan::new().caching(1000)).await?;
    assert_eq!(rows.len(), ROWS);
    let scan = ROWS as f64 / started.elapsed().as_secs_f64();
    Ok((gets, scan))
}

fn client(addr: &str, security: Security) -> Result<Client, basalt::Error> {
    Client::builder().address(addr).security(security).pool_size(1).request_timeout(Duration::from_secs(120)).build()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let hbase = HBase::start(&LaunchOptions::default())?;
    let launcher = hbase.gateways()?;
    let krb = |qop| SecureMode { kerberos: Some(qop), ..SecureMode::default() };
    let modes = [
        SecureMode { tls: true, ..SecureMode::default() },
        SecureMode { http: true, ..SecureMode::default() },
        SecureMode { http: true, tls: true, ..SecureMode::default() },
        krb(GatewayQop::Auth),
        krb(GatewayQop::AuthInt),
        krb(GatewayQop::AuthConf),
        SecureMode { http: true, kerberos: Some(GatewayQop::Auth), ..SecureMode::default() },
    ];
    eprintln!("starting {} secured gateways...", modes.len());
    let gateways = std::thread::scope(|s| {
        let handles: Vec<_> = modes.iter().map(|m| s.spawn(|| launcher.start_secure(m))).collect();
        handles.into_iter().map(|h| h.join().expect("start thread")).collect::<Result<Vec<_>, _>>()
    })?;
    if let Some(krb) = gateways.iter().find_map(|g| g.kerberos()) {
        std::env::set_var("KRB5_CONFIG", &krb.krb5_config);
        std::env::set_var("KRB5CCNAME", &krb.ccache);
    }

    let plain = client(hbase.addr(), Security::default())?;
    let table = "secure_cost";
    if plain.admin().table_exists(table).await? {
        plain.admin().delete_table(table).await?;
    }
    plain.admin().create_table(&TableDescriptor::new(table).family(ColumnFamily::new("d")), &[]).await?;
    let value = Bytes::from(vec![b'v'; 100]);
    let puts: Vec<Put> = (0..ROWS).map(|i| Put::new(format!("r{i:06}")).cell("d", "q", value.clone())).collect();
    plain.table(table)?.put_many(puts).await?;

    let mut clients = vec![("plain".to_owned(), plain.clone())];
    for g in &gateways {
        clients.push((g.mode().tag(), client(g.addr(), security_for(g))?));
    }
    let mut best = vec![(0.0f64, 0.0f64); clients.len()];
    for round in 0..ROUNDS {
        // Opposite order in alternate rounds: neither end of the list is favoured.
        let order: Vec<usize> =
            if round % 2 == 0 { (0..clients.len()).collect() } else { (0..clients.len()).rev().collect() };
        for i in order {
            let (gets, scan) = measure(&clients[i].1, table).await?;
            best[i] = (best[i].0.max(gets), best[i].1.max(scan));
        }
    }
    let (base_gets, base_scan) = best[0];
    println!("{:<22} {:>10} {:>8} {:>14} {:>8}", "mode", "gets/s", "ratio", "scan rows/s", "ratio");
    for ((name, _), (gets, scan)) in clients.iter().zip(&best) {
        println!("{name:<22} {gets:>10.0} {:>8.2} {scan:>14.0} {:>8.2}", gets / base_gets, scan / base_scan);
    }
    plain.admin().delete_table(table).await?;
    drop(gateways);
    drop(hbase);
    Ok(())
}
