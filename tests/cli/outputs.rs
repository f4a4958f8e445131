//! What `run` and `compare` write: report folders, plots, qlog, and how runs end.

use super::*;

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

/// A run that cannot finish within its simulated time limit and would
/// take minutes of wall time to get there is refused before it starts,
/// naming the flag, unless `--max-wall` bounds it.
#[test]
fn a_hopeless_run_is_refused_unless_max_wall_bounds_it() {
    let started = std::time::Instant::now();
    let out = fc_lab(&["run", "--profile", "gbit-50ms", "--size", "1EiB"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(
        err.starts_with(
            "error: --size: 1 EiB cannot be read within the simulated --time-limit 1 h"
        ),
        "{err}"
    );
    assert!(err.contains("--max-wall"), "{err}");
    assert!(stdout(&out).is_empty());
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "refused before any work"
    );
    // With --max-wall it runs, for that long, and says what it read.
    let out = fc_lab(&[
        "run",
        "--profile",
        "gbit-50ms",
        "--size",
        "1EiB",
        "--max-wall",
        "200ms",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("error: --max-wall: stopped after"),
        "{}",
        stderr(&out)
    );
    let v: Value = serde_json::from_str(&stdout(&out)).expect("the report prints");
    assert_eq!(v["end"], "stopped");
}

/// The legend after a table's last row: `legend: …` (text) or `Legend: …`
/// (Markdown), its wrapped lines joined.
fn legend_after<'a>(mut lines: impl Iterator<Item = &'a str>, markdown: bool) -> String {
    let first = if markdown {
        // A blank line, then the paragraph.
        lines.find(|l| !l.trim().is_empty()).unwrap_or("")
    } else {
        lines.next().unwrap_or("")
    };
    let lead = if markdown { "Legend: " } else { "legend: " };
    let Some(text) = first.trim_start().strip_prefix(lead) else {
        return String::new();
    };
    let mut out = text.to_owned();
    if !markdown {
        for l in lines.take_while(|l| l.starts_with(" ")) {
            out.push(' ');
            out.push_str(l.trim());
        }
    }
    out
}

/// Every column header of `headers` is defined in `legend` (`term = …`).
fn defines_every_header(headers: &[&str], legend: &str, context: &str) {
    assert!(!legend.is_empty(), "no legend under {context}");
    for h in headers {
        assert!(
            legend.contains(&format!("{h} = ")),
            "{h:?} undefined in the legend under {context}: {legend}"
        );
    }
    assert!(!legend.contains(" = ?"), "{context}: {legend}");
}

/// Every table on stdout and in report.md has a legend under it that
/// defines each of its column headers, units included.
#[test]
fn every_table_has_a_legend_defining_its_columns() {
    let dir = scratch("legend");
    let out_dir = dir.join("report");
    let out = fc_lab(&[
        "compare",
        "--quick",
        "--profile",
        "residential-cable",
        "--workload",
        "bulk,slow-reader,many-100,stall-mix",
        "--tuner",
        "default,default-budget,neqo+budget,unlimited",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));

    // stdout: an indented table per group, its header over a dashed rule.
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let mut tables = 0;
    for (i, w) in lines.windows(2).enumerate() {
        if !(w[1].trim_start().starts_with("-----") && w[1].starts_with("  ")) {
            continue;
        }
        tables += 1;
        let headers: Vec<&str> = w[0]
            .split("  ")
            .map(str::trim)
            .filter(|h| !h.is_empty())
            .collect();
        let rows = lines[i + 2..]
            .iter()
            .take_while(|l| l.starts_with("  ") && !l.trim_start().starts_with("legend: "))
            .count();
        let legend = legend_after(lines[i + 2 + rows..].iter().copied(), false);
        defines_every_header(&headers, &legend, w[0]);
    }
    assert_eq!(tables, 4, "{text}");
    // The terms the issue names.
    for term in [
        "ratio = ",
        "fc idle = ",
        "win/BDP = ",
        "credit/BDP = ",
        "budget/BDP = ",
    ] {
        assert!(text.contains(term), "{term}: {text}");
    }
    assert!(text.contains("default-budget = ours without"), "{text}");

    // report.md: every Markdown table.
    let md = read(&out_dir.join("report.md"));
    let lines: Vec<&str> = md.lines().collect();
    let mut tables = 0;
    for (i, w) in lines.windows(2).enumerate() {
        if !(w[0].starts_with("| ") && w[1].starts_with("|---")) {
            continue;
        }
        tables += 1;
        let headers: Vec<&str> = w[0].trim_matches('|').split(" | ").map(str::trim).collect();
        let rows = lines[i + 2..]
            .iter()
            .take_while(|l| l.starts_with('|'))
            .count();
        let legend = legend_after(lines[i + 2 + rows..].iter().copied(), true);
        defines_every_header(&headers, &legend, w[0]);
    }
    // Findings, summary and every run for each of the 4 scenarios, and the
    // memory section of many-100.
    assert!(tables >= 13, "{tables} tables: {md}");
    // The findings' memory column says what it measures per scenario.
    assert!(
        md.contains("memory = peak stream receive window / BDP"),
        "{md}"
    );
    assert!(md.contains("memory = peak receive buffer"), "{md}");

    // profiles: one table, its legend under it.
    let text = stdout(&fc_lab(&["profiles"]));
    let lines: Vec<&str> = text.lines().collect();
    let headers: Vec<&str> = lines[0]
        .split("  ")
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .collect();
    let legend = legend_after(lines[2 + PROFILES.len()..].iter().copied(), false);
    defines_every_header(&headers, &legend, "profiles");
    let _ = std::fs::remove_dir_all(&dir);
}

/// On `long-fat` the default 32 MiB cap holds the window and the summary
/// says so; `--max-window` raises it, and the window grows past it.
#[test]
fn the_stream_cap_is_named_and_max_window_raises_it() {
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "--profile", "long-fat", "--size", "256MiB"];
        args.extend_from_slice(extra);
        let out = fc_lab(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let capped = run(&[]);
    assert!(
        capped.contains("held at the tuner's 32 MiB cap, which --max-window raises"),
        "{capped}"
    );
    let raised = run(&["--max-window", "256MiB", "--json"]);
    let v: Value = serde_json::from_str(&raised).unwrap();
    assert_eq!(u(&v, "max_stream_window_bytes"), 256 << 20);
    assert!(u(&v, "peak_stream_window_bytes") > 32 << 20, "{v}");
    let fixed = fc_lab(&[
        "run",
        "--profile",
        "long-fat",
        "--tuner",
        "fixed:1MiB",
        "--max-window",
        "2MiB",
    ]);
    assert_eq!(fixed.status.code(), Some(2), "{}", stderr(&fixed));
    assert!(
        stderr(&fixed).contains("--max-window"),
        "{}",
        stderr(&fixed)
    );
}
