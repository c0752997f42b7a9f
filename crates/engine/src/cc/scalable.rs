//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed wide area
//! networks", CCR 2003, section 2): cwnd += a per segment acknowledged (a
//! multiplicative increase of (1 + a) per RTT) and cwnd −= b·cwnd on loss, except that a
//! window below the legacy window behaves as Reno.
//!
//! The increase follows Linux's `tcp_scalable.c`: one segment per min(cwnd, 1/a)
//! segments acknowledged, i.e. the larger of Reno's and Scalable's increase (so Reno's
//! below 1/a). Linux counts 50 ACKs per segment ("50 instead of 100 to account for
//! delayed ACKs") and decreases by cwnd>>3 at every window: the `linux` preset
//! (a = 0.02, legacy_window = 0). Kelly's values are the defaults: a = 0.01,
//! b = 0.125, legacy window 16 (below it, loss halves the window).

use super::window::{segment_window_accessors, SegmentWindow};
use super::ParamError;
use super::{check_open, AckEvent, AlgorithmConfig, BuildContext, CongestionControl};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Parameters of `scalable`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Increase per segment acknowledged, segments (Kelly's a).
    pub a: f64,
    /// Multiplicative decrease (Kelly's b).
    pub b: f64,
    /// Below this window (segments) a loss halves the window, as Reno.
    pub legacy_window: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            a: 0.01,
            b: 0.125,
            legacy_window: 16,
        }
    }
}

impl AlgorithmConfig for Config {
    fn validate(&self) -> Result<(), ParamError> {
        check_open("a", self.a, 0.0, 1.0)?;
        check_open("b", self.b, 0.0, 1.0)
    }

    fn build(&self, ctx: BuildContext) -> Box<dyn CongestionControl> {
        Box::new(Scalable {
            w: SegmentWindow::for_context(&ctx),
            // One segment per 1/a segments acknowledged.
            ai_count: (1.0 / self.a).round().max(1.0) as u32,
            b: self.b,
            legacy_window: self.legacy_window,
        })
    }

    fn presets() -> Vec<(&'static str, Self)> {
        let linux = Config {
            a: 0.02,
            b: 0.125,
            legacy_window: 0,
        };
        vec![("linux", linux.clone()), ("linux-2.6.18", linux)]
    }
}

/// A Scalable TCP controller.
#[derive(Debug)]
struct Scalable {
    w: SegmentWindow,
    ai_count: u32,
    b: f64,
    legacy_window: u32,
}

impl Scalable {
    fn decreased(&self, cwnd: u32) -> u32 {
        if cwnd < self.legacy_window {
            cwnd / 2
        } else {
            cwnd - (cwnd as f64 * self.b) as u32
        }
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }
    segment_window_accessors!();
    fn min_cwnd(&self) -> u64 {
        self.w.half_ssthresh_bytes() // tcp_reno_min_cwnd
    }

    fn on_ack(&mut self, ack: &AckEvent) {
        let Some(acked) = self.w.growth(ack, ack.bytes_acked) else {
            return;
        };
        if self.w.in_slow_start() {
            self.w.slow_start(acked);
        } else {
            let w = self.w.cwnd.min(self.ai_count);
            self.w.cong_avoid_ai(w, acked);
        }
    }

    fn on_congestion_event(&mut self, _now: SimTime, _flight: u64, _in_flight: u64) {
        let target = self.decreased(self.w.cwnd);
        self.w.reduce_to(target);
    }

    fn on_retransmission_timeout(&mut self, _now: SimTime, basis: u64, new_event: bool) {
        let target = new_event.then(|| self.decreased(self.w.segments(basis).max(1)));
        self.w.loss_window(target);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per RTT (a window of single-segment ACKs) the window grows by a factor 1 + a:
    /// from 1,000 segments with a = 0.01, ten segments.
    #[test]
    fn growth_is_multiplicative_per_rtt() {
        let c = Config::default();
        let mut s = Scalable {
            w: SegmentWindow::new(1000, 1_000_000),
            ai_count: 100,
            b: c.b,
            legacy_window: c.legacy_window,
        };
        s.w.ssthresh = 2;
        for round in 0..3 {
            let start = s.w.cwnd;
            for _ in 0..start {
                s.on_ack(&AckEvent {
                    bytes_acked: 1000,
                    ..AckEvent::empty(SimTime::ZERO)
                });
            }
            let expected = start as f64 * 1.01;
            assert!(
                (s.w.cwnd as f64 - expected).abs() <= 1.0,
                "round {round}: {} vs {expected}",
                s.w.cwnd
            );
        }
        let before = s.w.cwnd;
        s.on_congestion_event(SimTime::ZERO, 0, 0);
        assert_eq!(s.w.cwnd, before - before / 8);
    }
}
