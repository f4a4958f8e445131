//! Network elements: one direction of a path is a chain of them.
//!
//! Every element is a small analytic model that maps "a datagram of `size`
//! bytes reaches me at `at`" to "it leaves at time T" or "it is dropped"
//! ([`Verdict`]). No element schedules events of its own, so a datagram
//! crosses a whole [`Path`] in one call. The reference for what users expect
//! is neqo's test-fixture `sim` (TailDrop, Delay, RandomDelay, Drop).

use std::time::Duration;

use crate::rng::Rng;
use crate::time::{Time, duration_to_nanos};

pub mod bottleneck;
pub mod codel;
pub mod delay;
pub mod duplicate;
pub mod jitter;
pub mod loss;
pub mod path;

pub use bottleneck::{Bottleneck, BottleneckStats, DEFAULT_OVERHEAD_BYTES};
pub use codel::{Codel, CodelParams};
pub use delay::Delay;
pub use duplicate::Duplicate;
pub use jitter::Jitter;
pub use loss::{GilbertElliott, LossError, RandomLoss};
pub use path::{GIGABIT_BPS, GIGABIT_RTT, LossModel, Path, PathConfig, PathConfigError, PathStats};

/// What an element did with a datagram.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The datagram leaves this element at the given time (never earlier
    /// than it arrived).
    Forward(Time),
    /// The datagram is gone.
    Drop(DropReason),
}

/// Why a datagram was dropped.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DropReason {
    /// Tail drop: the bottleneck's queue had no room.
    QueueFull,
    /// Random (Bernoulli or Gilbert–Elliott) loss.
    RandomLoss,
    /// CoDel AQM dropped it at the head of the queue (RFC 8289).
    Codel,
}

/// One stage of a path direction.
pub trait Element: std::fmt::Debug {
    /// `at`: time the datagram (UDP payload `size` bytes) reaches this element; `rng`: the run's PRNG.
    fn process(&mut self, at: Time, size: u32, rng: &mut Rng) -> Verdict;
}

/// Bandwidth-delay product in bytes: `rate_bps * rtt / 8`, rounded down,
/// saturating at `u64::MAX`.
#[must_use]
pub fn bdp_bytes(rate_bps: u64, rtt: Duration) -> u64 {
    let bits = u128::from(rate_bps) * u128::from(duration_to_nanos(rtt));
    u64::try_from(bits / 8_000_000_000).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bdp_exact() {
        // 1 Gbit/s x 50 ms = 6.25 MB.
        assert_eq!(
            bdp_bytes(1_000_000_000, Duration::from_millis(50)),
            6_250_000
        );
        // neqo's bench: 1 Gbit/s x 40 ms = 5 MB.
        assert_eq!(
            bdp_bytes(1_000_000_000, Duration::from_millis(40)),
            5_000_000
        );
        // Rounds down: 1 bit/s x 7 s = 0.875 B.
        assert_eq!(bdp_bytes(1, Duration::from_secs(7)), 0);
        assert_eq!(bdp_bytes(1, Duration::from_secs(8)), 1);
        assert_eq!(bdp_bytes(0, Duration::from_secs(1)), 0);
        assert_eq!(bdp_bytes(u64::MAX, Duration::MAX), u64::MAX);
    }
}
