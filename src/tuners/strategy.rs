//! The strategies by name ([`TunerSpec`]) and what each one is: the tuner
//! and the [`Config`] both ends advertise ([`Tuning`]), with the flags
//! that override them ([`Overrides`]).

use std::sync::Arc;

use neqo_fc::{Config, ConfigError, ExcessTuner, Fraction, MAX_VARINT, Tuner};

use neqo_fc_sim::scenario::{Fixed, unlimited_windows};

use super::{doubling::DoublingTuner, neqo::NeqoTuner};
use crate::format::size_name;

/// A tuner usable from several threads (the simulator's `Scenario` holds it
/// in an `Arc`).
pub type SharedTuner = Arc<dyn Tuner + Send + Sync>;

/// A receive-window strategy by name.
///
/// Invariant: `Fixed(size)` has `size > 0` and `size ≤ 2^62 − 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TunerSpec {
    /// Ours: `Config::default()` and `config.tuner()`.
    Default,
    /// Ours without delay probes (`ExcessTuner::MIN_RTT_ONLY`): the rule as
    /// it was before issue #42, for comparison.
    MinRtt,
    /// neqo main's rule ([`NeqoTuner`]).
    Neqo,
    /// quiche / Chromium / ngtcp2 doubling ([`DoublingTuner`]).
    Double,
    /// A static stream window of this many bytes.
    Fixed(u64),
    /// Windows of 2^62 − 1 from the start: flow control never limits.
    Unlimited,
}

/// What `TunerChoice::parse` accepts.
pub const TUNER_EXPECTED: &str = "default, min-rtt, neqo, double, fixed:SIZE (e.g. fixed:1MiB, fixed:256KiB) \
or unlimited, optionally with +budget / -budget (e.g. neqo+budget, default-budget)";

/// Flags that override a strategy's defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `--update-fraction`: share of the window retired before an update.
    pub update_fraction: Option<Fraction>,
    /// `--initial-window`: the initial stream window (for `fixed`, its size).
    pub initial_window: Option<u64>,
    /// `--initial-connection-window`: the initial connection window
    /// (`initial_max_data`; for `default` also the estimate new streams
    /// are seeded from). Applied after `initial_window`, so it wins over
    /// the connection window that one implies.
    pub initial_connection_window: Option<u64>,
    /// `--max-window`: the cap on stream windows
    /// (`Config::max_stream_window`); the connection cap follows at 1.5 ×
    /// it and, with the budget, its growth ceiling at 2 × it, as the
    /// defaults relate (32 / 48 / 64 MiB). Applied last.
    pub max_window: Option<u64>,
}

/// A strategy ready to run: the tuner and the flow-control settings both
/// ends advertise. Invariant: `config.validate()` holds.
#[derive(Clone)]
pub struct Tuning {
    /// The tuner.
    pub tuner: SharedTuner,
    /// The settings.
    pub config: Config,
}

impl std::fmt::Debug for Tuning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tuning")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl TunerSpec {
    /// The strategies of the default comparison matrix, in table order.
    pub const MATRIX: [Self; 6] = [
        Self::Default,
        Self::Neqo,
        Self::Double,
        Self::Fixed(1 << 20),
        Self::Fixed(256 << 10),
        Self::Unlimited,
    ];

    /// Parses `default`, `neqo`, `double`, `unlimited` or `fixed:SIZE` (a
    /// bare `fixed` is refused: the size is the whole point of it).
    ///
    /// # Errors
    /// A message (without the flag name) saying what is accepted.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::parse_shown(s, s)
    }

    /// True for the strategy whose settings include the memory budget
    /// (`default`: `Config::default()` has it; no peer stack does).
    #[must_use]
    pub const fn has_budget(&self) -> bool {
        matches!(self, Self::Default | Self::MinRtt)
    }

    /// [`TunerSpec::parse`] of `s`, a part of `shown` (the whole value the
    /// user gave), which error messages echo.
    pub(super) fn parse_shown(s: &str, shown: &str) -> Result<Self, String> {
        let (name, arg) = match s.split_once(':') {
            Some((n, a)) => (n, Some(a)),
            None => (s, None),
        };
        let no_arg = |spec: Self| match arg {
            None => Ok(spec),
            Some(_) => Err(format!("tuner {name:?} takes no argument, got {shown:?}")),
        };
        match name {
            "default" => no_arg(Self::Default),
            "min-rtt" => no_arg(Self::MinRtt),
            "neqo" => no_arg(Self::Neqo),
            "double" => no_arg(Self::Double),
            "unlimited" => no_arg(Self::Unlimited),
            "fixed" => {
                let Some(arg) = arg else {
                    return Err(format!(
                        "fixed needs its window size, e.g. fixed:1MiB (neqo before \
                         auto-tuning) or fixed:256KiB; got {shown:?}"
                    ));
                };
                match crate::units::parse_size(arg) {
                    Ok(size) if size > 0 && size <= MAX_VARINT => Ok(Self::Fixed(size)),
                    _ => Err(format!(
                        "expected fixed:SIZE with a size in 1 B ..= 2^62 - 1 like fixed:1MiB, got {shown:?}"
                    )),
                }
            }
            _ => Err(format!("expected {TUNER_EXPECTED}, got {shown:?}")),
        }
    }

    /// The canonical name (`fixed:1MiB`), which `parse` reads back.
    #[must_use]
    pub fn name(&self) -> String {
        match self {
            Self::Default => "default".to_owned(),
            Self::MinRtt => "min-rtt".to_owned(),
            Self::Neqo => "neqo".to_owned(),
            Self::Double => "double".to_owned(),
            Self::Fixed(size) => format!("fixed:{}", size_name(*size)),
            Self::Unlimited => "unlimited".to_owned(),
        }
    }

    /// The tuner and settings for a run with `streams` concurrent streams
    /// (only `fixed` uses it: its connection window is 1.5 × the stream
    /// window per stream, so the stream window is what gets measured).
    ///
    /// # Errors
    /// [`ConfigError`] when an override makes the settings invalid (e.g. an
    /// initial window ≥ 2^62, or `--initial-window` with `unlimited`).
    pub fn build(&self, overrides: &Overrides, streams: u32) -> Result<Tuning, ConfigError> {
        let streams = u64::from(streams.max(1));
        let (tuner, mut config): (SharedTuner, Config) = match *self {
            Self::Default => (Arc::new(ExcessTuner::DEFAULT), Config::default()),
            Self::MinRtt => (Arc::new(ExcessTuner::MIN_RTT_ONLY), Config::default()),
            Self::Neqo => {
                let caps = NeqoTuner::CAPS;
                let windows = [1 << 20, 2 << 20, caps.stream, caps.connection];
                // neqo's controller, not only its formula: it tunes its
                // connection window on its own, with no floor over the
                // stream windows (`fc.rs`); NeqoTuner brings its update
                // rules.
                let config = peer(windows, Fraction::QUARTER, Fraction::ZERO);
                (Arc::new(NeqoTuner), config)
            }
            Self::Double => {
                let caps = DoublingTuner::CAPS;
                let windows = [1 << 20, 3 << 19, caps.stream, caps.connection];
                (
                    Arc::new(DoublingTuner),
                    peer(windows, Fraction::HALF, Fraction::THREE_HALVES),
                )
            }
            Self::Fixed(size) => {
                let size = overrides.initial_window.unwrap_or(size);
                let conn = Fraction::THREE_HALVES
                    .of(size)
                    .saturating_mul(streams)
                    .min(MAX_VARINT);
                let config = peer(
                    [size, conn, size, conn],
                    Fraction::HALF,
                    Fraction::THREE_HALVES,
                );
                (Arc::new(Fixed), config)
            }
            Self::Unlimited => {
                if overrides.initial_window.is_some() {
                    return Err(ConfigError(
                        "--initial-window does not apply to the unlimited tuner",
                    ));
                }
                if overrides.initial_connection_window.is_some() {
                    return Err(ConfigError(
                        "--initial-connection-window does not apply to the unlimited tuner",
                    ));
                }
                let mut config = peer([MAX_VARINT; 4], Fraction::QUARTER, Fraction::ONE);
                // Every stream the run opens may hold its window at once.
                config.max_streams_bidi = config.max_streams_bidi.max(streams);
                (Arc::new(Fixed), unlimited_windows(config))
            }
        };
        if let Some(f) = overrides.update_fraction {
            config.update_fraction = f;
        }
        if let (Some(w), false) = (overrides.initial_window, matches!(self, Self::Fixed(_))) {
            if w > MAX_VARINT {
                return Err(ConfigError("--initial-window must be below 2^62"));
            }
            config.initial_stream_window = w;
            config.max_stream_window = config.max_stream_window.max(w);
            config.initial_connection_window = config
                .initial_connection_window
                .max(config.connection_floor.of(w))
                .min(MAX_VARINT);
            config.max_connection_window = config
                .max_connection_window
                .max(config.initial_connection_window);
        }
        if let Some(c) = overrides.initial_connection_window {
            if c > MAX_VARINT {
                return Err(ConfigError(
                    "--initial-connection-window must be below 2^62",
                ));
            }
            config.initial_connection_window = c;
            config.max_connection_window = config.max_connection_window.max(c);
        }
        if let Some(w) = overrides.max_window {
            if matches!(self, Self::Fixed(_) | Self::Unlimited) {
                return Err(ConfigError(
                    "--max-window applies to the tuners that grow a window (default, min-rtt, neqo, double)",
                ));
            }
            if w > MAX_VARINT || w < config.initial_stream_window {
                return Err(ConfigError(
                    "--max-window must be at least the initial stream window and below 2^62",
                ));
            }
            config.max_stream_window = w;
            config.max_connection_window = Fraction::THREE_HALVES
                .of(w)
                .min(MAX_VARINT)
                .max(config.initial_connection_window);
        }
        finish(tuner, config)
    }
}

/// Settings of a peer stack: `[initial stream, initial connection, max
/// stream, max connection]` windows, its update fraction and connection
/// floor; no stream seeding and no connection budget (no peer has them).
/// Starts from `Config::default()` so settings added later keep their
/// defaults.
pub(super) fn peer(
    windows: [u64; 4],
    update_fraction: Fraction,
    connection_floor: Fraction,
) -> Config {
    let mut c = Config::default();
    let [
        initial_stream,
        initial_connection,
        max_stream,
        max_connection,
    ] = windows;
    c.initial_stream_window = initial_stream;
    c.initial_connection_window = initial_connection;
    c.max_stream_window = max_stream;
    c.max_connection_window = max_connection;
    c.update_fraction = update_fraction;
    c.connection_floor = connection_floor;
    c.seed_fraction = None;
    c.budget = None;
    c
}

pub(super) fn finish(tuner: SharedTuner, config: Config) -> Result<Tuning, ConfigError> {
    config.validate()?;
    Ok(Tuning { tuner, config })
}

impl std::fmt::Display for TunerSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use neqo_fc::{Rtt, SubjectKind, TuneInput};

    use super::*;

    #[test]
    fn parse_and_name_round_trip() {
        for (s, spec) in [
            ("default", TunerSpec::Default),
            ("min-rtt", TunerSpec::MinRtt),
            ("neqo", TunerSpec::Neqo),
            ("double", TunerSpec::Double),
            ("unlimited", TunerSpec::Unlimited),
            ("fixed:1MiB", TunerSpec::Fixed(1 << 20)),
            ("fixed:256KiB", TunerSpec::Fixed(256 << 10)),
            ("fixed:1500", TunerSpec::Fixed(1500)),
        ] {
            assert_eq!(TunerSpec::parse(s), Ok(spec));
            assert_eq!(spec.name(), s);
        }
        assert!(
            TunerSpec::parse("fixed")
                .unwrap_err()
                .contains("fixed:1MiB")
        );
        assert_eq!(
            TunerSpec::parse("fixed:1MB"),
            Ok(TunerSpec::Fixed(1_000_000))
        );
    }

    #[test]
    fn parse_errors() {
        for bad in [
            "",
            "foo",
            "Default",
            "fixed:",
            "fixed:0",
            "fixed:x",
            "neqo:1",
            "fixed:8EiB",
        ] {
            assert!(TunerSpec::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            TunerSpec::parse("foo").unwrap_err(),
            format!("expected {TUNER_EXPECTED}, got \"foo\"")
        );
    }

    #[test]
    fn configs_follow_the_published_rules() {
        let none = Overrides::default();
        let d = TunerSpec::Default.build(&none, 1).unwrap();
        assert_eq!(d.config, Config::default());

        let n = TunerSpec::Neqo.build(&none, 1).unwrap().config;
        assert_eq!(
            (n.initial_stream_window, n.initial_connection_window),
            (1 << 20, 2 << 20)
        );
        assert_eq!(
            (n.max_stream_window, n.max_connection_window),
            (10 << 20, 20 << 20)
        );
        assert_eq!(n.update_fraction, Fraction::QUARTER);
        assert_eq!(n.seed_fraction, None);
        assert_eq!(n.budget, None);

        let q = TunerSpec::Double.build(&none, 1).unwrap().config;
        assert_eq!(
            (q.max_stream_window, q.max_connection_window),
            (16 << 20, 24 << 20)
        );
        assert_eq!(q.update_fraction, Fraction::HALF);
        assert_eq!(q.seed_fraction, None);
        assert!(q.initial_connection_window >= Fraction::THREE_HALVES.of(q.initial_stream_window));

        let f = TunerSpec::Fixed(256 << 10).build(&none, 10).unwrap();
        assert_eq!(f.config.initial_stream_window, 256 << 10);
        assert_eq!(f.config.max_stream_window, 256 << 10);
        assert_eq!(f.config.initial_connection_window, 3_932_160); // 1.5 × 256 KiB × 10
        assert_eq!(f.config.update_fraction, Fraction::HALF);
        let input = TuneInput {
            kind: SubjectKind::Stream,
            window: 256 << 10,
            max_window: 256 << 10,
            delivered: 1 << 30,
            elapsed: Duration::from_millis(1),
            rtt: Rtt::from_sample(Duration::from_millis(50)).unwrap(),
            update_fraction: Fraction::HALF,
            drained_steps: 0,
            late: 0,
        };
        assert_eq!(f.tuner.tune(&input), 256 << 10);

        let u = TunerSpec::Unlimited.build(&none, 1).unwrap().config;
        assert_eq!(u.initial_connection_window, MAX_VARINT);
        // Each stream's window as large as the stream limits allow.
        assert_eq!(u.initial_stream_window, MAX_VARINT / u.max_open_streams());
        assert!(u.initial_stream_window > 1 << 50);
    }

    #[test]
    fn overrides_apply() {
        let o = Overrides {
            update_fraction: Some(Fraction::ONE),
            ..Overrides::default()
        };
        let f = TunerSpec::Fixed(256 << 10).build(&o, 1).unwrap().config;
        assert_eq!(f.update_fraction, Fraction::ONE);

        let o = Overrides {
            initial_window: Some(64 << 20),
            ..Overrides::default()
        };
        let d = TunerSpec::Default.build(&o, 1).unwrap();
        assert_eq!(d.config.initial_stream_window, 64 << 20);
        assert_eq!(d.config.max_stream_window, 64 << 20);
        assert_eq!(d.config.initial_connection_window, 96 << 20);

        let fixed = TunerSpec::Fixed(1 << 20).build(&o, 1).unwrap().config;
        assert_eq!(fixed.initial_stream_window, 64 << 20);
        assert_eq!(fixed.initial_connection_window, 96 << 20);

        assert!(TunerSpec::Unlimited.build(&o, 1).is_err());
        let too_big = Overrides {
            initial_window: Some(1 << 62),
            ..Overrides::default()
        };
        assert!(TunerSpec::Neqo.build(&too_big, 1).is_err());

        // The connection window on its own, and over the one
        // --initial-window implies; above the tuner's cap, the cap follows.
        let conn = Overrides {
            initial_connection_window: Some(256 << 10),
            ..Overrides::default()
        };
        let d = TunerSpec::Default.build(&conn, 1).unwrap().config;
        assert_eq!(d.initial_connection_window, 256 << 10);
        assert_eq!(d.initial_stream_window, 64 << 10);
        let both = Overrides {
            initial_window: Some(1 << 20),
            initial_connection_window: Some(512 << 10),
            ..Overrides::default()
        };
        let n = TunerSpec::Neqo.build(&both, 1).unwrap().config;
        assert_eq!(n.initial_connection_window, 512 << 10);
        let huge = Overrides {
            initial_connection_window: Some(1 << 40),
            ..Overrides::default()
        };
        let d = TunerSpec::Double.build(&huge, 1).unwrap().config;
        assert_eq!(d.max_connection_window, 1 << 40);
        assert!(TunerSpec::Unlimited.build(&conn, 1).is_err());
        let too_big = Overrides {
            initial_connection_window: Some(1 << 62),
            ..Overrides::default()
        };
        assert!(TunerSpec::Default.build(&too_big, 1).is_err());
    }
}
