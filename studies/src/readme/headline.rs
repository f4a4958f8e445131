//! The README's `headline` block: on the mission path, what each stack
//! ships against the same stack with neqo-fc and with unlimited windows —
//! real neqo (the scoreboard's runs), real quinn (the committed matrix)
//! and the simulator's 50 ms run. One table per stack, each over one RTT
//! set that its first heading names; the runs behind every mean, per RTT,
//! in a collapsed section below.

use super::{real_scoreboard, runs::Runs};
use fc_lab::{
    error::LabError,
    format,
    table::{Align, Table},
};

/// One run: its RTT, its goodput and its peak stream window over the BDP.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Round-trip time, ms.
    pub rtt_ms: u64,
    /// Goodput, bit/s.
    pub goodput_bps: f64,
    /// The receiver's peak stream window over the path's BDP, infinite when
    /// unlimited.
    pub window_bdp: f64,
}

impl Point {
    /// An RTT in seconds as whole milliseconds.
    #[must_use]
    pub fn ms(rtt_s: f64) -> u64 {
        (rtt_s * 1000.0).round() as u64
    }

    /// The runs of a results file's `runs` array that `keep` selects, one
    /// point each in RTT order; a window at or above `unlimited` bytes is
    /// infinite.
    ///
    /// # Errors
    /// `bad(what)` for a run without its RTT, goodput, window or BDP, or
    /// when no run is selected.
    pub fn from_runs(
        doc: &serde_json::Value,
        keep: impl Fn(&serde_json::Value) -> bool,
        unlimited: f64,
        bad: impl Fn(&str) -> LabError,
    ) -> Result<Vec<Self>, LabError> {
        let num = |r: &serde_json::Value, key: &str| r.get(key).and_then(serde_json::Value::as_f64);
        let mut points = doc
            .get("runs")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter(|r| keep(r))
            .map(|r| {
                let rtt = num(r, "rtt_s").ok_or_else(|| bad("a run without its RTT"))?;
                let goodput_bps =
                    num(r, "goodput_bps").ok_or_else(|| bad("a run without its goodput"))?;
                let window = num(r, "peak_stream_window_bytes")
                    .ok_or_else(|| bad("a run without its window"))?;
                let bdp = num(r, "bdp_bytes").ok_or_else(|| bad("a run without its BDP"))?;
                Ok(Self {
                    rtt_ms: Self::ms(rtt),
                    goodput_bps,
                    window_bdp: if window >= unlimited {
                        f64::INFINITY
                    } else {
                        window / bdp
                    },
                })
            })
            .collect::<Result<Vec<Self>, LabError>>()?;
        if points.is_empty() {
            return Err(bad("no run"));
        }
        points.sort_by_key(|p| p.rtt_ms);
        Ok(points)
    }
}

/// A variant: its label in the stack's table, its column heading in the
/// per-RTT table, and its runs in RTT order.
struct Row {
    label: &'static str,
    short: &'static str,
    points: Vec<Point>,
}

impl Row {
    fn mean_mbps(&self) -> f64 {
        self.points.iter().map(|p| p.goodput_bps).sum::<f64>() / self.points.len() as f64 / 1e6
    }

    fn largest_window(&self) -> f64 {
        self.points
            .iter()
            .map(|p| p.window_bdp)
            .fold(f64::NEG_INFINITY, f64::max)
    }
}

/// A stack's table: its name, its variants (every one over the same RTTs).
struct Stack {
    name: String,
    rows: Vec<Row>,
}

impl Stack {
    /// The RTTs every row ran at.
    ///
    /// # Errors
    /// When the rows ran at different RTTs, or one twice at the same RTT:
    /// a table's means are over one RTT set.
    fn rtts(&self) -> Result<Vec<u64>, LabError> {
        let rtts_of = |row: &Row| row.points.iter().map(|p| p.rtt_ms).collect::<Vec<u64>>();
        let Some(first) = self.rows.first() else {
            return Err(LabError::Simulator(format!("{}: no rows", self.name)));
        };
        let rtts = rtts_of(first);
        if rtts.is_empty() || rtts.windows(2).any(|w| w[0] >= w[1]) {
            return Err(LabError::Simulator(format!(
                "{}, {}: RTTs {rtts:?} are not one run each",
                self.name, first.label
            )));
        }
        for row in &self.rows[1..] {
            if rtts_of(row) != rtts {
                return Err(LabError::Simulator(format!(
                    "{}: {} ran at {:?} ms, {} at {rtts:?} ms; a table's means are over one RTT set",
                    self.name,
                    row.label,
                    rtts_of(row),
                    first.label
                )));
            }
        }
        Ok(rtts)
    }

    /// The stack's table: mean goodput and largest peak stream window.
    fn summary(&self) -> Result<String, LabError> {
        let rtts = self.rtts()?;
        let name = format!("{}, {}", self.name, rtt_set(&rtts));
        let (goodput, window) = if rtts.len() == 1 {
            ("goodput, Mbit/s", "peak stream window, BDP")
        } else {
            ("mean goodput, Mbit/s", "largest peak stream window, BDP")
        };
        let mut t = Table::new(&[
            (name.as_str(), Align::Left),
            (goodput, Align::Right),
            (window, Align::Right),
        ]);
        for row in &self.rows {
            t.push(vec![
                row.label.to_owned(),
                format!("{:.1}", row.mean_mbps()),
                format::ratio(row.largest_window()),
            ]);
        }
        Ok(t.markdown())
    }

    /// The runs behind the stack's table, one line per RTT.
    fn per_rtt(&self) -> Result<String, LabError> {
        let rtts = self.rtts()?;
        let mut headings = vec![("RTT, ms", Align::Right)];
        headings.extend(self.rows.iter().map(|r| (r.short, Align::Right)));
        let mut t = Table::new(&headings);
        for (k, rtt) in rtts.iter().enumerate() {
            let mut line = vec![rtt.to_string()];
            for row in &self.rows {
                let p = row.points[k];
                let window = if p.window_bdp.is_infinite() {
                    "∞".to_owned()
                } else {
                    format!("{} BDP", format::ratio(p.window_bdp))
                };
                line.push(format!("{:.1} Mbit/s, {window}", p.goodput_bps / 1e6));
            }
            t.push(line);
        }
        Ok(format!(
            "{}, {}:\n\n{}",
            self.name,
            rtt_set(&rtts),
            t.markdown()
        ))
    }
}

/// An RTT set as a table names it: `50 ms`, `21 RTTs, 20–100 ms every
/// 4 ms`, `7 RTTs: 20, 30, 40, 50, 60, 80, 100 ms`.
fn rtt_set(rtts: &[u64]) -> String {
    match rtts {
        [one] => format!("{one} ms"),
        [a, b, .., z] if rtts.len() > 3 && rtts.windows(2).all(|w| w[1] - w[0] == b - a) => {
            format!("{} RTTs, {a}–{z} ms every {} ms", rtts.len(), b - a)
        }
        _ => {
            let list: Vec<String> = rtts.iter().map(u64::to_string).collect();
            format!("{} RTTs: {} ms", rtts.len(), list.join(", "))
        }
    }
}

/// Real neqo and real quinn, from their committed results.
fn real_stacks() -> Result<Vec<Stack>, LabError> {
    let neqo = |variant: &str| real_scoreboard::points("mission", "1x1GiB", variant);
    let quinn = |variant: &str| real_scoreboard::quinn_points("mission", "1x1GiB", variant);
    Ok(vec![
        Stack {
            name: format!("neqo {}", real_scoreboard::neqo_commit()?),
            rows: vec![
                Row {
                    label: "as shipped",
                    short: "as shipped",
                    points: neqo("neqo-main")?,
                },
                Row {
                    label: "+ its pacing fix (ACK-only packets spend no pacing credit)",
                    short: "+ pacing fix",
                    points: neqo("neqo-main+pacing")?,
                },
                Row {
                    label: "+ the [upstream series](integrations/neqo/README.md#the-upstream-series): \
                            the pacing fix, a tuning fix, a 16 MiB window limit, windows sized for \
                            delay that varies but not for a steady queue, and new streams started at \
                            the tuned window, 5 patches",
                    short: "+ upstream series",
                    points: neqo("upstream-5")?,
                },
                Row {
                    label: "with neqo-fc as its flow control, + the pacing fix",
                    short: "with neqo-fc",
                    points: neqo("neqo-fc+pacing")?,
                },
                Row {
                    label: "unlimited windows",
                    short: "unlimited",
                    points: neqo("unlimited")?,
                },
            ],
        },
        Stack {
            name: format!("quinn-proto {}", real_scoreboard::quinn_version()?),
            rows: vec![
                Row {
                    label: "as shipped",
                    short: "as shipped",
                    points: quinn("quinn-default")?,
                },
                Row {
                    label: "+ the [upstream series](integrations/quinn/README.md#the-upstream-series-patchesupstream): \
                            stream and connection windows tuned up to `TransportConfig` maxima \
                            (16 and 24 MiB here), new streams started at the tuned window, the \
                            assembler's gap bound scaled, windows sized for delay that varies but \
                            not for a steady queue, 6 patches",
                    short: "+ upstream series",
                    points: quinn("upstream-6")?,
                },
                Row {
                    label: "with neqo-fc as its flow control",
                    short: "with neqo-fc",
                    points: quinn("neqo-fc")?,
                },
                Row {
                    label: "unlimited windows",
                    short: "unlimited",
                    points: quinn("unlimited")?,
                },
            ],
        },
    ])
}

/// The simulator's 50 ms runs.
fn simulator(runs: &Runs) -> Result<Stack, LabError> {
    let point = |name: &str| -> Result<Vec<Point>, LabError> {
        let r = runs.named(name)?;
        Ok(vec![Point {
            rtt_ms: Point::ms(r.rtt_s),
            goodput_bps: r.goodput_bps,
            window_bdp: r.window_bdp(),
        }])
    };
    Ok(Stack {
        name: "our simulator".to_owned(),
        rows: vec![
            Row {
                label: "with neqo-fc (`default` tuner)",
                short: "with neqo-fc",
                points: point("gbit-50ms/1GiB/default")?,
            },
            Row {
                label: "unlimited windows",
                short: "unlimited",
                points: point("gbit-50ms/1GiB/unlimited")?,
            },
        ],
    })
}

/// The block's text for `stacks`.
fn render(stacks: &[Stack]) -> Result<String, LabError> {
    let mut text = String::new();
    for s in stacks {
        text += &s.summary()?;
        text += "\n";
    }
    text += &format!(
        "Mission path: 1 Gbit/s, a tail-drop queue of one BDP, 1 GiB on one stream. Window: \
         the receiver's largest stream window in any run of the table, over the path's \
         bandwidth-delay product (∞: unlimited). Variants: \
         [neqo](integrations/neqo/README.md#variants), \
         [quinn](integrations/quinn/README.md#variants). Sources: `{}`, `{}`, `fc-lab run \
         --profile gbit-50ms --size 1GiB`.\n\n<details><summary>Per RTT: the runs behind each \
         mean</summary>\n\n",
        real_scoreboard::PATH,
        real_scoreboard::QUINN_PATH,
    );
    for s in stacks
        .iter()
        .filter(|s| s.rows.iter().any(|r| r.points.len() > 1))
    {
        text += &s.per_rtt()?;
        text += "\n";
    }
    text += "</details>\n";
    Ok(text)
}

/// The block's text.
///
/// # Errors
/// [`LabError::Simulator`] when a run or a committed result is missing, or
/// when the rows of a table ran at different RTTs.
pub fn headline(runs: &Runs) -> Result<String, LabError> {
    let mut stacks = real_stacks()?;
    stacks.push(simulator(runs)?);
    render(&stacks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rtt_sets_are_named_whole() {
        assert_eq!(rtt_set(&[50]), "50 ms");
        assert_eq!(
            rtt_set(&(0..21).map(|k| 20 + 4 * k).collect::<Vec<u64>>()),
            "21 RTTs, 20–100 ms every 4 ms"
        );
        assert_eq!(
            rtt_set(&[20, 30, 40, 50, 60, 80, 100]),
            "7 RTTs: 20, 30, 40, 50, 60, 80, 100 ms"
        );
    }

    #[test]
    fn a_table_refuses_rows_over_different_rtts() {
        let p = |rtt_ms| Point {
            rtt_ms,
            goodput_bps: 1e9,
            window_bdp: 1.0,
        };
        let stack = Stack {
            name: "x".to_owned(),
            rows: vec![
                Row {
                    label: "a",
                    short: "a",
                    points: vec![p(20), p(30)],
                },
                Row {
                    label: "b",
                    short: "b",
                    points: vec![p(20), p(40)],
                },
            ],
        };
        assert!(stack.summary().is_err());
    }

    /// Each real stack's table names its one RTT set and its units, holds
    /// no cell that needs a legend, and its per-RTT table has a line per
    /// RTT of that set.
    #[test]
    fn each_real_table_names_its_rtts_and_units() {
        let stacks = real_stacks().unwrap();
        let text = render(&stacks).unwrap();
        for s in &stacks {
            let rtts = s.rtts().unwrap();
            let set = rtt_set(&rtts);
            let header = format!(
                "| {}, {set} | mean goodput, Mbit/s | largest peak stream window, BDP |",
                s.name
            );
            assert!(text.contains(&header), "no {header:?} in\n{text}");
            let per_rtt = s.per_rtt().unwrap();
            assert_eq!(
                per_rtt
                    .lines()
                    .filter(|l| l.starts_with("| ") && !l.starts_with("| RTT"))
                    .count(),
                rtts.len(),
                "{per_rtt}"
            );
        }
        assert!(text.contains("21 RTTs, 20–100 ms every 4 ms"), "{text}");
        assert!(
            text.contains("| quinn-proto 0.11.19, 21 RTTs, 20–100 ms every 4 ms |"),
            "{text}"
        );
        // One number per cell: no "goodput · window" cells.
        assert!(!text.contains(" · "), "{text}");
        assert!(
            text.contains("<details>") && text.ends_with("</details>\n"),
            "{text}"
        );
    }
}
