//! Fixed-width time bins shared by every time series of a run.

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
}

impl Binning {
    /// Bins of `width` covering `duration`.
    pub fn new(width: SimTime, duration: SimTime) -> Self {
        let count = duration.as_ns().div_ceil(width.as_ns().max(1)).max(1) as usize;
        Binning {
            width,
            count,
            duration,
        }
    }

    /// The bin holding time `t` (times at or past the end fall in the last bin).
    pub fn index(&self, t: SimTime) -> usize {
        ((t.as_ns() / self.width.as_ns()) as usize).min(self.count - 1)
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
