//! The sending side of a TCP connection: sequence space, loss recovery, timers.
//!
//! * Opening: SYN (retransmitted on the RTO, RFC 6298 (5.7) backoff) unless the
//!   handshake is off, then data.
//! * Sending (`transmit`): retransmit segments marked lost first (RFC 6675 NextSeg
//!   rule 1), then new data while bytes in flight + segment ≤ cwnd and the segment fits
//!   the receiver's window and the send-window cap; a FIN once the application is done.
//!   Sub-MSS segments wait while data is in flight (Nagle, RFC 896).
//! * Loss recovery on ACKs (`on_ack`): fast retransmit on DupThresh duplicate ACKs or,
//!   with SACK, when IsLost(snd_una) (RFC 6675 (5)); then Reno fast recovery
//!   (RFC 5681 3.2: cwnd = ssthresh + 3·SMSS, +SMSS per duplicate ACK, exit on the
//!   first new ACK), NewReno (RFC 6582: partial ACKs retransmit the next hole and
//!   deflate; exit when `recover` is acknowledged), or SACK recovery (RFC 6675: pipe
//!   against cwnd = ssthresh, no inflation).
//! * Lost retransmissions (with SACK recovery and `detect_lost_retransmits`): a
//!   retransmission with DupThresh SACKed segments sent after it is lost and goes
//!   again (Linux's `tcp_mark_lost_retrans`); without it only the timer finds it.
//! * Limited Transmit (RFC 3042): on the first two duplicate ACKs, one new segment
//!   each beyond cwnd (ns-2's `singledup_`, on in Linux), unless switched off.
//! * Timer (RFC 6298 (5.1)–(5.3)): started by a transmission when none runs, restarted
//!   by every ACK of new data, and restarted by the fast retransmit (ns-2's
//!   `reset_rtx_timer` in its duplicate-ACK action; Linux rearms when it retransmits
//!   the head). NewReno's partial ACKs restart it only the first time ("impatient") or
//!   every time ("slow-but-steady"), RFC 6582 section 4.
//! * Timeout (`on_timeout`): RFC 6298 (5.4)–(5.6) — back off, collapse cwnd to one
//!   segment, mark everything un-SACKed lost and resend from snd_una (go-back-N without
//!   SACK information). ssthresh comes from the pipe (RFC 5681 eq. 4's FlightSize
//!   counted as RFC 6675 does) or cwnd, and only when the timeout is a congestion
//!   signal not yet answered in this window (`timeout_reduction`; see
//!   docs/loss-recovery.md).
//! * Send jitter (ns-2's `overhead_`): each time the sender may transmit, whatever it
//!   sends then waits a fresh random U[0, send_jitter] first.

use super::cc::{AckEvent, BuildContext, CongestionControl};
use super::prr::Prr;
use super::rate::RateSampler;
use super::rate_halving::RateHalving;
use super::rto::{RttEstimator, RttTimer};
use super::scoreboard::{Sacked, Scoreboard, DUP_THRESH};
use super::segment::{flags, TcpSegment};
use crate::app::ByteSource;
use crate::config::{
    CcConfig, CwndCounting, NewRenoTimer, Recovery, Reduction, RtoConfig, RttSampling,
    TimeoutReduction, TimeoutSsthresh,
};
use crate::net::packet::TransportHeader;
use crate::rng::Rng;
use crate::time::{round_ns, SimTime};
use crate::transport::{Endpoint, Outbox, Probe, TransportStats};

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
    /// Pace segments instead of sending bursts.
    pub pacing: bool,
    /// Largest random delay before a transmission (0: none).
    pub send_jitter: SimTime,
    /// RFC 3042 Limited Transmit.
    pub limited_transmit: bool,
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
    /// RFC 6582 `recover`: one past the highest sequence sent when recovery began.
    recover: u64,
    /// Reno/NewReno fast-recovery window inflation, bytes (RFC 5681 3.2 steps 3–4).
    inflation: i64,
    next_send_at: SimTime,
    rto_at: Option<SimTime>,
    dupacks: u32,
    phase: Phase,
    conn: Connection,
    fin_sent: bool,
    /// A partial ACK has already restarted the timer in this recovery (impatient NewReno).
    partial_ack_restarted_timer: bool,
    /// The fast retransmit is due: it goes out at once, whatever cwnd and pipe say
    /// (RFC 5681 3.2 step 3, RFC 6675 (4.3); ns-2 and Linux's PRR do the same).
    fast_retransmit_due: bool,
    /// `delay_growth` is holding the window at one segment until the first ACK.
    growth_delayed: bool,
    /// Pace: `pacing` asked for it or the algorithm requires it.
    paced: bool,
    /// The algorithm reads delivery-rate samples.
    rate_samples: bool,
    pace_wait: bool,
    /// The last transmit attempt stopped because of cwnd: only then may ACKs grow it
    /// (Linux's tcp_is_cwnd_limited, RFC 7661's concern), so a sender held back by the
    /// receiver's window or the application does not inflate cwnd without bound.
    cwnd_limited: bool,
    app_wait: Option<SimTime>,
    /// While the send jitter holds transmissions back: when they may go.
    jitter_release: Option<SimTime>,
    /// RFC 6937 state while in SACK fast recovery with `Reduction::Prr`.
    prr: Option<Prr>,
    /// Linux 2.6's rate-halving state while in SACK fast recovery with
    /// `Reduction::RateHalving`.
    halving: Option<RateHalving>,
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
        });
        let rtt = RttEstimator::new(rto);
        let rate_samples = cc.wants_rate_samples();
        TcpSender {
            paced: p.pacing || cc.requires_pacing(),
            rate_samples,
            rate: RateSampler::new(),
            cc,
            app,
            rng,
            conn: Connection::NotStarted,
            snd_una: 0,
            snd_nxt: 0,
            fin_sent: false,
            rwnd: p.peer_window,
            board: Scoreboard::new(rate_samples),
            dupacks: 0,
            phase: Phase::Open,
            recover: 0,
            partial_ack_restarted_timer: false,
            fast_retransmit_due: false,
            inflation: 0,
            prr: None,
            halving: None,
            growth_delayed: p.delay_growth,
            rtt,
            rtt_timer: RttTimer::default(),
            rto_at: None,
            last_timeout_una: None,
            next_send_at: SimTime::ZERO,
            pace_wait: false,
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
        (self.cc.cwnd() as i64 + self.inflation).max(self.mss() as i64) as u64
    }

    fn segment(&self, now: SimTime, seq: u64, payload_bytes: u32, seg_flags: u8) -> TcpSegment {
        let ack_flag = if seg_flags & flags::SYN == 0 {
            flags::ACK
        } else {
            0
        };
        let mut seg = TcpSegment::new(seq, 1, payload_bytes, seg_flags | ack_flag, 0);
        seg.set_timestamps(self.p.timestamps.then_some(now.as_ns()), None);
        seg
    }

    fn emit(&mut self, now: SimTime, seg: TcpSegment, in_flight: u64, out: &mut Outbox) {
        let size = seg.ip_bytes();
        self.cc.on_sent(now, seg.payload_bytes as u64, in_flight);
        out.send(size, TransportHeader::Tcp(seg));
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.rto()); // RFC 6298 (5.1)
        }
        if self.paced {
            if let Some(rate) = self.pacing_rate_bps() {
                self.next_send_at = now + SimTime(round_ns(size as f64 * 8e9 / rate));
            }
        }
    }

    /// Send jitter: whether a transmission that the windows allow now must wait. The
    /// first such transmission of a sending opportunity draws the wait; everything the
    /// windows allow goes together when it ends (ns-2's `delsnd_timer_`).
    fn held_by_jitter(&mut self, now: SimTime) -> bool {
        if self.p.send_jitter == SimTime::ZERO {
            return false;
        }
        let release = *self.jitter_release.get_or_insert_with(|| {
            let wait = (self.rng.uniform() * self.p.send_jitter.as_ns() as f64) as u64;
            now + SimTime(wait)
        });
        now < release
    }

    /// Whether the congestion window holds back `len` more bytes: RFC 6675's
    /// pipe + len > cwnd, in PRR recovery the budget of the last ACK, in rate-halving
    /// recovery its shrinking window.
    #[inline(always)]
    fn window_blocks(&self, in_flight: u64, len: u64, cwnd: u64) -> bool {
        if let Some(prr) = &self.prr {
            !prr.allows(len)
        } else if let Some(halving) = &self.halving {
            !halving.allows(in_flight, len)
        } else {
            in_flight + len > cwnd
        }
    }

    /// RFC 3042: on the first two duplicate ACKs a new segment of `len` may go beyond
    /// cwnd as long as the outstanding data stays within cwnd + 2·SMSS (one segment per
    /// duplicate). With SACK the pipe already shrinks by what each duplicate SACKs, so
    /// this rarely adds anything there.
    fn limited_transmit_allows(&self, len: u64) -> bool {
        self.p.limited_transmit
            && self.phase == Phase::Open
            && self.dupacks > 0
            && self.board.outstanding() + len
                <= self.cc.cwnd() + self.dupacks.min(2) as u64 * self.mss()
    }

    fn pacing_rate_bps(&self) -> Option<f64> {
        if let Some(r) = self.cc.pacing_rate_bps() {
            return Some(r);
        }
        let srtt = self.rtt.srtt()?.as_ns().max(1) as f64;
        // Linux's defaults: twice the window's rate in slow start, 1.2 times after.
        let gain = if self.cc.cwnd() < self.cc.ssthresh() {
            2.0
        } else {
            1.2
        };
        Some(gain * self.cwnd() as f64 * 8e9 / srtt)
    }

    fn open(&mut self, now: SimTime, out: &mut Outbox) {
        if self.p.handshake {
            self.conn = Connection::SynSent;
            let stamp = self.rate.on_send(now, 0);
            self.board.push(0, 1, 0, flags::SYN, now, stamp);
            self.snd_nxt = 1;
            let syn = self.segment(now, 0, 0, flags::SYN);
            self.emit(now, syn, 0, out);
        } else {
            self.conn = Connection::Established;
            self.snd_una = DATA_START;
            self.snd_nxt = DATA_START;
        }
    }

    /// Sends what the windows allow: retransmissions first, then new data, then FIN.
    fn transmit(&mut self, now: SimTime, out: &mut Outbox) {
        self.pace_wait = false;
        self.app_wait = None;
        let was_cwnd_limited = std::mem::take(&mut self.cwnd_limited);
        if self.conn != Connection::Established {
            return;
        }
        if !self.transmit_burst(now, out) {
            self.jitter_release = None; // the opportunity is used up
        }
        if self.pace_wait {
            // The pacer, not the window, stopped this attempt: the sender is as
            // cwnd-limited as it was (Linux does not count pacing against it either), or
            // a paced flow could never grow its window.
            self.cwnd_limited |= was_cwnd_limited;
        }
        if self.app_wait.is_some() && self.board.in_flight() < self.cwnd() {
            // Out of data with room in the window (draft section 3.4).
            self.rate.mark_app_limited(self.board.in_flight());
        }
    }

    /// The loop of [`TcpSender::transmit`]; returns true if the send jitter is holding
    /// a transmission back (then `jitter_release` says until when).
    fn transmit_burst(&mut self, now: SimTime, out: &mut Outbox) -> bool {
        loop {
            if self.paced && now < self.next_send_at {
                self.pace_wait = true;
                return false;
            }
            let cwnd = self.cwnd();
            let in_flight = self.board.in_flight();
            if let Some(seg) = self.board.next_to_retransmit() {
                let forced = std::mem::take(&mut self.fast_retransmit_due);
                let len = seg.seq_len();
                if !forced && in_flight > 0 && self.window_blocks(in_flight, len, cwnd) {
                    self.cwnd_limited = true;
                    return false;
                }
                if self.held_by_jitter(now) {
                    self.fast_retransmit_due = forced;
                    return true;
                }
                let stamp = self.rate.on_send(now, in_flight);
                let watch = self.p.detect_lost_retransmits.then_some(self.snd_nxt);
                self.board.retransmitted(seg.start, now, stamp, watch);
                self.stats.retransmits += 1;
                if let Some(prr) = &mut self.prr {
                    prr.on_send(len);
                }
                let s = self.segment(now, seg.start, seg.payload_bytes, seg.flags);
                self.emit(now, s, in_flight, out);
                continue;
            }
            let written = if self.app.unlimited() && self.app.finished(now) {
                self.snd_nxt // a bulk source stopped: no more data
            } else {
                DATA_START.saturating_add(self.app.written_by(now))
            };
            if self.snd_nxt < written {
                let len = (written - self.snd_nxt).min(self.mss());
                let window_edge = self.snd_una + self.rwnd.min(self.p.max_window);
                if self.snd_nxt + len > window_edge {
                    return false;
                }
                if self.window_blocks(in_flight, len, cwnd) && !self.limited_transmit_allows(len) {
                    self.cwnd_limited = true;
                    return false;
                }
                if len < self.mss() && in_flight > 0 && !self.app.finished(now) {
                    // Nagle: a runt waits until what is in flight is acknowledged.
                    self.app_wait = self
                        .app
                        .time_written(written - DATA_START + self.mss() - len);
                    return false;
                }
                if self.held_by_jitter(now) {
                    return true;
                }
                let seq = self.snd_nxt;
                // The last segment of a finished application carries the FIN.
                let fin = self.snd_nxt + len == written && self.app.finished(now);
                let seg_flags = if fin { flags::FIN } else { 0 };
                let stamp = self.rate.on_send(now, in_flight);
                self.board.push(
                    seq,
                    seq + len + fin as u64,
                    len as u32,
                    seg_flags,
                    now,
                    stamp,
                );
                self.snd_nxt += len + fin as u64;
                if self.p.rtt_sampling == RttSampling::OncePerRtt {
                    self.rtt_timer.on_new_data(self.snd_nxt, now);
                }
                self.fin_sent |= fin;
                if let Some(prr) = &mut self.prr {
                    prr.on_send(len);
                }
                let s = self.segment(now, seq, len as u32, seg_flags);
                self.emit(now, s, in_flight, out);
                continue;
            }
            if !self.fin_sent && self.app.finished(now) {
                if in_flight > 0 && in_flight + 1 > cwnd {
                    return false;
                }
                if self.held_by_jitter(now) {
                    return true;
                }
                let seq = self.snd_nxt;
                let stamp = self.rate.on_send(now, in_flight);
                self.board.push(seq, seq + 1, 0, flags::FIN, now, stamp);
                self.snd_nxt += 1;
                self.fin_sent = true;
                let s = self.segment(now, seq, 0, flags::FIN);
                self.emit(now, s, in_flight, out);
                continue;
            }
            if !self.fin_sent {
                // Waiting for the application: the next full segment, or its stop time.
                let more = self.app.time_written(written - DATA_START + self.mss());
                self.app_wait = more;
            }
            return false;
        }
    }

    fn on_syn_ack(&mut self, now: SimTime, seg: &TcpSegment, out: &mut Outbox) {
        let acked = self.board.ack_to(seg.ack);
        if let Some(sent) = acked.rtt_sample_from {
            self.rtt.sample(now - sent);
            self.stats.record_rtt(self.rtt.srtt());
        }
        self.conn = Connection::Established;
        self.snd_una = seg.ack;
        self.rwnd = seg.window;
        self.rto_at = None;
        self.transmit(now, out);
    }

    /// Processes an acknowledgement (RFC 5681, 6582, 6675).
    fn on_ack(&mut self, now: SimTime, seg: &TcpSegment, out: &mut Outbox) {
        self.rwnd = seg.window;
        let mss = self.mss();
        let prior_in_flight = self.board.in_flight();
        // The ACK that ends a recovery still belongs to it (no growth on it).
        let in_recovery = self.phase == Phase::FastRecovery;
        let mut sacked = Sacked::default();
        if self.p.recovery == Recovery::Sack {
            for (left, right) in seg.sack_blocks() {
                self.board.sack(left, right, &mut sacked);
            }
        }
        let mut newest = sacked.newest;
        let mut delivered = sacked.bytes;
        let mut newly_acked = 0;
        let mut rtt = None;
        if seg.ack > self.snd_una {
            let acked = self.board.ack_to(seg.ack);
            newly_acked = acked.bytes;
            delivered += acked.newly_delivered;
            newest = acked.newest.map(|n| n.newest(newest)).or(newest);
            self.snd_una = seg.ack;
            self.dupacks = 0;
            // RFC 6298 (5.3); impatient NewReno makes an exception for partial ACKs.
            let mut restart_timer = true;
            // Only the once-per-RTT mode keeps a timed segment (nothing to do otherwise).
            let timed = match self.p.rtt_sampling {
                RttSampling::OncePerRtt => self.rtt_timer.on_ack(seg.ack, now),
                RttSampling::EveryAck => None,
            };
            rtt = match (self.p.timestamps, seg.ts_ecr(), self.p.rtt_sampling) {
                (true, Some(ecr), _) => Some(now - SimTime(ecr)),
                (_, _, RttSampling::EveryAck) => acked.rtt_sample_from.map(|sent| now - sent),
                (_, _, RttSampling::OncePerRtt) => timed,
            };
            if let Some(r) = rtt {
                self.rtt.sample(r);
                self.stats.record_rtt(self.rtt.srtt());
            }
            match self.phase {
                Phase::FastRecovery
                    if seg.ack >= self.recover || self.p.recovery == Recovery::Reno =>
                {
                    self.phase = Phase::Open; // full ACK (or any new ACK for Reno)
                    self.inflation = 0;
                    self.prr = None;
                    self.cc.on_recovery_end(now);
                    if let Some(halving) = self.halving.take() {
                        // Linux 2.6 tcp_complete_cwr: cwnd = min(cwnd, ssthresh), where
                        // rate halving has taken cwnd.
                        self.cc.limit_cwnd(halving.cwnd());
                    }
                }
                Phase::FastRecovery => {
                    if self.p.recovery == Recovery::NewReno {
                        restart_timer = self.p.newreno_timer == NewRenoTimer::SlowButSteady
                            || !self.partial_ack_restarted_timer;
                        self.partial_ack_restarted_timer = true;
                        // RFC 6582 3.2 step 3, partial ACK: retransmit the next hole,
                        // deflate by the amount acknowledged, add back one SMSS.
                        self.board.mark_first_lost();
                        self.inflation -= acked.bytes as i64;
                        if acked.bytes >= mss {
                            self.inflation += mss as i64;
                        }
                    }
                }
                Phase::TimeoutRecovery => {
                    if seg.ack >= self.recover {
                        self.phase = Phase::Open;
                    }
                }
                Phase::Open => {}
            }
            // RFC 6298 (5.2)/(5.3): stop when all is acknowledged, else restart.
            if self.board.is_empty() {
                self.rto_at = None;
            } else if restart_timer {
                self.rto_at = Some(now + self.rtt.rto());
            }
        } else if seg.ack == self.snd_una && !self.board.is_empty() && seg.payload_bytes == 0 {
            self.dupacks += 1;
            if self.phase == Phase::FastRecovery && self.p.recovery != Recovery::Sack {
                self.inflation += mss as i64; // RFC 5681 3.2 step 4
            }
        }
        self.report_ack(
            now,
            newly_acked,
            delivered,
            newest,
            rtt,
            prior_in_flight,
            in_recovery,
        );
        if self.board.is_empty() && self.fin_sent && seg.ack >= self.snd_nxt {
            self.conn = Connection::Closed;
            return;
        }
        let sack_says_lost = self.p.recovery == Recovery::Sack && self.board.mark_lost_by_sack();
        if self.phase == Phase::Open && (self.dupacks as usize >= DUP_THRESH || sack_says_lost) {
            self.enter_fast_recovery(now);
        } else if let Some(prr) = &mut self.prr {
            prr.on_ack(delivered, self.board.in_flight(), self.cc.ssthresh(), mss);
        }
        if let Some(halving) = &mut self.halving {
            // Linux runs tcp_cwnd_down on every ACK in recovery, the first included.
            halving.on_ack(
                delivered > 0,
                self.board.in_flight(),
                self.cc.min_cwnd(),
                mss,
            );
        }
        self.transmit(now, out);
    }

    /// Takes the delivery-rate sample and hands the ACK to the algorithm.
    // The ACK's facts, each from a different part of the sender; a struct built only to
    // be taken apart here would not be clearer.
    #[allow(clippy::too_many_arguments)]
    fn report_ack(
        &mut self,
        now: SimTime,
        newly_acked: u64,
        delivered: u64,
        newest: Option<super::rate::Delivered>,
        rtt: Option<SimTime>,
        prior_in_flight: u64,
        in_recovery: bool,
    ) {
        let rate = self.rate.on_ack(
            now,
            delivered,
            newest,
            self.rtt.min_rtt(),
            self.rate_samples,
        );
        if self.growth_delayed && newly_acked > 0 {
            self.growth_delayed = false;
            // The first ACK opens the initial window, as ns-2 sets cwnd_ to
            // initial_window() on it instead of growing it.
            return;
        }
        let event = AckEvent {
            now,
            bytes_acked: match self.p.cwnd_counting {
                CwndCounting::Bytes => newly_acked,
                CwndCounting::Acks => newly_acked.min(self.mss()),
            },
            newly_acked_bytes: newly_acked,
            delivered_bytes: delivered,
            rtt,
            min_rtt: self.rtt.min_rtt(),
            srtt: self.rtt.srtt(),
            in_flight: self.board.in_flight(),
            prior_in_flight,
            in_recovery,
            cwnd_limited: self.cwnd_limited,
            round_start: rate.round_start,
            round_count: self.rate.round_count(),
            rate: rate.sample,
        };
        self.cc.on_ack(&event);
    }

    /// Fast retransmit: RFC 5681 3.2 steps 2–3, RFC 6582 3.2 step 2, RFC 6675 (4).
    fn enter_fast_recovery(&mut self, now: SimTime) {
        // RFC 6582 3.2 step 2 (4.1 after a timeout): only an ACK covering *more* than
        // the highest byte sent when the last recovery began may start a new one — as
        // ns-2's `highest_ack_ > recover_`. Duplicates exactly at that point are echoes
        // of go-back-N resending what the receiver already held. Reno gets the check
        // too, as ns-2's Reno does with its default `bugFix_`: without it, every further
        // hole of one window halves cwnd again instead of waiting for the timer.
        if self.snd_una <= self.recover {
            return;
        }
        self.recover = self.snd_nxt;
        if self.p.recovery == Recovery::Sack {
            match self.p.reduction {
                Reduction::Pipe => {}
                Reduction::Prr => self.prr = Some(Prr::start(self.board.outstanding())),
                Reduction::RateHalving => self.halving = Some(RateHalving::start(self.cc.cwnd())),
            }
        }
        self.cc
            .on_congestion_event(now, self.board.outstanding(), self.board.in_flight());
        self.stats.fast_retransmits += 1;
        self.board.mark_first_lost();
        self.phase = Phase::FastRecovery;
        self.rtt_timer.cancel();
        self.partial_ack_restarted_timer = false;
        self.fast_retransmit_due = true;
        // The retransmission gets a full RTO (ns-2's reset_rtx_timer; Linux rearms on
        // retransmitting the head): else a timer armed for the lost segment's first
        // transmission can expire before the retransmission's ACK returns.
        self.rto_at = Some(now + self.rtt.rto());
        self.inflation = if self.p.recovery == Recovery::Sack {
            0
        } else {
            (DUP_THRESH as u64 * self.mss()) as i64
        };
    }

    /// Whether an expiring timer reports congestion not yet answered by a reduction.
    ///
    /// A further expiry with nothing acknowledged since the last one never is (RFC 5681
    /// section 3.1: ssthresh is not lowered again while the same segment is backed
    /// off). With `OncePerWindow` (Linux's `tcp_enter_loss`: ca_state ≤ Disorder, or
    /// snd_una past high_seq, or Loss with progress since the last expiry) neither is
    /// a timeout inside the window a fast retransmit already answered: the one
    /// reduction per window of data that RFC 5681 and 6582 make, whose ssthresh came
    /// from the window that actually overflowed. `PerTimeout` is ns-2's `slowdown()`,
    /// which halves `window()` again on every expiry that follows progress.
    fn timeout_is_new_congestion_event(&self) -> bool {
        let progressed = self.last_timeout_una != Some(self.snd_una);
        match self.p.timeout_reduction {
            TimeoutReduction::PerTimeout => progressed,
            TimeoutReduction::OncePerWindow => {
                self.snd_una >= self.recover || (self.phase == Phase::TimeoutRecovery && progressed)
            }
        }
    }

    /// The retransmission timer expired (RFC 6298 (5.4)–(5.6), RFC 5681 3.1).
    fn on_timeout(&mut self, now: SimTime, out: &mut Outbox) {
        self.stats.rto_count += 1;
        let new_event = self.timeout_is_new_congestion_event();
        self.last_timeout_una = Some(self.snd_una);
        let basis = match self.p.timeout_ssthresh {
            // FlightSize as RFC 6675 counts what is in the network: not what was SACKed,
            // nor what was deemed lost and not resent. snd_nxt − snd_una would count the
            // new data a recovery sent beyond the holes, and the old window a
            // go-back-N is still resending: more than the path ever held.
            TimeoutSsthresh::FlightSize => self.board.in_flight(),
            // ns-2's window(): min(cwnd, receiver's window), without recovery inflation.
            TimeoutSsthresh::Cwnd => self.cc.cwnd().min(self.rwnd).min(self.p.max_window),
        };
        self.cc.on_retransmission_timeout(now, basis, new_event);
        self.rtt.on_timeout();
        self.rtt_timer.cancel();
        self.growth_delayed = false;
        self.board.mark_all_lost();
        self.phase = Phase::TimeoutRecovery;
        self.prr = None;
        self.halving = None;
        self.recover = self.snd_nxt;
        self.inflation = 0;
        self.dupacks = 0;
        self.rto_at = Some(now + self.rtt.rto());
        if self.conn == Connection::SynSent {
            let s = self.segment(now, 0, 0, flags::SYN);
            let stamp = self.rate.on_send(now, 0);
            self.board.retransmitted(0, now, stamp, None);
            self.stats.retransmits += 1;
            self.emit(now, s, 0, out);
            return;
        }
        self.transmit(now, out);
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
        if self.rto_at.is_some_and(|t| t <= now) {
            self.on_timeout(now, out);
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

    fn probe(&self) -> Option<Probe> {
        Some(Probe::of(self.cwnd(), self.cc.as_ref(), self.rtt.srtt()))
    }

    fn stats(&self) -> Option<TransportStats> {
        Some(self.stats)
    }
}
