//! The two update-rule policies a stack may pick instead of the guarded
//! defaults: neqo 0.30's answer to *_BLOCKED ([`BlockedResponse::AtOnce`])
//! and its tuning on every update ([`TuningInterval::EveryUpdate`]).

mod common;

use std::cell::Cell;

use common::{Fixed, at, rtt_ms};
use neqo_fc::{
    BlockedResponse, Config, Fraction, ReceiverFlowControl, StreamId, TuneInput, Tuner,
    TuningInterval, ValidConfig,
};

fn config(blocked: BlockedResponse, interval: TuningInterval) -> ValidConfig {
    Config {
        initial_stream_window: 1_000,
        max_stream_window: 1 << 20,
        update_fraction: Fraction::QUARTER,
        blocked_response: blocked,
        tuning_interval: interval,
        ..Config::default()
    }
    .validate()
    .unwrap()
}

/// A tuner that records its input and leaves the window alone.
#[derive(Default)]
struct Seen(Cell<Option<TuneInput>>);

impl Tuner for Seen {
    fn tune(&self, input: &TuneInput) -> u64 {
        self.0.set(Some(*input));
        input.window
    }
}

/// neqo: a STREAM_DATA_BLOCKED is answered at once if anything was read
/// since the limit was set, although the data has not reached the limit
/// it names; with nothing read it changes nothing. The guarded rule waits
/// for the data and for an eighth of the quantum.
#[test]
fn at_once_answers_blocked_whenever_something_was_read() {
    let now = at(0);
    for (policy, due_after_one_byte) in [
        (BlockedResponse::AtOnce, true),
        (BlockedResponse::BorneOut, false),
    ] {
        let mut s =
            ReceiverFlowControl::new(StreamId(0), &config(policy, TuningInterval::WholeQuantum));
        s.on_data(500, false).unwrap();
        // Nothing read: no answer under either rule.
        assert!(s.blocked_received(1_000));
        assert!(!s.update_due(), "{policy:?}");
        // One byte read, then the frame again.
        s.retire_to(1).unwrap();
        s.blocked_received(1_000);
        assert_eq!(s.update_due(), due_after_one_byte, "{policy:?}");
        if due_after_one_byte {
            let u = s.send_update(now, rtt_ms(50), &Fixed).unwrap();
            assert_eq!(u.limit, 1_001);
            assert!(!s.update_due(), "answered once");
        }
    }
}

/// neqo: every update runs a tuning step over the time since the previous
/// one and shows the tuner the bytes retired in it, even when that is less
/// than a quantum and more than arrived in the interval.
#[test]
fn every_update_tunes_on_short_intervals() {
    for (interval, tuned) in [
        (TuningInterval::EveryUpdate, Some(200)),
        (TuningInterval::WholeQuantum, None),
    ] {
        let mut s =
            ReceiverFlowControl::new(StreamId(0), &config(BlockedResponse::AtOnce, interval));
        let t = Seen::default();
        s.on_data(1_000, false).unwrap();
        s.retire_to(250).unwrap();
        s.send_update(at(0), rtt_ms(50), &t).unwrap(); // the first only starts
        assert!(t.0.get().is_none());
        // 200 read (less than a quantum of 250), none of it new data.
        s.retire_to(450).unwrap();
        s.blocked_received(1_250);
        s.send_update(at(5), rtt_ms(50), &t).unwrap();
        assert_eq!(t.0.get().map(|i| i.delivered), tuned, "{interval:?}");
    }
}
