//! Shared test drivers for the algorithms.

use std::time::Duration;

use super::{
    algorithm::CcAlgorithm,
    control::{CcState, CongestionControl},
};
use crate::{quic::rtt::RttEstimator, time::Time};

pub const MDS: u64 = 1200;

pub fn rtt() -> RttEstimator {
    let mut r = RttEstimator::new(Duration::from_millis(100));
    r.update(Duration::from_millis(100), Duration::ZERO, Duration::ZERO);
    r
}

pub fn ms(n: u64) -> Time {
    Time::from_millis(n)
}

/// Sends a full window at `now` in MDS packets and acks all of it one
/// RTT later; returns the ack time.
pub fn round(cc: &mut dyn CongestionControl, now: Time, app_limited: bool) -> Time {
    let n = cc.cwnd() / MDS;
    for _ in 0..n {
        cc.on_packet_sent(now, MDS);
    }
    let ack = now + Duration::from_millis(100);
    for _ in 0..n {
        cc.on_packet_acked(ack, now, MDS, &rtt(), app_limited);
    }
    ack
}

/// Checks what both algorithms share: slow start, in-flight accounting,
/// one reduction per recovery period, app-limited, minimum window.
pub fn shared_behaviour(alg: CcAlgorithm, reduced: fn(u64) -> u64) {
    let mut cc = alg.build(MDS);
    assert_eq!(cc.cwnd(), 12_000);
    assert_eq!(cc.ssthresh(), u64::MAX);
    assert_eq!(cc.state(), CcState::SlowStart);

    // Slow start doubles per round of acks.
    let mut now = ms(0);
    for expect in [24_000, 48_000, 96_000] {
        now = round(cc.as_mut(), now, false);
        assert_eq!(cc.cwnd(), expect);
        assert_eq!(cc.bytes_in_flight(), 0);
    }

    // App-limited acks do not grow the window.
    let t = round(cc.as_mut(), now, true);
    assert_eq!(cc.cwnd(), 96_000);
    assert_eq!(cc.state(), CcState::ApplicationLimited);
    now = round(cc.as_mut(), t, false);
    assert_eq!(cc.cwnd(), 192_000);

    // Loss: one reduction.
    for _ in 0..10 {
        cc.on_packet_sent(now, MDS);
    }
    let loss_at = now + Duration::from_millis(100);
    cc.on_packets_lost(loss_at, now, MDS);
    let w = reduced(192_000);
    assert_eq!(cc.cwnd(), w);
    assert_eq!(cc.ssthresh(), w);
    assert_eq!(cc.bytes_in_flight(), 9 * MDS);
    assert_eq!(cc.state(), CcState::Recovery);
    // A later loss of a packet sent before the recovery start does nothing.
    cc.on_packets_lost(loss_at + Duration::from_millis(1), now, MDS);
    cc.on_packets_lost(loss_at + Duration::from_millis(1), loss_at, MDS);
    assert_eq!(cc.cwnd(), w);
    assert_eq!(cc.bytes_in_flight(), 7 * MDS);
    // Acks of packets sent before recovery start: no growth, still recovery.
    for _ in 0..7 {
        cc.on_packet_acked(loss_at, now, MDS, &rtt(), false);
    }
    assert_eq!(cc.cwnd(), w);
    assert_eq!(cc.state(), CcState::Recovery);
    assert_eq!(cc.bytes_in_flight(), 0);

    // A packet sent after recovery start ends recovery.
    let sent = loss_at + Duration::from_millis(1);
    cc.on_packet_sent(sent, MDS);
    cc.on_packet_acked(sent + Duration::from_millis(100), sent, MDS, &rtt(), false);
    assert_eq!(cc.state(), CcState::CongestionAvoidance);
    // A loss of a packet sent after the recovery start is a new event.
    let before = cc.cwnd();
    cc.on_packet_sent(sent, MDS);
    cc.on_packets_lost(sent + Duration::from_millis(200), sent, MDS);
    assert_eq!(cc.cwnd(), reduced(before));

    // Discard: out of flight, no signal.
    cc.on_packet_sent(sent, 500);
    cc.on_packet_discarded(500);
    assert_eq!(cc.bytes_in_flight(), 0);
    assert_eq!(cc.cwnd(), reduced(before));

    // Persistent congestion: minimum window, then slow start again.
    cc.on_persistent_congestion();
    assert_eq!(cc.cwnd(), 2 * MDS);
    assert_eq!(cc.state(), CcState::SlowStart);
    // Repeated losses never go below the minimum window.
    let mut t = sent + Duration::from_secs(1);
    for _ in 0..5 {
        cc.on_packet_sent(t, MDS);
        cc.on_packets_lost(t + Duration::from_millis(1), t, MDS);
        t += Duration::from_millis(10);
        assert_eq!(cc.cwnd(), 2 * MDS);
    }
    assert_eq!(cc.bytes_in_flight(), 0);
}
