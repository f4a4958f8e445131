//! One endpoint of the QUIC-like connection.
//!
//! The server sends the workload's streams; the client receives and reads
//! them. Both ends run the same machinery: ACKs, loss recovery, congestion
//! control, and neqo-fc flow control on the send and the receive side.

use std::{
    collections::{BTreeMap, BTreeSet, VecDeque},
    sync::Arc,
    time::Duration,
};

use neqo_fc::{
    Config, Connection as ConnSubject, ConnectionReceiver, ReceiverFlowControl, Rtt,
    SenderFlowControl, StreamId, Subject, Tuner, WindowChange,
};

use crate::{
    quic::{
        cc::{CcAlgorithm, CcState},
        frame::Frame,
    },
    scenario::Hostile,
    time::Time,
    trace::{Endpoint, Parameters, TraceEvent, TraceLevel, TraceRecord},
};

use super::{
    PACKET_OVERHEAD,
    ack_state::AckState,
    hostile::HostileSender,
    packet::{Packet, pattern},
    reader::Reader,
    recovery::{LossTrigger, Recovery, TimeoutOutcome},
    recv_stream::RecvStream,
    send_stream::SendStream,
    sent::{SentFrame, SentFrames, SentPacket},
    stream_id, stream_index,
};

/// Settings of one endpoint.
#[derive(Clone)]
pub struct ConnConfig {
    /// Which end this is.
    pub endpoint: Endpoint,
    /// Largest UDP payload.
    pub max_datagram: u32,
    /// ACK every this many ack-eliciting packets.
    pub ack_ratio: u32,
    /// Our and the peer's `max_ack_delay`.
    pub max_ack_delay: Duration,
    /// Flow-control settings (ours; the peer uses the same initial limits).
    pub fc: Config,
    /// Receive-window tuner.
    pub tuner: Arc<dyn Tuner + Send + Sync>,
    /// Congestion controller.
    pub cc: CcAlgorithm,
    /// Encode frames to bytes and check payloads.
    pub verify: bool,
    /// Trace level.
    pub trace: TraceLevel,
}

/// Counters and peaks of one endpoint.
#[derive(Clone, Debug, Default)]
pub struct ConnStats {
    /// Bytes the application read.
    pub delivered: u64,
    /// Stream bytes sent again after a loss or PTO.
    pub retransmitted_bytes: u64,
    /// Packets declared lost.
    pub packets_lost: u64,
    /// Total time flow-control blocked with data and cwnd room.
    pub fc_blocked: Duration,
    /// Peaks at the receiver.
    pub peak_stream_window: u64,
    /// Peak connection receive window.
    pub peak_conn_window: u64,
    /// Peak receive buffer (bytes received, not read).
    pub peak_recv_buffer: u64,
    /// Peak credit outstanding over streams.
    pub peak_total_credit: u64,
    /// Peak congestion window.
    pub peak_cwnd: u64,
    /// MAX_DATA + MAX_STREAM_DATA sent.
    pub window_updates_sent: u64,
    /// *_BLOCKED frames sent.
    pub blocked_frames_sent: u64,
    /// Largest budget in force.
    pub peak_budget: u64,
    /// Credit found above the budget (must stay 0).
    pub budget_violations: u64,
    /// Payload bytes that failed verification.
    pub verify_failures: u64,
    /// Per stream index: when the last byte was read.
    pub stream_completion: Vec<Option<Time>>,
}

/// One endpoint.
pub struct Connection {
    cfg: ConnConfig,
    next_pn: u64,
    /// Loss recovery and congestion control.
    pub recovery: Recovery,
    acks: AckState,
    // Send side.
    send: Vec<SendStream>,
    active: VecDeque<usize>,
    in_active: Vec<bool>,
    conn_tx: SenderFlowControl<ConnSubject>,
    blocked_streams: BTreeSet<usize>,
    new_left: u64,
    fc_blocked_since: Option<Time>,
    probes: u32,
    // Receive side.
    recv: BTreeMap<u64, RecvStream>,
    rx: ConnectionReceiver<Arc<dyn Tuner + Send + Sync>>,
    readable: BTreeSet<u64>,
    reader: Reader,
    expected_streams: u64,
    opened_streams: u64,
    completed_streams: u64,
    recv_buffer: u64,
    delivered_unstalled: u64,
    // Output.
    /// Counters.
    pub stats: ConnStats,
    /// Recorded events.
    pub trace: Vec<TraceRecord>,
    /// Window changes (always recorded; small).
    pub changes: Vec<WindowChange>,
    /// Set when the connection closed with an error (code, reason).
    pub closed: Option<(u64, String)>,
    cc_state: CcState,
    packets_traced: u64,
    /// Reused buffer for stream-ID lists.
    scratch: Vec<u64>,
    /// Scripted misbehaviour (server only; `None` = a well-behaved peer).
    hostile: Option<HostileSender>,
    /// A CONNECTION_CLOSE for our own error still has to go out.
    close_pending: bool,
    /// Set when a CONNECTION_CLOSE from the peer arrived.
    pub close_received: bool,
    /// Drop streams whose reader stopped for good from the read scan.
    forget_dead_readers: bool,
}

impl Connection {
    /// An endpoint. `send_streams`: bytes per stream this end sends;
    /// `expected_streams`: streams it will receive; `reader`: how its
    /// application reads.
    #[must_use]
    pub fn new(
        cfg: ConnConfig,
        send_streams: &[u64],
        expected_streams: u64,
        reader: Reader,
    ) -> Self {
        let fc = cfg.fc;
        let send: Vec<SendStream> = send_streams
            .iter()
            .enumerate()
            .map(|(i, &bytes)| {
                SendStream::new(stream_id(i as u64), bytes, fc.initial_stream_window)
            })
            .collect();
        let active: VecDeque<usize> = (0..send.len()).collect();
        let new_left = send_streams.iter().sum();
        let recovery = Recovery::new(cfg.cc, u64::from(cfg.max_datagram), cfg.max_ack_delay);
        let rx = ConnectionReceiver::new(fc, Arc::clone(&cfg.tuner));
        let mut c = Self {
            next_pn: 0,
            recovery,
            acks: AckState::new(cfg.ack_ratio, cfg.max_ack_delay),
            in_active: vec![true; send.len()],
            send,
            active,
            conn_tx: SenderFlowControl::new(ConnSubject, fc.initial_connection_window),
            blocked_streams: BTreeSet::new(),
            new_left,
            fc_blocked_since: None,
            probes: 0,
            recv: BTreeMap::new(),
            stats: ConnStats {
                peak_conn_window: rx.connection().window(),
                stream_completion: vec![None; usize::try_from(expected_streams).unwrap_or(0)],
                ..ConnStats::default()
            },
            rx,
            readable: BTreeSet::new(),
            reader,
            expected_streams,
            opened_streams: 0,
            completed_streams: 0,
            recv_buffer: 0,
            delivered_unstalled: 0,
            trace: Vec::new(),
            changes: Vec::new(),
            closed: None,
            cc_state: CcState::SlowStart,
            packets_traced: 0,
            scratch: Vec::new(),
            hostile: None,
            close_pending: false,
            close_received: false,
            forget_dead_readers: false,
            cfg,
        };
        c.stats.peak_cwnd = c.recovery.cc.cwnd();
        c
    }

    /// Makes this endpoint misbehave as `mode` scripts (see
    /// [`Hostile`]); call before the run starts.
    pub fn set_hostile(&mut self, mode: Hostile) {
        self.hostile = Some(HostileSender::new(mode));
    }

    /// Stops scanning streams whose reader stalled for good on every
    /// packet (thousands of them cost O(streams) per packet otherwise).
    /// Off by default: it changes when timers fire, hence event counts.
    pub fn forget_dead_readers(&mut self) {
        self.forget_dead_readers = true;
    }

    /// Seeds the RTT estimator with the handshake's sample, and records
    /// both ends' transport parameters.
    pub fn start(&mut self, now: Time, handshake_rtt: Duration) {
        self.recovery.seed_rtt(now, handshake_rtt);
        let params = Parameters {
            initial_max_data: self.cfg.fc.initial_connection_window,
            initial_max_stream_data: self.cfg.fc.initial_stream_window,
            max_ack_delay_ms: u64::try_from(self.cfg.max_ack_delay.as_millis()).unwrap_or(0),
            max_udp_payload_size: u64::from(self.cfg.max_datagram),
        };
        self.record(
            now,
            TraceEvent::ParametersSet {
                local: true,
                params,
            },
        );
        self.record(
            now,
            TraceEvent::ParametersSet {
                local: false,
                params,
            },
        );
    }

    fn tracing(&self) -> bool {
        self.cfg.trace != TraceLevel::Off
    }

    fn record(&mut self, time: Time, event: TraceEvent) {
        if self.tracing() {
            self.trace.push(TraceRecord {
                time,
                endpoint: self.cfg.endpoint,
                event,
            });
        }
    }

    /// The frames to record for a packet, or `None` when this packet is
    /// not traced (tracing off, or `Core` level and no flow-control frame).
    fn traced_frames(&mut self, frames: &[Frame]) -> Option<Vec<Frame>> {
        if !self.tracing() {
            return None;
        }
        self.packets_traced += 1;
        if self.cfg.trace == TraceLevel::Core {
            let fc = frames.iter().any(|f| {
                matches!(
                    f,
                    Frame::MaxData { .. }
                        | Frame::MaxStreamData { .. }
                        | Frame::DataBlocked { .. }
                        | Frame::StreamDataBlocked { .. }
                        | Frame::ConnectionClose { .. }
                )
            });
            if !fc && self.packets_traced % 16 != 1 {
                return None;
            }
        }
        Some(
            frames
                .iter()
                .map(|f| match f {
                    Frame::Stream {
                        stream_id,
                        offset,
                        length,
                        fin,
                        ..
                    } => Frame::Stream {
                        stream_id: *stream_id,
                        offset: *offset,
                        length: *length,
                        fin: *fin,
                        data: None,
                    },
                    other => other.clone(),
                })
                .collect(),
        )
    }

    fn rtt(&self) -> Rtt {
        Rtt::new(self.recovery.rtt.smoothed(), self.recovery.rtt.min_rtt())
    }

    fn on_change(&mut self, now: Time, change: Option<WindowChange>) {
        let Some(c) = change else { return };
        match c.subject {
            Subject::Connection => {
                self.stats.peak_conn_window = self.stats.peak_conn_window.max(c.new);
            }
            Subject::Stream(_) => {
                self.stats.peak_stream_window = self.stats.peak_stream_window.max(c.new);
            }
        }
        self.changes.push(c);
        self.record(now, TraceEvent::WindowChanged(c));
    }

    fn close(&mut self, now: Time, code: u64, reason: String) {
        if self.closed.is_none() {
            self.record(
                now,
                TraceEvent::ConnectionClosed {
                    code,
                    reason: reason.clone(),
                },
            );
            self.closed = Some((code, reason));
            self.close_pending = true;
        }
    }

    // ---------------------------------------------------------------
    // Receiving.

    /// Processes one arriving packet. Returns its (emptied) frame vector
    /// so the simulation can reuse the allocation.
    pub fn on_packet(&mut self, now: Time, mut pkt: Packet) -> Vec<Frame> {
        if self.closed.is_some() {
            return Vec::new();
        }
        let mut frames = match pkt.take_frames() {
            Ok(f) => f,
            Err(e) => {
                self.close(now, e.code(), e.to_string());
                return Vec::new();
            }
        };
        let eliciting = frames.iter().any(Frame::is_ack_eliciting);
        if !self.acks.on_packet(now, pkt.pn, eliciting) {
            frames.clear();
            return frames;
        }
        if let Some(traced) = self.traced_frames(&frames) {
            let (pn, size) = (pkt.pn, pkt.size);
            self.record(
                now,
                TraceEvent::PacketReceived {
                    pn,
                    size,
                    frames: traced,
                },
            );
        }
        for frame in frames.drain(..) {
            if let Err((code, reason)) = self.on_frame(now, frame) {
                self.close(now, code, reason);
                return Vec::new();
            }
        }
        self.read(now);
        frames
    }

    fn on_frame(&mut self, now: Time, frame: Frame) -> Result<(), (u64, String)> {
        match frame {
            Frame::Ack {
                largest,
                ack_delay,
                ranges,
            } => {
                let out = self.recovery.on_ack(now, largest, ack_delay, &ranges);
                for p in out.acked.iter().chain(&out.spurious) {
                    self.on_acked(p);
                }
                self.on_lost(now, out.lost);
                if out.rtt_sampled || !out.acked.is_empty() || !out.spurious.is_empty() {
                    self.metrics_updated(now);
                }
            }
            Frame::Stream {
                stream_id,
                offset,
                length,
                fin,
                data,
            } => self.on_stream_frame(now, stream_id, offset, length, fin, data.as_deref())?,
            Frame::MaxData { maximum } => {
                self.conn_tx.update(maximum);
            }
            Frame::MaxStreamData { stream_id, maximum } => {
                if let Some(i) = self.send_index(stream_id)
                    && self.send[i].fc.update(maximum)
                {
                    self.blocked_streams.remove(&i);
                    self.activate(i);
                }
            }
            Frame::DataBlocked { limit } => {
                self.rx.blocked_received(None, limit);
            }
            Frame::StreamDataBlocked { stream_id, limit } => {
                self.rx.blocked_received(Some(StreamId(stream_id)), limit);
            }
            Frame::ResetStream {
                stream_id,
                final_size,
                ..
            } => {
                if self.recv.contains_key(&stream_id) {
                    self.rx
                        .on_data(StreamId(stream_id), final_size, true, now.as_duration())
                        .map_err(fc_err)?;
                }
            }
            Frame::ConnectionClose {
                error_code, reason, ..
            } => {
                self.close_received = true;
                if self.closed.is_none() {
                    self.closed = Some((error_code, String::from_utf8_lossy(&reason).into_owned()));
                }
            }
            Frame::Ping | Frame::Padding { .. } => {}
        }
        Ok(())
    }

    fn send_index(&self, id: u64) -> Option<usize> {
        let i = usize::try_from(stream_index(id)?).ok()?;
        (i < self.send.len()).then_some(i)
    }

    fn on_stream_frame(
        &mut self,
        now: Time,
        id: u64,
        offset: u64,
        len: u64,
        fin: bool,
        data: Option<&[u8]>,
    ) -> Result<(), (u64, String)> {
        // Our initial_max_streams_uni: the budget's stream count (the
        // simulator never sends MAX_STREAMS). A stream at or beyond it is a
        // STREAM_LIMIT_ERROR (RFC 9000 §4.6).
        let limit = self
            .cfg
            .fc
            .budget
            .map_or(self.expected_streams, |b| b.max_streams);
        if stream_index(id).is_some_and(|i| i >= limit) {
            return Err((0x04, format!("stream {id} beyond the stream limit {limit}")));
        }
        let Some(index) = stream_index(id).filter(|&i| i < self.expected_streams) else {
            // STREAM_STATE_ERROR (RFC 9000 §19.8) for streams we never expect.
            return Err((0x05, format!("unexpected stream {id}")));
        };
        let end = offset
            .checked_add(len)
            .ok_or((0x07, "offset overflow".to_string()))?;
        if self.finished(index) {
            return Ok(()); // late duplicate for a stream read to its end
        }
        let sid = StreamId(id);
        let opened = self.rx.stream(sid).is_some();
        self.rx
            .on_data(sid, end, fin, now.as_duration())
            .map_err(fc_err)?;
        if !opened {
            self.recv.insert(id, RecvStream::new(index));
            self.opened_streams += 1;
            let w = self.rx.stream(sid).map_or(0, ReceiverFlowControl::window);
            self.stats.peak_stream_window = self.stats.peak_stream_window.max(w);
            self.take_changes(now);
        }
        let s = self.recv.get_mut(&id).expect("opened above");
        if fin {
            s.final_size = Some(end);
        }
        let (buffered, failures) = s.store(offset, len, data);
        self.stats.verify_failures += failures;
        self.recv_buffer += buffered;
        self.stats.peak_recv_buffer = self.stats.peak_recv_buffer.max(self.recv_buffer);
        if s.contiguous_end() > s.read_offset() || s.final_size == Some(s.read_offset()) {
            self.readable.insert(id);
        }
        self.note_credit();
        Ok(())
    }

    fn finished(&self, index: u64) -> bool {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.stats.stream_completion.get(i))
            .is_some_and(Option::is_some)
    }

    /// Records the window changes the flow controller made.
    fn take_changes(&mut self, now: Time) {
        let changes: Vec<WindowChange> = self.rx.drain_changes().collect();
        for c in changes {
            self.on_change(now, Some(c));
        }
    }

    fn note_credit(&mut self) {
        let committed = self.rx.committed();
        self.stats.peak_total_credit = self.stats.peak_total_credit.max(committed);
        if self.cfg.fc.budget.is_some() {
            let budget = self.rx.budget();
            self.stats.peak_budget = self.stats.peak_budget.max(budget);
            if committed > budget {
                self.stats.budget_violations += 1;
            }
        }
    }

    /// The application reads what it may.
    fn read(&mut self, now: Time) {
        if self.readable.is_empty() {
            return;
        }
        let mut budget = self.reader.budget(now);
        let mut ids = std::mem::take(&mut self.scratch);
        ids.extend(self.readable.iter().copied());
        for &id in &ids {
            if budget == 0 {
                break;
            }
            let Some(s) = self.recv.get_mut(&id) else {
                self.readable.remove(&id);
                continue;
            };
            if self.reader.stalled(s.index, now) {
                if self.forget_dead_readers && self.reader.stalled_for_good(s.index, now) {
                    // Never read again: drop it from the scan so thousands
                    // of dead readers cost nothing per packet.
                    self.readable.remove(&id);
                }
                continue;
            }
            let s_index = s.index;
            let avail = self
                .reader
                .readable(s.read_offset(), s.contiguous_end(), s.final_size);
            let n = avail.min(budget);
            if n > 0 {
                let to = s.read_offset() + n;
                s.advance_read(to);
                // Cannot fail: `to` lies within contiguous received data.
                let _ = self.rx.retire(StreamId(id), to);
                budget -= n;
                self.reader.consume(n);
                self.recv_buffer -= n;
                self.stats.delivered += n;
                if !self.reader.stalls(s_index) {
                    self.delivered_unstalled += n;
                }
            }
            let s = &self.recv[&id];
            let more = self
                .reader
                .readable(s.read_offset(), s.contiguous_end(), s.final_size);
            if s.all_read() {
                let index = usize::try_from(s.index).unwrap_or(usize::MAX);
                if let Some(slot) = self.stats.stream_completion.get_mut(index) {
                    *slot = Some(now);
                }
                self.completed_streams += 1;
                self.readable.remove(&id);
                self.recv.remove(&id);
                self.rx.close_stream(StreamId(id));
            } else if more == 0 {
                self.readable.remove(&id);
            }
        }
        ids.clear();
        self.scratch = ids;
    }

    /// Largest receive window over open streams (0 when none is open).
    #[must_use]
    pub fn stream_window_now(&self) -> u64 {
        self.recv
            .keys()
            .filter_map(|&id| self.rx.stream(StreamId(id)))
            .map(ReceiverFlowControl::window)
            .max()
            .unwrap_or(0)
    }

    /// Connection receive window.
    #[must_use]
    pub fn conn_window_now(&self) -> u64 {
        self.rx.connection().window()
    }

    /// Bytes received and not yet read, all streams.
    #[must_use]
    pub fn recv_buffer_now(&self) -> u64 {
        self.recv_buffer
    }

    /// Credit outstanding over open streams.
    #[must_use]
    pub fn total_credit_now(&self) -> u64 {
        self.rx.committed()
    }

    /// True when every expected stream was read to its end (stalled
    /// readers do not count as done).
    #[must_use]
    pub fn all_streams_completed(&self) -> bool {
        self.completed_streams == self.expected_streams
    }

    /// True when every expected stream was read to its end, or its reader
    /// stopped for good.
    #[must_use]
    pub fn all_streams_read(&self, now: Time) -> bool {
        if self.completed_streams == self.expected_streams {
            return true;
        }
        let Some(stall) = self.reader.stall() else {
            return false;
        };
        if !stall.permanent()
            || self.completed_streams + u64::from(stall.streams) < self.expected_streams
        {
            return false;
        }
        (0..self.expected_streams).all(|i| self.finished(i) || self.reader.stalled_for_good(i, now))
    }

    /// Bytes read on streams that never stall.
    #[must_use]
    pub fn delivered_unstalled(&self) -> u64 {
        self.delivered_unstalled
    }

    fn on_acked(&mut self, p: &SentPacket) {
        for f in &p.frames {
            match *f {
                SentFrame::Stream {
                    id, offset, len, ..
                } => {
                    if let Some(i) = self.send_index(id) {
                        self.send[i].on_acked(offset, len);
                    }
                }
                SentFrame::MaxData(limit) => self.rx.update_acked(Subject::Connection, limit),
                SentFrame::MaxStreamData { id, limit } => {
                    self.rx.update_acked(Subject::Stream(StreamId(id)), limit);
                }
                SentFrame::DataBlocked(_) | SentFrame::StreamDataBlocked { .. } => {}
            }
        }
    }

    fn on_lost(&mut self, now: Time, lost: Vec<(SentPacket, LossTrigger)>) {
        for (p, trigger) in lost {
            self.stats.packets_lost += 1;
            self.record(
                now,
                TraceEvent::PacketLost {
                    pn: p.pn,
                    trigger: trigger.as_str(),
                },
            );
            self.requeue(&p.frames);
        }
        self.cc_state_check(now);
    }

    /// Puts the content of a lost (or probed) packet back in line.
    fn requeue(&mut self, frames: &[SentFrame]) {
        for f in frames {
            match *f {
                SentFrame::Stream {
                    id, offset, len, ..
                } => {
                    if let Some(i) = self.send_index(id) {
                        self.send[i].on_lost(offset, len);
                        self.activate(i);
                    }
                }
                SentFrame::MaxData(limit) => self.rx.update_lost(Subject::Connection, limit),
                SentFrame::MaxStreamData { id, limit } => {
                    self.rx.update_lost(Subject::Stream(StreamId(id)), limit);
                }
                SentFrame::DataBlocked(limit) => self.conn_tx.blocked_lost(limit),
                SentFrame::StreamDataBlocked { id, limit } => {
                    if let Some(i) = self.send_index(id) {
                        self.send[i].fc.blocked_lost(limit);
                        self.blocked_streams.insert(i);
                    }
                }
            }
        }
    }

    fn activate(&mut self, i: usize) {
        if !self.in_active[i] {
            self.in_active[i] = true;
            self.active.push_back(i);
        }
    }

    fn metrics_updated(&mut self, now: Time) {
        let cwnd = self.recovery.cc.cwnd();
        self.stats.peak_cwnd = self.stats.peak_cwnd.max(cwnd);
        self.cc_state_check(now);
        if self.tracing() {
            let r = &self.recovery.rtt;
            let ev = TraceEvent::MetricsUpdated {
                cwnd,
                bytes_in_flight: self.recovery.cc.bytes_in_flight(),
                smoothed_rtt_us: micros(r.smoothed()),
                min_rtt_us: micros(r.min_rtt()),
                latest_rtt_us: micros(r.latest()),
                ssthresh: self.recovery.cc.ssthresh(),
            };
            self.record(now, ev);
        }
    }

    fn cc_state_check(&mut self, now: Time) {
        let state = self.recovery.cc.state();
        if state != self.cc_state {
            let old = self.cc_state;
            self.cc_state = state;
            self.record(now, TraceEvent::CongestionStateUpdated { old, new: state });
        }
    }

    // ---------------------------------------------------------------
    // Timers.

    /// The earliest time this endpoint needs to act without input.
    #[must_use]
    pub fn next_timeout(&self, now: Time) -> Option<Time> {
        if self.closed.is_some() {
            return None;
        }
        let mut t = self.recovery.timeout();
        let mut take = |x: Option<Time>| {
            if let Some(x) = x {
                t = Some(t.map_or(x, |t| t.min(x)));
            }
        };
        if self.acks.has_new() {
            take(self.acks.deadline());
        }
        if let Some(h) = &self.hostile {
            take(h.next_ack_release());
        }
        if self.has_sendable_data() && self.recovery.cwnd_room() >= u64::from(self.cfg.max_datagram)
        {
            take(Some(
                self.recovery
                    .pacing_time(now, u64::from(self.cfg.max_datagram)),
            ));
        }
        if !self.readable.is_empty() {
            // Wake for read budget only if a stream can use it now; a
            // stalled one wakes at the stall's end instead.
            let can_read = self
                .readable
                .iter()
                .filter_map(|id| self.recv.get(id))
                .any(|s| !self.reader.stalled(s.index, now));
            if can_read && !self.reader.unlimited() {
                take(self.reader.next_budget_time(now));
            }
            take(self.reader.stall_end(now));
        }
        t
    }

    /// Handles timers due at `now`.
    pub fn on_timeout(&mut self, now: Time) {
        if self.closed.is_some() {
            return;
        }
        match self.recovery.on_timeout(now) {
            TimeoutOutcome::None => {}
            TimeoutOutcome::Lost(lost) => self.on_lost(now, lost),
            TimeoutOutcome::Probe => {
                self.probes = 2;
                // Resend the oldest outstanding data in the probes
                // (RFC 9002 §6.2.4) if no new data is waiting.
                if !self.has_sendable_data() {
                    let frames: Vec<SentFrame> = self
                        .recovery
                        .oldest_outstanding(2)
                        .flat_map(|p| p.frames.iter().copied())
                        .collect();
                    self.requeue(&frames);
                }
            }
        }
        self.read(now);
    }

    // ---------------------------------------------------------------
    // Sending.

    fn has_sendable_data(&self) -> bool {
        let conn_avail = self.conn_tx.available();
        self.active
            .iter()
            .any(|&i| self.send[i].sendable(conn_avail))
    }

    fn control_due(&self) -> bool {
        self.rx.update_pending()
            || self.conn_tx.blocked_needed().is_some()
            || !self.blocked_streams.is_empty()
    }

    /// Writes every packet this endpoint may send at `now` into `out`.
    /// `pool` supplies empty frame vectors to reuse.
    pub fn output(&mut self, now: Time, out: &mut Vec<Packet>, pool: &mut Vec<Vec<Frame>>) {
        if self.closed.is_some() {
            self.send_close(now, out, pool);
            return;
        }
        let unpaced = self
            .hostile
            .as_ref()
            .is_some_and(|h| h.mode().ignores_pacing());
        loop {
            let mds = u64::from(self.cfg.max_datagram);
            let cwnd_ok = self.recovery.cwnd_room() >= mds || self.probes > 0;
            let paced_ok = unpaced || self.recovery.pacing_time(now, mds) <= now || self.probes > 0;
            let data = cwnd_ok && paced_ok && self.has_sendable_data();
            let control = cwnd_ok && self.control_due();
            let ack = self.acks.ack_now(now)
                || self
                    .hostile
                    .as_ref()
                    .and_then(HostileSender::next_ack_release)
                    .is_some_and(|t| t <= now);
            if !(data || control || ack || self.probes > 0) {
                break;
            }
            if !self.build_packet(now, data, out, pool) {
                break;
            }
        }
        self.update_fc_blocked(now);
    }

    /// Sends one packet with our CONNECTION_CLOSE (RFC 9000 §10.2), once,
    /// after we closed the connection for a local error.
    fn send_close(&mut self, now: Time, out: &mut Vec<Packet>, pool: &mut Vec<Vec<Frame>>) {
        if !self.close_pending {
            return;
        }
        self.close_pending = false;
        let Some((code, reason)) = self.closed.clone() else {
            return;
        };
        let mut frames = pool.pop().unwrap_or_default();
        let mut reason = reason.into_bytes();
        reason.truncate(64);
        frames.push(Frame::ConnectionClose {
            error_code: code,
            frame_type: 0,
            reason,
        });
        let pn = self.next_pn;
        self.next_pn += 1;
        if let Some(traced) = self.traced_frames(&frames) {
            let pkt = Packet::new(pn, frames, self.cfg.verify);
            let size = pkt.size;
            self.record(
                now,
                TraceEvent::PacketSent {
                    pn,
                    size,
                    frames: traced,
                },
            );
            out.push(pkt);
        } else {
            out.push(Packet::new(pn, frames, self.cfg.verify));
        }
    }

    fn update_fc_blocked(&mut self, now: Time) {
        let blocked = self.new_left > 0
            && self.recovery.cwnd_room() >= u64::from(self.cfg.max_datagram)
            && !self.has_sendable_data();
        match (blocked, self.fc_blocked_since) {
            (true, None) => self.fc_blocked_since = Some(now),
            (false, Some(since)) => {
                self.stats.fc_blocked += now - since;
                self.fc_blocked_since = None;
            }
            _ => {}
        }
    }

    /// Closes the blocked-time accounting at the end of a run.
    pub fn finish(&mut self, now: Time) {
        if let Some(since) = self.fc_blocked_since.take() {
            self.stats.fc_blocked += now - since;
        }
    }

    fn build_packet(
        &mut self,
        now: Time,
        with_data: bool,
        out: &mut Vec<Packet>,
        pool: &mut Vec<Vec<Frame>>,
    ) -> bool {
        let mut space = self.cfg.max_datagram as usize - PACKET_OVERHEAD;
        let mut frames = pool.pop().unwrap_or_default();
        let mut sent = SentFrames::new();
        if self.acks.has_new()
            && let Some(ack) = self.acks.make_ack(now)
        {
            // A hostile peer may hold the ACK back and send an older one.
            let ack = match &mut self.hostile {
                None => Some(ack),
                Some(h) => h.hold_ack(now, ack).or_else(|| h.release_ack(now)),
            };
            if let Some(ack) = ack {
                space = space.saturating_sub(ack.encoded_len());
                frames.push(ack);
            }
        } else if let Some(ack) = self.hostile.as_mut().and_then(|h| h.release_ack(now)) {
            space = space.saturating_sub(ack.encoded_len());
            frames.push(ack);
        }
        self.write_control(now, &mut space, &mut frames, &mut sent);
        if let Some(h) = &mut self.hostile {
            let (limit, initial) = (self.conn_tx.limit(), self.cfg.fc.initial_connection_window);
            let verify = self.cfg.verify;
            self.stats.blocked_frames_sent +=
                h.add_frames(&self.send, limit, initial, verify, &mut space, &mut frames);
        }
        if with_data {
            self.write_stream_data(&mut space, &mut frames, &mut sent);
        }
        let mut eliciting = frames.iter().any(Frame::is_ack_eliciting);
        if self.probes > 0 {
            self.probes -= 1;
            if !eliciting {
                frames.push(Frame::Ping);
                eliciting = true;
            }
        }
        if frames.is_empty() {
            pool.push(frames);
            return false;
        }
        let pn = self.next_pn;
        self.next_pn += 1;
        let traced = self.traced_frames(&frames);
        let pkt = Packet::new(pn, frames, self.cfg.verify);
        if let Some(frames) = traced {
            let size = pkt.size;
            self.record(now, TraceEvent::PacketSent { pn, size, frames });
        }
        let in_flight = eliciting;
        let cwnd_limited = in_flight
            && (self.recovery.cc.bytes_in_flight() + u64::from(pkt.size)) * 2
                >= self.recovery.cc.cwnd();
        self.recovery.on_packet_sent(
            now,
            SentPacket {
                pn,
                time_sent: now,
                size: pkt.size,
                ack_eliciting: eliciting,
                in_flight,
                cwnd_limited,
                frames: sent,
            },
        );
        out.push(pkt);
        true
    }

    fn write_control(
        &mut self,
        now: Time,
        space: &mut usize,
        frames: &mut Vec<Frame>,
        sent: &mut SentFrames,
    ) {
        const ROOM: usize = 24;
        let rtt = self.rtt();
        while *space >= ROOM {
            let Some(u) = self.rx.next_update(now.as_duration(), rtt) else {
                break;
            };
            let (f, sf) = match u.subject {
                Subject::Connection => (
                    Frame::MaxData { maximum: u.limit },
                    SentFrame::MaxData(u.limit),
                ),
                Subject::Stream(StreamId(id)) => (
                    Frame::MaxStreamData {
                        stream_id: id,
                        maximum: u.limit,
                    },
                    SentFrame::MaxStreamData { id, limit: u.limit },
                ),
            };
            *space = space.saturating_sub(f.encoded_len());
            frames.push(f);
            sent.push(sf);
            self.stats.window_updates_sent += 1;
        }
        self.take_changes(now);
        self.note_credit();
        if *space >= ROOM
            && let Some(limit) = self.conn_tx.blocked_needed()
        {
            self.conn_tx.blocked_sent();
            frames.push(Frame::DataBlocked { limit });
            sent.push(SentFrame::DataBlocked(limit));
            self.stats.blocked_frames_sent += 1;
        }
        while *space >= ROOM {
            let Some(i) = self.blocked_streams.pop_first() else {
                break;
            };
            let s = &mut self.send[i];
            if let Some(limit) = s.fc.blocked_needed() {
                s.fc.blocked_sent();
                let f = Frame::StreamDataBlocked {
                    stream_id: s.id,
                    limit,
                };
                *space = space.saturating_sub(f.encoded_len());
                frames.push(f);
                sent.push(SentFrame::StreamDataBlocked { id: s.id, limit });
                self.stats.blocked_frames_sent += 1;
            }
        }
    }

    fn write_stream_data(
        &mut self,
        space: &mut usize,
        frames: &mut Vec<Frame>,
        sent: &mut SentFrames,
    ) {
        // Smallest useful STREAM frame; the header is at most
        // 1 (type) + 8 (id) + 8 (offset) + 2 (length) bytes.
        const HEADER: usize = 1 + 8 + 8 + 2;
        const MIN_FRAME: usize = HEADER + 13;
        let mut tried = 0;
        while *space > MIN_FRAME && tried < self.active.len() {
            let Some(i) = self.active.pop_front() else {
                break;
            };
            let conn_avail = self.conn_tx.available();
            let s = &mut self.send[i];
            let Some(chunk) = s.next_chunk((*space - HEADER) as u64, conn_avail) else {
                if s.stream_blocked() {
                    if s.fc.blocked() {
                        self.blocked_streams.insert(i);
                    }
                    self.in_active[i] = false;
                } else if s.new_left() > 0 {
                    // Connection-blocked: stays in line for MAX_DATA.
                    self.active.push_back(i);
                    tried += 1;
                } else {
                    self.in_active[i] = false;
                }
                continue;
            };
            tried = 0;
            if chunk.retransmission {
                self.stats.retransmitted_bytes += chunk.len;
            } else {
                self.conn_tx.consume(chunk.len);
                self.new_left -= chunk.len;
            }
            let data = self
                .cfg
                .verify
                .then(|| pattern(s.id, chunk.offset, chunk.len));
            let f = Frame::Stream {
                stream_id: s.id,
                offset: chunk.offset,
                length: chunk.len,
                fin: chunk.fin,
                data,
            };
            *space = space.saturating_sub(f.encoded_len());
            frames.push(f);
            sent.push(SentFrame::Stream {
                id: s.id,
                offset: chunk.offset,
                len: chunk.len,
                fin: chunk.fin,
            });
            // Round robin: a stream with more to send goes to the back.
            if s.has_retransmit() || (s.new_left() > 0 && s.fc.available() > 0) {
                self.active.push_back(i);
            } else {
                if s.stream_blocked() && s.fc.blocked() {
                    self.blocked_streams.insert(i);
                }
                self.in_active[i] = false;
            }
        }
        if self.conn_tx.available() == 0 && self.new_left > 0 {
            self.conn_tx.blocked();
        }
    }
}

fn fc_err(e: neqo_fc::Error) -> (u64, String) {
    (e.code(), e.to_string())
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}
