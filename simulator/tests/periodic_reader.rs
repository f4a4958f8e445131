//! A reader that drains its socket on a timer (`ReaderSpeed::Periodic`):
//! a media player's tick, a UI frame. With the default tuner on
//! gbit-50ms:
//!
//! - waking every 100 ms (two RTTs) and able to read 500 Mbit/s, it gets
//!   ≥ 90 % of that rate with a window near what one wake-up reads (the
//!   tuner judges a reader that drained everything up to the limit over
//!   one RTT, not over the whole gap; judged over the gap it never grew
//!   the window: 28 Mbit/s);
//! - a slow one (5 Mbit/s, every 100 ms) is not auto-tuned: its window
//!   stays at the seed a new stream gets from the connection's initial
//!   estimate (half of the 1 MiB initial connection window); the
//!   rebalancing pass raises busy streams only to shares of a need it
//!   measured, and this reader never shows one.
//!
//! Run with `cargo test -p neqo-fc-sim --test periodic_reader -- --nocapture`.

use std::time::Duration;

use neqo_fc_sim::{
    metrics::Metrics,
    net::{PathConfig, bdp_bytes},
    run,
    scenario::{ReaderSpeed, Scenario, Workload, WorkloadKind},
};

const GBIT: u64 = 1_000_000_000;
const RTT: Duration = Duration::from_millis(50);
const PERIOD: Duration = Duration::from_millis(100);

fn gbit_50ms() -> PathConfig {
    PathConfig {
        rate_bps: Some(GBIT),
        queue_bytes: bdp_bytes(GBIT, RTT),
        delay: RTT / 2,
        ..PathConfig::default()
    }
}

fn periodic(bps: u64, bytes: u64) -> Metrics {
    let w = Workload {
        kind: WorkloadKind::Bulk { bytes },
        streams: 1,
        reader: ReaderSpeed::Periodic {
            bps,
            period: PERIOD,
        },
        stall: None,
    };
    let m = run(&Scenario::new(gbit_50ms(), w)).metrics;
    assert_eq!(m.error, None);
    assert!(m.completed);
    assert_eq!(m.bytes, bytes);
    m
}

/// Bytes one wake-up may read.
fn per_wakeup(bps: u64) -> u64 {
    bdp_bytes(bps, PERIOD)
}

#[test]
fn a_fast_periodic_reader_gets_its_rate() {
    let bps = 500_000_000;
    let m = periodic(bps, 1 << 30);
    eprintln!(
        "500 Mbit/s every 100 ms: goodput {:.1} Mbit/s, peak window {} B ({:.2} x one wake-up), \
         peak buffer {} B",
        m.goodput_bps / 1e6,
        m.peak_stream_window,
        m.peak_stream_window as f64 / per_wakeup(bps) as f64,
        m.peak_recv_buffer
    );
    #[allow(clippy::cast_precision_loss)]
    let floor = 0.9 * bps as f64;
    assert!(m.goodput_bps >= floor, "{}", m.goodput_bps);
    // Memory near one wake-up's worth, which the reader needs buffered.
    assert!(
        m.peak_stream_window <= 2 * per_wakeup(bps),
        "{}",
        m.peak_stream_window
    );
    assert!(
        m.peak_recv_buffer <= 2 * per_wakeup(bps),
        "{}",
        m.peak_recv_buffer
    );
}

#[test]
fn a_slow_periodic_reader_stays_within_the_start_up_share() {
    let bps = 5_000_000;
    let m = periodic(bps, 4 << 20);
    eprintln!(
        "5 Mbit/s every 100 ms: goodput {:.2} Mbit/s, peak window {} B, peak buffer {} B",
        m.goodput_bps / 1e6,
        m.peak_stream_window,
        m.peak_recv_buffer
    );
    // The first stream's seed; auto-tuning would go past it.
    let config = neqo_fc::Config::default();
    let start_up_share = config.seed_window(config.initial_connection_window);
    assert!(
        m.peak_stream_window <= start_up_share,
        "{}",
        m.peak_stream_window
    );
    assert!(
        m.peak_recv_buffer <= start_up_share,
        "{}",
        m.peak_recv_buffer
    );
    #[allow(clippy::cast_precision_loss)]
    let floor = 0.95 * bps as f64;
    assert!(m.goodput_bps >= floor, "{}", m.goodput_bps);
}
