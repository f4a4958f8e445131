//! Property tests over hostile call sequences (issue #6): what a peer — or
//! a confused embedding stack — can throw at the receive and send sides.
//!
//! - data past the limit → FLOW_CONTROL_ERROR (0x03), never accepted
//!   (RFC 9000 §4.1);
//! - final size changes → FINAL_SIZE_ERROR (0x06) (RFC 9000 §4.5);
//! - lower or duplicate MAX_* frames are ignored (RFC 9000 §4.1);
//! - frames for streams already closed are ignored;
//! - values at and around 2^62 − 1 and `u64::MAX`, and durations from zero
//!   to `Duration::MAX`, never overflow or panic;
//! - a flood of *_BLOCKED frames against a reader that reads nothing
//!   grows no window and makes no update due.

use std::{collections::BTreeMap, time::Duration};

use neqo_fc::{
    Budget, Config, Connection, ConnectionReceiver, Error, ExcessTuner, FlowSubject, Fraction,
    MAX_VARINT, ReceiverFlowControl, Rtt, SenderFlowControl, StreamId, Subject,
};
use proptest::prelude::*;

/// Everything observable about one receive-side controller.
type Snap = (u64, u64, u64, u64, u64, bool, bool, Option<u64>);

fn snap<S: FlowSubject>(fc: &ReceiverFlowControl<S>) -> Snap {
    (
        fc.limit(),
        fc.window(),
        fc.consumed(),
        fc.retired(),
        fc.acked_limit(),
        fc.update_due(),
        fc.resend_pending(),
        fc.final_size(),
    )
}

/// Everything observable about a connection receiver, for the streams in
/// `ids`.
fn snap_all(
    rx: &ConnectionReceiver<ExcessTuner>,
    ids: &[StreamId],
) -> (Snap, Vec<Option<Snap>>, u64, usize, bool) {
    (
        snap(rx.connection()),
        ids.iter().map(|&id| rx.stream(id).map(snap)).collect(),
        rx.committed(),
        rx.stream_count(),
        rx.update_pending(),
    )
}

/// The state a failing call must leave unchanged. `update_pending` is left
/// out: it is a hint ("may return a frame") and a failed open may drop a
/// stale queue entry left by an earlier `close_stream`.
fn core(s: &(Snap, Vec<Option<Snap>>, u64, usize, bool)) -> (Snap, Vec<Option<Snap>>, u64, usize) {
    (s.0, s.1.clone(), s.2, s.3)
}

fn receiver(config: Config) -> ConnectionReceiver<ExcessTuner> {
    assert_eq!(config.validate(), Ok(()));
    ConnectionReceiver::new(config, config.tuner())
}

/// A small configuration so that connection limits are reached too.
fn small(budget: bool) -> Config {
    Config {
        initial_stream_window: 1000,
        initial_connection_window: 2500,
        budget: budget.then(Budget::default),
        ..Config::default()
    }
}

/// Offsets and counts: small, near the limits in use, and the edges.
fn value() -> impl Strategy<Value = u64> {
    prop_oneof![
        6 => 0..4000u64,
        2 => 0..200_000u64,
        1 => prop::sample::select(vec![
            MAX_VARINT - 1,
            MAX_VARINT,
            MAX_VARINT + 1,
            u64::MAX - 1,
            u64::MAX,
        ]),
        1 => any::<u64>(),
    ]
}

fn duration() -> impl Strategy<Value = Duration> {
    prop_oneof![
        3 => (0..200u64).prop_map(Duration::from_millis),
        1 => Just(Duration::ZERO),
        1 => Just(Duration::from_nanos(1)),
        1 => Just(Duration::from_secs(3600)),
        1 => Just(Duration::from_secs(10 * 3600)),
        1 => Just(Duration::MAX),
        1 => any::<u64>().prop_map(Duration::from_nanos),
    ]
}

#[derive(Clone, Debug)]
enum Op {
    Data { s: u8, end: u64, fin: bool },
    Retire { s: u8, offset: u64 },
    Blocked(Option<u8>),
    Lost { s: Option<u8>, limit: u64 },
    Acked { s: Option<u8>, limit: u64 },
    Close(u8),
    Update,
    Advance(Duration),
    Rtt(Duration),
}

fn op() -> impl Strategy<Value = Op> {
    let s = 0u8..4;
    prop_oneof![
        6 => (s.clone(), value(), prop::bool::weighted(0.15))
            .prop_map(|(s, end, fin)| Op::Data { s, end, fin }),
        4 => (s.clone(), value()).prop_map(|(s, offset)| Op::Retire { s, offset }),
        1 => prop::option::of(s.clone()).prop_map(Op::Blocked),
        1 => (prop::option::of(s.clone()), value()).prop_map(|(s, limit)| Op::Lost { s, limit }),
        1 => (prop::option::of(s.clone()), value()).prop_map(|(s, limit)| Op::Acked { s, limit }),
        1 => s.prop_map(Op::Close),
        3 => Just(Op::Update),
        2 => duration().prop_map(Op::Advance),
        1 => duration().prop_map(Op::Rtt),
    ]
}

/// The peer reports *_BLOCKED for `id` (`None`: the connection) at the
/// limit we advertise now: the strongest claim a report can make, as one
/// at a lower limit is stale and ignored.
fn blocked<T: neqo_fc::Tuner>(rx: &mut ConnectionReceiver<T>, id: Option<StreamId>) {
    let limit = match id {
        None => rx.connection().limit(),
        Some(id) => rx.stream(id).map_or(0, |s| s.limit()),
    };
    rx.blocked_received(id, limit);
}

fn sid(s: u8) -> StreamId {
    StreamId(u64::from(s) * 4)
}

fn subject(s: Option<u8>) -> Subject {
    s.map_or(Subject::Connection, |s| Subject::Stream(sid(s)))
}

/// The invariants every call keeps (RFC 9000 §4 and the crate's docs).
fn check_invariants(
    rx: &ConnectionReceiver<ExcessTuner>,
    ids: &[StreamId],
    limits: &mut BTreeMap<StreamId, u64>,
    conn_limit: &mut u64,
) -> Result<(), TestCaseError> {
    let c = rx.connection();
    prop_assert!(c.retired() <= c.consumed());
    prop_assert!(c.consumed() <= c.limit(), "connection past its limit");
    prop_assert!(c.limit() <= MAX_VARINT);
    prop_assert!(c.limit() >= *conn_limit, "connection limit decreased");
    *conn_limit = c.limit();
    let mut credit = 0u64;
    let mut consumed = 0u64;
    for &id in ids {
        let Some(fc) = rx.stream(id) else {
            limits.remove(&id);
            continue;
        };
        prop_assert!(fc.retired() <= fc.consumed());
        prop_assert!(fc.consumed() <= fc.limit(), "{id} past its limit");
        prop_assert!(fc.limit() <= MAX_VARINT);
        if let Some(f) = fc.final_size() {
            prop_assert_eq!(f, fc.consumed());
        }
        let old = limits.insert(id, fc.limit()).unwrap_or(0);
        prop_assert!(fc.limit() >= old, "{id} limit decreased");
        credit += fc.limit() - fc.retired();
        consumed += fc.consumed() - fc.retired();
    }
    prop_assert_eq!(rx.committed(), credit, "committed != Σ(limit − retired)");
    prop_assert!(consumed <= c.consumed() - c.retired());
    if let Some(b) = rx.config().budget {
        prop_assert!(rx.committed() <= rx.budget());
        prop_assert!(rx.stream_count() as u64 <= b.max_streams);
    }
    Ok(())
}

fn run_ops(config: Config, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut rx = receiver(config);
    let ids: Vec<StreamId> = (0..4).map(sid).collect();
    let mut limits = BTreeMap::new();
    let mut conn_limit = 0;
    let mut now = Duration::ZERO;
    let mut rtt = Rtt::from(Duration::from_millis(30));
    for op in ops {
        let before = snap_all(&rx, &ids);
        match *op {
            Op::Data { s, end, fin } => {
                let id = sid(s);
                let stream_before = rx.stream(id).map(snap);
                let conn_before = snap(rx.connection());
                match rx.on_data(id, end, fin, now) {
                    Ok(n) => {
                        let fc = rx.stream(id).expect("open after data");
                        let old = stream_before.map_or(0, |s| s.2);
                        prop_assert_eq!(fc.consumed(), old.max(end));
                        prop_assert_eq!(n, fc.consumed() - old);
                        prop_assert_eq!(rx.connection().consumed(), conn_before.2 + n);
                    }
                    Err(e) => {
                        // A failing call changes nothing.
                        prop_assert_eq!(&core(&snap_all(&rx, &ids)), &core(&before), "{:?}", e);
                        let stream_limit =
                            stream_before.map_or(config.initial_stream_window, |s| s.0);
                        match e {
                            Error::ValueTooLarge(v) => {
                                prop_assert_eq!(e.code(), 0x07);
                                prop_assert!(v > MAX_VARINT);
                            }
                            Error::FlowControl { received, limit } => {
                                prop_assert_eq!(e.code(), 0x03);
                                prop_assert!(received > limit);
                                prop_assert!(
                                    end > stream_limit || limit == conn_before.0,
                                    "FlowControl without passing a limit"
                                );
                            }
                            Error::FinalSize { .. } => {
                                prop_assert_eq!(e.code(), 0x06);
                                prop_assert!(stream_before.is_some());
                            }
                            Error::StreamLimit(_) => prop_assert_eq!(e.code(), 0x04),
                            Error::RetiredBeyondReceived { .. } => {
                                prop_assert!(false, "on_data returned {:?}", e);
                            }
                        }
                    }
                }
                // Data past the stream's limit is never accepted.
                if end > MAX_VARINT
                    || end > stream_before.map_or(config.initial_stream_window, |s| s.0)
                {
                    prop_assert_eq!(rx.stream(id).map(snap), stream_before);
                }
            }
            Op::Retire { s, offset } => {
                let id = sid(s);
                match rx.retire(id, offset) {
                    Ok(_) => {}
                    Err(e) => {
                        prop_assert_eq!(e.code(), 0x01);
                        prop_assert_eq!(&core(&snap_all(&rx, &ids)), &core(&before));
                    }
                }
            }
            Op::Blocked(s) => blocked(&mut rx, s.map(sid)),
            Op::Lost { s, limit } => rx.update_lost(subject(s), limit),
            Op::Acked { s, limit } => rx.update_acked(subject(s), limit),
            Op::Close(s) => rx.close_stream(sid(s)),
            Op::Update => {
                let mut n = 0;
                while let Some(u) = rx.next_update(now, rtt) {
                    n += 1;
                    prop_assert!(n <= 16, "next_update does not terminate");
                    prop_assert!(u.limit <= MAX_VARINT);
                }
            }
            Op::Advance(d) => now = now.saturating_add(d),
            Op::Rtt(d) => rtt = Rtt::from(d),
        }
        check_invariants(&rx, &ids, &mut limits, &mut conn_limit)?;
        let _ = rx.drain_changes().count();
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 4000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Hostile sequences against a connection receiver with a budget: no
    /// limit is ever passed, failing calls change nothing, limits never
    /// shrink, `committed` stays exact.
    #[test]
    fn connection_receiver_survives_hostile_sequences(ops in prop::collection::vec(op(), 1..60)) {
        run_ops(small(true), &ops)?;
    }

    /// The same without a budget.
    #[test]
    fn connection_receiver_without_budget(ops in prop::collection::vec(op(), 1..60)) {
        run_ops(small(false), &ops)?;
    }

    /// Default configuration (64 KiB streams, 512 KiB connection).
    #[test]
    fn connection_receiver_default_config(ops in prop::collection::vec(op(), 1..60)) {
        run_ops(Config::default(), &ops)?;
    }

    /// A stream controller: data past the limit is FLOW_CONTROL_ERROR and
    /// never accepted; the outcome is exactly predictable.
    #[test]
    fn stream_data_past_limit(
        limit in value(),
        calls in prop::collection::vec((value(), prop::bool::weighted(0.2)), 1..40),
    ) {
        let mut fc = ReceiverFlowControl::new(StreamId(0), limit, limit, Fraction::QUARTER);
        let limit = limit.min(MAX_VARINT);
        prop_assert_eq!(fc.limit(), limit);
        for (end, fin) in calls {
            let before = snap(&fc);
            let consumed = fc.consumed();
            let known = fc.final_size();
            let expected = if end > MAX_VARINT {
                Err(Error::ValueTooLarge(end))
            } else if let Some(k) = known {
                if (fin && end != k) || end > k {
                    Err(Error::FinalSize { known: k, received: end })
                } else {
                    Ok(0)
                }
            } else if fin && end < consumed {
                Err(Error::FinalSize { known: consumed, received: end })
            } else if end > limit {
                Err(Error::FlowControl { received: end, limit })
            } else {
                Ok(end.saturating_sub(consumed))
            };
            let got = fc.on_data(end, fin);
            prop_assert_eq!(got, expected);
            if let Err(e) = got {
                prop_assert_eq!(snap(&fc), before, "{:?}", e);
                let code = match e {
                    Error::ValueTooLarge(_) => 0x07,
                    Error::FinalSize { .. } => 0x06,
                    _ => 0x03,
                };
                prop_assert_eq!(e.code(), code);
            }
            prop_assert!(fc.consumed() <= fc.limit());
        }
    }

    /// Connection-level consume: the running total never passes the limit.
    #[test]
    fn connection_consume_past_limit(
        window in value(),
        counts in prop::collection::vec(value(), 1..40),
    ) {
        let config = Config {
            initial_connection_window: window.min(MAX_VARINT),
            ..Config::default()
        };
        let mut c = ReceiverFlowControl::connection(&config);
        for n in counts {
            let before = c.consumed();
            match c.consume(n) {
                Ok(()) => prop_assert_eq!(c.consumed(), before + n),
                Err(e) => {
                    prop_assert_eq!(e.code(), 0x03);
                    prop_assert_eq!(
                        e,
                        Error::FlowControl { received: before.saturating_add(n), limit: c.limit() }
                    );
                    prop_assert_eq!(c.consumed(), before);
                }
            }
            prop_assert!(c.consumed() <= c.limit());
        }
    }

    /// Lower or duplicate MAX_* values are ignored: the limit is the
    /// running maximum (clamped to 2^62 − 1), `update` returns true exactly
    /// when it rose.
    #[test]
    fn sender_ignores_lower_or_duplicate_max(
        initial in value(),
        ops in prop::collection::vec((value(), value(), any::<bool>()), 1..60),
    ) {
        let mut s = SenderFlowControl::new(Connection, initial);
        let mut limit = initial.min(MAX_VARINT);
        for (update, consume, blocked) in ops {
            let raised = s.update(update);
            prop_assert_eq!(raised, update.min(MAX_VARINT) > limit);
            limit = limit.max(update.min(MAX_VARINT));
            prop_assert_eq!(s.limit(), limit);
            // A duplicate is ignored.
            prop_assert!(!s.update(update));
            prop_assert_eq!(s.limit(), limit);
            let used = s.used();
            let granted = s.consume(consume);
            prop_assert_eq!(granted, consume.min(limit - used));
            prop_assert!(s.used() <= s.limit());
            if blocked {
                let available = s.available();
                let armed = s.blocked();
                prop_assert!(!armed || available == 0, "armed with credit left");
                if armed {
                    prop_assert_eq!(s.blocked_needed(), Some(limit));
                    // Once per limit.
                    prop_assert!(!s.blocked());
                }
                if let Some(l) = s.blocked_needed() {
                    prop_assert_eq!(l, limit);
                    s.blocked_sent();
                }
            }
        }
    }

    /// Any time, RTT and value, straight on one controller: no panic, no
    /// overflow, invariants held.
    #[test]
    fn extreme_values_and_durations(
        initial in value(),
        window in value(),
        steps in prop::collection::vec((value(), duration(), duration(), 0u8..5), 1..40),
    ) {
        let tuner = ExcessTuner::DEFAULT;
        let mut fc = ReceiverFlowControl::new(StreamId(1), initial, window, Fraction::QUARTER);
        let mut last_limit = fc.limit();
        for (v, now, rtt, kind) in steps {
            let rtt = Rtt::new(rtt, rtt / 2);
            match kind {
                0 => { let _ = fc.on_data(v, false); }
                1 => { let _ = fc.retire(v); }
                2 => {
                    if let Some(u) = fc.send_update(now, rtt, &tuner) {
                        prop_assert!(u.limit <= MAX_VARINT);
                    }
                }
                3 => { fc.update_lost(v); fc.update_acked(v / 2); }
                _ => { let _ = fc.raise_window(v, neqo_fc::ChangeReason::Seed, now); }
            }
            prop_assert!(fc.retired() <= fc.consumed());
            prop_assert!(fc.consumed() <= fc.limit());
            prop_assert!(fc.limit() <= MAX_VARINT && fc.window() <= MAX_VARINT);
            prop_assert!(fc.limit() >= last_limit);
            last_limit = fc.limit();
        }
    }
}

#[test]
fn final_size_changes_are_errors() {
    let mut rx = receiver(Config::default());
    let id = StreamId(0);
    assert_eq!(rx.on_data(id, 100, false, Duration::ZERO), Ok(100));
    // FIN below data already received.
    assert_eq!(
        rx.on_data(id, 99, true, Duration::ZERO),
        Err(Error::FinalSize {
            known: 100,
            received: 99
        })
    );
    assert_eq!(rx.on_data(id, 1000, true, Duration::ZERO), Ok(900));
    // Repeated identical final size: fine, nothing new.
    assert_eq!(rx.on_data(id, 1000, true, Duration::ZERO), Ok(0));
    assert_eq!(rx.on_data(id, 1000, false, Duration::ZERO), Ok(0));
    let before = snap_all(&rx, &[id]);
    for (end, fin) in [(999, true), (1001, true), (1001, false), (0, true)] {
        let e = rx.on_data(id, end, fin, Duration::ZERO).unwrap_err();
        assert_eq!(
            e,
            Error::FinalSize {
                known: 1000,
                received: end
            }
        );
        assert_eq!(e.code(), 0x06);
        assert_eq!(snap_all(&rx, &[id]), before);
    }
    // A final size past the limit is FLOW_CONTROL_ERROR, not FINAL_SIZE.
    let id2 = StreamId(4);
    let limit = Config::default().initial_stream_window;
    assert_eq!(
        rx.on_data(id2, limit + 1, true, Duration::ZERO),
        Err(Error::FlowControl {
            received: limit + 1,
            limit
        })
    );
    assert!(rx.stream(id2).is_none(), "rejected data opens no stream");
    assert_eq!(rx.on_data(id2, limit, true, Duration::ZERO), Ok(limit));
}

#[test]
fn frames_for_closed_streams_are_ignored() {
    let mut rx = receiver(Config::default());
    let now = Duration::from_millis(5);
    let rtt = Rtt::from(Duration::from_millis(20));
    let (a, b) = (StreamId(0), StreamId(4));
    rx.on_data(a, 40_000, false, now).unwrap();
    rx.on_data(b, 50_000, false, now).unwrap();
    rx.retire(a, 40_000).unwrap();
    rx.retire(b, 30_000).unwrap();
    while rx.next_update(now, rtt).is_some() {}
    let a_limit = rx.stream(a).unwrap().limit();
    rx.close_stream(a);
    assert!(rx.stream(a).is_none());
    let before = snap_all(&rx, &[a, b]);
    for limit in [
        0,
        1,
        a_limit - 1,
        a_limit,
        a_limit + 1,
        MAX_VARINT,
        u64::MAX,
    ] {
        rx.update_lost(Subject::Stream(a), limit);
        rx.update_acked(Subject::Stream(a), limit);
        rx.blocked_received(Some(a), limit);
        assert_eq!(rx.retire(a, limit), Ok(0));
        rx.close_stream(a);
        assert_eq!(snap_all(&rx, &[a, b]), before, "limit {limit}");
    }
    // Streams never opened: same.
    let ghost = StreamId(1 << 40);
    rx.update_lost(Subject::Stream(ghost), 7);
    rx.update_acked(Subject::Stream(ghost), 7);
    rx.blocked_received(Some(ghost), 7);
    rx.close_stream(ghost);
    assert_eq!(snap_all(&rx, &[a, b, ghost]).0, before.0);
    assert_eq!(snap_all(&rx, &[a, b]), before);
    // Nothing is due for the closed stream.
    while let Some(u) = rx.next_update(now, rtt) {
        assert_ne!(u.subject, Subject::Stream(a));
    }
}

#[test]
fn edges_at_2_62_and_u64_max() {
    // Sender: limits clamp, consume saturates at the credit.
    let mut s = SenderFlowControl::new(StreamId(0), u64::MAX);
    assert_eq!(s.limit(), MAX_VARINT);
    assert!(!s.update(u64::MAX));
    assert!(!s.update(MAX_VARINT));
    assert_eq!(s.consume(u64::MAX), MAX_VARINT);
    assert_eq!(s.available(), 0);
    assert!(s.blocked());
    assert_eq!(s.blocked_needed(), Some(MAX_VARINT));
    let mut s = SenderFlowControl::new(Connection, MAX_VARINT - 1);
    assert!(s.update(MAX_VARINT + 1));
    assert_eq!(s.limit(), MAX_VARINT);

    // Stream receiver at the very top.
    let mut fc = ReceiverFlowControl::new(StreamId(0), u64::MAX, u64::MAX, Fraction::ZERO);
    assert_eq!(fc.limit(), MAX_VARINT);
    assert_eq!(fc.window(), MAX_VARINT);
    assert_eq!(fc.update_fraction(), Fraction::QUARTER);
    for bad in [MAX_VARINT + 1, u64::MAX] {
        assert_eq!(fc.on_data(bad, false), Err(Error::ValueTooLarge(bad)));
        assert_eq!(fc.on_data(bad, true), Err(Error::ValueTooLarge(bad)));
        assert_eq!(fc.set_final_size(bad), Err(Error::ValueTooLarge(bad)));
    }
    assert_eq!(fc.on_data(MAX_VARINT - 1, false), Ok(MAX_VARINT - 1));
    assert_eq!(fc.on_data(MAX_VARINT, false), Ok(1));
    assert_eq!(fc.retire(MAX_VARINT), Ok(MAX_VARINT));
    assert_eq!(
        fc.retire(u64::MAX),
        Err(Error::RetiredBeyondReceived {
            retired: u64::MAX,
            received: MAX_VARINT
        })
    );
    let tuner = ExcessTuner::DEFAULT;
    for now in [Duration::ZERO, Duration::from_secs(3600), Duration::MAX] {
        for rtt in [Duration::ZERO, Duration::from_secs(3600), Duration::MAX] {
            let _ = fc.send_update(now, Rtt::from(rtt), &tuner);
            assert!(fc.limit() <= MAX_VARINT);
        }
    }

    // Connection: consume saturates into an error, retire too.
    let config = Config {
        initial_connection_window: MAX_VARINT,
        max_connection_window: MAX_VARINT,
        ..Config::default()
    };
    let mut c = ReceiverFlowControl::connection(&config);
    assert_eq!(c.consume(MAX_VARINT), Ok(()));
    assert_eq!(
        c.consume(u64::MAX),
        Err(Error::FlowControl {
            received: u64::MAX,
            limit: MAX_VARINT
        })
    );
    assert_eq!(c.consume(0), Ok(()));
    assert!(c.retire(u64::MAX).is_err());
    assert_eq!(c.retire(MAX_VARINT), Ok(()));

    // A whole connection receiver at the top of every window.
    let config = Config {
        initial_stream_window: MAX_VARINT,
        initial_connection_window: MAX_VARINT,
        max_stream_window: MAX_VARINT,
        max_connection_window: MAX_VARINT,
        ..Config::default()
    };
    for budget in [None, Some(Budget::default())] {
        let mut rx = receiver(Config { budget, ..config });
        let id = StreamId(0);
        for now in [Duration::ZERO, Duration::from_secs(7200), Duration::MAX] {
            assert_eq!(
                rx.on_data(id, u64::MAX, false, now),
                Err(Error::ValueTooLarge(u64::MAX))
            );
            let _ = rx.on_data(id, MAX_VARINT, false, now);
            let _ = rx.retire(id, MAX_VARINT);
            for rtt in [Duration::ZERO, Duration::MAX] {
                while rx.next_update(now, Rtt::from(rtt)).is_some() {}
            }
            rx.update_lost(Subject::Connection, MAX_VARINT);
            rx.update_acked(Subject::Stream(id), u64::MAX);
        }
        assert!(rx.connection().limit() <= MAX_VARINT);
        assert_eq!(rx.connection().consumed(), MAX_VARINT);
    }
}

#[test]
fn blocked_flood_grows_nothing() {
    for config in [
        Config::default(),
        small(true),
        small(false),
        Config {
            seed_fraction: None,
            budget: None,
            ..Config::default()
        },
    ] {
        let mut rx = receiver(config);
        let rtt = Rtt::from(Duration::from_millis(20));
        let id = StreamId(0);
        let mut now = Duration::ZERO;
        // The sender fills the stream's limit; the reader reads nothing.
        rx.on_data(id, config.initial_stream_window, false, now)
            .unwrap();
        while rx.next_update(now, rtt).is_some() {}
        let filled = rx.stream(id).unwrap().limit();
        rx.on_data(id, filled, false, now).unwrap();
        while rx.next_update(now, rtt).is_some() {}
        let _ = rx.drain_changes().count();
        let before = snap_all(&rx, &[id]);
        assert!(!rx.update_pending());
        for i in 0..10_000u32 {
            blocked(&mut rx, Some(id));
            blocked(&mut rx, None);
            if i % 100 == 0 {
                now += Duration::from_millis(1);
                assert_eq!(rx.next_update(now, rtt), None, "update after {i} blocked");
            }
        }
        assert!(!rx.update_pending());
        assert_eq!(rx.next_update(now, rtt), None);
        let after = snap_all(&rx, &[id]);
        assert_eq!(after, before);
        let c = rx.stream(id).unwrap();
        assert_eq!(c.consumed(), c.limit());
        assert_eq!(rx.drain_changes().count(), 0, "no window change");
    }

    // The same on a bare controller.
    let mut fc = ReceiverFlowControl::new(StreamId(0), 1000, 1000, Fraction::QUARTER);
    fc.on_data(1000, false).unwrap();
    let before = snap(&fc);
    for _ in 0..10_000 {
        fc.blocked_received(fc.limit());
    }
    assert!(!fc.update_due());
    assert_eq!(
        fc.send_update(
            Duration::from_secs(1),
            Rtt::from(Duration::from_millis(10)),
            &ExcessTuner::DEFAULT
        ),
        None
    );
    assert_eq!(snap(&fc), before);
}
