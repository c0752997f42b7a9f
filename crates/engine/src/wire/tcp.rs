//! The TCP header fields the simulator carries (RFC 9293 section 3.1) and the sizes
//! of segments on the wire, options included.
//!
//! Sequence numbers are 64-bit and never wrap (a simulated connection cannot send
//! 2^64 bytes), which keeps comparisons plain; window scaling (RFC 7323) is modelled
//! by its effect (windows above 65,535 bytes allowed or not), not bit by bit.

use crate::wire::IPV4_HEADER_BYTES;

/// TCP header without options (RFC 9293).
pub const TCP_HEADER_BYTES: u32 = 20;
/// Timestamps option with its two NOPs (RFC 7323 section 3: kind 8, length 10).
pub const TIMESTAMPS_OPTION_BYTES: u32 = 12;
/// Largest window without the window-scale option.
pub const UNSCALED_WINDOW_MAX: u64 = 65_535;
/// Largest window with the window-scale option (shift 14, RFC 7323 section 2.3).
pub const SCALED_WINDOW_MAX: u64 = 65_535 << 14;
/// At most this many SACK blocks fit in the 40 option bytes (RFC 2018 section 3).
pub const MAX_SACK_BLOCKS: usize = 4;

/// Segment flags that matter to the model.
pub mod flags {
    /// Synchronize sequence numbers (opening).
    pub const SYN: u8 = 1;
    /// No more data from the sender.
    pub const FIN: u8 = 2;
    /// The acknowledgement field is significant.
    pub const ACK: u8 = 4;
}

/// How many bytes TCP options take on the wire: what a link serializes for each segment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OptionSizes {
    /// As real stacks encode them (RFC 7323 section 3, RFC 2018 section 3): timestamps
    /// 12 bytes with their two NOPs on every segment, SACK 4 + 8 per block, the SYN's
    /// options 12; a full segment's options come out of the MSS (RFC 6691).
    #[default]
    Rfc,
    /// As ns-2.35 counts them (`TcpAgent::headersize()`): a sender with timestamps
    /// adds `ts_option_size_` (10 bytes) to each segment it sends, its sink's ACKs add
    /// nothing for them, a SACK block adds 8 bytes (`hdr_tcp::sa_length`), and the
    /// payload of a full segment is the whole MSS (`packetSize_`). ns-2's TCP/Linux
    /// with `timestamps_ true` sends 1,510-byte packets of 1,460 bytes. Packet
    /// captures still write the RFC encoding.
    Ns2,
}

impl OptionSizes {
    /// Option bytes a full data segment's payload gives up (RFC 6691): the
    /// timestamps option where it is carried inside the MSS.
    pub fn within_mss(self, timestamps: bool) -> u32 {
        match self {
            OptionSizes::Rfc if timestamps => TIMESTAMPS_OPTION_BYTES,
            _ => 0,
        }
    }

    /// Option bytes a full data segment carries beyond its MSS (ns-2's
    /// `ts_option_size_`).
    pub fn beyond_mss(self, timestamps: bool) -> u32 {
        match self {
            OptionSizes::Ns2 if timestamps => NS2_TIMESTAMPS_OPTION_BYTES,
            _ => 0,
        }
    }
}

/// ns-2.35's `Agent/TCP ts_option_size_`: the timestamps option without padding.
pub const NS2_TIMESTAMPS_OPTION_BYTES: u32 = 10;

/// "No timestamp" in the compact timestamp fields.
const NO_TIMESTAMP: u64 = u64::MAX;

/// One TCP segment's header fields, packed small (80 bytes) because every packet in
/// flight carries one and the engine copies them: SACK edges are stored as 32-bit
/// offsets above the acknowledgement number (a window never spans 4 GB), timestamps
/// without an `Option` tag.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TcpSegment {
    /// First sequence number (SEG.SEQ).
    pub seq: u64,
    /// Acknowledgement number (SEG.ACK), valid with [`flags::ACK`].
    pub ack: u64,
    /// Advertised receive window, bytes (SEG.WND after scaling).
    pub window: u64,
    ts_val: u64,
    ts_ecr: u64,
    /// Application bytes carried.
    pub payload_bytes: u32,
    /// SYN / FIN / ACK bits.
    pub flags: u8,
    sack_len: u8,
    sack: [(i32, i32); MAX_SACK_BLOCKS],
}

impl Default for TcpSegment {
    fn default() -> Self {
        TcpSegment {
            seq: 0,
            ack: 0,
            window: 0,
            ts_val: NO_TIMESTAMP,
            ts_ecr: NO_TIMESTAMP,
            payload_bytes: 0,
            flags: 0,
            sack_len: 0,
            sack: [(0, 0); MAX_SACK_BLOCKS],
        }
    }
}

impl TcpSegment {
    /// A segment without options.
    pub fn new(seq: u64, ack: u64, payload_bytes: u32, flags: u8, window: u64) -> Self {
        TcpSegment {
            seq,
            ack,
            payload_bytes,
            flags,
            window,
            ..Default::default()
        }
    }

    /// Whether `flag` is set.
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// Sequence space the segment occupies: payload plus one for SYN and for FIN.
    pub fn seq_len(&self) -> u64 {
        self.payload_bytes as u64 + self.has(flags::SYN) as u64 + self.has(flags::FIN) as u64
    }

    /// TSval (ns), when timestamps are on.
    pub fn ts_val(&self) -> Option<u64> {
        (self.ts_val != NO_TIMESTAMP).then_some(self.ts_val)
    }

    /// TSecr (ns), when timestamps are on and there is something to echo.
    pub fn ts_ecr(&self) -> Option<u64> {
        (self.ts_ecr != NO_TIMESTAMP).then_some(self.ts_ecr)
    }

    /// Sets the timestamps option (RFC 7323): `None` leaves a field absent.
    pub fn set_timestamps(&mut self, val: Option<u64>, ecr: Option<u64>) {
        self.ts_val = val.unwrap_or(NO_TIMESTAMP);
        self.ts_ecr = ecr.unwrap_or(NO_TIMESTAMP);
    }

    /// The SACK blocks, [left, right) byte ranges, in the order sent.
    pub fn sack_blocks(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let ack = self.ack as i64;
        self.sack[..self.sack_len as usize]
            .iter()
            .map(move |&(l, r)| ((ack + l as i64) as u64, (ack + r as i64) as u64))
    }

    /// Number of SACK blocks.
    pub fn sack_count(&self) -> usize {
        self.sack_len as usize
    }

    /// Appends a SACK block, if there is room: above the acknowledgement number, or
    /// below it for a D-SACK (RFC 2883). Set `ack` first: blocks are stored relative
    /// to it, within ±2³¹ (windows are at most 2³⁰, RFC 7323).
    pub fn push_sack(&mut self, block: (u64, u64)) {
        let offset = |x: u64| i32::try_from(x as i64 - self.ack as i64).ok();
        let (Some(l), Some(r)) = (offset(block.0), offset(block.1)) else {
            return;
        };
        if (self.sack_len as usize) < MAX_SACK_BLOCKS {
            self.sack[self.sack_len as usize] = (l, r);
            self.sack_len += 1;
        }
    }

    /// Bytes of TCP options on the wire.
    pub fn option_bytes(&self) -> u32 {
        let ts = if self.ts_val().is_some() {
            TIMESTAMPS_OPTION_BYTES
        } else {
            0
        };
        let sack = match self.sack_len {
            0 => 0,
            n => 4 + 8 * n as u32, // two NOPs, kind, length, 8 bytes per block
        };
        let syn = if self.has(flags::SYN) {
            // MSS (4), window scale (3 + NOP), SACK-permitted (2 + 2 NOPs).
            12
        } else {
            0
        };
        ts + sack + syn
    }

    /// Size of the IP packet carrying this segment.
    pub fn ip_bytes(&self) -> u32 {
        IPV4_HEADER_BYTES + TCP_HEADER_BYTES + self.option_bytes() + self.payload_bytes
    }

    /// Size of the IP packet carrying this segment with options counted as `sizes`
    /// says; `from_sender`: a data sender's segment (ns-2 counts timestamps only there).
    pub fn ip_bytes_as(&self, sizes: OptionSizes, from_sender: bool) -> u32 {
        match sizes {
            OptionSizes::Rfc => self.ip_bytes(),
            OptionSizes::Ns2 => {
                let ts = if from_sender && self.ts_val().is_some() {
                    NS2_TIMESTAMPS_OPTION_BYTES
                } else {
                    0
                };
                IPV4_HEADER_BYTES
                    + TCP_HEADER_BYTES
                    + ts
                    + 8 * self.sack_len as u32
                    + self.payload_bytes
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_segment_of_1460_bytes_makes_a_1500_byte_packet() {
        assert_eq!(TcpSegment::new(0, 0, 1460, 0, 0).ip_bytes(), 1500);
    }

    #[test]
    fn options_add_their_rfc_sizes() {
        let mut ack = TcpSegment::new(0, 5, 0, flags::ACK, 0);
        ack.set_timestamps(Some(1), None);
        assert_eq!(ack.ip_bytes(), 52);
        ack.push_sack((10, 20));
        ack.push_sack((30, 40));
        assert_eq!(ack.ip_bytes(), 52 + 20);
        assert_eq!(
            ack.sack_blocks().collect::<Vec<_>>(),
            vec![(10, 20), (30, 40)]
        );
        assert_eq!(TcpSegment::new(0, 0, 0, flags::SYN, 0).seq_len(), 1);
    }

    /// ns-2.35's counting, read off its queue traces of TCP/Linux with
    /// `timestamps_ true` over TCPSink/Sack1: data packets of 1,460 bytes are 1,510 on
    /// the wire, ACKs 40, 48, 56 and 64 bytes with 0 to 3 SACK blocks.
    #[test]
    fn ns2_counts_its_timestamps_on_data_only_and_sack_blocks_at_8_bytes() {
        let mut data = TcpSegment::new(0, 0, 1460, flags::ACK, 0);
        data.set_timestamps(Some(1), Some(1));
        assert_eq!(data.ip_bytes_as(OptionSizes::Ns2, true), 1510);
        assert_eq!(data.ip_bytes_as(OptionSizes::Rfc, true), 1512);
        let mut ack = TcpSegment::new(0, 5, 0, flags::ACK, 0);
        ack.set_timestamps(Some(1), Some(1));
        for (blocks, ns2) in [(0, 40), (1, 48), (2, 56), (3, 64)] {
            if blocks > 0 {
                ack.push_sack((10 * blocks, 10 * blocks + 5));
            }
            assert_eq!(ack.ip_bytes_as(OptionSizes::Ns2, false), ns2);
            assert_eq!(ack.ip_bytes_as(OptionSizes::Rfc, false), ack.ip_bytes());
        }
        assert_eq!(OptionSizes::Ns2.beyond_mss(true), 10);
        assert_eq!(OptionSizes::Ns2.within_mss(true), 0);
        assert_eq!(OptionSizes::Rfc.within_mss(true), 12);
        assert_eq!(OptionSizes::Rfc.beyond_mss(true), 0);
        assert_eq!(OptionSizes::Ns2.beyond_mss(false), 0);
    }

    #[test]
    fn segments_stay_small() {
        assert!(std::mem::size_of::<TcpSegment>() <= 80);
    }
}
