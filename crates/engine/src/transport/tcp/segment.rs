//! The TCP header fields the simulator carries (RFC 9293 section 3.1) and the sizes
//! of segments on the wire, options included.
//!
//! Sequence numbers are 64-bit and never wrap (a simulated connection cannot send
//! 2^64 bytes), which keeps comparisons plain; window scaling (RFC 7323) is modelled
//! by its effect (windows above 65,535 bytes allowed or not), not bit by bit.

use crate::net::packet::IPV4_HEADER_BYTES;

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

/// Selective acknowledgement blocks, most recently changed first (RFC 2018 section 4).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    /// Number of valid blocks.
    pub len: u8,
    /// [left edge, right edge) byte ranges.
    pub blocks: [(u64, u64); MAX_SACK_BLOCKS],
}

impl SackBlocks {
    /// The valid blocks.
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.blocks[..self.len as usize]
    }

    /// Appends a block if there is room.
    pub fn push(&mut self, block: (u64, u64)) {
        if (self.len as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.len as usize] = block;
            self.len += 1;
        }
    }
}

/// One TCP segment's header fields.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpSegment {
    /// First sequence number (SEG.SEQ).
    pub seq: u64,
    /// Acknowledgement number (SEG.ACK), valid with [`flags::ACK`].
    pub ack: u64,
    /// Application bytes carried.
    pub payload_bytes: u32,
    /// SYN / FIN / ACK bits.
    pub flags: u8,
    /// Advertised receive window, bytes (SEG.WND after scaling).
    pub window: u64,
    /// SACK blocks (empty unless SACK is in use).
    pub sack: SackBlocks,
    /// TSval (ns), when timestamps are on.
    pub ts_val: Option<u64>,
    /// TSecr (ns), when timestamps are on and there is something to echo.
    pub ts_ecr: Option<u64>,
}

impl TcpSegment {
    /// Whether `flag` is set.
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// Sequence space the segment occupies: payload plus one for SYN and for FIN.
    pub fn seq_len(&self) -> u64 {
        self.payload_bytes as u64 + self.has(flags::SYN) as u64 + self.has(flags::FIN) as u64
    }

    /// Bytes of TCP options on the wire.
    pub fn option_bytes(&self) -> u32 {
        let ts = if self.ts_val.is_some() {
            TIMESTAMPS_OPTION_BYTES
        } else {
            0
        };
        let sack = match self.sack.len {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_segment_of_1460_bytes_makes_a_1500_byte_packet() {
        let s = TcpSegment {
            payload_bytes: 1460,
            ..Default::default()
        };
        assert_eq!(s.ip_bytes(), 1500);
    }

    #[test]
    fn options_add_their_rfc_sizes() {
        let mut ack = TcpSegment {
            flags: flags::ACK,
            ts_val: Some(1),
            ..Default::default()
        };
        assert_eq!(ack.ip_bytes(), 52);
        ack.sack.push((10, 20));
        ack.sack.push((30, 40));
        assert_eq!(ack.ip_bytes(), 52 + 20);
        let syn = TcpSegment {
            flags: flags::SYN,
            ..Default::default()
        };
        assert_eq!(syn.seq_len(), 1);
    }
}
