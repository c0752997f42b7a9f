//! Reno / NewReno window growth (RFC 5681): slow start and congestion avoidance with
//! appropriate byte counting (RFC 3465, L = 2·SMSS), multiplicative decrease to
//! max(FlightSize / 2, 2·SMSS) (RFC 5681 eq. 4), loss window of one segment after a
//! timeout (section 3.1). NewReno differs only in how the sender handles partial ACKs
//! during recovery (RFC 6582), which the sender does, so both names share this file.

use super::{check_open, AckEvent, AlgorithmConfig, BuildContext, CongestionControl, ParamError};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Parameters of `reno` (RFC 5681).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RenoConfig {
    /// Multiplicative decrease: ssthresh = β·FlightSize (RFC 5681 eq. 4: 1/2).
    pub beta: f64,
}

impl Default for RenoConfig {
    fn default() -> Self {
        RenoConfig { beta: 0.5 }
    }
}

impl AlgorithmConfig for RenoConfig {
    fn validate(&self) -> Result<(), ParamError> {
        check_open("beta", self.beta, 0.0, 1.0)
    }
    fn build(&self, ctx: BuildContext) -> Box<dyn CongestionControl> {
        Box::new(
            Reno::new("reno", ctx.mss, ctx.initial_window)
                .with_beta(self.beta)
                .in_packets(ctx.window_in_packets)
                .slow_start_at_ssthresh(ctx.slow_start_at_ssthresh)
                .slow_start_limit(ctx.slow_start_limit),
        )
    }
}

/// Parameters of `newreno`: Reno's growth rule; the name selects NewReno loss recovery
/// (RFC 6582) by default.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NewRenoConfig {
    /// Multiplicative decrease: ssthresh = β·FlightSize (RFC 5681 eq. 4: 1/2).
    pub beta: f64,
}

impl Default for NewRenoConfig {
    fn default() -> Self {
        NewRenoConfig { beta: 0.5 }
    }
}

impl AlgorithmConfig for NewRenoConfig {
    fn validate(&self) -> Result<(), ParamError> {
        check_open("beta", self.beta, 0.0, 1.0)
    }
    fn build(&self, ctx: BuildContext) -> Box<dyn CongestionControl> {
        Box::new(
            Reno::new("newreno", ctx.mss, ctx.initial_window)
                .with_beta(self.beta)
                .in_packets(ctx.window_in_packets)
                .slow_start_at_ssthresh(ctx.slow_start_at_ssthresh)
                .slow_start_limit(ctx.slow_start_limit),
        )
    }
}

/// AIMD window of Reno and NewReno.
#[derive(Debug, Clone)]
pub struct Reno {
    name: &'static str,
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Bytes acknowledged towards the next +1 SMSS in congestion avoidance.
    bytes_acked: u64,
    /// ns-2's window arithmetic ([`super::BuildContext::window_in_packets`]).
    in_packets: bool,
    /// Linux 2.6's slow-start test ([`super::BuildContext::slow_start_at_ssthresh`]).
    slow_start_at_ssthresh: bool,
    /// The most segments one ACK adds in slow start
    /// ([`super::BuildContext::slow_start_limit`]).
    slow_start_limit: Option<u64>,
    /// The fraction of a byte per-ACK growth has yet to add (RFC 5681 eq. 3).
    growth_fraction: f64,
    /// Multiplicative decrease factor.
    beta: f64,
}

impl Reno {
    /// Starts in slow start with an initial window of `iw` bytes and no threshold.
    pub fn new(name: &'static str, mss: u64, iw: u64) -> Self {
        Reno {
            name,
            mss,
            cwnd: iw,
            ssthresh: u64::MAX,
            bytes_acked: 0,
            in_packets: false,
            slow_start_at_ssthresh: false,
            slow_start_limit: Some(2),
            growth_fraction: 0.0,
            beta: 0.5,
        }
    }

    /// The same with decrease factor `beta`.
    pub fn with_beta(mut self, beta: f64) -> Self {
        self.beta = beta;
        self
    }

    /// The same with ns-2's window arithmetic or not.
    pub fn in_packets(mut self, in_packets: bool) -> Self {
        self.in_packets = in_packets;
        self
    }

    /// The same with Linux 2.6's slow-start test or not.
    pub fn slow_start_at_ssthresh(mut self, at: bool) -> Self {
        self.slow_start_at_ssthresh = at;
        self
    }

    /// The same with at most `limit` segments per ACK in slow start (`None`: all the ACK
    /// covers, up to ssthresh).
    pub fn slow_start_limit(mut self, limit: Option<u32>) -> Self {
        self.slow_start_limit = limit.map(u64::from);
        self
    }

    /// `basis` bytes times β.
    fn scaled(&self, basis: u64) -> u64 {
        if self.beta == 0.5 {
            basis / 2 // exact integer halving, as RFC 5681 and ns-2
        } else {
            (basis as f64 * self.beta) as u64
        }
    }

    /// The window after a reduction from `basis` bytes (RFC 5681 eq. 4's floor).
    fn decreased(&self, basis: u64) -> u64 {
        self.scaled(basis).max(2 * self.mss)
    }

    /// ssthresh for a window reduced to `target` bytes: ns-2 keeps whole segments
    /// (`ssthresh_ = (int) halfwin` in `slowdown`).
    fn threshold(&self, target: u64) -> u64 {
        if self.in_packets {
            target / self.mss * self.mss
        } else {
            target
        }
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        self.name
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn undo_reduction(&mut self, prior_cwnd: u64, prior_ssthresh: u64) {
        // tcp_reno_undo_cwnd, and tcp_undo_cwnd_reduction's ssthresh.
        self.cwnd = self.cwnd.max(prior_cwnd);
        self.ssthresh = self.ssthresh.max(prior_ssthresh);
    }

    fn min_cwnd(&self) -> u64 {
        // tcp_reno_min_cwnd: ssthresh/2 in whole segments.
        if self.ssthresh == u64::MAX {
            u64::MAX
        } else {
            self.ssthresh / self.mss / 2 * self.mss
        }
    }

    fn limit_cwnd(&mut self, max_bytes: u64) {
        self.cwnd = self.cwnd.min(max_bytes).max(self.mss);
    }

    fn limit_ssthresh(&mut self, max_bytes: u64) {
        self.ssthresh = self.ssthresh.min((max_bytes / self.mss).max(2) * self.mss);
    }

    fn on_ack(&mut self, ack: &AckEvent) {
        if !ack.may_grow() {
            return;
        }
        if self.cwnd < self.ssthresh || (self.slow_start_at_ssthresh && self.cwnd == self.ssthresh)
        {
            self.cwnd += match self.slow_start_limit {
                // RFC 3465 (2.2): cwnd += min(N, L·SMSS), L = 2 (1 counting ACKs).
                Some(segments) => ack.bytes_acked.min(segments * self.mss),
                // Linux's tcp_slow_start: all of it, up to ssthresh.
                None => ack.bytes_acked.min(
                    self.ssthresh.saturating_sub(self.cwnd)
                        + self.slow_start_at_ssthresh as u64 * self.mss,
                ),
            };
        } else if self.in_packets {
            // RFC 5681 eq. 3, as ns-2's opencwnd: the window grows by a fraction of a
            // segment on every ACK, and a reduction halves what it has reached.
            self.growth_fraction += (self.mss * self.mss) as f64 / self.cwnd as f64;
            let whole = self.growth_fraction as u64;
            self.cwnd += whole;
            self.growth_fraction -= whole as f64;
        } else {
            // RFC 3465 (2.1) / RFC 5681 (3.1): +1 SMSS per cwnd of bytes acknowledged.
            self.bytes_acked += ack.bytes_acked;
            if self.bytes_acked >= self.cwnd {
                self.bytes_acked -= self.cwnd;
                self.cwnd += self.mss;
            }
        }
    }

    fn on_congestion_event(&mut self, _now: SimTime, flight_bytes: u64, _in_flight: u64) {
        if self.in_packets {
            // ns-2's slowdown(CLOSE_CWND_HALF | CLOSE_SSTHRESH_HALF): cwnd_ is the exact
            // half, at least one segment; only ssthresh_ keeps the 2-segment floor.
            let half = self.scaled(flight_bytes);
            self.cwnd = half.max(self.mss);
            self.ssthresh = self.threshold(half.max(2 * self.mss));
        } else {
            self.cwnd = self.decreased(flight_bytes);
            self.ssthresh = self.cwnd;
        }
        self.bytes_acked = 0;
        self.growth_fraction = 0.0;
    }

    fn on_retransmission_timeout(&mut self, _now: SimTime, flight_bytes: u64, new_event: bool) {
        if new_event {
            self.ssthresh = self.threshold(self.decreased(flight_bytes));
        }
        self.cwnd = self.mss;
        self.bytes_acked = 0;
        self.growth_fraction = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(bytes: u64) -> AckEvent {
        AckEvent {
            bytes_acked: bytes,
            newly_acked_bytes: bytes,
            delivered_bytes: bytes,
            ..AckEvent::empty(SimTime::ZERO)
        }
    }

    #[test]
    fn slow_start_doubles_per_window_of_acks() {
        let mut r = Reno::new("reno", 1000, 2000);
        for _ in 0..2 {
            r.on_ack(&ack(1000));
        }
        assert_eq!(r.cwnd(), 4000);
    }

    #[test]
    fn stretch_acks_are_capped_at_two_segments() {
        let mut r = Reno::new("reno", 1000, 2000);
        r.on_ack(&ack(5000));
        assert_eq!(r.cwnd(), 4000);
    }

    /// Linux's rule (`cwnd_counting = "segments"`, no RFC 3465 limit): a stretch ACK
    /// adds all it covers, but slow start stops at ssthresh (8 → 12 on a 5-segment ACK
    /// with ssthresh 12, where RFC 3465 would give 10).
    #[test]
    fn without_the_limit_a_stretch_ack_grows_to_ssthresh() {
        let mut r = Reno::new("reno", 1000, 16_000).slow_start_limit(None);
        r.on_congestion_event(SimTime::ZERO, 24_000, 24_000); // ssthresh 12 segments
        r.limit_cwnd(8_000);
        r.on_ack(&ack(5000));
        assert_eq!(r.cwnd(), 12_000);
        let mut limited = Reno::new("reno", 1000, 16_000);
        limited.on_congestion_event(SimTime::ZERO, 24_000, 24_000);
        limited.limit_cwnd(8_000);
        limited.on_ack(&ack(5000));
        assert_eq!(limited.cwnd(), 10_000);
    }

    #[test]
    fn congestion_avoidance_adds_one_segment_per_window() {
        let mut r = Reno::new("reno", 1000, 10_000);
        r.on_congestion_event(SimTime::ZERO, 20_000, 20_000);
        assert_eq!((r.cwnd(), r.ssthresh()), (10_000, 10_000));
        for _ in 0..10 {
            r.on_ack(&ack(1000));
        }
        assert_eq!(r.cwnd(), 11_000);
    }

    #[test]
    fn timeout_sets_a_one_segment_loss_window_and_halves_only_once() {
        let mut r = Reno::new("reno", 1000, 10_000);
        r.on_retransmission_timeout(SimTime::ZERO, 16_000, true);
        assert_eq!((r.cwnd(), r.ssthresh()), (1000, 8000));
        r.on_retransmission_timeout(SimTime::ZERO, 1000, false);
        assert_eq!((r.cwnd(), r.ssthresh()), (1000, 8000));
        r.on_congestion_event(SimTime::ZERO, 1000, 1000);
        assert_eq!(r.ssthresh(), 2000); // never below 2 SMSS
    }

    /// ns-2's window arithmetic, against figures from ns-2.35's own cwnd trace (the
    /// Newreno flow of tests/ns2/README.md's drop-list comparison): from 7 segments,
    /// six ACKs of `cwnd_ += 1/cwnd_` give 7.81738; a fast retransmit halves that to
    /// 3.90869 with `ssthresh_` = 3; one more ACK gives 4.16453. tcplab's window is in
    /// whole bytes: within two bytes of each.
    #[test]
    fn window_in_packets_grows_by_a_fraction_per_ack_and_halves_it() {
        let mss = 1460;
        let mut r = Reno::new("newreno", mss, 7 * mss).in_packets(true);
        r.ssthresh = 7 * mss;
        for _ in 0..6 {
            r.on_ack(&ack(mss));
        }
        let segments = |r: &Reno| r.cwnd() as f64 / mss as f64;
        assert!(
            (segments(&r) - 7.81738).abs() < 2.0 / mss as f64,
            "{}",
            segments(&r)
        );
        r.on_congestion_event(SimTime::ZERO, r.cwnd(), r.cwnd());
        assert!(
            (segments(&r) - 3.90869).abs() < 2.0 / mss as f64,
            "{}",
            segments(&r)
        );
        assert_eq!(r.ssthresh(), 3 * mss);
        r.on_ack(&ack(mss));
        assert!(
            (segments(&r) - 4.16453).abs() < 2.0 / mss as f64,
            "{}",
            segments(&r)
        );
        // A timeout: ssthresh is the halved window in whole segments.
        r.on_retransmission_timeout(SimTime::ZERO, r.cwnd(), true);
        assert_eq!((r.cwnd(), r.ssthresh()), (mss, 2 * mss));
        // A fast retransmit from 3 segments: cwnd_ = 1.5 (slowdown floors only
        // ssthresh_, at 2), where RFC 5681 keeps the window at 2 segments.
        r.on_congestion_event(SimTime::ZERO, 3 * mss, 3 * mss);
        assert_eq!((r.cwnd(), r.ssthresh()), (3 * mss / 2, 2 * mss));
        let mut rfc = Reno::new("newreno", mss, 3 * mss);
        rfc.on_congestion_event(SimTime::ZERO, 3 * mss, 3 * mss);
        assert_eq!((rfc.cwnd(), rfc.ssthresh()), (2 * mss, 2 * mss));
    }
}
