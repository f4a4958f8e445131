//! The memory budget, the connection floor and the rebalancing pass
//! ([`ConnectionFlow::next_timeout`], [`ConnectionFlow::on_timeout`]).

use std::time::{Duration, Instant};

use super::{ConnectionFlow, StreamReceiver};
use crate::{ChangeReason, Fraction, Rtt, Tuner, WindowChange, math};

/// Settings of the memory budget (see [`crate::ConnectionFlow`]).
///
/// It bounds the credit outstanding over open streams, `Σ (limit − retired)`,
/// at `open streams × initial_stream_window + min(ceiling, multiple ×
/// estimate)`, so the peer can make us buffer at most `(max_streams_bidi +
/// max_streams_uni + our open bidirectional streams) × initial_stream_window +
/// ceiling` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Growth as a multiple of the estimated need (default 3).
    pub multiple: Fraction,
    /// Hard ceiling of the growth part in bytes (default 64 MiB).
    pub ceiling: u64,
    /// Smoothed RTTs without reads (or with reads far below its window) after
    /// which a stream returns toward its seed (default 4; 0 disables reclaim).
    pub idle_rtts: u32,
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            multiple: Fraction::THREE,
            ceiling: 64 << 20,
            idle_rtts: 4,
        }
    }
}

impl Budget {
    /// The budget in bytes for these inputs (saturating).
    #[must_use]
    pub fn limit(&self, estimate: u64, open_streams: u64, initial_stream_window: u64) -> u64 {
        let promised = open_streams.saturating_mul(initial_stream_window);
        let growth = self.multiple.of(estimate).min(self.ceiling);
        promised.saturating_add(growth)
    }
}

/// The stream credit given over open streams, as the budget counts it:
/// `promised = Σ promise`, `committed = Σ credit`,
/// `beyond_initial = Σ max(0, credit − promise)`, where a stream's promise is
/// `max(initial limit, initial_stream_window)`. Exact while each stream is
/// closed once (a clone closed twice makes it wrong, never a panic).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Ledger {
    pub(crate) open: u64,
    pub(crate) promised: u64,
    pub(crate) committed: u64,
    pub(crate) beyond_initial: u64,
}

impl Ledger {
    /// A stream opened with credit `credit` (its initial limit, `initial`).
    pub(crate) fn open(&mut self, credit: u64, initial: u64) {
        self.open = self.open.saturating_add(1);
        self.promised = self.promised.saturating_add(initial);
        self.committed = self.committed.saturating_add(credit);
        self.beyond_initial = self
            .beyond_initial
            .saturating_add(credit.saturating_sub(initial));
    }

    /// A stream's credit went from `before` to `after` (a read, a grant).
    pub(crate) fn change(&mut self, before: u64, after: u64, initial: u64) {
        self.committed = self.committed.saturating_sub(before).saturating_add(after);
        self.beyond_initial = self
            .beyond_initial
            .saturating_sub(before.saturating_sub(initial))
            .saturating_add(after.saturating_sub(initial));
    }

    pub(crate) fn close(&mut self, credit: u64, initial: u64) {
        self.open = self.open.saturating_sub(1);
        self.promised = self.promised.saturating_sub(initial);
        self.committed = self.committed.saturating_sub(credit);
        self.beyond_initial = self
            .beyond_initial
            .saturating_sub(credit.saturating_sub(initial));
    }
}

/// The pass's timer and what it measured last time.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PassState {
    /// When the next regular pass is due; `None` until armed.
    next: Option<Instant>,
    /// Time of the last pass (or of arming) and the smoothed RTT then.
    last: Option<(Instant, Duration)>,
    /// Connection `retired` and `consumed` at the last pass.
    conn_mark: (u64, u64),
    /// Streams that read something in the last pass (≥ 1).
    active: u64,
    /// The need stopped growing once (ramp over): shares may go below seeds.
    ramped: bool,
    /// `connection_floor ×` the bytes moved per RTT at the last pass.
    last_need: u64,
    /// A *_BLOCKED at a share limit since the last pass, borne out by data.
    pub(super) share_blocked: bool,
    pub(super) readers_since_pass: u64,
}

impl<T: Tuner> ConnectionFlow<T> {
    fn rebalancing(&self) -> bool {
        self.config.budget.is_some_and(|b| b.idle_rtts > 0)
    }

    /// Starts the pass timer at the first call that has an RTT sample.
    pub(super) fn arm_timer(&mut self, now: Instant, rtt: Option<Rtt>) {
        if self.pass.next.is_some() || !self.rebalancing() {
            return;
        }
        let Some(rtt) = rtt else { return };
        let srtt = rtt.smoothed().max(Duration::from_millis(1));
        self.pass.next = now.checked_add(srtt);
        self.pass.last = Some((now, srtt));
        self.pass.conn_mark = (self.conn.retired(), self.conn.consumed());
        self.pass.active = self.pass.active.max(1);
    }

    /// A quarter RTT after the last pass while the share is stale: a stream
    /// blocked at it and under a quarter of the last pass's readers read since.
    fn early_pass_at(&self) -> Option<Instant> {
        let (last, srtt) = self.pass.last?;
        (self.pass.share_blocked
            && self.pass.readers_since_pass.saturating_mul(4) < self.pass.active)
            .then(|| last.checked_add(srtt / 4))
            .flatten()
    }

    /// When to call [`ConnectionFlow::on_timeout`] next: a smoothed RTT after
    /// the last pass, or a quarter RTT when a stream blocks at a stale share;
    /// `None` while no pass is pending (no budget or reclaim, no RTT sample
    /// yet, or no stream open). Early calls are harmless and late ones delay
    /// the pass; right after `on_timeout(now, ..)` this is later than `now`.
    pub fn next_timeout(&self) -> Option<Instant> {
        if self.ledger.open == 0 {
            return None;
        }
        let next = self.pass.next?;
        Some(self.early_pass_at().map_or(next, |early| early.min(next)))
    }

    /// Runs the rebalancing pass if due at `now`; returns true if it ran (then
    /// streams may have updates due). `for_each` must call its argument once
    /// per open stream, e.g.
    /// `|visit| streams.values_mut().for_each(|s| visit(s))`. Windows change;
    /// limits never shrink. A pass:
    /// - returns a stream that read nothing for `idle_rtts` RTTs to its seed,
    ///   and one that read under half its window per RTT, with data unread, to
    ///   twice what it read;
    /// - raises each window-limited reader to its share of the measured need
    ///   (within the cap), so readers take over stalled streams' shares at
    ///   once;
    /// - raises a stream that has received nothing yet toward the seed the
    ///   budget owed it, so its credit is out before its response starts.
    pub fn on_timeout<F>(&mut self, now: Instant, rtt: Option<Rtt>, mut for_each: F) -> bool
    where
        F: FnMut(&mut dyn FnMut(&mut StreamReceiver)),
    {
        self.arm_timer(now, rtt);
        let (Some(budget), Some(next)) = (self.config.budget, self.pass.next) else {
            return false;
        };
        if now < next && self.early_pass_at().is_none_or(|early| now < early) {
            return false;
        }
        let Some(rtt) = rtt else {
            // Due but no RTT sample (e.g. a zero minimum): skip the pass, early
            // trigger included, so the timer does not stay at or before `now`.
            let srtt = self.pass.last.map_or(Duration::from_millis(1), |(_, s)| s);
            self.pass.next = now.checked_add(srtt);
            self.pass.share_blocked = false;
            return false;
        };
        let srtt = rtt.smoothed().max(Duration::from_millis(1));
        let then = self.pass.last.map_or(now, |(t, _)| t);
        self.pass.share_blocked = false;
        self.pass.next = now.checked_add(srtt);
        self.pass.last = Some((now, srtt));
        self.pass.readers_since_pass = 0;
        // Bytes both received and retired (the smaller): neither unread data
        // nor reading a backlog inflates the rate.
        let interval = now
            .saturating_duration_since(then)
            .max(Duration::from_micros(1));
        let (retired_then, consumed_then) = self.pass.conn_mark;
        self.pass.conn_mark = (self.conn.retired(), self.conn.consumed());
        let moved = (self.conn.retired() - retired_then).min(self.conn.consumed() - consumed_then);
        // Scaled by the base RTT: queueing delay is not a need.
        let per_rtt = math::mul_div(moved, math::nanos(rtt.min()), math::nanos(interval));
        let need = self.config.connection_floor.of_ceil(per_rtt);
        // The ramp ends once the need grows by at most an eighth in a pass.
        let last_need = self.pass.last_need;
        if need > 0 && last_need > 0 && need <= last_need.saturating_add(last_need / 8) {
            self.pass.ramped = true;
        }
        self.pass.last_need = need;
        self.note_need(need);
        let idle_after = srtt.saturating_mul(budget.idle_rtts);
        let mut active = 0u64;
        // Neither loop moves credit: the room for owed seeds is the room now.
        let mut room = self.room();
        let stream_cap = self.config.max_stream_window;
        let changes = &mut self.changes;
        let token = self.token;
        for_each(&mut |e: &mut StreamReceiver| {
            if e.owner != token {
                return;
            }
            let used = e.fc.retired() - e.retired_at_mark;
            e.retired_at_mark = e.fc.retired();
            // Window-limited: read ≥ window / 4 per RTT, little left unread.
            let used_per_rtt = math::mul_div(used, math::nanos(srtt), math::nanos(interval));
            e.busy = used > 0
                && used_per_rtt >= e.fc.window() / 4
                && e.fc.unretired() < e.fc.window() / 4;
            e.peak_in_period = e.peak_in_period.max(used);
            e.passes = e.passes.saturating_add(1);
            if used > 0 || e.last_active.is_none() {
                e.last_active = Some(now);
            }
            if used > 0 {
                active += 1;
            }
            let last_active = e.last_active.unwrap_or(now);
            let shrink_to = if now.saturating_duration_since(last_active) >= idle_after {
                Some(e.seed)
            } else if e.passes >= budget.idle_rtts {
                let want = e.peak_in_period.saturating_mul(2).max(e.seed);
                e.peak_in_period = 0;
                e.passes = 0;
                // Shrink only slow *readers*: an empty buffer means a slow
                // sender, whose next burst would then look like excess.
                let reader_behind = e.fc.unretired() >= e.fc.window() / 4;
                (reader_behind && want < e.fc.window() / 2).then_some(want)
            } else {
                None
            };
            if let Some(w) = shrink_to
                && w < e.fc.window()
                && let Some(c) = e.fc.set_window_at(w, ChangeReason::Reclaim, Some(now))
            {
                changes.push(c);
            }
        });
        self.pass.active = active.max(1);
        let share = self.measured.checked_div(active).map(|per_stream| {
            let floor = self.config.connection_floor;
            math::mul_div(per_stream, u64::from(floor.den()), u64::from(floor.num()))
                .min(self.config.max_stream_window)
        });
        let mut largest = 0;
        for_each(&mut |e: &mut StreamReceiver| {
            if e.owner != token {
                return;
            }
            if let Some(share) = share
                && e.busy
                && e.fc.window() < share
                && let Some(c) = e.fc.raise_window_at(share, ChangeReason::Budget, Some(now))
            {
                changes.push(c);
            }
            // Never the same stream as above: a busy one has read.
            if let Some(c) = give_owed_seed(e, &mut room, stream_cap, now) {
                changes.push(c);
            }
            largest = largest.max(e.fc.window());
        });
        self.largest_window = largest;
        // Raised windows need connection credit too.
        self.cover_stream(largest, Some(now));
        true
    }

    /// The most credit one stream may hold while several read:
    /// `estimate / active`, at least the seed during the ramp and
    /// `update_fraction × initial` after; unbounded without a budget or with
    /// one reader. Doubled during the ramp on a queue-free path
    /// ([`Rtt::queue_free`]): the estimate trails a doubling sender still short
    /// of the bottleneck.
    pub(super) fn stream_share_cap(&self, seed: u64, initial: u64, rtt: Option<Rtt>) -> u64 {
        if self.config.budget.is_none() || self.pass.active <= 1 {
            return u64::MAX;
        }
        if self.pass.ramped {
            let floor = self.config.update_fraction.of(initial);
            return (self.estimate / self.pass.active).max(floor);
        }
        let share = self.estimate / self.pass.active;
        let share = if rtt.is_some_and(|r| r.queue_free()) {
            share.saturating_mul(2)
        } else {
            share
        };
        share.max(seed)
    }

    /// Keeps the connection window ≥ floor × the largest stream window and,
    /// with a budget, ≥ [`Self::credit_floor`], so data parked in a slow stream
    /// cannot use up the others' connection credit.
    pub(super) fn cover_stream(&mut self, stream_window: u64, now: Option<Instant>) {
        self.largest_window = self.largest_window.max(stream_window);
        let floor = self.cover_window();
        let change = self
            .conn
            .raise_window_at(floor, ChangeReason::ConnectionFloor, now);
        self.push_change(change);
        self.set_parked_mark();
    }

    /// The least connection window [`Self::cover_stream`] keeps.
    pub(super) fn cover_window(&self) -> u64 {
        let floor = self.config.connection_floor.of_ceil(self.largest_window);
        if self.config.budget.is_some() {
            floor.max(self.credit_floor())
        } else {
            floor
        }
    }

    /// The connection window that backs the stream credit given: the bytes
    /// parked unread and the credit granted beyond the promises (at most
    /// `committed`) / (1 − update_fraction), as they stay in the window
    /// between updates, plus the unused promises up to one estimate, which
    /// is a window and already holds that slack.
    fn credit_floor(&self) -> u64 {
        let committed = self.ledger.committed;
        // Unread bytes and granted credit: backed in full.
        let held = committed.min(
            self.conn
                .unretired()
                .saturating_add(self.ledger.beyond_initial),
        );
        let promised = (committed - held).min(self.estimate);
        let f = self.config.update_fraction;
        let usable = u64::from(f.den() - f.num()).max(1);
        math::mul_div_ceil(held, u64::from(f.den()), usable).saturating_add(promised)
    }

    /// Data passed the parked mark: raises the connection window to the credit
    /// floor, so MAX_DATA goes out before the readers run short.
    pub(super) fn cover_parked(&mut self) {
        let change =
            self.conn
                .raise_window_at(self.credit_floor(), ChangeReason::ConnectionFloor, None);
        self.push_change(change);
        self.set_parked_mark();
    }

    /// With a budget: the unread bytes plus `(1 − f) × f × window`, the most
    /// that may park before the credit floor (`1 / (1 − f)` per parked byte)
    /// passes the window by an update threshold.
    fn set_parked_mark(&mut self) {
        self.parked_mark = if self.config.budget.is_some() {
            let f = self.config.update_fraction;
            let usable = u64::from(f.den() - f.num());
            let slack = math::mul_div(f.of(self.conn.window()), usable, u64::from(f.den()).max(1));
            self.conn.unretired().saturating_add(slack)
        } else {
            u64::MAX
        };
    }
}

/// Raises `e`, which has received nothing yet, toward its owed seed within
/// `room` (less what it gives) and `stream_cap`, far enough for an update to be
/// due or not at all.
fn give_owed_seed(
    e: &mut StreamReceiver,
    room: &mut u64,
    stream_cap: u64,
    now: Instant,
) -> Option<WindowChange> {
    if *room == 0 || e.owed_seed <= e.fc.window() || e.fc.consumed() > 0 || e.discarding {
        return None;
    }
    let before = e.fc.window();
    let most = before.saturating_add(*room).min(stream_cap);
    // Nothing was retired, so the window is the target: an update is due
    // once the window reaches `limit / (1 − f)`.
    let f = e.fc.update_fraction();
    let due_at = math::mul_div_ceil(
        e.fc.limit(),
        u64::from(f.den()),
        u64::from(f.den() - f.num()).max(1),
    );
    let to = e.owed_seed.max(due_at).min(most);
    if to < due_at {
        return None;
    }
    let change = e.fc.raise_window_at(to, ChangeReason::Seed, Some(now));
    *room = room.saturating_sub(e.fc.window().saturating_sub(before));
    e.seed = e.seed.max(e.fc.window());
    change
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::{Config, ExcessTuner};

    const MIB: u64 = 1 << 20;
    const SEED: u64 = 512 << 10;
    const INITIAL: u64 = 64 << 10;

    fn flow(estimate: u64, active: u64, ramped: bool) -> ConnectionFlow<ExcessTuner> {
        let mut f = ConnectionFlow::new(Config::default().validate().unwrap());
        f.estimate = estimate;
        f.pass.active = active;
        f.pass.ramped = ramped;
        f
    }

    fn rtt(smoothed_ms: u64) -> Option<Rtt> {
        Rtt::new(
            Duration::from_millis(smoothed_ms),
            Duration::from_millis(50),
        )
    }

    #[test]
    fn during_the_ramp_a_queue_free_path_doubles_the_share() {
        let f = flow(10 * MIB, 10, false);
        assert_eq!(f.stream_share_cap(SEED, INITIAL, rtt(56)), 2 * MIB);
        // Queue over an eighth of the base RTT, or no sample: plain share.
        assert_eq!(f.stream_share_cap(SEED, INITIAL, rtt(57)), MIB);
        assert_eq!(f.stream_share_cap(SEED, INITIAL, None), MIB);
        // The seed stays the floor either way.
        let small = flow(4 * MIB, 10, false);
        assert_eq!(small.stream_share_cap(SEED, INITIAL, rtt(57)), SEED);
        assert_eq!(
            small.stream_share_cap(SEED, INITIAL, rtt(50)),
            2 * (4 * MIB / 10)
        );
    }

    #[test]
    fn after_the_ramp_or_with_one_reader_the_share_is_not_doubled() {
        let ramped = flow(10 * MIB, 10, true);
        assert_eq!(ramped.stream_share_cap(SEED, INITIAL, rtt(50)), MIB);
        // The floor after the ramp is a quarter of the initial window.
        let thin = flow(MIB, 100, true);
        assert_eq!(thin.stream_share_cap(SEED, INITIAL, rtt(50)), INITIAL / 4);
        let alone = flow(10 * MIB, 1, false);
        assert_eq!(alone.stream_share_cap(SEED, INITIAL, rtt(50)), u64::MAX);
    }

    #[test]
    fn limit_is_promised_plus_bounded_growth() {
        let b = Budget::default();
        let promised = 10 * (64 << 10);
        assert_eq!(b.limit(1 << 20, 10, 64 << 10), promised + (3 << 20));
        assert_eq!(b.limit(10 << 20, 10, 64 << 10), promised + (30 << 20));
        assert_eq!(b.limit(1 << 30, 10, 64 << 10), promised + (64 << 20));
        assert_eq!(b.limit(u64::MAX, u64::MAX, u64::MAX), u64::MAX);
    }
}
