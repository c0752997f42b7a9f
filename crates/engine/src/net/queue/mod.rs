//! Output queues of link directions: a FIFO of packet ids plus an admission policy.
//!
//! The queue holds the packets *waiting* for the link; the packet being serialized has
//! already left it (ns-2's convention, so limits mean the same in both tools). Queues
//! are driven only by `now` and packet sizes, never by the event loop, so the future
//! real-time emulator can reuse them unchanged.

mod droptail;
mod red;

pub use droptail::DropTail;
pub use red::Red;

use crate::config::{Amount, QueueConfig, SizeUnit};
use crate::net::packet::PacketId;
use crate::rng::Rng;
use crate::time::SimTime;
use std::collections::VecDeque;

/// Why a packet was dropped.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// The queue was full (tail drop, or RED's hard limit).
    Queue,
    /// RED dropped it early (probabilistic or forced by the average queue).
    Red,
    /// The link's loss model lost it.
    Random,
}

impl DropCause {
    /// Index into per-cause counter arrays: queue, red, random.
    pub fn index(self) -> usize {
        match self {
            DropCause::Queue => 0,
            DropCause::Red => 1,
            DropCause::Random => 2,
        }
    }
}

/// Whether a queue holding `len_packets` / `len_bytes` has room for `size_bytes` more.
pub(crate) fn has_room(limit: Amount, len_packets: u64, len_bytes: u64, size_bytes: u32) -> bool {
    match limit.unit {
        SizeUnit::Packets => len_packets < limit.value,
        SizeUnit::Bytes => len_bytes + size_bytes as u64 <= limit.value,
    }
}

/// The admission policy of a queue.
#[derive(Debug)]
pub enum Discipline {
    /// Tail drop.
    DropTail(DropTail),
    /// Random Early Detection.
    Red(Box<Red>),
}

/// A FIFO output queue with its discipline.
#[derive(Debug)]
pub struct OutputQueue {
    fifo: VecDeque<(PacketId, u32)>,
    bytes: u64,
    discipline: Discipline,
}

impl OutputQueue {
    /// A queue built from its configuration. `link_rate_bps` lets RED age its average
    /// over idle periods; `rng` is the queue's own random stream (used by RED only).
    pub fn new(config: &QueueConfig, link_rate_bps: u64, rng: Rng) -> Self {
        let discipline = match config {
            QueueConfig::Droptail { limit } => Discipline::DropTail(DropTail::new(*limit)),
            QueueConfig::Red(red) => Discipline::Red(Box::new(Red::new(red, link_rate_bps, rng))),
        };
        let capacity_hint = match config {
            QueueConfig::Droptail { limit }
            | QueueConfig::Red(crate::config::RedConfig { limit, .. }) => match limit.unit {
                SizeUnit::Packets => limit.value.min(4096) as usize,
                SizeUnit::Bytes => (limit.value / 1500).min(4096) as usize,
            },
        };
        OutputQueue {
            fifo: VecDeque::with_capacity(capacity_hint + 1),
            bytes: 0,
            discipline,
        }
    }

    /// Offers a packet; on success it joins the tail, otherwise the cause is returned
    /// and the caller disposes of the packet.
    pub fn enqueue(
        &mut self,
        now: SimTime,
        id: PacketId,
        size_bytes: u32,
    ) -> Result<(), DropCause> {
        let len = self.fifo.len() as u64;
        let admitted = match &mut self.discipline {
            Discipline::DropTail(dt) => dt.admit(len, self.bytes, size_bytes),
            Discipline::Red(red) => red.admit(now, len, self.bytes, size_bytes),
        };
        admitted?;
        self.fifo.push_back((id, size_bytes));
        self.bytes += size_bytes as u64;
        Ok(())
    }

    /// Takes the head packet for transmission.
    pub fn dequeue(&mut self) -> Option<(PacketId, u32)> {
        let (id, size) = self.fifo.pop_front()?;
        self.bytes -= size as u64;
        Some((id, size))
    }

    /// Tells the queue its link went idle with nothing to send (RED starts ageing).
    pub fn on_link_idle(&mut self, now: SimTime) {
        if let Discipline::Red(red) = &mut self.discipline {
            red.on_idle(now);
        }
    }

    /// Packets waiting.
    pub fn len_packets(&self) -> u64 {
        self.fifo.len() as u64
    }

    /// Bytes waiting.
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }

    /// The packets waiting, head first (for end-of-run accounting).
    pub fn ids(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.fifo.iter().map(|&(id, _)| id)
    }

    /// RED's current average queue, if this is a RED queue.
    pub fn red_average(&self) -> Option<f64> {
        match &self.discipline {
            Discipline::Red(red) => Some(red.average()),
            Discipline::DropTail(_) => None,
        }
    }
}
