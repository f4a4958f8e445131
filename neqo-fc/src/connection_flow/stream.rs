//! One stream's receive side as a [`super::ConnectionFlow`] sees it: the
//! stream's controller plus what the connection's policy remembers about
//! it (its seed, how it read over the last rebalancing passes).

use std::time::Instant;

use crate::{ReceiverFlowControl, Rtt, StreamId};

/// A stream's receive-side flow control under a [`super::ConnectionFlow`].
///
/// Made only by [`super::ConnectionFlow::open_stream`]; every change that
/// moves credit (data, reads, updates, close) goes through the
/// `ConnectionFlow` that made it, which keeps the connection's books —
/// the connection limit, the credit committed against the budget, the
/// connection floor. The stack owns the value (inside its stream object,
/// as neqo and quinn keep theirs) and may read it freely.
///
/// Passing a `StreamReceiver` to a `ConnectionFlow` other than the one
/// that opened it breaks that connection's books (never memory safety,
/// never a panic).
#[derive(Clone, Debug)]
pub struct StreamReceiver {
    pub(super) fc: ReceiverFlowControl<StreamId>,
    /// The limit the transport parameters promised (the initial
    /// `initial_max_stream_data_*` for its type).
    pub(super) initial: u64,
    /// The window the stream started with; reclaim returns it here.
    pub(super) seed: u64,
    /// The seed the growth budget had no room for when the stream opened
    /// (0: none). A stream opened before its first byte (our own request)
    /// is raised to it as room frees, until that byte arrives.
    pub(super) owed_seed: u64,
    /// `retired` at the last rebalancing pass.
    pub(super) retired_at_mark: u64,
    /// The most retired in one pass of the current slow-reader period: what
    /// a slow reader's window shrinks toward (twice it).
    pub(super) peak_in_period: u64,
    /// Rebalancing passes in the current slow-reader period.
    pub(super) passes: u32,
    /// Last pass at which the application had retired something (or the
    /// first pass after the stream opened); `None` before that pass.
    pub(super) last_active: Option<Instant>,
    /// Read at least a quarter of its window per RTT in the last pass,
    /// with little left unread (window-limited).
    pub(super) busy: bool,
    /// The first limit of the current run of extensions that stopped at
    /// the stream's share of the estimate (`None` once one did not).
    pub(super) share_since: Option<u64>,
    /// The application stopped reading: data is released as it arrives.
    pub(super) discarding: bool,
}

impl StreamReceiver {
    /// The stream's flow controller (limits, window, offsets).
    pub fn fc(&self) -> &ReceiverFlowControl<StreamId> {
        &self.fc
    }

    /// The stream.
    pub fn id(&self) -> StreamId {
        self.fc.id()
    }

    /// The window the stream was opened with (its seed).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// True when a MAX_STREAM_DATA may be due (see
    /// [`ReceiverFlowControl::update_due`]); the connection's budget may
    /// still hold it back ([`super::ConnectionFlow::stream_update`]). It
    /// stays true while held back, so it is a reason to ask
    /// `stream_update` when writing a packet, not a reason to send one:
    /// after a `None`, ask again once the stream changes, another stream
    /// reads or closes, or the rebalancing timer fires.
    pub fn update_due(&self) -> bool {
        self.fc.update_due()
    }

    /// The packet carrying MAX_STREAM_DATA `limit` was lost.
    pub fn update_lost(&mut self, limit: u64) {
        self.fc.update_lost(limit);
    }

    /// The packet carrying MAX_STREAM_DATA `limit` was acknowledged.
    pub fn update_acked(&mut self, limit: u64) {
        self.fc.update_acked(limit);
    }

    /// True if the application retired data since the last pass or
    /// within the two smoothed RTTs before it (a stream no pass has seen
    /// yet counts as active).
    pub(super) fn recently_active(&self, now: Instant, rtt: Option<Rtt>) -> bool {
        self.fc.retired() > self.retired_at_mark
            || self.last_active.is_none_or(|at| {
                rtt.is_some_and(|r| {
                    now.saturating_duration_since(at) <= r.smoothed().saturating_mul(2)
                })
            })
    }
}
