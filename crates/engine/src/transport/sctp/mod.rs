//! SCTP (RFC 9260): one association per flow over one path, with streams, bundling,
//! SACK gap blocks and section 7's congestion control. The sender and receiver are
//! sans-IO endpoints like TCP's; [`SctpConfig`]'s [`Transport`] implementation is
//! the registration.
//!
//! Modelling choices (docs/scenario.md lists them for users): one destination address
//! (no multihoming, no heartbeats); TSNs and SSNs do not wrap within a run (4·10⁹
//! chunks); a packet carries at most [`crate::wire::sctp::MAX_DATA_CHUNKS`] DATA
//! chunks and a SACK at most [`crate::wire::sctp::MAX_GAP_BLOCKS`] gap blocks; the
//! receiving application reads at once, so the advertised window closes only on data
//! held for reassembly or order.

pub mod receiver;
pub mod sender;
pub mod streams;

pub use receiver::{ReceiverParams, SctpReceiver};
pub use sender::{SctpSender, SenderParams};

use super::{Endpoint, Transport};
use crate::app::ByteSource;
use crate::cc::BuildContext;
use crate::config::{Amount, AppConfig, CcConfig, ConfigError, SctpConfig};
use crate::rng::Rng;
use crate::time::SimTime;
use crate::transport::rto::RttEstimator;
use crate::validate::{at, err};
use crate::wire::sctp::{COMMON_HEADER_BYTES, DATA_CHUNK_HEADER_BYTES};
use crate::wire::IPV4_HEADER_BYTES;

/// Bytes in front of a full packet's user data: IPv4, common and DATA chunk headers.
pub const DATA_OVERHEAD_BYTES: u32 =
    IPV4_HEADER_BYTES + COMMON_HEADER_BYTES + DATA_CHUNK_HEADER_BYTES;

/// Most streams an association may open (the stream identifier is 16 bits).
pub const MAX_STREAMS: u32 = 65_535;

/// Section 7.2.1: initial cwnd = min(4·MTU, max(2·MTU, 4380 bytes)).
pub fn initial_cwnd(pmtu: u32) -> u64 {
    let mtu = pmtu as u64;
    (4 * mtu).min((2 * mtu).max(4380))
}

impl Transport for SctpConfig {
    fn name(&self) -> &'static str {
        "sctp"
    }

    fn carries_datagrams(&self) -> bool {
        false
    }

    fn ip_protocol(&self) -> u8 {
        132
    }

    fn needs_return_path(&self) -> bool {
        true
    }

    /// Checks SCTP's options against the path; returns the largest DATA chunk payload
    /// one packet carries (path MTU − 48).
    fn check(&self, origin: &str, _first_hop_mtu: u32, path_mtu: u32) -> Result<u32, ConfigError> {
        let o = at(origin, "transport");
        if path_mtu <= DATA_OVERHEAD_BYTES {
            return err(
                &o,
                "type",
                format!("SCTP needs a path MTU above {DATA_OVERHEAD_BYTES} B; this path's is {path_mtu} B"),
            );
        }
        let payload = path_mtu - DATA_OVERHEAD_BYTES;
        if self.streams == 0 || self.streams > MAX_STREAMS {
            return err(
                &o,
                "streams",
                format!(
                    "must be 1 to {MAX_STREAMS} (a 16-bit stream identifier); got {}",
                    self.streams
                ),
            );
        }
        if let Err(e) = self.cc.validate() {
            return err(&o, &format!("cc.{}", e.field), e.message);
        }
        if matches!(self.cc, CcConfig::Bbr(_)) {
            return err(
                &o,
                "cc",
                "bbr needs delivery-rate samples, which tcplab's SCTP does not take; \
                 use sctp, reno, newreno or a loss- or delay-based algorithm",
            );
        }
        let send_buffer = self.send_buffer.bytes(payload);
        if self.message_bytes == Some(0) {
            return err(&o, "message_size", "must be greater than 0");
        }
        let message = self.message_bytes.unwrap_or(payload) as u64;
        if message > send_buffer {
            return err(
                &o,
                "message_size",
                format!(
                    "{message} B exceeds the send buffer ({send_buffer} B): the application could never write it"
                ),
            );
        }
        if self.receive_buffer.bytes(payload) < payload as u64 {
            return err(
                &o,
                "receive_buffer",
                format!("must hold at least one full chunk ({payload} B)"),
            );
        }
        if self.fast_retransmit_after == 0 {
            return err(
                &o,
                "fast_retransmit_after",
                "must be at least 1 miss indication",
            );
        }
        if self.sack_every == 0 {
            return err(&o, "sack_every", "must be at least 1 packet");
        }
        if self.sack_delay_ns == 0 || self.sack_delay_ns > 500_000_000 {
            return err(
                &o,
                "sack_delay",
                "must be greater than 0 and at most 500 ms (RFC 9260 section 6.2)",
            );
        }
        if self.max_burst == 0 {
            return err(&o, "max_burst", "must be at least 1 packet");
        }
        crate::transport::tcp::check_rto(&o, &self.rto)?;
        Ok(payload)
    }

    fn endpoints(
        &self,
        app: &AppConfig,
        start: SimTime,
        stop: SimTime,
        payload: u32,
        rng: Rng,
    ) -> (Box<dyn Endpoint>, Box<dyn Endpoint>) {
        let (s, r) = endpoints(self, payload, ByteSource::new(app, start, stop), rng);
        (Box::new(s), Box::new(r))
    }

    fn feedback_per_packet(&self) -> f64 {
        1.0 / self.sack_every.max(1) as f64
    }

    fn window(&self) -> Option<Amount> {
        Some(self.receive_buffer)
    }

    fn congestion_control(&self) -> Option<&CcConfig> {
        Some(&self.cc)
    }
}

/// The two endpoints of an SCTP association whose packets carry at most `payload`
/// bytes of user data (path MTU − 48).
pub fn endpoints(
    cfg: &SctpConfig,
    payload: u32,
    app: ByteSource,
    rng: Rng,
) -> (SctpSender, SctpReceiver) {
    let pmtu = payload + DATA_OVERHEAD_BYTES;
    let cc_rng = Rng::for_component(rng.clone().next_u64(), "congestion-control");
    let unit = cfg.flight_accounting.window_unit(pmtu);
    let cc = cfg.cc.build(BuildContext {
        mss: unit as u64,
        initial_window: initial_cwnd(unit),
        rng: cc_rng,
        window_in_packets: false,
        slow_start_at_ssthresh: false,
        slow_start_limit: None,
    });
    let window = cfg.receive_buffer.bytes(payload);
    let sender = SctpSender::new(
        SenderParams {
            pmtu,
            max_chunk_payload: payload,
            message_bytes: cfg.message_bytes.unwrap_or(payload),
            streams: cfg.streams,
            unordered: cfg.unordered,
            handshake: cfg.handshake,
            nodelay: cfg.nodelay,
            send_buffer: cfg.send_buffer.bytes(payload),
            peer_window: window,
            fast_retransmit_after: cfg.fast_retransmit_after,
            max_burst: cfg.max_burst,
            burst_limit: cfg.burst_limit,
            flight_accounting: cfg.flight_accounting,
            recovery: cfg.recovery,
        },
        cc,
        RttEstimator::new(&cfg.rto, 0.0),
        app,
    );
    let receiver = SctpReceiver::new(ReceiverParams {
        sack_every: cfg.sack_every,
        sack_delay: SimTime(cfg.sack_delay_ns),
        window,
        handshake: cfg.handshake,
        streams: cfg.streams,
    });
    (sender, receiver)
}
