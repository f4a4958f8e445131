//! Many streams through `fc-lab` (issue #5): the 100 × 1 MiB workload
//! (`many-100`) with `default` (budget on) against `neqo` and `double`
//! (no budget, as their stacks), in the same runs `fc-lab compare` makes.
//!
//! Claim: `default` lets the sender park ≥ 4× less credit over all
//! streams than either peer, at equal or better goodput (a tie within 1 %
//! counts). Every number is simulated and printed (`--nocapture`).
//!
//! Also: the JSON of a run carries the memory fields, the `--stall-readers`
//! and `+budget` / `-budget` flags reach the simulator, and report.md's
//! "Memory" section says what the runs measured.
//!
//! Run with `cargo test --test many_streams`.

use std::process::Command;

use fc_lab::{
    RunReport, RunSpec,
    compare::memory::{credit_ratio, memory_markdown},
    execute, profiles,
    tuners::TunerChoice,
    workloads::MatrixWorkload,
};
use serde_json::Value;

/// Relative goodput difference treated as a tie (1 %).
const TIE: f64 = 0.01;
/// Credit `default` must save against each peer.
const CREDIT_RATIO: f64 = 4.0;

fn run(profile: &str, workload: MatrixWorkload, tuner: &str) -> RunReport {
    let path = profiles::find(profile).expect("profile").path();
    let w = workload.on(&path, false);
    let spec = RunSpec::new(path, w, TunerChoice::parse(tuner).expect("tuner"));
    let report = execute(&spec).expect("run").report;
    assert!(report.ok(), "{profile}/{tuner}: {report:?}");
    report
}

fn line(r: &RunReport, ours: &RunReport) -> String {
    format!(
        "{:<18} {:<15} goodput {:>7.1} Mbit/s ({:+.2} %) | peak credit {:>10} B = {:>7.2} BDP \
         ({:.2}x default) | exposure {:>10} B ({:.2}x default) | budget {:>10} B, {} violations \
         | buffer {:>9} B | fairness {:.4}",
        r.profile,
        r.tuner,
        r.goodput_bps / 1e6,
        (r.goodput_bps / ours.goodput_bps - 1.0) * 100.0,
        r.peak_total_credit_bytes,
        r.credit_bdp(),
        credit_ratio(r, ours),
        r.peak_exposure_bytes,
        exposure_ratio(r, ours),
        r.peak_budget_bytes,
        r.budget_violations,
        r.peak_recv_buffer_bytes,
        r.fairness_index
    )
}

/// `peer`'s peak exposure over `ours`.
#[allow(clippy::cast_precision_loss)]
fn exposure_ratio(peer: &RunReport, ours: &RunReport) -> f64 {
    peer.peak_exposure_bytes as f64 / ours.peak_exposure_bytes as f64
}

/// `default` against `neqo` and `double` on one path: credit ratio and
/// goodput for each peer. Also prints the budget variants.
fn versus(profile: &str) -> Vec<RunReport> {
    let ours = run(profile, MatrixWorkload::Many100, "default");
    let mut reports = vec![ours.clone()];
    for tuner in [
        "default-budget",
        "neqo",
        "neqo+budget",
        "double",
        "double+budget",
    ] {
        reports.push(run(profile, MatrixWorkload::Many100, tuner));
    }
    for r in &reports {
        eprintln!("{}", line(r, &ours));
    }
    assert_eq!(ours.budget_violations, 0);
    assert!(ours.peak_total_credit_bytes <= ours.peak_budget_bytes);
    // The peers with our budget bolted on keep their own windows (and
    // 4× our credit or more); we match their goodput too, within the tie —
    // which needs the seed as each stream's floor during the start-up
    // ramp (without it: 604 against 633 Mbit/s on gbit-50ms).
    // `neqo` and `double` without the budget likewise.
    let peers =
        |r: &&RunReport| r.tuner.ends_with("+budget") || r.tuner == "neqo" || r.tuner == "double";
    for peer in reports.iter().filter(peers) {
        let ratio = credit_ratio(peer, &ours);
        assert!(
            ratio >= CREDIT_RATIO,
            "{profile}: {} holds only {ratio:.2}x default's credit",
            peer.tuner
        );
        assert!(
            ours.goodput_bps >= peer.goodput_bps * (1.0 - TIE),
            "{profile}: default {:.1} Mbit/s < {} {:.1} Mbit/s - 1 %",
            ours.goodput_bps / 1e6,
            peer.tuner,
            peer.goodput_bps / 1e6
        );
    }
    reports
}

/// On gbit-50ms `default` also exposes less than `neqo` and `double`,
/// whose connection windows (13 and 25 MB) bound what their 105 MB of
/// stream credit lets the peer use.
#[test]
fn default_holds_4x_less_credit_than_peers_on_gbit_50ms() {
    let reports = versus("gbit-50ms");
    let ours = &reports[0];
    for peer in reports
        .iter()
        .filter(|r| r.tuner == "neqo" || r.tuner == "double")
    {
        assert!(
            ours.peak_exposure_bytes <= peer.peak_exposure_bytes,
            "{}",
            line(peer, ours)
        );
    }
}

/// On residential-cable (BDP 500 kB) `default` exposes more than `neqo`
/// and `double` do behind their connection windows (7.2 MB against 2.4
/// and 6.3 MB): the seeds of the first streams and the growth budget, 3 ×
/// an estimate of 1 MiB, are covered by the connection. Bounded here so
/// it cannot grow back to the 9.6 MB of every promise covered.
#[test]
fn default_holds_4x_less_credit_than_peers_on_cable() {
    let reports = versus("residential-cable");
    let ours = &reports[0];
    assert!(ours.peak_exposure_bytes < 8_000_000, "{}", line(ours, ours));
}

#[test]
fn memory_section_reports_the_runs() {
    let reports = versus("residential-cable");
    let md = memory_markdown(&reports);
    let ours = &reports[0];
    assert!(
        md.contains("## Memory: 100 streams × 1 MiB (many-100)"),
        "{md}"
    );
    assert!(
        md.contains("### residential-cable (200 Mbit/s, RTT 20 ms"),
        "{md}"
    );
    for r in &reports {
        assert!(
            md.contains(&format!("| {} |", r.tuner)),
            "{}: {md}",
            r.tuner
        );
    }
    let neqo = reports.iter().find(|r| r.tuner == "neqo").unwrap();
    let claim = format!(
        "{:.1}× less than `neqo`",
        neqo.peak_total_credit_bytes as f64 / ours.peak_total_credit_bytes as f64
    );
    assert!(md.contains(&claim), "{claim}: {md}");
}

/// Runs the `fc-lab` binary; returns (exit code, stdout, stderr).
fn fc_lab(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fc-lab"))
        .args(args)
        .output()
        .expect("fc-lab runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const MEMORY_FIELDS: [&str; 10] = [
    "peak_total_credit_bytes",
    "peak_exposure_bytes",
    "peak_recv_buffer_bytes",
    "stream_completion_s",
    "fairness_index",
    "stall_goodput_bps",
    "peak_budget_bytes",
    "budget_violations",
    "memory_budget",
    "stall",
];

#[test]
fn run_json_has_the_memory_fields() {
    let (code, out, err) = fc_lab(&[
        "run",
        "--profile",
        "residential-cable",
        "--streams",
        "100",
        "--size",
        "1MiB",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).expect("one JSON object");
    for key in MEMORY_FIELDS {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["streams"], 100);
    assert_eq!(v["expected_bytes"], 100 << 20);
    assert_eq!(v["stream_completion_s"].as_array().unwrap().len(), 100);
    assert_eq!(v["memory_budget"], true);
    assert_eq!(v["stall"], Value::Null);
    assert_eq!(v["stall_goodput_bps"], Value::Null);
    assert_eq!(v["budget_violations"], 0);
    let credit = v["peak_total_credit_bytes"].as_u64().unwrap();
    let budget = v["peak_budget_bytes"].as_u64().unwrap();
    assert!(credit > 0 && credit <= budget, "{credit} {budget}");
    // The peer can use at most the connection's credit of it at once.
    let exposure = v["peak_exposure_bytes"].as_u64().unwrap();
    assert!(exposure > 0 && exposure <= credit, "{exposure} {credit}");
    // The same run through the library gives the same numbers.
    let path = profiles::find("residential-cable").unwrap().path();
    let w = MatrixWorkload::Many100.on(&path, false).renamed("bulk");
    let lib = execute(&RunSpec::new(
        path,
        w,
        TunerChoice::parse("default").unwrap(),
    ))
    .unwrap()
    .report;
    assert_eq!(credit, lib.peak_total_credit_bytes);
    assert_eq!(v["event_hash"], lib.event_hash.as_str());
}

#[test]
fn stall_flag_and_budget_suffix_reach_the_run() {
    let (code, out, err) = fc_lab(&[
        "run",
        "--profile",
        "residential-cable",
        "--streams",
        "10",
        "--size",
        "8MiB",
        "--stall-readers",
        "1:forever",
        "--tuner",
        "neqo+budget",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["tuner"], "neqo+budget");
    assert_eq!(v["memory_budget"], true);
    assert_eq!(v["stall"], "1:forever@1s");
    assert_eq!(v["completed"], true, "the run ends when the others finish");
    let bytes = v["bytes"].as_u64().unwrap();
    assert!((9 * (8 << 20)..10 * (8 << 20)).contains(&bytes), "{bytes}");
    assert!(v["stall_goodput_bps"].as_f64().unwrap() > 1e8);
    assert!(v["peak_budget_bytes"].as_u64().unwrap() > 0);

    let (code, out, _) = fc_lab(&[
        "run",
        "--profile",
        "residential-cable",
        "--workload",
        "many-100",
        "--tuner",
        "default-budget",
        "--json",
    ]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["memory_budget"], false);
    assert_eq!(v["peak_budget_bytes"], 0);

    // Bad values: one line naming the flag, exit code 2.
    for (args, want) in [
        (
            &["run", "--stall-readers", "50:soon"][..],
            "error: --stall-readers: expected N:DURATION[@START]",
        ),
        (
            &["run", "--tuner", "double+budget+budget"],
            "error: --tuner: expected default, min-rtt, neqo",
        ),
        (
            &[
                "run",
                "--profile",
                "gbit-lan",
                "--streams",
                "3",
                "--stall-readers",
                "4:1s",
            ],
            "error: --stall-readers: expected at most as many stalled readers as streams (3), got 4",
        ),
    ] {
        let (code, out, err) = fc_lab(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with(want), "{args:?}: {err}");
        assert!(out.is_empty());
    }
}
