//! Receive-side flow control (RFC 9000 §4.1, §4.2, §4.5): the limits we
//! advertise in MAX_DATA / MAX_STREAM_DATA and the checks on what the peer
//! sends against them.

use std::time::Duration;

use crate::{
    ChangeReason, Config, Connection, Error, FlowSubject, Fraction, MAX_VARINT, Res, Rtt, StreamId,
    Subject, Tuner, WindowChange, tuner::TuneInput,
};

/// A limit to put in a MAX_DATA / MAX_STREAM_DATA frame now, and the window
/// change (if any) that the tuning step made while computing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Update {
    /// The new limit (`Maximum Data` / `Maximum Stream Data`).
    pub limit: u64,
    /// Set when the tuner grew the window at this step.
    pub change: Option<WindowChange>,
}

/// Receive-side flow control for the connection (`S = Connection`) or one
/// stream (`S = StreamId`).
///
/// Invariants, held after every call, successful or not:
/// - `retired ≤ consumed ≤ max_allowed ≤ 2^62 − 1`;
/// - `max_allowed` (the advertised limit) never decreases;
/// - the window `max_active` changes only through a [`Tuner`] (growth) or
///   an explicit [`ReceiverFlowControl::raise_window`] /
///   [`ReceiverFlowControl::set_window`];
/// - a *_BLOCKED makes an update due only once `consumed` reaches the
///   limit it names (never above `max_allowed`);
/// - a failing call changes nothing.
///
/// Names follow neqo's `fc.rs`: `consumed` is the highest offset received
/// (stream) or the sum of the streams' highest offsets (connection);
/// `retired` is what the application has read.
#[derive(Clone, Debug)]
pub struct ReceiverFlowControl<S> {
    subject: S,
    max_active: u64,
    max_allowed: u64,
    consumed: u64,
    retired: u64,
    final_size: Option<u64>,
    update_fraction: Fraction,
    /// The frame carrying `max_allowed` was lost: send it again.
    resend_pending: bool,
    /// The highest limit the peer reported being blocked at (*_BLOCKED)
    /// that no update has answered yet. It counts — extend as soon as we
    /// can — once `consumed` reaches it, i.e. once the peer has shown it
    /// really used that credit. Never above `max_allowed`.
    blocked_at: Option<u64>,
    /// Highest limit the peer has acknowledged receiving.
    acked_limit: u64,
    /// Time of the last tuning step (the last update sent).
    last_update: Option<Duration>,
    /// `retired` at the last tuning step.
    retired_at_update: u64,
    /// `consumed` at the last tuning step.
    consumed_at_update: u64,
}

impl<S: FlowSubject> ReceiverFlowControl<S> {
    /// A controller whose peer already knows `initial_limit` (the transport
    /// parameter) and whose window starts at `window` (≥ `initial_limit`
    /// makes an early update due). Values are clamped to 2^62 − 1; a zero
    /// update fraction is treated as ¼.
    #[must_use]
    pub fn new(subject: S, initial_limit: u64, window: u64, update_fraction: Fraction) -> Self {
        let update_fraction = if update_fraction.is_proper_nonzero() {
            update_fraction
        } else {
            Fraction::QUARTER
        };
        let initial_limit = initial_limit.min(MAX_VARINT);
        Self {
            subject,
            max_active: window.min(MAX_VARINT),
            max_allowed: initial_limit,
            consumed: 0,
            retired: 0,
            final_size: None,
            update_fraction,
            resend_pending: false,
            blocked_at: None,
            acked_limit: initial_limit,
            last_update: None,
            retired_at_update: 0,
            consumed_at_update: 0,
        }
    }

    /// The subject this controller limits.
    pub fn subject(&self) -> S {
        self.subject
    }

    /// The window (`max_active`): how far beyond `retired` we let the peer go.
    pub fn window(&self) -> u64 {
        self.max_active
    }

    /// The advertised limit (`max_allowed`); never decreases.
    pub fn limit(&self) -> u64 {
        self.max_allowed
    }

    /// Highest offset received (stream) / sum of them (connection).
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Bytes the application has read.
    pub fn retired(&self) -> u64 {
        self.retired
    }

    /// Bytes received but not yet read: `consumed − retired`. For a stream
    /// this counts gaps too (an upper bound on buffered bytes).
    pub fn unretired(&self) -> u64 {
        self.consumed - self.retired
    }

    /// Credit outstanding: `limit − retired`, the most the peer may make
    /// us buffer from now on.
    pub fn credit(&self) -> u64 {
        self.max_allowed - self.retired
    }

    /// Highest limit the peer acknowledged.
    pub fn acked_limit(&self) -> u64 {
        self.acked_limit
    }

    /// The update fraction in force.
    pub fn update_fraction(&self) -> Fraction {
        self.update_fraction
    }

    /// The final size, once a FIN or RESET_STREAM carried it.
    pub fn final_size(&self) -> Option<u64> {
        self.final_size
    }

    /// The limit the current window would allow: `retired + window`.
    fn target(&self) -> u64 {
        self.retired.saturating_add(self.max_active).min(MAX_VARINT)
    }

    /// True when a MAX_DATA / MAX_STREAM_DATA frame should be sent:
    /// - the frame carrying the latest limit was lost; or
    /// - the limit can be extended and either the peer reported *_BLOCKED
    ///   at a limit the data received has since reached (see
    ///   [`ReceiverFlowControl::blocked_received`]) or at least
    ///   `update_fraction × window` bytes have been retired since the limit
    ///   was set (one byte less is not enough).
    ///
    /// Never true once the stream's final size is known.
    pub fn update_due(&self) -> bool {
        if self.final_size.is_some() {
            return false;
        }
        if self.resend_pending {
            return true;
        }
        self.blocked() && self.target() >= self.max_allowed.saturating_add(self.blocked_step())
            || self.threshold_reached()
    }

    /// The peer reported *_BLOCKED at a limit that the data received has
    /// reached: its claim is borne out.
    fn blocked(&self) -> bool {
        self.blocked_at.is_some_and(|at| self.consumed >= at)
    }

    /// The smallest extension worth answering a *_BLOCKED with: an eighth
    /// of the update threshold (at least one byte). Without it a reader
    /// that reads a few bytes at a time against a blocked sender turns
    /// every read into a MAX_* / *_BLOCKED pair.
    fn blocked_step(&self) -> u64 {
        (self.update_fraction.of(self.max_active) / 8).max(1)
    }

    /// At least `update_fraction × window` bytes (and at least one) were
    /// retired since the limit was set: `retired + window − limit ≥
    /// threshold`.
    fn threshold_reached(&self) -> bool {
        let threshold = self.update_fraction.of(self.max_active).max(1);
        self.target().saturating_sub(self.max_allowed) >= threshold
    }

    /// Call when writing a MAX_DATA / MAX_STREAM_DATA frame: runs one
    /// tuning step, raises the limit to `retired + window` (never lowers
    /// it) and returns the limit to send, or `None` when no update is due.
    ///
    /// `now` is the caller's clock (any monotonic epoch); `rtt` its RFC 9002
    /// estimate. The first call only records the time: tuning needs an
    /// elapsed interval.
    pub fn send_update<T: Tuner + ?Sized>(
        &mut self,
        now: Duration,
        rtt: Rtt,
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
        now: Duration,
        rtt: Rtt,
        tuner: &T,
        max_limit: u64,
    ) -> Option<Update> {
        if !self.update_due() || (max_limit <= self.max_allowed && !self.resend_pending) {
            return None;
        }
        // Tune only once a whole update quantum (`f × window` bytes) has
        // been retired since the previous tuning step, whatever triggered
        // this update: an update that a *_BLOCKED or a lost frame triggered
        // can follow the previous one by microseconds, and one read burst
        // in such an interval would look like a rate the reader never
        // sustains. Short intervals carry their bytes and time over.
        let quantum = self.update_fraction.of(self.max_active).max(1);
        let change =
            if self.last_update.is_none() || self.retired - self.retired_at_update >= quantum {
                self.tune(now, rtt, tuner)
            } else {
                None
            };
        // Due means `target > limit` (or a resend), and the cap is above
        // the limit, so this never lowers the limit.
        self.max_allowed = self.max_allowed.max(self.target().min(max_limit));
        self.resend_pending = false;
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

    /// True while the frame carrying the current limit must be re-sent.
    pub fn resend_pending(&self) -> bool {
        self.resend_pending
    }

    /// Bytes the limit would grow by if an update were sent now without a
    /// cap: `retired + window − limit` (0 if none).
    pub fn wanted_extension(&self) -> u64 {
        self.target().saturating_sub(self.max_allowed)
    }

    fn tune<T: Tuner + ?Sized>(
        &mut self,
        now: Duration,
        rtt: Rtt,
        tuner: &T,
    ) -> Option<WindowChange> {
        let Some(last) = self.last_update.replace(now) else {
            self.retired_at_update = self.retired;
            self.consumed_at_update = self.consumed;
            return None;
        };
        let elapsed = now.saturating_sub(last);
        // Bytes that both arrived and were read in the interval: reading
        // data that waited behind a gap (after a loss) or in the buffer
        // releases many bytes at once that did not flow in this interval,
        // and must not look like a higher rate. Never more than retired.
        let retired_since =
            (self.retired - self.retired_at_update).min(self.consumed - self.consumed_at_update);
        let drained_at_limit = self.retired == self.consumed && self.consumed >= self.max_allowed;
        self.retired_at_update = self.retired;
        self.consumed_at_update = self.consumed;
        let input = TuneInput {
            kind: self.subject.kind(),
            window: self.max_active,
            retired_since_update: retired_since,
            elapsed,
            rtt,
            update_fraction: self.update_fraction,
            drained_at_limit,
        };
        // A tuner only ever grows a window (the `Tuner` contract).
        let new = tuner.tune(&input).min(MAX_VARINT).max(self.max_active);
        self.change_window(
            new,
            ChangeReason::AutoTune,
            now,
            tuner.rtt_used(rtt),
            elapsed,
        )
    }

    fn change_window(
        &mut self,
        new: u64,
        reason: ChangeReason,
        now: Duration,
        rtt: Duration,
        elapsed: Duration,
    ) -> Option<WindowChange> {
        if new == self.max_active {
            return None;
        }
        let change = WindowChange {
            subject: self.subject.subject(),
            old: self.max_active,
            new,
            reason,
            rtt,
            elapsed,
            now,
        };
        self.max_active = new;
        log::debug!("{change}");
        Some(change)
    }

    /// Raises the window to at least `window` (never lowers it), e.g. for
    /// the connection floor or a stream seed. Returns the change, if any.
    pub fn raise_window(
        &mut self,
        window: u64,
        reason: ChangeReason,
        now: Duration,
    ) -> Option<WindowChange> {
        let new = window.min(MAX_VARINT).max(self.max_active);
        self.change_window(new, reason, now, Duration::ZERO, Duration::ZERO)
    }

    /// Sets the window to `window`, up or down (for memory budgets). A
    /// smaller window never lowers the advertised limit: it only delays the
    /// next extension (RFC 9000 forbids reneging on a limit).
    pub fn set_window(
        &mut self,
        window: u64,
        reason: ChangeReason,
        now: Duration,
    ) -> Option<WindowChange> {
        self.change_window(
            window.min(MAX_VARINT),
            reason,
            now,
            Duration::ZERO,
            Duration::ZERO,
        )
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
    /// tuning steps) no sooner than one that reports honestly. The frame usually arrives after that data; if
    /// the data is still on its way (reordered, or retransmitted after a
    /// loss), the claim waits for it. A stale claim (below our limit: the
    /// sender used up an older limit) still counts, as the sender was
    /// starved for credit. Returns `false` — the frame changes nothing —
    /// for a limit above the one we advertised (no honest peer is blocked
    /// there) or once the final size is known. Constant work, so a flood
    /// of these costs the receiver nothing more.
    pub fn blocked_received(&mut self, limit: u64) -> bool {
        if self.final_size.is_some() || limit > self.max_allowed {
            return false;
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

impl ReceiverFlowControl<Connection> {
    /// A connection controller from `config`: limit and window both at
    /// `initial_connection_window`.
    #[must_use]
    pub fn connection(config: &Config) -> Self {
        Self::new(
            Connection,
            config.initial_connection_window,
            config.initial_connection_window,
            config.update_fraction,
        )
    }

    /// Accounts `count` newly consumed bytes: the increase of one stream's
    /// highest received offset (RFC 9000 §4.1: the connection limit counts
    /// offsets, not bytes read).
    ///
    /// # Errors
    /// [`Error::FlowControl`] if the total would pass the limit; nothing is
    /// accounted then.
    pub fn consume(&mut self, count: u64) -> Res<()> {
        let total = self.consumed.saturating_add(count);
        if total > self.max_allowed {
            return Err(Error::FlowControl {
                received: total,
                limit: self.max_allowed,
            });
        }
        self.consumed = total;
        Ok(())
    }

    /// The application read `count` more bytes (on any stream), or a reset
    /// stream's unread bytes were released.
    ///
    /// # Errors
    /// [`Error::RetiredBeyondReceived`] if that passes `consumed`.
    pub fn retire(&mut self, count: u64) -> Res<()> {
        let total = self.retired.saturating_add(count);
        if total > self.consumed {
            return Err(Error::RetiredBeyondReceived {
                retired: total,
                received: self.consumed,
            });
        }
        self.retired = total;
        Ok(())
    }

    /// A stream opened now: its controller, with the window seeded from
    /// this connection's window (`config.seed_window`), and the seed change
    /// when the seed exceeds the initial window. `initial_limit` is the
    /// `initial_max_stream_data_*` the peer already knows; a larger seed
    /// makes an early MAX_STREAM_DATA due.
    pub fn open_stream(
        &self,
        id: StreamId,
        initial_limit: u64,
        config: &Config,
        now: Duration,
    ) -> (ReceiverFlowControl<StreamId>, Option<WindowChange>) {
        let mut stream =
            ReceiverFlowControl::new(id, initial_limit, initial_limit, config.update_fraction);
        let change =
            stream.raise_window(config.seed_window(self.max_active), ChangeReason::Seed, now);
        (stream, change)
    }

    /// Keeps this connection's window at least `floor × stream_window`, so a
    /// single stream is never connection-limited.
    pub fn cover_stream_window(
        &mut self,
        stream_window: u64,
        floor: Fraction,
        now: Duration,
    ) -> Option<WindowChange> {
        self.raise_window(
            floor.of_ceil(stream_window),
            ChangeReason::ConnectionFloor,
            now,
        )
    }
}

impl ReceiverFlowControl<StreamId> {
    /// A STREAM frame reached `end` (offset + length; `fin` when it carried
    /// FIN). Returns the newly consumed bytes to pass to the connection's
    /// [`ReceiverFlowControl::consume`].
    ///
    /// # Errors
    /// - [`Error::ValueTooLarge`] if `end ≥ 2^62`;
    /// - [`Error::FinalSize`] past a known final size, or a FIN that
    ///   changes it or lies below data already received;
    /// - [`Error::FlowControl`] past the advertised limit.
    ///
    /// On error nothing changes.
    pub fn on_data(&mut self, end: u64, fin: bool) -> Res<u64> {
        if end > MAX_VARINT {
            return Err(Error::ValueTooLarge(end));
        }
        if fin {
            return self.set_final_size(end);
        }
        if let Some(known) = self.final_size
            && end > known
        {
            return Err(Error::FinalSize {
                known,
                received: end,
            });
        }
        if end > self.max_allowed {
            return Err(Error::FlowControl {
                received: end,
                limit: self.max_allowed,
            });
        }
        let new = end.saturating_sub(self.consumed);
        self.consumed = self.consumed.max(end);
        Ok(new)
    }

    /// The peer fixed the final size (FIN or RESET_STREAM, RFC 9000 §4.5).
    /// Returns the newly consumed bytes for the connection.
    ///
    /// # Errors
    /// As [`ReceiverFlowControl::on_data`]; a repeated identical final size
    /// is fine.
    pub fn set_final_size(&mut self, size: u64) -> Res<u64> {
        if size > MAX_VARINT {
            return Err(Error::ValueTooLarge(size));
        }
        if let Some(known) = self.final_size {
            if known != size {
                return Err(Error::FinalSize {
                    known,
                    received: size,
                });
            }
            return Ok(0);
        }
        if size < self.consumed {
            return Err(Error::FinalSize {
                known: self.consumed,
                received: size,
            });
        }
        if size > self.max_allowed {
            return Err(Error::FlowControl {
                received: size,
                limit: self.max_allowed,
            });
        }
        let new = size - self.consumed;
        self.consumed = size;
        self.final_size = Some(size);
        self.resend_pending = false;
        self.blocked_at = None;
        Ok(new)
    }

    /// The application has read everything below `offset`. Returns the
    /// newly retired bytes, for the connection's
    /// [`ReceiverFlowControl::retire`]. A smaller offset than before is a
    /// no-op.
    ///
    /// # Errors
    /// [`Error::RetiredBeyondReceived`] if `offset > consumed`.
    pub fn retire(&mut self, offset: u64) -> Res<u64> {
        if offset > self.consumed {
            return Err(Error::RetiredBeyondReceived {
                retired: offset,
                received: self.consumed,
            });
        }
        let new = offset.saturating_sub(self.retired);
        self.retired = self.retired.max(offset);
        Ok(new)
    }

    /// The subject as a [`Subject`] value.
    pub fn id(&self) -> StreamId {
        self.subject
    }
}

/// A stream's subject for reports.
impl From<StreamId> for Subject {
    fn from(id: StreamId) -> Self {
        Self::Stream(id)
    }
}
