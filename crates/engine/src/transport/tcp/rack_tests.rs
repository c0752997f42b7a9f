//! RACK-TLP (RFC 8985) by state, through the two-endpoint
//! [`harness`](super::harness) of [`recovery_tests`](super::recovery_tests): 10 Mb/s,
//! 10 ms each way, 1,000-byte segments of 0.832 ms on the wire, an ACK per segment,
//! IW 10 (all ten leave at t = 0, so RACK tells them apart by sequence number).
//! The first ACK measures min_RTT = 20.832 ms (one segment's serialization plus both
//! delays), so RACK's reordering window is min_RTT/4 = 5.208 ms.

use super::harness::{tcp, Harness, MSS};
use super::recovery_tests::{rfc6675, seq, transfer, ONE_WAY, RATE};
use crate::time::SimTime;
use serde_json::json;

fn rack(tlp: bool) -> serde_json::Value {
    json!({"sack": true, "loss_detection": "rack", "tail_loss_probe": tlp})
}

/// When the ACK of the n-th segment of the initial burst to cross the bottleneck
/// reaches the sender (dropped segments never reach it): n serializations, then both
/// one-way delays.
fn ack_of_nth_through(n: u64) -> SimTime {
    SimTime(n * 832_000) + ONE_WAY + ONE_WAY
}

/// RFC 8985 6.3: one segment SACKed above a hole is fewer than DupThresh, so RACK
/// waits its reordering window before calling the hole lost. Segment 8 of 10 is
/// dropped; the SACK of segment 9 (the ninth through the bottleneck) arrives at
/// 27.488 ms; both left at t = 0, so the hole is lost when RACK.rtt + reo_wnd has
/// passed since then: at 27.488 + 5.208 ms,
/// when the reordering timer fires and recovery retransmits it. RFC 6675 needs three
/// SACKed segments above the hole and has only one: it waits for the RTO (≥ 200 ms).
#[test]
fn a_hole_below_one_sacked_segment_is_lost_after_the_reordering_window() {
    let h = transfer(rack(false), 10, 8..9, &[]);
    let tx = h.transmissions_of(seq(8));
    assert_eq!(tx.len(), 2);
    let expected = ack_of_nth_through(9) + SimTime(20_832_000 / 4);
    assert_eq!(
        tx[1].at, expected,
        "retransmitted when the reordering timer fires"
    );
    assert_eq!(h.rto_count(), 0);

    let dupthresh = transfer(rfc6675(json!({})), 10, 8..9, &[]);
    assert_eq!(dupthresh.rto_count(), 1, "RFC 6675 alone needs the timer");
    assert!(dupthresh.transmissions_of(seq(8))[1].at >= SimTime::from_ms(200));
}

/// RFC 8985 7 (tail loss): the last three segments of a 10-segment transfer are lost,
/// so no ACK would ever come for them. The ACK of segment 6 (at 25.824 ms) restarts the
/// probe timer: PTO = 2·SRTT + 2 ms with more than one segment out. SRTT after seven
/// samples of the queued burst is computed below from RFC 6298. The probe resends the
/// last segment (no new data is left); its SACK shows segments 7 and 8 — sent long
/// before it — lost at once, and recovery resends them; no RTO fires.
#[test]
fn a_tail_loss_is_repaired_by_a_probe_without_a_timeout() {
    let h = transfer(rack(true), 10, 7..10, &[]);
    assert_eq!(h.rto_count(), 0);
    // RFC 6298 (2.2)/(2.3) over the RTTs of segments 0..=6, k + 1 serializations plus
    // 20 ms each.
    let mut srtt = 0.0;
    for k in 0..=6u64 {
        let r = ack_of_nth_through(k + 1).as_ns() as f64;
        srtt = if k == 0 { r } else { 0.875 * srtt + 0.125 * r };
    }
    let pto = SimTime(2 * srtt.round() as u64) + SimTime::from_ms(2);
    let probe = h.transmissions_of(seq(9));
    assert_eq!(probe.len(), 2, "the probe resends the last segment");
    let expected = ack_of_nth_through(7) + pto;
    let diff = probe[1].at.as_ns() as i64 - expected.as_ns() as i64;
    assert!(
        diff.abs() <= 1,
        "probe at {:?}, expected {expected:?}",
        probe[1].at
    );
    // The probe's SACK returns 20.832 ms after it left and starts recovery; PRR
    // (RFC 9937) sends one segment per segment delivered: 7 with that SACK, 8 with the
    // ACK of 7, one round trip later.
    let seven = h.transmissions_of(seq(7));
    let eight = h.transmissions_of(seq(8));
    assert_eq!((seven.len(), eight.len()), (2, 2), "7 and 8 once more each");
    assert_eq!(seven[1].at - probe[1].at, SimTime(20_832_000));
    assert_eq!(eight[1].at - seven[1].at, SimTime(20_832_000));
    assert!(
        h.sent.last().expect("sent").at < SimTime::from_ms(200),
        "done before RTO.min"
    );

    // Without the probe the same loss waits for the timer.
    let without = transfer(rack(false), 10, 7..10, &[]);
    assert_eq!(without.rto_count(), 1);
}

/// A lost retransmission (RFC 8985 6.2: retransmissions are timed like originals):
/// segment 100 and its first retransmission are dropped. Data sent after the
/// retransmission is SACKed about one RTT later; in recovery the reordering window is
/// 0, so the retransmission is lost as soon as something sent after it is delivered:
/// the third transmission follows the second by about one RTT (20.8 ms plus the queue
/// then), with no timeout.
#[test]
fn a_lost_retransmission_is_found_by_time() {
    const RETX_LOST: &[(u64, u32)] = &[(100, 2)];
    let h = transfer(rack(false), 600, 100..101, RETX_LOST);
    let tx = h.transmissions_of(seq(100));
    assert_eq!(tx.len(), 3);
    assert_eq!(h.rto_count(), 0);
    let gap = tx[2].at - tx[1].at;
    assert!(
        gap >= SimTime(20_832_000) && gap < SimTime::from_ms(20 + 134),
        "third transmission {gap:?} after the second: one RTT expected"
    );
}

/// A burst of 100 losses in one window of 160: three SACKed segments make the
/// reordering window 0, so every hole sent before the SACKed data is lost at once
/// (what RFC 6675's IsLost finds too). One reduction, each hole resent exactly once,
/// no timeout.
#[test]
fn a_burst_of_100_losses_is_one_recovery() {
    let h = transfer(rack(true), 600, 160..260, &[]);
    assert_eq!(h.rto_count(), 0);
    assert_eq!(h.retransmits(), 100);
    let reductions = h
        .windows
        .windows(2)
        .filter(|w| w[1].ssthresh < w[0].ssthresh)
        .count();
    assert_eq!(reductions, 1);
}

/// Without SACK, RACK and TLP have nothing to read: the sender runs NewReno as if they
/// were off (and the same drops give the same transmissions).
#[test]
fn without_sack_rack_and_tlp_are_off() {
    let with = transfer(
        json!({"loss_detection": "rack", "tail_loss_probe": true}),
        300,
        100..110,
        &[],
    );
    let without = transfer(
        json!({"loss_detection": "dupthresh", "tail_loss_probe": false}),
        300,
        100..110,
        &[],
    );
    assert_eq!(with.sent, without.sent);
}

/// A probe with new data waiting sends that (RFC 8985 7.3), beyond cwnd (Linux's
/// `push_one = 2`). Round 1 (segments 10–29) is lost whole: after the ACK of segment
/// 9 the pipe is the 20 lost segments and cwnd is 20, so nothing more may go and no
/// ACK will come. At the PTO the probe sends new segment 30; its SACK shows all of
/// round 1 lost (sent before it, RTT long ago), and recovery resends each once — no
/// timeout.
#[test]
fn a_probe_sends_new_data_beyond_cwnd() {
    let h = transfer(rack(true), 100, 10..30, &[]);
    assert_eq!(h.rto_count(), 0);
    let first_round_1 = h.sent.iter().position(|s| s.seq == seq(10)).expect("sent");
    let after: Vec<_> = h.sent[first_round_1..]
        .iter()
        .filter(|s| !s.dropped)
        .collect();
    assert_eq!(
        after[0].seq,
        seq(30),
        "the probe is new data: {:?}",
        after[0]
    );
    assert_eq!(after[0].nth, 1);
    for k in 10..30 {
        assert_eq!(h.transmissions_of(seq(k)).len(), 2, "segment {k}");
    }
}

/// FACK (Linux 2.6) counts every segment between a hole and the highest SACKed one,
/// SACKed or not; RFC 6675 counts only SACKed ones. Segments 100, 102 and 104 are lost:
/// FACK calls 100 lost when 103 is SACKed (101, 102, 103 lie above it), RFC 6675 (and
/// the third duplicate ACK) only when 105 is. 104 is dropped, so 105 crosses the busy
/// bottleneck right after 103: the fast retransmit comes one serialization (0.832 ms)
/// earlier with FACK, and the runs are identical before it.
#[test]
fn fack_counts_holes_toward_the_highest_sack() {
    let drop = |s: u64, nth: u32| nth == 1 && [seq(100), seq(102), seq(104)].contains(&s);
    let run = |detection: &str| {
        let mut h = Harness::new(
            &tcp(json!({"sack": true, "loss_detection": detection, "tail_loss_probe": false})),
            600 * MSS,
            RATE,
            ONE_WAY,
            drop,
        );
        h.run(SimTime::from_secs(60));
        assert_eq!(h.delivered, 600 * MSS);
        h.transmissions_of(seq(100))[1].at
    };
    assert_eq!(run("dupthresh") - run("fack"), SimTime(832_000));
}
