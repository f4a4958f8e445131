//! `fc-lab run`: one scenario, its summary (or JSON), and the qlog traces
//! and plot it asks for; `--max-wall` stops it and reports what it read.

use std::{
    ops::ControlFlow,
    time::{Duration, Instant},
};

use neqo_fc_sim::progress::Progress;

use super::{
    args::RunArgs,
    output::{json_line, print},
    progress::bytes_bar,
};
use crate::{
    cost::{self, Cost, WARN_WALL},
    error::LabError,
    execute::execute_observed,
    format,
    outputs::{writable_dir, writable_file},
    report::RunReport,
    spec::RunSpec,
    tuners::TunerSpec,
};

pub(super) fn cmd_run(a: &RunArgs) -> Result<i32, LabError> {
    let spec = a.spec()?;
    if let Some(flag) = a.transport.window_flag_given()
        && spec.tuner.base == TunerSpec::Unlimited
    {
        return Err(LabError::flag(
            flag,
            "not accepted with --tuner unlimited (its windows are 2^62 - 1)",
        ));
    }
    // Everything that can be refused is refused before the run.
    let cost = cost::estimate(&spec);
    if a.max_wall.is_none()
        && let Some(refusal) = hopeless(&spec, &cost)
    {
        return Err(LabError::flag(a.workload_flag(), refusal));
    }
    if let Some(dir) = &a.qlog {
        writable_dir("--qlog", dir)?;
    }
    if let Some(file) = &a.plot {
        writable_file("--plot", file)?;
    }
    if let Some(warning) = cost_warning(&spec, &cost, a.max_wall) {
        eprintln!("{warning}");
    }

    let bar = bytes_bar(spec.workload.total_bytes());
    let started = Instant::now();
    let max_wall = a.max_wall;
    let mut watch = |p: &Progress| {
        bar.set_position(p.delivered);
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        #[allow(clippy::cast_precision_loss)]
        bar.set_message(format!(
            "simulated {} · {:.1} M events/s",
            format::duration(p.now),
            p.events as f64 / secs / 1e6
        ));
        match max_wall {
            Some(limit) if started.elapsed() >= limit => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        }
    };
    let outcome = execute_observed(&spec, &mut watch);
    bar.finish_and_clear();
    let outcome = outcome?;
    let report = &outcome.report;

    // The result first: a file that fails to write must not lose it.
    if a.json {
        print(&json_line(report)?);
    } else {
        print(&run_summary(&spec, report));
    }
    if let Some(dir) = &a.qlog {
        let files =
            crate::qlog::write_traces(dir, &spec.file_stem(), &outcome.result, &outcome.scenario)
                .map_err(|source| LabError::Output {
                flag: "--qlog".to_owned(),
                path: dir.clone(),
                message: source.to_string(),
            })?;
        for f in &files {
            eprintln!("wrote {}", f.display());
        }
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
        )
        .map_err(|e| e.for_output("--plot"))?;
        eprintln!("wrote {}", file.display());
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
        eprintln!("error: {}", incomplete(&spec, report, started.elapsed()));
        return Ok(1);
    }
    Ok(0)
}

/// The warning printed before a run whose estimate is far beyond the usual
/// (more than [`WARN_WALL`] of wall time), or that cannot finish within its
/// simulated time limit; `None` for an ordinary run.
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn cost_warning(spec: &RunSpec, cost: &Cost, max_wall: Option<Duration>) -> Option<String> {
    let mut parts = Vec::new();
    if cost.wall > WARN_WALL {
        let bound = match max_wall {
            Some(d) => format!("--max-wall {} stops it then", format::duration(d)),
            None => "--max-wall 60s bounds it".to_owned(),
        };
        parts.push(format!(
            "{} over {} is about {:.1e} simulator events, roughly {} of wall time here ({bound})",
            format::bytes(spec.workload.total_bytes()),
            format::rate(spec.path.rate_bps as f64),
            cost.events,
            long_duration(cost.wall),
        ));
    }
    if cost.hits_time_limit {
        parts.push(format!(
            "it cannot finish within the simulated --time-limit {}: expect about {} of {} \
             (a longer --time-limit, a faster --rate or a smaller --size)",
            long_duration(cost::time_limit(spec)),
            format::bytes(cost.bytes),
            format::bytes(spec.workload.total_bytes())
        ));
    }
    (!parts.is_empty()).then(|| format!("warning: {}", parts.join("; ")))
}

/// Why a run is refused unless `--max-wall` bounds it: it cannot finish
/// within its simulated time limit, and getting that far takes more than
/// [`WARN_WALL`] of wall time (hours for `--size 1EiB`), so it would run
/// long, without progress off a terminal, for a result that is incomplete
/// anyway. `None` for a run that can finish or stops soon.
#[must_use]
pub fn hopeless(spec: &RunSpec, cost: &Cost) -> Option<String> {
    (cost.hits_time_limit && cost.wall > WARN_WALL).then(|| {
        format!(
            "{} cannot be read within the simulated --time-limit {} (about {} would be), \
             and that much takes roughly {} of wall time: give a smaller size, or \
             --max-wall (e.g. 60s) to run it that long anyway",
            format::bytes(spec.workload.total_bytes()),
            long_duration(cost::time_limit(spec)),
            format::bytes(cost.bytes),
            long_duration(cost.wall),
        )
    })
}

/// `45 s`, `12 min`, `3.4 h`, `9 days`: a wall or simulated time a person
/// plans with.
#[must_use]
pub fn long_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    let trim = |v: f64| {
        let t = format!("{v:.1}");
        t.strip_suffix(".0").map_or(t.clone(), str::to_owned)
    };
    if s < 90.0 {
        format::duration(d)
    } else if s < 3600.0 {
        format!("{:.0} min", s / 60.0)
    } else if s < 48.0 * 3600.0 {
        format!("{} h", trim(s / 3600.0))
    } else {
        format!("{:.0} days", s / 86_400.0)
    }
}

/// Why a run stopped short, in words: `stopped by --max-wall after 60 s
/// with 12 GiB of 30 GiB read (4.1 s simulated)`.
fn incomplete(spec: &RunSpec, r: &RunReport, wall: Duration) -> String {
    let got = format!(
        "{} of {} read ({} simulated)",
        format::bytes(r.bytes),
        format::bytes(r.expected_bytes),
        format::duration(Duration::from_secs_f64(r.duration_s.max(0.0)))
    );
    match r.end.as_str() {
        "stopped" => format!(
            "--max-wall: stopped after {} of wall time with {got}",
            format::duration(Duration::from_secs(wall.as_secs()))
        ),
        "time_limit" => format!(
            "--time-limit: the simulated time limit ({}) came first, with {got}",
            long_duration(cost::time_limit(spec))
        ),
        _ => format!("the run stalled with {got}: nothing was in flight and no timer was armed"),
    }
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
                "{} (update at {} of the window, initial stream window {}, connection {}, {})",
                r.tuner,
                r.update_fraction,
                format::window(r.initial_stream_window_bytes),
                format::window(r.initial_conn_window_bytes),
                r.cc
            ),
        ),
    ];
    let status = match (&r.error, r.completed, r.end.as_str()) {
        (Some(e), _, _) => format!("connection error {e}"),
        (None, true, _) => "completed".to_owned(),
        (None, false, "stopped") => "INCOMPLETE (stopped by --max-wall)".to_owned(),
        (None, false, "time_limit") => "INCOMPLETE (simulated time limit)".to_owned(),
        (None, false, _) => "INCOMPLETE (stalled: nothing in flight, no timer)".to_owned(),
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
    let cap = if r.cap_limited() {
        format!(
            "; held at the tuner's {} cap, which --max-window raises",
            format::window(r.max_stream_window_bytes)
        )
    } else {
        String::new()
    };
    lines.push((
        "peak window",
        format!(
            "stream {} ({} x BDP{cap}), connection {}",
            format::window(r.peak_stream_window_bytes),
            format::ratio(r.window_bdp()),
            format::window(r.peak_conn_window_bytes)
        ),
    ));
    lines.push((
        "peak memory",
        format!(
            "receive buffer {} ({} x BDP), credit outstanding {} ({} x BDP)",
            format::bytes(r.peak_recv_buffer_bytes),
            format::ratio(r.buffer_bdp()),
            format::window(r.peak_total_credit_bytes),
            format::ratio(r.credit_bdp())
        ),
    ));
    lines.push((
        "budget",
        if r.memory_budget {
            format!(
                "a limit on credit outstanding, at most {} ({} x BDP); credit above it {} times",
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
        "flow control",
        format!(
            "link idle {} because of it; sender blocked {} in all, {} of it while queued \
             data kept the link busy ({} window updates, {} BLOCKED frames)",
            secs(r.fc_link_idle_s),
            secs(r.fc_blocked_s),
            secs(r.fc_blocked_link_busy_s),
            r.window_updates_sent,
            r.blocked_frames_sent
        ),
    ));
    lines.push((
        "congestion",
        format!(
            "peak cwnd {}, {} drops, {} packets lost, {} retransmitted{}",
            format::bytes(r.peak_cwnd_bytes),
            r.drops,
            r.packets_lost,
            format::bytes(r.retransmitted_bytes),
            if r.ecn_validation.is_empty() || r.ecn_validation == "off" {
                String::new()
            } else {
                format!(
                    ", {} CE marks, {} ECN congestion events, ECN {}",
                    r.ce_marks, r.ecn_congestion_events, r.ecn_validation
                )
            }
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
