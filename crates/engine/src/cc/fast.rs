//! FAST TCP (Jin, Wei & Low, "FAST TCP: motivation, architecture, algorithms,
//! performance", INFOCOM 2004, eq. (3); ToN 2006): once per update period
//!
//!   w ← min{2w, (1 − γ)·w + γ·(baseRTT/RTT·w + α)}
//!
//! whose equilibrium keeps α segments of each flow queued (w − w·baseRTT/RTT = α), so N
//! flows share a bottleneck equally whatever their windows. RTT is averaged per ACK
//! with weight η = min(3/w, 1/4) (the 2006 paper); baseRTT is the smallest RTT seen.
//!
//! Where the papers are silent this follows the open-source ns-2 module of Cui &
//! Andrew (U. Melbourne, 2007), and says so: the window starts by doubling per RTT
//! (multiplicative increase) until the queueing delay reaches `mi_threshold` (0.75 ms),
//! an increase computed at an update is spread evenly over the next round's ACKs
//! while a decrease applies at once, the update period can be several rounds
//! (`update_rounds`; the module updates every other RTT), and a loss halves the window
//! as Reno. The module's defaults are α = 100 packets and γ = 0.5.

use super::{check_positive, AckEvent, AlgorithmConfig, BuildContext};
use super::{CongestionControl, ParamError};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Parameters of `fast`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Segments each flow keeps queued in equilibrium.
    pub alpha: f64,
    /// Step size γ of the window update, in (0, 1].
    pub gamma: f64,
    /// Round trips per window update.
    pub update_rounds: u32,
    /// Queueing delay below which the window doubles per RTT, ns.
    pub mi_threshold_ns: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            alpha: 100.0,
            gamma: 0.5,
            update_rounds: 1,
            mi_threshold_ns: 750_000,
        }
    }
}

impl AlgorithmConfig for Config {
    fn validate(&self) -> Result<(), ParamError> {
        check_positive("alpha", self.alpha)?;
        if !(self.gamma > 0.0 && self.gamma <= 1.0) {
            return Err(ParamError::new(
                "gamma",
                format!("must be in (0, 1], got {}", self.gamma),
            ));
        }
        if self.update_rounds == 0 {
            return Err(ParamError::new("update_rounds", "must be at least 1"));
        }
        Ok(())
    }

    fn build(&self, ctx: BuildContext) -> Box<dyn CongestionControl> {
        Box::new(Fast {
            mss: ctx.mss,
            w: (ctx.initial_window / ctx.mss).max(1) as f64,
            ssthresh: f64::INFINITY,
            c: self.clone(),
            base_rtt: None,
            avg_rtt: None,
            multiplicative: true,
            increment_per_segment: 0.0,
            target: 0.0,
            rounds: 0,
            slow_start_limit: ctx.slow_start_limit.map_or(f64::INFINITY, f64::from),
        })
    }

    fn presets() -> Vec<(&'static str, Self)> {
        vec![(
            "ns2-module",
            Config {
                update_rounds: 2,
                ..Config::default()
            },
        )]
    }
}

/// A FAST controller; the window is continuous, in segments.
#[derive(Debug)]
struct Fast {
    mss: u64,
    w: f64,
    ssthresh: f64,
    c: Config,
    base_rtt: Option<SimTime>,
    avg_rtt: Option<f64>,
    /// Still doubling per RTT (no queueing seen, no loss).
    multiplicative: bool,
    /// Increase per segment acknowledged until `target` is reached.
    increment_per_segment: f64,
    target: f64,
    rounds: u64,
    /// The most segments one ACK adds while doubling
    /// ([`super::BuildContext::slow_start_limit`]).
    slow_start_limit: f64,
}

impl Fast {
    fn queueing_ns(&self) -> Option<f64> {
        Some(self.avg_rtt? - self.base_rtt?.as_ns() as f64)
    }

    /// The once-per-period update, eq. (3).
    fn update(&mut self) {
        let (Some(base), Some(avg)) = (self.base_rtt, self.avg_rtt) else {
            return;
        };
        let w = self.w;
        let g = self.c.gamma;
        let target =
            (2.0 * w).min((1.0 - g) * w + g * (base.as_ns() as f64 / avg * w + self.c.alpha));
        if target >= w {
            self.target = target;
            self.increment_per_segment = (target - w) / w;
        } else {
            self.w = target.max(2.0);
            self.target = self.w;
            self.increment_per_segment = 0.0;
        }
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }
    fn cwnd(&self) -> u64 {
        (self.w.floor().max(1.0) as u64) * self.mss
    }
    fn ssthresh(&self) -> u64 {
        if self.ssthresh.is_finite() {
            self.ssthresh as u64 * self.mss
        } else {
            u64::MAX
        }
    }

    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(r) = ack.rtt {
            let r = r.as_ns() as f64;
            self.base_rtt = Some(
                self.base_rtt
                    .map_or(SimTime(r as u64), |b| b.min(SimTime(r as u64))),
            );
            let eta = (3.0 / self.w).min(0.25);
            self.avg_rtt = Some(self.avg_rtt.map_or(r, |a| (1.0 - eta) * a + eta * r));
        }
        if ack.bytes_acked == 0 || ack.in_recovery {
            return;
        }
        let segments = ack.bytes_acked as f64 / self.mss as f64;
        if self.multiplicative {
            if self
                .queueing_ns()
                .is_some_and(|q| q >= self.c.mi_threshold_ns as f64)
                || self.w >= self.ssthresh
            {
                self.multiplicative = false;
            } else if ack.cwnd_limited {
                self.w += segments.min(self.slow_start_limit); // doubles per RTT
                return;
            }
        }
        if ack.round_start {
            self.rounds += 1;
            if self.rounds % self.c.update_rounds as u64 == 0 {
                self.update();
            }
        }
        if self.w < self.target {
            self.w = (self.w + self.increment_per_segment * segments).min(self.target);
        }
    }

    fn on_congestion_event(&mut self, _now: SimTime, _flight: u64, _in_flight: u64) {
        self.w = (self.w / 2.0).max(2.0);
        self.ssthresh = self.w;
        self.target = self.w;
        self.multiplicative = false;
    }

    fn on_retransmission_timeout(&mut self, _now: SimTime, basis: u64, new_event: bool) {
        if new_event {
            self.ssthresh = (basis as f64 / self.mss as f64 / 2.0).max(2.0);
        }
        self.w = 1.0;
        self.target = 1.0;
        self.multiplicative = true;
    }

    fn state_names(&self) -> &'static [&'static str] {
        &["base_rtt_ms", "avg_rtt_ms", "queued_segments"]
    }

    fn state(&self) -> [f64; super::STATE_SLOTS] {
        let base = self.base_rtt.map_or(f64::NAN, |b| b.as_ns() as f64);
        let avg = self.avg_rtt.unwrap_or(f64::NAN);
        [base / 1e6, avg / 1e6, self.w * (1.0 - base / avg), f64::NAN]
    }
}
