//! Data operations on one table.

use std::sync::Arc;

use bytes::Bytes;

use crate::attempt::{Attempts, Idempotence};
use crate::batch;
use crate::client::Client;
use crate::error::{Error, Result};
use crate::filter::CompareOp;
use crate::ops::{Append, Delete, Get, Increment, Put, RowMutations};
use crate::region::RegionLocation;
use crate::row::Row;
use crate::scan::{RowStream, Scan, ScanMode};
use crate::transport::{CheckedWrite, Condition, Operation, OperationNonce, TransportFailure};
use crate::validate;

/// Rows per `getMultiple` / `putMultiple` / `deleteMultiple` call in the batched
/// methods: big enough to amortise round trips, small enough for the server's heap.
pub const DEFAULT_BATCH_ROWS: usize = 1000;

/// A handle on one table, from [`Client::table`]. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Table {
    client: Client,
    name: String,
    /// The name again, shared with the gets it has waiting to be coalesced.
    shared_name: Arc<str>,
    batch_rows: usize,
    write_concurrency: Option<usize>,
}

impl Client {
    /// A handle on a table (`name` or `namespace:name`); the name is validated here,
    /// the table's existence on first use.
    pub fn table(&self, name: &str) -> Result<Table> {
        validate::table_name(name)?;
        Ok(Table::new(self.clone(), name))
    }
}

impl Table {
    fn new(client: Client, name: &str) -> Table {
        Table {
            client,
            name: name.to_owned(),
            shared_name: Arc::from(name),
            batch_rows: DEFAULT_BATCH_ROWS,
            write_concurrency: None,
        }
    }

    /// The table's name as given (`name` or `namespace:name`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The client this table belongs to.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Rows per call in `get_many`, `put_many`, `delete_many` (default
    /// [`DEFAULT_BATCH_ROWS`]).
    pub fn with_batch_rows(mut self, rows: usize) -> Table {
        self.batch_rows = rows.max(1);
        self
    }

    /// Most `putMultiple` / `deleteMultiple` calls one `put_many` / `delete_many` has
    /// in flight at once, each on its own pooled connection (at least 1; 1 sends the
    /// chunks one after another). Default: a quarter of the pool size, between 1 and
    /// 8, leaving connections for other calls.
    pub fn with_write_concurrency(mut self, calls: usize) -> Table {
        self.write_concurrency = Some(calls.max(1));
        self
    }

    /// Rows per call of the batched methods.
    pub(crate) fn batch_rows(&self) -> usize {
        self.batch_rows
    }

    fn write_concurrency(&self) -> usize {
        self.write_concurrency.unwrap_or_else(|| default_write_concurrency(self.client.transport().max_in_flight()))
    }

    fn attempts(&self) -> &Attempts {
        self.client.attempts()
    }

    /// Refuses a row key longer than HBase serves for this table (see
    /// [`max_row_key_len`](crate::max_row_key_len)) before anything is sent.
    fn check_key(&self, key: &[u8]) -> Result<()> {
        Ok(validate::table_row_key(&self.name, key)?)
    }

    /// Reads one row; a missing row gives an empty [`Row`] (see [`Row::is_empty`]).
    pub async fn get(&self, get: Get) -> Result<Row> {
        self.check_key(get.row())?;
        // Through the client's gate: coalesced with the table's other waiting gets into one
        // `getMultiple` when the gate is full (see `crate::coalesce`).
        let gate = &self.client.inner.gets;
        let result = gate
            .get(self.client.attempts(), &self.shared_name, &get)
            .await
            .map_err(|e| e.with_filter_hint(get.options().has_filter()))?;
        Ok(result.or_key(get.row()))
    }

    /// Reads many rows, `batch_rows` per call; answers are in the order of `gets`
    /// (missing rows are empty).
    pub async fn get_many(&self, gets: impl IntoIterator<Item = Get>) -> Result<Vec<Row>> {
        let gets: Vec<Get> = gets.into_iter().collect();
        for get in &gets {
            self.check_key(get.row())?;
        }
        let has_filter = gets.iter().any(|g| g.options().has_filter());
        let mut rows = Vec::with_capacity(gets.len());
        for chunk in gets.chunks(self.batch_rows) {
            let results = self
                .attempts()
                .run(Operation::MultiGet, Some(&self.name), Idempotence::Idempotent, |t| t.get_many(&self.name, chunk))
                .await
                .map_err(|e| e.with_filter_hint(has_filter))?;
            if results.len() != chunk.len() {
                return Err(Error::Protocol {
                    addr: self.client.gateways(),
                    source: TransportFailure::Unanswered(format!(
                        "getMultiple answered {} rows for {} gets",
                        results.len(),
                        chunk.len()
                    )),
                });
            }
            rows.extend(results.into_iter().zip(chunk).map(|(row, get)| row.or_key(get.row())));
        }
        Ok(rows)
    }

    /// Whether the row exists (or, if the get names columns, any of them).
    pub async fn exists(&self, get: Get) -> Result<bool> {
        self.check_key(get.row())?;
        let gets = [get];
        let found = self
            .attempts()
            .run(Operation::Exists, Some(&self.name), Idempotence::Idempotent, |t| t.exists(&self.name, &gets))
            .await?;
        Ok(found.first().copied().unwrap_or(false))
    }

    /// `exists` for many gets, in order, `batch_rows` per call.
    pub async fn exists_many(&self, gets: impl IntoIterator<Item = Get>) -> Result<Vec<bool>> {
        let gets: Vec<Get> = gets.into_iter().collect();
        for get in &gets {
            self.check_key(get.row())?;
        }
        let mut answers = Vec::with_capacity(gets.len());
        for chunk in gets.chunks(self.batch_rows) {
            let part = self
                .attempts()
                .run(Operation::ExistsMany, Some(&self.name), Idempotence::Idempotent, |t| t.exists(&self.name, chunk))
                .await?;
            answers.extend(part);
        }
        Ok(answers)
    }

    /// Writes one row. A put with a cell on the server's clock (no timestamp) is never
    /// resent once an attempt of it may have reached HBase (it would write a second
    /// version): such an attempt without an answer ends the call with
    /// [`Error::WriteOutcomeUnknown`], unless the client was built with
    /// [`resend_unstamped_puts`](crate::ClientBuilder::resend_unstamped_puts).
    pub async fn put(&self, put: Put) -> Result<()> {
        self.check_key(put.row())?;
        put.validate(self.client.inner.max_value_bytes)?;
        let puts = [put];
        let failures = self
            .attempts()
            .run(Operation::Put, Some(&self.name), self.attempts().of_put(&puts[0]), |t| t.put(&self.name, &puts))
            .await?;
        // One write: a failure of it fails the attempt (transports report it so).
        match failures.into_iter().next() {
            Some(failure) => Err(failure.error),
            None => Ok(()),
        }
    }

    /// Writes many rows, `batch_rows` per `putMultiple` call, with up to
    /// [`write_concurrency`](Table::with_write_concurrency) calls in flight on
    /// separate connections. Every put is validated before the first is sent. A row
    /// written twice keeps the last write: a chunk is sent only after every earlier
    /// chunk with one of its rows is confirmed. On failure nothing more is sent, the
    /// calls in flight are awaited, and [`Error::BatchFailed`] says how many rows were
    /// confirmed, which rows may have been written (a failing chunk: HBase applies it
    /// row by row, so a chunk failing on one row can still write the others) and which
    /// were never sent. A put with a cell on the server's clock is not resent once an
    /// attempt of it may have run (see [`Table::put`]): it is listed in doubt.
    pub async fn put_many(&self, puts: impl IntoIterator<Item = Put>) -> Result<usize> {
        let puts: Vec<Put> = puts.into_iter().collect();
        let max = self.client.inner.max_value_bytes;
        for put in &puts {
            self.check_key(put.row())?;
            put.validate(max)?;
        }
        let chunks = batch::plan(puts.len(), self.batch_rows, |i| puts[i].row());
        let outcomes = batch::send_chunks(&chunks, self.write_concurrency(), |i| {
            let chunk = &puts[chunks[i].items.clone()];
            async move { batch::write_chunk(self.attempts(), &self.name, chunk).await }
        })
        .await;
        batch::settle(&chunks, outcomes, |i| puts[i].row().clone())
    }

    /// Deletes what `delete` says (see [`Delete`]'s constructors: no implicit
    /// "all versions"). A delete that mixes intents is applied atomically. A delete of
    /// a column's newest version ([`Delete::latest_version`]) is never resent once it
    /// may have reached HBase (it would delete one more version): an attempt that got no
    /// answer ends the call with [`Error::WriteOutcomeUnknown`].
    pub async fn delete(&self, delete: Delete) -> Result<()> {
        self.check_key(delete.row_key())?;
        let parts = delete.split_by_kind()?;
        if parts.len() == 1 {
            // A delete of a column's newest version is not resent once it may have run.
            let idempotence = Idempotence::of_deletes(&parts);
            self.attempts()
                .run(Operation::Delete, Some(&self.name), idempotence, |t| t.delete(&self.name, &parts))
                .await?;
            return Ok(());
        }
        self.mutate_row(RowMutations::new(delete.row_key().clone()).delete(delete)).await
    }

    /// Deletes many rows' cells, `batch_rows` per `deleteMultiple` call, with calls in
    /// flight side by side as in [`put_many`](Table::put_many) (same ordering of
    /// repeated rows, same [`Error::BatchFailed`] on failure). Counts are of HBase
    /// deletes: a [`Delete`] that mixes intents is several.
    pub async fn delete_many(&self, deletes: impl IntoIterator<Item = Delete>) -> Result<usize> {
        let deletes: Vec<Delete> = deletes.into_iter().collect();
        let mut parts = Vec::with_capacity(deletes.len());
        for d in &deletes {
            self.check_key(d.row_key())?;
            parts.extend(d.split_by_kind()?);
        }
        let chunks = batch::plan(parts.len(), self.batch_rows, |i| parts[i].row_key());
        let outcomes = batch::send_chunks(&chunks, self.write_concurrency(), |i| {
            let chunk = &parts[chunks[i].items.clone()];
            async move { batch::write_chunk(self.attempts(), &self.name, chunk).await }
        })
        .await;
        batch::settle(&chunks, outcomes, |i| parts[i].row_key().clone())
    }

    /// Applies puts and deletes to one row atomically (never resent once it may have
    /// run if it deletes a column's newest version, as [`delete`](Table::delete), or
    /// puts a cell on the server's clock, as [`put`](Table::put)).
    pub async fn mutate_row(&self, mutations: RowMutations) -> Result<()> {
        self.check_key(mutations.row())?;
        if mutations.counts() {
            // Increments and appends carry a nonce (see `mutate_row_with_results`).
            return self.mutate_row_with_results(mutations).await.map(|_| ());
        }
        self.attempts()
            .run(Operation::MutateRow, Some(&self.name), self.attempts().of_row_mutations(&mutations), |t| {
                t.mutate_row(&self.name, &mutations)
            })
            .await
    }

    /// Writes `put` only if `family:qualifier` currently equals `expected` (`None`:
    /// only if the cell is absent). True when written. Never retried automatically.
    pub async fn check_and_put(
        &self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        expected: Option<Bytes>,
        put: Put,
    ) -> Result<bool> {
        let (family, qualifier) = (family.into(), qualifier.into());
        validate::family(&family)?;
        self.check_key(put.row())?;
        put.validate(self.client.inner.max_value_bytes)?;
        let condition = Condition { row: put.row().clone(), family, qualifier, op: CompareOp::Equal, value: expected };
        self.attempts()
            .run(Operation::CheckAndPut, Some(&self.name), Idempotence::NotIdempotent, |t| {
                t.check_and_mutate(&self.name, &condition, CheckedWrite::Put(&put))
            })
            .await
    }

    /// Applies `delete` (of any kinds, as Java's `checkAndMutate(..).thenDelete`) only
    /// if `family:qualifier` equals `expected` (`None`: only if absent). True when
    /// applied. Never retried automatically.
    pub async fn check_and_delete(
        &self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        expected: Option<Bytes>,
        delete: Delete,
    ) -> Result<bool> {
        let (family, qualifier) = (family.into(), qualifier.into());
        validate::family(&family)?;
        self.check_key(delete.row_key())?;
        let condition =
            Condition { row: delete.row_key().clone(), family, qualifier, op: CompareOp::Equal, value: expected };
        self.attempts()
            .run(Operation::CheckAndDelete, Some(&self.name), Idempotence::NotIdempotent, |t| {
                t.check_and_mutate(&self.name, &condition, CheckedWrite::Delete(&delete))
            })
            .await
    }

    /// Applies `mutations` if `family:qualifier` compares to `value` with `op`
    /// (`value` `None`: if the cell is absent). True when applied. Never retried.
    pub async fn check_and_mutate(
        &self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        op: CompareOp,
        value: Option<Bytes>,
        mutations: RowMutations,
    ) -> Result<bool> {
        let (family, qualifier) = (family.into(), qualifier.into());
        validate::family(&family)?;
        self.check_key(mutations.row())?;
        let condition = Condition { row: mutations.row().clone(), family, qualifier, op, value };
        self.attempts()
            .run(Operation::CheckAndMutate, Some(&self.name), Idempotence::NotIdempotent, |t| {
                t.check_and_mutate(&self.name, &condition, CheckedWrite::Mutations(&mutations))
            })
            .await
    }

    /// Adds to counters atomically and returns the row with the new values. Over native
    /// RPC every attempt carries the operation's one nonce and the region server applies
    /// it once, so a call whose outcome is unknown is retried as HBase's Java client
    /// does; through the gateway (which cannot carry it) a call once sent is never
    /// resent, and an unknown outcome is reported as [`Error::WriteOutcomeUnknown`].
    pub async fn increment(&self, increment: Increment) -> Result<Row> {
        self.check_key(increment.row())?;
        let nonce = OperationNonce::next();
        self.attempts()
            .run(Operation::Increment, Some(&self.name), Idempotence::DedupedByNonce, |t| {
                t.increment(&self.name, &increment, nonce)
            })
            .await
    }

    /// Adds `amount` to one counter and returns its new value.
    pub async fn increment_counter(
        &self,
        row: impl Into<Bytes>,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        amount: i64,
    ) -> Result<i64> {
        let (family, qualifier) = (family.into(), qualifier.into());
        let result = self.increment(Increment::new(row).add(family.clone(), qualifier.clone(), amount)).await?;
        result.counter(&family, &qualifier).ok_or_else(|| Error::Protocol {
            addr: self.client.gateways(),
            source: TransportFailure::Unanswered("increment returned no 8-byte counter".into()),
        })
    }

    /// Appends to cells atomically and returns the row with the new values; retried
    /// as [`increment`](Table::increment) is.
    pub async fn append(&self, append: Append) -> Result<Row> {
        self.check_key(append.row())?;
        let nonce = OperationNonce::next();
        self.attempts()
            .run(Operation::Append, Some(&self.name), Idempotence::DedupedByNonce, |t| {
                t.append(&self.name, &append, nonce)
            })
            .await
    }

    /// Streams the rows of a scan (see [`Scan`] and [`RowStream`]).
    pub fn scan(&self, scan: Scan) -> Result<RowStream> {
        let mode = ScanMode::of(&scan);
        self.scan_in_mode(scan, mode)
    }

    /// Streams the rows of a scan run in `mode` (salted scans run each range as a
    /// [`ScanMode::SaltedBucket`]).
    pub(crate) fn scan_in_mode(&self, scan: Scan, mode: ScanMode) -> Result<RowStream> {
        validate::table_scan_bound(&self.name, scan.start_key())?;
        validate::table_scan_bound(&self.name, scan.stop_key())?;
        RowStream::start(self.client.attempts().clone(), self.name.clone(), scan, mode)
    }

    /// Runs a scan and collects every row (for small results; prefer [`Table::scan`]).
    pub async fn scan_all(&self, scan: Scan) -> Result<Vec<Row>> {
        // Page by page: the first page's rows are kept as they came (no copy), later
        // pages are appended whole.
        let mut stream = self.scan(scan)?;
        let mut rows: Vec<Row> = Vec::new();
        while let Some(page) = stream.next_page().await {
            let page = page?;
            if rows.is_empty() {
                rows = page;
            } else {
                rows.extend(page);
            }
        }
        Ok(rows)
    }

    /// Every region of the table, in key order.
    pub async fn region_locations(&self) -> Result<Vec<RegionLocation>> {
        crate::scan::region_locations(self.attempts(), &self.name).await
    }
}

/// The default number of batch calls in flight for a pool of `pool_size` connections:
/// a quarter of it, between 1 and 8.
pub(crate) fn default_write_concurrency(pool_size: usize) -> usize {
    (pool_size / 4).clamp(1, 8)
}
