//! Mutations applied to one row atomically, optionally under a condition: one atomic
//! region action in a `Multi` call, as HBase's `RowMutations` and
//! `checkAndMutate(RowMutations)` send them; and single conditional mutations (a
//! `Mutate` with a condition), as `checkAndMutate` of one put, delete, increment or
//! append sends them. Since HBase 2.4 row mutations may hold increments and appends:
//! they share one nonce for the whole operation, and their results come back.

use basalt_rpc_protocol::cellblock::{decode_cell_block, encode_cell, CellCodec, CellParts, CellType};
use bytes::BytesMut;

use crate::batch::remote_error;
use crate::builder::RpcClient;
use crate::cells::{row_result, CellCursor, RowResult};
use crate::error::RpcError;
use crate::mutation::{Check, Mutation};
use crate::pb;
use crate::validate::validate_row;

/// What a check-and-mutate tests before mutating: a column against a value
/// ([`Check`]) or a filter over the row, optionally within a time range (HBase 2.4's
/// `CheckAndMutate.ifMatches(filter)` and `timeRange`).
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    row: bytes::Bytes,
    test: Test,
    time_range: Option<(u64, u64)>,
}

#[derive(Debug, Clone, PartialEq)]
enum Test {
    Column(Check),
    Filter(pb::Filter),
}

impl Condition {
    /// A column compared to a value (or absent), as [`Check`] says.
    pub fn column(check: Check) -> Condition {
        Condition { row: check.row.clone(), test: Test::Column(check), time_range: None }
    }

    /// Holds when `filter` lets any cell of `row` through.
    pub fn filter(row: impl Into<bytes::Bytes>, filter: pb::Filter) -> Condition {
        Condition { row: row.into(), test: Test::Filter(filter), time_range: None }
    }

    /// Only cells with `from <= timestamp < to` are tested.
    pub fn time_range(mut self, from: u64, to: u64) -> Condition {
        self.time_range = Some((from, to));
        self
    }

    /// The row tested (must be the mutations' row).
    pub fn row(&self) -> &bytes::Bytes {
        &self.row
    }

    /// The protobuf condition, as Java's `ProtobufUtil.toCondition` builds it.
    pub(crate) fn to_proto(&self) -> pb::Condition {
        let mut proto = match &self.test {
            Test::Column(check) => check.to_proto(),
            Test::Filter(filter) => {
                pb::Condition { row: self.row.clone(), filter: Some(filter.clone()), ..Default::default() }
            }
        };
        if let Some((from, to)) = self.time_range {
            proto.time_range = Some(pb::TimeRange { from: Some(from), to: Some(to) });
        }
        proto
    }
}

impl From<Check> for Condition {
    fn from(check: Check) -> Condition {
        Condition::column(check)
    }
}

/// Which mutations an atomic row action may hold.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Holds {
    /// Puts and deletes (before HBase 2.4).
    PutsAndDeletes,
    /// Increments and appends too, their results returned.
    AnyKind,
}

/// Applies puts and deletes of one row atomically, for [`RpcClient::mutate_row`].
pub(crate) async fn mutate_row(client: &RpcClient, table: &str, mutations: &[Mutation]) -> Result<(), RpcError> {
    let outcome = atomic_row(client, table, None, mutations, Holds::PutsAndDeletes).await;
    outcome.map(|_| ())
}

/// Applies puts and deletes of one row atomically if `check` holds, for
/// [`RpcClient::check_and_mutate_row`].
pub(crate) async fn check_and_mutate_row(
    client: &RpcClient,
    table: &str,
    check: &Check,
    mutations: &[Mutation],
) -> Result<bool, RpcError> {
    let condition = Condition::column(check.clone());
    let outcome = atomic_row(client, table, Some(&condition), mutations, Holds::PutsAndDeletes).await;
    outcome.map(|(applied, _)| applied)
}

/// Applies mutations of any kind of one row atomically, for [`RpcClient::mutate_row_results`].
pub(crate) async fn mutate_row_results(
    client: &RpcClient,
    table: &str,
    mutations: &[Mutation],
) -> Result<RowResult, RpcError> {
    atomic_row(client, table, None, mutations, Holds::AnyKind).await.map(|(_, result)| result)
}

/// Applies mutations of any kind of one row atomically if `condition` holds, for
/// [`RpcClient::check_and_mutate_rows`].
pub(crate) async fn check_and_mutate_rows(
    client: &RpcClient,
    table: &str,
    condition: &Condition,
    mutations: &[Mutation],
) -> Result<(bool, RowResult), RpcError> {
    atomic_row(client, table, Some(condition), mutations, Holds::AnyKind).await
}

/// Applies one mutation of any kind if `condition` holds, for
/// [`RpcClient::check_and_mutate_one`].
pub(crate) async fn check_and_mutate_one(
    client: &RpcClient,
    table: &str,
    condition: &Condition,
    mutation: &Mutation,
) -> Result<(bool, RowResult), RpcError> {
    validate_row(mutation.row())?;
    if condition.row() != mutation.row() {
        return Err(RpcError::InvalidArgument("check-and-mutate checks the mutation's own row".into()));
    }
    let nonce = mutation.needs_nonce().then(|| mutation.given_nonce().unwrap_or_else(|| client.new_nonce()));
    let proto = mutation.to_proto(nonce);
    let condition = condition.to_proto();
    client
        .with_region(table, mutation.row(), false, |region| {
            let request = pb::MutateRequest {
                region: region.specifier(),
                mutation: proto.clone(),
                condition: Some(condition.clone()),
                nonce_group: proto.nonce.map(|_| client.nonce_group()),
            };
            async move {
                let reply = client.call(&region.server, "Mutate", &request, None).await?;
                let response: pb::MutateResponse = reply.decode(&region.server)?;
                let mut reader = CellCursor::new(reply.cell_block.clone());
                let result = match &response.result {
                    Some(result) => any_result(&region.server, result, &mut reader)?,
                    None => RowResult::default(),
                };
                Ok((response.processed.unwrap_or(false), result))
            }
        })
        .await
}

/// One atomic region action of `mutations` (under `condition` when given): whether
/// it was applied, and the increments' and appends' results.
async fn atomic_row(
    client: &RpcClient,
    table: &str,
    condition: Option<&Condition>,
    mutations: &[Mutation],
    holds: Holds,
) -> Result<(bool, RowResult), RpcError> {
    let Some(first) = mutations.first() else {
        return Err(RpcError::InvalidArgument("row mutations need at least one mutation".into()));
    };
    let row = first.row().clone();
    validate_row(&row)?;
    let kinds_ok = |m: &Mutation| holds == Holds::AnyKind || m.is_put_or_delete();
    if mutations.iter().any(|m| m.row() != &row || !kinds_ok(m)) {
        return Err(RpcError::InvalidArgument("row mutations are puts and deletes of one row".into()));
    }
    if condition.is_some_and(|condition| condition.row() != &row) {
        return Err(RpcError::InvalidArgument("check-and-mutate checks the mutations' own row".into()));
    }
    // One nonce for every increment and append of the operation, as Java's
    // `RequestConverter` sends row mutations: a retry carries the same one.
    let counting = mutations.iter().any(Mutation::needs_nonce);
    let nonce =
        counting.then(|| mutations.iter().find_map(Mutation::given_nonce).unwrap_or_else(|| client.new_nonce()));
    let actions: Vec<pb::Action> = mutations
        .iter()
        .enumerate()
        .map(|(index, m)| pb::Action {
            index: Some(index as u32),
            mutation: Some(m.to_proto(nonce)),
            ..Default::default()
        })
        .collect();
    let condition = condition.map(Condition::to_proto);
    // Conditional writes are not retried after an unknown outcome (a retry could
    // see its own write and answer false); plain row mutations are, unless one
    // deletes a column's newest version (a retry would delete one more), puts on the
    // server's clock (a retry would write one more version) or counts without the
    // servers keeping nonces.
    let idempotent = mutations.iter().filter(|m| !m.needs_nonce()).all(Mutation::is_idempotent);
    let resendable = condition.is_none() && idempotent && (!counting || client.nonces_enabled());
    let conditional = condition.is_some();
    client
        .with_region(table, &row, resendable, |region| {
            let request = pb::MultiRequest {
                region_action: vec![pb::RegionAction {
                    region: region.specifier(),
                    atomic: Some(true),
                    action: actions.clone(),
                    condition: condition.clone(),
                }],
                nonce_group: nonce.map(|_| client.nonce_group()),
                ..Default::default()
            };
            async move {
                let reply = client.call(&region.server, "Multi", &request, None).await?;
                let response: pb::MultiResponse = reply.decode(&region.server)?;
                let Some(result) = response.region_action_result.first() else {
                    return Err(RpcError::Protocol {
                        addr: region.server.clone(),
                        reason: "no region result for an atomic row mutation".into(),
                    });
                };
                if let Some(exception) = &result.exception {
                    return Err(remote_error(&region.server, exception));
                }
                if let Some(exception) = result.result_or_exception.iter().find_map(|r| r.exception.as_ref()) {
                    return Err(remote_error(&region.server, exception));
                }
                let results = atomic_results(&region.server, result, &reply.cell_block, conditional)?;
                Ok((result.processed.unwrap_or(true), results))
            }
        })
        .await
}

/// The increments' and appends' results of an atomic row action, as Java reads them:
/// of a conditional one, the first answer's (the server puts the merged result there);
/// of a plain one, every answer's cells in order.
fn atomic_results(
    server: &str,
    result: &pb::RegionActionResult,
    block: &bytes::Bytes,
    conditional: bool,
) -> Result<RowResult, RpcError> {
    let mut reader = CellCursor::new(block.clone());
    let mut merged = RowResult::default();
    let answers = if conditional {
        &result.result_or_exception[..1.min(result.result_or_exception.len())]
    } else {
        &result.result_or_exception[..]
    };
    for answer in answers {
        if let Some(one) = &answer.result {
            merged.cells.extend(any_result(server, one, &mut reader)?.cells);
        }
    }
    Ok(merged)
}

/// A result whose cells come in the cell block or, as region servers send the results
/// of increments and appends inside atomic and conditional mutations, inline.
fn any_result(server: &str, result: &pb::Result, reader: &mut CellCursor) -> Result<RowResult, RpcError> {
    if result.cell.is_empty() {
        return row_result(server, result, reader);
    }
    let protocol = |reason: String| RpcError::Protocol { addr: server.to_owned(), reason };
    let mut block = BytesMut::new();
    for cell in &result.cell {
        let timestamp = i64::try_from(cell.timestamp.unwrap_or(0))
            .map_err(|_| protocol(format!("a cell timestamp beyond i64: {:?}", cell.timestamp)))?;
        let parts = CellParts {
            row: cell.row.as_deref().unwrap_or_default(),
            family: cell.family.as_deref().unwrap_or_default(),
            qualifier: cell.qualifier.as_deref().unwrap_or_default(),
            timestamp,
            cell_type: CellType::Put,
            value: cell.value.as_deref().unwrap_or_default(),
            tags: b"",
        };
        encode_cell(CellCodec::KeyValue, &parts, &mut block).map_err(|e| protocol(format!("an inline cell: {e}")))?;
    }
    let cells =
        decode_cell_block(block.freeze(), CellCodec::KeyValue).map_err(|e| protocol(format!("an inline cell: {e}")))?;
    Ok(RowResult {
        cells: cells.into(),
        partial: result.partial.unwrap_or(false),
        stale: result.stale.unwrap_or(false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    #[test]
    fn a_filter_condition_carries_the_filter_and_the_time_range_and_no_column() {
        let filter =
            pb::Filter { name: "org.apache.hadoop.hbase.filter.KeyOnlyFilter".into(), serialized_filter: None };
        let proto = Condition::filter("r", filter.clone()).time_range(3, 9).to_proto();
        assert_eq!(proto.row, Bytes::from_static(b"r"));
        assert_eq!(proto.filter, Some(filter));
        assert_eq!((proto.family, proto.qualifier, proto.comparator), (None, None, None));
        assert_eq!(proto.time_range, Some(pb::TimeRange { from: Some(3), to: Some(9) }));
        let column = Condition::from(Check::equals("r", "f", "q", Some(Bytes::from_static(b"v")))).to_proto();
        assert_eq!((column.family.as_deref(), column.time_range), (Some(&b"f"[..]), None));
        assert!(column.filter.is_none());
    }

    #[test]
    fn inline_result_cells_are_read_as_block_cells() {
        let cell = |q: &'static str, v: &'static [u8]| pb::Cell {
            row: Some(Bytes::from_static(b"r")),
            family: Some(Bytes::from_static(b"f")),
            qualifier: Some(Bytes::from_static(q.as_bytes())),
            timestamp: Some(7),
            cell_type: None,
            value: Some(Bytes::from_static(v)),
            tags: None,
        };
        let result =
            pb::Result { cell: vec![cell("n", &[0, 0, 0, 0, 0, 0, 0, 3]), cell("s", b"ab")], ..Default::default() };
        let mut reader = CellCursor::new(Bytes::new());
        let read = any_result("s:1", &result, &mut reader).unwrap();
        let seen: Vec<_> = read.cells.iter().map(|c| (c.row(), c.qualifier(), c.timestamp(), c.value())).collect();
        assert_eq!(
            seen,
            vec![(&b"r"[..], &b"n"[..], 7, &[0, 0, 0, 0, 0, 0, 0, 3][..]), (&b"r"[..], &b"s"[..], 7, &b"ab"[..])]
        );
        let hostile =
            pb::Result { cell: vec![pb::Cell { timestamp: Some(u64::MAX), ..cell("n", b"") }], ..Default::default() };
        assert!(any_result("s:1", &hostile, &mut reader).is_err());
    }
}
