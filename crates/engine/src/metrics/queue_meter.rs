//! Time-weighted queue occupancy: overall and per bin, in packets and bytes.
//!
//! A queue changes length on every arrival and departure, so the meter's per-change
//! work is kept to a few integer operations: the running integrals of length over
//! time (exact, in u128) and the current bin's maxima. A bin's mean is the growth of
//! the integral across it, written once when the bin is left.

use super::bin_counts::BinCounts;
use super::bins::Binning;
use crate::time::SimTime;

/// Integrates a queue's length over time.
///
/// Laid out by hand (`repr(C)`): what every change of length touches first, the bin
/// boundaries' state and the series after (see [`crate::net::channel::Channel`]).
#[derive(Debug, Clone)]
#[repr(C)]
pub struct QueueMeter {
    /// Time up to which the integrals are complete.
    last: SimTime,
    /// Current length.
    packets: u64,
    bytes: u64,
    /// The bin holding `last`, and where it ends.
    bin: usize,
    bin_end: SimTime,
    /// The run's end (`bins.duration`, kept here because every change reads it).
    run_end: SimTime,
    /// ∫ length dt from 0 to `last`, in packet·ns and byte·ns.
    area_packets: u128,
    area_bytes: u128,
    /// Longest queue seen so far in the current bin / in the whole run.
    bin_max: (u64, u64),
    max: (u64, u64),
    bins: Binning,
    /// The integrals at the start of the current bin.
    bin_start_area: (u128, u128),
    bin_mean_packets: Vec<f32>,
    bin_mean_bytes: Vec<f32>,
    bin_max_packets: BinCounts,
    bin_max_bytes: BinCounts,
}

/// End-of-run occupancy figures.
#[derive(Debug, Clone)]
pub struct QueueOccupancy {
    /// Largest number of packets waiting.
    pub max_packets: u64,
    /// Largest number of bytes waiting.
    pub max_bytes: u64,
    /// Time-weighted mean packets waiting.
    pub mean_packets: f64,
    /// Time-weighted mean bytes waiting.
    pub mean_bytes: f64,
    /// Per bin: time-weighted mean packets (single precision, as the other per-bin
    /// samples: see [`crate::metrics::flow_meter::CongestionSeries`]).
    pub bin_mean_packets: Vec<f32>,
    /// Per bin: time-weighted mean bytes.
    pub bin_mean_bytes: Vec<f32>,
    /// Per bin: max packets.
    pub bin_max_packets: BinCounts,
    /// Per bin: max bytes.
    pub bin_max_bytes: BinCounts,
}

impl QueueMeter {
    /// A meter for an initially empty queue.
    pub fn new(bins: Binning) -> Self {
        QueueMeter {
            bins,
            last: SimTime::ZERO,
            packets: 0,
            bytes: 0,
            area_packets: 0,
            area_bytes: 0,
            bin: 0,
            bin_end: bins.end(0),
            run_end: bins.duration,
            bin_start_area: (0, 0),
            bin_max: (0, 0),
            max: (0, 0),
            bin_mean_packets: vec![0.0; bins.count],
            bin_mean_bytes: vec![0.0; bins.count],
            bin_max_packets: BinCounts::zeros(bins.count),
            bin_max_bytes: BinCounts::zeros(bins.count),
        }
    }

    /// Extends the integrals at the current length up to `t` (not past the bin end).
    fn integrate_to(&mut self, t: SimTime) {
        let dt = (t - self.last).as_ns() as u128;
        self.area_packets += self.packets as u128 * dt;
        self.area_bytes += self.bytes as u128 * dt;
        self.last = t;
    }

    /// Accounts the current length from the last change up to `now`, closing every
    /// bin passed on the way.
    fn advance(&mut self, now: SimTime) {
        let now = now.min(self.run_end);
        if now <= self.last {
            return;
        }
        while now >= self.bin_end && self.bin + 1 < self.bins.count {
            self.integrate_to(self.bin_end);
            self.close_bin();
            self.bin += 1;
            self.bin_end = self.bins.end(self.bin);
            self.bin_start_area = (self.area_packets, self.area_bytes);
            // The carried-over length counts towards the new bin's maximum only if it
            // lasts into it.
            self.bin_max = if now > self.last {
                (self.packets, self.bytes)
            } else {
                (0, 0)
            };
        }
        self.integrate_to(now);
    }

    /// Writes the current bin's mean and maximum. A bin whose queue stayed empty is
    /// not written: zero-filled pages never written cost no memory, and an idle
    /// link's series then cost none.
    fn close_bin(&mut self) {
        let i = self.bin;
        if self.bin_max == (0, 0) {
            return;
        }
        let ns = (self.bins.seconds(i) * 1e9).max(1.0);
        self.bin_mean_packets[i] = ((self.area_packets - self.bin_start_area.0) as f64 / ns) as f32;
        self.bin_mean_bytes[i] = ((self.area_bytes - self.bin_start_area.1) as f64 / ns) as f32;
        self.bin_max_packets.set(i, self.bin_max.0);
        self.bin_max_bytes.set(i, self.bin_max.1);
    }

    /// The queue now holds `packets` / `bytes`.
    pub fn set(&mut self, now: SimTime, packets: u64, bytes: u64) {
        self.advance(now);
        self.packets = packets;
        self.bytes = bytes;
        self.max = (self.max.0.max(packets), self.max.1.max(bytes));
        if now < self.run_end {
            self.bin_max = (self.bin_max.0.max(packets), self.bin_max.1.max(bytes));
        }
    }

    /// Closes the integrals at the end of the run.
    pub fn finish(&mut self) -> QueueOccupancy {
        self.advance(self.bins.duration);
        self.close_bin();
        let total_ns = self.bins.duration.as_ns().max(1) as f64;
        QueueOccupancy {
            max_packets: self.max.0,
            max_bytes: self.max.1,
            mean_packets: self.area_packets as f64 / total_ns,
            mean_bytes: self.area_bytes as f64 / total_ns,
            bin_mean_packets: std::mem::take(&mut self.bin_mean_packets),
            bin_mean_bytes: std::mem::take(&mut self.bin_mean_bytes),
            bin_max_packets: std::mem::take(&mut self.bin_max_packets),
            bin_max_bytes: std::mem::take(&mut self.bin_max_bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_weighted_mean_of_a_step_profile() {
        // 0 for 2 s, 4 packets for 1 s, 1 packet for 1 s: mean over 4 s = 5/4.
        let bins = Binning::new(SimTime::from_secs(1), SimTime::from_secs(4));
        let mut m = QueueMeter::new(bins);
        m.set(SimTime::from_secs(2), 4, 4000);
        m.set(SimTime::from_secs(3), 1, 1000);
        let occ = m.finish();
        assert!((occ.mean_packets - 1.25).abs() < 1e-12);
        assert_eq!(occ.max_packets, 4);
        assert_eq!(occ.bin_mean_packets, vec![0.0, 0.0, 4.0, 1.0]);
        assert_eq!(
            occ.bin_max_bytes.iter().collect::<Vec<_>>(),
            [0, 0, 4000, 1000]
        );
    }

    /// Changes within one bin, across several bins, and exactly on bin edges give
    /// the hand-computed per-bin means: 2 packets over [0.5, 2.5) s with 1 s bins, then
    /// 3 packets over [2.5, 3) s, then empty from 3 s exactly.
    #[test]
    fn spans_across_and_on_bin_edges() {
        let bins = Binning::new(SimTime::from_secs(1), SimTime::from_secs(4));
        let mut m = QueueMeter::new(bins);
        m.set(SimTime(500_000_000), 2, 2000);
        m.set(SimTime(2_500_000_000), 3, 3000);
        m.set(SimTime::from_secs(3), 0, 0);
        let occ = m.finish();
        assert_eq!(occ.bin_mean_packets, vec![1.0, 2.0, 2.5, 0.0]);
        assert_eq!(occ.bin_max_packets.iter().collect::<Vec<_>>(), [2, 2, 3, 0]);
        assert!((occ.mean_packets - (2.0 * 2.0 + 3.0 * 0.5) / 4.0).abs() < 1e-12);
    }
}
