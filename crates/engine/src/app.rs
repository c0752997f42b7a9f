//! Applications that generate datagrams: constant bit rate, Poisson, and on/off.
//!
//! A source only answers "when is the next packet, and how big": it is driven by the
//! transport endpoint that owns it, so the same sources can feed UDP now and, as
//! message sources, other transports later.

use crate::config::AppConfig;
use crate::rng::Rng;
use crate::time::SimTime;

#[derive(Debug, Clone)]
enum Pattern {
    /// Packet k at start + k·bits/rate (computed from k to avoid drift).
    Constant { start: SimTime, k: u64 },
    /// Exponential gaps with the given mean.
    Poisson { mean_gap_ns: f64 },
    /// CBR during on periods, silence during off periods.
    OnOff {
        on_ns: u64,
        off_ns: u64,
        exponential: bool,
        period_start: SimTime,
        period_end: SimTime,
        k: u64,
    },
}

/// A datagram traffic generator.
#[derive(Debug, Clone)]
pub struct DatagramSource {
    pattern: Pattern,
    rate_bps: u64,
    payload_bytes: u32,
    next: Option<SimTime>,
    stop: SimTime,
    rng: Rng,
}

/// Offset of packet `k` from the start of a CBR train, rounded to the nearest ns.
fn cbr_offset(k: u64, payload_bytes: u32, rate_bps: u64) -> SimTime {
    let bits_ns = k as u128 * payload_bytes as u128 * 8 * 1_000_000_000;
    let rate = rate_bps.max(1) as u128;
    SimTime(((bits_ns + rate / 2) / rate) as u64)
}

impl DatagramSource {
    /// A source sending from `start` until `stop` (exclusive); `rng` is the flow's stream.
    pub fn new(config: &AppConfig, start: SimTime, stop: SimTime, mut rng: Rng) -> Self {
        let (pattern, rate_bps, payload_bytes) = match *config {
            AppConfig::Cbr {
                rate_bps,
                payload_bytes,
            } => (Pattern::Constant { start, k: 0 }, rate_bps, payload_bytes),
            AppConfig::Poisson {
                rate_bps,
                payload_bytes,
            } => {
                let mean_gap_ns = payload_bytes as f64 * 8e9 / rate_bps.max(1) as f64;
                (Pattern::Poisson { mean_gap_ns }, rate_bps, payload_bytes)
            }
            AppConfig::OnOff {
                rate_bps,
                payload_bytes,
                on_ns,
                off_ns,
                exponential,
            } => {
                let first_on = Self::period(on_ns, exponential, &mut rng);
                let pattern = Pattern::OnOff {
                    on_ns,
                    off_ns,
                    exponential,
                    period_start: start,
                    period_end: start.saturating_add(first_on),
                    k: 0,
                };
                (pattern, rate_bps, payload_bytes)
            }
        };
        let mut src = DatagramSource {
            pattern,
            rate_bps,
            payload_bytes,
            next: Some(start),
            stop,
            rng,
        };
        if let Pattern::Poisson { mean_gap_ns } = src.pattern {
            // The first arrival of a Poisson process comes after an exponential gap too.
            let gap = SimTime(src.rng.exponential(mean_gap_ns).round() as u64);
            src.next = Some(start.saturating_add(gap));
        }
        src.clip();
        src
    }

    fn period(mean_ns: u64, exponential: bool, rng: &mut Rng) -> SimTime {
        if exponential {
            SimTime(rng.exponential(mean_ns as f64).round() as u64)
        } else {
            SimTime(mean_ns)
        }
    }

    fn clip(&mut self) {
        if self.next.is_some_and(|t| t >= self.stop) {
            self.next = None;
        }
    }

    /// Payload bytes of every packet.
    pub fn payload_bytes(&self) -> u32 {
        self.payload_bytes
    }

    /// When the next packet is due (`None`: the source has finished).
    pub fn next_time(&self) -> Option<SimTime> {
        self.next
    }

    /// Consumes the due packet and moves to the next one.
    pub fn advance(&mut self) {
        let Some(now) = self.next else { return };
        let (rate, size) = (self.rate_bps, self.payload_bytes);
        self.next = match &mut self.pattern {
            Pattern::Constant { start, k } => {
                *k += 1;
                Some(*start + cbr_offset(*k, size, rate))
            }
            Pattern::Poisson { mean_gap_ns } => {
                let gap = self.rng.exponential(*mean_gap_ns).round() as u64;
                Some(now.saturating_add(SimTime(gap)))
            }
            Pattern::OnOff {
                on_ns,
                off_ns,
                exponential,
                period_start,
                period_end,
                k,
            } => {
                *k += 1;
                let mut t = *period_start + cbr_offset(*k, size, rate);
                // Skip whole off periods (and on periods too short for a packet).
                while t >= *period_end {
                    let off = Self::period(*off_ns, *exponential, &mut self.rng);
                    let on = Self::period(*on_ns, *exponential, &mut self.rng);
                    *period_start = period_end.saturating_add(off);
                    *period_end = period_start.saturating_add(on);
                    *k = 0;
                    t = *period_start;
                    if t >= self.stop {
                        break;
                    }
                }
                Some(t)
            }
        };
        self.clip();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(src: &mut DatagramSource, n: usize) -> Vec<u64> {
        let mut v = Vec::new();
        while let Some(t) = src.next_time() {
            if v.len() == n {
                break;
            }
            v.push(t.as_ns());
            src.advance();
        }
        v
    }

    #[test]
    fn cbr_sends_at_exact_multiples_of_the_interval() {
        let cfg = AppConfig::Cbr {
            rate_bps: 8_000_000,
            payload_bytes: 1000,
        }; // 1 ms apart
        let mut s = DatagramSource::new(
            &cfg,
            SimTime::from_ms(5),
            SimTime::from_ms(9),
            Rng::for_component(0, "f"),
        );
        assert_eq!(
            times(&mut s, 100),
            vec![5_000_000, 6_000_000, 7_000_000, 8_000_000]
        );
    }

    #[test]
    fn constant_on_off_sends_only_while_on() {
        // 1 ms per packet; on 3 ms, off 2 ms: packets at 0,1,2 then 5,6,7 then 10.
        let cfg = AppConfig::OnOff {
            rate_bps: 8_000_000,
            payload_bytes: 1000,
            on_ns: 3_000_000,
            off_ns: 2_000_000,
            exponential: false,
        };
        let mut s = DatagramSource::new(
            &cfg,
            SimTime::ZERO,
            SimTime::from_ms(11),
            Rng::for_component(0, "f"),
        );
        let ms: Vec<u64> = times(&mut s, 100).iter().map(|t| t / 1_000_000).collect();
        assert_eq!(ms, vec![0, 1, 2, 5, 6, 7, 10]);
    }

    #[test]
    fn poisson_rate_matches_on_average() {
        let cfg = AppConfig::Poisson {
            rate_bps: 8_000_000,
            payload_bytes: 1000,
        }; // 1000 pkt/s
        let mut s = DatagramSource::new(
            &cfg,
            SimTime::ZERO,
            SimTime::from_secs(100),
            Rng::for_component(9, "p"),
        );
        let n = times(&mut s, usize::MAX).len() as f64;
        // Poisson count over 100 s with mean 100,000: sd ~316; allow 5 sigma.
        assert!((n - 100_000.0).abs() < 1600.0, "{n} packets");
    }
}
