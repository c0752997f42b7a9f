//! One direction of a point-to-point link: output queue → serializer → loss → pipe.
//!
//! A channel holds at most one packet on the serializer and a FIFO "pipe" of packets
//! propagating towards the far end. Because every packet on a channel has the same
//! propagation delay, the pipe is ordered by arrival time and only its head needs an
//! event (htsim's pipe): the event queue holds ≤ 2 entries per channel whatever the
//! bandwidth-delay product. Methods take `now` and return the times the caller must
//! schedule; the channel never touches the event loop itself.

use crate::config::ChannelConfig;
use crate::metrics::{Binning, QueueMeter};
use crate::net::loss::LossModel;
use crate::net::packet::PacketId;
use crate::net::queue::{DropCause, OutputQueue};
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
    /// Bit rate.
    pub rate_bps: u64,
    /// Propagation delay.
    pub delay: SimTime,
    /// Largest IP packet carried, bytes.
    pub mtu_bytes: u32,
    /// Link-layer bytes added per packet on the wire.
    pub framing_bytes: u32,
}

/// Traffic counters of a channel.
#[derive(Debug, Clone, Default)]
pub struct ChannelCounters {
    /// Packets fully serialized onto the link (lost ones included).
    pub tx_packets: u64,
    /// IP bytes of those packets.
    pub tx_bytes: u64,
    /// Time the serializer was busy, ns (for utilisation).
    pub busy_ns: u64,
    /// Drops by cause: queue, RED, random.
    pub drops: [u64; 3],
    /// Packets split into fragments on entering this channel.
    pub fragmented_packets: u64,
    /// Per bin: IP bytes serialized.
    pub bin_tx_bytes: Vec<u64>,
    /// Per bin: drops of any cause.
    pub bin_drops: Vec<u64>,
}

/// What happened to a packet offered to the channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offered {
    /// Queued behind others; nothing to schedule.
    Queued,
    /// The link was idle: serialization started and ends at this time.
    Transmitting(SimTime),
    /// Refused by the queue.
    Dropped(DropCause),
}

/// The outcome of a finished serialization.
#[derive(Debug, Clone, Copy)]
pub struct TxOutcome {
    /// The packet that finished.
    pub packet: PacketId,
    /// `true` if the loss model destroyed it.
    pub lost: bool,
    /// If the pipe was empty, the time the caller must schedule its head arrival.
    pub schedule_arrival: Option<SimTime>,
    /// If another packet started serializing, when it will finish.
    pub schedule_tx_done: Option<SimTime>,
}

/// One link direction.
#[derive(Debug)]
pub struct Channel {
    /// Static properties.
    pub spec: ChannelSpec,
    queue: OutputQueue,
    loss: LossModel,
    on_wire: Option<(PacketId, u32)>,
    pipe: VecDeque<(SimTime, PacketId)>,
    bins: Binning,
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
                Rng::for_component(seed, &format!("queue:{name}")),
            ),
            loss: LossModel::new(
                &config.loss,
                Rng::for_component(seed, &format!("loss:{name}")),
            ),
            on_wire: None,
            pipe: VecDeque::new(),
            bins,
            counters: ChannelCounters {
                bin_tx_bytes: vec![0; bins.count],
                bin_drops: vec![0; bins.count],
                ..Default::default()
            },
            meter: QueueMeter::new(bins),
        }
    }

    fn start_tx(&mut self, now: SimTime, id: PacketId, size: u32) -> SimTime {
        self.on_wire = Some((id, size));
        now + serialization_time((size + self.spec.framing_bytes) as u64, self.spec.rate_bps)
    }

    fn meter_queue(&mut self, now: SimTime) {
        self.meter
            .set(now, self.queue.len_packets(), self.queue.len_bytes());
    }

    /// Counts a drop at this channel (the caller disposes of the packet).
    pub fn count_drop(&mut self, now: SimTime, cause: DropCause) {
        self.counters.drops[cause.index()] += 1;
        self.counters.bin_drops[self.bins.index(now)] += 1;
    }

    /// Offers an IP packet of `size` bytes (≤ MTU) to the output queue.
    pub fn offer(&mut self, now: SimTime, id: PacketId, size: u32) -> Offered {
        if let Err(cause) = self.queue.enqueue(now, id, size) {
            self.count_drop(now, cause);
            return Offered::Dropped(cause);
        }
        if self.on_wire.is_some() {
            self.meter_queue(now);
            return Offered::Queued;
        }
        let (id, size) = self.queue.dequeue().expect("just enqueued");
        Offered::Transmitting(self.start_tx(now, id, size))
    }

    /// The serializer finished its packet at `now`.
    pub fn finish_tx(&mut self, now: SimTime) -> TxOutcome {
        let (id, size) = self
            .on_wire
            .take()
            .expect("TxDone without a packet on the wire");
        self.counters.tx_packets += 1;
        self.counters.tx_bytes += size as u64;
        self.counters.busy_ns +=
            serialization_time((size + self.spec.framing_bytes) as u64, self.spec.rate_bps).as_ns();
        self.counters.bin_tx_bytes[self.bins.index(now)] += size as u64;
        let lost = self.loss.lose();
        let mut schedule_arrival = None;
        if lost {
            self.count_drop(now, DropCause::Random);
        } else {
            let at = now + self.spec.delay;
            if self.pipe.is_empty() {
                schedule_arrival = Some(at);
            }
            self.pipe.push_back((at, id));
        }
        let schedule_tx_done = match self.queue.dequeue() {
            Some((next, next_size)) => {
                self.meter_queue(now);
                Some(self.start_tx(now, next, next_size))
            }
            None => {
                self.queue.on_link_idle(now);
                None
            }
        };
        TxOutcome {
            packet: id,
            lost,
            schedule_arrival,
            schedule_tx_done,
        }
    }

    /// Removes the pipe's head, which arrives now; returns it and, if another packet
    /// is propagating, the time its arrival must be scheduled.
    pub fn pop_arrival(&mut self) -> (PacketId, Option<SimTime>) {
        let (_, id) = self
            .pipe
            .pop_front()
            .expect("PipeArrival with an empty pipe");
        (id, self.pipe.front().map(|&(t, _)| t))
    }

    /// Every packet the channel holds (queued, on the wire, propagating).
    pub fn held_packets(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.queue
            .ids()
            .chain(self.on_wire.map(|(id, _)| id))
            .chain(self.pipe.iter().map(|&(_, id)| id))
    }

    /// RED's average queue, if the queue is RED.
    pub fn red_average(&self) -> Option<f64> {
        self.queue.red_average()
    }
}
