//! The receiving side of a TCP connection: reassembly, cumulative and selective
//! acknowledgements, delayed ACKs, the advertised window.
//!
//! * In-order data advances RCV.NXT and is handed to the application at once (the
//!   application reads instantly, so the advertised window is the whole buffer).
//! * Out-of-order data is kept as ranges and reported in SACK blocks as RFC 2018
//!   section 4 asks and Linux (`tcp_sack_new_ofo_skb`) and ns-2 (`Sacker`) do: the
//!   block holding the latest arrival first, then the most recently reported others;
//!   `sack_blocks` of them are remembered, an older one is reported no more.
//! * ACK policy (RFC 5681 4.2, RFC 9293 3.8.6.3): ACK at once for out-of-order or
//!   duplicate segments and for segments that fill a hole; otherwise every
//!   `ack_every`-th full segment, or when the delayed-ACK timer fires.
//! * Timestamps (RFC 7323 section 4.3): echo the TSval of the earliest segment not yet
//!   acknowledged.
//! * With `autotune`, the window offered grows as Linux's does (`autotune.rs`) instead
//!   of being the whole buffer from the start.

use super::autotune::Autotune;
use crate::time::SimTime;
use crate::transport::{Endpoint, Outbox, TransportStats};
use crate::wire::tcp::{flags, OptionSizes, TcpSegment, MAX_SACK_BLOCKS};
use crate::wire::TransportHeader;
use std::collections::VecDeque;

/// Fixed parameters of a receiver.
#[derive(Debug, Clone)]
pub struct ReceiverParams {
    /// Acknowledge every this many in-order segments.
    pub ack_every: u32,
    /// Delayed-ACK timeout.
    pub delayed_ack: SimTime,
    /// Send SACK blocks.
    pub sack: bool,
    /// Report duplicate segments in a first D-SACK block (RFC 2883; with `sack`).
    pub dsack: bool,
    /// SACK blocks remembered and reported (1 to [`MAX_SACK_BLOCKS`]).
    pub sack_blocks: usize,
    /// Echo timestamps.
    pub timestamps: bool,
    /// How the ACKs' options count on the wire.
    pub option_sizes: OptionSizes,
    /// Advertised window, bytes (already capped by window scaling).
    pub window: u64,
    /// Wait for a SYN before accepting data.
    pub handshake: bool,
    /// Linux's receive-window autotuning, growing towards `window` (`None`: the whole
    /// `window` is offered from the start).
    pub autotune: Option<Autotune>,
}

/// A TCP receiver endpoint.
#[derive(Debug)]
pub struct TcpReceiver {
    p: ReceiverParams,
    established: bool,
    /// Next sequence number expected (RFC 9293 RCV.NXT).
    rcv_nxt: u64,
    /// Received ranges above RCV.NXT, ascending and disjoint. After a burst of
    /// losses there is one per hole (thousands on a long fat path): holes are filled
    /// from the front and new ranges mostly appear at the back, both O(1) here, and
    /// lookups are binary searches.
    out_of_order: VecDeque<(u64, u64)>,
    /// The blocks to report, most recent arrival first (Linux's `selective_acks`):
    /// a sequence number inside each, looked up in `out_of_order` when an ACK is
    /// built, since a block grows and merges as holes fill.
    recent_blocks: VecDeque<u64>,
    /// Bytes held in `out_of_order` (they take up receive buffer).
    held: u64,
    /// A duplicate segment's range for the next ACK's first block (RFC 2883).
    dsack: Option<(u64, u64)>,
    fin_seq: Option<u64>,
    unacked_segments: u32,
    delayed_ack_at: Option<SimTime>,
    ts_to_echo: Option<u64>,
    stats: TransportStats,
}

impl TcpReceiver {
    /// A receiver waiting for a SYN (or for data at sequence 1 without handshake).
    pub fn new(p: ReceiverParams) -> Self {
        let established = !p.handshake;
        TcpReceiver {
            established,
            rcv_nxt: if established { 1 } else { 0 },
            out_of_order: VecDeque::new(),
            recent_blocks: VecDeque::with_capacity(MAX_SACK_BLOCKS + 1),
            held: 0,
            dsack: None,
            fin_seq: None,
            unacked_segments: 0,
            delayed_ack_at: None,
            ts_to_echo: None,
            stats: TransportStats::default(),
            p,
        }
    }

    /// Fills in SACK blocks: a D-SACK block first (RFC 2883), then the remembered
    /// blocks, the one holding the latest out-of-order arrival first (RFC 2018
    /// section 4).
    fn add_sack_blocks(&mut self, seg: &mut TcpSegment) {
        if !self.p.sack {
            return;
        }
        // With timestamps only three blocks fit in the 40 option bytes.
        let room = if self.p.timestamps {
            MAX_SACK_BLOCKS - 1
        } else {
            MAX_SACK_BLOCKS
        };
        if let Some(dup) = self.dsack.take() {
            seg.push_sack(dup); // RFC 2883 section 4: the D-SACK block comes first
        }
        for &inside in &self.recent_blocks {
            if seg.sack_count() >= room {
                break;
            }
            if let Some(b) = self.block_holding(inside) {
                seg.push_sack(b);
            }
        }
    }

    /// The out-of-order range holding sequence number `seq`, if any.
    fn block_holding(&self, seq: u64) -> Option<(u64, u64)> {
        let i = self.out_of_order.partition_point(|b| b.1 <= seq);
        self.out_of_order.get(i).filter(|b| b.0 <= seq).copied()
    }

    /// `block`, holding the segment at `seq` just received, goes first; the blocks it
    /// swallowed go, and beyond `sack_blocks` the oldest is forgotten
    /// (`tcp_sack_new_ofo_skb`). Without SACK nothing is reported, so nothing is kept.
    fn report_first(&mut self, seq: u64, grown: (u64, u64)) {
        if !self.p.sack {
            return;
        }
        self.recent_blocks
            .retain(|&inside| !(grown.0 <= inside && inside < grown.1));
        self.recent_blocks.push_front(seq);
        self.recent_blocks.truncate(self.p.sack_blocks);
    }

    #[inline(always)]
    fn send_ack(&mut self, now: SimTime, extra_flags: u8, out: &mut Outbox) {
        let seq = if extra_flags & flags::SYN != 0 { 0 } else { 1 };
        let mut seg = TcpSegment::new(
            seq,
            self.rcv_nxt,
            0,
            flags::ACK | extra_flags,
            match &mut self.p.autotune {
                Some(a) => a.offer(self.rcv_nxt, self.held),
                None => self.p.window,
            },
        );
        self.add_sack_blocks(&mut seg);
        seg.set_timestamps(
            self.p.timestamps.then_some(now.as_ns()),
            self.ts_to_echo.take(),
        );
        out.send(
            seg.ip_bytes_as(self.p.option_sizes, false),
            TransportHeader::Tcp(seg),
        );
        self.unacked_segments = 0;
        self.delayed_ack_at = None;
    }

    /// Adds [start, end) to the out-of-order ranges, merging neighbours; returns the
    /// range that now holds it.
    fn insert_range(&mut self, start: u64, end: u64) -> (u64, u64) {
        let mut s = start;
        let mut e = end;
        let first = self.out_of_order.partition_point(|b| b.1 < s);
        let mut last = first;
        while last < self.out_of_order.len() && self.out_of_order[last].0 <= e {
            s = s.min(self.out_of_order[last].0);
            e = e.max(self.out_of_order[last].1);
            last += 1;
        }
        let replaced: u64 = self
            .out_of_order
            .range(first..last)
            .map(|b| b.1 - b.0)
            .sum();
        self.held += (e - s) - replaced;
        if first == last {
            self.out_of_order.insert(first, (s, e));
        } else {
            self.out_of_order[first] = (s, e);
            self.out_of_order.drain(first + 1..last);
        }
        (s, e)
    }

    /// Remembers [start, end), received twice, for the next ACK's D-SACK block.
    fn note_duplicate(&mut self, start: u64, end: u64) {
        if self.p.sack && self.p.dsack {
            self.dsack = Some((start, end));
        }
    }

    /// Handles a data or FIN segment; returns whether to acknowledge at once.
    fn accept(&mut self, now: SimTime, seg: &TcpSegment, out: &mut Outbox) -> bool {
        let start = seg.seq;
        let end = seg.seq + seg.seq_len();
        if seg.has(flags::FIN) {
            self.fin_seq = Some(end - 1);
        }
        if end <= self.rcv_nxt {
            self.note_duplicate(start, end);
            return true; // duplicate
        }
        if start > self.rcv_nxt {
            let i = self.out_of_order.partition_point(|b| b.1 < end);
            if let Some(&held) = self
                .out_of_order
                .get(i)
                .filter(|b| b.0 <= start && end <= b.1)
            {
                self.note_duplicate(start, end);
                if !self.p.dsack {
                    // RFC 2018 section 4: the first block holds the segment that
                    // triggered the ACK, a duplicate too (ns-2's Sacker). With D-SACK
                    // Linux reports the duplicate in its own block and leaves the
                    // order of the others (`tcp_dsack_set`).
                    self.report_first(start, held);
                }
                return true; // already held above a hole
            }
            let grown = self.insert_range(start, end);
            self.report_first(start, grown);
            return true; // out of order: duplicate ACK (with SACK) at once
        }
        if start < self.rcv_nxt {
            self.note_duplicate(start, self.rcv_nxt); // its front was already here
        }
        let before = self.rcv_nxt;
        self.rcv_nxt = end;
        let had_holes = !self.out_of_order.is_empty();
        while let Some(&(s, e)) = self.out_of_order.front() {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.held -= e - s;
            self.out_of_order.pop_front();
        }
        // Blocks now below RCV.NXT are reported no more (`tcp_sack_remove`).
        if had_holes {
            let rcv_nxt = self.rcv_nxt;
            self.recent_blocks.retain(|&inside| inside >= rcv_nxt);
        }
        let mut delivered = self.rcv_nxt - before;
        if let Some(fin) = self.fin_seq {
            if fin >= before && fin < self.rcv_nxt {
                delivered -= 1; // the FIN's sequence number carries no data
                self.stats.completed_at = Some(now);
            }
        }
        out.deliver(delivered);
        if let Some(a) = &mut self.p.autotune {
            a.on_read(now, self.rcv_nxt, self.p.timestamps);
        }
        let finished = self.stats.completed_at == Some(now);
        self.unacked_segments += 1;
        had_holes || finished || self.unacked_segments >= self.p.ack_every
    }
}

impl Endpoint for TcpReceiver {
    fn on_packet(&mut self, now: SimTime, header: &TransportHeader, out: &mut Outbox) {
        let TransportHeader::Tcp(seg) = header else {
            return;
        };
        if seg.has(flags::SYN) {
            self.established = true;
            self.rcv_nxt = seg.seq + 1;
            self.ts_to_echo = seg.ts_val();
            self.send_ack(now, flags::SYN, out); // SYN-ACK (again, if ours was lost)
            return;
        }
        if !self.established || seg.seq_len() == 0 {
            return;
        }
        if self.ts_to_echo.is_none() {
            self.ts_to_echo = seg.ts_val();
        }
        if let (Some(a), Some(echo)) = (&mut self.p.autotune, seg.ts_ecr()) {
            // Our TSvals are send times (ns): the echo dates the ACK this data answers.
            if echo > 0 && echo <= now.as_ns() {
                a.on_rtt_sample(SimTime(now.as_ns() - echo));
            }
        }
        if self.accept(now, seg, out) {
            self.send_ack(now, 0, out);
        } else if self.delayed_ack_at.is_none() {
            self.delayed_ack_at = Some(now + self.p.delayed_ack);
        }
    }

    fn on_wakeup(&mut self, now: SimTime, out: &mut Outbox) {
        if self.delayed_ack_at.is_some_and(|t| t <= now) {
            self.send_ack(now, 0, out);
        }
    }

    fn poll_at(&self) -> Option<SimTime> {
        self.delayed_ack_at
    }

    fn stats(&self) -> Option<TransportStats> {
        Some(self.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn receiver() -> TcpReceiver {
        TcpReceiver::new(ReceiverParams {
            ack_every: 1,
            delayed_ack: SimTime::ZERO,
            sack: true,
            dsack: true,
            sack_blocks: MAX_SACK_BLOCKS,
            timestamps: false,
            option_sizes: OptionSizes::Rfc,
            window: 1 << 20,
            handshake: false,
            autotune: None,
        })
    }

    /// Delivers segment `k` (bytes [1 + k·MSS, 1 + (k+1)·MSS)); returns the ACK sent
    /// and the payload bytes handed to the application.
    fn deliver(r: &mut TcpReceiver, k: u64) -> (TcpSegment, u64) {
        let seg = TcpSegment::new(1 + k * MSS as u64, 1, MSS, flags::ACK, 0);
        let mut out = Outbox::new();
        r.on_packet(SimTime::ZERO, &TransportHeader::Tcp(seg), &mut out);
        let delivered = out.take_delivered();
        let acks: Vec<_> = out.drain_packets().collect();
        assert_eq!(acks.len(), 1, "one ACK per segment (ack_every = 1)");
        let TransportHeader::Tcp(ack) = acks[0].header else {
            panic!("not a TCP ACK")
        };
        (ack, delivered)
    }

    fn seq(k: u64) -> u64 {
        1 + k * MSS as u64
    }

    /// Established, with holes: segments 6, 2, 7 and 4 arrived, 0, 1, 3 and 5 did not.
    /// RFC 2018 section 4: the block with the latest arrival first, then the others
    /// by how recently they grew (7 joined 6).
    #[test]
    fn sack_blocks_report_the_latest_first_then_by_recency() {
        let mut r = receiver();
        for k in [6, 2, 7] {
            deliver(&mut r, k);
        }
        let (ack, _) = deliver(&mut r, 4);
        assert_eq!(ack.ack, seq(0));
        let blocks: Vec<_> = ack.sack_blocks().collect();
        assert_eq!(
            blocks,
            vec![(seq(4), seq(5)), (seq(6), seq(8)), (seq(2), seq(3))]
        );
    }

    /// Segments 8, 6, 4, 2 and then 10 arrive, each above a hole: five blocks. Linux
    /// remembers four (`TCP_NUM_SACKS`), so the ACK of 10 reports 10, 2, 4 and 6 —
    /// block 8, the oldest, is forgotten although it is the highest but one. With
    /// `sack_blocks = 3` (ns-2's sink) the ACK of 10 reports 10, 2 and 4.
    #[test]
    fn sack_blocks_beyond_the_remembered_ones_are_forgotten() {
        for (remembered, expected) in [(4, vec![10, 2, 4, 6]), (3, vec![10, 2, 4])] {
            let mut r = receiver();
            r.p.sack_blocks = remembered;
            for k in [8, 6, 4, 2] {
                deliver(&mut r, k);
            }
            let (ack, _) = deliver(&mut r, 10);
            let blocks: Vec<_> = ack.sack_blocks().collect();
            let want: Vec<_> = expected.iter().map(|&k| (seq(k), seq(k + 1))).collect();
            assert_eq!(blocks, want, "{remembered} blocks remembered");
        }
    }

    /// Filling the first hole acknowledges the block above it: the ACK reports the
    /// others, most recent first, and never the acknowledged one.
    #[test]
    fn acknowledged_blocks_are_reported_no_more() {
        let mut r = receiver();
        for k in [1, 3, 5] {
            deliver(&mut r, k);
        }
        let (ack, _) = deliver(&mut r, 0);
        assert_eq!(ack.ack, seq(2));
        let blocks: Vec<_> = ack.sack_blocks().collect();
        assert_eq!(blocks, vec![(seq(5), seq(6)), (seq(3), seq(4))]);
    }

    /// A duplicate of a segment held above a hole triggers an ACK whose first block is
    /// the one holding it (RFC 2018 section 4; ns-2's `Sacker`) when the receiver sends
    /// no D-SACK; with D-SACK the duplicate gets a block of its own first and the others
    /// keep their order (Linux `tcp_dsack_set`).
    #[test]
    fn a_duplicate_above_a_hole_moves_its_block_first_without_dsack() {
        for (dsack, expected) in [
            (false, vec![(seq(2), seq(3)), (seq(4), seq(5))]),
            (
                true,
                vec![(seq(2), seq(3)), (seq(4), seq(5)), (seq(2), seq(3))],
            ),
        ] {
            let mut r = receiver();
            r.p.dsack = dsack;
            for k in [2, 4] {
                deliver(&mut r, k);
            }
            let (ack, _) = deliver(&mut r, 2);
            let blocks: Vec<_> = ack.sack_blocks().collect();
            assert_eq!(blocks, expected, "dsack = {dsack}");
        }
    }

    /// The bytes held above holes (what autotuning's free space subtracts) follow
    /// every insertion, merge and release.
    #[test]
    fn held_bytes_follow_the_out_of_order_ranges() {
        let mut r = receiver();
        let held = |r: &TcpReceiver| r.out_of_order.iter().map(|b| b.1 - b.0).sum::<u64>();
        for k in [6, 2, 7, 4, 4, 3, 9] {
            deliver(&mut r, k);
            assert_eq!(r.held, held(&r));
        }
        assert_eq!(r.held, 6 * MSS as u64); // 2, 3, 4, 6, 7, 9
        deliver(&mut r, 0);
        deliver(&mut r, 1); // 0-4 in order now: 6, 7, 9 stay
        assert_eq!((r.held, held(&r)), (3 * MSS as u64, 3 * MSS as u64));
    }

    /// RFC 2883 section 4: a segment received twice is reported in a first D-SACK block —
    /// above RCV.NXT followed by the block that holds it (example 4.2.1's form), below
    /// RCV.NXT on its own ahead of the ordinary blocks — and only once.
    #[test]
    fn a_duplicate_is_reported_first_in_a_dsack_block() {
        let mut r = receiver();
        for k in [6, 2, 7, 4] {
            deliver(&mut r, k);
        }
        let (ack, delivered) = deliver(&mut r, 4);
        assert_eq!(delivered, 0);
        let blocks: Vec<_> = ack.sack_blocks().collect();
        assert_eq!(
            blocks,
            vec![
                (seq(4), seq(5)),
                (seq(4), seq(5)),
                (seq(6), seq(8)),
                (seq(2), seq(3))
            ]
        );
        deliver(&mut r, 0);
        let (ack, _) = deliver(&mut r, 0);
        assert_eq!(ack.ack, seq(1));
        assert_eq!(ack.sack_blocks().next(), Some((seq(0), seq(1))));
        let (ack, _) = deliver(&mut r, 1);
        assert_ne!(
            ack.sack_blocks().next(),
            Some((seq(0), seq(1))),
            "reported once"
        );
    }

    /// Filling the first hole delivers it and every range it joins up with; filling a
    /// hole between two ranges merges them into one block.
    #[test]
    fn filling_holes_delivers_and_merges() {
        let mut r = receiver();
        for k in [1, 2, 4, 6] {
            deliver(&mut r, k);
        }
        let (ack, _) = deliver(&mut r, 5); // joins [4] and [6]
        assert_eq!(
            ack.sack_blocks().collect::<Vec<_>>(),
            vec![(seq(4), seq(7)), (seq(1), seq(3))]
        );
        let (ack, delivered) = deliver(&mut r, 0); // fills the front hole: 0, 1, 2
        assert_eq!(ack.ack, seq(3));
        assert_eq!(delivered, 3 * MSS as u64);
        assert_eq!(
            ack.sack_blocks().collect::<Vec<_>>(),
            vec![(seq(4), seq(7))]
        );
        let (ack, delivered) = deliver(&mut r, 3);
        assert_eq!((ack.ack, delivered), (seq(7), 4 * MSS as u64));
        assert_eq!(ack.sack_count(), 0);
    }

    /// Thousands of holes (every other segment of a long fat pipe lost), repaired in
    /// order: each repair delivers two segments, and the last leaves nothing behind.
    #[test]
    fn many_holes_repaired_in_order() {
        let mut r = receiver();
        let n = 20_000;
        for k in (1..2 * n).step_by(2) {
            deliver(&mut r, k);
        }
        assert_eq!(r.out_of_order.len(), n as usize);
        for k in (0..2 * n).step_by(2) {
            let (ack, delivered) = deliver(&mut r, k);
            assert_eq!((ack.ack, delivered), (seq(k + 2), 2 * MSS as u64));
        }
        assert!(r.out_of_order.is_empty());
    }
}
