//! The README's `real-short` block: short transfers in real neqo (the
//! bytes of `small-msgs` and `large-msg` on one stream, `small-msgs`'
//! bytes over ten streams, `many-100`, and 20 × 1 MiB; on streams the
//! server opens, and on the client's requests), beside the `neqo`
//! transport model of the simulator ([`Runs::short`]).

use super::runs::Runs;
use fc_lab::{
    error::LabError,
    format::thousands,
    table::{Align, Table},
};

use crate::calibrate::{Calibration, Mean, SHORT_TRANSFERS};

/// The real variants in the table, in column order.
const VARIANTS: [&str; 4] = [
    "unlimited",
    "neqo-main",
    "neqo-main+pacing",
    "neqo-fc+pacing",
];

/// Paths as `calibrate` labels them, and as the table names them.
const PATHS: [(&str, &str); 4] = [
    ("mission", "mission: 1 Gbit/s, 1-BDP queue"),
    ("bench", "neqo's bench, ECN off"),
    ("bench-ecn", "neqo's bench, ECN on"),
    ("cable", "cable: 200 Mbit/s, 1-BDP queue"),
];

fn mean<'a>(c: &'a Calibration, path: &str, real: &str) -> Result<&'a Mean, LabError> {
    c.means
        .iter()
        .find(|m| m.path == path && m.real_variant == real)
        .ok_or_else(|| LabError::Simulator(format!("real-short: no {path} mean of {real}")))
}

/// `neqo-fc+pacing` over `neqo-main+pacing` at every RTT of `path` in real
/// neqo: the RTTs (ms) and ratio − 1 at each.
fn real_gaps(c: &Calibration, path: &str) -> Vec<(f64, f64)> {
    let goodput = |variant: &str| -> Vec<(f64, f64)> {
        c.rows
            .iter()
            .filter(|r| r.path == path && r.real_variant == variant)
            .map(|r| (r.rtt_s * 1000.0, r.real_goodput_bps))
            .collect()
    };
    let main = goodput("neqo-main+pacing");
    goodput("neqo-fc+pacing")
        .iter()
        .filter_map(|(rtt, fc)| {
            main.iter()
                .find(|(r, _)| r == rtt)
                .map(|(_, m)| (*rtt, fc / m - 1.0))
        })
        .collect()
}

/// The block's text.
///
/// # Errors
/// [`LabError::Simulator`] when a committed file lacks a path or variant
/// the table shows.
pub fn real_short(runs: &Runs) -> Result<String, LabError> {
    let mut t = Table::new(&[
        ("transfer", Align::Left),
        ("path, RTTs", Align::Left),
        ("unlimited", Align::Right),
        ("neqo main", Align::Right),
        ("neqo main + pacing fix", Align::Right),
        ("neqo-fc + pacing fix", Align::Right),
        (
            "neqo-fc vs neqo main, both + pacing fix: real · sim",
            Align::Right,
        ),
        (
            "at single RTTs (real): range · behind > 0.5 %",
            Align::Right,
        ),
    ]);
    let (mut ok, mut all) = (0, 0);
    for (file, (real, c)) in SHORT_TRANSFERS.iter().zip(&runs.short) {
        let first = real
            .runs
            .first()
            .ok_or_else(|| LabError::Simulator(format!("real-short: {} is empty", file.path)))?;
        let size = if first.streams > 1 {
            format!("{} × {} B", first.streams, thousands(first.bytes))
        } else {
            format!("{} B", thousands(first.bytes))
        };
        let mut transfer = if file.workload.is_empty() {
            size
        } else {
            format!("`{}` ({size})", file.workload)
        };
        if first.requests {
            transfer += ", requests";
        }
        for (path, label) in PATHS {
            if !c.means.iter().any(|m| m.path == path) {
                continue;
            }
            let gaps = real_gaps(c, path);
            let lo = gaps.iter().map(|g| g.1).fold(f64::INFINITY, f64::min);
            let hi = gaps.iter().map(|g| g.1).fold(f64::NEG_INFINITY, f64::max);
            let first = gaps.iter().map(|g| g.0).fold(f64::INFINITY, f64::min);
            let last = gaps.iter().map(|g| g.0).fold(0.0, f64::max);
            let behind = gaps.iter().filter(|g| g.1 < -0.005).count();
            let mut row = vec![
                transfer.clone(),
                format!("{label}, {first:.0}–{last:.0} ms"),
            ];
            for v in VARIANTS {
                row.push(format!("{:.1}", mean(c, path, v)?.real_goodput_bps / 1e6));
            }
            let fc = mean(c, path, "neqo-fc+pacing")?;
            let main = mean(c, path, "neqo-main+pacing")?;
            row.push(format!(
                "{:+.1} % · {:+.1} %",
                100.0 * (fc.real_goodput_bps / main.real_goodput_bps - 1.0),
                100.0 * (fc.sim_goodput_bps / main.sim_goodput_bps - 1.0)
            ));
            row.push(format!(
                "{:+.1} to {:+.1} % · {behind} of {}",
                100.0 * lo,
                100.0 * hi,
                gaps.len()
            ));
            t.push(row);
        }
        ok += c.means.iter().filter(|m| m.within_target).count();
        all += c.means.len();
    }
    let files: Vec<String> = SHORT_TRANSFERS
        .iter()
        .map(|f| format!("`{}`", f.path))
        .collect();
    Ok(format!(
        "{}\nMean goodput in Mbit/s over 21 RTTs, all streams together, from {}. In the rows marked \"requests\" the client opens the streams and sends a request on each, which the server answers (`run.sh --requests`, HTTP/3's shape; the model then opens them as it sends the requests, `--open-requests at-request`); otherwise the server opens unidirectional streams. The last two columns set `neqo-fc` beside neqo's own tuning with the same pacer: the means in real neqo and in the simulator's `neqo` model (`fc-studies calibrate --real FILE`), and the real runs RTT by RTT. {ok} of the {all} simulated means are within the fidelity targets (±5 % for `unlimited` and `neqo`, ±10 % for `default`).\n",
        t.markdown(),
        files.join(", "),
    ))
}
