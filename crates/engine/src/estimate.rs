//! What a run will cost, from its configuration alone: events and peak memory,
//! computed before anything is allocated, so that the front end can refuse a run that
//! cannot fit in memory and warn about one that will take long.
//!
//! The traffic model is deliberately simple and stated here so its errors are known:
//! every flow gets the smaller of its demand and an equal share of the most shared
//! channel on its route (exact for a dumbbell, within a small factor of max-min
//! fairness elsewhere); a queue is full where the offered load reaches the channel's
//! rate and empty elsewhere. The per-item costs below were measured on this engine
//! (`benchmarks/series_memory.py` checks the series' against real runs).

use crate::cc::STATE_SLOTS;
use crate::config::{Amount, AppConfig, ChannelConfig, ScenarioConfig, SizeUnit};
use crate::metrics::bins::Binning;
use crate::time::SimTime;
use crate::validate::{plan, Plan};
use crate::wire::tcp::TCP_HEADER_BYTES;
use crate::wire::{IPV4_HEADER_BYTES, UDP_HEADER_BYTES};
use crate::ConfigError;
use serde::Serialize;

/// Copies of the series counted at the peak: the engine's and Python's. The engine
/// frees its copy column by column as Python's is made, and never writes its empty
/// bins, so the real peak is lower (measured by `benchmarks/series_memory.py`: 17–23
/// bytes per cell end to end, where one dense copy is 15–20).
const SERIES_COPIES: f64 = 2.0;
/// Bytes of a per-bin sample (single precision: cwnd, RTT, queue means, algorithm
/// variables).
const SAMPLE_BYTES: f64 = 4.0;
/// The smallest IP packet (headers only), which bounds packets per byte.
const SMALLEST_PACKET_BYTES: f64 = 40.0;
/// Bytes per link direction (channel, queue, meters, and its summary once in
/// Python), per node, and per flow (both endpoints, meters, histogram, summary): the
/// slope of peak memory between 10,000- and 20,000-flow dumbbells, ~47 kB per pair
/// (a flow, two hosts, four link directions).
const CHANNEL_BYTES: f64 = 8_000.0;
const NODE_BYTES: f64 = 1_000.0;
const FLOW_BYTES: f64 = 12_000.0;
/// Bytes per packet in the network: pooled packet, queue entry, sender scoreboard.
const PACKET_BYTES: f64 = 128.0;
/// Wall time per event, at the slow end of what benchmarks B1-B3 and the many-flow
/// runs measure here.
pub const SECONDS_PER_EVENT: f64 = 1.0 / 2e6;
/// Wall time per series cell (bins are flushed and copied out), measured as
/// [`SECONDS_PER_EVENT`] is.
pub const SECONDS_PER_CELL: f64 = 50e-9;
/// Scheduler events per packet per hop (its arrival; serialization is computed, not
/// scheduled) and per packet at the endpoints (send, receive, timers), measured on
/// benchmark B1.
const EVENTS_PER_HOP: f64 = 0.6;
const EVENTS_PER_PACKET: f64 = 1.0;

/// A run's estimated cost.
#[derive(Debug, Clone, Serialize)]
pub struct Estimate {
    /// Scheduler events.
    pub events: f64,
    /// Packets the sources send (data and acknowledgements).
    pub packets: f64,
    /// Time-series cells: bins × (flows + link directions).
    pub series_cells: u64,
    /// Wall time on a machine like the reference one (2 cores), seconds.
    pub wall_s: f64,
    /// Peak memory of the time series, bytes.
    pub series_bytes: f64,
    /// Memory of the network's fixed state (nodes, channels, endpoints), bytes.
    pub network_bytes: f64,
    /// Memory of the packets in flight and queued at the fullest, bytes.
    pub packets_bytes: f64,
    /// Channel whose queue dominates `packets_bytes` (its link's scenario origin).
    pub largest_queue: Option<String>,
}

impl Estimate {
    /// Total peak memory, bytes.
    pub fn memory_bytes(&self) -> f64 {
        self.series_bytes + self.network_bytes + self.packets_bytes
    }

    /// The estimate as JSON, with `memory_bytes` added.
    pub fn to_json(&self) -> String {
        let mut value = serde_json::to_value(self).expect("plain data");
        value["memory_bytes"] = self.memory_bytes().into();
        value.to_string()
    }
}

/// The cost of running `config`. Fails only where the configuration itself is
/// invalid (the same errors as building the simulation).
pub fn estimate(config: &ScenarioConfig) -> Result<Estimate, ConfigError> {
    let plan = plan(config)?;
    Ok(estimate_planned(config, &plan))
}

fn estimate_planned(config: &ScenarioConfig, plan: &Plan) -> Estimate {
    let channels = 2 * config.links.len();
    let sharing = flows_per_channel(plan, channels);
    let mut load = vec![0.0f64; channels];
    let mut packets = 0.0;
    let mut events = 0.0;
    let mut window_packets = vec![0.0f64; channels];
    let mut smallest_packet_bits = vec![12_000.0f64; channels];
    for f in 0..config.flows.len() {
        let route = &plan.routes[f];
        let flow = flow_load(config, plan, f, &sharing);
        packets += flow.sent + flow.acks;
        events += flow.switch_events;
        events += flow.app_packets.max(flow.sent) * EVENTS_PER_PACKET
            + flow.sent * route[0].len() as f64 * EVENTS_PER_HOP
            + flow.acks * (EVENTS_PER_PACKET + route[1].len() as f64 * EVENTS_PER_HOP);
        for &c in &route[0] {
            let c = c as usize;
            load[c] += flow.offered_bps;
            window_packets[c] += flow.window_packets;
            smallest_packet_bits[c] = smallest_packet_bits[c].min(flow.packet_bits);
        }
    }
    let (packets_in_network, largest) =
        packets_held(config, &load, &window_packets, &smallest_packet_bits);

    let sim = &config.simulation;
    let bins = Binning::new(SimTime(sim.bin_ns), SimTime(sim.duration_ns)).count as u64;
    let series_cells = bins.saturating_mul((config.flows.len() + channels) as u64);
    let (flow_cell, link_cell) = cell_bytes(config);
    let series_bytes = SERIES_COPIES
        * bins as f64
        * (config.flows.len() as f64 * flow_cell + channels as f64 * link_cell);
    Estimate {
        events,
        packets,
        series_cells,
        wall_s: events * SECONDS_PER_EVENT + series_cells as f64 * SECONDS_PER_CELL,
        series_bytes,
        network_bytes: channels as f64 * CHANNEL_BYTES
            + config.nodes.len() as f64 * NODE_BYTES
            + config.flows.len() as f64 * FLOW_BYTES,
        packets_bytes: packets_in_network * PACKET_BYTES,
        largest_queue: largest.map(|c| channel_config(config, c).queue_origin.clone()),
    }
}

/// A channel's rate in bit/s (a shared segment's delivery side: infinite, no
/// serialization).
fn channel_rate_bps(config: &ScenarioConfig, c: usize) -> f64 {
    match config.links[c / 2].bandwidth_bps {
        0 => f64::INFINITY,
        bps => bps as f64,
    }
}

/// How many flows cross each channel on their forward routes.
fn flows_per_channel(plan: &Plan, channels: usize) -> Vec<u32> {
    let mut sharing = vec![0u32; channels];
    for route in &plan.routes {
        for &c in &route[0] {
            sharing[c as usize] += 1;
        }
    }
    sharing
}

/// What one flow is expected to send and to hold in the network.
struct FlowLoad {
    /// Data packets sent.
    sent: f64,
    /// Packets its receiver sends back.
    acks: f64,
    /// Packets its application produces (datagram sources).
    app_packets: f64,
    /// Events of an on/off source switching.
    switch_events: f64,
    /// Bits of one of its packets on the wire.
    packet_bits: f64,
    /// Load it offers each channel of its route: TCP what it gets (its window follows
    /// its share), a datagram source everything (it does not back off).
    offered_bps: f64,
    /// What it can have queued: its window (TCP) or everything it offers.
    window_packets: f64,
}

/// Flow `f`'s expected load: it gets at most an equal share of its route's slowest
/// channel, and what its application or transport offers.
fn flow_load(config: &ScenarioConfig, plan: &Plan, f: usize, sharing: &[u32]) -> FlowLoad {
    let flow = &config.flows[f];
    let end_ns = flow
        .stop_ns
        .unwrap_or(config.simulation.duration_ns)
        .min(config.simulation.duration_ns);
    let active_s = end_ns.saturating_sub(flow.start_ns) as f64 / 1e9;
    let share = plan.routes[f][0]
        .iter()
        .map(|&c| channel_rate_bps(config, c as usize) / sharing[c as usize] as f64)
        .fold(f64::INFINITY, f64::min);
    let mut switch_events = 0.0;
    let (demand_bps, packet_bits, app_packets) = match flow.app.datagram_rate() {
        Some((peak_bps, payload_bytes)) => {
            let bits = (payload_bytes + IPV4_HEADER_BYTES + UDP_HEADER_BYTES) as f64 * 8.0;
            let duty = match flow.app {
                AppConfig::OnOff { on_ns, off_ns, .. } => {
                    let period_ns = on_ns.saturating_add(off_ns).max(1) as f64;
                    switch_events = 2.0 * active_s * 1e9 / period_ns; // each switch is an event
                    on_ns as f64 / period_ns
                }
                _ => 1.0,
            };
            let demand = peak_bps as f64 * duty;
            (demand, bits, demand * active_s / bits)
        }
        None => {
            // A byte stream (over TCP).
            let bits = (plan.mss[f].max(1) + IPV4_HEADER_BYTES + TCP_HEADER_BYTES) as f64 * 8.0;
            let demand = match flow.app {
                AppConfig::RateLimited { rate_bps, .. } => rate_bps as f64,
                _ => f64::INFINITY,
            };
            (demand, bits, 0.0)
        }
    };
    let rate_bps = demand_bps.min(share);
    let mut sent = if rate_bps.is_finite() {
        rate_bps * active_s / packet_bits
    } else {
        0.0
    };
    if let AppConfig::File { size_bytes } = flow.app {
        sent = sent.min(size_bytes as f64 * 8.0 / packet_bits * 1.1);
    }
    let transport = flow.transport.transport();
    let (offered_bps, window_packets) = match transport.window() {
        Some(window) => (rate_bps, packets_of(&window, packet_bits)),
        None => (demand_bps, app_packets),
    };
    FlowLoad {
        sent,
        acks: sent * transport.feedback_per_packet(),
        app_packets,
        switch_events,
        packet_bits,
        offered_bps,
        window_packets,
    }
}

/// Packets held in the network, and the channel holding most: queues fill where the
/// offered load reaches the rate (up to their limit and to what the flows through them
/// can have outstanding); pipes hold load × delay.
fn packets_held(
    config: &ScenarioConfig,
    load: &[f64],
    window_packets: &[f64],
    smallest_packet_bits: &[f64],
) -> (f64, Option<usize>) {
    let mut packets_in_network = 0.0;
    let mut largest: Option<(f64, usize)> = None;
    for c in 0..load.len() {
        let link = &config.links[c / 2];
        let rate = channel_rate_bps(config, c);
        let queued = if load[c] >= rate {
            let limit = channel_config(config, c).queue.limit();
            packets_of(limit, smallest_packet_bits[c]).min(window_packets[c])
        } else {
            0.0
        };
        // In flight on the wire: what passes through it during one propagation delay.
        let pipe = load[c].min(rate) * link.delay_ns as f64 / 1e9 / smallest_packet_bits[c];
        let held = queued + pipe.min(window_packets[c]);
        packets_in_network += held;
        if largest.is_none_or(|(most, _)| held > most) {
            largest = Some((held, c));
        }
    }
    (packets_in_network, largest.map(|(_, c)| c))
}

/// Bytes of one bin of a flow's and of a link direction's series, dense. Counts take
/// the narrowest width that holds their largest possible value (as the engine stores
/// them, `metrics::bin_counts`), bounded from the fastest link, the largest receive
/// buffer and the largest queue; samples take [`SAMPLE_BYTES`].
fn cell_bytes(config: &ScenarioConfig) -> (f64, f64) {
    let bin_s = config.simulation.bin_ns as f64 / 1e9;
    let fastest_bps = config
        .links
        .iter()
        .map(|l| l.bandwidth_bps)
        .max()
        .unwrap_or(0) as f64;
    let link_bytes = fastest_bps * bin_s / 8.0;
    let link_packets = link_bytes / SMALLEST_PACKET_BYTES;
    let mtu = config.links.iter().map(|l| l.mtu_bytes).max().unwrap_or(0) as f64;
    let queue_bytes = (0..2 * config.links.len())
        .map(|c| match channel_config(config, c).queue.limit() {
            Amount {
                unit: SizeUnit::Packets,
                value,
            } => *value as f64 * mtu,
            Amount {
                unit: SizeUnit::Bytes,
                value,
            } => *value as f64,
        })
        .fold(0.0, f64::max);
    // In-order delivery can release a whole receive buffer in one bin.
    let mut buffered_bytes = 0.0f64;
    let mut algorithms: Vec<&str> = Vec::new();
    for flow in &config.flows {
        let transport = flow.transport.transport();
        if let Some(window) = transport.window() {
            buffered_bytes = buffered_bytes.max(match window.unit {
                SizeUnit::Bytes => window.value as f64,
                SizeUnit::Packets => window.value as f64 * mtu,
            });
        }
        if let Some(cc) = transport.congestion_control() {
            if !algorithms.contains(&cc.name()) {
                algorithms.push(cc.name());
            }
        }
    }
    // cwnd, ssthresh, SRTT, and each algorithm's own variables (columns of any flow's
    // algorithm exist for every flow).
    let samples = 3 + STATE_SLOTS * algorithms.len();
    let flow = count_bytes(link_bytes + buffered_bytes) // delivered
        + count_bytes(link_bytes) // received
        + 2.0 * count_bytes(link_packets)
        + samples as f64 * SAMPLE_BYTES;
    let link = count_bytes(link_bytes)
        + count_bytes(link_packets)
        + 2.0 * SAMPLE_BYTES
        + count_bytes(queue_bytes / SMALLEST_PACKET_BYTES)
        + count_bytes(queue_bytes);
    (flow, link)
}

/// Bytes per value of a count series whose largest value is `max`.
fn count_bytes(max: f64) -> f64 {
    if max < 256.0 {
        1.0
    } else if max < 65_536.0 {
        2.0
    } else if max < 4_294_967_296.0 {
        4.0
    } else {
        8.0
    }
}

/// The configuration of channel `c` (link `c / 2`; even: forward, odd: reverse).
fn channel_config(config: &ScenarioConfig, c: usize) -> &ChannelConfig {
    let link = &config.links[c / 2];
    if c % 2 == 0 {
        &link.forward
    } else {
        &link.reverse
    }
}

/// `amount` in packets of `packet_bits`.
fn packets_of(amount: &Amount, packet_bits: f64) -> f64 {
    match amount.unit {
        SizeUnit::Packets => amount.value as f64,
        SizeUnit::Bytes => amount.value as f64 * 8.0 / packet_bits,
    }
}
