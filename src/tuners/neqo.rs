//! neqo's receive-window auto-tuning as shipped on neqo main
//! (REFERENCES.md): when the bytes retired since the last update exceed
//! what ¾ of the window could carry in the elapsed time at the smoothed
//! RTT, the window grows by four times that excess.
//!
//! It differs from `neqo_fc::ExcessTuner` with `RttChoice::Smoothed` in
//! one way: neqo's share is a constant ¾, whatever update fraction is in
//! force, while `ExcessTuner` uses `1 − update_fraction`. With the update
//! fraction at ¼ (neqo's) the two agree.

use neqo_fc::{Fraction, SubjectKind, Tuner, math, tuner::TuneInput};

use super::caps::WindowCaps;

/// neqo's rule: `excess = retired − ¾ · window · elapsed / srtt`;
/// `window += 4 · excess` when positive, capped.
///
/// Invariant: never returns less than the current window, nor more than
/// the cap for the subject kind (unless the window already exceeds it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NeqoTuner {
    /// Largest stream and connection windows (neqo: 10 / 20 MiB).
    pub caps: WindowCaps,
}

impl NeqoTuner {
    /// neqo main's caps: 10 MiB per stream, 20 MiB per connection.
    pub const MAIN: Self = Self {
        caps: WindowCaps {
            stream: 10 << 20,
            connection: 20 << 20,
        },
    };
    /// The share of the window neqo expects to be retired per RTT.
    pub const SHARE: Fraction = match Fraction::new(3, 4) {
        Some(f) => f,
        None => Fraction::ONE,
    };
    /// The multiplier applied to the excess.
    pub const BONUS: u64 = 4;
}

impl Tuner for NeqoTuner {
    fn tune(&self, input: &TuneInput) -> u64 {
        let cap = self.max_window(input.kind);
        let window = input.window;
        if window >= cap {
            return window;
        }
        let expected = math::mul_div(
            Self::SHARE.of(window),
            math::nanos(input.elapsed),
            math::nanos(input.rtt.smoothed),
        );
        match input.retired_since_update.checked_sub(expected) {
            Some(excess) if excess > 0 => window
                .saturating_add(excess.saturating_mul(Self::BONUS))
                .min(cap),
            _ => window,
        }
    }

    fn max_window(&self, kind: SubjectKind) -> u64 {
        self.caps.of(kind)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use neqo_fc::Rtt;

    use super::*;

    fn input(window: u64, retired: u64, elapsed_ms: u64, fraction: Fraction) -> TuneInput {
        TuneInput {
            kind: SubjectKind::Stream,
            window,
            retired_since_update: retired,
            elapsed: Duration::from_millis(elapsed_ms),
            rtt: Rtt::new(Duration::from_millis(100), Duration::from_millis(50)),
            update_fraction: fraction,
            drained_at_limit: false,
        }
    }

    #[test]
    fn grows_by_four_times_the_excess_at_smoothed_rtt() {
        let t = NeqoTuner::MAIN;
        // expected = ¾ × 1,000,000 × 100/100 = 750,000 (srtt, not min_rtt).
        let q = Fraction::QUARTER;
        assert_eq!(t.tune(&input(1_000_000, 750_000, 100, q)), 1_000_000);
        assert_eq!(t.tune(&input(1_000_000, 750_001, 100, q)), 1_000_004);
        assert_eq!(t.tune(&input(1_000_000, 749_999, 100, q)), 1_000_000);
        // Half an RTT: expected 375,000.
        assert_eq!(t.tune(&input(1_000_000, 375_010, 50, q)), 1_000_040);
    }

    #[test]
    fn share_ignores_the_update_fraction() {
        let t = NeqoTuner::MAIN;
        let half = Fraction::HALF;
        // ExcessTuner would expect only ½ × window here; neqo keeps ¾.
        assert_eq!(t.tune(&input(1_000_000, 750_000, 100, half)), 1_000_000);
        assert_eq!(t.tune(&input(1_000_000, 800_000, 100, half)), 1_200_000);
    }

    #[test]
    fn caps_and_degenerate_inputs() {
        let t = NeqoTuner::MAIN;
        let q = Fraction::QUARTER;
        assert_eq!(t.tune(&input(9 << 20, 1 << 40, 1, q)), 10 << 20);
        assert_eq!(t.tune(&input(11 << 20, 1 << 40, 1, q)), 11 << 20);
        let mut i = input(1 << 20, 1 << 20, 0, q);
        i.rtt = Rtt::from(Duration::ZERO);
        i.elapsed = Duration::MAX;
        assert_eq!(t.tune(&i), 1 << 20);
        assert_eq!(
            t.max_window(SubjectKind::Connection),
            20 << 20,
            "connection cap"
        );
    }
}
