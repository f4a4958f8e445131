//! The event loop: two endpoints, two paths, one event queue, one PRNG.

use std::{ops::ControlFlow, time::Duration};

use neqo_fc::ValidConfig;

use crate::{
    event::{EventHash, EventQueue},
    metrics::{Metrics, Sample},
    net::{Path, Verdict},
    progress::{Observer, PROGRESS_EVERY, Progress, RunEnd},
    rng::Rng,
    scenario::{CROSS_BYTES, CrossTraffic, RunResult, Scenario},
    time::Time,
    trace::Endpoint,
};

use super::{
    REQUEST_BYTES, StreamKind,
    connection::{ConnConfig, Connection, Outgoing},
    packet::Packet,
    reader::Reader,
};

/// Most samples kept; beyond this the interval doubles and every other
/// sample is dropped, so long runs stay small.
const MAX_SAMPLES: usize = 2048;

/// Events stay small (packets wait in a slab) so the heap moves little.
/// `flow` 0 is the measured connection, 1 the cross traffic's.
enum Event {
    Deliver {
        flow: u8,
        to: Endpoint,
        slot: u32,
    },
    Timer {
        flow: u8,
        who: Endpoint,
        generation: u64,
    },
    Start {
        flow: u8,
    },
}

/// The cross-traffic connection ([`CrossTraffic`]) and what the run
/// reports of it.
struct Cross {
    client: Connection,
    server: Connection,
    /// When it starts.
    start: Time,
    /// Bytes its client had read when the measured connection started.
    delivered_at_our_start: u64,
}

/// A point in a run: time and bytes read on unstalled streams.
type Mark = (Time, u64);

/// Packets in flight on the paths, addressed by slot.
#[derive(Default)]
struct Slab {
    packets: Vec<Option<Packet>>,
    free: Vec<u32>,
}

impl Slab {
    fn insert(&mut self, pkt: Packet) -> u32 {
        if let Some(i) = self.free.pop() {
            self.packets[i as usize] = Some(pkt);
            i
        } else {
            self.packets.push(Some(pkt));
            u32::try_from(self.packets.len() - 1).expect("fewer than 2^32 packets in flight")
        }
    }

    fn take(&mut self, slot: u32) -> Packet {
        self.free.push(slot);
        self.packets[slot as usize]
            .take()
            .expect("slot holds a packet")
    }
}

/// The client and server of `s`, whose flow-control settings validated
/// as `fc`, starting at `start` (the workload's stall counts from there).
fn endpoints(s: &Scenario, fc: ValidConfig, start: Duration) -> (Connection, Connection) {
    let streams = u64::from(s.workload.streams.max(1));
    let stall = s.workload.stall.map(|st| crate::scenario::Stall {
        start: st.start.saturating_add(start),
        ..st
    });
    let base = ConnConfig {
        endpoint: Endpoint::Client,
        transport: s.transport,
        fc,
        tuner: s.tuner.clone(),
        cc: s.cc,
        verify: s.verify,
        trace: s.trace,
    };
    // HTTP/3-like: the client asks on each of its bidirectional streams
    // and the server answers on the same stream.
    let requests = vec![REQUEST_BYTES; usize::try_from(streams).unwrap_or(0)];
    let mut client = Connection::new(
        base.clone(),
        Outgoing {
            kind: StreamKind::Request,
            bytes: &requests,
            on_request: false,
        },
        streams,
        Reader::new(s.workload.reader, stall, streams),
    );
    if s.hostile.is_some() {
        client.app_mut().forget_dead_readers();
    }
    let responses: Vec<u64> = (0..streams)
        .map(|i| s.workload.kind.stream_bytes(i))
        .collect();
    // A hostile server may push streams of its own instead.
    let (kind, send) = match &s.hostile {
        Some(h) => match h.pushed_streams() {
            Some(pushed) => (StreamKind::Push, pushed),
            None => (StreamKind::Request, responses),
        },
        None => (StreamKind::Request, responses),
    };
    let mut server = Connection::new(
        ConnConfig {
            endpoint: Endpoint::Server,
            ..base
        },
        Outgoing {
            kind,
            bytes: &send,
            on_request: kind == StreamKind::Request,
        },
        streams,
        Reader::new(crate::scenario::ReaderSpeed::Unlimited, None, streams),
    );
    if let Some(h) = s.hostile {
        server.set_hostile(h);
    }
    (client, server)
}

/// Runs one scenario to completion (an error, a stall, or its time limit).
///
/// A scenario whose flow-control settings do not validate
/// ([`Scenario::flow_control`]) simulates nothing: its result carries the
/// error (code 0x01, INTERNAL_ERROR, with the setting named).
#[must_use]
pub fn run(scenario: &Scenario) -> RunResult {
    run_observed(scenario, &mut |_| ControlFlow::Continue(()))
}

/// [`run`], calling `observer` every [`PROGRESS_EVERY`] events with where
/// the run stands; when it returns `Break` the run stops there
/// ([`RunEnd::Stopped`]) and reports what it got. An observer that never
/// breaks changes nothing: same events, same hash, same result.
#[must_use]
pub fn run_observed(scenario: &Scenario, observer: Observer<'_>) -> RunResult {
    match scenario.flow_control() {
        Ok(fc) => Simulation::new(scenario, fc).run(observer),
        Err(e) => RunResult {
            metrics: crate::metrics::Metrics {
                error: Some((0x01, format!("invalid flow-control settings: {e}"))),
                end: RunEnd::ConnectionError,
                ..crate::metrics::Metrics::default()
            },
            series: Vec::new(),
            trace: Vec::new(),
        },
    }
}

/// One run in progress.
pub struct Simulation {
    queue: EventQueue<Event>,
    client: Connection,
    server: Connection,
    /// A second connection sharing both paths, if the scenario has one.
    cross: Option<Box<Cross>>,
    /// When the measured connection starts.
    our_start: Time,
    /// Events of the measured connection in the queue: with none left it
    /// is idle, and the run ends even while the cross traffic goes on.
    ours_pending: u64,
    forward: Path,
    reverse: Path,
    rng: Rng,
    hash: EventHash,
    /// Per [`node`]: the pending timer and its generation.
    timer: [(Option<Time>, u64); 4],
    series: Vec<Sample>,
    sample_every: Duration,
    next_sample: Time,
    time_limit: Time,
    events: u64,
    out: Vec<Packet>,
    slab: Slab,
    /// Emptied frame vectors of delivered packets, reused for new ones
    /// (at most [`POOL_MAX`]).
    pool: Vec<Vec<crate::quic::frame::Frame>>,
    stall: Option<crate::scenario::Stall>,
    /// (time, unstalled bytes read) at the stall's start and end.
    stall_marks: (Option<Mark>, Option<Mark>),
    /// A hostile server: the run goes on while stalled readers hold data
    /// (until the peer is quiet, an error, or the time limit).
    hostile: bool,
    /// While the sender is flow-control blocked: since when (the last
    /// event), and until when the bottleneck stays busy with what was
    /// queued before (`None`: no bottleneck, so never busy).
    fc_watch: Option<(Time, Option<Time>)>,
    /// Time the sender was flow-control blocked while the bottleneck sat
    /// idle.
    fc_link_idle: Duration,
}

/// Most emptied frame vectors kept for reuse: about a gigabit BDP of
/// packets, so a window's worth of packets in flight comes back to the pool
/// instead of to the allocator (64 was drained by every burst).
const POOL_MAX: usize = 8192;

fn slot(e: Endpoint) -> usize {
    match e {
        Endpoint::Client => 0,
        Endpoint::Server => 1,
    }
}

/// The event-queue lane of deliveries to `to`: one per path direction
/// (both connections' packets cross the same FIFO paths).
fn lane(to: Endpoint) -> usize {
    slot(to)
}

/// One endpoint of one connection: 0–1 the measured, 2–3 the cross
/// traffic's.
fn node(flow: u8, e: Endpoint) -> usize {
    usize::from(flow) * 2 + slot(e)
}

impl Simulation {
    /// Sets up both endpoints and paths for `s`, whose flow-control
    /// settings validated as `fc` ([`Scenario::flow_control`]).
    #[must_use]
    pub fn new(s: &Scenario, fc: ValidConfig) -> Self {
        let our_start = s.cross.map_or(Duration::ZERO, CrossTraffic::our_start);
        let (client, server) = endpoints(s, fc, our_start);
        let cross = s.cross.map(|c| Box::new(Cross::new(s, c)));
        let rtt = s.forward.delay + s.reverse.delay;
        let sample_every = if s.sample_interval.is_zero() {
            (rtt / 2).max(Duration::from_millis(1))
        } else {
            s.sample_interval
        };
        Self {
            queue: EventQueue::with_capacity(1 << 12),
            client,
            server,
            cross,
            our_start: Time::ZERO + our_start,
            ours_pending: 0,
            forward: Path::new(&s.forward),
            reverse: Path::new(&s.reverse),
            rng: Rng::new(s.seed),
            hash: EventHash::new(),
            timer: [(None, 0); 4],
            series: Vec::new(),
            sample_every,
            next_sample: Time::ZERO,
            time_limit: Time::ZERO + s.time_limit,
            events: 0,
            out: Vec::new(),
            slab: Slab::default(),
            pool: Vec::new(),
            stall: s.workload.stall.map(|st| crate::scenario::Stall {
                start: st.start.saturating_add(our_start),
                ..st
            }),
            stall_marks: (None, None),
            hostile: s.hostile.is_some(),
            fc_watch: None,
            fc_link_idle: Duration::ZERO,
        }
    }

    /// Adds the link-idle part of a blocked spell up to `t` (state is
    /// constant between events: no packet enters the bottleneck until the
    /// next event, so it is busy exactly until `busy_until`).
    fn account_fc(&mut self, t: Time) {
        if let Some((since, busy_until)) = self.fc_watch {
            let idle_from = busy_until.map_or(since, |b| b.max(since));
            if t > idle_from {
                self.fc_link_idle += t - idle_from;
            }
            self.fc_watch = Some((t, busy_until));
        }
    }

    /// Notes, after the events at `now`, whether flow control holds the
    /// sender back and how long the bottleneck stays busy.
    fn watch_fc(&mut self, now: Time) {
        self.fc_watch = self.server.fc_blocked().then(|| {
            let busy = self.forward.bottleneck().map(|b| b.busy_until());
            (now, busy)
        });
    }

    fn conn(&mut self, flow: u8, e: Endpoint) -> &mut Connection {
        match (flow, e, self.cross.as_deref_mut()) {
            (0, Endpoint::Client, _) => &mut self.client,
            (0, Endpoint::Server, _) => &mut self.server,
            (_, Endpoint::Client, Some(c)) => &mut c.client,
            (_, Endpoint::Server, Some(c)) => &mut c.server,
            (_, _, None) => unreachable!("events of flow 1 only exist with cross traffic"),
        }
    }

    /// Sends what `who` of `flow` has to send and re-arms its timer.
    fn service(&mut self, now: Time, flow: u8, who: Endpoint) {
        let mut out = std::mem::take(&mut self.out);
        let mut pool = std::mem::take(&mut self.pool);
        self.conn(flow, who).output(now, &mut out, &mut pool);
        self.pool = pool;
        for mut pkt in out.drain(..) {
            let (path, to) = match who {
                Endpoint::Server => (&mut self.forward, Endpoint::Client),
                Endpoint::Client => (&mut self.reverse, Endpoint::Server),
            };
            let (verdict, ecn) = path.send_ecn(now, pkt.size, pkt.ecn, &mut self.rng);
            if let Verdict::Forward(at) = verdict {
                pkt.ecn = ecn;
                if let Some(copy_at) = path.take_duplicate() {
                    let slot = self.slab.insert(pkt.clone());
                    self.queue.push(copy_at, Event::Deliver { flow, to, slot });
                    self.ours_pending += u64::from(flow == 0);
                }
                let slot = self.slab.insert(pkt);
                // A path direction delivers in the order it was entered
                // (unless jitter reorders): one FIFO lane per direction.
                self.queue
                    .push_in_lane(lane(to), at, Event::Deliver { flow, to, slot });
                self.ours_pending += u64::from(flow == 0);
            }
        }
        self.out = out;
        let next = self.conn(flow, who).next_timeout(now);
        // A timer that fires early is harmless (the endpoint re-checks), so
        // keep an earlier pending one instead of queueing another event.
        let (scheduled, generation) = &mut self.timer[node(flow, who)];
        let keep = matches!((*scheduled, next), (Some(s), Some(n)) if s <= n);
        if !keep && next != *scheduled {
            *scheduled = next;
            *generation += 1;
            if let Some(t) = next {
                let g = *generation;
                self.queue.push(
                    t.max(now),
                    Event::Timer {
                        flow,
                        who,
                        generation: g,
                    },
                );
                self.ours_pending += u64::from(flow == 0);
            }
        }
    }

    fn sample(&mut self, now: Time) {
        while self.next_sample <= now {
            let c = self.client.recv();
            let r = &self.server.recovery;
            self.series.push(Sample {
                time: self.next_sample.as_duration(),
                stream_window: c.largest_stream_window(),
                conn_window: c.conn_window(),
                cwnd: r.cc.cwnd(),
                bytes_in_flight: r.cc.bytes_in_flight(),
                delivered: self.client.app().delivered(),
                recv_buffer: c.buffered(),
                total_credit: c.committed(),
            });
            self.next_sample += self.sample_every;
            if self.series.len() >= MAX_SAMPLES {
                let kept: Vec<Sample> = self.series.iter().step_by(2).copied().collect();
                self.series = kept;
                self.sample_every *= 2;
                self.next_sample = Time::ZERO
                    + self.series.last().map_or(Duration::ZERO, |s| s.time)
                    + self.sample_every;
            }
        }
    }

    /// Runs to completion, an error, a stall, the time limit, or until
    /// `observer` stops it.
    #[must_use]
    pub fn run(mut self, observer: Observer<'_>) -> RunResult {
        let starts = [
            (0, self.our_start),
            (1, self.cross.as_ref().map_or(Time::ZERO, |c| c.start)),
        ];
        for (flow, at) in starts {
            if flow == 1 && self.cross.is_none() {
                continue;
            }
            if at == Time::ZERO {
                self.start(Time::ZERO, flow);
            } else {
                self.queue.push(at, Event::Start { flow });
                self.ours_pending += u64::from(flow == 0);
            }
        }
        self.watch_fc(Time::ZERO);
        let mut now = Time::ZERO;
        let mut end = RunEnd::Idle;
        loop {
            // Nothing of ours left to happen: idle, as an empty queue is
            // without cross traffic.
            if self.cross.is_some() && self.ours_pending == 0 {
                break;
            }
            let Some((t, ev)) = self.queue.pop() else {
                break;
            };
            if t > self.time_limit {
                end = RunEnd::TimeLimit;
                break;
            }
            // State is constant between events: sample up to `t` first.
            if t >= self.next_sample {
                self.sample(t);
            }
            self.account_fc(t);
            now = t;
            let (Event::Deliver { flow, .. } | Event::Timer { flow, .. } | Event::Start { flow }) =
                ev;
            self.ours_pending -= u64::from(flow == 0);
            let (flow, who) = match ev {
                Event::Deliver { flow, to, slot: i } => {
                    self.events += 1;
                    self.hash.mix(t.as_nanos());
                    let pkt = self.slab.take(i);
                    // The measured connection's words as without cross
                    // traffic; the other's apart from them.
                    self.hash.mix(pkt.pn << (1 + flow) | node(flow, to) as u64);
                    let frames = self.conn(flow, to).on_packet(now, pkt);
                    if frames.capacity() > 0 && self.pool.len() < POOL_MAX {
                        self.pool.push(frames);
                    }
                    (flow, to)
                }
                Event::Timer {
                    flow,
                    who,
                    generation,
                } => {
                    let n = node(flow, who);
                    if self.timer[n].1 != generation {
                        continue;
                    }
                    self.timer[n].0 = None;
                    self.events += 1;
                    self.hash.mix(t.as_nanos());
                    self.hash.mix(u64::MAX - n as u64);
                    self.conn(flow, who).on_timeout(now);
                    (flow, who)
                }
                Event::Start { flow } => {
                    self.events += 1;
                    self.hash.mix(t.as_nanos());
                    self.hash.mix(u64::MAX - 4 - u64::from(flow));
                    self.start(now, flow);
                    self.watch_fc(now);
                    continue;
                }
            };
            self.service(now, flow, who);
            self.watch_fc(now);
            self.track_stall(now);
            let done = if self.hostile {
                self.client.app().all_streams_completed()
            } else {
                self.client.app().all_streams_read(now)
            };
            if done {
                end = RunEnd::Completed;
                break;
            }
            if self.client.closed.is_some() || self.server.closed.is_some() {
                end = RunEnd::ConnectionError;
                break;
            }
            if self.cross.as_ref().is_some_and(|c| {
                // A closed cross connection would leave the path to ours: a
                // different run than the one asked for.
                c.client.closed.is_some() || c.server.closed.is_some()
            }) {
                end = RunEnd::ConnectionError;
                break;
            }
            if self.events.is_multiple_of(PROGRESS_EVERY) {
                let progress = Progress {
                    now: now.as_duration(),
                    delivered: self.client.app().delivered(),
                    events: self.events,
                };
                if observer(&progress).is_break() {
                    end = RunEnd::Stopped;
                    break;
                }
            }
        }
        self.account_fc(now);
        self.deliver_close();
        self.finish(now, end)
    }

    /// After one end closed: delivers the packets still in flight (among
    /// them its CONNECTION_CLOSE) to the other end, without letting either
    /// send more. Not counted in `events` or the event hash.
    fn deliver_close(&mut self) {
        if self.client.closed.is_none() && self.server.closed.is_none() {
            return;
        }
        while let Some((t, ev)) = self.queue.pop() {
            if t > self.time_limit || (self.client.closed.is_some() && self.server.closed.is_some())
            {
                break;
            }
            if let Event::Deliver {
                flow: 0,
                to,
                slot: i,
            } = ev
            {
                let pkt = self.slab.take(i);
                let _ = self.conn(0, to).on_packet(t, pkt);
            }
        }
    }

    /// Notes the unstalled streams' progress when a stall starts and ends.
    fn track_stall(&mut self, now: Time) {
        let Some(stall) = self.stall else { return };
        let delivered = self.client.app().delivered_unstalled();
        if self.stall_marks.0.is_none() && now.as_duration() >= stall.start {
            self.stall_marks.0 = Some((now, delivered));
        }
        if self.stall_marks.1.is_none()
            && !stall.permanent()
            && now.as_duration() >= stall.start.saturating_add(stall.duration)
        {
            self.stall_marks.1 = Some((now, delivered));
        }
    }

    fn stall_goodput(&self, end: Time) -> Option<f64> {
        let (t0, b0) = self.stall_marks.0?;
        let (t1, b1) = self
            .stall_marks
            .1
            .unwrap_or((end, self.client.app().delivered_unstalled()));
        let secs = (t1 - t0).as_secs_f64();
        (secs > 0.0).then(|| (b1 - b0) as f64 * 8.0 / secs)
    }

    /// The handshake's RTT sample at `now`: both one-way propagation
    /// delays plus the wait in each bottleneck's queue (someone else's,
    /// with cross traffic). A real connection has one before its first
    /// STREAM frame.
    fn handshake_rtt(&self, now: Time) -> Duration {
        let wait = |p: &Path| {
            p.bottleneck()
                .map_or(Duration::ZERO, |b| b.busy_until() - now)
        };
        self.forward.delay() + self.reverse.delay() + wait(&self.forward) + wait(&self.reverse)
    }

    /// Starts `flow` at `now`: both ends get the handshake's RTT sample and
    /// send what they have.
    fn start(&mut self, now: Time, flow: u8) {
        let rtt = self.handshake_rtt(now);
        if flow == 0
            && let Some(c) = self.cross.as_deref_mut()
        {
            c.delivered_at_our_start = c.client.app().delivered();
        }
        self.conn(flow, Endpoint::Client).start(now, rtt);
        self.conn(flow, Endpoint::Server).start(now, rtt);
        self.service(now, flow, Endpoint::Server);
        self.service(now, flow, Endpoint::Client);
    }

    fn finish(mut self, now: Time, end: RunEnd) -> RunResult {
        self.server.finish(now);
        self.client.finish(now);
        let c = &self.client;
        let s = &self.server;
        let fwd = self.forward.stats();
        let rev = self.reverse.stats();
        let t0 = self.our_start;
        let since_start = |t: Time| t.as_duration().saturating_sub(t0.as_duration());
        let last_read = c
            .app()
            .completion()
            .iter()
            .flatten()
            .max()
            .map_or(now, |&t| t);
        let duration = since_start(last_read);
        let completed = if self.hostile {
            c.app().all_streams_completed()
        } else {
            c.app().all_streams_read(now)
        };
        let stall_goodput_bps = self.stall_goodput(now);
        let duration = if completed {
            duration
        } else {
            since_start(now)
        };
        let bytes = c.app().delivered();
        let secs = duration.as_secs_f64();
        // The link's busy time is over the whole run, both connections.
        let run_secs = (t0.as_duration() + duration).as_secs_f64();
        let (cross_bytes, cross_error) = self.cross.as_deref().map_or((0, None), |x| {
            let read = x.client.app().delivered() - x.delivered_at_our_start;
            let error = x.client.closed.clone().or_else(|| x.server.closed.clone());
            (
                read,
                error.map(|(code, reason)| (code, format!("cross traffic: {reason}"))),
            )
        });
        let goodput_bps = if secs > 0.0 {
            bytes as f64 * 8.0 / secs
        } else {
            0.0
        };
        let stream_completion: Vec<Duration> = c
            .app()
            .completion()
            .iter()
            .map(|t| t.map_or(duration, since_start))
            .collect();
        let metrics = Metrics {
            bytes,
            duration,
            completed,
            goodput_bps,
            link_utilisation: if run_secs > 0.0 {
                fwd.busy_time.as_secs_f64() / run_secs
            } else {
                0.0
            },
            drops: fwd.dropped_queue
                + fwd.dropped_loss
                + fwd.dropped_codel
                + rev.dropped_queue
                + rev.dropped_loss
                + rev.dropped_codel,
            duplicated: fwd.duplicated + rev.duplicated,
            reordered: fwd.reordered + rev.reordered,
            retransmitted_bytes: s.stats.retransmitted_bytes,
            packets_lost: s.stats.packets_lost,
            spurious_losses: s.recovery.stats.spurious_losses,
            undone_congestion_events: s.recovery.stats.undone_events,
            persistent_congestion: s.recovery.stats.persistent_congestion,
            ce_marks: fwd.marked_ce + rev.marked_ce,
            ecn_congestion_events: s.recovery.stats.ecn_events,
            ecn_state: s.recovery.ecn_state(),
            packet_threshold: s.recovery.packet_threshold(),
            fc_blocked: s.stats.fc_blocked,
            fc_link_idle: self.fc_link_idle,
            peak_stream_window: c.stats.peak_stream_window,
            peak_conn_window: c.stats.peak_conn_window,
            peak_recv_buffer: c.stats.peak_recv_buffer,
            peak_total_credit: c.stats.peak_total_credit,
            peak_exposure: c.stats.peak_exposure,
            peak_cwnd: s.stats.peak_cwnd,
            window_updates_sent: c.stats.window_updates_sent,
            blocked_frames_sent: s.stats.blocked_frames_sent,
            fairness_index: jain(&stream_completion),
            stream_completion,
            events: self.events,
            event_hash: self.hash.value(),
            error: c
                .closed
                .clone()
                .or_else(|| s.closed.clone())
                .or(cross_error),
            cross_bytes,
            cross_goodput_bps: if secs > 0.0 {
                cross_bytes as f64 * 8.0 / secs
            } else {
                0.0
            },
            verify_failures: c.stats.verify_failures,
            stall_goodput_bps,
            peak_budget: c.stats.peak_budget,
            budget_violations: c.stats.budget_violations,
            close_delivered: c.close_received || s.close_received,
            final_srtt: s.recovery.rtt.smoothed(),
            min_rtt: s.recovery.rtt.min_rtt(),
            end: if completed {
                RunEnd::Completed
            } else if c.closed.is_some() || s.closed.is_some() {
                RunEnd::ConnectionError
            } else {
                end
            },
        };
        let mut trace = self.server.take_trace();
        trace.append(&mut self.client.take_trace());
        trace.sort_by_key(|r| r.time);
        RunResult {
            metrics,
            series: self.series,
            trace,
        }
    }
}

/// Jain's fairness index over per-stream throughputs (equal sizes, so the
/// inverse completion times): (Σx)² / (n Σx²).
fn jain(completion: &[Duration]) -> f64 {
    let xs: Vec<f64> = completion
        .iter()
        .map(|d| 1.0 / d.as_secs_f64().max(1e-12))
        .collect();
    if xs.is_empty() {
        return 1.0;
    }
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    sum * sum / (xs.len() as f64 * sq)
}

impl Cross {
    /// The other connection of `s`: one bulk stream of [`CROSS_BYTES`],
    /// windows out of the way, `s`'s transport and congestion control, no
    /// trace, no verification.
    fn new(s: &Scenario, cross: CrossTraffic) -> Self {
        let other = Scenario {
            workload: crate::scenario::Workload::bulk(CROSS_BYTES),
            hostile: None,
            cross: None,
            verify: false,
            trace: crate::trace::TraceLevel::Off,
            ..s.clone()
        }
        .unlimited_windows();
        let fc = other
            .flow_control()
            .expect("unlimited windows on one stream validate");
        let (client, server) = endpoints(&other, fc, cross.cross_start());
        Self {
            client,
            server,
            start: Time::ZERO + cross.cross_start(),
            delivered_at_our_start: 0,
        }
    }
}
