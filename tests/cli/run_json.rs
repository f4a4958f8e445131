//! `run --json`: the fields and their invariants, the transport models, determinism.

use super::*;

#[test]
fn run_json_fields_are_present_and_consistent() {
    let v = run_json(&[
        "--profile",
        "residential-cable",
        "--size",
        "4MiB",
        "--tuner",
        "fixed:256KiB",
        "--seed",
        "3",
    ]);
    for key in FIELDS {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["profile"], "residential-cable");
    assert_eq!(v["tuner"], "fixed:256KiB");
    assert_eq!(v["workload"], "bulk");
    assert_eq!(u(&v, "seed"), 3);
    assert_eq!(u(&v, "streams"), 1);
    assert_eq!(v["completed"], true);
    assert!(v["error"].is_null());
    assert_eq!(u(&v, "bytes"), 4 << 20);
    assert_eq!(u(&v, "expected_bytes"), 4 << 20);
    assert_eq!(u(&v, "link_rate_bps"), 200_000_000);
    assert_eq!(f(&v, "rtt_s"), 0.02);
    // BDP = 200 Mbit/s × 20 ms / 8.
    assert_eq!(u(&v, "bdp_bytes"), 500_000);
    assert_eq!(f(&v, "update_fraction"), 0.5);
    // goodput × duration = bytes, within floating-point rounding.
    let bytes = f(&v, "goodput_bps") * f(&v, "duration_s") / 8.0;
    assert!((bytes - (4 << 20) as f64).abs() < 1e-3, "{bytes}");
    // A fixed 256 KiB window never grows, and limits the credit.
    assert_eq!(u(&v, "peak_stream_window_bytes"), 256 << 10);
    assert!(u(&v, "peak_total_credit_bytes") <= 256 << 10);
    assert!(u(&v, "peak_recv_buffer_bytes") <= 256 << 10);
    // The single stream finishes when the run does.
    let done = v["stream_completion_s"].as_array().unwrap();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].as_f64().unwrap(), f(&v, "duration_s"));
    assert_eq!(f(&v, "fairness_index"), 1.0);
    // Window-limited: at most 256 KiB per RTT (plus serialisation).
    assert!(f(&v, "goodput_bps") <= (256 << 10) as f64 * 8.0 / 0.02);
}

#[test]
fn run_json_multi_stream_messages() {
    let v = run_json(&[
        "--rate",
        "50Mbit",
        "--rtt",
        "10ms",
        "--messages",
        "100",
        "--message-size",
        "4KiB",
        "--streams",
        "3",
    ]);
    assert_eq!(v["profile"], "custom");
    assert_eq!(v["workload"], "messages");
    assert_eq!(u(&v, "streams"), 3);
    assert_eq!(u(&v, "bytes"), 3 * 100 * 4096);
    assert_eq!(u(&v, "queue_bytes"), 62_500, "1 BDP by default");
    let done: Vec<f64> = v["stream_completion_s"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(done.len(), 3);
    let last = done.iter().copied().fold(0.0, f64::max);
    assert_eq!(last, f(&v, "duration_s"));
    let fairness = f(&v, "fairness_index");
    assert!(fairness > 0.0 && fairness <= 1.0 + 1e-12, "{fairness}");
}

/// A reader on a timer: the JSON says so, and it reads at most its rate.
#[test]
fn run_json_periodic_reader() {
    let v = run_json(&[
        "--profile",
        "residential-cable",
        "--size",
        "8MiB",
        "--reader-rate",
        "40Mbit",
        "--reader-period",
        "50ms",
    ]);
    assert_eq!(v["reader_rate_bps"], 40_000_000);
    assert_eq!(v["reader_period_s"], 0.05);
    assert_eq!(u(&v, "bytes"), 8 << 20);
    // 8 MiB at ≤ 40 Mbit/s: at least 1.67 s of wake-ups.
    assert!(f(&v, "duration_s") >= 8.0 * 8_388_608.0 / 40e6 - 0.05);
    let plain = run_json(&["--profile", "residential-cable", "--size", "8MiB"]);
    assert_eq!(plain["reader_period_s"], Value::Null);
}

/// `--codel` with `--ecn on`: CoDel marks instead of dropping, the run
/// says so, and its JSON counts the marks and the sender's ECN events.
#[test]
fn codel_with_ecn_marks_and_reports_it() {
    let args = [
        "--rate", "100Mbit", "--rtt", "20ms", "--queue", "8bdp", "--size", "40MB", "--codel",
    ];
    let on = run_json(&[&args[..], &["--ecn", "on"]].concat());
    assert!(u(&on, "ce_marks") > 0, "{on}");
    assert!(u(&on, "ecn_congestion_events") > 0, "{on}");
    assert_eq!(u(&on, "packets_lost"), 0, "{on}");
    assert_eq!(on["profile"], "custom");
    let off = run_json(&[&args[..], &["--ecn", "off"]].concat());
    assert_eq!(u(&off, "ce_marks"), 0, "{off}");
    assert!(u(&off, "packets_lost") > 0, "{off}");
    let o = fc_lab(&[&["run"], &args[..], &["--ecn", "on"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains(", CoDel"), "{out}");
    assert!(out.contains(" CE marks, "), "{out}");
    assert!(out.contains("ECN capable"), "{out}");
    assert_eq!(on["ecn_validation"], "capable");
    assert_eq!(off["ecn_validation"], "off");
}

/// A middlebox that clears or rewrites the ECN field fails the sender's
/// ECN validation: it stops marking, and CoDel drops as without ECN.
#[test]
fn a_path_that_mangles_ecn_fails_validation() {
    let args = [
        "--rate", "100Mbit", "--rtt", "20ms", "--queue", "8bdp", "--size", "40MB", "--codel",
        "--ecn", "on",
    ];
    for (how, why) in [
        ("clear", "failed: no ECN counts"),
        ("ect1", "failed: ECT(1) reported"),
    ] {
        let r = run_json(&[&args[..], &["--ecn-rewrite", how]].concat());
        assert_eq!(r["ecn_validation"], why, "{r}");
        assert_eq!(u(&r, "ecn_congestion_events"), 0, "{r}");
        assert!(u(&r, "packets_lost") > 0, "{r}");
        assert_eq!(r["profile"], "custom");
    }
    let o = fc_lab(&[&["run"], &args[..], &["--ecn-rewrite", "clear"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains(", a middlebox clears ECN"), "{out}");
    assert!(out.contains("ECN failed: no ECN counts"), "{out}");
}

/// `--transport neqo` runs neqo's traced model and says so; a pacing
/// override keeps its 1 ms granularity but is named; `neqo-fitted` is
/// another model.
#[test]
fn the_neqo_transport_runs_and_is_named() {
    let args = [
        "--rate", "100Mbit", "--rtt", "20ms", "--queue", "0.1bdp", "--size", "8MB",
    ];
    let traced = run_json(&[&args[..], &["--transport", "neqo"]].concat());
    assert_eq!(traced["transport"], "neqo", "{traced}");
    assert!(traced["completed"].as_bool().unwrap_or(false), "{traced}");
    let fixed = run_json(
        &[
            &args[..],
            &["--transport", "neqo", "--pacing", "neqo-fixed"],
        ]
        .concat(),
    );
    assert_eq!(fixed["transport"], "neqo,pacing=neqo-fixed", "{fixed}");
    // 1,232-byte datagrams: a different run from the fitted model's.
    let fitted = run_json(&[&args[..], &["--transport", "neqo-fitted"]].concat());
    assert_eq!(fitted["transport"], "neqo-fitted", "{fitted}");
    assert_ne!(traced["event_hash"], fitted["event_hash"]);
}

#[test]
fn same_seed_same_json() {
    let args = [
        "--profile",
        "lossy",
        "--size",
        "2MiB",
        "--seed",
        "5",
        "--tuner",
        "neqo",
    ];
    assert_eq!(run_json(&args), run_json(&args));
}
