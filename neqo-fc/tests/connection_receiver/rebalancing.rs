//! The rebalancing pass under a binding budget: the last reader takes over,
//! busy streams get their measured need, *_BLOCKED answers behind a queue,
//! our own requests get their seeds.

use std::time::Duration;

use neqo_fc::{
    Budget, ChangeReason, Config, ConnectionReceiver, Direction, ExcessTuner, Role, Rtt, StreamId,
};

use super::{
    INITIAL, KIB, changes, receiver, rtt, sid,
    sim::{LINK, Loop, READ, RTT_MS, equal_readers},
    updates, with_budget,
};
use crate::common::at;

/// Eight window-limited readers (they read all that arrives) share a
/// budget whose growth is `ceiling`; after 20 RTTs all but stream 0 stop.
/// Returns stream 0's bytes read per RTT before the stop (average over
/// 10 RTTs) and in each RTT from the second after it.
fn all_but_one_stop(ceiling: u64) -> (Loop, u64, Vec<u64>) {
    let config = with_budget(Budget {
        ceiling,
        ..Budget::default()
    });
    let mut sim = Loop::new(config, RTT_MS, LINK, &[LINK; 8]);
    sim.run_until(1001);
    let before = sim.read(0, 500, 1000) / 10;
    for f in &mut sim.flows[1..] {
        f.read_per_tick = 0;
    }
    sim.run_until(3001);
    let after = (21..60)
        .map(|k| sim.read(0, k * RTT_MS, (k + 1) * RTT_MS))
        .collect();
    sim.assert_no_violations();
    (sim, before, after)
}

#[test]
fn the_last_reader_takes_over_the_link_under_the_default_budget() {
    let (sim, before, after) = all_but_one_stop(Budget::default().ceiling);
    // 100 MB/s link: 5 MB per RTT once its window has grown.
    assert!(before < 1_000_000, "{before}");
    assert!(after[3..].iter().all(|&n| n == LINK * RTT_MS), "{after:?}");
    assert!(sim.connection_blocked.is_empty());
}

#[test]
fn the_last_reader_is_never_starved_when_the_budget_binds() {
    let (sim, before, after) = all_but_one_stop(1_600_000);
    // The stalled streams keep the growth budget (credit is never
    // reneged), but every open stream's promised initial window costs no growth:
    // the last reader gets at least that much every RTT.
    assert!(before > INITIAL, "{before}");
    let raised = sim.changes_of(0, ChangeReason::Budget);
    assert!(
        after.iter().all(|&n| n >= INITIAL),
        "read {after:?} per RTT (before {before}); committed {} budget {}; raised {:?}",
        sim.rx.flow().committed(),
        sim.rx.flow().budget(),
        raised.iter().filter(|c| c.0 > 1000).collect::<Vec<_>>()
    );
    assert_eq!(sim.budget_violations, 0);
}

/// The initial connection window is a guess made before any data flowed:
/// seeds may spend it, but the rebalancing pass raises a busy stream only
/// to its share of the need it measured (the bytes moved per RTT, the
/// windows granted). A stream reading 32 KiB per 10 ms RTT under an 8 MiB
/// initial connection window keeps its 64 KiB window; before, the pass
/// raised it to 8 MiB / 1.5 at once.
#[test]
fn the_pass_raises_busy_streams_to_measured_need_not_the_initial_guess() {
    let mut rx = receiver(Config {
        initial_connection_window: 8 << 20,
        seed_fraction: None,
        ..Config::default()
    });
    let id = sid(0);
    assert_eq!(rx.on_data(id, 0, false), Ok(0));
    let mut offset = 0;
    for ms in 1..=200 {
        if ms % 10 == 0 {
            offset += 32 << 10;
            rx.on_data(id, offset, false).unwrap();
            rx.retire_to(id, offset).unwrap();
        }
        let _ = updates(&mut rx, at(ms), rtt(10));
    }
    let raised: Vec<_> = changes(&mut rx)
        .into_iter()
        .filter(|c| c.reason == ChangeReason::Budget)
        .collect();
    assert_eq!(raised, []);
    assert_eq!(rx.stream(id).unwrap().window(), 64 << 10);
    assert!(rx.flow().estimate() >= 8 << 20);
}

/// 32 streams held at their shares (≈ 47 KB: a threshold of ≈ 12 KB, an
/// eighth of it ≈ 1.5 KB) by a sender that reports STREAM_DATA_BLOCKED
/// whenever a stream's credit runs out. Behind a standing queue (smoothed
/// RTT twice the minimum) the receiver answers no report with less than
/// `MIN_BLOCKED_ANSWER`: every update extends its limit by that much or
/// waits for the threshold, and the readers lose nothing. With no queue
/// the answers come as soon as an eighth of the threshold was read.
#[test]
fn behind_a_standing_queue_blocked_reports_get_no_slivers() {
    let run = |smoothed_ms: u64| {
        let n = 32;
        let mut sim = equal_readers(n);
        sim.send_blocked = true;
        sim.rtt = Rtt::new(
            Duration::from_millis(smoothed_ms),
            Duration::from_millis(RTT_MS),
        );
        sim.run_until(3000);
        let mut smallest = u64::MAX;
        let mut updates = 0;
        for f in &sim.flows {
            for (k, w) in f.update_limits.windows(2).enumerate() {
                if f.update_ticks[k + 1] >= 1000 {
                    smallest = smallest.min(w[1] - w[0]);
                    updates += 1;
                }
            }
        }
        let read: u64 = (0..n as usize).map(|i| sim.read(i, 1000, 3000)).sum();
        assert_eq!(sim.budget_violations, 0);
        (smallest, updates, read)
    };
    let (queued_step, queued_updates, queued_read) = run(2 * RTT_MS);
    let (free_step, free_updates, free_read) = run(RTT_MS);
    // The smallest update behind the queue is a whole threshold (a quarter
    // of the share), below MIN_BLOCKED_ANSWER only because the threshold
    // itself is.
    assert!(
        (11 * KIB..neqo_fc::MIN_BLOCKED_ANSWER).contains(&queued_step),
        "{queued_step}"
    );
    assert!(free_step < 4 * KIB, "{free_step}");
    assert!(
        queued_updates < free_updates,
        "{queued_updates} vs {free_updates}"
    );
    assert_eq!(queued_read, 2000 * READ);
    assert_eq!(free_read, 2000 * READ);
}

/// Requests we open ourselves (HTTP/3's shape, opened as they are sent):
/// the growth budget covers the first seeds only, and the stream whose
/// update it cut short, with no byte of its response yet, gets the rest
/// of its seed once room frees, before its response starts; a sender
/// that serves streams in order reaches it only then. Without that its
/// window stayed at what the cut left, and its response waited a round
/// trip at that limit for a tuning step.
#[test]
fn own_requests_get_their_whole_seed_as_room_frees() {
    const SIZE: u64 = 400 * KIB;
    let mut rx = ConnectionReceiver::new(Role::Client, Config::default().validate().unwrap());
    let req = |k| StreamId::new(Role::Client, Direction::Bidi, k);
    for k in 0..10 {
        rx.open_local_stream(req(k)).unwrap();
    }
    let seed = rx.stream(req(0)).unwrap().window();
    assert_eq!(seed, 512 * KIB, "half the 1 MiB first estimate");
    let r = rtt(50);
    let first = updates(&mut rx, at(0), r);
    let limit = |rx: &ConnectionReceiver<ExcessTuner>, k| rx.stream(req(k)).map(|s| s.limit());
    // 3 MiB of growth: six whole seeds, then a seventh cut short.
    let whole = (0..10).filter(|&k| limit(&rx, k) == Some(seed)).count();
    assert_eq!(whole, 6, "{first:?}");
    let cut = limit(&rx, 6).unwrap();
    assert!(INITIAL < cut && cut < seed, "{cut}");
    // The first four responses arrive, are read and end: room frees.
    for k in 0..4 {
        rx.on_data(req(k), SIZE, true).unwrap();
        rx.retire_to(req(k), SIZE).unwrap();
        rx.close_stream(req(k));
    }
    for t in [50, 100, 150] {
        updates(&mut rx, at(t), r);
    }
    for k in 6..10 {
        let s = rx.stream(req(k)).unwrap();
        assert_eq!(s.consumed(), 0, "no response byte yet on {k}");
        assert!(s.limit() >= seed, "stream {k}: limit {}", s.limit());
    }
    assert!(rx.flow().committed() <= rx.flow().budget());
}
