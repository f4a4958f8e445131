//! A lone stream's first window against the path's rate: the choice a
//! receiver makes before it can measure the rate.
//!
//! When a stream opens, the receiver knows the round-trip time (from the
//! handshake) but not the bottleneck rate. The single-stream transfers
//! that are over within slow start (`small-msgs`, 4 MB; `large-msg`,
//! 10 MiB) depend on that first window: too small and the sender's slow
//! start waits for credit; too large and the window's later growth holds
//! more memory than the peers', or lets slow start overshoot a small
//! queue.
//!
//! Each point here is one transfer on a path of one rate with a 1-BDP
//! queue, run at every RTT of [`RTTS_MS`] (single deterministic runs are
//! one phase of slow start; the mean over the RTTs is not), with `neqo`,
//! `double` and `default` at each first window of [`FIRST_WINDOWS`]. A
//! point is *behind* when `default`'s mean goodput trails the better
//! peer's mean by more than [`CELL_TIE`], and holds *more memory* when the
//! mean of one of its four peak figures (stream window, total credit,
//! exposure, receive buffer) passes both peers' means by more than
//! [`MEMORY_TIE`]. A first window that is neither at every rate would meet
//! issue #15's claim on these transfers whatever the rate turns out to be.

use std::time::Duration;

use super::spread::CELL_TIE;
use crate::{
    profiles::{self, PathSpec},
    report::RunReport,
    spec::RunSpec,
    tuners::TunerSpec,
    workloads::MatrixWorkload,
};

/// Bottleneck rates of the points, bit/s: from `reorder`'s 100 Mbit/s
/// class to `long-fat`'s 10 Gbit/s.
pub const RATES_BPS: [u64; 6] = [
    50_000_000,
    100_000_000,
    200_000_000,
    500_000_000,
    1_000_000_000,
    10_000_000_000,
];

/// Round-trip times each point is run at, ms (the high-BDP cells of the
/// matrix sit at 30–100 ms).
pub const RTTS_MS: [u64; 9] = [20, 30, 40, 50, 60, 70, 80, 90, 100];

/// The transfers: single streams mostly over within slow start.
pub const WORKLOADS: [MatrixWorkload; 2] = [MatrixWorkload::SmallMsgs, MatrixWorkload::LargeMsg];

/// First windows of `default`: `None` is the shipped setting (a 64 KiB
/// promise, the lone stream seeded at ½ of the 1 MiB connection start,
/// 512 KiB); the others are `--initial-window W` (the promise is W, the
/// connection starts at 1.5 × W, so the first window is W).
pub const FIRST_WINDOWS: [Option<u64>; 4] = [None, Some(768 << 10), Some(1 << 20), Some(3 << 19)];

/// The shipped first window of a lone stream, bytes (what `None` in
/// [`FIRST_WINDOWS`] stands for).
pub const SHIPPED_FIRST_WINDOW: u64 = 512 << 10;

/// Memory tie: a figure more than 1 % above both peers' is more memory.
pub const MEMORY_TIE: f64 = 0.01;

/// The peers, in the order of each point's runs.
const PEERS: [TunerSpec; 2] = [TunerSpec::Neqo, TunerSpec::Double];

/// Runs per (workload, rate, RTT): the two peers, then ours at each first
/// window.
const ARMS: usize = PEERS.len() + FIRST_WINDOWS.len();

/// A path of `rate_bps` at `rtt_ms` with a 1-BDP queue and the default
/// link overhead, otherwise as `gbit-50ms`.
fn path(rate_bps: u64, rtt_ms: u64) -> PathSpec {
    let mut path = profiles::find("gbit-50ms")
        .expect("built-in profile")
        .path();
    path.name = format!("{}, {rtt_ms} ms", crate::format::rate(rate_bps as f64));
    path.rate_bps = rate_bps;
    path.rtt = Duration::from_millis(rtt_ms);
    path.queue_bytes = path.bdp_bytes();
    path
}

/// Every run, in order: workload, rate, RTT, then the peers and ours at
/// each first window ([`points`] reads them back in that order).
#[must_use]
pub fn specs() -> Vec<RunSpec> {
    let mut specs = Vec::new();
    for workload in WORKLOADS {
        for rate in RATES_BPS {
            for rtt in RTTS_MS {
                let path = path(rate, rtt);
                let w = workload.on(&path, false);
                for peer in PEERS {
                    specs.push(RunSpec::new(path.clone(), w.clone(), peer));
                }
                for first in FIRST_WINDOWS {
                    let mut spec = RunSpec::new(path.clone(), w.clone(), TunerSpec::Default);
                    spec.overrides.initial_window = first;
                    specs.push(spec);
                }
            }
        }
    }
    specs
}

/// The four memory figures of a run, bytes.
fn memory(r: &RunReport) -> [f64; 4] {
    [
        r.peak_stream_window_bytes,
        r.peak_total_credit_bytes,
        r.peak_exposure_bytes,
        r.peak_recv_buffer_bytes,
    ]
    .map(|b| b as f64)
}

/// Mean goodput and mean memory figures of runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Means {
    /// Mean goodput, bit/s.
    pub goodput_bps: f64,
    /// Mean of each memory figure (stream window, total credit, exposure,
    /// receive buffer), bytes.
    pub memory: [f64; 4],
}

impl Means {
    fn of<'a>(runs: impl Iterator<Item = &'a RunReport>) -> Self {
        let (mut n, mut goodput, mut memory) = (0.0, 0.0, [0.0; 4]);
        for r in runs {
            n += 1.0;
            goodput += r.goodput_bps;
            for (m, v) in memory.iter_mut().zip(self::memory(r)) {
                *m += v;
            }
        }
        let n = f64::max(n, 1.0);
        Self {
            goodput_bps: goodput / n,
            memory: memory.map(|m| m / n),
        }
    }
}

/// One first window on one (workload, rate), over every RTT.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// The transfer.
    pub workload: MatrixWorkload,
    /// Bottleneck rate, bit/s.
    pub rate_bps: u64,
    /// `default`'s first window, bytes.
    pub first_window: u64,
    /// Ours.
    pub ours: Means,
    /// `neqo`, `double`.
    pub peers: [Means; 2],
    /// Runs that did not complete (ours or a peer's); 0 in a valid point.
    pub incomplete: usize,
}

impl Point {
    /// Our mean goodput over the better peer's, minus one (< 0: behind).
    #[must_use]
    pub fn gap(&self) -> f64 {
        let best = self.peers[0].goodput_bps.max(self.peers[1].goodput_bps);
        self.ours.goodput_bps / best - 1.0
    }

    /// Behind the better peer beyond [`CELL_TIE`].
    #[must_use]
    pub fn behind(&self) -> bool {
        self.gap() < -CELL_TIE
    }

    /// The largest of our memory figures over the larger peer's same
    /// figure, minus one (> [`MEMORY_TIE`]: more memory).
    #[must_use]
    pub fn memory_excess(&self) -> f64 {
        (0..4)
            .map(|i| {
                let peer = self.peers[0].memory[i].max(self.peers[1].memory[i]);
                if peer > 0.0 {
                    self.ours.memory[i] / peer - 1.0
                } else if self.ours.memory[i] > 0.0 {
                    f64::INFINITY
                } else {
                    0.0
                }
            })
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// More memory than both peers beyond [`MEMORY_TIE`].
    #[must_use]
    pub fn more_memory(&self) -> bool {
        self.memory_excess() > MEMORY_TIE
    }

    /// Neither behind nor with more memory.
    #[must_use]
    pub fn holds(&self) -> bool {
        !self.behind() && !self.more_memory()
    }
}

/// The points of `reports`, which are the runs of [`specs`] in its order:
/// for each workload and rate, one point per first window.
///
/// # Panics
/// When `reports` is not as long as [`specs`] (a caller's bug).
#[must_use]
pub fn points(reports: &[RunReport]) -> Vec<Point> {
    let per_rate = RTTS_MS.len() * ARMS;
    assert_eq!(
        reports.len(),
        WORKLOADS.len() * RATES_BPS.len() * per_rate,
        "first_window::points takes the runs of first_window::specs"
    );
    let mut out = Vec::new();
    for (wi, workload) in WORKLOADS.into_iter().enumerate() {
        for (ri, rate_bps) in RATES_BPS.into_iter().enumerate() {
            let start = (wi * RATES_BPS.len() + ri) * per_rate;
            let runs = &reports[start..start + per_rate];
            let arm = |a: usize| runs.iter().skip(a).step_by(ARMS);
            let incomplete_of = |a: usize| arm(a).filter(|r| !r.ok()).count();
            let peers = [0, 1].map(|a| Means::of(arm(a)));
            let peers_incomplete = incomplete_of(0) + incomplete_of(1);
            for (fi, first) in FIRST_WINDOWS.into_iter().enumerate() {
                let a = PEERS.len() + fi;
                out.push(Point {
                    workload,
                    rate_bps,
                    first_window: first.unwrap_or(SHIPPED_FIRST_WINDOW),
                    ours: Means::of(arm(a)),
                    peers,
                    incomplete: peers_incomplete + incomplete_of(a),
                });
            }
        }
    }
    out
}

/// The points of one first window, in workload then rate order.
pub fn of_window(points: &[Point], first_window: u64) -> impl Iterator<Item = &Point> {
    points
        .iter()
        .filter(move |p| p.first_window == first_window)
}

/// The first windows (bytes) that hold at every rate on every transfer.
#[must_use]
pub fn windows_that_hold_everywhere(points: &[Point]) -> Vec<u64> {
    FIRST_WINDOWS
        .into_iter()
        .map(|f| f.unwrap_or(SHIPPED_FIRST_WINDOW))
        .filter(|&w| of_window(points, w).all(Point::holds))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::fixtures::report;

    #[test]
    fn specs_cover_every_rate_rtt_and_window_with_a_one_bdp_queue() {
        let specs = specs();
        assert_eq!(specs.len(), 2 * 6 * 9 * 6);
        for s in &specs {
            assert_eq!(s.path.queue_bytes, s.path.bdp_bytes());
        }
        // The shipped arm has no override; the others start at W.
        let firsts: Vec<Option<u64>> = specs[2..6]
            .iter()
            .map(|s| s.overrides.initial_window)
            .collect();
        assert_eq!(firsts, FIRST_WINDOWS);
        assert_eq!(specs[6].path.rtt, Duration::from_millis(30));
    }

    #[test]
    fn a_point_is_behind_or_larger_on_the_means_over_rtts() {
        // Ours ahead at one RTT and behind at the other by more: behind on
        // the mean; its stream window 2 % above the larger peer's.
        let mut reports = Vec::new();
        for workload in WORKLOADS {
            for _rate in RATES_BPS {
                for (i, _) in RTTS_MS.iter().enumerate() {
                    for arm in 0..ARMS {
                        let secs = match (arm, i % 2) {
                            (0 | 1, _) => 1.0,
                            (_, 0) => 0.99,
                            (_, _) => 1.03,
                        };
                        let mut r = report("p", workload.name(), "default", secs, true);
                        r.goodput_bps = 8e6 / secs;
                        r.peak_stream_window_bytes = if arm >= 2 { 102 } else { 100 };
                        reports.push(r);
                    }
                }
            }
        }
        let points = points(&reports);
        assert_eq!(points.len(), 2 * 6 * 4);
        let p = &points[0];
        assert!(p.gap() < -CELL_TIE, "{}", p.gap());
        assert!(p.behind() && p.more_memory() && !p.holds());
        assert!((p.memory_excess() - 0.02).abs() < 1e-9);
        assert!(windows_that_hold_everywhere(&points).is_empty());
    }
}
