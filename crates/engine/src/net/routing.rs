//! Static routes, computed once before the run.
//!
//! Each flow gets its route as a list of channel indices per direction; a packet
//! carries a cursor into them, so forwarding is one array lookup — no tables, no hashing
//! on the per-packet path. Routes are shortest paths by link cost (hop count by
//! default), computed by Dijkstra *towards* each destination, so all flows to one
//! destination follow one tree, exactly as destination-based static routing would.
//! Ties between equal-cost paths go to the lower channel index (the link declared
//! first), which makes routing deterministic — or, with equal-cost multipath
//! ([`Router::route_ecmp`]), to the next hop a hash of the flow's five-tuple picks at
//! each router, as switches spread flows over the paths of a fat tree (RFC 2992's
//! hash-threshold idea, applied per next-hop set). Hosts never forward: only routers
//! may be intermediate hops.

use crate::config::NodeKind;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Marks the channels that receive packets from exactly one upstream channel and from
/// no endpoint, and whose MTU is at least that channel's (so nothing is fragmented on
/// the way in). Such a channel's input is a pure function of its feeder's output,
/// which lets the simulation offer packets to it as soon as the feeder admits them.
/// `routes[f][d]` lists the channels of flow `f`'s route in direction `d`.
pub fn single_feeder_channels(routes: &[[Vec<u32>; 2]], mtu_bytes: &[u32]) -> Vec<bool> {
    #[derive(Clone, Copy, PartialEq)]
    enum Feeder {
        Unused,
        Only(u32),
        Several,
    }
    let mut feeder = vec![Feeder::Unused; mtu_bytes.len()];
    for route in routes.iter().flatten() {
        for (k, &c) in route.iter().enumerate() {
            let upstream = match k {
                0 => Feeder::Several, // an endpoint injects here
                _ => Feeder::Only(route[k - 1]),
            };
            let slot = &mut feeder[c as usize];
            *slot = match *slot {
                Feeder::Unused => upstream,
                same if same == upstream => same,
                _ => Feeder::Several,
            };
        }
    }
    feeder
        .iter()
        .zip(mtu_bytes)
        .map(|(f, &mtu)| matches!(*f, Feeder::Only(a) if mtu >= mtu_bytes[a as usize]))
        .collect()
}

/// Every flow's routes in one flat array, looked up on every hop of every packet.
/// Flat because with a thousand flows a route per heap allocation is a cache miss per
/// lookup; here a flow's two routes sit side by side and the offsets of all flows
/// take a few kilobytes. Each route ends with [`RouteTable::END`], so a packet can
/// carry a cursor into the table ([`RouteTable::first`]) and find its next channel
/// with one load ([`RouteTable::at`]).
#[derive(Debug, Clone, Default)]
pub struct RouteTable {
    /// The channels of all routes, route after route, each followed by `END`.
    hops: Vec<u32>,
    /// Route `2f + d` (flow `f`, direction `d`) starts at `hops[start[2f + d]]`.
    start: Vec<u32>,
}

impl RouteTable {
    /// What follows the last channel of each route.
    pub const END: u32 = u32::MAX;

    /// Packs `routes[f][d]` (the channels of flow `f`'s route in direction `d`).
    pub fn new(routes: &[[Vec<u32>; 2]]) -> Self {
        let mut table = RouteTable::default();
        for route in routes.iter().flatten() {
            table.start.push(table.hops.len() as u32);
            table.hops.extend_from_slice(route);
            table.hops.push(Self::END);
        }
        table
    }

    /// The cursor of the first channel of flow `flow`'s route in direction
    /// `direction` (0 forward, 1 reverse).
    #[inline]
    pub fn first(&self, flow: u32, direction: usize) -> u32 {
        self.start[2 * flow as usize + direction]
    }

    /// The channel at `cursor`, or `None` at the end of its route. The next channel
    /// of the route is at `cursor + 1`.
    #[inline]
    pub fn at(&self, cursor: u32) -> Option<u32> {
        let c = self.hops[cursor as usize];
        (c != Self::END).then_some(c)
    }
}

/// Marks the channels from whose pipe a packet reaches its endpoint in the same event:
/// the last channel of a route, or one followed only by single-feeder channels (see
/// [`single_feeder_channels`]), through which the packet is cut through. The pooled
/// packet is read at such a pop, so it is worth fetching ahead.
pub fn delivering_channels(routes: &[[Vec<u32>; 2]], single_feeder: &[bool]) -> Vec<bool> {
    let mut delivering = vec![false; single_feeder.len()];
    for route in routes.iter().flatten() {
        for &c in route.iter().rev() {
            delivering[c as usize] = true;
            if !single_feeder[c as usize] {
                break;
            }
        }
    }
    delivering
}

/// What a router hashes to spread flows over equal-cost paths: the packet's addresses
/// (here the node indices of its source and destination), ports and protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FiveTuple {
    /// Source address (node index).
    pub src: u32,
    /// Destination address (node index).
    pub dst: u32,
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// IP protocol number (6 TCP, 17 UDP, 132 SCTP).
    pub protocol: u8,
}

impl FiveTuple {
    /// The tuple of the packets going the other way.
    pub fn reversed(self) -> Self {
        FiveTuple {
            src: self.dst,
            dst: self.src,
            src_port: self.dst_port,
            dst_port: self.src_port,
            ..self
        }
    }
}

/// Which of `n` equal-cost next hops router `node` gives `flow`: a 64-bit mix of the
/// five-tuple, the router and the run's seed, reduced to `0..n`. Salting by the router
/// keeps consecutive routers from making the same choice (hash polarisation); salting
/// by the seed lets seeds average over placements, as switches' hash seeds differ
/// between fabrics.
pub fn ecmp_choice(flow: &FiveTuple, node: u32, seed: u64, n: usize) -> usize {
    let words = [
        (u64::from(flow.src) << 32) | u64::from(flow.dst),
        (u64::from(flow.src_port) << 24)
            | (u64::from(flow.dst_port) << 8)
            | u64::from(flow.protocol),
        u64::from(node),
        seed,
    ];
    let h = words
        .iter()
        .fold(0x243F_6A88_85A3_08D3_u64, |h, &w| mix64(h ^ w));
    // Multiply-shift reduction: unbiased enough for n far below 2^32, and no division.
    ((u128::from(h >> 32) * n as u128) >> 32) as usize
}

/// SplitMix64's finaliser (Steele, Lea and Flood 2014): every input bit moves every
/// output bit.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// An outgoing channel of a node.
#[derive(Debug, Clone, Copy)]
pub struct Edge {
    /// Channel index.
    pub channel: u32,
    /// Node at the far end.
    pub to: u32,
    /// Routing cost (≥ 1).
    pub cost: u64,
}

/// The graph routing works on.
#[derive(Debug, Clone)]
pub struct Graph {
    kinds: Vec<NodeKind>,
    out: Vec<Vec<Edge>>,
    incoming: Vec<Vec<(u32, Edge)>>,
}

impl Graph {
    /// A graph of nodes of the given kinds and no edges.
    pub fn new(kinds: Vec<NodeKind>) -> Self {
        let n = kinds.len();
        Graph {
            kinds,
            out: vec![Vec::new(); n],
            incoming: vec![Vec::new(); n],
        }
    }

    /// Adds the channel `channel` from `from` to `to`.
    pub fn add_channel(&mut self, from: u32, to: u32, channel: u32, cost: u64) {
        let e = Edge { channel, to, cost };
        self.out[from as usize].push(e);
        self.incoming[to as usize].push((from, e));
    }

    /// The cheapest channel from `from` directly to `to`, if they are adjacent.
    pub fn channel_between(&self, from: u32, to: u32) -> Option<u32> {
        self.out[from as usize]
            .iter()
            .filter(|e| e.to == to)
            .min_by_key(|e| (e.cost, e.channel))
            .map(|e| e.channel)
    }
}

/// Computes shortest-path routes one (source, destination) pair at a time.
///
/// Each route is a Dijkstra search *towards* the destination (over incoming channels)
/// that stops as soon as the source is settled: by then the source's next hop, and
/// that of every node on its path, is final, so the result is exactly the path the
/// destination's full next-hop tree would give, ties included. Memory stays
/// proportional to the graph (scratch arrays reused between routes), not to the
/// number of destinations × nodes.
#[derive(Debug)]
pub struct Router<'g> {
    graph: &'g Graph,
    dist: Vec<u64>,
    next: Vec<Option<Edge>>,
    done: Vec<bool>,
    touched: Vec<u32>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
}

impl<'g> Router<'g> {
    /// A router over `graph`.
    pub fn new(graph: &'g Graph) -> Self {
        let n = graph.kinds.len();
        Router {
            graph,
            dist: vec![u64::MAX; n],
            next: vec![None; n],
            done: vec![false; n],
            touched: Vec::new(),
            heap: BinaryHeap::new(),
        }
    }

    /// The channels of the shortest path from `src` to `dst`, or `None` if unreachable.
    pub fn route(&mut self, src: u32, dst: u32) -> Option<Vec<u32>> {
        self.settle_towards(dst, src);
        let mut path = Vec::new();
        let mut at = src;
        // The length bound cannot bind with positive costs; it guards against loops.
        while at != dst && path.len() <= self.next.len() {
            let Some(edge) = self.next[at as usize] else {
                break;
            };
            path.push(edge.channel);
            at = edge.to;
        }
        let reached = at == dst;
        self.reset();
        reached.then_some(path)
    }

    /// One of the shortest paths from `src` to `dst`, chosen hop by hop: at each node
    /// with several equal-cost next hops, the one [`ecmp_choice`] picks for `flow`'s
    /// five-tuple (the same flow always takes the same path). `None` if unreachable.
    pub fn route_ecmp(
        &mut self,
        src: u32,
        dst: u32,
        flow: &FiveTuple,
        seed: u64,
    ) -> Option<Vec<u32>> {
        self.settle_towards(dst, src);
        let g = self.graph;
        let mut path = Vec::new();
        let mut at = src;
        let mut candidates: Vec<Edge> = Vec::new();
        while at != dst && self.done[at as usize] && path.len() <= self.next.len() {
            // Every node closer to `dst` than `src` is settled by now, so a settled
            // neighbour whose distance plus the link's cost is ours is on a shortest path.
            let here = self.dist[at as usize];
            candidates.clear();
            candidates.extend(g.out[at as usize].iter().copied().filter(|e| {
                let d = self.dist[e.to as usize];
                self.done[e.to as usize] && d != u64::MAX && d.saturating_add(e.cost) == here
            }));
            candidates.sort_unstable_by_key(|e| e.channel);
            let chosen = match candidates.len() {
                0 => break,
                1 => candidates[0],
                n => candidates[ecmp_choice(flow, at, seed, n)],
            };
            path.push(chosen.channel);
            at = chosen.to;
        }
        let reached = at == dst;
        self.reset();
        reached.then_some(path)
    }

    /// Dijkstra from `dst` over incoming channels until `src` is settled.
    fn settle_towards(&mut self, dst: u32, src: u32) {
        let g = self.graph;
        self.relax(dst, 0, None);
        while let Some(Reverse((d, u))) = self.heap.pop() {
            if self.done[u as usize] {
                continue;
            }
            self.done[u as usize] = true;
            if u == src {
                return;
            }
            // A host other than the destination cannot pass traffic on.
            if u != dst && g.kinds[u as usize] == NodeKind::Host {
                continue;
            }
            for &(v, edge) in &g.incoming[u as usize] {
                // Nor can any host but the source start a path that matters here:
                // skipping them keeps a star of a thousand hosts off the heap.
                if v != src && g.kinds[v as usize] == NodeKind::Host {
                    continue;
                }
                let nd = d.saturating_add(edge.cost);
                let (dv, nv) = (self.dist[v as usize], self.next[v as usize]);
                let better = nd < dv || (nd == dv && nv.is_some_and(|e| edge.channel < e.channel));
                if better && !self.done[v as usize] {
                    self.relax(v, nd, Some(edge));
                }
            }
        }
    }

    fn relax(&mut self, v: u32, dist: u64, next: Option<Edge>) {
        if self.dist[v as usize] == u64::MAX {
            self.touched.push(v);
        }
        self.dist[v as usize] = dist;
        self.next[v as usize] = next;
        self.heap.push(Reverse((dist, v)));
    }

    fn reset(&mut self) {
        for &v in &self.touched {
            self.dist[v as usize] = u64::MAX;
            self.next[v as usize] = None;
            self.done[v as usize] = false;
        }
        self.touched.clear();
        self.heap.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use NodeKind::{Host, Router as R};

    /// a - r1 - b, plus a longer a - r2 - r3 - b.
    fn diamond() -> Graph {
        let mut g = Graph::new(vec![Host, R, Host, R, R]);
        let links = [(0, 1), (1, 2), (0, 3), (3, 4), (4, 2)];
        for (i, &(x, y)) in links.iter().enumerate() {
            g.add_channel(x, y, 2 * i as u32, 1);
            g.add_channel(y, x, 2 * i as u32 + 1, 1);
        }
        g
    }

    #[test]
    fn picks_the_fewest_hops() {
        let g = diamond();
        assert_eq!(Router::new(&g).route(0, 2), Some(vec![0, 2]));
        assert_eq!(Router::new(&g).route(2, 0), Some(vec![3, 1]));
    }

    #[test]
    fn equal_cost_ties_go_to_the_first_declared_link() {
        // Two parallel two-hop paths a-r1-b and a-r2-b.
        let mut g = Graph::new(vec![Host, R, R, Host]);
        for (i, &(x, y)) in [(0, 2), (2, 3), (0, 1), (1, 3)].iter().enumerate() {
            g.add_channel(x, y, 2 * i as u32, 1);
            g.add_channel(y, x, 2 * i as u32 + 1, 1);
        }
        assert_eq!(Router::new(&g).route(0, 3), Some(vec![0, 2]));
    }

    #[test]
    fn hosts_do_not_forward() {
        // a - h - b where h is a host: unreachable.
        let mut g = Graph::new(vec![Host, Host, Host]);
        g.add_channel(0, 1, 0, 1);
        g.add_channel(1, 2, 2, 1);
        assert_eq!(Router::new(&g).route(0, 2), None);
    }

    /// Dumbbell with two pairs. Channels: access a0→L 0, a1→L 2, bottleneck L→R 4,
    /// R→b0 6, R→b1 8; reverses are +1. Only R→b0, R→b1 (fed by L→R) and L→a0, L→a1
    /// (fed by R→L) have a single feeder; the bottleneck has two, access links an
    /// endpoint.
    #[test]
    fn single_feeders_of_a_dumbbell() {
        let routes = [
            [vec![0, 4, 6], vec![7, 5, 1]],
            [vec![2, 4, 8], vec![9, 5, 3]],
        ];
        let mtu = [1500; 10];
        let single: Vec<usize> = single_feeder_channels(&routes, &mtu)
            .iter()
            .enumerate()
            .filter_map(|(c, &s)| s.then_some(c))
            .collect();
        assert_eq!(single, vec![1, 3, 6, 8]);
    }

    /// A channel fed by one upstream channel is not cut through when its MTU is
    /// smaller (packets would be fragmented on entering it), nor when an endpoint also
    /// injects into it.
    #[test]
    fn smaller_mtu_or_local_traffic_disqualifies() {
        let routes = [
            [vec![0, 4, 6], vec![7, 5, 1]],
            [vec![2, 4, 8], vec![9, 5, 3]],
        ];
        let mut mtu = [1500; 10];
        mtu[6] = 576;
        let single = single_feeder_channels(&routes, &mtu);
        assert!(!single[6] && single[8]);

        let routes = [[vec![0, 4, 6], vec![]], [vec![6], vec![]]];
        let single = single_feeder_channels(&routes, &[1500; 10]);
        assert!(single[4] && !single[6]);
    }

    /// In the same dumbbell a packet popped from the bottleneck (either way) is cut
    /// through the single-feeder last link to its endpoint, so the bottleneck
    /// delivers; the first link of each route (fed by an endpoint, then merging into
    /// the bottleneck) does not.
    #[test]
    fn delivering_channels_of_a_dumbbell() {
        let routes = [
            [vec![0, 4, 6], vec![7, 5, 1]],
            [vec![2, 4, 8], vec![9, 5, 3]],
        ];
        let single = single_feeder_channels(&routes, &[1500; 10]);
        let delivering: Vec<usize> = delivering_channels(&routes, &single)
            .iter()
            .enumerate()
            .filter_map(|(c, &d)| d.then_some(c))
            .collect();
        assert_eq!(delivering, vec![1, 3, 4, 5, 6, 8]);
    }

    /// A cursor walked from each route's first channel meets the nested lists'
    /// channels in order, then `None` one past the route's end, empty routes included.
    #[test]
    fn route_table_matches_the_nested_routes() {
        let routes = [
            [vec![0, 4, 6], vec![7, 5, 1]],
            [vec![], vec![9]],
            [vec![2, 4, 8], vec![]],
        ];
        let table = RouteTable::new(&routes);
        for (f, pair) in routes.iter().enumerate() {
            for (d, route) in pair.iter().enumerate() {
                let first = table.first(f as u32, d);
                for k in 0..=route.len() {
                    assert_eq!(
                        table.at(first + k as u32),
                        route.get(k).copied(),
                        "flow {f} dir {d} hop {k}"
                    );
                }
            }
        }
    }

    /// A k-ary fat tree built by hand: hosts 0..k³/4, then edge, aggregation and core
    /// switches; returns the graph and, per channel, the node it leads to.
    fn fat_tree(k: u32) -> (Graph, Vec<u32>) {
        let half = k / 2;
        let hosts = k * k * k / 4;
        let edge = |p: u32, e: u32| hosts + p * half + e;
        let agg = |p: u32, a: u32| hosts + k * half + p * half + a;
        let core = |j: u32| hosts + 2 * k * half + j;
        let n = hosts + 2 * k * half + half * half;
        let kinds = (0..n).map(|v| if v < hosts { Host } else { R }).collect();
        let mut links = Vec::new();
        for h in 0..hosts {
            links.push((h, edge(h / (half * half), (h / half) % half)));
        }
        for p in 0..k {
            for e in 0..half {
                for a in 0..half {
                    links.push((edge(p, e), agg(p, a)));
                }
            }
            for a in 0..half {
                for j in 0..half {
                    links.push((agg(p, a), core(a * half + j)));
                }
            }
        }
        let mut g = Graph::new(kinds);
        let mut leads_to = Vec::new();
        for (i, &(x, y)) in links.iter().enumerate() {
            g.add_channel(x, y, 2 * i as u32, 1);
            g.add_channel(y, x, 2 * i as u32 + 1, 1);
            leads_to.extend([y, x]);
        }
        (g, leads_to)
    }

    fn tuple(src: u32, dst: u32, port: u16) -> FiveTuple {
        FiveTuple {
            src,
            dst,
            src_port: port,
            dst_port: 5001,
            protocol: 6,
        }
    }

    /// Hosts of one edge switch are 2 hops apart, of one pod 4, of different pods 6
    /// (Al-Fares et al. 2008, section 3.2): ECMP's routes are always shortest.
    #[test]
    fn ecmp_routes_of_a_fat_tree_are_shortest() {
        let k = 4;
        let (g, _) = fat_tree(k);
        let mut router = Router::new(&g);
        let hosts = k * k * k / 4;
        let (per_edge, per_pod) = (k / 2, k * k / 4);
        for a in 0..hosts {
            for b in (0..hosts).filter(|&b| b != a) {
                let hops = if a / per_edge == b / per_edge {
                    2
                } else if a / per_pod == b / per_pod {
                    4
                } else {
                    6
                };
                for port in 0..8 {
                    let path = router.route_ecmp(a, b, &tuple(a, b, port), 1).unwrap();
                    assert_eq!(path.len(), hops, "{a} -> {b}");
                }
            }
        }
    }

    /// Between two pods there are (k/2)² paths, one per core switch. "first" puts every
    /// flow of a host pair on one of them; ECMP spreads 4,000 flows (different source
    /// ports) within 10% of even, and a flow keeps its path.
    #[test]
    fn ecmp_spreads_flows_over_the_core_and_first_does_not() {
        let k = 4;
        let (g, leads_to) = fat_tree(k);
        let mut router = Router::new(&g);
        let (src, dst) = (0, 15); // pod 0 to pod 3
        let cores = (k / 2) * (k / 2);
        let first_core = |path: &[u32]| leads_to[path[2] as usize];
        let mut counts = std::collections::HashMap::new();
        let flows = 4000;
        for port in 0..flows {
            let t = tuple(src, dst, 10_000 + port);
            let path = router.route_ecmp(src, dst, &t, 7).unwrap();
            assert_eq!(router.route_ecmp(src, dst, &t, 7).unwrap(), path);
            *counts.entry(first_core(&path)).or_insert(0u32) += 1;
        }
        assert_eq!(counts.len() as u32, cores, "{counts:?}");
        let even = f64::from(flows) / f64::from(cores);
        for (&c, &n) in &counts {
            assert!(
                (f64::from(n) / even - 1.0).abs() < 0.1,
                "core {c}: {n} of {flows}"
            );
        }
        // "first" has no tuple to hash: every flow of the pair crosses the first core
        // switch declared (core 0, node hosts + 2·k·k/2).
        let first = router.route(src, dst).unwrap();
        assert_eq!((first.len(), first_core(&first)), (6, 16 + 2 * k * (k / 2)));
    }

    /// The seed salts the hash: another seed moves some flows to other paths.
    #[test]
    fn the_seed_salts_the_ecmp_hash() {
        let (g, _) = fat_tree(4);
        let mut router = Router::new(&g);
        let moved = (0..200)
            .filter(|&port| {
                let t = tuple(0, 15, port);
                router.route_ecmp(0, 15, &t, 1) != router.route_ecmp(0, 15, &t, 2)
            })
            .count();
        // With four equal paths a flow keeps its path with probability 1/4 by chance.
        assert!((110..=190).contains(&moved), "{moved} of 200 moved");
    }

    #[test]
    fn ecmp_choice_stays_in_range_and_uses_every_choice() {
        for n in 1..=9 {
            let mut seen = vec![false; n];
            for port in 0..500 {
                let c = ecmp_choice(&tuple(1, 2, port), 3, 0, n);
                seen[c] = true;
            }
            assert!(seen.iter().all(|&s| s), "n = {n}");
        }
    }
}
