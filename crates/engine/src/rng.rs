//! Deterministic random streams, one per model component.
//!
//! Every component that draws random numbers (a link's loss model, a RED queue, a
//! Poisson source) owns a private [`Rng`] seeded from the run seed *and a stable name
//! of the component* (e.g. `"loss:router_left->router_right"`). Adding a flow or a link
//! therefore never shifts another component's random sequence, and reruns with the
//! same seed are identical. The generator is xoshiro256++ seeded through SplitMix64,
//! written here from the published algorithm descriptions (Blackman & Vigna).

/// A seeded pseudo-random generator owned by one component.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// 64-bit FNV-1a of a component name: stable across Rust versions and platforms,
/// unlike `std`'s `Hasher`.
fn fnv1a(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

impl Rng {
    /// The stream of the component called `name` in a run seeded with `seed`.
    pub fn for_component(seed: u64, name: &str) -> Rng {
        let mut state = seed ^ fnv1a(name).rotate_left(17);
        let s = [
            splitmix64(&mut state),
            splitmix64(&mut state),
            splitmix64(&mut state),
            splitmix64(&mut state),
        ];
        Rng { s }
    }

    /// The next 64 uniformly distributed bits (xoshiro256++).
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A uniform draw from [0, 1) with 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `true` with probability `p` (clamped to [0, 1]).
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }

    /// An exponentially distributed draw with the given mean (inverse transform).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - U lies in (0, 1], so the logarithm is finite.
        -mean * (1.0 - self.uniform()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_name_give_the_same_stream() {
        let mut a = Rng::for_component(7, "loss:a->b");
        let mut b = Rng::for_component(7, "loss:a->b");
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn different_names_give_different_streams() {
        let mut a = Rng::for_component(7, "loss:a->b");
        let mut b = Rng::for_component(7, "loss:b->a");
        assert_ne!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn uniform_mean_is_one_half() {
        let mut r = Rng::for_component(1, "x");
        let n = 200_000;
        let mean = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        // Standard error of the mean of U(0,1) is sqrt(1/12/n) ~ 0.00065; allow 5 sigma.
        assert!((mean - 0.5).abs() < 0.0033, "mean {mean}");
    }

    #[test]
    fn exponential_mean_matches() {
        let mut r = Rng::for_component(1, "exp");
        let n = 200_000;
        let mean = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        // sd of the sample mean = 2/sqrt(n) ~ 0.0045; allow 5 sigma.
        assert!((mean - 2.0).abs() < 0.023, "mean {mean}");
    }
}
