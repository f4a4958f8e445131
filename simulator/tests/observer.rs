//! Watching a run from outside (`run_observed`), why a run ended
//! (`Metrics::end`), and the link time flow control cost
//! (`Metrics::fc_link_idle`).
//!
//! Run with `cargo test -p neqo-fc-sim --test observer`.

use std::{ops::ControlFlow, time::Duration};

use neqo_fc_sim::{
    net::PathConfig,
    progress::{PROGRESS_EVERY, RunEnd},
    run, run_observed,
    scenario::{Scenario, Workload},
};

const MIB: u64 = 1 << 20;

fn gigabit(bytes: u64) -> Scenario {
    Scenario::new(PathConfig::gigabit(), Workload::bulk(bytes))
}

/// An observer that lets the run finish changes nothing; it is called
/// every `PROGRESS_EVERY` events with growing progress.
#[test]
fn a_watching_observer_changes_nothing() {
    let s = gigabit(64 * MIB);
    let plain = run(&s).metrics;
    let mut calls = Vec::new();
    let watched = run_observed(&s, &mut |p| {
        calls.push(*p);
        ControlFlow::Continue(())
    })
    .metrics;
    assert_eq!(watched, plain);
    assert_eq!(plain.end, RunEnd::Completed);
    assert_eq!(calls.len() as u64, plain.events / PROGRESS_EVERY);
    assert!(calls.windows(2).all(|w| w[0].events < w[1].events
        && w[0].now <= w[1].now
        && w[0].delivered <= w[1].delivered));
    assert!(calls.last().is_some_and(|p| p.delivered <= 64 * MIB));
}

/// An observer that stops the run ends it cleanly with what it delivered.
#[test]
fn a_stopping_observer_ends_the_run_with_what_it_got() {
    let s = gigabit(1 << 30);
    let m = run_observed(&s, &mut |_| ControlFlow::Break(())).metrics;
    assert_eq!(m.end, RunEnd::Stopped);
    assert!(!m.completed);
    assert_eq!(m.error, None);
    assert_eq!(m.events, PROGRESS_EVERY);
    assert!(m.bytes > 0 && m.bytes < 1 << 30, "{}", m.bytes);
}

/// The simulated time limit is told apart from the other ends.
#[test]
fn the_time_limit_is_named() {
    let mut s = gigabit(1 << 30);
    s.time_limit = Duration::from_secs(1);
    let m = run(&s).metrics;
    assert_eq!(m.end, RunEnd::TimeLimit);
    assert!(!m.completed);
    assert!(m.duration <= Duration::from_secs(1));
}

/// Flow-control time splits into link-idle and link-busy parts: a static
/// 1 MiB window on a 6 MB BDP leaves the link idle most of the time it
/// blocks the sender, the default tuner hardly ever.
#[test]
fn blocked_time_splits_into_idle_and_busy_link() {
    let mut fixed = gigabit(64 * MIB);
    fixed.fc.initial_stream_window = MIB;
    fixed.fc.max_stream_window = MIB;
    fixed.fc.initial_connection_window = 1 << 30;
    fixed.fc.max_connection_window = 1 << 30;
    fixed.fc.budget = None;
    fixed.tuner = std::sync::Arc::new(neqo_fc_sim::scenario::Fixed);
    let f = run(&fixed).metrics;
    let d = run(&gigabit(1 << 30)).metrics;
    for m in [&f, &d] {
        assert!(m.fc_link_idle <= m.fc_blocked, "{m:?}");
    }
    // Window-limited: most of the run the link waits for credit.
    assert!(
        f.fc_link_idle.as_secs_f64() > 0.5 * f.duration.as_secs_f64(),
        "{f:?}"
    );
    // Auto-tuned: blocked often while the queue stays full, idle rarely.
    assert!(
        d.fc_link_idle.as_secs_f64() < 0.05 * d.duration.as_secs_f64(),
        "{d:?}"
    );
    assert!(d.fc_blocked > 10 * d.fc_link_idle, "{d:?}");
}
