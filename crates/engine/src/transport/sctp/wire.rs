//! SCTP packets as the simulator carries them: the chunk fields the endpoints read and
//! the exact wire size (RFC 9260 section 3), never payload bytes.
//!
//! Storage decision. A packet's transport header lives inline in the pooled packet
//! (112 bytes, sized by TCP's segment with four SACK blocks), and every packet of
//! every flow is that size, so SCTP's header must fit the same 80 bytes rather than
//! grow the pool. Two choices were weighed: a bounded inline chunk array, or an
//! engine-owned arena holding variable chunk lists that the packet indexes. The arena
//! would lift the bound but costs an allocation-managed side structure, an indirection
//! on every hop that reads the header, and a seam through `Endpoint::on_packet` (the
//! receiver would need the arena to read its packet) — for every transport, to serve
//! one. The inline array costs nothing on TCP or UDP packets (B1's packets are
//! unchanged) and its bound, [`MAX_DATA_CHUNKS`] DATA chunks per packet, binds only
//! when messages are small: with a 1,500-byte MTU a packet holds six chunks whenever
//! messages are ≥ 226 bytes (`⌊1452/(16+226)⌋ = 6`), so the study's 256/512/1,024-byte
//! messages bundle exactly as RFC 9260 allows; smaller messages, or jumbo frames with
//! messages under ~1.5 KB, bundle at most six per packet (documented in
//! docs/scenario.md). A SACK carries up to [`MAX_GAP_BLOCKS`] gap blocks (more gaps
//! than that are not reported, as a receiver's MTU would also limit them).

/// SCTP common header (section 3.1): ports, verification tag, checksum.
pub const COMMON_HEADER_BYTES: u32 = 12;
/// DATA chunk header (section 3.3.1): type, flags, length, TSN, stream, SSN, PPID.
pub const DATA_CHUNK_HEADER_BYTES: u32 = 16;
/// SACK chunk without gap blocks or duplicate TSNs (section 3.3.4).
pub const SACK_CHUNK_BYTES: u32 = 16;
/// One gap ack block or one duplicate TSN in a SACK.
pub const SACK_ENTRY_BYTES: u32 = 4;
/// INIT chunk (section 3.3.2) with no optional parameters.
pub const INIT_CHUNK_BYTES: u32 = 20;
/// The state cookie the model's INIT-ACK carries and COOKIE-ECHO returns: a parameter
/// header and a 32-byte cookie (a MAC and a timestamp; real cookies also embed the
/// INIT, making them longer — the handshake's packets are few).
pub const STATE_COOKIE_PARAMETER_BYTES: u32 = 4 + 32;
/// INIT-ACK chunk: INIT's fixed part and the state cookie parameter.
pub const INIT_ACK_CHUNK_BYTES: u32 = INIT_CHUNK_BYTES + STATE_COOKIE_PARAMETER_BYTES;
/// COOKIE-ECHO chunk: a chunk header and the cookie.
pub const COOKIE_ECHO_CHUNK_BYTES: u32 = 4 + 32;
/// COOKIE-ACK chunk (a bare chunk header).
pub const COOKIE_ACK_CHUNK_BYTES: u32 = 4;
/// DATA chunks one packet carries at most (see the module's storage decision).
pub const MAX_DATA_CHUNKS: usize = 6;
/// Gap ack blocks one SACK reports at most.
pub const MAX_GAP_BLOCKS: usize = 16;

/// Control chunks, as bits of a packet's `control`.
pub mod control {
    /// INIT (sender → receiver).
    pub const INIT: u8 = 1;
    /// INIT-ACK with the state cookie (receiver → sender).
    pub const INIT_ACK: u8 = 2;
    /// COOKIE-ECHO (sender → receiver; DATA may follow in the same packet).
    pub const COOKIE_ECHO: u8 = 4;
    /// COOKIE-ACK (receiver → sender; a SACK may follow in the same packet).
    pub const COOKIE_ACK: u8 = 8;
}

/// DATA chunk flags (section 3.3.1), plus the model's end-of-data mark.
pub mod flags {
    /// E: the last fragment of a message.
    pub const END: u8 = 1;
    /// B: the first fragment of a message.
    pub const BEGIN: u8 = 2;
    /// U: unordered delivery.
    pub const UNORDERED: u8 = 4;
    /// Not an SCTP flag: the chunk ends the application's data (the point at which an
    /// association would start its SHUTDOWN); no wire bytes.
    pub const LAST: u8 = 0x80;
}

/// Bytes of `n` padded to a multiple of 4 (chunks are 4-byte aligned, section 3.2).
pub const fn padded(n: u32) -> u32 {
    (n + 3) & !3
}

/// One DATA chunk's fields.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DataChunk {
    /// TSN − the packet's `first_tsn` (chunks of one packet lie within 255 TSNs).
    pub tsn_offset: u8,
    /// [`flags`].
    pub flags: u8,
    /// Stream identifier.
    pub stream: u16,
    /// Stream sequence number.
    pub ssn: u16,
    /// User data bytes (before padding).
    pub len: u16,
    /// When the application wrote the message, µs modulo 2³² (the receiver measures
    /// message delay from it: [`written_at`]).
    pub written_us: u32,
}

impl DataChunk {
    /// Wire bytes: header and padded user data.
    pub fn wire_bytes(&self) -> u32 {
        DATA_CHUNK_HEADER_BYTES + padded(self.len as u32)
    }
}

/// A packet from the data sender: control chunks and up to [`MAX_DATA_CHUNKS`] DATA
/// chunks.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DataPacket {
    /// TSN of the first chunk (others are offsets from it).
    pub first_tsn: u32,
    /// [`control`] chunks bundled first (INIT, COOKIE-ECHO).
    pub control: u8,
    /// DATA chunks carried.
    pub count: u8,
    /// The chunks; `count` of them are meaningful.
    pub chunks: [DataChunk; MAX_DATA_CHUNKS],
}

impl DataPacket {
    /// The DATA chunks with their TSNs.
    pub fn data(&self) -> impl Iterator<Item = (u32, &DataChunk)> {
        self.chunks[..self.count as usize]
            .iter()
            .map(|c| (self.first_tsn + c.tsn_offset as u32, c))
    }

    /// User data bytes carried.
    pub fn payload_bytes(&self) -> u32 {
        self.data().map(|(_, c)| c.len as u32).sum()
    }

    /// IP packet size: IPv4 header, common header, control chunks, DATA chunks.
    pub fn ip_bytes(&self) -> u32 {
        let control = if self.control & control::INIT != 0 {
            INIT_CHUNK_BYTES
        } else {
            0
        } + if self.control & control::COOKIE_ECHO != 0 {
            COOKIE_ECHO_CHUNK_BYTES
        } else {
            0
        };
        let data: u32 = self.data().map(|(_, c)| c.wire_bytes()).sum();
        crate::net::packet::IPV4_HEADER_BYTES + COMMON_HEADER_BYTES + control + data
    }
}

/// A packet from the data receiver: control chunks and a SACK.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SackPacket {
    /// [`control`] chunks (INIT-ACK, COOKIE-ACK).
    pub control: u8,
    /// Whether a SACK chunk follows.
    pub has_sack: bool,
    /// Duplicate TSNs reported (their values are not modelled, only their bytes).
    pub duplicates: u16,
    /// Cumulative TSN ack.
    pub cum_tsn: u32,
    /// Advertised receiver window credit, bytes.
    pub a_rwnd: u32,
    /// Gap ack blocks reported.
    pub gap_count: u8,
    /// Gap ack blocks as (start, end) offsets from `cum_tsn`, inclusive (section
    /// 3.3.4); `gap_count` of them are meaningful.
    pub gaps: [(u16, u16); MAX_GAP_BLOCKS],
}

impl SackPacket {
    /// The reported gap blocks as absolute TSN ranges, inclusive.
    pub fn gap_blocks(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.gaps[..self.gap_count as usize]
            .iter()
            .map(|&(s, e)| (self.cum_tsn + s as u32, self.cum_tsn + e as u32))
    }

    /// IP packet size: IPv4 header, common header, control chunks, the SACK.
    pub fn ip_bytes(&self) -> u32 {
        let control = if self.control & control::INIT_ACK != 0 {
            INIT_ACK_CHUNK_BYTES
        } else {
            0
        } + if self.control & control::COOKIE_ACK != 0 {
            COOKIE_ACK_CHUNK_BYTES
        } else {
            0
        };
        let sack = if self.has_sack {
            SACK_CHUNK_BYTES + SACK_ENTRY_BYTES * (self.gap_count as u32 + self.duplicates as u32)
        } else {
            0
        };
        crate::net::packet::IPV4_HEADER_BYTES + COMMON_HEADER_BYTES + control + sack
    }
}

/// `now` in µs modulo 2³², as [`DataChunk::written_us`] stores it.
pub fn micros_mod32(now: crate::time::SimTime) -> u32 {
    (now.as_ns() / 1_000) as u32
}

/// The write time a chunk stored as `written_us`, read at `now` (no message waits
/// 71 minutes, the period of the µs counter).
pub fn written_at(now: crate::time::SimTime, written_us: u32) -> crate::time::SimTime {
    let age_us = micros_mod32(now).wrapping_sub(written_us) as u64;
    crate::time::SimTime((now.as_ns() / 1_000).saturating_sub(age_us) * 1_000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    /// Section 3 sizes: a 1,500-byte packet carries one 1,452-byte chunk
    /// (20 + 12 + 16 + 1452 = 1500); five 256-byte messages take 20 + 12 + 5·(16 + 256)
    /// = 1,392 bytes (a sixth would need 1,664).
    #[test]
    fn wire_sizes_by_hand() {
        let mut p = DataPacket {
            count: 1,
            ..DataPacket::default()
        };
        p.chunks[0].len = 1452;
        assert_eq!(p.ip_bytes(), 1500);
        p.count = 5;
        for c in &mut p.chunks[..5] {
            c.len = 256;
        }
        assert_eq!(p.ip_bytes(), 1392);
        assert_eq!(p.payload_bytes(), 1280);
        p.chunks[0].len = 1; // padded to 4
        assert_eq!(p.ip_bytes(), 1392 - 256 + 4);
        let s = SackPacket {
            has_sack: true,
            gap_count: 2,
            duplicates: 1,
            ..SackPacket::default()
        };
        assert_eq!(s.ip_bytes(), 20 + 12 + 16 + 3 * 4);
    }

    /// The header fits the packet pool's slot: TCP's segment is the largest variant.
    #[test]
    fn headers_fit_the_pooled_packet() {
        use std::mem::size_of;
        assert!(size_of::<DataPacket>() <= size_of::<crate::transport::tcp::segment::TcpSegment>());
        assert!(size_of::<SackPacket>() <= size_of::<crate::transport::tcp::segment::TcpSegment>());
        assert_eq!(size_of::<crate::net::packet::Packet>(), 112);
    }

    #[test]
    fn write_times_survive_the_microsecond_wrap() {
        let written = SimTime::from_secs(4294) + SimTime::from_ms(900);
        let now = written + SimTime::from_ms(700); // past 2³² µs = 4,294.967 s
        assert_eq!(written_at(now, micros_mod32(written)), written);
    }
}
