//! The blocks that set the simulator beside real neqo: the calibration
//! sweep, the two models of neqo, and the committed real-neqo matrix.

use fc_lab::{
    error::LabError,
    table::{Align, Table},
};

use super::runs::Runs;
use crate::calibrate::RECORDED_PATH;

/// Mission-path goodput of the real-neqo variants and of the simulator
/// beside them, per RTT, from [`Runs::calibration`].
pub(super) fn calibration(runs: &Runs) -> Result<String, LabError> {
    let mut c = runs.calibration.clone();
    c.rows.retain(|r| r.path == "mission");
    c.means.retain(|m| m.path == "mission");
    let c = &c;
    let cols = [
        ("unlimited", "unlimited"),
        ("neqo", "neqo-main"),
        ("neqo", "neqo-main+pacing"),
        ("default", "neqo-fc+pacing"),
    ];
    let mut rtts: Vec<f64> = c.rows.iter().map(|r| r.rtt_s).collect();
    rtts.sort_by(f64::total_cmp);
    rtts.dedup();
    let mut t = Table::new(&[
        ("RTT", Align::Right),
        ("unlimited: real · sim", Align::Left),
        ("neqo main: real · sim `neqo`", Align::Left),
        ("neqo main + pacing fix: real · sim `neqo`", Align::Left),
        ("neqo-fc + pacing fix: real · sim `default`", Align::Left),
    ]);
    for rtt in rtts {
        let mut row = vec![format!("{} ms", (rtt * 1000.0).round())];
        for (sim, real) in cols {
            let r = c
                .rows
                .iter()
                .find(|r| r.rtt_s == rtt && r.sim_tuner == sim && r.real_variant == real)
                .ok_or_else(|| LabError::Simulator(format!("calibration: no {sim}/{real} row")))?;
            row.push(format!(
                "{:.0} · {:.0} ({:+.1} %)",
                r.real_goodput_bps / 1e6,
                r.sim_goodput_bps / 1e6,
                100.0 * (r.goodput_ratio - 1.0)
            ));
        }
        t.push(row);
    }
    let mut means = String::new();
    for (sim, real) in cols {
        if let Some(m) = c
            .means
            .iter()
            .find(|m| m.sim_tuner == sim && m.real_variant == real)
        {
            means += &format!(
                "{} `{sim}` vs real `{real}` {:.1} vs {:.1} Mbit/s ({:+.1} %)",
                if means.is_empty() { "" } else { ";" },
                m.sim_goodput_bps / 1e6,
                m.real_goodput_bps / 1e6,
                100.0 * (m.ratio - 1.0)
            );
        }
    }
    let (ok, all) = c.score();
    Ok(format!(
        "{}\nMeans over the sweep, simulated vs real:{means}. {ok} of the {all} mission-path cells (these four columns and `default` against `neqo-fc` without the pacing fix) within the fidelity targets (±5 % for `unlimited` and `neqo`, with `neqo`'s peak window within ±15 %; ±10 % for `default`); `cargo run --release -p fc-studies -- calibrate` shows every cell, the bench path too, with ECN and without.\n",
        t.markdown()
    ))
}

/// Means over the RTT sweep of every path of the committed matrix: real
/// neqo, the first, fitted model and the `neqo` model, from
/// [`Runs::fitted`] and [`Runs::calibration`].
pub(super) fn calibration_models(runs: &Runs) -> Result<String, LabError> {
    let pairs = [
        ("unlimited", "unlimited"),
        ("neqo", "neqo-main"),
        ("neqo", "neqo-main+pacing"),
        ("default", "neqo-fc"),
        ("default", "neqo-fc+pacing"),
    ];
    let mean = |c: &crate::calibrate::Calibration, path: &str, sim: &str, real: &str| {
        c.means
            .iter()
            .find(|m| m.path == path && m.sim_tuner == sim && m.real_variant == real)
            .cloned()
            .ok_or_else(|| LabError::Simulator(format!("calibration: no {path} {sim}/{real} mean")))
    };
    let mut t = Table::new(&[
        ("path", Align::Left),
        ("real variant", Align::Left),
        ("sim", Align::Left),
        ("real", Align::Right),
        ("fitted `neqo-fitted`", Align::Right),
        ("traced `neqo`", Align::Right),
    ]);
    let (mut fitted_ok, mut traced_ok, mut all) = (0, 0, 0);
    for path in ["mission", "bench", "bench-ecn"] {
        for (sim, real) in pairs {
            let f = mean(&runs.fitted, path, sim, real)?;
            let tr = mean(&runs.calibration, path, sim, real)?;
            all += 1;
            fitted_ok += usize::from(f.within_target);
            traced_ok += usize::from(tr.within_target);
            let cell = |m: &crate::calibrate::Mean| {
                format!(
                    "{:.0} ({:+.1} %){}",
                    m.sim_goodput_bps / 1e6,
                    100.0 * (m.ratio - 1.0),
                    if m.within_target { "" } else { " ✗" }
                )
            };
            t.push(vec![
                path.to_owned(),
                format!("`{real}`"),
                format!("`{sim}`"),
                format!("{:.0}", f.real_goodput_bps / 1e6),
                cell(&f),
                cell(&tr),
            ]);
        }
    }
    Ok(format!(
        "{}
Means within target (±5 % for `unlimited` and `neqo`, ±10 % for `default`; ✗ marks the others): fitted {fitted_ok} of {all}, traced {traced_ok} of {all}.
",
        t.markdown()
    ))
}

/// The committed real-neqo matrix: mean goodput over the RTT sweep per
/// path and variant, from [`Runs::real`].
/// Real neqo's runs of `variant` on `path` (ECN on or off): "mean
/// goodput · the largest peak stream window in BDPs", `None` without runs.
pub(super) fn real_neqo_cell(runs: &Runs, path: &str, ecn: bool, variant: &str) -> Option<String> {
    let g: Vec<&crate::calibrate::RealRun> = runs
        .real
        .runs
        .iter()
        .filter(|r| r.path == path && r.ecn == ecn && r.variant == variant)
        .collect();
    if g.is_empty() {
        return None;
    }
    let mean = g.iter().map(|r| r.goodput_bps).sum::<f64>() / g.len() as f64;
    let w = g
        .iter()
        .filter(|r| r.peak_stream_window_bytes < 1 << 50 && r.bdp_bytes > 0)
        .map(|r| r.peak_stream_window_bytes as f64 / r.bdp_bytes as f64)
        .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
    Some(format!(
        "{:.1} Mbit/s · {}",
        mean / 1e6,
        w.map_or_else(|| "∞".to_owned(), |w| format!("≤ {w:.2}"))
    ))
}

pub(super) fn real_neqo(runs: &Runs) -> String {
    let variants = [
        "neqo-main",
        "unlimited",
        "neqo-fc",
        "neqo-main+pacing",
        "neqo-fc+pacing",
    ];
    let mut t = Table::new(&[
        ("path", Align::Left),
        ("neqo main", Align::Right),
        ("unlimited", Align::Right),
        ("neqo-fc", Align::Right),
        ("neqo main + pacing fix", Align::Right),
        ("neqo-fc + pacing fix", Align::Right),
    ]);
    for (path, ecn, label) in [
        ("mission", false, "mission (1-BDP queue)"),
        ("bench", false, "neqo's bench, ECN off"),
        ("bench", true, "neqo's bench, ECN on"),
    ] {
        let mut row = vec![label.to_owned()];
        for v in variants {
            row.push(real_neqo_cell(runs, path, ecn, v).unwrap_or_else(|| "–".to_owned()));
        }
        t.push(row);
    }
    format!(
        "{}\nMean goodput over RTT 20, 30, 40, 50, 60, 80, 100 ms (1 GiB each) · the largest peak stream window of the sweep in BDPs; neqo {} (`{}`).\n",
        t.markdown(),
        &runs.real.neqo_commit[..runs.real.neqo_commit.len().min(7)],
        RECORDED_PATH
    )
}
