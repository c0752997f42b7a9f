//! RACK, time-based loss detection (RFC 8985 section 6), as Linux 6.x runs it
//! (`net/ipv4/tcp_recovery.c`).
//!
//! A segment is lost once a segment *sent after it* has been delivered and it has had
//! RACK.rtt + reo_wnd to arrive since its own (last) transmission. Retransmissions are
//! timed like originals, so a lost retransmission is found the same way, one RTT
//! after it left, without a timer. This module keeps RACK's state — the most recent
//! delivered transmission and its RTT — and the rules; the scoreboard walks its
//! segments with them ([`super::scoreboard::Scoreboard::mark_lost_by_time`]).

use crate::time::SimTime;

/// RACK's record of the most recently sent segment known delivered (RFC 8985 6.1:
/// RACK.xmit_ts, RACK.end_seq, RACK.rtt) and its reordering state.
#[derive(Debug, Clone, Copy, Default)]
pub struct Rack {
    /// RACK.xmit_ts: when the most recently sent delivered segment was sent.
    xmit_ts: SimTime,
    /// RACK.end_seq: its end, breaking ties between segments sent at the same time.
    end_seq: u64,
    /// RACK.rtt: the RTT measured from it.
    rtt: SimTime,
    /// Something was delivered since the last check: worth walking the queue again.
    advanced: bool,
    /// RACK.reordering_seen (Linux `reord_seen`): an original (never retransmitted)
    /// segment was delivered below data delivered before it.
    reordering_seen: bool,
    /// RACK.fack: the highest end of any delivered segment.
    fack: u64,
    /// RACK.fack when the current ACK began: one ACK's own deliveries (its cumulative
    /// part and its SACK blocks) are not reordering among themselves.
    fack_before_ack: u64,
    /// Deliveries processed by the current ACK are timed against this.
    now: SimTime,
    /// An ACK for a retransmitted segment sent after this may be the original's:
    /// it is too soon to be the retransmission's (RFC 8985 6.2 step 2, Linux
    /// `tcp_rack_advance`: RTT below min_rtt).
    ambiguous_after: SimTime,
    /// The current ACK's timestamp echo: a retransmission sent after it cannot be
    /// what the ACK answers (RFC 8985 6.2 step 2, the TSecr test).
    ts_ecr: Option<SimTime>,
}

impl Rack {
    /// Starts processing an ACK arriving at `now`, with the connection's `min_rtt` and
    /// the ACK's timestamp echo, if timestamps are on.
    pub fn begin_ack(&mut self, now: SimTime, min_rtt: Option<SimTime>, ts_ecr: Option<u64>) {
        self.now = now;
        self.ts_ecr = ts_ecr.map(SimTime);
        self.fack_before_ack = self.fack;
        self.ambiguous_after =
            SimTime(now.as_ns().saturating_sub(min_rtt.map_or(0, |r| r.as_ns())));
    }

    /// Whether a transmission at `sent_at` of a segment ending at `end` came after
    /// RACK's record (RFC 8985 `RACK_sent_after`: by time, ties by sequence).
    #[inline]
    pub fn sent_after_record(&self, sent_at: SimTime, end: u64) -> bool {
        sent_at > self.xmit_ts || (sent_at == self.xmit_ts && end > self.end_seq)
    }

    /// A segment ending at `end`, last sent at `sent_at`, was newly delivered (ACKed
    /// or SACKed) by the current ACK (RFC 8985 6.2 steps 2–3).
    pub fn on_delivered(&mut self, sent_at: SimTime, end: u64, ever_retransmitted: bool) {
        // RFC 8985 6.2 step 3: an original delivered below what was delivered
        // before can only have been overtaken by it.
        if !ever_retransmitted && end < self.fack_before_ack {
            self.reordering_seen = true;
        }
        self.fack = self.fack.max(end);
        if ever_retransmitted
            && (sent_at > self.ambiguous_after || self.ts_ecr.is_some_and(|ecr| ecr < sent_at))
        {
            // Too soon for the retransmission, or echoing a timestamp older than it:
            // the ACK may be the original's.
            return;
        }
        if self.sent_after_record(sent_at, end) {
            self.xmit_ts = sent_at;
            self.end_seq = end;
            self.rtt = self.now - sent_at;
            self.advanced = true;
        }
    }

    /// Takes the "delivered since the last check" flag (Linux checks only then).
    pub fn take_advanced(&mut self) -> bool {
        std::mem::take(&mut self.advanced)
    }

    /// RFC 8985 6.2 step 4 as Linux's `tcp_rack_reo_wnd`: no settling time while no
    /// reordering has been seen and the sender is in recovery or DupThresh segments
    /// are SACKed (then RACK does what DupThresh would); else min_RTT/4, at most SRTT.
    pub fn reo_wnd(
        &self,
        in_recovery: bool,
        sacked_segments: usize,
        min_rtt: Option<SimTime>,
        srtt: Option<SimTime>,
    ) -> SimTime {
        if !self.reordering_seen && (in_recovery || sacked_segments >= super::DUP_THRESH) {
            return SimTime::ZERO;
        }
        let quarter = min_rtt.map_or(0, |r| r.as_ns() / 4);
        SimTime(quarter.min(srtt.map_or(u64::MAX, |s| s.as_ns())))
    }

    /// How long a segment sent at `sent_at` (before RACK's record) still has before it
    /// counts as lost at `now`: ≤ 0 means lost (RFC 8985 6.2 step 5,
    /// `RACK.rtt + reo_wnd − (now − xmit_ts)`).
    #[inline]
    pub fn remaining(&self, now: SimTime, sent_at: SimTime, reo_wnd: SimTime) -> i64 {
        (self.rtt.as_ns() + reo_wnd.as_ns()) as i64 - (now.as_ns() as i64 - sent_at.as_ns() as i64)
    }

    /// RACK.rtt: the RTT of the most recently sent delivered segment.
    pub fn rtt(&self) -> SimTime {
        self.rtt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_ms(x)
    }

    #[test]
    fn the_record_follows_the_latest_sent_delivery() {
        let mut r = Rack::default();
        r.begin_ack(ms(100), Some(ms(50)), None);
        r.on_delivered(ms(40), 2001, false);
        r.on_delivered(ms(20), 1001, false);
        assert_eq!((r.xmit_ts, r.end_seq, r.rtt), (ms(40), 2001, ms(60)));
        assert!(!r.reordering_seen, "one ACK's deliveries are not reordered");
        r.begin_ack(ms(101), Some(ms(50)), None);
        r.on_delivered(ms(30), 1501, true);
        assert!(
            !r.reordering_seen,
            "a retransmission filling a hole is no reordering"
        );
        r.on_delivered(ms(30), 1701, false);
        assert!(r.reordering_seen, "an original overtaken by later data");
    }

    #[test]
    fn a_retransmission_acked_too_soon_is_ambiguous() {
        let mut r = Rack::default();
        r.begin_ack(ms(100), Some(ms(50)), None);
        // Retransmitted 30 ms ago with a 50 ms min RTT: the ACK is the original's.
        r.on_delivered(ms(70), 1001, true);
        assert!(!r.take_advanced());
        r.on_delivered(ms(45), 1001, true);
        assert!(r.take_advanced());
        assert_eq!(r.rtt, ms(55));
        // An echo of 40 ms: the ACK answers something sent before the retransmission
        // of 42 ms, so that delivery may be the original's.
        r.begin_ack(ms(110), Some(ms(50)), Some(ms(40).as_ns()));
        r.on_delivered(ms(42), 3001, true);
        assert!(!r.take_advanced());
    }

    #[test]
    fn settling_time_is_a_quarter_min_rtt_until_dupthresh_or_recovery() {
        let r = Rack::default();
        assert_eq!(r.reo_wnd(false, 1, Some(ms(40)), Some(ms(60))), ms(10));
        assert_eq!(
            r.reo_wnd(false, 3, Some(ms(40)), Some(ms(60))),
            SimTime::ZERO
        );
        assert_eq!(
            r.reo_wnd(true, 0, Some(ms(40)), Some(ms(60))),
            SimTime::ZERO
        );
        assert_eq!(
            r.reo_wnd(false, 1, Some(ms(40)), Some(ms(5))),
            ms(5),
            "at most SRTT"
        );
    }
}
