//! One link direction driven by a real clock: the first piece of the emulation
//! backend (issue #14, ../shared/DESIGN.md "emu"). The simulator's own [`Channel`] —
//! queue discipline, serializer, loss model, propagation delay — decides each packet's
//! fate when it arrives and when it reaches the far end; this holds the packet's bytes
//! until then. A forwarder reading packets from a TUN device calls
//! [`RealtimeLink::arrive`] with the wall-clock time since its start and writes what
//! [`RealtimeLink::pop_due`] returns; nothing here reads a clock, so the same code is
//! tested here with made-up times and runs in the simulator with simulated ones.
//!
//! A link also checks its own pace ([`Pacing`]): while its serializer is busy its
//! packets are due exactly one serialization apart, and how far apart the caller
//! actually moved them on shows the rate the link achieved on the real clock.
//!
//! A channel decides everything at admission (its queue is FIFO and its serializer
//! deterministic, so a packet's departure is known when it is admitted), and its
//! arrivals come in admission order: a queue of (due time, bytes) is all the state a
//! real-time link needs.

use super::channel::{Channel, Offered};
use crate::time::SimTime;
use std::collections::VecDeque;

/// How closely a link kept its rate on the caller's clock: over every pair of its
/// packets sent back to back (the second was queued behind the first, so the model has
/// them leave one serialization time apart), the model's spacing against the spacing
/// of the times the caller popped them. Within a busy period the sums telescope to
/// its length in each clock, so scattered lateness cancels and only a caller falling
/// behind for good (an overloaded forwarder) lowers the achieved rate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pacing {
    /// Back-to-back pairs measured.
    pub intervals: u64,
    /// Their spacing in the model, summed, ns.
    pub model_ns: u64,
    /// Their spacing as popped, summed, ns.
    pub realized_ns: u64,
}

impl Pacing {
    /// The rate a link of `rate_bps` achieved: its rate scaled by model over realized
    /// time; `None` if it was never busy long enough to tell.
    pub fn achieved_bps(&self, rate_bps: u64) -> Option<f64> {
        (self.realized_ns > 0)
            .then(|| rate_bps as f64 * self.model_ns as f64 / self.realized_ns as f64)
    }
}

/// A link direction whose packets are real (`P`: the caller's packet type, for
/// instance its bytes and where they go next) and whose clock is the caller's.
#[derive(Debug)]
pub struct RealtimeLink<P> {
    channel: Channel,
    /// Admitted packets, when they reach the far end, and whether each was queued
    /// behind the one before (sent back to back), in that order.
    in_flight: VecDeque<(SimTime, bool, P)>,
    /// The latest arrival so far: a channel's clock never goes back.
    last_arrival: SimTime,
    /// The last packet popped: when it was due, and when it was popped.
    last_popped: Option<(SimTime, SimTime)>,
    pacing: Pacing,
}

impl<P> RealtimeLink<P> {
    /// The link direction `channel` models.
    pub fn new(channel: Channel) -> Self {
        RealtimeLink {
            channel,
            in_flight: VecDeque::new(),
            last_arrival: SimTime::ZERO,
            last_popped: None,
            pacing: Pacing::default(),
        }
    }

    /// An IP packet of `size` bytes arrives at the link's entrance at `now` (a time
    /// before an earlier arrival counts as that arrival's time). Returns what the
    /// channel decided; a packet it admits is kept until it is due.
    pub fn arrive(&mut self, now: SimTime, size: u32, packet: P) -> Offered {
        self.last_arrival = self.last_arrival.max(now);
        let queued = self.channel.busy_until() > self.last_arrival;
        let offered = self.channel.offer(self.last_arrival, size);
        if let Offered::Sent(due) = offered {
            self.in_flight.push_back((due, queued, packet));
        }
        offered
    }

    /// When the next packet reaches the far end, if one is on its way.
    pub fn next_due(&self) -> Option<SimTime> {
        self.in_flight.front().map(|&(t, _, _)| t)
    }

    /// The next packet and when it reaches the far end, if it is due by `now` (the
    /// time it is taken, for the link's [`Pacing`]).
    pub fn pop_due(&mut self, now: SimTime) -> Option<(SimTime, P)> {
        if self.next_due()? > now {
            return None;
        }
        let (due, queued, packet) = self.in_flight.pop_front()?;
        if let (true, Some((last_due, last_popped))) = (queued, self.last_popped) {
            self.pacing.intervals += 1;
            self.pacing.model_ns += (due - last_due).as_ns();
            self.pacing.realized_ns += now.as_ns().saturating_sub(last_popped.as_ns());
        }
        self.last_popped = Some((due, now));
        Some((due, packet))
    }

    /// How closely the link has kept its rate on the caller's clock so far.
    pub fn pacing(&self) -> Pacing {
        self.pacing
    }

    /// When the link's serializer finishes everything admitted so far.
    pub fn busy_until(&self) -> SimTime {
        self.channel.busy_until()
    }

    /// The channel, for its counters and series at the end of a run.
    pub fn channel_mut(&mut self) -> &mut Channel {
        &mut self.channel
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Amount, ChannelConfig, LossConfig, LossPlacement, QueueConfig, SizeUnit};
    use crate::metrics::bins::Binning;
    use crate::net::channel::ChannelSpec;

    const MS: u64 = 1_000_000;

    /// 10 Mb/s, 10 ms, a DropTail queue of `limit` packets, and `loss`.
    fn link(limit: u64, loss: LossConfig) -> RealtimeLink<Vec<u8>> {
        let spec = ChannelSpec {
            from: 0,
            to: 1,
            rate_bps: 10_000_000,
            delay: SimTime(10 * MS),
            mtu_bytes: 1500,
            framing_bytes: 0,
        };
        let config = ChannelConfig {
            queue: QueueConfig::Droptail {
                limit: Amount {
                    value: limit,
                    unit: SizeUnit::Packets,
                },
            },
            loss,
            loss_placement: LossPlacement::AfterSerialization,
            queue_origin: String::new(),
            loss_origin: String::new(),
        };
        let bins = Binning::new(SimTime(100 * MS), SimTime(100_000 * MS));
        RealtimeLink::new(Channel::new(spec, &config, 7, "test", bins))
    }

    /// Moves every packet due at or before `now` into `out`, oldest first.
    fn take_due(l: &mut RealtimeLink<Vec<u8>>, now: SimTime, out: &mut Vec<Vec<u8>>) {
        while let Some((_, packet)) = l.pop_due(now) {
            out.push(packet);
        }
    }

    fn packet(i: u32) -> Vec<u8> {
        let mut p = vec![0u8; 1000];
        p[..4].copy_from_slice(&i.to_be_bytes());
        p
    }

    /// Below the link's rate every 1,000-byte packet is due its serialization (0.8 ms
    /// at 10 Mb/s) plus the 10 ms propagation after it arrives, with its bytes intact.
    #[test]
    fn a_light_load_sees_serialization_plus_delay() {
        let mut l = link(50, LossConfig::None);
        let mut out = Vec::new();
        for i in 0..100u32 {
            let now = SimTime(i as u64 * 1_600_000); // 5 Mb/s
            assert_eq!(
                l.arrive(now, 1000, packet(i)),
                Offered::Sent(now + SimTime(10_800_000))
            );
        }
        assert_eq!(l.next_due(), Some(SimTime(10_800_000)));
        take_due(&mut l, SimTime(10_800_000 + 1_600_000 - 1), &mut out);
        assert_eq!(out, vec![packet(0)]);
        take_due(&mut l, SimTime(1_000 * MS), &mut out);
        assert_eq!(out.len(), 100);
        assert!(out.iter().enumerate().all(|(i, p)| *p == packet(i as u32)));
        assert_eq!(l.next_due(), None);
    }

    /// Twice the link's rate into a 50-packet queue: once the queue is full, departures
    /// are one serialization time (0.8 ms) apart, every second packet is dropped, and
    /// what was offered is what left, what was dropped, and what is still inside.
    #[test]
    fn an_overload_fills_the_queue_and_drops_the_excess() {
        let mut l = link(50, LossConfig::None);
        let mut dues = Vec::new();
        for i in 0..1000u32 {
            if let Offered::Sent(t) = l.arrive(SimTime(i as u64 * 400_000), 1000, packet(i)) {
                dues.push(t);
            }
        }
        let tail = &dues[dues.len() - 100..];
        assert!(tail.windows(2).all(|w| w[1] - w[0] == SimTime(800_000)));
        let dropped = l.channel_mut().counters.drops.iter().sum::<u64>();
        // 1000 packets over 0.4 s: the link serializes 0.4 s / 0.8 ms = 500 of them
        // (and one more starting), the queue holds 50, the rest is dropped.
        assert!((448..=450).contains(&dropped), "{dropped}");
        assert_eq!(dues.len() as u64 + dropped, 1000);
        let mut out = Vec::new();
        take_due(&mut l, SimTime(1_000 * MS), &mut out);
        assert_eq!(out.len(), dues.len());
    }

    /// Three 1,000-byte packets arriving together leave 0.8 ms apart in the model;
    /// popped 0, 0.1 and 0.5 ms late, the two back-to-back intervals span 1.6 ms of
    /// model and 2.1 ms of real time: 10 Mb/s × 1.6 / 2.1. A fourth packet arriving
    /// after the link went idle starts a new busy period and adds no interval.
    #[test]
    fn pacing_compares_back_to_back_spacing_with_the_model() {
        let mut l = link(50, LossConfig::None);
        for i in 0..3 {
            l.arrive(SimTime::ZERO, 1000, packet(i));
        }
        l.arrive(SimTime(100 * MS), 1000, packet(3));
        let due = |k: u64| SimTime(10 * MS + (k + 1) * 800_000);
        for (k, late) in [(0, 0), (1, 100_000), (2, 500_000)] {
            assert_eq!(l.pop_due(due(k) + SimTime(late)).unwrap().0, due(k));
        }
        assert_eq!(
            l.pop_due(SimTime(200 * MS)).unwrap().0,
            SimTime(110_800_000)
        );
        let p = l.pacing();
        assert_eq!(
            (p.intervals, p.model_ns, p.realized_ns),
            (2, 1_600_000, 2_100_000)
        );
        let achieved = p.achieved_bps(10_000_000).unwrap();
        assert!((achieved - 10e6 * 1.6 / 2.1).abs() < 1e-6, "{achieved}");
        assert_eq!(Pacing::default().achieved_bps(10_000_000), None);
    }

    /// The channel's loss model acts here as in the simulator: a seeded Bernoulli loss
    /// of 10% destroys about a tenth of 5,000 packets, and never the order of the rest.
    #[test]
    fn random_loss_drops_its_share() {
        let mut l = link(1000, LossConfig::Bernoulli { rate: 0.1 });
        let mut kept = 0u32;
        for i in 0..5000u32 {
            if let Offered::Sent(_) = l.arrive(SimTime(i as u64 * 1_600_000), 1000, packet(i)) {
                kept += 1;
            }
        }
        let lost = 5000 - kept;
        assert!((400..600).contains(&lost), "{lost}");
        let mut out = Vec::new();
        take_due(&mut l, SimTime(100_000 * MS), &mut out);
        let ids: Vec<u32> = out
            .iter()
            .map(|p| u32::from_be_bytes(p[..4].try_into().unwrap()))
            .collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
    }
}
