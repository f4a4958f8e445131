//! The application side of a run: what the server sends on how many
//! streams ([`Workload`], [`WorkloadKind`]) and how the client reads it
//! ([`ReaderSpeed`], [`Stall`]).

use std::time::Duration;

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

impl Workload {
    /// `bytes` on one stream, written at time zero and read as soon as it
    /// arrives (set `streams` for the same on several).
    #[must_use]
    pub fn bulk(bytes: u64) -> Self {
        Self {
            kind: WorkloadKind::Bulk { bytes },
            streams: 1,
            reader: ReaderSpeed::Unlimited,
            stall: None,
        }
    }
}
