//! SCTP's own window rules (RFC 9260 section 7.2): slow start by at most one PMTU per
//! SACK and only while the cumulative TSN advances and the window is used in full,
//! congestion avoidance by one PMTU per window of acknowledged bytes
//! (`partial_bytes_acked`), ssthresh = max(cwnd/2, 4·PMTU) on fast retransmit and on a
//! T3-rtx expiry, a one-PMTU window after the expiry. "mss" here is the path MTU: SCTP
//! counts its window in PMTUs of chunk payload (RFC 9260 section 7.2; lksctp).

use super::{AckEvent, AlgorithmConfig, BuildContext, CongestionControl, ParamError};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Parameters of `sctp` (RFC 9260 section 7.2).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Lower bound of ssthresh after a loss, in PMTUs (RFC 9260: 4).
    pub min_ssthresh_mtus: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            min_ssthresh_mtus: 4,
        }
    }
}

impl AlgorithmConfig for Config {
    fn validate(&self) -> Result<(), ParamError> {
        if self.min_ssthresh_mtus == 0 {
            return Err(ParamError::new("min_ssthresh_mtus", "must be at least 1"));
        }
        Ok(())
    }

    fn build(&self, ctx: BuildContext) -> Box<dyn CongestionControl> {
        Box::new(Sctp {
            pmtu: ctx.mss,
            cwnd: ctx.initial_window,
            ssthresh: u64::MAX,
            partial_bytes_acked: 0,
            min_ssthresh: self.min_ssthresh_mtus as u64 * ctx.mss,
        })
    }
}

/// RFC 9260 section 7.2 window state of one destination.
#[derive(Debug, Clone)]
struct Sctp {
    pmtu: u64,
    cwnd: u64,
    ssthresh: u64,
    partial_bytes_acked: u64,
    min_ssthresh: u64,
}

impl Sctp {
    /// Section 7.2.3: ssthresh = max(cwnd/2, 4·MTU).
    fn lower_ssthresh(&mut self) {
        self.ssthresh = (self.cwnd / 2).max(self.min_ssthresh);
        self.partial_bytes_acked = 0;
    }
}

impl CongestionControl for Sctp {
    fn name(&self) -> &'static str {
        "sctp"
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    /// `bytes_acked`: payload of all chunks newly acknowledged (cumulatively or by gap
    /// blocks); `newly_acked_bytes` > 0: the cumulative TSN ack point advanced;
    /// `cwnd_limited`: the flight filled cwnd before the SACK.
    fn on_ack(&mut self, ack: &AckEvent) {
        if ack.in_recovery || ack.bytes_acked == 0 {
            return;
        }
        if self.cwnd <= self.ssthresh {
            // 7.2.1: all three conditions — window used in full, cumulative TSN
            // advanced, not in Fast Recovery.
            if ack.cwnd_limited && ack.newly_acked_bytes > 0 {
                self.cwnd += ack.bytes_acked.min(self.pmtu);
            }
        } else {
            // 7.2.2 (with RFC 4960 errata 3.26): partial_bytes_acked is capped at cwnd
            // while the window is not used in full.
            self.partial_bytes_acked += ack.bytes_acked;
            if self.partial_bytes_acked >= self.cwnd && ack.cwnd_limited {
                self.partial_bytes_acked -= self.cwnd;
                self.cwnd += self.pmtu;
            } else {
                self.partial_bytes_acked = self.partial_bytes_acked.min(self.cwnd);
            }
        }
        if ack.in_flight == 0 {
            self.partial_bytes_acked = 0; // 7.2.2: all data acknowledged
        }
    }

    /// 7.2.4 (2): ssthresh = max(cwnd/2, 4·MTU), cwnd = ssthresh.
    fn on_congestion_event(&mut self, _now: SimTime, _flight_bytes: u64, _in_flight: u64) {
        self.lower_ssthresh();
        self.cwnd = self.ssthresh;
    }

    /// 7.2.3: every T3-rtx expiry lowers ssthresh from the current cwnd (a repeated
    /// expiry too: cwnd is then one MTU, so ssthresh falls to 4·MTU), cwnd = 1·MTU.
    fn on_retransmission_timeout(&mut self, _now: SimTime, _basis_bytes: u64, _new_event: bool) {
        self.lower_ssthresh();
        self.cwnd = self.pmtu;
    }

    fn limit_cwnd(&mut self, max_bytes: u64) {
        self.cwnd = self.cwnd.min(max_bytes).max(self.pmtu);
    }

    fn state_names(&self) -> &'static [&'static str] {
        &["partial_bytes_acked"]
    }

    fn state(&self) -> [f64; super::STATE_SLOTS] {
        let mut s = [f64::NAN; super::STATE_SLOTS];
        s[0] = self.partial_bytes_acked as f64;
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MTU: u64 = 1500;

    fn sctp(iw: u64) -> Box<dyn CongestionControl> {
        Config::default().build(BuildContext {
            mss: MTU,
            initial_window: iw,
            rng: crate::rng::Rng::for_component(1, "test"),
            window_in_packets: false,
            slow_start_at_ssthresh: false,
            slow_start_limit: None,
        })
    }

    fn sack(bytes: u64, cum_advanced: bool, cwnd_limited: bool) -> AckEvent {
        AckEvent {
            bytes_acked: bytes,
            newly_acked_bytes: if cum_advanced { bytes } else { 0 },
            cwnd_limited,
            in_flight: 1,
            ..AckEvent::empty(SimTime::ZERO)
        }
    }

    /// 7.2.1: +min(acked, PMTU) per SACK, only when the cumulative TSN advances and
    /// the window was full.
    #[test]
    fn slow_start_grows_by_at_most_one_pmtu_per_sack() {
        let mut c = sctp(4380);
        c.on_ack(&sack(2904, true, true));
        assert_eq!(c.cwnd(), 5880);
        c.on_ack(&sack(1000, true, true));
        assert_eq!(c.cwnd(), 6880);
        c.on_ack(&sack(1452, false, true)); // gap ack only
        c.on_ack(&sack(1452, true, false)); // window not full
        assert_eq!(c.cwnd(), 6880);
    }

    /// 7.2.2: one PMTU per cwnd of acknowledged bytes, with the window full.
    #[test]
    fn congestion_avoidance_adds_one_pmtu_per_window() {
        let mut c = sctp(12_000);
        c.on_congestion_event(SimTime::ZERO, 0, 0); // ssthresh = cwnd = 6000
        assert_eq!((c.cwnd(), c.ssthresh()), (6000, 6000));
        c.on_ack(&sack(1452, true, true)); // cwnd ≤ ssthresh: slow start
        assert_eq!(c.cwnd(), 7452);
        for _ in 0..5 {
            c.on_ack(&sack(1452, true, true)); // 7260 < 7452
        }
        assert_eq!(c.cwnd(), 7452);
        c.on_ack(&sack(1452, true, true)); // 8712 ≥ 7452
        assert_eq!(c.cwnd(), 7452 + MTU);
    }

    /// 7.2.3: ssthresh = max(cwnd/2, 4·MTU); cwnd = 1 MTU after T3, = ssthresh after
    /// fast retransmit.
    #[test]
    fn losses_follow_section_7_2_3() {
        let mut c = sctp(20_000);
        c.on_congestion_event(SimTime::ZERO, 0, 0);
        assert_eq!((c.cwnd(), c.ssthresh()), (10_000, 10_000));
        c.on_congestion_event(SimTime::ZERO, 0, 0);
        assert_eq!((c.cwnd(), c.ssthresh()), (6000, 6000)); // 4·MTU floor
        c.on_retransmission_timeout(SimTime::ZERO, 0, true);
        assert_eq!((c.cwnd(), c.ssthresh()), (MTU, 6000));
        c.on_retransmission_timeout(SimTime::ZERO, 0, false);
        assert_eq!((c.cwnd(), c.ssthresh()), (MTU, 6000));
    }
}
