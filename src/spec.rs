//! One run as a person describes it ([`RunSpec`]: path, workload, tuner,
//! overrides) and the simulator scenario it stands for.
//! [`crate::execute()`] runs it.

use std::time::Duration;

use neqo_fc_sim::{quic::cc::CcAlgorithm, scenario::Scenario, trace::TraceLevel};

use crate::{
    error::LabError,
    profiles::PathSpec,
    transport::TransportChoice,
    tuners::{Overrides, TunerChoice},
    workloads::WorkloadSpec,
};

/// Everything that defines one run. Same spec → same result.
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// The network path.
    pub path: PathSpec,
    /// What is sent and how it is read.
    pub workload: WorkloadSpec,
    /// The receive-window strategy and whether the memory budget is on.
    pub tuner: TunerChoice,
    /// `--update-fraction`, `--initial-window`.
    pub overrides: Overrides,
    /// Congestion control at the sender.
    pub cc: CcAlgorithm,
    /// Datagram size, ACK rate, pacing, send buffer.
    pub transport: TransportChoice,
    /// PRNG seed.
    pub seed: u64,
    /// Encode, decode and check every payload byte.
    pub verify: bool,
    /// What to record for qlog.
    pub trace: TraceLevel,
    /// Stop at this simulated time (`None`: the simulator's default, 1 h).
    pub time_limit: Option<Duration>,
}

impl RunSpec {
    /// A run with seed 1, CUBIC, no overrides, no tracing. `tuner` is a
    /// [`TunerChoice`] or a [`crate::tuners::TunerSpec`] (with its own
    /// budget setting).
    #[must_use]
    pub fn new(path: PathSpec, workload: WorkloadSpec, tuner: impl Into<TunerChoice>) -> Self {
        Self {
            path,
            workload,
            tuner: tuner.into(),
            overrides: Overrides::default(),
            cc: CcAlgorithm::Cubic,
            transport: TransportChoice::default(),
            seed: 1,
            verify: false,
            trace: TraceLevel::Off,
            time_limit: None,
        }
    }

    /// The simulator scenario.
    ///
    /// # Errors
    /// [`LabError::Config`] when the overrides make the flow-control
    /// settings invalid.
    pub fn scenario(&self) -> Result<Scenario, LabError> {
        let tuning = self
            .tuner
            .build(&self.overrides, self.workload.streams)
            .map_err(|e| LabError::Config(e.to_string()))?;
        let mut scenario = Scenario::new(self.path.forward(), self.workload.workload());
        scenario.reverse = self.path.reverse();
        scenario.fc = tuning.config;
        scenario.tuner = tuning.tuner;
        scenario.cc = self.cc;
        scenario.transport = self.transport.options(self.path.rtt);
        scenario.seed = self.seed;
        scenario.verify = self.verify;
        scenario.trace = self.trace;
        if let Some(limit) = self.time_limit {
            scenario.time_limit = limit;
        }
        Ok(scenario)
    }

    /// A file-name-safe label: `gbit-50ms-bulk-fixed-1MiB-s1`.
    #[must_use]
    pub fn file_stem(&self) -> String {
        sanitize(&format!(
            "{}-{}-{}-s{}",
            self.path.name,
            self.workload.name,
            self.tuner.name(),
            self.seed
        ))
    }
}

/// Keeps ASCII letters, digits, `-`, `_` and `.`; everything else (`:`,
/// `+`, `/`, spaces) becomes `-`.
#[must_use]
pub fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{profiles::find, tuners::TunerSpec, workloads::MatrixWorkload};

    #[test]
    fn scenario_carries_the_spec() {
        let path = find("neqo-bench").unwrap().path();
        let workload = MatrixWorkload::SmallMsgs10.on(&path, false);
        let mut spec = RunSpec::new(path, workload, TunerSpec::Fixed(256 << 10));
        spec.seed = 7;
        spec.cc = CcAlgorithm::NewReno;
        spec.overrides.update_fraction = Some(neqo_fc::Fraction::ONE);
        spec.time_limit = Some(Duration::from_secs(5));
        let s = spec.scenario().unwrap();
        assert_eq!(s.seed, 7);
        assert_eq!(s.cc, CcAlgorithm::NewReno);
        assert_eq!(s.fc.update_fraction, neqo_fc::Fraction::ONE);
        assert_eq!(s.fc.initial_stream_window, 256 << 10);
        assert_eq!(s.workload.streams, 10);
        assert_eq!(s.forward.delay, Duration::from_millis(20));
        assert_eq!(s.forward.queue_bytes, 500_000);
        assert_eq!(s.forward.overhead_bytes, 80);
        assert_eq!(s.time_limit, Duration::from_secs(5));
        assert_eq!(spec.file_stem(), "neqo-bench-small-msgs-10-fixed-256KiB-s7");
    }

    #[test]
    fn budget_and_stall_reach_the_scenario() {
        let path = find("gbit-50ms").unwrap().path();
        let workload = MatrixWorkload::StallMix.on(&path, false);
        let stall = workload.stall;
        let neqo_b = crate::tuners::TunerChoice::parse("neqo+budget").unwrap();
        let spec = RunSpec::new(path.clone(), workload, neqo_b);
        let s = spec.scenario().unwrap();
        assert_eq!(s.fc.budget, Some(neqo_fc::Budget::default()));
        assert_eq!(s.fc.initial_stream_window, 1 << 20);
        assert_eq!(s.workload.stall, stall);
        assert_eq!(s.workload.streams, 51);
        assert_eq!(spec.file_stem(), "gbit-50ms-stall-mix-neqo-budget-s1");
        let w = MatrixWorkload::Many100.on(&path, false);
        let plain = RunSpec::new(path, w, TunerSpec::Default);
        assert_eq!(
            plain.scenario().unwrap().fc.budget,
            Some(neqo_fc::Budget::default())
        );
        let off = RunSpec {
            tuner: crate::tuners::TunerChoice::parse("default-budget").unwrap(),
            ..plain
        };
        assert_eq!(off.scenario().unwrap().fc.budget, None);
        assert_eq!(off.file_stem(), "gbit-50ms-many-100-default-budget-s1");
    }

    #[test]
    fn sanitizes_names() {
        assert_eq!(
            sanitize("residential-adsl2+/x y:z"),
            "residential-adsl2--x-y-z"
        );
    }
}
