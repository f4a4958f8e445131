//! Watching a run from outside while it goes: a [`Progress`] snapshot
//! every [`PROGRESS_EVERY`] events, to an observer that may stop the run
//! ([`std::ops::ControlFlow::Break`]). The observer sees simulated state
//! only and cannot change it, so a run it lets finish is identical to one
//! without an observer (same events, same hash); a run it stops ends
//! cleanly with what it delivered so far ([`RunEnd::Stopped`]).

use std::{ops::ControlFlow, time::Duration};

/// Events between two calls of the observer (a power of two): about 1.5 ms
/// of wall time at 3 M events/s, and still well under a second when
/// thousands of open streams make each event 20–50× dearer, so a progress
/// bar moves smoothly and a wall-clock bound holds to within that.
pub const PROGRESS_EVERY: u64 = 1 << 12;

/// Where a run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Simulated time.
    pub now: Duration,
    /// Bytes the client application has read, all streams.
    pub delivered: u64,
    /// Events processed so far.
    pub events: u64,
}

/// Called with each [`Progress`]; `Break` stops the run.
pub type Observer<'a> = &'a mut dyn FnMut(&Progress) -> ControlFlow<()>;

/// Why a run ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RunEnd {
    /// Every stream was read to its end (or its reader stopped for good).
    #[default]
    Completed,
    /// An endpoint closed the connection with a transport error.
    ConnectionError,
    /// The scenario's simulated time limit came first.
    TimeLimit,
    /// Nothing was left to happen before the time limit: no packet in
    /// flight and no timer armed, with data still undelivered (a stall).
    Idle,
    /// The observer stopped it ([`Observer`]), e.g. a wall-clock bound.
    Stopped,
}

impl RunEnd {
    /// `completed`, `connection_error`, `time_limit`, `idle`, `stopped`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::ConnectionError => "connection_error",
            Self::TimeLimit => "time_limit",
            Self::Idle => "idle",
            Self::Stopped => "stopped",
        }
    }
}
