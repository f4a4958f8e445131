//! What the command line accepts (clap's derive structs, one per
//! subcommand and flag group) and what the flags mean: the path, the
//! workload and the [`RunSpec`] of `run`, the overrides `run` and
//! `compare` share.

use std::{path::PathBuf, time::Duration};

use clap::{Args, Parser, Subcommand, ValueEnum};
use neqo_fc::Fraction;
use neqo_fc_sim::{
    net::EcnRewrite,
    quic::cc::CcAlgorithm,
    scenario::{CrossTraffic, ReaderSpeed, Stall, WorkloadKind},
    trace::TraceLevel,
};

use super::values::{
    SendBuffer, ack_ratio_arg, cross_arg, datagram_size_arg, jitter_arg, max_ack_delay_arg,
    max_wall_arg, messages_arg, overhead_arg, plot_arg, positive_size_arg, profile_arg,
    qlog_dir_arg, random_seeds_arg, rate_arg, reader_period_arg, rtt_arg, seed_arg, seeds_arg,
    send_buffer_arg, stall_arg, streams_arg, threads_arg, time_limit_arg, tuner_arg, workload_arg,
};
use crate::{
    error::LabError,
    profiles::{self, PathSpec, Profile},
    spec::RunSpec,
    transport::{
        AcksArg, AppLimitArg, BlockedArg, EcnArg, OpenRequestsArg, PacingArg, Preset, SendOrderArg,
        TransportChoice,
    },
    tuners::{Overrides, TunerChoice},
    units::{self, QueueSpec},
    workloads::{MatrixWorkload, WorkloadSpec},
};

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

/// Smallest bottleneck queue a run accepts: one full-size datagram (the
/// simulator's 1,500-byte UDP payload).
pub const MIN_QUEUE_BYTES: u64 = 1_500;

/// The network path of `run`.
#[derive(Debug, Args)]
pub struct PathArgs {
    /// Built-in path (see `fc-lab profiles`); the flags below override its
    /// values. Without it, --rate and --rtt are required.
    #[arg(long, value_name = "NAME", value_parser = profile_arg)]
    pub profile: Option<&'static Profile>,
    /// Bottleneck rate in bit/s, both directions: 1Gbit, 20Mbit, 512kbit
    /// (at most 1Tbit).
    #[arg(long, value_name = "RATE", value_parser = rate_arg, allow_hyphen_values = true)]
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
    /// Rate of the reverse direction (ACKs, MAX_* frames) when it differs
    /// from --rate: 1Mbit for a DSL-like uplink.
    #[arg(long, value_name = "RATE", value_parser = rate_arg, allow_hyphen_values = true)]
    pub reverse_rate: Option<u64>,
    /// Random loss on the reverse direction (ACKs, MAX_* frames), in
    /// percent: 1, 0.5, 2%.
    #[arg(long, value_name = "PCT", value_parser = units::parse_percent, allow_hyphen_values = true)]
    pub reverse_loss: Option<f64>,
    /// CoDel AQM (5 ms target, 100 ms interval) at the bottleneck, as
    /// neqo's bench with ECN: it drops, or marks CE when the transport
    /// uses ECN (--ecn on).
    #[arg(long)]
    pub codel: bool,
    /// A middlebox that mangles the ECN field (both directions): `clear`
    /// (bleaching: Not-ECT) or `ect1` (ECT(0) rewritten to ECT(1)). With
    /// --ecn on, the sender's ECN validation (RFC 9000 §13.4.2) fails and
    /// it stops marking.
    #[arg(long, value_name = "HOW")]
    pub ecn_rewrite: Option<EcnRewriteArg>,
    /// Cross traffic: another connection on the same path, a bulk download
    /// with unlimited windows and our congestion control. `first[:LEAD]`:
    /// it starts LEAD (default 3s) before ours, which meets its queue;
    /// `second[:AFTER]`: it joins AFTER (default 2s) after ours. Our
    /// goodput counts from our start; `cross_goodput_bps` is the other's
    /// while ours ran.
    #[arg(long, value_name = "first[:LEAD]|second[:AFTER]", value_parser = cross_arg)]
    pub cross: Option<CrossTraffic>,
}

/// A middlebox's rewrite of the ECN field, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EcnRewriteArg {
    /// Clears the field to Not-ECT (bleaching).
    Clear,
    /// Rewrites ECT(0) to ECT(1).
    Ect1,
}

impl From<EcnRewriteArg> for EcnRewrite {
    fn from(a: EcnRewriteArg) -> Self {
        match a {
            EcnRewriteArg::Clear => Self::Clear,
            EcnRewriteArg::Ect1 => Self::Ect1,
        }
    }
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
                profiles::profile("custom", "", rate, rtt).path()
            }
        };
        let mut changed = set(&mut path.rate_bps, self.rate);
        changed |= set(&mut path.rtt, self.rtt);
        // A profile's queue follows its (possibly overridden) rate and RTT.
        let queue = self
            .queue
            .or_else(|| self.profile.map(|p| p.queue))
            .unwrap_or(QueueSpec::ONE_BDP);
        let queue_bytes = queue.bytes(path.bdp_bytes(), path.rate_bps);
        if queue_bytes < MIN_QUEUE_BYTES {
            return Err(LabError::flag(
                "--queue",
                format!(
                    "expected room for at least one full-size datagram ({MIN_QUEUE_BYTES} B), \
                     got {queue_bytes} B{}: every datagram that meets a busy link would be dropped",
                    if self.queue.is_none() {
                        " (the profile's queue at this --rate and --rtt)"
                    } else {
                        ""
                    }
                ),
            ));
        }
        changed |= self.profile.is_some() && queue_bytes != path.queue_bytes;
        path.queue_bytes = queue_bytes;
        changed |= set(&mut path.overhead_bytes, self.overhead);
        changed |= set(&mut path.loss, self.loss);
        if let Some(j) = self.jitter {
            changed |= j != path.jitter;
            path.jitter = j;
            path.jitter_reorders = !j.is_zero();
        }
        changed |= set(&mut path.jitter_reorders, self.no_reorder.then_some(false));
        changed |= set(&mut path.reverse_rate_bps, self.reverse_rate.map(Some));
        changed |= set(&mut path.reverse_loss, self.reverse_loss);
        changed |= set(&mut path.codel, self.codel.then_some(true));
        changed |= set(&mut path.ecn_rewrite, self.ecn_rewrite.map(Into::into));
        changed |= set(&mut path.cross, self.cross.map(Some));
        if changed && self.profile.is_some() {
            path.name.push_str("-custom");
        }
        Ok(path)
    }
}

/// Sets `field` to `value` when there is one; true if that changed it.
fn set<T: PartialEq>(field: &mut T, value: Option<T>) -> bool {
    let Some(value) = value else { return false };
    let changed = *field != value;
    *field = value;
    changed
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
    /// Receive-window strategy: default (ours), min-rtt (ours without delay
    /// probes), neqo, double (quiche, Chromium, ngtcp2), fixed:SIZE (static;
    /// fixed:1MiB = neqo before tuning, fixed:256KiB = yamux), unlimited
    /// (upper bound). Only default and min-rtt bound memory with a connection
    /// budget; add +budget to give one to
    /// another (neqo+budget), -budget to take ours away (default-budget).
    #[arg(long, value_name = "NAME[:ARG][+budget|-budget]", value_parser = tuner_arg, default_value = "default")]
    pub tuner: TunerChoice,
    /// Client read rate in bit/s, all streams together (default unlimited).
    #[arg(long, value_name = "RATE", value_parser = rate_arg, allow_hyphen_values = true)]
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
    /// Stop after this much wall-clock time and report what was delivered
    /// (--time-limit bounds simulated time, not how long you wait): 60s.
    #[arg(long, value_name = "DURATION", value_parser = max_wall_arg, allow_hyphen_values = true)]
    pub max_wall: Option<Duration>,
    /// Write qlog traces (qlog 0.3 JSON-SEQ, for qvis), one per endpoint,
    /// into this directory.
    #[arg(long, value_name = "DIR", value_parser = qlog_dir_arg)]
    pub qlog: Option<PathBuf>,
    /// What the qlog traces record.
    #[arg(long, value_enum, default_value_t = QlogLevel::Core, requires = "qlog")]
    pub qlog_level: QlogLevel,
    /// Write an SVG plot of windows, cwnd, bytes in flight and goodput over
    /// time to this file.
    #[arg(long, value_name = "FILE.svg", value_parser = plot_arg)]
    pub plot: Option<PathBuf>,
    /// Print one JSON object (see README for the fields) instead of the
    /// summary.
    #[arg(long)]
    pub json: bool,
}

impl RunArgs {
    /// The workload these flags describe on `path`.
    pub(super) fn workload(&self, path: &PathSpec) -> WorkloadSpec {
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

    /// The flag that set the workload's size (`--size` when none did: the
    /// flag to give).
    pub(super) fn workload_flag(&self) -> &'static str {
        if self.workload.is_some() {
            "--workload"
        } else if self.bulk_plus.is_some() {
            "--bulk-plus"
        } else if self.messages.is_some() {
            "--messages"
        } else if self.streams.is_some() && self.size.is_none() {
            "--streams"
        } else {
            "--size"
        }
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
        spec.transport = self.transport.transport();
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
    /// Initial connection receive window in bytes (the transport
    /// parameter initial_max_data; for default also what new streams are
    /// seeded from). Overrides the tuner's and the one --initial-window
    /// implies.
    #[arg(long, value_name = "BYTES", value_parser = positive_size_arg, allow_hyphen_values = true)]
    pub initial_connection_window: Option<u64>,
    /// Cap on stream receive windows in bytes (default's 32 MiB, neqo's
    /// 10 MiB, double's 16 MiB): 256MiB. The connection cap follows at
    /// 1.5 × it and the memory budget's growth ceiling at 2 × it, as
    /// default's 32/48/64 MiB do. Not for fixed or unlimited.
    #[arg(long, value_name = "BYTES", value_parser = positive_size_arg, allow_hyphen_values = true)]
    pub max_window: Option<u64>,
    /// Congestion control at the sender.
    #[arg(long, value_enum, default_value_t = CcArg::Cubic)]
    pub cc: CcArg,
    /// PRNG seed (loss, jitter); same seed, same result.
    #[arg(long, value_name = "N", value_parser = seed_arg, default_value = "1", allow_hyphen_values = true)]
    pub seed: u64,
    /// Transport model: `default` (this simulator's: 1,500-byte datagrams,
    /// ACK every 2nd packet, RFC 9002 pacing, no send-buffer limit) or
    /// `neqo` (neqo 0.30 as traced in its test fixture: 1,232-byte
    /// datagrams, ACK_FREQUENCY, pacing 2 × cwnd/srtt in bursts of 2 with
    /// 1 ms granularity, 10 MiB send buffer per stream, *_BLOCKED on
    /// writes, neqo's app-limited rule, ACKs only when due, streams by
    /// stream ID; alias `neqo-traced`) or `neqo-fitted` (the first, fitted model of neqo:
    /// 1,252-byte datagrams, an ACK every 10 packets, the same pacing and
    /// send buffer). The ten flags below override single settings.
    #[arg(long, value_enum, default_value_t = Preset::Default)]
    pub transport: Preset,
    /// Largest UDP payload in bytes (1200..=65527).
    #[arg(long, value_name = "BYTES", value_parser = datagram_size_arg, allow_hyphen_values = true)]
    pub datagram_size: Option<u32>,
    /// Acknowledge every N ack-eliciting packets (1..=1000), for the whole
    /// run: with `neqo` it turns ACK_FREQUENCY off.
    #[arg(long, value_name = "N", value_parser = ack_ratio_arg, allow_hyphen_values = true)]
    pub ack_ratio: Option<u32>,
    /// Largest delay before an acknowledgement (1ms..=1s): 25ms. With
    /// `neqo` it turns ACK_FREQUENCY off.
    #[arg(long, value_name = "DURATION", value_parser = max_ack_delay_arg, allow_hyphen_values = true)]
    pub max_ack_delay: Option<Duration>,
    /// Pacing: gain, burst, and (neqo) whether ACK-only packets spend credit.
    #[arg(long, value_enum)]
    pub pacing: Option<PacingArg>,
    /// Stream data a sender holds per stream, unacknowledged plus unsent
    /// (`none`: no limit): 10MiB.
    #[arg(long, value_name = "BYTES|none", value_parser = send_buffer_arg, allow_hyphen_values = true)]
    pub send_buffer: Option<SendBuffer>,
    /// ECN: mark packets ECT(0) and back off on CE reports (on), or not
    /// (off). Only a CoDel bottleneck (--codel) marks; on a tail-drop path
    /// ECN changes only the ACK frames' size.
    #[arg(long, value_enum)]
    pub ecn: Option<EcnArg>,
    /// `--blocked`, `--app-limit`, `--acks`, `--send-order`.
    #[command(flatten)]
    pub behaviour: BehaviourArgs,
}

/// The traced neqo behaviours, each overridable alone (on `run`,
/// `compare` and `calibrate`).
#[derive(Debug, Default, Args)]
pub struct BehaviourArgs {
    /// When a sender reports STREAM_DATA_BLOCKED / DATA_BLOCKED: once its
    /// credit is all sent (on-send; the `default` and `neqo-fitted`
    /// models) or once its writes reach the limit (on-write; `neqo`).
    #[arg(long, value_enum)]
    pub blocked: Option<BlockedArg>,
    /// Which packets grow the congestion window (RFC 9002 §7.8): each by
    /// itself (per-packet; `default`, `neqo-fitted`) or neqo's
    /// watermark (neqo; the `neqo` model).
    #[arg(long, value_enum)]
    pub app_limit: Option<AppLimitArg>,
    /// When a packet carries an ACK frame: whenever anything arrived since
    /// the last one (any; `default`, `neqo-fitted`) or only when an
    /// acknowledgement is due (due; `neqo`: it never acknowledges ACK-only
    /// packets on their own).
    #[arg(long, value_enum)]
    pub acks: Option<AcksArg>,
    /// In which order a sender's streams fill packets: each in turn
    /// (round-robin; `default`, `neqo-fitted`) or the lowest stream ID
    /// with data and credit first (stream-id; `neqo`, which serves
    /// streams without fairness so, HTTP/3 requests among them).
    #[arg(long, value_enum)]
    pub send_order: Option<SendOrderArg>,
    /// When the client opens the receive side of its request streams:
    /// each at its response's first frame, as a stream the peer opens
    /// (at-first-frame; every model) or all as it sends the requests, as
    /// neqo's `stream_create` does, so their seeds go out with the
    /// requests (at-request).
    #[arg(long, value_enum)]
    pub open_requests: Option<OpenRequestsArg>,
}

impl BehaviourArgs {
    /// `base` with these overrides.
    pub fn apply(&self, base: TransportChoice) -> TransportChoice {
        TransportChoice {
            blocked: self.blocked,
            app_limit: self.app_limit,
            acks: self.acks,
            send_order: self.send_order,
            open_requests: self.open_requests,
            ..base
        }
    }
}

impl TransportArgs {
    /// The transport these flags ask for.
    pub(super) fn transport(&self) -> TransportChoice {
        TransportChoice {
            preset: self.transport,
            datagram_size: self.datagram_size,
            ack_ratio: self.ack_ratio,
            max_ack_delay: self.max_ack_delay,
            pacing: self.pacing,
            send_buffer: self.send_buffer.map(|b| b.0),
            ecn: self.ecn,
            ..self.behaviour.apply(TransportChoice::default())
        }
    }

    /// The first window flag given, for the tuners it cannot apply to.
    pub(super) fn window_flag_given(&self) -> Option<&'static str> {
        [
            ("--initial-window", self.initial_window.is_some()),
            (
                "--initial-connection-window",
                self.initial_connection_window.is_some(),
            ),
            ("--max-window", self.max_window.is_some()),
        ]
        .into_iter()
        .find_map(|(flag, given)| given.then_some(flag))
    }

    /// The configuration overrides these flags ask for.
    pub(super) fn overrides(&self) -> Overrides {
        Overrides {
            update_fraction: self.update_fraction,
            initial_window: self.initial_window,
            initial_connection_window: self.initial_connection_window,
            max_window: self.max_window,
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
    /// Report folder (report.json, report.md, SVG charts); compare owns it:
    /// it must be new, empty or an earlier report, whose files are replaced.
    /// Default: fc-lab-report, or fc-lab-report-quick with --quick.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
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

impl CompareArgs {
    /// The report folder: `--out`, or the default for the matrix (a quick
    /// run never overwrites the full report).
    #[must_use]
    pub fn out_dir(&self) -> PathBuf {
        self.out.clone().unwrap_or_else(|| {
            PathBuf::from(if self.quick {
                "fc-lab-report-quick"
            } else {
                "fc-lab-report"
            })
        })
    }
}

/// Worker threads for `compare` and `sweep`: `--threads`, or the number
/// of cores.
pub fn worker_threads(flag: Option<usize>) -> usize {
    flag.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    })
}

#[cfg(test)]
mod tests;
