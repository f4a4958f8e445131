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

mod flags;
mod outputs;
mod run_json;
