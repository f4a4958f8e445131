//! Configuration with documented defaults.

use crate::{Budget, Fraction, tuner::ExcessTuner};

/// Receive-side flow-control settings for one connection.
///
/// Invariants checked by [`Config::validate`]: the update fraction is in
/// (0, 1]; the seed fraction (if any) is ≤ 1; the connection floor ratio is
/// ≥ 1; every window is ≤ 2^62 − 1; initial windows are ≤ their maximums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// `initial_max_stream_data_*` we advertise in the transport
    /// parameters. Default 64 KiB (neqo: 1 MiB): every stream the peer may
    /// open holds this much credit from the start, so it sets the memory a
    /// connection promises before anyone reads. The tuner roughly doubles
    /// a window-limited stream's window per RTT and later streams are
    /// seeded from the connection window, so the small start costs little:
    /// a 10 MiB transfer at 1 Gbit/s, 50 ms takes 5 % longer than with
    /// 1 MiB, a 1 GiB one 0.3 % (README, "Initial windows").
    pub initial_stream_window: u64,
    /// `initial_max_data` we advertise. Default 512 KiB (neqo: 2 MiB).
    pub initial_connection_window: u64,
    /// Largest stream window the default tuner grows to (32 MiB: 1.33 ×
    /// the BDP of 1 Gbit/s at 200 ms).
    pub max_stream_window: u64,
    /// Largest connection window (48 MiB = 1.5 × the stream cap).
    pub max_connection_window: u64,
    /// Share of the window the application must retire before a
    /// MAX_DATA / MAX_STREAM_DATA is due. Default ¼ (neqo).
    pub update_fraction: Fraction,
    /// Bonus multiplier of the default tuner. Default 4 (= 1 / update
    /// fraction, which makes a window-limited flow double per RTT).
    pub bonus: u64,
    /// New streams start at `max(initial_stream_window, seed × connection
    /// window)`; `None` disables seeding. Default ¼.
    pub seed_fraction: Option<Fraction>,
    /// The connection window is kept ≥ this × the largest stream window.
    /// Default 3/2 (quiche, quic-go).
    pub connection_floor: Fraction,
    /// Connection-wide memory budget and idle-stream reclaim, applied by
    /// [`crate::ConnectionReceiver`]; `None` = unbounded (as every peer
    /// stack). Default: [`Budget::default`].
    pub budget: Option<Budget>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            initial_stream_window: 64 << 10,
            initial_connection_window: 512 << 10,
            max_stream_window: ExcessTuner::DEFAULT.max_stream_window,
            max_connection_window: ExcessTuner::DEFAULT.max_connection_window,
            update_fraction: Fraction::QUARTER,
            bonus: ExcessTuner::DEFAULT.bonus,
            seed_fraction: Some(Fraction::QUARTER),
            connection_floor: Fraction::THREE_HALVES,
            budget: Some(Budget::default()),
        }
    }
}

/// A configuration value out of its accepted range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConfigError(pub &'static str);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Checks the invariants listed on the type.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the first setting out of range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        use crate::MAX_VARINT;
        if !self.update_fraction.is_proper_nonzero() {
            return Err(ConfigError("update_fraction must be in (0, 1]"));
        }
        if self.seed_fraction.is_some_and(|s| s.num() > s.den()) {
            return Err(ConfigError("seed_fraction must be in [0, 1]"));
        }
        if self.connection_floor.num() < self.connection_floor.den() {
            return Err(ConfigError("connection_floor must be >= 1"));
        }
        let windows = [
            self.initial_stream_window,
            self.initial_connection_window,
            self.max_stream_window,
            self.max_connection_window,
        ];
        if windows.iter().any(|&w| w > MAX_VARINT) {
            return Err(ConfigError("windows must be below 2^62"));
        }
        if self.initial_stream_window > self.max_stream_window
            || self.initial_connection_window > self.max_connection_window
        {
            return Err(ConfigError("initial windows must not exceed the maximums"));
        }
        Ok(())
    }

    /// The default tuner built from these settings.
    #[must_use]
    pub fn tuner(&self) -> ExcessTuner {
        ExcessTuner {
            bonus: self.bonus,
            max_stream_window: self.max_stream_window,
            max_connection_window: self.max_connection_window,
            ..ExcessTuner::DEFAULT
        }
    }

    /// The window a stream opened now starts with, given the current
    /// connection window: `max(initial, seed × connection)`, capped at the
    /// maximum stream window (never below the initial window).
    #[must_use]
    pub fn seed_window(&self, connection_window: u64) -> u64 {
        let seeded = self
            .seed_fraction
            .map_or(0, |s| s.of(connection_window))
            .min(self.max_stream_window);
        seeded.max(self.initial_stream_window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        assert_eq!(Config::default().validate(), Ok(()));
    }

    #[test]
    fn rejects_out_of_range() {
        let bad = Config {
            update_fraction: Fraction::new(0, 4).unwrap(),
            ..Config::default()
        };
        assert!(bad.validate().is_err());
        let bad = Config {
            connection_floor: Fraction::HALF,
            ..Config::default()
        };
        assert!(bad.validate().is_err());
        let bad = Config {
            initial_stream_window: 1 << 62,
            ..Config::default()
        };
        assert!(bad.validate().is_err());
    }

    #[test]
    fn seed_window_boundaries() {
        let c = Config::default();
        // C / 4 at or below the initial window: the initial window wins.
        assert_eq!(c.seed_window(256 << 10), 64 << 10);
        assert_eq!(c.seed_window((256 << 10) + 4), (64 << 10) + 1);
        assert_eq!(c.seed_window(u64::MAX), c.max_stream_window);
        let off = Config {
            seed_fraction: None,
            ..c
        };
        assert_eq!(off.seed_window(1 << 30), 64 << 10);
    }
}
