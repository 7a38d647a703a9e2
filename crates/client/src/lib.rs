//! Basalt: an async client for Apache HBase, over its native RPC (straight to the region
//! servers, `ClientBuilder::native`) or its Thrift2 gateway, with one API over both.
//!
//! This page is the guide: each section below is one step, from connecting to a
//! secured cluster, and every example compiles. The examples that need a running
//! HBase are marked `no_run`; to run them, start one with `basalt local start` (it
//! prints `host:port`), or run `cargo run -p basalt-hbase --example salted_scan`, which starts
//! and stops its own. The key-design types come from the [`basalt_rowkey`] crate.
//!
//! # 1. Connect
//!
//! A [`Client`] is a cheap, cloneable handle to a pool of connections over one or
//! several Thrift2 gateways. Building it connects nothing: connections are opened on
//! first use, and a call to a gateway that is down fails over to the others.
//! [`ClientBuilder`] documents every default (timeouts, pool size, reply size limit,
//! retry budget). The transport must match the gateway's: HBase's `thrift2` server runs
//! buffered and binary unless started with `-f` (framed) or `-c` (compact).
//!
//! ```no_run
//! use std::time::Duration;
//! use basalt::{Client, Framing, Protocol};
//!
//! # fn connect() -> basalt::Result<()> {
//! let client = Client::builder()
//!     .addresses(["thrift1.example.com:9090", "thrift2.example.com:9090"])
//!     .framing(Framing::Buffered)
//!     .protocol(Protocol::Binary)
//!     .connect_timeout(Duration::from_secs(5))
//!     .request_timeout(Duration::from_secs(30))
//!     .pool_size(8)
//!     .build()?;
//! let calls = client.table("telecom:calls")?; // a handle; nothing is sent yet
//! # let _ = calls;
//! # Ok(()) }
//! ```
//!
//! # 2. Write
//!
//! [`Put`] writes cells of one row; [`Table::put_many`] sends many rows in batches with
//! several calls in flight. [`Delete`] says exactly which versions it removes. Keys,
//! families, qualifiers and values are bytes ([`Bytes`], or anything that converts).
//! Tables are made with the [`Admin`] (families, versions, TTL, bloom filters, split
//! keys).
//!
//! ```no_run
//! use basalt::{Client, ColumnFamily, Delete, Put, TableDescriptor};
//!
//! # async fn write(client: Client) -> basalt::Result<()> {
//! let desc = TableDescriptor::new("logs").family(ColumnFamily::new("d").max_versions(3));
//! client.admin().create_table(&desc, &[]).await?;
//!
//! let logs = client.table("logs")?;
//! logs.put(Put::new("host1|0001").cell("d", "msg", "started")).await?;
//! let puts = (2..1000).map(|i| Put::new(format!("host1|{i:04}")).cell("d", "msg", "tick"));
//! let written = logs.put_many(puts).await?;
//! logs.delete(Delete::row("host1|0001").latest_version("d", "msg")).await?;
//! let hits = logs.increment_counter("stats", "d", "hits", 1).await?;
//! # let _ = (written, hits);
//! # Ok(()) }
//! ```
//!
//! # 3. Read
//!
//! A [`Get`] reads one row (some columns, some versions); [`Table::get_many`] reads
//! many in one call. A [`Row`] is a view of the reply it came in: no copy, no
//! allocation per cell. Its cells are [`CellRef`]s, in HBase's order (family,
//! qualifier, newest version first). A missing row is an empty `Row`, not an error.
//!
//! ```no_run
//! use basalt::{Get, Table};
//!
//! # async fn read(logs: Table) -> basalt::Result<()> {
//! let row = logs.get(Get::new("host1|0002").family("d").max_versions(3)).await?;
//! if row.is_empty() {
//!     println!("no such row");
//! }
//! let msg: Option<&[u8]> = row.value(b"d", b"msg"); // the newest version
//! for cell in row.cells() {
//!     println!("{:?}:{:?} @{} = {:?}", cell.family(), cell.qualifier(), cell.timestamp(), cell.value());
//! }
//! let kept = row.detach(); // a copy that does not keep the whole reply alive
//! # let _ = (msg, kept);
//! # Ok(()) }
//! ```
//!
//! # 4. Scan
//!
//! [`Table::scan`] gives a [`RowStream`], a `futures::Stream` of rows in key order:
//! by prefix or `[start, stop)`, reversed, limited. Pages grow from
//! [`tuning::FIRST_PAGE_ROWS`] toward about [`tuning::PAGE_TARGET_BYTES`] (over native RPC
//! [`tuning::NATIVE_PAGE_TARGET_BYTES`]) unless [`Scan::caching`] sets the rows per page,
//! and one page is fetched ahead. A scan survives an expired
//! scanner or a broken connection: it reopens after the last row it returned, so no
//! row is missed or repeated. Dropping the stream closes the server-side scanner.
//! [`Scan::parallel_regions`] reads several regions at once, rows still in key order.
//!
//! ```no_run
//! use basalt::{Scan, Table};
//! use futures::TryStreamExt;
//!
//! # async fn scan(logs: Table) -> basalt::Result<()> {
//! let mut rows = logs.scan(Scan::new().prefix("host1|").family("d"))?;
//! while let Some(row) = rows.try_next().await? {
//!     println!("{:?}", row.key());
//! }
//! // The latest ten rows of host1: a reversed scan with a limit.
//! let latest: Vec<_> = logs.scan(Scan::new().prefix("host1|").reversed(true).limit(10))?.try_collect().await?;
//! # let _ = latest;
//! # Ok(()) }
//! ```
//!
//! # 5. Filter
//!
//! [`Filter`] builds HBase's server-side filters with types and combines them with
//! [`Filter::and`] / [`Filter::or`]. [`Filter::parse`] reads HBase's filter language
//! (the strings of the HBase shell and of `basalt scan --filter`) on the client, and a
//! malformed string is an error that says what is wrong and at which position, before
//! anything is sent. Both ways give the same [`Filter`], and [`Filter::render`] gives
//! the string again. A filter goes on a [`Scan`] or a [`Get`]; the server applies it
//! to each row before sending it. The [`filter`] module lists every filter.
//!
//! ```
//! use basalt::{Comparator, CompareOp, Filter, Row, Scan, Table};
//! use futures::TryStreamExt;
//!
//! let outgoing = Filter::single_column_value("d", "type", CompareOp::Equal, Comparator::binary("out"))
//!     .filter_if_missing(true)
//!     .build();
//! let filter = outgoing.and(Filter::page(20));
//! let text = "SingleColumnValueFilter('d', 'type', =, 'binary:out', true, true) AND PageFilter(20)";
//! assert_eq!(filter.render()?, text.as_bytes());
//! assert_eq!(Filter::parse(text)?, filter);
//!
//! let bad = Filter::parse("PrefixFilter('a') AND").unwrap_err();
//! assert_eq!(bad.position(), 21); // "expected a filter at position 21"
//!
//! async fn outgoing_calls(calls: &Table, filter: Filter) -> basalt::Result<Vec<Row>> {
//!     calls.scan(Scan::new().prefix("13812345678").filter(filter))?.try_collect().await
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # 6. Salted scan
//!
//! A salted key starts with a bucket computed from some of its fields, which spreads
//! writes over regions; a range read then needs one scan per bucket. [`Table::salted`]
//! binds a table to a [`basalt_rowkey::Schema`]: writes and gets take the key's field
//! values and compute the salt, and [`SaltedTable::scan`] plans only the buckets a
//! query can touch, scans them at the same time and merges them with a tree of losers
//! into one stream ordered by the key without its salt (ascending, or descending with
//! `Query::reverse`). Here the salted call records: the salt mixes the phone's last
//! digits with the month, so one phone over three months is three scans.
//!
//! ```no_run
//! use basalt::{Client, ColumnFamily, TableDescriptor};
//! use basalt_rowkey::{split, FieldType, Pad, Query, Salt, Schema, Value, Width};
//! use futures::TryStreamExt;
//!
//! # async fn salted(client: Client) -> Result<(), Box<dyn std::error::Error>> {
//! // [salt of (phone, month)]_[phone]_[yyyyMMddHHmmss], 6 buckets.
//! let schema = Schema::builder()
//!     .field("phone", FieldType::Str(Width::Fixed { len: 11, pad: Pad::Right(b' ') }))
//!     .literal("_")
//!     .field("calltime", FieldType::Decimal { digits: 14 })
//!     .salt(Salt::call_record("phone", "calltime", 6)) // the call-record salt
//!     .build()?;
//! let desc = TableDescriptor::new("calls").family(ColumnFamily::new("d"));
//! client.admin().create_table(&desc, &split::bucket_split_keys(&schema)).await?;
//!
//! let calls = client.table("calls")?.salted(schema);
//! calls.put(&[Value::str("13812345678"), Value::UInt(20210915123045)], |p| p.cell("d", "dur", "61")).await?;
//!
//! let query = Query::new()
//!     .fixed(Value::str("13812345678"))
//!     .between(Value::UInt(20210901000000), Value::UInt(20211201000000));
//! println!("buckets to scan: {:?}", calls.scan(query.clone()).plan()?.buckets());
//! let mut rows = calls.scan(query).limit(100).stream().await?;
//! while let Some(row) = rows.try_next().await? {
//!     println!("{:?} dur={:?}", row.values(calls.schema())?, row.row.value(b"d", b"dur"));
//! }
//! # Ok(()) }
//! ```
//!
//! Each bucket fetches at most one page ahead, and [`SaltedScan::concurrency`] bounds
//! how many fetch at once. With the default [`ScanPaging::Scanner`] each open bucket
//! keeps one connection for its server-side scanner; [`ScanPaging::Stateless`] (set on
//! [`SaltedScan::template`]) holds none between pages, for scans over hundreds of
//! buckets.
//!
//! # 7. Cursors
//!
//! [`SaltedStream::cursor`] is the position after the last row returned (each bucket's
//! last key), as a text token that can cross processes ([`SaltedCursor::to_token`]);
//! [`SaltedScan::resume`] continues the same query from it with no duplicate and no
//! gap. Tokens are signed with a [`CursorKey`] and checked against the query's ranges,
//! so an altered or foreign token is refused ([`CursorError`]). The key is random per
//! process unless you set one: keep it in a file to resume in another process.
//!
//! ```no_run
//! use basalt::{CursorKey, SaltedCursor, SaltedTable};
//! use basalt_rowkey::{Query, Value};
//! use futures::TryStreamExt;
//!
//! # async fn pages(calls: SaltedTable, token: Option<String>) -> Result<(), Box<dyn std::error::Error>> {
//! let calls = calls.cursor_key(CursorKey::load_or_create("cursor.key")?);
//! let query = Query::new().fixed(Value::str("13812345678"));
//! let mut scan = calls.scan(query).limit(20);
//! if let Some(token) = token {
//!     scan = scan.resume(SaltedCursor::from_token(&token)?);
//! }
//! let mut page = scan.stream().await?;
//! while let Some(row) = page.try_next().await? {
//!     println!("{:?}", row.logical_key());
//! }
//! let next = page.cursor().to_token(); // hand this to the next request
//! # let _ = next;
//! # Ok(()) }
//! ```
//!
//! # 8. Errors and retries
//!
//! Every call returns [`Result`]; [`Error`] is typed and `#[non_exhaustive]`:
//! `TableNotFound`, `NoSuchColumnFamily`, `ScannerExpired`, `Timeout`, ... Bad input
//! is refused before anything is sent ([`Error::InvalidInput`], e.g. a row key longer
//! than HBase takes, [`tuning::MAX_ROW_KEY_LEN`]).
//!
//! - **Retries**: idempotent calls (gets, scans, puts, deletes, admin reads) are
//!   retried on retryable errors ([`Error::is_retryable`]) by the [`RetryPolicy`]
//!   ([`DefaultRetryPolicy`]: backoff, failover to other gateways) within
//!   [`ClientBuilder::retry_budget`] (default 45 s, longer than a routine gateway
//!   restart). [`NoRetry`] turns that off.
//! - **Writes in doubt**: increments, appends and check-and-mutate are retried only if
//!   they were never sent. If the connection fails after sending, the write may have
//!   been applied: [`Error::WriteOutcomeUnknown`]. So are deletes of a column's newest
//!   version and puts with a cell on the server's clock (no timestamp), which would
//!   apply twice (see [`ClientBuilder::resend_unstamped_puts`] for Java's behaviour).
//!   Other puts and deletes are retried; if one of their attempts was sent and never
//!   answered, their final error is `WriteOutcomeUnknown` too. So a write's error says its outcome: `WriteOutcomeUnknown`
//!   is unknown, [`Error::BatchFailed`] lists the rows confirmed, not confirmed and in
//!   doubt, and any other error means nothing was written ([`Error::may_have_written`]).
//! - **Outages**: a gateway that refuses connections while it restarts, or a load
//!   balancer that accepts and drops them, is retried for the whole budget
//!   ([`Error::is_outage`]).
//!
//! ```no_run
//! use std::time::Duration;
//! use basalt::{Client, Error, Get, NoRetry};
//!
//! # async fn errors() -> basalt::Result<()> {
//! let client = Client::builder().address("127.0.0.1:9090").retry_budget(Duration::from_secs(10)).build()?;
//! match client.table("nope")?.get(Get::new("k")).await {
//!     Ok(row) => println!("{} cells", row.len()),
//!     Err(Error::TableNotFound { table }) => println!("create {table} first"),
//!     Err(e) if e.may_have_written() => println!("check before writing again: {e}"),
//!     Err(e) => return Err(e),
//! }
//! // Fail at once instead (e.g. behind a caller that retries itself).
//! let impatient = Client::builder().address("127.0.0.1:9090").retry_policy(NoRetry).build()?;
//! # let _ = impatient;
//! # Ok(()) }
//! ```
//!
//! # 9. Security
//!
//! [`ClientBuilder::security`] takes a [`Security`]: TLS ([`TlsOptions`], rustls; the
//! cluster's CA, a client certificate), HTTP or HTTPS (HBase's `thrift.http` mode), and
//! Kerberos (SASL GSSAPI, SPNEGO over HTTP) with the `kerberos` cargo feature, which
//! loads the system's GSSAPI library at run time (nothing is linked when building).
//! Without the feature, asking for Kerberos fails at once rather than connecting
//! without it. With [`ClientBuilder::native`], the same
//! TLS and Kerberos settings secure the connections to the region servers.
//!
//! ```no_run
//! use basalt::{Client, HttpOptions, Security, TlsOptions};
//!
//! # fn secure() -> basalt::Result<()> {
//! let https = Security {
//!     tls: Some(TlsOptions::with_ca_file("/etc/hbase/ca.pem")),
//!     http: Some(HttpOptions::default()),
//!     ..Security::default()
//! };
//! let client = Client::builder().address("thrift1.example.com:9090").security(https).build()?;
//! # let _ = client;
//! # Ok(()) }
//! ```
//!
//! # What else to know
//! - **Administration** ([`Admin`], from [`Client::admin`]): namespaces, tables with
//!   every family and table setting, families, regions (flush, compact, split, merge,
//!   move, unassign), the balancer, snapshots and the cluster's status. With
//!   [`ClientBuilder::native`] all of it goes to the master over native RPC, no gateway
//!   needed; through the Thrift2 gateway, namespaces, tables and families work and the
//!   rest is refused before sending with [`InvalidInput::Untranslatable`], naming
//!   native RPC as the way.
//! - **Connections**: calls wait for a free connection (one call per connection:
//!   Thrift has no multiplexing); dead idle connections are replaced before use; a
//!   call abandoned mid-flight (its future dropped, or timed out) never returns its
//!   connection to the pool. Gets from many tasks that wait for a slot are sent
//!   together as one `getMultiple` ([`ClientBuilder::gets_in_flight`]).
//! - **Memory**: holding a [`Row`] keeps its reply page in memory (up to about
//!   [`tuning::PAGE_TARGET_BYTES`]); [`Row::detach`] copies one out for keeping long-term.
//!   Every length a server sends is bounded by the bytes that remain, so a broken
//!   gateway gets a typed error, never a huge allocation.
//! - **Scans are exact**: a scanner id is used only on the connection that opened it,
//!   and every page is checked against the scan's range and direction.
//! - **Tracing**: one span per call (`hbase.call`), per attempt on a connection
//!   (`hbase.attempt`, scan pages included) and per scan (`hbase.scan`); the library
//!   installs no subscriber.
//! - **Metrics**: calls by operation and outcome, attempts, retries, scan pages and
//!   pool connections go through the `metrics` facade ([`metrics`] lists them); the
//!   library installs no recorder.
//! - **Tuning**: the defaults and limits the client sizes pages, batches and retries
//!   by are in [`tuning`].

mod admin;
mod attempt;
mod batch;
mod batch_action;
mod client;
mod coalesce;
mod conditional;
mod error;
pub mod filter;
pub mod metrics;
mod nonce;
mod operation;
mod ops;
mod options;
mod region;
mod request;
mod resend;
mod retry;
mod row;
mod salted;
mod scan;
mod schema;
pub mod site;
mod table;
mod table_batch;
pub mod transport;
pub mod tuning;
mod validate;

pub use admin::Admin;
pub use schema::{
    BalanceResult, BlockEncoding, BloomFilter, ClusterStatus, ColumnFamily, Compression, RegionInTransition,
    RegionLoad, ServerStatus, SnapshotInfo, TableDescriptor,
};
pub use site::{HBaseSite, SiteError, SiteRoute};
// The gateway connection's settings (framing, protocol, TLS, HTTP, Kerberos) and the
// errors a connection reports.
pub use batch_action::BatchAction;
pub use bytes::Bytes;
pub use client::{Client, ClientBuilder};
pub use conditional::{CheckAndMutate, CheckAndMutateResult, CheckedAction};
pub use error::{BusyKind, Error, InvalidInput, Result};
pub use filter::{Comparator, CompareOp, Filter};
pub use operation::Operation;
pub use ops::{Append, Delete, Durability, Get, Increment, Put, RowMutations};
pub use options::{Consistency, ReadOptions, MAX_REPLICA_ID};
pub use region::RegionLocation;
pub use retry::{DefaultRetryPolicy, NoRetry, RetryDecision, RetryPolicy};
pub use row::{Cell, CellRef, CellType, Cells, Row};
pub use salted::{
    merge_ordered, BucketStats, CursorError, CursorKey, SaltedCursor, SaltedRow, SaltedScan, SaltedStream, SaltedTable,
};
pub use scan::{cut_at_regions, RowStream, Scan, ScanPaging, ScanStats};
pub use table::Table;
pub use table_batch::ActionResult;
pub use transport::native::RpcError;
pub use transport::thrift::{
    CallError, Framing, HttpOptions, KerberosOptions, Protocol, Qop, ReplyError, SecureError, Security, TlsOptions,
    KERBEROS_SUPPORTED,
};
pub use transport::Capabilities;
pub use transport::PoolStats;
pub use transport::TransportFailure;
pub use validate::max_row_key_len;

/// Crate-private entry points for the crate's own benchmarks (feature
/// `bench-internals`); not part of the API.
#[cfg(feature = "bench-internals")]
#[doc(hidden)]
pub mod bench_internals {
    use crate::row::Row;

    /// The rows of a decoded reply page, as a scan delivers them.
    pub use crate::transport::thrift::rows_from_batch;

    /// The rows of a native reply's results, as a scan delivers them.
    pub use crate::transport::native::rows_from_results;

    /// The rows of a native reply laid flat over its cell block, as a scan delivers them.
    pub use crate::transport::native::rows_from_block;

    /// A salted scan's ordered merged stream over pages already fetched: `pages[i]`
    /// are the pages of `plan`'s range `i`.
    pub fn salted_stream_from_pages(
        schema: basalt_rowkey::Schema,
        plan: &basalt_rowkey::ScanPlan,
        pages: Vec<Vec<Vec<Row>>>,
    ) -> crate::Result<crate::SaltedStream> {
        crate::SaltedStream::from_pages(schema, plan, pages)
    }
}

/// The README's Rust example, compiled by `cargo test --doc -p basalt-hbase` so that it stays
/// true (only in doctest builds: the README is outside the package).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeExample;
