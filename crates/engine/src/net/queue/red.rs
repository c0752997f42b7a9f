//! Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1993) as ns-2.35's `REDQueue` runs it
//! (`queue/red.cc`, with the defaults of `tcl/lib/ns-default.tcl`): gentle mode, the
//! `wait` spacing of drops, idle-time ageing of the average, thresholds in packets or
//! bytes, byte mode, and the automatic configuration of min_th, max_th and w_q.
//!
//! On every arrival (before the packet joins the queue):
//! 1. `avg ← (1 − w_q)^m · avg` if the link was idle, where m = idle time × link rate /
//!    (8 · mean packet size) is the number of packets that could have been sent;
//!    then `avg ← (1 − w_q) · avg + w_q · q` with q the current queue (packets or bytes).
//! 2. `count` (and `count_bytes`) grow by the arrival. If `avg ≥ min_th` and more than
//!    one packet (byte) is queued: on the first such arrival after a quiet spell only
//!    `count ← 1` (ns-2's `old` flag); after that the packet is dropped with
//!    probability p_a (below). Otherwise the quiet spell goes on.
//!    p_b = max_p (avg − min_th)/(max_th − min_th) below max_th; in gentle mode it
//!    continues linearly from max_p at max_th to 1 at 2·max_th (1 beyond); without
//!    gentle it is 1 from max_th on. Spacing: with c = count (byte mode:
//!    ⌊count_bytes / mean packet size⌋), p_a = p_b/(1 − c·p_b), or with `wait`
//!    0 while c·p_b < 1, p_b/(2 − c·p_b) while c·p_b < 2, else 1. Byte mode then scales
//!    p_a by size / mean packet size. A drop resets both counts.
//!    (ns-2.35's default `use_mark_p_ true` sends even averages above the hard
//!    threshold through this probability instead of a "forced" drop; so does tcplab.)
//! 3. Admitted packets still respect the hard limit (tail drop, which also resets the
//!    counts, as ns-2 does unless `ns1_compat_`). The limit is ns-2's: an arrival is
//!    refused when what the queue holds before it has reached the limit (`red.cc`,
//!    `qlen >= qlim`), so a byte limit admits a packet while one byte is free and the
//!    backlog can pass the limit by less than one packet (a 9,180-byte frame on a
//!    150,000-byte queue holding 149,999 bytes). DropTail's byte limit counts the
//!    arrival (Linux's bfifo).

use crate::config::{Amount, RedConfig, SizeUnit};
use crate::metrics::DropCause;
use crate::rng::Rng;
use crate::time::SimTime;

/// The thresholds and weight ns-2.35 derives when they are left at 0 / −1
/// (`REDQueue::initialize_params`), in packets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AutoParams {
    /// min_th in packets: max(5, target delay × packet rate / 2).
    pub min_th_packets: f64,
    /// max_th in packets: 3 × min_th.
    pub max_th_packets: f64,
    /// w_q = 1 − exp(−1 / (10 · RTT · packet rate)), RTT = max(0.1 s, 3 (delay + 1/packet rate)).
    pub w_q: f64,
}

impl AutoParams {
    /// The automatic parameters for a link of `rate_bps` and one-way `delay`, with
    /// packets of `mean_packet_bytes` and a `target_delay` (ns-2.35: 500 B, 5 ms).
    pub fn derive(
        rate_bps: u64,
        delay: SimTime,
        mean_packet_bytes: u32,
        target_delay: SimTime,
    ) -> Self {
        // ns-2's "packet time constant": mean-sized packets the link sends per second.
        let ptc = rate_bps as f64 / (8.0 * mean_packet_bytes as f64);
        let min_th_packets = (target_delay.as_secs_f64() * ptc / 2.0).max(5.0);
        let rtt = (3.0 * (delay.as_secs_f64() + 1.0 / ptc)).max(0.1);
        AutoParams {
            min_th_packets,
            max_th_packets: 3.0 * min_th_packets,
            w_q: 1.0 - (-1.0 / (10.0 * rtt * ptc)).exp(),
        }
    }
}

/// RED admission state.
#[derive(Debug, Clone)]
pub struct Red {
    limit: Amount,
    min_th: f64,
    max_th: f64,
    in_bytes: bool,
    byte_mode: bool,
    max_p: f64,
    w_q: f64,
    gentle: bool,
    wait: bool,
    mean_packet_bytes: u32,
    /// Packets the link can send per second at the mean packet size (ns-2's `ptc`).
    packets_per_sec: f64,
    avg: f64,
    /// Arrivals since the last drop (or the start of the current congested spell).
    count: u64,
    /// Their bytes (byte mode).
    count_bytes: u64,
    /// Whether the previous arrival already found the average above min_th (ns-2's `old`).
    congested: bool,
    idle_since: Option<SimTime>,
    rng: Rng,
}

impl Red {
    /// RED with the given parameters on a link of `link_rate_bps` and one-way `link_delay`.
    pub fn new(config: &RedConfig, link_rate_bps: u64, link_delay: SimTime, rng: Rng) -> Self {
        let auto = AutoParams::derive(
            link_rate_bps,
            link_delay,
            config.mean_packet_bytes.max(1),
            SimTime(config.target_delay_ns),
        );
        let in_bytes = config.thresholds_unit == SizeUnit::Bytes;
        // Automatic thresholds are in packets; ns-2 scales them by the mean packet
        // size when the queue is measured in bytes.
        let scale = if in_bytes {
            config.mean_packet_bytes as f64
        } else {
            1.0
        };
        let min_th = config.min_th.unwrap_or(auto.min_th_packets * scale);
        Red {
            limit: config.limit,
            min_th,
            max_th: config.max_th.unwrap_or(3.0 * min_th),
            in_bytes,
            byte_mode: config.byte_mode,
            max_p: config.max_p,
            w_q: config.w_q.unwrap_or(auto.w_q),
            gentle: config.gentle,
            wait: config.wait,
            mean_packet_bytes: config.mean_packet_bytes.max(1),
            packets_per_sec: link_rate_bps as f64 / (8.0 * config.mean_packet_bytes.max(1) as f64),
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            congested: false,
            // The queue starts empty and idle, as in ns-2.
            idle_since: Some(SimTime::ZERO),
            rng,
        }
    }

    /// The current average queue (in the thresholds' unit).
    pub fn average(&self) -> f64 {
        self.avg
    }

    /// The thresholds and weight in force (after automatic configuration).
    pub fn parameters(&self) -> (f64, f64, f64) {
        (self.min_th, self.max_th, self.w_q)
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

    /// Early-drop probability p_b before spacing (ns-2's `calculate_p_new`).
    fn base_probability(&self) -> f64 {
        let avg = self.avg;
        let p = if avg < self.max_th {
            self.max_p * (avg - self.min_th) / (self.max_th - self.min_th)
        } else if self.gentle {
            self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th
        } else {
            1.0
        };
        p.min(1.0)
    }

    /// Spreads drops out according to how much passed since the last one, then scales
    /// by packet size in byte mode (ns-2's `modify_p`).
    fn spaced_probability(&self, p_b: f64, size_bytes: u32) -> f64 {
        let c = if self.byte_mode {
            (self.count_bytes / self.mean_packet_bytes as u64) as f64
        } else {
            self.count as f64
        };
        let mut p = if self.wait {
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
        if self.byte_mode && p < 1.0 {
            p = p * size_bytes as f64 / self.mean_packet_bytes as f64;
        }
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
            len_bytes
        } else {
            len_packets
        };
        self.update_average(now, queued as f64);
        self.count += 1;
        self.count_bytes += size_bytes as u64;
        if self.avg >= self.min_th && queued > 1 {
            if !self.congested {
                self.congested = true;
                self.count = 1;
                self.count_bytes = size_bytes as u64;
            } else {
                let p_a = self.spaced_probability(self.base_probability(), size_bytes);
                if self.rng.uniform() < p_a {
                    self.count = 0;
                    self.count_bytes = 0;
                    return Err(DropCause::Red);
                }
            }
        } else {
            self.congested = false;
        }
        let held = match self.limit.unit {
            SizeUnit::Packets => len_packets,
            SizeUnit::Bytes => len_bytes,
        };
        if held < self.limit.value {
            Ok(())
        } else {
            self.count = 0;
            self.count_bytes = 0;
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
            min_th: Some(min_th),
            max_th: Some(max_th),
            thresholds_unit: SizeUnit::Packets,
            max_p: 0.1,
            w_q: Some(w_q),
            target_delay_ns: 5_000_000,
            mean_packet_bytes: 1000,
            byte_mode: false,
            gentle: true,
            wait: true,
        };
        // 8 Mbps and 1000-byte packets: 1000 packets per second, so 1 ms idle = 1 packet.
        Red::new(&cfg, 8_000_000, SimTime::ZERO, Rng::for_component(1, "red"))
    }

    /// ns-2's `red.cc` refuses an arrival once the backlog before it has reached the
    /// limit (`qlen >= qlim`), in bytes as in packets: a 9,180-byte frame enters a
    /// 150,000-byte queue holding 149,999 bytes (backlog 159,179), not one holding
    /// 150,000. The average is kept below min_th so that only the limit decides.
    #[test]
    fn the_byte_limit_refuses_an_arrival_only_once_the_backlog_has_reached_it() {
        let mut q = red(1e9, 2e9, 0.002);
        q.limit = Amount {
            value: 150_000,
            unit: SizeUnit::Bytes,
        };
        let now = SimTime::from_ms(1);
        assert_eq!(q.admit(now, 100, 149_999, 9_180), Ok(()));
        assert_eq!(q.admit(now, 100, 150_000, 64), Err(DropCause::Queue));
        q.limit = Amount {
            value: 100,
            unit: SizeUnit::Packets,
        };
        assert_eq!(q.admit(now, 99, 10_000_000, 9_180), Ok(()));
        assert_eq!(q.admit(now, 100, 0, 64), Err(DropCause::Queue));
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
    fn beyond_twice_max_th_in_gentle_mode_every_arrival_but_the_first_is_dropped() {
        let mut r = red(1.0, 2.0, 1.0); // w_q = 1: avg = instantaneous queue
                                        // ns-2's `old` flag: the arrival that finds the average above min_th after a
                                        // quiet spell only starts the count.
        assert_eq!(r.admit(SimTime::ZERO, 4, 4000, 1000), Ok(()));
        assert_eq!(r.admit(SimTime::ZERO, 5, 5000, 1000), Err(DropCause::Red));
        assert_eq!(r.admit(SimTime::ZERO, 5, 5000, 1000), Err(DropCause::Red));
    }

    #[test]
    fn no_early_drop_with_at_most_one_packet_queued() {
        let mut r = red(0.5, 1.0, 1.0);
        r.avg = 10.0;
        for _ in 0..100 {
            assert_eq!(r.admit(SimTime::ZERO, 1, 1000, 1000), Ok(()));
        }
    }

    /// ns-2.35's automatic configuration worked by hand (mean packet 500 B, target delay
    /// 5 ms): packet rate C = rate / 4000 bit; min_th = max(5, 0.005·C/2); max_th =
    /// 3·min_th; w_q = 1 − e^(−1/(10·RTT·C)) ≈ x − x²/2 with RTT = max(0.1, 3(d + 1/C)).
    #[test]
    fn automatic_parameters_match_ns2_worked_by_hand() {
        let cases = [
            // (rate, one-way delay ms, min_th, max_th, w_q)
            (8_000_000, 2, 5.0, 15.0, 4.99875e-4), // C = 2000/s, RTT floor 0.1 s
            (8_000_000, 100, 5.0, 15.0, 1.658237e-4), // RTT = 3·0.1005 = 0.3015 s
            (50_000_000, 2, 31.25, 93.75, 7.99968e-5), // C = 12,500/s
            (100_000_000, 2, 62.5, 187.5, 3.99992e-5), // C = 25,000/s
            (155_000_000, 2, 96.875, 290.625, 2.580612e-5), // C = 38,750/s
        ];
        for (rate, delay_ms, min_th, max_th, w_q) in cases {
            let a = AutoParams::derive(rate, SimTime::from_ms(delay_ms), 500, SimTime::from_ms(5));
            assert!(
                (a.min_th_packets - min_th).abs() < 1e-9,
                "{rate}: min_th {}",
                a.min_th_packets
            );
            assert!(
                (a.max_th_packets - max_th).abs() < 1e-9,
                "{rate}: max_th {}",
                a.max_th_packets
            );
            assert!(
                (a.w_q / w_q - 1.0).abs() < 1e-5,
                "{rate}/{delay_ms}: w_q {}",
                a.w_q
            );
        }
    }

    #[test]
    fn byte_mode_drops_jumbo_frames_in_proportion_to_their_size() {
        // Linear region, wait off, counts reset before each arrival (so the arrival
        // itself is the count: c = ⌊size / mean⌋). p_b = 0.1·(10 − 5)/10 = 0.05, mean
        // 1500 B. 1,500 B: c = 1, p = 0.05/(1 − 0.05) · 1 = 0.052632.
        // 9,180 B: c = 6, p = 0.05/(1 − 0.3) · 9180/1500 = 0.437143.
        let mut r = red(5.0, 15.0, 1.0);
        r.byte_mode = true;
        r.wait = false;
        r.mean_packet_bytes = 1500;
        r.idle_since = None;
        r.congested = true;
        let mut rate = |size: u32| {
            let n = 200_000;
            let drops = (0..n)
                .filter(|_| {
                    r.count = 0;
                    r.count_bytes = 0;
                    r.admit(SimTime::ZERO, 10, 15_000, size).is_err()
                })
                .count();
            drops as f64 / n as f64
        };
        let (small, jumbo) = (rate(1500), rate(9180));
        // Binomial sd over 200,000 draws is below 0.0011: allow 5 sigma.
        assert!((small - 0.052632).abs() < 0.0055, "1500 B: {small}");
        assert!((jumbo - 0.437143).abs() < 0.0055, "9180 B: {jumbo}");
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
