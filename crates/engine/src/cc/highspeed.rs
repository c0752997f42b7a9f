//! HighSpeed TCP (RFC 3649), as Linux's `tcp_highspeed.c` runs it: Reno up to
//! Low_Window; above it, a(w) segments per RTT and a decrease to (1 − b(w))·w, both read
//! from a table of windows at which a(w) steps by one.
//!
//! The table is computed here from RFC 3649's definitions (section 5 and appendix B):
//! b(w) = 0.5 + (High_Decrease − 0.5)·(ln w − ln Low_Window)/(ln High_Window −
//! ln Low_Window), the response function p(w) = 0.078/w^1.2 (W = 0.12/p^0.835), and
//! a(w) = w²·p(w)·2·b(w)/(2 − b(w)). Row k is the smallest window with a(w) ≥ k + 1;
//! its decrease is b(w) in 1/256ths, truncated, as Linux stores it. The rows agree with
//! Linux's (RFC 3649 appendix B's) table to within 0.3% of w (the published table came
//! from a slightly different rounding of p(w)), with identical decreases; the tests
//! check that.
//!
//! As in Linux, the window grows by a(w) = row + 1 segments per window of ACKs where
//! table[row − 1] < cwnd ≤ table[row], and a loss sets cwnd = cwnd − cwnd·md/256 with
//! that row's md. Linux 2.6.18 also applied RFC 3742 Limited Slow-Start above
//! `max_ssthresh` (`limited_slow_start`, 0: off).
//!
//! Because a row's a(w) is that of its upper window, Linux grows faster than RFC
//! 3649's continuous a(w) inside each row (by up to one segment per RTT), which raises
//! the mean window above the RFC's W = 0.12/p^0.835: by 16% at p = 1e-4 and 6% at
//! 1e-5 in a fluid model. `stepwise = false` runs the RFC's functions instead: a(w)
//! and b(w) evaluated at the current window on every ACK and every decrease.

use super::window::{segment_window_accessors, SegmentWindow};
use super::{check_open, check_positive, AckEvent, AlgorithmConfig, BuildContext};
use super::{CongestionControl, ParamError};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Parameters of `highspeed` (RFC 3649 section 5).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Low_Window: below it HighSpeed is Reno (segments).
    pub low_window: f64,
    /// High_Window: the window at which b(w) reaches High_Decrease (segments).
    pub high_window: f64,
    /// High_Decrease: b(High_Window).
    pub high_decrease: f64,
    /// Rows of the table (Linux: 72, up to w = 89,053).
    pub table_rows: u32,
    /// RFC 3742 Limited Slow-Start threshold (segments; 0: plain slow start).
    pub limited_slow_start: u32,
    /// Linux's stepwise table (true) or RFC 3649's continuous a(w), b(w) (false).
    pub stepwise: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            low_window: 38.0,
            high_window: 83_000.0,
            high_decrease: 0.1,
            table_rows: 72,
            limited_slow_start: 0,
            stepwise: true,
        }
    }
}

impl AlgorithmConfig for Config {
    fn validate(&self) -> Result<(), ParamError> {
        check_positive("low_window", self.low_window)?;
        // partial_cmp: a NaN high_window is refused too.
        if self.high_window.partial_cmp(&self.low_window) != Some(std::cmp::Ordering::Greater)
            || !self.high_window.is_finite()
        {
            return Err(ParamError::new(
                "high_window",
                format!(
                    "must exceed low_window ({}), got {}",
                    self.low_window, self.high_window
                ),
            ));
        }
        check_open("high_decrease", self.high_decrease, 0.0, 0.5)?;
        if !(1..=1000).contains(&self.table_rows) {
            return Err(ParamError::new("table_rows", "must be between 1 and 1000"));
        }
        Ok(())
    }

    fn build(&self, ctx: BuildContext) -> Box<dyn CongestionControl> {
        Box::new(HighSpeed {
            w: SegmentWindow::for_context(&ctx),
            table: table(self),
            row: 0,
            limited_slow_start: self.limited_slow_start,
            continuous: (!self.stepwise).then(|| Continuous {
                c: self.clone(),
                growth: 0.0,
            }),
        })
    }

    fn presets() -> Vec<(&'static str, Self)> {
        vec![(
            "linux-2.6.18",
            Config {
                limited_slow_start: 100,
                ..Config::default()
            },
        )]
    }
}

/// One table row: the window up to which it applies and its decrease in 1/256ths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// Largest window (segments) of this row.
    pub cwnd: u32,
    /// Multiplicative decrease, ×256.
    pub md: u32,
}

/// RFC 3649's b(w).
fn decrease(c: &Config, w: f64) -> f64 {
    (c.high_decrease - 0.5) * (w.ln() - c.low_window.ln())
        / (c.high_window.ln() - c.low_window.ln())
        + 0.5
}

/// RFC 3649's a(w), from p(w) = 0.078/w^1.2 (appendix B).
fn increase(c: &Config, w: f64) -> f64 {
    let b = decrease(c, w);
    w * w * (0.078 / w.powf(1.2)) * 2.0 * b / (2.0 - b)
}

/// The table of windows at which a(w) steps by one segment per RTT.
pub fn table(c: &Config) -> Vec<Row> {
    let mut rows = Vec::with_capacity(c.table_rows as usize);
    let mut w = c.low_window.ceil();
    for k in 0..c.table_rows {
        if k > 0 {
            while increase(c, w) < (k + 1) as f64 {
                w += 1.0;
            }
        }
        rows.push(Row {
            cwnd: w as u32,
            md: (decrease(c, w) * 256.0) as u32,
        });
    }
    rows
}

/// A HighSpeed TCP controller.
#[derive(Debug)]
struct HighSpeed {
    w: SegmentWindow,
    table: Vec<Row>,
    /// Current row: table[row − 1].cwnd < cwnd ≤ table[row].cwnd (Linux `ai`).
    row: usize,
    limited_slow_start: u32,
    /// Set when the RFC's continuous functions replace the table.
    continuous: Option<Continuous>,
}

/// RFC 3649's a(w) and b(w) evaluated at the window itself.
#[derive(Debug)]
struct Continuous {
    c: Config,
    /// Fractional segments of growth not yet added to cwnd.
    growth: f64,
}

impl Continuous {
    /// a(w), or Reno's 1 at and below Low_Window.
    fn a(&self, w: u32) -> f64 {
        if (w as f64) <= self.c.low_window {
            1.0
        } else {
            increase(&self.c, w as f64)
        }
    }

    /// (1 − b(w))·w, or Reno's halving at and below Low_Window.
    fn decreased(&self, w: u32) -> u32 {
        let b = if (w as f64) <= self.c.low_window {
            0.5
        } else {
            decrease(&self.c, w as f64)
        };
        (w as f64 * (1.0 - b)) as u32
    }
}

impl HighSpeed {
    /// The row of window `cwnd`, searched from `row` (Linux moves `ai` step by step).
    fn row_for(&self, cwnd: u32, mut row: usize) -> usize {
        while cwnd > self.table[row].cwnd && row + 1 < self.table.len() {
            row += 1;
        }
        while row > 0 && cwnd <= self.table[row - 1].cwnd {
            row -= 1;
        }
        row
    }

    fn update_row(&mut self) {
        self.row = self.row_for(self.w.cwnd, self.row);
    }

    /// cwnd − cwnd·md/256 with the md of the current row (or (1 − b(w))·w). As in
    /// Linux, the row moves only on ACKs in congestion avoidance: a loss that ends slow
    /// start finds row 0 and halves the window, whatever its size.
    fn decreased(&self, cwnd: u32) -> u32 {
        if let Some(c) = &self.continuous {
            return c.decreased(cwnd);
        }
        let md = self.table[self.row].md as u64;
        (cwnd as u64 - cwnd as u64 * md / 256) as u32
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
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
            let max_ss = self.limited_slow_start;
            if max_ss > 0 && self.w.cwnd > max_ss {
                // RFC 3742: at most max_ssthresh/2 segments per RTT.
                let k = (2 * self.w.cwnd / max_ss).max(1);
                self.w.cong_avoid_ai(k, acked);
            } else {
                self.w.slow_start(acked);
            }
            return;
        }
        if let Some(c) = &mut self.continuous {
            // cwnd += a(w)/cwnd per segment acknowledged.
            let w = self.w.cwnd;
            let segments = c.a(w) * acked as f64 / w as f64;
            self.w.grow_fractional(&mut c.growth, segments);
            return;
        }
        self.update_row();
        // cwnd += a(w)/cwnd per segment acknowledged.
        let a = self.row as u32 + 1;
        let w = self.w.cwnd;
        self.w.cong_avoid_ai(w, acked.saturating_mul(a));
    }

    fn on_congestion_event(&mut self, _now: SimTime, _flight: u64, _in_flight: u64) {
        let target = self.decreased(self.w.cwnd);
        self.w.reduce_to(target);
    }

    fn on_retransmission_timeout(&mut self, _now: SimTime, basis: u64, new_event: bool) {
        let target = new_event.then(|| self.decreased(self.w.segments(basis).max(1)));
        self.w.loss_window(target);
        self.row = 0;
    }

    fn state_names(&self) -> &'static [&'static str] {
        &["a_segments", "b"]
    }

    fn state(&self) -> [f64; super::STATE_SLOTS] {
        if let Some(c) = &self.continuous {
            let w = self.w.cwnd;
            let b = 1.0 - c.decreased(w) as f64 / w.max(1) as f64;
            return [c.a(w), b, f64::NAN, f64::NAN];
        }
        let row = self.table[self.row];
        [
            (self.row + 1) as f64,
            row.md as f64 / 256.0,
            f64::NAN,
            f64::NAN,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of RFC 3649 appendix B / Linux `hstcp_aimd_vals` (w, md×256), copied by
    /// hand from the RFC as an independent reference.
    const PUBLISHED: [(u32, u32); 8] = [
        (38, 128),
        (118, 112),
        (221, 104),
        (1058, 83),
        (5036, 62),
        (10661, 52),
        (48961, 32),
        (89053, 24),
    ];

    #[test]
    fn computed_table_matches_the_published_rows() {
        let t = table(&Config::default());
        assert_eq!(t.len(), 72);
        for (w, md) in PUBLISHED {
            let row = t
                .iter()
                .min_by_key(|r| (r.cwnd as i64 - w as i64).abs())
                .unwrap();
            let err = (row.cwnd as f64 - w as f64).abs() / w as f64;
            assert!(err < 0.003, "row near {w}: computed {}", row.cwnd);
            assert_eq!(row.md, md, "md at {w}");
        }
    }

    fn controller(cwnd: u32) -> HighSpeed {
        let mut h = HighSpeed {
            w: SegmentWindow::new(1000, cwnd as u64 * 1000),
            table: table(&Config::default()),
            row: 0,
            limited_slow_start: 0,
            continuous: None,
        };
        h.w.ssthresh = 1;
        h
    }

    /// Mean growth per RTT over `rtts` windows of single-segment ACKs.
    fn growth_per_rtt(h: &mut HighSpeed, rtts: u32) -> f64 {
        let start = h.w.cwnd;
        for _ in 0..rtts {
            for _ in 0..h.w.cwnd {
                h.on_ack(&AckEvent {
                    bytes_acked: 1000,
                    ..AckEvent::empty(SimTime::ZERO)
                });
            }
        }
        (h.w.cwnd - start) as f64 / rtts as f64
    }

    /// a(w) per RTT at chosen windows: Reno below 38, then the table's steps
    /// (w = 100 lies in row 1: a = 2; 1,000 in row 7: a = 8; 10,000 in row 29: a = 30),
    /// over four RTTs (the window stays within the row).
    #[test]
    fn increase_per_rtt_follows_a_of_w() {
        for (w, a) in [(30, 1.0), (100, 2.0), (1000, 8.0), (10_000, 30.0)] {
            let got = growth_per_rtt(&mut controller(w), 4);
            assert!((got - a).abs() <= 0.25, "a({w}) = {a}, got {got}");
        }
    }

    /// b(w): 0.5 at 38, 0.33 at 1,000, 0.21 at 10,000 (appendix B rows 8 and 30).
    #[test]
    fn a_loss_in_slow_start_halves_as_linux_row_zero() {
        let mut h = controller(1000);
        h.w.ssthresh = u32::MAX; // still in slow start: the row stays 0
        h.on_ack(&AckEvent {
            bytes_acked: 1000,
            ..AckEvent::empty(SimTime::ZERO)
        });
        h.on_congestion_event(SimTime::ZERO, 0, 0);
        assert_eq!(h.w.cwnd, 1001 - 1001 * 128 / 256);
    }

    #[test]
    fn decrease_follows_b_of_w() {
        for (w, after) in [
            (38, 19),
            (1000, 1000 - 1000 * 83 / 256),
            (10_000, 10_000 - 10_000 * 52 / 256),
        ] {
            let mut h = controller(w);
            // One ACK in congestion avoidance moves the row to the window's.
            h.on_ack(&AckEvent {
                bytes_acked: 1000,
                ..AckEvent::empty(SimTime::ZERO)
            });
            let w = h.w.cwnd;
            h.on_congestion_event(SimTime::ZERO, 0, 0);
            assert_eq!(h.w.cwnd, after, "b({w})");
        }
    }
}
