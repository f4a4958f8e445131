//! Random extra delay (jitter), with or without reordering.
//!
//! Each datagram gets an extra delay drawn uniformly from `[0, max]`
//! (nanosecond resolution, both ends included). With `reorder = false` the
//! output times are made non-decreasing — a datagram that drew a short delay
//! waits behind an earlier one that drew a long delay, as on a link whose
//! delay varies but which keeps order. With `reorder = true` datagrams may
//! overtake each other (neqo's `RandomDelay` behaves like this).

use std::time::Duration;

use super::element::{Element, Verdict};
use crate::rng::Rng;
use crate::time::{Time, duration_to_nanos};

/// Uniform random extra delay in `[0, max]`.
///
/// Invariants: output >= input; with `reorder == false`, outputs never
/// decrease; `last_out` is the latest output time produced so far.
#[derive(Clone, Debug)]
pub struct Jitter {
    max_nanos: u64,
    reorder: bool,
    last_out: Time,
    reordered: u64,
}

impl Jitter {
    /// Jitter of up to `max`; `reorder` allows datagrams to overtake.
    #[must_use]
    pub fn new(max: Duration, reorder: bool) -> Self {
        Self {
            max_nanos: duration_to_nanos(max),
            reorder,
            last_out: Time::ZERO,
            reordered: 0,
        }
    }

    /// The largest extra delay.
    #[must_use]
    pub fn max(&self) -> Duration {
        Duration::from_nanos(self.max_nanos)
    }

    /// Whether datagrams may overtake each other.
    #[must_use]
    pub fn reorders(&self) -> bool {
        self.reorder
    }

    /// Datagrams that left before an earlier-processed one (always 0 without
    /// reordering).
    #[must_use]
    pub fn reordered(&self) -> u64 {
        self.reordered
    }

    /// When a datagram entering at `at` leaves. Draws no randomness when
    /// `max` is zero.
    pub fn exit_time(&mut self, at: Time, rng: &mut Rng) -> Time {
        let extra = if self.max_nanos == 0 {
            0
        } else {
            rng.below(self.max_nanos.saturating_add(1))
        };
        let mut out = Time(at.0.saturating_add(extra));
        if out < self.last_out {
            if self.reorder {
                self.reordered += 1;
            } else {
                out = self.last_out;
            }
        }
        self.last_out = self.last_out.max(out);
        out
    }
}

impl Element for Jitter {
    fn process(&mut self, at: Time, _size: u32, rng: &mut Rng) -> Verdict {
        Verdict::Forward(self.exit_time(at, rng))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends 10,000 datagrams 100 us apart through 1 ms of jitter.
    fn outputs(reorder: bool, seed: u64) -> (Vec<Time>, Jitter) {
        let mut j = Jitter::new(Duration::from_millis(1), reorder);
        let mut rng = Rng::new(seed);
        let out = (0..10_000u64)
            .map(|i| match j.process(Time(i * 100_000), 1200, &mut rng) {
                Verdict::Forward(t) => t,
                Verdict::Drop(r) => panic!("{r:?}"),
            })
            .collect();
        (out, j)
    }

    fn inversions(v: &[Time]) -> usize {
        let mut max = Time::ZERO;
        v.iter()
            .filter(|&&t| {
                let inv = t < max;
                max = max.max(t);
                inv
            })
            .count()
    }

    #[test]
    fn reorder_true_reorders_some() {
        let (out, j) = outputs(true, 1);
        let inv = inversions(&out);
        assert!(inv > 100, "only {inv} reordered");
        assert_eq!(j.reordered(), u64::try_from(inv).unwrap());
        for (i, t) in out.iter().enumerate() {
            let at = Time(u64::try_from(i).unwrap() * 100_000);
            assert!(*t >= at && *t - at <= Duration::from_millis(1));
        }
    }

    #[test]
    fn reorder_false_never_reorders() {
        let (out, j) = outputs(false, 1);
        assert_eq!(inversions(&out), 0);
        assert_eq!(j.reordered(), 0);
        assert!(out.windows(2).all(|w| w[0] <= w[1]));
        // Still jittered: not all delays equal.
        let d0 = out[0] - Time(0);
        assert!(
            out.iter()
                .enumerate()
                .any(|(i, t)| { *t - Time(u64::try_from(i).unwrap() * 100_000) != d0 })
        );
    }

    #[test]
    fn extra_delay_is_uniform_over_inclusive_range() {
        // max = 3 ns: extras 0..=3 each ~25%.
        let mut j = Jitter::new(Duration::from_nanos(3), true);
        let mut rng = Rng::new(5);
        let mut counts = [0u32; 4];
        for i in 0..40_000u64 {
            let at = Time(i * 10);
            let t = j.exit_time(at, &mut rng);
            counts[usize::try_from((t - at).as_nanos()).unwrap()] += 1;
        }
        // Expect 10,000 each, sd ~ 87; 5 sigma.
        for c in counts {
            assert!((9_565..=10_435).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn zero_jitter_is_identity_and_draws_nothing() {
        let mut j = Jitter::new(Duration::ZERO, true);
        let mut rng = Rng::new(8);
        assert_eq!(j.process(Time(77), 1, &mut rng), Verdict::Forward(Time(77)));
        assert_eq!(rng.next_u64(), Rng::new(8).next_u64());
    }

    #[test]
    fn same_seed_same_output() {
        assert_eq!(outputs(true, 4).0, outputs(true, 4).0);
        assert_ne!(outputs(true, 4).0, outputs(true, 5).0);
    }
}
