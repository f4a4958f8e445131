//! The MAX_STREAMS limit on the peer's streams of one type (RFC 9000 §4.6).

use crate::{Direction, Error, Res, StreamId, config::MAX_STREAMS};

/// The MAX_STREAMS limit on one type of the peer's streams, by stream index.
///
/// Invariants: `next_index ≤ advertised ≤ 2^60`; `advertised` never decreases;
/// `closed ≤ next_index`; once an update is sent
/// `advertised ≤ closed + concurrent` (at most `concurrent` open at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RemoteStreamLimit {
    direction: Direction,
    /// Streams the peer may have open at once (`initial_max_streams_*`).
    concurrent: u64,
    /// The MAX_STREAMS value advertised: indices below it may be opened.
    advertised: u64,
    /// One past the highest index the peer opened.
    next_index: u64,
    closed: u64,
    /// Highest MAX_STREAMS the peer acknowledged.
    acked: u64,
    /// The frame carrying `advertised` was lost.
    resend_pending: bool,
}

impl RemoteStreamLimit {
    /// The limit for `direction`, `concurrent` (at most 2^60) streams at once;
    /// also the first advertised value.
    #[must_use]
    pub(crate) fn new(direction: Direction, concurrent: u64) -> Self {
        let concurrent = concurrent.min(MAX_STREAMS);
        Self {
            direction,
            concurrent,
            advertised: concurrent,
            next_index: 0,
            closed: 0,
            acked: concurrent,
            resend_pending: false,
        }
    }

    pub(crate) fn direction(&self) -> Direction {
        self.direction
    }

    pub(crate) fn advertised(&self) -> u64 {
        self.advertised
    }

    #[cfg(test)]
    pub(crate) fn next_index(&self) -> u64 {
        self.next_index
    }

    /// Checks that the peer may use `id` and opens it and every lower stream of
    /// its type (RFC 9000 §3.2); returns the indices newly opened.
    ///
    /// # Errors
    /// [`Error::StreamLimit`] if `id`'s index ≥ the limit; nothing changes.
    pub(crate) fn open_through(&mut self, id: StreamId) -> Res<std::ops::Range<u64>> {
        let index = id.index();
        if index >= self.advertised {
            return Err(Error::StreamLimit {
                id,
                limit: self.advertised,
            });
        }
        let from = self.next_index;
        self.next_index = self.next_index.max(index + 1);
        Ok(from..self.next_index)
    }

    pub(crate) fn on_closed(&mut self) {
        self.closed = (self.closed + 1).min(self.next_index);
    }

    fn target(&self) -> u64 {
        self.closed.saturating_add(self.concurrent).min(MAX_STREAMS)
    }

    /// True when MAX_STREAMS is due: a stream closed since, or it was lost.
    pub(crate) fn update_due(&self) -> bool {
        self.resend_pending || self.target() > self.advertised
    }

    /// Call when writing MAX_STREAMS: the value to send, if one is due.
    pub(crate) fn send_update(&mut self) -> Option<u64> {
        if !self.update_due() {
            return None;
        }
        self.advertised = self.advertised.max(self.target());
        self.resend_pending = false;
        Some(self.advertised)
    }

    /// The peer sent STREAMS_BLOCKED at `limit`: false above our limit (no
    /// honest peer is blocked there); MAX_STREAMS follows closes, not requests.
    pub(crate) fn blocked_received(&self, limit: u64) -> bool {
        limit <= self.advertised
    }

    pub(crate) fn update_lost(&mut self, limit: u64) {
        if limit == self.advertised && self.acked < limit {
            self.resend_pending = true;
        }
    }

    pub(crate) fn update_acked(&mut self, limit: u64) {
        self.acked = self.acked.max(limit);
        if self.acked >= self.advertised {
            self.resend_pending = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Role;

    fn uni(index: u64) -> StreamId {
        StreamId::new(Role::Client, Direction::Uni, index)
    }

    #[test]
    fn opens_by_index_and_refuses_past_the_limit() {
        let mut l = RemoteStreamLimit::new(Direction::Uni, 3);
        assert_eq!(l.open_through(uni(1)).unwrap(), 0..2);
        assert_eq!(l.open_through(uni(0)).unwrap(), 2..2);
        assert_eq!(l.open_through(uni(2)).unwrap(), 2..3);
        let err = l.open_through(uni(3)).unwrap_err();
        assert_eq!(err.code(), 0x04);
        assert_eq!(l.next_index(), 3);
        assert!(!l.update_due());
        l.on_closed();
        assert_eq!(l.send_update(), Some(4));
        assert!(l.open_through(uni(3)).is_ok());
        l.update_lost(4);
        assert_eq!(l.send_update(), Some(4));
        l.update_acked(4);
        l.update_lost(4);
        assert!(!l.update_due());
    }
}
