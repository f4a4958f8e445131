//! Constant propagation delay.

use std::time::Duration;

use super::element::{Element, Verdict};
use crate::rng::Rng;
use crate::time::Time;

/// Adds a fixed one-way propagation delay; never drops, never reorders.
///
/// Invariant: output time = input time + `delay` (saturating at [`Time::MAX`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Delay {
    delay: Duration,
}

impl Delay {
    /// A delay line of `delay`.
    #[must_use]
    pub fn new(delay: Duration) -> Self {
        Self { delay }
    }

    /// The configured delay.
    #[must_use]
    pub fn delay(&self) -> Duration {
        self.delay
    }

    /// When a datagram entering at `at` leaves.
    #[must_use]
    pub fn exit_time(&self, at: Time) -> Time {
        at + self.delay
    }
}

impl Element for Delay {
    fn process(&mut self, at: Time, _size: u32, _rng: &mut Rng) -> Verdict {
        Verdict::Forward(self.exit_time(at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_exactly() {
        let mut d = Delay::new(Duration::from_millis(25));
        let mut rng = Rng::new(0);
        assert_eq!(
            d.process(Time(0), 1500, &mut rng),
            Verdict::Forward(Time(25_000_000))
        );
        assert_eq!(
            d.process(Time(7), 1, &mut rng),
            Verdict::Forward(Time(25_000_007))
        );
        assert_eq!(
            d.process(Time::MAX, 1, &mut rng),
            Verdict::Forward(Time::MAX)
        );
        // Consumes no randomness.
        assert_eq!(rng.next_u64(), Rng::new(0).next_u64());
    }

    #[test]
    fn zero_delay_is_identity() {
        let mut d = Delay::new(Duration::ZERO);
        let mut rng = Rng::new(0);
        assert_eq!(
            d.process(Time(123), 1500, &mut rng),
            Verdict::Forward(Time(123))
        );
        assert_eq!(d.delay(), Duration::ZERO);
    }
}
