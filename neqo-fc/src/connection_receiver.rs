//! The receive side of one connection, owning every stream's controller:
//! [`ConnectionFlow`] plus the streams themselves, the MAX_STREAMS limits
//! and the queue of streams with an update due — for stacks that would
//! rather not keep the controllers inside their own stream objects.

use std::{
    collections::{BTreeMap, VecDeque},
    time::Instant,
};

use crate::{
    Connection, ConnectionFlow, Direction, Error, ExcessTuner, ReceiverFlowControl, Res, Role, Rtt,
    StreamId, StreamReceiver, Tuner, ValidConfig, WindowChange, stream_limits::RemoteStreamLimit,
};

/// One MAX_* frame to write now (or that was lost or acknowledged).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpdateFrame {
    /// MAX_DATA (RFC 9000 §19.9).
    MaxData(u64),
    /// MAX_STREAM_DATA (§19.10).
    MaxStreamData {
        /// The stream.
        id: StreamId,
        /// Maximum Stream Data.
        limit: u64,
    },
    /// MAX_STREAMS (§19.11) for the peer's streams of one direction.
    MaxStreams {
        /// Bidirectional (frame type 0x12) or unidirectional (0x13).
        direction: Direction,
        /// Maximum Streams.
        limit: u64,
    },
}

impl UpdateFrame {
    /// The value the frame carries.
    #[must_use]
    pub const fn limit(&self) -> u64 {
        match *self {
            Self::MaxData(limit)
            | Self::MaxStreamData { limit, .. }
            | Self::MaxStreams { limit, .. } => limit,
        }
    }
}

#[derive(Clone, Debug)]
struct Entry {
    rx: StreamReceiver,
    /// In the `due` queue.
    queued: bool,
    /// The stack closed it before its final size was known: data is
    /// released as it arrives, and the stream is forgotten once the final
    /// size comes.
    closing: bool,
}

/// Receive-side flow control for a whole connection, owning its streams.
///
/// Everything [`ConnectionFlow`] guarantees (RFC 9000 §4 for every
/// subject, the budget, the connection floor, growth only from reads),
/// and the stream lifecycle of RFC 9000 §2–§3:
/// - a peer's stream may be used only below the MAX_STREAMS limit for its
///   direction (by stream index, STREAM_LIMIT_ERROR beyond it); using one
///   opens every lower-numbered stream of its type (§3.2); closing one
///   lets the limit move up by one;
/// - a stream this endpoint initiates has a receive side only if it is
///   bidirectional and was opened with
///   [`ConnectionReceiver::open_local_stream`]; data on any other stream
///   of ours is STREAM_STATE_ERROR;
/// - frames for a closed stream are ignored (their bytes were counted when
///   the final size became known) and never reopen it;
/// - a stream closed before its final size is known stays counted until
///   the final size arrives, its data released as it comes.
///
/// Per packet: feed it the frames received, call
/// [`ConnectionReceiver::next_update`] while building a packet, and arm a
/// timer for [`ConnectionReceiver::next_timeout`]
/// (→ [`ConnectionReceiver::on_timeout`]).
#[derive(Debug)]
pub struct ConnectionReceiver<T = ExcessTuner> {
    flow: ConnectionFlow<T>,
    role: Role,
    streams: BTreeMap<StreamId, Entry>,
    due: VecDeque<StreamId>,
    /// Limits on the peer's bidirectional and unidirectional streams.
    remote: [RemoteStreamLimit; 2],
    /// One past the highest index of our own bidirectional streams opened.
    local_next: u64,
    /// Our own bidirectional streams open now (at most `max_streams_bidi`).
    local_open: u64,
}

const fn slot(direction: Direction) -> usize {
    match direction {
        Direction::Bidi => 0,
        Direction::Uni => 1,
    }
}

impl ConnectionReceiver<ExcessTuner> {
    /// The receive side of a connection where this endpoint is `role`,
    /// with `config` and the default tuner.
    #[must_use]
    pub fn new(role: Role, config: ValidConfig) -> Self {
        Self::with_tuner(role, config, ExcessTuner::DEFAULT)
    }
}

impl<T: Tuner> ConnectionReceiver<T> {
    /// As [`ConnectionReceiver::new`] with another tuner.
    #[must_use]
    pub fn with_tuner(role: Role, config: ValidConfig, tuner: T) -> Self {
        Self {
            remote: [
                RemoteStreamLimit::new(Direction::Bidi, config.max_streams_bidi),
                RemoteStreamLimit::new(Direction::Uni, config.max_streams_uni),
            ],
            flow: ConnectionFlow::with_tuner(config, tuner),
            role,
            streams: BTreeMap::new(),
            due: VecDeque::new(),
            local_next: 0,
            local_open: 0,
        }
    }

    /// This endpoint's role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The connection-level policy (budget, estimate, connection window).
    pub fn flow(&self) -> &ConnectionFlow<T> {
        &self.flow
    }

    /// The configuration.
    pub fn config(&self) -> &ValidConfig {
        self.flow.config()
    }

    /// The tuner.
    pub fn tuner(&self) -> &T {
        self.flow.tuner()
    }

    /// The connection-level controller.
    pub fn connection(&self) -> &ReceiverFlowControl<Connection> {
        self.flow.connection()
    }

    /// A stream's controller, if open.
    pub fn stream(&self, id: StreamId) -> Option<&ReceiverFlowControl<StreamId>> {
        self.streams.get(&id).map(|e| e.rx.fc())
    }

    /// Every open stream's controller, by stream id.
    pub fn streams(&self) -> impl Iterator<Item = &ReceiverFlowControl<StreamId>> {
        self.streams.values().map(|e| e.rx.fc())
    }

    /// Open streams (including ones closed early and waiting for their
    /// final size).
    pub fn stream_count(&self) -> usize {
        self.streams.len()
    }

    /// The MAX_STREAMS value in force for the peer's streams of
    /// `direction`.
    pub fn max_streams(&self, direction: Direction) -> u64 {
        self.remote[slot(direction)].advertised()
    }

    /// Credit outstanding over open streams: `Σ (limit − retired)`.
    pub fn committed(&self) -> u64 {
        self.flow.committed()
    }

    /// The budget in force (see [`ConnectionFlow::budget`]).
    pub fn budget(&self) -> u64 {
        self.flow.budget()
    }

    /// The connection's estimated need in bytes.
    pub fn estimate(&self) -> u64 {
        self.flow.estimate()
    }

    /// Largest stream window among open streams.
    pub fn largest_window(&self) -> u64 {
        self.flow.largest_window()
    }

    /// Bytes received and not yet read, all streams.
    pub fn buffered(&self) -> u64 {
        self.flow.buffered()
    }

    /// Takes the window changes recorded since the last call.
    pub fn drain_changes(&mut self) -> std::vec::Drain<'_, WindowChange> {
        self.flow.drain_changes()
    }

    /// Opens the receive side of a bidirectional stream this endpoint
    /// initiates (call when the stack opens it). Opening one that is open
    /// already does nothing.
    ///
    /// # Errors
    /// [`Error::StreamState`] for a stream the peer initiates, one of our
    /// unidirectional streams, or one of ours already closed;
    /// [`Error::StreamLimit`] with `max_streams_bidi` of our own open
    /// already (the receive sides of our streams are bounded like the
    /// peer's, so they never take a slot the peer may use).
    pub fn open_local_stream(&mut self, id: StreamId) -> Res<()> {
        if id.initiator() != self.role || id.direction() != Direction::Bidi {
            return Err(Error::StreamState(id));
        }
        if self.streams.contains_key(&id) {
            return Ok(());
        }
        if id.index() < self.local_next {
            return Err(Error::StreamState(id));
        }
        let limit = self.flow.config().max_streams_bidi;
        if self.local_open >= limit {
            return Err(Error::StreamLimit { id, limit });
        }
        self.insert(id)?;
        self.local_next = id.index() + 1;
        self.local_open += 1;
        Ok(())
    }

    fn insert(&mut self, id: StreamId) -> Res<()> {
        let rx = self.flow.open_stream(id)?;
        self.streams.insert(
            id,
            Entry {
                rx,
                queued: false,
                closing: false,
            },
        );
        self.enqueue_if_due(id);
        Ok(())
    }

    /// Checks the stream a frame from the peer names, opening the peer's
    /// new streams up to it. Returns true if it is open, false if closed.
    fn receiving(&mut self, id: StreamId) -> Res<bool> {
        if id.0 > crate::MAX_VARINT {
            return Err(Error::ValueTooLarge(id.0));
        }
        if id.initiator() == self.role {
            if !id.has_receive_side(self.role) || id.index() >= self.local_next {
                return Err(Error::StreamState(id));
            }
        } else {
            // Within MAX_STREAMS, at most `max_streams_*` of the peer's
            // streams of a type are open, and at most `max_streams_bidi` of
            // ours: opening these always finds room at the connection.
            let new = self.remote[slot(id.direction())].open_through(id)?;
            for index in new {
                let sid = StreamId::new(self.role.peer(), id.direction(), index);
                self.insert(sid)?;
            }
        }
        Ok(self.streams.contains_key(&id))
    }

    /// A STREAM frame reached `end` on stream `id` (`fin` when it carried
    /// FIN). Returns the newly consumed bytes (0 for a closed stream).
    ///
    /// # Errors
    /// [`Error::StreamLimit`], [`Error::StreamState`] (see the type's
    /// docs), or as [`ConnectionFlow::on_data`]; the data is not accounted
    /// then (peer streams below a valid `id` stay opened).
    pub fn on_data(&mut self, id: StreamId, end: u64, fin: bool) -> Res<u64> {
        if !self.receiving(id)? {
            return Ok(0);
        }
        let Some(e) = self.streams.get_mut(&id) else {
            return Ok(0);
        };
        let new = self.flow.on_data(&mut e.rx, end, fin)?;
        self.after_frame(id);
        Ok(new)
    }

    /// The peer reset stream `id` with `final_size` (RESET_STREAM): the
    /// final size counts against the connection limit, whatever was
    /// buffered is released, and the stream closes. Works for a stream not
    /// seen before (it opens and closes at once) and is ignored for a
    /// closed one. Returns the newly consumed bytes.
    ///
    /// # Errors
    /// As [`ConnectionReceiver::on_data`] with FIN.
    pub fn reset_received(&mut self, id: StreamId, final_size: u64) -> Res<u64> {
        if !self.receiving(id)? {
            return Ok(0);
        }
        let Some(e) = self.streams.get_mut(&id) else {
            return Ok(0);
        };
        let new = self.flow.reset_received(&mut e.rx, final_size)?;
        self.forget(id);
        Ok(new)
    }

    /// The application read stream `id` up to `offset` (an offset).
    /// Returns the bytes newly retired; 0 for a stream not open.
    ///
    /// # Errors
    /// [`Error::RetiredBeyondReceived`] if `offset` passes the data
    /// received.
    pub fn retire_to(&mut self, id: StreamId, offset: u64) -> Res<u64> {
        let Some(e) = self.streams.get_mut(&id) else {
            return Ok(0);
        };
        let n = self.flow.retire_to(&mut e.rx, offset)?;
        self.enqueue_if_due(id);
        Ok(n)
    }

    /// The stack is done with stream `id`'s receive side: read to the end,
    /// or abandoned (it sends STOP_SENDING). Unread bytes are released. If
    /// the final size is not known yet, the stream stays counted — what
    /// arrives is released at once — until the final size comes (FIN or
    /// RESET_STREAM); then, or now if known, the stream is forgotten and
    /// the peer may open another of its type.
    pub fn close_stream(&mut self, id: StreamId) {
        let Some(e) = self.streams.get_mut(&id) else {
            return;
        };
        if e.rx.fc().final_size().is_some() {
            self.forget(id);
        } else {
            e.closing = true;
            self.flow.stop_reading(&mut e.rx);
        }
    }

    fn after_frame(&mut self, id: StreamId) {
        let Some(e) = self.streams.get(&id) else {
            return;
        };
        if e.closing && e.rx.fc().final_size().is_some() {
            self.forget(id);
        } else {
            // The data may bear out a *_BLOCKED received before it.
            self.enqueue_if_due(id);
        }
    }

    fn forget(&mut self, id: StreamId) {
        let Some(e) = self.streams.remove(&id) else {
            return;
        };
        if e.queued {
            self.due.retain(|d| *d != id);
        }
        self.flow.close_stream(e.rx);
        if id.initiator() == self.role {
            self.local_open -= 1;
        } else {
            self.remote[slot(id.direction())].on_closed();
        }
    }

    /// The peer sent DATA_BLOCKED at `limit` (see
    /// [`ReceiverFlowControl::blocked_received`]). Returns whether the
    /// frame was recorded.
    pub fn data_blocked_received(&mut self, limit: u64) -> bool {
        self.flow.data_blocked_received(limit)
    }

    /// The peer sent STREAM_DATA_BLOCKED for `id` at `limit`. Constant
    /// work per frame; streams not open are ignored. Returns whether the
    /// frame was recorded.
    pub fn stream_data_blocked_received(&mut self, id: StreamId, limit: u64) -> bool {
        let Some(e) = self.streams.get_mut(&id) else {
            return false;
        };
        let honoured = self.flow.stream_blocked_received(&mut e.rx, limit);
        if honoured {
            self.enqueue_if_due(id);
        }
        honoured
    }

    /// The peer sent STREAMS_BLOCKED for `direction` at `limit`. Returns
    /// whether the frame names a limit we advertised; MAX_STREAMS follows
    /// the peer's streams closing, not its requests.
    pub fn streams_blocked_received(&self, direction: Direction, limit: u64) -> bool {
        self.remote[slot(direction)].blocked_received(limit)
    }

    /// The packet carrying `frame` was declared lost.
    pub fn update_lost(&mut self, frame: UpdateFrame) {
        match frame {
            UpdateFrame::MaxData(limit) => self.flow.connection_update_lost(limit),
            UpdateFrame::MaxStreamData { id, limit } => {
                if let Some(e) = self.streams.get_mut(&id) {
                    e.rx.update_lost(limit);
                    self.enqueue_if_due(id);
                }
            }
            UpdateFrame::MaxStreams { direction, limit } => {
                self.remote[slot(direction)].update_lost(limit);
            }
        }
    }

    /// The packet carrying `frame` was acknowledged.
    pub fn update_acked(&mut self, frame: UpdateFrame) {
        match frame {
            UpdateFrame::MaxData(limit) => self.flow.connection_update_acked(limit),
            UpdateFrame::MaxStreamData { id, limit } => {
                if let Some(e) = self.streams.get_mut(&id) {
                    e.rx.update_acked(limit);
                }
            }
            UpdateFrame::MaxStreams { direction, limit } => {
                self.remote[slot(direction)].update_acked(limit);
            }
        }
    }

    fn enqueue_if_due(&mut self, id: StreamId) {
        if let Some(e) = self.streams.get_mut(&id)
            && !e.queued
            && e.rx.update_due()
        {
            e.queued = true;
            self.due.push_back(id);
        }
    }

    /// True when [`ConnectionReceiver::next_update`] may return a frame.
    pub fn update_pending(&self) -> bool {
        !self.due.is_empty()
            || self.flow.connection_update_due()
            || self.remote.iter().any(RemoteStreamLimit::update_due)
    }

    /// The next MAX_STREAM_DATA / MAX_STREAMS / MAX_DATA to write, if any;
    /// call in a loop while building a packet. Tuning, the connection
    /// floor and budget caps happen here; `rtt` is `None` before the
    /// stack's first RTT sample.
    pub fn next_update(&mut self, now: Instant, rtt: Option<Rtt>) -> Option<UpdateFrame> {
        let mut skipped = 0;
        while let Some(id) = self.due.pop_front() {
            let Some(e) = self.streams.get_mut(&id) else {
                continue;
            };
            e.queued = false;
            if let Some(limit) = self.flow.stream_update(&mut e.rx, now, rtt) {
                return Some(UpdateFrame::MaxStreamData { id, limit });
            }
            if e.rx.update_due() {
                // Held back by the budget: try the others first.
                e.queued = true;
                self.due.push_back(id);
                skipped += 1;
                if skipped >= self.due.len() {
                    break;
                }
            }
        }
        for l in &mut self.remote {
            if let Some(limit) = l.send_update() {
                return Some(UpdateFrame::MaxStreams {
                    direction: l.direction(),
                    limit,
                });
            }
        }
        self.flow
            .connection_update(now, rtt)
            .map(UpdateFrame::MaxData)
    }

    /// When [`ConnectionReceiver::on_timeout`] should next be called
    /// (the budget's rebalancing pass); `None` while nothing is pending.
    pub fn next_timeout(&self) -> Option<Instant> {
        self.flow.next_timeout()
    }

    /// The timer from [`ConnectionReceiver::next_timeout`] fired: runs the
    /// rebalancing pass if it is due, then queues the streams whose
    /// windows it raised. Check [`ConnectionReceiver::update_pending`]
    /// after.
    pub fn on_timeout(&mut self, now: Instant, rtt: Option<Rtt>) {
        let streams = &mut self.streams;
        let ran = self.flow.on_timeout(now, rtt, |visit| {
            streams.values_mut().for_each(|e| visit(&mut e.rx));
        });
        if ran {
            for (id, e) in &mut self.streams {
                if !e.queued && e.rx.update_due() {
                    e.queued = true;
                    self.due.push_back(*id);
                }
            }
        }
    }
}
