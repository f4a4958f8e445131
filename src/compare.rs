//! `fc-lab compare`: the matrix of profiles × workloads × tuners, run in
//! parallel, shown as critcmp-style tables and written as a report folder
//! (`report.json`, `report.md`, SVG bar charts).
//!
//! Parallelism is `std::thread::scope` with an atomic work index over a
//! fixed job order; each result is stored at its spec's index, so the
//! output is identical whatever the thread count (every run is
//! deterministic on its own).

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use neqo_fc_sim::quic::cc::CcAlgorithm;

use crate::{
    error::LabError,
    format,
    plot::{self, BarSeries, Scale},
    profiles::{PROFILES, Profile},
    report::RunReport,
    spec::{RunSpec, execute, sanitize},
    table::{Align, Table},
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
    /// section, in that nesting order. [`median_of_seeds`] folds the
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
                            specs.push(spec);
                        }
                    }
                }
            }
        }
        specs
    }
}

/// Runs every spec on `threads` threads (at least one) and returns the
/// reports in spec order. `on_done` is called once per finished run (from
/// the worker threads) for progress display.
///
/// Jobs start largest first (by bytes to deliver) to balance the threads;
/// a run that fails (invalid settings, a simulator panic) yields a report
/// with `error` set instead of stopping the others.
pub fn run_all(
    specs: &[RunSpec],
    threads: usize,
    on_done: &(dyn Fn(&RunReport) + Sync),
) -> Vec<RunReport> {
    let mut order: Vec<usize> = (0..specs.len()).collect();
    // Stable sort: ties keep spec order, so the schedule is deterministic.
    order.sort_by_key(|&i| std::cmp::Reverse(specs[i].workload.total_bytes()));
    let slots = crate::parallel::run_indexed(specs.len(), &order, threads, &|i| {
        let report = match execute(&specs[i]) {
            Ok(outcome) => outcome.report,
            Err(e) => RunReport::failed(&specs[i], e.to_string()),
        };
        on_done(&report);
        report
    });
    slots
        .into_iter()
        .zip(specs)
        .map(|(slot, spec)| {
            slot.unwrap_or_else(|| RunReport::failed(spec, "worker thread failed".to_owned()))
        })
        .collect()
}

/// Folds consecutive reports of the same (profile, workload, tuner) — the
/// seeds of one cell — into one: the run with the median goodput (the
/// lower median for an even count, ties broken by seed), with `seeds` set
/// to the count. A failed or incomplete run is kept instead, so a seed
/// that breaks is never hidden by the median.
#[must_use]
pub fn median_of_seeds(reports: Vec<RunReport>) -> Vec<RunReport> {
    let mut out: Vec<RunReport> = Vec::new();
    let mut cell: Vec<RunReport> = Vec::new();
    let same = |a: &RunReport, b: &RunReport| {
        a.profile == b.profile && a.workload == b.workload && a.tuner == b.tuner
    };
    let flush = |cell: &mut Vec<RunReport>, out: &mut Vec<RunReport>| {
        let n = cell.len() as u64;
        if n == 0 {
            return;
        }
        let pick = if let Some(i) = cell.iter().position(|r| !r.ok()) {
            i
        } else {
            let mut order: Vec<usize> = (0..cell.len()).collect();
            order.sort_by(|&a, &b| {
                cell[a]
                    .goodput_bps
                    .total_cmp(&cell[b].goodput_bps)
                    .then(cell[a].seed.cmp(&cell[b].seed))
            });
            order[(order.len() - 1) / 2]
        };
        let mut chosen = cell.swap_remove(pick);
        chosen.seeds = n;
        out.push(chosen);
        cell.clear();
    };
    for r in reports {
        if cell.last().is_some_and(|last| !same(last, &r)) {
            flush(&mut cell, &mut out);
        }
        cell.push(r);
    }
    flush(&mut cell, &mut out);
    out
}

/// Consecutive reports of the same (profile, workload): one table block.
fn groups(reports: &[RunReport]) -> Vec<&[RunReport]> {
    reports
        .chunk_by(|a, b| a.profile == b.profile && a.workload == b.workload)
        .collect()
}

/// Best (smallest) completion time among the group's successful runs.
pub(crate) fn best_time(group: &[RunReport]) -> Option<f64> {
    group
        .iter()
        .filter(|r| r.ok() && r.duration_s > 0.0)
        .map(|r| r.duration_s)
        .min_by(f64::total_cmp)
}

/// One line naming a group: `gbit-50ms / bulk: 128 MiB on 1 stream —
/// 1 Gbit/s, RTT 50 ms, BDP 5.96 MiB`.
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn group_title(r: &RunReport) -> String {
    let plural = if r.streams == 1 { "" } else { "s" };
    let stall = r
        .stall
        .as_deref()
        .and_then(|s| crate::stall::parse_stall(s).ok());
    let mut s = if let Some(stall) = stall {
        // Streams may differ in size (`stall-mix`): give the total.
        format!(
            "{} / {}: {} in all on {} stream{plural}; {}",
            r.profile,
            r.workload,
            format::bytes(r.expected_bytes),
            r.streams,
            crate::stall::describe(&stall)
        )
    } else {
        let per_stream = r.expected_bytes / u64::from(r.streams.max(1));
        format!(
            "{} / {}: {} on {} stream{plural}",
            r.profile,
            r.workload,
            format::bytes(per_stream),
            r.streams,
        )
    };
    if let Some(rate) = r.reader_rate_bps {
        s.push_str(&format!(", reader {}", format::rate(rate as f64)));
    }
    s.push_str(&format!(
        " | {}, RTT {}, BDP {}",
        format::rate(r.link_rate_bps as f64),
        format::duration(Duration::from_secs_f64(r.rtt_s)),
        format::bytes(r.bdp_bytes)
    ));
    if r.loss_rate > 0.0 {
        s.push_str(&format!(", loss {}%", r.loss_rate * 100.0));
    }
    s
}

/// The note of a row: the error, or what an incomplete run delivered.
pub(crate) fn note(r: &RunReport) -> String {
    let mut note = match (&r.error, r.completed) {
        (Some(e), _) => format!("error: {e}"),
        (None, false) => format!(
            "incomplete: {} of {}",
            format::bytes(r.bytes),
            format::bytes(r.expected_bytes)
        ),
        (None, true) => String::new(),
    };
    if r.budget_violations > 0 {
        if !note.is_empty() {
            note.push_str("; ");
        }
        note.push_str(&format!("{} budget violations", r.budget_violations));
    }
    note
}

/// Time relative to the group's fastest successful run (`-` for a run that
/// did not deliver).
pub(crate) fn time_ratio(r: &RunReport, best: Option<f64>) -> String {
    match best {
        Some(b) if r.ok() => format::ratio(r.duration_s / b),
        _ => "-".to_owned(),
    }
}

/// True for a group of the many-streams section (or any run with stalled
/// readers): its table shows memory instead of windows.
#[must_use]
pub fn is_memory_group(group: &[RunReport]) -> bool {
    group.iter().any(|r| {
        r.stall.is_some() || MatrixWorkload::find(&r.workload).is_some_and(|w| w.is_many_streams())
    })
}

/// The per-group table: one row per tuner ([`crate::memory::memory_table`]
/// for many-streams groups).
#[must_use]
pub fn group_table(group: &[RunReport]) -> Table {
    if is_memory_group(group) {
        return crate::memory::memory_table(group);
    }
    let mut t = Table::new(&[
        ("tuner", Align::Left),
        ("ratio", Align::Right),
        ("time", Align::Right),
        ("goodput", Align::Right),
        ("win/BDP", Align::Right),
        ("buffer", Align::Right),
        ("drops", Align::Right),
        ("fc blocked", Align::Right),
        ("", Align::Left),
    ]);
    let best = best_time(group);
    for r in group {
        t.push(vec![
            r.tuner.clone(),
            time_ratio(r, best),
            format::seconds(Duration::from_secs_f64(r.duration_s.max(0.0))),
            format::rate(r.goodput_bps),
            format::ratio(r.window_bdp()),
            format::bytes(r.peak_recv_buffer_bytes),
            r.drops.to_string(),
            format::seconds(Duration::from_secs_f64(r.fc_blocked_s.max(0.0))),
            note(r),
        ]);
    }
    t
}

/// The whole comparison as text: a block per (profile, workload), each a
/// title line and an indented table, separated by blank lines.
#[must_use]
pub fn render_table(reports: &[RunReport]) -> String {
    let mut out = String::new();
    for (i, group) in groups(reports).into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&group_title(&group[0]));
        out.push('\n');
        out.push_str(&group_table(group).render("  "));
    }
    out
}

/// Legend of the table columns (for report.md and `--help`).
pub const COLUMNS: &str = "ratio = simulated time / the fastest tuner's (1.00 = best); \
time = simulated time until the last byte was read; goodput = bytes read × 8 / time; \
win/BDP = peak stream receive window / bandwidth-delay product; \
buffer = peak receive-buffer occupancy (received, not yet read); \
drops = datagrams dropped on the path; fc blocked = time the sender had data and \
congestion window but no flow-control credit.";

/// The report as Markdown: what ran, the column legend, a table per group
/// and the plots.
#[must_use]
pub fn markdown(reports: &[RunReport], matrix: &Matrix, plots: &[PathBuf]) -> String {
    let mut md = String::from("# fc-lab comparison\n\n");
    md.push_str(&format!(
        "{} results from {} runs; seed {}, {}{}; on paths with random loss or jitter each \
         result is the median-goodput run of seeds {}..={}.\n\n",
        reports.len(),
        matrix.specs().len(),
        matrix.seed,
        matrix.cc.name(),
        if matrix.quick { ", quick sizes" } else { "" },
        matrix.seed,
        matrix.seed.wrapping_add(matrix.random_seeds.max(1) - 1),
    ));
    for section in &matrix.sections {
        md.push_str(&format!(
            "- {}: {} profiles × {} workloads × {} tuners ({}) = {} runs\n",
            section.name,
            section.profiles.len(),
            section.workloads.len(),
            section.tuners.len(),
            section
                .tuners
                .iter()
                .map(TunerChoice::name)
                .collect::<Vec<_>>()
                .join(", "),
            section.runs()
        ));
    }
    md.push('\n');
    md.push_str(COLUMNS);
    if groups(reports).into_iter().any(is_memory_group) {
        md.push_str("\n\nMany-streams tables: ");
        md.push_str(crate::memory::MEMORY_COLUMNS);
    }
    md.push_str("\n\nAll numbers are simulated (deterministic); `report.json` has every field.\n");
    md.push_str(&summary_markdown(reports));
    md.push_str(&crate::memory::memory_markdown(reports));
    md.push_str("\n# Every run\n");
    for group in groups(reports) {
        md.push_str(&format!("\n## {}\n\n", group_title(&group[0])));
        md.push_str(&group_table(group).markdown());
    }
    if !plots.is_empty() {
        md.push_str("\n## Plots\n\n");
        for p in plots {
            if let Some(name) = p.file_name().and_then(|n| n.to_str()) {
                md.push_str(&format!("![{name}]({name})\n\n"));
            }
        }
    }
    md
}

/// Distinct values of `key` over `reports`, in first-seen order.
fn distinct(reports: &[RunReport], key: fn(&RunReport) -> &str) -> Vec<&str> {
    let mut seen: Vec<&str> = Vec::new();
    for r in reports {
        let v = key(r);
        if !seen.contains(&v) {
            seen.push(v);
        }
    }
    seen
}

/// What the second value of a summary cell is, by workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Second {
    /// Peak stream window / BDP (bulk-like workloads).
    Window,
    /// Peak receive buffer (rate-limited reader).
    Buffer,
    /// Peak credit outstanding over all streams / BDP (many streams).
    Credit,
}

/// One Markdown matrix per workload: a row per profile, a column per
/// tuner (those that ran it), each cell `goodput · peak window / BDP` —
/// `goodput · peak receive buffer` for a rate-limited reader,
/// `goodput · peak total credit / BDP` for the many-streams workloads,
/// and `stall goodput · peak receive buffer` with stalled readers
/// (`failed` / `incomplete` when the run did not deliver everything). The
/// README's results table.
#[must_use]
pub fn summary_markdown(reports: &[RunReport]) -> String {
    let mut md = String::new();
    for workload in distinct(reports, |r| &r.workload) {
        let rows: Vec<&RunReport> = reports.iter().filter(|r| r.workload == workload).collect();
        let mut tuners: Vec<&str> = Vec::new();
        for r in &rows {
            if !tuners.contains(&r.tuner.as_str()) {
                tuners.push(&r.tuner);
            }
        }
        let stalled = rows.iter().all(|r| r.stall.is_some());
        // With stalled or rate-limited readers the question is memory.
        let second = if stalled || rows.iter().all(|r| r.reader_rate_bps.is_some()) {
            Second::Buffer
        } else if MatrixWorkload::find(workload).is_some_and(MatrixWorkload::is_many_streams) {
            Second::Credit
        } else {
            Second::Window
        };
        let first = if stalled { "stall goodput" } else { "goodput" };
        let second_name = match second {
            Second::Window => "peak stream window / BDP",
            Second::Buffer => "peak receive buffer",
            Second::Credit => "peak total credit / BDP",
        };
        md.push_str(&format!(
            "\n## Summary: {workload} ({first} · {second_name})\n\n"
        ));
        let mut columns: Vec<(&str, Align)> = vec![("profile", Align::Left)];
        columns.extend(tuners.iter().map(|t| (*t, Align::Right)));
        let mut t = Table::new(&columns);
        for profile in distinct(reports, |r| &r.profile) {
            if !rows.iter().any(|r| r.profile == profile) {
                continue;
            }
            let mut row = vec![profile.to_owned()];
            for tuner in &tuners {
                let cell = rows
                    .iter()
                    .find(|r| r.profile == profile && r.tuner == *tuner)
                    .map_or_else(String::new, |r| match (&r.error, r.completed) {
                        (Some(_), _) => "failed".to_owned(),
                        (None, false) => "incomplete".to_owned(),
                        (None, true) => format!(
                            "{} · {}",
                            if stalled {
                                r.stall_goodput_bps
                                    .map_or_else(|| "-".to_owned(), format::rate)
                            } else {
                                format::rate(r.goodput_bps)
                            },
                            match second {
                                Second::Window => format::ratio(r.window_bdp()),
                                Second::Buffer => format::bytes(r.peak_recv_buffer_bytes),
                                Second::Credit => format::ratio(r.credit_bdp()),
                            }
                        ),
                    });
                row.push(cell);
            }
            t.push(row);
        }
        md.push_str(&t.markdown());
    }
    md
}

fn write_file(path: &Path, contents: &str) -> Result<(), LabError> {
    std::fs::write(path, contents).map_err(|source| LabError::Io {
        path: path.to_owned(),
        source,
    })
}

/// Draws the report's bar charts into `dir`: for each workload, goodput as
/// a share of the link rate and peak stream window / BDP (peak credit over
/// all streams / BDP for the many-streams workloads), by profile and
/// tuner. Returns the files written.
///
/// # Errors
/// [`LabError::Plot`] when a file cannot be written.
pub fn write_plots(dir: &Path, reports: &[RunReport]) -> Result<Vec<PathBuf>, LabError> {
    let workloads = distinct(reports, |r| &r.workload);
    let profiles = distinct(reports, |r| &r.profile);
    let mut files = Vec::new();
    for workload in workloads {
        let tuners = distinct(reports, |r| &r.tuner)
            .into_iter()
            .filter(|t| {
                reports
                    .iter()
                    .any(|r| r.workload == workload && r.tuner == *t)
            })
            .collect::<Vec<_>>();
        let cats: Vec<&str> = profiles
            .iter()
            .copied()
            .filter(|p| {
                reports
                    .iter()
                    .any(|r| r.workload == workload && r.profile == *p)
            })
            .collect();
        let value = |tuner: &str, profile: &str, f: &dyn Fn(&RunReport) -> f64| {
            reports
                .iter()
                .find(|r| r.workload == workload && r.profile == profile && r.tuner == tuner)
                .filter(|r| r.ok())
                .map(f)
        };
        let series = |f: &dyn Fn(&RunReport) -> f64| -> Vec<BarSeries> {
            tuners
                .iter()
                .map(|t| BarSeries {
                    label: (*t).to_owned(),
                    values: cats.iter().map(|p| value(t, p, f)).collect(),
                })
                .collect()
        };
        let categories: Vec<String> = cats.iter().map(|c| (*c).to_owned()).collect();
        let stem = sanitize(workload);

        let goodput = dir.join(format!("goodput-{stem}.svg"));
        plot::bar_chart(
            &goodput,
            &format!("{workload}: goodput as % of link rate (higher is better)"),
            "goodput / link rate (%)",
            &categories,
            &series(&|r| r.link_share() * 100.0),
            Scale::Linear { max: 100.0 },
            &|v| format!("{v:.0}%"),
        )?;
        files.push(goodput);

        // Many streams: the memory question is the credit over all
        // streams, not one stream's window.
        let many = MatrixWorkload::find(workload).is_some_and(MatrixWorkload::is_many_streams);
        let (file, title, axis, metric): (_, _, _, fn(&RunReport) -> f64) = if many {
            (
                format!("credit-{stem}.svg"),
                format!("{workload}: peak credit over all streams / BDP (log scale)"),
                "peak total credit / BDP",
                RunReport::credit_bdp,
            )
        } else {
            (
                format!("window-{stem}.svg"),
                format!("{workload}: peak stream window / BDP (log scale)"),
                "peak stream receive window / BDP",
                RunReport::window_bdp,
            )
        };
        let window = dir.join(file);
        plot::bar_chart(
            &window,
            &title,
            axis,
            &categories,
            &series(&metric),
            Scale::Log {
                min: 0.01,
                max: 1000.0,
            },
            &|v| {
                if v >= 100.0 {
                    format!("{v:.0}")
                } else if v >= 10.0 {
                    format!("{v:.1}")
                } else {
                    format!("{v:.2}")
                }
            },
        )?;
        files.push(window);
    }
    Ok(files)
}

/// Writes `report.json`, `report.md` and the plots into `dir` (created if
/// missing). Returns every file written.
///
/// # Errors
/// [`LabError::Io`] / [`LabError::Plot`] when a file cannot be written.
pub fn write_report(
    dir: &Path,
    reports: &[RunReport],
    matrix: &Matrix,
) -> Result<Vec<PathBuf>, LabError> {
    std::fs::create_dir_all(dir).map_err(|source| LabError::Io {
        path: dir.to_owned(),
        source,
    })?;
    let json_path = dir.join("report.json");
    let json = serde_json::to_string_pretty(reports).map_err(|e| LabError::Io {
        path: json_path.clone(),
        source: std::io::Error::other(e),
    })?;
    write_file(&json_path, &(json + "\n"))?;
    let plots = write_plots(dir, reports)?;
    let md_path = dir.join("report.md");
    write_file(&md_path, &markdown(reports, matrix, &plots))?;
    let mut files = vec![json_path, md_path];
    files.extend(plots);
    Ok(files)
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
            many[..6].iter().map(|s| s.tuner.name()).collect::<Vec<_>>(),
            [
                "default",
                "default-budget",
                "neqo",
                "neqo+budget",
                "double",
                "double+budget"
            ]
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
    fn median_of_seeds_keeps_the_median_run_or_a_failure() {
        let mut cell: Vec<RunReport> = [3.0, 1.0, 5.0, 2.0, 4.0]
            .iter()
            .enumerate()
            .map(|(i, &g)| {
                let mut r = report("lossy", "bulk", "default", 1.0, true);
                r.seed = i as u64 + 1;
                r.goodput_bps = g;
                r
            })
            .collect();
        let mut other = report("lossy", "bulk", "neqo", 1.0, true);
        other.goodput_bps = 7.0;
        let mut all = cell.clone();
        all.push(other.clone());
        let folded = median_of_seeds(all);
        assert_eq!(folded.len(), 2);
        assert_eq!((folded[0].goodput_bps, folded[0].seed), (3.0, 1));
        assert_eq!(folded[0].seeds, 5);
        assert_eq!((folded[1].tuner.as_str(), folded[1].seeds), ("neqo", 1));
        // Even count: the lower median; ties by seed.
        cell.truncate(4);
        let folded = median_of_seeds(cell.clone());
        assert_eq!((folded[0].goodput_bps, folded[0].seeds), (2.0, 4));
        // A failed seed is reported, not hidden.
        cell[2] = report("lossy", "bulk", "default", 1.0, false);
        cell[2].seed = 3;
        let folded = median_of_seeds(cell);
        assert_eq!((folded[0].seed, folded[0].ok()), (3, false));
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

    fn report(profile: &str, workload: &str, tuner: &str, secs: f64, ok: bool) -> RunReport {
        let path = crate::profiles::find("gbit-50ms").unwrap().path();
        let w = MatrixWorkload::Bulk.on(&path, true);
        let spec = RunSpec::new(path, w, TunerChoice::parse(tuner).unwrap());
        let mut r = RunReport::failed(&spec, String::new());
        r.profile = profile.into();
        r.workload = workload.into();
        r.error = None;
        r.completed = ok;
        r.duration_s = secs;
        r.bytes = if ok { r.expected_bytes } else { 0 };
        r.peak_stream_window_bytes = 12_500_000;
        r
    }

    #[test]
    fn tables_group_and_rank() {
        let reports = vec![
            report("gbit-50ms", "bulk", "default", 1.0, true),
            report("gbit-50ms", "bulk", "fixed:1MiB", 5.0, true),
            report("gbit-50ms", "bulk", "neqo", 9.0, false),
            report("lossy", "bulk", "default", 2.0, true),
        ];
        let text = render_table(&reports);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("gbit-50ms / bulk: 60 MiB on 1 stream | 1 Gbit/s"));
        assert!(lines[1].starts_with("  tuner"));
        assert!(
            lines[3].starts_with("  default      1.00  1.000 s"),
            "{}",
            lines[3]
        );
        assert!(
            lines[4].starts_with("  fixed:1MiB   5.00  5.000 s"),
            "{}",
            lines[4]
        );
        assert!(
            lines[5].contains("incomplete: 0 B of 60 MiB"),
            "{}",
            lines[5]
        );
        assert!(lines[5].starts_with("  neqo            -"), "{}", lines[5]);
        assert!(lines[3].contains("2.00"), "win/BDP: {}", lines[3]);
        assert_eq!(lines[6], "");
        assert!(lines[7].starts_with("lossy / bulk"));
        assert_eq!(text.matches("ratio").count(), 2);
    }

    #[test]
    fn summary_is_a_profile_by_tuner_matrix() {
        let mut a = report("gbit-50ms", "bulk", "default", 1.0, true);
        a.goodput_bps = 8e8;
        let b = report("gbit-50ms", "bulk", "neqo", 2.0, false);
        let c = report("lossy", "bulk", "neqo", 2.0, true);
        let md = summary_markdown(&[a, b, c]);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(
            lines[1],
            "## Summary: bulk (goodput · peak stream window / BDP)"
        );
        assert_eq!(lines[3], "| profile | default | neqo |");
        assert_eq!(lines[5], "| gbit-50ms | 800 Mbit/s · 2.00 | incomplete |");
        assert_eq!(lines[6], "| lossy |  | 0 bit/s · 2.00 |");

        let mut slow = report("gbit-50ms", "slow-reader", "default", 1.0, true);
        slow.reader_rate_bps = Some(100_000_000);
        slow.peak_recv_buffer_bytes = 2048;
        let md = summary_markdown(&[slow]);
        assert!(md.contains("## Summary: slow-reader (goodput · peak receive buffer)"));
        assert!(md.contains("| gbit-50ms | 0 bit/s · 2 KiB |"), "{md}");
    }

    #[test]
    fn parallel_results_keep_spec_order_on_failures() {
        // Invalid settings fail before the simulator runs: exercised
        // without it, on any number of threads.
        let path = crate::profiles::find("gbit-50ms").unwrap().path();
        let w = MatrixWorkload::Bulk.on(&path, true);
        let mut specs = Vec::new();
        for i in 0..5u64 {
            let mut s = RunSpec::new(path.clone(), w.clone(), TunerSpec::Unlimited);
            s.overrides.initial_window = Some(1);
            s.seed = i;
            specs.push(s);
        }
        use std::sync::atomic::{AtomicUsize, Ordering};
        let count = AtomicUsize::new(0);
        let one = run_all(&specs, 1, &|_| {
            count.fetch_add(1, Ordering::Relaxed);
        });
        let three = run_all(&specs, 3, &|_| {});
        assert_eq!(count.load(Ordering::Relaxed), 5);
        assert_eq!(one, three);
        assert_eq!(
            one.iter().map(|r| r.seed).collect::<Vec<_>>(),
            [0, 1, 2, 3, 4]
        );
        assert!(one[0].error.as_deref().unwrap().contains("initial-window"));
    }
}
