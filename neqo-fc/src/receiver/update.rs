//! When a MAX_DATA / MAX_STREAM_DATA is due, what it carries, and what loss,
//! acknowledgement or a *_BLOCKED changes.

use std::time::Instant;

use super::ReceiverFlowControl;
use crate::{FlowSubject, MAX_VARINT, Rtt, Tuner, WindowChange};

/// A limit to put in a MAX_DATA / MAX_STREAM_DATA frame now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Update {
    /// The new limit (`Maximum Data` / `Maximum Stream Data`).
    pub limit: u64,
    /// The window change, if the tuning step grew the window.
    pub change: Option<WindowChange>,
}

impl<S: FlowSubject> ReceiverFlowControl<S> {
    /// True when a MAX_DATA / MAX_STREAM_DATA should be sent: the frame
    /// carrying the latest limit was lost, or the limit can grow and either
    /// `update_fraction × window` bytes were retired since it was set or a
    /// *_BLOCKED was borne out ([`ReceiverFlowControl::blocked_received`]).
    /// Never once the final size is known.
    ///
    /// The early *_BLOCKED answer stops for good once
    /// [`ReceiverFlowControl::updates_held_back`] is true: that stack rations
    /// updates (neqo 0.30's pacer, about one per RTT), and a small early
    /// answer would spend one on a sliver of credit. A tuner that
    /// [answers at once](Tuner::answers_blocked_at_once) keeps it.
    pub fn update_due(&self) -> bool {
        self.due_with_window(self.max_active)
    }

    /// Whether [`ReceiverFlowControl::update_due`] would be true with the
    /// window raised to at least `window` (what a floor about to be applied
    /// does), without raising it.
    pub(crate) fn update_due_if_raised_to(&self, window: u64) -> bool {
        self.due_with_window(window.min(MAX_VARINT).max(self.max_active))
    }

    fn due_with_window(&self, window: u64) -> bool {
        if self.final_size.is_some() {
            return false;
        }
        if self.resend_pending {
            return true;
        }
        let threshold = self.update_fraction.of(window).max(1);
        let blocked_step = if self.blocked_at_once {
            1
        } else {
            (threshold / 8).max(1)
        };
        self.blocked() && !self.held_back && self.extension_reaches(window, blocked_step)
            || self.extension_reaches(window, threshold)
    }

    /// With `window`, the limit can grow, and `retired + window` passes it by
    /// ≥ `step`, measured before the 2^62 − 1 cap (else a window near it would
    /// never make an update due).
    fn extension_reaches(&self, window: u64, step: u64) -> bool {
        // retired < 2^62 and the window ≤ 2^62 − 1: no overflow.
        let uncapped = self.retired.saturating_add(window);
        uncapped.min(MAX_VARINT) > self.max_allowed && uncapped - self.max_allowed >= step
    }

    /// After a retirement: marks where an update became due, if one did.
    pub(super) fn note_due(&mut self) {
        if self.due_since.is_none() && self.update_due() {
            self.due_since = Some(self.retired);
        }
    }

    /// A *_BLOCKED claim stands: borne out by the data, or just recorded
    /// when answering at once.
    fn blocked(&self) -> bool {
        self.blocked_at
            .is_some_and(|at| self.blocked_at_once || self.consumed >= at)
    }

    /// `retired + window − limit ≥ update_fraction × window` (≥ 1).
    pub(crate) fn threshold_reached(&self) -> bool {
        self.extension_reaches(self.max_active, self.threshold)
    }

    /// Call when writing a MAX_DATA / MAX_STREAM_DATA: runs a tuning step,
    /// raises the limit to `retired + window` and returns it, or `None` when
    /// no update is due. `now` is the caller's clock, `rtt` its RFC 9002
    /// estimate (`None` before the first sample: no tuning).
    pub fn send_update<T: Tuner + ?Sized>(
        &mut self,
        now: Instant,
        rtt: Option<Rtt>,
        tuner: &T,
    ) -> Option<Update> {
        self.send_update_capped(now, rtt, tuner, MAX_VARINT)
    }

    /// As [`ReceiverFlowControl::send_update`], with the new limit at most
    /// `max_limit` (a budget's share). `None` also when the cap leaves
    /// nothing to extend and nothing is to be re-sent.
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
            // Held by the cap, not the stack: waiting now is not lateness.
            self.due_since = Some(self.retired);
            return None;
        }
        let change = self.tuning_step(now, rtt, tuner);
        // Due, and the cap is above the limit: never lowers it.
        self.max_allowed = self.max_allowed.max(self.target().min(max_limit));
        self.resend_pending = false;
        // A whole threshold read while the frame waited: a rationing stack.
        self.held_back |= !self.blocked_at_once && self.late() >= self.threshold;
        self.due_since = None;
        // Answers a borne-out *_BLOCKED; one whose data is on its way waits.
        if self.blocked() {
            self.blocked_at = None;
        }
        Some(Update {
            limit: self.max_allowed,
            change,
        })
    }

    /// Bytes retired while a due update waited (0 while none is due).
    pub(super) fn late(&self) -> u64 {
        self.retired - self.due_since.unwrap_or(self.retired)
    }

    /// True while the frame carrying the current limit must be re-sent.
    pub fn resend_pending(&self) -> bool {
        self.resend_pending
    }

    /// True once the stack wrote an update a whole threshold after it became
    /// due: a *_BLOCKED no longer makes one due early (never when answering
    /// at once).
    pub fn updates_held_back(&self) -> bool {
        self.held_back
    }

    /// `retired + window − limit`, or 0.
    pub(crate) fn wanted_extension(&self) -> u64 {
        self.target().saturating_sub(self.max_allowed)
    }

    /// The peer sent DATA_BLOCKED / STREAM_DATA_BLOCKED at `limit` (RFC 9000
    /// §19.12, §19.13). The highest unanswered claim counts once the data
    /// received reaches `limit` (a blocked sender has sent up to it): an
    /// update is then due as soon as the limit can grow by an eighth of the
    /// threshold, so a peer sending *_BLOCKED in every packet gains nothing.
    /// A claim below our limit still counts (the sender was starved).
    /// Constant work.
    ///
    /// Returns `false`, changing nothing, above our limit or once the final
    /// size is known. When [answering at once](Tuner::answers_blocked_at_once)
    /// the claim is recorded only if something was retired since the limit
    /// was set (an update is then due at once).
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

    /// The packet carrying update `limit` was lost; only the latest limit,
    /// if not acknowledged, is re-sent.
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
