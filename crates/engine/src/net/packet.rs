//! Packets and the pool that recycles them.
//!
//! A packet carries sizes and header fields, never payload bytes. Packets live in a
//! [`PacketPool`] and are passed around by index ([`PacketId`]), so queues and pipes
//! move 4-byte ids and the steady state allocates nothing: a freed slot is reused by
//! the next packet (htsim's packet recycling).

use crate::time::SimTime;
use crate::wire::{Direction, TransportHeader};

/// Index of a packet in the [`PacketPool`].
pub type PacketId = u32;

/// "No datagram": the packet is not an IP fragment.
pub const NOT_A_FRAGMENT: u32 = u32::MAX;

/// The "more fragments" flag in [`Packet::fragment_word`] (IPv4's MF bit).
pub const MORE_FRAGMENTS: u16 = 0x2000;
/// The offset bits of [`Packet::fragment_word`] (in 8-byte units).
pub const FRAGMENT_OFFSET: u16 = 0x1fff;

/// What forwarding needs to know about a packet, carried beside its id through queues
/// and pipes so that moving a packet along its route never touches the packet itself
/// (which sits in the pool, mostly out of cache): 16 bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct InFlight {
    /// The packet in the pool.
    pub id: PacketId,
    /// IP packet size in bytes.
    pub size_bytes: u32,
    /// Where its route goes on: the cursor of its next channel in the simulation's
    /// [`crate::net::routing::RouteTable`] (its flow is the pooled packet's).
    pub route: u32,
    /// Which way along its flow it travels.
    pub direction: Direction,
    /// Whether it is an IP fragment (its datagram record must be consulted on loss or arrival).
    pub fragment: bool,
}

/// One IP packet (or IP fragment) in the network.
#[derive(Copy, Clone, Debug)]
pub struct Packet {
    /// Index of the flow the packet belongs to.
    pub flow: u32,
    /// Which way along the flow it travels.
    pub direction: Direction,
    /// IP packet size in bytes: IP header + transport header + payload.
    pub size_bytes: u32,
    /// When the transport handed it to the network.
    pub sent_at: SimTime,
    /// Datagram record this fragment belongs to, or [`NOT_A_FRAGMENT`].
    pub datagram: u32,
    /// A fragment's place in its datagram as IPv4 writes it (RFC 791 section 3.1):
    /// [`MORE_FRAGMENTS`] and the offset in 8-byte units; 0 for a whole datagram.
    /// (It fits the packet's padding: the packet stays 112 bytes.)
    pub fragment_word: u16,
    /// Transport header fields.
    pub header: TransportHeader,
}

/// Recycling storage for packets in flight.
#[derive(Debug, Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
}

impl PacketPool {
    /// An empty pool.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `packet`, reusing a freed slot when there is one.
    pub fn insert(&mut self, packet: Packet) -> PacketId {
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = packet;
                id
            }
            None => {
                self.slots.push(packet);
                (self.slots.len() - 1) as PacketId
            }
        }
    }

    /// The packet stored at `id`.
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize]
    }

    /// Mutable access to the packet stored at `id`.
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Hints the CPU to bring packet `id` into cache: its endpoint will read it when it
    /// arrives (see [`crate::prefetch`]).
    #[inline]
    pub fn prefetch(&self, id: PacketId) {
        if let Some(p) = self.slots.get(id as usize) {
            crate::prefetch::prefetch(p);
        }
    }

    /// Returns the slot of a packet that left the network (delivered or dropped).
    pub fn release(&mut self, id: PacketId) {
        self.free.push(id);
    }

    /// The packets currently in the network (queued, on the wire or propagating).
    /// Walks the whole pool: for end-of-run accounting only.
    pub fn live(&self) -> impl Iterator<Item = &Packet> {
        let mut is_free = vec![false; self.slots.len()];
        for &id in &self.free {
            is_free[id as usize] = true;
        }
        self.slots
            .iter()
            .zip(is_free)
            .filter(|(_, free)| !free)
            .map(|(p, _)| p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(seq: u64) -> Packet {
        Packet {
            flow: 0,
            direction: Direction::Forward,
            size_bytes: 100,
            sent_at: SimTime::ZERO,
            datagram: NOT_A_FRAGMENT,
            fragment_word: 0,
            header: TransportHeader::Udp {
                seq,
                payload_bytes: 72,
            },
        }
    }

    /// The pool's prefetch covers every line of values up to 128 bytes.
    #[test]
    fn a_packet_fits_the_prefetch() {
        assert!(std::mem::size_of::<Packet>() <= 128);
    }

    #[test]
    fn released_slots_are_reused() {
        let mut pool = PacketPool::new();
        let a = pool.insert(packet(0));
        let _b = pool.insert(packet(1));
        pool.release(a);
        let c = pool.insert(packet(2));
        assert_eq!(a, c);
        assert_eq!(pool.live().count(), 2);
    }
}
