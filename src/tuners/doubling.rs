//! The doubling rule of cloudflare quiche, Google QUIC (Chromium) and
//! ngtcp2 (REFERENCES.md): when the previous window update was sent less
//! than two smoothed RTTs ago, the application is reading faster than the
//! window lets the peer send, so the window doubles, up to a cap.

use neqo_fc::{Rtt, TuneInput, Tuner};

use super::caps::WindowCaps;

/// Doubles the window when the previous tuning step was less than
/// `2 × smoothed_rtt` ago, up to [`TuneInput::max_window`] (quiche's caps
/// are [`DoublingTuner::CAPS`]).
///
/// Invariant: returns the window or `min(2 × window, cap)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DoublingTuner;

impl DoublingTuner {
    /// quiche's caps: 16 MiB per stream, 24 MiB per connection.
    pub const CAPS: WindowCaps = WindowCaps {
        stream: 16 << 20,
        connection: 24 << 20,
    };
}

impl Tuner for DoublingTuner {
    fn tune(&self, input: &TuneInput) -> u64 {
        let cap = input.max_window;
        if input.window >= cap {
            return input.window;
        }
        let threshold = input.rtt.smoothed().saturating_mul(2);
        if input.elapsed < threshold {
            input.window.saturating_mul(2).min(cap)
        } else {
            input.window
        }
    }

    fn rtt_used(&self, rtt: Rtt) -> std::time::Duration {
        rtt.smoothed()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use neqo_fc::{Fraction, SubjectKind};

    use super::*;

    fn input(kind: SubjectKind, window: u64, elapsed_ms: u64) -> TuneInput {
        TuneInput {
            kind,
            window,
            max_window: DoublingTuner::CAPS.of(kind),
            delivered: window / 2,
            elapsed: Duration::from_millis(elapsed_ms),
            // smoothed 100 ms, min 40 ms: the rule uses the smoothed RTT.
            rtt: Rtt::new(Duration::from_millis(100), Duration::from_millis(40)).unwrap(),
            update_fraction: Fraction::HALF,
            drained_steps: 0,
            late: 0,
        }
    }

    #[test]
    fn doubles_only_within_two_smoothed_rtts() {
        let t = DoublingTuner;
        assert_eq!(t.tune(&input(SubjectKind::Stream, 1 << 20, 199)), 2 << 20);
        assert_eq!(t.tune(&input(SubjectKind::Stream, 1 << 20, 200)), 1 << 20);
        assert_eq!(t.tune(&input(SubjectKind::Stream, 1 << 20, 1)), 2 << 20);
    }

    #[test]
    fn caps_per_kind() {
        let t = DoublingTuner;
        assert_eq!(t.tune(&input(SubjectKind::Stream, 12 << 20, 10)), 16 << 20);
        assert_eq!(t.tune(&input(SubjectKind::Stream, 16 << 20, 10)), 16 << 20);
        assert_eq!(
            t.tune(&input(SubjectKind::Connection, 16 << 20, 10)),
            24 << 20
        );
        // Above the cap (e.g. raised by a connection floor): unchanged.
        assert_eq!(t.tune(&input(SubjectKind::Stream, 20 << 20, 10)), 20 << 20);
        assert_eq!(DoublingTuner::CAPS.of(SubjectKind::Connection), 24 << 20);
    }
}
