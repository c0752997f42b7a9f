//! Engine throughput on a saturated dumbbell: events and bottleneck packets per
//! wall-clock second. Run with `cargo bench -p tcplab-engine`; prints one line per
//! repetition and the median. (Absolute numbers depend on the machine: compare runs,
//! and see benchmarks/ for ratios against ns-2 and ns-3.)

#[path = "../tests/common/mod.rs"]
mod common;

use common::*;
use std::time::Instant;
use tcplab_engine::Simulation;

fn main() {
    // 10 UDP CBR flows of 15 Mbps (1000 B payload) into a 100 Mbps, 100-packet
    // bottleneck: 1.5x overload, so the bottleneck is busy all the time and drops.
    let mut cfg = dumbbell(
        10,
        1_000_000_000,
        1_000_000,
        100_000_000,
        20_000_000,
        droptail(100),
    );
    cfg.simulation.duration_ns = 60_000_000_000;
    for i in 0..10 {
        cfg.flows.push(udp_flow(
            &format!("f{i}"),
            &format!("left{i}"),
            &format!("right{i}"),
            cbr(15_000_000, 1000),
        ));
    }
    let mut rates = Vec::new();
    for rep in 0..5 {
        let sim = Simulation::new(cfg.clone()).expect("valid scenario");
        let t0 = Instant::now();
        let res = sim.run().expect("conservation holds");
        let wall = t0.elapsed().as_secs_f64();
        let neck = &res.links[0];
        println!(
            "rep {rep}: {:.3} s wall, {} events ({:.2} M events/s), {} bottleneck packets ({:.2} M pkt/s), utilization {:.3}",
            wall,
            res.events,
            res.events as f64 / wall / 1e6,
            neck.tx_packets,
            neck.tx_packets as f64 / wall / 1e6,
            neck.utilization
        );
        rates.push((res.events as f64 / wall, neck.tx_packets as f64 / wall));
    }
    rates.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (ev, pk) = rates[rates.len() / 2];
    println!(
        "median: {:.2} M events/s, {:.2} M bottleneck packets/s",
        ev / 1e6,
        pk / 1e6
    );
}
