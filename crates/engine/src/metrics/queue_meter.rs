//! Time-weighted queue occupancy: overall and per bin, in packets and bytes.

use super::bins::Binning;
use crate::time::SimTime;

/// Integrates a queue's length over time.
#[derive(Debug, Clone)]
pub struct QueueMeter {
    bins: Binning,
    last: SimTime,
    /// The bin holding `last`, and where it ends: most changes fall in the same bin,
    /// and then need no bin arithmetic.
    bin: usize,
    bin_end: SimTime,
    packets: u64,
    bytes: u64,
    max_packets: u64,
    max_bytes: u64,
    area_packets: u128,
    area_bytes: u128,
    bin_area_packets: Vec<f64>,
    bin_area_bytes: Vec<f64>,
    bin_max_packets: Vec<u64>,
    bin_max_bytes: Vec<u64>,
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
    /// Per bin: time-weighted mean packets.
    pub bin_mean_packets: Vec<f64>,
    /// Per bin: time-weighted mean bytes.
    pub bin_mean_bytes: Vec<f64>,
    /// Per bin: max packets.
    pub bin_max_packets: Vec<u64>,
    /// Per bin: max bytes.
    pub bin_max_bytes: Vec<u64>,
}

impl QueueMeter {
    /// A meter for an initially empty queue.
    pub fn new(bins: Binning) -> Self {
        QueueMeter {
            bins,
            last: SimTime::ZERO,
            bin: 0,
            bin_end: bins.end(0),
            packets: 0,
            bytes: 0,
            max_packets: 0,
            max_bytes: 0,
            area_packets: 0,
            area_bytes: 0,
            bin_area_packets: vec![0.0; bins.count],
            bin_area_bytes: vec![0.0; bins.count],
            bin_max_packets: vec![0; bins.count],
            bin_max_bytes: vec![0; bins.count],
        }
    }

    /// Accounts the current level from the last change up to `now`.
    fn advance(&mut self, now: SimTime) {
        let now = now.min(self.bins.duration);
        if now <= self.last {
            return;
        }
        let (p, b) = (self.packets, self.bytes);
        if p > 0 {
            let dt = (now - self.last).as_ns();
            self.area_packets += p as u128 * dt as u128;
            self.area_bytes += b as u128 * dt as u128;
            if now < self.bin_end {
                self.add_to_bin(self.bin, dt, p, b);
            } else {
                let mut t = self.last;
                while t < now {
                    let i = self.bins.index(t);
                    let end = self.bins.end(i).min(now);
                    if end == t {
                        break;
                    }
                    self.add_to_bin(i, (end - t).as_ns(), p, b);
                    t = end;
                }
            }
        }
        self.last = now;
        if now >= self.bin_end {
            self.bin = self.bins.index(now);
            self.bin_end = self.bins.end(self.bin);
        }
    }

    /// `p` packets and `b` bytes waited for `span_ns` within bin `i`.
    fn add_to_bin(&mut self, i: usize, span_ns: u64, p: u64, b: u64) {
        let span = span_ns as f64;
        self.bin_area_packets[i] += p as f64 * span;
        self.bin_area_bytes[i] += b as f64 * span;
        self.bin_max_packets[i] = self.bin_max_packets[i].max(p);
        self.bin_max_bytes[i] = self.bin_max_bytes[i].max(b);
    }

    /// The queue now holds `packets` / `bytes`.
    pub fn set(&mut self, now: SimTime, packets: u64, bytes: u64) {
        self.advance(now);
        self.packets = packets;
        self.bytes = bytes;
        self.max_packets = self.max_packets.max(packets);
        self.max_bytes = self.max_bytes.max(bytes);
        if now < self.bins.duration {
            // advance() left `bin` holding max(now, last), and `now` is never earlier.
            let i = self.bin;
            self.bin_max_packets[i] = self.bin_max_packets[i].max(packets);
            self.bin_max_bytes[i] = self.bin_max_bytes[i].max(bytes);
        }
    }

    /// Closes the integrals at the end of the run.
    pub fn finish(&mut self) -> QueueOccupancy {
        self.advance(self.bins.duration);
        let total_ns = self.bins.duration.as_ns().max(1) as f64;
        let per_bin = |areas: &[f64]| -> Vec<f64> {
            areas
                .iter()
                .enumerate()
                .map(|(i, a)| a / (self.bins.seconds(i) * 1e9).max(1.0))
                .collect()
        };
        QueueOccupancy {
            max_packets: self.max_packets,
            max_bytes: self.max_bytes,
            mean_packets: self.area_packets as f64 / total_ns,
            mean_bytes: self.area_bytes as f64 / total_ns,
            bin_mean_packets: per_bin(&self.bin_area_packets),
            bin_mean_bytes: per_bin(&self.bin_area_bytes),
            bin_max_packets: self.bin_max_packets.clone(),
            bin_max_bytes: self.bin_max_bytes.clone(),
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
        assert_eq!(occ.bin_max_bytes, vec![0, 0, 4000, 1000]);
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
        assert_eq!(occ.bin_max_packets, vec![2, 2, 3, 0]);
        assert!((occ.mean_packets - (2.0 * 2.0 + 3.0 * 0.5) / 4.0).abs() < 1e-12);
    }
}
