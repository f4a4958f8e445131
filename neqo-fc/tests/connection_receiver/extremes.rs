//! Extreme inputs: huge times, hours between calls, windows at their caps
//! and the budget at its ceiling.

use std::time::Duration;

use neqo_fc::{Config, ConnectionReceiver, ExcessTuner, Rtt};

use super::{INITIAL, SEED, committed_floor, credit_sum, msd, receiver, rtt, sid, updates};
use crate::common::{self, at, base, fire_timer};

#[test]
fn next_update_never_panics_on_huge_times() {
    let mut rx = receiver(common::config_512k());
    let id = sid(0);
    let huge = Rtt::from_sample(Duration::MAX);
    rx.on_data(id, 1000, false).unwrap();
    // The seeded window's early update goes out whatever the RTT.
    assert_eq!(rx.next_update(at(1), huge), Some(msd(id, SEED)));
    // The next pass would be due at 1 ms + Duration::MAX, past any
    // `Instant`: never in the past, whatever the timer says.
    assert!(rx.next_timeout().is_none_or(|t| t > at(1)));
    // At the end of time, 1,000 bytes read are not worth an update.
    rx.retire_to(id, 1000).unwrap();
    let end = common::far_future();
    fire_timer(&mut rx, end, huge);
    rx.on_timeout(end, huge);
    assert_eq!(rx.next_update(end, huge), None);
    assert_eq!(rx.stream(id).unwrap().limit(), SEED);
    let mut rx = receiver(common::config_512k());
    let just_before = end - Duration::from_millis(1);
    assert_eq!(rx.next_update(just_before, rtt(50)), None);
    fire_timer(&mut rx, end, rtt(50));
    assert_eq!(rx.next_update(end, rtt(50)), None);
    rx.on_timeout(end, rtt(50));
}

/// Hours between calls, and RTT estimates of none (no sample yet: the old
/// API's zero RTT) or an hour.
#[test]
fn hours_between_calls_and_zero_rtt_are_fine() {
    let mut rx = receiver(common::config_512k());
    let id = sid(0);
    let mut now = Duration::ZERO;
    let mut end = 0;
    for (i, step) in [0u64, 1, 3_600_000, 0, 7_200_000, 5]
        .into_iter()
        .enumerate()
    {
        now += Duration::from_millis(step);
        let r = if i % 2 == 0 {
            Rtt::from_sample(Duration::ZERO)
        } else {
            Rtt::from_sample(Duration::from_secs(3600))
        };
        end = rx.stream(id).map_or(INITIAL, |s| s.limit());
        rx.on_data(id, end, false).unwrap();
        rx.retire_to(id, end).unwrap();
        updates(&mut rx, base() + now, r);
        assert!(rx.flow().committed() <= rx.flow().budget());
        assert_eq!(rx.flow().committed(), credit_sum(&rx, 0..1));
    }
    assert!(rx.stream(id).unwrap().limit() > end);
    assert!(rx.stream(id).unwrap().window() <= rx.flow().config().max_stream_window);
}

/// Three streams read everything at once every millisecond (RTT 1 s):
/// their windows reach the 32 MiB cap in five rounds; a fourth holds its
/// seed unread.
fn fast_readers(config: Config) -> ConnectionReceiver<ExcessTuner> {
    let mut rx = receiver(config);
    for t in 1..=6 {
        let now = at(t);
        for i in 0..4 {
            let id = sid(i);
            let end = rx.stream(id).map_or(INITIAL, |s| s.limit());
            rx.on_data(id, end, false).unwrap();
            if i != 3 {
                rx.retire_to(id, end).unwrap();
            }
        }
        updates(&mut rx, now, Rtt::from_sample(Duration::from_secs(1)));
        assert!(rx.flow().committed() <= rx.flow().budget());
        assert_eq!(rx.flow().committed(), credit_sum(&rx, 0..4));
    }
    rx
}

/// Σ over open streams of the credit beyond the initial window: what the
/// growth budget bounds.
fn excess(rx: &ConnectionReceiver<ExcessTuner>, ids: std::ops::Range<u64>) -> u64 {
    ids.filter_map(|i| rx.stream(sid(i)))
        .map(|s| s.credit().saturating_sub(INITIAL))
        .sum()
}

#[test]
fn stream_windows_stop_at_the_cap_and_the_budget_at_its_ceiling() {
    let rx = fast_readers(common::config_512k());
    let cap = rx.flow().config().max_stream_window;
    // Two readers reach the cap; the third's window is cut (reason Budget)
    // to the credit the budget could grant it.
    let windows: Vec<u64> = (0..3)
        .map(|i| rx.stream(sid(i)).unwrap().window())
        .collect();
    assert_eq!(
        windows.iter().filter(|&&w| w == cap).count(),
        2,
        "{windows:?}"
    );
    assert!(windows.contains(&(2 * INITIAL)), "{windows:?}");
    assert_eq!(rx.stream(sid(3)).unwrap().window(), SEED);
    // Growth is capped at 64 MiB on top of the four open streams' promised
    // 64 KiB (the old budget promised all 100 `max_streams` slots).
    assert_eq!(rx.flow().estimate(), 48 << 20);
    assert_eq!(rx.flow().budget(), 4 * INITIAL + (64 << 20));
    // Two readers hold 32 MiB of credit each, the unread stream its
    // 128 KiB: all the growth but 65,536 bytes. The third reader still
    // gets its own promised 64 KiB (it costs no growth) plus what is left:
    // it is never stuck at credit 0.
    let credits: Vec<u64> = (0..4)
        .map(|i| rx.stream(sid(i)).unwrap().credit())
        .collect();
    assert_eq!(
        credits.iter().filter(|&&c| c == cap).count(),
        2,
        "{credits:?}"
    );
    assert_eq!(credits[3], SEED, "{credits:?}");
    let third = credits[..3].iter().copied().find(|&c| c != cap).unwrap();
    assert_eq!(third, 2 * INITIAL, "{credits:?}");
    assert_eq!(rx.flow().committed(), 2 * cap + SEED + 2 * INITIAL);
    assert_eq!(excess(&rx, 0..4), 64 << 20);
    // Every byte of the budget is committed.
    assert_eq!(rx.flow().committed(), rx.flow().budget());
}

#[test]
fn connection_window_passes_the_tuner_cap_only_to_cover_committed_credit() {
    // With a budget the connection window covers the credit it stands
    // behind after the update lag — here all that was committed to
    // streams, ⌈committed / (1 − ¼)⌉, as every stream reads and holds
    // credit beyond its promise — even past the configured 48 MiB cap:
    // the budget, not the connection window, bounds memory.
    let rx = fast_readers(common::config_512k());
    let cap = rx.flow().config().max_connection_window;
    assert_eq!(cap, 50_331_648);
    assert_eq!(rx.flow().committed(), 67_371_008);
    assert_eq!(rx.flow().connection().window(), committed_floor(&rx));
    assert!(rx.flow().connection().window() > cap);
    // Never more than the whole budget needs: ⌈budget / (1 − ¼)⌉.
    let budget_floor = (rx.flow().budget() * 4).div_ceil(3);
    assert!(rx.flow().connection().window() <= budget_floor);
}
