//! Counterexamples found once, kept as plain tests.

use std::time::Duration;

use neqo_fc::{
    Budget, ChangeReason, Config, ConnectionReceiver, ExcessTuner, MAX_VARINT, Role, Rtt, Subject,
};

use super::sid;
use crate::common;

/// Once a counterexample of `connection_floor_holds_after_every_next_update`
/// (as the shrinker found it, with the default `idle_rtts`): default
/// settings without growth budget. 64 KiB read in the first 1 ms pass while
/// the RTT estimate grows from 1 ms to 6 ms counts as 393,216 bytes per
/// RTT; the pass raises the estimate to 589,824 and the stream's window to
/// 393,216 (Budget). The stream's update may wait for room, so the pass
/// itself must re-apply the connection floor: ⌈1.5 × 393,216⌉ = 589,824
/// (it was left at 524,288).
#[test]
fn connection_floor_follows_a_window_raised_by_rebalancing() {
    let config = Config {
        budget: Some(Budget {
            ceiling: 0,
            ..Budget::default()
        }),
        ..common::config_512k()
    };
    let mut rx = ConnectionReceiver::new(Role::Server, config.validate().unwrap());
    let id = sid(0);
    let at = common::at;
    let rtt = common::rtt_ms;
    assert_eq!(rx.on_data(id, 0, false), Ok(0));
    assert_eq!(rx.stream(id).unwrap().window(), 65_536);
    // The first call arms the pass timer one RTT (1 ms) later.
    assert_eq!(rx.next_update(at(0), rtt(1)), None);
    assert_eq!(rx.next_timeout(), Some(at(1)));
    rx.on_data(id, 65_536, false).unwrap();
    rx.retire_to(id, 65_536).unwrap();
    common::drive(&mut rx, at(1), rtt(6));
    assert_eq!(rx.flow().estimate(), 589_824);
    let raised: Vec<_> = rx
        .drain_changes()
        .filter(|c| c.subject == Subject::Stream(id) && c.reason == ChangeReason::Budget)
        .map(|c| (c.old, c.new))
        .collect();
    assert_eq!(raised.first(), Some(&(65_536, 393_216)), "{raised:?}");
    // Connection windows never shrink: the floor of the raised window,
    // whatever the stream's update did to its window afterwards.
    assert!(
        rx.flow().connection().window() >= 589_824,
        "connection window {} < 589,824",
        rx.flow().connection().window()
    );
    let largest = rx.stream(id).unwrap().window();
    assert!(rx.flow().connection().window() >= config.connection_floor.of_ceil(largest));
}

/// The rebalancing pass measures the connection's need as 1.5 × the bytes
/// moved per RTT, `moved × min_rtt / interval`, saturating at `u64::MAX`;
/// the next pass compares it with `last_need + last_need / 8`, which must
/// saturate too (found by the test port: it overflowed). `Config::validate`
/// accepts the windows that get there, and the crate promises that no call
/// panics with any valid configuration. Here: the largest stream window
/// the default stream limits allow (2^62 / 300), read in full between two
/// passes while the RTT estimate grows from 10 ms to an hour.
#[test]
fn rebalancing_with_a_saturated_need_does_not_panic() {
    let mut config = common::config_512k();
    config.max_stream_window = MAX_VARINT / config.max_open_streams();
    config.initial_stream_window = config.max_stream_window;
    config.max_connection_window = MAX_VARINT;
    config.budget = Some(Budget {
        idle_rtts: 1,
        ..Budget::default()
    });
    let mut rx = ConnectionReceiver::new(Role::Server, config.validate().unwrap());
    let id = sid(0);
    let at = common::at;
    let hour = Rtt::from_sample(Duration::from_secs(3600));
    let pump = |rx: &mut ConnectionReceiver<ExcessTuner>, _now| {
        let end = rx.stream(id).unwrap().limit();
        rx.on_data(id, end, false).unwrap();
        rx.retire_to(id, end).unwrap();
    };
    assert_eq!(rx.on_data(id, 0, false), Ok(0));
    // The pass timer is armed with a 10 ms RTT.
    common::drive(&mut rx, at(0), common::rtt_ms(10));
    assert_eq!(rx.next_timeout(), Some(at(10)));
    // A whole window read in 10 ms, scaled to an hour's RTT: the need
    // saturates at u64::MAX.
    pump(&mut rx, at(5));
    common::drive(&mut rx, at(10), hour);
    assert_eq!(rx.flow().estimate(), u64::MAX);
    // Another window read before the next pass: any need > 0 then
    // evaluates `u64::MAX + u64::MAX / 8`.
    pump(&mut rx, at(20));
    let next = rx.next_timeout().unwrap();
    common::drive(&mut rx, next, hour);
    assert!(rx.flow().committed() <= rx.flow().budget());
}
