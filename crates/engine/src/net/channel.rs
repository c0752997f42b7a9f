//! One direction of a point-to-point link: output queue → serializer → loss → pipe.
//!
//! The serializer sends in FIFO order at a constant rate, so when a packet is admitted
//! its whole future is known: it starts when the link is free (`busy_until`), ends one
//! serialization time later, and reaches the far end one propagation delay after
//! that. The channel therefore schedules no per-packet transmission events: admitted
//! packets go straight into the "pipe" (ordered by arrival time) and only the pipe's
//! head has an event in the scheduler (htsim's pipe). The queue is what lies between
//! now and each packet's start time, drained lazily. Methods take `now` and return the
//! times the caller must schedule; the channel never touches the event loop itself.
//!
//! Two variants reuse the same machinery: a channel of rate 0 is *instantaneous* (no
//! serialization, no queueing: the delivery side of a shared segment), and a channel
//! on a shared medium starts each packet no earlier than the medium is free
//! ([`Channel::offer_on_medium`], see [`crate::net::medium`]).

use crate::config::{ChannelConfig, LossConfig, LossPlacement};
use crate::metrics::DropCause;
use crate::metrics::{BinCounts, BinSum, Binning, QueueMeter};
use crate::net::loss::LossModel;
use crate::net::packet::{InFlight, PacketId};
use crate::net::queue::OutputQueue;
use crate::rng::Rng;
use crate::time::{serialization_time, SimTime};
use std::collections::VecDeque;

/// Static properties of a channel.
#[derive(Debug, Clone, Copy)]
pub struct ChannelSpec {
    /// Upstream node index.
    pub from: u32,
    /// Downstream node index.
    pub to: u32,
    /// Bit rate; 0 for an instantaneous channel (no serialization).
    pub rate_bps: u64,
    /// Propagation delay.
    pub delay: SimTime,
    /// Largest IP packet carried, bytes.
    pub mtu_bytes: u32,
    /// Link-layer bytes added per packet on the wire.
    pub framing_bytes: u32,
}

/// Traffic counters of a channel. The per-packet ones come first, next to the rest of
/// the channel's hot state (see [`Channel`]'s layout).
#[derive(Debug, Clone, Default)]
#[repr(C)]
pub struct ChannelCounters {
    /// Packets fully serialized onto the link by the end of the run (lost ones included).
    pub tx_packets: u64,
    /// IP bytes of those packets.
    pub tx_bytes: u64,
    /// Time the serializer was busy, ns (for utilisation).
    pub busy_ns: u64,
    /// Drops by cause: queue, RED, random.
    pub drops: [u64; 3],
    /// Packets split into fragments on entering this channel.
    pub fragmented_packets: u64,
    /// Per bin: IP bytes whose serialization ended in the bin.
    pub bin_tx_bytes: BinCounts,
    /// Per bin: drops of any cause.
    pub bin_drops: BinCounts,
}

/// What happened to a packet offered to the channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offered {
    /// Admitted: it reaches the far end at this time. The caller either puts it in the
    /// pipe ([`Channel::enter_pipe`]) or hands it straight to the next channel (see
    /// `Simulation::cut_through` for when that is allowed).
    Sent(SimTime),
    /// Refused by the queue.
    Dropped(DropCause),
    /// Serialized but destroyed by the loss model when its transmission ends (at this time).
    Lost(SimTime),
}

/// One link direction.
///
/// The fields are laid out by hand (`repr(C)`), in the order a packet's offer reads
/// them, so that an offer touches the first few cache lines and nothing else: with a
/// thousand flows the channels are far out of cache and every further line touched is
/// a miss (benchmarks/README.md, profile). Per-bin series and rarely used state last.
#[derive(Debug)]
#[repr(C)]
pub struct Channel {
    /// When the serializer finishes everything admitted so far.
    busy_until: SimTime,
    /// The last packet size and its serialization time (most packets repeat it).
    last_serialization: (u32, SimTime),
    /// Static properties.
    pub spec: ChannelSpec,
    /// Admitted packets in arrival order, with their arrival time at the far end.
    pipe: VecDeque<(SimTime, InFlight)>,
    queue: OutputQueue,
    /// The bin in progress of `counters.bin_tx_bytes`.
    tx_bin: BinSum,
    bins: Binning,
    /// `None` for a lossless link, the common case: one null check in hot memory.
    loss: Option<Box<LossModel>>,
    /// The loss model acts before the queue (ns-2's `lossmodel`) instead of after
    /// serialization.
    loss_before_queue: bool,
    /// The shared medium this channel transmits on, if any (index into the
    /// simulation's media).
    pub medium: Option<u32>,
    /// Traffic counters.
    pub counters: ChannelCounters,
    /// Queue occupancy over time.
    pub meter: QueueMeter,
}

impl Channel {
    /// A channel with its queue and loss model; `name` seeds their random streams.
    pub fn new(
        spec: ChannelSpec,
        config: &ChannelConfig,
        seed: u64,
        name: &str,
        bins: Binning,
    ) -> Self {
        Channel {
            spec,
            queue: OutputQueue::new(
                &config.queue,
                spec.rate_bps,
                spec.delay,
                Rng::for_component(seed, &format!("queue:{name}")),
            ),
            loss: (!matches!(config.loss, LossConfig::None)).then(|| {
                Box::new(LossModel::new(
                    &config.loss,
                    Rng::for_component(seed, &format!("loss:{name}")),
                ))
            }),
            loss_before_queue: config.loss_placement == LossPlacement::BeforeQueue,
            medium: None,
            busy_until: SimTime::ZERO,
            pipe: VecDeque::new(),
            last_serialization: (0, SimTime::ZERO),
            bins,
            tx_bin: BinSum::new(&bins),
            counters: ChannelCounters {
                bin_tx_bytes: BinCounts::zeros(bins.count),
                bin_drops: BinCounts::zeros(bins.count),
                ..Default::default()
            },
            meter: QueueMeter::new(bins),
        }
    }

    fn serialization(&mut self, ip_bytes: u32) -> SimTime {
        if self.last_serialization.0 != ip_bytes {
            let wire = (ip_bytes + self.spec.framing_bytes) as u64;
            let time = match self.spec.rate_bps {
                0 => SimTime::ZERO, // instantaneous
                rate => serialization_time(wire, rate),
            };
            self.last_serialization = (ip_bytes, time);
        }
        self.last_serialization.1
    }

    /// When the serializer finishes everything admitted so far (the past if idle).
    pub fn busy_until(&self) -> SimTime {
        self.busy_until
    }

    /// Packets refused so far without taking the link: dropped by the queue (tail drop,
    /// RED) or lost before it. An offer that leaves this unchanged was admitted, and
    /// its serialization ends at [`Channel::busy_until`] (a loss on the wire comes after
    /// that). Read where the engine tracks a host backlog, never per packet.
    pub fn refused_packets(&self) -> u64 {
        let [queue, red, random] = self.counters.drops;
        queue + red + if self.loss_before_queue { random } else { 0 }
    }

    /// Counts a drop at this channel at time `at` (the caller disposes of the packet).
    fn count_drop(&mut self, at: SimTime, cause: DropCause) {
        self.counters.drops[cause.index()] += 1;
        self.counters.bin_drops.add(self.bins.index(at), 1);
    }

    /// Brings the queue up to `now`: packets whose serialization has begun leave it.
    fn drain(&mut self, now: SimTime) {
        let meter = &mut self.meter;
        self.queue
            .drain_started(now, |t, packets, bytes| meter.set(t, packets, bytes));
    }

    /// Offers an IP packet of `size` bytes (≤ MTU) at `now`. Successive offers must
    /// come in time order. Inlined into the engine's offer: it runs at every hop of
    /// every packet, and its call was ~4% of B1's instructions.
    #[inline(always)]
    pub fn offer(&mut self, now: SimTime, size: u32) -> Offered {
        if self.loss_before_queue && self.loss.as_mut().is_some_and(|l| l.lose()) {
            self.count_drop(now, DropCause::Random);
            return Offered::Lost(now);
        }
        self.drain(now);
        let idle_since = (self.busy_until <= now).then_some(self.busy_until);
        if let Err(cause) = self.queue.admit(now, size, idle_since) {
            self.count_drop(now, cause);
            return Offered::Dropped(cause);
        }
        let start = self.busy_until.max(now);
        let serialization = self.serialization(size);
        let end = start + serialization;
        self.busy_until = end;
        if start > now {
            self.queue.push_waiting(start, size);
            self.meter
                .set(now, self.queue.len_packets(), self.queue.len_bytes());
        }
        if end <= self.bins.duration {
            let c = &mut self.counters;
            c.tx_packets += 1;
            c.tx_bytes += size as u64;
            c.busy_ns += serialization.as_ns();
            self.tx_bin
                .add(&self.bins, end, size as u64, &mut c.bin_tx_bytes);
        }
        // Loss models decide per packet in FIFO order, exactly as if at the end of
        // serialization: the packet still used the link.
        if !self.loss_before_queue && self.loss.as_mut().is_some_and(|l| l.lose()) {
            self.count_drop(end, DropCause::Random);
            return Offered::Lost(end);
        }
        Offered::Sent(end + self.spec.delay)
    }

    /// [`Channel::offer`] on a shared medium that is busy until `*medium_busy_until`:
    /// the packet cannot start before the medium is free, and if admitted it keeps the
    /// medium busy until its serialization ends. Offers to all channels of one medium
    /// must come in time order (no cut-through into them).
    pub fn offer_on_medium(
        &mut self,
        now: SimTime,
        size: u32,
        medium_busy_until: &mut SimTime,
    ) -> Offered {
        self.busy_until = self.busy_until.max(*medium_busy_until);
        let offered = self.offer(now, size);
        *medium_busy_until = self.busy_until;
        offered
    }

    /// Puts an admitted packet into the pipe, to be handed on at `arrival` (as returned
    /// by [`Channel::offer`]). Returns `Some(arrival)` when the pipe was empty: the
    /// caller must schedule the arrival, since only the pipe's head has an event.
    pub fn enter_pipe(&mut self, arrival: SimTime, packet: InFlight) -> Option<SimTime> {
        let schedule = self.pipe.is_empty().then_some(arrival);
        self.pipe.push_back((arrival, packet));
        schedule
    }

    /// Removes the pipe's head, which arrives now; returns it and, if another packet
    /// is on its way, the time its arrival must be scheduled.
    pub fn pop_arrival(&mut self) -> (InFlight, Option<SimTime>) {
        let (_, packet) = self
            .pipe
            .pop_front()
            .expect("PipeArrival with an empty pipe");
        if let Some(after_next) = self.pipe.get(1) {
            crate::prefetch::prefetch(after_next);
        }
        (packet, self.pipe.front().map(|&(t, _)| t))
    }

    /// The packet at the head of the pipe (the next to arrive), if any.
    pub fn next_arrival(&self) -> Option<InFlight> {
        self.pipe.front().map(|&(_, p)| p)
    }

    /// Every packet the channel holds (queued, on the wire, propagating).
    pub fn held_packets(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.pipe.iter().map(|&(_, p)| p.id)
    }

    /// Whether the loss model acts before the queue (a packet it loses is never
    /// serialized).
    pub fn loses_before_queue(&self) -> bool {
        self.loss_before_queue
    }

    /// Brings the queue meter to the end of the run and completes the per-bin counters.
    pub fn finish(&mut self) {
        self.drain(self.bins.duration);
        self.tx_bin.flush(&mut self.counters.bin_tx_bytes);
    }
}
