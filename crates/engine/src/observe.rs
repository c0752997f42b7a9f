//! The observer hook: what happens to each packet, for whoever wants to watch — packet
//! capture ([`crate::pcap`]), reports, an emulator. The engine calls the observer, if
//! one is attached, at each event below. With none attached the cost is one
//! predictable branch per packet admitted to a channel and one per drop: +0.5%
//! instructions on benchmark B1. Everything a channel's admission decides — the
//! hand-off at the sending host, the place in the queue, the end of serialization and,
//! on the last hop, the arrival at the receiving host — is known when the packet is
//! admitted (the engine computes a packet's serialization then), so those events are
//! all reported from that one branch; none adds a test to the hot path.

use crate::metrics::DropCause;
use crate::net::packet::Packet;
use crate::time::SimTime;

/// What happened to a packet. A packet that crosses the network without loss is
/// reported as `Sent`, then per hop `Enqueued` and `Transmitted`, then `Delivered`; a
/// lost one ends in `Dropped` instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketEvent {
    /// The sending host handed the packet to its first channel `channel` (before that
    /// channel's queue decides on it).
    Sent {
        /// The first hop's channel.
        channel: usize,
    },
    /// The packet was admitted to channel `channel`'s output queue (or straight onto
    /// an idle link).
    Enqueued {
        /// The channel (link `channel / 2`; even: forward, odd: reverse).
        channel: usize,
    },
    /// The packet's last bit left channel `channel` (link `channel / 2`; even:
    /// forward, odd: reverse): it was serialized onto the link, whatever happens to
    /// it afterwards. Only packets serialized by the end of the run are reported (as
    /// the channel's `tx_packets` counts them).
    Transmitted {
        /// The channel.
        channel: usize,
    },
    /// The packet (or a fragment of it) reached its destination host over channel
    /// `channel`, its last hop; a fragment is reassembled there. Only arrivals by the
    /// end of the run are reported.
    Delivered {
        /// The last hop's channel.
        channel: usize,
    },
    /// The packet (or a fragment of it) was dropped: by a queue, RED, or the loss
    /// model.
    Dropped {
        /// Why.
        cause: DropCause,
    },
}

/// Watches packet events. Calls come in the simulation's event order, with `now` the
/// simulation clock; `at` is when the event happens, which for everything decided at
/// admission (transmission, delivery, and events at channels a packet reaches by
/// cut-through) may lie ahead of `now`. No event reported later has an `at` before
/// the `now` of this call; the events of one packet come in the order of their `at`.
pub trait PacketObserver: Send + std::fmt::Debug {
    /// One event about `packet`. `ip_bytes` is the size of what moved: the packet, or
    /// the fragment of it (`fragment`).
    fn on_event(
        &mut self,
        now: SimTime,
        at: SimTime,
        event: PacketEvent,
        packet: &Packet,
        ip_bytes: u32,
        fragment: bool,
    );

    /// The run is over: write out what is buffered. Errors are the observer's own
    /// (e.g. a full disk while writing a capture).
    fn close(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
