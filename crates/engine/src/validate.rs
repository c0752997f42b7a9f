//! Checks a [`ScenarioConfig`] and resolves its names into indices and routes.
//!
//! The engine trusts nothing it receives: every value that could make the run
//! meaningless, overflow, or panic is rejected here with a [`ConfigError`] naming the
//! scenario field (via each item's `origin`). After [`plan`] succeeds, building and
//! running the simulation cannot fail on configuration.

use crate::config::*;
use crate::net::routing::{FiveTuple, Graph, Router};
use crate::wire::{IPV4_HEADER_BYTES, MAX_IP_PACKET_BYTES, MIN_MTU_BYTES, UDP_HEADER_BYTES};
use std::collections::HashMap;

/// Longest run accepted: 10^6 s (about 11.6 days of simulated time).
pub const MAX_DURATION_NS: u64 = 1_000_000 * 1_000_000_000;
/// Longest propagation delay accepted: one hour.
pub const MAX_DELAY_NS: u64 = 3_600 * 1_000_000_000;
/// Fastest link accepted: 1 Pbit/s.
pub const MAX_BANDWIDTH_BPS: u64 = 1_000_000_000_000_000;
/// Most time-series cells (bins × (flows + link directions)) a run may allocate.
pub const MAX_SERIES_CELLS: u64 = 50_000_000;

/// A scenario's names resolved to indices, with the route of every flow.
#[derive(Debug, Clone)]
pub struct Plan {
    /// For each link: (from node, to node) indices.
    pub link_ends: Vec<(u32, u32)>,
    /// For each flow: (source node, destination node).
    pub flow_ends: Vec<(u32, u32)>,
    /// For each flow: channel indices of the forward and the reverse route.
    pub routes: Vec<[Vec<u32>; 2]>,
    /// Flow indices Jain's index is computed over.
    pub fairness_flows: Vec<usize>,
    /// For each flow: the TCP maximum segment size (0 for other transports).
    pub mss: Vec<u32>,
}

pub(crate) fn at(origin: &str, field: &str) -> String {
    if origin.is_empty() {
        field.to_string()
    } else if field.is_empty() {
        origin.to_string()
    } else {
        format!("{origin}.{field}")
    }
}

pub(crate) fn err<T>(
    origin: &str,
    field: &str,
    message: impl Into<String>,
) -> Result<T, ConfigError> {
    Err(ConfigError::new(at(origin, field), message))
}

fn check_probability(origin: &str, field: &str, p: f64) -> Result<(), ConfigError> {
    if !(0.0..=1.0).contains(&p) || p.is_nan() {
        return err(
            origin,
            field,
            format!("expected a probability between 0 and 1, got {p}"),
        );
    }
    Ok(())
}

fn check_simulation(s: &SimulationConfig) -> Result<(), ConfigError> {
    if s.duration_ns == 0 {
        return err(
            "simulation",
            "duration",
            "must be greater than 0 (e.g. \"10s\")",
        );
    }
    if s.duration_ns > MAX_DURATION_NS {
        return err("simulation", "duration", "must be at most 1000000 s");
    }
    if s.bin_ns == 0 {
        return err(
            "simulation",
            "bin",
            "must be greater than 0 (e.g. \"50ms\")",
        );
    }
    if s.bin_ns > s.duration_ns {
        return err(
            "simulation",
            "bin",
            "must not be longer than the simulation duration",
        );
    }
    Ok(())
}

fn check_limit(origin: &str, limit: Amount, mtu: u32) -> Result<(), ConfigError> {
    match limit.unit {
        SizeUnit::Packets if limit.value == 0 => err(origin, "limit", "must be at least 1 packet"),
        SizeUnit::Bytes if limit.value < mtu as u64 => err(
            origin,
            "limit",
            format!(
                "a byte limit must hold at least one full packet (the MTU, {mtu} B); got {} B",
                limit.value
            ),
        ),
        _ => Ok(()),
    }
}

fn check_queue(origin: &str, q: &QueueConfig, mtu: u32) -> Result<(), ConfigError> {
    match q {
        QueueConfig::Droptail { limit } => check_limit(origin, *limit, mtu),
        QueueConfig::Red(r) => {
            check_limit(origin, r.limit, mtu)?;
            if let Some(min_th) = r.min_th {
                if !(min_th > 0.0 && min_th.is_finite()) {
                    return err(origin, "min_th", "must be greater than 0 (or \"auto\")");
                }
            }
            if let Some(max_th) = r.max_th {
                let above = r.min_th.unwrap_or(0.0);
                if !(max_th > above && max_th.is_finite()) {
                    return err(
                        origin,
                        "max_th",
                        format!("must be greater than min_th ({above}) (or \"auto\")"),
                    );
                }
            }
            if !(r.max_p > 0.0 && r.max_p <= 1.0) {
                return err(origin, "max_p", "expected a probability in (0, 1]");
            }
            if let Some(w_q) = r.w_q {
                if !(w_q > 0.0 && w_q <= 1.0) {
                    return err(
                        origin,
                        "w_q",
                        "expected a weight in (0, 1], or \"auto\" (ns-2.35's q_weight_ -1)",
                    );
                }
            }
            if r.mean_packet_bytes == 0 {
                return err(origin, "mean_packet_size", "must be greater than 0");
            }
            if r.target_delay_ns == 0 || r.target_delay_ns > MAX_DELAY_NS {
                return err(
                    origin,
                    "target_delay",
                    "expected a delay between 1 ns and 3600 s",
                );
            }
            Ok(())
        }
    }
}

fn check_loss(origin: &str, l: &LossConfig) -> Result<(), ConfigError> {
    match *l {
        LossConfig::None => Ok(()),
        LossConfig::Bernoulli { rate } => check_probability(origin, "rate", rate),
        LossConfig::GilbertElliott {
            p_good_to_bad,
            p_bad_to_good,
            loss_good,
            loss_bad,
        } => {
            check_probability(origin, "p_good_to_bad", p_good_to_bad)?;
            check_probability(origin, "p_bad_to_good", p_bad_to_good)?;
            check_probability(origin, "loss_good", loss_good)?;
            check_probability(origin, "loss_bad", loss_bad)
        }
        LossConfig::EveryNth { n: 0, .. } => err(origin, "n", "must be at least 1"),
        LossConfig::List { ref packets } => {
            if packets.first() == Some(&0) || packets.windows(2).any(|w| w[0] >= w[1]) {
                return err(
                    origin,
                    "packets",
                    "expected packet numbers counted from 1, strictly increasing",
                );
            }
            Ok(())
        }
        LossConfig::EveryNth { .. } => Ok(()),
    }
}

fn check_link(link: &LinkConfig) -> Result<(), ConfigError> {
    let o = link.origin.as_str();
    if link.bandwidth_bps == 0 {
        return err(o, "bandwidth", "must be greater than 0 (e.g. \"100Mbps\")");
    }
    if link.bandwidth_bps > MAX_BANDWIDTH_BPS {
        return err(o, "bandwidth", "must be at most 1 Pbps");
    }
    if link.delay_ns > MAX_DELAY_NS {
        return err(o, "delay", "must be at most 3600 s");
    }
    if !(MIN_MTU_BYTES..=MAX_IP_PACKET_BYTES).contains(&link.mtu_bytes) {
        return err(
            o,
            "mtu",
            format!(
                "expected {MIN_MTU_BYTES}..{MAX_IP_PACKET_BYTES} bytes (an IPv4 link must carry 68 B: a 20 B IP header plus at least 48 B of fragment), got {}",
                link.mtu_bytes
            ),
        );
    }
    if link.framing_bytes > 1_000 {
        return err(
            o,
            "framing",
            "expected at most 1000 bytes of link-layer overhead",
        );
    }
    if link.cost == 0 {
        return err(o, "cost", "must be at least 1");
    }
    for ch in [&link.forward, &link.reverse] {
        check_queue(&ch.queue_origin, &ch.queue, link.mtu_bytes)?;
        check_loss(&ch.loss_origin, &ch.loss)?;
    }
    Ok(())
}

fn check_app(
    origin: &str,
    transport: &TransportConfig,
    app: &AppConfig,
) -> Result<(), ConfigError> {
    let o = at(origin, "app");
    let transport = transport.transport();
    if transport.carries_datagrams() != app.is_datagram() {
        let fits = if transport.carries_datagrams() {
            "cbr, poisson, onoff"
        } else {
            "bulk, file, rate_limited"
        };
        return err(
            &o,
            "type",
            format!(
                "this application does not run over {}; expected one of: {fits}",
                transport.name()
            ),
        );
    }
    match *app {
        AppConfig::File { size_bytes } => {
            if size_bytes == 0 {
                return err(&o, "size", "must be greater than 0 bytes");
            }
            return Ok(());
        }
        AppConfig::RateLimited {
            rate_bps,
            size_bytes,
        } => {
            if size_bytes == Some(0) {
                return err(&o, "size", "must be greater than 0 bytes");
            }
            if rate_bps == 0 || rate_bps > MAX_BANDWIDTH_BPS {
                return err(
                    &o,
                    "rate",
                    "expected a rate between 1 bps and 1 Pbps (e.g. \"1.5Gbps\")",
                );
            }
            return Ok(());
        }
        AppConfig::OnOff { on_ns: 0, .. } => return err(&o, "on", "must be greater than 0"),
        AppConfig::OnOff { off_ns: 0, .. } => return err(&o, "off", "must be greater than 0"),
        _ => {}
    }
    let Some((rate, payload)) = app.datagram_rate() else {
        return Ok(()); // a bulk stream: nothing to check
    };
    if rate == 0 {
        return err(&o, "rate", "must be greater than 0 (e.g. \"6Mbps\")");
    }
    if rate > MAX_BANDWIDTH_BPS {
        return err(&o, "rate", "must be at most 1 Pbps");
    }
    let max_payload = MAX_IP_PACKET_BYTES - IPV4_HEADER_BYTES - UDP_HEADER_BYTES;
    if payload == 0 || payload > max_payload {
        return err(&o, "packet_size", format!("expected 1..{max_payload} payload bytes (an IPv4 datagram holds at most 65535 B with headers), got {payload}"));
    }
    Ok(())
}

/// Shared segments: every link of a segment attaches a station to the segment's own
/// router node (named like the segment), and a segment joins at least two stations.
fn check_segments(config: &ScenarioConfig) -> Result<(), ConfigError> {
    let mut stations: HashMap<&str, (usize, &str)> = HashMap::new();
    for l in &config.links {
        let Some(segment) = l.segment.as_deref() else {
            continue;
        };
        if l.to != segment {
            return err(
                &l.origin,
                "to",
                format!("a station's link to segment \"{segment}\" must end at the segment's node \"{segment}\""),
            );
        }
        let node = config.nodes.iter().find(|n| n.name == segment);
        if node.is_some_and(|n| n.kind != NodeKind::Router) {
            return err(
                &l.origin,
                "to",
                format!("segment node \"{segment}\" must be a router"),
            );
        }
        stations.entry(segment).or_insert((0, &l.origin)).0 += 1;
    }
    let mut segments: Vec<_> = stations.into_iter().collect();
    segments.sort_unstable();
    for (segment, (count, origin)) in segments {
        if count < 2 {
            return err(
                origin,
                "",
                format!("shared segment \"{segment}\" has {count} station; it needs at least two"),
            );
        }
    }
    Ok(())
}

fn resolve(
    names: &HashMap<&str, u32>,
    origin: &str,
    field: &str,
    name: &str,
) -> Result<u32, ConfigError> {
    match names.get(name) {
        Some(&i) => Ok(i),
        None => {
            let mut known: Vec<&str> = names.keys().copied().collect();
            known.sort_unstable();
            let shown: Vec<&str> = known.iter().take(12).copied().collect();
            let more = if known.len() > 12 { ", ..." } else { "" };
            err(
                origin,
                field,
                format!(
                    "unknown node \"{name}\" (known nodes: {}{more})",
                    shown.join(", ")
                ),
            )
        }
    }
}

/// Validates `config` and computes everything the simulation needs to start.
pub fn plan(config: &ScenarioConfig) -> Result<Plan, ConfigError> {
    check_simulation(&config.simulation)?;
    let names = node_indices(config)?;
    let (graph, link_ends) = link_graph(config, &names)?;
    check_segments(config)?;
    check_sizes(config)?;
    let mut router = Router::new(&graph);
    let mut flow_names: HashMap<&str, usize> = HashMap::new();
    let (mut flow_ends, mut routes, mut mss) = (Vec::new(), Vec::new(), Vec::new());
    for (i, f) in config.flows.iter().enumerate() {
        if flow_names.insert(f.name.as_str(), i).is_some() {
            return err(
                &f.origin,
                "name",
                format!("flow \"{}\" is declared twice", f.name),
            );
        }
        let ends = flow_ends_of(config, &names, f)?;
        let route = match &f.path {
            Some(path) => explicit_route(&graph, &names, &f.origin, f, path)?,
            None => shortest_routes(config, &mut router, i, f, ends)?,
        };
        mss.push(check_route(config, f, &route)?);
        flow_ends.push(ends);
        routes.push(route);
    }
    Ok(Plan {
        link_ends,
        flow_ends,
        routes,
        fairness_flows: fairness_flows(config, &flow_names)?,
        mss,
    })
}

/// Each node's index by name (names unique and non-empty, at least one node).
fn node_indices(config: &ScenarioConfig) -> Result<HashMap<&str, u32>, ConfigError> {
    let mut names: HashMap<&str, u32> = HashMap::new();
    for (i, n) in config.nodes.iter().enumerate() {
        if n.name.is_empty() {
            return err(&n.origin, "name", "must not be empty");
        }
        if names.insert(n.name.as_str(), i as u32).is_some() {
            return err(
                &n.origin,
                "name",
                format!("node \"{}\" is declared twice", n.name),
            );
        }
    }
    if config.nodes.is_empty() {
        return err("node", "", "a scenario needs at least two nodes");
    }
    Ok(names)
}

/// The routing graph (each link's two directions as channels `2i`, `2i + 1`) and each
/// link's end nodes, after checking every link.
fn link_graph(
    config: &ScenarioConfig,
    names: &HashMap<&str, u32>,
) -> Result<(Graph, Vec<(u32, u32)>), ConfigError> {
    let mut graph = Graph::new(config.nodes.iter().map(|n| n.kind).collect());
    let mut link_ends = Vec::with_capacity(config.links.len());
    for (i, l) in config.links.iter().enumerate() {
        let a = resolve(names, &l.origin, "from", &l.from)?;
        let b = resolve(names, &l.origin, "to", &l.to)?;
        if a == b {
            return err(
                &l.origin,
                "to",
                format!(
                    "a link must join two different nodes (both ends are \"{}\")",
                    l.from
                ),
            );
        }
        check_link(l)?;
        graph.add_channel(a, b, 2 * i as u32, l.cost as u64);
        graph.add_channel(b, a, 2 * i as u32 + 1, l.cost as u64);
        link_ends.push((a, b));
    }
    Ok((graph, link_ends))
}

/// At least one flow, no more links and flows than the scheduler can name, and time
/// series that fit in memory.
fn check_sizes(config: &ScenarioConfig) -> Result<(), ConfigError> {
    if config.flows.is_empty() {
        return err("flow", "", "a scenario needs at least one flow");
    }
    let components = (2 * config.links.len()).max(2 * config.flows.len()) as u64;
    if components > crate::sched::MAX_COMPONENT_INDEX as u64 {
        return err(
            "link",
            "",
            format!(
                "at most {} links and {} flows",
                crate::sched::MAX_COMPONENT_INDEX / 2,
                crate::sched::MAX_COMPONENT_INDEX / 2
            ),
        );
    }
    let sim = &config.simulation;
    let cells = (config.flows.len() as u64 + 2 * config.links.len() as u64)
        .saturating_mul(sim.duration_ns.div_ceil(sim.bin_ns));
    if cells > MAX_SERIES_CELLS {
        return err("simulation", "bin", format!("{cells} time-series cells (bins × (flows + link directions)) exceed {MAX_SERIES_CELLS}: use a wider bin"));
    }
    Ok(())
}

/// A flow's (source, destination) node indices, after checking its endpoints, its
/// application and its start and stop times.
fn flow_ends_of(
    config: &ScenarioConfig,
    names: &HashMap<&str, u32>,
    f: &FlowConfig,
) -> Result<(u32, u32), ConfigError> {
    let o = f.origin.as_str();
    let src = resolve(names, o, "from", &f.from)?;
    let dst = resolve(names, o, "to", &f.to)?;
    if src == dst {
        return err(
            o,
            "to",
            format!(
                "a flow needs two different endpoints (both are \"{}\")",
                f.from
            ),
        );
    }
    check_app(o, &f.transport, &f.app)?;
    if f.start_ns >= config.simulation.duration_ns {
        return err(o, "start", "must be before the end of the simulation");
    }
    if let Some(stop) = f.stop_ns {
        if stop <= f.start_ns {
            return err(o, "stop", "must be after start");
        }
    }
    Ok((src, dst))
}

/// Flow `i`'s forward and reverse routes by `[routing]`: shortest paths, ties to the
/// first declared link or per flow by ECMP's hash of its five-tuple. The reverse route
/// is empty when there is none (UDP needs none; [`check_route`] says when one is).
fn shortest_routes(
    config: &ScenarioConfig,
    router: &mut Router,
    i: usize,
    f: &FlowConfig,
    (src, dst): (u32, u32),
) -> Result<[Vec<u32>; 2], ConfigError> {
    let flow = FiveTuple {
        src,
        dst,
        src_port: crate::wire::sender_port(i),
        dst_port: crate::wire::RECEIVER_PORT,
        protocol: f.transport.transport().ip_protocol(),
    };
    let mut route_between = |a: u32, b: u32, tuple: FiveTuple| match config.routing.multipath {
        Multipath::First => router.route(a, b),
        Multipath::Ecmp => router.route_ecmp(a, b, &tuple, config.simulation.seed),
    };
    let fwd = route_between(src, dst, flow).ok_or_else(|| {
        ConfigError::new(
            at(&f.origin, "to"),
            format!("\"{}\" is unreachable from \"{}\" (no chain of links; hosts do not forward, declare intermediate nodes with kind = \"router\")", f.to, f.from),
        )
    })?;
    let rev = route_between(dst, src, flow.reversed()).unwrap_or_default();
    Ok([fwd, rev])
}

/// Checks the flow's transport against its route (a way back where it needs one, its
/// options against the path's MTUs); returns its segment size.
fn check_route(
    config: &ScenarioConfig,
    f: &FlowConfig,
    route: &[Vec<u32>; 2],
) -> Result<u32, ConfigError> {
    let transport = f.transport.transport();
    if transport.needs_return_path() && route[1].is_empty() {
        return err(
            &f.origin,
            "from",
            format!(
                "no route back from \"{}\" to \"{}\": {} needs a return path for its acknowledgements",
                f.to,
                f.from,
                transport.name().to_uppercase()
            ),
        );
    }
    let mtu_of = |c: &u32| config.links[*c as usize / 2].mtu_bytes;
    let path_mtu = route[0]
        .iter()
        .map(mtu_of)
        .min()
        .unwrap_or(MAX_IP_PACKET_BYTES);
    let first_hop_mtu = route[0].first().map(mtu_of).unwrap_or(MAX_IP_PACKET_BYTES);
    transport.check(&f.origin, first_hop_mtu, path_mtu)
}

/// The flows Jain's index covers: every flow, or those `[metrics]` names.
fn fairness_flows(
    config: &ScenarioConfig,
    flow_names: &HashMap<&str, usize>,
) -> Result<Vec<usize>, ConfigError> {
    match &config.fairness_flows {
        None => Ok((0..config.flows.len()).collect()),
        Some(list) => list
            .iter()
            .map(|name| {
                flow_names.get(name.as_str()).copied().ok_or_else(|| {
                    ConfigError::new("metrics.fairness_flows", format!("unknown flow \"{name}\""))
                })
            })
            .collect(),
    }
}

fn explicit_route(
    graph: &Graph,
    names: &HashMap<&str, u32>,
    origin: &str,
    flow: &FlowConfig,
    path: &[String],
) -> Result<[Vec<u32>; 2], ConfigError> {
    if path.len() < 2 || path.first() != Some(&flow.from) || path.last() != Some(&flow.to) {
        return err(
            origin,
            "path",
            format!(
                "must list the nodes from \"{}\" to \"{}\", both included",
                flow.from, flow.to
            ),
        );
    }
    let ids: Vec<u32> = path
        .iter()
        .map(|n| resolve(names, origin, "path", n))
        .collect::<Result<_, _>>()?;
    let mut fwd = Vec::new();
    let mut rev = Vec::new();
    for w in ids.windows(2) {
        let hop = |a: u32, b: u32| {
            graph.channel_between(a, b).ok_or_else(|| {
                ConfigError::new(
                    at(origin, "path"),
                    format!(
                        "no link between \"{}\" and \"{}\"",
                        path[ids.iter().position(|&x| x == a).unwrap_or(0)],
                        path[ids.iter().position(|&x| x == b).unwrap_or(0)]
                    ),
                )
            })
        };
        fwd.push(hop(w[0], w[1])?);
        rev.push(hop(w[1], w[0])?);
    }
    rev.reverse();
    Ok([fwd, rev])
}
