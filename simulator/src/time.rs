//! Virtual time: integer nanoseconds since the start of a run.
//!
//! The simulator never reads a wall clock. Every instant is a [`Time`], and
//! every span is a [`std::time::Duration`], so values can be handed to
//! `neqo-fc` (which takes `now: Duration`) without conversion loss.
//! All arithmetic saturates instead of panicking or wrapping.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};
use std::time::Duration;

const NANOS_PER_SEC: u64 = 1_000_000_000;

/// An instant in virtual time: nanoseconds since the run started.
///
/// Invariant: plain `u64` nanoseconds; [`Time::MAX`] doubles as "never".
/// Arithmetic with [`Duration`] saturates at [`Time::ZERO`] and [`Time::MAX`].
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Time(pub u64);

impl Time {
    /// The start of the run.
    pub const ZERO: Time = Time(0);
    /// The largest representable instant (~584 years); used as "never".
    pub const MAX: Time = Time(u64::MAX);

    /// `n` nanoseconds after the start.
    #[must_use]
    pub const fn from_nanos(n: u64) -> Time {
        Time(n)
    }

    /// `us` microseconds after the start (saturating).
    #[must_use]
    pub const fn from_micros(us: u64) -> Time {
        Time(us.saturating_mul(1_000))
    }

    /// `ms` milliseconds after the start (saturating).
    #[must_use]
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms.saturating_mul(1_000_000))
    }

    /// `s` seconds after the start (saturating).
    #[must_use]
    pub const fn from_secs(s: u64) -> Time {
        Time(s.saturating_mul(NANOS_PER_SEC))
    }

    /// Nanoseconds since the start.
    #[must_use]
    pub const fn as_nanos(self) -> u64 {
        self.0
    }

    /// Time elapsed since the start, as a `Duration` (what `neqo-fc` takes as `now`).
    #[must_use]
    pub const fn as_duration(self) -> Duration {
        Duration::from_nanos(self.0)
    }

    /// Seconds since the start as a float (for reports only, never for decisions).
    #[must_use]
    #[allow(clippy::cast_precision_loss)]
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }

    /// `self - d`, clamped at [`Time::ZERO`].
    #[must_use]
    pub fn saturating_sub(self, d: Duration) -> Time {
        Time(self.0.saturating_sub(duration_to_nanos(d)))
    }
}

impl Add<Duration> for Time {
    type Output = Time;

    /// `self + d`, clamped at [`Time::MAX`].
    fn add(self, d: Duration) -> Time {
        Time(self.0.saturating_add(duration_to_nanos(d)))
    }
}

impl AddAssign<Duration> for Time {
    /// `self = self + d`, clamped at [`Time::MAX`].
    fn add_assign(&mut self, d: Duration) {
        *self = *self + d;
    }
}

impl Sub<Time> for Time {
    type Output = Duration;

    /// The span from `earlier` to `self`; zero if `earlier` is later.
    fn sub(self, earlier: Time) -> Duration {
        Duration::from_nanos(self.0.saturating_sub(earlier.0))
    }
}

impl fmt::Display for Time {
    /// Seconds with nanosecond precision, e.g. `1.000012224s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{:09}s",
            self.0 / NANOS_PER_SEC,
            self.0 % NANOS_PER_SEC
        )
    }
}

/// Whole nanoseconds in `d`, saturating at `u64::MAX` (~584 years).
#[must_use]
pub fn duration_to_nanos(d: Duration) -> u64 {
    d.as_secs()
        .checked_mul(NANOS_PER_SEC)
        .and_then(|n| n.checked_add(u64::from(d.subsec_nanos())))
        .unwrap_or(u64::MAX)
}

/// Time to clock `bytes` onto a link of `rate_bps` bit/s:
/// `ceil(bytes * 8 * 1e9 / rate_bps)` nanoseconds.
///
/// Computed in `u128`, so it never overflows. The result saturates at
/// `u64::MAX` nanoseconds, which is also what a rate of 0 (a link that never
/// delivers) returns; adding it to a [`Time`] gives [`Time::MAX`].
#[must_use]
pub fn serialization_time(bytes: u64, rate_bps: u64) -> Duration {
    if rate_bps == 0 {
        return Duration::from_nanos(u64::MAX);
    }
    let bits_ns = u128::from(bytes) * 8 * u128::from(NANOS_PER_SEC);
    let ns = bits_ns.div_ceil(u128::from(rate_bps));
    Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_scale_exactly() {
        assert_eq!(Time::from_nanos(7).as_nanos(), 7);
        assert_eq!(Time::from_micros(3).as_nanos(), 3_000);
        assert_eq!(Time::from_millis(3).as_nanos(), 3_000_000);
        assert_eq!(Time::from_secs(3).as_nanos(), 3_000_000_000);
        assert_eq!(Time::from_secs(u64::MAX), Time::MAX);
        assert_eq!(Time::from_millis(u64::MAX), Time::MAX);
        assert_eq!(Time::default(), Time::ZERO);
    }

    #[test]
    fn conversions() {
        let t = Time::from_nanos(1_500_000_001);
        assert_eq!(t.as_duration(), Duration::new(1, 500_000_001));
        assert!((t.as_secs_f64() - 1.500_000_001).abs() < 1e-12);
        assert_eq!(t.to_string(), "1.500000001s");
        assert_eq!(Time::from_micros(12).to_string(), "0.000012000s");
    }

    #[test]
    fn add_and_sub_saturate() {
        let t = Time::from_millis(10);
        assert_eq!(t + Duration::from_micros(5), Time::from_nanos(10_005_000));
        assert_eq!(Time(u64::MAX - 1) + Duration::from_nanos(5), Time::MAX);
        assert_eq!(t + Duration::MAX, Time::MAX);
        let mut u = t;
        u += Duration::from_millis(1);
        assert_eq!(u, Time::from_millis(11));
        assert_eq!(u - t, Duration::from_millis(1));
        assert_eq!(t - u, Duration::ZERO);
        assert_eq!(
            t.saturating_sub(Duration::from_millis(4)),
            Time::from_millis(6)
        );
        assert_eq!(t.saturating_sub(Duration::from_secs(1)), Time::ZERO);
    }

    #[test]
    fn duration_to_nanos_saturates() {
        assert_eq!(duration_to_nanos(Duration::new(2, 3)), 2_000_000_003);
        assert_eq!(duration_to_nanos(Duration::MAX), u64::MAX);
        // Largest exact value and one past it.
        let max_secs = u64::MAX / NANOS_PER_SEC;
        let max_sub = u32::try_from(u64::MAX % NANOS_PER_SEC).unwrap();
        assert_eq!(
            duration_to_nanos(Duration::new(max_secs, max_sub)),
            u64::MAX
        );
        assert_eq!(
            duration_to_nanos(Duration::new(max_secs, max_sub - 1)),
            u64::MAX - 1
        );
        assert_eq!(duration_to_nanos(Duration::new(max_secs + 1, 0)), u64::MAX);
    }

    #[test]
    fn serialization_time_exact() {
        // 1528 B at 1 Gbit/s = 12,224 bits = 12,224 ns.
        assert_eq!(
            serialization_time(1528, 1_000_000_000),
            Duration::from_nanos(12_224)
        );
        // Rounds up: 1 byte at 3 bit/s = 8/3 s = 2.666..67 s.
        assert_eq!(
            serialization_time(1, 3),
            Duration::from_nanos(2_666_666_667)
        );
        // Exact division does not round up.
        assert_eq!(serialization_time(1, 8), Duration::from_secs(1));
        assert_eq!(serialization_time(0, 1_000), Duration::ZERO);
        // No overflow for huge inputs; saturates.
        assert_eq!(
            serialization_time(u64::MAX, 1),
            Duration::from_nanos(u64::MAX)
        );
        assert_eq!(
            serialization_time(u64::MAX, u64::MAX),
            Duration::from_nanos(8_000_000_000)
        );
        // Rate 0 never finishes.
        assert_eq!(serialization_time(1, 0), Duration::from_nanos(u64::MAX));
        assert_eq!(Time::ZERO + serialization_time(1, 0), Time::MAX);
    }
}
