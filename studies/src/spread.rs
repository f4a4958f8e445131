//! Whether a cell where `default` trails is the path's doing or one run's
//! luck: the cell again at nearby round-trip times.
//!
//! A single deterministic run sits on one phase of slow start against the
//! queue; moving the RTT by a few percent moves it to another. A gap that
//! stays the same at every RTT of [`RTT_SCALES`] belongs to the path and
//! the strategy (for example a smaller start on a transfer that is over
//! in slow start); one that changes sign is chaos, and one run says
//! little about it. Paths with random loss or jitter already fold five
//! seeds into each cell ([`fc_lab::compare::median_of_seeds`]) and are not spread.
//!
//! Each spread run is `fc-lab run --profile P --workload W --rtt R` (seed
//! 1): the profile at the scaled RTT, its queue rule applied to the new
//! BDP (a 1-BDP queue grows with it; a queue in bytes or drain time does
//! not), the workload sized for that path.

use std::time::Duration;

use fc_lab::{
    compare::Matrix,
    profiles::{PROFILES, Profile},
    report::RunReport,
    spec::RunSpec,
    tuners::TunerChoice,
    workloads::MatrixWorkload,
};

/// The RTTs of a spread, as fractions of the profile's: 0.9, 0.95, 1,
/// 1.05 and 1.1 ×.
pub const RTT_SCALES: [(u32, u32); 5] = [(9, 10), (19, 20), (1, 1), (21, 20), (11, 10)];

/// The tie of the cell-by-cell comparison: `default` within 0.5 % of the
/// better peer is not behind.
pub const CELL_TIE: f64 = 0.005;

/// The strategies a spread runs: ours and the two peers it is held to.
pub const SPREAD_TUNERS: [&str; 3] = ["default", "neqo", "double"];

/// A cell and `default`'s gap to the better of `neqo` and `double` (a
/// cell where it trails, from [`behind_cells`]; any cell, from
/// [`cell_gaps`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Behind {
    /// Profile name.
    pub profile: String,
    /// Workload name.
    pub workload: String,
    /// `default`'s goodput over the better peer's, minus one (< 0: behind).
    pub gap: f64,
    /// The better peer.
    pub peer: String,
}

/// `default`'s goodput against the better of `neqo` and `double` on
/// `profile` / `workload` in `reports`, with that peer's name; `None`
/// when one of the three did not run there.
#[must_use]
pub fn gap(reports: &[RunReport], profile: &str, workload: &str) -> Option<(f64, String)> {
    let of = |t: &str| {
        reports
            .iter()
            .find(|r| r.profile == profile && r.workload == workload && r.tuner == t)
    };
    let (ours, neqo, double) = (of("default")?, of("neqo")?, of("double")?);
    let best = if double.goodput_bps > neqo.goodput_bps {
        double
    } else {
        neqo
    };
    (best.goodput_bps > 0.0).then(|| {
        (
            ours.goodput_bps / best.goodput_bps - 1.0,
            best.tuner.clone(),
        )
    })
}

/// Every cell of `reports` (one report per cell and tuner) that has all
/// three strategies, with `default`'s gap to the better peer, worst first.
#[must_use]
pub fn cell_gaps(reports: &[RunReport]) -> Vec<Behind> {
    let mut out: Vec<Behind> = reports
        .iter()
        .filter(|r| r.tuner == "default")
        .filter_map(|r| {
            let (gap, peer) = gap(reports, &r.profile, &r.workload)?;
            Some(Behind {
                profile: r.profile.clone(),
                workload: r.workload.clone(),
                gap,
                peer,
            })
        })
        .collect();
    out.sort_by(|a, b| a.gap.total_cmp(&b.gap));
    out
}

/// Every cell of `reports` where `default` trails the better peer by more
/// than `tie` (a fraction), worst first.
#[must_use]
pub fn behind_cells(reports: &[RunReport], tie: f64) -> Vec<Behind> {
    let mut out = cell_gaps(reports);
    out.retain(|b| b.gap < -tie);
    out
}

/// The profile `name` at `scale` × its RTT.
fn scaled(profile: &Profile, (num, den): (u32, u32)) -> Profile {
    let rtt = profile.rtt * num / den;
    Profile {
        rtt: rtt.max(Duration::from_micros(1)),
        ..*profile
    }
}

/// The runs that spread `cells` over [`RTT_SCALES`] (not the scale of 1,
/// which is the matrix's own run) for [`SPREAD_TUNERS`], with `matrix`'s
/// transport, congestion control, overrides and seed; cells on random
/// paths, or whose profile or workload is not a built-in one, get none.
#[must_use]
pub fn spread_specs(matrix: &Matrix, cells: &[Behind]) -> Vec<RunSpec> {
    let mut specs = Vec::new();
    for cell in cells {
        let Some(profile) = PROFILES.iter().find(|p| p.name == cell.profile) else {
            continue;
        };
        let Some(workload) = MatrixWorkload::ALL
            .into_iter()
            .find(|w| w.name() == cell.workload)
        else {
            continue;
        };
        if profile.is_random() {
            continue;
        }
        for scale in RTT_SCALES.into_iter().filter(|&(n, d)| n != d) {
            let path = scaled(profile, scale).path();
            let w = workload.on(&path, matrix.quick);
            for tuner in SPREAD_TUNERS {
                let Ok(tuner) = TunerChoice::parse(tuner) else {
                    continue;
                };
                let mut spec = RunSpec::new(path.clone(), w.clone(), tuner);
                spec.seed = matrix.seed;
                spec.cc = matrix.cc;
                spec.overrides = matrix.overrides;
                spec.transport = matrix.transport;
                specs.push(spec);
            }
        }
    }
    specs
}

/// A cell's gap to the better peer at each RTT of the spread.
#[derive(Clone, Debug, PartialEq)]
pub struct Spread {
    /// The cell, as the matrix ranked it.
    pub cell: Behind,
    /// The gap at each of [`RTT_SCALES`] in order (the matrix's own run
    /// at 1 ×).
    pub gaps: Vec<f64>,
}

impl Spread {
    /// The smallest and largest gap.
    #[must_use]
    pub fn range(&self) -> (f64, f64) {
        self.gaps
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &g| {
                (lo.min(g), hi.max(g))
            })
    }

    /// The mean gap.
    #[must_use]
    pub fn mean(&self) -> f64 {
        self.gaps.iter().sum::<f64>() / self.gaps.len().max(1) as f64
    }

    /// Behind by more than `tie` at every RTT, and by about as much
    /// (within `band`, a fraction): the path's doing, not chance.
    #[must_use]
    pub fn steady(&self, tie: f64, band: f64) -> bool {
        let (lo, hi) = self.range();
        hi < -tie && hi - lo <= band
    }
}

/// Each of `cells` with its gap at every RTT of the spread (the cell's
/// own at 1 ×, the spread runs' at the others); a cell with a run missing
/// at some RTT (a random path) is left out.
#[must_use]
pub fn spreads(spread: &[RunReport], cells: &[Behind]) -> Vec<Spread> {
    cells
        .iter()
        .filter_map(|cell| {
            let profile = PROFILES.iter().find(|p| p.name == cell.profile)?;
            let gaps = RTT_SCALES
                .into_iter()
                .map(|scale| {
                    if scale.0 == scale.1 {
                        return Some(cell.gap);
                    }
                    let rtt = scaled(profile, scale).rtt.as_secs_f64();
                    let at: Vec<RunReport> = spread
                        .iter()
                        .filter(|r| (r.rtt_s - rtt).abs() < 1e-9)
                        .cloned()
                        .collect();
                    gap(&at, &cell.profile, &cell.workload).map(|(g, _)| g)
                })
                .collect::<Option<Vec<f64>>>()?;
            Some(Spread {
                cell: cell.clone(),
                gaps,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fc_lab::compare::fixtures::report;

    #[test]
    fn spread_runs_scale_the_rtt_and_keep_the_queue_rule() {
        let matrix = Matrix::full();
        let cell = |p: &str, w: &str| Behind {
            profile: p.into(),
            workload: w.into(),
            gap: -0.02,
            peer: "neqo".into(),
        };
        let specs = spread_specs(
            &matrix,
            &[
                cell("gbit-50ms", "small-msgs"),
                cell("neqo-bench", "large-msg"),
                cell("lossy", "bulk"),
            ],
        );
        // Four RTTs × three tuners for each deterministic cell; none on
        // the random path.
        assert_eq!(specs.len(), 2 * 4 * 3);
        let rtts: Vec<u128> = specs
            .iter()
            .filter(|s| s.path.name == "gbit-50ms" && s.tuner.to_string() == "default")
            .map(|s| s.path.rtt.as_micros())
            .collect();
        assert_eq!(rtts, [45_000, 47_500, 52_500, 55_000]);
        for s in &specs {
            if s.path.name == "gbit-50ms" {
                // A 1-BDP queue follows the BDP.
                assert_eq!(s.path.queue_bytes, s.path.bdp_bytes());
            } else {
                // neqo's bench keeps its 500,000-byte queue.
                assert_eq!(s.path.queue_bytes, 500_000);
            }
        }
    }

    #[test]
    fn behind_cells_are_ranked_worst_first_and_spread_per_rtt() {
        let run = |p: &str, w: &str, t: &str, secs: f64| {
            let mut r = report(p, w, t, secs, true);
            r.goodput_bps = r.bytes as f64 * 8.0 / secs;
            r
        };
        let matrix = vec![
            run("gbit-50ms", "bulk", "default", 1.10),
            run("gbit-50ms", "bulk", "neqo", 1.00),
            run("gbit-50ms", "bulk", "double", 1.05),
            run("gbit-50ms", "small-msgs", "default", 1.02),
            run("gbit-50ms", "small-msgs", "neqo", 1.01),
            run("gbit-50ms", "small-msgs", "double", 1.00),
            run("satellite", "bulk", "default", 1.00),
            run("satellite", "bulk", "neqo", 1.001),
            run("satellite", "bulk", "double", 1.01),
        ];
        let cells = behind_cells(&matrix, 0.005);
        let names: Vec<_> = cells
            .iter()
            .map(|c| (c.profile.as_str(), c.workload.as_str(), c.peer.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("gbit-50ms", "bulk", "neqo"),
                ("gbit-50ms", "small-msgs", "double")
            ]
        );
        assert!((cells[0].gap - (1.0 / 1.1 - 1.0)).abs() < 1e-3);
        // Every cell, worst first, the one ahead (satellite) last: the
        // cells behind are its first entries.
        let every = cell_gaps(&matrix);
        assert_eq!(every.len(), 3);
        assert_eq!(every[..2], cells[..]);
        assert_eq!(every[2].profile, "satellite");
        assert!(every[2].gap > 0.0, "{:?}", every[2]);
        // The spread's runs at each scaled RTT of gbit-50ms.
        let mut spread = Vec::new();
        for (i, (n, d)) in RTT_SCALES.into_iter().enumerate() {
            if n == d {
                continue;
            }
            let rtt = 0.05 * f64::from(n) / f64::from(d);
            // default 1 % behind at the first two RTTs, ahead after.
            let ours = if i < 2 { 1.01 } else { 0.99 };
            for (t, secs) in [("default", ours), ("neqo", 1.0), ("double", 1.02)] {
                let mut r = run("gbit-50ms", "bulk", t, secs);
                r.rtt_s = rtt;
                spread.push(r);
            }
        }
        let s = spreads(&spread, &cells);
        // Only the bulk cell has every RTT.
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].gaps.len(), 5);
        let (lo, hi) = s[0].range();
        assert!(lo < -0.05 && hi > 0.0, "{:?}", s[0].gaps);
        assert!(!s[0].steady(0.005, 0.01));
    }
}
