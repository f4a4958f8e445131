//! `fc-studies calibrate`: the simulator beside real neqo.

use std::time::Instant;

use fc_lab::{
    cli::{json_line, print, runs_bar, worker_threads},
    error::LabError,
    transport::TransportChoice,
};

use super::CalibrateArgs;
use crate::calibrate::{self, RECORDED_PATH, RealResults};

pub(super) fn cmd_calibrate(a: &CalibrateArgs) -> Result<i32, LabError> {
    // Everything read and checked before any simulation.
    let (real, source) = match &a.real {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| LabError::flag("--real", format!("{}: {e}", path.display())))?;
            let source = path.display().to_string();
            (RealResults::parse(&text, &source)?, source)
        }
        None => (RealResults::recorded()?, RECORDED_PATH.to_owned()),
    };
    let transport = a.behaviour.apply(TransportChoice::preset(a.transport));
    let threads = worker_threads(a.threads);
    let runs = calibrate::specs(&real, transport).len();
    if runs == 0 {
        return Err(LabError::flag(
            "--real",
            format!("{source}: no run without ECN to simulate"),
        ));
    }
    let started = Instant::now();
    let bar = runs_bar(runs as u64, "runs");
    let c = calibrate::calibrate(&real, &source, transport, threads, &|_| bar.inc(1));
    bar.finish_and_clear();
    if a.json {
        print(&json_line(&c)?);
    } else {
        print(&c.render());
    }
    eprintln!(
        "{runs} simulated runs in {:.1} s wall on {threads} thread{}",
        started.elapsed().as_secs_f64(),
        if threads == 1 { "" } else { "s" },
    );
    Ok(i32::from(!c.errors.is_empty()))
}
