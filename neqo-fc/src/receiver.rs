//! Receive-side flow control for one subject (RFC 9000 §4.1, §4.2, §4.5):
//! the limits we advertise in MAX_DATA / MAX_STREAM_DATA and the checks on
//! what the peer sends against them. When an update is due and what it
//! carries is in `receiver/update.rs`; the tuning step's bookkeeping in
//! `receiver/tuning.rs`.

mod tuning;
mod update;

use std::time::{Duration, Instant};

use crate::{
    ChangeReason, Connection, Error, FlowSubject, Fraction, MAX_VARINT, Res, StreamId, SubjectKind,
    ValidConfig, WindowChange,
};

pub use tuning::{ExcessTuner, TuneInput, Tuner};
pub use update::Update;

/// Receive-side flow control for the connection (`S = Connection`) or one
/// stream (`S = StreamId`).
///
/// Invariants, held after every call, successful or not:
/// - `retired ≤ consumed ≤ max_allowed ≤ 2^62 − 1`;
/// - `max_allowed` (the advertised limit) never decreases;
/// - the window `max_active` changes only through a [`crate::Tuner`]
///   (growth, clamped to the configured cap) or an explicit
///   [`ReceiverFlowControl::raise_window`] /
///   [`ReceiverFlowControl::set_window`];
/// - a *_BLOCKED makes an update due only once `consumed` reaches the
///   limit it names (never above `max_allowed`), or, with
///   a tuner that [answers at once](crate::Tuner::answers_blocked_at_once),
///   only if something was retired since the
///   limit was set;
/// - a failing call changes nothing.
///
/// Names follow neqo's `fc.rs`: `consumed` is the highest offset received
/// (stream) or the sum of the streams' highest offsets (connection);
/// `retired` is what the application has read (or what the stack released
/// unread, after a reset or once it stopped reading).
#[derive(Clone, Debug)]
pub struct ReceiverFlowControl<S> {
    subject: S,
    max_active: u64,
    /// The configured cap for this kind; tuners never grow past it.
    max_window: u64,
    max_allowed: u64,
    consumed: u64,
    retired: u64,
    final_size: Option<u64>,
    update_fraction: Fraction,
    /// A *_BLOCKED makes an update due at once
    /// ([`crate::Tuner::answers_blocked_at_once`], set by the owner of the
    /// tuner).
    blocked_at_once: bool,
    /// The frame carrying `max_allowed` was lost: send it again.
    resend_pending: bool,
    /// The highest limit the peer reported being blocked at (*_BLOCKED)
    /// that no update has answered yet. It counts — extend as soon as we
    /// can — once `consumed` reaches it, i.e. once the peer has shown it
    /// really used that credit. Never above `max_allowed`.
    blocked_at: Option<u64>,
    /// Highest limit the peer has acknowledged receiving.
    acked_limit: u64,
    /// `retired` when a retirement first made an update due after the
    /// last one was written (`None` while none is due): what is retired
    /// from then until the stack writes the frame was read while the
    /// peer waited for credit (see [`crate::TuneInput::late`]).
    due_since: Option<u64>,
    /// The stack once wrote an update a whole update threshold after it
    /// became due: *_BLOCKED no longer makes an update due early (see
    /// [`ReceiverFlowControl::update_due`]). Never cleared; never when
    /// answering *_BLOCKED at once.
    held_back: bool,
    /// Bytes the latest retirement call released at once.
    last_read: u64,
    /// Where the previous tuning step left off.
    step: tuning::StepMarks,
    /// `update_fraction × max_active`, at least 1: the bytes to retire
    /// before an update is due (kept with the window, as it is read on
    /// every packet).
    threshold: u64,
}

impl<S: FlowSubject> ReceiverFlowControl<S> {
    /// A controller for `subject` from `config`: the advertised limit and
    /// the window both start at the initial window for its kind
    /// (`initial_stream_window` / `initial_connection_window`, the
    /// transport parameters the peer already knows), capped by
    /// `max_stream_window` / `max_connection_window`.
    #[must_use]
    pub fn new(subject: S, config: &ValidConfig) -> Self {
        let initial = match subject.kind() {
            SubjectKind::Stream => config.initial_stream_window,
            SubjectKind::Connection => config.initial_connection_window,
        };
        Self::with_initial_limit(subject, config, initial)
    }

    /// As [`ReceiverFlowControl::new`] with the advertised limit and the
    /// window starting at `initial` instead of the configured initial
    /// window (for a stack that advertises different
    /// `initial_max_stream_data_*` per stream type). Clamped to the cap
    /// for the subject's kind. A zero limit (a type the stack opens with
    /// no credit) gets the configured initial window as its window, so an
    /// update is due at once rather than never.
    #[must_use]
    pub(crate) fn with_initial_limit(subject: S, config: &ValidConfig, initial: u64) -> Self {
        let (configured, max_window) = match subject.kind() {
            SubjectKind::Stream => (config.initial_stream_window, config.max_stream_window),
            SubjectKind::Connection => (
                config.initial_connection_window,
                config.max_connection_window,
            ),
        };
        let initial = initial.min(max_window);
        let window = if initial == 0 { configured } else { initial };
        Self {
            subject,
            max_active: window,
            max_window,
            max_allowed: initial,
            consumed: 0,
            retired: 0,
            final_size: None,
            update_fraction: config.update_fraction,
            blocked_at_once: false,
            resend_pending: false,
            blocked_at: None,
            acked_limit: initial,
            due_since: None,
            held_back: false,
            last_read: 0,
            step: tuning::StepMarks::default(),
            threshold: config.update_fraction.of(window).max(1),
        }
    }

    /// Applies the rules `tuner` sets beyond the window it computes
    /// ([`Tuner::answers_blocked_at_once`]).
    pub(crate) fn follow<T: Tuner + ?Sized>(&mut self, tuner: &T) {
        self.blocked_at_once = tuner.answers_blocked_at_once();
    }

    /// The subject this controller limits.
    pub fn subject(&self) -> S {
        self.subject
    }

    /// The window (`max_active`): how far beyond `retired` we let the peer go.
    pub fn window(&self) -> u64 {
        self.max_active
    }

    /// The cap a tuner may grow the window to.
    pub fn max_window(&self) -> u64 {
        self.max_window
    }

    /// The advertised limit (`max_allowed`); never decreases.
    pub fn limit(&self) -> u64 {
        self.max_allowed
    }

    /// Highest offset received (stream) / sum of them (connection).
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Bytes the application has read (or the stack released unread).
    pub fn retired(&self) -> u64 {
        self.retired
    }

    /// Bytes received but not yet read: `consumed − retired`. For a stream
    /// this counts gaps too (an upper bound on buffered bytes).
    pub fn unretired(&self) -> u64 {
        self.consumed - self.retired
    }

    /// Credit outstanding: `limit − retired`, or `final size − retired`
    /// once the final size is known — the most the peer may make us buffer
    /// from now on.
    pub fn credit(&self) -> u64 {
        self.final_size.unwrap_or(self.max_allowed) - self.retired
    }

    /// Highest limit the peer acknowledged.
    pub fn acked_limit(&self) -> u64 {
        self.acked_limit
    }

    /// The update fraction in force.
    pub fn update_fraction(&self) -> Fraction {
        self.update_fraction
    }

    /// The limit the current window would allow: `retired + window`.
    fn target(&self) -> u64 {
        self.retired.saturating_add(self.max_active).min(MAX_VARINT)
    }

    /// Sets the window to `new` and reports the change; `timing` is the
    /// tuning step's (RTT, interval), where one made it.
    pub(crate) fn change_window(
        &mut self,
        new: u64,
        reason: ChangeReason,
        now: Option<Instant>,
        timing: Option<(Duration, Duration)>,
    ) -> Option<WindowChange> {
        if new == self.max_active {
            return None;
        }
        let change = WindowChange {
            subject: self.subject.subject(),
            old: self.max_active,
            new,
            reason,
            rtt: timing.map(|(rtt, _)| rtt),
            elapsed: timing.map(|(_, elapsed)| elapsed),
            now,
        };
        self.max_active = new;
        self.threshold = self.update_fraction.of(new).max(1);
        log::debug!("{change}");
        Some(change)
    }

    /// Raises the window to at least `window` (never lowers it; at most
    /// 2^62 − 1), e.g. for the connection floor or a stream seed. Returns
    /// the change, if any.
    pub fn raise_window(&mut self, window: u64, reason: ChangeReason) -> Option<WindowChange> {
        self.raise_window_at(window, reason, None)
    }

    pub(crate) fn raise_window_at(
        &mut self,
        window: u64,
        reason: ChangeReason,
        now: Option<Instant>,
    ) -> Option<WindowChange> {
        let new = window.min(MAX_VARINT).max(self.max_active);
        self.change_window(new, reason, now, None)
    }

    /// Sets the window to `window`, up or down (for memory budgets). A
    /// smaller window never lowers the advertised limit: it only delays the
    /// next extension (RFC 9000 forbids reneging on a limit).
    pub fn set_window(&mut self, window: u64, reason: ChangeReason) -> Option<WindowChange> {
        self.set_window_at(window, reason, None)
    }

    pub(crate) fn set_window_at(
        &mut self,
        window: u64,
        reason: ChangeReason,
        now: Option<Instant>,
    ) -> Option<WindowChange> {
        self.change_window(window.min(MAX_VARINT), reason, now, None)
    }
}

impl ReceiverFlowControl<Connection> {
    /// Accounts `count` newly consumed bytes: the increase of one stream's
    /// highest received offset (RFC 9000 §4.1: the connection limit counts
    /// offsets, not bytes read).
    ///
    /// # Errors
    /// [`Error::FlowControl`] if the total would pass the limit; nothing is
    /// accounted then.
    pub fn consume(&mut self, count: u64) -> Res<()> {
        self.check_consume(count)?;
        self.consumed += count;
        Ok(())
    }

    /// Whether [`ReceiverFlowControl::consume`] of `count` would succeed.
    ///
    /// # Errors
    /// As [`ReceiverFlowControl::consume`].
    pub fn check_consume(&self, count: u64) -> Res<()> {
        let total = self.consumed.saturating_add(count);
        if total > self.max_allowed {
            return Err(Error::FlowControl {
                received: total,
                limit: self.max_allowed,
            });
        }
        Ok(())
    }

    /// `count` more bytes were read on some stream, or released unread (a
    /// reset stream, a stream the application stopped reading). A count,
    /// unlike a stream's [`ReceiverFlowControl::retire_to`], which takes an
    /// offset.
    ///
    /// # Errors
    /// [`Error::RetiredBeyondReceived`] if that passes `consumed`; nothing
    /// changes then.
    pub fn add_retired(&mut self, count: u64) -> Res<()> {
        let total = self.retired.saturating_add(count);
        if total > self.consumed {
            return Err(Error::RetiredBeyondReceived {
                retired: total,
                received: self.consumed,
            });
        }
        self.retired = total;
        self.last_read = count;
        self.note_due();
        Ok(())
    }

    /// Keeps this connection's window at least `floor × stream_window`, so a
    /// single stream is never connection-limited.
    pub fn cover_stream_window(
        &mut self,
        stream_window: u64,
        floor: Fraction,
    ) -> Option<WindowChange> {
        self.raise_window(floor.of_ceil(stream_window), ChangeReason::ConnectionFloor)
    }
}

impl ReceiverFlowControl<StreamId> {
    /// The stream this controller limits.
    pub fn id(&self) -> StreamId {
        self.subject
    }

    /// The final size, once a FIN or RESET_STREAM carried it.
    pub fn final_size(&self) -> Option<u64> {
        self.final_size
    }

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
        let new = self.check_data(end, fin)?;
        self.consumed = self.consumed.max(end);
        if fin {
            self.fix_final_size(end);
        }
        Ok(new)
    }

    /// What [`ReceiverFlowControl::on_data`] would return, without
    /// changing anything (to check the connection limit first).
    ///
    /// # Errors
    /// As [`ReceiverFlowControl::on_data`].
    pub fn check_data(&self, end: u64, fin: bool) -> Res<u64> {
        if end > MAX_VARINT {
            return Err(Error::ValueTooLarge(end));
        }
        match self.final_size {
            Some(known) if (fin && end != known) || end > known => {
                return Err(Error::FinalSize {
                    known,
                    received: end,
                });
            }
            None if fin && end < self.consumed => {
                return Err(Error::FinalSize {
                    known: self.consumed,
                    received: end,
                });
            }
            _ => {}
        }
        if end > self.max_allowed {
            return Err(Error::FlowControl {
                received: end,
                limit: self.max_allowed,
            });
        }
        Ok(end.saturating_sub(self.consumed))
    }

    /// The peer reset the stream (RESET_STREAM, RFC 9000 §19.4) with
    /// `final_size`: the same checks as a FIN (§4.5). Returns the newly
    /// consumed bytes for the connection. The stack then discards what it
    /// buffered and releases it with [`ReceiverFlowControl::retire_to`]
    /// `(final_size)`.
    ///
    /// # Errors
    /// As [`ReceiverFlowControl::on_data`] with `fin`.
    pub fn reset_received(&mut self, final_size: u64) -> Res<u64> {
        self.on_data(final_size, true)
    }

    fn fix_final_size(&mut self, size: u64) {
        self.final_size = Some(size);
        self.resend_pending = false;
        self.blocked_at = None;
    }

    /// The application has read everything below `offset` (an offset, not
    /// a count: see the connection's [`ReceiverFlowControl::add_retired`]).
    /// Returns the newly retired bytes, for the connection. An offset at
    /// or below the current one is a no-op.
    ///
    /// # Errors
    /// [`Error::RetiredBeyondReceived`] if `offset > consumed`.
    pub fn retire_to(&mut self, offset: u64) -> Res<u64> {
        if offset > self.consumed {
            return Err(Error::RetiredBeyondReceived {
                retired: offset,
                received: self.consumed,
            });
        }
        let new = offset.saturating_sub(self.retired);
        self.retired = self.retired.max(offset);
        if new > 0 {
            self.last_read = new;
        }
        self.note_due();
        Ok(new)
    }
}
