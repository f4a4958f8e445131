//! The two update rules a tuner may ask for instead of the guarded
//! defaults: neqo 0.30's answer to *_BLOCKED
//! ([`neqo_fc::Tuner::answers_blocked_at_once`]) and its tuning step on
//! every update ([`neqo_fc::Tuner::tunes_every_update`]). The owners of a
//! tuner apply them to every controller they make.

mod common;

use std::cell::Cell;

use common::{Rules, at, rtt_ms};
use neqo_fc::{
    Config, ConnectionFlow, Fraction, ReceiverFlowControl, StreamId, TuneInput, Tuner, ValidConfig,
};

fn config() -> ValidConfig {
    Config {
        initial_stream_window: 1_000,
        max_stream_window: 1 << 20,
        update_fraction: Fraction::QUARTER,
        seed_fraction: None,
        ..Config::default()
    }
    .validate()
    .unwrap()
}

/// Records what it is shown, keeps the window, and follows `rules`.
#[derive(Default)]
struct Seen {
    input: Cell<Option<TuneInput>>,
    rules: Rules,
}

impl Tuner for Seen {
    fn tune(&self, input: &TuneInput) -> u64 {
        self.input.set(Some(*input));
        input.window
    }
    fn tunes_every_update(&self) -> bool {
        self.rules.every_update
    }
    fn answers_blocked_at_once(&self) -> bool {
        self.rules.at_once
    }
}

/// neqo: a STREAM_DATA_BLOCKED is answered at once if anything was read
/// since the limit was set, although the data has not reached the limit
/// it names; with nothing read it changes nothing. The guarded rule waits
/// for the data and for an eighth of the quantum.
#[test]
fn at_once_answers_blocked_whenever_something_was_read() {
    let now = at(0);
    for at_once in [true, false] {
        let rules = Rules {
            at_once,
            every_update: false,
        };
        let mut flow = ConnectionFlow::with_tuner(config(), rules);
        let mut s = flow.open_stream(StreamId(0)).unwrap();
        flow.on_data(&mut s, 500, false).unwrap();
        // Nothing read: no answer under either rule.
        assert!(flow.stream_blocked_received(&mut s, 1_000));
        assert!(!s.update_due(), "{rules:?}");
        // One byte read, then the frame again.
        flow.retire_to(&mut s, 1).unwrap();
        flow.stream_blocked_received(&mut s, 1_000);
        assert_eq!(s.update_due(), at_once, "{rules:?}");
        if at_once {
            assert_eq!(flow.stream_update(&mut s, now, rtt_ms(50)), Some(1_001));
            assert!(!s.update_due(), "answered once");
        }
    }
}

/// A bare controller has no tuner to follow: it keeps the guarded rule.
#[test]
fn a_bare_controller_waits_for_the_data() {
    let mut s = ReceiverFlowControl::new(StreamId(0), &config());
    s.on_data(500, false).unwrap();
    s.retire_to(1).unwrap();
    assert!(s.blocked_received(1_000));
    assert!(!s.update_due());
}

/// neqo: every update runs a tuning step over the time since the previous
/// one and shows the tuner the bytes retired in it, even when that is less
/// than a quantum and more than arrived in the interval.
#[test]
fn every_update_tunes_on_short_intervals() {
    for (every_update, tuned) in [(true, Some(200)), (false, None)] {
        let t = Seen {
            input: Cell::default(),
            rules: Rules {
                at_once: true,
                every_update,
            },
        };
        let mut s = ReceiverFlowControl::new(StreamId(0), &config());
        s.on_data(1_000, false).unwrap();
        s.retire_to(250).unwrap();
        s.send_update(at(0), rtt_ms(50), &t).unwrap(); // the first only starts
        assert!(t.input.get().is_none());
        // 200 read (less than a quantum of 250), none of it new data: a
        // lost frame makes the next update due.
        s.retire_to(450).unwrap();
        s.update_lost(s.limit());
        s.send_update(at(5), rtt_ms(50), &t).unwrap();
        assert_eq!(t.input.get().map(|i| i.delivered), tuned, "{every_update}");
    }
}
