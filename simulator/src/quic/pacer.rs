//! Pacing (RFC 9002 §7.7): a token bucket refilled at
//! N · cwnd / smoothed_rtt with N = 1.25, holding at most a burst of
//! `burst_packets` full-sized datagrams.
//!
//! Integer arithmetic only: the rate is the exact fraction
//! `5 · cwnd` bytes per `4 · srtt` nanoseconds.

use std::time::Duration;

use crate::time::Time;

/// Pacing gain N = 5/4 (RFC 9002 §7.7).
const GAIN_NUM: u128 = 5;
const GAIN_DEN: u128 = 4;

/// A token-bucket pacer.
///
/// The bucket level is kept exactly as a fraction `level / scale` bytes,
/// where `scale` is the rate denominator (4 · srtt in ns) of the last update,
/// so at a constant rate no sub-byte credit is ever lost and send times are
/// exact (rounded up to whole nanoseconds, without drift). A rate change
/// rescales the level, losing less than 1/scale of a byte.
///
/// Invariants: `level <= capacity · scale`; `last` never decreases. The
/// bucket starts full.
#[derive(Clone, Debug)]
pub struct Pacer {
    max_datagram_size: u64,
    capacity: u64,
    /// Bucket level in units of 1/scale byte, at `last`.
    level: u128,
    scale: u128,
    last: Time,
}

impl Pacer {
    /// A pacer allowing bursts of `burst_packets` datagrams of
    /// `max_datagram_size` bytes (at least one).
    #[must_use]
    pub fn new(max_datagram_size: u64, burst_packets: u64) -> Self {
        let capacity = max_datagram_size.saturating_mul(burst_packets.max(1));
        Self {
            max_datagram_size,
            capacity,
            level: u128::from(capacity),
            scale: 1,
            last: Time::ZERO,
        }
    }

    /// Bucket size in bytes.
    #[must_use]
    pub const fn capacity(&self) -> u64 {
        self.capacity
    }

    /// The datagram size the bucket was sized with.
    #[must_use]
    pub const fn max_datagram_size(&self) -> u64 {
        self.max_datagram_size
    }

    /// The rate as `num` bytes per `den` ns, or `None` when pacing is off
    /// (cwnd or srtt zero: no meaningful rate).
    fn rate(cwnd: u64, srtt: Duration) -> Option<(u128, u128)> {
        let srtt = srtt.as_nanos();
        (cwnd > 0 && srtt > 0).then(|| (GAIN_NUM * u128::from(cwnd), GAIN_DEN * srtt))
    }

    /// Bucket level at `now` in units of 1/`den` byte, without changing state.
    fn level_at(&self, now: Time, num: u128, den: u128) -> u128 {
        let level = if den == self.scale {
            self.level
        } else {
            self.level * den / self.scale
        };
        let elapsed = u128::from(now.0.saturating_sub(self.last.0));
        let full = u128::from(self.capacity) * den;
        level.saturating_add(elapsed.saturating_mul(num)).min(full)
    }

    /// Earliest time a datagram of `bytes` may leave, given the current
    /// congestion window and smoothed RTT: `now` if the bucket holds
    /// enough tokens, otherwise the instant it will (rounded up to whole
    /// nanoseconds). A datagram larger than the bucket waits for a full one.
    #[must_use]
    pub fn next_send_time(&self, now: Time, cwnd: u64, srtt: Duration, bytes: u64) -> Time {
        let Some((num, den)) = Self::rate(cwnd, srtt) else {
            return now;
        };
        let need = u128::from(bytes.min(self.capacity)) * den;
        let level = self.level_at(now, num, den);
        if level >= need {
            return now;
        }
        // The level grows by `num` units per ns.
        let wait = (need - level).div_ceil(num);
        let wait = u64::try_from(wait).unwrap_or(u64::MAX);
        Time(now.0.max(self.last.0).saturating_add(wait))
    }

    /// Records that `bytes` left at `now` (whether or not the pacer said
    /// they could: a send before [`Pacer::next_send_time`] empties the bucket).
    pub fn on_sent(&mut self, now: Time, cwnd: u64, srtt: Duration, bytes: u64) {
        match Self::rate(cwnd, srtt) {
            Some((num, den)) => {
                let level = self.level_at(now, num, den);
                self.level = level.saturating_sub(u128::from(bytes) * den);
                self.scale = den;
            }
            None => {
                self.level = u128::from(self.capacity);
                self.scale = 1;
            }
        }
        self.last = self.last.max(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MDS: u64 = 1500;
    const SRTT: Duration = Duration::from_millis(100);
    // 1.25 · 125 000 B / 100 ms: one 1500-byte datagram every 960 µs.
    const CWND: u64 = 125_000;
    const SPACING_NS: u64 = 960_000;

    /// Sends `n` datagrams of `bytes` as early as the pacer allows from
    /// `start`; returns their send times.
    fn send_times(p: &mut Pacer, start: Time, n: usize, bytes: u64) -> Vec<u64> {
        let mut now = start;
        (0..n)
            .map(|_| {
                now = p.next_send_time(now, CWND, SRTT, bytes);
                p.on_sent(now, CWND, SRTT, bytes);
                now.0
            })
            .collect()
    }

    #[test]
    fn burst_then_exact_spacing() {
        let mut p = Pacer::new(MDS, 10);
        let t = send_times(&mut p, Time::from_millis(5), 14, MDS);
        // Full bucket at start: ten datagrams at once.
        assert!(t[..10].iter().all(|&x| x == 5_000_000));
        // Then one per 960 µs exactly.
        for (i, &x) in t[10..].iter().enumerate() {
            assert_eq!(x, 5_000_000 + (i as u64 + 1) * SPACING_NS);
        }
    }

    #[test]
    fn one_ns_before_is_too_early() {
        let mut p = Pacer::new(MDS, 1);
        p.on_sent(Time::ZERO, CWND, SRTT, MDS);
        let next = p.next_send_time(Time::ZERO, CWND, SRTT, MDS);
        assert_eq!(next, Time(SPACING_NS));
        assert_eq!(
            p.next_send_time(Time(SPACING_NS - 1), CWND, SRTT, MDS),
            Time(SPACING_NS)
        );
        assert_eq!(
            p.next_send_time(Time(SPACING_NS), CWND, SRTT, MDS),
            Time(SPACING_NS)
        );
        assert_eq!(
            p.next_send_time(Time(SPACING_NS + 7), CWND, SRTT, MDS),
            Time(SPACING_NS + 7)
        );
    }

    #[test]
    fn fractional_rate_does_not_drift() {
        // 1.25 · 100 000 B / 30 ms = 4 166.67 B/ms: 1200 B every 288 µs.
        let mut p = Pacer::new(1200, 1);
        let mut now = Time::ZERO;
        p.on_sent(now, 100_000, Duration::from_millis(30), 1200);
        for _ in 0..10_000 {
            now = p.next_send_time(now, 100_000, Duration::from_millis(30), 1200);
            p.on_sent(now, 100_000, Duration::from_millis(30), 1200);
        }
        assert_eq!(now, Time(10_000 * 288_000));
        // 1000-byte datagrams: 240 µs each exactly.
        let start = now;
        for _ in 0..3 {
            now = p.next_send_time(now, 100_000, Duration::from_millis(30), 1000);
            p.on_sent(now, 100_000, Duration::from_millis(30), 1000);
        }
        assert_eq!(now - start, Duration::from_micros(3 * 240));
        // A rate that is not a whole number of ns per byte: 7 bytes per
        // 4 · 3 ns -> 1 byte every 12/7 ns. 700 sends of 1 byte take 1200 ns.
        // (The bucket holds 2 bytes so sends rounded up to whole ns never
        // find it full.)
        let mut p = Pacer::new(1, 2);
        let mut now = Time::ZERO;
        p.on_sent(now, 7, Duration::from_nanos(15), 2);
        for _ in 0..700 {
            now = p.next_send_time(now, 7, Duration::from_nanos(15), 1);
            p.on_sent(now, 7, Duration::from_nanos(15), 1);
        }
        // rate = 5·7 / (4·15) = 35/60 B/ns -> 700 B in 1200 ns.
        assert_eq!(now, Time(1200));
    }

    #[test]
    fn idle_refills_only_up_to_capacity() {
        let mut p = Pacer::new(MDS, 2);
        let t = send_times(&mut p, Time::ZERO, 3, MDS);
        assert_eq!(t, [0, 0, SPACING_NS]);
        // Idle for a long time: the bucket is full again, but holds only two.
        let t = send_times(&mut p, Time::from_secs(10), 3, MDS);
        let s = Time::from_secs(10).0;
        assert_eq!(t, [s, s, s + SPACING_NS]);
    }

    #[test]
    fn small_datagram_needs_proportional_tokens() {
        let mut p = Pacer::new(MDS, 1);
        p.on_sent(Time::ZERO, CWND, SRTT, MDS);
        // 500 bytes need a third of the 1500-byte spacing.
        assert_eq!(
            p.next_send_time(Time::ZERO, CWND, SRTT, 500),
            Time(SPACING_NS / 3)
        );
    }

    #[test]
    fn zero_rtt_or_cwnd_disables_pacing() {
        let mut p = Pacer::new(MDS, 1);
        p.on_sent(Time::ZERO, CWND, SRTT, MDS);
        assert_eq!(
            p.next_send_time(Time(5), CWND, Duration::ZERO, MDS),
            Time(5)
        );
        assert_eq!(p.next_send_time(Time(5), 0, SRTT, MDS), Time(5));
    }

    #[test]
    fn oversized_datagram_waits_for_full_bucket() {
        let mut p = Pacer::new(MDS, 1);
        p.on_sent(Time::ZERO, CWND, SRTT, MDS);
        assert_eq!(
            p.next_send_time(Time::ZERO, CWND, SRTT, 3000),
            Time(SPACING_NS)
        );
    }
}
