//! The sending side of a TCP connection: sequence space, loss detection and recovery,
//! timers. One struct, [`TcpSender`], with its methods by job:
//!
//! | file | job | RFCs |
//! |---|---|---|
//! | `mod.rs` | state, construction, the endpoint interface (timers dispatched) | 9293 |
//! | `output.rs` | what goes now: retransmissions, new data, FIN; pacing, jitter, Nagle | 6675 NextSeg, 3042, 896 |
//! | `input.rs` | ACKs: cumulative, SACK, D-SACK; RTT samples; the algorithm's ACK event | 5681, 6582, 2883, 6298, 7323 |
//! | `loss_detection.rs` | RACK's time-based marking and reordering timer, Tail Loss Probe | 8985 |
//! | `recovery.rs` | the recovery window: fast recovery, timeout, F-RTO, undo | 5681, 6582, 6675, 6937, 6298, 5682, 4015 |
//!
//! * Opening: SYN (retransmitted on the RTO, RFC 6298 (5.7) backoff) unless the
//!   handshake is off, then data.
//! * Loss detection: DupThresh duplicate ACKs, or with SACK one of RFC 6675's IsLost,
//!   Linux 2.6's FACK or RACK (RFC 8985: a segment sent before a delivered one is lost
//!   after RACK.rtt plus a reordering window; retransmissions alike) — the
//!   `loss_detection` setting. Tail losses get a probe 2·SRTT after the last ACK
//!   (TLP) instead of waiting for the timer.
//! * Recovery: Reno (RFC 5681 3.2), NewReno (RFC 6582) or SACK recovery (RFC 6675)
//!   with the window brought down by the pipe, PRR (RFC 6937, as Linux) or Linux 2.6's
//!   rate halving; a lost retransmission lowers it again (RFC 5681 4.3) with the pipe
//!   rule. Limited Transmit (RFC 3042) on the first two duplicates.
//! * Timer (RFC 6298 (5.1)–(5.3)): started by a transmission when none runs, restarted
//!   by every ACK of new data and by the fast retransmit; NewReno's partial ACKs
//!   restart it only the first time ("impatient") or every time, RFC 6582 section 4.
//! * Timeout: back off, one segment, resend from SND.UNA; ssthresh reduced once per
//!   window of data (`timeout_reduction`); F-RTO (RFC 5682) sends new data first and
//!   takes the timeout back if the originals arrived. Reductions that D-SACKs or
//!   timestamps prove spurious are undone (RFC 3708/3522 detection, RFC 4015
//!   response). docs/loss-recovery.md says what each profile does, with sources.
//! * Send jitter (ns-2's `overhead_`): each time the sender may transmit, whatever it
//!   sends then waits a fresh random U[0, send_jitter] first.

mod input;
mod loss_detection;
mod output;
mod recovery;

use loss_detection::LossTimers;
use recovery::RecoveryWindow;

use super::rate::RateSampler;
use super::scoreboard::{Sacked, Scoreboard, SentSegment};
use super::DUP_THRESH;
use crate::app::ByteSource;
use crate::cc::{AckEvent, BuildContext, CongestionControl};
use crate::config::{
    CcConfig, CwndCounting, LossDetection, NewRenoTimer, Recovery, Reduction, RtoConfig,
    RttSampling, SackAfterTimeout, TimeoutReduction, TimeoutSsthresh,
};
use crate::metrics::Probe;
use crate::rng::Rng;
use crate::time::{round_ns, SimTime};
use crate::transport::rto::{RttEstimator, RttSource, RttTimer};
use crate::transport::{Endpoint, Outbox, TransportStats};
use crate::wire::tcp::{flags, OptionSizes, TcpSegment};
use crate::wire::TransportHeader;

/// Fixed parameters of a sender that it reads while running (the congestion-control
/// and retransmission-timer settings are consumed by [`TcpSender::new`]: keeping
/// them out of the sender keeps its hot state in fewer cache lines).
#[derive(Debug, Clone)]
pub struct SenderParams {
    /// Payload bytes of a full segment (MSS less option bytes).
    pub segment_bytes: u32,
    /// Loss recovery.
    pub recovery: Recovery,
    /// Initial window, bytes.
    pub initial_window: u64,
    /// Send-window cap in bytes, whatever cwnd and the receiver allow.
    pub max_window: u64,
    /// The receiver's advertised window, assumed until its first ACK arrives.
    pub peer_window: u64,
    /// Open with a SYN.
    pub handshake: bool,
    /// Carry RFC 7323 timestamps.
    pub timestamps: bool,
    /// How the segments' options count on the wire.
    pub option_sizes: OptionSizes,
    /// Pace segments instead of sending bursts.
    pub pacing: bool,
    /// Largest random delay before a transmission (0: none).
    pub send_jitter: SimTime,
    /// RFC 3042 Limited Transmit.
    pub limited_transmit: bool,
    /// Limited Transmit's two segments also in timeout recovery, as the go-back-N's
    /// next ones (ns-2's `send_one()`; only without SACK).
    pub limited_transmit_after_timeout: bool,
    /// Slow start also at cwnd = ssthresh (Linux 2.6).
    pub slow_start_at_ssthresh: bool,
    /// Duplicate ACKs restart the retransmission timer (ns-2's TCP/Linux).
    pub restart_rto_on_duplicates: bool,
    /// Duplicate ACKs' timestamp echoes feed the RTO estimator (ns-2's TCP/Linux).
    pub rtt_samples_from_duplicates: bool,
    /// A thin stream's first timeouts keep the RTO (Linux `tcp_thin_linear_timeouts`).
    pub thin_linear_timeouts: bool,
    /// NewReno's timer restarts on partial ACKs (RFC 6582 section 4).
    pub newreno_timer: NewRenoTimer,
    /// What an ACK counts for in cwnd growth (RFC 3465 bytes, or ns-2's one per ACK).
    pub cwnd_counting: CwndCounting,
    /// Which ACKs give RTT samples when timestamps are off.
    pub rtt_sampling: RttSampling,
    /// One segment until the first ACK, then the initial window (ns-2's `delay_growth_`).
    pub delay_growth: bool,
    /// How the window comes down in SACK recovery (RFC 6675 pipe, PRR, rate halving).
    pub reduction: Reduction,
    /// What ssthresh is halved from on a timeout.
    pub timeout_ssthresh: TimeoutSsthresh,
    /// Which timeouts reduce ssthresh.
    pub timeout_reduction: TimeoutReduction,
    /// A retransmission is lost once DupThresh segments sent after it are SACKed, and
    /// is sent again without waiting for the timer (true only with SACK recovery).
    pub detect_lost_retransmits: bool,
    /// How SACK recovery finds lost segments (`DupThresh` without SACK).
    pub loss_detection: LossDetection,
    /// RFC 8985 section 7 Tail Loss Probe (false without SACK).
    pub tail_loss_probe: bool,
    /// Undo reductions D-SACKs or timestamps prove spurious (`undo.rs`).
    pub undo: bool,
    /// F-RTO after a retransmission timeout (RFC 5682).
    pub frto: bool,
    /// Whether SACK information survives a retransmission timeout (RFC 2018 section 8).
    pub sack_after_timeout: SackAfterTimeout,
    /// Linux's TCP Small Queues: hold segments in the socket while the host's first
    /// link holds about a millisecond of the flow (`held_by_small_queues`).
    pub small_queues: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Connection {
    NotStarted,
    SynSent,
    Established,
    Closed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Open,
    FastRecovery,
    TimeoutRecovery,
}

/// A TCP sender endpoint.
///
/// Laid out by hand (`repr(C)`), most-read first: with many flows the sender is out of
/// cache when its next ACK comes, so what every ACK and transmission reads sits in the
/// first cache lines and what only recovery, timeouts or jitter read comes last.
#[derive(Debug)]
#[repr(C)]
pub struct TcpSender {
    cc: Box<dyn CongestionControl>,
    /// Oldest unacknowledged sequence number (RFC 9293 SND.UNA).
    snd_una: u64,
    /// Next new sequence number to send (SND.NXT for new data).
    snd_nxt: u64,
    /// Peer's advertised window (SND.WND).
    rwnd: u64,
    /// The peer's latest TSval (RFC 7323 TS.Recent), echoed in TSecr.
    ts_recent: Option<u64>,
    /// Where loss recovery stands and what it has set (`recovery.rs`).
    recovery: RecoveryWindow,
    next_send_at: SimTime,
    rto_at: Option<SimTime>,
    conn: Connection,
    fin_sent: bool,
    /// `delay_growth` is holding the window at one segment until the first ACK.
    growth_delayed: bool,
    /// Pace: `pacing` asked for it or the algorithm requires it.
    paced: bool,
    /// Fast recovery inflates cwnd per duplicate ACK (RFC 5681 3.2; see
    /// `inflates_window`): fixed by the configuration and the algorithm.
    inflates: bool,
    /// The algorithm reads delivery-rate samples.
    rate_samples: bool,
    /// The scoreboard's loss markings already reported to the algorithm.
    losses_reported: u64,
    pace_wait: bool,
    /// TCP Small Queues stopped the last transmit attempt (`held_by_small_queues`).
    host_wait: bool,
    /// The last transmit attempt stopped because of cwnd: only then may ACKs grow it
    /// (Linux's tcp_is_cwnd_limited, RFC 7661's concern), so a sender held back by the
    /// receiver's window or the application does not inflate cwnd without bound.
    cwnd_limited: bool,
    app_wait: Option<SimTime>,
    /// While the send jitter holds transmissions back: when they may go.
    jitter_release: Option<SimTime>,
    p: SenderParams,
    board: Scoreboard,
    rtt: RttEstimator,
    stats: TransportStats,
    app: ByteSource,
    /// Delivery-rate samples and round trips.
    rate: RateSampler,
    /// The segment being timed, with `RttSampling::OncePerRtt`.
    rtt_timer: RttTimer,
    // Read only after timeouts or with jitter.
    /// snd_una when the last timeout fired: a further timeout there is a repeat.
    last_timeout_una: Option<u64>,
    /// Timeouts since an ACK last acknowledged new data (Linux `icsk_retransmits`).
    timeouts_in_a_row: u32,
    /// RACK's reordering timer and the Tail Loss Probe timeout (RFC 8985).
    loss_timers: LossTimers,
    /// TLP.end_seq (Linux `tlp_high_seq`): SND.NXT when the outstanding probe went.
    tlp_high_seq: Option<u64>,
    /// The outstanding probe was a retransmission (not new data).
    tlp_retrans: bool,
    /// The probe may send one new segment beyond cwnd (Linux's `push_one = 2`).
    probe_due: bool,
    rng: Rng,
}

/// First data byte's sequence number (the SYN takes sequence number 0).
const DATA_START: u64 = 1;

impl TcpSender {
    /// A sender whose application is `app`.
    pub fn new(p: SenderParams, cc: &CcConfig, rto: &RtoConfig, app: ByteSource, rng: Rng) -> Self {
        // The algorithm's own stream, derived without drawing from the sender's.
        let cc_rng = Rng::for_component(rng.clone().next_u64(), "congestion-control");
        let cc = cc.build(BuildContext {
            mss: p.segment_bytes as u64,
            initial_window: p.initial_window,
            rng: cc_rng,
            window_in_packets: p.cwnd_counting == CwndCounting::Ns2,
            slow_start_at_ssthresh: p.slow_start_at_ssthresh,
            slow_start_limit: match p.cwnd_counting {
                CwndCounting::Bytes => Some(2), // RFC 3465's L
                CwndCounting::Segments => None,
                CwndCounting::Acks | CwndCounting::Ns2 => Some(1), // what an ACK counts for
            },
        });
        // Where a coarse RTT clock's ticks fall (ns-2 draws `boot_time_` per agent).
        let clock_phase = Rng::for_component(rng.clone().next_u64(), "rtt-clock").uniform();
        let rtt = RttEstimator::new(rto, clock_phase);
        let rate_samples = cc.wants_rate_samples();
        let inflates = p.recovery != Recovery::Sack
            && matches!(p.reduction, Reduction::Pipe | Reduction::Sack1Pipe)
            && !cc.controls_recovery_window();
        TcpSender {
            paced: p.pacing || cc.requires_pacing(),
            inflates,
            rate_samples,
            losses_reported: 0,
            rate: RateSampler::new(),
            cc,
            app,
            rng,
            conn: Connection::NotStarted,
            snd_una: 0,
            snd_nxt: 0,
            fin_sent: false,
            rwnd: p.peer_window,
            ts_recent: None,
            recovery: RecoveryWindow::default(),
            board: match p.loss_detection {
                LossDetection::Rack => Scoreboard::new(rate_samples).with_rack(),
                LossDetection::Ns2Linux => {
                    Scoreboard::new(rate_samples).with_retransmission_order()
                }
                _ => Scoreboard::new(rate_samples),
            },
            growth_delayed: p.delay_growth,
            rtt,
            rtt_timer: RttTimer::default(),
            rto_at: None,
            last_timeout_una: None,
            timeouts_in_a_row: 0,
            loss_timers: LossTimers::default(),
            tlp_high_seq: None,
            tlp_retrans: false,
            probe_due: false,
            next_send_at: SimTime::ZERO,
            pace_wait: false,
            host_wait: false,
            jitter_release: None,
            app_wait: None,
            cwnd_limited: false,
            stats: TransportStats::default(),
            p,
        }
    }

    fn mss(&self) -> u64 {
        self.p.segment_bytes as u64
    }

    /// Usable congestion window: cwnd plus any fast-recovery inflation.
    fn cwnd(&self) -> u64 {
        if self.growth_delayed {
            return self.mss();
        }
        (self.cc.cwnd() as i64 + self.recovery.inflation).max(self.mss() as i64) as u64
    }

    fn segment(&self, now: SimTime, seq: u64, payload_bytes: u32, seg_flags: u8) -> TcpSegment {
        let ack_flag = if seg_flags & flags::SYN == 0 {
            flags::ACK
        } else {
            0
        };
        let mut seg = TcpSegment::new(seq, 1, payload_bytes, seg_flags | ack_flag, 0);
        // RFC 7323 section 4.3: echo TS.Recent, the receiver's latest TSval (its
        // receive-window autotuning times its RTT from it).
        seg.set_timestamps(self.p.timestamps.then_some(now.as_ns()), self.ts_recent);
        seg
    }
}

impl Endpoint for TcpSender {
    fn on_packet(&mut self, now: SimTime, header: &TransportHeader, out: &mut Outbox) {
        let TransportHeader::Tcp(seg) = header else {
            return;
        };
        if !seg.has(flags::ACK) {
            return;
        }
        match self.conn {
            Connection::SynSent if seg.has(flags::SYN) => self.on_syn_ack(now, seg, out),
            Connection::Established => self.on_ack(now, seg, out),
            _ => {}
        }
    }

    fn on_wakeup(&mut self, now: SimTime, out: &mut Outbox) {
        if self.conn == Connection::NotStarted {
            if now < self.app.start() {
                return;
            }
            self.open(now, out);
        }
        let loss_timer_due = self.loss_timers.earliest().is_some_and(|t| t <= now);
        // A probe due with the RTO goes instead of it (Linux arms one timer, the PTO
        // capped at the RTO's time, and the probe then restarts the RTO).
        if loss_timer_due && self.loss_timers.probe_due(now) {
            self.send_loss_probe(now, out);
            return;
        }
        if self.rto_at.is_some_and(|t| t <= now) {
            self.on_timeout(now, out);
            return;
        }
        if loss_timer_due && self.loss_timers.reordering_due(now) {
            self.on_reordering_timeout(now, out);
            return;
        }
        self.transmit(now, out);
    }

    fn poll_at(&self) -> Option<SimTime> {
        let mut t = self.rto_at;
        let mut consider = |x: Option<SimTime>| {
            if let Some(x) = x {
                t = Some(t.map_or(x, |t| t.min(x)));
            }
        };
        consider(self.loss_timers.earliest());
        match self.conn {
            Connection::NotStarted => consider(Some(self.app.start())),
            Connection::Established => {
                if self.pace_wait {
                    consider(Some(self.next_send_at));
                }
                consider(self.jitter_release);
                consider(self.app_wait);
            }
            _ => {}
        }
        t
    }

    fn watches_host_backlog(&self) -> bool {
        self.p.small_queues
    }

    fn probe(&self) -> Option<Probe> {
        Some(Probe::of(self.cwnd(), self.cc.as_ref(), self.rtt.srtt()))
    }

    fn stats(&self) -> Option<TransportStats> {
        Some(self.stats)
    }
}
