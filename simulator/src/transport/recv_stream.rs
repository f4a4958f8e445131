//! Receive side of one stream: reassembly and verification (flow control
//! lives in the connection's `neqo_fc::ConnectionReceiver`).

use crate::quic::ranges::RangeSet;

use super::packet::pattern_byte;

/// One incoming stream.
///
/// Invariants: `received` holds every offset received (the read prefix
/// included); `buffered` = bytes in `received` at or above `read`;
/// `read` = what the flow controller saw retired.
#[derive(Debug)]
pub struct RecvStream {
    /// Stream index among the streams of its kind (0-based).
    pub index: u64,
    /// Stream ID.
    pub id: u64,
    /// Final size, once a FIN arrived (flow control accepted it).
    pub final_size: Option<u64>,
    received: RangeSet,
    read: u64,
    buffered: u64,
}

impl RecvStream {
    /// A new stream: `id`, the `index`-th of its kind.
    #[must_use]
    pub fn new(id: u64, index: u64) -> Self {
        Self {
            index,
            id,
            final_size: None,
            received: RangeSet::default(),
            read: 0,
            buffered: 0,
        }
    }

    /// Bytes received and not yet read.
    #[must_use]
    pub fn buffered(&self) -> u64 {
        self.buffered
    }

    /// Bytes read so far.
    #[must_use]
    pub fn read_offset(&self) -> u64 {
        self.read
    }

    /// Stores `[offset, offset + len)` (after flow control accepted it).
    /// Returns (newly buffered bytes, verification failures).
    pub fn store(&mut self, offset: u64, len: u64, data: Option<&[u8]>) -> (u64, u64) {
        let end = offset + len;
        let mut failures = 0;
        if let Some(bytes) = data {
            let id = self.id;
            for (i, &b) in bytes.iter().enumerate() {
                if b != pattern_byte(id, offset + i as u64) {
                    failures += 1;
                }
            }
        }
        let start = offset.max(self.read);
        if start >= end {
            return (0, failures);
        }
        let new = self.received.insert(start, end);
        self.buffered += new;
        (new, failures)
    }

    /// End of the contiguous data from the read offset.
    #[must_use]
    pub fn contiguous_end(&self) -> u64 {
        match self.received.first_range() {
            Some((s, e)) if s <= self.read => e,
            _ => self.read,
        }
    }

    /// The application read up to `offset` (≤ contiguous end).
    pub fn advance_read(&mut self, offset: u64) -> u64 {
        let n = offset.saturating_sub(self.read);
        self.read += n;
        self.buffered -= n;
        // The read prefix stays in `received` as (part of) its first range:
        // trimming it would re-key the range on every read.
        n
    }

    /// True once the final size is known and everything was read.
    #[must_use]
    pub fn all_read(&self) -> bool {
        self.final_size == Some(self.read)
    }
}
