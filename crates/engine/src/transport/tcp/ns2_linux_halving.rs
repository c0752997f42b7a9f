//! ns-2.35's TCP/Linux recovery window (`tcp/tcp-linux.cc`): the agent runs the Linux
//! 2.6.22 congestion modules but not Linux's `tcp_input.c`, and its own "simpler" rate
//! halving replaces `tcp_cwnd_down`. At the fast retransmit cwnd drops at once to the
//! module's `min_cwnd` (ssthresh, or ssthresh/2 for the modules using
//! `tcp_reno_min_cwnd`) while `next_pkts_in_flight_` starts at the old cwnd; segments go
//! while the flight is below the larger of the two. Every sending opportunity first
//! caps `next` at the flight plus one, and every segment sent caps it at the flight
//! after it less one: one segment leaves per two delivered, from the old window down to
//! the floor, and the flight is refilled to the floor whatever the losses (Linux 2.6
//! instead lets the window fall to the flight plus one). When `recover_` is
//! acknowledged a window below ssthresh becomes ssthresh, moderated to the flight plus
//! `tcp_max_burst` (3) segments (`tcp_moderate_cwnd`).

/// `tcp_max_burst`: the most segments `tcp_moderate_cwnd` lets a recovery's end send at once.
const MAX_BURST_SEGMENTS: u64 = 3;

/// The recovery window of one fast recovery, in bytes.
#[derive(Debug, Clone, Copy)]
pub struct Ns2LinuxHalving {
    /// cwnd through the recovery: the module's `min_cwnd` at the fast retransmit.
    floor: u64,
    /// `next_pkts_in_flight_`: the flight the halving still allows above the floor.
    next: u64,
}

impl Ns2LinuxHalving {
    /// Recovery begins with `prior_cwnd` bytes of window, reduced to `floor`.
    pub fn start(prior_cwnd: u64, floor: u64) -> Self {
        Ns2LinuxHalving {
            floor,
            next: prior_cwnd,
        }
    }

    /// A sending opportunity with `pipe` bytes in flight (`send_much`'s first line,
    /// run on every ACK): `next` ≤ pipe + one segment.
    pub fn on_opportunity(&mut self, pipe: u64, mss: u64) {
        self.next = self.next.min(pipe + mss);
    }

    /// Whether `len` more bytes may go with `pipe` in flight.
    pub fn allows(&self, pipe: u64, len: u64) -> bool {
        pipe + len <= self.floor.max(self.next)
    }

    /// A segment went, leaving `pipe_after` bytes in flight: `next` ≤ that less one
    /// segment, but at least one.
    pub fn on_send(&mut self, pipe_after: u64, mss: u64) {
        self.next = self.next.min(pipe_after.saturating_sub(mss).max(mss));
    }

    /// cwnd when the recovery ends with `outstanding` bytes unacknowledged (ns-2 clears
    /// its scoreboard first, so all of it counts as in flight) and the module's
    /// `ssthresh`.
    pub fn exit_cwnd(&self, ssthresh: u64, outstanding: u64, mss: u64) -> u64 {
        if self.floor < ssthresh {
            ssthresh.min(outstanding + MAX_BURST_SEGMENTS * mss)
        } else {
            self.floor
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays ACKs that each deliver one segment against a flight, sending whenever the
    /// window allows, as ns-2's `recv` → `send_much` does; returns what each ACK sent.
    fn play(h: &mut Ns2LinuxHalving, flight: &mut u64, acks: usize) -> Vec<u64> {
        (0..acks)
            .map(|_| {
                *flight -= 1;
                h.on_opportunity(*flight, 1);
                let mut sent = 0;
                while h.allows(*flight, 1) {
                    *flight += 1;
                    sent += 1;
                    h.on_send(*flight, 1);
                }
                sent
            })
            .collect()
    }

    /// Worked by hand from tcp-linux.cc: old cwnd 20, floor 10, a flight of 20. The
    /// first ACK leaves 19 in flight, next = min(20, 20) = 20: one goes (20 in flight),
    /// next = 19. The second: 19 in flight, next = min(19, 20) = 19: nothing. So one
    /// segment per two ACKs, and after 20 ACKs the flight is 10 — and stays there.
    #[test]
    fn one_segment_per_two_acks_down_to_the_floor() {
        let mut h = Ns2LinuxHalving::start(20, 10);
        let mut flight = 20;
        let sent = play(&mut h, &mut flight, 20);
        assert_eq!(sent, [1, 0].repeat(10));
        assert_eq!(flight, 10);
        assert_eq!(play(&mut h, &mut flight, 10), vec![1; 10]);
        assert_eq!(flight, 10);
    }

    /// Losses that empty the flight (every further segment dropped, so ACKs stop) do
    /// not take the window below the floor: the next opportunity refills it to the
    /// floor at once, where Linux 2.6's `tcp_cwnd_down` would allow the flight + 1.
    #[test]
    fn a_flight_emptied_by_losses_is_refilled_to_the_floor() {
        let mut h = Ns2LinuxHalving::start(8, 4);
        h.on_opportunity(0, 1);
        let mut flight = 0;
        while h.allows(flight, 1) {
            flight += 1;
            h.on_send(flight, 1);
        }
        assert_eq!(flight, 4);
    }

    /// The end of recovery: a floor below ssthresh (Reno's ssthresh/2) is raised to
    /// ssthresh, but to no more than the flight + 3; a floor at ssthresh stays.
    #[test]
    fn recovery_ends_at_ssthresh_moderated_by_the_flight() {
        let reno = Ns2LinuxHalving::start(40, 10);
        assert_eq!(reno.exit_cwnd(20, 30, 1), 20);
        assert_eq!(reno.exit_cwnd(20, 12, 1), 15);
        let bic = Ns2LinuxHalving::start(40, 32);
        assert_eq!(bic.exit_cwnd(32, 2, 1), 32);
    }
}
