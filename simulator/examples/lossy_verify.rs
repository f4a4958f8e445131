//! Verify-mode run on a lossy, jittery path: every byte must arrive once,
//! in order, and match.

use std::time::Duration;

use neqo_fc_sim::{
    net::{LossModel, PathConfig},
    run,
    scenario::{Scenario, Workload},
};

fn main() {
    let seed: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let path = PathConfig {
        rate_bps: Some(50_000_000),
        queue_bytes: 200_000,
        delay: Duration::from_millis(15),
        loss: LossModel::Bernoulli { rate: 0.05 },
        jitter: Duration::from_millis(3),
        jitter_reorders: true,
        ..PathConfig::default()
    };
    let mut s = Scenario::new(
        path.clone(),
        Workload {
            streams: 3,
            ..Workload::bulk(3_000_000)
        },
    );
    s.reverse = path;
    s.verify = true;
    s.seed = seed;
    s.time_limit = Duration::from_secs(120);
    let r = run(&s);
    println!("{:?}", r.metrics);
}
