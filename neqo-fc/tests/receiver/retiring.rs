//! Retiring what the application read, and failing calls that must
//! change nothing whatever the state.

use neqo_fc::Error;

use super::{Fixed, assert_fails, at, conn, rtt, stream};

#[test]
fn stream_retire_past_consumed_is_error() {
    let mut s = stream(1000);
    s.on_data(500, false).unwrap();
    assert_fails(
        &mut s,
        |s| s.retire_to(501),
        Error::RetiredBeyondReceived {
            retired: 501,
            received: 500,
        },
        0x01,
    );
    assert_eq!(s.retire_to(500), Ok(500));
    // An older offset is a no-op.
    assert_eq!(s.retire_to(400), Ok(0));
    assert_eq!(s.retired(), 500);
    assert_eq!(s.unretired(), 0);
    assert_eq!(s.credit(), 500);
}

#[test]
fn connection_retire_past_consumed_is_error() {
    let mut c = conn(1000);
    c.consume(500).unwrap();
    assert_eq!(c.add_retired(499), Ok(()));
    assert_eq!(c.add_retired(1), Ok(()));
    assert_fails(
        &mut c,
        |c| c.add_retired(1),
        Error::RetiredBeyondReceived {
            retired: 501,
            received: 500,
        },
        0x01,
    );
    assert_fails(
        &mut c,
        |c| c.add_retired(u64::MAX),
        Error::RetiredBeyondReceived {
            retired: u64::MAX,
            received: 500,
        },
        0x01,
    );
    assert_eq!(c.retired(), 500);
}

#[test]
fn failing_calls_change_nothing_in_any_state() {
    // A stream with an update sent, a loss pending and a blocked report:
    // the richest state to corrupt.
    let mut s = stream(1000);
    s.on_data(1000, false).unwrap();
    s.retire_to(250).unwrap();
    let u = s.send_update(at(1), rtt(), &Fixed).unwrap();
    s.update_lost(u.limit);
    s.blocked_received(s.limit());
    assert!(s.update_due());
    let limit = s.limit();
    for fin in [false, true] {
        assert_fails(
            &mut s,
            |s| s.on_data(limit + 1, fin),
            Error::FlowControl {
                received: limit + 1,
                limit,
            },
            0x03,
        );
    }
    assert_fails(
        &mut s,
        |s| s.reset_received(999),
        Error::FinalSize {
            known: 1000,
            received: 999,
        },
        0x06,
    );
    assert_fails(
        &mut s,
        |s| s.on_data(1 << 62, true),
        Error::ValueTooLarge(1 << 62),
        0x07,
    );
    assert_fails(
        &mut s,
        |s| s.retire_to(1001),
        Error::RetiredBeyondReceived {
            retired: 1001,
            received: 1000,
        },
        0x01,
    );
}
