//! Window changes, reported as values so the embedding stack can log them
//! (qlog, `log`).

use std::{
    fmt,
    time::{Duration, Instant},
};

use crate::Subject;

/// Why a receive window changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChangeReason {
    /// The tuner saw the application retire more than the window could
    /// have carried in the elapsed time.
    AutoTune,
    /// A new stream started from a share of the connection window.
    Seed,
    /// The connection window was raised to stay above the largest stream
    /// window times the configured floor ratio.
    ConnectionFloor,
    /// A connection-wide memory budget limited or redistributed credit.
    Budget,
    /// An idle or slow stream's window returned toward its seed.
    Reclaim,
    /// The embedding stack (its application) set the window.
    Application,
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
        }
    }
}

/// One change of a receive window (`max_active`), with the inputs that
/// caused it. Invariant: `old != new`.
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
    /// The RTT the tuner used (zero where none applies).
    pub rtt: Duration,
    /// Time since the previous tuning step (zero where none applies).
    pub elapsed: Duration,
    /// The caller's time when the change happened, if the call that made
    /// it was given one (opening a stream, or a window set by the stack,
    /// takes no time: stamp those when you drain them).
    pub now: Option<Instant>,
}

impl fmt::Display for WindowChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} window {} -> {} ({}; rtt {:?}, elapsed {:?})",
            self.subject,
            self.old,
            self.new,
            self.reason.as_str(),
            self.rtt,
            self.elapsed
        )
    }
}
