//! The connection's receive side for a stack that keeps a controller in each
//! stream (neqo, quinn): connection limit, seeding, floor and memory budget.
//! [`crate::ConnectionReceiver`] wraps it and owns the streams too.

mod budget;
mod stream;

use std::{
    sync::atomic::{AtomicU64, Ordering},
    time::Instant,
};

pub use budget::Budget;
use budget::Ledger;
pub use stream::StreamReceiver;

/// The least credit a *_BLOCKED answer carries behind a standing queue: a
/// smaller one costs the peer a short packet and a new *_BLOCKED for nothing.
pub const MIN_BLOCKED_ANSWER: u64 = 16 << 10;

/// The next [`ConnectionFlow`]'s token: tells its streams from another's.
static NEXT_TOKEN: AtomicU64 = AtomicU64::new(0);

use crate::{
    ChangeReason, Connection, Error, ExcessTuner, MAX_VARINT, ReceiverFlowControl, Res, Rtt,
    StreamId, Subject, Tuner, ValidConfig, WindowChange, change::ChangeLog,
};

/// The receive side of one connection, minus the ownership of its streams.
///
/// Invariants after every call:
/// - [`ReceiverFlowControl`]'s rules (RFC 9000 §4) hold for the connection
///   and each [`StreamReceiver`] it opened;
/// - data counts against the connection limit once, as a stream's highest
///   offset (or final size) grows;
/// - with a [`Budget`], [`ConnectionFlow::committed`] ≤
///   [`ConnectionFlow::budget`]: credit is extended only within it;
/// - the connection window stays ≥ `connection_floor × largest stream
///   window` and, with a budget, ≥ `P / (1 − update_fraction) +
///   min(committed − P, estimate)` (within a threshold), where `P =
///   min(committed, parked + credit beyond the promises)`, so neither one
///   stream nor data parked in slow ones blocks the others;
/// - windows grow only from bytes retired, within the caps (the floor may
///   pass `max_connection_window` to cover credit given).
///
/// With a budget, a rebalancing pass runs on the timer of
/// [`ConnectionFlow::next_timeout`] / [`ConnectionFlow::on_timeout`]. Every
/// window change is kept for [`ConnectionFlow::drain_changes`]. A clone is
/// a snapshot of the same connection: it owns the same streams.
#[derive(Clone, Debug)]
pub struct ConnectionFlow<T = ExcessTuner> {
    config: ValidConfig,
    /// Stamped on every stream it opens ([`ConnectionFlow::owns`]).
    token: u64,
    tuner: T,
    conn: ReceiverFlowControl<Connection>,
    ledger: Ledger,
    largest_window: u64,
    estimate: u64,
    /// `estimate` without the initial connection window (a guess; 0 until a
    /// need is seen): the pass raises busy streams only to shares of this.
    measured: u64,
    pass: budget::PassState,
    /// Unread bytes past which arriving data rechecks the credit floor (with
    /// a budget): one compare per packet instead of the floor's arithmetic.
    parked_mark: u64,
    changes: ChangeLog,
}

/// Why [`ConnectionFlow::stream_update`] wrote no frame for a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hold {
    /// No update is due.
    NotDue,
    /// Until the growth room reaches this many bytes (or the stream changes).
    Room(u64),
    /// Its share or the *_BLOCKED rule: until it changes or a pass runs.
    Policy,
}

impl ConnectionFlow<ExcessTuner> {
    /// A connection's receive side with `config` and the default tuner.
    #[must_use]
    pub fn new(config: ValidConfig) -> Self {
        Self::with_tuner(config, ExcessTuner::DEFAULT)
    }
}

impl<T: Tuner> ConnectionFlow<T> {
    /// A connection's receive side with `config` and `tuner`.
    #[must_use]
    pub fn with_tuner(config: ValidConfig, tuner: T) -> Self {
        let mut conn = ReceiverFlowControl::new(Connection, &config);
        conn.follow(&tuner);
        Self {
            conn,
            token: NEXT_TOKEN.fetch_add(1, Ordering::Relaxed),
            ledger: Ledger::default(),
            largest_window: 0,
            estimate: config.initial_connection_window,
            measured: 0,
            pass: budget::PassState::default(),
            // Without a budget the floor has no credit term: never check.
            parked_mark: if config.budget.is_some() { 0 } else { u64::MAX },
            changes: ChangeLog::default(),
            config,
            tuner,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ValidConfig {
        &self.config
    }

    /// The connection-level controller.
    pub fn connection(&self) -> &ReceiverFlowControl<Connection> {
        &self.conn
    }

    /// Whether `s` was opened by this connection: every call refuses a
    /// stream it does not own and changes nothing.
    pub fn owns(&self, s: &StreamReceiver) -> bool {
        s.owner == self.token
    }

    /// [`Error::ForeignStream`] for a stream another connection opened.
    fn check_owner(&self, s: &StreamReceiver) -> Res<()> {
        if self.owns(s) {
            Ok(())
        } else {
            log::warn!("{} passed to a ConnectionFlow that did not open it", s.id());
            Err(Error::ForeignStream(s.id()))
        }
    }

    /// Streams opened and not yet closed.
    pub fn open_streams(&self) -> u64 {
        self.ledger.open
    }

    /// Credit outstanding over open streams, `Σ (limit − retired)` (< 2^62).
    pub fn committed(&self) -> u64 {
        self.ledger.committed
    }

    /// The budget in force (`u64::MAX` without one): the initial credit of
    /// open streams plus a multiple of [`ConnectionFlow::estimate`].
    pub fn budget(&self) -> u64 {
        self.growth_budget().saturating_add(self.ledger.promised)
    }

    fn growth_budget(&self) -> u64 {
        self.config
            .budget
            .map_or(u64::MAX, |b| b.multiple.of(self.estimate).min(b.ceiling))
    }

    /// Growth budget left now (`u64::MAX` without a budget).
    pub(crate) fn room(&self) -> u64 {
        self.growth_budget()
            .saturating_sub(self.ledger.beyond_initial)
    }

    /// The connection's estimated need in bytes, never decreasing: the
    /// largest of the initial connection window, any tuned connection window,
    /// and `connection_floor ×` any stream window a tuning step asked for or
    /// the bytes both received and read in one RTT.
    pub fn estimate(&self) -> u64 {
        self.estimate
    }

    /// Takes the window changes since the last call (the latest
    /// [`crate::MAX_PENDING_CHANGES`]).
    pub fn drain_changes(&mut self) -> std::collections::vec_deque::Drain<'_, WindowChange> {
        self.changes.drain()
    }

    /// Largest open stream window (may lag a shrink until the next pass).
    pub fn largest_window(&self) -> u64 {
        self.largest_window
    }

    fn note_need(&mut self, need: u64) {
        self.measured = self.measured.max(need);
        self.estimate = self.estimate.max(need);
    }

    fn push_change(&mut self, change: Option<WindowChange>) {
        if let Some(c) = change {
            match (c.subject, c.reason) {
                (Subject::Stream(_), _) => {
                    self.largest_window = self.largest_window.max(c.new);
                    let need = self.config.connection_floor.of_ceil(c.new);
                    self.note_need(need);
                }
                (Subject::Connection, ChangeReason::AutoTune) => {
                    self.note_need(c.new);
                }
                (Subject::Connection, _) => {}
            }
            self.changes.push(c);
        }
    }

    /// Opens stream `id`'s receive side (the peer's first frame for it, or
    /// the stack opened it). Its limit starts at `initial_stream_window`, its
    /// window at a seed within the budget ([`crate::Config::seed_window`]):
    /// above the limit, a MAX_STREAM_DATA is due at once. The seed's
    /// [`WindowChange`] has no `now`.
    ///
    /// # Errors
    /// [`Error::StreamLimit`] when [`crate::Config::max_open_streams`] streams
    /// are open (never if the stack enforces its MAX_STREAMS).
    pub fn open_stream(&mut self, id: StreamId) -> Res<StreamReceiver> {
        self.open_stream_with_limit(id, self.config.initial_stream_window)
    }

    /// As [`ConnectionFlow::open_stream`], the limit starting at
    /// `initial_limit` (the `initial_max_stream_data_*` for its type).
    ///
    /// # Errors
    /// As [`ConnectionFlow::open_stream`], and [`Error::InitialLimitAboveMax`]
    /// if `initial_limit` exceeds `max_stream_window`.
    pub fn open_stream_with_limit(
        &mut self,
        id: StreamId,
        initial_limit: u64,
    ) -> Res<StreamReceiver> {
        if self.ledger.open >= self.config.max_open_streams() {
            return Err(Error::StreamLimit {
                id,
                limit: self.config.max_open_streams(),
            });
        }
        if initial_limit > self.config.max_stream_window {
            return Err(Error::InitialLimitAboveMax {
                limit: initial_limit,
                max: self.config.max_stream_window,
            });
        }
        let mut fc = ReceiverFlowControl::with_initial_limit(id, &self.config, initial_limit);
        fc.follow(&self.tuner);
        // The budget promises every stream `initial_stream_window` (a lower
        // initial limit too): that much credit never waits for growth room.
        let promise = initial_limit.max(self.config.initial_stream_window);
        self.ledger.open(fc.credit(), promise);
        // With a budget the connection window covers given credit: seeding
        // from it would make each seed feed the next.
        let basis = if self.config.budget.is_some() {
            self.estimate
        } else {
            self.conn.window()
        };
        let wanted = self.config.seed_for(basis, initial_limit);
        let seed = wanted.min(promise.saturating_add(self.room()));
        let change = fc.raise_window(seed, ChangeReason::Seed);
        let seed = fc.window();
        let owed_seed = if wanted > seed { wanted } else { 0 };
        self.push_change(change);
        self.cover_stream(seed, None);
        Ok(StreamReceiver {
            fc,
            owner: self.token,
            initial: promise,
            seed,
            owed_seed,
            retired_at_mark: 0,
            peak_in_period: 0,
            passes: 0,
            last_active: None,
            busy: false,
            share_since: None,
            discarding: false,
        })
    }

    /// A STREAM frame on `s` reached `end` (`fin`: it carried FIN): checks
    /// and accounts it on the stream and the connection; returns the newly
    /// consumed bytes. On a stream no longer read, it is released at once.
    ///
    /// # Errors
    /// As [`ReceiverFlowControl::on_data`] (stream) and
    /// [`ReceiverFlowControl::consume`] (connection); nothing changes then.
    pub fn on_data(&mut self, s: &mut StreamReceiver, end: u64, fin: bool) -> Res<u64> {
        self.check_owner(s)?;
        let new = s.fc.check_data(end, fin)?;
        self.conn.check_consume(new)?;
        let before = s.fc.credit();
        let accounted = s.fc.on_data(end, fin)?;
        debug_assert_eq!(accounted, new);
        self.conn.consume(new)?;
        // A final size ends the credit there.
        self.ledger.change(before, s.fc.credit(), s.initial);
        if s.discarding {
            let all = s.fc.consumed();
            self.retire_to(s, all)?;
        } else if self.conn.unretired() > self.parked_mark {
            // Parked bytes raise the credit the connection covers.
            self.cover_parked();
        }
        Ok(new)
    }

    /// RESET_STREAM on `s` at `final_size`: counted at the connection (RFC
    /// 9000 §4.5), all unread released. Returns the newly consumed bytes.
    ///
    /// # Errors
    /// As [`ConnectionFlow::on_data`] with `fin`.
    pub fn reset_received(&mut self, s: &mut StreamReceiver, final_size: u64) -> Res<u64> {
        self.check_owner(s)?;
        let was_discarding = std::mem::replace(&mut s.discarding, true);
        let result = self.on_data(s, final_size, true);
        if result.is_err() {
            s.discarding = was_discarding;
        }
        result
    }

    /// The application read `s` up to `offset` (not a count); returns the
    /// bytes newly retired.
    ///
    /// # Errors
    /// [`Error::RetiredBeyondReceived`] if `offset` passes the data received.
    pub fn retire_to(&mut self, s: &mut StreamReceiver, offset: u64) -> Res<u64> {
        self.check_owner(s)?;
        let before = s.fc.credit();
        let first_since_pass = s.fc.retired() == s.retired_at_mark;
        let n = s.fc.retire_to(offset)?;
        // Cannot fail: the connection counted every byte the stream consumed.
        self.conn.add_retired(n)?;
        self.ledger.change(before, s.fc.credit(), s.initial);
        if n > 0 && first_since_pass {
            self.pass.readers_since_pass += 1;
        }
        Ok(n)
    }

    /// The application stopped reading `s` (STOP_SENDING): data held or still
    /// arriving is released, until the stack closes it at its final size.
    pub fn stop_reading(&mut self, s: &mut StreamReceiver) {
        if self.check_owner(s).is_err() {
            return;
        }
        s.discarding = true;
        let all = s.fc.consumed();
        // Cannot fail: `all` is what the stream received.
        let _ = self.retire_to(s, all);
    }

    /// The stack is done with `s`: unread bytes are released and its credit
    /// leaves the budget. Close only at the final size (until then
    /// [`ConnectionFlow::stop_reading`]), or later bytes go uncounted.
    pub fn close_stream(&mut self, s: StreamReceiver) {
        if self.check_owner(&s).is_err() {
            return;
        }
        self.ledger.close(s.fc.credit(), s.initial);
        // Cannot fail: these bytes were consumed at the connection.
        let _ = self.conn.add_retired(s.fc.unretired());
    }

    /// STREAM_DATA_BLOCKED on `s` at `limit`; returns whether it was recorded
    /// (see [`ReceiverFlowControl::blocked_received`]).
    pub fn stream_blocked_received(&mut self, s: &mut StreamReceiver, limit: u64) -> bool {
        if self.check_owner(s).is_err() {
            return false;
        }
        let honoured = s.fc.blocked_received(limit);
        // Borne out at a limit its share set: stale if the others stopped.
        self.pass.share_blocked |=
            honoured && s.share_since.is_some_and(|from| limit >= from) && s.fc.consumed() >= limit;
        honoured
    }

    /// DATA_BLOCKED at `limit`; returns whether it was recorded.
    pub fn data_blocked_received(&mut self, limit: u64) -> bool {
        self.conn.blocked_received(limit)
    }

    /// The MAX_STREAM_DATA limit to write for `s` now, if due. `None` also
    /// while the budget holds it back for streams being read (ask again
    /// later) or a *_BLOCKED answer would be under [`MIN_BLOCKED_ANSWER`].
    pub fn stream_update(
        &mut self,
        s: &mut StreamReceiver,
        now: Instant,
        rtt: Option<Rtt>,
    ) -> Option<u64> {
        self.stream_update_or_hold(s, now, rtt).ok()
    }

    /// As [`ConnectionFlow::stream_update`], saying why no frame goes out.
    pub(crate) fn stream_update_or_hold(
        &mut self,
        s: &mut StreamReceiver,
        now: Instant,
        rtt: Option<Rtt>,
    ) -> Result<u64, Hold> {
        if self.check_owner(s).is_err() {
            return Err(Hold::NotDue);
        }
        self.arm_timer(now, rtt);
        if !s.fc.update_due() {
            return Err(Hold::NotDue);
        }
        let initial = s.initial;
        let old = s.fc.limit();
        let credit_before = s.fc.credit();
        let wanted = s.fc.wanted_extension();
        // Promised credit the stream has read through costs no growth budget.
        let room = self
            .room()
            .saturating_add(initial.saturating_sub(credit_before));
        // Credit cannot be taken back from streams that stop reading: while
        // several read, none holds more than its share of the need.
        let share_cap =
            s.fc.retired()
                .saturating_add(self.stream_share_cap(s.seed, s.initial, rtt));
        // A lost frame is re-sent at its old limit even with no room.
        let cap = if room == 0 && s.fc.resend_pending() {
            old
        } else {
            old.saturating_add(room)
                .min(share_cap)
                .max(old)
                .min(MAX_VARINT)
        };
        // Short room goes to readers: they need only a step (bounded by the
        // initial window's, so a raised window is not priced out), others
        // their whole extension. A stream that read all while its peer used
        // all its credit waits on us alone: a reader.
        let step = (s.fc.update_fraction().of(s.fc.window()).min(initial) / 8).max(1);
        let waiting_on_us = s.fc.unretired() == 0 && s.fc.consumed() >= old;
        let needed = if waiting_on_us || s.recently_active(now, rtt) {
            wanted.min(step)
        } else {
            wanted
        };
        if room < needed && !s.fc.resend_pending() {
            // `room` already counts the stream's own read-through promise.
            let own = room - self.room();
            return Err(Hold::Room(needed - own));
        }
        // See `MIN_BLOCKED_ANSWER` (the *_BLOCKED step of a 512 KiB seed
        // window is that much: it never waits).
        if !s.fc.threshold_reached()
            && !s.fc.resend_pending()
            && rtt.is_some_and(|r| r.standing_queue())
            && cap.saturating_sub(old).min(wanted) < MIN_BLOCKED_ANSWER
        {
            return Err(Hold::Policy);
        }
        let update =
            s.fc.send_update_capped(now, rtt, &self.tuner, cap)
                .ok_or(Hold::Policy)?;
        self.ledger.change(credit_before, s.fc.credit(), s.initial);
        s.share_since = if update.limit == share_cap {
            s.share_since.or(Some(update.limit))
        } else {
            None
        };
        let mut change = update.change;
        // The budget cut the window: one change, with the step's inputs; the
        // need the step saw still counts.
        let granted = s.fc.credit();
        if granted < s.fc.window() && update.limit == cap {
            if s.fc.consumed() == 0 {
                // Nothing arrived yet: the pass gives the rest as room frees.
                s.owed_seed = s.owed_seed.max(s.fc.window());
            }
            let cut = s.fc.set_window_at(granted, ChangeReason::Budget, Some(now));
            change = match (change, cut) {
                (Some(tuned), Some(cut)) => {
                    self.note_need(self.config.connection_floor.of_ceil(tuned.new));
                    tuned.then(cut)
                }
                (tuned, cut) => cut.or(tuned),
            };
        }
        self.push_change(change);
        self.cover_stream(s.fc.window(), Some(now));
        Ok(update.limit)
    }

    /// The application set `s`'s window (e.g. neqo's `set_stream_max_data`),
    /// up or down, at most `max_stream_window`; returns the window in force.
    pub fn set_stream_window(&mut self, s: &mut StreamReceiver, window: u64) -> u64 {
        if self.check_owner(s).is_err() {
            return s.fc.window();
        }
        let window = window.clamp(1, self.config.max_stream_window);
        let change = s.fc.set_window(window, ChangeReason::Application);
        self.push_change(change);
        self.cover_stream(window, None);
        s.fc.window()
    }

    /// As [`ConnectionFlow::set_stream_window`], for the connection (e.g.
    /// quinn's `set_receive_window`): at most `max_connection_window`, never
    /// below the floor; tuning continues from it.
    pub fn set_connection_window(&mut self, window: u64) -> u64 {
        let window = window.clamp(1, self.config.max_connection_window);
        let change = self.conn.set_window(window, ChangeReason::Application);
        self.push_change(change);
        self.cover_stream(self.largest_window, None);
        self.conn.window()
    }

    /// True when a MAX_DATA is due, counting the raise to the floors that
    /// [`ConnectionFlow::connection_update`] applies first: it then returns
    /// a limit exactly when this is true.
    pub fn connection_update_due(&self) -> bool {
        if self.config.budget.is_some() {
            self.conn.update_due_if_raised_to(self.cover_window())
        } else {
            self.conn.update_due()
        }
    }

    /// The MAX_DATA limit to write now, if one is due (after a tuning step).
    pub fn connection_update(&mut self, now: Instant, rtt: Option<Rtt>) -> Option<u64> {
        self.arm_timer(now, rtt);
        let budget = self.config.budget.is_some();
        if budget {
            // The limit written now covers bytes parked since the last cover.
            self.cover_stream(self.largest_window, Some(now));
        }
        let update = self.conn.send_update(now, rtt, &self.tuner)?;
        let tuned = update.change.is_some();
        self.push_change(update.change);
        if tuned && budget {
            // A tuned window raised the estimate, and so the credit covered.
            self.cover_stream(self.largest_window, Some(now));
        }
        Some(update.limit)
    }

    /// The packet carrying MAX_DATA `limit` was lost.
    pub fn connection_update_lost(&mut self, limit: u64) {
        self.conn.update_lost(limit);
    }

    /// The packet carrying MAX_DATA `limit` was acknowledged.
    pub fn connection_update_acked(&mut self, limit: u64) {
        self.conn.update_acked(limit);
    }
}
