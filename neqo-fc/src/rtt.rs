//! The round-trip-time estimate the embedding stack passes in.

use std::time::Duration;

/// RTT figures from the stack's RFC 9002 §5 estimator; the crate never measures
/// time. Calls that tune take `Option<Rtt>`: `None` (no sample yet) tunes no
/// window, though updates are still sent.
///
/// Invariant: `0 < min ≤ smoothed` (fields private).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rtt {
    smoothed: Duration,
    min: Duration,
}

impl Rtt {
    /// From `smoothed_rtt` and `min_rtt`; `None` if `min` is zero or above
    /// `smoothed` (a stack that can produce that should pass
    /// `Rtt::new(smoothed.max(min), min)`).
    #[must_use]
    pub fn new(smoothed: Duration, min: Duration) -> Option<Self> {
        (!min.is_zero() && min <= smoothed).then_some(Self { smoothed, min })
    }

    /// One sample as both smoothed and minimum RTT; `None` for zero.
    #[must_use]
    pub fn from_sample(rtt: Duration) -> Option<Self> {
        Self::new(rtt, rtt)
    }

    /// `smoothed_rtt` (RFC 9002 §5.3): includes queueing delay.
    #[must_use]
    pub const fn smoothed(&self) -> Duration {
        self.smoothed
    }

    /// `min_rtt` (RFC 9002 §5.2): the base round trip, the denominator for a
    /// bandwidth-delay product. Never zero.
    #[must_use]
    pub const fn min(&self) -> Duration {
        self.min
    }

    /// Queueing delay: `smoothed − min`.
    #[must_use]
    pub(crate) fn queueing(&self) -> Duration {
        self.smoothed - self.min
    }

    /// No queue yet: queueing delay ≤ an eighth of the base RTT (HyStart++'s
    /// slow-start exit, RFC 9406 §4.2), so a slow-start sender is still short
    /// of the bottleneck.
    #[must_use]
    pub(crate) fn queue_free(&self) -> bool {
        self.queueing() <= self.min / 8
    }

    /// A standing queue of ≥ one base RTT: queued data keeps the bottleneck
    /// busy longer than a receiver's frame takes to reach the sender.
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
