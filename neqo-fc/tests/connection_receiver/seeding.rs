//! Seeding: a new stream's window from the estimate, within the budget's room.

use neqo_fc::{ChangeReason, Config, ExcessTuner, Subject};

use super::{
    INITIAL, KIB, SEED, changes, credit_floor, credit_sum, msd, open, receiver, rtt, sid, tight,
    updates,
};
use crate::common::{self, at};

#[test]
fn open_stream_seeds_a_quarter_of_the_estimate_and_reports_it() {
    let mut rx = receiver(common::config_512k());
    assert_eq!(rx.flow().estimate(), 512 * KIB);
    open(&mut rx, sid(0), at(5));
    let s = rx.stream(sid(0)).unwrap();
    assert_eq!(s.window(), SEED);
    // The peer only knows the transport parameter until an update goes out.
    assert_eq!(s.limit(), INITIAL);
    assert_eq!(rx.flow().committed(), INITIAL);
    assert_eq!(rx.flow().largest_window(), SEED);
    let seen = changes(&mut rx);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].subject, Subject::Stream(sid(0)));
    assert_eq!((seen[0].old, seen[0].new), (INITIAL, SEED));
    assert_eq!(seen[0].reason, ChangeReason::Seed);
    assert_eq!(seen[0].now, None, "opening a stream takes no time");
    // The larger seed makes an early MAX_STREAM_DATA due.
    assert!(rx.update_pending());
    let sent = updates(&mut rx, at(5), rtt(50));
    assert_eq!(sent, [msd(sid(0), SEED)]);
    assert_eq!(rx.flow().committed(), SEED);
    // Another frame on it opens nothing new and changes nothing.
    open(&mut rx, sid(0), at(6));
    assert_eq!((rx.streams().count(), rx.flow().committed()), (1, SEED));
    assert!(changes(&mut rx).is_empty());
}

#[test]
fn seed_is_never_below_the_initial_window() {
    // ¼ × 256 KiB = 64 KiB exactly: no seed change, no early update.
    let mut rx = receiver(Config {
        initial_connection_window: 256 * KIB,
        ..common::config_512k()
    });
    open(&mut rx, sid(0), at(0));
    assert_eq!(rx.stream(sid(0)).unwrap().window(), INITIAL);
    assert!(changes(&mut rx).is_empty());
    assert!(!rx.update_pending());
    // Four bytes more of estimate: one byte more of seed.
    let mut rx = receiver(Config {
        initial_connection_window: 256 * KIB + 4,
        ..common::config_512k()
    });
    open(&mut rx, sid(0), at(0));
    assert_eq!(rx.stream(sid(0)).unwrap().window(), INITIAL + 1);
    // Seeding off: the initial window.
    let mut rx = receiver(Config {
        seed_fraction: None,
        ..common::config_512k()
    });
    open(&mut rx, sid(0), at(0));
    assert_eq!(rx.stream(sid(0)).unwrap().window(), INITIAL);
}

#[test]
fn seed_follows_the_grown_estimate() {
    let mut rx = receiver(common::config_512k());
    let id = sid(0);
    open(&mut rx, id, at(0));
    assert_eq!(updates(&mut rx, at(0), rtt(50)).len(), 1);
    rx.on_data(id, SEED, false).unwrap();
    rx.retire_to(id, SEED).unwrap();
    updates(&mut rx, at(10), rtt(50));
    // One window read in 10 ms of a 50 ms RTT: effective = ¾ × 15/16 ×
    // 128 KiB = 92,160; expected 18,432; excess 112,640; × the bonus added.
    let w = rx.stream(id).unwrap().window();
    assert_eq!(w, SEED + ExcessTuner::DEFAULT.bonus * 112_640);
    assert_eq!(rx.flow().estimate(), 3 * w / 2);
    open(&mut rx, sid(1), at(11));
    assert_eq!(
        rx.stream(sid(1)).unwrap().window(),
        rx.flow().estimate() / 4
    );
}

#[test]
fn seed_uses_the_estimate_not_the_connection_window_inflated_by_credit() {
    // Eight streams at 128 KiB commit 1 MiB; the connection window covers
    // it (more than 1 MiB) but the estimate stays 512 KiB, so the ninth stream
    // is seeded at 128 KiB, not at ¼ of the inflated connection window.
    let mut rx = receiver(common::config_512k());
    for i in 0..8 {
        open(&mut rx, sid(i), at(0));
    }
    updates(&mut rx, at(0), rtt(50));
    assert_eq!(rx.flow().committed(), 8 * SEED);
    assert_eq!(rx.flow().connection().window(), credit_floor(&rx, 0..8));
    assert!(rx.flow().connection().window() > 8 * SEED);
    assert_eq!(rx.flow().estimate(), 512 * KIB);
    open(&mut rx, sid(8), at(1));
    assert_eq!(rx.stream(sid(8)).unwrap().window(), SEED);
    // Without a budget the basis is the connection window itself.
    let mut rx = receiver(Config {
        budget: None,
        initial_connection_window: 2048 * KIB,
        ..common::config_512k()
    });
    open(&mut rx, sid(0), at(0));
    assert_eq!(rx.stream(sid(0)).unwrap().window(), 512 * KIB);
    assert_eq!(rx.flow().budget(), u64::MAX);
}

#[test]
fn seed_with_no_budget_room_stays_at_the_initial_window() {
    let mut rx = receiver(tight(0, 4));
    assert_eq!(rx.flow().budget(), 0);
    open(&mut rx, sid(0), at(0));
    // The open stream's 64 KiB promised, no growth: no room to seed.
    assert_eq!(rx.flow().budget(), INITIAL);
    assert_eq!(rx.stream(sid(0)).unwrap().window(), INITIAL);
    assert!(changes(&mut rx).is_empty());
    assert!(updates(&mut rx, at(0), rtt(50)).is_empty());
    assert_eq!(rx.flow().committed(), INITIAL);
}

#[test]
fn seed_uses_the_whole_budget_room() {
    let mut rx = receiver(tight(100_000, 4));
    // Budget: 65,536 promised per open stream + 100,000 growth.
    assert_eq!(rx.flow().budget(), 100_000);
    open(&mut rx, sid(0), at(0));
    assert_eq!(rx.flow().budget(), INITIAL + 100_000);
    // 100,000 of room; the seed needs only 65,536 of it beyond the
    // promised initial window.
    assert_eq!(rx.stream(sid(0)).unwrap().window(), SEED);
    updates(&mut rx, at(0), rtt(50));
    assert_eq!(rx.flow().committed(), SEED);
    // The second stream: 100,000 − 65,536 = 34,464 of room left: seed
    // 65,536 + 34,464 = 100,000.
    open(&mut rx, sid(1), at(0));
    assert_eq!(rx.stream(sid(1)).unwrap().window(), 100_000);
    // Two more streams at 65,536 (no room left): the growth room is used
    // exactly, 4 × 65,536 + 100,000.
    updates(&mut rx, at(0), rtt(50));
    for i in 2..4 {
        open(&mut rx, sid(i), at(0));
        assert_eq!(rx.stream(sid(i)).unwrap().window(), INITIAL);
    }
    assert!(
        changes(&mut rx)
            .iter()
            .all(|c| c.reason != ChangeReason::Budget)
    );
    assert_eq!(rx.flow().committed(), rx.flow().budget());
    assert_eq!(rx.flow().committed(), 362_144);
}

#[test]
fn seed_within_a_tight_budget_never_overcommits() {
    let mut rx = receiver(tight(100_000, 4));
    for i in 0..4 {
        open(&mut rx, sid(i), at(0));
        let seed = rx.stream(sid(i)).unwrap().window();
        assert!((INITIAL..=SEED).contains(&seed), "seed {seed}");
        updates(&mut rx, at(0), rtt(50));
        assert!(rx.flow().committed() <= rx.flow().budget());
        assert_eq!(rx.flow().committed(), credit_sum(&rx, 0..4));
    }
    assert_eq!(rx.flow().budget(), 4 * INITIAL + 100_000);
}
