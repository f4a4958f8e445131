//! The connection's receive-side policy for a stack that owns its streams'
//! controllers (neqo and quinn keep one inside each receive stream): the
//! connection controller, seeding, the connection floor and the memory
//! budget, with every stream passed in by reference. [`crate::ConnectionReceiver`]
//! wraps it for stacks that would rather let the crate own the streams.

mod budget;
mod stream;

use std::time::Instant;

pub use budget::Budget;
use budget::Ledger;
pub use stream::StreamReceiver;

/// The least credit a stream update answering a *_BLOCKED carries while
/// the path holds a standing queue (16 KiB, about eleven 1,500-byte
/// datagrams): each answer costs the peer a packet that its credit ends
/// short and a new *_BLOCKED, and the queue keeps the link busy until a
/// larger answer arrives at the update threshold.
pub const MIN_BLOCKED_ANSWER: u64 = 16 << 10;

use crate::{
    ChangeReason, Connection, Error, ExcessTuner, MAX_VARINT, ReceiverFlowControl, Res, Rtt,
    StreamId, Subject, Tuner, ValidConfig, WindowChange, change::ChangeLog,
};

/// The receive side of one connection, minus the ownership of its streams.
///
/// Invariants after every call:
/// - every rule of [`ReceiverFlowControl`] (RFC 9000 §4), for the
///   connection and for each [`StreamReceiver`] it opened;
/// - data counts against the connection limit exactly once, when a
///   stream's highest offset (or final size) grows;
/// - with a [`Budget`](crate::Budget): the credit outstanding summed over
///   open streams, [`ConnectionFlow::committed`] `= Σ (limit − retired)`,
///   never exceeds [`ConnectionFlow::budget`] — credit is only extended
///   within it, and never reneged (limits never decrease);
/// - the connection window stays ≥ `connection_floor × largest stream
///   window` (a floor of 0, allowed only without a budget, leaves it to
///   its own tuning) and, with a budget, ≥ `min(committed, parked + credit
///   beyond the promises + estimate) / (1 − update_fraction)` (within an
///   update threshold between window updates), so neither one stream nor
///   data parked in slow streams makes the connection limit block the
///   others, while promises streams have not used are backed only up to
///   one estimated need;
/// - windows grow only from bytes the application retired, and never past
///   the configured caps (the connection floor may pass
///   `max_connection_window` to cover credit already given; the budget
///   bounds memory then).
///
/// New streams start at `max(initial, seed_fraction × the connection's
/// estimated need)` (within the budget); a stream opened before its first
/// byte (our own request) that the budget left short gets the rest as
/// room frees, until that byte arrives. With a budget, a rebalancing pass
/// runs on a timer — once per smoothed RTT, a quarter RTT early when a
/// stream reports *_BLOCKED at a stale share: the stack arms it from
/// [`ConnectionFlow::next_timeout`] and calls
/// [`ConnectionFlow::on_timeout`] when it fires (its docs say what the
/// pass does).
///
/// Every window change, whichever call made it, is kept for
/// [`ConnectionFlow::drain_changes`] (reasons: auto-tune, seed, connection
/// floor, budget, reclaim).
#[derive(Debug)]
pub struct ConnectionFlow<T = ExcessTuner> {
    config: ValidConfig,
    tuner: T,
    conn: ReceiverFlowControl<Connection>,
    ledger: Ledger,
    /// Largest stream window among open streams (may lag a shrink until
    /// the next rebalancing pass).
    largest_window: u64,
    /// The connection's need: the largest of the initial connection
    /// window, `connection_floor ×` any stream window, any auto-tuned
    /// connection window, and `connection_floor ×` the bytes both received
    /// and retired in one RTT (measured by the rebalancing pass). Never
    /// decreases; seeds and the growth budget are fractions and multiples
    /// of it.
    estimate: u64,
    /// The part of `estimate` that was measured or granted, not assumed:
    /// the largest of `connection_floor ×` any stream window, any
    /// auto-tuned connection window and `connection_floor ×` the bytes
    /// moved in one RTT (0 until one of those happens). The initial
    /// connection window is a guess made before any data flowed; seeds
    /// may spend it, but the rebalancing pass raises busy streams only to
    /// shares of what was seen.
    measured: u64,
    pass: budget::PassState,
    /// Bytes received and unread (the connection's `unretired`) past
    /// which arriving data checks the credit floor again (with a budget).
    /// Set at every cover, so that until data passes it the floor stays
    /// within an update threshold of the connection window; one compare
    /// per packet instead of the floor's arithmetic.
    parked_mark: u64,
    changes: ChangeLog,
}

/// Why [`ConnectionFlow::stream_update`] wrote no frame for a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hold {
    /// No update is due.
    NotDue,
    /// The budget has too little room: the update goes once the growth
    /// room reaches this many bytes (or the stream itself changes).
    Room(u64),
    /// The stream's share, or the *_BLOCKED answer rule: it goes once the
    /// stream changes or a rebalancing pass runs.
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

    /// The tuner.
    pub fn tuner(&self) -> &T {
        &self.tuner
    }

    /// The connection-level controller.
    pub fn connection(&self) -> &ReceiverFlowControl<Connection> {
        &self.conn
    }

    /// Streams opened and not yet closed.
    pub fn open_streams(&self) -> u64 {
        self.ledger.open
    }

    /// Credit outstanding over open streams: `Σ (limit − retired)`; at most
    /// 2^62 − 1.
    pub fn committed(&self) -> u64 {
        self.ledger.committed
    }

    /// The budget in force (`u64::MAX` without a budget): the initial
    /// credit every open stream was promised by the transport parameters
    /// plus the growth budget, a multiple of the connection's estimated
    /// need. Credit beyond a stream's initial limit comes out of the
    /// growth budget, so `committed ≤ budget` holds whatever the order of
    /// opens, reads and closes.
    pub fn budget(&self) -> u64 {
        self.growth_budget().saturating_add(self.ledger.promised)
    }

    fn growth_budget(&self) -> u64 {
        self.config
            .budget
            .map_or(u64::MAX, |b| b.multiple.of(self.estimate).min(b.ceiling))
    }

    /// Growth budget left for extending limits now (`u64::MAX` without a
    /// budget): a stream held with [`Hold::Room`] goes through once this
    /// reaches its need.
    pub(crate) fn room(&self) -> u64 {
        self.growth_budget()
            .saturating_sub(self.ledger.beyond_initial)
    }

    /// The connection's estimated need in bytes: the largest of the
    /// initial connection window, `connection_floor ×` any stream window
    /// a tuning step asked for, any tuned connection window, and
    /// `connection_floor ×` the bytes both received and read in one RTT.
    /// Never decreases; seeds are fractions of it and the growth budget a
    /// multiple.
    pub fn estimate(&self) -> u64 {
        self.estimate
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

    /// Takes the window changes recorded since the last call (at most
    /// [`crate::MAX_PENDING_CHANGES`]: older ones were dropped).
    pub fn drain_changes(&mut self) -> std::collections::vec_deque::Drain<'_, WindowChange> {
        self.changes.drain()
    }

    /// Window changes dropped, over the connection's life, because more
    /// than [`crate::MAX_PENDING_CHANGES`] were waiting to be drained.
    pub fn dropped_changes(&self) -> u64 {
        self.changes.dropped()
    }

    /// A need seen (a window granted, a rate measured): the estimate and
    /// its measured part never decrease.
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

    /// Opens stream `id`'s receive side (the stack calls this when the
    /// peer's first frame for it arrives, or when it opens a bidirectional
    /// stream itself). Its limit starts at `initial_stream_window` (the
    /// transport parameter the peer knows); its window is seeded from the
    /// connection's estimated need, within the budget — a seed above the
    /// initial window makes an early MAX_STREAM_DATA due. Takes no time:
    /// the seed's [`WindowChange`] carries none.
    ///
    /// # Errors
    /// [`Error::StreamLimit`] when [`crate::Config::max_open_streams`]
    /// streams are open already (a stack that enforces its MAX_STREAMS
    /// limits never sees it).
    pub fn open_stream(&mut self, id: StreamId) -> Res<StreamReceiver> {
        self.open_stream_with_limit(id, self.config.initial_stream_window)
    }

    /// As [`ConnectionFlow::open_stream`], for a stack that advertises a
    /// different `initial_max_stream_data_*` for this stream's type
    /// (bidirectional local or remote, unidirectional): its limit starts at
    /// `initial_limit`.
    ///
    /// # Errors
    /// As [`ConnectionFlow::open_stream`], and
    /// [`Error::InitialLimitAboveMax`] if `initial_limit` exceeds
    /// `max_stream_window` (advertise at most that).
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
        self.ledger.open(fc.credit(), initial_limit);
        // Seed from the connection-level estimate: with a budget the
        // connection window also carries floors for credit already given
        // out, which would make every new stream's seed feed the next.
        let basis = if self.config.budget.is_some() {
            self.estimate
        } else {
            self.conn.window()
        };
        let wanted = self.config.seed_for(basis, initial_limit);
        let seed = wanted.min(initial_limit.saturating_add(self.room()));
        let change = fc.raise_window(seed, ChangeReason::Seed);
        let seed = fc.window();
        let owed_seed = if wanted > seed { wanted } else { 0 };
        self.push_change(change);
        self.cover_stream(seed, None);
        Ok(StreamReceiver {
            fc,
            initial: initial_limit,
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

    /// A STREAM frame reached `end` on stream `s` (`fin` when it carried
    /// FIN): checks and accounts it on the stream and the connection.
    /// Returns the newly consumed bytes. On a stream the application
    /// stopped reading, the data is released at once.
    ///
    /// # Errors
    /// As [`ReceiverFlowControl::on_data`] (stream) and
    /// [`ReceiverFlowControl::consume`] (connection); nothing changes then.
    pub fn on_data(&mut self, s: &mut StreamReceiver, end: u64, fin: bool) -> Res<u64> {
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

    /// The peer reset stream `s` with `final_size` (RESET_STREAM): the
    /// final size counts against the connection limit (RFC 9000 §4.5)
    /// and everything unread is released, as the stack discards it.
    /// Returns the newly consumed bytes.
    ///
    /// # Errors
    /// As [`ConnectionFlow::on_data`] with `fin`.
    pub fn reset_received(&mut self, s: &mut StreamReceiver, final_size: u64) -> Res<u64> {
        let was_discarding = std::mem::replace(&mut s.discarding, true);
        let result = self.on_data(s, final_size, true);
        if result.is_err() {
            s.discarding = was_discarding;
        }
        result
    }

    /// The application read stream `s` up to `offset` (an offset, not a
    /// count). Returns the bytes newly retired.
    ///
    /// # Errors
    /// [`Error::RetiredBeyondReceived`] if `offset` passes the data
    /// received; nothing changes then.
    pub fn retire_to(&mut self, s: &mut StreamReceiver, offset: u64) -> Res<u64> {
        let before = s.fc.credit();
        let first_since_pass = s.fc.retired() == s.retired_at_mark;
        let n = s.fc.retire_to(offset)?;
        // Cannot fail: the stream's retired ≤ consumed, and the connection
        // counted every consumed byte.
        self.conn.add_retired(n)?;
        self.ledger.change(before, s.fc.credit(), s.initial);
        if n > 0 && first_since_pass {
            self.pass.readers_since_pass += 1;
        }
        Ok(n)
    }

    /// The application will not read stream `s` any more (the stack sends
    /// STOP_SENDING): what it holds is released now, and what still
    /// arrives is counted and released as it comes, until the final size
    /// is known and the stack closes the stream.
    pub fn stop_reading(&mut self, s: &mut StreamReceiver) {
        s.discarding = true;
        let all = s.fc.consumed();
        // Cannot fail: `all` is what the stream received.
        let _ = self.retire_to(s, all);
    }

    /// The stack is done with stream `s`: bytes received but never read
    /// are released at the connection level, and its credit leaves the
    /// budget. Close a stream once its final size is known (read to the
    /// end, or reset); one closed before that loses the count of what the
    /// peer still sends on it — call [`ConnectionFlow::stop_reading`] and
    /// keep it until then ([`crate::ConnectionReceiver`] does).
    pub fn close_stream(&mut self, s: StreamReceiver) {
        self.ledger.close(s.fc.credit(), s.initial);
        // Cannot fail: these bytes were consumed at the connection.
        let _ = self.conn.add_retired(s.fc.unretired());
    }

    /// The peer sent STREAM_DATA_BLOCKED for `s`, blocked at `limit` (see
    /// [`ReceiverFlowControl::blocked_received`]). Returns whether the
    /// frame was recorded; constant work per frame.
    pub fn stream_blocked_received(&mut self, s: &mut StreamReceiver, limit: u64) -> bool {
        let honoured = s.fc.blocked_received(limit);
        // Blocked at a limit its share set, and the data bears it out
        // (the peer used that credit): if the others stopped reading since
        // the last pass, the share is stale.
        self.pass.share_blocked |=
            honoured && s.share_since.is_some_and(|from| limit >= from) && s.fc.consumed() >= limit;
        honoured
    }

    /// The peer sent DATA_BLOCKED at `limit`. Returns whether it was
    /// recorded.
    pub fn data_blocked_received(&mut self, limit: u64) -> bool {
        self.conn.blocked_received(limit)
    }

    /// The MAX_STREAM_DATA limit to write for `s` now, if one is due and
    /// the budget lets it through: tuning, the stream's share of the
    /// budget, the connection floor. `None` when nothing is due, while
    /// the budget holds the stream back (ask again later: credit goes
    /// first to streams whose application is reading), or while a
    /// *_BLOCKED answer would carry less than [`MIN_BLOCKED_ANSWER`]
    /// behind a standing queue (it comes at the update threshold).
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
        self.arm_timer(now, rtt);
        if !s.fc.update_due() {
            return Err(Hold::NotDue);
        }
        let initial = s.initial;
        let old = s.fc.limit();
        let credit_before = s.fc.credit();
        let wanted = s.fc.wanted_extension();
        // The stream's own promised credit it has read through costs the
        // growth budget nothing.
        let room = self
            .room()
            .saturating_add(initial.saturating_sub(credit_before));
        // While several streams read, none may hold more than its share of
        // the connection's need: credit granted cannot be taken back, so
        // if the others stop reading, what they hold must leave room for
        // the ones that go on (growth budget: 3 × need).
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
        // Too little room to be worth a frame — or the room is short and
        // this stream's reader is not among those reading now: wait, so
        // credit goes to streams whose application is retiring data. The
        // step is bounded by the initial window's, so a window raised by
        // rebalancing cannot price its stream out of small extensions.
        // A stream whose application read all it received while its peer
        // used all its credit is waiting on us alone: its reader cannot
        // look active again until it gets credit, so it is never held back
        // for being idle (the room that frees goes to it as to a reader).
        let step = (s.fc.update_fraction().of(s.fc.window()).min(initial) / 8).max(1);
        let waiting_on_us = s.fc.unretired() == 0 && s.fc.consumed() >= old;
        let needed = if waiting_on_us || s.recently_active(now, rtt) {
            wanted.min(step)
        } else {
            wanted
        };
        if room < needed && !s.fc.resend_pending() {
            // Growth room that would let it through (its own read-through
            // promise is counted in `room` already).
            let own = room - self.room();
            return Err(Hold::Room(needed - own));
        }
        // An answer to a *_BLOCKED, before the update threshold, that
        // would carry less than [`MIN_BLOCKED_ANSWER`] while the path
        // holds a standing queue: wait for the threshold. The queue keeps
        // the link busy longer than the answer takes to arrive, so it
        // gains nothing, and each one costs the peer a short packet and
        // another *_BLOCKED. Windows of 512 KiB and more answer with at
        // least that anyway (an eighth of the threshold), so one stream at
        // its seed never waits here.
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
        // The budget cut the window: report it as it now is, as one
        // change with the tuning step's inputs. The need the step saw still
        // counts toward the estimate; the connection floor covers only the
        // window in force.
        let granted = s.fc.credit();
        if granted < s.fc.window() && update.limit == cap {
            if s.fc.consumed() == 0 {
                // Nothing arrived yet (our own request): the pass gives the
                // rest of its seed as room frees.
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

    /// The stack's application set stream `s`'s window (e.g. neqo's
    /// `set_stream_max_data`): up or down, at most `max_stream_window`.
    /// Limits already advertised stay; a larger window makes an update due
    /// once the update threshold is met. Returns the window in force.
    pub fn set_stream_window(&mut self, s: &mut StreamReceiver, window: u64) -> u64 {
        let window = window.clamp(1, self.config.max_stream_window);
        let change = s.fc.set_window(window, ChangeReason::Application);
        self.push_change(change);
        self.cover_stream(window, None);
        s.fc.window()
    }

    /// The stack's application set the connection window (e.g. quinn's
    /// `set_receive_window`): up or down, at most `max_connection_window`
    /// and never below the floor that covers the stream windows. Limits
    /// already advertised stay; a larger window makes MAX_DATA due once
    /// the update threshold is met. Tuning continues from the window set.
    /// Returns the window in force.
    pub fn set_connection_window(&mut self, window: u64) -> u64 {
        let window = window.clamp(1, self.config.max_connection_window);
        let change = self.conn.set_window(window, ChangeReason::Application);
        self.push_change(change);
        self.cover_stream(self.largest_window, None);
        self.conn.window()
    }

    /// True when a MAX_DATA is due.
    pub fn connection_update_due(&self) -> bool {
        self.conn.update_due()
    }

    /// The MAX_DATA limit to write now, if one is due (tuning the
    /// connection window).
    pub fn connection_update(&mut self, now: Instant, rtt: Option<Rtt>) -> Option<u64> {
        self.arm_timer(now, rtt);
        let budget = self.config.budget.is_some();
        if budget {
            // Bytes parked since the last cover: the limit written now
            // covers them.
            self.cover_stream(self.largest_window, Some(now));
        }
        let update = self.conn.send_update(now, rtt, &self.tuner)?;
        let tuned = update.change.is_some();
        self.push_change(update.change);
        if tuned && budget {
            // The tuned window raised the estimate, and with it the
            // credit the connection covers.
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
