//! IPv4 fragmentation and reassembly (RFC 791 section 2.3 / 3.2).
//!
//! A packet larger than the next link's MTU is split into fragments that each carry
//! their own 20-byte IP header and a multiple of 8 payload bytes (all but the last).
//! The original packet's header fields are kept in a [`Datagram`] record shared by its
//! fragments; the datagram is delivered when its last fragment arrives and is lost if
//! any fragment is lost (a datagram counts as one drop however many fragments die).
//! Fragments of fragments work the same way: the record just waits for more pieces.

use crate::net::packet::Packet;
use crate::wire::IPV4_HEADER_BYTES;

/// How a packet of `ip_bytes` splits for a link of `mtu_bytes`: the number of
/// fragments and the IP size of each full fragment and of the last one.
/// Requires `ip_bytes > mtu_bytes >= 28`.
pub fn fragment_sizes(ip_bytes: u32, mtu_bytes: u32) -> (u32, u32, u32) {
    let payload = ip_bytes - IPV4_HEADER_BYTES;
    let per_fragment = (mtu_bytes - IPV4_HEADER_BYTES) / 8 * 8;
    let count = payload.div_ceil(per_fragment);
    let last = payload - (count - 1) * per_fragment;
    (
        count,
        per_fragment + IPV4_HEADER_BYTES,
        last + IPV4_HEADER_BYTES,
    )
}

/// A fragmented datagram awaiting reassembly.
#[derive(Debug, Clone, Copy)]
pub struct Datagram {
    /// The packet as its transport sent it.
    pub original: Packet,
    /// Fragments not yet arrived or dropped.
    pub pending: u32,
    /// Some fragment was lost: the datagram will never be delivered.
    pub lost: bool,
}

/// Storage of the datagrams being reassembled, recycled like packets.
#[derive(Debug, Default)]
pub struct Datagrams {
    records: Vec<Datagram>,
    free: Vec<u32>,
}

/// What a fragment's arrival or loss meant for its datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FragmentFate {
    /// Other fragments are still outstanding (or this loss was not the first).
    Pending,
    /// This was the datagram's first lost fragment: count the datagram as dropped.
    DatagramLost,
    /// This was the last missing fragment of an intact datagram: deliver it.
    Reassembled,
}

impl Datagrams {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Opens a record for `original`, about to be split into `count` fragments.
    pub fn open(&mut self, original: Packet, count: u32) -> u32 {
        let rec = Datagram {
            original,
            pending: count,
            lost: false,
        };
        match self.free.pop() {
            Some(i) => {
                self.records[i as usize] = rec;
                i
            }
            None => {
                self.records.push(rec);
                (self.records.len() - 1) as u32
            }
        }
    }

    /// One fragment of datagram `d` is being split again into `count` pieces.
    pub fn refragment(&mut self, d: u32, count: u32) {
        self.records[d as usize].pending += count - 1;
    }

    /// The datagram record `d`.
    pub fn get(&self, d: u32) -> &Datagram {
        &self.records[d as usize]
    }

    fn settle(&mut self, d: u32) {
        if self.records[d as usize].pending == 0 {
            self.free.push(d);
        }
    }

    /// A fragment of `d` reached the destination.
    pub fn arrived(&mut self, d: u32) -> FragmentFate {
        let rec = &mut self.records[d as usize];
        rec.pending -= 1;
        let fate = if rec.pending == 0 && !rec.lost {
            FragmentFate::Reassembled
        } else {
            FragmentFate::Pending
        };
        self.settle(d);
        fate
    }

    /// A fragment of `d` was dropped.
    pub fn dropped(&mut self, d: u32) -> FragmentFate {
        let rec = &mut self.records[d as usize];
        rec.pending -= 1;
        let fate = if rec.lost {
            FragmentFate::Pending
        } else {
            FragmentFate::DatagramLost
        };
        rec.lost = true;
        self.settle(d);
        fate
    }

    /// Records of datagrams still partly in the network and not yet lost.
    pub fn in_flight(&self) -> impl Iterator<Item = &Datagram> {
        let mut is_free = vec![false; self.records.len()];
        for &i in &self.free {
            is_free[i as usize] = true;
        }
        self.records
            .iter()
            .zip(is_free)
            .filter(|(r, free)| !free && !r.lost)
            .map(|(r, _)| r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_9000_byte_packet_over_a_1500_byte_mtu() {
        // 8980 payload bytes in pieces of 1480: 6 full fragments + 100 bytes.
        assert_eq!(fragment_sizes(9000, 1500), (7, 1500, 120));
    }

    #[test]
    fn fragment_payloads_are_multiples_of_8() {
        // MTU 1006: 986 usable, rounded down to 984.
        let (count, full, last) = fragment_sizes(3000, 1006);
        assert_eq!((count, full, last), (4, 1004, 2980 - 3 * 984 + 20));
    }

    #[test]
    fn smallest_mtu() {
        // RFC 791: 68-byte MTU leaves 48 payload bytes per fragment.
        assert_eq!(fragment_sizes(1500, 68), (31, 68, 1480 - 30 * 48 + 20));
    }
}
