//! Send-side flow control (RFC 9000 §4.1): the peer's credit and *_BLOCKED.

use crate::{FlowSubject, MAX_VARINT};

/// Send-side flow control for the connection or one stream.
///
/// Invariants: `used ≤ limit ≤ 2^62 − 1`; `limit` only rises (RFC 9000 §4.1);
/// at most one *_BLOCKED per limit, re-armed only if lost.
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
    /// Credit from the peer's transport parameter, clamped to 2^62 − 1.
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

    /// Uses up to `count` bytes of credit; returns how many were granted.
    pub fn consume(&mut self, count: u64) -> u64 {
        let granted = count.min(self.available());
        self.used += granted;
        granted
    }

    /// A MAX_DATA / MAX_STREAM_DATA arrived; returns true if it raised the
    /// limit (others are ignored).
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

    /// As [`Self::blocked`], for a stack that consumes credit when the
    /// application writes (as neqo does): call it once writes reached the
    /// limit with more waiting, so the peer hears of the limit a round trip
    /// sooner.
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

    /// The *_BLOCKED at `limit` was lost: re-arm it if still blocked there.
    pub fn blocked_lost(&mut self, limit: u64) {
        if self.blocked_at == Some(limit) && self.limit == limit {
            self.blocked_pending = true;
        }
    }
}
