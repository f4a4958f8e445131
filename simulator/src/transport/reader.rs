//! The application's read pacing ([`Reader`]): how much it may read when
//! (unlimited, at a rate, or on a timer), and which streams stall when.
//! `application.rs` spends this budget on the streams.

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
    /// Periodic reader: the wake-up whose budget `tokens` holds.
    served_tick: Option<u64>,
}

impl Reader {
    /// A reader for `streams` streams.
    #[must_use]
    pub fn new(speed: ReaderSpeed, stall: Option<Stall>, streams: u64) -> Self {
        let burst = match speed {
            ReaderSpeed::Unlimited => u64::MAX,
            // 10 ms of reading, at least a few packets.
            ReaderSpeed::Rate(bps) => (bps / 8 / 100).max(4 * READ_CHUNK),
            ReaderSpeed::Periodic { bps, period } => per_wakeup(bps, period),
        };
        Self {
            speed,
            tokens: 0,
            burst,
            last_refill: Time::ZERO,
            carry: 0,
            stall,
            streams,
            served_tick: None,
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
            ReaderSpeed::Periodic { period, .. } => {
                // Only at a wake-up: its budget, once; nothing in between.
                let Some(tick) = tick_at(now, period) else {
                    return 0;
                };
                if self.served_tick != Some(tick) {
                    self.served_tick = Some(tick);
                    self.tokens = self.burst;
                }
                self.tokens
            }
        }
    }

    /// Records `n` bytes read.
    pub fn consume(&mut self, n: u64) {
        if !self.unlimited() {
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
        let bps = match self.speed {
            ReaderSpeed::Unlimited => return None,
            ReaderSpeed::Rate(bps) => bps,
            ReaderSpeed::Periodic { period, .. } => {
                // The next wake-up not yet served (this one if `now` is
                // an unserved wake-up).
                let p = period_ns(period);
                let at = now.as_nanos().div_ceil(p);
                let tick = if Some(at) == self.served_tick {
                    at + 1
                } else {
                    at
                };
                return Some(Time::from_nanos(tick.saturating_mul(p)));
            }
        };
        let want = READ_CHUNK.min(self.burst).saturating_sub(self.tokens);
        if want == 0 {
            return Some(now);
        }
        let ns = u128::from(want) * 8_000_000_000 / u128::from(bps.max(1)) + 1;
        Some(now + Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX)))
    }

    /// The periodic reader's wake-up interval, if it is one.
    #[must_use]
    pub fn period(&self) -> Option<Duration> {
        match self.speed {
            ReaderSpeed::Periodic { period, .. } => Some(period),
            _ => None,
        }
    }

    /// True for the unlimited reader.
    #[must_use]
    pub fn unlimited(&self) -> bool {
        matches!(self.speed, ReaderSpeed::Unlimited)
    }
}

/// A period in whole nanoseconds, at least 1.
fn period_ns(period: Duration) -> u64 {
    u64::try_from(period.as_nanos()).unwrap_or(u64::MAX).max(1)
}

/// The index of the wake-up at exactly `now`, if `now` is one.
fn tick_at(now: Time, period: Duration) -> Option<u64> {
    let p = period_ns(period);
    now.as_nanos().is_multiple_of(p).then(|| now.as_nanos() / p)
}

/// Bytes a periodic reader takes per wake-up: `bps × period`, at least a
/// few packets.
fn per_wakeup(bps: u64, period: Duration) -> u64 {
    let bytes = u128::from(bps) * period.as_nanos() / 8_000_000_000;
    u64::try_from(bytes).unwrap_or(u64::MAX).max(4 * READ_CHUNK)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn periodic() -> Reader {
        // 80 Mbit/s every 20 ms: 200,000 B per wake-up.
        Reader::new(
            ReaderSpeed::Periodic {
                bps: 80_000_000,
                period: Duration::from_millis(20),
            },
            None,
            1,
        )
    }

    #[test]
    fn periodic_reader_reads_only_at_its_wake_ups() {
        let mut r = periodic();
        let ms = Time::from_millis;
        // At a wake-up: one wake-up's budget, spent across calls at that
        // instant, and nothing more until the next.
        assert_eq!(r.budget(ms(20)), 200_000);
        r.consume(150_000);
        assert_eq!(r.budget(ms(20)), 50_000);
        r.consume(50_000);
        assert_eq!(r.budget(ms(20)), 0);
        // Between wake-ups nothing, even with budget left over.
        assert_eq!(r.budget(ms(40)), 200_000);
        r.consume(1);
        assert_eq!(r.budget(ms(40) + Duration::from_nanos(1)), 0);
        assert_eq!(r.budget(ms(59)), 0);
        // Unused budget does not carry over.
        assert_eq!(r.budget(ms(60)), 200_000);
    }

    #[test]
    fn periodic_reader_wakes_at_the_next_unserved_tick() {
        let mut r = periodic();
        let ms = Time::from_millis;
        assert_eq!(r.next_budget_time(ms(5)), Some(ms(20)));
        assert_eq!(r.next_budget_time(ms(20)), Some(ms(20)));
        let _ = r.budget(ms(20));
        assert_eq!(r.next_budget_time(ms(20)), Some(ms(40)));
        assert_eq!(r.next_budget_time(ms(21)), Some(ms(40)));
    }

    #[test]
    fn periodic_reader_takes_at_least_a_few_packets() {
        let r = Reader::new(
            ReaderSpeed::Periodic {
                bps: 8,
                period: Duration::from_millis(1),
            },
            None,
            1,
        );
        assert_eq!(r.burst, 4 * READ_CHUNK);
    }
}
