//! The rebalancing pass of [`ConnectionReceiver`]: once per smoothed RTT
//! (earlier when a share is stale) it measures the connection's need,
//! finds the streams that read, returns idle and slow-reading streams
//! toward their seed, and lets the streams still reading inherit the
//! share of the ones that stopped. Also the per-stream share cap that the
//! update path applies while several streams read, and the connection
//! floor that keeps the connection window above what streams may use.

use std::time::Duration;

use super::ConnectionReceiver;
use crate::{ChangeReason, Rtt, StreamId, Tuner};

impl<T: Tuner> ConnectionReceiver<T> {
    /// The most credit one stream may hold while several read:
    /// `max(floor, estimate / active streams)` with a budget, where the
    /// floor is the stream's seed during the start-up ramp (the estimate
    /// trails a doubling sender) and `update_fraction × initial window`
    /// after it (so streams that stall park little); unbounded without a
    /// budget or while at most one stream reads.
    pub(super) fn stream_share_cap(&self, seed: u64) -> u64 {
        if self.config.budget.is_none() || self.active <= 1 {
            return u64::MAX;
        }
        let floor = if self.ramped {
            self.config
                .update_fraction
                .of(self.config.initial_stream_window)
        } else {
            seed
        };
        (self.estimate / self.active).max(floor)
    }

    /// True if stream `id`'s application retired data within the last two
    /// smoothed RTTs.
    pub(super) fn is_recently_active(&self, id: StreamId, now: Duration, rtt: Rtt) -> bool {
        self.streams.get(&id).is_some_and(|e| {
            now.saturating_sub(e.last_active) <= rtt.smoothed.saturating_mul(2)
                || e.fc.retired() > e.retired_at_mark
        })
    }

    /// Keeps the connection window ≥ floor × the largest stream window
    /// and — with a budget — ≥ the credit committed to streams (divided by
    /// `1 − update_fraction`, for the update lag): the peer
    /// may fill every stream it was given credit on, and data parked in a
    /// slow stream must not use up the connection credit of the others.
    /// The budget, not the connection window, then bounds memory.
    pub(super) fn cover_stream(&mut self, stream_window: u64, now: Duration) {
        let mut floor = self
            .config
            .connection_floor
            .of_ceil(stream_window.max(self.largest_window));
        if self.config.budget.is_some() {
            // The connection limit lags retirement by up to `f × window`
            // (updates wait for that much): cover `committed` after the lag.
            let f = self.config.update_fraction;
            let usable = u64::from(f.den() - f.num()).max(1);
            floor = floor.max(crate::math::mul_div_ceil(
                self.committed,
                u64::from(f.den()),
                usable,
            ));
        }
        let change = self
            .conn
            .raise_window(floor, ChangeReason::ConnectionFloor, now);
        self.push_change(change);
    }

    /// Once per smoothed RTT (with a budget): rebalance stream windows.
    ///
    /// - A stream whose application retired nothing for `idle_rtts` RTTs
    ///   returns to its seed window; one that retired less than half its
    ///   window per RTT over `idle_rtts` RTTs shrinks to twice what it used.
    /// - Streams that are reading share the connection's estimated need:
    ///   each is raised to at least `estimate / (floor × active streams)`
    ///   (within the tuner's cap), so when others stall the ones still
    ///   reading inherit their share at once instead of ramping up.
    ///
    /// Windows change; limits never shrink (credit already granted stays).
    pub(super) fn reclaim(&mut self, now: Duration, rtt: Rtt) {
        let Some(budget) = self.config.budget else {
            return;
        };
        if budget.idle_rtts == 0 {
            return;
        }
        let srtt = rtt.smoothed.max(Duration::from_millis(1));
        let Some(at) = self.next_reclaim else {
            self.next_reclaim = Some(now.saturating_add(srtt));
            self.last_pass = (now, srtt);
            self.conn_mark = (self.conn.retired(), self.conn.consumed(), now);
            return;
        };
        // A stream blocked at its share while fewer than a quarter of the streams
        // that read in the last pass have read since: the others stopped
        // reading and the share is stale, so rebalance now rather than a
        // whole RTT after the last pass — at most four passes per RTT,
        // however many *_BLOCKED arrive.
        let (last, last_srtt) = self.last_pass;
        let stale_share = self.share_blocked
            && now >= last.saturating_add(last_srtt / 4)
            && self.readers_since_pass.saturating_mul(4) < self.active;
        if now < at && !stale_share {
            return;
        }
        self.share_blocked = false;
        self.next_reclaim = Some(now.saturating_add(srtt));
        self.last_pass = (now, srtt);
        self.readers_since_pass = 0;
        // The aggregate rate over the last pass, scaled to one RTT: bytes
        // both received and retired (the smaller count), so neither data
        // parked unread nor a burst of reading old data inflates it.
        let (retired_then, consumed_then, then) = self.conn_mark;
        let interval = now.saturating_sub(then);
        self.conn_mark = (self.conn.retired(), self.conn.consumed(), now);
        let moved = (self.conn.retired() - retired_then).min(self.conn.consumed() - consumed_then);
        // Scaled by the base RTT: queueing delay is not a need.
        let per_rtt = crate::math::mul_div(
            moved,
            crate::math::nanos(rtt.min.max(Duration::from_micros(1))),
            crate::math::nanos(interval),
        );
        let need = self.config.connection_floor.of_ceil(per_rtt);
        // The start-up ramp is over once the measured need stops growing
        // (within an eighth of the last pass's) — a doubling sender grows
        // it ×2 per RTT until the path or the reader limits it.
        if need > 0 && self.last_need > 0 && need <= self.last_need + self.last_need / 8 {
            self.ramped = true;
        }
        self.last_need = need;
        self.estimate = self.estimate.max(need);
        let idle_after = srtt.saturating_mul(budget.idle_rtts);
        let mut active = 0u64;
        let changes = &mut self.changes;
        for e in self.streams.values_mut() {
            let used = e.fc.retired() - e.retired_at_mark;
            e.retired_at_mark = e.fc.retired();
            // Window-limited: it read at least a quarter of its window per
            // RTT in this pass and little is waiting unread. A slow reader has its
            // window full of unread data and could not use more.
            // Per RTT, as passes can come early (a stale share).
            let used_per_rtt = crate::math::mul_div(
                used,
                crate::math::nanos(srtt),
                crate::math::nanos(interval.max(Duration::from_micros(1))),
            );
            e.busy = used_per_rtt >= e.fc.window() / 4 && e.fc.unretired() < e.fc.window() / 4;
            e.used_in_period += used;
            e.passes += 1;
            if used > 0 {
                e.last_active = now;
                active += 1;
            }
            let shrink_to = if now.saturating_sub(e.last_active) >= idle_after {
                Some(e.seed)
            } else if e.passes >= budget.idle_rtts {
                let want = (e.used_in_period / u64::from(e.passes))
                    .saturating_mul(2)
                    .max(e.seed);
                e.used_in_period = 0;
                e.passes = 0;
                // Slow *reader*: data waits unread. A stream whose buffer
                // is empty reads all it gets; its sender (or the sender's
                // scheduler, sharing the link with other streams) is what
                // is slow, and a smaller window would only make its next
                // burst look like excess to the tuner.
                let reader_behind = e.fc.unretired() >= e.fc.window() / 4;
                (reader_behind && want < e.fc.window() / 2).then_some(want)
            } else {
                None
            };
            if let Some(w) = shrink_to
                && w < e.fc.window()
                && let Some(c) = e.fc.set_window(w, ChangeReason::Reclaim, now)
            {
                changes.push(c);
            }
        }
        self.active = active.max(1);
        if let Some(per_stream) = self.estimate.checked_div(active) {
            let cap = self.tuner.max_window(crate::SubjectKind::Stream);
            let floor = self.config.connection_floor;
            let share =
                crate::math::mul_div(per_stream, u64::from(floor.den()), u64::from(floor.num()))
                    .min(cap);
            for (id, e) in &mut self.streams {
                if e.busy && e.last_active == now && e.fc.window() < share {
                    if let Some(c) = e.fc.raise_window(share, ChangeReason::Budget, now) {
                        changes.push(c);
                    }
                    if !e.queued && e.fc.update_due() {
                        e.queued = true;
                        self.due.push_back(*id);
                    }
                }
            }
        }
        self.largest_window = self
            .streams
            .values()
            .map(|e| e.fc.window())
            .max()
            .unwrap_or(0);
        // Raised windows need connection credit too.
        self.cover_stream(self.largest_window, now);
    }
}
