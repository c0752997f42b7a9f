//! CUBIC (RFC 9438). After a congestion event at W_max the window follows
//! W_cubic(t) = C·(t − K)³ + W_max (eq. 1), K = ∛(W_max·(1 − β)/C) (eq. 2), t being the
//! time since the window was reduced. Each ACK moves cwnd towards the target
//! W_cubic(t + RTT) (section 4.2: cwnd += (target − cwnd)/cwnd per segment, target
//! clamped to [cwnd, 1.5·cwnd]); the Reno-friendly estimate W_est (section 4.3, eq. 4,
//! α_cubic = 3(1 − β)/(1 + β)) takes over where it is larger. Fast convergence
//! (section 4.7) lowers W_max to W·(1 + β)/2 when a loss comes before W_max was
//! reached again. HyStart++ (RFC 9406) or Linux's HyStart (`linux_hystart.rs`) may end
//! slow start early.
//!
//! Linux-era behaviour is mostly parameters: 2.6.18 used β = 819/1024 and, through a
//! scaling bug, C ≈ 0.4·32/410 (preset `linux-2.6.18`, with initial_ssthresh 100);
//! 2.6.22 (ns-2's TCP/Linux) fixed C (preset `linux-2.6.22`); both capped the growth
//! above W_max at `max_increment` segments per 100 ms of minimum RTT. 2.6.22's update
//! itself differs where windows are small, and is code (`cubic_linux26.rs`,
//! `linux26_update`, in that preset). Mainline uses β = 717/1024 with its HyStart
//! (preset `linux`).

use super::cubic_linux26::Linux26Cubic;
use super::linux_hystart::LinuxHyStart;
use super::window::{segment_window_accessors, AckRatio, SegmentWindow, UNSET};
use super::{check_open, check_positive, AckEvent, AlgorithmConfig, BuildContext};
use super::{CongestionControl, ParamError};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Parameters of `cubic` (RFC 9438 section 5 names).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// C, segments/s³ (RFC 9438: 0.4).
    pub c: f64,
    /// β_cubic (RFC 9438: 0.7).
    pub beta: f64,
    /// Fast convergence (section 4.7).
    pub fast_convergence: bool,
    /// The Reno-friendly region (section 4.3).
    pub reno_friendly: bool,
    /// HyStart++ (RFC 9406) in slow start.
    pub hystart: bool,
    /// Linux's HyStart in slow start (ACK train and delay, `tcp_cubic.c`; the
    /// kernel's default); not with `hystart`.
    pub linux_hystart: bool,
    /// Linux 2.6's cap on growth above W_max: at most this many segments per 100 ms of
    /// minimum RTT (0: none, as RFC 9438).
    pub max_increment: u32,
    /// Initial slow-start threshold, segments (0: none).
    pub initial_ssthresh: u32,
    /// Linux 2.6's ACK counting scaled by its packets-per-ACK estimate ([`AckRatio`]:
    /// about 1.94 times the nominal tracking speed with an ACK per segment); false
    /// counts segments, as RFC 9438 and mainline Linux.
    pub ack_ratio: bool,
    /// Linux 2.6.22's window update (`cubic_linux26.rs`): the increment recomputed at
    /// most every 31 ms while cwnd is unchanged, the TCP-friendly window in whole
    /// segments per ACKs counted, the kernel's integer units; false: RFC 9438's.
    pub linux26_update: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            hystart: false,
            linux_hystart: false,
            max_increment: 0,
            initial_ssthresh: 0,
            ack_ratio: false,
            linux26_update: false,
        }
    }
}

impl AlgorithmConfig for Config {
    fn validate(&self) -> Result<(), ParamError> {
        check_positive("c", self.c)?;
        if self.hystart && self.linux_hystart {
            return Err(ParamError {
                field: "linux_hystart".into(),
                message: "choose one slow-start exit: hystart (RFC 9406) or linux_hystart".into(),
            });
        }
        check_open("beta", self.beta, 0.0, 1.0)
    }

    fn build(&self, ctx: BuildContext) -> Box<dyn CongestionControl> {
        Box::new(Cubic::new(self.clone(), SegmentWindow::for_context(&ctx)))
    }

    fn presets() -> Vec<(&'static str, Self)> {
        let era = Config {
            beta: 819.0 / 1024.0,
            c: 410.0 / 1024.0,
            max_increment: 16,
            ack_ratio: true,
            ..Config::default()
        };
        vec![
            (
                "linux-2.6.18",
                Config {
                    c: 0.4 * 32.0 / 410.0,
                    initial_ssthresh: 100,
                    ..era.clone()
                },
            ),
            (
                "linux-2.6.22",
                Config {
                    linux26_update: true,
                    ..era
                },
            ),
            (
                "linux",
                Config {
                    beta: 717.0 / 1024.0,
                    linux_hystart: true,
                    ..Config::default()
                },
            ),
        ]
    }
}

/// A CUBIC controller.
#[derive(Debug)]
struct Cubic {
    w: SegmentWindow,
    c: Config,
    /// W_max, segments.
    w_max: f64,
    /// K, seconds.
    k: f64,
    /// Start of the current congestion-avoidance epoch.
    epoch_start: Option<SimTime>,
    /// The window the cubic function returns at t = K.
    origin: f64,
    /// Reno-friendly estimate W_est, segments.
    w_est: f64,
    hystart: HyStart,
    linux_hystart: LinuxHyStart,
    /// Linux 2.6's packets-per-ACK estimate, when ACKs are counted.
    ack_ratio: Option<AckRatio>,
    /// Linux 2.6.22's update state, with `linux26_update`.
    linux26: Option<Linux26Cubic>,
}

impl Cubic {
    fn new(c: Config, mut w: SegmentWindow) -> Self {
        if c.initial_ssthresh > 0 {
            w.ssthresh = c.initial_ssthresh;
        }
        Cubic {
            w,
            w_max: 0.0,
            k: 0.0,
            epoch_start: None,
            origin: 0.0,
            w_est: 0.0,
            hystart: HyStart::new(),
            linux_hystart: LinuxHyStart::default(),
            ack_ratio: c.ack_ratio.then(AckRatio::default),
            linux26: c.linux26_update.then(Linux26Cubic::default),
            c,
        }
    }

    /// Segments per one-segment increase at `now` (RFC 9438 4.2–4.3).
    fn ack_count(&mut self, now: SimTime, min_rtt: Option<SimTime>, acked: u32) -> u32 {
        let cwnd = self.w.cwnd as f64;
        let rtt = min_rtt.map_or(0.1, |r| r.as_secs_f64());
        let start = *self.epoch_start.get_or_insert_with(|| {
            // A new epoch (eq. 2); after a timeout or before any loss W_max may lie below.
            if self.w_max > cwnd {
                self.k = ((self.w_max - cwnd) / self.c.c).cbrt();
                self.origin = self.w_max;
            } else {
                self.k = 0.0;
                self.origin = cwnd;
            }
            self.w_est = cwnd;
            now
        });
        let t = (now - start).as_secs_f64() + rtt;
        let target = (self.origin + self.c.c * (t - self.k).powi(3)).clamp(cwnd, 1.5 * cwnd);
        let mut cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100.0 * cwnd
        };
        if self.c.max_increment > 0 && t >= self.k {
            // Linux 2.6: at most max_increment segments per 100 ms of delay.
            let min_cnt = cwnd * 0.1 / (self.c.max_increment as f64 * rtt.max(1e-6));
            cnt = cnt.max(min_cnt);
        }
        if self.c.reno_friendly {
            let beta = self.c.beta;
            let alpha = 3.0 * (1.0 - beta) / (1.0 + beta);
            self.w_est += alpha * acked as f64 / cwnd; // eq. 4
            if self.w_est > cwnd {
                cnt = cnt.min(cwnd / (self.w_est - cwnd));
            }
        }
        (cnt as u32).max(1)
    }

    /// β in the kernel's 1/1024.
    fn beta_1024(&self) -> u64 {
        (self.c.beta * 1024.0).round() as u64
    }

    fn decreased(&mut self, cwnd: u32) -> u32 {
        let beta = self.beta_1024();
        if let Some(l) = &mut self.linux26 {
            let ssthresh = l.decreased(cwnd as u64, beta, self.c.fast_convergence);
            return ssthresh.min(u32::MAX as u64) as u32;
        }
        let w = cwnd as f64;
        self.epoch_start = None;
        self.w_max = if self.c.fast_convergence && w < self.w_max {
            w * (1.0 + self.c.beta) / 2.0
        } else {
            w
        };
        ((w * self.c.beta) as u32).max(2)
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }
    segment_window_accessors!();

    fn on_ack(&mut self, ack: &AckEvent) {
        if self.c.hystart && self.w.in_slow_start() {
            if let Some(exit) = self.hystart.on_ack(ack, self.w.cwnd) {
                self.w.ssthresh = exit;
            }
        }
        if self.c.linux_hystart
            && self.w.in_slow_start()
            && self.linux_hystart.on_ack(ack, self.w.cwnd, self.w.mss)
        {
            self.w.ssthresh = self.w.cwnd;
        }
        if let Some(r) = &mut self.ack_ratio {
            r.observe(ack, self.w.mss);
        }
        if let (Some(l), Some(rtt)) = (&mut self.linux26, ack.rtt) {
            if !ack.in_recovery {
                l.on_rtt_sample(ack.now, rtt); // measure_delay, from cong_avoid
            }
        }
        let Some(acked) = self.w.growth_counted(ack, self.ack_ratio.as_ref()) else {
            return;
        };
        let left = if self.w.in_slow_start() {
            let divisor = self.hystart.css_divisor();
            self.w.slow_start(acked.div_ceil(divisor)) * divisor
        } else {
            acked
        };
        if left > 0 && !self.w.in_slow_start() {
            let (beta, max_inc) = (self.beta_1024(), self.c.max_increment as u64);
            let cnt = match &mut self.linux26 {
                Some(l) => l
                    .update(
                        ack.now,
                        self.w.cwnd as u64,
                        beta,
                        max_inc,
                        self.c.reno_friendly,
                    )
                    .min(u32::MAX as u64) as u32,
                // Linux 2.6's bictcp_update counts ACKs (`ca->ack_cnt++`) in its
                // TCP-friendly estimate, then scales the increment by its ACK ratio.
                None if self.ack_ratio.is_some() => self.ack_count(ack.now, ack.min_rtt, 1),
                None => self.ack_count(ack.now, ack.min_rtt, left),
            };
            self.w
                .cong_avoid_counted(cnt, left, self.ack_ratio.as_ref());
        }
    }

    fn on_congestion_event(&mut self, _now: SimTime, _flight: u64, _in_flight: u64) {
        let target = self.decreased(self.w.cwnd);
        self.w.reduce_to(target);
        self.hystart.done = true;
    }

    fn on_retransmission_timeout(&mut self, _now: SimTime, basis: u64, new_event: bool) {
        let target = new_event.then(|| self.decreased(self.w.segments(basis).max(1)));
        self.w.loss_window(target);
        // RFC 9438 section 4.8: the first congestion avoidance after a timeout starts a
        // fresh epoch with K = 0 and W_max = the window it starts at (Linux likewise
        // resets the module's state on entering Loss, bictcp_reset in cubictcp_state).
        // A W_max kept from before the timeout would aim the window at it again.
        self.w_max = 0.0;
        self.epoch_start = None;
        self.hystart = HyStart::new();
        self.linux_hystart.reset();
        // Linux 2.6 resets it with the rest of its state on entering Loss.
        self.ack_ratio = self.ack_ratio.map(|_| AckRatio::default());
        if let Some(l) = &mut self.linux26 {
            l.reset(); // bictcp_reset from cubictcp_state(TCP_CA_Loss)
        }
    }

    fn state_names(&self) -> &'static [&'static str] {
        &["w_max_segments", "k_s"]
    }

    fn state(&self) -> [f64; super::STATE_SLOTS] {
        let (w_max, k) = match &self.linux26 {
            Some(l) => (l.last_max_cwnd as f64, l.k_seconds()),
            None => (self.w_max, self.k),
        };
        if self.w.ssthresh == UNSET || w_max == 0.0 {
            return [f64::NAN; super::STATE_SLOTS];
        }
        [w_max, k, f64::NAN, f64::NAN]
    }
}

/// HyStart++ (RFC 9406 section 4.3) round state.
#[derive(Debug, Clone)]
struct HyStart {
    last_round_min_rtt: Option<SimTime>,
    current_round_min_rtt: Option<SimTime>,
    rtt_sample_count: u32,
    /// In Conservative Slow Start since this RTT baseline, with rounds left.
    css: Option<(SimTime, u32)>,
    done: bool,
}

/// RFC 9406 constants (section 4.3).
const MIN_RTT_THRESH: SimTime = SimTime::from_ms(4);
const MAX_RTT_THRESH: SimTime = SimTime::from_ms(16);
const MIN_RTT_DIVISOR: u64 = 8;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: u32 = 4;
const CSS_ROUNDS: u32 = 5;

impl HyStart {
    fn new() -> Self {
        HyStart {
            last_round_min_rtt: None,
            current_round_min_rtt: None,
            rtt_sample_count: 0,
            css: None,
            done: false,
        }
    }

    fn css_divisor(&self) -> u32 {
        if self.css.is_some() {
            CSS_GROWTH_DIVISOR
        } else {
            1
        }
    }

    /// Returns the new ssthresh (segments) when slow start should end.
    fn on_ack(&mut self, ack: &AckEvent, cwnd: u32) -> Option<u32> {
        if self.done {
            return None;
        }
        if ack.round_start {
            self.last_round_min_rtt = self.current_round_min_rtt;
            self.current_round_min_rtt = None;
            self.rtt_sample_count = 0;
            if let Some((base, rounds)) = self.css {
                if rounds <= 1 {
                    self.done = true;
                    self.css = None;
                    return Some(cwnd);
                }
                self.css = Some((base, rounds - 1));
            }
        }
        if let Some(r) = ack.rtt {
            self.current_round_min_rtt = Some(self.current_round_min_rtt.map_or(r, |m| m.min(r)));
            self.rtt_sample_count += 1;
        }
        let (Some(last), Some(current)) = (self.last_round_min_rtt, self.current_round_min_rtt)
        else {
            return None;
        };
        match self.css {
            None if self.rtt_sample_count >= N_RTT_SAMPLE => {
                let thresh = SimTime(last.as_ns() / MIN_RTT_DIVISOR)
                    .max(MIN_RTT_THRESH)
                    .min(MAX_RTT_THRESH);
                if current >= last + thresh {
                    self.css = Some((current, CSS_ROUNDS));
                }
            }
            Some((base, _)) if self.rtt_sample_count >= N_RTT_SAMPLE && current < base => {
                self.css = None; // the delay increase was spurious: back to slow start
            }
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After a loss at W = 1,000 segments (β = 0.7, C = 0.4, no Reno-friendly region)
    /// the window follows C(t − K)³ + W_max with K = ∛(W_max(1 − β)/C) ≈ 9.09 s, to
    /// within 2% (t counted from the reduction, each RTT of 100 ms one window of ACKs).
    #[test]
    fn window_follows_the_cubic_function() {
        let cfg = Config {
            reno_friendly: false,
            ..Config::default()
        };
        let mut cc = Cubic::new(cfg, SegmentWindow::new(1000, 1_000_000));
        let rtt = SimTime::from_ms(100);
        cc.on_congestion_event(SimTime::ZERO, 0, 0);
        assert_eq!(cc.w.cwnd, 700);
        let k = (1000.0f64 * 0.3 / 0.4).cbrt();
        let mut now = SimTime::ZERO;
        for round in 0..150 {
            let n = cc.w.cwnd;
            for i in 0..n {
                let at = now + SimTime(rtt.as_ns() * i as u64 / n as u64);
                cc.on_ack(&AckEvent {
                    bytes_acked: 1000,
                    newly_acked_bytes: 1000,
                    min_rtt: Some(rtt),
                    ..AckEvent::empty(at)
                });
            }
            now += rtt;
            let t = now.as_secs_f64();
            let expected = 0.4 * (t - k).powi(3) + 1000.0;
            let got = cc.w.cwnd as f64;
            assert!(
                (got - expected).abs() / expected < 0.02,
                "round {round}, t = {t:.1} s: cwnd {got} vs W_cubic {expected:.1}"
            );
        }
    }

    /// Linux 2.6.18's TCP-friendly estimate counts ACKs (`bictcp_update`: `ack_cnt++`,
    /// then tcp_cwnd + 1 per cwnd·beta_scale/8 of them, beta_scale = 8·(1024 + 819) /
    /// 3 / (1024 − 819) ≈ 23.97): 1/(3.0·cwnd) per ACK, whatever the ACK covers. 300
    /// delayed ACKs of two segments each on a 100-segment window: +1 segment (not 2).
    #[test]
    fn the_2618_friendly_estimate_counts_acks_not_segments() {
        let cfg = Config::presets()
            .into_iter()
            .find(|(name, _)| *name == "linux-2.6.18")
            .expect("the preset")
            .1;
        let mut cc = Cubic::new(cfg, SegmentWindow::new(1000, 1_000_000));
        cc.w.cwnd = 100;
        cc.w.ssthresh = 100;
        let mut at = SimTime::from_ms(1);
        for _ in 0..300 {
            cc.on_ack(&AckEvent {
                bytes_acked: 1000,
                newly_acked_bytes: 2000,
                min_rtt: Some(SimTime::from_ms(10)),
                ..AckEvent::empty(at)
            });
            at += SimTime::from_ms(1);
        }
        // The estimate starts at the window when the epoch opens (first ACK) and grows
        // by α/cwnd per ACK after it, α = 3(1 − β)/(1 + β) = 1/3 with β = 819/1024, for
        // a window that grew meanwhile by at most a few segments.
        let grown = cc.w_est - 100.0;
        assert!((0.85..1.0).contains(&grown), "{grown}");
    }
}
