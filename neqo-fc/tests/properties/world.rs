//! The controllers under test, the operations applied to them, and the
//! invariants checked after each.

use std::{
    collections::BTreeSet,
    time::{Duration, Instant},
};

use neqo_fc::{
    ChangeReason, Connection, Error, ExcessTuner, Fraction, MAX_VARINT, ReceiverFlowControl, Rtt,
    SenderFlowControl, StreamId, Subject, Update,
};

use super::ops::{Op, Setup, valid_config};
use crate::common::at_saturating;

/// The controllers under test plus what the invariants need to remember.
pub struct World {
    tuner: ExcessTuner,
    floor: Fraction,
    update_fraction: Fraction,
    now: Duration,
    stream: ReceiverFlowControl<StreamId>,
    conn: ReceiverFlowControl<Connection>,
    stream_sender: SenderFlowControl<StreamId>,
    conn_sender: SenderFlowControl<Connection>,
    /// Limits sent per subject (stream, connection), for loss/ack picks.
    stream_limits: Vec<u64>,
    conn_limits: Vec<u64>,
    /// Highest stream limit acknowledged (the initial one counts).
    stream_acked: u64,
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
    pub fn new(s: &Setup) -> Self {
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
            update_fraction: config.update_fraction,
            now: Duration::ZERO,
            stream_sender: SenderFlowControl::new(id, stream.limit()),
            conn_sender: SenderFlowControl::new(Connection, conn.limit()),
            stream_limits: vec![stream.limit()],
            conn_limits: vec![conn.limit()],
            stream_acked: stream.limit(),
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

    pub fn apply(&mut self, op: &Op) {
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
                let step = (self.update_fraction.of(self.stream.window()) / 8).max(1);
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
                    && self.stream_acked < l
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
                self.stream_acked = self.stream_acked.max(l);
                if l >= self.stream.limit() {
                    assert!(!self.stream.resend_pending(), "acked latest limit");
                }
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
            | Error::StreamState(_)
            | Error::ForeignStream(_) => {
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

    pub fn check_invariants(&self, prev: &Prev) {
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

    pub fn prev(&self) -> Prev {
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
pub struct Prev {
    stream_limit: u64,
    conn_limit: u64,
    stream_window: u64,
    conn_window: u64,
    stream_sender_limit: u64,
    conn_sender_limit: u64,
}
