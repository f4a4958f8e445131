//! What every comparison table shares: reports grouped into table blocks,
//! distinct values in first-seen order, and the cells about a run's
//! outcome (its time against the group's best, its note).

use crate::{format, report::RunReport};

/// Consecutive reports of the same (profile, workload): one table block.
pub fn groups(reports: &[RunReport]) -> Vec<&[RunReport]> {
    reports
        .chunk_by(|a, b| a.profile == b.profile && a.workload == b.workload)
        .collect()
}

/// Distinct values of `key` over `reports`, in first-seen order.
pub fn distinct<'a>(
    reports: impl IntoIterator<Item = &'a RunReport>,
    key: fn(&RunReport) -> &str,
) -> Vec<&'a str> {
    let mut seen: Vec<&str> = Vec::new();
    for r in reports {
        let v = key(r);
        if !seen.contains(&v) {
            seen.push(v);
        }
    }
    seen
}

/// Best (smallest) completion time among the group's successful runs.
pub fn best_time(group: &[RunReport]) -> Option<f64> {
    group
        .iter()
        .filter(|r| r.ok() && r.duration_s > 0.0)
        .map(|r| r.duration_s)
        .min_by(f64::total_cmp)
}

/// The note of a row: the error, or what an incomplete run delivered.
pub fn note(r: &RunReport) -> String {
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
pub fn time_ratio(r: &RunReport, best: Option<f64>) -> String {
    match best {
        Some(b) if r.ok() => format::ratio(r.duration_s / b),
        _ => "-".to_owned(),
    }
}
