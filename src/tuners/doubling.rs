//! The doubling rule of cloudflare quiche, Google QUIC (Chromium) and
//! ngtcp2 (REFERENCES.md): when the previous window update was sent less
//! than two smoothed RTTs ago, the application is reading faster than the
//! window lets the peer send, so the window doubles, up to a cap.

use neqo_fc::{SubjectKind, Tuner, tuner::TuneInput};

use super::caps::WindowCaps;

/// Doubles the window when the previous tuning step (the previous
/// MAX_DATA / MAX_STREAM_DATA) was less than `2 × smoothed_rtt` ago.
///
/// Invariant: returns the current window or `min(2 × window, cap)`; never
/// more than the cap for the subject kind, never less than the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DoublingTuner {
    /// Largest stream and connection windows (quiche: 16 / 24 MiB).
    pub caps: WindowCaps,
}

impl DoublingTuner {
    /// quiche's caps: 16 MiB per stream, 24 MiB per connection.
    pub const QUICHE: Self = Self {
        caps: WindowCaps {
            stream: 16 << 20,
            connection: 24 << 20,
        },
    };
}

impl Tuner for DoublingTuner {
    fn tune(&self, input: &TuneInput) -> u64 {
        let cap = self.max_window(input.kind);
        if input.window >= cap {
            return input.window;
        }
        let threshold = input.rtt.smoothed.saturating_mul(2);
        if input.elapsed < threshold {
            input.window.saturating_mul(2).min(cap)
        } else {
            input.window
        }
    }

    fn max_window(&self, kind: SubjectKind) -> u64 {
        self.caps.of(kind)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use neqo_fc::{Fraction, Rtt};

    use super::*;

    fn input(kind: SubjectKind, window: u64, elapsed_ms: u64) -> TuneInput {
        TuneInput {
            kind,
            window,
            retired_since_update: window / 2,
            elapsed: Duration::from_millis(elapsed_ms),
            // smoothed 100 ms, min 40 ms: the rule uses the smoothed RTT.
            rtt: Rtt::new(Duration::from_millis(100), Duration::from_millis(40)),
            update_fraction: Fraction::HALF,
            drained_at_limit: false,
        }
    }

    #[test]
    fn doubles_only_within_two_smoothed_rtts() {
        let t = DoublingTuner::QUICHE;
        assert_eq!(t.tune(&input(SubjectKind::Stream, 1 << 20, 199)), 2 << 20);
        assert_eq!(t.tune(&input(SubjectKind::Stream, 1 << 20, 200)), 1 << 20);
        assert_eq!(t.tune(&input(SubjectKind::Stream, 1 << 20, 0)), 2 << 20);
    }

    #[test]
    fn caps_per_kind() {
        let t = DoublingTuner::QUICHE;
        assert_eq!(t.tune(&input(SubjectKind::Stream, 12 << 20, 10)), 16 << 20);
        assert_eq!(t.tune(&input(SubjectKind::Stream, 16 << 20, 10)), 16 << 20);
        assert_eq!(
            t.tune(&input(SubjectKind::Connection, 16 << 20, 10)),
            24 << 20
        );
        // Above the cap (e.g. raised by a connection floor): unchanged.
        assert_eq!(t.tune(&input(SubjectKind::Stream, 20 << 20, 10)), 20 << 20);
        assert_eq!(t.max_window(SubjectKind::Connection), 24 << 20);
    }
}
