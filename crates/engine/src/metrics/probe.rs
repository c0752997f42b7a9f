//! What a sender reports of its congestion state each time the flow meter samples it.

use crate::time::SimTime;

/// A snapshot of a sender's congestion state, sampled into per-bin time series.
#[derive(Debug, Clone, Copy)]
pub struct Probe {
    /// Usable congestion window, bytes.
    pub cwnd_bytes: u64,
    /// Slow-start threshold, bytes (`u64::MAX` before the first loss).
    pub ssthresh_bytes: u64,
    /// Smoothed RTT, if measured.
    pub srtt: Option<SimTime>,
    /// Names of the congestion-control algorithm's own state values.
    pub cc_names: &'static [&'static str],
    /// Those values, in the same order.
    pub cc_state: [f64; crate::cc::STATE_SLOTS],
}

impl Probe {
    /// The state of a sender whose usable window is `cwnd_bytes`, whose algorithm is
    /// `cc`, and whose smoothed RTT is `srtt`.
    pub fn of(
        cwnd_bytes: u64,
        cc: &dyn crate::cc::CongestionControl,
        srtt: Option<SimTime>,
    ) -> Self {
        Probe {
            cwnd_bytes,
            ssthresh_bytes: cc.ssthresh(),
            srtt,
            cc_names: cc.state_names(),
            cc_state: cc.state(),
        }
    }
}
