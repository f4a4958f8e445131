//! Receive-side flow control, one rule per test, each at its exact boundary
//! (one byte before and after every threshold). RFC 9000 §4.1 (limits),
//! §4.2 (updates), §4.5 (final size), §16 / §19.8 (2^62 − 1).

mod common;

use std::{cell::Cell, time::Duration};

use common::{Fixed, at, ms};
use neqo_fc::{
    ChangeReason, Config, Connection, ConnectionFlow, Error, ExcessTuner, FlowSubject, Fraction,
    MAX_VARINT, ReceiverFlowControl, Rtt, StreamId, Subject, SubjectKind, TuneInput, Tuner,
    ValidConfig, WindowChange,
};

const ID: StreamId = StreamId(4);

/// The cap on windows in these tests: far above any window they reach, so
/// only the tuner under test decides.
const CAP: u64 = 1 << 30;

fn rtt() -> Option<Rtt> {
    Rtt::from_sample(ms(50))
}

/// Both initial windows at `window` (the limit and the window a controller
/// starts with), caps at [`CAP`], the given update fraction.
fn config(window: u64, fraction: Fraction) -> ValidConfig {
    Config {
        initial_stream_window: window,
        initial_connection_window: window,
        max_stream_window: CAP,
        max_connection_window: CAP,
        update_fraction: fraction,
        ..Config::default()
    }
    .validate()
    .expect("valid test config")
}

fn stream(limit: u64) -> ReceiverFlowControl<StreamId> {
    ReceiverFlowControl::new(ID, &config(limit, Fraction::QUARTER))
}

fn conn(limit: u64) -> ReceiverFlowControl<Connection> {
    ReceiverFlowControl::new(Connection, &config(limit, Fraction::QUARTER))
}

/// A single stream whose window may be as large as a QUIC value allows
/// (one stream: `max_open_streams() × window ≤ 2^62 − 1`).
fn huge_config() -> ValidConfig {
    Config {
        initial_stream_window: MAX_VARINT,
        initial_connection_window: MAX_VARINT,
        max_stream_window: MAX_VARINT,
        max_connection_window: MAX_VARINT,
        max_streams_bidi: 0,
        max_streams_uni: 1,
        ..Config::default()
    }
    .validate()
    .expect("one stream may have a 2^62 − 1 window")
}

/// Every observable getter, for "a failing call changes nothing".
#[derive(Debug, PartialEq, Eq)]
struct Snapshot {
    window: u64,
    limit: u64,
    consumed: u64,
    retired: u64,
    unretired: u64,
    credit: u64,
    acked_limit: u64,
    final_size: Option<u64>,
    update_due: bool,
    /// The full `Debug` rendering also covers the private fields.
    debug: String,
}

/// The final size, for snapshots of either kind of controller (only a
/// stream has one).
trait FinalSize {
    fn final_size_if_any(&self) -> Option<u64>;
}

impl FinalSize for ReceiverFlowControl<StreamId> {
    fn final_size_if_any(&self) -> Option<u64> {
        self.final_size()
    }
}

impl FinalSize for ReceiverFlowControl<Connection> {
    fn final_size_if_any(&self) -> Option<u64> {
        None
    }
}

fn snap<S: FlowSubject>(fc: &ReceiverFlowControl<S>) -> Snapshot
where
    ReceiverFlowControl<S>: FinalSize,
{
    Snapshot {
        window: fc.window(),
        limit: fc.limit(),
        consumed: fc.consumed(),
        retired: fc.retired(),
        unretired: fc.unretired(),
        credit: fc.credit(),
        acked_limit: fc.acked_limit(),
        final_size: fc.final_size_if_any(),
        update_due: fc.update_due(),
        debug: format!("{fc:?}"),
    }
}

/// Runs a call that must fail on `fc`, checks the error and that no state
/// changed.
fn assert_fails<S: FlowSubject, T: std::fmt::Debug>(
    fc: &mut ReceiverFlowControl<S>,
    call: impl FnOnce(&mut ReceiverFlowControl<S>) -> Result<T, Error>,
    want: Error,
    code: u64,
) where
    ReceiverFlowControl<S>: FinalSize,
{
    let before = snap(fc);
    let got = call(fc).expect_err("call must fail");
    assert_eq!(got, want);
    assert_eq!(got.code(), code);
    assert_eq!(snap(fc), before, "a failing call changed state");
}

// ---- RFC 9000 §4.1: data up to the limit --------------------------------

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
    assert_fails(
        &mut s,
        |s| s.on_data(1001, false),
        Error::FlowControl {
            received: 1001,
            limit: 1000,
        },
        0x03,
    );
    assert_eq!(s.on_data(500, false), Ok(500));
    assert_fails(
        &mut s,
        |s| s.on_data(1001, false),
        Error::FlowControl {
            received: 1001,
            limit: 1000,
        },
        0x03,
    );
}

#[test]
fn fin_at_limit_ok_one_past_is_flow_control_error() {
    let mut s = stream(1000);
    assert_fails(
        &mut s,
        |s| s.on_data(1001, true),
        Error::FlowControl {
            received: 1001,
            limit: 1000,
        },
        0x03,
    );
    assert_fails(
        &mut s,
        |s| s.reset_received(1001),
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
        assert_fails(
            &mut s,
            |s| s.reset_received(other),
            Error::FinalSize {
                known: 600,
                received: other,
            },
            0x06,
        );
        assert_fails(
            &mut s,
            |s| s.on_data(other, true),
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
    assert_fails(
        &mut s,
        |s| s.reset_received(499),
        Error::FinalSize {
            known: 500,
            received: 499,
        },
        0x06,
    );
    assert_fails(
        &mut s,
        |s| s.on_data(499, true),
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
    assert_fails(
        &mut s,
        |s| s.on_data(601, false),
        Error::FinalSize {
            known: 600,
            received: 601,
        },
        0x06,
    );
    // Past the final size but also past the limit: the final size rule wins.
    assert_fails(
        &mut s,
        |s| s.on_data(1001, false),
        Error::FinalSize {
            known: 600,
            received: 1001,
        },
        0x06,
    );
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
    assert_eq!(s.acked_limit(), MAX_VARINT);
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
    let s = ReceiverFlowControl::new(ID, &config(8, Fraction::ONE));
    assert_eq!(s.update_fraction(), Fraction::ONE);
}

// ---- Retiring ----------------------------------------------------------------

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
    assert_fails(
        &mut s,
        |s| s.on_data(limit + 1, false),
        Error::FlowControl {
            received: limit + 1,
            limit,
        },
        0x03,
    );
    assert_fails(
        &mut s,
        |s| s.on_data(limit + 1, true),
        Error::FlowControl {
            received: limit + 1,
            limit,
        },
        0x03,
    );
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

// ---- RFC 9000 §4.2: when an update is due -----------------------------------

/// With a constant window `w`, an update is due exactly when
/// `fraction × w` bytes were retired since the limit was set.
fn check_update_threshold<S: FlowSubject>(
    mut fc: ReceiverFlowControl<S>,
    w: u64,
    threshold: u64,
    mut receive: impl FnMut(&mut ReceiverFlowControl<S>, u64),
    mut retire: impl FnMut(&mut ReceiverFlowControl<S>, u64),
) {
    assert_eq!(fc.window(), w);
    let mut now = at(0);
    let mut retired = 0;
    for round in 0..3 {
        // Receive everything allowed, then retire up to one byte short.
        let limit = fc.limit();
        receive(&mut fc, limit);
        retire(&mut fc, retired + threshold - 1);
        assert!(!fc.update_due(), "round {round}: one byte short is not due");
        assert_eq!(fc.send_update(now, rtt(), &Fixed), None);
        retire(&mut fc, retired + threshold);
        assert!(fc.update_due(), "round {round}: exactly the threshold");
        now += ms(10);
        let u = fc.send_update(now, rtt(), &Fixed).expect("due");
        retired += threshold;
        assert_eq!(u.limit, retired + w);
        assert_eq!(fc.limit(), retired + w);
        assert_eq!(u.change, None);
        assert!(!fc.update_due());
    }
}

fn stream_case(fraction: Fraction, w: u64, threshold: u64) {
    check_update_threshold(
        ReceiverFlowControl::new(ID, &config(w, fraction)),
        w,
        threshold,
        |s, end| {
            s.on_data(end, false).unwrap();
        },
        |s, off| {
            s.retire_to(off).unwrap();
        },
    );
}

fn conn_case(fraction: Fraction, w: u64, threshold: u64) {
    check_update_threshold(
        ReceiverFlowControl::new(Connection, &config(w, fraction)),
        w,
        threshold,
        |c, end| c.consume(end - c.consumed()).unwrap(),
        |c, total| c.add_retired(total - c.retired()).unwrap(),
    );
}

#[test]
fn update_due_at_a_quarter() {
    stream_case(Fraction::QUARTER, 1000, 250);
    conn_case(Fraction::QUARTER, 1000, 250);
}

#[test]
fn update_due_at_a_half() {
    stream_case(Fraction::HALF, 1000, 500);
    conn_case(Fraction::HALF, 1000, 500);
}

#[test]
fn update_due_at_one_only_when_exhausted() {
    stream_case(Fraction::ONE, 1000, 1000);
    conn_case(Fraction::ONE, 1000, 1000);
}

#[test]
fn received_but_unread_data_never_makes_an_update_due() {
    let mut s = stream(1000);
    s.on_data(1000, false).unwrap();
    assert!(!s.update_due());
    assert_eq!(s.send_update(at(1), rtt(), &Fixed), None);
    assert_eq!(s.limit(), 1000);
}

#[test]
fn blocked_makes_update_due_only_if_the_limit_can_be_extended() {
    let mut s = stream(1000);
    s.on_data(1000, false).unwrap();
    s.blocked_received(s.limit());
    // Nothing retired: the limit cannot be extended.
    assert!(!s.update_due());
    assert_eq!(s.send_update(at(1), rtt(), &Fixed), None);
    // One byte retired: extendable, but less than the smallest extension
    // worth answering a *_BLOCKED with (an eighth of the 250-byte
    // threshold: 31 bytes), so a byte-by-byte reader cannot turn every
    // read into an update.
    s.retire_to(1).unwrap();
    assert!(!s.update_due());
    s.retire_to(30).unwrap();
    assert!(!s.update_due());
    // 31 bytes: due, below the ¼ threshold.
    s.retire_to(31).unwrap();
    assert!(s.update_due());
    let u = s.send_update(at(2), rtt(), &Fixed).unwrap();
    assert_eq!(u.limit, 1031);
    // The report was consumed by that update.
    s.retire_to(62).unwrap();
    assert!(!s.update_due());
    // Without a blocked report the same 31 bytes are not enough.
    let mut t = stream(1000);
    t.on_data(1000, false).unwrap();
    t.retire_to(31).unwrap();
    assert!(!t.update_due());

    let mut c = conn(1000);
    c.consume(1000).unwrap();
    c.blocked_received(c.limit());
    assert!(!c.update_due());
    c.add_retired(30).unwrap();
    assert!(!c.update_due());
    c.add_retired(1).unwrap();
    assert!(c.update_due());
    assert_eq!(c.send_update(at(1), rtt(), &Fixed).unwrap().limit, 1031);
}

/// A *_BLOCKED counts only once the data received reaches the limit the
/// peer says it is blocked at (issue #6: a peer flooding *_BLOCKED must
/// not make updates, and tuning steps, come sooner than retirement does).
/// A stack that writes an update a whole threshold after it became due
/// rations its updates (neqo 0.30's pacer): from then on a *_BLOCKED no
/// longer makes one due before the threshold, as a sliver of credit would
/// spend the stack's next update. A stack that writes them on time keeps
/// the early answer.
#[test]
fn blocked_gets_no_early_answer_once_an_update_was_written_a_threshold_late() {
    // Window 1000, threshold 250, *_BLOCKED step 31. `lag` bytes are read
    // while the second update, due at 749 retired, waits to be written.
    let run = |lag: u64| {
        let mut s = stream(1000);
        s.on_data(250, false).unwrap();
        s.retire_to(250).unwrap();
        assert_eq!(s.send_update(at(1), rtt(), &Fixed).unwrap().limit, 1250);
        s.on_data(749 + lag, false).unwrap();
        s.retire_to(749).unwrap();
        assert!(s.update_due());
        s.retire_to(749 + lag).unwrap();
        let limit = s.send_update(at(2), rtt(), &Fixed).unwrap().limit;
        assert_eq!(limit, 1749 + lag);
        // 100 more arrive and are read (≥ the step, < the threshold), and
        // the peer reports blocked at 800, which the data passed.
        s.on_data(849 + lag, false).unwrap();
        s.retire_to(849 + lag).unwrap();
        assert!(!s.update_due());
        assert!(s.blocked_received(800));
        s
    };
    // 249 read while it waited: one byte short of a threshold late.
    let s = run(249);
    assert!(!s.updates_held_back());
    assert!(s.update_due(), "on time: the claim is answered early");
    // 250: a threshold late.
    let mut s = run(250);
    assert!(s.updates_held_back());
    assert!(!s.update_due(), "held back: no early answer");
    assert_eq!(s.send_update(at(3), rtt(), &Fixed), None);
    // The threshold still makes an update due: 250 read since the limit.
    s.on_data(1249, false).unwrap();
    s.retire_to(1248).unwrap();
    assert!(!s.update_due());
    s.retire_to(1249).unwrap();
    assert!(s.update_due());
    assert_eq!(s.send_update(at(4), rtt(), &Fixed).unwrap().limit, 2249);
    // Never cleared: that update was on time, the next claim still waits.
    s.on_data(1349, false).unwrap();
    s.retire_to(1349).unwrap();
    assert!(s.blocked_received(1300));
    assert!(s.updates_held_back());
    assert!(!s.update_due());
}

#[test]
fn blocked_counts_only_once_the_data_reaches_the_claimed_limit() {
    let mut s = stream(1000);
    s.on_data(600, false).unwrap();
    s.retire_to(100).unwrap();
    // 100 retired ≥ the 31-byte *_BLOCKED step, but the peer has sent only
    // 600 of its 1000: it is not blocked, and the report changes nothing.
    assert!(s.blocked_received(1000));
    for _ in 0..1000 {
        assert!(s.blocked_received(1000));
    }
    assert!(!s.update_due());
    assert_eq!(s.send_update(at(1), rtt(), &Fixed), None);
    assert_eq!(s.limit(), 1000);
    // The data up to 1000 arrives (it was in flight): the report stands.
    s.on_data(1000, false).unwrap();
    assert!(s.update_due());
    let u = s.send_update(at(2), rtt(), &Fixed).unwrap();
    assert_eq!(u.limit, 1100);
    // That update answered it: 40 more bytes (≥ 31) are not enough now.
    s.retire_to(140).unwrap();
    assert!(!s.update_due());
    // A limit above the one we advertised: no honest peer is blocked
    // there; ignored.
    assert!(!s.blocked_received(1101));
    assert!(!s.update_due());
    // Blocked at the older 1000, which the data reached: a sender starved
    // before our 1100 arrived. It counts (40 ≥ 31 retired).
    assert!(s.blocked_received(1000));
    assert!(s.update_due());
    assert_eq!(s.send_update(at(3), rtt(), &Fixed).unwrap().limit, 1140);
    assert!(!s.update_due());

    // The same at the connection level.
    let mut c = conn(1000);
    c.consume(500).unwrap();
    c.add_retired(200).unwrap();
    assert!(c.blocked_received(1000));
    assert!(
        !c.update_due(),
        "200 < ¼ × 1000 and the report is not borne out"
    );
    c.consume(499).unwrap();
    assert!(!c.update_due());
    c.consume(1).unwrap();
    assert!(c.update_due());
    assert_eq!(c.send_update(at(1), rtt(), &Fixed).unwrap().limit, 1200);
    // Once the final size is known, reports are ignored.
    let mut f = stream(1000);
    f.on_data(500, true).unwrap();
    assert!(!f.blocked_received(1000));
    assert!(!f.blocked_received(500));
}

/// A stream with two updates sent: limits 1250 then 1500.
fn two_updates() -> (ReceiverFlowControl<StreamId>, u64, u64) {
    let mut s = stream(1000);
    s.on_data(1000, false).unwrap();
    s.retire_to(250).unwrap();
    let l1 = s.send_update(at(1), rtt(), &Fixed).unwrap().limit;
    s.on_data(1250, false).unwrap();
    s.retire_to(500).unwrap();
    let l2 = s.send_update(at(2), rtt(), &Fixed).unwrap().limit;
    assert_eq!((l1, l2), (1250, 1500));
    assert!(!s.update_due());
    (s, l1, l2)
}

#[test]
fn losing_the_latest_limit_makes_it_due_again() {
    let (mut s, _, l2) = two_updates();
    s.update_lost(l2);
    assert!(s.update_due());
    let again = s.send_update(at(3), rtt(), &Fixed).unwrap();
    assert_eq!(again.limit, l2);
    assert!(!s.update_due());
}

#[test]
fn losing_an_older_limit_does_not() {
    let (mut s, l1, _) = two_updates();
    s.update_lost(l1);
    assert!(!s.update_due());
    s.update_lost(1000); // the transport parameter, acknowledged by definition
    assert!(!s.update_due());
    s.update_lost(9999); // never sent
    assert!(!s.update_due());
}

#[test]
fn acking_the_latest_limit_clears_a_pending_resend() {
    let (mut s, l1, l2) = two_updates();
    s.update_lost(l2);
    // An ack of an older limit does not help.
    s.update_acked(l1);
    assert_eq!(s.acked_limit(), l1);
    assert!(s.update_due());
    s.update_acked(l2);
    assert_eq!(s.acked_limit(), l2);
    assert!(!s.update_due());
    // Once acknowledged, a late loss report of another copy is moot.
    s.update_lost(l2);
    assert!(!s.update_due());
    // Acks never lower the acknowledged limit.
    s.update_acked(l1);
    assert_eq!(s.acked_limit(), l2);
}

#[test]
fn no_update_once_final_size_is_known() {
    let (mut s, _, l2) = two_updates();
    s.update_lost(l2);
    s.blocked_received(s.limit());
    assert!(s.update_due());
    assert_eq!(s.on_data(1300, true), Ok(50));
    assert!(!s.update_due(), "FIN clears a pending resend");
    s.retire_to(1300).unwrap();
    assert!(!s.update_due());
    s.blocked_received(s.limit());
    s.update_lost(l2);
    assert!(!s.update_due());
    assert_eq!(s.send_update(at(10), rtt(), &Fixed), None);
    assert_eq!(s.limit(), l2);
}

// ---- Seeding and the connection floor --------------------------------------

/// A 256 KiB initial stream window and a ¼ seed, set explicitly so the
/// boundaries below do not move with the defaults. No budget: a stream is
/// seeded from the connection window itself, as the old per-controller
/// `open_stream` did (with a budget the basis is the connection's
/// estimate, which starts at the same value).
fn seed_config(connection_window: u64) -> Config {
    Config {
        initial_stream_window: 256 << 10,
        initial_connection_window: connection_window,
        max_stream_window: 32 << 20,
        max_connection_window: MAX_VARINT,
        update_fraction: Fraction::QUARTER,
        seed_fraction: Some(Fraction::QUARTER),
        budget: None,
        ..Config::default()
    }
}

/// A stream opened through a [`ConnectionFlow`] (the only place streams
/// are seeded now), with the stream's own window change, if any.
fn open_seeded(
    config: Config,
) -> (
    ConnectionFlow<Fixed>,
    neqo_fc::StreamReceiver,
    Option<WindowChange>,
) {
    let mut flow = ConnectionFlow::with_tuner(config.validate().unwrap(), Fixed);
    let s = flow.open_stream(ID).unwrap();
    let change = flow
        .drain_changes()
        .find(|c| c.subject == Subject::Stream(ID));
    (flow, s, change)
}

fn seeded(
    connection_window: u64,
) -> (
    ConnectionFlow<Fixed>,
    neqo_fc::StreamReceiver,
    Option<WindowChange>,
) {
    open_seeded(seed_config(connection_window))
}

#[test]
fn open_stream_seeds_max_of_initial_and_a_quarter_of_the_connection() {
    const INITIAL: u64 = 256 << 10;
    // C / 4 == initial: no seed change.
    let (_, s, change) = seeded(1 << 20);
    assert_eq!(
        (s.fc().window(), s.fc().limit(), change),
        (INITIAL, INITIAL, None)
    );
    assert_eq!(s.seed(), INITIAL);
    // C / 4 one byte above the initial window.
    let (_, s, change) = seeded((1 << 20) + 4);
    assert_eq!(s.fc().window(), INITIAL + 1);
    assert_eq!(
        s.fc().limit(),
        INITIAL,
        "the peer only knows the initial limit"
    );
    assert_eq!(
        change,
        Some(WindowChange {
            subject: Subject::Stream(ID),
            old: INITIAL,
            new: INITIAL + 1,
            reason: ChangeReason::Seed,
            rtt: None,
            elapsed: None,
            now: None,
        })
    );
    // Capped at the maximum stream window.
    let (_, s, change) = seeded(1 << 40);
    assert_eq!(s.fc().window(), 32 << 20);
    assert_eq!(change.unwrap().new, 32 << 20);
}

#[test]
fn seed_makes_an_early_update_due_only_when_it_exceeds_initial_by_the_threshold() {
    const INITIAL: u64 = 256 << 10;
    // Due when seed − initial ≥ ⌊seed / 4⌋: first at seed = 349_525.
    let (mut flow, mut s, _) = seeded(4 * 349_525);
    assert_eq!(s.fc().window(), 349_525);
    assert_eq!(349_525 - INITIAL, 349_525 / 4);
    assert!(s.update_due());
    assert_eq!(flow.stream_update(&mut s, at(8), rtt()), Some(349_525));
    assert!(!s.update_due());

    let (_, s, _) = seeded(4 * 349_525 - 1);
    assert_eq!(s.fc().window(), 349_524);
    assert!(!s.update_due());

    // A large connection window: the new stream starts at C / 4 at once.
    let (mut flow, mut s, _) = seeded(8 << 20);
    assert!(s.update_due());
    assert_eq!(flow.stream_update(&mut s, at(8), rtt()), Some(2 << 20));
}

#[test]
fn seeding_disabled_or_initial_above_seed_keeps_initial() {
    let (_, s, change) = open_seeded(Config {
        seed_fraction: None,
        ..seed_config(16 << 20)
    });
    assert_eq!((s.fc().window(), change), (256 << 10, None));
    assert!(!s.update_due());
    // A transport parameter above the seed: the window starts there.
    let (_, s, change) = open_seeded(Config {
        initial_stream_window: 1 << 20,
        ..seed_config(512 << 10)
    });
    assert_eq!(
        (s.fc().window(), s.fc().limit(), change),
        (1 << 20, 1 << 20, None)
    );
}

#[test]
fn connection_floor_raises_to_three_halves_of_the_stream_window() {
    let mut c = conn(1000);
    assert_eq!(c.cover_stream_window(666, Fraction::THREE_HALVES), None);
    assert_eq!(c.window(), 1000);
    assert_eq!(
        c.cover_stream_window(668, Fraction::THREE_HALVES),
        Some(WindowChange {
            subject: Subject::Connection,
            old: 1000,
            new: 1002,
            reason: ChangeReason::ConnectionFloor,
            rtt: None,
            elapsed: None,
            now: None,
        })
    );
    assert_eq!(
        c.cover_stream_window(1000, Fraction::THREE_HALVES)
            .unwrap()
            .new,
        1500
    );
    assert!(2 * c.window() >= 3 * 1000);
    // Never lowers it.
    assert_eq!(c.cover_stream_window(10, Fraction::THREE_HALVES), None);
    assert_eq!(c.window(), 1500);
    // The limit follows through the next update: 1500 − 1000 ≥ ¼ × 1500.
    assert!(c.update_due());
    assert_eq!(c.send_update(at(6), rtt(), &Fixed).unwrap().limit, 1500);
}

/// With no floor (0, allowed without a budget, as neqo main runs) a
/// stream seeded above the connection window leaves the connection window
/// where it was; with the default 3/2 the same stream raises it.
#[test]
fn no_connection_floor_leaves_the_connection_window_to_its_own_tuning() {
    let (flow, s, _) = open_seeded(Config {
        connection_floor: Fraction::ZERO,
        ..seed_config(8 << 20)
    });
    assert_eq!(s.fc().window(), 2 << 20, "seeded at ¼ of 8 MiB");
    assert_eq!(flow.connection().window(), 8 << 20);
    let (flow, s, _) = open_seeded(Config {
        connection_floor: Fraction::ZERO,
        initial_stream_window: 12 << 20,
        ..seed_config(8 << 20)
    });
    assert_eq!(s.fc().window(), 12 << 20);
    assert_eq!(flow.connection().window(), 8 << 20, "below the stream's");
    let (flow, _, _) = open_seeded(Config {
        initial_stream_window: 12 << 20,
        ..seed_config(8 << 20)
    });
    assert_eq!(flow.connection().window(), 18 << 20, "3/2 × 12 MiB");
}

/// The floor is exact: `2 × C ≥ 3 × S` also for odd stream windows (the
/// product is rounded up, not down).
#[test]
fn connection_floor_holds_for_odd_stream_windows() {
    let mut c = conn(1000);
    c.cover_stream_window(667, Fraction::THREE_HALVES);
    assert!(
        2 * c.window() >= 3 * 667,
        "connection window {} < 1.5 × 667",
        c.window()
    );
    assert_eq!(c.window(), 1001, "the smallest window that covers it");
}

// ---- Window changes from tuning ---------------------------------------------

/// A tuner that records what the controller passed and grows by a set
/// amount, to check the plumbing independently of the default formula.
struct Recording {
    last: Cell<Option<TuneInput>>,
    calls: Cell<u32>,
    grow_by: u64,
}

impl Recording {
    fn new(grow_by: u64) -> Self {
        Self {
            last: Cell::new(None),
            calls: Cell::new(0),
            grow_by,
        }
    }
}

impl Tuner for Recording {
    fn tune(&self, input: &TuneInput) -> u64 {
        self.last.set(Some(*input));
        self.calls.set(self.calls.get() + 1);
        input.window + self.grow_by
    }
}

/// Reads up to `to` in two calls, one byte and then the rest, as a reader
/// that reads while data arrives does (one call that takes all an
/// interval's bytes is a reader that slept through it: see
/// `a_reader_that_slept_through_an_interval_needs_no_second_step`).
fn read_in_two(s: &mut ReceiverFlowControl<StreamId>, to: u64) {
    s.retire_to((s.retired() + 1).min(to)).unwrap();
    s.retire_to(to).unwrap();
}

/// The tuner is told a step was drained at the limit only when the
/// application read everything and the peer had sent up to the limit, and
/// how many such steps came in a row.
#[test]
fn drained_steps_need_everything_read_up_to_the_limit() {
    let rtt = Rtt::from_sample(ms(100));
    let step = |received: u64, read: u64| {
        let mut s = ReceiverFlowControl::new(StreamId(4), &config(1_000, Fraction::QUARTER));
        let t = Recording::new(0);
        s.on_data(250, false).unwrap();
        s.retire_to(250).unwrap();
        s.send_update(at(0), rtt, &t).unwrap();
        s.on_data(received, false).unwrap();
        read_in_two(&mut s, read);
        s.send_update(at(500), rtt, &t).unwrap();
        let first = t.last.get().unwrap().drained_steps;
        // The same again: a second step in a row.
        let end = s.limit().min(s.consumed() + received - 250);
        s.on_data(end, false).unwrap();
        read_in_two(&mut s, end - (received - read));
        s.send_update(at(1000), rtt, &t).unwrap();
        (first, t.last.get().unwrap().drained_steps)
    };
    // Limit 1_250 after the first update.
    assert_eq!(step(1_250, 1_250), (1, 2));
    // Data left unread: the reader, not the window, set the pace.
    assert_eq!(step(1_250, 1_249), (0, 0));
    // The peer had credit left: it, not the window, set the pace.
    assert_eq!(step(1_249, 1_249), (0, 0));
}

/// A reader on a timer reads, in one call, everything that arrived while it
/// slept. When that one read took all of an interval's bytes and the peer
/// had used all its credit, the window alone bounded the interval, however
/// long it was: one such step counts as two drained steps, so the tuner
/// judges it over one RTT at once rather than a wake-up later. The same
/// bytes read in two calls — a reader awake while they arrived, whose peer
/// may only have caught up with the limit at the end — count as one; a
/// peer with credit left proves nothing, however the reader read.
#[test]
fn a_reader_that_slept_through_an_interval_needs_no_second_step() {
    let rtt = Rtt::from_sample(ms(100));
    let run = |one_read: bool, short_of_limit: u64, tuner: &dyn Tuner| {
        let mut s = ReceiverFlowControl::new(StreamId(4), &config(1_000, Fraction::QUARTER));
        s.on_data(250, false).unwrap();
        s.retire_to(250).unwrap();
        s.send_update(at(0), rtt, tuner).unwrap();
        let end = s.limit() - short_of_limit;
        s.on_data(end, false).unwrap();
        if one_read {
            s.retire_to(end).unwrap();
        } else {
            read_in_two(&mut s, end);
        }
        // Two RTTs after the previous step: a reader on a 2-RTT timer.
        s.send_update(at(200), rtt, tuner).unwrap();
        s.window()
    };
    let steps = |one_read: bool, short_of_limit: u64| {
        let t = Recording::new(0);
        run(one_read, short_of_limit, &t);
        t.last.get().unwrap().drained_steps
    };
    assert_eq!(steps(true, 0), 2);
    assert_eq!(steps(false, 0), 1);
    assert_eq!(steps(true, 1), 0);
    // With the default rule: one window in two RTTs is less than the
    // window carries in that time, but it is all a reader that wakes every
    // two RTTs could get — judged over one RTT, it grows the window.
    let default = ExcessTuner::DEFAULT;
    assert!(run(true, 0, &default) > 1_000);
    assert_eq!(run(false, 0, &default), 1_000);
}

/// A reader on a timer drains its buffer at every wake-up; after a step
/// that grew the window, the peer's congestion window takes a while to
/// ramp into the new credit. That step (all read, limit not reached)
/// keeps the streak rather than breaking it — and one with data left
/// unread still breaks it.
#[test]
fn a_step_ramping_into_growth_keeps_the_drained_streak() {
    let rtt = Rtt::from_sample(ms(100));
    let run = |leave_unread: u64| {
        let mut s = ReceiverFlowControl::new(StreamId(4), &config(1_000, Fraction::QUARTER));
        let t = Recording::new(1_000);
        s.on_data(250, false).unwrap();
        s.retire_to(250).unwrap();
        s.send_update(at(0), rtt, &t).unwrap();
        let mut seen = Vec::new();
        // Drained at the limit: the window grows.
        let limit = s.limit();
        s.on_data(limit, false).unwrap();
        read_in_two(&mut s, limit);
        s.send_update(at(200), rtt, &t).unwrap();
        seen.push(t.last.get().unwrap().drained_steps);
        // The peer sends only part of the new credit.
        let part = s.limit() - 1_000;
        s.on_data(part, false).unwrap();
        read_in_two(&mut s, part - leave_unread);
        s.send_update(at(400), rtt, &t).unwrap();
        seen.push(t.last.get().unwrap().drained_steps);
        // Drained at the limit again (the first call reads what was left
        // unread and one new byte).
        let limit = s.limit();
        s.on_data(limit, false).unwrap();
        s.retire_to(s.retired() + leave_unread + 1).unwrap();
        s.retire_to(limit).unwrap();
        s.send_update(at(600), rtt, &t).unwrap();
        seen.push(t.last.get().unwrap().drained_steps);
        seen
    };
    assert_eq!(run(0), [1, 1, 2]);
    assert_eq!(run(1), [1, 0, 1]);
}

/// The tuner is told how much was read between the moment an update
/// became due and the moment the stack wrote it — not what one large read
/// made due at once, nor what waited while a cap held the update back.
#[test]
fn an_update_written_late_tells_the_tuner_what_was_read_meanwhile() {
    let rtt = Rtt::from_sample(ms(100));
    let late_by = |reads: &[u64], capped_at: Option<u64>| {
        let mut s = ReceiverFlowControl::new(StreamId(0), &config(1_000_000, Fraction::QUARTER));
        let t = Recording::new(0);
        s.on_data(250_000, false).unwrap();
        s.retire_to(250_000).unwrap();
        s.send_update(at(1000), rtt, &t).unwrap();
        s.on_data(1_250_000, false).unwrap();
        for (i, &to) in reads.iter().enumerate() {
            s.retire_to(to).unwrap();
            if i == 1
                && let Some(cap) = capped_at
            {
                assert_eq!(s.send_update_capped(at(1050), rtt, &t, cap), None);
            }
        }
        s.send_update(at(1100), rtt, &t).unwrap();
        t.last.get().unwrap().late
    };
    // Due at 500_000 (a quarter window retired), written at 900_000.
    assert_eq!(late_by(&[500_000, 700_000, 900_000], None), 400_000);
    // One read made it due at 900_000 and it went out at once.
    assert_eq!(late_by(&[900_000], None), 0);
    // Held back by a cap at 700_000: only what was read after the cap's
    // refusal counts.
    assert_eq!(
        late_by(&[500_000, 700_000, 900_000], Some(1_250_000)),
        200_000
    );
}

#[test]
fn tuning_gets_exact_inputs_and_reports_exact_changes() {
    let rtt = Rtt::new(ms(150), ms(100));
    let mut s = ReceiverFlowControl::new(StreamId(8), &config(1_000_000, Fraction::QUARTER));
    // Data arrives as it is read, so the bytes that flowed through an
    // interval (received and retired) equal the bytes retired.
    s.on_data(250_000, false).unwrap();
    s.retire_to(250_000).unwrap();
    // The first step only records the time: the tuner is not asked.
    let t = Recording::new(1000);
    let u = s.send_update(at(1000), rtt, &t).unwrap();
    assert_eq!((u.limit, u.change, t.calls.get()), (1_250_000, None, 0));
    s.on_data(1_250_000, false).unwrap();
    read_in_two(&mut s, 1_250_000);
    let u = s.send_update(at(1100), rtt, &t).unwrap();
    assert_eq!(
        t.last.get(),
        Some(TuneInput {
            kind: SubjectKind::Stream,
            window: 1_000_000,
            max_window: CAP,
            delivered: 1_000_000,
            elapsed: ms(100),
            rtt: rtt.unwrap(),
            update_fraction: Fraction::QUARTER,
            // Everything up to the limit arrived and was read.
            drained_steps: 1,
            late: 0,
        })
    );
    assert_eq!(
        u.change,
        Some(WindowChange {
            subject: Subject::Stream(StreamId(8)),
            old: 1_000_000,
            new: 1_001_000,
            reason: ChangeReason::AutoTune,
            rtt: Some(ms(100)), // min_rtt: what the default tuner divides by
            elapsed: Some(ms(100)),
            now: Some(at(1100)),
        })
    );
    // The new window is in the limit sent with this very update.
    assert_eq!(u.limit, 1_250_000 + 1_001_000);
    // An update a *_BLOCKED triggered (one byte short of the threshold) is
    // sent without asking the tuner; its bytes and time carry over.
    let same = Recording::new(0);
    s.on_data(2_251_000, false).unwrap();
    s.retire_to(1_500_249).unwrap();
    assert!(!s.update_due(), "250_249 < ¼ × 1_001_000");
    s.blocked_received(s.limit());
    let u = s.send_update(at(1150), rtt, &same).unwrap();
    assert_eq!((u.limit, u.change, same.calls.get()), (2_501_249, None, 0));
    // Exactly the threshold since that limit: a tuning step over everything
    // since the previous step (150 ms, 500_499 bytes).
    s.retire_to(1_750_499).unwrap();
    let u = s.send_update(at(1250), rtt, &same).unwrap();
    assert_eq!((u.limit, u.change, same.calls.get()), (2_751_499, None, 1));
    let last = same.last.get().unwrap();
    assert_eq!((last.elapsed, last.delivered), (ms(150), 500_499));
    // A resend after a loss does not tune either.
    s.update_lost(2_751_499);
    let u = s.send_update(at(1260), rtt, &same).unwrap();
    assert_eq!((u.limit, u.change, same.calls.get()), (2_751_499, None, 1));
    // A clock that goes backwards: no panic, and (new rule) no tuning step
    // — the update is sent, the tuner is not asked, and the interval stays
    // open: its bytes and time carry over to the next step.
    s.on_data(2_751_499, false).unwrap();
    s.retire_to(2_000_749).unwrap();
    let u = s.send_update(at(10), rtt, &same).unwrap();
    assert_eq!((u.limit, u.change, same.calls.get()), (3_001_749, None, 1));
    // The same `now` as the last step (a zero interval): likewise.
    s.on_data(3_001_749, false).unwrap();
    s.retire_to(2_251_000).unwrap();
    let u = s.send_update(at(1250), rtt, &same).unwrap();
    assert_eq!((u.limit, u.change, same.calls.get()), (3_252_000, None, 1));
    // No RTT sample: the update goes out, nothing is tuned.
    s.on_data(3_252_000, false).unwrap();
    s.retire_to(2_501_250).unwrap();
    let u = s.send_update(at(1300), None, &same).unwrap();
    assert_eq!((u.limit, u.change, same.calls.get()), (3_502_250, None, 1));
    // The next step with time moving forward and a sample measures from the
    // step at 1250 ms: 100 ms, and the bytes both received and read since
    // (retired 1_750_499 → 2_751_500, consumed 2_251_000 → 3_502_250).
    s.on_data(3_502_250, false).unwrap();
    s.retire_to(2_751_500).unwrap();
    let u = s.send_update(at(1350), rtt, &same).unwrap();
    assert_eq!((u.limit, u.change, same.calls.get()), (3_752_500, None, 2));
    let last = same.last.get().unwrap();
    assert_eq!((last.elapsed, last.delivered), (ms(100), 1_001_001));
}

/// Data that waited unread in the buffer across a tuning step and is then
/// read in a burst did not flow in the new interval: the tuner sees only
/// bytes both received and retired since the last step.
#[test]
fn draining_old_buffered_data_does_not_count_as_rate() {
    let t = Recording::new(1000);
    let rtt = Rtt::from_sample(ms(100));
    let mut s = ReceiverFlowControl::new(StreamId(8), &config(1_000_000, Fraction::QUARTER));
    s.on_data(250_000, false).unwrap();
    s.retire_to(250_000).unwrap();
    s.send_update(at(0), rtt, &t).unwrap();
    // 750 kB arrive; the reader takes 250 kB of them.
    s.on_data(1_000_000, false).unwrap();
    s.retire_to(500_000).unwrap();
    s.send_update(at(100), rtt, &t).unwrap();
    assert_eq!(t.last.get().unwrap().delivered, 250_000);
    // Nothing new arrives; the reader drains the 500 kB left, 10 ms later.
    s.retire_to(1_000_000).unwrap();
    s.send_update(at(110), rtt, &t).unwrap();
    let last = t.last.get().unwrap();
    assert_eq!((last.delivered, last.elapsed), (0, ms(10)));
}

#[test]
fn default_tuner_doubles_a_window_limited_flow() {
    let tuner = ExcessTuner::DEFAULT;
    let rtt = Rtt::from_sample(ms(100));
    let mut s = ReceiverFlowControl::new(StreamId(8), &config(1_000_000, Fraction::QUARTER));
    s.on_data(250_000, false).unwrap();
    s.retire_to(250_000).unwrap();
    s.send_update(at(1000), rtt, &tuner).unwrap();
    s.on_data(1_250_000, false).unwrap();
    s.retire_to(1_250_000).unwrap();
    let input = TuneInput {
        kind: SubjectKind::Stream,
        window: 1_000_000,
        max_window: CAP,
        delivered: 1_000_000,
        elapsed: ms(100),
        rtt: rtt.unwrap(),
        update_fraction: Fraction::QUARTER,
        // The step below is drained at the limit (all read, up to the
        // limit), the first in a row: that changes nothing.
        drained_steps: 0,
        late: 0,
    };
    let change = s
        .send_update(at(1100), rtt, &tuner)
        .unwrap()
        .change
        .unwrap();
    assert_eq!(change.new, tuner.tune(&input));
    // A whole window retired in one RTT: at least slow start's doubling.
    assert!(change.new >= 2_000_000, "{change:?}");
    assert_ne!(change.old, change.new);
}

#[test]
fn connection_tuning_reports_connection_subject() {
    let t = Recording::new(7);
    let mut c = conn(1_000_000);
    c.consume(250_000).unwrap();
    c.add_retired(250_000).unwrap();
    assert_eq!(c.send_update(at(0), rtt(), &t).unwrap().change, None);
    c.consume(1_000_000).unwrap();
    c.add_retired(1_000_000).unwrap();
    let change = c.send_update(at(50), rtt(), &t).unwrap().change.unwrap();
    assert_eq!(t.last.get().unwrap().kind, SubjectKind::Connection);
    assert_eq!(t.last.get().unwrap().delivered, 1_000_000);
    assert_eq!(
        change,
        WindowChange {
            subject: Subject::Connection,
            old: 1_000_000,
            new: 1_000_007,
            reason: ChangeReason::AutoTune,
            rtt: Some(ms(50)),
            elapsed: Some(ms(50)),
            now: Some(at(50)),
        }
    );
}

#[test]
fn set_window_never_lowers_the_advertised_limit() {
    let (mut s, _, l2) = two_updates();
    let change = s.set_window(100, ChangeReason::Budget).unwrap();
    assert_eq!(
        (change.old, change.new, change.reason),
        (1000, 100, ChangeReason::Budget)
    );
    assert_eq!(s.limit(), l2);
    assert_eq!(s.set_window(100, ChangeReason::Budget), None);
    // retired 500 + 100 < 1500: nothing to extend even after more reads.
    s.on_data(1500, false).unwrap();
    s.retire_to(1399).unwrap();
    assert!(!s.update_due());
    s.retire_to(1400).unwrap(); // target 1500 = limit
    assert!(!s.update_due());
    s.retire_to(1425).unwrap(); // target 1525: 25 ≥ ¼ × 100
    assert!(s.update_due());
    assert_eq!(s.send_update(at(10), rtt(), &Fixed).unwrap().limit, 1525);
    // raise_window never lowers.
    assert_eq!(s.raise_window(50, ChangeReason::Seed), None);
    assert_eq!(s.window(), 100);
}

/// A tuner that asks for half the window: the trait contract says the
/// controller keeps `max(old, returned)`.
struct Shrinking;

impl Tuner for Shrinking {
    fn tune(&self, input: &TuneInput) -> u64 {
        input.window / 2
    }
}

/// The `Tuner` contract: the controller keeps `max(old, returned)`.
#[test]
fn a_tuner_cannot_shrink_the_window() {
    let mut s = stream(1000);
    s.on_data(1000, false).unwrap();
    s.retire_to(250).unwrap();
    s.send_update(at(0), rtt(), &Shrinking).unwrap();
    s.on_data(1250, false).unwrap();
    s.retire_to(500).unwrap();
    let u = s.send_update(at(50), rtt(), &Shrinking).unwrap();
    assert_eq!(u.change, None);
    assert_eq!(s.window(), 1000);
}

/// A *_BLOCKED-triggered update soon after a threshold update must not
/// turn one small read burst into window growth: a slow reader (the window
/// carries 2.6 MB/s) reads 8 KiB — the smallest extension worth answering
/// the *_BLOCKED with — 0.5 ms after the last update.
#[test]
fn blocked_update_does_not_tune_on_a_read_burst() {
    let tuner = ExcessTuner::DEFAULT;
    let rtt = Rtt::from_sample(ms(100));
    let w = 256 << 10;
    let mut s = stream(w);
    s.on_data(w, false).unwrap();
    s.retire_to(w / 4).unwrap();
    assert_eq!(s.send_update(at(0), rtt, &tuner).unwrap().change, None);
    s.on_data(w + w / 4, false).unwrap();
    // Another quarter window after 500 ms: far below what the window
    // carries (expected 983_040), no growth.
    s.retire_to(w / 2).unwrap();
    assert_eq!(s.send_update(at(500), rtt, &tuner).unwrap().change, None);
    // The sender fills its limit and reports being blocked; the reader
    // reads a small burst.
    s.on_data(s.limit(), false).unwrap();
    assert!(s.blocked_received(s.limit()));
    s.retire_to(w / 2 + w / 32).unwrap();
    let u = s.send_update(at(500) + Duration::from_micros(500), rtt, &tuner);
    assert_eq!(u.unwrap().change, None, "window grew on a slow reader");
    assert_eq!(s.window(), w);
}
