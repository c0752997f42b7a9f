//! The observer hook (`tcplab_engine::observe`): every packet's events with the times a
//! hand calculation gives, and the event counts against the run's own counters.

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use tcplab_engine::config::*;
use tcplab_engine::metrics::DropCause;
use tcplab_engine::net::packet::Packet;
use tcplab_engine::observe::{PacketEvent, PacketObserver};
use tcplab_engine::{RunResults, SimTime, Simulation};

const MS: u64 = 1_000_000;

/// (now, at, event) of every call, in call order.
type Log = Arc<Mutex<Vec<(u64, u64, PacketEvent)>>>;
/// (event, IP bytes, fragment, the packet's fragment word) of every call.
type PacketLog = Arc<Mutex<Vec<(PacketEvent, u32, bool, u16)>>>;

#[derive(Debug)]
struct Recorder(Log, PacketLog);

impl PacketObserver for Recorder {
    fn on_event(
        &mut self,
        now: SimTime,
        at: SimTime,
        event: PacketEvent,
        packet: &Packet,
        ip_bytes: u32,
        fragment: bool,
    ) {
        self.0.lock().unwrap().push((now.0, at.0, event));
        let word = packet.fragment_word;
        self.1
            .lock()
            .unwrap()
            .push((event, ip_bytes, fragment, word));
    }
}

/// The run's results, its events, and what each event said of its packet.
struct Observed {
    results: RunResults,
    events: Vec<(u64, u64, PacketEvent)>,
    packets: Vec<(PacketEvent, u32, bool, u16)>,
}

fn observe(cfg: ScenarioConfig) -> Observed {
    let (log, packets) = (Log::default(), PacketLog::default());
    let mut sim = Simulation::new(cfg).unwrap();
    sim.set_observer(Box::new(Recorder(log.clone(), packets.clone())));
    let results = sim.run().unwrap();
    let events = log.lock().unwrap().clone();
    let packets = packets.lock().unwrap().clone();
    Observed {
        results,
        events,
        packets,
    }
}

fn observed(cfg: ScenarioConfig) -> (RunResults, Vec<(u64, u64, PacketEvent)>) {
    let o = observe(cfg);
    (o.results, o.events)
}

fn count(events: &[(u64, u64, PacketEvent)], wanted: PacketEvent) -> usize {
    events.iter().filter(|(_, _, e)| *e == wanted).count()
}

/// a -(8 Mb/s, 2 ms)- r -(1 Mb/s, 5 ms)- b, 1,000-byte IP packets (972 B of payload)
/// every 15.552 ms (0.5 Mb/s of payload) for 1 s: nothing ever waits. A packet sent at
/// t is serialized on the first link until t + 1 ms, reaches r at t + 3 ms, is
/// serialized on the bottleneck until t + 11 ms and reaches b at t + 16 ms. Packets
/// k = 0…64 are sent (64 · 15.552 ms = 995.3 ms); those with t + 11 ms ≤ 1 s
/// (k ≤ 63) finish the bottleneck and those with t + 16 ms ≤ 1 s (k ≤ 63) arrive.
#[test]
fn every_event_of_an_unqueued_packet_comes_at_its_hand_computed_time() {
    let mut cfg = two_hops(8_000_000, 2 * MS, 1_000_000, 5 * MS, droptail(100));
    cfg.simulation.duration_ns = 1_000 * MS;
    cfg.flows.push(udp_flow("f", "a", "b", cbr(500_000, 972)));
    let (results, events) = observed(cfg);

    let (first_hop, bottleneck) = (0, 2); // channel 2k is link k's forward direction
    let first: Vec<_> = events.iter().take(6).map(|&(_, at, e)| (at, e)).collect();
    assert_eq!(
        first,
        vec![
            (0, PacketEvent::Sent { channel: first_hop }),
            (0, PacketEvent::Enqueued { channel: first_hop }),
            (MS, PacketEvent::Transmitted { channel: first_hop }),
            (
                3 * MS,
                PacketEvent::Enqueued {
                    channel: bottleneck
                }
            ),
            (
                11 * MS,
                PacketEvent::Transmitted {
                    channel: bottleneck
                }
            ),
            (
                16 * MS,
                PacketEvent::Delivered {
                    channel: bottleneck
                }
            ),
        ]
    );
    assert_eq!(count(&events, PacketEvent::Sent { channel: first_hop }), 65);
    assert_eq!(
        count(&events, PacketEvent::Enqueued { channel: first_hop }),
        65
    );
    assert_eq!(
        count(&events, PacketEvent::Transmitted { channel: first_hop }),
        65
    );
    assert_eq!(
        count(
            &events,
            PacketEvent::Enqueued {
                channel: bottleneck
            }
        ),
        65
    );
    assert_eq!(
        count(
            &events,
            PacketEvent::Transmitted {
                channel: bottleneck
            }
        ),
        64
    );
    assert_eq!(
        count(
            &events,
            PacketEvent::Delivered {
                channel: bottleneck
            }
        ),
        64
    );
    assert_eq!(events.len(), 65 * 4 + 64 * 2, "no other event");
    let flow = &results.flows[0];
    assert_eq!((flow.packets_sent, flow.packets_delivered), (65, 64));
}

/// 2 Mb/s of CBR into a 1 Mb/s bottleneck with a 5-packet queue for 2 s: about half
/// the packets are tail-dropped. The observer's counts are the run's own, and every
/// packet is accounted for: sent = delivered + dropped + still in flight.
#[test]
fn event_counts_match_the_runs_counters_under_tail_drop() {
    let mut cfg = two_hops(100_000_000, MS, 1_000_000, 10 * MS, droptail(5));
    cfg.simulation.duration_ns = 2_000 * MS;
    cfg.flows.push(udp_flow("f", "a", "b", cbr(2_000_000, 972)));
    let (results, events) = observed(cfg);
    let flow = &results.flows[0];
    let sent = events
        .iter()
        .filter(|(_, _, e)| matches!(e, PacketEvent::Sent { .. }))
        .count() as u64;
    let delivered = events
        .iter()
        .filter(|(_, _, e)| matches!(e, PacketEvent::Delivered { .. }))
        .count() as u64;
    let tail_drops = count(
        &events,
        PacketEvent::Dropped {
            cause: DropCause::Queue,
        },
    ) as u64;
    println!(
        "sent {sent}, delivered {delivered}, tail drops {tail_drops}, in flight {}",
        flow.packets_in_flight
    );
    assert!(
        tail_drops > sent / 3,
        "the bottleneck must drop about half: {tail_drops} of {sent}"
    );
    assert_eq!(sent, flow.packets_sent);
    assert_eq!(delivered, flow.packets_delivered);
    assert_eq!(tail_drops, flow.drops.queue);
    assert_eq!(sent, delivered + tail_drops + flow.packets_in_flight);
    let bottleneck_tx = count(&events, PacketEvent::Transmitted { channel: 2 }) as u64;
    let link = results.links.iter().find(|l| l.id == "r->b").unwrap();
    assert_eq!(bottleneck_tx, link.tx_packets);
    assert_eq!(tail_drops, link.drops.queue);
}

/// The promise in `PacketObserver`'s contract: calls come in simulation order, and no
/// event reported later happens before the `now` of an earlier call.
#[test]
fn events_never_go_back_in_time() {
    let mut cfg = dumbbell(4, 100_000_000, MS, 10_000_000, 20 * MS, droptail(20));
    cfg.simulation.duration_ns = 3_000 * MS;
    add_bulk_flows(&mut cfg, 4, &tcp(), 100 * MS);
    let (_, events) = observed(cfg);
    assert!(events.len() > 10_000);
    let mut last_now = 0;
    for &(now, at, event) in &events {
        assert!(now >= last_now, "clock went back: {now} after {last_now}");
        assert!(at >= now, "{event:?} at {at} before now {now}");
        last_now = now;
    }
}

/// RFC 791 fragmentation as the observer sees it: a 9,000-byte UDP datagram (8,980
/// bytes after the IP header) crosses links of MTU 9,000, 4,000 and 1,500. Cut for the
/// 4,000-byte link into 3,976 + 3,976 + 1,028 bytes (offsets 0, 497, 994 units of 8),
/// and each of those again for the 1,500-byte link, the pieces delivered must still
/// tile the 8,980 bytes exactly, offsets counted from the original datagram, with
/// "more fragments" on every piece but the one that ends it: 3 + 3 + 1 = 7 pieces.
#[test]
fn fragments_carry_offsets_from_the_original_datagram() {
    let mut cfg = two_hops(1_000_000_000, MS, 1_000_000_000, MS, droptail(100));
    cfg.nodes.push(node("r2", NodeKind::Router));
    cfg.links = vec![
        link("a", "r", 1_000_000_000, MS, 9000, droptail(100)),
        link("r", "r2", 1_000_000_000, MS, 4000, droptail(100)),
        link("r2", "b", 1_000_000_000, MS, 1500, droptail(100)),
    ];
    cfg.simulation.duration_ns = 100 * MS;
    // One datagram: a rate so low that the next would leave after the run.
    cfg.flows.push(udp_flow("f", "a", "b", cbr(100_000, 8972)));
    let packets = observe(cfg).packets;
    let mut delivered: Vec<(u32, u16)> = packets
        .iter()
        .filter(|(e, _, _, _)| matches!(e, PacketEvent::Delivered { .. }))
        .map(|&(_, ip_bytes, fragment, word)| {
            assert!(fragment);
            (ip_bytes, word)
        })
        .collect();
    delivered.sort_by_key(|&(_, word)| word & 0x1fff);
    let offsets: Vec<u32> = delivered
        .iter()
        .map(|&(_, w)| u32::from(w & 0x1fff) * 8)
        .collect();
    let sizes: Vec<u32> = delivered.iter().map(|&(b, _)| b - 20).collect();
    assert_eq!(offsets, vec![0, 1480, 2960, 3976, 5456, 6936, 7952]);
    assert_eq!(sizes, vec![1480, 1480, 1016, 1480, 1480, 1016, 1028]);
    for k in 0..delivered.len() {
        let more = delivered[k].1 & 0x2000 != 0;
        assert_eq!(more, k + 1 < delivered.len(), "MF of piece {k}");
        if k + 1 < delivered.len() {
            assert_eq!(
                offsets[k] + sizes[k],
                offsets[k + 1],
                "pieces {k} and {} tile",
                k + 1
            );
        }
    }
    assert_eq!(offsets[6] + sizes[6], 8980);
}
