//! What one simulated run is: a path, a workload, flow-control settings
//! and a tuner in ([`Scenario`]); metrics, time series and (optionally) a
//! trace out ([`RunResult`]). [`crate::run`] runs it.
//!
//! A leaf: these types describe a run and depend on nothing that carries
//! one out (no `transport`), so the transport reads them and never the
//! other way round.

mod cross;
mod fixed;
mod hostile;
mod transport_options;
mod workload;

use std::{sync::Arc, time::Duration};

use neqo_fc::{Config, ConfigError, ExcessTuner, Tuner, ValidConfig};

pub use self::{
    cross::{CROSS_BYTES, CrossTraffic},
    fixed::{Fixed, unlimited_windows},
    hostile::Hostile,
    transport_options::TransportOptions,
    workload::{ReaderSpeed, Stall, Workload, WorkloadKind},
};
use crate::{
    metrics::{Metrics, Sample},
    net::PathConfig,
    quic::cc::CcAlgorithm,
    trace::{TraceLevel, TraceRecord},
};

/// Everything that defines a run. Same `Scenario` (and seed) → same result.
#[derive(Clone)]
pub struct Scenario {
    /// Server → client path (the data direction).
    pub forward: PathConfig,
    /// Client → server path (ACKs, window updates).
    pub reverse: PathConfig,
    /// Application behaviour.
    pub workload: Workload,
    /// Flow-control settings (both ends advertise the same initial limits).
    pub fc: Config,
    /// Receive-window tuner used at the client (and server).
    pub tuner: Arc<dyn Tuner + Send + Sync>,
    /// Congestion control at the server.
    pub cc: CcAlgorithm,
    /// PRNG seed.
    pub seed: u64,
    /// Encode every packet to bytes, decode it, and check every payload byte.
    pub verify: bool,
    /// Trace recording.
    pub trace: TraceLevel,
    /// Stop the run at this simulated time even if not complete.
    pub time_limit: Duration,
    /// Time-series sampling interval (zero = pick from the path's RTT).
    pub sample_interval: Duration,
    /// Datagram size, ACK rate, pacing, send buffer (both ends).
    pub transport: TransportOptions,
    /// Scripted server misbehaviour (default `None`: a well-behaved peer).
    pub hostile: Option<Hostile>,
    /// A second connection sharing the path (default `None`: ours alone).
    pub cross: Option<CrossTraffic>,
}

impl std::fmt::Debug for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scenario")
            .field("forward", &self.forward)
            .field("reverse", &self.reverse)
            .field("workload", &self.workload)
            .field("fc", &self.fc)
            .field("cc", &self.cc)
            .field("seed", &self.seed)
            .field("hostile", &self.hostile)
            .field("cross", &self.cross)
            .finish_non_exhaustive()
    }
}

impl Scenario {
    /// A run over `forward` (mirrored for the reverse path without loss or
    /// jitter), with the default config and tuner, CUBIC, seed 1.
    #[must_use]
    pub fn new(forward: PathConfig, workload: Workload) -> Self {
        let fc = Config::default();
        let reverse = PathConfig {
            loss: crate::net::LossModel::None,
            jitter: Duration::ZERO,
            ..forward.clone()
        };
        Self {
            forward,
            reverse,
            workload,
            tuner: Arc::new(ExcessTuner::DEFAULT),
            fc,
            cc: CcAlgorithm::Cubic,
            seed: 1,
            verify: false,
            trace: TraceLevel::Off,
            time_limit: Duration::from_secs(3600),
            sample_interval: Duration::ZERO,
            transport: TransportOptions::DEFAULT,
            hostile: None,
            cross: None,
        }
    }
}

impl Scenario {
    /// The same run with flow control out of the way: every window as
    /// large as the stream limits allow ([`unlimited_windows`],
    /// more than any transfer) and a [`Fixed`] tuner, so only congestion
    /// control and the path limit the sender (the upper bound a tuner is
    /// measured against).
    #[must_use]
    pub fn unlimited_windows(mut self) -> Self {
        self.fc.max_streams_bidi = self.fc.max_streams_bidi.max(self.workload_streams());
        self.fc = unlimited_windows(self.fc);
        self.tuner = Arc::new(Fixed);
        self
    }

    fn workload_streams(&self) -> u64 {
        u64::from(self.workload.streams.max(1))
    }

    /// The flow-control settings both ends run with: [`Scenario::fc`],
    /// allowing enough bidirectional streams (`initial_max_streams_bidi`)
    /// for the workload's requests (the client opens one per stream at
    /// once).
    ///
    /// # Errors
    /// The [`ConfigError`] `validate` gives (a run with it records the
    /// error and simulates nothing).
    pub fn flow_control(&self) -> Result<ValidConfig, ConfigError> {
        Config {
            max_streams_bidi: self.fc.max_streams_bidi.max(self.workload_streams()),
            ..self.fc
        }
        .validate()
    }
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Summary numbers.
    pub metrics: Metrics,
    /// Sampled time series.
    pub series: Vec<Sample>,
    /// Recorded events (empty when tracing is off).
    pub trace: Vec<TraceRecord>,
}

#[cfg(test)]
mod tests {
    use neqo_fc::MAX_VARINT;

    use super::*;

    #[test]
    fn unlimited_windows_lifts_every_limit_and_keeps_the_rest() {
        let s = Scenario::new(PathConfig::gigabit(), Workload::bulk(1 << 20));
        let u = s.clone().unlimited_windows();
        let fc = u.flow_control().expect("valid");
        assert_eq!(fc.initial_connection_window, MAX_VARINT);
        assert_eq!(fc.max_connection_window, MAX_VARINT);
        // Every stream at once may hold its window: 2^62 / stream slots.
        let per_stream = MAX_VARINT / fc.max_open_streams();
        assert_eq!(fc.initial_stream_window, per_stream);
        assert_eq!(fc.max_stream_window, per_stream);
        assert!(per_stream > 1 << 50, "more than any transfer");
        assert_eq!((fc.seed_fraction, fc.budget), (None, None));
        assert_eq!(u.fc.update_fraction, s.fc.update_fraction);
        assert_eq!((u.seed, u.cc, u.workload), (s.seed, s.cc, s.workload));
    }
}
