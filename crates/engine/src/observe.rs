//! The observer hook: what happens to each packet, for whoever wants to watch — packet
//! capture ([`crate::pcap`]), reports, an emulator. The engine calls the observer, if
//! one is attached, at each event below; with none attached the cost is one
//! predictable branch per event: +0.5% instructions on benchmark B1. Hand-off at the
//! sending host and delivery at the receiving one are not reported yet: two more
//! branches per packet cost another 1.2%, more than an unattached hook may; they
//! need the observer as a type parameter of the simulation (no branch at all).

use crate::net::packet::Packet;
use crate::net::queue::DropCause;
use crate::time::SimTime;

/// What happened to a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketEvent {
    /// The packet's last bit left channel `channel` (link `channel / 2`; even:
    /// forward, odd: reverse): it was serialized onto the link, whatever happens to
    /// it afterwards. Only packets serialized by the end of the run are reported (as
    /// the channel's `tx_packets` counts them).
    Transmitted {
        /// The channel.
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
/// simulation clock; `at` is when the event happens, which for a transmission lies
/// ahead of `now` (the engine computes a packet's serialization when it is admitted).
/// No event reported later has an `at` before the `now` of this call.
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
