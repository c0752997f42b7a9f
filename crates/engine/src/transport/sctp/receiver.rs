//! The data receiver of an SCTP association (RFC 9260 section 6.2): TSNs tracked as a
//! cumulative point and gap ranges, SACKs with gap ack blocks and duplicate TSNs,
//! delayed SACK (every second DATA packet or after the delay, at once while a gap
//! exists or when a duplicate arrives), the advertised window, the handshake's answers,
//! and delivery through [`Streams`].

use super::streams::Streams;
use crate::time::SimTime;
use crate::transport::{Endpoint, Outbox, TransportStats};
use crate::wire::sctp::{self as wire, control, flags, DataPacket, SackPacket, MAX_GAP_BLOCKS};
use crate::wire::TransportHeader;
use std::collections::BTreeMap;

/// Fixed parameters of a data receiver.
#[derive(Debug, Clone)]
pub struct ReceiverParams {
    /// SACK every this many DATA packets.
    pub sack_every: u32,
    /// Delayed-SACK timeout.
    pub sack_delay: SimTime,
    /// Receive buffer, bytes.
    pub window: u64,
    /// The association opens with the handshake.
    pub handshake: bool,
    /// Inbound streams.
    pub streams: u32,
}

/// The receiving end of an SCTP association.
#[derive(Debug)]
pub struct SctpReceiver {
    p: ReceiverParams,
    established: bool,
    /// Highest TSN received with all below it.
    cum_tsn: u32,
    /// TSNs received above `cum_tsn + 1`, as ranges start → end (inclusive).
    gaps: BTreeMap<u32, u32>,
    /// Duplicates received since the last SACK.
    duplicates: u16,
    /// DATA packets since the last SACK.
    unacked_packets: u32,
    sack_at: Option<SimTime>,
    /// INIT-ACK / COOKIE-ACK to send.
    control: u8,
    streams: Streams,
    /// TSN of the application's last chunk, once seen.
    last_tsn: Option<u32>,
    duplicates_total: u64,
    /// DATA chunks that arrived, duplicates included.
    chunks_received: u64,
    sacks: u64,
    stats: TransportStats,
}

impl SctpReceiver {
    /// A receiver with nothing received.
    pub fn new(p: ReceiverParams) -> Self {
        SctpReceiver {
            established: !p.handshake,
            cum_tsn: 0,
            gaps: BTreeMap::new(),
            duplicates: 0,
            unacked_packets: 0,
            sack_at: None,
            control: 0,
            streams: Streams::new(p.streams),
            last_tsn: None,
            duplicates_total: 0,
            chunks_received: 0,
            sacks: 0,
            stats: TransportStats::default(),
            p,
        }
    }

    fn received(&self, tsn: u32) -> bool {
        tsn <= self.cum_tsn
            || self
                .gaps
                .range(..=tsn)
                .next_back()
                .is_some_and(|(_, &end)| end >= tsn)
    }

    /// Records `tsn` as received (it was not).
    fn record(&mut self, tsn: u32) {
        if tsn == self.cum_tsn + 1 {
            self.cum_tsn = tsn;
            if let Some(end) = self.gaps.remove(&(tsn + 1)) {
                self.cum_tsn = end;
            }
            return;
        }
        let mut start = tsn;
        let mut end = tsn;
        if let Some((&s, &e)) = self.gaps.range(..tsn).next_back() {
            if e + 1 == tsn {
                start = s;
                self.gaps.remove(&s);
            }
        }
        if let Some(e) = self.gaps.remove(&(tsn + 1)) {
            end = e;
        }
        self.gaps.insert(start, end);
    }

    fn a_rwnd(&self) -> u32 {
        self.p
            .window
            .saturating_sub(self.streams.held_bytes)
            .min(u32::MAX as u64) as u32
    }

    fn send_sack(&mut self, out: &mut Outbox) {
        let mut sack = SackPacket::sack(
            std::mem::take(&mut self.control),
            self.cum_tsn,
            self.a_rwnd(),
            std::mem::take(&mut self.duplicates),
        );
        // More gaps than a SACK holds (a burst of losses): the lowest blocks and, last,
        // the highest, so that the sender still learns how far the data has got and
        // counts miss indications for the holes below it (section 7.2.4's HTNA);
        // without the highest block every SACK would repeat the same lowest blocks and
        // recovery would stall. Chunks in the blocks left out count as missing.
        let highest = (self.gaps.len() > MAX_GAP_BLOCKS)
            .then(|| self.gaps.iter().next_back())
            .flatten();
        let lowest = self
            .gaps
            .iter()
            .take(MAX_GAP_BLOCKS - highest.is_some() as usize);
        for (&s, &e) in lowest.chain(highest) {
            let (Ok(s), Ok(e)) = (
                u16::try_from(s - self.cum_tsn),
                u16::try_from(e - self.cum_tsn),
            ) else {
                break; // beyond a gap block's 16-bit offset
            };
            sack.push_gap(s, e);
        }
        self.unacked_packets = 0;
        self.sack_at = None;
        self.sacks += 1;
        out.send(sack.ip_bytes(), TransportHeader::SctpSack(sack));
    }

    fn on_data(&mut self, now: SimTime, packet: &DataPacket, out: &mut Outbox) {
        let mut duplicate = false;
        for (tsn, chunk) in packet.data() {
            self.chunks_received += 1;
            if self.received(tsn) {
                duplicate = true;
                self.duplicates = self.duplicates.saturating_add(1);
                self.duplicates_total += 1;
                continue;
            }
            self.record(tsn);
            if chunk.flags & flags::LAST != 0 {
                self.last_tsn = Some(tsn);
            }
            // A chunk completes messages of its own stream only.
            let bytes =
                self.streams
                    .on_chunk(now, tsn, chunk, wire::written_at(now, chunk.written_us));
            if bytes > 0 {
                out.deliver_on(chunk.stream, bytes);
            }
        }
        if self.stats.completed_at.is_none()
            && self.last_tsn.is_some_and(|l| self.cum_tsn >= l)
            && self.streams.all_delivered()
        {
            self.stats.completed_at = Some(now);
        }
        if packet.count() == 0 && self.control == 0 {
            return;
        }
        self.unacked_packets += 1;
        // Section 6.7: at once while a gap remains, and (6.2) on a duplicate; otherwise
        // every `sack_every` packets or after the delay — also for the packet that
        // closes the last gap (lksctp's sctp_gen_sack: "max_tsn_seen != ctsn"; ns-2's
        // Agent/SCTP), unlike TCP's immediate ACK of a gap-filling segment.
        if !self.gaps.is_empty()
            || duplicate
            || self.control != 0
            || self.unacked_packets >= self.p.sack_every
        {
            self.send_sack(out);
        } else if self.sack_at.is_none() {
            self.sack_at = Some(now + self.p.sack_delay);
        }
    }
}

impl Endpoint for SctpReceiver {
    fn on_packet(&mut self, now: SimTime, header: &TransportHeader, out: &mut Outbox) {
        let TransportHeader::SctpData(packet) = header else {
            return;
        };
        if packet.control() & control::INIT != 0 {
            // Section 5.1 B: answer with INIT-ACK and a state cookie (no state kept).
            let ack = SackPacket::control_only(control::INIT_ACK);
            out.send(ack.ip_bytes(), TransportHeader::SctpSack(ack));
            return;
        }
        if packet.control() & control::COOKIE_ECHO != 0 {
            self.established = true;
            self.control |= control::COOKIE_ACK;
        }
        if !self.established {
            return; // DATA before the association exists is discarded (section 5.1)
        }
        // A COOKIE-ECHO's COOKIE-ACK goes with the SACK this sends at once.
        self.on_data(now, packet, out);
    }

    fn on_wakeup(&mut self, now: SimTime, out: &mut Outbox) {
        if self.sack_at.is_some_and(|t| now >= t) {
            self.send_sack(out);
        }
    }

    fn poll_at(&self) -> Option<SimTime> {
        self.sack_at
    }

    fn stats(&self) -> Option<TransportStats> {
        Some(self.stats)
    }

    fn details(&self) -> Option<serde_json::Value> {
        let ms = |ns: f64| ns / 1e6;
        let streams: Vec<serde_json::Value> = self
            .streams
            .streams()
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let d = &s.delay;
                serde_json::json!({
                    "stream": i,
                    "delivered_bytes": s.delivered_bytes,
                    "messages": s.messages,
                    "delay_ms": {
                        "min": d.min().map(|v| ms(v as f64)),
                        "mean": d.mean().map(ms),
                        "p50": d.quantile(0.5).map(ms),
                        "p95": d.quantile(0.95).map(ms),
                        "p99": d.quantile(0.99).map(ms),
                        "max": d.max().map(|v| ms(v as f64)),
                    },
                    "blocked_messages": s.blocked_messages,
                    "blocked_ms": ms(s.blocked_ns as f64),
                })
            })
            .collect();
        Some(serde_json::json!({
            "sacks": self.sacks,
            "duplicate_tsns": self.duplicates_total,
            "data_chunks_received": self.chunks_received,
            "streams": streams,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::sctp::DataChunk;

    fn receiver() -> SctpReceiver {
        SctpReceiver::new(ReceiverParams {
            sack_every: 2,
            sack_delay: SimTime::from_ms(200),
            window: 1 << 20,
            handshake: false,
            streams: 1,
        })
    }

    /// One packet with the single DATA chunk `tsn`; returns the SACKs it drew at once.
    fn deliver(r: &mut SctpReceiver, tsn: u32) -> usize {
        let mut p = DataPacket::new(tsn, 0);
        p.push(
            tsn,
            DataChunk {
                flags: wire::flags::BEGIN | wire::flags::END,
                stream: 0,
                ssn: 0,
                len: 1000,
                written_us: 0,
            },
        );
        let mut out = Outbox::new();
        r.on_packet(SimTime::ZERO, &TransportHeader::SctpData(p), &mut out);
        out.drain_packets().count()
    }

    /// RFC 9260 6.7: a SACK at once while a gap exists; the packet that closes the
    /// last gap waits like any other (every second packet or 200 ms), as lksctp's
    /// sctp_gen_sack and ns-2's Agent/SCTP do — TCP's immediate ACK of a gap-filling
    /// segment is not SCTP's rule.
    #[test]
    fn sacks_at_once_while_a_gap_exists_not_when_it_closes() {
        let mut r = receiver();
        assert_eq!(deliver(&mut r, 1), 0, "the first packet waits");
        assert_eq!(deliver(&mut r, 3), 1, "TSN 2 missing: at once");
        assert_eq!(deliver(&mut r, 4), 1, "still a gap: at once");
        assert_eq!(deliver(&mut r, 2), 0, "the gap closes: delayed");
        assert_eq!(r.poll_at(), Some(SimTime::from_ms(200)));
    }
}
