//! BIC-TCP (Xu, Harfoush, Rhee, "Binary increase congestion control for fast,
//! long-distance networks", INFOCOM 2004, section 3), as Linux's `tcp_bic.c` runs it.
//!
//! After a loss at W_max the window is reduced by β and then searches for W_max by
//! binary increase: each RTT it moves to the midpoint of (cwnd, W_max) — in Linux's
//! form, (W_max − cwnd)/B with B = 4 — but by at most S_max segments (additive increase
//! when far away) and by at least the "smooth part" near W_max. Past W_max it probes
//! for a new maximum by "max probing", symmetric to the search (slow, then faster, then
//! linear at S_max). Below low_window it is Reno. Fast convergence lowers W_max to
//! (1 + β)/2 of the window when a loss comes before the last W_max was reached.
//!
//! Each rule is a count of segments per one-segment increase (`cnt`), as in Linux.
//! Linux counts ACKs instead and scales `cnt` by its packets-per-ACK estimate
//! (`ack_ratio = true`, the default: [`AckRatio`], which makes BIC grow about 1.94
//! times its nominal rate when every segment is ACKed); `ack_ratio = false` counts
//! segments at the nominal rate.

use super::window::{segment_window_accessors, AckRatio, SegmentWindow, UNSET};
use super::ParamError;
use super::{check_open, AckEvent, AlgorithmConfig, BuildContext, CongestionControl};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Parameters of `bic` (Linux module parameters; the paper's symbols in brackets).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Multiplicative decrease [β]: cwnd ← β·cwnd on loss (Linux 819/1024).
    pub beta: f64,
    /// Largest increase per RTT in binary search [S_max], segments.
    pub max_increment: u32,
    /// Below this window BIC is Reno, segments.
    pub low_window: u32,
    /// RTTs spent near W_max: log(B/(B·S_min))/log(B/(B−1)) + B, which sets the
    /// smallest increase [S_min].
    pub smooth_part: u32,
    /// Binary-search divisor B.
    pub search_divisor: u32,
    /// Fast convergence.
    pub fast_convergence: bool,
    /// Initial slow-start threshold, segments (0: none).
    pub initial_ssthresh: u32,
    /// Count ACKs scaled by Linux's packets-per-ACK estimate (true, as Linux), or
    /// segments (false).
    pub ack_ratio: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            beta: 819.0 / 1024.0,
            max_increment: 16,
            low_window: 14,
            smooth_part: 20,
            search_divisor: 4,
            fast_convergence: true,
            initial_ssthresh: 0,
            ack_ratio: true,
        }
    }
}

impl AlgorithmConfig for Config {
    fn validate(&self) -> Result<(), ParamError> {
        check_open("beta", self.beta, 0.0, 1.0)?;
        if self.max_increment == 0 {
            return Err(ParamError::new(
                "max_increment",
                "must be at least 1 segment",
            ));
        }
        if self.search_divisor < 2 {
            return Err(ParamError::new("search_divisor", "must be at least 2"));
        }
        if self.smooth_part == 0 {
            return Err(ParamError::new("smooth_part", "must be at least 1"));
        }
        Ok(())
    }

    fn build(&self, ctx: BuildContext) -> Box<dyn CongestionControl> {
        let mut w = SegmentWindow::for_context(&ctx);
        if self.initial_ssthresh > 0 {
            w.ssthresh = self.initial_ssthresh;
        }
        Box::new(Bic {
            w,
            c: self.clone(),
            last_max_cwnd: 0,
            loss_cwnd: 0,
            ack_ratio: self.ack_ratio.then(AckRatio::default),
        })
    }

    fn presets() -> Vec<(&'static str, Self)> {
        vec![(
            "linux-2.6.18",
            Config {
                initial_ssthresh: 100,
                ..Config::default()
            },
        )]
    }
}

/// A BIC controller.
#[derive(Debug)]
struct Bic {
    w: SegmentWindow,
    c: Config,
    /// W_max, segments (Linux `last_max_cwnd`).
    last_max_cwnd: u32,
    /// Window at the last loss (0: none yet).
    loss_cwnd: u32,
    /// Linux's packets-per-ACK estimate, when ACKs are counted.
    ack_ratio: Option<AckRatio>,
}

impl Bic {
    /// Segments to acknowledge per one-segment increase at window `cwnd` (Linux
    /// `bictcp_update`).
    fn ack_count(&self, cwnd: u32) -> u32 {
        let b = self.c.search_divisor;
        let s_max = self.c.max_increment;
        let smooth = self.c.smooth_part;
        let w_max = self.last_max_cwnd;
        if cwnd <= self.c.low_window {
            return cwnd.max(1);
        }
        let mut cnt = if cwnd < w_max {
            let dist = (w_max - cwnd) / b;
            if dist > s_max {
                cwnd / s_max // additive increase
            } else if dist <= 1 {
                cwnd.saturating_mul(smooth) / b // binary search, close to W_max
            } else {
                cwnd / dist // binary search
            }
        } else if cwnd < w_max + b {
            cwnd.saturating_mul(smooth) / b // max probing, slowly at first
        } else if cwnd < w_max + s_max * (b - 1) {
            cwnd.saturating_mul(b - 1) / (cwnd - w_max)
        } else {
            cwnd / s_max // linear max probing
        };
        if self.loss_cwnd == 0 && cnt > 20 {
            cnt = 20; // no loss yet: at least 5% per RTT
        }
        cnt.max(1)
    }

    fn decreased(&mut self, cwnd: u32) -> u32 {
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.c.fast_convergence {
            (cwnd as f64 * (1.0 + self.c.beta) / 2.0) as u32
        } else {
            cwnd
        };
        self.loss_cwnd = cwnd;
        if cwnd <= self.c.low_window {
            (cwnd / 2).max(2)
        } else {
            ((cwnd as f64 * self.c.beta) as u32).max(2)
        }
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }
    segment_window_accessors!();

    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(r) = &mut self.ack_ratio {
            r.observe(ack, self.w.mss);
        }
        let Some(acked) = self.w.growth_counted(ack, self.ack_ratio.as_ref()) else {
            return;
        };
        let left = self.w.slow_start_then(acked);
        if left > 0 {
            let cnt = self.ack_count(self.w.cwnd);
            if self.w.cwnd <= self.c.low_window && self.ack_ratio.is_some() {
                // Linux's bictcp_update returns at low_window before scaling cnt by
                // its packets-per-ACK estimate: Reno's one segment per cnt + 1 ACKs.
                self.w.cong_avoid_ai(cnt + 1, 1);
            } else {
                self.w
                    .cong_avoid_counted(cnt, left, self.ack_ratio.as_ref());
            }
        }
    }

    fn on_congestion_event(&mut self, _now: SimTime, _flight: u64, _in_flight: u64) {
        let target = self.decreased(self.w.cwnd);
        self.w.reduce_to(target);
    }

    fn on_retransmission_timeout(&mut self, _now: SimTime, basis: u64, new_event: bool) {
        let target = new_event.then(|| self.decreased(self.w.segments(basis).max(1)));
        self.w.loss_window(target);
        // Linux resets BIC's state on entering the Loss state.
        self.last_max_cwnd = 0;
        self.loss_cwnd = 0;
        self.ack_ratio = self.ack_ratio.map(|_| AckRatio::default());
    }

    fn state_names(&self) -> &'static [&'static str] {
        &["w_max_segments"]
    }

    fn state(&self) -> [f64; super::STATE_SLOTS] {
        let w_max = if self.last_max_cwnd == 0 || self.w.ssthresh == UNSET {
            f64::NAN
        } else {
            self.last_max_cwnd as f64
        };
        [w_max, f64::NAN, f64::NAN, f64::NAN]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bic_at(cwnd: u32, w_max: u32) -> Bic {
        let mut b = Bic {
            w: SegmentWindow::new(1000, cwnd as u64 * 1000),
            c: Config::default(),
            last_max_cwnd: w_max,
            loss_cwnd: w_max,
            // The paper's per-segment rates; Linux's ACK ratio has its own test.
            ack_ratio: None,
        };
        b.w.ssthresh = 2;
        b
    }

    /// One RTT of single-segment ACKs from `cwnd` below W_max.
    fn rtt_step(b: &mut Bic) -> u32 {
        let start = b.w.cwnd;
        for _ in 0..start {
            b.on_ack(&AckEvent {
                newly_acked_bytes: 1000,
                bytes_acked: 1000,
                ..AckEvent::empty(SimTime::ZERO)
            });
        }
        b.w.cwnd - start
    }

    /// Binary search: far below W_max the step is S_max = 16 per RTT; closer, a
    /// quarter of the remaining distance per window of ACKs (B = 4): from 40 below,
    /// d(cwnd)/d(ACK) = (W_max − cwnd)/(4·cwnd), so one RTT covers
    /// 40·(1 − e^(−1/4)) = 8.8 segments, 8 with Linux's integer distance; at W_max the
    /// smooth part (cwnd·20/4 ACKs per segment: less than one segment per RTT).
    #[test]
    fn binary_search_steps() {
        assert_eq!(rtt_step(&mut bic_at(1000, 2000)), 16);
        let mut b = bic_at(1000, 1040);
        assert_eq!(rtt_step(&mut b), 8);
        let mut b = bic_at(1000, 1002);
        assert_eq!(rtt_step(&mut b), 0);
    }

    /// Linux counts ACKs and divides cnt by its packets-per-ACK estimate, which an
    /// ACK per segment leaves at 31/16: far below W_max, cnt = 1000/16 = 62 becomes
    /// 62·16/31 = 32, an increase every 33 ACKs (Linux's `snd_cwnd_cnt >= cnt` check
    /// counts cnt + 1): 1000/33 ≈ 30 segments per RTT instead of 16.
    #[test]
    fn linux_ack_ratio_nearly_doubles_the_step_with_an_ack_per_segment() {
        let mut b = bic_at(1000, 2000);
        b.ack_ratio = Some(AckRatio::default());
        rtt_step(&mut b); // the estimate settles within the first 16 ACKs
        b.w.cwnd = 1000;
        let step = rtt_step(&mut b);
        assert!((29..=31).contains(&step), "{step}");
    }

    /// Below low_window (14) BIC is Reno, and Linux's bictcp_update returns there
    /// before scaling cnt by the ACK ratio: cnt = cwnd, one segment per cnt + 1 ACKs,
    /// so an RTT of 10 single-segment ACKs at cwnd 10 adds nothing yet and the 11th
    /// adds one — not the doubled rate the ratio gives above low_window.
    #[test]
    fn below_low_window_the_ack_ratio_does_not_apply() {
        let mut b = bic_at(10, 20);
        b.ack_ratio = Some(AckRatio::default());
        assert_eq!(
            rtt_step(&mut b),
            0,
            "10 ACKs at cwnd 10: cnt + 1 = 11 needed"
        );
        b.on_ack(&AckEvent {
            newly_acked_bytes: 1000,
            bytes_acked: 1000,
            ..AckEvent::empty(SimTime::ZERO)
        });
        assert_eq!(b.w.cwnd, 11);
    }

    /// After a loss at W = 1000: cwnd = 819, W_max = 1000; with fast convergence a
    /// second loss at 900 < W_max lowers W_max to 900·(1 + β)/2.
    #[test]
    fn decrease_and_fast_convergence() {
        let mut b = bic_at(1000, 0);
        b.on_congestion_event(SimTime::ZERO, 0, 0);
        assert_eq!((b.w.cwnd, b.last_max_cwnd), (799, 1000));
        b.w.cwnd = 900;
        b.on_congestion_event(SimTime::ZERO, 0, 0);
        assert_eq!(
            b.last_max_cwnd,
            (900.0 * (1.0 + 819.0 / 1024.0) / 2.0) as u32
        );
    }
}
