//! The crate's requests as `basalt-rpc`'s: gets, puts, deletes, row mutations,
//! conditions and scans.

use basalt_rpc::{pb, Check, ScanSpec};
use bytes::Bytes;

use super::write::durability;
use crate::batch_action::BatchAction;
use crate::conditional::{CheckAndMutate, CheckTest, CheckedAction};
use crate::error::{Error, InvalidInput};
use crate::filter::Filter;
use crate::ops::{Append, Delete, DeleteSpec, Get, Increment, Put, RowMutation, RowMutations};
use crate::options::{Consistency, ReadOptions};
use crate::request::ColumnSelection;
use crate::transport::filter_protobuf::{self, compare_type};
use crate::transport::{Condition, OperationNonce, ScanRequest};

/// A timestamp as HBase's protobuf carries it (non-negative).
fn timestamp(ts: i64) -> Result<u64, InvalidInput> {
    u64::try_from(ts).map_err(|_| InvalidInput::Option(format!("a negative timestamp {ts}")))
}

fn filter_proto(filter: Option<&Filter>) -> Result<Option<pb::Filter>, Error> {
    let Some(filter) = filter else { return Ok(None) };
    let proto = filter_protobuf::message(filter).map_err(|e| InvalidInput::Option(format!("filter: {e}")))?;
    Ok(Some(proto))
}

/// The read options shared by gets and scans, applied through `$apply` (a builder of
/// either type).
macro_rules! apply_read {
    ($target:expr, $read:expr, $filter:expr) => {{
        let read: &ReadOptions = $read;
        let mut target = $target;
        // Java's family map of the calls (a later family widens, a later column
        // narrows), flattened: basalt-rpc sends it as it is.
        for (family, qualifier) in ColumnSelection::of(&read.columns).columns() {
            target = match qualifier {
                None => target.family(family.clone()),
                Some(qualifier) => target.column(family.clone(), qualifier.clone()),
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
    if let Some(limit) = get.window.limit {
        native = native.max_results_per_family(limit);
    }
    if let Some(offset) = get.window.offset {
        native = native.row_offset_per_family(offset);
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

/// A delete as its one native mutation (in a vector: check-and-mutate and row mutations
/// take mutations): the whole row, or its cells in Java's order after Java's clear rules
/// ([`Delete::cells`]). One mutation, as Java's client sends it: the server counts a
/// column's repeated latest-version deletes only within one mutation.
pub(super) fn native_delete(delete: &Delete) -> Result<Vec<basalt_rpc::Mutation>, Error> {
    crate::validate::row_key(&delete.row)?;
    let mut mutation = basalt_rpc::Mutation::delete(delete.row.clone()).durability(durability(&delete.durability));
    if let Some(ts) = delete.row_timestamp {
        mutation = mutation.at(timestamp(ts)?);
    }
    for cell in delete.cells() {
        mutation = match cell {
            DeleteSpec::ColumnVersion(family, qualifier, None) => mutation.delete_latest_version(family, qualifier),
            DeleteSpec::ColumnVersion(family, qualifier, Some(ts)) => {
                mutation.delete_version(family, qualifier, timestamp(ts)?)
            }
            DeleteSpec::ColumnAllVersions(family, qualifier, None) => mutation.column(family, qualifier, Bytes::new()),
            DeleteSpec::ColumnAllVersions(family, qualifier, Some(ts)) => {
                mutation.column_at(family, qualifier, Bytes::new(), timestamp(ts)?)
            }
            DeleteSpec::Family(family, None) => mutation.family(family),
            DeleteSpec::Family(family, Some(ts)) => mutation.family_at(family, timestamp(ts)?),
            DeleteSpec::FamilyVersion(family, ts) => mutation.family_version(family, timestamp(ts)?),
        };
    }
    Ok(vec![mutation])
}

/// Row mutations as native mutations, in order. Increments and appends carry `nonce`
/// (one for the whole operation, as Java sends row mutations); without one (the plain
/// `mutate_row` path) they are refused.
pub(super) fn native_row_mutations(
    mutations: &RowMutations,
    max_value: usize,
) -> Result<Vec<basalt_rpc::Mutation>, Error> {
    native_row_mutations_with(mutations, max_value, None)
}

/// [`native_row_mutations`] with the operation's nonce for its increments and appends.
pub(super) fn native_row_mutations_with(
    mutations: &RowMutations,
    max_value: usize,
    nonce: Option<OperationNonce>,
) -> Result<Vec<basalt_rpc::Mutation>, Error> {
    mutations.validate(max_value)?;
    let mut native = Vec::with_capacity(mutations.mutations.len());
    for mutation in &mutations.mutations {
        match (mutation, nonce) {
            (RowMutation::Put(put), _) => native.push(native_put(put, max_value)?),
            (RowMutation::Delete(delete), _) => native.extend(native_delete(delete)?),
            (RowMutation::Increment(increment), Some(nonce)) => native.push(native_increment(increment, nonce)?),
            (RowMutation::Append(append), Some(nonce)) => native.push(native_append(append, nonce)?),
            (RowMutation::Increment(_) | RowMutation::Append(_), None) => {
                return Err(InvalidInput::Option("an increment or append in row mutations needs a nonce".into()).into())
            }
        }
    }
    Ok(native)
}

/// An increment as its native mutation, carrying the operation's nonce.
pub(super) fn native_increment(increment: &Increment, nonce: OperationNonce) -> Result<basalt_rpc::Mutation, Error> {
    increment.validate()?;
    let mut native = basalt_rpc::Mutation::increment(increment.row.clone())
        .durability(durability(&increment.durability))
        .with_nonce(nonce.get());
    for (family, qualifier, amount) in &increment.columns {
        native = native.add(family.clone(), qualifier.clone(), *amount);
    }
    Ok(native)
}

/// An append as its native mutation, carrying the operation's nonce.
pub(super) fn native_append(append: &Append, nonce: OperationNonce) -> Result<basalt_rpc::Mutation, Error> {
    append.validate()?;
    let mut native = basalt_rpc::Mutation::append(append.row.clone())
        .durability(durability(&append.durability))
        .with_nonce(nonce.get());
    for (family, qualifier, value) in &append.columns {
        native = native.column(family.clone(), qualifier.clone(), value.clone());
    }
    Ok(native)
}

pub(super) fn native_check(condition: &Condition) -> Check {
    let compare = compare_type(condition.op);
    Check {
        row: condition.row.clone(),
        family: condition.family.clone(),
        qualifier: condition.qualifier.clone(),
        expected: condition.value.clone(),
        compare,
    }
}

/// A [`CheckAndMutate`]'s condition as the native one: a column against a value, or a
/// filter, optionally within a time range.
pub(super) fn native_condition(request: &CheckAndMutate) -> Result<basalt_rpc::Condition, Error> {
    let row = request.row().clone();
    let condition = match &request.test {
        Some(CheckTest::Column { family, qualifier, op, value }) => basalt_rpc::Condition::column(Check {
            row,
            family: family.clone(),
            qualifier: qualifier.clone(),
            expected: value.clone(),
            compare: compare_type(*op),
        }),
        Some(CheckTest::Filter(filter)) => match filter_proto(Some(filter))? {
            Some(proto) => basalt_rpc::Condition::filter(row, proto),
            None => return Err(InvalidInput::Option("a check-and-mutate filter rendered to nothing".into()).into()),
        },
        None => return Err(InvalidInput::Option("a check-and-mutate needs a condition".into()).into()),
    };
    Ok(match request.time_range {
        Some((min, max)) => {
            let (min, max) = crate::options::checked_range(min, max)?;
            condition.time_range(timestamp(min)?, timestamp(max)?)
        }
        None => condition,
    })
}

/// A single checked action (not row mutations) as its native mutation.
pub(super) fn native_checked(
    action: &CheckedAction,
    max_value: usize,
    nonce: OperationNonce,
) -> Result<basalt_rpc::Mutation, Error> {
    let one = |mutations: Vec<basalt_rpc::Mutation>| {
        mutations.into_iter().next().ok_or_else(|| Error::from(InvalidInput::Option("an empty mutation".into())))
    };
    match action {
        CheckedAction::Put(put) => native_put(put, max_value),
        CheckedAction::Delete(delete) => one(native_delete(delete)?),
        CheckedAction::Increment(increment) => native_increment(increment, nonce),
        CheckedAction::Append(append) => native_append(append, nonce),
        CheckedAction::Mutations(mutations) => one(native_row_mutations_with(mutations, max_value, Some(nonce))?),
    }
}

/// One action of a mixed batch as `basalt-rpc`'s (increments and appends with their
/// nonce, drawn here if the core gave none).
pub(super) fn native_action(
    action: &BatchAction,
    nonce: Option<OperationNonce>,
    max_value: usize,
) -> Result<basalt_rpc::BatchAction, Error> {
    let nonce = || nonce.unwrap_or_else(OperationNonce::next);
    Ok(match action {
        BatchAction::Get(get) => basalt_rpc::BatchAction::Get(native_get(get)?),
        BatchAction::Put(put) => basalt_rpc::BatchAction::Mutate(native_put(put, max_value)?),
        BatchAction::Delete(delete) => match native_delete(delete)?.into_iter().next() {
            Some(mutation) => basalt_rpc::BatchAction::Mutate(mutation),
            None => return Err(InvalidInput::Option("an empty delete".into()).into()),
        },
        BatchAction::Increment(increment) => basalt_rpc::BatchAction::Mutate(native_increment(increment, nonce())?),
        BatchAction::Append(append) => basalt_rpc::BatchAction::Mutate(native_append(append, nonce())?),
    })
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
    // 0 is Java's "end after the first reply" (`ScanSpec::limit`); below 0 no limit.
    if let Some(limit) = scan.limit.and_then(|l| u64::try_from(l).ok()) {
        spec = spec.limit(limit);
    }
    if let Some(on_demand) = scan.on_demand {
        spec = spec.load_column_families_on_demand(on_demand);
    }
    let extras = &scan.extras;
    spec = spec.raw(extras.raw).allow_partial_results(extras.allow_partial).fetch_ahead(scan.fetch_ahead);
    if let Some(limit) = extras.window.limit {
        spec = spec.max_results_per_family(limit);
    }
    if let Some(offset) = extras.window.offset {
        spec = spec.row_offset_per_family(offset);
    }
    // The scan's own size, else where the answer depends on where replies end, the
    // Java client's default.
    match (extras.max_result_size, reply_bounded(scan)) {
        (Some(bytes), _) => spec = spec.max_result_size(bytes),
        (None, true) => spec = spec.max_result_size(JAVA_MAX_RESULT_SIZE),
        (None, false) => {}
    }
    Ok(spec.rows_per_page(rows.max(1)))
}

/// The Java client's default `hbase.client.scanner.caching`: results asked per call.
pub(super) const JAVA_CACHING: u32 = i32::MAX as u32;
/// The Java client's default `hbase.client.scanner.max.result.size` (2 MiB): bytes a
/// call returns at most.
pub(super) const JAVA_MAX_RESULT_SIZE: u64 = 2 * 1024 * 1024;

/// Whether a scan's answer depends on where replies end, so that they must end where
/// Java's do (its result size): a limit with `batch` (the Java client takes each reply's
/// count of complete rows off it, see `basalt-rpc`'s batched limit), a limit of 0
/// (Java's scanner ends after its first reply), and partial results allowed (the
/// server cuts rows by each reply's size).
fn reply_bounded(scan: &ScanRequest) -> bool {
    let batched_limit = scan.read.batch.is_some_and(|b| b > 0) && scan.limit.is_some_and(|l| l > 0);
    // Partial results: where a reply ends (by Java's row count or by size) decides
    // where the server cuts the rows after it.
    batched_limit || scan.limit == Some(0) || scan.extras.allow_partial
}

/// Whether a scan's calls ask as many results as the Java client's default caching: a
/// reply-bounded scan ([`reply_bounded`]) without `caching`.
pub(super) fn java_reply_sizes(scan: &ScanRequest) -> bool {
    reply_bounded(scan) && scan.read.caching.filter(|c| *c > 0).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::{CompareOp, Filter};
    use crate::request::{FamilyWindow, ScanExtras};

    fn request(extras: ScanExtras) -> ScanRequest {
        ScanRequest {
            start: Bytes::from_static(b"a"),
            stop: Bytes::new(),
            reversed: false,
            read: ReadOptions::new(),
            filter: None,
            limit: None,
            on_demand: None,
            fetch_ahead: true,
            extras,
        }
    }

    fn expected() -> ScanSpec {
        ScanSpec::new().start("a").stop(Bytes::new()).reversed(false).reopen_after_expiry(false).rows_per_page(10)
    }

    #[test]
    fn scan_extras_reach_the_native_scan() {
        assert_eq!(scan_spec(&request(ScanExtras::default()), 10).unwrap(), expected().raw(false));
        let extras = ScanExtras {
            raw: true,
            window: FamilyWindow { limit: Some(2), offset: Some(1) },
            allow_partial: false,
            max_result_size: Some(300),
        };
        let want = expected().raw(true).max_results_per_family(2).row_offset_per_family(1).max_result_size(300);
        assert_eq!(scan_spec(&request(extras), 10).unwrap(), want);
        // Partial results: replies sized as Java's (its result size, unless the scan's).
        let partial = ScanExtras { allow_partial: true, ..ScanExtras::default() };
        let want = expected().allow_partial_results(true).max_result_size(JAVA_MAX_RESULT_SIZE);
        assert_eq!(scan_spec(&request(partial), 10).unwrap(), want);
        assert!(java_reply_sizes(&request(partial)));
    }

    #[test]
    fn a_gets_window_reaches_the_native_get() {
        let get = Get::new("r").max_results_per_family(3).row_offset_per_family(2);
        let want = basalt_rpc::Get::new("r").max_results_per_family(3).row_offset_per_family(2);
        assert_eq!(native_get(&get).unwrap(), want);
    }

    fn nonce() -> OperationNonce {
        OperationNonce::next()
    }

    #[test]
    fn row_mutations_keep_their_order_and_give_increments_and_appends_the_one_nonce() {
        let n = nonce();
        let rm = RowMutations::new("r")
            .increment(Increment::new("r").add("d", "n", 2))
            .put(Put::new("r").cell("d", "q", "v"))
            .append(Append::new("r").add("d", "s", "x"))
            .delete(Delete::row("r").all_versions("d", "q"));
        let native = native_row_mutations_with(&rm, 100, Some(n)).unwrap();
        let expected = vec![
            basalt_rpc::Mutation::increment("r")
                .durability(basalt_rpc::Durability::UseDefault)
                .with_nonce(n.get())
                .add("d", "n", 2),
            basalt_rpc::Mutation::put("r").durability(basalt_rpc::Durability::UseDefault).column("d", "q", "v"),
            basalt_rpc::Mutation::append("r")
                .durability(basalt_rpc::Durability::UseDefault)
                .with_nonce(n.get())
                .column("d", "s", "x"),
            basalt_rpc::Mutation::delete("r").durability(basalt_rpc::Durability::UseDefault).column("d", "q", ""),
        ];
        assert_eq!(native, expected);
        // Without the operation's nonce (the plain path), increments are refused.
        assert!(native_row_mutations(&rm, 100).is_err());
        let plain = RowMutations::new("r").put(Put::new("r").cell("d", "q", "v"));
        assert_eq!(native_row_mutations(&plain, 100).unwrap().len(), 1);
        // A part of another row, or nothing at all: refused.
        assert!(native_row_mutations_with(&RowMutations::new("r"), 100, Some(n)).is_err());
        let other = RowMutations::new("r").increment(Increment::new("s").add("d", "n", 1));
        assert!(native_row_mutations_with(&other, 100, Some(n)).is_err());
    }

    #[test]
    fn conditions_carry_a_column_or_a_filter_and_a_time_range() {
        let put = Put::new("r").cell("d", "q", "v");
        let column = CheckAndMutate::new(put.clone()).if_column("d", "q", CompareOp::Less, Some(Bytes::from("5")));
        let expected = basalt_rpc::Condition::column(Check {
            row: Bytes::from("r"),
            family: Bytes::from("d"),
            qualifier: Bytes::from("q"),
            expected: Some(Bytes::from("5")),
            compare: basalt_rpc::pb::CompareType::Less,
        });
        assert_eq!(native_condition(&column).unwrap(), expected);
        assert_eq!(native_condition(&column.clone().time_range(3, 9)).unwrap(), expected.time_range(3, 9));
        let filter = Filter::key_only();
        let filtered = CheckAndMutate::new(put.clone()).if_filter(filter.clone());
        let proto = filter_proto(Some(&filter)).unwrap().unwrap();
        assert_eq!(native_condition(&filtered).unwrap(), basalt_rpc::Condition::filter("r", proto));
        // No condition, a reversed range: refused before sending.
        assert!(native_condition(&CheckAndMutate::new(put.clone())).is_err());
        assert!(native_condition(&filtered.time_range(9, 3)).is_err());
    }

    #[test]
    fn checked_and_batched_actions_become_one_native_mutation_each() {
        let n = nonce();
        let increment = Increment::new("r").add("d", "n", -1);
        let native = native_checked(&CheckedAction::Increment(increment.clone()), 100, n).unwrap();
        assert_eq!(native, native_increment(&increment, n).unwrap());
        let delete = Delete::row("r").latest_version("d", "q").family("e");
        let native = native_checked(&CheckedAction::Delete(delete.clone()), 100, n).unwrap();
        assert_eq!(vec![native], native_delete(&delete).unwrap(), "a delete of several kinds is one mutation");
        let get = Get::new("r").column("d", "q");
        match native_action(&get.clone().into(), None, 100).unwrap() {
            basalt_rpc::BatchAction::Get(native) => assert_eq!(native, native_get(&get).unwrap()),
            other => panic!("expected a get, got {other:?}"),
        }
        let append = Append::new("r").add("d", "q", "x");
        match native_action(&BatchAction::Append(append.clone()), Some(n), 100).unwrap() {
            basalt_rpc::BatchAction::Mutate(native) => assert_eq!(native, native_append(&append, n).unwrap()),
            other => panic!("expected a mutation, got {other:?}"),
        }
        assert!(native_action(&BatchAction::Put(Put::new("r")), None, 100).is_err(), "a put without cells");
    }
}
