//! The crate's requests as `basalt-rpc`'s: gets, puts, deletes, row mutations,
//! conditions and scans.

use basalt_rpc::{pb, Check, ScanSpec};
use bytes::Bytes;

use super::write::durability;
use crate::error::{Error, InvalidInput};
use crate::filter::{CompareOp, Filter};
use crate::ops::{Delete, DeleteSpec, Get, Put, RowMutations};
use crate::options::{ColumnSpec, Consistency, ReadOptions};
use crate::transport::{Condition, ScanRequest};

/// A timestamp as HBase's protobuf carries it (non-negative).
fn timestamp(ts: i64) -> Result<u64, InvalidInput> {
    u64::try_from(ts).map_err(|_| InvalidInput::Option(format!("a negative timestamp {ts}")))
}

fn filter_proto(filter: Option<&Filter>) -> Result<Option<pb::Filter>, Error> {
    let Some(filter) = filter else { return Ok(None) };
    let bytes = filter.to_protobuf().map_err(|e| InvalidInput::Option(format!("filter: {e}")))?;
    let proto = <pb::Filter as prost::Message>::decode(bytes.as_ref())
        .map_err(|e| InvalidInput::Option(format!("filter: {e}")))?;
    Ok(Some(proto))
}

/// The read options shared by gets and scans, applied through `$apply` (a builder of
/// either type).
macro_rules! apply_read {
    ($target:expr, $read:expr, $filter:expr) => {{
        let read: &ReadOptions = $read;
        let mut target = $target;
        for column in &read.columns {
            target = match column {
                ColumnSpec::Family(family) => target.family(family.clone()),
                ColumnSpec::Column(family, qualifier) => target.column(family.clone(), qualifier.clone()),
            };
        }
        if let Some(versions) = read.max_versions {
            target = target.max_versions(u32::try_from(versions.max(1)).unwrap_or(1));
        }
        if let Some((min, max)) = read.time_range {
            target = target.time_range(timestamp(min)?, timestamp(max)?);
        }
        if let Some(ts) = read.timestamp {
            target = target.timestamp(timestamp(ts)?);
        }
        for (family, min, max) in &read.family_time_ranges {
            target = target.family_time_range(family.clone(), timestamp(*min)?, timestamp(*max)?);
        }
        if let Some(cache) = read.cache_blocks {
            target = target.cache_blocks(cache);
        }
        if let Some(filter) = filter_proto($filter)? {
            target = target.filter(filter);
        }
        match read.consistency {
            Consistency::Strong => {}
            Consistency::Timeline => target = target.consistency(pb::Consistency::Timeline),
        }
        if let Some(id) = read.target_replica()? {
            target = target.replica_id(id);
        }
        target
    }};
}

pub(super) fn native_get(get: &Get) -> Result<basalt_rpc::Get, Error> {
    crate::validate::row_key(&get.row)?;
    get.read.validate()?;
    let mut native = apply_read!(basalt_rpc::Get::new(get.row.clone()), &get.read, get.read.filter.as_ref());
    if let Some(ts) = get.timestamp {
        native = native.timestamp(timestamp(ts)?);
    }
    Ok(native)
}

pub(super) fn native_put(put: &Put, max_value: usize) -> Result<basalt_rpc::Mutation, Error> {
    put.validate(max_value)?;
    let mut mutation = basalt_rpc::Mutation::put(put.row.clone()).durability(durability(&put.durability));
    if let Some(ts) = put.timestamp {
        mutation = mutation.at(timestamp(ts)?);
    }
    for (family, qualifier, value, ts) in &put.cells {
        mutation = match ts {
            Some(ts) => mutation.column_at(family.clone(), qualifier.clone(), value.clone(), timestamp(*ts)?),
            None => mutation.column(family.clone(), qualifier.clone(), value.clone()),
        };
    }
    Ok(mutation)
}

/// A delete as native mutations: one per column or family it names (HBase's server
/// keeps only the last family delete of one mutation's family, so several would not
/// apply their union), or one for the whole row.
pub(super) fn native_delete(delete: &Delete) -> Result<Vec<basalt_rpc::Mutation>, Error> {
    crate::validate::row_key(&delete.row)?;
    let mut base = basalt_rpc::Mutation::delete(delete.row.clone()).durability(durability(&delete.durability));
    if let Some(ts) = delete.row_timestamp {
        base = base.at(timestamp(ts)?);
    }
    if delete.specs.is_empty() {
        return Ok(vec![base]);
    }
    let mut mutations = Vec::with_capacity(delete.specs.len());
    for spec in &delete.specs {
        let mutation = base.clone();
        mutations.push(match spec {
            DeleteSpec::ColumnVersion(family, qualifier, None) => {
                mutation.delete_latest_version(family.clone(), qualifier.clone())
            }
            DeleteSpec::ColumnVersion(family, qualifier, Some(ts)) => {
                mutation.delete_version(family.clone(), qualifier.clone(), timestamp(*ts)?)
            }
            DeleteSpec::ColumnAllVersions(family, qualifier, None) => {
                mutation.column(family.clone(), qualifier.clone(), Bytes::new())
            }
            DeleteSpec::ColumnAllVersions(family, qualifier, Some(ts)) => {
                mutation.column_at(family.clone(), qualifier.clone(), Bytes::new(), timestamp(*ts)?)
            }
            DeleteSpec::Family(family, None) => mutation.family(family.clone()),
            DeleteSpec::Family(family, Some(ts)) => mutation.family_at(family.clone(), timestamp(*ts)?),
            DeleteSpec::FamilyVersion(family, ts) => mutation.family_version(family.clone(), timestamp(*ts)?),
        });
    }
    Ok(mutations)
}

pub(super) fn native_row_mutations(
    mutations: &RowMutations,
    max_value: usize,
) -> Result<Vec<basalt_rpc::Mutation>, Error> {
    crate::validate::row_key(&mutations.row)?;
    let mut native = Vec::with_capacity(mutations.puts.len() + mutations.deletes.len());
    for put in &mutations.puts {
        if put.row != mutations.row {
            return Err(InvalidInput::Option("a row mutation's put targets another row".into()).into());
        }
        native.push(native_put(put, max_value)?);
    }
    for delete in &mutations.deletes {
        if delete.row != mutations.row {
            return Err(InvalidInput::Option("a row mutation's delete targets another row".into()).into());
        }
        native.extend(native_delete(delete)?);
    }
    if native.is_empty() {
        return Err(InvalidInput::Option("row mutations need at least one put or delete".into()).into());
    }
    Ok(native)
}

pub(super) fn native_check(condition: &Condition) -> Check {
    let compare = match condition.op {
        CompareOp::Less => pb::CompareType::Less,
        CompareOp::LessOrEqual => pb::CompareType::LessOrEqual,
        CompareOp::Equal => pb::CompareType::Equal,
        CompareOp::NotEqual => pb::CompareType::NotEqual,
        CompareOp::GreaterOrEqual => pb::CompareType::GreaterOrEqual,
        CompareOp::Greater => pb::CompareType::Greater,
    };
    Check {
        row: condition.row.clone(),
        family: condition.family.clone(),
        qualifier: condition.qualifier.clone(),
        expected: condition.value.clone(),
        compare,
    }
}

pub(super) fn scan_spec(scan: &ScanRequest, rows: u32) -> Result<ScanSpec, Error> {
    scan.read.validate()?;
    // An expired lease (rare: leases are renewed in the background) surfaces as
    // `ScannerExpired`, so the core reopens the scan and counts the reopen as on the
    // gateway; moves, splits and lost connections are reopened below the seam.
    let mut spec = ScanSpec::new()
        .start(scan.start.clone())
        .stop(scan.stop.clone())
        .reversed(scan.reversed)
        .reopen_after_expiry(false);
    spec = apply_read!(spec, &scan.read, scan.filter.as_ref());
    spec = spec.rows_per_page(scan.read.caching.unwrap_or(rows).max(1));
    if let Some(batch) = scan.read.batch.filter(|b| *b > 0) {
        spec = spec.batch(u32::try_from(batch).unwrap_or(u32::MAX));
    }
    if let Some(limit) = scan.limit.filter(|l| *l > 0) {
        spec = spec.limit(u64::try_from(limit).unwrap_or(u64::MAX));
    }
    Ok(spec.rows_per_page(rows.max(1)))
}
