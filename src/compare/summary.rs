//! report.md's summary matrices: one per workload, a row per profile and a
//! column per tuner — the README's results tables.

use super::rows::distinct;
use crate::{
    format,
    report::RunReport,
    table::{Align, Table},
    workloads::MatrixWorkload,
};

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
