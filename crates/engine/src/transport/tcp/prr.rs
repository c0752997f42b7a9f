//! Proportional Rate Reduction (RFC 6937) for SACK loss recovery, as Linux has used
//! since 3.2 (its 2.6 predecessor is in `rate_halving.rs`): during recovery the sender may send only in proportion to what the receiver
//! reports delivered, so it reaches ssthresh smoothly and never bursts. RFC 6675's
//! pipe rule alone lets the whole gap between pipe and cwnd out at once whenever
//! sending resumes — after a receive-window stall with a hole at its left edge, that
//! is a line-rate burst of hundreds of segments into the queue that just overflowed.

/// PRR's per-recovery state (RFC 6937 section 3), in bytes.
#[derive(Debug, Clone, Copy, Default)]
pub struct Prr {
    /// FlightSize when recovery began.
    recover_fs: u64,
    /// Bytes the receiver reported delivered since then.
    delivered: u64,
    /// Bytes sent since then.
    out: u64,
    /// Bytes the last ACK allows to be sent (`sndcnt`), not yet used.
    budget: u64,
}

impl Prr {
    /// Recovery begins with `flight_size` bytes outstanding.
    pub fn start(flight_size: u64) -> Self {
        Prr {
            recover_fs: flight_size.max(1),
            ..Prr::default()
        }
    }

    /// An ACK in recovery reported `delivered` bytes (newly cumulatively acknowledged
    /// or SACKed); `pipe` is RFC 6675's estimate after it. Sets the sending budget
    /// (section 3). Below ssthresh the window regrows by one segment per ACK (Slow
    /// Start Reduction Bound) only on a `safe_ack` — one that advanced SND.UNA and
    /// showed no new loss; otherwise it only conserves packets (Conservative
    /// Reduction Bound). That is PRR as Linux runs it since 4.2 (`tcp_cwnd_reduction`)
    /// and as draft-ietf-tcpm-prr-rfc6937bis specifies: with SSRB on every ACK, a
    /// recovery whose retransmissions keep being lost refills the queue that drops
    /// them each round trip — a retransmission storm.
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64, safe_ack: bool) {
        self.delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            // Proportional part: ceil(prr_delivered · ssthresh / RecoverFS) − prr_out.
            let allowed =
                (self.delivered as u128 * ssthresh as u128).div_ceil(self.recover_fs as u128);
            (allowed as u64).saturating_sub(self.out)
        } else {
            // Packet conservation, plus one segment on a safe ACK (SSRB).
            let conserve = self.delivered.saturating_sub(self.out).max(delivered);
            let limit = conserve + if safe_ack { mss } else { 0 };
            (ssthresh - pipe).min(limit)
        };
        self.budget = sndcnt;
    }

    /// Whether `len` bytes may be sent now.
    pub fn allows(&self, len: u64) -> bool {
        len <= self.budget
    }

    /// `len` bytes were sent.
    pub fn on_send(&mut self, len: u64) {
        self.out += len;
        self.budget = self.budget.saturating_sub(len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6937 section 4's example: ssthresh = 10 of a flight of 20 segments; each
    /// ACK delivering one segment lets out one segment every other ACK while pipe is
    /// above ssthresh (the reduction ratio is 1/2).
    #[test]
    fn sends_half_as_fast_as_delivered_while_above_ssthresh() {
        let mut p = Prr::start(20);
        let mut sent = 0;
        for k in 1..=10u64 {
            p.on_ack(1, 19 - k + sent, 10, 1, true);
            while p.allows(1) {
                p.on_send(1);
                sent += 1;
            }
            assert_eq!(sent, k.div_ceil(2), "after ACK {k}");
        }
    }

    /// Below ssthresh it sends what was delivered plus one segment (SSRB), never the
    /// whole gap to ssthresh at once.
    #[test]
    fn below_ssthresh_growth_is_bounded_by_delivery() {
        let mut p = Prr::start(100);
        p.on_ack(1, 10, 50, 1, true); // pipe far below ssthresh after a stall
        assert_eq!(p.budget, 2);
    }

    /// An ACK that reveals a new loss, or leaves SND.UNA where it was, only replaces
    /// what it reports delivered (CRB): no growth toward ssthresh on it.
    #[test]
    fn an_unsafe_ack_only_conserves_packets() {
        let mut p = Prr::start(100);
        p.on_ack(1, 10, 50, 1, false);
        assert_eq!(p.budget, 1);
    }
}
