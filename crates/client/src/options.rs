//! What a read returns, shared by [`Get`](crate::Get), [`Scan`](crate::Scan) and salted
//! scans: one value instead of the same setters on every builder.

use bytes::Bytes;

use crate::error::{InvalidInput, Result};
use crate::filter::Filter;
use crate::validate;

/// Which columns a read returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ColumnSpec {
    Family(Bytes),
    Column(Bytes, Bytes),
}

/// The options every read shares: columns, filter, versions, time range, and for scans
/// the page size (`caching`), the cells per item (`batch`) and block caching. Build one
/// and hand it to [`Get::read_options`](crate::Get::read_options),
/// [`Scan::read_options`](crate::Scan::read_options) or
/// [`SaltedScan::read_options`](crate::SaltedScan::read_options); the builders' own
/// setters (`Scan::family`, `Get::filter`, ...) are shortcuts that edit this value.
///
/// Gets ignore `caching` and `batch`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReadOptions {
    pub(crate) columns: Vec<ColumnSpec>,
    pub(crate) filter: Option<Filter>,
    pub(crate) time_range: Option<(i64, i64)>,
    /// Only cells written at exactly this time (Java's `setTimestamp`).
    pub(crate) timestamp: Option<i64>,
    /// Per-family time ranges (Java's `setColumnFamilyTimeRange`), scans only.
    pub(crate) family_time_ranges: Vec<(Bytes, i64, i64)>,
    pub(crate) max_versions: Option<i32>,
    pub(crate) caching: Option<u32>,
    pub(crate) batch: Option<i32>,
    pub(crate) cache_blocks: Option<bool>,
    /// Strong (the primary replica only) or timeline (any replica may answer).
    pub(crate) consistency: Consistency,
    /// The one replica to read (Java's `setReplicaId`); as given, checked by
    /// [`ReadOptions::validate`].
    pub(crate) replica_id: Option<i32>,
}

/// Which replicas of a region may answer a read (HBase's `Consistency`).
///
/// A table created with region replication `n` has, for every region, a primary
/// replica (id 0) that takes the writes and `n - 1` read-only secondary replicas that
/// catch up with it (from flushed store files, or by region-replica replication).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[non_exhaustive]
pub enum Consistency {
    /// Only the primary replica answers: a read sees every acknowledged write (default).
    #[default]
    Strong,
    /// The primary is asked first; when it has not answered after a short delay, the
    /// secondaries are asked too and the first answer wins. The answer may be older
    /// than the latest writes: [`Row::is_stale`](crate::Row::is_stale) says when a
    /// secondary gave it. With [`ReadOptions::replica_id`], only that replica is asked.
    Timeline,
}

/// The largest replica id a region name can carry (four hex digits).
pub const MAX_REPLICA_ID: i32 = 0xFFFF;

impl ReadOptions {
    /// Every column, newest version, the server's defaults.
    pub fn new() -> ReadOptions {
        ReadOptions::default()
    }

    /// Only this column (may be called repeatedly).
    pub fn column(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> ReadOptions {
        self.columns.push(ColumnSpec::Column(family.into(), qualifier.into()));
        self
    }

    /// Every column of this family (may be called repeatedly).
    pub fn family(mut self, family: impl Into<Bytes>) -> ReadOptions {
        self.columns.push(ColumnSpec::Family(family.into()));
        self
    }

    /// A server-side filter.
    pub fn filter(mut self, filter: Filter) -> ReadOptions {
        self.filter = Some(filter);
        self
    }

    /// Only versions with `min <= timestamp < max`.
    pub fn time_range(mut self, min: i64, max: i64) -> ReadOptions {
        self.time_range = Some((min, max));
        self
    }

    /// Only cells written at exactly `ts` (the time range `[ts, ts + 1)`); not
    /// together with [`ReadOptions::time_range`].
    pub fn timestamp(mut self, ts: i64) -> ReadOptions {
        self.timestamp = Some(ts);
        self
    }

    /// Scans: in `family`, only versions with `min <= timestamp < max` (other families
    /// keep the scan's time range). Given twice for one family, the later range holds.
    /// Gets refuse it: Thrift2's `TGet` cannot carry it.
    pub fn family_time_range(mut self, family: impl Into<Bytes>, min: i64, max: i64) -> ReadOptions {
        self.family_time_ranges.push((family.into(), min, max));
        self
    }

    /// Up to `n` versions per column, newest first (default 1).
    pub fn max_versions(mut self, n: u32) -> ReadOptions {
        self.max_versions = Some(i32::try_from(n).unwrap_or(i32::MAX));
        self
    }

    /// Scans: rows per round trip, every page exactly (default: pages grow from
    /// [`FIRST_PAGE_ROWS`](crate::tuning::FIRST_PAGE_ROWS), see [`Scan::caching`](crate::Scan::caching)).
    pub fn caching(mut self, rows: u32) -> ReadOptions {
        self.caching = Some(rows);
        self
    }

    /// Scans: at most `cells` cells per returned item; wide rows come back in parts.
    pub fn batch(mut self, cells: u32) -> ReadOptions {
        self.batch = Some(i32::try_from(cells).unwrap_or(i32::MAX));
        self
    }

    /// Whether the blocks read are cached on the region server.
    pub fn cache_blocks(mut self, cache: bool) -> ReadOptions {
        self.cache_blocks = Some(cache);
        self
    }

    /// Which replicas may answer (default [`Consistency::Strong`]: the primary only).
    pub fn consistency(mut self, consistency: Consistency) -> ReadOptions {
        self.consistency = consistency;
        self
    }

    /// Reads only replica `id` of the region (0: the primary), as Java's
    /// `setReplicaId`; needs [`Consistency::Timeline`] for a secondary. A negative id,
    /// or one above [`MAX_REPLICA_ID`], is refused before sending
    /// ([`InvalidInput::Option`]).
    pub fn replica_id(mut self, id: i32) -> ReadOptions {
        self.replica_id = Some(id);
        self
    }

    /// The consistency asked for.
    pub fn get_consistency(&self) -> Consistency {
        self.consistency
    }

    /// The replica asked for, if any (as given).
    pub fn get_replica_id(&self) -> Option<i32> {
        self.replica_id
    }

    /// The checked replica target: `None` for "any replica the consistency allows".
    pub(crate) fn target_replica(&self) -> Result<Option<u16>> {
        let Some(id) = self.replica_id else { return Ok(None) };
        let id = u16::try_from(id)
            .map_err(|_| InvalidInput::Option(format!("replica id {id} must be in [0, {MAX_REPLICA_ID}]")))?;
        match self.consistency {
            Consistency::Timeline => Ok(Some(id)),
            Consistency::Strong if id == 0 => Ok(Some(0)),
            Consistency::Strong => Err(InvalidInput::Option(format!(
                "replica id {id} is a secondary replica: a strong read is served by the primary only; \
                 set Consistency::Timeline"
            ))
            .into()),
        }
    }

    /// The filter, if any.
    pub fn filter_ref(&self) -> Option<&Filter> {
        self.filter.as_ref()
    }

    /// Whether a filter is set (a gateway failure is then probably a malformed filter).
    pub(crate) fn has_filter(&self) -> bool {
        self.filter.is_some()
    }

    /// Refuses values HBase would reject or misread.
    pub(crate) fn validate(&self) -> Result<()> {
        if self.caching == Some(0) {
            return Err(InvalidInput::Option("caching must be at least 1".into()).into());
        }
        if self.batch == Some(0) {
            return Err(InvalidInput::Option("batch must be at least 1".into()).into());
        }
        if self.max_versions == Some(0) {
            return Err(InvalidInput::Option("max_versions must be at least 1".into()).into());
        }
        for column in &self.columns {
            match column {
                ColumnSpec::Family(f) | ColumnSpec::Column(f, _) => validate::family(f)?,
            }
        }
        self.rendered_filter()?;
        self.effective_time_range()?;
        self.target_replica()?;
        for (family, min, max) in &self.family_time_ranges {
            validate::family(family)?;
            checked_range(*min, *max)?;
        }
        Ok(())
    }

    pub(crate) fn rendered_filter(&self) -> Result<Option<Vec<u8>>> {
        render_filter(self.filter.as_ref())
    }

    /// The time range a scan reads: its own, or `[ts, ts + 1)` for an exact timestamp
    /// (never both).
    pub(crate) fn effective_time_range(&self) -> Result<Option<(i64, i64)>> {
        match (self.time_range, self.timestamp) {
            (None, None) => Ok(None),
            (Some((min, max)), None) => checked_range(min, max).map(Some),
            (None, Some(ts)) if (0..i64::MAX).contains(&ts) => Ok(Some((ts, ts + 1))),
            (None, Some(ts)) => {
                Err(InvalidInput::Option(format!("timestamp {ts} must be in [0, {})", i64::MAX)).into())
            }
            (Some(_), Some(_)) => {
                Err(InvalidInput::Option("set either a timestamp or a time range, not both".into()).into())
            }
        }
    }
}

/// `[min, max)` checked: HBase refuses a negative or reversed time range.
pub(crate) fn checked_range(min: i64, max: i64) -> Result<(i64, i64)> {
    if min >= 0 && min <= max {
        Ok((min, max))
    } else {
        Err(InvalidInput::Option(format!("time range [{min}, {max}) is empty or negative")).into())
    }
}

/// A filter's string form, or the typed reason it cannot be rendered.
pub(crate) fn render_filter(filter: Option<&Filter>) -> Result<Option<Vec<u8>>> {
    match filter {
        None => Ok(None),
        Some(f) => crate::filter::filter_string(Some(f)).map_err(|e| InvalidInput::Filter(e).into()),
    }
}
