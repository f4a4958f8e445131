//! Fault sweep in CI: 1,000 fixed seeds, each a random hostile path (loss,
//! reordering, duplication, a receiver pause) with every byte verified;
//! and `fc-lab sweep` as a user meets it.

use std::process::{Command, Output};

use fc_lab::sweep::{TIME_LIMIT, run_seeds};
use serde_json::Value;

/// Seeds 1..=1000 on two threads; results are checked by index.
#[test]
fn thousand_seeds_deliver_every_byte() {
    let seeds: Vec<u64> = (1..=1000).collect();
    let outcomes = run_seeds(&seeds, 2);
    assert_eq!(outcomes.len(), seeds.len());
    let mut failed = Vec::new();
    for (o, &seed) in outcomes.iter().zip(&seeds) {
        assert_eq!(o.seed, seed, "results out of order");
        assert!(o.simulated <= TIME_LIMIT, "seed {seed}: {:?}", o.simulated);
        if let Some(f) = &o.failure {
            failed.push(format!("seed {}: {}\n    {}", f.seed, f.what, f.faults));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} seeds failed:\n{}",
        failed.len(),
        seeds.len(),
        failed.join("\n")
    );
    // The sweep injected faults of every kind it counts.
    let dropped: u64 = outcomes.iter().map(|o| o.faults.dropped).sum();
    let pauses: u64 = outcomes.iter().map(|o| o.faults.pauses).sum();
    let duplicated: u64 = outcomes.iter().map(|o| o.faults.duplicated).sum();
    let reordered: u64 = outcomes.iter().map(|o| o.faults.reordered).sum();
    assert!(dropped > 10_000, "{dropped}");
    assert!(pauses >= 1000, "{pauses}");
    assert!(duplicated > 10_000, "{duplicated}");
    assert!(reordered > 10_000, "{reordered}");
}

/// Seeds a 20,000-seed sweep once failed on: a loss burst of the
/// Gilbert–Elliott chain caught the sender in probe-timeout back-off and,
/// stepping once per datagram however far apart, lost ~20 probes in a row
/// (backing off to 190 s, past the time limit). The chain now also steps
/// with idle time; both finish (6.7 s and 27.2 s simulated).
#[test]
fn burst_during_probe_backoff_ends_with_the_pause() {
    let seeds = [6060, 18717];
    for o in run_seeds(&seeds, 2) {
        assert!(o.failure.is_none(), "{:?}", o.failure);
        assert!(
            o.simulated <= std::time::Duration::from_secs(30),
            "{:?}",
            o.simulated
        );
    }
}

fn fc_lab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fc-lab"))
        .args(args)
        .output()
        .expect("the fc-lab binary runs")
}

#[test]
fn cli_sweep_json_and_summary() {
    let out = fc_lab(&[
        "sweep",
        "--seeds",
        "6",
        "--start",
        "40",
        "--threads",
        "2",
        "--json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 1, "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["runs"], 6);
    assert_eq!(v["start"], 40);
    assert_eq!(v["passed"], 6);
    assert_eq!(v["failures"].as_array().map(Vec::len), Some(0));
    let f = &v["faults_injected"];
    for key in [
        "dropped",
        "declared_lost",
        "pauses",
        "duplicated",
        "reordered",
    ] {
        assert!(f[key].is_u64(), "{key}: {f}");
    }
    let sum: u64 = ["dropped", "duplicated", "reordered", "pauses"]
        .iter()
        .map(|k| f[*k].as_u64().unwrap())
        .sum();
    assert_eq!(v["faults_total"].as_u64(), Some(sum));
    // Same seeds, one thread, text: same numbers.
    let out = fc_lab(&["sweep", "--seeds", "6", "--start", "40", "--threads", "1"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("runs      6 (seeds 40..=45), 6 passed, 0 failed\n"),
        "{text}"
    );
    assert!(text.contains(&format!("faults    {} injected", v["faults_total"])));
}

#[test]
fn cli_sweep_bad_flags_one_line() {
    for (args, flag) in [
        (&["sweep", "--seeds", "0"][..], "--seeds"),
        (&["sweep", "--seeds", "ten"][..], "--seeds"),
        (&["sweep", "--seeds", "-3"][..], "--seeds"),
        (
            &["sweep", "--seeds", "5", "--threads", "0"][..],
            "--threads",
        ),
        (&["sweep", "--seeds", "5", "--start", "x"][..], "--start"),
        (
            &["sweep", "--seeds", "5", "--start", "18446744073709551615"][..],
            "--start",
        ),
    ] {
        let out = fc_lab(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with(&format!("error: {flag}: ")),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty());
    }
    let out = fc_lab(&["sweep"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--seeds"), "{err}");
}
