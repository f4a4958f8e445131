//! The connection-wide memory budget: how much stream credit a receiver
//! lets the peer hold at once, and when idle streams give theirs back.

use crate::Fraction;

/// Settings of the memory budget (see [`crate::ConnectionReceiver`]).
///
/// The budget bounds the credit outstanding summed over open streams,
/// `Σ (limit − retired)`, which bounds what the peer can make us buffer.
/// Its value at any time is
///
/// ```text
/// max(max_streams × initial_stream_window,            // forced by transport parameters
///     min(ceiling, conn_window_multiple × connection window))
/// ```
///
/// The first term is what the handshake already promised (every stream the
/// peer may open starts with `initial_max_stream_data`); the second grows
/// with the connection window, i.e. with what the application actually
/// reads, and never passes the hard ceiling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Streams the peer may have open at once (our `initial_max_streams`).
    pub max_streams: u64,
    /// Budget as a multiple of the connection window (default 2).
    pub conn_window_multiple: Fraction,
    /// Hard ceiling in bytes (default 64 MiB), except for the forced part.
    pub ceiling: u64,
    /// A stream whose application retired nothing for this many smoothed
    /// RTTs — or retired far less than its window — returns toward its
    /// seed window (default 4). Zero disables reclaim.
    pub idle_rtts: u32,
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            max_streams: 100,
            conn_window_multiple: Fraction::TWO,
            ceiling: 64 << 20,
            idle_rtts: 4,
        }
    }
}

impl Budget {
    /// The budget in force for a connection window and initial stream
    /// window.
    #[must_use]
    pub fn limit(&self, conn_window: u64, initial_stream_window: u64) -> u64 {
        let forced = self.max_streams.saturating_mul(initial_stream_window);
        let dynamic = self.conn_window_multiple.of(conn_window).min(self.ceiling);
        forced.max(dynamic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_is_forced_floor_or_bounded_multiple() {
        let b = Budget::default();
        assert_eq!(b.limit(1 << 20, 64 << 10), 100 * (64 << 10));
        assert_eq!(b.limit(10 << 20, 64 << 10), 20 << 20);
        assert_eq!(b.limit(1 << 30, 64 << 10), 64 << 20);
        let many = Budget {
            max_streams: 10_000,
            ..b
        };
        assert_eq!(many.limit(1 << 30, 64 << 10), 10_000 * (64 << 10));
    }
}
