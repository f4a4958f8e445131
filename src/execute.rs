//! Running one [`RunSpec`] on the simulator: the [`Outcome`] with its
//! [`RunReport`], or a [`LabError`] — never a panic.

use std::{any::Any, ops::ControlFlow, panic};

use neqo_fc_sim::{
    progress::Observer,
    scenario::{RunResult, Scenario},
};

use crate::{error::LabError, report::RunReport, spec::RunSpec};

/// A finished run: the report, the simulator's full result (series and
/// trace) and the scenario it ran.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The summary numbers (what `--json` prints).
    pub report: RunReport,
    /// Metrics, time series and trace.
    pub result: RunResult,
    /// The scenario that produced it.
    pub scenario: Scenario,
}

/// Runs `spec` on the simulator.
///
/// # Errors
/// [`LabError::Config`] for invalid settings, [`LabError::Simulator`] for
/// a panic in the simulator (caught: one broken run never takes a
/// comparison down).
pub fn execute(spec: &RunSpec) -> Result<Outcome, LabError> {
    execute_observed(spec, &mut |_| ControlFlow::Continue(()))
}

/// [`execute`], calling `observer` as the run goes: it may show progress
/// or stop the run (the report then says `end: "stopped"`).
///
/// # Errors
/// As [`execute`].
pub fn execute_observed(spec: &RunSpec, observer: Observer<'_>) -> Result<Outcome, LabError> {
    let scenario = spec.scenario()?;
    let result = panic::catch_unwind(panic::AssertUnwindSafe(|| {
        neqo_fc_sim::run_observed(&scenario, observer)
    }))
    .map_err(|payload| {
        let message = panic_message(&*payload).unwrap_or_else(|| "panicked".to_owned());
        LabError::Simulator(format!("run {} panicked: {message}", spec.file_stem()))
    })?;
    Ok(Outcome {
        report: spec.report(&scenario, &result),
        result,
        scenario,
    })
}

/// The text a caught panic carried, if any.
#[must_use]
pub fn panic_message(payload: &(dyn Any + Send)) -> Option<String> {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
}
