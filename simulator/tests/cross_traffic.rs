//! Cross traffic (issue #42): a second connection on the same path, a bulk
//! download with unlimited windows ([`CrossTraffic`]). Every number is
//! simulated, hence exact; each test prints its numbers (`--nocapture`).
//!
//! Run with `cargo test -p neqo-fc-sim --test cross_traffic`.

use std::time::Duration;

use neqo_fc_sim::{
    metrics::Metrics,
    net::{PathConfig, bdp_bytes},
    run,
    scenario::{CrossTraffic, Scenario, Workload},
};

const RATE: u64 = 100_000_000;
const RTT: Duration = Duration::from_millis(20);
const MB: u64 = 1_000_000;

/// 100 Mbit/s, 20 ms, a tail-drop queue of `queue_bdps` BDPs; one stream
/// of 20 MB with unlimited windows, beside `cross`.
fn unlimited(queue_bdps: u64, cross: Option<CrossTraffic>) -> Metrics {
    let path = PathConfig {
        queue_bytes: bdp_bytes(RATE, RTT) * queue_bdps,
        ..PathConfig::tail_drop(RATE, RTT)
    };
    let mut s = Scenario::new(path, Workload::bulk(20 * MB)).unlimited_windows();
    s.cross = cross;
    let m = run(&s).metrics;
    assert!(m.completed && m.error.is_none(), "{m:?}");
    eprintln!(
        "{cross:?}: ours {:.1} Mbit/s in {:?}, the other {:.1} Mbit/s, link {:.3}, min RTT {:?}",
        m.goodput_bps / 1e6,
        m.duration,
        m.cross_goodput_bps / 1e6,
        m.link_utilisation,
        m.min_rtt
    );
    m
}

/// Alone, ours fills the link. With a connection joining 1 s in, both move
/// data, together they keep the link busy, and neither gets it all.
#[test]
fn a_second_connection_shares_the_bottleneck() {
    let rate = RATE as f64;
    let alone = unlimited(1, None);
    assert!(alone.goodput_bps > 0.9 * rate);
    assert_eq!((alone.cross_bytes, alone.cross_goodput_bps), (0, 0.0));
    let shared = unlimited(
        1,
        Some(CrossTraffic::Second {
            after: Duration::from_secs(1),
        }),
    );
    assert!(shared.goodput_bps < 0.9 * alone.goodput_bps);
    assert!(shared.cross_goodput_bps > 0.1 * rate);
    assert!(shared.goodput_bps + shared.cross_goodput_bps < 1.01 * rate);
    assert!(shared.link_utilisation > 0.9, "{}", shared.link_utilisation);
}

/// Ours starts 2 s after the other connection filled a 10-BDP queue,
/// which CUBIC never drains (it backs off to 0.7 of a window of more than
/// 10 BDPs). The handshake's RTT sample includes that queue, so the
/// minimum RTT never sees the bare path, and our goodput counts from our
/// own start (ours moves 20 MB in less than the 2 s lead would add).
#[test]
fn a_late_connection_meets_the_standing_queue_from_its_handshake() {
    let lead = Duration::from_secs(2);
    let m = unlimited(10, Some(CrossTraffic::First { lead }));
    assert!(m.min_rtt > RTT + RTT / 2, "{:?}", m.min_rtt);
    let floor = Duration::from_secs_f64(20.0 * 8.0 * MB as f64 / RATE as f64);
    assert!(
        m.duration >= floor && m.duration < floor * 10,
        "{:?}",
        m.duration
    );
    assert!(m.goodput_bps > 0.05 * RATE as f64);
}

/// Same scenario, same events: the two connections interleave the same way
/// every time.
#[test]
fn cross_traffic_is_deterministic() {
    let cross = Some(CrossTraffic::Second {
        after: Duration::from_millis(300),
    });
    let (a, b) = (unlimited(1, cross), unlimited(1, cross));
    assert_eq!(
        (a.event_hash, a.bytes, a.cross_bytes, a.duration),
        (b.event_hash, b.bytes, b.cross_bytes, b.duration)
    );
    assert_ne!(a.event_hash, unlimited(1, None).event_hash);
}
