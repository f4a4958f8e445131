//! One simulated run: a path, a workload, flow-control settings and a
//! tuner in; metrics, time series and (optionally) a trace out.

use std::{sync::Arc, time::Duration};

use neqo_fc::{Config, Tuner};

use crate::{
    metrics::{Metrics, Sample},
    net::PathConfig,
    quic::cc::CcAlgorithm,
    trace::{TraceLevel, TraceRecord},
};

pub use crate::transport::hostile::Hostile;

/// How the client application reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReaderSpeed {
    /// Reads everything as soon as it is in order.
    Unlimited,
    /// Reads at most this many bits per second (all streams together).
    Rate(u64),
    /// Wakes every `period` (at multiples of it) and reads what has
    /// arrived, at most `bps × period` bytes per wake-up, all streams
    /// together; reads nothing between wake-ups. An application draining
    /// its socket on a timer (a media player's tick, a UI frame): the same
    /// average rate as [`ReaderSpeed::Rate`], in bursts.
    Periodic {
        /// Largest average read rate in bit/s.
        bps: u64,
        /// Time between wake-ups (> 0).
        period: Duration,
    },
}

/// A reader that stops reading some streams for a while (issue: many
/// streams, stalled readers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stall {
    /// How many streams (the last ones) stall.
    pub streams: u32,
    /// When the stall begins.
    pub start: Duration,
    /// How long it lasts; `Duration::MAX` = never resumes.
    pub duration: Duration,
}

impl Stall {
    /// True when the stalled readers never resume.
    #[must_use]
    pub fn permanent(&self) -> bool {
        self.start.checked_add(self.duration).is_none() || self.duration == Duration::MAX
    }
}

/// What the server sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkloadKind {
    /// `bytes` on each stream, all written at time zero.
    Bulk {
        /// Bytes per stream.
        bytes: u64,
    },
    /// `count` messages of `size` bytes on each stream, written at time zero
    /// (the receiver reads message boundaries as they complete).
    Messages {
        /// Messages per stream.
        count: u64,
        /// Bytes per message.
        size: u64,
    },
    /// Stream 0 carries `bulk` bytes, every other stream `each` bytes (one
    /// bulk transfer beside many smaller ones).
    BulkPlus {
        /// Bytes on stream 0.
        bulk: u64,
        /// Bytes on each other stream.
        each: u64,
    },
}

impl WorkloadKind {
    /// Bytes on stream 0 (on every stream, except for `BulkPlus`).
    #[must_use]
    pub fn bytes_per_stream(&self) -> u64 {
        self.stream_bytes(0)
    }

    /// Bytes on all `streams` streams together.
    #[must_use]
    pub fn total_bytes(&self, streams: u64) -> u64 {
        (0..streams).map(|i| self.stream_bytes(i)).sum()
    }

    /// Bytes on stream `index`.
    #[must_use]
    pub fn stream_bytes(&self, index: u64) -> u64 {
        match *self {
            Self::Bulk { bytes } => bytes,
            Self::Messages { count, size } => count.saturating_mul(size),
            Self::BulkPlus { bulk, each } => {
                if index == 0 {
                    bulk
                } else {
                    each
                }
            }
        }
    }
}

/// The application side of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Workload {
    /// Per-stream data.
    pub kind: WorkloadKind,
    /// Concurrent streams (≥ 1).
    pub streams: u32,
    /// Client read speed.
    pub reader: ReaderSpeed,
    /// Optional stalled readers.
    pub stall: Option<Stall>,
}

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

/// Runs one scenario to completion (or its time limit).
#[must_use]
pub fn run(scenario: &Scenario) -> RunResult {
    crate::transport::sim::Simulation::new(scenario).run()
}
