//! Congestion control: a small trait, one file per algorithm, configs that build
//! controllers.
//!
//! The sender state machine (sequence space, SACK scoreboard, timers, fast-recovery
//! window inflation, the choice of loss recovery) is shared; an algorithm decides the
//! congestion window, the slow-start threshold and optionally a pacing rate, at the
//! moments Linux's `tcp_congestion_ops` hooks mark: every ACK ([`AckEvent`], with
//! "in recovery" and "cwnd-limited" flags, round starts and a delivery-rate sample),
//! every transmission, a congestion event, a retransmission timeout, the end of
//! recovery. Growth rules (Reno's AIMD included) live in the algorithms, as in Linux.
//!
//! Adding an algorithm: one file here with a `Config` (every published parameter with
//! its default; `#[serde(default)]`), a controller implementing [`CongestionControl`],
//! and one line in the `algorithms!` registration below.

mod bbr;
mod bic;
mod cubic;
mod cubic_linux26;
mod fast;
mod gaimd;
mod highspeed;
mod linux_hystart;
mod reno;
mod scalable;
mod sctp;
mod vegas;
pub mod window;

#[cfg(test)]
mod sequences;

pub use reno::Reno;

use crate::rng::Rng;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// A delivery-rate sample (IETF draft-cheng-iccrg-delivery-rate-estimation, section 3.3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateSample {
    /// Bytes delivered over the sample's interval.
    pub delivered_bytes: u64,
    /// max(send elapsed, ACK elapsed) of the newest delivered segment.
    pub interval: SimTime,
    /// `delivered_bytes / interval`, bit/s.
    pub delivery_rate_bps: f64,
    /// The newest delivered segment was sent while the sender was application-limited.
    pub is_app_limited: bool,
    /// Connection-wide bytes delivered when that segment was sent.
    pub prior_delivered: u64,
    /// RTT of that segment (now − its last transmission).
    pub rtt: SimTime,
}

/// What an acknowledgement tells the algorithm. Every ACK arrives, duplicates included.
#[derive(Debug, Clone, Copy)]
pub struct AckEvent {
    /// When the ACK arrived.
    pub now: SimTime,
    /// Bytes newly acknowledged cumulatively, as the growth rule counts them (the
    /// sender's `cwnd_counting`: all of them, or at most one segment per ACK); 0 for a
    /// duplicate ACK.
    pub bytes_acked: u64,
    /// Bytes newly acknowledged cumulatively, however counted (Linux `pkts_acked`).
    pub newly_acked_bytes: u64,
    /// Bytes newly delivered: cumulatively acknowledged and not SACKed before, plus
    /// newly SACKed.
    pub delivered_bytes: u64,
    /// RTT measured by this ACK, if any (Karn's rule applied).
    pub rtt: Option<SimTime>,
    /// Smallest RTT seen on the connection.
    pub min_rtt: Option<SimTime>,
    /// Smoothed RTT.
    pub srtt: Option<SimTime>,
    /// Bytes in flight after this ACK (RFC 6675 pipe; without SACK, less what the
    /// duplicate ACKs reported delivered, as Linux's `tcp_packets_in_flight`).
    pub in_flight: u64,
    /// Bytes in flight before this ACK, counted the same way.
    pub prior_in_flight: u64,
    /// The sender is in fast recovery (Linux `TCP_CA_Recovery`).
    pub in_recovery: bool,
    /// The window, not the receiver or the application, limited the last
    /// transmission (Linux `tcp_is_cwnd_limited`): only then may a window grow.
    pub cwnd_limited: bool,
    /// This ACK starts a new round trip: it acknowledges a segment sent after the
    /// previous round began (draft-cheng-iccrg-delivery-rate-estimation; BBR's rounds).
    pub round_start: bool,
    /// Round trips counted so far.
    pub round_count: u64,
    /// Delivery-rate sample, if this ACK delivered something and the interval was long
    /// enough to be meaningful.
    pub rate: Option<RateSample>,
    /// Segments newly marked lost (Linux `rs->losses`). The sender hands an ACK to the
    /// algorithm before its own loss detection runs, so these are the markings since
    /// the previous ACK was handed over: that ACK's, and a timeout's in between.
    pub losses: u64,
}

impl AckEvent {
    /// An ACK with nothing in it at `now`: a starting point for tests and tools.
    pub fn empty(now: SimTime) -> Self {
        AckEvent {
            now,
            bytes_acked: 0,
            newly_acked_bytes: 0,
            delivered_bytes: 0,
            rtt: None,
            min_rtt: None,
            srtt: None,
            in_flight: 0,
            prior_in_flight: 0,
            in_recovery: false,
            cwnd_limited: true,
            round_start: false,
            round_count: 0,
            rate: None,
            losses: 0,
        }
    }

    /// Whether a loss-based window may grow on this ACK (Linux calls `cong_avoid` only
    /// outside recovery and when cwnd-limited, on ACKs of new data).
    pub fn may_grow(&self) -> bool {
        self.bytes_acked > 0 && !self.in_recovery && self.cwnd_limited
    }
}

/// Up to this many named values of an algorithm's own state are sampled into the
/// per-bin time series (CUBIC's W_max, Vegas's diff, BBR's bandwidth estimate, …).
pub const STATE_SLOTS: usize = 4;

/// A congestion-control algorithm. Windows are in bytes.
pub trait CongestionControl: std::fmt::Debug + Send {
    /// Short name, as in scenario files.
    fn name(&self) -> &'static str;
    /// Congestion window.
    fn cwnd(&self) -> u64;
    /// Slow-start threshold (`u64::MAX` while unset).
    fn ssthresh(&self) -> u64;
    /// An acknowledgement arrived (new or duplicate).
    fn on_ack(&mut self, ack: &AckEvent);
    /// A segment of `bytes` was (re)transmitted with `in_flight` bytes outstanding
    /// before it (Linux `CA_EVENT_TX_START` when that is 0).
    fn on_sent(&mut self, _now: SimTime, _bytes: u64, _in_flight: u64) {}
    /// Loss detected by duplicate ACKs or SACK (fast retransmit): reduce the window
    /// (Linux `ssthresh`); `flight_bytes` is FlightSize (RFC 5681 eq. 4), `in_flight`
    /// the pipe.
    fn on_congestion_event(&mut self, now: SimTime, flight_bytes: u64, in_flight: u64);
    /// The retransmission timer expired: the window falls to one segment (RFC 5681
    /// 3.1). `new_event` says whether the timeout is a congestion signal not yet
    /// answered; only then is ssthresh reduced, from `basis_bytes` (the pipe per RFC
    /// 5681 eq. 4 with RFC 6675's count, or the window as ns-2 and Linux do: the
    /// sender's `timeout_ssthresh`). It is false for a further expiry of the same
    /// retransmission (RFC 5681 section 3.1: ssthresh is not lowered again) and, with
    /// `timeout_reduction = "once_per_window"`, for a loss in a window whose reduction
    /// was already made (Linux `tcp_enter_loss`); an algorithm then leaves its
    /// decrease state (W_max and the like) alone too.
    fn on_retransmission_timeout(&mut self, now: SimTime, basis_bytes: u64, new_event: bool);
    /// Fast recovery ended (the window inflation is dropped by the sender).
    fn on_recovery_end(&mut self, _now: SimTime) {}
    /// The last reduction proved spurious (RFC 4015's response as Linux makes it,
    /// `tcp_undo_cwnd_reduction` with the `undo_cwnd` op): cwnd back to at least
    /// `prior_cwnd`, ssthresh to at least `prior_ssthresh` (`u64::MAX`: unset, slow
    /// start again). Algorithms outside the window model keep theirs (BBR, as Linux's
    /// `bbr_undo_cwnd`).
    fn undo_reduction(&mut self, _prior_cwnd: u64, _prior_ssthresh: u64) {}
    /// Linux 2.6's `min_cwnd` op: how far rate halving may take the window in
    /// recovery (ssthresh unless the module says otherwise; ssthresh/2 for the modules
    /// that use `tcp_reno_min_cwnd`).
    fn min_cwnd(&self) -> u64 {
        self.ssthresh()
    }
    /// Recovery by rate halving ended with the window at `max_bytes`: cwnd becomes at
    /// most that (Linux 2.6 `tcp_complete_cwr`). Algorithms outside Linux 2.6's window
    /// model (BBR, FAST) keep theirs.
    fn limit_cwnd(&mut self, _max_bytes: u64) {}
    /// A timeout found the path holding no more than `max_bytes`: ssthresh becomes at
    /// most that (whole segments, at least two), so the slow start after it stops
    /// there. Algorithms without a threshold of their own (BBR, FAST) keep theirs.
    fn limit_ssthresh(&mut self, _max_bytes: u64) {}
    /// Pacing rate the algorithm wants, bit/s (`None`: let the sender derive one).
    fn pacing_rate_bps(&self) -> Option<f64> {
        None
    }
    /// The algorithm sets cwnd on every ACK, in recovery too, with its own rule (Linux's
    /// `cong_control` op, BBR's packet conservation): the sender's PRR or rate halving
    /// does not run over it (`tcp_cong_control` skips `tcp_cwnd_reduction`).
    fn controls_recovery_window(&self) -> bool {
        false
    }
    /// The algorithm reads [`AckEvent::rate`] (BBR): others spare the sender computing it.
    fn wants_rate_samples(&self) -> bool {
        false
    }
    /// The algorithm holds its own sending below what the path takes (BBR's ProbeRTT):
    /// the sender marks what is in flight application-limited, so that the low
    /// delivery rates it yields do not read as the path's (Linux's
    /// `bbr_update_min_rtt`: "Ignore low rate samples during this mode"). Asked only
    /// of algorithms that want rate samples.
    fn holds_back_sending(&self) -> bool {
        false
    }
    /// The algorithm only works paced (BBR): the sender paces whatever `pacing` says.
    fn requires_pacing(&self) -> bool {
        false
    }
    /// Names of the state values [`CongestionControl::state`] reports (at most
    /// [`STATE_SLOTS`]); they become time-series columns `cc_<name>`.
    fn state_names(&self) -> &'static [&'static str] {
        &[]
    }
    /// The current values of the named state, in the order of `state_names`.
    fn state(&self) -> [f64; STATE_SLOTS] {
        [f64::NAN; STATE_SLOTS]
    }
}

/// What a controller is built with besides its own parameters.
#[derive(Debug, Clone)]
pub struct BuildContext {
    /// Payload bytes of a full segment.
    pub mss: u64,
    /// Initial window, bytes.
    pub initial_window: u64,
    /// The flow's own random stream (BBR's random gain-cycle phase).
    pub rng: Rng,
    /// ns-2's window arithmetic (the sender's `cwnd_counting = "ns2"`): Reno's
    /// congestion avoidance adds SMSS·SMSS/cwnd on every ACK (RFC 5681 eq. 3, ns-2's
    /// `cwnd_ += 1/cwnd_`), so a reduction halves what the window has reached (down
    /// to one segment: ns-2's `slowdown` floors only ssthresh), and ssthresh is a whole
    /// number of segments, at least two (ns-2's `int ssthresh_`).
    pub window_in_packets: bool,
    /// Linux 2.6's slow-start test, `snd_cwnd <= snd_ssthresh` (in
    /// `tcp_reno_cong_avoid` and every module of the time; today's
    /// `tcp_in_slow_start` tests `<`, as RFC 5681 3.1): an ACK at cwnd = ssthresh
    /// still slow-starts, one segment more after each reduction.
    pub slow_start_at_ssthresh: bool,
    /// The most segments one ACK may add to cwnd in slow start: RFC 3465 (2.2)'s L = 2
    /// when counting bytes, 1 when counting ACKs; `None` for every segment it covers,
    /// up to ssthresh (Linux's `tcp_slow_start` since 3.8). Without a limit a
    /// cumulative ACK that jumps over data the receiver held — the end of a go-back-N
    /// — opens the window to ssthresh in one line-rate burst.
    pub slow_start_limit: Option<u32>,
}

/// A rejected parameter: which one and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamError {
    /// The parameter's scenario key (e.g. `beta`).
    pub field: String,
    /// What was expected.
    pub message: String,
}

impl ParamError {
    /// An error about `field`.
    pub fn new(field: &str, message: impl Into<String>) -> Self {
        ParamError {
            field: field.to_string(),
            message: message.into(),
        }
    }
}

/// Checks that `value` lies in the open interval (`lo`, `hi`).
pub(crate) fn check_open(field: &str, value: f64, lo: f64, hi: f64) -> Result<(), ParamError> {
    if value > lo && value < hi {
        Ok(())
    } else {
        Err(ParamError::new(
            field,
            format!("must lie strictly between {lo} and {hi}, got {value}"),
        ))
    }
}

/// Checks that `value` is finite and greater than 0.
pub(crate) fn check_positive(field: &str, value: f64) -> Result<(), ParamError> {
    if value > 0.0 && value.is_finite() {
        Ok(())
    } else {
        Err(ParamError::new(
            field,
            format!("must be greater than 0, got {value}"),
        ))
    }
}

/// An algorithm's configuration: its parameters, their check, its named presets, and
/// the controller it builds.
pub trait AlgorithmConfig: Default + Serialize + Clone {
    /// Rejects out-of-range parameters, naming the first bad one.
    fn validate(&self) -> Result<(), ParamError>;
    /// The controller these parameters describe.
    fn build(&self, ctx: BuildContext) -> Box<dyn CongestionControl>;
    /// Named parameter sets (e.g. `linux-2.6.18`: what that kernel's module did),
    /// each as a complete configuration.
    fn presets() -> Vec<(&'static str, Self)> {
        Vec::new()
    }
}

/// Declares the algorithms: each line is `Variant "name" => module::Config`, the name
/// being the algorithm's spelling in scenario files.
macro_rules! algorithms {
    ($($variant:ident $name:literal => $module:ident :: $config:ident),* $(,)?) => {
        /// An algorithm and its parameters, as in scenario files:
        /// `{"algorithm": "cubic", "beta": 0.7, ...}` (missing parameters take defaults).
        #[derive(Clone, Debug, Deserialize, Serialize)]
        #[serde(tag = "algorithm")]
        pub enum CcConfig {
            $(
                #[allow(missing_docs)]
                #[serde(rename = $name)]
                $variant($module::$config),
            )*
        }

        impl CcConfig {
            /// The controller for this configuration.
            pub fn build(&self, ctx: BuildContext) -> Box<dyn CongestionControl> {
                match self { $(CcConfig::$variant(c) => c.build(ctx),)* }
            }

            /// The algorithm's scenario name.
            pub fn name(&self) -> &'static str {
                match self { $(CcConfig::$variant(_) => $name,)* }
            }

            /// Rejects out-of-range parameters.
            pub fn validate(&self) -> Result<(), ParamError> {
                match self { $(CcConfig::$variant(c) => c.validate(),)* }
            }

            /// Every algorithm with its default parameters and presets, as JSON:
            /// `{name: {"defaults": {...}, "presets": {preset: {...}}}}` — the scenario
            /// layer derives its keys and types from it.
            pub fn catalogue() -> serde_json::Value {
                let mut all = serde_json::Map::new();
                $(
                    let defaults = CcConfig::$variant($module::$config::default());
                    let mut presets = serde_json::Map::new();
                    for (name, preset) in $module::$config::presets() {
                        presets.insert(name.to_string(), params_json(&CcConfig::$variant(preset)));
                    }
                    let mut entry = serde_json::Map::new();
                    entry.insert("defaults".into(), params_json(&defaults));
                    entry.insert("presets".into(), serde_json::Value::Object(presets));
                    all.insert(defaults.name().to_string(), serde_json::Value::Object(entry));
                )*
                serde_json::Value::Object(all)
            }
        }
    };
}

algorithms! {
    Reno "reno" => reno::RenoConfig,
    Newreno "newreno" => reno::NewRenoConfig,
    Highspeed "highspeed" => highspeed::Config,
    Scalable "scalable" => scalable::Config,
    Bic "bic" => bic::Config,
    Cubic "cubic" => cubic::Config,
    Vegas "vegas" => vegas::Config,
    Fast "fast" => fast::Config,
    Bbr "bbr" => bbr::Config,
    Gaimd "gaimd" => gaimd::Config,
    Sctp "sctp" => sctp::Config,
}

impl CcConfig {
    /// The Reno algorithm with default parameters.
    pub fn reno() -> Self {
        CcConfig::Reno(reno::RenoConfig::default())
    }

    /// The NewReno algorithm (Reno's growth rule) with default parameters.
    pub fn newreno() -> Self {
        CcConfig::Newreno(reno::NewRenoConfig::default())
    }
}

/// The parameters of `c` without the tag.
fn params_json(c: &CcConfig) -> serde_json::Value {
    let mut v = serde_json::to_value(c).unwrap_or(serde_json::Value::Null);
    if let serde_json::Value::Object(m) = &mut v {
        m.remove("algorithm");
    }
    v
}
