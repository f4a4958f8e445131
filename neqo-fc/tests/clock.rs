//! Time as the stack passes it: a repeated `now` (every datagram of a GRO
//! batch shares one), a `now` that goes backwards, and no RTT sample yet
//! never grow a window; the bytes and time carry over to the next step
//! that can be judged.

use std::{
    sync::LazyLock,
    time::{Duration, Instant},
};

use neqo_fc::{
    ChangeReason, Config, Connection, ExcessTuner, ReceiverFlowControl, Rtt, StreamId, ValidConfig,
};

static BASE: LazyLock<Instant> = LazyLock::new(Instant::now);

fn at(ms: u64) -> Instant {
    *BASE + Duration::from_millis(ms)
}

fn rtt(ms: u64) -> Option<Rtt> {
    Rtt::from_sample(Duration::from_millis(ms))
}

fn config() -> ValidConfig {
    Config {
        seed_fraction: None,
        ..Config::default()
    }
    .validate()
    .unwrap()
}

/// A stream whose first update (which only starts the first tuning
/// interval) went out at `t0`, and which then received and read a whole
/// window.
fn after_one_window(t0: Instant) -> ReceiverFlowControl<StreamId> {
    let mut fc = ReceiverFlowControl::new(StreamId(0), &config());
    let w = fc.window();
    fc.on_data(w / 2, false).unwrap();
    fc.retire_to(w / 2).unwrap();
    assert!(fc.send_update(t0, rtt(50), &ExcessTuner::DEFAULT).is_some());
    let end = fc.limit();
    fc.on_data(end, false).unwrap();
    fc.retire_to(end).unwrap();
    fc
}

#[test]
fn a_repeated_now_does_not_grow_the_window() {
    let t0 = at(0);
    let mut fc = after_one_window(t0);
    let before = fc.window();
    assert_eq!(before, 65_536);
    // Same instant: an interval of zero would make any bytes look like an
    // infinite rate (the old API grew 65,536 → 327,680 here).
    let u = fc.send_update(t0, rtt(50), &ExcessTuner::DEFAULT).unwrap();
    assert_eq!(u.change, None);
    assert_eq!(fc.window(), before);
}

#[test]
fn a_now_that_goes_backwards_does_not_grow_the_window() {
    let t0 = at(100);
    let mut fc = after_one_window(t0);
    let before = fc.window();
    let u = fc
        .send_update(at(40), rtt(50), &ExcessTuner::DEFAULT)
        .unwrap();
    assert_eq!(u.change, None);
    assert_eq!(fc.window(), before);
}

#[test]
fn no_rtt_sample_no_tuning() {
    let t0 = at(0);
    let mut fc = after_one_window(t0);
    let before = fc.window();
    let u = fc.send_update(at(1), None, &ExcessTuner::DEFAULT).unwrap();
    assert_eq!(u.change, None, "updates still go out, unchanged");
    assert_eq!(fc.window(), before);
    // Zero is not a sample: it cannot even be expressed.
    assert!(Rtt::from_sample(Duration::ZERO).is_none());
    assert!(Rtt::new(Duration::from_millis(10), Duration::from_millis(20)).is_none());
}

#[test]
fn an_interval_that_cannot_be_judged_carries_over() {
    // One window read at once (the repeated-now step is skipped), then
    // another window read by 60 ms: the step at 60 ms judges both windows
    // over the whole 60 ms since the interval began. (The last byte stays
    // unread, so the interval is not judged as drained-at-limit.)
    let t0 = at(0);
    let mut fc = after_one_window(t0);
    let w = fc.window();
    fc.send_update(t0, rtt(50), &ExcessTuner::DEFAULT).unwrap();
    let end = fc.limit();
    fc.on_data(end, false).unwrap();
    fc.retire_to(end - 1).unwrap();
    let delivered = fc.retired() - w / 2;
    let u = fc
        .send_update(at(60), rtt(50), &ExcessTuner::DEFAULT)
        .unwrap();
    let change = u.change.expect("grew");
    assert_eq!(change.elapsed, Some(Duration::from_millis(60)));
    assert_eq!(change.reason, ChangeReason::AutoTune);
    // The default rule over the carried interval: expected = ¾ × 15/16 ×
    // w × 60/50; excess × the bonus.
    let expected = w * 3 / 4 * 15 / 16 * 60 / 50;
    let bonus = ExcessTuner::DEFAULT.bonus;
    assert_eq!(change.new, w + bonus * (delivered - expected));
}

#[test]
fn the_connection_controller_follows_the_same_rule() {
    let cfg = config();
    let mut c = ReceiverFlowControl::new(Connection, &cfg);
    let w = c.window();
    c.consume(w / 2).unwrap();
    c.add_retired(w / 2).unwrap();
    c.send_update(at(0), rtt(20), &ExcessTuner::DEFAULT)
        .unwrap();
    let more = c.limit() - c.consumed();
    c.consume(more).unwrap();
    c.add_retired(more).unwrap();
    let u = c
        .send_update(at(0), rtt(20), &ExcessTuner::DEFAULT)
        .unwrap();
    assert_eq!(u.change, None);
    assert_eq!(c.window(), w);
}
