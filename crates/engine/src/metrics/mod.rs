//! Measurements taken inside the engine while it runs. Every meter is sized by
//! flows × bins (or links × bins) when the run starts; nothing grows per packet.

pub mod bin_counts;
pub mod bins;
pub mod flow_meter;
pub mod histogram;
pub mod probe;
pub mod queue_meter;

pub use bin_counts::BinCounts;
pub use bins::{BinSum, Binning};
pub use flow_meter::FlowMeter;
pub use histogram::Histogram;
pub use probe::Probe;
pub use queue_meter::{QueueMeter, QueueOccupancy};

/// Why a packet was dropped.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// The queue was full (tail drop, or RED's hard limit).
    Queue,
    /// RED dropped it early (probabilistic or forced by the average queue).
    Red,
    /// The link's loss model lost it.
    Random,
}

impl DropCause {
    /// Index into per-cause counter arrays: queue, red, random.
    pub fn index(self) -> usize {
        match self {
            DropCause::Queue => 0,
            DropCause::Red => 1,
            DropCause::Random => 2,
        }
    }
}

/// Jain's fairness index (Σx)² / (n·Σx²) of non-negative allocations: 1 when all are
/// equal, 1/n when one takes everything. `None` for an empty set or all zeros.
pub fn jain_index(xs: &[f64]) -> Option<f64> {
    let n = xs.len() as f64;
    let sum: f64 = xs.iter().sum();
    let sum_sq: f64 = xs.iter().map(|x| x * x).sum();
    (n > 0.0 && sum_sq > 0.0).then(|| sum * sum / (n * sum_sq))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_of_equal_shares_is_one_and_of_a_monopoly_is_one_over_n() {
        assert_eq!(jain_index(&[3.0, 3.0, 3.0]), Some(1.0));
        assert_eq!(jain_index(&[5.0, 0.0, 0.0, 0.0]), Some(0.25));
        assert_eq!(jain_index(&[]), None);
        // (1+2)^2 / (2 * (1+4)) = 0.9
        assert!((jain_index(&[1.0, 2.0]).unwrap() - 0.9).abs() < 1e-12);
    }
}
