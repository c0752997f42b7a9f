//! BBR's long-term bandwidth: the policer detector of Linux's BBR v1 (4.9 and later,
//! `bbr_lt_bw_sampling`; Cardwell et al., "BBR: congestion-based congestion control",
//! and Flach et al., "An Internet-wide analysis of traffic policing", SIGCOMM 2016).
//!
//! A token-bucket policer lets BBR's probes through and then drops at a steady rate
//! while delivering at the policed rate. So, from the first loss on, BBR measures the
//! delivery rate over intervals of 4–16 rounds that end at a loss; when an interval
//! lost at least 50/256 (about 20%) of what it delivered, its average rate is kept,
//! and when two such intervals in a row agree (within 1/8, or 4 kbit/s) BBR takes
//! their mean as the bandwidth and paces at gain 1 for 48 rounds before probing again.
//! Anything application-limited starts the measurement over. On a path without a
//! policer the same rule fires wherever loss is heavy and steady: a buffer of a few
//! packets, or random loss of tens of percent.

use crate::time::SimTime;

/// Rounds an interval must last before it may end…
const MIN_ROUNDS: u32 = 4;
/// …and may last at most (4 × the minimum; then the measurement restarts).
const MAX_ROUNDS: u32 = 4 * MIN_ROUNDS;
/// The loss ratio, in 256ths, from which an interval counts (Linux `bbr_lt_loss_thresh`).
const LOSS_THRESHOLD_256THS: u64 = 50;
/// Two intervals agree within this fraction of the first…
const AGREEMENT_RATIO: f64 = 1.0 / 8.0;
/// …or within this many bit/s.
const AGREEMENT_BPS: f64 = 4000.0;
/// Rounds the long-term rate is used before BBR probes again.
const USE_ROUNDS: u32 = 48;

/// What a sample changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Nothing BBR must act on.
    Unchanged,
    /// Policed: pace at gain 1 from now on, at [`LongTermBw::bw`].
    Policed,
    /// The long-term rate has been used for its 48 rounds: probe again (ProbeBW from
    /// a random phase).
    Expired,
}

/// What the detector reads of one rate sample (or of a timeout, which counts as one
/// loss and a round start).
#[derive(Debug, Clone, Copy)]
pub(super) struct Observation {
    /// When.
    pub now: SimTime,
    /// The connection's delivered bytes so far (Linux `tp->delivered`).
    pub delivered: u64,
    /// The connection's segments marked lost so far (Linux `tp->lost`).
    pub lost: u64,
    /// Segments this sample found lost (Linux `rs->losses`).
    pub losses: u64,
    /// The sample is application-limited.
    pub app_limited: bool,
    /// The sample began a round.
    pub round_start: bool,
    /// BBR is in ProbeBW.
    pub in_probe_bw: bool,
}

/// The detector's state.
#[derive(Debug)]
pub(super) struct LongTermBw {
    /// Segment size, to weigh lost segments against delivered bytes.
    mss: u64,
    /// Measuring (from the first loss on).
    sampling: bool,
    /// The long-term rate is in force.
    in_use: bool,
    /// The last interval's rate, or the mean of two that agreed, bit/s.
    bw_bps: f64,
    /// Rounds in the current interval (or of use).
    rounds: u32,
    /// Where the interval began: whole milliseconds, as Linux stamps it.
    start_ms: u64,
    start_delivered: u64,
    start_lost: u64,
}

impl LongTermBw {
    /// Not sampling yet, for segments of `mss` bytes.
    pub(super) fn new(mss: u64) -> Self {
        LongTermBw {
            mss,
            sampling: false,
            in_use: false,
            bw_bps: 0.0,
            rounds: 0,
            start_ms: 0,
            start_delivered: 0,
            start_lost: 0,
        }
    }

    /// The policed rate while it is in force.
    pub(super) fn bw(&self) -> Option<f64> {
        self.in_use.then_some(self.bw_bps)
    }

    /// Forgets everything (Linux `bbr_reset_lt_bw_sampling`).
    pub(super) fn reset(&mut self, now: SimTime, delivered: u64, lost: u64) {
        self.bw_bps = 0.0;
        self.in_use = false;
        self.sampling = false;
        self.restart_interval(now, delivered, lost);
    }

    fn restart_interval(&mut self, now: SimTime, delivered: u64, lost: u64) {
        self.start_ms = now.as_ns() / 1_000_000;
        self.start_delivered = delivered;
        self.start_lost = lost;
        self.rounds = 0;
    }

    /// One rate sample, or a timeout.
    pub(super) fn on_sample(&mut self, o: &Observation) -> Verdict {
        let Observation {
            now,
            delivered,
            lost,
            losses,
            app_limited,
            round_start,
            in_probe_bw,
        } = *o;
        let mss = self.mss;
        if self.in_use {
            if in_probe_bw && round_start {
                self.rounds += 1;
                if self.rounds >= USE_ROUNDS {
                    self.reset(now, delivered, lost);
                    return Verdict::Expired;
                }
            }
            return Verdict::Unchanged;
        }
        // Wait for the first loss: before it a policer's tokens inflate the rate.
        if !self.sampling {
            if losses == 0 {
                return Verdict::Unchanged;
            }
            self.restart_interval(now, delivered, lost);
            self.sampling = true;
        }
        if app_limited {
            self.reset(now, delivered, lost);
            return Verdict::Unchanged;
        }
        if round_start {
            self.rounds += 1;
        }
        if self.rounds < MIN_ROUNDS {
            return Verdict::Unchanged;
        }
        if self.rounds > MAX_ROUNDS {
            self.reset(now, delivered, lost);
            return Verdict::Unchanged;
        }
        // The interval ends at a loss: the policer's tokens are then spent.
        if losses == 0 {
            return Verdict::Unchanged;
        }
        let lost_bytes = lost.saturating_sub(self.start_lost) * mss;
        let delivered_bytes = delivered.saturating_sub(self.start_delivered);
        if delivered_bytes == 0 || lost_bytes * 256 < LOSS_THRESHOLD_256THS * delivered_bytes {
            return Verdict::Unchanged;
        }
        let elapsed_ms = (now.as_ns() / 1_000_000).saturating_sub(self.start_ms);
        if elapsed_ms < 1 {
            return Verdict::Unchanged;
        }
        let bw = delivered_bytes as f64 * 8.0 / (elapsed_ms as f64 / 1e3);
        self.interval_done(now, bw, delivered, lost)
    }

    fn interval_done(&mut self, now: SimTime, bw: f64, delivered: u64, lost: u64) -> Verdict {
        if self.bw_bps > 0.0 {
            let diff = (bw - self.bw_bps).abs();
            if diff <= AGREEMENT_RATIO * self.bw_bps || diff <= AGREEMENT_BPS {
                self.bw_bps = (bw + self.bw_bps) / 2.0;
                self.in_use = true;
                self.rounds = 0;
                return Verdict::Policed;
            }
        }
        self.bw_bps = bw;
        self.restart_interval(now, delivered, lost);
        Verdict::Unchanged
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// A sample in ProbeBW, not application-limited.
    fn observe(
        now: SimTime,
        (delivered, lost): (u64, u64),
        losses: u64,
        round_start: bool,
    ) -> Observation {
        Observation {
            now,
            delivered,
            lost,
            losses,
            app_limited: false,
            round_start,
            in_probe_bw: true,
        }
    }

    /// Feeds `n` rounds, one per 10 ms after `from_ms`, each delivering
    /// `bytes_per_round` and losing `lost_per_round` segments; returns the verdicts.
    fn rounds(
        lt: &mut LongTermBw,
        from_ms: u64,
        n: u64,
        bytes_per_round: u64,
        lost_per_round: u64,
        totals: &mut (u64, u64),
    ) -> Vec<Verdict> {
        (1..=n)
            .map(|i| {
                totals.0 += bytes_per_round;
                totals.1 += lost_per_round;
                let now = SimTime::from_ms(from_ms + 10 * i);
                lt.on_sample(&observe(now, *totals, lost_per_round, true))
            })
            .collect()
    }

    /// A policer at 8 Mb/s dropping 3 segments for every 10 kB it delivers (30%, one
    /// 10-ms round each): the first interval ends at its fourth round (40 kB in
    /// 40 ms: 8 Mb/s), the second agrees at the eighth, and BBR is policed at 8 Mb/s.
    #[test]
    fn two_lossy_intervals_that_agree_are_a_policer() {
        let mut lt = LongTermBw::new(MSS);
        let mut totals = (0, 0);
        // The first loss starts the measurement at 10 ms.
        let first = lt.on_sample(&observe(SimTime::from_ms(10), (0, 1), 1, false));
        assert_eq!(first, Verdict::Unchanged);
        totals.1 = 1;
        let v = rounds(&mut lt, 10, 8, 10_000, 3, &mut totals);
        assert_eq!(v[..7], [Verdict::Unchanged; 7]);
        assert_eq!(v[7], Verdict::Policed);
        // 40 kB over 40 ms in each interval: 8 Mb/s.
        assert!((lt.bw().unwrap() - 8e6).abs() < 1.0, "{:?}", lt.bw());
    }

    /// Loss below 50/256 of what was delivered never ends an interval, and after 16
    /// rounds the measurement starts over: no verdict.
    #[test]
    fn light_loss_is_not_a_policer() {
        let mut lt = LongTermBw::new(MSS);
        let mut totals = (0, 1);
        lt.on_sample(&observe(SimTime::from_ms(10), (0, 1), 1, false));
        // 1 segment lost per 10 kB: 10%.
        let v = rounds(&mut lt, 10, 40, 10_000, 1, &mut totals);
        assert!(v.iter().all(|&x| x == Verdict::Unchanged));
        assert!(lt.bw().is_none());
    }

    /// Policed, the rate stands for 48 rounds in ProbeBW, then BBR probes again.
    #[test]
    fn the_policed_rate_expires_after_48_rounds() {
        let mut lt = LongTermBw::new(MSS);
        let mut totals = (0, 1);
        lt.on_sample(&observe(SimTime::from_ms(10), (0, 1), 1, false));
        rounds(&mut lt, 10, 8, 10_000, 3, &mut totals);
        assert!(lt.bw().is_some());
        let v = rounds(&mut lt, 100, 48, 10_000, 0, &mut totals);
        assert_eq!(v[..47], [Verdict::Unchanged; 47]);
        assert_eq!(v[47], Verdict::Expired);
        assert!(lt.bw().is_none());
    }
}
