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
//!   1 MiB window (window / period); `default` grows past what one
//!   wake-up reads and is ≥ 4× faster, with less memory than `double`;
//! - `default` against `neqo` and `double` in every profile × workload
//!   cell of `compare`'s matrix (the same runs and seed medians as its
//!   tables): where it is behind the better peer (beyond a 0.5 % tie) it is
//!   by under 8 % and with less credit; where it promises more credit
//!   than both, it is not behind. Which cells these are is computed from
//!   the runs; an ignored test prints every cell's numbers and fails where
//!   the plain claim (goodput ≥ the better peer's, with no more memory)
//!   does not hold.
//!
//! The blind-start study's finding is in `studies/tests/blind_start.rs`.

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
    // Memory under two wake-ups' worth and under double's: a tuning step
    // grows the window ×2.8 at most, so it can end above the one wake-up
    // it needs (358 against 334 Mbit/s when growth waited for a third
    // drained wake-up and stopped at 1.2 wake-ups' worth).
    assert!((ours.peak_recv_buffer_bytes as f64) < 2.0 * per_wakeup);
    assert!(ours.peak_recv_buffer_bytes < double.peak_recv_buffer_bytes);
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

/// Relative goodput difference treated as a tie (0.5 %): on link-limited
/// paths every tuner finishes within a few packets of the others, and
/// those nanoseconds are not a ranking.
const TIE: f64 = 0.005;

/// Relative memory difference treated as a tie (1 %): receive buffers of
/// runs with the same windows differ by the odd reordered packet.
const MEMORY_TIE: f64 = 0.01;

/// Largest shortfall against the better peer any cell may show (8 %;
/// measured: −2.9 %, `neqo-bench/large-msg` against `double`, a cell whose
/// single runs swing from −8.9 to +0.6 % within ±10 % of the RTT, hence
/// the margin): a regression bound, not a goal — the goal is the ignored
/// test below.
const SHORTFALL: f64 = 0.08;

/// `default` against the two auto-tuning peers in one profile × workload
/// cell of `compare`'s matrix.
struct Cell {
    name: String,
    ours: RunReport,
    peers: [RunReport; 2],
}

/// The peak-memory figures the claim is about: stream window, total
/// credit, exposure (total credit as far as the connection window lets
/// the peer use it) and receive buffer.
fn memory(r: &RunReport) -> [u64; 4] {
    r.memory_figures()
}

impl Cell {
    /// The peer with the higher goodput: the bar `default` must clear.
    fn best(&self) -> &RunReport {
        let [neqo, double] = &self.peers;
        if double.goodput_bps > neqo.goodput_bps {
            double
        } else {
            neqo
        }
    }

    /// Ours slower than the better peer beyond the tie.
    fn behind(&self) -> bool {
        self.ours.goodput_bps < self.best().goodput_bps * (1.0 - TIE)
    }

    /// Peak stream window, total credit, exposure and receive buffer each
    /// no larger than the larger of the peers' (within the memory tie).
    fn memory_within(&self) -> bool {
        let [neqo, double] = self.peers.each_ref().map(memory);
        memory(&self.ours)
            .iter()
            .zip(neqo.iter().zip(&double))
            .all(|(&o, (&n, &d))| o as f64 <= n.max(d) as f64 * (1.0 + MEMORY_TIE))
    }

    fn holds(&self) -> bool {
        !self.behind() && self.memory_within()
    }

    fn line(&self) -> String {
        let g = |r: &RunReport| r.goodput_bps / MBIT;
        let mib = |b: u64| b as f64 / f64::from(1u32 << 20);
        let m = |r: &RunReport| {
            let [w, c, e, b] = memory(r).map(mib);
            format!("{w:6.2}/{c:6.2}/{e:6.2}/{b:6.2}")
        };
        let [neqo, double] = &self.peers;
        format!(
            "{:<36} Mbit/s default {:>8.2} neqo {:>8.2} double {:>8.2} ({:+6.2} % vs {:6}) \
             | MiB window/credit/exposure/buffer default {} neqo {} double {} | {}",
            self.name,
            g(&self.ours),
            g(neqo),
            g(double),
            (self.ours.goodput_bps / self.best().goodput_bps - 1.0) * 100.0,
            self.best().tuner,
            m(&self.ours),
            m(neqo),
            m(double),
            match (self.behind(), self.memory_within()) {
                (false, true) => "holds",
                (true, true) => "BEHIND",
                (false, false) => "MORE MEMORY",
                (true, false) => "BEHIND, MORE MEMORY",
            },
        )
    }
}

/// `compare --tuner default,neqo,double`: every profile × workload cell of
/// both sections, the median-goodput run of five seeds where the path is
/// random — the runs behind the README's tables — once per test binary.
fn every_cell() -> &'static [Cell] {
    static RUNS: OnceLock<Vec<Cell>> = OnceLock::new();
    RUNS.get_or_init(|| {
        let tuners =
            [TunerSpec::Default, TunerSpec::Neqo, TunerSpec::Double].map(TunerChoice::from);
        let mut matrix = Matrix::full();
        matrix.filter(&[], &[], &tuners);
        let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let reports = median_of_seeds(run_all(&matrix.specs(), threads, &|_| {}));
        let all: Vec<Cell> = reports
            .chunks(tuners.len())
            .map(|cell| {
                let [ours, neqo, double] = cell else {
                    panic!("one report per tuner: {cell:?}");
                };
                for r in cell {
                    assert!(
                        r.ok() && r.profile == ours.profile && r.workload == ours.workload,
                        "{r:?}"
                    );
                }
                Cell {
                    name: format!("{}/{}", ours.profile, ours.workload),
                    ours: ours.clone(),
                    peers: [neqo.clone(), double.clone()],
                }
            })
            .collect();
        for c in &all {
            eprintln!("{}", c.line());
        }
        all
    })
}

#[test]
fn every_cell_of_the_matrix_is_compared_once() {
    let mut expected = Vec::new();
    for p in profiles::PROFILES {
        for w in MatrixWorkload::CLASSIC {
            expected.push(format!("{}/{}", p.name, w.name()));
        }
    }
    for p in ["gbit-50ms", "residential-cable"] {
        for w in MatrixWorkload::MANY_STREAMS {
            expected.push(format!("{p}/{}", w.name()));
        }
    }
    let mut names: Vec<String> = every_cell().iter().map(|c| c.name.clone()).collect();
    names.sort();
    expected.sort();
    assert_eq!(names, expected);
    for c in every_cell() {
        assert_eq!(
            [&c.ours, &c.peers[0], &c.peers[1]].map(|r| r.tuner.as_str()),
            ["default", "neqo", "double"]
        );
    }
}

/// The cell where `default` is both behind the better peer and exposes
/// more than both: the random-path cell reorder/small-msgs-10 (median of
/// five seeds), 0.5–0.6 % behind with 3.6 MiB of exposure against the
/// peers' 2.4–3.0. It was ahead while `ConnectionReceiver::update_pending()`
/// stayed true for streams the budget held back (issue #30's spin): the
/// simulated client then built a packet at every control-pacing slot,
/// each carrying an ACK. Listed so that a fix shows: the tests below fail
/// if it stops being an exception.
const EXPOSED_AND_BEHIND: &[&str] = &["reorder/small-msgs-10"];

/// Where `default` is behind the better peer (beyond the tie), it is by
/// under [`SHORTFALL`] and, but in [`EXPOSED_AND_BEHIND`], while exposing
/// less than that peer (its peak credit as far as its connection window
/// lets the peer use it): it never trades goodput for memory badly.
#[test]
fn where_default_is_behind_it_is_by_little_and_with_less_credit() {
    let mut behind = Vec::new();
    let mut exceptions = Vec::new();
    for c in every_cell().iter().filter(|c| c.behind()) {
        behind.push(c.name.as_str());
        let best = c.best();
        assert!(
            c.ours.goodput_bps >= best.goodput_bps * (1.0 - SHORTFALL),
            "{}",
            c.line()
        );
        if c.ours.peak_exposure_bytes >= best.peak_exposure_bytes {
            exceptions.push(c.name.as_str());
            assert!(
                EXPOSED_AND_BEHIND.contains(&c.name.as_str()),
                "{}",
                c.line()
            );
        }
    }
    assert_eq!(exceptions, EXPOSED_AND_BEHIND);
    eprintln!(
        "default behind the better peer in {} cells: {behind:?}",
        behind.len()
    );
}

/// Where `default` exposes more than both peers (credit the peer could
/// use at once: total credit within the connection window), it is not
/// behind either, but in [`EXPOSED_AND_BEHIND`]: extra credit is spent on
/// goodput. (Stream
/// windows and receive buffers may pass the peers' in cells where it is
/// behind — one stream of ten holding more while the total is less, a
/// reordered packet more in the buffer; the ignored test lists them.)
#[test]
fn where_default_promises_more_credit_it_is_not_behind() {
    let mut more = Vec::new();
    for c in every_cell().iter().filter(|c| {
        let most = c.peers.iter().map(|p| p.peak_exposure_bytes).max();
        most.is_some_and(|m| c.ours.peak_exposure_bytes as f64 > m as f64 * (1.0 + MEMORY_TIE))
    }) {
        more.push(c.name.as_str());
        let exception = EXPOSED_AND_BEHIND.contains(&c.name.as_str());
        assert_eq!(c.behind(), exception, "{}", c.line());
    }
    eprintln!(
        "default exposes more than both peers in {} cells: {more:?}",
        more.len()
    );
}

/// The plain claim in every cell: goodput ≥ the better peer's (a tie
/// counts) at peak stream window, total credit, exposure and receive buffer no
/// larger than the peers'. It does not hold everywhere yet (see the two
/// tests above for what holds instead, and the README for why); run with
/// `--ignored --nocapture` for every cell's numbers.
#[test]
#[ignore = "default falls short of the better peer, or holds more memory, in some cells; run with --ignored for the numbers"]
fn default_against_peers_in_every_cell() {
    let failing: Vec<&str> = every_cell()
        .iter()
        .filter(|c| !c.holds())
        .map(|c| c.name.as_str())
        .collect();
    assert!(
        failing.is_empty(),
        "{} of {} cells: {failing:?}",
        failing.len(),
        every_cell().len()
    );
}
