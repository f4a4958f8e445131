//! The text of every generated README block, from [`Runs`]: tables and
//! the sentences that quote their numbers. Each block says which command
//! reproduces it; `fc-studies readme` regenerates them all.

use std::{collections::BTreeMap, time::Duration};

use super::runs::{INITIAL_WINDOW_SIZES, INITIAL_WINDOWS, Runs, SWEEP_SEEDS, YAMUX_PROFILES};
use fc_lab::{
    compare::{
        findings::{Memory, PathFinding, TIE, findings, verdict},
        run_count_phrase,
        summary::summary_table,
    },
    error::LabError,
    format,
    report::RunReport,
    table::{Align, Table},
};

use super::calibration;
use crate::spread::{CELL_TIE, RTT_SCALES, SPREAD_TUNERS, Spread, behind_cells};

pub use fc_lab::format::thousands;

fn mbit(r: &RunReport) -> String {
    format!("{:.1} Mbit/s", r.goodput_bps / 1e6)
}

fn secs(r: &RunReport) -> String {
    format!("{:.3} s", r.duration_s)
}

fn pct(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

/// A matrix table keeping only `profiles` (in that order) and `tuners`.
fn pick(
    runs: &Runs,
    workload: &str,
    profiles: &[&str],
    tuners: &[&str],
) -> Result<Table, LabError> {
    let wanted: Vec<RunReport> = profiles
        .iter()
        .flat_map(|p| {
            tuners
                .iter()
                .filter_map(move |t| runs.cell(p, workload, t).cloned())
        })
        .collect();
    summary_table(&wanted, workload)
        .map(|(_, t)| t)
        .ok_or_else(|| LabError::Simulator(format!("readme: no {workload} runs")))
}

fn cell<'a>(runs: &'a Runs, p: &str, w: &str, t: &str) -> Result<&'a RunReport, LabError> {
    runs.cell(p, w, t)
        .ok_or_else(|| LabError::Simulator(format!("readme: no run {p}/{w}/{t}")))
}

/// The mission path: 1 GiB on gbit-50ms, default vs unlimited.
fn mission(runs: &Runs) -> Result<String, LabError> {
    let d = runs.named("gbit-50ms/1GiB/default")?;
    let u = runs.named("gbit-50ms/1GiB/unlimited")?;
    let mut t = Table::new(&[
        ("", Align::Left),
        ("goodput", Align::Right),
        ("time", Align::Right),
        ("peak stream window", Align::Right),
    ]);
    t.push(vec![
        "default tuner".into(),
        format!("**{}**", mbit(d)),
        secs(d),
        format!("{} × BDP", format::ratio(d.window_bdp())),
    ]);
    t.push(vec![
        "unlimited windows (upper bound)".into(),
        mbit(u),
        secs(u),
        "—".into(),
    ]);
    let drops = if d.drops == 0 {
        "no packet loss".to_owned()
    } else {
        format!("{} packets dropped", thousands(d.drops))
    };
    Ok(format!(
        "{}\nThe default tuner takes {:.3} × the unlimited run's time, with a window of {} × BDP \
         and {drops} (the unlimited run drops {} packets in the slow-start overshoot); flow \
         control left the link idle {:.3} s of the {:.3} s.\n",
        t.markdown(),
        d.duration_s / u.duration_s,
        format::ratio(d.window_bdp()),
        thousands(u.drops),
        d.fc_link_idle_s,
        d.duration_s,
    ))
}

/// neqo's bench path, 1 GiB.
fn neqo_bench(runs: &Runs) -> Result<String, LabError> {
    let d = runs.named("neqo-bench/1GiB/default")?;
    let u = runs.named("neqo-bench/1GiB/unlimited")?;
    let aim = if d.goodput_bps < 850e6 {
        "This misses the 850 Mbit/s aim"
    } else {
        "This meets the 850 Mbit/s aim"
    };
    let fc = if u.goodput_bps <= d.goodput_bps {
        "flow control is not the limit (unlimited windows are slower)".to_owned()
    } else {
        format!(
            "unlimited windows are {} faster, while flow control left the link idle only \
             {:.3} s",
            pct(u.goodput_bps / d.goodput_bps - 1.0),
            d.fc_link_idle_s
        )
    };
    Ok(format!(
        "**neqo's bench path** — 1 Gbit/s, 40 ms, 500,000-byte queue, 80 bytes per-packet \
         overhead, 1 GiB (`fc-lab run --profile neqo-bench --size 1GiB`): **{:.0} Mbit/s** \
         (default tuner), {:.0} Mbit/s with unlimited windows. {aim}: the queue is a tenth of the BDP, so CUBIC's \
         post-loss window (0.7 × ~1.1 BDP) leaves the link underused; {fc}. The test is kept, \
         ignored; `--ignored` prints its numbers (`tests/gigabit.rs`).\n",
        d.goodput_bps / 1e6,
        u.goodput_bps / 1e6,
    ))
}

/// Where ours is behind on a path, as `satellite −0.6 % (3.0× less memory)`.
fn behind_list(paths: &[PathFinding<'_>], memory: Memory) -> String {
    paths
        .iter()
        .filter(|p| p.ours_behind().is_some_and(|b| b < -TIE))
        .map(|p| format!("{} ({})", p.profile, verdict(p, memory)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The bulk matrix and what it shows.
fn compare_bulk(runs: &Runs) -> Result<String, LabError> {
    let (_, table) = summary_table(&runs.matrix, "bulk")
        .ok_or_else(|| LabError::Simulator("readme: no bulk runs".into()))?;
    let all = findings(&runs.matrix);
    let bulk = all
        .iter()
        .find(|s| s.workload == "bulk")
        .ok_or_else(|| LabError::Simulator("readme: no bulk findings".into()))?;
    let judged = bulk
        .paths
        .iter()
        .filter(|p| p.ours_behind().is_some())
        .count();
    let behind = behind_list(&bulk.paths, bulk.memory);
    let behind_n = bulk
        .paths
        .iter()
        .filter(|p| p.ours_behind().is_some_and(|b| b < -TIE))
        .count();
    let mut out = table.markdown();
    out.push_str(&format!(
        "\nFrom `compare`: {}. `default` is fastest or within 1 % on {} of {judged} paths",
        run_count_phrase(runs.matrix_runs, runs.matrix.len(), runs.random_seeds),
        judged - behind_n,
    ));
    if behind.is_empty() {
        out.push_str(".\n");
    } else {
        out.push_str(&format!("; behind the fastest on {behind}.\n"));
    }
    Ok(out)
}

/// Every profile × workload cell against the better of `neqo` and
/// `double`: how many `default` is behind in (beyond the 0.5 % tie), the
/// worst of them, and where it holds more memory than both peers.
fn every_cell(runs: &Runs) -> String {
    let of = |p: &str, w: &str, t: &str| {
        runs.matrix
            .iter()
            .find(|r| r.profile == p && r.workload == w && r.tuner == t)
    };
    let mut cells = 0;
    let mut more_memory = Vec::new();
    let (mut more_exposure, mut more_without_exposure) = (0, 0);
    for ours in runs.matrix.iter().filter(|r| r.tuner == "default") {
        let (p, w) = (ours.profile.as_str(), ours.workload.as_str());
        let (Some(neqo), Some(double)) = (of(p, w, "neqo"), of(p, w, "double")) else {
            continue;
        };
        cells += 1;
        let [o, n, d] = [ours, neqo, double].map(RunReport::memory_figures);
        let larger = (0..o.len()).any(|i| o[i] as f64 > n[i].max(d[i]) as f64 * 1.01);
        if larger {
            more_memory.push(format!("{p}/{w}"));
        }
        // By exposure alone, and by the three figures without it.
        if o[2] as f64 > n[2].max(d[2]) as f64 * 1.01 {
            more_exposure += 1;
        }
        if [0, 1, 3]
            .into_iter()
            .any(|i| o[i] as f64 > n[i].max(d[i]) as f64 * 1.01)
        {
            more_without_exposure += 1;
        }
    }
    let behind = behind_cells(&runs.matrix, CELL_TIE);
    let worst: Vec<String> = behind
        .iter()
        .take(6)
        .map(|b| {
            format!(
                "{}/{} {:+.1} % vs {}",
                b.profile,
                b.workload,
                b.gap * 100.0,
                b.peer
            )
        })
        .collect();
    format!(
        "Over every cell of `compare` ({cells} profile × workload cells with all three), `default` is more \
         than 0.5 % behind the better of `neqo` and `double` in {} (worst: {}{}); its peak stream \
         window, total credit, exposure or receive buffer passes both peers' by more than 1 % in \
         {}: {}. By exposure (the most the peer could make it buffer at once: the smaller of the \
         credit summed over streams and MAX_DATA − bytes read) in {}; by the other three, which \
         count a peer's stream credit past its connection window, in {}.\n",
        behind.len(),
        worst.join(", "),
        if behind.len() > worst.len() {
            ", …"
        } else {
            ""
        },
        more_memory.len(),
        more_memory.join(", "),
        more_exposure,
        more_without_exposure,
    )
}

/// The matrix's cells where `default` trails that no spread covers (the
/// random paths, already a median of seeds), as `profile/workload ±x.x %`.
fn behind_off_spread(runs: &Runs) -> Vec<String> {
    let spread: std::collections::BTreeSet<(&str, &str)> = runs
        .spread_all
        .iter()
        .map(|s| (s.cell.profile.as_str(), s.cell.workload.as_str()))
        .collect();
    behind_cells(&runs.matrix, CELL_TIE)
        .iter()
        .filter(|b| !spread.contains(&(b.profile.as_str(), b.workload.as_str())))
        .map(|b| format!("{}/{} {:+.1} %", b.profile, b.workload, b.gap * 100.0))
        .collect()
}

/// Every deterministic cell at the spread's RTTs: where `default` trails
/// the better peer on the mean of the five, and (from the matrix, seed
/// medians) where it trails on the random paths.
fn rtt_spread_all(runs: &Runs) -> String {
    let mut behind: Vec<&Spread> = runs
        .spread_all
        .iter()
        .filter(|s| s.mean() < -CELL_TIE)
        .collect();
    behind.sort_by(|a, b| a.mean().total_cmp(&b.mean()));
    let listed: Vec<String> = behind
        .iter()
        .map(|s| {
            format!(
                "{}/{} {:+.1} %",
                s.cell.profile,
                s.cell.workload,
                s.mean() * 100.0
            )
        })
        .collect();
    let random = behind_off_spread(runs);
    let cells = crate::spread::cell_gaps(&runs.matrix).len();
    format!(
        "Every deterministic cell the same way ({} cells, {} runs at the four other RTTs): \
         `default` trails the better peer by more than 0.5 % on the mean of the five RTTs in {}: \
         {}. With the random paths' cells behind in the matrix ({}), {} of the {} cells.\n",
        runs.spread_all.len(),
        runs.spread_all.len() * (RTT_SCALES.len() - 1) * SPREAD_TUNERS.len(),
        behind.len(),
        if listed.is_empty() {
            "none".to_owned()
        } else {
            listed.join(", ")
        },
        if random.is_empty() {
            "none".to_owned()
        } else {
            random.join(", ")
        },
        behind.len() + random.len(),
        cells,
    )
}

/// The cells where `default` trails, again at nearby RTTs
/// ([`crate::spread`]): which gaps hold at every RTT and which
/// are one run's luck.
fn rtt_spread(runs: &Runs) -> String {
    let pct = |g: f64| format!("{:+.1}", g * 100.0);
    let name = |s: &Spread| format!("{}/{}", s.cell.profile, s.cell.workload);
    // Steady: behind by more than the tie at every RTT, within 1.5 points.
    let (steady, moving): (Vec<&Spread>, Vec<&Spread>) =
        runs.spread.iter().partition(|s| s.steady(CELL_TIE, 0.015));
    let steady: Vec<String> = steady
        .iter()
        .map(|s| {
            let (lo, hi) = s.range();
            if pct(lo) == pct(hi) {
                format!("{} {} %", name(s), pct(lo))
            } else {
                format!("{} {} to {} %", name(s), pct(lo), pct(hi))
            }
        })
        .collect();
    let moving: Vec<String> = moving
        .iter()
        .map(|s| {
            let (lo, hi) = s.range();
            format!(
                "{} {} to {} % (mean {} %)",
                name(s),
                pct(lo),
                pct(hi),
                pct(s.mean())
            )
        })
        .collect();
    let seeded = behind_off_spread(runs);
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_owned()
        } else {
            v.join(", ")
        }
    };
    format!(
        "Each of those cells again at {} × its profile's RTT (`fc-lab run --profile P --workload W \
         --rtt R`, seed 1; the queue rule and the workload follow the new path), `default` against \
         the better peer at every RTT. Behind by about as much at every RTT (the path's doing): {}. \
         Moving with the RTT (one run's luck): {}. On random paths (a median of {} seeds already, \
         not spread): {}.\n",
        RTT_SCALES
            .iter()
            .map(|&(n, d)| format!("{}", f64::from(n) / f64::from(d)))
            .collect::<Vec<_>>()
            .join(", "),
        list(&steady),
        list(&moving),
        runs.random_seeds,
        list(&seeded),
    )
}

/// The claims `tests/lab_findings.rs` asserts, with today's numbers.
fn lab_claims(runs: &Runs) -> Result<String, LabError> {
    let fixed = cell(runs, "gbit-50ms", "bulk", "fixed:1MiB")?;
    let ours = cell(runs, "gbit-50ms", "bulk", "default")?;
    let cap = (1u64 << 20) as f64 * 8.0 / fixed.rtt_s / 1e6;
    let mut ratios = Vec::new();
    for profile in YAMUX_PROFILES {
        let one = runs.named(&format!("yamux/{profile}/one"))?;
        let half = runs.named(&format!("yamux/{profile}/half"))?;
        ratios.push(half.goodput_bps / one.goodput_bps);
    }
    let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = ratios.iter().copied().fold(0.0, f64::max);
    Ok(format!(
        "Other findings asserted in `tests/lab_findings.rs`: `fixed:1MiB` on gbit-50ms stays \
         under window/RTT ({:.0} Mbit/s vs {cap:.0}); `default` beats it by {:.1}×; with a \
         256 KiB window, updating at half the window beats updating on exhaustion by \
         {lo:.2}–{hi:.2}× on {} (rust-yamux's finding).\n",
        fixed.goodput_bps / 1e6,
        ours.goodput_bps / fixed.goodput_bps,
        YAMUX_PROFILES.join(", "),
    ))
}

/// The reader on a timer.
fn timer_reader(runs: &Runs) -> Result<String, LabError> {
    let tuners = ["default", "neqo", "double", "fixed:1MiB", "unlimited"];
    let table = pick(
        runs,
        "timer-reader",
        &["gbit-50ms", "neqo-bench", "residential-cable"],
        &tuners,
    )?;
    let ours = cell(runs, "gbit-50ms", "timer-reader", "default")?;
    let neqo = cell(runs, "gbit-50ms", "timer-reader", "neqo")?;
    let double = cell(runs, "gbit-50ms", "timer-reader", "double")?;
    #[allow(clippy::cast_precision_loss)]
    let buffer = |r: &RunReport| r.peak_recv_buffer_bytes as f64;
    let vs = double.goodput_bps / ours.goodput_bps - 1.0;
    // Within the matrix's tie (0.5 %), the two are said to tie.
    let against = if vs.abs() < 0.005 {
        "ties with `default`".to_owned()
    } else {
        format!(
            "is {} {} than `default`",
            pct(vs.abs()),
            if vs > 0.0 { "faster" } else { "slower" }
        )
    };
    Ok(format!(
        "{}\nOn gbit-50ms `default` is {:.1}× faster than `neqo`; `double` {against} \
         ({:.1}× its buffer).\n",
        table.markdown(),
        ours.goodput_bps / neqo.goodput_bps,
        buffer(double) / buffer(ours),
    ))
}

/// Each strategy with and without the memory budget, in table order.
const WITH_AND_WITHOUT_BUDGET: [&str; 6] = [
    "default",
    "default-budget",
    "neqo",
    "neqo+budget",
    "double",
    "double+budget",
];

/// 100 streams × 1 MiB.
fn many_100(runs: &Runs) -> Result<String, LabError> {
    let tuners = WITH_AND_WITHOUT_BUDGET;
    let profiles = ["residential-cable", "gbit-50ms"];
    let table = pick(runs, "many-100", &profiles, &tuners)?;
    let mut head = vec![("profile", Align::Left)];
    head.extend(tuners.iter().map(|t| (*t, Align::Right)));
    let mut exposure = Table::new(&head);
    let mut parts = Vec::new();
    for p in profiles {
        let ours = cell(runs, p, "many-100", "default")?;
        let mut row = vec![p.to_owned()];
        for t in tuners {
            let r = cell(runs, p, "many-100", t)?;
            #[allow(clippy::cast_precision_loss)]
            row.push(format::ratio(
                r.peak_exposure_bytes as f64 / r.bdp_bytes.max(1) as f64,
            ));
        }
        exposure.push(row);
        let mut peers = Vec::new();
        let mut exposed = Vec::new();
        for t in ["neqo", "double", "neqo+budget", "double+budget"] {
            let r = cell(runs, p, "many-100", t)?;
            #[allow(clippy::cast_precision_loss)]
            let credit = r.peak_total_credit_bytes as f64 / ours.peak_total_credit_bytes as f64;
            peers.push(format!(
                "{credit:.1}× less than `{t}` ({})",
                format::rate(r.goodput_bps)
            ));
            exposed.push(format!("`{t}` {}", format::bytes(r.peak_exposure_bytes)));
        }
        let last = peers.pop().unwrap_or_default();
        parts.push(format!(
            "On {p}, `default` ({}) holds {} and {last}; by exposure {} against {}.",
            format::rate(ours.goodput_bps),
            peers.join(", "),
            format::bytes(ours.peak_exposure_bytes),
            exposed.join(", ")
        ));
    }
    Ok(format!(
        "{}\nPeak exposure over the 100 streams (the most the peer could make the receiver \
         buffer at once: the credit summed over streams within the connection's MAX_DATA − bytes \
         read) as a multiple of the BDP:\n\n{}\nPeak credit over the 100 streams, goodput in \
         brackets, then exposure. {}\n",
        table.markdown(),
        exposure.markdown(),
        parts.join(" ")
    ))
}

/// The stall mix.
fn stall_mix(runs: &Runs) -> Result<String, LabError> {
    let tuners = WITH_AND_WITHOUT_BUDGET;
    let table = pick(
        runs,
        "stall-mix",
        &["residential-cable", "gbit-50ms"],
        &tuners,
    )?;
    let cable = cell(runs, "residential-cable", "stall-mix", "default")?;
    let big = runs.named("stall-4MiB")?;
    #[allow(clippy::cast_precision_loss)]
    let share = |r: &RunReport| r.stall_goodput_bps.unwrap_or(0.0) / r.link_rate_bps as f64;
    Ok(format!(
        "{}\nStall goodput of `default` on residential-cable is {} ({} of the link, aim 90 %); \
         a stall that catches 50 × 4 MiB streams mid-transfer on gbit-50ms leaves the bulk \
         stream {} ({}; `fc-lab run --profile gbit-50ms --streams 51 --size 4MiB --bulk-plus \
         477MiB --stall-readers 50:2s`).\n",
        table.markdown(),
        format::rate(cable.stall_goodput_bps.unwrap_or(0.0)),
        pct(share(cable)),
        format::rate(big.stall_goodput_bps.unwrap_or(0.0)),
        pct(share(big)),
    ))
}

/// The fault sweep's numbers.
fn sweep(runs: &Runs) -> String {
    let s = &runs.sweep;
    let f = &s.faults_injected;
    format!(
        "Fault sweep (`cargo run --release -- sweep --seeds {SWEEP_SEEDS}`, also \
         `tests/fault_sweep.rs`): seeds 1–{}, **{} runs, {} failures**; {} datagrams dropped, \
         {} duplicated, {} reordered, {} receiver pauses; the longest run took {:.1} s \
         simulated.\n",
        thousands(s.start + s.runs - 1),
        thousands(s.runs),
        thousands(s.failures.len() as u64),
        thousands(f.dropped),
        thousands(f.duplicated),
        thousands(f.reordered),
        thousands(f.pauses),
        s.longest_run_seconds,
    )
}

/// The initial-stream-window table.
fn initial_window(runs: &Runs) -> Result<String, LabError> {
    let mut columns = vec![("initial stream window", Align::Right)];
    let names: Vec<String> = INITIAL_WINDOW_SIZES
        .iter()
        .map(|&b| format::bytes(b))
        .collect();
    columns.extend(names.iter().map(|n| (n.as_str(), Align::Right)));
    let mut t = Table::new(&columns);
    let time = |bytes: u64, window: u64| -> Result<f64, LabError> {
        Ok(runs.named(&format!("initial/{bytes}/{window}"))?.duration_s)
    };
    for window in INITIAL_WINDOWS {
        let mut row = vec![match window {
            w if w == 64 << 10 => {
                let config = neqo_fc::Config::default();
                format!(
                    "64 KiB (default; seeded to {})",
                    format::bytes(config.seed_window(config.initial_connection_window))
                )
            }
            w if w == 1 << 20 => "1 MiB (neqo)".to_owned(),
            w => format::bytes(w),
        }];
        for bytes in INITIAL_WINDOW_SIZES {
            let s = time(bytes, window)?;
            row.push(if s < 1.0 {
                format!("{:.0} ms", s * 1e3)
            } else {
                format!("{s:.3} s")
            });
        }
        t.push(row);
    }
    let small = INITIAL_WINDOW_SIZES[0];
    let large = INITIAL_WINDOW_SIZES[1];
    let cost = |bytes: u64| -> Result<f64, LabError> {
        Ok(time(bytes, 64 << 10)? / time(bytes, 1 << 20)? - 1.0)
    };
    // Slower is a cost; faster (the seed starts above neqo's 1 MiB
    // promise's ramp) is said as such.
    let effect = |bytes: u64| -> Result<String, LabError> {
        let c = cost(bytes)?;
        Ok(if c >= 0.0005 {
            format!("costs {} on {}", pct(c), format::bytes(bytes))
        } else if c <= -0.0005 {
            format!("is {} faster on {}", pct(-c), format::bytes(bytes))
        } else {
            format!("costs nothing on {}", format::bytes(bytes))
        })
    };
    Ok(format!(
        "{}\nA 16× smaller promise per stream (64 KiB vs neqo's 1 MiB) {} and {} at gigabit \
         speed.\n",
        t.markdown(),
        effect(small)?,
        effect(large)?,
    ))
}

/// The headroom and the periodic reader, measured.
fn tuner_measurements(runs: &Runs) -> Result<String, LabError> {
    let with = runs.named("gbit-50ms/1GiB/default")?;
    let without = &runs.no_headroom;
    let periodic = runs.named("periodic")?;
    // 500 Mbit/s for 100 ms: one wake-up's read.
    #[allow(clippy::cast_precision_loss)]
    let per_wakeup = 500e6 / 8.0 * Duration::from_millis(100).as_secs_f64();
    #[allow(clippy::cast_precision_loss)]
    let window = periodic.peak_stream_window_bytes as f64 / per_wakeup;
    Ok(format!(
        "Measured on the mission path (1 GiB, gbit-50ms): without the 1/16 headroom {} × BDP \
         and {}, with it {} × BDP and {}. A reader on a timer (`--reader-rate 500Mbit \
         --reader-period 100ms`, 1 GiB) gets {} with a window of {:.2} × what one wake-up \
         reads (`simulator/tests/periodic_reader.rs`).\n",
        format::ratio(without.window_bdp()),
        mbit(without),
        format::ratio(with.window_bdp()),
        mbit(with),
        mbit(periodic),
        window,
    ))
}

/// Every block, by name.
///
/// # Errors
/// [`LabError::Simulator`] when a run the README quotes is missing.
pub fn blocks(runs: &Runs) -> Result<BTreeMap<String, String>, LabError> {
    let mut b = BTreeMap::new();
    b.insert("mission".to_owned(), mission(runs)?);
    b.insert("neqo-bench".to_owned(), neqo_bench(runs)?);
    b.insert("compare-bulk".to_owned(), compare_bulk(runs)?);
    b.insert("every-cell".to_owned(), every_cell(runs));
    b.insert("rtt-spread".to_owned(), rtt_spread(runs));
    b.insert("rtt-spread-all".to_owned(), rtt_spread_all(runs));
    b.insert(
        "blind-start".to_owned(),
        super::blind_start::blind_start(runs)?,
    );
    b.insert("lab-claims".to_owned(), lab_claims(runs)?);
    b.insert("timer-reader".to_owned(), timer_reader(runs)?);
    b.insert("many-100".to_owned(), many_100(runs)?);
    b.insert("stall-mix".to_owned(), stall_mix(runs)?);
    b.insert("sweep".to_owned(), sweep(runs));
    b.insert("initial-window".to_owned(), initial_window(runs)?);
    b.insert("tuner-measurements".to_owned(), tuner_measurements(runs)?);
    b.insert("calibration".to_owned(), calibration::calibration(runs)?);
    b.insert(
        "calibration-models".to_owned(),
        calibration::calibration_models(runs)?,
    );
    b.insert("real-neqo".to_owned(), calibration::real_neqo(runs));
    b.insert(
        "real-short".to_owned(),
        super::real_short::real_short(runs)?,
    );
    b.insert("real-quinn".to_owned(), super::real_quinn::real_quinn()?);
    b.insert(
        "real-neqo-scoreboard".to_owned(),
        super::real_scoreboard::real_neqo_scoreboard()?,
    );
    b.insert(
        "real-quinn-scoreboard".to_owned(),
        super::real_scoreboard::real_quinn_scoreboard()?,
    );
    b.insert("headline".to_owned(), super::headline::headline(runs)?);
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separate() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(34_542), "34,542");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
