//! Whole-network checks of the engine against independent expectations: hand-computed
//! delays, link capacity, queueing theory (M/D/1), binomial statistics, RFC 791
//! fragment arithmetic, and bit-identical reruns.

mod common;

use common::*;
use tcplab_engine::config::*;
use tcplab_engine::Simulation;

const MS: u64 = 1_000_000;

/// Two hosts joined by a router: a -(100 Mbps, 2 ms)- r -(10 Mbps, 10 ms)- b.
fn line(neck_queue: QueueConfig) -> ScenarioConfig {
    let mut cfg = two_hops(100_000_000, 2 * MS, 10_000_000, 10 * MS, neck_queue);
    cfg.simulation.seed = 3;
    cfg
}

#[test]
fn underloaded_cbr_delay_is_propagation_plus_serialization_to_the_nanosecond() {
    let mut cfg = line(droptail(100));
    // 1000 B payload + 28 B headers = 1028 B. At 100 Mbps: 82,240 ns; at 10 Mbps: 822,400 ns.
    // Packets 1.37 ms apart never queue. Expected delay: 2 ms + 82,240 + 10 ms + 822,400 ns.
    cfg.flows
        .push(udp_flow("f", "a", "b", cbr(6_000_000, 1000)));
    let res = Simulation::new(cfg).unwrap().run().unwrap();
    let f = &res.flows[0];
    let expected_ms = (2_000_000.0 + 82_240.0 + 10_000_000.0 + 822_400.0) / 1e6;
    assert_eq!(f.delay_ms.min, Some(expected_ms));
    assert_eq!(f.delay_ms.max, Some(expected_ms));
    assert_eq!(f.jitter_ms, 0.0);
    assert_eq!(f.packets_dropped, 0);
    // Everything sent more than one delay before the end arrived.
    assert!(f.packets_sent - f.packets_delivered <= 10);
}

#[test]
fn overloaded_droptail_delivers_exactly_capacity_and_drops_the_excess() {
    let mut cfg = line(droptail(50));
    // 20 Mbps of payload (1000 B) into a 10 Mbps link: 2432.4 pkt/s offered, 1216.0 served.
    cfg.flows
        .push(udp_flow("f", "a", "b", cbr(20_000_000, 1000)));
    let res = Simulation::new(cfg).unwrap().run().unwrap();
    let f = &res.flows[0];
    let neck = res.links.iter().find(|l| l.id == "r->b").unwrap();
    // Capacity in packets over 10 s: 10e6 * 10 / (1028 * 8) = 12,159.5 -> the link is busy
    // from the first arrival (~2.08 ms) on, so 12,157 +- 1 packets are serialized.
    let capacity_pkts = (10_000_000.0 * (10.0 - 0.002_082_24)) / (1028.0 * 8.0);
    assert!(
        (neck.tx_packets as f64 - capacity_pkts).abs() <= 1.0,
        "{} vs {capacity_pkts}",
        neck.tx_packets
    );
    assert!(neck.utilization > 0.9997);
    // Drops = offered - served - what is still queued or propagating.
    assert_eq!(
        f.packets_sent,
        f.packets_delivered + f.packets_dropped + f.packets_in_flight
    );
    assert_eq!(neck.queue_max_packets, 50);
    let offered = 20_000_000.0 * 10.0 / 8000.0;
    let expected_drops = offered - capacity_pkts - 50.0; // the queue stays full
    assert!(
        (f.drops.queue as f64 - expected_drops).abs() <= 15.0,
        "{} vs {expected_drops}",
        f.drops.queue
    );
    // Goodput equals the payload share of the capacity: 10 Mbps * 1000/1028.
    let good = 10e6 * 1000.0 / 1028.0;
    assert!(
        (f.goodput_bps - good).abs() / good < 0.005,
        "{}",
        f.goodput_bps
    );
}

#[test]
fn poisson_arrivals_give_the_md1_mean_queue() {
    // M/D/1 with utilisation rho: mean number waiting Lq = rho^2 / (2 (1 - rho)).
    // 1000 B payload -> 1028 B; service 822.4 us at 10 Mbps. rho = 0.8.
    let mut cfg = line(droptail(100_000));
    cfg.simulation.duration_ns = 2_000_000 * MS; // 2000 s: ~2.4 M packets
    let rate = (0.8 * 10_000_000.0 * 1000.0 / 1028.0) as u64;
    cfg.flows.push(udp_flow(
        "f",
        "a",
        "b",
        AppConfig::Poisson {
            rate_bps: rate,
            payload_bytes: 1000,
        },
    ));
    let res = Simulation::new(cfg).unwrap().run().unwrap();
    let neck = res.links.iter().find(|l| l.id == "r->b").unwrap();
    let rho: f64 = 0.8;
    let lq = rho * rho / (2.0 * (1.0 - rho));
    let got = neck.queue_mean_packets;
    assert!(
        (got - lq).abs() / lq < 0.03,
        "mean queue {got} vs M/D/1 {lq}"
    );
    // Mean waiting time by Little's law: Wq = Lq / lambda; delay = fixed part + Wq.
    let lambda = rate as f64 / 8000.0;
    let fixed_ms = 2.0 + 1028.0 * 8.0 / 100e6 * 1e3 + 10.0 + 1028.0 * 8.0 / 10e6 * 1e3;
    let wq_ms = lq / lambda * 1e3;
    let mean = res.flows[0].delay_ms.mean.unwrap();
    // The access link (8% load at 100 Mbps) adds a little queueing of its own.
    assert!(
        (mean - fixed_ms - wq_ms).abs() / wq_ms < 0.05,
        "delay {mean} vs {}",
        fixed_ms + wq_ms
    );
}

#[test]
fn bernoulli_loss_rate_is_within_the_binomial_confidence_interval() {
    let mut cfg = line(droptail(100));
    cfg.links[1].forward.loss = LossConfig::Bernoulli { rate: 0.01 };
    cfg.flows
        .push(udp_flow("f", "a", "b", cbr(6_000_000, 1000)));
    let res = Simulation::new(cfg).unwrap().run().unwrap();
    let f = &res.flows[0];
    let n = (f.packets_delivered + f.packets_dropped) as f64;
    let p = 0.01;
    let sd = (n * p * (1.0 - p)).sqrt();
    // 4 sigma: fails by chance with probability ~6e-5 (and the run is deterministic).
    assert!(
        (f.drops.random as f64 - n * p).abs() < 4.0 * sd,
        "{} drops of {n}",
        f.drops.random
    );
    assert_eq!(f.drops.queue, 0);
}

#[test]
fn datagrams_larger_than_the_mtu_are_fragmented_and_reassembled() {
    let mut cfg = line(droptail(100));
    cfg.links[1].mtu_bytes = 576;
    // 4000 B payload -> 4028 B IP packet; fragments carry (576-20)/8*8 = 552 B each:
    // ceil(4008 / 552) = 8 fragments; last carries 4008 - 7*552 = 144 B.
    cfg.links[0].mtu_bytes = 9000;
    cfg.flows
        .push(udp_flow("f", "a", "b", cbr(1_000_000, 4000)));
    let res = Simulation::new(cfg).unwrap().run().unwrap();
    let f = &res.flows[0];
    assert_eq!(f.fragments, 8 * f.packets_sent);
    let neck = res.links.iter().find(|l| l.id == "r->b").unwrap();
    assert_eq!(
        neck.tx_packets,
        8 * f.packets_delivered + neck.tx_packets % 8
    );
    assert_eq!(f.delivered_bytes, 4000 * f.packets_delivered);
    // On-wire bytes per datagram: 7 * 572 + 164 = 4168 (8 IP headers instead of 1).
    assert_eq!(
        neck.tx_bytes - (neck.tx_bytes % 4168),
        4168 * (neck.tx_bytes / 4168)
    );
    let full_datagrams = neck.tx_packets / 8;
    assert_eq!(neck.tx_bytes / 4168, full_datagrams);
}

#[test]
fn losing_one_fragment_loses_the_datagram_once() {
    let mut cfg = line(droptail(100));
    cfg.links[1].mtu_bytes = 576;
    cfg.links[0].mtu_bytes = 9000;
    // Every 16th packet on the small-MTU link is lost: exactly one fragment of every
    // second 8-fragment datagram.
    cfg.links[1].forward.loss = LossConfig::EveryNth { n: 16, offset: 0 };
    cfg.flows
        .push(udp_flow("f", "a", "b", cbr(1_000_000, 4000)));
    let res = Simulation::new(cfg).unwrap().run().unwrap();
    let f = &res.flows[0];
    let done = f.packets_delivered + f.packets_dropped;
    assert!(
        (f.packets_dropped as i64 - (done / 2) as i64).abs() <= 1,
        "{} dropped of {done}",
        f.packets_dropped
    );
    assert_eq!(res.links[2].drops.random, f.packets_dropped);
}

#[test]
fn same_seed_gives_identical_results_and_another_seed_differs() {
    let build = |seed| {
        let mut cfg = line(droptail(20));
        cfg.simulation.seed = seed;
        cfg.links[1].forward.loss = LossConfig::Bernoulli { rate: 0.02 };
        cfg.flows.push(udp_flow(
            "p",
            "a",
            "b",
            AppConfig::Poisson {
                rate_bps: 9_000_000,
                payload_bytes: 1000,
            },
        ));
        Simulation::new(cfg).unwrap().run().unwrap().to_json()
    };
    assert_eq!(build(5), build(5));
    assert_ne!(build(5), build(6));
}

#[test]
fn adding_a_flow_does_not_change_another_links_loss_pattern() {
    // Flow "p" crosses a lossy link x-y that the new flow never touches.
    let build = |extra: bool| {
        let mut cfg = line(droptail(1000));
        cfg.nodes.push(node("x", NodeKind::Host));
        cfg.nodes.push(node("y", NodeKind::Host));
        cfg.links
            .push(link("x", "y", 100_000_000, MS, 1500, droptail(1000)));
        cfg.links[2].forward.loss = LossConfig::Bernoulli { rate: 0.05 };
        cfg.flows.push(udp_flow("p", "x", "y", cbr(1_000_000, 500)));
        if extra {
            cfg.flows.push(udp_flow(
                "q",
                "a",
                "b",
                AppConfig::Poisson {
                    rate_bps: 1_000_000,
                    payload_bytes: 500,
                },
            ));
        }
        let res = Simulation::new(cfg).unwrap().run().unwrap();
        serde_json::to_string(&res.flows[0]).unwrap()
    };
    assert_eq!(build(false), build(true));
}

#[test]
fn explicit_path_overrides_shortest_path() {
    // a - r1 - b directly, or a - r1 - r2 - b the long way.
    let mut cfg = ScenarioConfig {
        simulation: SimulationConfig {
            duration_ns: 1_000 * MS,
            seed: 1,
            bin_ns: 50 * MS,
        },
        nodes: vec![
            node("a", NodeKind::Host),
            node("r1", NodeKind::Router),
            node("r2", NodeKind::Router),
            node("b", NodeKind::Host),
        ],
        links: vec![
            link("a", "r1", 1_000_000_000, MS, 1500, droptail(100)),
            link("r1", "b", 1_000_000_000, MS, 1500, droptail(100)),
            link("r1", "r2", 1_000_000_000, MS, 1500, droptail(100)),
            link("r2", "b", 1_000_000_000, MS, 1500, droptail(100)),
        ],
        flows: vec![
            udp_flow("short", "a", "b", cbr(1_000_000, 100)),
            udp_flow("long", "a", "b", cbr(1_000_000, 100)),
        ],
        fairness_flows: None,
        routing: Default::default(),
    };
    cfg.flows[1].path = Some(vec!["a".into(), "r1".into(), "r2".into(), "b".into()]);
    // Offset the second flow so its packets never wait behind the first's on a -> r1.
    cfg.flows[1].start_ns = MS / 2;
    let res = Simulation::new(cfg).unwrap().run().unwrap();
    let short = res.flows[0].delay_ms.min.unwrap();
    let long = res.flows[1].delay_ms.min.unwrap();
    // One more 1 ms hop (plus 1.024 us of serialization of 128 B at 1 Gbps).
    assert!((long - short - 1.001_024).abs() < 1e-9, "{short} {long}");
}
