//! The legend under each table `fc-lab` prints or writes: every column
//! header the table uses, with its unit and what it measures, so a table
//! reads without `--help` or `docs/lab.md`.

use crate::{table::Table, tuners::TunerChoice};

/// Width the plain-text legend wraps at.
const WIDTH: usize = 100;

/// What the tuner names mean (rows of the per-path tables).
const TUNERS: &str = "receive-window strategy (default = ours, neqo = neqo main, double = \
quiche/Chromium doubling, fixed:SIZE = static, unlimited = flow control off, the bound; \
+budget / -budget adds / drops the memory budget, default-budget = ours without it)";

/// The definition of a column header used in more than one table; `None`
/// for a header only one table has (it brings its own).
#[must_use]
pub fn define(term: &str) -> Option<String> {
    let def = match term {
        "tuner" => TUNERS,
        "ratio" => "time / the fastest run's time in this table (1.00 = fastest)",
        "time" => "simulated seconds until the last byte was read",
        "goodput" => "bytes read × 8 / time, bit/s",
        "stall goodput" => {
            "goodput of the streams that keep reading while the others' readers stall, \
             bit/s (from the stall's start to its end, or to the end of the run)"
        }
        "win/BDP" => "peak stream receive window / BDP (bandwidth-delay product, rate × RTT)",
        "credit/BDP" => {
            "peak credit outstanding summed over all streams (limit − bytes read: what \
             the peer may make the receiver buffer) / BDP"
        }
        "budget/BDP" => "peak memory budget in force / BDP (- = no budget)",
        "buffer" => "peak bytes received but not yet read",
        "drops" => "datagrams dropped on the path",
        "fc idle" => {
            "simulated seconds the link sat idle because the sender had data and \
             congestion window but no flow-control credit"
        }
        "fairness" => "Jain's index over the streams' goodputs (1 = equal, - with stalled readers)",
        "note" => "why a run did not deliver everything, or its budget violations",
        "profile" | "path" | "name" => "the network path (`fc-lab profiles` lists them)",
        "peak credit" => {
            "largest credit outstanding summed over all streams (limit − bytes read), bytes"
        }
        "× BDP" => "peak credit / BDP",
        "× default" => "peak credit / default's peak credit",
        "peak buffer" => "largest receive-buffer occupancy (received, not yet read), bytes",
        "rate" => "bottleneck rate, bit/s, both directions",
        "RTT" => "round-trip propagation delay",
        "queue" => "bottleneck queue, bytes (and in BDPs)",
        "BDP" => "bandwidth-delay product: rate × RTT / 8, bytes",
        "notes" => "what the path stands for",
        _ => return tuner(term),
    };
    Some(def.to_owned())
}

/// A tuner name as a column header (`neqo+budget`): what it is.
fn tuner(term: &str) -> Option<String> {
    let choice = TunerChoice::parse(term).ok()?;
    let base = match choice.base {
        crate::tuners::TunerSpec::Default => "ours (neqo-fc's default tuner)".to_owned(),
        crate::tuners::TunerSpec::MinRtt => {
            "ours without delay probes (minimum RTT only)".to_owned()
        }
        crate::tuners::TunerSpec::Neqo => "neqo main's auto-tuning".to_owned(),
        crate::tuners::TunerSpec::Double => "quiche / Chromium / ngtcp2 doubling".to_owned(),
        crate::tuners::TunerSpec::Fixed(size) => {
            format!("a static {} window", crate::format::window(size))
        }
        crate::tuners::TunerSpec::Unlimited => {
            return Some("flow control off (windows 2^62 − 1): the bound".to_owned());
        }
    };
    let budget = if choice.budget {
        "with the memory budget"
    } else {
        "without a memory budget"
    };
    Some(format!("{base}, {budget}"))
}

/// The terms of one table: each column header with its definition, in
/// column order; `own` defines the headers particular to this table (and
/// overrides a shared definition).
///
/// # Panics
/// Never for the tables `fc-lab` builds; a header nobody defines is
/// listed with `?` so a test catches it.
#[must_use]
pub fn of(table: &Table, own: &[(&str, String)]) -> Vec<(String, String)> {
    table
        .headers()
        .into_iter()
        .map(|h| {
            let def = own
                .iter()
                .find(|(t, _)| *t == h)
                .map(|(_, d)| d.clone())
                .or_else(|| define(h))
                .unwrap_or_else(|| "?".to_owned());
            (h.to_owned(), def)
        })
        .collect()
}

/// The legend as text under a table: `legend: term = definition; …`,
/// wrapped at 100 columns, each line after `indent`.
#[must_use]
pub fn render(entries: &[(String, String)], indent: &str) -> String {
    let text = format!("legend: {}", joined(entries));
    let mut out = String::new();
    let mut line = indent.to_owned();
    let lead = format!("{indent}  ");
    for word in text.split(' ') {
        let width = line.chars().count();
        if width > lead.len() && width + 1 + word.chars().count() > WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line.clone_from(&lead);
        }
        if !line.ends_with(' ') && line.chars().count() > indent.len() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// The legend as a Markdown paragraph under a table (a blank line first,
/// so it does not join the table).
#[must_use]
pub fn markdown(entries: &[(String, String)]) -> String {
    format!("\nLegend: {}.\n", joined(entries))
}

fn joined(entries: &[(String, String)]) -> String {
    entries
        .iter()
        .map(|(t, d)| format!("{t} = {d}"))
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Align;

    #[test]
    fn every_header_is_defined_and_wrapped() {
        let mut t = Table::new(&[
            ("tuner", Align::Left),
            ("fc idle", Align::Right),
            ("default-budget", Align::Right),
            ("mine", Align::Right),
        ]);
        t.push(vec!["x".into()]);
        let e = of(&t, &[("mine", "a term of this table".to_owned())]);
        assert!(e.iter().all(|(_, d)| d != "?"), "{e:?}");
        assert_eq!(
            e[2].1,
            "ours (neqo-fc's default tuner), without a memory budget"
        );
        let text = render(&e, "  ");
        assert!(text.starts_with("  legend: tuner = "), "{text}");
        assert!(text.contains("fc idle = "), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
        assert!(
            text.lines().skip(1).all(|l| l.starts_with("    ")),
            "{text}"
        );
        assert!(markdown(&e).starts_with("\nLegend: tuner = "));
        let unknown = Table::new(&[("what", Align::Left)]);
        assert_eq!(of(&unknown, &[])[0].1, "?");
    }
}
