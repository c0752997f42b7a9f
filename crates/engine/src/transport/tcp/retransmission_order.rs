//! ns-2.35 TCP/Linux's second rule for a lost retransmission (`tcp/scoreboard1.cc`,
//! `ScoreBoard1::UpdateScoreBoard`): retransmissions are numbered in the order they go
//! out (`rtx_id_`, from 0 after the board is cleared), the board remembers the number
//! of the retransmission it last found delivered (`acked_rtx_id_`), and a
//! retransmission still out is lost once one numbered more than DupThresh + 1 after
//! it has been delivered (`GetRtx() + dupack_threshold + 1 < acked_rtx_id_`). The
//! first rule — lost once a segment first sent after it is SACKed — finds a lost
//! retransmission only when new data sent behind it comes back; in a recovery that
//! resends a burst of holes, the holes' own retransmissions come back first, and
//! this rule resends the lost ones among them a round trip sooner.
//!
//! ns-2 walks its board once per ACK in sequence order, so a retransmission SACKed by
//! an ACK counts only for the retransmissions above it in sequence on that ACK (the
//! others are judged on the next one: the source says so), and the last SACKed one
//! sets the number (an assignment, not a maximum). A cumulative ACK counts before the
//! walk and only raises the number.
//!
//! Every operation is O(log n) in the retransmissions outstanding: a recovery on a
//! long fat path can have 10⁵ of them.

use super::DUP_THRESH;
use crate::time::SimTime;
use std::collections::BTreeMap;

/// The numbering and what the receiver is known to hold (see the module doc).
#[derive(Debug, Clone, Default)]
pub struct RetransmissionOrder {
    /// The number the next retransmission gets.
    next: u64,
    /// The number of the retransmission last found delivered (ns-2's `acked_rtx_id_`,
    /// −1 there for none).
    acked: Option<u64>,
    /// This ACK's SACKed retransmissions, (first sequence number, number), in the
    /// order the blocks were read.
    sacked: Vec<(u64, u64)>,
    /// Each segment's latest retransmission: start → (when it went out, its number).
    numbers: BTreeMap<u64, (SimTime, u64)>,
}

impl RetransmissionOrder {
    /// Numbers the retransmission of the segment starting at `start` going out at
    /// `sent_at`; returns its number.
    pub fn number(&mut self, start: u64, sent_at: SimTime) -> u64 {
        let n = self.next;
        self.next += 1;
        self.numbers.insert(start, (sent_at, n));
        n
    }

    /// The segment starting at `start`, last sent at `sent_at` as a retransmission, was
    /// delivered: by a cumulative ACK (`CleanRtxQueue`: the number only rises) or by
    /// a SACK block of this ACK.
    pub fn on_delivered(&mut self, start: u64, sent_at: SimTime, cumulative: bool) {
        let Some(&(at, n)) = self.numbers.get(&start) else {
            return;
        };
        if at != sent_at {
            return; // numbered before a reset: not this transmission
        }
        self.numbers.remove(&start);
        if cumulative {
            self.acked = Some(self.acked.map_or(n, |a| a.max(n)));
        } else {
            self.sacked.push((start, n));
        }
    }

    /// Forgets the numbers of segments wholly below `ack` (acknowledged).
    pub fn forget_below(&mut self, ack: u64) {
        while self
            .numbers
            .first_key_value()
            .is_some_and(|(&s, _)| s < ack)
        {
            self.numbers.pop_first();
        }
    }

    /// Sorts this ACK's SACKed retransmissions into the walk's (sequence) order and
    /// returns the highest number any retransmission can be judged against on this
    /// ACK: only those numbered more than DupThresh + 1 below it can be lost.
    pub fn begin_walk(&mut self) -> Option<u64> {
        self.sacked.sort_unstable();
        self.sacked.iter().map(|&(_, n)| n).chain(self.acked).max()
    }

    /// Whether retransmission `n` of the segment starting at `start` is lost, judged
    /// where the walk reaches it: with the number in force after the SACKed
    /// retransmissions below `start` on this ACK.
    pub fn is_lost(&self, start: u64, n: u64) -> bool {
        let below = self.sacked.partition_point(|&(s, _)| s < start);
        let acked = below
            .checked_sub(1)
            .map_or(self.acked, |i| Some(self.sacked[i].1));
        acked.is_some_and(|a| Self::condemned(n, a))
    }

    /// `GetRtx() + dupack_threshold + 1 < acked_rtx_id_`.
    pub fn condemned(n: u64, acked: u64) -> bool {
        n + DUP_THRESH as u64 + 1 < acked
    }

    /// Ends the walk: the last SACKed retransmission in sequence order sets the number.
    pub fn end_walk(&mut self) {
        if let Some(&(_, n)) = self.sacked.last() {
            self.acked = Some(n);
        }
        self.sacked.clear();
    }

    /// The board was cleared (a recovery's end, a timeout: `ClearScoreBoard`,
    /// `MarkLoss`): numbering starts again.
    pub fn reset(&mut self) {
        self.next = 0;
        self.acked = None;
        self.sacked.clear();
        self.numbers.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: SimTime = SimTime(1);

    fn numbered(k: u64) -> RetransmissionOrder {
        let mut o = RetransmissionOrder::default();
        for i in 0..k {
            assert_eq!(o.number(100 * i, T), i);
        }
        o
    }

    #[test]
    fn lost_once_a_retransmission_five_later_is_delivered() {
        let mut o = numbered(8);
        assert!(!o.is_lost(0, 0), "nothing delivered yet");
        o.on_delivered(400, T, true);
        assert!(!o.is_lost(0, 0), "0 + 3 + 1 = 4 is not below 4");
        o.on_delivered(200, T, true); // a cumulative ACK only raises it
        o.on_delivered(500, T, false);
        assert_eq!(o.begin_walk(), Some(5));
        assert!(o.is_lost(550, 0), "above the SACKed one: judged with 5");
        assert!(!o.is_lost(450, 0), "below it: still 4 on this ACK");
        o.end_walk();
        assert!(o.is_lost(450, 0) && !o.is_lost(450, 1));
    }

    #[test]
    fn the_highest_sacked_in_sequence_sets_the_number_even_if_lower() {
        let mut o = numbered(10);
        o.on_delivered(900, T, true);
        o.on_delivered(500, T, false);
        o.on_delivered(800, T, false);
        o.on_delivered(700, T, false);
        assert_eq!(o.begin_walk(), Some(9));
        assert!(o.is_lost(750, 2) && !o.is_lost(750, 3), "7 in force at 750");
        assert!(o.is_lost(850, 3) && !o.is_lost(850, 4), "8 above 800");
        o.end_walk();
        assert!(
            !o.is_lost(0, 4),
            "ns-2 assigns: 8 now, though 9 was delivered"
        );
        o.reset();
        assert!(!o.is_lost(0, 0));
        assert_eq!(o.number(0, T), 0);
    }

    #[test]
    fn a_delivery_counts_only_for_the_transmission_numbered() {
        let mut o = numbered(9);
        o.on_delivered(800, SimTime(2), true); // sent again since (or before a reset)
        o.on_delivered(0, T, true);
        assert_eq!(o.begin_walk(), Some(0));
        o.forget_below(500);
        o.on_delivered(300, T, true);
        assert_eq!(o.begin_walk(), Some(0), "forgotten below the ACK");
    }
}
