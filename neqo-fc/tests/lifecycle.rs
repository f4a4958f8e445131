//! Stream lifecycle as RFC 9000 §2–§4 has it, through
//! `ConnectionReceiver`: closed streams stay closed and are counted once,
//! resets charge their final size, limits are per direction and initiator
//! by stream index, and our own streams are ours to open.

use std::{
    sync::LazyLock,
    time::{Duration, Instant},
};

use neqo_fc::{
    Config, ConnectionReceiver, Direction, Error, Role, Rtt, StreamId, UpdateFrame, ValidConfig,
};

static BASE: LazyLock<Instant> = LazyLock::new(Instant::now);

fn at(ms: u64) -> Instant {
    *BASE + Duration::from_millis(ms)
}

fn rtt() -> Option<Rtt> {
    Rtt::from_sample(Duration::from_millis(20))
}

fn config() -> ValidConfig {
    Config::default().validate().unwrap()
}

/// The client's `k`-th bidirectional stream (the peer of a server).
fn client_bidi(k: u64) -> StreamId {
    StreamId::new(Role::Client, Direction::Bidi, k)
}

#[test]
fn a_late_frame_for_a_closed_stream_is_counted_once_and_does_not_reopen_it() {
    let mut rx = ConnectionReceiver::new(Role::Server, config());
    let id = client_bidi(0);
    rx.on_data(id, 60_000, true).unwrap();
    rx.retire_to(id, 60_000).unwrap();
    rx.close_stream(id);
    assert!(rx.stream(id).is_none());
    assert_eq!(rx.flow().connection().consumed(), 60_000);
    // A retransmission of the same data arrives after the close.
    assert_eq!(rx.on_data(id, 60_000, true).unwrap(), 0);
    assert_eq!(rx.on_data(id, 30_000, false).unwrap(), 0);
    assert_eq!(
        rx.flow().connection().consumed(),
        60_000,
        "not charged again"
    );
    assert!(rx.stream(id).is_none(), "not reopened");
    assert_eq!(rx.streams().count(), 0);
    assert_eq!(rx.flow().committed(), 0);
    // Nor by a reset or a *_BLOCKED.
    assert_eq!(rx.reset_received(id, 60_000).unwrap(), 0);
    assert_eq!(rx.stream_data_blocked_received(id, 60_000), Ok(false));
    assert!(rx.stream(id).is_none());
}

#[test]
fn our_own_streams_do_not_use_the_peers_stream_limit() {
    let cfg = Config {
        max_streams_bidi: 2,
        ..Config::default()
    }
    .validate()
    .unwrap();
    let mut rx = ConnectionReceiver::new(Role::Client, cfg);
    // Two bidirectional streams of our own (client-initiated: 0 and 4).
    rx.open_local_stream(StreamId(0)).unwrap();
    rx.open_local_stream(StreamId(4)).unwrap();
    // The server's first and second bidirectional streams are accepted.
    rx.on_data(StreamId(1), 100, false).unwrap();
    rx.on_data(StreamId(5), 100, false).unwrap();
    // Its third is beyond MAX_STREAMS (bidi) = 2: STREAM_LIMIT_ERROR.
    let err = rx.on_data(StreamId(9), 100, false).unwrap_err();
    assert_eq!(err.code(), 0x04);
    assert!(matches!(err, Error::StreamLimit { limit: 2, .. }));
    // Its unidirectional streams have their own limit (100).
    rx.on_data(StreamId(3), 100, false).unwrap();
    assert_eq!(rx.streams().count(), 5);
}

#[test]
fn data_on_our_own_unopened_or_send_only_streams_is_a_stream_state_error() {
    let mut rx = ConnectionReceiver::new(Role::Client, config());
    // Client-initiated bidirectional stream 0, not opened yet.
    assert_eq!(rx.on_data(StreamId(0), 1, false).unwrap_err().code(), 0x05);
    // Client-initiated unidirectional: send-only for us.
    assert_eq!(rx.on_data(StreamId(2), 1, false).unwrap_err().code(), 0x05);
    assert!(rx.open_local_stream(StreamId(2)).is_err());
    assert!(rx.open_local_stream(StreamId(1)).is_err(), "the server's");
    rx.open_local_stream(StreamId(0)).unwrap();
    assert_eq!(rx.on_data(StreamId(0), 1, false).unwrap(), 1);
    assert_eq!(rx.flow().connection().consumed(), 1);
}

#[test]
fn using_a_stream_opens_the_lower_numbered_ones() {
    let mut rx = ConnectionReceiver::new(Role::Server, config());
    rx.on_data(client_bidi(3), 10, false).unwrap();
    assert_eq!(rx.streams().count(), 4, "RFC 9000 §3.2");
    for k in 0..3 {
        assert_eq!(rx.stream(client_bidi(k)).unwrap().consumed(), 0);
    }
    // Each holds its initial credit; they count against the budget.
    assert_eq!(rx.flow().committed(), 4 * config().initial_stream_window);
}

#[test]
fn a_reset_for_a_stream_never_seen_charges_its_final_size() {
    let mut rx = ConnectionReceiver::new(Role::Server, config());
    let id = client_bidi(0);
    assert_eq!(rx.reset_received(id, 40_000).unwrap(), 40_000);
    let c = rx.flow().connection();
    assert_eq!((c.consumed(), c.retired()), (40_000, 40_000));
    assert!(rx.stream(id).is_none(), "closed by the reset");
    assert_eq!(rx.flow().committed(), 0);
    // Past the stream's limit: FLOW_CONTROL_ERROR, as data would be.
    let err = rx.reset_received(client_bidi(1), 10 << 20).unwrap_err();
    assert_eq!(err.code(), 0x03);
    // A changed final size after data with FIN: FINAL_SIZE_ERROR.
    rx.on_data(client_bidi(2), 1_000, true).unwrap();
    let err = rx.reset_received(client_bidi(2), 999).unwrap_err();
    assert_eq!(err.code(), 0x06);
}

#[test]
fn a_reset_releases_what_was_buffered() {
    let mut rx = ConnectionReceiver::new(Role::Server, config());
    let id = client_bidi(0);
    rx.on_data(id, 50_000, false).unwrap();
    rx.retire_to(id, 10_000).unwrap();
    assert_eq!(rx.flow().connection().unretired(), 40_000);
    assert_eq!(rx.reset_received(id, 55_000).unwrap(), 5_000);
    assert_eq!(rx.flow().connection().unretired(), 0);
    assert_eq!(rx.flow().connection().consumed(), 55_000);
}

#[test]
fn closing_before_the_final_size_keeps_counting_until_it_arrives() {
    let mut rx = ConnectionReceiver::new(Role::Server, config());
    let id = client_bidi(0);
    rx.on_data(id, 20_000, false).unwrap();
    rx.close_stream(id); // the application stops reading (STOP_SENDING)
    assert_eq!(rx.flow().connection().unretired(), 0, "released at once");
    assert!(rx.stream(id).is_some(), "still counted");
    // Data still in flight is charged and released as it comes.
    assert_eq!(rx.on_data(id, 30_000, false).unwrap(), 10_000);
    assert_eq!(rx.flow().connection().unretired(), 0);
    // The final size (the peer's RESET_STREAM) closes it for good.
    assert_eq!(rx.reset_received(id, 35_000).unwrap(), 5_000);
    assert!(rx.stream(id).is_none());
    assert_eq!(rx.flow().connection().consumed(), 35_000);
    assert_eq!(rx.flow().connection().retired(), 35_000);
}

#[test]
fn closed_peer_streams_raise_max_streams_by_index() {
    let cfg = Config {
        max_streams_uni: 2,
        ..Config::default()
    }
    .validate()
    .unwrap();
    let mut rx = ConnectionReceiver::new(Role::Client, cfg);
    let server_uni = |k| StreamId::new(Role::Server, Direction::Uni, k);
    rx.on_data(server_uni(0), 10, true).unwrap();
    rx.on_data(server_uni(1), 10, true).unwrap();
    assert!(rx.on_data(server_uni(2), 10, true).is_err());
    rx.retire_to(server_uni(0), 10).unwrap();
    rx.close_stream(server_uni(0));
    let mut frames = Vec::new();
    while let Some(f) = rx.next_update(at(1), rtt()) {
        frames.push(f);
    }
    assert_eq!(
        frames,
        [UpdateFrame::MaxStreams {
            direction: Direction::Uni,
            limit: 3
        }]
    );
    assert_eq!(rx.max_streams(Direction::Uni), 3);
    assert_eq!(rx.max_streams(Direction::Bidi), 100);
    rx.on_data(server_uni(2), 10, true).unwrap();
    // A lost MAX_STREAMS is sent again; an acknowledged one is not.
    rx.update_lost(frames[0]);
    assert_eq!(rx.next_update(at(3), rtt()), Some(frames[0]));
    rx.update_acked(frames[0]);
    rx.update_lost(frames[0]);
    assert_eq!(rx.next_update(at(4), rtt()), None);
    assert!(rx.streams_blocked_received(Direction::Uni, 3));
    assert!(!rx.streams_blocked_received(Direction::Uni, 4));
}

#[test]
fn stream_ids_past_2_62_are_refused() {
    let mut rx = ConnectionReceiver::new(Role::Server, config());
    let err = rx.on_data(StreamId(1 << 62), 1, false).unwrap_err();
    assert_eq!(err.code(), 0x07);
}
