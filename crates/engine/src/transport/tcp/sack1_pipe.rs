//! ns-2.35's Sack1 fast-recovery window (`tcp/tcp-sack1.cc`): instead of RFC 6675's
//! pipe, recomputed from the scoreboard, a counter of segments in the network kept by
//! events — set at the fast retransmit to what is outstanding less the DupThresh
//! duplicates (`pipe_ = maxseq_ - highest_ack_ - numdupacks`), one less for every ACK,
//! two for a partial ACK (`partial_ack_` off), one more for every segment sent; the
//! sender sends while it is below cwnd in whole segments (`pipe_ < int(cwnd_)`). A
//! hole found lost stays counted, so recovery sends one segment fewer per hole than
//! RFC 6675 would.

/// The counter of one recovery episode, in segments.
#[derive(Debug, Clone, Copy)]
pub struct Sack1Pipe {
    pipe: i64,
}

/// ns-2's `numdupacks_`: the duplicates that triggered the fast retransmit.
const DUPACKS: i64 = 3;

impl Sack1Pipe {
    /// The fast retransmit, with `outstanding` segments unacknowledged (`maxseq_ -
    /// highest_ack_`). The fast retransmission itself is not counted: ns-2 sends it
    /// with `output()`, outside `send_much`.
    pub fn start(outstanding: u64) -> Self {
        Sack1Pipe {
            pipe: outstanding as i64 - DUPACKS,
        }
    }

    /// An ACK during the recovery; `partial` if it advanced SND.UNA.
    pub fn on_ack(&mut self, partial: bool) {
        self.pipe -= 1 + partial as i64;
    }

    /// Whether one more segment may go with a window of `cwnd_segments`.
    pub fn allows(&self, cwnd_segments: u64) -> bool {
        self.pipe < cwnd_segments as i64
    }

    /// A segment went (a retransmission or new data).
    pub fn on_send(&mut self) {
        self.pipe += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-worked: 10 outstanding at the fast retransmit, cwnd halved to 5. The
    /// counter starts at 7; three duplicates bring it to 4, one segment may go (5);
    /// a partial ACK takes two off (3): two more.
    #[test]
    fn counts_acks_down_and_sends_up() {
        let mut p = Sack1Pipe::start(10);
        assert!(!p.allows(5));
        for _ in 0..3 {
            p.on_ack(false);
        }
        assert!(p.allows(5));
        p.on_send();
        assert!(!p.allows(5));
        p.on_ack(true);
        assert!(p.allows(5));
        p.on_send();
        assert!(p.allows(5));
        p.on_send();
        assert!(!p.allows(5));
    }
}
