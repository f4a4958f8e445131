//! `ConnectionReceiver`: seeding, stream limits, errors, closing, update
//! scheduling, the connection floor and the memory budget's rebalancing
//! (RFC 9000 §4.1, §4.5, §4.6 for the rules; the budget is this crate's).
//!
//! The first half drives the receiver call by call and checks exact byte
//! counts. The second half runs a small closed loop (one-way delay RTT / 2
//! for data and MAX_* frames, a sender that uses every byte of credit at
//! a link rate, readers at fixed rates, 1 ms ticks) to check reclaim,
//! redistribution and the slow reader over many round trips.

mod common;

use std::{collections::VecDeque, time::Duration};

use common::{at, base, fire_timer};
use neqo_fc::{
    Budget, ChangeReason, Config, Connection, ConnectionReceiver, Direction, Error, ExcessTuner,
    Role, Rtt, SenderFlowControl, StreamId, Subject, UpdateFrame, WindowChange,
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

/// The credit the connection stands behind, recomputed: `min(committed,
/// parked + credit beyond the promises + estimate)`, for streams opened
/// with the default promise.
fn covered(rx: &ConnectionReceiver<ExcessTuner>, ids: std::ops::Range<u64>) -> u64 {
    let beyond: u64 = ids
        .filter_map(|i| {
            rx.stream(sid(i))
                .map(|s| s.credit().saturating_sub(INITIAL))
        })
        .sum();
    rx.flow()
        .committed()
        .min(rx.flow().buffered() + beyond + rx.flow().estimate())
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
        let need = lag_floor(rx, covered(rx, ids));
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

// ---------------------------------------------------------------- seeding

#[test]
fn open_stream_seeds_a_quarter_of_the_estimate_and_reports_it() {
    let mut rx = receiver(common::config_512k());
    assert_eq!(rx.flow().estimate(), 512 * KIB);
    open(&mut rx, sid(0), at(5));
    let s = rx.stream(sid(0)).unwrap();
    assert_eq!(s.window(), SEED);
    // The peer only knows the transport parameter until an update goes out.
    assert_eq!(s.limit(), INITIAL);
    assert_eq!(rx.flow().committed(), INITIAL);
    assert_eq!(rx.flow().largest_window(), SEED);
    let seen = changes(&mut rx);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].subject, Subject::Stream(sid(0)));
    assert_eq!((seen[0].old, seen[0].new), (INITIAL, SEED));
    assert_eq!(seen[0].reason, ChangeReason::Seed);
    assert_eq!(seen[0].now, None, "opening a stream takes no time");
    // The larger seed makes an early MAX_STREAM_DATA due.
    assert!(rx.update_pending());
    let sent = updates(&mut rx, at(5), rtt(50));
    assert_eq!(sent, [msd(sid(0), SEED)]);
    assert_eq!(rx.flow().committed(), SEED);
    // Another frame on it opens nothing new and changes nothing.
    open(&mut rx, sid(0), at(6));
    assert_eq!((rx.stream_count(), rx.flow().committed()), (1, SEED));
    assert!(changes(&mut rx).is_empty());
}

#[test]
fn seed_is_never_below_the_initial_window() {
    // ¼ × 256 KiB = 64 KiB exactly: no seed change, no early update.
    let mut rx = receiver(Config {
        initial_connection_window: 256 * KIB,
        ..common::config_512k()
    });
    open(&mut rx, sid(0), at(0));
    assert_eq!(rx.stream(sid(0)).unwrap().window(), INITIAL);
    assert!(changes(&mut rx).is_empty());
    assert!(!rx.update_pending());
    // Four bytes more of estimate: one byte more of seed.
    let mut rx = receiver(Config {
        initial_connection_window: 256 * KIB + 4,
        ..common::config_512k()
    });
    open(&mut rx, sid(0), at(0));
    assert_eq!(rx.stream(sid(0)).unwrap().window(), INITIAL + 1);
    // Seeding off: the initial window.
    let mut rx = receiver(Config {
        seed_fraction: None,
        ..common::config_512k()
    });
    open(&mut rx, sid(0), at(0));
    assert_eq!(rx.stream(sid(0)).unwrap().window(), INITIAL);
}

#[test]
fn seed_follows_the_grown_estimate() {
    let mut rx = receiver(common::config_512k());
    let id = sid(0);
    open(&mut rx, id, at(0));
    assert_eq!(updates(&mut rx, at(0), rtt(50)).len(), 1);
    rx.on_data(id, SEED, false).unwrap();
    rx.retire_to(id, SEED).unwrap();
    updates(&mut rx, at(10), rtt(50));
    // One window read in 10 ms of a 50 ms RTT: effective = ¾ × 15/16 ×
    // 128 KiB = 92,160; expected 18,432; excess 112,640; × the bonus added.
    let w = rx.stream(id).unwrap().window();
    assert_eq!(w, SEED + ExcessTuner::DEFAULT.bonus * 112_640);
    assert_eq!(rx.flow().estimate(), 3 * w / 2);
    open(&mut rx, sid(1), at(11));
    assert_eq!(
        rx.stream(sid(1)).unwrap().window(),
        rx.flow().estimate() / 4
    );
}

#[test]
fn seed_uses_the_estimate_not_the_connection_window_inflated_by_credit() {
    // Eight streams at 128 KiB commit 1 MiB; the connection window covers
    // it (4/3 × 1 MiB) but the estimate stays 512 KiB, so the ninth stream
    // is seeded at 128 KiB, not at ¼ of the inflated connection window.
    let mut rx = receiver(common::config_512k());
    for i in 0..8 {
        open(&mut rx, sid(i), at(0));
    }
    updates(&mut rx, at(0), rtt(50));
    assert_eq!(rx.flow().committed(), 8 * SEED);
    assert_eq!(rx.flow().connection().window(), (8 * SEED * 4).div_ceil(3));
    assert_eq!(rx.flow().estimate(), 512 * KIB);
    open(&mut rx, sid(8), at(1));
    assert_eq!(rx.stream(sid(8)).unwrap().window(), SEED);
    // Without a budget the basis is the connection window itself.
    let mut rx = receiver(Config {
        budget: None,
        initial_connection_window: 2048 * KIB,
        ..common::config_512k()
    });
    open(&mut rx, sid(0), at(0));
    assert_eq!(rx.stream(sid(0)).unwrap().window(), 512 * KIB);
    assert_eq!(rx.flow().budget(), u64::MAX);
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

#[test]
fn seed_with_no_budget_room_stays_at_the_initial_window() {
    let mut rx = receiver(tight(0, 4));
    assert_eq!(rx.flow().budget(), 0);
    open(&mut rx, sid(0), at(0));
    // The open stream's 64 KiB promised, no growth: no room to seed.
    assert_eq!(rx.flow().budget(), INITIAL);
    assert_eq!(rx.stream(sid(0)).unwrap().window(), INITIAL);
    assert!(changes(&mut rx).is_empty());
    assert!(updates(&mut rx, at(0), rtt(50)).is_empty());
    assert_eq!(rx.flow().committed(), INITIAL);
}

#[test]
fn seed_uses_the_whole_budget_room() {
    let mut rx = receiver(tight(100_000, 4));
    // Budget: 65,536 promised per open stream + 100,000 growth.
    assert_eq!(rx.flow().budget(), 100_000);
    open(&mut rx, sid(0), at(0));
    assert_eq!(rx.flow().budget(), INITIAL + 100_000);
    // 100,000 of room; the seed needs only 65,536 of it beyond the
    // promised initial window.
    assert_eq!(rx.stream(sid(0)).unwrap().window(), SEED);
    updates(&mut rx, at(0), rtt(50));
    assert_eq!(rx.flow().committed(), SEED);
    // The second stream: 100,000 − 65,536 = 34,464 of room left: seed
    // 65,536 + 34,464 = 100,000.
    open(&mut rx, sid(1), at(0));
    assert_eq!(rx.stream(sid(1)).unwrap().window(), 100_000);
    // Two more streams at 65,536 (no room left): the growth room is used
    // exactly, 4 × 65,536 + 100,000.
    updates(&mut rx, at(0), rtt(50));
    for i in 2..4 {
        open(&mut rx, sid(i), at(0));
        assert_eq!(rx.stream(sid(i)).unwrap().window(), INITIAL);
    }
    assert!(
        changes(&mut rx)
            .iter()
            .all(|c| c.reason != ChangeReason::Budget)
    );
    assert_eq!(rx.flow().committed(), rx.flow().budget());
    assert_eq!(rx.flow().committed(), 362_144);
}

#[test]
fn seed_within_a_tight_budget_never_overcommits() {
    let mut rx = receiver(tight(100_000, 4));
    for i in 0..4 {
        open(&mut rx, sid(i), at(0));
        let seed = rx.stream(sid(i)).unwrap().window();
        assert!((INITIAL..=SEED).contains(&seed), "seed {seed}");
        updates(&mut rx, at(0), rtt(50));
        assert!(rx.flow().committed() <= rx.flow().budget());
        assert_eq!(rx.flow().committed(), credit_sum(&rx, 0..4));
    }
    assert_eq!(rx.flow().budget(), 4 * INITIAL + 100_000);
}

// ------------------------------------------------------- stream limit

/// The peer may use streams only below the MAX_STREAMS limit for their
/// type, by stream index (RFC 9000 §4.6; was `Budget.max_streams` open
/// streams, now `Config.max_streams_bidi` / `max_streams_uni`, enforced
/// with or without a budget). A closed stream lets the limit move up by
/// one, once MAX_STREAMS says so.
#[test]
fn stream_limit_error_beyond_max_streams_changes_nothing() {
    let mut rx = receiver(Config {
        max_streams_bidi: 2,
        ..common::config_512k()
    });
    open(&mut rx, sid(0), at(0));
    rx.on_data(sid(1), 100, false).unwrap();
    changes(&mut rx);
    let before = (
        rx.stream_count(),
        rx.flow().committed(),
        rx.flow().budget(),
        rx.flow().connection().window(),
        rx.flow().connection().consumed(),
        rx.update_pending(),
    );
    let e = rx.on_data(sid(2), 0, false).unwrap_err();
    assert_eq!(
        e,
        Error::StreamLimit {
            id: sid(2),
            limit: 2
        }
    );
    assert_eq!(e.code(), 0x04);
    let e = rx.on_data(sid(2), 10, true).unwrap_err();
    assert_eq!(e.code(), 0x04);
    let e = rx.reset_received(sid(7), 10).unwrap_err();
    assert_eq!(
        e,
        Error::StreamLimit {
            id: sid(7),
            limit: 2
        }
    );
    let after = (
        rx.stream_count(),
        rx.flow().committed(),
        rx.flow().budget(),
        rx.flow().connection().window(),
        rx.flow().connection().consumed(),
        rx.update_pending(),
    );
    assert_eq!(before, after);
    assert!(rx.stream(sid(2)).is_none());
    assert!(changes(&mut rx).is_empty());
    assert_eq!(rx.max_streams(Direction::Bidi), 2);
    // Data on a stream that is open still works; closing one (its final
    // size known) makes room once MAX_STREAMS raises the limit to 3.
    rx.on_data(sid(0), 5, true).unwrap();
    rx.close_stream(sid(0));
    assert_eq!(rx.stream_count(), 1);
    assert!(rx.on_data(sid(2), 0, false).is_err(), "not sent yet");
    let sent = updates(&mut rx, at(2), rtt(50));
    assert!(
        sent.contains(&UpdateFrame::MaxStreams {
            direction: Direction::Bidi,
            limit: 3
        }),
        "{sent:?}"
    );
    open(&mut rx, sid(2), at(2));
    assert_eq!(rx.stream_count(), 2);
    // Without a budget the limit holds just the same: 200 streams allowed,
    // the 200th (index 199) opens them all, the next one is refused.
    let mut rx = receiver(Config {
        budget: None,
        max_streams_bidi: 200,
        ..common::config_512k()
    });
    open(&mut rx, sid(199), at(0));
    assert_eq!(rx.stream_count(), 200);
    assert_eq!(rx.on_data(sid(200), 0, false).unwrap_err().code(), 0x04);
    assert_eq!(rx.stream_count(), 200);
}

// -------------------------------------------------------------- errors

/// Everything a failed `on_data` must leave as it was.
fn snapshot(rx: &ConnectionReceiver<ExcessTuner>, id: StreamId) -> String {
    format!(
        "{:?} {:?} {} {} {} {}",
        rx.stream(id),
        rx.flow().connection(),
        rx.flow().committed(),
        rx.flow().budget(),
        rx.stream_count(),
        rx.update_pending()
    )
}

#[test]
fn data_past_the_stream_limit_is_flow_control_error_and_changes_nothing() {
    let mut rx = receiver(common::config_512k());
    let id = sid(0);
    assert_eq!(rx.on_data(id, INITIAL, false), Ok(INITIAL));
    let before = snapshot(&rx, id);
    let e = rx.on_data(id, INITIAL + 1, false).unwrap_err();
    assert_eq!(
        e,
        Error::FlowControl {
            received: INITIAL + 1,
            limit: INITIAL
        }
    );
    assert_eq!(e.code(), 0x03);
    assert_eq!(snapshot(&rx, id), before);
    // A FIN past the limit: the same error, no final size recorded.
    let e = rx.on_data(id, INITIAL + 1, true).unwrap_err();
    assert_eq!(e.code(), 0x03);
    assert_eq!(snapshot(&rx, id), before);
    assert_eq!(rx.stream(id).unwrap().final_size(), None);
    assert_eq!(rx.flow().buffered(), INITIAL);
}

#[test]
fn final_size_errors_change_nothing() {
    let mut rx = receiver(common::config_512k());
    let id = sid(0);
    assert_eq!(rx.on_data(id, 1000, true), Ok(1000));
    let before = snapshot(&rx, id);
    for (end, fin) in [(1001, false), (999, true), (1001, true)] {
        let e = rx.on_data(id, end, fin).unwrap_err();
        assert_eq!(e.code(), 0x06, "{end} {fin}: {e}");
        assert_eq!(snapshot(&rx, id), before);
    }
    // Data within, and the same FIN again, are fine.
    assert_eq!(rx.on_data(id, 1000, true), Ok(0));
    assert_eq!(rx.on_data(id, 500, false), Ok(0));
    // A FIN below data already received.
    let id = sid(1);
    rx.on_data(id, 5000, false).unwrap();
    let before = snapshot(&rx, id);
    let e = rx.on_data(id, 4999, true).unwrap_err();
    assert_eq!(
        e,
        Error::FinalSize {
            known: 5000,
            received: 4999
        }
    );
    assert_eq!(snapshot(&rx, id), before);
    assert_eq!(rx.flow().connection().consumed(), 6000);
}

#[test]
fn data_past_the_connection_limit_changes_nothing() {
    // Eight streams at their 64 KiB limit fill the 512 KiB connection limit.
    let mut rx = receiver(common::config_512k());
    for i in 0..9 {
        open(&mut rx, sid(i), at(0));
    }
    for i in 0..8 {
        rx.on_data(sid(i), INITIAL, false).unwrap();
    }
    assert_eq!(
        rx.flow().connection().consumed(),
        rx.flow().connection().limit()
    );
    let id = sid(8);
    let before = snapshot(&rx, id);
    let e = rx.on_data(id, 1, false).unwrap_err();
    assert_eq!(
        e,
        Error::FlowControl {
            received: 512 * KIB + 1,
            limit: 512 * KIB
        }
    );
    assert_eq!(snapshot(&rx, id), before);
    assert_eq!(rx.stream(id).unwrap().consumed(), 0);
}

/// Data that fails on a stream not seen before still opens it, and every
/// lower-numbered stream of its type (RFC 9000 §3.2): its id was valid,
/// only the data was not. (The old receiver opened nothing; the new one
/// keeps the opening, by design.) Nothing of the data is accounted: the
/// receiver is exactly as after a frame on that stream with no data.
#[test]
fn failed_data_on_a_new_stream_opens_it_but_accounts_nothing() {
    let mut rx = receiver(common::config_512k());
    let mut twin = receiver(common::config_512k());
    open(&mut twin, sid(9), at(0));
    let e = rx.on_data(sid(9), INITIAL + 1, false).unwrap_err();
    assert_eq!(e.code(), 0x03);
    assert_eq!(rx.stream_count(), 10);
    assert_eq!(rx.flow().committed(), 10 * INITIAL);
    assert_eq!(rx.flow().connection().consumed(), 0);
    assert_eq!(rx.stream(sid(9)).unwrap().consumed(), 0);
    assert_eq!(changes(&mut rx), changes(&mut twin));
    for i in 0..10 {
        assert_eq!(snapshot(&rx, sid(i)), snapshot(&twin, sid(i)));
    }
    // The next valid frame is accounted as on any open stream.
    assert_eq!(rx.on_data(sid(9), INITIAL, false), Ok(INITIAL));
    assert_eq!(rx.stream_count(), 10);
    assert_eq!(rx.flow().connection().consumed(), INITIAL);
}

/// The docs of `on_data`: on error the data is not accounted. Here the
/// stream's 1,001 bytes are within its limit but past the 1,000-byte
/// connection limit: the connection's counts and limit stay; only what
/// opening the stream does (its id was valid) remains — the connection
/// window raised to cover it.
#[test]
fn failed_data_on_a_new_stream_accounts_nothing_at_the_connection() {
    let config = Config {
        initial_connection_window: 1_000,
        ..common::config_512k()
    };
    let mut rx = receiver(config);
    let e = rx.on_data(sid(0), 1_001, false).unwrap_err();
    assert_eq!(
        e,
        Error::FlowControl {
            received: 1_001,
            limit: 1_000
        }
    );
    let c = rx.flow().connection();
    assert_eq!((c.consumed(), c.retired(), c.limit()), (0, 0, 1_000));
    // Opening it: seed max(64 KiB, ¼ × 1,000) = 64 KiB, and the connection
    // floor ⌈1.5 × 65,536⌉ = 98,304 (above ⌈4/3 × committed⌉ = 87,382).
    assert_eq!(rx.stream_count(), 1);
    assert_eq!(
        (rx.flow().connection().window(), rx.flow().largest_window()),
        (98_304, INITIAL),
        "(connection window, largest window)"
    );
    let mut twin = receiver(config);
    open(&mut twin, sid(0), at(0));
    assert_eq!(snapshot(&rx, sid(0)), snapshot(&twin, sid(0)));
    assert_eq!(changes(&mut rx), changes(&mut twin));
}

// ------------------------------------------------------------- closing

const MAX_STREAMS_BIDI_101: UpdateFrame = UpdateFrame::MaxStreams {
    direction: Direction::Bidi,
    limit: 101,
};

/// Closing a stream whose final size is known forgets it: its unread bytes
/// are released at the connection, its credit leaves the budget, and the
/// peer may open another (MAX_STREAMS). A stream closed before its final
/// size is known stays counted — what still arrives is released at once —
/// until the final size arrives (new lifecycle: the old receiver forgot it
/// at once and lost count of what the peer still sent).
#[test]
fn close_stream_releases_unread_bytes_and_its_credit() {
    let mut rx = receiver(common::config_512k());
    rx.on_data(sid(0), 10_000, true).unwrap();
    rx.retire_to(sid(0), 4_000).unwrap();
    rx.on_data(sid(1), 3_000, false).unwrap();
    // Stream 0's credit ends at its final size: 10,000 − 4,000 read.
    assert_eq!(rx.flow().committed(), 6_000 + INITIAL);
    assert_eq!(rx.flow().buffered(), 9_000);
    // The promised part counts the open streams: 2 × 64 KiB, plus the
    // growth part 3 × the 512 KiB estimate.
    assert_eq!(rx.flow().budget(), 2 * INITIAL + 3 * 512 * KIB);
    rx.close_stream(sid(0));
    assert!(rx.stream(sid(0)).is_none());
    assert_eq!(rx.stream_count(), 1);
    assert_eq!(rx.flow().committed(), INITIAL);
    assert_eq!(rx.flow().committed(), credit_sum(&rx, 0..2));
    // The 6,000 unread bytes count as retired at the connection.
    assert_eq!(rx.flow().connection().retired(), 10_000);
    assert_eq!(rx.flow().connection().consumed(), 13_000);
    assert_eq!(rx.flow().buffered(), 3_000);
    // The closed stream's promised 64 KiB leave the budget with it (the old
    // budget counted every `max_streams` slot, open or not).
    assert_eq!(rx.flow().budget(), INITIAL + 3 * 512 * KIB);
    // Closing again, or an unknown stream, does nothing.
    rx.close_stream(sid(0));
    rx.close_stream(sid(77));
    assert_eq!((rx.stream_count(), rx.flow().committed()), (1, INITIAL));
    assert_eq!(rx.flow().connection().retired(), 10_000);
    // The peer may open one more stream; stream 1's seed update goes too.
    let sent = updates(&mut rx, at(1), rtt(50));
    assert_eq!(sent, [msd(sid(1), SEED), MAX_STREAMS_BIDI_101]);
    assert_eq!(rx.flow().committed(), SEED);

    // Stream 1 closed before its final size: still counted, its 3,000
    // unread bytes released.
    rx.close_stream(sid(1));
    assert_eq!(rx.stream_count(), 1);
    assert_eq!(rx.stream(sid(1)).unwrap().retired(), 3_000);
    assert_eq!(
        (rx.flow().connection().retired(), rx.flow().buffered()),
        (13_000, 0)
    );
    assert_eq!(rx.flow().committed(), SEED - 3_000);
    // Data still arriving is counted against the limits and released.
    rx.on_data(sid(1), 5_000, false).unwrap();
    assert_eq!(rx.flow().buffered(), 0);
    assert_eq!(rx.flow().connection().consumed(), 15_000);
    assert_eq!(rx.flow().committed(), SEED - 5_000);
    // The final size arrives: the stream is forgotten.
    assert_eq!(rx.on_data(sid(1), 6_000, true), Ok(1_000));
    assert!(rx.stream(sid(1)).is_none());
    assert_eq!(
        (
            rx.stream_count(),
            rx.flow().committed(),
            rx.flow().buffered()
        ),
        (0, 0, 0)
    );
    assert_eq!(rx.flow().connection().retired(), 16_000);
    assert_eq!(
        updates(&mut rx, at(3), rtt(50)),
        [UpdateFrame::MaxStreams {
            direction: Direction::Bidi,
            limit: 102
        }]
    );
}

#[test]
fn closing_a_stream_keeps_committed_within_the_budget() {
    // Two streams at once, growth 100,000: budget 2 × 65,536 + 100,000 =
    // 231,072 while both are open (it counts open streams).
    let mut rx = receiver(tight(100_000, 2));
    let (a, b, c) = (sid(0), sid(1), sid(2));
    assert_eq!(rx.flow().budget(), 100_000);
    // a is seeded at 131,072 (65,536 of room), b at 65,536 + 34,464.
    open(&mut rx, a, at(0));
    updates(&mut rx, at(0), rtt(50));
    open(&mut rx, b, at(0));
    assert_eq!(rx.stream(b).unwrap().window(), 100_000);
    updates(&mut rx, at(0), rtt(50));
    assert_eq!(rx.flow().budget(), 231_072);
    assert_eq!(rx.flow().committed(), 231_072);
    assert_eq!(rx.flow().committed(), rx.flow().budget());
    // a's peer sends 10,000 bytes that are never read; a is reset. Its
    // 131,072 of credit leave `committed`, the 65,536 beyond its initial
    // window return to the growth room, its promised 65,536 leave the
    // budget.
    rx.on_data(a, 10_000, false).unwrap();
    assert_eq!(rx.reset_received(a, 10_000), Ok(0));
    assert!(rx.stream(a).is_none());
    assert_eq!(rx.flow().committed(), 100_000);
    assert_eq!(rx.flow().budget(), INITIAL + 100_000);
    assert_eq!(rx.flow().buffered(), 0);
    // A new stream in a's place (once MAX_STREAMS allows it) finds the
    // 65,536 of room again.
    assert_eq!(
        updates(&mut rx, at(2), rtt(50)),
        [UpdateFrame::MaxStreams {
            direction: Direction::Bidi,
            limit: 3
        }]
    );
    open(&mut rx, c, at(2));
    assert_eq!(rx.stream(c).unwrap().window(), SEED);
    updates(&mut rx, at(2), rtt(50));
    assert_eq!(rx.flow().committed(), rx.flow().budget());
    assert_eq!(rx.flow().committed(), credit_sum(&rx, 0..3));
    // A third open stream is refused: two at once.
    assert_eq!(
        rx.on_data(sid(3), 0, false),
        Err(Error::StreamLimit {
            id: sid(3),
            limit: 3
        })
    );
    // Closing the full-credit stream b (34,464 beyond its initial window)
    // and opening another: still within the budget.
    rx.on_data(b, 0, true).unwrap();
    rx.close_stream(b);
    assert_eq!(rx.flow().committed(), SEED);
    updates(&mut rx, at(3), rtt(50));
    open(&mut rx, sid(3), at(3));
    assert_eq!(rx.stream(sid(3)).unwrap().window(), 100_000);
    updates(&mut rx, at(3), rtt(50));
    assert!(
        rx.flow().committed() <= rx.flow().budget(),
        "committed {} > budget {}",
        rx.flow().committed(),
        rx.flow().budget()
    );
    assert_eq!(rx.flow().committed(), 231_072);
}

#[test]
fn late_frames_for_closed_streams_are_ignored() {
    let mut rx = receiver(common::config_512k());
    let id = sid(0);
    open(&mut rx, id, at(0));
    let sent = updates(&mut rx, at(0), rtt(50));
    assert_eq!(sent.len(), 1);
    rx.on_data(id, 20_000, true).unwrap();
    rx.close_stream(id);
    // Closing lets the peer open another stream.
    assert_eq!(updates(&mut rx, at(1), rtt(50)), [MAX_STREAMS_BIDI_101]);
    changes(&mut rx);
    let before = snapshot(&rx, id);
    let consumed = rx.flow().connection().consumed();
    rx.update_lost(sent[0]);
    rx.update_acked(sent[0]);
    rx.update_lost(msd(id, u64::MAX));
    blocked(&mut rx, Some(id));
    assert_eq!(rx.stream_data_blocked_received(id, SEED), Ok(false));
    assert_eq!(rx.retire_to(id, 20_000), Ok(0));
    // Retransmitted data, a FIN, a reset: the stream is closed, nothing is
    // counted and nothing reopens it. Data past the final size is still
    // FINAL_SIZE_ERROR (RFC 9000 §4.5), and changes nothing either.
    assert_eq!(rx.on_data(id, 20_000, true), Ok(0));
    assert_eq!(rx.on_data(id, 30_000, false).unwrap_err().code(), 0x06);
    assert_eq!(rx.reset_received(id, 20_000), Ok(0));
    assert_eq!(snapshot(&rx, id), before);
    assert_eq!(rx.flow().connection().consumed(), consumed);
    assert!(!rx.update_pending());
    assert!(updates(&mut rx, at(100), rtt(50)).is_empty());
    assert!(rx.stream(id).is_none());
    assert_eq!(rx.flow().committed(), 0);
    assert!(changes(&mut rx).is_empty());
}

// ------------------------------------------------------------- updates

/// MAX_DATA is due once a quarter of the 512 KiB connection window,
/// 128 KiB, has been read (one byte less is not enough).
#[test]
fn next_update_sends_max_data_when_due() {
    let mut rx = receiver(common::config_512k());
    for i in 0..2 {
        open(&mut rx, sid(i), at(0));
    }
    assert_eq!(updates(&mut rx, at(0), rtt(50)).len(), 2);
    assert!(!rx.update_pending());
    // 128 KiB − 1 retired at the connection: not yet due.
    rx.on_data(sid(0), SEED, false).unwrap();
    rx.retire_to(sid(0), SEED - 1).unwrap();
    assert!(!rx.flow().connection().update_due());
    rx.retire_to(sid(0), SEED).unwrap();
    assert!(rx.flow().connection().update_due());
    let sent = updates(&mut rx, at(10), rtt(50));
    // The stream first, then MAX_DATA = retired + window.
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!(sent[0], msd(sid(0), rx.stream(sid(0)).unwrap().limit()));
    let UpdateFrame::MaxData(max_data) = sent[1] else {
        panic!("{sent:?}")
    };
    let c = rx.flow().connection();
    assert_eq!(max_data, c.limit());
    assert_eq!(max_data, SEED + c.window());
    // The window covers the credit now given to streams (one stream,
    // within the estimate): 4/3 × committed.
    assert_eq!(c.window(), committed_floor(&rx));
    assert!(!rx.update_pending());
    assert_eq!(rx.next_update(at(10), rtt(50)), None);
}

/// A receiver with the default configuration (up to `max_streams`
/// bidirectional streams) where the peer's first `open_now` streams opened at
/// once.
fn default_with_open(max_streams: u64, open_now: u64) -> ConnectionReceiver<ExcessTuner> {
    let mut rx = receiver(Config {
        max_streams_bidi: max_streams,
        ..Config::default()
    });
    for k in 0..open_now {
        open(&mut rx, sid(k), at(0));
    }
    rx
}

/// A thousand streams open at once, each with its 64 KiB promise (64 MB
/// together): the connection window covers the seeds and one estimated
/// need, not every promise, so the peer can use one need's worth of them
/// at a time, as behind a peer stack's connection window.
#[test]
fn idle_promises_are_backed_up_to_one_need() {
    let mut rx = default_with_open(1000, 1000);
    // Before any update: one estimate (1 MiB) over 3/4.
    assert_eq!(rx.flow().connection().window(), (4u64 << 20).div_ceil(3));
    // The seeds go out: six streams at 512 KiB and a seventh at what is
    // left use the growth budget (3 × the 1 MiB estimate), then MAX_DATA.
    let sent = updates(&mut rx, at(0), rtt(50));
    assert_eq!(sent.len(), 8, "{sent:?}");
    let promised = 1000 * INITIAL;
    assert_eq!(rx.flow().committed(), promised + (3 << 20));
    // The connection covers those seeds and one estimate, over 3/4:
    // 16/3 MiB, against 1000 × 64 KiB × 4/3 = 83 MiB for every promise.
    let w = rx.flow().connection().window();
    assert_eq!(w, lag_floor(&rx, covered(&rx, 0..1000)));
    assert_eq!(w, (16u64 << 20).div_ceil(3));
    assert!(w < committed_floor(&rx) / 10, "{w}");
}

/// Data that parks in streams whose application stopped reading raises
/// the connection window byte for byte (within an update threshold), so
/// the stream still reading keeps its room: fifty streams fill their
/// credit (seeds or 64 KiB promises) as fast as MAX_DATA lets them,
/// nothing is read, and after every round of updates the connection has
/// room for all of the reading stream's credit.
#[test]
fn parked_bytes_keep_the_readers_room() {
    let mut rx = default_with_open(100, 51);
    updates(&mut rx, at(0), rtt(50));
    let reader = rx.stream(sid(0)).unwrap().credit();
    assert_eq!(reader, 512 * KIB);
    for round in 1..100 {
        for k in 1..51 {
            let (s, c) = (rx.stream(sid(k)).unwrap(), rx.flow().connection());
            let room = c.limit() - c.consumed();
            let end = s.limit().min(s.consumed() + room);
            rx.on_data(sid(k), end, false).unwrap();
            // Within an update threshold of the floor after data arrives.
            let w = rx.flow().connection().window();
            let slack = rx.flow().config().update_fraction.of(w);
            let need = lag_floor(&rx, covered(&rx, 0..51));
            assert!(w + slack >= need, "{w} + {slack} < {need}");
        }
        updates(&mut rx, at(round), rtt(50));
        let c = rx.flow().connection();
        let free = c.limit() - c.consumed();
        assert!(free >= reader, "round {round}: {free} < {reader}");
    }
    // Every parked stream is full: the connection never held them back.
    let full: u64 = (1..51).map(|k| rx.stream(sid(k)).unwrap().limit()).sum();
    assert_eq!(rx.flow().buffered(), full);
    assert!(full >= 50 * INITIAL);
}

#[test]
fn lost_update_is_due_again_latest_only() {
    let mut rx = receiver(common::config_512k());
    let id = sid(0);
    open(&mut rx, id, at(0));
    let first = updates(&mut rx, at(0), rtt(50))[0];
    // Lost: the same limit again.
    rx.update_lost(first);
    assert!(rx.update_pending());
    assert_eq!(updates(&mut rx, at(1), rtt(50)), [first]);
    // A newer limit goes out; losing the older frame changes nothing.
    rx.on_data(id, SEED, false).unwrap();
    rx.retire_to(id, SEED).unwrap();
    let sent = updates(&mut rx, at(30), rtt(50));
    let second = *sent
        .iter()
        .find(|u| matches!(u, UpdateFrame::MaxStreamData { id: i, .. } if *i == id))
        .unwrap();
    let max_data = *sent
        .iter()
        .find(|u| matches!(u, UpdateFrame::MaxData(_)))
        .unwrap();
    assert!(second.limit() > first.limit());
    rx.update_lost(first);
    rx.update_lost(UpdateFrame::MaxData(max_data.limit() - 1));
    assert!(!rx.update_pending());
    // The newest frames lost: each is due again, once.
    rx.update_lost(second);
    rx.update_lost(max_data);
    assert_eq!(updates(&mut rx, at(31), rtt(50)), [second, max_data]);
    assert!(!rx.update_pending());
    // Acknowledged before the loss is declared: nothing to re-send.
    rx.update_acked(second);
    rx.update_acked(max_data);
    rx.update_lost(second);
    rx.update_lost(max_data);
    assert!(!rx.update_pending());
}

/// A stream without seeding (window 64 KiB) whose peer filled its 64 KiB
/// and reports STREAM_DATA_BLOCKED each millisecond, after the
/// application has read up to the next offset in `reads`: the updates
/// written after each report.
fn blocked_then_read(
    config: Config,
    reads: &[u64],
) -> (ConnectionReceiver<ExcessTuner>, Vec<Vec<UpdateFrame>>) {
    let mut rx = receiver(Config {
        seed_fraction: None,
        ..config
    });
    let id = sid(0);
    rx.on_data(id, INITIAL, false).unwrap();
    let mut sent = Vec::new();
    for (t, &read) in (1..).zip(reads) {
        rx.retire_to(id, read).unwrap();
        blocked(&mut rx, Some(id));
        sent.push(updates(&mut rx, at(t), rtt(50)));
    }
    (rx, sent)
}

#[test]
fn blocked_frames_make_an_update_due_when_credit_can_grow() {
    let (mut rx, sent) = blocked_then_read(tight(1 << 20, 4), &[0, 2_047, 2_048]);
    // Nothing read: a STREAM_DATA_BLOCKED cannot be answered. An eighth
    // of the update quantum read (16,384 / 8 = 2,048) is enough; one byte
    // less is not.
    assert!(sent[0].is_empty());
    assert!(sent[1].is_empty());
    assert_eq!(sent[2], [msd(sid(0), INITIAL + 2_048)]);
    // The stream's credit is back at its promised 64 KiB: no growth used.
    assert_eq!(rx.flow().committed(), INITIAL);
    assert_eq!(rx.flow().budget(), INITIAL + (1 << 20));
    // DATA_BLOCKED with little read at the connection level: no MAX_DATA
    // beyond what retiring allows (2,048 < the 1/8 step of 128 KiB).
    blocked(&mut rx, None);
    assert!(updates(&mut rx, at(4), rtt(50)).is_empty());
}

/// A STREAM_DATA_BLOCKED whose data is still in flight waits for it: the
/// report alone writes nothing (a peer flooding them gets no update
/// sooner), and the data that bears it out queues the update.
#[test]
fn blocked_frames_wait_for_the_data_that_bears_them_out() {
    let mut rx = receiver(Config {
        seed_fraction: None,
        budget: None,
        ..common::config_512k()
    });
    let id = sid(0);
    rx.on_data(id, INITIAL - 4_096, false).unwrap();
    rx.retire_to(id, 2_048).unwrap();
    // 2,048 read: the *_BLOCKED step (16,384 / 8), but the peer claims to
    // be blocked at 65,536 with only 61,440 received.
    for _ in 0..1_000 {
        assert_eq!(rx.stream_data_blocked_received(id, INITIAL), Ok(true));
    }
    assert!(!rx.update_pending());
    assert!(updates(&mut rx, at(1), rtt(50)).is_empty());
    // A limit above ours: ignored. A new stream: opened (RFC 9000 §3.2),
    // its claim waiting for the data.
    assert_eq!(rx.stream_data_blocked_received(id, INITIAL + 1), Ok(false));
    assert_eq!(rx.stream_data_blocked_received(sid(4), INITIAL), Ok(true));
    assert!(rx.stream(sid(4)).is_some());
    // The last 4,096 bytes arrive: the report stands.
    rx.on_data(id, INITIAL, false).unwrap();
    assert!(rx.update_pending());
    assert_eq!(updates(&mut rx, at(2), rtt(50)), [msd(id, INITIAL + 2_048)]);
    assert!(!rx.update_pending());
}

/// The same without growth budget: the extension keeps the stream's credit
/// within the 64 KiB every open stream is promised, so it needs no growth
/// room.
#[test]
fn blocked_frames_are_answered_within_the_promised_credit_without_growth() {
    let (rx, sent) = blocked_then_read(tight(0, 4), &[0, 2_047, 2_048, INITIAL]);
    assert!(sent[0].is_empty());
    assert!(sent[1].is_empty());
    assert_eq!(sent[2], [msd(sid(0), INITIAL + 2_048)]);
    // All 64 KiB read: the limit moves on by a whole initial window.
    assert_eq!(sent[3], [msd(sid(0), 2 * INITIAL)]);
    assert_eq!(rx.flow().committed(), INITIAL);
    assert_eq!(rx.flow().budget(), INITIAL);
}

#[test]
fn lost_update_is_resent_even_without_budget_room() {
    // Two streams open, growth 100,000: budget = 2 × 65,536 + 100,000 =
    // 231,072.
    let mut rx = receiver(Config {
        max_streams_bidi: 2,
        ..with_budget(Budget {
            ceiling: 100_000,
            ..Budget::default()
        })
    });
    let (a, b) = (sid(0), sid(1));
    let r = rtt(50);
    // a is seeded at 131,072, b at 65,536 + the 34,464 of room left.
    open(&mut rx, a, at(0));
    open(&mut rx, b, at(0));
    let first = updates(&mut rx, at(0), r);
    let lost = msd(a, SEED);
    assert_eq!(first, [lost, msd(b, 100_000)]);
    assert_eq!(rx.flow().committed(), rx.flow().budget(), "no room left");
    // a's peer, which only knows 65,536, sends it; a reads 16,383 (one
    // byte short of an update: a quarter of 131,072 is 32,768), freeing
    // 16,383 of room. b's peer sends 100,000 and b reads a quarter of
    // it fast: its window grows and its update takes all the room.
    rx.on_data(a, INITIAL, false).unwrap();
    rx.retire_to(a, 16_383).unwrap();
    rx.on_data(b, 100_000, false).unwrap();
    rx.retire_to(b, 25_000).unwrap();
    let sent = updates(&mut rx, at(1), r);
    assert_eq!(sent, [msd(b, 100_000 + 16_383 + 25_000)]);
    assert_eq!(rx.flow().committed(), rx.flow().budget(), "no room left");
    // The frame carrying a's 131,072 is lost; the peer, blocked at
    // 65,536, keeps sending STREAM_DATA_BLOCKED. b's application stalls.
    // a wants 16,383 more, a quarter of its update quantum: without the
    // loss it would wait for room.
    rx.update_lost(lost);
    let mut resent = Vec::new();
    for i in 0..20 {
        blocked(&mut rx, Some(a));
        resent.extend(updates(&mut rx, at(4 + 50 * i), r));
    }
    assert_eq!(
        resent.first(),
        Some(&lost),
        "lost {lost:?} not re-sent at once: {resent:?}; committed {} budget {}",
        rx.flow().committed(),
        rx.flow().budget()
    );
    // Re-sending used no room.
    assert!(rx.flow().committed() <= rx.flow().budget());
    assert_eq!(rx.stream(a).unwrap().limit(), SEED);
}

#[test]
fn a_raised_window_does_not_hold_back_the_credit_the_room_allows() {
    // Default settings with a growth budget of 65,536 and no seeding
    // (reclaim after 4 RTTs).
    let mut rx = receiver(Config {
        seed_fraction: None,
        ..with_budget(Budget {
            ceiling: INITIAL,
            ..Budget::default()
        })
    });
    let id = sid(0);
    open(&mut rx, id, at(0));
    // The first call schedules the first pass one RTT (1 ms) later.
    assert_eq!(rx.next_update(at(0), rtt(1)), None);
    assert_eq!(rx.next_timeout(), Some(at(1)));
    rx.on_data(id, INITIAL, false).unwrap();
    rx.retire_to(id, INITIAL).unwrap();
    // The peer is blocked at 65,536 and says so every millisecond.
    let mut sent = Vec::new();
    for t in 1..=30 {
        blocked(&mut rx, Some(id));
        fire_timer(&mut rx, at(t), rtt(6));
        while let Some(u) = rx.next_update(at(t), rtt(6)) {
            if let UpdateFrame::MaxStreamData { id: i, limit } = u
                && i == id
            {
                sent.push((t, limit));
            }
        }
        if t == 1 {
            // 64 KiB read in the first 1 ms pass while the RTT estimate
            // grows to 6 ms: 393,216 per RTT; the pass raises the window
            // to estimate / 1.5 = 393,216. A quarter of it (98,304) is more
            // than the 65,536 of room, but the room is worth a frame.
            let seen = changes(&mut rx);
            assert_eq!(seen[0].reason, ChangeReason::Budget);
            assert_eq!((seen[0].old, seen[0].new), (INITIAL, 393_216));
            assert_eq!(rx.flow().estimate(), 589_824);
        }
    }
    // The first MAX_STREAM_DATA at 1 ms, with at least all the growth
    // room (the stream had read all its credit: at most its promised
    // 65,536 more).
    let &(when, limit) = sent.first().expect("no MAX_STREAM_DATA in 30 ms");
    assert_eq!(when, 1, "{sent:?}");
    assert!((2 * INITIAL..=3 * INITIAL).contains(&limit), "{sent:?}");
    assert!(rx.flow().committed() <= rx.flow().budget());
}

// --------------------------------------------------------- closed loop

/// One stream as the sender and the reader see it.
struct Flow {
    id: StreamId,
    credit: SenderFlowControl<StreamId>,
    /// Bytes the application reads per tick (0: stopped).
    read_per_tick: u64,
    /// The application wakes every this many ticks and reads up to
    /// `read_per_tick` for each (1: every tick).
    wake_every: u64,
    /// Bytes read in the current tick window, for rate checks.
    read_log: Vec<u64>,
    /// MAX_STREAM_DATA frames the receiver wrote, by tick.
    update_ticks: Vec<u64>,
    /// The limits those frames carried, in order.
    update_limits: Vec<u64>,
    /// The sender has data for this stream.
    sending: bool,
}

/// A connection with several streams over an idealised path: the sender
/// always has data and spends every byte of credit (stream and
/// connection) at `link_per_tick`, round-robin; data and MAX_* frames take
/// RTT / 2; readers retire at fixed rates; once per 1 ms tick the receiver
/// fires the rebalancing timer if it is due and writes every update
/// `next_update` gives.
struct Loop {
    rx: ConnectionReceiver<ExcessTuner>,
    rtt: Option<Rtt>,
    one_way: u64,
    tick: u64,
    link_per_tick: u64,
    flows: Vec<Flow>,
    conn_credit: SenderFlowControl<Connection>,
    data: VecDeque<(u64, usize, u64)>,
    frames: VecDeque<(u64, UpdateFrame)>,
    changes: Vec<(u64, WindowChange)>,
    /// Ticks where a stream had credit but the connection had none left.
    connection_blocked: Vec<(u64, StreamId)>,
    /// Connection floor violations seen after a `next_update` call.
    floor_violations: Vec<String>,
    budget_violations: u64,
    /// The estimate before and after each tick's `next_update` calls.
    estimates: Vec<(u64, u64)>,
    /// Every flow's window at the end of each tick.
    windows: Vec<Vec<u64>>,
    /// Most bytes received and not read, all streams.
    max_buffered: u64,
    /// The sender reports STREAM_DATA_BLOCKED (at the limit it knows) when
    /// a stream's credit runs out, once per limit; it arrives RTT / 2 later.
    send_blocked: bool,
    blocked: VecDeque<(u64, StreamId, u64)>,
    /// Ticks at which the rebalancing timer fired (`on_timeout`).
    passes: Vec<u64>,
}

impl Loop {
    fn new(config: Config, rtt_ms: u64, link_per_tick: u64, readers: &[u64]) -> Self {
        let mut rx = receiver(config);
        let flows = readers
            .iter()
            .enumerate()
            .map(|(i, &r)| {
                let id = sid(i as u64);
                open(&mut rx, id, at(0));
                Flow {
                    id,
                    credit: SenderFlowControl::new(id, config.initial_stream_window),
                    read_per_tick: r,
                    wake_every: 1,
                    read_log: Vec::new(),
                    update_ticks: Vec::new(),
                    update_limits: Vec::new(),
                    sending: true,
                }
            })
            .collect();
        Self {
            conn_credit: SenderFlowControl::new(Connection, config.initial_connection_window),
            rx,
            rtt: rtt(rtt_ms),
            one_way: rtt_ms / 2,
            tick: 0,
            link_per_tick,
            flows,
            data: VecDeque::new(),
            frames: VecDeque::new(),
            changes: Vec::new(),
            connection_blocked: Vec::new(),
            floor_violations: Vec::new(),
            budget_violations: 0,
            estimates: Vec::new(),
            windows: Vec::new(),
            max_buffered: 0,
            send_blocked: false,
            blocked: VecDeque::new(),
            passes: Vec::new(),
        }
    }

    fn now(&self) -> std::time::Instant {
        at(self.tick)
    }

    /// The last pass at or before `tick`, and the first one after it.
    fn passes_around(&self, tick: u64) -> (u64, u64) {
        let before = *self.passes.iter().rfind(|&&t| t <= tick).unwrap();
        let after = *self.passes.iter().find(|&&t| t > tick).unwrap();
        (before, after)
    }

    fn window(&self, i: usize) -> u64 {
        self.rx.stream(self.flows[i].id).unwrap().window()
    }

    fn limit(&self, i: usize) -> u64 {
        self.rx.stream(self.flows[i].id).unwrap().limit()
    }

    fn check_after_next_update(&mut self) {
        let rx = &self.rx;
        let largest = self
            .flows
            .iter()
            .map(|f| rx.stream(f.id).unwrap().window())
            .max()
            .unwrap();
        let w = rx.flow().connection().window();
        let need = rx.flow().config().connection_floor.of_ceil(largest);
        if w < need {
            self.floor_violations.push(format!(
                "t={} ms: connection window {w} < ⌈1.5 × {largest}⌉ = {need}",
                self.tick
            ));
        }
        if rx.flow().committed() > rx.flow().budget() {
            self.budget_violations += 1;
        }
    }

    /// One millisecond.
    fn step(&mut self) {
        let now = self.now();
        while self.data.front().is_some_and(|d| d.0 <= self.tick) {
            let (_, i, end) = self.data.pop_front().unwrap();
            self.rx.on_data(self.flows[i].id, end, false).unwrap();
        }
        self.max_buffered = self.max_buffered.max(self.rx.flow().buffered());
        while self.frames.front().is_some_and(|f| f.0 <= self.tick) {
            let (_, u) = self.frames.pop_front().unwrap();
            match u {
                UpdateFrame::MaxData(limit) => self.conn_credit.update(limit),
                UpdateFrame::MaxStreamData { id, limit } => {
                    let f = self.flows.iter_mut().find(|f| f.id == id).unwrap();
                    f.credit.update(limit)
                }
                UpdateFrame::MaxStreams { .. } => panic!("no stream closes here: {u:?}"),
            };
        }
        while self.blocked.front().is_some_and(|b| b.0 <= self.tick) {
            let (_, id, limit) = self.blocked.pop_front().unwrap();
            let _ = self.rx.stream_data_blocked_received(id, limit);
        }
        for f in &mut self.flows {
            let s = self.rx.stream(f.id).unwrap();
            let n = if self.tick.is_multiple_of(f.wake_every) {
                let to = s
                    .consumed()
                    .min(s.retired() + f.read_per_tick * f.wake_every);
                self.rx.retire_to(f.id, to).unwrap()
            } else {
                0
            };
            f.read_log.push(n);
        }
        let estimate = self.rx.flow().estimate();
        if fire_timer(&mut self.rx, now, self.rtt) {
            self.passes.push(self.tick);
        }
        while let Some(u) = self.rx.next_update(now, self.rtt) {
            self.check_after_next_update();
            if let UpdateFrame::MaxStreamData { id, limit } = u {
                let f = self.flows.iter_mut().find(|f| f.id == id).unwrap();
                f.update_ticks.push(self.tick);
                f.update_limits.push(limit);
            }
            self.frames.push_back((self.tick + self.one_way, u));
        }
        self.check_after_next_update();
        self.estimates.push((estimate, self.rx.flow().estimate()));
        let mut link = self.link_per_tick;
        let n_flows = self.flows.len();
        for k in 0..n_flows {
            let i = (self.tick as usize + k) % n_flows;
            let f = &mut self.flows[i];
            if !f.sending {
                continue;
            }
            let can = f.credit.available();
            let n = can.min(self.conn_credit.available()).min(link);
            if can > 0 && self.conn_credit.available() == 0 {
                self.connection_blocked.push((self.tick, f.id));
            }
            if n == 0 {
                continue;
            }
            f.credit.consume(n);
            self.conn_credit.consume(n);
            link -= n;
            self.data
                .push_back((self.tick + self.one_way, i, f.credit.used()));
            if self.send_blocked && f.credit.blocked() {
                let limit = f.credit.limit();
                f.credit.blocked_sent();
                self.blocked
                    .push_back((self.tick + self.one_way, f.id, limit));
            }
        }
        for c in self.rx.drain_changes() {
            self.changes.push((self.tick, c));
        }
        let windows = (0..n_flows).map(|i| self.window(i)).collect();
        self.windows.push(windows);
        self.tick += 1;
    }

    fn run_until(&mut self, tick: u64) {
        while self.tick < tick {
            self.step();
        }
    }

    /// Bytes flow `i` read over ticks `[from, to)`.
    fn read(&self, i: usize, from: u64, to: u64) -> u64 {
        self.flows[i].read_log[from as usize..to as usize]
            .iter()
            .sum()
    }

    fn changes_of(&self, i: usize, reason: ChangeReason) -> Vec<(u64, WindowChange)> {
        let s = Subject::Stream(self.flows[i].id);
        self.changes
            .iter()
            .filter(|(_, c)| c.subject == s && c.reason == reason)
            .copied()
            .collect()
    }
}

/// 50 ms RTT, 100 MB/s link; the reader wants 20 MB/s: R × RTT = 1 MB.
const RTT_MS: u64 = 50;
const LINK: u64 = 100_000;
const READ: u64 = 20_000;

/// Streams 0 and 4 share the connection; stream 4 reads 20 MB/s
/// throughout, stream 0 reads at `first_rate` until `stall_at` ms and
/// then never again. The sender fills every byte of credit on both.
fn stalled_and_reading(first_rate: u64, stall_at: u64) -> u64 {
    let mut sim = Loop::new(common::config_512k(), RTT_MS, LINK, &[first_rate, READ]);
    sim.run_until(stall_at);
    sim.flows[0].read_per_tick = 0;
    sim.run_until(stall_at + 40 * RTT_MS);
    // The stalled stream holds all the credit it was given, unread.
    let stalled = sim.rx.stream(sid(0)).unwrap();
    assert_eq!(stalled.consumed(), stalled.limit());
    assert!(stalled.unretired() > 0);
    assert!(
        sim.connection_blocked.is_empty(),
        "{:?}",
        &sim.connection_blocked[..5.min(sim.connection_blocked.len())]
    );
    // From 20 RTTs on (ramp, then the stall) the reading stream gets a
    // MAX_STREAM_DATA every RTT and reads at its full rate.
    let from = stall_at.max(20 * RTT_MS);
    for k in 0..(stall_at + 40 * RTT_MS - from) / RTT_MS {
        let (a, b) = (from + k * RTT_MS, from + (k + 1) * RTT_MS);
        let n = sim.flows[1]
            .update_ticks
            .iter()
            .filter(|&&t| (a..b).contains(&t))
            .count();
        assert!(n >= 1, "no update for the reading stream in [{a}, {b}) ms");
        assert_eq!(sim.read(1, a, b), READ * RTT_MS, "[{a}, {b}) ms");
    }
    assert!(
        sim.floor_violations.is_empty(),
        "{:?}",
        sim.floor_violations
    );
    assert_eq!(sim.budget_violations, 0);
    sim.rx.stream(sid(0)).unwrap().unretired()
}

#[test]
fn a_stream_that_never_reads_never_blocks_a_reading_one() {
    assert_eq!(stalled_and_reading(0, 0), SEED);
}

#[test]
fn a_stream_that_stalls_with_a_large_window_never_blocks_a_reading_one() {
    // Both read 20 MB/s for 30 RTTs (windows ≈ 1.4 MB each), then
    // stream 0 stalls with ≈ 1.4 MB of credit parked.
    let parked = stalled_and_reading(READ, 30 * RTT_MS);
    assert!(parked > 1_000_000, "{parked}");
}

/// Default update fraction ¼: a window sustains a rate once ¾ of it
/// covers one RTT of reading.
fn sustains(window: u64, per_tick: u64) -> bool {
    window * 3 / 4 >= per_tick * RTT_MS
}

#[test]
fn idle_stream_returns_to_its_seed_and_regains_its_window_on_resume() {
    let mut sim = Loop::new(common::config_512k(), RTT_MS, LINK, &[READ]);
    // Rebalancing passes run once per smoothed RTT from the timer armed at
    // the first update (t = 0).
    sim.run_until(1501);
    assert!(
        sim.passes.windows(2).all(|w| w[1] - w[0] == RTT_MS),
        "{:?}",
        sim.passes
    );
    let grown = sim.window(0);
    assert!(sustains(grown, READ), "window {grown} after 30 RTTs");
    // The reader stops right after a pass (its last active one, 1,500 ms
    // with the timer above): at the pass four idle RTTs later the window
    // is its seed, not before.
    let last_active = *sim.passes.last().unwrap();
    assert!(1500 - last_active < RTT_MS);
    let reclaim_at = last_active + 4 * RTT_MS;
    sim.flows[0].read_per_tick = 0;
    sim.run_until(reclaim_at);
    let limit = sim.limit(0);
    assert_eq!(sim.window(0), grown);
    assert!(
        sim.changes_of(0, ChangeReason::Reclaim)
            .iter()
            .all(|c| c.0 < 1500)
    );
    sim.run_until(reclaim_at + 1);
    let reclaim = sim.changes_of(0, ChangeReason::Reclaim);
    let (when, c) = *reclaim.last().unwrap();
    assert_eq!(when, reclaim_at);
    assert_eq!((c.old, c.new), (grown, SEED));
    assert_eq!(sim.window(0), SEED);
    // The limit the peer holds stays: credit is never reneged.
    assert_eq!(sim.limit(0), limit);
    sim.run_until(1751);
    assert_eq!(sim.limit(0), limit);
    assert_eq!(sim.window(0), SEED);
    // It resumes at the same rate: within two RTTs its window sustains
    // the rate again, and keeps doing so.
    sim.flows[0].read_per_tick = READ;
    sim.run_until(3001);
    let back = (1751..3001)
        .find(|&t| sustains(sim.windows[t as usize][0], READ))
        .unwrap();
    assert!(back <= 1751 + 2 * RTT_MS, "sustains R only from {back} ms");
    for t in back..3001 {
        assert!(sustains(sim.windows[t as usize][0], READ), "{t} ms");
    }
    // It resumes reading the ≈ 1.4 MB parked in its buffer: not
    // window-limited (unread ≥ a quarter of its window), so rebalancing
    // does not raise it while that lasts; its first update after resuming
    // auto-tunes it straight from the seed. Once it reads at its rate
    // again, a pass may give it back at most the share of the estimate it
    // had grown (estimate / 1.5).
    let budget_raises: Vec<_> = sim
        .changes_of(0, ChangeReason::Budget)
        .into_iter()
        .filter(|c| c.0 >= 1500)
        .collect();
    for (when, c) in &budget_raises {
        assert!(*when > 1751 + 2 * RTT_MS, "{budget_raises:?}");
        let (_, hi) = sim.estimates[*when as usize];
        assert!(c.new <= hi * 2 / 3, "{budget_raises:?}");
    }
    let tuned = sim.changes_of(0, ChangeReason::AutoTune);
    let (when, c) = *tuned.iter().find(|c| c.0 > 1751).unwrap();
    assert!(when <= 1751 + 2 * RTT_MS, "{tuned:?}");
    assert_eq!(c.old, SEED);
    assert!(sustains(c.new, READ), "{c}");
    // And the reader is never starved from three RTTs after resuming.
    for k in 0..((3000 - 1900) / RTT_MS) {
        let from = 1900 + k * RTT_MS;
        assert_eq!(
            sim.read(0, from, from + RTT_MS),
            READ * RTT_MS,
            "from {from} ms"
        );
    }
    assert!(
        sim.floor_violations.is_empty(),
        "{:?}",
        sim.floor_violations
    );
    assert_eq!(sim.budget_violations, 0);
    assert!(sim.connection_blocked.is_empty());
}

#[test]
fn the_last_reading_stream_inherits_the_estimate_in_one_pass() {
    // Eight streams read 2.5 MB/s each (1 MB per RTT together); stream 0's
    // reader would take more, so its window (its share) is what holds it
    // back — a reader slower than its window has nothing to inherit.
    let mut readers = [READ / 8; 8];
    readers[0] = READ;
    let mut sim = Loop::new(common::config_512k(), RTT_MS, LINK, &readers);
    sim.run_until(1501);
    let before = sim.window(0);
    // All but stream 0 stop right after a pass (1,500 ms with passes once
    // per RTT from t = 0); the next pass, one RTT later, raises stream 0.
    let last = *sim.passes.last().unwrap();
    assert!(1500 - last < RTT_MS, "{:?}", sim.passes);
    for f in &mut sim.flows[1..] {
        f.read_per_tick = 0;
    }
    sim.run_until(last + RTT_MS);
    assert_eq!(sim.window(0), before);
    sim.run_until(last + RTT_MS + 1);
    let (_, next) = sim.passes_around(last);
    assert_eq!(next, last + RTT_MS, "{:?}", sim.passes);
    let raised = sim.changes_of(0, ChangeReason::Budget);
    let (when, c) = *raised.last().unwrap();
    assert_eq!(when, next, "{raised:?}");
    assert_eq!(c.old, before);
    // estimate / 1.5 with the estimate of that pass (it may grow within
    // the tick, after the pass).
    let (lo, hi) = sim.estimates[next as usize];
    assert!(
        (lo * 2 / 3..=hi * 2 / 3).contains(&c.new),
        "raised to {} with estimate {lo}..{hi}",
        c.new
    );
    assert!(c.new >= 2 * before, "{before} -> {}", c.new);
    assert!(
        sim.floor_violations.is_empty(),
        "{:?}",
        sim.floor_violations
    );
    assert_eq!(sim.budget_violations, 0);
}

/// Eight readers that each want the whole link share it, every stream's
/// credit capped at its share of the estimate. At 1,500 ms (just after a
/// pass) seven stop reading and their sender has nothing more for them.
/// Stream 0 takes the link, runs out of its share within a few ms and
/// reports STREAM_DATA_BLOCKED: with one of eight streams reading since
/// the last pass the share is stale, so a pass runs as soon as the
/// report arrives (≥ a quarter RTT after the last pass) instead of a whole
/// RTT after it, and raises stream 0 to the estimate's share. Returns the
/// raises after the stop and the last pass before it.
fn stale_share(send_blocked: bool) -> (Vec<(u64, WindowChange)>, u64) {
    let mut sim = Loop::new(common::config_512k(), RTT_MS, LINK, &[LINK; 8]);
    sim.send_blocked = send_blocked;
    sim.run_until(1501);
    let last = *sim.passes.last().unwrap();
    let before = sim.window(0);
    for f in &mut sim.flows[1..] {
        f.read_per_tick = 0;
        f.sending = false;
    }
    sim.run_until(1560);
    assert!(
        sim.floor_violations.is_empty(),
        "{:?}",
        sim.floor_violations
    );
    assert_eq!(sim.budget_violations, 0);
    let raised: Vec<_> = sim
        .changes_of(0, ChangeReason::Budget)
        .into_iter()
        .filter(|c| c.0 > 1500 && c.1.new > c.1.old)
        .collect();
    let first = raised.first().expect("raised after the stop").1;
    assert_eq!(first.old, before);
    assert!(first.new >= 2 * before, "{before} -> {}", first.new);
    // Raised by a pass.
    assert!(sim.passes.contains(&raised[0].0), "{:?}", sim.passes);
    (raised, last)
}

#[test]
fn blocked_at_a_stale_share_rebalances_early() {
    let (raised, last) = stale_share(true);
    let when = raised[0].0;
    assert!(
        (last + RTT_MS / 4..last + RTT_MS).contains(&when),
        "raised at {when} ms, last pass {last} ms: {raised:?}"
    );
}

#[test]
fn without_blocked_a_stale_share_waits_for_the_next_pass() {
    let (raised, last) = stale_share(false);
    assert_eq!(raised[0].0, last + RTT_MS, "{raised:?}");
}

/// `n` streams that together read `READ` per tick, in equal parts.
fn equal_readers(n: u64) -> Loop {
    Loop::new(
        common::config_512k(),
        RTT_MS,
        LINK,
        &vec![READ / n; n as usize],
    )
}

/// 32 streams share 1 MB per RTT (31.25 KB each): once the estimate has
/// stopped growing, no stream holds more credit than its share of the
/// estimate (≈ 47 KB, below the 128 KiB seed), so streams that stall can
/// park at most ≈ one estimate between them — and every reader still
/// gets its full rate.
#[test]
fn after_the_ramp_each_stream_holds_its_share_not_its_seed() {
    let n = 32;
    let mut sim = equal_readers(n);
    sim.run_until(1000);
    let mut most = 0;
    for _ in 1000..3000 {
        sim.step();
        let share = (sim.rx.flow().estimate() / n).max(INITIAL / 4);
        for f in &sim.flows {
            let s = sim.rx.stream(f.id).unwrap();
            most = most.max(s.credit());
            assert!(s.credit() <= share, "{:?}: {} > {share}", f.id, s.credit());
        }
    }
    assert!(most < SEED / 2, "{most}");
    for i in 0..n as usize {
        assert_eq!(sim.read(i, 1000, 3000), 2000 * (READ / n), "stream {i}");
    }
    assert_eq!(sim.budget_violations, 0);
}

/// A stream whose *sender* slows down (the link drops to a tenth of what
/// the reader takes) reads everything it gets, its buffer empty: it is
/// not a slow reader, so its window is not reclaimed, and when the link
/// comes back the reader gets its full rate at once.
#[test]
fn a_slow_sender_is_not_a_slow_reader() {
    let mut sim = Loop::new(common::config_512k(), RTT_MS, LINK, &[READ]);
    sim.run_until(1501);
    let grown = sim.window(0);
    assert!(sustains(grown, READ), "window {grown}");
    sim.link_per_tick = READ / 10;
    sim.run_until(3001);
    assert!(
        sim.changes_of(0, ChangeReason::Reclaim).is_empty(),
        "{:?}",
        sim.changes_of(0, ChangeReason::Reclaim)
    );
    assert_eq!(sim.window(0), grown);
    // It reads everything that arrives.
    assert!(
        sim.rx.flow().buffered() <= READ / 10,
        "{}",
        sim.rx.flow().buffered()
    );
    sim.link_per_tick = LINK;
    sim.run_until(3201);
    // One RTT for the data to arrive, then the full rate.
    for from in (3001 + RTT_MS..3201 - RTT_MS).step_by(RTT_MS as usize) {
        assert_eq!(sim.read(0, from, from + RTT_MS), READ * RTT_MS, "{from} ms");
    }
}

/// A reader on a timer — it wakes every four RTTs and reads what arrived,
/// at most its rate × the period — leaves data waiting between wake-ups
/// as a slow reader does, and reads four passes' worth every fourth pass.
/// Reclaim judges a stream by the most it read in one pass, not by its
/// average: the window keeps room for what a wake-up reads, and the reader
/// gets its whole rate.
#[test]
fn a_reader_on_a_timer_keeps_room_for_what_a_wake_up_reads() {
    let period = 4 * RTT_MS;
    let mut sim = Loop::new(common::config_512k(), RTT_MS, LINK, &[READ]);
    sim.flows[0].wake_every = period;
    sim.run_until(4001);
    let wake_up = READ * period;
    let reclaimed = sim.changes_of(0, ChangeReason::Reclaim);
    assert!(
        reclaimed.iter().all(|(_, c)| c.new >= 2 * wake_up),
        "{reclaimed:?}"
    );
    for from in (2000..4000).step_by(period as usize) {
        assert_eq!(sim.read(0, from, from + period), wake_up, "{from} ms");
    }
}

#[test]
fn slow_reader_under_a_budget_never_grows_its_window() {
    let mut sim = Loop::new(common::config_512k(), RTT_MS, LINK, &[LINK / 100]);
    sim.run_until(200 * RTT_MS);
    let max = sim.windows.iter().map(|w| w[0]).max().unwrap();
    let grew: Vec<_> = sim
        .changes
        .iter()
        .filter(|(_, c)| {
            c.subject != Subject::Connection && c.new > c.old && c.reason != ChangeReason::Seed
        })
        .take(4)
        .collect();
    assert_eq!(
        max,
        SEED,
        "window grew {} times (reclaimed {} times), most unread {}: {grew:?}",
        sim.changes_of(0, ChangeReason::Budget).len(),
        sim.changes_of(0, ChangeReason::Reclaim).len(),
        sim.max_buffered
    );
    assert!(
        sim.max_buffered <= SEED,
        "{} bytes unread",
        sim.max_buffered
    );
    assert_eq!(sim.rx.flow().connection().window(), 512 * KIB);
}

#[test]
fn slow_reader_without_a_budget_never_grows_its_window() {
    let config = Config {
        budget: None,
        ..common::config_512k()
    };
    let mut sim = Loop::new(config, RTT_MS, LINK, &[LINK / 100]);
    sim.run_until(200 * RTT_MS);
    assert!(sim.windows.iter().all(|w| w[0] == SEED));
    assert!(
        sim.max_buffered <= SEED,
        "{} bytes unread",
        sim.max_buffered
    );
    assert_eq!(sim.rx.flow().connection().window(), 512 * KIB);
    // The reader still read at its rate once the first window arrived.
    assert_eq!(sim.read(0, 100, 10_000), 9_900 * (LINK / 100));
}

// ------------------------------------------------------ extreme inputs

#[test]
fn next_update_never_panics_on_huge_times() {
    let mut rx = receiver(common::config_512k());
    let id = sid(0);
    let huge = Rtt::from_sample(Duration::MAX);
    rx.on_data(id, 1000, false).unwrap();
    // The seeded window's early update goes out whatever the RTT.
    assert_eq!(rx.next_update(at(1), huge), Some(msd(id, SEED)));
    // The next pass would be due at 1 ms + Duration::MAX, past any
    // `Instant`: never in the past, whatever the timer says.
    assert!(rx.next_timeout().is_none_or(|t| t > at(1)));
    // At the end of time, 1,000 bytes read are not worth an update.
    rx.retire_to(id, 1000).unwrap();
    let end = common::far_future();
    fire_timer(&mut rx, end, huge);
    rx.on_timeout(end, huge);
    assert_eq!(rx.next_update(end, huge), None);
    assert_eq!(rx.stream(id).unwrap().limit(), SEED);
    let mut rx = receiver(common::config_512k());
    let just_before = end - Duration::from_millis(1);
    assert_eq!(rx.next_update(just_before, rtt(50)), None);
    fire_timer(&mut rx, end, rtt(50));
    assert_eq!(rx.next_update(end, rtt(50)), None);
    rx.on_timeout(end, rtt(50));
}

/// Hours between calls, and RTT estimates of none (no sample yet: the old
/// API's zero RTT) or an hour.
#[test]
fn hours_between_calls_and_zero_rtt_are_fine() {
    let mut rx = receiver(common::config_512k());
    let id = sid(0);
    let mut now = Duration::ZERO;
    let mut end = 0;
    for (i, step) in [0u64, 1, 3_600_000, 0, 7_200_000, 5]
        .into_iter()
        .enumerate()
    {
        now += Duration::from_millis(step);
        let r = if i % 2 == 0 {
            Rtt::from_sample(Duration::ZERO)
        } else {
            Rtt::from_sample(Duration::from_secs(3600))
        };
        end = rx.stream(id).map_or(INITIAL, |s| s.limit());
        rx.on_data(id, end, false).unwrap();
        rx.retire_to(id, end).unwrap();
        updates(&mut rx, base() + now, r);
        assert!(rx.flow().committed() <= rx.flow().budget());
        assert_eq!(rx.flow().committed(), credit_sum(&rx, 0..1));
    }
    assert!(rx.stream(id).unwrap().limit() > end);
    assert!(rx.stream(id).unwrap().window() <= rx.flow().config().max_stream_window);
}

/// Three streams read everything at once every millisecond (RTT 1 s):
/// their windows reach the 32 MiB cap in five rounds; a fourth holds its
/// seed unread.
fn fast_readers(config: Config) -> ConnectionReceiver<ExcessTuner> {
    let mut rx = receiver(config);
    for t in 1..=6 {
        let now = at(t);
        for i in 0..4 {
            let id = sid(i);
            let end = rx.stream(id).map_or(INITIAL, |s| s.limit());
            rx.on_data(id, end, false).unwrap();
            if i != 3 {
                rx.retire_to(id, end).unwrap();
            }
        }
        updates(&mut rx, now, Rtt::from_sample(Duration::from_secs(1)));
        assert!(rx.flow().committed() <= rx.flow().budget());
        assert_eq!(rx.flow().committed(), credit_sum(&rx, 0..4));
    }
    rx
}

/// Σ over open streams of the credit beyond the initial window: what the
/// growth budget bounds.
fn excess(rx: &ConnectionReceiver<ExcessTuner>, ids: std::ops::Range<u64>) -> u64 {
    ids.filter_map(|i| rx.stream(sid(i)))
        .map(|s| s.credit().saturating_sub(INITIAL))
        .sum()
}

#[test]
fn stream_windows_stop_at_the_cap_and_the_budget_at_its_ceiling() {
    let rx = fast_readers(common::config_512k());
    let cap = rx.flow().config().max_stream_window;
    // Two readers reach the cap; the third's window is cut (reason Budget)
    // to the credit the budget could grant it.
    let windows: Vec<u64> = (0..3)
        .map(|i| rx.stream(sid(i)).unwrap().window())
        .collect();
    assert_eq!(
        windows.iter().filter(|&&w| w == cap).count(),
        2,
        "{windows:?}"
    );
    assert!(windows.contains(&(2 * INITIAL)), "{windows:?}");
    assert_eq!(rx.stream(sid(3)).unwrap().window(), SEED);
    // Growth is capped at 64 MiB on top of the four open streams' promised
    // 64 KiB (the old budget promised all 100 `max_streams` slots).
    assert_eq!(rx.flow().estimate(), 48 << 20);
    assert_eq!(rx.flow().budget(), 4 * INITIAL + (64 << 20));
    // Two readers hold 32 MiB of credit each, the unread stream its
    // 128 KiB: all the growth but 65,536 bytes. The third reader still
    // gets its own promised 64 KiB (it costs no growth) plus what is left:
    // it is never stuck at credit 0.
    let credits: Vec<u64> = (0..4)
        .map(|i| rx.stream(sid(i)).unwrap().credit())
        .collect();
    assert_eq!(
        credits.iter().filter(|&&c| c == cap).count(),
        2,
        "{credits:?}"
    );
    assert_eq!(credits[3], SEED, "{credits:?}");
    let third = credits[..3].iter().copied().find(|&c| c != cap).unwrap();
    assert_eq!(third, 2 * INITIAL, "{credits:?}");
    assert_eq!(rx.flow().committed(), 2 * cap + SEED + 2 * INITIAL);
    assert_eq!(excess(&rx, 0..4), 64 << 20);
    // Every byte of the budget is committed.
    assert_eq!(rx.flow().committed(), rx.flow().budget());
}

#[test]
fn connection_window_passes_the_tuner_cap_only_to_cover_committed_credit() {
    // With a budget the connection window covers the credit it stands
    // behind after the update lag — here all that was committed to
    // streams, ⌈committed / (1 − ¼)⌉, as every stream reads and holds
    // credit beyond its promise — even past the configured 48 MiB cap:
    // the budget, not the connection window, bounds memory.
    let rx = fast_readers(common::config_512k());
    let cap = rx.flow().config().max_connection_window;
    assert_eq!(cap, 50_331_648);
    assert_eq!(rx.flow().committed(), 67_371_008);
    assert_eq!(rx.flow().connection().window(), committed_floor(&rx));
    assert!(rx.flow().connection().window() > cap);
    // Never more than the whole budget needs: ⌈budget / (1 − ¼)⌉.
    let budget_floor = (rx.flow().budget() * 4).div_ceil(3);
    assert!(rx.flow().connection().window() <= budget_floor);
}

/// Eight window-limited readers (they read all that arrives) share a
/// budget whose growth is `ceiling`; after 20 RTTs all but stream 0 stop.
/// Returns stream 0's bytes read per RTT before the stop (average over
/// 10 RTTs) and in each RTT from the second after it.
fn all_but_one_stop(ceiling: u64) -> (Loop, u64, Vec<u64>) {
    let config = with_budget(Budget {
        ceiling,
        ..Budget::default()
    });
    let mut sim = Loop::new(config, RTT_MS, LINK, &[LINK; 8]);
    sim.run_until(1001);
    let before = sim.read(0, 500, 1000) / 10;
    for f in &mut sim.flows[1..] {
        f.read_per_tick = 0;
    }
    sim.run_until(3001);
    let after = (21..60)
        .map(|k| sim.read(0, k * RTT_MS, (k + 1) * RTT_MS))
        .collect();
    assert!(
        sim.floor_violations.is_empty(),
        "{:?}",
        sim.floor_violations
    );
    assert_eq!(sim.budget_violations, 0);
    (sim, before, after)
}

#[test]
fn the_last_reader_takes_over_the_link_under_the_default_budget() {
    let (sim, before, after) = all_but_one_stop(Budget::default().ceiling);
    // 100 MB/s link: 5 MB per RTT once its window has grown.
    assert!(before < 1_000_000, "{before}");
    assert!(after[3..].iter().all(|&n| n == LINK * RTT_MS), "{after:?}");
    assert!(sim.connection_blocked.is_empty());
}

#[test]
fn the_last_reader_is_never_starved_when_the_budget_binds() {
    let (sim, before, after) = all_but_one_stop(1_600_000);
    // The stalled streams keep the growth budget (credit is never
    // reneged), but every open stream's promised initial window costs no growth:
    // the last reader gets at least that much every RTT.
    assert!(before > INITIAL, "{before}");
    let raised = sim.changes_of(0, ChangeReason::Budget);
    assert!(
        after.iter().all(|&n| n >= INITIAL),
        "read {after:?} per RTT (before {before}); committed {} budget {}; raised {:?}",
        sim.rx.flow().committed(),
        sim.rx.flow().budget(),
        raised.iter().filter(|c| c.0 > 1000).collect::<Vec<_>>()
    );
    assert_eq!(sim.budget_violations, 0);
}

/// The initial connection window is a guess made before any data flowed:
/// seeds may spend it, but the rebalancing pass raises a busy stream only
/// to its share of the need it measured (the bytes moved per RTT, the
/// windows granted). A stream reading 32 KiB per 10 ms RTT under an 8 MiB
/// initial connection window keeps its 64 KiB window; before, the pass
/// raised it to 8 MiB / 1.5 at once.
#[test]
fn the_pass_raises_busy_streams_to_measured_need_not_the_initial_guess() {
    let mut rx = receiver(Config {
        initial_connection_window: 8 << 20,
        seed_fraction: None,
        ..Config::default()
    });
    let id = sid(0);
    assert_eq!(rx.on_data(id, 0, false), Ok(0));
    let mut offset = 0;
    for ms in 1..=200 {
        if ms % 10 == 0 {
            offset += 32 << 10;
            rx.on_data(id, offset, false).unwrap();
            rx.retire_to(id, offset).unwrap();
        }
        let _ = updates(&mut rx, at(ms), rtt(10));
    }
    let raised: Vec<_> = changes(&mut rx)
        .into_iter()
        .filter(|c| c.reason == ChangeReason::Budget)
        .collect();
    assert_eq!(raised, []);
    assert_eq!(rx.stream(id).unwrap().window(), 64 << 10);
    assert!(rx.flow().estimate() >= 8 << 20);
}

/// 32 streams held at their shares (≈ 47 KB: a threshold of ≈ 12 KB, an
/// eighth of it ≈ 1.5 KB) by a sender that reports STREAM_DATA_BLOCKED
/// whenever a stream's credit runs out. Behind a standing queue (smoothed
/// RTT twice the minimum) the receiver answers no report with less than
/// `MIN_BLOCKED_ANSWER`: every update extends its limit by that much or
/// waits for the threshold, and the readers lose nothing. With no queue
/// the answers come as soon as an eighth of the threshold was read.
#[test]
fn behind_a_standing_queue_blocked_reports_get_no_slivers() {
    let run = |smoothed_ms: u64| {
        let n = 32;
        let mut sim = equal_readers(n);
        sim.send_blocked = true;
        sim.rtt = Rtt::new(
            Duration::from_millis(smoothed_ms),
            Duration::from_millis(RTT_MS),
        );
        sim.run_until(3000);
        let mut smallest = u64::MAX;
        let mut updates = 0;
        for f in &sim.flows {
            for (k, w) in f.update_limits.windows(2).enumerate() {
                if f.update_ticks[k + 1] >= 1000 {
                    smallest = smallest.min(w[1] - w[0]);
                    updates += 1;
                }
            }
        }
        let read: u64 = (0..n as usize).map(|i| sim.read(i, 1000, 3000)).sum();
        assert_eq!(sim.budget_violations, 0);
        (smallest, updates, read)
    };
    let (queued_step, queued_updates, queued_read) = run(2 * RTT_MS);
    let (free_step, free_updates, free_read) = run(RTT_MS);
    // The smallest update behind the queue is a whole threshold (a quarter
    // of the share), below MIN_BLOCKED_ANSWER only because the threshold
    // itself is.
    assert!(
        (11 * KIB..neqo_fc::MIN_BLOCKED_ANSWER).contains(&queued_step),
        "{queued_step}"
    );
    assert!(free_step < 4 * KIB, "{free_step}");
    assert!(
        queued_updates < free_updates,
        "{queued_updates} vs {free_updates}"
    );
    assert_eq!(queued_read, 2000 * READ);
    assert_eq!(free_read, 2000 * READ);
}

/// Requests we open ourselves (HTTP/3's shape, opened as they are sent):
/// the growth budget covers the first seeds only, and the stream whose
/// update it cut short, with no byte of its response yet, gets the rest
/// of its seed once room frees, before its response starts; a sender
/// that serves streams in order reaches it only then. Without that its
/// window stayed at what the cut left, and its response waited a round
/// trip at that limit for a tuning step.
#[test]
fn own_requests_get_their_whole_seed_as_room_frees() {
    const SIZE: u64 = 400 * KIB;
    let mut rx = ConnectionReceiver::new(Role::Client, Config::default().validate().unwrap());
    let req = |k| StreamId::new(Role::Client, Direction::Bidi, k);
    for k in 0..10 {
        rx.open_local_stream(req(k)).unwrap();
    }
    let seed = rx.stream(req(0)).unwrap().window();
    assert_eq!(seed, 512 * KIB, "half the 1 MiB first estimate");
    let r = rtt(50);
    let first = updates(&mut rx, at(0), r);
    let limit = |rx: &ConnectionReceiver<ExcessTuner>, k| rx.stream(req(k)).map(|s| s.limit());
    // 3 MiB of growth: six whole seeds, then a seventh cut short.
    let whole = (0..10).filter(|&k| limit(&rx, k) == Some(seed)).count();
    assert_eq!(whole, 6, "{first:?}");
    let cut = limit(&rx, 6).unwrap();
    assert!(INITIAL < cut && cut < seed, "{cut}");
    // The first four responses arrive, are read and end: room frees.
    for k in 0..4 {
        rx.on_data(req(k), SIZE, true).unwrap();
        rx.retire_to(req(k), SIZE).unwrap();
        rx.close_stream(req(k));
    }
    for t in [50, 100, 150] {
        updates(&mut rx, at(t), r);
    }
    for k in 6..10 {
        let s = rx.stream(req(k)).unwrap();
        assert_eq!(s.consumed(), 0, "no response byte yet on {k}");
        assert!(s.limit() >= seed, "stream {k}: limit {}", s.limit());
    }
    assert!(rx.flow().committed() <= rx.flow().budget());
}
