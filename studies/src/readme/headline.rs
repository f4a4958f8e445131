//! The README's `headline` block: on the mission path, what each stack
//! ships against the same stack with neqo-fc and with unlimited windows —
//! real neqo and real quinn (means over their RTT sweeps, from the
//! committed integration results) and the simulator's 50 ms run.

use super::{real_quinn, real_scoreboard, runs::Runs};
use fc_lab::{
    error::LabError,
    format,
    table::{Align, Table},
};

use crate::calibrate::RECORDED_PATH;

/// A cell: mean goodput and the largest peak stream window over BDP.
fn cell(goodput_bps: f64, window: &str) -> String {
    format!("{:.1} Mbit/s · {window}", goodput_bps / 1e6)
}

/// Real neqo's mission runs of `variant`.
fn neqo(runs: &Runs, variant: &str) -> Result<String, LabError> {
    super::calibration::real_neqo_cell(runs, "mission", false, variant)
        .ok_or_else(|| LabError::Simulator(format!("{RECORDED_PATH}: no mission run of {variant}")))
}

fn quinn(variant: &str) -> Result<String, LabError> {
    let (mean, window) = real_quinn::mission_mean(variant)?;
    Ok(cell(mean, &window))
}

/// The block's text.
///
/// # Errors
/// [`LabError::Simulator`] when a run or a committed result is missing.
pub fn headline(runs: &Runs) -> Result<String, LabError> {
    let mut t = Table::new(&[
        ("stack (mission path)", Align::Left),
        ("as shipped", Align::Right),
        ("with neqo-fc", Align::Right),
        ("unlimited windows", Align::Right),
    ]);
    t.push(vec![
        "neqo 80ca01e, mean over 20–100 ms".into(),
        neqo(runs, "neqo-main")?,
        neqo(runs, "neqo-fc+pacing")?,
        neqo(runs, "unlimited")?,
    ]);
    t.push(vec![
        "neqo 80ca01e + its pacing fix".into(),
        neqo(runs, "neqo-main+pacing")?,
        neqo(runs, "neqo-fc+pacing")?,
        "–".into(),
    ]);
    let scoreboard = |variant: &str| -> Result<String, LabError> {
        let (g, bdp) = real_scoreboard::row_mean("mission 1x1GiB", variant)?;
        let window = bdp.map_or_else(|| "∞".to_owned(), |b| format!("≤ {b:.2}"));
        Ok(cell(g * 1e6, &window))
    };
    t.push(vec![
        "neqo 80ca01e + the upstream series (4 patches), 21 RTTs".into(),
        scoreboard("neqo-main")?,
        scoreboard("upstream-4")?,
        scoreboard("unlimited")?,
    ]);
    t.push(vec![
        "quinn-proto 0.11.19, mean over 20–100 ms".into(),
        quinn("quinn-default")?,
        quinn("neqo-fc")?,
        quinn("unlimited")?,
    ]);
    let d = runs.named("gbit-50ms/1GiB/default")?;
    let u = runs.named("gbit-50ms/1GiB/unlimited")?;
    t.push(vec![
        "our simulator, 50 ms".into(),
        "–".into(),
        cell(
            d.goodput_bps,
            &format!("≤ {}", format::ratio(d.window_bdp())),
        ),
        cell(u.goodput_bps, "∞"),
    ]);
    Ok(format!(
        "{}\nMission path: 1 Gbit/s, tail-drop queue of one BDP, 1 GiB on one stream. Each cell: \
         goodput · the largest peak stream window in BDPs. neqo's \"with neqo-fc\" column \
         includes the pacing fix (ACK-only packets spend no pacing credit), which neqo-fc's \
         updates need there; the upstream series (`integrations/neqo/patches/upstream/`) \
         keeps neqo's flow control and takes only its tuning step from neqo-fc, pacing fix \
         included, means over 21 RTTs (20–100 ms). Sources: `{RECORDED_PATH}`, \
         `integrations/neqo/results/scoreboard.json`, `integrations/quinn/results/matrix.json`, and `fc-lab run --profile gbit-50ms --size \
         1GiB`.\n",
        t.markdown()
    ))
}
