//! `fc-studies calibrate`: the simulator against real neqo on the scenarios of
//! the neqo integration's matrix (`integrations/neqo/run.sh`).
//!
//! The real side is a results file `run.sh --json` wrote: by default the
//! one committed in `integrations/neqo/results/matrix.json` (compiled in,
//! so no NSS is needed), or a fresh one. The simulated side runs each of
//! its paths (1 Gbit/s, the recorded RTT and queue, 80 bytes per datagram,
//! the recorded transfer size) once per strategy and pacing, on the chosen
//! transport model, and each strategy is set beside the real variants it
//! models:
//!
//! | simulated | real |
//! |---|---|
//! | `unlimited` | `unlimited` |
//! | `neqo` | `neqo-main`; with `--pacing neqo-fixed`: `neqo-main+pacing` |
//! | `default` | `neqo-fc`; with `--pacing neqo-fixed`: `neqo-fc+pacing` |
//!
//! (With the `neqo` transport, the `+pacing` variants are simulated with
//! the pacing patch's rule; with `default` the pacing is the simulator's.)
//!
//! A run with ECN (neqo's `Aqm::codel()` on both links, queue doubled) is
//! simulated on the same path with CoDel at both bottlenecks and the
//! transport's ECN on (`--ecn on`; real neqo is ECN-capable on every
//! path), and reported as its own path, `<path>-ecn`.

use std::{collections::BTreeMap, fmt::Write as _, time::Duration};

use neqo_fc_sim::{
    net::EcnRewrite,
    scenario::{ReaderSpeed, WorkloadKind},
};
use serde::{Deserialize, Serialize};

use fc_lab::{
    compare::run_all,
    error::LabError,
    format::thousands,
    profiles::PathSpec,
    report::RunReport,
    spec::RunSpec,
    transport::{EcnArg, OpenRequestsArg, PacingArg, TransportChoice},
    tuners::TunerSpec,
    workloads::WorkloadSpec,
};

/// The committed real-neqo results (`run.sh --json`).
pub const RECORDED: &str = include_str!("../../integrations/neqo/results/matrix.json");
/// Where [`RECORDED`] lives in the repository.
pub const RECORDED_PATH: &str = "integrations/neqo/results/matrix.json";

/// A committed real-neqo results file other than [`RECORDED`].
#[derive(Clone, Copy, Debug)]
pub struct RecordedFile {
    /// The `fc-lab compare` workload whose bytes each transfer carries
    /// (empty when no matrix workload does).
    pub workload: &'static str,
    /// Where the file lives in the repository.
    pub path: &'static str,
    /// Its text (compiled in).
    pub text: &'static str,
}

/// A [`RecordedFile`] of `integrations/neqo/results/`, compiled in.
macro_rules! recorded {
    ($workload:literal, $file:literal) => {
        RecordedFile {
            workload: $workload,
            path: concat!("integrations/neqo/results/", $file),
            text: include_str!(concat!("../../integrations/neqo/results/", $file)),
        }
    };
}

/// Short transfers in real neqo (`run.sh --bytes N`, every variant, 21
/// RTTs each): as many bytes as the matrix's `small-msgs` (1000 × 4 KiB)
/// and `large-msg` (10 MiB) on one stream, `small-msgs`' bytes split over
/// ten streams opened at once (`--streams 10`, 409,600 B each), as
/// `many-100` (100 × 1 MiB) and 20 × 1 MiB (the ten- and twenty-stream
/// transfers are no matrix workload: `workload` is empty), sent as fast as the sender may (neqo serves the streams by
/// stream ID); the server opens unidirectional streams, and for the
/// multi-stream transfers also the client, with a request on each
/// (`--requests`, HTTP/3's shape). They end within or just after slow start, where the first
/// windows matter most: on the gigabit paths (`mission`, `bench`, 20–100
/// ms) and on `cable` (200 Mbit/s, 1-BDP queue, 8–48 ms), whose BDP plus
/// queue is below neqo's 1 MiB first window up to 21 ms.
pub const SHORT_TRANSFERS: [RecordedFile; 10] = [
    recorded!("small-msgs", "short-4MB.json"),
    recorded!("large-msg", "short-10MiB.json"),
    recorded!("", "short-10x409600.json"),
    recorded!("", "short-requests-10x409600.json"),
    recorded!("", "short-20x1MiB.json"),
    recorded!("", "short-requests-20x1MiB.json"),
    recorded!("many-100", "short-100x1MiB.json"),
    recorded!("many-100", "short-requests-100x1MiB.json"),
    recorded!("small-msgs", "short-cable-4MB.json"),
    recorded!("large-msg", "short-cable-10MiB.json"),
];

/// Per-datagram overhead of neqo's test-fixture `TailDrop`.
const NEQO_OVERHEAD_BYTES: u32 = 80;

/// Each simulated strategy, the real variant it stands for, and whether
/// that variant has the pacing patch.
pub const PAIRS: [(TunerSpec, &str, bool); 5] = [
    (TunerSpec::Unlimited, "unlimited", false),
    (TunerSpec::Neqo, "neqo-main", false),
    (TunerSpec::Neqo, "neqo-main+pacing", true),
    (TunerSpec::Default, "neqo-fc", false),
    (TunerSpec::Default, "neqo-fc+pacing", true),
];

/// The transport a pair is simulated on: `base`, with the pacing patch's
/// rule for a patched variant when `base` is the neqo model.
#[must_use]
pub fn pair_transport(base: TransportChoice, pacing_patch: bool) -> TransportChoice {
    if pacing_patch && base.preset.is_neqo() && base.pacing.is_none() {
        TransportChoice {
            pacing: Some(PacingArg::NeqoFixed),
            ..base
        }
    } else {
        base
    }
}

/// How close a pair has to be: goodput within ±`goodput` (a fraction),
/// peak stream window within ±`window` (`None`: not compared).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Target {
    /// Largest relative goodput difference.
    pub goodput: f64,
    /// Largest relative peak-window difference.
    pub window: Option<f64>,
}

/// The simulator-fidelity targets: `unlimited` and `neqo` within 5 % of
/// real neqo's goodput and (`neqo`) 15 % of its window; `default` within
/// 10 % of neqo-fc inside neqo.
#[must_use]
pub fn target(real_variant: &str) -> Target {
    match real_variant {
        "unlimited" => Target {
            goodput: 0.05,
            window: None,
        },
        "neqo-main" | "neqo-main+pacing" => Target {
            goodput: 0.05,
            window: Some(0.15),
        },
        _ => Target {
            goodput: 0.10,
            window: None,
        },
    }
}

/// One run of the real matrix (the fields calibration reads).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct RealRun {
    /// `mission` or `bench`.
    pub path: String,
    /// `neqo-main`, `unlimited`, `neqo-fc`, …
    pub variant: String,
    /// Round-trip propagation delay in seconds.
    pub rtt_s: f64,
    /// Bottleneck queue in bytes.
    pub queue_bytes: u64,
    /// ECN on (CoDel marking).
    pub ecn: bool,
    /// Bytes transferred on each stream.
    pub bytes: u64,
    /// Streams sending `bytes` each at once (1 when absent).
    #[serde(default = "one")]
    pub streams: u64,
    /// The client opened the streams and sent a request on each (the
    /// harness's `--requests`; false when absent: the server opened
    /// unidirectional streams).
    #[serde(default)]
    pub requests: bool,
    /// Goodput in bit/s, all streams together.
    pub goodput_bps: f64,
    /// Bandwidth-delay product in bytes.
    pub bdp_bytes: u64,
    /// The client's largest stream receive window.
    pub peak_stream_window_bytes: u64,
    /// Packets the sender declared lost.
    pub packets_lost: u64,
    /// Link rate in bit/s (1 Gbit/s when absent).
    #[serde(default = "gigabit")]
    pub rate_bps: u64,
    /// Congestion events the sender started on ECN-CE reports (0 when
    /// absent).
    #[serde(default)]
    pub congestion_events_ecn: u64,
}

const fn gigabit() -> u64 {
    1_000_000_000
}

const fn one() -> u64 {
    1
}

/// A results file of `run.sh --json`.
#[derive(Clone, Debug, Deserialize)]
pub struct RealResults {
    /// neqo's commit.
    pub neqo_commit: String,
    /// Every run.
    pub runs: Vec<RealRun>,
}

impl RealResults {
    /// Reads `run.sh --json` output; `source` names it in errors.
    ///
    /// # Errors
    /// [`LabError::Flag`] on `--real` when the text is not such a file.
    pub fn parse(text: &str, source: &str) -> Result<Self, LabError> {
        let r: Self = serde_json::from_str(text).map_err(|e| {
            LabError::flag(
                "--real",
                format!("{source}: not a run.sh --json results file: {e}"),
            )
        })?;
        if r.runs.is_empty() {
            return Err(LabError::flag("--real", format!("{source}: no runs")));
        }
        if let Some(bad) = r
            .runs
            .iter()
            .find(|run| !(1..=10_000).contains(&run.streams))
        {
            return Err(LabError::flag(
                "--real",
                format!(
                    "{source}: a run with {} streams (1 to 10000 can be simulated)",
                    bad.streams
                ),
            ));
        }
        Ok(r)
    }

    /// The committed results.
    ///
    /// # Errors
    /// As [`RealResults::parse`] (only if the committed file is broken).
    pub fn recorded() -> Result<Self, LabError> {
        Self::parse(RECORDED, RECORDED_PATH)
    }
}

/// One simulated run beside one real run.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// `mission` or `bench`.
    pub path: String,
    /// RTT in seconds.
    pub rtt_s: f64,
    /// The simulated strategy.
    pub sim_tuner: String,
    /// The real variant.
    pub real_variant: String,
    /// Goodput in bit/s, real and simulated.
    pub real_goodput_bps: f64,
    /// See `real_goodput_bps`.
    pub sim_goodput_bps: f64,
    /// sim / real.
    pub goodput_ratio: f64,
    /// Peak stream window / BDP, real and simulated (`None` for
    /// unlimited windows).
    pub real_window_bdp: Option<f64>,
    /// See `real_window_bdp`.
    pub sim_window_bdp: Option<f64>,
    /// sim / real peak window.
    pub window_ratio: Option<f64>,
    /// Packets lost, real and simulated.
    pub real_lost: u64,
    /// See `real_lost`.
    pub sim_lost: u64,
    /// Congestion events on ECN-CE reports, real and simulated.
    pub real_ecn_events: u64,
    /// See `real_ecn_events`.
    pub sim_ecn_events: u64,
    /// Goodput (and window, where compared) within the target.
    pub within_target: bool,
}

/// A pair's means over the RTT sweep of one path.
#[derive(Clone, Debug, Serialize)]
pub struct Mean {
    /// `mission` or `bench`.
    pub path: String,
    /// The simulated strategy.
    pub sim_tuner: String,
    /// The real variant.
    pub real_variant: String,
    /// RTTs averaged over.
    pub runs: usize,
    /// Mean goodput in bit/s, real and simulated.
    pub real_goodput_bps: f64,
    /// See `real_goodput_bps`.
    pub sim_goodput_bps: f64,
    /// sim / real.
    pub ratio: f64,
    /// Within the pair's goodput target.
    pub within_target: bool,
}

/// The whole comparison.
#[derive(Clone, Debug, Serialize)]
pub struct Calibration {
    /// neqo's commit of the real runs.
    pub neqo_commit: String,
    /// Where the real runs came from.
    pub real_source: String,
    /// The simulated transport (`neqo`, `default`, …; runs with ECN add
    /// `ecn=on`).
    pub transport: String,
    /// Real variants with no simulated counterpart, or missing.
    pub variants_missing: Vec<String>,
    /// Every pair at every path and RTT.
    pub rows: Vec<Row>,
    /// Means over each path's RTT sweep.
    pub means: Vec<Mean>,
    /// Simulated runs that failed (`"<file stem>: <error>"`).
    pub errors: Vec<String>,
}

/// The path a run is reported under: `bench`, `mission`, or with ECN
/// `bench-ecn`.
fn label(run: &RealRun) -> String {
    if run.ecn {
        format!("{}-ecn", run.path)
    } else {
        run.path.clone()
    }
}

/// The transport a pair is simulated on for `run`: [`pair_transport`],
/// with ECN on for a run with ECN unless `base` says otherwise.
fn run_transport(base: TransportChoice, pacing_patch: bool, run: &RealRun) -> TransportChoice {
    let mut t = pair_transport(base, pacing_patch);
    // Streams the client opened itself: their seeds go out with the
    // requests, as in neqo.
    if run.requests && t.open_requests.is_none() {
        t.open_requests = Some(OpenRequestsArg::AtRequest);
    }
    if run.ecn && t.ecn.is_none() {
        TransportChoice {
            ecn: Some(EcnArg::On),
            ..t
        }
    } else {
        t
    }
}

/// A simulated path: the recorded shape with neqo's per-datagram overhead,
/// and CoDel at both bottlenecks for a run with ECN.
fn path_of(run: &RealRun) -> PathSpec {
    PathSpec {
        name: format!("neqo-{}-{}ms", label(run), ms(run.rtt_s)),
        rate_bps: run.rate_bps,
        rtt: Duration::from_secs_f64(run.rtt_s),
        queue_bytes: run.queue_bytes,
        overhead_bytes: NEQO_OVERHEAD_BYTES,
        loss: 0.0,
        jitter: Duration::ZERO,
        jitter_reorders: false,
        reverse_rate_bps: None,
        reverse_loss: 0.0,
        codel: run.ecn,
        ecn_rewrite: EcnRewrite::Keep,
        cross: None,
    }
}

fn ms(rtt_s: f64) -> u64 {
    (rtt_s * 1000.0).round() as u64
}

/// (path label, RTT in µs, queue, bytes, rate, streams, requests): one
/// simulated path and transfer.
type PathKey = (String, u64, u64, u64, u64, u64, bool);

fn key(run: &RealRun) -> PathKey {
    (
        label(run),
        (run.rtt_s * 1e6).round() as u64,
        run.queue_bytes,
        run.bytes,
        run.rate_bps,
        run.streams,
        run.requests,
    )
}

/// The simulated (strategy, transport) combinations for `run`'s path, in
/// table order: those of the pairs whose real variant is in `variants`.
fn sim_runs(
    base: TransportChoice,
    run: &RealRun,
    variants: &[&str],
) -> Vec<(TunerSpec, TransportChoice)> {
    let mut t: Vec<(TunerSpec, TransportChoice)> = Vec::new();
    for (s, variant, patched) in PAIRS {
        if !variants.contains(&variant) {
            continue;
        }
        let run = (s, run_transport(base, patched, run));
        if !t.contains(&run) {
            t.push(run);
        }
    }
    t
}

/// The simulated runs `real` calls for: each path (with and without ECN)
/// once per strategy and transport that a real variant on it needs, in
/// path order.
#[must_use]
pub fn specs(real: &RealResults, transport: TransportChoice) -> Vec<RunSpec> {
    let mut paths: BTreeMap<PathKey, (&RealRun, Vec<&str>)> = BTreeMap::new();
    for r in &real.runs {
        let (_, variants) = paths.entry(key(r)).or_insert((r, Vec::new()));
        variants.push(&r.variant);
    }
    let mut out = Vec::new();
    for (run, variants) in paths.values() {
        let path = path_of(run);
        for (tuner, transport) in sim_runs(transport, run, variants) {
            let workload = WorkloadSpec {
                name: "bulk".to_owned(),
                kind: WorkloadKind::Bulk { bytes: run.bytes },
                // `RealResults::parse` keeps it within 1..=10000.
                streams: u32::try_from(run.streams).unwrap_or(1),
                reader: ReaderSpeed::Unlimited,
                stall: None,
            };
            let mut spec = RunSpec::new(path.clone(), workload, tuner);
            spec.transport = transport;
            out.push(spec);
        }
    }
    out
}

fn window_bdp(window: u64, bdp: u64) -> Option<f64> {
    // 2^62 − 1 and the like: unlimited, no meaningful multiple.
    (window < 1 << 50 && bdp > 0).then(|| window as f64 / bdp as f64)
}

/// Runs the simulated side on `threads` threads (`on_done` after each run)
/// and sets it beside `real`.
#[must_use]
pub fn calibrate(
    real: &RealResults,
    real_source: &str,
    transport: TransportChoice,
    threads: usize,
    on_done: &(dyn Fn(&RunReport) + Sync),
) -> Calibration {
    let specs = specs(real, transport);
    let reports = run_all(&specs, threads, on_done);
    let mut sim: BTreeMap<(PathKey, String, String), &RunReport> = BTreeMap::new();
    let mut errors = Vec::new();
    for (spec, report) in specs.iter().zip(&reports) {
        if let Some(e) = &report.error {
            errors.push(format!("{}: {e}", spec.file_stem()));
            continue;
        }
        let run = real
            .runs
            .iter()
            .find(|r| path_of(r).name == spec.path.name)
            .expect("every spec comes from a real run");
        sim.insert(
            (key(run), report.tuner.clone(), report.transport.clone()),
            report,
        );
    }
    let mut rows = Vec::new();
    let mut missing = Vec::new();
    for (tuner, variant, patched) in PAIRS {
        let name = fc_lab::tuners::TunerChoice::from(tuner).name();
        let mut real_runs: Vec<&RealRun> =
            real.runs.iter().filter(|r| r.variant == variant).collect();
        if real_runs.is_empty() {
            missing.push(variant.to_owned());
            continue;
        }
        real_runs.sort_by_key(|r| key(r));
        for r in real_runs {
            let transport_name = run_transport(transport, patched, r).name();
            let Some(s) = sim.get(&(key(r), name.clone(), transport_name)) else {
                continue;
            };
            let t = target(variant);
            let goodput_ratio = s.goodput_bps / r.goodput_bps;
            let real_window_bdp = window_bdp(r.peak_stream_window_bytes, r.bdp_bytes);
            let sim_window_bdp = window_bdp(s.peak_stream_window_bytes, s.bdp_bytes);
            let window_ratio = match (real_window_bdp, sim_window_bdp) {
                (Some(a), Some(b)) => Some(b / a),
                _ => None,
            };
            let window_ok = match (t.window, window_ratio) {
                (Some(w), Some(q)) => (q - 1.0).abs() <= w,
                _ => true,
            };
            rows.push(Row {
                path: label(r),
                rtt_s: r.rtt_s,
                sim_tuner: name.clone(),
                real_variant: variant.to_owned(),
                real_goodput_bps: r.goodput_bps,
                sim_goodput_bps: s.goodput_bps,
                goodput_ratio,
                real_window_bdp,
                sim_window_bdp,
                window_ratio,
                real_lost: r.packets_lost,
                sim_lost: s.packets_lost,
                real_ecn_events: r.congestion_events_ecn,
                sim_ecn_events: s.ecn_congestion_events,
                within_target: (goodput_ratio - 1.0).abs() <= t.goodput && window_ok,
            });
        }
    }
    let means = means(&rows);
    Calibration {
        neqo_commit: real.neqo_commit.clone(),
        real_source: real_source.to_owned(),
        transport: transport.name(),
        variants_missing: missing,
        rows,
        means,
        errors,
    }
}

/// (path, simulated strategy, real variant): one mean.
type PairKey = (String, String, String);

fn means(rows: &[Row]) -> Vec<Mean> {
    let mut groups: Vec<(PairKey, Vec<&Row>)> = Vec::new();
    for r in rows {
        let k = (r.path.clone(), r.sim_tuner.clone(), r.real_variant.clone());
        match groups.iter_mut().find(|(g, _)| *g == k) {
            Some((_, v)) => v.push(r),
            None => groups.push((k, vec![r])),
        }
    }
    groups
        .into_iter()
        .map(|((path, sim_tuner, real_variant), v)| {
            let n = v.len() as f64;
            let real = v.iter().map(|r| r.real_goodput_bps).sum::<f64>() / n;
            let sim = v.iter().map(|r| r.sim_goodput_bps).sum::<f64>() / n;
            let ratio = sim / real;
            Mean {
                within_target: (ratio - 1.0).abs() <= target(&real_variant).goodput,
                path,
                sim_tuner,
                real_variant,
                runs: v.len(),
                real_goodput_bps: real,
                sim_goodput_bps: sim,
                ratio,
            }
        })
        .collect()
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or_else(|| "max".to_owned(), |v| format!("{v:.digits$}"))
}

impl Calibration {
    /// Cells within their target, and all cells.
    #[must_use]
    pub fn score(&self) -> (usize, usize) {
        (
            self.rows.iter().filter(|r| r.within_target).count(),
            self.rows.len(),
        )
    }

    /// The tables a person reads.
    #[must_use]
    pub fn render(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "Simulator (transport {}) against real neqo {} ({}); 1 Gbit/s, 80 B per datagram; \
             `-ecn` paths: CoDel at both links, ECN on.",
            self.transport,
            &self.neqo_commit[..self.neqo_commit.len().min(7)],
            self.real_source
        );
        let _ = writeln!(
            o,
            "Targets: goodput within ±5 % (unlimited, neqo), ±10 % (default); neqo's peak window within ±15 %.\n"
        );
        let mut last = String::new();
        for r in &self.rows {
            let head = format!("{}: sim {} vs real {}", r.path, r.sim_tuner, r.real_variant);
            // ECN congestion events, on the paths where CoDel can mark.
            let ecn = r.path.ends_with("-ecn");
            if head != last {
                let _ = writeln!(
                    o,
                    "\n{head}\n{:>6} {:>9} {:>9} {:>6} {:>8} {:>8} {:>6} {:>8} {:>8}{}",
                    "RTT",
                    "real Mb/s",
                    "sim Mb/s",
                    "ratio",
                    "real W",
                    "sim W",
                    "ratio",
                    "real lost",
                    "sim lost",
                    if ecn { " real ECN  sim ECN" } else { "" }
                );
                last = head;
            }
            let _ = writeln!(
                o,
                "{:>4}ms {:>9.1} {:>9.1} {:>6.3} {:>8} {:>8} {:>6} {:>9} {:>8}{} {}",
                ms(r.rtt_s),
                r.real_goodput_bps / 1e6,
                r.sim_goodput_bps / 1e6,
                r.goodput_ratio,
                opt(r.real_window_bdp, 2),
                opt(r.sim_window_bdp, 2),
                r.window_ratio
                    .map_or_else(|| "-".to_owned(), |v| format!("{v:.2}")),
                thousands(r.real_lost),
                thousands(r.sim_lost),
                if ecn {
                    format!(" {:>9} {:>8}", r.real_ecn_events, r.sim_ecn_events)
                } else {
                    String::new()
                },
                if r.within_target { "" } else { "OFF" }
            );
        }
        let _ = writeln!(o, "\nMeans over the RTT sweep (Mbit/s):");
        for m in &self.means {
            let _ = writeln!(
                o,
                "  {:<8} sim {:<10} vs real {:<17} {:>7.1} vs {:>7.1}  ratio {:.3} {}",
                m.path,
                m.sim_tuner,
                m.real_variant,
                m.sim_goodput_bps / 1e6,
                m.real_goodput_bps / 1e6,
                m.ratio,
                if m.within_target { "" } else { "OFF" }
            );
        }
        let (ok, all) = self.score();
        let _ = writeln!(
            o,
            "\n{ok} of {all} cells within target; {} of {} means.{}",
            self.means.iter().filter(|m| m.within_target).count(),
            self.means.len(),
            if self.variants_missing.is_empty() {
                String::new()
            } else {
                format!(
                    " Not in the real results: {}.",
                    self.variants_missing.join(", ")
                )
            }
        );
        for e in &self.errors {
            let _ = writeln!(o, "error: {e}");
        }
        o
    }
}
