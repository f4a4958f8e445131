//! Where the path's delay varies (issue #42): jitter that keeps datagram
//! order, loss recovery behind shallow queues and random loss, and the
//! `bufferbloat` row that keeps a rule from growing into its own queue.
//!
//! Each row is one stream of 1 GiB (a quarter with `--quick`) swept over
//! 21 RTTs, 20–100 ms every 4 ms (20, 60 and 100 ms with `--quick`), for
//! ours, the bound (`unlimited`), the peers the issue names, and ours
//! without its delay probes (`min-rtt`, the rule before them). Per row and
//! strategy: the mean goodput, the worst single RTT against `unlimited`,
//! the mean peak stream window in BDPs (of the minimum RTT), and the mean
//! seconds the link sat idle because the sender had data and congestion
//! window but no credit: the part of the gap flow control causes.
//!
//! The cross-traffic rows add a second connection on the same path
//! ([`CrossTraffic`]): a bulk download with unlimited windows and the same
//! congestion control, 3 s ahead of ours (ours meets its standing queue)
//! or joining 2 s after ours, behind the mission's 1-BDP queue and a
//! shallow 0.1-BDP one. There the cell adds the other connection's mean
//! goodput while ours ran: `unlimited`'s goodput is the share a flow
//! without flow control takes in our place.

use std::time::Duration;

use fc_lab::{
    profiles::{self, PathSpec},
    report::RunReport,
    spec::RunSpec,
    table::{Align, Table},
    tuners::TunerSpec,
    workloads::MatrixWorkload,
};
use neqo_fc_sim::scenario::{CrossTraffic, WorkloadKind};

/// One path whose delay varies (or the two reference rows).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    /// Short name.
    pub name: &'static str,
    /// What it stands for.
    pub what: &'static str,
    /// Bottleneck rate, bit/s.
    pub rate_bps: u64,
    /// Tail-drop queue in BDPs, as (numerator, denominator).
    pub queue_bdp: (u64, u64),
    /// Largest random extra one-way delay on the data direction, order kept.
    pub jitter_ms: u64,
    /// Random loss on the data direction, 0–1.
    pub loss: f64,
    /// Another connection on the path.
    pub cross: Option<CrossTraffic>,
}

/// The other connection starts this long before ours.
const CROSS_LEAD: Duration = Duration::from_secs(3);
/// The other connection joins this long after ours.
const CROSS_AFTER: Duration = Duration::from_secs(2);

/// A cross-traffic row: 1 Gbit/s, a tail-drop queue of `queue_bdp`, no
/// jitter or loss, and the other connection as `cross` says.
const fn cross_row(
    name: &'static str,
    what: &'static str,
    queue_bdp: (u64, u64),
    cross: CrossTraffic,
) -> Row {
    Row {
        name,
        what,
        rate_bps: 1_000_000_000,
        queue_bdp,
        jitter_ms: 0,
        loss: 0.0,
        cross: Some(cross),
    }
}

/// The rows, in table order.
pub const ROWS: [Row; 11] = [
    Row {
        name: "mission",
        what: "1 Gbit/s, 1-BDP queue: the only queue is ours",
        rate_bps: 1_000_000_000,
        queue_bdp: (1, 1),
        jitter_ms: 0,
        loss: 0.0,
        cross: None,
    },
    Row {
        name: "jitter 10 ms",
        what: "mission + up to 10 ms extra one-way delay, order kept",
        rate_bps: 1_000_000_000,
        queue_bdp: (1, 1),
        jitter_ms: 10,
        loss: 0.0,
        cross: None,
    },
    Row {
        name: "jitter 30 ms",
        what: "mission + up to 30 ms extra one-way delay, order kept",
        rate_bps: 1_000_000_000,
        queue_bdp: (1, 1),
        jitter_ms: 30,
        loss: 0.0,
        cross: None,
    },
    Row {
        name: "queue 0.5 BDP",
        what: "1 Gbit/s, tail-drop queue of half a BDP: loss recovery",
        rate_bps: 1_000_000_000,
        queue_bdp: (1, 2),
        jitter_ms: 0,
        loss: 0.0,
        cross: None,
    },
    Row {
        name: "queue 0.1 BDP",
        what: "1 Gbit/s, tail-drop queue of a tenth of a BDP (neqo's bench is 0.1 at 40 ms)",
        rate_bps: 1_000_000_000,
        queue_bdp: (1, 10),
        jitter_ms: 0,
        loss: 0.0,
        cross: None,
    },
    Row {
        name: "loss 0.01 %",
        what: "mission + 0.01 % random loss: a no-harm row",
        rate_bps: 1_000_000_000,
        queue_bdp: (1, 1),
        jitter_ms: 0,
        loss: 0.0001,
        cross: None,
    },
    Row {
        name: "bufferbloat",
        what: "50 Mbit/s, 50-BDP queue, own flow only: the rule must not grow into it",
        rate_bps: 50_000_000,
        queue_bdp: (50, 1),
        jitter_ms: 0,
        loss: 0.0,
        cross: None,
    },
    cross_row(
        "cross first, 1 BDP",
        "mission + a bulk connection 3 s ahead of ours: we meet its standing queue",
        (1, 1),
        CrossTraffic::First { lead: CROSS_LEAD },
    ),
    cross_row(
        "cross second, 1 BDP",
        "mission + a bulk connection joining 2 s after ours",
        (1, 1),
        CrossTraffic::Second { after: CROSS_AFTER },
    ),
    cross_row(
        "cross first, 0.1 BDP",
        "1 Gbit/s, 0.1-BDP queue, a bulk connection 3 s ahead of ours",
        (1, 10),
        CrossTraffic::First { lead: CROSS_LEAD },
    ),
    cross_row(
        "cross second, 0.1 BDP",
        "1 Gbit/s, 0.1-BDP queue, a bulk connection joining 2 s after ours",
        (1, 10),
        CrossTraffic::Second { after: CROSS_AFTER },
    ),
];

/// The strategies, in column order: ours, the bound, the peers, and ours
/// before delay probes (`min-rtt`).
pub const TUNERS: [TunerSpec; 6] = [
    TunerSpec::Default,
    TunerSpec::Unlimited,
    TunerSpec::Neqo,
    TunerSpec::Double,
    TunerSpec::Fixed(8 << 20),
    TunerSpec::MinRtt,
];

/// The RTTs swept, ms.
#[must_use]
pub fn rtts(quick: bool) -> Vec<u64> {
    if quick {
        vec![20, 60, 100]
    } else {
        (20..=100).step_by(4).collect()
    }
}

/// `row` at `rtt_ms`, otherwise as `gbit-50ms`.
fn path(row: &Row, rtt_ms: u64) -> PathSpec {
    let mut path = profiles::find("gbit-50ms")
        .expect("built-in profile")
        .path();
    path.name = format!("{}, {rtt_ms} ms", row.name);
    path.rate_bps = row.rate_bps;
    path.rtt = Duration::from_millis(rtt_ms);
    let (num, den) = row.queue_bdp;
    path.queue_bytes = (path.bdp_bytes() * num / den).max(1);
    path.jitter = Duration::from_millis(row.jitter_ms);
    path.jitter_reorders = false;
    path.loss = row.loss;
    path.cross = row.cross;
    path
}

/// Every run, in order: row, RTT, then each of [`TUNERS`] ([`summarise`]
/// reads them back in that order).
#[must_use]
pub fn specs(quick: bool) -> Vec<RunSpec> {
    let bytes: u64 = if quick { 256 << 20 } else { 1 << 30 };
    let mut specs = Vec::new();
    for row in &ROWS {
        for rtt in rtts(quick) {
            let path = path(row, rtt);
            let mut workload = MatrixWorkload::Bulk.on(&path, false);
            workload.kind = WorkloadKind::Bulk { bytes };
            for tuner in TUNERS {
                specs.push(RunSpec::new(path.clone(), workload.clone(), tuner));
            }
        }
    }
    specs
}

/// One strategy on one row, over the RTTs.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Mean goodput, bit/s.
    pub goodput_bps: f64,
    /// The lowest goodput over `unlimited`'s at the same RTT, and that RTT.
    pub worst_vs_unlimited: (f64, u64),
    /// Mean peak stream window over the BDP at the minimum RTT.
    pub window_bdp: f64,
    /// Mean seconds the link sat idle for want of credit.
    pub fc_idle_s: f64,
    /// Runs that did not complete.
    pub incomplete: usize,
    /// Mean goodput of the other connection while ours ran, bit/s (0
    /// without cross traffic).
    pub cross_bps: f64,
}

/// A row's cells, one per [`TUNERS`] entry.
#[derive(Clone, Debug, PartialEq)]
pub struct RowResult {
    /// The row.
    pub row: Row,
    /// Cells in [`TUNERS`] order.
    pub cells: Vec<Cell>,
}

/// Reads back the runs of [`specs`] (same `quick`).
///
/// # Panics
/// If `reports` is not one report per spec of [`specs`]`(quick)`.
#[must_use]
pub fn summarise(reports: &[RunReport], quick: bool) -> Vec<RowResult> {
    let rtts = rtts(quick);
    let per_row = rtts.len() * TUNERS.len();
    assert_eq!(
        reports.len(),
        ROWS.len() * per_row,
        "delay::summarise takes delay::specs"
    );
    ROWS.iter()
        .enumerate()
        .map(|(r, row)| {
            let runs = &reports[r * per_row..(r + 1) * per_row];
            let at = |rtt: usize, t: usize| &runs[rtt * TUNERS.len() + t];
            let cells = (0..TUNERS.len())
                .map(|t| {
                    let n = rtts.len() as f64;
                    let mean = |f: &dyn Fn(&RunReport) -> f64| {
                        (0..rtts.len()).map(|i| f(at(i, t))).sum::<f64>() / n
                    };
                    let worst_vs_unlimited = (0..rtts.len())
                        .map(|i| (at(i, t).goodput_bps / at(i, 1).goodput_bps, rtts[i]))
                        .fold((f64::INFINITY, 0), |a, b| if b.0 < a.0 { b } else { a });
                    Cell {
                        goodput_bps: mean(&|r| r.goodput_bps),
                        worst_vs_unlimited,
                        window_bdp: mean(&|r| {
                            r.peak_stream_window_bytes as f64 / r.bdp_bytes.max(1) as f64
                        }),
                        fc_idle_s: mean(&|r| r.fc_link_idle_s),
                        incomplete: (0..rtts.len()).filter(|&i| !at(i, t).completed).count(),
                        cross_bps: mean(&|r| r.cross_goodput_bps),
                    }
                })
                .collect();
            RowResult { row: *row, cells }
        })
        .collect()
}

/// The table: a row per path, a column per strategy.
#[must_use]
pub fn render(results: &[RowResult], quick: bool) -> String {
    let rtts = rtts(quick);
    let names: Vec<String> = TUNERS.iter().map(|t| format!("`{}`", t.name())).collect();
    let mut columns = vec![("row", Align::Left)];
    columns.extend(names.iter().map(|n| (n.as_str(), Align::Right)));
    columns.push(("`default` / `unlimited`, mean (worst RTT)", Align::Right));
    let mut table = Table::new(&columns);
    for r in results {
        let mut line = vec![r.row.name.to_owned()];
        for c in &r.cells {
            let window = if c.window_bdp > 1e6 {
                "∞".to_owned()
            } else {
                format!("{:.2}", c.window_bdp)
            };
            let incomplete = if c.incomplete > 0 {
                format!(" ({} incomplete)", c.incomplete)
            } else {
                String::new()
            };
            let other = if r.row.cross.is_some() {
                format!(" · other {:.1}", c.cross_bps / 1e6)
            } else {
                String::new()
            };
            line.push(format!(
                "{:.1} · {window} · {:.2} s{other}{incomplete}",
                c.goodput_bps / 1e6,
                c.fc_idle_s
            ));
        }
        let (ours, bound) = (&r.cells[0], &r.cells[1]);
        let (worst, at) = ours.worst_vs_unlimited;
        line.push(format!(
            "{:.3} ({worst:.3} at {at} ms)",
            ours.goodput_bps / bound.goodput_bps
        ));
        table.push(line);
    }
    let mut out = format!(
        "One stream of {} per run, {} RTTs ({}), seed 1. Each cell: mean goodput, \
         Mbit/s · mean peak stream window, BDPs of the minimum RTT (∞: unlimited) · \
         mean seconds the link sat idle because the sender had data and congestion \
         window but no flow-control credit; on the cross-traffic rows, · the other \
         connection's mean goodput while ours ran, Mbit/s.\n\n",
        if quick { "256 MiB" } else { "1 GiB" },
        rtts.len(),
        if quick {
            "20, 60, 100 ms".to_owned()
        } else {
            "20–100 ms every 4 ms".to_owned()
        },
    );
    out += &table.markdown();
    out += "\nRows:\n";
    for r in results {
        out += &format!("- {}: {}\n", r.row.name, r.row.what);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_runs_every_strategy_at_every_rtt_with_order_kept() {
        let specs = specs(true);
        assert_eq!(specs.len(), ROWS.len() * 3 * TUNERS.len());
        let jitter: Vec<_> = specs.iter().filter(|s| !s.path.jitter.is_zero()).collect();
        assert_eq!(jitter.len(), 2 * 3 * TUNERS.len());
        assert!(jitter.iter().all(|s| !s.path.jitter_reorders));
        // The shallow queue is a tenth of the BDP at its RTT.
        let shallow = specs
            .iter()
            .find(|s| s.path.name == "queue 0.1 BDP, 60 ms")
            .expect("row");
        assert_eq!(shallow.path.queue_bytes, shallow.path.bdp_bytes() / 10);
        // Cross traffic: the four rows, each in both orders and depths.
        let cross: Vec<_> = specs.iter().filter_map(|s| s.path.cross).collect();
        assert_eq!(cross.len(), 4 * 3 * TUNERS.len());
        assert!(cross.contains(&CrossTraffic::First { lead: CROSS_LEAD }));
        assert!(cross.contains(&CrossTraffic::Second { after: CROSS_AFTER }));
        assert_eq!(rtts(false).len(), 21);
        assert_eq!(rtts(false).last(), Some(&100));
    }

    #[test]
    fn the_summary_takes_the_worst_rtt_against_unlimited() {
        let specs = specs(true);
        let reports: Vec<RunReport> = specs
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut r = s.failed_report(String::new());
                // Unlimited (column 1) at 100 Mbit/s; ours at 90 at the
                // second RTT of each row, 100 otherwise.
                let (rtt, tuner) = ((i / TUNERS.len()) % 3, i % TUNERS.len());
                r.goodput_bps = if tuner == 0 && rtt == 1 { 90e6 } else { 100e6 };
                r.completed = true;
                r
            })
            .collect();
        let results = summarise(&reports, true);
        let ours = &results[0].cells[0];
        assert_eq!(ours.worst_vs_unlimited, (0.9, 60));
        assert!((ours.goodput_bps - 290e6 / 3.0).abs() < 1.0);
        let text = render(&results, true);
        assert!(text.contains("0.967 (0.900 at 60 ms)"), "{text}");
        assert!(text.contains("| bufferbloat |"));
    }
}
