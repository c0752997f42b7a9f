//! The retransmission timer's value: RFC 6298's RTT estimator with Karn's rule and
//! exponential backoff, or a fixed RTO.

use crate::config::{RtoConfig, RtoFloor};
use crate::time::{ceil_ns, round_ns, SimTime};

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
}

impl RttEstimator {
    /// An estimator with no samples yet.
    pub fn new(config: &RtoConfig) -> Self {
        RttEstimator {
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
            base_rto: config.fixed_ns.map_or(SimTime(config.initial_ns), SimTime),
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

    /// The RTO before backoff from the current SRTT and RTTVAR.
    fn compute_base_rto(&self) -> SimTime {
        match (self.fixed, self.srtt_ns) {
            (Some(fixed), _) => fixed,
            (None, None) => self.initial,
            (None, Some(srtt)) => {
                // (2.3): RTO = SRTT + max(G, K·RTTVAR), K = 4; the simulator's clock
                // granularity G is 1 ns.
                let variance = (4.0 * self.rttvar_ns).max(1.0);
                match self.floor {
                    RtoFloor::Rto => SimTime(ceil_ns(srtt + variance)).max(self.min),
                    RtoFloor::Variance => {
                        SimTime(ceil_ns(srtt + variance.max(self.min.as_ns() as f64)))
                    }
                }
            }
        }
    }

    /// (5.5): the timer expired: double the RTO (until the maximum).
    pub fn on_timeout(&mut self) {
        if self.rto() < self.max {
            self.backoff += 1;
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

    /// A cumulative ACK up to `ack` arrives at `now`: the sample, if it covers the
    /// timed segment.
    pub fn on_ack(&mut self, ack: u64, now: SimTime) -> Option<SimTime> {
        let (end, sent) = self.timed?;
        if ack < end {
            return None;
        }
        self.timed = None;
        Some(now - sent)
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
        assert_eq!(
            t.on_ack(1001, SimTime::from_ms(100)),
            Some(SimTime::from_ms(100))
        );
        assert_eq!(t.on_ack(2001, SimTime::from_ms(101)), None);
        t.on_new_data(3001, SimTime::from_ms(102));
        t.cancel();
        assert_eq!(t.on_ack(3001, SimTime::from_ms(200)), None);
        // Only data beyond what was timed before starts a new measurement.
        t.on_new_data(3001, SimTime::from_ms(201));
        assert_eq!(t.on_ack(4001, SimTime::from_ms(300)), None);
        t.on_new_data(4001, SimTime::from_ms(301));
        assert_eq!(
            t.on_ack(4001, SimTime::from_ms(350)),
            Some(SimTime::from_ms(49))
        );
    }

    fn cfg(fixed: Option<u64>) -> RtoConfig {
        RtoConfig {
            initial_ns: 1_000_000_000,
            min_ns: 200_000_000,
            max_ns: 60_000_000_000,
            fixed_ns: fixed,
            floor: RtoFloor::Rto,
        }
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut e = RttEstimator::new(&cfg(None));
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
        let mut rfc = RttEstimator::new(&cfg(None));
        let mut linux = RttEstimator::new(&RtoConfig {
            floor: RtoFloor::Variance,
            ..cfg(None)
        });
        for _ in 0..100 {
            rfc.sample(SimTime::from_ms(200));
            linux.sample(SimTime::from_ms(200));
        }
        assert!(rfc.rto() < SimTime::from_ms(201));
        assert_eq!(linux.rto(), SimTime::from_ms(400));
    }

    #[test]
    fn minimum_applies_and_backoff_doubles_until_the_maximum() {
        let mut e = RttEstimator::new(&cfg(None));
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
        let mut e = RttEstimator::new(&cfg(Some(75_000_000)));
        e.sample(SimTime::from_ms(300));
        assert_eq!(e.rto(), SimTime::from_ms(75));
        e.on_timeout();
        assert_eq!(e.rto(), SimTime::from_ms(150));
    }
}
