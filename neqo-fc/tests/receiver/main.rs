//! Receive-side flow control, one rule per test, each at its exact boundary
//! (one byte before and after every threshold). RFC 9000 §4.1 (limits),
//! §4.2 (updates), §4.5 (final size), §16 / §19.8 (2^62 − 1).

#[path = "../common/mod.rs"]
mod common;

mod limits;
mod retiring;
mod seeding;
mod tuning;
mod updates;

use common::{Fixed, at, ms};
use neqo_fc::{
    Config, Connection, Error, FlowSubject, Fraction, ReceiverFlowControl, Rtt, StreamId,
    ValidConfig,
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
    common::one_huge_stream(Config::default())
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

/// A FIN at `size` and a RESET_STREAM with final size `size` both fail on
/// `s` with `want` (error code `code`) and change nothing.
fn assert_final_size_fails(
    s: &mut ReceiverFlowControl<StreamId>,
    size: u64,
    want: Error,
    code: u64,
) {
    assert_fails(s, |s| s.on_data(size, true), want, code);
    assert_fails(s, |s| s.reset_received(size), want, code);
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
