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

use neqo_fc::{Config, Fixed, MAX_VARINT, Tuner};

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

impl Scenario {
    /// The same run with flow control out of the way: every initial and
    /// maximum window at 2^62 − 1 and a [`Fixed`] tuner at that size, so
    /// only congestion control and the path limit the sender (the
    /// upper bound a tuner is measured against).
    #[must_use]
    pub fn unlimited_windows(mut self) -> Self {
        self.fc.initial_stream_window = MAX_VARINT;
        self.fc.initial_connection_window = MAX_VARINT;
        self.fc.max_stream_window = MAX_VARINT;
        self.fc.max_connection_window = MAX_VARINT;
        self.tuner = Arc::new(Fixed {
            stream: MAX_VARINT,
            connection: MAX_VARINT,
        });
        self
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
    use neqo_fc::{SubjectKind, Tuner as _};

    use super::*;

    #[test]
    fn unlimited_windows_lifts_every_limit_and_keeps_the_rest() {
        let s = Scenario::new(PathConfig::gigabit(), Workload::bulk(1 << 20));
        let u = s.clone().unlimited_windows();
        for w in [
            u.fc.initial_stream_window,
            u.fc.initial_connection_window,
            u.fc.max_stream_window,
            u.fc.max_connection_window,
            u.tuner.max_window(SubjectKind::Stream),
            u.tuner.max_window(SubjectKind::Connection),
        ] {
            assert_eq!(w, MAX_VARINT);
        }
        assert_eq!(u.fc.update_fraction, s.fc.update_fraction);
        assert_eq!((u.seed, u.cc, u.workload), (s.seed, s.cc, s.workload));
    }
}
