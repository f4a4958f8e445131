//! The README's `real-quinn` block: quinn-proto with and without neqo-fc,
//! from the committed results of `integrations/quinn/run.sh`
//! (`results/matrix.json`: bulk transfers and the loopback check;
//! `results/short.json`: short transfers and requests).

use serde_json::Value;

use fc_lab::{
    error::LabError,
    table::{Align, Table},
};

const MATRIX_PATH: &str = "integrations/quinn/results/matrix.json";
const MATRIX: &str = include_str!("../../../integrations/quinn/results/matrix.json");
const SHORT_PATH: &str = "integrations/quinn/results/short.json";
const SHORT: &str = include_str!("../../../integrations/quinn/results/short.json");

/// The variants, in column order, and their headings.
const VARIANTS: [(&str, &str); 4] = [
    ("quinn-default", "quinn default"),
    ("quinn-8MiB", "quinn, 8 MiB windows"),
    ("unlimited", "unlimited windows"),
    ("neqo-fc", "quinn + neqo-fc"),
];

/// The rows: (file, path, scenario, label, also the peak connection window).
const ROWS: [(&str, &str, &str, &str, bool); 5] = [
    ("matrix", "mission", "bulk", "mission, 1 GiB", false),
    ("matrix", "bench", "bulk", "neqo's bench path, 1 GiB", false),
    ("short", "mission", "1x4000000", "mission, 1 × 4 MB", false),
    (
        "short",
        "mission",
        "req-10x409600",
        "mission, 10 × 409,600 B requests",
        false,
    ),
    (
        "short",
        "mission",
        "req-100x1MiB",
        "mission, 100 × 1 MiB requests",
        true,
    ),
];

/// Windows at or above this are unlimited (quinn's `VarInt::MAX`).
const UNLIMITED: f64 = (1u64 << 60) as f64;

fn parse(text: &str, path: &str) -> Result<Value, LabError> {
    serde_json::from_str(text).map_err(|e| LabError::Simulator(format!("{path}: {e}")))
}

fn num(r: &Value, key: &str) -> Option<f64> {
    r.get(key).and_then(Value::as_f64)
}

/// The largest of `key / bdp_bytes` over the runs, "∞" when unlimited.
fn peak(runs: &[&Value], key: &str) -> String {
    let mut most: Option<f64> = None;
    for r in runs {
        let (Some(w), Some(bdp)) = (num(r, key), num(r, "bdp_bytes")) else {
            continue;
        };
        if w >= UNLIMITED {
            return "∞".to_owned();
        }
        most = Some(most.map_or(w / bdp, |m: f64| m.max(w / bdp)));
    }
    most.map_or_else(|| "–".to_owned(), |m| format!("≤ {m:.2}"))
}

/// One cell: mean goodput over the runs that completed, the largest peak
/// stream window in BDPs (and the connection's), and how many runs quinn
/// closed.
fn cell(runs: &[&Value], conn: bool) -> String {
    if runs.is_empty() {
        return "–".to_owned();
    }
    let done: Vec<&Value> = runs
        .iter()
        .copied()
        .filter(|r| num(r, "goodput_bps").is_some())
        .collect();
    let failed = runs.len() - done.len();
    if done.is_empty() {
        return format!("closed in all {failed} runs");
    }
    let mean = done
        .iter()
        .filter_map(|r| num(r, "goodput_bps"))
        .sum::<f64>()
        / done.len() as f64;
    let mut s = format!(
        "{:.1} Mbit/s · {}",
        mean / 1e6,
        peak(&done, "peak_stream_window_bytes")
    );
    if conn {
        s += &format!(" · conn. {}", peak(&done, "peak_conn_window_bytes"));
    }
    if failed > 0 {
        s += &format!(" ({failed} of {} closed)", runs.len());
    }
    s
}

/// The block's text.
///
/// # Errors
/// [`LabError::Simulator`] when a results file does not parse.
pub fn real_quinn() -> Result<String, LabError> {
    let matrix = parse(MATRIX, MATRIX_PATH)?;
    let short = parse(SHORT, SHORT_PATH)?;
    let runs_of = |doc: &Value| -> Vec<Value> {
        doc.get("runs")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let (matrix_runs, short_runs) = (runs_of(&matrix), runs_of(&short));
    let mut headings = vec![("path, transfer", Align::Left)];
    headings.extend(VARIANTS.iter().map(|(_, h)| (*h, Align::Right)));
    let mut t = Table::new(&headings);
    let mut rtts: Vec<f64> = Vec::new();
    for (file, path, scenario, label, conn) in ROWS {
        let runs = if file == "matrix" {
            &matrix_runs
        } else {
            &short_runs
        };
        let mut row = vec![label.to_owned()];
        for (variant, _) in VARIANTS {
            let mine: Vec<&Value> = runs
                .iter()
                .filter(|r| {
                    r.get("path").and_then(Value::as_str) == Some(path)
                        && r.get("scenario").and_then(Value::as_str) == Some(scenario)
                        && r.get("variant").and_then(Value::as_str) == Some(variant)
                })
                .collect();
            for r in &mine {
                if let Some(rtt) = num(r, "rtt_s")
                    && !rtts.iter().any(|&x| (x - rtt).abs() < 1e-9)
                {
                    rtts.push(rtt);
                }
            }
            row.push(cell(&mine, conn));
        }
        t.push(row);
    }
    rtts.sort_by(f64::total_cmp);
    let rtts: Vec<String> = rtts.iter().map(|r| format!("{:.0}", r * 1000.0)).collect();
    let version = matrix
        .get("quinn_proto_version")
        .and_then(Value::as_str)
        .unwrap_or("?");
    let mut text = format!(
        "{}\nMean goodput over RTT {} ms · the largest peak stream window of the sweep in BDPs (for 100 streams also the connection's); \"closed\": quinn-proto ended the connection (INTERNAL_ERROR \"too many gaps in stream buffer\"). quinn-proto {version}; the sender's `send_window` is the path's BDP + queue in every variant (`{MATRIX_PATH}`, `{SHORT_PATH}`).\n",
        t.markdown(),
        rtts.join(", "),
    );
    if let Some(lb) = matrix.get("loopback") {
        let g = |tree: &str, key: &str| {
            lb.get(tree)
                .and_then(|t| t.get(key))
                .and_then(Value::as_f64)
                .unwrap_or(f64::NAN)
        };
        text += &format!(
            "\nOver loopback UDP with quinn's own endpoints (the `quinn` crate, one thread for both ends, {} runs of 1 GiB each): {:.2} Gbit/s unpatched, {:.2} Gbit/s with neqo-fc (× {:.3}); CPU time {:.2} s and {:.2} s per GiB (× {:.3}).\n",
            lb.get("runs_per_tree").and_then(Value::as_u64).unwrap_or(0),
            g("main", "median_goodput_gbps"),
            g("fc", "median_goodput_gbps"),
            lb.get("goodput_ratio")
                .and_then(Value::as_f64)
                .unwrap_or(f64::NAN),
            g("main", "cpu_s_per_gib"),
            g("fc", "cpu_s_per_gib"),
            lb.get("cpu_ratio")
                .and_then(Value::as_f64)
                .unwrap_or(f64::NAN),
        );
        // The upstream series, where the same run measured it.
        if lb.get("upstream-5").is_some() {
            text += &format!(
                "With the upstream series (`upstream-5`, stream windows tuned up to 16 MiB, the connection's up to 24 MiB, new streams seeded), in the same runs: {:.2} Gbit/s (× {:.3}), {:.2} s of CPU per GiB (× {:.3}).\n",
                g("upstream-5", "median_goodput_gbps"),
                lb.get("goodput_ratio_upstream-5")
                    .and_then(Value::as_f64)
                    .unwrap_or(f64::NAN),
                g("upstream-5", "cpu_s_per_gib"),
                lb.get("cpu_ratio_upstream-5")
                    .and_then(Value::as_f64)
                    .unwrap_or(f64::NAN),
            );
        }
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_and_the_loopback_line_come_from_the_results() {
        let text = real_quinn().unwrap();
        for (_, _, _, label, _) in ROWS {
            let row = text
                .lines()
                .find(|l| l.starts_with(&format!("| {label} |")))
                .unwrap_or_else(|| panic!("no row {label}:\n{text}"));
            // A mean in every column: no variant is missing from the results.
            assert_eq!(row.matches("Mbit/s").count(), VARIANTS.len(), "{row}");
        }
        assert!(text.contains("Over loopback UDP"), "{text}");
        assert!(!text.contains("NaN"), "{text}");
    }
}
