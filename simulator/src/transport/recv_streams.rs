//! The receive side of one endpoint: every incoming stream's reassembly
//! buffer ([`RecvStream`]) and `neqo-fc`'s [`ConnectionReceiver`], which
//! owns the receive windows. Every call into the receive half of `neqo-fc`
//! is in this file.
//!
//! Streams are HTTP/3's (see [`StreamKind`]): the client receives the
//! responses on the request streams it opened itself (neqo-fc's
//! `open_local_stream`, called as each response starts), and
//! whatever unidirectional streams a hostile server pushes (buffered within
//! the limits, never read); the server receives the requests on streams the
//! client opens.
//!
//! It accepts STREAM data, lets the application take contiguous bytes
//! (retiring them from flow control) and produces MAX_DATA /
//! MAX_STREAM_DATA / MAX_STREAMS; it never decides when the application
//! reads.
//!
//! Why `ConnectionReceiver` and not `ConnectionFlow` with a
//! `StreamReceiver` in each [`RecvStream`], the shape neqo's and quinn's
//! integrations use: the receiver is a thin owner over `ConnectionFlow`
//! (every frame, read and update goes through `ConnectionFlow::on_data`,
//! `retire_to`, `stream_update`, `connection_update` and `on_timeout`, the
//! calls a stack makes), and it adds what this simulator would otherwise
//! write itself: the MAX_STREAMS limits, implicit opening of lower
//! streams, and the queue of streams with an update due. What the lab
//! measures is therefore the same policy code the real stacks run; the
//! order in which streams are offered for updates is the receiver's.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::Arc,
    time::Instant,
};

use neqo_fc::{
    ConnectionReceiver, Direction, ReceiverFlowControl, Role, Rtt, StreamId, Tuner, UpdateFrame,
    ValidConfig, WindowChange,
};

use super::{StreamKind, recv_stream::RecvStream, sent::SentFrame};
use crate::{quic::frame::Frame, time::Time};

/// A transport error: (RFC 9000 §20.1 code, reason).
pub type TransportError = (u64, String);

/// What a STREAM frame did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// The frame opened its stream, whose receive window is this.
    pub opened_window: Option<u64>,
    /// Payload bytes that differ from what the sender wrote (verify mode).
    pub verify_failures: u64,
}

/// The receive side of one endpoint.
///
/// Invariants: `buffered` = Σ `RecvStream::buffered` over open streams;
/// `readable` holds the open request streams with unread contiguous data
/// or an unread end (and, transiently, streams the application skipped),
/// never a pushed one; `finished[i]` once request stream `i` was read to
/// its end and closed — it is then in neither `streams` nor the flow
/// controller.
pub struct RecvStreams {
    role: Role,
    streams: BTreeMap<u64, RecvStream>,
    fc: ConnectionReceiver<Arc<dyn Tuner + Send + Sync>>,
    /// Simulated time zero as the `Instant` flow control is given (only
    /// differences matter, so results do not depend on it).
    epoch: Instant,
    readable: BTreeSet<u64>,
    buffered: u64,
    finished: Vec<bool>,
    has_budget: bool,
    /// Client: request streams `0..opened_requests` have a receive side.
    opened_requests: u64,
}

impl RecvStreams {
    /// The receive side of `role` for `expected` request streams, with
    /// flow-control settings `config` and `tuner`.
    #[must_use]
    pub fn new(
        role: Role,
        config: ValidConfig,
        tuner: Arc<dyn Tuner + Send + Sync>,
        expected: u64,
    ) -> Self {
        Self {
            role,
            streams: BTreeMap::new(),
            fc: ConnectionReceiver::with_tuner(role, config, tuner),
            epoch: Instant::now(),
            readable: BTreeSet::new(),
            buffered: 0,
            finished: vec![false; usize::try_from(expected).unwrap_or(0)],
            has_budget: config.budget.is_some(),
            opened_requests: 0,
        }
    }

    /// The client opens the receive side of all its request streams at
    /// once, as it sends the requests (see
    /// [`crate::scenario::TransportOptions::open_requests_at_request`]);
    /// a server has none.
    ///
    /// # Errors
    /// What flow control rejects (STREAM_LIMIT_ERROR: more request streams
    /// than `max_streams_bidi`; the scenario allows the workload's).
    pub fn open_all_requests(&mut self) -> Result<(), TransportError> {
        match (self.role, self.finished.len().checked_sub(1)) {
            (Role::Client, Some(last)) => self.open_requests_through(last as u64),
            _ => Ok(()),
        }
    }

    /// The client opens the receive side of request streams `..=index`
    /// (neqo-fc's `open_local_stream`, in stream order): all of them when
    /// it sends the requests, or, by default, each when the first frame of
    /// its response arrives, as a stream the peer opens (the real-neqo
    /// harness's unidirectional streams).
    fn open_requests_through(&mut self, index: u64) -> Result<(), TransportError> {
        while self.opened_requests <= index {
            self.fc
                .open_local_stream(StreamId(StreamKind::Request.id(self.opened_requests)))
                .map_err(fc_err)?;
            self.opened_requests += 1;
        }
        Ok(())
    }

    /// `now` as the `Instant` flow control is given.
    fn instant(&self, now: Time) -> Instant {
        self.epoch + now.as_duration()
    }

    /// A STREAM frame for `[offset, offset + len)` of stream `id`.
    ///
    /// # Errors
    /// STREAM_LIMIT_ERROR beyond the stream limit, STREAM_STATE_ERROR for a
    /// stream never expected, FRAME_ENCODING_ERROR for an offset overflow,
    /// or what flow control rejects (FLOW_CONTROL_ERROR, FINAL_SIZE_ERROR).
    pub fn on_stream_frame(
        &mut self,
        id: u64,
        offset: u64,
        len: u64,
        fin: bool,
        data: Option<&[u8]>,
    ) -> Result<Option<Arrival>, TransportError> {
        // What the stream is: a request stream (its index counts among the
        // workload's), or a stream the server pushed on its own.
        let (kind, index) = if let Some(i) = StreamKind::Request.index(id) {
            (StreamKind::Request, i)
        } else if let Some(i) = StreamKind::Push
            .index(id)
            .filter(|_| self.role == Role::Client)
        {
            (StreamKind::Push, i)
        } else {
            // STREAM_STATE_ERROR (RFC 9000 §19.8) for streams we never expect.
            return Err((0x05, format!("unexpected stream {id}")));
        };
        // RFC 9000 §4.6: a peer's stream at or beyond the limit.
        let peer_direction = match (kind, self.role) {
            (StreamKind::Push, _) => Some(Direction::Uni),
            (StreamKind::Request, Role::Server) => Some(Direction::Bidi),
            (StreamKind::Request, Role::Client) => None,
        };
        if let Some(direction) = peer_direction {
            let limit = self.fc.max_streams(direction);
            if index >= limit {
                return Err((0x04, format!("stream {id} beyond the stream limit {limit}")));
            }
        }
        let expected = self.finished.len() as u64;
        if kind == StreamKind::Request && index >= expected {
            return Err((0x05, format!("unexpected stream {id}")));
        }
        let end = offset
            .checked_add(len)
            .ok_or((0x07, "offset overflow".to_string()))?;
        if kind == StreamKind::Request && self.finished(index) {
            return Ok(None); // late duplicate for a stream read to its end
        }
        let sid = StreamId(id);
        // The first frame of this stream here (flow control may have opened
        // it already, with a higher-numbered one: RFC 9000 §3.2).
        let opened = self.streams.contains_key(&id);
        if kind == StreamKind::Request && self.role == Role::Client {
            self.open_requests_through(index)?;
        }
        self.fc.on_data(sid, end, fin).map_err(fc_err)?;
        let opened_window = if opened {
            None
        } else {
            self.streams.insert(id, RecvStream::new(id, index));
            Some(self.fc.stream(sid).map_or(0, ReceiverFlowControl::window))
        };
        let s = self.streams.get_mut(&id).expect("opened above");
        if fin {
            s.final_size = Some(end);
        }
        let (buffered, verify_failures) = s.store(offset, len, data);
        self.buffered += buffered;
        // Pushed data is held, never read: the application did not ask.
        if kind == StreamKind::Request
            && (s.contiguous_end() > s.read_offset() || s.final_size == Some(s.read_offset()))
        {
            self.readable.insert(id);
        }
        Ok(Some(Arrival {
            opened_window,
            verify_failures,
        }))
    }

    /// A RESET_STREAM with `final_size` for stream `id`.
    ///
    /// # Errors
    /// What flow control rejects (FLOW_CONTROL_ERROR, FINAL_SIZE_ERROR).
    pub fn on_reset(&mut self, id: u64, final_size: u64) -> Result<(), TransportError> {
        if self.streams.contains_key(&id) {
            self.fc
                .on_data(StreamId(id), final_size, true)
                .map_err(fc_err)?;
        }
        Ok(())
    }

    /// A DATA_BLOCKED (`stream` = `None`) or STREAM_DATA_BLOCKED.
    ///
    /// # Errors
    /// STREAM_DATA_BLOCKED for a stream we cannot receive on
    /// (STREAM_STATE_ERROR) or beyond MAX_STREAMS (STREAM_LIMIT_ERROR).
    pub fn on_blocked(&mut self, stream: Option<u64>, limit: u64) -> Result<(), TransportError> {
        match stream {
            None => {
                self.fc.data_blocked_received(limit);
            }
            Some(id) => {
                // A frame of a response stream: the client opens the
                // receive side of its request here, as for its first data.
                if let (Role::Client, Some(index)) = (self.role, StreamKind::Request.index(id))
                    && index < self.finished.len() as u64
                {
                    self.open_requests_through(index)?;
                }
                self.fc
                    .stream_data_blocked_received(StreamId(id), limit)
                    .map_err(fc_err)?;
            }
        }
        Ok(())
    }

    /// True if stream index `index` was read to its end.
    #[must_use]
    pub fn finished(&self, index: u64) -> bool {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.finished.get(i))
            .is_some_and(|&f| f)
    }

    // ---------------------------------------------------------------
    // What the application sees.

    /// True when no stream has anything to read.
    #[must_use]
    pub fn nothing_readable(&self) -> bool {
        self.readable.is_empty()
    }

    /// The streams that may have something to read, in stream-ID order.
    pub fn readable(&self) -> impl Iterator<Item = u64> + '_ {
        self.readable.iter().copied()
    }

    /// An open stream.
    #[must_use]
    pub fn get(&self, id: u64) -> Option<&RecvStream> {
        self.streams.get(&id)
    }

    /// The application read `n` more bytes of stream `id` (at most its
    /// contiguous data): they leave the buffer and flow control retires
    /// them.
    pub fn read(&mut self, id: u64, n: u64) {
        let Some(s) = self.streams.get_mut(&id) else {
            return;
        };
        let to = s.read_offset() + n;
        s.advance_read(to);
        // Cannot fail: `to` lies within contiguous received data.
        let _ = self.fc.retire_to(StreamId(id), to);
        self.buffered -= n;
    }

    /// Stream `id` has nothing the application takes now.
    pub fn not_readable(&mut self, id: u64) {
        self.readable.remove(&id);
    }

    /// The application read stream `id` to its end: it closes.
    pub fn close(&mut self, id: u64) {
        self.readable.remove(&id);
        if let Some(s) = self.streams.remove(&id)
            && StreamKind::Request.index(id).is_some()
            && let Some(f) = usize::try_from(s.index)
                .ok()
                .and_then(|i| self.finished.get_mut(i))
        {
            *f = true;
        }
        self.fc.close_stream(StreamId(id));
    }

    // ---------------------------------------------------------------
    // Flow control.

    /// True when a MAX_DATA, MAX_STREAM_DATA or MAX_STREAMS is due.
    #[must_use]
    pub fn update_pending(&self) -> bool {
        self.fc.update_pending()
    }

    /// The next MAX_DATA / MAX_STREAM_DATA / MAX_STREAMS to send, with what
    /// to remember of it for loss recovery.
    pub fn next_update(&mut self, now: Time, rtt: Option<Rtt>) -> Option<(Frame, SentFrame)> {
        let u = self.fc.next_update(self.instant(now), rtt)?;
        let frame = match u {
            UpdateFrame::MaxData(maximum) => Frame::MaxData { maximum },
            UpdateFrame::MaxStreamData { id, limit } => Frame::MaxStreamData {
                stream_id: id.0,
                maximum: limit,
            },
            UpdateFrame::MaxStreams { direction, limit } => Frame::MaxStreams {
                bidi: direction == Direction::Bidi,
                maximum: limit,
            },
        };
        Some((frame, SentFrame::Update(u)))
    }

    /// An update we sent was acknowledged.
    pub fn update_acked(&mut self, frame: UpdateFrame) {
        self.fc.update_acked(frame);
    }

    /// An update we sent was lost.
    pub fn update_lost(&mut self, frame: UpdateFrame) {
        self.fc.update_lost(frame);
    }

    /// When flow control's timer (the budget's rebalancing pass) fires.
    #[must_use]
    pub fn next_timeout(&self) -> Option<Time> {
        self.fc.next_timeout().map(|t| {
            let since = t.saturating_duration_since(self.epoch);
            Time::from_nanos(u64::try_from(since.as_nanos()).unwrap_or(u64::MAX))
        })
    }

    /// Flow control's timer fired.
    pub fn on_timeout(&mut self, now: Time, rtt: Option<Rtt>) {
        self.fc.on_timeout(self.instant(now), rtt);
    }

    /// The window changes flow control made since the last call.
    pub fn drain_changes(&mut self) -> impl Iterator<Item = WindowChange> + '_ {
        self.fc.drain_changes()
    }

    // ---------------------------------------------------------------
    // Measurements.

    /// Bytes received and not yet read, all streams.
    #[must_use]
    pub fn buffered(&self) -> u64 {
        self.buffered
    }

    /// Credit outstanding over open streams.
    #[must_use]
    pub fn committed(&self) -> u64 {
        self.fc.flow().committed()
    }

    /// Connection credit outstanding: MAX_DATA − bytes read.
    #[must_use]
    pub fn conn_credit(&self) -> u64 {
        self.fc.flow().connection().credit()
    }

    /// The memory budget in force, when the connection has one.
    #[must_use]
    pub fn budget(&self) -> Option<u64> {
        self.has_budget.then(|| self.fc.flow().budget())
    }

    /// Largest receive window over open streams (0 when none is open).
    #[must_use]
    pub fn largest_stream_window(&self) -> u64 {
        self.streams
            .keys()
            .filter_map(|&id| self.fc.stream(StreamId(id)))
            .map(ReceiverFlowControl::window)
            .max()
            .unwrap_or(0)
    }

    /// Connection receive window.
    #[must_use]
    pub fn conn_window(&self) -> u64 {
        self.fc.flow().connection().window()
    }
}

fn fc_err(e: neqo_fc::Error) -> TransportError {
    (e.code(), e.to_string())
}
