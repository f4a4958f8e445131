//! Window changes from tuning: what the tuner is told (drained steps, late
//! updates, exact inputs) and what it may change.

use std::{
    cell::Cell,
    time::{Duration, Instant},
};

use neqo_fc::{
    ChangeReason, ExcessTuner, Fraction, ReceiverFlowControl, Rtt, StreamId, Subject, SubjectKind,
    TuneInput, Tuner, WindowChange,
};

use super::{CAP, Fixed, at, config, conn, ms, rtt, stream, two_updates};

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

/// A stream with a window of `window` whose first quarter arrived and was
/// read, and the update that made due, written at `now`.
fn past_first_step(
    id: StreamId,
    window: u64,
    now: Instant,
    rtt: Option<Rtt>,
    tuner: &dyn Tuner,
) -> ReceiverFlowControl<StreamId> {
    let mut s = ReceiverFlowControl::new(id, &config(window, Fraction::QUARTER));
    s.on_data(window / 4, false).unwrap();
    s.retire_to(window / 4).unwrap();
    s.send_update(now, rtt, tuner).unwrap();
    s
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
        let t = Recording::new(0);
        let mut s = past_first_step(StreamId(4), 1_000, at(0), rtt, &t);
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
        let mut s = past_first_step(StreamId(4), 1_000, at(0), rtt, tuner);
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
        let t = Recording::new(1_000);
        let mut s = past_first_step(StreamId(4), 1_000, at(0), rtt, &t);
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
        let t = Recording::new(0);
        let mut s = past_first_step(StreamId(0), 1_000_000, at(1000), rtt, &t);
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

/// Writes the update that is due at `now`: its limit and window change,
/// and how many times `t` was asked so far.
fn send(
    s: &mut ReceiverFlowControl<StreamId>,
    now: Instant,
    rtt: Option<Rtt>,
    t: &Recording,
) -> (u64, Option<WindowChange>, u32) {
    let u = s.send_update(now, rtt, t).unwrap();
    (u.limit, u.change, t.calls.get())
}

/// What the tuner is told when a stream's whole 1 MB window (¼ update
/// fraction) was received and read in 100 ms, after `drained_steps`
/// steps drained at the limit in a row.
fn one_window_in_100ms(rtt: Rtt, drained_steps: u32) -> TuneInput {
    TuneInput {
        kind: SubjectKind::Stream,
        window: 1_000_000,
        max_window: CAP,
        delivered: 1_000_000,
        elapsed: ms(100),
        rtt,
        update_fraction: Fraction::QUARTER,
        drained_steps,
        late: 0,
    }
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
    assert_eq!(send(&mut s, at(1000), rtt, &t), (1_250_000, None, 0));
    s.on_data(1_250_000, false).unwrap();
    read_in_two(&mut s, 1_250_000);
    let u = s.send_update(at(1100), rtt, &t).unwrap();
    // Everything up to the limit arrived and was read: one drained step.
    assert_eq!(t.last.get(), Some(one_window_in_100ms(rtt.unwrap(), 1)));
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
    assert_eq!(send(&mut s, at(1150), rtt, &same), (2_501_249, None, 0));
    // Exactly the threshold since that limit: a tuning step over everything
    // since the previous step (150 ms, 500_499 bytes).
    s.retire_to(1_750_499).unwrap();
    assert_eq!(send(&mut s, at(1250), rtt, &same), (2_751_499, None, 1));
    let last = same.last.get().unwrap();
    assert_eq!((last.elapsed, last.delivered), (ms(150), 500_499));
    // A resend after a loss does not tune either.
    s.update_lost(2_751_499);
    assert_eq!(send(&mut s, at(1260), rtt, &same), (2_751_499, None, 1));
    for (received, read, now, rtt, want) in [
        // A clock that goes backwards: no panic, and (new rule) no tuning
        // step — the update is sent, the tuner is not asked, and the
        // interval stays open: its bytes and time carry over to the next
        // step.
        (2_751_499, 2_000_749, at(10), rtt, (3_001_749, None, 1)),
        // The same `now` as the last step (a zero interval): likewise.
        (3_001_749, 2_251_000, at(1250), rtt, (3_252_000, None, 1)),
        // No RTT sample: the update goes out, nothing is tuned.
        (3_252_000, 2_501_250, at(1300), None, (3_502_250, None, 1)),
        // The next step with time moving forward and a sample measures
        // from the step at 1250 ms: 100 ms, and the bytes both received
        // and read since (retired 1_750_499 → 2_751_500, consumed
        // 2_251_000 → 3_502_250).
        (3_502_250, 2_751_500, at(1350), rtt, (3_752_500, None, 2)),
    ] {
        s.on_data(received, false).unwrap();
        s.retire_to(read).unwrap();
        assert_eq!(send(&mut s, now, rtt, &same), want, "at {now:?}");
    }
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
    let mut s = past_first_step(StreamId(8), 1_000_000, at(0), rtt, &t);
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
    let mut s = past_first_step(StreamId(8), 1_000_000, at(1000), rtt, &tuner);
    s.on_data(1_250_000, false).unwrap();
    s.retire_to(1_250_000).unwrap();
    // The step below is drained at the limit (all read, up to the limit),
    // the first in a row: that changes nothing.
    let input = one_window_in_100ms(rtt.unwrap(), 0);
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
