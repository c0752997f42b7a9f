//! ns-2.35's TCP/Linux loss recovery (`tcp/tcp-linux.cc`, `tcp/scoreboard1.cc`), the
//! rules the `ns2_linux` keys model, by state through the two-endpoint
//! [`harness`](super::harness) on the path of `recovery_tests.rs` (10 Mb/s, 10 ms each
//! way, 1,040-byte packets: one every 0.832 ms at the bottleneck, so consecutive
//! segments' ACKs arrive 0.832 ms apart while a queue holds them).

use super::recovery_tests::{rfc6675, seq, transfer};
use crate::time::SimTime;
use serde_json::json;

/// One segment's time at the bottleneck: 1,040 bytes at 10 Mb/s.
const SLOT: SimTime = SimTime(832_000);

/// ns-2's scoreboard, with the rest of the sender as RFC 6675's.
fn ns2_scoreboard() -> serde_json::Value {
    rfc6675(json!({"loss_detection": "ns2_linux"}))
}

/// "Lost by FACK signal": ns-2 marks segment 100 lost once the highest SACKed segment
/// is 104 (`lost_seq_threshold = fack_ - 4`), where RFC 6675's IsLost needs three
/// SACKed above it (103). In slow start the ACKs of 103 and 104 leave the queue one
/// slot apart, so the fast retransmission goes exactly one slot later.
#[test]
fn the_fast_retransmit_waits_for_the_fourth_segment_above() {
    let rfc = transfer(rfc6675(json!({})), 600, 100..101, &[]);
    let ns2 = transfer(ns2_scoreboard(), 600, 100..101, &[]);
    let (a, b) = (
        rfc.transmissions_of(seq(100)),
        ns2.transmissions_of(seq(100)),
    );
    assert_eq!((a.len(), b.len()), (2, 2));
    assert_eq!(b[1].at - a[1].at, SLOT);
}

/// A lost retransmission: ns-2 marks it lost again as soon as any segment sent after
/// it is SACKed (`GetSndNxt() <= fack_`), where tcplab's rule for RFC 6675 (Linux's
/// `tcp_mark_lost_retrans` with a reordering allowance) waits for the third. The
/// segments sent after the retransmission reach the receiver one slot apart, so the
/// third transmission goes two slots earlier.
#[test]
fn a_lost_retransmission_is_found_by_one_later_segment() {
    const RETX_LOST: &[(u64, u32)] = &[(100, 2)];
    let rfc = transfer(rfc6675(json!({})), 600, 100..101, RETX_LOST);
    let ns2 = transfer(ns2_scoreboard(), 600, 100..101, RETX_LOST);
    let (a, b) = (
        rfc.transmissions_of(seq(100)),
        ns2.transmissions_of(seq(100)),
    );
    assert_eq!((a.len(), b.len()), (3, 3));
    assert_eq!((rfc.rto_count(), ns2.rto_count()), (0, 0));
    let (gap_rfc, gap_ns2) = (a[2].at - a[1].at, b[2].at - b[1].at);
    assert_eq!(gap_rfc - gap_ns2, SimTime(2 * SLOT.0));
}

/// The retransmission timer and duplicate ACKs: segment 100 and its retransmission
/// are lost and nothing detects the second loss (`detect_lost_retransmits = false`),
/// so the timer must fire. RFC 6298 (5.3) restarts it only on ACKs of new data: it
/// expires RTO after the retransmission, while duplicates for the later segments are
/// still arriving. ns-2's TCP/Linux restarts it on every ACK: it expires exactly RTO
/// after the last duplicate.
#[test]
fn duplicate_acks_restart_the_timer_in_ns2s_tcp_linux() {
    const RETX_LOST: &[(u64, u32)] = &[(100, 2)];
    let base = rfc6675(json!({"detect_lost_retransmits": false}));
    let mut restarting = base.clone();
    restarting["restart_rto_on_duplicates"] = json!(true);
    let rfc = transfer(base, 600, 100..101, RETX_LOST);
    let ns2 = transfer(restarting, 600, 100..101, RETX_LOST);
    assert_eq!((rfc.rto_count(), ns2.rto_count()), (1, 1));
    let last_ack_before = |h: &super::harness::Harness| {
        let fired = h.timeouts[0].0.at;
        let last = h
            .windows
            .iter()
            .filter(|w| w.at < fired)
            .map(|w| w.at)
            .max();
        (fired, last.expect("ACKs before the timeout"))
    };
    let (fired, last) = last_ack_before(&ns2);
    // RTO.min: SRTT + 4·RTTVAR is a few tens of ms here.
    assert_eq!(fired - last, SimTime::from_ms(200));
    let (fired, last) = last_ack_before(&rfc);
    assert!(
        fired - last < SimTime::from_ms(200),
        "fired {:?} after the last ACK",
        fired - last
    );
}

/// The end of a recovery clears ns-2's scoreboard (`ClearScoreBoard` once
/// `highest_ack_ >= recover_`). Segment 100 and its first retransmission are lost, so
/// the recovery lasts until its third transmission is acknowledged; segment 225, sent
/// during the recovery, is lost and resent inside it. Its retransmission is still in
/// flight when the recovery ends: RFC 6675's scoreboard remembers it, ns-2's forgets
/// it, so the SACKs that follow mark 225 lost again and it goes a third time — after
/// the ACK that ended the recovery, one round trip (20 ms) at least after the
/// transmission of 100 that ACK covers.
#[test]
fn the_end_of_a_recovery_forgets_the_retransmissions_in_flight() {
    const LOST: &[(u64, u32)] = &[(100, 2), (225, 1)];
    let rfc = transfer(rfc6675(json!({})), 600, 100..101, LOST);
    let ns2 = transfer(ns2_scoreboard(), 600, 100..101, LOST);
    assert_eq!(rfc.transmissions_of(seq(225)).len(), 2);
    let (repairs, resent) = (
        ns2.transmissions_of(seq(100)),
        ns2.transmissions_of(seq(225)),
    );
    assert_eq!((repairs.len(), resent.len()), (3, 3));
    assert!(
        resent[1].at < repairs[2].at + SimTime::from_ms(20),
        "resent inside the recovery"
    );
    assert!(
        resent[2].at >= repairs[2].at + SimTime::from_ms(20),
        "and again after it"
    );
    assert_eq!(ns2.rto_count(), 0);
}

/// `ts_resetRTO_`: ns-2's TCP/Linux takes an RTT sample from every timestamped ACK,
/// duplicates included, and each ends the backoff. Segment 100 and its next two
/// transmissions are lost and nothing finds the lost retransmission; the last
/// segment, 599, reaches the receiver 250 ms late, after the first timeout. Its
/// duplicate ACK restarts the timer (both senders restart it on duplicates): with the
/// doubled RTO, 2 × RTO.min = 400 ms — or, when the echo is a sample, with a fresh
/// SRTT + 4·RTTVAR, at least RTO.min and, for a sample of about 0.3 s, under 400 ms.
#[test]
fn a_duplicate_acks_echo_ends_the_backoff_in_ns2s_tcp_linux() {
    use super::harness::{tcp, Harness, MSS};
    use super::recovery_tests::{segment_of, ONE_WAY, RATE};
    let run = |samples_duplicates: bool| {
        let cfg = rfc6675(json!({
            "detect_lost_retransmits": false, "restart_rto_on_duplicates": true,
            "timestamps": true, "option_sizes": "ns2",
            "rtt_samples_from_duplicates": samples_duplicates,
        }));
        let late = seq(599);
        let mut h = Harness::new(&tcp(cfg), 600 * MSS, RATE, ONE_WAY, |s, nth| {
            segment_of(s) == 100 && nth <= 3
        })
        .with_late(move |s, nth| {
            if s == late && nth == 1 {
                SimTime::from_ms(250)
            } else {
                SimTime::ZERO
            }
        });
        h.run(SimTime::from_secs(120));
        assert_eq!(h.delivered, 600 * MSS, "the transfer must complete");
        let fired: Vec<SimTime> = h.timeouts.iter().map(|(before, _)| before.at).collect();
        assert_eq!(fired.len(), 2, "timeouts at {fired:?}");
        // The late segment's duplicate: the last ACK before the second timeout.
        let late_ack = h
            .windows
            .iter()
            .map(|w| w.at)
            .filter(|&at| at < fired[1])
            .max()
            .expect("ACKs before the second timeout");
        assert!(
            late_ack > fired[0],
            "the late duplicate comes after the first timeout"
        );
        fired[1] - late_ack
    };
    assert_eq!(run(false), SimTime::from_ms(400));
    let sampled = run(true);
    assert!(
        (SimTime::from_ms(200)..SimTime::from_ms(400)).contains(&sampled),
        "{sampled:?}"
    );
}
