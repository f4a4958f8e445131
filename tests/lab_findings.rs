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
//! - `default` against `neqo` and `double` on every bulk path of
//!   `compare`'s matrix (the same runs and seed medians as its table):
//!   where it is slower than a peer (beyond a 1 % tie) it is by under 5 %
//!   and with a smaller peak window; where its window is larger, it is
//!   faster. Which paths these are is computed from the runs; an ignored
//!   test prints every path's numbers and fails where the plain claim
//!   (goodput ≥ theirs with no more window) does not hold.

use std::sync::OnceLock;

use fc_lab::{
    RunReport, RunSpec,
    compare::{Matrix, median_of_seeds, run_all},
    execute, profiles,
    tuners::{TunerChoice, TunerSpec},
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

/// Relative goodput difference treated as a tie (1 %): on link-limited
/// paths every tuner finishes within a few packets of the others, and
/// those nanoseconds are not a ranking.
const TIE: f64 = 0.01;

/// Largest shortfall against a peer the claim tolerates (5 %): the ramp
/// from our 64 KiB initial stream window on transfers of a few MiB, where
/// the peers start every stream at 1 MiB.
const SHORTFALL: f64 = 0.05;

/// `default` against the two auto-tuning peers on one bulk path.
struct Versus {
    profile: String,
    ours: RunReport,
    peers: [RunReport; 2],
}

impl Versus {
    /// Ours slower than `peer` beyond the tie.
    fn slower(&self, peer: &RunReport) -> bool {
        self.ours.goodput_bps < peer.goodput_bps * (1.0 - TIE)
    }

    /// Ours faster than `peer` beyond the tie.
    fn faster(&self, peer: &RunReport) -> bool {
        self.ours.goodput_bps > peer.goodput_bps * (1.0 + TIE)
    }

    /// Goodput ≥ each peer's (a tie counts) with no larger peak window.
    fn holds(&self) -> bool {
        self.peers.iter().all(|p| {
            !self.slower(p) && self.ours.peak_stream_window_bytes <= p.peak_stream_window_bytes
        })
    }

    fn line(&self) -> String {
        let g = |r: &RunReport| r.goodput_bps / MBIT;
        let w = |r: &RunReport| r.window_bdp();
        let [neqo, double] = &self.peers;
        format!(
            "{:<23} goodput Mbit/s default {:>9.3} neqo {:>9.3} ({:+.2} %) double {:>9.3} ({:+.2} %) \
             | peak window/BDP default {:>6.2} neqo {:>6.2} double {:>6.2} | {}",
            self.profile,
            g(&self.ours),
            g(neqo),
            (self.ours.goodput_bps / neqo.goodput_bps - 1.0) * 100.0,
            g(double),
            (self.ours.goodput_bps / double.goodput_bps - 1.0) * 100.0,
            w(&self.ours),
            w(neqo),
            w(double),
            if self.holds() { "holds" } else { "FAILS" },
        )
    }
}

/// `compare --workload bulk --tuner default,neqo,double`: every profile,
/// the median-goodput run of five seeds where the path is random — the
/// runs behind the README's bulk table — once per test binary.
fn bulk_matrix() -> &'static [Versus] {
    static RUNS: OnceLock<Vec<Versus>> = OnceLock::new();
    RUNS.get_or_init(|| {
        let tuners =
            [TunerSpec::Default, TunerSpec::Neqo, TunerSpec::Double].map(TunerChoice::from);
        let mut matrix = Matrix::full();
        matrix.filter(&[], &[MatrixWorkload::Bulk], &tuners);
        let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let reports = median_of_seeds(run_all(&matrix.specs(), threads, &|_| {}));
        let all: Vec<Versus> = reports
            .chunks(tuners.len())
            .map(|cell| {
                let [ours, neqo, double] = cell else {
                    panic!("one report per tuner: {cell:?}");
                };
                for r in cell {
                    assert!(r.ok() && r.profile == ours.profile, "{r:?}");
                }
                Versus {
                    profile: ours.profile.clone(),
                    ours: ours.clone(),
                    peers: [neqo.clone(), double.clone()],
                }
            })
            .collect();
        for v in &all {
            eprintln!("{}", v.line());
        }
        all
    })
}

#[test]
fn the_bulk_matrix_covers_every_profile_once() {
    let names: Vec<&str> = bulk_matrix().iter().map(|v| v.profile.as_str()).collect();
    let all: Vec<&str> = profiles::PROFILES.iter().map(|p| p.name).collect();
    assert_eq!(names, all);
    for v in bulk_matrix() {
        assert_eq!(
            (
                v.ours.tuner.as_str(),
                v.peers[0].tuner.as_str(),
                v.peers[1].tuner.as_str()
            ),
            ("default", "neqo", "double")
        );
    }
}

/// Where `default` is slower than a peer (beyond the tie), it is by under
/// [`SHORTFALL`] and with a smaller peak stream window: it never trades
/// goodput for memory badly, and is never both slower and larger.
#[test]
fn where_default_is_slower_it_is_by_little_and_with_less_window() {
    let mut slower = Vec::new();
    for v in bulk_matrix() {
        for peer in v.peers.iter().filter(|p| v.slower(p)) {
            slower.push(format!("{} vs {}", v.profile, peer.tuner));
            assert!(
                v.ours.goodput_bps >= peer.goodput_bps * (1.0 - SHORTFALL),
                "{}",
                v.line()
            );
            assert!(
                v.ours.peak_stream_window_bytes < peer.peak_stream_window_bytes,
                "{}",
                v.line()
            );
        }
    }
    eprintln!("default slower beyond the tie: {slower:?}");
}

/// Where `default`'s peak stream window is larger than a peer's, the peer
/// was window-bound (its cap or its rule): `default` is faster there.
#[test]
fn where_default_has_the_larger_window_it_is_faster() {
    let mut larger = Vec::new();
    for v in bulk_matrix() {
        for peer in v
            .peers
            .iter()
            .filter(|p| v.ours.peak_stream_window_bytes > p.peak_stream_window_bytes)
        {
            larger.push(format!("{} vs {}", v.profile, peer.tuner));
            assert!(v.faster(peer), "{}", v.line());
        }
    }
    eprintln!("default's window larger: {larger:?}");
}

/// The plain claim on every path: goodput ≥ both peers' (a tie counts)
/// with no larger peak window. It does not hold everywhere (see the two
/// tests above for what holds instead); run with `--ignored --nocapture`
/// for every path's numbers.
#[test]
#[ignore = "default falls short of neqo/double on some bulk paths; run with --ignored for the numbers"]
fn default_against_peers_everywhere() {
    let failing: Vec<&str> = bulk_matrix()
        .iter()
        .filter(|v| !v.holds())
        .map(|v| v.profile.as_str())
        .collect();
    assert!(failing.is_empty(), "falls short on {failing:?}");
}
