//! Acknowledgements: cumulative and selective (RFC 5681, 6582, 6675, 2883 D-SACKs),
//! RTT samples (RFC 6298, 7323), and the facts each ACK hands to loss detection,
//! recovery and the congestion-control algorithm.

use super::*;
use crate::config::STEADY_HOLES;
use crate::transport::tcp::rate::Delivered;
use crate::transport::tcp::scoreboard::Acked;

/// RFC 2883 section 4: the first SACK block reports a duplicate (a D-SACK) when it
/// lies below the cumulative ACK or inside the second block.
pub(super) fn first_block_is_dsack(seg: &TcpSegment) -> bool {
    let mut blocks = seg.sack_blocks();
    let Some((left, right)) = blocks.next() else {
        return false;
    };
    right <= seg.ack || blocks.next().is_some_and(|(l, r)| l <= left && right <= r)
}

/// The sender's state before an ACK, for what the ACK changed.
struct BeforeAck {
    /// SND.UNA.
    una: u64,
    /// Segments the scoreboard had marked lost.
    losses_marked: u64,
    /// Retransmissions it had found lost.
    retransmissions_lost: u64,
    /// The pipe as the algorithm sees it (`AckEvent::prior_in_flight`).
    in_flight: u64,
}

/// What one ACK reported, gathered while it is read and handed to the algorithm, loss
/// detection and the recovery window.
#[derive(Clone, Copy)]
struct AckFacts {
    /// Bytes the cumulative ACK advanced.
    newly_acked: u64,
    /// Bytes newly delivered: SACKed, cumulatively acknowledged beyond what was
    /// SACKed, or reported by a duplicate ACK without SACK.
    delivered: u64,
    /// Bytes newly SACKed.
    sacked: u64,
    /// The newest segment newly delivered, for the delivery-rate sample.
    newest: Option<Delivered>,
    /// The lowest end of a newly delivered segment never retransmitted.
    original_delivered: Option<u64>,
    /// The algorithm's RTT sample.
    rtt: Option<SimTime>,
    /// The first SACK block reported a duplicate (RFC 2883).
    dsack: bool,
    /// The algorithm sees this ACK as one in recovery.
    in_recovery: bool,
}

impl TcpSender {
    /// The SYN-ACK: the connection is open; its RTT is the first sample (RFC 6298 (2.2)).
    pub(super) fn on_syn_ack(&mut self, now: SimTime, seg: &TcpSegment, out: &mut Outbox) {
        let acked = self.board.ack_to(seg.ack);
        if let Some(sent) = acked.rtt_sample_from {
            self.feed_rto_estimator(sent, now, RttSource::Timed);
        }
        self.conn = Connection::Established;
        self.snd_una = seg.ack;
        self.rwnd = seg.window;
        self.ts_recent = seg.ts_val();
        self.rto_at = None;
        self.transmit(now, out);
    }

    /// Processes an acknowledgement (RFC 5681, 6582, 6675): what it reports (SACK
    /// blocks, then the cumulative ACK or a duplicate), the undo checks, the
    /// algorithm's view of it, loss detection, then the recovery window and sending.
    pub(super) fn on_ack(&mut self, now: SimTime, seg: &TcpSegment, out: &mut Outbox) {
        self.rwnd = seg.window;
        if let Some(val) = seg.ts_val() {
            self.ts_recent = Some(val);
        }
        // The timestamp echo, for RACK and the undo tests (RFC 7323 section 4.3).
        let ts_ecr = seg.ts_ecr().filter(|_| self.p.timestamps);
        let min_rtt = self.rtt.min_rtt();
        if let Some(rack) = self.board.rack_mut() {
            rack.begin_ack(now, min_rtt, ts_ecr);
        }
        let before = BeforeAck {
            una: self.snd_una,
            losses_marked: self.board.losses_marked(),
            retransmissions_lost: self.board.retransmissions_lost(),
            // The pipe, as the algorithm sees it: without SACK, less the segments the
            // duplicate ACKs reported delivered (Linux `tcp_packets_in_flight`
            // subtracts `sacked_out`, which counts them).
            in_flight: self.pipe(),
        };
        let mut facts = self.read_sack_blocks(seg);
        if seg.ack > self.snd_una {
            self.on_new_ack(now, seg, ts_ecr, &mut facts);
        } else if seg.ack == self.snd_una && !self.board.is_empty() && seg.payload_bytes == 0 {
            if let Some(echo) = ts_ecr.filter(|_| self.p.rtt_samples_from_duplicates) {
                // Before the timer restarts on it, as ns-2's `timerfix_` orders them.
                self.feed_rto_estimator(SimTime(echo), now, RttSource::Timestamp);
            }
            facts.delivered += self.on_duplicate_ack(now);
        }
        self.check_undo_after_ack(now, seg, &before, &facts, ts_ecr);
        self.report_ack(now, &facts, before.in_flight);
        if self.board.is_empty() && self.fin_sent && seg.ack >= self.snd_nxt {
            self.conn = Connection::Closed;
            return;
        }
        if self.tlp_high_seq.is_some() {
            let pure_duplicate = facts.dsack
                || (seg.ack == before.una && facts.delivered == 0 && seg.payload_bytes == 0);
            self.on_probe_ack(now, seg.ack, pure_duplicate);
        }
        let (lost_found, count_dupacks) = self.mark_losses(now);
        let dupthresh_reached = count_dupacks && self.recovery.dupacks as usize >= DUP_THRESH;
        if self.board.retransmissions_lost() > before.retransmissions_lost {
            self.on_lost_retransmission(now);
        }
        let starts_recovery =
            self.recovery.phase == Phase::Open && (dupthresh_reached || lost_found);
        if starts_recovery {
            self.enter_fast_recovery(now);
        }
        self.update_recovery_window(&before, &facts, starts_recovery);
        if self.p.tail_loss_probe && self.snd_una > before.una {
            self.arm_loss_probe(now); // RFC 8985 7.2: restarted by an ACK of new data
        }
        self.transmit(now, out);
    }

    /// RFC 2018's blocks of an ACK marked on the scoreboard, the first reported to the
    /// undo state instead when it is a D-SACK (RFC 2883). Until a timeout's recovery
    /// ends with `SackAfterTimeout::Forget` (RFC 2018 section 8) the sender goes back
    /// N without reading them.
    fn read_sack_blocks(&mut self, seg: &TcpSegment) -> AckFacts {
        // The ACK that ends a recovery still belongs to it (no growth on it: RFC 6582
        // sets cwnd to ssthresh, Linux does not grow in recovery) — except in ns-2's
        // window arithmetic, whose Reno and NewReno deflate and then `opencwnd`.
        let in_recovery = self.recovery.phase == Phase::FastRecovery;
        let mut sacked = Sacked::default();
        let mut dsack = false;
        let reads_sacks = self.p.recovery == Recovery::Sack
            && !(self.recovery.phase == Phase::TimeoutRecovery
                && self.p.sack_after_timeout == SackAfterTimeout::Forget);
        if reads_sacks {
            dsack = first_block_is_dsack(seg);
            for (i, (left, right)) in seg.sack_blocks().enumerate() {
                if i == 0 && dsack {
                    if let Some(undo) = &mut self.recovery.undo {
                        undo.on_dsack(right);
                    }
                    continue; // a report of a duplicate, not of new data
                }
                self.board.sack(left, right, &mut sacked);
            }
        }
        AckFacts {
            newly_acked: 0,
            delivered: sacked.bytes,
            sacked: sacked.bytes,
            newest: sacked.newest,
            original_delivered: sacked.original_delivered,
            rtt: None,
            dsack,
            in_recovery,
        }
    }

    /// An ACK of new data: the scoreboard and counters move on, the RTT is sampled,
    /// a recovery ends or repairs its next hole, and the timer restarts (RFC 6298
    /// (5.2)/(5.3)).
    fn on_new_ack(
        &mut self,
        now: SimTime,
        seg: &TcpSegment,
        ts_ecr: Option<u64>,
        facts: &mut AckFacts,
    ) {
        let acked = self.board.ack_to(seg.ack);
        facts.original_delivered = match (facts.original_delivered, acked.original_delivered) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        facts.newly_acked = acked.bytes;
        facts.delivered += if self.p.recovery == Recovery::Sack {
            acked.newly_delivered
        } else {
            self.take_back_reno_sacks(acked.bytes)
        };
        facts.newest = acked
            .newest
            .map(|n| n.newest(facts.newest))
            .or(facts.newest);
        if self.recovery.phase == Phase::TimeoutRecovery {
            // Linux `tcp_process_loss` (Reno): an ACK of new data after a timeout
            // forgets the duplicates counted so far.
            self.recovery.reno_sacked = 0;
        }
        let prior_una = self.snd_una;
        self.snd_una = seg.ack;
        let dupacks = std::mem::take(&mut self.recovery.dupacks);
        self.timeouts_in_a_row = 0;
        facts.rtt = self.sample_rtt(now, seg, &acked);
        if self.p.newreno_timer == NewRenoTimer::ByHoles
            && self.recovery.phase == Phase::FastRecovery
            && !self.recovery.partial_ack_restarted_timer
        {
            self.recovery.steady_timer =
                self.holes_at_first_partial_ack(prior_una, dupacks) <= STEADY_HOLES;
            if self.recovery.steady_timer {
                self.recovery.flight_at_loss = None; // no timeout expected
            }
        }
        // RFC 6298 (5.3); impatient NewReno makes an exception for partial ACKs.
        let restart_timer = self.recovery_on_new_ack(now, seg, ts_ecr, &acked, facts);
        // RFC 6298 (5.2)/(5.3): stop when all is acknowledged, else restart.
        if self.board.is_empty() {
            self.rto_at = None;
        } else if restart_timer {
            self.rto_at = Some(now + self.rtt.rto());
        }
    }

    /// One RTT sample, of a segment (or echo) sent at `sent`, for the RTO estimator
    /// (RFC 6298 (2.2)/(2.3)); the flow's SRTT statistics follow it.
    fn feed_rto_estimator(&mut self, sent: SimTime, now: SimTime, source: RttSource) {
        self.rtt.sample_between(sent, now, source);
        self.stats.record_rtt(self.rtt.srtt());
    }

    /// Feeds the RTO estimator by its sampling rule and returns the algorithm's RTT
    /// sample for this ACK.
    fn sample_rtt(&mut self, now: SimTime, seg: &TcpSegment, acked: &Acked) -> Option<SimTime> {
        // Only the once-per-RTT mode keeps a timed segment (nothing to do otherwise).
        let timed = match self.p.rtt_sampling {
            RttSampling::OncePerRtt => self.rtt_timer.on_ack(seg.ack),
            RttSampling::EveryAck => None,
        };
        // The timestamp echo, when this sender uses timestamps (RFC 7323 section 4.1).
        let echoed = seg.ts_ecr().filter(|_| self.p.timestamps).map(SimTime);
        let sample = match (echoed, self.p.rtt_sampling) {
            (Some(sent), _) => Some((sent, RttSource::Timestamp)),
            (None, RttSampling::EveryAck) => {
                acked.rtt_sample_from.map(|sent| (sent, RttSource::Timed))
            }
            (None, RttSampling::OncePerRtt) => timed.map(|sent| (sent, RttSource::Timed)),
        };
        if let Some((sent, source)) = sample {
            self.feed_rto_estimator(sent, now, source);
        }
        // The algorithm measures every ACK whatever the estimator's rule: ns-2's
        // once-per-RTT timing (`rtt_active_`) feeds only its RTO, while its Vegas
        // keeps each segment's send time (`v_sendtime_`). Linux gives its modules
        // the newest segment acknowledged (`tcp_clean_rtx_queue`'s `ca_rtt_us`
        // from `last_ackt`), the timestamp echo only when retransmitted data was
        // acknowledged: a delayed ACK's echo is its older segment's, and would add
        // the wait for the second to every sample.
        acked.rtt_sample_from.or(echoed).map(|sent| now - sent)
    }

    /// What an ACK of new data does to a fast recovery: a full ACK ends it (or undoes
    /// it, Linux `tcp_try_undo_recovery`), a partial one repairs the next hole (RFC
    /// 6582 3.2 step 3) or undoes it (`tcp_try_undo_partial`). Returns whether the
    /// retransmission timer restarts (impatient NewReno restarts it on the first
    /// partial ACK only).
    fn recovery_on_new_ack(
        &mut self,
        now: SimTime,
        seg: &TcpSegment,
        ts_ecr: Option<u64>,
        acked: &Acked,
        facts: &mut AckFacts,
    ) -> bool {
        let mss = self.mss();
        let mut restart_timer = true;
        match self.recovery.phase {
            Phase::FastRecovery
                if seg.ack >= self.recovery.recover
                    && self.recovery.undo.is_some_and(|u| u.may_undo(ts_ecr)) =>
            {
                self.undo_reduction(false); // Linux tcp_try_undo_recovery
            }
            Phase::FastRecovery
                if seg.ack >= self.recovery.recover || self.p.recovery == Recovery::Reno =>
            {
                self.recovery.phase = Phase::Open; // full ACK (or any new ACK for Reno)
                self.forget_marks_if_ns2_linux();
                facts.in_recovery &=
                    !(self.inflates_window() && self.p.cwnd_counting == CwndCounting::Ns2);
                self.end_fast_recovery(now);
            }
            Phase::FastRecovery
                if self
                    .recovery
                    .undo
                    .is_some_and(|u| u.echo_predates_retransmission(ts_ecr)) =>
            {
                // Linux tcp_try_undo_partial: the original of the retransmitted
                // segment was only delayed (reordering).
                self.undo_reduction(true);
            }
            Phase::FastRecovery => {
                if self.p.recovery == Recovery::NewReno {
                    restart_timer =
                        self.recovery.steady_timer || !self.recovery.partial_ack_restarted_timer;
                    self.recovery.partial_ack_restarted_timer = true;
                    // RFC 6582 3.2 step 3, partial ACK: retransmit the next hole,
                    // deflate by the amount acknowledged, add back one SMSS.
                    self.board.mark_first_lost();
                    if self.inflates_window() {
                        // The retransmission goes whatever the window says (ns-2's
                        // `output(last_ack_ + 1, 0)`); only new data waits for cwnd.
                        // PRR and rate halving meter it as Linux does.
                        self.recovery.fast_retransmit_due = true;
                        self.recovery.inflation -= acked.bytes as i64;
                        if acked.bytes >= mss {
                            self.recovery.inflation += mss as i64;
                        }
                    }
                }
            }
            Phase::TimeoutRecovery | Phase::Open => {}
        }
        restart_timer
    }

    /// The segments still missing when a recovery's first partial ACK arrives, with
    /// SND.UNA at `prior_una` and `dupacks` duplicate ACKs before it: each segment
    /// that reached the receiver above the first hole was acknowledged at once (RFC
    /// 5681 section 4.2) with a duplicate, and the retransmission, sent first, is
    /// acknowledged before the new data sent during the recovery; what was
    /// outstanding from the hole when the recovery began (up to `recover`) and was
    /// not so reported is missing. Lost ACKs make it an overestimate.
    fn holes_at_first_partial_ack(&self, prior_una: u64, dupacks: u32) -> u64 {
        let outstanding = self.recovery.recover.saturating_sub(prior_una);
        outstanding
            .div_ceil(self.mss())
            .saturating_sub(dupacks as u64)
    }

    /// The end of a fast recovery (a full ACK, or any new ACK for Reno): the window
    /// arithmetic of the recovery is dropped and the algorithm told; after Linux 2.6's
    /// rate halving, cwnd = min(cwnd, ssthresh) (`tcp_complete_cwr`).
    fn end_fast_recovery(&mut self, now: SimTime) {
        self.recovery.inflation = 0;
        self.recovery.prr = None;
        self.recovery.sack1_pipe = None;
        self.cc.on_recovery_end(now);
        if let Some(halving) = self.recovery.halving.take() {
            // Rate halving has taken cwnd.
            self.cc.limit_cwnd(halving.cwnd());
        }
        if let Some(halving) = self.recovery.ns2_halving.take() {
            let (ssthresh, outstanding) = (self.cc.ssthresh(), self.board.outstanding());
            self.cc
                .limit_cwnd(halving.exit_cwnd(ssthresh, outstanding, self.mss()));
        }
    }

    /// A duplicate ACK (RFC 5681 section 2): counted; in fast recovery it inflates the
    /// window (RFC 5681 3.2 step 4), or without SACK and inflation it reports a segment
    /// delivered. Returns the bytes it counts as delivered.
    fn on_duplicate_ack(&mut self, now: SimTime) -> u64 {
        let mss = self.mss();
        self.recovery.dupacks += 1;
        if self.p.restart_rto_on_duplicates {
            self.rto_at = Some(now + self.rtt.rto());
        }
        if self.inflates_window() {
            if self.recovery.phase == Phase::FastRecovery {
                self.recovery.inflation += mss as i64; // RFC 5681 3.2 step 4
            }
        } else if self.p.recovery != Recovery::Sack
            && (self.recovery.phase != Phase::TimeoutRecovery
                || self.snd_nxt > self.recovery.recover)
        {
            // After a timeout the duplicates echo the go-back-N resending what
            // the receiver holds: nothing new left the network — until data
            // beyond what was outstanding at the timeout has been sent (F-RTO's
            // new data, or the go-back-N run past it). Then each one reports a
            // segment delivered, to clock out the rest (Linux `tcp_process_loss`).
            return self.add_reno_sack(mss);
        }
        0
    }

    /// After a timeout, what the ACK says about it (F-RTO, undo: `on_ack_after_timeout`);
    /// otherwise Linux's `tcp_try_undo_dsack`: every retransmission of the last
    /// reduction reported a duplicate, in recovery or after it.
    fn check_undo_after_ack(
        &mut self,
        now: SimTime,
        seg: &TcpSegment,
        before: &BeforeAck,
        facts: &AckFacts,
        ts_ecr: Option<u64>,
    ) {
        match self.recovery.phase {
            Phase::TimeoutRecovery => {
                let duplicate = seg.ack == before.una && seg.payload_bytes == 0;
                self.on_ack_after_timeout(
                    now,
                    before.una,
                    facts.original_delivered,
                    facts.sacked > 0 || duplicate,
                    ts_ecr,
                );
            }
            _ if facts.dsack
                && self
                    .recovery
                    .undo
                    .is_some_and(|u| u.all_retransmissions_duplicated()) =>
            {
                self.undo_reduction(false);
            }
            _ => {}
        }
    }

    /// Marks lost what the profile's loss detection finds lost after this ACK. Returns
    /// (something was marked lost, whether the duplicate-ACK count also starts a
    /// recovery).
    fn mark_losses(&mut self, now: SimTime) -> (bool, bool) {
        match self.p.loss_detection {
            _ if self.p.recovery != Recovery::Sack => (false, true),
            LossDetection::DupThresh => (self.board.mark_lost_by_sack(), true),
            LossDetection::Holes => {
                // Sack1 resends holes only once in recovery; the ACK that starts it
                // sends the first segment alone (`dupack_action`).
                if self.recovery.phase == Phase::FastRecovery {
                    self.board.mark_lost_below_highest_sacked();
                }
                (false, true)
            }
            LossDetection::Fack => {
                let high_seq = if self.recovery.phase == Phase::Open {
                    self.snd_nxt
                } else {
                    self.recovery.recover
                };
                (self.board.mark_lost_by_fack(high_seq), true)
            }
            LossDetection::Ns2Linux => (self.board.mark_lost_by_ns2_linux_fack(), false),
            // Linux 6.x with RACK: recovery starts once anything is marked lost
            // (`tcp_time_to_recover`); RACK's reo_wnd of 0 at DupThresh SACKed
            // segments stands in for the duplicate-ACK count.
            LossDetection::Rack => (self.detect_losses_by_time(now, false), false),
        }
    }

    /// The recovery window's own bookkeeping on an ACK: PRR's budget (RFC 6937; not on
    /// the ACK that started the recovery, which set it up), ns-2 Sack1's pipe counter,
    /// Linux 2.6's rate halving (`tcp_cwnd_down`, on every ACK in recovery, the first
    /// included, with the pipe after the fast retransmit's marking) and ns-2
    /// TCP/Linux's (its `send_much`).
    fn update_recovery_window(&mut self, before: &BeforeAck, facts: &AckFacts, started: bool) {
        let mss = self.mss();
        if !started && self.recovery.prr.is_some() {
            let (pipe, ssthresh) = (self.pipe(), self.cc.ssthresh());
            let safe_ack =
                self.snd_una > before.una && self.board.losses_marked() == before.losses_marked;
            if let Some(prr) = &mut self.recovery.prr {
                prr.on_ack(facts.delivered, pipe, ssthresh, mss, safe_ack);
            }
        }
        if facts.in_recovery {
            if let Some(counter) = &mut self.recovery.sack1_pipe {
                counter.on_ack(self.snd_una > before.una);
            }
        }
        if self.recovery.halving.is_some() {
            let (pipe, min_cwnd) = (self.pipe(), self.cc.min_cwnd());
            if let Some(halving) = &mut self.recovery.halving {
                halving.on_ack(facts.delivered > 0, pipe, min_cwnd, mss);
            }
        }
        if self.recovery.ns2_halving.is_some() {
            let pipe = self.pipe();
            if let Some(halving) = &mut self.recovery.ns2_halving {
                halving.on_opportunity(pipe, mss); // send_much, run after every ACK
            }
        }
    }

    /// A duplicate ACK without SACK: one more segment has left the network (Linux
    /// `tcp_add_reno_sack`), as long as something beyond the first outstanding segment
    /// can account for it (`tcp_limit_reno_sacked`). Returns the bytes it counts as
    /// delivered.
    fn add_reno_sack(&mut self, mss: u64) -> u64 {
        let cap = self.board.outstanding().saturating_sub(mss);
        let before = self.recovery.reno_sacked;
        self.recovery.reno_sacked = (before + mss).min(cap.max(before));
        self.recovery.reno_sacked - before
    }

    /// A cumulative ACK of `acked` bytes without SACK: the duplicates that already
    /// reported part of it are taken back (Linux `tcp_remove_reno_sacks`: the ACK
    /// delivered what the duplicates had not counted, and at least the hole it filled).
    /// Returns the bytes newly delivered.
    fn take_back_reno_sacks(&mut self, acked: u64) -> u64 {
        if self.recovery.reno_sacked == 0 {
            return acked; // every ACK of a sender that inflates instead
        }
        let counted = self
            .recovery
            .reno_sacked
            .min(acked.saturating_sub(self.mss()));
        self.recovery.reno_sacked -= counted;
        acked - counted
    }

    /// Takes the delivery-rate sample and hands the ACK to the algorithm.
    fn report_ack(&mut self, now: SimTime, facts: &AckFacts, prior_in_flight: u64) {
        let AckFacts {
            newly_acked,
            delivered,
            newest,
            rtt,
            in_recovery,
            ..
        } = *facts;
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
                CwndCounting::Bytes | CwndCounting::Segments => newly_acked,
                CwndCounting::Acks | CwndCounting::Ns2 => newly_acked.min(self.mss()),
            },
            newly_acked_bytes: newly_acked,
            delivered_bytes: delivered,
            rtt,
            min_rtt: self.rtt.min_rtt(),
            srtt: self.rtt.srtt(),
            in_flight: self.pipe(),
            prior_in_flight,
            in_recovery,
            // ns-2's opencwnd runs on every new ACK, window-limited or not (its
            // `control_increase_` is off); its reductions halve min(cwnd, window).
            cwnd_limited: self.cwnd_limited || self.p.cwnd_counting == CwndCounting::Ns2,
            round_start: rate.round_start,
            round_count: self.rate.round_count(),
            rate: rate.sample,
            losses: self.board.losses_marked() - self.losses_reported,
        };
        self.losses_reported = self.board.losses_marked();
        self.cc.on_ack(&event);
        // Only an algorithm that reads rate samples can care (and only BBR holds back):
        // the others skip the call on every ACK.
        if self.rate_samples && self.cc.holds_back_sending() {
            self.rate.mark_app_limited(self.board.in_flight());
        }
    }
}
