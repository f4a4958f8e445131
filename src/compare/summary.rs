//! report.md's summary matrices: one per workload, a row per profile and a
//! column per tuner — the README's results tables.

use super::{
    findings::{Memory, rank_goodput},
    rows::distinct,
};
use crate::{
    format,
    report::RunReport,
    table::{Align, Table},
};

/// The profile × tuner matrix of `workload`, each cell `goodput · memory`
/// ([`rank_goodput`], [`Memory`]; `failed` / `incomplete` when the run did
/// not deliver everything), with a phrase saying what the cells hold;
/// `None` when nothing ran it.
#[must_use]
pub fn summary_table(reports: &[RunReport], workload: &str) -> Option<(String, Table)> {
    let rows: Vec<&RunReport> = reports.iter().filter(|r| r.workload == workload).collect();
    if rows.is_empty() {
        return None;
    }
    let tuners = distinct(rows.iter().copied(), |r| &r.tuner);
    let stalled = rows.iter().all(|r| r.stall.is_some());
    let memory = Memory::of(&rows);
    let first = if stalled { "stall goodput" } else { "goodput" };
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
                        rank_goodput(r).map_or_else(|| "-".to_owned(), format::rate),
                        match memory {
                            Memory::Window => format::ratio(r.window_bdp()),
                            Memory::Buffer => format::window(r.peak_recv_buffer_bytes),
                            Memory::Credit => format::ratio(r.credit_bdp()),
                        }
                    ),
                });
            row.push(cell);
        }
        t.push(row);
    }
    Some((format!("{first} · {}", memory.name()), t))
}

/// One Markdown matrix per workload ([`summary_table`]), each under a
/// `## Summary: workload (what the cells hold)` heading.
#[must_use]
pub fn summary_markdown(reports: &[RunReport]) -> String {
    let mut md = String::new();
    for workload in distinct(reports, |r| &r.workload) {
        if let Some((cells, t)) = summary_table(reports, workload) {
            md.push_str(&format!("\n## Summary: {workload} ({cells})\n\n"));
            md.push_str(&t.markdown());
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::fixtures::report;

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
}
