//! TCP: a sans-IO sender and receiver with Reno, NewReno and SACK loss recovery,
//! RACK-TLP, F-RTO and undo, RFC 6298 timers and pluggable congestion control.
//! Tests by state: `recovery_tests.rs`, `rack_tests.rs`, `undo_tests.rs` through the
//! two-endpoint `harness.rs`.
//!
//! | file | job | RFCs |
//! |---|---|---|
//! | `segment.rs` | header fields, option and wire sizes | 9293, 2018, 7323 |
//! | `sender/` | sequence space, sending, loss detection and recovery, timeout (its own table) | 5681, 6582, 6675, 6298, 8985, 5682 |
//! | `scoreboard.rs` | retransmission queue, SACK marks, pipe, lost marking (IsLost, FACK, RACK's walk) | 6675, 8985 |
//! | `rack.rs` | RACK's record and rules | 8985 |
//! | `undo.rs` | the undo record of a reduction and its evidence | 3708, 3522, 4015 |
//! | `prr.rs`, `rate_halving.rs`, `sack1_pipe.rs`, `ns2_linux_halving.rs` | how the window comes down in recovery (RFC's, Linux 2.6's, ns-2's) | 6937 |
//! | `receiver.rs` | reassembly, ACK policy, SACK and D-SACK blocks | 9293, 5681 4.2, 2018, 2883 |
//! | `rto.rs` | RTT estimation, RTO, backoff | 6298 |
//! | `cc/` | congestion-control trait and algorithms | 5681, 3465, … |
//!
//! Modelling choices: 64-bit sequence numbers that never wrap; the SYN takes
//! sequence number 0 and data starts at 1 (also without a handshake, which behaves
//! like ns-2's one-way TCP); the receiving application reads at once.

pub mod autotune;
#[cfg(test)]
mod harness;
pub mod ns2_linux_halving;
pub mod prr;
pub mod rack;
pub mod rate;
pub mod rate_halving;
pub mod receiver;
pub mod retransmission_order;
pub mod sack1_pipe;
pub mod scoreboard;
pub mod sender;
pub mod undo;

#[cfg(test)]
mod ns2_linux_tests;
#[cfg(test)]
mod rack_tests;
#[cfg(test)]
mod recovery_fuzz_tests;
#[cfg(test)]
mod recovery_tests;
#[cfg(test)]
mod small_queues_tests;
#[cfg(test)]
mod undo_tests;

pub use crate::config::Recovery;
pub use receiver::{ReceiverParams, TcpReceiver};
pub use sender::{SenderParams, TcpSender};

/// DupThresh (RFC 5681 section 3.2, RFC 6675 section 2): duplicate ACKs, or SACKed
/// segments above a hole, that declare it lost; shared by the sender, the scoreboard
/// and RACK's reordering window.
pub const DUP_THRESH: usize = 3;

use super::{Endpoint, Transport};
use crate::app::ByteSource;
use crate::config::{Amount, AppConfig, CcConfig, ConfigError, RtoConfig, TcpConfig};
use crate::rng::Rng;
use crate::time::SimTime;
use crate::validate::{at, err};
use crate::wire::tcp::{MAX_SACK_BLOCKS, SCALED_WINDOW_MAX, TCP_HEADER_BYTES, UNSCALED_WINDOW_MAX};
use crate::wire::IPV4_HEADER_BYTES;
use autotune::Autotune;

/// TCP as the engine sees it (see [`Transport`]).
impl Transport for TcpConfig {
    fn name(&self) -> &'static str {
        "tcp"
    }

    fn carries_datagrams(&self) -> bool {
        false
    }

    fn ip_protocol(&self) -> u8 {
        6
    }

    fn needs_return_path(&self) -> bool {
        true
    }

    /// Checks TCP's options against the MTUs of the flow's first hop and of its whole
    /// path; returns the MSS (RFC 9293 section 3.7.1: path MTU − 40 unless given).
    fn check(&self, origin: &str, first_hop_mtu: u32, path_mtu: u32) -> Result<u32, ConfigError> {
        let o = at(origin, "transport");
        // Options beyond the MSS (ns-2's counting) make every full segment larger.
        let header =
            IPV4_HEADER_BYTES + TCP_HEADER_BYTES + self.option_sizes.beyond_mss(self.timestamps);
        let option_bytes = self.option_sizes.within_mss(self.timestamps);
        let mss = match self.mss_bytes {
            Some(m) if m + header > first_hop_mtu => {
                return err(
                    &o,
                    "mss",
                    format!(
                        "{m} B does not fit the sender's link: at most MTU − {header} = {} B",
                        first_hop_mtu.saturating_sub(header)
                    ),
                );
            }
            Some(m) if m <= option_bytes => {
                return err(
                    &o,
                    "mss",
                    format!("must exceed the {option_bytes} B of TCP options"),
                )
            }
            Some(0) => return err(&o, "mss", "must be greater than 0"),
            Some(m) => m,
            None => path_mtu - header,
        };
        if let Err(e) = self.cc.validate() {
            return err(&o, &format!("cc.{}", e.field), e.message);
        }
        if matches!(self.cc, CcConfig::Sctp(_)) {
            return err(
                &o,
                "cc",
                "\"sctp\" is SCTP's own window rule (RFC 9260 section 7), for SCTP flows; \
                 TCP takes reno, newreno or a TCP algorithm",
            );
        }
        if self.recovery == Some(crate::config::Recovery::Sack) && !self.sack {
            return err(&o, "recovery", "SACK recovery needs sack = true");
        }
        if self.initial_window_segments == 0 {
            return err(&o, "initial_window", "must be at least 1 segment");
        }
        if !(1..=2).contains(&self.ack_every) {
            return err(&o, "delayed_ack", "ACK every 1 or every 2 segments");
        }
        if self.ack_every > 1 && self.delayed_ack_ns == 0 {
            return err(&o, "delayed_ack.timeout", "must be greater than 0");
        }
        let segment_bytes = mss - option_bytes;
        let segment = segment_bytes as u64;
        if self.receive_buffer.bytes(segment_bytes) < segment {
            return err(
                &o,
                "receive_buffer",
                format!(
                    "must hold at least one segment ({segment} B); got {} B",
                    self.receive_buffer.bytes(segment_bytes)
                ),
            );
        }
        if let Some(w) = self.max_window {
            if w.bytes(segment_bytes) < segment {
                return err(
                    &o,
                    "max_window",
                    format!("must allow at least one segment ({segment} B)"),
                );
            }
        }
        check_rto(&o, &self.rto)?;
        Ok(mss)
    }

    fn endpoints(
        &self,
        app: &AppConfig,
        start: SimTime,
        stop: SimTime,
        mss: u32,
        rng: Rng,
    ) -> (Box<dyn Endpoint>, Box<dyn Endpoint>) {
        let (s, r) = endpoints(self, mss, ByteSource::new(app, start, stop), rng);
        (Box::new(s), Box::new(r))
    }

    fn feedback_per_packet(&self) -> f64 {
        1.0 / self.ack_every.max(1) as f64
    }

    fn window(&self) -> Option<Amount> {
        Some(self.receive_buffer)
    }

    fn congestion_control(&self) -> Option<&CcConfig> {
        Some(&self.cc)
    }
}

/// RFC 6298 / RFC 9260 section 15 timer settings: min > 0, min ≤ max, 0 < initial ≤
/// max, a fixed RTO > 0, 0 < tick ≤ max / 2 (fields named under `o`).
pub fn check_rto(o: &str, r: &RtoConfig) -> Result<(), ConfigError> {
    if r.min_ns == 0 {
        return err(o, "rto.min", "must be greater than 0");
    }
    if r.min_ns > r.max_ns {
        return err(
            o,
            "rto.min",
            format!("must not exceed rto.max ({} s)", r.max_ns as f64 / 1e9),
        );
    }
    if r.initial_ns == 0 || r.initial_ns > r.max_ns {
        return err(
            o,
            "rto.initial",
            "must be greater than 0 and at most rto.max",
        );
    }
    if r.fixed_ns == Some(0) {
        return err(o, "rto.fixed", "must be greater than 0");
    }
    if let Some(tick) = r.tick_ns {
        if tick == 0 || tick > r.max_ns / 2 {
            return err(
                o,
                "rto.tick",
                "must be greater than 0 and at most half of rto.max",
            );
        }
    }
    Ok(())
}

/// The two endpoints of a TCP flow whose maximum segment size is `mss` (payload bytes
/// of a full segment without options; option bytes come out of it, RFC 6691).
pub fn endpoints(cfg: &TcpConfig, mss: u32, app: ByteSource, rng: Rng) -> (TcpSender, TcpReceiver) {
    let segment_bytes = mss - cfg.option_sizes.within_mss(cfg.timestamps);
    let window_limit = if cfg.window_scaling {
        SCALED_WINDOW_MAX
    } else {
        UNSCALED_WINDOW_MAX
    };
    let window = cfg.receive_buffer.bytes(segment_bytes).min(window_limit);
    let recovery = cfg.recovery.unwrap_or(if cfg.sack {
        Recovery::Sack
    } else if matches!(cfg.cc, CcConfig::Reno(_)) {
        Recovery::Reno
    } else {
        Recovery::NewReno
    });
    let autotune = cfg
        .receive_autotuning
        .then(|| Autotune::new(window, segment_bytes as u64));
    let sender = TcpSender::new(
        SenderParams {
            segment_bytes,
            recovery,
            initial_window: cfg.initial_window_segments as u64 * segment_bytes as u64,
            max_window: cfg.max_window.map_or(u64::MAX, |a| a.bytes(segment_bytes)),
            // The first window the receiver offers: all of it, or autotuning's start.
            peer_window: autotune.as_ref().map_or(window, Autotune::window),
            handshake: cfg.handshake,
            timestamps: cfg.timestamps,
            option_sizes: cfg.option_sizes,
            pacing: cfg.pacing,
            send_jitter: SimTime(cfg.send_jitter_ns),
            limited_transmit: cfg.limited_transmit,
            // ns-2's Sack1 reads no duplicate ACK while `timeout_` is set.
            limited_transmit_after_timeout: cfg.limited_transmit
                && cfg.limited_transmit_after_timeout
                && recovery != Recovery::Sack,
            restart_rto_on_duplicates: cfg.restart_rto_on_duplicates,
            rtt_samples_from_duplicates: cfg.rtt_samples_from_duplicates && cfg.timestamps,
            thin_linear_timeouts: cfg.thin_linear_timeouts,
            slow_start_at_ssthresh: cfg.slow_start_at_ssthresh,
            newreno_timer: cfg.newreno_timer,
            cwnd_counting: cfg.cwnd_counting,
            rtt_sampling: cfg.rtt_sampling,
            delay_growth: cfg.delay_growth,
            reduction: cfg.reduction,
            timeout_ssthresh: cfg.timeout_ssthresh,
            timeout_reduction: cfg.timeout_reduction,
            // Only SACK recovery can see a lost retransmission: the others never watch.
            detect_lost_retransmits: cfg.detect_lost_retransmits && recovery == Recovery::Sack,
            // RACK, FACK and TLP read SACK information: without it, DupThresh alone.
            loss_detection: if recovery == Recovery::Sack {
                cfg.loss_detection
            } else {
                crate::config::LossDetection::DupThresh
            },
            tail_loss_probe: cfg.tail_loss_probe && recovery == Recovery::Sack,
            undo: cfg.undo,
            // The SACK-enhanced F-RTO (RFC 5682 section 3): without SACK the duplicate
            // ACKs its new data brings back would have to be counted as delivered
            // (Linux's tcp_add_reno_sack), which this sender's pipe does not do.
            frto: cfg.frto && recovery == Recovery::Sack,
            sack_after_timeout: cfg.sack_after_timeout,
            small_queues: cfg.small_queues,
        },
        &cfg.cc,
        &cfg.rto,
        app,
        rng,
    );
    let receiver = TcpReceiver::new(ReceiverParams {
        ack_every: cfg.ack_every,
        delayed_ack: SimTime(cfg.delayed_ack_ns),
        sack: cfg.sack,
        dsack: cfg.dsack,
        sack_blocks: usize::from(cfg.sack_blocks).clamp(1, MAX_SACK_BLOCKS),
        timestamps: cfg.timestamps,
        option_sizes: cfg.option_sizes,
        window,
        handshake: cfg.handshake,
        autotune,
    });
    (sender, receiver)
}
