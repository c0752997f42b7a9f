//! How much more the ACKs deliver than BtlBw says they should: BBR's allowance for
//! ACK aggregation (Linux 5.1+ `bbr_update_ack_aggregation`, "tcp_bbr: adapt cwnd
//! based on ack aggregation estimation"; on by default in today's kernels, absent in
//! Linux 4.9).
//!
//! An epoch starts when the ACKs fall behind the rate BtlBw predicts. From then on
//! the excess is what has been ACKed beyond BtlBw × the time since the epoch began
//! (at most the window); its maximum over the last 5–10 rounds is kept in two halves
//! that take turns being cleared. A stretch ACK, a receiver or a link that batches
//! ACKs, or the cumulative ACK that ends a recovery without SACK all show up here, and
//! BBR then keeps that much more in flight so that it can send through the silences
//! between the batches.

use crate::time::SimTime;

/// The windowed maximum of the ACKed excess, and the current epoch.
#[derive(Debug)]
pub(super) struct AckAggregation {
    /// Rounds in each half of the window (Linux: 5).
    half_rounds: u32,
    /// An epoch holds at most this many bytes (Linux: 2²⁰ segments).
    epoch_limit: u64,
    /// Maxima of the two halves of the window, bytes.
    extra_acked: [u64; 2],
    /// The half being filled.
    half: usize,
    /// Rounds since that half was cleared.
    rounds_in_half: u32,
    /// When the epoch began.
    epoch_start: SimTime,
    /// Bytes ACKed since then.
    epoch_acked: u64,
}

impl AckAggregation {
    /// Nothing seen yet; halves of `half_rounds` rounds, epochs of at most
    /// `epoch_limit` bytes.
    pub(super) fn new(half_rounds: u32, epoch_limit: u64) -> Self {
        AckAggregation {
            half_rounds,
            epoch_limit,
            extra_acked: [0; 2],
            half: 0,
            rounds_in_half: 0,
            epoch_start: SimTime::ZERO,
            epoch_acked: 0,
        }
    }

    /// An ACK at `now` that delivered `acked` bytes, with the estimate `bw_bps`, the
    /// window `cwnd` (the excess is capped by it), `round_start` if it began a round.
    pub(super) fn on_ack(
        &mut self,
        now: SimTime,
        acked: u64,
        bw_bps: f64,
        cwnd: u64,
        round_start: bool,
    ) {
        let epoch_limit = self.epoch_limit;
        if round_start {
            self.rounds_in_half = (self.rounds_in_half + 1).min(31);
            if self.rounds_in_half >= self.half_rounds {
                self.rounds_in_half = 0;
                self.half ^= 1;
                self.extra_acked[self.half] = 0;
            }
        }
        let epoch = now.saturating_sub(self.epoch_start);
        let mut expected = (bw_bps / 8.0 * epoch.as_secs_f64()) as u64;
        // The ACKs are no faster than BtlBw (or the epoch is very old): start afresh.
        if self.epoch_acked <= expected || self.epoch_acked + acked >= epoch_limit {
            self.epoch_acked = 0;
            self.epoch_start = now;
            expected = 0;
        }
        self.epoch_acked = (self.epoch_acked + acked).min(epoch_limit);
        let extra = self.epoch_acked.saturating_sub(expected).min(cwnd);
        let best = &mut self.extra_acked[self.half];
        *best = (*best).max(extra);
    }

    /// The excess to provision for, bytes: the larger of the two halves.
    pub(super) fn extra_acked(&self) -> u64 {
        self.extra_acked[0].max(self.extra_acked[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    const LIMIT: u64 = (1 << 20) * MSS;

    /// ACKs at exactly BtlBw leave no excess: 8 Mb/s is 1,000 B per ms, one
    /// 1,000-byte segment ACKed every ms.
    #[test]
    fn acks_at_the_estimated_rate_leave_no_excess() {
        let mut a = AckAggregation::new(5, LIMIT);
        for i in 1..=100 {
            a.on_ack(SimTime::from_ms(i), MSS, 8e6, 100 * MSS, false);
        }
        assert!(a.extra_acked() <= MSS, "excess {}", a.extra_acked());
    }

    /// A silence of 10 ms, then 20 segments in one ACK: the epoch began at the first
    /// ACK after the silence fell behind, so the excess is the 20,000 B less what
    /// 8 Mb/s delivers in no time at all — 20,000 B, hand-counted.
    #[test]
    fn a_batch_after_a_silence_is_the_excess() {
        let mut a = AckAggregation::new(5, LIMIT);
        a.on_ack(SimTime::from_ms(1), MSS, 8e6, 100 * MSS, false);
        // 10 ms later: 10,000 B expected since the epoch began at 1 ms, 1,000 ACKed:
        // behind, so a new epoch starts here with the 20 segments.
        a.on_ack(SimTime::from_ms(11), 20 * MSS, 8e6, 100 * MSS, false);
        assert_eq!(a.extra_acked(), 20 * MSS);
        // Capped by the window.
        let mut b = AckAggregation::new(5, LIMIT);
        b.on_ack(SimTime::from_ms(11), 20 * MSS, 8e6, 5 * MSS, false);
        assert_eq!(b.extra_acked(), 5 * MSS);
    }

    /// The maximum is forgotten after two halves of the window, hand-counted with
    /// halves of 5 rounds: the batch of 20 (at 1 ms) sits in half 0; at the fifth
    /// round start half 1 is cleared and filled, at the tenth half 0 is cleared, and
    /// what is left is the steady ACKs' own excess of one segment (each ACK is one
    /// segment ahead of BtlBw × the time since its epoch began).
    #[test]
    fn the_excess_is_forgotten_after_the_window() {
        let mut a = AckAggregation::new(5, LIMIT);
        a.on_ack(SimTime::from_ms(1), 20 * MSS, 8e6, 100 * MSS, false);
        for round in 1..=10 {
            // Steady ACKs from 101 ms, each starting a round.
            a.on_ack(SimTime::from_ms(100 + round), MSS, 8e6, 100 * MSS, true);
            let expected = if round < 10 { 20 * MSS } else { MSS };
            assert_eq!(a.extra_acked(), expected, "round {round}");
        }
    }
}
