//! Property tests: invariants of the receive and send controllers over
//! random operation sequences, with values anywhere in `u64` (most near 0,
//! near 2^62 − 1 and just past it) and durations from zero to hours and
//! `Duration::MAX`.
//!
//! Invariants checked after every operation (RFC 9000 §4.1, §4.5):
//! - the advertised limit never decreases, and neither does the sender's;
//! - `retired ≤ consumed ≤ limit ≤ 2^62 − 1` (data past the limit errors);
//! - a failing call changes nothing;
//! - a window grown only by the tuner or a seed stays ≤ the configured cap
//!   (or its starting value when that was already larger) and never shrinks;
//! - every reported window change has `old != new` and the caller's `now`;
//!   a tuning step needs an RTT sample and time that moved forward since
//!   an earlier update (clocks here also go backwards);
//! - no call panics.

mod common;

use std::{
    collections::BTreeSet,
    time::{Duration, Instant},
};

use common::at_saturating;
use neqo_fc::{
    ChangeReason, Config, Connection, Error, ExcessTuner, Fraction, MAX_VARINT,
    ReceiverFlowControl, Rtt, SenderFlowControl, StreamId, Subject, SubjectKind, TuneInput, Tuner,
    Update, ValidConfig,
};
use proptest::{
    prelude::*,
    test_runner::{Config as PtConfig, RngSeed},
};

/// Deterministic runs (project rule: same seed, same result) and no
/// regression files written into the source tree.
fn pt_config(cases: u32) -> PtConfig {
    PtConfig {
        cases,
        rng_seed: RngSeed::Fixed(0x6e65_716f_2d66_6321),
        failure_persistence: None,
        ..PtConfig::default()
    }
}

/// A value anywhere in `u64`, weighted toward the interesting edges.
fn value() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => 0u64..=4096,
        2 => 0u64..=(64 << 20),
        1 => any::<u64>(),
        2 => (MAX_VARINT - 4096)..=MAX_VARINT,
        1 => (1u64 << 62)..=((1 << 62) + 4096),
        1 => Just(u64::MAX),
    ]
}

fn duration() -> impl Strategy<Value = Duration> {
    prop_oneof![
        2 => Just(Duration::ZERO),
        4 => (0u64..=200_000_000).prop_map(Duration::from_nanos),
        1 => (1u64..=100).prop_map(|h| Duration::from_secs(h * 3600)),
        1 => Just(Duration::MAX),
        1 => any::<u64>().prop_map(Duration::from_nanos),
    ]
}

/// An RTT estimate as a stack passes it: a sample (`min ≤ smoothed`, as
/// `Rtt::new` requires) or none yet (also what a zero or inverted pair
/// gives).
fn rtt() -> impl Strategy<Value = Option<Rtt>> {
    prop_oneof![
        4 => (duration(), duration()).prop_map(|(s, m)| Rtt::new(s.max(m), m)),
        1 => (duration(), duration()).prop_map(|(s, m)| Rtt::new(s, m)),
    ]
}

/// A sample, for the tuner alone.
fn sample() -> impl Strategy<Value = Rtt> {
    (duration(), duration()).prop_filter_map("no sample", |(s, m)| Rtt::new(s.max(m), m))
}

fn fraction() -> impl Strategy<Value = Fraction> {
    prop_oneof![
        Just(Fraction::QUARTER),
        Just(Fraction::HALF),
        Just(Fraction::ONE),
        // Includes improper values `validate` must refuse.
        (0u32..=70, 1u32..=64).prop_map(|(n, d)| Fraction::new(n, d).unwrap()),
    ]
}

fn tuner() -> impl Strategy<Value = ExcessTuner> {
    prop_oneof![
        Just(ExcessTuner::DEFAULT),
        (0u64..=16).prop_map(|bonus| ExcessTuner {
            bonus,
            ..ExcessTuner::DEFAULT
        }),
        (any::<u64>()).prop_map(|bonus| ExcessTuner {
            bonus,
            ..ExcessTuner::DEFAULT
        }),
    ]
}

/// One thing that can happen to the controllers.
#[derive(Clone, Debug)]
enum Op {
    /// A STREAM frame ending at `end`.
    Data { end: u64, fin: bool },
    /// A STREAM frame ending a few bytes around the current limit.
    DataAtLimit { delta: i8, fin: bool },
    /// RESET_STREAM / FIN with a final size.
    FinalSize(u64),
    /// The application reads up to a share (in 1/256) of what arrived.
    Retire(u8),
    /// The application reports reading up to any offset (bugs included).
    RetireRaw(u64),
    /// Time passes and both controllers send an update if due.
    SendUpdate { dt: Duration, rtt: Option<Rtt> },
    /// As `SendUpdate`, with the stream's new limit capped (a budget).
    SendUpdateCapped {
        dt: Duration,
        rtt: Option<Rtt>,
        cap: u64,
    },
    /// The clock goes back.
    ClockBack(Duration),
    /// The peer reports *_BLOCKED on the stream and the connection.
    Blocked,
    /// A past update (picked from the ones sent) was lost.
    UpdateLost(usize),
    /// A past update was acknowledged.
    UpdateAcked(usize),
    /// The connection floor follows the stream window.
    Cover,
    /// The sender wants to send `count` bytes.
    SenderConsume(u64),
    /// The sender reports and writes *_BLOCKED.
    SenderBlocked { sent: bool },
    /// A *_BLOCKED frame from the past was lost.
    SenderBlockedLost(usize),
    /// A stray MAX_* frame reaches the sender.
    SenderUpdate(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (value(), any::<bool>()).prop_map(|(end, fin)| Op::Data { end, fin }),
        3 => (-3i8..=3, prop::bool::weighted(0.1)).prop_map(|(delta, fin)| Op::DataAtLimit { delta, fin }),
        1 => value().prop_map(Op::FinalSize),
        4 => any::<u8>().prop_map(Op::Retire),
        1 => value().prop_map(Op::RetireRaw),
        4 => (duration(), rtt()).prop_map(|(dt, rtt)| Op::SendUpdate { dt, rtt }),
        2 => (duration(), rtt(), value()).prop_map(|(dt, rtt, cap)| Op::SendUpdateCapped { dt, rtt, cap }),
        1 => Just(Op::Blocked),
        1 => any::<usize>().prop_map(Op::UpdateLost),
        1 => any::<usize>().prop_map(Op::UpdateAcked),
        1 => Just(Op::Cover),
        2 => value().prop_map(Op::SenderConsume),
        1 => any::<bool>().prop_map(|sent| Op::SenderBlocked { sent }),
        1 => any::<usize>().prop_map(Op::SenderBlockedLost),
        1 => value().prop_map(Op::SenderUpdate),
        1 => duration().prop_map(Op::ClockBack),
    ]
}

/// Starting state: a connection and a stream opened on it.
#[derive(Clone, Debug)]
struct Setup {
    conn_window: u64,
    stream_limit: u64,
    fraction: Fraction,
    seed: Option<Fraction>,
    tuner: ExcessTuner,
    /// The configured caps (the tuner held them before).
    max_stream_window: u64,
    max_connection_window: u64,
}

fn setup() -> impl Strategy<Value = Setup> {
    (
        value(),
        value(),
        fraction(),
        prop::option::of(fraction()),
        tuner(),
        prop_oneof![Just(32 << 20), value()],
        prop_oneof![Just(48 << 20), value()],
    )
        .prop_map(
            |(conn_window, stream_limit, fraction, seed, tuner, ms, mc)| Setup {
                conn_window,
                stream_limit,
                fraction,
                seed,
                tuner,
                max_stream_window: ms,
                max_connection_window: mc,
            },
        )
}

/// The setup as a valid configuration for one stream: windows in
/// [1, 2^62), each cap at least its initial window. An update fraction
/// outside (0, 1] is refused by `validate` (the old constructor replaced
/// it with ¼; so does this).
fn valid_config(s: &Setup) -> ValidConfig {
    let stream = s.stream_limit.clamp(1, MAX_VARINT);
    let conn = s.conn_window.clamp(1, MAX_VARINT);
    let config = Config {
        initial_stream_window: stream,
        initial_connection_window: conn,
        max_stream_window: s.max_stream_window.clamp(stream, MAX_VARINT),
        max_connection_window: s.max_connection_window.clamp(conn, MAX_VARINT),
        update_fraction: s.fraction,
        seed_fraction: s.seed.filter(|f| f.num() <= f.den()),
        max_streams_bidi: 0,
        max_streams_uni: 1,
        ..Config::default()
    };
    match config.validate() {
        Ok(valid) => valid,
        Err(e) => {
            assert!(!s.fraction.is_proper_nonzero(), "{e}");
            assert!(e.0.starts_with("update_fraction"), "{e}");
            Config {
                update_fraction: Fraction::QUARTER,
                ..config
            }
            .validate()
            .unwrap()
        }
    }
}

/// The controllers under test plus what the invariants need to remember.
struct World {
    tuner: ExcessTuner,
    floor: Fraction,
    now: Duration,
    stream: ReceiverFlowControl<StreamId>,
    conn: ReceiverFlowControl<Connection>,
    stream_sender: SenderFlowControl<StreamId>,
    conn_sender: SenderFlowControl<Connection>,
    /// Limits sent per subject (stream, connection), for loss/ack picks.
    stream_limits: Vec<u64>,
    conn_limits: Vec<u64>,
    /// Limits at which the stream sender wrote *_BLOCKED.
    blocked_limits: Vec<u64>,
    /// Limits at which `blocked()` armed a report.
    armed_at: BTreeSet<u64>,
    /// Largest window each may reach by tuning/seeding/the floor.
    stream_bound: u64,
    conn_bound: u64,
    /// When each controller sent an update: a tuning step measures from
    /// one of these.
    stream_update_times: Vec<Instant>,
    conn_update_times: Vec<Instant>,
}

impl World {
    fn new(s: &Setup) -> Self {
        let config = valid_config(s);
        let conn = ReceiverFlowControl::new(Connection, &config);
        // A new stream as `ConnectionFlow` opens one without a budget: the
        // initial window, raised to the seed from the connection window.
        let id = StreamId(0);
        let mut stream = ReceiverFlowControl::new(id, &config);
        let seed = stream.raise_window(config.seed_window(conn.window()), ChangeReason::Seed);
        if let Some(change) = seed {
            assert_ne!(change.old, change.new);
            assert_eq!(change.reason, ChangeReason::Seed);
            assert_eq!(change.subject, Subject::Stream(id));
            assert_eq!(change.now, None, "a seed takes no time");
            assert!(change.new <= config.max_stream_window.max(change.old));
        }
        // The seed is max(initial, seed × C) capped at the stream cap, never
        // below the transport parameter.
        let seeded = config.seed_window(conn.window()).max(stream.limit());
        assert_eq!(stream.window(), seeded.min(MAX_VARINT));
        assert_eq!(stream.limit(), config.initial_stream_window);
        Self {
            tuner: s.tuner,
            floor: Fraction::THREE_HALVES,
            now: Duration::ZERO,
            stream_sender: SenderFlowControl::new(id, stream.limit()),
            conn_sender: SenderFlowControl::new(Connection, conn.limit()),
            stream_limits: vec![stream.limit()],
            conn_limits: vec![conn.limit()],
            blocked_limits: Vec::new(),
            armed_at: BTreeSet::new(),
            stream_bound: config.max_stream_window.max(stream.window()),
            conn_bound: config.max_connection_window.max(conn.window()),
            stream,
            conn,
            stream_update_times: Vec::new(),
            conn_update_times: Vec::new(),
        }
    }

    fn instant(&self) -> Instant {
        at_saturating(self.now)
    }

    fn check_update(
        &self,
        u: Option<Update>,
        due: bool,
        old_limit: u64,
        subject: Subject,
        rtt: Option<Rtt>,
    ) {
        assert_eq!(
            u.is_some(),
            due,
            "send_update returns Some exactly when due"
        );
        let Some(u) = u else { return };
        assert!(u.limit >= old_limit);
        assert!(u.limit <= MAX_VARINT);
        if let Some(c) = u.change {
            assert_ne!(c.old, c.new);
            assert_eq!(c.subject, subject);
            assert_eq!(c.reason, ChangeReason::AutoTune);
            assert_eq!(c.now, Some(self.instant()));
            // Tuning needs a sample, and time that moved forward since an
            // earlier update (where the interval started).
            let rtt = rtt.expect("tuned without an RTT sample");
            assert_eq!(c.rtt, Some(rtt.min()));
            let elapsed = c.elapsed.expect("a tuning step's interval");
            assert!(!elapsed.is_zero(), "tuned over a zero interval");
            let times = match subject {
                Subject::Connection => &self.conn_update_times,
                Subject::Stream(_) => &self.stream_update_times,
            };
            assert!(
                times.iter().any(|&t| Some(t + elapsed) == c.now),
                "interval of {elapsed:?} starts at no earlier update",
            );
            assert!(c.new > c.old, "the default tuner only grows");
        }
    }

    fn apply(&mut self, op: &Op) {
        match *op {
            Op::Data { end, fin } => self.data(end, fin),
            Op::DataAtLimit { delta, fin } => {
                let end = self.stream.limit().saturating_add_signed(i64::from(delta));
                self.data(end, fin);
            }
            Op::FinalSize(size) => {
                let before = self.stream.clone();
                let consumed = self.stream.consumed();
                match self.stream.reset_received(size) {
                    Ok(n) => {
                        assert_eq!(self.stream.final_size(), Some(size));
                        assert_eq!(self.stream.consumed(), consumed + n);
                        self.conn_consume(n);
                    }
                    Err(e) => {
                        assert_eq!(format!("{:?}", self.stream), format!("{before:?}"));
                        self.check_error(e, size, true);
                    }
                }
            }
            Op::Retire(share) => {
                let unretired = u128::from(self.stream.unretired());
                let share = u64::try_from(unretired * u128::from(share) / 255).unwrap();
                let target = self.stream.retired() + share;
                self.retire(target);
            }
            Op::RetireRaw(offset) => self.retire(offset),
            Op::SendUpdate { dt, rtt } => {
                self.now = self.now.saturating_add(dt);
                let now = self.instant();
                let (due, old) = (self.stream.update_due(), self.stream.limit());
                let u = self.stream.send_update(now, rtt, &self.tuner);
                self.check_update(u, due, old, Subject::Stream(StreamId(0)), rtt);
                if let Some(u) = u {
                    self.stream_update_times.push(now);
                    self.stream_limits.push(u.limit);
                    self.stream_sender.update(u.limit);
                    assert!(self.stream_sender.limit() >= u.limit);
                }
                let (due, old) = (self.conn.update_due(), self.conn.limit());
                let u = self.conn.send_update(now, rtt, &self.tuner);
                self.check_update(u, due, old, Subject::Connection, rtt);
                if let Some(u) = u {
                    self.conn_update_times.push(now);
                    self.conn_limits.push(u.limit);
                    self.conn_sender.update(u.limit);
                }
            }
            Op::ClockBack(dt) => self.now = self.now.saturating_sub(dt),
            Op::SendUpdateCapped { dt, rtt, cap } => {
                self.now = self.now.saturating_add(dt);
                let now = self.instant();
                let (due, old) = (self.stream.update_due(), self.stream.limit());
                let u = self.stream.send_update_capped(now, rtt, &self.tuner, cap);
                if !due {
                    assert_eq!(u, None);
                }
                if let Some(u) = u {
                    assert!(u.limit >= old && u.limit <= old.max(cap), "{u:?} cap {cap}");
                    assert_eq!(u.limit, self.stream.limit());
                    self.check_update(Some(u), true, old, Subject::Stream(StreamId(0)), rtt);
                    self.stream_update_times.push(now);
                    self.stream_limits.push(u.limit);
                    self.stream_sender.update(u.limit);
                } else {
                    assert_eq!(self.stream.limit(), old);
                }
            }
            Op::Blocked => {
                let due_before = self.stream.update_due();
                let recorded = self.stream.blocked_received(self.stream.limit());
                assert_eq!(recorded, self.stream.final_size().is_none());
                assert!(self.conn.blocked_received(self.conn.limit()));
                // The smallest extension worth answering *_BLOCKED with:
                // an eighth of the update threshold, at least one byte.
                let step = (self.stream.update_fraction().of(self.stream.window()) / 8).max(1);
                if self.stream.consumed() < self.stream.limit() || self.stream.updates_held_back() {
                    // The data does not bear the report out (yet), or the
                    // stack rations its updates: it makes nothing due.
                    assert_eq!(self.stream.update_due(), due_before);
                } else if self.stream.final_size().is_none()
                    && self.stream.credit().saturating_add(step) <= self.stream.window()
                    && self.stream.limit().saturating_add(step) <= MAX_VARINT
                {
                    assert!(self.stream.update_due());
                }
            }
            Op::UpdateLost(i) => {
                let l = self.stream_limits[i % self.stream_limits.len()];
                self.stream.update_lost(l);
                if l == self.stream.limit()
                    && self.stream.acked_limit() < l
                    && self.stream.final_size().is_none()
                {
                    assert!(self.stream.update_due(), "lost latest limit is due");
                }
                let l = self.conn_limits[i % self.conn_limits.len()];
                self.conn.update_lost(l);
            }
            Op::UpdateAcked(i) => {
                let l = self.stream_limits[i % self.stream_limits.len()];
                self.stream.update_acked(l);
                assert!(self.stream.acked_limit() >= l);
                let l = self.conn_limits[i % self.conn_limits.len()];
                self.conn.update_acked(l);
            }
            Op::Cover => {
                let sw = self.stream.window();
                let old = self.conn.window();
                let change = self.conn.cover_stream_window(sw, self.floor);
                let floor = ceil_of(self.floor, sw);
                self.conn_bound = self.conn_bound.max(floor);
                assert_eq!(self.conn.window(), old.max(floor));
                if let Some(c) = change {
                    assert_ne!(c.old, c.new);
                    assert_eq!((c.old, c.new), (old, self.conn.window()));
                    assert_eq!(c.reason, ChangeReason::ConnectionFloor);
                    assert_eq!((c.now, c.rtt, c.elapsed), (None, None, None));
                } else {
                    assert_eq!(self.conn.window(), old);
                }
            }
            Op::SenderConsume(count) => {
                let a = self.stream_sender.available();
                assert_eq!(self.stream_sender.consume(count), count.min(a));
                let a = self.conn_sender.available();
                assert_eq!(self.conn_sender.consume(count), count.min(a));
            }
            Op::SenderBlocked { sent } => {
                let limit = self.stream_sender.limit();
                if self.stream_sender.blocked() {
                    assert!(
                        self.armed_at.insert(limit),
                        "blocked armed twice at {limit}"
                    );
                    assert_eq!(self.stream_sender.available(), 0);
                }
                if sent && let Some(l) = self.stream_sender.blocked_needed() {
                    self.stream_sender.blocked_sent();
                    self.blocked_limits.push(l);
                }
                self.conn_sender.blocked();
            }
            Op::SenderBlockedLost(i) => {
                if !self.blocked_limits.is_empty() {
                    let l = self.blocked_limits[i % self.blocked_limits.len()];
                    let before = self.stream_sender.blocked_needed();
                    self.stream_sender.blocked_lost(l);
                    let after = self.stream_sender.blocked_needed();
                    if l == self.stream_sender.limit() && self.stream_sender.available() == 0 {
                        assert_eq!(after, Some(l), "re-armed while still blocked at {l}");
                    } else {
                        assert_eq!(after, before, "loss of an old report re-armed it");
                    }
                }
            }
            Op::SenderUpdate(v) => {
                let old = self.stream_sender.limit();
                let raised = self.stream_sender.update(v);
                assert_eq!(raised, v.min(MAX_VARINT) > old);
                assert_eq!(self.stream_sender.limit(), old.max(v.min(MAX_VARINT)));
            }
        }
    }

    fn data(&mut self, end: u64, fin: bool) {
        let before = self.stream.clone();
        let consumed = self.stream.consumed();
        match self.stream.on_data(end, fin) {
            Ok(n) => {
                assert!(end <= self.stream.limit());
                assert_eq!(self.stream.consumed(), consumed.max(end));
                assert_eq!(n, self.stream.consumed() - consumed);
                if fin {
                    assert_eq!(self.stream.final_size(), Some(end));
                }
                self.conn_consume(n);
            }
            Err(e) => {
                assert_eq!(
                    format!("{:?}", self.stream),
                    format!("{before:?}"),
                    "{e:?} changed state"
                );
                self.check_error(e, end, fin);
            }
        }
    }

    /// The error is the one the rules call for.
    fn check_error(&self, e: Error, end: u64, fin: bool) {
        match e {
            Error::ValueTooLarge(v) => {
                assert_eq!(v, end);
                assert!(end > MAX_VARINT);
            }
            Error::FlowControl { received, limit } => {
                assert_eq!((received, limit), (end, self.stream.limit()));
                assert!(end > limit);
            }
            Error::FinalSize { known, received } => {
                assert_eq!(received, end);
                match self.stream.final_size() {
                    Some(f) => {
                        assert_eq!(known, f);
                        assert!(if fin { end != f } else { end > f });
                    }
                    None => {
                        assert!(fin);
                        assert_eq!(known, self.stream.consumed());
                        assert!(end < known);
                    }
                }
            }
            Error::RetiredBeyondReceived { .. }
            | Error::InitialLimitAboveMax { .. }
            | Error::StreamLimit { .. }
            | Error::StreamState(_) => {
                panic!("not a data error: {e:?}")
            }
        }
    }

    fn conn_consume(&mut self, n: u64) {
        let before = self.conn.clone();
        let consumed = self.conn.consumed();
        match self.conn.consume(n) {
            Ok(()) => assert_eq!(self.conn.consumed(), consumed + n),
            Err(Error::FlowControl { received, limit }) => {
                assert_eq!(limit, self.conn.limit());
                assert_eq!(received, consumed.saturating_add(n));
                assert!(received > limit);
                assert_eq!(format!("{:?}", self.conn), format!("{before:?}"));
            }
            Err(e) => panic!("unexpected {e:?}"),
        }
    }

    fn retire(&mut self, offset: u64) {
        let before = self.stream.clone();
        let retired = self.stream.retired();
        match self.stream.retire_to(offset) {
            Ok(n) => {
                assert!(offset <= self.stream.consumed());
                assert_eq!(self.stream.retired(), retired.max(offset));
                assert_eq!(n, self.stream.retired() - retired);
                let before = self.conn.clone();
                match self.conn.add_retired(n) {
                    Ok(()) => {}
                    // Only when the connection refused data the stream took.
                    Err(Error::RetiredBeyondReceived { retired, received }) => {
                        assert!(retired > received);
                        assert_eq!(format!("{:?}", self.conn), format!("{before:?}"));
                    }
                    Err(e) => panic!("unexpected {e:?}"),
                }
            }
            Err(e) => {
                assert_eq!(format!("{:?}", self.stream), format!("{before:?}"));
                assert_eq!(
                    e,
                    Error::RetiredBeyondReceived {
                        retired: offset,
                        received: self.stream.consumed()
                    }
                );
                assert!(offset > self.stream.consumed());
            }
        }
    }

    fn check_invariants(&self, prev: &Prev) {
        for (retired, consumed, limit, window) in [
            (
                self.stream.retired(),
                self.stream.consumed(),
                self.stream.limit(),
                self.stream.window(),
            ),
            (
                self.conn.retired(),
                self.conn.consumed(),
                self.conn.limit(),
                self.conn.window(),
            ),
        ] {
            assert!(
                retired <= consumed,
                "retired {retired} > consumed {consumed}"
            );
            assert!(consumed <= limit, "consumed {consumed} > limit {limit}");
            assert!(limit <= MAX_VARINT);
            assert!(window <= MAX_VARINT);
        }
        assert!(
            self.stream.limit() >= prev.stream_limit,
            "stream limit decreased"
        );
        assert!(
            self.conn.limit() >= prev.conn_limit,
            "connection limit decreased"
        );
        assert!(
            self.stream.window() >= prev.stream_window,
            "stream window shrank"
        );
        assert!(
            self.conn.window() >= prev.conn_window,
            "connection window shrank"
        );
        assert!(
            self.stream.window() <= self.stream_bound,
            "stream window {} above cap {}",
            self.stream.window(),
            self.stream_bound
        );
        assert!(
            self.conn.window() <= self.conn_bound,
            "connection window {} above cap {}",
            self.conn.window(),
            self.conn_bound
        );
        if let Some(f) = self.stream.final_size() {
            assert_eq!(self.stream.consumed(), f);
            assert!(!self.stream.update_due());
        }
        for (used, limit, prev_limit) in [
            (
                self.stream_sender.used(),
                self.stream_sender.limit(),
                prev.stream_sender_limit,
            ),
            (
                self.conn_sender.used(),
                self.conn_sender.limit(),
                prev.conn_sender_limit,
            ),
        ] {
            assert!(used <= limit && limit <= MAX_VARINT);
            assert!(limit >= prev_limit, "sender limit decreased");
        }
        if let Some(l) = self.stream_sender.blocked_needed() {
            assert_eq!(l, self.stream_sender.limit());
            assert_eq!(self.stream_sender.available(), 0);
        }
    }

    fn prev(&self) -> Prev {
        Prev {
            stream_limit: self.stream.limit(),
            conn_limit: self.conn.limit(),
            stream_window: self.stream.window(),
            conn_window: self.conn.window(),
            stream_sender_limit: self.stream_sender.limit(),
            conn_sender_limit: self.conn_sender.limit(),
        }
    }
}

/// `⌈f × x⌉` clamped to 2^62 − 1, computed wide as a reference: the
/// connection floor must hold exactly (2 × C ≥ 3 × S), not rounded down.
fn ceil_of(f: Fraction, x: u64) -> u64 {
    let v = (u128::from(x) * u128::from(f.num())).div_ceil(u128::from(f.den()));
    u64::try_from(v).unwrap_or(u64::MAX).min(MAX_VARINT)
}

/// Values that must never decrease.
struct Prev {
    stream_limit: u64,
    conn_limit: u64,
    stream_window: u64,
    conn_window: u64,
    stream_sender_limit: u64,
    conn_sender_limit: u64,
}

proptest! {
    #![proptest_config(pt_config(3000))]

    #[test]
    fn controllers_keep_their_invariants(
        setup in setup(),
        ops in prop::collection::vec(op(), 1..120),
    ) {
        let mut w = World::new(&setup);
        let mut prev = w.prev();
        w.check_invariants(&prev);
        for op in &ops {
            w.apply(op);
            w.check_invariants(&prev);
            prev = w.prev();
        }
    }
}

proptest! {
    #![proptest_config(pt_config(2000))]

    /// A realistic flow (data in order, reads, updates) with the default
    /// configuration: windows stay within the default caps.
    #[test]
    fn in_order_flow_stays_within_caps(
        steps in prop::collection::vec(
            (1u64..=(4 << 20), any::<u8>(), duration(), rtt()),
            1..200,
        ),
    ) {
        let config = Config::default().validate().unwrap();
        let tuner = ExcessTuner::DEFAULT;
        let mut conn = ReceiverFlowControl::new(Connection, &config);
        let mut stream = ReceiverFlowControl::new(StreamId(4), &config);
        stream.raise_window(config.seed_window(conn.window()), ChangeReason::Seed);
        let mut now = Duration::ZERO;
        for (len, share, dt, rtt) in steps {
            let end = stream.limit().min(stream.consumed() + len);
            let n = stream.on_data(end, false).unwrap();
            conn.consume(n).unwrap();
            let off = stream.retired() + stream.unretired() * u64::from(share) / 255;
            let r = stream.retire_to(off).unwrap();
            conn.add_retired(r).unwrap();
            now = now.saturating_add(dt);
            let t = at_saturating(now);
            stream.send_update(t, rtt, &tuner);
            conn.cover_stream_window(stream.window(), config.connection_floor);
            conn.send_update(t, rtt, &tuner);
            prop_assert!(stream.window() <= config.max_stream_window);
            prop_assert!(conn.window() <= config.max_connection_window);
            prop_assert!(stream.consumed() <= stream.limit());
            prop_assert!(conn.consumed() <= conn.limit());
        }
    }

    /// The tuner alone never shrinks a window, whatever the input (the
    /// controller applies the cap: `in_order_flow_stays_within_caps`).
    #[test]
    fn tuner_never_shrinks(
        tuner in tuner(),
        stream in any::<bool>(),
        window in value(),
        max_window in value(),
        delivered in value(),
        elapsed in duration(),
        rtt in sample(),
        fraction in fraction(),
        drained_steps in any::<u32>(),
        late in value(),
    ) {
        let kind = if stream { SubjectKind::Stream } else { SubjectKind::Connection };
        let input = TuneInput {
            kind,
            window,
            max_window,
            delivered,
            elapsed,
            rtt,
            update_fraction: fraction,
            drained_steps,
            late,
        };
        prop_assert!(tuner.tune(&input) >= window);
    }
}
