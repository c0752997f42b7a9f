//! The validated scenario the engine runs: plain data in SI base units.
//!
//! This is the one boundary between the front end and the engine: the Python side
//! parses files, units and topology shorthands and hands over a [`ScenarioConfig`]
//! (as JSON or built directly in Rust); the engine checks it ([`crate::validate`])
//! and never panics on it. Every item carries an `origin`: the dotted path of the
//! place in the user's scenario it came from, so engine errors can name the field the
//! user actually wrote (e.g. `topology.dumbbell.bottleneck.bandwidth`).

use serde::{Deserialize, Serialize};

/// A whole scenario, ready to simulate.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioConfig {
    /// Run length, seed and bin width.
    pub simulation: SimulationConfig,
    /// Hosts and routers.
    pub nodes: Vec<NodeConfig>,
    /// Full-duplex point-to-point links.
    pub links: Vec<LinkConfig>,
    /// Traffic.
    pub flows: Vec<FlowConfig>,
    /// Names of the flows Jain's fairness index is computed over (`None`: all flows).
    #[serde(default)]
    pub fairness_flows: Option<Vec<String>>,
    /// How routes choose among equal-cost paths.
    #[serde(default)]
    pub routing: RoutingConfig,
}

/// How routes are chosen (`[routing]`).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RoutingConfig {
    /// Among equal-cost next hops: the first declared link, or per flow by hash.
    #[serde(default)]
    pub multipath: Multipath,
}

/// How a route picks among equal-cost next hops.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Multipath {
    /// The lowest channel index (the link declared first), at every hop.
    #[default]
    First,
    /// Equal-cost multipath: each router hashes the flow's five-tuple (and the run's
    /// seed) to pick among its equal-cost next hops, as switches do.
    Ecmp,
}

/// Global settings of a run.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SimulationConfig {
    /// Simulated time to run, in ns.
    pub duration_ns: u64,
    /// Run seed; every random component derives its own stream from it.
    pub seed: u64,
    /// Width of the time-series bins, in ns (the source studies use 50 ms).
    pub bin_ns: u64,
}

/// Whether a node forwards traffic for others.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// An end system: sources and sinks traffic, never forwards it.
    Host,
    /// Forwards packets along routes; may also be a flow endpoint.
    Router,
}

/// One node.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NodeConfig {
    /// Unique name, used by links, flows and results.
    pub name: String,
    /// Host or router.
    pub kind: NodeKind,
    /// Where the user declared it.
    #[serde(default)]
    pub origin: String,
}

/// A full-duplex point-to-point link between `from` and `to`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// One end (the "forward" direction runs from here).
    pub from: String,
    /// The other end.
    pub to: String,
    /// Bit rate of each direction.
    pub bandwidth_bps: u64,
    /// One-way propagation delay, in ns.
    pub delay_ns: u64,
    /// Largest IP packet the link carries, in bytes (68..=65535).
    pub mtu_bytes: u32,
    /// Link-layer bytes added to every IP packet on the wire (0: none, as in ns-2;
    /// 38 models Ethernet preamble + header + FCS + inter-frame gap).
    #[serde(default)]
    pub framing_bytes: u32,
    /// Routing cost (shortest-path metric); 1 makes routing minimise hop count.
    #[serde(default = "default_cost")]
    pub cost: u32,
    /// The `from -> to` direction's queue and loss.
    pub forward: ChannelConfig,
    /// The `to -> from` direction's queue and loss.
    pub reverse: ChannelConfig,
    /// Set when this link attaches station `from` to the shared half-duplex segment
    /// whose node is `to` (see [`crate::net::medium`]): the forward direction then
    /// contends with the other stations of that segment for its one transmitter, and
    /// the reverse direction only hands on what the segment already carried.
    #[serde(default)]
    pub segment: Option<String>,
    /// Where the user declared it.
    #[serde(default)]
    pub origin: String,
}

fn default_cost() -> u32 {
    1
}

/// Where on a link direction the loss model acts.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LossPlacement {
    /// After serialization: a lost packet still used the link (a corrupted frame).
    #[default]
    AfterSerialization,
    /// Before the queue, as ns-2's `$ns lossmodel` inserts its ErrorModel at the
    /// link's head: a lost packet never occupies the queue or the link.
    BeforeQueue,
}

/// Queue discipline and loss model of one link direction.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ChannelConfig {
    /// The output queue feeding this direction.
    pub queue: QueueConfig,
    /// Random loss applied to packets (where: `loss_placement`).
    pub loss: LossConfig,
    /// Where the loss model acts.
    #[serde(default)]
    pub loss_placement: LossPlacement,
    /// Scenario path of the queue settings, for error messages.
    #[serde(default)]
    pub queue_origin: String,
    /// Scenario path of the loss settings, for error messages.
    #[serde(default)]
    pub loss_origin: String,
}

/// Whether a queue limit or threshold counts packets or bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SizeUnit {
    /// Counted in packets (for TCP buffers: full-sized segments).
    Packets,
    /// Counted in bytes of IP packets.
    Bytes,
}

/// A quantity counted in packets (segments) or bytes: queue limits, TCP buffers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Amount {
    /// How many packets or bytes fit.
    pub value: u64,
    /// What `value` counts.
    pub unit: SizeUnit,
}

impl Amount {
    /// Bytes of this amount when its packets each carry `packet_payload` bytes (a
    /// transport's full segment or chunk).
    pub fn bytes(self, packet_payload: u32) -> u64 {
        match self.unit {
            SizeUnit::Bytes => self.value,
            SizeUnit::Packets => self.value.saturating_mul(packet_payload as u64),
        }
    }
}

/// An output-queue discipline.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueConfig {
    /// Tail drop when full.
    Droptail {
        /// Capacity (excluding the packet on the wire).
        limit: Amount,
    },
    /// Random Early Detection (Floyd & Jacobson 1993) as implemented by ns-2.
    Red(RedConfig),
}

impl QueueConfig {
    /// How much the queue holds, whatever its discipline.
    pub fn limit(&self) -> &Amount {
        match self {
            QueueConfig::Droptail { limit } => limit,
            QueueConfig::Red(red) => &red.limit,
        }
    }
}

/// RED parameters, with ns-2.35's meaning (`queue/red.cc`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RedConfig {
    /// Hard capacity; arrivals beyond it are tail-dropped.
    pub limit: Amount,
    /// Average queue below which nothing is dropped early (`thresh_`); `None`:
    /// configured automatically from the link as ns-2.35 does (`thresh_ 0`).
    pub min_th: Option<f64>,
    /// Average queue at which the early-drop probability reaches `max_p` (`maxthresh_`);
    /// `None`: 3 × min_th, as ns-2.35 (`maxthresh_ 0`).
    pub max_th: Option<f64>,
    /// Whether the thresholds and the average count packets or bytes (`queue_in_bytes_`).
    pub thresholds_unit: SizeUnit,
    /// Early-drop probability at `max_th` (`1/linterm_`).
    pub max_p: f64,
    /// EWMA weight of the average queue (`q_weight_`); `None`: derived from the link's
    /// rate and delay as ns-2.35 does (`q_weight_ -1`).
    pub w_q: Option<f64>,
    /// Queueing delay the automatic min_th aims at (`targetdelay_`, ns-2.35: 5 ms).
    #[serde(default = "default_red_target_delay")]
    pub target_delay_ns: u64,
    /// Mean packet size (`mean_pktsize_`): ages the average over idle periods, converts
    /// automatic thresholds to bytes and scales byte-mode drop probabilities.
    pub mean_packet_bytes: u32,
    /// Byte mode (`bytes_`): the early-drop probability is scaled by size/mean packet
    /// size and the spacing count is measured in mean-sized packets' bytes.
    #[serde(default)]
    pub byte_mode: bool,
    /// Gentle RED: probability rises from `max_p` to 1 between `max_th` and 2·`max_th`.
    pub gentle: bool,
    /// Space early drops more evenly (`wait_`): p/(2 − count·p) instead of p/(1 − count·p).
    pub wait: bool,
}

fn default_red_target_delay() -> u64 {
    5_000_000
}

/// Random loss on a link direction.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum LossConfig {
    /// No loss.
    None,
    /// Each packet lost independently with probability `rate` (ns-2 ErrorModel, per packet).
    Bernoulli {
        /// Loss probability per packet.
        rate: f64,
    },
    /// Two-state bursty loss (Gilbert–Elliott), one transition per packet.
    GilbertElliott {
        /// P(good -> bad) per packet.
        p_good_to_bad: f64,
        /// P(bad -> good) per packet.
        p_bad_to_good: f64,
        /// Loss probability in the good state.
        loss_good: f64,
        /// Loss probability in the bad state.
        loss_bad: f64,
    },
    /// Drop exactly these packets, numbered from 1 in the order they cross this
    /// direction (ns-3's ReceiveListErrorModel): for tests and teaching.
    List {
        /// 1-based packet numbers, ascending.
        packets: Vec<u64>,
    },
    /// Deterministic: drop packets offset+n, offset+2n, ... (1-based count), for tests.
    EveryNth {
        /// Period.
        n: u64,
        /// Packets passed before the period starts counting.
        #[serde(default)]
        offset: u64,
    },
}

/// One flow: a transport connection (or datagram stream) between two nodes.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    /// Unique name used in results.
    pub name: String,
    /// Sending node.
    pub from: String,
    /// Receiving node.
    pub to: String,
    /// Transport protocol and its settings.
    pub transport: TransportConfig,
    /// The application driving the sender.
    pub app: AppConfig,
    /// When the application starts, in ns.
    #[serde(default)]
    pub start_ns: u64,
    /// When the application stops sending, in ns (`None`: end of run).
    #[serde(default)]
    pub stop_ns: Option<u64>,
    /// Explicit node-by-node route overriding shortest-path routing (from .. to).
    #[serde(default)]
    pub path: Option<Vec<String>>,
    /// Where the user declared it.
    #[serde(default)]
    pub origin: String,
}

/// Transport protocol of a flow.
// TCP's options make its variant large; there is one per flow, read when the
// simulation is built, so boxing it would only add indirection.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum TransportConfig {
    /// UDP (RFC 768): 8-byte header, no feedback.
    Udp,
    /// TCP (RFC 9293) with the given options.
    Tcp(TcpConfig),
    /// SCTP (RFC 9260) with the given options.
    Sctp(SctpConfig),
}

pub use crate::cc::CcConfig;

/// Loss recovery, chosen independently of the congestion-control algorithm.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub enum Recovery {
    /// RFC 5681 fast recovery; ends on the first new ACK.
    #[serde(rename = "reno")]
    Reno,
    /// RFC 6582 NewReno partial-ACK handling.
    #[serde(rename = "newreno")]
    NewReno,
    /// RFC 6675 SACK-based recovery (needs `sack`).
    #[serde(rename = "sack")]
    Sack,
}

/// When a NewReno sender restarts its retransmission timer on partial ACKs
/// (RFC 6582 section 4).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NewRenoTimer {
    /// Only on the first partial ACK of a recovery: a large loss burst ends in one
    /// timeout instead of one repaired hole per RTT (ns-2.35's `newreno_changes1_ 1`).
    #[default]
    Impatient,
    /// On every partial ACK (RFC 6298 (5.3) applied literally; Linux rearms likewise).
    SlowButSteady,
    /// Chosen per recovery by the holes its first partial ACK shows (the segments
    /// outstanding from the first hole less the duplicate ACKs that reported
    /// arrivals above it): slow but steady for at most [`STEADY_HOLES`], so a few
    /// holes are repaired without a timeout and go-back-N, impatient for more, so the
    /// thousands a slow-start overshoot leaves are not repaired one a round trip.
    ByHoles,
}

/// The most holes [`NewRenoTimer::ByHoles`] repairs slow but steady (one a round trip):
/// chosen across the no-SACK property's sampled paths, where 32 and 64 did best and 8
/// and 128 worse (docs/loss-recovery.md, "NewReno without SACK: the partial ACK and
/// the timer").
pub const STEADY_HOLES: u64 = 32;

/// What ssthresh is halved from when the retransmission timer expires.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutSsthresh {
    /// max(FlightSize / 2, 2·SMSS), RFC 5681 equation (4), FlightSize counted as RFC
    /// 6675's pipe (neither SACKed nor deemed lost and unsent).
    #[default]
    FlightSize,
    /// max(cwnd / 2, 2·SMSS): ns-2's `slowdown(CLOSE_SSTHRESH_HALF)` on `window()`,
    /// Linux's `tcp_reno_ssthresh`.
    Cwnd,
}

/// Which retransmission timeouts reduce ssthresh (docs/loss-recovery.md).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutReduction {
    /// One reduction per window of data (RFC 5681 section 3.1, RFC 6582; Linux's
    /// `tcp_enter_loss`): not again for a loss a fast retransmit already answered, nor
    /// for a repeated expiry; again once data sent after the reduction is lost, or
    /// when a retransmission is lost after progress in timeout recovery.
    #[default]
    OncePerWindow,
    /// Every expiry halves again, backed-off repeats and those inside a fast recovery
    /// included (ns-2.35's `slowdown(CLOSE_SSTHRESH_HALF)` in `timeout()`).
    PerTimeout,
}

/// How a SACK sender decides that a segment is lost (docs/loss-recovery.md).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LossDetection {
    /// RFC 6675 IsLost: DupThresh (3) SACKed segments above it; a retransmission by
    /// `detect_lost_retransmits`.
    #[serde(rename = "dupthresh")]
    DupThresh,
    /// Forward acknowledgement (Mathis & Mahdavi 1996; Linux 2.6's default): DupThresh
    /// segments, SACKed or not, between it and the highest SACKed one.
    Fack,
    /// RACK (RFC 8985; Linux since 4.18): a segment sent before a delivered one is lost
    /// once RACK.rtt plus a reordering window has passed; retransmissions alike.
    #[default]
    Rack,
    /// ns-2.35's Agent/TCP/Sack1: recovery starts at DupThresh duplicate ACKs, and in
    /// it every hole below the highest SACKed segment is resent once, before new data.
    Holes,
    /// ns-2.35's TCP/Linux scoreboard (`tcp/scoreboard1.cc`, "lost by FACK signal"): a
    /// segment is lost once the highest SACKed one is DupThresh + 1 segments above it,
    /// a retransmission once anything sent after it is SACKed, and recovery starts
    /// only when something is marked lost (no duplicate-ACK count).
    #[serde(rename = "ns2_linux")]
    Ns2Linux,
}

/// How the window comes down during fast recovery, with SACK or without (where
/// each duplicate ACK counts as one segment delivered: RFC 9937's estimate, Linux's
/// Reno "SACKs").
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reduction {
    /// RFC 6675 alone with SACK (send whenever the pipe is below cwnd); without
    /// SACK, RFC 5681/6582 window inflation (as ns-2's Reno and NewReno).
    Pipe,
    /// Proportional Rate Reduction (RFC 9937, which obsoletes RFC 6937; Linux since
    /// 3.2, its SafeACK rule since 4.2): send in proportion to delivery, arriving at
    /// ssthresh.
    #[default]
    Prr,
    /// Linux 2.6's rate halving (`tcp_cwnd_down`): one segment less every second ACK,
    /// down to the algorithm's `min_cwnd`; the window leaves recovery at most there.
    RateHalving,
    /// ns-2.35's Sack1 with SACK: its event-kept `pipe_` counter against cwnd
    /// (`sack1_pipe.rs`); without SACK, as `Pipe` (window inflation).
    Sack1Pipe,
    /// ns-2.35's TCP/Linux (`tcp-linux.cc`, `next_pkts_in_flight_`): cwnd drops to the
    /// module's `min_cwnd` at once while the flight comes down one segment per two
    /// ACKs from the old window, never below that floor (`ns2_linux_halving.rs`).
    Ns2Linux,
}

/// What a SACK sender does with the SACK information it holds when the retransmission
/// timer expires (RFC 2018 section 8, RFC 6675 section 5.1).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SackAfterTimeout {
    /// Keep it: segments the receiver SACKed are not resent (Linux's `tcp_enter_loss`
    /// unless it suspects reneging; RFC 6675 5.1 with reneging detection).
    #[default]
    Keep,
    /// Forget it, as RFC 2018 section 8 advises in case the receiver reneged, and
    /// ignore SACK blocks until the timeout's recovery ends: go-back-N over the whole
    /// window, SACKed data included (ns-2.35's Sack1: `ClearScoreBoard` in `timeout()`,
    /// and a duplicate ACK's blocks unread while `timeout_` is set).
    Forget,
}

/// How much an ACK of new data counts towards cwnd growth.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CwndCounting {
    /// The bytes it acknowledges (RFC 3465 Appropriate Byte Counting, L = 2·SMSS in
    /// slow start): an ACK that covers many segments grows cwnd by more, in slow start
    /// by two segments at most.
    #[default]
    Bytes,
    /// Every segment it acknowledges, without RFC 3465's limit in slow start (Linux
    /// since 3.8, `tcp_slow_start`: cwnd += acked, up to ssthresh): a cumulative ACK
    /// that jumps over data the receiver held opens the window at once.
    Segments,
    /// One segment per ACK, whatever it covers, on ACKs of new data while the window
    /// limits the sender (Linux with `tcp_abc = 0`): in congestion avoidance +1
    /// segment per cwnd of ACKs (`snd_cwnd_cnt`).
    Acks,
    /// ns-2's `opencwnd`: one segment per ACK as `Acks`, but on every new ACK outside
    /// recovery — the one that deflates a Reno/NewReno window included — whether or
    /// not the window limits the sender (`control_increase_` off), and in ns-2's window
    /// arithmetic (`cwnd_` a real number of segments growing by 1/cwnd per ACK and
    /// halved exactly, `ssthresh_` a whole number; `BuildContext::window_in_packets`).
    Ns2,
}

/// Which ACKs give RTT samples when timestamps are off (RFC 6298 section 3: at least
/// one per RTT).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSampling {
    /// Every ACK of new data that was sent once (Linux; Karn's rule).
    #[default]
    EveryAck,
    /// One timed segment per RTT (BSD, ns-2's `rtt_active_`): RTTVAR decays per RTT.
    OncePerRtt,
}

/// RFC 6298 retransmission-timer settings.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RtoConfig {
    /// RTO before any RTT sample (RFC 6298 (2.1): 1 s).
    pub initial_ns: u64,
    /// Lower bound (RFC 6298 (2.4): 1 s; Linux: 200 ms).
    pub min_ns: u64,
    /// Upper bound (RFC 6298 (2.5): at least 60 s).
    pub max_ns: u64,
    /// Use this RTO instead of the estimator (the LAN study's fixed-RTO server).
    #[serde(default)]
    pub fixed_ns: Option<u64>,
    /// What `min_ns` bounds.
    #[serde(default)]
    pub floor: RtoFloor,
    /// The RTT clock's tick (ns-2's `tcpTick_`, BSD's slow timer): RTT samples in
    /// whole ticks and BSD's fixed-point SRTT and RTTVAR; `None`: exact arithmetic.
    #[serde(default)]
    pub tick_ns: Option<u64>,
}

/// Where the minimum RTO applies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoFloor {
    /// RFC 6298 (2.4): RTO = max(SRTT + 4·RTTVAR, min).
    #[default]
    Rto,
    /// Linux (`tcp_rtt_estimator`, rttvar ≥ tcp_rto_min): RTO = SRTT +
    /// max(4·RTTVAR, min), so a long path's RTO stays a full `min` above its RTT.
    Variance,
}

/// TCP options of a flow.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TcpConfig {
    /// Congestion control: the algorithm and its parameters.
    pub cc: CcConfig,
    /// Loss recovery (`None`: SACK recovery with `sack`, else Reno for `reno`, else
    /// NewReno).
    #[serde(default)]
    pub recovery: Option<Recovery>,
    /// SACK (RFC 2018): the receiver reports SACK blocks.
    pub sack: bool,
    /// Maximum segment size (payload bytes, options excluded); `None`: path MTU − 40.
    #[serde(default)]
    pub mss_bytes: Option<u32>,
    /// Initial window, in segments (RFC 6928: 10).
    pub initial_window_segments: u32,
    /// Open with a three-way handshake (else data flows at once, like ns-2's one-way TCP).
    pub handshake: bool,
    /// Acknowledge every this many full segments (1 or 2).
    pub ack_every: u32,
    /// Delayed-ACK timeout, ns.
    pub delayed_ack_ns: u64,
    /// Receive buffer: the advertised window.
    pub receive_buffer: Amount,
    /// Largest send window regardless of cwnd and the receive window (`None`: no cap).
    #[serde(default)]
    pub max_window: Option<Amount>,
    /// RFC 7323 timestamps (12 option bytes per segment; RTT samples from TSecr).
    pub timestamps: bool,
    /// RFC 7323 window scaling (without it the window is at most 65,535 bytes).
    pub window_scaling: bool,
    /// Linux's receive-window autotuning (`tcp_moderate_rcvbuf`): the window offered
    /// grows with what is read, up to `receive_buffer` (transport/tcp/autotune.rs).
    #[serde(default)]
    pub receive_autotuning: bool,
    /// Linux's TCP Small Queues (since 3.6): at most about a millisecond of the
    /// flow's pacing rate waits in its host's first link, the rest in the socket.
    #[serde(default)]
    pub small_queues: bool,
    /// Retransmission timer.
    pub rto: RtoConfig,
    /// Space segments at cwnd/SRTT (×2 in slow start, ×1.2 after, as Linux) instead of bursts.
    pub pacing: bool,
    /// Random delay, uniform in [0, send_jitter_ns], before each transmission (ns-2's
    /// `overhead_`): models end-host timing noise and breaks DropTail phase effects.
    #[serde(default)]
    pub send_jitter_ns: u64,
    /// RFC 3042 Limited Transmit: a new segment on each of the first two duplicate ACKs.
    #[serde(default = "default_true")]
    pub limited_transmit: bool,
    /// Limited Transmit also after a timeout, without SACK: each of the first two
    /// duplicate ACKs sends the next segment of the go-back-N beyond cwnd (ns-2.35's
    /// `send_one()` under `singledup_`, which does not look at the recovery state).
    #[serde(default)]
    pub limited_transmit_after_timeout: bool,
    /// Slow start also at cwnd = ssthresh (Linux 2.6: `snd_cwnd <= snd_ssthresh` in
    /// `tcp_reno_cong_avoid` and the modules; RFC 5681 3.1 and today's Linux test `<`).
    #[serde(default)]
    pub slow_start_at_ssthresh: bool,
    /// Every duplicate ACK restarts the retransmission timer, as every ACK of new data
    /// does (ns-2.35's TCP/Linux: `time_processing`'s `renew_timer` runs for each ACK
    /// that is neither old nor beyond SND.NXT). RFC 6298 (5.3) restarts it only when
    /// new data is acknowledged.
    #[serde(default)]
    pub restart_rto_on_duplicates: bool,
    /// Every duplicate ACK's timestamp echo is an RTT sample for the retransmission
    /// timer, ending its backoff (ns-2.35's TCP/Linux: `time_processing` calls
    /// `rtt_update` for each ACK that is neither old nor beyond SND.NXT, and the
    /// agent's `ts_resetRTO_` defaults on). RFC 6298 (and Linux's `tcp_ack`) sample
    /// only ACKs that acknowledge new data. The congestion-control algorithm's own
    /// samples are unchanged. Without timestamps it does nothing.
    #[serde(default)]
    pub rtt_samples_from_duplicates: bool,
    /// Linux's linear timeouts for thin streams (socket option
    /// `TCP_THIN_LINEAR_TIMEOUTS`, sysctl `tcp_thin_linear_timeouts`, off by default):
    /// `tcp_retransmit_timer` recomputes the RTO instead of doubling it for the first
    /// `TCP_THIN_LINEAR_RETRIES` (6) timeouts in a row of a stream with fewer than 4
    /// segments out that has left its initial slow start (`tcp_stream_is_thin`).
    #[serde(default)]
    pub thin_linear_timeouts: bool,
    /// NewReno's timer variant (RFC 6582 section 4).
    #[serde(default)]
    pub newreno_timer: NewRenoTimer,
    /// ssthresh after a retransmission timeout.
    #[serde(default)]
    pub timeout_ssthresh: TimeoutSsthresh,
    /// Which retransmission timeouts reduce ssthresh.
    #[serde(default)]
    pub timeout_reduction: TimeoutReduction,
    /// SACK recovery detects a lost retransmission from SACKs of data sent after it
    /// (Linux), instead of waiting for the retransmission timer (ns-2's Sack1).
    #[serde(default = "default_true")]
    pub detect_lost_retransmits: bool,
    /// How a SACK sender detects losses (ignored without SACK).
    #[serde(default)]
    pub loss_detection: LossDetection,
    /// RFC 8985 section 7 Tail Loss Probe (with SACK only).
    #[serde(default = "default_true")]
    pub tail_loss_probe: bool,
    /// The receiver reports duplicate segments in D-SACK blocks (RFC 2883; with SACK).
    #[serde(default = "default_true")]
    pub dsack: bool,
    /// How many bytes the options take on the wire (as encoded, or as ns-2 counts them).
    #[serde(default)]
    pub option_sizes: crate::wire::tcp::OptionSizes,
    /// SACK blocks the receiver remembers and reports, the newest first (RFC 2018
    /// section 4; Linux's `selective_acks` keeps 4, ns-2's `Sacker` 3).
    #[serde(default = "default_sack_blocks")]
    pub sack_blocks: u8,
    /// Undo a window reduction that D-SACKs or timestamps prove spurious (RFC 3708 /
    /// RFC 3522 detection, RFC 4015 response; Linux `tcp_try_undo_*`).
    #[serde(default = "default_true")]
    pub undo: bool,
    /// F-RTO after a retransmission timeout (RFC 5682 section 3, SACK-enhanced with
    /// SACK; Linux `tcp_process_loss`): send new data instead of go-back-N, and undo
    /// the timeout if the ACKs show the originals arrived.
    #[serde(default = "default_true")]
    pub frto: bool,
    /// What an ACK counts for in cwnd growth.
    #[serde(default)]
    pub cwnd_counting: CwndCounting,
    /// Which ACKs give RTT samples when timestamps are off.
    #[serde(default)]
    pub rtt_sampling: RttSampling,
    /// Send one segment and open the initial window only when it is acknowledged (ns-2's
    /// `delay_growth_`, its stand-in for the handshake's round trip in one-way TCP).
    #[serde(default)]
    pub delay_growth: bool,
    /// How the window comes down in SACK recovery: RFC 6675's pipe rule, PRR (Linux
    /// since 3.2) or rate halving (Linux 2.6).
    #[serde(default)]
    pub reduction: Reduction,
    /// Whether SACK information survives a retransmission timeout (with SACK).
    #[serde(default)]
    pub sack_after_timeout: SackAfterTimeout,
}

/// SCTP options of a flow (one association, one path). Defaults are RFC 9260's; the
/// Linux 2.6 lksctp behaviours that differ are options.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SctpConfig {
    /// Outbound streams (1–65,535).
    pub streams: u32,
    /// Bytes per application message (a stream application's data is written as
    /// messages of this size; the last may be shorter). `None`: the largest DATA
    /// payload one packet carries.
    #[serde(default)]
    pub message_bytes: Option<u32>,
    /// Deliver messages unordered (the U flag, RFC 9260 section 6.6): no message waits
    /// behind a gap.
    #[serde(default)]
    pub unordered: bool,
    /// Open with the four-way handshake (INIT, INIT-ACK, COOKIE-ECHO, COOKIE-ACK);
    /// else data flows at once.
    pub handshake: bool,
    /// SCTP_NODELAY: send a partly filled packet although data is outstanding (off:
    /// Nagle's rule, the default).
    #[serde(default)]
    pub nodelay: bool,
    /// Congestion control (RFC 9260 section 7: `sctp`).
    pub cc: CcConfig,
    /// Receive buffer: the advertised receiver window (a_rwnd).
    pub receive_buffer: Amount,
    /// Send buffer: data the application may have written and not yet had
    /// acknowledged. A message counts as written (its delay starts) when it enters.
    pub send_buffer: Amount,
    /// Retransmission timer (RFC 9260 section 15: initial 3 s, min 1 s, max 60 s).
    pub rto: RtoConfig,
    /// Miss indications before fast retransmit (RFC 9260: 3; RFC 2960: 4).
    pub fast_retransmit_after: u32,
    /// SACK every this many packets carrying DATA (RFC 9260 section 6.2: 2).
    pub sack_every: u32,
    /// Delayed-SACK timeout, ns (at most 500 ms; RFC 9260 section 6.2: 200 ms).
    pub sack_delay_ns: u64,
    /// Max.Burst: packets one send opportunity may put out (RFC 9260 section 6.1: 4).
    pub max_burst: u32,
    /// How Max.Burst applies.
    #[serde(default)]
    pub burst_limit: BurstLimit,
    /// What the flight and the window count.
    #[serde(default)]
    pub flight_accounting: FlightAccounting,
    /// How a loss found by SACKs is answered.
    #[serde(default)]
    pub recovery: SctpRecovery,
}

/// SCTP's answer to losses found by SACKs (section 7.2.4).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SctpRecovery {
    /// RFC 4960/9260 section 7.2.4 (lksctp): the first fast retransmission cuts cwnd
    /// and enters Fast Recovery until the highest TSN then outstanding is acknowledged;
    /// meanwhile no further cut and no growth.
    #[default]
    Rfc9260,
    /// ns-2.35's Agent/SCTP: RFC 2960 with the implementer's guide
    /// (draft-ietf-tsvwg-sctpimpguide), which has no Fast Recovery state. cwnd is cut
    /// when a chunk sent after the last cut (its "recover" point) is marked — again
    /// while earlier losses are still being repaired — and is not adjusted while the
    /// cumulative TSN lies below that point; a SACK that brings a fast retransmission
    /// sends that one packet and nothing else (`sctp.cc`: `ProcessSackChunk`).
    Ns2,
}

/// What SCTP's flight size counts and in what unit cwnd grows (RFC 9260 section 7.2
/// leaves both to the implementation: "bytes of outstanding DATA chunks", "MTU").
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FlightAccounting {
    /// lksctp: the flight counts chunk payload; cwnd's unit is the path MTU.
    #[default]
    Payload,
    /// ns-2.35's Agent/SCTP: the flight counts each chunk with its 16-byte header;
    /// cwnd's unit is the largest chunk a packet carries (path MTU − 32). At the
    /// 4-unit floor of ssthresh a window of full chunks is then exactly 4 packets,
    /// where `payload` lets a fifth leave (4 × 1,452 B < 4 × 1,500 B).
    Chunk,
}

impl FlightAccounting {
    /// Bytes a chunk of `payload` user-data bytes adds to the flight.
    pub fn chunk_bytes(self, payload: u16) -> u16 {
        match self {
            FlightAccounting::Payload => payload,
            FlightAccounting::Chunk => payload + crate::wire::sctp::DATA_CHUNK_HEADER_BYTES as u16,
        }
    }

    /// cwnd's unit ("MTU" in section 7.2) on a path of MTU `pmtu`.
    pub fn window_unit(self, pmtu: u32) -> u32 {
        match self {
            FlightAccounting::Payload => pmtu,
            FlightAccounting::Chunk => {
                pmtu - crate::wire::IPV4_HEADER_BYTES - crate::wire::sctp::COMMON_HEADER_BYTES
            }
        }
    }
}

/// How SCTP's Max.Burst limits a send opportunity.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BurstLimit {
    /// RFC 9260 section 6.1 (D): at most Max.Burst packets per send opportunity.
    #[default]
    Packets,
    /// Linux 2.6 (`sctp_transport_burst_limited`): before sending, cwnd is lowered to
    /// flight size + Max.Burst·PMTU when it is larger.
    Cwnd,
}

fn default_sack_blocks() -> u8 {
    crate::wire::tcp::MAX_SACK_BLOCKS as u8
}

fn default_true() -> bool {
    true
}

/// A traffic source. CBR, Poisson and on/off produce datagrams (UDP); bulk, file and
/// rate-limited produce a byte stream (TCP).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppConfig {
    /// Always has data to send (FTP in the source studies).
    Bulk,
    /// A transfer of `size_bytes`; the flow's completion time is reported.
    File {
        /// Bytes to transfer.
        size_bytes: u64,
    },
    /// The application produces data at `rate_bps` (e.g. a disk), optionally `size_bytes` in all.
    RateLimited {
        /// Rate at which data becomes available.
        rate_bps: u64,
        /// Total bytes (`None`: unlimited).
        #[serde(default)]
        size_bytes: Option<u64>,
    },
    /// Constant bit rate: one packet every payload·8/rate seconds.
    Cbr {
        /// Payload bit rate (headers come on top).
        rate_bps: u64,
        /// Payload bytes per packet.
        payload_bytes: u32,
    },
    /// Poisson arrivals: exponential gaps with mean payload·8/rate.
    Poisson {
        /// Mean payload bit rate.
        rate_bps: u64,
        /// Payload bytes per packet.
        payload_bytes: u32,
    },
    /// Alternating on (CBR at `rate_bps`) and off periods.
    OnOff {
        /// Payload bit rate while on.
        rate_bps: u64,
        /// Payload bytes per packet.
        payload_bytes: u32,
        /// Mean on-period length, in ns.
        on_ns: u64,
        /// Mean off-period length, in ns.
        off_ns: u64,
        /// Draw period lengths from exponential distributions (else constant).
        #[serde(default)]
        exponential: bool,
    },
}

impl AppConfig {
    /// A datagram source's rate while sending (bit/s) and payload per packet (bytes);
    /// `None` for byte streams.
    pub fn datagram_rate(&self) -> Option<(u64, u32)> {
        match *self {
            AppConfig::Cbr {
                rate_bps,
                payload_bytes,
            }
            | AppConfig::Poisson {
                rate_bps,
                payload_bytes,
            }
            | AppConfig::OnOff {
                rate_bps,
                payload_bytes,
                ..
            } => Some((rate_bps, payload_bytes)),
            _ => None,
        }
    }

    /// Whether the source produces datagrams (else a byte stream).
    pub fn is_datagram(&self) -> bool {
        self.datagram_rate().is_some()
    }
}

/// A problem with a scenario, located by its dotted path in the user's scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Dotted path of the offending field, e.g. `link[2].bandwidth`.
    pub path: String,
    /// What was wrong and what was expected.
    pub message: String,
}

impl ConfigError {
    /// An error at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for ConfigError {}

impl ScenarioConfig {
    /// Parses the JSON form of a scenario (as produced by the Python front end). A value
    /// of the wrong type or range is reported at its place in the configuration
    /// (`flows[0].transport.mss_bytes: invalid value: ...`), which the front end
    /// restates at the scenario's own file and key.
    pub fn from_json(text: &str) -> Result<ScenarioConfig, ConfigError> {
        serde_json::from_str(text).map_err(|e| {
            // serde_json's message ends with the line and column, which name nothing
            // the user wrote: the path does.
            let message = e.to_string();
            let detail = message.split(" at line ").next().unwrap_or(&message);
            let at = crate::json_path::locate(
                text,
                crate::json_path::offset_of(text, e.line(), e.column()),
                detail,
            );
            ConfigError::new(
                "engine config",
                format!("not a valid engine configuration at {at}: {detail}"),
            )
        })
    }
}
