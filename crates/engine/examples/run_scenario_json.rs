//! Runs an engine-JSON scenario (`tcplab.load(...).engine_json()`) and prints timing:
//! a harness for profiling the engine without Python. With REPEATS > 1 it reports the
//! fastest run, which is the least disturbed by other load on a noisy machine.
//! usage: cargo run --release --example run_scenario_json -- FILE.json [REPEATS]

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: run_scenario_json FILE.json [REPEATS]");
    let repeats: usize = args
        .next()
        .map_or(1, |r| r.parse().expect("REPEATS is a number"));
    let text = std::fs::read_to_string(&path).expect("readable file");
    let mut best = f64::INFINITY;
    let mut summary = String::new();
    for _ in 0..repeats.max(1) {
        let sim = tcplab_engine::Simulation::from_json(&text).unwrap_or_else(|e| {
            eprintln!("{path}: {e}");
            std::process::exit(2)
        });
        let t0 = Instant::now();
        let res = sim.run().expect("conservation");
        let wall = t0.elapsed().as_secs_f64();
        if wall < best {
            best = wall;
            let busiest = res.links.iter().map(|l| l.tx_packets).max().unwrap_or(0);
            summary = format!(
                "{wall:.3} s wall (best of {repeats}), {} events ({:.2} M/s), busiest link {busiest} packets ({:.2} M/s)",
                res.events,
                res.events as f64 / wall / 1e6,
                busiest as f64 / wall / 1e6
            );
        }
    }
    println!("{summary}");
}
