//! TCP's header in a capture (RFC 9293 section 3.1).

use super::{fold, pseudo_sum, sum_words, Ends};
use crate::wire::tcp::{flags, TcpSegment};
use crate::wire::Direction;

/// `seg`'s header with its options (timestamps, SACK blocks, NOP padding to the length
/// the engine sized) and its checksum over a zero payload of `tcp_bytes` less the header.
pub(super) fn header(
    seg: &TcpSegment,
    ends: &Ends,
    direction: Direction,
    tcp_bytes: u32,
) -> Vec<u8> {
    // The model's data sender advertises no window (only the receiver's matters):
    // written as open, not as a zero window.
    let window = if direction == Direction::Forward && seg.window == 0 {
        0xffff
    } else {
        seg.window.min(0xffff)
    };
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
    h.extend(ends.sport.to_be_bytes());
    h.extend(ends.dport.to_be_bytes());
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
    h.extend((window as u16).to_be_bytes());
    h.extend([0, 0, 0, 0]); // checksum (below), urgent pointer
    h.extend(options);
    let checksum = !fold(pseudo_sum(ends.src, ends.dst, 6, tcp_bytes) + sum_words(&h));
    h[16..18].copy_from_slice(&checksum.to_be_bytes());
    h
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let ends = Ends {
            src: [10, 0, 0, 2],
            dst: [10, 0, 0, 1],
            sport: 5001,
            dport: 10_000,
        };
        let h = header(&seg, &ends, Direction::Reverse, tcp_bytes);
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
}
