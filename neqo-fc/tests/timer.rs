//! The budget's rebalancing pass runs on a timer the stack arms from
//! `next_timeout()`, not as a side effect of asking for updates.

use std::{
    sync::LazyLock,
    time::{Duration, Instant},
};

use neqo_fc::{ChangeReason, Config, ConnectionReceiver, Direction, Role, Rtt, StreamId};

static BASE: LazyLock<Instant> = LazyLock::new(Instant::now);

fn at(ms: u64) -> Instant {
    *BASE + Duration::from_millis(ms)
}

fn rtt() -> Option<Rtt> {
    Rtt::from_sample(Duration::from_millis(20))
}

fn stream(k: u64) -> StreamId {
    StreamId::new(Role::Client, Direction::Bidi, k)
}

#[test]
fn no_timer_without_a_budget_or_an_rtt_sample() {
    let off = Config {
        budget: None,
        ..Config::default()
    };
    let mut rx = ConnectionReceiver::new(Role::Server, off.validate().unwrap());
    rx.on_data(stream(0), 100, false).unwrap();
    while rx.next_update(at(1), rtt()).is_some() {}
    assert_eq!(rx.next_timeout(), None);

    let mut rx = ConnectionReceiver::new(Role::Server, Config::default().validate().unwrap());
    rx.on_data(stream(0), 100, false).unwrap();
    while rx.next_update(at(1), None).is_some() {}
    assert_eq!(rx.next_timeout(), None, "no RTT sample yet");
    while rx.next_update(at(2), rtt()).is_some() {}
    assert_eq!(rx.next_timeout(), Some(at(22)), "one smoothed RTT later");
    // Early calls do nothing; the timer stays.
    rx.on_timeout(at(10), rtt());
    assert_eq!(rx.next_timeout(), Some(at(22)));
    rx.on_timeout(at(22), rtt());
    assert_eq!(rx.next_timeout(), Some(at(42)));
}

/// A stream that grew its window while reading, then stopped: the passes
/// the timer runs — with no update asked for in between — give its window
/// back to its seed.
#[test]
fn the_timer_alone_reclaims_an_idle_stream() {
    let mut rx = ConnectionReceiver::new(Role::Server, Config::default().validate().unwrap());
    let id = stream(0);
    let mut now = 0;
    let mut offset = 0;
    // Read fast for 200 ms: the window grows.
    while now < 200 {
        now += 1;
        let limit = rx.stream(id).map_or(64 << 10, |s| s.limit());
        offset = (offset + 100_000).min(limit);
        rx.on_data(id, offset, false).unwrap();
        rx.retire_to(id, offset).unwrap();
        if rx.next_timeout().is_some_and(|t| t <= at(now)) {
            rx.on_timeout(at(now), rtt());
        }
        while let Some(f) = rx.next_update(at(now), rtt()) {
            rx.update_acked(f);
        }
    }
    let grown = rx.stream(id).unwrap().window();
    // ½ of the 1 MiB connection window.
    let seed = 512 << 10;
    assert!(grown > 4 * seed, "grew to {grown}");
    rx.drain_changes().for_each(drop);
    // The reader stops. Only the timer runs from now on.
    let mut fired = 0;
    while let Some(t) = rx.next_timeout() {
        if t > at(now + 200) {
            break;
        }
        rx.on_timeout(t, rtt());
        fired += 1;
    }
    assert!(fired >= 4, "{fired} passes");
    assert_eq!(rx.stream(id).unwrap().window(), seed);
    let reclaim: Vec<_> = rx
        .drain_changes()
        .filter(|c| c.reason == ChangeReason::Reclaim)
        .collect();
    assert_eq!(reclaim.len(), 1);
    assert_eq!((reclaim[0].old, reclaim[0].new), (grown, seed));
    // Limits never shrink: the credit already granted stays.
    assert!(rx.stream(id).unwrap().limit() >= offset);
}

/// A stack that lost its RTT sample when the timer fires (neqo can, with a
/// zero minimum) is not left with a timer in the past to spin on, and a
/// connection with no stream open has no timer at all.
#[test]
fn the_timer_never_stays_in_the_past() {
    let mut rx = ConnectionReceiver::new(Role::Server, Config::default().validate().unwrap());
    let id = stream(0);
    rx.on_data(id, 100, false).unwrap();
    while rx.next_update(at(0), rtt()).is_some() {}
    assert_eq!(rx.next_timeout(), Some(at(20)));
    rx.on_timeout(at(25), None);
    assert_eq!(rx.next_timeout(), Some(at(45)), "pushed one RTT on");
    rx.on_timeout(at(45), rtt());
    assert_eq!(rx.next_timeout(), Some(at(65)));
    // The stream closes: nothing to rebalance, no timer.
    rx.on_data(id, 100, true).unwrap();
    rx.retire_to(id, 100).unwrap();
    rx.close_stream(id);
    assert_eq!(rx.streams().count(), 0);
    assert_eq!(rx.next_timeout(), None);
}
