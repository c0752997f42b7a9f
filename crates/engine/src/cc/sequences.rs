//! Operation-sequence tests of every algorithm (after s2n-quic's congestion-controller
//! fuzzing): random sequences of transmissions, ACKs (new, duplicate, in recovery, with
//! and without RTT and rate samples), congestion events, timeouts and recovery ends
//! (some with rate halving's window limit),
//! checked after each step for the invariants every controller must keep — the window
//! at least one segment, no panic or overflow, a finite pacing rate, the in-flight
//! accounting of the mock sender consistent.

use super::*;

/// A mock sender: tracks bytes in flight and feeds the controller what a real sender
/// would, with random timing and sizes.
struct Mock {
    cc: Box<dyn CongestionControl>,
    rng: Rng,
    now: SimTime,
    mss: u64,
    in_flight: u64,
    delivered: u64,
    round: u64,
    in_recovery: bool,
    min_rtt: Option<SimTime>,
}

impl Mock {
    fn step(&mut self) {
        let op = self.rng.next_u64() % 100;
        self.now += SimTime(self.rng.next_u64() % 5_000_000);
        match op {
            0..=39 => {
                // Send what the window allows (bounded per step).
                let cwnd = self.cc.cwnd();
                let mut n = 0;
                while self.in_flight + self.mss <= cwnd.max(self.mss) && n < 64 {
                    self.cc.on_sent(self.now, self.mss, self.in_flight);
                    self.in_flight += self.mss;
                    n += 1;
                }
            }
            40..=84 => {
                // An ACK: new data or a duplicate.
                let segs = self.rng.next_u64() % 4;
                let bytes = (segs * self.mss).min(self.in_flight);
                let prior = self.in_flight;
                self.in_flight -= bytes;
                self.delivered += bytes;
                let rtt = SimTime(1_000_000 + self.rng.next_u64() % 300_000_000);
                self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
                let round_start = self.rng.bernoulli(0.1);
                self.round += round_start as u64;
                let rate = (bytes > 0 && self.rng.bernoulli(0.7)).then(|| RateSample {
                    delivered_bytes: bytes.max(1),
                    interval: rtt,
                    delivery_rate_bps: bytes.max(1) as f64 * 8e9 / rtt.as_ns() as f64,
                    is_app_limited: self.rng.bernoulli(0.2),
                    prior_delivered: self.delivered - bytes,
                    rtt,
                });
                let ack = AckEvent {
                    now: self.now,
                    bytes_acked: bytes,
                    newly_acked_bytes: bytes,
                    delivered_bytes: bytes,
                    rtt: self.rng.bernoulli(0.8).then_some(rtt),
                    min_rtt: self.min_rtt,
                    srtt: self.min_rtt,
                    in_flight: self.in_flight,
                    prior_in_flight: prior,
                    in_recovery: self.in_recovery,
                    cwnd_limited: self.rng.bernoulli(0.8),
                    round_start,
                    round_count: self.round,
                    rate,
                    losses: if self.rng.bernoulli(0.1) {
                        1 + self.rng.next_u64() % 8
                    } else {
                        0
                    },
                };
                self.cc.on_ack(&ack);
            }
            85..=91 if !self.in_recovery => {
                self.in_recovery = true;
                self.cc
                    .on_congestion_event(self.now, self.in_flight, self.in_flight);
            }
            85..=94 if self.in_recovery => {
                self.in_recovery = false;
                self.cc.on_recovery_end(self.now);
                if self.rng.bernoulli(0.5) {
                    // Rate halving's end (Linux 2.6): anything from 0 to the floor.
                    let floor = self.cc.min_cwnd().min(self.cc.cwnd());
                    self.cc.limit_cwnd(self.rng.next_u64() % (floor + 1));
                }
            }
            95..=99 => {
                let new_event = self.rng.bernoulli(0.7);
                let before = (self.cc.ssthresh(), self.cc.cwnd());
                self.cc
                    .on_retransmission_timeout(self.now, self.in_flight, new_event);
                self.check_timeout_response(new_event, before);
                self.in_recovery = false;
                self.in_flight = 0; // everything presumed lost
            }
            _ => {}
        }
    }

    /// The trait's contract for a timeout (`on_retransmission_timeout`), given ssthresh
    /// and cwnd before it: one that is not a new congestion event leaves ssthresh
    /// where it was; a new one puts it at most at the basis it was given (or two
    /// segments, RFC 5681's floor); BBR keeps no threshold. SCTP's rule is its own:
    /// every T3-rtx expiry sets ssthresh = max(cwnd/2, 4·MTU) (RFC 9260 7.2.3).
    fn check_timeout_response(&self, new_event: bool, (ssthresh, cwnd): (u64, u64)) {
        let after = self.cc.ssthresh();
        let name = self.cc.name();
        if name == "sctp" {
            assert_eq!(after, (cwnd / 2).max(4 * self.mss), "sctp: RFC 9260 7.2.3");
        } else if !new_event {
            assert_eq!(after, ssthresh, "{name}: a repeated timeout moved ssthresh");
        } else if after == u64::MAX {
            assert_eq!(name, "bbr", "{name}: ssthresh unset after a new timeout");
        } else {
            let ceiling = self.in_flight.max(2 * self.mss);
            assert!(
                after <= ceiling,
                "{name}: ssthresh {after} after a timeout with basis {}",
                self.in_flight
            );
        }
    }

    fn check(&self, algorithm: &str, step: usize) {
        let cwnd = self.cc.cwnd();
        assert!(
            cwnd >= self.mss,
            "{algorithm} step {step}: cwnd {cwnd} below one segment"
        );
        assert!(
            cwnd < u64::MAX / 4,
            "{algorithm} step {step}: cwnd {cwnd} overflowing"
        );
        assert!(
            self.cc.ssthresh() >= 2 * self.mss.min(self.cc.ssthresh()),
            "{algorithm}"
        );
        if let Some(rate) = self.cc.pacing_rate_bps() {
            assert!(
                rate.is_finite() && rate > 0.0,
                "{algorithm} step {step}: pacing {rate}"
            );
        }
        let state = self.cc.state();
        for (k, name) in self.cc.state_names().iter().enumerate() {
            assert!(
                !state[k].is_infinite(),
                "{algorithm} step {step}: {name} infinite"
            );
        }
        assert!(self.cc.state_names().len() <= STATE_SLOTS);
    }
}

fn every_algorithm() -> Vec<CcConfig> {
    let catalogue = CcConfig::catalogue();
    let mut all = Vec::new();
    for (name, entry) in catalogue.as_object().unwrap() {
        let mut configs = vec![entry["defaults"].clone()];
        configs.extend(entry["presets"].as_object().unwrap().values().cloned());
        for mut c in configs {
            c.as_object_mut()
                .unwrap()
                .insert("algorithm".into(), name.clone().into());
            all.push(serde_json::from_value(c).unwrap());
        }
    }
    all
}

#[test]
fn random_operation_sequences_keep_every_invariant() {
    let algorithms = every_algorithm();
    assert!(algorithms.len() >= 9);
    for (i, config) in algorithms.iter().enumerate() {
        config.validate().unwrap();
        for seed in 0..40u64 {
            for mss in [536u64, 1448, 8960] {
                let mut mock = Mock {
                    cc: config.build(BuildContext {
                        mss,
                        initial_window: 10 * mss,
                        rng: Rng::for_component(seed, "cc"),
                        window_in_packets: false,
                        slow_start_at_ssthresh: false,
                        slow_start_limit: Some(2),
                    }),
                    rng: Rng::for_component(seed * 31 + i as u64, "ops"),
                    now: SimTime::ZERO,
                    mss,
                    in_flight: 0,
                    delivered: 0,
                    round: 0,
                    in_recovery: false,
                    min_rtt: None,
                };
                for step in 0..2_000 {
                    mock.step();
                    mock.check(config.name(), step);
                }
            }
        }
    }
}

/// A controller built from a configuration carries that configuration's name.
#[test]
fn every_configuration_builds_the_algorithm_it_names() {
    for config in every_algorithm() {
        let cc = config.build(BuildContext {
            mss: 1000,
            initial_window: 10_000,
            rng: Rng::for_component(1, "cc"),
            window_in_packets: false,
            slow_start_at_ssthresh: false,
            slow_start_limit: Some(2),
        });
        assert_eq!(cc.name(), config.name());
        assert_eq!(cc.cwnd(), 10_000, "{}: the initial window", config.name());
    }
}

/// Out-of-range parameters are rejected naming the field.
#[test]
fn out_of_range_parameters_name_the_field() {
    let bad = [
        (r#"{"algorithm":"cubic","beta":1.2}"#, "beta"),
        (r#"{"algorithm":"cubic","c":0}"#, "c"),
        (r#"{"algorithm":"bic","beta":0}"#, "beta"),
        (r#"{"algorithm":"vegas","alpha":-1}"#, "alpha"),
        (r#"{"algorithm":"vegas","alpha":3,"beta":2}"#, "beta"),
        (r#"{"algorithm":"fast","alpha":0}"#, "alpha"),
        (r#"{"algorithm":"bbr","cwnd_gain":-2}"#, "cwnd_gain"),
        (
            r#"{"algorithm":"highspeed","high_window":10}"#,
            "high_window",
        ),
        (r#"{"algorithm":"scalable","b":1.5}"#, "b"),
        (r#"{"algorithm":"reno","beta":0}"#, "beta"),
    ];
    for (json, field) in bad {
        let c: CcConfig = serde_json::from_str(json).unwrap();
        assert_eq!(c.validate().unwrap_err().field, field, "{json}");
    }
}
