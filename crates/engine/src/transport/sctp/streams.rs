//! The receiving side's streams (RFC 9260 sections 6.5, 6.6, 6.9): chunks reassembled
//! into messages, messages handed to the application in stream-sequence order within
//! each stream (a gap blocks only its own stream) or at once when unordered, and the
//! per-stream figures: bytes and messages delivered, message delay (written by the
//! sending application → delivered to the receiving one), and the time complete
//! messages waited behind a gap (head-of-line blocking).

use crate::metrics::histogram::Histogram;
use crate::time::SimTime;
use crate::wire::sctp::{flags, DataChunk};
use std::collections::{BTreeMap, HashMap};

/// A chunk received and not yet part of a delivered message.
#[derive(Debug, Clone, Copy)]
struct Held {
    chunk: DataChunk,
    written_at: SimTime,
}

/// A complete message waiting for its turn in its stream.
#[derive(Debug, Clone, Copy)]
struct Ready {
    bytes: u64,
    written_at: SimTime,
    complete_at: SimTime,
}

/// One inbound stream's order and figures.
#[derive(Debug, Clone, Default)]
pub struct StreamIn {
    next_ssn: u16,
    ready: HashMap<u16, Ready>,
    /// Bytes delivered to the application.
    pub delivered_bytes: u64,
    /// Messages delivered.
    pub messages: u64,
    /// Message delay, ns.
    pub delay: Histogram,
    /// Messages that were complete but waited behind an earlier one.
    pub blocked_messages: u64,
    /// Their total waiting time, ns.
    pub blocked_ns: u64,
}

/// All inbound streams of an association and the chunks not yet delivered.
#[derive(Debug, Clone, Default)]
pub struct Streams {
    streams: Vec<StreamIn>,
    held: BTreeMap<u32, Held>,
    /// Bytes received and not yet delivered (they occupy the receive buffer).
    pub held_bytes: u64,
}

impl Streams {
    /// `n` inbound streams.
    pub fn new(n: u32) -> Self {
        Streams {
            streams: vec![StreamIn::default(); n as usize],
            ..Self::default()
        }
    }

    /// The streams' figures.
    pub fn streams(&self) -> &[StreamIn] {
        &self.streams
    }

    /// Whether every message received so far has been delivered.
    pub fn all_delivered(&self) -> bool {
        self.held_bytes == 0
    }

    /// A new (not duplicate) chunk with TSN `tsn`, of a message the application wrote
    /// at `written_at`, arrived at `now`; returns the bytes this made deliverable.
    pub fn on_chunk(
        &mut self,
        now: SimTime,
        tsn: u32,
        chunk: DataChunk,
        written_at: SimTime,
    ) -> u64 {
        self.held.insert(tsn, Held { chunk, written_at });
        let chunk = self.held[&tsn].chunk;
        self.held_bytes += chunk.len as u64;
        let Some((first, last)) = self.message_around(tsn) else {
            return 0;
        };
        let written_at = self.held[&first].written_at;
        let mut bytes = 0u64;
        for t in first..=last {
            bytes += self.held.remove(&t).expect("checked present").chunk.len as u64;
        }
        let stream = chunk.stream as usize;
        let ready = Ready {
            bytes,
            written_at,
            complete_at: now,
        };
        if chunk.flags & flags::UNORDERED != 0 {
            self.held_bytes -= bytes;
            Self::deliver(&mut self.streams[stream], now, ready);
            return bytes;
        }
        self.streams[stream].ready.insert(chunk.ssn, ready);
        let mut delivered = 0u64;
        let s = &mut self.streams[stream];
        while let Some(r) = s.ready.remove(&s.next_ssn) {
            s.next_ssn = s.next_ssn.wrapping_add(1);
            delivered += r.bytes;
            Self::deliver(s, now, r);
        }
        self.held_bytes -= delivered;
        delivered
    }

    fn deliver(s: &mut StreamIn, now: SimTime, r: Ready) {
        s.delivered_bytes += r.bytes;
        s.messages += 1;
        s.delay.record(now.saturating_sub(r.written_at).as_ns());
        if now > r.complete_at {
            s.blocked_messages += 1;
            s.blocked_ns += (now - r.complete_at).as_ns();
        }
    }

    /// The TSN range of the message `tsn` belongs to, if all its fragments are held
    /// (a message's fragments have consecutive TSNs, section 6.9).
    fn message_around(&self, tsn: u32) -> Option<(u32, u32)> {
        let mut first = tsn;
        while self.held.get(&first)?.chunk.flags & flags::BEGIN == 0 {
            first = first.checked_sub(1)?;
        }
        let mut last = tsn;
        while self.held.get(&last)?.chunk.flags & flags::END == 0 {
            last = last.checked_add(1)?;
        }
        Some((first, last))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(stream: u16, ssn: u16, f: u8) -> DataChunk {
        DataChunk {
            stream,
            ssn,
            len: 100,
            flags: f | flags::BEGIN | flags::END,
            ..DataChunk::default()
        }
    }

    /// A gap in stream 0 holds back stream 0's later message, not stream 1's; the
    /// held message's wait is counted from when it was complete.
    #[test]
    fn a_gap_blocks_only_its_own_stream() {
        let mut s = Streams::new(2);
        let ms = SimTime::from_ms;
        assert_eq!(s.on_chunk(ms(10), 2, chunk(0, 1, 0), ms(0)), 0); // ssn 0 missing
        assert_eq!(s.on_chunk(ms(11), 3, chunk(1, 0, 0), ms(0)), 100); // other stream
        assert_eq!(s.held_bytes, 100);
        assert_eq!(s.on_chunk(ms(50), 1, chunk(0, 0, 0), ms(0)), 200); // gap filled
        assert!(s.all_delivered());
        let s0 = &s.streams()[0];
        assert_eq!((s0.messages, s0.blocked_messages), (2, 1));
        assert_eq!(s0.blocked_ns, ms(40).as_ns());
        assert_eq!(s.streams()[1].blocked_messages, 0);
    }

    /// Fragments B … E reassemble whatever order they arrive in.
    #[test]
    fn fragments_reassemble_in_any_order() {
        let mut s = Streams::new(1);
        let frag = |f| DataChunk {
            len: 100,
            flags: f,
            ..DataChunk::default()
        };
        let t = SimTime::from_ms(1);
        assert_eq!(s.on_chunk(t, 7, frag(flags::END), t), 0);
        assert_eq!(s.on_chunk(t, 5, frag(flags::BEGIN), t), 0);
        assert_eq!(s.on_chunk(t, 6, frag(0), t), 300);
    }

    /// Unordered messages are delivered when complete, gap or no gap.
    #[test]
    fn unordered_messages_do_not_wait() {
        let mut s = Streams::new(1);
        let t = SimTime::from_ms(1);
        assert_eq!(s.on_chunk(t, 2, chunk(0, 1, flags::UNORDERED), t), 100);
        assert_eq!(s.streams()[0].blocked_messages, 0);
    }
}
