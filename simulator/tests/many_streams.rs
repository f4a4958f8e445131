//! Many streams and the memory budget (issue #5), on the simulator with
//! the default configuration (`Scenario::new`: the default tuner, budget
//! on), on two paths with a one-BDP tail-drop queue:
//! `gbit-50ms` (1 Gbit/s, 50 ms) and `residential-cable` (200 Mbit/s,
//! 20 ms).
//!
//! - 100 × 1 MiB and 1,000 × 64 KiB: goodput ≥ 95 % of one stream carrying
//!   the same bytes; credit never above the budget; Jain's fairness ≥
//!   0.95; every stream completes.
//! - one bulk stream beside 50 × 1 MiB whose readers stall at 1 s for 2 s:
//!   the bulk stream keeps ≥ 90 % of the link rate during the stall; the
//!   receive buffer stays within the budget; every stream finishes.
//! - one stream of ten that stops reading for good: the others finish and
//!   the receive buffer stays within the budget.
//!
//! Every number is simulated, hence exact and repeatable; each test prints
//! its numbers (`--nocapture`). Targets the code misses today are
//! `#[ignore = "TARGET not met: …"]` tests that print today's numbers
//! when run with `--ignored` (the 4 MiB stall on gbit-50ms).
//!
//! Run with `cargo test -p neqo-fc-sim --test many_streams`.

use std::time::Duration;

use neqo_fc_sim::{
    metrics::Metrics,
    net::{PathConfig, bdp_bytes},
    run,
    scenario::{ReaderSpeed, Scenario, Stall, Workload, WorkloadKind},
};

const MIB: u64 = 1 << 20;
const KIB: u64 = 1 << 10;

/// A path of the lab: a `rate_bps` bottleneck with a one-BDP tail-drop
/// queue and `rtt` of propagation delay split between the directions.
#[derive(Clone, Copy, Debug)]
struct Path {
    name: &'static str,
    rate_bps: u64,
    rtt: Duration,
}

const GBIT_50MS: Path = Path {
    name: "gbit-50ms",
    rate_bps: 1_000_000_000,
    rtt: Duration::from_millis(50),
};

const CABLE: Path = Path {
    name: "residential-cable",
    rate_bps: 200_000_000,
    rtt: Duration::from_millis(20),
};

impl Path {
    fn config(self) -> PathConfig {
        PathConfig {
            rate_bps: Some(self.rate_bps),
            queue_bytes: self.bdp(),
            delay: self.rtt / 2,
            ..PathConfig::default()
        }
    }

    fn bdp(self) -> u64 {
        bdp_bytes(self.rate_bps, self.rtt)
    }

    /// Bytes the link carries in `secs`, rounded up to a whole MiB.
    fn link_bytes(self, secs: u64) -> u64 {
        (self.rate_bps / 8 * secs).div_ceil(MIB) * MIB
    }
}

#[allow(clippy::cast_precision_loss)]
fn bdps(bytes: u64, path: Path) -> f64 {
    bytes as f64 / path.bdp() as f64
}

/// Runs `workload` on `path` with the default configuration.
fn run_on(path: Path, workload: Workload) -> Metrics {
    let scenario = Scenario::new(path.config(), workload);
    assert!(scenario.fc.budget.is_some(), "the default has the budget");
    let m = run(&scenario).metrics;
    assert_eq!(m.error, None, "{}: {:?}", path.name, m.error);
    m
}

fn workload(kind: WorkloadKind, streams: u32, stall: Option<Stall>) -> Workload {
    Workload {
        kind,
        streams,
        reader: ReaderSpeed::Unlimited,
        stall,
    }
}

fn mbit(bps: f64) -> f64 {
    bps / 1e6
}

/// The memory numbers every test prints.
fn memory_line(m: &Metrics, path: Path) -> String {
    format!(
        "peak credit {:.2} BDP ({} B), budget {:.2} BDP ({} B), {} violations, \
         receive buffer {:.2} BDP ({} B)",
        bdps(m.peak_total_credit, path),
        m.peak_total_credit,
        bdps(m.peak_budget, path),
        m.peak_budget,
        m.budget_violations,
        bdps(m.peak_recv_buffer, path),
        m.peak_recv_buffer
    )
}

/// `peak`, the most `what` held at once, within the peak budget.
fn assert_within_budget(path: Path, what: &str, peak: u64, m: &Metrics) {
    assert!(
        peak <= m.peak_budget,
        "{}: {what} {peak} > budget {}",
        path.name,
        m.peak_budget
    );
}

/// No budget violation, and the credit given and the bytes buffered each
/// within the peak budget.
fn check_memory(path: Path, m: &Metrics) {
    assert_eq!(m.budget_violations, 0, "{}", path.name);
    assert_within_budget(path, "credit", m.peak_total_credit, m);
    assert_within_budget(path, "buffer", m.peak_recv_buffer, m);
}

/// `streams` concurrent streams of `each` bytes against one stream of the
/// same total, on `path`: goodput ≥ 95 % of the single stream's, credit
/// within the budget, fairness ≥ 0.95, every stream complete.
fn many_against_one(path: Path, streams: u32, each: u64) {
    let total = each * u64::from(streams);
    let one = run_on(path, workload(WorkloadKind::Bulk { bytes: total }, 1, None));
    let many = run_on(
        path,
        workload(WorkloadKind::Bulk { bytes: each }, streams, None),
    );
    let ratio = many.goodput_bps / one.goodput_bps;
    eprintln!(
        "{}: {streams} x {} KiB: goodput {:.1} Mbit/s vs one stream of {} MiB {:.1} Mbit/s \
         = {:.1} %; fairness {:.4}; {}; streams done {:.3}..{:.3} s",
        path.name,
        each / KIB,
        mbit(many.goodput_bps),
        total / MIB,
        mbit(one.goodput_bps),
        ratio * 100.0,
        many.fairness_index,
        memory_line(&many, path),
        many.stream_completion
            .iter()
            .min()
            .unwrap_or(&Duration::ZERO)
            .as_secs_f64(),
        many.duration.as_secs_f64(),
    );
    assert!(one.completed && many.completed, "{}", path.name);
    assert_eq!(many.bytes, total);
    assert_eq!(many.stream_completion.len(), streams as usize);
    assert!(
        many.stream_completion.iter().all(|&t| t <= many.duration),
        "every stream done by the end"
    );
    assert!(
        ratio >= 0.95,
        "{}: goodput only {ratio:.4} of one stream's",
        path.name
    );
    assert!(many.peak_budget > 0);
    assert_within_budget(path, "credit", many.peak_total_credit, &many);
    assert_eq!(many.budget_violations, 0, "{}", path.name);
    assert!(
        many.fairness_index >= 0.95,
        "{}: fairness {}",
        path.name,
        many.fairness_index
    );
}

#[test]
fn hundred_streams_of_1mib_gbit_50ms() {
    many_against_one(GBIT_50MS, 100, MIB);
}

#[test]
fn hundred_streams_of_1mib_cable() {
    many_against_one(CABLE, 100, MIB);
}

#[test]
fn thousand_streams_of_64kib_gbit_50ms() {
    many_against_one(GBIT_50MS, 1000, 64 * KIB);
}

#[test]
fn thousand_streams_of_64kib_cable() {
    many_against_one(CABLE, 1000, 64 * KIB);
}

/// When the stall begins and how long it lasts.
const STALL_START: Duration = Duration::from_secs(1);
const STALL_FOR: Duration = Duration::from_secs(2);

/// One bulk stream (the link rate for 4 s, so it outlasts the stall)
/// beside 50 streams of `each` bytes whose readers stall at 1 s for 2 s.
fn stall_mix(path: Path, each: u64) -> (Metrics, Workload) {
    let w = workload(
        WorkloadKind::BulkPlus {
            bulk: path.link_bytes(4),
            each,
        },
        51,
        Some(Stall {
            streams: 50,
            start: STALL_START,
            duration: STALL_FOR,
        }),
    );
    (run_on(path, w), w)
}

/// The stalled mix's numbers: stall goodput against the link rate, memory,
/// when the stalled streams finished.
fn stall_line(path: Path, each: u64, m: &Metrics) -> String {
    let stalled = &m.stream_completion[1..];
    #[allow(clippy::cast_precision_loss)]
    let share = m.stall_goodput_bps.unwrap_or(0.0) / path.rate_bps as f64;
    format!(
        "{}: bulk + 50 x {} KiB stalled 1..3 s: stall goodput {:.1} Mbit/s = {:.1} % of the \
         link; {}; stalled streams done {:.3}..{:.3} s, bulk {:.3} s",
        path.name,
        each / KIB,
        mbit(m.stall_goodput_bps.unwrap_or(0.0)),
        share * 100.0,
        memory_line(m, path),
        stalled
            .iter()
            .min()
            .unwrap_or(&Duration::ZERO)
            .as_secs_f64(),
        stalled
            .iter()
            .max()
            .unwrap_or(&Duration::ZERO)
            .as_secs_f64(),
        m.stream_completion[0].as_secs_f64(),
    )
}

/// Memory within the budget and every stream read to its end.
fn check_stall_memory(path: Path, m: &Metrics, w: &Workload) {
    assert!(
        m.completed,
        "{}: all streams finish after the stall",
        path.name
    );
    assert_eq!(m.bytes, w.kind.total_bytes(u64::from(w.streams)));
    check_memory(path, m);
}

#[allow(clippy::cast_precision_loss)]
fn check_stall_goodput(path: Path, m: &Metrics) {
    let floor = 0.9 * path.rate_bps as f64;
    let got = m.stall_goodput_bps.expect("a stall was set");
    assert!(
        got >= floor,
        "{}: stall goodput {:.1} Mbit/s < {:.1}",
        path.name,
        mbit(got),
        mbit(floor)
    );
}

/// The mix as specified (50 × 1 MiB) on gbit-50ms. At 1 Gbit/s the 50
/// small streams are read completely before the stall begins (printed:
/// done ≈ 0.8–0.95 s), so it tests the bulk stream alone; see
/// [`stall_mix_4mib_gbit_50ms_memory`] for a stall that catches them.
#[test]
fn stall_mix_gbit_50ms() {
    let (m, w) = stall_mix(GBIT_50MS, MIB);
    eprintln!("{}", stall_line(GBIT_50MS, MIB, &m));
    check_stall_memory(GBIT_50MS, &m, &w);
    check_stall_goodput(GBIT_50MS, &m);
}

/// 50 × 4 MiB on gbit-50ms: the stalled streams still have data at 1 s
/// and finish only after their readers resume at 3 s; memory stays within
/// the budget.
#[test]
fn stall_mix_4mib_gbit_50ms_memory() {
    let (m, w) = stall_mix(GBIT_50MS, 4 * MIB);
    eprintln!("{}", stall_line(GBIT_50MS, 4 * MIB, &m));
    check_stall_memory(GBIT_50MS, &m, &w);
    assert!(
        m.stream_completion[1..]
            .iter()
            .all(|&t| t >= STALL_START + STALL_FOR),
        "the stall caught the 50 streams mid-transfer"
    );
}

/// The stall-goodput target when the stall catches the 50 streams
/// mid-transfer on gbit-50ms. Measured: 893.5 Mbit/s = 89.3 % of the link
/// (901.7 just before the share doubled during a queue-free ramp, 887.9
/// when this was first written with HTTP/3-like requests, 849.2 before
/// the fixes below). The share depends on where in the transfers the stall
/// falls: stalls starting every 25 ms from 0.950 to 1.100 s give 867.0,
/// 876.1, 893.5, 905.2, 915.2, 893.5, 905.2 Mbit/s (mean 893.7; 903.5
/// before the doubled ramp share, which lets streams that stall during
/// the ramp park more), so the 90 % aim is met at some phases and not on
/// average. The stalled streams park the credit
/// they hold (≈ 1.46 BDP); the bulk stream gets the link once a
/// rebalancing pass sees the others idle. Three things make that fast:
/// the pass runs a quarter RTT after the last one when a stream is
/// blocked at its share while most streams stopped reading; a pass that
/// comes early judges "busy" per RTT; and the bulk stream, starved by the
/// sender's round-robin (buffer empty), is not mistaken for a slow reader
/// and shrunk (which made its next burst look like a huge excess to the
/// tuner: a 17 MB window and a CUBIC loss burst).
#[test]
#[ignore = "TARGET not met: stall goodput below 90 % of the link; --ignored prints the number"]
fn stall_mix_4mib_gbit_50ms_goodput() {
    let (m, _) = stall_mix(GBIT_50MS, 4 * MIB);
    eprintln!("{}", stall_line(GBIT_50MS, 4 * MIB, &m));
    check_stall_goodput(GBIT_50MS, &m);
}

/// The mix as specified on residential-cable: memory and completion hold
/// (the stalled streams are mid-transfer at 1 s and finish after 3 s).
#[test]
fn stall_mix_cable_memory() {
    let (m, w) = stall_mix(CABLE, MIB);
    eprintln!("{}", stall_line(CABLE, MIB, &m));
    check_stall_memory(CABLE, &m, &w);
    assert!(
        m.stream_completion[1..]
            .iter()
            .all(|&t| t >= STALL_START + STALL_FOR)
    );
}

/// Without the budget the data parked in the stalled streams uses up the
/// connection credit and the bulk stream all but stops (what the budget's
/// connection floor prevents).
#[test]
fn stall_mix_cable_without_budget_blocks_the_connection() {
    let mut s = Scenario::new(CABLE.config(), stall_mix(CABLE, MIB).1);
    s.fc.budget = None;
    let m = run(&s).metrics;
    eprintln!("without the budget: {}", stall_line(CABLE, MIB, &m));
    let got = m.stall_goodput_bps.expect("stall");
    assert!(got < 1e6, "{:.3} Mbit/s", mbit(got));
}

/// The stall-goodput target on residential-cable. Measured: 187.1 Mbit/s
/// = 93.6 % of 200 Mbit/s (170.4 before). In the first moments of the stall the
/// sender fills the credit the 50 stalled streams already hold, sharing the link
/// round-robin with the bulk stream; that credit is now each stream's
/// share of the estimate (here the 16 KiB floor) instead of its 128 KiB seed, so
/// little is parked.
#[test]
fn stall_mix_cable_goodput() {
    let (m, _) = stall_mix(CABLE, MIB);
    eprintln!("{}", stall_line(CABLE, MIB, &m));
    check_stall_goodput(CABLE, &m);
}

/// Ten streams of the link rate for 3 s over ten (≥ 4 MiB each); the last
/// stream's reader stops at 1 s and never reads again.
fn stop_reading(path: Path) {
    let each = (path.link_bytes(3) / 10).div_ceil(MIB).max(4) * MIB;
    let w = workload(
        WorkloadKind::Bulk { bytes: each },
        10,
        Some(Stall {
            streams: 1,
            start: STALL_START,
            duration: Duration::MAX,
        }),
    );
    let m = run_on(path, w);
    let others = &m.stream_completion[..9];
    let unread = 10 * each - m.bytes;
    eprintln!(
        "{}: 10 x {} MiB, the last stops reading at 1 s: others done {:.3}..{:.3} s, \
         goodput of the others during the stop {:.1} Mbit/s; {}; unread {} B",
        path.name,
        each / MIB,
        others.iter().min().unwrap_or(&Duration::ZERO).as_secs_f64(),
        m.duration.as_secs_f64(),
        mbit(m.stall_goodput_bps.unwrap_or(0.0)),
        memory_line(&m, path),
        unread
    );
    assert!(m.completed, "{}: the others finish", path.name);
    assert!(others.iter().all(|&t| t <= m.duration && t > STALL_START));
    assert!(m.bytes >= 9 * each && m.bytes < 10 * each, "{}", m.bytes);
    check_memory(path, &m);
}

#[test]
fn one_stream_stops_reading_gbit_50ms() {
    stop_reading(GBIT_50MS);
}

#[test]
fn one_stream_stops_reading_cable() {
    stop_reading(CABLE);
}
