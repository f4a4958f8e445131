//! ECN end to end (RFC 9000 §13.4, RFC 9002 §7.1 and Appendix B.7): a
//! CoDel bottleneck marks an ECN-capable transport's packets instead of
//! dropping them, the receiver counts the marks into its ACKs, and the
//! sender backs off on them without losing a packet.
//!
//! The path: 100 Mbit/s, 20 ms, a queue of 8 BDP (so tail drop never
//! happens before CoDel acts), 40 MB in one stream. On a path whose
//! middlebox clears or rewrites the ECN field, ECN validation (RFC 9000
//! §13.4.2) fails and the sender falls back to what it does without ECN.

use std::time::Duration;

use neqo_fc_sim::{
    metrics::Metrics,
    net::{EcnRewrite, PathConfig, bdp_bytes},
    quic::ecn_validation::{EcnFailure, EcnState},
    run,
    scenario::{Scenario, Workload},
};

const RATE: u64 = 100_000_000;
const RTT: Duration = Duration::from_millis(20);
const BYTES: u64 = 40_000_000;

fn scenario(codel: bool, ecn: bool) -> Scenario {
    let path = PathConfig {
        rate_bps: Some(RATE),
        queue_bytes: 8 * bdp_bytes(RATE, RTT),
        delay: RTT / 2,
        codel,
        ..PathConfig::default()
    };
    let mut s = Scenario::new(path, Workload::bulk(BYTES));
    s.transport.ecn = ecn;
    s
}

fn metrics(s: &Scenario) -> Metrics {
    let m = run(s).metrics;
    assert!(m.completed, "{m:?}");
    assert_eq!(m.bytes, BYTES);
    m
}

#[test]
fn codel_marks_an_ecn_transport_and_the_sender_backs_off_without_loss() {
    let m = metrics(&scenario(true, true));
    assert!(m.ce_marks > 0, "{m:?}");
    assert!(m.ecn_congestion_events > 0, "{m:?}");
    // One event per recovery period: never more events than marks.
    assert!(m.ecn_congestion_events <= m.ce_marks, "{m:?}");
    assert_eq!(m.drops, 0, "CoDel marks instead of dropping: {m:?}");
    assert_eq!(m.packets_lost, 0, "{m:?}");
    assert_eq!(m.retransmitted_bytes, 0, "{m:?}");
}

/// A healthy path validates: the ACKs' counts account for every marked
/// packet.
#[test]
fn a_healthy_path_validates_ecn() {
    assert_eq!(metrics(&scenario(true, true)).ecn_state, EcnState::Capable);
    assert_eq!(metrics(&scenario(true, false)).ecn_state, EcnState::Off);
}

/// A middlebox that clears the field (the receiver then sends no ECN
/// counts) or rewrites ECT(0) to ECT(1) fails validation on the first
/// ACK: the sender stops marking, CoDel drops instead of marking, and the
/// run is the run without ECN — the same drops and losses, and the same
/// time but for the few bytes of ECN counts in the ACKs the client's
/// packets (on an unmangled reverse path) still earn: they move the window
/// updates' timing, which the tuner reads (0.089 % longer with the delay
/// probe held until the rate rises, 0.100 % since it also starts again on
/// a falling rate; the bound is twice the first).
#[test]
fn a_path_that_mangles_ecn_fails_validation_and_falls_back_to_loss() {
    let without = metrics(&scenario(true, false));
    for (rewrite, why) in [
        (EcnRewrite::Clear, EcnFailure::NoCounts),
        (EcnRewrite::Ect1, EcnFailure::Ect1Reported),
    ] {
        let mut s = scenario(true, true);
        s.forward.ecn_rewrite = rewrite;
        let m = metrics(&s);
        assert_eq!(m.ecn_state, EcnState::Failed(why), "{rewrite:?}");
        assert_eq!(m.ecn_congestion_events, 0, "{m:?}");
        assert!(m.packets_lost > 0, "{m:?}");
        assert_eq!(
            (m.drops, m.packets_lost),
            (without.drops, without.packets_lost),
            "{rewrite:?}"
        );
        let ratio = m.duration.as_secs_f64() / without.duration.as_secs_f64();
        assert!((ratio - 1.0).abs() < 0.002, "{rewrite:?}: {ratio}");
    }
}

#[test]
fn without_ecn_the_same_codel_drops_and_the_sender_loses_packets() {
    let m = metrics(&scenario(true, false));
    assert_eq!(m.ce_marks, 0, "{m:?}");
    assert_eq!(m.ecn_congestion_events, 0, "{m:?}");
    assert!(m.drops > 0, "{m:?}");
    assert!(m.packets_lost > 0, "{m:?}");
}

#[test]
fn ecn_on_a_tail_drop_path_is_never_marked() {
    let m = metrics(&scenario(false, true));
    assert_eq!(m.ce_marks, 0, "{m:?}");
    assert_eq!(m.ecn_congestion_events, 0, "{m:?}");
}

/// ACKs with ECN counts cross the wire as type 0x03 frames and decode back
/// to the same counts: the verified run sees the same marks, events and
/// timing as the run with virtual frames.
#[test]
fn ecn_counts_survive_the_wire_encoding() {
    let plain = metrics(&scenario(true, true));
    let mut s = scenario(true, true);
    s.verify = true;
    let verified = metrics(&s);
    assert_eq!(verified.verify_failures, 0);
    assert_eq!(verified.ce_marks, plain.ce_marks);
    assert_eq!(verified.ecn_congestion_events, plain.ecn_congestion_events);
    assert_eq!(verified.duration, plain.duration);
}

#[test]
fn same_seed_same_marks() {
    let a = metrics(&scenario(true, true));
    let b = metrics(&scenario(true, true));
    assert_eq!(a.event_hash, b.event_hash);
    assert_eq!(a.ce_marks, b.ce_marks);
}
