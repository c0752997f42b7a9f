//! The TCP and network details that the source studies' numbers hinge on, each against
//! a hand-worked expectation: the timer restart on fast retransmit, Limited Transmit,
//! send jitter, zero-delay links, where loss is applied, and shared half-duplex
//! segments.

mod common;

use common::*;
use tcplab_engine::config::*;
use tcplab_engine::{RunResults, Simulation};

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

fn run(cfg: ScenarioConfig) -> RunResults {
    Simulation::new(cfg).unwrap().run().unwrap()
}

fn packets(n: u64) -> Amount {
    Amount {
        value: n,
        unit: SizeUnit::Packets,
    }
}

/// a -(1 Gbps, 1 ms)- r -(1 Mbps, 49 ms)- b: a 8-segment window fills the 1 Mbps link
/// (12 ms per 1500-B packet, base RTT 100 ms + 12 ms), so ACKs come back 12 ms apart.
fn slow_path(tcp: TcpConfig, drop: u64) -> RunResults {
    let mut cfg = two_hops(1_000_000_000, MS, 1_000_000, 49 * MS, droptail(100));
    cfg.simulation.duration_ns = 10 * S;
    cfg.links[0].forward.loss = LossConfig::List {
        packets: vec![drop],
    };
    let t = TcpConfig {
        handshake: false,
        receive_buffer: packets(8),
        ..tcp
    };
    cfg.flows.push(tcp_flow("f", "a", "b", t, AppConfig::Bulk));
    run(cfg)
}

/// The fixed-RTO regime of the LAN study: RTO 150 ms against an RTT of 112–124 ms.
/// The last new ACK before the hole arrives at T0; the three duplicate ACKs follow 12 ms
/// apart, so the fast retransmit leaves at T0 + 36 ms and its ACK returns about one RTT
/// later, at T0 + ~160 ms. A timer left running from T0 would fire at T0 + 150 ms
/// (a spurious timeout after every fast retransmit); restarted by the fast retransmit it
/// fires at T0 + 186 ms, after the ACK. Expected: one fast retransmit, no timeout.
#[test]
fn fast_retransmit_restarts_the_timer_so_a_fixed_rto_above_the_rtt_never_fires() {
    for limited_transmit in [false, true] {
        let mut t = tcp();
        t.rto.fixed_ns = Some(150 * MS);
        t.limited_transmit = limited_transmit;
        let res = slow_path(t, 200);
        let f = &res.flows[0];
        println!(
            "limited transmit {limited_transmit}: fast retransmits {:?} (expected 1), timeouts {:?} (expected 0), retransmits {:?} (expected 1)",
            f.fast_retransmits, f.rto_count, f.retransmits
        );
        assert_eq!(
            (f.fast_retransmits, f.rto_count, f.retransmits),
            (Some(1), Some(0), Some(1))
        );
    }
}

/// RFC 3042 section 1: a loss in an initial window of 3 segments leaves only 2
/// segments behind the hole, hence 2 duplicate ACKs: without Limited Transmit the
/// sender can never reach DupThresh and must wait for the timeout; with it, each
/// duplicate ACK releases one new segment, whose ACKs are the 3rd and 4th duplicates.
#[test]
fn limited_transmit_turns_a_small_window_timeout_into_a_fast_retransmit() {
    let outcome = |limited_transmit| {
        let mut cfg = two_hops(1_000_000_000, MS, 10_000_000, 49 * MS, droptail(100));
        cfg.simulation.duration_ns = 5 * S;
        cfg.links[0].forward.loss = LossConfig::List { packets: vec![1] };
        let t = TcpConfig {
            handshake: false,
            initial_window_segments: 3,
            limited_transmit,
            ..tcp()
        };
        cfg.flows.push(tcp_flow("f", "a", "b", t, AppConfig::Bulk));
        let res = run(cfg);
        let f = &res.flows[0];
        (f.fast_retransmits.unwrap(), f.rto_count.unwrap())
    };
    let (off, on) = (outcome(false), outcome(true));
    println!(
        "IW 3, first segment lost: without Limited Transmit (FR, RTO) = {off:?}, with = {on:?}"
    );
    assert_eq!(off, (0, 1));
    assert_eq!(on, (1, 0));
}

/// Isolated random losses on a long fat path (1 Gbps, RTT 150 ms, SACK, the window
/// held below BDP + queue by the receiver so only the listed packets are lost): each
/// loss costs one fast retransmit, one retransmission and one halving — no timeout.
#[test]
fn isolated_losses_on_a_long_fat_path_cost_one_halving_each_and_no_timeout() {
    let mut cfg = two_hops(1_000_000_000, MS, 1_000_000_000, 74 * MS, droptail(5000));
    cfg.simulation.duration_ns = 8 * S;
    cfg.simulation.bin_ns = 10 * MS;
    let drops = vec![40_000, 120_000, 200_000];
    cfg.links[1].forward.loss = LossConfig::List {
        packets: drops.clone(),
    };
    let t = TcpConfig {
        handshake: false,
        sack: true,
        receive_buffer: packets(14_000),
        ..tcp()
    };
    cfg.flows.push(tcp_flow("f", "a", "b", t, AppConfig::Bulk));
    let res = run(cfg);
    let f = &res.flows[0];
    let ssthresh = res.flow_series[0].ssthresh_bytes.as_ref().unwrap();
    let mut distinct: Vec<f32> = ssthresh.iter().copied().filter(|v| !v.is_nan()).collect();
    distinct.dedup();
    println!(
        "{} drops: fast retransmits {:?}, timeouts {:?}, retransmits {:?}, ssthresh values {:?}",
        f.packets_dropped, f.fast_retransmits, f.rto_count, f.retransmits, distinct
    );
    assert_eq!(f.packets_dropped, 3);
    assert_eq!(
        (f.fast_retransmits, f.rto_count, f.retransmits),
        (Some(3), Some(0), Some(3))
    );
    assert_eq!(distinct.len(), 3, "one halving per loss");
}

/// ns-2's `overhead_`: every sending opportunity waits U[0, x] first. A stop-and-wait
/// flow (window 1 segment) on a path of RTT R sends one segment per R + U, so over T
/// seconds it delivers about T / (R + x/2) segments. R = 100 ms + 2 serializations
/// of the 1500-B segment (12 µs at 1 Gbps, 12 ms at 1 Mbps) and of the 40-B ACK
/// (0.32 µs, 320 µs) = 112.332 ms; with x = 50 ms the mean cycle is 137.332 ms: 728.2
/// segments in 100 s (sd of the count ≈ √n·σ_U/cycle ≈ 2.8; 5 sd allowed). Without
/// jitter: 100 / 0.112332 = 890.2.
#[test]
fn send_jitter_delays_every_ack_clocked_transmission() {
    let delivered = |jitter_ns| {
        let mut cfg = two_hops(1_000_000_000, MS, 1_000_000, 49 * MS, droptail(100));
        cfg.simulation.duration_ns = 100 * S;
        let t = TcpConfig {
            handshake: false,
            receive_buffer: packets(1),
            initial_window_segments: 1,
            send_jitter_ns: jitter_ns,
            ..tcp()
        };
        cfg.flows.push(tcp_flow("f", "a", "b", t, AppConfig::Bulk));
        let res = run(cfg);
        res.flows[0].delivered_bytes as f64 / 1460.0
    };
    let (plain, jittered) = (delivered(0), delivered(50 * MS));
    println!("segments in 100 s: no jitter {plain:.1} (expected 890.2), 50 ms jitter {jittered:.1} (expected 728.2 ± 14)");
    assert!((plain - 890.2).abs() <= 1.0, "{plain}");
    assert!((jittered - 728.2).abs() <= 14.0, "{jittered}");
}

/// ns-2 scripts use zero-delay links: a packet then arrives when its serialization
/// ends. 1028-byte datagrams (1000 B payload + 28 B headers) over 100 Mbps and 10 Mbps
/// links with no propagation delay: 82,240 + 822,400 ns.
#[test]
fn zero_delay_links_deliver_after_serialization_alone() {
    let mut cfg = two_hops(100_000_000, 0, 10_000_000, 0, droptail(100));
    cfg.flows
        .push(udp_flow("f", "a", "b", cbr(6_000_000, 1000)));
    let res = run(cfg);
    let f = &res.flows[0];
    assert_eq!(f.delay_ms.min, Some(0.90464));
    assert_eq!(f.delay_ms.max, Some(0.90464));
}

/// Loss before the queue (ns-2's `lossmodel`) removes packets before they take a
/// place in the queue or time on the link; after serialization (the default) they
/// still use the link. An overloaded 10 Mbps link fed 20 Mbps of CBR with every
/// second packet lost: before the queue the link sees 10 Mbps offered and drops
/// nothing at its queue; after serialization it sends at capacity, drops the excess
/// at the queue, and half of what it sends is then lost.
#[test]
fn loss_before_the_queue_spares_the_queue_and_the_link() {
    let outcome = |placement| {
        let mut cfg = two_hops(100_000_000, MS, 10_000_000, MS, droptail(50));
        cfg.links[1].forward.loss = LossConfig::EveryNth { n: 2, offset: 0 };
        cfg.links[1].forward.loss_placement = placement;
        // 1222 B of payload + 28 B of headers: 2000 packets of 1250 B per second.
        cfg.flows
            .push(udp_flow("f", "a", "b", cbr(2000 * 1222 * 8, 1222)));
        let res = run(cfg);
        let f = &res.flows[0];
        (f.drops.queue, f.drops.random, f.goodput_bps)
    };
    let (q_before, r_before, g_before) = outcome(LossPlacement::BeforeQueue);
    let (q_after, r_after, g_after) = outcome(LossPlacement::AfterSerialization);
    println!("before queue: queue drops {q_before}, random {r_before}, goodput {g_before:.0}; after: {q_after}, {r_after}, {g_after:.0}");
    // 2000 packets/s for 10 s, every second one lost: the link is offered exactly its rate.
    assert_eq!(q_before, 0);
    assert!((r_before as f64 - 10_000.0).abs() <= 1.0);
    // Half of the offered 20 Mbps: 10 Mbps of packets, 1222/1250 of it payload.
    assert!((g_before / (10e6 * 1222.0 / 1250.0) - 1.0).abs() < 0.01);
    // After serialization: the link carries 10 Mbps (1000 pkt/s), loses half.
    assert!((q_after as f64 - 10_000.0).abs() <= 60.0);
    assert!((g_after / (5e6 * 1222.0 / 1250.0) - 1.0).abs() < 0.01);
}

/// Stations s0..s{n-1} on one shared segment, each with a CBR flow to the next station.
fn segment(n: usize, rate_each_bps: u64) -> ScenarioConfig {
    let mut nodes = vec![node("lan", NodeKind::Router)];
    let mut links = vec![];
    for i in 0..n {
        let name = format!("s{i}");
        nodes.push(node(&name, NodeKind::Host));
        let mut l = link(&name, "lan", 10_000_000, 10_000, 1500, droptail(50));
        l.segment = Some("lan".into());
        links.push(l);
    }
    let flows = (0..n)
        .map(|i| {
            let to = format!("s{}", (i + 1) % n);
            udp_flow(
                &format!("f{i}"),
                &format!("s{i}"),
                &to,
                cbr(rate_each_bps, 972),
            )
        })
        .collect();
    ScenarioConfig {
        simulation: ten_seconds(),
        nodes,
        links,
        flows,
        fairness_flows: None,
        routing: Default::default(),
    }
}

/// One station alone gets the whole segment; N saturated stations share it equally;
/// and a frame crosses the segment once: delay = serialization + propagation.
#[test]
fn a_shared_segment_carries_one_frame_at_a_time_and_shares_it_fairly() {
    // 1000-byte packets (972 B payload + 28 B headers): 800 µs each at 10 Mbps.
    let alone = run(segment(2, 5_000_000));
    let f = &alone.flows[0];
    assert_eq!(
        f.delay_ms.min,
        Some(0.81),
        "800 µs serialization + 10 µs propagation"
    );
    let mut one = segment(2, 20_000_000);
    one.flows.truncate(1);
    let res = run(one);
    let capacity_payload = 10e6 * 972.0 / 1000.0;
    let g = res.flows[0].goodput_bps;
    println!(
        "one saturated station: {:.3} Mbit/s of payload (capacity {:.3})",
        g / 1e6,
        capacity_payload / 1e6
    );
    assert!((g / capacity_payload - 1.0).abs() < 0.005);
    for n in [2, 10] {
        let res = run(segment(n, 20_000_000));
        let goodputs: Vec<f64> = res.flows.iter().map(|f| f.goodput_bps).collect();
        let total: f64 = goodputs.iter().sum();
        println!(
            "{n} saturated stations: total {:.3} Mbit/s, each {:.3}..{:.3}, Jain {:.4}",
            total / 1e6,
            goodputs.iter().cloned().fold(f64::MAX, f64::min) / 1e6,
            goodputs.iter().cloned().fold(0.0, f64::max) / 1e6,
            res.fairness.jain.unwrap()
        );
        assert!((total / capacity_payload - 1.0).abs() < 0.005, "{total}");
        for g in goodputs {
            assert!(
                (g / (capacity_payload / n as f64) - 1.0).abs() < 0.01,
                "{g}"
            );
        }
    }
}

/// Half duplex: two stations sending to each other share the segment, where a
/// full-duplex link would give each direction its full rate.
#[test]
fn a_shared_segment_is_half_duplex() {
    let res = run(segment(2, 20_000_000));
    let total: f64 = res.flows.iter().map(|f| f.goodput_bps).sum();
    assert!(
        (total / (10e6 * 972.0 / 1000.0) - 1.0).abs() < 0.005,
        "{total}"
    );
}

/// Reno with two holes in one window of 8 (segments 200 and 202 of the slow path): the
/// fast retransmit repairs the first; its ACK is partial, ends Reno's recovery and
/// leaves snd_una at the second hole, below `recover`. RFC 6582 3.2 step 2 — which
/// ns-2's Reno applies too (`bugFix_`, on by default) — forbids a second fast
/// retransmit for duplicates that do not cover more than `recover`, so the second hole
/// waits for the timer: one fast retransmit, one timeout, one halving before it.
#[test]
fn reno_does_not_fast_retransmit_twice_for_holes_of_one_window() {
    let mut cfg = two_hops(1_000_000_000, MS, 1_000_000, 49 * MS, droptail(100));
    cfg.simulation.duration_ns = 10 * S;
    cfg.links[0].forward.loss = LossConfig::List {
        packets: vec![200, 202],
    };
    let t = TcpConfig {
        cc: CcConfig::reno(),
        handshake: false,
        receive_buffer: packets(8),
        ..tcp()
    };
    cfg.flows.push(tcp_flow("f", "a", "b", t, AppConfig::Bulk));
    let res = run(cfg);
    let f = &res.flows[0];
    println!(
        "Reno, two holes in one window: fast retransmits {:?} (expected 1), timeouts {:?} (expected 1)",
        f.fast_retransmits, f.rto_count
    );
    assert_eq!((f.fast_retransmits, f.rto_count), (Some(1), Some(1)));
}

/// Data packets one bulk TCP flow sends in `duration_ns` over two 1 Gbps hops of 1 and
/// 49 ms (RTT ≈ 100 ms, so the count shows the window's growth round by round).
fn segments_sent_on_100ms_path(duration_ns: u64, queue_packets: u64, t: TcpConfig) -> u64 {
    let mut cfg = two_hops(
        1_000_000_000,
        MS,
        1_000_000_000,
        49 * MS,
        droptail(queue_packets),
    );
    cfg.simulation.duration_ns = duration_ns;
    cfg.flows.push(tcp_flow("f", "a", "b", t, AppConfig::Bulk));
    run(cfg).flows[0].packets_sent
}

/// ns-2's `delay_growth_`: one segment in the first round trip, the initial window
/// only once it is acknowledged. Path RTT ≈ 100 ms (1 Gbps links, 1 + 49 ms), IW 4,
/// run for 150 ms: with it, 1 segment at t = 0 and 4 when its ACK returns (5 sent);
/// without it, 4 at t = 0 and 2 per returning ACK (4 + 8 = 12 sent).
#[test]
fn delay_growth_sends_one_segment_then_the_initial_window() {
    let sent = |delay_growth| {
        let t = TcpConfig {
            handshake: false,
            initial_window_segments: 4,
            ack_every: 1,
            delay_growth,
            ..tcp()
        };
        segments_sent_on_100ms_path(150 * MS, 100, t)
    };
    let (with, without) = (sent(true), sent(false));
    println!("segments sent in 150 ms: delay_growth {with} (expected 5), without {without} (expected 12)");
    assert_eq!((with, without), (5, 12));
}

/// RFC 3465 byte counting against ns-2's one segment per ACK, with an ACK for every
/// second segment (the delayed-ACK timer, 500 ms, never fires in 350 ms). Path RTT
/// ≈ 100 ms, IW 4. Bytes: each ACK covers 2 segments and adds 2 (L = 2·SMSS), so the
/// window doubles per round trip: 4, 8, 16, 32 segments sent by the 4th round trip
/// (60). Per ACK: each ACK adds 1, so the window grows by half: 4, 6, 9, 13 — but the
/// 9th segment of round 3 waits for its delayed ACK and stays outstanding, so round 4
/// sends 12: 4 + 6 + 9 + 12 = 31.
#[test]
fn cwnd_counting_acks_grows_one_segment_per_ack() {
    let sent = |counting| {
        let t = TcpConfig {
            handshake: false,
            initial_window_segments: 4,
            ack_every: 2,
            delayed_ack_ns: 500 * MS,
            cwnd_counting: counting,
            ..tcp()
        };
        segments_sent_on_100ms_path(350 * MS, 1000, t)
    };
    let (bytes, acks) = (sent(CwndCounting::Bytes), sent(CwndCounting::Acks));
    println!("segments sent in 3.5 RTTs: bytes {bytes} (expected 60), acks {acks} (expected 31)");
    assert_eq!((bytes, acks), (60, 31));
}
