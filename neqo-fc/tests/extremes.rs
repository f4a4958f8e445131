//! Every call with any configuration `validate()` accepts is panic-free
//! and exact — windows up to the largest valid, thousands of streams, any
//! call order a peer can cause, clocks that stall or go backwards. Run with
//! overflow checks on (the README's test command builds the `test`
//! profile, which keeps them).

mod common;

use std::{
    collections::BTreeMap,
    sync::LazyLock,
    time::{Duration, Instant},
};

use neqo_fc::{
    Budget, Config, ConnectionReceiver, Direction, Fraction, MAX_VARINT, Role, Rtt, StreamId,
    UpdateFrame, ValidConfig,
};
use proptest::prelude::*;

static BASE: LazyLock<Instant> = LazyLock::new(Instant::now);

/// The old overflow: 2^62 − 1 windows and five streams. Such a
/// configuration is now refused; the largest valid "unlimited" one works.
#[test]
fn unlimited_windows_with_five_streams() {
    let unlimited = Config {
        initial_stream_window: MAX_VARINT,
        initial_connection_window: MAX_VARINT,
        max_stream_window: MAX_VARINT,
        max_connection_window: MAX_VARINT,
        budget: None,
        ..Config::default()
    };
    assert!(unlimited.validate().is_err());
    let per_stream = MAX_VARINT / unlimited.max_open_streams();
    let valid = Config {
        initial_stream_window: per_stream,
        max_stream_window: per_stream,
        ..unlimited
    }
    .validate()
    .unwrap();
    let mut rx = ConnectionReceiver::new(Role::Server, valid);
    for k in 0..100 {
        let id = StreamId::new(Role::Client, Direction::Bidi, k);
        rx.on_data(id, 1 << 40, false).unwrap();
    }
    assert_eq!(rx.flow().committed(), 100 * per_stream);
    assert!(rx.flow().committed() <= MAX_VARINT);
    assert_eq!(rx.flow().connection().consumed(), 100 << 40);
}

fn window() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(1u64),
        1u64..4096,
        Just(64 << 10),
        (1u64 << 20)..(1 << 30),
        Just(u64::MAX), // becomes the largest valid for the stream count
    ]
}

fn fraction() -> impl Strategy<Value = Fraction> {
    (1u32..=16, 1u32..=16).prop_map(|(a, b)| Fraction::new(a.min(b), a.max(b)).unwrap())
}

prop_compose! {
    fn config()(
        initial_stream in window(),
        max_stream in window(),
        initial_conn in window(),
        max_conn in window(),
        bidi in prop_oneof![Just(0u64), 1u64..8, 1000u64..3000],
        uni in prop_oneof![Just(1u64), 1u64..8, 1000u64..3000],
        update_fraction in fraction(),
        seed in proptest::option::of(fraction()),
        floor in (0u32..4, 1u32..3),
        budget in proptest::option::of((0u32..6, 1u32..8, window())),
        neqo_rules in (any::<bool>(), any::<bool>()),
    ) -> (ValidConfig, common::Rules) {
        let slots = (2 * bidi + uni).max(1);
        let largest = MAX_VARINT / slots;
        let max_stream = max_stream.min(largest).max(1);
        let max_conn = max_conn.min(MAX_VARINT);
        Config {
            initial_stream_window: initial_stream.min(max_stream),
            max_stream_window: max_stream,
            initial_connection_window: initial_conn.min(max_conn),
            max_connection_window: max_conn,
            update_fraction,
            seed_fraction: seed,
            // 0 draws no floor where that is allowed (no budget), a
            // floor of 1 otherwise.
            connection_floor: if floor.0 == 0 && budget.is_none() {
                Fraction::ZERO
            } else {
                Fraction::new(floor.0 + floor.1, floor.1).unwrap()
            },
            budget: budget.map(|(idle_rtts, multiple, ceiling)| Budget {
                idle_rtts,
                multiple: Fraction::new(multiple, 2).unwrap(),
                ceiling: ceiling.min(MAX_VARINT),
            }),
            max_streams_bidi: bidi,
            max_streams_uni: uni,
        }
        .validate()
        .map(|c| (c, common::Rules { at_once: neqo_rules.0, every_update: neqo_rules.1 }))
        .expect("drawn within the documented ranges")
    }
}

#[derive(Clone, Debug)]
enum Op {
    /// Data on a peer stream: `stream` picks one of a few ids (some beyond
    /// the limits), `to` a share of its limit (> 1 passes it).
    Data {
        stream: u8,
        to: u16,
        fin: bool,
    },
    Read {
        stream: u8,
        to: u16,
    },
    Reset {
        stream: u8,
        to: u16,
    },
    Close {
        stream: u8,
    },
    StreamBlocked {
        stream: u8,
        at: u16,
    },
    DataBlocked {
        at: u16,
    },
    /// Move the clock: forward by `ms`, not at all, or backwards.
    Clock {
        ms: i16,
    },
    Timeout,
    Updates {
        lose: bool,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (any::<u8>(), 0u16..1100, any::<bool>()).prop_map(|(stream, to, fin)| Op::Data { stream, to, fin }),
        4 => (any::<u8>(), 0u16..1001).prop_map(|(stream, to)| Op::Read { stream, to }),
        1 => (any::<u8>(), 0u16..1100).prop_map(|(stream, to)| Op::Reset { stream, to }),
        1 => any::<u8>().prop_map(|stream| Op::Close { stream }),
        1 => (any::<u8>(), 0u16..1100).prop_map(|(stream, at)| Op::StreamBlocked { stream, at }),
        1 => (0u16..1100).prop_map(|at| Op::DataBlocked { at }),
        2 => (-50i16..200).prop_map(|ms| Op::Clock { ms }),
        1 => Just(Op::Timeout),
        3 => any::<bool>().prop_map(|lose| Op::Updates { lose }),
    ]
}

/// A stream id from a small byte: the peer's (client's) bidirectional and
/// unidirectional streams with low indices, some with indices up to
/// ~2,800 (opening all the streams below them), a few far beyond any
/// limit, and some of the server's own (refused).
fn id(b: u8) -> StreamId {
    let index = match b {
        248.. => 1 << 59,
        200.. => u64::from(b - 200) * 60,
        _ => u64::from(b % 8),
    };
    match b % 3 {
        0 => StreamId::new(Role::Client, Direction::Bidi, index),
        1 => StreamId::new(Role::Client, Direction::Uni, index),
        _ => StreamId::new(Role::Server, Direction::Uni, index),
    }
}

fn share(x: u64, per_mille: u16) -> u64 {
    u64::try_from(u128::from(x) * u128::from(per_mille) / 1000).unwrap_or(u64::MAX)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_call_order_with_any_valid_config((cfg, rules) in config(), ops in proptest::collection::vec(op(), 1..150)) {
        let mut rx = ConnectionReceiver::with_tuner(Role::Server, cfg, rules);
        let mut now = *BASE + Duration::from_secs(1);
        let rtt = Rtt::from_sample(Duration::from_millis(30));
        let mut limits: BTreeMap<StreamId, u64> = BTreeMap::new();
        let mut conn_limit = rx.flow().connection().limit();
        let mut sent: Vec<UpdateFrame> = Vec::new();
        for op in ops {
            match op {
                Op::Data { stream, to, fin } => {
                    let id = id(stream);
                    let limit = rx.stream(id).map_or(cfg.initial_stream_window, |s| s.limit());
                    let _ = rx.on_data(id, share(limit, to).min(MAX_VARINT + 1), fin);
                }
                Op::Read { stream, to } => {
                    let id = id(stream);
                    let got = rx.stream(id).map_or(0, |s| s.consumed());
                    let _ = rx.retire_to(id, share(got, to));
                }
                Op::Reset { stream, to } => {
                    let id = id(stream);
                    let limit = rx.stream(id).map_or(cfg.initial_stream_window, |s| s.limit());
                    let _ = rx.reset_received(id, share(limit, to));
                }
                Op::Close { stream } => rx.close_stream(id(stream)),
                Op::StreamBlocked { stream, at } => {
                    let id = id(stream);
                    let limit = rx.stream(id).map_or(0, |s| s.limit());
                    let _ = rx.stream_data_blocked_received(id, share(limit, at));
                }
                Op::DataBlocked { at } => {
                    rx.data_blocked_received(share(rx.flow().connection().limit(), at));
                }
                Op::Clock { ms } => {
                    let d = Duration::from_millis(u64::from(ms.unsigned_abs()));
                    now = if ms >= 0 { now + d } else { now - d };
                }
                Op::Timeout => rx.on_timeout(now, rtt),
                Op::Updates { lose } => {
                    while let Some(f) = rx.next_update(now, rtt) {
                        sent.push(f);
                        if sent.len() > 10_000 {
                            break;
                        }
                    }
                    for f in sent.drain(..) {
                        if lose { rx.update_lost(f) } else { rx.update_acked(f) }
                    }
                }
            }
            // Invariants after every call.
            let c = rx.flow().connection();
            prop_assert!(c.retired() <= c.consumed() && c.consumed() <= c.limit());
            prop_assert!(c.limit() <= MAX_VARINT && c.limit() >= conn_limit);
            conn_limit = c.limit();
            let mut credit = 0u64;
            for s in rx.streams() {
                prop_assert!(s.retired() <= s.consumed() && s.consumed() <= s.limit());
                prop_assert!(s.limit() <= MAX_VARINT);
                prop_assert!(s.window() <= cfg.max_stream_window);
                let before = limits.insert(s.id(), s.limit()).unwrap_or(0);
                prop_assert!(s.limit() >= before, "limits never decrease");
                credit += s.credit();
            }
            prop_assert!(rx.streams().count() as u64 <= cfg.max_open_streams());
            prop_assert_eq!(credit, rx.flow().committed());
            prop_assert!(rx.flow().committed() <= MAX_VARINT);
            if cfg.budget.is_some() {
                prop_assert!(rx.flow().committed() <= rx.flow().budget());
            }
            rx.drain_changes().for_each(drop);
        }
    }
}
