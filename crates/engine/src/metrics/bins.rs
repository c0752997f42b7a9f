//! Fixed-width time bins shared by every time series of a run.

use super::bin_counts::BinCounts;
use crate::time::SimTime;

/// Splits [0, duration) into `count` bins of `width` (the last may be shorter).
#[derive(Copy, Clone, Debug)]
pub struct Binning {
    /// Bin width.
    pub width: SimTime,
    /// Number of bins.
    pub count: usize,
    /// End of the run.
    pub duration: SimTime,
    /// `u64::MAX / width`: turns the per-packet division by the bin width into a
    /// multiplication (a 64-bit `div` cost more than the rest of a queue update).
    reciprocal: u64,
}

impl Binning {
    /// Bins of `width` covering `duration`.
    pub fn new(width: SimTime, duration: SimTime) -> Self {
        let width = SimTime(width.as_ns().max(1));
        let count = duration.as_ns().div_ceil(width.as_ns()).max(1) as usize;
        Binning {
            width,
            count,
            duration,
            reciprocal: u64::MAX / width.as_ns(),
        }
    }

    /// The bin holding time `t` (times at or past the end fall in the last bin).
    pub fn index(&self, t: SimTime) -> usize {
        (self.quotient(t.as_ns()) as usize).min(self.count - 1)
    }

    /// Exactly `t / width`. With r = ⌊(2^64 − 1) / w⌋ we have t/w − 1 < t·r / 2^64 ≤ t/w
    /// for every t < 2^64, so the high half of the product is the quotient or one less.
    fn quotient(&self, t: u64) -> u64 {
        let w = self.width.as_ns();
        let q = ((t as u128 * self.reciprocal as u128) >> 64) as u64;
        if t - q * w >= w {
            q + 1
        } else {
            q
        }
    }

    /// Start of bin `i`.
    pub fn start(&self, i: usize) -> SimTime {
        SimTime(i as u64 * self.width.as_ns())
    }

    /// End of bin `i` (the run's end for the last bin).
    pub fn end(&self, i: usize) -> SimTime {
        if i + 1 >= self.count {
            self.duration
        } else {
            SimTime((i as u64 + 1) * self.width.as_ns())
        }
    }

    /// Length of bin `i` in seconds.
    pub fn seconds(&self, i: usize) -> f64 {
        (self.end(i) - self.start(i)).as_secs_f64()
    }
}

/// A per-bin sum that keeps its current bin in the owner's own (hot) memory, so that
/// adding to the bin in progress touches no array: a thousand flows' bin arrays are
/// far out of cache, and this turns one likely miss per packet into one per bin.
/// Times must not decrease; [`BinSum::flush`] before reading the series.
#[derive(Debug, Clone, Copy)]
pub struct BinSum {
    bin: usize,
    end: SimTime,
    sum: u64,
}

impl BinSum {
    /// An empty sum positioned on the first bin of `bins`.
    pub fn new(bins: &Binning) -> Self {
        BinSum {
            bin: 0,
            end: bins.end(0),
            sum: 0,
        }
    }

    /// Adds `value` at time `t` to the bin holding `t` in `series`.
    #[inline]
    pub fn add(&mut self, bins: &Binning, t: SimTime, value: u64, series: &mut BinCounts) {
        if t >= self.end {
            self.flush(series);
            self.bin = bins.index(t);
            self.end = bins.end(self.bin);
        }
        self.sum += value;
    }

    /// Writes what was added to the bin in progress into `series`.
    pub fn flush(&mut self, series: &mut BinCounts) {
        let sum = std::mem::take(&mut self.sum);
        // Empty bins are not written: zero-filled pages never written cost no memory.
        if sum > 0 {
            series.add(self.bin, sum);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The multiply-and-correct quotient equals integer division for widths and times
    /// chosen to hit the edges: exact multiples, one below them, powers of two, and the
    /// largest values.
    /// Summed through `BinSum`, values land in the same bins as direct indexing,
    /// including on bin edges, in the last (shorter) bin and past the end.
    #[test]
    fn bin_sum_matches_direct_indexing() {
        let bins = Binning::new(SimTime(100), SimTime(450));
        let times = [0, 5, 99, 100, 100, 250, 399, 400, 449, 450, 1000];
        let mut direct = vec![0u64; bins.count];
        let mut summed = BinCounts::zeros(bins.count);
        let mut sum = BinSum::new(&bins);
        for (k, &t) in times.iter().enumerate() {
            direct[bins.index(SimTime(t))] += k as u64 + 1;
            sum.add(&bins, SimTime(t), k as u64 + 1, &mut summed);
        }
        sum.flush(&mut summed);
        assert_eq!(summed.iter().collect::<Vec<_>>(), direct);
        assert_eq!(direct, vec![6, 9, 6, 7, 38]);
    }

    #[test]
    fn index_equals_integer_division() {
        let widths = [
            1,
            2,
            3,
            7,
            1_000,
            1_000_000,
            100_000_000,
            999_999_937,
            1 << 32,
            (1 << 40) + 1,
            u64::MAX / 3,
            u64::MAX,
        ];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for &w in &widths {
            let b = Binning::new(SimTime(w), SimTime(u64::MAX));
            let mut times = vec![0, 1, w - 1, w, w.saturating_add(1), u64::MAX, u64::MAX - 1];
            for k in [2u64, 3, 1000, 123_456_789] {
                if let Some(m) = w.checked_mul(k) {
                    times.extend([m - 1, m, m.saturating_add(1)]);
                }
            }
            for _ in 0..10_000 {
                // splitmix64: a spread of times independent of the code under test
                x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = x;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                times.push(z ^ (z >> 31));
            }
            for t in times {
                assert_eq!(b.quotient(t), t / w, "t = {t}, width = {w}");
            }
        }
    }
}
