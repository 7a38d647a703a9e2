//! Production gateways against real servers configured that way: TLS (a TLS terminator
//! in front of the socket gateway, HBase 2.6 having no socket TLS of its own), Thrift over
//! HTTP, HTTPS from HBase's Jetty, and Kerberos against a real MIT KDC made for the run
//! (SASL GSSAPI with auth, auth-int and auth-conf; SPNEGO over HTTPS). Each mode runs data
//! calls, a scan and a salted merged scan through the pooled client; then the failures a
//! user meets: a wrong CA, a wrong host name, no Kerberos ticket, a weaker quality of
//! protection than asked, an unauthenticated client, and transport mismatches that
//! fail with a clear error instead of hanging.

use std::collections::BTreeSet;
use std::time::Duration;

use basalt::{Bytes, Client, Get, Put, SaltedRow, Scan};
use basalt_rowkey::{FieldType, HashAlgo, Query, Salt, Schema, Value, Width};
use basalt_testkit::{Qop as GatewayQop, SecureGateway, SecureMode};
use basalt_thrift::{CallError, HttpOptions, KerberosOptions, Qop, SecureError, Security, TlsOptions};
use futures::TryStreamExt;

use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![production_gateways_in_every_mode]
}

/// Held by a test while it points GSSAPI at its KDC (`KRB5_CONFIG`, `KRB5CCNAME`, ...):
/// the variables are the process's, and the Kerberos tests run in parallel.
pub static KERBEROS_ENV: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The modes started for the test, in parallel (a JVM each).
fn modes() -> Vec<SecureMode> {
    let krb = |qop| SecureMode { kerberos: Some(qop), ..SecureMode::default() };
    vec![
        SecureMode { tls: true, ..SecureMode::default() },
        SecureMode { http: true, ..SecureMode::default() },
        SecureMode { http: true, tls: true, kerberos: Some(GatewayQop::Auth), ..SecureMode::default() },
        krb(GatewayQop::Auth),
        krb(GatewayQop::AuthInt),
        krb(GatewayQop::AuthConf),
    ]
}

fn qop_of(q: GatewayQop) -> Qop {
    match q {
        GatewayQop::Auth => Qop::Auth,
        GatewayQop::AuthInt => Qop::AuthInt,
        GatewayQop::AuthConf => Qop::AuthConf,
    }
}

/// What a client needs to reach `gateway` (TLS checked against the run's CA).
fn security_for(gateway: &SecureGateway) -> Security {
    let mode = gateway.mode();
    let mut security = Security::default();
    if mode.tls {
        let ca = gateway.ca_file().expect("a TLS gateway has a CA file");
        let host = gateway.tls_host().expect("a TLS gateway has a host name");
        security.tls = Some(TlsOptions::with_ca_file(ca).server_name(host));
    }
    if mode.http {
        security.http = Some(HttpOptions::default());
    }
    if let (Some(qop), Some(krb)) = (mode.kerberos, gateway.kerberos()) {
        security.kerberos = Some(KerberosOptions {
            qop: qop_of(qop),
            server_host: Some(krb.server_host.clone()),
            ..KerberosOptions::default()
        });
    }
    security
}

fn client(addr: &str, security: Security, request_timeout: Duration) -> Result<Client, basalt::Error> {
    Client::builder()
        .address(addr)
        .security(security)
        .pool_size(4)
        .connect_timeout(Duration::from_secs(5))
        .request_timeout(request_timeout)
        .build()
}

/// A client for calls that must fail: no retries, so the first error is the one seen.
fn failing_client(addr: &str, security: Security, request_timeout: Duration) -> Result<Client, basalt::Error> {
    Client::builder()
        .address(addr)
        .security(security)
        .pool_size(1)
        .connect_timeout(Duration::from_secs(5))
        .request_timeout(request_timeout)
        .retry_policy(basalt::NoRetry)
        .build()
}

/// The security error somewhere in an error's chain.
fn secure_error(e: &(dyn std::error::Error + 'static)) -> Option<SecureError> {
    let mut current = Some(e);
    while let Some(err) = current {
        if let Some(call) = err.downcast_ref::<CallError>() {
            if let Some(found) = SecureError::of(call) {
                return Some(found.clone());
            }
        }
        if let Some(found) = err.downcast_ref::<SecureError>() {
            return Some(found.clone());
        }
        current = err.source();
    }
    None
}

/// The first call through a client that must fail; returns its error.
async fn first_call_error(client: &Client) -> basalt::Error {
    match client.admin().list_namespaces().await {
        Ok(ns) => panic!("the call should have failed, got namespaces {ns:?}"),
        Err(e) => e,
    }
}

async fn production_gateways_in_every_mode(env: Env) -> TestResult {
    let launcher = env.gateways()?;
    let gateways = tokio::task::spawn_blocking(move || {
        std::thread::scope(|s| {
            let handles: Vec<_> = modes()
                .into_iter()
                .map(|mode| {
                    let launcher = &launcher;
                    s.spawn(move || launcher.start_secure(&mode))
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("gateway start thread panicked")).collect::<Result<Vec<_>, _>>()
        })
    })
    .await??;
    // One KDC per run directory: every Kerberos gateway shares its krb5.conf and the
    // client's ticket cache. GSSAPI reads them from the standard variables.
    let _kerberos_env = KERBEROS_ENV.lock().await;
    if let Some(krb) = gateways.iter().find_map(|g| g.kerberos()) {
        std::env::set_var("KRB5_CONFIG", &krb.krb5_config);
        std::env::set_var("KRB5CCNAME", &krb.ccache);
    }
    for gateway in &gateways {
        eprintln!("secured gateway {} at {}", gateway.mode().tag(), gateway.addr());
        data_scan_and_salted_scan(&env, gateway).await.map_err(|e| format!("{}: {e}", gateway.mode().tag()))?;
        failures_are_clear(&env, gateway).await.map_err(|e| format!("{}: {e}", gateway.mode().tag()))?;
    }
    mismatches_fail_fast(&env, &gateways).await?;
    Ok(())
}

/// Puts, gets, a scan and a salted merged scan through a secured pooled client.
async fn data_scan_and_salted_scan(env: &Env, gateway: &SecureGateway) -> TestResult {
    let client = client(gateway.addr(), security_for(gateway), Duration::from_secs(60))?;
    let name = env.unique(&format!("sec_{}", gateway.mode().tag().replace('-', "_")));
    let desc = basalt::TableDescriptor::new(name.clone()).family(basalt::ColumnFamily::new("d"));
    client.admin().create_table(&desc, &[Bytes::from_static(b"r05")]).await?;
    let table = client.table(&name)?;
    // A 200 KB value crosses many TLS records, SASL frames and HTTP chunks.
    let big = vec![b'x'; 200 * 1024];
    let puts: Vec<Put> = (0..100).map(|i| Put::new(format!("r{i:03}")).cell("d", "q", format!("v{i}"))).collect();
    table.put_many(puts).await?;
    table.put(Put::new("r050").cell("d", "big", big.clone())).await?;
    let row = table.get(Get::new("r050")).await?;
    assert_eq!(row.value(b"d", b"q"), Some(&b"v50"[..]));
    assert_eq!(row.value(b"d", b"big").map(|v| v.len()), Some(big.len()));
    let rows = table.scan_all(Scan::new().caching(17)).await?;
    assert_eq!(rows.len(), 100, "the scan sees every row");
    assert!(rows.windows(2).all(|w| w[0].key() < w[1].key()), "rows come sorted");

    let schema = Schema::builder()
        .field("user", FieldType::Str(Width::Variable))
        .field("seq", FieldType::U32)
        .salt(Salt::hash(HashAlgo::Murmur3 { seed: 0 }, &["user"], 4))
        .build()?;
    let salted_name = env.unique("sec_salted");
    let desc = basalt::TableDescriptor::new(salted_name.clone()).family(basalt::ColumnFamily::new("d"));
    let splits: Vec<Bytes> = (1..4u8).map(|b| Bytes::from(vec![b])).collect();
    client.admin().create_table(&desc, &splits).await?;
    let salted = client.table(&salted_name)?.salted(schema);
    let mut expected = BTreeSet::new();
    let mut puts = Vec::new();
    for i in 0..600u64 {
        let values = [Value::str(format!("u{:03}", (i * 7919) % 97)), Value::UInt(i)];
        expected.insert(salted.schema().encode_logical(&values)?);
        puts.push(salted.new_put(&values)?.cell("d", "v", "x"));
    }
    salted.table().put_many(puts).await?;
    let rows: Vec<SaltedRow> = salted.scan(Query::new()).stream().await?.try_collect().await?;
    let got: Vec<Bytes> = rows.iter().map(|r| r.logical_key_bytes()).collect();
    let expected: Vec<Bytes> = expected.into_iter().collect();
    assert!(got == expected, "the merged salted scan equals the sorted rows ({} vs {})", got.len(), expected.len());

    client.admin().delete_table(&name).await?;
    client.admin().delete_table(&salted_name).await?;
    Ok(())
}

/// Wrong CA, wrong host name, no ticket, a weaker QOP than required, and a client
/// without the gateway's security: each a clear error.
async fn failures_are_clear(_env: &Env, gateway: &SecureGateway) -> TestResult {
    let mode = gateway.mode();
    let quick = Duration::from_secs(8);
    if mode.tls {
        let mut wrong_ca = security_for(gateway);
        wrong_ca.tls = Some(
            TlsOptions::with_ca_file(gateway.other_ca_file().expect("other CA"))
                .server_name(gateway.tls_host().unwrap()),
        );
        let e = first_call_error(&failing_client(gateway.addr(), wrong_ca, quick)?).await;
        assert!(
            matches!(secure_error(&e), Some(SecureError::UntrustedCertificate { .. })),
            "wrong CA: expected an untrusted certificate, got {e}"
        );
        let mut wrong_name = security_for(gateway);
        wrong_name.tls = Some(TlsOptions::with_ca_file(gateway.ca_file().unwrap()).server_name("wrong.example"));
        let e = first_call_error(&failing_client(gateway.addr(), wrong_name, quick)?).await;
        assert!(
            matches!(secure_error(&e), Some(SecureError::HostNameMismatch { ref name, .. }) if name == "wrong.example"),
            "wrong host name: expected a host-name mismatch, got {e}"
        );
    }
    if let (Some(qop), Some(krb)) = (mode.kerberos, gateway.kerberos()) {
        let mut nobody = security_for(gateway);
        nobody.kerberos.as_mut().unwrap().principal = Some(format!("nobody@{}", krb.realm));
        let e = first_call_error(&failing_client(gateway.addr(), nobody, quick)?).await;
        assert!(
            matches!(secure_error(&e), Some(SecureError::NoTicket { .. })),
            "no ticket: expected NoTicket, got {e}"
        );
        if !mode.http && qop != GatewayQop::AuthConf {
            let mut stronger = security_for(gateway);
            stronger.kerberos.as_mut().unwrap().qop = Qop::AuthConf;
            let e = first_call_error(&failing_client(gateway.addr(), stronger, quick)?).await;
            assert!(
                matches!(secure_error(&e), Some(SecureError::QopMismatch { .. })),
                "requiring auth-conf of an {} gateway: expected QopMismatch, got {e}",
                qop.as_str()
            );
        }
        // The secured gateway refuses a client without Kerberos.
        let mut unauthenticated = security_for(gateway);
        unauthenticated.kerberos = None;
        let e = first_call_error(&failing_client(gateway.addr(), unauthenticated, quick)?).await;
        if mode.http {
            assert!(
                matches!(secure_error(&e), Some(SecureError::HttpStatus { status: 401, .. })),
                "SPNEGO gateway without Kerberos: expected HTTP 401, got {e}"
            );
        } else {
            // HBase's SASL server refuses the bytes (not a SASL header) and hangs up, or
            // waits for more: no data is served either way.
            assert!(
                matches!(
                    e,
                    basalt::Error::Timeout { .. } | basalt::Error::Transport { .. } | basalt::Error::Protocol { .. }
                ),
                "SASL gateway without Kerberos: expected a refusal, got {e}"
            );
        }
    }
    Ok(())
}

/// Clients whose transport or security does not match the server fail with a clear
/// error bounded by the connect timeout, never a hang.
async fn mismatches_fail_fast(env: &Env, gateways: &[SecureGateway]) -> TestResult {
    let quick = Duration::from_secs(20);
    let plain_addr = env.addr();
    // TLS client against the plain gateway: the TLS handshake fails or times out.
    let tls = gateways.iter().find(|g| g.mode().tls && !g.mode().http).expect("a TLS gateway");
    let e = first_call_error(&failing_client(plain_addr, security_for(tls), quick)?).await;
    assert!(
        matches!(secure_error(&e), Some(SecureError::Tls { .. } | SecureError::HandshakeTimeout { phase: "TLS", .. })),
        "TLS client against a plain gateway: got {e}"
    );
    // Plain client against the TLS terminator: the server hangs up.
    let e = first_call_error(&failing_client(tls.addr(), Security::default(), quick)?).await;
    assert!(!matches!(e, basalt::Error::Timeout { .. }), "plain client against TLS must not hang: {e}");
    // SASL client against the plain gateway: the negotiation is bounded.
    let krb = gateways.iter().find(|g| g.mode().kerberos.is_some() && !g.mode().http).expect("a Kerberos gateway");
    let e = first_call_error(&failing_client(plain_addr, security_for(krb), quick)?).await;
    assert!(
        matches!(
            secure_error(&e),
            Some(SecureError::HandshakeTimeout { phase: "SASL", .. } | SecureError::Sasl { .. })
        ),
        "SASL client against a plain gateway: got {e}"
    );
    // HTTP client against the plain socket gateway.
    let http_only = Security { http: Some(HttpOptions::default()), ..Security::default() };
    let e = first_call_error(&failing_client(plain_addr, http_only, quick)?).await;
    assert!(!matches!(e, basalt::Error::Timeout { .. }), "HTTP client against a socket gateway must not hang: {e}");
    Ok(())
}
