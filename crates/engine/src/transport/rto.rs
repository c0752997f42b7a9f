//! The retransmission timer's value: RFC 6298's RTT estimator with Karn's rule and
//! exponential backoff, or a fixed RTO; optionally with a coarse RTT clock, as BSD and
//! ns-2 keep it (`TickClock`).

use crate::config::{RtoConfig, RtoFloor};
use crate::time::{ceil_ns, round_ns, SimTime};

/// How an RTT sample was taken, which decides how a coarse clock counts it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RttSource {
    /// A timed segment's send time against the ACK's arrival, both read from the
    /// sender's clock: the sample is the number of ticks between them.
    Timed,
    /// The ACK's echoed timestamp (RFC 7323): the difference rounded to whole ticks.
    Timestamp,
}

/// The RTT arithmetic of 4.4BSD's `tcp_xmit_timer` and ns-2's `TcpAgent::rtt_update`
/// (tcp/tcp.cc): samples in whole ticks of a coarse clock, SRTT kept with three bits
/// of fraction and RTTVAR with two (`T_SRTT_BITS`, `T_RTTVAR_BITS`), and the RTO
/// their truncated sum SRTT + 4·RTTVAR in ticks. Its RTTVAR never decays below about
/// a tick, so the RTO keeps that much headroom over a constant RTT where the exact
/// arithmetic lets it shrink to the RTT itself (RFC 6298's G).
#[derive(Debug, Clone)]
struct TickClock {
    tick_ns: u64,
    /// Where the tick boundaries fall (ns-2's `boot_time_`, uniform over one tick).
    phase_ns: u64,
    /// 8·SRTT in ticks; 0 until the first sample (or after BSD's reset on backoff).
    /// (ns-2's are `int`s; these are wider, so that a fine tick cannot overflow them.)
    srtt8: i64,
    /// 4·RTTVAR in ticks.
    rttvar4: i64,
}

impl TickClock {
    /// The sample in whole ticks, at least one (ns-2: `t_rtt_`).
    fn ticks(&self, sent: SimTime, now: SimTime, source: RttSource) -> i64 {
        let t = match source {
            // int(tao / tick + 0.5)
            RttSource::Timestamp => {
                (now - sent).as_ns().saturating_add(self.tick_ns / 2) / self.tick_ns
            }
            // int((tao + fmod(sendtime + boot, tick)) / tick): the clock's ticks between
            // the two readings.
            RttSource::Timed => {
                let read = |t: SimTime| (t.as_ns() + self.phase_ns) / self.tick_ns;
                read(now) - read(sent)
            }
        };
        // At most 2^40 ticks, so that 8·SRTT and the RTO's sum stay far from overflow.
        t.clamp(1, 1 << 40) as i64
    }

    /// One sample (ns-2 `rtt_update`).
    fn sample(&mut self, ticks: i64) {
        if self.srtt8 != 0 {
            // ns-2 keeps the difference in a `short`: a change of more than 32,767
            // ticks wraps, as there (tests/ns2/common.tcl picks its tick to avoid it).
            let mut delta = (ticks - (self.srtt8 >> 3)) as i16 as i64;
            self.srtt8 += delta;
            if self.srtt8 <= 0 {
                self.srtt8 = 1;
            }
            delta = delta.abs() - (self.rttvar4 >> 2);
            self.rttvar4 += delta;
            if self.rttvar4 <= 0 {
                self.rttvar4 = 1;
            }
        } else {
            self.srtt8 = ticks << 3;
            self.rttvar4 = ticks << 1; // RTTVAR = RTT / 2
        }
    }

    /// SRTT and the variance term of ns-2's `t_rtxcur_` (SRTT + 4·RTTVAR, the sum
    /// truncated to whole ticks), in ns.
    fn estimate_ns(&self) -> (u64, u64) {
        let srtt_ticks = (self.srtt8 >> 3).max(0) as u64;
        let rto_ticks = ((self.rttvar4 << 3) + self.srtt8).max(0) as u64 >> 3;
        let to_ns = |t: u64| t.saturating_mul(self.tick_ns);
        (to_ns(srtt_ticks), to_ns(rto_ticks - srtt_ticks))
    }
}

/// RFC 6298 section 2 state.
#[derive(Debug, Clone)]
pub struct RttEstimator {
    srtt_ns: Option<f64>,
    rttvar_ns: f64,
    initial: SimTime,
    min: SimTime,
    max: SimTime,
    fixed: Option<SimTime>,
    floor: RtoFloor,
    backoff: u32,
    latest_ns: Option<u64>,
    min_rtt_ns: Option<u64>,
    /// `srtt_ns` rounded and the RTO before backoff, both kept from the last sample:
    /// every ACK reads them, only an RTT sample changes them.
    srtt: Option<SimTime>,
    base_rto: SimTime,
    /// A coarse RTT clock, when configured: it alone then decides the RTO.
    ticks: Option<TickClock>,
}

impl RttEstimator {
    /// An estimator with no samples yet. `phase` places a coarse clock's tick
    /// boundaries (a fraction of a tick in [0, 1); unused without one).
    pub fn new(config: &RtoConfig, phase: f64) -> Self {
        let ticks = config.tick_ns.map(|tick_ns| TickClock {
            tick_ns,
            phase_ns: (phase * tick_ns as f64) as u64 % tick_ns,
            srtt8: 0,
            rttvar4: 0,
        });
        RttEstimator {
            ticks,
            srtt_ns: None,
            rttvar_ns: 0.0,
            initial: SimTime(config.initial_ns),
            min: SimTime(config.min_ns),
            max: SimTime(config.max_ns),
            fixed: config.fixed_ns.map(SimTime),
            floor: config.floor,
            backoff: 0,
            latest_ns: None,
            min_rtt_ns: None,
            srtt: None,
            // ns-2's `rtt_timeout` keeps even the initial RTO at two ticks or more.
            base_rto: config.fixed_ns.map_or(
                SimTime(
                    config
                        .initial_ns
                        .max(config.tick_ns.unwrap_or(0).saturating_mul(2)),
                ),
                SimTime,
            ),
        }
    }

    /// Feeds one RTT measurement taken between `sent` and `now` (a coarse clock counts
    /// it by `source`). Callers apply Karn's rule: no samples from retransmitted
    /// segments.
    #[inline]
    pub fn sample_between(&mut self, sent: SimTime, now: SimTime, source: RttSource) {
        self.sample(now - sent);
        if self.ticks.is_some() {
            self.sample_coarse(sent, now, source);
        }
    }

    /// The coarse clock's part of [`Self::sample_between`]: its RTO replaces the exact one.
    #[cold]
    fn sample_coarse(&mut self, sent: SimTime, now: SimTime, source: RttSource) {
        let Some(clock) = self.ticks.as_mut() else {
            return;
        };
        clock.sample(clock.ticks(sent, now, source));
        let (srtt_ns, variance_ns) = clock.estimate_ns();
        // ns-2 `rtt_timeout`: never under two ticks (backoff only raises it, and the
        // configuration keeps two ticks within the maximum).
        let two_ticks = SimTime(clock.tick_ns.saturating_mul(2));
        if self.fixed.is_none() {
            self.base_rto = self
                .floored(srtt_ns as f64, variance_ns as f64)
                .max(two_ticks);
        }
    }

    /// Feeds one RTT measurement (RFC 6298 (2.2) and (2.3), α = 1/8, β = 1/4).
    /// Callers apply Karn's rule: no samples from retransmitted segments.
    pub fn sample(&mut self, rtt: SimTime) {
        let r = rtt.as_ns() as f64;
        match self.srtt_ns {
            None => {
                self.srtt_ns = Some(r);
                self.rttvar_ns = r / 2.0;
            }
            Some(srtt) => {
                self.rttvar_ns = 0.75 * self.rttvar_ns + 0.25 * (srtt - r).abs();
                self.srtt_ns = Some(0.875 * srtt + 0.125 * r);
            }
        }
        self.srtt = self.srtt_ns.map(|s| SimTime(round_ns(s)));
        self.base_rto = self.compute_base_rto();
        self.latest_ns = Some(rtt.as_ns());
        self.min_rtt_ns = Some(self.min_rtt_ns.map_or(rtt.as_ns(), |m| m.min(rtt.as_ns())));
        // Karn: a fresh sample from a non-retransmitted segment ends the backoff.
        self.backoff = 0;
    }

    /// The RTO's lower bound (RFC 6298 (2.4)); TLP's allowance for a delayed ACK.
    pub fn min_rto(&self) -> SimTime {
        self.min
    }

    /// The current RTO, backoff included: RFC 6298 (2.1)–(2.5) or the fixed value.
    pub fn rto(&self) -> SimTime {
        let base = self.base_rto;
        let backed_off = base.as_ns().saturating_mul(1u64 << self.backoff.min(40));
        SimTime(backed_off).min(self.max.max(base))
    }

    /// SRTT plus the variance term with the minimum applied where `floor` says
    /// (RFC 6298 (2.4) to the whole RTO, Linux to the variance term).
    fn floored(&self, srtt_ns: f64, variance_ns: f64) -> SimTime {
        match self.floor {
            RtoFloor::Rto => SimTime(ceil_ns(srtt_ns + variance_ns)).max(self.min),
            RtoFloor::Variance => {
                SimTime(ceil_ns(srtt_ns + variance_ns.max(self.min.as_ns() as f64)))
            }
        }
    }

    /// The RTO before backoff from the current SRTT and RTTVAR.
    fn compute_base_rto(&self) -> SimTime {
        match (self.fixed, self.srtt_ns) {
            (Some(fixed), _) => fixed,
            (None, None) => self.initial,
            (None, Some(srtt)) => {
                // (2.3): RTO = SRTT + max(G, K·RTTVAR), K = 4; the simulator's clock
                // granularity G is 1 ns.
                self.floored(srtt, (4.0 * self.rttvar_ns).max(1.0))
            }
        }
    }

    /// (5.5): the timer expired: double the RTO (until the maximum).
    pub fn on_timeout(&mut self) {
        if self.rto() < self.max {
            self.backoff += 1;
        }
        // 4.4BSD `tcp_timers` and ns-2 `rtt_backoff`: once backed off more than
        // eight-fold the SRTT is forgotten, and the next sample starts afresh.
        if let Some(clock) = self.ticks.as_mut() {
            if self.backoff > 3 {
                clock.rttvar4 += clock.srtt8 >> 3;
                clock.srtt8 = 0;
            }
        }
    }

    /// Smoothed RTT, if measured.
    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt
    }

    /// Smallest RTT seen (Vegas/FAST/BBR's base RTT).
    pub fn min_rtt(&self) -> Option<SimTime> {
        self.min_rtt_ns.map(SimTime)
    }

    /// The most recent sample.
    pub fn latest(&self) -> Option<SimTime> {
        self.latest_ns.map(SimTime)
    }

    /// Ends the backoff without a new sample (SCTP's handshake: its timer's backoff
    /// does not carry into the data transfer).
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    /// Number of consecutive backoffs in force.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

/// Times one segment per round trip (the classic BSD way, and ns-2's `rtt_active_`,
/// `rtt_seq_` without timestamps): a sample when the ACK covers the timed segment.
/// Timing starts only on new data and stops on any retransmission (Karn), so a sample
/// is never ambiguous. Compared with a sample per ACK, RTTVAR decays once per RTT
/// instead of once per segment, so the RTO keeps more headroom over the RTT.
#[derive(Debug, Clone, Default)]
pub struct RttTimer {
    /// The timed segment's end and when it was sent.
    timed: Option<(u64, SimTime)>,
    /// The end of the last segment timed: only later data starts a new measurement.
    timed_high: u64,
}

impl RttTimer {
    /// New data `[.., end)` leaves at `now`: time it if nothing is being timed.
    pub fn on_new_data(&mut self, end: u64, now: SimTime) {
        if self.timed.is_none() && end > self.timed_high {
            self.timed = Some((end, now));
            self.timed_high = end;
        }
    }

    /// A cumulative ACK up to `ack` arrives: when the timed segment was sent, if the
    /// ACK covers it (the sample runs from then to now).
    pub fn on_ack(&mut self, ack: u64) -> Option<SimTime> {
        let (end, sent) = self.timed?;
        if ack < end {
            return None;
        }
        self.timed = None;
        Some(sent)
    }

    /// A retransmission (fast retransmit or timeout): the measurement is abandoned.
    pub fn cancel(&mut self) {
        self.timed = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_per_rtt_times_one_segment_and_karn_cancels() {
        let mut t = RttTimer::default();
        t.on_new_data(1001, SimTime::from_ms(0));
        t.on_new_data(2001, SimTime::from_ms(1)); // already timing: ignored
        assert_eq!(t.on_ack(1001), Some(SimTime::from_ms(0)));
        assert_eq!(t.on_ack(2001), None);
        t.on_new_data(3001, SimTime::from_ms(102));
        t.cancel();
        assert_eq!(t.on_ack(3001), None);
        // Only data beyond what was timed before starts a new measurement.
        t.on_new_data(3001, SimTime::from_ms(201));
        assert_eq!(t.on_ack(4001), None);
        t.on_new_data(4001, SimTime::from_ms(301));
        assert_eq!(t.on_ack(4001), Some(SimTime::from_ms(301)));
    }

    fn cfg(fixed: Option<u64>) -> RtoConfig {
        RtoConfig {
            initial_ns: 1_000_000_000,
            min_ns: 200_000_000,
            max_ns: 60_000_000_000,
            fixed_ns: fixed,
            floor: RtoFloor::Rto,
            tick_ns: None,
        }
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut e = RttEstimator::new(&cfg(None), 0.0);
        assert_eq!(e.rto(), SimTime::from_secs(1)); // (2.1)
        e.sample(SimTime::from_ms(100));
        // RTO = 100 + 4 * 50 = 300 ms.
        assert_eq!(e.rto(), SimTime::from_ms(300));
        e.sample(SimTime::from_ms(100));
        // RTTVAR = 0.75 * 50 + 0.25 * 0 = 37.5; SRTT = 100; RTO = 250 ms.
        assert_eq!(e.rto(), SimTime::from_ms(250));
    }

    /// Steady 200 ms samples drive RTTVAR towards 0: RFC 6298's floor leaves the RTO
    /// just above 200 ms, Linux's keeps it a full minimum above SRTT.
    #[test]
    fn linux_floor_adds_the_minimum_to_srtt() {
        let mut rfc = RttEstimator::new(&cfg(None), 0.0);
        let mut linux = RttEstimator::new(
            &RtoConfig {
                floor: RtoFloor::Variance,
                ..cfg(None)
            },
            0.0,
        );
        for _ in 0..100 {
            rfc.sample(SimTime::from_ms(200));
            linux.sample(SimTime::from_ms(200));
        }
        assert!(rfc.rto() < SimTime::from_ms(201));
        assert_eq!(linux.rto(), SimTime::from_ms(400));
    }

    #[test]
    fn minimum_applies_and_backoff_doubles_until_the_maximum() {
        let mut e = RttEstimator::new(&cfg(None), 0.0);
        e.sample(SimTime::from_ms(10)); // 10 + 20 = 30 ms -> 200 ms minimum
        assert_eq!(e.rto(), SimTime::from_ms(200));
        e.on_timeout();
        assert_eq!(e.rto(), SimTime::from_ms(400));
        for _ in 0..20 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), SimTime::from_secs(60));
        e.sample(SimTime::from_ms(10));
        assert_eq!(e.rto(), SimTime::from_ms(200));
    }

    #[test]
    fn fixed_rto_ignores_samples_but_still_backs_off() {
        let mut e = RttEstimator::new(&cfg(Some(75_000_000)), 0.0);
        e.sample(SimTime::from_ms(300));
        assert_eq!(e.rto(), SimTime::from_ms(75));
        e.on_timeout();
        assert_eq!(e.rto(), SimTime::from_ms(150));
    }

    /// ns-2's clock: `tcpTick_` 10 ms (its default), a 1 ms minimum so that the
    /// estimator shows, and the clock's ticks at whole multiples of 10 ms.
    fn ns2_clock() -> RttEstimator {
        RttEstimator::new(
            &RtoConfig {
                min_ns: 1_000_000,
                tick_ns: Some(10_000_000),
                ..cfg(None)
            },
            0.0,
        )
    }

    /// Hand-worked through ns-2's `rtt_update` (tcp.cc): a timed segment sent at
    /// 100·k ms and acknowledged 95 ms later crosses 9 tick boundaries; SRTT = 9 ticks
    /// (8·SRTT = 72), 4·RTTVAR starts at 2·9 = 18 and decays by a quarter of itself,
    /// truncated: 14, 11, 9, 7, 6, 5, 4, 3, 3 — a quarter of 3 is 0, so it stays. The
    /// RTO, (8·4·RTTVAR + 8·SRTT) >> 3 ticks: 27, 23, 20, 18, 16, 15, 14, 13, 12, 12.
    /// The exact estimator's RTO falls to the RTT itself.
    #[test]
    fn coarse_clock_keeps_bsd_fixed_point_and_a_floor_over_a_constant_rtt() {
        let mut e = ns2_clock();
        let mut exact = RttEstimator::new(
            &RtoConfig {
                min_ns: 1_000_000,
                ..cfg(None)
            },
            0.0,
        );
        let mut rtos = Vec::new();
        for k in 0..10 {
            let sent = SimTime::from_ms(100 * k);
            let now = SimTime::from_ms(100 * k + 95);
            e.sample_between(sent, now, RttSource::Timed);
            exact.sample_between(sent, now, RttSource::Timed);
            rtos.push(e.rto().as_ns() / 10_000_000);
        }
        assert_eq!(rtos, [27, 23, 20, 18, 16, 15, 14, 13, 12, 12]);
        for k in 10..60 {
            let (sent, now) = (SimTime::from_ms(100 * k), SimTime::from_ms(100 * k + 95));
            e.sample_between(sent, now, RttSource::Timed);
            exact.sample_between(sent, now, RttSource::Timed);
        }
        assert_eq!(e.rto(), SimTime::from_ms(120));
        assert!(exact.rto() < SimTime::from_ms(96));
        // The exact SRTT is still what reports and other users read.
        assert_eq!(e.srtt(), Some(SimTime::from_ms(95)));
    }

    /// Samples count tick boundaries crossed (no timestamps) or round the difference
    /// (an echoed timestamp), as ns-2's two branches of `rtt_update`.
    #[test]
    fn coarse_clock_counts_boundaries_or_rounds_timestamps() {
        let first_rto = |sent_ms: u64, now_ms: u64, source: RttSource| {
            let mut e = ns2_clock();
            e.sample_between(SimTime::from_ms(sent_ms), SimTime::from_ms(now_ms), source);
            e.rto().as_ns() / 10_000_000 // 3 × the sample in ticks (RTTVAR = RTT / 2)
        };
        assert_eq!(first_rto(5, 100, RttSource::Timed), 30); // 95 ms, 10 boundaries
        assert_eq!(first_rto(0, 95, RttSource::Timed), 27); // 95 ms, 9 boundaries
        assert_eq!(first_rto(0, 95, RttSource::Timestamp), 30); // 9.5 ticks rounds to 10
        assert_eq!(first_rto(0, 3, RttSource::Timed), 3); // at least one tick
                                                          // A path shorter than a tick: every sample is one tick, 8·SRTT = 8, and
                                                          // 4·RTTVAR stays at 2 (a quarter of 2 is 0): (16 + 8) >> 3 = 3 ticks.
        let mut short = RttEstimator::new(
            &RtoConfig {
                min_ns: 1,
                tick_ns: Some(10_000_000),
                ..cfg(None)
            },
            0.0,
        );
        for k in 0..40 {
            let sent = SimTime::from_ms(10 * k);
            short.sample_between(sent, sent + SimTime::from_ms(1), RttSource::Timed);
        }
        assert_eq!(short.rto(), SimTime::from_ms(30));
    }

    /// ns-2 keeps the change of a sample in a `short`: with a 1 µs tick a sample
    /// 39 ms above SRTT wraps negative and SRTT collapses to its floor (tests/ns2's
    /// common.tcl chooses its tick to stay clear of this).
    #[test]
    fn coarse_clock_wraps_the_sample_change_as_ns2_does() {
        let mut e = RttEstimator::new(
            &RtoConfig {
                min_ns: 1,
                tick_ns: Some(1_000),
                ..cfg(None)
            },
            0.0,
        );
        e.sample_between(SimTime::ZERO, SimTime::from_ms(1), RttSource::Timed);
        e.sample_between(SimTime::from_ms(1), SimTime::from_ms(41), RttSource::Timed);
        // 40,000 − 1,000 = 39,000 ticks wraps to −26,536: 8·SRTT ≤ 0, set to 1; 4·RTTVAR
        // = 2,000 + 26,536 − 500 = 28,036 ticks: RTO = (8 · 28,036 + 1) >> 3 µs.
        assert_eq!(e.rto(), SimTime::from_ns(28_036_000));
    }

    /// Backed off more than eight-fold, the SRTT is forgotten (4.4BSD `tcp_timers`,
    /// ns-2 `rtt_backoff`): the next sample starts the estimator again.
    #[test]
    fn coarse_clock_restarts_after_four_backoffs() {
        let mut e = ns2_clock();
        for k in 0..10 {
            e.sample_between(
                SimTime::from_ms(100 * k),
                SimTime::from_ms(100 * k + 95),
                RttSource::Timed,
            );
        }
        for _ in 0..4 {
            e.on_timeout();
        }
        e.sample_between(
            SimTime::from_secs(5),
            SimTime::from_ms(5_295),
            RttSource::Timed,
        );
        // As a first sample of 29 ticks: 29 + 4 · 29/2 = 87 ticks.
        assert_eq!(e.rto(), SimTime::from_ms(870));
    }

    /// Random sequences of samples (1 ns to 100 s, either source) and timeouts over
    /// coarse clocks from 1 ns to half the maximum: the estimator never panics, and
    /// the RTO stays at least the minimum and two ticks, and at most the maximum
    /// unless a single estimate already exceeds it (RFC 6298 (2.5) bounds backoff,
    /// not the estimate).
    #[test]
    fn coarse_clock_survives_random_operation_sequences() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let max_ns = 60_000_000_000u64;
        for case in 0..200 {
            let tick_ns = 1u64 << (next() % 35); // 1 ns .. 17 s
            let min_ns = 1 + next() % 1_000_000_000;
            let cfg = RtoConfig {
                min_ns,
                tick_ns: Some(tick_ns.min(max_ns / 2)),
                ..cfg(None)
            };
            let mut e = RttEstimator::new(&cfg, (next() % 1000) as f64 / 1000.0);
            let mut now = SimTime::ZERO;
            let mut largest_sample = 0u64;
            for _ in 0..200 {
                if next() % 5 == 0 {
                    e.on_timeout();
                } else {
                    let rtt = 1 + next() % (1u64 << (next() % 37));
                    let source = if next() % 2 == 0 {
                        RttSource::Timed
                    } else {
                        RttSource::Timestamp
                    };
                    e.sample_between(now, now + SimTime(rtt), source);
                    largest_sample = largest_sample.max(rtt);
                    now += SimTime(rtt);
                }
                let rto = e.rto().as_ns();
                let tick = cfg.tick_ns.unwrap();
                assert!(
                    rto >= min_ns.max(2 * tick),
                    "case {case}: rto {rto} below the floor"
                );
                // SRTT + 4·RTTVAR is at most 5 × the largest change a sample can make
                // (the sample itself, or ns-2's 16-bit wrap of it), plus truncation;
                // beyond that only backoff, which stops at the maximum.
                let change = largest_sample.max(32_768 * tick);
                let estimate_bound = 5 * change.max(min_ns) + 2 * tick;
                assert!(
                    rto <= max_ns.max(estimate_bound),
                    "case {case}: rto {rto} above every bound"
                );
            }
        }
    }
}
