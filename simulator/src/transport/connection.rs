//! One endpoint of the QUIC-like connection: packets in and out, frame
//! dispatch, ACKs, loss recovery and timers.
//!
//! HTTP/3-like: the client sends a small request on each of its
//! bidirectional streams; the server reads it and answers on the same
//! stream with the workload's bytes, which the client's [`Application`]
//! reads. Both ends run the same machinery. The
//! endpoint owns its parts and wires them together; each part keeps its
//! own state:
//!
//! - [`SendStreams`]: outgoing streams, send credit, *_BLOCKED owed;
//! - [`RecvStreams`]: incoming streams, receive windows, MAX_* owed;
//! - [`Application`]: when and how much the client reads;
//! - [`Recovery`] and [`AckState`]: RFC 9002 loss recovery, congestion
//!   control, pacing, and what to acknowledge;
//! - [`ConnStats`] and [`Tracer`]: what is measured and recorded.

use std::{sync::Arc, time::Duration};

use neqo_fc::{Role, Rtt, Tuner, ValidConfig, WindowChange};

use super::{
    StreamKind,
    ack_state::AckState,
    application::Application,
    hostile::HostileSender,
    packet::Packet,
    reader::Reader,
    recovery::{LossTrigger, Recovery, TimeoutOutcome},
    recv_streams::{RecvStreams, TransportError},
    send_streams::{CONTROL_ROOM, SendStreams},
    sent::{SentFrame, SentFrames, SentPacket},
    stats::ConnStats,
    tracer::Tracer,
};
use crate::{
    net::Ecn,
    quic::{
        ack_frequency::{AckFrequencySender, AckRate},
        app_limit::AppLimit,
        cc::CcAlgorithm,
        frame::Frame,
        pacer::Pacing,
    },
    scenario::Hostile,
    time::Time,
    trace::{Endpoint, Parameters, TraceEvent, TraceLevel, TraceRecord},
};

/// The `min_ack_delay` both ends advertise (neqo: its 1 ms timer
/// granularity); the shortest ACK delay an ACK_FREQUENCY request asks for.
const MIN_ACK_DELAY: Duration = Duration::from_millis(1);

/// Settings of one endpoint.
#[derive(Clone)]
pub struct ConnConfig {
    /// Which end this is.
    pub endpoint: Endpoint,
    /// Largest UDP payload.
    pub max_datagram: u32,
    /// Bytes of short header and AEAD tag per packet
    /// ([`crate::scenario::TransportOptions::packet_overhead`]).
    pub packet_overhead: u32,
    /// ACK every this many ack-eliciting packets.
    pub ack_ratio: u32,
    /// Our and the peer's `max_ack_delay`.
    pub max_ack_delay: Duration,
    /// Ask the peer for an ACK rate with ACK_FREQUENCY, with this ratio
    /// ([`crate::scenario::TransportOptions::ack_frequency`]).
    pub ack_frequency: Option<u8>,
    /// Pacing gain and burst.
    pub pacing: Pacing,
    /// Per-stream send buffer ([`crate::scenario::TransportOptions::send_buffer`]).
    pub send_buffer: Option<u64>,
    /// Report *_BLOCKED when the application's writes reach a limit
    /// ([`crate::scenario::TransportOptions::blocked_on_write`]).
    pub blocked_on_write: bool,
    /// Which packets count as using the congestion window
    /// ([`crate::scenario::TransportOptions::app_limit`]).
    pub app_limit: AppLimit,
    /// ACK frames only when an acknowledgement is due
    /// ([`crate::scenario::TransportOptions::acks_when_due`]).
    pub acks_when_due: bool,
    /// Send streams by stream ID, not round robin
    /// ([`crate::scenario::TransportOptions::streams_in_order`]).
    pub streams_in_order: bool,
    /// The client opens its request streams' receive sides as it sends
    /// the requests
    /// ([`crate::scenario::TransportOptions::open_requests_at_request`]).
    pub open_requests_at_request: bool,
    /// Mark every packet ECT(0) and answer CE counts in the peer's ACKs
    /// ([`crate::scenario::TransportOptions::ecn`]).
    pub ecn: bool,
    /// Flow-control settings (ours; the peer uses the same initial limits).
    pub fc: ValidConfig,
    /// Receive-window tuner.
    pub tuner: Arc<dyn Tuner + Send + Sync>,
    /// Congestion controller.
    pub cc: CcAlgorithm,
    /// Encode frames to bytes and check payloads.
    pub verify: bool,
    /// Trace level.
    pub trace: TraceLevel,
}

/// What an endpoint sends: streams of `kind` with `bytes[i]` on stream `i`,
/// each as soon as the run starts or (`on_request`) once the peer's request
/// on that stream was read.
#[derive(Clone, Copy, Debug)]
pub struct Outgoing<'a> {
    /// Request streams (either end) or pushed streams (a hostile server).
    pub kind: StreamKind,
    /// Bytes per stream.
    pub bytes: &'a [u64],
    /// Each stream waits for the peer's request on it.
    pub on_request: bool,
}

/// One endpoint.
///
/// Invariants: once `closed` is set the endpoint sends nothing but its own
/// CONNECTION_CLOSE (once, if `close_pending`) and processes no packet;
/// `next_pn` only grows.
pub struct Connection {
    cfg: ConnConfig,
    next_pn: u64,
    /// Loss recovery and congestion control.
    pub recovery: Recovery,
    acks: AckState,
    send: SendStreams,
    recv: RecvStreams,
    app: Application,
    /// Packets still to send as PTO probes.
    probes: u32,
    /// Counters and peaks.
    pub stats: ConnStats,
    tracer: Tracer,
    /// Set when the connection closed with an error (code, reason).
    pub closed: Option<(u64, String)>,
    /// Scripted misbehaviour (server only; `None` = a well-behaved peer).
    hostile: Option<HostileSender>,
    /// A CONNECTION_CLOSE for our own error still has to go out.
    close_pending: bool,
    /// Set when a CONNECTION_CLOSE from the peer arrived.
    pub close_received: bool,
    /// The ACK rate we ask the peer for (from [`Connection::start`] on,
    /// when [`ConnConfig::ack_frequency`] is set).
    ack_frequency: Option<AckFrequencySender>,
    /// Congestion-window reductions already passed to `ack_frequency`.
    reductions_seen: u64,
}

impl Connection {
    /// An endpoint. `send`: what this end sends; `expected_streams`:
    /// request streams it will receive on; `reader`: how its application
    /// reads.
    #[must_use]
    pub fn new(cfg: ConnConfig, send: Outgoing<'_>, expected_streams: u64, reader: Reader) -> Self {
        let fc = cfg.fc;
        let recovery = Recovery::new(
            cfg.cc,
            u64::from(cfg.max_datagram),
            cfg.max_ack_delay,
            cfg.pacing,
        );
        let recovery = recovery.with_app_limit(cfg.app_limit);
        let recovery = if cfg.ecn {
            recovery.with_ecn()
        } else {
            recovery
        };
        let role = match cfg.endpoint {
            Endpoint::Client => Role::Client,
            Endpoint::Server => Role::Server,
        };
        let recv = RecvStreams::new(role, fc, Arc::clone(&cfg.tuner), expected_streams);
        Self {
            next_pn: 0,
            acks: AckState::new(cfg.ack_ratio, cfg.max_ack_delay),
            send: SendStreams::new(
                send.kind,
                send.bytes,
                send.on_request,
                fc.initial_stream_window,
                fc.initial_connection_window,
                cfg.send_buffer,
                cfg.blocked_on_write,
            )
            .in_stream_order(cfg.streams_in_order),
            stats: ConnStats::new(recv.conn_window(), recovery.cc.cwnd()),
            recovery,
            recv,
            app: Application::new(reader, expected_streams),
            probes: 0,
            tracer: Tracer::new(cfg.endpoint, cfg.trace),
            closed: None,
            hostile: None,
            close_pending: false,
            close_received: false,
            ack_frequency: None,
            reductions_seen: 0,
            cfg,
        }
    }

    /// Makes this endpoint misbehave as `mode` scripts (see
    /// [`Hostile`]); call before the run starts.
    pub fn set_hostile(&mut self, mode: Hostile) {
        self.hostile = Some(HostileSender::new(mode));
    }

    /// The application (the client's reader; the server's reads nothing).
    #[must_use]
    pub fn app(&self) -> &Application {
        &self.app
    }

    /// The application, to configure before the run starts.
    pub fn app_mut(&mut self) -> &mut Application {
        &mut self.app
    }

    /// The receive side, for measurements.
    #[must_use]
    pub fn recv(&self) -> &RecvStreams {
        &self.recv
    }

    /// The recorded events so far, leaving none.
    pub fn take_trace(&mut self) -> Vec<TraceRecord> {
        self.tracer.take()
    }

    /// Seeds the RTT estimator with the handshake's sample, and records
    /// both ends' transport parameters.
    pub fn start(&mut self, now: Time, handshake_rtt: Duration) {
        self.recovery.seed_rtt(now, handshake_rtt);
        if self.cfg.open_requests_at_request
            && let Err((code, reason)) = self.recv.open_all_requests()
        {
            self.close(now, code, reason);
        }
        // neqo sets its ACK rate up when the handshake ends, from the
        // initial window; the peer meanwhile acks at the default rate.
        self.ack_frequency = self.cfg.ack_frequency.map(|ratio| {
            AckFrequencySender::new(
                ratio,
                MIN_ACK_DELAY,
                AckRate {
                    packet_tolerance: self.cfg.ack_ratio,
                    max_ack_delay: self.cfg.max_ack_delay,
                },
                self.recovery.cc.cwnd(),
                self.cfg.max_datagram,
                self.recovery.rtt.smoothed(),
            )
        });
        let params = Parameters {
            initial_max_data: self.cfg.fc.initial_connection_window,
            initial_max_stream_data: self.cfg.fc.initial_stream_window,
            max_ack_delay_ms: u64::try_from(self.cfg.max_ack_delay.as_millis()).unwrap_or(0),
            max_udp_payload_size: u64::from(self.cfg.max_datagram),
        };
        for local in [true, false] {
            self.tracer
                .record(now, TraceEvent::ParametersSet { local, params });
        }
    }

    /// Lets the responses go whose requests the application read to the
    /// end (a no-op for streams that do not wait for one).
    fn answer_requests(&mut self) {
        for index in self.app.take_completed() {
            self.send.open(index);
        }
    }

    /// The RTT pair flow control tunes with (`None` before a sample).
    fn rtt(&self) -> Option<Rtt> {
        let min = self.recovery.rtt.min_rtt();
        Rtt::new(self.recovery.rtt.smoothed().max(min), min)
    }

    fn close(&mut self, now: Time, code: u64, reason: String) {
        if self.closed.is_none() {
            self.tracer.record(
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
        if !self.acks.on_packet(now, pkt.pn, eliciting, pkt.ecn) {
            frames.clear();
            return frames;
        }
        if let Some(traced) = self.tracer.received_frames(pkt.pn, &frames) {
            let (pn, size) = (pkt.pn, pkt.size);
            self.tracer.record(
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
        self.app.read(now, &mut self.recv);
        self.answer_requests();
        frames
    }

    fn on_frame(&mut self, now: Time, frame: Frame) -> Result<(), TransportError> {
        match frame {
            Frame::Ack {
                largest,
                ack_delay,
                ranges,
                ecn,
            } => {
                // CE counts matter only to a sender that marked its packets
                // ECT, once it validated them (RFC 9000 §13.4.2): recovery's
                // validator ignores them otherwise.
                let ecn_events = self.recovery.stats.ecn_events;
                let ecn_state = self.recovery.ecn_state();
                let out = self.recovery.on_ack(now, largest, ack_delay, &ranges, ecn);
                let new = self.recovery.ecn_state();
                if new != ecn_state {
                    self.tracer.record(
                        now,
                        TraceEvent::EcnStateUpdated {
                            old: ecn_state,
                            new,
                        },
                    );
                }
                if self.recovery.stats.ecn_events > ecn_events {
                    self.tracer.cc_state_by(now, self.recovery.cc.state(), true);
                }
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
            Frame::MaxData { maximum } => self.send.on_max_data(maximum),
            Frame::MaxStreamData { stream_id, maximum } => {
                self.send.on_max_stream_data(stream_id, maximum);
            }
            // The sender opens only the streams its workload has, all within
            // the limit the receiver starts with: nothing to raise.
            Frame::MaxStreams { .. } => {}
            Frame::AckFrequency {
                sequence,
                packet_tolerance,
                max_ack_delay_us,
                ..
            } => self.acks.on_ack_frequency(
                sequence,
                u32::try_from(packet_tolerance).unwrap_or(u32::MAX),
                Duration::from_micros(max_ack_delay_us),
            ),
            Frame::DataBlocked { limit } => self.recv.on_blocked(None, limit)?,
            Frame::StreamDataBlocked { stream_id, limit } => {
                self.recv.on_blocked(Some(stream_id), limit)?;
            }
            Frame::ResetStream {
                stream_id,
                final_size,
                ..
            } => self.recv.on_reset(stream_id, final_size)?,
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

    fn on_stream_frame(
        &mut self,
        now: Time,
        id: u64,
        offset: u64,
        len: u64,
        fin: bool,
        data: Option<&[u8]>,
    ) -> Result<(), TransportError> {
        let Some(arrival) = self.recv.on_stream_frame(id, offset, len, fin, data)? else {
            return Ok(());
        };
        if let Some(window) = arrival.opened_window {
            self.stats.on_stream_window(window);
            self.take_changes(now);
        }
        self.stats.verify_failures += arrival.verify_failures;
        self.stats.on_recv_buffer(self.recv.buffered());
        self.note_credit();
        Ok(())
    }

    /// Records the window changes the flow controller made.
    fn take_changes(&mut self, now: Time) {
        let changes: Vec<WindowChange> = self.recv.drain_changes().collect();
        for mut c in changes {
            self.stats.on_window_change(&c);
            // The record carries the simulated time; the `Instant` flow
            // control was given depends on the wall clock at the start.
            c.now = None;
            self.tracer.record(now, TraceEvent::WindowChanged(c));
        }
    }

    fn note_credit(&mut self) {
        self.stats.on_credit(
            self.recv.committed(),
            self.recv.conn_credit(),
            self.recv.budget(),
        );
    }

    fn metrics_updated(&mut self, now: Time) {
        let cwnd = self.recovery.cc.cwnd();
        self.stats.on_cwnd(cwnd);
        self.tracer.cc_state(now, self.recovery.cc.state());
        if self.tracer.metrics_wanted() {
            let r = &self.recovery.rtt;
            let ev = TraceEvent::MetricsUpdated {
                cwnd,
                bytes_in_flight: self.recovery.cc.bytes_in_flight(),
                smoothed_rtt_us: micros(r.smoothed()),
                min_rtt_us: micros(r.min_rtt()),
                latest_rtt_us: micros(r.latest()),
                ssthresh: self.recovery.cc.ssthresh(),
            };
            self.tracer.record(now, ev);
        }
    }

    fn on_acked(&mut self, p: &SentPacket) {
        for f in &p.frames {
            match *f {
                SentFrame::Stream {
                    id, offset, len, ..
                } => self.send.on_acked(id, offset, len),
                SentFrame::Update(frame) => self.recv.update_acked(frame),
                SentFrame::AckFrequency { sequence, .. } => {
                    if let Some(a) = &mut self.ack_frequency {
                        a.on_acked(sequence);
                    }
                }
                SentFrame::DataBlocked(_) | SentFrame::StreamDataBlocked { .. } => {}
            }
        }
    }

    fn on_lost(&mut self, now: Time, lost: Vec<(SentPacket, LossTrigger)>) {
        for (p, trigger) in lost {
            self.stats.packets_lost += 1;
            self.tracer.lost(&p);
            self.tracer.record(
                now,
                TraceEvent::PacketLost {
                    pn: p.pn,
                    trigger: trigger.as_str(),
                },
            );
            self.requeue(&p.frames);
        }
        self.tracer.cc_state(now, self.recovery.cc.state());
    }

    /// Puts the content of a lost (or probed) packet back in line.
    fn requeue(&mut self, frames: &[SentFrame]) {
        for f in frames {
            match *f {
                SentFrame::Stream {
                    id, offset, len, ..
                } => self.send.on_lost(id, offset, len),
                SentFrame::Update(frame) => self.recv.update_lost(frame),
                SentFrame::AckFrequency { sequence, .. } => {
                    if let Some(a) = &mut self.ack_frequency {
                        a.on_lost(sequence);
                    }
                }
                SentFrame::DataBlocked(limit) => self.send.on_blocked_lost(None, limit),
                SentFrame::StreamDataBlocked { id, limit } => {
                    self.send.on_blocked_lost(Some(id), limit);
                }
            }
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
        if self.send.has_sendable_data() && self.cwnd_open() {
            take(Some(
                self.recovery
                    .pacing_time(now, u64::from(self.cfg.max_datagram)),
            ));
        }
        if self.control_due() && self.cwnd_open() {
            let t = self
                .recovery
                .control_pacing_time(now, u64::from(self.cfg.max_datagram));
            if t > now {
                take(Some(t));
            }
        }
        take(self.app.next_timeout(now, &self.recv));
        take(self.recv.next_timeout());
        t
    }

    /// Handles timers due at `now`.
    pub fn on_timeout(&mut self, now: Time) {
        if self.closed.is_some() {
            return;
        }
        if self.recv.next_timeout().is_some_and(|t| t <= now) {
            let rtt = self.rtt();
            self.recv.on_timeout(now, rtt);
            self.take_changes(now);
        }
        match self.recovery.on_timeout(now) {
            TimeoutOutcome::None => {}
            TimeoutOutcome::Lost(lost) => self.on_lost(now, lost),
            TimeoutOutcome::Probe => {
                self.probes = 2;
                // Resend the oldest outstanding data in the probes
                // (RFC 9002 §6.2.4) if no new data is waiting.
                if !self.send.has_sendable_data() {
                    let frames: Vec<SentFrame> = self
                        .recovery
                        .oldest_outstanding(2)
                        .flat_map(|p| p.frames.iter().copied())
                        .collect();
                    self.requeue(&frames);
                }
            }
        }
        self.app.read(now, &mut self.recv);
        self.answer_requests();
    }

    // ---------------------------------------------------------------
    // Sending.

    /// True when congestion control has room for a full packet.
    fn cwnd_open(&self) -> bool {
        self.recovery.cwnd_room() >= u64::from(self.cfg.max_datagram)
    }

    fn control_due(&self) -> bool {
        self.recv.update_pending()
            || self.send.blocked_due()
            || self
                .ack_frequency
                .as_ref()
                .is_some_and(AckFrequencySender::wants_to_send)
    }

    /// Passes a congestion event's reduced window to the ACK rate we ask
    /// for (neqo asks again only then).
    fn note_reductions(&mut self) {
        let reductions = self.recovery.window_reductions();
        if reductions != self.reductions_seen {
            self.reductions_seen = reductions;
            if let Some(a) = &mut self.ack_frequency {
                a.on_window_reduced(
                    self.recovery.cc.cwnd(),
                    self.cfg.max_datagram,
                    self.recovery.rtt.smoothed(),
                );
            }
        }
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
        self.note_reductions();
        loop {
            let mds = u64::from(self.cfg.max_datagram);
            let cwnd_ok = self.recovery.cwnd_room() >= mds || self.probes > 0;
            let paced_ok = unpaced || self.recovery.pacing_time(now, mds) <= now || self.probes > 0;
            let data = cwnd_ok && paced_ok && self.send.has_sendable_data();
            let control_paced =
                unpaced || self.probes > 0 || self.recovery.control_pacing_time(now, mds) <= now;
            let control = cwnd_ok && control_paced && self.control_due();
            let ack = self.acks.ack_now(now)
                || self
                    .hostile
                    .as_ref()
                    .and_then(HostileSender::next_ack_release)
                    .is_some_and(|t| t <= now);
            if !(data || control || ack || self.probes > 0) {
                break;
            }
            if !self.build_packet(now, data, control_paced, out, pool) {
                break;
            }
        }
        let cwnd_open = self.cwnd_open();
        if let Some(spell) = self.send.track_blocked(now, cwnd_open) {
            self.stats.fc_blocked += spell;
        }
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
        out.push(self.seal(now, frames));
    }

    /// The packet carrying `frames`: the next packet number, recorded in
    /// the trace, encoded in verify mode.
    fn seal(&mut self, now: Time, frames: Vec<Frame>) -> Packet {
        let pn = self.next_pn;
        self.next_pn += 1;
        let traced = self.tracer.sent_frames(pn, &frames);
        let mut pkt = Packet::new(
            pn,
            frames,
            self.cfg.packet_overhead as usize,
            self.cfg.verify,
        );
        if self.recovery.mark_next_ect() {
            pkt.ecn = Ecn::Ect0;
        }
        if let Some(frames) = traced {
            let size = pkt.size;
            self.tracer
                .record(now, TraceEvent::PacketSent { pn, size, frames });
        }
        pkt
    }

    /// True while flow control holds this endpoint's sending back: it has
    /// new data and congestion window but no credit.
    #[must_use]
    pub fn fc_blocked(&self) -> bool {
        self.send.blocked()
    }

    /// Closes the blocked-time accounting at the end of a run.
    pub fn finish(&mut self, now: Time) {
        if let Some(spell) = self.send.finish(now) {
            self.stats.fc_blocked += spell;
        }
    }

    fn build_packet(
        &mut self,
        now: Time,
        with_data: bool,
        with_control: bool,
        out: &mut Vec<Packet>,
        pool: &mut Vec<Vec<Frame>>,
    ) -> bool {
        let mut space =
            (self.cfg.max_datagram as usize).saturating_sub(self.cfg.packet_overhead as usize);
        let mut frames = pool.pop().unwrap_or_default();
        let mut sent = SentFrames::new();
        if self.acks.has_new()
            && (!self.cfg.acks_when_due || self.acks.ack_now(now))
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
        if with_control {
            if let Some(frame) = self
                .ack_frequency
                .as_mut()
                .and_then(AckFrequencySender::frame_to_send)
            {
                if let Frame::AckFrequency {
                    sequence,
                    packet_tolerance,
                    max_ack_delay_us,
                    ..
                } = frame
                {
                    sent.push(SentFrame::AckFrequency {
                        sequence,
                        packet_tolerance,
                        max_ack_delay_us,
                    });
                }
                space = space.saturating_sub(frame.encoded_len());
                frames.push(frame);
            }
            self.write_control(now, &mut space, &mut frames, &mut sent);
        }
        if let Some(h) = &mut self.hostile {
            let limit = self.send.conn_limit();
            let initial = self.cfg.fc.initial_connection_window;
            let verify = self.cfg.verify;
            let streams = self.send.streams();
            self.stats.blocked_frames_sent +=
                h.add_frames(streams, limit, initial, verify, &mut space, &mut frames);
        }
        if with_data {
            self.stats.retransmitted_bytes +=
                self.send
                    .write_data(self.cfg.verify, &mut space, &mut frames, &mut sent);
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
        let pkt = self.seal(now, frames);
        let pn = pkt.pn;
        let in_flight = eliciting;
        let cwnd_limited = in_flight
            && self
                .recovery
                .uses_window(u64::from(pkt.size), u64::from(self.cfg.max_datagram));
        self.recovery.on_packet_sent(
            now,
            SentPacket {
                pn,
                time_sent: now,
                size: pkt.size,
                ack_eliciting: eliciting,
                in_flight,
                cwnd_limited,
                ect: pkt.ecn == Ecn::Ect0,
                frames: sent,
            },
        );
        out.push(pkt);
        true
    }

    /// MAX_DATA / MAX_STREAM_DATA due, then *_BLOCKED owed, while `space`
    /// allows.
    fn write_control(
        &mut self,
        now: Time,
        space: &mut usize,
        frames: &mut Vec<Frame>,
        sent: &mut SentFrames,
    ) {
        let rtt = self.rtt();
        while *space >= CONTROL_ROOM {
            let Some((f, sf)) = self.recv.next_update(now, rtt) else {
                break;
            };
            *space = space.saturating_sub(f.encoded_len());
            frames.push(f);
            sent.push(sf);
            self.stats.window_updates_sent += 1;
        }
        self.take_changes(now);
        self.note_credit();
        self.stats.blocked_frames_sent += self.send.write_blocked(space, frames, sent);
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}
