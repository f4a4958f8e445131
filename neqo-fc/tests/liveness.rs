//! Liveness under a slow or late stack (issue #30): whatever delay the
//! stack puts between an update becoming due and writing it, however late
//! it fires the rebalancing timer, a stream whose application keeps
//! reading is never starved for good (a stream opened with limit 0 and any
//! budget included), no timer is left in the past, and after every step
//! `update_pending()` agrees with the next build: false, it writes nothing;
//! true, it writes a frame or leaves `update_pending()` false (no spin).
//! `connection_update_due()` agrees with `connection_update()` exactly
//! (issue #45).

mod common;

use std::time::{Duration, Instant};

use common::{at, base, rtt_ms};
use neqo_fc::{
    Budget, ChangeReason, Config, Connection, ConnectionFlow, ConnectionReceiver, Direction,
    Fraction, MAX_VARINT, ReceiverFlowControl, Role, Rtt, StreamId, StreamReceiver, Subject,
    UpdateFrame,
};
use proptest::prelude::*;

const KIB: u64 = 1 << 10;

fn uni(index: u64) -> StreamId {
    StreamId::new(Role::Client, Direction::Uni, index)
}

/// The stack fires every timer that is due at `now`.
fn fire(flow: &mut ConnectionFlow, streams: &mut [StreamReceiver], now: Instant, rtt: Option<Rtt>) {
    if flow.next_timeout().is_some_and(|t| t <= now) {
        flow.on_timeout(now, rtt, |visit| streams.iter_mut().for_each(visit));
    }
}

/// Finding 1: a stream whose application read everything, and whose peer
/// is blocked at the limit, got no update once the stack wrote it ≥ 2 RTT
/// after the read while other streams held the growth budget: it was
/// "not recently active", and could never become active again.
#[test]
fn a_late_update_for_a_drained_stream_still_goes_out() {
    let config = Config::default().validate().unwrap();
    let mut flow = ConnectionFlow::new(config);
    let rtt = rtt_ms(50);
    let mut streams: Vec<StreamReceiver> =
        (0..8).map(|i| flow.open_stream(uni(i)).unwrap()).collect();
    // Every stream's seed goes out while the growth budget lasts; the
    // last one finds none left.
    for s in &mut streams {
        let _ = flow.stream_update(s, base(), rtt);
    }
    let limit = streams[0].fc().limit();
    assert!(limit > 64 * KIB);
    assert_eq!(streams[7].fc().limit(), 64 * KIB);
    // Stream 0's peer sends up to the limit and its application reads it
    // all; the update is due but the stack writes it three RTTs later,
    // firing the pass timer on time meanwhile. First it writes the last
    // stream's seed, which takes the room stream 0's read freed.
    flow.on_data(&mut streams[0], limit, false).unwrap();
    flow.retire_to(&mut streams[0], limit).unwrap();
    assert!(streams[0].update_due());
    assert!(flow.stream_update(&mut streams[7], at(1), rtt).is_some());
    for t in 1..200 {
        fire(&mut flow, &mut streams, at(t), rtt);
    }
    let mut progressed = false;
    for late in 200..2_000 {
        fire(&mut flow, &mut streams, at(late), rtt);
        if let Some(new) = flow.stream_update(&mut streams[0], at(late), rtt) {
            assert!(new > limit);
            progressed = true;
            break;
        }
    }
    assert!(progressed, "stream 0 was never extended");
}

/// Finding 2: with windows near 2^62 − 1 the target is capped there, and
/// `retired + window − limit ≥ threshold` could never hold again: with
/// update fraction 1, MAX_DATA stopped after the first window.
#[test]
fn windows_near_the_varint_limit_still_update() {
    let config = Config {
        update_fraction: Fraction::ONE,
        initial_connection_window: 1 << 20,
        max_connection_window: MAX_VARINT,
        ..Config::default()
    }
    .validate()
    .unwrap();
    let mut conn = ReceiverFlowControl::new(Connection, &config);
    let _ = conn.raise_window(MAX_VARINT, ChangeReason::ConnectionFloor);
    conn.consume(1 << 20).unwrap();
    conn.add_retired(1 << 20).unwrap();
    assert!(conn.update_due(), "the first window was used up and read");
    let update = conn
        .send_update(at(1), rtt_ms(10), &neqo_fc::ExcessTuner::DEFAULT)
        .expect("due");
    assert_eq!(update.limit, MAX_VARINT);
    // Nothing more can be extended: no update is due at the limit.
    conn.consume(1 << 20).unwrap();
    conn.add_retired(1 << 20).unwrap();
    assert!(!conn.update_due());

    // A quarter threshold near the top: due once a quarter is read, even
    // though the target is capped.
    let config = Config {
        initial_connection_window: MAX_VARINT - (1 << 20),
        max_connection_window: MAX_VARINT,
        ..Config::default()
    }
    .validate()
    .unwrap();
    let mut conn = ReceiverFlowControl::new(Connection, &config);
    let quarter = Fraction::QUARTER.of(conn.window());
    conn.consume(quarter).unwrap();
    conn.add_retired(quarter).unwrap();
    assert!(conn.update_due());
    assert_eq!(
        conn.send_update(at(1), None, &neqo_fc::ExcessTuner::DEFAULT)
            .map(|u| u.limit),
        Some(MAX_VARINT)
    );
}

/// Finding 3: `on_timeout(now, None)` while an early pass was pending
/// moved the regular timer but left the early one in the past.
#[test]
fn a_pass_skipped_for_want_of_an_rtt_leaves_no_timer_in_the_past() {
    // Not queue-free (smoothed 60 ms over a 50 ms minimum): shares are
    // not doubled, so a stream's update stops at its share.
    let rtt = Rtt::new(Duration::from_millis(60), Duration::from_millis(50));
    let config = Config::default().validate().unwrap();
    let mut flow = ConnectionFlow::new(config);
    let mut streams: Vec<StreamReceiver> =
        (0..2).map(|i| flow.open_stream(uni(i)).unwrap()).collect();
    for s in &mut streams {
        let _ = flow.stream_update(s, base(), rtt);
    }
    // Both read within the first pass: two active streams.
    for s in &mut streams {
        let limit = s.fc().limit();
        flow.on_data(s, limit, false).unwrap();
        flow.retire_to(s, limit).unwrap();
    }
    let first = flow.next_timeout().expect("armed");
    fire(&mut flow, &mut streams, first, rtt);
    // The stack writes stream 0's update after the pass: it stops at the
    // share. The peer uses it and says it is blocked there.
    let now = first + Duration::from_millis(1);
    let limit = flow.stream_update(&mut streams[0], now, rtt).expect("due");
    assert!(flow.connection_update(now, rtt).is_some());
    flow.on_data(&mut streams[0], limit, false).unwrap();
    assert!(flow.stream_blocked_received(&mut streams[0], limit));
    let early = flow.next_timeout().expect("pending");
    assert!(
        early < first + Duration::from_millis(60),
        "an early pass is pending"
    );
    // The timer fires, but the stack has lost its RTT sample.
    let now = early + Duration::from_millis(1);
    flow.on_timeout(now, None, |visit| streams.iter_mut().for_each(visit));
    assert!(
        flow.next_timeout().is_none_or(|t| t > now),
        "next_timeout {:?} at or before now",
        flow.next_timeout().map(|t| t - base())
    );
}

/// Finding 6 (the spin): a stream the budget holds back kept
/// `update_pending()` true while `next_update` returned nothing, so a
/// stack that polls it spun.
#[test]
fn update_pending_is_false_once_next_update_has_nothing() {
    let config = Config::default().validate().unwrap();
    let mut rx = ConnectionReceiver::new(Role::Server, config);
    let rtt = rtt_ms(50);
    // 40 streams opened and seeded: the growth budget runs out.
    for i in 0..40 {
        rx.on_data(uni(i), 1, false).unwrap();
    }
    while rx.next_update(base(), rtt).is_some() {}
    assert!(!rx.update_pending());
    // Every stream reads its byte: those without room stay held back.
    for i in 0..40 {
        rx.retire_to(uni(i), 1).unwrap();
    }
    for step in 1..200 {
        let now = at(step);
        while rx.next_update(now, rtt).is_some() {}
        assert!(
            !rx.update_pending(),
            "update_pending() true after next_update() returned None at {step} ms"
        );
    }
}

/// Finding 9: a stream opened with a zero initial limit and no seeding
/// kept a zero window, so no update was ever due.
#[test]
fn a_zero_initial_limit_is_extended() {
    let config = Config {
        seed_fraction: None,
        budget: None,
        ..Config::default()
    }
    .validate()
    .unwrap();
    let mut flow = ConnectionFlow::new(config);
    let mut s = flow.open_stream_with_limit(uni(0), 0).unwrap();
    assert_eq!(s.fc().limit(), 0);
    assert!(s.update_due());
    let limit = flow.stream_update(&mut s, base(), rtt_ms(20)).expect("due");
    assert_eq!(limit, config.initial_stream_window);
}

/// Item 3 of the issue: under a budget a tuning step that the budget cuts
/// is reported as one change, not an auto-tune change undone at once.
#[test]
fn a_budget_cut_is_one_change() {
    let config = Config::default().validate().unwrap();
    let mut rx = ConnectionReceiver::new(Role::Server, config);
    let rtt = rtt_ms(20);
    let mut now = 0;
    let mut offsets = [0u64; 30];
    let (mut conn_limit, mut conn_used) = (config.initial_connection_window, 0);
    let mut seen_budget = false;
    for _ in 0..400 {
        now += 2;
        for (i, off) in offsets.iter_mut().enumerate() {
            let id = uni(i as u64);
            let limit = rx.stream(id).map_or(64 * KIB, ReceiverFlowControl::limit);
            let end = limit.min(*off + (conn_limit - conn_used));
            if end > *off {
                conn_used += end - *off;
                *off = end;
                rx.on_data(id, *off, false).unwrap();
                rx.retire_to(id, *off).unwrap();
            }
        }
        for f in common::drive(&mut rx, at(now), rtt) {
            if let UpdateFrame::MaxData(l) = f {
                conn_limit = l;
            }
        }
        let changes: Vec<_> = rx.drain_changes().collect();
        for pair in changes.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            seen_budget |= b.reason == ChangeReason::Budget;
            assert!(
                !(a.subject == b.subject
                    && a.reason == ChangeReason::AutoTune
                    && b.reason == ChangeReason::Budget
                    && a.new == b.old
                    && a.now == b.now),
                "an auto-tune change undone at once: {a} then {b}"
            );
        }
        for c in &changes {
            // Only a tuning step (possibly cut by the budget) has inputs.
            if matches!(c.subject, Subject::Stream(_))
                && !matches!(c.reason, ChangeReason::AutoTune | ChangeReason::Budget)
            {
                assert!(c.rtt.is_none() && c.elapsed.is_none(), "{c}");
            }
        }
    }
    assert!(
        seen_budget,
        "the budget never cut a window: the test saw nothing"
    );
}

// ---------------------------------------------------------------------
// The state-machine property: a model stack with arbitrary delays.
// ---------------------------------------------------------------------

/// One step of the model: what the stack, the peer and the application do.
#[derive(Clone, Debug)]
enum Step {
    /// Time passes (ms).
    Wait(u16),
    /// The peer sends up to `n` KiB on stream `s` (within its credit).
    Send(u8, u16),
    /// The application on stream `s` reads everything it has.
    Read(u8),
    /// The stack writes the updates due now (or does not, for a while).
    Write,
    /// The stack writes stream `s`'s update only (one that owns its
    /// streams writes them one by one, in its own order).
    WriteOne(u8),
    /// The stack fires the timer if it is due.
    Timer,
    /// The stack fires the timer late, or early, at an arbitrary time, or
    /// without an RTT sample.
    TimerAt(u16, bool),
    /// The peer says it is blocked on stream `s` / on the connection.
    Blocked(u8),
    /// The packet carrying the `k`-th update still unacknowledged is lost
    /// (or acknowledged).
    Lost(u8, bool),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (1u16..200).prop_map(Step::Wait),
        4 => (0u8..10, 1u16..2048).prop_map(|(s, n)| Step::Send(s, n)),
        3 => (0u8..10).prop_map(Step::Read),
        2 => Just(Step::Write),
        2 => (0u8..12).prop_map(Step::WriteOne),
        1 => Just(Step::Timer),
        1 => (0u16..1000, any::<bool>()).prop_map(|(t, r)| Step::TimerAt(t, r)),
        1 => (0u8..11).prop_map(Step::Blocked),
        1 => (0u8..8, any::<bool>()).prop_map(|(k, l)| Step::Lost(k, l)),
    ]
}

/// The receive side under test, in either shape a stack embeds it.
enum Stack {
    /// The crate owns the streams.
    Owner(Box<ConnectionReceiver>),
    /// The stack owns a `StreamReceiver` per stream (neqo's, quinn's shape).
    Flow(Box<ConnectionFlow>, Vec<StreamReceiver>),
}

impl Stack {
    /// `zero`: where the stack owns its streams, stream 0 opens with limit 0.
    fn new(config: neqo_fc::ValidConfig, streams: usize, owner: bool, zero: bool) -> Self {
        if owner {
            return Self::Owner(Box::new(ConnectionReceiver::new(Role::Server, config)));
        }
        let mut flow = ConnectionFlow::new(config);
        let streams = (0..streams)
            .map(|s| {
                let limit = if zero && s == 0 {
                    0
                } else {
                    config.initial_stream_window
                };
                flow.open_stream_with_limit(uni(s as u64), limit).unwrap()
            })
            .collect();
        Self::Flow(Box::new(flow), streams)
    }

    /// What the stack is told is pending agrees with what a build now would
    /// write (tried on a snapshot): nothing when not pending; when pending, a
    /// frame, or nothing and then no longer pending.
    fn pending_agrees(&self, now: Instant, rtt: Option<Rtt>) -> Result<(), TestCaseError> {
        match self {
            Self::Owner(rx) => {
                let pending = rx.update_pending();
                let mut probe = rx.clone();
                let frame = probe.next_update(now, rtt);
                prop_assert!(
                    pending || frame.is_none(),
                    "update_pending() false but next_update() {:?}",
                    frame
                );
                prop_assert!(
                    frame.is_some() || !probe.update_pending(),
                    "update_pending() still true after next_update() returned None"
                );
            }
            Self::Flow(flow, _) => {
                let due = flow.connection_update_due();
                let limit = flow.clone().connection_update(now, rtt);
                prop_assert_eq!(
                    due,
                    limit.is_some(),
                    "connection_update_due() {} but connection_update() {:?}",
                    due,
                    limit
                );
            }
        }
        Ok(())
    }

    fn on_data(&mut self, s: usize, end: u64) -> neqo_fc::Res<u64> {
        match self {
            Self::Owner(rx) => rx.on_data(uni(s as u64), end, false),
            Self::Flow(flow, streams) => flow.on_data(&mut streams[s], end, false),
        }
    }

    fn retire_to(&mut self, s: usize, offset: u64) -> neqo_fc::Res<u64> {
        match self {
            Self::Owner(rx) if rx.stream(uni(s as u64)).is_none() => Ok(0),
            Self::Owner(rx) => rx.retire_to(uni(s as u64), offset),
            Self::Flow(flow, streams) => flow.retire_to(&mut streams[s], offset),
        }
    }

    /// Stream `s`'s update, where the stack owns its streams; all of them
    /// otherwise.
    fn write_one(
        &mut self,
        s: usize,
        now: Instant,
        rtt: Option<Rtt>,
        out: &mut Vec<UpdateFrame>,
    ) -> Result<(), TestCaseError> {
        match self {
            Self::Owner(_) => return self.write(now, rtt, out),
            Self::Flow(flow, streams) => {
                if let Some(limit) = flow.stream_update(&mut streams[s], now, rtt) {
                    out.push(UpdateFrame::MaxStreamData {
                        id: streams[s].id(),
                        limit,
                    });
                }
            }
        }
        Ok(())
    }

    /// Every update the stack would write now.
    fn write(
        &mut self,
        now: Instant,
        rtt: Option<Rtt>,
        out: &mut Vec<UpdateFrame>,
    ) -> Result<(), TestCaseError> {
        match self {
            Self::Owner(rx) => {
                let mut n = 0;
                while let Some(f) = rx.next_update(now, rtt) {
                    n += 1;
                    prop_assert!(n < 10_000, "next_update spins");
                    out.push(f);
                }
                prop_assert!(
                    !rx.update_pending(),
                    "update_pending() after next_update() returned None"
                );
            }
            Self::Flow(flow, streams) => {
                for s in streams.iter_mut() {
                    if let Some(limit) = flow.stream_update(s, now, rtt) {
                        out.push(UpdateFrame::MaxStreamData { id: s.id(), limit });
                    }
                }
                if let Some(limit) = flow.connection_update(now, rtt) {
                    out.push(UpdateFrame::MaxData(limit));
                }
            }
        }
        Ok(())
    }

    fn lost_or_acked(&mut self, f: UpdateFrame, lost: bool) {
        match (self, f) {
            (Self::Owner(rx), f) if lost => rx.update_lost(f),
            (Self::Owner(rx), f) => rx.update_acked(f),
            (Self::Flow(flow, _), UpdateFrame::MaxData(l)) if lost => {
                flow.connection_update_lost(l)
            }
            (Self::Flow(flow, _), UpdateFrame::MaxData(l)) => flow.connection_update_acked(l),
            (Self::Flow(_, streams), UpdateFrame::MaxStreamData { id, limit }) => {
                let s = &mut streams[id.index() as usize];
                if lost {
                    s.update_lost(limit);
                } else {
                    s.update_acked(limit);
                }
            }
            (Self::Flow(..), UpdateFrame::MaxStreams { .. }) => {}
        }
    }

    fn stream_blocked(&mut self, s: usize, limit: u64) -> Result<(), TestCaseError> {
        match self {
            Self::Owner(rx) => {
                let r = rx.stream_data_blocked_received(uni(s as u64), limit);
                prop_assert!(r.is_ok(), "{r:?}");
            }
            Self::Flow(flow, streams) => {
                flow.stream_blocked_received(&mut streams[s], limit);
            }
        }
        Ok(())
    }

    fn data_blocked(&mut self, limit: u64) {
        match self {
            Self::Owner(rx) => rx.data_blocked_received(limit),
            Self::Flow(flow, _) => flow.data_blocked_received(limit),
        };
    }

    fn on_timeout(&mut self, now: Instant, rtt: Option<Rtt>) {
        match self {
            Self::Owner(rx) => rx.on_timeout(now, rtt),
            Self::Flow(flow, streams) => {
                flow.on_timeout(now, rtt, |visit| streams.iter_mut().for_each(visit));
            }
        }
    }

    fn next_timeout(&self) -> Option<Instant> {
        match self {
            Self::Owner(rx) => rx.next_timeout(),
            Self::Flow(flow, _) => flow.next_timeout(),
        }
    }
}

struct Model {
    rx: Stack,
    /// What the peer may send: the highest MAX_STREAM_DATA / MAX_DATA it
    /// received (the initial values at first).
    stream_credit: Vec<u64>,
    conn_credit: u64,
    /// Bytes sent per stream (the peer's offset).
    sent: Vec<u64>,
    /// Bytes of the connection limit the peer used.
    conn_sent: u64,
    in_flight: Vec<UpdateFrame>,
    now: Instant,
    rtt: Option<Rtt>,
    streams: usize,
}

impl Model {
    fn new(config: Config, streams: usize, rtt_ms: u64, owner: bool, zero: bool) -> Self {
        let config = config.validate().unwrap();
        let mut stream_credit = vec![config.initial_stream_window; streams];
        if zero && !owner {
            stream_credit[0] = 0;
        }
        Self {
            stream_credit,
            conn_credit: config.initial_connection_window,
            rx: Stack::new(config, streams, owner, zero),
            sent: vec![0; streams],
            conn_sent: 0,
            in_flight: Vec::new(),
            now: base(),
            rtt: common::rtt_ms(rtt_ms),
            streams,
        }
    }

    fn send(&mut self, s: usize, most: u64) -> Result<(), TestCaseError> {
        let room = (self.stream_credit[s] - self.sent[s]).min(self.conn_credit - self.conn_sent);
        let n = most.min(room);
        if n == 0 {
            return Ok(());
        }
        self.sent[s] += n;
        self.conn_sent += n;
        let r = self.rx.on_data(s, self.sent[s]);
        prop_assert!(r.is_ok(), "{r:?}: the peer kept within its credit");
        Ok(())
    }

    fn read(&mut self, s: usize) -> Result<(), TestCaseError> {
        let r = self.rx.retire_to(s, self.sent[s]);
        prop_assert!(r.is_ok(), "{r:?}");
        Ok(())
    }

    fn write(&mut self) -> Result<(), TestCaseError> {
        self.rx.write(self.now, self.rtt, &mut self.in_flight)
    }

    fn timer(&mut self, now: Instant, rtt: Option<Rtt>) -> Result<(), TestCaseError> {
        self.rx.on_timeout(now, rtt);
        let next = self.rx.next_timeout();
        prop_assert!(
            next.is_none_or(|t| t > now),
            "next_timeout() at or before now right after on_timeout(now)"
        );
        Ok(())
    }

    /// The peer receives (or loses) the oldest update in flight.
    fn deliver(&mut self, k: usize, lost: bool) {
        if self.in_flight.is_empty() {
            return;
        }
        let f = self.in_flight.remove(k % self.in_flight.len());
        if !lost {
            self.apply(f);
        }
        self.rx.lost_or_acked(f, lost);
    }

    fn apply(&mut self, f: UpdateFrame) {
        match f {
            UpdateFrame::MaxData(l) => self.conn_credit = self.conn_credit.max(l),
            UpdateFrame::MaxStreamData { id, limit } => {
                let s = (id.index()) as usize;
                if s < self.streams {
                    self.stream_credit[s] = self.stream_credit[s].max(limit);
                }
            }
            UpdateFrame::MaxStreams { .. } => {}
        }
    }

    fn run(&mut self, step: &Step) -> Result<(), TestCaseError> {
        match *step {
            Step::Wait(ms) => self.now += Duration::from_millis(u64::from(ms)),
            Step::Send(s, kib) => self.send(usize::from(s) % self.streams, u64::from(kib) * KIB)?,
            Step::Read(s) => self.read(usize::from(s) % self.streams)?,
            Step::Write => self.write()?,
            Step::WriteOne(s) => {
                let s = usize::from(s) % self.streams;
                self.rx
                    .write_one(s, self.now, self.rtt, &mut self.in_flight)?;
            }
            Step::Timer => {
                if self.rx.next_timeout().is_some_and(|t| t <= self.now) {
                    self.timer(self.now, self.rtt)?;
                }
            }
            Step::TimerAt(ms, with_rtt) => {
                let at = self.now + Duration::from_millis(u64::from(ms));
                self.now = at;
                self.timer(at, if with_rtt { self.rtt } else { None })?;
            }
            Step::Blocked(s) => {
                let s = usize::from(s);
                if s < self.streams {
                    if self.sent[s] == self.stream_credit[s] {
                        self.rx.stream_blocked(s, self.sent[s])?;
                    }
                } else if self.conn_sent == self.conn_credit {
                    self.rx.data_blocked(self.conn_sent);
                }
            }
            Step::Lost(k, lost) => self.deliver(usize::from(k), lost),
        }
        self.rx.pending_agrees(self.now, self.rtt)
    }

    /// From now on the stack keeps a steady pace: every round trip the
    /// peer sends all its credit allows, the application reads it, and
    /// the stack fires its timer; it writes the updates every `lag + 1`
    /// round trips (a busy event loop), and the peer gets them. Every
    /// stream must move `goal` more bytes within a bounded number of
    /// rounds.
    fn settle(&mut self, goal: u64, lag: u32) -> Result<(), TestCaseError> {
        for f in std::mem::take(&mut self.in_flight) {
            self.rx.lost_or_acked(f, true);
        }
        let start: Vec<u64> = self.sent.clone();
        let rtt = self.rtt.map_or(Duration::from_millis(50), |r| r.smoothed());
        for round in 0..400 {
            // A fair sender: each stream gets an equal part of the
            // connection credit, then what is left goes in stream order.
            let share = ((self.conn_credit - self.conn_sent) / self.streams as u64).max(1);
            for s in 0..self.streams {
                self.send(s, share)?;
            }
            for s in 0..self.streams {
                self.send(s, u64::MAX)?;
                self.read(s)?;
            }
            self.now += rtt / 2;
            if self.rx.next_timeout().is_some_and(|t| t <= self.now) {
                self.timer(self.now, self.rtt)?;
            }
            if round % (lag + 1) == 0 {
                self.write()?;
            }
            for f in std::mem::take(&mut self.in_flight) {
                self.apply(f);
                self.rx.lost_or_acked(f, false);
            }
            self.now += rtt / 2;
            if (0..self.streams).all(|s| self.sent[s] - start[s] >= goal) {
                return Ok(());
            }
        }
        let moved: Vec<u64> = (0..self.streams).map(|s| self.sent[s] - start[s]).collect();
        prop_assert!(
            false,
            "starved: moved {moved:?} of {goal} per stream in 400 round trips"
        );
        Ok(())
    }
}

fn cases() -> u32 {
    std::env::var("LIVENESS_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// Arbitrary delays, losses, timers and *_BLOCKED, then a prompt
    /// stack: every stream keeps moving, whichever shape embeds the crate,
    /// under no budget, the default one or one with little or no growth
    /// room, and a stream opened with limit 0 too.
    #[test]
    fn a_reading_stream_is_never_starved_for_good(
        owner in any::<bool>(),
        streams in 1usize..13,
        rtt in 1u64..200,
        budget in 0u8..3,
        ceiling in 0u64..(2 << 20),
        zero in any::<bool>(),
        lag in 0u32..4,
        steps in proptest::collection::vec(step(), 0..100),
    ) {
        let budget = match budget {
            0 => None,
            1 => Some(Budget::default()),
            _ => Some(Budget { ceiling, ..Budget::default() }),
        };
        let config = Config { budget, ..Config::default() };
        let mut m = Model::new(config, streams, rtt, owner, zero);
        for s in &steps {
            m.run(s)?;
        }
        m.settle(4 << 20, lag)?;
    }
}
