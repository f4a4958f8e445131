//! The simulator held to real neqo (`fc-studies calibrate`): the mission path
//! of the committed neqo integration results
//! (`integrations/neqo/results/matrix.json`, written by
//! `integrations/neqo/run.sh --json`), simulated with the `neqo`
//! transport model (neqo as traced, `calibrate`'s default), the bench path
//! with ECN, and both paths over a denser RTT sweep
//! (`results/bench-dense.json`, `results/mission-dense.json`), with the
//! first, fitted model (`neqo-fitted`) too (its dense sweep is ignored:
//! CI's time). The asserted bands are
//! the agreement the model reaches there; the full targets (every
//! cell of every path) are in the ignored test, which prints every cell.

use std::sync::OnceLock;

use fc_lab::transport::{Preset, SendOrderArg, TransportChoice};
use fc_studies::calibrate::{Calibration, Mean, RealResults, RealRun, calibrate, specs};

fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// The committed real runs that `keep` selects, calibrated on the `neqo`
/// transport model (every cell printed to stderr).
fn calibrated(keep: impl Fn(&RealRun) -> bool, source: &str) -> Calibration {
    calibrated_on(Preset::Neqo, keep, source)
}

/// `real` calibrated on the `transport` model, every cell printed to stderr.
fn calibrate_printed(real: &RealResults, source: &str, transport: Preset) -> Calibration {
    let c = calibrate(
        real,
        source,
        TransportChoice::preset(transport),
        threads(),
        &|_| {},
    );
    eprintln!("{}", c.render());
    c
}

/// As [`calibrated`], on the `transport` model.
fn calibrated_on(transport: Preset, keep: impl Fn(&RealRun) -> bool, source: &str) -> Calibration {
    let mut real = RealResults::recorded().expect("the committed results parse");
    real.runs.retain(keep);
    calibrate_printed(&real, source, transport)
}

/// The mission path only (1-BDP tail drop, every RTT), once per binary.
fn mission() -> &'static Calibration {
    static C: OnceLock<Calibration> = OnceLock::new();
    C.get_or_init(|| calibrated(|r| r.path == "mission", "recorded, mission path"))
}

fn rows<'a>(c: &'a Calibration, sim: &str, real: &str) -> Vec<&'a fc_studies::calibrate::Row> {
    let v: Vec<_> = c
        .rows
        .iter()
        .filter(|r| r.sim_tuner == sim && r.real_variant == real)
        .collect();
    assert_eq!(v.len(), 7, "{sim} vs {real}: one row per RTT of the sweep");
    v
}

/// The mean over the sweep of `sim` against `real`.
fn mean<'a>(c: &'a Calibration, sim: &str, real: &str) -> &'a Mean {
    c.means
        .iter()
        .find(|m| m.sim_tuner == sim && m.real_variant == real)
        .unwrap_or_else(|| panic!("no mean of {sim} vs {real}"))
}

#[test]
fn every_mission_run_simulates() {
    assert!(mission().errors.is_empty(), "{:?}", mission().errors);
}

/// Unlimited windows: within 5 % of real neqo at every RTT (neqo's 10 MiB
/// send buffer is what caps both above ~84 ms), and no loss where neqo
/// has none (RTT ≥ 50 ms: the send buffer keeps the flight within BDP +
/// queue).
#[test]
fn unlimited_matches_real_neqo_at_every_rtt() {
    for r in rows(mission(), "unlimited", "unlimited") {
        assert!((r.goodput_ratio - 1.0).abs() <= 0.05, "{r:?}");
        if r.real_lost == 0 {
            assert_eq!(r.sim_lost, 0, "{r:?}");
        }
    }
}

/// Our `neqo` strategy (neqo's controller: *_BLOCKED answered at once,
/// a tuning step at every update, no connection floor) against neqo main
/// with the pacing fix: goodput within 5 % at every RTT on both models,
/// and on the `neqo` model, whose sender reports *_BLOCKED when its
/// writes reach a limit as neqo's does, the peak stream window within
/// 15 % at every RTT too. At 20 and 30 ms real neqo's window overshoots in
/// slow start to the 10 MiB cap (4.19 and 2.80 BDP; 2,184 and 2,332
/// packets lost), and so does the model's since its receiver times RTT
/// samples from ACK-only packets (`AckOnlySent`): without that its
/// smoothed RTT stayed at the empty-queue 21.7 ms where real neqo's
/// climbed past 30, and its windows stopped at 1.38 and 1.62 BDP without
/// a loss. The fitted model's windows are 0.52 and 0.71 of real's at 20
/// and 40 ms: its sender reports only once the credit is all sent, 195
/// *_BLOCKED at 20 ms against real neqo's 1,033.
#[test]
fn neqo_matches_real_neqo_with_the_pacing_fix() {
    for r in rows(mission(), "neqo", "neqo-main+pacing") {
        assert!((r.goodput_ratio - 1.0).abs() <= 0.05, "{r:?}");
        let w = r.window_ratio.expect("finite windows");
        assert!((w - 1.0).abs() <= 0.15, "{r:?}");
    }
    let fitted = calibrated_on(
        Preset::NeqoFitted,
        |r| r.path == "mission" && r.variant == "neqo-main+pacing",
        "recorded, mission path",
    );
    for r in rows(&fitted, "neqo", "neqo-main+pacing") {
        assert!((r.goodput_ratio - 1.0).abs() <= 0.05, "{r:?}");
    }
}

/// Against neqo main as it is, with 0.30.1's pacing debt modelled:
/// goodput within 5 % at every RTT, the window-bound collapse at 80 ms
/// (486 Mbit/s, against 849 unlimited) included, the mean over the sweep
/// within 5 %, and the peak stream window within 15 % at 6 of the 7 RTTs
/// (30 ms: 2.80 BDP against 2.15). The fitted model had only the mean:
/// the debt's timing moved its 60 and 100 ms runs by 12–17 %.
#[test]
fn neqo_matches_real_neqo_main_at_every_rtt_and_on_the_mean() {
    let c = mission();
    let m = mean(c, "neqo", "neqo-main");
    assert!((m.ratio - 1.0).abs() <= 0.05, "{m:?}");
    let runs = rows(c, "neqo", "neqo-main");
    for r in &runs {
        assert!((r.goodput_ratio - 1.0).abs() <= 0.05, "{r:?}");
    }
    let windows = runs
        .iter()
        .filter(|r| r.window_ratio.is_some_and(|w| (w - 1.0).abs() <= 0.15))
        .count();
    assert!(windows >= 6, "windows within 15 % at {windows} of 7 RTTs");
}

/// `default` against neqo-fc inside neqo (with the pacing fix): goodput
/// within 10 % and the peak stream window within 25 % at every RTT, no
/// loss on either side.
#[test]
fn default_matches_neqo_fc_inside_neqo() {
    for r in rows(mission(), "default", "neqo-fc+pacing") {
        assert!((r.goodput_ratio - 1.0).abs() <= 0.10, "{r:?}");
        let w = r.window_ratio.expect("finite windows");
        assert!((w - 1.0).abs() <= 0.25, "{r:?}");
        assert_eq!((r.real_lost, r.sim_lost), (0, 0), "{r:?}");
    }
}

/// `default` against neqo-fc inside neqo *without* the pacing fix: the
/// pacer holds its MAX_STREAM_DATA back, and neqo-fc's late-update term
/// (`TuneInput::late`) lets the window pay for the delay in both. Goodput
/// within 10 % at every RTT and within 5 % on the mean. Without the term
/// the simulator got 603.6 and 524.3 Mbit/s at 80 and 100 ms (0.78 × and
/// 0.74 × of today's real runs), and real neqo 181.5 Mbit/s at 100 ms.
/// On the fitted model (`neqo-fitted`) windows are not compared: below
/// 60 ms real neqo overshoots in slow start (1.6–3.5 BDP), the model does
/// not.
#[test]
fn default_matches_neqo_fc_with_the_pacing_debt_on_the_fitted_model() {
    let c = calibrated_on(
        Preset::NeqoFitted,
        |r| r.path == "mission" && r.variant == "neqo-fc",
        "recorded, mission path",
    );
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    for r in rows(&c, "default", "neqo-fc") {
        assert!((r.goodput_ratio - 1.0).abs() <= 0.10, "{r:?}");
    }
    assert_eq!(c.means.len(), 1, "{:?}", c.means);
    assert!((c.means[0].ratio - 1.0).abs() <= 0.05, "{:?}", c.means[0]);
}

/// The same on the `neqo` model, where a loss-free run keeps neqo's ACK
/// every second packet and so the pacing debt: neqo-fc's updates wait
/// about a round trip each, and it stops answering *_BLOCKED early
/// (`ReceiverFlowControl::update_due`). Goodput within 10 % at every RTT
/// and within 5 % on the mean, peak windows within 25 % from 50 ms up
/// (below, real neqo overshoots in slow start). Answering those claims
/// early instead locked the simulated 60 ms run into one real update per
/// two round trips: 480 Mbit/s against 802, and a mean of −25 %.
#[test]
fn default_matches_neqo_fc_inside_neqo_with_the_pacing_debt() {
    let c = mission();
    for r in rows(c, "default", "neqo-fc") {
        assert!((r.goodput_ratio - 1.0).abs() <= 0.10, "{r:?}");
        if r.rtt_s >= 0.05 {
            let w = r.window_ratio.expect("finite windows");
            assert!((w - 1.0).abs() <= 0.25, "{r:?}");
        }
    }
    let m = mean(c, "default", "neqo-fc");
    assert!((m.ratio - 1.0).abs() <= 0.05, "{m:?}");
}

/// neqo's bench path with ECN (`Aqm::codel()` on both links, 1 MB queue):
/// simulated with CoDel marking and ECN on, the sweep's mean for
/// unlimited windows is within 5 % of real neqo's, and CoDel signals as
/// rarely as it does there (real: at most one ECN congestion event per
/// run; the 1 MB queue overflows in slow start before CoDel's 100 ms
/// interval has passed, so losses drive CUBIC in both).
#[test]
fn bench_with_ecn_agrees_on_the_mean_and_on_how_rarely_codel_marks() {
    let keep = |r: &RealRun| r.ecn && r.variant == "unlimited";
    // Only the strategy a real variant needs is simulated: one run per RTT.
    let mut real = RealResults::recorded().expect("the committed results parse");
    real.runs.retain(keep);
    assert_eq!(specs(&real, TransportChoice::preset(Preset::Neqo)).len(), 7);
    let c = calibrated(keep, "recorded, bench path with ECN");
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    let rows = rows(&c, "unlimited", "unlimited");
    for r in &rows {
        assert_eq!(r.path, "bench-ecn");
        assert!(r.real_ecn_events <= 1, "{r:?}");
        assert!(r.sim_ecn_events <= 2, "{r:?}");
        assert!(r.sim_lost > 0, "losses, not marks, drive CUBIC: {r:?}");
    }
    assert!(
        rows.iter().any(|r| r.sim_ecn_events > 0),
        "CoDel marks at all"
    );
    let m = &c.means[0];
    assert_eq!(c.means.len(), 1);
    assert!((m.ratio - 1.0).abs() <= 0.05, "{m:?}");
}

/// A committed 21-RTT sweep (20–100 ms every 4 ms) for the real
/// `variants`, beside the simulator's `transport`: one mean per variant
/// and path (the bench sweep has ECN off and on), each over all 21 RTTs.
fn dense_sweep(json: &str, source: &str, variants: &[&str], transport: Preset) -> Vec<Mean> {
    dense_calibration(json, source, variants, transport).means
}

/// [`dense_sweep`] with every row, not only the means.
fn dense_calibration(
    json: &str,
    source: &str,
    variants: &[&str],
    transport: Preset,
) -> Calibration {
    let mut real = RealResults::parse(json, source).expect("the committed dense sweep parses");
    real.runs.retain(|r| variants.contains(&r.variant.as_str()));
    let paths = if real.runs.iter().any(|r| r.ecn) {
        2
    } else {
        1
    };
    assert_eq!(real.runs.len(), 21 * variants.len() * paths);
    let c = calibrate_printed(&real, source, transport);
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    assert_eq!(c.means.len(), variants.len() * paths, "{:?}", c.means);
    for m in &c.means {
        assert_eq!(m.runs, 21, "{m:?}");
    }
    c
}

/// The bench path's sweep (`integrations/neqo/results/bench-dense.json`,
/// ECN off and on).
fn bench_sweep(variants: [&str; 2], transport: Preset) -> Vec<Mean> {
    dense_sweep(
        include_str!("../../integrations/neqo/results/bench-dense.json"),
        "integrations/neqo/results/bench-dense.json",
        &variants,
        transport,
    )
}

/// The mission path's sweep (`integrations/neqo/results/mission-dense.json`).
fn mission_sweep(variants: &[&str], transport: Preset) -> Vec<Mean> {
    mission_calibration(variants, transport).means
}

/// [`mission_sweep`] with every row.
fn mission_calibration(variants: &[&str], transport: Preset) -> Calibration {
    dense_calibration(
        include_str!("../../integrations/neqo/results/mission-dense.json"),
        "integrations/neqo/results/mission-dense.json",
        variants,
        transport,
    )
}

/// Over the mission path's 21 RTTs the fitted `neqo` model has every mean
/// within target: `unlimited` and `neqo` (against neqo main, with and
/// without the pacing fix) within ±5 %, `default` (against neqo-fc, with
/// and without it) within ±10 %. Ignored: the fitted model is the
/// superseded one (the traced model is `calibrate`'s default and has the
/// same sweep below), and its 105 runs of 1 GiB were a fifth of CI's
/// calibration time; `-- --ignored fitted_model_agrees` runs it.
#[test]
#[ignore = "the superseded fitted model over 105 runs (CI time); run with --ignored fitted_model_agrees"]
fn mission_over_21_rtts_the_fitted_model_agrees_on_every_mean() {
    let variants = [
        "unlimited",
        "neqo-main",
        "neqo-main+pacing",
        "neqo-fc",
        "neqo-fc+pacing",
    ];
    for m in mission_sweep(&variants, Preset::NeqoFitted) {
        let band = if m.sim_tuner == "default" { 0.10 } else { 0.05 };
        assert!((m.ratio - 1.0).abs() <= band, "{m:?}");
    }
}

/// The traced model over the same sweep: `default` within ±5 % of
/// neqo-fc's mean, with the pacing debt and without.
#[test]
fn mission_over_21_rtts_the_traced_model_agrees_on_neqo_fc() {
    let variants = ["neqo-fc", "neqo-fc+pacing"];
    for m in mission_sweep(&variants, Preset::Neqo) {
        assert!((m.ratio - 1.0).abs() <= 0.05, "{m:?}");
    }
}

/// The traced model against neqo main as it is, run by run: neqo's
/// sender reports *_BLOCKED as soon as its writes reach a limit, neqo
/// main answers each at once, its connection window has no floor over the
/// stream window, its congestion window grows by a whole burst once the
/// burst's tail used half of it, and it acknowledges only when an ACK is
/// due (`TransportOptions::neqo`), and its receiver times RTT samples
/// from the largest packet an ACK names, ACK-only or not
/// (`AckOnlySent`). With those the peak stream window is within ±15 % of
/// real neqo main's at 19 of the 21 RTTs (24 ms: 2.96 BDP against 3.50;
/// 28 ms: 3.00 against 2.09), goodput within ±5 % at 19 and the mean
/// within ±5 % (−2.0 %). The misses: at 72 ms real neqo loses 7 packets
/// after slow start, which lowers its ACK rate and ends the pacing debt,
/// and the model loses none and keeps it (0.64 of real); at 88 ms, where
/// the window bounds both, the model is 5.3 % slower. Before the six, 7
/// of the 21 runs were within ±5 % and the mean −15.7 %. With the pacing
/// fix every run is within target, windows and goodput, and the model
/// loses packets at exactly the RTTs where real neqo does (20–44 ms).
/// `unlimited` is within ±1 % at every RTT (real neqo's bundling no ACK of
/// ACK-only packets into its data packets was worth 5 % from 48 to
/// 88 ms).
#[test]
fn mission_over_21_rtts_the_traced_model_follows_neqo_main_run_by_run() {
    let c = mission_calibration(
        &["neqo-main", "neqo-main+pacing", "unlimited"],
        Preset::Neqo,
    );
    for r in c
        .rows
        .iter()
        .filter(|r| r.real_variant == "neqo-main+pacing")
    {
        assert!((r.goodput_ratio - 1.0).abs() <= 0.05, "{r:?}");
        let w = r.window_ratio.expect("finite windows");
        assert!((w - 1.0).abs() <= 0.15, "{r:?}");
        assert_eq!(r.real_lost == 0, r.sim_lost == 0, "{r:?}");
    }
    let runs: Vec<_> = c
        .rows
        .iter()
        .filter(|r| r.real_variant == "neqo-main")
        .collect();
    assert_eq!(runs.len(), 21);
    let windows = runs
        .iter()
        .filter(|r| r.window_ratio.is_some_and(|w| (w - 1.0).abs() <= 0.15))
        .count();
    let goodput = runs
        .iter()
        .filter(|r| (r.goodput_ratio - 1.0).abs() <= 0.05)
        .count();
    assert!(windows >= 19, "windows within 15 % at {windows} of 21 RTTs");
    assert!(goodput >= 19, "goodput within 5 % at {goodput} of 21 RTTs");
    for m in &c.means {
        assert!((m.ratio - 1.0).abs() <= 0.05, "{m:?}");
    }
    for r in c.rows.iter().filter(|r| r.sim_tuner == "unlimited") {
        assert!((r.goodput_ratio - 1.0).abs() <= 0.01, "{r:?}");
    }
}

/// Single runs on the bench path are chaotic, but over the 21-RTT sweep
/// `unlimited` agrees with real neqo's mean within ±5 % and `default`
/// with `neqo-fc+pacing`'s within ±10 %, ECN off and on (on the fitted
/// model too, whose `neqo` strategy does not: see below).
#[test]
fn bench_over_21_rtts_agrees_on_the_means() {
    for m in bench_sweep(["unlimited", "neqo-fc+pacing"], Preset::Neqo) {
        let band = if m.sim_tuner == "unlimited" {
            0.05
        } else {
            0.10
        };
        assert!((m.ratio - 1.0).abs() <= band, "{m:?}");
    }
}

/// The same sweep with the traced neqo model (`--transport neqo`:
/// neqo's ACK_FREQUENCY, datagram and header sizes, 1 ms pacing
/// granularity, *_BLOCKED on writes, no connection floor, neqo's
/// app-limited rule, ACKs only when due): there neqo 0.30.1's pacing debt
/// lasts only until slow start's first loss, and the `neqo` strategy
/// agrees with real neqo main's mean within ±5 %, with the pacing debt
/// and without, ECN off and on. (With the fitted model, `neqo-fitted`,
/// the debt costs 7–12 % here.)
#[test]
fn bench_over_21_rtts_the_traced_model_agrees_on_neqo_main() {
    for m in bench_sweep(["neqo-main", "neqo-main+pacing"], Preset::Neqo) {
        assert!((m.ratio - 1.0).abs() <= 0.05, "{m:?}");
    }
}

/// The targets on every scenario of the matrix (both paths, with
/// and without the pacing fix). They do not all hold: single runs on the
/// shallow-queue bench path are chaotic in RTT (real neqo itself moves by
/// 200 Mbit/s for 2 ns of RTT), and so are a few with pacing debt; run
/// with `--ignored --nocapture` for every cell.
#[test]
#[ignore = "not every cell is within target; run with --ignored --nocapture for the numbers"]
fn every_cell_within_target() {
    let c = calibrated(|_| true, "recorded");
    let (ok, all) = c.score();
    assert_eq!(ok, all, "{ok} of {all} cells within target");
}

/// The committed short transfers in real neqo (`calibrate::SHORT_TRANSFERS`:
/// the bytes of `small-msgs` and `large-msg` on one stream, `small-msgs`'
/// bytes over ten streams, `many-100`, and 20 × 1 MiB; the gigabit paths at
/// 20–100 ms, `cable` at 8–48 ms), each file calibrated once on the
/// `neqo` model.
fn short_transfers() -> &'static [(fc_studies::calibrate::RecordedFile, Calibration)] {
    static C: OnceLock<Vec<(fc_studies::calibrate::RecordedFile, Calibration)>> = OnceLock::new();
    C.get_or_init(|| {
        fc_studies::calibrate::SHORT_TRANSFERS
            .iter()
            .map(|f| {
                let real = RealResults::parse(f.text, f.path).expect("committed file parses");
                let c = calibrate_printed(&real, f.path, Preset::Neqo);
                (*f, c)
            })
            .collect()
    })
}

/// Where the model's mean is known to be further off: neqo main's own
/// tuning with 100 streams on the bench path (0.1-BDP queue), which it
/// puts 5–10 % above real neqo (`neqo-fc` and unlimited windows agree
/// there within 2 %).
fn known_gap(f: &fc_studies::calibrate::RecordedFile, m: &Mean) -> bool {
    f.workload == "many-100" && m.path.starts_with("bench") && m.sim_tuner == "neqo"
}

/// How far the model's gap between `neqo-fc` and neqo's own tuning may be
/// from real neqo's, in points: 3, but 7 for 20 streams of 1 MiB on the
/// bench path with ECN (CoDel), where the model loses more packets with
/// `neqo-fc`'s windows than real neqo does (512 against none at 100 ms)
/// and puts the gap at −10 % where real neqo shows −4 % (on the other
/// two paths it agrees within 3 points).
fn gap_band(f: &fc_studies::calibrate::RecordedFile, path: &str) -> f64 {
    if f.path.ends_with("short-20x1MiB.json") && path == "bench-ecn" {
        0.07
    } else {
        0.03
    }
}

/// Over each sweep the `neqo` model's means of the variants with the
/// pacing fix, and of unlimited windows, are within 5 % of real neqo's
/// (every run simulates), but for [`known_gap`], within 10 %.
#[test]
fn short_transfers_the_model_agrees_on_the_means() {
    for (f, c) in short_transfers() {
        assert!(c.errors.is_empty(), "{}: {:?}", f.path, c.errors);
        let mut checked = 0;
        for m in &c.means {
            if ["unlimited", "neqo-main+pacing", "neqo-fc+pacing"]
                .contains(&m.real_variant.as_str())
            {
                assert_eq!(m.runs, 21, "{}: {m:?}", f.path);
                let band = if known_gap(f, m) { 0.10 } else { 0.05 };
                assert!((m.ratio - 1.0).abs() <= band, "{}: {m:?}", f.path);
                checked += 1;
            }
        }
        assert!(checked >= 3, "{}: {:?}", f.path, c.means);
    }
}

/// What decides the #15 `small-msgs` cells, the same in real neqo and in
/// the model: `neqo-fc` against neqo's own tuning (both with the pacing
/// fix) differs by the same amount on the mean of every path, within 3
/// points (within [`gap_band`]; not where [`known_gap`] puts neqo's own
/// tuning off).
#[test]
fn short_transfers_the_model_sees_the_same_gap_to_neqo() {
    for (f, c) in short_transfers() {
        let paths: std::collections::BTreeSet<&str> =
            c.means.iter().map(|m| m.path.as_str()).collect();
        for path in paths {
            let m = |v: &str| {
                c.means
                    .iter()
                    .find(|m| m.path == path && m.real_variant == v)
                    .unwrap_or_else(|| panic!("{}: no {path} mean of {v}", f.path))
            };
            let (fc, main) = (m("neqo-fc+pacing"), m("neqo-main+pacing"));
            if known_gap(f, main) {
                continue;
            }
            let real = fc.real_goodput_bps / main.real_goodput_bps;
            let sim = fc.sim_goodput_bps / main.sim_goodput_bps;
            assert!(
                (real - sim).abs() <= gap_band(f, path),
                "{} {path}: real {real:.3}, model {sim:.3}",
                f.path
            );
        }
    }
}

/// Why the first seed is 512 KiB and not neqo's 1 MiB, in real neqo and
/// in the model alike: on `cable` (200 Mbit/s, 1-BDP queue) at 12–22 ms,
/// where BDP plus queue is below 1 MiB, the 512 KiB seed brakes slow
/// start — `neqo-fc` loses no packet and finishes 4 MB sooner than neqo,
/// whose 1 MiB start overshoots — while on the gigabit mission path the
/// same 4 MB transfer ends in slow start behind neqo's larger start.
#[test]
fn short_transfers_the_smaller_first_window_brakes_slow_start_on_cable() {
    let (_, cable) = short_transfers()
        .iter()
        .find(|(f, _)| f.path.ends_with("short-cable-4MB.json"))
        .expect("the cable 4 MB sweep");
    let row = |c: &'static Calibration, path: &str, v: &str, ms: u64| {
        c.rows
            .iter()
            .find(|r| {
                r.path == path && r.real_variant == v && (r.rtt_s * 1000.0).round() as u64 == ms
            })
            .unwrap_or_else(|| panic!("no {path} {v} row at {ms} ms"))
    };
    for ms in (12..=22).step_by(2) {
        let fc = row(cable, "cable", "neqo-fc+pacing", ms);
        let main = row(cable, "cable", "neqo-main+pacing", ms);
        assert_eq!((fc.real_lost, fc.sim_lost), (0, 0), "{ms} ms: {fc:?}");
        assert!(main.real_lost > 0 && main.sim_lost > 0, "{ms} ms: {main:?}");
        assert!(fc.real_goodput_bps > main.real_goodput_bps, "{ms} ms");
        assert!(fc.sim_goodput_bps > main.sim_goodput_bps, "{ms} ms");
    }
    let (_, gigabit) = short_transfers()
        .iter()
        .find(|(f, _)| f.path.ends_with("short-4MB.json") && !f.path.contains("cable"))
        .expect("the gigabit 4 MB sweep");
    let mean = |v: &str| {
        gigabit
            .means
            .iter()
            .find(|m| m.path == "mission" && m.real_variant == v)
            .expect("mission mean")
    };
    let (fc, main) = (mean("neqo-fc+pacing"), mean("neqo-main+pacing"));
    assert!(
        fc.real_goodput_bps < main.real_goodput_bps,
        "{fc:?} {main:?}"
    );
    assert!(fc.sim_goodput_bps < main.sim_goodput_bps, "{fc:?} {main:?}");
}

/// Ten streams of 409,600 bytes opened at once (`small-msgs`' bytes split
/// ten ways; the lab's `small-msgs-10` is ten times as many)
/// in real neqo: `neqo-fc` trails neqo's own tuning by about 8 % at every
/// RTT, because neqo sends its streams by stream ID, so the later ones
/// start, each at its 64 KiB promise, only once the earlier ones are
/// done, and wait a round trip for their seed. The model sees that only
/// when it serves streams the same way (`--send-order stream-id`, part of
/// the `neqo` model): round robin, it puts the gap at a third of that.
#[test]
fn ten_streams_the_model_needs_neqos_stream_order() {
    let file = fc_studies::calibrate::SHORT_TRANSFERS
        .iter()
        .find(|f| f.path.ends_with("short-10x409600.json"))
        .expect("the ten-stream sweep");
    let mut real = RealResults::parse(file.text, file.path).expect("committed file parses");
    real.runs
        .retain(|r| r.path == "mission" && r.variant.ends_with("+pacing"));
    let gap = |order: SendOrderArg| {
        let transport = TransportChoice {
            send_order: Some(order),
            ..TransportChoice::preset(Preset::Neqo)
        };
        let c = calibrate(&real, file.path, transport, threads(), &|_| {});
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        let m = |v: &str| {
            c.means
                .iter()
                .find(|m| m.real_variant == v)
                .cloned()
                .unwrap_or_else(|| panic!("no mean of {v}"))
        };
        let (fc, main) = (m("neqo-fc+pacing"), m("neqo-main+pacing"));
        (
            fc.real_goodput_bps / main.real_goodput_bps - 1.0,
            fc.sim_goodput_bps / main.sim_goodput_bps - 1.0,
        )
    };
    let (real_gap, in_order) = gap(SendOrderArg::StreamId);
    assert!(real_gap < -0.06, "real neqo: {real_gap:+.3}");
    assert!(
        (in_order - real_gap).abs() <= 0.01,
        "by stream ID: {in_order:+.3} vs {real_gap:+.3}"
    );
    let (_, round_robin) = gap(SendOrderArg::RoundRobin);
    assert!(
        round_robin > real_gap / 2.0,
        "round robin: {round_robin:+.3} vs {real_gap:+.3}"
    );
}

/// The same ten streams as requests the client sends (`--requests`,
/// HTTP/3's shape): the client's receive sides exist before the
/// responses, so their seeds go out with the requests, and the one the
/// growth budget cut short gets the rest as earlier responses end, before
/// neqo's in-order sender reaches it. `neqo-fc` then ties or leads neqo's
/// own tuning on every path where it trailed by about 8 % on streams the
/// server opened, in real neqo and in the model (which opens a requests
/// file's streams as it sends the requests).
#[test]
fn ten_requests_get_their_seeds_before_their_responses() {
    let means = |name: &str| {
        let (_, c) = short_transfers()
            .iter()
            .find(|(f, _)| f.path.ends_with(name))
            .unwrap_or_else(|| panic!("no {name}"));
        let paths: std::collections::BTreeSet<&str> =
            c.means.iter().map(|m| m.path.as_str()).collect();
        paths
            .into_iter()
            .map(|path| {
                let m = |v: &str| {
                    c.means
                        .iter()
                        .find(|m| m.path == path && m.real_variant == v)
                        .unwrap_or_else(|| panic!("{name}: no {path} mean of {v}"))
                };
                let (fc, main) = (m("neqo-fc+pacing"), m("neqo-main+pacing"));
                (
                    path.to_owned(),
                    fc.real_goodput_bps / main.real_goodput_bps - 1.0,
                    fc.sim_goodput_bps / main.sim_goodput_bps - 1.0,
                )
            })
            .collect::<Vec<_>>()
    };
    let requests = means("short-requests-10x409600.json");
    assert_eq!(requests.len(), 3, "{requests:?}");
    for (path, real, sim) in &requests {
        assert!(*real >= -0.005, "{path}: real {real:+.3}");
        assert!(*sim >= -0.005, "{path}: model {sim:+.3}");
    }
    for (path, real, _) in means("short-10x409600.json") {
        assert!(real < -0.05, "server-opened {path}: real {real:+.3}");
    }
}
