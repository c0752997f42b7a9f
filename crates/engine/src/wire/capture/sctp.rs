//! SCTP packets written whole (RFC 9260 section 3) and kept whole in the capture:
//! common header, then every chunk with its header and zero-filled, padded value, so
//! that readers decode the bundle.
//! The checksum is left 0 (CRC32c is not computed; Wireshark does not verify it
//! unless asked).

use super::Ends;
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
pub(super) fn data_packet(ends: &Ends, p: &DataPacket) -> Vec<u8> {
    let mut h = common(ends.sport, ends.dport);
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
pub(super) fn sack_packet(ends: &Ends, p: &SackPacket) -> Vec<u8> {
    let mut h = common(ends.sport, ends.dport);
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
