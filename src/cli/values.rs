//! How each flag value is read: names from fixed sets (profiles,
//! workloads, tuners) and the ranged numbers, sizes and durations built on
//! [`crate::units`]. A bad value becomes one line naming what was expected.

use std::{ops::RangeInclusive, time::Duration};

use neqo_fc_sim::scenario::{CrossTraffic, Stall};

use crate::{
    profiles::{self, Profile},
    stall::parse_stall,
    tuners::TunerChoice,
    units::{self, UnitError},
    workloads::MatrixWorkload,
};

/// A flag value that is not one of a fixed set of names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError(pub String);

impl std::fmt::Display for ArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgError {}

pub(super) fn profile_arg(s: &str) -> Result<&'static Profile, ArgError> {
    profiles::find(s).ok_or_else(|| {
        ArgError(format!(
            "expected a profile name ({}), got {s:?}",
            profiles::names()
        ))
    })
}

pub(super) fn workload_arg(s: &str) -> Result<MatrixWorkload, ArgError> {
    MatrixWorkload::find(s).ok_or_else(|| {
        ArgError(format!(
            "expected a workload name ({}), got {s:?}",
            MatrixWorkload::names()
        ))
    })
}

pub(super) fn tuner_arg(s: &str) -> Result<TunerChoice, ArgError> {
    TunerChoice::parse(s).map_err(ArgError)
}

pub(super) fn unit_err(expected: &'static str, s: &str) -> UnitError {
    UnitError {
        expected,
        got: s.to_owned(),
    }
}

pub(super) fn rtt_arg(s: &str) -> Result<Duration, UnitError> {
    const E: &str = "a positive duration like 50ms, 100us or 1s (ns, us, ms, s)";
    const LONG: &str = "an RTT of at most 3600s (one hour)";
    match units::parse_duration(s) {
        Ok(d) if !d.is_zero() && d <= Duration::from_secs(3600) => Ok(d),
        Ok(d) if !d.is_zero() => Err(unit_err(LONG, s)),
        _ => Err(unit_err(E, s)),
    }
}

/// The fastest rate a flag accepts: 1 Tbit/s. The simulator clocks a
/// datagram onto the link in whole nanoseconds (12.2 ns for 1,528 bytes
/// on the wire at 1 Tbit/s, rounded up to 13); far above it every
/// datagram would take the 1 ns minimum and the link would not run at the
/// rate given.
pub const MAX_RATE_BPS: u64 = 1_000_000_000_000;

/// A link rate: as [`units::parse_rate`], with a unit required (`50` alone
/// would be 50 bit/s, almost never what was meant), at most
/// [`MAX_RATE_BPS`].
pub(super) fn rate_arg(s: &str) -> Result<u64, UnitError> {
    const E: &str = "a rate with its unit like 1Gbit, 20Mbit or 512kbit (bit/s; also 1Gbps)";
    const FAST: &str = "a rate of at most 1Tbit (the simulator clocks datagrams in whole \
         nanoseconds; faster links are not simulated)";
    let rate = units::parse_rate(s)?;
    if !s.chars().any(|c| c.is_ascii_alphabetic()) {
        Err(unit_err(E, s))
    } else if rate > MAX_RATE_BPS {
        Err(unit_err(FAST, s))
    } else {
        Ok(rate)
    }
}

/// A PRNG seed: a whole number that fits in 64 bits.
pub(super) fn seed_arg(s: &str) -> Result<u64, UnitError> {
    const BIG: &str = "a seed of at most 18446744073709551615 (2^64 - 1)";
    let t: String = s.trim().chars().filter(|&c| c != '_').collect();
    match units::parse_count(s) {
        Ok(n) => Ok(n),
        Err(_) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => Err(unit_err(BIG, s)),
        Err(e) => Err(e),
    }
}

/// The file `--plot` writes: an SVG, so its name ends in `.svg`.
pub(super) fn plot_arg(s: &str) -> Result<std::path::PathBuf, ArgError> {
    let path = std::path::PathBuf::from(s);
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("svg") => Ok(path),
        _ => Err(ArgError(format!(
            "expected a file name ending in .svg (the plot is SVG), got {s:?}"
        ))),
    }
}

/// The folder `--qlog` writes one trace per endpoint into; a name ending in
/// `.qlog`, `.sqlog` or `.json`, or an existing file, is taken for a file
/// name by mistake.
pub(super) fn qlog_dir_arg(s: &str) -> Result<std::path::PathBuf, ArgError> {
    let path = std::path::PathBuf::from(s);
    let file_like = path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["qlog", "sqlog", "json"]
            .iter()
            .any(|x| e.eq_ignore_ascii_case(x))
    });
    if file_like || path.is_file() {
        return Err(ArgError(format!(
            "expected a folder (one trace per endpoint is written into it), got {s:?}"
        )));
    }
    Ok(path)
}

/// `parse(s)` as a `T` in `range`, or an error saying `expected`.
fn in_range<N, T: TryFrom<N> + PartialOrd>(
    parse: fn(&str) -> Result<N, UnitError>,
    s: &str,
    expected: &'static str,
    range: RangeInclusive<T>,
) -> Result<T, UnitError> {
    parse(s)
        .ok()
        .and_then(|n| T::try_from(n).ok())
        .filter(|n| range.contains(n))
        .ok_or_else(|| unit_err(expected, s))
}

pub(super) fn jitter_arg(s: &str) -> Result<Duration, UnitError> {
    const E: &str = "a duration up to 10s like 5ms, 100us or 0ms (ns, us, ms, s)";
    let range = Duration::ZERO..=Duration::from_secs(10);
    in_range(units::parse_duration, s, E, range)
}

/// How far apart the two connections of `--cross` may start.
const MAX_CROSS_OFFSET: Duration = Duration::from_secs(600);

/// `--cross`: `first[:LEAD]` (default 3s) or `second[:AFTER]` (default 2s).
pub(super) fn cross_arg(s: &str) -> Result<CrossTraffic, UnitError> {
    const E: &str = "first[:LEAD] or second[:AFTER] with a duration up to 600s, \
         like first, first:3s or second:500ms";
    let (order, offset) = s.split_once(':').map_or((s, None), |(o, d)| (o, Some(d)));
    let offset = match offset {
        None => None,
        Some(d) => Some(
            units::parse_duration(d)
                .ok()
                .filter(|d| *d <= MAX_CROSS_OFFSET)
                .ok_or_else(|| unit_err(E, s))?,
        ),
    };
    match order {
        "first" => Ok(CrossTraffic::First {
            lead: offset.unwrap_or(Duration::from_secs(3)),
        }),
        "second" => Ok(CrossTraffic::Second {
            after: offset.unwrap_or(Duration::from_secs(2)),
        }),
        _ => Err(unit_err(E, s)),
    }
}

pub(super) fn time_limit_arg(s: &str) -> Result<Duration, UnitError> {
    const E: &str = "a positive duration like 10s or 500ms (ns, us, ms, s)";
    let range = Duration::from_nanos(1)..=Duration::MAX;
    in_range(units::parse_duration, s, E, range)
}

pub(super) fn max_wall_arg(s: &str) -> Result<Duration, UnitError> {
    const E: &str = "a positive wall-clock duration like 60s or 500ms (ns, us, ms, s)";
    let range = Duration::from_nanos(1)..=Duration::MAX;
    in_range(units::parse_duration, s, E, range)
}

pub(super) fn reader_period_arg(s: &str) -> Result<Duration, UnitError> {
    const E: &str = "a duration from 1us to 10s like 20ms (ns, us, ms, s)";
    let range = Duration::from_micros(1)..=Duration::from_secs(10);
    in_range(units::parse_duration, s, E, range)
}

pub(super) fn positive_size_arg(s: &str) -> Result<u64, UnitError> {
    const E: &str = "a positive size like 1GiB, 4096 or 500KB \
         (KB/MB/GB/TB/PB = 1000^n, KiB/MiB/GiB/TiB/PiB = 1024^n)";
    const BIG: &str = "a size of at most 2^62 - 1 bytes (4 EiB, the largest QUIC stream offset)";
    match units::parse_size(s) {
        Ok(n) if n > 0 && n <= neqo_fc::MAX_VARINT => Ok(n),
        Ok(n) if n > 0 => Err(unit_err(BIG, s)),
        Err(_) if units::size_too_large(s) => Err(unit_err(BIG, s)),
        _ => Err(unit_err(E, s)),
    }
}

pub(super) fn overhead_arg(s: &str) -> Result<u32, UnitError> {
    const E: &str = "a byte count in 0..=65535 like 28 or 80";
    in_range(units::parse_size, s, E, 0..=65_535)
}

pub(super) fn messages_arg(s: &str) -> Result<u64, UnitError> {
    const E: &str = "a whole number ≥ 1 like 1000";
    in_range(units::parse_count, s, E, 1..=u64::MAX)
}

/// Most streams one run may open.
pub const MAX_STREAMS: u32 = 10_000;

pub(super) fn streams_arg(s: &str) -> Result<u32, UnitError> {
    const E: &str = "a stream count in 1..=10000 like 1 or 10";
    in_range(units::parse_count, s, E, 1..=MAX_STREAMS)
}

pub(super) fn stall_arg(s: &str) -> Result<Stall, UnitError> {
    parse_stall(s)
}

/// `--threads`: a worker count in 1..=1024.
pub fn threads_arg(s: &str) -> Result<usize, UnitError> {
    const E: &str = "a thread count in 1..=1024 like 2";
    in_range(units::parse_count, s, E, 1..=1024)
}

pub(super) fn random_seeds_arg(s: &str) -> Result<u64, UnitError> {
    const E: &str = "a seed count in 1..=100 like 5";
    in_range(units::parse_count, s, E, 1..=100)
}

/// Most seeds one sweep may run.
pub const MAX_SWEEP_SEEDS: u64 = 10_000_000;

pub(super) fn seeds_arg(s: &str) -> Result<u64, UnitError> {
    const E: &str = "a seed count in 1..=10000000 like 1000";
    in_range(units::parse_count, s, E, 1..=MAX_SWEEP_SEEDS)
}

pub(super) fn datagram_size_arg(s: &str) -> Result<u32, UnitError> {
    const E: &str = "a datagram size in 1200..=65527 bytes like 1252 or 1500";
    in_range(units::parse_size, s, E, 1200..=65_527)
}

pub(super) fn ack_ratio_arg(s: &str) -> Result<u32, UnitError> {
    const E: &str = "a packet count in 1..=1000 like 2 or 256";
    in_range(units::parse_count, s, E, 1..=1000)
}

pub(super) fn max_ack_delay_arg(s: &str) -> Result<Duration, UnitError> {
    const E: &str = "a duration from 1ms to 1s like 25ms (ns, us, ms, s)";
    let range = Duration::from_millis(1)..=Duration::from_secs(1);
    in_range(units::parse_duration, s, E, range)
}

/// `--send-buffer`: bytes, or `None` for `none` (no limit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SendBuffer(pub Option<u64>);

pub(super) fn send_buffer_arg(s: &str) -> Result<SendBuffer, UnitError> {
    const E: &str = "none or a size from 1500 bytes to 2^62 - 1 like 10MiB";
    if s == "none" {
        return Ok(SendBuffer(None));
    }
    let size = in_range(units::parse_size, s, E, 1500..=neqo_fc::MAX_VARINT)?;
    Ok(SendBuffer(Some(size)))
}
