//! What a comparison found: per scenario (workload) and path, the fastest
//! strategy (highest [`rank_goodput`] among those that delivered
//! everything; `unlimited` is the bound, not a contender), its [`Memory`],
//! whether its window cap held it back ([`RunReport::cap_limited`]) and how
//! far it is from `unlimited`, and how `default` did against it (within
//! [`TIE`] is a tie).

use super::rows::distinct;
use crate::{
    format,
    report::RunReport,
    table::{Align, Table},
    workloads::MatrixWorkload,
};

/// Goodputs within this share of the fastest are a tie (1 %).
pub const TIE: f64 = 0.01;

/// The strategy the findings speak for.
pub const OURS: &str = "default";

/// What a scenario's memory column measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memory {
    /// Peak stream window / BDP (bulk-like workloads).
    Window,
    /// Peak receive buffer, bytes (a paced reader; stalled readers).
    Buffer,
    /// Peak credit over all streams / BDP (many streams).
    Credit,
}

impl Memory {
    /// The memory a workload's runs are judged by.
    #[must_use]
    pub fn of(runs: &[&RunReport]) -> Self {
        let stalled = runs.iter().all(|r| r.stall.is_some());
        if stalled || runs.iter().all(|r| r.reader_rate_bps.is_some()) {
            Self::Buffer
        } else if runs
            .iter()
            .any(|r| MatrixWorkload::find(&r.workload).is_some_and(MatrixWorkload::is_many_streams))
        {
            Self::Credit
        } else {
            Self::Window
        }
    }

    /// A name for table headers.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Window => "peak stream window / BDP",
            Self::Buffer => "peak receive buffer",
            Self::Credit => "peak credit over all streams / BDP",
        }
    }

    /// What the memory column holds, for a table's legend.
    #[must_use]
    pub const fn definition(self) -> &'static str {
        match self {
            Self::Window => "peak stream receive window / BDP (bulk-like scenarios)",
            Self::Buffer => {
                "peak receive buffer (received, not yet read), bytes (slow or stalled \
                 readers: what waiting data costs)"
            }
            Self::Credit => "peak credit outstanding summed over all streams / BDP (many streams)",
        }
    }

    /// The memory of run `r` as a number (larger = more memory).
    #[must_use]
    #[allow(clippy::cast_precision_loss)]
    pub fn value(self, r: &RunReport) -> f64 {
        match self {
            Self::Window => r.window_bdp(),
            Self::Buffer => r.peak_recv_buffer_bytes as f64,
            Self::Credit => r.credit_bdp(),
        }
    }

    /// The memory of run `r` as shown: `1.36 × BDP`, `7.63 MiB`, `∞`.
    #[must_use]
    pub fn show(self, r: &RunReport) -> String {
        match self {
            Self::Window | Self::Credit => {
                let v = self.value(r);
                if v.is_finite() {
                    format!("{} × BDP", format::ratio(v))
                } else {
                    "∞".to_owned()
                }
            }
            Self::Buffer => format::window(r.peak_recv_buffer_bytes),
        }
    }
}

/// The goodput a scenario ranks by: the stall goodput with stalled
/// readers, else the goodput; `None` for a run that did not deliver.
#[must_use]
pub fn rank_goodput(r: &RunReport) -> Option<f64> {
    if !r.ok() {
        return None;
    }
    if r.stall.is_some() {
        r.stall_goodput_bps
    } else {
        Some(r.goodput_bps)
    }
}

/// One path of one scenario.
#[derive(Clone, Debug)]
pub struct PathFinding<'a> {
    /// The path.
    pub profile: &'a str,
    /// The fastest strategy's run (not `unlimited`).
    pub best: &'a RunReport,
    /// Ours, if it ran.
    pub ours: Option<&'a RunReport>,
    /// `unlimited`, if it ran (the bound).
    pub bound: Option<&'a RunReport>,
}

impl PathFinding<'_> {
    /// Ours against the fastest: goodput share minus one (`-0.02` = 2 %
    /// slower); 0 when ours is the fastest; `None` when ours did not
    /// deliver or did not run.
    #[must_use]
    pub fn ours_behind(&self) -> Option<f64> {
        let ours = rank_goodput(self.ours?)?;
        let best = rank_goodput(self.best)?;
        (best > 0.0).then(|| ours / best - 1.0)
    }

    /// The fastest's goodput over `unlimited`'s (`0.74` = 26 % slower than
    /// flow control switched off); `None` without a delivered `unlimited`.
    #[must_use]
    pub fn vs_bound(&self) -> Option<f64> {
        let best = rank_goodput(self.best)?;
        let bound = rank_goodput(self.bound?)?;
        (bound > 0.0).then(|| best / bound)
    }
}

/// The fastest strategy as a findings cell: `` `default` ``, or with the
/// cap that held it back, `` `default` (held at its 32 MiB cap) ``.
#[must_use]
pub fn fastest_cell(best: &RunReport) -> String {
    if best.cap_limited() {
        format!(
            "`{}` (held at its {} cap)",
            best.tuner,
            format::window(best.max_stream_window_bytes)
        )
    } else {
        format!("`{}`", best.tuner)
    }
}

/// The findings of one scenario (workload) over its paths.
#[derive(Clone, Debug)]
pub struct ScenarioFindings<'a> {
    /// The workload.
    pub workload: &'a str,
    /// What its memory column measures.
    pub memory: Memory,
    /// One per path, in report order.
    pub paths: Vec<PathFinding<'a>>,
}

/// The findings of every scenario in `reports`, in report order.
#[must_use]
pub fn findings(reports: &[RunReport]) -> Vec<ScenarioFindings<'_>> {
    let mut out = Vec::new();
    for workload in distinct(reports, |r| &r.workload) {
        let runs: Vec<&RunReport> = reports.iter().filter(|r| r.workload == workload).collect();
        let memory = Memory::of(&runs);
        let mut paths = Vec::new();
        for profile in distinct(reports, |r| &r.profile) {
            let here: Vec<&RunReport> = runs
                .iter()
                .copied()
                .filter(|r| r.profile == profile)
                .collect();
            // The first of equals in table order, ours before any.
            let best = here
                .iter()
                .copied()
                .filter(|r| r.tuner != "unlimited")
                .filter_map(|r| rank_goodput(r).map(|g| (g, r)))
                .reduce(|best, next| {
                    let better = next.0 > best.0 || (next.0 == best.0 && next.1.tuner == OURS);
                    if better { next } else { best }
                })
                .map(|(_, r)| r);
            if let Some(best) = best {
                paths.push(PathFinding {
                    profile,
                    best,
                    ours: here.iter().copied().find(|r| r.tuner == OURS),
                    bound: here.iter().copied().find(|r| r.tuner == "unlimited"),
                });
            }
        }
        if !paths.is_empty() {
            out.push(ScenarioFindings {
                workload,
                memory,
                paths,
            });
        }
    }
    out
}

/// `1.23×` / `∞` for a memory ratio.
fn times(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1}×")
    } else {
        "∞×".to_owned()
    }
}

/// `3.0× less memory`, or `4 % less memory` under a 10 % difference.
fn less_or_more(ratio: f64, word: &str) -> String {
    if ratio >= 1.1 {
        format!("{} {word} memory", times(ratio))
    } else {
        format!("{:.0} % {word} memory", (ratio - 1.0) * 100.0)
    }
}

/// How ours did on one path, in words: `fastest`, `tie (−0.4 %)`, `−2.2 %,
/// 3.0× less memory`, `did not finish`.
#[must_use]
pub fn verdict(f: &PathFinding<'_>, memory: Memory) -> String {
    let Some(ours) = f.ours else {
        return "did not run".to_owned();
    };
    let Some(behind) = f.ours_behind() else {
        return "did not finish".to_owned();
    };
    if std::ptr::eq(ours, f.best) {
        return "fastest".to_owned();
    }
    let m_ours = memory.value(ours);
    let m_best = memory.value(f.best);
    let mem = if m_ours <= 0.0 || m_best <= 0.0 || (m_ours - m_best).abs() <= 0.01 * m_best {
        "same memory".to_owned()
    } else if m_ours < m_best {
        less_or_more(m_best / m_ours, "less")
    } else {
        less_or_more(m_ours / m_best, "more")
    };
    if behind >= -TIE {
        format!("tie ({:+.1} %), {mem}", behind * 100.0)
    } else {
        format!("{:+.1} %, {mem}", behind * 100.0)
    }
}

/// One sentence on ours over a scenario's paths: `default is fastest or
/// within 1 % on 9 of 13 paths; behind on 4 (0.6–2.2 %), with less memory
/// on each of them.`
#[must_use]
pub fn summary_sentence(s: &ScenarioFindings<'_>) -> String {
    let judged: Vec<(&PathFinding<'_>, f64)> = s
        .paths
        .iter()
        .filter_map(|p| p.ours_behind().map(|b| (p, b)))
        .collect();
    if judged.is_empty() {
        return format!("`{OURS}` did not run or did not finish here.");
    }
    let failed = s.paths.iter().filter(|p| p.ours.is_some()).count() - judged.len();
    let behind: Vec<&(&PathFinding<'_>, f64)> = judged.iter().filter(|(_, b)| *b < -TIE).collect();
    let n = judged.len();
    let plural = |k: usize| if k == 1 { "" } else { "s" };
    let mut out = format!(
        "`{OURS}` is fastest or within 1 % on {} of {n} path{}",
        n - behind.len(),
        plural(n)
    );
    if !behind.is_empty() {
        let worst = behind.iter().map(|(_, b)| -b).fold(0.0, f64::max) * 100.0;
        let least = behind.iter().map(|(_, b)| -b).fold(f64::INFINITY, f64::min) * 100.0;
        let less = behind
            .iter()
            .filter(|(p, _)| {
                p.ours
                    .is_some_and(|o| s.memory.value(o) < s.memory.value(p.best))
            })
            .count();
        let range = if (worst - least).abs() < 0.05 {
            format!("{worst:.1} %")
        } else {
            format!("{least:.1}–{worst:.1} %")
        };
        out.push_str(&format!(
            "; behind on {} ({}: {range}), with less memory than the fastest on {} of them",
            behind.len(),
            behind
                .iter()
                .map(|(p, _)| p.profile)
                .collect::<Vec<_>>()
                .join(", "),
            less,
        ));
    }
    if failed > 0 {
        out.push_str(&format!("; did not finish on {failed}"));
    }
    out.push('.');
    for p in s.paths.iter().filter(|p| p.best.cap_limited()) {
        out.push_str(&format!(
            " On {}, the fastest, `{}`, is held by its {} stream-window cap (the link sat \
             idle {} for lack of credit){}.",
            p.profile,
            p.best.tuner,
            format::window(p.best.max_stream_window_bytes),
            format::seconds(std::time::Duration::from_secs_f64(
                p.best.fc_link_idle_s.max(0.0)
            )),
            p.vs_bound().map_or_else(String::new, |v| format!(
                ": {} × the goodput of `unlimited`",
                format::ratio(v)
            )),
        ));
    }
    out
}

/// The findings table of one scenario: per path the fastest strategy with
/// its goodput and memory, ours, and the verdict.
#[must_use]
pub fn findings_table(s: &ScenarioFindings<'_>) -> Table {
    let goodput_name = if s.paths.iter().any(|p| p.best.stall.is_some()) {
        "stall goodput"
    } else {
        "goodput"
    };
    let mut t = Table::new(&[
        ("path", Align::Left),
        ("fastest", Align::Left),
        (goodput_name, Align::Right),
        ("memory", Align::Right),
        (&format!("`{OURS}`"), Align::Right),
        (&format!("`{OURS}` memory"), Align::Right),
        (&format!("`{OURS}` vs fastest"), Align::Left),
        ("`unlimited` (bound)", Align::Right),
        ("fastest / `unlimited`", Align::Right),
    ]);
    let rate = |r: &RunReport| rank_goodput(r).map_or_else(|| "-".to_owned(), format::rate);
    for p in &s.paths {
        t.push(vec![
            p.profile.to_owned(),
            fastest_cell(p.best),
            rate(p.best),
            s.memory.show(p.best),
            p.ours.map_or_else(String::new, rate),
            p.ours.map_or_else(String::new, |o| s.memory.show(o)),
            verdict(p, s.memory),
            p.bound.map_or_else(String::new, rate),
            p.vs_bound().map_or_else(String::new, format::ratio),
        ]);
    }
    t.without_empty_columns()
}

/// The terms of a scenario's findings table ([`findings_table`]), for its
/// legend.
#[must_use]
pub fn findings_legend(s: &ScenarioFindings<'_>) -> Vec<(String, String)> {
    let ours = format!("`{OURS}`");
    let own: Vec<(String, String)> = [
        (
            "fastest".to_owned(),
            "the strategy with the highest goodput among those that delivered everything \
             (`unlimited` excluded); \"held at its N cap\": its peak stream window reached \
             its cap and the link sat idle for lack of credit for over 1 % of the run"
                .to_owned(),
        ),
        ("memory".to_owned(), s.memory.definition().to_owned()),
        (
            "goodput".to_owned(),
            "the fastest's goodput: bytes read × 8 / time, bit/s".to_owned(),
        ),
        (
            "stall goodput".to_owned(),
            "the fastest's goodput of the streams that keep reading during the stall, bit/s"
                .to_owned(),
        ),
        (ours.clone(), format!("{ours}'s goodput (ours), bit/s")),
        (
            format!("{ours} memory"),
            format!("{ours}'s memory, as the memory column"),
        ),
        (
            format!("{ours} vs fastest"),
            format!(
                "{ours}'s goodput / the fastest's − 1 (within 1 % is a tie), and its memory \
                 against the fastest's"
            ),
        ),
        (
            "`unlimited` (bound)".to_owned(),
            "goodput with flow control switched off (windows 2^62 − 1), bit/s: the bound, \
             not a contender"
                .to_owned(),
        ),
        (
            "fastest / `unlimited`".to_owned(),
            "the fastest's goodput / `unlimited`'s (below 1.00: what flow control cost it)"
                .to_owned(),
        ),
    ]
    .into();
    let own: Vec<(&str, String)> = own.iter().map(|(t, d)| (t.as_str(), d.clone())).collect();
    crate::legend::of(&findings_table(s), &own)
}

/// The findings in a few lines for a terminal: one per scenario, the
/// summary sentence of the report's Findings section.
#[must_use]
pub fn findings_summary(reports: &[RunReport]) -> String {
    let mut out = String::from("Findings (report.md has the tables):\n");
    for s in findings(reports) {
        out.push_str(&format!("- {}: {}\n", s.workload, summary_sentence(&s)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::fixtures::report;

    fn run(profile: &str, tuner: &str, goodput: f64, window: u64) -> RunReport {
        let mut r = report(profile, "bulk", tuner, 1.0, true);
        r.goodput_bps = goodput;
        r.peak_stream_window_bytes = window;
        r
    }

    #[test]
    fn who_wins_by_how_much_at_what_memory() {
        let bdp = 6_250_000;
        let reports = vec![
            run("gbit-50ms", "default", 9.0e8, bdp),
            run("gbit-50ms", "neqo", 9.5e8, 3 * bdp),
            run("gbit-50ms", "unlimited", 9.9e8, 1 << 62),
            run("lossy", "default", 4.0e6, bdp),
            run("lossy", "neqo", 4.02e6, 2 * bdp),
        ];
        let f = findings(&reports);
        assert_eq!(f.len(), 1);
        let s = &f[0];
        assert_eq!(s.memory, Memory::Window);
        // unlimited is the bound, not the winner.
        assert_eq!(s.paths[0].best.tuner, "neqo");
        assert_eq!(verdict(&s.paths[0], s.memory), "-5.3 %, 3.0× less memory");
        assert_eq!(
            verdict(&s.paths[1], s.memory),
            "tie (-0.5 %), 2.0× less memory"
        );
        assert_eq!(
            summary_sentence(s),
            "`default` is fastest or within 1 % on 1 of 2 paths; behind on 1 (gbit-50ms: 5.3 %), \
             with less memory than the fastest on 1 of them."
        );
        let md = findings_table(s).markdown();
        assert!(md.contains("| gbit-50ms | `neqo` | 950 Mbit/s | 3.00 × BDP | 900 Mbit/s | 1.00 × BDP | -5.3 %, 3.0× less memory | 990 Mbit/s | 0.96 |"), "{md}");
        // lossy has no unlimited run: its cell is empty, the column stays.
        assert!(md.contains("| lossy | `neqo` |"), "{md}");

        // Equal goodputs: ours is the fastest; among peers, the first.
        let reports = vec![
            run("gbit-lan", "neqo", 9.5e8, bdp),
            run("gbit-lan", "double", 9.5e8, bdp),
            run("gbit-lan", "default", 9.5e8, bdp),
            run("satellite", "neqo", 4.7e5, bdp),
            run("satellite", "double", 4.7e5, bdp),
        ];
        let f = findings(&reports);
        assert_eq!(f[0].paths[0].best.tuner, "default");
        assert_eq!(verdict(&f[0].paths[0], Memory::Window), "fastest");
        assert_eq!(f[0].paths[1].best.tuner, "neqo");
    }

    /// A winner whose window cap held it back says so, with how far it
    /// is from `unlimited`; one that reached its cap without losing link
    /// time does not.
    #[test]
    fn a_capped_winner_says_so_and_how_far_from_unlimited() {
        let cap = 32 << 20;
        let mut ours = run("long-fat", "default", 1.0e9, cap);
        ours.max_stream_window_bytes = cap;
        ours.duration_s = 2.1;
        ours.fc_link_idle_s = 0.75;
        let mut neqo = run("long-fat", "neqo", 5.5e8, 10 << 20);
        neqo.max_stream_window_bytes = 10 << 20;
        let reports = vec![ours, neqo, run("long-fat", "unlimited", 1.35e9, 1 << 62)];
        let f = findings(&reports);
        let s = &f[0];
        assert!(s.paths[0].best.cap_limited());
        assert_eq!(verdict(&s.paths[0], s.memory), "fastest");
        assert_eq!(
            summary_sentence(s),
            "`default` is fastest or within 1 % on 1 of 1 path. On long-fat, the fastest, \
             `default`, is held by its 32 MiB stream-window cap (the link sat idle 0.750 s \
             for lack of credit): 0.74 × the goodput of `unlimited`."
        );
        let md = findings_table(s).markdown();
        assert!(
            md.contains("| long-fat | `default` (held at its 32 MiB cap) | 1 Gbit/s |"),
            "{md}"
        );
        assert!(md.ends_with("| 1.35 Gbit/s | 0.74 |\n"), "{md}");
        let legend = findings_legend(s);
        assert!(legend.iter().all(|(_, d)| d != "?"), "{legend:?}");

        // At the cap, but the link never idled for credit: not held back.
        let mut r = reports[0].clone();
        r.fc_link_idle_s = 0.0;
        assert!(!r.cap_limited());
        // unlimited's windows are its cap, never a limit.
        let mut u = reports[2].clone();
        u.max_stream_window_bytes = 1 << 62;
        u.fc_link_idle_s = 1.0;
        assert!(!u.cap_limited());
    }
}
