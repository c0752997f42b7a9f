//! RACK-TLP (RFC 8985) in the sender: time-based loss marking with its reordering
//! timer (`rack.rs` keeps the state, the scoreboard walks the segments), and the Tail
//! Loss Probe that turns a tail loss into a SACK instead of a timeout.

use super::*;

/// RACK-TLP's two timers (RFC 8985 6.3, the reordering timer, and 7.2, the probe
/// timeout), with the earlier of them kept so that the sender's wake-up test reads one
/// field however many are armed.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct LossTimers {
    reordering: Option<SimTime>,
    probe: Option<SimTime>,
    earliest: Option<SimTime>,
}

impl LossTimers {
    /// Arms (or with `None` stops) the reordering timer.
    pub(super) fn set_reordering(&mut self, at: Option<SimTime>) {
        self.reordering = at;
        self.update();
    }

    /// Arms (or with `None` stops) the probe timeout.
    pub(super) fn set_probe(&mut self, at: Option<SimTime>) {
        self.probe = at;
        self.update();
    }

    /// The earlier of the two, if either runs.
    #[inline]
    pub(super) fn earliest(&self) -> Option<SimTime> {
        self.earliest
    }

    /// Whether the probe timeout has expired at `now`.
    pub(super) fn probe_due(&self, now: SimTime) -> bool {
        self.probe.is_some_and(|t| t <= now)
    }

    /// Whether the reordering timer has expired at `now`.
    pub(super) fn reordering_due(&self, now: SimTime) -> bool {
        self.reordering.is_some_and(|t| t <= now)
    }

    fn update(&mut self) {
        self.earliest = match (self.reordering, self.probe) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
}

impl TcpSender {
    /// Whether retransmissions are timed for their own loss: by SACKs of later data
    /// (`detect_lost_retransmits`) or by RACK.
    pub(super) fn watches_retransmissions(&self) -> bool {
        // `endpoints` leaves RACK on only with SACK recovery.
        self.p.detect_lost_retransmits || self.p.loss_detection == LossDetection::Rack
    }

    /// RACK (RFC 8985 6.2 step 5 and 6.3): marks what has had its time, sets the
    /// reordering timer for what has not; `timer` says the reordering timer fired
    /// (else only an ACK that delivered something starts a walk, as in Linux).
    /// Returns whether any segment is marked lost.
    pub(super) fn detect_losses_by_time(&mut self, now: SimTime, timer: bool) -> bool {
        let in_recovery = self.recovery.phase != Phase::Open;
        let (min_rtt, srtt) = (self.rtt.min_rtt(), self.rtt.srtt());
        let sacked_segments = self.board.sacked_segments();
        let Some(rack) = self.board.rack_mut() else {
            return false;
        };
        if rack.take_advanced() || timer {
            let reo_wnd = rack.reo_wnd(in_recovery, sacked_segments, min_rtt, srtt);
            let at = self.board.mark_lost_by_time(now, reo_wnd);
            self.loss_timers.set_reordering(at);
        }
        self.board.lost_bytes() > 0
    }

    /// The reordering timer fired (Linux `tcp_rack_reo_timeout`): what it waited for is
    /// lost now, and a sender not yet recovering starts to.
    pub(super) fn on_reordering_timeout(&mut self, now: SimTime, out: &mut Outbox) {
        self.loss_timers.set_reordering(None);
        if self.detect_losses_by_time(now, true) && self.recovery.phase == Phase::Open {
            self.enter_fast_recovery(now);
        }
        self.transmit(now, out);
    }

    /// Starts or restarts the probe timeout (RFC 8985 7.2; Linux
    /// `tcp_schedule_loss_probe`): 2·SRTT, plus the worst-case delayed-ACK time when a
    /// single segment is out (a lone segment's ACK may be delayed), never later than
    /// the RTO. Only in the open state with something in flight and no probe out.
    /// Callers check `tail_loss_probe` (it is off on the per-packet path by default
    /// without SACK, so the call itself is skipped).
    pub(super) fn arm_loss_probe(&mut self, now: SimTime) {
        if self.recovery.phase != Phase::Open
            || self.board.is_empty()
            || self.tlp_high_seq.is_some()
        {
            self.loss_timers.set_probe(None);
            return;
        }
        let pto = match self.rtt.srtt() {
            Some(srtt) => {
                let allowance = if self.board.outstanding() <= self.mss() {
                    self.rtt.min_rto() // Linux: tcp_rto_min (RFC 8985: WCDelAckT)
                } else {
                    SimTime::from_ms(2) // Linux: TCP_TIMEOUT_MIN, two jiffies
                };
                SimTime(2 * srtt.as_ns()) + allowance
            }
            None => SimTime::from_secs(1), // RFC 8985 7.2: 1 s without an RTT sample
        };
        let at = now + pto;
        self.loss_timers
            .set_probe(Some(self.rto_at.map_or(at, |rto| at.min(rto))));
    }

    /// The probe timeout fired (RFC 8985 7.3; Linux `tcp_send_loss_probe`): one new
    /// segment if the receiver's window takes it, whatever cwnd says, else the last
    /// segment again; then the RTO restarts from now.
    pub(super) fn send_loss_probe(&mut self, now: SimTime, out: &mut Outbox) {
        self.loss_timers.set_probe(None);
        let before = self.snd_nxt;
        self.probe_due = true;
        self.transmit(now, out);
        self.probe_due = false;
        self.tlp_retrans = false;
        if self.snd_nxt == before {
            let Some(last) = self.board.last_unsacked() else {
                return;
            };
            let in_flight = self.board.in_flight();
            self.retransmit(now, last, in_flight, out);
            self.tlp_retrans = true;
        }
        self.stats.loss_probes += 1;
        self.tlp_high_seq = Some(self.snd_nxt);
        // A probe of new data armed the timer again on its way out: one probe at a time.
        self.loss_timers.set_probe(None);
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// An ACK at or beyond the probe's TLP.end_seq (RFC 8985 7.4, Linux
    /// `tcp_process_tlp_ack`): a probe of new data, or a retransmission answered by a
    /// pure duplicate ACK (original and probe both arrived), hid no loss; an ACK
    /// beyond TLP.end_seq after a retransmitted probe means the probe repaired a loss,
    /// which gets its one window reduction.
    pub(super) fn on_probe_ack(&mut self, now: SimTime, ack: u64, pure_duplicate: bool) {
        let Some(high) = self.tlp_high_seq else {
            return;
        };
        if ack < high {
            return;
        }
        if !self.tlp_retrans {
            self.tlp_high_seq = None;
        } else if ack > high {
            self.tlp_high_seq = None;
            self.cc
                .on_congestion_event(now, self.reduction_basis(), self.pipe());
            self.cc.on_recovery_end(now);
            self.stats.loss_probe_recoveries += 1;
        } else if pure_duplicate {
            self.tlp_high_seq = None;
        }
    }
}
