//! What the server sends and how the client reads: the workloads of the
//! default comparison matrix, and the resolved workload of one run.
//!
//! Matrix workloads (sizes per stream):
//! - `bulk`: one stream of [`bulk_bytes`] for the path (≈ 40 RTTs at link
//!   rate, clamped), long enough to reach steady state;
//! - `small-msgs`, `small-msgs-10`: 1000 × 4 KiB messages on 1 and on 10
//!   streams (rust-yamux's flow-control study);
//! - `large-msg`: one 10 MiB message (ditto), read as it arrives;
//! - `slow-reader`: a tenth of `bulk` (at least 8 MiB), read at 10 % of
//!   the link rate.

use neqo_fc_sim::scenario::{ReaderSpeed, Workload, WorkloadKind};

use crate::{format, profiles::PathSpec};

/// A workload of the default matrix, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MatrixWorkload {
    /// One stream, bulk transfer.
    Bulk,
    /// 1000 × 4 KiB on one stream.
    SmallMsgs,
    /// 1000 × 4 KiB on each of ten streams.
    SmallMsgs10,
    /// One 10 MiB message.
    LargeMsg,
    /// One stream read at 10 % of the link rate.
    SlowReader,
}

/// Smallest bulk transfer of the matrix.
pub const BULK_MIN_BYTES: u64 = 4 << 20;
/// Largest bulk transfer of the matrix.
pub const BULK_MAX_BYTES: u64 = 256 << 20;
/// Smallest slow-reader transfer: larger than every peer's initial window
/// (1 MiB), so a window that grows although the reader is slow shows up
/// as buffered memory.
pub const SLOW_READER_MIN_BYTES: u64 = 8 << 20;
/// RTTs' worth of data at link rate a bulk transfer aims for.
pub const BULK_RTTS: u64 = 40;

/// Bytes of the matrix's `bulk` workload on `path`: `BULK_RTTS × BDP`,
/// clamped to [`BULK_MIN_BYTES`, `BULK_MAX_BYTES`] and rounded up to a
/// whole MiB; a quarter of the clamped size (rounded up the same way)
/// when `quick`.
#[must_use]
pub fn bulk_bytes(path: &PathSpec, quick: bool) -> u64 {
    let target = path
        .bdp_bytes()
        .saturating_mul(BULK_RTTS)
        .clamp(BULK_MIN_BYTES, BULK_MAX_BYTES);
    let target = if quick { target / 4 } else { target };
    (target.div_ceil(1 << 20) << 20).max(1 << 20)
}

impl MatrixWorkload {
    /// Every matrix workload, in table order.
    pub const ALL: [Self; 5] = [
        Self::Bulk,
        Self::SmallMsgs,
        Self::SmallMsgs10,
        Self::LargeMsg,
        Self::SlowReader,
    ];

    /// The command-line name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Bulk => "bulk",
            Self::SmallMsgs => "small-msgs",
            Self::SmallMsgs10 => "small-msgs-10",
            Self::LargeMsg => "large-msg",
            Self::SlowReader => "slow-reader",
        }
    }

    /// The workload called `name`.
    #[must_use]
    pub fn find(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|w| w.name() == name)
    }

    /// All names, comma-separated.
    #[must_use]
    pub fn names() -> String {
        Self::ALL.map(Self::name).join(", ")
    }

    /// This workload on `path` (sizes depend on the path for `bulk` and
    /// `slow-reader`).
    #[must_use]
    pub fn on(self, path: &PathSpec, quick: bool) -> WorkloadSpec {
        let (kind, streams, reader) = match self {
            Self::Bulk => (
                WorkloadKind::Bulk {
                    bytes: bulk_bytes(path, quick),
                },
                1,
                ReaderSpeed::Unlimited,
            ),
            Self::SmallMsgs => (
                WorkloadKind::Messages {
                    count: 1000,
                    size: 4096,
                },
                1,
                ReaderSpeed::Unlimited,
            ),
            Self::SmallMsgs10 => (
                WorkloadKind::Messages {
                    count: 1000,
                    size: 4096,
                },
                10,
                ReaderSpeed::Unlimited,
            ),
            // The application reads it as it arrives, as a yamux or HTTP
            // reader does (the simulator's readers never wait for whole
            // messages, which would deadlock any window below 10 MiB).
            Self::LargeMsg => (
                WorkloadKind::Messages {
                    count: 1,
                    size: 10 << 20,
                },
                1,
                ReaderSpeed::Unlimited,
            ),
            Self::SlowReader => (
                WorkloadKind::Bulk {
                    bytes: (bulk_bytes(path, quick) / 10).max(SLOW_READER_MIN_BYTES),
                },
                1,
                ReaderSpeed::Rate((path.rate_bps / 10).max(1)),
            ),
        };
        WorkloadSpec {
            name: self.name().to_owned(),
            kind,
            streams,
            reader,
        }
    }
}

/// The application side of one run.
///
/// Invariant: `streams ≥ 1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkloadSpec {
    /// Matrix name, or `bulk` / `messages` for a workload given by flags.
    pub name: String,
    /// What each stream carries.
    pub kind: WorkloadKind,
    /// Concurrent streams.
    pub streams: u32,
    /// How fast the client reads (all streams together).
    pub reader: ReaderSpeed,
}

impl WorkloadSpec {
    /// The simulator's view.
    #[must_use]
    pub fn workload(&self) -> Workload {
        Workload {
            kind: self.kind,
            streams: self.streams.max(1),
            reader: self.reader,
            stall: None,
        }
    }

    /// Bytes over all streams.
    #[must_use]
    pub fn total_bytes(&self) -> u64 {
        // Stream 0 may differ (`BulkPlus`); every other stream is alike.
        let others = u64::from(self.streams.max(1) - 1);
        self.kind
            .stream_bytes(0)
            .saturating_add(self.kind.stream_bytes(1).saturating_mul(others))
    }

    /// One line: `bulk 128 MiB × 1 stream`, `1000 × 4 KiB × 10 streams,
    /// reader 100 Mbit/s`.
    #[must_use]
    pub fn summary(&self) -> String {
        let what = match self.kind {
            WorkloadKind::Bulk { bytes } => format::bytes(bytes),
            WorkloadKind::Messages { count, size } => {
                format!("{count} x {}", format::bytes(size))
            }
            WorkloadKind::BulkPlus { bulk, each } => format!(
                "{} on stream 0, {} on each other",
                format::bytes(bulk),
                format::bytes(each)
            ),
        };
        let streams = if self.streams == 1 {
            "1 stream".to_owned()
        } else {
            format!("{} streams", self.streams)
        };
        let mut s = format!("{} ({what} on {streams}", self.name);
        if let ReaderSpeed::Rate(bps) = self.reader {
            #[allow(clippy::cast_precision_loss)]
            s.push_str(&format!(", reader {}", format::rate(bps as f64)));
        }
        s.push(')');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiles::find;

    #[test]
    fn bulk_sizes_per_path() {
        // 40 × 6.25 MB = 250 MB → 239 MiB (rounded up to whole MiB).
        assert_eq!(
            bulk_bytes(&find("gbit-50ms").unwrap().path(), false),
            239 << 20
        );
        // 40 × 125 MB → clamped to 256 MiB.
        assert_eq!(
            bulk_bytes(&find("long-fat").unwrap().path(), false),
            256 << 20
        );
        // 40 × 500 kB = 20 MB → 20 MiB (rounded up to whole MiB).
        assert_eq!(
            bulk_bytes(&find("residential-cable").unwrap().path(), false),
            20 << 20
        );
        // 40 × 12.5 kB = 500 kB → clamped up to 4 MiB.
        assert_eq!(
            bulk_bytes(&find("gbit-lan").unwrap().path(), false),
            4 << 20
        );
        assert_eq!(bulk_bytes(&find("gbit-lan").unwrap().path(), true), 1 << 20);
        assert_eq!(
            bulk_bytes(&find("gbit-50ms").unwrap().path(), true),
            60 << 20
        );
    }

    #[test]
    fn totals_count_every_stream() {
        let w = |kind, streams| WorkloadSpec {
            name: "x".into(),
            kind,
            streams,
            reader: ReaderSpeed::Unlimited,
        };
        assert_eq!(w(WorkloadKind::Bulk { bytes: 7 }, 3).total_bytes(), 21);
        assert_eq!(
            w(WorkloadKind::BulkPlus { bulk: 100, each: 5 }, 4).total_bytes(),
            115
        );
        assert_eq!(
            w(WorkloadKind::BulkPlus { bulk: 100, each: 5 }, 1).total_bytes(),
            100
        );
        assert_eq!(
            w(WorkloadKind::Messages { count: 3, size: 2 }, 2).total_bytes(),
            12
        );
    }

    #[test]
    fn matrix_workloads() {
        let path = find("gbit-50ms").unwrap().path();
        let w = MatrixWorkload::SmallMsgs10.on(&path, false);
        assert_eq!(w.streams, 10);
        assert_eq!(w.total_bytes(), 10 * 1000 * 4096);
        let slow = MatrixWorkload::SlowReader.on(&path, false);
        assert_eq!(slow.reader, ReaderSpeed::Rate(100_000_000));
        assert_eq!(slow.total_bytes(), (239 << 20) / 10);
        assert_eq!(
            MatrixWorkload::LargeMsg.on(&path, false).total_bytes(),
            10 << 20
        );
        for w in MatrixWorkload::ALL {
            assert_eq!(MatrixWorkload::find(w.name()), Some(w));
        }
        assert_eq!(MatrixWorkload::find("bulky"), None);
        assert_eq!(w.summary(), "small-msgs-10 (1000 x 4 KiB on 10 streams)");
        assert_eq!(
            slow.summary(),
            "slow-reader (23.9 MiB on 1 stream, reader 100 Mbit/s)"
        );
    }
}
