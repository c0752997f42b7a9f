//! Output queues of link directions: the packets waiting for the link plus an
//! admission policy (DropTail, RED).
//!
//! The queue holds the packets *waiting* for the link; the packet being serialized has
//! already left it (ns-2's convention, so limits mean the same in both tools). Queues
//! are driven only by `now` and packet sizes, never by the event loop, so the future
//! real-time emulator can reuse them unchanged.

mod droptail;
mod red;

pub use droptail::DropTail;
pub use red::{AutoParams, Red};

use crate::config::{Amount, QueueConfig, SizeUnit};
use crate::metrics::DropCause;
use crate::rng::Rng;
use crate::time::SimTime;
use std::collections::VecDeque;

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

/// Packets a queue has room for before its first growth.
const INITIAL_CAPACITY: u64 = 32;

/// The packets waiting for a link direction, each with the time its serialization
/// will start, plus the admission policy.
///
/// The serializer works at a constant rate in FIFO order, so a packet's start time is
/// known when it is admitted; the queue therefore needs no events: packets whose start
/// time has come are removed lazily (`drain_started`) before anything looks at it.
#[derive(Debug)]
pub struct OutputQueue {
    waiting: VecDeque<(SimTime, u32)>,
    bytes: u64,
    discipline: Discipline,
}

impl OutputQueue {
    /// A queue built from its configuration. The link's rate and delay let RED age its
    /// average over idle periods and configure itself; `rng` is the queue's own random
    /// stream (used by RED only).
    pub fn new(config: &QueueConfig, link_rate_bps: u64, link_delay: SimTime, rng: Rng) -> Self {
        let discipline = match config {
            QueueConfig::Droptail { limit } => Discipline::DropTail(DropTail::new(*limit)),
            QueueConfig::Red(red) => {
                Discipline::Red(Box::new(Red::new(red, link_rate_bps, link_delay, rng)))
            }
        };
        let limit = config.limit();
        // A small start, grown by doubling as the queue first fills: a queue's worst
        // occupancy is reached within its first busy periods, and reserving the limit
        // up front cost 16 kB per link direction — most of the memory of a network
        // with tens of thousands of mostly idle access links.
        let capacity_hint = match limit.unit {
            SizeUnit::Packets => limit.value.min(INITIAL_CAPACITY) as usize,
            SizeUnit::Bytes => (limit.value / 1500).min(INITIAL_CAPACITY) as usize,
        };
        OutputQueue {
            waiting: VecDeque::with_capacity(capacity_hint + 1),
            bytes: 0,
            discipline,
        }
    }

    /// Removes the packets whose serialization has started by `now`, reporting each
    /// removal (start time, packets and bytes left) to `on_change`, in time order.
    pub fn drain_started(&mut self, now: SimTime, mut on_change: impl FnMut(SimTime, u64, u64)) {
        while let Some(&(start, size)) = self.waiting.front() {
            if start > now {
                break;
            }
            self.waiting.pop_front();
            self.bytes -= size as u64;
            on_change(start, self.waiting.len() as u64, self.bytes);
        }
    }

    /// Decides on a packet of `size_bytes` arriving now. `idle_since` is when the link
    /// went idle, if it is idle (RED ages its average over that time). Call after
    /// `drain_started(now)`.
    pub fn admit(
        &mut self,
        now: SimTime,
        size_bytes: u32,
        idle_since: Option<SimTime>,
    ) -> Result<(), DropCause> {
        let len = self.waiting.len() as u64;
        match &mut self.discipline {
            Discipline::DropTail(dt) => dt.admit(len, self.bytes, size_bytes),
            Discipline::Red(red) => {
                if let Some(t) = idle_since {
                    red.on_idle(t);
                }
                red.admit(now, len, self.bytes, size_bytes)
            }
        }
    }

    /// Adds an admitted packet that must wait until `start` for the link.
    pub fn push_waiting(&mut self, start: SimTime, size_bytes: u32) {
        self.waiting.push_back((start, size_bytes));
        self.bytes += size_bytes as u64;
    }

    /// Packets waiting.
    pub fn len_packets(&self) -> u64 {
        self.waiting.len() as u64
    }

    /// Bytes waiting.
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }
}
