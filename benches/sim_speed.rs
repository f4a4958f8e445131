//! Simulator speed: wall time and simulated events per second for the
//! 1 GiB gigabit download (1 Gbit/s, 50 ms RTT, one-BDP tail-drop queue),
//! with the default tuner and with unlimited windows. Target: ≤ 1.5 s of
//! wall time per run in release.
//!
//! `cargo bench --bench sim_speed` (set `SIM_SPEED_ITERS` to change the 5
//! timed runs per case). Run as a test (`cargo test --benches`) it does one
//! small run only, to check that the bench still builds and works.

use std::time::{Duration, Instant};

use neqo_fc_sim::{
    net::PathConfig,
    run,
    scenario::{Scenario, Workload},
};

const TARGET: Duration = Duration::from_millis(1500);

/// The gigabit download of `bytes`; `unlimited` lifts every flow-control
/// limit.
fn scenario(bytes: u64, unlimited: bool) -> Scenario {
    let s = Scenario::new(PathConfig::gigabit(), Workload::bulk(bytes));
    if unlimited { s.unlimited_windows() } else { s }
}

/// One timed run: (wall time, simulated events).
fn timed(s: &Scenario) -> (Duration, u64) {
    let start = Instant::now();
    let r = run(s);
    let wall = start.elapsed();
    assert!(r.metrics.completed, "{:?}", r.metrics);
    (wall, r.metrics.events)
}

fn bench(name: &str, s: &Scenario, iters: usize) {
    let _ = timed(s); // warm-up: page in code and allocator arenas
    let mut walls = Vec::with_capacity(iters);
    let mut events = 0;
    for i in 0..iters {
        let (wall, ev) = timed(s);
        events = ev;
        println!(
            "{name} run {i}: {:.3} s, {ev} events, {:.2} M events/s, {:.0} ns/event",
            wall.as_secs_f64(),
            ev as f64 / wall.as_secs_f64() / 1e6,
            wall.as_nanos() as f64 / ev as f64
        );
        walls.push(wall);
    }
    walls.sort_unstable();
    let min = walls[0];
    let median = walls[walls.len() / 2];
    println!(
        "{name}: min {:.3} s, median {:.3} s, max {:.3} s over {iters} runs; {events} events; \
         {:.2} M events/s at the median; target <= {:.1} s: {}",
        min.as_secs_f64(),
        median.as_secs_f64(),
        walls[walls.len() - 1].as_secs_f64(),
        events as f64 / median.as_secs_f64() / 1e6,
        TARGET.as_secs_f64(),
        if median <= TARGET { "met" } else { "NOT met" }
    );
}

fn main() {
    let benching = std::env::args().any(|a| a == "--bench");
    if !benching {
        // Test mode: one small run.
        let (wall, events) = timed(&scenario(32 << 20, false));
        println!("sim_speed smoke run: 32 MiB, {events} events, {wall:?}");
        return;
    }
    let iters = std::env::var("SIM_SPEED_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5usize)
        .max(1);
    bench(
        "gigabit 1 GiB default tuner",
        &scenario(1 << 30, false),
        iters,
    );
    bench(
        "gigabit 1 GiB unlimited windows",
        &scenario(1 << 30, true),
        iters,
    );
}
