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
//! docs/scenario.md). A SACK carries up to [`MAX_GAP_BLOCKS`] gap blocks; with more
//! gaps the receiver reports the lowest and the highest (receiver.rs says why).

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

/// One DATA chunk's fields (unpacked; [`DataPacket`] stores them in words).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DataChunk {
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
/// chunks, their TSNs within 255 of the first.
///
/// Stored as whole 64-bit words: every packet of every transport is copied into and
/// out of the packet pool, and the compiler copies the header enum field by field
/// along the union of its variants' field boundaries. Words that line up with TCP's
/// 64-bit fields keep that copy as short as it was before SCTP (B1: +57 M instructions
/// with byte- and half-word fields).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DataPacket {
    /// first TSN (bits 0–31), control chunks (32–39), DATA chunk count (40–47).
    head: u64,
    /// Per chunk: TSN offset (0–7), flags (8–15), stream (16–31), SSN (32–47), length (48–63).
    meta: [u64; MAX_DATA_CHUNKS],
    /// Write times, two per word.
    written: [u64; MAX_DATA_CHUNKS / 2],
}

impl DataPacket {
    /// A packet whose chunks' TSNs start at `first_tsn`, carrying [`control`] chunks.
    pub fn new(first_tsn: u32, control: u8) -> Self {
        DataPacket {
            head: first_tsn as u64 | (control as u64) << 32,
            ..DataPacket::default()
        }
    }

    /// TSN of the first chunk.
    pub fn first_tsn(&self) -> u32 {
        self.head as u32
    }

    /// [`control`] chunks bundled first (INIT, COOKIE-ECHO).
    pub fn control(&self) -> u8 {
        (self.head >> 32) as u8
    }

    /// Bundles control chunks `bits` too.
    pub fn add_control(&mut self, bits: u8) {
        self.head |= (bits as u64) << 32;
    }

    /// DATA chunks carried.
    pub fn count(&self) -> usize {
        (self.head >> 40) as u8 as usize
    }

    /// Whether a chunk with TSN `tsn` could join (room and TSN range; not size).
    pub fn can_take(&self, tsn: u32) -> bool {
        self.count() < MAX_DATA_CHUNKS
            && tsn >= self.first_tsn()
            && tsn - self.first_tsn() <= u8::MAX as u32
    }

    /// Appends `chunk` with TSN `tsn` (see [`DataPacket::can_take`]).
    pub fn push(&mut self, tsn: u32, chunk: DataChunk) {
        debug_assert!(self.can_take(tsn));
        let i = self.count();
        self.meta[i] = (tsn - self.first_tsn()) as u64
            | (chunk.flags as u64) << 8
            | (chunk.stream as u64) << 16
            | (chunk.ssn as u64) << 32
            | (chunk.len as u64) << 48;
        let shift = 32 * (i % 2);
        self.written[i / 2] =
            self.written[i / 2] & !(0xffff_ffff << shift) | (chunk.written_us as u64) << shift;
        self.head += 1 << 40;
    }

    /// The DATA chunks with their TSNs.
    pub fn data(&self) -> impl Iterator<Item = (u32, DataChunk)> + '_ {
        (0..self.count()).map(|i| {
            let m = self.meta[i];
            let chunk = DataChunk {
                flags: (m >> 8) as u8,
                stream: (m >> 16) as u16,
                ssn: (m >> 32) as u16,
                len: (m >> 48) as u16,
                written_us: (self.written[i / 2] >> (32 * (i % 2))) as u32,
            };
            (self.first_tsn() + (m as u8) as u32, chunk)
        })
    }

    /// User data bytes carried.
    pub fn payload_bytes(&self) -> u32 {
        self.data().map(|(_, c)| c.len as u32).sum()
    }

    /// IP packet size: IPv4 header, common header, control chunks, DATA chunks.
    pub fn ip_bytes(&self) -> u32 {
        let control = if self.control() & control::INIT != 0 {
            INIT_CHUNK_BYTES
        } else {
            0
        } + if self.control() & control::COOKIE_ECHO != 0 {
            COOKIE_ECHO_CHUNK_BYTES
        } else {
            0
        };
        let data: u32 = self.data().map(|(_, c)| c.wire_bytes()).sum();
        crate::wire::IPV4_HEADER_BYTES + COMMON_HEADER_BYTES + control + data
    }
}

/// A packet from the data receiver: control chunks and a SACK with up to
/// [`MAX_GAP_BLOCKS`] gap blocks. Stored in whole words, as [`DataPacket`] is.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SackPacket {
    /// cumulative TSN ack (bits 0–31), control chunks (32–39), a SACK follows (40),
    /// gap blocks (48–55).
    head: u64,
    /// a_rwnd (0–31), duplicate TSNs reported (32–47).
    tail: u64,
    /// Gap ack blocks, two per word: (start, end) offsets from the cumulative TSN,
    /// inclusive (section 3.3.4).
    gaps: [u64; MAX_GAP_BLOCKS / 2],
}

impl SackPacket {
    /// A packet of control chunks only (INIT-ACK, COOKIE-ACK).
    pub fn control_only(control: u8) -> Self {
        SackPacket {
            head: (control as u64) << 32,
            ..SackPacket::default()
        }
    }

    /// A SACK (with `control` chunks before it) for cumulative TSN `cum_tsn`,
    /// advertising `a_rwnd` and reporting `duplicates` duplicate TSNs (their values are
    /// not modelled, only their bytes).
    pub fn sack(control: u8, cum_tsn: u32, a_rwnd: u32, duplicates: u16) -> Self {
        SackPacket {
            head: cum_tsn as u64 | (control as u64) << 32 | 1 << 40,
            tail: a_rwnd as u64 | (duplicates as u64) << 32,
            gaps: [0; MAX_GAP_BLOCKS / 2],
        }
    }

    /// Adds a gap block as offsets from the cumulative TSN; false when the SACK is full.
    pub fn push_gap(&mut self, start: u16, end: u16) -> bool {
        let i = self.gap_count();
        if i == MAX_GAP_BLOCKS {
            return false;
        }
        let block = start as u64 | (end as u64) << 16;
        self.gaps[i / 2] |= block << (32 * (i % 2));
        self.head += 1 << 48;
        true
    }

    /// [`control`] chunks.
    pub fn control(&self) -> u8 {
        (self.head >> 32) as u8
    }

    /// Whether a SACK chunk follows the control chunks.
    pub fn has_sack(&self) -> bool {
        self.head >> 40 & 1 == 1
    }

    /// Cumulative TSN ack.
    pub fn cum_tsn(&self) -> u32 {
        self.head as u32
    }

    /// Advertised receiver window credit, bytes.
    pub fn a_rwnd(&self) -> u32 {
        self.tail as u32
    }

    /// Duplicate TSNs reported.
    pub fn duplicates(&self) -> u16 {
        (self.tail >> 32) as u16
    }

    /// Gap blocks reported.
    pub fn gap_count(&self) -> usize {
        (self.head >> 48) as u8 as usize
    }

    /// The gap blocks as (start, end) offsets from the cumulative TSN, inclusive.
    pub fn gap_offsets(&self) -> impl Iterator<Item = (u16, u16)> + '_ {
        (0..self.gap_count()).map(|i| {
            let block = self.gaps[i / 2] >> (32 * (i % 2));
            (block as u16, (block >> 16) as u16)
        })
    }

    /// The reported gap blocks as absolute TSN ranges, inclusive.
    pub fn gap_blocks(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let cum = self.cum_tsn();
        self.gap_offsets()
            .map(move |(s, e)| (cum + s as u32, cum + e as u32))
    }

    /// IP packet size: IPv4 header, common header, control chunks, the SACK.
    pub fn ip_bytes(&self) -> u32 {
        let control = if self.control() & control::INIT_ACK != 0 {
            INIT_ACK_CHUNK_BYTES
        } else {
            0
        } + if self.control() & control::COOKIE_ACK != 0 {
            COOKIE_ACK_CHUNK_BYTES
        } else {
            0
        };
        let sack = if self.has_sack() {
            SACK_CHUNK_BYTES
                + SACK_ENTRY_BYTES * (self.gap_count() as u32 + self.duplicates() as u32)
        } else {
            0
        };
        crate::wire::IPV4_HEADER_BYTES + COMMON_HEADER_BYTES + control + sack
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
        let chunk = |len| DataChunk {
            len,
            flags: flags::BEGIN | flags::END,
            stream: 3,
            ssn: 9,
            written_us: 77,
        };
        let mut p = DataPacket::new(10, 0);
        p.push(10, chunk(1452));
        assert_eq!(p.ip_bytes(), 1500);
        let mut p = DataPacket::new(10, 0);
        for t in 10..15 {
            p.push(t, chunk(256));
        }
        assert_eq!(p.ip_bytes(), 1392);
        assert_eq!(p.payload_bytes(), 1280);
        assert_eq!(p.data().nth(4), Some((14, chunk(256))));
        let mut q = DataPacket::new(10, 0);
        q.push(10, chunk(1)); // padded to 4
        assert_eq!(q.ip_bytes(), 20 + 12 + 16 + 4);
        let mut s = SackPacket::sack(0, 7, 1000, 1);
        assert!(s.push_gap(2, 3) && s.push_gap(5, 5));
        assert_eq!(s.ip_bytes(), 20 + 12 + 16 + 3 * 4);
        assert_eq!(s.gap_blocks().collect::<Vec<_>>(), vec![(9, 10), (12, 12)]);
        assert_eq!((s.cum_tsn(), s.a_rwnd(), s.duplicates()), (7, 1000, 1));
    }

    /// The header fits the packet pool's slot: TCP's segment is the largest variant.
    #[test]
    fn headers_fit_the_pooled_packet() {
        use std::mem::size_of;
        assert!(size_of::<DataPacket>() <= size_of::<crate::wire::tcp::TcpSegment>());
        assert!(size_of::<SackPacket>() <= size_of::<crate::wire::tcp::TcpSegment>());
        assert_eq!(size_of::<crate::net::packet::Packet>(), 112);
    }

    #[test]
    fn write_times_survive_the_microsecond_wrap() {
        let written = SimTime::from_secs(4294) + SimTime::from_ms(900);
        let now = written + SimTime::from_ms(700); // past 2³² µs = 4,294.967 s
        assert_eq!(written_at(now, micros_mod32(written)), written);
    }
}
