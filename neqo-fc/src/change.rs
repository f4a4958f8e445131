//! Window changes, reported as values for the stack to log (qlog, `log`).

use std::{
    collections::{VecDeque, vec_deque},
    fmt,
    time::{Duration, Instant},
};

use crate::Subject;

/// Why a receive window changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChangeReason {
    /// Reads outpaced what the window could carry in the elapsed time.
    AutoTune,
    /// A new stream started from a share of the connection window.
    Seed,
    /// Raised to stay ≥ the floor ratio × the largest stream window.
    ConnectionFloor,
    /// A connection-wide memory budget limited or redistributed credit.
    Budget,
    /// An idle or slow stream's window returned toward its seed.
    Reclaim,
    /// The embedding stack (its application) set the window.
    Application,
    /// A delay probe grew the window, or took back a growth that did not
    /// raise the read rate (`src/receiver/probe.rs`).
    DelayProbe,
}

impl ChangeReason {
    /// A short lowercase name for logs and qlog.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::AutoTune => "auto_tune",
            Self::Seed => "seed",
            Self::ConnectionFloor => "connection_floor",
            Self::Budget => "budget",
            Self::Reclaim => "reclaim",
            Self::Application => "application",
            Self::DelayProbe => "delay_probe",
        }
    }
}

/// One change of a receive window, with its inputs; `old != new`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowChange {
    /// Whose window changed.
    pub subject: Subject,
    /// Window before, in bytes.
    pub old: u64,
    /// Window after, in bytes.
    pub new: u64,
    /// Why.
    pub reason: ChangeReason,
    /// The RTT the tuner divided by; only for a tuning step (also
    /// [`ChangeReason::Budget`] when the budget cut one).
    pub rtt: Option<Duration>,
    /// The interval the tuning step judged; `None` where `rtt` is.
    pub elapsed: Option<Duration>,
    /// The caller's time, if the call was given one (opening a stream and
    /// stack-set windows take none: stamp those when you drain them).
    pub now: Option<Instant>,
}

impl WindowChange {
    /// `self` then `then` on the same subject as one change, with `self`'s
    /// tuning inputs; `None` if they cancel out.
    #[must_use]
    pub(crate) fn then(self, then: Self) -> Option<Self> {
        (self.old != then.new).then_some(Self {
            new: then.new,
            reason: then.reason,
            rtt: self.rtt.or(then.rtt),
            elapsed: self.elapsed.or(then.elapsed),
            ..self
        })
    }
}

impl fmt::Display for WindowChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} window {} -> {} ({}",
            self.subject,
            self.old,
            self.new,
            self.reason.as_str(),
        )?;
        if let (Some(rtt), Some(elapsed)) = (self.rtt, self.elapsed) {
            write!(f, "; rtt {rtt:?}, elapsed {elapsed:?}")?;
        }
        f.write_str(")")
    }
}

/// The most window changes a connection keeps for
/// [`crate::ConnectionFlow::drain_changes`]; older ones are dropped.
pub const MAX_PENDING_CHANGES: usize = 1024;

/// Undrained window changes, oldest dropped first.
#[derive(Clone, Debug, Default)]
pub(crate) struct ChangeLog {
    pending: VecDeque<WindowChange>,
}

impl ChangeLog {
    pub(crate) fn push(&mut self, change: WindowChange) {
        if self.pending.len() >= MAX_PENDING_CHANGES {
            self.pending.pop_front();
        }
        self.pending.push_back(change);
    }

    pub(crate) fn drain(&mut self) -> vec_deque::Drain<'_, WindowChange> {
        self.pending.drain(..)
    }
}
