//! Undoing a window reduction that proves spurious: the record a reduction leaves and
//! the evidence that takes it back (Linux `tcp_init_undo`, `tcp_may_undo`,
//! `tcp_packet_delayed`, `tcp_check_dsack` in `net/ipv4/tcp_input.c`).
//!
//! Detection is RFC 3708's (every retransmission of the episode reported as a
//! duplicate by a D-SACK, RFC 2883) or RFC 3522's Eifel (an ACK echoing a timestamp
//! older than the first retransmission: the original caused it); after a timeout
//! also F-RTO's (RFC 5682: never-retransmitted data acknowledged). The response is
//! RFC 4015's as Linux makes it: cwnd back to at least what it was, ssthresh back to
//! at least its former value, the loss marks taken back.

use crate::time::SimTime;

/// What a reduction replaced, kept while it may still prove spurious.
#[derive(Debug, Clone, Copy)]
pub struct UndoRecord {
    /// SND.UNA when the reduction began (Linux `undo_marker`): D-SACKs above it count.
    pub marker: u64,
    /// cwnd before the reduction (Linux `prior_cwnd`).
    pub prior_cwnd: u64,
    /// ssthresh before it, at least ¾ of cwnd when it was open (Linux
    /// `tcp_current_ssthresh`).
    pub prior_ssthresh: u64,
    /// Retransmissions of the episode not yet reported duplicate by a D-SACK (Linux
    /// `undo_retrans`; `None` before the first).
    unproven: Option<u32>,
    /// When the episode's first retransmission left (Linux `retrans_stamp`).
    first_retransmit_at: Option<SimTime>,
}

impl UndoRecord {
    /// The record of a reduction starting now with SND.UNA at `marker`, from a window
    /// of `cwnd` and a threshold of `ssthresh` (`open`: the sender was not already
    /// reducing, so ssthresh counts as at least ¾·cwnd), with `in_flight_retransmissions`
    /// retransmissions still out that may be reported duplicate later.
    pub fn new(
        marker: u64,
        cwnd: u64,
        ssthresh: u64,
        open: bool,
        in_flight_retransmissions: u32,
    ) -> Self {
        let current = if open {
            ssthresh.max(cwnd / 2 + cwnd / 4)
        } else {
            ssthresh
        };
        UndoRecord {
            marker,
            prior_cwnd: cwnd,
            prior_ssthresh: current,
            unproven: (in_flight_retransmissions > 0).then_some(in_flight_retransmissions),
            first_retransmit_at: None,
        }
    }

    /// A retransmission left at `now`.
    pub fn on_retransmit(&mut self, now: SimTime) {
        self.unproven = Some(self.unproven.unwrap_or(0) + 1);
        self.first_retransmit_at.get_or_insert(now);
    }

    /// A D-SACK reported [.., `end`) received twice: a retransmission above the marker
    /// was unnecessary.
    pub fn on_dsack(&mut self, end: u64) {
        if end > self.marker {
            if let Some(n) = &mut self.unproven {
                *n = n.saturating_sub(1);
            }
        }
    }

    /// Every retransmission of the episode was reported duplicate (RFC 3708).
    pub fn all_retransmissions_duplicated(&self) -> bool {
        self.unproven == Some(0)
    }

    /// Eifel (RFC 3522): an ACK echoing `ts_ecr` was sent for a segment transmitted
    /// before the first retransmission, so the original arrived.
    pub fn echo_predates_retransmission(&self, ts_ecr: Option<u64>) -> bool {
        match (ts_ecr, self.first_retransmit_at) {
            (Some(ecr), Some(first)) => ecr < first.as_ns(),
            _ => false,
        }
    }

    /// Linux `tcp_may_undo`: every retransmission duplicated, or the ACK's echo predates
    /// them.
    pub fn may_undo(&self, ts_ecr: Option<u64>) -> bool {
        self.all_retransmissions_duplicated() || self.echo_predates_retransmission(ts_ecr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_retransmission_must_be_reported_duplicate() {
        let mut u = UndoRecord::new(1000, 20_000, u64::MAX, true, 0);
        assert!(
            !u.may_undo(None),
            "nothing retransmitted yet: nothing proven"
        );
        u.on_retransmit(SimTime::from_ms(10));
        u.on_retransmit(SimTime::from_ms(11));
        u.on_dsack(2000);
        assert!(!u.may_undo(None));
        u.on_dsack(500); // below the marker: an older episode's
        assert!(!u.may_undo(None));
        u.on_dsack(3000);
        assert!(u.may_undo(None));
    }

    #[test]
    fn an_echo_older_than_the_first_retransmission_proves_it_spurious() {
        let mut u = UndoRecord::new(1000, 20_000, 8_000, false, 0);
        u.on_retransmit(SimTime::from_ms(10));
        assert!(u.may_undo(Some(SimTime::from_ms(9).as_ns())));
        assert!(!u.may_undo(Some(SimTime::from_ms(10).as_ns())));
        assert_eq!(
            u.prior_ssthresh, 8_000,
            "already reducing: ssthresh as it was"
        );
    }

    #[test]
    fn an_open_sender_counts_three_quarters_of_cwnd_as_its_threshold() {
        let u = UndoRecord::new(1, 40_000, 10_000, true, 0);
        assert_eq!(u.prior_ssthresh, 30_000);
    }
}
