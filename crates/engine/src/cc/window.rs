//! A congestion window counted in whole segments, with Linux's per-ACK growth helpers
//! (`tcp_slow_start`, `tcp_cong_avoid_ai` in `net/ipv4/tcp_cong.c`). The Linux-derived
//! algorithms (HighSpeed, Scalable, BIC, CUBIC, Vegas) keep their window here, so they
//! grow in the same integer steps as the kernel modules they follow.

/// `ssthresh` before the first congestion event.
pub const UNSET: u32 = u32::MAX;

/// snd_cwnd, snd_cwnd_cnt and snd_ssthresh, in segments.
#[derive(Debug, Clone)]
pub struct SegmentWindow {
    /// Payload bytes of a full segment.
    pub mss: u64,
    /// Congestion window, segments (Linux `snd_cwnd`).
    pub cwnd: u32,
    /// ACKed segments counted towards the next increment (Linux `snd_cwnd_cnt`).
    pub cwnd_cnt: u32,
    /// Slow-start threshold, segments ([`UNSET`] until the first loss).
    pub ssthresh: u32,
    /// ACKed bytes not yet making up a whole segment.
    partial_bytes: u64,
    /// Slow start also at cwnd = ssthresh ([`BuildContext::slow_start_at_ssthresh`]).
    ///
    /// [`BuildContext::slow_start_at_ssthresh`]: super::BuildContext::slow_start_at_ssthresh
    slow_start_at_ssthresh: bool,
    /// The most segments one ACK adds in slow start
    /// ([`BuildContext::slow_start_limit`]).
    ///
    /// [`BuildContext::slow_start_limit`]: super::BuildContext::slow_start_limit
    slow_start_limit: Option<u32>,
}

impl SegmentWindow {
    /// A window of `initial_window` bytes (at least one segment) in slow start.
    pub fn new(mss: u64, initial_window: u64) -> Self {
        SegmentWindow {
            mss,
            cwnd: segments(initial_window, mss).max(1),
            cwnd_cnt: 0,
            ssthresh: UNSET,
            partial_bytes: 0,
            slow_start_at_ssthresh: false,
            slow_start_limit: None,
        }
    }

    /// The window an algorithm built with `ctx` starts from.
    pub fn for_context(ctx: &super::BuildContext) -> Self {
        let mut w = Self::new(ctx.mss, ctx.initial_window)
            .slow_starting_at_ssthresh(ctx.slow_start_at_ssthresh);
        w.slow_start_limit = ctx.slow_start_limit;
        w
    }

    /// The same with Linux 2.6's slow-start test or not.
    pub fn slow_starting_at_ssthresh(mut self, at: bool) -> Self {
        self.slow_start_at_ssthresh = at;
        self
    }

    /// Whole segments acknowledged by `bytes`, carrying the remainder to the next ACK.
    pub fn acked_segments(&mut self, bytes: u64) -> u32 {
        self.partial_bytes += bytes;
        let n = self.partial_bytes / self.mss;
        self.partial_bytes %= self.mss;
        n.min(u32::MAX as u64) as u32
    }

    /// Whole segments an ACK lets the window grow by, counting `bytes`; `None` when the
    /// ACK may not grow it (Linux calls `cong_avoid` only then) or covers no whole
    /// segment yet.
    pub fn growth(&mut self, ack: &super::AckEvent, bytes: u64) -> Option<u32> {
        if !ack.may_grow() {
            return None;
        }
        Some(self.acked_segments(bytes)).filter(|&n| n > 0)
    }

    /// [`SegmentWindow::growth`] counting what the sender's rule counts
    /// (`AckEvent::bytes_acked`: one segment per ACK under 2.6's `"acks"` and ns-2's
    /// `"ns2"` counting), or every segment for an algorithm with an `ack_ratio`, whose
    /// ratio already makes each ACK count once. Counting every segment a stretch ACK
    /// covers let one go-back-N's last ACK raise CUBIC's window by half of what it
    /// acknowledged (transport/tcp/recovery_fuzz_tests.rs).
    pub fn growth_counted(
        &mut self,
        ack: &super::AckEvent,
        ack_ratio: Option<&AckRatio>,
    ) -> Option<u32> {
        let counted = if ack_ratio.is_some() {
            ack.newly_acked_bytes
        } else {
            ack.bytes_acked
        };
        self.growth(ack, counted)
    }

    /// Whether the window is below the threshold (RFC 5681 3.1), or at it too in
    /// Linux 2.6's rule.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh || (self.slow_start_at_ssthresh && self.cwnd == self.ssthresh)
    }

    /// Slow start by `acked` segments, not beyond ssthresh (one beyond in Linux 2.6's
    /// rule, whose slow start runs at cwnd = ssthresh) nor by more than the slow-start
    /// limit (RFC 3465's L when counting bytes); returns the segments left over for
    /// congestion avoidance (Linux `tcp_slow_start`): those beyond ssthresh — what the
    /// limit cut below it counts for nothing.
    pub fn slow_start(&mut self, acked: u32) -> u32 {
        let room = self.ssthresh.saturating_sub(self.cwnd) + self.slow_start_at_ssthresh as u32;
        let grow = acked
            .min(room)
            .min(self.slow_start_limit.unwrap_or(u32::MAX));
        self.cwnd = self.cwnd.saturating_add(grow);
        if grow == room {
            acked - grow
        } else {
            0
        }
    }

    /// Additive increase of one segment per `w` segments acknowledged (Linux
    /// `tcp_cong_avoid_ai`): `w = cwnd` is Reno's one segment per RTT.
    pub fn cong_avoid_ai(&mut self, w: u32, acked: u32) {
        let w = w.max(1);
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            self.cwnd = self.cwnd.saturating_add(1);
        }
        self.cwnd_cnt = self.cwnd_cnt.saturating_add(acked);
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            self.cwnd = self.cwnd.saturating_add(delta);
        }
    }

    /// Additive increase by a fractional number of `segments`, the fraction carried in
    /// `carry` to the next call (for increases that are not one segment per count).
    pub fn grow_fractional(&mut self, carry: &mut f64, segments: f64) {
        *carry += segments;
        let whole = carry.floor();
        *carry -= whole;
        self.cwnd = self.cwnd.saturating_add(whole as u32);
    }

    /// Congestion avoidance at one segment per `cnt` segments acknowledged, `left` of
    /// them on this ACK; with Linux 2.6's ACK counting ([`AckRatio`]) the ACK counts
    /// once and an increase comes after `acks_for(cnt) + 1` ACKs, as `bictcp_cong_avoid`
    /// (`snd_cwnd_cnt >= cnt` before counting).
    pub fn cong_avoid_counted(&mut self, cnt: u32, left: u32, ack_ratio: Option<&AckRatio>) {
        match ack_ratio {
            Some(r) => self.cong_avoid_ai(r.acks_for(cnt) + 1, 1),
            None => self.cong_avoid_ai(cnt, left),
        }
    }

    /// Slow start by `acked` segments while below ssthresh; returns the segments left
    /// for congestion avoidance (0 while still in slow start).
    pub fn slow_start_then(&mut self, acked: u32) -> u32 {
        let left = if self.in_slow_start() {
            self.slow_start(acked)
        } else {
            acked
        };
        if self.in_slow_start() {
            0
        } else {
            left
        }
    }

    /// Reno's rule on `acked` segments: slow start below ssthresh, then one segment per
    /// window (Linux `tcp_reno_cong_avoid`).
    pub fn reno_grow(&mut self, acked: u32) {
        let left = self.slow_start_then(acked);
        if left > 0 {
            let w = self.cwnd;
            self.cong_avoid_ai(w, left);
        }
    }

    /// Multiplicative decrease: ssthresh = max(`target`, 2) segments, cwnd = ssthresh.
    pub fn reduce_to(&mut self, target: u32) {
        self.ssthresh = target.max(2);
        self.cwnd = self.ssthresh;
        self.cwnd_cnt = 0;
    }

    /// After a timeout: ssthresh = max(`target`, 2) when the timeout is a new
    /// congestion event (`Some`), and a loss window of one segment (RFC 5681 3.1).
    pub fn loss_window(&mut self, target: Option<u32>) {
        if let Some(target) = target {
            self.ssthresh = target.max(2);
        }
        self.cwnd = 1;
        self.cwnd_cnt = 0;
    }

    /// A spurious reduction taken back: at least the window and threshold it replaced.
    pub fn undo(&mut self, prior_cwnd: u64, prior_ssthresh: u64) {
        self.cwnd = self.cwnd.max(segments(prior_cwnd, self.mss));
        let prior = if prior_ssthresh == u64::MAX {
            UNSET
        } else {
            segments(prior_ssthresh, self.mss)
        };
        self.ssthresh = self.ssthresh.max(prior); // UNSET is the largest value
    }

    /// The window in bytes.
    pub fn cwnd_bytes(&self) -> u64 {
        self.cwnd as u64 * self.mss
    }

    /// At most `max_bytes` (whole segments, at least one): the end of rate halving.
    pub fn limit_cwnd(&mut self, max_bytes: u64) {
        self.cwnd = self.cwnd.min(segments(max_bytes, self.mss).max(1));
    }

    /// ssthresh at most `max_bytes` (whole segments, at least two; see
    /// [`super::CongestionControl::limit_ssthresh`]).
    pub fn limit_ssthresh(&mut self, max_bytes: u64) {
        self.ssthresh = self.ssthresh.min(segments(max_bytes, self.mss).max(2));
    }

    /// Linux 2.6's `tcp_reno_min_cwnd`, ssthresh/2 in whole segments, in bytes.
    pub fn half_ssthresh_bytes(&self) -> u64 {
        if self.ssthresh == UNSET {
            u64::MAX
        } else {
            (self.ssthresh / 2) as u64 * self.mss
        }
    }

    /// The threshold in bytes (`u64::MAX` while unset).
    pub fn ssthresh_bytes(&self) -> u64 {
        if self.ssthresh == UNSET {
            u64::MAX
        } else {
            self.ssthresh as u64 * self.mss
        }
    }

    /// `bytes` in whole segments.
    pub fn segments(&self, bytes: u64) -> u32 {
        segments(bytes, self.mss)
    }
}

/// `bytes` in whole segments of `mss`, saturating.
pub fn segments(bytes: u64, mss: u64) -> u32 {
    (bytes / mss.max(1)).min(u32::MAX as u64) as u32
}

/// The [`super::CongestionControl`] methods every algorithm built on a
/// [`SegmentWindow`] in its field `w` shares: `cwnd`, `ssthresh`, `limit_cwnd`
/// (rate halving's end), `limit_ssthresh` and `undo_reduction`. Written inside the algorithm's `impl CongestionControl`.
macro_rules! segment_window_accessors {
    () => {
        fn cwnd(&self) -> u64 {
            self.w.cwnd_bytes()
        }
        fn ssthresh(&self) -> u64 {
            self.w.ssthresh_bytes()
        }
        fn limit_cwnd(&mut self, max_bytes: u64) {
            self.w.limit_cwnd(max_bytes);
        }
        fn limit_ssthresh(&mut self, max_bytes: u64) {
            self.w.limit_ssthresh(max_bytes);
        }
        fn undo_reduction(&mut self, prior_cwnd: u64, prior_ssthresh: u64) {
            self.w.undo(prior_cwnd, prior_ssthresh);
        }
    };
}
pub(crate) use segment_window_accessors;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reno_growth_is_one_segment_per_window_after_slow_start() {
        let mut w = SegmentWindow::new(1000, 10_000);
        w.ssthresh = 12;
        w.reno_grow(5); // 10 -> 12, 3 left: 3/12 towards the next segment
        assert_eq!((w.cwnd, w.cwnd_cnt), (12, 3));
        w.reno_grow(9);
        assert_eq!((w.cwnd, w.cwnd_cnt), (13, 0));
    }

    /// Linux 2.6 slow-starts while snd_cwnd <= snd_ssthresh: a window left at ssthresh
    /// by a reduction takes one more segment on the next ACK, then grows by Reno's
    /// rule; RFC 5681's test (cwnd < ssthresh) goes to congestion avoidance at once.
    #[test]
    fn linux_2_6_slow_starts_once_more_at_ssthresh() {
        for (at, after_one) in [(false, (10, 1)), (true, (11, 0))] {
            let mut w = SegmentWindow::new(1000, 10_000).slow_starting_at_ssthresh(at);
            w.ssthresh = 10;
            w.reno_grow(1);
            assert_eq!(
                (w.cwnd, w.cwnd_cnt),
                after_one,
                "slow start at ssthresh: {at}"
            );
            w.reno_grow(1);
            assert!(!w.in_slow_start());
        }
    }

    /// A cumulative ACK of 60 segments in slow start (the end of a go-back-N, the
    /// receiver having held the rest): RFC 3465's L = 2 opens the window from 8 to 10
    /// and counts the other 58 for nothing; Linux's rule (no limit) takes it to
    /// ssthresh, 40, at once and leaves the 28 beyond it to congestion avoidance.
    #[test]
    fn a_cumulative_ack_grows_slow_start_by_the_limit_at_most() {
        for (limit, cwnd, left) in [(Some(2), 10, 0), (None, 40, 28)] {
            let mut w = SegmentWindow::new(1000, 8_000);
            w.slow_start_limit = limit;
            w.ssthresh = 40;
            assert_eq!(w.slow_start(60), left, "limit {limit:?}");
            assert_eq!(w.cwnd, cwnd, "limit {limit:?}");
        }
        // Crossing ssthresh within the limit: what lies beyond it is left over.
        let mut w = SegmentWindow::new(1000, 39_000);
        w.slow_start_limit = Some(2);
        w.ssthresh = 40;
        assert_eq!((w.slow_start(5), w.cwnd), (4, 40));
    }

    #[test]
    fn partial_segments_carry_over() {
        let mut w = SegmentWindow::new(1000, 1000);
        assert_eq!(w.acked_segments(1500), 1);
        assert_eq!(w.acked_segments(500), 1);
        assert_eq!(w.acked_segments(999), 0);
    }
}

/// Linux 2.6's packets-per-ACK estimate in BIC and CUBIC (`delayed_ack`, ×16 by
/// `ACK_RATIO_SHIFT`), which those modules use to convert their per-segment increase
/// counts into per-ACK counts: Linux 2.6 counted ACKs, not segments, toward growth.
///
/// Its moving average is in integers and truncates: from its initial 2 packets per
/// ACK, an ACK per segment brings it down only to 31/16, not 1, so with ACKs for every
/// segment these modules grow about 1.94 times as fast as their nominal rate; with
/// delayed ACKs (2 segments each) it stays at 2 and the rate is nominal. Mainline CUBIC
/// dropped it (it counts segments); mainline BIC keeps it.
#[derive(Debug, Clone, Copy)]
pub struct AckRatio {
    /// Packets per ACK × 16.
    ratio_x16: u32,
}

impl Default for AckRatio {
    fn default() -> Self {
        AckRatio { ratio_x16: 2 << 4 }
    }
}

impl AckRatio {
    /// [`AckRatio::on_ack`] for `ack`, its newly acknowledged bytes in whole segments of
    /// `mss` rounded up (Linux counts packets).
    pub fn observe(&mut self, ack: &super::AckEvent, mss: u64) {
        self.on_ack(
            segments(ack.newly_acked_bytes + mss - 1, mss),
            ack.in_recovery,
        );
    }

    /// Linux `bictcp_acked`: an ACK covering `segments` new segments, counted only
    /// outside loss recovery (`TCP_CA_Open`).
    pub fn on_ack(&mut self, segments: u32, in_recovery: bool) {
        if segments > 0 && !in_recovery {
            let step = segments.wrapping_sub(self.ratio_x16 >> 4);
            self.ratio_x16 = self.ratio_x16.wrapping_add(step);
        }
    }

    /// Linux `bictcp_update`'s last step: ACKs per one-segment increase from the
    /// segments per increase `cnt`, at least 1.
    pub fn acks_for(&self, cnt: u32) -> u32 {
        ((cnt as u64) << 4)
            .checked_div(self.ratio_x16 as u64)
            .map_or(cnt, |c| c.min(u32::MAX as u64) as u32)
            .max(1)
    }
}

#[cfg(test)]
mod ack_ratio_tests {
    use super::AckRatio;

    /// Hand-traced from Linux's integer update: 32 → 31, then 31 >> 4 = 1 cancels the
    /// one segment per ACK, so it stays at 31.
    #[test]
    fn one_segment_per_ack_settles_at_31_sixteenths() {
        let mut r = AckRatio::default();
        for _ in 0..100 {
            r.on_ack(1, false);
        }
        assert_eq!(r.ratio_x16, 31);
        assert_eq!(r.acks_for(100), 100 * 16 / 31);
    }

    #[test]
    fn two_segments_per_ack_keep_the_nominal_rate() {
        let mut r = AckRatio::default();
        for _ in 0..100 {
            r.on_ack(2, false);
        }
        assert_eq!(r.ratio_x16, 32);
        assert_eq!(r.acks_for(100), 50); // 50 ACKs = 100 segments
    }

    #[test]
    fn recovery_leaves_it_alone() {
        let mut r = AckRatio::default();
        r.on_ack(1, true);
        assert_eq!(r.ratio_x16, 32);
    }
}
