//! The client application: how fast it reads, at what granularity, and
//! which streams stall.

use std::time::Duration;

use crate::{
    scenario::{ReaderSpeed, Stall},
    time::Time,
};

/// Smallest read the rate-limited reader waits to accumulate.
const READ_CHUNK: u64 = 1200;

/// Read pacing for the client application.
///
/// Invariant: `tokens ≤ burst` (rate-limited reader); an unlimited reader
/// always has budget.
#[derive(Debug)]
pub struct Reader {
    speed: ReaderSpeed,
    tokens: u64,
    burst: u64,
    last_refill: Time,
    /// Remainder of the token refill, in byte-nanoseconds, so rounding
    /// never loses credit.
    carry: u64,
    stall: Option<Stall>,
    streams: u64,
}

impl Reader {
    /// A reader for `streams` streams.
    #[must_use]
    pub fn new(speed: ReaderSpeed, stall: Option<Stall>, streams: u64) -> Self {
        let burst = match speed {
            ReaderSpeed::Unlimited => u64::MAX,
            // 10 ms of reading, at least a few packets.
            ReaderSpeed::Rate(bps) => (bps / 8 / 100).max(4 * READ_CHUNK),
        };
        Self {
            speed,
            tokens: 0,
            burst,
            last_refill: Time::ZERO,
            carry: 0,
            stall,
            streams,
        }
    }

    fn refill(&mut self, now: Time) {
        let ReaderSpeed::Rate(bps) = self.speed else {
            return;
        };
        let elapsed = (now - self.last_refill).as_nanos();
        self.last_refill = now;
        // bytes = bps / 8 × ns / 1e9, with the remainder carried.
        let num = u128::from(bps) * elapsed + u128::from(self.carry);
        let den = 8_000_000_000u128;
        let add = u64::try_from(num / den).unwrap_or(u64::MAX);
        self.carry = u64::try_from(num % den).unwrap_or(0);
        self.tokens = self.tokens.saturating_add(add).min(self.burst);
        if self.tokens == self.burst {
            self.carry = 0;
        }
    }

    /// Bytes the application may read now.
    pub fn budget(&mut self, now: Time) -> u64 {
        match self.speed {
            ReaderSpeed::Unlimited => u64::MAX,
            ReaderSpeed::Rate(_) => {
                self.refill(now);
                self.tokens
            }
        }
    }

    /// Records `n` bytes read.
    pub fn consume(&mut self, n: u64) {
        if let ReaderSpeed::Rate(_) = self.speed {
            self.tokens = self.tokens.saturating_sub(n);
        }
    }

    /// How many of the contiguous bytes (ending at `contiguous_end`) the
    /// application takes: all of them. A message-oriented application
    /// reads partial messages into its own buffer too; waiting for whole
    /// messages would deadlock any message larger than the window.
    #[must_use]
    pub fn readable(&self, read: u64, contiguous_end: u64, _final_size: Option<u64>) -> u64 {
        contiguous_end.saturating_sub(read)
    }

    /// True if the stream with this index is stalled at `now`.
    #[must_use]
    pub fn stalled(&self, index: u64, now: Time) -> bool {
        self.stall.is_some_and(|s| {
            let first = self.streams.saturating_sub(u64::from(s.streams));
            index >= first
                && now.as_duration() >= s.start
                && now.as_duration() < s.start.saturating_add(s.duration)
        })
    }

    /// True if stream `index` is one of the stalled ones (at any time).
    #[must_use]
    pub fn stalls(&self, index: u64) -> bool {
        self.stall
            .is_some_and(|s| index >= self.streams.saturating_sub(u64::from(s.streams)))
    }

    /// True if stream `index` stops reading for good at or before `now`.
    #[must_use]
    pub fn stalled_for_good(&self, index: u64, now: Time) -> bool {
        self.stall
            .is_some_and(|s| s.permanent() && now.as_duration() >= s.start)
            && self.stalls(index)
    }

    /// The stall, if any.
    #[must_use]
    pub fn stall(&self) -> Option<Stall> {
        self.stall
    }

    /// When a stalled reader resumes (if it will and has not yet).
    #[must_use]
    pub fn stall_end(&self, now: Time) -> Option<Time> {
        let s = self.stall?;
        let end = s.start.checked_add(s.duration)?;
        (now.as_duration() < end).then(|| Time::ZERO + end)
    }

    /// When the rate-limited reader next has a chunk of budget.
    #[must_use]
    pub fn next_budget_time(&self, now: Time) -> Option<Time> {
        let ReaderSpeed::Rate(bps) = self.speed else {
            return None;
        };
        let want = READ_CHUNK.min(self.burst).saturating_sub(self.tokens);
        if want == 0 {
            return Some(now);
        }
        let ns = u128::from(want) * 8_000_000_000 / u128::from(bps.max(1)) + 1;
        Some(now + Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX)))
    }

    /// True for the unlimited reader.
    #[must_use]
    pub fn unlimited(&self) -> bool {
        matches!(self.speed, ReaderSpeed::Unlimited)
    }
}
