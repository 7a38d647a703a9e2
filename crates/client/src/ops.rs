//! Request builders: gets, puts, deletes with explicit intent, increments, appends and
//! row mutations, each with its transport-neutral validation (the transports encode them).

use bytes::Bytes;

use crate::error::{InvalidInput, Result};
use crate::filter::Filter;
use crate::options::{Consistency, ReadOptions};
use crate::request::FamilyWindow;
use crate::validate;

/// A read of one row. By default: every column, newest version only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Get {
    pub(crate) row: Bytes,
    pub(crate) read: ReadOptions,
    pub(crate) timestamp: Option<i64>,
    /// Java's per-family offset and limit ([`Get::max_results_per_family`]).
    pub(crate) window: FamilyWindow,
}

impl Get {
    /// A get of `row`.
    pub fn new(row: impl Into<Bytes>) -> Get {
        Get { row: row.into(), read: ReadOptions::default(), timestamp: None, window: FamilyWindow::default() }
    }

    /// Replaces the read options (columns, filter, versions, time range, block
    /// caching; `caching` and `batch` do not apply to gets).
    pub fn read_options(mut self, options: ReadOptions) -> Get {
        self.read = options;
        self
    }

    /// The read options.
    pub fn options(&self) -> &ReadOptions {
        &self.read
    }

    /// Only this column (may be called repeatedly).
    pub fn column(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Get {
        self.read = self.read.column(family, qualifier);
        self
    }

    /// Every column of this family (may be called repeatedly).
    pub fn family(mut self, family: impl Into<Bytes>) -> Get {
        self.read = self.read.family(family);
        self
    }

    /// Up to `n` versions of each column, newest first (default 1).
    pub fn max_versions(mut self, n: u32) -> Get {
        self.read = self.read.max_versions(n);
        self
    }

    /// Only the version written at exactly `ts`.
    pub fn timestamp(mut self, ts: i64) -> Get {
        self.timestamp = Some(ts);
        self
    }

    /// Only versions with `min <= timestamp < max`.
    pub fn time_range(mut self, min: i64, max: i64) -> Get {
        self.read = self.read.time_range(min, max);
        self
    }

    /// A server-side filter.
    pub fn filter(mut self, filter: Filter) -> Get {
        self.read = self.read.filter(filter);
        self
    }

    /// Whether the blocks read are cached on the region server (default: server's).
    pub fn cache_blocks(mut self, cache: bool) -> Get {
        self.read = self.read.cache_blocks(cache);
        self
    }

    /// Which replicas may answer (default [`Consistency::Strong`]), as Java's
    /// `Get.setConsistency`.
    pub fn consistency(mut self, consistency: Consistency) -> Get {
        self.read = self.read.consistency(consistency);
        self
    }

    /// Reads only replica `id` of the row's region, as Java's `Get.setReplicaId` (see
    /// [`ReadOptions::replica_id`]).
    pub fn replica_id(mut self, id: i32) -> Get {
        self.read = self.read.replica_id(id);
        self
    }

    /// At most `n` cells of each family (Java's `Get.setMaxResultsPerColumnFamily`),
    /// counted after the columns, versions and time range, before the filter. Both
    /// transports carry it (the gateway's `TGet.storeLimit`).
    pub fn max_results_per_family(mut self, n: u32) -> Get {
        self.window.limit = Some(n);
        self
    }

    /// Skips the first `n` cells of each family (Java's
    /// `Get.setRowOffsetPerColumnFamily`), counted as [`Get::max_results_per_family`]
    /// counts. Both transports carry it (the gateway's `TGet.storeOffset`).
    pub fn row_offset_per_family(mut self, n: u32) -> Get {
        self.window.offset = Some(n);
        self
    }

    /// The row this get reads.
    pub fn row(&self) -> &Bytes {
        &self.row
    }

    /// Refuses what HBase would reject or misread, on any transport: a bad row key or
    /// read option, a timestamp set twice, a timestamp beside a time range.
    pub(crate) fn validate(&self) -> Result<()> {
        validate::row_key(&self.row)?;
        self.read.validate()?;
        self.exact_timestamp().map(|_| ())
    }

    /// The one exact timestamp this get reads at: its own, else the read options'.
    pub(crate) fn exact_timestamp(&self) -> Result<Option<i64>> {
        let timestamp = match (self.timestamp, self.read.timestamp) {
            (Some(_), Some(_)) => {
                return Err(InvalidInput::Option("the get's timestamp is set twice".into()).into());
            }
            (ts, None) | (None, ts) => ts,
        };
        if timestamp.is_some() && self.read.time_range.is_some() {
            return Err(InvalidInput::Option("set either a timestamp or a time range, not both".into()).into());
        }
        Ok(timestamp)
    }
}

/// How durably a mutation is written (the WAL setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Durability {
    /// The table's setting (default).
    #[default]
    UseDefault,
    /// No write-ahead log: fast, lost if the server crashes.
    SkipWal,
    /// Write-ahead log written asynchronously.
    AsyncWal,
    /// Write-ahead log written synchronously.
    SyncWal,
    /// Write-ahead log written and fsynced.
    FsyncWal,
}

/// A write of cells to one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Put {
    pub(crate) row: Bytes,
    pub(crate) cells: Vec<(Bytes, Bytes, Bytes, Option<i64>)>,
    pub(crate) timestamp: Option<i64>,
    pub(crate) durability: Durability,
}

impl Put {
    /// A put on `row`; add cells with [`Put::cell`].
    pub fn new(row: impl Into<Bytes>) -> Put {
        Put { row: row.into(), cells: Vec::new(), timestamp: None, durability: Durability::UseDefault }
    }

    /// Adds `family:qualifier = value` (timestamp: the put's, else the server's clock).
    pub fn cell(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>, value: impl Into<Bytes>) -> Put {
        self.cells.push((family.into(), qualifier.into(), value.into(), None));
        self
    }

    /// Adds a cell with its own timestamp.
    pub fn cell_at(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        value: impl Into<Bytes>,
        timestamp: i64,
    ) -> Put {
        self.cells.push((family.into(), qualifier.into(), value.into(), Some(timestamp)));
        self
    }

    /// The timestamp of every cell without its own.
    pub fn timestamp(mut self, ts: i64) -> Put {
        self.timestamp = Some(ts);
        self
    }

    /// The WAL setting.
    pub fn durability(mut self, durability: Durability) -> Put {
        self.durability = durability;
        self
    }

    /// The row this put writes.
    pub fn row(&self) -> &Bytes {
        &self.row
    }

    /// Refuses what HBase would reject: a bad row key, no cells, a bad family, a value
    /// over `max_value` bytes, a negative timestamp (Java's client refuses it; the
    /// gateway would store it).
    pub(crate) fn validate(&self, max_value: usize) -> Result<()> {
        validate::row_key(&self.row)?;
        if self.cells.is_empty() {
            return Err(InvalidInput::Option("a put needs at least one cell".into()).into());
        }
        let negative = self.timestamp.into_iter().chain(self.cells.iter().filter_map(|c| c.3)).find(|ts| *ts < 0);
        if let Some(ts) = negative {
            return Err(InvalidInput::Option(format!("a put's timestamp must not be negative (got {ts})")).into());
        }
        for (family, _, value, _) in &self.cells {
            validate::family(family)?;
            if value.len() > max_value {
                return Err(InvalidInput::ValueTooLarge { len: value.len(), max: max_value }.into());
            }
        }
        Ok(())
    }
}

pub(crate) use crate::request::DeleteSpec;

/// A delete with explicit intent. Thrift2's own default (a `TDelete` without type)
/// removes *every* version of each named column; here each call says what it means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delete {
    pub(crate) row: Bytes,
    pub(crate) specs: Vec<DeleteSpec>,
    pub(crate) row_timestamp: Option<i64>,
    pub(crate) durability: Durability,
}

impl Delete {
    /// Deletes the whole row (every family, every version) unless narrowed by the
    /// column and family methods.
    pub fn row(row: impl Into<Bytes>) -> Delete {
        Delete { row: row.into(), specs: Vec::new(), row_timestamp: None, durability: Durability::UseDefault }
    }

    /// Removes only the newest version of `family:qualifier`.
    pub fn latest_version(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Delete {
        self.specs.push(DeleteSpec::ColumnVersion(family.into(), qualifier.into(), None));
        self
    }

    /// Removes the version of `family:qualifier` written at exactly `ts`.
    pub fn version_at(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>, ts: i64) -> Delete {
        self.specs.push(DeleteSpec::ColumnVersion(family.into(), qualifier.into(), Some(ts)));
        self
    }

    /// Removes every version of `family:qualifier`.
    pub fn all_versions(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Delete {
        self.specs.push(DeleteSpec::ColumnAllVersions(family.into(), qualifier.into(), None));
        self
    }

    /// Removes the versions of `family:qualifier` at or before `ts`.
    pub fn versions_until(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>, ts: i64) -> Delete {
        self.specs.push(DeleteSpec::ColumnAllVersions(family.into(), qualifier.into(), Some(ts)));
        self
    }

    /// Removes every column of `family`. As HBase's `Delete.addFamily`, it replaces the
    /// parts of `family` given before it (see [`Delete::family_until`] for a family
    /// named twice); parts given after it add to it.
    pub fn family(mut self, family: impl Into<Bytes>) -> Delete {
        self.specs.push(DeleteSpec::Family(family.into(), None));
        self
    }

    /// Removes the cells of `family` at or before `ts`.
    ///
    /// As HBase's `Delete.addFamily`, it replaces the parts of `family` given before it
    /// (a column's latest version named before it is no longer removed unless the
    /// family delete reaches it). One difference: several family deletes of one family
    /// in one `Delete` remove the union of what each removes:
    /// `family("a").family_until("a", 100)` removes every cell of `a` (HBase's own
    /// `Delete.addFamily` keeps only the last one given).
    pub fn family_until(mut self, family: impl Into<Bytes>, ts: i64) -> Delete {
        self.specs.push(DeleteSpec::Family(family.into(), Some(ts)));
        self
    }

    /// Removes the cells of every column of `family` written at exactly `ts` (HBase's
    /// `addFamilyVersion`).
    pub fn family_version(mut self, family: impl Into<Bytes>, ts: i64) -> Delete {
        self.specs.push(DeleteSpec::FamilyVersion(family.into(), ts));
        self
    }

    /// For a whole-row delete: only cells at or before `ts`.
    pub fn until(mut self, ts: i64) -> Delete {
        self.row_timestamp = Some(ts);
        self
    }

    /// The WAL setting.
    pub fn durability(mut self, durability: Durability) -> Delete {
        self.durability = durability;
        self
    }

    /// The row this delete touches.
    pub fn row_key(&self) -> &Bytes {
        &self.row
    }

    /// The cells of the delete as one HBase delete carries them: Java's order and clear
    /// rules (see [`delete_cells`](crate::request::delete_cells)). Empty for a whole-row
    /// delete.
    pub(crate) fn cells(&self) -> Vec<DeleteSpec> {
        crate::request::delete_cells(&self.specs)
    }

    /// The delete as HBase deletes of a single kind each (one for a whole-row delete),
    /// in the order their kinds first appear among its [cells](Delete::cells): what one
    /// `TDelete` carries (Thrift2 applies one delete type to all its columns). Applied
    /// together (one batch, or one row mutation), the parts remove what the one delete
    /// removes: the server finds the versions a latest-version delete removes before
    /// applying any part, and a column's repeated latest-version deletes share a part.
    /// Validated like the encoding.
    pub(crate) fn split_by_kind(&self) -> Result<Vec<Delete>> {
        self.validate()?;
        if self.specs.is_empty() {
            return Ok(vec![self.clone()]);
        }
        let mut parts: Vec<Delete> = Vec::new();
        for spec in self.cells() {
            let kind = std::mem::discriminant(&spec);
            match parts.iter_mut().find(|p| p.specs.first().map(std::mem::discriminant) == Some(kind)) {
                Some(part) => part.specs.push(spec),
                None => parts.push(Delete { specs: vec![spec], ..self.clone_without_specs() }),
            }
        }
        Ok(parts)
    }

    /// Refuses what HBase would reject, on any transport: a bad row key or family, a
    /// negative timestamp, `until(ts)` beside column or family deletes.
    pub(crate) fn validate(&self) -> Result<()> {
        validate::row_key(&self.row)?;
        if self.specs.is_empty() {
            return Ok(());
        }
        if self.row_timestamp.is_some() {
            return Err(InvalidInput::Option("until(ts) applies to whole-row deletes only".into()).into());
        }
        for spec in &self.specs {
            let (family, ts) = match spec {
                DeleteSpec::ColumnVersion(f, _, ts)
                | DeleteSpec::ColumnAllVersions(f, _, ts)
                | DeleteSpec::Family(f, ts) => (f, *ts),
                DeleteSpec::FamilyVersion(f, ts) => (f, Some(*ts)),
            };
            validate::family(family)?;
            if ts.is_some_and(|ts| ts < 0) {
                return Err(InvalidInput::Option("a delete's timestamp must not be negative".into()).into());
            }
        }
        Ok(())
    }

    fn clone_without_specs(&self) -> Delete {
        Delete {
            row: self.row.clone(),
            specs: Vec::new(),
            row_timestamp: self.row_timestamp,
            durability: self.durability,
        }
    }
}

/// One mutation of a [`RowMutations`], in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RowMutation {
    Put(Put),
    Delete(Delete),
    Increment(Increment),
    Append(Append),
}

impl RowMutation {
    fn row(&self) -> &Bytes {
        match self {
            RowMutation::Put(put) => &put.row,
            RowMutation::Delete(delete) => &delete.row,
            RowMutation::Increment(increment) => &increment.row,
            RowMutation::Append(append) => &append.row,
        }
    }
}

/// Puts, deletes, increments and appends applied to one row atomically, in the order
/// given (HBase's `RowMutations`; increments and appends need HBase 2.4 and native RPC:
/// the gateway's `TRowMutations` carries only puts and deletes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowMutations {
    pub(crate) row: Bytes,
    pub(crate) mutations: Vec<RowMutation>,
}

impl RowMutations {
    /// Mutations of `row`.
    pub fn new(row: impl Into<Bytes>) -> RowMutations {
        RowMutations { row: row.into(), mutations: Vec::new() }
    }

    /// Adds a put (its row must be this row).
    pub fn put(mut self, put: Put) -> RowMutations {
        self.mutations.push(RowMutation::Put(put));
        self
    }

    /// Adds a delete (its row must be this row).
    pub fn delete(mut self, delete: Delete) -> RowMutations {
        self.mutations.push(RowMutation::Delete(delete));
        self
    }

    /// Adds an increment (its row must be this row); its new values are among the
    /// results of [`Table::mutate_row_with_results`](crate::Table::mutate_row_with_results).
    pub fn increment(mut self, increment: Increment) -> RowMutations {
        self.mutations.push(RowMutation::Increment(increment));
        self
    }

    /// Adds an append (its row must be this row), as [`RowMutations::increment`].
    pub fn append(mut self, append: Append) -> RowMutations {
        self.mutations.push(RowMutation::Append(append));
        self
    }

    /// The row mutated.
    pub fn row(&self) -> &Bytes {
        &self.row
    }

    /// Whether it holds an increment or an append (which carry a nonce and return
    /// results).
    pub(crate) fn counts(&self) -> bool {
        self.mutations.iter().any(|m| matches!(m, RowMutation::Increment(_) | RowMutation::Append(_)))
    }

    /// Refuses what HBase would reject, on any transport: no mutation, a mutation of
    /// another row, or any part its own checks refuse.
    pub(crate) fn validate(&self, max_value: usize) -> Result<()> {
        validate::row_key(&self.row)?;
        for mutation in &self.mutations {
            if mutation.row() != &self.row {
                return Err(InvalidInput::Option("a row mutation's part targets another row".into()).into());
            }
            match mutation {
                RowMutation::Put(put) => put.validate(max_value)?,
                RowMutation::Delete(delete) => delete.validate()?,
                RowMutation::Increment(increment) => increment.validate()?,
                RowMutation::Append(append) => append.validate()?,
            }
        }
        if self.mutations.is_empty() {
            return Err(InvalidInput::Option("row mutations need at least one mutation".into()).into());
        }
        Ok(())
    }
}

/// Atomic additions to counters of one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Increment {
    pub(crate) row: Bytes,
    pub(crate) columns: Vec<(Bytes, Bytes, i64)>,
    pub(crate) durability: Durability,
}

impl Increment {
    /// Increments on `row`.
    pub fn new(row: impl Into<Bytes>) -> Increment {
        Increment { row: row.into(), columns: Vec::new(), durability: Durability::UseDefault }
    }

    /// Adds `amount` (may be negative) to the 8-byte counter at `family:qualifier`.
    pub fn add(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>, amount: i64) -> Increment {
        self.columns.push((family.into(), qualifier.into(), amount));
        self
    }

    /// The WAL setting.
    pub fn durability(mut self, durability: Durability) -> Increment {
        self.durability = durability;
        self
    }

    /// The row incremented.
    pub fn row(&self) -> &Bytes {
        &self.row
    }

    /// Refuses what HBase would reject, on any transport: a bad row key or family, no column.
    pub(crate) fn validate(&self) -> Result<()> {
        validate::row_key(&self.row)?;
        if self.columns.is_empty() {
            return Err(InvalidInput::Option("an increment needs at least one column".into()).into());
        }
        self.columns.iter().try_for_each(|(f, _, _)| validate::family(f).map_err(Into::into))
    }
}

/// Atomic appends to cells of one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Append {
    pub(crate) row: Bytes,
    pub(crate) columns: Vec<(Bytes, Bytes, Bytes)>,
    pub(crate) durability: Durability,
}

impl Append {
    /// Appends on `row`.
    pub fn new(row: impl Into<Bytes>) -> Append {
        Append { row: row.into(), columns: Vec::new(), durability: Durability::UseDefault }
    }

    /// Appends `value` to the cell at `family:qualifier`.
    pub fn add(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>, value: impl Into<Bytes>) -> Append {
        self.columns.push((family.into(), qualifier.into(), value.into()));
        self
    }

    /// The WAL setting.
    pub fn durability(mut self, durability: Durability) -> Append {
        self.durability = durability;
        self
    }

    /// The row appended to.
    pub fn row(&self) -> &Bytes {
        &self.row
    }

    /// Refuses what HBase would reject, on any transport: a bad row key or family, no column.
    pub(crate) fn validate(&self) -> Result<()> {
        validate::row_key(&self.row)?;
        if self.columns.is_empty() {
            return Err(InvalidInput::Option("an append needs at least one column".into()).into());
        }
        self.columns.iter().try_for_each(|(f, _, _)| validate::family(f).map_err(Into::into))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_negative_timestamp_is_refused_on_any_transport() {
        let max = 1 << 20;
        let refused = |put: Put| matches!(put.validate(max), Err(crate::Error::InvalidInput(InvalidInput::Option(m))) if m.contains("negative"));
        assert!(refused(Put::new("r").cell_at("f", "q", "v", -1)));
        assert!(refused(Put::new("r").cell("f", "q", "v").timestamp(i64::MIN)));
        assert!(Put::new("r").cell_at("f", "q", "v", 0).validate(max).is_ok());
        assert!(Put::new("r").cell("f", "q", "v").timestamp(i64::MAX).validate(max).is_ok());
    }
}
