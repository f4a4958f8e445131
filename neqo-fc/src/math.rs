//! Overflow-safe integer arithmetic for the tuning path: `u64` only, no
//! `u128`, no floating point, never a panic.

use std::time::Duration;

/// The largest value a QUIC variable-length integer can carry, 2^62 − 1
/// (RFC 9000 §16). Every offset and limit in this crate stays ≤ this.
pub const MAX_VARINT: u64 = (1 << 62) - 1;

/// `d` in nanoseconds, saturating at `u64::MAX` (≈ 584 years).
#[must_use]
pub(crate) fn nanos(d: Duration) -> u64 {
    d.as_secs()
        .saturating_mul(1_000_000_000)
        .saturating_add(u64::from(d.subsec_nanos()))
}

/// `⌊a × b / c⌋`, exact and saturating at `u64::MAX`; `c == 0` counts as 1.
#[must_use]
pub(crate) fn mul_div(a: u64, b: u64, c: u64) -> u64 {
    mul_div_rem(a, b, c).0
}

/// `⌈a × b / c⌉`, likewise.
#[must_use]
pub(crate) fn mul_div_ceil(a: u64, b: u64, c: u64) -> u64 {
    match mul_div_rem(a, b, c) {
        (q, true) => q.saturating_add(1),
        (q, false) => q,
    }
}

/// Quotient (saturating) and whether the remainder is non-zero; beyond 64 bits,
/// a 128-bit product and a shift-subtract division.
fn mul_div_rem(a: u64, b: u64, c: u64) -> (u64, bool) {
    let c = c.max(1);
    if let Some(p) = a.checked_mul(b) {
        return (p / c, p % c != 0);
    }
    let (hi, lo) = wide_mul(a, b);
    if hi >= c {
        return (u64::MAX, false); // the quotient does not fit in 64 bits
    }
    // Long division of (hi:lo) by c, one bit at a time; `rem < c` holds
    // throughout, and `carry` keeps the bit shifted out of `rem`.
    let mut rem = hi;
    let mut quot = 0u64;
    for i in (0..64).rev() {
        let carry = rem >> 63;
        rem = (rem << 1) | ((lo >> i) & 1);
        quot <<= 1;
        if carry == 1 || rem >= c {
            rem = rem.wrapping_sub(c);
            quot |= 1;
        }
    }
    (quot, rem != 0)
}

/// Full 128-bit product of two `u64` as `(high, low)` words.
fn wide_mul(a: u64, b: u64) -> (u64, u64) {
    const MASK: u64 = 0xffff_ffff;
    let (a_hi, a_lo) = (a >> 32, a & MASK);
    let (b_hi, b_lo) = (b >> 32, b & MASK);
    let ll = a_lo * b_lo;
    let lh = a_lo * b_hi;
    let hl = a_hi * b_lo;
    let hh = a_hi * b_hi;
    let mid = (ll >> 32) + (lh & MASK) + (hl & MASK);
    let lo = (ll & MASK) | (mid << 32);
    let hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    (hi, lo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn small_values_are_exact() {
        assert_eq!(mul_div(10, 3, 4), 7);
        assert_eq!(mul_div(0, u64::MAX, 3), 0);
        assert_eq!(mul_div(5, 5, 0), 25);
    }

    #[test]
    fn wide_products_are_exact() {
        // 2^62 × 3600 s in ns / 50 ms in ns = 2^62 × 72_000
        assert_eq!(mul_div(1 << 62, 72_000, 1), u64::MAX);
        assert_eq!(mul_div(1 << 62, 3_600_000_000_000, 50_000_000), u64::MAX);
        assert_eq!(mul_div(u64::MAX, u64::MAX, u64::MAX), u64::MAX);
        assert_eq!(mul_div(1 << 40, 1 << 40, 1 << 30), 1 << 50);
        assert_eq!(mul_div(u64::MAX, 2, 4), u64::MAX / 2);
    }

    #[test]
    fn nanos_saturates() {
        assert_eq!(nanos(Duration::from_millis(50)), 50_000_000);
        assert_eq!(nanos(Duration::MAX), u64::MAX);
    }

    proptest! {
        #[test]
        fn matches_wide_reference(a: u64, b: u64, c in 1u64..) {
            // The test (not the crate) may use u128 as the reference.
            let exact = u128::from(a) * u128::from(b) / u128::from(c);
            let want = u64::try_from(exact).unwrap_or(u64::MAX);
            prop_assert_eq!(mul_div(a, b, c), want);
            let ceil = (u128::from(a) * u128::from(b)).div_ceil(u128::from(c));
            let want = u64::try_from(ceil).unwrap_or(u64::MAX);
            prop_assert_eq!(mul_div_ceil(a, b, c), want);
        }

        #[test]
        fn small_operands_take_both_paths(a in 0u64..1 << 40, b in 0u64..1 << 40, c in 1u64..1 << 20) {
            let exact = u128::from(a) * u128::from(b);
            prop_assert_eq!(u128::from(mul_div(a, b, c)), (exact / u128::from(c)).min(u128::from(u64::MAX)));
        }
    }
}
