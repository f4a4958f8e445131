//! The `real-neqo-scoreboard` and `real-quinn-scoreboard` blocks: the
//! scoreboards of real neqo and real quinn (`integrations/neqo/run.sh
//! --scoreboard`, `integrations/quinn/run.sh --scoreboard`, committed as
//! their `results/scoreboard.json`): per row and variant the means over the
//! RTT sweep that each `scoreboard.py` wrote, and the targets it checked.

use serde_json::Value;

use super::headline::Point;
use fc_lab::{
    error::LabError,
    table::{Align, Table},
};

pub(super) const PATH: &str = "integrations/neqo/results/scoreboard.json";
const SCOREBOARD: &str = include_str!("../../../integrations/neqo/results/scoreboard.json");
pub(super) const QUINN_PATH: &str = "integrations/quinn/results/scoreboard.json";
const QUINN_SCOREBOARD: &str = include_str!("../../../integrations/quinn/results/scoreboard.json");

/// One stack's scoreboard: where its results are, its variants in column
/// order with their headings (an empty heading: not shown), and the window
/// at or above which the stack means unlimited.
struct Board {
    path: &'static str,
    json: &'static str,
    variants: &'static [(&'static str, &'static str)],
    unlimited: f64,
    /// The key naming the stack's version in the results, and how the
    /// footer names the stack.
    version_key: &'static str,
    stack: &'static str,
    command: &'static str,
}

const NEQO: Board = Board {
    path: PATH,
    json: SCOREBOARD,
    variants: &[
        ("neqo-main", "neqo main"),
        ("neqo-main+pacing", "main + pacing (= upstream-1)"),
        ("neqo-firefox", "Firefox's 12 MB window"),
        ("upstream-2", "upstream-2"),
        ("upstream-3", "upstream-3"),
        ("upstream-4", "upstream-4"),
        ("upstream-5", "upstream-5"),
        ("upstream-5-nopacing", "upstream 2–5, no pacing"),
        ("upstream-5-firefox", "upstream-5, Firefox's window"),
        ("neqo-fc+pacing", "full neqo-fc + pacing"),
        ("unlimited", "unlimited"),
        // neqo main + pacing under another name, shown once.
        ("upstream-1", ""),
    ],
    // neqo's unlimited setting.
    unlimited: 4.0e18,
    version_key: "neqo_commit",
    stack: "neqo",
    command: "integrations/neqo/run.sh --scoreboard",
};

const QUINN: Board = Board {
    path: QUINN_PATH,
    json: QUINN_SCOREBOARD,
    variants: &[
        ("quinn-default", "quinn default"),
        ("quinn-8MiB", "8 MiB windows"),
        ("upstream-1", "upstream-1"),
        ("upstream-2", "upstream-2"),
        ("upstream-3", "upstream-3"),
        ("upstream-4", "upstream-4"),
        ("upstream-5", "upstream-5"),
        ("upstream-6", "upstream-6"),
        ("neqo-fc", "full neqo-fc"),
        ("unlimited", "unlimited"),
    ],
    // quinn's VarInt::MAX is 2^62 - 1.
    unlimited: (1u64 << 60) as f64,
    version_key: "quinn_proto_version",
    stack: "quinn-proto",
    command: "integrations/quinn/run.sh --scoreboard",
};

impl Board {
    fn parse(&self) -> Result<Value, LabError> {
        serde_json::from_str(self.json)
            .map_err(|e| LabError::Simulator(format!("{}: {e}", self.path)))
    }
}

fn mean<'a>(doc: &'a Value, row: &str, variant: &str) -> Option<&'a Value> {
    doc.get("means")?.get(row)?.get(variant)
}

fn num(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

fn mb(bytes: f64, unlimited: f64) -> String {
    if bytes >= unlimited {
        "∞".to_owned()
    } else {
        format!("{:.1}", bytes / 1e6)
    }
}

/// The columns this scoreboard holds.
fn columns(board: &Board, doc: &Value) -> Vec<(&'static str, &'static str)> {
    let has = |v: &str| {
        doc.get("variants")
            .and_then(Value::as_array)
            .is_some_and(|vs| vs.iter().any(|x| x.as_str() == Some(v)))
    };
    board
        .variants
        .iter()
        .copied()
        .filter(|(v, h)| !h.is_empty() && has(v))
        .collect()
}

fn rows(doc: &Value) -> Vec<String> {
    doc.get("rows")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|x| x.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Goodput, then windows: one table each.
fn table(board: &Board, doc: &Value, cell: impl Fn(&Value) -> Option<String>) -> String {
    let cols = columns(board, doc);
    let mut headings = vec![("row", Align::Left)];
    headings.extend(cols.iter().map(|(_, h)| (*h, Align::Right)));
    let mut t = Table::new(&headings);
    for row in rows(doc) {
        let mut line = vec![row.clone()];
        for (v, _) in &cols {
            line.push(
                mean(doc, &row, v)
                    .and_then(&cell)
                    .unwrap_or_else(|| "–".to_owned()),
            );
        }
        t.push(line);
    }
    t.markdown()
}

/// The runs of `variant` on `path` with `scenario` (ECN off) in neqo's
/// scoreboard, one point per RTT in RTT order.
///
/// # Errors
/// [`LabError::Simulator`] when the results do not parse, hold no such run
/// or a run without its goodput.
pub(super) fn points(path: &str, scenario: &str, variant: &str) -> Result<Vec<Point>, LabError> {
    NEQO.points(path, scenario, variant)
}

/// The same from quinn's scoreboard.
///
/// # Errors
/// As [`points`].
pub(super) fn quinn_points(
    path: &str,
    scenario: &str,
    variant: &str,
) -> Result<Vec<Point>, LabError> {
    QUINN.points(path, scenario, variant)
}

impl Board {
    fn points(&self, path: &str, scenario: &str, variant: &str) -> Result<Vec<Point>, LabError> {
        let doc = self.parse()?;
        let bad = |what: &str| {
            LabError::Simulator(format!(
                "{}: {path} {scenario} / {variant}: {what}",
                self.path
            ))
        };
        Point::from_runs(
            &doc,
            |r| {
                r.get("path").and_then(Value::as_str) == Some(path)
                    && r.get("scenario").and_then(Value::as_str) == Some(scenario)
                    && r.get("variant").and_then(Value::as_str) == Some(variant)
                    && r.get("ecn").and_then(Value::as_bool) == Some(false)
            },
            self.unlimited,
            bad,
        )
    }

    /// The stack's version the scoreboard ran (a commit shortened).
    fn version(&self) -> Result<String, LabError> {
        let doc = self.parse()?;
        let v = doc
            .get(self.version_key)
            .and_then(Value::as_str)
            .unwrap_or("?");
        Ok(v[..v.len().min(7)].to_owned())
    }
}

/// The quinn-proto version quinn's scoreboard ran.
///
/// # Errors
/// [`LabError::Simulator`] when the results do not parse.
pub(super) fn quinn_version() -> Result<String, LabError> {
    QUINN.version()
}

/// The neqo commit the scoreboard ran, shortened.
///
/// # Errors
/// [`LabError::Simulator`] when the results do not parse.
pub(super) fn neqo_commit() -> Result<String, LabError> {
    NEQO.version()
}

/// The `real-neqo-scoreboard` block's text.
///
/// # Errors
/// [`LabError::Simulator`] when the results do not parse.
pub fn real_neqo_scoreboard() -> Result<String, LabError> {
    text(&NEQO)
}

/// The `real-quinn-scoreboard` block's text.
///
/// # Errors
/// [`LabError::Simulator`] when the results do not parse.
pub fn real_quinn_scoreboard() -> Result<String, LabError> {
    text(&QUINN)
}

fn text(board: &Board) -> Result<String, LabError> {
    let doc = board.parse()?;
    // Runs the stack ended (quinn-proto's gap limit) are left out of a mean
    // and counted beside it.
    let goodput = table(board, &doc, |m| {
        let g = num(m, "goodput_mbps")?;
        Some(match num(m, "failed") {
            Some(f) if f > 0.0 => format!("{g:.1} ({f} closed)"),
            _ => format!("{g:.1}"),
        })
    });
    let windows = table(board, &doc, |m| {
        let s = num(m, "peak_stream_window_bytes")?;
        let c = num(m, "peak_conn_window_bytes")?;
        Some(format!(
            "{} / {}",
            mb(s, board.unlimited),
            mb(c, board.unlimited)
        ))
    });
    let rtts = |key: &str| {
        let r: Vec<u64> = doc
            .get(key)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default();
        match (r.first(), r.last()) {
            (Some(a), Some(b)) => format!("{} RTTs, {a}–{b} ms", r.len()),
            _ => "no RTTs".to_owned(),
        }
    };
    let mut text = format!(
        "Mean goodput, Mbit/s ({} on the 1 Gbit/s paths; {} on `cable`, 200 Mbit/s):\n\n{goodput}\n\
         Mean peak stream window / peak connection window, MB:\n\n{windows}\n",
        rtts("rtts_ms"),
        rtts("cable_rtts_ms"),
    );
    if let Some(targets) = doc.get("targets").and_then(Value::as_object) {
        let met = |list: &Value| {
            let all = list.as_array().map_or(0, Vec::len);
            let met = list
                .as_array()
                .into_iter()
                .flatten()
                .filter(|t| t.get("met").and_then(Value::as_bool) == Some(true))
                .count();
            (met, all)
        };
        let mut tally: Vec<(&String, (usize, usize))> =
            targets.iter().map(|(v, l)| (v, met(l))).collect();
        tally.sort_by_key(|(_, (m, all))| std::cmp::Reverse(m * 1000 / all.max(&1)));
        if let [(best, (m, all)), rest @ ..] = tally.as_slice() {
            text += &format!("Recommended: `{best}`, which meets {m} of its {all} targets");
            for (v, (m, all)) in rest {
                text += &format!(" (`{v}`: {m} of {all})");
            }
            text += ".\n";
        }
        for (variant, list) in targets {
            text += &format!("\nTargets, `{variant}`:\n\n");
            for t in list.as_array().into_iter().flatten() {
                let met = t.get("met").and_then(Value::as_bool).unwrap_or(false);
                text += &format!(
                    "- {} {}: {}\n",
                    if met { "met —" } else { "**not met** —" },
                    t.get("target").and_then(Value::as_str).unwrap_or("?"),
                    t.get("measured").and_then(Value::as_str).unwrap_or("?"),
                );
            }
        }
    }
    text += &format!(
        "\n{} {} (`{}`; `{}`).\n",
        board.stack,
        board.version()?,
        board.path,
        board.command,
    );
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of `doc` is in `text` with a mean in every column.
    fn assert_every_row_has_its_means(doc: &Value, text: &str) {
        for row in rows(doc) {
            let line = text
                .lines()
                .find(|l| l.starts_with(&format!("| {row} |")))
                .unwrap_or_else(|| panic!("no row {row}:\n{text}"));
            assert!(!line.contains('–'), "a variant has no mean: {line}");
        }
    }

    #[test]
    fn every_row_has_a_mean_for_every_variant_it_ran() {
        let doc = NEQO.parse().unwrap();
        let text = real_neqo_scoreboard().unwrap();
        assert_every_row_has_its_means(&doc, &text);
        assert!(text.contains("Targets, `upstream-5`"), "{text}");
        assert!(text.contains("Recommended: `"), "{text}");
        // The points the headline reads are the runs behind these means.
        for variant in ["neqo-main", "upstream-5", "unlimited"] {
            let p = points("mission", "1x1GiB", variant).unwrap();
            let m = mean(&doc, "mission 1x1GiB", variant).unwrap();
            assert_eq!(p.len() as f64, num(m, "rtts").unwrap(), "{variant}");
            let g = p.iter().map(|p| p.goodput_bps).sum::<f64>() / p.len() as f64;
            assert!(
                (g / 1e6 - num(m, "goodput_mbps").unwrap()).abs() < 0.01,
                "{variant}: {g}"
            );
        }
        assert!(
            points("mission", "1x1GiB", "unlimited")
                .unwrap()
                .iter()
                .all(|p| p.window_bdp.is_infinite())
        );
    }

    #[test]
    fn quinn_has_every_row_and_its_series_targets() {
        let doc = QUINN.parse().unwrap();
        let text = real_quinn_scoreboard().unwrap();
        assert_every_row_has_its_means(&doc, &text);
        assert!(text.contains("Targets, `upstream-6`"), "{text}");
        assert!(text.contains("quinn-proto 0.11.19"), "{text}");
        // quinn's connection window is unlimited by default.
        let row = text
            .lines()
            .find(|l| l.starts_with("| mission 1x1GiB | 1.2 / ∞"));
        assert!(row.is_some(), "{text}");
    }
}
