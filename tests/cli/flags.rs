//! Bad flags and odd inputs: one line naming the flag, exit 2; help and `profiles`.

use super::*;

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
            &["run", "--rate", "1000Tbit", "--rtt", "50ms"],
            "error: --rate: expected a rate of at most 1Tbit",
        ),
        (
            &["run", "--profile", "gbit-lan", "--reverse-rate", "2Tbit"],
            "error: --reverse-rate: expected a rate of at most 1Tbit",
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
            "error: --tuner: expected default, min-rtt, neqo, double, fixed:SIZE",
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
            &["run", "--cross", "third"],
            "error: --cross: expected first[:LEAD] or second[:AFTER]",
        ),
        (
            &["run", "--cross", "first:1h"],
            "error: --cross: expected first[:LEAD] or second[:AFTER] with a duration up to 600s",
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

/// A label says what a path is, not what it is not: a gigabit LAN is no
/// "constrained connection" (the name of the crate rust-yamux's paths
/// come from).
#[test]
fn profile_labels_do_not_call_fast_paths_constrained() {
    let text = stdout(&fc_lab(&["profiles"]));
    let lan = text
        .lines()
        .find(|l| l.starts_with("gbit-lan "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(!lan.contains("constrained"), "{lan}");
    assert!(lan.contains("gigabit LAN"), "{lan}");
    assert!(!text.contains("constrained-connection"), "{text}");
}

/// A flag the command does not have points to the help that lists the
/// ones it has, still on one line.
#[test]
fn an_unknown_flag_or_command_points_to_help() {
    for (args, help) in [
        (&["run", "--bogus"][..], "`fc-lab run --help`"),
        (&["compare", "--size", "1GiB"], "`fc-lab compare --help`"),
        (&["frobnicate"], "`fc-lab --help`"),
    ] {
        let out = fc_lab(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err:?}");
        assert!(err.contains(help), "{args:?}: {err}");
    }
}

/// The top-level help lists every command and every flag each takes (the
/// README says so), and where each flag is explained.
#[test]
fn top_level_help_lists_every_command_and_flag() {
    let out = fc_lab(&["--help"]);
    assert!(out.status.success());
    let top = stdout(&out);
    let index = top
        .find("Flags of each command (`fc-lab <COMMAND> --help` explains them):")
        .unwrap_or_else(|| panic!("{top}"));
    let top = &top[index..];
    for command in ["run", "compare", "profiles", "sweep"] {
        let row = top
            .lines()
            .position(|l| l.starts_with(&format!("  {command} ")) && l.contains("--"))
            .unwrap_or_else(|| panic!("no flag row for {command}: {top}"));
        // A command's row and its continuation lines (indented further).
        let listed: String = top
            .lines()
            .skip(row)
            .enumerate()
            .take_while(|(i, l)| *i == 0 || l.starts_with("            "))
            .map(|(_, l)| format!("{l} "))
            .collect();
        let help = stdout(&fc_lab(&[command, "--help"]));
        for flag in help
            .lines()
            .map(str::trim_start)
            .filter_map(|l| l.strip_prefix("-h, ").or(Some(l)))
            .filter(|l| l.starts_with("--"))
            .filter_map(|l| l.split([' ', '=', '<']).next())
        {
            assert!(
                listed.contains(&format!("{flag} ")),
                "{flag} of {command} missing from the top-level help: {listed}"
            );
        }
    }
}
