//! Runs one bulk download and prints its metrics:
//! `cargo run --release -p neqo-fc-sim --example one_run -- RATE_MBIT RTT_MS MIB [unlimited]`
//! (each number optional, defaults 1000 50 1024; a value that is not a
//! whole number is refused with the usage line, never replaced silently).
//! `INITIAL_WINDOW=BYTES` sets the initial stream window (the connection's
//! is at least 512 KiB); `DUMP=1` prints the first samples.

use std::time::Duration;

use neqo_fc_sim::{
    net::{PathConfig, bdp_bytes},
    run,
    scenario::{Scenario, Workload},
};

const USAGE: &str = "usage: one_run [RATE_MBIT [RTT_MS [MIB [unlimited]]]] \
(whole numbers; defaults 1000 50 1024; env INITIAL_WINDOW=BYTES, DUMP=1)";

/// Argument `i` as a whole number in `1..=max`, `default` when absent;
/// anything else ends the program with the usage line.
fn arg(args: &[String], i: usize, name: &str, default: u64, max: u64) -> u64 {
    let Some(a) = args.get(i) else {
        return default;
    };
    match a.parse::<u64>() {
        Ok(v) if (1..=max).contains(&v) => v,
        _ => fail(&format!(
            "{name}: expected a whole number in 1..={max}, got {a:?}"
        )),
    }
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}\n{USAGE}");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rate = arg(&args, 1, "RATE_MBIT", 1000, 1_000_000) * 1_000_000;
    let rtt = Duration::from_millis(arg(&args, 2, "RTT_MS", 50, 3_600_000));
    let bytes = arg(&args, 3, "MIB", 1024, 1 << 40) << 20;
    let unlimited = match args.get(4).map(String::as_str) {
        None => false,
        Some("unlimited") => true,
        Some(other) => fail(&format!("expected \"unlimited\" or nothing, got {other:?}")),
    };
    if args.len() > 5 {
        fail(&format!("unexpected argument {:?}", args[5]));
    }
    let mut s = Scenario::new(PathConfig::tail_drop(rate, rtt), Workload::bulk(bytes));
    if let Ok(v) = std::env::var("INITIAL_WINDOW") {
        let Ok(w) = v.parse::<u64>() else {
            fail(&format!("INITIAL_WINDOW: expected a byte count, got {v:?}"));
        };
        s.fc.initial_stream_window = w;
        s.fc.initial_connection_window = (w.saturating_mul(2)).max(512 << 10);
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
