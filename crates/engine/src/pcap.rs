//! Packet capture: an observer ([`crate::observe`]) that writes what chosen link
//! directions carried as libpcap files, readable by tcpdump, Wireshark and tshark.
//!
//! The simulator carries header fields, not bytes, so each packet is synthesized:
//! an IPv4 header (RFC 791; addresses derived from the node's index, 10.0.0.1 for
//! the first node), then a TCP header (RFC 9293 section 3.1, with the timestamps
//! option of RFC 7323 and SACK blocks of RFC 2018 when the segment carries them) or
//! a UDP header (RFC 768), then the payload as zeros, cut at the snap length. Ports:
//! the sender of flow `f` uses 10000 + f mod 50000, the receiver 5001. Checksums are
//! correct for the whole packet (zero payload bytes add nothing to them).
//!
//! The file format is libpcap with nanosecond timestamps (magic 0xa1b23c4d) and link
//! type 228 (raw IPv4). A packet's timestamp is when its last bit left the channel.
//! Records are written in timestamp order: the engine computes a transmission when
//! the packet is admitted, ahead of the clock, so records wait in a small heap until
//! the clock has passed them.
//!
//! A datagram fragmented on its way (RFC 791) appears as its fragments on the links
//! that carry them: each with the datagram's identification (its reassembly record's
//! index), the "more fragments" flag and its offset, the transport header in the first
//! fragment only, so that Wireshark reassembles them. Whole datagrams carry
//! identification 0 and "don't fragment".
//!
//! Not written: the window-scale option (the window field is the advertised window,
//! saturated at 65,535; the data sender's, which the model does not have, as 65,535).
//!
//! The engine opens no file: the caller passes a writer per capture (the Python
//! binding opens the files), and [`PacketObserver::close`] flushes them when the run
//! is over.

use crate::config::ScenarioConfig;
use crate::net::packet::{Packet, FRAGMENT_OFFSET};
use crate::observe::{PacketEvent, PacketObserver};
use crate::time::SimTime;
use crate::wire::capture::{fold, sum_words, Ends};
use crate::wire::{sender_port, Direction, MAX_IP_PACKET_BYTES, RECEIVER_PORT};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, Write};

/// Default bytes kept of each packet: the IPv4 header and the largest TCP header.
pub const DEFAULT_SNAPLEN: u32 = 80;
/// LINKTYPE_IPV4: each record is an IPv4 packet.
const LINKTYPE_IPV4: u32 = 228;
/// IPv4's "don't fragment" flag, set on every whole datagram.
const DONT_FRAGMENT: u16 = 0x4000;

/// Where a capture goes: a writer (a buffered file, in practice) that receives the
/// libpcap stream, and the link directions written to it.
pub struct CaptureTarget {
    /// Receives the file's bytes, header first.
    pub out: Box<dyn Write + Send>,
    /// Channels written to it: link `c / 2`; even forward, odd reverse.
    pub channels: Vec<usize>,
}

/// Which link directions go to which capture.
pub struct CaptureSpec {
    /// One target per capture file.
    pub files: Vec<CaptureTarget>,
    /// Bytes kept of each packet.
    pub snaplen: u32,
}

/// One capture file and the records waiting for the clock to pass them.
struct CaptureFile {
    out: Box<dyn Write + Send>,
    /// (timestamp, arrival order, record bytes).
    pending: BinaryHeap<Reverse<(SimTime, u64, Vec<u8>)>>,
}

/// The capture observer (see the module documentation).
pub struct PcapCapture {
    files: Vec<CaptureFile>,
    /// For each channel, the files it is written to (a channel may be in several).
    files_of: Vec<Vec<usize>>,
    /// For each flow: (sender address, receiver address, sender port).
    flows: Vec<([u8; 4], [u8; 4], u16)>,
    snaplen: u32,
    order: u64,
    error: Option<io::Error>,
}

impl std::fmt::Debug for PcapCapture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PcapCapture")
            .field("files", &self.files.len())
            .finish()
    }
}

/// The IPv4 address of node `index`: 10.0.0.1 for the first.
pub fn node_address(index: usize) -> [u8; 4] {
    let n = (index + 1) as u32;
    [10, (n >> 16) as u8, (n >> 8) as u8, n as u8]
}

impl PcapCapture {
    /// Writes the header of each of `spec`'s captures for a run of `config`; the
    /// capture observer then writes their records.
    pub fn new(config: &ScenarioConfig, spec: CaptureSpec) -> io::Result<PcapCapture> {
        let index_of = |name: &str| {
            config
                .nodes
                .iter()
                .position(|n| n.name == name)
                .unwrap_or(0)
        };
        let flows = config
            .flows
            .iter()
            .enumerate()
            .map(|(f, fc)| {
                (
                    node_address(index_of(&fc.from)),
                    node_address(index_of(&fc.to)),
                    sender_port(f),
                )
            })
            .collect();
        let mut files_of = vec![Vec::new(); 2 * config.links.len()];
        let mut files = Vec::with_capacity(spec.files.len());
        for (k, CaptureTarget { mut out, channels }) in spec.files.into_iter().enumerate() {
            out.write_all(&0xa1b2_3c4du32.to_le_bytes())?;
            out.write_all(&2u16.to_le_bytes())?;
            out.write_all(&4u16.to_le_bytes())?;
            out.write_all(&[0; 8])?; // thiszone, sigfigs
                                     // The largest record: SCTP's keep their chunk headers beyond `snaplen`.
            out.write_all(&MAX_IP_PACKET_BYTES.to_le_bytes())?;
            out.write_all(&LINKTYPE_IPV4.to_le_bytes())?;
            files.push(CaptureFile {
                out,
                pending: BinaryHeap::new(),
            });
            for c in channels {
                if let Some(slot) = files_of.get_mut(c) {
                    slot.push(k);
                }
            }
        }
        Ok(PcapCapture {
            files,
            files_of,
            flows,
            snaplen: spec.snaplen,
            order: 0,
            error: None,
        })
    }

    /// The record (header and captured bytes) of `packet` at `at`: `ip_bytes` of it
    /// (the packet, or the fragment of it that `fragment` says it is).
    fn record(&self, at: SimTime, packet: &Packet, ip_bytes: u32, fragment: bool) -> Vec<u8> {
        let (sender, receiver, port) = self.flows[packet.flow as usize];
        let (src, dst, sport, dport) = match packet.direction {
            Direction::Forward => (sender, receiver, port, RECEIVER_PORT),
            Direction::Reverse => (receiver, sender, RECEIVER_PORT, port),
        };
        let placement = if fragment {
            Placement::Fragment {
                id: packet.datagram as u16,
                word: packet.fragment_word,
            }
        } else {
            Placement::Whole
        };
        let mut bytes = ipv4_header(src, dst, ip_bytes, packet.header.ip_protocol(), placement);
        // The transport header (with its length and checksum for the whole datagram)
        // travels in the first fragment; the others carry payload only.
        if placement.offset_bytes() == 0 {
            let ends = Ends {
                src,
                dst,
                sport,
                dport,
            };
            let transport_bytes = packet.header.transport_bytes();
            bytes.extend(
                packet
                    .header
                    .captured(&ends, packet.direction, transport_bytes),
            );
        }
        let whole = if fragment {
            0
        } else {
            packet.header.kept_whole_bytes()
        };
        let kept = ip_bytes.min(self.snaplen.max(whole)) as usize;
        bytes.resize(kept, 0);
        let ns = at.as_ns();
        let mut record = Vec::with_capacity(16 + kept);
        record.extend(((ns / 1_000_000_000) as u32).to_le_bytes());
        record.extend(((ns % 1_000_000_000) as u32).to_le_bytes());
        record.extend((kept as u32).to_le_bytes());
        record.extend(ip_bytes.to_le_bytes());
        record.extend(bytes);
        record
    }

    /// Writes the records of file `k` stamped at or before `until`.
    fn flush(&mut self, k: usize, until: SimTime) {
        let file = &mut self.files[k];
        while file
            .pending
            .peek()
            .is_some_and(|Reverse((t, _, _))| *t <= until)
        {
            let Some(Reverse((_, _, record))) = file.pending.pop() else {
                break;
            };
            if let Err(e) = file.out.write_all(&record) {
                self.error.get_or_insert(e);
                file.pending.clear();
                return;
            }
        }
    }
}

impl PacketObserver for PcapCapture {
    fn on_event(
        &mut self,
        now: SimTime,
        at: SimTime,
        event: PacketEvent,
        packet: &Packet,
        ip_bytes: u32,
        fragment: bool,
    ) {
        let PacketEvent::Transmitted { channel } = event else {
            return;
        };
        let wanted = self.files_of.get(channel).map_or(0, Vec::len);
        if wanted == 0 || self.error.is_some() {
            return;
        }
        let record = self.record(at, packet, ip_bytes, fragment);
        self.order += 1;
        for j in 0..wanted {
            let k = self.files_of[channel][j];
            self.files[k]
                .pending
                .push(Reverse((at, self.order, record.clone())));
            self.flush(k, now);
        }
    }

    fn close(&mut self) -> io::Result<()> {
        for k in 0..self.files.len() {
            self.flush(k, SimTime(u64::MAX));
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        for file in &mut self.files {
            file.out.flush()?;
        }
        Ok(())
    }
}

/// Where an IPv4 packet stands in its datagram.
#[derive(Debug, Clone, Copy)]
enum Placement {
    /// The whole datagram: identification 0, "don't fragment".
    Whole,
    /// A fragment: the datagram's identification and the flags-and-offset word.
    Fragment { id: u16, word: u16 },
}

impl Placement {
    fn offset_bytes(self) -> u32 {
        match self {
            Placement::Whole => 0,
            Placement::Fragment { word, .. } => u32::from(word & FRAGMENT_OFFSET) * 8,
        }
    }
}

/// An IPv4 header (RFC 791) with its checksum, for a datagram of `protocol`.
fn ipv4_header(
    src: [u8; 4],
    dst: [u8; 4],
    ip_bytes: u32,
    protocol: u8,
    placement: Placement,
) -> Vec<u8> {
    let (id, word) = match placement {
        Placement::Whole => (0, DONT_FRAGMENT),
        Placement::Fragment { id, word } => (id, word),
    };
    let mut h = vec![0x45, 0];
    h.extend((ip_bytes.min(0xffff) as u16).to_be_bytes());
    h.extend(id.to_be_bytes());
    h.extend(word.to_be_bytes());
    h.extend([64, protocol, 0, 0]);
    h.extend(src);
    h.extend(dst);
    let checksum = !fold(sum_words(&h));
    h[10..12].copy_from_slice(&checksum.to_be_bytes());
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::MORE_FRAGMENTS;

    /// The IPv4 header checksum of RFC 1071's worked style: a header whose words,
    /// checksum included, sum to 0xffff.
    #[test]
    fn ipv4_header_checksums_to_all_ones() {
        let h = ipv4_header([10, 0, 0, 1], [10, 0, 0, 2], 1500, 17, Placement::Whole);
        assert_eq!(h.len(), 20);
        assert_eq!(fold(sum_words(&h)), 0xffff);
        assert_eq!(u16::from_be_bytes([h[2], h[3]]), 1500);
        assert_eq!(u16::from_be_bytes([h[6], h[7]]), DONT_FRAGMENT);
    }

    /// A fragment's header: the datagram's identification, MF and the offset in
    /// 8-byte units (RFC 791 section 3.1: 1480 bytes of payload = 185 units), no DF.
    #[test]
    fn a_fragment_header_carries_identification_flags_and_offset() {
        let word = MORE_FRAGMENTS | 185;
        let h = ipv4_header(
            [10, 0, 0, 1],
            [10, 0, 0, 2],
            1500,
            17,
            Placement::Fragment { id: 7, word },
        );
        assert_eq!(u16::from_be_bytes([h[4], h[5]]), 7);
        assert_eq!(u16::from_be_bytes([h[6], h[7]]), 0x2000 | 185);
        assert_eq!(fold(sum_words(&h)), 0xffff);
        assert_eq!(Placement::Fragment { id: 7, word }.offset_bytes(), 1480);
    }

    #[test]
    fn addresses_and_ports_are_distinct_per_node_and_flow() {
        assert_eq!(node_address(0), [10, 0, 0, 1]);
        assert_eq!(node_address(255), [10, 0, 1, 0]);
        assert_ne!(sender_port(1), sender_port(2));
    }
}
