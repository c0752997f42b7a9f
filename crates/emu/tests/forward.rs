//! The forwarder against the wall clock, without root: each host's "device" is one end
//! of a `SOCK_SEQPACKET` socket pair, which, like a TUN device, passes one whole
//! packet per read and write. The test plays both hosts at the other ends.

use std::os::fd::RawFd;
use std::thread;
use tcplab_emu::{forward, monotonic_ns, Port};
use tcplab_engine::emulate::{host_address, EmulatedNetwork};
use tcplab_engine::ScenarioConfig;

const MS: u64 = 1_000_000;

/// a - r - b: a 100 Mb/s, 1 ms access link and a 10 Mb/s, 20 ms bottleneck with a
/// 1,000-packet queue; one flow a → b.
fn network() -> EmulatedNetwork {
    let direction = |limit: u64| {
        format!(
            r#"{{"queue": {{"type": "droptail", "limit": {{"value": {limit}, "unit": "packets"}}}},
               "loss": {{"type": "none"}}, "loss_placement": "after_serialization", "queue_origin": "", "loss_origin": ""}}"#
        )
    };
    let link = |from: &str, to: &str, bps: u64, delay_ms: u64| {
        format!(
            r#"{{"from": "{from}", "to": "{to}", "bandwidth_bps": {bps}, "delay_ns": {}, "mtu_bytes": 1500,
               "framing_bytes": 0, "cost": 1, "forward": {d}, "reverse": {d}, "origin": ""}}"#,
            delay_ms * MS,
            d = direction(1000)
        )
    };
    let json = format!(
        r#"{{"simulation": {{"duration_ns": 10000000000, "seed": 1, "bin_ns": 100000000}},
           "nodes": [{{"name": "a", "kind": "host", "origin": ""}}, {{"name": "r", "kind": "router", "origin": ""}},
                     {{"name": "b", "kind": "host", "origin": ""}}],
           "links": [{}, {}],
           "flows": [{{"name": "f", "from": "a", "to": "b", "transport": {{"type": "udp"}},
                      "app": {{"type": "cbr", "rate_bps": 1000000, "payload_bytes": 1000}},
                      "start_ns": 0, "stop_ns": null, "path": null, "origin": ""}}],
           "fairness_flows": ["f"]}}"#,
        link("a", "r", 100_000_000, 1),
        link("r", "b", 10_000_000, 20)
    );
    EmulatedNetwork::new(ScenarioConfig::from_json(&json).unwrap()).unwrap()
}

/// Why this machine cannot keep real time now, or None: other runnable tasks (from
/// /proc/loadavg, the calling thread excluded) or the 1-minute load average, less that
/// thread, at or above the number of cores.
fn machine_busy() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let fields: Vec<&str> = text.split_whitespace().collect();
    let load: f64 = fields.first()?.parse().ok()?;
    let runnable: f64 = fields.get(3)?.split('/').next()?.parse().ok()?;
    let cores = thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let others = (runnable - 1.0).max(load - 1.0);
    (others >= cores)
        .then(|| format!("load average {load}, {runnable} tasks runnable, {cores} cores"))
}

fn socket_pair() -> [RawFd; 2] {
    let mut fds = [0; 2];
    // SAFETY: socketpair fills two descriptors.
    assert_eq!(
        unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET, 0, fds.as_mut_ptr()) },
        0
    );
    fds
}

fn packet(i: u32) -> Vec<u8> {
    let mut p = vec![0u8; 1000];
    p[0] = 0x45;
    p[12..16].copy_from_slice(&host_address(0));
    p[16..20].copy_from_slice(&host_address(2));
    p[20..24].copy_from_slice(&i.to_be_bytes());
    p
}

/// What one trial's timing showed against the path: the first packet's delay (ms),
/// the receiver's rate (b/s), and the forwarder's own measure of the bottleneck: how
/// many departures followed the one before back to back, and at what rate.
#[derive(Debug)]
struct Timing {
    first_ms: f64,
    received_bps: f64,
    back_to_back: u64,
    achieved_bps: Option<f64>,
}

impl Timing {
    /// Whether the path's timing held: the first packet after the two hops'
    /// serialization and propagation (0.08 + 1 + 0.8 + 20 = 21.88 ms) within 0.5 ms, the
    /// rest at the bottleneck's rate (one per 0.8 ms) within 2%, all 199 departures after
    /// the first back to back.
    fn on_time(&self) -> bool {
        (self.first_ms - 21.88).abs() < 0.5
            && (self.received_bps / 10e6 - 1.0).abs() < 0.02
            && self.back_to_back == 199
            && self
                .achieved_bps
                .is_some_and(|bps| (bps / 10e6 - 1.0).abs() < 0.02)
    }
}

/// 200 packets sent back to back from a to b through a fresh forwarder: they must
/// arrive intact and in order, every one counted; returns their timing.
fn trial() -> Timing {
    let (a, b) = (socket_pair(), socket_pair());
    let mut stop = [0; 2];
    assert_eq!(unsafe { libc::pipe(stop.as_mut_ptr()) }, 0);
    // Built before the clock starts and given time to park in its poll, so the first
    // packet measures the path, not the thread's start-up.
    let mut net = network();
    let start = monotonic_ns();
    let ports = [Port { node: 0, fd: a[0] }, Port { node: 2, fd: b[0] }];
    let forwarder = thread::spawn(move || {
        let stats = forward(&mut net, &ports, stop[0], start, 1500).unwrap();
        let pacing = net.link_pacing();
        (
            stats,
            pacing,
            net.link_results(tcplab_engine::SimTime(10_000 * MS)),
        )
    });
    thread::sleep(std::time::Duration::from_millis(20));
    let sent_at = monotonic_ns();
    for i in 0..200 {
        let p = packet(i);
        assert_eq!(
            unsafe { libc::write(a[1], p.as_ptr().cast(), p.len()) },
            1000
        );
    }
    let mut arrivals = Vec::new();
    let mut buf = [0u8; 2000];
    for i in 0..200u32 {
        let n = unsafe { libc::read(b[1], buf.as_mut_ptr().cast(), buf.len()) };
        arrivals.push(monotonic_ns());
        assert_eq!(n, 1000);
        assert_eq!(buf[..1000], packet(i)[..]);
    }
    assert_eq!(unsafe { libc::write(stop[1], [0u8].as_ptr().cast(), 1) }, 1);
    let (stats, pacing, (links, _)) = forwarder.join().unwrap();
    for fd in a.into_iter().chain(b).chain(stop) {
        unsafe { libc::close(fd) };
    }
    assert_eq!((stats.read_packets, stats.written_packets), (200, 200));
    assert_eq!(links[2].tx_packets, 200);
    assert_eq!(links[2].id, "r->b");
    Timing {
        first_ms: (arrivals[0] - sent_at) as f64 / 1e6,
        received_bps: 199.0 * 8000.0 / ((arrivals[199] - arrivals[0]) as f64 / 1e9),
        back_to_back: pacing[2].intervals,
        achieved_bps: pacing[2].achieved_bps(10_000_000),
    }
}

/// Trials of [`trial`] before the timing is judged wrong: one late wake-up of the
/// forwarder or of the receiving thread (a compiler beside the tests: the first packet
/// 0.9 ms late) spoils a trial, while an emulator that keeps wrong time fails them all.
const TRIALS: usize = 3;

/// The packets cross the emulated path intact and in order in every trial, and on time
/// and at the bottleneck's rate (by the receiver's clock and by the forwarder's own
/// pacing check) in at least one of [`TRIALS`].
#[test]
fn packets_cross_the_emulated_path_on_time_and_at_its_rate() {
    let mut seen = Vec::new();
    for _ in 0..TRIALS {
        let timing = trial();
        if timing.on_time() {
            return;
        }
        seen.push(timing);
    }
    if let Some(why) = machine_busy() {
        // Timing needs the forwarder and this test's two hosts scheduled on time
        // (tests/conftest.py's machine_too_busy_for_real_time says the same for
        // Python's emulation tests): under a busy loop per core a late write left a
        // gap before the bottleneck (198 back-to-back departures of 199).
        println!("timing not checked: {why}; trials {seen:?}");
        return;
    }
    panic!("no trial on time: {seen:#?}");
}
