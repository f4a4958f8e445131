//! Receive-window auto-tuning strategies behind one small trait, so that
//! peer algorithms (fixed windows, doubling, neqo's rule) can be compared
//! with ours on equal terms.

mod excess;
mod fixed;

use std::time::Duration;

pub use excess::{ExcessTuner, RttChoice};
pub use fixed::Fixed;

use crate::{Fraction, Rtt, SubjectKind};

/// What a tuner sees at one tuning step: the moment a controller is about
/// to advertise a new limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TuneInput {
    /// Connection or stream window.
    pub kind: SubjectKind,
    /// The current window (`max_active`), in bytes.
    pub window: u64,
    /// Bytes the application retired since the previous tuning step. Only
    /// retired bytes count: data merely received never grows a window.
    pub retired_since_update: u64,
    /// Time since the previous tuning step.
    pub elapsed: Duration,
    /// The stack's RTT estimate.
    pub rtt: Rtt,
    /// Share of the window retired before an update is sent.
    pub update_fraction: Fraction,
    /// At this step the application had read everything received and the
    /// peer had sent up to the advertised limit: the window, not the
    /// reader, bounded what could be read in the interval, however long
    /// it was (a reader that drains its buffer on a timer slower than the
    /// RTT reads a whole window per wake-up).
    pub drained_at_limit: bool,
}

/// A receive-window strategy.
///
/// Tuners are pure policies: all state (time of the last step, bytes
/// retired since) lives in the controller and arrives in [`TuneInput`].
/// Contract: `tune` returns the desired window; the controller never
/// shrinks a window on a tuner's word (it keeps `max(old, returned)`), and
/// a tuner keeps its result ≤ [`Tuner::max_window`] for that kind.
pub trait Tuner {
    /// The window to use from now on.
    fn tune(&self, input: &TuneInput) -> u64;

    /// The largest window this tuner ever returns for `kind`.
    fn max_window(&self, kind: SubjectKind) -> u64;

    /// The RTT figure this tuner divides by (reported in window changes).
    fn rtt_used(&self, rtt: Rtt) -> std::time::Duration {
        rtt.min
    }
}

impl<T: Tuner + ?Sized> Tuner for &T {
    fn tune(&self, input: &TuneInput) -> u64 {
        (**self).tune(input)
    }
    fn max_window(&self, kind: SubjectKind) -> u64 {
        (**self).max_window(kind)
    }
    fn rtt_used(&self, rtt: Rtt) -> std::time::Duration {
        (**self).rtt_used(rtt)
    }
}

impl<T: Tuner + ?Sized> Tuner for Box<T> {
    fn tune(&self, input: &TuneInput) -> u64 {
        (**self).tune(input)
    }
    fn max_window(&self, kind: SubjectKind) -> u64 {
        (**self).max_window(kind)
    }
    fn rtt_used(&self, rtt: Rtt) -> std::time::Duration {
        (**self).rtt_used(rtt)
    }
}

impl<T: Tuner + ?Sized> Tuner for std::sync::Arc<T> {
    fn tune(&self, input: &TuneInput) -> u64 {
        (**self).tune(input)
    }
    fn max_window(&self, kind: SubjectKind) -> u64 {
        (**self).max_window(kind)
    }
    fn rtt_used(&self, rtt: Rtt) -> std::time::Duration {
        (**self).rtt_used(rtt)
    }
}
