//! Delivery-rate estimation and round-trip counting, as in the IETF draft
//! "Delivery Rate Estimation" (draft-cheng-iccrg-delivery-rate-estimation; Linux
//! `tcp_rate.c`), which feeds BBR.
//!
//! Each transmission is stamped with the connection's delivered count, the time of the
//! latest delivery and the send time of the first segment of the current flight
//! ([`DeliveryStamp`], kept in the scoreboard). When an ACK delivers segments, the newest
//! of them (the one sent last) gives the sample: bytes delivered since it was sent,
//! over max(send elapsed, ACK elapsed) (section 3.3). A round trip ends when a segment
//! sent after the previous round began is delivered.

use crate::cc::RateSample;
use crate::time::SimTime;

/// Connection state a segment carries from its transmission to its delivery
/// (section 3.2: `P.delivered`, `P.delivered_time`, `P.first_sent_time`,
/// `P.is_app_limited`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeliveryStamp {
    /// Bytes delivered on the connection when the segment was sent.
    pub delivered: u64,
    /// When the latest of those was delivered.
    pub delivered_time: SimTime,
    /// Send time of the first segment of the flight it belongs to.
    pub first_sent_time: SimTime,
    /// Sent while the application, not the network, limited the sender.
    pub app_limited: bool,
}

/// The newest segment delivered by one ACK: its stamp and its last send time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivered {
    /// The segment's stamp.
    pub stamp: DeliveryStamp,
    /// When it was last (re)transmitted.
    pub sent_at: SimTime,
}

impl Delivered {
    /// The newer of `self` and `other` (the one sent with more delivered before it,
    /// then the one sent later).
    pub fn newest(self, other: Option<Delivered>) -> Delivered {
        match other {
            Some(o) if (o.stamp.delivered, o.sent_at) > (self.stamp.delivered, self.sent_at) => o,
            _ => self,
        }
    }
}

/// What one ACK contributes: a round start and, when meaningful, a rate sample.
#[derive(Debug, Clone, Copy, Default)]
pub struct AckRate {
    /// The ACK began a new round trip.
    pub round_start: bool,
    /// The sample, if the interval was at least the minimum RTT.
    pub sample: Option<RateSample>,
}

/// The connection-wide counters (section 3.1: `C.delivered`, `C.delivered_time`,
/// `C.first_sent_time`, `C.app_limited`) plus round counting.
#[derive(Debug, Clone, Default)]
pub struct RateSampler {
    delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    /// Non-zero: the delivered count beyond which samples stop being app-limited.
    app_limited_until: u64,
    next_round_delivered: u64,
    round_count: u64,
}

impl RateSampler {
    /// A connection with nothing delivered.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Round trips completed.
    pub fn round_count(&self) -> u64 {
        self.round_count
    }

    /// Stamps a transmission at `now` with `outstanding` bytes sent and not yet
    /// acknowledged before it (section 3.2, "Upon transmitting a data packet": a new
    /// flight starts only when nothing is outstanding, `SND.NXT == SND.UNA`; Linux
    /// `tcp_rate_skb_sent` tests `packets_out`). Segments marked lost still count: after
    /// a timeout the first retransmission must not restart the clocks, or the go-back-N's
    /// cumulative ACKs would be measured over a fraction of the time they took.
    pub fn on_send(&mut self, now: SimTime, outstanding: u64) -> DeliveryStamp {
        if outstanding == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        DeliveryStamp {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: self.app_limited_until != 0,
        }
    }

    /// The sender ran out of data with `in_flight` bytes outstanding and room left in
    /// the window: samples until that flight is delivered are app-limited (section 3.4).
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited_until = (self.delivered + in_flight).max(1);
    }

    /// An ACK at `now` delivered `bytes` new bytes, the newest segment being `newest`
    /// (section 3.3, "Upon receiving ACK"); `min_rtt` bounds the sample's interval; no
    /// sample is computed unless `want_sample`.
    pub fn on_ack(
        &mut self,
        now: SimTime,
        bytes: u64,
        newest: Option<Delivered>,
        min_rtt: Option<SimTime>,
        want_sample: bool,
    ) -> AckRate {
        let Some(newest) = newest else {
            // Without a delivered segment's record (a duplicate ACK without SACK,
            // counted by the sender as one segment delivered) the count grows but
            // there is no sample: Linux's tcp_rate_gen with no prior_mstamp.
            if bytes > 0 {
                self.delivered += bytes;
                self.delivered_time = now;
            }
            return AckRate::default();
        };
        self.delivered += bytes;
        self.delivered_time = now;
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let p = newest.stamp;
        let round_start = p.delivered >= self.next_round_delivered;
        if round_start {
            self.next_round_delivered = self.delivered;
            self.round_count += 1;
        }
        // The flight the newest segment opened now starts at its send time.
        self.first_sent_time = newest.sent_at;
        if !want_sample {
            return AckRate {
                round_start,
                sample: None,
            };
        }
        let send_elapsed = newest.sent_at.saturating_sub(p.first_sent_time);
        let ack_elapsed = now.saturating_sub(p.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        let delivered_bytes = self.delivered - p.delivered;
        let rtt = now.saturating_sub(newest.sent_at);
        // Section 3.3: an interval shorter than min RTT would overestimate the rate.
        let long_enough = interval > SimTime::ZERO && min_rtt.is_none_or(|m| interval >= m);
        let sample = long_enough.then(|| RateSample {
            delivered_bytes,
            interval,
            delivery_rate_bps: delivered_bytes as f64 * 8e9 / interval.as_ns() as f64,
            is_app_limited: p.app_limited,
            prior_delivered: p.delivered,
            rtt,
        });
        AckRate {
            round_start,
            sample,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A duplicate ACK without SACK has no segment to date a sample from, but what it
    /// reports delivered still counts (Linux's tp->delivered grows; no sample): the
    /// next sample's delivered bytes include it.
    #[test]
    fn delivery_without_a_segment_record_counts_but_gives_no_sample() {
        let mut r = RateSampler::default();
        let stamp = r.on_send(SimTime::ZERO, 0);
        let none = r.on_ack(SimTime::from_ms(10), 1000, None, None, true);
        assert!(none.sample.is_none());
        let newest = Delivered {
            stamp,
            sent_at: SimTime::ZERO,
        };
        let s = r.on_ack(SimTime::from_ms(20), 1000, Some(newest), None, true);
        assert_eq!(s.sample.expect("a sample").delivered_bytes, 2000);
    }

    fn ms(x: u64) -> SimTime {
        SimTime::from_ms(x)
    }

    /// After a timeout every outstanding segment is marked lost, so nothing is "in
    /// flight"; but it is still outstanding, and the retransmission must not start a
    /// new flight (Linux `tcp_rate_skb_sent` tests `packets_out`, "we don't want
    /// spurious RTOs or loss markings to cause a spuriously small time interval"). Worked
    /// by hand: segment 0 left at 0 and was delivered at 100 ms; the timeout's
    /// retransmission leaves at 400 ms; its ACK at 420 ms delivers 50,000 B (the
    /// receiver held them). The send phase runs from 0 (400 ms), the ACK phase from
    /// 100 ms (320 ms): 50,000 B over 400 ms, 1 Mb/s — not over 20 ms (20 Mb/s), as a
    /// flight restarted at 400 ms would have it.
    #[test]
    fn a_retransmission_after_a_timeout_does_not_restart_the_flight() {
        let mut r = RateSampler::new();
        let first = r.on_send(ms(0), 0);
        r.on_ack(
            ms(100),
            1000,
            Some(Delivered {
                stamp: first,
                sent_at: ms(0),
            }),
            None,
            true,
        );
        // 60,000 B outstanding, all marked lost by the timeout.
        let resent = r.on_send(ms(400), 60_000);
        assert_eq!(resent.delivered_time, ms(100));
        let s = r
            .on_ack(
                ms(420),
                50_000,
                Some(Delivered {
                    stamp: resent,
                    sent_at: ms(400),
                }),
                Some(ms(20)),
                true,
            )
            .sample
            .expect("a sample");
        assert_eq!(s.interval, ms(400));
        assert!(
            (s.delivery_rate_bps - 1e6).abs() < 1.0,
            "{}",
            s.delivery_rate_bps
        );
    }

    /// Ten 1000-byte segments sent back to back at t = 0, ACKed one per ms from
    /// t = 100 ms: each sample is the bytes delivered since the segment was sent over
    /// the ACK elapsed time (the send elapsed time is 0).
    #[test]
    fn back_to_back_flight_is_measured_at_the_ack_rate() {
        let mut r = RateSampler::new();
        let stamps: Vec<_> = (0..10).map(|i| r.on_send(ms(0), i * 1000)).collect();
        let mut last = None;
        for (i, s) in stamps.iter().enumerate() {
            let now = ms(100 + i as u64);
            let d = Delivered {
                stamp: *s,
                sent_at: ms(0),
            };
            last = r.on_ack(now, 1000, Some(d), Some(ms(100)), true).sample;
        }
        let s = last.unwrap();
        // Segment 10 was stamped with delivered = 0 at delivered_time 0: 10,000 B
        // over 109 ms.
        assert_eq!(s.delivered_bytes, 10_000);
        assert_eq!(s.interval, ms(109));
        assert!((s.delivery_rate_bps - 10_000.0 * 8.0 / 0.109).abs() < 1e-6);
    }

    #[test]
    fn rounds_advance_once_per_flight() {
        let mut r = RateSampler::new();
        let a = r.on_send(ms(0), 0);
        let b = r.on_send(ms(0), 1000);
        let first = r.on_ack(
            ms(10),
            1000,
            Some(Delivered {
                stamp: a,
                sent_at: ms(0),
            }),
            None,
            true,
        );
        assert!(first.round_start);
        let c = r.on_send(ms(10), 1000); // sent after round 1 began
        let second = r.on_ack(
            ms(10),
            1000,
            Some(Delivered {
                stamp: b,
                sent_at: ms(0),
            }),
            None,
            true,
        );
        assert!(!second.round_start);
        let third = r.on_ack(
            ms(20),
            1000,
            Some(Delivered {
                stamp: c,
                sent_at: ms(10),
            }),
            None,
            true,
        );
        assert!(third.round_start);
        assert_eq!(r.round_count(), 2);
    }

    #[test]
    fn app_limited_marking_ends_when_the_flight_is_delivered() {
        let mut r = RateSampler::new();
        r.mark_app_limited(2000);
        let a = r.on_send(ms(0), 0);
        assert!(a.app_limited);
        r.on_ack(
            ms(10),
            2001,
            Some(Delivered {
                stamp: a,
                sent_at: ms(0),
            }),
            None,
            true,
        );
        assert!(!r.on_send(ms(10), 0).app_limited);
    }
}
