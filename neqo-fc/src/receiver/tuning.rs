//! The tuning rule: how a receive window grows.
//!
//! - [`Tuner`] is the strategy behind one small trait; [`TuneInput`] is all
//!   it sees. [`ExcessTuner`] (the default) grows the window by the excess
//!   of bytes read over what the current window could have carried in the
//!   elapsed time, times a bonus.
//! - The tuning step below decides when a tuner is asked at all, and what
//!   it is shown; the controller clamps its answer to
//!   `[window, max_window]` (the only place the cap is applied to tuning).
//! - New streams start from the connection's estimate: the seed rule is
//!   [`crate::Config::seed_window`].
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
//!
//! ## The tuning step
//!
//! A step measures the interval since the previous step: how long it
//! lasted and how many bytes both arrived and were read in it. An interval
//! that cannot be judged is not closed — its bytes and time carry over to
//! the next step:
//! - the first update only starts the first interval;
//! - fewer than a whole quantum (`update_fraction × window`) read since
//!   the previous step: an update that a *_BLOCKED or a lost frame
//!   triggered can follow the previous one by microseconds, and one read
//!   burst must not look like a rate the reader never sustains (not with
//!   [`Tuner::tunes_every_update`], neqo's rule, which judges
//!   every interval and shows the tuner the bytes retired in it);
//! - no RTT sample yet (the stack passes `None`);
//! - time did not move forward: a repeated `now` (every datagram of a GRO
//!   batch shares one) or one that went backwards.
//!
//! A step at which the reader had read everything and the peer had used
//! all its credit is *drained*; the tuner is told how many came in a row,
//! as one alone is ambiguous: the peer may have been slow all interval and
//! reached the limit only at its end. Not when one read call took every
//! byte the interval delivered: the reader slept while they arrived (a
//! reader on a timer), so the window, not the peer, ended the interval,
//! and that step counts as two. (Data held behind a gap after a loss is
//! also released by one read; it reaches the limit only if the peer
//! filled the window meanwhile, which the window limited too.)

use std::time::{Duration, Instant};

use super::ReceiverFlowControl;
use crate::{ChangeReason, FlowSubject, Fraction, Rtt, SubjectKind, WindowChange, math};

/// What a tuner sees at one tuning step: the moment a controller is about
/// to advertise a new limit, with an RTT sample available and time having
/// moved forward since the previous step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TuneInput {
    /// Connection or stream window.
    pub kind: SubjectKind,
    /// The current window (`max_active`), in bytes.
    pub window: u64,
    /// The configured cap for this kind ([`crate::Config`]'s
    /// `max_stream_window` / `max_connection_window`); the controller
    /// clamps whatever the tuner returns to it.
    pub max_window: u64,
    /// Bytes that both arrived and were read since the previous tuning
    /// step: `min(retired since, consumed since)`. Data merely received
    /// (a slow reader) never counts, nor does reading old buffered data
    /// (data released at once behind a filled gap did not flow in this
    /// interval).
    pub delivered: u64,
    /// Time since the previous tuning step; never zero.
    pub elapsed: Duration,
    /// The stack's RTT estimate.
    pub rtt: Rtt,
    /// Share of the window retired before an update is sent.
    pub update_fraction: Fraction,
    /// Consecutive steps, this one included, at which the application had
    /// read everything received and the peer had sent up to the advertised
    /// limit (0 when this step was not such a step). At one such step the
    /// peer used all its credit; at several in a row the window, not the
    /// reader, bounded what could be read, however long the intervals were
    /// (a reader that drains its buffer on a timer slower than the RTT
    /// reads a whole window per wake-up). A step whose bytes were all read
    /// by one call counts as at least two: the reader slept while they
    /// arrived, so the peer stopped at the limit because of the window and
    /// not because it was slow to reach it.
    pub drained_steps: u32,
    /// Bytes retired between the moment this update became due and the
    /// moment the stack wrote it: 0 when the frame goes out at once, the
    /// read rate times the delay when the stack holds it back (a pacer
    /// with no credit, a stack that writes control frames only with
    /// other packets). The peer lacked that credit on top of the update
    /// quantum whatever the window. A large read that makes the update
    /// due counts nothing: the update left as soon as it could.
    pub late: u64,
}

/// A receive-window strategy.
///
/// Tuners are pure policies: all state (time of the last step, bytes
/// delivered since) lives in the controller and arrives in [`TuneInput`];
/// caps live in [`crate::Config`]. Contract: `tune` returns the desired
/// window; the controller keeps `min(max_window, max(old, returned))` — a
/// tuner never shrinks a window nor passes the cap.
pub trait Tuner {
    /// The window to use from now on.
    fn tune(&self, input: &TuneInput) -> u64;

    /// The RTT figure this tuner divides by (reported in window changes).
    fn rtt_used(&self, rtt: Rtt) -> Duration {
        rtt.min()
    }

    /// Run a step at every update, however short its interval, on the
    /// bytes retired in it (neqo 0.30's `auto_tune`), instead of only once
    /// a whole update quantum of bytes that both arrived and were read
    /// (the default, `false`).
    fn tunes_every_update(&self) -> bool {
        false
    }

    /// Let a DATA_BLOCKED / STREAM_DATA_BLOCKED make an update due at once
    /// whenever anything was retired since the limit was set (neqo 0.30's
    /// `send_flowc_update`), instead of only once the data received bears
    /// the claim out (the default, `false`; see
    /// [`crate::ReceiverFlowControl::blocked_received`]). Only the owners
    /// of a tuner, [`crate::ConnectionFlow`] and
    /// [`crate::ConnectionReceiver`], apply it to the controllers they make.
    fn answers_blocked_at_once(&self) -> bool {
        false
    }
}

impl<T: Tuner + ?Sized> Tuner for &T {
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
}

impl<T: Tuner + ?Sized> Tuner for Box<T> {
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
}

impl<T: Tuner + ?Sized> Tuner for std::sync::Arc<T> {
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
}

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

/// Where the previous tuning step left off.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct StepMarks {
    /// Time of the previous step; `None` before the first.
    at: Option<Instant>,
    /// `retired` then.
    retired: u64,
    /// `consumed` then.
    consumed: u64,
    /// Consecutive steps, up to the previous one, at which the reader had
    /// drained everything and the peer had used all its credit.
    drained_streak: u32,
    /// The previous step grew the window.
    grew: bool,
}

impl<S: FlowSubject> ReceiverFlowControl<S> {
    /// One tuning step, as an update is about to be sent. Returns the
    /// window change, if the tuner grew the window.
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
        // Bytes that both arrived and were read in the interval: reading
        // data that waited behind a gap (after a loss) or in the buffer
        // releases many bytes at once that did not flow in this interval,
        // and must not look like a higher rate.
        // (neqo counts the bytes retired alone.)
        let retired = self.retired - self.step.retired;
        let delivered = if every_update {
            retired
        } else {
            retired.min(self.consumed - self.step.consumed)
        };
        // Whether the wait cost the peer anything shows only half a round
        // trip later, in data that stops at the old limit; the tuner
        // bounds what it makes of it instead (see `ExcessTuner`).
        let late = self.late();
        let drained_at_limit = self.retired == self.consumed && self.consumed >= self.max_allowed;
        // A step at which the reader again read all it received, but the
        // peer had not yet caught up with a limit the previous step raised
        // (its congestion window ramps into the new credit), neither
        // extends the streak nor breaks it: the window did not stop
        // bounding a reader that drains it on every wake-up.
        let ramping_into_growth = self.step.grew && self.retired == self.consumed;
        // One read took all the interval delivered: see the module docs.
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
        // The tuner's word, within [window, cap]; a window already above
        // the cap (set by rebalancing) stays.
        let wanted = tuner.tune(&input).min(self.max_window);
        let new = wanted.max(self.max_active);
        self.step.grew = new > self.max_active;
        self.change_window(
            new,
            ChangeReason::AutoTune,
            Some(now),
            Some((tuner.rtt_used(rtt), elapsed)),
        )
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
