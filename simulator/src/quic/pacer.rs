//! Pacing (RFC 9002 §7.7): a token bucket refilled at
//! N · cwnd / smoothed_rtt, holding at most a burst of `burst_packets`
//! full-sized datagrams. [`Pacing`] says N and the burst: RFC 9002's
//! N = 1.25 with Linux's doubled rate in slow start, or neqo's N = 2 and
//! bursts of 2.
//!
//! Integer arithmetic only: the rate is the exact fraction
//! `num · cwnd` bytes per `den · srtt` nanoseconds.

use std::time::Duration;

use crate::time::Time;

/// How a sender paces: the gain N (as `num / den`) in congestion
/// avoidance and in slow start, and the burst.
///
/// Invariants (checked by [`Pacing::new`]): every numerator and
/// denominator is in 1..=1000, `burst_packets` ≥ 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pacing {
    gain: (u32, u32),
    slow_start_gain: (u32, u32),
    burst_packets: u64,
    /// Ack-eliciting packets without stream data (MAX_*, *_BLOCKED) wait
    /// for the pacer too, while anything is in flight.
    paces_control: bool,
    /// ACK-only packets, sent unpaced, still spend pacing credit and may
    /// leave the bucket in debt (neqo 0.30.1).
    ack_only_debt: bool,
    /// A wait shorter than this many nanoseconds is not waited: the packet
    /// leaves at once and its bytes put the bucket in debt (neqo's 1 ms
    /// timer granularity, `pace.rs`). 0: every wait is waited.
    granularity_ns: u64,
}

impl Pacing {
    /// RFC 9002 §7.7's N = 1.25; in slow start 2, as Linux paces
    /// (`tcp_pacing_ss_ratio` = 200 %) so pacing does not slow the ramp;
    /// bursts of 10 datagrams.
    pub const RFC9002: Self = Self {
        gain: (5, 4),
        slow_start_gain: (2, 1),
        burst_packets: 10,
        paces_control: false,
        ack_only_debt: false,
        granularity_ns: 0,
    };

    /// neqo 0.30.1 (`pace.rs`, `sender.rs`): twice cwnd / srtt in every
    /// state, bursts of `PACING_BURST_SIZE` = 2 datagrams; every
    /// ack-eliciting packet is paced while anything is in flight, and
    /// ACK-only packets, sent unpaced, spend credit (a receive-mostly
    /// endpoint runs into pacing debt that delays its MAX_STREAM_DATA).
    pub const NEQO: Self = Self {
        gain: (2, 1),
        slow_start_gain: (2, 1),
        burst_packets: 2,
        paces_control: true,
        ack_only_debt: true,
        granularity_ns: 0,
    };

    /// [`Pacing::NEQO`] with the neqo integration's pacing patch: ACK-only
    /// packets spend no credit (RFC 9002 §7.7).
    pub const NEQO_FIXED: Self = Self {
        ack_only_debt: false,
        ..Self::NEQO
    };

    /// Gains `gain` and `slow_start_gain` as `(num, den)`, bursts of
    /// `burst_packets`; `None` outside the invariants.
    #[must_use]
    pub fn new(gain: (u32, u32), slow_start_gain: (u32, u32), burst_packets: u64) -> Option<Self> {
        let ok = |(n, d): (u32, u32)| (1..=1000).contains(&n) && (1..=1000).contains(&d);
        (ok(gain) && ok(slow_start_gain) && burst_packets >= 1).then_some(Self {
            gain,
            slow_start_gain,
            burst_packets,
            paces_control: false,
            ack_only_debt: false,
            granularity_ns: 0,
        })
    }

    /// The same pacing, not waiting a wait shorter than `granularity`: the
    /// packet leaves at once and its bytes put the bucket in debt, as neqo
    /// does below its 1 ms timer granularity (`pace.rs`), so that a fast
    /// sender sends in clumps of up to a millisecond's credit.
    #[must_use]
    pub const fn with_granularity(self, granularity: Duration) -> Self {
        let ns = granularity.as_nanos();
        Self {
            granularity_ns: if ns > u64::MAX as u128 {
                u64::MAX
            } else {
                ns as u64
            },
            ..self
        }
    }

    /// The shortest wait the pacer waits ([`Pacing::with_granularity`]).
    #[must_use]
    pub const fn granularity(self) -> Duration {
        Duration::from_nanos(self.granularity_ns)
    }

    /// Ack-eliciting packets without stream data wait for the pacer too.
    #[must_use]
    pub const fn paces_control(self) -> bool {
        self.paces_control
    }

    /// ACK-only packets spend pacing credit, into debt.
    #[must_use]
    pub const fn ack_only_debt(self) -> bool {
        self.ack_only_debt
    }

    /// Datagrams the pacer lets leave back to back.
    #[must_use]
    pub const fn burst_packets(self) -> u64 {
        self.burst_packets
    }

    /// The gain as `(num, den)`, in slow start or not.
    #[must_use]
    pub const fn gain(self, slow_start: bool) -> (u32, u32) {
        if slow_start {
            self.slow_start_gain
        } else {
            self.gain
        }
    }
}

/// A token-bucket pacer.
///
/// The bucket level is kept exactly as a fraction `level / scale` bytes,
/// where `scale` is the rate denominator (4 · srtt in ns) of the last update,
/// so at a constant rate no sub-byte credit is ever lost and send times are
/// exact (rounded up to whole nanoseconds, without drift). A rate change
/// rescales the level, losing less than 1/scale of a byte.
///
/// Invariants: `level <= capacity · scale`; `level ≥ 0` except after
/// [`Pacer::spend_unpaced`] or, with a granularity
/// ([`Pacing::with_granularity`]), a send that did not wait (debt); `last` never
/// decreases. The bucket starts full.
#[derive(Clone, Debug)]
pub struct Pacer {
    max_datagram_size: u64,
    pacing: Pacing,
    capacity: u64,
    /// Bucket level in units of 1/scale byte, at `last`; negative = debt.
    level: i128,
    scale: u128,
    last: Time,
}

impl Pacer {
    /// A pacer for datagrams of `max_datagram_size` bytes, pacing as
    /// `pacing` says.
    #[must_use]
    pub fn new(max_datagram_size: u64, pacing: Pacing) -> Self {
        let capacity = max_datagram_size.saturating_mul(pacing.burst_packets.max(1));
        Self {
            max_datagram_size,
            pacing,
            capacity,
            level: i128::from(capacity),
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
    ///
    /// In slow start the window is first scaled by slow-start gain / gain
    /// (rounded down), then paced at the gain: RFC 9002's 2 = 1.25 × 8/5
    /// that way, to the byte what the transport always did.
    fn rate(&self, cwnd: u64, srtt: Duration, slow_start: bool) -> Option<(u128, u128)> {
        let srtt = srtt.as_nanos();
        let (n, d) = self.pacing.gain;
        let mut cwnd = u128::from(cwnd);
        if slow_start {
            let (sn, sd) = self.pacing.slow_start_gain;
            let (num, den) = (
                u128::from(sn) * u128::from(d),
                u128::from(sd) * u128::from(n),
            );
            if num != den {
                cwnd = cwnd * num / den;
            }
        }
        (cwnd > 0 && srtt > 0).then(|| (u128::from(n) * cwnd, u128::from(d) * srtt))
    }

    /// Bucket level at `now` in units of 1/`den` byte, without changing state.
    fn level_at(&self, now: Time, num: u128, den: u128) -> i128 {
        let (den, num) = (signed(den), signed(num));
        let level = if den == signed(self.scale) {
            self.level
        } else {
            self.level.saturating_mul(den) / signed(self.scale)
        };
        let elapsed = i128::from(now.0.saturating_sub(self.last.0));
        let full = i128::from(self.capacity).saturating_mul(den);
        level.saturating_add(elapsed.saturating_mul(num)).min(full)
    }

    /// Earliest time a datagram of `bytes` may leave, given the current
    /// congestion window and smoothed RTT: `now` if the bucket holds
    /// enough tokens, otherwise the instant it will (rounded up to whole
    /// nanoseconds). A datagram larger than the bucket waits for a full one.
    #[must_use]
    pub fn next_send_time(
        &self,
        now: Time,
        cwnd: u64,
        srtt: Duration,
        slow_start: bool,
        bytes: u64,
    ) -> Time {
        let Some((num, den)) = self.rate(cwnd, srtt, slow_start) else {
            return now;
        };
        let need = i128::from(bytes.min(self.capacity)).saturating_mul(signed(den));
        let level = self.level_at(now, num, den);
        if level >= need {
            return now;
        }
        // The level grows by `num` units per ns.
        let missing = u128::try_from(need.saturating_sub(level)).unwrap_or(u128::MAX);
        let wait = missing.div_ceil(num);
        let wait = u64::try_from(wait).unwrap_or(u64::MAX);
        let at = now.0.max(self.last.0).saturating_add(wait);
        if at - now.0 < self.pacing.granularity_ns {
            return now;
        }
        Time(at)
    }

    /// Records that `bytes` left at `now` (whether or not the pacer said
    /// they could: a send before [`Pacer::next_send_time`] empties the bucket).
    pub fn on_sent(&mut self, now: Time, cwnd: u64, srtt: Duration, slow_start: bool, bytes: u64) {
        match self.rate(cwnd, srtt, slow_start) {
            Some((num, den)) => {
                let level = self.level_at(now, num, den);
                let spent = level.saturating_sub(i128::from(bytes).saturating_mul(signed(den)));
                // A send before its time empties the bucket: no new debt
                // (only [`Pacer::spend_unpaced`] makes any), unless the
                // pacer does not wait below its granularity: then the
                // bucket goes into debt as in neqo.
                self.level = if self.pacing.granularity_ns > 0 {
                    spent
                } else {
                    spent.max(level.min(0))
                };
                self.scale = den;
            }
            None => {
                self.level = i128::from(self.capacity);
                self.scale = 1;
            }
        }
        self.last = self.last.max(now);
    }

    /// Records that an unpaced packet of `bytes` (an ACK-only one, for
    /// [`Pacing::ack_only_debt`]) left at `now`: it spends credit and may
    /// put the bucket in debt, which later packets wait out. Nothing
    /// changes while pacing is off (no rate).
    pub fn spend_unpaced(
        &mut self,
        now: Time,
        cwnd: u64,
        srtt: Duration,
        slow_start: bool,
        bytes: u64,
    ) {
        if let Some((num, den)) = self.rate(cwnd, srtt, slow_start) {
            let level = self.level_at(now, num, den);
            self.level = level.saturating_sub(i128::from(bytes).saturating_mul(signed(den)));
            self.scale = den;
            self.last = self.last.max(now);
        }
    }
}

/// `x` as a signed value (the rates here stay far below 2^127).
fn signed(x: u128) -> i128 {
    i128::try_from(x).unwrap_or(i128::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 9002 pacing with bursts of `burst` datagrams.
    fn rfc(burst: u64) -> Pacing {
        Pacing::new((5, 4), (2, 1), burst).unwrap()
    }

    #[test]
    fn pacing_settings_are_checked() {
        assert_eq!(Pacing::new((5, 4), (2, 1), 10), Some(Pacing::RFC9002));
        let neqo = Pacing::new((2, 1), (2, 1), 2).unwrap();
        assert_eq!(
            (neqo.gain(false), neqo.burst_packets()),
            (Pacing::NEQO.gain(false), Pacing::NEQO.burst_packets())
        );
        assert!(Pacing::NEQO.ack_only_debt() && Pacing::NEQO.paces_control());
        assert!(!Pacing::NEQO_FIXED.ack_only_debt() && Pacing::NEQO_FIXED.paces_control());
        assert!(!Pacing::RFC9002.ack_only_debt() && !Pacing::RFC9002.paces_control());
        assert_eq!(Pacing::new((0, 1), (2, 1), 2), None);
        assert_eq!(Pacing::new((1, 1), (2, 0), 2), None);
        assert_eq!(Pacing::new((1, 1), (2, 1), 0), None);
        assert_eq!(Pacing::NEQO.gain(true), Pacing::NEQO.gain(false));
    }

    /// Unpaced spending (neqo's ACK-only packets) puts the bucket in debt
    /// that the next paced packet waits out; a paced send never makes
    /// debt of its own.
    #[test]
    fn unpaced_spending_makes_debt() {
        let mut p = Pacer::new(MDS, rfc(1));
        // Empty the bucket, then 3 × MDS of ACK-only packets at once.
        p.on_sent(Time::ZERO, CWND, SRTT, false, MDS);
        for _ in 0..3 {
            p.spend_unpaced(Time::ZERO, CWND, SRTT, false, MDS);
        }
        // 3 datagrams of debt + 1 to send: 4 × 960 µs.
        assert_eq!(
            p.next_send_time(Time::ZERO, CWND, SRTT, false, MDS),
            Time(4 * SPACING_NS)
        );
        let mut q = Pacer::new(MDS, rfc(1));
        q.on_sent(Time::ZERO, CWND, SRTT, false, MDS);
        q.on_sent(Time::ZERO, CWND, SRTT, false, MDS);
        assert_eq!(
            q.next_send_time(Time::ZERO, CWND, SRTT, false, MDS),
            Time(SPACING_NS)
        );
    }

    #[test]
    fn slow_start_gain_applies_in_slow_start() {
        // 2 · 125 000 B / 100 ms in slow start: one datagram every 600 µs.
        let mut p = Pacer::new(MDS, rfc(1));
        p.on_sent(Time::ZERO, CWND, SRTT, true, MDS);
        assert_eq!(
            p.next_send_time(Time::ZERO, CWND, SRTT, true, MDS),
            Time(600_000)
        );
    }

    /// With neqo's 1 ms granularity a wait shorter than 1 ms is not
    /// waited: the datagram leaves and the bucket goes into debt, until
    /// the debt needs a wait of 1 ms or more, which is waited in full.
    #[test]
    fn waits_below_the_granularity_are_not_waited() {
        let pacing = rfc(1).with_granularity(Duration::from_millis(1));
        let mut p = Pacer::new(MDS, pacing);
        let mut plain = Pacer::new(MDS, rfc(1));
        // One datagram per 960 µs: each wait is below 1 ms.
        p.on_sent(Time::ZERO, CWND, SRTT, false, MDS);
        plain.on_sent(Time::ZERO, CWND, SRTT, false, MDS);
        assert_eq!(
            plain.next_send_time(Time::ZERO, CWND, SRTT, false, MDS),
            Time(SPACING_NS)
        );
        assert_eq!(
            p.next_send_time(Time::ZERO, CWND, SRTT, false, MDS),
            Time::ZERO
        );
        // The second one leaves at once, 1500 bytes in debt: now the wait
        // is two spacings (1.92 ms), and it is waited.
        p.on_sent(Time::ZERO, CWND, SRTT, false, MDS);
        assert_eq!(
            p.next_send_time(Time::ZERO, CWND, SRTT, false, MDS),
            Time(2 * SPACING_NS)
        );
        // Over a second the average rate is the same: no credit is made up.
        let mut sent = 2;
        let mut now = Time::ZERO;
        while now.0 < 1_000_000_000 {
            now = p.next_send_time(now, CWND, SRTT, false, MDS);
            p.on_sent(now, CWND, SRTT, false, MDS);
            sent += 1;
        }
        assert!((1_041..=1_043).contains(&sent), "{sent}");
    }

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
                now = p.next_send_time(now, CWND, SRTT, false, bytes);
                p.on_sent(now, CWND, SRTT, false, bytes);
                now.0
            })
            .collect()
    }

    #[test]
    fn burst_then_exact_spacing() {
        let mut p = Pacer::new(MDS, rfc(10));
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
        let mut p = Pacer::new(MDS, rfc(1));
        p.on_sent(Time::ZERO, CWND, SRTT, false, MDS);
        let next = p.next_send_time(Time::ZERO, CWND, SRTT, false, MDS);
        assert_eq!(next, Time(SPACING_NS));
        assert_eq!(
            p.next_send_time(Time(SPACING_NS - 1), CWND, SRTT, false, MDS),
            Time(SPACING_NS)
        );
        assert_eq!(
            p.next_send_time(Time(SPACING_NS), CWND, SRTT, false, MDS),
            Time(SPACING_NS)
        );
        assert_eq!(
            p.next_send_time(Time(SPACING_NS + 7), CWND, SRTT, false, MDS),
            Time(SPACING_NS + 7)
        );
    }

    #[test]
    fn fractional_rate_does_not_drift() {
        // 1.25 · 100 000 B / 30 ms = 4 166.67 B/ms: 1200 B every 288 µs.
        let mut p = Pacer::new(1200, rfc(1));
        let mut now = Time::ZERO;
        p.on_sent(now, 100_000, Duration::from_millis(30), false, 1200);
        for _ in 0..10_000 {
            now = p.next_send_time(now, 100_000, Duration::from_millis(30), false, 1200);
            p.on_sent(now, 100_000, Duration::from_millis(30), false, 1200);
        }
        assert_eq!(now, Time(10_000 * 288_000));
        // 1000-byte datagrams: 240 µs each exactly.
        let start = now;
        for _ in 0..3 {
            now = p.next_send_time(now, 100_000, Duration::from_millis(30), false, 1000);
            p.on_sent(now, 100_000, Duration::from_millis(30), false, 1000);
        }
        assert_eq!(now - start, Duration::from_micros(3 * 240));
        // A rate that is not a whole number of ns per byte: 7 bytes per
        // 4 · 3 ns -> 1 byte every 12/7 ns. 700 sends of 1 byte take 1200 ns.
        // (The bucket holds 2 bytes so sends rounded up to whole ns never
        // find it full.)
        let mut p = Pacer::new(1, rfc(2));
        let mut now = Time::ZERO;
        p.on_sent(now, 7, Duration::from_nanos(15), false, 2);
        for _ in 0..700 {
            now = p.next_send_time(now, 7, Duration::from_nanos(15), false, 1);
            p.on_sent(now, 7, Duration::from_nanos(15), false, 1);
        }
        // rate = 5·7 / (4·15) = 35/60 B/ns -> 700 B in 1200 ns.
        assert_eq!(now, Time(1200));
    }

    #[test]
    fn idle_refills_only_up_to_capacity() {
        let mut p = Pacer::new(MDS, rfc(2));
        let t = send_times(&mut p, Time::ZERO, 3, MDS);
        assert_eq!(t, [0, 0, SPACING_NS]);
        // Idle for a long time: the bucket is full again, but holds only two.
        let t = send_times(&mut p, Time::from_secs(10), 3, MDS);
        let s = Time::from_secs(10).0;
        assert_eq!(t, [s, s, s + SPACING_NS]);
    }

    #[test]
    fn small_datagram_needs_proportional_tokens() {
        let mut p = Pacer::new(MDS, rfc(1));
        p.on_sent(Time::ZERO, CWND, SRTT, false, MDS);
        // 500 bytes need a third of the 1500-byte spacing.
        assert_eq!(
            p.next_send_time(Time::ZERO, CWND, SRTT, false, 500),
            Time(SPACING_NS / 3)
        );
    }

    #[test]
    fn zero_rtt_or_cwnd_disables_pacing() {
        let mut p = Pacer::new(MDS, rfc(1));
        p.on_sent(Time::ZERO, CWND, SRTT, false, MDS);
        assert_eq!(
            p.next_send_time(Time(5), CWND, Duration::ZERO, false, MDS),
            Time(5)
        );
        assert_eq!(p.next_send_time(Time(5), 0, SRTT, false, MDS), Time(5));
    }

    #[test]
    fn oversized_datagram_waits_for_full_bucket() {
        let mut p = Pacer::new(MDS, rfc(1));
        p.on_sent(Time::ZERO, CWND, SRTT, false, MDS);
        assert_eq!(
            p.next_send_time(Time::ZERO, CWND, SRTT, false, 3000),
            Time(SPACING_NS)
        );
    }
}
