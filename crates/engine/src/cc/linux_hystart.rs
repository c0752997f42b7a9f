//! Linux's HyStart (Ha & Rhee 2011) as `net/ipv4/tcp_cubic.c` runs it (6.x,
//! `hystart_update`, `bictcp_hystart_reset`): slow start ends, ssthresh = cwnd, when
//! either detector fires from a window of 16 segments on —
//!
//! * ACK train: the round's ACKs keep arriving within 2 ms of each other for longer than
//!   half of (min RTT + the ACK delay allowance): the pipe is full;
//! * delay: the least of the round's RTT samples, after eight of them, exceeds the
//!   minimum RTT by an eighth of it clamped to [4, 16] ms: a queue is building.
//!
//! HyStart++ (RFC 9406, `hystart` in `cubic.rs`) is the IETF's different design; this is
//! what the kernel, and so `tcplab emu`, runs.

use super::AckEvent;
use crate::time::SimTime;

/// `hystart_low_window`: no detection below this many segments.
const LOW_WINDOW: u32 = 16;
/// `hystart_ack_delta_us`: ACKs this close belong to one train.
const ACK_DELTA: SimTime = SimTime::from_ms(2);
/// `HYSTART_MIN_SAMPLES`.
const MIN_SAMPLES: u32 = 8;
/// `HYSTART_DELAY_MIN` and `HYSTART_DELAY_MAX`.
const DELAY_MIN: SimTime = SimTime::from_ms(4);
const DELAY_MAX: SimTime = SimTime::from_ms(16);
/// `GSO_MAX_SIZE` in `hystart_ack_delay`: four of them at the pacing rate, at most 1 ms.
const GSO_MAX_BYTES: f64 = 65_536.0;

/// One round's detector state.
#[derive(Debug, Clone, Default)]
pub struct LinuxHyStart {
    /// When the round began (its first ACK).
    round_start: Option<SimTime>,
    /// The last ACK of the current train.
    last_ack: SimTime,
    /// The least RTT sample of the round.
    round_min_rtt: Option<SimTime>,
    samples: u32,
    /// Slow start has been ended.
    found: bool,
}

impl LinuxHyStart {
    /// An ACK in slow start with a window of `cwnd_segments` of `mss` bytes: whether
    /// slow start ends now.
    pub fn on_ack(&mut self, ack: &AckEvent, cwnd_segments: u32, mss: u64) -> bool {
        if self.found {
            return false;
        }
        let exit = match self.round_start {
            Some(start) if cwnd_segments >= LOW_WINDOW => {
                self.detect(ack, start, cwnd_segments, mss)
            }
            _ => false,
        };
        // Linux resets in cong_avoid, after hystart_update has seen this ACK.
        if ack.round_start || self.round_start.is_none() {
            self.round_start = Some(ack.now);
            self.last_ack = ack.now;
            self.round_min_rtt = None;
            self.samples = 0;
        }
        self.found = exit;
        exit
    }

    fn detect(&mut self, ack: &AckEvent, start: SimTime, cwnd_segments: u32, mss: u64) -> bool {
        let Some(min_rtt) = ack.min_rtt else {
            return false;
        };
        if ack.now - self.last_ack <= ACK_DELTA {
            self.last_ack = ack.now;
            let threshold = SimTime((min_rtt + ack_delay(ack, cwnd_segments, mss)).as_ns() / 2);
            if ack.now - start > threshold {
                return true;
            }
        }
        if let Some(rtt) = ack.rtt {
            let least = self.round_min_rtt.map_or(rtt, |m| m.min(rtt));
            self.round_min_rtt = Some(least);
            if self.samples < MIN_SAMPLES {
                self.samples += 1;
            } else if least > min_rtt + SimTime(min_rtt.as_ns() / 8).max(DELAY_MIN).min(DELAY_MAX) {
                return true;
            }
        }
        false
    }

    /// Starts over (after a timeout, as `bictcp_reset` on entering Loss).
    pub fn reset(&mut self) {
        *self = Self::default();
    }
}

/// `hystart_ack_delay`: the time four 64 KB GSO bursts take at the pacing rate (TCP's
/// own: twice cwnd/SRTT in slow start), at most 1 ms; 0 before an RTT is known.
fn ack_delay(ack: &AckEvent, cwnd_segments: u32, mss: u64) -> SimTime {
    let Some(srtt) = ack.srtt.filter(|s| s.as_ns() > 0) else {
        return SimTime::ZERO;
    };
    let rate = 2.0 * (cwnd_segments as u64 * mss) as f64 / (srtt.as_ns() as f64 / 1e9);
    let seconds = (4.0 * GSO_MAX_BYTES / rate).min(1e-3);
    SimTime((seconds * 1e9) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(now_us: u64, rtt_ms: f64, round_start: bool) -> AckEvent {
        let mut a = AckEvent::empty(SimTime(now_us * 1000));
        a.rtt = Some(SimTime((rtt_ms * 1e6) as u64));
        a.min_rtt = Some(SimTime::from_ms(40));
        a.srtt = Some(SimTime::from_ms(40));
        a.round_start = round_start;
        a
    }

    /// A 40 ms path at 1.2 ms per packet: a round's ACKs come as one train. With 64
    /// segments of 1,448 B the pacing rate is 4.6 MB/s, so the ACK delay allowance is
    /// its 1 ms cap and the threshold (40 + 1)/2 = 20.5 ms: the 17th ACK after the
    /// round's first (at 20.4 ms) does not end slow start, the 18th (21.6 ms) does.
    #[test]
    fn an_ack_train_longer_than_half_the_min_rtt_ends_slow_start() {
        let mut h = LinuxHyStart::default();
        assert!(!h.on_ack(&ack(0, 40.0, true), 64, 1448));
        let mut ended_at = None;
        for k in 1..40u64 {
            if h.on_ack(&ack(k * 1200, 40.0, false), 64, 1448) {
                ended_at = Some(k);
                break;
            }
        }
        assert_eq!(ended_at, Some(18), "21.6 ms > 20.5 ms");
    }

    /// ACKs 3 ms apart are no train; the delay detector fires once a round's least RTT,
    /// after eight samples, exceeds 40 + max(5, 4) = 45 ms.
    #[test]
    fn a_queue_building_ends_slow_start_after_eight_samples() {
        let mut h = LinuxHyStart::default();
        h.on_ack(&ack(0, 40.0, true), 64, 1448);
        for k in 1..=8u64 {
            assert!(
                !h.on_ack(&ack(k * 3000, 45.5, false), 64, 1448),
                "sample {k}"
            );
        }
        assert!(h.on_ack(&ack(9 * 3000, 46.0, false), 64, 1448));
    }

    #[test]
    fn nothing_below_sixteen_segments() {
        let mut h = LinuxHyStart::default();
        h.on_ack(&ack(0, 40.0, true), 15, 1448);
        for k in 1..100u64 {
            assert!(!h.on_ack(&ack(k * 1000, 80.0, false), 15, 1448));
        }
    }
}
