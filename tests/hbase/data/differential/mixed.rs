//! The shapes of issue 25 ("same answers over native RPC"), drawn from their own seeded
//! generator after the original stream (so that the original seeds keep their writes and
//! reads): column selections mixing a family and qualifiers of it in either order and
//! with repeats; deletes naming every kind repeated and mixed, alone, in batches, in
//! row mutations and in check-and-mutate; rows of cells large enough (19 KB, and now and
//! then one of ~1 MB) that the server splits them by size under `batch`.

use basalt::{Bytes, CompareOp};

use super::gen::{self, b, Rng};
use super::model::{CheckVia, Cmp, DelD, DelSpec, Filt, GetD, Mutation, Opts, PutD, Read, ScanD, Write};

/// Random writes of these shapes per run.
const WRITES: usize = 50;
/// Random reads with mixed column selections per run.
const COLUMN_READS: usize = 28;
/// Random batched scans over the large rows per run.
const BATCH_READS: usize = 10;
/// Qualifiers of the mixed deletes: few, so that parts of one delete meet.
const DELETE_QUALIFIERS: [&[u8]; 3] = [b"q0", b"q1", b""];
/// The large rows sort after every other row of the tables (`~` > `z`); they are written
/// after the battery has read the tables, so that only their own batched scans carry
/// their cells (see [`large_writes`]).
const LARGE_ROWS: [&[u8]; 2] = [b"~1", b"~2"];

/// The rows of these shapes: `d` and one or two bytes, apart from the original stream's
/// `k` rows (whose battery keeps its data) and inside one region.
pub fn rows() -> Vec<Bytes> {
    let alphabet: [u8; 7] = [0x00, b'0', b'5', b'A', b'z', 0x80, 0xff];
    let mut rows = vec![b(b"d")];
    for &x in &alphabet {
        rows.push(b(&[b'd', x]));
        rows.push(b(&[b'd', x, b'5']));
    }
    rows
}

/// One of `items`.
fn one(rng: &mut Rng, items: &[&[u8]]) -> Bytes {
    b(items[rng.below(items.len())])
}

fn family_of(spec: &DelSpec) -> &Bytes {
    gen::spec_family(spec)
}

/// A family delete's reach: `None` for every version, else up to its timestamp.
fn family_reach(spec: &DelSpec) -> Option<Option<i64>> {
    match spec {
        DelSpec::Family(_) => Some(None),
        DelSpec::FamilyUntil(_, ts) => Some(Some(*ts)),
        DelSpec::Latest(..)
        | DelSpec::VersionAt(..)
        | DelSpec::AllVersions(..)
        | DelSpec::VersionsUntil(..)
        | DelSpec::FamilyVersion(..) => None,
    }
}

/// Whether `spec` is a family delete reaching less far than an earlier one of its
/// family: Basalt documents the union of a family's deletes (`Delete::family_until`),
/// Java keeps the last (the fixture of the original issue's case 5 covers that on
/// purpose); every other order and repeat means the same to both.
fn narrows_a_family_delete(earlier: &[DelSpec], spec: &DelSpec) -> bool {
    let Some(reach) = family_reach(spec) else { return false };
    earlier.iter().filter(|e| family_of(e) == family_of(spec)).filter_map(family_reach).any(|before| {
        match (before, reach) {
            (None, Some(_)) => true,
            (Some(before), Some(now)) => before > now,
            (None | Some(_), None) => false,
        }
    })
}

/// One part of a delete of kind `kind` (0..7) over few families and qualifiers.
fn spec_of_kind(rng: &mut Rng, kind: usize) -> DelSpec {
    let f = one(rng, &[b"a", b"a", b"c", b"b"]);
    let q = one(rng, &DELETE_QUALIFIERS);
    let ts = gen::ts(rng);
    match kind {
        0 => DelSpec::Latest(f, q),
        1 => DelSpec::VersionAt(f, q, ts),
        2 => DelSpec::AllVersions(f, q),
        3 => DelSpec::VersionsUntil(f, q, ts),
        4 => DelSpec::Family(f),
        5 => DelSpec::FamilyUntil(f, ts),
        _ => DelSpec::FamilyVersion(f, ts),
    }
}

/// A delete of 2-5 parts, repeats likely (the latest version named twice above all);
/// `one_kind`: every part of one kind.
fn mixed_delete(rng: &mut Rng, row: Bytes, one_kind: bool) -> DelD {
    let kind = rng.below(7);
    let mut specs: Vec<DelSpec> = Vec::new();
    for _ in 0..2 + rng.below(4) {
        let spec = match specs.last() {
            Some(last) if rng.chance(35) => last.clone(),
            Some(_) | None if one_kind => spec_of_kind(rng, kind),
            Some(_) | None if rng.chance(30) => spec_of_kind(rng, 0),
            Some(_) | None => {
                let any = rng.below(7);
                spec_of_kind(rng, any)
            }
        };
        if !narrows_a_family_delete(&specs, &spec) {
            specs.push(spec);
        }
    }
    DelD { row, until: None, specs }
}

/// A put of several versions of one or two columns (what repeated deletes remove).
fn versions_put(rng: &mut Rng, row: Bytes) -> PutD {
    let mut cells = Vec::new();
    for _ in 0..1 + rng.below(2) {
        let f = one(rng, &[b"a", b"c", b"b"]);
        let q = one(rng, &DELETE_QUALIFIERS);
        for _ in 0..2 + rng.below(3) {
            cells.push((f.clone(), q.clone(), gen::value(rng), Some(gen::ts(rng))));
        }
    }
    PutD { row, ts: None, cells }
}

/// A check that passes (a column nobody writes is absent) or, now and then, a random one.
fn check(rng: &mut Rng) -> (Bytes, Bytes, Option<Bytes>) {
    match rng.chance(75) {
        true => (b(b"b"), b(b"absent"), None),
        false => (gen::family(rng), gen::qualifier(rng), Some(gen::value(rng))),
    }
}

/// A row of 8 cells of 19 KB (the issue's) and a row with one cell of ~1 MB among small
/// ones: the server cuts a batched scan's pieces of the second by size, which Java's
/// client regroups into items of `batch` cells.
fn large_rows(rng: &mut Rng) -> Vec<Write> {
    let mut w = Vec::new();
    for (i, row) in LARGE_ROWS.iter().enumerate() {
        let mut cells = Vec::new();
        let (count, huge) = match i {
            1 => (4, true),
            _ => (8, false),
        };
        for c in 0..count {
            let len = match (huge, c) {
                (true, 1) => 1_000_000,
                (true, _) => 100 + rng.below(100),
                (false, _) => 19_000 + rng.below(1_000),
            };
            let seed = rng.next() as u8;
            let value: Vec<u8> = (0..len).map(|x| (x as u8).wrapping_mul(31) ^ seed).collect();
            let family = if c % 3 == 2 { b"a" } else { b"c" };
            cells.push((b(family), Bytes::from(format!("l{c:02}")), Bytes::from(value), None));
        }
        w.push(Write::Put(PutD { row: b(row), ts: None, cells }));
    }
    w
}

/// Rows `e1`..`e6`, each with `a:q0` at 10, 20 and 30 (and `a:q1` at 20), then one
/// delete every client must apply as Java's one `Delete`: the latest version named twice
/// (alone, in a batch, in row mutations, in check-and-delete and check-and-mutate), a
/// family delete after a column of its family (which it drops), and a check-and-delete
/// of mixed kinds.
fn fixture_writes() -> Vec<Write> {
    let twice = || vec![DelSpec::Latest(b(b"a"), b(b"q0")), DelSpec::Latest(b(b"a"), b(b"q0"))];
    let del = |row: &[u8], specs: Vec<DelSpec>| DelD { row: b(row), until: None, specs };
    let check = |row: &[u8], via: CheckVia, specs: Vec<DelSpec>| Write::Check {
        row: b(row),
        family: b(b"b"),
        qualifier: b(b"absent"),
        op: CompareOp::Equal,
        value: None,
        via,
        muts: vec![Mutation::Delete(del(row, specs))],
    };
    let mut w = Vec::new();
    for row in FIXTURE_ROWS {
        let cells = [(b"q0", 10), (b"q0", 20), (b"q0", 30), (b"q1", 20)]
            .iter()
            .map(|(q, ts)| (b(b"a"), b(*q), Bytes::from(format!("{ts}")), Some(*ts)))
            .collect();
        w.push(Write::Put(PutD { row: b(row), ts: None, cells }));
    }
    w.push(Write::Delete(del(b"e1", twice())));
    w.push(Write::DeleteMany(vec![del(b"e2", twice()), del(b"e1", vec![DelSpec::Latest(b(b"a"), b(b"q1"))])]));
    w.push(Write::MutateRow(b(b"e3"), vec![Mutation::Delete(del(b"e3", twice()))]));
    w.push(check(b"e4", CheckVia::Delete, twice()));
    w.push(check(b"e5", CheckVia::Mutate, twice()));
    let cleared = vec![DelSpec::Latest(b(b"a"), b(b"q0")), DelSpec::FamilyUntil(b(b"a"), 25)];
    w.push(Write::Delete(del(b"e6", cleared)));
    // check_and_delete of mixed kinds (Basalt refused it; the gateway's TDelete carries
    // one kind, so it goes as row mutations there).
    let mixed = vec![
        DelSpec::Latest(b(b"a"), b(b"q0")),
        DelSpec::Latest(b(b"a"), b(b"q0")),
        DelSpec::AllVersions(b(b"a"), b(b"q1")),
        DelSpec::VersionAt(b(b"a"), b(b"q0"), 10),
    ];
    w.push(check(b"e7", CheckVia::Delete, mixed));
    w
}

/// The rows of [`fixture_writes`].
const FIXTURE_ROWS: [&[u8]; 7] = [b"e1", b"e2", b"e3", b"e4", b"e5", b"e6", b"e7"];

/// The writes of these shapes: the fixtures, the large rows, then random puts of
/// versions and mixed deletes over `rows`.
pub fn writes(seed: u64, rows: &[Bytes]) -> Vec<Write> {
    let mut rng = Rng::new(seed ^ 0x2525_0001_d1ff_0001);
    let mut w = fixture_writes();
    for _ in 0..WRITES {
        let row = rng.pick(rows).clone();
        w.push(match rng.below(12) {
            0..=4 => Write::Put(versions_put(&mut rng, row)),
            5 | 6 => Write::Delete(mixed_delete(&mut rng, row, false)),
            7 => {
                let mut picked: Vec<Bytes> = vec![row];
                for _ in 0..1 + rng.below(2) {
                    let r = rng.pick(rows).clone();
                    if !picked.contains(&r) {
                        picked.push(r);
                    }
                }
                Write::DeleteMany(picked.into_iter().map(|r| mixed_delete(&mut rng, r, false)).collect())
            }
            8 => {
                let mut muts = vec![Mutation::Delete(mixed_delete(&mut rng, row.clone(), false))];
                if rng.chance(40) {
                    muts.push(Mutation::Delete(mixed_delete(&mut rng, row.clone(), false)));
                }
                Write::MutateRow(row, muts)
            }
            9 | 10 => {
                let (family, qualifier, value) = check(&mut rng);
                let muts = vec![Mutation::Delete(mixed_delete(&mut rng, row.clone(), false))];
                Write::Check { row, family, qualifier, op: CompareOp::Equal, value, via: CheckVia::Mutate, muts }
            }
            _ => {
                // check_and_delete takes a delete of any kinds, as Java's checkAndMutate.
                let (family, qualifier, value) = check(&mut rng);
                let one_kind = rng.chance(50);
                let muts = vec![Mutation::Delete(mixed_delete(&mut rng, row.clone(), one_kind))];
                Write::Check { row, family, qualifier, op: CompareOp::Equal, value, via: CheckVia::Delete, muts }
            }
        });
    }
    w
}

/// 1-5 columns: families and qualifiers of them in either order, repeats likely.
fn mixed_columns(rng: &mut Rng) -> Vec<(Bytes, Option<Bytes>)> {
    let mut columns: Vec<(Bytes, Option<Bytes>)> = Vec::new();
    for _ in 0..1 + rng.below(5) {
        let column = match columns.is_empty() {
            false if rng.chance(20) => columns[rng.below(columns.len())].clone(),
            false | true => {
                let f = one(rng, &[b"a", b"a", b"c", b"b"]);
                match rng.chance(40) {
                    true => (f, None),
                    false => (f, Some(gen::qualifier(rng))),
                }
            }
        };
        columns.push(column);
    }
    columns
}

/// A SingleColumnValueFilter on a column of a family the selection names (the issue's
/// scan that found no row over native RPC).
fn filter_in_selection(rng: &mut Rng, columns: &[(Bytes, Option<Bytes>)], values: &[Bytes]) -> Filt {
    let family = columns[rng.below(columns.len())].0.clone();
    Filt::SingleColumnValue {
        family,
        qualifier: one(rng, &[b"q0", b"q1", b"q2"]),
        op: *rng.pick(&[CompareOp::NotEqual, CompareOp::Greater, CompareOp::Equal]),
        cmp: Cmp::Binary(rng.pick(values).clone()),
        if_missing: rng.chance(40),
        latest_only: rng.chance(70),
        exclude: rng.chance(20),
    }
}

/// The two reads, as reported (a get and a filtered scan of every row of these shapes).
fn reported_reads() -> Vec<(String, Read)> {
    let a = || b(b"a");
    let get_columns = vec![(a(), Some(b(b"q0"))), (b(b"b"), Some(b(b"q1"))), (a(), None)];
    let scan_columns = vec![(a(), Some(b(b"q2"))), (a(), None)];
    let filter = Filt::SingleColumnValue {
        family: a(),
        qualifier: b(b"q0"),
        op: CompareOp::NotEqual,
        cmp: Cmp::Binary(b(b"zzz")),
        if_missing: true,
        latest_only: true,
        exclude: false,
    };
    let mut out = Vec::new();
    for row in FIXTURE_ROWS {
        let opts = Opts { max_versions: Some(3), ..Opts::default() };
        let read = Read::Get(GetD { row: b(row), ts: None, opts });
        out.push((format!("issue 25: the versions left in {} by one delete", String::from_utf8_lossy(row)), read));
    }
    for row in [&b"d5"[..], b"dA", b"dz", b"d"] {
        let opts = Opts { columns: get_columns.clone(), ..Opts::default() };
        out.push((
            format!("issue 25: get [a:q0, b:q1, a:*] of {row:?}"),
            Read::Get(GetD { row: b(row), ts: None, opts }),
        ));
    }
    let opts = Opts { columns: scan_columns, filter: Some(filter), max_versions: Some(3), ..Opts::default() };
    out.push(("issue 25: scan [a:q2, a:*] with SCVF a:q0".into(), Read::Scan(ScanD { opts, ..gen::scan(b"d", b"e") })));
    out
}

/// The reads of these shapes: the reported ones, random gets and scans with mixed
/// selections, and batched scans of the large rows.
pub fn reads(seed: u64, rows: &[Bytes], values: &[Bytes]) -> Vec<(String, Read)> {
    let mut rng = Rng::new(seed ^ 0x2525_0002_d1ff_0002);
    let mut out = reported_reads();
    for i in 0..COLUMN_READS {
        let columns = mixed_columns(&mut rng);
        let filter = match rng.chance(35) {
            true => Some(filter_in_selection(&mut rng, &columns, values)),
            false => None,
        };
        let read = match rng.below(3) {
            0 => {
                let mut get = gen::random_get(&mut rng, rows, values);
                get.opts.columns = columns;
                get.opts.filter = filter.or(get.opts.filter);
                Read::Get(get)
            }
            _ => {
                let mut scan = gen::random_scan(&mut rng, rows, values);
                scan.opts.columns = columns;
                if let Some(filter) = filter {
                    // HBase refuses batch with a row filter, and a reversed scan whose
                    // filter needs a joined heap while families load on demand: neither
                    // is this read's point.
                    scan.batch = None;
                    if scan.reversed && filter.needs_joined_heap() {
                        scan.on_demand = Some(false);
                    }
                    scan.opts.filter = Some(filter);
                }
                Read::Scan(scan)
            }
        };
        out.push((format!("mixed columns {i}"), read));
    }
    out
}

/// The large rows: written after the battery's reads (see `mod.rs`), so that only
/// [`large_reads`] carry their cells.
pub fn large_writes(seed: u64) -> Vec<Write> {
    large_rows(&mut Rng::new(seed ^ 0x2525_0003_d1ff_0003))
}

/// Batched scans of the large rows: the batch(5), then random ones.
pub fn large_reads(seed: u64) -> Vec<(String, Read)> {
    let mut rng = Rng::new(seed ^ 0x2525_0004_d1ff_0004);
    let batch_5 = ScanD { batch: Some(5), ..gen::scan(b"~", b"~9") };
    let mut out = vec![("issue 25: batch(5) over cells of 19 KB and ~1 MB".to_owned(), Read::Scan(batch_5))];
    for i in 0..BATCH_READS {
        let mut scan = gen::scan(b"~", b"~9");
        scan.batch = Some(1 + rng.below(6) as u32);
        scan.reversed = rng.chance(30);
        if rng.chance(30) {
            scan.caching = Some(1 + rng.below(3) as u32);
        }
        if rng.chance(20) {
            scan.limit = Some(1 + rng.below(2) as u64);
        }
        if rng.chance(30) {
            scan.opts.columns = mixed_columns(&mut rng);
        }
        if rng.chance(20) {
            scan.opts.max_versions = Some(2);
        }
        out.push((format!("batched large rows {i}"), Read::Scan(scan)));
    }
    out.extend(gen::large_partial_reads(&mut rng));
    out
}
