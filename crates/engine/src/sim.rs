//! The simulation: builds the model from a validated plan and runs the event loop.
//!
//! Two events drive everything (see [`crate::sched::Event`]): a channel's pipe head
//! arrived at the far end, and an endpoint's deadline came. A packet's life: an
//! endpoint writes it into the outbox → `Simulation::inject` puts it in the pool →
//! `Simulation::forward` looks up the next channel of its flow's route and offers it
//! (fragmenting if needed); the channel computes when it will be serialized and when it
//! arrives → PipeArrival hands it to the next hop (or, if that hop is fed by this
//! channel alone, the packet is offered to it at once: `Simulation::offer`'s
//! cut-through) → at the end of its route it is reassembled if fragmented and handed to
//! the far endpoint. Forwarding reads only the 16-byte [`InFlight`] record carried
//! through the pipes, never the pooled packet. Meters observe each step; nothing on
//! this path allocates once pools have warmed up.

use crate::config::ConfigError;
use crate::config::ScenarioConfig;
use crate::metrics::DropCause;
use crate::metrics::{Binning, FlowMeter};
use crate::net::channel::{Channel, ChannelSpec, Offered};
use crate::net::fragment::{fragment_sizes, Datagrams, FragmentFate};
use crate::net::host_backlog::HostBacklog;
use crate::net::medium::Media;
use crate::net::packet::{
    InFlight, Packet, PacketPool, FRAGMENT_OFFSET, MORE_FRAGMENTS, NOT_A_FRAGMENT,
};
use crate::net::routing::{delivering_channels, single_feeder_channels, RouteTable};
use crate::observe::{PacketEvent, PacketObserver};
use crate::results::{self, FlowTransport, RunResults, RunState};
use crate::rng::Rng;
use crate::sched::{Event, Scheduler};
use crate::time::SimTime;
use crate::transport::{Endpoint, Outbox, Outgoing};
use crate::validate::{self, Plan};
use crate::wire::{Direction, IPV4_HEADER_BYTES};

/// A failure detected while running: always a bug in the engine, never bad input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InternalError(pub String);

impl std::fmt::Display for InternalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "internal error (a tcplab bug, please report it): {}",
            self.0
        )
    }
}

impl std::error::Error for InternalError {}

/// A simulation in progress.
#[derive(Debug)]
pub struct Simulation {
    pub(crate) config: ScenarioConfig,
    pub(crate) plan: Plan,
    now: SimTime,
    pub(crate) duration: SimTime,
    pub(crate) bins: Binning,
    sched: Scheduler,
    pool: PacketPool,
    datagrams: Datagrams,
    pub(crate) channels: Vec<Channel>,
    /// Shared half-duplex segments' transmitters.
    media: Media,
    /// `plan.routes`, packed for the per-hop lookup.
    routes: RouteTable,
    /// Per channel: whether it is fed by exactly one upstream channel, so a packet can
    /// be offered to it as soon as that channel admits it (see [`Simulation::offer`]).
    single_feeder: Vec<bool>,
    /// Per channel: whether a packet popped from its pipe reaches its endpoint in the
    /// same event (see [`delivering_channels`]).
    delivering: Vec<bool>,
    /// Two per flow: index 2f is flow f's sender, 2f + 1 its receiver.
    endpoints: Vec<Box<dyn Endpoint>>,
    wake_at: Vec<Option<SimTime>>,
    /// Per endpoint, what its host's first link holds of its packets, for endpoints
    /// that watch it (TCP Small Queues); empty when none does.
    host_backlogs: Vec<Option<HostBacklog>>,
    pub(crate) meters: Vec<FlowMeter>,
    outbox: Outbox,
    /// Watches every packet event when attached ([`Simulation::set_observer`]).
    observer: Option<Box<dyn PacketObserver>>,
}

fn sender_and_receiver(
    config: &ScenarioConfig,
    plan: &Plan,
    flow: usize,
    duration: SimTime,
) -> (Box<dyn Endpoint>, Box<dyn Endpoint>) {
    let f = &config.flows[flow];
    let start = SimTime(f.start_ns);
    let stop = f.stop_ns.map_or(duration, SimTime).min(duration);
    let rng = Rng::for_component(config.simulation.seed, &format!("app:{}", f.name));
    f.transport
        .transport()
        .endpoints(&f.app, start, stop, plan.mss[flow], rng)
}

/// Both directions of every link of `config`, in channel order (link i's forward
/// direction is channel 2i, its reverse 2i + 1), each with its queue and loss model:
/// the network the event loop runs and the emulator ([`crate::emulate`]) drives in
/// real time.
pub(crate) fn build_channels(config: &ScenarioConfig, plan: &Plan, bins: Binning) -> Vec<Channel> {
    let seed = config.simulation.seed;
    let mut channels = Vec::with_capacity(2 * config.links.len());
    for (i, link) in config.links.iter().enumerate() {
        let (a, b) = plan.link_ends[i];
        for (from, to, ch) in [(a, b, &link.forward), (b, a, &link.reverse)] {
            // A segment's delivery side is instantaneous (see `net::medium`).
            let delivery = link.segment.is_some() && from == b;
            let spec = ChannelSpec {
                from,
                to,
                rate_bps: if delivery { 0 } else { link.bandwidth_bps },
                delay: SimTime(if delivery { 0 } else { link.delay_ns }),
                mtu_bytes: link.mtu_bytes,
                framing_bytes: link.framing_bytes,
            };
            let name = format!(
                "{}->{}#{}",
                config.nodes[from as usize].name, config.nodes[to as usize].name, i
            );
            channels.push(Channel::new(spec, ch, seed, &name, bins));
        }
    }
    channels
}

impl Simulation {
    /// Validates `config` and builds the network, ready to run from time zero.
    pub fn new(config: ScenarioConfig) -> Result<Simulation, ConfigError> {
        let plan = validate::plan(&config)?;
        let sim = &config.simulation;
        let duration = SimTime(sim.duration_ns);
        let bins = Binning::new(SimTime(sim.bin_ns), duration);
        let mut channels = build_channels(&config, &plan, bins);
        let mut endpoints = Vec::with_capacity(2 * config.flows.len());
        for f in 0..config.flows.len() {
            let (s, r) = sender_and_receiver(&config, &plan, f, duration);
            endpoints.push(s);
            endpoints.push(r);
        }
        let n_endpoints = endpoints.len();
        let host_backlogs = if endpoints.iter().any(|e| e.watches_host_backlog()) {
            endpoints
                .iter()
                .map(|e| e.watches_host_backlog().then(HostBacklog::new))
                .collect()
        } else {
            Vec::new()
        };
        let media = Media::attach(&config, &mut channels);
        let mtus: Vec<u32> = channels.iter().map(|c| c.spec.mtu_bytes).collect();
        let mut single_feeder = single_feeder_channels(&plan.routes, &mtus);
        for (c, ch) in channels.iter().enumerate() {
            // Channels of one medium are coupled: offers must come in time order.
            single_feeder[c] &= ch.medium.is_none();
        }
        let delivering = delivering_channels(&plan.routes, &single_feeder);
        let mut s = Simulation {
            routes: RouteTable::new(&plan.routes),
            single_feeder,
            delivering,
            meters: (0..config.flows.len())
                .map(|_| FlowMeter::new(bins))
                .collect(),
            config,
            plan,
            now: SimTime::ZERO,
            duration,
            bins,
            sched: Scheduler::new(),
            pool: PacketPool::new(),
            datagrams: Datagrams::new(),
            channels,
            media,
            endpoints,
            wake_at: vec![None; n_endpoints],
            host_backlogs,
            outbox: Outbox::new(),
            observer: None,
        };
        for ep in 0..n_endpoints {
            s.rearm(ep);
        }
        Ok(s)
    }

    /// Builds a simulation from the JSON form of a scenario.
    pub fn from_json(text: &str) -> Result<Simulation, ConfigError> {
        Simulation::new(ScenarioConfig::from_json(text)?)
    }

    /// Current simulated time.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// End of the run.
    pub fn duration(&self) -> SimTime {
        self.duration
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.sched.processed()
    }

    /// Runs every event due at or before `until` (capped at the run's end). Calling it
    /// in steps gives exactly the same run as one call: progress bars are free.
    ///
    /// Kept out of line (one call per run or progress step, so it costs nothing): it is
    /// the event loop's entry point that `valgrind --tool=callgrind
    /// --toggle-collect='*Simulation::run_until*'` counts through (benchmarks/README.md).
    #[inline(never)]
    pub fn run_until(&mut self, until: SimTime) {
        // Not `run_until_at_most(until, u64::MAX)`: its event counter costs 0.5% of
        // B1's instructions on this, the path every run takes.
        let until = until.min(self.duration);
        while let Some((t, event)) = self.sched.next_due(until) {
            self.dispatch(t, event);
        }
        self.now = self.now.max(until);
    }

    /// Like [`Simulation::run_until`], but returns after at most `max_events` events:
    /// `true` once `until` is reached. Lets a caller that runs without its language's
    /// lock look at signals (Ctrl-C) between bounded slices, however long the run.
    pub fn run_until_at_most(&mut self, until: SimTime, max_events: u64) -> bool {
        let until = until.min(self.duration);
        for _ in 0..max_events {
            let Some((t, event)) = self.sched.next_due(until) else {
                self.now = self.now.max(until);
                return true;
            };
            self.dispatch(t, event);
        }
        false
    }

    #[inline(always)]
    fn dispatch(&mut self, t: SimTime, event: Event) {
        self.now = t;
        match event {
            Event::PipeArrival(c) => self.on_pipe_arrival(c as usize),
            Event::Wakeup(ep) => {
                self.sched.remove_next();
                self.on_wakeup(ep as usize, t)
            }
        }
    }

    /// Attaches `observer`, which from now on sees every packet event (see
    /// [`crate::observe`]).
    pub fn set_observer(&mut self, observer: Box<dyn PacketObserver>) {
        self.observer = Some(observer);
    }

    /// Detaches the observer (e.g. to close it once the run is over).
    pub fn take_observer(&mut self) -> Option<Box<dyn PacketObserver>> {
        self.observer.take()
    }

    /// Reports `event` about pooled packet `packet` to the observer, if any. Only the
    /// test is inlined into the packet paths; the call lies out of line.
    #[inline(always)]
    fn observe(&mut self, at: SimTime, event: PacketEvent, packet: &InFlight) {
        if self.observer.is_some() {
            self.report(at, event, packet);
        }
    }

    #[cold]
    #[inline(never)]
    fn report(&mut self, at: SimTime, event: PacketEvent, packet: &InFlight) {
        if let Some(observer) = self.observer.as_mut() {
            let p = self.pool.get(packet.id);
            observer.on_event(self.now, at, event, p, packet.size_bytes, packet.fragment);
        }
    }

    /// Each channel's id as results name it ("a->b", "#k" for parallel links), in
    /// channel order (link `c / 2`; even: forward, odd: reverse).
    pub fn channel_names(&self) -> Vec<String> {
        results::channel_names(&self.config.nodes, self.channels.iter().map(|c| c.spec))
    }

    /// The channel each flow's packets enter the network on (its sender's first hop).
    pub fn first_hops(&self) -> Vec<Option<usize>> {
        self.plan
            .routes
            .iter()
            .map(|r| r[0].first().map(|&c| c as usize))
            .collect()
    }

    /// The configuration the simulation was built from.
    pub fn config(&self) -> &ScenarioConfig {
        &self.config
    }

    /// Every flow's counters so far, for reports at intervals while the run goes on
    /// (what iperf prints each second); cheap enough to call every simulated second.
    pub fn flow_snapshots(&self) -> Vec<results::FlowSnapshot> {
        results::snapshots(&self.meters, &self.flow_transports(false))
    }

    /// Runs to the end and returns the results (see [`Simulation::finish`]).
    pub fn run(mut self) -> Result<RunResults, InternalError> {
        self.run_until(self.duration);
        self.finish()
    }

    /// Closes the meters, checks packet conservation, and reports.
    pub fn finish(mut self) -> Result<RunResults, InternalError> {
        self.run_until(self.duration);
        for ch in &mut self.channels {
            ch.finish();
        }
        for (f, meter) in self.meters.iter_mut().enumerate() {
            meter.finish(self.endpoints[2 * f].probe());
        }
        self.check_conservation()?;
        let transports = self.flow_transports(true);
        Ok(results::collect(RunState {
            config: &self.config,
            fairness_flows: &self.plan.fairness_flows,
            bins: self.bins,
            duration: self.duration,
            events: self.events(),
            meters: &mut self.meters,
            channels: &mut self.channels,
            transports,
        }))
    }

    /// The head of channel `c`'s pipe arrives (its event is the scheduler's next).
    fn on_pipe_arrival(&mut self, c: usize) {
        let (packet, next) = self.channels[c].pop_arrival();
        match next {
            Some(t) => {
                self.sched.replace_next(t, Event::PipeArrival(c as u32));
                if self.delivering[c] {
                    // The next packet on this link reaches its endpoint in its event,
                    // and the endpoint will read it from the pool: fetch it now.
                    if let Some(p) = self.channels[c].next_arrival() {
                        self.pool.prefetch(p.id);
                    }
                }
            }
            None => self.sched.remove_next(),
        }
        self.forward(packet);
    }

    fn on_wakeup(&mut self, ep: usize, t: SimTime) {
        if self.wake_at[ep] != Some(t) {
            return; // superseded by an earlier wake-up
        }
        self.wake_at[ep] = None;
        self.sample_sender_state(ep);
        let mut out = std::mem::take(&mut self.outbox);
        self.show_host_backlog(ep, &mut out);
        self.endpoints[ep].on_wakeup(self.now, &mut out);
        self.flush(ep, out);
    }

    /// Before a sender's event in a new bin, records the congestion state its previous
    /// event left as that bin's last value (see [`FlowMeter::probe_due`]).
    #[inline]
    fn sample_sender_state(&mut self, ep: usize) {
        let flow = ep / 2;
        if ep % 2 == 0 && self.meters[flow].probe_due(self.now) {
            let probe = self.endpoints[ep].probe();
            self.meters[flow].close_probe_bin(self.now, probe);
        }
    }

    /// Acts on what endpoint `ep` wrote into `out`, then re-arms its wake-up.
    #[inline(always)]
    fn flush(&mut self, ep: usize, mut out: Outbox) {
        let flow = ep / 2;
        let delivered = out.take_delivered();
        if delivered > 0 {
            self.meters[flow].on_delivered(self.now, delivered);
            // Tested first: an empty drain still costs its setup on every delivery.
            if out.has_stream_deliveries() {
                for (stream, bytes) in out.drain_stream_deliveries() {
                    self.meters[flow].on_stream_delivered(stream, bytes);
                }
            }
        }
        let direction = if ep % 2 == 0 {
            Direction::Forward
        } else {
            Direction::Reverse
        };
        if self.host_backlogs.is_empty() {
            for pkt in out.drain_packets() {
                self.inject(flow, direction, pkt);
            }
        } else {
            self.inject_recording_backlog(ep, direction, &mut out);
        }
        self.outbox = out;
        self.rearm(ep);
    }

    /// Tells endpoint `ep`, if it watches it, what its host's first link holds of its
    /// packets now.
    #[inline]
    fn show_host_backlog(&mut self, ep: usize, out: &mut Outbox) {
        if let Some(Some(backlog)) = self.host_backlogs.get_mut(ep) {
            out.set_host_backlog(backlog.bytes_at(self.now));
        }
    }

    /// [`Simulation::flush`]'s injection when some endpoint watches its host backlog:
    /// records each packet of a watching endpoint that its first link admits, and wakes
    /// the endpoint when that link next finishes one of its packets if it asked to wait.
    /// Out of line, so that the common path keeps `inject` inlined.
    #[inline(never)]
    fn inject_recording_backlog(&mut self, ep: usize, direction: Direction, out: &mut Outbox) {
        let flow = ep / 2;
        let tracked = self
            .routes
            .at(self.routes.first(flow as u32, direction.index()))
            .map(|c| c as usize)
            .filter(|_| self.host_backlogs[ep].is_some());
        for pkt in out.drain_packets() {
            match tracked {
                Some(c) => {
                    let refused = self.channels[c].refused_packets();
                    let size = pkt.size_bytes;
                    self.inject(flow, direction, pkt);
                    if self.channels[c].refused_packets() == refused {
                        let done_at = self.channels[c].busy_until();
                        if let Some(backlog) = &mut self.host_backlogs[ep] {
                            backlog.push(done_at, size);
                        }
                    }
                }
                None => self.inject(flow, direction, pkt),
            }
        }
        if out.take_wait_for_host() {
            let next = self.host_backlogs[ep]
                .as_ref()
                .and_then(HostBacklog::next_completion);
            if let Some(t) = next {
                self.wake_at_or_before(ep, t);
            }
        }
    }

    #[inline(always)]
    fn rearm(&mut self, ep: usize) {
        if let Some(t) = self.endpoints[ep].poll_at() {
            self.wake_at_or_before(ep, t);
        }
    }

    /// Makes sure endpoint `ep` is woken at `t` (or now, if `t` has passed) or earlier.
    #[inline(always)]
    fn wake_at_or_before(&mut self, ep: usize, t: SimTime) {
        let t = t.max(self.now);
        if self.wake_at[ep].is_none_or(|w| t < w) {
            self.wake_at[ep] = Some(t);
            self.sched.schedule(t, Event::Wakeup(ep as u32));
        }
    }

    #[inline(always)]
    fn inject(&mut self, flow: usize, direction: Direction, out: Outgoing) {
        self.meters[flow].on_sent(
            self.now,
            direction,
            out.size_bytes,
            out.header.payload_bytes(),
        );
        let id = self.pool.insert(Packet {
            flow: flow as u32,
            direction,
            size_bytes: out.size_bytes,
            sent_at: self.now,
            datagram: NOT_A_FRAGMENT,
            fragment_word: 0,
            header: out.header,
        });
        let packet = InFlight {
            id,
            size_bytes: out.size_bytes,
            route: self.routes.first(flow as u32, direction.index()),
            direction,
            fragment: false,
        };
        self.forward(packet);
    }

    /// Moves a packet that is at a node now onto the next channel of its route, or
    /// hands it to its endpoint if the route is complete. Reads only the in-flight
    /// record, never the pooled packet. (Cut-through, at a later time, goes straight
    /// from [`Simulation::offer`] to the next channel.)
    fn forward(&mut self, mut packet: InFlight) {
        let at = self.now;
        let Some(c) = self.routes.at(packet.route).map(|c| c as usize) else {
            self.arrive(packet);
            return;
        };
        packet.route += 1;
        if packet.size_bytes > self.channels[c].spec.mtu_bytes {
            self.fragment_onto(packet, c, at);
        } else {
            self.offer(packet, c, at);
        }
    }

    /// Offers `packet` to channel `c` at time `at`.
    ///
    /// Cut-through: if the next channel on the packet's route is fed by `c` alone, its
    /// state changes only when `c` hands it a packet, in `c`'s FIFO order, at times
    /// known now. Offering the packet to it at once, stamped with its arrival time,
    /// therefore gives that channel exactly the sequence of offers it would have seen
    /// one event at a time, and saves the event (in a dumbbell, the last link of each
    /// direction). Packets arriving after the run's end stay in `c`'s pipe, as
    /// everything in flight at the end does.
    fn offer(&mut self, packet: InFlight, c: usize, at: SimTime) {
        let channel = &mut self.channels[c];
        let offered = match channel.medium {
            None => channel.offer(at, packet.size_bytes),
            Some(m) => channel.offer_on_medium(at, packet.size_bytes, self.media.busy_until(m)),
        };
        if self.observer.is_some() {
            self.observe_admission(&packet, c, at, offered);
        }
        match offered {
            Offered::Sent(arrival) => {
                match self.routes.at(packet.route).map(|n| n as usize) {
                    Some(n) if self.single_feeder[n] && arrival <= self.duration => {
                        // No `forward`: the hop is known, and a single feeder's MTU
                        // never exceeds the channel's, so nothing is fragmented here.
                        let mut packet = packet;
                        packet.route += 1;
                        self.offer(packet, n, arrival)
                    }
                    _ => {
                        if let Some(t) = self.channels[c].enter_pipe(arrival, packet) {
                            self.sched.schedule(t, Event::PipeArrival(c as u32))
                        }
                    }
                }
            }
            Offered::Dropped(cause) => self.drop_packet(packet, cause, at),
            Offered::Lost(end) => self.drop_packet(packet, DropCause::Random, end),
        }
    }

    /// Reports what admission to channel `c` at `at` decided for `packet`: its hand-off
    /// by the sending host (first hop), its place in the queue, the end of its
    /// serialization (sent on, or lost after it) and, on the last hop, its delivery.
    #[cold]
    #[inline(never)]
    fn observe_admission(&mut self, packet: &InFlight, c: usize, at: SimTime, offered: Offered) {
        let flow = self.pool.get(packet.id).flow;
        if packet.route == self.routes.first(flow, packet.direction.index()) + 1 {
            self.report(at, PacketEvent::Sent { channel: c }, packet);
        }
        let spec = self.channels[c].spec;
        let end = match offered {
            Offered::Sent(arrival) => arrival - spec.delay,
            // Lost after serialization, unless the loss model acts before the queue.
            Offered::Lost(end) if !self.channels[c].loses_before_queue() => end,
            Offered::Lost(_) | Offered::Dropped(_) => return,
        };
        self.report(at, PacketEvent::Enqueued { channel: c }, packet);
        if end > self.duration {
            return;
        }
        self.report(end, PacketEvent::Transmitted { channel: c }, packet);
        if let Offered::Sent(arrival) = offered {
            let last_hop = self.routes.at(packet.route).is_none();
            if last_hop && arrival <= self.duration {
                self.report(arrival, PacketEvent::Delivered { channel: c }, packet);
            }
        }
    }

    /// RFC 791 fragmentation of `packet` for channel `c`'s MTU, at time `at`.
    fn fragment_onto(&mut self, packet: InFlight, c: usize, at: SimTime) {
        let p = *self.pool.get(packet.id);
        let (count, full, last) =
            fragment_sizes(packet.size_bytes, self.channels[c].spec.mtu_bytes);
        let d = if p.datagram == NOT_A_FRAGMENT {
            self.datagrams.open(p, count)
        } else {
            self.datagrams.refragment(p.datagram, count);
            p.datagram
        };
        self.meters[p.flow as usize].on_fragmented(p.direction, count);
        self.channels[c].counters.fragmented_packets += 1;
        // Offsets count from the original datagram, also when a fragment is cut again.
        let parent_offset = p.fragment_word & FRAGMENT_OFFSET;
        let parent_more = p.fragment_word & MORE_FRAGMENTS;
        let units = ((full - IPV4_HEADER_BYTES) / 8) as u16;
        for k in 0..count {
            let size = if k + 1 == count { last } else { full };
            let more = if k + 1 < count {
                MORE_FRAGMENTS
            } else {
                parent_more
            };
            let fragment = Packet {
                size_bytes: size,
                datagram: d,
                fragment_word: more | (parent_offset + k as u16 * units),
                ..p
            };
            let id = if k == 0 {
                *self.pool.get_mut(packet.id) = fragment;
                packet.id
            } else {
                self.pool.insert(fragment)
            };
            self.offer(
                InFlight {
                    id,
                    size_bytes: size,
                    fragment: true,
                    ..packet
                },
                c,
                at,
            );
        }
    }

    /// Disposes of a dropped packet, counting the drop (once per datagram) at time `at`.
    fn drop_packet(&mut self, packet: InFlight, cause: DropCause, at: SimTime) {
        self.observe(at, PacketEvent::Dropped { cause }, &packet);
        let counts = !packet.fragment || {
            let d = self.pool.get(packet.id).datagram;
            self.datagrams.dropped(d) == FragmentFate::DatagramLost
        };
        let flow = self.pool.get(packet.id).flow;
        self.pool.release(packet.id);
        if counts {
            self.meters[flow as usize].on_dropped(at, packet.direction, cause);
        }
    }

    fn arrive(&mut self, packet: InFlight) {
        let mut p = *self.pool.get(packet.id);
        self.pool.release(packet.id);
        if p.direction == Direction::Forward {
            self.meters[p.flow as usize].on_received(self.now, packet.size_bytes);
        }
        if packet.fragment {
            let original = self.datagrams.get(p.datagram).original;
            if self.datagrams.arrived(p.datagram) != FragmentFate::Reassembled {
                return;
            }
            p = original;
        }
        let flow = p.flow as usize;
        self.meters[flow].on_arrived(self.now, p.direction, p.sent_at);
        let ep = 2 * flow
            + if p.direction == Direction::Forward {
                1
            } else {
                0
            };
        self.sample_sender_state(ep);
        let mut out = std::mem::take(&mut self.outbox);
        self.show_host_backlog(ep, &mut out);
        self.endpoints[ep].on_packet(self.now, &p.header, &mut out);
        self.flush(ep, out);
    }

    /// What every flow's endpoints report now (with their own figures if `details`).
    fn flow_transports(&self, details: bool) -> Vec<FlowTransport> {
        (0..self.config.flows.len())
            .map(|f| FlowTransport {
                probe: self.endpoints[2 * f].probe(),
                stats: self.transport_stats(f),
                details: if details {
                    self.transport_details(f)
                } else {
                    None
                },
            })
            .collect()
    }

    /// Both endpoints' transport counters for flow `f` (reliable transports only).
    fn transport_stats(&self, f: usize) -> Option<crate::transport::TransportStats> {
        match (
            self.endpoints[2 * f].stats(),
            self.endpoints[2 * f + 1].stats(),
        ) {
            (Some(a), Some(b)) => Some(a.merge(b)),
            (a, b) => a.or(b),
        }
    }

    /// Flow `f`'s transport figures of its own: its sender's and receiver's
    /// [`crate::transport::Endpoint::details`] objects merged.
    fn transport_details(&self, f: usize) -> Option<serde_json::Value> {
        let mut merged = serde_json::Map::new();
        for ep in [2 * f, 2 * f + 1] {
            if let Some(serde_json::Value::Object(m)) = self.endpoints[ep].details() {
                merged.extend(m);
            }
        }
        (!merged.is_empty()).then_some(serde_json::Value::Object(merged))
    }

    /// Every packet handed to the network must be delivered, dropped, or still inside
    /// a channel. Counted from the channels themselves, not from the meters.
    fn check_conservation(&self) -> Result<(), InternalError> {
        let n = self.config.flows.len();
        let mut in_flight = vec![[0u64; 2]; n];
        let mut held = 0usize;
        for ch in &self.channels {
            for id in ch.held_packets() {
                held += 1;
                let p = self.pool.get(id);
                if p.datagram == NOT_A_FRAGMENT {
                    in_flight[p.flow as usize][p.direction.index()] += 1;
                }
            }
        }
        for d in self.datagrams.in_flight() {
            in_flight[d.original.flow as usize][d.original.direction.index()] += 1;
        }
        let live = self.pool.live().count();
        if held != live {
            return Err(InternalError(format!(
                "{live} packets are allocated but {held} are inside channels"
            )));
        }
        for (f, meter) in self.meters.iter().enumerate() {
            for dir in [Direction::Forward, Direction::Reverse] {
                let c = &meter.network[dir.index()];
                let accounted = c.arrived_packets + c.dropped_total() + in_flight[f][dir.index()];
                if c.sent_packets != accounted {
                    return Err(InternalError(format!(
                        "conservation violated for flow \"{}\" ({:?}): sent {} != delivered {} + dropped {} + in flight {}",
                        self.config.flows[f].name,
                        dir,
                        c.sent_packets,
                        c.arrived_packets,
                        c.dropped_total(),
                        in_flight[f][dir.index()]
                    )));
                }
            }
        }
        Ok(())
    }
}
