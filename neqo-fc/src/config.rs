//! Configuration with its defaults, and the validated form controllers take.

use std::ops::Deref;

use crate::{Budget, Fraction, MAX_VARINT};

/// The most streams of one type MAX_STREAMS can allow, 2^60 (RFC 9000
/// §4.6: a larger value could not be encoded as a stream ID).
pub const MAX_STREAMS: u64 = 1 << 60;

/// Receive-side flow-control settings for one connection: every window, cap
/// and ratio (tuners hold only their own parameters). Controllers take a
/// [`ValidConfig`], which only [`Config::validate`] makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// `initial_max_stream_data_*` we advertise: the credit every stream
    /// holds before anyone reads. Default 64 KiB (neqo: 1 MiB); windows are
    /// seeded above it at once.
    pub initial_stream_window: u64,
    /// `initial_max_data` we advertise, and the estimated need before data
    /// flows. Default 1 MiB (neqo: 2 MiB, quiche 1.5 MiB).
    pub initial_connection_window: u64,
    /// Cap on stream windows. Default 32 MiB (1.33 × the BDP of 1 Gbit/s at
    /// 200 ms).
    pub max_stream_window: u64,
    /// Cap on the tuned connection window (the floor may pass it to cover
    /// credit given). Default 48 MiB (1.5 × the stream cap).
    pub max_connection_window: u64,
    /// Share of the window the application must retire before a
    /// MAX_DATA / MAX_STREAM_DATA is due. Default ¼ (neqo).
    pub update_fraction: Fraction,
    /// New streams start at `max(initial, this × estimate)`
    /// ([`Config::seed_window`]); `None`: no seeding. Default ½.
    pub seed_fraction: Option<Fraction>,
    /// The connection window is kept ≥ this × the largest stream window.
    /// Default 3/2 (quiche, quic-go); 0 (no floor, for a stack that tunes its
    /// connection window itself) only without a budget.
    pub connection_floor: Fraction,
    /// Memory budget and idle-stream reclaim; `None`: unbounded. Default
    /// [`Budget::default`].
    pub budget: Option<Budget>,
    /// Bidirectional streams the peer may have open at once
    /// (`initial_max_streams_bidi`, then MAX_STREAMS, RFC 9000 §4.6).
    /// Default 100.
    pub max_streams_bidi: u64,
    /// The same for unidirectional streams (`initial_max_streams_uni`).
    /// Default 100.
    pub max_streams_uni: u64,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            initial_stream_window: 64 << 10,
            initial_connection_window: 1 << 20,
            max_stream_window: 32 << 20,
            max_connection_window: 48 << 20,
            update_fraction: Fraction::QUARTER,
            seed_fraction: Some(Fraction::HALF),
            connection_floor: Fraction::THREE_HALVES,
            budget: Some(Budget::default()),
            max_streams_bidi: 100,
            max_streams_uni: 100,
        }
    }
}

/// A configuration value out of range; the message names the field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConfigError(pub &'static str);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Checks the settings and returns them in the form controllers take.
    ///
    /// Accepted: `update_fraction` in (0, 1]; `seed_fraction` ≤ 1;
    /// `connection_floor` ≥ 1, or 0 without a budget; every window in
    /// [1, 2^62 − 1], each initial ≤ its maximum; `max_streams_*` ≤ 2^60;
    /// `max_open_streams() × max_stream_window` ≤ 2^62 − 1 (total credit is
    /// a valid varint); a budget ceiling ≤ 2^62 − 1. Within these no
    /// controller call panics.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the first setting out of range.
    pub fn validate(&self) -> Result<ValidConfig, ConfigError> {
        if !self.update_fraction.is_proper_nonzero() {
            return Err(ConfigError("update_fraction must be in (0, 1]"));
        }
        if self.seed_fraction.is_some_and(|s| s.num() > s.den()) {
            return Err(ConfigError("seed_fraction must be in [0, 1]"));
        }
        let no_floor = self.connection_floor.num() == 0;
        if !no_floor && self.connection_floor.num() < self.connection_floor.den() {
            return Err(ConfigError("connection_floor must be 0 (none) or >= 1"));
        }
        if no_floor && self.budget.is_some() {
            return Err(ConfigError(
                "connection_floor 0 (none) needs budget None: the budget's shares are measured through the floor",
            ));
        }
        let windows = [
            (
                self.initial_stream_window,
                "initial_stream_window must be in [1, 2^62)",
            ),
            (
                self.initial_connection_window,
                "initial_connection_window must be in [1, 2^62)",
            ),
            (
                self.max_stream_window,
                "max_stream_window must be in [1, 2^62)",
            ),
            (
                self.max_connection_window,
                "max_connection_window must be in [1, 2^62)",
            ),
        ];
        if let Some(&(_, msg)) = windows.iter().find(|(w, _)| *w == 0 || *w > MAX_VARINT) {
            return Err(ConfigError(msg));
        }
        if self.initial_stream_window > self.max_stream_window {
            return Err(ConfigError(
                "initial_stream_window must not exceed max_stream_window",
            ));
        }
        if self.initial_connection_window > self.max_connection_window {
            return Err(ConfigError(
                "initial_connection_window must not exceed max_connection_window",
            ));
        }
        if self.max_streams_bidi > MAX_STREAMS || self.max_streams_uni > MAX_STREAMS {
            return Err(ConfigError("max_streams_bidi/uni must be at most 2^60"));
        }
        if self
            .max_open_streams()
            .checked_mul(self.max_stream_window)
            .is_none_or(|total| total > MAX_VARINT)
        {
            return Err(ConfigError(
                "max_stream_window × (2 × max_streams_bidi + max_streams_uni) must be below 2^62",
            ));
        }
        if self.budget.is_some_and(|b| b.ceiling > MAX_VARINT) {
            return Err(ConfigError("budget ceiling must be below 2^62"));
        }
        Ok(ValidConfig(*self))
    }

    /// The most streams a connection's receive side holds at once: the
    /// peer's, plus as many bidirectional ones of ours (`2 × bidi + uni`,
    /// saturating).
    #[must_use]
    pub fn max_open_streams(&self) -> u64 {
        self.max_streams_bidi
            .saturating_mul(2)
            .saturating_add(self.max_streams_uni)
    }

    /// The window a stream opened now starts with, for the connection's
    /// estimated need: `max(initial, min(seed × estimate, max_stream_window))`.
    #[must_use]
    pub fn seed_window(&self, connection_estimate: u64) -> u64 {
        self.seed_for(connection_estimate, self.initial_stream_window)
    }

    /// [`Config::seed_window`] for a stream whose limit starts at `initial`.
    pub(crate) fn seed_for(&self, connection_estimate: u64, initial: u64) -> u64 {
        self.seed_fraction
            .map_or(0, |s| s.of(connection_estimate))
            .min(self.max_stream_window)
            .max(initial)
    }
}

/// A [`Config`] that passed [`Config::validate`], the only way to build a
/// controller; derefs to the [`Config`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ValidConfig(Config);

impl ValidConfig {
    /// The settings.
    #[must_use]
    pub const fn get(&self) -> &Config {
        &self.0
    }
}

impl Deref for ValidConfig {
    type Target = Config;
    fn deref(&self) -> &Config {
        &self.0
    }
}

impl TryFrom<Config> for ValidConfig {
    type Error = ConfigError;
    fn try_from(c: Config) -> Result<Self, ConfigError> {
        c.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        assert_eq!(
            Config::default().validate().map(|c| *c.get()),
            Ok(Config::default())
        );
    }

    #[test]
    fn rejects_out_of_range() {
        let bad = |c: Config| c.validate().unwrap_err().0;
        let d = Config::default();
        assert!(
            bad(Config {
                update_fraction: Fraction::ZERO,
                ..d
            })
            .starts_with("update_fraction")
        );
        assert!(
            bad(Config {
                connection_floor: Fraction::HALF,
                ..d
            })
            .starts_with("connection_floor")
        );
        // No floor: only without a budget.
        assert!(
            bad(Config {
                connection_floor: Fraction::ZERO,
                ..d
            })
            .starts_with("connection_floor 0")
        );
        assert!(
            Config {
                connection_floor: Fraction::ZERO,
                budget: None,
                ..d
            }
            .validate()
            .is_ok()
        );
        assert!(
            bad(Config {
                initial_stream_window: 1 << 62,
                ..d
            })
            .starts_with("initial_stream_window")
        );
        assert!(
            bad(Config {
                max_connection_window: 0,
                ..d
            })
            .starts_with("max_connection_window")
        );
        assert!(
            bad(Config {
                max_streams_uni: MAX_STREAMS + 1,
                ..d
            })
            .starts_with("max_streams")
        );
        assert!(
            bad(Config {
                initial_stream_window: MAX_VARINT,
                max_stream_window: MAX_VARINT,
                ..d
            })
            .contains("2 × max_streams_bidi")
        );
        // The extremes are fine: the largest windows with one stream, the
        // most streams with small windows.
        let one = Config {
            max_streams_bidi: 0,
            max_streams_uni: 1,
            ..d
        };
        let huge = Config {
            initial_stream_window: MAX_VARINT,
            initial_connection_window: MAX_VARINT,
            max_stream_window: MAX_VARINT,
            max_connection_window: MAX_VARINT,
            ..one
        };
        assert!(huge.validate().is_ok());
        let many = Config {
            initial_stream_window: 1,
            max_stream_window: 1,
            max_streams_bidi: MAX_STREAMS,
            max_streams_uni: MAX_STREAMS,
            ..d
        };
        assert!(many.validate().is_ok());
    }

    #[test]
    fn seed_window_boundaries() {
        let c = Config::default();
        // C / 2 at or below the initial window: the initial window wins.
        assert_eq!(c.seed_window(128 << 10), 64 << 10);
        assert_eq!(c.seed_window((128 << 10) + 2), (64 << 10) + 1);
        assert_eq!(c.seed_window(u64::MAX), c.max_stream_window);
        let off = Config {
            seed_fraction: None,
            ..c
        };
        assert_eq!(off.seed_window(1 << 30), 64 << 10);
    }
}
