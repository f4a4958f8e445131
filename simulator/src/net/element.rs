//! What every network element is: a function from "a datagram reaches me
//! at `at`" to "it leaves at T" or "it is dropped".

use crate::{rng::Rng, time::Time};

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
