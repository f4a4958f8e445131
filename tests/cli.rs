//! The `fc-lab` binary as a user meets it: JSON output and its invariants,
//! one-line errors for bad flags, the report folder of `compare`, plots
//! and qlog files.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use fc_lab::profiles::PROFILES;
use serde_json::Value;

fn fc_lab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fc-lab"))
        .args(args)
        .output()
        .expect("the fc-lab binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory under the system temp dir, unique per test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fc-lab-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run_json(args: &[&str]) -> Value {
    let mut all = vec!["run", "--json"];
    all.extend_from_slice(args);
    let out = fc_lab(&all);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "one JSON object per line: {text}");
    serde_json::from_str(&text).expect("valid JSON")
}

const FIELDS: [&str; 24] = [
    "profile",
    "tuner",
    "workload",
    "seed",
    "bytes",
    "streams",
    "duration_s",
    "goodput_bps",
    "link_rate_bps",
    "rtt_s",
    "bdp_bytes",
    "peak_stream_window_bytes",
    "peak_conn_window_bytes",
    "peak_recv_buffer_bytes",
    "drops",
    "retransmitted_bytes",
    "fc_blocked_s",
    "completed",
    "error",
    "peak_total_credit_bytes",
    "fairness_index",
    "stream_completion_s",
    "expected_bytes",
    "update_fraction",
];

fn f(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is a number: {v}"))
}

fn u(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} is an integer: {v}"))
}

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

/// Every bad value exits 2 with exactly one line on stderr, naming the
/// flag, and nothing on stdout.
#[test]
fn bad_flags_fail_with_one_line_naming_the_flag() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["run", "--rate", "fast"],
            "error: --rate: expected a rate like 1Gbit, 20Mbit or 512kbit",
        ),
        (
            &["run", "--rtt", "-5ms"],
            "error: --rtt: expected a positive duration like 50ms",
        ),
        (
            &["run", "--rtt", "0ms"],
            "error: --rtt: expected a positive duration",
        ),
        (
            &["run", "--reader-rate", "1Mbit", "--reader-period", "0ms"],
            "error: --reader-period: expected a duration from 1us to 10s",
        ),
        (
            &["run", "--reader-period", "20ms"],
            "error: the following required arguments were not provided: --reader-rate",
        ),
        (
            &["compare", "--random-seeds", "0"],
            "error: --random-seeds: expected a seed count in 1..=100",
        ),
        (
            &["run", "--profile", "fast"],
            "error: --profile: expected a profile name (satellite,",
        ),
        (
            &["run", "--tuner", "quic"],
            "error: --tuner: expected default, neqo, double, fixed:SIZE",
        ),
        (
            &["run", "--tuner", "fixed:big"],
            "error: --tuner: expected fixed:SIZE",
        ),
        (
            &["run", "--update-fraction", "0"],
            "error: --update-fraction: expected a fraction in (0, 1]",
        ),
        (
            &["run", "--update-fraction", "1.5"],
            "error: --update-fraction: expected a fraction in (0, 1]",
        ),
        (
            &["run", "--queue", "x"],
            "error: --queue: expected a queue like 1bdp, 0.1bdp",
        ),
        (
            &["run", "--size", "lots"],
            "error: --size: expected a positive size",
        ),
        (
            &["run", "--loss", "100"],
            "error: --loss: expected a percentage in [0, 100)",
        ),
        (
            &["run", "--jitter", "-1ms"],
            "error: --jitter: expected a duration",
        ),
        (
            &["run", "--streams", "0"],
            "error: --streams: expected a stream count in 1..=10000",
        ),
        (
            &["run", "--cc", "bbr"],
            "error: --cc: expected one of cubic, newreno, got \"bbr\"",
        ),
        (
            &["run", "--ecn", "yes"],
            "error: --ecn: expected one of on, off, got \"yes\"",
        ),
        (
            &["run", "--ecn-rewrite", "bogus"],
            "error: --ecn-rewrite: expected one of clear, ect1, got \"bogus\"",
        ),
        (
            &["run", "--seed", "-1"],
            "error: --seed: expected a whole number",
        ),
        (
            &["run", "--reader-rate", "0"],
            "error: --reader-rate: expected a rate",
        ),
        (
            &["run", "--initial-window", "0"],
            "error: --initial-window: expected a positive size",
        ),
        (
            &["run", "--initial-connection-window", "0"],
            "error: --initial-connection-window: expected a positive size",
        ),
        (
            &["run", "--overhead", "1MB"],
            "error: --overhead: expected a byte count in 0..=65535",
        ),
        (
            &["run", "--time-limit", "0s"],
            "error: --time-limit: expected a positive duration",
        ),
        (
            &["run", "--max-wall", "0s"],
            "error: --max-wall: expected a positive wall-clock duration",
        ),
        (
            &["run", "--profile", "gbit-50ms", "--queue", "0"],
            "error: --queue: expected room for at least one full-size datagram (1500 B), got 0 B",
        ),
        (
            &["run", "--profile", "gbit-50ms", "--tuner", "fixed"],
            "error: --tuner: fixed needs its window size, e.g. fixed:1MiB",
        ),
        (
            &["run", "--size", "8EiB"],
            "error: --size: expected a size of at most 2^62 - 1 bytes",
        ),
        (
            &["run", "--profile"],
            "error: --profile: a value is required",
        ),
        (
            &["run", "--rate", "1Gbit"],
            "error: --rtt: required for a custom path",
        ),
        (&["run"], "error: --rate: required for a custom path"),
        (
            &["run", "--messages", "10"],
            "error: the following required arguments were not provided: --message-size",
        ),
        (
            &["run", "--bogus"],
            "error: unexpected argument '--bogus' found",
        ),
        (
            &["compare", "--threads", "0"],
            "error: --threads: expected a thread count",
        ),
        (
            &["compare", "--workload", "bulk,huge"],
            "error: --workload: expected a workload name",
        ),
        (
            &["compare", "--profile", "gbit-50ms,moon"],
            "error: --profile: expected a profile name",
        ),
        (
            &[
                "run",
                "--profile",
                "gbit-lan",
                "--tuner",
                "unlimited",
                "--initial-window",
                "1MiB",
            ],
            "error: --initial-window: not accepted with --tuner unlimited",
        ),
        (
            &[
                "run",
                "--profile",
                "gbit-lan",
                "--tuner",
                "unlimited",
                "--initial-connection-window",
                "1MiB",
            ],
            "error: --initial-connection-window: not accepted with --tuner unlimited",
        ),
        (
            &["frobnicate"],
            "error: unrecognized subcommand 'frobnicate'",
        ),
    ];
    for (args, want) in cases {
        let out = fc_lab(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line, got {err:?}");
        assert!(err.starts_with(want), "{args:?}: {err}");
        assert!(stdout(&out).is_empty(), "{args:?}");
    }
    // The bad value is echoed back.
    let out = fc_lab(&["run", "--rate", "fast"]);
    assert!(stderr(&out).trim_end().ends_with("got \"fast\""));
}

/// Odd inputs never panic: each is a clean one-line error.
#[test]
fn odd_inputs_never_panic() {
    let cases: &[&[&str]] = &[
        &["run", "--rate", "99999999999999999999999Tbit"],
        &["run", "--rate", ""],
        &["run", "--rate", "1.2.3Gbit"],
        &["run", "--rate", "Gbit"],
        &["run", "--rate", "1e9"],
        &["run", "--size", "99999999999TiB"],
        &["run", "--size", "0"],
        &["run", "--queue", "bdp"],
        &["run", "--queue", "-1bdp"],
        &["run", "--rtt", "10000s"],
        &["run", "--rtt", "1µ"],
        &["run", "--update-fraction", "1/0"],
        &["run", "--update-fraction", "NaN"],
        &["run", "--loss", "-0"],
        &["run", "--streams", "4294967296"],
        &["run", "--tuner", ":"],
        &["run", "--tuner", "fixed:"],
        &["run", "--tuner", "fixed:8EiB"],
        &["run", "--profile", "ümlaut"],
        &["compare", "--tuner", ""],
    ];
    for args in cases {
        let out = fc_lab(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err:?}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn help_explains_every_flag_with_units() {
    let out = fc_lab(&["run", "--help"]);
    assert!(out.status.success());
    let help = stdout(&out);
    for flag in [
        "--profile",
        "--rate",
        "--rtt",
        "--queue",
        "--overhead",
        "--loss",
        "--jitter",
        "--size",
        "--messages",
        "--message-size",
        "--streams",
        "--tuner",
        "--update-fraction",
        "--reader-rate",
        "--initial-window",
        "--initial-connection-window",
        "--cc",
        "--seed",
        "--verify",
        "--qlog",
        "--qlog-level",
        "--plot",
        "--json",
    ] {
        assert!(help.contains(flag), "{flag} missing from run --help");
    }
    for unit in ["1Gbit", "50ms", "1bdp", "1GiB", "bit/s"] {
        assert!(help.contains(unit), "{unit} missing from run --help");
    }
    let compare = stdout(&fc_lab(&["compare", "--help"]));
    for flag in [
        "--quick",
        "--threads",
        "--out",
        "--profile",
        "--tuner",
        "--workload",
    ] {
        assert!(compare.contains(flag), "{flag} missing from compare --help");
    }
}

#[test]
fn profiles_lists_every_path() {
    let out = fc_lab(&["profiles"]);
    assert!(out.status.success());
    let text = stdout(&out);
    // The names themselves are pinned in `profiles.rs`'s tests.
    for name in PROFILES.iter().map(|p| p.name) {
        assert!(
            text.lines().any(|l| l.starts_with(&format!("{name} "))),
            "{name}"
        );
    }
    let json: Value = serde_json::from_str(&stdout(&fc_lab(&["profiles", "--json"]))).unwrap();
    let list = json.as_array().unwrap();
    assert_eq!(list.len(), PROFILES.len());
    let bench = list.iter().find(|p| p["name"] == "neqo-bench").unwrap();
    assert_eq!(bench["queue_bytes"], 500_000);
    assert_eq!(bench["overhead_bytes"], 80);
    assert_eq!(bench["bdp_bytes"], 5_000_000);
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn compare_writes_the_report_and_ignores_thread_count() {
    let dir = scratch("compare");
    let args = |out: &Path, threads: &str| {
        vec![
            "compare".to_owned(),
            "--profile".into(),
            "residential-cable,gbit-lan".into(),
            "--workload".into(),
            "small-msgs".into(),
            "--workload".into(),
            "slow-reader".into(),
            "--tuner".into(),
            "default,fixed:256KiB,unlimited".into(),
            "--threads".into(),
            threads.into(),
            "--out".into(),
            out.display().to_string(),
        ]
    };
    let one = dir.join("one");
    let two = dir.join("two");
    let a1 = args(&one, "1");
    let a2 = args(&two, "2");
    let out1 = fc_lab(&a1.iter().map(String::as_str).collect::<Vec<_>>());
    let out2 = fc_lab(&a2.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out1.status.success(), "{}", stderr(&out1));
    assert!(out2.status.success(), "{}", stderr(&out2));
    assert_eq!(stdout(&out1), stdout(&out2), "table independent of threads");
    assert_eq!(
        read(&one.join("report.json")),
        read(&two.join("report.json"))
    );

    let table = stdout(&out1);
    assert!(table.contains("residential-cable / small-msgs:"), "{table}");
    assert!(table.contains("gbit-lan / slow-reader:"), "{table}");
    assert_eq!(table.matches("  tuner ").count(), 4, "one block per group");
    assert!(table.contains("1.00"), "the best run has ratio 1.00");
    // The findings close stdout, one line per scenario.
    let tail = &table[table
        .rfind("Findings (report.md has the tables):")
        .expect("findings")..];
    assert!(
        tail.contains("- small-msgs: ") && tail.contains("- slow-reader: "),
        "{tail}"
    );

    let json: Value = serde_json::from_str(&read(&one.join("report.json"))).unwrap();
    let runs = json.as_array().unwrap();
    assert_eq!(runs.len(), 2 * 2 * 3);
    assert_eq!(runs[0]["profile"], "residential-cable");
    assert_eq!(runs[0]["workload"], "small-msgs");
    assert_eq!(runs[0]["tuner"], "default");
    assert_eq!(runs[2]["tuner"], "unlimited");
    for r in runs {
        for key in FIELDS {
            assert!(r.get(key).is_some(), "missing {key}");
        }
    }
    let md = read(&one.join("report.md"));
    assert!(md.starts_with("# fc-lab comparison"));
    assert!(md.contains("| tuner | ratio |"));
    // Findings first, then the scenarios with their charts, then every run.
    let at = |s: &str| md.find(s).unwrap_or_else(|| panic!("{s} in report.md"));
    assert!(at("## Findings") < at("## Scenarios") && at("## Scenarios") < at("## Every run"));
    // Charts beside their table.
    let scenarios = &md[at("## Scenarios")..];
    let here = |s: &str| {
        scenarios
            .find(s)
            .unwrap_or_else(|| panic!("{s} in Scenarios"))
    };
    assert!(here("### small-msgs —") < here("](goodput-small-msgs.svg)"));
    assert!(here("](goodput-small-msgs.svg)") < here("### slow-reader —"));
    // No table ends in an empty column.
    assert!(!md.contains("|  |\n"), "an empty last column");
    for svg in [
        "goodput-small-msgs.svg",
        "window-small-msgs.svg",
        "goodput-slow-reader.svg",
        "buffer-slow-reader.svg",
    ] {
        let text = read(&one.join(svg));
        assert!(text.starts_with("<svg"), "{svg}");
        assert!(
            text.contains("residential-cable") && text.contains("fixed:256KiB"),
            "{svg}"
        );
        // Each strategy has its colour in every chart: default is blue.
        assert!(text.contains("#1F77B4"), "{svg}: default's colour");
        assert!(md.contains(&format!("]({svg})")), "report.md links {svg}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compare_json_prints_the_array() {
    let dir = scratch("compare-json");
    let out = fc_lab(&[
        "compare",
        "--profile",
        "gbit-lan",
        "--workload",
        "small-msgs",
        "--tuner",
        "neqo",
        "--json",
        "--out",
        &dir.display().to_string(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1);
    assert_eq!(v[0]["tuner"], "neqo");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_writes_plot_and_qlog() {
    let dir = scratch("run-files");
    let svg = dir.join("run.svg");
    let qlog = dir.join("qlog");
    let out = fc_lab(&[
        "run",
        "--profile",
        "residential-cable",
        "--size",
        "2MiB",
        "--tuner",
        "fixed:1MiB",
        "--plot",
        &svg.display().to_string(),
        "--qlog",
        &qlog.display().to_string(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = read(&svg);
    assert!(text.starts_with("<svg"));
    for label in [
        "stream window",
        "connection window",
        "cwnd",
        "bytes in flight",
        "goodput",
    ] {
        assert!(text.contains(label), "{label} in the plot");
    }
    let traces: Vec<_> = std::fs::read_dir(&qlog)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(traces.len(), 2, "{traces:?}");
    assert!(
        traces
            .iter()
            .all(|t| t.starts_with("residential-cable-bulk-fixed-1MiB-s1-"))
    );
    assert!(stderr(&out).contains("wrote "));
    // The human summary is aligned `label  value` lines.
    let summary = stdout(&out);
    for label in [
        "path",
        "workload",
        "tuner",
        "result",
        "goodput",
        "peak window",
        "flow control",
    ] {
        assert!(
            summary.lines().any(|l| l.starts_with(label)),
            "{label}: {summary}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verify_checks_every_byte() {
    let v = run_json(&[
        "--profile",
        "lossy",
        "--size",
        "1MiB",
        "--streams",
        "2",
        "--verify",
    ]);
    assert_eq!(u(&v, "verify_failures"), 0);
    assert_eq!(u(&v, "bytes"), 2 << 20);
}

#[test]
fn unwritable_outputs_are_refused_before_the_run() {
    // Each names its flag, on one line, before anything is simulated (a
    // 100 GB run would take minutes: these return at once).
    let cases: &[(&[&str], &str)] = &[
        (
            &["--plot", "/nonexistent-dir/x/run.svg"],
            "error: --plot: /nonexistent-dir/x/run.svg: the directory /nonexistent-dir/x does not exist",
        ),
        (
            &["--plot", "/"],
            "error: --plot: expected a file name ending in .svg",
        ),
        (
            &["--qlog", "/proc/forbidden"],
            "error: --qlog: /proc/forbidden: cannot create the directory",
        ),
    ];
    for (flags, want) in cases {
        let mut args = vec!["run", "--profile", "gbit-lan", "--size", "100GB"];
        args.extend_from_slice(flags);
        let started = std::time::Instant::now();
        let out = fc_lab(&args);
        assert!(
            started.elapsed().as_secs() < 5,
            "{flags:?}: checked before the run"
        );
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(want), "{flags:?}: {err}");
        assert!(stdout(&out).is_empty());
    }
    let out = fc_lab(&["compare", "--quick", "--out", "/proc/forbidden"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("error: --out: /proc/forbidden:"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn compare_owns_its_folder() {
    let dir = scratch("compare-owns");
    let out_dir = dir.join("report");
    let args = |tuners: &str| {
        vec![
            "compare".to_owned(),
            "--profile".into(),
            "gbit-lan".into(),
            "--workload".into(),
            "small-msgs,slow-reader".into(),
            "--tuner".into(),
            tuners.into(),
            "--out".into(),
            out_dir.display().to_string(),
        ]
    };
    let run = |a: Vec<String>| fc_lab(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let first = run(args("default,neqo"));
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(stderr(&first).contains(&format!("wrote {}", out_dir.display())));
    // A second, smaller run leaves no file of the first.
    let mut narrower = args("default");
    narrower[4] = "small-msgs".into();
    let second = run(narrower);
    assert!(second.status.success(), "{}", stderr(&second));
    let mut names: Vec<String> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "goodput-small-msgs.svg",
            "report.json",
            "report.md",
            "window-small-msgs.svg"
        ]
    );
    // A folder holding someone else's file is refused, and left alone.
    std::fs::write(out_dir.join("notes.txt"), "mine").unwrap();
    let third = run(args("default"));
    assert_eq!(third.status.code(), Some(2));
    assert!(
        stderr(&third).starts_with("error: --out: "),
        "{}",
        stderr(&third)
    );
    assert!(stderr(&third).contains("notes.txt"), "{}", stderr(&third));
    assert_eq!(read(&out_dir.join("notes.txt")), "mine");
    assert!(out_dir.join("report.md").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn max_wall_stops_cleanly_with_what_it_got() {
    let out = fc_lab(&[
        "run",
        "--profile",
        "gbit-50ms",
        "--size",
        "100GB",
        "--max-wall",
        "300ms",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    // The estimate warns first; the stop is one error line naming the flag.
    assert!(
        err.starts_with("warning: 93.1 GiB over 1 Gbit/s is about"),
        "{err}"
    );
    assert!(err.contains("error: --max-wall: stopped after"), "{err}");
    let v: Value = serde_json::from_str(&stdout(&out)).expect("the report still prints");
    assert_eq!(v["end"], "stopped");
    assert_eq!(v["completed"], false);
    assert!(u(&v, "bytes") > 0 && u(&v, "bytes") < 100_000_000_000);
}

#[test]
fn incomplete_runs_say_why() {
    // A one-second simulated limit on a long transfer: the time limit.
    let out = fc_lab(&[
        "run",
        "--profile",
        "residential-dsl",
        "--size",
        "10MB",
        "--time-limit",
        "1s",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("INCOMPLETE (simulated time limit)"));
    let err = stderr(&out);
    // Warned before the run, explained after it.
    assert!(
        err.starts_with("warning: it cannot finish within the simulated --time-limit 1 s"),
        "{err}"
    );
    assert!(
        err.contains("error: --time-limit: the simulated time limit (1 s) came first"),
        "{err}"
    );
}

#[test]
fn unlimited_windows_print_as_unlimited() {
    let out = fc_lab(&[
        "run",
        "--profile",
        "gbit-lan",
        "--size",
        "1MB",
        "--tuner",
        "unlimited",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("initial stream window ∞, connection ∞"),
        "{text}"
    );
    assert!(!text.contains("PiB") && !text.contains("EiB"), "{text}");
}

#[test]
fn the_budget_line_reads_as_a_limit_not_as_memory_used() {
    let out = fc_lab(&["run", "--profile", "gbit-lan", "--size", "1MB"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("budget "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("a limit on credit outstanding, at most ") && line.ends_with(" 0 times"),
        "{line}"
    );
}
