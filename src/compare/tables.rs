//! The per-group tables: one block per (profile, workload), a row per
//! tuner — what `compare` prints and report.md's "Every run" lists.
//! Many-streams groups show memory columns ([`super::memory`]).

use std::time::Duration;

use super::{
    memory::memory_table,
    rows::{best_time, groups, note, time_ratio},
};
use crate::{
    format,
    report::RunReport,
    table::{Align, Table},
    workloads::MatrixWorkload,
};

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

/// True for a group of the many-streams section (or any run with stalled
/// readers): its table shows memory instead of windows.
#[must_use]
pub fn is_memory_group(group: &[RunReport]) -> bool {
    group.iter().any(|r| {
        r.stall.is_some() || MatrixWorkload::find(&r.workload).is_some_and(|w| w.is_many_streams())
    })
}

/// The per-group table: one row per tuner ([`memory_table`]
/// for many-streams groups).
#[must_use]
pub fn group_table(group: &[RunReport]) -> Table {
    if is_memory_group(group) {
        return memory_table(group);
    }
    let mut t = Table::new(&[
        ("tuner", Align::Left),
        ("ratio", Align::Right),
        ("time", Align::Right),
        ("goodput", Align::Right),
        ("win/BDP", Align::Right),
        ("buffer", Align::Right),
        ("drops", Align::Right),
        ("fc idle", Align::Right),
        ("note", Align::Left),
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
            format::seconds(Duration::from_secs_f64(r.fc_link_idle_s.max(0.0))),
            note(r),
        ]);
    }
    t.without_empty_columns()
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
        let table = group_table(group);
        out.push_str(&table.render("  "));
        out.push_str(&crate::legend::render(
            &crate::legend::of(&table, &[]),
            "  ",
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::fixtures::report;

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
        assert!(lines[6].starts_with("  legend: tuner = "), "{}", lines[6]);
        let blank = lines.iter().position(|l| l.is_empty()).unwrap();
        assert!(lines[7..blank].iter().all(|l| l.starts_with("    ")));
        assert!(lines[blank + 1].starts_with("lossy / bulk"));
        assert_eq!(text.matches("  ratio  ").count(), 2);
        assert_eq!(text.matches("ratio = ").count(), 2);
    }
}
