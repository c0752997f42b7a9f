//! Linux 2.6's window reduction in recovery, rate halving (`tcp_cwnd_down`, replaced by
//! PRR in 3.2): on every second ACK that reports progress the window shrinks by one
//! segment, down to the module's `min_cwnd` (ssthresh/2 for Reno, HighSpeed, Scalable and
//! Vegas; ssthresh for BIC and CUBIC), and never exceeds what is in flight plus one
//! segment, so one segment leaves per two delivered. Unlike PRR it does not aim at
//! ssthresh: a recovery of one round trip halves the flight whatever the module's
//! decrease, and leaving recovery sets cwnd = min(cwnd, ssthresh)
//! (`tcp_complete_cwr`): Scalable's ×7/8 and HighSpeed's (1 − b(w)) become about ×1/2.

/// Rate-halving state for one recovery, in bytes.
#[derive(Debug, Clone, Copy)]
pub struct RateHalving {
    cwnd: u64,
    /// The next progress ACK is the second of a pair (Linux `snd_cwnd_cnt`'s low bit).
    second_ack: bool,
}

impl RateHalving {
    /// Recovery begins with a window of `cwnd` bytes.
    pub fn start(cwnd: u64) -> Self {
        RateHalving {
            cwnd,
            second_ack: false,
        }
    }

    /// An ACK in recovery; `progress`: it acknowledged or SACKed new data; `in_flight`
    /// is the pipe after it, `floor` the algorithm's `min_cwnd`.
    pub fn on_ack(&mut self, progress: bool, in_flight: u64, floor: u64, mss: u64) {
        if !progress {
            return;
        }
        if self.second_ack && self.cwnd > floor {
            self.cwnd = self.cwnd.saturating_sub(mss).max(mss);
        }
        self.second_ack = !self.second_ack;
        self.cwnd = self.cwnd.min(in_flight + mss);
    }

    /// Whether `len` more bytes may go with `in_flight` outstanding.
    pub fn allows(&self, in_flight: u64, len: u64) -> bool {
        in_flight + len <= self.cwnd
    }

    /// The window recovery has reduced to so far.
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flight of 20 segments, one segment delivered per ACK and one sent whenever
    /// the window allows: one segment leaves per two ACKs and after 20 ACKs (one round
    /// trip) the flight and the window are 10, half of where they started, though the
    /// floor (7) is lower.
    #[test]
    fn one_round_trip_halves_the_flight_down_to_the_floor() {
        let mut h = RateHalving::start(20);
        let mut in_flight = 20;
        let mut sent = 0;
        for _ in 0..20 {
            in_flight -= 1;
            h.on_ack(true, in_flight, 7, 1);
            while h.allows(in_flight, 1) {
                in_flight += 1;
                sent += 1;
            }
        }
        assert_eq!((sent, in_flight, h.cwnd()), (10, 10, 10));
        // Further ACKs take it to the floor and no lower.
        for _ in 0..20 {
            in_flight -= 1;
            h.on_ack(true, in_flight, 7, 1);
            while h.allows(in_flight, 1) {
                in_flight += 1;
            }
        }
        assert_eq!(h.cwnd(), 7);
    }

    #[test]
    fn acks_without_progress_change_nothing() {
        let mut h = RateHalving::start(20);
        h.on_ack(false, 5, 0, 1);
        h.on_ack(false, 5, 0, 1);
        assert_eq!(h.cwnd(), 20);
    }
}
