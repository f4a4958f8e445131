//! The receiver under test and the operations applied to it, each checked
//! as it is applied.

mod checks;

use std::{
    collections::{BTreeMap, BTreeSet},
    time::{Duration, Instant},
};

use neqo_fc::{
    Config, ConnectionReceiver, Error, ExcessTuner, MAX_STREAMS, MAX_VARINT, Role, Rtt, StreamId,
    UpdateFrame,
};

use super::{
    IDS, sid,
    strategies::{End, Op},
};
use crate::common::{base, blocked, fire_timer};

/// Which invariants a run asserts.
#[derive(Clone, Copy, Default)]
pub struct Checks {
    pub budget: bool,
    pub monotonic: bool,
    pub committed_sum: bool,
    pub caps: bool,
    pub floor: bool,
    pub failures: bool,
    pub seeds: bool,
    pub resend: bool,
    /// Open a stream with an empty frame before its first data, so that
    /// data never arrives on a stream not open yet.
    pub open_first: bool,
}

/// A stream's controller as observed.
type StreamSnap = Option<String>;

/// What a failing call must leave as it was.
#[derive(Debug, PartialEq, Eq)]
struct Snapshot {
    /// Every stream's controller (`None` if not open), in full.
    streams: Vec<StreamSnap>,
    /// The connection's controller, in full.
    connection: String,
    /// The connection's limit, consumed and retired counts.
    connection_books: (u64, u64, u64),
    committed: u64,
    stream_count: usize,
    update_pending: bool,
}

/// The receiver under test and what the invariants remember.
struct World {
    rx: ConnectionReceiver<ExcessTuner>,
    checks: Checks,
    now: Duration,
    /// Streams that were open at some point (those no longer open are
    /// closed for good).
    seen: BTreeSet<u64>,
    /// Limit last seen per stream, and for the connection.
    limits: BTreeMap<u64, u64>,
    conn_limit: u64,
    sent: Vec<UpdateFrame>,
    /// Largest stream window and committed credit seen so far (the
    /// connection floors follow them).
    max_stream_window: u64,
    max_committed: u64,
    /// Growth budget and estimate last seen (neither decreases).
    growth: u64,
    estimate: u64,
}

impl World {
    fn new(config: Config, checks: Checks) -> Self {
        let rx = ConnectionReceiver::new(Role::Server, config.validate().expect("valid config"));
        let mut w = Self {
            conn_limit: rx.flow().connection().limit(),
            rx,
            checks,
            now: Duration::ZERO,
            seen: BTreeSet::new(),
            limits: BTreeMap::new(),
            sent: Vec::new(),
            max_stream_window: 0,
            max_committed: 0,
            growth: 0,
            estimate: 0,
        };
        w.check(&"new");
        w
    }

    fn instant(&self) -> Instant {
        base() + self.now
    }

    fn open_ids(&self) -> impl Iterator<Item = StreamId> + '_ {
        (0..IDS).map(sid).filter(|&id| self.rx.stream(id).is_some())
    }

    /// Was open, is no longer: frames for it are ignored.
    fn closed(&self, id: u64) -> bool {
        self.seen.contains(&id) && self.rx.stream(sid(id)).is_none()
    }

    /// A snapshot when failures are checked (formatting is slow).
    fn failure_snapshot(&self) -> Option<Snapshot> {
        self.checks.failures.then(|| self.snapshot())
    }

    fn snapshot(&self) -> Snapshot {
        let c = self.rx.flow().connection();
        Snapshot {
            streams: (0..IDS)
                .map(|k| self.rx.stream(sid(k)).map(|s| format!("{s:?}")))
                .collect(),
            connection: format!("{c:?}"),
            connection_books: (c.limit(), c.consumed(), c.retired()),
            committed: self.rx.flow().committed(),
            stream_count: self.rx.streams().count(),
            update_pending: self.rx.update_pending(),
        }
    }

    fn apply(&mut self, op: &Op) {
        match *op {
            Op::Open(id) => self.data(id, End::Raw(0), false),
            Op::Data { id, end, fin } => self.data(id, end, fin),
            Op::Retire { id, share } => {
                if let Some(s) = self.rx.stream(sid(id)) {
                    let share = u128::from(s.unretired()) * u128::from(share) / 255;
                    let to = s.retired() + u64::try_from(share).unwrap();
                    assert_eq!(self.rx.retire_to(sid(id), to).map(|_| ()), Ok(()));
                }
            }
            Op::RetireRaw { id, offset } => {
                let was_open = self.rx.stream(sid(id)).is_some();
                let before = self.failure_snapshot();
                let r = self.rx.retire_to(sid(id), offset);
                if was_open {
                    self.failed(r.err(), before.as_ref());
                } else {
                    assert_eq!(r, Ok(0));
                }
            }
            Op::Blocked(id) => blocked(&mut self.rx, id.map(sid)),
            Op::Next { dt, back, rtt } => self.next(dt, back, rtt),
            Op::Lost(i) => {
                if let Some(u) = self.pick(i) {
                    self.rx.update_lost(u);
                }
            }
            Op::Acked(i) => {
                if let Some(u) = self.pick(i) {
                    self.rx.update_acked(u);
                }
            }
            Op::Pump(id) => {
                self.data(id, End::AtLimit(0), false);
                if let Some(s) = self.rx.stream(sid(id)) {
                    let to = s.consumed();
                    assert_eq!(self.rx.retire_to(sid(id), to).map(|_| ()), Ok(()));
                }
            }
            Op::Close(id) => self.rx.close_stream(sid(id)),
            Op::Reset { id, end } => {
                let end = self.end_offset(id, end);
                // A stream reset on its first frame opens and closes at once.
                if self
                    .frame(id, end, |rx, id| rx.reset_received(id, end))
                    .is_ok()
                {
                    self.seen.insert(id);
                }
            }
        }
        self.note_seen();
        self.check(op);
    }

    fn note_seen(&mut self) {
        for k in 0..IDS {
            if self.rx.stream(sid(k)).is_some() {
                self.seen.insert(k);
            }
        }
    }

    fn pick(&self, i: usize) -> Option<UpdateFrame> {
        (!self.sent.is_empty()).then(|| self.sent[i % self.sent.len()])
    }

    fn end_offset(&self, id: u64, end: End) -> u64 {
        let (consumed, limit) = self
            .rx
            .stream(sid(id))
            .map_or((0, self.rx.flow().config().initial_stream_window), |s| {
                (s.consumed(), s.limit())
            });
        match end {
            End::Within(share) => {
                let room = u128::from(limit.saturating_sub(consumed));
                consumed + u64::try_from(room * u128::from(share) / 255).unwrap()
            }
            End::AtLimit(d) => limit.saturating_add_signed(i64::from(d)),
            End::Raw(v) => v,
        }
    }

    fn data(&mut self, id: u64, end: End, fin: bool) {
        let end = self.end_offset(id, end);
        if self.checks.open_first && self.rx.stream(sid(id)).is_none() && !self.closed(id) {
            let _ = self.frame(id, 0, |rx, id| rx.on_data(id, 0, false));
            self.note_seen();
        }
        let _ = self.frame(id, end, |rx, id| rx.on_data(id, end, fin));
    }

    /// A STREAM or RESET_STREAM frame on `id` reaching `end`, checked.
    fn frame(
        &mut self,
        id: u64,
        end: u64,
        call: impl FnOnce(&mut ConnectionReceiver<ExcessTuner>, StreamId) -> Result<u64, Error>,
    ) -> Result<u64, Error> {
        let closed = self.closed(id);
        let consumed = self.rx.stream(sid(id)).map_or(0, |s| s.consumed());
        let seeds = self.expected_seeds(id);
        let before = self.failure_snapshot();
        let conn_before = self.rx.flow().connection().consumed();
        let committed_before = self.rx.flow().committed();
        let r = call(&mut self.rx, sid(id));
        if !matches!(r, Err(Error::StreamLimit { .. })) {
            // Streams opened by this frame held their initial credit, and
            // the connection floor covered it, even if a reset closed one
            // before the call returned.
            let initial = self.rx.flow().config().initial_stream_window;
            self.max_committed = self
                .max_committed
                .max(committed_before + seeds.len() as u64 * initial);
            let seeded = seeds.iter().map(|&(_, w)| w).max().unwrap_or(0);
            self.max_stream_window = self.max_stream_window.max(seeded);
        }
        self.observe();
        match r {
            Ok(n) => {
                assert_eq!(self.rx.flow().connection().consumed(), conn_before + n);
                if closed {
                    // Frames for a closed stream are ignored.
                    assert_eq!(n, 0);
                    if let Some(before) = &before {
                        assert_eq!(&self.snapshot(), before, "a frame for a closed stream");
                    }
                } else {
                    assert_eq!(n, end.saturating_sub(consumed));
                    self.check_seeds(&seeds);
                }
            }
            Err(e) => {
                self.failed(Some(e), before.as_ref());
                // A stream limit refuses the frame before opening anything.
                if !matches!(e, Error::StreamLimit { .. }) {
                    self.check_seeds(&seeds);
                }
            }
        }
        r
    }

    fn next(&mut self, dt: Duration, back: bool, rtt: Option<Rtt>) {
        self.now = if back {
            self.now.saturating_sub(dt)
        } else {
            self.now + dt
        };
        let now = self.instant();
        let lost = self.resend_pending();
        let first = self.sent.len();
        fire_timer(&mut self.rx, now, rtt);
        self.observe();
        self.check_floor(&"the rebalancing pass");
        for _ in 0..32 {
            let Some(u) = self.rx.next_update(now, rtt) else {
                break;
            };
            if self.checks.monotonic {
                let current = match u {
                    UpdateFrame::MaxData(_) => self.rx.flow().connection().limit(),
                    UpdateFrame::MaxStreamData { id, .. } => {
                        self.rx.stream(id).expect("open").limit()
                    }
                    UpdateFrame::MaxStreams { direction, .. } => {
                        assert!(u.limit() <= MAX_STREAMS);
                        self.rx.max_streams(direction)
                    }
                };
                assert_eq!(u.limit(), current, "{u:?}");
                assert!(u.limit() <= MAX_VARINT);
            }
            self.sent.push(u);
            self.observe();
            self.check_floor(&u);
        }
        self.check_floor(&"next_update returned None");
        if self.checks.resend {
            let sent = &self.sent[first..];
            for lost in lost {
                let again = |u: &UpdateFrame| match (*u, lost) {
                    (UpdateFrame::MaxData(_), UpdateFrame::MaxData(_)) => true,
                    (
                        UpdateFrame::MaxStreamData { id, .. },
                        UpdateFrame::MaxStreamData { id: lost_id, .. },
                    ) => id == lost_id,
                    _ => false,
                };
                assert!(
                    sent.iter().any(|u| again(u) && u.limit() >= lost.limit()),
                    "lost {lost:?} not re-sent: {sent:?}"
                );
            }
        }
    }
}

pub fn run(config: Config, ops: &[Op], checks: Checks) {
    let mut w = World::new(config, checks);
    for op in ops {
        w.apply(op);
    }
}
