//! A log-linear histogram of nanosecond values (HDR-histogram style): values below 128 ns
//! are kept exactly, above that each power of two is split into 64 sub-buckets, so a
//! percentile is within 1/64 ≈ 1.6% of the true value (reported as the bucket midpoint,
//! clamped to the exact min and max). Min, max and mean are exact. Memory grows with
//! the logarithm of the largest value, never with the number of samples.

const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS;

/// Distribution of delays (or any non-negative ns values).
#[derive(Debug, Clone, Default)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
    sum: u128,
    min: u64,
    max: u64,
}

fn bucket_of(v: u64) -> usize {
    if v < 2 * SUB {
        return v as usize;
    }
    let exp = 63 - v.leading_zeros(); // >= SUB_BITS + 1
    let shift = exp - SUB_BITS;
    let sub = (v >> shift) - SUB; // 0..SUB
    (2 * SUB + (shift as u64 - 1) * SUB + sub) as usize
}

/// The [low, high) range of values in a bucket.
fn bucket_range(b: usize) -> (u64, u64) {
    let b = b as u64;
    if b < 2 * SUB {
        return (b, b + 1);
    }
    let shift = (b - 2 * SUB) / SUB + 1;
    let sub = (b - 2 * SUB) % SUB;
    let low = (SUB + sub) << shift;
    (low, low + (1 << shift))
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one value. Inlined: every delivered packet records its delay, and with a
    /// second caller (SCTP's streams) the compiler stopped inlining it on its own.
    #[inline(always)]
    pub fn record(&mut self, v: u64) {
        let b = bucket_of(v);
        if b >= self.counts.len() {
            // Grows only when a new largest value appears: O(log max) times per run.
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        if self.total == 0 || v < self.min {
            self.min = v;
        }
        self.max = self.max.max(v);
        self.total += 1;
        self.sum += v as u128;
    }

    /// Number of values recorded.
    pub fn count(&self) -> u64 {
        self.total
    }

    /// Smallest value (exact), if any.
    pub fn min(&self) -> Option<u64> {
        (self.total > 0).then_some(self.min)
    }

    /// Largest value (exact), if any.
    pub fn max(&self) -> Option<u64> {
        (self.total > 0).then_some(self.max)
    }

    /// Arithmetic mean (exact up to f64 rounding), if any.
    pub fn mean(&self) -> Option<f64> {
        (self.total > 0).then(|| self.sum as f64 / self.total as f64)
    }

    /// The q-quantile (0 ≤ q ≤ 1): the midpoint of the bucket holding the
    /// ⌈q·n⌉-th smallest value, clamped to [min, max].
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.total == 0 {
            return None;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = bucket_range(b);
                let mid = (lo as f64 + hi as f64 - 1.0) / 2.0;
                return Some(mid.clamp(self.min as f64, self.max as f64));
            }
        }
        Some(self.max as f64)
    }

    /// Non-empty buckets as (upper bound exclusive, count), for CDF plots.
    pub fn buckets(&self) -> Vec<(u64, u64)> {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(b, &c)| (bucket_range(b).1, c))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_number_line() {
        let mut expected_low = 0;
        for b in 0..bucket_of(1 << 62) {
            let (lo, hi) = bucket_range(b);
            assert_eq!(lo, expected_low, "bucket {b}");
            assert_eq!(bucket_of(lo), b);
            assert_eq!(bucket_of(hi - 1), b);
            expected_low = hi;
        }
    }

    #[test]
    fn quantiles_of_a_uniform_sample_are_within_bucket_precision() {
        let mut h = Histogram::new();
        for v in 1..=1_000_000u64 {
            h.record(v * 100);
        }
        for q in [0.5, 0.95, 0.99] {
            let exact = q * 1e8;
            let got = h.quantile(q).unwrap();
            assert!(
                (got - exact).abs() / exact < 1.0 / 64.0,
                "q{q}: {got} vs {exact}"
            );
        }
        assert_eq!(h.min(), Some(100));
        assert_eq!(h.max(), Some(100_000_000));
        assert!((h.mean().unwrap() - 50_000_050.0).abs() < 1e-6);
    }
}
