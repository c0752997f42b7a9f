//! Loss recovery over random option combinations and random losses (s2n-quic's
//! operation-sequence fuzzing, through the two-endpoint [`harness`](super::harness)).
//!
//! Each case draws an algorithm and a value for every option that shapes recovery and
//! timeouts — the choices the profiles are made of (SACK or not, loss detection, how the
//! window comes down, NewReno's timer, what a timeout halves and how often, slow start's
//! counting, what survives a timeout) — and a loss pattern: independent losses of
//! originals, a burst that loses everything sent for up to 50 ms, and losses of first
//! retransmissions.
//! The path is the harness's (10 Mb/s, 10 ms each way, an unbounded queue at the
//! sender). Every case must deliver the whole transfer, and after every expiry of the
//! retransmission timer ssthresh must be no more than the most the sender ever had in
//! flight within its window (issue #28: a FlightSize swollen by a recovery put ssthresh
//! above the window that had overflowed, so each slow start after a timeout overflowed
//! again), allowing RFC 5681's floor of two segments and Limited Transmit's two.

use super::harness::{tcp, Harness, MSS};
use crate::time::SimTime;
use serde_json::{json, Value};

/// A small deterministic generator (xorshift64): cases are the same on every run. Not
/// the engine's `Rng`: the case numbers the fuzzer found its bugs at (kept in
/// [`FOUND`]) are this sequence's, and `recovery_tests.rs` draws its drop patterns
/// from it too.
pub(super) struct Draw(pub(super) u64);

impl Draw {
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
        options[self.below(options.len() as u64) as usize]
    }

    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

/// The algorithms whose window a loss reduces through ssthresh (BBR and FAST set their
/// windows from their own models).
const ALGORITHMS: &[&str] = &[
    "reno",
    "newreno",
    "cubic",
    "highspeed",
    "bic",
    "scalable",
    "vegas",
];

/// One random configuration of the options that decide recovery and timeouts.
fn options(d: &mut Draw) -> Value {
    let sack = d.chance(0.5);
    let initial_window = [2, 3, 10][d.below(3) as usize];
    let mut cfg = json!({
        "cc": {"algorithm": d.pick(ALGORITHMS)},
        "sack": sack,
        "initial_window_segments": initial_window,
        "ack_every": 1 + d.below(2),
        "timeout_ssthresh": d.pick(&["flight_size", "cwnd"]),
        "timeout_reduction": d.pick(&["once_per_window", "per_timeout"]),
        "cwnd_counting": d.pick(&["bytes", "segments", "acks", "ns2"]),
        "limited_transmit": d.chance(0.5),
        "slow_start_at_ssthresh": d.chance(0.3),
    });
    let extra = if sack {
        json!({
            "loss_detection": d.pick(&["dupthresh", "fack", "rack", "holes"]),
            "reduction": d.pick(&["pipe", "prr", "rate_halving", "sack1_pipe"]),
            "tail_loss_probe": d.chance(0.5),
            "frto": d.chance(0.5),
            "undo": d.chance(0.5),
            "detect_lost_retransmits": d.chance(0.5),
            "sack_after_timeout": d.pick(&["keep", "forget"]),
        })
    } else {
        json!({
            "recovery": d.pick(&["reno", "newreno"]),
            "reduction": d.pick(&["pipe", "prr", "rate_halving"]),
            "newreno_timer": d.pick(&["impatient", "slow_but_steady", "by_holes"]),
            "limited_transmit_after_timeout": d.chance(0.3),
        })
    };
    if let (Some(c), Some(e)) = (cfg.as_object_mut(), extra.as_object()) {
        c.extend(e.clone());
    }
    cfg
}

/// Segments of each transfer.
const SEGMENTS: u64 = 600;

/// One random loss pattern: each original lost with a probability of 0.5-10%, every
/// transmission in one burst of 1-50 ms somewhere in the first 2 s, and each first
/// retransmission with a probability of 0-30% (later ones always arrive, so every case
/// can end).
fn losses(d: &mut Draw) -> impl FnMut(u64, u32, SimTime) -> bool + 'static {
    let p_original = [0.005, 0.02, 0.1][d.below(3) as usize];
    let p_resend = [0.0, 0.1, 0.3][d.below(3) as usize];
    let burst_start = SimTime::from_ms(d.below(2000));
    let burst = burst_start..burst_start + SimTime::from_ms(1 + d.below(50));
    let mut draw = Draw(d.next() | 1);
    move |_, nth, at| {
        burst.contains(&at)
            || match nth {
                1 => draw.chance(p_original),
                2 => draw.chance(p_resend),
                _ => false,
            }
    }
}

/// The most the sender had in flight within its window before timeout `i`: the largest
/// of min(outstanding, usable cwnd) over its calls until then. A timeout's ssthresh is a
/// fraction of FlightSize or of cwnd, so it can be no more than this (plus the two
/// segments Limited Transmit may add); issue #28's FlightSize swollen by a recovery —
/// SND.NXT − SND.UNA still counting the window a go-back-N resends after a timeout —
/// was more.
fn largest_flight_before(h: &Harness, i: usize) -> u64 {
    let at = h.timeouts[i].1.at;
    h.flights
        .iter()
        .filter(|f| f.at < at)
        .map(|f| f.outstanding.min(f.cwnd))
        .max()
        .unwrap_or(0)
}

/// The fuzzer's seed.
const SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// Cases that fail without their fix, run in CI whatever the case count: 260, BIC with
/// `sack_after_timeout = "forget"` and F-RTO, a timeout's pipe taken above the window
/// (ssthresh 32 segments, largest flight 12); 10413, CUBIC counting every segment of a
/// go-back-N's last ACK under `cwnd_counting = "acks"` (ssthresh 102, largest flight 78).
/// (117, where the first was found, no longer reaches it once the second is fixed.)
const FOUND: [usize; 2] = [260, 10413];

/// Runs case `case` of the sequence: the transfer must end, and no timeout may leave
/// ssthresh above the largest flight its window had allowed. Returns the timeouts
/// checked.
fn check(
    case: usize,
    cfg: &Value,
    losses: impl FnMut(u64, u32, SimTime) -> bool + 'static,
) -> usize {
    let mut h = Harness::new(
        &tcp(cfg.clone()),
        SEGMENTS * MSS,
        10_000_000,
        SimTime::from_ms(10),
        |_, _| false,
    )
    .with_timed_drops(losses);
    // Hours: a case that loses a third of its first retransmissions backs the timer
    // off to its 60-s ceiling (Karn: no RTT sample from a resent segment).
    h.run(SimTime::from_secs(3 * 3600));
    assert_eq!(h.delivered, SEGMENTS * MSS, "case {case}: {cfg}");
    // ns-2 grows cwnd on every ACK whether or not the window is used
    // (`cwnd_counting = "ns2"`, `opencwnd`): near the end of the transfer an
    // application-limited sender's window runs far above its flight (285 segments
    // with 35 outstanding), and a reduction from the window — ns-2's `slowdown()`,
    // or any Linux module's `ssthresh()`, which reads cwnd — may then exceed any
    // flight. That is ns-2.35's rule, kept in the `ns2` profile; not asserted.
    if cfg["cwnd_counting"] == "ns2" {
        return 0;
    }
    for (i, (_, after)) in h.timeouts.iter().enumerate() {
        let flight = largest_flight_before(&h, i);
        assert!(
            after.ssthresh <= flight.max(2 * MSS) + 2 * MSS,
            "case {case}, timeout {i} at {:?}: ssthresh {} above the largest flight {flight}; {cfg}",
            after.at,
            after.ssthresh
        );
    }
    h.timeouts.len()
}

#[test]
fn random_options_and_losses_never_set_ssthresh_above_any_flight_the_window_allowed() {
    let mut d = Draw(SEED);
    let mut timeouts = 0;
    // 1,000 cases in CI (about a second); `TCPLAB_RECOVERY_CASES` for more.
    let cases: usize =
        std::env::var("TCPLAB_RECOVERY_CASES").map_or(1000, |v| v.parse().expect("a count"));
    for case in 0..cases {
        let cfg = options(&mut d);
        timeouts += check(case, &cfg, losses(&mut d));
    }
    // The cases reach the timer often enough for the property to mean something.
    assert!(timeouts > 200, "{timeouts}");
}

#[test]
fn the_cases_the_fuzzer_failed_on_stay_fixed() {
    let mut d = Draw(SEED);
    for case in 0..=FOUND[FOUND.len() - 1] {
        let cfg = options(&mut d);
        let losses = losses(&mut d);
        if FOUND.contains(&case) {
            assert!(
                check(case, &cfg, losses) > 0,
                "case {case} reaches the timer: {cfg}"
            );
        }
    }
}
