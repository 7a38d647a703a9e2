//! Request builders: gets, puts, deletes with explicit intent, increments, appends and
//! row mutations. Each turns into the Thrift2 struct only after validation.

use basalt_thrift::hbase::{
    PutSource, TAppend, TColumn, TColumnIncrement, TColumnValue, TCompareOp, TDelete, TDeleteType, TDurability, TGet,
    TIncrement, TMutation, TPut, TRowMutations,
};
use bytes::Bytes;

use crate::error::{InvalidInput, Result};
use crate::filter::{CompareOp, Filter};
use crate::options::ReadOptions;
use crate::validate;

/// A read of one row. By default: every column, newest version only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Get {
    pub(crate) row: Bytes,
    pub(crate) read: ReadOptions,
    pub(crate) timestamp: Option<i64>,
}

impl Get {
    /// A get of `row`.
    pub fn new(row: impl Into<Bytes>) -> Get {
        Get { row: row.into(), read: ReadOptions::default(), timestamp: None }
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

    /// The row this get reads.
    pub fn row(&self) -> &Bytes {
        &self.row
    }

    pub(crate) fn to_thrift(&self) -> Result<TGet> {
        validate::row_key(&self.row)?;
        let read = &self.read;
        if read.max_versions == Some(0) {
            return Err(InvalidInput::Option("max_versions must be at least 1".into()).into());
        }
        if !read.family_time_ranges.is_empty() {
            return Err(InvalidInput::Untranslatable {
                what: "a per-family time range on a get",
                why: "Thrift2's TGet has no colFamTimeRangeMap (TScan has; use a scan of the row)",
            }
            .into());
        }
        // An exact timestamp: the get's own, else the read options' (never both).
        let timestamp = match (self.timestamp, read.timestamp) {
            (Some(_), Some(_)) => {
                return Err(InvalidInput::Option("the get's timestamp is set twice".into()).into());
            }
            (ts, None) | (None, ts) => ts,
        };
        if timestamp.is_some() && read.time_range.is_some() {
            return Err(InvalidInput::Option("set either a timestamp or a time range, not both".into()).into());
        }
        let time_range = match read.time_range {
            Some((min, max)) => ReadOptions::new().time_range(min, max).thrift_time_range()?,
            None => None,
        };
        Ok(TGet::new(
            self.row.to_vec(),
            read.thrift_columns()?,
            timestamp,
            time_range,
            read.max_versions,
            read.rendered_filter()?,
            None,
            None,
            None,
            None,
            read.cache_blocks,
            None,
            None,
            None,
            crate::filter::filter_bytes(read.filter.as_ref())?,
        ))
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

impl Durability {
    fn to_thrift(self) -> Option<TDurability> {
        match self {
            Durability::UseDefault => None,
            Durability::SkipWal => Some(TDurability::SKIP_WAL),
            Durability::AsyncWal => Some(TDurability::ASYNC_WAL),
            Durability::SyncWal => Some(TDurability::SYNC_WAL),
            Durability::FsyncWal => Some(TDurability::FSYNC_WAL),
        }
    }
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
    /// over `max_value` bytes.
    pub(crate) fn validate(&self, max_value: usize) -> Result<()> {
        validate::row_key(&self.row)?;
        if self.cells.is_empty() {
            return Err(InvalidInput::Option("a put needs at least one cell".into()).into());
        }
        for (family, _, value, _) in &self.cells {
            validate::family(family)?;
            if value.len() > max_value {
                return Err(InvalidInput::ValueTooLarge { len: value.len(), max: max_value }.into());
            }
        }
        Ok(())
    }

    pub(crate) fn to_thrift(&self, max_value: usize) -> Result<TPut> {
        self.validate(max_value)?;
        let values = self
            .cells
            .iter()
            .map(|(family, qualifier, value, ts)| {
                TColumnValue::new(family.to_vec(), qualifier.to_vec(), value.to_vec(), *ts, None, None)
            })
            .collect();
        Ok(TPut::new(self.row.to_vec(), values, self.timestamp, None, self.durability.to_thrift(), None))
    }
}

/// `put_many` encodes puts straight from their `Bytes` (after `Put::validate`): no
/// `TPut` is built, nothing is copied but into the request.
impl PutSource for Put {
    fn row(&self) -> &[u8] {
        &self.row
    }

    fn cell_count(&self) -> usize {
        self.cells.len()
    }

    fn cell(&self, i: usize) -> (&[u8], &[u8], &[u8], Option<i64>) {
        let (family, qualifier, value, ts) = &self.cells[i];
        (family, qualifier, value, *ts)
    }

    fn timestamp(&self) -> Option<i64> {
        self.timestamp
    }

    fn durability(&self) -> Option<TDurability> {
        self.durability.to_thrift()
    }
}

/// What a delete removes; every variant says exactly which versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DeleteSpec {
    /// The newest version of a column (or the version at exactly `ts`).
    ColumnVersion(Bytes, Bytes, Option<i64>),
    /// Every version of a column (or those at or before `ts`).
    ColumnAllVersions(Bytes, Bytes, Option<i64>),
    /// Every column of a family (versions at or before `ts`).
    Family(Bytes, Option<i64>),
    /// Every column of a family, only the versions at exactly `ts`.
    FamilyVersion(Bytes, i64),
}

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

    /// Removes every column of `family`.
    pub fn family(mut self, family: impl Into<Bytes>) -> Delete {
        self.specs.push(DeleteSpec::Family(family.into(), None));
        self
    }

    /// Removes the cells of `family` at or before `ts`.
    ///
    /// Several family deletes of one family in one `Delete` remove the union of what
    /// each removes: `family("a").family_until("a", 100)` removes every cell of `a`.
    /// (HBase's own `Delete.addFamily` keeps only the last one given.)
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

    /// One `TDelete` per delete type (Thrift2 applies one type to all listed columns).
    /// The delete as HBase deletes of a single kind each (one for a whole-row delete),
    /// in the order their kinds first appear: what one `TDelete` or one native delete
    /// carries. Validated like the encoding.
    pub(crate) fn split_by_kind(&self) -> Result<Vec<Delete>> {
        // The encoding checks everything a part could get wrong.
        self.to_thrift()?;
        if self.specs.is_empty() {
            return Ok(vec![self.clone()]);
        }
        let mut parts: Vec<Delete> = Vec::new();
        for spec in &self.specs {
            let kind = std::mem::discriminant(spec);
            match parts.iter_mut().find(|p| p.specs.first().map(std::mem::discriminant) == Some(kind)) {
                Some(part) => part.specs.push(spec.clone()),
                None => parts.push(Delete { specs: vec![spec.clone()], ..self.clone_without_specs() }),
            }
        }
        Ok(parts)
    }

    fn clone_without_specs(&self) -> Delete {
        Delete {
            row: self.row.clone(),
            specs: Vec::new(),
            row_timestamp: self.row_timestamp,
            durability: self.durability,
        }
    }

    pub(crate) fn to_thrift(&self) -> Result<Vec<TDelete>> {
        validate::row_key(&self.row)?;
        let durability = self.durability.to_thrift();
        if self.specs.is_empty() {
            return Ok(vec![TDelete::new(
                self.row.to_vec(),
                None,
                self.row_timestamp,
                TDeleteType::DELETE_COLUMNS,
                None,
                durability,
            )]);
        }
        if self.row_timestamp.is_some() {
            return Err(InvalidInput::Option("until(ts) applies to whole-row deletes only".into()).into());
        }
        let mut groups: Vec<(TDeleteType, Vec<TColumn>)> = Vec::new();
        for spec in &self.specs {
            let (kind, column) = match spec {
                DeleteSpec::ColumnVersion(f, q, ts) => {
                    validate::family(f)?;
                    (TDeleteType::DELETE_COLUMN, TColumn::new(f.to_vec(), q.to_vec(), *ts))
                }
                DeleteSpec::ColumnAllVersions(f, q, ts) => {
                    validate::family(f)?;
                    (TDeleteType::DELETE_COLUMNS, TColumn::new(f.to_vec(), q.to_vec(), *ts))
                }
                DeleteSpec::Family(f, ts) => {
                    validate::family(f)?;
                    (TDeleteType::DELETE_FAMILY, TColumn::new(f.to_vec(), None, *ts))
                }
                DeleteSpec::FamilyVersion(f, ts) => {
                    validate::family(f)?;
                    (TDeleteType::DELETE_FAMILY_VERSION, TColumn::new(f.to_vec(), None, Some(*ts)))
                }
            };
            if column.timestamp.is_some_and(|ts| ts < 0) {
                return Err(InvalidInput::Option("a delete's timestamp must not be negative".into()).into());
            }
            match groups.iter_mut().find(|(k, _)| *k == kind) {
                // The gateway's `addFamily` replaces an earlier family delete of the same
                // family: merge them into one covering both (the later timestamp; none
                // is the latest, which covers every other).
                Some((TDeleteType::DELETE_FAMILY, columns)) => {
                    match columns.iter_mut().find(|c| c.family == column.family) {
                        Some(earlier) => {
                            earlier.timestamp = match (earlier.timestamp, column.timestamp) {
                                (Some(a), Some(b)) => Some(a.max(b)),
                                (None, _) | (_, None) => None,
                            }
                        }
                        None => columns.push(column),
                    }
                }
                Some((_, columns)) => columns.push(column),
                None => groups.push((kind, vec![column])),
            }
        }
        Ok(groups
            .into_iter()
            .map(|(kind, columns)| TDelete::new(self.row.to_vec(), columns, None, kind, None, durability))
            .collect())
    }
}

/// The Thrift2 form of a comparison (check-and-mutate shares the filters' operators).
pub(crate) fn compare_op_to_thrift(op: CompareOp) -> TCompareOp {
    match op {
        CompareOp::Less => TCompareOp::LESS,
        CompareOp::LessOrEqual => TCompareOp::LESS_OR_EQUAL,
        CompareOp::Equal => TCompareOp::EQUAL,
        CompareOp::NotEqual => TCompareOp::NOT_EQUAL,
        CompareOp::GreaterOrEqual => TCompareOp::GREATER_OR_EQUAL,
        CompareOp::Greater => TCompareOp::GREATER,
    }
}

/// Puts and deletes applied to one row atomically.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowMutations {
    pub(crate) row: Bytes,
    pub(crate) puts: Vec<Put>,
    pub(crate) deletes: Vec<Delete>,
}

impl RowMutations {
    /// Mutations of `row`.
    pub fn new(row: impl Into<Bytes>) -> RowMutations {
        RowMutations { row: row.into(), puts: Vec::new(), deletes: Vec::new() }
    }

    /// Adds a put (its row must be this row).
    pub fn put(mut self, put: Put) -> RowMutations {
        self.puts.push(put);
        self
    }

    /// Adds a delete (its row must be this row).
    pub fn delete(mut self, delete: Delete) -> RowMutations {
        self.deletes.push(delete);
        self
    }

    /// The row mutated.
    pub fn row(&self) -> &Bytes {
        &self.row
    }

    pub(crate) fn to_thrift(&self, max_value: usize) -> Result<TRowMutations> {
        validate::row_key(&self.row)?;
        let mut mutations = Vec::new();
        for put in &self.puts {
            if put.row != self.row {
                return Err(InvalidInput::Option("a row mutation's put targets another row".into()).into());
            }
            mutations.push(TMutation::Put(put.to_thrift(max_value)?));
        }
        for delete in &self.deletes {
            if delete.row != self.row {
                return Err(InvalidInput::Option("a row mutation's delete targets another row".into()).into());
            }
            mutations.extend(delete.to_thrift()?.into_iter().map(TMutation::DeleteSingle));
        }
        if mutations.is_empty() {
            return Err(InvalidInput::Option("row mutations need at least one put or delete".into()).into());
        }
        Ok(TRowMutations::new(self.row.to_vec(), mutations))
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

    pub(crate) fn to_thrift(&self) -> Result<TIncrement> {
        validate::row_key(&self.row)?;
        if self.columns.is_empty() {
            return Err(InvalidInput::Option("an increment needs at least one column".into()).into());
        }
        let mut columns = Vec::new();
        for (f, q, amount) in &self.columns {
            validate::family(f)?;
            columns.push(TColumnIncrement::new(f.to_vec(), q.to_vec(), *amount));
        }
        Ok(TIncrement::new(self.row.to_vec(), columns, None, self.durability.to_thrift(), None, true))
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

    pub(crate) fn to_thrift(&self) -> Result<TAppend> {
        validate::row_key(&self.row)?;
        if self.columns.is_empty() {
            return Err(InvalidInput::Option("an append needs at least one column".into()).into());
        }
        let mut columns = Vec::new();
        for (f, q, v) in &self.columns {
            validate::family(f)?;
            columns.push(TColumnValue::new(f.to_vec(), q.to_vec(), v.to_vec(), None, None, None));
        }
        Ok(TAppend::new(self.row.to_vec(), columns, None, self.durability.to_thrift(), None, true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delete_intents_map_to_delete_types() {
        let whole = Delete::row("r").to_thrift().unwrap();
        assert_eq!(whole.len(), 1);
        assert!(whole[0].columns.is_none());
        let mixed = Delete::row("r").latest_version("d", "a").all_versions("d", "b").family("m").to_thrift().unwrap();
        let kinds: Vec<_> = mixed.iter().map(|d| d.delete_type).collect();
        assert_eq!(
            kinds,
            vec![Some(TDeleteType::DELETE_COLUMN), Some(TDeleteType::DELETE_COLUMNS), Some(TDeleteType::DELETE_FAMILY)]
        );
        assert!(Delete::row("").to_thrift().is_err());
        assert!(Delete::row("r").family("").to_thrift().is_err());
    }

    #[test]
    fn repeated_family_deletes_merge_into_their_union() {
        let family_ts = |d: &Delete| -> Vec<(Vec<u8>, Option<i64>)> {
            let t = d.to_thrift().unwrap();
            assert_eq!(t.len(), 1);
            t[0].columns.clone().unwrap().into_iter().map(|c| (c.family, c.timestamp)).collect()
        };
        assert_eq!(family_ts(&Delete::row("r").family("a").family_until("a", 100)), vec![(b"a".to_vec(), None)]);
        assert_eq!(family_ts(&Delete::row("r").family_until("a", 100).family("a")), vec![(b"a".to_vec(), None)]);
        assert_eq!(
            family_ts(&Delete::row("r").family_until("a", 60).family_until("b", 1).family_until("a", 20)),
            vec![(b"a".to_vec(), Some(60)), (b"b".to_vec(), Some(1))]
        );
        let version = Delete::row("r").family_version("a", 7).to_thrift().unwrap();
        assert_eq!(version[0].delete_type, Some(TDeleteType::DELETE_FAMILY_VERSION));
        assert_eq!(version[0].columns.as_ref().unwrap()[0].timestamp, Some(7));
        assert!(Delete::row("r").family_version("a", -1).to_thrift().is_err());
    }

    #[test]
    fn puts_are_validated() {
        assert!(Put::new("r").to_thrift(10).is_err(), "no cells");
        assert!(Put::new("r").cell("d", "q", vec![0u8; 11]).to_thrift(10).is_err(), "value too large");
        assert!(Put::new("r").cell("", "q", "v").to_thrift(10).is_err(), "empty family");
        let put = Put::new("r").cell("d", "", "v").to_thrift(10).unwrap();
        assert_eq!(put.column_values[0].qualifier, b"");
    }
}
