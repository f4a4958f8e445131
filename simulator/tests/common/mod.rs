//! Helpers shared by the integration tests: the path and transfer the ACK
//! tests run on.

use std::time::Duration;

use neqo_fc_sim::{
    net::PathConfig,
    run,
    scenario::{RunResult, Scenario, TransportOptions, Workload},
    trace::TraceLevel,
};

/// The bottleneck rate: 100 Mbit/s.
pub const RATE: u64 = 100_000_000;
/// The round-trip propagation delay, split between the directions.
pub const RTT: Duration = Duration::from_millis(20);
/// The bytes of the one stream.
pub const BYTES: u64 = 20_000_000;

/// [`BYTES`] in one stream over a [`RATE`], [`RTT`] path with `queue_bytes`
/// of tail-drop queue, on `transport`, with the full trace. The transfer
/// must complete.
pub fn traced_bulk(queue_bytes: u64, transport: TransportOptions) -> RunResult {
    let path = PathConfig {
        rate_bps: Some(RATE),
        queue_bytes,
        delay: RTT / 2,
        ..PathConfig::default()
    };
    let mut s = Scenario::new(path, Workload::bulk(BYTES));
    s.transport = transport;
    s.trace = TraceLevel::Full;
    let r = run(&s);
    assert!(r.metrics.completed, "{:?}", r.metrics);
    r
}
