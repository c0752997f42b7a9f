//! TCP Vegas (Brakmo & Peterson, "TCP Vegas: end to end congestion avoidance on a
//! global internet", JSAC 1995, section 3.2), as Linux's `tcp_vegas.c` runs it.
//!
//! Once per round trip, with BaseRTT the smallest RTT ever seen and RTT the smallest in
//! the last round: diff = cwnd·(RTT − BaseRTT)/BaseRTT estimates the segments this flow
//! keeps queued. In congestion avoidance cwnd grows by one when diff < α, shrinks by
//! one when diff > β, else holds; in slow start, diff > γ ends slow start with cwnd
//! lowered to the expected window + 1. Rounds with fewer than three RTT samples fall
//! back to Reno. Loss is handled as Reno (halving).
//!
//! Linux 2.6.18 used α/β/γ = 1/3/1 (preset `linux-2.6.18`); mainline 2/4/1 (defaults).
//! Linux 2.6 (the 2.6.22.6 code ns-2 carries; 2.6.18's is of the same line) differs
//! from mainline in three more ways (`linux26_rounds`, in both 2.6 presets):
//! * diff is measured on the window *sent* in the round that just ended, `old_wnd`
//!   (`beg_snd_nxt − beg_snd_una`, whole segments), against the RTT rather than
//!   BaseRTT: diff = old_wnd − old_wnd·BaseRTT/RTT, in half segments
//!   (`V_PARAM_SHIFT` 1), RTTs in whole microseconds plus one — with RTT three times
//!   BaseRTT a window of 6 holds about 4 segments queued here, 12 by mainline's
//!   cwnd·(RTT − BaseRTT)/BaseRTT;
//! * the window moves one step towards *the previous round's* window ±1, not its
//!   own: after a step up, the next round's target equals the current window, so
//!   it grows one segment every other round;
//! * slow start ends at old_wnd·BaseRTT/RTT + 1 with ssthresh = 2 (mainline lowers
//!   ssthresh with each decrease), and that ACK still takes its slow-start step
//!   (`tcp_slow_start`).

use super::window::{segment_window_accessors, SegmentWindow};
use super::ParamError;
use super::{check_positive, AckEvent, AlgorithmConfig, BuildContext, CongestionControl};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Parameters of `vegas`, segments.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Grow while fewer than α segments are queued.
    pub alpha: f64,
    /// Shrink while more than β segments are queued.
    pub beta: f64,
    /// Leave slow start once more than γ segments are queued.
    pub gamma: f64,
    /// Linux 2.6's round rules (2.6.22.6's `tcp_vegas_cong_avoid`): diff from the
    /// window sent in the last round against the RTT, in half segments; aim at the
    /// previous round's window ±1 (one step every other round); leave slow start with
    /// ssthresh 2.
    pub linux26_rounds: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            alpha: 2.0,
            beta: 4.0,
            gamma: 1.0,
            linux26_rounds: false,
        }
    }
}

impl AlgorithmConfig for Config {
    fn validate(&self) -> Result<(), ParamError> {
        check_positive("alpha", self.alpha)?;
        check_positive("gamma", self.gamma)?;
        // partial_cmp: a NaN beta is refused too.
        if self
            .beta
            .partial_cmp(&self.alpha)
            .is_none_or(|o| o == std::cmp::Ordering::Less)
            || !self.beta.is_finite()
        {
            return Err(ParamError::new(
                "beta",
                format!("must be at least alpha ({}), got {}", self.alpha, self.beta),
            ));
        }
        Ok(())
    }

    fn build(&self, ctx: BuildContext) -> Box<dyn CongestionControl> {
        Box::new(Vegas {
            w: SegmentWindow::for_context(&ctx),
            c: self.clone(),
            base_rtt: None,
            round_min_rtt: None,
            round_samples: 0,
            diff: f64::NAN,
            round_start_cwnd: 0,
            round_acked_bytes: 0,
        })
    }

    fn presets() -> Vec<(&'static str, Self)> {
        vec![
            (
                "linux-2.6.18",
                Config {
                    alpha: 1.0,
                    beta: 3.0,
                    gamma: 1.0,
                    linux26_rounds: true,
                },
            ),
            (
                "linux-2.6.22",
                Config {
                    linux26_rounds: true,
                    ..Config::default()
                },
            ),
        ]
    }
}

/// A Vegas controller.
#[derive(Debug)]
struct Vegas {
    w: SegmentWindow,
    c: Config,
    base_rtt: Option<SimTime>,
    round_min_rtt: Option<SimTime>,
    round_samples: u32,
    /// The last diff computed, segments.
    diff: f64,
    /// cwnd when the round that just ended began (Linux 2.6 `beg_snd_cwnd`).
    round_start_cwnd: u32,
    /// Bytes acknowledged in the current round: what was sent in the round before it
    /// (Linux 2.6 `beg_snd_nxt − beg_snd_una`).
    round_acked_bytes: u64,
}

impl Vegas {
    /// The once-per-round decision (Linux `tcp_vegas_cong_avoid` on a new round).
    fn end_of_round(&mut self, acked: u32) {
        let previous = std::mem::replace(&mut self.round_start_cwnd, self.w.cwnd);
        let (Some(base), Some(rtt)) = (self.base_rtt, self.round_min_rtt) else {
            self.w.reno_grow(acked);
            return;
        };
        if self.round_samples <= 2 {
            self.w.reno_grow(acked);
            return;
        }
        if self.c.linux26_rounds {
            self.linux26_decision(previous, base, rtt);
            return;
        }
        let cwnd = self.w.cwnd as f64;
        let (base, rtt) = (base.as_ns() as f64, rtt.as_ns() as f64);
        let target = cwnd * base / rtt;
        self.diff = cwnd * (rtt - base) / base;
        if self.diff > self.c.gamma && self.w.in_slow_start() {
            // Leave slow start at the expected window (Linux 2.6: ssthresh 2, so a
            // later step below it does not restart slow start).
            self.w.cwnd = self.w.cwnd.min(target as u32 + 1);
            self.w.ssthresh = if self.c.linux26_rounds {
                2
            } else {
                self.w.ssthresh.min(self.w.cwnd.saturating_sub(1)).max(2)
            };
        } else if self.w.in_slow_start() {
            self.w.slow_start(acked);
        } else if self.diff > self.c.beta {
            self.w.cwnd -= 1;
            self.w.ssthresh = self.w.ssthresh.min(self.w.cwnd.saturating_sub(1)).max(2);
        } else if self.diff < self.c.alpha {
            self.w.cwnd += 1;
        }
        self.w.cwnd = self.w.cwnd.max(2);
    }

    /// Linux 2.6.22.6's once-per-round decision, in its integer arithmetic: `old_wnd`
    /// the whole segments acknowledged in the round just ended, RTTs in microseconds
    /// plus one, diff and the thresholds in half segments.
    fn linux26_decision(&mut self, previous_cwnd: u32, base: SimTime, rtt: SimTime) {
        const SHIFT: u32 = 1; // V_PARAM_SHIFT
        let old_wnd = self.round_acked_bytes / self.w.mss;
        let micros = |t: SimTime| t.as_ns() / 1_000 + 1;
        let (base_us, rtt_us) = (micros(base), micros(rtt));
        let target = ((old_wnd * base_us) << SHIFT) / rtt_us;
        let diff = (old_wnd << SHIFT).saturating_sub(target);
        self.diff = diff as f64 / f64::from(1u32 << SHIFT);
        let threshold = |segments: f64| (segments * f64::from(1u32 << SHIFT)) as u64;
        if self.w.in_slow_start() {
            if diff > threshold(self.c.gamma) {
                self.w.ssthresh = 2;
                let expected = (target >> SHIFT) as u32 + 1;
                self.w.cwnd = self.w.cwnd.min(expected);
            }
            self.w.cwnd += 1; // tcp_slow_start: this ACK's step, ssthresh or not
        } else if previous_cwnd > 0 {
            let aim = if diff > threshold(self.c.beta) {
                previous_cwnd - 1
            } else if diff < threshold(self.c.alpha) {
                previous_cwnd + 1
            } else {
                previous_cwnd
            };
            match aim.cmp(&self.w.cwnd) {
                std::cmp::Ordering::Greater => self.w.cwnd += 1,
                std::cmp::Ordering::Less => self.w.cwnd -= 1,
                std::cmp::Ordering::Equal => {}
            }
        }
        self.w.cwnd = self.w.cwnd.max(2);
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }
    segment_window_accessors!();
    fn min_cwnd(&self) -> u64 {
        self.w.half_ssthresh_bytes() // tcp_reno_min_cwnd
    }

    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(r) = ack.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.round_min_rtt = Some(self.round_min_rtt.map_or(r, |m| m.min(r)));
            self.round_samples += 1;
        }
        self.round_acked_bytes += ack.newly_acked_bytes;
        if !ack.may_grow() {
            if ack.round_start {
                self.round_acked_bytes = 0; // a round without a decision starts afresh
            }
            return;
        }
        let acked = self.w.acked_segments(ack.bytes_acked);
        if ack.round_start {
            self.end_of_round(acked);
            self.round_min_rtt = None;
            self.round_samples = 0;
            self.round_acked_bytes = 0;
        } else if self.w.in_slow_start() {
            self.w.slow_start(acked);
        }
    }

    fn on_congestion_event(&mut self, _now: SimTime, flight: u64, _in_flight: u64) {
        let target = self.w.segments(flight) / 2;
        self.w.reduce_to(target);
    }

    fn on_retransmission_timeout(&mut self, _now: SimTime, basis: u64, new_event: bool) {
        let target = new_event.then(|| self.w.segments(basis) / 2);
        self.w.loss_window(target);
    }

    fn state_names(&self) -> &'static [&'static str] {
        &["diff_segments", "base_rtt_ms"]
    }

    fn state(&self) -> [f64; super::STATE_SLOTS] {
        [
            self.diff,
            self.base_rtt.map_or(f64::NAN, |b| b.as_ns() as f64 / 1e6),
            f64::NAN,
            f64::NAN,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounds with no queue (diff = 0 < α) over `rounds` round ends from cwnd 100.
    fn grow(linux26_rounds: bool, rounds: u32) -> u32 {
        let c = Config {
            linux26_rounds,
            ..Config::default()
        };
        let mut v = Vegas {
            w: SegmentWindow::new(1000, 100_000),
            c,
            base_rtt: Some(SimTime::from_ms(50)),
            round_min_rtt: None,
            round_samples: 0,
            diff: f64::NAN,
            round_start_cwnd: 100,
            round_acked_bytes: 0,
        };
        v.w.ssthresh = 2;
        for _ in 0..rounds {
            v.round_min_rtt = Some(SimTime::from_ms(50));
            v.round_samples = 10;
            v.end_of_round(1);
        }
        v.w.cwnd
    }

    /// Mainline: one segment per round; Linux 2.6's previous-round reference: one
    /// every other round (traced by hand from the 2.6.22 code in the module doc).
    #[test]
    fn growth_per_round_below_alpha() {
        assert_eq!(grow(false, 10), 110);
        assert_eq!(grow(true, 10), 105);
    }

    /// Linux 2.6.22.6's diff by hand: BaseRTT 3 ms and RTT 9 ms are 3,001 and 9,001 µs
    /// (+1), cwnd 5 in congestion avoidance, k segments acknowledged in the round.
    /// k = 2: target = ⌊2·3001·2/9001⌋ = 1 half-segment, diff = 4 − 1 = 3 < α·2 = 4:
    /// up to 6. k = 5: target = ⌊30010/9001⌋ = 3, diff = 7, between 4 and β·2 = 8:
    /// held at 5 — mainline's 5·(9 − 3)/3 = 10 segments would shrink it. k = 7:
    /// target = 4, diff = 10 > 8: down to 4.
    #[test]
    fn linux26_diff_is_the_sent_window_against_the_rtt_in_half_segments() {
        for (k, expected) in [(2, 6), (5, 5), (7, 4)] {
            let mut v = Vegas {
                w: SegmentWindow::new(1000, 5_000),
                c: Config {
                    linux26_rounds: true,
                    ..Config::default()
                },
                base_rtt: Some(SimTime::from_ms(3)),
                round_min_rtt: Some(SimTime::from_ms(9)),
                round_samples: 10,
                diff: f64::NAN,
                round_start_cwnd: 5,
                round_acked_bytes: k * 1000,
            };
            v.w.ssthresh = 2;
            v.end_of_round(1);
            assert_eq!(v.w.cwnd, expected, "{k} segments acknowledged in the round");
        }
    }
}
