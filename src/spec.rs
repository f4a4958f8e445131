//! One run as a person describes it ([`RunSpec`]: path, workload, tuner,
//! overrides) and the simulator scenario it stands for.
//! [`crate::execute()`] runs it; [`RunSpec::report`] turns its result
//! into a [`RunReport`].

use std::time::Duration;

use neqo_fc_sim::{
    progress::RunEnd,
    quic::{cc::CcAlgorithm, ecn_validation::EcnState},
    scenario::{ReaderSpeed, RunResult, Scenario},
    trace::TraceLevel,
};

use crate::{
    error::LabError,
    profiles::PathSpec,
    report::RunReport,
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
        scenario.cross = self.path.cross;
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

    /// The report of `result`, produced by `scenario` built from this self.
    #[must_use]
    pub fn report(&self, scenario: &Scenario, result: &RunResult) -> RunReport {
        let m = &result.metrics;
        let duration_s = m.duration.as_secs_f64();
        #[allow(clippy::cast_precision_loss)]
        let goodput_bps = if duration_s > 0.0 {
            m.bytes as f64 * 8.0 / duration_s
        } else {
            0.0
        };
        let mut report = self.base_report(scenario);
        report.bytes = m.bytes;
        report.duration_s = duration_s;
        report.goodput_bps = goodput_bps;
        report.peak_stream_window_bytes = m.peak_stream_window;
        report.peak_conn_window_bytes = m.peak_conn_window;
        report.peak_recv_buffer_bytes = m.peak_recv_buffer;
        report.peak_total_credit_bytes = m.peak_total_credit;
        report.peak_exposure_bytes = m.peak_exposure;
        report.peak_cwnd_bytes = m.peak_cwnd;
        report.drops = m.drops;
        report.packets_lost = m.packets_lost;
        report.ce_marks = m.ce_marks;
        report.ecn_congestion_events = m.ecn_congestion_events;
        report.ecn_validation = m.ecn_state.to_string();
        report.retransmitted_bytes = m.retransmitted_bytes;
        report.fc_blocked_s = m.fc_blocked.as_secs_f64();
        report.fc_link_idle_s = m.fc_link_idle.as_secs_f64();
        report.fc_blocked_link_busy_s = m.fc_blocked.saturating_sub(m.fc_link_idle).as_secs_f64();
        report.window_updates_sent = m.window_updates_sent;
        report.blocked_frames_sent = m.blocked_frames_sent;
        report.link_utilisation = m.link_utilisation;
        report.min_rtt_s = m.min_rtt.as_secs_f64();
        report.final_srtt_s = m.final_srtt.as_secs_f64();
        report.cross_goodput_bps = m.cross_goodput_bps;
        report.completed = m.completed;
        report.end = m.end.as_str().to_owned();
        report.error = m
            .error
            .as_ref()
            .map(|(code, reason)| format!("{code:#x} {reason}"));
        report.fairness_index = m.fairness_index;
        report.stream_completion_s = m
            .stream_completion
            .iter()
            .map(std::time::Duration::as_secs_f64)
            .collect();
        report.peak_budget_bytes = m.peak_budget;
        report.budget_violations = m.budget_violations;
        report.stall_goodput_bps = m.stall_goodput_bps;
        report.verify_failures = m.verify_failures;
        report.events = m.events;
        report.event_hash = format!("{:016x}", m.event_hash);
        report
    }

    /// The report of a run that could not execute: the configuration
    /// fields filled in, no measurements, `error` set.
    #[must_use]
    pub fn failed_report(&self, error: String) -> RunReport {
        let mut report = match self.scenario() {
            Ok(scenario) => self.base_report(&scenario),
            Err(_) => self.base_report_without_scenario(),
        };
        report.error = Some(error);
        report.end = RunEnd::ConnectionError.as_str().to_owned();
        report
    }

    fn base_report(&self, scenario: &Scenario) -> RunReport {
        let mut r = self.base_report_without_scenario();
        r.update_fraction = f64::from(scenario.fc.update_fraction.num())
            / f64::from(scenario.fc.update_fraction.den());
        r.memory_budget = scenario.fc.budget.is_some();
        r.initial_stream_window_bytes = scenario.fc.initial_stream_window;
        r.initial_conn_window_bytes = scenario.fc.initial_connection_window;
        r.max_stream_window_bytes = scenario.fc.max_stream_window;
        r
    }

    fn base_report_without_scenario(&self) -> RunReport {
        let path = &self.path;
        RunReport {
            profile: path.name.clone(),
            tuner: self.tuner.name(),
            workload: self.workload.name.clone(),
            seed: self.seed,
            seeds: 1,
            expected_bytes: self.workload.total_bytes(),
            streams: self.workload.streams,
            link_rate_bps: path.rate_bps,
            rtt_s: path.rtt.as_secs_f64(),
            bdp_bytes: path.bdp_bytes(),
            queue_bytes: path.queue_bytes,
            loss_rate: path.loss,
            jitter_s: path.jitter.as_secs_f64(),
            cross: path.cross.map(|c| c.to_string()),
            reverse_rate_bps: path.reverse_rate_bps.unwrap_or(path.rate_bps),
            reverse_loss_rate: path.reverse_loss,
            reader_rate_bps: match self.workload.reader {
                ReaderSpeed::Unlimited => None,
                ReaderSpeed::Rate(bps) | ReaderSpeed::Periodic { bps, .. } => Some(bps),
            },
            reader_period_s: match self.workload.reader {
                ReaderSpeed::Periodic { period, .. } => Some(period.as_secs_f64()),
                _ => None,
            },
            cc: self.cc.name().to_owned(),
            transport: self.transport.name(),
            memory_budget: self.tuner.budget,
            stall: self.workload.stall.as_ref().map(crate::stall::stall_name),
            ecn_validation: EcnState::Off.to_string(),
            ..RunReport::default()
        }
    }
}

/// Keeps ASCII letters, digits, `-`, `_` and `.`; everything else (`:`,
/// `+`, `/`, spaces) becomes `-`.
#[must_use]
pub fn sanitize(s: &str) -> String {
    s.replace(
        |c: char| !c.is_ascii_alphanumeric() && !matches!(c, '-' | '_' | '.'),
        "-",
    )
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
