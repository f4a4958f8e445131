//! Gigabit smoke test (issue #3): the default receive-window tuner must not
//! hold back a 1 GiB download on a 1 Gbit/s, 50 ms path, and neqo's own
//! benchmark path must run near line rate.
//!
//! Run with `cargo test --test gigabit` (about 1 s of CPU per
//! 1 GiB run; all numbers are simulated, so the asserts are exact).

use std::{sync::Arc, time::Duration};

use neqo_fc::ExcessTuner;

use neqo_fc_sim::{
    metrics::Metrics,
    net::{GIGABIT_BPS, GIGABIT_RTT, PathConfig, bdp_bytes},
    run,
    scenario::{Scenario, Workload},
};

const GIB: u64 = 1 << 30;

/// One stream of 1 GiB, read as soon as it arrives.
fn one_gib() -> Workload {
    Workload::bulk(GIB)
}

fn assert_complete(m: &Metrics) {
    assert!(m.completed, "{m:?}");
    assert_eq!(m.error, None, "{m:?}");
    assert_eq!(m.bytes, GIB, "{m:?}");
}

fn mbit(bps: f64) -> f64 {
    bps / 1e6
}

/// Default tuner and initial windows (`Scenario::new`) against unlimited
/// windows, same seed: ≥ 900 Mbit/s over the whole transfer, at most 2 %
/// slower than unlimited, and a peak stream window ≤ 1.6 × BDP for the rule
/// itself (`ExcessTuner::MIN_RTT_ONLY`), plus at most one delay-probe step
/// (1/16) for the default: the link is full, so a probe does not pay and no
/// other follows (`neqo-fc/src/receiver/probe.rs`).
#[test]
fn default_tuner_keeps_up_with_a_gigabit_path() {
    let s = Scenario::new(PathConfig::gigabit(), one_gib());
    let fc = run(&s).metrics;
    let free = run(&s.clone().unlimited_windows()).metrics;
    let bdp = bdp_bytes(GIGABIT_BPS, GIGABIT_RTT);
    eprintln!(
        "gigabit 1 GiB, default tuner: goodput {:.2} Mbit/s, completion {:?}, \
         peak stream window {} B = {:.3} BDP, peak conn window {} B, fc_blocked {:?}, \
         drops {}, events {}",
        mbit(fc.goodput_bps),
        fc.duration,
        fc.peak_stream_window,
        fc.peak_stream_window as f64 / bdp as f64,
        fc.peak_conn_window,
        fc.fc_blocked,
        fc.drops,
        fc.events
    );
    eprintln!(
        "gigabit 1 GiB, unlimited windows: goodput {:.2} Mbit/s, completion {:?} \
         (default / unlimited = {:.4}), drops {}, events {}",
        mbit(free.goodput_bps),
        free.duration,
        fc.duration.as_secs_f64() / free.duration.as_secs_f64(),
        free.drops,
        free.events
    );
    assert_complete(&fc);
    assert_complete(&free);
    assert!(
        fc.goodput_bps >= 900e6,
        "goodput {:.2} Mbit/s < 900",
        mbit(fc.goodput_bps)
    );
    assert!(
        fc.duration.as_secs_f64() <= 1.02 * free.duration.as_secs_f64(),
        "completion {:?} > 1.02 x unlimited {:?}",
        fc.duration,
        free.duration
    );
    let mut rule = s.clone();
    rule.tuner = Arc::new(ExcessTuner::MIN_RTT_ONLY);
    let rule = run(&rule).metrics;
    assert_complete(&rule);
    assert!(
        rule.peak_stream_window as f64 <= 1.6 * bdp as f64,
        "peak stream window without probes {} > 1.6 x BDP {bdp}",
        rule.peak_stream_window
    );
    let one_step = ExcessTuner::DEFAULT.probe_step.of(rule.peak_stream_window);
    assert!(
        fc.peak_stream_window <= rule.peak_stream_window + one_step,
        "peak stream window {} > {} + one probe step {one_step}",
        fc.peak_stream_window,
        rule.peak_stream_window
    );
}

/// neqo's gigabit benchmark path: 1 Gbit/s, 40 ms RTT, 500,000-byte
/// queue (0.1 BDP), 80 bytes of per-packet overhead.
fn neqo_bench_path() -> PathConfig {
    let rtt = Duration::from_millis(40);
    PathConfig {
        rate_bps: Some(GIGABIT_BPS),
        queue_bytes: 500_000,
        overhead_bytes: 80,
        delay: rtt / 2,
        ..PathConfig::default()
    }
}

fn print_bench(name: &str, m: &Metrics) {
    eprintln!(
        "neqo bench path 1 GiB, {name}: goodput {:.2} Mbit/s, completion {:?}, \
         peak stream window {} B, peak cwnd {} B, fc_blocked {:?}, drops {}, link util {:.4}, \
         events {}",
        mbit(m.goodput_bps),
        m.duration,
        m.peak_stream_window,
        m.peak_cwnd,
        m.fc_blocked,
        m.drops,
        m.link_utilisation,
        m.events
    );
}

/// neqo's bench path, 1 GiB, default tuner: ≥ 850 Mbit/s.
///
/// TARGET not met (`--ignored` prints today's goodput). Not a
/// flow-control problem: with unlimited windows the same run is about as
/// fast (the next test holds the two within 2 %). CUBIC is the limit: the
/// queue is a tenth of the BDP, so each congestion event takes cwnd to
/// 0.7 × (BDP + queue), below the BDP, and the link idles while CUBIC's
/// concave regrowth creeps back.
#[test]
#[ignore = "TARGET not met: below 850 Mbit/s; CUBIC with a 0.1-BDP queue, not flow control"]
fn neqo_bench_path_runs_near_line_rate() {
    let m = run(&Scenario::new(neqo_bench_path(), one_gib())).metrics;
    print_bench("default tuner", &m);
    assert_complete(&m);
    assert!(
        m.goodput_bps >= 850e6,
        "goodput {:.2} Mbit/s < 850",
        mbit(m.goodput_bps)
    );
}

/// On neqo's bench path the default tuner costs nothing against unlimited
/// windows (completion within 2 %, the gigabit path's bound).
#[test]
fn neqo_bench_path_default_tuner_matches_unlimited() {
    let s = Scenario::new(neqo_bench_path(), one_gib());
    let fc = run(&s).metrics;
    let free = run(&s.unlimited_windows()).metrics;
    print_bench("default tuner", &fc);
    print_bench("unlimited windows", &free);
    assert_complete(&fc);
    assert_complete(&free);
    assert!(
        fc.duration.as_secs_f64() <= 1.02 * free.duration.as_secs_f64(),
        "completion {:?} > 1.02 x unlimited {:?}",
        fc.duration,
        free.duration
    );
}
