//! The README's `blind-start` block: the credit given before the rate is
//! known (a lone stream's first window, ten streams' connection start)
//! against the path's rate, on the means over an RTT sweep
//! ([`crate::blind_start`], [`Runs::blind_start`]).

use super::runs::Runs;
use fc_lab::{
    error::LabError,
    format,
    table::{Align, Table},
};

use crate::{
    blind_start::{
        Knob, MEMORY_TIE, Point, RATES_BPS, RTTS_MS, SWEEPS, of_value, values_that_hold_everywhere,
    },
    spread::CELL_TIE,
};

/// A value as a column names it.
fn value_name(bytes: u64, shipped: u64) -> String {
    let name = format::window(bytes);
    if bytes == shipped {
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

/// Where a value of sweep `sweep` fails, as `behind at 500 Mbit/s,
/// 1 Gbit/s; more memory at 2 Mbit/s`, or `nowhere`.
fn failures(points: &[Point], sweep: usize, value: u64) -> String {
    let mut parts = Vec::new();
    for (what, test) in [
        ("behind", Point::behind as fn(&Point) -> bool),
        ("more memory", Point::more_memory),
    ] {
        let rates: Vec<String> = of_value(points, sweep, value)
            .filter(|p| test(p))
            .map(|p| format::rate(p.rate_bps as f64))
            .collect();
        if !rates.is_empty() {
            parts.push(format!("{what} at {}", rates.join(", ")));
        }
    }
    if parts.is_empty() {
        "nowhere".to_owned()
    } else {
        parts.join(", ")
    }
}

/// The table of the sweeps that vary `knob`: a row per workload and rate,
/// a column per value.
fn table(points: &[Point], knob: Knob) -> Table {
    let sweeps: Vec<usize> = (0..SWEEPS.len())
        .filter(|&i| SWEEPS[i].knob == knob)
        .collect();
    let first = SWEEPS[sweeps[0]];
    let mut headers = vec![
        ("transfer".to_owned(), Align::Left),
        ("rate".to_owned(), Align::Right),
        ("better peer".to_owned(), Align::Right),
    ];
    headers.extend(
        first
            .bytes()
            .iter()
            .map(|&v| (value_name(v, first.shipped), Align::Right)),
    );
    let refs: Vec<(&str, Align)> = headers.iter().map(|(h, a)| (h.as_str(), *a)).collect();
    let mut t = Table::new(&refs);
    for &si in &sweeps {
        let sweep = SWEEPS[si];
        for rate in RATES_BPS {
            let at: Vec<&Point> = sweep
                .bytes()
                .iter()
                .filter_map(|&v| of_value(points, si, v).find(|p| p.rate_bps == rate))
                .collect();
            let Some(p0) = at.first() else {
                continue;
            };
            let mut row = vec![
                sweep.workload.name().to_owned(),
                format::rate(rate as f64),
                format::rate(p0.best_goodput_bps()),
            ];
            row.extend(at.iter().map(|p| cell(p)));
            t.push(row);
        }
    }
    t
}

/// The verdict on sweep `sweep`: which values hold everywhere, and where
/// each of the others fails.
fn verdict(points: &[Point], sweep: usize) -> String {
    let s = SWEEPS[sweep];
    let holding = values_that_hold_everywhere(points, sweep);
    let holds = if holding.is_empty() {
        "none".to_owned()
    } else {
        holding
            .iter()
            .map(|&v| value_name(v, s.shipped))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let each: Vec<String> = s
        .bytes()
        .iter()
        .filter(|v| !holding.contains(v))
        .map(|&v| {
            format!(
                "{} {}",
                value_name(v, s.shipped),
                failures(points, sweep, v)
            )
        })
        .collect();
    format!(
        "`{}` ({}): holds at every rate: {holds}; {}.",
        s.workload.name(),
        s.knob.flag(),
        each.join("; ")
    )
}

/// The block.
///
/// # Errors
/// [`LabError::Simulator`] when a run of the sweeps did not complete.
pub fn blind_start(runs: &Runs) -> Result<String, LabError> {
    let points = &runs.blind_start;
    if let Some(p) = points.iter().find(|p| p.incomplete > 0) {
        return Err(LabError::Simulator(format!(
            "blind-start: {} incomplete run(s) for {} at {}",
            p.incomplete,
            SWEEPS[p.sweep].workload.name(),
            format::rate(p.rate_bps as f64)
        )));
    }
    let verdicts: Vec<String> = (0..SWEEPS.len()).map(|i| verdict(points, i)).collect();
    Ok(format!(
        "Each workload on paths of each rate with a 1-BDP queue, at every RTT of {} ms (`fc-lab \
         run --rate R --rtt T --workload W`, with the setting's flag for a value other than the \
         default's); `default`'s mean goodput over the {} RTTs against the better of `neqo`'s and \
         `double`'s means, and where the mean of one of its memory figures (stream window, total \
         credit, exposure, receive buffer) passes both peers' by more than {:.0} %, by how much. \
         ✗: behind by more than {:.1} %, or more memory.\n\nOne stream, its first window \
         (`--initial-window F`; the default's is the 512 KiB seed):\n\n{}\nTen streams opened \
         at once, the connection's start their seeds are drawn from \
         (`--initial-connection-window C`; the promise stays 64 KiB):\n\n{}\n{}\n",
        RTTS_MS
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        RTTS_MS.len(),
        MEMORY_TIE * 100.0,
        CELL_TIE * 100.0,
        table(points, Knob::FirstWindow).markdown(),
        table(points, Knob::ConnectionWindow).markdown(),
        verdicts.join(" "),
    ))
}
