//! The runs behind the README's numbers: the full comparison matrix (the
//! same runs and seed medians as `fc-lab compare`), the named runs the
//! README quotes ([`named_specs`]), and the 1,000-seed fault sweep — all from a
//! fresh simulation, in parallel, results independent of the thread count.

use std::{collections::BTreeMap, sync::Arc, time::Duration};

use neqo_fc::{ExcessTuner, Fraction};
use neqo_fc_sim::scenario::{ReaderSpeed, Stall, WorkloadKind};

use fc_lab::{
    compare::{Matrix, median_of_seeds, run_all},
    error::LabError,
    profiles,
    report::RunReport,
    spec::RunSpec,
    sweep::{SweepReport, sweep_with},
    transport::{Preset, TransportChoice},
    tuners::{TunerChoice, TunerSpec},
    workloads::{MatrixWorkload, WorkloadSpec, stall_mix_bulk_bytes},
};

use crate::{
    blind_start,
    calibrate::{Calibration, RECORDED_PATH, RealResults, SHORT_TRANSFERS, calibrate},
    spread::{CELL_TIE, Spread, behind_cells, cell_gaps, spread_specs, spreads},
};

/// Seeds of the fault sweep the README quotes.
pub const SWEEP_SEEDS: u64 = 1_000;

/// Initial stream windows of the README's "initial stream window" table.
pub const INITIAL_WINDOWS: [u64; 4] = [16 << 10, 64 << 10, 256 << 10, 1 << 20];

/// Transfer sizes of that table.
pub const INITIAL_WINDOW_SIZES: [u64; 2] = [10 << 20, 1 << 30];

/// Profiles of rust-yamux's update-fraction finding.
pub const YAMUX_PROFILES: [&str; 3] = ["residential-adsl2+", "residential-cable", "gbit-50ms"];

/// Everything the README quotes.
#[derive(Clone, Debug)]
pub struct Runs {
    /// The comparison matrix, one report per cell (seed medians folded).
    pub matrix: Vec<RunReport>,
    /// Runs before folding seeds.
    pub matrix_runs: usize,
    /// The cells where `default` trails, at nearby RTTs
    /// ([`crate::spread`]).
    pub spread: Vec<Spread>,
    /// Every deterministic cell of the matrix at the same RTTs (the cells
    /// of `spread` among them).
    pub spread_all: Vec<Spread>,
    /// The credit given before the rate is known against the path's
    /// rate, on the means over an RTT sweep ([`blind_start`]).
    pub blind_start: Vec<blind_start::Point>,
    /// Seeds per cell on random paths.
    pub random_seeds: u64,
    /// The named runs, by name (see [`named_specs`]).
    pub named: BTreeMap<String, RunReport>,
    /// The mission path with the default tuner without its headroom.
    pub no_headroom: RunReport,
    /// The fault sweep.
    pub sweep: SweepReport,
    /// The simulator (the `neqo` transport model) beside the committed
    /// real-neqo results, every path ([`crate::calibrate`]).
    pub calibration: Calibration,
    /// The same with the first, fitted model (`neqo-fitted`).
    pub fitted: Calibration,
    /// The committed real-neqo results.
    pub real: RealResults,
    /// The committed short transfers in real neqo, each beside the `neqo`
    /// transport model, in the order of [`SHORT_TRANSFERS`].
    pub short: Vec<(RealResults, Calibration)>,
}

impl Runs {
    /// The named run `name`.
    ///
    /// # Errors
    /// [`LabError::Simulator`] when it is missing (a bug in this module).
    pub fn named(&self, name: &str) -> Result<&RunReport, LabError> {
        self.named
            .get(name)
            .ok_or_else(|| LabError::Simulator(format!("readme: no run named {name}")))
    }

    /// The matrix cell (`profile`, `workload`, `tuner`).
    #[must_use]
    pub fn cell(&self, profile: &str, workload: &str, tuner: &str) -> Option<&RunReport> {
        self.matrix
            .iter()
            .find(|r| r.profile == profile && r.workload == workload && r.tuner == tuner)
    }
}

fn bulk_on(profile: &str, bytes: u64, tuner: impl Into<TunerChoice>) -> RunSpec {
    let path = profiles::find(profile).expect("built-in profile").path();
    let workload = WorkloadSpec {
        name: "bulk".to_owned(),
        kind: WorkloadKind::Bulk { bytes },
        streams: 1,
        reader: ReaderSpeed::Unlimited,
        stall: None,
    };
    RunSpec::new(path, workload, tuner)
}

/// The runs the README quotes by name, besides the matrix.
#[must_use]
pub fn named_specs() -> Vec<(String, RunSpec)> {
    let mut out = Vec::new();
    for profile in ["gbit-50ms", "neqo-bench"] {
        out.push((
            format!("{profile}/1GiB/default"),
            bulk_on(profile, 1 << 30, TunerSpec::Default),
        ));
        out.push((
            format!("{profile}/1GiB/unlimited"),
            bulk_on(profile, 1 << 30, TunerSpec::Unlimited),
        ));
    }
    for bytes in INITIAL_WINDOW_SIZES {
        for window in INITIAL_WINDOWS {
            let mut spec = bulk_on("gbit-50ms", bytes, TunerSpec::Default);
            spec.overrides.initial_window = Some(window);
            out.push((format!("initial/{bytes}/{window}"), spec));
        }
    }
    // A reader on a timer: 500 Mbit/s every 100 ms.
    let mut periodic = bulk_on("gbit-50ms", 1 << 30, TunerSpec::Default);
    periodic.workload.reader = ReaderSpeed::Periodic {
        bps: 500_000_000,
        period: Duration::from_millis(100),
    };
    out.push(("periodic".to_owned(), periodic));
    // The stall that catches 50 × 4 MiB streams mid-transfer.
    let path = profiles::find("gbit-50ms")
        .expect("built-in profile")
        .path();
    let stalled = WorkloadSpec {
        name: "stall-mix-4MiB".to_owned(),
        kind: WorkloadKind::BulkPlus {
            bulk: stall_mix_bulk_bytes(&path),
            each: 4 << 20,
        },
        streams: 51,
        reader: ReaderSpeed::Unlimited,
        stall: Some(Stall {
            streams: 50,
            start: Duration::from_secs(1),
            duration: Duration::from_secs(2),
        }),
    };
    out.push((
        "stall-4MiB".to_owned(),
        RunSpec::new(path, stalled, TunerSpec::Default),
    ));
    // rust-yamux: a static 256 KiB window updated on exhaustion vs at half.
    for profile in YAMUX_PROFILES {
        for (name, fraction) in [("one", Fraction::ONE), ("half", Fraction::HALF)] {
            let path = profiles::find(profile).expect("built-in profile").path();
            let w = MatrixWorkload::LargeMsg.on(&path, false);
            let mut spec = RunSpec::new(path, w, TunerSpec::Fixed(256 << 10));
            spec.overrides.update_fraction = Some(fraction);
            out.push((format!("yamux/{profile}/{name}"), spec));
        }
    }
    out
}

/// Runs everything on `threads` threads; `on_done(what)` after each run
/// (for progress), `len` of them in all ([`run_count`]).
///
/// # Errors
/// [`LabError`] when a named run fails to execute.
pub fn run_everything(threads: usize, on_done: &(dyn Fn(&str) + Sync)) -> Result<Runs, LabError> {
    let matrix = Matrix::full();
    let matrix_specs = matrix.specs();
    let named = named_specs();
    let mut specs = matrix_specs.clone();
    specs.extend(named.iter().map(|(_, s)| s.clone()));
    let reports = run_all(&specs, threads, &|r| on_done(&r.profile));
    let (matrix_reports, named_reports) = reports.split_at(matrix_specs.len());
    let folded = median_of_seeds(matrix_reports.to_vec());
    // Every deterministic cell again at nearby RTTs (about a thousand short
    // runs; not on the progress bar, which counts the runs the blocks
    // quote one by one). The cells where `default` trails are a subset.
    let every = cell_gaps(&folded);
    let spread_reports = run_all(&spread_specs(&matrix, &every), threads, &|_| {});
    let spread_all = spreads(&spread_reports, &every);
    let behind = behind_cells(&folded, CELL_TIE);
    let spread = spread_all
        .iter()
        .filter(|s| {
            behind
                .iter()
                .any(|b| b.profile == s.cell.profile && b.workload == s.cell.workload)
        })
        .cloned()
        .collect();
    // The blind start at eight rates and nine RTTs (also off the progress
    // bar).
    let blind_start = blind_start::points(&run_all(&blind_start::specs(), threads, &|_| {}));
    let named: BTreeMap<String, RunReport> = named
        .into_iter()
        .map(|(n, _)| n)
        .zip(named_reports.iter().cloned())
        .collect();

    // The default tuner without its 1/16 headroom (not a strategy by name).
    let spec = bulk_on("gbit-50ms", 1 << 30, TunerSpec::Default);
    let mut scenario = spec.scenario()?;
    scenario.tuner = Arc::new(ExcessTuner {
        headroom: Fraction::ZERO,
        ..ExcessTuner::DEFAULT
    });
    let result = neqo_fc_sim::run(&scenario);
    let no_headroom = spec.report(&scenario, &result);
    on_done("headroom");

    let sweep = sweep_with(1, SWEEP_SEEDS, threads, &|_| on_done("sweep"));

    let real = RealResults::recorded()?;
    let calibration = calibrate(
        &real,
        RECORDED_PATH,
        TransportChoice::preset(Preset::Neqo),
        threads,
        &|_| on_done("calibrate"),
    );
    let fitted = calibrate(
        &real,
        RECORDED_PATH,
        TransportChoice::preset(Preset::NeqoFitted),
        threads,
        &|_| on_done("calibrate"),
    );
    let short = SHORT_TRANSFERS
        .iter()
        .map(|f| {
            let real = RealResults::parse(f.text, f.path)?;
            let c = calibrate(
                &real,
                f.path,
                TransportChoice::preset(Preset::Neqo),
                threads,
                &|_| on_done("calibrate"),
            );
            Ok((real, c))
        })
        .collect::<Result<Vec<_>, LabError>>()?;
    if let Some(e) = [&calibration, &fitted]
        .into_iter()
        .chain(short.iter().map(|(_, c)| c))
        .find_map(|c| c.errors.first())
    {
        return Err(LabError::Simulator(format!("readme calibration run {e}")));
    }
    // A named run that failed is a bug in the README's runs: say so.
    if let Some((name, r)) = named.iter().find(|(_, r)| r.error.is_some()) {
        return Err(LabError::Simulator(format!(
            "readme run {name} failed: {}",
            r.error.clone().unwrap_or_default()
        )));
    }
    Ok(Runs {
        matrix_runs: matrix_reports.len(),
        matrix: folded,
        spread,
        spread_all,
        blind_start,
        random_seeds: matrix.random_seeds,
        named,
        no_headroom,
        sweep,
        calibration,
        fitted,
        real,
        short,
    })
}

/// Runs [`run_everything`] makes (the progress bar's length).
#[must_use]
pub fn run_count() -> u64 {
    let calibration = RealResults::recorded().map_or(0, |r| {
        let model = crate::calibrate::specs(&r, TransportChoice::preset(Preset::Neqo)).len();
        let fitted = crate::calibrate::specs(&r, TransportChoice::preset(Preset::NeqoFitted)).len();
        model + fitted
    });
    let short: usize = SHORT_TRANSFERS
        .iter()
        .filter_map(|f| RealResults::parse(f.text, f.path).ok())
        .map(|r| crate::calibrate::specs(&r, TransportChoice::preset(Preset::Neqo)).len())
        .sum();
    let calibration = calibration + short;
    (Matrix::full().specs().len() + named_specs().len() + 1 + calibration) as u64 + SWEEP_SEEDS
}
