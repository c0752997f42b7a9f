//! The event queue: a binary min-heap ordered by (time, insertion sequence).
//!
//! Ties at equal times are broken by insertion order, so the run is deterministic
//! without depending on how events compare. Following htsim, components keep at most
//! one pending event each (a link direction schedules only the arrival of the *head*
//! of its pipe; an endpoint only its next wake-up), so the heap stays small: its size
//! is bounded by the number of components, not by the number of packets in flight.

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Something that happens at one instant. Kept small (8 bytes) and `Copy`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head packet of this link direction's propagation pipe reaches the far end.
    PipeArrival(u32),
    /// The endpoint with this index asked to be woken now (see `Endpoint::poll_at`).
    Wakeup(u32),
}

#[derive(Debug)]
struct Entry {
    time: SimTime,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap and we want the earliest first.
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

/// The pending events of one simulation.
#[derive(Debug, Default)]
pub struct Scheduler {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
    processed: u64,
}

impl Scheduler {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `event` at `time`. Events at the same time run in the order scheduled.
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
    }

    /// Time of the earliest pending event, if any.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    /// Removes and returns the earliest event if it is due at or before `until`.
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        if self.heap.peek()?.time > until {
            return None;
        }
        let e = self.heap.pop()?;
        self.processed += 1;
        Some((e.time, e.event))
    }

    /// Number of events handed out so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Number of events still pending.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// `true` when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earlier_events_come_first() {
        let mut s = Scheduler::new();
        s.schedule(SimTime(20), Event::Wakeup(2));
        s.schedule(SimTime(10), Event::Wakeup(1));
        assert_eq!(
            s.pop_until(SimTime(100)),
            Some((SimTime(10), Event::Wakeup(1)))
        );
        assert_eq!(
            s.pop_until(SimTime(100)),
            Some((SimTime(20), Event::Wakeup(2)))
        );
        assert_eq!(s.pop_until(SimTime(100)), None);
    }

    #[test]
    fn ties_break_by_insertion_order() {
        let mut s = Scheduler::new();
        for i in 0..50 {
            s.schedule(SimTime(5), Event::Wakeup(i));
        }
        for i in 0..50 {
            assert_eq!(
                s.pop_until(SimTime(5)),
                Some((SimTime(5), Event::Wakeup(i)))
            );
        }
    }

    #[test]
    fn pop_until_leaves_later_events() {
        let mut s = Scheduler::new();
        s.schedule(SimTime(11), Event::PipeArrival(0));
        assert_eq!(s.pop_until(SimTime(10)), None);
        assert_eq!(s.len(), 1);
    }
}
