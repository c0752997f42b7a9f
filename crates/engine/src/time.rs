//! Simulated time and the two physical quantities the engine computes with.
//!
//! Time is an integer count of nanoseconds so that event order never depends on
//! floating-point rounding: the same scenario gives the same event sequence on every
//! machine. Unit *parsing* ("2ms", "10Mbps") lives in the Python front end; the engine
//! only ever sees integers in SI base units (ns, bit/s, bytes).

use std::ops::{Add, AddAssign, Sub};

/// A point in simulated time, in nanoseconds since the start of the run.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    /// The start of every simulation.
    pub const ZERO: SimTime = SimTime(0);
    /// A time later than any run can reach; used as "never".
    pub const NEVER: SimTime = SimTime(u64::MAX);

    /// A time `ns` nanoseconds after the start.
    pub const fn from_ns(ns: u64) -> Self {
        SimTime(ns)
    }

    /// A time `ms` milliseconds after the start.
    pub const fn from_ms(ms: u64) -> Self {
        SimTime(ms * 1_000_000)
    }

    /// A time `s` seconds after the start.
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * 1_000_000_000)
    }

    /// Nanoseconds since the start.
    pub const fn as_ns(self) -> u64 {
        self.0
    }

    /// Seconds since the start, for reporting only (never for ordering).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }

    /// `self − d`, or zero if `d` is later.
    pub fn saturating_sub(self, d: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(d.0))
    }

    /// `self + d`, saturating at [`SimTime::NEVER`] instead of overflowing.
    pub fn saturating_add(self, d: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}

impl Add for SimTime {
    type Output = SimTime;
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(self.0 + rhs.0)
    }
}

impl AddAssign for SimTime {
    fn add_assign(&mut self, rhs: SimTime) {
        self.0 += rhs.0;
    }
}

impl Sub for SimTime {
    type Output = SimTime;
    fn sub(self, rhs: SimTime) -> SimTime {
        SimTime(self.0 - rhs.0)
    }
}

/// `x.round() as u64` (halves away from zero, negatives to 0) without the libm call
/// that `f64::round` becomes on baseline x86-64: per-ACK RTT and pacing arithmetic
/// uses it. Exact, since `x − trunc(x)` is exact below 2^52 (and zero above).
#[inline]
pub fn round_ns(x: f64) -> u64 {
    if (0.0..TWO_POW_63).contains(&x) {
        // Signed conversions are single instructions on x86-64; unsigned ones a dozen.
        let t = x as i64;
        (t + (x - t as f64 >= 0.5) as i64) as u64
    } else {
        let t = x as u64;
        t + (x - t as f64 >= 0.5) as u64
    }
}

/// `x.ceil() as u64` (negatives to 0) without a libm call; exact like [`round_ns`].
#[inline]
pub fn ceil_ns(x: f64) -> u64 {
    if (0.0..TWO_POW_63).contains(&x) {
        let t = x as i64;
        (t + ((t as f64) < x) as i64) as u64
    } else {
        let t = x as u64;
        t + ((t as f64) < x) as u64
    }
}

const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;

/// Time to clock `bytes` onto a link of `rate_bps`, rounded *up* to the next whole
/// nanosecond (a frame has not left until its last bit has).
pub fn serialization_time(bytes: u64, rate_bps: u64) -> SimTime {
    let rate = rate_bps.max(1);
    match bytes.checked_mul(8_000_000_000) {
        // The common case stays in 64-bit arithmetic (a 128-bit division is ~4x slower).
        Some(bits_ns) => SimTime(bits_ns.div_ceil(rate)),
        None => SimTime((bytes as u128 * 8_000_000_000).div_ceil(rate as u128) as u64),
    }
}

/// Time between packets of `bytes` sent at a mean rate of `rate_bps` (rounded to
/// the nearest nanosecond; used by traffic sources, not by links).
pub fn interval_for_rate(bytes: u64, rate_bps: u64) -> SimTime {
    let bits_ns = bytes as u128 * 8 * 1_000_000_000;
    let rate = rate_bps.max(1) as u128;
    SimTime(((bits_ns + rate / 2) / rate) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `round_ns` and `ceil_ns` agree with the standard library's `f64::round` and
    /// `f64::ceil` on halves, near-halves, integers, negatives and large values.
    #[test]
    fn rounding_matches_the_standard_library() {
        let mut xs = vec![
            0.0,
            0.5,
            1.5,
            2.5,
            -0.5,
            -0.7,
            -3.0,
            1e15 + 0.5,
            4.5e15,
            9.223372036854775e18,
            9_223_372_036_854_775_808.0,
            1.8e19,
            f64::NAN,
        ];
        for k in 0..2000u64 {
            let base = (k * 7919) as f64;
            xs.extend([
                base,
                base + 0.5,
                base + 0.49999999999,
                base + 0.5000001,
                base + 1e-9,
            ]);
            xs.push(base * 1234.5678 + 0.25);
        }
        for x in xs {
            assert_eq!(round_ns(x), x.round() as u64, "round {x}");
            assert_eq!(ceil_ns(x), x.ceil() as u64, "ceil {x}");
        }
    }

    #[test]
    fn serialization_of_1500_bytes_at_100mbps_is_120us() {
        assert_eq!(serialization_time(1500, 100_000_000), SimTime(120_000));
    }

    #[test]
    fn serialization_rounds_up_partial_nanoseconds() {
        // 1 byte at 3 bit/ns = 8/3 ns -> 3 ns.
        assert_eq!(serialization_time(1, 3_000_000_000), SimTime(3));
    }

    #[test]
    fn cbr_interval_of_1028_bytes_at_6mbps() {
        // 1028*8 / 6e6 s = 1.370666.. ms -> 1_370_667 ns.
        assert_eq!(interval_for_rate(1028, 6_000_000), SimTime(1_370_667));
    }
}
