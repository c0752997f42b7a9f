//! Transport endpoints and how they plug into the engine.
//!
//! A transport is written sans-IO, in smoltcp's style: an [`Endpoint`] reacts to a
//! packet ([`Endpoint::on_packet`]) or to its own deadline ([`Endpoint::on_wakeup`]) by
//! writing what it wants to send and deliver into an [`Outbox`], and says when it next
//! needs waking ([`Endpoint::poll_at`]). It never sees the event queue, links or other
//! flows, so TCP, SCTP and their congestion controls plug in as new endpoint types
//! without touching the engine core — and the same endpoints could be driven in real
//! time. Each flow has two endpoints: the sender at its source and the receiver at its
//! destination; forward packets go sender → receiver, reverse packets come back.

pub mod rto;
pub mod sctp;
pub mod tcp;
pub mod udp;

use crate::config::{Amount, AppConfig, CcConfig, ConfigError, TransportConfig};
use crate::metrics::Probe;
use crate::rng::Rng;
use crate::time::SimTime;
use crate::wire::TransportHeader;

/// What the engine asks of a transport beyond its endpoints' behaviour: its name, what
/// its applications produce, whether it needs a way back, its own checks, its two
/// endpoints, and the figures the run's cost estimate uses. Each transport's
/// configuration implements it, and [`TransportConfig::transport`] is the one place
/// that lists them: a new transport is its module, its variant of `TransportConfig`
/// and one arm there — validation, construction, results and estimate ask this trait
/// instead of matching on the variant.
pub trait Transport {
    /// Its name in results and messages ("udp", "tcp").
    fn name(&self) -> &'static str;

    /// Its IP protocol number (IANA): what packet captures write and routers hash.
    fn ip_protocol(&self) -> u8;

    /// Whether it carries the datagrams of a datagram source (CBR, Poisson, on/off)
    /// rather than the byte stream of a stream source (bulk, file, rate-limited).
    fn carries_datagrams(&self) -> bool;

    /// Whether its receiver sends packets back (acknowledgements): the flow then needs
    /// a route from its destination to its source.
    fn needs_return_path(&self) -> bool;

    /// Checks its options against the flow's path — the MTU of the first hop and the
    /// smallest on the way — naming fields under `origin`; returns its segment size
    /// (payload bytes of a full packet; 0 when it sends the application's datagrams
    /// as they come).
    fn check(&self, origin: &str, first_hop_mtu: u32, path_mtu: u32) -> Result<u32, ConfigError>;

    /// The flow's sender and receiver, the application `app` active from `start` to
    /// `stop`, segments of `segment_bytes` (as [`Transport::check`] returned).
    fn endpoints(
        &self,
        app: &AppConfig,
        start: SimTime,
        stop: SimTime,
        segment_bytes: u32,
        rng: Rng,
    ) -> (Box<dyn Endpoint>, Box<dyn Endpoint>);

    /// For the cost estimate: packets the receiver sends back per data packet.
    fn feedback_per_packet(&self) -> f64;

    /// For the cost estimate: what one flow can have outstanding (its receive
    /// window), or `None` when the sender offers everything its application produces.
    fn window(&self) -> Option<Amount>;

    /// Its congestion control, if it has one.
    fn congestion_control(&self) -> Option<&CcConfig>;
}

impl TransportConfig {
    /// The transport this configuration describes: the registration point of
    /// transports (see [`Transport`]).
    pub fn transport(&self) -> &dyn Transport {
        match self {
            TransportConfig::Udp => &udp::Udp,
            TransportConfig::Tcp(tcp) => tcp,
            TransportConfig::Sctp(sctp) => sctp,
        }
    }
}

/// A packet an endpoint asks the network to carry.
#[derive(Debug, Clone, Copy)]
pub struct Outgoing {
    /// IP packet size: IP header + transport header + payload.
    pub size_bytes: u32,
    /// Transport header fields.
    pub header: TransportHeader,
}

/// Where an endpoint writes its reactions. Reused between calls: no allocation in
/// steady state.
#[derive(Debug, Default)]
pub struct Outbox {
    packets: Vec<Outgoing>,
    delivered_bytes: u64,
    /// Deliveries of multistream transports, by stream (a subset of `delivered_bytes`).
    /// Boxed: the engine moves the outbox in and out around every endpoint call, and a
    /// null pointer costs that move less than an empty vector (B1: 1,743 M → 1,732 M
    /// instructions).
    #[allow(clippy::box_collection)]
    stream_deliveries: Option<Box<Vec<(u16, u64)>>>,
    /// Bytes of this endpoint's packets its host's first link held when the call began
    /// (set only for endpoints that watch it, see [`Endpoint::watches_host_backlog`]),
    /// and in its top bit [`Outbox::wait_for_host`]: one word, because the engine
    /// moves the outbox in and out around every endpoint call.
    host_word: u64,
}

/// The bit of `Outbox::host_word` that says the endpoint waits for its host.
const WAITS_FOR_HOST: u64 = 1 << 63;

impl Outbox {
    /// An empty outbox.
    pub fn new() -> Self {
        Self::default()
    }

    /// Queue a packet for transmission (sent in call order, at the current time).
    pub fn send(&mut self, size_bytes: u32, header: TransportHeader) {
        self.packets.push(Outgoing { size_bytes, header });
    }

    /// Bytes of this endpoint's packets that its host's first link still holds (queued
    /// or being serialized), the packets sent so far in this call included: what
    /// Linux's TCP Small Queues compares with its limit (`sk_wmem_alloc`). Meaningless
    /// to an endpoint that does not [watch it](Endpoint::watches_host_backlog).
    pub fn host_backlog(&self) -> u64 {
        let sent: u64 = self.packets.iter().map(|p| p.size_bytes as u64).sum();
        (self.host_word & !WAITS_FOR_HOST) + sent
    }

    /// Says that the endpoint stopped sending because of its host backlog: it is woken
    /// ([`Endpoint::on_wakeup`]) when the link finishes its oldest packet there (Linux's
    /// TSQ handler, run from the transmit completion).
    pub fn wait_for_host(&mut self) {
        self.host_word |= WAITS_FOR_HOST;
    }

    /// Sets the backlog the endpoint sees in its next call (the packets it sends in the
    /// call are added as it sends them).
    pub(crate) fn set_host_backlog(&mut self, bytes: u64) {
        self.host_word = bytes.min(!WAITS_FOR_HOST);
    }

    /// Takes the endpoint's [`Outbox::wait_for_host`], leaving it unset.
    pub(crate) fn take_wait_for_host(&mut self) -> bool {
        let waits = self.host_word & WAITS_FOR_HOST != 0;
        self.host_word &= !WAITS_FOR_HOST;
        waits
    }

    /// Report `bytes` of in-order payload handed to the receiving application.
    pub fn deliver(&mut self, bytes: u64) {
        self.delivered_bytes += bytes;
    }

    /// Report `bytes` of payload handed to the receiving application on `stream`
    /// (multistream transports: SCTP); counted in the total as [`Outbox::deliver`].
    pub fn deliver_on(&mut self, stream: u16, bytes: u64) {
        self.delivered_bytes += bytes;
        self.stream_deliveries
            .get_or_insert_with(Default::default)
            .push((stream, bytes));
    }

    /// Takes the delivered-byte count, leaving zero.
    pub(crate) fn take_delivered(&mut self) -> u64 {
        std::mem::take(&mut self.delivered_bytes)
    }

    /// Whether per-stream deliveries were reported.
    pub(crate) fn has_stream_deliveries(&self) -> bool {
        self.stream_deliveries
            .as_ref()
            .is_some_and(|d| !d.is_empty())
    }

    /// Drains the per-stream deliveries reported so far.
    pub(crate) fn drain_stream_deliveries(&mut self) -> impl Iterator<Item = (u16, u64)> + '_ {
        self.stream_deliveries.iter_mut().flat_map(|d| d.drain(..))
    }

    /// Drains the packets queued so far.
    pub(crate) fn drain_packets(&mut self) -> std::vec::Drain<'_, Outgoing> {
        self.packets.drain(..)
    }
}

/// Counters a reliable transport reports at the end of a run (both endpoints' are summed).
#[derive(Debug, Clone, Copy, Default)]
pub struct TransportStats {
    /// Segments retransmitted (any cause).
    pub retransmits: u64,
    /// Loss-recovery episodes started by duplicate ACKs or SACK.
    pub fast_retransmits: u64,
    /// Retransmission-timer expiries.
    pub rto_count: u64,
    /// Tail loss probes sent (RFC 8985 section 7).
    pub loss_probes: u64,
    /// Losses a tail loss probe repaired (each answered by one window reduction).
    pub loss_probe_recoveries: u64,
    /// Window reductions taken back as spurious (D-SACK, Eifel, F-RTO).
    pub undos: u64,
    /// Sum of the SRTT after each RTT sample, ns.
    pub srtt_sum_ns: f64,
    /// Number of RTT samples.
    pub rtt_samples: u64,
    /// When the receiver got the last byte of a finite transfer.
    pub completed_at: Option<SimTime>,
}

impl TransportStats {
    /// Adds an SRTT value to the running mean.
    pub fn record_rtt(&mut self, srtt: Option<SimTime>) {
        if let Some(s) = srtt {
            self.srtt_sum_ns += s.as_ns() as f64;
            self.rtt_samples += 1;
        }
    }

    /// Both endpoints' counters together.
    pub fn merge(self, other: TransportStats) -> TransportStats {
        TransportStats {
            retransmits: self.retransmits + other.retransmits,
            fast_retransmits: self.fast_retransmits + other.fast_retransmits,
            rto_count: self.rto_count + other.rto_count,
            loss_probes: self.loss_probes + other.loss_probes,
            loss_probe_recoveries: self.loss_probe_recoveries + other.loss_probe_recoveries,
            undos: self.undos + other.undos,
            srtt_sum_ns: self.srtt_sum_ns + other.srtt_sum_ns,
            rtt_samples: self.rtt_samples + other.rtt_samples,
            completed_at: self.completed_at.or(other.completed_at),
        }
    }
}

/// One end of a flow.
///
/// Wake-ups may come early or twice; an endpoint must act only on deadlines that have
/// really passed (the engine re-asks `poll_at` after every call).
pub trait Endpoint: std::fmt::Debug + Send {
    /// A packet of this flow arrived for this endpoint.
    fn on_packet(&mut self, now: SimTime, header: &TransportHeader, out: &mut Outbox);

    /// The time from `poll_at` (or later) has come.
    fn on_wakeup(&mut self, now: SimTime, out: &mut Outbox);

    /// When the endpoint next needs `on_wakeup`, if ever.
    fn poll_at(&self) -> Option<SimTime>;

    /// Whether the endpoint reads its host backlog ([`Outbox::host_backlog`]) and may
    /// [wait for the host](Outbox::wait_for_host): the engine then tracks what its
    /// host's first link holds of its packets (`net::host_backlog`). Asked once, when
    /// the simulation is built.
    fn watches_host_backlog(&self) -> bool {
        false
    }

    /// Congestion state for time series (senders of window-based transports).
    fn probe(&self) -> Option<Probe> {
        None
    }

    /// End-of-run counters (reliable transports).
    fn stats(&self) -> Option<TransportStats> {
        None
    }

    /// End-of-run figures of the transport's own (SCTP's chunks per packet and
    /// per-stream table), as a JSON object; the flow's result carries the sender's and
    /// receiver's merged under the transport's name.
    fn details(&self) -> Option<serde_json::Value> {
        None
    }
}
