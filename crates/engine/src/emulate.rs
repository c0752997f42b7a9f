//! A scenario's network as the emulator runs it (issue #14, docs/emulation.md): every
//! link direction is the simulator's own [`crate::net::channel::Channel`] behind a
//! [`RealtimeLink`], and a packet a host sends walks its flow's route hop by hop —
//! the routers live here, as chains of link directions, so no router needs a
//! namespace of its own and no delay is ever applied on a sender's own egress.
//!
//! Like the rest of the engine this reads no clock: the forwarder (crate `tcplab-emu`)
//! reads packets from the hosts' TUN devices, hands them to [`EmulatedNetwork::send`]
//! with the wall-clock time since the run's start, and writes what
//! [`EmulatedNetwork::advance`] delivers. Tests here drive it with made-up times.
//!
//! Hosts are addressed 10.100.0.0/16: node `n` has [`host_address`]`(n)`. The traffic
//! generators put flow `f`'s receiver on port [`flow_port`]`(f)` (TCP or UDP), which is
//! how a packet is attributed to its flow and direction ([`FlowCounters`]): the
//! network meters each flow where the simulator does, at the network.

use crate::config::{ConfigError, ScenarioConfig};
use crate::metrics::Binning;
use crate::metrics::DropCause;
use crate::net::channel::Offered;
use crate::net::realtime::{Pacing, RealtimeLink};
use crate::results::{channel_names, link_result, LinkResult, LinkSeries};
use crate::sim::build_channels;
use crate::time::SimTime;
use crate::validate::{self, err};
use std::collections::HashMap;

/// The first address of the emulated hosts' network, 10.100.0.0/16.
const NETWORK: u32 = 0x0A64_0000;
/// Nodes that fit in it (node n has host number n + 1; .255.255 is the broadcast).
const MAX_NODES: usize = 0xFFFE;

/// The IPv4 address of node `node` in an emulated network.
pub fn host_address(node: u32) -> [u8; 4] {
    (NETWORK + node + 1).to_be_bytes()
}

/// The node an emulated address belongs to, if it is one.
pub fn node_of(address: [u8; 4]) -> Option<u32> {
    let a = u32::from_be_bytes(address);
    (a > NETWORK && a - NETWORK <= MAX_NODES as u32).then(|| a - NETWORK - 1)
}

/// The port flow `f`'s receiver listens on in an emulated run.
pub fn flow_port(flow: usize) -> u16 {
    FIRST_FLOW_PORT + flow as u16
}

/// The first flow's receiving port (above the kernel's ephemeral range's start would
/// collide; 5001 is iperf's habit and below it).
const FIRST_FLOW_PORT: u16 = 5001;

/// A packet on its way: its bytes, the route it follows, the hop it is on, and the
/// flow and direction it belongs to.
#[derive(Debug)]
struct InTransit {
    route: u32,
    hop: u32,
    to: u32,
    flow: Option<(u32, Direction)>,
    packet: Vec<u8>,
}

/// Which way a packet of a flow goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// Sender to receiver (data).
    Forward,
    /// Receiver to sender (acknowledgements).
    Reverse,
}

/// One flow's packets as the network saw them: the simulator's flow meter, measured
/// on real packets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlowCounters {
    /// Forward packets that entered the network, per bin of their entry.
    pub bin_sent_packets: Vec<u64>,
    /// Forward packets dropped or lost, per bin of the drop.
    pub bin_dropped_packets: Vec<u64>,
    /// Forward IP bytes delivered to the receiving host, per bin of their arrival.
    pub bin_received_bytes: Vec<u64>,
    /// Forward packets dropped by cause (queue, RED, loss model: [`DropCause::index`]).
    pub drops: [u64; 3],
    /// Forward packets delivered.
    pub packets_delivered: u64,
    /// Reverse packets sent, delivered, dropped.
    pub reverse: [u64; 3],
}

/// What became of a packet handed to [`EmulatedNetwork::send`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sent {
    /// On its way (it may still be dropped or lost on a later hop).
    Admitted,
    /// Refused by the first link's queue or destroyed by its loss model.
    Dropped,
    /// Not an IPv4 packet for another host a flow of the scenario reaches.
    Unroutable,
}

/// A packet at the end of its route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// When the model has it reach the destination.
    pub due: SimTime,
    /// The destination host's node index.
    pub to: u32,
    /// The IP packet.
    pub packet: Vec<u8>,
}

/// Counters of the packets the network could not route.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EmulationCounters {
    /// IPv4 packets between hosts no flow joins, and everything not IPv4.
    pub unroutable: u64,
}

/// Every link direction of a scenario, driven by the caller's clock.
#[derive(Debug)]
pub struct EmulatedNetwork {
    config: ScenarioConfig,
    links: Vec<RealtimeLink<InTransit>>,
    /// Channel indices of each route.
    routes: Vec<Vec<u32>>,
    /// (source node, destination node) → route index.
    route_of: HashMap<(u32, u32), u32>,
    /// Per flow: the channels of its forward and reverse routes.
    flow_routes: Vec<[Vec<u32>; 2]>,
    /// Hosts that are a flow's end, with the MTU of their first link.
    hosts: Vec<(u32, u32)>,
    /// Per host node: the channel its packets leave on (its network interface).
    egress: HashMap<u32, u32>,
    counters: EmulationCounters,
    flows: Vec<FlowCounters>,
    bins: Binning,
}

impl EmulatedNetwork {
    /// Validates `config` as the simulator does, then refuses what the emulator cannot
    /// model: shared segments, and routes whose MTU changes (the forwarder does not
    /// fragment; the hosts' TCP would not see the fragmentation the simulator models).
    pub fn new(config: ScenarioConfig) -> Result<EmulatedNetwork, ConfigError> {
        let plan = validate::plan(&config)?;
        if config.nodes.len() > MAX_NODES {
            return err(
                "node",
                "",
                format!("the emulator addresses at most {MAX_NODES} nodes"),
            );
        }
        if let Some(l) = config.links.iter().find(|l| l.segment.is_some()) {
            return err(
                &l.origin,
                "segment",
                "the emulator cannot model a shared medium (half-duplex segment)",
            );
        }
        let bins = Binning::new(
            SimTime(config.simulation.bin_ns),
            SimTime(config.simulation.duration_ns),
        );
        let channels = build_channels(&config, &plan, bins);
        let (mut routes, mut route_of, mut hosts) = (Vec::new(), HashMap::new(), Vec::new());
        let mut egress = HashMap::new();
        for (f, &(src, dst)) in plan.flow_ends.iter().enumerate() {
            for (from, to, path) in [
                (src, dst, &plan.routes[f][0]),
                (dst, src, &plan.routes[f][1]),
            ] {
                let mtu = channels[path[0] as usize].spec.mtu_bytes;
                if let Some(&c) = path
                    .iter()
                    .find(|&&c| channels[c as usize].spec.mtu_bytes != mtu)
                {
                    let link = &config.links[c as usize / 2];
                    return err(
                        &link.origin,
                        "mtu",
                        format!(
                            "flow \"{}\" crosses links of MTU {mtu} and {} bytes: the emulator does not fragment",
                            config.flows[f].name,
                            channels[c as usize].spec.mtu_bytes
                        ),
                    );
                }
                route_of.entry((from, to)).or_insert_with(|| {
                    routes.push(path.clone());
                    routes.len() as u32 - 1
                });
                if !hosts.iter().any(|&(n, _)| n == from) {
                    hosts.push((from, mtu));
                }
                egress.entry(from).or_insert(path[0]);
            }
        }
        hosts.sort_unstable();
        Ok(EmulatedNetwork {
            config,
            links: channels.into_iter().map(RealtimeLink::new).collect(),
            routes,
            route_of,
            flow_routes: plan.routes.clone(),
            hosts,
            egress,
            counters: EmulationCounters::default(),
            flows: (0..plan.flow_ends.len())
                .map(|_| FlowCounters {
                    bin_sent_packets: vec![0; bins.count],
                    bin_dropped_packets: vec![0; bins.count],
                    bin_received_bytes: vec![0; bins.count],
                    ..Default::default()
                })
                .collect(),
            bins,
        })
    }

    /// The scenario.
    pub fn config(&self) -> &ScenarioConfig {
        &self.config
    }

    /// Every host that is a flow's end, with the MTU of the link it sends on (its
    /// device's MTU), by node index.
    pub fn hosts(&self) -> &[(u32, u32)] {
        &self.hosts
    }

    /// Host `from` sends the IPv4 packet `packet` at `now`: it enters the first link
    /// of the route to the host its destination address names.
    pub fn send(&mut self, now: SimTime, from: u32, packet: Vec<u8>) -> Sent {
        let to = match destination(&packet) {
            Some(to) => to,
            None => {
                self.counters.unroutable += 1;
                return Sent::Unroutable;
            }
        };
        let Some(&route) = self.route_of.get(&(from, to)) else {
            self.counters.unroutable += 1;
            return Sent::Unroutable;
        };
        let first = self.routes[route as usize][0];
        let size = packet.len().min(u32::MAX as usize) as u32;
        let flow = self.flow_of(&packet);
        match flow {
            Some((f, Direction::Forward)) => {
                self.flows[f as usize].bin_sent_packets[self.bins.index(now)] += 1
            }
            Some((f, Direction::Reverse)) => self.flows[f as usize].reverse[0] += 1,
            None => {}
        }
        let transit = InTransit {
            route,
            hop: 0,
            to,
            flow,
            packet,
        };
        match self.links[first as usize].arrive(now, size, transit) {
            Offered::Sent(_) => Sent::Admitted,
            Offered::Dropped(cause) => {
                self.count_drop(flow, now, cause);
                Sent::Dropped
            }
            Offered::Lost(at) => {
                self.count_drop(flow, at, DropCause::Random);
                Sent::Dropped
            }
        }
    }

    /// The flow and direction of a TCP or UDP packet to or from a flow's port.
    fn flow_of(&self, packet: &[u8]) -> Option<(u32, Direction)> {
        let header = ((packet.first()? & 0x0F) as usize) * 4;
        if !matches!(packet.get(9)?, 6 | 17) || packet.len() < header + 4 {
            return None;
        }
        let port = |at: usize| u16::from_be_bytes([packet[at], packet[at + 1]]);
        let index = |p: u16| {
            let f = p.checked_sub(FIRST_FLOW_PORT)? as usize;
            (f < self.flows.len()).then_some(f as u32)
        };
        index(port(header + 2))
            .map(|f| (f, Direction::Forward))
            .or_else(|| index(port(header)).map(|f| (f, Direction::Reverse)))
    }

    fn count_drop(&mut self, flow: Option<(u32, Direction)>, at: SimTime, cause: DropCause) {
        match flow {
            Some((f, Direction::Forward)) => {
                let meter = &mut self.flows[f as usize];
                meter.bin_dropped_packets[self.bins.index(at)] += 1;
                meter.drops[cause.index()] += 1;
            }
            Some((f, Direction::Reverse)) => self.flows[f as usize].reverse[2] += 1,
            None => {}
        }
    }

    /// Per flow: the channel indices (link `i`'s directions are `2i`, `2i + 1`) of its
    /// forward and reverse routes.
    pub fn flow_routes(&self) -> &[[Vec<u32>; 2]] {
        &self.flow_routes
    }

    /// Every flow's counters, in the scenario's flow order.
    pub fn flow_counters(&self) -> &[FlowCounters] {
        &self.flows
    }

    /// When host `node`'s interface (the first link of its routes) will have sent
    /// everything it was given: a forwarder takes the host's next packet then, as a
    /// network card would, so that the host's own queue (and TCP small queues) hold
    /// what the wire has not taken yet.
    pub fn egress_free_at(&self, node: u32) -> SimTime {
        self.egress
            .get(&node)
            .map_or(SimTime::ZERO, |&c| self.links[c as usize].busy_until())
    }

    /// When the next packet reaches the end of a link, if any is on its way.
    pub fn next_due(&self) -> Option<SimTime> {
        self.links.iter().filter_map(RealtimeLink::next_due).min()
    }

    /// Moves every packet due by `now` on, in time order: onto its route's next link
    /// (arriving there when it left the previous one), or, at the route's end, into
    /// `out`.
    pub fn advance(&mut self, now: SimTime, out: &mut Vec<Delivery>) {
        // A linear scan per packet: emulated networks have few links, and the
        // forwarder's cost is the system calls, not this.
        loop {
            let next = self
                .links
                .iter()
                .enumerate()
                .filter_map(|(i, l)| l.next_due().map(|t| (t, i)))
                .min();
            let Some((due, link)) = next.filter(|&(t, _)| t <= now) else {
                return;
            };
            let (_, mut transit) = self.links[link].pop_due(now).expect("due");
            let route = &self.routes[transit.route as usize];
            transit.hop += 1;
            match route.get(transit.hop as usize) {
                None => {
                    match transit.flow {
                        Some((f, Direction::Forward)) => {
                            let meter = &mut self.flows[f as usize];
                            meter.bin_received_bytes[self.bins.index(due)] +=
                                transit.packet.len() as u64;
                            meter.packets_delivered += 1;
                        }
                        Some((f, Direction::Reverse)) => self.flows[f as usize].reverse[1] += 1,
                        None => {}
                    }
                    out.push(Delivery {
                        due,
                        to: transit.to,
                        packet: transit.packet,
                    })
                }
                Some(&c) => {
                    let size = transit.packet.len() as u32;
                    let flow = transit.flow;
                    match self.links[c as usize].arrive(due, size, transit) {
                        Offered::Sent(_) => {}
                        Offered::Dropped(cause) => self.count_drop(flow, due, cause),
                        Offered::Lost(at) => self.count_drop(flow, at, DropCause::Random),
                    }
                }
            }
        }
    }

    /// Every link direction's [`Pacing`] so far, by channel index: how closely it
    /// kept its rate on the forwarder's clock (its packets are popped when the
    /// forwarder moves them on, to the next link or to the host's device).
    pub fn link_pacing(&self) -> Vec<Pacing> {
        self.links.iter().map(RealtimeLink::pacing).collect()
    }

    /// Packets the network could not route.
    pub fn counters(&self) -> EmulationCounters {
        self.counters
    }

    /// Every link direction's summary and series for a run of `duration`, as the
    /// simulator reports them (their series are taken out: call once).
    pub fn link_results(&mut self, duration: SimTime) -> (Vec<LinkResult>, Vec<LinkSeries>) {
        let names = channel_names(
            &self.config.nodes,
            self.links.iter_mut().map(|l| l.channel_mut().spec),
        );
        let nodes = &self.config.nodes;
        self.links
            .iter_mut()
            .enumerate()
            .map(|(c, l)| link_result(c, l.channel_mut(), &names[c], nodes, duration))
            .unzip()
    }
}

/// The node an IPv4 packet is addressed to.
fn destination(packet: &[u8]) -> Option<u32> {
    if packet.len() < 20 || packet[0] >> 4 != 4 {
        return None;
    }
    node_of(packet[16..20].try_into().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// A link in the engine's JSON form: DropTail queues of `limit` packets, no loss.
    fn link(
        from: &str,
        to: &str,
        bandwidth_bps: u64,
        delay_ms: u64,
        mtu: u32,
        limit: u64,
    ) -> serde_json::Value {
        let direction = serde_json::json!({
            "queue": {"type": "droptail", "limit": {"value": limit, "unit": "packets"}},
            "loss": {"type": "none"}, "loss_placement": "after_serialization",
            "queue_origin": "", "loss_origin": ""});
        serde_json::json!({"from": from, "to": to, "bandwidth_bps": bandwidth_bps, "delay_ns": delay_ms * MS,
            "mtu_bytes": mtu, "framing_bytes": 0, "cost": 1, "forward": direction, "reverse": direction,
            "origin": format!("link.{from}-{to}")})
    }

    /// Hosts a and b joined through router r by `links`, one UDP flow a → b.
    fn scenario(links: Vec<serde_json::Value>) -> Result<EmulatedNetwork, ConfigError> {
        let host =
            |name: &str, kind: &str| serde_json::json!({"name": name, "kind": kind, "origin": ""});
        let json = serde_json::json!({
            "simulation": {"duration_ns": 10_000 * MS, "seed": 1, "bin_ns": 100 * MS},
            "nodes": [host("a", "host"), host("r", "router"), host("b", "host")],
            "links": links,
            "flows": [{"name": "f", "from": "a", "to": "b", "transport": {"type": "udp"},
                       "app": {"type": "cbr", "rate_bps": 1_000_000, "payload_bytes": 1000},
                       "start_ns": 0, "stop_ns": null, "path": null, "origin": "flow[0]"}],
            "fairness_flows": ["f"]});
        EmulatedNetwork::new(ScenarioConfig::from_json(&json.to_string())?)
    }

    /// a - r - b: 100 Mb/s, 1 ms access link; a 10 Mb/s, 20 ms bottleneck from r to b
    /// with a 20-packet queue.
    fn network() -> EmulatedNetwork {
        scenario(vec![
            link("a", "r", 100_000_000, 1, 1500, 1000),
            link("r", "b", 10_000_000, 20, 1500, 20),
        ])
        .expect("network")
    }

    /// A 1,000-byte IPv4 UDP packet from node `from` to node `to`, numbered `i`: flow
    /// 0's data from a (0) to b (2), its reverse traffic from b to a.
    fn packet(from: u32, to: u32, i: u32) -> Vec<u8> {
        let mut p = vec![0u8; 1000];
        p[0] = 0x45;
        p[9] = 17;
        p[12..16].copy_from_slice(&host_address(from));
        p[16..20].copy_from_slice(&host_address(to));
        let (src, dst) = if from == 0 {
            (40_000, flow_port(0))
        } else {
            (flow_port(0), 40_000)
        };
        p[20..22].copy_from_slice(&src.to_be_bytes());
        p[22..24].copy_from_slice(&dst.to_be_bytes());
        p[24..28].copy_from_slice(&i.to_be_bytes());
        p
    }

    #[test]
    fn addresses_map_to_nodes_and_back() {
        assert_eq!(host_address(0), [10, 100, 0, 1]);
        assert_eq!(host_address(300), [10, 100, 1, 45]);
        assert_eq!(node_of([10, 100, 1, 45]), Some(300));
        assert_eq!(node_of([10, 100, 0, 0]), None);
        assert_eq!(node_of([10, 101, 0, 1]), None);
    }

    /// One packet crosses both hops: 0.08 ms + 1 ms on the access link, then 0.8 ms +
    /// 20 ms on the bottleneck, arriving intact at b; the reply takes the reverse route.
    #[test]
    fn a_packet_crosses_every_hop_of_its_route() {
        let mut net = network();
        assert_eq!(net.hosts(), &[(0, 1500), (2, 1500)]);
        assert_eq!(net.send(SimTime(0), 0, packet(0, 2, 7)), Sent::Admitted);
        let expected = SimTime(80_000 + MS + 800_000 + 20 * MS);
        let mut out = Vec::new();
        net.advance(SimTime(expected.as_ns() - 1), &mut out);
        assert!(out.is_empty());
        assert_eq!(net.next_due(), Some(expected));
        net.advance(expected, &mut out);
        assert_eq!(
            out,
            vec![Delivery {
                due: expected,
                to: 2,
                packet: packet(0, 2, 7)
            }]
        );
        assert_eq!(net.send(expected, 2, packet(2, 0, 8)), Sent::Admitted);
        net.advance(SimTime(100 * MS), &mut out);
        assert_eq!((out[1].to, &out[1].packet), (0, &packet(2, 0, 8)));
        let flow = &net.flow_counters()[0];
        assert_eq!((flow.packets_delivered, flow.reverse), (1, [1, 1, 0]));
    }

    /// A burst of 100 packets at once: the access link (0.08 ms per packet) hands them
    /// to the bottleneck over 7.92 ms, during which it starts ⌊7.92 / 0.8⌋ + 1 = 10;
    /// its 20-packet queue holds 20 more, the other 70 are dropped; the 30 survivors
    /// leave one serialization (0.8 ms) apart, in order.
    #[test]
    fn the_bottleneck_queue_drops_a_burst_beyond_its_limit() {
        let mut net = network();
        for i in 0..100 {
            net.send(SimTime(0), 0, packet(0, 2, i));
        }
        let mut out = Vec::new();
        net.advance(SimTime(1_000 * MS), &mut out);
        let (links, series) = net.link_results(SimTime(10_000 * MS));
        let bottleneck = &links[2];
        assert_eq!(bottleneck.id, "r->b");
        assert_eq!(bottleneck.drops.queue, 100 - out.len() as u64);
        assert_eq!(out.len(), 30);
        let ids: Vec<u32> = out
            .iter()
            .map(|d| u32::from_be_bytes(d.packet[24..28].try_into().unwrap()))
            .collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        assert!(out
            .windows(2)
            .all(|w| w[1].due - w[0].due == SimTime(800_000)));
        assert_eq!(series[2].drops.iter().sum::<u64>(), bottleneck.drops.queue);
        // All but the first survivor were queued behind another: 29 back-to-back pairs.
        let pacing = net.link_pacing()[2];
        assert_eq!((pacing.intervals, pacing.model_ns), (29, 29 * 800_000));
        // The flow's meter: 100 sent in the first bin, 70 dropped, 30 delivered.
        let flow = &net.flow_counters()[0];
        assert_eq!(flow.bin_sent_packets[0], 100);
        assert_eq!(flow.bin_dropped_packets.iter().sum::<u64>(), 70);
        assert_eq!(flow.drops, [70, 0, 0]);
        assert_eq!(flow.packets_delivered, 30);
        assert_eq!(flow.bin_received_bytes.iter().sum::<u64>(), 30_000);
    }

    /// A host's interface is free again once the access link (0.08 ms per packet) has
    /// sent what it was given: two packets at time 0 keep it busy until 0.16 ms.
    #[test]
    fn a_hosts_interface_is_busy_while_its_link_serializes() {
        let mut net = network();
        assert_eq!(net.egress_free_at(0), SimTime::ZERO);
        net.send(SimTime(0), 0, packet(0, 2, 0));
        net.send(SimTime(0), 0, packet(0, 2, 1));
        assert_eq!(net.egress_free_at(0), SimTime(160_000));
        assert_eq!(net.egress_free_at(2), SimTime::ZERO);
    }

    #[test]
    fn packets_no_flow_routes_are_counted_not_forwarded() {
        let mut net = network();
        assert_eq!(net.send(SimTime(0), 0, packet(0, 1, 0)), Sent::Unroutable);
        assert_eq!(net.send(SimTime(0), 0, vec![0x60; 40]), Sent::Unroutable);
        assert_eq!(net.counters().unroutable, 2);
    }

    #[test]
    fn a_route_whose_mtu_changes_is_refused_naming_the_link() {
        let e = scenario(vec![
            link("a", "r", 100_000_000, 1, 9000, 100),
            link("r", "b", 100_000_000, 1, 1500, 100),
        ])
        .unwrap_err();
        assert_eq!(e.path, "link.r-b.mtu");
        assert!(e.message.contains("does not fragment"), "{}", e.message);
    }
}
