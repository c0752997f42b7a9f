//! What a host's first link still holds of one endpoint's packets — queued, or being
//! serialized — for senders that hold back while too much of theirs waits there.
//!
//! This is what Linux's TCP Small Queues reads (`tcp_small_queue_check` in
//! net/ipv4/tcp_output.c, since 3.6): a socket's `sk_wmem_alloc` counts the bytes of
//! its packets handed to the qdisc and the device and not yet freed by the device's
//! transmit completion. A channel knows when each admitted packet's serialization ends
//! (see [`crate::net::channel`]), so the engine records that time per packet, and the
//! backlog at any instant is what has not ended yet. The engine keeps one only for
//! endpoints that ask ([`crate::transport::Endpoint::watches_host_backlog`]).

use crate::time::SimTime;
use std::collections::VecDeque;

/// One endpoint's packets on its host's first link, in the link's FIFO order.
#[derive(Debug, Default)]
pub struct HostBacklog {
    /// Each packet's serialization end and IP bytes, oldest first.
    pending: VecDeque<(SimTime, u32)>,
    /// The bytes of `pending`.
    bytes: u64,
}

impl HostBacklog {
    /// An empty backlog.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a packet of `bytes` the link admitted, whose serialization ends at
    /// `done_at`. Admissions to one link come in FIFO order, so `done_at` never
    /// decreases.
    pub fn push(&mut self, done_at: SimTime, bytes: u32) {
        debug_assert!(self.pending.back().is_none_or(|&(t, _)| t <= done_at));
        self.pending.push_back((done_at, bytes));
        self.bytes += bytes as u64;
    }

    /// The bytes still on the link at `now` (a packet whose serialization ends at
    /// `now` has left it: its transmit completion has come).
    pub fn bytes_at(&mut self, now: SimTime) -> u64 {
        while let Some(&(done_at, bytes)) = self.pending.front() {
            if done_at > now {
                break;
            }
            self.pending.pop_front();
            self.bytes -= bytes as u64;
        }
        self.bytes
    }

    /// When the oldest packet still on the link leaves it, if any: the next instant
    /// the backlog shrinks.
    pub fn next_completion(&self) -> Option<SimTime> {
        self.pending.front().map(|&(t, _)| t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_leave_at_the_end_of_their_serialization() {
        // Three 1,500-byte packets on a 12 Mb/s link (1 ms each), admitted at 0 while
        // idle: they end at 1, 2 and 3 ms.
        let mut b = HostBacklog::new();
        for k in 1..=3 {
            b.push(SimTime::from_ms(k), 1500);
        }
        assert_eq!(b.bytes_at(SimTime::ZERO), 4500);
        assert_eq!(b.bytes_at(SimTime::from_ns(999_000)), 4500);
        assert_eq!(b.bytes_at(SimTime::from_ms(1)), 3000);
        assert_eq!(b.next_completion(), Some(SimTime::from_ms(2)));
        assert_eq!(b.bytes_at(SimTime::from_ms(5)), 0);
        assert_eq!(b.next_completion(), None);
    }
}
