//! Linux's receive-window autotuning ("dynamic right-sizing", `tcp_moderate_rcvbuf`,
//! on by default): the window a Linux receiver offers grows with what its application
//! reads, not to the buffer's maximum at once.
//!
//! Modelled on `tcp_rcv_space_adjust` (net/ipv4/tcp_input.c) as Linux 4.x–6.15 ship it,
//! run as the application reads: once a receiver RTT has passed since the last
//! measurement, if more was read in it (`copied`) than in any earlier one (`space`),
//! the window may grow to 2·copied + 16 segments, plus twice that times the relative
//! growth (copied − space)/space "to accommodate the sender's rate increase (slow
//! start)"; it never shrinks and never passes the buffer's maximum. Data held above a
//! hole takes up the buffer (`__tcp_select_window` offers its free space), and an
//! offered right edge is never withdrawn. The receiver's RTT (`tcp_rcv_rtt_update`):
//! from timestamp echoes, a lower sample replaces it, a higher one moves it by 1/8;
//! without timestamps, the time one window of data takes to arrive, minima only.
//!
//! Linux 6.16 replaced the growth by 2·space plus the span of out-of-order data. This
//! machine's kernel (6.18.44) behaves as the rule above, measured through
//! `tcplab emu` (docs/loss-recovery.md): one Reno flow without SACK on a 10 Mb/s,
//! 42 ms, 50-packet dumbbell gets 8.13 Mb/s with 130 retransmissions in the kernel,
//! 8.31 / 135 with this rule, 9.61 / 38 with 6.16's (whose window keeps slow start
//! below the overshoot the kernel shows: 156 segments in flight at 0.3 s).
//!
//! What it changes: through a long recovery (NewReno without SACK repairs one hole per
//! round trip) nothing is read, the window stays where the last good round trip left
//! it, and the sender stalls on it (the kernel reports `tcpi_rwnd_limited`) — where a
//! fixed 64 MiB window let the model refill the link. Not modelled: `rcv_ssthresh`
//! (`tcp_grow_window`, two segments per packet), the truesize accounting of the buffer
//! (its scaling ratio cancels between the window and the free space), window rounding
//! to the scale factor.

use crate::time::SimTime;

/// The window a Linux receiver offers before it has measured anything: half of the
/// default initial buffer (`tcp_rmem[1]` = 131,072 bytes).
const INITIAL_WINDOW_BYTES: u64 = 65_535;

/// Initial window in segments (TCP_INIT_CWND): the first space estimate
/// (`tcp_init_buffer_space`).
const INITIAL_SPACE_SEGMENTS: u64 = 10;

/// One receiver's autotuning state.
#[derive(Debug, Clone)]
pub struct Autotune {
    /// Bytes read in the best receiver RTT so far (`rcvq_space.space`).
    space: u64,
    /// RCV.NXT and time of the last measurement (`rcvq_space.seq`, `.time`).
    mark_seq: u64,
    mark_time: SimTime,
    /// The receiver's RTT estimate (`rcv_rtt_est.rtt_us`), if any yet.
    rtt: Option<SimTime>,
    /// Without timestamps: the sequence number whose arrival ends the current
    /// window-long RTT measurement, and when it began.
    window_probe: Option<(u64, SimTime)>,
    /// The window offered (`window_clamp`): grows, never shrinks.
    clamp: u64,
    /// The buffer's maximum, as a window (the scenario's `receive_buffer`).
    max: u64,
    /// The highest right edge offered so far: a window is never shrunk (RFC 9293
    /// 3.8.6.2.2, Linux's `tcp_select_window`).
    right_edge: u64,
    /// Segment size (`advmss`).
    mss: u64,
}

impl Autotune {
    /// A receiver whose buffer may grow to offer `max_window` bytes, for segments of
    /// `mss` bytes.
    pub fn new(max_window: u64, mss: u64) -> Self {
        // The first space estimate is ten segments; a round trip can read no more than
        // the window offered, so that window must hold more than ten segments or the
        // estimate is never beaten and the window never grows (jumbo segments: ten of
        // 8,948 bytes against 65,535 froze the window at 64 KB, 2.7 Mb/s at 180 ms).
        // The kernel does not stall there (tcplab emu, MTU 9000, 200 Mb/s, 42 ms:
        // 192.7 Mb/s): since 6.6 its per-socket scaling ratio (payload / truesize,
        // high for large segments) lets the first offers exceed half of `tcp_rmem[1]`.
        // tcplab does not model the ratio; it offers at least eleven segments, the
        // least that lets the first measurement beat the first space.
        let first = INITIAL_WINDOW_BYTES.max((INITIAL_SPACE_SEGMENTS + 1) * mss);
        let clamp = first.min(max_window);
        Autotune {
            space: INITIAL_SPACE_SEGMENTS * mss,
            mark_seq: 0,
            mark_time: SimTime::ZERO,
            rtt: None,
            window_probe: None,
            clamp,
            max: max_window,
            right_edge: 0,
            mss,
        }
    }

    /// The window the buffer could offer were it empty.
    pub fn window(&self) -> u64 {
        self.clamp
    }

    /// The window to offer from `rcv_nxt` while `held` bytes wait above a hole: the
    /// buffer's free space (`__tcp_select_window`: data held takes up the buffer the
    /// window is sized from), but never a right edge below one already offered.
    pub fn offer(&mut self, rcv_nxt: u64, held: u64) -> u64 {
        let free = self.clamp.saturating_sub(held);
        self.right_edge = self.right_edge.max(rcv_nxt + free);
        self.right_edge - rcv_nxt
    }

    /// A timestamp echo measured `sample` of the receiver's RTT (`tcp_rcv_rtt_update`
    /// without window dependence).
    pub fn on_rtt_sample(&mut self, sample: SimTime) {
        self.rtt = Some(match self.rtt {
            Some(old) if sample >= old => SimTime(old.0 - old.0 / 8 + sample.0 / 8),
            _ => sample,
        });
    }

    /// In-order data up to `rcv_nxt` was delivered (read by the application) at `now`.
    /// `timestamps`: the RTT comes from echoes, else from one window's arrival time.
    pub fn on_read(&mut self, now: SimTime, rcv_nxt: u64, timestamps: bool) {
        if !timestamps {
            self.measure_rtt_per_window(now, rcv_nxt);
        }
        if self.mark_seq == 0 {
            (self.mark_seq, self.mark_time) = (rcv_nxt, now);
            return;
        }
        let Some(rtt) = self.rtt else {
            return;
        };
        if now.0.saturating_sub(self.mark_time.0) < rtt.0 {
            return;
        }
        let copied = rcv_nxt - self.mark_seq;
        if copied > self.space {
            let mut window = copied.saturating_mul(2) + 16 * self.mss;
            let growth = window.saturating_mul(copied - self.space) / self.space.max(1);
            window = window.saturating_add(growth.saturating_mul(2));
            self.clamp = self.clamp.max(window.min(self.max));
            self.space = copied;
        }
        (self.mark_seq, self.mark_time) = (rcv_nxt, now);
    }

    /// `tcp_rcv_rtt_measure`: the time one window of data takes to arrive, minima only.
    fn measure_rtt_per_window(&mut self, now: SimTime, rcv_nxt: u64) {
        match self.window_probe {
            Some((target, since)) if rcv_nxt >= target => {
                let sample = SimTime(now.0 - since.0);
                if self.rtt.is_none_or(|old| sample < old) {
                    self.rtt = Some(sample);
                }
                self.window_probe = Some((rcv_nxt + self.clamp, now));
            }
            Some(_) => {}
            None => self.window_probe = Some((rcv_nxt + self.clamp, now)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1448;

    fn ms(x: u64) -> SimTime {
        SimTime(x * 1_000_000)
    }

    /// Slow start from 10 segments on a 100 ms path, each round trip reading twice the
    /// last: the window offered is the rule's, worked by hand.
    #[test]
    fn the_window_grows_with_what_each_round_trip_reads() {
        let mut a = Autotune::new(64 << 20, MSS);
        assert_eq!(a.window(), INITIAL_WINDOW_BYTES);
        a.on_rtt_sample(ms(100));
        let mut rcv_nxt = 1;
        a.on_read(ms(0), rcv_nxt, true);
        // 10 segments: not more than the initial space (10 segments), no change.
        rcv_nxt += 10 * MSS;
        a.on_read(ms(100), rcv_nxt, true);
        assert_eq!(a.window(), INITIAL_WINDOW_BYTES);
        // 20 segments: 2·20 + 16 = 56 segments, grown by 2·56·(20 − 10)/10 = 112:
        // 168 segments (243,264 bytes).
        rcv_nxt += 20 * MSS;
        a.on_read(ms(200), rcv_nxt, true);
        assert_eq!(a.window(), 168 * MSS);
        // 30 segments: 76 + 2·76·10/20 = 152 segments, below 168: no change.
        rcv_nxt += 30 * MSS;
        a.on_read(ms(300), rcv_nxt, true);
        assert_eq!(a.window(), 168 * MSS);
        // Within one RTT of the last measurement nothing is measured.
        rcv_nxt += 1000 * MSS;
        a.on_read(ms(350), rcv_nxt, true);
        assert_eq!(a.window(), 168 * MSS);
    }

    /// Jumbo segments (MSS 8,948: ten are more than 65,535 bytes): the first window
    /// holds eleven (98,428 bytes), so a round trip that reads it beats the first space
    /// of ten (89,480): 2·98,428 + 16·8,948 = 340,024, grown by 2·340,024·8,948/89,480
    /// (integer division: 2·34,002), 408,028 bytes.
    #[test]
    fn jumbo_segments_still_grow_the_window() {
        const JUMBO: u64 = 8948;
        let mut a = Autotune::new(64 << 20, JUMBO);
        assert_eq!(a.window(), 11 * JUMBO);
        a.on_rtt_sample(ms(100));
        a.on_read(ms(0), 1, true);
        a.on_read(ms(100), 1 + 11 * JUMBO, true);
        assert_eq!(a.window(), 408_028);
    }

    /// Data held above a hole takes up the window, but a right edge once offered stays.
    #[test]
    fn held_data_shrinks_the_offer_not_the_right_edge() {
        let mut a = Autotune::new(1 << 20, MSS);
        assert_eq!(a.offer(1, 0), INITIAL_WINDOW_BYTES);
        assert_eq!(a.offer(1, 20 * MSS), INITIAL_WINDOW_BYTES); // the edge stays
        assert_eq!(
            a.offer(1 + 10 * MSS, 20 * MSS),
            INITIAL_WINDOW_BYTES - 10 * MSS
        );
        assert_eq!(a.offer(1 + 30 * MSS, 0), INITIAL_WINDOW_BYTES);
    }

    /// Never beyond the buffer's maximum.
    #[test]
    fn the_buffer_caps_the_window() {
        let mut a = Autotune::new(100_000, MSS);
        a.on_rtt_sample(ms(10));
        a.on_read(ms(0), 1, true);
        a.on_read(ms(10), 1 + 100 * MSS, true);
        assert_eq!(a.window(), 100_000);
    }

    /// `tcp_rcv_rtt_update`: a lower sample replaces the estimate, a higher one moves
    /// it by 1/8.
    #[test]
    fn the_rtt_takes_minima_and_smooths_increases() {
        let mut a = Autotune::new(1 << 30, MSS);
        a.on_rtt_sample(ms(80));
        a.on_rtt_sample(ms(160));
        assert_eq!(a.rtt, Some(ms(90)));
        a.on_rtt_sample(ms(50));
        assert_eq!(a.rtt, Some(ms(50)));
    }
}
