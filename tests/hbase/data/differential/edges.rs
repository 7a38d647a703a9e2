//! Timestamps at their edges, as a user can pass them: 0, negative, `i64::MIN`,
//! `i64::MAX` (HBase's "latest", which the server replaces by its clock) and just below
//! it, on puts, deletes, gets, scans and time ranges (empty, inverted, negative). Java's
//! client refuses some of these before sending and HBase others; Basalt must answer or
//! refuse where Java does.
//!
//! Drawn from a generator of its own after the others, so a seed's other draws stay.

use super::gen::Rng;
use super::model::{DelSpec, GetD, Opts, PutD, Read, ScanD, Write};

/// Timestamps at the edges.
const EDGES: [i64; 6] = [0, -1, -7, i64::MIN, i64::MAX, i64::MAX - 1];

/// Time ranges at the edges: empty, inverted, negative, all.
const RANGES: [(i64, i64); 6] = [(0, 0), (5, 5), (12, 3), (-5, 10), (0, i64::MAX), (i64::MIN, 0)];

fn edge(rng: &mut Rng) -> i64 {
    *rng.pick(&EDGES)
}

fn put(rng: &mut Rng, p: &mut PutD) {
    if rng.chance(30) {
        p.ts = Some(edge(rng));
    }
    for cell in &mut p.cells {
        if rng.chance(20) {
            cell.3 = Some(edge(rng));
        }
    }
}

fn spec(rng: &mut Rng, s: &mut DelSpec) {
    match s {
        DelSpec::VersionAt(_, _, ts)
        | DelSpec::VersionsUntil(_, _, ts)
        | DelSpec::FamilyUntil(_, ts)
        | DelSpec::FamilyVersion(_, ts) => *ts = edge(rng),
        DelSpec::Latest(..) | DelSpec::AllVersions(..) | DelSpec::Family(_) => {}
    }
}

/// Moves some of the writes' timestamps to the edges (about 4% of puts and deletes).
pub fn writes(seed: u64, writes: &mut [Write]) {
    let mut rng = Rng::new(seed ^ 0xed9e_0000_7135_0025);
    for w in writes {
        if !rng.chance(4) {
            continue;
        }
        match w {
            Write::Put(p) => put(&mut rng, p),
            Write::PutMany(ps) => ps.iter_mut().for_each(|p| put(&mut rng, p)),
            Write::Delete(d) | Write::DeleteAsUnion(d) => {
                // `until` is a whole-row delete's (Basalt refuses it beside parts, where
                // Java would apply it to each part: `family_until` and the like say that).
                if d.specs.is_empty() && rng.chance(30) {
                    d.until = Some(edge(&mut rng));
                }
                d.specs.iter_mut().for_each(|s| spec(&mut rng, s));
            }
            Write::DeleteMany(ds) => {
                for d in ds {
                    d.specs.iter_mut().for_each(|s| spec(&mut rng, s));
                }
            }
            Write::Increment(..)
            | Write::Append(..)
            | Write::MutateRow(..)
            | Write::Check { .. }
            | Write::MutateRowResults(..)
            | Write::CheckWith(_)
            | Write::Batch(_)
            | Write::GatewayRefuses(_) => {}
        }
    }
}

fn opts(rng: &mut Rng, o: &mut Opts) {
    if rng.chance(50) {
        o.time_range = Some(*rng.pick(&RANGES));
    }
}

fn get(rng: &mut Rng, g: &mut GetD) {
    match rng.chance(50) {
        // An exact timestamp and a time range are kept apart (see `gen::random_get`).
        true => {
            g.ts = Some(edge(rng));
            g.opts.time_range = None;
        }
        false => {
            g.ts = None;
            opts(rng, &mut g.opts);
        }
    }
}

fn scan(rng: &mut Rng, s: &mut ScanD) {
    match rng.chance(50) {
        true => {
            s.ts = Some(edge(rng));
            s.opts.time_range = None;
        }
        false => {
            s.ts = None;
            opts(rng, &mut s.opts);
        }
    }
}

/// Moves some reads' timestamps and time ranges to the edges (about 5% of reads).
pub fn read(rng: &mut Rng, r: &mut Read) {
    if !rng.chance(5) {
        return;
    }
    match r {
        Read::Get(g) | Read::Exists(g) => get(rng, g),
        Read::GetMany(gs) | Read::ExistsMany(gs) => gs.iter_mut().for_each(|g| get(rng, g)),
        Read::Scan(s) => scan(rng, s),
    }
}
