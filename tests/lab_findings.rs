//! Findings on simulated numbers, through the `fc_lab` library (the same
//! runs `fc-lab run` / `compare` make). Every number here is simulated and
//! deterministic, so these are exact regressions of the claims, not
//! flaky benchmarks.
//!
//! - a static 1 MiB window (neqo before auto-tuning) caps a 1 Gbit/s, 50 ms
//!   path at window / RTT ≈ 168 Mbit/s, and `default` is ≥ 5× faster there;
//! - yamux's study: with a static 256 KiB window, updating at half the
//!   window beats updating on exhaustion;
//! - a reader on a timer (`timer-reader`: wakes every two RTTs, at most
//!   half the link rate) on gbit-50ms: `neqo`'s rule never grows its
//!   1 MiB window (window / period); `default` grows to what one wake-up
//!   reads and is ≥ 4× faster, `double` gets there with twice the memory;
//! - `default` against `neqo` and `double` on every bulk path: goodput ≥
//!   theirs (a tie within 1 % counts) with no more peak stream window —
//!   asserted where it holds; the paths where it does not are listed, and
//!   an ignored test prints every path's numbers.

use fc_lab::{
    RunReport, RunSpec, execute,
    profiles::{self, PROFILES},
    tuners::TunerSpec,
    workloads::MatrixWorkload,
};
use neqo_fc::Fraction;

fn run(
    profile: &str,
    workload: MatrixWorkload,
    tuner: TunerSpec,
    fraction: Option<Fraction>,
) -> RunReport {
    let path = profiles::find(profile).expect("profile").path();
    let w = workload.on(&path, false);
    let mut spec = RunSpec::new(path, w, tuner);
    spec.overrides.update_fraction = fraction;
    let report = execute(&spec).expect("run").report;
    assert!(report.ok(), "{profile}/{}: {report:?}", tuner.name());
    report
}

fn bulk(profile: &str, tuner: TunerSpec) -> RunReport {
    run(profile, MatrixWorkload::Bulk, tuner, None)
}

const MBIT: f64 = 1e6;

#[test]
fn a_reader_on_a_timer_grows_default_but_not_neqo() {
    let tuners = [TunerSpec::Default, TunerSpec::Neqo, TunerSpec::Double];
    let [ours, neqo, double] =
        tuners.map(|t| run("gbit-50ms", MatrixWorkload::TimerReader, t, None));
    // 500 Mbit/s for 100 ms: what one wake-up may read.
    let per_wakeup = 500e6 / 8.0 * 0.100;
    for r in [&ours, &neqo, &double] {
        eprintln!(
            "timer-reader on gbit-50ms, {:6}: {:6.1} Mbit/s, peak buffer {:5.2} x one wake-up",
            r.tuner,
            r.goodput_bps / MBIT,
            r.peak_recv_buffer_bytes as f64 / per_wakeup
        );
    }
    // neqo: its 1 MiB start read once per 100 ms wake-up.
    let stuck = f64::from(1u32 << 20) * 8.0 / 0.100;
    assert!(neqo.goodput_bps <= stuck, "{}", neqo.goodput_bps);
    assert!(
        ours.goodput_bps >= 4.0 * neqo.goodput_bps,
        "{}",
        ours.goodput_bps
    );
    // Memory near one wake-up's worth, about half of double's.
    assert!((ours.peak_recv_buffer_bytes as f64) < 1.5 * per_wakeup);
    assert!(ours.peak_recv_buffer_bytes * 3 / 2 < double.peak_recv_buffer_bytes);
}

#[test]
fn fixed_1mib_on_gbit_50ms_stays_below_window_over_rtt() {
    let r = bulk("gbit-50ms", TunerSpec::Fixed(1 << 20));
    let cap = f64::from(1u32 << 20) * 8.0 / 0.050; // 167.8 Mbit/s
    eprintln!(
        "fixed:1MiB on gbit-50ms: {:.1} Mbit/s = {:.2} x window/RTT ({:.1} Mbit/s)",
        r.goodput_bps / MBIT,
        r.goodput_bps / cap,
        cap / MBIT
    );
    assert!(r.goodput_bps <= cap, "{} > {cap}", r.goodput_bps);
    // Window-limited, not broken: well above half of the cap.
    assert!(r.goodput_bps >= cap / 2.0, "{}", r.goodput_bps);
    assert_eq!(r.peak_stream_window_bytes, 1 << 20);
    assert!(
        r.fc_blocked_s > r.duration_s / 2.0,
        "blocked most of the time"
    );
}

#[test]
fn default_beats_fixed_1mib_by_5x_on_gbit_50ms() {
    let fixed = bulk("gbit-50ms", TunerSpec::Fixed(1 << 20));
    let ours = bulk("gbit-50ms", TunerSpec::Default);
    let ratio = ours.goodput_bps / fixed.goodput_bps;
    eprintln!(
        "gbit-50ms bulk: default {:.1} Mbit/s vs fixed:1MiB {:.1} Mbit/s = {ratio:.2}x",
        ours.goodput_bps / MBIT,
        fixed.goodput_bps / MBIT
    );
    assert!(ratio >= 5.0, "only {ratio:.2}x");
}

/// rust-yamux's study: a static 256 KiB window, one stream, one 10 MiB
/// message; sending the window update when half the window is consumed
/// beats sending it only when the window is exhausted.
#[test]
fn update_at_half_beats_update_on_exhaustion_with_fixed_256kib() {
    let mut ratios = Vec::new();
    for profile in ["residential-adsl2+", "residential-cable", "gbit-50ms"] {
        let tuner = TunerSpec::Fixed(256 << 10);
        let exhausted = run(
            profile,
            MatrixWorkload::LargeMsg,
            tuner,
            Some(Fraction::ONE),
        );
        let half = run(
            profile,
            MatrixWorkload::LargeMsg,
            tuner,
            Some(Fraction::HALF),
        );
        let ratio = exhausted.duration_s / half.duration_s;
        eprintln!(
            "{profile}: 10 MiB with fixed:256KiB, update on exhaustion {:.3} s, at half {:.3} s: half is {ratio:.2}x faster",
            exhausted.duration_s, half.duration_s
        );
        assert!(half.duration_s < exhausted.duration_s, "{profile}: {ratio}");
        ratios.push(ratio);
    }
    // The gap is largest where the window is a large share of the BDP per
    // RTT: well above noise on every path.
    assert!(ratios.iter().all(|&r| r > 1.2), "{ratios:?}");
}

/// Relative goodput difference treated as a tie (1 %).
const TIE: f64 = 0.01;

/// `default` against the two auto-tuning peers on one bulk path.
struct Versus {
    profile: &'static str,
    ours: RunReport,
    neqo: RunReport,
    double: RunReport,
}

impl Versus {
    fn on(profile: &'static str) -> Self {
        Self {
            profile,
            ours: bulk(profile, TunerSpec::Default),
            neqo: bulk(profile, TunerSpec::Neqo),
            double: bulk(profile, TunerSpec::Double),
        }
    }

    /// Goodput ≥ each peer's, where a tie within [`TIE`] counts: on
    /// link-limited paths every tuner finishes within a few packets of the
    /// others, and those nanoseconds are not a ranking.
    fn goodput_holds(&self) -> bool {
        let floor = |peer: &RunReport| peer.goodput_bps * (1.0 - TIE);
        self.ours.goodput_bps >= floor(&self.neqo) && self.ours.goodput_bps >= floor(&self.double)
    }

    fn window_holds(&self) -> bool {
        self.ours.peak_stream_window_bytes <= self.neqo.peak_stream_window_bytes
            && self.ours.peak_stream_window_bytes <= self.double.peak_stream_window_bytes
    }

    fn line(&self) -> String {
        let g = |r: &RunReport| r.goodput_bps / MBIT;
        let w = |r: &RunReport| r.window_bdp();
        format!(
            "{:<23} goodput Mbit/s default {:>9.3} neqo {:>9.3} double {:>9.3} | peak window/BDP default {:>6.2} neqo {:>6.2} double {:>6.2} | goodput {} window {}",
            self.profile,
            g(&self.ours),
            g(&self.neqo),
            g(&self.double),
            w(&self.ours),
            w(&self.neqo),
            w(&self.double),
            if self.goodput_holds() { "ok" } else { "FAILS" },
            if self.window_holds() { "ok" } else { "FAILS" },
        )
    }
}

/// Bulk paths where `default` has goodput ≥ `neqo` and ≥ `double` (within
/// [`TIE`]) and a peak stream window ≤ theirs (measured; see
/// [`DEFAULT_FALLS_SHORT`] for the others).
const DEFAULT_HOLDS: &[&str] = &[
    "residential-dsl",
    "residential-cable",
    "gbit-lan",
    "gbit-50ms",
    "bufferbloat",
];

/// Bulk paths where the claim fails, with the numbers measured when this
/// list was written (goodput in Mbit/s; peak stream window / BDP):
///
/// | path | default | neqo | double | window default / neqo / double | fails on |
/// |---|---|---|---|---|---|
/// | satellite | 0.468 | 0.474 | 0.474 | 6.07 / 18.20 / 18.20 | goodput −1.3 % |
/// | mobile-hsdpa | 5.409 | 5.486 | 5.486 | 4.66 / 13.98 / 13.98 | goodput −1.4 % |
/// | residential-adsl2+ | 17.37 | 17.76 | 17.76 | 2.80 / 8.39 / 8.39 | goodput −2.2 % |
/// | high-speed-terrestrial | 868.7 | 885.6 | 885.6 | 2.80 / 8.39 / 8.39 | goodput −1.9 % |
/// | neqo-bench | 727.2 | 695.8 | 618.0 | 1.31 / 1.24 / 3.36 | window > neqo's (goodput +4.5 %) |
/// | long-fat | 982.2 | 558.8 | 714.0 | 0.27 / 0.08 / 0.13 | window > both (goodput +38 % / +76 %: their caps bind) |
/// | lossy | 4.288 | 4.347 | 4.337 | 1.27 / 2.10 / 2.10 | goodput −1.4 % |
/// | reorder | 80.998 | 81.469 | 83.655 | 1.40 / 2.80 / 5.59 | goodput −3.2 % vs double (was 2.467 / 2.415 / 2.509 before spurious-loss detection) |
///
/// The goodput gaps are the ramp from our 64 KiB initial stream window on
/// transfers of a few MiB (the peers start every stream at 1 MiB, many
/// BDPs on these paths) and single-seed noise on the random-loss paths.
/// `cargo test --release --test lab_findings -- --ignored --nocapture`
/// prints the current numbers for every path.
const DEFAULT_FALLS_SHORT: &[&str] = &[
    "satellite",
    "mobile-hsdpa",
    "residential-adsl2+",
    "high-speed-terrestrial",
    "neqo-bench",
    "long-fat",
    "lossy",
    "reorder",
];

#[test]
fn lists_cover_every_profile() {
    let mut all: Vec<&str> = DEFAULT_HOLDS
        .iter()
        .chain(DEFAULT_FALLS_SHORT)
        .copied()
        .collect();
    all.sort_unstable();
    let mut names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
    names.sort_unstable();
    assert_eq!(all, names);
}

#[test]
fn default_matches_or_beats_peers_where_it_holds() {
    for profile in DEFAULT_HOLDS {
        let v = Versus::on(profile);
        eprintln!("{}", v.line());
        assert!(v.goodput_holds() && v.window_holds(), "{}", v.line());
    }
}

/// The claim on the paths where it fails today: prints every path's
/// numbers and fails, so `cargo test --release -- --ignored` shows them.
#[test]
#[ignore = "default falls short of neqo/double on these bulk paths; run with --ignored for the numbers"]
fn default_against_peers_everywhere() {
    let lines: Vec<(bool, String)> = PROFILES
        .iter()
        .map(|p| {
            let v = Versus::on(p.name);
            (v.goodput_holds() && v.window_holds(), v.line())
        })
        .collect();
    for (_, line) in &lines {
        eprintln!("{line}");
    }
    let failing: Vec<&str> = lines
        .iter()
        .filter(|(ok, _)| !ok)
        .map(|(_, l)| l.split_whitespace().next().unwrap_or(""))
        .collect();
    assert!(failing.is_empty(), "falls short on {failing:?}");
}
