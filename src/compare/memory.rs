//! Memory with many streams: the table of a many-streams group and
//! report.md's "Memory" section (the credit each strategy hands out over
//! all streams against `default`'s, beside the goodput it buys).

use std::time::Duration;

use super::rows::{best_time, distinct, note, time_ratio};
use crate::{
    format,
    report::RunReport,
    table::{Align, Table},
    workloads::MatrixWorkload,
};

/// The table of a many-streams group: one row per tuner with time,
/// goodput, peak credit / BDP, peak receive buffer, peak budget / BDP,
/// fairness, stall goodput and flow-control-blocked time.
#[must_use]
pub fn memory_table(group: &[RunReport]) -> Table {
    let mut t = Table::new(&[
        ("tuner", Align::Left),
        ("ratio", Align::Right),
        ("time", Align::Right),
        ("goodput", Align::Right),
        ("credit/BDP", Align::Right),
        ("buffer", Align::Right),
        ("budget/BDP", Align::Right),
        ("fairness", Align::Right),
        ("stall goodput", Align::Right),
        ("fc idle", Align::Right),
        ("note", Align::Left),
    ]);
    let best = best_time(group);
    for r in group {
        let budget = if r.memory_budget {
            format::ratio(r.budget_bdp())
        } else {
            "-".to_owned()
        };
        // Jain's index compares equal streams only.
        let fairness = if r.stall.is_none() && r.ok() {
            format!("{:.3}", r.fairness_index)
        } else {
            "-".to_owned()
        };
        t.push(vec![
            r.tuner.clone(),
            time_ratio(r, best),
            format::seconds(Duration::from_secs_f64(r.duration_s.max(0.0))),
            format::rate(r.goodput_bps),
            format::ratio(r.credit_bdp()),
            format::window(r.peak_recv_buffer_bytes),
            budget,
            fairness,
            r.stall_goodput_bps
                .map_or_else(|| "-".to_owned(), format::rate),
            format::seconds(Duration::from_secs_f64(r.fc_link_idle_s.max(0.0))),
            note(r),
        ]);
    }
    t.without_empty_columns()
}

/// `peer`'s peak credit over `ours`: how many times more memory the peer
/// strategy lets the sender make the receiver hold (∞ when ours is 0).
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn credit_ratio(peer: &RunReport, ours: &RunReport) -> f64 {
    peer.peak_total_credit_bytes as f64 / ours.peak_total_credit_bytes as f64
}

/// The workload the summary is about.
const WORKLOAD: MatrixWorkload = MatrixWorkload::Many100;

/// report.md's "Memory" section for the 100-stream workload (empty when
/// it did not run with `default`): per profile, a table of every tuner's
/// goodput, peak credit (bytes, × BDP, × `default`'s) and peak receive
/// buffer, then one sentence comparing `default` with `neqo` and `double`
/// — ready to paste into the README.
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn memory_markdown(reports: &[RunReport]) -> String {
    let name = WORKLOAD.name();
    let rows: Vec<&RunReport> = reports.iter().filter(|r| r.workload == name).collect();
    let mut md = String::new();
    for profile in distinct(rows.iter().copied(), |r| &r.profile) {
        let runs: Vec<&RunReport> = rows
            .iter()
            .copied()
            .filter(|r| r.profile == profile)
            .collect();
        let Some(ours) = runs
            .iter()
            .copied()
            .find(|r| r.tuner == "default" && r.ok())
        else {
            continue;
        };
        if md.is_empty() {
            md.push_str(&format!(
                "\n## Memory: 100 streams × 1 MiB ({name})\n\n\
                 Peak credit = the largest credit outstanding summed over all streams \
                 (stream limit − bytes read), i.e. what the sender may make the receiver \
                 buffer; simulated.\n"
            ));
        }
        md.push_str(&format!(
            "\n### {profile} ({}, RTT {}, BDP {})\n\n",
            format::rate(ours.link_rate_bps as f64),
            format::duration(Duration::from_secs_f64(ours.rtt_s)),
            format::bytes(ours.bdp_bytes)
        ));
        let mut t = Table::new(&[
            ("tuner", Align::Left),
            ("goodput", Align::Right),
            ("peak credit", Align::Right),
            ("× BDP", Align::Right),
            ("× default", Align::Right),
            ("peak buffer", Align::Right),
        ]);
        for r in &runs {
            if !r.ok() {
                t.push(vec![r.tuner.clone(), "failed".to_owned()]);
                continue;
            }
            t.push(vec![
                r.tuner.clone(),
                format::rate(r.goodput_bps),
                format::window(r.peak_total_credit_bytes),
                format::ratio(r.credit_bdp()),
                format::ratio(credit_ratio(r, ours)),
                format::bytes(r.peak_recv_buffer_bytes),
            ]);
        }
        md.push_str(&t.markdown());
        md.push_str(&crate::legend::markdown(&crate::legend::of(&t, &[])));
        let peers: Vec<String> = ["neqo", "double"]
            .into_iter()
            .filter_map(|p| runs.iter().find(|r| r.tuner == p && r.ok()))
            .map(|peer| {
                format!(
                    "{:.1}× less than `{}` ({}, {} goodput)",
                    credit_ratio(peer, ours),
                    peer.tuner,
                    format::bytes(peer.peak_total_credit_bytes),
                    format::rate(peer.goodput_bps)
                )
            })
            .collect();
        if !peers.is_empty() {
            md.push_str(&format!(
                "\nOn {profile}, `default` holds at most {} of credit over 100 streams \
                 ({} × BDP) at {} goodput: {}.\n",
                format::bytes(ours.peak_total_credit_bytes),
                format::ratio(ours.credit_bdp()),
                format::rate(ours.goodput_bps),
                peers.join(" and ")
            ));
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RunSpec, profiles::find, tuners::TunerChoice};

    fn report(profile: &str, tuner: &str, credit: u64, goodput: f64) -> RunReport {
        let path = find(profile).unwrap().path();
        let w = WORKLOAD.on(&path, false);
        let spec = RunSpec::new(path, w, TunerChoice::parse(tuner).unwrap());
        let mut r = spec.failed_report(String::new());
        r.error = None;
        r.completed = true;
        r.duration_s = 1.0;
        r.goodput_bps = goodput;
        r.peak_total_credit_bytes = credit;
        r.peak_budget_bytes = 2 * credit;
        r.fairness_index = 0.98765;
        r
    }

    #[test]
    fn summary_compares_default_with_the_peers() {
        let reports = [
            report("gbit-50ms", "default", 20 << 20, 6.24e8),
            report("gbit-50ms", "neqo", 100 << 20, 6.1e8),
            report("gbit-50ms", "neqo+budget", 100 << 20, 6.1e8),
            report("gbit-50ms", "double", 110 << 20, 6.0e8),
        ];
        let md = memory_markdown(&reports);
        assert!(md.starts_with("\n## Memory: 100 streams × 1 MiB (many-100)\n"));
        assert!(md.contains("### gbit-50ms (1 Gbit/s, RTT 50 ms, BDP 5.96 MiB)"));
        assert!(
            md.contains("| default | 624 Mbit/s | 20 MiB | 3.36 | 1.00 | 0 B |"),
            "{md}"
        );
        assert!(
            md.contains("| neqo+budget | 610 Mbit/s | 100 MiB | 16.78 | 5.00 | 0 B |"),
            "{md}"
        );
        assert!(
            md.contains(
                "On gbit-50ms, `default` holds at most 20 MiB of credit over 100 streams \
                 (3.36 × BDP) at 624 Mbit/s goodput: 5.0× less than `neqo` (100 MiB, \
                 610 Mbit/s goodput) and 5.5× less than `double` (110 MiB, 600 Mbit/s goodput)."
            ),
            "{md}"
        );
        // Without `default` (or without the workload) there is nothing to say.
        assert_eq!(memory_markdown(&reports[1..]), "");
    }

    #[test]
    fn table_shows_memory_columns() {
        let mut stalled = report("gbit-50ms", "neqo", 100 << 20, 6.1e8);
        stalled.stall = Some("50:2s@1s".into());
        stalled.stall_goodput_bps = Some(9.47e8);
        let rows = [report("gbit-50ms", "default", 20 << 20, 6.24e8), stalled];
        let text = memory_table(&rows).render("");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "tuner    ratio     time     goodput  credit/BDP  buffer  budget/BDP  fairness  \
             stall goodput  fc idle"
        );
        // default: budget on (40 MiB = 6.71 BDP), fairness shown, no stall.
        assert_eq!(
            lines[2],
            "default   1.00  1.000 s  624 Mbit/s        3.36     0 B        6.71     0.988              -  0.000 s"
        );
        // neqo: no budget; stalled readers: no fairness, stall goodput.
        assert_eq!(
            lines[3],
            "neqo      1.00  1.000 s  610 Mbit/s       16.78     0 B           -         -     947 Mbit/s  0.000 s"
        );
        assert!((credit_ratio(&rows[1], &rows[0]) - 5.0).abs() < 1e-12);
    }
}
