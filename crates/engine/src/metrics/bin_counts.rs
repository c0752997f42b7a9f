//! Per-bin counts stored in the narrowest unsigned width that has held every value so
//! far: a run's series are its largest allocation, and most per-bin counts (packets,
//! drops, queue lengths, even bytes in short bins) fit in one or two bytes.

use serde::{Serialize, Serializer};

/// A per-bin count series that starts at one byte per bin and widens (u8 → u16 → u32 →
/// u64, copying the series once per step) the first time a value does not fit. Values
/// are exact: nothing is ever truncated.
#[derive(Debug, Clone, PartialEq)]
pub enum BinCounts {
    /// Every value so far below 2^8.
    U8(Vec<u8>),
    /// Every value so far below 2^16.
    U16(Vec<u16>),
    /// Every value so far below 2^32.
    U32(Vec<u32>),
    /// Any value.
    U64(Vec<u64>),
}

impl Default for BinCounts {
    fn default() -> Self {
        BinCounts::U8(Vec::new())
    }
}

/// The narrowest variant's rank (0: u8 … 3: u64) that holds `v`.
fn rank_of(v: u64) -> u8 {
    match v {
        0..=0xFF => 0,
        0x100..=0xFFFF => 1,
        0x1_0000..=0xFFFF_FFFF => 2,
        _ => 3,
    }
}

impl BinCounts {
    /// `bins` zeros, one byte each (zero-filled memory: untouched bins cost no RSS).
    pub fn zeros(bins: usize) -> Self {
        BinCounts::U8(vec![0; bins])
    }

    /// Number of bins.
    pub fn len(&self) -> usize {
        match self {
            BinCounts::U8(v) => v.len(),
            BinCounts::U16(v) => v.len(),
            BinCounts::U32(v) => v.len(),
            BinCounts::U64(v) => v.len(),
        }
    }

    /// Whether there are no bins.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per bin of the current width.
    pub fn width_bytes(&self) -> usize {
        1 << self.rank()
    }

    fn rank(&self) -> u8 {
        match self {
            BinCounts::U8(_) => 0,
            BinCounts::U16(_) => 1,
            BinCounts::U32(_) => 2,
            BinCounts::U64(_) => 3,
        }
    }

    /// The count of bin `i`.
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        match self {
            BinCounts::U8(v) => v[i] as u64,
            BinCounts::U16(v) => v[i] as u64,
            BinCounts::U32(v) => v[i] as u64,
            BinCounts::U64(v) => v[i],
        }
    }

    /// Sets bin `i` to `value`, widening the series first if it does not fit.
    #[inline]
    pub fn set(&mut self, i: usize, value: u64) {
        if !self.try_set(i, value) {
            self.widen_to(rank_of(value));
            self.try_set(i, value);
        }
    }

    /// Stores `value` in bin `i` if it fits the current width (the common case, kept
    /// small enough to inline into the per-drop paths).
    #[inline]
    fn try_set(&mut self, i: usize, value: u64) -> bool {
        // Each arm's cast is exact: the value fits the width it is stored in.
        match self {
            BinCounts::U8(v) if value <= u8::MAX as u64 => v[i] = value as u8,
            BinCounts::U16(v) if value <= u16::MAX as u64 => v[i] = value as u16,
            BinCounts::U32(v) if value <= u32::MAX as u64 => v[i] = value as u32,
            BinCounts::U64(v) => v[i] = value,
            _ => return false,
        }
        true
    }

    /// Adds `value` to bin `i` (saturating at 2^64 − 1).
    #[inline]
    pub fn add(&mut self, i: usize, value: u64) {
        self.set(i, self.get(i).saturating_add(value));
    }

    /// Every bin's count, in order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The largest count (0 when empty).
    pub fn max(&self) -> u64 {
        fn max_of<T: Copy + Into<u64>>(v: &[T]) -> u64 {
            v.iter().map(|&x| x.into()).max().unwrap_or(0)
        }
        match self {
            BinCounts::U8(v) => max_of(v),
            BinCounts::U16(v) => max_of(v),
            BinCounts::U32(v) => max_of(v),
            BinCounts::U64(v) => max_of(v),
        }
    }

    /// Re-stores the series at `rank` (0: u8 … 3: u64) if that is wider than now.
    #[cold]
    fn widen_to(&mut self, rank: u8) {
        if rank <= self.rank() {
            return;
        }
        *self = std::mem::take(self).stored_at(rank);
    }

    /// The series stored at exactly the width `max` needs (moved when it already has
    /// it): for putting several series in one column of a common width. `max` must be
    /// at least [`BinCounts::max`]; a narrower width would truncate.
    pub fn stored_for(self, max: u64) -> Self {
        debug_assert!(max >= self.max());
        self.stored_at(rank_of(max))
    }

    /// The series re-stored at `rank` (0: u8 … 3: u64), moved when it has it already.
    fn stored_at(self, rank: u8) -> Self {
        if rank == self.rank() {
            return self;
        }
        let values = self.iter();
        match rank {
            0 => BinCounts::U8(values.map(|x| x as u8).collect()),
            1 => BinCounts::U16(values.map(|x| x as u16).collect()),
            2 => BinCounts::U32(values.map(|x| x as u32).collect()),
            _ => BinCounts::U64(values.collect()),
        }
    }
}

impl From<Vec<u64>> for BinCounts {
    fn from(values: Vec<u64>) -> Self {
        BinCounts::U64(values)
    }
}

impl Serialize for BinCounts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values at every width boundary survive exactly, each widening happens the first
    /// time a value needs it, and the other bins keep their values across it.
    #[test]
    fn widens_exactly_at_each_boundary_and_keeps_earlier_bins() {
        let mut c = BinCounts::zeros(4);
        c.set(0, 7);
        assert_eq!(c.width_bytes(), 1);
        let steps: [(u64, usize); 7] = [
            (255, 1),
            (256, 2),
            (65_535, 2),
            (65_536, 4),
            (4_294_967_295, 4),
            (4_294_967_296, 8),
            (u64::MAX, 8),
        ];
        for (value, width) in steps {
            c.set(1, value);
            assert_eq!((c.get(1), c.width_bytes()), (value, width), "value {value}");
            assert_eq!(c.get(0), 7);
        }
        assert_eq!(c.iter().collect::<Vec<_>>(), [7, u64::MAX, 0, 0]);
        assert_eq!(c.max(), u64::MAX);
    }

    /// Adding across the u8 and u16 limits widens rather than wraps; adding to the
    /// largest value saturates.
    #[test]
    fn sums_carry_past_each_width() {
        let mut c = BinCounts::zeros(2);
        for _ in 0..300 {
            c.add(0, 1);
        }
        assert_eq!((c.get(0), c.width_bytes()), (300, 2));
        c.add(1, 70_000);
        assert_eq!((c.get(1), c.width_bytes()), (70_000, 4));
        c.set(1, u64::MAX - 1);
        c.add(1, 5);
        assert_eq!(c.get(1), u64::MAX);
    }

    #[test]
    fn stored_for_takes_the_width_of_a_columns_maximum_both_ways() {
        let c = BinCounts::zeros(3).stored_for(1 << 20);
        assert_eq!(c.width_bytes(), 4);
        assert_eq!(serde_json::to_string(&c).unwrap(), "[0,0,0]");
        let c = BinCounts::from(vec![3, 200, 0]).stored_for(255);
        assert_eq!(c, BinCounts::U8(vec![3, 200, 0]));
    }
}
