//! Send side of one stream: new data, retransmissions, acknowledgements.

use neqo_fc::{SenderFlowControl, StreamId};

use crate::quic::ranges::RangeSet;

/// One outgoing stream whose data the application wrote up front, or
/// (with a send buffer) writes as the buffer drains.
///
/// Invariants: `next == fc.used()`; `retransmit` and `acked` are disjoint
/// and lie below `next`; `next ≤ acked prefix + buffer`.
#[derive(Debug)]
pub struct SendStream {
    /// Stream ID.
    pub id: u64,
    /// Credit from the peer's MAX_STREAM_DATA.
    pub fc: SenderFlowControl<StreamId>,
    total: u64,
    next: u64,
    retransmit: RangeSet,
    acked: RangeSet,
    /// The most bytes held: unacknowledged plus not yet sent.
    buffer: u64,
}

/// A piece of stream data to put in a STREAM frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// First byte.
    pub offset: u64,
    /// Byte count.
    pub len: u64,
    /// Ends the stream.
    pub fin: bool,
    /// Sent before (a retransmission).
    pub retransmission: bool,
}

impl SendStream {
    /// A stream with `total` bytes to send and the peer's initial limit,
    /// holding at most `buffer` bytes (`None`: no limit; at least one
    /// byte otherwise).
    #[must_use]
    pub fn new(id: u64, total: u64, initial_limit: u64, buffer: Option<u64>) -> Self {
        Self {
            id,
            fc: SenderFlowControl::new(StreamId(id), initial_limit),
            total,
            next: 0,
            retransmit: RangeSet::default(),
            acked: RangeSet::default(),
            buffer: buffer.map_or(u64::MAX, |b| b.max(1)),
        }
    }

    /// New bytes the send buffer has room for: up to `buffer` past the
    /// end of the acknowledged prefix (what the application may have
    /// written so far), minus what was sent.
    #[must_use]
    pub fn buffer_room(&self) -> u64 {
        let prefix = match self.acked.first_range() {
            Some((0, end)) => end,
            _ => 0,
        };
        prefix.saturating_add(self.buffer).saturating_sub(self.next)
    }

    /// How far the application's writes reach, connection credit aside:
    /// the stream limit, the send buffer's end or the stream's end,
    /// whichever is first (a stack that counts credit as the application
    /// writes has consumed stream credit up to here).
    #[must_use]
    pub fn written_end(&self) -> u64 {
        let buffer_end = self.next.saturating_add(self.buffer_room());
        self.fc.limit().min(buffer_end).min(self.total)
    }

    /// True when the application has more data than the stream limit
    /// allows and its writes reached that limit
    /// ([`Self::written_end`]), whether or not all of it was sent.
    #[must_use]
    pub fn written_to_limit(&self) -> bool {
        self.total > self.fc.limit() && self.written_end() == self.fc.limit()
    }

    /// Bytes never sent yet.
    #[must_use]
    pub fn new_left(&self) -> u64 {
        self.total - self.next
    }

    /// Lost bytes waiting to be sent again.
    #[must_use]
    pub fn has_retransmit(&self) -> bool {
        !self.retransmit.is_empty()
    }

    /// True if this stream could put bytes in a packet now, given the
    /// connection credit left.
    #[must_use]
    pub fn sendable(&self, conn_available: u64) -> bool {
        self.has_retransmit()
            || (self.new_left() > 0
                && self.fc.available() > 0
                && conn_available > 0
                && self.buffer_room() > 0)
    }

    /// The next chunk of at most `max_len` bytes: retransmissions first,
    /// then new data within stream and connection credit. New data
    /// consumes stream credit here; the caller consumes connection credit
    /// (`len` of a non-retransmitted chunk).
    pub fn next_chunk(&mut self, max_len: u64, conn_available: u64) -> Option<Chunk> {
        if max_len == 0 {
            return None;
        }
        if let Some((s, e)) = self.retransmit.first_range() {
            let len = (e - s).min(max_len);
            self.retransmit.remove(s, s + len);
            return Some(Chunk {
                offset: s,
                len,
                fin: s + len == self.total,
                retransmission: true,
            });
        }
        let len = self
            .new_left()
            .min(self.fc.available())
            .min(conn_available)
            .min(self.buffer_room())
            .min(max_len);
        if len == 0 {
            return None;
        }
        let offset = self.next;
        self.fc.consume(len);
        self.next += len;
        Some(Chunk {
            offset,
            len,
            fin: self.next == self.total,
            retransmission: false,
        })
    }

    /// The packet carrying `[offset, offset + len)` was lost: queue what is
    /// not yet acknowledged.
    pub fn on_lost(&mut self, offset: u64, len: u64) {
        let end = offset + len;
        self.retransmit.insert(offset, end);
        let acked: Vec<(u64, u64)> = self.acked.iter_within(offset, end).collect();
        for (s, e) in acked {
            self.retransmit.remove(s, e);
        }
    }

    /// `[offset, offset + len)` was acknowledged.
    pub fn on_acked(&mut self, offset: u64, len: u64) {
        self.acked.insert(offset, offset + len);
        self.retransmit.remove(offset, offset + len);
    }

    /// True when the application has new data the stream limit blocks.
    #[must_use]
    pub fn stream_blocked(&self) -> bool {
        self.new_left() > 0 && self.fc.available() == 0
    }
}
