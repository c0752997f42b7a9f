//! Applications: datagram sources (constant bit rate, Poisson, on/off) for UDP, and
//! byte-stream sources (bulk, file, rate-limited) for TCP.
//!
//! A source only answers "when is the next packet, and how big" or "how many bytes
//! has the application written by now": it is driven by the transport endpoint that
//! owns it and never schedules anything itself.

use crate::config::AppConfig;
use crate::rng::Rng;
use crate::time::{round_ns, SimTime};

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
            AppConfig::Bulk | AppConfig::File { .. } | AppConfig::RateLimited { .. } => {
                // Validation never pairs a stream application with a datagram transport;
                // should it happen, the source is silent rather than a panic.
                let pattern = Pattern::Poisson { mean_gap_ns: 1.0 };
                return DatagramSource {
                    pattern,
                    rate_bps: 1,
                    payload_bytes: 1,
                    next: None,
                    stop,
                    rng,
                };
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
            let gap = SimTime(round_ns(src.rng.exponential(mean_gap_ns)));
            src.next = Some(start.saturating_add(gap));
        }
        src.clip();
        src
    }

    fn period(mean_ns: u64, exponential: bool, rng: &mut Rng) -> SimTime {
        if exponential {
            SimTime(round_ns(rng.exponential(mean_ns as f64)))
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
                let gap = round_ns(self.rng.exponential(*mean_gap_ns));
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

/// A byte-stream application: how much it has written by a given time.
#[derive(Debug, Clone)]
pub struct ByteSource {
    start: SimTime,
    stop: SimTime,
    rate_bps: Option<u64>,
    total: Option<u64>,
}

impl ByteSource {
    /// The stream application described by `config`, active from `start` to `stop`.
    pub fn new(config: &AppConfig, start: SimTime, stop: SimTime) -> Self {
        let (rate_bps, total) = match *config {
            AppConfig::File { size_bytes } => (None, Some(size_bytes)),
            AppConfig::RateLimited {
                rate_bps,
                size_bytes,
            } => (Some(rate_bps), size_bytes),
            _ => (None, None),
        };
        ByteSource {
            start,
            stop,
            rate_bps,
            total,
        }
    }

    /// Whether the application writes without limit until it stops (bulk).
    pub fn unlimited(&self) -> bool {
        self.rate_bps.is_none() && self.total.is_none()
    }

    /// When the application starts writing.
    pub fn start(&self) -> SimTime {
        self.start
    }

    /// Bytes written by the application up to `now` (`u64::MAX`: unlimited).
    pub fn written_by(&self, now: SimTime) -> u64 {
        if now < self.start {
            return 0;
        }
        let produced = match self.rate_bps {
            None => u64::MAX,
            Some(rate) => {
                let t = (now.min(self.stop) - self.start).as_ns() as u128;
                (t * rate as u128 / 8_000_000_000) as u64
            }
        };
        produced.min(self.total.unwrap_or(u64::MAX))
    }

    /// Whether the application has stopped writing for good at `now` (all written,
    /// or past its stop time): the transport may close the connection.
    pub fn finished(&self, now: SimTime) -> bool {
        now >= self.stop || self.total.is_some_and(|t| self.written_by(now) >= t)
    }

    /// When at least `bytes` will have been written, if ever (rate-limited sources).
    pub fn time_written(&self, bytes: u64) -> Option<SimTime> {
        let rate = self.rate_bps?;
        if self.total.is_some_and(|t| bytes > t) {
            return None;
        }
        let ns = (bytes as u128 * 8_000_000_000).div_ceil(rate.max(1) as u128);
        let t = self
            .start
            .saturating_add(SimTime(ns.min(u64::MAX as u128) as u64));
        (t < self.stop).then_some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_limited_source_writes_at_its_rate() {
        let cfg = AppConfig::RateLimited {
            rate_bps: 8_000_000,
            size_bytes: None,
        }; // 1 byte/us
        let s = ByteSource::new(&cfg, SimTime::from_ms(1), SimTime::from_secs(10));
        assert_eq!(s.written_by(SimTime::from_ms(1)), 0);
        assert_eq!(s.written_by(SimTime::from_ms(3)), 2000);
        assert_eq!(s.time_written(2000), Some(SimTime::from_ms(3)));
        let file = ByteSource::new(
            &AppConfig::File { size_bytes: 5 },
            SimTime::ZERO,
            SimTime::from_secs(1),
        );
        assert_eq!(file.written_by(SimTime::from_ms(1)), 5);
        assert!(file.finished(SimTime::ZERO));
    }

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
