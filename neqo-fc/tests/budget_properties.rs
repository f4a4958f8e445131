//! Property tests of `ConnectionReceiver` and its memory budget over random
//! operation sequences on several streams: open, data below, at and past
//! the limit (with FIN), retire, *_BLOCKED, `next_update` after time steps
//! from zero to hours with RTTs from zero to hours, loss and
//! acknowledgement of past updates, and close.
//!
//! Invariants, each its own test so a failure names the rule:
//! - with a budget, `committed() ≤ budget()` after every operation, the
//!   budget is `open streams × initial window + growth`, the credit beyond
//!   the initial stream window summed over open streams stays within the
//!   growth budget `min(ceiling, multiple × estimate)`, and neither the
//!   growth budget nor the estimate ever decreases (the whole budget falls
//!   by a stream's promised initial window when it closes);
//! - a new stream's window is `max(initial, seed_fraction × estimate)`
//!   (× connection window without a budget), capped by `initial + room`,
//!   also for the lower-numbered streams a frame opens with it;
//! - a lost update whose limit is still the latest is re-sent by the next
//!   `next_update` calls, room or not;
//! - no advertised limit (stream or connection) ever decreases, and every
//!   frame `next_update` returns carries the subject's current limit;
//! - `committed()` equals `Σ (limit − retired)` over the open streams;
//! - stream windows stay ≤ the configured cap; the connection window only
//!   passes its cap to cover a floor (1.5 × a stream window, or at most
//!   the committed credit after the update lag);
//! - after every `next_update` the connection window is ≥ ⌈1.5 × largest
//!   open stream window⌉ and, with a budget, ≥ ⌈min(committed, parked +
//!   credit beyond the promises + estimate) / (1 − f)⌉, within an update
//!   threshold while data that arrived since is not yet covered;
//! - a failing call on an open stream changes nothing; a failing
//!   `on_data` on a new stream opens it (and the lower-numbered streams of
//!   its type: their ids were valid, RFC 9000 §3.2) but accounts nothing;
//! - frames for closed streams are ignored and never reopen them;
//! - nothing panics.
//!
//! The rebalancing pass runs when its timer is due, before the updates of
//! a `Next` step (as a stack fires `on_timeout`, then writes frames).

mod common;

use std::{
    collections::{BTreeMap, BTreeSet},
    time::{Duration, Instant},
};

use common::{base, fire_timer};
use neqo_fc::{
    Budget, ChangeReason, Config, ConnectionReceiver, Direction, Error, ExcessTuner, Fraction,
    MAX_STREAMS, MAX_VARINT, Role, Rtt, StreamId, Subject, UpdateFrame,
};
use proptest::{
    prelude::*,
    test_runner::{Config as PtConfig, RngSeed},
};

/// The peer reports *_BLOCKED for `id` (`None`: the connection) at the
/// limit we advertise now: the strongest claim a report can make, as one
/// at a lower limit is stale and ignored.
fn blocked(rx: &mut ConnectionReceiver<ExcessTuner>, id: Option<StreamId>) {
    match id {
        None => {
            let limit = rx.flow().connection().limit();
            rx.data_blocked_received(limit);
        }
        Some(id) => {
            let limit = rx.stream(id).map_or(0, |s| s.limit());
            let _ = rx.stream_data_blocked_received(id, limit);
        }
    }
}

/// The receiver is a server; ids `0..BIDI` are the client's first
/// bidirectional streams, `BIDI..IDS` its first unidirectional ones.
const BIDI: u64 = 4;

fn sid(k: u64) -> StreamId {
    if k < BIDI {
        StreamId::new(Role::Client, Direction::Bidi, k)
    } else {
        StreamId::new(Role::Client, Direction::Uni, k - BIDI)
    }
}

/// Stream ids used: 0..IDS.
const IDS: u64 = 6;
/// Sequences per property.
const CASES: u32 = 3_000;

/// Deterministic runs and no regression files in the source tree.
fn pt_config() -> PtConfig {
    PtConfig {
        cases: CASES,
        rng_seed: RngSeed::Fixed(0x6275_6467_6574_7321),
        failure_persistence: None,
        ..PtConfig::default()
    }
}

fn fraction() -> impl Strategy<Value = Fraction> {
    prop_oneof![
        Just(Fraction::QUARTER),
        Just(Fraction::HALF),
        Just(Fraction::ONE),
        (1u32..=8, 8u32..=16).prop_map(|(n, d)| Fraction::new(n, d).unwrap()),
    ]
}

fn budget() -> impl Strategy<Value = Budget> {
    (
        prop_oneof![
            Just(Fraction::THREE),
            Just(Fraction::ONE),
            Just(Fraction::HALF),
            Just(Fraction::ZERO)
        ],
        prop_oneof![0u64..=(1 << 20), Just(64 << 20)],
        0u32..=6,
    )
        .prop_map(|(multiple, ceiling, idle_rtts)| Budget {
            multiple,
            ceiling,
            idle_rtts,
        })
}

/// MAX_STREAMS for the peer's bidirectional and unidirectional streams:
/// fewer than the ids used (so STREAM_LIMIT_ERROR and MAX_STREAMS after
/// closes are exercised), or the default 100. (The old `Budget.max_streams`
/// capped open streams under a budget; these limits apply always.)
fn stream_limits() -> impl Strategy<Value = (u64, u64)> {
    prop_oneof![
        1 => Just((100, 100)),
        2 => (1u64..=BIDI + 1, 1u64..=IDS - BIDI + 1),
    ]
}

/// The default configuration, small windows with random fractions and
/// budgets, or extremes (windows of one byte, or the largest the stream
/// limits allow, up to thousands of streams); always valid.
fn config() -> impl Strategy<Value = Config> {
    let small = (
        1u64..=(256 << 10),
        1u64..=(1 << 20),
        1u64..=64,
        1u64..=64,
        fraction(),
        prop::option::of(fraction()),
        prop::option::of(budget()),
        stream_limits(),
    )
        .prop_map(
            |(stream, conn, sx, cx, update, seed, budget, (bidi, uni))| Config {
                initial_stream_window: stream,
                initial_connection_window: conn,
                max_stream_window: stream * sx,
                max_connection_window: conn * cx,
                update_fraction: update,
                seed_fraction: seed,
                budget,
                max_streams_bidi: bidi,
                max_streams_uni: uni,
                ..common::config_512k()
            },
        );
    let extreme = (
        prop_oneof![Just(1u64), Just(MAX_VARINT), any::<u64>()],
        prop_oneof![Just(1u64), Just(MAX_VARINT), any::<u64>()],
        prop_oneof![Just(1u64), Just(MAX_VARINT)],
        fraction(),
        prop::option::of(fraction()),
        prop::option::of(
            (budget(), prop_oneof![Just(0u64), Just(MAX_VARINT)])
                .prop_map(|(b, ceiling)| Budget { ceiling, ..b }),
        ),
        prop_oneof![stream_limits(), Just((3000, 3000)), Just((0, 1))],
        any::<bool>(),
    )
        .prop_map(
            |(stream, conn, conn_max, update, seed, budget, (bidi, uni), largest)| {
                let mut c = Config {
                    update_fraction: update,
                    seed_fraction: seed,
                    budget,
                    max_streams_bidi: bidi,
                    max_streams_uni: uni,
                    ..common::config_512k()
                };
                // The largest stream window valid with these limits, or a
                // one-byte to 2^16-byte one.
                let most = (MAX_VARINT / c.max_open_streams().max(1)).max(1);
                c.max_stream_window = if largest {
                    most
                } else {
                    stream.clamp(1, 1 << 16)
                };
                c.initial_stream_window = stream.clamp(1, c.max_stream_window);
                // With windows near 2^62 / streams the rebalancing pass's
                // need saturates at u64::MAX and the next pass overflows:
                // a suspected library bug pinned by
                // `rebalancing_with_a_saturated_need_does_not_panic`
                // (ignored); no rebalancing drawn with those windows.
                if largest && let Some(b) = c.budget.as_mut() {
                    b.idle_rtts = 0;
                }
                c.max_connection_window = conn_max.max(conn.clamp(1, MAX_VARINT));
                c.initial_connection_window = conn.clamp(1, MAX_VARINT);
                c
            },
        );
    prop_oneof![
        1 => Just(common::config_512k()),
        1 => budget().prop_map(|b| Config { budget: Some(b), ..common::config_512k() }),
        3 => small,
        1 => extreme,
    ]
}

fn duration() -> impl Strategy<Value = Duration> {
    prop_oneof![
        3 => Just(Duration::ZERO),
        5 => (0u64..=200_000_000).prop_map(Duration::from_nanos),
        1 => (1u64..=100).prop_map(|h| Duration::from_secs(h * 3600)),
    ]
}

/// An RTT estimate: mostly a sample (`min ≤ smoothed`), sometimes none
/// (before the first sample: updates are still sent, nothing is tuned).
fn rtt() -> impl Strategy<Value = Option<Rtt>> {
    prop_oneof![
        8 => (duration(), duration()).prop_map(|(s, m)| Rtt::new(s.max(m), m)),
        1 => Just(None),
    ]
}

fn id() -> impl Strategy<Value = u64> {
    0..IDS
}

/// Where a STREAM frame ends.
#[derive(Clone, Copy, Debug)]
enum End {
    /// Between what arrived and the limit, in 1/255.
    Within(u8),
    /// The limit plus a small offset (either side).
    AtLimit(i8),
    /// Anywhere.
    Raw(u64),
}

#[derive(Clone, Debug)]
enum Op {
    /// The peer's first frame for a stream (no data) opens it, and the
    /// lower-numbered streams of its type.
    Open(u64),
    Data {
        id: u64,
        end: End,
        fin: bool,
    },
    /// The application reads a share (in 1/255) of what is buffered.
    Retire {
        id: u64,
        share: u8,
    },
    /// The application reports reading to any offset (bugs included).
    RetireRaw {
        id: u64,
        offset: u64,
    },
    /// DATA_BLOCKED (`None`) or STREAM_DATA_BLOCKED.
    Blocked(Option<u64>),
    /// Time passes (or, with `back`, the clock goes back by `dt`); fire
    /// the rebalancing timer if due and write every update `next_update`
    /// gives.
    Next {
        dt: Duration,
        back: bool,
        rtt: Option<Rtt>,
    },
    /// A past update frame (picked from those sent) was lost.
    Lost(usize),
    /// A past update frame was acknowledged.
    Acked(usize),
    Close(u64),
    /// RESET_STREAM with a final size.
    Reset {
        id: u64,
        end: End,
    },
    /// The peer fills the stream to its limit and the application reads
    /// it all (drives the tuner).
    Pump(u64),
}

fn end() -> impl Strategy<Value = End> {
    prop_oneof![
        4 => any::<u8>().prop_map(End::Within),
        3 => (-3i8..=3).prop_map(End::AtLimit),
        1 => prop_oneof![0u64..=(4 << 20), any::<u64>(), (MAX_VARINT - 4)..=(MAX_VARINT + 4)]
            .prop_map(End::Raw),
    ]
}

fn op(closes: bool) -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => id().prop_map(Op::Open),
        6 => (id(), end(), prop::bool::weighted(0.1)).prop_map(|(id, end, fin)| Op::Data { id, end, fin }),
        5 => (id(), any::<u8>()).prop_map(|(id, share)| Op::Retire { id, share }),
        1 => (id(), any::<u64>()).prop_map(|(id, offset)| Op::RetireRaw { id, offset }),
        1 => prop::option::of(id()).prop_map(Op::Blocked),
        5 => (duration(), prop::bool::weighted(0.05), rtt())
            .prop_map(|(dt, back, rtt)| Op::Next { dt, back, rtt }),
        1 => any::<usize>().prop_map(Op::Lost),
        1 => any::<usize>().prop_map(Op::Acked),
        1 => id().prop_map(Op::Close),
        1 => (id(), end()).prop_map(|(id, end)| Op::Reset { id, end }),
        3 => id().prop_map(Op::Pump),
    ]
    .prop_filter("no closes", move |op| {
        closes || !matches!(op, Op::Close(_) | Op::Reset { .. })
    })
}

fn ops(closes: bool) -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(op(closes), 1..96)
}

/// Which invariants a run asserts.
#[derive(Clone, Copy, Default)]
struct Checks {
    budget: bool,
    monotonic: bool,
    committed_sum: bool,
    caps: bool,
    floor: bool,
    failures: bool,
    seeds: bool,
    resend: bool,
    /// Open a stream with an empty frame before its first data, so that
    /// data never arrives on a stream not open yet.
    open_first: bool,
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
            stream_count: self.rx.stream_count(),
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

    /// The seeds the streams a frame on `id` opens should get, in the order
    /// they open (lowest index first): `max(initial, seed × basis)` capped
    /// by `initial + room`, where the basis is the estimate with a budget
    /// (the connection window without) and the room is the growth budget
    /// less the credit beyond the initial window summed over open streams.
    /// Each opening may raise the estimate (1.5 × a seed) and the
    /// connection window (its floor) before the next.
    fn expected_seeds(&self, id: u64) -> Vec<(u64, u64)> {
        let c = self.rx.flow().config();
        let initial = c.initial_stream_window;
        let excess = self.excess();
        let mut estimate = self.rx.flow().estimate();
        let mut conn_window = self.rx.flow().connection().window();
        let mut largest = self.rx.flow().largest_window();
        let same_type = if id < BIDI { 0..BIDI } else { BIDI..IDS };
        let mut out = Vec::new();
        for k in same_type.filter(|&k| k <= id && !self.seen.contains(&k)) {
            let seed = match c.budget {
                Some(b) => {
                    let room = b.limit(estimate, 0, 0).saturating_sub(excess);
                    c.seed_window(estimate).min(initial.saturating_add(room))
                }
                None => c.seed_window(conn_window),
            };
            if seed != initial {
                estimate = estimate.max(c.connection_floor.of_ceil(seed));
            }
            largest = largest.max(seed);
            conn_window = conn_window.max(c.connection_floor.of_ceil(largest));
            out.push((k, seed));
        }
        out
    }

    fn check_seeds(&self, expected: &[(u64, u64)]) {
        if self.checks.seeds {
            for &(k, seed) in expected {
                // (One reset on its first frame is closed already.)
                let Some(s) = self.rx.stream(sid(k)) else {
                    continue;
                };
                assert_eq!(s.window(), seed, "seed of {:?}", sid(k));
                assert_eq!(s.limit(), self.rx.flow().config().initial_stream_window);
            }
        }
    }

    /// `Σ max(0, credit − initial_stream_window)` over open streams.
    fn excess(&self) -> u64 {
        let initial = self.rx.flow().config().initial_stream_window;
        self.open_ids()
            .map(|id| self.rx.stream(id).unwrap().credit().saturating_sub(initial))
            .sum()
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

    /// A failing call leaves every stream open before as it was, and the
    /// connection's books and the committed credit; the only change
    /// allowed is the streams a frame opens (their ids were valid), each
    /// fresh with its initial credit — and through them the connection
    /// window (see `failed_data_on_a_new_stream_accounts_nothing_at_the_connection`
    /// in `connection_receiver.rs`).
    fn failed(&self, e: Option<Error>, before: Option<&Snapshot>) {
        let Some(e) = e else {
            return;
        };
        assert!(matches!(e.code(), 0x01 | 0x03 | 0x04 | 0x06 | 0x07), "{e}");
        let Some(before) = before else {
            return;
        };
        let after = self.snapshot();
        let newly: Vec<u64> = (0..IDS)
            .filter(|&k| {
                before.streams[k as usize].is_none() && after.streams[k as usize].is_some()
            })
            .collect();
        if newly.is_empty() {
            assert_eq!(&after, before, "{e} changed state");
            return;
        }
        assert!(
            !matches!(e, Error::StreamLimit { .. }),
            "{e} opened {newly:?}"
        );
        let initial = self.rx.flow().config().initial_stream_window;
        for k in 0..IDS {
            if before.streams[k as usize].is_some() {
                assert_eq!(after.streams[k as usize], before.streams[k as usize], "{e}");
            }
        }
        for &k in &newly {
            let s = self.rx.stream(sid(k)).unwrap();
            assert_eq!(
                (s.limit(), s.consumed(), s.retired(), s.final_size()),
                (initial, 0, 0, None),
                "{e}: opened {k}"
            );
        }
        assert_eq!(after.connection_books, before.connection_books, "{e}");
        assert_eq!(after.stream_count, before.stream_count + newly.len(), "{e}");
        assert_eq!(
            after.committed,
            before.committed + newly.len() as u64 * initial,
            "{e}"
        );
    }

    /// Frames whose latest limit was lost.
    fn resend_pending(&self) -> Vec<UpdateFrame> {
        let conn = self.rx.flow().connection();
        conn.resend_pending()
            .then(|| UpdateFrame::MaxData(conn.limit()))
            .into_iter()
            .chain(self.open_ids().filter_map(|id| {
                let s = self.rx.stream(id).unwrap();
                s.resend_pending().then(|| UpdateFrame::MaxStreamData {
                    id,
                    limit: s.limit(),
                })
            }))
            .collect()
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

    /// Connection window ≥ ⌈1.5 × largest open stream window⌉ and (with a
    /// budget) covers the credit it stands behind, `min(committed, bytes
    /// parked unread + credit beyond the promises + estimate)`, over
    /// `1 − f`: at once after every call but data arrival, and within an
    /// update threshold (`f × window`) after data arrival.
    fn check_floor(&self, when: &dyn std::fmt::Debug) {
        if !self.checks.floor {
            return;
        }
        let c = self.rx.flow().config();
        let largest = self
            .open_ids()
            .map(|id| self.rx.stream(id).unwrap().window())
            .max()
            .unwrap_or(0);
        let w = self.rx.flow().connection().window();
        // Both floors saturate at 2^62 − 1, the largest window (reached only
        // with windows near 2^62 / streams; the credit itself is never
        // above it).
        let need = c.connection_floor.of_ceil(largest).min(MAX_VARINT);
        assert!(
            w >= need,
            "after {when:?}: connection window {w} < ⌈1.5 × {largest}⌉ = {need}"
        );
        if c.budget.is_some() {
            let covered = self.rx.flow().committed().min(
                self.rx
                    .flow()
                    .buffered()
                    .saturating_add(self.excess())
                    .saturating_add(self.rx.flow().estimate()),
            );
            let need = lag_floor(covered, c.update_fraction).min(MAX_VARINT);
            let slack = c.update_fraction.of(w);
            assert!(
                w.saturating_add(slack) >= need,
                "after {when:?}: connection window {w} (+ {slack}) < credit floor {need}"
            );
        }
    }

    /// Records the largest stream window (including ones a budget cut in
    /// the same call: the floor may follow those) and committed credit so
    /// far, and checks every reported change: `old != new`, the caller's
    /// time, and a reason that fits the subject.
    fn observe(&mut self) {
        for id in 0..IDS {
            if let Some(s) = self.rx.stream(sid(id)) {
                self.max_stream_window = self.max_stream_window.max(s.window());
            }
        }
        self.max_committed = self.max_committed.max(self.rx.flow().committed());
        let now = self.instant();
        for c in self.rx.drain_changes() {
            assert_ne!(c.old, c.new, "{c}");
            // Opening a stream (a seed, and the floor that covers it) takes
            // no time; everything else happens at the caller's time.
            assert!(c.now.is_none_or(|t| t == now), "{c}");
            assert!(
                c.now.is_some()
                    || matches!(c.reason, ChangeReason::Seed | ChangeReason::ConnectionFloor),
                "{c}"
            );
            match c.subject {
                Subject::Stream(_) => {
                    assert_ne!(c.reason, ChangeReason::ConnectionFloor, "{c}");
                    self.max_stream_window = self.max_stream_window.max(c.new);
                }
                Subject::Connection => assert!(
                    matches!(
                        c.reason,
                        ChangeReason::AutoTune | ChangeReason::ConnectionFloor
                    ),
                    "{c}"
                ),
            }
        }
    }

    fn check(&mut self, after: &dyn std::fmt::Debug) {
        self.observe();
        let rx = &self.rx;
        let c = *rx.flow().config();
        if self.checks.budget
            && let Some(b) = c.budget
        {
            assert!(
                rx.flow().committed() <= rx.flow().budget(),
                "after {after:?}: committed {} > budget {}",
                rx.flow().committed(),
                rx.flow().budget()
            );
            let growth = b.limit(rx.flow().estimate(), 0, 0);
            // The promised part counts the streams open now (the old budget
            // counted `max_streams` slots, open or not).
            assert_eq!(
                rx.flow().budget(),
                b.limit(
                    rx.flow().estimate(),
                    rx.stream_count() as u64,
                    c.initial_stream_window
                )
            );
            let excess = self.excess();
            assert!(
                excess <= growth,
                "after {after:?}: credit beyond the initial windows {excess} > growth {growth}"
            );
            assert!(
                growth >= self.growth && rx.flow().estimate() >= self.estimate,
                "after {after:?}: growth budget {} -> {growth}, estimate {} -> {}",
                self.growth,
                self.estimate,
                rx.flow().estimate()
            );
            self.growth = growth;
            self.estimate = rx.flow().estimate();
        }
        if c.budget.is_none() {
            assert_eq!(rx.flow().budget(), u64::MAX);
        }
        if self.checks.committed_sum {
            let sum: u64 = self
                .open_ids()
                .map(|id| rx.stream(id).unwrap().credit())
                .sum();
            assert_eq!(rx.flow().committed(), sum, "after {after:?}");
            assert_eq!(rx.stream_count(), self.open_ids().count());
        }
        if self.checks.monotonic {
            let conn = rx.flow().connection().limit();
            assert!(
                conn >= self.conn_limit,
                "after {after:?}: MAX_DATA {} -> {conn}",
                self.conn_limit
            );
            self.conn_limit = conn;
            for id in 0..IDS {
                if let Some(s) = rx.stream(sid(id)) {
                    let old = self.limits.insert(id, s.limit()).unwrap_or(0);
                    assert!(
                        s.limit() >= old,
                        "after {after:?}: stream {id} limit {old} -> {}",
                        s.limit()
                    );
                    assert!(s.retired() <= s.consumed() && s.consumed() <= s.limit());
                }
            }
        }
        if self.checks.caps {
            let stream_cap = c.max_stream_window;
            for id in 0..IDS {
                if let Some(s) = rx.stream(sid(id)) {
                    assert!(
                        s.window() <= stream_cap,
                        "after {after:?}: stream {id} window {} > cap {stream_cap}",
                        s.window()
                    );
                }
            }
            let bound = c
                .max_connection_window
                .max(c.initial_connection_window)
                .max(c.connection_floor.of_ceil(self.max_stream_window))
                .max(if c.budget.is_some() {
                    lag_floor(self.max_committed, c.update_fraction)
                } else {
                    0
                });
            let w = rx.flow().connection().window();
            assert!(
                w <= bound,
                "after {after:?}: connection window {w} > {bound}"
            );
        }
    }
}

/// `⌈committed × den / (den − num)⌉`, as the receiver computes its floor.
fn lag_floor(committed: u64, f: Fraction) -> u64 {
    let usable = u64::from(f.den() - f.num()).max(1);
    let v = (u128::from(committed) * u128::from(f.den())).div_ceil(u128::from(usable));
    u64::try_from(v).unwrap_or(u64::MAX)
}

fn run(config: Config, ops: &[Op], checks: Checks) {
    let mut w = World::new(config, checks);
    for op in ops {
        w.apply(op);
    }
}

/// Configurations without rebalancing passes (`idle_rtts = 0`).
fn config_without_rebalancing() -> impl Strategy<Value = Config> {
    config().prop_map(|mut c| {
        if let Some(b) = c.budget.as_mut() {
            b.idle_rtts = 0;
        }
        c
    })
}

proptest! {
    #![proptest_config(pt_config())]

    #[test]
    fn committed_never_exceeds_the_budget_without_closes(config in config(), ops in ops(false)) {
        run(config, &ops, Checks { budget: true, ..Checks::default() });
    }

    /// See `closing_a_stream_keeps_committed_within_the_budget` in
    /// `connection_receiver.rs` for a small example.
    #[test]
    fn committed_never_exceeds_the_budget(config in config(), ops in ops(true)) {
        run(config, &ops, Checks { budget: true, ..Checks::default() });
    }

    #[test]
    fn limits_never_decrease_and_committed_is_the_credit_sum(config in config(), ops in ops(true)) {
        run(config, &ops, Checks { monotonic: true, committed_sum: true, ..Checks::default() });
    }

    /// Data rejected on a new stream opens it now (see
    /// `failed_data_on_a_new_stream_accounts_nothing_at_the_connection` in
    /// `connection_receiver.rs`), so the connection window it raises
    /// covers a stream that is open: the caps hold with or without opening
    /// streams first (the old receiver needed them opened first).
    #[test]
    fn windows_stay_within_the_caps(config in config(), ops in ops(true)) {
        run(config, &ops, Checks { caps: true, ..Checks::default() });
    }

    #[test]
    fn windows_stay_within_the_caps_when_streams_open_first(config in config(), ops in ops(true)) {
        run(config, &ops, Checks { caps: true, open_first: true, ..Checks::default() });
    }

    #[test]
    fn connection_floor_holds_without_rebalancing(
        config in config_without_rebalancing(),
        ops in ops(true),
    ) {
        run(config, &ops, Checks { floor: true, ..Checks::default() });
    }

    /// See `connection_floor_follows_a_window_raised_by_rebalancing`.
    #[test]
    fn connection_floor_holds_after_every_next_update(config in config(), ops in ops(true)) {
        run(config, &ops, Checks { floor: true, ..Checks::default() });
    }

    #[test]
    fn failed_calls_change_nothing(config in config(), ops in ops(true)) {
        run(config, &ops, Checks { failures: true, ..Checks::default() });
    }

    #[test]
    fn new_streams_are_seeded_within_the_room(config in config(), ops in ops(true)) {
        run(config, &ops, Checks { seeds: true, ..Checks::default() });
    }

    #[test]
    fn lost_updates_are_resent_room_or_not(config in config(), ops in ops(true)) {
        run(config, &ops, Checks { resend: true, ..Checks::default() });
    }
}

/// Once a counterexample of `connection_floor_holds_after_every_next_update`
/// (as the shrinker found it, with the default `idle_rtts`): default
/// settings without growth budget. 64 KiB read in the first 1 ms pass while
/// the RTT estimate grows from 1 ms to 6 ms counts as 393,216 bytes per
/// RTT; the pass raises the estimate to 589,824 and the stream's window to
/// 393,216 (Budget). The stream's update may wait for room, so the pass
/// itself must re-apply the connection floor: ⌈1.5 × 393,216⌉ = 589,824
/// (it was left at 524,288).
#[test]
fn connection_floor_follows_a_window_raised_by_rebalancing() {
    let config = Config {
        budget: Some(Budget {
            ceiling: 0,
            ..Budget::default()
        }),
        ..common::config_512k()
    };
    let mut rx = ConnectionReceiver::new(Role::Server, config.validate().unwrap());
    let id = sid(0);
    let at = common::at;
    let rtt = common::rtt_ms;
    assert_eq!(rx.on_data(id, 0, false), Ok(0));
    assert_eq!(rx.stream(id).unwrap().window(), 65_536);
    // The first call arms the pass timer one RTT (1 ms) later.
    assert_eq!(rx.next_update(at(0), rtt(1)), None);
    assert_eq!(rx.next_timeout(), Some(at(1)));
    rx.on_data(id, 65_536, false).unwrap();
    rx.retire_to(id, 65_536).unwrap();
    common::drive(&mut rx, at(1), rtt(6));
    assert_eq!(rx.flow().estimate(), 589_824);
    let raised: Vec<_> = rx
        .drain_changes()
        .filter(|c| c.subject == Subject::Stream(id) && c.reason == ChangeReason::Budget)
        .map(|c| (c.old, c.new))
        .collect();
    assert_eq!(raised.first(), Some(&(65_536, 393_216)), "{raised:?}");
    // Connection windows never shrink: the floor of the raised window,
    // whatever the stream's update did to its window afterwards.
    assert!(
        rx.flow().connection().window() >= 589_824,
        "connection window {} < 589,824",
        rx.flow().connection().window()
    );
    let largest = rx.stream(id).unwrap().window();
    assert!(rx.flow().connection().window() >= config.connection_floor.of_ceil(largest));
}

/// The rebalancing pass measures the connection's need as 1.5 × the bytes
/// moved per RTT, `moved × min_rtt / interval`, saturating at `u64::MAX`;
/// the next pass compares it with `last_need + last_need / 8`, which must
/// saturate too (found by the test port: it overflowed). `Config::validate`
/// accepts the windows that get there, and the crate promises that no call
/// panics with any valid configuration. Here: the largest stream window
/// the default stream limits allow (2^62 / 300), read in full between two
/// passes while the RTT estimate grows from 10 ms to an hour.
#[test]
fn rebalancing_with_a_saturated_need_does_not_panic() {
    let mut config = common::config_512k();
    config.max_stream_window = MAX_VARINT / config.max_open_streams();
    config.initial_stream_window = config.max_stream_window;
    config.max_connection_window = MAX_VARINT;
    config.budget = Some(Budget {
        idle_rtts: 1,
        ..Budget::default()
    });
    let mut rx = ConnectionReceiver::new(Role::Server, config.validate().unwrap());
    let id = sid(0);
    let at = common::at;
    let hour = Rtt::from_sample(Duration::from_secs(3600));
    let pump = |rx: &mut ConnectionReceiver<ExcessTuner>, _now| {
        let end = rx.stream(id).unwrap().limit();
        rx.on_data(id, end, false).unwrap();
        rx.retire_to(id, end).unwrap();
    };
    assert_eq!(rx.on_data(id, 0, false), Ok(0));
    // The pass timer is armed with a 10 ms RTT.
    common::drive(&mut rx, at(0), common::rtt_ms(10));
    assert_eq!(rx.next_timeout(), Some(at(10)));
    // A whole window read in 10 ms, scaled to an hour's RTT: the need
    // saturates at u64::MAX.
    pump(&mut rx, at(5));
    common::drive(&mut rx, at(10), hour);
    assert_eq!(rx.flow().estimate(), u64::MAX);
    // Another window read before the next pass: any need > 0 then
    // evaluates `u64::MAX + u64::MAX / 8`.
    pump(&mut rx, at(20));
    let next = rx.next_timeout().unwrap();
    common::drive(&mut rx, next, hour);
    assert!(rx.flow().committed() <= rx.flow().budget());
}
