//! Data up to the limit (RFC 9000 §4.1), the final size (§4.5) and values
//! below 2^62 (§16), each at its exact boundary.

use neqo_fc::{Config, Error, Fraction, MAX_VARINT, ReceiverFlowControl, StreamId};

use super::{ID, assert_fails, assert_final_size_fails, config, conn, huge_config, stream};

#[test]
fn stream_data_exactly_at_limit_is_accepted() {
    let mut s = stream(1000);
    assert_eq!(s.on_data(999, false), Ok(999));
    assert_eq!(s.on_data(1000, false), Ok(1));
    assert_eq!(s.consumed(), 1000);
    // Retransmitted or reordered data below the highest offset adds nothing.
    assert_eq!(s.on_data(400, false), Ok(0));
    assert_eq!(s.consumed(), 1000);
}

#[test]
fn stream_data_one_byte_past_limit_is_flow_control_error() {
    let mut s = stream(1000);
    let one_past = |s: &mut ReceiverFlowControl<StreamId>| {
        assert_fails(
            s,
            |s| s.on_data(1001, false),
            Error::FlowControl {
                received: 1001,
                limit: 1000,
            },
            0x03,
        );
    };
    one_past(&mut s);
    assert_eq!(s.on_data(500, false), Ok(500));
    one_past(&mut s);
}

#[test]
fn fin_at_limit_ok_one_past_is_flow_control_error() {
    let mut s = stream(1000);
    assert_final_size_fails(
        &mut s,
        1001,
        Error::FlowControl {
            received: 1001,
            limit: 1000,
        },
        0x03,
    );
    assert_eq!(s.on_data(1000, true), Ok(1000));
    assert_eq!(s.final_size(), Some(1000));
}

#[test]
fn connection_data_exactly_at_limit_ok_one_past_is_error() {
    let mut c = conn(1000);
    assert_eq!(c.consume(999), Ok(()));
    assert_eq!(c.consume(1), Ok(()));
    assert_eq!(c.consumed(), 1000);
    assert_eq!(c.consume(0), Ok(()));
    assert_fails(
        &mut c,
        |c| c.consume(1),
        Error::FlowControl {
            received: 1001,
            limit: 1000,
        },
        0x03,
    );
    let mut c = conn(1000);
    assert_fails(
        &mut c,
        |c| c.consume(1001),
        Error::FlowControl {
            received: 1001,
            limit: 1000,
        },
        0x03,
    );
    // A huge count saturates instead of wrapping past the check.
    assert_fails(
        &mut c,
        |c| c.consume(u64::MAX),
        Error::FlowControl {
            received: u64::MAX,
            limit: 1000,
        },
        0x03,
    );
}

#[test]
fn stream_and_connection_account_together() {
    let mut c = conn(1500);
    let mut s = stream(1000);
    let n = s.on_data(700, false).unwrap();
    c.consume(n).unwrap();
    let n = s.on_data(300, false).unwrap(); // below the highest offset
    assert_eq!(n, 0);
    let n = s.on_data(1000, true).unwrap();
    assert_eq!(n, 300);
    c.consume(n).unwrap();
    assert_eq!(c.consumed(), 1000);
}

// ---- RFC 9000 §4.5: final size --------------------------------------------

#[test]
fn final_size_change_is_final_size_error() {
    let mut s = stream(1000);
    assert_eq!(s.on_data(500, false), Ok(500));
    assert_eq!(s.reset_received(600), Ok(100));
    // Repeated identical final size: fine, adds nothing.
    assert_eq!(s.reset_received(600), Ok(0));
    assert_eq!(s.on_data(600, true), Ok(0));
    for other in [599, 601, 0, 1000] {
        assert_final_size_fails(
            &mut s,
            other,
            Error::FinalSize {
                known: 600,
                received: other,
            },
            0x06,
        );
    }
}

#[test]
fn fin_below_received_data_is_final_size_error() {
    let mut s = stream(1000);
    assert_eq!(s.on_data(500, false), Ok(500));
    assert_final_size_fails(
        &mut s,
        499,
        Error::FinalSize {
            known: 500,
            received: 499,
        },
        0x06,
    );
    // Exactly at the highest received offset: accepted.
    assert_eq!(s.on_data(500, true), Ok(0));
    assert_eq!(s.final_size(), Some(500));
}

#[test]
fn data_past_known_final_size_is_final_size_error() {
    let mut s = stream(1000);
    assert_eq!(s.reset_received(600), Ok(600));
    // Data up to the final size (a gap being filled) is fine.
    assert_eq!(s.on_data(600, false), Ok(0));
    assert_eq!(s.on_data(100, false), Ok(0));
    // One byte past it, and past the limit too: the final size rule wins.
    for end in [601, 1001] {
        assert_fails(
            &mut s,
            |s| s.on_data(end, false),
            Error::FinalSize {
                known: 600,
                received: end,
            },
            0x06,
        );
    }
}

// ---- RFC 9000 §16: values must be below 2^62 ------------------------------

#[test]
fn max_varint_is_accepted_two_to_the_62_is_value_too_large() {
    let mut s = ReceiverFlowControl::new(ID, &huge_config());
    for (end, fin) in [(1 << 62, false), (1 << 62, true), (u64::MAX, false)] {
        assert_fails(
            &mut s,
            |s| s.on_data(end, fin),
            Error::ValueTooLarge(end),
            0x07,
        );
    }
    assert_fails(
        &mut s,
        |s| s.reset_received(1 << 62),
        Error::ValueTooLarge(1 << 62),
        0x07,
    );
    assert_eq!(s.on_data(MAX_VARINT, false), Ok(MAX_VARINT));
    assert_eq!(s.reset_received(MAX_VARINT), Ok(0));
    assert_eq!(s.final_size(), Some(MAX_VARINT));

    // On a small limit, 2^62 is still a value error, and 2^62 − 1 a flow
    // control error.
    let mut s = stream(1000);
    assert_fails(
        &mut s,
        |s| s.on_data(1 << 62, false),
        Error::ValueTooLarge(1 << 62),
        0x07,
    );
    assert_fails(
        &mut s,
        |s| s.on_data(MAX_VARINT, false),
        Error::FlowControl {
            received: MAX_VARINT,
            limit: 1000,
        },
        0x03,
    );
}

/// A controller never holds a window or limit at or above 2^62, nor an
/// update fraction outside (0, 1]: the old constructor clamped such values;
/// now `Config::validate` refuses them, so no controller is ever built with
/// one, and the largest accepted window (2^62 − 1) is taken as it is.
#[test]
fn windows_are_bounded_by_max_varint_and_fractions_validated() {
    let s = ReceiverFlowControl::new(ID, &huge_config());
    assert_eq!(s.limit(), MAX_VARINT);
    assert_eq!(s.window(), MAX_VARINT);
    assert!(!s.update_due());
    // The initial limit counts as acknowledged: its loss re-sends nothing.
    let mut s = s;
    s.update_lost(MAX_VARINT);
    assert!(!s.update_due());
    let one_stream = *huge_config().get();
    for too_big in [1 << 62, u64::MAX] {
        let c = Config {
            initial_stream_window: too_big,
            max_stream_window: too_big,
            ..one_stream
        };
        assert!(c.validate().is_err(), "stream window {too_big}");
        let c = Config {
            initial_connection_window: too_big,
            max_connection_window: too_big,
            ..one_stream
        };
        assert!(c.validate().is_err(), "connection window {too_big}");
    }
    // An update fraction of 0 or above 1 is refused.
    for bad in [Fraction::new(0, 1).unwrap(), Fraction::new(5, 4).unwrap()] {
        let c = Config {
            update_fraction: bad,
            ..Config::default()
        };
        assert!(c.validate().unwrap_err().0.starts_with("update_fraction"));
    }
    // A fraction of one: an update is due only once the whole window is read.
    let mut s = ReceiverFlowControl::new(ID, &config(8, Fraction::ONE));
    s.on_data(8, false).unwrap();
    s.retire_to(7).unwrap();
    assert!(!s.update_due());
    s.retire_to(8).unwrap();
    assert!(s.update_due());
}
