//! [`StreamReceiver`]: one stream's controller plus the policy's notes on it.

use std::time::Instant;

use crate::{ReceiverFlowControl, Rtt, StreamId};

/// A stream's receive-side flow control under a [`super::ConnectionFlow`].
///
/// Made by [`super::ConnectionFlow::open_stream`]; every change that moves
/// credit goes through that `ConnectionFlow`: another one refuses it
/// ([`crate::Error::ForeignStream`], or `None` / `false` / no change where a
/// call returns no `Result`) and its books stay right. The stack owns the
/// value and may read it freely.
#[derive(Clone, Debug)]
pub struct StreamReceiver {
    pub(super) fc: ReceiverFlowControl<StreamId>,
    /// The [`super::ConnectionFlow`] that opened it (its token).
    pub(super) owner: u64,
    /// Credit the budget promises it without growth room: the larger of its
    /// initial limit and `initial_stream_window`.
    pub(super) initial: u64,
    /// The window the stream started with; reclaim returns it here.
    pub(super) seed: u64,
    /// Seed the budget could not cover at open (0: none), given as room frees
    /// until the first byte arrives.
    pub(super) owed_seed: u64,
    /// `retired` at the last rebalancing pass.
    pub(super) retired_at_mark: u64,
    /// Most retired in one pass this slow-reader period (a slow reader's
    /// window shrinks to twice this).
    pub(super) peak_in_period: u64,
    /// Rebalancing passes in the current slow-reader period.
    pub(super) passes: u32,
    /// Last pass at which it had retired something (or its first pass).
    pub(super) last_active: Option<Instant>,
    /// Read ≥ a quarter of its window per RTT in the last pass, little unread.
    pub(super) busy: bool,
    /// First limit of the current run of extensions capped at the share.
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

    /// True when a MAX_STREAM_DATA may be due. It stays true while the budget
    /// holds the update back ([`super::ConnectionFlow::stream_update`] returns
    /// `None`): ask again when the stream changes, another reads or closes, or
    /// the rebalancing timer fires.
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

    /// Retired since the last pass or within two smoothed RTTs before it.
    pub(super) fn recently_active(&self, now: Instant, rtt: Option<Rtt>) -> bool {
        self.fc.retired() > self.retired_at_mark
            || self.last_active.is_none_or(|at| {
                rtt.is_some_and(|r| {
                    now.saturating_duration_since(at) <= r.smoothed().saturating_mul(2)
                })
            })
    }
}
