//! Running a comparison: every spec on a pool of threads (results in spec
//! order, whatever the thread count), and the folding of a cell's seeds
//! into its median-goodput run.

use crate::{execute::execute, report::RunReport, spec::RunSpec};

/// Runs every spec on `threads` threads (at least one), largest first, and
/// returns the reports in spec order; a run that fails yields a report with
/// `error` set. `on_done` is called once per finished run (for progress).
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
            Err(e) => specs[i].failed_report(e.to_string()),
        };
        on_done(&report);
        report
    });
    slots
        .into_iter()
        .zip(specs)
        .map(|(slot, spec)| {
            slot.unwrap_or_else(|| spec.failed_report("worker thread failed".to_owned()))
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

/// How many runs gave how many results, in one phrase used everywhere a
/// count is shown (the progress bar counts runs): `804 runs → 516 results
/// (cells on paths with random loss or jitter are the median of 5 seeds)`,
/// or `36 runs` when every cell is one run.
#[must_use]
pub fn run_count_phrase(runs: usize, results: usize, random_seeds: u64) -> String {
    if runs == results {
        format!("{runs} run{}", if runs == 1 { "" } else { "s" })
    } else {
        format!(
            "{runs} runs → {results} results (cells on paths with random loss or jitter \
             are the median of {random_seeds} seeds)"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{compare::fixtures::report, tuners::TunerSpec, workloads::MatrixWorkload};

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
