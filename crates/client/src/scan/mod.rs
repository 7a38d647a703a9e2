//! The scan engine: scans as `futures::Stream`s of rows.
//!
//! A scan runs in a background task ([`worker`]) that pages through a server-side
//! scanner one page ahead of the consumer (memory is bounded by two pages, three over
//! native RPC, whose scanner asks for its next page while the current one is read,
//! and whose connections keep up to 8 MiB of read buffers for the next replies;
//! pages grow from small to about 2 MiB unless `caching` is set, see [`plan`]). Its server-side
//! scanner is pinned to the connection that opened it: the id is only ever used on
//! that connection, so a restarted gateway or a load balancer can never hand the scan
//! another scanner's rows. Every page is checked against the scan's range and
//! direction before a row is delivered ([`position`]). When the scanner expires, the
//! connection is lost or a page fails the checks, the scan reopens just after the last
//! row it returned: no row twice, no row missed. Dropping the stream stops the task,
//! which closes the server-side scanner.
//!
//! How a scan runs is its [`ScanMode`], chosen when it starts: one scanner
//! ([`ScanMode::Plain`]), region pieces read at once and yielded in order
//! ([`ScanMode::ParallelRegions`], coordinated in [`regions`]), or one range of a salted
//! scan ([`ScanMode::SaltedBucket`]).
//!
//! | file | holds | imports from the crate |
//! |---|---|---|
//! | `spec.rs` | [`Scan`], [`ScanPaging`], [`ScanMode`], validation (no I/O) | `error`, `filter`, `options` |
//! | `plan.rs` | the one table of page plans, the page sizer, the paging constants | nothing |
//! | `key_order.rs` | row keys compared eight bytes at a time | nothing |
//! | `position.rs` | position, limit, page checks, the request at the position (no I/O) | `key_order`, `spec`, `error`, `filter`, `row`, `transport`, `validate` |
//! | `stats.rs` | [`ScanStats`] | nothing |
//! | `worker.rs` | the task of one range: pages, reopens, retries | `plan`, `position`, `spec`, `stats`, `attempt`, `error`, `metrics`, `operation`, `row`, `transport` |
//! | `regions.rs` | [`cut_at_regions`], region pieces, the parallel coordinator | `plan`, `position`, `spec`, `stats`, `worker`, `attempt`, `error`, `operation`, `region`, `row`, `transport` |
//! | `stream.rs` | [`RowStream`], started in its mode | `plan`, `regions`, `spec`, `stats`, `worker`, `attempt`, `error`, `row` |
//!
//! The import-graph test (`import_graph.rs`) holds the engine to this table, and the
//! crate to no import cycle.

mod key_order;
#[cfg(test)]
mod metrics_tests;
mod plan;
mod position;
mod regions;
mod spec;
mod stats;
mod stream;
mod worker;

pub use plan::{
    FIRST_PAGE_ROWS, MAX_PAGE_ROWS, NATIVE_PAGE_TARGET_BYTES, PAGE_GROWTH, PAGE_TARGET_BYTES, PARALLEL_FIRST_PAGE_ROWS,
    PARALLEL_PAGES_AHEAD, PARALLEL_PAGE_TARGET_BYTES,
};
pub(crate) use position::{after_row, RowLimit};
pub use regions::cut_at_regions;
pub(crate) use regions::{ordered_pieces, region_locations};
pub(crate) use spec::ScanMode;
pub use spec::{Scan, ScanPaging};
pub use stats::ScanStats;
pub use stream::RowStream;
