//! The round-trip-time estimate the embedding stack passes in.

use std::time::Duration;

/// RTT figures from the stack's RFC 9002 §5 estimator, passed to every
/// tuning step. The crate never measures time itself.
///
/// Invariant kept by the constructors: `min ≤ smoothed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rtt {
    /// `smoothed_rtt` (RFC 9002 §5.3): includes queueing delay.
    pub smoothed: Duration,
    /// `min_rtt` (RFC 9002 §5.2): the path's base round trip, the right
    /// denominator for a bandwidth-delay product.
    pub min: Duration,
}

impl Rtt {
    /// Both figures; `min` is clamped to `smoothed` if larger.
    #[must_use]
    pub fn new(smoothed: Duration, min: Duration) -> Self {
        Self {
            smoothed,
            min: min.min(smoothed),
        }
    }
}

impl From<Duration> for Rtt {
    /// One RTT value used as both the smoothed and the minimum RTT.
    fn from(rtt: Duration) -> Self {
        Self {
            smoothed: rtt,
            min: rtt,
        }
    }
}
