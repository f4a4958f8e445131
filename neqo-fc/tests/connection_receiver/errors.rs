//! Errors: STREAM_LIMIT_ERROR beyond MAX_STREAMS, FLOW_CONTROL_ERROR and
//! FINAL_SIZE_ERROR; a failing call changes nothing.

use neqo_fc::{Config, ConnectionReceiver, Direction, Error, ExcessTuner, UpdateFrame};

use super::{INITIAL, KIB, changes, open, receiver, rtt, sid, snapshot, updates};
use crate::common::{self, at};

/// What a refused stream must leave as it was: the open streams, the
/// committed credit, the budget, the connection's window and bytes, and
/// whether an update is pending.
fn books(rx: &ConnectionReceiver<ExcessTuner>) -> (usize, u64, u64, u64, u64, bool) {
    (
        rx.streams().count(),
        rx.flow().committed(),
        rx.flow().budget(),
        rx.flow().connection().window(),
        rx.flow().connection().consumed(),
        rx.update_pending(),
    )
}

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
    let before = books(&rx);
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
    let after = books(&rx);
    assert_eq!(before, after);
    assert!(rx.stream(sid(2)).is_none());
    assert!(changes(&mut rx).is_empty());
    assert_eq!(rx.max_streams(Direction::Bidi), 2);
    // Data on a stream that is open still works; closing one (its final
    // size known) makes room once MAX_STREAMS raises the limit to 3.
    rx.on_data(sid(0), 5, true).unwrap();
    rx.close_stream(sid(0));
    assert_eq!(rx.streams().count(), 1);
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
    assert_eq!(rx.streams().count(), 2);
    // Without a budget the limit holds just the same: 200 streams allowed,
    // the 200th (index 199) opens them all, the next one is refused.
    let mut rx = receiver(Config {
        budget: None,
        max_streams_bidi: 200,
        ..common::config_512k()
    });
    open(&mut rx, sid(199), at(0));
    assert_eq!(rx.streams().count(), 200);
    assert_eq!(rx.on_data(sid(200), 0, false).unwrap_err().code(), 0x04);
    assert_eq!(rx.streams().count(), 200);
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
    assert_eq!(rx.flow().connection().unretired(), INITIAL);
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
    assert_eq!(rx.streams().count(), 10);
    assert_eq!(rx.flow().committed(), 10 * INITIAL);
    assert_eq!(rx.flow().connection().consumed(), 0);
    assert_eq!(rx.stream(sid(9)).unwrap().consumed(), 0);
    assert_eq!(changes(&mut rx), changes(&mut twin));
    for i in 0..10 {
        assert_eq!(snapshot(&rx, sid(i)), snapshot(&twin, sid(i)));
    }
    // The next valid frame is accounted as on any open stream.
    assert_eq!(rx.on_data(sid(9), INITIAL, false), Ok(INITIAL));
    assert_eq!(rx.streams().count(), 10);
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
    assert_eq!(rx.streams().count(), 1);
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
