//! What one simulated run is: a path, a workload, flow-control settings
//! and a tuner in ([`Scenario`]); metrics, time series and (optionally) a
//! trace out ([`RunResult`]). [`crate::run`] runs it.
//!
//! A leaf: these types describe a run and depend on nothing that carries
//! one out (no `transport`), so the transport reads them and never the
//! other way round.

mod hostile;
mod workload;

use std::{sync::Arc, time::Duration};

use neqo_fc::{Config, Tuner};

pub use self::{
    hostile::Hostile,
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
    /// Largest UDP payload (default 1500).
    pub max_datagram_size: u32,
    /// ACK every this many ack-eliciting packets (default 2).
    pub ack_ratio: u32,
    /// `max_ack_delay` (default 25 ms).
    pub max_ack_delay: Duration,
    /// Scripted server misbehaviour (default `None`: a well-behaved peer).
    pub hostile: Option<Hostile>,
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
            tuner: Arc::new(fc.tuner()),
            fc,
            cc: CcAlgorithm::Cubic,
            seed: 1,
            verify: false,
            trace: TraceLevel::Off,
            time_limit: Duration::from_secs(3600),
            sample_interval: Duration::ZERO,
            max_datagram_size: 1500,
            ack_ratio: 2,
            max_ack_delay: Duration::from_millis(25),
            hostile: None,
        }
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
