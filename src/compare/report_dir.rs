//! The report folder `compare` writes: `report.json` (every run), SVG bar
//! charts, and `report.md` (what ran, the findings, each scenario's table
//! and charts, the many-streams memory section, every run; a legend
//! under each table).

use std::path::{Path, PathBuf};

use super::{
    colours::colour,
    findings::{Memory, findings, findings_legend, findings_table, rank_goodput, summary_sentence},
    matrix::Matrix,
    memory::memory_markdown,
    rows::{distinct, groups},
    run::run_count_phrase,
    summary::summary_table,
    tables::{group_table, group_title},
};
use crate::{
    error::LabError,
    format, legend,
    plot::{self, BarSeries, Scale},
    report::RunReport,
    spec::sanitize,
    tuners::TunerChoice,
};

/// One line on what a workload is: `1 MiB on 100 streams`, or with the
/// range when the size follows the path (`4 MiB–256 MiB on 1 stream`),
/// for headings.
fn workload_line(reports: &[RunReport], workload: &str) -> String {
    let runs: Vec<&RunReport> = reports.iter().filter(|r| r.workload == workload).collect();
    let Some(first) = runs.first() else {
        return workload.to_owned();
    };
    let per_stream = |r: &RunReport| r.expected_bytes / u64::from(r.streams.max(1));
    let lo = runs.iter().map(|r| per_stream(r)).min().unwrap_or(0);
    let hi = runs.iter().map(|r| per_stream(r)).max().unwrap_or(0);
    if lo != hi && first.stall.is_none() {
        let plural = if first.streams == 1 { "" } else { "s" };
        return format!(
            "{}–{} on {} stream{plural} (by path)",
            format::bytes(lo),
            format::bytes(hi),
            first.streams
        );
    }
    // The group title is `profile / workload: what | path`.
    let t = group_title(first);
    let what = t.split_once(" / ").map_or(t.as_str(), |(_, w)| w);
    let what = what.split(" | ").next().unwrap_or(what);
    what.split_once(": ").map_or(what, |(_, w)| w).to_owned()
}

/// The report as Markdown (see the module docs for its order). `plots`
/// are the chart files, linked beside the table of their workload.
#[must_use]
pub fn markdown(reports: &[RunReport], matrix: &Matrix, plots: &[PathBuf]) -> String {
    let runs = matrix.specs().len();
    let mut md = String::from("# fc-lab comparison\n\n");
    md.push_str(&format!(
        "{}; seed {}, {}{}. All numbers are simulated (deterministic: the same command \
         gives the same report); `report.json` has every field of every run.\n\n",
        run_count_phrase(runs, reports.len(), matrix.random_seeds),
        matrix.seed,
        matrix.cc.name(),
        if matrix.quick { ", quick sizes" } else { "" },
    ));
    for section in &matrix.sections {
        md.push_str(&format!(
            "- {}: {} profiles × {} workloads × {} strategies ({}) = {} runs\n",
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

    md.push_str(
        "\n## Findings\n\nPer scenario and path: the fastest strategy (highest goodput \
         among those that delivered everything; `unlimited`, flow control switched off, is \
         the bound, not a contender; with stalled readers the goodput of the streams that \
         kept reading), its memory, whether its window cap held it back, how far it is \
         from `unlimited`, and `default` against it (within 1 % is a tie).\n",
    );
    for s in findings(reports) {
        md.push_str(&format!(
            "\n### {} — {}\n\n{}\n\n",
            s.workload,
            workload_line(reports, s.workload),
            summary_sentence(&s)
        ));
        md.push_str(&findings_table(&s).markdown());
        md.push_str(&legend::markdown(&findings_legend(&s)));
    }

    md.push_str("\n## Scenarios\n\nEvery strategy on every path, with its charts.\n");
    for workload in distinct(reports, |r| &r.workload) {
        let Some((cells, table)) = summary_table(reports, workload) else {
            continue;
        };
        md.push_str(&format!(
            "\n### {workload} — {}\n\nCells: {cells}.\n\n",
            workload_line(reports, workload)
        ));
        md.push_str(&table.markdown());
        md.push_str(&legend::markdown(&legend::of(&table, &[])));
        let stem = sanitize(workload);
        let charts: Vec<&str> = plots
            .iter()
            .filter_map(|p| p.file_name().and_then(|n| n.to_str()))
            .filter(|n| {
                n.strip_suffix(".svg")
                    .is_some_and(|s| s.ends_with(&format!("-{stem}")))
            })
            .collect();
        if !charts.is_empty() {
            md.push('\n');
            for name in charts {
                md.push_str(&format!("![{name}]({name})\n"));
            }
        }
    }

    md.push_str(&memory_markdown(reports));

    md.push_str("\n## Every run\n");
    for workload in distinct(reports, |r| &r.workload) {
        md.push_str(&format!(
            "\n<details><summary>{workload}: a table per path</summary>\n"
        ));
        for group in groups(reports)
            .into_iter()
            .filter(|g| g[0].workload == workload)
        {
            md.push_str(&format!("\n#### {}\n\n", group_title(&group[0])));
            let table = group_table(group);
            md.push_str(&table.markdown());
            md.push_str(&legend::markdown(&legend::of(&table, &[])));
        }
        md.push_str("\n</details>\n");
    }
    md
}

/// [`LabError::Io`] about `path`.
fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> LabError {
    let path = path.to_owned();
    move |source| LabError::Io { path, source }
}

fn write_file(path: &Path, contents: &str) -> Result<(), LabError> {
    std::fs::write(path, contents).map_err(io_err(path))
}

/// A chart's value label: three significant digits, more below 0.01 so a
/// small value still reads as itself.
fn value_label(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 0.01 || v == 0.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.1e}")
    }
}

/// Draws two bar charts per workload into `dir` (each strategy in its
/// [`colour`]): the goodput it ranks by as a share of the link rate, and
/// its memory over the BDP (log scale). Returns the files written.
///
/// # Errors
/// [`LabError::Plot`] when a file cannot be written.
pub fn write_plots(dir: &Path, reports: &[RunReport]) -> Result<Vec<PathBuf>, LabError> {
    let workloads = distinct(reports, |r| &r.workload);
    let profiles = distinct(reports, |r| &r.profile);
    let mut files = Vec::new();
    for workload in workloads {
        let runs: Vec<&RunReport> = reports.iter().filter(|r| r.workload == workload).collect();
        let tuners = distinct(reports, |r| &r.tuner)
            .into_iter()
            .filter(|t| runs.iter().any(|r| r.tuner == *t))
            .collect::<Vec<_>>();
        let cats: Vec<&str> = profiles
            .iter()
            .copied()
            .filter(|p| runs.iter().any(|r| r.profile == *p))
            .collect();
        let value = |tuner: &str, profile: &str, f: &dyn Fn(&RunReport) -> Option<f64>| {
            runs.iter()
                .find(|r| r.profile == profile && r.tuner == tuner)
                .filter(|r| r.ok())
                .and_then(|r| f(r))
        };
        let series = |f: &dyn Fn(&RunReport) -> Option<f64>| -> Vec<BarSeries> {
            tuners
                .iter()
                .map(|t| BarSeries {
                    label: (*t).to_owned(),
                    colour: colour(t),
                    values: cats.iter().map(|p| value(t, p, f)).collect(),
                })
                .collect()
        };
        let categories: Vec<String> = cats.iter().map(|c| (*c).to_owned()).collect();
        let stem = sanitize(workload);
        let stalled = runs.iter().all(|r| r.stall.is_some());

        let (file, title) = if stalled {
            (
                format!("stall-goodput-{stem}.svg"),
                format!(
                    "{workload}: goodput of the streams still reading during the stall, \
                     % of link rate (higher is better)"
                ),
            )
        } else {
            (
                format!("goodput-{stem}.svg"),
                format!("{workload}: goodput as % of link rate (higher is better)"),
            )
        };
        let goodput = dir.join(file);
        #[allow(clippy::cast_precision_loss)]
        let share = |r: &RunReport| rank_goodput(r).map(|g| g / r.link_rate_bps as f64 * 100.0);
        plot::bar_chart(
            &goodput,
            &title,
            "goodput / link rate (%)",
            &categories,
            &series(&share),
            Scale::Linear { max: 100.0 },
            &|v| {
                if v > 0.0 && v < 1.0 {
                    format!("{v:.2}%")
                } else {
                    format!("{v:.0}%")
                }
            },
        )?;
        files.push(goodput);

        let memory = Memory::of(&runs);
        let (prefix, axis) = match memory {
            Memory::Window => ("window", "peak stream receive window / BDP"),
            Memory::Credit => ("credit", "peak credit over all streams / BDP"),
            Memory::Buffer => ("buffer", "peak receive buffer / BDP"),
        };
        let metric = move |r: &RunReport| {
            Some(match memory {
                Memory::Buffer => r.buffer_bdp(),
                _ => memory.value(r),
            })
        };
        let window = dir.join(format!("{prefix}-{stem}.svg"));
        plot::bar_chart(
            &window,
            &format!("{workload}: {axis} (log scale; lower holds less memory)"),
            axis,
            &categories,
            &series(&metric),
            Scale::Log {
                min: 0.001,
                max: 1000.0,
            },
            &value_label,
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

/// Checks before anything runs that `dir` can be the report folder: it is
/// created if missing and must hold nothing but report files, so nobody
/// else's file is removed and no stale chart survives.
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

/// Replaces the report files in `dir` (created if missing) with this
/// report's and returns every file written.
///
/// # Errors
/// [`LabError::Io`] / [`LabError::Plot`] when a file cannot be written or
/// an old one removed.
pub fn write_report(
    dir: &Path,
    reports: &[RunReport],
    matrix: &Matrix,
) -> Result<Vec<PathBuf>, LabError> {
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let (old, _) = survey(dir).map_err(io_err(dir))?;
    for file in old {
        std::fs::remove_file(&file).map_err(io_err(&file))?;
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
