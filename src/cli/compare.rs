//! `fc-lab compare`: the matrix the flags select, run in parallel with a
//! progress bar, printed and written as a report folder.

use std::time::Instant;

use super::{
    args::{CompareArgs, worker_threads},
    output::{json_line, print},
    progress::runs_bar,
};
use crate::{
    compare::{self, Matrix},
    error::LabError,
    tuners::{TUNER_EXPECTED, TunerSpec},
};

pub(super) fn cmd_compare(a: &CompareArgs) -> Result<i32, LabError> {
    let mut matrix = if a.quick {
        Matrix::quick()
    } else {
        Matrix::full()
    };
    matrix.filter(&a.profile, &a.workload, &a.tuner);
    matrix.seed = a.transport.seed;
    matrix.random_seeds = a.random_seeds;
    matrix.cc = a.transport.cc.into();
    matrix.overrides = a.transport.overrides();
    matrix.transport = a.transport.transport();
    if let Some(flag) = a.transport.window_flag_given()
        && matrix.tuners().any(|t| t.base == TunerSpec::Unlimited)
    {
        return Err(LabError::flag(
            flag,
            format!(
                "not accepted with the unlimited tuner; pick tuners with --tuner ({TUNER_EXPECTED})"
            ),
        ));
    }
    if a.transport.max_window.is_some()
        && let Some(fixed) = matrix
            .tuners()
            .find(|t| matches!(t.base, TunerSpec::Fixed(_)))
    {
        return Err(LabError::flag(
            "--max-window",
            format!(
                "not accepted with {} (a fixed window has no cap to raise); pick tuners with \
                 --tuner ({TUNER_EXPECTED})",
                fixed.name()
            ),
        ));
    }
    let out = a.out_dir();
    compare::prepare_report_dir(&out)?;
    let specs = matrix.specs();
    let threads = worker_threads(a.threads);
    let bar = runs_bar(specs.len() as u64, "runs");
    let started = Instant::now();
    let reports = compare::run_all(&specs, threads, &|r| {
        bar.set_message(format!("{} / {} / {}", r.profile, r.workload, r.tuner));
        bar.inc(1);
    });
    bar.finish_and_clear();
    let runs = reports.len();
    let reports = compare::median_of_seeds(reports);
    let wall = started.elapsed();
    if a.json {
        print(&json_line(&reports)?);
    } else {
        print(&compare::render_table(&reports));
        // The table runs to hundreds of lines: the findings come last, where a
        // reader of the output (or of its tail) looks.
        print(&format!(
            "\n{}",
            compare::findings::findings_summary(&reports)
        ));
    }
    let files =
        compare::write_report(&out, &reports, &matrix).map_err(|e| e.for_output("--out"))?;
    let charts = files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "svg"))
        .count();
    eprintln!(
        "{} in {:.1} s wall on {threads} thread{}",
        compare::run_count_phrase(runs, reports.len(), matrix.random_seeds),
        wall.as_secs_f64(),
        if threads == 1 { "" } else { "s" },
    );
    eprintln!(
        "wrote {}: report.md (findings, tables, charts), report.json, {charts} SVG charts",
        out.display()
    );
    Ok(0)
}
