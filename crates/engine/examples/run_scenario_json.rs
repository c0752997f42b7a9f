//! Runs an engine-JSON scenario (as written by `tcplab` front end's `Scenario.engine_json`)
//! and prints timing: a harness for profiling the engine without Python.
//! usage: cargo run --release --example run_scenario_json -- FILE.json

use std::time::Instant;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: run_scenario_json FILE.json");
    let text = std::fs::read_to_string(&path).expect("readable file");
    let sim = tcplab_engine::Simulation::from_json(&text).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let t0 = Instant::now();
    let res = sim.run().expect("conservation");
    let wall = t0.elapsed().as_secs_f64();
    let neck = res
        .links
        .iter()
        .max_by_key(|l| l.tx_packets)
        .map(|l| l.tx_packets)
        .unwrap_or(0);
    println!(
        "{wall:.3} s wall, {} events ({:.2} M/s), busiest link {} packets ({:.2} M/s)",
        res.events,
        res.events as f64 / wall / 1e6,
        neck,
        neck as f64 / wall / 1e6
    );
}
