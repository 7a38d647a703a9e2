//! Issue 25's mutation API against the Java client's: row mutations holding increments
//! and appends with their results (`mutate_row_with_results` / `mutateRow`),
//! check-and-mutate on a filter or within a time range, of any action
//! (`check_and_mutate_with` / `checkAndMutate(CheckAndMutate)`), and mixed batches
//! (`Table::batch` / `Table.batch`) answering per action. Drawn from their own seeded
//! generator after the earlier streams, mixed with writes of every older kind on rows of
//! their own (in two regions, so that batches span them). On the gateway the writes it
//! cannot carry are refused by Basalt (a documented refusal) and skipped by Java.

use basalt::{BatchAction, Bytes, CheckAndMutate, CheckedAction, Table};

use super::answer::{Answer, Item};
use super::gen::{self, b, Rng};
use super::java::{delete, filter, get, hex, mutations, op, opt_num, put, word};
use super::model::{BatchOp, CheckCond, CheckWith, Mutation, Read, ScanD, Write};

/// Writes of this generator per run.
const WRITES: usize = 45;
/// Reads over its rows per run.
const READS: usize = 8;

/// Basalt's refusals on the gateway of what only native RPC carries, by a phrase of the
/// error (the Java client answers them): counted as documented refusals.
pub const GATEWAY_REFUSALS: [&str; 4] = [
    "an increment or append in row mutations cannot be sent through the Thrift2 gateway",
    "an increment or append in a check-and-mutate cannot be sent through the Thrift2 gateway",
    "a check-and-mutate condition on a filter cannot be sent through the Thrift2 gateway",
    "a check-and-mutate time range cannot be sent through the Thrift2 gateway",
];

/// The rows: `n` and `w` with one more byte, apart from every other stream's rows; `n`
/// rows lie in the tables' second region, `w` rows in the third.
pub fn rows() -> Vec<Bytes> {
    let mut rows = Vec::new();
    for first in [b'n', b'w'] {
        rows.push(b(&[first]));
        for x in [0x00, b'5', b'A', b'z', 0xff] {
            rows.push(b(&[first, x]));
        }
    }
    rows
}

/// Counters to add to; now and then a column of other values, which HBase refuses to
/// increment (an action that fails on its own inside a batch).
fn counter_cols(rng: &mut Rng) -> Vec<(Bytes, Bytes, i64)> {
    (0..1 + rng.below(2))
        .map(|_| {
            let family = b(if rng.chance(50) { b"a" } else { b"c" });
            let qualifier = if rng.chance(20) { gen::qualifier(rng) } else { b(gen::COUNTERS[rng.below(2)]) };
            (family, qualifier, rng.below(20) as i64 - 5)
        })
        .collect()
}

fn append_cols(rng: &mut Rng) -> Vec<(Bytes, Bytes, Bytes)> {
    (0..1 + rng.below(2)).map(|_| (gen::family(rng), gen::qualifier(rng), gen::value(rng))).collect()
}

/// One mutation of `row` of any kind.
fn any_mutation(rng: &mut Rng, row: &Bytes) -> Mutation {
    match rng.below(10) {
        0..=2 => Mutation::Put(gen::random_put(rng, row.clone())),
        3..=4 => Mutation::Delete(gen::random_delete(rng, row.clone(), false)),
        5..=7 => Mutation::Increment(row.clone(), counter_cols(rng)),
        _ => Mutation::Append(row.clone(), append_cols(rng)),
    }
}

fn row_mutations(rng: &mut Rng, row: &Bytes) -> Vec<Mutation> {
    (0..1 + rng.below(4)).map(|_| any_mutation(rng, row)).collect()
}

fn check_with(rng: &mut Rng, rows: &[Bytes], values: &[Bytes]) -> CheckWith {
    let row = rng.pick(rows).clone();
    let cond = if rng.chance(60) {
        let value = if rng.chance(25) { None } else { Some(gen::value(rng)) };
        CheckCond::Column { family: gen::family(rng), qualifier: gen::qualifier(rng), op: *rng.pick(&gen::OPS), value }
    } else {
        CheckCond::Filter(gen::random_filter(rng, rows, values, 1))
    };
    let time_range = match rng.below(10) {
        0 => Some((gen::ts(rng), i64::MAX)),
        1 => Some((0, gen::ts(rng))),
        2 => {
            let min = gen::ts(rng);
            Some((min, min + 1 + rng.below(20) as i64))
        }
        _ => None,
    };
    let rows_action = rng.chance(30);
    let muts = if rows_action { row_mutations(rng, &row) } else { vec![any_mutation(rng, &row)] };
    CheckWith { row, cond, time_range, muts, rows: rows_action }
}

/// 2-6 actions on distinct rows (Java leaves the order of a batch's actions open).
fn batch(rng: &mut Rng, rows: &[Bytes], values: &[Bytes]) -> Vec<BatchOp> {
    let mut ops: Vec<BatchOp> = Vec::new();
    for _ in 0..2 + rng.below(5) {
        let row = rng.pick(rows).clone();
        if ops.iter().any(|o| o.row() == &row) {
            continue;
        }
        let op = if rng.chance(30) {
            let mut get = gen::random_get(rng, rows, values);
            get.row = row;
            BatchOp::Get(get)
        } else {
            BatchOp::Write(any_mutation(rng, &row))
        };
        ops.push(op);
    }
    ops
}

/// The writes of a run: counters to start from, then new kinds mixed with old ones.
pub fn writes(seed: u64) -> Vec<Write> {
    let mut rng = Rng::new(seed ^ 0x6d75_7461_7465);
    let rows = rows();
    let values: Vec<Bytes> = (0..12).map(|_| gen::value(&mut rng)).collect();
    let mut w: Vec<Write> = rows
        .iter()
        .step_by(2)
        .map(|row| Write::Increment(row.clone(), vec![(b(b"a"), b(gen::COUNTERS[0]), 7)]))
        .collect();
    for _ in 0..WRITES {
        let write = match rng.below(10) {
            0..=2 => gen::random_write(&mut rng, &rows),
            3 | 4 => {
                let row = rng.pick(&rows).clone();
                Write::MutateRowResults(row.clone(), row_mutations(&mut rng, &row))
            }
            5..=7 => Write::CheckWith(check_with(&mut rng, &rows, &values)),
            _ => Write::Batch(batch(&mut rng, &rows, &values)),
        };
        w.push(write);
    }
    w
}

/// Reads of the rows: every version of both ranges, then random gets and scans.
pub fn reads(seed: u64) -> Vec<(String, Read)> {
    let mut rng = Rng::new(seed ^ 0x7265_6164);
    let rows = rows();
    let values: Vec<Bytes> = (0..12).map(|_| gen::value(&mut rng)).collect();
    let mut all = ScanD { start: b(b"n"), stop: b(b"x"), ..ScanD::default() };
    all.opts.max_versions = Some(5);
    let mut out = vec![("mutation API: every version".to_owned(), Read::Scan(all))];
    for i in 0..READS {
        let read = match rng.below(2) {
            0 => Read::Get(gen::random_get(&mut rng, &rows, &values)),
            _ => Read::Scan(gen::random_scan(&mut rng, &rows, &values)),
        };
        out.push((format!("mutation API read {i}"), read));
    }
    out
}

/// On the gateway, the writes it cannot carry become [`Write::GatewayRefuses`].
pub fn for_transport(writes: Vec<Write>, native: bool) -> Vec<Write> {
    match native {
        true => writes,
        false => writes
            .into_iter()
            .map(|w| if w.gateway_carries() { w } else { Write::GatewayRefuses(Box::new(w)) })
            .collect(),
    }
}

fn or_err<T>(r: basalt::Result<T>, f: impl FnOnce(T) -> Answer) -> Answer {
    match r {
        Ok(v) => f(v),
        Err(e) => Answer::Err(e.to_string()),
    }
}

fn single(m: &Mutation) -> BatchAction {
    match m {
        Mutation::Put(p) => p.basalt().into(),
        Mutation::Delete(d) => d.basalt().into(),
        Mutation::Increment(r, cols) => Mutation::increment(r, cols).into(),
        Mutation::Append(r, cols) => Mutation::append(r, cols).into(),
    }
}

fn checked(m: &Mutation) -> CheckedAction {
    match m {
        Mutation::Put(p) => p.basalt().into(),
        Mutation::Delete(d) => d.basalt().into(),
        Mutation::Increment(r, cols) => Mutation::increment(r, cols).into(),
        Mutation::Append(r, cols) => Mutation::append(r, cols).into(),
    }
}

fn check_request(c: &CheckWith) -> CheckAndMutate {
    let action = match (c.rows, c.muts.as_slice()) {
        (false, [m]) => checked(m),
        (true | false, muts) => super::model::basalt_mutations(&c.row, muts).into(),
    };
    let mut request = CheckAndMutate::new(action);
    request = match &c.cond {
        CheckCond::Column { family, qualifier, op, value } => {
            request.if_column(family.clone(), qualifier.clone(), *op, value.clone())
        }
        CheckCond::Filter(f) => request.if_filter(f.to_basalt()),
    };
    match c.time_range {
        Some((min, max)) => request.time_range(min, max),
        None => request,
    }
}

/// Applies one of this stream's writes through Basalt (on the gateway, a write it
/// refuses is tried all the same: the refusal is the answer).
pub async fn apply(table: &Table, w: &Write) -> Answer {
    let write = match w {
        Write::GatewayRefuses(inner) => inner,
        other => other,
    };
    match write {
        Write::MutateRowResults(row, muts) => {
            let rm = super::model::basalt_mutations(row, muts);
            or_err(table.mutate_row_with_results(rm).await, |r| Answer::Rows(vec![Item::of_row(&r)]))
        }
        Write::CheckWith(c) => or_err(table.check_and_mutate_with(check_request(c)).await, |r| {
            Answer::Each(vec![Answer::Bool(r.is_applied()), Answer::Rows(vec![Item::of_row(r.row())])])
        }),
        Write::Batch(ops) => {
            let actions = ops.iter().map(|o| match o {
                BatchOp::Get(g) => g.basalt().into(),
                BatchOp::Write(m) => single(m),
            });
            or_err(table.batch(actions).await, |answers| {
                Answer::Each(answers.into_iter().map(|a| or_err(a, |r| Answer::Rows(vec![Item::of_row(&r)]))).collect())
            })
        }
        Write::Put(_)
        | Write::PutMany(_)
        | Write::Delete(_)
        | Write::DeleteMany(_)
        | Write::Increment(..)
        | Write::Append(..)
        | Write::MutateRow(..)
        | Write::Check { .. }
        | Write::DeleteAsUnion(_)
        | Write::GatewayRefuses(_) => Answer::Err(format!("not a write of the mutation API: {write:?}")),
    }
}

/// What this stream's writes answered through Basalt, counted by kind (so that a run
/// shows its new operations did something: applied, refused, failed per action); `None`
/// for a phase without them.
pub fn tally(writes: &[Write], answers: &[Answer]) -> Option<String> {
    let ours = |w: &Write| {
        matches!(w, Write::MutateRowResults(..) | Write::CheckWith(_) | Write::Batch(_) | Write::GatewayRefuses(_))
    };
    if !writes.iter().any(ours) {
        return None;
    }
    let (mut rows, mut checks, mut applied, mut batches, mut actions, mut failed, mut refused) = (0, 0, 0, 0, 0, 0, 0);
    for (w, a) in writes.iter().zip(answers) {
        match (w, a) {
            (Write::GatewayRefuses(_), _) => refused += 1,
            (Write::MutateRowResults(..), Answer::Rows(items)) => {
                rows += usize::from(items.iter().any(|i| !i.cells.is_empty()))
            }
            (Write::CheckWith(_), Answer::Each(parts)) => {
                checks += 1;
                applied += usize::from(matches!(parts.first(), Some(Answer::Bool(true))));
            }
            (Write::Batch(_), Answer::Each(parts)) => {
                batches += 1;
                actions += parts.len();
                failed += parts.iter().filter(|p| matches!(p, Answer::Err(_))).count();
            }
            _ => {}
        }
    }
    Some(format!(
        "mutation API: {rows} row mutations returned cells, {checks} check-and-mutates answered ({applied} applied), \
         {batches} batches of {actions} actions ({failed} actions failed), {refused} refused on the gateway"
    ))
}

// ---- the Java tool's lines (its grammar: DiffTool's header) ----

/// `i ROW N (FAM QUAL AMOUNT)*N` or `a ROW N (FAM QUAL VAL)*N`; nothing for other kinds.
pub(super) fn counter_mutation(out: &mut String, m: &Mutation) {
    match m {
        Mutation::Increment(row, cols) => {
            word(out, "i");
            hex(out, row);
            word(out, cols.len());
            for (f, q, n) in cols {
                hex(out, f);
                hex(out, q);
                word(out, n);
            }
        }
        Mutation::Append(row, cols) => {
            word(out, "a");
            hex(out, row);
            word(out, cols.len());
            for (f, q, v) in cols {
                hex(out, f);
                hex(out, q);
                hex(out, v);
            }
        }
        Mutation::Put(_) | Mutation::Delete(_) => {}
    }
}

/// One mutation of any kind: `p PUT | d DEL | i INC | a APP`.
fn java_single(out: &mut String, m: &Mutation) {
    match m {
        Mutation::Put(p) => {
            word(out, "p");
            put(out, p);
        }
        Mutation::Delete(d) => {
            word(out, "d");
            delete(out, d);
        }
        Mutation::Increment(..) | Mutation::Append(..) => counter_mutation(out, m),
    }
}

/// The Java tool's lines of this stream's writes (see DiffTool's grammar: `noop`, `mutr`, `camx`,
/// `batch`).
pub(super) fn java_write(out: &mut String, w: &Write) {
    match w {
        Write::GatewayRefuses(_) => word(out, "noop"),
        Write::MutateRowResults(row, muts) => {
            word(out, "mutr");
            hex(out, row);
            mutations(out, muts);
        }
        Write::CheckWith(c) => {
            word(out, "camx");
            hex(out, &c.row);
            opt_num(out, c.time_range.map(|r| r.0));
            opt_num(out, c.time_range.map(|r| r.1));
            match &c.cond {
                CheckCond::Column { family, qualifier, op: o, value } => {
                    word(out, "col");
                    hex(out, family);
                    hex(out, qualifier);
                    op(out, *o);
                    match value {
                        Some(v) => hex(out, v),
                        None => word(out, "-"),
                    }
                }
                CheckCond::Filter(f) => {
                    word(out, "filt");
                    filter(out, f);
                }
            }
            match (c.rows, c.muts.as_slice()) {
                (false, [m]) => java_single(out, m),
                (true | false, muts) => {
                    word(out, "m");
                    mutations(out, muts);
                }
            }
        }
        Write::Batch(ops) => {
            word(out, "batch");
            word(out, ops.len());
            for o in ops {
                match o {
                    BatchOp::Get(g) => {
                        word(out, "g");
                        get(out, g);
                    }
                    BatchOp::Write(m) => java_single(out, m),
                }
            }
        }
        Write::Put(_)
        | Write::PutMany(_)
        | Write::Delete(_)
        | Write::DeleteMany(_)
        | Write::Increment(..)
        | Write::Append(..)
        | Write::MutateRow(..)
        | Write::Check { .. }
        | Write::DeleteAsUnion(_) => {}
    }
}
