//! Same scenario and seed → same run, bit for bit (issue #3); the seed
//! matters exactly when the scenario draws random numbers (loss, jitter).
//!
//! Run with `cargo test -p neqo-fc-sim --test determinism`.

use std::time::Duration;

use neqo_fc_sim::{
    net::{LossModel, PathConfig},
    quic::cc::CcAlgorithm,
    run,
    scenario::{ReaderSpeed, RunResult, Scenario, Stall, Workload, WorkloadKind},
    trace::TraceLevel,
};

/// 20 Mbit/s, 20 ms one way, 100 kB queue, with the given randomness.
fn path(loss: LossModel, jitter: Duration) -> PathConfig {
    PathConfig {
        rate_bps: Some(20_000_000),
        queue_bytes: 100_000,
        delay: Duration::from_millis(20),
        loss,
        jitter,
        jitter_reorders: !jitter.is_zero(),
        ..PathConfig::default()
    }
}

/// Three streams of 64 kB messages read by a rate-limited reader: the
/// reader's timers, message framing and flow control all keep state.
fn scenario(forward: PathConfig, seed: u64) -> Scenario {
    let workload = Workload {
        kind: WorkloadKind::Messages {
            count: 20,
            size: 64_000,
        },
        streams: 3,
        reader: ReaderSpeed::Rate(15_000_000),
        stall: None,
    };
    let mut s = Scenario::new(forward, workload);
    s.seed = seed;
    s.time_limit = Duration::from_secs(120);
    s
}

/// Asserts two runs are identical in everything they report.
fn assert_identical(a: &RunResult, b: &RunResult) {
    assert_eq!(a.metrics, b.metrics);
    assert_eq!(a.metrics.event_hash, b.metrics.event_hash);
    assert_eq!(a.series, b.series);
    // Trace records have no PartialEq; their Debug form lists every field.
    assert_eq!(a.trace.len(), b.trace.len());
    for (x, y) in a.trace.iter().zip(&b.trace) {
        assert_eq!(format!("{x:?}"), format!("{y:?}"));
    }
}

#[test]
fn same_seed_same_run_with_loss_and_jitter() {
    for cc in [CcAlgorithm::Cubic, CcAlgorithm::NewReno] {
        let mut s = scenario(
            path(
                LossModel::GilbertElliott {
                    mean_rate: 0.02,
                    mean_burst: 2.0,
                },
                Duration::from_millis(2),
            ),
            42,
        );
        s.reverse = s.forward.clone();
        s.cc = cc;
        if cc == CcAlgorithm::NewReno {
            // The other stateful reader: one stream stops for 200 ms.
            s.workload.reader = ReaderSpeed::Unlimited;
            s.workload.stall = Some(Stall {
                streams: 1,
                start: Duration::from_millis(300),
                duration: Duration::from_millis(200),
            });
        }
        s.trace = TraceLevel::Full;
        let a = run(&s);
        let b = run(&s.clone());
        assert!(
            a.metrics.completed && a.metrics.drops > 0,
            "{:?}",
            a.metrics
        );
        assert!(!a.series.is_empty() && !a.trace.is_empty());
        assert_identical(&a, &b);
        // Tracing only records: the run itself is the same without it.
        s.trace = TraceLevel::Off;
        let c = run(&s);
        assert_eq!(a.metrics, c.metrics);
        assert_eq!(a.series, c.series);
        assert!(c.trace.is_empty());
    }
}

#[test]
fn same_seed_same_run_in_verify_mode() {
    let mut s = scenario(path(LossModel::Bernoulli { rate: 0.03 }, Duration::ZERO), 7);
    s.verify = true;
    let a = run(&s);
    let b = run(&s);
    assert!(
        a.metrics.completed && a.metrics.verify_failures == 0,
        "{:?}",
        a.metrics
    );
    assert_identical(&a, &b);
    // Verify mode encodes and decodes every packet but sends the same
    // bytes in the same packets: the run is the one without it.
    s.verify = false;
    let c = run(&s);
    assert_eq!(a.metrics, c.metrics);
    assert_eq!(a.series, c.series);
}

/// Event hashes of seeds 1..=5.
fn hashes(forward: &PathConfig) -> Vec<u64> {
    (1..=5)
        .map(|seed| run(&scenario(forward.clone(), seed)).metrics.event_hash)
        .collect()
}

fn all_distinct(h: &[u64]) -> bool {
    let mut sorted = h.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    sorted.len() == h.len()
}

#[test]
fn seed_changes_the_run_when_loss_is_configured() {
    let h = hashes(&path(LossModel::Bernoulli { rate: 0.01 }, Duration::ZERO));
    assert!(all_distinct(&h), "{h:?}");
}

#[test]
fn seed_changes_the_run_when_jitter_is_configured() {
    let h = hashes(&path(LossModel::None, Duration::from_micros(500)));
    assert!(all_distinct(&h), "{h:?}");
}

#[test]
fn seed_is_irrelevant_without_randomness() {
    let forward = path(LossModel::None, Duration::ZERO);
    let h = hashes(&forward);
    assert!(h.iter().all(|&x| x == h[0]), "{h:?}");
    let a = run(&scenario(forward.clone(), 1));
    let b = run(&scenario(forward, u64::MAX));
    assert!(a.metrics.completed, "{:?}", a.metrics);
    assert_identical(&a, &b);
}
