//! BBR v1 (Cardwell, Cheng, Gunn, Yeganeh, Jacobson, "BBR: congestion-based congestion
//! control", ACM Queue 2016) as today's Linux runs it (`net/ipv4/tcp_bbr.c`, 6.x;
//! the `linux-4.9` preset turns off what 4.9 lacked).
//!
//! BBR models the path by BtlBw, the windowed maximum of delivery-rate samples over
//! the last 10 rounds, and RTprop, the minimum RTT over the last 10 s. It paces at
//! pacing_gain·BtlBw and caps the window at cwnd_gain·BtlBw·RTprop plus the ACK
//! aggregation it has seen (Linux 5.1+, [`ack_aggregation`]) plus Linux's
//! quantization budget (three TSO bursts of 1 ms at the pacing rate, rounded up to an
//! even number of segments, two more at the top of the gain cycle). Where loss is
//! heavy and steady, the policer detector ([`long_term`], Linux 4.9+) may replace
//! BtlBw by the long-term delivery rate for 48 rounds. The state machine:
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
//! Loss recovery: every ACK takes the segments it found lost off the window; packet
//! conservation in the first round of recovery (cwnd = in flight + newly delivered),
//! the window before recovery restored at its end.

mod ack_aggregation;
mod bw_filter;
mod long_term;

use self::ack_aggregation::AckAggregation;
use self::bw_filter::BwFilter;
use self::long_term::{LongTermBw, Observation, Verdict};
use super::ParamError;
use super::{check_positive, AckEvent, AlgorithmConfig, BuildContext, CongestionControl};
use crate::rng::Rng;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Parameters of `bbr` (today's Linux constants as defaults; the `linux-4.9` preset
/// turns off what 4.9 lacked).
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
    /// Weight of the ACK-aggregation allowance in the window (Linux 5.1+
    /// `bbr_extra_acked_gain`: 1; 0 turns it off, as in Linux 4.9).
    pub extra_acked_gain: f64,
    /// Rounds in each half of the ACK-aggregation maximum's window (Linux: 5).
    pub extra_acked_window_rounds: u32,
    /// The allowance is at most BtlBw × this, ns (Linux: 100 ms).
    pub extra_acked_max_ns: u64,
    /// Detect policers and pace at their long-term rate (Linux 4.9+: on).
    pub long_term_bw: bool,
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
            extra_acked_gain: 1.0,
            extra_acked_window_rounds: 5,
            extra_acked_max_ns: 100_000_000,
            long_term_bw: true,
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
        if !(self.extra_acked_gain >= 0.0 && self.extra_acked_gain.is_finite()) {
            return Err(ParamError::new(
                "extra_acked_gain",
                format!("must be 0 or more, got {}", self.extra_acked_gain),
            ));
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
            ("extra_acked_window_rounds", self.extra_acked_window_rounds),
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
        Box::new(Bbr::new(self, ctx))
    }

    /// `linux-4.9`: the module as first merged, without the ACK-aggregation allowance
    /// (added in 5.1).
    fn presets() -> Vec<(&'static str, Self)> {
        vec![(
            "linux-4.9",
            Config {
                extra_acked_gain: 0.0,
                ..Config::default()
            },
        )]
    }
}

/// The largest TSO burst Linux 6.x budgets for, bytes: `GSO_MAX_SIZE` (512 KiB) less one
/// and `MAX_TCP_HEADER` (about 320 bytes on x86-64).
const GSO_MAX_PAYLOAD: f64 = 524_288.0 - 1.0 - 320.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
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
    aggregation: AckAggregation,
    long_term: LongTermBw,
    /// Bytes delivered on the connection (Linux `tp->delivered`, in bytes).
    delivered: u64,
    /// Segments marked lost on the connection (Linux `tp->lost`).
    lost: u64,
}

impl Bbr {
    fn new(c: &Config, ctx: BuildContext) -> Self {
        Bbr {
            mss: ctx.mss,
            cwnd: ctx.initial_window.max(ctx.mss),
            round: 0,
            rng: ctx.rng,
            mode: Mode::Startup,
            pacing_gain: c.high_gain,
            cwnd_gain: c.high_gain,
            bw: BwFilter::new(c.bw_window_rounds),
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
            aggregation: AckAggregation::new(c.extra_acked_window_rounds, (1 << 20) * ctx.mss),
            long_term: LongTermBw::new(ctx.mss),
            delivered: 0,
            lost: 0,
            c: c.clone(),
        }
    }

    /// The windowed maximum of the delivery-rate samples (Linux `bbr_max_bw`).
    fn btl_bw(&self) -> f64 {
        self.bw.max()
    }

    /// The rate BBR paces at and sizes its window by: the policed rate while it is in
    /// force, else BtlBw (Linux `bbr_bw`).
    fn model_bw(&self) -> f64 {
        self.long_term.bw().unwrap_or_else(|| self.btl_bw())
    }

    /// gain × `bw` × RTprop in whole segments, as bytes (None before both are
    /// measured; Linux `bbr_bdp` rounds up).
    fn bdp_at(&self, bw: f64, gain: f64) -> Option<u64> {
        let rtt = self.min_rtt?;
        let bytes = gain * bw * rtt.as_secs_f64() / 8.0;
        (bw > 0.0).then(|| (bytes / self.mss as f64).ceil() as u64 * self.mss)
    }

    /// gain × BtlBw × RTprop (Linux's drain and gain-cycle checks size by the maximum).
    fn bdp(&self, gain: f64) -> Option<u64> {
        self.bdp_at(self.btl_bw(), gain)
    }

    /// Segments one 1-ms burst at the pacing rate holds (Linux 6.x
    /// `bbr_tso_segs_goal`: the pacing rate in bytes/s shifted right by
    /// `sk_pacing_shift` 10, at most `GSO_MAX_SIZE` (512 KB) less headers, at least 2
    /// segments, 1 below 1.2 Mb/s). The kernel reserves this room in the window
    /// whether or not the device segments (the emulator's have GSO off).
    fn tso_segs_goal(&self) -> u64 {
        let rate = self.pacing_rate.unwrap_or(0.0);
        let min_segs = if rate < 1.2e6 { 1 } else { 2 };
        let bytes = (rate / 8.0 / 1024.0).min(GSO_MAX_PAYLOAD) as u64;
        (bytes / self.mss).max(min_segs)
    }

    /// `window` plus room for three such bursts, rounded up to an even number of
    /// segments (against delayed ACKs), two segments more at the top of the gain cycle
    /// (Linux `bbr_quantization_budget`).
    fn quantization_budget(&self, window: u64) -> u64 {
        let mut segs = window.div_ceil(self.mss) + 3 * self.tso_segs_goal();
        segs = (segs + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_index == 0 {
            segs += 2;
        }
        segs * self.mss
    }

    /// What BBR aims to have in flight at `gain` (Linux `bbr_inflight`).
    fn inflight_target(&self, gain: f64) -> Option<u64> {
        self.bdp(gain).map(|w| self.quantization_budget(w))
    }

    /// The window allowance for ACK aggregation (Linux `bbr_ack_aggregation_cwnd`):
    /// only once the pipe is full, at most BtlBw × 100 ms.
    fn aggregation_allowance(&self) -> u64 {
        if self.c.extra_acked_gain <= 0.0 || !self.full_pipe {
            return 0;
        }
        let cap = self.model_bw() / 8.0 * self.c.extra_acked_max_ns as f64 / 1e9;
        (self.c.extra_acked_gain * self.aggregation.extra_acked() as f64).min(cap) as u64
    }

    fn cycle_gain(&self) -> f64 {
        if self.long_term.bw().is_some() {
            return 1.0; // paced at the policed rate, without probing
        }
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
                && (ack.in_recovery
                    || ack.losses > 0
                    || self
                        .inflight_target(gain)
                        .is_none_or(|t| ack.prior_in_flight >= t))
        } else if gain < 1.0 {
            full_length
                || self
                    .inflight_target(1.0)
                    .is_some_and(|t| ack.prior_in_flight <= t)
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
        if self.mode == Mode::Drain
            && self
                .inflight_target(1.0)
                .is_some_and(|t| ack.in_flight <= t)
        {
            self.enter_probe_bw(ack.now);
        }
    }

    fn update_min_rtt(&mut self, ack: &AckEvent) {
        if self.min_rtt.is_none() {
            // Linux's bbr_init takes min_rtt_us = tcp_min_rtt(tp), which already holds
            // the handshake's RTT: a SYN is not queued behind a full-sized segment, so
            // BBR starts from nearly the propagation delay, not from its first data
            // sample's.
            if let Some(m) = ack.min_rtt {
                self.min_rtt = Some(m);
                self.min_rtt_stamp = ack.now;
            }
        }
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

    /// One sample for the policer detector, and what its verdict changes.
    fn sample_long_term(
        &mut self,
        now: SimTime,
        losses: u64,
        app_limited: bool,
        round_start: bool,
    ) {
        let verdict = self.long_term.on_sample(&Observation {
            now,
            delivered: self.delivered,
            lost: self.lost,
            losses,
            app_limited,
            round_start,
            in_probe_bw: self.mode == Mode::ProbeBw,
        });
        match verdict {
            Verdict::Unchanged => {}
            // Linux's gains follow the mode: only ProbeBW paces at the policed rate
            // with gain 1 (Startup and Drain keep theirs).
            Verdict::Policed if self.mode == Mode::ProbeBw => self.pacing_gain = 1.0,
            Verdict::Policed => {}
            Verdict::Expired => self.enter_probe_bw(now),
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
        let bw = self.model_bw();
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
        if acked > 0 && ack.losses > 0 {
            // An ACK for P segments releases at most 2P: the lost ones come off
            // first (Linux `bbr_set_cwnd_to_recover_or_restore`).
            self.cwnd = self
                .cwnd
                .saturating_sub(ack.losses * self.mss)
                .max(self.mss);
        }
        if let Some(start) = self.recovery_round {
            if ack.round_count <= start + 1 {
                // Packet conservation in the first round of recovery.
                self.cwnd = self.cwnd.max(ack.in_flight + acked).max(floor);
                return;
            }
        }
        match self.bdp_at(self.model_bw(), self.cwnd_gain) {
            Some(bdp) => {
                let target = self.quantization_budget(bdp + self.aggregation_allowance());
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
        self.delivered += ack.delivered_bytes;
        self.lost += ack.losses;
        if let Some(rs) = ack.rate {
            let round = ack.round_count;
            if self.c.long_term_bw {
                self.sample_long_term(ack.now, ack.losses, rs.is_app_limited, ack.round_start);
            }
            if !rs.is_app_limited || rs.delivery_rate_bps >= self.btl_bw() {
                self.bw.update(round, rs.delivery_rate_bps);
            }
            if ack.delivered_bytes > 0 && self.c.extra_acked_gain > 0.0 {
                self.aggregation.on_ack(
                    ack.now,
                    ack.delivered_bytes,
                    self.model_bw(),
                    self.cwnd,
                    ack.round_start,
                );
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

    fn on_retransmission_timeout(&mut self, now: SimTime, _basis: u64, _new_event: bool) {
        self.save_cwnd();
        self.recovery_round = None;
        self.cwnd = self.mss;
        // Linux `bbr_set_state(TCP_CA_Loss)`: the timeout ends a round and counts as a
        // loss for the policer detector; startup's growth check starts over.
        self.full_bw = 0.0;
        if self.c.long_term_bw {
            self.sample_long_term(now, 1, false, true);
        }
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

    fn bbr(c: &Config) -> Bbr {
        Bbr::new(
            c,
            BuildContext {
                mss: 1000,
                initial_window: 10_000,
                rng: Rng::for_component(1, "test"),
                window_in_packets: false,
                slow_start_at_ssthresh: false,
                slow_start_limit: None,
            },
        )
    }

    /// Linux's quantization budget, hand-worked: pacing at 80 Mb/s is 10,000,000 B/s,
    /// 9,765 B per 1/1024 s: 9 segments of 1,000 B, three bursts 27. A 100,000-byte
    /// window is 100 segments; + 27 = 127, rounded up to 128; at the top of the gain
    /// cycle 130. Below 1.2 Mb/s a burst is one segment.
    #[test]
    fn the_window_keeps_room_for_three_bursts_of_a_millisecond() {
        let mut b = bbr(&Config::default());
        b.pacing_rate = Some(80e6);
        assert_eq!(b.tso_segs_goal(), 9);
        assert_eq!(b.quantization_budget(100_000), 128_000);
        b.mode = Mode::ProbeBw;
        b.cycle_index = 0;
        assert_eq!(b.quantization_budget(100_000), 130_000);
        b.pacing_rate = Some(1e6);
        assert_eq!(b.tso_segs_goal(), 1);
    }

    /// The ACK-aggregation allowance counts only once the pipe is full, and is at most
    /// BtlBw × 100 ms: at 8 Mb/s, 100,000 B; 300 segments of excess are cut to that.
    #[test]
    fn the_aggregation_allowance_is_capped_by_100_ms_of_btlbw() {
        let mut b = bbr(&Config::default());
        b.bw.update(1, 8e6);
        b.aggregation
            .on_ack(SimTime::from_ms(5), 300_000, 8e6, 1_000_000, false);
        assert_eq!(b.aggregation_allowance(), 0, "startup: no allowance");
        b.full_pipe = true;
        assert_eq!(b.aggregation_allowance(), 100_000);
        let off = bbr(&Config::presets()[0].1);
        assert_eq!(off.c.extra_acked_gain, 0.0, "linux-4.9 has no allowance");
    }

    /// Linux's bbr_init starts min_rtt from tcp_min_rtt(tp): the handshake's 43 ms here,
    /// not the first data sample's 50 ms (a full segment's serialization more), which
    /// then only a smaller sample replaces.
    #[test]
    fn min_rtt_starts_from_the_connections_handshake_rtt() {
        let mut b = bbr(&Config::default());
        let mut ack = AckEvent::empty(SimTime::from_ms(100));
        ack.rtt = Some(SimTime::from_ms(50));
        ack.min_rtt = Some(SimTime::from_ms(43));
        b.update_min_rtt(&ack);
        assert_eq!(b.min_rtt, Some(SimTime::from_ms(43)));
        ack.rtt = Some(SimTime::from_ms(48));
        b.update_min_rtt(&ack);
        assert_eq!(b.min_rtt, Some(SimTime::from_ms(43)));
        ack.rtt = Some(SimTime::from_ms(42));
        b.update_min_rtt(&ack);
        assert_eq!(b.min_rtt, Some(SimTime::from_ms(42)));
    }
}
