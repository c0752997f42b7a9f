//! Loss recovery by state, through the two-endpoint [`harness`](super::harness): each
//! test drops exactly the transmissions it names and checks the sender's decisions
//! against what RFC 5681, 6582 and 6675 (and Linux, where a profile models it) say.
//!
//! The path: 10 Mb/s bottleneck without a queue limit, 10 ms each way, 1,000-byte
//! segments (1,040 on the wire: 0.832 ms each). Segment k starts at sequence number
//! 1 + 1,000·k. With IW 10 and an ACK per segment, slow start sends segments 0–9 in
//! round 0, 10–29 in round 1, 30–69 in round 2, 70–149 in round 3 and 150–309 in
//! round 4 (cwnd 10·2^r segments in round r).

use super::harness::{tcp, Harness, MSS};
use crate::config::STEADY_HOLES;
use crate::time::SimTime;
use serde_json::json;

pub(super) const RATE: u64 = 10_000_000;
pub(super) const ONE_WAY: SimTime = SimTime::from_ms(10);

pub(super) fn seq(k: u64) -> u64 {
    1 + k * MSS
}

pub(super) fn segment_of(seq: u64) -> u64 {
    (seq - 1) / MSS
}

/// A transfer of `segments` whose originals of segments in `lost` are dropped, plus
/// the `nth` transmissions `extra` names.
pub(super) fn transfer(
    cfg: serde_json::Value,
    segments: u64,
    lost: std::ops::Range<u64>,
    extra: &'static [(u64, u32)],
) -> Harness {
    let mut h = Harness::new(&tcp(cfg), segments * MSS, RATE, ONE_WAY, move |s, nth| {
        let k = segment_of(s);
        (nth == 1 && lost.contains(&k)) || extra.contains(&(k, nth))
    });
    h.run(SimTime::from_secs(120));
    assert_eq!(h.delivered, segments * MSS, "the transfer must complete");
    h
}

/// SACK recovery with RFC 6675's loss detection and no tail loss probe (the defaults
/// are RACK-TLP's, tested in `rack_tests.rs`), plus `extra`.
pub(super) fn rfc6675(extra: serde_json::Value) -> serde_json::Value {
    let mut cfg = json!({"sack": true, "loss_detection": "dupthresh", "tail_loss_probe": false});
    if let (Some(c), Some(e)) = (cfg.as_object_mut(), extra.as_object()) {
        c.extend(e.clone());
    }
    cfg
}

/// The largest window the sender reached before its first dropped segment left.
fn largest_window_before_loss(h: &Harness) -> u64 {
    let first_drop = h.sent.iter().find(|s| s.dropped).expect("a drop").at;
    largest_window_until(h, first_drop)
}

/// The largest window the sender reached up to `t`.
fn largest_window_until(h: &Harness, t: SimTime) -> u64 {
    h.windows
        .iter()
        .filter(|w| w.at <= t)
        .map(|w| w.cwnd)
        .max()
        .expect("windows before t")
}

/// 30 segments of round 3 lost: Reno's fast recovery (RFC 5681 3.2; the harness's
/// `cc = "reno"` without SACK) ends at the first new ACK and leaves the other 29 holes
/// to the timer, which expires once. The fast retransmit already halved ssthresh for this
/// window of data, so the timeout must not reduce it again, and above all must not
/// raise it to half of a FlightSize that recovery's new data has swollen (the collapse
/// of issue #28: ssthresh above the window that overflowed the queue, so every slow
/// start after a timeout overflowed it again).
#[test]
fn a_timeout_inside_fast_recovery_keeps_the_reduction_made_at_the_loss() {
    let h = transfer(json!({}), 600, 100..130, &[]);
    assert_eq!(h.rto_count(), 1, "one timeout ends the hole-per-RTT repair");
    let (before, after) = h.timeouts[0];
    assert_eq!(
        after.ssthresh, before.ssthresh,
        "no second reduction in one window"
    );
    assert_eq!(
        after.cwnd, MSS,
        "RFC 5681 3.1: the loss window is one segment"
    );
    assert!(
        after.ssthresh <= largest_window_before_loss(&h),
        "ssthresh {} above the largest window before the loss {}",
        after.ssthresh,
        largest_window_before_loss(&h)
    );
}

/// The same losses with ns-2's rule (`timeout_reduction = "per_timeout"` and
/// `timeout_ssthresh = "cwnd"`, the `ns2` profile): `slowdown()` halves `window()`
/// again on the timeout — cwnd without inflation, here the ssthresh set at the fast
/// retransmit — to max(ssthresh/2, 2 segments).
#[test]
fn ns2s_timeout_halves_the_window_again() {
    let h = transfer(
        json!({"timeout_reduction": "per_timeout", "timeout_ssthresh": "cwnd"}),
        600,
        100..130,
        &[],
    );
    let (before, after) = h.timeouts[0];
    assert_eq!(after.ssthresh, (before.ssthresh / 2).max(2 * MSS));
}

/// A timeout with nothing lost before it in the window (the whole tail of a transfer
/// dropped, so no duplicate ACK comes) is a new congestion event: ssthresh becomes
/// half the flight in the network (RFC 5681 eq. 4), and a repeated expiry of the same
/// retransmission leaves it there (RFC 5681 3.1).
#[test]
fn a_timeout_in_the_open_state_halves_the_flight_once() {
    // Segments 130..149 (the last 20 of round 3) are lost; the transfer ends at 150, so
    // nothing above them can be acknowledged. Their first retransmission is lost too,
    // so the timer expires twice with snd_una unmoved.
    const LAST: &[(u64, u32)] = &[(130, 2)];
    let h = transfer(json!({}), 150, 130..150, LAST);
    assert_eq!(h.rto_count(), 2);
    let (before, first) = h.timeouts[0];
    assert_eq!(before.ssthresh, u64::MAX, "no reduction before the timeout");
    // In flight at the expiry: the 20 lost segments (everything below was acknowledged).
    assert_eq!(first.ssthresh, 10 * MSS);
    let (_, second) = h.timeouts[1];
    assert_eq!(
        second.ssthresh, first.ssthresh,
        "a repeated expiry keeps ssthresh"
    );
}

/// The same tail loss with ns-2's rule: `TcpAgent::timeout` calls `slowdown()` on
/// every expiry, so the repeated one halves a window of one segment and ssthresh
/// falls to its floor of two segments (the first still halves the 20 in flight).
#[test]
fn ns2s_repeated_timeout_halves_the_one_segment_window() {
    const LAST: &[(u64, u32)] = &[(130, 2)];
    let cfg = json!({"timeout_reduction": "per_timeout", "timeout_ssthresh": "cwnd"});
    let h = transfer(cfg, 150, 130..150, LAST);
    assert_eq!(h.rto_count(), 2);
    let (before, first) = h.timeouts[0];
    assert_eq!(first.ssthresh, before.cwnd / 2);
    let (_, second) = h.timeouts[1];
    assert_eq!(
        second.ssthresh,
        2 * MSS,
        "half of one segment, floored at two"
    );
}

/// SACK recovery (RFC 6675) with a lost retransmission: segment 100 is dropped, and so
/// is its fast retransmission. Segments sent after that retransmission are SACKed, so
/// with lost-retransmit detection (Linux's rule) the sender resends it a third time
/// one RTT after the second, without a timeout: 20 ms plus the queue then, at most the
/// 160 segments of round 4 (133 ms), so under RTO.min. RFC 6675 alone (ns-2's Sack1,
/// `detect_lost_retransmits = false`) waits for the timer: at least RTO.min (200 ms)
/// after the retransmission.
#[test]
fn a_lost_retransmission_is_resent_once_later_data_is_sacked() {
    const RETX_LOST: &[(u64, u32)] = &[(100, 2)];
    let detected = transfer(rfc6675(json!({})), 600, 100..101, RETX_LOST);
    let tx = detected.transmissions_of(seq(100));
    assert_eq!(tx.len(), 3);
    assert_eq!(detected.rto_count(), 0);
    let gap = tx[2].at - tx[1].at;
    assert!(
        gap < SimTime::from_ms(20 + 134),
        "third transmission {gap:?} after the second: one RTT expected"
    );

    let timed = transfer(
        rfc6675(json!({"detect_lost_retransmits": false})),
        600,
        100..101,
        RETX_LOST,
    );
    let tx = timed.transmissions_of(seq(100));
    assert_eq!(timed.rto_count(), 1);
    assert!(tx[2].at - tx[1].at >= SimTime::from_ms(200));
}

/// A burst of 100 losses in one window of 160 (round 4): with SACK every hole is known
/// after one RTT, and RFC 6675 resends each exactly once within the pipe — no timeout,
/// 100 retransmissions. NewReno without SACK (RFC 6582, impatient timer) can repair
/// only one hole per RTT and ends in a timeout and go-back-N.
#[test]
fn a_burst_of_100_losses_in_one_window() {
    let sack = transfer(rfc6675(json!({})), 600, 160..260, &[]);
    assert_eq!(sack.rto_count(), 0);
    assert_eq!(sack.retransmits(), 100);
    for k in [160, 209, 259] {
        assert_eq!(sack.transmissions_of(seq(k)).len(), 2, "segment {k}");
    }

    let newreno = transfer(json!({}), 600, 160..260, &[]);
    assert_eq!(newreno.rto_count(), 1);
    let (before, after) = newreno.timeouts[0];
    assert_eq!(after.ssthresh, before.ssthresh);
}

/// NewReno's timer, RFC 6582 section 4, with the window held at 60 segments (24 fill
/// the path, so the queue adds ~30 ms and the RTO stays at its 200-ms floor) and
/// `lost` dropped in one window: returns the run. One hole is repaired a round trip
/// (~50 ms), so 30 holes take ~1.5 s — far beyond one RTO.
fn newreno_timer_run(timer: &str, lost: std::ops::Range<u64>) -> Harness {
    transfer(
        json!({"recovery": "newreno", "reduction": "pipe", "newreno_timer": timer, "max_window": {"value": 60, "unit": "packets"}}),
        600,
        lost,
        &[],
    )
}

/// `newreno_timer = "by_holes"` (the `tcplab` profile's), 30 holes (100..129): the
/// first partial ACK arrives after a duplicate for every segment that reached the
/// receiver above segment 100 (RFC 5681 section 4.2), so what was outstanding from 100
/// when the recovery began and was not so reported — the 30 — are the holes. At most
/// `STEADY_HOLES`: every partial ACK restarts the timer, and the holes are repaired
/// one a round trip (RFC 6582 3.2 step 3) with no timeout, each resent once. The
/// impatient timer times out on the same losses.
#[test]
fn a_few_holes_are_repaired_slow_but_steady_without_a_timeout() {
    let h = newreno_timer_run("by_holes", 100..130);
    assert_eq!(h.rto_count(), 0);
    assert_eq!(h.retransmits(), 30);
    for k in 100..130 {
        assert_eq!(h.transmissions_of(seq(k)).len(), 2, "segment {k}");
    }
    // One hole a round trip: the last resent at least 29 base RTTs after the first.
    let first = h.transmissions_of(seq(100))[1].at;
    let last = h.transmissions_of(seq(129))[1].at;
    assert!(
        last - first >= SimTime::from_ms(29 * 20),
        "{first:?} → {last:?}"
    );

    let impatient = newreno_timer_run("impatient", 100..130);
    assert_eq!(impatient.rto_count(), 1);
}

/// 40 holes (100..139), more than `STEADY_HOLES`: impatient, as ns-2 — the first
/// partial ACK alone restarts the timer, which expires at the same instant as the
/// impatient timer's, and the reduction made at the loss stands (RFC 5681 3.1).
#[test]
fn many_holes_leave_the_timer_impatient() {
    let h = newreno_timer_run("by_holes", 100..140);
    assert_eq!(h.rto_count(), 1);
    let (before, after) = h.timeouts[0];
    assert_eq!(after.ssthresh, before.ssthresh);
    let impatient = newreno_timer_run("impatient", 100..140);
    assert_eq!(h.timeouts[0].0.at, impatient.timeouts[0].0.at);
}

/// The timer by holes over random drop patterns: 300 sets of 1-59 segments dropped
/// (originals only) from the 60-segment window 100..159, each drawn with its own
/// count. The duplicates before the first partial ACK report every segment that
/// arrived above the first hole, so the holes counted are exactly those dropped: at
/// most 32 are repaired one a round trip with no timeout, each resent once (the
/// window's ~50-ms round trip is far inside the 200-ms RTO); more leave the timer
/// impatient, and ~50 ms a hole outlasts its RTO after the first partial ACK: a
/// timeout.
#[test]
fn the_holes_counted_are_the_segments_dropped() {
    let mut draw = super::recovery_fuzz_tests::Draw(0x2545_f491_4f6c_dd1d);
    let mut next = move || draw.next();
    for case in 0..300 {
        let count = 1 + next() % 59;
        let mut lost: Vec<u64> = (100..160).collect();
        for i in (1..lost.len()).rev() {
            lost.swap(i, (next() % (i as u64 + 1)) as usize);
        }
        lost.truncate(count as usize);
        let pattern = lost.clone();
        let mut h = Harness::new(
            &tcp(
                json!({"recovery": "newreno", "reduction": "pipe", "newreno_timer": "by_holes",
                        "max_window": {"value": 60, "unit": "packets"}}),
            ),
            400 * MSS,
            RATE,
            ONE_WAY,
            move |s, nth| nth == 1 && pattern.contains(&segment_of(s)),
        );
        h.run(SimTime::from_secs(120));
        assert_eq!(h.delivered, 400 * MSS, "case {case}: {lost:?}");
        if count <= STEADY_HOLES {
            assert_eq!(h.rto_count(), 0, "case {case}: {lost:?}");
            assert_eq!(h.retransmits(), count, "case {case}: {lost:?}");
        } else if count >= STEADY_HOLES + 8 {
            assert!(h.rto_count() >= 1, "case {case}: {lost:?}");
        }
    }
}

/// The first slow start's overshoot without SACK, Scalable (a decrease of an eighth):
/// 100 of round 4's segments lost (160..259). Its fast retransmit reduces from the
/// window at detection, 7/8 of it — above the window in flight when the loss happened.
/// Segment 160 left when the ACK of segment 75 arrived (each ACK of round 3 releases
/// two: snd_nxt = 2j + 12 after the ACK of j), with 76..159 outstanding: 84 segments.
/// 100 holes leave the timer by holes impatient; its timeout keeps the reduction (one
/// per window) but at most those 84, so the slow start after it stops there. The
/// impatient timer alone keeps the 7/8 (issue #28's cascade: each slow start after a
/// timeout overflowed the queue again).
#[test]
fn a_timeout_after_the_first_overshoot_leaves_ssthresh_at_the_flight_at_the_loss() {
    let run = |timer: &str| {
        transfer(
            json!({"cc": {"algorithm": "scalable"}, "recovery": "newreno", "reduction": "pipe",
                   "newreno_timer": timer}),
            600,
            160..260,
            &[],
        )
    };
    let by_holes = run("by_holes");
    assert_eq!(by_holes.rto_count(), 1);
    let (before, after) = by_holes.timeouts[0];
    assert!(before.ssthresh > 84 * MSS, "{}", before.ssthresh / MSS);
    assert_eq!(after.ssthresh, 84 * MSS);
    let impatient = run("impatient");
    let (before, after) = impatient.timeouts[0];
    assert_eq!(after.ssthresh, before.ssthresh);
}

/// RFC 6582 3.2 step 3: a partial ACK's retransmission goes whatever the window says;
/// only new data waits for cwnd (ns-2's `output(last_ack_ + 1, 0)`). 40 of the 60
/// outstanding segments lost (100..139): ssthresh = 30 segments, and the 20 duplicates
/// inflate cwnd to 30 + 3 + 17 = 50 segments, below the 59 still outstanding after
/// the first partial ACK — had the window held the retransmission back, the next hole
/// would wait for the timer (60 retransmissions and a timeout before this was fixed).
/// With the slow-but-steady timer the 40 are repaired one a round trip, each once.
#[test]
fn a_partial_acks_retransmission_is_not_held_by_the_inflated_window() {
    let steady = newreno_timer_run("slow_but_steady", 100..140);
    assert_eq!((steady.rto_count(), steady.retransmits()), (0, 40));
    for k in 100..140 {
        assert_eq!(steady.transmissions_of(seq(k)).len(), 2, "segment {k}");
    }
}

/// Every algorithm with SACK on and off and both ssthresh bases, a burst of 40 losses
/// and two lost retransmissions each: ssthresh after any timeout never exceeds the
/// largest window reached before it (so never the flight before the loss it reports).
#[test]
fn ssthresh_after_a_timeout_never_exceeds_the_window_before_the_loss() {
    for cc in ["reno", "cubic", "bic", "highspeed", "scalable", "vegas"] {
        for sack in [false, true] {
            for basis in ["flight_size", "cwnd"] {
                let h = transfer(
                    json!({"cc": {"algorithm": cc}, "sack": sack, "timeout_ssthresh": basis}),
                    600,
                    100..140,
                    &[(100, 2), (105, 2)],
                );
                for (_, after) in &h.timeouts {
                    let largest = largest_window_until(&h, after.at);
                    assert!(
                        after.ssthresh <= largest,
                        "{cc} sack={sack} {basis}: ssthresh {} > {largest}",
                        after.ssthresh
                    );
                }
            }
        }
    }
}

/// New data sent during the fast recovery that a single loss in round 4 (cwnd 160)
/// starts, by the number of duplicate ACKs that had arrived when it left.
fn new_data_during_recovery(h: &Harness) -> Vec<u64> {
    let fast_retransmit = h.transmissions_of(seq(200))[1].at;
    let highest_before = h
        .sent
        .iter()
        .filter(|s| s.at < fast_retransmit)
        .map(|s| s.seq)
        .max()
        .expect("data before the loss");
    // Duplicate ACKs arrive one bottleneck slot (1,040 bytes at 10 Mb/s) apart.
    let slot = SimTime::from_ns(832_000);
    h.sent
        .iter()
        .filter(|s| s.nth == 1 && s.seq > highest_before && s.at > fast_retransmit)
        .filter(|s| s.at <= fast_retransmit + SimTime::from_ms(130))
        .map(|s| (s.at - fast_retransmit).as_ns() / slot.as_ns())
        .collect()
}

/// Without SACK, PRR (RFC 9937; Linux's Reno) counts each duplicate ACK as a segment
/// delivered and sends in proportion: the window of 210 segments and Limited
/// Transmit's 2 make RecoverFS 212, and ssthresh is 105 (RFC 5681 3.2: the segments
/// Limited Transmit sent are not part of the FlightSize halved). The budget
/// ceil(delivered · 105/212) − sent, in bytes, first holds a whole segment beyond the
/// fast retransmission after 5 duplicates (2,477 − 1,000 bytes; 1,982 − 1,000 after 4),
/// then after every second one: 5, 7, 9, … — 37 new segments in the first 78 slots.
/// RFC 5681's window inflation (`reduction = "pipe"`, ns-2) sends nothing until the
/// inflated window passes the flight, about 77 duplicates in, and then one per
/// duplicate.
#[test]
fn without_sack_prr_spreads_new_data_over_the_recovery() {
    let prr = transfer(
        json!({"recovery": "newreno", "reduction": "prr"}),
        600,
        200..201,
        &[],
    );
    let spread = new_data_during_recovery(&prr);
    let early = spread.iter().filter(|&&k| k < 78).count();
    assert_eq!(early, 37, "PRR: new segments in the first 78 slots");
    assert_eq!(
        spread[..3],
        [5, 7, 9],
        "PRR sends from the fifth duplicate on, one per two: {spread:?}"
    );

    let inflation = transfer(
        json!({"recovery": "newreno", "reduction": "pipe"}),
        600,
        200..201,
        &[],
    );
    let spread = new_data_during_recovery(&inflation);
    assert!(spread.iter().all(|&k| k >= 74), "inflation: {spread:?}");
    assert!(!spread.is_empty());
}

/// BBR sets its own window in recovery (Linux's `cong_control` op, which skips PRR):
/// in the first round, packet conservation — the window is what is in flight plus what
/// the ACK delivered (`bbr_set_cwnd_to_recover_or_restore`), each duplicate ACK
/// counting one segment delivered and out of flight (`tcp_packets_in_flight` less
/// `sacked_out`). So one new segment leaves per duplicate: about 77 in the first 78
/// slots, where PRR's budget (ssthresh/RecoverFS = 1/2) gives about 39, and never two
/// in one slot. (Counting in flight without the duplicates let the window run away:
/// over 100 in those slots, in bursts.)
#[test]
fn bbr_conserves_packets_in_its_first_round_of_recovery() {
    let bbr = json!({"cc": {"algorithm": "bbr"}, "recovery": "newreno", "reduction": "prr", "pacing": true});
    let spread = new_data_during_recovery(&transfer(bbr, 600, 200..201, &[]));
    let early: Vec<u64> = spread.into_iter().filter(|&k| k < 78).collect();
    assert!(
        (70..=78).contains(&early.len()),
        "BBR: {} new segments in the first 78 slots",
        early.len()
    );
    let most_in_one_slot = (0..78)
        .map(|k| early.iter().filter(|&&e| e == k).count())
        .max();
    assert_eq!(most_in_one_slot, Some(1), "{early:?}");
}

/// A ten-segment transfer (the initial window) losing segments 3 and 8, SACK recovery
/// with RFC 3517's pipe and no lost-retransmission detection (ns-2's Sack1).
/// Duplicates for 4, 5, 6 start recovery and resend 3; the ACK of 9 SACKs the one
/// segment above 8. ns-2's Sack1 resends every hole below the highest SACK before new
/// data (`ScoreBoardRQ::GetNextRetran`), so 8 goes on that ACK, three serialization
/// times (2.5 ms) after 3; RFC 6675's IsLost needs three SACKed segments above it,
/// which never come, so 8 waits for the timer.
#[test]
fn ns2s_sack1_resends_every_hole_below_a_sack_at_once() {
    let resend_of_8_after_3 = |loss_detection: &str| {
        let cfg = json!({"sack": true, "loss_detection": loss_detection, "reduction": "pipe",
                         "tail_loss_probe": false, "detect_lost_retransmits": false,
                         "undo": false, "frto": false});
        let mut h = Harness::new(&tcp(cfg), 10 * MSS, RATE, ONE_WAY, |s, nth| {
            nth == 1 && [3, 8].contains(&segment_of(s))
        });
        h.run(SimTime::from_secs(10));
        assert_eq!(h.delivered, 10 * MSS);
        let resent = |k| h.transmissions_of(seq(k))[1].at;
        resent(8) - resent(3)
    };
    assert!(resend_of_8_after_3("holes") < SimTime::from_ms(3));
    assert!(resend_of_8_after_3("dupthresh") > SimTime::from_ms(200));
}

/// Segments 3 and 6 of the initial window lost, and their retransmissions too: the
/// duplicates SACK 4, 5 and 7–9, recovery sends 10 onwards, and only the timer finds
/// the second losses (no lost-retransmission detection, as in ns-2's Sack1). After the
/// timeout the resent 3 brings the cumulative ACK up to the hole at 6; acknowledging
/// three segments, it opens the window from one to three (RFC 3465, L = 2·SMSS), which
/// then holds 6 and two more. Kept SACKs (Linux) make those new data; forgotten ones
/// (RFC 2018 section 8, ns-2's `ClearScoreBoard`) make them 7 and 8, sent again
/// although the receiver holds them: go-back-N.
#[test]
fn a_timeout_forgets_the_sacks_only_when_told_to() {
    let resent_after_timeout = |sack_after_timeout: &str| {
        let cfg = rfc6675(
            json!({"detect_lost_retransmits": false, "frto": false, "undo": false,
                                 "sack_after_timeout": sack_after_timeout}),
        );
        let h = transfer(cfg, 20, 0..0, &[(3, 1), (3, 2), (6, 1), (6, 2)]);
        assert_eq!(
            h.rto_count(),
            1,
            "the lost retransmissions end in one timeout"
        );
        [4, 5, 7, 8, 9]
            .into_iter()
            .filter(|&k| h.transmissions_of(seq(k)).len() > 1)
            .collect::<Vec<u64>>()
    };
    assert_eq!(resent_after_timeout("keep"), Vec::<u64>::new());
    assert_eq!(resent_after_timeout("forget"), vec![7, 8]);
}

/// Without SACK, holes at 3 (and its fast retransmission), 12 and 25 of a 60-segment
/// transfer: the timer ends the recovery, and the go-back-N resends in rounds — 3; 12–14
/// (ABC opens the window to three); 25–29 (five) — each round's cumulative ACK jumping
/// to the next hole, because the receiver holds everything between. Each round also
/// brings duplicate ACKs, for segments the receiver held. ns-2's Reno and Newreno call
/// `send_one()` on the first two of them whatever the state, and after a timeout that
/// sends the go-back-N's next segment beyond cwnd (`limited_transmit_after_timeout`):
/// two more per round, 4–5, 15–16 and 30–31. Without the rule (RFC 3042 sends only new
/// data, and only in the open state) the duplicates send nothing.
#[test]
fn duplicates_after_a_timeout_send_the_go_back_n_only_when_told_to() {
    let resent = |rule: bool| {
        let cfg = json!({"recovery": "newreno", "limited_transmit_after_timeout": rule});
        let h = transfer(cfg, 60, 0..0, &[(3, 1), (3, 2), (12, 1), (25, 1)]);
        assert_eq!(h.rto_count(), 1);
        let timeout = h.timeouts[0].0.at;
        let mut segments: Vec<u64> = h
            .sent
            .iter()
            .filter(|s| s.at >= timeout && s.nth > 1)
            .map(|s| segment_of(s.seq))
            .collect();
        segments.sort_unstable();
        segments
    };
    let go_back_n = [3, 12, 13, 14, 25, 26, 27, 28, 29];
    assert_eq!(resent(false), go_back_n);
    let mut with_duplicates = [&go_back_n[..], &[4, 5, 15, 16, 30, 31]].concat();
    with_duplicates.sort_unstable();
    assert_eq!(resent(true), with_duplicates);
}

/// The gaps between the retransmissions of segment 2 of a 3-segment transfer whose
/// first nine transmissions of segment 2 are lost (from the first retransmission on).
fn retransmission_gaps(cfg: serde_json::Value) -> Vec<u64> {
    const LOST: &[(u64, u32)] = &[
        (2, 2),
        (2, 3),
        (2, 4),
        (2, 5),
        (2, 6),
        (2, 7),
        (2, 8),
        (2, 9),
    ];
    let h = transfer(cfg, 3, 2..3, LOST);
    let at: Vec<u64> = h
        .transmissions_of(seq(2))
        .iter()
        .map(|s| s.at.as_ns())
        .collect();
    assert_eq!(at.len(), 10, "the original and nine retransmissions");
    at.windows(2).skip(1).map(|w| w[1] - w[0]).collect()
}

/// Linux's linear timeouts for thin streams (`tcp_retransmit_timer`,
/// `TCP_THIN_LINEAR_RETRIES` = 6): with one segment out after slow start, the RTO
/// after each of the first six timeouts in a row is the unbacked-off R, then RFC 6298
/// (5.5)'s doubling resumes from R (2R, 4R); without the option every timeout doubles
/// it (2R, 4R, 8R, ...).
#[test]
fn a_thin_stream_keeps_its_rto_for_six_timeouts_in_a_row() {
    let linear = retransmission_gaps(json!({"thin_linear_timeouts": true}));
    let r = linear[0];
    assert!(r >= SimTime::from_ms(200).as_ns(), "R is at least RTO.min");
    assert_eq!(linear, [r, r, r, r, r, r, 2 * r, 4 * r]);
    let doubling = retransmission_gaps(json!({}));
    let expected: Vec<u64> = (1..=8).map(|k| r << k).collect();
    assert_eq!(doubling, expected);
}
