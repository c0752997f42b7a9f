//! The receiving side of a TCP connection: reassembly, cumulative and selective
//! acknowledgements, delayed ACKs, the advertised window.
//!
//! * In-order data advances RCV.NXT and is handed to the application at once (the
//!   application reads instantly, so the advertised window is the whole buffer).
//! * Out-of-order data is kept as ranges and reported in SACK blocks (RFC 2018: the
//!   block holding the latest segment first, then the others from the highest down).
//! * ACK policy (RFC 5681 4.2, RFC 9293 3.8.6.3): ACK at once for out-of-order or
//!   duplicate segments and for segments that fill a hole; otherwise every
//!   `ack_every`-th full segment, or when the delayed-ACK timer fires.
//! * Timestamps (RFC 7323 section 4.3): echo the TSval of the earliest segment not yet
//!   acknowledged.

use super::segment::{flags, TcpSegment, MAX_SACK_BLOCKS};
use crate::net::packet::TransportHeader;
use crate::time::SimTime;
use crate::transport::{Endpoint, Outbox, TransportStats};

/// Fixed parameters of a receiver.
#[derive(Debug, Clone)]
pub struct ReceiverParams {
    /// Acknowledge every this many in-order segments.
    pub ack_every: u32,
    /// Delayed-ACK timeout.
    pub delayed_ack: SimTime,
    /// Send SACK blocks.
    pub sack: bool,
    /// Echo timestamps.
    pub timestamps: bool,
    /// Advertised window, bytes (already capped by window scaling).
    pub window: u64,
    /// Wait for a SYN before accepting data.
    pub handshake: bool,
}

/// A TCP receiver endpoint.
#[derive(Debug)]
pub struct TcpReceiver {
    p: ReceiverParams,
    established: bool,
    /// Next sequence number expected (RFC 9293 RCV.NXT).
    rcv_nxt: u64,
    /// Received ranges above RCV.NXT, ascending and disjoint.
    out_of_order: Vec<(u64, u64)>,
    /// The range holding the most recent out-of-order arrival (reported first).
    latest_block: Option<u64>,
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
            out_of_order: Vec::new(),
            latest_block: None,
            fin_seq: None,
            unacked_segments: 0,
            delayed_ack_at: None,
            ts_to_echo: None,
            stats: TransportStats::default(),
            p,
        }
    }

    /// Fills in SACK blocks (RFC 2018 section 4: the block holding the latest
    /// out-of-order segment first, then the others from the highest down).
    fn add_sack_blocks(&self, seg: &mut TcpSegment) {
        if !self.p.sack {
            return;
        }
        // With timestamps only three blocks fit in the 40 option bytes.
        let room = if self.p.timestamps {
            MAX_SACK_BLOCKS - 1
        } else {
            MAX_SACK_BLOCKS
        };
        let latest = self.latest_block.and_then(|start| {
            self.out_of_order
                .iter()
                .find(|b| b.0 <= start && start < b.1)
        });
        if let Some(&b) = latest {
            seg.push_sack(b);
        }
        for &b in self.out_of_order.iter().rev() {
            if seg.sack_count() >= room {
                break;
            }
            if Some(&b) != latest {
                seg.push_sack(b);
            }
        }
    }

    fn send_ack(&mut self, now: SimTime, extra_flags: u8, out: &mut Outbox) {
        let seq = if extra_flags & flags::SYN != 0 { 0 } else { 1 };
        let mut seg = TcpSegment::new(
            seq,
            self.rcv_nxt,
            0,
            flags::ACK | extra_flags,
            self.p.window,
        );
        self.add_sack_blocks(&mut seg);
        seg.set_timestamps(
            self.p.timestamps.then_some(now.as_ns()),
            self.ts_to_echo.take(),
        );
        out.send(seg.ip_bytes(), TransportHeader::Tcp(seg));
        self.unacked_segments = 0;
        self.delayed_ack_at = None;
    }

    /// Adds [start, end) to the out-of-order ranges, merging neighbours.
    fn insert_range(&mut self, start: u64, end: u64) {
        let mut s = start;
        let mut e = end;
        let first = self.out_of_order.partition_point(|b| b.1 < s);
        let mut last = first;
        while last < self.out_of_order.len() && self.out_of_order[last].0 <= e {
            s = s.min(self.out_of_order[last].0);
            e = e.max(self.out_of_order[last].1);
            last += 1;
        }
        self.out_of_order.splice(first..last, [(s, e)]);
    }

    /// Handles a data or FIN segment; returns whether to acknowledge at once.
    fn accept(&mut self, now: SimTime, seg: &TcpSegment, out: &mut Outbox) -> bool {
        let start = seg.seq;
        let end = seg.seq + seg.seq_len();
        if seg.has(flags::FIN) {
            self.fin_seq = Some(end - 1);
        }
        if end <= self.rcv_nxt {
            return true; // duplicate
        }
        if start > self.rcv_nxt {
            self.insert_range(start, end);
            self.latest_block = Some(start);
            return true; // out of order: duplicate ACK (with SACK) at once
        }
        let before = self.rcv_nxt;
        self.rcv_nxt = end;
        let had_holes = !self.out_of_order.is_empty();
        while let Some(&(s, e)) = self.out_of_order.first() {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.out_of_order.remove(0);
        }
        let mut delivered = self.rcv_nxt - before;
        if let Some(fin) = self.fin_seq {
            if fin >= before && fin < self.rcv_nxt {
                delivered -= 1; // the FIN's sequence number carries no data
                self.stats.completed_at = Some(now);
            }
        }
        out.deliver(delivered);
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
