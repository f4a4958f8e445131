//! What the server sends and how the client reads: the named workloads of
//! the comparison matrix ([`MatrixWorkload`], sized for a path by
//! [`MatrixWorkload::on`]) and the resolved workload of one run
//! ([`WorkloadSpec`]).

use std::time::Duration;

use neqo_fc_sim::scenario::{ReaderSpeed, Stall, Workload, WorkloadKind};

use crate::{format, profiles::PathSpec, stall::DEFAULT_STALL_START};

/// What each stream carries, in words: `128 MiB`, `1000 x 4 KiB`,
/// `32 MiB on stream 0, 4 MiB on each other`.
#[must_use]
pub fn kind_words(kind: &WorkloadKind) -> String {
    match *kind {
        WorkloadKind::Bulk { bytes } => format::bytes(bytes),
        WorkloadKind::Messages { count, size } => format!("{count} x {}", format::bytes(size)),
        WorkloadKind::BulkPlus { bulk, each } => format!(
            "{} on stream 0, {} on each other",
            format::bytes(bulk),
            format::bytes(each)
        ),
    }
}

/// A workload of the default matrix, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MatrixWorkload {
    /// One stream of [`bulk_bytes`]: long enough to reach steady state.
    Bulk,
    /// 1000 × 4 KiB on one stream (rust-yamux's flow-control study).
    SmallMsgs,
    /// 1000 × 4 KiB on each of ten streams.
    SmallMsgs10,
    /// One 10 MiB message.
    LargeMsg,
    /// One stream read at 10 % of the link rate.
    SlowReader,
    /// Half of `bulk`, read by an application that wakes every two RTTs
    /// and takes what arrived, at most half the link rate (a media player's
    /// tick, a UI frame).
    TimerReader,
    /// 100 streams × 1 MiB.
    Many100,
    /// 1,000 streams × 64 KiB.
    Many1000,
    /// One bulk stream and 50 × 1 MiB whose readers stall for 2 s at 1 s.
    StallMix,
    /// 10 streams; the last one's reader stops at 1 s for good.
    StopReading,
}

/// Smallest bulk transfer of the matrix.
pub const BULK_MIN_BYTES: u64 = 4 << 20;
/// Largest bulk transfer of the matrix.
pub const BULK_MAX_BYTES: u64 = 256 << 20;
/// Smallest slow-reader transfer: larger than every peer's initial window
/// (1 MiB), so a window that grows although the reader is slow shows up
/// as buffered memory.
pub const SLOW_READER_MIN_BYTES: u64 = 8 << 20;
/// The `timer-reader` wake-up interval: two RTTs, within 1 ms..1 s.
#[must_use]
pub fn timer_reader_period(path: &PathSpec) -> Duration {
    (path.rtt * 2).clamp(Duration::from_millis(1), Duration::from_secs(1))
}

/// RTTs' worth of data at link rate a bulk transfer aims for.
pub const BULK_RTTS: u64 = 40;
/// Streams whose readers stall in `stall-mix` (beside one bulk stream).
pub const STALL_MIX_STREAMS: u32 = 50;
/// Bytes on each stalling stream of `stall-mix`.
pub const STALL_MIX_EACH_BYTES: u64 = 1 << 20;
/// How long the `stall-mix` readers stall.
pub const STALL_MIX_DURATION: Duration = Duration::from_secs(2);
/// Streams of `stop-reading`.
pub const STOP_READING_STREAMS: u32 = 10;
/// Smallest per-stream size of `stop-reading`.
pub const STOP_READING_MIN_BYTES: u64 = 4 << 20;

/// Bytes the link carries in `secs` seconds, rounded up to a whole MiB
/// (at least 1 MiB).
fn link_bytes(path: &PathSpec, secs: u64) -> u64 {
    let bytes = (path.rate_bps / 8).saturating_mul(secs);
    (bytes.div_ceil(1 << 20) << 20).max(1 << 20)
}

/// Bytes on the bulk stream of `stall-mix`: the link rate for the stall's
/// start + duration + 1 s (4 s), so the stream keeps the link busy until
/// after the stalled readers resume and the stall goodput measures it.
#[must_use]
pub fn stall_mix_bulk_bytes(path: &PathSpec) -> u64 {
    link_bytes(
        path,
        (DEFAULT_STALL_START + STALL_MIX_DURATION).as_secs() + 1,
    )
}

/// Bytes on each stream of `stop-reading`: the link rate for 3 s over its
/// ten streams, rounded up to a whole MiB and at least
/// [`STOP_READING_MIN_BYTES`], so the others keep reading for about 2 s
/// after one stops.
#[must_use]
pub fn stop_reading_bytes(path: &PathSpec) -> u64 {
    let per_stream = link_bytes(path, 3) / u64::from(STOP_READING_STREAMS);
    (per_stream.div_ceil(1 << 20) << 20).max(STOP_READING_MIN_BYTES)
}

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
    /// The workloads of the main matrix, in table order.
    pub const CLASSIC: [Self; 6] = [
        Self::Bulk,
        Self::SmallMsgs,
        Self::SmallMsgs10,
        Self::LargeMsg,
        Self::SlowReader,
        Self::TimerReader,
    ];

    /// The workloads of the many-streams section, in table order.
    pub const MANY_STREAMS: [Self; 4] = [
        Self::Many100,
        Self::Many1000,
        Self::StallMix,
        Self::StopReading,
    ];

    /// Every named workload: [`Self::CLASSIC`] then [`Self::MANY_STREAMS`].
    pub const ALL: [Self; 10] = [
        Self::Bulk,
        Self::SmallMsgs,
        Self::SmallMsgs10,
        Self::LargeMsg,
        Self::SlowReader,
        Self::TimerReader,
        Self::Many100,
        Self::Many1000,
        Self::StallMix,
        Self::StopReading,
    ];

    /// True for the workloads of the many-streams section.
    #[must_use]
    pub const fn is_many_streams(self) -> bool {
        matches!(
            self,
            Self::Many100 | Self::Many1000 | Self::StallMix | Self::StopReading
        )
    }

    /// The command-line name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Bulk => "bulk",
            Self::SmallMsgs => "small-msgs",
            Self::SmallMsgs10 => "small-msgs-10",
            Self::LargeMsg => "large-msg",
            Self::SlowReader => "slow-reader",
            Self::TimerReader => "timer-reader",
            Self::Many100 => "many-100",
            Self::Many1000 => "many-1000",
            Self::StallMix => "stall-mix",
            Self::StopReading => "stop-reading",
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

    /// This workload on `path` (sizes depend on the path for `bulk`,
    /// `slow-reader`, `stall-mix` and `stop-reading`; `quick` shortens
    /// `bulk` and `slow-reader` only).
    #[must_use]
    pub fn on(self, path: &PathSpec, quick: bool) -> WorkloadSpec {
        use ReaderSpeed::Unlimited;
        let bulk = |bytes| WorkloadKind::Bulk { bytes };
        let msgs = |count, size| WorkloadKind::Messages { count, size };
        let stall = |streams, duration| {
            Some(Stall {
                streams,
                start: DEFAULT_STALL_START,
                duration,
            })
        };
        let (kind, streams, reader, stall) = match self {
            Self::Bulk => (bulk(bulk_bytes(path, quick)), 1, Unlimited, None),
            Self::SmallMsgs => (msgs(1000, 4096), 1, Unlimited, None),
            Self::SmallMsgs10 => (msgs(1000, 4096), 10, Unlimited, None),
            // Read as it arrives, as a yamux or HTTP reader does (the
            // simulator's readers never wait for whole messages, which would
            // deadlock any window below 10 MiB).
            Self::LargeMsg => (msgs(1, 10 << 20), 1, Unlimited, None),
            Self::SlowReader => {
                let bytes = (bulk_bytes(path, quick) / 10).max(SLOW_READER_MIN_BYTES);
                let reader = ReaderSpeed::Rate((path.rate_bps / 10).max(1));
                (bulk(bytes), 1, reader, None)
            }
            Self::TimerReader => {
                let bytes = (bulk_bytes(path, quick) / 2).max(1 << 20);
                let bps = (path.rate_bps / 2).max(1);
                let period = timer_reader_period(path);
                (bulk(bytes), 1, ReaderSpeed::Periodic { bps, period }, None)
            }
            Self::Many100 => (bulk(1 << 20), 100, Unlimited, None),
            Self::Many1000 => (bulk(64 << 10), 1000, Unlimited, None),
            Self::StallMix => {
                let (bulk, each) = (stall_mix_bulk_bytes(path), STALL_MIX_EACH_BYTES);
                let kind = WorkloadKind::BulkPlus { bulk, each };
                let stall = stall(STALL_MIX_STREAMS, STALL_MIX_DURATION);
                (kind, STALL_MIX_STREAMS + 1, Unlimited, stall)
            }
            Self::StopReading => {
                let stall = stall(1, Duration::MAX);
                let bytes = stop_reading_bytes(path);
                (bulk(bytes), STOP_READING_STREAMS, Unlimited, stall)
            }
        };
        WorkloadSpec {
            name: self.name().to_owned(),
            kind,
            streams,
            reader,
            stall,
        }
    }
}

/// The application side of one run.
///
/// Invariants: `streams ≥ 1`; a stall covers at most `streams` streams
/// (checked where flags are read).
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
    /// Readers of the last streams that stop for a while or for good.
    pub stall: Option<Stall>,
}

impl WorkloadSpec {
    /// The simulator's view.
    #[must_use]
    pub fn workload(&self) -> Workload {
        Workload {
            kind: self.kind,
            streams: self.streams.max(1),
            reader: self.reader,
            stall: self.stall,
        }
    }

    /// The same workload under another name (flags that spell out a
    /// matrix workload).
    #[must_use]
    pub fn renamed(mut self, name: &str) -> Self {
        name.clone_into(&mut self.name);
        self
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

    /// One line: `bulk (128 MiB on 1 stream)`, `small-msgs-10 (1000 x 4 KiB
    /// on 10 streams, reader 100 Mbit/s)`, `stop-reading (36 MiB on 10
    /// streams, the last stream stops reading at 1 s for good)`.
    #[must_use]
    pub fn summary(&self) -> String {
        let what = kind_words(&self.kind);
        let streams = if self.streams == 1 {
            "1 stream".to_owned()
        } else {
            format!("{} streams", self.streams)
        };
        let mut s = format!("{} ({what} on {streams}", self.name);
        match self.reader {
            ReaderSpeed::Unlimited => {}
            #[allow(clippy::cast_precision_loss)]
            ReaderSpeed::Rate(bps) => s.push_str(&format!(", reader {}", format::rate(bps as f64))),
            #[allow(clippy::cast_precision_loss)]
            ReaderSpeed::Periodic { bps, period } => s.push_str(&format!(
                ", reader {} every {}",
                format::rate(bps as f64),
                format::duration(period)
            )),
        }
        if let Some(stall) = &self.stall {
            s.push_str(", ");
            s.push_str(&crate::stall::describe(stall));
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
            stall: None,
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
            assert_eq!(
                w.is_many_streams(),
                MatrixWorkload::MANY_STREAMS.contains(&w)
            );
            assert_eq!(!w.is_many_streams(), MatrixWorkload::CLASSIC.contains(&w));
        }
        assert_eq!(MatrixWorkload::find("bulky"), None);
        assert_eq!(w.summary(), "small-msgs-10 (1000 x 4 KiB on 10 streams)");
        assert_eq!(
            slow.summary(),
            "slow-reader (23.9 MiB on 1 stream, reader 100 Mbit/s)"
        );
        let timer = MatrixWorkload::TimerReader.on(&path, false);
        assert_eq!(
            timer.reader,
            ReaderSpeed::Periodic {
                bps: path.rate_bps / 2,
                period: path.rtt * 2
            }
        );
        assert_eq!(timer.total_bytes(), bulk_bytes(&path, false) / 2);
    }

    #[test]
    fn many_streams_workloads() {
        let gbit = find("gbit-50ms").unwrap().path();
        let cable = find("residential-cable").unwrap().path();

        let w = MatrixWorkload::Many100.on(&gbit, true);
        assert_eq!((w.streams, w.total_bytes()), (100, 100 << 20));
        assert_eq!(w.stall, None);
        assert_eq!(w.workload().streams, 100);
        let w = MatrixWorkload::Many1000.on(&cable, false);
        assert_eq!((w.streams, w.total_bytes()), (1000, 1000 * (64 << 10)));

        // 4 s at 1 Gbit/s = 500 MB → 477 MiB (rounded up); 100 MB → 96 MiB.
        assert_eq!(stall_mix_bulk_bytes(&gbit), 477 << 20);
        assert_eq!(stall_mix_bulk_bytes(&cable), 96 << 20);
        let mix = MatrixWorkload::StallMix.on(&gbit, false);
        assert_eq!(mix.streams, 51);
        assert_eq!(
            mix.kind,
            WorkloadKind::BulkPlus {
                bulk: 477 << 20,
                each: 1 << 20
            }
        );
        assert_eq!(mix.total_bytes(), (477 << 20) + 50 * (1 << 20));
        let stall = mix.stall.unwrap();
        assert_eq!(
            (stall.streams, stall.start, stall.duration),
            (50, Duration::from_secs(1), Duration::from_secs(2))
        );
        assert_eq!(mix.workload().stall, mix.stall);
        assert_eq!(
            mix.summary(),
            "stall-mix (477 MiB on stream 0, 1 MiB on each other on 51 streams, \
             the last 50 streams stop reading at 1 s for 2 s)"
        );

        // 3 s at 1 Gbit/s = 375 MB → 358 MiB / 10 → 36 MiB per stream;
        // 75 MB → 72 MiB / 10 → 8 MiB; a slow path gets the 4 MiB floor.
        assert_eq!(stop_reading_bytes(&gbit), 36 << 20);
        assert_eq!(stop_reading_bytes(&cable), 8 << 20);
        let dsl = find("residential-dsl").unwrap().path();
        assert_eq!(stop_reading_bytes(&dsl), 4 << 20);
        let stop = MatrixWorkload::StopReading.on(&gbit, true);
        assert_eq!((stop.streams, stop.total_bytes()), (10, 360 << 20));
        let stall = stop.stall.unwrap();
        assert!(stall.permanent());
        assert_eq!((stall.streams, stall.start), (1, Duration::from_secs(1)));
    }
}
