//! Requests as Thrift2 structs: the only place where a get, a mutation or a scan
//! becomes a `TGet`, `TPut`, `TDelete`, `TRowMutations`, `TIncrement`, `TAppend` or
//! `TScan`. Each encoder runs the request's own (transport-neutral) validation first,
//! then refuses what Thrift2 cannot carry, then builds the struct; the generated types'
//! long positional constructors are confined to this file.

use std::collections::BTreeMap;

use basalt_thrift::hbase::{
    PutSource, TAppend, TColumn, TColumnIncrement, TColumnValue, TCompareOp, TConsistency, TDelete, TDeleteType,
    TDurability, TGet, TIncrement, TMutation, TPut, TRowMutations, TScan, TTimeRange,
};
use bytes::Bytes;

use super::ScanRequest;
use crate::conditional::{CheckAndMutate, CheckTest};
use crate::error::{InvalidInput, Result};
use crate::filter::CompareOp;
use crate::ops::{Append, Delete, DeleteSpec, Durability, Get, Increment, Put, RowMutation, RowMutations};
use crate::options::{checked_range, render_filter, Consistency, ReadOptions};
use crate::request::{ColumnSelection, ScanExtras, RAW_ATTRIBUTE, RAW_TRUE};

/// The `TGet` of a get.
pub(crate) fn get(get: &Get) -> Result<TGet> {
    get.validate()?;
    let read = &get.read;
    if !read.family_time_ranges.is_empty() {
        return Err(InvalidInput::Untranslatable {
            what: "a per-family time range on a get",
            why: "Thrift2's TGet has no colFamTimeRangeMap (TScan has; use a scan of the row)",
        }
        .into());
    }
    let time_range = match read.time_range {
        Some((min, max)) => Some(thrift_range(checked_range(min, max)?)),
        None => None,
    };
    Ok(TGet::new(
        get.row.to_vec(),
        columns(read),
        get.exact_timestamp()?,
        time_range,
        read.max_versions,
        read.rendered_filter()?,
        None,
        None,
        consistency(read),
        target_replica(read)?,
        read.cache_blocks,
        get.window.limit_i32(),
        get.window.offset_i32(),
        None,
        crate::transport::filter_protobuf::filter_bytes(read.filter.as_ref())?,
    ))
}

/// The `TScan` of a scan request.
pub(crate) fn scan(scan: &ScanRequest) -> Result<TScan> {
    let read = &scan.read;
    read.validate()?;
    if scan.on_demand.is_some() {
        return Err(InvalidInput::Untranslatable {
            what: "load_column_families_on_demand",
            why: "the gateway's TScan has no such field, so the region server's default always applies \
                  (native RPC carries it)",
        }
        .into());
    }
    refuse_untranslatable_extras(&scan.extras)?;
    // `fetch_ahead` is a hint the gateway cannot take: its scanners page when asked.
    // The gateway's caching toward the region server: the caller's page size, else
    // unset, so that the region server answers by size (2 MB per call by default)
    // and the growing pages are served from the gateway's cache.
    let caching = read.caching.map(|n| i32::try_from(n).unwrap_or(i32::MAX));
    Ok(TScan::new(
        non_empty(&scan.start),
        non_empty(&scan.stop),
        columns(read),
        caching,
        read.max_versions,
        time_range(read)?,
        render_filter(scan.filter.as_ref())?,
        read.batch,
        scan_attributes(&scan.extras),
        None,
        scan.reversed,
        read.cache_blocks,
        family_time_ranges(read)?,
        None,
        scan.limit,
        consistency(read),
        target_replica(read)?,
        crate::transport::filter_protobuf::filter_bytes(scan.filter.as_ref())?,
    ))
}

/// What of a scan's extras the gateway's `TScan` cannot carry, refused by name (native
/// RPC carries each).
fn refuse_untranslatable_extras(extras: &ScanExtras) -> Result<()> {
    if !extras.window.is_open() {
        return Err(InvalidInput::Untranslatable {
            what: "max_results_per_family / row_offset_per_family on a scan",
            why: "the gateway's TScan has no storeLimit or storeOffset (TGet has: a get carries them; \
                  native RPC carries them on scans)",
        }
        .into());
    }
    if extras.allow_partial {
        return Err(InvalidInput::Untranslatable {
            what: "allow_partial_results",
            why: "the gateway's scanner always joins a row's pieces and TScan cannot ask otherwise \
                  (native RPC carries it)",
        }
        .into());
    }
    if extras.max_result_size.is_some() {
        return Err(InvalidInput::Untranslatable {
            what: "max_result_size",
            why: "the gateway's TScan has no maxResultSize: the gateway's own client setting applies \
                  (native RPC carries it)",
        }
        .into());
    }
    Ok(())
}

/// The scan's attributes: `_raw_` for a raw scan (Java's `Scan.setRaw` is this
/// attribute, which the gateway copies onto its `Scan`).
fn scan_attributes(extras: &ScanExtras) -> Option<BTreeMap<Vec<u8>, Vec<u8>>> {
    extras.raw.then(|| BTreeMap::from([(RAW_ATTRIBUTE.as_bytes().to_vec(), RAW_TRUE.to_vec())]))
}

/// The read's consistency; unset for the default (strong), as the Java client sends it.
fn consistency(read: &ReadOptions) -> Option<TConsistency> {
    match read.consistency {
        Consistency::Strong => None,
        Consistency::Timeline => Some(TConsistency::TIMELINE),
    }
}

/// The checked replica target as Thrift2's `targetReplicaId`.
fn target_replica(read: &ReadOptions) -> Result<Option<i32>> {
    Ok(read.target_replica()?.map(i32::from))
}

/// The columns a read names, as `TColumn`s (none: every column): Java's family map of
/// the calls, flattened ([`ColumnSelection`]). The gateway replays them through Java's
/// `addFamily`/`addColumn`, which rebuilds the same map.
fn columns(read: &ReadOptions) -> Option<Vec<TColumn>> {
    let selection = ColumnSelection::of(&read.columns);
    if selection.is_empty() {
        return None;
    }
    let column = |(family, qualifier): (&Bytes, Option<&Bytes>)| {
        TColumn::new(family.to_vec(), qualifier.map(|q| q.to_vec()), None)
    };
    Some(selection.columns().map(column).collect())
}

/// A scan's time range: its own, or `[ts, ts + 1)` for an exact timestamp.
fn time_range(read: &ReadOptions) -> Result<Option<TTimeRange>> {
    Ok(read.effective_time_range()?.map(thrift_range))
}

/// The per-family time ranges as Thrift2's `colFamTimeRangeMap`.
fn family_time_ranges(read: &ReadOptions) -> Result<Option<BTreeMap<Vec<u8>, TTimeRange>>> {
    if read.family_time_ranges.is_empty() {
        return Ok(None);
    }
    let mut map = BTreeMap::new();
    for (family, min, max) in &read.family_time_ranges {
        map.insert(family.to_vec(), thrift_range(checked_range(*min, *max)?));
    }
    Ok(Some(map))
}

fn thrift_range((min, max): (i64, i64)) -> TTimeRange {
    TTimeRange::new(min, max)
}

fn non_empty(b: &Bytes) -> Option<Vec<u8>> {
    if b.is_empty() {
        None
    } else {
        Some(b.to_vec())
    }
}

/// The `TPut` of a put.
pub(crate) fn put(put: &Put, max_value: usize) -> Result<TPut> {
    put.validate(max_value)?;
    let values = put
        .cells
        .iter()
        .map(|(family, qualifier, value, ts)| {
            TColumnValue::new(family.to_vec(), qualifier.to_vec(), value.to_vec(), *ts, None, None)
        })
        .collect();
    Ok(TPut::new(put.row.to_vec(), values, put.timestamp, None, durability(put.durability), None))
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
        durability(self.durability)
    }
}

/// One `TDelete` per delete type (Thrift2 applies one type to all listed columns), of
/// the delete's cells in Java's order after Java's clear rules ([`Delete::cells`]); the
/// gateway applies them together (one batch, or one row mutation).
pub(crate) fn delete(delete: &Delete) -> Result<Vec<TDelete>> {
    delete.validate()?;
    let wal = durability(delete.durability);
    if delete.specs.is_empty() {
        return Ok(vec![TDelete::new(
            delete.row.to_vec(),
            None,
            delete.row_timestamp,
            TDeleteType::DELETE_COLUMNS,
            None,
            wal,
        )]);
    }
    let mut groups: Vec<(TDeleteType, Vec<TColumn>)> = Vec::new();
    for cell in delete.cells() {
        let (kind, column) = match cell {
            DeleteSpec::ColumnVersion(f, q, ts) => {
                (TDeleteType::DELETE_COLUMN, TColumn::new(f.to_vec(), q.to_vec(), ts))
            }
            DeleteSpec::ColumnAllVersions(f, q, ts) => {
                (TDeleteType::DELETE_COLUMNS, TColumn::new(f.to_vec(), q.to_vec(), ts))
            }
            DeleteSpec::Family(f, ts) => (TDeleteType::DELETE_FAMILY, TColumn::new(f.to_vec(), None, ts)),
            DeleteSpec::FamilyVersion(f, ts) => {
                (TDeleteType::DELETE_FAMILY_VERSION, TColumn::new(f.to_vec(), None, Some(ts)))
            }
        };
        match groups.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, columns)) => columns.push(column),
            None => groups.push((kind, vec![column])),
        }
    }
    Ok(groups
        .into_iter()
        .map(|(kind, columns)| TDelete::new(delete.row.to_vec(), columns, None, kind, None, wal))
        .collect())
}

/// The `TRowMutations` of row mutations.
pub(crate) fn row_mutations(mutations: &RowMutations, max_value: usize) -> Result<TRowMutations> {
    mutations.validate(max_value)?;
    let mut out = Vec::new();
    for mutation in &mutations.mutations {
        match mutation {
            RowMutation::Put(p) => out.push(TMutation::Put(put(p, max_value)?)),
            RowMutation::Delete(d) => out.extend(delete(d)?.into_iter().map(TMutation::DeleteSingle)),
            RowMutation::Increment(_) | RowMutation::Append(_) => return Err(COUNTERS_IN_ROW_MUTATIONS.into()),
        }
    }
    Ok(TRowMutations::new(mutations.row.to_vec(), out))
}

/// The refusal of increments and appends in row mutations.
pub(crate) const COUNTERS_IN_ROW_MUTATIONS: InvalidInput = InvalidInput::Untranslatable {
    what: "an increment or append in row mutations",
    why: "Thrift2's TMutation carries only puts and deletes (native RPC carries them)",
};

/// Why a [`CheckAndMutate`] that the plain check-and-mutate calls cannot express
/// cannot go through the gateway either: Thrift2's `checkAndMutate` compares one
/// column to a value, has no time range, and applies `TRowMutations` of puts and
/// deletes.
pub(crate) fn check_and_mutate_refusal(request: &CheckAndMutate) -> InvalidInput {
    if let Some(CheckTest::Filter(_)) = request.test {
        return InvalidInput::Untranslatable {
            what: "a check-and-mutate condition on a filter",
            why: "Thrift2's checkAndMutate compares one column to a value (native RPC carries a filter)",
        };
    }
    if request.time_range.is_some() {
        return InvalidInput::Untranslatable {
            what: "a check-and-mutate time range",
            why: "Thrift2's checkAndMutate has no time range (native RPC carries it)",
        };
    }
    InvalidInput::Untranslatable {
        what: "an increment or append in a check-and-mutate",
        why: "Thrift2's checkAndMutate applies TRowMutations, which carry only puts and deletes \
              (native RPC carries them)",
    }
}

/// A delete of several kinds as row mutations (one `TDelete` per kind, applied
/// atomically): a `TDelete` carries one kind, so a check-and-delete of several goes as
/// the gateway's check-and-mutate, which applies them together as Java applies its one
/// `Delete`.
pub(crate) fn delete_as_row_mutations(delete: &Delete, tdeletes: Vec<TDelete>) -> TRowMutations {
    TRowMutations::new(delete.row.to_vec(), tdeletes.into_iter().map(TMutation::DeleteSingle).collect())
}

/// The `TIncrement` of an increment.
pub(crate) fn increment(increment: &Increment) -> Result<TIncrement> {
    increment.validate()?;
    let columns = increment.columns.iter().map(|(f, q, amount)| TColumnIncrement::new(f.to_vec(), q.to_vec(), *amount));
    Ok(TIncrement::new(increment.row.to_vec(), columns.collect(), None, durability(increment.durability), None, true))
}

/// The `TAppend` of an append.
pub(crate) fn append(append: &Append) -> Result<TAppend> {
    append.validate()?;
    let columns =
        append.columns.iter().map(|(f, q, v)| TColumnValue::new(f.to_vec(), q.to_vec(), v.to_vec(), None, None, None));
    Ok(TAppend::new(append.row.to_vec(), columns.collect(), None, durability(append.durability), None, true))
}

/// The Thrift2 form of a comparison (check-and-mutate shares the filters' operators).
pub(crate) fn compare_op(op: CompareOp) -> TCompareOp {
    match op {
        CompareOp::Less => TCompareOp::LESS,
        CompareOp::LessOrEqual => TCompareOp::LESS_OR_EQUAL,
        CompareOp::Equal => TCompareOp::EQUAL,
        CompareOp::NotEqual => TCompareOp::NOT_EQUAL,
        CompareOp::GreaterOrEqual => TCompareOp::GREATER_OR_EQUAL,
        CompareOp::Greater => TCompareOp::GREATER,
    }
}

/// The WAL setting as Thrift2's (none: the table's).
fn durability(durability: Durability) -> Option<TDurability> {
    match durability {
        Durability::UseDefault => None,
        Durability::SkipWal => Some(TDurability::SKIP_WAL),
        Durability::AsyncWal => Some(TDurability::ASYNC_WAL),
        Durability::SyncWal => Some(TDurability::SYNC_WAL),
        Durability::FsyncWal => Some(TDurability::FSYNC_WAL),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::FamilyWindow;

    #[test]
    fn delete_intents_map_to_delete_types() {
        let whole = delete(&Delete::row("r")).unwrap();
        assert_eq!(whole.len(), 1);
        assert!(whole[0].columns.is_none());
        let mixed = delete(&Delete::row("r").latest_version("d", "a").all_versions("d", "b").family("m")).unwrap();
        let kinds: Vec<_> = mixed.iter().map(|d| d.delete_type).collect();
        assert_eq!(
            kinds,
            vec![Some(TDeleteType::DELETE_COLUMN), Some(TDeleteType::DELETE_COLUMNS), Some(TDeleteType::DELETE_FAMILY)]
        );
        assert!(delete(&Delete::row("")).is_err());
        assert!(delete(&Delete::row("r").family("")).is_err());
    }

    #[test]
    fn repeated_family_deletes_merge_into_their_union() {
        let family_ts = |d: &Delete| -> Vec<(Vec<u8>, Option<i64>)> {
            let t = delete(d).unwrap();
            assert_eq!(t.len(), 1);
            t[0].columns.clone().unwrap().into_iter().map(|c| (c.family, c.timestamp)).collect()
        };
        assert_eq!(family_ts(&Delete::row("r").family("a").family_until("a", 100)), vec![(b"a".to_vec(), None)]);
        assert_eq!(family_ts(&Delete::row("r").family_until("a", 100).family("a")), vec![(b"a".to_vec(), None)]);
        assert_eq!(
            family_ts(&Delete::row("r").family_until("a", 60).family_until("b", 1).family_until("a", 20)),
            vec![(b"a".to_vec(), Some(60)), (b"b".to_vec(), Some(1))]
        );
        let version = delete(&Delete::row("r").family_version("a", 7)).unwrap();
        assert_eq!(version[0].delete_type, Some(TDeleteType::DELETE_FAMILY_VERSION));
        assert_eq!(version[0].columns.as_ref().unwrap()[0].timestamp, Some(7));
        assert!(delete(&Delete::row("r").family_version("a", -1)).is_err());
    }

    #[test]
    fn a_tdelete_carries_a_columns_repeats_and_a_family_delete_drops_earlier_parts() {
        /// A `TDelete` column with its delete type.
        type Named = (Option<TDeleteType>, Vec<u8>, Option<Vec<u8>>, Option<i64>);
        let columns = |d: &Delete| -> Vec<Named> {
            delete(d)
                .unwrap()
                .into_iter()
                .flat_map(|t| {
                    let kind = t.delete_type;
                    t.columns.unwrap().into_iter().map(move |c| (kind, c.family, c.qualifier, c.timestamp))
                })
                .collect()
        };
        let twice = Delete::row("r").latest_version("a", "x").latest_version("a", "x");
        let one = (Some(TDeleteType::DELETE_COLUMN), b"a".to_vec(), Some(b"x".to_vec()), None);
        assert_eq!(columns(&twice), vec![one.clone(), one]);
        let cleared = Delete::row("r").latest_version("a", "x").all_versions("b", "y").family_until("a", 9);
        assert_eq!(
            columns(&cleared),
            vec![
                (Some(TDeleteType::DELETE_FAMILY), b"a".to_vec(), None, Some(9)),
                (Some(TDeleteType::DELETE_COLUMNS), b"b".to_vec(), Some(b"y".to_vec()), None),
            ]
        );
    }

    #[test]
    fn what_thrift2_cannot_carry_is_refused_naming_native_rpc() {
        use crate::filter::{CompareOp, Filter};
        let untranslatable = |e: InvalidInput| match e {
            InvalidInput::Untranslatable { what, why } => {
                assert!(why.contains("native RPC"), "{what}: {why}");
                what
            }
            other => panic!("expected Untranslatable, got {other:?}"),
        };
        let counting = RowMutations::new("r")
            .put(Put::new("r").cell("d", "q", "v"))
            .increment(Increment::new("r").add("d", "n", 1));
        match row_mutations(&counting, 10) {
            Err(crate::Error::InvalidInput(e)) => assert!(untranslatable(e).contains("increment or append")),
            other => panic!("expected a refusal, got {other:?}"),
        }
        let appending = RowMutations::new("r").append(Append::new("r").add("d", "q", "x"));
        assert!(row_mutations(&appending, 10).is_err());
        // Puts and deletes in order still go as one TRowMutations.
        let plain = RowMutations::new("r").delete(Delete::row("r").family("d")).put(Put::new("r").cell("d", "q", "v"));
        let tmut = row_mutations(&plain, 10).unwrap();
        assert!(matches!(tmut.mutations[..], [TMutation::DeleteSingle(_), TMutation::Put(_)]));
        let put = Put::new("r").cell("d", "q", "v");
        let filtered = CheckAndMutate::new(put.clone()).if_filter(Filter::key_only()).time_range(1, 2);
        assert!(untranslatable(check_and_mutate_refusal(&filtered)).contains("filter"));
        let ranged = CheckAndMutate::new(put).if_column("d", "q", CompareOp::Equal, None).time_range(1, 2);
        assert!(untranslatable(check_and_mutate_refusal(&ranged)).contains("time range"));
        let counted =
            CheckAndMutate::new(Increment::new("r").add("d", "n", 1)).if_column("d", "q", CompareOp::Equal, None);
        assert!(untranslatable(check_and_mutate_refusal(&counted)).contains("increment or append"));
    }

    #[test]
    fn tget_columns_are_javas_family_map_of_the_calls() {
        let tget = get(&Get::new("r").column("a", "x").column("b", "y").family("a")).unwrap();
        let names: Vec<(Vec<u8>, Option<Vec<u8>>)> =
            tget.columns.unwrap().into_iter().map(|c| (c.family, c.qualifier)).collect();
        assert_eq!(names, vec![(b"a".to_vec(), None), (b"b".to_vec(), Some(b"y".to_vec()))]);
    }

    #[test]
    fn puts_are_validated() {
        assert!(put(&Put::new("r"), 10).is_err(), "no cells");
        assert!(put(&Put::new("r").cell("d", "q", vec![0u8; 11]), 10).is_err(), "value too large");
        assert!(put(&Put::new("r").cell("", "q", "v"), 10).is_err(), "empty family");
        let encoded = put(&Put::new("r").cell("d", "", "v"), 10).unwrap();
        assert_eq!(encoded.column_values[0].qualifier, b"");
    }

    #[test]
    fn consistency_and_replica_reach_tget_and_tscan_and_bad_ids_are_refused() {
        let plain = get(&Get::new("r")).unwrap();
        assert_eq!((plain.consistency, plain.target_replica_id), (None, None));
        let timeline = get(&Get::new("r").consistency(Consistency::Timeline)).unwrap();
        assert_eq!((timeline.consistency, timeline.target_replica_id), (Some(TConsistency::TIMELINE), None));
        let replica = get(&Get::new("r").consistency(Consistency::Timeline).replica_id(1)).unwrap();
        assert_eq!((replica.consistency, replica.target_replica_id), (Some(TConsistency::TIMELINE), Some(1)));
        assert_eq!(get(&Get::new("r").replica_id(0)).unwrap().target_replica_id, Some(0));
        for bad in [Get::new("r").replica_id(-1), Get::new("r").consistency(Consistency::Timeline).replica_id(65_536)] {
            assert!(matches!(get(&bad), Err(crate::Error::InvalidInput(InvalidInput::Option(_)))), "{bad:?}");
        }
        // A secondary replica under strong consistency would be ignored by HBase: refused.
        assert!(get(&Get::new("r").replica_id(1)).is_err());
        let read = ReadOptions::new().consistency(Consistency::Timeline).replica_id(2);
        let request = ScanRequest {
            start: Bytes::new(),
            stop: Bytes::new(),
            reversed: false,
            read,
            filter: None,
            limit: None,
            on_demand: None,
            fetch_ahead: false,
            extras: crate::request::ScanExtras::default(),
        };
        let tscan = scan(&request).unwrap();
        assert_eq!((tscan.consistency, tscan.target_replica_id), (Some(TConsistency::TIMELINE), Some(2)));
        let bad = ScanRequest { read: ReadOptions::new().replica_id(-3), ..request };
        assert!(scan(&bad).is_err());
    }

    #[test]
    fn raw_scans_travel_as_the_raw_attribute_and_windows_reach_tget_only() {
        let plain = ScanRequest {
            start: Bytes::new(),
            stop: Bytes::new(),
            reversed: false,
            read: ReadOptions::new(),
            filter: None,
            limit: None,
            on_demand: None,
            fetch_ahead: false,
            extras: ScanExtras::default(),
        };
        assert_eq!(scan(&plain).unwrap().attributes, None);
        let raw = ScanRequest { extras: ScanExtras { raw: true, ..ScanExtras::default() }, ..plain.clone() };
        let attributes = scan(&raw).unwrap().attributes.unwrap();
        assert_eq!(attributes.get(&b"_raw_"[..]), Some(&vec![0xff]));
        // What TScan cannot carry is refused by name, pointing at native RPC.
        let refusals = [
            ScanExtras { window: FamilyWindow { limit: Some(2), offset: None }, ..ScanExtras::default() },
            ScanExtras { window: FamilyWindow { limit: None, offset: Some(1) }, ..ScanExtras::default() },
            ScanExtras { allow_partial: true, ..ScanExtras::default() },
            ScanExtras { max_result_size: Some(100), ..ScanExtras::default() },
        ];
        for extras in refusals {
            let request = ScanRequest { extras, ..plain.clone() };
            match scan(&request) {
                Err(crate::Error::InvalidInput(InvalidInput::Untranslatable { why, .. })) => {
                    assert!(why.contains("native RPC"), "{why}")
                }
                other => panic!("{extras:?}: {other:?}"),
            }
        }
        // An offset of 0 is no window at all.
        let zero = ScanExtras { window: FamilyWindow { limit: None, offset: Some(0) }, ..ScanExtras::default() };
        assert!(scan(&ScanRequest { extras: zero, ..plain }).is_ok());
        let tget = get(&Get::new("r").max_results_per_family(2).row_offset_per_family(1)).unwrap();
        assert_eq!((tget.store_limit, tget.store_offset), (Some(2), Some(1)));
        let tget = get(&Get::new("r").row_offset_per_family(0)).unwrap();
        assert_eq!((tget.store_limit, tget.store_offset), (None, None));
    }

    #[test]
    fn a_get_at_a_timestamp_or_in_a_range_but_not_both() {
        assert_eq!(get(&Get::new("r").timestamp(5)).unwrap().timestamp, Some(5));
        let ranged = get(&Get::new("r").time_range(1, 9)).unwrap();
        assert_eq!(ranged.time_range.map(|r| (r.min_stamp, r.max_stamp)), Some((1, 9)));
        assert!(get(&Get::new("r").timestamp(5).time_range(1, 9)).is_err());
        assert!(get(&Get::new("r").time_range(9, 1)).is_err(), "reversed range");
    }
}
