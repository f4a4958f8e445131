//! How a receive window grows: the [`Tuner`] strategy, the default
//! [`ExcessTuner`], and the tuning step that decides when a tuner is asked
//! and what it sees ([`TuneInput`]). The controller clamps the answer to
//! `[window, max_window]`; seeds are [`crate::Config::seed_window`].
//!
//! ## The default rule
//!
//! M. Thomson's, from neqo PR #1868 (neqo ships it with a fixed ¾ share):
//!
//! ```text
//! effective = window − update_fraction × window
//! expected  = effective × elapsed / rtt
//! excess    = delivered − expected     (bytes that arrived and were read)
//! window   += bonus × excess          if excess > 0, capped
//! ```
//!
//! `effective = (1 − f) × window` because the sender's limit lags the reader
//! by up to `f × window` (we update only once that much is read). Growth
//! stops once `(1 − f) × window / rtt` covers the read rate, at the fixed
//! point `window = BDP / (1 − f)` (≈ 1.33 × BDP at f = ¼) whatever the
//! bonus; with `f = 1` there is none, and the window grows to its cap.
//!
//! The bonus: a window-limited reader retires a whole window per RTT, an
//! excess of `f × window`. A bonus of `1 / f` grows the window by a window
//! per RTT, as fast as slow start doubles the sender's but a step behind;
//! the default `1.5 / f` (6) grows it by one and a half and leads.
//!
//! An update written late also withholds what was read meanwhile
//! ([`TuneInput::late`]): up to one more quantum counts as unusable and grows
//! the window once, without the bonus (a delay does not ramp); a late stack
//! settles at most at `BDP / (1 − 2f)`.
//!
//! The divisor is `min_rtt` (neqo: `smoothed_rtt`): queueing delay is not a
//! need, and a window grown for it would only deepen the queue. Delay the
//! path adds (jitter, someone else's queue) is one, and the minimum RTT
//! does not see it: where the rule keeps the window while credit holds the
//! peer back, a delay probe (`probe.rs`, [`Tuner::probe_for_delay`]) tries
//! one step more and keeps probing only while the read rate rises with it.
//!
//! ## The tuning step
//!
//! A step judges the interval since the previous one; it is skipped, the
//! interval carrying over, when:
//! - it is the first update (which opens the first interval);
//! - under a quantum (`update_fraction × window`) was read since, as an
//!   update a *_BLOCKED or loss triggered may follow within microseconds and
//!   one burst is not a rate (unless [`Tuner::tunes_every_update`]);
//! - there is no RTT sample yet;
//! - `now` did not move forward (a GRO batch shares one).

use std::time::{Duration, Instant};

use super::ReceiverFlowControl;
use crate::{ChangeReason, FlowSubject, Fraction, Rtt, SubjectKind, WindowChange, math};

/// What a tuner sees at a tuning step, as a controller is about to advertise
/// a new limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TuneInput {
    /// Connection or stream window.
    pub kind: SubjectKind,
    /// The current window, in bytes.
    pub window: u64,
    /// The configured cap for this kind; the answer is clamped to it.
    pub max_window: u64,
    /// Bytes that both arrived and were read since the previous step,
    /// `min(retired since, consumed since)`: neither unread data nor reading
    /// old buffered data counts.
    pub delivered: u64,
    /// Time since the previous tuning step; never zero.
    pub elapsed: Duration,
    /// The stack's RTT estimate.
    pub rtt: Rtt,
    /// Share of the window retired before an update is sent.
    pub update_fraction: Fraction,
    /// Consecutive *drained* steps (the application had read everything, the
    /// peer had sent up to the limit), this one included; 0 if it is not one.
    /// One alone may be a slow peer reaching the limit late; several in a row
    /// show the window bounded the reader (e.g. one on a timer). A step whose
    /// bytes one read took counts as at least two: the reader slept while
    /// they arrived.
    pub drained_steps: u32,
    /// Bytes read while this due update waited to be written (0 if it went
    /// at once; a pacer may hold it): credit the peer lacked beyond the
    /// quantum. The read that made it due counts nothing.
    pub late: u64,
}

/// A receive-window strategy: a pure policy, its state kept by the
/// controller and passed in [`TuneInput`]. The controller keeps
/// `min(max_window, max(old, tune(..)))`: a tuner never shrinks a window nor
/// passes the cap.
pub trait Tuner {
    /// The window to use from now on.
    fn tune(&self, input: &TuneInput) -> u64;

    /// The RTT figure this tuner divides by (reported in window changes).
    fn rtt_used(&self, rtt: Rtt) -> Duration {
        rtt.min()
    }

    /// Run a step at every update, on the bytes retired (neqo 0.30's
    /// `auto_tune`), not only after a quantum received and read (default
    /// `false`).
    fn tunes_every_update(&self) -> bool {
        false
    }

    /// Let a *_BLOCKED make an update due at once if anything was retired
    /// since the limit was set (neqo 0.30's `send_flowc_update`), not only
    /// once borne out ([`crate::ReceiverFlowControl::blocked_received`];
    /// default `false`). [`crate::ConnectionFlow`] and
    /// [`crate::ConnectionReceiver`] apply it.
    fn answers_blocked_at_once(&self) -> bool {
        false
    }

    /// The window to try when [`Tuner::tune`] kept it, credit held the peer
    /// back for two loops (smoothed RTTs) and the path's delay may be why
    /// (see `src/receiver/probe.rs`). `input.delivered` and `input.elapsed`
    /// cover those two loops. The controller then keeps probing only if the
    /// read rate rises with the window. Default: the window (no probe).
    fn probe_for_delay(&self, input: &TuneInput) -> u64 {
        input.window
    }
}

/// A tuner behind a reference or a smart pointer is that tuner.
macro_rules! forward_tuner {
    ($($pointer:ty),*) => {$(
        impl<T: Tuner + ?Sized> Tuner for $pointer {
            fn tune(&self, input: &TuneInput) -> u64 {
                (**self).tune(input)
            }
            fn rtt_used(&self, rtt: Rtt) -> Duration {
                (**self).rtt_used(rtt)
            }
            fn tunes_every_update(&self) -> bool {
                (**self).tunes_every_update()
            }
            fn answers_blocked_at_once(&self) -> bool {
                (**self).answers_blocked_at_once()
            }
            fn probe_for_delay(&self, input: &TuneInput) -> u64 {
                (**self).probe_for_delay(input)
            }
        }
    )*};
}

forward_tuner!(&T, Box<T>, std::sync::Arc<T>);

/// The excess-retirement rule (`src/receiver/tuning.rs`). Never returns
/// less than the current window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExcessTuner {
    /// Multiplier applied to the excess (default 6).
    pub bonus: u64,
    /// Share of the effective window held back as headroom (default 1/16):
    /// `effective = (1 − f) × window × (1 − headroom)`.
    pub headroom: Fraction,
    /// The most one delay probe grows the window by, as a share of it
    /// (default 1/16; zero: no probe, the minimum RTT alone). A full link
    /// costs one such step beyond the rule's fixed point: see
    /// [`Tuner::probe_for_delay`].
    pub probe_step: Fraction,
}

impl ExcessTuner {
    /// The default: bonus 6, headroom 1/16, probe step 1/16.
    pub const DEFAULT: Self = Self {
        bonus: 6,
        headroom: Fraction::SIXTEENTH,
        probe_step: Fraction::SIXTEENTH,
    };

    /// The rule before delay probes: [`ExcessTuner::DEFAULT`] with a zero
    /// probe step.
    pub const MIN_RTT_ONLY: Self = Self {
        probe_step: Fraction::ZERO,
        ..Self::DEFAULT
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
        // Drained steps in a row: the window held the reader back; judge one
        // RTT, or a reader waking less often looks slow. One alone may be a
        // slow peer catching up: whole interval.
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
        // Beyond what the window carries less the quantum: the bonus applies.
        let quantum = input.update_fraction.of(window);
        let on_time = expected(quantum);
        let excess = input.delivered.saturating_sub(on_time);
        // A late update withholds up to another quantum: the shortfall it
        // explains grows the window once, without the bonus.
        let with_delay = expected(quantum.saturating_add(input.late.min(quantum)));
        let delay_excess = input.delivered.min(on_time).saturating_sub(with_delay);
        // Judged over one RTT: scale back up to the gap (≤ 2 RTTs), as a
        // reader reading all along would have grown. Not behind a late
        // update, whose gap is the stack's delay, not a timer.
        let gap = input.elapsed.min(elapsed.saturating_mul(2));
        let excess = if elapsed < gap && input.late == 0 {
            math::mul_div(excess, math::nanos(gap), math::nanos(elapsed))
        } else {
            excess
        };
        window
            .saturating_add(excess.saturating_mul(self.bonus))
            .saturating_add(delay_excess)
    }

    /// The same rule over the smoothed RTT, growing by at most
    /// [`ExcessTuner::probe_step`] of the window.
    fn probe_for_delay(&self, input: &TuneInput) -> u64 {
        let window = input.window;
        let rtt = input.rtt.smoothed();
        if rtt <= input.rtt.min() {
            return window;
        }
        let quantum = input.update_fraction.of(window);
        let usable = window - quantum.min(window);
        let effective = usable - self.headroom.of(usable).min(usable);
        let expected = math::mul_div(effective, math::nanos(input.elapsed), math::nanos(rtt));
        let excess = input.delivered.saturating_sub(expected);
        let most = self.probe_step.of(window);
        window.saturating_add(excess.saturating_mul(self.bonus).min(most))
    }
}

/// Where the previous tuning step left off.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct StepMarks {
    /// Time of the previous step; `None` before the first.
    at: Option<Instant>,
    /// `retired` then.
    retired: u64,
    /// `consumed` then.
    consumed: u64,
    /// [`TuneInput::drained_steps`] at the previous step.
    drained_streak: u32,
    /// The previous step grew the window.
    grew: bool,
}

impl<S: FlowSubject> ReceiverFlowControl<S> {
    /// One tuning step, as an update is about to be sent; the change if the
    /// tuner grew the window.
    pub(super) fn tuning_step<T: Tuner + ?Sized>(
        &mut self,
        now: Instant,
        rtt: Option<Rtt>,
        tuner: &T,
    ) -> Option<WindowChange> {
        let Some(last) = self.step.at else {
            self.close_interval(now);
            return None;
        };
        let every_update = tuner.tunes_every_update();
        let quantum = self.threshold;
        if !every_update && self.retired - self.step.retired < quantum {
            return None;
        }
        let rtt = rtt?;
        let elapsed = now.checked_duration_since(last).filter(|d| !d.is_zero())?;
        // Data read after waiting behind a gap or in the buffer did not flow
        // in this interval (neqo counts retired bytes alone).
        let retired = self.retired - self.step.retired;
        let delivered = if every_update {
            retired
        } else {
            retired.min(self.consumed - self.step.consumed)
        };
        // Whether the wait cost the peer shows only half an RTT later: the
        // tuner bounds its effect instead.
        let late = self.late();
        let drained_at_limit = self.retired == self.consumed && self.consumed >= self.max_allowed;
        // All read, the peer still ramping into credit the last step added:
        // the streak neither grows nor breaks.
        let ramping_into_growth = self.step.grew && self.retired == self.consumed;
        // One read took all the interval delivered: the reader slept (data
        // behind a gap hits the limit only if the window held the peer too).
        let slept = delivered > 0 && self.last_read >= delivered;
        let drained_steps = if drained_at_limit && slept {
            self.step.drained_streak.saturating_add(1).max(2)
        } else if drained_at_limit {
            self.step.drained_streak.saturating_add(1)
        } else if ramping_into_growth {
            self.step.drained_streak
        } else {
            0
        };
        self.close_interval(now);
        self.step.drained_streak = drained_steps;
        let input = TuneInput {
            kind: self.subject.kind(),
            window: self.max_active,
            max_window: self.max_window,
            delivered,
            elapsed,
            rtt,
            update_fraction: self.update_fraction,
            drained_steps,
            late,
        };
        let probe = self.probe.step(now, self.probe_books(), rtt.smoothed());
        // A window already above the cap (set by rebalancing) stays.
        let wanted = tuner.tune(&input).min(self.max_window);
        if wanted <= self.max_active
            && let Some((delivered, elapsed)) = probe
        {
            let over_loops = TuneInput {
                delivered,
                elapsed,
                ..input
            };
            let probed = tuner.probe_for_delay(&over_loops).min(self.max_window);
            if probed > self.max_active {
                let window = self.max_active;
                self.probe.started(now, self.probe_books(), window);
                self.step.grew = true;
                return self.change_window(
                    probed,
                    ChangeReason::DelayProbe,
                    Some(now),
                    Some((rtt.smoothed(), elapsed)),
                );
            }
        }
        let new = wanted.max(self.max_active);
        self.step.grew = new > self.max_active;
        self.change_window(
            new,
            ChangeReason::AutoTune,
            Some(now),
            Some((tuner.rtt_used(rtt), elapsed)),
        )
    }

    fn probe_books(&self) -> super::probe::Books {
        super::probe::Books {
            retired: self.retired,
            consumed: self.consumed,
            limit: self.max_allowed,
            slack: self.threshold,
            window: self.max_active,
        }
    }

    fn close_interval(&mut self, now: Instant) {
        self.step = StepMarks {
            at: Some(now),
            retired: self.retired,
            consumed: self.consumed,
            drained_streak: self.step.drained_streak,
            grew: self.step.grew,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// The bare formula: no headroom, bonus 4, no probe.
    const NO_HEADROOM: ExcessTuner = ExcessTuner {
        headroom: Fraction::ZERO,
        bonus: 4,
        probe_step: Fraction::ZERO,
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
