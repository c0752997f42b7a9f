//! TCP Small Queues by state, through the two-endpoint [`harness`](super::harness),
//! whose bottleneck is the sender's own first link (10 Mb/s, 10 ms each way,
//! 1,000-byte segments: 1,040-byte packets, 0.832 ms each; a 20.8 ms RTT holds 25 of
//! them). No segment is lost and the link's queue is unbounded, so without back-pressure
//! slow start never ends and everything cwnd allows waits in the host.

use super::harness::{tcp, Harness, MSS};
use crate::time::SimTime;
use serde_json::json;

const RATE: u64 = 10_000_000;
const ONE_WAY: SimTime = SimTime::from_ms(10);
const PACKET: u64 = MSS + 40;
const SEGMENTS: u64 = 3000;

fn bulk(small_queues: bool) -> Harness {
    let cfg = tcp(json!({"small_queues": small_queues}));
    let mut h = Harness::new(&cfg, SEGMENTS * MSS, RATE, ONE_WAY, |_, _| false);
    // The link needs 3,000 × 0.832 ms = 2.496 s for the transfer; slow start's first
    // round trips (IW 10 against 25 segments of path) and the last packet's 10 ms add
    // well under 0.1 s.
    h.run(SimTime::from_ms(2600));
    h
}

#[test]
fn without_small_queues_slow_start_fills_the_host() {
    // cwnd doubles each round trip with nothing to stop it: by the end the host holds
    // far more than the path (thousands of segments; 100 is a loose floor).
    let h = bulk(false);
    assert_eq!(h.delivered, SEGMENTS * MSS);
    assert!(
        h.largest_host_backlog > 100 * PACKET,
        "{}",
        h.largest_host_backlog
    );
}

#[test]
fn small_queues_hold_about_a_millisecond_in_the_host_and_lose_no_time() {
    // Linux's limit is max(2 packets, pacing rate / 1024) with a pacing rate of
    // 2·cwnd/SRTT in slow start, and slow start grows cwnd only while it is below twice
    // what is outstanding (tcp_is_cwnd_limited). Outstanding is the path's 25 segments
    // plus the host's h, and h ≤ 2·cwnd·1,040 B / 20.8 ms / 1,024 ≈ 0.1·cwnd segments,
    // so cwnd ≤ 2·(25 + 0.1·cwnd): cwnd ≤ 63, h ≤ 6.1 packets, one more sent at the
    // limit: at most 8 packets with the RTT's own queueing allowed for.
    let h = bulk(true);
    assert!(
        h.largest_host_backlog <= 8 * PACKET,
        "{}",
        h.largest_host_backlog
    );
    // Woken at each of its packets' transmit completion, the sender keeps the link busy:
    // the transfer ends as soon as it does without back-pressure.
    assert_eq!(h.delivered, SEGMENTS * MSS);
    assert_eq!(h.rto_count(), 0);
}

#[test]
fn the_floor_is_two_packets() {
    // A 1 Mb/s link: 1 ms of any pacing rate the sender can reach here (cwnd ≤ about
    // 2·(3 + 2) segments over an RTT of at least 28 ms: under 1 kB) is below two
    // packets, so the host holds two packets and the one sent at the limit. With the
    // handshake, as Linux, the SYN's RTT sets a pacing rate before the first window
    // goes (without any, the limit is tcp_limit_output_bytes and IW 10 goes at once).
    let cfg = tcp(json!({"small_queues": true, "handshake": true}));
    let mut h = Harness::new(&cfg, 300 * MSS, 1_000_000, ONE_WAY, |_, _| false);
    h.run(SimTime::from_secs(4));
    assert_eq!(h.delivered, 300 * MSS, "300 × 8.32 ms = 2.5 s on the link");
    assert!(
        h.largest_host_backlog <= 3 * PACKET,
        "{}",
        h.largest_host_backlog
    );
    assert!(
        h.largest_host_backlog >= 2 * PACKET,
        "{}",
        h.largest_host_backlog
    );
}
