//! What a packet carries and which way it goes: the IPv4 constants, the transport
//! headers (one variant per transport, each transport's format in its own file), and
//! the port numbers the captures and the emulator give each flow.
//!
//! This is the layer both the network ([`crate::net`]) and the transports
//! ([`crate::transport`]) stand on: a link moves a [`TransportHeader`] without reading
//! it, an endpoint reads only its own variant.

pub mod capture;
pub mod sctp;
pub mod tcp;

/// IPv4 header without options (RFC 791).
pub const IPV4_HEADER_BYTES: u32 = 20;
/// UDP header (RFC 768).
pub const UDP_HEADER_BYTES: u32 = 8;
/// Largest IPv4 datagram (RFC 791 total-length field).
pub const MAX_IP_PACKET_BYTES: u32 = 65_535;
/// Smallest MTU every IPv4 link must support (RFC 791: 68 octets).
pub const MIN_MTU_BYTES: u32 = 68;

/// Which way along its flow a packet travels.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the flow's source to its destination (data).
    Forward,
    /// From the destination back to the source (acknowledgements).
    Reverse,
}

impl Direction {
    /// 0 for forward, 1 for reverse: index into per-direction arrays.
    pub fn index(self) -> usize {
        match self {
            Direction::Forward => 0,
            Direction::Reverse => 1,
        }
    }
}

/// Transport-layer header fields. One variant per transport; a transport reads only
/// its own variant.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TransportHeader {
    /// A TCP segment (see [`tcp`]).
    Tcp(tcp::TcpSegment),
    /// A UDP datagram with its sender-assigned sequence number (not on the wire in
    /// real UDP; used for reordering and loss statistics like an RTP sequence number).
    Udp {
        /// Sequence number of the datagram within its flow, from 0.
        seq: u64,
        /// Application payload bytes.
        payload_bytes: u32,
    },
    /// An SCTP packet from the data sender (DATA, INIT, COOKIE-ECHO).
    SctpData(sctp::DataPacket),
    /// An SCTP packet from the data receiver (SACK, INIT-ACK, COOKIE-ACK).
    SctpSack(sctp::SackPacket),
}

impl TransportHeader {
    /// Application payload bytes carried.
    pub fn payload_bytes(&self) -> u32 {
        match self {
            TransportHeader::Udp { payload_bytes, .. } => *payload_bytes,
            TransportHeader::Tcp(seg) => seg.payload_bytes,
            TransportHeader::SctpData(p) => p.payload_bytes(),
            TransportHeader::SctpSack(_) => 0,
        }
    }
}

/// Port of every flow's receiver (iperf's).
pub const RECEIVER_PORT: u16 = 5001;

/// The port of flow `f`'s sender.
pub fn sender_port(f: usize) -> u16 {
    10_000 + (f % 50_000) as u16
}
