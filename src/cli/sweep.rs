//! `fc-lab sweep`: the fault sweep over a range of seeds.

use std::time::Instant;

use super::{
    args::{SweepArgs, worker_threads},
    output::{json_line, print},
    progress::runs_bar,
};
use crate::error::LabError;

pub(super) fn cmd_sweep(a: &SweepArgs) -> Result<i32, LabError> {
    if a.start.checked_add(a.seeds).is_none() {
        return Err(LabError::flag(
            "--start",
            format!("seeds {}.. + {} overflow a 64-bit seed", a.start, a.seeds),
        ));
    }
    let threads = worker_threads(a.threads);
    let started = Instant::now();
    let bar = runs_bar(a.seeds, "seeds");
    let report = crate::sweep::sweep_with(a.start, a.seeds, threads, &|o| {
        if o.failure.is_some() {
            bar.set_message(format!("seed {} FAILED", o.seed));
        }
        bar.inc(1);
    });
    bar.finish_and_clear();
    let wall = started.elapsed();
    if a.json {
        print(&json_line(&report)?);
    } else {
        print(&report.render());
    }
    eprintln!(
        "{} runs in {:.1} s wall on {threads} thread{}",
        report.runs,
        wall.as_secs_f64(),
        if threads == 1 { "" } else { "s" },
    );
    Ok(i32::from(!report.failures.is_empty()))
}
