//! `ConnectionReceiver`: seeding, stream limits, errors, closing, update
//! scheduling, the connection floor and the memory budget's rebalancing
//! (RFC 9000 §4.1, §4.5, §4.6 for the rules; the budget is this crate's).
//!
//! The first half drives the receiver call by call and checks exact byte
//! counts. The second half runs a small closed loop (one-way delay RTT / 2
//! for data and MAX_* frames, a sender that uses every byte of credit at
//! a link rate, readers at fixed rates, 1 ms ticks) to check reclaim,
//! redistribution and the slow reader over many round trips.

#[path = "../common/mod.rs"]
mod common;

mod closed_loop;
mod closing;
mod errors;
mod extremes;
mod rebalancing;
mod seeding;
mod sim;
mod updates;

use std::time::Duration;

use common::fire_timer;
use neqo_fc::{
    Budget, Config, ConnectionReceiver, Direction, ExcessTuner, Role, Rtt, StreamId, UpdateFrame,
    WindowChange,
};

const KIB: u64 = 1024;
/// Default `initial_stream_window`.
const INITIAL: u64 = 64 * KIB;
/// The seed under `common::config_512k`: ¼ of its 512 KiB initial connection estimate.
const SEED: u64 = 128 * KIB;

/// The `k`-th bidirectional stream the client opens: the receivers here
/// are servers, so these are the peer's streams, and using them in order
/// opens exactly one new stream each (RFC 9000 §3.2 opens every
/// lower-numbered one too).
fn sid(k: u64) -> StreamId {
    StreamId::new(Role::Client, Direction::Bidi, k)
}

/// The peer's first frame for `id` opens it: a STREAM frame with no data.
fn open(rx: &mut ConnectionReceiver<ExcessTuner>, id: StreamId, _now: std::time::Instant) {
    assert_eq!(rx.on_data(id, 0, false), Ok(0));
}

fn rtt(n: u64) -> Option<Rtt> {
    Rtt::from_sample(Duration::from_millis(n))
}

fn receiver(config: Config) -> ConnectionReceiver<ExcessTuner> {
    ConnectionReceiver::new(Role::Server, config.validate().expect("valid config"))
}

fn with_budget(budget: Budget) -> Config {
    Config {
        budget: Some(budget),
        ..common::config_512k()
    }
}

fn changes(rx: &mut ConnectionReceiver<ExcessTuner>) -> Vec<WindowChange> {
    rx.drain_changes().collect()
}

fn msd(id: StreamId, limit: u64) -> UpdateFrame {
    UpdateFrame::MaxStreamData { id, limit }
}

/// Fires the rebalancing timer if due, then calls `next_update` until it
/// returns `None` (at most 64 frames), checking the connection floor after
/// every call: what a stack does when it builds a packet.
fn updates(
    rx: &mut ConnectionReceiver<ExcessTuner>,
    now: std::time::Instant,
    r: Option<Rtt>,
) -> Vec<UpdateFrame> {
    fire_timer(rx, now, r);
    assert_floor_within(
        rx,
        0..16,
        rx.flow()
            .config()
            .update_fraction
            .of(rx.flow().connection().window()),
    );
    let mut out = Vec::new();
    while let Some(u) = rx.next_update(now, r) {
        assert_floor(rx, 0..16);
        out.push(u);
        assert!(out.len() < 64, "next_update never ran dry: {out:?}");
    }
    assert_floor(rx, 0..16);
    out
}

/// Largest window over the given open streams (by index, see [`sid`]).
fn largest(rx: &ConnectionReceiver<ExcessTuner>, ids: std::ops::Range<u64>) -> u64 {
    ids.filter_map(|i| rx.stream(sid(i)).map(|s| s.window()))
        .max()
        .unwrap_or(0)
}

/// `⌈credit / (1 − f)⌉`: the connection window that leaves `credit`
/// available after the update lag.
fn lag_floor(rx: &ConnectionReceiver<ExcessTuner>, credit: u64) -> u64 {
    let f = rx.flow().config().update_fraction;
    let usable = u64::from(f.den() - f.num()).max(1);
    (u128::from(credit) * u128::from(f.den()))
        .div_ceil(u128::from(usable))
        .try_into()
        .unwrap()
}

/// [`lag_floor`] of all the credit given to streams.
fn committed_floor(rx: &ConnectionReceiver<ExcessTuner>) -> u64 {
    lag_floor(rx, rx.flow().committed())
}

/// The connection window the stream credit needs, recomputed for streams
/// opened with the default promise: the bytes parked unread and the credit
/// beyond the promises after the update lag ([`lag_floor`]), plus the rest
/// of the committed credit up to one estimate.
fn credit_floor(rx: &ConnectionReceiver<ExcessTuner>, ids: std::ops::Range<u64>) -> u64 {
    let beyond: u64 = ids
        .filter_map(|i| {
            rx.stream(sid(i))
                .map(|s| s.credit().saturating_sub(INITIAL))
        })
        .sum();
    let committed = rx.flow().committed();
    let parked = committed.min(rx.flow().connection().unretired() + beyond);
    lag_floor(rx, parked) + (committed - parked).min(rx.flow().estimate())
}

/// The connection window is ≥ ⌈1.5 × largest stream window⌉ and, with a
/// budget, ≥ the credit it covers after the update lag.
fn assert_floor(rx: &ConnectionReceiver<ExcessTuner>, ids: std::ops::Range<u64>) {
    assert_floor_within(rx, ids, 0);
}

/// As [`assert_floor`], the credit floor within `slack` bytes (data that
/// arrived since the last update may raise it by up to an update
/// threshold before the window follows).
fn assert_floor_within(
    rx: &ConnectionReceiver<ExcessTuner>,
    ids: std::ops::Range<u64>,
    slack: u64,
) {
    let w = rx.flow().connection().window();
    let need = rx
        .flow()
        .config()
        .connection_floor
        .of_ceil(largest(rx, ids.clone()));
    assert!(w >= need, "connection window {w} < ⌈1.5 × largest⌉ {need}");
    if rx.flow().config().budget.is_some() {
        let need = credit_floor(rx, ids);
        assert!(
            w + slack >= need,
            "connection window {w} (+ {slack}) < credit floor {need}"
        );
    }
}

/// `Σ (limit − retired)` over the given streams, recomputed.
fn credit_sum(rx: &ConnectionReceiver<ExcessTuner>, ids: std::ops::Range<u64>) -> u64 {
    ids.filter_map(|i| rx.stream(sid(i)).map(|s| s.credit()))
        .sum()
}

/// A budget whose growth part is exactly `ceiling` bytes, no rebalancing,
/// and the peer allowed `max_streams` bidirectional streams at once.
///
/// The budget's promised part is now `open streams × initial window`
/// (it was `Budget.max_streams × initial window` whatever was open): the
/// growth part, which bounds the credit beyond the initial windows, is the
/// same, so every credit and seed below is unchanged; only `budget()`
/// values move with the number of open streams.
fn tight(ceiling: u64, max_streams: u64) -> Config {
    Config {
        max_streams_bidi: max_streams,
        ..with_budget(Budget {
            ceiling,
            idle_rtts: 0,
            ..Budget::default()
        })
    }
}

/// Everything a failed `on_data` must leave as it was.
fn snapshot(rx: &ConnectionReceiver<ExcessTuner>, id: StreamId) -> String {
    format!(
        "{:?} {:?} {} {} {} {}",
        rx.stream(id),
        rx.flow().connection(),
        rx.flow().committed(),
        rx.flow().budget(),
        rx.streams().count(),
        rx.update_pending()
    )
}
