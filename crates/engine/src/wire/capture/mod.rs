//! A packet's transport header as a packet capture writes it (`tcplab run --pcap`,
//! docs/results.md): each transport encodes its own — `tcp`, `sctp`, UDP here — with
//! the checksums a reader verifies; the payload is zeros, as the engine carries none.

mod sctp;
mod tcp;

use super::{Direction, TransportHeader, IPV4_HEADER_BYTES, UDP_HEADER_BYTES};

/// The two ends of a packet as a capture names them: IPv4 addresses and ports.
#[derive(Debug, Clone, Copy)]
pub struct Ends {
    /// Source address.
    pub src: [u8; 4],
    /// Destination address.
    pub dst: [u8; 4],
    /// Source port.
    pub sport: u16,
    /// Destination port.
    pub dport: u16,
}

impl TransportHeader {
    /// The IPv4 protocol number (IANA): TCP 6, UDP 17, SCTP 132.
    pub fn ip_protocol(&self) -> u8 {
        match self {
            TransportHeader::Tcp(_) => 6,
            TransportHeader::Udp { .. } => 17,
            TransportHeader::SctpData(_) | TransportHeader::SctpSack(_) => 132,
        }
    }

    /// Bytes of the datagram after the IPv4 header: the transport header and payload.
    pub fn transport_bytes(&self) -> u32 {
        match self {
            TransportHeader::Tcp(seg) => seg.ip_bytes() - IPV4_HEADER_BYTES,
            TransportHeader::Udp { payload_bytes, .. } => UDP_HEADER_BYTES + payload_bytes,
            TransportHeader::SctpData(p) => p.ip_bytes() - IPV4_HEADER_BYTES,
            TransportHeader::SctpSack(p) => p.ip_bytes() - IPV4_HEADER_BYTES,
        }
    }

    /// Bytes a capture keeps of a whole packet whatever the snap length: SCTP packets
    /// whole, as their chunk headers are spread through the packet and readers decode
    /// a chunk only when all of it is there (the user data is zeros). 0 otherwise.
    pub fn kept_whole_bytes(&self) -> u32 {
        match self {
            TransportHeader::SctpData(p) => p.ip_bytes(),
            TransportHeader::SctpSack(p) => p.ip_bytes(),
            _ => 0,
        }
    }

    /// The transport header a capture writes for a packet travelling `direction`
    /// between `ends`, whose transport part is `transport_bytes`.
    pub fn captured(&self, ends: &Ends, direction: Direction, transport_bytes: u32) -> Vec<u8> {
        match self {
            TransportHeader::Tcp(seg) => tcp::header(seg, ends, direction, transport_bytes),
            TransportHeader::Udp { .. } => udp_header(ends, transport_bytes),
            TransportHeader::SctpData(p) => sctp::data_packet(ends, p),
            TransportHeader::SctpSack(p) => sctp::sack_packet(ends, p),
        }
    }
}

/// A UDP header (RFC 768) with its checksum over a zero payload of `udp_bytes` - 8.
fn udp_header(ends: &Ends, udp_bytes: u32) -> Vec<u8> {
    let mut h = Vec::with_capacity(8);
    h.extend(ends.sport.to_be_bytes());
    h.extend(ends.dport.to_be_bytes());
    h.extend((udp_bytes.min(0xffff) as u16).to_be_bytes());
    h.extend([0, 0]);
    let checksum = match !fold(pseudo_sum(ends.src, ends.dst, 17, udp_bytes) + sum_words(&h)) {
        0 => 0xffff, // RFC 768: a computed zero is sent as all ones
        c => c,
    };
    h[6..8].copy_from_slice(&checksum.to_be_bytes());
    h
}

/// RFC 1071 one's-complement sum of 16-bit words, folded.
pub fn fold(mut sum: u32) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// The one's-complement sum of `bytes` as 16-bit big-endian words, unfolded.
pub fn sum_words(bytes: &[u8]) -> u32 {
    bytes
        .chunks(2)
        .map(|w| u32::from(w[0]) << 8 | u32::from(*w.get(1).unwrap_or(&0)))
        .sum()
}

/// The pseudo-header's share of a TCP or UDP checksum (RFC 9293 section 3.1).
pub fn pseudo_sum(src: [u8; 4], dst: [u8; 4], protocol: u8, length: u32) -> u32 {
    sum_words(&src) + sum_words(&dst) + u32::from(protocol) + (length & 0xffff) + (length >> 16)
}
