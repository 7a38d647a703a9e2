//! Puts on the server's clock applied at most once, however often the connection flaps:
//! the apply-once scenario of `deletes_once` ([`crate::support::apply_once`]) with a
//! stream of `put` calls and `put_many` batches, each writing `d:q` of its own empty row
//! without a timestamp, in a family that keeps several versions.
//!
//! Such a put is not idempotent: applied twice, it writes two versions. A call cut after
//! its request reached the server may have been applied; with the client's default
//! (`resend_unstamped_puts(false)`) it must not be sent again, and its caller must hear
//! that its outcome is unknown. Counted per row from the versions written: 0 applied
//! twice, every acknowledged put applied exactly once, none reported failed (not in
//! doubt) applied.

use basalt::{Bytes, Client, Get, Put};
use basalt_chaos::{Faults, Proxy};

use crate::support::apply_once::{self, batch_reports, row, single_report, Writes};
use crate::support::faults::{gateway_client_through, native_client_through, region_server_proxies};
use crate::support::{Env, Test, TestResult};
use crate::tests;

/// One run per transport, each behind that transport's own flapping proxy.
pub fn trials() -> Vec<Test> {
    tests![
        #[native_only("flapping proxies in front of the region servers")]
        puts_on_the_server_clock_apply_once_behind_flapping_region_servers,
        #[gateway_only("a flapping proxy in front of the gateway")]
        puts_on_the_server_clock_apply_once_behind_a_flapping_gateway,
    ]
}

/// Rows, empty at first; the first half take single puts, the second half `put_many`
/// batches of [`BATCH`].
const ROWS: usize = 40_000;
/// Puts per `put_many` call (one chunk: one `Multi` per region server).
const BATCH: usize = 20;
/// Versions read back per row: more than one put can write (the family keeps 5).
const MOST: u32 = 5;

/// Row `i`'s put: `d:q` on the server's clock.
fn unstamped(i: usize) -> Put {
    Put::new(row(i)).cell("d", "q", format!("v{i}"))
}

async fn puts_on_the_server_clock_apply_once_behind_flapping_region_servers(env: Env) -> TestResult {
    let proxies = region_server_proxies(&env, 287).await?;
    let client = native_client_through(&env, &proxies)?;
    puts_through(&env, proxies, client, "native").await
}

async fn puts_on_the_server_clock_apply_once_behind_a_flapping_gateway(env: Env) -> TestResult {
    let proxy = Proxy::start(vec![env.addr().to_owned()], Faults::none(), 289).await?;
    let client = gateway_client_through(&env, &proxy)?;
    puts_through(&env, vec![(env.addr().to_owned(), proxy)], client, "gateway").await
}

/// Runs the stream of puts on a fresh table through `client`, which reaches HBase
/// through `proxies` (flapped meanwhile), and counts what each row's versions say.
async fn puts_through(env: &Env, proxies: Vec<(String, Proxy)>, client: Client, transport: &str) -> TestResult {
    let table = env.fresh_table(&["d"], &[b"c3", b"c6"]).await?;
    let name = table.name();
    let through = &client.table(name)?.with_batch_rows(BATCH);
    through.get(Get::new(Bytes::from_static(b"\x00warm-up"))).await?;
    let heard = apply_once::stream(
        &proxies,
        ROWS,
        BATCH,
        |i| async move { single_report(&through.put(unstamped(i)).await) },
        |rows| async move {
            let result = through.put_many(rows.iter().map(|&i| unstamped(i))).await;
            batch_reports(&rows, &result)
        },
    )
    .await;
    // Count each row's versions, without the proxies.
    let written = apply_once::versions(&table, ROWS, MOST).await?;
    drop(proxies);
    env.client().admin().delete_table(name).await?;
    let writes = Writes {
        kind: "put",
        single: "single put without a timestamp",
        batch: &format!("put_many of {BATCH} puts without a timestamp"),
    };
    apply_once::verdict(heard, ROWS, |i| written[i], &writes, transport)
}
