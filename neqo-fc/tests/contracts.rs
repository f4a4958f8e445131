//! Promises the rustdoc makes that a model-based test found broken (issue
//! #45): a zero-limit stream under budget pressure, `update_pending()` and
//! `next_update()` disagreeing both ways, and a stream handed to another
//! connection.

mod common;

use std::time::{Duration, Instant};

use common::{at, base};
use neqo_fc::{
    Budget, Config, ConnectionFlow, ConnectionReceiver, Direction, Error, Role, Rtt, StreamId,
    StreamReceiver,
};

const KIB: u64 = 1 << 10;

fn uni(index: u64) -> StreamId {
    StreamId::new(Role::Client, Direction::Uni, index)
}

fn bidi(index: u64) -> StreamId {
    StreamId::new(Role::Client, Direction::Bidi, index)
}

fn rtt_ms(ms: u64) -> Option<Rtt> {
    common::rtt_ms(ms)
}

/// Eight streams take their seeds and their peers go idle; stream 8 is
/// opened with limit 0 and its application reads whatever arrives. Within
/// 10 s of simulated time (a stack that fires its timer and writes its
/// updates every 10 ms) the stream must get credit.
fn zero_limit_stream_gets_credit(config: Config) {
    let config = config.validate().unwrap();
    let mut flow = ConnectionFlow::new(config);
    let rtt = rtt_ms(50);
    let mut streams: Vec<StreamReceiver> =
        (0..8).map(|i| flow.open_stream(uni(i)).unwrap()).collect();
    for s in &mut streams {
        let _ = flow.stream_update(s, base(), rtt);
    }
    let mut zero = flow.open_stream_with_limit(uni(8), 0).unwrap();
    assert_eq!(zero.fc().limit(), 0);
    let mut limit = 0;
    for t in (0..10_000).step_by(10) {
        let now = at(t);
        if flow.next_timeout().is_some_and(|n| n <= now) {
            flow.on_timeout(now, rtt, |visit| {
                streams.iter_mut().for_each(&mut *visit);
                visit(&mut zero);
            });
        }
        for s in &mut streams {
            let _ = flow.stream_update(s, now, rtt);
        }
        if let Some(l) = flow.stream_update(&mut zero, now, rtt) {
            limit = l;
            break;
        }
    }
    assert!(
        limit >= config.initial_stream_window,
        "a stream opened with limit 0 got {limit} in 10 s (update_due {})",
        zero.update_due()
    );
}

/// Item 1: the budget promises every open stream `initial_stream_window`
/// without growth room; a stream opened with a lower limit was counted at
/// that limit (0), so with the growth room used up it never got credit.
#[test]
fn a_zero_limit_stream_gets_credit_when_the_growth_room_is_used_up() {
    zero_limit_stream_gets_credit(Config::default());
}

#[test]
fn a_zero_limit_stream_gets_credit_with_no_growth_room_at_all() {
    zero_limit_stream_gets_credit(Config {
        budget: Some(Budget {
            ceiling: 0,
            ..Budget::default()
        }),
        ..Config::default()
    });
}

/// Item 2: with no budget, a STREAM_DATA_BLOCKED whose answer is below
/// `MIN_BLOCKED_ANSWER` behind a standing queue held the stream "by policy"
/// at a need of `u64::MAX`, which `update_pending()` compared with a room of
/// `u64::MAX`: true, while `next_update()` returned `None` (a stack that polls
/// it spins).
#[test]
fn update_pending_is_false_when_a_small_blocked_answer_is_held() {
    let config = Config {
        budget: None,
        seed_fraction: None,
        ..Config::default()
    }
    .validate()
    .unwrap();
    let mut rx = ConnectionReceiver::new(Role::Server, config);
    // A standing queue: smoothed well above the minimum.
    let rtt = Rtt::new(Duration::from_millis(80), Duration::from_millis(40));
    let id = bidi(0);
    rx.on_data(id, 1, false).unwrap();
    while rx.next_update(base(), rtt).is_some() {}
    let limit = rx.stream(id).unwrap().limit();
    // A 64 KiB window (no seeding): the peer uses all its credit, the
    // application reads 4 KiB, and the peer says it is blocked. The answer
    // would be 4 KiB, under `MIN_BLOCKED_ANSWER`: held.
    rx.on_data(id, limit, false).unwrap();
    rx.retire_to(id, 4 * KIB).unwrap();
    assert!(rx.stream_data_blocked_received(id, limit).unwrap());
    let mut frames = Vec::new();
    while let Some(f) = rx.next_update(at(1), rtt) {
        frames.push(f);
        assert!(frames.len() < 100, "next_update spins");
    }
    assert!(
        !rx.update_pending(),
        "update_pending() true after next_update() returned None ({frames:?})"
    );
}

/// `update_pending()` says what `next_update()` would do now (tried on a
/// snapshot, so the stack's state is untouched).
fn agrees(rx: &ConnectionReceiver, now: Instant, rtt: Option<Rtt>) -> Result<(), String> {
    let pending = rx.update_pending();
    let frame = rx.clone().next_update(now, rtt);
    if pending == frame.is_some() {
        Ok(())
    } else {
        Err(format!(
            "update_pending() {pending}, next_update() {frame:?}"
        ))
    }
}

/// The peer fills `streams` streams round-robin in `chunk`-byte frames until
/// the connection credit is used up, nobody reads, and it says DATA_BLOCKED.
fn park_then_blocked(streams: u64, chunk: u64) -> Result<(), String> {
    let config = Config {
        seed_fraction: None,
        initial_stream_window: 256 * KIB,
        initial_connection_window: 512 * KIB,
        ..Config::default()
    }
    .validate()
    .unwrap();
    let mut rx = ConnectionReceiver::new(Role::Server, config);
    let rtt = rtt_ms(40);
    let now = at(1);
    let ids: Vec<StreamId> = (0..streams).map(bidi).collect();
    loop {
        let mut sent = false;
        for &id in &ids {
            let conn = rx.flow().connection();
            let room = conn.limit() - conn.consumed();
            let (limit, consumed) = rx
                .stream(id)
                .map_or((256 * KIB, 0), |s| (s.limit(), s.consumed()));
            let n = (limit - consumed).min(room).min(chunk);
            if n > 0 {
                rx.on_data(id, consumed + n, false).unwrap();
                agrees(&rx, now, rtt).map_err(|e| format!("after data: {e}"))?;
                sent = true;
            }
        }
        if !sent {
            break;
        }
    }
    let limit = rx.flow().connection().limit();
    if rx.flow().connection().consumed() < limit {
        // Stream-blocked only: nothing to claim at the connection.
        return Ok(());
    }
    rx.data_blocked_received(limit);
    agrees(&rx, now, rtt).map_err(|e| format!("after DATA_BLOCKED at {limit}: {e}"))
}

/// Item 3: the connection window that covers unread buffered bytes was
/// raised only inside `next_update`, so `update_pending()` said false while
/// the next build wrote a MAX_DATA (a DATA_BLOCKED made the raise due).
#[test]
fn update_pending_predicts_the_max_data_that_covers_parked_bytes() {
    let mut failures = Vec::new();
    for streams in 2..=6 {
        for chunk in [KIB, 4 * KIB, 16 * KIB, 50 * KIB, 100 * KIB] {
            if let Err(e) = park_then_blocked(streams, chunk) {
                failures.push(format!("{streams} streams, {chunk} B frames: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Item 4: a `StreamReceiver` given to another `ConnectionFlow` left the
/// books wrong (committed credit with no stream open); the other connection
/// now refuses it and changes nothing.
#[test]
fn a_stream_of_another_connection_is_refused_and_the_books_stay_right() {
    let config = Config::default().validate().unwrap();
    let mut a = ConnectionFlow::new(config);
    let mut b = ConnectionFlow::new(config);
    let rtt = rtt_ms(30);
    let mut s = a.open_stream(uni(0)).unwrap();
    assert!(a.owns(&s) && !b.owns(&s));
    let _ = a.stream_update(&mut s, base(), rtt);
    a.on_data(&mut s, 300_000, false).unwrap();
    a.retire_to(&mut s, 300_000).unwrap();
    let (a_committed, b_committed) = (a.committed(), b.committed());
    let b_conn = b.connection().consumed();
    assert_eq!(
        b.on_data(&mut s, 400_000, false),
        Err(Error::ForeignStream(uni(0)))
    );
    assert_eq!(
        b.retire_to(&mut s, 300_000),
        Err(Error::ForeignStream(uni(0)))
    );
    assert_eq!(
        b.reset_received(&mut s, 400_000),
        Err(Error::ForeignStream(uni(0)))
    );
    assert_eq!(Error::ForeignStream(uni(0)).code(), 0x01);
    assert_eq!(b.stream_update(&mut s, at(5), rtt), None);
    assert!(!b.stream_blocked_received(&mut s, 300_000));
    b.stop_reading(&mut s);
    let window = s.fc().window();
    assert_eq!(b.set_stream_window(&mut s, 1), window);
    b.close_stream(s.clone());
    assert_eq!((a.committed(), b.committed()), (a_committed, b_committed));
    assert_eq!(b.connection().consumed(), b_conn);
    assert_eq!((a.open_streams(), b.open_streams()), (1, 0));
    // The stream still works where it belongs, and closes there.
    a.on_data(&mut s, 350_000, false).unwrap();
    a.close_stream(s);
    assert_eq!((a.open_streams(), a.committed()), (0, 0));
}
