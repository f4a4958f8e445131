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
        cc::CcAlgorithm,
        frame::Frame,
    },
    scenario::{Hostile, TransportOptions},
    time::Time,
    trace::{Endpoint, Parameters, TraceEvent, TraceLevel, TraceRecord},
};

mod output;

/// The `min_ack_delay` both ends advertise (neqo: its 1 ms timer
/// granularity); the shortest ACK delay an ACK_FREQUENCY request asks for.
const MIN_ACK_DELAY: Duration = Duration::from_millis(1);

/// Settings of one endpoint.
#[derive(Clone)]
pub struct ConnConfig {
    /// Which end this is.
    pub endpoint: Endpoint,
    /// Datagrams, ACKs, pacing, send buffer, ECN: the same on both ends.
    pub transport: TransportOptions,
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
            u64::from(cfg.transport.max_datagram_size),
            cfg.transport.max_ack_delay,
            cfg.transport.pacing,
        );
        let recovery = recovery.with_app_limit(cfg.transport.app_limit);
        let recovery = if cfg.transport.ecn {
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
            acks: AckState::new(cfg.transport.ack_ratio, cfg.transport.max_ack_delay),
            send: SendStreams::new(
                send.kind,
                send.bytes,
                send.on_request,
                fc.initial_stream_window,
                fc.initial_connection_window,
                cfg.transport.send_buffer,
                cfg.transport.blocked_on_write,
            )
            .in_stream_order(cfg.transport.streams_in_order),
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
        if self.cfg.transport.open_requests_at_request
            && let Err((code, reason)) = self.recv.open_all_requests()
        {
            self.close(now, code, reason);
        }
        // neqo sets its ACK rate up when the handshake ends, from the
        // initial window; the peer meanwhile acks at the default rate.
        self.ack_frequency = self.cfg.transport.ack_frequency.map(|ratio| {
            AckFrequencySender::new(
                ratio,
                MIN_ACK_DELAY,
                AckRate {
                    packet_tolerance: self.cfg.transport.ack_ratio,
                    max_ack_delay: self.cfg.transport.max_ack_delay,
                },
                self.recovery.cc.cwnd(),
                self.cfg.transport.max_datagram_size,
                self.recovery.rtt.smoothed(),
            )
        });
        let params = Parameters {
            initial_max_data: self.cfg.fc.initial_connection_window,
            initial_max_stream_data: self.cfg.fc.initial_stream_window,
            max_ack_delay_ms: u64::try_from(self.cfg.transport.max_ack_delay.as_millis())
                .unwrap_or(0),
            max_udp_payload_size: u64::from(self.cfg.transport.max_datagram_size),
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
            take(Some(self.recovery.pacing_time(
                now,
                u64::from(self.cfg.transport.max_datagram_size),
            )));
        }
        if self.control_due() && self.cwnd_open() {
            let t = self
                .recovery
                .control_pacing_time(now, u64::from(self.cfg.transport.max_datagram_size));
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
        self.recovery.cwnd_room() >= u64::from(self.cfg.transport.max_datagram_size)
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
                    self.cfg.transport.max_datagram_size,
                    self.recovery.rtt.smoothed(),
                );
            }
        }
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
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}
