//! Receive-window auto-tuning strategies behind one small trait, so that
//! peer algorithms (fixed windows, doubling, neqo's rule) can be compared
//! with ours on equal terms.

mod excess;

use std::time::Duration;

pub use excess::ExcessTuner;

use crate::{Fraction, Rtt, SubjectKind};

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
}

impl<T: Tuner + ?Sized> Tuner for &T {
    fn tune(&self, input: &TuneInput) -> u64 {
        (**self).tune(input)
    }
    fn rtt_used(&self, rtt: Rtt) -> Duration {
        (**self).rtt_used(rtt)
    }
}

impl<T: Tuner + ?Sized> Tuner for Box<T> {
    fn tune(&self, input: &TuneInput) -> u64 {
        (**self).tune(input)
    }
    fn rtt_used(&self, rtt: Rtt) -> Duration {
        (**self).rtt_used(rtt)
    }
}

impl<T: Tuner + ?Sized> Tuner for std::sync::Arc<T> {
    fn tune(&self, input: &TuneInput) -> u64 {
        (**self).tune(input)
    }
    fn rtt_used(&self, rtt: Rtt) -> Duration {
        (**self).rtt_used(rtt)
    }
}
