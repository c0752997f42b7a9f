//! BBR's bottleneck-bandwidth filter.

/// BtlBw: the windowed maximum of delivery-rate samples, kept as Kathleen Nichols'
/// running estimator (Linux's `lib/win_minmax.c`, which BBR uses): the best sample and
/// two runners-up from later in the window, so that when the best ages out a recent
/// one takes over. Ages are counted in rounds, and only a new sample ages the
/// estimate: while every sample is ignored (application-limited, ProbeRTT) the last
/// maximum stands, as in Linux — a filter that forgot it by the clock would lose the
/// path's rate in every ProbeRTT of more than ten rounds.
#[derive(Debug)]
pub(super) struct BwFilter {
    /// Window length, rounds.
    window: u64,
    /// (round, bit/s): the maximum, then the best later ones, oldest first.
    best: [(u64, f64); 3],
}

impl BwFilter {
    /// A filter over the last `rounds` rounds.
    pub(super) fn new(rounds: u32) -> Self {
        BwFilter {
            window: rounds as u64,
            best: [(0, 0.0); 3],
        }
    }

    /// A sample `bw` taken in `round`.
    pub(super) fn update(&mut self, round: u64, bw: f64) {
        let sample = (round, bw);
        let [first, second, third] = self.best;
        // A new maximum, or nothing left inside the window: start over from it.
        if bw >= first.1 || round.saturating_sub(third.0) > self.window {
            self.best = [sample; 3];
            return;
        }
        if bw >= second.1 {
            self.best[1] = sample;
            self.best[2] = sample;
        } else if bw >= third.1 {
            self.best[2] = sample;
        }
        let age = round.saturating_sub(self.best[0].0);
        if age > self.window {
            // The maximum is too old: the runners-up move up, the sample comes last
            // (twice, if the next one is too old as well).
            self.best = [self.best[1], self.best[2], sample];
            if round.saturating_sub(self.best[0].0) > self.window {
                self.best = [self.best[1], self.best[2], sample];
            }
        } else if self.best[1].0 == self.best[0].0 && age > self.window / 4 {
            // A quarter of the window gone with no distinct runner-up: take this one.
            self.best[1] = sample;
            self.best[2] = sample;
        } else if self.best[2].0 == self.best[1].0 && age > self.window / 2 {
            self.best[2] = sample;
        }
    }

    /// The estimate: the current maximum, however old (see the type's doc).
    pub(super) fn max(&self) -> f64 {
        self.best[0].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without new samples the maximum stands, however many rounds pass (ProbeRTT's
    /// ignored samples must not erase the path's rate).
    #[test]
    fn the_maximum_stands_until_a_sample_ages_it() {
        let mut f = BwFilter::new(10);
        f.update(1, 100.0);
        assert_eq!(f.max(), 100.0);
        // Nothing for 30 rounds: still 100.
        f.update(31, 20.0);
        // ...until a sample arrives past the window: then it is all that is left.
        assert_eq!(f.max(), 20.0);
    }

    /// A maximum older than the window gives way to the best sample taken after it,
    /// worked by hand: 100 at round 0, 90 at round 3 (a quarter of the window gone:
    /// the runner-up), 80 at round 6 (half gone: the third); at round 11 the 100 is
    /// 11 rounds old, so 90 (round 3) leads.
    #[test]
    fn an_aged_maximum_yields_to_the_best_later_sample() {
        let mut f = BwFilter::new(10);
        f.update(0, 100.0);
        f.update(3, 90.0);
        f.update(6, 80.0);
        assert_eq!(f.max(), 100.0);
        f.update(11, 50.0);
        assert_eq!(f.max(), 90.0);
        // A larger sample always takes over at once.
        f.update(12, 95.0);
        assert_eq!(f.max(), 95.0);
    }
}
