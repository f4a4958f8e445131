//! The tuning step's bookkeeping: what a [`crate::Tuner`] is shown when an
//! update is about to be sent, and when it is shown nothing at all.
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
//!   [`crate::TuningInterval::EveryUpdate`], neqo's rule, which judges
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

use std::time::Instant;

use super::ReceiverFlowControl;
use crate::{ChangeReason, FlowSubject, Rtt, TuneInput, Tuner, TuningInterval, WindowChange};

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
        let every_update = self.tuning_interval == TuningInterval::EveryUpdate;
        let quantum = self.update_fraction.of(self.max_active).max(1);
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
