//! The default tuner: grow by the excess of retired bytes over what the
//! current window could have carried, times a bonus.
//!
//! Rule (M. Thomson, neqo PR #1868; neqo ships it with a fixed ¾ share):
//!
//! ```text
//! effective = window − update_fraction × window
//! expected  = effective × elapsed / rtt
//! excess    = delivered − expected     (bytes that arrived and were read)
//! window   += bonus × excess          if excess > 0, capped
//! ```
//!
//! Why `effective = (1 − f) × window`: the sender's limit lags the reader
//! by up to `f × window` (the receiver waits for that much retirement
//! before updating), so only `(1 − f) × window` is sure to be usable each
//! RTT. A window is therefore "enough" once `(1 − f) × window / rtt`
//! covers the retire rate, i.e. at `window = BDP / (1 − f)` — ≈ 1.33 × BDP
//! for the default f = ¼ — where the excess, and growth, stop.
//!
//! The bonus: while the window limits the sender, a whole window is
//! retired per RTT, so the excess is `f × window` per RTT. A bonus of
//! `1 / f` grows the window by one window per RTT, exactly as fast as slow
//! start doubles the sender's congestion window, so the window would trail
//! it by the delay of each step; the default, `1.5 / f` (6), grows it by
//! one and a half windows per RTT and leads the sender instead. The fixed
//! point (no excess) is the same whatever the bonus.
//!
//! The rule assumes the update leaves as soon as it is due. A stack that
//! writes it late (a pacer that holds a receive-mostly endpoint's
//! MAX_STREAM_DATA back) withholds from the sender, on top of
//! `f × window`, what was read while the frame waited
//! ([`TuneInput::late`]). The tuner counts up to one more quantum of it as
//! unusable: the shortfall it explains grows the window once, without the
//! bonus, since a delay does not ramp with the sender. A late stack so
//! settles at most at `BDP / (1 − 2f)`; a stack that writes updates at
//! once reports `late = 0` and sees the plain rule.
//!
//! With `f = 1` (update only on exhaustion) no window is ever "enough" —
//! the sender always stalls for a round trip — so the tuner grows to its
//! cap, which is the honest answer for that update policy.
//!
//! The denominator is `min_rtt` by default: `smoothed_rtt` includes
//! queueing delay that a bigger window would only make worse (a standing
//! queue inflates srtt, which inflates the window, which lets the sender
//! fill more queue). neqo divides by `smoothed_rtt`.

use super::{TuneInput, Tuner};
use crate::{Fraction, math};

/// The excess-retirement tuner. Never returns less than the current
/// window; the controller clamps what it returns to the cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExcessTuner {
    /// Multiplier applied to the excess (default 6).
    pub bonus: u64,
    /// Share of the effective window held back as headroom (default 1/16):
    /// `effective = (1 − f) × window × (1 − headroom)`.
    pub headroom: Fraction,
}

impl ExcessTuner {
    /// The default: bonus 6, headroom 1/16.
    pub const DEFAULT: Self = Self {
        bonus: 6,
        headroom: Fraction::SIXTEENTH,
    };
}

impl Default for ExcessTuner {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl Tuner for ExcessTuner {
    fn tune(&self, input: &TuneInput) -> u64 {
        let window = input.window;
        let rtt = self.rtt_used(input.rtt);
        // A reader that drained all the peer could send, step after step,
        // was held back by the window alone: judge it over at most one
        // RTT, or a reader that wakes less often than once per RTT (and
        // then reads a whole window) would look slower than the window and
        // never grow it. A single such step proves less: the peer may have
        // been slow (after a loss, or while a late update was on its way)
        // and only caught up with the limit at the end, so it is judged
        // over its whole interval. The growth is scaled back up to the
        // whole gap below.
        let elapsed = if input.drained_steps >= 2 {
            input.elapsed.min(rtt)
        } else {
            input.elapsed
        };
        let expected = |held_back: u64| {
            let usable = window - held_back.min(window);
            let effective = usable - self.headroom.of(usable).min(usable);
            math::mul_div(effective, math::nanos(elapsed), math::nanos(rtt))
        };
        // The sender lacks the update quantum each round trip; more than
        // that was read beyond what the window carries: grow by the bonus.
        let quantum = input.update_fraction.of(window);
        let on_time = expected(quantum);
        let excess = input.delivered.saturating_sub(on_time);
        // It also lacked what was read while a late update waited (at
        // most another quantum): what the window carries shrinks by that
        // much, and the shortfall it explains grows the window once, with
        // no bonus — the delay does not ramp with the sender.
        let with_delay = expected(quantum.saturating_add(input.late.min(quantum)));
        let delay_excess = input.delivered.min(on_time).saturating_sub(with_delay);
        // Judged over one RTT, a reader that woke less often grows by
        // that RTT's excess for every RTT of its gap, up to two: as much as
        // a reader that read all along would have grown it. Not behind a
        // late update, whose gap is the stack's delay rather than a timer
        // (scaling it would grow the window once per delay, not per RTT).
        let gap = input.elapsed.min(elapsed.saturating_mul(2));
        let excess = if elapsed < gap && input.late == 0 {
            math::mul_div(excess, math::nanos(gap), math::nanos(elapsed))
        } else {
            excess
        };
        // The controller clamps this to the cap.
        window
            .saturating_add(excess.saturating_mul(self.bonus))
            .saturating_add(delay_excess)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::{Rtt, SubjectKind};

    const CAP: u64 = 32 << 20;

    fn rtt(ms: u64) -> Rtt {
        Rtt::from_sample(Duration::from_millis(ms)).unwrap()
    }

    fn input(window: u64, delivered: u64, elapsed_ms: u64) -> TuneInput {
        TuneInput {
            kind: SubjectKind::Stream,
            window,
            max_window: CAP,
            delivered,
            elapsed: Duration::from_millis(elapsed_ms),
            rtt: rtt(100),
            update_fraction: Fraction::QUARTER,
            drained_steps: 0,
            late: 0,
        }
    }

    /// The rule without headroom and with bonus 4, to check the formula
    /// itself.
    const NO_HEADROOM: ExcessTuner = ExcessTuner {
        headroom: Fraction::ZERO,
        bonus: 4,
    };

    #[test]
    fn grows_by_bonus_times_excess() {
        // effective = 750_000; expected over 100 ms = 750_000.
        let t = NO_HEADROOM;
        assert_eq!(t.tune(&input(1_000_000, 750_000, 100)), 1_000_000);
        assert_eq!(t.tune(&input(1_000_000, 750_001, 100)), 1_000_004);
        assert_eq!(t.tune(&input(1_000_000, 749_999, 100)), 1_000_000);
        // A whole window per RTT doubles it.
        assert_eq!(t.tune(&input(1_000_000, 1_000_000, 100)), 2_000_000);
    }

    #[test]
    fn bytes_read_while_a_late_update_waited_grow_the_window_once() {
        // On time, 750_000 per RTT is what the window carries: no growth.
        // Written 200_000 bytes late, only 550_000 of it was usable: the
        // window grows by the 200_000 the delay explains, without bonus.
        let t = NO_HEADROOM;
        let mut i = input(1_000_000, 750_000, 100);
        assert_eq!(t.tune(&i), 1_000_000);
        i.late = 200_000;
        assert_eq!(t.tune(&i), 1_200_000);
        // At most one more quantum counts: 1 − 2 × ¼ of the window is
        // always taken as usable.
        i.late = u64::MAX;
        assert_eq!(t.tune(&i), 1_250_000);
        // Above what the window carries on time the bonus applies as
        // before, and the delay adds its share once.
        i.delivered = 800_000;
        i.late = 200_000;
        assert_eq!(t.tune(&i), 1_000_000 + 4 * 50_000 + 200_000);
        // A reader slower than what the late window carries: nothing.
        i.delivered = 500_000;
        assert_eq!(t.tune(&i), 1_000_000);
    }

    #[test]
    fn drained_steps_in_a_row_are_judged_over_one_rtt() {
        // A whole window read after 200 ms (2 RTTs): expected 1.5 M by the
        // time, so a reader that might be slow gets nothing — and so does
        // one step at which the peer happened to reach the limit. A second
        // such step in a row shows the window holding the reader back:
        // over one RTT, 750_000 expected, an excess of 250_000 per RTT,
        // for each of the gap's two RTTs: 500_000 × 4.
        let t = NO_HEADROOM;
        let mut i = input(1_000_000, 1_000_000, 200);
        assert_eq!(t.tune(&i), 1_000_000);
        i.drained_steps = 1;
        assert_eq!(t.tune(&i), 1_000_000);
        i.drained_steps = 2;
        assert_eq!(t.tune(&i), 3_000_000);
        i.drained_steps = u32::MAX;
        assert_eq!(t.tune(&i), 3_000_000);
        // A gap of 1.5 RTTs grows by 1.5 RTTs' excess; one of 3 RTTs by
        // no more than two RTTs'.
        i.elapsed = Duration::from_millis(150);
        assert_eq!(t.tune(&i), 1_000_000 + 4 * 375_000);
        i.elapsed = Duration::from_millis(300);
        assert_eq!(t.tune(&i), 3_000_000);
        // Behind a late update the gap is the stack's delay, not a timer:
        // one RTT's excess (and the byte the delay explains).
        i.late = 1;
        assert_eq!(t.tune(&i), 2_000_001);
        // Within one RTT the streak changes nothing.
        let mut short = input(1_000_000, 800_000, 100);
        let plain = t.tune(&short);
        short.drained_steps = 5;
        assert_eq!(t.tune(&short), plain);
        assert_eq!(plain, 1_200_000);
    }

    #[test]
    fn the_default_bonus_leads_slow_start() {
        // A whole window per RTT: excess = window − expected, × 6 — more
        // than the doubling slow start makes of the sender's window.
        let t = ExcessTuner::DEFAULT;
        let w = 1_000_000;
        let expected = 750_000 - 750_000 / 16;
        assert_eq!(t.tune(&input(w, w, 100)), w + 6 * (w - expected));
        assert!(t.tune(&input(w, w, 100)) > 2 * w);
    }

    #[test]
    fn headroom_lowers_the_expectation() {
        // usable 750_000, minus 1/16 = 703_125 expected over one RTT.
        let t = ExcessTuner::DEFAULT;
        assert_eq!(t.tune(&input(1_000_000, 703_125, 100)), 1_000_000);
        assert_eq!(t.tune(&input(1_000_000, 703_126, 100)), 1_000_006);
    }

    #[test]
    fn extreme_values_do_not_panic() {
        let mut t = ExcessTuner::DEFAULT;
        let mut i = input(1 << 20, 1 << 61, 0);
        i.rtt = Rtt::from_sample(Duration::from_nanos(1)).unwrap();
        i.elapsed = Duration::MAX;
        assert_eq!(t.tune(&i), 1 << 20);
        // Far past any cap (the controller clamps it), without overflow.
        i.elapsed = Duration::from_nanos(1);
        assert!(t.tune(&i) > 1 << 62);
        i.rtt = Rtt::from_sample(Duration::MAX).unwrap();
        assert!(t.tune(&i) > 1 << 62);
        t.bonus = u64::MAX;
        assert_eq!(t.tune(&i), u64::MAX);
    }
}
