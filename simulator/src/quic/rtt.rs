//! RTT estimation (RFC 9002 §5) and the PTO period (RFC 9002 §6.2.1).

use std::time::Duration;

/// Timer granularity, kGranularity (RFC 9002 §6.1.2).
pub const GRANULARITY: Duration = Duration::from_millis(1);

/// The RTT assumed before any sample, kInitialRtt (RFC 9002 §6.2.2).
pub const DEFAULT_INITIAL_RTT: Duration = Duration::from_millis(333);

/// RTT estimator of RFC 9002 §5.
///
/// Invariants: before the first sample, `smoothed` is the initial RTT,
/// `rttvar` half of it, and `latest` and `min_rtt` equal the initial RTT;
/// after it, `min_rtt <= latest` of every sample so far and `min_rtt`
/// never includes an ACK delay. Arithmetic is integer nanoseconds,
/// truncating and saturating (never panics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttEstimator {
    latest: Duration,
    smoothed: Duration,
    rttvar: Duration,
    min_rtt: Duration,
    has_sample: bool,
}

impl Default for RttEstimator {
    /// An estimator starting from [`DEFAULT_INITIAL_RTT`].
    fn default() -> Self {
        Self::new(DEFAULT_INITIAL_RTT)
    }
}

impl RttEstimator {
    /// An estimator that assumes `initial_rtt` until the first sample
    /// (RFC 9002 §5.3: smoothed = initial, rttvar = initial / 2).
    #[must_use]
    pub fn new(initial_rtt: Duration) -> Self {
        Self {
            latest: initial_rtt,
            smoothed: initial_rtt,
            rttvar: initial_rtt / 2,
            min_rtt: initial_rtt,
            has_sample: false,
        }
    }

    /// Takes one RTT sample (RFC 9002 §5.1–§5.3).
    ///
    /// `latest_rtt`: time from sending the newly acknowledged largest packet
    /// to receiving its ACK; `ack_delay`: the peer's reported delay, capped
    /// here at `max_ack_delay`.
    pub fn update(&mut self, latest_rtt: Duration, ack_delay: Duration, max_ack_delay: Duration) {
        self.latest = latest_rtt;
        if !self.has_sample {
            // §5.3: first sample.
            self.has_sample = true;
            self.min_rtt = latest_rtt;
            self.smoothed = latest_rtt;
            self.rttvar = latest_rtt / 2;
            return;
        }
        // §5.2: min_rtt ignores ack delay.
        self.min_rtt = self.min_rtt.min(latest_rtt);
        // §5.3: cap ack delay (no handshake here, so always confirmed), and
        // only subtract it if the result stays at or above min_rtt.
        let ack_delay = ack_delay.min(max_ack_delay);
        let adjusted = if latest_rtt >= self.min_rtt.saturating_add(ack_delay) {
            latest_rtt - ack_delay
        } else {
            latest_rtt
        };
        let rttvar_sample = self.smoothed.abs_diff(adjusted);
        self.rttvar = (self.rttvar.saturating_mul(3).saturating_add(rttvar_sample)) / 4;
        self.smoothed = (self.smoothed.saturating_mul(7).saturating_add(adjusted)) / 8;
    }

    /// The most recent sample (or the initial RTT before any).
    #[must_use]
    pub const fn latest(&self) -> Duration {
        self.latest
    }

    /// smoothed_rtt.
    #[must_use]
    pub const fn smoothed(&self) -> Duration {
        self.smoothed
    }

    /// rttvar.
    #[must_use]
    pub const fn rttvar(&self) -> Duration {
        self.rttvar
    }

    /// min_rtt (the initial RTT before any sample).
    #[must_use]
    pub const fn min_rtt(&self) -> Duration {
        self.min_rtt
    }

    /// True once [`RttEstimator::update`] has been called.
    #[must_use]
    pub const fn has_sample(&self) -> bool {
        self.has_sample
    }

    /// The PTO period without backoff (RFC 9002 §6.2.1):
    /// smoothed_rtt + max(4·rttvar, kGranularity) + max_ack_delay.
    #[must_use]
    pub fn pto_period(&self, max_ack_delay: Duration) -> Duration {
        self.smoothed
            .saturating_add(self.rttvar.saturating_mul(4).max(GRANULARITY))
            .saturating_add(max_ack_delay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn initial_values() {
        let r = RttEstimator::default();
        assert_eq!(r.smoothed(), ms(333));
        assert_eq!(r.rttvar(), Duration::from_micros(166_500));
        assert!(!r.has_sample());
        // 333 + 4 * 166.5 + 25 = 1024 ms.
        assert_eq!(r.pto_period(ms(25)), ms(1024));
    }

    #[test]
    fn first_sample_replaces_initial_and_ignores_ack_delay() {
        let mut r = RttEstimator::new(ms(333));
        r.update(ms(100), ms(20), ms(25));
        assert_eq!(r.latest(), ms(100));
        assert_eq!(r.smoothed(), ms(100));
        assert_eq!(r.rttvar(), ms(50));
        assert_eq!(r.min_rtt(), ms(100));
        assert!(r.has_sample());
        // 100 + 200 + 25
        assert_eq!(r.pto_period(ms(25)), ms(325));
    }

    #[test]
    fn ack_delay_subtracted_when_result_stays_above_min_rtt() {
        let mut r = RttEstimator::new(ms(333));
        r.update(ms(100), ms(0), ms(25));
        // latest 120 >= min 100 + delay 16: adjusted = 104.
        r.update(ms(120), ms(16), ms(25));
        assert_eq!(r.min_rtt(), ms(100));
        // rttvar = 3/4*50 + 1/4*|100-104| = 37.5 + 1 = 38.5
        assert_eq!(r.rttvar(), Duration::from_micros(38_500));
        // smoothed = 7/8*100 + 1/8*104 = 100.5
        assert_eq!(r.smoothed(), Duration::from_micros(100_500));
    }

    #[test]
    fn ack_delay_not_subtracted_below_min_rtt() {
        let mut r = RttEstimator::new(ms(333));
        r.update(ms(100), ms(0), ms(25));
        // latest 110 < min 100 + delay 16: adjusted = 110 (one ms before the
        // boundary; 116 would be adjusted to 100).
        r.update(ms(110), ms(16), ms(25));
        // rttvar = 37.5 + 10/4 = 40; smoothed = 87.5 + 13.75 = 101.25
        assert_eq!(r.rttvar(), ms(40));
        assert_eq!(r.smoothed(), Duration::from_micros(101_250));

        let mut r = RttEstimator::new(ms(333));
        r.update(ms(100), ms(0), ms(25));
        r.update(ms(116), ms(16), ms(25)); // exactly at the boundary: adjusted = 100
        assert_eq!(r.smoothed(), ms(100));
        assert_eq!(r.rttvar(), Duration::from_micros(37_500));
    }

    #[test]
    fn ack_delay_capped_at_max_ack_delay() {
        let mut r = RttEstimator::new(ms(333));
        r.update(ms(100), ms(0), ms(25));
        // Reported 80 ms delay, capped at 25: adjusted = 200 - 25 = 175.
        r.update(ms(200), ms(80), ms(25));
        // smoothed = 87.5 + 21.875 = 109.375; rttvar = 37.5 + 75/4 = 56.25
        assert_eq!(r.smoothed(), Duration::from_micros(109_375));
        assert_eq!(r.rttvar(), Duration::from_micros(56_250));
    }

    #[test]
    fn min_rtt_tracks_raw_samples() {
        let mut r = RttEstimator::new(ms(333));
        r.update(ms(100), ms(0), ms(25));
        r.update(ms(90), ms(20), ms(25));
        assert_eq!(r.min_rtt(), ms(90)); // not 70
        assert_eq!(r.latest(), ms(90));
        r.update(ms(150), ms(0), ms(25));
        assert_eq!(r.min_rtt(), ms(90));
    }

    #[test]
    fn pto_uses_granularity_floor() {
        let mut r = RttEstimator::new(ms(333));
        r.update(ms(10), ms(0), ms(0));
        for _ in 0..100 {
            r.update(ms(10), ms(0), ms(0));
        }
        // rttvar has decayed below 0.25 ms, so 4*rttvar < 1 ms.
        assert!(r.rttvar() * 4 < GRANULARITY);
        assert_eq!(r.pto_period(ms(25)), ms(10) + GRANULARITY + ms(25));
    }
}
