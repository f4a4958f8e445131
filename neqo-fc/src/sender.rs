//! Send-side flow control (RFC 9000 §4.1): the credit the peer granted us
//! and the *_BLOCKED signal when it runs out.

use crate::{FlowSubject, MAX_VARINT};

/// Send-side flow control for the connection (`S = Connection`) or one
/// stream (`S = StreamId`).
///
/// Invariants: `used ≤ limit ≤ 2^62 − 1`; `limit` only rises (a MAX_* frame
/// that does not raise it is ignored, RFC 9000 §4.1); at most one
/// *_BLOCKED is reported per limit, re-armed only if that frame is lost;
/// a report is only ever pending for the current limit.
#[derive(Clone, Debug)]
pub struct SenderFlowControl<S> {
    subject: S,
    limit: u64,
    used: u64,
    /// The limit at which we last reported being blocked.
    blocked_at: Option<u64>,
    /// A *_BLOCKED frame for `blocked_at` is waiting to be written.
    blocked_pending: bool,
}

impl<S: FlowSubject> SenderFlowControl<S> {
    /// Credit starts at the peer's transport parameter `initial_limit`
    /// (clamped to 2^62 − 1).
    #[must_use]
    pub fn new(subject: S, initial_limit: u64) -> Self {
        Self {
            subject,
            limit: initial_limit.min(MAX_VARINT),
            used: 0,
            blocked_at: None,
            blocked_pending: false,
        }
    }

    /// The subject this controller limits.
    pub fn subject(&self) -> S {
        self.subject
    }

    /// The peer's current limit.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Credit used: the highest offset sent (stream) or its sum (connection).
    pub fn used(&self) -> u64 {
        self.used
    }

    /// Credit left: `limit − used`.
    pub fn available(&self) -> u64 {
        self.limit - self.used
    }

    /// Uses up to `count` bytes of credit and returns how many were granted
    /// (`min(count, available)`).
    pub fn consume(&mut self, count: u64) -> u64 {
        let granted = count.min(self.available());
        self.used += granted;
        granted
    }

    /// A MAX_DATA / MAX_STREAM_DATA arrived. Returns true if it raised the
    /// limit; lower or equal values (late, duplicate, reordered) are ignored.
    /// Values above 2^62 − 1 are clamped (the codec rejects them earlier).
    pub fn update(&mut self, limit: u64) -> bool {
        let limit = limit.min(MAX_VARINT);
        if limit <= self.limit {
            return false;
        }
        self.limit = limit;
        self.blocked_pending = false;
        true
    }

    /// The sender has data it cannot send for lack of credit. Arms a
    /// *_BLOCKED report once per limit; returns true if it armed one.
    pub fn blocked(&mut self) -> bool {
        if self.available() > 0 || self.blocked_at == Some(self.limit) {
            return false;
        }
        self.blocked_at = Some(self.limit);
        self.blocked_pending = true;
        true
    }

    /// The application has written data up to the limit and has more,
    /// although some of that credit is not on the wire yet: arms a
    /// *_BLOCKED report once per limit, like [`Self::blocked`] does when
    /// the credit is all sent. For a stack that counts credit when the
    /// application writes into its send buffer, as neqo does
    /// (`send_stream.rs`: the credit is consumed in `send`, and a stream
    /// reports itself blocked after each STREAM frame it sends once the
    /// written data reached the limit), so its peer hears of the limit
    /// about a round trip before the data has reached it. Returns true if
    /// it armed one.
    pub fn blocked_by_writes(&mut self) -> bool {
        if self.blocked_at == Some(self.limit) {
            return false;
        }
        self.blocked_at = Some(self.limit);
        self.blocked_pending = true;
        true
    }

    /// The limit to report in a *_BLOCKED frame, if one is due.
    pub fn blocked_needed(&self) -> Option<u64> {
        self.blocked_pending.then_some(self.limit)
    }

    /// The *_BLOCKED frame was written.
    pub fn blocked_sent(&mut self) {
        self.blocked_pending = false;
    }

    /// The *_BLOCKED frame reporting `limit` was lost: report again if we
    /// are still blocked at that same limit.
    pub fn blocked_lost(&mut self, limit: u64) {
        if self.blocked_at == Some(limit) && self.limit == limit {
            self.blocked_pending = true;
        }
    }
}
