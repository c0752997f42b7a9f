//! General AIMD (Yang & Lam, "General AIMD congestion control", ICNP 2000; Floyd,
//! Handley & Padhye, "A comparison of equation-based and AIMD congestion control",
//! 2000): in congestion avoidance the window grows by α segments per RTT (α/cwnd per
//! segment acknowledged) and a loss multiplies it by 1 − β. Reno is α = 1, β = 1/2.
//!
//! Its response function, with one loss per 1/p segments, is
//! W = √(α(2 − β)/(2βp)) (Floyd et al., section 2), and α = 3β/(2 − β) makes it as
//! TCP-friendly as Reno (Yang & Lam, eq. 6): preset `tcp-friendly` is β = 1/8,
//! α = 0.2, the gentler decrease of TFRC-like "slowly responsive" controls.
//!
//! This file is also the worked example of adding an algorithm (docs/engine.md,
//! "Adding a congestion control"): a `Config` with its defaults, checks and presets,
//! a controller, and one line in the `algorithms!` registration.

use super::window::{segment_window_accessors, SegmentWindow};
use super::CongestionControl;
use super::ParamError;
use super::{check_open, check_positive, AckEvent, AlgorithmConfig, BuildContext};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Parameters of `gaimd`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Additive increase α, segments per RTT.
    pub alpha: f64,
    /// Multiplicative decrease β: a loss leaves (1 − β)·cwnd.
    pub beta: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            alpha: 1.0,
            beta: 0.5,
        }
    }
}

impl AlgorithmConfig for Config {
    fn validate(&self) -> Result<(), ParamError> {
        check_positive("alpha", self.alpha)?;
        check_open("beta", self.beta, 0.0, 1.0)
    }

    fn build(&self, ctx: BuildContext) -> Box<dyn CongestionControl> {
        Box::new(Gaimd {
            w: SegmentWindow::for_context(&ctx),
            c: self.clone(),
            growth: 0.0,
        })
    }

    fn presets() -> Vec<(&'static str, Self)> {
        let beta = 0.125;
        vec![(
            "tcp-friendly",
            Config {
                alpha: 3.0 * beta / (2.0 - beta),
                beta,
            },
        )]
    }
}

/// A general AIMD controller.
#[derive(Debug)]
struct Gaimd {
    w: SegmentWindow,
    c: Config,
    /// Fractional segments of growth not yet added to cwnd.
    growth: f64,
}

impl Gaimd {
    fn decreased(&self, cwnd: u32) -> u32 {
        (cwnd as f64 * (1.0 - self.c.beta)) as u32
    }
}

impl CongestionControl for Gaimd {
    fn name(&self) -> &'static str {
        "gaimd"
    }
    segment_window_accessors!();

    fn on_ack(&mut self, ack: &AckEvent) {
        let Some(acked) = self.w.growth(ack, ack.bytes_acked) else {
            return;
        };
        let left = self.w.slow_start_then(acked);
        if left > 0 {
            // cwnd += α/cwnd per segment acknowledged.
            let segments = self.c.alpha * left as f64 / self.w.cwnd as f64;
            self.w.grow_fractional(&mut self.growth, segments);
        }
    }

    fn on_congestion_event(&mut self, _now: SimTime, _flight: u64, _in_flight: u64) {
        let target = self.decreased(self.w.cwnd);
        self.w.reduce_to(target);
    }

    /// A timeout is TCP's (RFC 5681 eq. 4: half the flight): GAIMD changes only the
    /// congestion-avoidance response (Yang & Lam, section 2), and a gentle β here would
    /// send the window straight back into the congestion that caused the timeout.
    fn on_retransmission_timeout(&mut self, _now: SimTime, basis: u64, new_event: bool) {
        let target = new_event.then(|| self.w.segments(basis) / 2);
        self.w.loss_window(target);
    }
}
