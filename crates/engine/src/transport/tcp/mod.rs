//! TCP: a sans-IO sender and receiver with Reno, NewReno and SACK loss recovery,
//! RFC 6298 timers and pluggable congestion control.
//!
//! | file | job | RFCs |
//! |---|---|---|
//! | `segment.rs` | header fields, option and wire sizes | 9293, 2018, 7323 |
//! | `sender.rs` | sequence space, sending, loss recovery, timeout | 5681, 6582, 6675, 6298 |
//! | `scoreboard.rs` | retransmission queue, SACK marks, pipe | 6675 |
//! | `receiver.rs` | reassembly, ACK policy, SACK blocks | 9293, 5681 4.2, 2018 |
//! | `rto.rs` | RTT estimation, RTO, backoff | 6298 |
//! | `cc/` | congestion-control trait and algorithms | 5681, 3465, … |
//!
//! Modelling choices: 64-bit sequence numbers that never wrap; the SYN takes
//! sequence number 0 and data starts at 1 (also without a handshake, which behaves
//! like ns-2's one-way TCP); the receiving application reads at once.

pub mod cc;
pub mod prr;
pub mod rate;
pub mod rate_halving;
pub mod receiver;
pub mod rto;
pub mod scoreboard;
pub mod segment;
pub mod sender;

pub use crate::config::Recovery;
pub use receiver::{ReceiverParams, TcpReceiver};
pub use sender::{SenderParams, TcpSender};

use crate::app::ByteSource;
use crate::config::{Amount, CcConfig, SizeUnit, TcpConfig};
use crate::rng::Rng;
use crate::time::SimTime;
use segment::{SCALED_WINDOW_MAX, TIMESTAMPS_OPTION_BYTES, UNSCALED_WINDOW_MAX};

/// Bytes of an [`Amount`] whose packets are segments of `segment_bytes`.
fn amount_bytes(a: Amount, segment_bytes: u32) -> u64 {
    match a.unit {
        SizeUnit::Bytes => a.value,
        SizeUnit::Packets => a.value.saturating_mul(segment_bytes as u64),
    }
}

/// The two endpoints of a TCP flow whose maximum segment size is `mss` (payload bytes
/// of a full segment without options; option bytes come out of it, RFC 6691).
pub fn endpoints(cfg: &TcpConfig, mss: u32, app: ByteSource, rng: Rng) -> (TcpSender, TcpReceiver) {
    let segment_bytes = mss
        - if cfg.timestamps {
            TIMESTAMPS_OPTION_BYTES
        } else {
            0
        };
    let window_limit = if cfg.window_scaling {
        SCALED_WINDOW_MAX
    } else {
        UNSCALED_WINDOW_MAX
    };
    let window = amount_bytes(cfg.receive_buffer, segment_bytes).min(window_limit);
    let recovery = cfg.recovery.unwrap_or(if cfg.sack {
        Recovery::Sack
    } else if matches!(cfg.cc, CcConfig::Reno(_)) {
        Recovery::Reno
    } else {
        Recovery::NewReno
    });
    let sender = TcpSender::new(
        SenderParams {
            segment_bytes,
            recovery,
            cc: cfg.cc.clone(),
            initial_window: cfg.initial_window_segments as u64 * segment_bytes as u64,
            max_window: cfg
                .max_window
                .map_or(u64::MAX, |a| amount_bytes(a, segment_bytes)),
            peer_window: window,
            handshake: cfg.handshake,
            timestamps: cfg.timestamps,
            pacing: cfg.pacing,
            send_jitter: SimTime(cfg.send_jitter_ns),
            rto: cfg.rto.clone(),
            limited_transmit: cfg.limited_transmit,
            newreno_timer: cfg.newreno_timer,
            cwnd_counting: cfg.cwnd_counting,
            rtt_sampling: cfg.rtt_sampling,
            delay_growth: cfg.delay_growth,
            reduction: cfg.reduction,
            timeout_ssthresh: cfg.timeout_ssthresh,
        },
        app,
        rng,
    );
    let receiver = TcpReceiver::new(ReceiverParams {
        ack_every: cfg.ack_every,
        delayed_ack: SimTime(cfg.delayed_ack_ns),
        sack: cfg.sack,
        timestamps: cfg.timestamps,
        window,
        handshake: cfg.handshake,
    });
    (sender, receiver)
}
