//! The update rule: when a MAX_DATA / MAX_STREAM_DATA is due, what limit it
//! carries, and what a lost or acknowledged one, or a *_BLOCKED from the
//! peer, changes.

use std::time::Instant;

use super::ReceiverFlowControl;
use crate::{FlowSubject, MAX_VARINT, Rtt, Tuner, WindowChange};

/// A limit to put in a MAX_DATA / MAX_STREAM_DATA frame now, and the window
/// change (if any) that the tuning step made while computing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Update {
    /// The new limit (`Maximum Data` / `Maximum Stream Data`).
    pub limit: u64,
    /// Set when the tuner grew the window at this step.
    pub change: Option<WindowChange>,
}

impl<S: FlowSubject> ReceiverFlowControl<S> {
    /// True when a MAX_DATA / MAX_STREAM_DATA frame should be sent:
    /// - the frame carrying the latest limit was lost; or
    /// - the limit can be extended and either the peer reported *_BLOCKED
    ///   at a limit the data received has since reached (see
    ///   [`ReceiverFlowControl::blocked_received`]) or at least
    ///   `update_fraction × window` bytes have been retired since the limit
    ///   was set (one byte less is not enough).
    ///
    /// The *_BLOCKED answer (an update before the threshold, extending the
    /// limit by as little as the *_BLOCKED step) stops for good once the
    /// stack has written an update a whole threshold (`update_fraction ×
    /// window` retired) after it became due: such a stack rations its
    /// updates (neqo 0.30's pacer holds a receive-mostly endpoint's
    /// MAX_STREAM_DATA back until its previous packet is acknowledged, about
    /// one per round trip), and a small early answer would spend that
    /// round trip's update on a sliver of credit (a claim that crossed our
    /// latest update in flight would then lock the path into one real
    /// update per two round trips). With a tuner that
    /// [answers *_BLOCKED at once](Tuner::answers_blocked_at_once) (neqo's
    /// rule) the answer never stops.
    ///
    /// Never true once the stream's final size is known.
    pub fn update_due(&self) -> bool {
        if self.final_size.is_some() {
            return false;
        }
        if self.resend_pending {
            return true;
        }
        self.blocked() && !self.held_back && self.extension_reaches(self.blocked_step())
            || self.threshold_reached()
    }

    /// The limit can grow, and `retired + window` (uncapped) passes it by
    /// at least `step`. Near 2^62 − 1 the limit itself is capped there, so
    /// the step is measured before the cap: otherwise a window within a
    /// threshold of the largest varint would never make an update due.
    fn extension_reaches(&self, step: u64) -> bool {
        // retired < 2^62 and the window ≤ 2^62 − 1: no overflow.
        let uncapped = self.retired.saturating_add(self.max_active);
        self.target() > self.max_allowed && uncapped - self.max_allowed >= step
    }

    /// After a retirement: marks where an update became due, if one just
    /// did.
    pub(super) fn note_due(&mut self) {
        if self.due_since.is_none() && self.update_due() {
            self.due_since = Some(self.retired);
        }
    }

    /// The peer reported *_BLOCKED at a limit that the data received has
    /// reached: its claim is borne out (when [answering at
    /// once](Tuner::answers_blocked_at_once): a claim was recorded, see [`ReceiverFlowControl::blocked_received`]).
    fn blocked(&self) -> bool {
        self.blocked_at
            .is_some_and(|at| self.blocked_at_once || self.consumed >= at)
    }

    /// The smallest extension worth answering a *_BLOCKED with: an eighth
    /// of the update threshold (at least one byte). Without it a reader
    /// that reads a few bytes at a time against a blocked sender turns
    /// every read into a MAX_* / *_BLOCKED pair.
    fn blocked_step(&self) -> u64 {
        if self.blocked_at_once {
            1
        } else {
            (self.threshold / 8).max(1)
        }
    }

    /// At least `update_fraction × window` bytes (and at least one) were
    /// retired since the limit was set: `retired + window − limit ≥
    /// threshold`.
    pub(crate) fn threshold_reached(&self) -> bool {
        self.extension_reaches(self.threshold)
    }

    /// Call when writing a MAX_DATA / MAX_STREAM_DATA frame: runs one
    /// tuning step, raises the limit to `retired + window` (never lowers
    /// it) and returns the limit to send, or `None` when no update is due.
    ///
    /// `now` is the caller's clock; `rtt` its RFC 9002 estimate, `None`
    /// before its first sample (the update is sent, no window is tuned).
    /// A step tunes only over an interval in which at least a whole
    /// update quantum was read, with an RTT sample, and with time moving
    /// forward since the previous step.
    pub fn send_update<T: Tuner + ?Sized>(
        &mut self,
        now: Instant,
        rtt: Option<Rtt>,
        tuner: &T,
    ) -> Option<Update> {
        self.send_update_capped(now, rtt, tuner, MAX_VARINT)
    }

    /// As [`ReceiverFlowControl::send_update`], but the new limit is at
    /// most `max_limit` (a memory budget's share); never below the current
    /// limit. Returns `None` if no update is due, or if the cap leaves
    /// nothing to extend and no lost frame needs re-sending.
    pub fn send_update_capped<T: Tuner + ?Sized>(
        &mut self,
        now: Instant,
        rtt: Option<Rtt>,
        tuner: &T,
        max_limit: u64,
    ) -> Option<Update> {
        if !self.update_due() {
            return None;
        }
        if max_limit <= self.max_allowed && !self.resend_pending {
            // Held back by the cap, not by the stack: the wait from here
            // on is not a late write.
            self.due_since = Some(self.retired);
            return None;
        }
        let change = self.tuning_step(now, rtt, tuner);
        // Due means `target > limit` (or a resend), and the cap is above
        // the limit, so this never lowers the limit.
        self.max_allowed = self.max_allowed.max(self.target().min(max_limit));
        self.resend_pending = false;
        // A whole threshold retired while the due frame waited shows a
        // stack that rations updates (see `update_due`).
        self.held_back |= !self.blocked_at_once && self.late() >= self.threshold;
        self.due_since = None;
        // This update answers a borne-out *_BLOCKED; one whose data is
        // still on its way waits for it.
        if self.blocked() {
            self.blocked_at = None;
        }
        Some(Update {
            limit: self.max_allowed,
            change,
        })
    }

    /// Bytes retired since an update became due and while it waited to be
    /// written (0 while none is due).
    pub(super) fn late(&self) -> u64 {
        self.retired - self.due_since.unwrap_or(self.retired)
    }

    /// True while the frame carrying the current limit must be re-sent.
    pub fn resend_pending(&self) -> bool {
        self.resend_pending
    }

    /// True once the stack wrote an update a whole threshold after it
    /// became due: from then on a *_BLOCKED no longer makes an update due
    /// before the threshold (see [`ReceiverFlowControl::update_due`]).
    pub fn updates_held_back(&self) -> bool {
        self.held_back
    }

    /// Bytes the limit would grow by if an update were sent now without a
    /// cap: `retired + window − limit` (0 if none).
    pub(crate) fn wanted_extension(&self) -> u64 {
        self.target().saturating_sub(self.max_allowed)
    }

    /// The peer sent DATA_BLOCKED / STREAM_DATA_BLOCKED saying it is blocked
    /// at `limit` (the frame's `Maximum Data` / `Maximum Stream Data`, RFC
    /// 9000 §19.12, §19.13). The claim is recorded (the highest one not yet
    /// answered) and counts once the data received reaches `limit`: from
    /// then on an update is due as soon as the limit can be extended by
    /// the *_BLOCKED step.
    ///
    /// A sender is blocked only when it has sent everything up to its
    /// limit, so a claim the data does not bear out cannot advance an
    /// update: a peer that puts *_BLOCKED in every packet gets updates (and
    /// tuning steps) no sooner than one that reports honestly. The frame
    /// usually arrives after that data; if the data is still on its way
    /// (reordered, or retransmitted after a loss), the claim waits for it.
    /// A stale claim (below our limit: the sender used up an older limit)
    /// still counts, as the sender was starved for credit. Returns `false`
    /// — the frame changes nothing — for a limit above the one we
    /// advertised (no honest peer is blocked there) or once the final size
    /// is known. Constant work, so a flood of these costs nothing more.
    ///
    /// When [answering at once](Tuner::answers_blocked_at_once) (neqo's
    /// rule) the claim is recorded
    /// only if something was retired since the limit was set (an update
    /// is then due at once); otherwise it changes nothing.
    pub fn blocked_received(&mut self, limit: u64) -> bool {
        if self.final_size.is_some() || limit > self.max_allowed {
            return false;
        }
        if self.blocked_at_once {
            if self.target() > self.max_allowed {
                self.blocked_at = Some(self.blocked_at.map_or(limit, |at| at.max(limit)));
            }
            return true;
        }
        // A claim already borne out stands until an update answers it.
        if !self.blocked() {
            self.blocked_at = Some(self.blocked_at.map_or(limit, |at| at.max(limit)));
        }
        true
    }

    /// The packet carrying the update with `limit` was declared lost. Only
    /// the frame carrying the latest limit is re-sent; losing an older one
    /// changes nothing (a newer limit is already on its way).
    pub fn update_lost(&mut self, limit: u64) {
        if limit == self.max_allowed && self.acked_limit < limit && self.final_size.is_none() {
            self.resend_pending = true;
        }
    }

    /// The packet carrying the update with `limit` was acknowledged.
    pub fn update_acked(&mut self, limit: u64) {
        self.acked_limit = self.acked_limit.max(limit);
        if self.acked_limit >= self.max_allowed {
            self.resend_pending = false;
        }
    }
}
