//! BBR v1 (Cardwell, Cheng, Gunn, Yeganeh, Jacobson, "BBR: congestion-based congestion
//! control", ACM Queue 2016; Linux 4.9 `tcp_bbr.c`).
//!
//! BBR models the path by BtlBw, the windowed maximum of delivery-rate samples over
//! the last 10 rounds, and RTprop, the minimum RTT over the last 10 s. It paces at
//! pacing_gain·BtlBw and caps the window at cwnd_gain·BtlBw·RTprop (+ 3 segments for
//! ACK aggregation, Linux's quantization budget). The state machine:
//! * Startup: pacing_gain = cwnd_gain = 2/ln 2 until BtlBw stops growing by 25% for 3
//!   rounds (the pipe is full);
//! * Drain: pacing_gain = ln 2/2 until the data in flight falls to one BDP;
//! * ProbeBW: the gain cycles through 5/4, 3/4, 1 ×6, one phase per RTprop, starting at
//!   a random phase other than 3/4; a 5/4 phase lasts until in flight reaches 5/4 BDP
//!   (or a loss), a 3/4 phase ends early once in flight is down to one BDP;
//! * ProbeRTT: when RTprop has not been refreshed for 10 s, cwnd drops to 4 segments
//!   for 200 ms and one round, then BBR returns to ProbeBW (or Startup). What it sends
//!   meanwhile is marked application-limited, so its low delivery rates leave BtlBw
//!   alone (Linux 4.9's `bbr_update_min_rtt`).
//!
//! Loss recovery: packet conservation in the first round of recovery (cwnd = in
//! flight + newly delivered), the window before recovery restored at its end.

use super::ParamError;
use super::{check_positive, AckEvent, AlgorithmConfig, BuildContext, CongestionControl};
use crate::rng::Rng;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Parameters of `bbr` (Linux 4.9 constants as defaults).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Startup pacing and cwnd gain (2/ln 2).
    pub high_gain: f64,
    /// Drain pacing gain (ln 2/2).
    pub drain_gain: f64,
    /// cwnd gain in ProbeBW.
    pub cwnd_gain: f64,
    /// Pacing gain of the probing phase of the ProbeBW cycle.
    pub probe_up_gain: f64,
    /// Pacing gain of the draining phase of the ProbeBW cycle.
    pub probe_down_gain: f64,
    /// Phases in the ProbeBW cycle (up, down, then cruising at 1).
    pub cycle_length: u32,
    /// Rounds of the BtlBw max filter.
    pub bw_window_rounds: u32,
    /// Window of the RTprop min filter, ns.
    pub min_rtt_window_ns: u64,
    /// Time spent in ProbeRTT, ns.
    pub probe_rtt_duration_ns: u64,
    /// cwnd in ProbeRTT, segments.
    pub probe_rtt_cwnd_segments: u32,
    /// The pipe is full once BtlBw grows less than this factor…
    pub full_bw_growth: f64,
    /// …for this many rounds.
    pub full_bw_rounds: u32,
    /// Pace this fraction below the estimate (Linux: 1%).
    pub pacing_margin: f64,
}

impl Default for Config {
    fn default() -> Self {
        let high_gain = 2.0 / std::f64::consts::LN_2;
        Config {
            high_gain,
            drain_gain: 1.0 / high_gain,
            cwnd_gain: 2.0,
            probe_up_gain: 1.25,
            probe_down_gain: 0.75,
            cycle_length: 8,
            bw_window_rounds: 10,
            min_rtt_window_ns: 10_000_000_000,
            probe_rtt_duration_ns: 200_000_000,
            probe_rtt_cwnd_segments: 4,
            full_bw_growth: 1.25,
            full_bw_rounds: 3,
            pacing_margin: 0.01,
        }
    }
}

impl AlgorithmConfig for Config {
    fn validate(&self) -> Result<(), ParamError> {
        for (field, v) in [
            ("high_gain", self.high_gain),
            ("drain_gain", self.drain_gain),
            ("cwnd_gain", self.cwnd_gain),
            ("probe_up_gain", self.probe_up_gain),
            ("probe_down_gain", self.probe_down_gain),
            ("full_bw_growth", self.full_bw_growth),
        ] {
            check_positive(field, v)?;
        }
        if !(0.0..1.0).contains(&self.pacing_margin) {
            return Err(ParamError::new("pacing_margin", "must be in [0, 1)"));
        }
        if self.cycle_length < 2 {
            return Err(ParamError::new("cycle_length", "must be at least 2"));
        }
        for (field, v) in [
            ("bw_window_rounds", self.bw_window_rounds),
            ("full_bw_rounds", self.full_bw_rounds),
            ("probe_rtt_cwnd_segments", self.probe_rtt_cwnd_segments),
        ] {
            if v == 0 {
                return Err(ParamError::new(field, "must be at least 1"));
            }
        }
        if self.min_rtt_window_ns == 0 {
            return Err(ParamError::new("min_rtt_window", "must be greater than 0"));
        }
        Ok(())
    }

    fn build(&self, ctx: BuildContext) -> Box<dyn CongestionControl> {
        Box::new(Bbr {
            mss: ctx.mss,
            cwnd: ctx.initial_window.max(ctx.mss),
            round: 0,
            rng: ctx.rng,
            mode: Mode::Startup,
            pacing_gain: self.high_gain,
            cwnd_gain: self.high_gain,
            bw: BwFilter::new(self.bw_window_rounds),
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            srtt: None,
            full_bw: 0.0,
            full_bw_count: 0,
            full_pipe: false,
            cycle_index: 0,
            cycle_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            recovery_round: None,
            pacing_rate: None,
            c: self.clone(),
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// BtlBw: the windowed maximum of delivery-rate samples, kept as Kathleen Nichols'
/// running estimator (Linux's `lib/win_minmax.c`, which BBR uses): the best sample and
/// two runners-up from later in the window, so that when the best ages out a recent
/// one takes over. Ages are counted in rounds, and only a new sample ages the
/// estimate: while every sample is ignored (application-limited, ProbeRTT) the last
/// maximum stands, as in Linux — a filter that forgot it by the clock would lose the
/// path's rate in every ProbeRTT of more than ten rounds.
#[derive(Debug)]
struct BwFilter {
    /// Window length, rounds.
    window: u64,
    /// (round, bit/s): the maximum, then the best later ones, oldest first.
    best: [(u64, f64); 3],
}

impl BwFilter {
    fn new(rounds: u32) -> Self {
        BwFilter {
            window: rounds as u64,
            best: [(0, 0.0); 3],
        }
    }

    /// A sample `bw` taken in `round`.
    fn update(&mut self, round: u64, bw: f64) {
        let sample = (round, bw);
        let [first, second, third] = self.best;
        // A new maximum, or nothing left inside the window: start over from it.
        if bw >= first.1 || round.saturating_sub(third.0) > self.window {
            self.best = [sample; 3];
            return;
        }
        if bw >= second.1 {
            self.best[1] = sample;
            self.best[2] = sample;
        } else if bw >= third.1 {
            self.best[2] = sample;
        }
        let age = round.saturating_sub(self.best[0].0);
        if age > self.window {
            // The maximum is too old: the runners-up move up, the sample comes last
            // (twice, if the next one is too old as well).
            self.best = [self.best[1], self.best[2], sample];
            if round.saturating_sub(self.best[0].0) > self.window {
                self.best = [self.best[1], self.best[2], sample];
            }
        } else if self.best[1].0 == self.best[0].0 && age > self.window / 4 {
            // A quarter of the window gone with no distinct runner-up: take this one.
            self.best[1] = sample;
            self.best[2] = sample;
        } else if self.best[2].0 == self.best[1].0 && age > self.window / 2 {
            self.best[2] = sample;
        }
    }

    /// The estimate: the current maximum, however old (see the type's doc).
    fn max(&self) -> f64 {
        self.best[0].1
    }
}

/// A BBR v1 controller.
#[derive(Debug)]
struct Bbr {
    mss: u64,
    cwnd: u64,
    /// The latest round count seen.
    round: u64,
    rng: Rng,
    c: Config,
    mode: Mode,
    pacing_gain: f64,
    cwnd_gain: f64,
    bw: BwFilter,
    min_rtt: Option<SimTime>,
    min_rtt_stamp: SimTime,
    srtt: Option<SimTime>,
    full_bw: f64,
    full_bw_count: u32,
    full_pipe: bool,
    cycle_index: u32,
    cycle_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    prior_cwnd: u64,
    /// In recovery: the round it started in (packet conservation for that round).
    recovery_round: Option<u64>,
    pacing_rate: Option<f64>,
}

impl Bbr {
    fn btl_bw(&self) -> f64 {
        self.bw.max()
    }

    /// gain × BtlBw × RTprop, bytes (None before both are measured).
    fn bdp(&self, gain: f64) -> Option<u64> {
        let bw = self.btl_bw();
        let rtt = self.min_rtt?;
        (bw > 0.0).then(|| (gain * bw * rtt.as_secs_f64() / 8.0) as u64)
    }

    fn cycle_gain(&self) -> f64 {
        match self.cycle_index {
            0 => self.c.probe_up_gain,
            1 => self.c.probe_down_gain,
            _ => 1.0,
        }
    }

    fn enter_probe_bw(&mut self, now: SimTime) {
        self.mode = Mode::ProbeBw;
        self.cwnd_gain = self.c.cwnd_gain;
        // A random phase, never the draining one.
        let n = self.c.cycle_length as u64;
        let r = self.rng.next_u64() % (n - 1);
        self.cycle_index = if r >= 1 { r as u32 + 1 } else { 0 };
        self.cycle_stamp = now;
        self.pacing_gain = self.cycle_gain();
    }

    fn update_cycle_phase(&mut self, ack: &AckEvent) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let Some(min_rtt) = self.min_rtt else { return };
        let full_length = ack.now.saturating_sub(self.cycle_stamp) > min_rtt;
        let gain = self.pacing_gain;
        let advance = if gain > 1.0 {
            full_length
                && (ack.in_recovery || self.bdp(gain).is_none_or(|t| ack.prior_in_flight >= t))
        } else if gain < 1.0 {
            full_length || self.bdp(1.0).is_some_and(|t| ack.prior_in_flight <= t)
        } else {
            full_length
        };
        if advance {
            self.cycle_index = (self.cycle_index + 1) % self.c.cycle_length;
            self.cycle_stamp = ack.now;
            self.pacing_gain = self.cycle_gain();
        }
    }

    fn check_full_pipe(&mut self, ack: &AckEvent) {
        if self.full_pipe || !ack.round_start || ack.rate.is_some_and(|r| r.is_app_limited) {
            return;
        }
        let bw = self.btl_bw();
        if bw >= self.full_bw * self.c.full_bw_growth {
            self.full_bw = bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_pipe = self.full_bw_count >= self.c.full_bw_rounds;
    }

    fn check_drain(&mut self, ack: &AckEvent) {
        if self.mode == Mode::Startup && self.full_pipe {
            self.mode = Mode::Drain;
            self.pacing_gain = self.c.drain_gain;
            self.cwnd_gain = self.c.high_gain;
        }
        if self.mode == Mode::Drain && self.bdp(1.0).is_some_and(|t| ack.in_flight <= t) {
            self.enter_probe_bw(ack.now);
        }
    }

    fn update_min_rtt(&mut self, ack: &AckEvent) {
        let window = SimTime(self.c.min_rtt_window_ns);
        let expired = ack.now > self.min_rtt_stamp.saturating_add(window);
        if let Some(r) = ack.rtt {
            if self.min_rtt.is_none_or(|m| r <= m) || expired {
                self.min_rtt = Some(r);
                self.min_rtt_stamp = ack.now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt && self.min_rtt.is_some() {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.save_cwnd();
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            let floor = self.c.probe_rtt_cwnd_segments as u64 * self.mss;
            match self.probe_rtt_done {
                None if ack.in_flight <= floor => {
                    self.probe_rtt_done = Some(ack.now + SimTime(self.c.probe_rtt_duration_ns));
                    self.probe_rtt_round_done = false;
                }
                Some(done) => {
                    if ack.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && ack.now >= done {
                        self.min_rtt_stamp = ack.now;
                        self.cwnd = self.cwnd.max(self.prior_cwnd);
                        if self.full_pipe {
                            self.enter_probe_bw(ack.now);
                        } else {
                            self.mode = Mode::Startup;
                            self.pacing_gain = self.c.high_gain;
                            self.cwnd_gain = self.c.high_gain;
                        }
                    }
                }
                None => {}
            }
        }
    }

    fn save_cwnd(&mut self) {
        self.prior_cwnd = if self.recovery_round.is_none() && self.mode != Mode::ProbeRtt {
            self.cwnd
        } else {
            self.prior_cwnd.max(self.cwnd)
        };
    }

    fn set_pacing_rate(&mut self) {
        let bw = self.btl_bw();
        let rate = if bw > 0.0 {
            self.pacing_gain * bw * (1.0 - self.c.pacing_margin)
        } else if let Some(srtt) = self.srtt {
            self.c.high_gain * self.cwnd as f64 * 8e9 / srtt.as_ns().max(1) as f64
        } else {
            return;
        };
        // In Startup the rate only rises (Linux `bbr_set_pacing_rate`).
        if self.full_pipe || self.pacing_rate.is_none_or(|r| rate > r) {
            self.pacing_rate = Some(rate);
        }
    }

    fn set_cwnd(&mut self, ack: &AckEvent) {
        let acked = ack.delivered_bytes;
        let floor = self.c.probe_rtt_cwnd_segments as u64 * self.mss;
        if let Some(start) = self.recovery_round {
            if ack.round_count <= start + 1 {
                // Packet conservation in the first round of recovery.
                self.cwnd = self.cwnd.max(ack.in_flight + acked).max(floor);
                return;
            }
        }
        match self.bdp(self.cwnd_gain) {
            Some(target) => {
                let target = target + 3 * self.mss;
                if self.full_pipe {
                    self.cwnd = (self.cwnd + acked).min(target);
                } else if self.cwnd < target || ack.round_count <= 1 {
                    self.cwnd += acked;
                }
            }
            None => self.cwnd += acked,
        }
        self.cwnd = self.cwnd.max(floor);
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(floor);
        }
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        u64::MAX
    }
    fn requires_pacing(&self) -> bool {
        true
    }
    fn controls_recovery_window(&self) -> bool {
        true
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }
    fn holds_back_sending(&self) -> bool {
        self.mode == Mode::ProbeRtt
    }
    fn pacing_rate_bps(&self) -> Option<f64> {
        self.pacing_rate
    }

    fn on_ack(&mut self, ack: &AckEvent) {
        self.round = ack.round_count;
        if ack.srtt.is_some() {
            self.srtt = ack.srtt;
        }
        if let Some(rs) = ack.rate {
            let round = ack.round_count;
            if !rs.is_app_limited || rs.delivery_rate_bps >= self.btl_bw() {
                self.bw.update(round, rs.delivery_rate_bps);
            }
        }
        self.update_cycle_phase(ack);
        self.check_full_pipe(ack);
        self.check_drain(ack);
        self.update_min_rtt(ack);
        self.set_pacing_rate();
        self.set_cwnd(ack);
        if !ack.in_recovery {
            self.recovery_round = None;
        }
    }

    fn on_congestion_event(&mut self, _now: SimTime, _flight: u64, in_flight: u64) {
        self.save_cwnd();
        self.recovery_round = Some(self.round);
        self.cwnd = in_flight.max(self.mss);
    }

    fn on_recovery_end(&mut self, _now: SimTime) {
        self.recovery_round = None;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
    }

    fn on_retransmission_timeout(&mut self, _now: SimTime, _basis: u64, _new_event: bool) {
        self.save_cwnd();
        self.recovery_round = None;
        self.cwnd = self.mss;
    }

    fn state_names(&self) -> &'static [&'static str] {
        &["bw_mbps", "min_rtt_ms", "mode", "pacing_gain"]
    }

    fn state(&self) -> [f64; super::STATE_SLOTS] {
        let bw = self.bw.max();
        [
            bw / 1e6,
            self.min_rtt.map_or(f64::NAN, |r| r.as_ns() as f64 / 1e6),
            match self.mode {
                Mode::Startup => 0.0,
                Mode::Drain => 1.0,
                Mode::ProbeBw => 2.0,
                Mode::ProbeRtt => 3.0,
            },
            self.pacing_gain,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without new samples the maximum stands, however many rounds pass (ProbeRTT's
    /// ignored samples must not erase the path's rate).
    #[test]
    fn the_maximum_stands_until_a_sample_ages_it() {
        let mut f = BwFilter::new(10);
        f.update(1, 100.0);
        assert_eq!(f.max(), 100.0);
        // Nothing for 30 rounds: still 100.
        f.update(31, 20.0);
        // ...until a sample arrives past the window: then it is all that is left.
        assert_eq!(f.max(), 20.0);
    }

    /// A maximum older than the window gives way to the best sample taken after it,
    /// worked by hand: 100 at round 0, 90 at round 3 (a quarter of the window gone:
    /// the runner-up), 80 at round 6 (half gone: the third); at round 11 the 100 is
    /// 11 rounds old, so 90 (round 3) leads.
    #[test]
    fn an_aged_maximum_yields_to_the_best_later_sample() {
        let mut f = BwFilter::new(10);
        f.update(0, 100.0);
        f.update(3, 90.0);
        f.update(6, 80.0);
        assert_eq!(f.max(), 100.0);
        f.update(11, 50.0);
        assert_eq!(f.max(), 90.0);
        // A larger sample always takes over at once.
        f.update(12, 95.0);
        assert_eq!(f.max(), 95.0);
    }
}
