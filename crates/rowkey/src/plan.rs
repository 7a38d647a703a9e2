//! Scan planning: turn a query on the logical key into salted `[start, stop)` ranges.

use std::ops::Bound;

use bytes::Bytes;

use crate::calendar::{self, CalendarUnit};
use crate::codec;
use crate::error::KeyError;
use crate::field::{Field, FieldType, Width};
use crate::salt::Part;
use crate::schema::Schema;
use crate::value::Value;

/// Above this many per-interval ranges a time-bucketed plan collapses to one range per
/// touched bucket (still exact: a bucket only holds keys whose salt is that bucket).
pub const MAX_INTERVAL_RANGES: usize = 256;
/// Above this many intervals the planner stops enumerating and scans every bucket.
const MAX_INTERVALS: usize = 100_000;

/// The smallest byte string greater than every string starting with `prefix`
/// (FoundationDB's `strinc`): trailing `0xFF` bytes are dropped and the last remaining
/// byte is incremented. `None` when `prefix` is empty or all `0xFF` (no upper bound).
///
/// ```
/// use basalt_rowkey::prefix_successor;
/// assert_eq!(prefix_successor(b"host1").as_deref(), Some(&b"host2"[..]));
/// assert_eq!(prefix_successor(&[0x01, 0xFF, 0xFF]).as_deref(), Some(&[0x02][..]));
/// assert_eq!(prefix_successor(&[0xFF, 0xFF]), None);
/// assert_eq!(prefix_successor(b""), None);
/// ```
pub fn prefix_successor(prefix: &[u8]) -> Option<Bytes> {
    let last = prefix.iter().rposition(|b| *b != 0xFF)?;
    let mut out = prefix[..=last].to_vec();
    out[last] += 1;
    Some(Bytes::from(out))
}

/// A query on the logical key: the first value fields fixed, optionally a range on the
/// next value field. Bounds are in *value* order; descending fields are handled by the
/// planner.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Query {
    pub(crate) fixed: Vec<Value>,
    pub(crate) range: Option<(Bound<Value>, Bound<Value>)>,
    pub(crate) reverse: bool,
}

impl Query {
    /// A query fixing nothing (full scan of every bucket).
    pub fn new() -> Query {
        Query::default()
    }

    /// A query fixing the leading value fields to `values`.
    pub fn prefix(values: impl IntoIterator<Item = Value>) -> Query {
        Query { fixed: values.into_iter().collect(), ..Query::default() }
    }

    /// Fixes the next value field.
    pub fn fixed(mut self, v: impl Into<Value>) -> Query {
        self.fixed.push(v.into());
        self
    }

    /// Restricts the value field after the fixed ones to `(lower, upper)`.
    pub fn range(mut self, lower: Bound<Value>, upper: Bound<Value>) -> Query {
        self.range = Some((lower, upper));
        self
    }

    /// Restricts the next value field to `[lo, hi)`.
    pub fn between(self, lo: impl Into<Value>, hi: impl Into<Value>) -> Query {
        self.range(Bound::Included(lo.into()), Bound::Excluded(hi.into()))
    }

    /// Restricts the next value field to `[lo, hi]`.
    pub fn between_inclusive(self, lo: impl Into<Value>, hi: impl Into<Value>) -> Query {
        self.range(Bound::Included(lo.into()), Bound::Included(hi.into()))
    }

    /// Asks for a reverse (descending) scan; recorded in the plan.
    pub fn reverse(mut self, reverse: bool) -> Query {
        self.reverse = reverse;
        self
    }

    /// The fixed values.
    pub fn fixed_values(&self) -> &[Value] {
        &self.fixed
    }
}

/// One scan: forward `[start, stop)` inside one salt prefix. `stop` empty = unbounded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanRange {
    /// The bucket whose prefix holds the range; `None` if unsalted.
    pub bucket: Option<u32>,
    /// Inclusive start (stored key bytes, salt included).
    pub start: Bytes,
    /// Exclusive stop; empty = to the end of the table.
    pub stop: Bytes,
    /// True if a complete key can equal `start` (affects reversed scans).
    pub start_may_be_row: bool,
    /// True if a complete key can equal `stop`.
    pub stop_may_be_row: bool,
}

/// Bounds of a range for an HBase reversed scan, where `startRow` is the *largest* key
/// and is inclusive, and `stopRow` is an exclusive lower bound.
///
/// The rows of the forward range `[start, stop)` are exactly the rows `r` with
/// `stop_row < r <= start_row` (empty `start_row`: no upper bound; empty `stop_row`: no
/// lower bound), minus `start_row` itself when `drop_start_row`, plus the row
/// `missing_row` when it is `Some` (HBase cannot include it: fetch it with a Get).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReverseScanBounds {
    /// `startRow` of the reversed scan (the forward stop).
    pub start_row: Bytes,
    /// `stopRow` of the reversed scan (exclusive).
    pub stop_row: Bytes,
    /// The forward stop is exclusive but a row can equal it: skip it if returned.
    pub drop_start_row: bool,
    /// A row equal to the forward start is in the range but excluded by `stop_row`.
    pub missing_row: Option<Bytes>,
}

impl ScanRange {
    /// True if `key` lies in `[start, stop)`.
    pub fn contains(&self, key: &[u8]) -> bool {
        key >= self.start.as_ref() && (self.stop.is_empty() || key < self.stop.as_ref())
    }

    /// Bounds for an HBase reversed scan of this range (see [`ReverseScanBounds`]).
    pub fn reversed(&self) -> ReverseScanBounds {
        let (stop_row, missing_row) = if !self.start_may_be_row {
            // No row equals `start`, so "> start" is the same as ">= start".
            (self.start.clone(), None)
        } else if self.start.last() == Some(&0) {
            // The predecessor of `x 00` is exactly `x`.
            (self.start.slice(..self.start.len() - 1), None)
        } else {
            (self.start.clone(), Some(self.start.clone()))
        };
        ReverseScanBounds { start_row: self.stop.clone(), stop_row, drop_start_row: self.stop_may_be_row, missing_row }
    }
}

/// The scans answering a query. Ranges are sorted by `start`; none overlap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanPlan {
    /// The ranges to scan.
    pub ranges: Vec<ScanRange>,
    /// True if the query asked for descending order (use [`ScanRange::reversed`]).
    pub reverse: bool,
    /// True if the salt let the planner skip buckets (targeted fan-out).
    pub targeted: bool,
}

impl ScanPlan {
    /// The distinct buckets scanned.
    pub fn buckets(&self) -> Vec<u32> {
        let mut b: Vec<u32> = self.ranges.iter().filter_map(|r| r.bucket).collect();
        b.sort_unstable();
        b.dedup();
        b
    }
}

/// How a field's values split into runs over which a salt part is constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seg {
    /// Every value alone.
    Each,
    /// Runs of `div` consecutive integers aligned on multiples of `div`.
    Div(u64),
    /// Calendar runs.
    Cal(CalendarUnit, i64),
}

fn seg_rank(s: &Seg) -> (u8, u64) {
    match s {
        Seg::Each => (0, 0),
        Seg::Div(d) => (1, *d),
        Seg::Cal(CalendarUnit::Day, _) => (2, 0),
        Seg::Cal(CalendarUnit::Month, _) => (2, 1),
        Seg::Cal(CalendarUnit::Year, _) => (2, 2),
    }
}

fn is_integer_type(ty: &FieldType) -> bool {
    matches!(
        ty,
        FieldType::U8
            | FieldType::U16
            | FieldType::U32
            | FieldType::U64
            | FieldType::I8
            | FieldType::I16
            | FieldType::I32
            | FieldType::I64
            | FieldType::Decimal { .. }
            | FieldType::Timestamp { .. }
    )
}

fn seg_of(field: &Field, part: Part) -> Option<Seg> {
    match (&field.ty, part) {
        (FieldType::Timestamp { unit, .. }, Part::Calendar(u)) => Some(Seg::Cal(u, unit.per_second())),
        (FieldType::Decimal { digits }, Part::First(n)) if n < usize::from(*digits) => {
            10u64.checked_pow((usize::from(*digits) - n) as u32).map(Seg::Div)
        }
        (ty, Part::Text | Part::Encoded) if is_integer_type(ty) => Some(Seg::Each),
        (FieldType::Decimal { .. }, Part::First(_)) => Some(Seg::Each),
        _ => None,
    }
}

fn as_int(v: &Value) -> Option<i128> {
    match v {
        Value::UInt(n) => Some(i128::from(*n)),
        Value::Int(n) | Value::Timestamp(n) => Some(i128::from(*n)),
        _ => None,
    }
}

fn int_value(field: &Field, x: i128) -> Option<Value> {
    match field.ty {
        FieldType::Timestamp { .. } => i64::try_from(x).ok().map(Value::Timestamp),
        FieldType::I8 | FieldType::I16 | FieldType::I32 | FieldType::I64 => i64::try_from(x).ok().map(Value::Int),
        _ => u64::try_from(x).ok().map(Value::UInt),
    }
}

/// `(start, next)` of the run holding `x`.
fn seg_bounds(seg: Seg, x: i128) -> Option<(i128, i128)> {
    match seg {
        Seg::Each => Some((x, x + 1)),
        Seg::Div(d) => {
            let d = i128::from(d);
            let s = x.div_euclid(d) * d;
            Some((s, s + d))
        }
        Seg::Cal(unit, per) => {
            let t = i64::try_from(x).ok()?;
            let (s, n) = calendar::bucket_bounds(t, per, unit)?;
            Some((i128::from(s), i128::from(n)))
        }
    }
}

impl Schema {
    /// Plans the scans for `query`.
    ///
    /// Fan-out: every bucket when the salt depends on fields the query does not fix
    /// (or on a random/round-robin choice); one bucket when the fixed fields determine
    /// it; one range per time bucket (each with its own salt, bounded by its interval)
    /// when the salt depends on a calendar or digit-prefix part of the ranged field.
    pub fn plan(&self, query: &Query) -> Result<ScanPlan, KeyError> {
        let k = query.fixed.len();
        let nv = self.value_fields.len();
        let limit = if query.range.is_some() { nv.saturating_sub(1) } else { nv };
        if k > limit {
            return Err(KeyError::WrongValueCount { expected: limit, got: k });
        }
        // Prefix: fields up to (not including) value field k, literals included.
        let stop_at = self.value_fields.get(k).copied().unwrap_or(self.fields.len());
        let mut prefix = Vec::new();
        let mut vi = 0;
        for f in &self.fields[..stop_at] {
            if f.ty.is_literal() {
                codec::encode_field(f, None, &mut prefix)?;
            } else {
                codec::encode_field(f, query.fixed.get(vi), &mut prefix)?;
                vi += 1;
            }
        }
        let range_field = query.range.as_ref().and_then(|_| self.fields.get(stop_at));
        // A value running to the end of the key (`Width::Rest`) is not prefix-free: when it
        // is fixed, its rows end exactly there, so the range stops before its extensions.
        let rest_fixed = k == nv && self.fields.last().is_some_and(|f| f.ty.width() == Some(Width::Rest));
        let full = (Bound::Unbounded, Bound::Unbounded);
        let (lower, upper) = query.range.as_ref().unwrap_or(&full);

        let mut plan = ScanPlan { ranges: Vec::new(), reverse: query.reverse, targeted: false };
        let Some(salt) = &self.salt else {
            self.push_range(&mut plan, None, &[], &prefix, rest_fixed, range_field, lower, upper)?;
            return Ok(plan);
        };
        let fixed_of = |fi: usize| self.value_at(&query.fixed, fi);
        let deps: Vec<usize> = salt.inputs().iter().map(|i| i.index).collect();
        let fixed_fields = &self.value_fields[..k];

        let single = if !salt.is_deterministic() {
            None
        } else if salt.uses_logical_key() {
            (k == nv).then(|| salt.bucket(&self.fields, &fixed_of, Some(&prefix)))
        } else if deps.iter().all(|d| fixed_fields.contains(d)) {
            Some(salt.bucket(&self.fields, &fixed_of, None))
        } else {
            None
        };
        if let Some(b) = single {
            let b = b?;
            let sp = self.salt_prefix(b);
            self.push_range(&mut plan, Some(b), &sp, &prefix, rest_fixed, range_field, lower, upper)?;
            plan.targeted = self.bucket_count() != Some(1);
            return Ok(plan);
        }
        if let Some(rf) = range_field.filter(|_| salt.is_deterministic() && !salt.uses_logical_key()) {
            if let Some(intervals) = self.intervals(&query.fixed, stop_at, rf, lower, upper)? {
                plan.targeted = true;
                if intervals.len() <= MAX_INTERVAL_RANGES {
                    for (b, l, u) in intervals {
                        let sp = self.salt_prefix(b);
                        self.push_range(&mut plan, Some(b), &sp, &prefix, false, Some(rf), &l, &u)?;
                    }
                    merge_adjacent(&mut plan.ranges);
                } else {
                    let mut bs: Vec<u32> = intervals.iter().map(|x| x.0).collect();
                    bs.sort_unstable();
                    bs.dedup();
                    for b in bs {
                        let sp = self.salt_prefix(b);
                        self.push_range(&mut plan, Some(b), &sp, &prefix, false, Some(rf), lower, upper)?;
                    }
                }
                plan.ranges.sort_by(|a, b| a.start.cmp(&b.start));
                return Ok(plan);
            }
        }
        for b in 0..salt.buckets() {
            let sp = self.salt_prefix(b);
            self.push_range(&mut plan, Some(b), &sp, &prefix, rest_fixed, range_field, lower, upper)?;
        }
        Ok(plan)
    }

    /// Splits the range on field `fi` into runs with a constant salt; `None` if the salt
    /// does not depend only on fixed fields and runs of `fi`.
    #[allow(clippy::type_complexity)]
    fn intervals(
        &self,
        fixed: &[Value],
        fi: usize,
        field: &Field,
        lower: &Bound<Value>,
        upper: &Bound<Value>,
    ) -> Result<Option<Vec<(u32, Bound<Value>, Bound<Value>)>>, KeyError> {
        let Some(salt) = &self.salt else {
            return Ok(None);
        };
        let k = fixed.len();
        let mut seg: Option<Seg> = None;
        for inp in salt.inputs() {
            if self.value_fields[..k].contains(&inp.index) {
                continue;
            }
            if inp.index != fi {
                return Ok(None);
            }
            let Some(s) = seg_of(field, inp.part) else {
                return Ok(None);
            };
            seg = Some(match seg {
                Some(old) if seg_rank(&old) <= seg_rank(&s) => old,
                _ => s,
            });
        }
        let Some(seg) = seg else {
            return Ok(None);
        };
        let lo = match lower {
            Bound::Included(v) => as_int(v),
            Bound::Excluded(v) => as_int(v).map(|x| x + 1),
            Bound::Unbounded => None,
        };
        let hi = match upper {
            Bound::Included(v) => as_int(v),
            Bound::Excluded(v) => as_int(v).map(|x| x - 1),
            Bound::Unbounded => None,
        };
        let (Some(lo), Some(hi)) = (lo, hi) else {
            return Ok(None);
        };
        // Rough count of runs: give up early on ranges too wide to enumerate.
        let span = hi.saturating_sub(lo).max(0);
        let runs = match seg {
            Seg::Each => span,
            Seg::Div(d) => span / i128::from(d),
            Seg::Cal(_, per) => span / (i128::from(per) * 86_400 * 366),
        };
        if runs >= MAX_INTERVALS as i128 {
            return Ok(None);
        }
        let buckets = salt.buckets() as usize;
        let mut seen = vec![false; buckets.min(1 << 20)];
        let mut distinct = 0usize;
        let mut out = Vec::new();
        let mut x = lo;
        while x <= hi {
            if out.len() >= MAX_INTERVALS || (out.len() > MAX_INTERVAL_RANGES && distinct >= buckets) {
                // Every bucket is hit anyway: a plain fan-out is the same plan.
                return Ok(None);
            }
            let Some((_, next)) = seg_bounds(seg, x) else {
                return Ok(None);
            };
            let Some(a) = int_value(field, x) else {
                return Ok(None);
            };
            let lo_b = if x == lo { lower.clone() } else { Bound::Included(a.clone()) };
            let hi_b = if next > hi {
                upper.clone()
            } else {
                match int_value(field, next) {
                    Some(n) => Bound::Excluded(n),
                    None => upper.clone(),
                }
            };
            let mut vals = fixed.to_vec();
            vals.push(a);
            let bucket = salt.bucket(&self.fields, &|i| self.value_at(&vals, i), None)?;
            if let Some(f) = seen.get_mut(bucket as usize) {
                if !*f {
                    *f = true;
                    distinct += 1;
                }
            }
            out.push((bucket, lo_b, hi_b));
            x = next;
        }
        Ok(Some(out))
    }

    /// Pushes `[salt + prefix + lower, salt + prefix + upper)` unless it is empty.
    #[allow(clippy::too_many_arguments)]
    fn push_range(
        &self,
        plan: &mut ScanPlan,
        bucket: Option<u32>,
        salt_prefix: &[u8],
        prefix: &[u8],
        rest_fixed: bool,
        field: Option<&Field>,
        lower: &Bound<Value>,
        upper: &Bound<Value>,
    ) -> Result<(), KeyError> {
        let mut base = salt_prefix.to_vec();
        base.extend_from_slice(prefix);
        let enc = |v: &Value| -> Result<Vec<u8>, KeyError> {
            let mut b = base.clone();
            if let Some(f) = field {
                codec::encode_field(f, Some(v), &mut b)?;
            }
            Ok(b)
        };
        let desc = field.is_some_and(Field::reverses_order);
        // The first key after every key that starts with `k`, or (for a value running to the
        // end of the key) the first key after `k` itself: `k` + `00`.
        let rest = field.is_some_and(|f| f.ty.width() == Some(Width::Rest));
        let after = |k: Vec<u8>, exact: bool| -> Option<Vec<u8>> {
            if exact {
                let mut k = k;
                k.push(0);
                Some(k)
            } else {
                prefix_successor(&k).map(|b| b.to_vec())
            }
        };
        let (lo_b, hi_b) = if desc { (upper, lower) } else { (lower, upper) };
        // Byte-order lower bound.
        let start: Vec<u8> = match (lo_b, desc) {
            (Bound::Unbounded, _) => base.clone(),
            (Bound::Included(v), _) => enc(v)?,
            (Bound::Excluded(v), _) => match after(enc(v)?, rest) {
                Some(s) => s,
                None => return Ok(()),
            },
        };
        // Byte-order upper bound (exclusive); empty = unbounded.
        let stop: Vec<u8> = match hi_b {
            Bound::Unbounded => after(base.clone(), rest_fixed).unwrap_or_default(),
            Bound::Included(v) => after(enc(v)?, rest).unwrap_or_default(),
            Bound::Excluded(v) => enc(v)?,
        };
        if !stop.is_empty() && start >= stop {
            return Ok(());
        }
        let may_be_row = |k: &[u8]| !k.is_empty() && self.decode(k).is_ok();
        plan.ranges.push(ScanRange {
            bucket,
            start_may_be_row: may_be_row(&start),
            stop_may_be_row: may_be_row(&stop),
            start: Bytes::from(start),
            stop: Bytes::from(stop),
        });
        Ok(())
    }
}

/// Merges ranges of the same bucket where one's stop is the next one's start.
fn merge_adjacent(ranges: &mut Vec<ScanRange>) {
    ranges.sort_by(|a, b| a.start.cmp(&b.start));
    let mut out: Vec<ScanRange> = Vec::with_capacity(ranges.len());
    for r in ranges.drain(..) {
        if let Some(last) = out.last_mut() {
            if last.bucket == r.bucket && !last.stop.is_empty() && last.stop == r.start {
                last.stop = r.stop;
                last.stop_may_be_row = r.stop_may_be_row;
                continue;
            }
        }
        out.push(r);
    }
    *ranges = out;
}
