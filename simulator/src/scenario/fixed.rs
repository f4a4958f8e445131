//! A static window: the tuner of the `unlimited` bound and of fixed-window
//! peers (neqo before auto-tuning, yamux). The sizes are the run's
//! [`neqo_fc::Config`] windows.

use neqo_fc::{Config, MAX_VARINT, TuneInput, Tuner};

/// Never changes a window: every controller keeps the window it was
/// created with (set the initial windows in the config, and disable
/// seeding to keep streams at exactly that size).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fixed;

impl Tuner for Fixed {
    fn tune(&self, input: &TuneInput) -> u64 {
        input.window
    }
}

/// `config` with flow control out of the way: every window as large as
/// [`Config::validate`] allows for the stream limits (the connection's
/// 2^62 − 1, each stream's `(2^62 − 1) / max_open_streams()`, more than
/// any transfer), no seeding and no budget. The upper bound a tuner is
/// measured against.
#[must_use]
pub fn unlimited_windows(config: Config) -> Config {
    let stream = MAX_VARINT / config.max_open_streams().max(1);
    Config {
        initial_stream_window: stream,
        max_stream_window: stream,
        initial_connection_window: MAX_VARINT,
        max_connection_window: MAX_VARINT,
        seed_fraction: None,
        budget: None,
        ..config
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unlimited_windows_are_valid_and_as_large_as_allowed() {
        for (bidi, uni) in [(100, 100), (0, 1), (5000, 3), (1 << 40, 0)] {
            let c = Config {
                max_streams_bidi: bidi,
                max_streams_uni: uni,
                ..Config::default()
            };
            let c = unlimited_windows(c);
            assert!(c.validate().is_ok(), "{bidi}/{uni}");
            let bigger = Config {
                max_stream_window: c.max_stream_window + 1,
                initial_stream_window: c.max_stream_window + 1,
                ..c
            };
            assert!(bigger.validate().is_err(), "{bidi}/{uni}");
        }
    }
}
