//! Runs one bulk download and prints its metrics:
//! `cargo run --release -p neqo-fc-sim --example one_run -- RATE_MBIT RTT_MS MIB [unlimited]`.
//! `INITIAL_WINDOW=BYTES` sets the initial stream window (the connection's
//! is at least 512 KiB); `DUMP=1` prints the first samples.

use std::time::Duration;

use neqo_fc_sim::{
    net::{PathConfig, bdp_bytes},
    run,
    scenario::{Scenario, Workload},
};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, d: u64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let rate = arg(1, 1000) * 1_000_000;
    let rtt = Duration::from_millis(arg(2, 50));
    let bytes = arg(3, 1024) << 20;
    let unlimited = args.get(4).is_some_and(|a| a == "unlimited");
    let mut s = Scenario::new(PathConfig::tail_drop(rate, rtt), Workload::bulk(bytes));
    if let Some(w) = std::env::var("INITIAL_WINDOW")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        s.fc.initial_stream_window = w;
        s.fc.initial_connection_window = (w * 2).max(512 << 10);
    }
    if unlimited {
        s = s.unlimited_windows();
    }
    let start = std::time::Instant::now();
    let r = run(&s);
    let wall = start.elapsed();
    if std::env::var_os("DUMP").is_some() {
        dump(&r.series[..r.series.len().min(60)]);
    }
    let m = &r.metrics;
    println!("bdp {} | {:?}", bdp_bytes(rate, rtt), m);
    println!(
        "goodput {:.1} Mbit/s  dur {:?}  peak stream win {:.2} BDP  wall {:?}  events {}  ({:.0} ns/event)",
        m.goodput_bps / 1e6,
        m.duration,
        m.peak_stream_window as f64 / bdp_bytes(rate, rtt) as f64,
        wall,
        m.events,
        wall.as_nanos() as f64 / m.events as f64
    );
}

/// Prints the first samples (debug aid).
#[allow(dead_code)]
fn dump(series: &[neqo_fc_sim::metrics::Sample]) {
    for s in series {
        println!(
            "{:>8.3} win {:>9} conn {:>9} cwnd {:>9} inflight {:>9} delivered {:>11}",
            s.time.as_secs_f64(),
            s.stream_window,
            s.conn_window,
            s.cwnd,
            s.bytes_in_flight,
            s.delivered
        );
    }
}
