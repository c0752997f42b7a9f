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
use crate::wire::tcp::{flags, TcpSegment};
use crate::wire::{
    sender_port, Direction, TransportHeader, IPV4_HEADER_BYTES, MAX_IP_PACKET_BYTES, RECEIVER_PORT,
    UDP_HEADER_BYTES,
};
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
        let mut bytes = ipv4_header(src, dst, ip_bytes, &packet.header, placement);
        // The transport header (with its length and checksum for the whole datagram)
        // travels in the first fragment; the others carry payload only.
        if placement.offset_bytes() == 0 {
            let transport_bytes = match &packet.header {
                TransportHeader::Tcp(seg) => seg.ip_bytes() - IPV4_HEADER_BYTES,
                TransportHeader::Udp { payload_bytes, .. } => UDP_HEADER_BYTES + payload_bytes,
                TransportHeader::SctpData(p) => p.ip_bytes() - IPV4_HEADER_BYTES,
                TransportHeader::SctpSack(p) => p.ip_bytes() - IPV4_HEADER_BYTES,
            };
            bytes.extend(transport_header(
                packet,
                src,
                dst,
                sport,
                dport,
                transport_bytes,
            ));
        }
        let kept = ip_bytes.min(self.snaplen.max(kept_whole(packet, fragment))) as usize;
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

/// RFC 1071 one's-complement sum of 16-bit words, folded.
fn fold(mut sum: u32) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

fn sum_words(bytes: &[u8]) -> u32 {
    bytes
        .chunks(2)
        .map(|w| u32::from(w[0]) << 8 | u32::from(*w.get(1).unwrap_or(&0)))
        .sum()
}

/// SCTP packets written whole (RFC 9260 section 3) and kept whole in the capture:
/// common header, then every chunk with its header and zero-filled, padded value, so
/// that readers decode the bundle.
/// The checksum is left 0 (CRC32c is not computed; Wireshark does not verify it
/// unless asked).
mod sctp {
    use crate::wire::sctp::{self as wire, control, flags, DataPacket, SackPacket};

    fn common(sport: u16, dport: u16) -> Vec<u8> {
        let mut h = Vec::with_capacity(64);
        h.extend(sport.to_be_bytes());
        h.extend(dport.to_be_bytes());
        h.extend([0, 0, 0, 1]); // verification tag
        h.extend([0, 0, 0, 0]); // checksum
        h
    }

    fn chunk(h: &mut Vec<u8>, kind: u8, chunk_flags: u8, value: &[u8], length: u32) {
        h.push(kind);
        h.push(chunk_flags);
        h.extend((length as u16).to_be_bytes());
        h.extend(value);
        h.resize(
            h.len() + (wire::padded(length) as usize - 4 - value.len()),
            0,
        );
    }

    fn init_value() -> Vec<u8> {
        let mut v = Vec::with_capacity(16);
        v.extend(1u32.to_be_bytes()); // initiate tag
        v.extend(65_536u32.to_be_bytes()); // a_rwnd
        v.extend(10u16.to_be_bytes()); // outbound streams
        v.extend(10u16.to_be_bytes()); // inbound streams
        v.extend(1u32.to_be_bytes()); // initial TSN
        v
    }

    /// A packet from the data sender.
    pub fn data_packet(sport: u16, dport: u16, p: &DataPacket) -> Vec<u8> {
        let mut h = common(sport, dport);
        if p.control() & control::INIT != 0 {
            chunk(&mut h, 1, 0, &init_value(), wire::INIT_CHUNK_BYTES);
        }
        if p.control() & control::COOKIE_ECHO != 0 {
            chunk(&mut h, 10, 0, &[], wire::COOKIE_ECHO_CHUNK_BYTES);
        }
        for (tsn, c) in p.data() {
            let mut v = Vec::with_capacity(12);
            v.extend(tsn.to_be_bytes());
            v.extend(c.stream.to_be_bytes());
            v.extend(c.ssn.to_be_bytes());
            v.extend(0u32.to_be_bytes()); // payload protocol identifier
            let bits = c.flags & (flags::BEGIN | flags::END | flags::UNORDERED);
            chunk(
                &mut h,
                0,
                bits,
                &v,
                wire::DATA_CHUNK_HEADER_BYTES + c.len as u32,
            );
        }
        h
    }

    /// A packet from the data receiver.
    pub fn sack_packet(sport: u16, dport: u16, p: &SackPacket) -> Vec<u8> {
        let mut h = common(sport, dport);
        if p.control() & control::INIT_ACK != 0 {
            let mut v = init_value();
            v.extend(7u16.to_be_bytes()); // state cookie parameter
            v.extend((wire::STATE_COOKIE_PARAMETER_BYTES as u16).to_be_bytes());
            v.resize(v.len() + wire::STATE_COOKIE_PARAMETER_BYTES as usize - 4, 0);
            chunk(&mut h, 2, 0, &v, wire::INIT_ACK_CHUNK_BYTES);
        }
        if p.control() & control::COOKIE_ACK != 0 {
            chunk(&mut h, 11, 0, &[], wire::COOKIE_ACK_CHUNK_BYTES);
        }
        if p.has_sack() {
            let mut v = Vec::new();
            v.extend(p.cum_tsn().to_be_bytes());
            v.extend(p.a_rwnd().to_be_bytes());
            v.extend((p.gap_count() as u16).to_be_bytes());
            v.extend(p.duplicates().to_be_bytes());
            for (start, end) in p.gap_offsets() {
                v.extend(start.to_be_bytes());
                v.extend(end.to_be_bytes());
            }
            for _ in 0..p.duplicates() {
                v.extend(p.cum_tsn().to_be_bytes()); // the duplicates' values are not modelled
            }
            let length = wire::SACK_CHUNK_BYTES
                + wire::SACK_ENTRY_BYTES * (p.gap_count() as u32 + u32::from(p.duplicates()));
            chunk(&mut h, 3, 0, &v, length);
        }
        h
    }
}

/// The TCP, UDP or SCTP header of `packet`, whose transport part is `transport_bytes`.
fn transport_header(
    packet: &Packet,
    src: [u8; 4],
    dst: [u8; 4],
    sport: u16,
    dport: u16,
    transport_bytes: u32,
) -> Vec<u8> {
    match &packet.header {
        TransportHeader::Tcp(seg) if packet.direction == Direction::Forward && seg.window == 0 => {
            // The model's data sender advertises no window (only the receiver's
            // matters): written as open, not as a zero window.
            let mut seg = *seg;
            seg.window = 0xffff;
            tcp_header(src, dst, sport, dport, &seg, transport_bytes)
        }
        TransportHeader::Tcp(seg) => tcp_header(src, dst, sport, dport, seg, transport_bytes),
        TransportHeader::Udp { .. } => udp_header(src, dst, sport, dport, transport_bytes),
        TransportHeader::SctpData(p) => sctp::data_packet(sport, dport, p),
        TransportHeader::SctpSack(p) => sctp::sack_packet(sport, dport, p),
    }
}

/// Bytes a capture keeps of `packet` whatever the snap length: SCTP packets whole,
/// as their chunk headers are spread through the packet and readers decode a chunk
/// only when all of it is there (the user data is zeros). 0 otherwise.
fn kept_whole(packet: &Packet, fragment: bool) -> u32 {
    match &packet.header {
        _ if fragment => 0,
        TransportHeader::SctpData(p) => p.ip_bytes(),
        TransportHeader::SctpSack(p) => p.ip_bytes(),
        _ => 0,
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

fn ipv4_header(
    src: [u8; 4],
    dst: [u8; 4],
    ip_bytes: u32,
    header: &TransportHeader,
    placement: Placement,
) -> Vec<u8> {
    let protocol = match header {
        TransportHeader::Tcp(_) => 6,
        TransportHeader::Udp { .. } => 17,
        TransportHeader::SctpData(_) | TransportHeader::SctpSack(_) => 132,
    };
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

/// The pseudo-header's share of a TCP or UDP checksum (RFC 9293 section 3.1).
fn pseudo_sum(src: [u8; 4], dst: [u8; 4], protocol: u8, length: u32) -> u32 {
    sum_words(&src) + sum_words(&dst) + u32::from(protocol) + (length & 0xffff) + (length >> 16)
}

fn tcp_header(
    src: [u8; 4],
    dst: [u8; 4],
    sport: u16,
    dport: u16,
    seg: &TcpSegment,
    tcp_bytes: u32,
) -> Vec<u8> {
    let mut options = Vec::new();
    if let Some(val) = seg.ts_val() {
        options.extend([1, 1, 8, 10]);
        options.extend((val as u32).to_be_bytes());
        options.extend((seg.ts_ecr().unwrap_or(0) as u32).to_be_bytes());
    }
    if seg.sack_count() > 0 {
        options.extend([1, 1, 5, 2 + 8 * seg.sack_count() as u8]);
        for (left, right) in seg.sack_blocks() {
            options.extend((left as u32).to_be_bytes());
            options.extend((right as u32).to_be_bytes());
        }
    }
    // The engine sized the segment: pad the options (NOP) to its header length.
    let header_len = tcp_bytes.saturating_sub(seg.payload_bytes).clamp(20, 60) as usize;
    options.resize(header_len - 20, 1);
    let mut bits = 0u8;
    if seg.has(flags::FIN) {
        bits |= 0x01;
    }
    if seg.has(flags::SYN) {
        bits |= 0x02;
    }
    if seg.has(flags::ACK) {
        bits |= 0x10;
    }
    let mut h = Vec::with_capacity(header_len);
    h.extend(sport.to_be_bytes());
    h.extend(dport.to_be_bytes());
    h.extend((seg.seq as u32).to_be_bytes());
    h.extend(
        (if seg.has(flags::ACK) {
            seg.ack as u32
        } else {
            0
        })
        .to_be_bytes(),
    );
    h.push(((header_len / 4) as u8) << 4);
    h.push(bits);
    h.extend((seg.window.min(0xffff) as u16).to_be_bytes());
    h.extend([0, 0, 0, 0]); // checksum (below), urgent pointer
    h.extend(options);
    let checksum = !fold(pseudo_sum(src, dst, 6, tcp_bytes) + sum_words(&h));
    h[16..18].copy_from_slice(&checksum.to_be_bytes());
    h
}

fn udp_header(src: [u8; 4], dst: [u8; 4], sport: u16, dport: u16, udp_bytes: u32) -> Vec<u8> {
    let mut h = Vec::with_capacity(8);
    h.extend(sport.to_be_bytes());
    h.extend(dport.to_be_bytes());
    h.extend((udp_bytes.min(0xffff) as u16).to_be_bytes());
    h.extend([0, 0]);
    let checksum = match !fold(pseudo_sum(src, dst, 17, udp_bytes) + sum_words(&h)) {
        0 => 0xffff, // RFC 768: a computed zero is sent as all ones
        c => c,
    };
    h[6..8].copy_from_slice(&checksum.to_be_bytes());
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
        let h = ipv4_header(
            [10, 0, 0, 1],
            [10, 0, 0, 2],
            1500,
            &TransportHeader::Udp {
                seq: 0,
                payload_bytes: 1472,
            },
            Placement::Whole,
        );
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
            &TransportHeader::Udp {
                seq: 0,
                payload_bytes: 8972,
            },
            Placement::Fragment { id: 7, word },
        );
        assert_eq!(u16::from_be_bytes([h[4], h[5]]), 7);
        assert_eq!(u16::from_be_bytes([h[6], h[7]]), 0x2000 | 185);
        assert_eq!(fold(sum_words(&h)), 0xffff);
        assert_eq!(Placement::Fragment { id: 7, word }.offset_bytes(), 1480);
    }

    /// A TCP header with timestamps and two SACK blocks: 20 + 12 + 20 bytes, its data
    /// offset says so, and header plus pseudo-header (zero payload) checksum to all ones.
    #[test]
    fn tcp_header_carries_its_options_and_a_valid_checksum() {
        let mut seg = TcpSegment::new(1000, 5000, 0, flags::ACK, 65_535);
        seg.set_timestamps(Some(7), Some(3));
        seg.push_sack((6000, 7000));
        seg.push_sack((8000, 9000));
        let tcp_bytes = 20 + seg.option_bytes();
        assert_eq!(tcp_bytes, 52);
        let h = tcp_header([10, 0, 0, 2], [10, 0, 0, 1], 5001, 10_000, &seg, tcp_bytes);
        assert_eq!(h.len(), 52);
        assert_eq!(h[12] >> 4, 13);
        assert_eq!(&h[20..24], &[1, 1, 8, 10]);
        assert_eq!(&h[32..36], &[1, 1, 5, 18]);
        assert_eq!(u32::from_be_bytes([h[36], h[37], h[38], h[39]]), 6000);
        assert_eq!(
            fold(pseudo_sum([10, 0, 0, 2], [10, 0, 0, 1], 6, tcp_bytes) + sum_words(&h)),
            0xffff
        );
    }

    #[test]
    fn addresses_and_ports_are_distinct_per_node_and_flow() {
        assert_eq!(node_address(0), [10, 0, 0, 1]);
        assert_eq!(node_address(255), [10, 0, 1, 0]);
        assert_ne!(sender_port(1), sender_port(2));
    }
}
