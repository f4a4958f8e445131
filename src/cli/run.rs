//! `fc-lab run`: one scenario, its summary (or JSON), and the qlog traces
//! and plot it asks for.

use std::time::Duration;

use super::{
    args::RunArgs,
    output::{json_line, print},
};
use crate::{
    error::LabError, execute::execute, format, report::RunReport, spec::RunSpec, tuners::TunerSpec,
};

pub(super) fn cmd_run(a: &RunArgs) -> Result<i32, LabError> {
    let spec = a.spec()?;
    if spec.tuner.base == TunerSpec::Unlimited && a.transport.initial_window.is_some() {
        return Err(LabError::flag(
            "--initial-window",
            "not accepted with --tuner unlimited (its windows are 2^62 - 1)",
        ));
    }
    let outcome = execute(&spec)?;
    let mut written = Vec::new();
    if let Some(dir) = &a.qlog {
        let files =
            crate::qlog::write_traces(dir, &spec.file_stem(), &outcome.result, &outcome.scenario)
                .map_err(|source| LabError::Io {
                path: dir.clone(),
                source,
            })?;
        written.extend(files);
    }
    if let Some(file) = &a.plot {
        let title = format!(
            "{} / {} / {}",
            spec.path.name,
            spec.workload.name,
            spec.tuner.name()
        );
        crate::plot::run_plot(
            file,
            &title,
            &outcome.result.series,
            spec.path.rate_bps,
            spec.path.bdp_bytes(),
        )?;
        written.push(file.clone());
    }
    let report = &outcome.report;
    if a.json {
        print(&json_line(report)?);
    } else {
        print(&run_summary(&spec, report));
    }
    for f in &written {
        eprintln!("wrote {}", f.display());
    }
    if spec.verify && report.verify_failures > 0 {
        eprintln!(
            "error: --verify: {} payload bytes differed from what was sent",
            report.verify_failures
        );
        return Ok(1);
    }
    if let Some(e) = &report.error {
        eprintln!("error: the connection failed: {e}");
        return Ok(1);
    }
    if !report.completed {
        eprintln!(
            "error: the run stopped with {} of {} delivered (time limit or stall)",
            format::bytes(report.bytes),
            format::bytes(report.expected_bytes)
        );
        return Ok(1);
    }
    Ok(0)
}

/// The human summary of one run: aligned `label  value` lines.
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn run_summary(spec: &RunSpec, r: &RunReport) -> String {
    let secs = |s: f64| format::seconds(Duration::from_secs_f64(s.max(0.0)));
    let ms = |s: f64| format::duration(Duration::from_secs_f64(s.max(0.0)));
    let mut lines: Vec<(&str, String)> = vec![
        (
            "path",
            format!("{}: {}", spec.path.name, spec.path.summary()),
        ),
        ("workload", spec.workload.summary()),
        (
            "tuner",
            format!(
                "{} (update at {} of the window, initial stream window {}, {})",
                r.tuner,
                r.update_fraction,
                format::bytes(r.initial_stream_window_bytes),
                r.cc
            ),
        ),
    ];
    let status = match (&r.error, r.completed) {
        (Some(e), _) => format!("connection error {e}"),
        (None, true) => "completed".to_owned(),
        (None, false) => "INCOMPLETE (time limit)".to_owned(),
    };
    lines.push((
        "result",
        format!(
            "{status}: {} of {} in {} (simulated)",
            format::bytes(r.bytes),
            format::bytes(r.expected_bytes),
            secs(r.duration_s)
        ),
    ));
    lines.push((
        "goodput",
        format!(
            "{} ({:.1} % of the link)",
            format::rate(r.goodput_bps),
            r.link_share() * 100.0
        ),
    ));
    lines.push((
        "peak window",
        format!(
            "stream {} ({} x BDP), connection {}",
            format::bytes(r.peak_stream_window_bytes),
            format::ratio(r.window_bdp()),
            format::bytes(r.peak_conn_window_bytes)
        ),
    ));
    lines.push((
        "peak memory",
        format!(
            "receive buffer {} ({} x BDP), credit outstanding {} ({} x BDP)",
            format::bytes(r.peak_recv_buffer_bytes),
            format::ratio(r.buffer_bdp()),
            format::bytes(r.peak_total_credit_bytes),
            format::ratio(r.credit_bdp())
        ),
    ));
    lines.push((
        "budget",
        if r.memory_budget {
            format!(
                "peak {} ({} x BDP), {} violations",
                format::bytes(r.peak_budget_bytes),
                format::ratio(r.budget_bdp()),
                r.budget_violations
            )
        } else {
            "none".to_owned()
        },
    ));
    if let Some(stall) = &spec.workload.stall {
        lines.push((
            "stall",
            format!(
                "{}: the other streams read at {}",
                crate::stall::describe(stall),
                r.stall_goodput_bps
                    .map_or_else(|| "-".to_owned(), format::rate)
            ),
        ));
    }
    lines.push((
        "fc blocked",
        format!(
            "{} ({} window updates sent, {} BLOCKED frames sent)",
            secs(r.fc_blocked_s),
            r.window_updates_sent,
            r.blocked_frames_sent
        ),
    ));
    lines.push((
        "congestion",
        format!(
            "peak cwnd {}, {} drops, {} packets lost, {} retransmitted",
            format::bytes(r.peak_cwnd_bytes),
            r.drops,
            r.packets_lost,
            format::bytes(r.retransmitted_bytes)
        ),
    ));
    lines.push((
        "rtt",
        format!(
            "min {}, smoothed {} at the end",
            ms(r.min_rtt_s),
            ms(r.final_srtt_s)
        ),
    ));
    if r.streams > 1 {
        let first = r
            .stream_completion_s
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        let last = r.stream_completion_s.iter().copied().fold(0.0, f64::max);
        lines.push((
            "streams",
            format!(
                "{} streams done between {} and {}, fairness {:.3}",
                r.streams,
                secs(if first.is_finite() { first } else { 0.0 }),
                secs(last),
                r.fairness_index
            ),
        ));
    }
    if r.verify_failures > 0 || spec.verify {
        lines.push(("verify", format!("{} bytes differed", r.verify_failures)));
    }
    let width = lines.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
    lines
        .into_iter()
        .map(|(l, v)| format!("{l:<width$}  {v}\n"))
        .collect()
}
