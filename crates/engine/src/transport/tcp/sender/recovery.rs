//! The recovery window: fast retransmit and fast recovery (RFC 5681 3.2, RFC 6582,
//! RFC 6675 with PRR or rate halving), a lost retransmission's second reduction (RFC
//! 5681 4.3), the retransmission timeout (RFC 6298 (5.4)–(5.6), RFC 5681 3.1), F-RTO
//! (RFC 5682) and the undo of reductions proved spurious (RFC 4015; `undo.rs`).

use super::loss_detection::LossTimers;
use super::*;
use crate::transport::tcp::ns2_linux_halving::Ns2LinuxHalving;
use crate::transport::tcp::prr::Prr;
use crate::transport::tcp::rate_halving::RateHalving;
use crate::transport::tcp::sack1_pipe::Sack1Pipe;
use crate::transport::tcp::undo::UndoRecord;

/// The recovery window: where the sender stands in loss recovery and what the current
/// episode has set. Episodes begin and end here (`enter_fast_recovery`, `on_timeout`,
/// `undo_reduction`, the end of a timeout recovery); an ACK's own bookkeeping in
/// `input.rs` (duplicate counts, NewReno's inflation, PRR's budget) and the sending
/// code read and update the rest. Hot fields first: every ACK reads them.
#[derive(Debug)]
pub(super) struct RecoveryWindow {
    /// Open, fast recovery (RFC 5681 3.2, 6582, 6675) or timeout recovery.
    pub(super) phase: Phase,
    /// Duplicate ACKs in a row (RFC 5681 DupThresh counting).
    pub(super) dupacks: u32,
    /// RFC 6582 `recover` (Linux `high_seq`): SND.NXT when the episode began; it ends
    /// once everything below is acknowledged.
    pub(super) recover: u64,
    /// Reno/NewReno fast-recovery window inflation, bytes (RFC 5681 3.2 steps 3–4),
    /// with `Reduction::Pipe` (ns-2's Reno and NewReno).
    pub(super) inflation: i64,
    /// Without SACK: the segments duplicate ACKs reported delivered beyond SND.UNA,
    /// bytes (RFC 9937's DeliveredData estimate without SACK; Linux's "reno SACKs",
    /// `tcp_add_reno_sack`): each duplicate adds a segment, a cumulative ACK takes
    /// back what it covers (`tcp_remove_reno_sacks`). The pipe PRR and rate halving
    /// work from is what is outstanding less this.
    pub(super) reno_sacked: u64,
    /// A partial ACK has already restarted the timer in this recovery (impatient
    /// NewReno, RFC 6582 section 4).
    pub(super) partial_ack_restarted_timer: bool,
    /// Every partial ACK of this recovery restarts the timer (slow but steady): with
    /// `NewRenoTimer::ByHoles`, decided at the first partial ACK.
    pub(super) steady_timer: bool,
    /// With `NewRenoTimer::ByHoles`: the data in flight when the recovery's first
    /// lost segment was sent (it was sent once), bytes — the window in flight when
    /// the loss happened. Kept only while the timer is impatient: a timeout inside
    /// the recovery leaves ssthresh at most this.
    pub(super) flight_at_loss: Option<u64>,
    /// The fast retransmit is due: it goes out at once, whatever cwnd and pipe say
    /// (RFC 5681 3.2 step 3, RFC 6675 (4.3); ns-2 and Linux's PRR do the same).
    pub(super) fast_retransmit_due: bool,
    /// F-RTO is judging the last timeout (RFC 5682 section 3).
    pub(super) frto: bool,
    /// F-RTO step 2b: this ACK sends new data, not the segments the timeout marked.
    pub(super) frto_new_data: bool,
    /// RFC 6937 state while in fast recovery with `Reduction::Prr`.
    pub(super) prr: Option<Prr>,
    /// Linux 2.6's rate-halving state while in fast recovery with
    /// `Reduction::RateHalving`.
    pub(super) halving: Option<RateHalving>,
    /// ns-2 Sack1's `pipe_` while in SACK fast recovery with `Reduction::Sack1Pipe`.
    pub(super) sack1_pipe: Option<Sack1Pipe>,
    /// ns-2 TCP/Linux's window while in fast recovery with `Reduction::Ns2Linux`.
    pub(super) ns2_halving: Option<Ns2LinuxHalving>,
    /// A lost retransmission has lowered the window a second time in this episode
    /// (RFC 5681 4.3).
    pub(super) lowered_twice: bool,
    /// The last reduction, while it may still prove spurious (`undo.rs`).
    pub(super) undo: Option<UndoRecord>,
}

impl Default for RecoveryWindow {
    fn default() -> Self {
        RecoveryWindow {
            phase: Phase::Open,
            dupacks: 0,
            recover: 0,
            inflation: 0,
            reno_sacked: 0,
            partial_ack_restarted_timer: false,
            steady_timer: false,
            flight_at_loss: None,
            fast_retransmit_due: false,
            frto: false,
            frto_new_data: false,
            prr: None,
            halving: None,
            sack1_pipe: None,
            ns2_halving: None,
            lowered_twice: false,
            undo: None,
        }
    }
}

impl TcpSender {
    /// Fast retransmit: RFC 5681 3.2 steps 2–3, RFC 6582 3.2 step 2, RFC 6675 (4).
    pub(super) fn enter_fast_recovery(&mut self, now: SimTime) {
        // RFC 6582 3.2 step 2 (4.1 after a timeout): only an ACK covering *more* than
        // the highest byte sent when the last recovery began may start a new one — as
        // ns-2's `highest_ack_ > recover_`. Duplicates exactly at that point are echoes
        // of go-back-N resending what the receiver already held. Reno gets the check
        // too, as ns-2's Reno does with its default `bugFix_`: without it, every further
        // hole of one window halves cwnd again instead of waiting for the timer.
        if self.snd_una <= self.recovery.recover {
            return;
        }
        // The loss ends the connection's first slow start (ssthresh still unset).
        let first_slow_start = self.cc.ssthresh() == u64::MAX;
        self.recovery.recover = self.snd_nxt;
        self.recovery.lowered_twice = false;
        // PRR and rate halving bring the window down with or without SACK (RFC 9937
        // section 5 estimates DeliveredData from duplicate ACKs; Linux runs both for
        // its Reno/NewReno); `Pipe` without SACK is RFC 5681/6582 window inflation.
        match self.p.reduction {
            _ if self.cc.controls_recovery_window() => {}
            Reduction::Pipe => {}
            Reduction::Sack1Pipe if self.p.recovery == Recovery::Sack => {
                let outstanding = self.board.outstanding().div_ceil(self.mss());
                self.recovery.sack1_pipe = Some(Sack1Pipe::start(outstanding));
            }
            Reduction::Sack1Pipe => {}
            Reduction::Prr => self.recovery.prr = Some(Prr::start(self.board.outstanding())),
            Reduction::RateHalving => {
                self.recovery.halving = Some(RateHalving::start(self.cc.cwnd()))
            }
            Reduction::Ns2Linux => {}
        }
        let prior_cwnd = self.cc.cwnd();
        self.start_undo_record();
        self.cc
            .on_congestion_event(now, self.reduction_basis(), self.pipe());
        if self.p.reduction == Reduction::Ns2Linux && !self.cc.controls_recovery_window() {
            // After the reduction: its floor is the module's new min_cwnd.
            let floor = self.cc.min_cwnd().min(self.cc.cwnd());
            self.recovery.ns2_halving = Some(Ns2LinuxHalving::start(prior_cwnd, floor));
        }
        self.stats.fast_retransmits += 1;
        if self.p.loss_detection != LossDetection::Rack {
            // DupThresh and FACK take the first segment as lost; RACK marks by time only
            // (`endpoints` leaves RACK on only with SACK recovery).
            self.board.mark_first_lost();
        }
        self.recovery.phase = Phase::FastRecovery;
        // Recovery answers whatever the probe was for (Linux tcp_init_cwnd_reduction).
        self.loss_timers.set_probe(None);
        self.tlp_high_seq = None;
        self.rtt_timer.cancel();
        self.recovery.partial_ack_restarted_timer = false;
        self.recovery.steady_timer = self.p.newreno_timer == NewRenoTimer::SlowButSteady;
        // NewReno's timer only (the SACK count would also hold what was SACKed above).
        // Without SACK the delivered count is what was cumulatively acknowledged, so
        // what was outstanding below the segment when it left is its sequence number
        // less that count then.
        self.recovery.flight_at_loss = (self.p.recovery == Recovery::NewReno
            && self.p.newreno_timer == NewRenoTimer::ByHoles
            && first_slow_start)
            .then(|| self.board.first())
            .flatten()
            .filter(|s| !s.ever_retransmitted)
            .map(|s| s.start.saturating_sub(DATA_START + s.delivered_at_send()));
        self.recovery.fast_retransmit_due = true;
        // The retransmission gets a full RTO (ns-2's reset_rtx_timer; Linux rearms on
        // retransmitting the head): else a timer armed for the lost segment's first
        // transmission can expire before the retransmission's ACK returns.
        self.rto_at = Some(now + self.rtt.rto());
        self.recovery.inflation = if self.inflates_window() {
            (DUP_THRESH as u64 * self.mss()) as i64
        } else {
            0
        };
    }

    /// Whether fast recovery inflates cwnd by a segment per duplicate ACK (RFC 5681
    /// 3.2): Reno and NewReno with `Reduction::Pipe`, as ns-2 runs them.
    pub(super) fn inflates_window(&self) -> bool {
        self.inflates
    }

    /// What the sender takes to be in the network (RFC 6675's pipe): the scoreboard's
    /// estimate, less what duplicate ACKs reported delivered without SACK.
    pub(super) fn pipe(&self) -> u64 {
        self.pipe_from(self.board.in_flight())
    }

    /// [`Self::pipe`] from the scoreboard's `in_flight`, for callers that have it.
    #[inline(always)]
    pub(super) fn pipe_from(&self, in_flight: u64) -> u64 {
        in_flight.saturating_sub(self.recovery.reno_sacked)
    }

    /// A retransmission was found lost in SACK recovery with `Reduction::Pipe`: RFC
    /// 5681 section 4.3 — the loss of a retransmission is a second indication of
    /// congestion, so ssthresh and cwnd are lowered twice: once more in the episode,
    /// from the pipe (what is still in the network), and the episode now ends past what
    /// has been sent. Without it a window the first reduction left above the path (a
    /// decrease applied to a slow-start overshoot) keeps the queue overflowing through
    /// the whole recovery; lowering again on every such loss instead would cascade far
    /// below the path while the queue drains what the old window put in it. PRR (the
    /// default, and Linux) conserves packets on such ACKs instead (`prr.rs`) and rate
    /// halving keeps cutting the window: neither lowers twice.
    pub(super) fn on_lost_retransmission(&mut self, now: SimTime) {
        if self.recovery.phase != Phase::FastRecovery
            || self.p.recovery != Recovery::Sack
            || self.p.reduction != Reduction::Pipe
            || self.recovery.lowered_twice
        {
            return;
        }
        self.recovery.lowered_twice = true;
        self.cc
            .on_congestion_event(now, self.network_basis(), self.pipe());
        self.recovery.recover = self.snd_nxt;
    }

    /// Keeps what the reduction about to be made replaces (Linux `tcp_init_undo`).
    pub(super) fn start_undo_record(&mut self) {
        if !self.p.undo {
            return;
        }
        let retransmissions_out = self.board.retransmitted_bytes().div_ceil(self.mss()) as u32;
        self.recovery.undo = Some(UndoRecord::new(
            self.snd_una,
            self.cc.cwnd(),
            self.cc.ssthresh(),
            self.recovery.phase == Phase::Open,
            retransmissions_out,
        ));
    }

    /// Takes the last reduction back (RFC 4015's response as Linux's
    /// `tcp_undo_cwnd_reduction`): the window and threshold it replaced, the open
    /// state, and with `unmark_loss` every loss mark (the data was only delayed).
    pub(super) fn undo_reduction(&mut self, unmark_loss: bool) {
        let Some(undo) = self.recovery.undo.take() else {
            return;
        };
        self.cc.undo_reduction(undo.prior_cwnd, undo.prior_ssthresh);
        if unmark_loss {
            self.board.unmark_lost();
        }
        self.recovery.phase = Phase::Open;
        self.recovery.prr = None;
        self.recovery.halving = None;
        self.recovery.ns2_halving = None;
        self.recovery.sack1_pipe = None;
        self.recovery.inflation = 0;
        self.recovery.frto = false;
        self.stats.undos += 1;
    }

    /// An ACK after a timeout (Linux `tcp_process_loss`): F-RTO's steps (RFC 5682
    /// section 3, SACK-enhanced), then the end of timeout recovery once everything sent
    /// before the timeout is acknowledged, undoing it if the evidence says so.
    /// `original_delivered`: the lowest end of never-retransmitted data the ACK
    /// covers; `loss_seen`: it SACKs new data or is a duplicate.
    pub(super) fn on_ack_after_timeout(
        &mut self,
        now: SimTime,
        prior_una: u64,
        original_delivered: Option<u64>,
        loss_seen: bool,
        ts_ecr: Option<u64>,
    ) {
        let recovered = self.snd_una >= self.recovery.recover;
        if self.recovery.frto {
            // Only data sent before the timeout proves anything (Linux counts
            // FLAG_ORIG_SACK_ACKED up to high_seq): new data is not in doubt.
            if original_delivered.is_some_and(|end| end <= self.recovery.recover)
                && self.recovery.undo.is_some()
            {
                // Step 2a / 3b: the originals arrived; the timeout was spurious.
                self.undo_reduction(true);
                return;
            }
            if self.snd_nxt > self.recovery.recover {
                if loss_seen {
                    self.recovery.frto = false; // step 3a: the loss was real
                }
            } else if self.snd_una > prior_una && !recovered {
                // Step 2b: send new data and see what the next ACKs say.
                let more = self.snd_nxt < self.written_by(now);
                if more && self.snd_nxt < self.snd_una + self.rwnd.min(self.p.max_window) {
                    self.recovery.frto_new_data = true;
                    return;
                }
                self.recovery.frto = false;
            }
        }
        if recovered {
            if self.recovery.undo.is_some_and(|u| u.may_undo(ts_ecr)) {
                self.undo_reduction(false);
            } else {
                self.recovery.phase = Phase::Open;
                self.recovery.frto = false;
                self.forget_marks_if_ns2_linux();
            }
        } else if self.recovery.undo.is_some_and(|u| u.may_undo(ts_ecr)) {
            self.undo_reduction(true); // Linux tcp_try_undo_loss
        }
    }

    /// ns-2.35's TCP/Linux clears its scoreboard whenever a recovery (fast or after a
    /// timeout) ends (`tcp_fastretrans_alert`: `ClearScoreBoard()` once `highest_ack_ >=
    /// recover_`), so a hole among the data sent during the recovery is found again
    /// from the next ACK's SACK blocks as a new loss — a new recovery and a second
    /// reduction — where Linux would have repaired it inside the first.
    pub(super) fn forget_marks_if_ns2_linux(&mut self) {
        if self.p.loss_detection == LossDetection::Ns2Linux {
            self.board.clear_marks();
        }
    }

    /// What a fast retransmit halves (RFC 5681 eq. 4's FlightSize, or the window as
    /// ns-2's `window()` and Linux's `ssthresh` ops read it).
    ///
    /// FlightSize is never taken above the window. RFC 5681 3.2 step 2 leaves Limited
    /// Transmit's segments out of it; and without SACK the data a long recovery sent
    /// beyond its holes stays outstanding until the last hole is repaired, so a loss
    /// among it found next would halve all of it — seconds of sending the path never
    /// held at once (ten NewReno flows with PRR on B1's dumbbell: a FlightSize of
    /// 25 MB against a window of 335 kB, ssthresh 12.5 MB, one flow starved).
    pub(super) fn reduction_basis(&self) -> u64 {
        match self.p.timeout_ssthresh {
            TimeoutSsthresh::FlightSize => self.board.outstanding().min(self.window_basis()),
            TimeoutSsthresh::Cwnd => self.window_basis(),
        }
    }

    /// What a timeout or a lost retransmission halves: FlightSize as RFC 6675 counts
    /// what is in the network — not what was SACKed, nor what was deemed lost and not
    /// resent (SND.NXT − SND.UNA would count the new data a recovery sent beyond the
    /// holes, and the old window a go-back-N is still resending: more than the path
    /// ever held; without SACK, less what duplicate ACKs reported delivered) — never
    /// above the window, as for a fast retransmit; or the window.
    ///
    /// The pipe alone can count what the window never let out: after a timeout has
    /// forgotten the SACKs (`sack_after_timeout = "forget"`) or F-RTO has taken back
    /// its loss marks, everything outstanding counts as in the network again. Found by
    /// the recovery fuzzer (recovery_fuzz_tests.rs): CUBIC with a window of 11 segments
    /// and 67 outstanding took ssthresh 46 from a pipe of 66 at a timeout, above any
    /// flight its window had allowed (34).
    pub(super) fn network_basis(&self) -> u64 {
        match self.p.timeout_ssthresh {
            TimeoutSsthresh::FlightSize => self.pipe().min(self.window_basis()),
            TimeoutSsthresh::Cwnd => self.window_basis(),
        }
    }

    /// ns-2's `window()`: min(cwnd, receiver's window), without recovery inflation.
    fn window_basis(&self) -> u64 {
        self.cc.cwnd().min(self.rwnd).min(self.p.max_window)
    }

    /// Whether an expiring timer reports congestion not yet answered by a reduction.
    ///
    /// A further expiry with nothing acknowledged since the last one never is (RFC 5681
    /// section 3.1: ssthresh is not lowered again while the same segment is backed
    /// off). With `OncePerWindow` (Linux's `tcp_enter_loss`: ca_state ≤ Disorder, or
    /// snd_una past high_seq, or Loss with progress since the last expiry) neither is
    /// a timeout inside the window a fast retransmit already answered: the one
    /// reduction per window of data that RFC 5681 and 6582 make, whose ssthresh came
    /// from the window that actually overflowed. `PerTimeout` is ns-2.35: every expiry
    /// calls `slowdown(CLOSE_SSTHRESH_HALF)` (`TcpAgent::timeout`, tcp.cc) or the
    /// module's `ssthresh()` (`LinuxTcpAgent::enter_loss`, whose guard of Linux's is
    /// commented out), backed-off repeats included: the second expiry halves a window
    /// of one segment, so ssthresh falls to its floor of two.
    pub(super) fn timeout_is_new_congestion_event(&self) -> bool {
        let progressed = self.last_timeout_una != Some(self.snd_una);
        match self.p.timeout_reduction {
            TimeoutReduction::PerTimeout => true,
            TimeoutReduction::OncePerWindow => {
                self.snd_una >= self.recovery.recover
                    || (self.recovery.phase == Phase::TimeoutRecovery && progressed)
            }
        }
    }

    /// Linux `tcp_retransmit_timer` with linear timeouts: an established thin stream
    /// (`tcp_stream_is_thin`: fewer than 4 segments out, ssthresh set) recomputes its
    /// RTO for the first `TCP_THIN_LINEAR_RETRIES` timeouts in a row instead of backing
    /// it off (RFC 6298 (5.5)).
    fn keeps_rto_after_timeout(&self) -> bool {
        /// Linux `TCP_THIN_LINEAR_RETRIES`.
        const THIN_LINEAR_RETRIES: u32 = 6;
        self.p.thin_linear_timeouts
            && self.conn == Connection::Established
            && self.board.segments() < 4
            && self.cc.ssthresh() != u64::MAX
            && self.timeouts_in_a_row <= THIN_LINEAR_RETRIES
    }

    /// The retransmission timer expired (RFC 6298 (5.4)–(5.6), RFC 5681 3.1).
    pub(super) fn on_timeout(&mut self, now: SimTime, out: &mut Outbox) {
        self.stats.rto_count += 1;
        let new_event = self.timeout_is_new_congestion_event();
        let repeated = self.last_timeout_una == Some(self.snd_una);
        self.last_timeout_una = Some(self.snd_una);
        let basis = self.network_basis();
        if new_event {
            self.start_undo_record();
        }
        // Linux tcp_enter_loss: F-RTO judges a timeout from the open state, or a
        // repeated one; not the first timeout inside a fast recovery.
        self.recovery.frto = self.p.frto && (self.recovery.phase == Phase::Open || repeated);
        self.cc.on_retransmission_timeout(now, basis, new_event);
        if let Some(flight) = self.recovery.flight_at_loss.take().filter(|_| !new_event) {
            // Inside the recovery the reduction stands (one per window), but it was
            // made from the window at the loss's detection: after a slow-start
            // overshoot up to twice what was in flight when the loss happened, less a
            // gentle algorithm's decrease (Scalable: 155 segments where 96 were in
            // flight), and every slow start after a timeout would overflow again.
            self.cc.limit_ssthresh(flight);
        }
        self.timeouts_in_a_row += 1;
        if self.keeps_rto_after_timeout() {
            self.rtt.reset_backoff();
        } else {
            self.rtt.on_timeout();
        }
        self.rtt_timer.cancel();
        self.growth_delayed = false;
        if self.p.sack_after_timeout == SackAfterTimeout::Forget {
            self.board.forget_sacks();
        }
        self.board.mark_all_lost(now);
        self.recovery.phase = Phase::TimeoutRecovery;
        self.loss_timers = LossTimers::default();
        self.tlp_high_seq = None;
        self.recovery.prr = None;
        self.recovery.halving = None;
        self.recovery.ns2_halving = None;
        self.recovery.sack1_pipe = None;
        self.recovery.recover = self.snd_nxt;
        self.recovery.inflation = 0;
        self.recovery.reno_sacked = 0; // Linux tcp_enter_loss: tcp_reset_reno_sack
        self.recovery.dupacks = 0;
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
