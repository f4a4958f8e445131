//! The receive side of one connection: the connection controller, every
//! stream's controller, seeding, the connection floor, and the memory
//! budget that bounds the credit held across streams.

use std::{
    collections::{BTreeMap, VecDeque},
    time::Duration,
};

mod rebalance;

use crate::{
    ChangeReason, Config, Connection, Error, MAX_VARINT, ReceiverFlowControl, Res, Rtt, StreamId,
    Subject, Tuner, WindowChange,
};

/// One MAX_DATA / MAX_STREAM_DATA to write now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpdateFrame {
    /// [`Subject::Connection`] for MAX_DATA, a stream for MAX_STREAM_DATA.
    pub subject: Subject,
    /// The limit to send.
    pub limit: u64,
}

#[derive(Clone, Debug)]
struct StreamEntry {
    fc: ReceiverFlowControl<StreamId>,
    /// The window the stream started with; reclaim returns it here.
    seed: u64,
    /// `retired` at the last rebalancing pass.
    retired_at_mark: u64,
    /// Bytes retired over the current slow-reader period.
    used_in_period: u64,
    /// Rebalancing passes in the current slow-reader period.
    passes: u32,
    /// Last pass at which the application had retired something.
    last_active: Duration,
    /// In the `due` queue.
    queued: bool,
    /// Read at least a quarter of its window per RTT in the last pass,
    /// with little left unread (window-limited).
    busy: bool,
    /// The first limit of the current run of extensions that stopped at
    /// the stream's share of the estimate (`None` once one did not).
    share_since: Option<u64>,
}

/// Receive-side flow control for a whole connection.
///
/// It owns the connection's [`ReceiverFlowControl`] and one per open
/// stream, and keeps these invariants after every call:
///
/// - every rule of [`ReceiverFlowControl`] (RFC 9000 §4), for each subject;
/// - with a [`Budget`](crate::Budget): the credit outstanding summed over open streams,
///   [`ConnectionReceiver::committed`] `= Σ (limit − retired)`, never
///   exceeds [`ConnectionReceiver::budget`] — credit is only extended
///   within it, and never reneged (limits never decrease);
/// - the connection window stays ≥ `connection_floor × largest stream
///   window` and, with a budget, ≥ the credit committed to streams, so
///   neither one stream nor data parked in slow streams makes the
///   connection limit block the others;
/// - windows grow only from bytes the application retired.
///
/// New streams start at `max(initial, seed_fraction × connection window)`
/// (within the budget). With a budget, once per smoothed RTT a
/// rebalancing pass (`connection_receiver/rebalance.rs`) returns a stream
/// that retired nothing for `idle_rtts` RTTs, or whose reader leaves data
/// unread while using far less than its window, toward its seed by *not
/// extending* its limit; while several streams read, none holds more
/// credit than its share of the estimate (never below its seed during the
/// start-up ramp, at least `update_fraction × initial window` after it);
/// streams still reading inherit the share of those that stopped — a
/// quarter RTT after the last pass if one reports *_BLOCKED at its share
/// while most others have stopped. Credit goes to streams whose
/// application is reading, first come first served among those due.
///
/// Every window change is kept in [`ConnectionReceiver::drain_changes`]
/// (reasons: auto-tune, seed, connection floor, budget, reclaim).
#[derive(Debug)]
pub struct ConnectionReceiver<T> {
    config: Config,
    tuner: T,
    conn: ReceiverFlowControl<Connection>,
    streams: BTreeMap<StreamId, StreamEntry>,
    committed: u64,
    due: VecDeque<StreamId>,
    largest_window: u64,
    /// The connection's need: the largest of the initial connection
    /// window, `connection_floor ×` any stream window, any auto-tuned
    /// connection window, and `connection_floor ×` the bytes both received
    /// and retired in one smoothed RTT. Never decreases; the
    /// growth budget is a multiple of it.
    estimate: u64,
    /// Connection `retired`, `consumed` and time at the last pass.
    conn_mark: (u64, u64, Duration),
    /// Σ over open streams of `max(0, credit − initial_stream_window)`:
    /// the credit beyond what the transport parameters promised each
    /// stream slot. The growth budget bounds it.
    excess: u64,
    /// Streams that read something in the last rebalancing pass (≥ 1).
    active: u64,
    next_reclaim: Option<Duration>,
    /// The measured need has stopped growing once (the start-up ramp is
    /// over): from then on a stream's share may go below its seed.
    ramped: bool,
    /// `connection_floor ×` the bytes moved per RTT at the last pass.
    last_need: u64,
    /// Since the last pass a stream reported *_BLOCKED at a limit its
    /// share set, and the data bore the report out.
    share_blocked: bool,
    /// Streams that retired something since the last pass.
    readers_since_pass: u64,
    /// Time of the last rebalancing pass and the smoothed RTT then.
    last_pass: (Duration, Duration),
    changes: Vec<WindowChange>,
}

impl<T: Tuner> ConnectionReceiver<T> {
    /// A connection receiver with `config` (whose `budget`, if any, bounds
    /// stream credit) and `tuner`.
    pub fn new(config: Config, tuner: T) -> Self {
        Self {
            conn: ReceiverFlowControl::connection(&config),
            config,
            tuner,
            streams: BTreeMap::new(),
            committed: 0,
            due: VecDeque::new(),
            largest_window: 0,
            estimate: config.initial_connection_window,
            conn_mark: (0, 0, Duration::ZERO),
            excess: 0,
            active: 1,
            next_reclaim: None,
            ramped: false,
            last_need: 0,
            share_blocked: false,
            readers_since_pass: 0,
            last_pass: (Duration::ZERO, Duration::ZERO),
            changes: Vec::new(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The tuner.
    pub fn tuner(&self) -> &T {
        &self.tuner
    }

    /// The connection-level controller.
    pub fn connection(&self) -> &ReceiverFlowControl<Connection> {
        &self.conn
    }

    /// A stream's controller, if open.
    pub fn stream(&self, id: StreamId) -> Option<&ReceiverFlowControl<StreamId>> {
        self.streams.get(&id).map(|e| &e.fc)
    }

    /// Open streams.
    pub fn stream_count(&self) -> usize {
        self.streams.len()
    }

    /// Credit outstanding over open streams: `Σ (limit − retired)`.
    pub fn committed(&self) -> u64 {
        self.committed
    }

    /// The budget in force (`u64::MAX` without a budget): the initial
    /// credit every stream slot is promised by the transport parameters
    /// (`max_streams × initial_stream_window`) plus the growth budget, a
    /// multiple of the connection's estimated need. Never decreases.
    ///
    /// Credit beyond a stream's initial window comes out of the growth
    /// budget, slot by slot, so `committed ≤ budget` holds whatever the
    /// order of opens, reads and closes.
    pub fn budget(&self) -> u64 {
        self.config.budget.map_or(u64::MAX, |b| {
            b.limit(
                self.estimate,
                b.max_streams,
                self.config.initial_stream_window,
            )
        })
    }

    fn growth_budget(&self) -> u64 {
        self.config
            .budget
            .map_or(u64::MAX, |b| b.limit(self.estimate, 0, 0))
    }

    /// The connection's estimated need in bytes (see the type's docs).
    pub fn estimate(&self) -> u64 {
        self.estimate
    }

    /// Budget left for extending limits now.
    fn room(&self) -> u64 {
        self.growth_budget().saturating_sub(self.excess)
    }

    /// Largest stream window among open streams (may lag a shrink until
    /// the next rebalancing pass).
    pub fn largest_window(&self) -> u64 {
        self.largest_window
    }

    /// Bytes received and not yet read, all streams (the connection's
    /// `consumed − retired`).
    pub fn buffered(&self) -> u64 {
        self.conn.unretired()
    }

    /// Takes the window changes recorded since the last call.
    pub fn drain_changes(&mut self) -> std::vec::Drain<'_, WindowChange> {
        self.changes.drain(..)
    }

    fn push_change(&mut self, change: Option<WindowChange>) {
        if let Some(c) = change {
            match (c.subject, c.reason) {
                (Subject::Stream(_), _) => {
                    self.largest_window = self.largest_window.max(c.new);
                    let need = self.config.connection_floor.of_ceil(c.new);
                    self.estimate = self.estimate.max(need);
                }
                (Subject::Connection, ChangeReason::AutoTune) => {
                    self.estimate = self.estimate.max(c.new);
                }
                (Subject::Connection, _) => {}
            }
            self.changes.push(c);
        }
    }

    /// Opens a stream the peer started (call before its first data, or let
    /// [`ConnectionReceiver::on_data`] do it). Its limit starts at
    /// `initial_stream_window` (the transport parameter the peer knows);
    /// its window is seeded from the connection window, within the budget.
    ///
    /// # Errors
    /// [`Error::StreamLimit`] beyond `budget.max_streams` open streams.
    pub fn open_stream(&mut self, id: StreamId, now: Duration) -> Res<()> {
        if self.streams.contains_key(&id) {
            return Ok(());
        }
        if let Some(b) = self.config.budget
            && self.streams.len() as u64 >= b.max_streams
        {
            return Err(Error::StreamLimit(b.max_streams));
        }
        let initial = self.config.initial_stream_window;
        let mut fc = ReceiverFlowControl::new(id, initial, initial, self.config.update_fraction);
        self.committed += fc.credit();
        let room = self.room();
        // Seed from the connection-level estimate: with a budget the
        // connection window also carries floors for credit already given
        // out, which would make every new stream's seed feed the next.
        let basis = if self.config.budget.is_some() {
            self.estimate
        } else {
            self.conn.window()
        };
        let seed = self
            .config
            .seed_window(basis)
            .min(initial.saturating_add(room));
        let change = fc.raise_window(seed, ChangeReason::Seed, now);
        let seed = fc.window();
        self.largest_window = self.largest_window.max(seed);
        self.streams.insert(
            id,
            StreamEntry {
                fc,
                seed,
                retired_at_mark: 0,
                used_in_period: 0,
                passes: 0,
                last_active: now,
                queued: false,
                busy: false,
                share_since: None,
            },
        );
        self.push_change(change);
        self.cover_stream(seed, now);
        self.enqueue_if_due(id);
        Ok(())
    }

    /// A STREAM frame (or FIN) reached `end` on stream `id`, opening it if
    /// needed. Streams the stack knows are closed must not be passed here.
    ///
    /// # Errors
    /// As [`ReceiverFlowControl::on_data`] (stream) and
    /// [`ReceiverFlowControl::consume`] (connection); then nothing changed
    /// at the connection level.
    pub fn on_data(&mut self, id: StreamId, end: u64, fin: bool, now: Duration) -> Res<u64> {
        let opened = !self.streams.contains_key(&id);
        let mark = self.changes.len();
        let before = (self.conn.window(), self.largest_window, self.estimate);
        self.open_stream(id, now)?;
        let entry = self.streams.get_mut(&id).expect("opened above");
        let mut probe = entry.fc.clone();
        let result = probe
            .on_data(end, fin)
            .and_then(|new| self.conn.consume(new).map(|()| new));
        match result {
            Ok(new) => {
                if let Some(entry) = self.streams.get_mut(&id) {
                    entry.fc = probe;
                }
                // The data may bear out a *_BLOCKED received before it.
                self.enqueue_if_due(id);
                Ok(new)
            }
            Err(e) => {
                if opened {
                    // Rejected data does not open a stream.
                    if let Some(e) = self.streams.remove(&id) {
                        self.committed -= e.fc.credit();
                    }
                    self.due.retain(|d| *d != id);
                    self.changes.truncate(mark);
                    // Undo what opening did at the connection level (a
                    // window, not a limit: nothing was advertised).
                    let _ = self.conn.set_window(before.0, ChangeReason::Seed, now);
                    self.largest_window = before.1;
                    self.estimate = before.2;
                }
                Err(e)
            }
        }
    }

    /// The application read stream `id` up to `offset`. Returns the bytes
    /// newly retired.
    ///
    /// # Errors
    /// [`Error::RetiredBeyondReceived`] if `offset` passes the data received.
    pub fn retire(&mut self, id: StreamId, offset: u64) -> Res<u64> {
        let Some(entry) = self.streams.get_mut(&id) else {
            return Ok(0);
        };
        let initial = self.config.initial_stream_window;
        let before = entry.fc.credit().saturating_sub(initial);
        let first_since_pass = entry.fc.retired() == entry.retired_at_mark;
        let n = entry.fc.retire(offset)?;
        if n > 0 && first_since_pass {
            self.readers_since_pass += 1;
        }
        let after = entry.fc.credit().saturating_sub(initial);
        self.conn.retire(n)?;
        self.committed -= n;
        self.excess -= before - after;
        self.enqueue_if_due(id);
        Ok(n)
    }

    /// The peer sent DATA_BLOCKED (`None`) or STREAM_DATA_BLOCKED for `id`,
    /// blocked at `limit`: the claim counts once the data received reaches
    /// `limit` (see [`ReceiverFlowControl::blocked_received`]). Constant
    /// work per frame; unknown streams are ignored. Returns whether the
    /// frame was recorded.
    pub fn blocked_received(&mut self, id: Option<StreamId>, limit: u64) -> bool {
        match id {
            None => self.conn.blocked_received(limit),
            Some(id) => {
                let Some(e) = self.streams.get_mut(&id) else {
                    return false;
                };
                let honoured = e.fc.blocked_received(limit);
                // Blocked at a limit its share set, and the data bears it
                // out (the peer used that credit).
                let capped = honoured
                    && e.share_since.is_some_and(|from| limit >= from)
                    && e.fc.consumed() >= limit;
                if honoured {
                    self.enqueue_if_due(id);
                    // Blocked at its share: if the others stopped reading
                    // since the last pass, the share is stale.
                    self.share_blocked |= capped;
                }
                honoured
            }
        }
    }

    /// The frame carrying `limit` for `subject` was lost.
    pub fn update_lost(&mut self, subject: Subject, limit: u64) {
        match subject {
            Subject::Connection => self.conn.update_lost(limit),
            Subject::Stream(id) => {
                if let Some(e) = self.streams.get_mut(&id) {
                    e.fc.update_lost(limit);
                    self.enqueue_if_due(id);
                }
            }
        }
    }

    /// The frame carrying `limit` for `subject` was acknowledged.
    pub fn update_acked(&mut self, subject: Subject, limit: u64) {
        match subject {
            Subject::Connection => self.conn.update_acked(limit),
            Subject::Stream(id) => {
                if let Some(e) = self.streams.get_mut(&id) {
                    e.fc.update_acked(limit);
                }
            }
        }
    }

    /// Forgets stream `id` (read to the end, or reset). Bytes received but
    /// never read are released at the connection level, and its credit
    /// leaves the budget.
    pub fn close_stream(&mut self, id: StreamId) {
        if let Some(e) = self.streams.remove(&id) {
            self.due.retain(|d| *d != id);
            self.committed -= e.fc.credit();
            self.excess -=
                e.fc.credit()
                    .saturating_sub(self.config.initial_stream_window);
            let unread = e.fc.unretired();
            // Cannot fail: these bytes were consumed at the connection.
            let _ = self.conn.retire(unread);
        }
    }

    fn enqueue_if_due(&mut self, id: StreamId) {
        if let Some(e) = self.streams.get_mut(&id)
            && !e.queued
            && e.fc.update_due()
        {
            e.queued = true;
            self.due.push_back(id);
        }
    }

    /// True when [`ConnectionReceiver::next_update`] may return a frame.
    pub fn update_pending(&self) -> bool {
        !self.due.is_empty() || self.conn.update_due()
    }

    /// The next MAX_DATA / MAX_STREAM_DATA to write, if any; call in a loop
    /// while building a packet. Tuning, the connection floor, budget caps
    /// and (every `idle_rtts`) reclaim happen here.
    pub fn next_update(&mut self, now: Duration, rtt: Rtt) -> Option<UpdateFrame> {
        self.reclaim(now, rtt);
        let mut skipped = 0;
        while let Some(id) = self.due.pop_front() {
            let Some(entry) = self.streams.get_mut(&id) else {
                continue;
            };
            entry.queued = false;
            if !entry.fc.update_due() {
                continue;
            }
            let room = self.room();
            let recently_active = self.is_recently_active(id, now, rtt);
            let share = self
                .streams
                .get(&id)
                .map_or(u64::MAX, |e| self.stream_share_cap(e.seed));
            let Some(entry) = self.streams.get_mut(&id) else {
                continue;
            };
            let old = entry.fc.limit();
            let wanted = entry.fc.wanted_extension();
            let initial = self.config.initial_stream_window;
            // The stream's own promised credit it has read through costs the
            // growth budget nothing.
            let room = room.saturating_add(initial.saturating_sub(entry.fc.credit()));
            // While several streams read, none may hold more than its share
            // of the connection's need: credit granted cannot be taken
            // back, so if the others stop reading, what they hold must
            // leave room for the ones that go on (growth budget: 3 × need).
            let share_cap = entry.fc.retired().saturating_add(share);
            // A lost frame is re-sent at its old limit even with no room.
            let cap = if room == 0 && entry.fc.resend_pending() {
                old
            } else {
                old.saturating_add(room)
                    .min(share_cap)
                    .max(old)
                    .min(MAX_VARINT)
            };
            // Too little room to be worth a frame — or the room is short and
            // this stream's reader is not among those reading now: wait, so
            // credit goes to streams whose application is retiring data. The
            // step is bounded by the initial window's, so a window raised by
            // rebalancing cannot price its stream out of small extensions.
            let step = (entry
                .fc
                .update_fraction()
                .of(entry.fc.window())
                .min(initial)
                / 8)
            .max(1);
            let starved = room < wanted.min(step) || (room < wanted && !recently_active);
            if starved && !entry.fc.resend_pending() {
                entry.queued = true;
                self.due.push_back(id);
                skipped += 1;
                if skipped >= self.due.len() {
                    break;
                }
                continue;
            }
            let Some(update) = entry.fc.send_update_capped(now, rtt, &self.tuner, cap) else {
                continue;
            };
            self.committed += update.limit - old;
            entry.share_since = if update.limit == share_cap {
                entry.share_since.or(Some(update.limit))
            } else {
                None
            };
            let initial = self.config.initial_stream_window;
            let credit_before = old - entry.fc.retired();
            self.excess +=
                entry.fc.credit().saturating_sub(initial) - credit_before.saturating_sub(initial);
            let mut changes = [update.change, None, None];
            // The budget cut the window: report it as it now is.
            let granted = update.limit - entry.fc.retired();
            if granted < entry.fc.window() && update.limit == cap {
                changes[1] = entry.fc.set_window(granted, ChangeReason::Budget, now);
            }
            let window = entry.fc.window();
            for c in changes {
                self.push_change(c);
            }
            self.cover_stream(window, now);
            return Some(UpdateFrame {
                subject: Subject::Stream(id),
                limit: update.limit,
            });
        }
        let update = self.conn.send_update(now, rtt, &self.tuner)?;
        self.push_change(update.change);
        Some(UpdateFrame {
            subject: Subject::Connection,
            limit: update.limit,
        })
    }
}
