//! Transport endpoints and how they plug into the engine.
//!
//! A transport is written sans-IO, in smoltcp's style: an [`Endpoint`] reacts to a
//! packet ([`Endpoint::on_packet`]) or to its own deadline ([`Endpoint::on_wakeup`]) by
//! writing what it wants to send and deliver into an [`Outbox`], and says when it next
//! needs waking ([`Endpoint::poll_at`]). It never sees the event queue, links or other
//! flows, so TCP, SCTP and their congestion controls plug in as new endpoint types
//! without touching the engine core — and the same endpoints could be driven in real
//! time. Each flow has two endpoints: the sender at its source and the receiver at its
//! destination; forward packets go sender → receiver, reverse packets come back.

pub mod udp;

use crate::net::packet::TransportHeader;
use crate::time::SimTime;

/// A packet an endpoint asks the network to carry.
#[derive(Debug, Clone, Copy)]
pub struct Outgoing {
    /// IP packet size: IP header + transport header + payload.
    pub size_bytes: u32,
    /// Transport header fields.
    pub header: TransportHeader,
}

/// Where an endpoint writes its reactions. Reused between calls: no allocation in
/// steady state.
#[derive(Debug, Default)]
pub struct Outbox {
    packets: Vec<Outgoing>,
    delivered_bytes: u64,
}

impl Outbox {
    /// An empty outbox.
    pub fn new() -> Self {
        Self::default()
    }

    /// Queue a packet for transmission (sent in call order, at the current time).
    pub fn send(&mut self, size_bytes: u32, header: TransportHeader) {
        self.packets.push(Outgoing { size_bytes, header });
    }

    /// Report `bytes` of in-order payload handed to the receiving application.
    pub fn deliver(&mut self, bytes: u64) {
        self.delivered_bytes += bytes;
    }

    /// Takes the delivered-byte count, leaving zero.
    pub(crate) fn take_delivered(&mut self) -> u64 {
        std::mem::take(&mut self.delivered_bytes)
    }

    /// Drains the packets queued so far.
    pub(crate) fn drain_packets(&mut self) -> std::vec::Drain<'_, Outgoing> {
        self.packets.drain(..)
    }
}

/// One end of a flow.
///
/// Wake-ups may come early or twice; an endpoint must act only on deadlines that have
/// really passed (the engine re-asks `poll_at` after every call).
pub trait Endpoint: std::fmt::Debug + Send {
    /// A packet of this flow arrived for this endpoint.
    fn on_packet(&mut self, now: SimTime, header: &TransportHeader, out: &mut Outbox);

    /// The time from `poll_at` (or later) has come.
    fn on_wakeup(&mut self, now: SimTime, out: &mut Outbox);

    /// When the endpoint next needs `on_wakeup`, if ever.
    fn poll_at(&self) -> Option<SimTime>;
}
