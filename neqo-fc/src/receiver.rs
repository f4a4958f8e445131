//! Receive-side flow control for one subject (RFC 9000 §4.1, §4.2, §4.5):
//! the limits we advertise and the checks on what the peer sends. Updates
//! are in `update.rs`, window growth in `tuning.rs`.

mod probe;
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
/// Invariants after every call (a failing one changes nothing):
/// - `retired ≤ consumed ≤ max_allowed ≤ 2^62 − 1`; the advertised limit
///   `max_allowed` never decreases;
/// - the window `max_active` changes only through a [`crate::Tuner`]
///   (growing, within the cap), [`ReceiverFlowControl::raise_window`] or
///   [`ReceiverFlowControl::set_window`];
/// - a *_BLOCKED makes an update due only as
///   [`ReceiverFlowControl::blocked_received`] says.
///
/// As in neqo's `fc.rs`, `consumed` is the highest offset received (summed
/// over streams for the connection); `retired` what the application read or
/// the stack released unread.
#[derive(Clone, Debug)]
pub struct ReceiverFlowControl<S> {
    subject: S,
    max_active: u64,
    max_window: u64,
    max_allowed: u64,
    consumed: u64,
    retired: u64,
    final_size: Option<u64>,
    update_fraction: Fraction,
    /// [`crate::Tuner::answers_blocked_at_once`] of the owner's tuner.
    blocked_at_once: bool,
    /// The frame carrying `max_allowed` was lost: send it again.
    resend_pending: bool,
    /// Highest unanswered *_BLOCKED limit (≤ `max_allowed`); it counts once
    /// `consumed` reaches it.
    blocked_at: Option<u64>,
    acked_limit: u64,
    /// `retired` when an update became due (`None` while none is): reads
    /// after it made the peer wait ([`crate::TuneInput::late`]).
    due_since: Option<u64>,
    /// See [`ReceiverFlowControl::updates_held_back`].
    held_back: bool,
    /// Bytes the latest retirement call released at once.
    last_read: u64,
    step: tuning::StepMarks,
    probe: probe::DelayProbe,
    /// `update_fraction × max_active`, at least 1 (kept: read per packet).
    threshold: u64,
}

impl<S: FlowSubject> ReceiverFlowControl<S> {
    /// A controller for `subject`: limit and window start at its kind's
    /// initial window (the transport parameter the peer knows).
    #[must_use]
    pub fn new(subject: S, config: &ValidConfig) -> Self {
        let initial = match subject.kind() {
            SubjectKind::Stream => config.initial_stream_window,
            SubjectKind::Connection => config.initial_connection_window,
        };
        Self::with_initial_limit(subject, config, initial)
    }

    /// As [`ReceiverFlowControl::new`], starting at `initial` (clamped to
    /// the cap). A zero limit gets the configured initial window as its
    /// window, so an update is due at once rather than never.
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
            probe: probe::DelayProbe::default(),
            threshold: config.update_fraction.of(window).max(1),
        }
    }

    /// Applies [`Tuner::answers_blocked_at_once`].
    pub(crate) fn follow<T: Tuner + ?Sized>(&mut self, tuner: &T) {
        self.blocked_at_once = tuner.answers_blocked_at_once();
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

    /// Bytes the application has read (or the stack released unread).
    pub fn retired(&self) -> u64 {
        self.retired
    }

    /// Bytes received and not read, `consumed − retired` (for a stream, gaps
    /// included: an upper bound on what is buffered).
    pub fn unretired(&self) -> u64 {
        self.consumed - self.retired
    }

    /// Credit outstanding, the most the peer may still make us buffer:
    /// `limit − retired`, or `final size − retired` once it is known.
    pub fn credit(&self) -> u64 {
        self.final_size.unwrap_or(self.max_allowed) - self.retired
    }

    /// The update fraction in force.
    pub(crate) fn update_fraction(&self) -> Fraction {
        self.update_fraction
    }

    fn target(&self) -> u64 {
        self.retired.saturating_add(self.max_active).min(MAX_VARINT)
    }

    /// `timing`: a tuning step's (RTT, interval).
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

    /// Raises the window to at least `window` (at most 2^62 − 1), e.g. for a
    /// floor or a seed.
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

    /// Sets the window up or down (for memory budgets). A smaller one only
    /// delays the next extension (RFC 9000 forbids reneging on a limit).
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
    /// Accounts `count` newly consumed bytes, the growth of one stream's
    /// highest offset (RFC 9000 §4.1: the connection limit counts offsets).
    ///
    /// # Errors
    /// [`Error::FlowControl`] (FLOW_CONTROL_ERROR) past the limit.
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

    /// `count` more bytes were read, or released unread, on some stream (a
    /// count; a stream's [`ReceiverFlowControl::retire_to`] takes an offset).
    ///
    /// # Errors
    /// [`Error::RetiredBeyondReceived`] if that passes `consumed`.
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

    /// Keeps the window ≥ `floor × stream_window`, so one stream is never
    /// connection-limited.
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

    /// A STREAM frame reached `end` (offset + length; `fin`: it carried FIN).
    /// Returns the newly consumed bytes, for the connection's
    /// [`ReceiverFlowControl::consume`].
    ///
    /// # Errors
    /// - [`Error::ValueTooLarge`] (FRAME_ENCODING_ERROR) if `end ≥ 2^62`;
    /// - [`Error::FinalSize`] (FINAL_SIZE_ERROR) past a known final size, or a
    ///   FIN that changes it or lies below data received;
    /// - [`Error::FlowControl`] (FLOW_CONTROL_ERROR) past the limit.
    pub fn on_data(&mut self, end: u64, fin: bool) -> Res<u64> {
        let new = self.check_data(end, fin)?;
        self.consumed = self.consumed.max(end);
        if fin {
            self.fix_final_size(end);
        }
        Ok(new)
    }

    /// What [`ReceiverFlowControl::on_data`] would return, changing nothing
    /// (to check the connection limit first).
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

    /// RESET_STREAM (RFC 9000 §19.4) at `final_size`, checked as a FIN
    /// (§4.5); returns the newly consumed bytes. Then release what was
    /// buffered with [`ReceiverFlowControl::retire_to`]`(final_size)`.
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

    /// The application read everything below `offset` (not a count: see
    /// [`ReceiverFlowControl::add_retired`]); returns the newly retired
    /// bytes, for the connection. A lower offset is a no-op.
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
