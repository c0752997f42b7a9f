//! Linux 2.6.22's CUBIC window update (`tcp_cubic.c` version 2.1, the module ns-2's
//! TCP/Linux runs), for CUBIC's `linux26_update`: the same curve as RFC 9438 in the
//! kernel's integer units, with two behaviours the RFC does not have.
//!
//! - The per-ACK increment is recomputed at most every HZ/32 (31 ms at HZ = 1000)
//!   while cwnd is unchanged (`bictcp_update`'s first test); in between the last one
//!   stands, so at a plateau the window waits for the next recomputation.
//! - The TCP-friendly window grows in whole segments, one per `cwnd·beta_scale/8` ACKs
//!   counted since the epoch began (`ack_cnt`, `tcp_cwnd`), and only where it exceeds
//!   cwnd does it speed the window up.
//!
//! Time is the kernel's jiffies (1 ms), the curve's clock 1/1024 s (`BICTCP_HZ`), the
//! minimum delay in jiffies × 8, measured from timestamps but never in the first second
//! of an epoch (`measure_delay`).

use crate::time::SimTime;

/// `BICTCP_BETA_SCALE`.
const BETA_SCALE: u64 = 1024;
/// `BICTCP_HZ`: the curve's clock is 2^10 ticks per second.
const CURVE_HZ_SHIFT: u32 = 10;
/// Jiffies per second (ns-2's and the era's HZ = 1000).
const HZ: u64 = 1000;

/// The module's state beyond the window (`struct bictcp` of 2.6.22).
#[derive(Debug, Clone, Default)]
pub struct Linux26Cubic {
    /// Segments to acknowledge per one-segment increase, before the ACK-ratio scaling.
    cnt: u64,
    /// W_max, segments (`last_max_cwnd`).
    pub last_max_cwnd: u64,
    /// cwnd at the last loss (0: none yet).
    loss_cwnd: u64,
    last_cwnd: u64,
    /// Jiffies of the last recomputation.
    last_time: u64,
    origin: u64,
    /// K, in 1/1024 s.
    k: u64,
    /// Minimum delay, jiffies × 8 (0: none measured).
    delay_min: u64,
    /// Epoch start, jiffies (`None`: no epoch).
    epoch_start: Option<u64>,
    ack_cnt: u64,
    tcp_cwnd: u64,
}

/// Jiffies at `now` (`tcp_time_stamp`).
fn jiffies(now: SimTime) -> u64 {
    now.as_ns() / (1_000_000_000 / HZ)
}

/// ⌊∛a⌋ (the kernel approximates it with a table and one Newton step; the curve's
/// unit of 1/1024 s makes the difference immaterial).
fn cube_root(a: u64) -> u64 {
    let mut x = (a as f64).cbrt() as u64;
    while (x + 1).saturating_pow(3) <= a {
        x += 1;
    }
    while x > 0 && x.saturating_pow(3) > a {
        x -= 1;
    }
    x
}

impl Linux26Cubic {
    /// `bic_scale` 41 (C = 41·10/1024 ≈ 0.4 with the 100-ms reference RTT folded in).
    const CUBE_RTT_SCALE: u64 = 41 * 10;

    /// `cube_factor` = 2^40 / (bic_scale·10).
    fn cube_factor() -> u64 {
        (1u64 << (10 + 3 * CURVE_HZ_SHIFT)) / Self::CUBE_RTT_SCALE
    }

    /// `beta_scale` = 8·(1024 + β)/3/(1024 − β), β in 1/1024 (below 1,024: a β that
    /// rounds to 1 is taken as 1,023/1,024).
    fn beta_scale(beta: u64) -> u64 {
        let beta = beta.min(BETA_SCALE - 1);
        8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta)
    }

    /// `measure_delay`: an RTT sample `rtt` at `now` (with timestamps; the kernel skips
    /// the first second of an epoch, just after a recovery).
    pub fn on_rtt_sample(&mut self, now: SimTime, rtt: SimTime) {
        let now_j = jiffies(now);
        if self
            .epoch_start
            .is_some_and(|e| now_j.saturating_sub(e) < HZ)
        {
            return;
        }
        let delay = ((rtt.as_ns() / (1_000_000_000 / HZ)) << 3).max(1);
        if self.delay_min == 0 || delay < self.delay_min {
            self.delay_min = delay;
        }
    }

    /// `bictcp_update` on an ACK in congestion avoidance at window `cwnd`, β and
    /// `max_increment` the module's: the segments per increase, before the ACK ratio.
    pub fn update(
        &mut self,
        now: SimTime,
        cwnd: u64,
        beta: u64,
        max_increment: u64,
        friendly: bool,
    ) -> u64 {
        self.ack_cnt += 1;
        let now_j = jiffies(now);
        if self.last_cwnd == cwnd && now_j.saturating_sub(self.last_time) <= HZ / 32 {
            return self.cnt.max(1);
        }
        self.last_cwnd = cwnd;
        self.last_time = now_j;
        let epoch_start = *self.epoch_start.get_or_insert_with(|| {
            self.ack_cnt = 1;
            self.tcp_cwnd = cwnd;
            if self.last_max_cwnd <= cwnd {
                self.k = 0;
                self.origin = cwnd;
            } else {
                self.k = cube_root(Self::cube_factor().saturating_mul(self.last_max_cwnd - cwnd));
                self.origin = self.last_max_cwnd;
            }
            now_j
        });
        let t = ((now_j + (self.delay_min >> 3) - epoch_start) << CURVE_HZ_SHIFT) / HZ;
        let offs = t.abs_diff(self.k);
        let delta = ((Self::CUBE_RTT_SCALE as u128 * (offs as u128).pow(3))
            >> (10 + 3 * CURVE_HZ_SHIFT)) as u64;
        let target = if t < self.k {
            self.origin.saturating_sub(delta)
        } else {
            self.origin + delta
        };
        self.cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100 * cwnd
        };
        if self.delay_min > 0 && max_increment > 0 {
            let min_cnt = cwnd * HZ * 8 / (10 * max_increment * self.delay_min);
            if self.cnt < min_cnt && t >= self.k {
                self.cnt = min_cnt;
            }
        }
        if self.loss_cwnd == 0 {
            self.cnt = 50;
        }
        if friendly {
            let delta = (cwnd * Self::beta_scale(beta)) >> 3;
            while delta > 0 && self.ack_cnt > delta {
                self.ack_cnt -= delta;
                self.tcp_cwnd += 1;
            }
            if self.tcp_cwnd > cwnd {
                self.cnt = self.cnt.min(cwnd / (self.tcp_cwnd - cwnd));
            }
        }
        self.cnt.max(1)
    }

    /// `bictcp_recalc_ssthresh` at a loss with window `cwnd`: ends the epoch, sets W_max
    /// (fast convergence in the kernel's integers) and returns ssthresh.
    pub fn decreased(&mut self, cwnd: u64, beta: u64, fast_convergence: bool) -> u64 {
        self.epoch_start = None;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && fast_convergence {
            cwnd * (BETA_SCALE + beta) / (2 * BETA_SCALE)
        } else {
            cwnd
        };
        self.loss_cwnd = cwnd;
        (cwnd * beta / BETA_SCALE).max(2)
    }

    /// `bictcp_reset`, on entering the Loss state (a timeout).
    pub fn reset(&mut self) {
        *self = Linux26Cubic::default();
    }

    /// K, seconds.
    pub fn k_seconds(&self) -> f64 {
        self.k as f64 / (1u64 << CURVE_HZ_SHIFT) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BETA: u64 = 819;

    /// After a loss at cwnd 100 (W_max 100, ssthresh ⌊100·819/1024⌋ = 79), the first
    /// update starts an epoch with K = ⌊∛(⌊2^40/410⌋·21)⌋ = ⌊∛56,316,449,217⌋ = 3,833
    /// in 1/1024 s (3.74 s, ∛(21/0.4)). At t = 0 the target lies ⌊410·3833³/2^40⌋ = 20
    /// below W_max, at 80: one segment above cwnd, so cnt = 79/1.
    #[test]
    fn an_epoch_starts_with_the_kernels_k() {
        let mut c = Linux26Cubic::default();
        assert_eq!(c.decreased(100, BETA, true), 79);
        let cnt = c.update(SimTime::from_secs(10), 79, BETA, 16, false);
        assert_eq!(c.k, 3833);
        assert_eq!(cnt, 79);
    }

    /// While cwnd is unchanged the increment is recomputed at most every 31 ms: ACKs
    /// in between get the last one, whatever the TCP-friendly window did meanwhile.
    #[test]
    fn the_increment_stands_for_31_ms_while_cwnd_is_unchanged() {
        let mut c = Linux26Cubic::default();
        c.decreased(10, BETA, true); // W_max 10, ssthresh 7
        let first = c.update(SimTime::from_ms(1000), 7, BETA, 16, true);
        // beta_scale = 8·1843/3/205 = 23: the friendly window gains a segment per
        // ⌊7·23/8⌋ = 20 ACKs. 40 ACKs within 31 ms change nothing...
        for i in 1..=40 {
            assert_eq!(
                c.update(
                    SimTime::from_ms(1000) + SimTime(i * 500_000),
                    7,
                    BETA,
                    16,
                    true
                ),
                first
            );
        }
        // ...the next recomputation sees tcp_cwnd = 9 > 7: cnt ≤ 7/2 = 3.
        assert_eq!(c.update(SimTime::from_ms(1032), 7, BETA, 16, true), 3);
    }

    /// β close to 1 (validated below 1, but rounding to 1,024/1,024) does not divide by
    /// zero: the friendly window's step is taken at 1,023/1,024.
    #[test]
    fn a_beta_rounding_to_one_is_safe() {
        let mut c = Linux26Cubic::default();
        c.decreased(100, 1024, true);
        assert!(c.update(SimTime::from_secs(1), 99, 1024, 16, true) >= 1);
    }

    /// Fast convergence in integers: a loss below the previous W_max sets it to
    /// ⌊cwnd·(1024 + 819)/2048⌋, 9 → 8.
    #[test]
    fn fast_convergence_in_the_kernels_integers() {
        let mut c = Linux26Cubic::default();
        c.decreased(12, BETA, true);
        assert_eq!(c.decreased(9, BETA, true), 7);
        assert_eq!(c.last_max_cwnd, 8);
    }
}
