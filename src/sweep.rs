//! Fault sweeps (`fc-lab sweep`): seeded runs, each on a random hostile
//! path ([`Faults`]) with every byte verified. A run passes when it
//! completes within [`TIME_LIMIT`], every byte arrives once and in order,
//! no transport error closes the connection and the budget holds.

use std::{
    panic::{AssertUnwindSafe, catch_unwind},
    sync::Arc,
    time::Duration,
};

use neqo_fc::{Budget, Config, ExcessTuner};
use neqo_fc_sim::{
    metrics::Metrics,
    net::{LossModel, PathConfig, bdp_bytes},
    rng::Rng,
    scenario::{ReaderSpeed, Scenario, Stall, Workload, WorkloadKind},
};
use serde::Serialize;

use crate::execute::panic_message;

/// Simulated time bound of every run.
pub const TIME_LIMIT: Duration = Duration::from_secs(300);

/// Salt mixed into the seed for the fault generator, so its random stream
/// differs from the run's own PRNG (seeded with the plain seed).
const GENERATOR_SALT: u64 = 0x5EED_FA17_0000_0001;

/// Smallest and largest bytes per stream.
const MIN_STREAM_BYTES: u64 = 64 << 10;
const MAX_STREAM_BYTES: u64 = 2 << 20;

/// The transfer is shrunk (not below [`MIN_STREAM_BYTES`] per stream) so
/// that its estimated time stays under this, far inside [`TIME_LIMIT`].
const TARGET_SECONDS: f64 = 30.0;

/// The faults one seed injects, and the transfer it checks: rate 1–1000
/// Mbit/s (log-uniform), RTT 1–300 ms, queue 0.25–4 BDP, loss 0–10 %
/// (none, Bernoulli or Gilbert–Elliott), reordering jitter 0–5 ms,
/// duplication 0–5 %, ACK-path loss, a receiver pause, 1–4 streams of
/// 64 KiB–2 MiB, and half the time a memory budget.
///
/// Invariant: the same seed always gives the same `Faults`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Faults {
    /// The seed (also the run's PRNG seed).
    pub seed: u64,
    /// Bottleneck rate, bit/s (both directions).
    pub rate_bps: u64,
    /// Round-trip propagation delay.
    pub rtt: Duration,
    /// Bottleneck queue, bytes.
    pub queue_bytes: u64,
    /// Data-path loss: `"none"`, `"bernoulli"` or `"gilbert-elliott"`.
    pub loss_model: &'static str,
    /// Data-path long-run loss rate.
    pub loss_rate: f64,
    /// Mean loss burst (Gilbert–Elliott only; 1 otherwise).
    pub loss_burst: f64,
    /// ACK-path Bernoulli loss rate.
    pub ack_loss_rate: f64,
    /// Largest jitter (reordering) in both directions.
    pub jitter: Duration,
    /// Duplication probability in both directions.
    pub duplicate: f64,
    /// How much later a duplicate arrives.
    pub duplicate_delay: Duration,
    /// Streams.
    pub streams: u32,
    /// Bytes per stream.
    pub stream_bytes: u64,
    /// Receiver pause: the last `streams` streams stop reading at `start`
    /// for `duration`.
    #[serde(skip)]
    pub stall: Stall,
    /// Whether the receiver enforces [`Budget::default`].
    pub budget: bool,
}

/// Log-uniform draw in `[lo, hi]`.
fn log_uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    (lo.ln() + rng.next_f64() * (hi.ln() - lo.ln())).exp()
}

/// Uniform draw in `[lo, hi]`.
fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + rng.next_f64() * (hi - lo)
}

#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss
)]
impl Faults {
    /// The faults of `seed`.
    #[must_use]
    pub fn from_seed(seed: u64) -> Self {
        let mut rng = Rng::new(seed ^ GENERATOR_SALT);
        let rate_bps = log_uniform(&mut rng, 1e6, 1e9).round() as u64;
        let rtt = Duration::from_micros(uniform(&mut rng, 1_000.0, 300_000.0) as u64);
        let bdp = bdp_bytes(rate_bps, rtt);
        let queue_bytes = ((bdp as f64 * log_uniform(&mut rng, 0.25, 4.0)) as u64).max(3 * 1500);
        let loss_rate = uniform(&mut rng, 0.0, 0.10);
        let (loss_model, loss_burst) = match rng.below(3) {
            0 => ("none", 1.0),
            1 => ("bernoulli", 1.0),
            _ => ("gilbert-elliott", uniform(&mut rng, 1.0, 4.0)),
        };
        let loss_rate = if loss_model == "none" { 0.0 } else { loss_rate };
        let ack_loss_rate = if rng.chance(0.5) {
            uniform(&mut rng, 0.0, 0.02)
        } else {
            0.0
        };
        let jitter = Duration::from_nanos(rng.below(5_000_001));
        let duplicate = uniform(&mut rng, 0.0, 0.05);
        let duplicate_delay = Duration::from_nanos(rng.below(2_000_001));
        let streams = 1 + u32::try_from(rng.below(4)).unwrap_or(0);
        let mut stream_bytes =
            log_uniform(&mut rng, MIN_STREAM_BYTES as f64, MAX_STREAM_BYTES as f64) as u64;
        // Mathis et al. 1997: a loss-limited flow gets about
        // MSS / RTT × 1.22 / √p; keep the transfer well inside the bound.
        let mss_bits = 1200.0 * 8.0;
        let rtt_s = rtt.as_secs_f64().max(1e-3);
        let mut est_bps = rate_bps as f64;
        if loss_rate > 0.0 {
            est_bps = est_bps.min(mss_bits / rtt_s * 1.22 / loss_rate.sqrt());
        }
        let cap = (est_bps * TARGET_SECONDS / 8.0 / f64::from(streams)) as u64;
        stream_bytes = stream_bytes.min(cap).max(MIN_STREAM_BYTES);
        let stall = Stall {
            streams: 1 + u32::try_from(rng.below(u64::from(streams))).unwrap_or(0),
            start: Duration::from_micros(rng.below(2_000_001)),
            duration: Duration::from_micros(10_000 + rng.below(3_000_001)),
        };
        let budget = rng.chance(0.5);
        Self {
            seed,
            rate_bps,
            rtt,
            queue_bytes,
            loss_model,
            loss_rate,
            loss_burst,
            ack_loss_rate,
            jitter,
            duplicate,
            duplicate_delay,
            streams,
            stream_bytes,
            stall,
            budget,
        }
    }

    /// Bytes the receiving application must read.
    #[must_use]
    pub fn expected_bytes(&self) -> u64 {
        self.stream_bytes * u64::from(self.streams)
    }

    /// The run these faults describe: verify mode on, [`TIME_LIMIT`].
    #[must_use]
    pub fn scenario(&self) -> Scenario {
        let loss = match self.loss_model {
            "bernoulli" => LossModel::Bernoulli {
                rate: self.loss_rate,
            },
            "gilbert-elliott" => LossModel::GilbertElliott {
                mean_rate: self.loss_rate,
                mean_burst: self.loss_burst,
            },
            _ => LossModel::None,
        };
        let forward = PathConfig {
            rate_bps: Some(self.rate_bps),
            queue_bytes: self.queue_bytes,
            delay: self.rtt / 2,
            loss,
            jitter: self.jitter,
            jitter_reorders: true,
            duplicate: self.duplicate,
            duplicate_delay: self.duplicate_delay,
            ..PathConfig::default()
        };
        let reverse = PathConfig {
            loss: if self.ack_loss_rate > 0.0 {
                LossModel::Bernoulli {
                    rate: self.ack_loss_rate,
                }
            } else {
                LossModel::None
            },
            ..forward.clone()
        };
        let workload = Workload {
            kind: WorkloadKind::Bulk {
                bytes: self.stream_bytes,
            },
            streams: self.streams,
            reader: ReaderSpeed::Unlimited,
            stall: Some(self.stall),
        };
        let mut s = Scenario::new(forward, workload);
        s.reverse = reverse;
        let mut fc = Config::default();
        if self.budget {
            fc.budget = Some(Budget::default());
        }
        s.tuner = Arc::new(ExcessTuner::DEFAULT);
        s.fc = fc;
        s.seed = self.seed;
        s.verify = true;
        s.time_limit = TIME_LIMIT;
        s
    }

    /// One line listing every fault, for failure messages.
    #[must_use]
    pub fn describe(&self) -> String {
        format!(
            "seed {}: rate {} bit/s, RTT {:?}, queue {} B, loss {} {:.4} (burst {:.2}), \
             ACK loss {:.4}, jitter {:?} (reordering), duplicate {:.4} (+{:?}), \
             {} stream(s) × {} B, pause of {} stream(s) at {:?} for {:?}, budget {}",
            self.seed,
            self.rate_bps,
            self.rtt,
            self.queue_bytes,
            self.loss_model,
            self.loss_rate,
            self.loss_burst,
            self.ack_loss_rate,
            self.jitter,
            self.duplicate,
            self.duplicate_delay,
            self.streams,
            self.stream_bytes,
            self.stall.streams,
            self.stall.start,
            self.stall.duration,
            self.budget
        )
    }
}

/// Faults injected, by kind, as the simulator's metrics report them.
///
/// Invariant: every field is a sum of per-run counts (adding is exact).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FaultCounts {
    /// Datagrams dropped on either path (random loss and queue drops).
    pub dropped: u64,
    /// Packets the sender declared lost (and retransmitted).
    pub declared_lost: u64,
    /// Streams whose reader paused, then resumed.
    pub pauses: u64,
    /// Datagrams the paths duplicated (both directions; each copy is
    /// delivered).
    pub duplicated: u64,
    /// Datagrams the jitter element let overtake an earlier one.
    pub reordered: u64,
}

impl FaultCounts {
    /// The faults one run injected.
    #[must_use]
    pub fn of_run(f: &Faults, m: &Metrics) -> Self {
        Self {
            dropped: m.drops,
            declared_lost: m.packets_lost,
            pauses: u64::from(f.stall.streams),
            duplicated: m.duplicated,
            reordered: m.reordered,
        }
    }

    /// Adds `other` (saturating).
    pub fn add(&mut self, other: &Self) {
        self.dropped = self.dropped.saturating_add(other.dropped);
        self.declared_lost = self.declared_lost.saturating_add(other.declared_lost);
        self.pauses = self.pauses.saturating_add(other.pauses);
        self.duplicated = self.duplicated.saturating_add(other.duplicated);
        self.reordered = self.reordered.saturating_add(other.reordered);
    }

    /// Every counted fault: drops, duplicates, reorderings and pauses
    /// (declared losses are the sender's view of the drops and are not
    /// counted twice).
    #[must_use]
    pub fn total(&self) -> u64 {
        self.dropped
            .saturating_add(self.duplicated)
            .saturating_add(self.reordered)
            .saturating_add(self.pauses)
    }
}

/// A run that broke a rule.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Failure {
    /// The seed to replay.
    pub seed: u64,
    /// What went wrong, e.g. `"incomplete: 1000 of 2000 bytes"`.
    pub what: String,
    /// The faults of that seed ([`Faults::describe`]).
    pub faults: String,
}

/// What one seed's run gave.
#[derive(Clone, Debug, PartialEq)]
pub struct SeedOutcome {
    /// The seed.
    pub seed: u64,
    /// Faults injected.
    pub faults: FaultCounts,
    /// Simulated duration.
    pub simulated: Duration,
    /// Events processed.
    pub events: u64,
    /// The broken rule, if any.
    pub failure: Option<Failure>,
}

impl SeedOutcome {
    /// A seed whose run gave no result because `what` went wrong.
    fn failed(seed: u64, what: String) -> Self {
        Self {
            seed,
            faults: FaultCounts::default(),
            simulated: Duration::ZERO,
            events: 0,
            failure: Some(Failure {
                seed,
                what,
                faults: Faults::from_seed(seed).describe(),
            }),
        }
    }
}

/// The rules a run must keep, checked in order; the first broken one.
fn check(f: &Faults, m: &Metrics) -> Option<String> {
    let expected = f.expected_bytes();
    if let Some((code, reason)) = &m.error {
        return Some(format!("connection error {code:#x}: {reason}"));
    }
    if m.verify_failures > 0 {
        return Some(format!("{} bytes failed verification", m.verify_failures));
    }
    if m.bytes != expected {
        return Some(format!("read {} of {expected} bytes", m.bytes));
    }
    if !m.completed || m.duration > TIME_LIMIT {
        return Some(format!("not complete within {TIME_LIMIT:?}"));
    }
    if m.budget_violations > 0 {
        return Some(format!("{} budget violations", m.budget_violations));
    }
    None
}

/// Runs `seed` and checks it; a panic inside the simulator is a failure,
/// not a crash.
#[must_use]
pub fn run_seed(seed: u64) -> SeedOutcome {
    let f = Faults::from_seed(seed);
    let scenario = f.scenario();
    match catch_unwind(AssertUnwindSafe(|| neqo_fc_sim::run(&scenario))) {
        Ok(r) => SeedOutcome {
            seed,
            faults: FaultCounts::of_run(&f, &r.metrics),
            simulated: r.metrics.duration,
            events: r.metrics.events,
            failure: check(&f, &r.metrics).map(|what| Failure {
                seed,
                what,
                faults: f.describe(),
            }),
        },
        Err(panic) => {
            let msg = panic_message(&*panic).unwrap_or_default();
            SeedOutcome::failed(seed, format!("simulator panicked: {msg}"))
        }
    }
}

/// Runs every seed in `seeds` on `threads` threads (at least 1); results
/// are in `seeds` order whatever the thread count.
#[must_use]
pub fn run_seeds(seeds: &[u64], threads: usize) -> Vec<SeedOutcome> {
    run_seeds_with(seeds, threads, &|_| {})
}

/// [`run_seeds`], calling `on_done` once per finished seed (from the worker
/// threads; for progress display).
#[must_use]
pub fn run_seeds_with(
    seeds: &[u64],
    threads: usize,
    on_done: &(dyn Fn(&SeedOutcome) + Sync),
) -> Vec<SeedOutcome> {
    let order: Vec<usize> = (0..seeds.len()).collect();
    let slots = crate::parallel::run_indexed(seeds.len(), &order, threads, &|i| {
        let outcome = run_seed(seeds[i]);
        on_done(&outcome);
        outcome
    });
    // A worker that died loses its results: report those seeds as failed.
    slots
        .into_iter()
        .zip(seeds)
        .map(|(o, &seed)| {
            o.unwrap_or_else(|| SeedOutcome::failed(seed, "worker thread died".to_owned()))
        })
        .collect()
}

/// Summary of a sweep (the JSON of `fc-lab sweep --json`).
///
/// Invariant: `failures` lists exactly the failed runs, in seed order;
/// `passed + failures.len() == runs`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepReport {
    /// First seed.
    pub start: u64,
    /// Runs (seeds `start .. start + runs`).
    pub runs: u64,
    /// Runs that kept every rule.
    pub passed: u64,
    /// Faults injected over all runs, by kind.
    pub faults_injected: FaultCounts,
    /// Sum of [`FaultCounts::total`].
    pub faults_total: u64,
    /// Failed runs with their seeds and faults.
    pub failures: Vec<Failure>,
    /// Simulated time over all runs, seconds.
    pub simulated_seconds: f64,
    /// Longest simulated run, seconds.
    pub longest_run_seconds: f64,
    /// Simulator events over all runs.
    pub events: u64,
    /// Simulated time bound of each run, seconds.
    pub time_limit_seconds: f64,
}

impl SweepReport {
    /// Sums `outcomes` of seeds starting at `start`.
    #[must_use]
    pub fn new(start: u64, outcomes: &[SeedOutcome]) -> Self {
        let mut faults = FaultCounts::default();
        let mut failures = Vec::new();
        let mut simulated = Duration::ZERO;
        let mut longest = Duration::ZERO;
        let mut events = 0u64;
        for o in outcomes {
            faults.add(&o.faults);
            simulated = simulated.saturating_add(o.simulated);
            longest = longest.max(o.simulated);
            events = events.saturating_add(o.events);
            failures.extend(o.failure.clone());
        }
        let runs = outcomes.len() as u64;
        Self {
            start,
            runs,
            passed: runs - failures.len() as u64,
            faults_total: faults.total(),
            faults_injected: faults,
            failures,
            simulated_seconds: simulated.as_secs_f64(),
            longest_run_seconds: longest.as_secs_f64(),
            events,
            time_limit_seconds: TIME_LIMIT.as_secs_f64(),
        }
    }

    /// The human summary: runs, faults by kind, failures with seeds.
    #[must_use]
    pub fn render(&self) -> String {
        let f = &self.faults_injected;
        let mut s = format!(
            "runs      {} (seeds {}..={}), {} passed, {} failed\n\
             faults    {} injected: {} datagrams dropped ({} declared lost by the sender), \
             {} streams paused by the receiver\n\
             paths     {} datagrams duplicated, {} reordered\n\
             simulated {:.1} s in total, longest run {:.1} s (bound {:.0} s), {} events\n",
            self.runs,
            self.start,
            (self.start + self.runs).saturating_sub(1),
            self.passed,
            self.failures.len(),
            self.faults_total,
            f.dropped,
            f.declared_lost,
            f.pauses,
            f.duplicated,
            f.reordered,
            self.simulated_seconds,
            self.longest_run_seconds,
            self.time_limit_seconds,
            self.events,
        );
        for x in &self.failures {
            s.push_str(&format!(
                "FAILED    seed {}: {}\n          {}\n",
                x.seed, x.what, x.faults
            ));
        }
        s
    }
}

/// Runs seeds `start .. start + n` on `threads` threads and sums them.
#[must_use]
pub fn sweep(start: u64, n: u64, threads: usize) -> SweepReport {
    sweep_with(start, n, threads, &|_| {})
}

/// [`sweep`], calling `on_done` once per finished seed.
#[must_use]
pub fn sweep_with(
    start: u64,
    n: u64,
    threads: usize,
    on_done: &(dyn Fn(&SeedOutcome) + Sync),
) -> SweepReport {
    let seeds: Vec<u64> = (0..n).map(|i| start.saturating_add(i)).collect();
    SweepReport::new(start, &run_seeds_with(&seeds, threads, on_done))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_stay_in_range_and_are_deterministic() {
        for seed in 0..2000 {
            let f = Faults::from_seed(seed);
            assert_eq!(f, Faults::from_seed(seed));
            assert!((1_000_000..=1_000_000_000).contains(&f.rate_bps), "{f:?}");
            assert!(f.rtt >= Duration::from_millis(1) && f.rtt <= Duration::from_millis(300));
            let bdp = bdp_bytes(f.rate_bps, f.rtt);
            assert!(f.queue_bytes >= 4500 && f.queue_bytes <= (4 * bdp).max(4500));
            assert!(f.queue_bytes >= bdp / 4);
            assert!((0.0..=0.10).contains(&f.loss_rate));
            assert!(f.jitter <= Duration::from_millis(5));
            assert!((0.0..=0.05).contains(&f.duplicate));
            assert!((1..=4).contains(&f.streams));
            assert!((MIN_STREAM_BYTES..=MAX_STREAM_BYTES).contains(&f.stream_bytes));
            assert!(f.stall.streams >= 1 && f.stall.streams <= f.streams);
            assert!(!f.stall.permanent());
            assert!(f.scenario().forward.validate().is_ok());
            assert!(f.scenario().reverse.validate().is_ok());
        }
        assert_ne!(Faults::from_seed(1), Faults::from_seed(2));
    }

    #[test]
    fn scenario_checks_every_byte_within_bound() {
        let f = Faults::from_seed(7);
        let s = f.scenario();
        assert!(s.verify);
        assert_eq!(s.time_limit, TIME_LIMIT);
        assert_eq!(s.seed, 7);
        assert_eq!(
            s.workload.kind.total_bytes(u64::from(s.workload.streams)),
            f.expected_bytes()
        );
        assert_eq!(s.fc.budget.is_some(), f.budget);
    }

    #[test]
    fn check_reports_first_broken_rule() {
        let f = Faults::from_seed(3);
        let good = Metrics {
            bytes: f.expected_bytes(),
            completed: true,
            duration: Duration::from_secs(1),
            ..Metrics::default()
        };
        assert_eq!(check(&f, &good), None);
        let short = Metrics {
            bytes: f.expected_bytes() - 1,
            ..good.clone()
        };
        assert_eq!(
            check(&f, &short),
            Some(format!(
                "read {} of {} bytes",
                f.expected_bytes() - 1,
                f.expected_bytes()
            ))
        );
        let late = Metrics {
            completed: false,
            ..good.clone()
        };
        assert!(check(&f, &late).is_some_and(|s| s.starts_with("not complete")));
        let bad = Metrics {
            verify_failures: 2,
            budget_violations: 1,
            ..good.clone()
        };
        assert_eq!(
            check(&f, &bad),
            Some("2 bytes failed verification".to_owned())
        );
        let err = Metrics {
            error: Some((3, "FLOW_CONTROL_ERROR".to_owned())),
            ..good.clone()
        };
        assert_eq!(
            check(&f, &err),
            Some("connection error 0x3: FLOW_CONTROL_ERROR".to_owned())
        );
        let over = Metrics {
            budget_violations: 1,
            ..good
        };
        assert_eq!(check(&f, &over), Some("1 budget violations".to_owned()));
    }

    #[test]
    fn report_sums_and_keeps_seed_order() {
        let o = |seed, dropped, fail: bool| SeedOutcome {
            seed,
            faults: FaultCounts {
                dropped,
                pauses: 1,
                ..FaultCounts::default()
            },
            simulated: Duration::from_secs(seed),
            events: 10,
            failure: fail.then(|| Failure {
                seed,
                what: "x".to_owned(),
                faults: String::new(),
            }),
        };
        let r = SweepReport::new(5, &[o(5, 3, false), o(6, 4, true), o(7, 0, true)]);
        assert_eq!((r.runs, r.passed), (3, 1));
        assert_eq!(r.faults_injected.dropped, 7);
        assert_eq!(r.faults_total, 10);
        assert_eq!(r.events, 30);
        assert_eq!(r.longest_run_seconds, 7.0);
        assert_eq!(
            r.failures.iter().map(|f| f.seed).collect::<Vec<_>>(),
            [6, 7]
        );
        assert!(r.render().contains("3 (seeds 5..=7), 1 passed, 2 failed\n"));
    }

    #[test]
    fn results_do_not_depend_on_threads() {
        let seeds = [11, 12, 13, 14];
        assert_eq!(run_seeds(&seeds, 1), run_seeds(&seeds, 3));
    }
}
