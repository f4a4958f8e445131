//! Reclaim, redistribution and slow readers over many round trips of the
//! closed loop.

use neqo_fc::{ChangeReason, Config, Subject, WindowChange};

use super::{
    INITIAL, KIB, SEED, sid,
    sim::{LINK, Loop, READ, RTT_MS, equal_readers},
};
use crate::common;

/// Streams 0 and 4 share the connection; stream 4 reads 20 MB/s
/// throughout, stream 0 reads at `first_rate` until `stall_at` ms and
/// then never again. The sender fills every byte of credit on both.
fn stalled_and_reading(first_rate: u64, stall_at: u64) -> u64 {
    let mut sim = Loop::new(common::config_512k(), RTT_MS, LINK, &[first_rate, READ]);
    sim.run_until(stall_at);
    sim.flows[0].read_per_tick = 0;
    sim.run_until(stall_at + 40 * RTT_MS);
    // The stalled stream holds all the credit it was given, unread.
    let stalled = sim.rx.stream(sid(0)).unwrap();
    assert_eq!(stalled.consumed(), stalled.limit());
    assert!(stalled.unretired() > 0);
    assert!(
        sim.connection_blocked.is_empty(),
        "{:?}",
        &sim.connection_blocked[..5.min(sim.connection_blocked.len())]
    );
    // From 20 RTTs on (ramp, then the stall) the reading stream gets a
    // MAX_STREAM_DATA every RTT and reads at its full rate.
    let from = stall_at.max(20 * RTT_MS);
    for k in 0..(stall_at + 40 * RTT_MS - from) / RTT_MS {
        let (a, b) = (from + k * RTT_MS, from + (k + 1) * RTT_MS);
        let n = sim.flows[1]
            .update_ticks
            .iter()
            .filter(|&&t| (a..b).contains(&t))
            .count();
        assert!(n >= 1, "no update for the reading stream in [{a}, {b}) ms");
        assert_eq!(sim.read(1, a, b), READ * RTT_MS, "[{a}, {b}) ms");
    }
    sim.assert_no_violations();
    sim.rx.stream(sid(0)).unwrap().unretired()
}

#[test]
fn a_stream_that_never_reads_never_blocks_a_reading_one() {
    assert_eq!(stalled_and_reading(0, 0), SEED);
}

#[test]
fn a_stream_that_stalls_with_a_large_window_never_blocks_a_reading_one() {
    // Both read 20 MB/s for 30 RTTs (windows ≈ 1.4 MB each), then
    // stream 0 stalls with ≈ 1.4 MB of credit parked.
    let parked = stalled_and_reading(READ, 30 * RTT_MS);
    assert!(parked > 1_000_000, "{parked}");
}

/// Default update fraction ¼: a window sustains a rate once ¾ of it
/// covers one RTT of reading.
fn sustains(window: u64, per_tick: u64) -> bool {
    window * 3 / 4 >= per_tick * RTT_MS
}

#[test]
fn idle_stream_returns_to_its_seed_and_regains_its_window_on_resume() {
    let mut sim = Loop::new(common::config_512k(), RTT_MS, LINK, &[READ]);
    // Rebalancing passes run once per smoothed RTT from the timer armed at
    // the first update (t = 0).
    sim.run_until(1501);
    assert!(
        sim.passes.windows(2).all(|w| w[1] - w[0] == RTT_MS),
        "{:?}",
        sim.passes
    );
    let grown = sim.window(0);
    assert!(sustains(grown, READ), "window {grown} after 30 RTTs");
    // The reader stops right after a pass (its last active one, 1,500 ms
    // with the timer above): at the pass four idle RTTs later the window
    // is its seed, not before.
    let last_active = *sim.passes.last().unwrap();
    assert!(1500 - last_active < RTT_MS);
    let reclaim_at = last_active + 4 * RTT_MS;
    sim.flows[0].read_per_tick = 0;
    sim.run_until(reclaim_at);
    let limit = sim.limit(0);
    assert_eq!(sim.window(0), grown);
    assert!(
        sim.changes_of(0, ChangeReason::Reclaim)
            .iter()
            .all(|c| c.0 < 1500)
    );
    sim.run_until(reclaim_at + 1);
    let reclaim = sim.changes_of(0, ChangeReason::Reclaim);
    let (when, c) = *reclaim.last().unwrap();
    assert_eq!(when, reclaim_at);
    assert_eq!((c.old, c.new), (grown, SEED));
    assert_eq!(sim.window(0), SEED);
    // The limit the peer holds stays: credit is never reneged.
    assert_eq!(sim.limit(0), limit);
    sim.run_until(1751);
    assert_eq!(sim.limit(0), limit);
    assert_eq!(sim.window(0), SEED);
    // It resumes at the same rate: within two RTTs its window sustains
    // the rate again, and keeps doing so.
    sim.flows[0].read_per_tick = READ;
    sim.run_until(3001);
    let back = (1751..3001)
        .find(|&t| sustains(sim.windows[t as usize][0], READ))
        .unwrap();
    assert!(back <= 1751 + 2 * RTT_MS, "sustains R only from {back} ms");
    for t in back..3001 {
        assert!(sustains(sim.windows[t as usize][0], READ), "{t} ms");
    }
    // It resumes reading the ≈ 1.4 MB parked in its buffer: not
    // window-limited (unread ≥ a quarter of its window), so rebalancing
    // does not raise it while that lasts; its first update after resuming
    // auto-tunes it straight from the seed. Once it reads at its rate
    // again, a pass may give it back at most the share of the estimate it
    // had grown (estimate / 1.5).
    let budget_raises: Vec<_> = sim
        .changes_of(0, ChangeReason::Budget)
        .into_iter()
        .filter(|c| c.0 >= 1500)
        .collect();
    for (when, c) in &budget_raises {
        assert!(*when > 1751 + 2 * RTT_MS, "{budget_raises:?}");
        let (_, hi) = sim.estimates[*when as usize];
        assert!(c.new <= hi * 2 / 3, "{budget_raises:?}");
    }
    let tuned = sim.changes_of(0, ChangeReason::AutoTune);
    let (when, c) = *tuned.iter().find(|c| c.0 > 1751).unwrap();
    assert!(when <= 1751 + 2 * RTT_MS, "{tuned:?}");
    assert_eq!(c.old, SEED);
    assert!(sustains(c.new, READ), "{c}");
    // And the reader is never starved from three RTTs after resuming.
    for k in 0..((3000 - 1900) / RTT_MS) {
        let from = 1900 + k * RTT_MS;
        assert_eq!(
            sim.read(0, from, from + RTT_MS),
            READ * RTT_MS,
            "from {from} ms"
        );
    }
    sim.assert_no_violations();
    assert!(sim.connection_blocked.is_empty());
}

#[test]
fn the_last_reading_stream_inherits_the_estimate_in_one_pass() {
    // Eight streams read 2.5 MB/s each (1 MB per RTT together); stream 0's
    // reader would take more, so its window (its share) is what holds it
    // back — a reader slower than its window has nothing to inherit.
    let mut readers = [READ / 8; 8];
    readers[0] = READ;
    let mut sim = Loop::new(common::config_512k(), RTT_MS, LINK, &readers);
    sim.run_until(1501);
    let before = sim.window(0);
    // All but stream 0 stop right after a pass (1,500 ms with passes once
    // per RTT from t = 0); the next pass, one RTT later, raises stream 0.
    let last = *sim.passes.last().unwrap();
    assert!(1500 - last < RTT_MS, "{:?}", sim.passes);
    for f in &mut sim.flows[1..] {
        f.read_per_tick = 0;
    }
    sim.run_until(last + RTT_MS);
    assert_eq!(sim.window(0), before);
    sim.run_until(last + RTT_MS + 1);
    let (_, next) = sim.passes_around(last);
    assert_eq!(next, last + RTT_MS, "{:?}", sim.passes);
    let raised = sim.changes_of(0, ChangeReason::Budget);
    let (when, c) = *raised.last().unwrap();
    assert_eq!(when, next, "{raised:?}");
    assert_eq!(c.old, before);
    // estimate / 1.5 with the estimate of that pass (it may grow within
    // the tick, after the pass).
    let (lo, hi) = sim.estimates[next as usize];
    assert!(
        (lo * 2 / 3..=hi * 2 / 3).contains(&c.new),
        "raised to {} with estimate {lo}..{hi}",
        c.new
    );
    assert!(c.new >= 2 * before, "{before} -> {}", c.new);
    sim.assert_no_violations();
}

/// Eight readers that each want the whole link share it, every stream's
/// credit capped at its share of the estimate. At 1,500 ms (just after a
/// pass) seven stop reading and their sender has nothing more for them.
/// Stream 0 takes the link, runs out of its share within a few ms and
/// reports STREAM_DATA_BLOCKED: with one of eight streams reading since
/// the last pass the share is stale, so a pass runs as soon as the
/// report arrives (≥ a quarter RTT after the last pass) instead of a whole
/// RTT after it, and raises stream 0 to the estimate's share. Returns the
/// raises after the stop and the last pass before it.
fn stale_share(send_blocked: bool) -> (Vec<(u64, WindowChange)>, u64) {
    let mut sim = Loop::new(common::config_512k(), RTT_MS, LINK, &[LINK; 8]);
    sim.send_blocked = send_blocked;
    sim.run_until(1501);
    let last = *sim.passes.last().unwrap();
    let before = sim.window(0);
    for f in &mut sim.flows[1..] {
        f.read_per_tick = 0;
        f.sending = false;
    }
    sim.run_until(1560);
    sim.assert_no_violations();
    let raised: Vec<_> = sim
        .changes_of(0, ChangeReason::Budget)
        .into_iter()
        .filter(|c| c.0 > 1500 && c.1.new > c.1.old)
        .collect();
    let first = raised.first().expect("raised after the stop").1;
    assert_eq!(first.old, before);
    assert!(first.new >= 2 * before, "{before} -> {}", first.new);
    // Raised by a pass.
    assert!(sim.passes.contains(&raised[0].0), "{:?}", sim.passes);
    (raised, last)
}

#[test]
fn blocked_at_a_stale_share_rebalances_early() {
    let (raised, last) = stale_share(true);
    let when = raised[0].0;
    assert!(
        (last + RTT_MS / 4..last + RTT_MS).contains(&when),
        "raised at {when} ms, last pass {last} ms: {raised:?}"
    );
}

#[test]
fn without_blocked_a_stale_share_waits_for_the_next_pass() {
    let (raised, last) = stale_share(false);
    assert_eq!(raised[0].0, last + RTT_MS, "{raised:?}");
}

/// 32 streams share 1 MB per RTT (31.25 KB each): once the estimate has
/// stopped growing, no stream holds more credit than its share of the
/// estimate (≈ 47 KB, below the 128 KiB seed), so streams that stall can
/// park at most ≈ one estimate between them — and every reader still
/// gets its full rate.
#[test]
fn after_the_ramp_each_stream_holds_its_share_not_its_seed() {
    let n = 32;
    let mut sim = equal_readers(n);
    sim.run_until(1000);
    let mut most = 0;
    for _ in 1000..3000 {
        sim.step();
        let share = (sim.rx.flow().estimate() / n).max(INITIAL / 4);
        for f in &sim.flows {
            let s = sim.rx.stream(f.id).unwrap();
            most = most.max(s.credit());
            assert!(s.credit() <= share, "{:?}: {} > {share}", f.id, s.credit());
        }
    }
    assert!(most < SEED / 2, "{most}");
    for i in 0..n as usize {
        assert_eq!(sim.read(i, 1000, 3000), 2000 * (READ / n), "stream {i}");
    }
    assert_eq!(sim.budget_violations, 0);
}

/// A stream whose *sender* slows down (the link drops to a tenth of what
/// the reader takes) reads everything it gets, its buffer empty: it is
/// not a slow reader, so its window is not reclaimed, and when the link
/// comes back the reader gets its full rate at once.
#[test]
fn a_slow_sender_is_not_a_slow_reader() {
    let mut sim = Loop::new(common::config_512k(), RTT_MS, LINK, &[READ]);
    sim.run_until(1501);
    let grown = sim.window(0);
    assert!(sustains(grown, READ), "window {grown}");
    sim.link_per_tick = READ / 10;
    sim.run_until(3001);
    assert!(
        sim.changes_of(0, ChangeReason::Reclaim).is_empty(),
        "{:?}",
        sim.changes_of(0, ChangeReason::Reclaim)
    );
    assert_eq!(sim.window(0), grown);
    // It reads everything that arrives.
    assert!(
        sim.rx.flow().connection().unretired() <= READ / 10,
        "{}",
        sim.rx.flow().connection().unretired()
    );
    sim.link_per_tick = LINK;
    sim.run_until(3201);
    // One RTT for the data to arrive, then the full rate.
    for from in (3001 + RTT_MS..3201 - RTT_MS).step_by(RTT_MS as usize) {
        assert_eq!(sim.read(0, from, from + RTT_MS), READ * RTT_MS, "{from} ms");
    }
}

/// A reader on a timer — it wakes every four RTTs and reads what arrived,
/// at most its rate × the period — leaves data waiting between wake-ups
/// as a slow reader does, and reads four passes' worth every fourth pass.
/// Reclaim judges a stream by the most it read in one pass, not by its
/// average: the window keeps room for what a wake-up reads, and the reader
/// gets its whole rate.
#[test]
fn a_reader_on_a_timer_keeps_room_for_what_a_wake_up_reads() {
    let period = 4 * RTT_MS;
    let mut sim = Loop::new(common::config_512k(), RTT_MS, LINK, &[READ]);
    sim.flows[0].wake_every = period;
    sim.run_until(4001);
    let wake_up = READ * period;
    let reclaimed = sim.changes_of(0, ChangeReason::Reclaim);
    assert!(
        reclaimed.iter().all(|(_, c)| c.new >= 2 * wake_up),
        "{reclaimed:?}"
    );
    for from in (2000..4000).step_by(period as usize) {
        assert_eq!(sim.read(0, from, from + period), wake_up, "{from} ms");
    }
}

#[test]
fn slow_reader_under_a_budget_never_grows_its_window() {
    let mut sim = Loop::new(common::config_512k(), RTT_MS, LINK, &[LINK / 100]);
    sim.run_until(200 * RTT_MS);
    let max = sim.windows.iter().map(|w| w[0]).max().unwrap();
    let grew: Vec<_> = sim
        .changes
        .iter()
        .filter(|(_, c)| {
            c.subject != Subject::Connection && c.new > c.old && c.reason != ChangeReason::Seed
        })
        .take(4)
        .collect();
    assert_eq!(
        max,
        SEED,
        "window grew {} times (reclaimed {} times), most unread {}: {grew:?}",
        sim.changes_of(0, ChangeReason::Budget).len(),
        sim.changes_of(0, ChangeReason::Reclaim).len(),
        sim.max_buffered
    );
    assert!(
        sim.max_buffered <= SEED,
        "{} bytes unread",
        sim.max_buffered
    );
    assert_eq!(sim.rx.flow().connection().window(), 512 * KIB);
}

#[test]
fn slow_reader_without_a_budget_never_grows_its_window() {
    let config = Config {
        budget: None,
        ..common::config_512k()
    };
    let mut sim = Loop::new(config, RTT_MS, LINK, &[LINK / 100]);
    sim.run_until(200 * RTT_MS);
    assert!(sim.windows.iter().all(|w| w[0] == SEED));
    assert!(
        sim.max_buffered <= SEED,
        "{} bytes unread",
        sim.max_buffered
    );
    assert_eq!(sim.rx.flow().connection().window(), 512 * KIB);
    // The reader still read at its rate once the first window arrived.
    assert_eq!(sim.read(0, 100, 10_000), 9_900 * (LINK / 100));
}
