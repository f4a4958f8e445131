//! The credit a receiver gives before it can measure the path's rate: a
//! lone stream's first window, and the seeds of streams that open
//! together.
//!
//! When streams open, the receiver knows the round-trip time (from the
//! handshake) but not the bottleneck rate. Transfers that are over within
//! slow start depend on that first credit: too little and the sender's
//! slow start waits for it; too much and it (or the growth from it) holds
//! more memory than the peers', or lets slow start overshoot a small
//! queue. Each [`Sweep`] varies one such setting:
//!
//! - one stream (`small-msgs`, 4 MB; `large-msg`, 10 MiB): its first
//!   window, `--initial-window` (the promise; the connection then starts
//!   at 1.5 × it, so the first window is the promise), against the
//!   shipped 512 KiB seed;
//! - ten streams at once (`small-msgs-10`): the connection's initial
//!   window, `--initial-connection-window`, which the streams' seeds are
//!   drawn from (shipped: 1 MiB), with the 64 KiB promise kept.
//!
//! Each point is one workload on a path of one rate with a 1-BDP queue,
//! run at every RTT of [`RTTS_MS`] (single deterministic runs are one
//! phase of slow start; the mean over the RTTs is not), with `neqo`,
//! `double` and `default` at each value of the sweep. A point is *behind*
//! when `default`'s mean goodput trails the better peer's mean by more
//! than [`CELL_TIE`], and holds *more memory* when the mean of one of its
//! four peak figures (stream window, total credit, exposure, receive
//! buffer) passes both peers' means of the same figure by more than
//! [`MEMORY_TIE`]. A value that is neither at every rate would meet issue
//! #15's claim on that workload whatever the rate turns out to be.

use std::time::Duration;

use crate::spread::CELL_TIE;
use fc_lab::{
    profiles::{self, PathSpec},
    report::RunReport,
    spec::RunSpec,
    tuners::{Overrides, TunerSpec},
    workloads::MatrixWorkload,
};

/// Bottleneck rates of the points, bit/s: from a DSL line to `long-fat`'s
/// 10 Gbit/s.
pub const RATES_BPS: [u64; 8] = [
    2_000_000,
    20_000_000,
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

/// Memory tie: a figure more than 1 % above both peers' is more memory.
pub const MEMORY_TIE: f64 = 0.01;

/// Values per sweep.
pub const VALUES: usize = 4;

/// Which setting a sweep varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Knob {
    /// `--initial-window`: a lone stream's first window.
    FirstWindow,
    /// `--initial-connection-window`: what the seeds are drawn from.
    ConnectionWindow,
}

impl Knob {
    /// The flag that sets it.
    #[must_use]
    pub const fn flag(self) -> &'static str {
        match self {
            Self::FirstWindow => "--initial-window",
            Self::ConnectionWindow => "--initial-connection-window",
        }
    }

    fn overrides(self, value: Option<u64>) -> Overrides {
        match self {
            Self::FirstWindow => Overrides {
                initial_window: value,
                ..Overrides::default()
            },
            Self::ConnectionWindow => Overrides {
                initial_connection_window: value,
                ..Overrides::default()
            },
        }
    }
}

/// One workload and the values of one setting it is run with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sweep {
    /// The transfer.
    pub workload: MatrixWorkload,
    /// What is varied.
    pub knob: Knob,
    /// The values, bytes; `None` is the shipped setting.
    pub values: [Option<u64>; VALUES],
    /// What the shipped setting amounts to, bytes (the lone stream's
    /// 512 KiB seed; the 1 MiB connection start).
    pub shipped: u64,
}

impl Sweep {
    /// The values in bytes, the shipped one included.
    #[must_use]
    pub fn bytes(&self) -> [u64; VALUES] {
        self.values.map(|v| v.unwrap_or(self.shipped))
    }
}

/// The sweeps: one stream's first window on the two single-stream
/// transfers, ten streams' connection start.
pub const SWEEPS: [Sweep; 3] = [
    Sweep {
        workload: MatrixWorkload::SmallMsgs,
        knob: Knob::FirstWindow,
        values: FIRST_WINDOWS,
        shipped: 512 << 10,
    },
    Sweep {
        workload: MatrixWorkload::LargeMsg,
        knob: Knob::FirstWindow,
        values: FIRST_WINDOWS,
        shipped: 512 << 10,
    },
    Sweep {
        workload: MatrixWorkload::SmallMsgs10,
        knob: Knob::ConnectionWindow,
        values: [Some(256 << 10), Some(512 << 10), None, Some(2 << 20)],
        shipped: 1 << 20,
    },
];

/// A lone stream's first windows: the shipped 512 KiB seed, 768 KiB,
/// 1 MiB (the peers' promise) and 1.5 MiB.
const FIRST_WINDOWS: [Option<u64>; VALUES] = [None, Some(768 << 10), Some(1 << 20), Some(3 << 19)];

/// The peers, in the order of each point's runs.
const PEERS: [TunerSpec; 2] = [TunerSpec::Neqo, TunerSpec::Double];

/// Runs per (sweep, rate, RTT): the two peers, then ours at each value.
const ARMS: usize = PEERS.len() + VALUES;

/// A path of `rate_bps` at `rtt_ms` with a 1-BDP queue and the default
/// link overhead, otherwise as `gbit-50ms`.
fn path(rate_bps: u64, rtt_ms: u64) -> PathSpec {
    let mut path = profiles::find("gbit-50ms")
        .expect("built-in profile")
        .path();
    path.name = format!("{}, {rtt_ms} ms", fc_lab::format::rate(rate_bps as f64));
    path.rate_bps = rate_bps;
    path.rtt = Duration::from_millis(rtt_ms);
    path.queue_bytes = path.bdp_bytes();
    path
}

/// Every run, in order: sweep, rate, RTT, then the peers and ours at
/// each value ([`points`] reads them back in that order).
#[must_use]
pub fn specs() -> Vec<RunSpec> {
    let mut specs = Vec::new();
    for sweep in SWEEPS {
        for rate in RATES_BPS {
            for rtt in RTTS_MS {
                let path = path(rate, rtt);
                let w = sweep.workload.on(&path, false);
                for peer in PEERS {
                    specs.push(RunSpec::new(path.clone(), w.clone(), peer));
                }
                for value in sweep.values {
                    let mut spec = RunSpec::new(path.clone(), w.clone(), TunerSpec::Default);
                    spec.overrides = sweep.knob.overrides(value);
                    specs.push(spec);
                }
            }
        }
    }
    specs
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
            for (m, v) in memory.iter_mut().zip(r.memory_figures()) {
                *m += v as f64;
            }
        }
        let n = f64::max(n, 1.0);
        Self {
            goodput_bps: goodput / n,
            memory: memory.map(|m| m / n),
        }
    }
}

/// One value of a sweep at one rate, over every RTT.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// The sweep (an index into [`SWEEPS`]).
    pub sweep: usize,
    /// Bottleneck rate, bit/s.
    pub rate_bps: u64,
    /// The setting's value, bytes.
    pub value: u64,
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
        self.ours.goodput_bps / self.best_goodput_bps() - 1.0
    }

    /// The better peer's mean goodput, bit/s.
    #[must_use]
    pub fn best_goodput_bps(&self) -> f64 {
        self.peers[0].goodput_bps.max(self.peers[1].goodput_bps)
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
        let [neqo, double] = self.peers.map(|p| p.memory);
        self.ours
            .memory
            .iter()
            .zip(neqo.iter().zip(&double))
            .map(|(&ours, (&n, &d))| {
                let peer = n.max(d);
                if peer > 0.0 {
                    ours / peer - 1.0
                } else if ours > 0.0 {
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
/// for each sweep and rate, one point per value.
///
/// # Panics
/// When `reports` is not as long as [`specs`] (a caller's bug).
#[must_use]
pub fn points(reports: &[RunReport]) -> Vec<Point> {
    let per_rate = RTTS_MS.len() * ARMS;
    assert_eq!(
        reports.len(),
        SWEEPS.len() * RATES_BPS.len() * per_rate,
        "blind_start::points takes the runs of blind_start::specs"
    );
    let mut out = Vec::new();
    for (si, sweep) in SWEEPS.iter().enumerate() {
        for (ri, rate_bps) in RATES_BPS.into_iter().enumerate() {
            let start = (si * RATES_BPS.len() + ri) * per_rate;
            let runs = &reports[start..start + per_rate];
            let arm = |a: usize| runs.iter().skip(a).step_by(ARMS);
            let incomplete_of = |a: usize| arm(a).filter(|r| !r.ok()).count();
            let peers = [0, 1].map(|a| Means::of(arm(a)));
            let peers_incomplete = incomplete_of(0) + incomplete_of(1);
            for (vi, value) in sweep.bytes().into_iter().enumerate() {
                let a = PEERS.len() + vi;
                out.push(Point {
                    sweep: si,
                    rate_bps,
                    value,
                    ours: Means::of(arm(a)),
                    peers,
                    incomplete: peers_incomplete + incomplete_of(a),
                });
            }
        }
    }
    out
}

/// The points of one value of sweep `sweep`, in rate order.
pub fn of_value(points: &[Point], sweep: usize, value: u64) -> impl Iterator<Item = &Point> {
    points
        .iter()
        .filter(move |p| p.sweep == sweep && p.value == value)
}

/// The values (bytes) of sweep `sweep` that hold at every rate.
#[must_use]
pub fn values_that_hold_everywhere(points: &[Point], sweep: usize) -> Vec<u64> {
    SWEEPS[sweep]
        .bytes()
        .into_iter()
        .filter(|&v| of_value(points, sweep, v).all(Point::holds))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fc_lab::compare::fixtures::report;

    #[test]
    fn specs_cover_every_rate_rtt_and_value_with_a_one_bdp_queue() {
        let specs = specs();
        assert_eq!(specs.len(), 3 * 8 * 9 * 6);
        for s in &specs {
            assert_eq!(s.path.queue_bytes, s.path.bdp_bytes());
        }
        // The shipped arm has no override; the others set the sweep's knob.
        let firsts: Vec<Option<u64>> = specs[2..6]
            .iter()
            .map(|s| s.overrides.initial_window)
            .collect();
        assert_eq!(firsts, FIRST_WINDOWS);
        assert_eq!(specs[6].path.rtt, Duration::from_millis(30));
        let ten = &specs[2 * 8 * 9 * 6..];
        assert_eq!(ten[0].workload.streams, 10);
        let conns: Vec<Option<u64>> = ten[2..6]
            .iter()
            .map(|s| s.overrides.initial_connection_window)
            .collect();
        assert_eq!(conns, SWEEPS[2].values);
        assert!(ten.iter().all(|s| s.overrides.initial_window.is_none()));
    }

    #[test]
    fn a_point_is_behind_or_larger_on_the_means_over_rtts() {
        // Ours ahead at one RTT and behind at the other by more: behind on
        // the mean; its stream window 2 % above the larger peer's.
        let mut reports = Vec::new();
        for sweep in SWEEPS {
            for _rate in RATES_BPS {
                for (i, _) in RTTS_MS.iter().enumerate() {
                    for arm in 0..ARMS {
                        let secs = match (arm, i % 2) {
                            (0 | 1, _) => 1.0,
                            (_, 0) => 0.99,
                            (_, _) => 1.03,
                        };
                        let mut r = report("p", sweep.workload.name(), "default", secs, true);
                        r.goodput_bps = 8e6 / secs;
                        r.peak_stream_window_bytes = if arm >= 2 { 102 } else { 100 };
                        reports.push(r);
                    }
                }
            }
        }
        let points = points(&reports);
        assert_eq!(points.len(), 3 * 8 * 4);
        let p = &points[0];
        assert!(p.gap() < -CELL_TIE, "{}", p.gap());
        assert!(p.behind() && p.more_memory() && !p.holds());
        assert!((p.memory_excess() - 0.02).abs() < 1e-9);
        assert!(values_that_hold_everywhere(&points, 0).is_empty());
    }
}
