//! Congestion-control algorithms against their published response functions: the
//! mean window (goodput × RTT / MSS) of one bulk flow under Bernoulli loss p, on a
//! path that neither a buffer nor the receive window limits, compared with the
//! analytic W(p) of each algorithm at three loss rates (±15%; `make test` checks the
//! two highest, `make test-heavy` all three). Each case prints the expected figure next
//! to the simulated one.

mod common;

use common::*;
use tcplab_engine::config::*;
use tcplab_engine::Simulation;

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;
const MSS: f64 = 1460.0;

/// The mean window, segments, of `cc` under loss `p` on a 10 Gbit/s path with
/// `rtt_ms` of propagation, run for about `losses` loss events given the expected
/// window `expected` (segments).
fn mean_window(cc: serde_json::Value, p: f64, rtt_ms: u64, expected: f64, losses: f64) -> f64 {
    let mut cfg = two_hops(
        10_000_000_000,
        MS,
        10_000_000_000,
        (rtt_ms / 2 - 1) * MS,
        droptail(1_000_000),
    );
    let rtt = rtt_ms as f64 / 1e3;
    // Losses arrive once per 1/p packets, at expected/RTT packets per second.
    let seconds = (losses / (p * expected / rtt)).ceil().max(20.0) as u64;
    cfg.simulation.duration_ns = seconds * S;
    cfg.simulation.bin_ns = S;
    cfg.simulation.seed = 5;
    cfg.links[1].forward.loss = LossConfig::Bernoulli { rate: p };
    let mut t = tcp();
    t.handshake = false;
    t.sack = true;
    t.cc = serde_json::from_value(cc).unwrap();
    cfg.flows.push(tcp_flow("f", "a", "b", t, AppConfig::Bulk));
    let res = Simulation::new(cfg).unwrap().run().unwrap();
    let f = &res.flows[0];
    // Segment RTT: propagation plus serialization of a data segment and an ACK.
    let rtt_seg = rtt + 2.0 * 1500.0 * 8.0 / 1e10 + 2.0 * 40.0 * 8.0 / 1e10;
    f.goodput_bps * rtt_seg / (8.0 * MSS)
}

/// Whether this run checks every loss rate (`make test-heavy` sets `TCPLAB_HEAVY=1`) or
/// only the two highest: the lowest rate takes ten times the packets of the next one
/// (300 loss events at 1e-5 are 30 million packets) and most of this file's time.
fn every_loss_rate() -> bool {
    std::env::var("TCPLAB_HEAVY").is_ok_and(|v| v == "1")
}

fn check(name: &str, cc: serde_json::Value, rtt_ms: u64, cases: &[(f64, f64)], losses: f64) {
    let lowest = cases.iter().map(|c| c.0).fold(f64::INFINITY, f64::min);
    for &(p, expected) in cases {
        if p == lowest && !every_loss_rate() {
            println!("{name}: p = {p:e} checked by make test-heavy only");
            continue;
        }
        let got = mean_window(cc.clone(), p, rtt_ms, expected, losses);
        println!(
            "{name}: p = {p:e}, RTT {rtt_ms} ms: expected W = {expected:.0}, simulated {got:.0} ({:+.1}%)",
            100.0 * (got / expected - 1.0)
        );
        assert!(
            (got / expected - 1.0).abs() <= 0.15,
            "{name} p = {p}: {got:.0} vs {expected:.0}"
        );
    }
}

/// Mathis et al. 1997, one ACK per segment: W = √(3/(2p)).
#[test]
fn reno_follows_the_square_root_law() {
    let w = |p: f64| (1.5 / p).sqrt();
    let cases: Vec<_> = [1e-3, 1e-4, 1e-5].iter().map(|&p| (p, w(p))).collect();
    check(
        "reno",
        serde_json::json!({"algorithm": "reno"}),
        100,
        &cases,
        300.0,
    );
}

/// General AIMD (Floyd, Handley & Padhye 2000, section 2): W = √(α(2 − β)/(2βp)),
/// here for α = 2 segments per RTT and β = 1/4 (√(7/p): 265, 837 at 1e-4, 1e-5).
#[test]
fn gaimd_follows_its_response_function() {
    let (a, b) = (2.0f64, 0.25f64);
    let w = |p: f64| (a * (2.0 - b) / (2.0 * b * p)).sqrt();
    let cases: Vec<_> = [1e-3, 1e-4, 1e-5].iter().map(|&p| (p, w(p))).collect();
    check(
        "gaimd",
        serde_json::json!({"algorithm": "gaimd", "alpha": a, "beta": b}),
        100,
        &cases,
        300.0,
    );
}

/// RFC 3649 section 5: W = 0.12/p^0.835 above Low_Window (RFC 8312 Table 1: 263 at
/// 1e-4, 1,795 at 1e-5), for the RFC's own continuous a(w), b(w) (`stepwise = false`).
#[test]
fn highspeed_follows_rfc3649() {
    let w = |p: f64| 0.12 / p.powf(0.835);
    let cases: Vec<_> = [1e-4, 3e-5, 1e-5].iter().map(|&p| (p, w(p))).collect();
    check(
        "highspeed (RFC functions)",
        serde_json::json!({"algorithm": "highspeed", "stepwise": false}),
        100,
        &cases,
        300.0,
    );
}

/// Linux's table (the default) grows by the a(w) of each row's upper window across the
/// whole row, so its mean window lies above RFC 3649's W(p) (measured +14.9% at 1e-4,
/// +16.9% at 3e-5). The expectation here is a fluid model of that rule under the same
/// Bernoulli loss: the window grows by a(row) per RTT, each loss (exponentially
/// distributed in packets) multiplies it by 1 − b(row), with the rows recomputed
/// below from RFC 3649 appendix B's definitions.
#[test]
fn highspeed_linux_table_follows_its_fluid_model() {
    let cases: Vec<_> = [1e-4, 3e-5, 1e-5]
        .iter()
        .map(|&p| (p, highspeed_table_fluid_mean(p)))
        .collect();
    check(
        "highspeed (Linux table)",
        serde_json::json!({"algorithm": "highspeed"}),
        100,
        &cases,
        300.0,
    );
}

/// Mean window of the fluid model of Linux's HighSpeed table under random loss `p`.
fn highspeed_table_fluid_mean(p: f64) -> f64 {
    let (low, high, high_decrease) = (38.0f64, 83_000.0f64, 0.1);
    let b = |w: f64| (high_decrease - 0.5) * (w / low).ln() / (high / low).ln() + 0.5;
    let a = |w: f64| w * w * 0.078 / w.powf(1.2) * 2.0 * b(w) / (2.0 - b(w));
    // Row k: the first window with a(w) >= k + 1, and its decrease (×256, truncated).
    let mut rows: Vec<(f64, f64)> = Vec::new();
    let mut w = low;
    for k in 0..72 {
        while k > 0 && a(w) < (k + 1) as f64 {
            w += 1.0;
        }
        rows.push((w, (b(w) * 256.0).floor() / 256.0));
    }
    let row = |w: f64| rows.iter().position(|r| w <= r.0).unwrap_or(rows.len() - 1);
    // xorshift64*: uniform draws for the exponential gaps between losses.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut uniform = || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        ((state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    let (mut w, mut sent, mut rtts) = (0.12 / p.powf(0.835), 0.0, 0.0);
    for _ in 0..5_000 {
        let gap = -uniform().ln() / p;
        let mut s = 0.0;
        while s < gap {
            let inc = if w > low { (row(w) + 1) as f64 } else { 1.0 };
            let dt = (0.02f64).min((gap - s) / w);
            s += w * dt;
            w += inc * dt;
            rtts += dt;
        }
        sent += s;
        let md = if w > low { rows[row(w)].1 } else { 0.5 };
        w = (w * (1.0 - md)).max(2.0);
    }
    sent / rtts
}

/// Scalable, derived for the implemented rule (+a per segment acknowledged, ×(1 − b)
/// per loss): between losses, 1/p segments raise the window from (1 − b)·W to W
/// (W = a/(b·p)) in RTT·ln(1/(1 − b))/a seconds, so the mean window is
/// a/(p·ln(1/(1 − b))) = 0.0749/p for a = 0.01, b = 0.125.
#[test]
fn scalable_follows_its_derived_response() {
    let w = |p: f64| 0.01 / (p * (1.0f64 / 0.875).ln());
    let cases: Vec<_> = [1e-4, 3e-5, 1e-5].iter().map(|&p| (p, w(p))).collect();
    check(
        "scalable",
        serde_json::json!({"algorithm": "scalable"}),
        10,
        &cases,
        300.0,
    );
}

/// RFC 9438 / RFC 8312 section 5: W = [C(3 + β)/(4(1 − β))]^(1/4)·RTT^(3/4)/p^(3/4),
/// never below the Reno-friendly window (RFC 8312 Table 1 at RTT 100 ms: 38, 187,
/// 1,054 at 1e-3, 1e-4, 1e-5).
#[test]
fn cubic_follows_rfc9438() {
    let (c, beta, rtt) = (0.4f64, 0.7f64, 0.1f64);
    let cubic = |p: f64| {
        (c * (3.0 + beta) / (4.0 * (1.0 - beta))).powf(0.25) * rtt.powf(0.75) / p.powf(0.75)
    };
    // α_cubic = 3(1 − β)/(1 + β) makes the Reno-friendly window Reno's own.
    let friendly = |p: f64| (1.5 / p).sqrt();
    let cases: Vec<_> = [1e-3, 1e-4, 1e-5]
        .iter()
        .map(|&p| (p, cubic(p).max(friendly(p))))
        .collect();
    check(
        "cubic",
        serde_json::json!({"algorithm": "cubic"}),
        100,
        &cases,
        300.0,
    );
}

/// BIC lies between its two regions' bounds: at least Reno's √(3/(2p)) and at most
/// AIMD with S_max = 16 segments per RTT and decrease 1 − β, √(16(1 + β)/(2(1 − β)p)).
/// The bounds are the paper's per-segment rule, so that is what runs (`ack_ratio =
/// false`): Linux's ACK counting with an ACK per segment grows ~1.94× as fast.
#[test]
fn bic_lies_between_its_regions() {
    let beta: f64 = 819.0 / 1024.0;
    for p in [1e-3, 1e-4, 1e-5] {
        if p == 1e-5 && !every_loss_rate() {
            println!("bic: p = {p:e} checked by make test-heavy only");
            continue;
        }
        let low = (1.5f64 / p).sqrt();
        let high = (16.0f64 * (1.0 + beta) / (2.0 * (1.0 - beta) * p)).sqrt();
        let got = mean_window(
            serde_json::json!({"algorithm": "bic", "ack_ratio": false}),
            p,
            100,
            low,
            300.0,
        );
        println!("bic: p = {p:e}: bounds [{low:.0}, {high:.0}], simulated {got:.0}");
        assert!(
            got >= low * 0.85 && got <= high * 1.15,
            "bic p = {p}: {got:.0} not in [{low:.0}, {high:.0}]"
        );
    }
}
