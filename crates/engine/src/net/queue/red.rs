//! Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1993), with the options of ns-2's `REDQueue`
//! that the source studies rely on: gentle mode, the `wait` spacing of drops, idle-time
//! ageing of the average, and thresholds in packets or bytes.
//!
//! On every arrival (before the packet joins the queue):
//! 1. `avg ← (1 − w_q)^m · avg` if the link was idle, where m = idle time × link rate /
//!    (8 · mean packet size) is the number of packets that could have been sent;
//!    then `avg ← (1 − w_q) · avg + w_q · q` with q the current queue (packets or bytes).
//! 2. Below `min_th`: admit, `count ← −1`. Between `min_th` and `max_th`:
//!    `count ← count + 1`, `p_b = max_p (avg − min_th)/(max_th − min_th)`, drop with
//!    probability `p_a = p_b / (1 − count·p_b)` (or ns-2's `wait` variant), then
//!    `count ← 0` on a drop. Gentle mode continues linearly from `max_p` at `max_th` to 1
//!    at `2·max_th`; beyond (or beyond `max_th` without gentle) every arrival is dropped.
//! 3. Admitted packets still respect the hard limit (tail drop).

use super::{has_room, DropCause};
use crate::config::{Amount, RedConfig, SizeUnit};
use crate::rng::Rng;
use crate::time::SimTime;

/// RED admission state.
#[derive(Debug, Clone)]
pub struct Red {
    limit: Amount,
    min_th: f64,
    max_th: f64,
    in_bytes: bool,
    max_p: f64,
    w_q: f64,
    gentle: bool,
    wait: bool,
    /// Packets the link can send per second at the mean packet size (ns-2's `ptc`).
    packets_per_sec: f64,
    avg: f64,
    count: i64,
    idle_since: Option<SimTime>,
    rng: Rng,
}

impl Red {
    /// RED with the given parameters on a link of `link_rate_bps`.
    pub fn new(config: &RedConfig, link_rate_bps: u64, rng: Rng) -> Self {
        Red {
            limit: config.limit,
            min_th: config.min_th,
            max_th: config.max_th,
            in_bytes: config.thresholds_unit == SizeUnit::Bytes,
            max_p: config.max_p,
            w_q: config.w_q,
            gentle: config.gentle,
            wait: config.wait,
            packets_per_sec: link_rate_bps as f64 / (8.0 * config.mean_packet_bytes.max(1) as f64),
            avg: 0.0,
            count: -1,
            // The queue starts empty and idle, as in ns-2.
            idle_since: Some(SimTime::ZERO),
            rng,
        }
    }

    /// The current average queue (in the thresholds' unit).
    pub fn average(&self) -> f64 {
        self.avg
    }

    /// The link has been idle, with nothing queued, since `since`.
    pub fn on_idle(&mut self, since: SimTime) {
        self.idle_since = Some(since);
    }

    /// Step 1: update the average on an arrival seeing `queued` ahead of it.
    fn update_average(&mut self, now: SimTime, queued: f64) {
        if let Some(since) = self.idle_since.take() {
            let idle_s = (now - since).as_secs_f64();
            let m = (self.packets_per_sec * idle_s).floor();
            self.avg *= (1.0 - self.w_q).powf(m);
        }
        self.avg = (1.0 - self.w_q) * self.avg + self.w_q * queued;
    }

    /// Early-drop probability p_b before spacing, or `None` when the average forces a drop.
    fn base_probability(&self) -> Option<f64> {
        let avg = self.avg;
        if avg < self.max_th {
            Some(self.max_p * (avg - self.min_th) / (self.max_th - self.min_th))
        } else if self.gentle && avg < 2.0 * self.max_th {
            Some(self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th)
        } else {
            None
        }
    }

    /// Spreads drops out according to how many packets passed since the last one.
    fn spaced_probability(&self, p_b: f64) -> f64 {
        let c = self.count as f64;
        let p = if self.wait {
            if c * p_b < 1.0 {
                0.0
            } else if c * p_b < 2.0 {
                p_b / (2.0 - c * p_b)
            } else {
                1.0
            }
        } else if c * p_b < 1.0 {
            p_b / (1.0 - c * p_b)
        } else {
            1.0
        };
        p.clamp(0.0, 1.0)
    }

    /// Decides on an arriving packet of `size_bytes`, with the queue holding the given amounts.
    pub fn admit(
        &mut self,
        now: SimTime,
        len_packets: u64,
        len_bytes: u64,
        size_bytes: u32,
    ) -> Result<(), DropCause> {
        let queued = if self.in_bytes {
            len_bytes as f64
        } else {
            len_packets as f64
        };
        self.update_average(now, queued);
        if self.avg >= self.min_th {
            self.count += 1;
            let drop = match self.base_probability() {
                Some(p_b) => {
                    let p_a = self.spaced_probability(p_b);
                    self.rng.uniform() < p_a
                }
                None => true,
            };
            if drop {
                self.count = 0;
                return Err(DropCause::Red);
            }
        } else {
            self.count = -1;
        }
        if has_room(self.limit, len_packets, len_bytes, size_bytes) {
            Ok(())
        } else {
            Err(DropCause::Queue)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn red(min_th: f64, max_th: f64, w_q: f64) -> Red {
        let cfg = RedConfig {
            limit: Amount {
                value: 1000,
                unit: SizeUnit::Packets,
            },
            min_th,
            max_th,
            thresholds_unit: SizeUnit::Packets,
            max_p: 0.1,
            w_q,
            mean_packet_bytes: 1000,
            gentle: true,
            wait: true,
        };
        // 8 Mbps and 1000-byte packets: 1000 packets per second, so 1 ms idle = 1 packet.
        Red::new(&cfg, 8_000_000, Rng::for_component(1, "red"))
    }

    #[test]
    fn average_follows_the_ewma_of_the_instantaneous_queue() {
        let mut r = red(500.0, 900.0, 0.25);
        r.idle_since = None;
        let mut expected = 0.0_f64;
        for (i, q) in [4u64, 8, 8, 2, 0, 16].iter().enumerate() {
            r.admit(SimTime::from_ns(i as u64), *q, *q * 1000, 1000)
                .unwrap();
            expected = 0.75 * expected + 0.25 * *q as f64;
            assert!((r.average() - expected).abs() < 1e-12, "step {i}");
        }
    }

    #[test]
    fn idle_time_ages_the_average_by_the_packets_that_could_have_been_sent() {
        let mut r = red(500.0, 900.0, 0.5);
        r.idle_since = None;
        r.admit(SimTime::ZERO, 8, 8000, 1000).unwrap(); // avg = 4
        r.on_idle(SimTime::from_ms(1));
        // 3 ms idle at 1000 pkt/s = 3 packet times: avg = 4 * 0.5^3 = 0.5, then EWMA with q=0.
        r.admit(SimTime::from_ms(4), 0, 0, 1000).unwrap();
        assert!((r.average() - 0.25).abs() < 1e-12, "avg {}", r.average());
    }

    #[test]
    fn average_below_min_th_never_drops() {
        let mut r = red(5.0, 15.0, 0.002);
        for i in 0..1000 {
            assert_eq!(r.admit(SimTime::from_ns(i), 4, 4000, 1000), Ok(()));
        }
    }

    #[test]
    fn average_beyond_twice_max_th_in_gentle_mode_always_drops() {
        let mut r = red(1.0, 2.0, 1.0); // w_q = 1: avg = instantaneous queue
        assert_eq!(r.admit(SimTime::ZERO, 4, 4000, 1000), Err(DropCause::Red));
        assert_eq!(r.admit(SimTime::ZERO, 5, 5000, 1000), Err(DropCause::Red));
    }

    #[test]
    fn early_drop_rate_matches_the_spaced_probability() {
        // Constant avg in the linear region: p_b = 0.1 * (10-5)/(15-5) = 0.05. With `wait`,
        // the c-th arrival after a drop is dropped with hazard p_b/(2 - c p_b) = 1/(40 - c)
        // for c = 20..39, i.e. the gap is uniform on {20, ..., 39}: mean 29.5, sd 5.77.
        // Over ~10,000 gaps the sample mean has sd ~0.06; allow 5 sigma.
        let mut r = red(5.0, 15.0, 1.0);
        r.idle_since = None;
        let n = 300_000;
        let drops = (0..n)
            .filter(|_| r.admit(SimTime::ZERO, 10, 10_000, 1000).is_err())
            .count();
        let gap = n as f64 / drops as f64;
        assert!((gap - 29.5).abs() < 0.3, "mean gap {gap}");
    }
}
