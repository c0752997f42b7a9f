//! Acknowledgements: cumulative and selective (RFC 5681, 6582, 6675, 2883 D-SACKs),
//! RTT samples (RFC 6298, 7323), and the facts each ACK hands to loss detection,
//! recovery and the congestion-control algorithm.

use super::*;

/// RFC 2883 section 4: the first SACK block reports a duplicate (a D-SACK) when it
/// lies below the cumulative ACK or inside the second block.
pub(super) fn first_block_is_dsack(seg: &TcpSegment) -> bool {
    let mut blocks = seg.sack_blocks();
    let Some((left, right)) = blocks.next() else {
        return false;
    };
    right <= seg.ack || blocks.next().is_some_and(|(l, r)| l <= left && right <= r)
}

impl TcpSender {
    /// The SYN-ACK: the connection is open; its RTT is the first sample (RFC 6298 (2.2)).
    pub(super) fn on_syn_ack(&mut self, now: SimTime, seg: &TcpSegment, out: &mut Outbox) {
        let acked = self.board.ack_to(seg.ack);
        if let Some(sent) = acked.rtt_sample_from {
            self.rtt.sample_between(sent, now, RttSource::Timed);
            self.stats.record_rtt(self.rtt.srtt());
        }
        self.conn = Connection::Established;
        self.snd_una = seg.ack;
        self.rwnd = seg.window;
        self.ts_recent = seg.ts_val();
        self.rto_at = None;
        self.transmit(now, out);
    }

    /// Processes an acknowledgement (RFC 5681, 6582, 6675).
    pub(super) fn on_ack(&mut self, now: SimTime, seg: &TcpSegment, out: &mut Outbox) {
        self.rwnd = seg.window;
        if let Some(val) = seg.ts_val() {
            self.ts_recent = Some(val);
        }
        let mss = self.mss();
        // The timestamp echo, for RACK and the undo tests (RFC 7323 section 4.3).
        let ts_ecr = seg.ts_ecr().filter(|_| self.p.timestamps);
        let min_rtt = self.rtt.min_rtt();
        if let Some(rack) = self.board.rack_mut() {
            rack.begin_ack(now, min_rtt, ts_ecr);
        }
        let prior_una = self.snd_una;
        let losses_before = self.board.losses_marked();
        let retransmissions_lost_before = self.board.retransmissions_lost();
        // The pipe, as the algorithm sees it: without SACK, less the segments the
        // duplicate ACKs reported delivered (Linux `tcp_packets_in_flight` subtracts
        // `sacked_out`, which counts them).
        let prior_in_flight = self.pipe();
        // The ACK that ends a recovery still belongs to it (no growth on it: RFC 6582
        // sets cwnd to ssthresh, Linux does not grow in recovery) — except in ns-2's
        // window arithmetic, whose Reno and NewReno deflate and then `opencwnd`.
        let mut in_recovery = self.recovery.phase == Phase::FastRecovery;
        let mut sacked = Sacked::default();
        let mut dsack = false;
        // RFC 2018 section 8 (`SackAfterTimeout::Forget`): until the timeout's recovery
        // ends the sender goes back N without reading SACK blocks.
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
        let mut original_delivered = sacked.original_delivered;
        let mut newest = sacked.newest;
        let mut delivered = sacked.bytes;
        let mut newly_acked = 0;
        let mut rtt = None;
        if seg.ack > self.snd_una {
            let acked = self.board.ack_to(seg.ack);
            original_delivered = match (original_delivered, acked.original_delivered) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            newly_acked = acked.bytes;
            delivered += if self.p.recovery == Recovery::Sack {
                acked.newly_delivered
            } else {
                self.take_back_reno_sacks(acked.bytes)
            };
            newest = acked.newest.map(|n| n.newest(newest)).or(newest);
            if self.recovery.phase == Phase::TimeoutRecovery {
                // Linux `tcp_process_loss` (Reno): an ACK of new data after a timeout
                // forgets the duplicates counted so far.
                self.recovery.reno_sacked = 0;
            }
            self.snd_una = seg.ack;
            self.recovery.dupacks = 0;
            // RFC 6298 (5.3); impatient NewReno makes an exception for partial ACKs.
            let mut restart_timer = true;
            // Only the once-per-RTT mode keeps a timed segment (nothing to do otherwise).
            let timed = match self.p.rtt_sampling {
                RttSampling::OncePerRtt => self.rtt_timer.on_ack(seg.ack),
                RttSampling::EveryAck => None,
            };
            let sample = match (self.p.timestamps, seg.ts_ecr(), self.p.rtt_sampling) {
                (true, Some(ecr), _) => Some((SimTime(ecr), RttSource::Timestamp)),
                (_, _, RttSampling::EveryAck) => {
                    acked.rtt_sample_from.map(|sent| (sent, RttSource::Timed))
                }
                (_, _, RttSampling::OncePerRtt) => timed.map(|sent| (sent, RttSource::Timed)),
            };
            if let Some((sent, source)) = sample {
                self.rtt.sample_between(sent, now, source);
                self.stats.record_rtt(self.rtt.srtt());
            }
            // The algorithm measures every ACK whatever the estimator's rule: ns-2's
            // once-per-RTT timing (`rtt_active_`) feeds only its RTO, while its Vegas
            // keeps each segment's send time (`v_sendtime_`). Linux gives its modules
            // the newest segment acknowledged (`tcp_clean_rtx_queue`'s `ca_rtt_us`
            // from `last_ackt`), the timestamp echo only when retransmitted data was
            // acknowledged: a delayed ACK's echo is its older segment's, and would add
            // the wait for the second to every sample.
            rtt = acked
                .rtt_sample_from
                .or(seg.ts_ecr().filter(|_| self.p.timestamps).map(SimTime))
                .map(|sent| now - sent);
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
                    in_recovery &=
                        !(self.inflates_window() && self.p.cwnd_counting == CwndCounting::Ns2);
                    self.recovery.inflation = 0;
                    self.recovery.prr = None;
                    self.recovery.sack1_pipe = None;
                    self.cc.on_recovery_end(now);
                    if let Some(halving) = self.recovery.halving.take() {
                        // Linux 2.6 tcp_complete_cwr: cwnd = min(cwnd, ssthresh), where
                        // rate halving has taken cwnd.
                        self.cc.limit_cwnd(halving.cwnd());
                    }
                    if let Some(halving) = self.recovery.ns2_halving.take() {
                        let (ssthresh, outstanding) =
                            (self.cc.ssthresh(), self.board.outstanding());
                        self.cc
                            .limit_cwnd(halving.exit_cwnd(ssthresh, outstanding, self.mss()));
                    }
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
                        restart_timer = self.p.newreno_timer == NewRenoTimer::SlowButSteady
                            || !self.recovery.partial_ack_restarted_timer;
                        self.recovery.partial_ack_restarted_timer = true;
                        // RFC 6582 3.2 step 3, partial ACK: retransmit the next hole,
                        // deflate by the amount acknowledged, add back one SMSS.
                        self.board.mark_first_lost();
                        if self.inflates_window() {
                            self.recovery.inflation -= acked.bytes as i64;
                            if acked.bytes >= mss {
                                self.recovery.inflation += mss as i64;
                            }
                        }
                    }
                }
                Phase::TimeoutRecovery | Phase::Open => {}
            }
            // RFC 6298 (5.2)/(5.3): stop when all is acknowledged, else restart.
            if self.board.is_empty() {
                self.rto_at = None;
            } else if restart_timer {
                self.rto_at = Some(now + self.rtt.rto());
            }
        } else if seg.ack == self.snd_una && !self.board.is_empty() && seg.payload_bytes == 0 {
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
                delivered += self.add_reno_sack(mss);
            }
        }
        match self.recovery.phase {
            Phase::TimeoutRecovery => {
                let duplicate = seg.ack == prior_una && seg.payload_bytes == 0;
                self.on_ack_after_timeout(
                    now,
                    prior_una,
                    original_delivered,
                    sacked.bytes > 0 || duplicate,
                    ts_ecr,
                );
            }
            // Linux tcp_try_undo_dsack: every retransmission of the last reduction
            // reported a duplicate, in recovery or after it.
            _ if dsack
                && self
                    .recovery
                    .undo
                    .is_some_and(|u| u.all_retransmissions_duplicated()) =>
            {
                self.undo_reduction(false);
            }
            _ => {}
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
        if self.tlp_high_seq.is_some() {
            let pure_duplicate =
                dsack || (seg.ack == prior_una && delivered == 0 && seg.payload_bytes == 0);
            self.on_probe_ack(now, seg.ack, pure_duplicate);
        }
        let (lost_found, count_dupacks) = match self.p.loss_detection {
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
        };
        let dupthresh_reached = count_dupacks && self.recovery.dupacks as usize >= DUP_THRESH;
        if self.board.retransmissions_lost() > retransmissions_lost_before {
            self.on_lost_retransmission(now);
        }
        if self.recovery.phase == Phase::Open && (dupthresh_reached || lost_found) {
            self.enter_fast_recovery(now);
        } else if self.recovery.prr.is_some() {
            let (pipe, ssthresh) = (self.pipe(), self.cc.ssthresh());
            let safe_ack = self.snd_una > prior_una && self.board.losses_marked() == losses_before;
            if let Some(prr) = &mut self.recovery.prr {
                prr.on_ack(delivered, pipe, ssthresh, mss, safe_ack);
            }
        }
        if in_recovery {
            if let Some(counter) = &mut self.recovery.sack1_pipe {
                counter.on_ack(self.snd_una > prior_una);
            }
        }
        if self.recovery.halving.is_some() {
            // Linux runs tcp_cwnd_down on every ACK in recovery, the first included,
            // with the pipe after the fast retransmit's marking.
            let (pipe, min_cwnd) = (self.pipe(), self.cc.min_cwnd());
            if let Some(halving) = &mut self.recovery.halving {
                halving.on_ack(delivered > 0, pipe, min_cwnd, mss);
            }
        }
        if self.recovery.ns2_halving.is_some() {
            let pipe = self.pipe();
            if let Some(halving) = &mut self.recovery.ns2_halving {
                halving.on_opportunity(pipe, mss); // send_much, run after every ACK
            }
        }
        if self.p.tail_loss_probe && self.snd_una > prior_una {
            self.arm_loss_probe(now); // RFC 8985 7.2: restarted by an ACK of new data
        }
        self.transmit(now, out);
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
    // The ACK's facts, each from a different part of the sender; a struct built only to
    // be taken apart here would not be clearer.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn report_ack(
        &mut self,
        now: SimTime,
        newly_acked: u64,
        delivered: u64,
        newest: Option<crate::transport::tcp::rate::Delivered>,
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
