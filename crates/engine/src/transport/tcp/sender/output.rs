//! Sending: what the windows allow to go now — retransmissions first (RFC 6675 NextSeg
//! rule 1), then new data within cwnd, the receiver's window and the send-window cap
//! (Nagle for runts, RFC 896), then the FIN — paced, jittered or in a burst.

use super::*;

/// Linux's `tcp_limit_output_bytes` default (4 MB since 6.16; 1 MB from 4.20).
const TCP_LIMIT_OUTPUT_BYTES: u64 = 4 << 20;

/// What [`TcpSender::held_by_small_queues`] checks: new data, or a retransmission (whose
/// limit is doubled).
#[derive(Debug, Clone, Copy)]
enum SmallQueueCheck {
    NewData = 0,
    Retransmission = 1,
}

impl TcpSender {
    /// Hands a segment to the network: the algorithm hears of it, the timer starts if
    /// none runs (RFC 6298 (5.1)), and pacing sets when the next may go.
    #[inline(always)]
    pub(super) fn emit(&mut self, now: SimTime, seg: TcpSegment, in_flight: u64, out: &mut Outbox) {
        let size = seg.ip_bytes_as(self.p.option_sizes, true);
        let payload = seg.payload_bytes as u64;
        self.cc.on_sent(now, payload, in_flight);
        out.send(size, TransportHeader::Tcp(seg));
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.rto()); // RFC 6298 (5.1)
        }
        if self.paced {
            if let Some(rate) = self.pacing_rate_bps() {
                // The segment's payload, not its packet: every pacing rate here is a
                // payload rate (BBR's delivery rate, cwnd / SRTT), and Linux's TCP
                // pacing spaces by the write queue's skb->len, the data alone
                // (tcp_update_skb_after_send). Spacing by the packet paced BBR at
                // 96.5% of its own estimate (1,448 of 1,500 bytes): 186 against the
                // kernel's 193 Mb/s on a 200 Mb/s path (tcplab emu).
                self.next_send_at = now + SimTime(round_ns(payload as f64 * 8e9 / rate));
            }
        }
    }

    /// One past the last sequence number the application has written by `now`.
    pub(super) fn written_by(&self, now: SimTime) -> u64 {
        if self.app.unlimited() && self.app.finished(now) {
            self.snd_nxt // a bulk source stopped: no more data
        } else {
            DATA_START.saturating_add(self.app.written_by(now))
        }
    }

    /// Send jitter: whether a transmission that the windows allow now must wait. The
    /// first such transmission of a sending opportunity draws the wait; everything the
    /// windows allow goes together when it ends (ns-2's `delsnd_timer_`).
    pub(super) fn held_by_jitter(&mut self, now: SimTime) -> bool {
        if self.p.send_jitter == SimTime::ZERO {
            return false;
        }
        let release = *self.jitter_release.get_or_insert_with(|| {
            let wait = (self.rng.uniform() * self.p.send_jitter.as_ns() as f64) as u64;
            now + SimTime(wait)
        });
        now < release
    }

    /// Whether the congestion window holds back `len` more bytes with `pipe` bytes in
    /// the network: RFC 6675's pipe + len > cwnd, in PRR recovery the budget of the
    /// last ACK, in rate-halving recovery its shrinking window, in ns-2 Sack1's its
    /// `pipe_` counter against whole segments of cwnd.
    #[inline(always)]
    pub(super) fn window_blocks(&self, pipe: u64, len: u64, cwnd: u64) -> bool {
        // The reductions' own rules exist only in fast recovery (checked first: the
        // common case costs one comparison).
        if self.recovery.phase != Phase::FastRecovery {
            pipe + len > cwnd
        } else if let Some(prr) = &self.recovery.prr {
            !prr.allows(len)
        } else if let Some(halving) = &self.recovery.halving {
            !halving.allows(pipe, len)
        } else if let Some(halving) = &self.recovery.ns2_halving {
            !halving.allows(pipe, len)
        } else if let Some(counter) = &self.recovery.sack1_pipe {
            !counter.allows(self.cc.cwnd() / self.mss())
        } else {
            pipe + len > cwnd
        }
    }

    /// ns-2 TCP/Linux's halving after a segment left with `pipe_after` bytes in flight.
    fn ns2_halving_sent(&mut self, pipe_after: u64) {
        let mss = self.mss();
        if let Some(halving) = &mut self.recovery.ns2_halving {
            halving.on_send(pipe_after, mss);
        }
    }

    /// RFC 3042: on the first two duplicate ACKs a new segment of `len` may go beyond
    /// cwnd as long as the outstanding data stays within cwnd + 2·SMSS (one segment per
    /// duplicate). With SACK the pipe already shrinks by what each duplicate SACKs, so
    /// this rarely adds anything there.
    pub(super) fn limited_transmit_allows(&self, len: u64) -> bool {
        self.p.limited_transmit
            && self.recovery.phase == Phase::Open
            && self.recovery.dupacks > 0
            && self.board.outstanding() + len
                <= self.cc.cwnd() + self.recovery.dupacks.min(2) as u64 * self.mss()
    }

    /// ns-2's `send_one()` after a timeout (`limited_transmit_after_timeout`): on the
    /// first two duplicate ACKs the go-back-N's next segment may go while the pipe stays
    /// within cwnd + one segment per duplicate (`t_seqno_ <= highest_ack_ + cwnd_ +
    /// dupacks_`). The duplicates come from segments the receiver already held.
    pub(super) fn go_back_n_may_exceed_cwnd(&self, pipe: u64, len: u64, cwnd: u64) -> bool {
        self.p.limited_transmit_after_timeout
            && self.recovery.phase == Phase::TimeoutRecovery
            && self.recovery.dupacks > 0
            && pipe + len <= cwnd + self.recovery.dupacks.min(2) as u64 * self.mss()
    }

    /// TCP Small Queues (Linux 3.6+, `tcp_small_queue_check` in net/ipv4/tcp_output.c):
    /// whether the host's first link holds so much of this flow that the next segment
    /// must wait in the socket. If so the engine wakes the sender when the link next
    /// finishes one of its packets (the kernel's TSQ handler, run from the transmit
    /// completion); `transmit` then asks whether cwnd was full as Linux does.
    ///
    /// The limit is 1/1024 of a second at the pacing rate (`sk_pacing_shift` 10), at
    /// least two packets (`2 * skb->truesize`: one-segment packets here, as the
    /// emulator's hosts run with GSO off) and at most `tcp_limit_output_bytes` (4 MB
    /// since Linux 6.16); twice that for a retransmission (`tcp_xmit_retransmit_queue`
    /// passes `factor` 1). With at most one segment outstanding nothing is held
    /// (`tcp_rtx_queue_empty_or_single_skb`).
    #[inline(always)]
    fn held_by_small_queues(&mut self, out: &mut Outbox, check: SmallQueueCheck) -> bool {
        self.p.small_queues && self.small_queue_full(out, check)
    }

    /// [`TcpSender::held_by_small_queues`] for a sender that runs them.
    #[inline(never)]
    fn small_queue_full(&mut self, out: &mut Outbox, check: SmallQueueCheck) -> bool {
        if self.board.segments() <= 1 {
            return false;
        }
        let full = self.segment(SimTime::ZERO, 0, self.p.segment_bytes, 0);
        let packet = full.ip_bytes_as(self.p.option_sizes, true) as u64;
        let one_ms = self
            .pacing_rate_bps()
            .map_or(u64::MAX, |r| (r / 8.0 / 1024.0) as u64);
        let limit = one_ms.max(2 * packet).min(TCP_LIMIT_OUTPUT_BYTES) << check as u32;
        if out.host_backlog() <= limit {
            return false;
        }
        out.wait_for_host();
        self.host_wait = true;
        true
    }

    /// The pacing rate: the algorithm's own, or Linux's default from cwnd and SRTT.
    pub(super) fn pacing_rate_bps(&self) -> Option<f64> {
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

    /// Opens the connection: a SYN, or straight to data without the handshake.
    pub(super) fn open(&mut self, now: SimTime, out: &mut Outbox) {
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
    pub(super) fn transmit(&mut self, now: SimTime, out: &mut Outbox) {
        self.pace_wait = false;
        self.host_wait = false;
        self.app_wait = None;
        let was_cwnd_limited = std::mem::take(&mut self.cwnd_limited);
        if self.conn != Connection::Established {
            return;
        }
        if !self.transmit_burst(now, out) {
            self.jitter_release = None; // the opportunity is used up
        }
        self.recovery.frto_new_data = false;
        if self.host_wait {
            // Linux's test after tcp_write_xmit's loop: limited by cwnd if what is in
            // flight (the host's queue included) fills it, or, in slow start, if cwnd is
            // below twice what is outstanding (tcp_is_cwnd_limited, with the outstanding
            // data standing for max_packets_out).
            let cwnd = self.cwnd();
            let outstanding = self.board.outstanding();
            self.cwnd_limited = self.board.in_flight() >= cwnd
                || (self.cc.cwnd() < self.cc.ssthresh() && cwnd < 2 * outstanding);
        } else if self.pace_wait {
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

    /// Resends `seg` now, with `in_flight` bytes in the network before it: the
    /// scoreboard times it (and watches it for its own loss when RACK or lost-retransmit
    /// detection is on), the undo record and PRR count it.
    pub(super) fn retransmit(
        &mut self,
        now: SimTime,
        seg: SentSegment,
        in_flight: u64,
        out: &mut Outbox,
    ) {
        let stamp = self.rate.on_send(now, self.board.outstanding());
        let watch = self.watches_retransmissions().then_some(self.snd_nxt);
        self.board.retransmitted(seg.start, now, stamp, watch);
        self.stats.retransmits += 1;
        if let Some(undo) = &mut self.recovery.undo {
            undo.on_retransmit(now);
        }
        if let Some(prr) = &mut self.recovery.prr {
            prr.on_send(seg.seq_len());
        }
        self.ns2_halving_sent(self.pipe_from(in_flight) + seg.seq_len());
        let s = self.segment(now, seg.start, seg.payload_bytes, seg.flags);
        self.emit(now, s, in_flight, out);
    }

    /// The loop of [`TcpSender::transmit`]; returns true if the send jitter is holding
    /// a transmission back (then `jitter_release` says until when).
    pub(super) fn transmit_burst(&mut self, now: SimTime, out: &mut Outbox) -> bool {
        loop {
            if self.paced && now < self.next_send_at {
                self.pace_wait = true;
                return false;
            }
            let cwnd = self.cwnd();
            let in_flight = self.board.in_flight();
            let pipe = self.pipe_from(in_flight);
            let retransmission = if self.recovery.frto_new_data {
                None // F-RTO step 2b: new data first
            } else {
                self.board.next_to_retransmit()
            };
            if let Some(seg) = retransmission {
                let forced = std::mem::take(&mut self.recovery.fast_retransmit_due);
                let len = seg.seq_len();
                if !forced
                    && in_flight > 0
                    && self.window_blocks(pipe, len, cwnd)
                    && !self.go_back_n_may_exceed_cwnd(pipe, len, cwnd)
                {
                    self.cwnd_limited = true;
                    return false;
                }
                // The timer's resend (nothing left in flight) goes whatever the host
                // holds, as Linux's tcp_retransmit_timer sends the head directly.
                if in_flight > 0 && self.held_by_small_queues(out, SmallQueueCheck::Retransmission)
                {
                    self.recovery.fast_retransmit_due = forced;
                    return false;
                }
                if self.held_by_jitter(now) {
                    self.recovery.fast_retransmit_due = forced;
                    return true;
                }
                self.retransmit(now, seg, in_flight, out);
                if let Some(counter) = self.recovery.sack1_pipe.as_mut().filter(|_| !forced) {
                    counter.on_send(); // ns-2 sends the fast retransmission outside send_much
                }
                continue;
            }
            let written = self.written_by(now);
            if self.snd_nxt < written {
                let len = (written - self.snd_nxt).min(self.mss());
                let window_edge = self.snd_una + self.rwnd.min(self.p.max_window);
                if self.snd_nxt + len > window_edge {
                    return false;
                }
                let probe = std::mem::take(&mut self.probe_due);
                if !probe
                    && self.window_blocks(pipe, len, cwnd)
                    && !self.limited_transmit_allows(len)
                {
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
                if self.held_by_small_queues(out, SmallQueueCheck::NewData) {
                    self.probe_due = probe;
                    return false;
                }
                if self.held_by_jitter(now) {
                    return true;
                }
                let seq = self.snd_nxt;
                // The last segment of a finished application carries the FIN.
                let fin = self.snd_nxt + len == written && self.app.finished(now);
                let seg_flags = if fin { flags::FIN } else { 0 };
                let stamp = self.rate.on_send(now, self.board.outstanding());
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
                if let Some(prr) = &mut self.recovery.prr {
                    prr.on_send(len);
                }
                if let Some(counter) = &mut self.recovery.sack1_pipe {
                    counter.on_send();
                }
                self.ns2_halving_sent(pipe + len);
                let s = self.segment(now, seq, len as u32, seg_flags);
                self.emit(now, s, in_flight, out);
                if self.p.tail_loss_probe {
                    self.arm_loss_probe(now);
                }
                if probe {
                    return false; // the probe is one segment
                }
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
                let stamp = self.rate.on_send(now, self.board.outstanding());
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
}
