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
//! Linux 2.6 (the 2.6.22 code ns-2 carries; 2.6.18's is of the same line) also moved
//! the window one step towards *the previous round's* window ±1, not its own: after a
//! step up, the next round's target equals the current window, so the window grows
//! one segment every other round; and it left slow start with ssthresh = 2, where
//! mainline lowers ssthresh with each decrease (`linux26_rounds`, in both 2.6 presets).

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
    /// Linux 2.6's round rules: aim at the previous round's window ±1 (one step every
    /// other round), and leave slow start with ssthresh 2.
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
        } else if self.c.linux26_rounds && previous > 0 {
            // Linux 2.6: one step towards the previous round's window ±1.
            let target = if self.diff > self.c.beta {
                previous - 1
            } else if self.diff < self.c.alpha {
                previous + 1
            } else {
                previous
            };
            match target.cmp(&self.w.cwnd) {
                std::cmp::Ordering::Greater => self.w.cwnd += 1,
                std::cmp::Ordering::Less => self.w.cwnd -= 1,
                std::cmp::Ordering::Equal => {}
            }
        } else if self.diff > self.c.beta {
            self.w.cwnd -= 1;
            self.w.ssthresh = self.w.ssthresh.min(self.w.cwnd.saturating_sub(1)).max(2);
        } else if self.diff < self.c.alpha {
            self.w.cwnd += 1;
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
        if !ack.may_grow() {
            return;
        }
        let acked = self.w.acked_segments(ack.bytes_acked);
        if ack.round_start {
            self.end_of_round(acked);
            self.round_min_rtt = None;
            self.round_samples = 0;
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
}
