//! Hostile frames, one case each: final size changes, frames for closed
//! streams, a *_BLOCKED flood, and peer streams never refused for our own.

use std::time::Duration;

use neqo_fc::{
    Config, Direction, Error, ExcessTuner, MAX_VARINT, ReceiverFlowControl, Role, Rtt, StreamId,
    UpdateFrame,
};

use super::{client_bidi, receiver, server, small, snap, snap_all};
use crate::common::{self, blocked, fire_timer};

#[test]
fn final_size_changes_are_errors() {
    let mut rx = server(common::config_512k());
    let id = client_bidi(0);
    assert_eq!(rx.on_data(id, 100, false), Ok(100));
    // FIN below data already received.
    assert_eq!(
        rx.on_data(id, 99, true),
        Err(Error::FinalSize {
            known: 100,
            received: 99
        })
    );
    assert_eq!(rx.on_data(id, 1000, true), Ok(900));
    // Repeated identical final size: fine, nothing new.
    assert_eq!(rx.on_data(id, 1000, true), Ok(0));
    assert_eq!(rx.on_data(id, 1000, false), Ok(0));
    let before = snap_all(&rx, &[id]);
    for (end, fin) in [(999, true), (1001, true), (1001, false), (0, true)] {
        let e = rx.on_data(id, end, fin).unwrap_err();
        assert_eq!(
            e,
            Error::FinalSize {
                known: 1000,
                received: end
            }
        );
        assert_eq!(e.code(), 0x06);
        assert_eq!(snap_all(&rx, &[id]), before);
        // A RESET_STREAM with another final size: the same error.
        let e = rx.reset_received(id, end).unwrap_err();
        assert_eq!(e.code(), 0x06);
        assert_eq!(snap_all(&rx, &[id]), before);
    }
    // A final size past the limit is FLOW_CONTROL_ERROR, not FINAL_SIZE.
    let id2 = client_bidi(1);
    let limit = common::config_512k().initial_stream_window;
    let consumed = rx.flow().connection().consumed();
    assert_eq!(
        rx.on_data(id2, limit + 1, true),
        Err(Error::FlowControl {
            received: limit + 1,
            limit
        })
    );
    // The rejected data opens the stream (its id was valid; the old
    // receiver opened nothing) but accounts nothing and fixes no final
    // size.
    let s = rx.stream(id2).expect("a valid id opens its stream");
    assert_eq!((s.consumed(), s.final_size()), (0, None));
    assert_eq!(rx.flow().connection().consumed(), consumed);
    assert_eq!(rx.on_data(id2, limit, true), Ok(limit));
}

#[test]
fn frames_for_closed_streams_are_ignored() {
    let mut rx = server(common::config_512k());
    let now = common::at(5);
    let rtt = Rtt::from_sample(Duration::from_millis(20));
    let (a, b) = (client_bidi(0), client_bidi(1));
    // a is read to its end (FIN), so closing it forgets it.
    rx.on_data(a, 40_000, true).unwrap();
    rx.on_data(b, 50_000, false).unwrap();
    rx.retire_to(a, 40_000).unwrap();
    rx.retire_to(b, 30_000).unwrap();
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
        let frame = UpdateFrame::MaxStreamData { id: a, limit };
        rx.update_lost(frame);
        rx.update_acked(frame);
        assert_eq!(rx.stream_data_blocked_received(a, limit), Ok(false));
        assert_eq!(rx.retire_to(a, limit), Ok(0));
        // Data, a FIN or a reset for it: ignored, nothing reopens it —
        // unless it changes the final size (RFC 9000 §4.5).
        let end = limit.min(MAX_VARINT);
        let data = rx.on_data(a, end, false);
        let reset = rx.reset_received(a, end);
        if end <= 40_000 {
            assert_eq!(data, Ok(0));
        } else {
            assert_eq!(data.unwrap_err().code(), 0x06);
        }
        if end == 40_000 {
            assert_eq!(reset, Ok(0));
        } else {
            assert_eq!(reset.unwrap_err().code(), 0x06);
        }
        assert_eq!(rx.on_data(a, 40_000, true), Ok(0));
        rx.close_stream(a);
        assert_eq!(snap_all(&rx, &[a, b]), before, "limit {limit}");
    }
    // Streams never opened: same (the peer could not open this one: far
    // beyond MAX_STREAMS).
    let ghost = client_bidi(1 << 38);
    let frame = UpdateFrame::MaxStreamData {
        id: ghost,
        limit: 7,
    };
    rx.update_lost(frame);
    rx.update_acked(frame);
    assert_eq!(
        rx.stream_data_blocked_received(ghost, 7)
            .unwrap_err()
            .code(),
        0x04
    );
    rx.close_stream(ghost);
    assert_eq!(rx.on_data(ghost, 7, false).unwrap_err().code(), 0x04);
    assert_eq!(snap_all(&rx, &[a, b, ghost]).0, before.0);
    assert_eq!(snap_all(&rx, &[a, b]), before);
    // Nothing is due for the closed stream (MAX_STREAMS is: it closed).
    let mut sent = Vec::new();
    while let Some(u) = rx.next_update(now, rtt) {
        assert!(
            !matches!(u, UpdateFrame::MaxStreamData { id, .. } if id == a),
            "{u:?}"
        );
        sent.push(u);
    }
    assert!(sent.contains(&UpdateFrame::MaxStreams {
        direction: Direction::Bidi,
        limit: 101
    }));
}

#[test]
fn blocked_flood_grows_nothing() {
    for config in [
        common::config_512k(),
        small(true),
        small(false),
        Config {
            seed_fraction: None,
            budget: None,
            ..common::config_512k()
        },
    ] {
        let mut rx = server(config);
        let rtt = Rtt::from_sample(Duration::from_millis(20));
        let id = client_bidi(0);
        let mut now = common::at(0);
        // The sender fills the stream's limit; the reader reads nothing.
        rx.on_data(id, config.initial_stream_window, false).unwrap();
        common::drive(&mut rx, now, rtt);
        let filled = rx.stream(id).unwrap().limit();
        rx.on_data(id, filled, false).unwrap();
        common::drive(&mut rx, now, rtt);
        let _ = rx.drain_changes().count();
        let before = snap_all(&rx, &[id]);
        assert!(!rx.update_pending());
        for i in 0..10_000u32 {
            blocked(&mut rx, Some(id));
            blocked(&mut rx, None);
            if i % 100 == 0 {
                // A stack fires the rebalancing timer when it is due
                // (every 20 ms here) and writes what is due.
                now += Duration::from_millis(1);
                fire_timer(&mut rx, now, rtt);
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
    let config = Config {
        initial_stream_window: 1000,
        ..common::config_512k()
    };
    let mut fc = ReceiverFlowControl::new(client_bidi(0), &config.validate().unwrap());
    fc.on_data(1000, false).unwrap();
    let before = snap(&fc);
    for _ in 0..10_000 {
        fc.blocked_received(fc.limit());
    }
    assert!(!fc.update_due());
    assert_eq!(
        fc.send_update(
            common::at(1000),
            Rtt::from_sample(Duration::from_millis(10)),
            &ExcessTuner::DEFAULT
        ),
        None
    );
    assert_eq!(snap(&fc), before);
}

/// `Config::max_open_streams()` (2 × bidi + uni) bounds the receive sides
/// a connection holds: the peer's streams by our MAX_STREAMS, our own
/// bidirectional ones by `max_streams_bidi` (`open_local_stream` refuses
/// more). So our own streams never take a slot the peer may use, and a
/// legal frame from the peer always opens its stream (found by the test
/// port: our streams used to use up the slots, and the refused peer stream
/// was left half-open, its data dropped uncounted).
#[test]
fn local_streams_never_cost_the_peer_a_stream_it_may_open() {
    // Default limits: the server may open 100 + 100 streams toward us; it
    // let us open 300 bidirectional streams of our own.
    let mut rx = receiver(Role::Client, common::config_512k());
    let opened = (0..300)
        .filter(|&k| {
            rx.open_local_stream(StreamId::new(Role::Client, Direction::Bidi, k))
                .is_ok()
        })
        .count();
    assert_eq!(opened, 100, "max_streams_bidi of our own");
    // The server's first unidirectional stream, within MAX_STREAMS (100).
    let peer = StreamId::new(Role::Server, Direction::Uni, 0);
    assert!(peer.index() < rx.max_streams(Direction::Uni));
    let first = rx.on_data(peer, 10, false);
    // Whatever the first frame got, the stream is not half-open: data past
    // its limit is FLOW_CONTROL_ERROR, not silently dropped.
    let past = rx.on_data(peer, 1 << 40, false);
    assert_eq!(
        past.map_err(|e| e.code()),
        Err(0x03),
        "first frame: {first:?}"
    );
    assert_eq!(first, Ok(10));
}
