//! The connection-wide memory budget: how much stream credit a receiver
//! lets the peer hold at once, and when idle streams give theirs back.

use crate::Fraction;

/// Settings of the memory budget (see [`crate::ConnectionFlow`]).
///
/// The budget bounds the credit outstanding summed over open streams,
/// `Σ (limit − retired)`, which bounds what the peer can make us buffer.
/// Its value at any time is
///
/// ```text
///   open streams × initial_stream_window              // promised at the handshake
/// + min(ceiling, multiple × estimate)                 // shared room to grow
/// ```
///
/// The first term is what the transport parameters already promised (every
/// stream the peer opens starts with `initial_max_stream_data`); the
/// second is shared growth, a multiple of the connection's estimated need
/// (about 1.5 × the bytes the application reads per RTT), bounded by a hard
/// ceiling. The peer opens at most `max_streams_bidi + max_streams_uni`
/// streams at once ([`crate::Config`]), so it can make us hold at most
/// `(max_streams_bidi + max_streams_uni + our open bidirectional streams)
/// × initial_stream_window + ceiling` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Growth budget as a multiple of the connection's estimated need
    /// (default 3: streams that stop reading may keep up to one
    /// connection's worth of credit while the ones still reading need
    /// another, plus slack for the ramp).
    pub multiple: Fraction,
    /// Hard ceiling of the growth part in bytes (default 64 MiB).
    pub ceiling: u64,
    /// A stream whose application retired nothing for this many smoothed
    /// RTTs — or retired far less than its window — returns toward its
    /// seed window (default 4). Zero disables reclaim.
    pub idle_rtts: u32,
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            multiple: Fraction::THREE,
            ceiling: 64 << 20,
            idle_rtts: 4,
        }
    }
}

impl Budget {
    /// The budget in force for an estimated need, the number of open
    /// streams and the initial stream window (saturating).
    #[must_use]
    pub fn limit(&self, estimate: u64, open_streams: u64, initial_stream_window: u64) -> u64 {
        let promised = open_streams.saturating_mul(initial_stream_window);
        let growth = self.multiple.of(estimate).min(self.ceiling);
        promised.saturating_add(growth)
    }
}

/// The credit a connection has given its streams, as the budget counts it.
///
/// Invariants while every stream passed in was opened by this connection
/// and is closed once (at most [`crate::Config::max_open_streams`] are
/// open, each with credit and initial limit ≤ `max_stream_window`, and
/// [`crate::Config::validate`] bounds that product by 2^62 − 1, so the
/// sums are exact). A stream from another connection, or a clone closed
/// twice, makes the books wrong but never panics: every step saturates.
/// - `promised = Σ initial limit` over open streams: what the transport
///   parameters promised them;
/// - `committed = Σ credit` over open streams;
/// - `beyond_initial = Σ max(0, credit − initial limit)`: the credit beyond
///   the promise, which the growth budget bounds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Ledger {
    pub(crate) open: u64,
    pub(crate) promised: u64,
    pub(crate) committed: u64,
    pub(crate) beyond_initial: u64,
}

impl Ledger {
    /// A stream opened with credit `credit` (its initial limit, `initial`).
    pub(crate) fn open(&mut self, credit: u64, initial: u64) {
        self.open = self.open.saturating_add(1);
        self.promised = self.promised.saturating_add(initial);
        self.committed = self.committed.saturating_add(credit);
        self.beyond_initial = self
            .beyond_initial
            .saturating_add(credit.saturating_sub(initial));
    }

    /// A stream's credit went from `before` to `after` (a read, a grant).
    pub(crate) fn change(&mut self, before: u64, after: u64, initial: u64) {
        self.committed = self.committed.saturating_sub(before).saturating_add(after);
        self.beyond_initial = self
            .beyond_initial
            .saturating_sub(before.saturating_sub(initial))
            .saturating_add(after.saturating_sub(initial));
    }

    /// A stream holding `credit` closed.
    pub(crate) fn close(&mut self, credit: u64, initial: u64) {
        self.open = self.open.saturating_sub(1);
        self.promised = self.promised.saturating_sub(initial);
        self.committed = self.committed.saturating_sub(credit);
        self.beyond_initial = self
            .beyond_initial
            .saturating_sub(credit.saturating_sub(initial));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_is_promised_plus_bounded_growth() {
        let b = Budget::default();
        let promised = 10 * (64 << 10);
        assert_eq!(b.limit(1 << 20, 10, 64 << 10), promised + (3 << 20));
        assert_eq!(b.limit(10 << 20, 10, 64 << 10), promised + (30 << 20));
        assert_eq!(b.limit(1 << 30, 10, 64 << 10), promised + (64 << 20));
        assert_eq!(b.limit(u64::MAX, u64::MAX, u64::MAX), u64::MAX);
    }
}
