//! Closed-loop model of one stream limited only by flow control.
//!
//! An idealised sender (infinite data, no congestion control) sends as soon
//! as it has credit, serialising at the link rate R; data arrives one-way
//! delay (RTT / 2) after it left the link. The receiver retires everything
//! on arrival, sends MAX_STREAM_DATA / MAX_DATA as soon as `update_due()`,
//! and those reach the sender RTT / 2 later. Default `Config` and tuner,
//! except the stream starts at a 64 KiB window (initial limit 64 KiB); the
//! connection window is kept ≥ 1.5 × the stream window with
//! `cover_stream_window`, so it never limits.
//!
//! Targets (from the issue): after convergence the flow sustains ≥ 95 % of
//! R; the window stays ≤ 1.6 × BDP; it reaches the BDP within
//! ⌈log2(BDP / 64 KiB)⌉ + 3 RTTs (slow start's pace). Paths whose 4/3 × BDP
//! is above the stream window cap (32 MiB) must reach the cap instead.

mod common;

use std::{collections::VecDeque, time::Duration};

use common::base;
use neqo_fc::{
    Config, Connection, ExcessTuner, ReceiverFlowControl, Rtt, SenderFlowControl, StreamId,
};

const INITIAL_WINDOW: u64 = 64 << 10;
const NS_PER_S: u128 = 1_000_000_000;

/// A network path: link rate in bit/s and round-trip time.
#[derive(Clone, Copy, Debug)]
struct Path {
    rate_bps: u64,
    rtt: Duration,
}

impl Path {
    /// Bandwidth-delay product in bytes.
    fn bdp(self) -> u64 {
        u64::try_from(u128::from(self.rate_bps) * self.rtt.as_nanos() / 8 / NS_PER_S).unwrap()
    }

    /// Time to serialise `bytes` at the link rate, rounded up, in ns.
    fn tx_ns(self, bytes: u64) -> u64 {
        let bits = u128::from(bytes) * 8 * NS_PER_S;
        u64::try_from(bits.div_ceil(u128::from(self.rate_bps))).unwrap()
    }

    fn rtt_ns(self) -> u64 {
        u64::try_from(self.rtt.as_nanos()).unwrap()
    }
}

/// What one run measured.
#[derive(Debug)]
struct Outcome {
    bdp: u64,
    cap: u64,
    /// Largest stream window during the run.
    max_window: u64,
    /// When the stream window first reached the BDP (ns), if it did.
    reached_bdp_ns: Option<u64>,
    /// When the stream window first reached the tuner cap (ns), if it did.
    reached_cap_ns: Option<u64>,
    /// Delivered rate over the late measurement interval, in bit/s.
    late_rate_bps: f64,
    /// Sends where the connection credit, not the stream's, was smaller.
    connection_limited: u64,
    /// Simulated time and data-chunk count, for the log.
    end_ns: u64,
    chunks: u64,
}

/// Allowed ramp time in RTTs: ⌈log2(BDP / 64 KiB)⌉ + 3 (0 + 3 when the BDP
/// fits the initial window).
fn ramp_rtts(bdp: u64) -> u64 {
    let mut doublings = 0;
    let mut w = INITIAL_WINDOW;
    while w < bdp {
        w *= 2;
        doublings += 1;
    }
    doublings + 3
}

/// Who an update frame is for.
#[derive(Clone, Copy)]
enum Frame {
    MaxStreamData(u64),
    MaxData(u64),
}

fn simulate(path: Path) -> Outcome {
    let config = Config::default().validate().unwrap();
    let tuner = ExcessTuner::DEFAULT;
    let rtt = Rtt::from_sample(path.rtt);
    let rtt_ns = path.rtt_ns();
    let one_way = rtt_ns / 2;
    let bdp = path.bdp();
    let cap = config.max_stream_window;

    let mut conn = ReceiverFlowControl::new(Connection, &config);
    // The default initial stream window is the 64 KiB start.
    assert_eq!(config.initial_stream_window, INITIAL_WINDOW);
    let mut stream = ReceiverFlowControl::new(StreamId(0), &config);
    let mut credit_stream = SenderFlowControl::new(StreamId(0), INITIAL_WINDOW);
    let mut credit_conn = SenderFlowControl::new(Connection, conn.limit());

    // Ramp allowance, then settle, then measure: each at least 10 RTTs and
    // long enough for 200 full-size packets on slow links.
    let slow_floor = path.tx_ns(1200) * 200;
    let measure = (10 * rtt_ns).max(slow_floor);
    let measure_start = ramp_rtts(bdp.min(cap)) * rtt_ns + (10 * rtt_ns).max(slow_floor);
    let end = measure_start + measure;

    let mut arrivals: VecDeque<(u64, u64)> = VecDeque::new(); // (time, end offset)
    let mut updates: VecDeque<(u64, Frame)> = VecDeque::new();
    let mut now = 0u64;
    let mut link_free = 0u64;
    let mut out = Outcome {
        bdp,
        cap,
        max_window: stream.window(),
        reached_bdp_ns: (stream.window() >= bdp).then_some(0),
        reached_cap_ns: None,
        late_rate_bps: 0.0,
        connection_limited: 0,
        end_ns: end,
        chunks: 0,
    };
    let mut late_bytes = 0u64;

    loop {
        let available = credit_stream.available().min(credit_conn.available());
        let next_send = if available > 0 {
            link_free.max(now)
        } else {
            u64::MAX
        };
        let next_arrival = arrivals.front().map_or(u64::MAX, |a| a.0);
        let next_update = updates.front().map_or(u64::MAX, |u| u.0);
        let t = next_send.min(next_arrival).min(next_update);
        if t > end {
            break;
        }
        now = t;
        let at = base() + Duration::from_nanos(now);

        if next_arrival == t {
            let (_, offset) = arrivals.pop_front().unwrap();
            let new = stream
                .on_data(offset, false)
                .expect("within the stream limit");
            conn.consume(new).expect("within the connection limit");
            let read = stream.retire_to(offset).unwrap();
            conn.add_retired(read).unwrap();
            if now >= measure_start {
                late_bytes += read;
            }
            if let Some(u) = stream.send_update(at, rtt, &tuner) {
                updates.push_back((now + one_way, Frame::MaxStreamData(u.limit)));
            }
            let w = stream.window();
            out.max_window = out.max_window.max(w);
            if w >= bdp && out.reached_bdp_ns.is_none() {
                out.reached_bdp_ns = Some(now);
            }
            if w >= cap && out.reached_cap_ns.is_none() {
                out.reached_cap_ns = Some(now);
            }
            conn.cover_stream_window(w, config.connection_floor);
            if let Some(u) = conn.send_update(at, rtt, &tuner) {
                updates.push_back((now + one_way, Frame::MaxData(u.limit)));
            }
        } else if next_update == t {
            match updates.pop_front().unwrap().1 {
                Frame::MaxStreamData(l) => credit_stream.update(l),
                Frame::MaxData(l) => credit_conn.update(l),
            };
        } else {
            if credit_conn.available() < credit_stream.available() {
                out.connection_limited += 1;
            }
            // Packet size only sets the model's granularity: ~1/64 of the
            // window, between one 1,200-byte packet and 64 KiB.
            let chunk = (stream.window() / 64).clamp(1200, 64 << 10);
            let n = chunk.min(available);
            assert_eq!(credit_stream.consume(n), n);
            assert_eq!(credit_conn.consume(n), n);
            link_free = now + path.tx_ns(n);
            arrivals.push_back((link_free + one_way, credit_stream.used()));
            out.chunks += 1;
        }
    }
    #[allow(clippy::cast_precision_loss)]
    {
        out.late_rate_bps = late_bytes as f64 * 8.0 / (measure as f64 / 1e9);
    }
    out
}

/// Runs one path and asserts every target; returns a one-line summary.
fn check(path: Path) -> String {
    let o = simulate(path);
    let rtt_ns = path.rtt_ns();
    let rtts = |ns: Option<u64>| ns.map_or(f64::NAN, |n| n as f64 / rtt_ns as f64);
    #[allow(clippy::cast_precision_loss)]
    let summary = format!(
        "{:>8.1} Mbit/s {:>6.1} ms  BDP {:>10}  max window {:>9} ({:.2}×BDP)  \
         BDP@{:.1} RTT (allowed {})  cap@{:.1} RTT  late rate {:.1} %  chunks {}",
        path.rate_bps as f64 / 1e6,
        path.rtt.as_secs_f64() * 1e3,
        o.bdp,
        o.max_window,
        o.max_window as f64 / o.bdp.max(1) as f64,
        rtts(o.reached_bdp_ns),
        ramp_rtts(o.bdp),
        rtts(o.reached_cap_ns),
        o.late_rate_bps / path.rate_bps as f64 * 100.0,
        o.chunks,
    );
    assert_eq!(
        o.connection_limited, 0,
        "connection window limited: {summary}"
    );
    assert!(o.end_ns > 0);
    if o.bdp.saturating_mul(4) / 3 > o.cap {
        // The cap binds: the window must get there.
        assert!(
            o.reached_cap_ns.is_some(),
            "never reached the cap: {summary}"
        );
        assert_eq!(o.max_window, o.cap, "{summary}");
        return summary;
    }
    #[allow(clippy::cast_precision_loss)]
    let rate_ok = o.late_rate_bps >= 0.95 * path.rate_bps as f64;
    assert!(rate_ok, "below 95 % of the link rate: {summary}");
    if 16 * o.bdp < 10 * INITIAL_WINDOW {
        // 1.6 × BDP is below the initial window: it must not grow at all.
        assert_eq!(
            o.max_window, INITIAL_WINDOW,
            "grew on a tiny BDP: {summary}"
        );
    } else {
        assert!(
            10 * o.max_window <= 16 * o.bdp,
            "window above 1.6 × BDP: {summary}"
        );
    }
    let allowed = ramp_rtts(o.bdp) * rtt_ns;
    assert!(
        o.reached_bdp_ns.is_some_and(|t| t <= allowed),
        "slower than slow start to the BDP: {summary}"
    );
    summary
}

fn mbps(v: f64) -> u64 {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let bps = (v * 1e6) as u64;
    bps
}

#[test]
fn grid_of_paths_meets_the_targets() {
    let mut failures = Vec::new();
    for rate in [1.0, 10.0, 100.0, 1000.0, 10_000.0] {
        for rtt_ms in [1, 10, 50, 200, 500] {
            let path = Path {
                rate_bps: mbps(rate),
                rtt: Duration::from_millis(rtt_ms),
            };
            match std::panic::catch_unwind(|| check(path)) {
                Ok(line) => eprintln!("ok   {line}"),
                Err(_) => failures.push(path),
            }
        }
    }
    assert!(failures.is_empty(), "failing paths: {failures:?}");
}

/// SplitMix64, for reproducible random paths without a dependency.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Log-uniform in `[lo, hi]`.
#[allow(clippy::cast_precision_loss)]
fn log_uniform(state: &mut u64, lo: f64, hi: f64) -> f64 {
    let u = (splitmix(state) >> 11) as f64 / (1u64 << 53) as f64;
    (lo.ln() + u * (hi.ln() - lo.ln())).exp()
}

#[test]
fn random_paths_meet_the_targets() {
    let mut state = 0x00c0_ffee_u64;
    let mut failures = Vec::new();
    for _ in 0..30 {
        let rate = log_uniform(&mut state, 1.0, 10_000.0);
        let rtt_us = log_uniform(&mut state, 1_000.0, 500_000.0);
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let path = Path {
            rate_bps: mbps(rate),
            rtt: Duration::from_micros(rtt_us as u64),
        };
        match std::panic::catch_unwind(|| check(path)) {
            Ok(line) => eprintln!("ok   {line}"),
            Err(_) => failures.push(path),
        }
    }
    assert!(failures.is_empty(), "failing paths: {failures:?}");
}
