//! Read options shared by gets and scans: columns, versions, time ranges, block
//! caching, the server-side filter, and which replica reads, as HBase's protobuf
//! fields; and [`Get`], a get of one row with those options.

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;
use prost::Message;

use crate::error::RpcError;
use crate::pb;

/// The options a get and a scan have in common (unset fields take the server's
/// defaults: every column, the newest version, every time, blocks cached).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ReadFields {
    pub(crate) columns: Vec<(Bytes, Option<Bytes>)>,
    pub(crate) max_versions: Option<u32>,
    pub(crate) time_range: Option<(u64, u64)>,
    pub(crate) family_time_ranges: Vec<(Bytes, u64, u64)>,
    pub(crate) cache_blocks: Option<bool>,
    pub(crate) filter: Option<pb::Filter>,
    /// Strong (the primary) unless set to timeline.
    pub(crate) consistency: Option<pb::Consistency>,
    /// The one replica to read, if any.
    pub(crate) replica_id: Option<u16>,
    /// At most this many cells per family of a row (`store_limit`).
    pub(crate) store_limit: Option<u32>,
    /// Cells skipped first in each family of a row (`store_offset`).
    pub(crate) store_offset: Option<u32>,
}

impl ReadFields {
    pub(crate) fn column_proto(&self) -> Vec<pb::Column> {
        columns_proto(&self.columns)
    }

    /// The consistency field of a `Get` or `Scan` message (unset: strong).
    pub(crate) fn consistency_proto(&self) -> Option<i32> {
        self.consistency.map(|c| c as i32)
    }

    /// Whether the read may be answered by secondary replicas.
    pub(crate) fn is_timeline(&self) -> bool {
        match self.consistency {
            Some(pb::Consistency::Timeline) => true,
            Some(pb::Consistency::Strong) | None => false,
        }
    }

    /// Refuses a secondary replica under strong consistency (HBase would ignore it).
    pub(crate) fn check_replica(&self) -> Result<(), RpcError> {
        match self.replica_id {
            Some(id) if id > 0 && !self.is_timeline() => Err(RpcError::InvalidArgument(format!(
                "replica {id} is a secondary: strong reads are served by the primary only (use timeline consistency)"
            ))),
            Some(_) | None => Ok(()),
        }
    }

    pub(crate) fn time_range_proto(&self) -> Option<pb::TimeRange> {
        self.time_range.map(|(from, to)| pb::TimeRange { from: Some(from), to: Some(to) })
    }

    pub(crate) fn family_time_ranges_proto(&self) -> Vec<pb::ColumnFamilyTimeRange> {
        self.family_time_ranges
            .iter()
            .map(|(family, from, to)| pb::ColumnFamilyTimeRange {
                column_family: family.clone(),
                time_range: pb::TimeRange { from: Some(*from), to: Some(*to) },
            })
            .collect()
    }
}

/// Decodes a serialized protobuf `Filter` (as HBase's `Filter.toByteArray` writes it,
/// or Thrift2's `filterBytes` carries it).
pub(crate) fn decode_filter(bytes: &[u8]) -> Result<pb::Filter, RpcError> {
    pb::Filter::decode(bytes).map_err(|error| RpcError::InvalidArgument(format!("not a protobuf filter: {error}")))
}

/// Checks a time range `[from, to)`.
pub(crate) fn check_time_range(from: u64, to: u64) -> Result<(), RpcError> {
    if from > to {
        return Err(RpcError::InvalidArgument(format!("time range [{from}, {to}) ends before it starts")));
    }
    Ok(())
}

/// Families and columns (in call order) as protobuf `Column`s, with the meaning HBase's
/// Java client gives the same calls (its `Get`/`Scan` family map): a family named
/// without a qualifier reads the whole family and replaces the columns named before it
/// (widens); a column after its whole family starts the family's qualifiers afresh
/// (narrows); repeats count once. Families and qualifiers come out in byte order.
pub(crate) fn columns_proto(columns: &[(Bytes, Option<Bytes>)]) -> Vec<pb::Column> {
    // `None`: the whole family.
    let mut families: BTreeMap<&Bytes, Option<BTreeSet<&Bytes>>> = BTreeMap::new();
    for (family, qualifier) in columns {
        match qualifier {
            None => {
                families.insert(family, None);
            }
            Some(qualifier) => {
                families.entry(family).or_insert(None).get_or_insert_with(BTreeSet::new).insert(qualifier);
            }
        }
    }
    families
        .into_iter()
        .map(|(family, qualifiers)| pb::Column {
            family: family.clone(),
            qualifier: qualifiers.into_iter().flatten().cloned().collect(),
        })
        .collect()
}

/// Builder methods for the shared read options, implemented by [`crate::Get`] and
/// [`crate::ScanSpec`].
macro_rules! read_options {
    ($ty:ty) => {
        impl $ty {
            /// Only this family (may be repeated).
            pub fn family(mut self, family: impl Into<Bytes>) -> $ty {
                self.read.columns.push((family.into(), None));
                self
            }

            /// Only this column (may be repeated).
            pub fn column(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> $ty {
                self.read.columns.push((family.into(), Some(qualifier.into())));
                self
            }

            /// Up to `versions` versions per column (default 1).
            pub fn max_versions(mut self, versions: u32) -> $ty {
                self.read.max_versions = Some(versions.max(1));
                self
            }

            /// Only cells with `from <= timestamp < to`; an inverted range is refused
            /// when the request is sent.
            pub fn time_range(mut self, from: u64, to: u64) -> $ty {
                self.read.time_range = Some((from, to));
                self
            }

            /// Only cells written at exactly `timestamp`.
            pub fn timestamp(self, timestamp: u64) -> $ty {
                self.time_range(timestamp, timestamp.saturating_add(1))
            }

            /// In `family` only cells with `from <= timestamp < to` (may be repeated,
            /// one range per family).
            pub fn family_time_range(mut self, family: impl Into<Bytes>, from: u64, to: u64) -> $ty {
                self.read.family_time_ranges.push((family.into(), from, to));
                self
            }

            /// Whether the server keeps the blocks read in its block cache (default:
            /// yes).
            pub fn cache_blocks(mut self, cache: bool) -> $ty {
                self.read.cache_blocks = Some(cache);
                self
            }

            /// Which replicas may answer (default strong: the primary only). A timeline
            /// read asks the primary, then after a short delay the secondaries too;
            /// the first answer wins and may be stale ([`crate::RowResult::stale`]).
            pub fn consistency(mut self, consistency: pb::Consistency) -> $ty {
                self.read.consistency = Some(consistency);
                self
            }

            /// Reads only replica `id` of the region (0: the primary); a secondary needs
            /// timeline consistency (refused when the request is sent otherwise).
            pub fn replica_id(mut self, id: u16) -> $ty {
                self.read.replica_id = Some(id);
                self
            }

            /// At most `cells` cells of each family of a row (HBase's `store_limit`,
            /// Java's `setMaxResultsPerColumnFamily`).
            pub fn max_results_per_family(mut self, cells: u32) -> $ty {
                self.read.store_limit = Some(cells);
                self
            }

            /// Skips the first `cells` cells of each family of a row (HBase's
            /// `store_offset`, Java's `setRowOffsetPerColumnFamily`; 0 is not sent).
            pub fn row_offset_per_family(mut self, cells: u32) -> $ty {
                self.read.store_offset = (cells > 0).then_some(cells);
                self
            }

            /// A server-side filter, as HBase's protobuf `Filter`.
            pub fn filter(mut self, filter: pb::Filter) -> $ty {
                self.read.filter = Some(filter);
                self
            }

            /// A server-side filter given as serialized protobuf bytes; refused when
            /// they do not decode.
            pub fn filter_bytes(self, bytes: &[u8]) -> Result<$ty, RpcError> {
                Ok(self.filter(crate::read::decode_filter(bytes)?))
            }

            /// Checks the options before a request is built.
            pub(crate) fn check_read(&self) -> Result<(), RpcError> {
                self.read.check_replica()?;
                if let Some((from, to)) = self.read.time_range {
                    crate::read::check_time_range(from, to)?;
                }
                for (_, from, to) in &self.read.family_time_ranges {
                    crate::read::check_time_range(*from, *to)?;
                }
                Ok(())
            }
        }
    };
}

pub(crate) use read_options;

/// The request that closes server-side scanner `id`.
pub(crate) fn close_request(id: u64) -> pb::ScanRequest {
    pb::ScanRequest { scanner_id: Some(id), number_of_rows: Some(0), close_scanner: Some(true), ..Default::default() }
}

/// A get of one row.
#[derive(Debug, Clone, PartialEq)]
pub struct Get {
    row: Bytes,
    read: ReadFields,
}

impl Get {
    /// Every column of `row`, newest version.
    pub fn new(row: impl Into<Bytes>) -> Get {
        Get { row: row.into(), read: ReadFields::default() }
    }

    /// The row.
    pub fn row(&self) -> &Bytes {
        &self.row
    }

    pub(crate) fn read_fields(&self) -> &ReadFields {
        &self.read
    }

    pub(crate) fn to_proto(&self) -> pb::Get {
        pb::Get {
            row: self.row.clone(),
            column: self.read.column_proto(),
            filter: self.read.filter.clone(),
            time_range: self.read.time_range_proto(),
            max_versions: self.read.max_versions,
            cache_blocks: self.read.cache_blocks,
            cf_time_range: self.read.family_time_ranges_proto(),
            consistency: self.read.consistency_proto(),
            store_limit: self.read.store_limit,
            store_offset: self.read.store_offset,
            ..Default::default()
        }
    }
}

read_options!(Get);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_bytes_round_trip_and_garbage_is_refused() {
        let filter =
            pb::Filter { name: "org.apache.hadoop.hbase.filter.KeyOnlyFilter".into(), serialized_filter: None };
        assert_eq!(decode_filter(&filter.encode_to_vec()).ok(), Some(filter));
        assert!(matches!(decode_filter(&[0xff, 0xff, 0xff]), Err(RpcError::InvalidArgument(_))));
    }

    #[test]
    fn a_secondary_replica_needs_timeline_consistency() {
        let mut read = ReadFields { replica_id: Some(1), ..ReadFields::default() };
        assert!(matches!(read.check_replica(), Err(RpcError::InvalidArgument(_))));
        read.consistency = Some(pb::Consistency::Strong);
        assert!(read.check_replica().is_err());
        read.consistency = Some(pb::Consistency::Timeline);
        assert!(read.check_replica().is_ok() && read.is_timeline());
        assert_eq!(read.consistency_proto(), Some(1));
        assert!(ReadFields { replica_id: Some(0), ..ReadFields::default() }.check_replica().is_ok());
    }

    #[test]
    fn columns_mean_what_javas_family_map_makes_of_them() {
        let b = |s: &str| Bytes::copy_from_slice(s.as_bytes());
        let shape = |columns: &[(Bytes, Option<Bytes>)]| -> Vec<(Bytes, Vec<Bytes>)> {
            columns_proto(columns).into_iter().map(|c| (c.family, c.qualifier)).collect()
        };
        // A later family widens; the issue's [a:x, b:y, a:*].
        assert_eq!(
            shape(&[(b("a"), Some(b("x"))), (b("b"), Some(b("y"))), (b("a"), None)]),
            vec![(b("a"), vec![]), (b("b"), vec![b("y")])]
        );
        // A later column narrows; repeats count once; byte order.
        assert_eq!(
            shape(&[(b("c"), None), (b("c"), Some(b("z"))), (b("c"), Some(b("q"))), (b("c"), Some(b("z")))]),
            vec![(b("c"), vec![b("q"), b("z")])]
        );
        assert!(columns_proto(&[]).is_empty());
    }

    #[test]
    fn time_ranges_are_checked() {
        assert!(check_time_range(5, 5).is_ok());
        assert!(check_time_range(6, 5).is_err());
    }
}
