//! Cross traffic: a second connection that shares both path directions
//! with the measured one (the bottleneck, its queue, the delays).

use std::time::Duration;

/// Bytes the other connection has to send: more than any run moves, so it
/// is still sending when the measured connection finishes.
pub const CROSS_BYTES: u64 = 1 << 50;

/// Another connection on the same path: one bulk stream of
/// [`CROSS_BYTES`] from its server to its client, windows as large as
/// flow control allows (so only its congestion control and the path limit
/// it), the measured run's congestion control and transport options, no
/// trace. It models a long download by another application behind the
/// same bottleneck: it keeps the queue as full as its congestion control
/// does (a standing queue under loss-based control), which raises the
/// measured connection's smoothed RTT and, when it starts first, its
/// minimum RTT too.
///
/// The measured connection's goodput, completion times and stall marks
/// count from its own start ([`CrossTraffic::our_start`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CrossTraffic {
    /// The other connection starts at time zero, the measured one `lead`
    /// later (it arrives at a queue someone else already holds).
    First {
        /// How long before ours the other connection starts.
        lead: Duration,
    },
    /// The measured connection starts at time zero, the other `after`
    /// later (a queue builds under a connection already running).
    Second {
        /// How long after ours the other connection starts.
        after: Duration,
    },
}

impl CrossTraffic {
    /// When the measured connection starts.
    #[must_use]
    pub const fn our_start(self) -> Duration {
        match self {
            Self::First { lead } => lead,
            Self::Second { .. } => Duration::ZERO,
        }
    }

    /// When the other connection starts.
    #[must_use]
    pub const fn cross_start(self) -> Duration {
        match self {
            Self::First { .. } => Duration::ZERO,
            Self::Second { after } => after,
        }
    }
}

impl std::fmt::Display for CrossTraffic {
    /// `first:3s` / `second:1s`, as fc-lab's `--cross` takes it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::First { lead } => write!(f, "first:{lead:?}"),
            Self::Second { after } => write!(f, "second:{after:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_follow_the_order() {
        let s = Duration::from_secs(3);
        let first = CrossTraffic::First { lead: s };
        assert_eq!(
            (first.our_start(), first.cross_start()),
            (s, Duration::ZERO)
        );
        let second = CrossTraffic::Second { after: s };
        assert_eq!(
            (second.our_start(), second.cross_start()),
            (Duration::ZERO, s)
        );
        assert_eq!(first.to_string(), "first:3s");
        assert_eq!(
            CrossTraffic::Second {
                after: Duration::from_millis(500)
            }
            .to_string(),
            "second:500ms"
        );
    }
}
