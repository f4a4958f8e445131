//! Delay the path adds (issue #42): the default tuner, whose delay probe
//! may grow the window past the minimum-RTT rule's fixed point, against the
//! same rule without it (`ExcessTuner::MIN_RTT_ONLY`). Every number is
//! simulated, hence exact; each test prints its numbers (`--nocapture`).
//!
//! Run with `cargo test -p neqo-fc-sim --test varying_delay`.

use std::{sync::Arc, time::Duration};

use neqo_fc::ExcessTuner;
use neqo_fc_sim::{
    metrics::Metrics,
    net::{PathConfig, bdp_bytes},
    run,
    scenario::{Scenario, Workload},
};

const MIB: u64 = 1 << 20;

/// `rate` bit/s, `rtt` of propagation, a one-BDP tail-drop queue, and up
/// to `jitter` of extra delay on the data direction, order kept.
fn path(rate: u64, rtt: Duration, queue_bdps: u64, jitter: Duration) -> PathConfig {
    PathConfig {
        queue_bytes: bdp_bytes(rate, rtt) * queue_bdps,
        jitter,
        jitter_reorders: false,
        ..PathConfig::tail_drop(rate, rtt)
    }
}

/// One stream of `bytes` with the default tuner, without its probe, and
/// with unlimited windows.
fn three_ways(path: PathConfig, bytes: u64) -> [Metrics; 3] {
    let s = Scenario::new(path, Workload::bulk(bytes));
    let mut min_rtt = s.clone();
    min_rtt.tuner = Arc::new(ExcessTuner::MIN_RTT_ONLY);
    let runs = [run(&s), run(&min_rtt), run(&s.unlimited_windows())].map(|r| r.metrics);
    for (name, m) in ["default", "min-rtt", "unlimited"].iter().zip(&runs) {
        assert!(m.completed && m.error.is_none(), "{name}: {m:?}");
        eprintln!(
            "{name:9}: {:.1} Mbit/s, peak stream window {} B, drops {}",
            m.goodput_bps / 1e6,
            m.peak_stream_window,
            m.drops
        );
    }
    runs
}

/// 1 Gbit/s, 60 ms, up to 30 ms more one way: a window-limited reader reads
/// a window per 60–120 ms, so the minimum-RTT rule sees no excess and stops
/// short. The probe's steps pay while the rate rises with them. The window
/// stays within the memory bound, twice the rate times the RTT plus
/// the largest extra delay.
#[test]
fn under_jitter_the_probe_grows_the_window_the_minimum_rtt_stops_short_of() {
    let (rate, rtt, jitter) = (
        1_000_000_000,
        Duration::from_millis(60),
        Duration::from_millis(30),
    );
    let [probe, min_rtt, free] = three_ways(path(rate, rtt, 1, jitter), 1024 * MIB);
    assert!(
        probe.goodput_bps >= 1.1 * min_rtt.goodput_bps,
        "{} vs {}",
        probe.goodput_bps,
        min_rtt.goodput_bps
    );
    assert!(probe.goodput_bps >= 0.95 * free.goodput_bps);
    assert!(probe.peak_stream_window > min_rtt.peak_stream_window);
    assert!(probe.peak_stream_window <= 2 * bdp_bytes(rate, rtt + jitter));
}

/// 50 Mbit/s, 40 ms, a 50-BDP queue that only our flow fills: the smoothed
/// RTT grows with the window, so every probe would look needed, but the link
/// is full and the rate cannot rise. One probe, unpaid, and none after: the
/// window ends at most one step (1/16) above the rule's without probes, at
/// the same goodput.
#[test]
fn a_full_link_costs_at_most_one_probe_step() {
    let (rate, rtt) = (50_000_000, Duration::from_millis(40));
    let [probe, min_rtt, _] = three_ways(path(rate, rtt, 50, Duration::ZERO), 64 * MIB);
    let step = ExcessTuner::DEFAULT
        .probe_step
        .of(min_rtt.peak_stream_window);
    assert!(
        probe.peak_stream_window <= min_rtt.peak_stream_window + step,
        "{} > {} + {step}",
        probe.peak_stream_window,
        min_rtt.peak_stream_window
    );
    assert!(probe.goodput_bps >= 0.995 * min_rtt.goodput_bps);
}
