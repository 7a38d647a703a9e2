//! Basalt: an async client for Apache HBase over the Thrift2 gateway.
//!
//! # Quick tour
//!
//! ```no_run
//! use basalt::{Client, ColumnFamily, Delete, Get, Put, Scan, TableDescriptor};
//! use futures::TryStreamExt;
//!
//! # async fn tour() -> basalt::Result<()> {
//! // One or several Thrift2 gateways; a pool of connections spread over them.
//! let client = Client::builder().address("127.0.0.1:9090").pool_size(8).build()?;
//!
//! // Admin: a pre-split table with two families.
//! let admin = client.admin();
//! let desc = TableDescriptor::new("calls")
//!     .family(ColumnFamily::new("d").max_versions(3))
//!     .family(ColumnFamily::new("m").ttl_seconds(86_400));
//! admin.create_table(&desc, &["1|".into(), "2|".into()]).await?;
//!
//! // Data: puts, gets, deletes that say which versions they remove.
//! let calls = client.table("calls")?;
//! calls.put(Put::new("1|13800000000").cell("d", "dur", "61")).await?;
//! let row = calls.get(Get::new("1|13800000000").family("d")).await?;
//! assert_eq!(row.value(b"d", b"dur"), Some(&b"61"[..]));
//! calls.delete(Delete::row("1|13800000000").latest_version("d", "dur")).await?;
//!
//! // Scans are Streams; dropping one closes the server-side scanner.
//! let rows: Vec<_> = calls.scan(Scan::new().prefix("1|").limit(100))?.try_collect().await?;
//! # let _ = rows;
//! # Ok(()) }
//! ```
//!
//! # What to expect
//! - **Connections**: [`ClientBuilder`] documents every default. Calls wait for a
//!   free connection (one call per connection: Thrift has no multiplexing); dead idle
//!   connections are replaced before use; a call abandoned mid-flight (its future
//!   dropped, or timed out) never returns its connection to the pool.
//! - **Retries**: idempotent calls (gets, scans, puts, deletes, admin reads) are
//!   retried on retryable errors by the [`RetryPolicy`] within a time budget
//!   ([`ClientBuilder::retry_budget`], default 45 s: longer than a routine gateway
//!   restart), failing over to other gateways; increments, appends and
//!   check-and-mutate are retried only when they were never sent, and a failure after
//!   sending says the write may have been applied ([`Error::WriteOutcomeUnknown`]).
//! - **Scans**: one page ahead at most; the server-side scanner is used only on the
//!   connection that opened it, every page is checked against the scan's range and
//!   direction, and the scan reopens after the last returned row when the scanner
//!   expires, the connection breaks or a page is refused. Pages grow from
//!   [`FIRST_PAGE_ROWS`] toward about [`PAGE_TARGET_BYTES`] unless `caching` is set;
//!   [`Scan::parallel_regions`] reads several regions at once, rows still in order.
//! - **Rows**: a [`Row`] of a get or a scan is a view of the reply page it came in (no
//!   copy, no allocation per cell); its cells are read through [`Row::cells`] as
//!   [`CellRef`]s. Holding a row keeps its page in memory (up to about
//!   [`PAGE_TARGET_BYTES`]): [`Row::detach`] copies one out for keeping long-term.
//! - **Salted scans**: [`Table::salted`] binds a table to a `basalt_rowkey::Schema`;
//!   [`SaltedTable::scan`] plans the buckets a query touches, scans them concurrently
//!   and heap-merges them into one ordered stream, with limits and resumable cursors.
//! - **Errors**: [`Error`] is typed (`TableNotFound`, `NoSuchColumnFamily`,
//!   `ScannerExpired`, ...) and [`Error::is_retryable`] says whether trying again can
//!   help. Bad input is rejected before sending ([`InvalidInput`]).
//! - **Tracing**: one span per call (`hbase.call`), per attempt on a connection
//!   (`hbase.attempt`, scan pages included) and per scan (`hbase.scan`); the library
//!   installs no subscriber.

mod admin;
mod batch;
mod client;
mod coalesce;
mod error;
pub mod filter;
mod ops;
mod options;
mod paging;
mod pool;
mod region;
mod region_scan;
mod retry;
mod row;
mod salted;
mod scan;
mod scan_worker;
mod table;
mod validate;

pub use admin::{Admin, BlockEncoding, BloomFilter, ColumnFamily, Compression, TableDescriptor};
pub use basalt_thrift::{Framing, Protocol};
pub use bytes::Bytes;
pub use client::{Client, ClientBuilder, DEFAULT_GETS_IN_FLIGHT, DEFAULT_RETRY_BUDGET};
pub use error::{Error, InvalidInput, Result};
pub use filter::{Comparator, CompareOp, Filter};
pub use ops::{Append, Delete, Durability, Get, Increment, Put, RowMutations};
pub use options::ReadOptions;
pub use paging::{FIRST_PAGE_ROWS, MAX_PAGE_ROWS, PAGE_GROWTH, PAGE_TARGET_BYTES};
pub use pool::PoolStats;
pub use region::RegionLocation;
pub use region_scan::{PARALLEL_FIRST_PAGE_ROWS, PARALLEL_PAGES_AHEAD, PARALLEL_PAGE_TARGET_BYTES};
pub use retry::{DefaultRetryPolicy, NoRetry, RetryDecision, RetryPolicy};
pub use row::{Cell, CellRef, Cells, Row};
pub use salted::{
    merge_ordered, BucketStats, CursorError, CursorKey, SaltedCursor, SaltedRow, SaltedScan, SaltedStream, SaltedTable,
};
pub use scan::{RowStream, Scan, ScanPaging, ScanStats};
pub use table::{Table, DEFAULT_BATCH_ROWS};
pub use validate::{max_row_key_len, MAX_ROW_KEY_LEN};
