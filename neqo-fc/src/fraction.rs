//! Exact fractions for configured ratios, so configuration needs no floats.

use crate::math::mul_div;

/// A non-negative rational `num / den` with `den ≥ 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fraction {
    num: u32,
    den: u32,
}

impl Fraction {
    /// Zero.
    pub const ZERO: Self = Self { num: 0, den: 1 };
    /// One quarter: neqo's update threshold and our default seed fraction.
    pub const QUARTER: Self = Self { num: 1, den: 4 };
    /// One half: quiche's, Chromium's and yamux's update threshold.
    pub const HALF: Self = Self { num: 1, den: 2 };
    /// One: "update only when the window is exhausted".
    pub const ONE: Self = Self { num: 1, den: 1 };
    /// One sixteenth: the default tuner's headroom.
    pub const SIXTEENTH: Self = Self { num: 1, den: 16 };
    /// Three: the default growth-budget multiple.
    pub const THREE: Self = Self { num: 3, den: 1 };
    /// Three halves: the default connection-window floor over the largest
    /// stream window (quiche and quic-go use the same ratio).
    pub const THREE_HALVES: Self = Self { num: 3, den: 2 };

    /// `num / den`, or `None` when `den == 0`.
    #[must_use]
    pub const fn new(num: u32, den: u32) -> Option<Self> {
        if den == 0 {
            None
        } else {
            Some(Self { num, den })
        }
    }

    /// Numerator.
    #[must_use]
    pub const fn num(self) -> u32 {
        self.num
    }

    /// Denominator (always ≥ 1).
    #[must_use]
    pub const fn den(self) -> u32 {
        self.den
    }

    /// `⌊x × num / den⌋`, saturating; never panics.
    #[must_use]
    pub fn of(self, x: u64) -> u64 {
        mul_div(x, u64::from(self.num), u64::from(self.den))
    }

    /// `⌈x × num / den⌉`, saturating; never panics.
    #[must_use]
    pub fn of_ceil(self, x: u64) -> u64 {
        crate::math::mul_div_ceil(x, u64::from(self.num), u64::from(self.den))
    }

    /// True if `0 < self ≤ 1`.
    #[must_use]
    pub(crate) const fn is_proper_nonzero(self) -> bool {
        self.num > 0 && self.num <= self.den
    }
}

#[cfg(test)]
mod tests {
    use super::Fraction;

    #[test]
    fn applies_exactly() {
        assert_eq!(Fraction::QUARTER.of(1 << 20), 1 << 18);
        assert_eq!(Fraction::THREE_HALVES.of(1000), 1500);
        assert_eq!(Fraction::QUARTER.of(3), 0);
        assert_eq!(Fraction::THREE_HALVES.of(u64::MAX), u64::MAX);
        assert!(Fraction::new(1, 0).is_none());
    }
}
