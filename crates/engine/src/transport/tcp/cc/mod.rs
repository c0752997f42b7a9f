//! Congestion control: a small trait, one file per algorithm.
//!
//! The sender state machine (sequence space, SACK scoreboard, timers, fast-recovery
//! window inflation) is shared; an algorithm only decides the congestion window and
//! slow-start threshold at the moments Linux's `tcp_congestion_ops` hooks mark: on
//! ACKs outside recovery, on a congestion event, on a retransmission timeout, and when
//! recovery ends. It gets RTT samples and base RTT (for delay-based algorithms such as
//! Vegas and FAST) and delivery-rate samples (for BBR), and may ask for a pacing rate.
//! Adding HighSpeed, Scalable, BIC, CUBIC, Vegas, FAST or BBR means adding one file
//! here and one name in `new_controller`.

mod reno;

pub use reno::Reno;

use crate::config::CongestionControlKind;
use crate::time::SimTime;

/// What an acknowledgement tells the algorithm.
#[derive(Debug, Clone, Copy)]
pub struct AckSample {
    /// When the ACK arrived.
    pub now: SimTime,
    /// Bytes newly acknowledged (cumulatively or by SACK).
    pub bytes_acked: u64,
    /// RTT measured by this ACK, if any (Karn's rule applied).
    pub rtt: Option<SimTime>,
    /// Smallest RTT seen on the connection.
    pub min_rtt: Option<SimTime>,
    /// Smoothed RTT.
    pub srtt: Option<SimTime>,
    /// Bytes in flight after this ACK.
    pub in_flight: u64,
    /// Delivery rate sample, bit/s, if one could be taken.
    pub delivery_rate_bps: Option<f64>,
    /// The sender was limited by the application, not the window.
    pub app_limited: bool,
}

/// A congestion-control algorithm. Windows are in bytes.
pub trait CongestionControl: std::fmt::Debug + Send {
    /// Short name, as in scenario files.
    fn name(&self) -> &'static str;
    /// Congestion window.
    fn cwnd(&self) -> u64;
    /// Slow-start threshold.
    fn ssthresh(&self) -> u64;
    /// An ACK of new data arrived outside loss recovery (Linux `cong_avoid`).
    fn on_ack(&mut self, ack: &AckSample);
    /// Loss detected by duplicate ACKs or SACK (fast retransmit): reduce the window
    /// (Linux `ssthresh`); `flight_bytes` is FlightSize (RFC 5681 eq. 4).
    fn on_congestion_event(&mut self, now: SimTime, flight_bytes: u64);
    /// The retransmission timer expired; `basis_bytes` is what ssthresh is halved from
    /// (FlightSize per RFC 5681 eq. 4, or the window as ns-2 and Linux do: the sender's
    /// `timeout_ssthresh`); `first` is false for a further expiry of the same
    /// retransmission, which RFC 5681 (section 3.1) says must not lower ssthresh again.
    fn on_retransmission_timeout(&mut self, now: SimTime, basis_bytes: u64, first: bool);
    /// Fast recovery ended (the window inflation is dropped by the sender).
    fn on_recovery_end(&mut self, _now: SimTime) {}
    /// Pacing rate the algorithm wants, bit/s (`None`: let the sender derive one).
    fn pacing_rate_bps(&self) -> Option<f64> {
        None
    }
}

/// The controller for `kind`, with maximum segment size `mss` and initial window `iw` bytes.
pub fn new_controller(
    kind: CongestionControlKind,
    mss: u64,
    iw: u64,
) -> Box<dyn CongestionControl> {
    match kind {
        CongestionControlKind::Reno => Box::new(Reno::new("reno", mss, iw)),
        CongestionControlKind::Newreno => Box::new(Reno::new("newreno", mss, iw)),
    }
}
