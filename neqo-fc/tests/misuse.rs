//! What a confused stack or a hostile peer can do that the RFC or the
//! crate's docs cover (issue #30): a stream handed to the wrong
//! connection, change logs never drained, absurd stream counts, and the
//! RFC 9000 cases around stream state and final sizes.

mod common;

use common::{base, rtt_ms};
use neqo_fc::{
    Config, ConnectionFlow, ConnectionReceiver, Direction, MAX_OWNED_STREAMS, MAX_PENDING_CHANGES,
    Role, StreamId,
};

fn uni(role: Role, index: u64) -> StreamId {
    StreamId::new(role, Direction::Uni, index)
}

fn bidi(role: Role, index: u64) -> StreamId {
    StreamId::new(role, Direction::Bidi, index)
}

/// Finding 4: the docs promise that a `StreamReceiver` passed to another
/// `ConnectionFlow`, or a clone closed twice, breaks only the books; it
/// panicked in the budget's arithmetic.
#[test]
fn a_stream_of_another_connection_or_closed_twice_does_not_panic() {
    let config = Config::default().validate().unwrap();
    let mut a = ConnectionFlow::new(config);
    let mut b = ConnectionFlow::new(config);
    let rtt = rtt_ms(30);
    let mut s = a.open_stream(uni(Role::Client, 0)).unwrap();
    let _ = a.stream_update(&mut s, base(), rtt);
    let _ = a.on_data(&mut s, 300_000, false);
    let _ = a.retire_to(&mut s, 300_000);
    // The same stream, driven through the other connection.
    let _ = b.on_data(&mut s, 400_000, false);
    let _ = b.retire_to(&mut s, 400_000);
    let _ = b.stream_update(&mut s, common::at(5), rtt);
    let twin = s.clone();
    b.close_stream(s);
    b.close_stream(twin.clone());
    a.close_stream(twin);
    // Both connections still answer.
    assert_eq!(b.open_streams(), 0);
    let _ = b.connection_update(common::at(6), rtt);
    let _ = a.connection_update(common::at(6), rtt);
    let mut t = a.open_stream(uni(Role::Client, 1)).unwrap();
    let _ = a.stream_update(&mut t, common::at(7), rtt);
}

/// Finding 5: a peer that opens and resets streams in a loop left a
/// window change per stream in the log, growing without bound while the
/// stack never drained it.
#[test]
fn the_change_log_is_bounded_when_never_drained() {
    let config = Config::default().validate().unwrap();
    let mut rx = ConnectionReceiver::new(Role::Server, config);
    let rtt = rtt_ms(30);
    for i in 0..20_000 {
        rx.reset_received(uni(Role::Client, i), 0).unwrap();
        // The stack writes MAX_STREAMS so the peer may go on.
        while rx.next_update(base(), rtt).is_some() {}
    }
    // More changes were made than kept: the log is full, no larger.
    let kept = rx.drain_changes().count();
    assert_eq!(kept, MAX_PENDING_CHANGES);
    // Drained, the log starts again.
    assert_eq!(rx.drain_changes().count(), 0);
}

/// Finding 7: with `max_streams_*` up to 2^60 one frame on a high stream
/// index allocated a few hundred bytes per lower stream; the receiver
/// that owns the streams holds at most `MAX_OWNED_STREAMS` of each type.
#[test]
fn a_receiver_owning_its_streams_bounds_how_many_it_opens() {
    let config = Config {
        initial_stream_window: 1,
        max_stream_window: 1,
        max_streams_bidi: 1 << 40,
        max_streams_uni: 1 << 40,
        ..Config::default()
    }
    .validate()
    .unwrap();
    let mut rx = ConnectionReceiver::new(Role::Server, config);
    assert_eq!(rx.max_streams(Direction::Uni), MAX_OWNED_STREAMS);
    assert_eq!(rx.max_streams(Direction::Bidi), MAX_OWNED_STREAMS);
    let err = rx
        .on_data(uni(Role::Client, 1 << 39), 1, false)
        .unwrap_err();
    assert_eq!(err.code(), 0x04);
    assert!(err.to_string().contains("65536 streams"), "{err}");
    assert_eq!(rx.streams().count(), 0);
    // The highest allowed one opens the lower ones: a bounded number.
    rx.on_data(uni(Role::Client, MAX_OWNED_STREAMS - 1), 1, false)
        .unwrap();
    assert_eq!(rx.streams().count() as u64, MAX_OWNED_STREAMS);
}

/// Finding 8: RFC 9000 cases the API could not express.
#[test]
fn stream_data_blocked_on_a_send_only_stream_is_a_stream_state_error() {
    let config = Config::default().validate().unwrap();
    let mut rx = ConnectionReceiver::new(Role::Server, config);
    // §19.13: STREAM_DATA_BLOCKED for one of our unidirectional streams.
    let err = rx
        .stream_data_blocked_received(uni(Role::Server, 0), 10)
        .unwrap_err();
    assert_eq!(err.code(), 0x05);
    // Beyond MAX_STREAMS: STREAM_LIMIT_ERROR, as for a STREAM frame.
    let err = rx
        .stream_data_blocked_received(uni(Role::Client, 100), 10)
        .unwrap_err();
    assert_eq!(err.code(), 0x04);
    // A new peer stream: it opens (§3.2).
    assert_eq!(
        rx.stream_data_blocked_received(uni(Role::Client, 3), 0),
        Ok(true)
    );
    assert_eq!(rx.streams().count(), 4);
}

#[test]
fn opening_a_local_stream_opens_the_lower_ones() {
    let config = Config::default().validate().unwrap();
    let mut rx = ConnectionReceiver::new(Role::Client, config);
    rx.open_local_stream(bidi(Role::Client, 2)).unwrap();
    // §3.2: streams 0 and 1 of ours exist too; the peer's data on them is
    // counted against the connection limit, not dropped.
    assert!(rx.stream(bidi(Role::Client, 0)).is_some());
    assert_eq!(rx.on_data(bidi(Role::Client, 1), 1_000, false), Ok(1_000));
    assert_eq!(rx.flow().connection().consumed(), 1_000);
    // The limit counts them all: 100 open at once.
    let err = rx.open_local_stream(bidi(Role::Client, 100)).unwrap_err();
    assert_eq!(err.code(), 0x04);
    assert_eq!(rx.streams().count(), 3);
    rx.open_local_stream(bidi(Role::Client, 99)).unwrap();
    assert_eq!(rx.streams().count(), 100);
}

#[test]
fn a_changed_final_size_on_a_closed_stream_is_an_error() {
    let config = Config::default().validate().unwrap();
    let mut rx = ConnectionReceiver::new(Role::Server, config);
    let id = uni(Role::Client, 0);
    rx.on_data(id, 1_000, true).unwrap();
    rx.retire_to(id, 1_000).unwrap();
    rx.close_stream(id);
    assert!(rx.stream(id).is_none());
    // §4.5: the final size cannot change, even after the stream closed.
    assert_eq!(rx.on_data(id, 2_000, false).unwrap_err().code(), 0x06);
    assert_eq!(rx.on_data(id, 900, true).unwrap_err().code(), 0x06);
    assert_eq!(rx.reset_received(id, 1_001).unwrap_err().code(), 0x06);
    // Retransmissions that agree are ignored.
    assert_eq!(rx.on_data(id, 1_000, true), Ok(0));
    assert_eq!(rx.reset_received(id, 1_000), Ok(0));
    assert_eq!(rx.flow().connection().consumed(), 1_000);
}
