//! Random loss on a link direction, applied to each packet after it is serialized
//! (the link carried it and spent the time; the receiver never sees it), like an ns-2
//! ErrorModel attached to a link.

use crate::config::LossConfig;
use crate::rng::Rng;

/// A loss model with its own random stream.
#[derive(Debug, Clone)]
pub enum LossModel {
    /// Nothing is lost.
    None,
    /// Independent loss with probability `rate` per packet.
    Bernoulli {
        /// Loss probability.
        rate: f64,
        /// Private random stream.
        rng: Rng,
    },
    /// Two-state Markov chain, stepped once per packet before the loss draw.
    GilbertElliott {
        /// P(good -> bad).
        p_good_to_bad: f64,
        /// P(bad -> good).
        p_bad_to_good: f64,
        /// Loss probability while good.
        loss_good: f64,
        /// Loss probability while bad.
        loss_bad: f64,
        /// Current state.
        bad: bool,
        /// Private random stream.
        rng: Rng,
    },
    /// Drops the listed packet numbers (1-based, ascending).
    List {
        /// Packet numbers to drop.
        packets: Vec<u64>,
        /// Index of the next number to drop.
        next: usize,
        /// Packets seen so far.
        seen: u64,
    },
    /// Drops packets offset+n, offset+2n, ... counted from 1.
    EveryNth {
        /// Period.
        n: u64,
        /// Packets let through before counting starts.
        offset: u64,
        /// Packets seen so far.
        seen: u64,
    },
}

impl LossModel {
    /// The model described by `config`, drawing from `rng`.
    pub fn new(config: &LossConfig, rng: Rng) -> Self {
        match *config {
            LossConfig::None => LossModel::None,
            LossConfig::Bernoulli { rate } => LossModel::Bernoulli { rate, rng },
            LossConfig::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            } => LossModel::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
                bad: false,
                rng,
            },
            LossConfig::EveryNth { n, offset } => LossModel::EveryNth { n, offset, seen: 0 },
            LossConfig::List { ref packets } => LossModel::List {
                packets: packets.clone(),
                next: 0,
                seen: 0,
            },
        }
    }

    /// Decides the fate of the next packet: `true` means lost.
    pub fn lose(&mut self) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { rate, rng } => rng.bernoulli(*rate),
            LossModel::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
                bad,
                rng,
            } => {
                let flip = if *bad { *p_bad_to_good } else { *p_good_to_bad };
                if rng.bernoulli(flip) {
                    *bad = !*bad;
                }
                rng.bernoulli(if *bad { *loss_bad } else { *loss_good })
            }
            LossModel::List {
                packets,
                next,
                seen,
            } => {
                *seen += 1;
                let hit = packets.get(*next) == Some(seen);
                if hit {
                    *next += 1;
                }
                hit
            }
            LossModel::EveryNth { n, offset, seen } => {
                *seen += 1;
                *seen > *offset && (*seen - *offset) % *n == 0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_nth_drops_exactly_the_nth_packets() {
        let mut m = LossModel::new(
            &LossConfig::EveryNth { n: 3, offset: 1 },
            Rng::for_component(0, "x"),
        );
        let lost: Vec<bool> = (0..8).map(|_| m.lose()).collect();
        // Packet 1 passes (offset), then every 3rd of the rest: packets 4 and 7.
        assert_eq!(lost, [false, false, false, true, false, false, true, false]);
    }

    #[test]
    fn list_drops_exactly_the_listed_packets() {
        let mut m = LossModel::new(
            &LossConfig::List {
                packets: vec![2, 3, 6],
            },
            Rng::for_component(0, "x"),
        );
        let lost: Vec<bool> = (0..7).map(|_| m.lose()).collect();
        assert_eq!(lost, [false, true, true, false, false, true, false]);
    }

    #[test]
    fn gilbert_elliott_long_run_loss_matches_the_stationary_distribution() {
        // pi_bad = p_gb / (p_gb + p_bg) = 0.01 / 0.11; loss = pi_bad * 1.0 + pi_good * 0.0.
        let mut m = LossModel::new(
            &LossConfig::GilbertElliott {
                p_good_to_bad: 0.01,
                p_bad_to_good: 0.1,
                loss_good: 0.0,
                loss_bad: 1.0,
            },
            Rng::for_component(3, "ge"),
        );
        let n = 2_000_000;
        let lost = (0..n).filter(|_| m.lose()).count() as f64 / n as f64;
        let expected = 0.01 / 0.11;
        assert!(
            (lost - expected).abs() < 0.05 * expected,
            "loss {lost} vs {expected}"
        );
    }

    #[test]
    fn gilbert_elliott_losses_come_in_bursts() {
        // Mean burst length in the bad state is 1/p_bg = 10 packets.
        let mut m = LossModel::new(
            &LossConfig::GilbertElliott {
                p_good_to_bad: 0.01,
                p_bad_to_good: 0.1,
                loss_good: 0.0,
                loss_bad: 1.0,
            },
            Rng::for_component(4, "ge"),
        );
        let (mut bursts, mut lost, mut prev) = (0u64, 0u64, false);
        for _ in 0..2_000_000 {
            let l = m.lose();
            if l && !prev {
                bursts += 1;
            }
            lost += l as u64;
            prev = l;
        }
        let mean_burst = lost as f64 / bursts as f64;
        assert!((mean_burst - 10.0).abs() < 0.5, "mean burst {mean_burst}");
    }
}
