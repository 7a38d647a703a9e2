//! Deletes of a column's newest version applied at most once, however often the
//! connection flaps: a proxy in front of each region server (native RPC) or in front of
//! the Thrift2 gateway is up for a while, then refuses connections and cuts every open one for longer than a
//! request timeout, over and over, while a stream of `delete(latest_version)` calls and
//! `delete_many` batches of them runs through it, each on its own row of three versions.
//!
//! Such a delete is not idempotent: applied twice, it removes two versions. A call cut
//! after its request reached the server may have been applied; it must not be sent
//! again, and its caller must hear that its outcome is unknown. Counted per row from the
//! versions left: 0 applied twice, every acknowledged one applied, none reported failed
//! (not in doubt) applied.

use basalt::{Bytes, Client, Delete, Get, Put, Table};
use basalt_chaos::{Faults, Proxy};

use crate::support::apply_once::{self, batch_reports, row, single_report, Writes};
use crate::support::faults::{gateway_client_through, native_client_through, region_server_proxies};
use crate::support::{Env, Test, TestResult};
use crate::tests;

/// One run per transport, each behind that transport's own flapping proxy.
pub fn trials() -> Vec<Test> {
    tests![
        #[native_only("flapping proxies in front of the region servers")]
        deletes_of_the_newest_version_apply_once_behind_flapping_region_servers,
        #[gateway_only("a flapping proxy in front of the gateway")]
        deletes_of_the_newest_version_apply_once_behind_a_flapping_gateway,
    ]
}

/// Rows, each with [`VERSIONS`] versions of `d:q`; the first half take single deletes,
/// the second half `delete_many` batches of [`BATCH`].
const ROWS: usize = 40_000;
/// Versions written per row (timestamps 1 to 3).
const VERSIONS: usize = 3;
/// Deletes per `delete_many` call (one chunk: one `Multi` per region server).
const BATCH: usize = 20;

fn delete_latest(i: usize) -> Delete {
    Delete::row(row(i)).latest_version("d", "q")
}

/// Writes [`VERSIONS`] versions of `d:q` in every row, directly.
async fn write_versions(table: &Table) -> TestResult {
    let rows: Vec<usize> = (0..ROWS).collect();
    for chunk in rows.chunks(1000) {
        table
            .put_many(chunk.iter().map(|&i| {
                (1..=VERSIONS as i64).fold(Put::new(row(i)), |put, ts| put.cell_at("d", "q", format!("v{ts}"), ts))
            }))
            .await?;
    }
    Ok(())
}

async fn deletes_of_the_newest_version_apply_once_behind_flapping_region_servers(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[b"c3", b"c6"]).await?;
    write_versions(&table).await?;
    let proxies = region_server_proxies(&env, 281).await?;
    let client = native_client_through(&env, &proxies)?;
    deletes_through(&env, table.name(), proxies, client, "native").await
}

async fn deletes_of_the_newest_version_apply_once_behind_a_flapping_gateway(env: Env) -> TestResult {
    let table = env.fresh_table(&["d"], &[b"c3", b"c6"]).await?;
    write_versions(&table).await?;
    let proxy = Proxy::start(vec![env.addr().to_owned()], Faults::none(), 283).await?;
    let client = gateway_client_through(&env, &proxy)?;
    deletes_through(&env, table.name(), vec![(env.addr().to_owned(), proxy)], client, "gateway").await
}

/// Runs the stream of deletes on table `name` through `client`, which reaches HBase
/// through `proxies` (flapped meanwhile), and counts what each row's versions say.
async fn deletes_through(
    env: &Env,
    name: &str,
    proxies: Vec<(String, Proxy)>,
    client: Client,
    transport: &str,
) -> TestResult {
    let through = &client.table(name)?.with_batch_rows(BATCH);
    through.get(Get::new(Bytes::from_static(b"\x00warm-up"))).await?;
    let heard = apply_once::stream(
        &proxies,
        ROWS,
        BATCH,
        |i| async move { single_report(&through.delete(delete_latest(i)).await) },
        |rows| async move {
            let result = through.delete_many(rows.iter().map(|&i| delete_latest(i))).await;
            batch_reports(&rows, &result)
        },
    )
    .await;
    // Count each row's versions left, without the proxies.
    let left = apply_once::versions(&env.client().table(name)?, ROWS, VERSIONS as u32 + 2).await?;
    drop(proxies);
    env.client().admin().delete_table(name).await?;
    let writes = Writes {
        kind: "delete",
        single: "single delete(latest_version)",
        batch: &format!("delete_many of {BATCH} latest-version deletes"),
    };
    apply_once::verdict(heard, ROWS, |i| VERSIONS.saturating_sub(left[i]), &writes, transport)
}
