//! A stack that owns its streams' controllers (neqo's and quinn's model)
//! gets tuning, seeding, the connection floor, the budget and the
//! rebalancing timer from public calls on `ConnectionFlow`, and every
//! window change as a `WindowChange` — nothing copied from the crate.

use std::{
    collections::BTreeMap,
    sync::LazyLock,
    time::{Duration, Instant},
};

use neqo_fc::{
    ChangeReason, Config, ConnectionFlow, ConnectionReceiver, Direction, Role, Rtt, StreamId,
    StreamReceiver, Subject, UpdateFrame,
};

static BASE: LazyLock<Instant> = LazyLock::new(Instant::now);

fn at(us: u64) -> Instant {
    *BASE + Duration::from_micros(us)
}

fn rtt() -> Option<Rtt> {
    Rtt::from_sample(Duration::from_millis(20))
}

/// The stack's own stream object, holding our controller.
struct MyRecvStream {
    fc: StreamReceiver,
    read: u64,
}

#[test]
fn a_stack_that_owns_its_streams_gets_the_whole_policy() {
    let config = Config::default().validate().unwrap();
    let mut conn = ConnectionFlow::new(config);
    let mut streams: BTreeMap<StreamId, MyRecvStream> = BTreeMap::new();
    let id = StreamId::new(Role::Client, Direction::Bidi, 0);
    streams.insert(
        id,
        MyRecvStream {
            fc: conn.open_stream(id).unwrap(),
            read: 0,
        },
    );
    // A window-limited transfer: the peer sends up to every limit, the
    // application reads at once, a MAX_STREAM_DATA goes out per packet
    // where due, and the timer fires when it says.
    let mut now = 0;
    let mut changes = Vec::new();
    for _ in 0..20_000 {
        now += 10; // 10 µs per packet: far faster than the window allows
        let s = streams.get_mut(&id).unwrap();
        let end = (s.fc.fc().consumed() + 1_200)
            .min(s.fc.fc().limit())
            .min(conn.connection().limit() - conn.connection().consumed() + s.fc.fc().consumed());
        conn.on_data(&mut s.fc, end, false).unwrap();
        s.read = end;
        conn.retire_to(&mut s.fc, s.read).unwrap();
        if let Some(limit) = conn.stream_update(&mut s.fc, at(now), rtt()) {
            s.fc.update_acked(limit);
        }
        if let Some(limit) = conn.connection_update(at(now), rtt()) {
            conn.connection_update_acked(limit);
        }
        if conn.next_timeout().is_some_and(|t| t <= at(now)) {
            conn.on_timeout(at(now), rtt(), |visit| {
                streams.values_mut().for_each(|s| visit(&mut s.fc));
            });
        }
        changes.extend(conn.drain_changes());
    }
    let s = &streams[&id];
    let reasons: Vec<_> = changes.iter().map(|c| (c.subject, c.reason)).collect();
    // Seeded from the connection's estimate (1 MiB / 2 = 512 KiB).
    assert_eq!(changes[0].reason, ChangeReason::Seed);
    assert_eq!(changes[0].new, 512 << 10);
    // Tuned.
    assert!(reasons.contains(&(Subject::Stream(id), ChangeReason::AutoTune)));
    // The connection floor followed the stream window.
    assert!(reasons.contains(&(Subject::Connection, ChangeReason::ConnectionFloor)));
    assert!(conn.connection().window() >= s.fc.fc().window() * 3 / 2);
    // Every reported change is what the controllers now hold.
    let last_stream = changes
        .iter()
        .rev()
        .find(|c| c.subject == Subject::Stream(id))
        .unwrap();
    assert_eq!(last_stream.new, s.fc.fc().window());
    assert_eq!(conn.committed(), s.fc.fc().credit());
    assert!(conn.committed() <= conn.budget());
}

/// The owning `ConnectionReceiver` is `ConnectionFlow` plus a map: the
/// same inputs give the same frames and window changes.
#[test]
fn owning_and_non_owning_give_the_same_frames() {
    let config = Config::default().validate().unwrap();
    let mut owner = ConnectionReceiver::new(Role::Server, config);
    let mut flow = ConnectionFlow::new(config);
    let ids: Vec<StreamId> = (0..3)
        .map(|k| StreamId::new(Role::Client, Direction::Bidi, k))
        .collect();
    let mut mine: Vec<StreamReceiver> = ids
        .iter()
        .map(|&id| flow.open_stream(id).unwrap())
        .collect();
    for &id in &ids {
        owner.on_data(id, 0, false).unwrap();
    }
    let mut offsets = [0u64; 3];
    for step in 1..5_000u64 {
        let now = at(step * 50);
        for (k, &id) in ids.iter().enumerate() {
            // Stream k reads at (k+1)/3 of the pace.
            let end = (offsets[k] + 1_000).min(mine[k].fc().limit());
            flow.on_data(&mut mine[k], end, false).unwrap();
            owner.on_data(id, end, false).unwrap();
            offsets[k] = end;
            if step % 3 <= k as u64 {
                flow.retire_to(&mut mine[k], end).unwrap();
                owner.retire_to(id, end).unwrap();
            }
        }
        if flow.next_timeout().is_some_and(|t| t <= now) {
            flow.on_timeout(now, rtt(), |visit| mine.iter_mut().for_each(visit));
        }
        if owner.next_timeout().is_some_and(|t| t <= now) {
            owner.on_timeout(now, rtt());
        }
        let mut a = Vec::new();
        while let Some(f) = owner.next_update(now, rtt()) {
            owner.update_acked(f);
            a.push(f);
        }
        let mut b = Vec::new();
        for (k, &id) in ids.iter().enumerate() {
            if let Some(limit) = flow.stream_update(&mut mine[k], now, rtt()) {
                mine[k].update_acked(limit);
                b.push(UpdateFrame::MaxStreamData { id, limit });
            }
        }
        if let Some(limit) = flow.connection_update(now, rtt()) {
            flow.connection_update_acked(limit);
            b.push(UpdateFrame::MaxData(limit));
        }
        a.sort_by_key(|f| format!("{f:?}"));
        b.sort_by_key(|f| format!("{f:?}"));
        assert_eq!(a, b, "step {step}");
        let ca: Vec<_> = owner.drain_changes().collect();
        let cb: Vec<_> = flow.drain_changes().collect();
        assert_eq!(ca.len(), cb.len(), "step {step}");
    }
    assert_eq!(owner.flow().committed(), flow.committed());
    assert_eq!(owner.flow().estimate(), flow.estimate());
}

/// The application's runtime setters (neqo's `set_stream_max_data`,
/// quinn's `set_receive_window`): up makes an update due at once, down
/// keeps every limit already advertised, the connection window never
/// drops below the floor that covers its streams, and both stay within
/// the configured maxima.
#[test]
fn application_set_windows_keep_advertised_limits_and_the_floor() {
    let config = Config {
        budget: None,
        ..Config::default()
    }
    .validate()
    .unwrap();
    let mut conn = ConnectionFlow::new(config);
    let id = StreamId::new(Role::Client, Direction::Uni, 0);
    let mut s = conn.open_stream(id).unwrap();
    let limit = conn.connection().limit();
    let window = conn.connection().window();

    assert_eq!(conn.set_connection_window(4 * window), 4 * window);
    assert!(conn.connection_update_due());
    assert_eq!(conn.connection_update(at(1), rtt()), Some(4 * window));

    // Down: the advertised limit stays; the floor (3/2 × the stream
    // window) bounds how far it goes.
    assert_eq!(conn.set_connection_window(1), s.fc().window() * 3 / 2);
    assert_eq!(conn.connection().limit(), 4 * window);
    assert!(!conn.connection_update_due());

    // Capped at the configured maxima.
    let max = config.get().max_connection_window;
    assert_eq!(conn.set_connection_window(u64::MAX), max);
    let stream_max = config.get().max_stream_window;
    assert_eq!(conn.set_stream_window(&mut s, u64::MAX), stream_max);
    assert!(s.update_due());
    assert!(limit < conn.connection().limit());
}
