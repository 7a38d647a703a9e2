//! Mutations (put, delete, increment, append) and the conditions of check-and-mutate.
//!
//! A single mutation (`Mutate`) carries its values inside the protobuf message. In a
//! batch (`Multi`), every write travels as HBase's Java client sends it: a
//! `MutationProto` without data, announcing `associated_cell_count` cells that follow
//! in the request's cell block (the KeyValue codec). [`WriteCells`] lets a caller hand
//! its own data to a batch, so each value is copied once, into that block.

use basalt_rpc_protocol::cellblock::{encode_cell, CellCodec, CellParts, CellType};
use basalt_rpc_protocol::multi::{MultiWriter, MutationHead};
use bytes::{Bytes, BytesMut};

use crate::error::RpcError;
use crate::pb;
pub use crate::pb::mutation_proto::Durability;
use crate::pb::mutation_proto::{column_value::QualifierValue, ColumnValue, DeleteType, MutationType};

/// One row's change.
#[derive(Debug, Clone, PartialEq)]
pub struct Mutation {
    row: Bytes,
    kind: MutationType,
    columns: Vec<(Bytes, QualifierValue)>,
    timestamp: Option<u64>,
    durability: Option<Durability>,
    /// The operation's nonce, when the caller drew it (it then survives the caller's
    /// own retries too); else one is drawn per call.
    nonce: Option<u64>,
    /// Whether a put with cells on the server's clock is resent all the same
    /// ([`Mutation::resend_unstamped`]).
    resend_unstamped: bool,
}

impl Mutation {
    /// Writes values into `row` (add them with [`Mutation::column`]).
    pub fn put(row: impl Into<Bytes>) -> Mutation {
        Mutation::new(row, MutationType::Put)
    }

    /// Deletes the whole `row`, or only the columns and families added with
    /// [`Mutation::column`] / [`Mutation::family`].
    pub fn delete(row: impl Into<Bytes>) -> Mutation {
        Mutation::new(row, MutationType::Delete)
    }

    /// Adds to 64-bit counters of `row` (add them with [`Mutation::add`]).
    pub fn increment(row: impl Into<Bytes>) -> Mutation {
        Mutation::new(row, MutationType::Increment)
    }

    /// Appends bytes to values of `row` (add them with [`Mutation::column`]).
    pub fn append(row: impl Into<Bytes>) -> Mutation {
        Mutation::new(row, MutationType::Append)
    }

    fn new(row: impl Into<Bytes>, kind: MutationType) -> Mutation {
        Mutation {
            row: row.into(),
            kind,
            columns: Vec::new(),
            timestamp: None,
            durability: None,
            nonce: None,
            resend_unstamped: false,
        }
    }

    /// The row.
    pub fn row(&self) -> &Bytes {
        &self.row
    }

    /// Whether the mutation may be applied twice without changing the outcome: puts
    /// whose every cell has a timestamp (its own or the put's, [`Mutation::at`]), and
    /// deletes that name no column's newest version (a delete of the newest version
    /// removes one more each time). A put with a cell on the server's clock writes one
    /// more version each time it is applied, so it is not, unless
    /// [`Mutation::resend_unstamped`] says to resend it anyway. Increments and appends
    /// carry a nonce instead: the server recognizes a retry of one it already applied
    /// and does not apply it again.
    pub fn is_idempotent(&self) -> bool {
        match self.kind {
            MutationType::Put => self.resend_unstamped || !self.puts_on_server_clock(),
            // A delete of a column's newest version (no timestamp) removes one more
            // version each time it is applied.
            MutationType::Delete => !self.columns.iter().any(|(_, value)| deletes_newest_version(value)),
            MutationType::Increment | MutationType::Append => false,
        }
    }

    /// Whether a put that has a cell on the server's clock is treated as idempotent all
    /// the same (default: false), as HBase's Java client does: resent after an attempt
    /// that may have run, it may write its value twice, as two versions (the newest value
    /// read is the same; the duplicate takes one of the family's kept versions). Without
    /// it, such a put is never resent once an attempt of it may have run, and its
    /// outcome is reported unknown instead. Other mutations ignore it.
    pub fn resend_unstamped(mut self, resend: bool) -> Mutation {
        self.resend_unstamped = resend;
        self
    }

    /// Whether a put writes a cell at the server's clock: a cell without its own
    /// timestamp when the put has none either, or one stamped HBase's
    /// `LATEST_TIMESTAMP`.
    fn puts_on_server_clock(&self) -> bool {
        let latest = |ts: u64| i64::try_from(ts).is_ok_and(|ts| ts == LATEST_TIMESTAMP);
        let put_unstamped = self.timestamp.is_none_or(latest);
        self.columns.iter().any(|(_, value)| match value.timestamp {
            Some(ts) => latest(ts),
            None => put_unstamped,
        })
    }

    /// The nonce an increment or append carries on every attempt (0, HBase's "no nonce",
    /// is ignored): a caller that retries the operation itself draws one per operation
    /// and gives it here, so the server recognises every retry. Puts and deletes ignore
    /// it.
    pub fn with_nonce(mut self, nonce: u64) -> Mutation {
        self.nonce = (nonce != 0).then_some(nonce);
        self
    }

    /// The nonce given with [`Mutation::with_nonce`], if any.
    pub(crate) fn given_nonce(&self) -> Option<u64> {
        self.nonce
    }

    /// Whether the mutation is sent with a nonce (increments and appends).
    pub(crate) fn needs_nonce(&self) -> bool {
        matches!(self.kind, MutationType::Increment | MutationType::Append)
    }

    /// How the write-ahead log treats the mutation (default: the table's setting).
    pub fn durability(mut self, durability: Durability) -> Mutation {
        self.durability = Some(durability);
        self
    }

    /// Whether this is a put or a delete (what an atomic row mutation may hold).
    pub(crate) fn is_put_or_delete(&self) -> bool {
        matches!(self.kind, MutationType::Put | MutationType::Delete)
    }

    /// The timestamp of every cell put without its own (default: the server's clock);
    /// for a delete of the whole row, deletes only versions at or before it.
    pub fn at(mut self, timestamp: u64) -> Mutation {
        self.timestamp = Some(timestamp);
        self
    }

    /// A column with its own timestamp (puts), or the deletion of the column's versions
    /// at or before `timestamp` (deletes).
    pub fn column_at(
        self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        value: impl Into<Bytes>,
        timestamp: u64,
    ) -> Mutation {
        let mut mutation = self.column(family, qualifier, value);
        if let Some((_, last)) = mutation.columns.last_mut() {
            last.timestamp = Some(timestamp);
        }
        mutation
    }

    /// Deletes the newest version of a column (only for deletes).
    pub fn delete_latest_version(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Mutation {
        self.columns.push((
            family.into(),
            QualifierValue {
                qualifier: Some(qualifier.into()),
                value: None,
                timestamp: None,
                delete_type: Some(DeleteType::DeleteOneVersion as i32),
                tags: None,
            },
        ));
        self
    }

    /// Deletes exactly one version of a column: the one written at `timestamp` (only for
    /// deletes).
    pub fn delete_version(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>, timestamp: u64) -> Mutation {
        self.columns.push((
            family.into(),
            QualifierValue {
                qualifier: Some(qualifier.into()),
                value: None,
                timestamp: Some(timestamp),
                delete_type: Some(DeleteType::DeleteOneVersion as i32),
                tags: None,
            },
        ));
        self
    }

    /// Deletes the versions of a whole family at or before `timestamp` (only for
    /// deletes).
    pub fn family_at(mut self, family: impl Into<Bytes>, timestamp: u64) -> Mutation {
        self = self.family(family);
        if let Some((_, last)) = self.columns.last_mut() {
            last.timestamp = Some(timestamp);
        }
        self
    }

    /// Deletes the cells of a family written exactly at `timestamp` (only for
    /// deletes).
    pub fn family_version(mut self, family: impl Into<Bytes>, timestamp: u64) -> Mutation {
        self.columns.push((
            family.into(),
            QualifierValue {
                qualifier: None,
                value: None,
                timestamp: Some(timestamp),
                delete_type: Some(DeleteType::DeleteFamilyVersion as i32),
                tags: None,
            },
        ));
        self
    }

    /// A column: the value to put or append, or (for a delete) every version of the
    /// column is deleted and `value` is ignored.
    pub fn column(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        value: impl Into<Bytes>,
    ) -> Mutation {
        let qualifier_value = match self.kind {
            MutationType::Delete => QualifierValue {
                qualifier: Some(qualifier.into()),
                value: None,
                timestamp: None,
                delete_type: Some(DeleteType::DeleteMultipleVersions as i32),
                tags: None,
            },
            MutationType::Put | MutationType::Append | MutationType::Increment => QualifierValue {
                qualifier: Some(qualifier.into()),
                value: Some(value.into()),
                timestamp: None,
                delete_type: None,
                tags: None,
            },
        };
        self.columns.push((family.into(), qualifier_value));
        self
    }

    /// A whole family to delete (only for deletes).
    pub fn family(mut self, family: impl Into<Bytes>) -> Mutation {
        self.columns.push((
            family.into(),
            QualifierValue {
                qualifier: None,
                value: None,
                timestamp: None,
                delete_type: Some(DeleteType::DeleteFamily as i32),
                tags: None,
            },
        ));
        self
    }

    /// An amount to add to a counter (for increments).
    pub fn add(self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>, amount: i64) -> Mutation {
        self.column(family, qualifier, Bytes::copy_from_slice(&amount.to_be_bytes()))
    }

    /// The protobuf message, columns grouped by family in the order given, with the
    /// nonce of this operation (increments and appends).
    pub(crate) fn to_proto(&self, nonce: Option<u64>) -> pb::MutationProto {
        let mut column_value: Vec<ColumnValue> = Vec::new();
        for (family, qualifier_value) in &self.columns {
            match column_value.iter_mut().find(|c| c.family == *family) {
                Some(column) => column.qualifier_value.push(qualifier_value.clone()),
                None => column_value
                    .push(ColumnValue { family: family.clone(), qualifier_value: vec![qualifier_value.clone()] }),
            }
        }
        pb::MutationProto {
            row: Some(self.row.clone()),
            mutate_type: Some(self.kind as i32),
            column_value,
            timestamp: self.timestamp,
            durability: self.durability.map(|d| d as i32),
            nonce: nonce.filter(|_| self.needs_nonce()),
            ..Default::default()
        }
    }
}

/// Whether a delete cell removes a column's newest version, whichever it is when the
/// server applies it (a `DeleteOneVersion` without a timestamp).
fn deletes_newest_version(value: &QualifierValue) -> bool {
    value.delete_type == Some(DeleteType::DeleteOneVersion as i32)
        && value.timestamp.is_none_or(|ts| i64::try_from(ts).is_ok_and(|ts| ts == LATEST_TIMESTAMP))
}

/// HBase's `LATEST_TIMESTAMP`: a put cell sent with it gets the region server's clock;
/// a delete cell sent with it means "up to now" (or, for one version, the newest).
pub(crate) const LATEST_TIMESTAMP: i64 = i64::MAX;

/// What a write does to its row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteKind {
    /// Writes values.
    Put,
    /// Deletes versions, columns, families or the whole row.
    Delete,
    /// Adds to 64-bit counters (sent with a nonce).
    Increment,
    /// Appends bytes to values (sent with a nonce).
    Append,
}

impl WriteKind {
    fn proto(self) -> MutationType {
        match self {
            WriteKind::Put => MutationType::Put,
            WriteKind::Delete => MutationType::Delete,
            WriteKind::Increment => MutationType::Increment,
            WriteKind::Append => MutationType::Append,
        }
    }

    /// Whether HBase may apply a write of this kind twice without changing the
    /// outcome: puts and deletes (but see [`WriteCells::is_idempotent`]: a put with a
    /// cell on the server's clock, or a delete of a column's newest version, is not),
    /// not increments and appends.
    pub fn is_idempotent(self) -> bool {
        match self {
            WriteKind::Put | WriteKind::Delete => true,
            WriteKind::Increment | WriteKind::Append => false,
        }
    }
}

/// A write that a batch ([`RpcClient::write_batch`](crate::RpcClient::write_batch))
/// encodes straight from the caller's own data: the request carries a `MutationProto`
/// without data, and [`WriteCells::write_cells`] appends the cells to the request's
/// cell block, where each value is copied once. A retry encodes it again.
pub trait WriteCells: Sync {
    /// The row written (at most 32,767 bytes, not empty).
    fn row(&self) -> &Bytes;

    /// Put, delete, increment or append.
    fn kind(&self) -> WriteKind;

    /// A put's timestamp for cells without their own; for a delete without cells (the
    /// whole row), the newest version deleted. `None`: the server's clock.
    fn timestamp(&self) -> Option<u64>;

    /// How the write-ahead log treats it (`None`: the table's setting).
    fn durability(&self) -> Option<Durability>;

    /// Appends the write's cells through `cells` (none for a delete of the whole row).
    fn write_cells(&self, cells: &mut CellWriter<'_>) -> Result<(), RpcError>;

    /// Whether HBase may apply this write twice without changing the outcome: a batch
    /// resends a write whose attempt may have run only if so (or, for increments and
    /// appends, when the servers deduplicate by nonce). Default: its kind's
    /// ([`WriteKind::is_idempotent`]); a put with a cell on the server's clock (no
    /// timestamp of its own nor the put's) and a delete of a column's newest version
    /// must say false, unless their caller accepts a second application (as
    /// [`Mutation::resend_unstamped`] does for puts).
    fn is_idempotent(&self) -> bool {
        self.kind().is_idempotent()
    }

    /// The bytes its cells take in the block, if known ([`CellWriter::cell_len`] per
    /// cell); the batch reserves them up front. 0: unknown.
    fn cells_len_hint(&self) -> usize {
        0
    }
}

/// Appends one write's cells to a request's cell block, in HBase's KeyValue codec. The
/// methods check what HBase would refuse (a family over 127 bytes, a cell over 2 GiB, a
/// timestamp beyond `i64`, a delete marker in a put or a value in a delete).
#[derive(Debug)]
pub struct CellWriter<'a> {
    block: &'a mut BytesMut,
    row: &'a [u8],
    kind: WriteKind,
    put_timestamp: i64,
    count: usize,
}

impl<'a> CellWriter<'a> {
    /// A writer of `kind`'s cells for `row`, appending to `block`; `timestamp` is the
    /// default of put cells.
    #[inline]
    pub(crate) fn new(
        block: &'a mut BytesMut,
        row: &'a [u8],
        kind: WriteKind,
        timestamp: Option<u64>,
    ) -> Result<CellWriter<'a>, RpcError> {
        let put_timestamp = timestamp.map_or(Ok(LATEST_TIMESTAMP), cell_timestamp)?;
        Ok(CellWriter { block, row, kind, put_timestamp, count: 0 })
    }

    /// The bytes one cell takes in a block: its 4-byte length and its KeyValue.
    pub fn cell_len(row: &[u8], family: &[u8], qualifier: &[u8], value: &[u8]) -> usize {
        4 + 4 + 4 + 2 + row.len() + 1 + family.len() + qualifier.len() + 8 + 1 + value.len()
    }

    /// How many cells were written.
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// A value to put (or, in an increment, an 8-byte big-endian amount; in an append,
    /// the bytes appended); `timestamp`: the cell's own, else the write's.
    pub fn put(
        &mut self,
        family: &[u8],
        qualifier: &[u8],
        value: &[u8],
        timestamp: Option<u64>,
    ) -> Result<(), RpcError> {
        if self.kind == WriteKind::Delete {
            return Err(RpcError::InvalidArgument("a value in a delete".into()));
        }
        let timestamp = timestamp.map_or(Ok(self.put_timestamp), cell_timestamp)?;
        self.cell(family, qualifier, timestamp, CellType::Put, value)
    }

    /// Deletes the versions of `family:qualifier` at or before `until` (`None`: all).
    pub fn delete_column(&mut self, family: &[u8], qualifier: &[u8], until: Option<u64>) -> Result<(), RpcError> {
        self.marker(family, qualifier, until, CellType::DeleteColumn)
    }

    /// Deletes one version of `family:qualifier`: the one at exactly `at` (`None`: the
    /// newest).
    pub fn delete_version(&mut self, family: &[u8], qualifier: &[u8], at: Option<u64>) -> Result<(), RpcError> {
        self.marker(family, qualifier, at, CellType::Delete)
    }

    /// Deletes every column of `family` at or before `until` (`None`: all).
    pub fn delete_family(&mut self, family: &[u8], until: Option<u64>) -> Result<(), RpcError> {
        self.marker(family, b"", until, CellType::DeleteFamily)
    }

    /// Deletes the cells of `family` written at exactly `at`.
    pub fn delete_family_version(&mut self, family: &[u8], at: u64) -> Result<(), RpcError> {
        self.marker(family, b"", Some(at), CellType::DeleteFamilyVersion)
    }

    fn marker(
        &mut self,
        family: &[u8],
        qualifier: &[u8],
        ts: Option<u64>,
        cell_type: CellType,
    ) -> Result<(), RpcError> {
        if self.kind != WriteKind::Delete {
            return Err(RpcError::InvalidArgument("a delete marker in a put, increment or append".into()));
        }
        // Without a timestamp of its own, a marker means "up to now" (the server reads
        // LATEST_TIMESTAMP so), as a protobuf delete without one does.
        let timestamp = ts.map_or(Ok(LATEST_TIMESTAMP), cell_timestamp)?;
        self.cell(family, qualifier, timestamp, cell_type, b"")
    }

    fn cell(
        &mut self,
        family: &[u8],
        qualifier: &[u8],
        timestamp: i64,
        cell_type: CellType,
        value: &[u8],
    ) -> Result<(), RpcError> {
        if family.is_empty() {
            return Err(RpcError::InvalidArgument("a cell without a column family".into()));
        }
        let parts = CellParts { row: self.row, family, qualifier, timestamp, cell_type, value, tags: b"" };
        encode_cell(CellCodec::KeyValue, &parts, self.block).map_err(|e| RpcError::InvalidArgument(e.to_string()))?;
        self.count += 1;
        Ok(())
    }
}

/// A timestamp as a KeyValue carries it: HBase's `long`, so at most `i64::MAX`.
fn cell_timestamp(timestamp: u64) -> Result<i64, RpcError> {
    i64::try_from(timestamp).map_err(|_| RpcError::InvalidArgument(format!("a timestamp beyond i64: {timestamp}")))
}

/// Adds `write` to the open region of `request` as a data-free `MutationProto`, its
/// cells appended to `block`. On error nothing is added to either.
pub(crate) fn write_action<W: WriteCells + ?Sized>(
    write: &W,
    index: u32,
    nonce: Option<u64>,
    request: &mut MultiWriter,
    block: &mut BytesMut,
) -> Result<(), RpcError> {
    let mark = block.len();
    let kind = write.kind();
    let mut cells = CellWriter::new(block, write.row(), kind, write.timestamp())?;
    let written = write.write_cells(&mut cells).and_then(|()| {
        i32::try_from(cells.count()).map_err(|_| RpcError::InvalidArgument("more than 2^31 cells in one write".into()))
    });
    let count = match written {
        Ok(count) => count,
        Err(error) => {
            block.truncate(mark);
            return Err(error);
        }
    };
    let head = MutationHead {
        row: write.row(),
        mutate_type: kind.proto(),
        timestamp: write.timestamp(),
        durability: write.durability(),
        associated_cell_count: (count > 0).then_some(count),
        nonce: nonce.filter(|_| !kind.is_idempotent()),
    };
    request.mutation(index, &head);
    Ok(())
}

impl WriteCells for Mutation {
    fn row(&self) -> &Bytes {
        &self.row
    }

    fn is_idempotent(&self) -> bool {
        Mutation::is_idempotent(self)
    }

    fn kind(&self) -> WriteKind {
        match self.kind {
            MutationType::Put => WriteKind::Put,
            MutationType::Delete => WriteKind::Delete,
            MutationType::Increment => WriteKind::Increment,
            MutationType::Append => WriteKind::Append,
        }
    }

    fn timestamp(&self) -> Option<u64> {
        self.timestamp
    }

    fn durability(&self) -> Option<Durability> {
        self.durability
    }

    fn cells_len_hint(&self) -> usize {
        let value = |column: &QualifierValue| column.value.as_deref().unwrap_or_default().len();
        let qualifier = |column: &QualifierValue| column.qualifier.as_deref().unwrap_or_default().len();
        self.columns
            .iter()
            .map(|(family, column)| {
                4 + 4 + 4 + 2 + self.row.len() + 1 + family.len() + qualifier(column) + 9 + value(column)
            })
            .sum()
    }

    fn write_cells(&self, cells: &mut CellWriter<'_>) -> Result<(), RpcError> {
        for (family, column) in &self.columns {
            let qualifier = column.qualifier.as_deref().unwrap_or_default();
            let delete_type = column.delete_type.map(DeleteType::try_from);
            match delete_type {
                None => cells.put(family, qualifier, column.value.as_deref().unwrap_or_default(), column.timestamp)?,
                Some(Ok(DeleteType::DeleteOneVersion)) => cells.delete_version(family, qualifier, column.timestamp)?,
                Some(Ok(DeleteType::DeleteMultipleVersions)) => {
                    cells.delete_column(family, qualifier, column.timestamp)?
                }
                Some(Ok(DeleteType::DeleteFamily)) => cells.delete_family(family, column.timestamp)?,
                Some(Ok(DeleteType::DeleteFamilyVersion)) => {
                    cells.delete_family_version(family, column.timestamp.unwrap_or(LATEST_TIMESTAMP as u64))?
                }
                Some(Err(_)) => return Err(RpcError::InvalidArgument("an unknown delete type".into())),
            }
        }
        Ok(())
    }
}

/// A nonce for one increment or append: a random base drawn once per process plus a
/// counter, so nonces never repeat within the process and cost no random draw each.
/// Never 0 (HBase's "no nonce").
pub(crate) fn next_nonce() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static BASE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let base = *BASE.get_or_init(|| {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher
            .write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
        hasher.write_u32(std::process::id());
        hasher.finish()
    });
    loop {
        let nonce = base.wrapping_add(COUNTER.fetch_add(1, Ordering::Relaxed));
        if nonce != 0 {
            return nonce;
        }
    }
}

/// What check-and-mutate compares before mutating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// The row checked (must be the mutation's row).
    pub row: Bytes,
    /// The column's family.
    pub family: Bytes,
    /// The column's qualifier.
    pub qualifier: Bytes,
    /// The expected value; `None`: the column must not exist.
    pub expected: Option<Bytes>,
    /// How the column's value compares to `expected` (HBase's order: the operator
    /// applies to `expected` against the stored value, as in the Java client).
    pub compare: pb::CompareType,
}

impl Check {
    /// The column must hold exactly `expected` (`None`: must not exist).
    pub fn equals(
        row: impl Into<Bytes>,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        expected: Option<Bytes>,
    ) -> Check {
        Check {
            row: row.into(),
            family: family.into(),
            qualifier: qualifier.into(),
            expected,
            compare: pb::CompareType::Equal,
        }
    }
}

impl Check {
    /// The protobuf condition: equal to the value (a `BinaryComparator`), or absent (a
    /// `NullComparator`).
    pub(crate) fn to_proto(&self) -> pb::Condition {
        use prost::Message;
        let comparator = match &self.expected {
            Some(value) => pb::Comparator {
                name: "org.apache.hadoop.hbase.filter.BinaryComparator".into(),
                serialized_comparator: Some(Bytes::from(
                    pb::BinaryComparator { comparable: pb::ByteArrayComparable { value: Some(value.clone()) } }
                        .encode_to_vec(),
                )),
            },
            None => pb::Comparator {
                name: "org.apache.hadoop.hbase.filter.NullComparator".into(),
                serialized_comparator: Some(Bytes::from(pb::NullComparator {}.encode_to_vec())),
            },
        };
        pb::Condition {
            row: self.row.clone(),
            family: Some(self.family.clone()),
            qualifier: Some(self.qualifier.clone()),
            compare_type: Some(self.compare as i32),
            comparator: Some(comparator),
            ..Default::default()
        }
    }
}

#[cfg(test)]
#[path = "mutation_tests.rs"]
mod tests;
