//! The round-trip-time estimate the embedding stack passes in.

use std::time::Duration;

/// RTT figures from the stack's RFC 9002 §5 estimator, once it has at
/// least one sample. The crate never measures time itself.
///
/// Calls that tune take `Option<Rtt>`: `None` means the stack has no RTT
/// sample yet (RFC 9002 §5.1 before the first one, or an estimator that
/// reports zero), and no window is tuned then — updates are still sent.
///
/// Invariant (kept by the constructors, fields private):
/// `0 < min ≤ smoothed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rtt {
    smoothed: Duration,
    min: Duration,
}

impl Rtt {
    /// `smoothed_rtt` and `min_rtt` of a stack that has a sample, or
    /// `None` when `min` is zero or exceeds `smoothed` (no estimator
    /// produces that pair; RFC 9002 §5.3 keeps smoothed ≥ … ≥ min once
    /// ack delays are accounted — a stack that can produce it should pass
    /// `Rtt::new(smoothed.max(min), min)`).
    #[must_use]
    pub fn new(smoothed: Duration, min: Duration) -> Option<Self> {
        (!min.is_zero() && min <= smoothed).then_some(Self { smoothed, min })
    }

    /// One RTT figure used as both the smoothed and the minimum RTT;
    /// `None` for zero.
    #[must_use]
    pub fn from_sample(rtt: Duration) -> Option<Self> {
        Self::new(rtt, rtt)
    }

    /// `smoothed_rtt` (RFC 9002 §5.3): includes queueing delay.
    #[must_use]
    pub const fn smoothed(&self) -> Duration {
        self.smoothed
    }

    /// `min_rtt` (RFC 9002 §5.2): the path's base round trip, the right
    /// denominator for a bandwidth-delay product. Never zero.
    #[must_use]
    pub const fn min(&self) -> Duration {
        self.min
    }

    /// Queueing delay: `smoothed − min` (the standing queue the path holds
    /// on average, as a time).
    #[must_use]
    pub fn queueing(&self) -> Duration {
        self.smoothed - self.min
    }

    /// The path shows no queue yet: queueing delay at most an eighth of
    /// the base RTT (HyStart++, RFC 9406 §4.2, leaves slow start once a
    /// round's RTT rises by an eighth of the last round's minimum, clamped
    /// to 4–16 ms). A sender in slow start is then still short of the
    /// bottleneck.
    #[must_use]
    pub(crate) fn queue_free(&self) -> bool {
        self.queueing() <= self.min / 8
    }

    /// The path holds a standing queue of at least one base RTT: data
    /// already queued keeps the bottleneck busy for longer than a frame
    /// from the receiver takes to reach the sender (half a base RTT).
    #[must_use]
    pub(crate) fn standing_queue(&self) -> bool {
        self.queueing() >= self.min
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_what_no_sample_gives() {
        let ms = Duration::from_millis;
        assert!(Rtt::from_sample(Duration::ZERO).is_none());
        assert!(Rtt::new(ms(10), ms(20)).is_none());
        assert!(Rtt::new(ms(10), Duration::ZERO).is_none());
        let r = Rtt::new(ms(30), ms(20)).unwrap();
        assert_eq!((r.smoothed(), r.min()), (ms(30), ms(20)));
        assert_eq!(Rtt::from_sample(ms(5)).unwrap().min(), ms(5));
    }

    #[test]
    fn queue_free_and_standing_queue_boundaries() {
        let us = Duration::from_micros;
        let at = |smoothed| Rtt::new(us(smoothed), us(80_000)).unwrap();
        assert_eq!(at(80_000).queueing(), Duration::ZERO);
        assert!(at(90_000).queue_free());
        assert!(!at(90_001).queue_free());
        assert!(!at(159_999).standing_queue());
        assert!(at(160_000).standing_queue());
        assert!(!at(160_000).queue_free());
    }
}
