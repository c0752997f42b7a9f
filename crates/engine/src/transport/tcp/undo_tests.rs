//! Undo of spurious reductions (Linux's, RFC 3708/3522 detection with RFC 4015's
//! response) and F-RTO (RFC 5682 section 3, SACK-enhanced) by state, through the
//! two-endpoint [`harness`](super::harness): 10 Mb/s, 10 ms each way, 1,000-byte
//! segments (0.832 ms each on the wire), an ACK per segment, SACK and RACK-TLP on.

use super::harness::{tcp, Harness, MSS};
use super::recovery_tests::{seq, ONE_WAY, RATE};
use crate::time::SimTime;
use serde_json::json;

fn sack(extra: serde_json::Value) -> serde_json::Value {
    let mut cfg = json!({"sack": true});
    if let (Some(c), Some(e)) = (cfg.as_object_mut(), extra.as_object()) {
        c.extend(e.clone());
    }
    cfg
}

/// Runs `segments` segments through `h` to completion.
fn finish(mut h: Harness, segments: u64) -> Harness {
    h.run(SimTime::from_secs(120));
    assert_eq!(h.delivered, segments * MSS, "the transfer must complete");
    h
}

fn path(cfg: serde_json::Value, segments: u64) -> Harness {
    Harness::new(&tcp(cfg), segments * MSS, RATE, ONE_WAY, |_, _| false)
}

/// A spurious timeout (RFC 5682 section 1): the bottleneck stalls for 700 ms in the
/// middle of a transfer, nothing is lost. The timer (RTO.min 200 ms + SRTT) expires
/// during the stall and the head is resent; when the stall ends the originals arrive
/// and their ACKs cover data that was never retransmitted (step 2a), so F-RTO declares
/// the timeout spurious and the window and threshold come back. Without F-RTO and
/// undo the sender falls to one segment, halves ssthresh and resends the window
/// go-back-N.
#[test]
fn frto_undoes_a_timeout_that_a_link_stall_caused() {
    let stall = (SimTime::from_ms(100), SimTime::from_ms(800));
    let h = finish(path(sack(json!({})), 400).with_stall(stall.0, stall.1), 400);
    assert!(h.rto_count() >= 1, "the stall outlasts the RTO");
    assert_eq!(h.sender_stats().undos, 1);
    // Undone on the ACK of the first segment that was never resent: the second ACK
    // after the stall (the first covers the resent head, which proves nothing).
    let (before, _) = h.timeouts[0];
    let acks_after: Vec<_> = h
        .windows
        .iter()
        .filter(|w| w.at > stall.1 + ONE_WAY)
        .collect();
    assert!(
        acks_after[0].ssthresh < before.ssthresh,
        "{:?}",
        acks_after[0]
    );
    assert_eq!(
        acks_after[1].ssthresh, before.ssthresh,
        "ssthresh as before the timeout"
    );
    assert!(
        acks_after[1].cwnd >= before.cwnd,
        "{:?} vs {before:?}",
        acks_after[1]
    );

    let plain = finish(
        path(sack(json!({"frto": false, "undo": false})), 400).with_stall(stall.0, stall.1),
        400,
    );
    assert_eq!(plain.sender_stats().undos, 0);
    let (before, after) = plain.timeouts[0];
    assert_eq!(after.cwnd, MSS);
    assert!(after.ssthresh < before.cwnd);
    assert!(
        plain.retransmits() > h.retransmits(),
        "go-back-N resends what had arrived"
    );
}

/// A genuine timeout: round 1 (segments 10–29) is lost whole, TLP off. The timer
/// expires; F-RTO resends segment 10 and, when its ACK advances SND.UNA, sends new
/// data (step 2b: segments 30 and 31) instead of the rest of the marked window. Their
/// SACKs show the holes are real (step 3a): no undo, the reduction stands, and the
/// holes are resent once each.
#[test]
fn frto_keeps_a_timeout_that_a_real_loss_caused() {
    let h = Harness::new(
        &tcp(sack(json!({"tail_loss_probe": false}))),
        100 * MSS,
        RATE,
        ONE_WAY,
        |s, nth| nth == 1 && (seq(10)..seq(30)).contains(&s),
    );
    let h = finish(h, 100);
    assert_eq!(h.rto_count(), 1);
    assert_eq!(h.sender_stats().undos, 0);
    let (_, after) = h.timeouts[0];
    assert!(after.ssthresh < u64::MAX, "the timeout reduced ssthresh");
    let resend_10 = h
        .sent
        .iter()
        .position(|s| s.seq == seq(10) && s.nth == 2)
        .expect("10 again");
    let next: Vec<_> = h.sent[resend_10 + 1..]
        .iter()
        .take(3)
        .map(|s| (s.seq, s.nth))
        .collect();
    assert_eq!(
        next[..2],
        [(seq(30), 1), (seq(31), 1)],
        "step 2b sends new data first"
    );
    for k in 10..30 {
        assert_eq!(h.transmissions_of(seq(k)).len(), 2, "segment {k}");
    }
}

/// A spurious fast retransmit (reordering), undone by D-SACK (RFC 3708 detection,
/// RFC 2883 reports): segment 100's original is held 10 ms past the ones behind it.
/// Three SACKed segments above it make RACK's reordering window 0, so it is resent
/// and the window reduced; then the original arrives, the retransmission arrives as a
/// duplicate and the receiver reports it in a D-SACK: every retransmission of the
/// episode was unnecessary, so the reduction is taken back. Without D-SACKs (and
/// without timestamps) nothing proves it and the reduction stands. (The original's
/// ACK comes back sooner than min_RTT after the retransmission, so RACK knows it may
/// be the original's and does not time the queue behind it from it; held back for
/// longer, without timestamps, RACK would take it for the retransmission's and mark
/// the segments still queued as lost — RFC 8985 section 6.2's ambiguity, which
/// timestamps resolve.)
#[test]
fn a_dsack_for_every_retransmission_undoes_the_reduction() {
    let late = |s: u64, nth: u32| {
        if s == seq(100) && nth == 1 {
            SimTime::from_ms(10)
        } else {
            SimTime::ZERO
        }
    };
    let h = finish(path(sack(json!({})), 300).with_late(late), 300);
    assert_eq!(h.sender_stats().fast_retransmits, 1);
    assert_eq!(h.sender_stats().undos, 1);
    let reduced = h
        .windows
        .windows(2)
        .position(|w| w[1].ssthresh < w[0].ssthresh)
        .expect("a reduction");
    let before = h.windows[reduced];
    let last = h.windows.last().expect("windows");
    assert_eq!(
        last.ssthresh, before.ssthresh,
        "ssthresh back to what it was"
    );

    let kept = finish(
        path(sack(json!({"dsack": false})), 300).with_late(late),
        300,
    );
    assert_eq!(kept.sender_stats().undos, 0);
    assert!(kept.windows.last().expect("windows").ssthresh < u64::MAX);
}

/// The same reordering with timestamps and no D-SACK: Eifel (RFC 3522). The ACK the
/// delayed original brings echoes its timestamp, older than the retransmission, so
/// that ACK takes the reduction back.
#[test]
fn an_echo_older_than_the_retransmission_undoes_the_reduction() {
    // Timestamps take 12 bytes of each segment: 988-byte payloads.
    let late = |s: u64, nth: u32| {
        if s == 1 + 100 * 988 && nth == 1 {
            SimTime::from_ms(10)
        } else {
            SimTime::ZERO
        }
    };
    let h = finish(
        path(sack(json!({"dsack": false, "timestamps": true})), 300).with_late(late),
        300,
    );
    assert_eq!(h.sender_stats().fast_retransmits, 1);
    assert_eq!(h.sender_stats().undos, 1);
}
