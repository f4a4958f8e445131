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
    sync::atomic::{AtomicUsize, Ordering},
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
    tuners::{Overrides, TunerSpec},
    workloads::MatrixWorkload,
};

/// Which runs a comparison makes. Invariant: no list is empty when
/// [`Matrix::specs`] is called from the CLI (filters are checked there).
#[derive(Clone, Debug)]
pub struct Matrix {
    /// Network paths.
    pub profiles: Vec<&'static Profile>,
    /// Workloads.
    pub workloads: Vec<MatrixWorkload>,
    /// Strategies, in table order.
    pub tuners: Vec<TunerSpec>,
    /// Quarter-size bulk transfers.
    pub quick: bool,
    /// PRNG seed of every run.
    pub seed: u64,
    /// Congestion control of every run.
    pub cc: CcAlgorithm,
    /// Overrides applied to every tuner.
    pub overrides: Overrides,
}

/// Profiles of the `--quick` matrix.
pub const QUICK_PROFILES: [&str; 3] = ["residential-cable", "gbit-50ms", "lossy"];
/// Workloads of the `--quick` matrix.
pub const QUICK_WORKLOADS: [MatrixWorkload; 3] = [
    MatrixWorkload::Bulk,
    MatrixWorkload::SmallMsgs10,
    MatrixWorkload::SlowReader,
];

impl Matrix {
    /// The default matrix: every profile, every workload, the six matrix
    /// tuners.
    #[must_use]
    pub fn full() -> Self {
        Self {
            profiles: PROFILES.iter().collect(),
            workloads: MatrixWorkload::ALL.to_vec(),
            tuners: TunerSpec::MATRIX.to_vec(),
            quick: false,
            seed: 1,
            cc: CcAlgorithm::Cubic,
            overrides: Overrides::default(),
        }
    }

    /// The `--quick` matrix: three profiles, three workloads, quarter-size
    /// bulk transfers, all six tuners.
    #[must_use]
    pub fn quick() -> Self {
        Self {
            profiles: PROFILES
                .iter()
                .filter(|p| QUICK_PROFILES.contains(&p.name))
                .collect(),
            workloads: QUICK_WORKLOADS.to_vec(),
            quick: true,
            ..Self::full()
        }
    }

    /// One spec per (profile, workload, tuner), in that nesting order.
    #[must_use]
    pub fn specs(&self) -> Vec<RunSpec> {
        let mut specs = Vec::new();
        for profile in &self.profiles {
            let path = profile.path();
            for workload in &self.workloads {
                let w = workload.on(&path, self.quick);
                for tuner in &self.tuners {
                    let mut spec = RunSpec::new(path.clone(), w.clone(), *tuner);
                    spec.seed = self.seed;
                    spec.cc = self.cc;
                    spec.overrides = self.overrides;
                    specs.push(spec);
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
    let next = AtomicUsize::new(0);
    let threads = threads.clamp(1, specs.len().max(1));
    let mut slots: Vec<Option<RunReport>> = vec![None; specs.len()];
    let finished: Vec<Vec<(usize, RunReport)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&i) = order.get(k) else { break };
                        let report = match execute(&specs[i]) {
                            Ok(outcome) => outcome.report,
                            Err(e) => RunReport::failed(&specs[i], e.to_string()),
                        };
                        on_done(&report);
                        done.push((i, report));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_default())
            .collect()
    });
    for (i, report) in finished.into_iter().flatten() {
        slots[i] = Some(report);
    }
    slots
        .into_iter()
        .zip(specs)
        .map(|(slot, spec)| {
            slot.unwrap_or_else(|| RunReport::failed(spec, "worker thread failed".to_owned()))
        })
        .collect()
}

/// Consecutive reports of the same (profile, workload): one table block.
fn groups(reports: &[RunReport]) -> Vec<&[RunReport]> {
    reports
        .chunk_by(|a, b| a.profile == b.profile && a.workload == b.workload)
        .collect()
}

/// Best (smallest) completion time among the group's successful runs.
fn best_time(group: &[RunReport]) -> Option<f64> {
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
    let per_stream = r.expected_bytes / u64::from(r.streams.max(1));
    let mut s = format!(
        "{} / {}: {} on {} stream{}",
        r.profile,
        r.workload,
        format::bytes(per_stream),
        r.streams,
        if r.streams == 1 { "" } else { "s" }
    );
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

/// The per-group table: one row per tuner.
#[must_use]
pub fn group_table(group: &[RunReport]) -> Table {
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
        let ratio = match best {
            Some(b) if r.ok() => format::ratio(r.duration_s / b),
            _ => "-".to_owned(),
        };
        let note = match (&r.error, r.completed) {
            (Some(e), _) => format!("error: {e}"),
            (None, false) => format!(
                "incomplete: {} of {}",
                format::bytes(r.bytes),
                format::bytes(r.expected_bytes)
            ),
            (None, true) => String::new(),
        };
        t.push(vec![
            r.tuner.clone(),
            ratio,
            format::seconds(Duration::from_secs_f64(r.duration_s.max(0.0))),
            format::rate(r.goodput_bps),
            format::ratio(r.window_bdp()),
            format::bytes(r.peak_recv_buffer_bytes),
            r.drops.to_string(),
            format::seconds(Duration::from_secs_f64(r.fc_blocked_s.max(0.0))),
            note,
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
        "{} runs: {} profiles × {} workloads × {} tuners ({}); seed {}, {}{}.\n\n",
        reports.len(),
        matrix.profiles.len(),
        matrix.workloads.len(),
        matrix.tuners.len(),
        matrix
            .tuners
            .iter()
            .map(TunerSpec::name)
            .collect::<Vec<_>>()
            .join(", "),
        matrix.seed,
        matrix.cc.name(),
        if matrix.quick { ", quick sizes" } else { "" },
    ));
    md.push_str(COLUMNS);
    md.push_str("\n\nAll numbers are simulated (deterministic); `report.json` has every field.\n");
    md.push_str(&summary_markdown(reports));
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

/// One Markdown matrix per workload: a row per profile, a column per
/// tuner, each cell `goodput · peak window / BDP` — or `goodput · peak
/// receive buffer` for a rate-limited reader, where memory is the question
/// (`failed` / `incomplete` when the run did not deliver everything). The
/// README's results table.
#[must_use]
pub fn summary_markdown(reports: &[RunReport]) -> String {
    let tuners = distinct(reports, |r| &r.tuner);
    let mut md = String::new();
    for workload in distinct(reports, |r| &r.workload) {
        let rows: Vec<&RunReport> = reports.iter().filter(|r| r.workload == workload).collect();
        // With a rate-limited reader the question is memory, not window.
        let reader_limited = rows.iter().all(|r| r.reader_rate_bps.is_some());
        let second = if reader_limited {
            "peak receive buffer"
        } else {
            "peak stream window / BDP"
        };
        md.push_str(&format!(
            "\n## Summary: {workload} (goodput · {second})\n\n"
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
                            format::rate(r.goodput_bps),
                            if reader_limited {
                                format::bytes(r.peak_recv_buffer_bytes)
                            } else {
                                format::ratio(r.window_bdp())
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
/// a share of the link rate and peak stream window / BDP, by profile and
/// tuner. Returns the files written.
///
/// # Errors
/// [`LabError::Plot`] when a file cannot be written.
pub fn write_plots(dir: &Path, reports: &[RunReport]) -> Result<Vec<PathBuf>, LabError> {
    let mut workloads: Vec<&str> = Vec::new();
    let mut profiles: Vec<&str> = Vec::new();
    let mut tuners: Vec<&str> = Vec::new();
    for r in reports {
        for (list, v) in [
            (&mut workloads, &r.workload),
            (&mut profiles, &r.profile),
            (&mut tuners, &r.tuner),
        ] {
            if !list.contains(&v.as_str()) {
                list.push(v);
            }
        }
    }
    let mut files = Vec::new();
    for workload in workloads {
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

        let window = dir.join(format!("window-{stem}.svg"));
        plot::bar_chart(
            &window,
            &format!("{workload}: peak stream window / BDP (log scale)"),
            "peak stream receive window / BDP",
            &categories,
            &series(&RunReport::window_bdp),
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
        assert_eq!(specs.len(), 13 * 5 * 6);
        assert_eq!(specs[0].path.name, "satellite");
        assert_eq!(specs[0].workload.name, "bulk");
        assert_eq!(specs[0].tuner, TunerSpec::Default);
        assert_eq!(specs[5].tuner, TunerSpec::Unlimited);
        assert_eq!(specs[6].workload.name, "small-msgs");
        let q = Matrix::quick().specs();
        assert_eq!(q.len(), 3 * 3 * 6);
        assert!(q.iter().all(|s| s.seed == 1));
    }

    fn report(profile: &str, workload: &str, tuner: &str, secs: f64, ok: bool) -> RunReport {
        let path = crate::profiles::find("gbit-50ms").unwrap().path();
        let w = MatrixWorkload::Bulk.on(&path, true);
        let spec = RunSpec::new(path, w, TunerSpec::parse(tuner).unwrap());
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
