//! The command line: `fc-lab run`, `fc-lab compare`, `fc-lab profiles`,
//! `fc-lab sweep`.
//!
//! clap parses the structure; every value goes through the parsers in
//! [`crate::units`] so that a bad value produces exactly one line,
//! `error: --flag: expected …, got "…"`, and exit code 2. Nothing here
//! panics on any input: output goes through fallible writes (a closed pipe
//! ends the program quietly).

use std::{
    ffi::OsString,
    io::{IsTerminal, Write},
    path::PathBuf,
    time::{Duration, Instant},
};

use clap::{
    Args, Parser, Subcommand, ValueEnum,
    error::{ContextKind, ContextValue, ErrorKind},
};
use neqo_fc::Fraction;
use neqo_fc_sim::{
    quic::cc::CcAlgorithm,
    scenario::{ReaderSpeed, Stall, WorkloadKind},
    trace::TraceLevel,
};

use crate::{
    compare::{self, Matrix},
    error::LabError,
    execute::execute,
    format,
    profiles::{self, PROFILES, PathSpec, Profile},
    report::RunReport,
    spec::RunSpec,
    stall::parse_stall,
    table::{Align, Table},
    tuners::{Overrides, TUNER_EXPECTED, TunerChoice, TunerSpec},
    units::{self, QueueSpec, UnitError},
    workloads::{MatrixWorkload, WorkloadSpec},
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

fn profile_arg(s: &str) -> Result<&'static Profile, ArgError> {
    profiles::find(s).ok_or_else(|| {
        ArgError(format!(
            "expected a profile name ({}), got {s:?}",
            profiles::names()
        ))
    })
}

fn workload_arg(s: &str) -> Result<MatrixWorkload, ArgError> {
    MatrixWorkload::find(s).ok_or_else(|| {
        ArgError(format!(
            "expected a workload name ({}), got {s:?}",
            MatrixWorkload::names()
        ))
    })
}

fn tuner_arg(s: &str) -> Result<TunerChoice, ArgError> {
    TunerChoice::parse(s).map_err(ArgError)
}

fn unit_err(expected: &'static str, s: &str) -> UnitError {
    UnitError {
        expected,
        got: s.to_owned(),
    }
}

fn rtt_arg(s: &str) -> Result<Duration, UnitError> {
    const E: &str = "a positive duration like 50ms, 100us or 1s (ns, us, ms, s)";
    match units::parse_duration(s) {
        Ok(d) if !d.is_zero() && d <= Duration::from_secs(3600) => Ok(d),
        _ => Err(unit_err(E, s)),
    }
}

fn jitter_arg(s: &str) -> Result<Duration, UnitError> {
    const E: &str = "a duration up to 10s like 5ms, 100us or 0ms (ns, us, ms, s)";
    match units::parse_duration(s) {
        Ok(d) if d <= Duration::from_secs(10) => Ok(d),
        _ => Err(unit_err(E, s)),
    }
}

fn time_limit_arg(s: &str) -> Result<Duration, UnitError> {
    const E: &str = "a positive duration like 10s or 500ms (ns, us, ms, s)";
    match units::parse_duration(s) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => Err(unit_err(E, s)),
    }
}

fn reader_period_arg(s: &str) -> Result<Duration, UnitError> {
    const E: &str = "a duration from 1us to 10s like 20ms (ns, us, ms, s)";
    match units::parse_duration(s) {
        Ok(d) if d >= Duration::from_micros(1) && d <= Duration::from_secs(10) => Ok(d),
        _ => Err(unit_err(E, s)),
    }
}

fn positive_size_arg(s: &str) -> Result<u64, UnitError> {
    const E: &str =
        "a positive size like 1GiB, 4096 or 500KB (KB/MB/GB = 1000^n, KiB/MiB/GiB = 1024^n)";
    match units::parse_size(s) {
        Ok(n) if n > 0 && n <= neqo_fc::MAX_VARINT => Ok(n),
        _ => Err(unit_err(E, s)),
    }
}

fn overhead_arg(s: &str) -> Result<u32, UnitError> {
    const E: &str = "a byte count in 0..=65535 like 28 or 80";
    units::parse_size(s)
        .ok()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|&n| n <= 65_535)
        .ok_or_else(|| unit_err(E, s))
}

fn messages_arg(s: &str) -> Result<u64, UnitError> {
    const E: &str = "a whole number ≥ 1 like 1000";
    units::parse_count(s)
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| unit_err(E, s))
}

/// Most streams one run may open.
pub const MAX_STREAMS: u32 = 10_000;

fn streams_arg(s: &str) -> Result<u32, UnitError> {
    const E: &str = "a stream count in 1..=10000 like 1 or 10";
    units::parse_count(s)
        .ok()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| (1..=MAX_STREAMS).contains(n))
        .ok_or_else(|| unit_err(E, s))
}

fn stall_arg(s: &str) -> Result<Stall, UnitError> {
    parse_stall(s)
}

fn threads_arg(s: &str) -> Result<usize, UnitError> {
    const E: &str = "a thread count in 1..=1024 like 2";
    units::parse_count(s)
        .ok()
        .and_then(|n| usize::try_from(n).ok())
        .filter(|n| (1..=1024).contains(n))
        .ok_or_else(|| unit_err(E, s))
}

fn random_seeds_arg(s: &str) -> Result<u64, UnitError> {
    const E: &str = "a seed count in 1..=100 like 5";
    units::parse_count(s)
        .ok()
        .filter(|n| (1..=100).contains(n))
        .ok_or_else(|| unit_err(E, s))
}

/// Congestion control at the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CcArg {
    /// CUBIC (RFC 9438).
    Cubic,
    /// NewReno (RFC 9002 §7).
    Newreno,
}

impl From<CcArg> for CcAlgorithm {
    fn from(c: CcArg) -> Self {
        match c {
            CcArg::Cubic => Self::Cubic,
            CcArg::Newreno => Self::NewReno,
        }
    }
}

/// How much a qlog trace records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum QlogLevel {
    /// Flow-control and recovery events, packets carrying MAX_* / *_BLOCKED
    /// frames and every 16th other packet.
    Core,
    /// Every packet and event (large files).
    Full,
}

/// `fc-lab`: compare QUIC receive-window strategies on simulated paths.
#[derive(Debug, Parser)]
#[command(
    name = "fc-lab",
    version,
    about = "Compare QUIC receive-window (flow-control) strategies on simulated network paths",
    long_about = "Compare QUIC receive-window (flow-control) strategies on simulated network \
paths. All times and rates reported are simulated (deterministic: same flags and seed, same \
numbers).\n\nUnits: rates in bit/s with decimal prefixes (512kbit, 20Mbit, 1Gbit); sizes in \
bytes (KB/MB/GB = 1000^n, KiB/MiB/GiB = 1024^n); durations with a unit (100us, 50ms, 1s)."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one scenario and print a summary (or one JSON object with --json).
    Run(Box<RunArgs>),
    /// Run the comparison matrix (profiles × workloads × tuners) in parallel
    /// and write a report folder.
    Compare(Box<CompareArgs>),
    /// List the built-in network profiles with rate, RTT, queue and BDP.
    Profiles(ProfilesArgs),
    /// Fault sweep: run N seeds, each on a random path with loss,
    /// reordering, duplication and a receiver pause, checking every byte;
    /// exit code 1 if any run fails.
    Sweep(SweepArgs),
}

/// The network path of `run`.
#[derive(Debug, Args)]
pub struct PathArgs {
    /// Built-in path (see `fc-lab profiles`); the flags below override its
    /// values. Without it, --rate and --rtt are required.
    #[arg(long, value_name = "NAME", value_parser = profile_arg)]
    pub profile: Option<&'static Profile>,
    /// Bottleneck rate in bit/s, both directions: 1Gbit, 20Mbit, 512kbit.
    #[arg(long, value_name = "RATE", value_parser = units::parse_rate, allow_hyphen_values = true)]
    pub rate: Option<u64>,
    /// Round-trip propagation delay (each direction gets half): 50ms, 100us, 1s.
    #[arg(long, value_name = "DURATION", value_parser = rtt_arg, allow_hyphen_values = true)]
    pub rtt: Option<Duration>,
    /// Bottleneck queue: a multiple of the BDP (1bdp, 0.1bdp), bytes (500KB,
    /// 2MiB) or a drain time at the link rate (4ms). Default 1bdp.
    #[arg(long, value_name = "QUEUE", value_parser = units::parse_queue, allow_hyphen_values = true)]
    pub queue: Option<QueueSpec>,
    /// Per-datagram link overhead in bytes on top of the UDP payload
    /// (default 28: IPv4 + UDP; neqo's bench uses 80).
    #[arg(long, value_name = "BYTES", value_parser = overhead_arg, allow_hyphen_values = true)]
    pub overhead: Option<u32>,
    /// Random loss on the data direction, in percent: 1, 0.5, 2%.
    #[arg(long, value_name = "PCT", value_parser = units::parse_percent, allow_hyphen_values = true)]
    pub loss: Option<f64>,
    /// Largest random extra delay on the data direction (5ms); it reorders
    /// datagrams unless --no-reorder.
    #[arg(long, value_name = "DURATION", value_parser = jitter_arg, allow_hyphen_values = true)]
    pub jitter: Option<Duration>,
    /// Keep datagram order under --jitter (delays only).
    #[arg(long)]
    pub no_reorder: bool,
}

impl PathArgs {
    /// The path: the profile (or a custom path) with the flags applied.
    ///
    /// # Errors
    /// [`LabError::Flag`] when neither a profile nor --rate and --rtt are
    /// given.
    pub fn resolve(&self) -> Result<PathSpec, LabError> {
        let mut path = match self.profile {
            Some(p) => p.path(),
            None => {
                let (Some(rate), Some(rtt)) = (self.rate, self.rtt) else {
                    let missing = if self.rate.is_none() {
                        "--rate"
                    } else {
                        "--rtt"
                    };
                    return Err(LabError::flag(
                        missing,
                        format!(
                            "required for a custom path (or give --profile NAME, one of {})",
                            profiles::names()
                        ),
                    ));
                };
                PathSpec {
                    name: "custom".to_owned(),
                    rate_bps: rate,
                    rtt,
                    queue_bytes: 0,
                    overhead_bytes: neqo_fc_sim::net::DEFAULT_OVERHEAD_BYTES,
                    loss: 0.0,
                    jitter: Duration::ZERO,
                    jitter_reorders: false,
                }
            }
        };
        let mut changed = false;
        if let Some(rate) = self.rate {
            changed |= rate != path.rate_bps;
            path.rate_bps = rate;
        }
        if let Some(rtt) = self.rtt {
            changed |= rtt != path.rtt;
            path.rtt = rtt;
        }
        // A profile's queue follows its (possibly overridden) rate and RTT.
        let queue = self
            .queue
            .or_else(|| self.profile.map(|p| p.queue))
            .unwrap_or(QueueSpec::ONE_BDP);
        let queue_bytes = queue.bytes(path.bdp_bytes(), path.rate_bps);
        changed |= self.profile.is_some() && queue_bytes != path.queue_bytes;
        path.queue_bytes = queue_bytes;
        if let Some(o) = self.overhead {
            changed |= o != path.overhead_bytes;
            path.overhead_bytes = o;
        }
        if let Some(loss) = self.loss {
            changed |= loss != path.loss;
            path.loss = loss;
        }
        if let Some(j) = self.jitter {
            changed |= j != path.jitter;
            path.jitter = j;
            path.jitter_reorders = !j.is_zero();
        }
        if self.no_reorder {
            changed |= path.jitter_reorders;
            path.jitter_reorders = false;
        }
        if changed && self.profile.is_some() {
            path.name.push_str("-custom");
        }
        Ok(path)
    }
}

/// Flags of `fc-lab run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The network path.
    #[command(flatten)]
    pub path: PathArgs,
    /// A matrix workload: bulk, small-msgs (1000 × 4 KiB), small-msgs-10
    /// (the same on 10 streams), large-msg (1 × 10 MiB), slow-reader (read
    /// at 10 % of the link rate), timer-reader (read every two RTTs, at
    /// most half the link rate); many streams: many-100 (100 × 1 MiB),
    /// many-1000 (1000 × 64 KiB), stall-mix (one bulk stream beside 50 ×
    /// 1 MiB whose readers stall at 1s for 2s), stop-reading (10 streams,
    /// the last stops reading at 1s for good). Default: bulk, sized for
    /// the path.
    #[arg(long, value_name = "NAME", value_parser = workload_arg, conflicts_with_all = ["size", "messages", "bulk_plus"])]
    pub workload: Option<MatrixWorkload>,
    /// Bulk transfer of this many bytes per stream: 1GiB, 100MB.
    #[arg(long, value_name = "BYTES", value_parser = positive_size_arg, allow_hyphen_values = true, conflicts_with = "messages")]
    pub size: Option<u64>,
    /// Send N messages per stream (needs --message-size).
    #[arg(long, value_name = "N", value_parser = messages_arg, allow_hyphen_values = true, requires = "message_size")]
    pub messages: Option<u64>,
    /// Bytes per message: 4KiB, 10MiB.
    #[arg(long, value_name = "BYTES", value_parser = positive_size_arg, allow_hyphen_values = true, requires = "messages")]
    pub message_size: Option<u64>,
    /// Concurrent streams (1..=10000), each carrying the workload (default
    /// 1): `--streams 100 --size 1MiB` = 100 streams of 1 MiB.
    #[arg(long, value_name = "K", value_parser = streams_arg, allow_hyphen_values = true)]
    pub streams: Option<u32>,
    /// Stream 0 carries BYTES, every other stream --size (one bulk transfer
    /// beside many smaller ones): `--bulk-plus 256MiB --size 1MiB
    /// --streams 51`.
    #[arg(long, value_name = "BYTES", value_parser = positive_size_arg, allow_hyphen_values = true, requires = "size")]
    pub bulk_plus: Option<u64>,
    /// The readers of the last N streams stop reading at START (default 1s)
    /// for DURATION, or `forever` (the run then ends when the other streams
    /// are read): 50:2s, 1:forever, 50:2s@500ms.
    #[arg(long, value_name = "N:DURATION[@START]", value_parser = stall_arg, allow_hyphen_values = true)]
    pub stall_readers: Option<Stall>,
    /// Receive-window strategy: default (ours), neqo, double (quiche,
    /// Chromium, ngtcp2), fixed:SIZE (static; fixed:1MiB = neqo before
    /// tuning, fixed:256KiB = yamux), unlimited (upper bound). Only default
    /// bounds memory with a connection budget; add +budget to give one to
    /// another (neqo+budget), -budget to take ours away (default-budget).
    #[arg(long, value_name = "NAME[:ARG][+budget|-budget]", value_parser = tuner_arg, default_value = "default")]
    pub tuner: TunerChoice,
    /// Client read rate in bit/s, all streams together (default unlimited).
    #[arg(long, value_name = "RATE", value_parser = units::parse_rate, allow_hyphen_values = true)]
    pub reader_rate: Option<u64>,
    /// With --reader-rate: the application wakes every PERIOD and reads
    /// what has arrived (at most RATE × PERIOD), nothing in between — a
    /// bursty reader such as a player's 20 ms tick.
    #[arg(long, value_name = "PERIOD", value_parser = reader_period_arg, requires = "reader_rate", allow_hyphen_values = true)]
    pub reader_period: Option<Duration>,
    /// Flow-control overrides, congestion control and seed.
    #[command(flatten)]
    pub transport: TransportArgs,
    /// Encode every packet to bytes, decode it and check every payload byte
    /// (slower); exits 1 if any byte differs.
    #[arg(long)]
    pub verify: bool,
    /// Stop at this much simulated time even if unfinished (default 1h).
    #[arg(long, value_name = "DURATION", value_parser = time_limit_arg, allow_hyphen_values = true)]
    pub time_limit: Option<Duration>,
    /// Write qlog traces (qlog 0.3 JSON-SEQ, for qvis), one per endpoint,
    /// into this directory.
    #[arg(long, value_name = "DIR")]
    pub qlog: Option<PathBuf>,
    /// What the qlog traces record.
    #[arg(long, value_enum, default_value_t = QlogLevel::Core, requires = "qlog")]
    pub qlog_level: QlogLevel,
    /// Write an SVG plot of windows, cwnd, bytes in flight and goodput over
    /// time to this file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Print one JSON object (see README for the fields) instead of the
    /// summary.
    #[arg(long)]
    pub json: bool,
}

/// Flags `run` and `compare` share: what they override in every tuner's
/// configuration, the sender's congestion control and the PRNG seed.
#[derive(Debug, Args)]
pub struct TransportArgs {
    /// Share of the window the reader must consume before a window update
    /// is sent: 1.0 = only when exhausted, 0.5, 0.25. Overrides the tuner's.
    #[arg(long, value_name = "F", value_parser = units::parse_fraction, allow_hyphen_values = true)]
    pub update_fraction: Option<Fraction>,
    /// Initial stream receive window in bytes (for fixed: its size).
    /// Overrides the tuner's.
    #[arg(long, value_name = "BYTES", value_parser = positive_size_arg, allow_hyphen_values = true)]
    pub initial_window: Option<u64>,
    /// Congestion control at the sender.
    #[arg(long, value_enum, default_value_t = CcArg::Cubic)]
    pub cc: CcArg,
    /// PRNG seed (loss, jitter); same seed, same result.
    #[arg(long, value_name = "N", value_parser = units::parse_count, default_value = "1", allow_hyphen_values = true)]
    pub seed: u64,
}

impl TransportArgs {
    /// The configuration overrides these flags ask for.
    fn overrides(&self) -> Overrides {
        Overrides {
            update_fraction: self.update_fraction,
            initial_window: self.initial_window,
        }
    }
}

/// Flags of `fc-lab compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Small matrix: residential-cable, gbit-50ms and lossy; bulk,
    /// small-msgs-10 and slow-reader; quarter-size bulk transfers; and
    /// many-100 and stall-mix on gbit-50ms and residential-cable with
    /// default, default-budget, neqo and neqo+budget.
    #[arg(long)]
    pub quick: bool,
    /// Only these profiles (repeatable or comma list), in every section
    /// (the many-streams section runs on gbit-50ms and residential-cable).
    #[arg(long, value_name = "NAME", value_parser = profile_arg, value_delimiter = ',')]
    pub profile: Vec<&'static Profile>,
    /// Only these tuners (repeatable or comma list), in every section; any
    /// tuner name works, e.g. fixed:64KiB, neqo+budget, default-budget.
    /// Default: default, neqo, double, fixed:1MiB, fixed:256KiB, unlimited;
    /// in the many-streams section default, default-budget, neqo,
    /// neqo+budget, double, double+budget.
    #[arg(long, value_name = "NAME[:ARG][+budget|-budget]", value_parser = tuner_arg, value_delimiter = ',')]
    pub tuner: Vec<TunerChoice>,
    /// Only these workloads (repeatable or comma list): bulk, small-msgs,
    /// small-msgs-10, large-msg, slow-reader, timer-reader; many-streams section:
    /// many-100, many-1000, stall-mix, stop-reading.
    #[arg(long, value_name = "NAME", value_parser = workload_arg, value_delimiter = ',')]
    pub workload: Vec<MatrixWorkload>,
    /// Seeds per cell on paths with random loss or jitter (lossy,
    /// reorder): runs use --seed, --seed + 1, … and the report keeps the
    /// run with the median goodput.
    #[arg(long, value_name = "N", value_parser = random_seeds_arg, default_value = "5", allow_hyphen_values = true)]
    pub random_seeds: u64,
    /// Worker threads (default: the number of cores). Results do not
    /// depend on it.
    #[arg(long, value_name = "N", value_parser = threads_arg, allow_hyphen_values = true)]
    pub threads: Option<usize>,
    /// Report folder (report.json, report.md, SVG plots).
    #[arg(long, value_name = "DIR", default_value = "fc-lab-report")]
    pub out: PathBuf,
    /// Flow-control overrides, congestion control and seed (every run).
    #[command(flatten)]
    pub transport: TransportArgs,
    /// Print the reports as a JSON array instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// Flags of `fc-lab profiles`.
#[derive(Debug, Args)]
pub struct ProfilesArgs {
    /// Print a JSON array instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// Flags of `fc-lab sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Number of seeds to run.
    #[arg(long, value_name = "N", value_parser = seeds_arg, allow_hyphen_values = true)]
    pub seeds: u64,
    /// First seed.
    #[arg(long, value_name = "S", value_parser = units::parse_count, default_value = "1", allow_hyphen_values = true)]
    pub start: u64,
    /// Worker threads (default: the number of cores). Results do not
    /// depend on it.
    #[arg(long, value_name = "N", value_parser = threads_arg, allow_hyphen_values = true)]
    pub threads: Option<usize>,
    /// Print one JSON object (runs, faults_injected, failures, …) instead
    /// of the summary.
    #[arg(long)]
    pub json: bool,
}

/// Most seeds one sweep may run.
pub const MAX_SWEEP_SEEDS: u64 = 10_000_000;

fn seeds_arg(s: &str) -> Result<u64, UnitError> {
    const E: &str = "a seed count in 1..=10000000 like 1000";
    units::parse_count(s)
        .ok()
        .filter(|n| (1..=MAX_SWEEP_SEEDS).contains(n))
        .ok_or_else(|| unit_err(E, s))
}

/// One line for a clap error: `error: --flag: expected …, got "…"` for bad
/// values, clap's own message (folded onto one line) for the rest.
#[must_use]
pub fn clap_error_line(e: &clap::Error) -> String {
    let flag = || match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) => arg.split([' ', '=']).next().map(str::to_owned),
        _ => None,
    };
    match e.kind() {
        ErrorKind::ValueValidation => {
            if let (Some(flag), Some(source)) = (flag(), std::error::Error::source(e)) {
                return format!("error: {flag}: {source}");
            }
        }
        ErrorKind::InvalidValue => {
            let got = match e.get(ContextKind::InvalidValue) {
                Some(ContextValue::String(s)) => s.clone(),
                _ => String::new(),
            };
            if let (Some(flag), Some(ContextValue::Strings(valid))) =
                (flag(), e.get(ContextKind::ValidValue))
                && !valid.is_empty()
            {
                let valid = valid.join(", ");
                if got.is_empty() {
                    return format!("error: {flag}: a value is required (one of {valid})");
                }
                return format!("error: {flag}: expected one of {valid}, got {got:?}");
            }
            if let Some(flag) = flag() {
                return format!("error: {flag}: a value is required");
            }
        }
        _ => {}
    }
    let rendered = e.render().to_string();
    let body: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty())
        .collect();
    let line = body.join(" ");
    if line.starts_with("error:") {
        line
    } else {
        format!("error: {line}")
    }
}

/// Runs the CLI with `args` (the first is the program name) and returns
/// the exit code: 0 success, 1 a run failed (connection error, stalled or
/// timed out, verification failure) or a file could not be written, 2 bad
/// flags.
pub fn main_with_args<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return e.exit_code();
            }
            eprintln!("{}", clap_error_line(&e));
            return 2;
        }
    };
    let result = match cli.command {
        Command::Run(a) => cmd_run(&a),
        Command::Compare(a) => cmd_compare(&a),
        Command::Profiles(a) => cmd_profiles(&a),
        Command::Sweep(a) => cmd_sweep(&a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code()
        }
    }
}

/// Writes to stdout; a closed pipe is not an error worth a panic.
fn print(s: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(s.as_bytes()).and_then(|()| out.flush());
}

fn json_line<T: serde::Serialize>(value: &T) -> Result<String, LabError> {
    serde_json::to_string(value)
        .map(|s| s + "\n")
        .map_err(|e| LabError::Simulator(format!("JSON encoding failed: {e}")))
}

impl RunArgs {
    /// The workload these flags describe on `path`.
    fn workload(&self, path: &PathSpec) -> WorkloadSpec {
        let mut w = if let Some(named) = self.workload {
            named.on(path, false)
        } else if let Some(bytes) = self.size {
            let (name, kind) = match self.bulk_plus {
                Some(bulk) => ("bulk-plus", WorkloadKind::BulkPlus { bulk, each: bytes }),
                None => ("bulk", WorkloadKind::Bulk { bytes }),
            };
            WorkloadSpec {
                name: name.to_owned(),
                kind,
                streams: 1,
                reader: ReaderSpeed::Unlimited,
                stall: None,
            }
        } else if let (Some(count), Some(size)) = (self.messages, self.message_size) {
            WorkloadSpec {
                name: "messages".to_owned(),
                kind: WorkloadKind::Messages { count, size },
                streams: 1,
                reader: ReaderSpeed::Unlimited,
                stall: None,
            }
        } else {
            MatrixWorkload::Bulk.on(path, false)
        };
        if let Some(k) = self.streams {
            w.streams = k;
        }
        if let Some(rate) = self.reader_rate {
            w.reader = match self.reader_period {
                Some(period) => ReaderSpeed::Periodic { bps: rate, period },
                None => ReaderSpeed::Rate(rate),
            };
        }
        if let Some(stall) = self.stall_readers {
            w.stall = Some(stall);
        }
        w
    }

    /// The run these flags describe.
    ///
    /// # Errors
    /// [`LabError::Flag`] for an incomplete custom path, or more stalled
    /// readers than streams.
    pub fn spec(&self) -> Result<RunSpec, LabError> {
        let path = self.path.resolve()?;
        let workload = self.workload(&path);
        if let Some(stall) = workload.stall
            && stall.streams > workload.streams
        {
            return Err(LabError::flag(
                "--stall-readers",
                format!(
                    "expected at most as many stalled readers as streams ({}), got {}",
                    workload.streams, stall.streams
                ),
            ));
        }
        let mut spec = RunSpec::new(path, workload, self.tuner);
        spec.overrides = self.transport.overrides();
        spec.cc = self.transport.cc.into();
        spec.seed = self.transport.seed;
        spec.verify = self.verify;
        spec.time_limit = self.time_limit;
        spec.trace = match (&self.qlog, self.qlog_level) {
            (None, _) => TraceLevel::Off,
            (Some(_), QlogLevel::Core) => TraceLevel::Core,
            (Some(_), QlogLevel::Full) => TraceLevel::Full,
        };
        Ok(spec)
    }
}

fn cmd_run(a: &RunArgs) -> Result<i32, LabError> {
    let spec = a.spec()?;
    if spec.tuner.base == TunerSpec::Unlimited && a.transport.initial_window.is_some() {
        return Err(LabError::flag(
            "--initial-window",
            "not accepted with --tuner unlimited (its windows are 2^62 - 1)",
        ));
    }
    let outcome = execute(&spec)?;
    let mut written = Vec::new();
    if let Some(dir) = &a.qlog {
        let files =
            crate::qlog::write_traces(dir, &spec.file_stem(), &outcome.result, &outcome.scenario)
                .map_err(|source| LabError::Io {
                path: dir.clone(),
                source,
            })?;
        written.extend(files);
    }
    if let Some(file) = &a.plot {
        let title = format!(
            "{} / {} / {}",
            spec.path.name,
            spec.workload.name,
            spec.tuner.name()
        );
        crate::plot::run_plot(
            file,
            &title,
            &outcome.result.series,
            spec.path.rate_bps,
            spec.path.bdp_bytes(),
        )?;
        written.push(file.clone());
    }
    let report = &outcome.report;
    if a.json {
        print(&json_line(report)?);
    } else {
        print(&run_summary(&spec, report));
    }
    for f in &written {
        eprintln!("wrote {}", f.display());
    }
    if spec.verify && report.verify_failures > 0 {
        eprintln!(
            "error: --verify: {} payload bytes differed from what was sent",
            report.verify_failures
        );
        return Ok(1);
    }
    if let Some(e) = &report.error {
        eprintln!("error: the connection failed: {e}");
        return Ok(1);
    }
    if !report.completed {
        eprintln!(
            "error: the run stopped with {} of {} delivered (time limit or stall)",
            format::bytes(report.bytes),
            format::bytes(report.expected_bytes)
        );
        return Ok(1);
    }
    Ok(0)
}

/// The human summary of one run: aligned `label  value` lines.
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn run_summary(spec: &RunSpec, r: &RunReport) -> String {
    let secs = |s: f64| format::seconds(Duration::from_secs_f64(s.max(0.0)));
    let ms = |s: f64| format::duration(Duration::from_secs_f64(s.max(0.0)));
    let mut lines: Vec<(&str, String)> = vec![
        (
            "path",
            format!("{}: {}", spec.path.name, spec.path.summary()),
        ),
        ("workload", spec.workload.summary()),
        (
            "tuner",
            format!(
                "{} (update at {} of the window, initial stream window {}, {})",
                r.tuner,
                r.update_fraction,
                format::bytes(r.initial_stream_window_bytes),
                r.cc
            ),
        ),
    ];
    let status = match (&r.error, r.completed) {
        (Some(e), _) => format!("connection error {e}"),
        (None, true) => "completed".to_owned(),
        (None, false) => "INCOMPLETE (time limit)".to_owned(),
    };
    lines.push((
        "result",
        format!(
            "{status}: {} of {} in {} (simulated)",
            format::bytes(r.bytes),
            format::bytes(r.expected_bytes),
            secs(r.duration_s)
        ),
    ));
    lines.push((
        "goodput",
        format!(
            "{} ({:.1} % of the link)",
            format::rate(r.goodput_bps),
            r.link_share() * 100.0
        ),
    ));
    lines.push((
        "peak window",
        format!(
            "stream {} ({} x BDP), connection {}",
            format::bytes(r.peak_stream_window_bytes),
            format::ratio(r.window_bdp()),
            format::bytes(r.peak_conn_window_bytes)
        ),
    ));
    lines.push((
        "peak memory",
        format!(
            "receive buffer {} ({} x BDP), credit outstanding {} ({} x BDP)",
            format::bytes(r.peak_recv_buffer_bytes),
            format::ratio(r.buffer_bdp()),
            format::bytes(r.peak_total_credit_bytes),
            format::ratio(r.credit_bdp())
        ),
    ));
    lines.push((
        "budget",
        if r.memory_budget {
            format!(
                "peak {} ({} x BDP), {} violations",
                format::bytes(r.peak_budget_bytes),
                format::ratio(r.budget_bdp()),
                r.budget_violations
            )
        } else {
            "none".to_owned()
        },
    ));
    if let Some(stall) = &spec.workload.stall {
        lines.push((
            "stall",
            format!(
                "{}: the other streams read at {}",
                crate::stall::describe(stall),
                r.stall_goodput_bps
                    .map_or_else(|| "-".to_owned(), format::rate)
            ),
        ));
    }
    lines.push((
        "fc blocked",
        format!(
            "{} ({} window updates sent, {} BLOCKED frames sent)",
            secs(r.fc_blocked_s),
            r.window_updates_sent,
            r.blocked_frames_sent
        ),
    ));
    lines.push((
        "congestion",
        format!(
            "peak cwnd {}, {} drops, {} packets lost, {} retransmitted",
            format::bytes(r.peak_cwnd_bytes),
            r.drops,
            r.packets_lost,
            format::bytes(r.retransmitted_bytes)
        ),
    ));
    lines.push((
        "rtt",
        format!(
            "min {}, smoothed {} at the end",
            ms(r.min_rtt_s),
            ms(r.final_srtt_s)
        ),
    ));
    if r.streams > 1 {
        let first = r
            .stream_completion_s
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        let last = r.stream_completion_s.iter().copied().fold(0.0, f64::max);
        lines.push((
            "streams",
            format!(
                "{} streams done between {} and {}, fairness {:.3}",
                r.streams,
                secs(if first.is_finite() { first } else { 0.0 }),
                secs(last),
                r.fairness_index
            ),
        ));
    }
    if r.verify_failures > 0 || spec.verify {
        lines.push(("verify", format!("{} bytes differed", r.verify_failures)));
    }
    let width = lines.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
    lines
        .into_iter()
        .map(|(l, v)| format!("{l:<width$}  {v}\n"))
        .collect()
}

fn cmd_compare(a: &CompareArgs) -> Result<i32, LabError> {
    let mut matrix = if a.quick {
        Matrix::quick()
    } else {
        Matrix::full()
    };
    matrix.filter(&a.profile, &a.workload, &a.tuner);
    matrix.seed = a.transport.seed;
    matrix.random_seeds = a.random_seeds;
    matrix.cc = a.transport.cc.into();
    matrix.overrides = a.transport.overrides();
    if a.transport.initial_window.is_some()
        && matrix.tuners().any(|t| t.base == TunerSpec::Unlimited)
    {
        return Err(LabError::flag(
            "--initial-window",
            format!(
                "not accepted with the unlimited tuner; pick tuners with --tuner ({TUNER_EXPECTED})"
            ),
        ));
    }
    let specs = matrix.specs();
    let threads = a.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let bar = indicatif::ProgressBar::new(specs.len() as u64);
    if std::io::stderr().is_terminal() {
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} runs  {elapsed_precise} (eta {eta})  {wide_msg}",
        ) {
            bar.set_style(style);
        }
    } else {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let started = Instant::now();
    let reports = compare::run_all(&specs, threads, &|r| {
        bar.set_message(format!("{} / {} / {}", r.profile, r.workload, r.tuner));
        bar.inc(1);
    });
    bar.finish_and_clear();
    let reports = compare::median_of_seeds(reports);
    let wall = started.elapsed();
    if a.json {
        print(&json_line(&reports)?);
    } else {
        print(&compare::render_table(&reports));
    }
    let files = compare::write_report(&a.out, &reports, &matrix)?;
    eprintln!(
        "{} runs in {:.1} s wall on {threads} thread{}; report: {} ({} files)",
        reports.len(),
        wall.as_secs_f64(),
        if threads == 1 { "" } else { "s" },
        a.out.join("report.md").display(),
        files.len()
    );
    Ok(0)
}

fn cmd_sweep(a: &SweepArgs) -> Result<i32, LabError> {
    if a.start.checked_add(a.seeds).is_none() {
        return Err(LabError::flag(
            "--start",
            format!("seeds {}.. + {} overflow a 64-bit seed", a.start, a.seeds),
        ));
    }
    let threads = a.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let started = Instant::now();
    let report = crate::sweep::sweep(a.start, a.seeds, threads);
    let wall = started.elapsed();
    if a.json {
        print(&json_line(&report)?);
    } else {
        print(&report.render());
    }
    eprintln!(
        "{} runs in {:.1} s wall on {threads} thread{}",
        report.runs,
        wall.as_secs_f64(),
        if threads == 1 { "" } else { "s" },
    );
    Ok(i32::from(!report.failures.is_empty()))
}

/// The `profiles` table.
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn profiles_table() -> String {
    let mut t = Table::new(&[
        ("name", Align::Left),
        ("rate", Align::Right),
        ("RTT", Align::Right),
        ("queue", Align::Right),
        ("BDP", Align::Right),
        ("notes", Align::Left),
    ]);
    for p in PROFILES {
        let path = p.path();
        let bdp = path.bdp_bytes();
        t.push(vec![
            p.name.to_owned(),
            format::rate(p.rate_bps as f64),
            format::duration(p.rtt),
            format!(
                "{} ({} BDP)",
                format::bytes(path.queue_bytes),
                format::ratio(path.queue_bytes as f64 / bdp as f64)
            ),
            format::bytes(bdp),
            p.description.to_owned(),
        ]);
    }
    t.render("")
}

#[derive(serde::Serialize)]
struct ProfileJson {
    name: &'static str,
    description: &'static str,
    rate_bps: u64,
    rtt_s: f64,
    queue_bytes: u64,
    bdp_bytes: u64,
    overhead_bytes: u32,
    loss_rate: f64,
    jitter_s: f64,
    jitter_reorders: bool,
}

fn cmd_profiles(a: &ProfilesArgs) -> Result<i32, LabError> {
    if a.json {
        let list: Vec<ProfileJson> = PROFILES
            .iter()
            .map(|p| {
                let path = p.path();
                ProfileJson {
                    name: p.name,
                    description: p.description,
                    rate_bps: p.rate_bps,
                    rtt_s: p.rtt.as_secs_f64(),
                    queue_bytes: path.queue_bytes,
                    bdp_bytes: path.bdp_bytes(),
                    overhead_bytes: path.overhead_bytes,
                    loss_rate: path.loss,
                    jitter_s: path.jitter.as_secs_f64(),
                    jitter_reorders: path.jitter_reorders,
                }
            })
            .collect();
        print(&json_line(&list)?);
    } else {
        print(&profiles_table());
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, String> {
        Cli::try_parse_from(std::iter::once("fc-lab").chain(args.iter().copied()))
            .map_err(|e| clap_error_line(&e))
    }

    fn run_args(args: &[&str]) -> Box<RunArgs> {
        let mut all = vec!["run"];
        all.extend_from_slice(args);
        match parse(&all).unwrap().command {
            Command::Run(a) => a,
            _ => unreachable!("run"),
        }
    }

    #[test]
    fn bad_values_name_the_flag_on_one_line() {
        let cases = [
            (
                &["run", "--rate", "fast"][..],
                "error: --rate: expected a rate like 1Gbit",
            ),
            (
                &["run", "--rtt", "-5ms"],
                "error: --rtt: expected a positive duration",
            ),
            (
                &["run", "--profile", "fast"],
                "error: --profile: expected a profile name",
            ),
            (
                &["run", "--tuner", "magic"],
                "error: --tuner: expected default, neqo",
            ),
            (
                &["run", "--update-fraction", "0"],
                "error: --update-fraction: expected a fraction in (0, 1]",
            ),
            (
                &["run", "--queue", "x"],
                "error: --queue: expected a queue like 1bdp",
            ),
            (
                &["run", "--cc", "bbr"],
                "error: --cc: expected one of cubic, newreno, got \"bbr\"",
            ),
            (
                &["run", "--streams", "0"],
                "error: --streams: expected a stream count",
            ),
            (
                &["compare", "--threads", "0"],
                "error: --threads: expected a thread count",
            ),
            (
                &["compare", "--profile", "gbit-50ms,nope"],
                "error: --profile: expected a profile name",
            ),
            (
                &["run", "--bogus"],
                "error: unexpected argument '--bogus' found",
            ),
            (
                &["run", "--profile"],
                "error: --profile: a value is required",
            ),
            (&["run", "--cc"], "error: --cc: a value is required"),
        ];
        for (args, want) in cases {
            let e = parse(args).unwrap_err();
            assert!(e.starts_with(want), "{args:?}: {e}");
            assert!(!e.contains('\n'), "{args:?}: {e}");
        }
        // The value given is echoed.
        assert!(
            parse(&["run", "--rate", "fast"])
                .unwrap_err()
                .ends_with("got \"fast\"")
        );
    }

    #[test]
    fn paths_resolve_with_overrides() {
        let a = run_args(&["--profile", "gbit-50ms"]);
        let p = a.path.resolve().unwrap();
        assert_eq!(p.name, "gbit-50ms");
        assert_eq!(p.queue_bytes, 6_250_000);

        let a = run_args(&["--profile", "gbit-50ms", "--rtt", "100ms"]);
        let p = a.path.resolve().unwrap();
        assert_eq!(p.name, "gbit-50ms-custom");
        assert_eq!(p.queue_bytes, 12_500_000, "1 BDP follows the new RTT");

        let a = run_args(&[
            "--rate", "20Mbit", "--rtt", "50ms", "--queue", "0.5bdp", "--loss", "1", "--jitter",
            "5ms",
        ]);
        let p = a.path.resolve().unwrap();
        assert_eq!(p.name, "custom");
        assert_eq!(p.queue_bytes, 62_500);
        assert_eq!(p.loss, 0.01);
        assert!(p.jitter_reorders);

        let a = run_args(&["--rate", "20Mbit"]);
        let e = a.path.resolve().unwrap_err().to_string();
        assert!(e.starts_with("--rtt: required for a custom path"), "{e}");
    }

    #[test]
    fn workloads_from_flags() {
        let path = profiles::find("gbit-50ms").unwrap().path();
        let a = run_args(&["--size", "1GiB", "--streams", "3"]);
        let w = a.workload(&path);
        assert_eq!(w.kind, WorkloadKind::Bulk { bytes: 1 << 30 });
        assert_eq!(w.streams, 3);
        let a = run_args(&[
            "--messages",
            "1000",
            "--message-size",
            "4KiB",
            "--reader-rate",
            "10Mbit",
        ]);
        let w = a.workload(&path);
        assert_eq!(
            w.kind,
            WorkloadKind::Messages {
                count: 1000,
                size: 4096
            }
        );
        assert_eq!(w.reader, ReaderSpeed::Rate(10_000_000));
        let a = run_args(&[]);
        assert_eq!(
            a.workload(&path).kind,
            WorkloadKind::Bulk { bytes: 239 << 20 }
        );
        assert!(parse(&["run", "--messages", "10"]).is_err());
        assert!(parse(&["run", "--size", "1MB", "--workload", "bulk"]).is_err());
    }

    #[test]
    fn many_streams_flags() {
        let path = profiles::find("gbit-50ms").unwrap().path();
        // The brief's first workload: 100 concurrent streams of 1 MiB.
        let w = run_args(&["--streams", "100", "--size", "1MiB"]).workload(&path);
        assert_eq!(w.kind, WorkloadKind::Bulk { bytes: 1 << 20 });
        assert_eq!((w.streams, w.stall), (100, None));
        assert_eq!(w, MatrixWorkload::Many100.on(&path, false).renamed("bulk"));

        let a = run_args(&[
            "--streams",
            "51",
            "--size",
            "1MiB",
            "--bulk-plus",
            "477MiB",
            "--stall-readers",
            "50:2s",
        ]);
        let w = a.workload(&path);
        assert_eq!(
            w,
            MatrixWorkload::StallMix
                .on(&path, false)
                .renamed("bulk-plus")
        );
        let w = run_args(&["--workload", "stop-reading"]).workload(&path);
        assert_eq!(w.streams, 10);
        let stall = w.stall.unwrap();
        assert!(stall.permanent());
        let w = run_args(&["--workload", "many-100", "--stall-readers", "1:forever@2s"])
            .workload(&path);
        assert_eq!(w.stall.unwrap().start, Duration::from_secs(2));

        let a = run_args(&["--tuner", "neqo+budget"]);
        assert_eq!(a.tuner, TunerChoice::with_budget(TunerSpec::Neqo, true));
        let a = run_args(&["--tuner", "default-budget"]);
        assert_eq!(a.tuner.name(), "default-budget");

        // More stalled readers than streams: one line naming the flag.
        let a = run_args(&[
            "--profile",
            "gbit-50ms",
            "--streams",
            "2",
            "--stall-readers",
            "3:1s",
        ]);
        assert_eq!(
            a.spec().unwrap_err().to_string(),
            "--stall-readers: expected at most as many stalled readers as streams (2), got 3"
        );
        for (args, want) in [
            (
                &["run", "--stall-readers", "50"][..],
                "error: --stall-readers: expected N:DURATION[@START]",
            ),
            (
                &["run", "--stall-readers", "0:2s"],
                "error: --stall-readers: expected N:DURATION[@START]",
            ),
            (
                &["run", "--bulk-plus", "1MiB"],
                "error: the following required arguments were not provided: --size",
            ),
            (
                &["run", "--bulk-plus", "0", "--size", "1MiB"],
                "error: --bulk-plus: expected a positive size",
            ),
            (
                &["run", "--tuner", "neqo+budgets"],
                "error: --tuner: expected default, neqo",
            ),
            (
                &["run", "--tuner", "unlimited+budget"],
                "error: --tuner: the unlimited tuner takes no budget",
            ),
            (
                &["compare", "--tuner", "default,double+"],
                "error: --tuner: expected default, neqo",
            ),
            (
                &[
                    "run",
                    "--workload",
                    "stall-mix",
                    "--bulk-plus",
                    "1MiB",
                    "--size",
                    "1MiB",
                ],
                "error: the argument '--workload <NAME>' cannot be used with",
            ),
        ] {
            let e = parse(args).unwrap_err();
            assert!(e.starts_with(want), "{args:?}: {e}");
            assert!(!e.contains('\n'), "{args:?}: {e}");
        }
    }

    #[test]
    fn run_spec_from_flags() {
        let a = run_args(&[
            "--profile",
            "residential-adsl2+",
            "--tuner",
            "fixed:256KiB",
            "--update-fraction",
            "1.0",
            "--seed",
            "9",
            "--cc",
            "newreno",
            "--qlog",
            "/tmp/x",
            "--qlog-level",
            "full",
        ]);
        let s = a.spec().unwrap();
        assert_eq!(s.tuner, TunerSpec::Fixed(256 << 10).into());
        assert_eq!(s.overrides.update_fraction, Some(Fraction::ONE));
        assert_eq!(s.seed, 9);
        assert_eq!(s.cc, CcAlgorithm::NewReno);
        assert_eq!(s.trace, TraceLevel::Full);
    }

    #[test]
    fn profiles_table_lists_all() {
        let t = profiles_table();
        assert_eq!(t.lines().count(), PROFILES.len() + 2);
        let line = t.lines().find(|l| l.starts_with("neqo-bench")).unwrap();
        assert!(
            line.contains("1 Gbit/s") && line.contains("40 ms"),
            "{line}"
        );
        assert!(
            line.contains("488 KiB (0.10 BDP)") && line.contains("80 B overhead"),
            "{line}"
        );
    }
}
