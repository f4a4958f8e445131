//! The run's pseudo-random number generator: xoshiro256** seeded by SplitMix64.
//!
//! Algorithms from D. Blackman and S. Vigna, "Scrambled Linear Pseudorandom
//! Number Generators", ACM TOMS 47(4), 2021 (xoshiro256**), and S. Vigna's
//! SplitMix64 seeding recommendation. Unbiased bounded integers use
//! D. Lemire, "Fast Random Integer Generation in an Interval", ACM TOMACS
//! 29(1), 2019. Everything is integer arithmetic, so a seed gives the same
//! stream on every platform.

/// Golden-ratio increment of SplitMix64.
const SPLITMIX_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;
/// Salt that separates a forked generator's seed from plain `Rng::new` seeds.
const FORK_SALT: u64 = 0x6a09_e667_f3bc_c908;

/// One step of SplitMix64: advances `state` and returns the mixed output.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(SPLITMIX_GAMMA);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A deterministic xoshiro256** generator.
///
/// Invariant: the 256-bit state is never all zero (SplitMix64 is a bijection
/// of its counter, so four consecutive outputs cannot all be zero).
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator whose state is the first four SplitMix64 outputs for `seed`.
    #[must_use]
    pub fn new(seed: u64) -> Rng {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        debug_assert!(s.iter().any(|&w| w != 0));
        Rng { s }
    }

    /// The next 64 uniformly distributed bits (xoshiro256**).
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A uniform float in `[0, 1)` with 53 random bits (multiples of 2^-53).
    #[allow(clippy::cast_precision_loss)]
    pub fn next_f64(&mut self) -> f64 {
        // 53 bits fit an f64 mantissa exactly.
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform integer in `[0, n)`, without modulo bias; `0` when `n == 0`
    /// (consuming no randomness then).
    ///
    /// Lemire's multiply-and-reject: the high word of `x * n` is uniform once
    /// the few low words below `2^64 mod n` are rejected.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        #[allow(clippy::cast_possible_truncation)]
        let mut low = m as u64;
        if low < n {
            let threshold = n.wrapping_neg() % n;
            while low < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
                #[allow(clippy::cast_possible_truncation)]
                {
                    low = m as u64;
                }
            }
        }
        #[allow(clippy::cast_possible_truncation)]
        let high = (m >> 64) as u64;
        high
    }

    /// `true` with probability `p`. `p <= 0` (or NaN) is never and `p >= 1`
    /// always; neither consumes randomness.
    pub fn chance(&mut self, p: f64) -> bool {
        if p >= 1.0 {
            return true;
        }
        if p > 0.0 {
            return self.next_f64() < p;
        }
        false
    }

    /// A new generator seeded from this one's next output, for giving a
    /// component its own stream. Deterministic: the same parent state forks
    /// the same child, and the parent advances by exactly one output.
    #[must_use]
    pub fn fork(&mut self) -> Rng {
        Rng::new(self.next_u64() ^ FORK_SALT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_reference() {
        // First SplitMix64 output for state 0, as published with the algorithm.
        let mut s = 0;
        assert_eq!(splitmix64(&mut s), 0xe220_a839_7b1d_cdaf);
    }

    /// First outputs locked against an independent reference implementation
    /// (Python, arbitrary-precision integers masked to 64 bits).
    #[test]
    fn known_outputs_seed_0() {
        let mut r = Rng::new(0);
        assert_eq!(
            r.s,
            [
                0xe220_a839_7b1d_cdaf,
                0x6e78_9e6a_a1b9_65f4,
                0x06c4_5d18_8009_454f,
                0xf88b_b8a8_724c_81ec
            ]
        );
        let got: Vec<u64> = (0..5).map(|_| r.next_u64()).collect();
        assert_eq!(
            got,
            [
                0x99ec_5f36_cb75_f2b4,
                0xbf6e_1f78_4956_452a,
                0x1a5f_849d_4933_e6e0,
                0x6aa5_94f1_262d_2d2c,
                0xbba5_ad4a_1f84_2e59
            ]
        );
    }

    #[test]
    fn known_outputs_seed_42() {
        let mut r = Rng::new(42);
        let got: Vec<u64> = (0..5).map(|_| r.next_u64()).collect();
        assert_eq!(
            got,
            [
                0x1578_0b2e_0c2e_c716,
                0x6104_d986_6d11_3a7e,
                0xae17_5332_39e4_99a1,
                0xecb8_ad47_03b3_60a1,
                0xfde6_dc7f_e2ec_5e64
            ]
        );
    }

    #[test]
    fn next_f64_in_unit_interval_and_uniform() {
        let mut r = Rng::new(7);
        let n = 100_000;
        let mut bins = [0u32; 10];
        let mut sum = 0.0;
        for _ in 0..n {
            let x = r.next_f64();
            assert!((0.0..1.0).contains(&x));
            sum += x;
            bins[(x * 10.0) as usize] += 1;
        }
        // Mean of U[0,1): sd of the mean = sqrt(1/12/n) ~ 0.00091; 5 sigma.
        assert!(
            (sum / f64::from(n) - 0.5).abs() < 0.0046,
            "mean {}",
            sum / f64::from(n)
        );
        // Each bin: expect 10,000, sd ~ 95; allow 5 sigma.
        for b in bins {
            assert!((9_525..=10_475).contains(&b), "bins {bins:?}");
        }
    }

    #[test]
    fn below_bounds_and_uniformity() {
        let mut r = Rng::new(1);
        assert_eq!(r.below(0), 0);
        assert_eq!(r.below(1), 0);
        let mut counts = [0u32; 3];
        for _ in 0..30_000 {
            let v = r.below(3);
            counts[usize::try_from(v).unwrap()] += 1;
        }
        // Expect 10,000 each, sd ~ 82; 5 sigma.
        for c in counts {
            assert!((9_590..=10_410).contains(&c), "counts {counts:?}");
        }
        // A bound just above 2^63 rejects about half the draws; still in range.
        let big = (1u64 << 63) + 1;
        let mut above_half = 0;
        for _ in 0..1_000 {
            let v = r.below(big);
            assert!(v < big);
            if v >= 1 << 62 {
                above_half += 1;
            }
        }
        // P(v >= 2^62) = 1/2 -> ~500 +- 16.
        assert!((420..=580).contains(&above_half), "{above_half}");
        assert!(r.below(u64::MAX) < u64::MAX);
    }

    #[test]
    fn chance_extremes_and_rate() {
        let mut r = Rng::new(3);
        let before = r.clone().next_u64();
        assert!(!r.chance(0.0));
        assert!(!r.chance(-1.0));
        assert!(!r.chance(f64::NAN));
        assert!(r.chance(1.0));
        assert!(r.chance(2.0));
        // The extremes consumed nothing.
        assert_eq!(r.clone().next_u64(), before);
        let hits = (0..100_000).filter(|_| r.chance(0.25)).count();
        // sd = sqrt(1e5 * 0.25 * 0.75) ~ 137; 5 sigma.
        assert!((24_315..=25_685).contains(&hits), "{hits}");
    }

    #[test]
    fn same_seed_same_stream_different_seed_differs() {
        let mut a = Rng::new(99);
        let mut b = Rng::new(99);
        let mut c = Rng::new(100);
        let va: Vec<u64> = (0..100).map(|_| a.next_u64()).collect();
        let vb: Vec<u64> = (0..100).map(|_| b.next_u64()).collect();
        let vc: Vec<u64> = (0..100).map(|_| c.next_u64()).collect();
        assert_eq!(va, vb);
        assert!(va.iter().zip(&vc).all(|(x, y)| x != y));
    }

    #[test]
    fn fork_is_deterministic_and_independent() {
        let mut p1 = Rng::new(5);
        let mut p2 = Rng::new(5);
        let mut c1 = p1.fork();
        let mut c2 = p2.fork();
        // Deterministic: same parent state, same child and same parent afterwards.
        let s1: Vec<u64> = (0..50).map(|_| c1.next_u64()).collect();
        let s2: Vec<u64> = (0..50).map(|_| c2.next_u64()).collect();
        assert_eq!(s1, s2);
        assert_eq!(p1.next_u64(), p2.next_u64());
        // Parent advanced by exactly one output.
        let mut reference = Rng::new(5);
        reference.next_u64();
        reference.next_u64();
        assert_eq!(p1.clone().next_u64(), reference.next_u64());
        // Independent: the child's stream shares no values with the parent's
        // next outputs, and two successive forks differ.
        let parent: Vec<u64> = (0..1_000).map(|_| p1.next_u64()).collect();
        let child: Vec<u64> = (0..1_000).map(|_| c1.next_u64()).collect();
        assert!(child.iter().all(|v| !parent.contains(v)));
        let mut f1 = p1.fork();
        let mut f2 = p1.fork();
        assert_ne!(f1.next_u64(), f2.next_u64());
        // Bit-level correlation check: the XOR of parent and child words has
        // ~32 set bits on average (sd of the mean over 1000 words ~ 0.13).
        let ones: u32 = parent
            .iter()
            .zip(&child)
            .map(|(a, b)| (a ^ b).count_ones())
            .sum();
        let mean = f64::from(ones) / 1_000.0;
        assert!((mean - 32.0).abs() < 0.7, "mean differing bits {mean}");
    }
}
