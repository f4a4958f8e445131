//! neqo's receive-window auto-tuning as shipped on neqo main
//! (REFERENCES.md): when the bytes retired since the last update exceed
//! what ¾ of the window could carry in the elapsed time at the smoothed
//! RTT, the window grows by four times that excess.
//!
//! Its controller tunes at every update it writes and answers *_BLOCKED
//! at once (the two `Tuner` rules it overrides). Its formula differs from
//! `neqo_fc::ExcessTuner` in three ways: it divides by
//! the smoothed RTT, its share is a constant ¾ whatever update fraction
//! is in force (`ExcessTuner` uses `1 − update_fraction`), and it keeps no
//! headroom and no late-update term.

use neqo_fc::{Fraction, Rtt, TuneInput, Tuner};

use super::caps::WindowCaps;

/// neqo's rule: `excess = delivered − ¾ · window · elapsed / srtt`;
/// `window += 4 · excess` when positive, up to the cap
/// ([`TuneInput::max_window`], from the config: neqo's are
/// [`NeqoTuner::CAPS`]).
///
/// Invariant: never returns less than the current window, nor more than
/// the cap (unless the window already exceeds it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NeqoTuner;

impl NeqoTuner {
    /// neqo main's caps: 10 MiB per stream, 20 MiB per connection.
    pub const CAPS: WindowCaps = WindowCaps {
        stream: 10 << 20,
        connection: 20 << 20,
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
        let cap = input.max_window;
        let window = input.window;
        if window >= cap {
            return window;
        }
        let expected = crate::units::mul_div(
            Self::SHARE.of(window),
            crate::units::nanos(input.elapsed),
            crate::units::nanos(input.rtt.smoothed()),
        );
        match input.delivered.checked_sub(expected) {
            Some(excess) if excess > 0 => window
                .saturating_add(excess.saturating_mul(Self::BONUS))
                .min(cap),
            _ => window,
        }
    }

    fn rtt_used(&self, rtt: Rtt) -> std::time::Duration {
        rtt.smoothed()
    }

    /// neqo runs `auto_tune` before every MAX_* frame it writes.
    fn tunes_every_update(&self) -> bool {
        true
    }

    /// neqo's `send_flowc_update`: a *_BLOCKED makes an update due at once
    /// if anything was retired since the limit was set.
    fn answers_blocked_at_once(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use neqo_fc::SubjectKind;

    use super::*;

    fn input(window: u64, delivered: u64, elapsed_ms: u64, fraction: Fraction) -> TuneInput {
        TuneInput {
            kind: SubjectKind::Stream,
            window,
            max_window: NeqoTuner::CAPS.stream,
            delivered,
            elapsed: Duration::from_millis(elapsed_ms),
            rtt: Rtt::new(Duration::from_millis(100), Duration::from_millis(50)).unwrap(),
            update_fraction: fraction,
            drained_steps: 0,
            late: 0,
        }
    }

    #[test]
    fn grows_by_four_times_the_excess_at_smoothed_rtt() {
        let t = NeqoTuner;
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
        let t = NeqoTuner;
        let half = Fraction::HALF;
        // ExcessTuner would expect only ½ × window here; neqo keeps ¾.
        assert_eq!(t.tune(&input(1_000_000, 750_000, 100, half)), 1_000_000);
        assert_eq!(t.tune(&input(1_000_000, 800_000, 100, half)), 1_200_000);
    }

    #[test]
    fn caps_and_degenerate_inputs() {
        let t = NeqoTuner;
        let q = Fraction::QUARTER;
        assert_eq!(t.tune(&input(9 << 20, 1 << 40, 1, q)), 10 << 20);
        assert_eq!(t.tune(&input(11 << 20, 1 << 40, 1, q)), 11 << 20);
        let mut i = input(1 << 20, 1 << 20, 0, q);
        i.rtt = Rtt::from_sample(Duration::from_nanos(1)).unwrap();
        i.elapsed = Duration::MAX;
        assert_eq!(t.tune(&i), 1 << 20);
        assert_eq!(NeqoTuner::CAPS.of(SubjectKind::Connection), 20 << 20);
    }
}
