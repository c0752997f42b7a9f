//! The event queue: a binary min-heap ordered by (time, insertion sequence).
//!
//! Ties at equal times are broken by insertion order, so the run is deterministic
//! without depending on how events compare. Following htsim, components keep at most
//! one pending event each (a link direction schedules only the arrival of the *head*
//! of its pipe; an endpoint only its next wake-up), so the heap stays small: its size
//! is bounded by the number of components, not by the number of packets in flight.

use crate::time::SimTime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Something that happens at one instant. Kept small (8 bytes) and `Copy`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head packet of this link direction's propagation pipe reaches the far end.
    PipeArrival(u32),
    /// The endpoint with this index asked to be woken now (see `Endpoint::poll_at`).
    Wakeup(u32),
}

/// Bits of a key holding the event (kind + component index) below the sequence number.
const EVENT_BITS: u32 = 24;
/// Largest component index an event can name (channels and endpoints): 2^23 − 1.
pub const MAX_COMPONENT_INDEX: u32 = (1 << (EVENT_BITS - 1)) - 1;

/// Packs an entry into one integer whose order is (time, insertion sequence): time in
/// the high 64 bits, then a 40-bit sequence number, then the event. Comparing 16-byte
/// integers keeps the heap small and its sift loops tight.
fn key(time: SimTime, seq: u64, event: Event) -> u128 {
    let (kind, index) = match event {
        Event::PipeArrival(i) => (0u64, i),
        Event::Wakeup(i) => (1u64, i),
    };
    debug_assert!(index <= MAX_COMPONENT_INDEX);
    let low = (seq << EVENT_BITS) | (kind << (EVENT_BITS - 1)) | index as u64;
    ((time.as_ns() as u128) << 64) | low as u128
}

fn unkey(k: u128) -> (SimTime, Event) {
    let time = SimTime((k >> 64) as u64);
    let low = k as u64;
    let index = (low & MAX_COMPONENT_INDEX as u64) as u32;
    let event = if low >> (EVENT_BITS - 1) & 1 == 0 {
        Event::PipeArrival(index)
    } else {
        Event::Wakeup(index)
    };
    (time, event)
}

/// The pending events of one simulation.
#[derive(Debug, Default)]
pub struct Scheduler {
    heap: BinaryHeap<Reverse<u128>>,
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
        self.heap.push(Reverse(key(time, seq, event)));
    }

    /// Time of the earliest pending event, if any.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|Reverse(k)| unkey(*k).0)
    }

    /// Removes and returns the earliest event if it is due at or before `until`.
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        let due = self.next_due(until)?;
        self.heap.pop();
        Some(due)
    }

    /// Returns the earliest event if it is due at or before `until`, leaving it in the
    /// queue: the caller must then either [`Scheduler::remove_next`] it or
    /// [`Scheduler::replace_next`] it before scheduling anything else.
    pub fn next_due(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        let Reverse(k) = *self.heap.peek()?;
        if (k >> 64) as u64 > until.as_ns() {
            return None;
        }
        self.processed += 1;
        Some(unkey(k))
    }

    /// Drops the event returned by [`Scheduler::next_due`].
    pub fn remove_next(&mut self) {
        self.heap.pop();
    }

    /// Replaces the event returned by [`Scheduler::next_due`] with `event` at `time`:
    /// the same order as removing it and then scheduling the new one, at the cost of
    /// one sift instead of two. A link's next pipe arrival takes this path.
    pub fn replace_next(&mut self, time: SimTime, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        if let Some(mut top) = self.heap.peek_mut() {
            *top = Reverse(key(time, seq, event));
        }
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
    fn keys_round_trip_every_field() {
        for event in [
            Event::PipeArrival(0),
            Event::Wakeup(MAX_COMPONENT_INDEX),
            Event::PipeArrival(12345),
        ] {
            let k = key(SimTime(987_654_321), (1 << 39) + 5, event);
            assert_eq!(unkey(k), (SimTime(987_654_321), event));
        }
    }

    #[test]
    fn replacing_the_next_event_orders_like_remove_then_schedule() {
        let mut a = Scheduler::new();
        let mut b = Scheduler::new();
        for s in [&mut a, &mut b] {
            s.schedule(SimTime(10), Event::PipeArrival(1));
            s.schedule(SimTime(30), Event::Wakeup(2));
            s.schedule(SimTime(30), Event::Wakeup(3));
        }
        assert_eq!(
            a.next_due(SimTime(100)),
            Some((SimTime(10), Event::PipeArrival(1)))
        );
        a.replace_next(SimTime(30), Event::PipeArrival(1));
        assert_eq!(
            b.pop_until(SimTime(100)),
            Some((SimTime(10), Event::PipeArrival(1)))
        );
        b.schedule(SimTime(30), Event::PipeArrival(1));
        let order = [Event::Wakeup(2), Event::Wakeup(3), Event::PipeArrival(1)];
        for s in [&mut a, &mut b] {
            for e in order {
                assert_eq!(s.pop_until(SimTime(100)), Some((SimTime(30), e)));
            }
        }
    }

    /// Against a sorted list as the reference: a long random mix of schedules, pops
    /// and replacements comes out in (time, insertion) order.
    #[test]
    fn random_operations_match_a_sorted_reference() {
        // Reference entries are (time, seq, id); ids from 1,000,000 are pipe arrivals.
        let event = |id: u32| {
            if id >= 1_000_000 {
                Event::PipeArrival(id - 1_000_000)
            } else {
                Event::Wakeup(id)
            }
        };
        let mut s = Scheduler::new();
        let mut reference: Vec<(u64, u64, u32)> = Vec::new();
        let mut seq = 0u64;
        let mut x: u64 = 12345;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for step in 0..20_000u32 {
            let r = next();
            let t = r % 1000 + step as u64 / 10;
            match r % 5 {
                0..=2 => {
                    s.schedule(SimTime(t), Event::Wakeup(step % 1000));
                    reference.push((t, seq, step % 1000));
                    seq += 1;
                }
                3 => {
                    reference.sort();
                    let expected = (!reference.is_empty()).then(|| reference.remove(0));
                    let got = s.pop_until(SimTime(u64::MAX >> 1));
                    assert_eq!(got, expected.map(|(t, _, i)| (SimTime(t), event(i))));
                }
                _ => {
                    reference.sort();
                    if let Some(due) = s.next_due(SimTime(u64::MAX >> 1)) {
                        let (rt, _, ri) = reference.remove(0);
                        assert_eq!(due, (SimTime(rt), event(ri)));
                        s.replace_next(SimTime(t), Event::PipeArrival(step % 1000));
                        reference.push((t, seq, 1_000_000 + step % 1000));
                        seq += 1;
                    }
                }
            }
        }
        reference.sort();
        for (t, _, i) in reference {
            assert_eq!(
                s.pop_until(SimTime(u64::MAX >> 1)),
                Some((SimTime(t), event(i)))
            );
        }
        assert!(s.is_empty());
    }

    #[test]
    fn pop_until_leaves_later_events() {
        let mut s = Scheduler::new();
        s.schedule(SimTime(11), Event::PipeArrival(0));
        assert_eq!(s.pop_until(SimTime(10)), None);
        assert_eq!(s.len(), 1);
    }
}
