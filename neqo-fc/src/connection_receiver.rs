//! [`ConnectionReceiver`]: a connection's receive side that owns its streams.

use std::{
    collections::{BTreeMap, BTreeSet, VecDeque},
    time::Instant,
};

use crate::{
    ConnectionFlow, Direction, Error, ExcessTuner, ReceiverFlowControl, Res, Role, Rtt, StreamId,
    StreamReceiver, Tuner, ValidConfig, WindowChange, connection_flow::Hold,
    stream_limits::RemoteStreamLimit,
};

/// The most streams of each type a [`ConnectionReceiver`] holds; larger
/// `max_streams_*` are lowered to this (advertise
/// [`ConnectionReceiver::max_streams`]).
pub const MAX_OWNED_STREAMS: u64 = 1 << 16;

/// The need of a stream held by policy: no growth room meets it (it waits
/// until it changes or a pass runs), even the unbounded room without a budget.
const BY_POLICY: u64 = u64::MAX;

/// Closed streams whose final size is kept to detect FINAL_SIZE_ERROR.
const REMEMBERED_FINAL_SIZES: usize = 1024;

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

/// Where a stream stands in the update queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Queue {
    /// No update due (as far as known).
    Idle,
    /// In `due`: try it at the next `next_update`.
    Due,
    /// In `held` with this need: retried as room frees, or after a pass.
    Held(u64),
}

#[derive(Clone, Debug)]
struct Entry {
    rx: StreamReceiver,
    queue: Queue,
    /// Closed before its final size: data is released on arrival.
    closing: bool,
}

/// Receive-side flow control for a whole connection, owning its streams.
///
/// [`ConnectionFlow`]'s guarantees plus the stream lifecycle (RFC 9000 §2–§3):
/// data is accepted on the peer's streams below MAX_STREAMS (STREAM_LIMIT_ERROR
/// beyond) and on ours once opened with
/// [`ConnectionReceiver::open_local_stream`] (STREAM_STATE_ERROR otherwise); a
/// stream's first frame opens all lower-numbered ones of its type (§3.2).
/// Frames for closed streams are ignored, but a changed final size on one of
/// the last 1,024 closed is FINAL_SIZE_ERROR (§4.5).
///
/// Per packet: feed it the frames received, call
/// [`ConnectionReceiver::next_update`] while building a packet, and arm a timer
/// for [`ConnectionReceiver::next_timeout`].
#[derive(Clone, Debug)]
pub struct ConnectionReceiver<T = ExcessTuner> {
    flow: ConnectionFlow<T>,
    role: Role,
    streams: BTreeMap<StreamId, Entry>,
    /// Streams to try, in order; may hold stale ids (skipped).
    due: VecDeque<StreamId>,
    /// Entries of `streams` in [`Queue::Due`].
    due_count: usize,
    /// Streams held back, by the growth room they need.
    held: BTreeSet<(u64, StreamId)>,
    /// Final sizes of the last streams closed; `closed_order` is oldest first.
    closed: BTreeMap<StreamId, u64>,
    closed_order: VecDeque<StreamId>,
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
    /// A connection's receive side as `role`, with the default tuner.
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
                RemoteStreamLimit::new(
                    Direction::Bidi,
                    config.max_streams_bidi.min(MAX_OWNED_STREAMS),
                ),
                RemoteStreamLimit::new(
                    Direction::Uni,
                    config.max_streams_uni.min(MAX_OWNED_STREAMS),
                ),
            ],
            flow: ConnectionFlow::with_tuner(config, tuner),
            role,
            streams: BTreeMap::new(),
            due: VecDeque::new(),
            due_count: 0,
            held: BTreeSet::new(),
            closed: BTreeMap::new(),
            closed_order: VecDeque::new(),
            local_next: 0,
            local_open: 0,
        }
    }

    /// The connection-level policy (budget, estimate, connection window).
    pub fn flow(&self) -> &ConnectionFlow<T> {
        &self.flow
    }

    /// A stream's controller, if open.
    pub fn stream(&self, id: StreamId) -> Option<&ReceiverFlowControl<StreamId>> {
        self.streams.get(&id).map(|e| e.rx.fc())
    }

    /// Every open stream's controller, by stream id.
    pub fn streams(&self) -> impl Iterator<Item = &ReceiverFlowControl<StreamId>> {
        self.streams.values().map(|e| e.rx.fc())
    }

    /// The MAX_STREAMS in force for the peer's `direction` streams (at first
    /// the `initial_max_streams_*` to advertise).
    pub fn max_streams(&self, direction: Direction) -> u64 {
        self.remote[slot(direction)].advertised()
    }

    /// Takes the window changes recorded since the last call (see
    /// [`ConnectionFlow::drain_changes`]).
    pub fn drain_changes(&mut self) -> std::collections::vec_deque::Drain<'_, WindowChange> {
        self.flow.drain_changes()
    }

    /// Call when the stack opens our bidirectional stream `id`: opens its
    /// receive side and every lower-numbered one's (RFC 9000 §3.2).
    ///
    /// # Errors
    /// [`Error::StreamState`] for a peer's stream, our unidirectional ones or
    /// one closed; [`Error::StreamLimit`] if more than `max_streams_bidi` of
    /// ours would be open. Nothing is opened then.
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
        let limit = self.flow.config().max_streams_bidi.min(MAX_OWNED_STREAMS);
        let opening = id.index() - self.local_next + 1;
        if self.local_open.saturating_add(opening) > limit {
            return Err(Error::StreamLimit { id, limit });
        }
        for index in self.local_next..=id.index() {
            self.insert(StreamId::new(self.role, Direction::Bidi, index))?;
            self.local_next = index + 1;
            self.local_open += 1;
        }
        Ok(())
    }

    fn insert(&mut self, id: StreamId) -> Res<()> {
        let rx = self.flow.open_stream(id)?;
        self.streams.insert(
            id,
            Entry {
                rx,
                queue: Queue::Idle,
                closing: false,
            },
        );
        self.enqueue_if_due(id);
        Ok(())
    }

    /// Opens the peer's streams up to `id`; true if `id` is open, false if
    /// closed.
    fn receiving(&mut self, id: StreamId) -> Res<bool> {
        if id.0 > crate::MAX_VARINT {
            return Err(Error::ValueTooLarge(id.0));
        }
        if id.initiator() == self.role {
            if !id.has_receive_side(self.role) || id.index() >= self.local_next {
                return Err(Error::StreamState(id));
            }
        } else {
            // MAX_STREAMS leaves the connection room for these.
            let new = self.remote[slot(id.direction())].open_through(id)?;
            for index in new {
                let sid = StreamId::new(self.role.peer(), id.direction(), index);
                self.insert(sid)?;
            }
        }
        Ok(self.streams.contains_key(&id))
    }

    /// A STREAM frame reached `end` on `id`. Returns the newly consumed bytes
    /// (0 if closed).
    ///
    /// # Errors
    /// [`Error::StreamLimit`], [`Error::StreamState`], or as
    /// [`ConnectionFlow::on_data`]; the data is then not counted (lower peer
    /// streams stay opened).
    pub fn on_data(&mut self, id: StreamId, end: u64, fin: bool) -> Res<u64> {
        if !self.receiving(id)? {
            self.check_closed(id, end, fin)?;
            return Ok(0);
        }
        let Some(e) = self.streams.get_mut(&id) else {
            return Ok(0);
        };
        let new = self.flow.on_data(&mut e.rx, end, fin)?;
        self.after_frame(id);
        Ok(new)
    }

    /// The peer reset `id` with `final_size` (RESET_STREAM): counts it,
    /// releases the buffered bytes and closes the stream. Returns the newly
    /// consumed bytes (0 if closed).
    ///
    /// # Errors
    /// As [`ConnectionReceiver::on_data`] with FIN.
    pub fn reset_received(&mut self, id: StreamId, final_size: u64) -> Res<u64> {
        if !self.receiving(id)? {
            self.check_closed(id, final_size, true)?;
            return Ok(0);
        }
        let Some(e) = self.streams.get_mut(&id) else {
            return Ok(0);
        };
        let new = self.flow.reset_received(&mut e.rx, final_size)?;
        self.forget(id);
        Ok(new)
    }

    /// The application read `id` up to `offset` (not a count). Returns the
    /// bytes newly retired (0 if not open).
    ///
    /// # Errors
    /// [`Error::RetiredBeyondReceived`] if `offset` passes the data received.
    pub fn retire_to(&mut self, id: StreamId, offset: u64) -> Res<u64> {
        let Some(e) = self.streams.get_mut(&id) else {
            return Ok(0);
        };
        let n = self.flow.retire_to(&mut e.rx, offset)?;
        self.enqueue_if_due(id);
        Ok(n)
    }

    /// The stack is done with `id` (read to the end, or STOP_SENDING): unread
    /// bytes are released, and once the final size is known the stream is
    /// forgotten, letting the peer open another.
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

    /// FINAL_SIZE_ERROR if a frame contradicts closed `id`'s kept final size.
    fn check_closed(&self, id: StreamId, end: u64, fin: bool) -> Res<()> {
        if let Some(&known) = self.closed.get(&id)
            && (end > known || (fin && end != known))
        {
            return Err(Error::FinalSize {
                known,
                received: end,
            });
        }
        Ok(())
    }

    fn forget(&mut self, id: StreamId) {
        let Some(e) = self.streams.remove(&id) else {
            return;
        };
        match e.queue {
            // Skipped in `due`; compacted once stale entries dominate.
            Queue::Due => {
                self.due_count -= 1;
                if self.due.len() > 2 * self.due_count + 64 {
                    let streams = &self.streams;
                    self.due
                        .retain(|d| streams.get(d).is_some_and(|e| e.queue == Queue::Due));
                }
            }
            Queue::Held(need) => {
                self.held.remove(&(need, id));
            }
            Queue::Idle => {}
        }
        if let Some(size) = e.rx.fc().final_size() {
            if self.closed_order.len() >= REMEMBERED_FINAL_SIZES
                && let Some(oldest) = self.closed_order.pop_front()
            {
                self.closed.remove(&oldest);
            }
            self.closed_order.push_back(id);
            self.closed.insert(id, size);
        }
        self.flow.close_stream(e.rx);
        if id.initiator() == self.role {
            self.local_open -= 1;
        } else {
            self.remote[slot(id.direction())].on_closed();
        }
    }

    /// The peer sent DATA_BLOCKED at `limit`; returns whether it was recorded.
    pub fn data_blocked_received(&mut self, limit: u64) -> bool {
        self.flow.data_blocked_received(limit)
    }

    /// The peer sent STREAM_DATA_BLOCKED for `id` at `limit`, which opens the
    /// peer's streams up to `id` like a STREAM frame. Returns whether it was
    /// recorded.
    ///
    /// # Errors
    /// [`Error::StreamState`] or [`Error::StreamLimit`], as for `on_data`.
    pub fn stream_data_blocked_received(&mut self, id: StreamId, limit: u64) -> Res<bool> {
        if !self.receiving(id)? {
            return Ok(false);
        }
        let Some(e) = self.streams.get_mut(&id) else {
            return Ok(false);
        };
        let honoured = self.flow.stream_blocked_received(&mut e.rx, limit);
        if honoured {
            self.enqueue_if_due(id);
        }
        Ok(honoured)
    }

    /// The peer sent STREAMS_BLOCKED at `limit`: returns whether we advertised
    /// it (MAX_STREAMS follows closes, not requests).
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

    /// Queues `id` if an update may be due (a held one is retried).
    fn enqueue_if_due(&mut self, id: StreamId) {
        let Some(e) = self.streams.get_mut(&id) else {
            return;
        };
        match e.queue {
            Queue::Due => return,
            Queue::Idle if !e.rx.update_due() => return,
            Queue::Held(need) => {
                self.held.remove(&(need, id));
            }
            Queue::Idle => {}
        }
        e.queue = Queue::Due;
        self.due.push_back(id);
        self.due_count += 1;
    }

    fn wake_held(&mut self) {
        let room = self.flow.room();
        while let Some(&(need, id)) = self.held.first() {
            if need > room || need == BY_POLICY {
                break;
            }
            self.held.pop_first();
            if let Some(e) = self.streams.get_mut(&id) {
                e.queue = Queue::Due;
                self.due.push_back(id);
                self.due_count += 1;
            }
        }
    }

    /// Whether [`ConnectionReceiver::next_update`] may return a frame. False:
    /// it would not. True: it returns one, or `None` once (a stream the
    /// budget holds at the caller's clock), after which this is false.
    pub fn update_pending(&self) -> bool {
        self.due_count > 0
            || self
                .held
                .first()
                .is_some_and(|&(need, _)| need != BY_POLICY && need <= self.flow.room())
            || self.flow.connection_update_due()
            || self.remote.iter().any(RemoteStreamLimit::update_due)
    }

    /// The next MAX_STREAM_DATA / MAX_STREAMS / MAX_DATA to write; call in a
    /// loop while building a packet. Tuning and the budget apply here.
    pub fn next_update(&mut self, now: Instant, rtt: Option<Rtt>) -> Option<UpdateFrame> {
        self.wake_held();
        while let Some(id) = self.due.pop_front() {
            let Some(e) = self.streams.get_mut(&id) else {
                continue;
            };
            if e.queue != Queue::Due {
                continue;
            }
            self.due_count -= 1;
            match self.flow.stream_update_or_hold(&mut e.rx, now, rtt) {
                Ok(limit) => {
                    e.queue = Queue::Idle;
                    // A lost frame's re-send may leave another update due.
                    self.enqueue_if_due(id);
                    return Some(UpdateFrame::MaxStreamData { id, limit });
                }
                Err(Hold::NotDue) => e.queue = Queue::Idle,
                Err(Hold::Room(need)) => {
                    let need = need.min(BY_POLICY - 1);
                    e.queue = Queue::Held(need);
                    self.held.insert((need, id));
                }
                Err(Hold::Policy) => {
                    e.queue = Queue::Held(BY_POLICY);
                    self.held.insert((BY_POLICY, id));
                }
            }
        }
        // Only forgotten streams were left: start afresh.
        self.due.clear();
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

    /// When to call [`ConnectionReceiver::on_timeout`]; `None` if not needed.
    pub fn next_timeout(&self) -> Option<Instant> {
        self.flow.next_timeout()
    }

    /// The timer from [`ConnectionReceiver::next_timeout`] fired: runs a due
    /// rebalancing pass; then check [`ConnectionReceiver::update_pending`].
    pub fn on_timeout(&mut self, now: Instant, rtt: Option<Rtt>) {
        let streams = &mut self.streams;
        let ran = self.flow.on_timeout(now, rtt, |visit| {
            streams.values_mut().for_each(|e| visit(&mut e.rx));
        });
        if ran {
            // A pass moves shares and windows: retry held and raised streams.
            self.held.clear();
            for (id, e) in &mut self.streams {
                if matches!(e.queue, Queue::Held(_))
                    || (e.queue == Queue::Idle && e.rx.update_due())
                {
                    e.queue = Queue::Due;
                    self.due.push_back(*id);
                    self.due_count += 1;
                }
            }
        }
    }
}
