//! Which runs `fc-lab compare` makes: the default and `--quick` matrices
//! of profiles × workloads × tuners, in sections, narrowed by the
//! command's filters, and the one [`RunSpec`] per run they expand to.

use neqo_fc_sim::quic::cc::CcAlgorithm;

use crate::{
    profiles::{PROFILES, Profile},
    spec::RunSpec,
    transport::TransportChoice,
    tuners::{Overrides, TunerChoice, TunerSpec},
    workloads::MatrixWorkload,
};

/// One block of the comparison: every profile × workload × tuner in it.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    /// `main` or `many-streams` (for the report's header).
    pub name: &'static str,
    /// Network paths.
    pub profiles: Vec<&'static Profile>,
    /// Workloads.
    pub workloads: Vec<MatrixWorkload>,
    /// Strategies, in table order.
    pub tuners: Vec<TunerChoice>,
}

impl Section {
    /// Runs in this section.
    #[must_use]
    pub fn runs(&self) -> usize {
        self.profiles.len() * self.workloads.len() * self.tuners.len()
    }
}

/// Which runs a comparison makes: its sections, in order, and what every
/// run shares. Invariant: no section has an empty list (filters drop
/// sections they empty).
#[derive(Clone, Debug)]
pub struct Matrix {
    /// The main matrix, then the many-streams section.
    pub sections: Vec<Section>,
    /// Quarter-size bulk transfers.
    pub quick: bool,
    /// PRNG seed of every run (the first, on random paths).
    pub seed: u64,
    /// Seeds per cell on paths with random loss or jitter: runs use
    /// `seed, seed + 1, …` and the report keeps the median-goodput run
    /// (one seed is a single draw of the loss pattern, too noisy to rank
    /// tuners by). Invariant: ≥ 1.
    pub random_seeds: u64,
    /// Congestion control of every run.
    pub cc: CcAlgorithm,
    /// Overrides applied to every tuner.
    pub overrides: Overrides,
    /// The transport every run simulates.
    pub transport: TransportChoice,
}

/// Seeds per cell on paths with random loss or jitter, by default.
pub const DEFAULT_RANDOM_SEEDS: u64 = 5;

/// Profiles of the `--quick` matrix.
pub const QUICK_PROFILES: [&str; 3] = ["residential-cable", "gbit-50ms", "lossy"];
/// Workloads of the `--quick` matrix.
pub const QUICK_WORKLOADS: [MatrixWorkload; 3] = [
    MatrixWorkload::Bulk,
    MatrixWorkload::SmallMsgs10,
    MatrixWorkload::SlowReader,
];
/// Profiles of the many-streams section (full and quick).
pub const MANY_STREAMS_PROFILES: [&str; 2] = ["gbit-50ms", "residential-cable"];
/// Workloads of the many-streams section with `--quick`.
pub const QUICK_MANY_STREAMS_WORKLOADS: [MatrixWorkload; 2] =
    [MatrixWorkload::Many100, MatrixWorkload::StallMix];
/// Strategies of the many-streams section with `--quick`: ours with and
/// without the budget, neqo without and with it.
pub const QUICK_MANY_STREAMS_TUNERS: [TunerChoice; 4] = [
    TunerChoice::MANY_STREAMS[0],
    TunerChoice::MANY_STREAMS[1],
    TunerChoice::MANY_STREAMS[2],
    TunerChoice::MANY_STREAMS[3],
];

/// The profiles called `names`, in that order (unknown names skipped).
fn profiles_named(names: &[&str]) -> Vec<&'static Profile> {
    names
        .iter()
        .filter_map(|n| PROFILES.iter().find(|p| p.name == *n))
        .collect()
}

impl Matrix {
    /// The default matrix: every profile × the classic workloads × the six
    /// matrix tuners, then the many-streams section (gbit-50ms and
    /// residential-cable × the four many-streams workloads × `default`,
    /// `neqo` and `double` with and without the budget).
    #[must_use]
    pub fn full() -> Self {
        Self {
            sections: vec![
                Section {
                    name: "main",
                    profiles: PROFILES.iter().collect(),
                    workloads: MatrixWorkload::CLASSIC.to_vec(),
                    tuners: TunerSpec::MATRIX.map(TunerChoice::from).to_vec(),
                },
                Section {
                    name: "many-streams",
                    profiles: profiles_named(&MANY_STREAMS_PROFILES),
                    workloads: MatrixWorkload::MANY_STREAMS.to_vec(),
                    tuners: TunerChoice::MANY_STREAMS.to_vec(),
                },
            ],
            quick: false,
            seed: 1,
            random_seeds: DEFAULT_RANDOM_SEEDS,
            cc: CcAlgorithm::Cubic,
            overrides: Overrides::default(),
            transport: TransportChoice::default(),
        }
    }

    /// The `--quick` matrix: three profiles × three workloads × six tuners
    /// with quarter-size bulk transfers, and a reduced many-streams section
    /// (`many-100` and `stall-mix` × four tuners).
    #[must_use]
    pub fn quick() -> Self {
        Self {
            sections: vec![
                Section {
                    name: "main",
                    profiles: profiles_named(&QUICK_PROFILES),
                    workloads: QUICK_WORKLOADS.to_vec(),
                    tuners: TunerSpec::MATRIX.map(TunerChoice::from).to_vec(),
                },
                Section {
                    name: "many-streams",
                    profiles: profiles_named(&MANY_STREAMS_PROFILES),
                    workloads: QUICK_MANY_STREAMS_WORKLOADS.to_vec(),
                    tuners: QUICK_MANY_STREAMS_TUNERS.to_vec(),
                },
            ],
            quick: true,
            ..Self::full()
        }
    }

    /// Applies `compare`'s filters; an empty list keeps what the section
    /// has. Profiles and tuners replace every section's; workloads go to
    /// the section they belong to (classic ones to `main`, many-streams
    /// ones to `many-streams`), and a section left without workloads is
    /// dropped.
    pub fn filter(
        &mut self,
        profiles: &[&'static Profile],
        workloads: &[MatrixWorkload],
        tuners: &[TunerChoice],
    ) {
        for section in &mut self.sections {
            if !profiles.is_empty() {
                section.profiles = profiles.to_vec();
            }
            if !tuners.is_empty() {
                section.tuners = tuners.to_vec();
            }
            if !workloads.is_empty() {
                let many = section.name == "many-streams";
                section.workloads = workloads
                    .iter()
                    .copied()
                    .filter(|w| w.is_many_streams() == many)
                    .collect();
            }
        }
        self.sections.retain(|s| s.runs() > 0);
    }

    /// Every strategy of every section.
    pub fn tuners(&self) -> impl Iterator<Item = &TunerChoice> {
        self.sections.iter().flat_map(|s| &s.tuners)
    }

    /// One spec per (profile, workload, tuner) — `random_seeds` of them,
    /// consecutive, on a path with random loss or jitter — section by
    /// section, in that nesting order. [`super::median_of_seeds`] folds the
    /// reports back to one per cell.
    #[must_use]
    pub fn specs(&self) -> Vec<RunSpec> {
        let mut specs = Vec::new();
        for section in &self.sections {
            for profile in &section.profiles {
                let path = profile.path();
                for workload in &section.workloads {
                    let w = workload.on(&path, self.quick);
                    let seeds = if profile.is_random() {
                        self.random_seeds.max(1)
                    } else {
                        1
                    };
                    for tuner in &section.tuners {
                        for k in 0..seeds {
                            let mut spec = RunSpec::new(path.clone(), w.clone(), *tuner);
                            spec.seed = self.seed.wrapping_add(k);
                            spec.cc = self.cc;
                            spec.overrides = self.overrides;
                            spec.transport = self.transport;
                            specs.push(spec);
                        }
                    }
                }
            }
        }
        specs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_matrix_shape() {
        let m = Matrix::full();
        let specs = m.specs();
        // lossy and reorder run five seeds per cell.
        assert_eq!(specs.len(), (11 + 2 * 5) * 6 * 6 + 2 * 4 * 6);
        assert_eq!(specs[0].path.name, "satellite");
        assert_eq!(specs[0].workload.name, "bulk");
        assert_eq!(specs[0].tuner, TunerSpec::Default.into());
        assert_eq!(specs[5].tuner, TunerSpec::Unlimited.into());
        assert_eq!(specs[6].workload.name, "small-msgs");
        // The many-streams section follows the main matrix.
        let many = &specs[21 * 6 * 6..];
        assert_eq!(many[0].path.name, "gbit-50ms");
        assert_eq!(many[0].workload.name, "many-100");
        assert_eq!(
            many[..6].iter().map(|s| s.tuner).collect::<Vec<_>>(),
            TunerChoice::MANY_STREAMS
        );
        assert_eq!(many[6].workload.name, "many-1000");
        assert_eq!(many[24].path.name, "residential-cable");
        assert!(many.iter().all(|s| s.workload.streams >= 10));
        let q = Matrix::quick().specs();
        // quick: lossy is the third profile, five seeds per cell.
        assert_eq!(q.len(), (2 + 5) * 3 * 6 + 2 * 2 * 4);
        assert!(q[..36].iter().all(|s| s.seed == 1));
        assert_eq!(
            q[36..41].iter().map(|s| s.seed).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5]
        );
        assert!(q[36..41].iter().all(|s| s.path.name == "lossy"));
        assert_eq!(q[126].workload.name, "many-100");
        assert_eq!(q[130].workload.name, "stall-mix");
    }

    #[test]
    fn filters_route_workloads_to_their_section() {
        let cable = crate::profiles::find("residential-cable").unwrap();
        let neqo_b = TunerChoice::parse("neqo+budget").unwrap();
        // Classic workloads only: the many-streams section is dropped.
        let mut m = Matrix::full();
        m.filter(&[cable], &[MatrixWorkload::SmallMsgs], &[]);
        assert_eq!(m.sections.len(), 1);
        assert_eq!(m.specs().len(), 6);
        // Many-streams workloads only: the main section is dropped.
        let mut m = Matrix::full();
        m.filter(
            &[],
            &[MatrixWorkload::Many100, MatrixWorkload::Bulk],
            &[neqo_b],
        );
        assert_eq!(m.sections.len(), 2);
        let specs = m.specs();
        // 13 profiles, lossy and reorder with five seeds each.
        assert_eq!(specs.len(), 11 + 2 * 5 + 2);
        assert!(specs.iter().all(|s| s.tuner == neqo_b));
        assert_eq!(specs[21].workload.name, "many-100");
        // Profiles replace every section's.
        let mut m = Matrix::quick();
        m.filter(&[cable], &[], &[]);
        assert_eq!(m.specs().len(), 3 * 6 + 2 * 4);
        assert_eq!(m.tuners().count(), 6 + 4);
        // A classic workload outside the quick list still runs.
        let mut m = Matrix::quick();
        m.filter(&[], &[MatrixWorkload::LargeMsg], &[]);
        assert_eq!(m.sections.len(), 1);
        assert_eq!(m.specs().len(), (2 + 5) * 6);
    }
}
