//! The README's `first-window` block: a lone stream's first window
//! against the path's rate, on the means over an RTT sweep
//! ([`crate::compare::first_window`], [`Runs::first_window`]).

use super::runs::Runs;
use crate::{
    compare::{
        first_window::{
            FIRST_WINDOWS, MEMORY_TIE, Point, RATES_BPS, RTTS_MS, SHIPPED_FIRST_WINDOW, WORKLOADS,
            of_window, windows_that_hold_everywhere,
        },
        spread::CELL_TIE,
    },
    error::LabError,
    format,
    table::{Align, Table},
};

/// A first window as the table names it.
fn window_name(bytes: u64) -> String {
    let name = format::window(bytes);
    if bytes == SHIPPED_FIRST_WINDOW {
        format!("{name} (default)")
    } else {
        name
    }
}

/// One point as a cell: the gap, the memory excess when it counts, and a
/// cross where the point fails.
fn cell(p: &Point) -> String {
    let mut s = format!("{:+.1} %", p.gap() * 100.0);
    if p.more_memory() {
        s.push_str(&format!(", memory +{:.0} %", p.memory_excess() * 100.0));
    }
    if !p.holds() {
        s.push_str(" ✗");
    }
    s
}

/// Where a window fails, as `small-msgs at 500 Mbit/s, 1 Gbit/s (behind)`.
fn failures(points: &[Point], window: u64) -> String {
    let mut parts = Vec::new();
    for workload in WORKLOADS {
        for (what, test) in [
            ("behind", Point::behind as fn(&Point) -> bool),
            ("more memory", Point::more_memory),
        ] {
            let rates: Vec<String> = of_window(points, window)
                .filter(|p| p.workload == workload && test(p))
                .map(|p| format::rate(p.rate_bps as f64))
                .collect();
            if !rates.is_empty() {
                parts.push(format!(
                    "{} at {} ({what})",
                    workload.name(),
                    rates.join(", ")
                ));
            }
        }
    }
    if parts.is_empty() {
        "nowhere".to_owned()
    } else {
        parts.join("; ")
    }
}

/// The block.
///
/// # Errors
/// [`LabError::Simulator`] when a run of the sweep did not complete.
pub fn first_window(runs: &Runs) -> Result<String, LabError> {
    let points = &runs.first_window;
    if let Some(p) = points.iter().find(|p| p.incomplete > 0) {
        return Err(LabError::Simulator(format!(
            "first-window: {} incomplete run(s) for {} at {}",
            p.incomplete,
            p.workload.name(),
            format::rate(p.rate_bps as f64)
        )));
    }
    let windows: Vec<u64> = FIRST_WINDOWS
        .into_iter()
        .map(|f| f.unwrap_or(SHIPPED_FIRST_WINDOW))
        .collect();
    let mut headers = vec![
        ("transfer".to_owned(), Align::Left),
        ("rate".to_owned(), Align::Right),
        ("better peer".to_owned(), Align::Right),
    ];
    headers.extend(windows.iter().map(|&w| (window_name(w), Align::Right)));
    let header_refs: Vec<(&str, Align)> = headers.iter().map(|(h, a)| (h.as_str(), *a)).collect();
    let mut t = Table::new(&header_refs);
    for workload in WORKLOADS {
        for rate in RATES_BPS {
            let at = |w: u64| {
                points
                    .iter()
                    .find(|p| p.workload == workload && p.rate_bps == rate && p.first_window == w)
            };
            let Some(first) = at(windows[0]) else {
                continue;
            };
            let best = first.peers[0].goodput_bps.max(first.peers[1].goodput_bps);
            let mut row = vec![
                workload.name().to_owned(),
                format::rate(rate as f64),
                format::rate(best),
            ];
            row.extend(
                windows
                    .iter()
                    .map(|&w| at(w).map_or_else(|| "-".to_owned(), cell)),
            );
            t.push(row);
        }
    }
    let holding = windows_that_hold_everywhere(points);
    let verdict = if holding.is_empty() {
        "none of them".to_owned()
    } else {
        holding
            .iter()
            .map(|&w| window_name(w))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let fails: Vec<String> = windows
        .iter()
        .map(|&w| format!("{}: {}", window_name(w), failures(points, w)))
        .collect();
    Ok(format!(
        "One stream on paths of each rate with a 1-BDP queue, at every RTT of {} ms (`fc-lab run \
         --rate R --rtt T --workload W`, with `--initial-window F` for a first window F other than \
         the default's 512 KiB seed); `default`'s mean goodput over the {} RTTs against the better \
         of `neqo`'s and `double`'s means, and where the mean of one of its memory figures (stream \
         window, total credit, exposure, receive buffer) passes both peers' by more than {:.0} %, \
         by how much. ✗: behind by more than {:.1} %, or more memory.\n\n{}\nA first window that \
         holds at every rate on both transfers: {verdict}. Where each fails — {}.\n",
        RTTS_MS
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        RTTS_MS.len(),
        MEMORY_TIE * 100.0,
        CELL_TIE * 100.0,
        t.markdown(),
        fails.join("; "),
    ))
}
