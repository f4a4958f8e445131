//! The report folder `compare` writes: `report.json` (every run),
//! `report.md` (what ran, the summaries, every table, the plots) and the
//! SVG bar charts.

use std::path::{Path, PathBuf};

use super::{
    matrix::Matrix,
    memory::{MEMORY_COLUMNS, memory_markdown},
    rows::{distinct, groups},
    summary::summary_markdown,
    tables::{COLUMNS, group_table, group_title, is_memory_group},
};
use crate::{
    error::LabError,
    plot::{self, BarSeries, Scale},
    report::RunReport,
    spec::sanitize,
    tuners::TunerChoice,
    workloads::MatrixWorkload,
};

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
        md.push_str(MEMORY_COLUMNS);
    }
    md.push_str("\n\nAll numbers are simulated (deterministic); `report.json` has every field.\n");
    md.push_str(&summary_markdown(reports));
    md.push_str(&memory_markdown(reports));
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

/// True for a file `compare` writes into its report folder (and so may
/// remove from it): `report.json`, `report.md` and `*.svg`.
#[must_use]
pub fn is_report_file(name: &str) -> bool {
    name == "report.json"
        || name == "report.md"
        || Path::new(name)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("svg"))
}

/// The report files in `dir` (none when it does not exist), and the other
/// entries it holds.
fn survey(dir: &Path) -> std::io::Result<(Vec<PathBuf>, Vec<String>)> {
    let mut ours = Vec::new();
    let mut others = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((ours, others)),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type()?.is_file() && is_report_file(&name) {
            ours.push(entry.path());
        } else {
            others.push(name);
        }
    }
    ours.sort();
    others.sort();
    Ok((ours, others))
}

/// Checks, before anything runs, that `dir` can be `compare`'s report
/// folder: it is created if missing, and must hold nothing but report files
/// (which the new report replaces), so no file of anyone else is ever
/// removed and no stale chart of an earlier run survives.
///
/// # Errors
/// [`LabError::Flag`] naming `--out` otherwise.
pub fn prepare_report_dir(dir: &Path) -> Result<(), LabError> {
    crate::outputs::writable_dir("--out", dir)?;
    let (_, others) = survey(dir)
        .map_err(|e| LabError::flag("--out", format!("{}: cannot list it ({e})", dir.display())))?;
    if let Some(first) = others.first() {
        return Err(LabError::flag(
            "--out",
            format!(
                "{} holds {first:?}{}, which compare did not write; compare replaces its \
                 folder's contents, so give it an empty or new folder",
                dir.display(),
                match others.len() {
                    1 => String::new(),
                    n => format!(" and {} more", n - 1),
                }
            ),
        ));
    }
    Ok(())
}

/// Writes `report.json`, `report.md` and the plots into `dir` (created if
/// missing), after removing the report files an earlier run left there
/// (see [`prepare_report_dir`]). Returns every file written.
///
/// # Errors
/// [`LabError::Io`] / [`LabError::Plot`] when a file cannot be written or
/// an old one removed.
pub fn write_report(
    dir: &Path,
    reports: &[RunReport],
    matrix: &Matrix,
) -> Result<Vec<PathBuf>, LabError> {
    std::fs::create_dir_all(dir).map_err(|source| LabError::Io {
        path: dir.to_owned(),
        source,
    })?;
    let (old, _) = survey(dir).map_err(|source| LabError::Io {
        path: dir.to_owned(),
        source,
    })?;
    for file in old {
        std::fs::remove_file(&file).map_err(|source| LabError::Io { path: file, source })?;
    }
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
