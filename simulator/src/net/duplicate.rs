//! Datagram duplication: with probability `p` a datagram that leaves the
//! path also produces a copy that reaches the far end `extra_delay` later.
//!
//! Networks duplicate datagrams (link-layer retransmission, route flaps,
//! misbehaving middleboxes); QUIC must tolerate it — a receiver discards a
//! packet whose number it has already processed (RFC 9000 §12.3,
//! RFC 9000 §13.2.3 "Receiver Tracking of ACK Frames"). The copy is made at
//! the far end of the chain, so it takes no bottleneck capacity.

use std::time::Duration;

use super::element::{Element, Verdict};
use crate::rng::Rng;
use crate::time::{Time, duration_to_nanos};

/// Duplicates datagrams at random; never drops or delays the original.
///
/// Invariants: `probability` is in `[0, 1]`; a copy always arrives exactly
/// `extra_delay` after its original; `copies` counts every copy made.
#[derive(Clone, Debug)]
pub struct Duplicate {
    probability: f64,
    extra_delay_nanos: u64,
    copies: u64,
    last_copy: Option<Time>,
}

impl Duplicate {
    /// Duplicates with probability `probability` (NaN becomes 0, values are
    /// clamped to `[0, 1]`); copies arrive `extra_delay` after the original.
    #[must_use]
    pub fn new(probability: f64, extra_delay: Duration) -> Self {
        let probability = if probability.is_nan() {
            0.0
        } else {
            probability.clamp(0.0, 1.0)
        };
        Self {
            probability,
            extra_delay_nanos: duration_to_nanos(extra_delay),
            copies: 0,
            last_copy: None,
        }
    }

    /// The duplication probability.
    #[must_use]
    pub fn probability(&self) -> f64 {
        self.probability
    }

    /// How much later than its original a copy arrives.
    #[must_use]
    pub fn extra_delay(&self) -> Duration {
        Duration::from_nanos(self.extra_delay_nanos)
    }

    /// Copies made so far.
    #[must_use]
    pub fn copies(&self) -> u64 {
        self.copies
    }

    /// For a datagram leaving at `out`: when its copy arrives, if one is
    /// made. Draws randomness only when `0 < probability < 1`.
    pub fn copy_time(&mut self, out: Time, rng: &mut Rng) -> Option<Time> {
        let copy = rng
            .chance(self.probability)
            .then(|| Time(out.0.saturating_add(self.extra_delay_nanos)));
        self.copies += u64::from(copy.is_some());
        self.last_copy = copy;
        copy
    }

    /// The copy time decided for the last datagram, consumed (used through
    /// the [`Element`] interface, whose verdict can only carry the original).
    pub fn take_last_copy(&mut self) -> Option<Time> {
        self.last_copy.take()
    }
}

impl Element for Duplicate {
    fn process(&mut self, at: Time, _size: u32, rng: &mut Rng) -> Verdict {
        self.copy_time(at, rng);
        Verdict::Forward(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_never_copies_and_draws_nothing() {
        let mut d = Duplicate::new(0.0, Duration::from_millis(1));
        let mut rng = Rng::new(3);
        for i in 0..1000 {
            assert_eq!(d.copy_time(Time(i), &mut rng), None);
        }
        assert_eq!(d.copies(), 0);
        assert_eq!(rng.next_u64(), Rng::new(3).next_u64());
    }

    #[test]
    fn one_always_copies_exactly_extra_delay_later() {
        let mut d = Duplicate::new(1.0, Duration::from_micros(250));
        let mut rng = Rng::new(3);
        assert_eq!(d.copy_time(Time(0), &mut rng), Some(Time(250_000)));
        assert_eq!(d.copy_time(Time(7), &mut rng), Some(Time(250_007)));
        // Saturates instead of overflowing.
        assert_eq!(d.copy_time(Time::MAX, &mut rng), Some(Time::MAX));
        assert_eq!(d.copies(), 3);
        // p = 1 consumes no randomness either.
        assert_eq!(rng.next_u64(), Rng::new(3).next_u64());
    }

    #[test]
    fn rate_matches_probability() {
        // p = 0.05 over 100,000 datagrams: mean 5,000, sd ~69; 5 sigma.
        let mut d = Duplicate::new(0.05, Duration::ZERO);
        let mut rng = Rng::new(11);
        let n = (0..100_000u64)
            .filter(|&i| d.copy_time(Time(i), &mut rng) == Some(Time(i)))
            .count();
        assert!((4_655..=5_345).contains(&n), "{n}");
        assert_eq!(d.copies(), u64::try_from(n).unwrap());
    }

    #[test]
    fn out_of_range_is_clamped() {
        assert_eq!(Duplicate::new(-0.5, Duration::ZERO).probability(), 0.0);
        assert_eq!(Duplicate::new(1.5, Duration::ZERO).probability(), 1.0);
        assert_eq!(Duplicate::new(f64::NAN, Duration::ZERO).probability(), 0.0);
        assert_eq!(
            Duplicate::new(0.2, Duration::from_millis(2)).extra_delay(),
            Duration::from_millis(2)
        );
    }

    #[test]
    fn element_forwards_original_unchanged_and_keeps_copy() {
        let mut d = Duplicate::new(1.0, Duration::from_nanos(10));
        let mut rng = Rng::new(0);
        assert_eq!(
            d.process(Time(5), 1200, &mut rng),
            Verdict::Forward(Time(5))
        );
        assert_eq!(d.take_last_copy(), Some(Time(15)));
        assert_eq!(d.take_last_copy(), None);
    }

    #[test]
    fn same_seed_same_copies() {
        let run = |seed| {
            let mut d = Duplicate::new(0.3, Duration::ZERO);
            let mut rng = Rng::new(seed);
            (0..1000u64)
                .map(|i| d.copy_time(Time(i), &mut rng).is_some())
                .collect::<Vec<_>>()
        };
        assert_eq!(run(1), run(1));
        assert_ne!(run(1), run(2));
    }
}
