//! A small seeded random generator: repeatable runs. Its bits are the row-key crate's
//! SplitMix64 ([`SampleRng`]), the workspace's one copy.

use basalt_rowkey::hotspot::SampleRng;

/// A seeded generator (SplitMix64): fast, seedable, good enough to pick faults and
/// test data.
#[derive(Debug, Clone)]
pub struct Rng(SampleRng);

impl Rng {
    /// A generator whose sequence is fixed by `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(SampleRng::new(seed))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A number in `[low, high]` (`low` when `high < low`).
    pub fn between(&mut self, low: u64, high: u64) -> u64 {
        if high <= low {
            return low;
        }
        let span = high - low;
        if span == u64::MAX {
            return self.next_u64();
        }
        low + self.next_u64() % (span + 1)
    }

    /// True with probability `p` (clamped to `[0, 1]`).
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.unit() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeatable_and_in_range() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        for _ in 0..1000 {
            let x = a.between(3, 9);
            assert_eq!(x, b.between(3, 9));
            assert!((3..=9).contains(&x));
            let u = a.unit();
            assert_eq!(u, b.unit());
            assert!((0.0..1.0).contains(&u));
        }
        assert_eq!(Rng::new(1).between(5, 5), 5);
        assert_eq!(Rng::new(1).between(5, 2), 5);
        assert!(!Rng::new(1).chance(0.0));
        assert!(Rng::new(1).chance(1.0));
    }
}
