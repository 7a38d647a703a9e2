//! Hotspot analysis: count keys per region for given split keys and report skew, so two
//! key designs can be compared before any data is written. Also the cyclic-key check.

use std::fmt;
use std::time::Duration;

use bytes::Bytes;

use crate::error::KeyError;
use crate::field::Cycle;
use crate::schema::Schema;
use crate::value::Value;

/// Keys per region and skew figures.
#[derive(Debug, Clone, PartialEq)]
pub struct HotspotReport {
    /// Keys in each region (`splits.len() + 1` regions).
    pub counts: Vec<u64>,
    /// Total keys.
    pub total: u64,
    /// Mean keys per region.
    pub mean: f64,
    /// Largest region count.
    pub max: u64,
    /// Index of the largest region.
    pub max_region: usize,
    /// `max / mean` (1.0 = perfectly even; 0 when there are no keys).
    pub skew: f64,
    /// Regions that got no key.
    pub empty_regions: usize,
    /// Share of the last 10% of keys (in input order: the most recent writes when keys
    /// come from increasing timestamps) that hit the single busiest region for them.
    pub tail_concentration: f64,
}

impl fmt::Display for HotspotReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} keys, {} regions, max {} (region {}), mean {:.1}, skew {:.2}, {} empty, tail {:.0}%",
            self.total,
            self.counts.len(),
            self.max,
            self.max_region,
            self.mean,
            self.skew,
            self.empty_regions,
            self.tail_concentration * 100.0
        )
    }
}

/// Region index of `key` given sorted split keys (region `i` = `[split[i-1], split[i])`).
pub fn region_of(key: &[u8], splits: &[Bytes]) -> usize {
    splits.partition_point(|s| s.as_ref() <= key)
}

/// Counts `keys` per region of `splits` (sorted) and reports the skew.
pub fn analyze<I, K>(keys: I, splits: &[Bytes]) -> HotspotReport
where
    I: IntoIterator<Item = K>,
    K: AsRef<[u8]>,
{
    let mut counts = vec![0u64; splits.len() + 1];
    let mut order = Vec::new();
    for k in keys {
        let r = region_of(k.as_ref(), splits);
        counts[r] += 1;
        order.push(r);
    }
    let total = order.len() as u64;
    let regions = counts.len();
    let (max_region, max) =
        counts.iter().copied().enumerate().max_by_key(|(i, c)| (*c, std::cmp::Reverse(*i))).unwrap_or((0, 0));
    let mean = total as f64 / regions as f64;
    let tail = &order[order.len() - order.len() / 10..];
    let tail_concentration = if tail.is_empty() {
        0.0
    } else {
        let mut tc = vec![0u64; regions];
        for r in tail {
            tc[*r] += 1;
        }
        tc.iter().copied().max().unwrap_or(0) as f64 / tail.len() as f64
    };
    HotspotReport {
        empty_regions: counts.iter().filter(|c| **c == 0).count(),
        skew: if total == 0 { 0.0 } else { max as f64 / mean },
        counts,
        total,
        mean,
        max,
        max_region,
        tail_concentration,
    }
}

/// Encodes `n` keys from a generator of sample values (`gen(i)` for `i` in `0..n`).
pub fn sample_keys<F>(schema: &Schema, n: u64, mut gen: F) -> Result<Vec<Bytes>, KeyError>
where
    F: FnMut(u64) -> Vec<Value>,
{
    (0..n).map(|i| schema.encode(&gen(i))).collect()
}

/// A small deterministic pseudo-random generator (SplitMix64) for sample values.
#[derive(Debug, Clone)]
pub struct SampleRng(u64);

impl SampleRng {
    /// A generator with a seed.
    pub fn new(seed: u64) -> SampleRng {
        SampleRng(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 if `n == 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }
}

/// Error of the cyclic-key check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cycle of {cycle_secs}s must exceed TTL + 2 x major compaction = {needed_secs}s")]
pub struct CycleTooShort {
    /// Shortest period of the cycle.
    pub cycle_secs: i64,
    /// TTL + 2 x major-compaction interval.
    pub needed_secs: i64,
}

/// A cyclic key is safe only if its cycle exceeds `TTL + 2 x major-compaction
/// interval`, so expired data is compacted away before its keys come back.
/// (HBase's default `hbase.hregion.majorcompaction` is 7 days; some row-key guides say 24 h.)
pub fn check_cycle(cycle: Cycle, ttl: Duration, major_compaction: Duration) -> Result<(), CycleTooShort> {
    let secs = |d: Duration| i64::try_from(d.as_secs()).unwrap_or(i64::MAX);
    let needed = secs(ttl).saturating_add(secs(major_compaction).saturating_mul(2));
    let cycle_secs = cycle.min_period_secs();
    if cycle_secs > needed {
        Ok(())
    } else {
        Err(CycleTooShort { cycle_secs, needed_secs: needed })
    }
}

/// Runs [`check_cycle`] on every cyclic field of `schema`.
pub fn check_schema_cycles(schema: &Schema, ttl: Duration, major_compaction: Duration) -> Result<(), CycleTooShort> {
    for f in schema.fields() {
        if let crate::field::FieldType::Cyclic { cycle, .. } = f.ty() {
            check_cycle(*cycle, ttl, major_compaction)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_and_skew() {
        let splits = vec![Bytes::from_static(b"b"), Bytes::from_static(b"d")];
        assert_eq!(region_of(b"a", &splits), 0);
        assert_eq!(region_of(b"b", &splits), 1);
        assert_eq!(region_of(b"z", &splits), 2);
        let r = analyze([&b"a"[..], b"a", b"c", b"a"], &splits);
        assert_eq!(r.counts, vec![3, 1, 0]);
        assert_eq!(r.empty_regions, 1);
        assert!((r.skew - 3.0 / (4.0 / 3.0)).abs() < 1e-9);
    }

    #[test]
    fn cycle_check() {
        let day = Duration::from_secs(86_400);
        assert!(check_cycle(Cycle::Yearly, day * 300, day).is_ok());
        assert!(check_cycle(Cycle::Yearly, day * 364, day).is_err());
        assert!(check_cycle(Cycle::Monthly, day * 20, day * 7).is_err());
    }
}
